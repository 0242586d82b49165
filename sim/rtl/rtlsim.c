/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C harness of the Verilated VTA RTL (vta/rtlsim.h): clock, AXI4-Lite master,
 * AXI4 slave DRAM model. The Verilator interface (vtartl_ports.h) is
 * generated at build time by hw/protogen.sh from the lib-create model.
 */
#include <vta/rtlsim.h>
#include <vta/vta_config.h>
#include <vta/vta_regmap.h>

#include <stdlib.h>
#include <string.h>

#include "vtartl_ports.h"

#ifdef VTA_RTL_TRACE
/*
 * Waveform build (RTL_TRACE=1): the model runs $dumpfile/$dumpvars in an
 * initial block, which Verilator allows only after traceEverOn(true). That is
 * an inline C++ function, so call what it calls, VerilatedContext::
 * calcUnusedSigs(true) on the last context, through its (Itanium ABI, Verilator
 * 5.006) symbol; the dump time comes from the legacy sc_time_stamp() hook.
 * Tied to that ABI on purpose: it is a debug build, and no C++ is written.
 */
extern void *vta_vl_last_context __asm__("_ZN9Verilated14s_lastContextpE");
void vta_vl_calc_unused_sigs(void *ctx, _Bool on) __asm__("_ZN16VerilatedContext14calcUnusedSigsEb");
double vta_vl_time_stamp(void) __asm__("_Z13sc_time_stampv");
const char *vta_trace_file(void);
static uint64_t trace_time;
double vta_vl_time_stamp(void) { return (double)trace_time; }
const char *vta_trace_file(void)
{
	const char *f = getenv("VTA_TRACE");
	return f && *f ? f : "vta.fst";
}
/* dump times: 10 per cycle; combinational updates in between get +1 each */
#define TRACE_TIME(t) (trace_time = (t))
#define TRACE_BUMP() (trace_time++)
#else
#define TRACE_TIME(t) ((void)0)
#define TRACE_BUMP() ((void)0)
#endif

#define BUS_BYTES (VTA_BUS_WIDTH / 8)
#define BUS_WORDS ((BUS_BYTES + 3) / 4)
#define AXQ 8 /* outstanding AXI address requests accepted by the DRAM model */

typedef struct axreq {
	uint64_t addr;
	unsigned len;   /* beats */
	unsigned beat;  /* next beat */
	uint64_t ready; /* cycle of the first beat */
	int err;
} axreq_t;

struct vta_rtlsim {
	void *h;
	vtartl_ports_t p;
	uint8_t *dram;
	size_t dram_size;
	uint64_t cycle;
	unsigned latency;
	uint32_t watchdog;
	vta_bases_t bases;
	vta_counters_t counters;
	axreq_t ar[AXQ];
	unsigned ar_n;
	axreq_t aw[AXQ];
	unsigned aw_n;
	uint64_t b_ready[AXQ];
	int b_err[AXQ]; /* BRESP */
	unsigned b_n;
	/* injected error response on [fault_addr, fault_addr + fault_bytes) */
	uint64_t fault_addr, fault_bytes;
	unsigned fault_resp;
};

/* The response of the DRAM model for a beat at a: OKAY, SLVERR outside the
 * DRAM, or the injected response. */
static unsigned beat_resp(const vta_rtlsim_t *s, uint64_t a)
{
	if (a + BUS_BYTES > s->dram_size || a + BUS_BYTES < a)
		return 2;
	if (s->fault_resp && a < s->fault_addr + s->fault_bytes && a + BUS_BYTES > s->fault_addr)
		return s->fault_resp;
	return 0;
}

/* ---- port helpers ---- */
static void set1(svLogic *l, int v) { *l = (svLogic)(v ? 1 : 0); }
static void setv(svLogicVecVal *v, unsigned words, uint64_t x)
{
	for (unsigned i = 0; i < words; i++) {
		v[i].aval = i < 2 ? (uint32_t)(x >> (32 * i)) : 0;
		v[i].bval = 0;
	}
}
static uint32_t get32(const svLogicVecVal *v) { return v[0].aval; }
static uint64_t get64(const svLogicVecVal *v)
{
	return (uint64_t)v[0].aval | ((uint64_t)v[1].aval << 32);
}

/* Inputs of the port struct to the model (outputs updated combinationally). */
static void combo(vta_rtlsim_t *s)
{
	TRACE_BUMP();
	vtartl_combo(s->h, &s->p);
}

static void eval_cycle(vta_rtlsim_t *s)
{
	TRACE_TIME(10 * s->cycle + 5);
	s->p.clk = 1;
	vtartl_seq(s->h, &s->p);
	TRACE_TIME(10 * s->cycle + 10);
	s->p.clk = 0;
	vtartl_seq(s->h, &s->p);
	s->cycle++;
}

/* One clock cycle with the DRAM model; the AXI-Lite inputs are whatever the
 * caller left in the port struct. */
static void cycle(vta_rtlsim_t *s)
{
	vtartl_ports_t *p = &s->p;
	/* drive the slave side from model state */
	set1(&p->m_axi_arready, s->ar_n < AXQ);
	axreq_t *r = s->ar_n ? &s->ar[0] : NULL;
	int rv = r && s->cycle >= r->ready;
	set1(&p->m_axi_rvalid, rv);
	if (rv) {
		uint64_t a = r->addr + (uint64_t)r->beat * BUS_BYTES;
		unsigned resp = a < r->addr ? 2 : beat_resp(s, a);
		uint32_t w[BUS_WORDS];
		if (resp)
			memset(w, 0, sizeof w);
		else
			memcpy(w, s->dram + a, BUS_BYTES);
		for (unsigned i = 0; i < BUS_WORDS; i++) {
			p->m_axi_rdata[i].aval = w[i];
			p->m_axi_rdata[i].bval = 0;
		}
		setv(p->m_axi_rresp, 1, resp);
		set1(&p->m_axi_rlast, r->beat + 1 == r->len);
	}
	set1(&p->m_axi_awready, s->aw_n < AXQ);
	set1(&p->m_axi_wready, s->aw_n > 0);
	int bv = s->b_n && s->cycle >= s->b_ready[0];
	set1(&p->m_axi_bvalid, bv);
	setv(p->m_axi_bresp, 1, bv ? (uint64_t)s->b_err[0] : 0);

	combo(s);

	/* handshakes at this edge */
	int ar_hs = p->m_axi_arvalid && p->m_axi_arready;
	int r_hs = rv && p->m_axi_rready;
	int aw_hs = p->m_axi_awvalid && p->m_axi_awready;
	int w_hs = p->m_axi_wvalid && p->m_axi_wready;
	int b_hs = bv && p->m_axi_bready;
	axreq_t nar = {0}, naw = {0};
	if (ar_hs) {
		nar.addr = get64(p->m_axi_araddr);
		nar.len = (get32(p->m_axi_arlen) & 0xFF) + 1;
		nar.ready = s->cycle + 1 + s->latency;
	}
	if (aw_hs) {
		naw.addr = get64(p->m_axi_awaddr);
		naw.len = (get32(p->m_axi_awlen) & 0xFF) + 1;
	}
	if (w_hs) {
		axreq_t *w = &s->aw[0];
		uint64_t a = w->addr + (uint64_t)w->beat * BUS_BYTES;
		unsigned resp = a < w->addr ? 2 : beat_resp(s, a);
		if (resp) {
			if (!w->err)
				w->err = (int)resp;
		} else {
			uint32_t d[BUS_WORDS];
			for (unsigned i = 0; i < BUS_WORDS; i++)
				d[i] = p->m_axi_wdata[i].aval;
			const uint8_t *src = (const uint8_t *)d;
			uint64_t strb = get64(p->m_axi_wstrb);
			for (unsigned i = 0; i < BUS_BYTES; i++)
				if (strb >> i & 1)
					s->dram[a + i] = src[i];
		}
		w->beat++;
		if (p->m_axi_wlast || w->beat == w->len) {
			if (s->b_n < AXQ) {
				s->b_ready[s->b_n] = s->cycle + 2;
				s->b_err[s->b_n] = w->err;
				s->b_n++;
			}
			memmove(&s->aw[0], &s->aw[1], (s->aw_n - 1) * sizeof s->aw[0]);
			s->aw_n--;
		}
	}

	eval_cycle(s);

	if (r_hs) {
		r->beat++;
		if (r->beat == r->len) {
			memmove(&s->ar[0], &s->ar[1], (s->ar_n - 1) * sizeof s->ar[0]);
			s->ar_n--;
			/* the next burst starts no earlier than now */
		}
	}
	if (b_hs) {
		memmove(&s->b_ready[0], &s->b_ready[1], (s->b_n - 1) * sizeof s->b_ready[0]);
		memmove(&s->b_err[0], &s->b_err[1], (s->b_n - 1) * sizeof s->b_err[0]);
		s->b_n--;
	}
	if (ar_hs)
		s->ar[s->ar_n++] = nar;
	if (aw_hs)
		s->aw[s->aw_n++] = naw;
}

void vta_rtlsim_step(vta_rtlsim_t *s, uint64_t n)
{
	while (n--)
		cycle(s);
}

uint64_t vta_rtlsim_cycle(const vta_rtlsim_t *s) { return s->cycle; }

/* ---- AXI4-Lite master ---- */
void vta_rtlsim_reg_write(vta_rtlsim_t *s, uint32_t off, uint32_t val)
{
	vtartl_ports_t *p = &s->p;
	setv(p->s_axil_awaddr, 1, off);
	setv(p->s_axil_wdata, 1, val);
	setv(p->s_axil_wstrb, 1, 0xF);
	set1(&p->s_axil_awvalid, 1);
	set1(&p->s_axil_wvalid, 1);
	set1(&p->s_axil_bready, 1);
	for (int i = 0; i < 1000; i++) {
		combo(s);
		int hs = p->s_axil_awready;
		cycle(s);
		if (hs)
			break;
	}
	set1(&p->s_axil_awvalid, 0);
	set1(&p->s_axil_wvalid, 0);
	for (int i = 0; i < 1000 && !p->s_axil_bvalid; i++)
		cycle(s);
	cycle(s); /* bready high: the response is taken at this edge */
}

uint32_t vta_rtlsim_reg_read(vta_rtlsim_t *s, uint32_t off)
{
	vtartl_ports_t *p = &s->p;
	setv(p->s_axil_araddr, 1, off);
	set1(&p->s_axil_arvalid, 1);
	set1(&p->s_axil_rready, 1);
	for (int i = 0; i < 1000; i++) {
		combo(s);
		int hs = p->s_axil_arready;
		cycle(s);
		if (hs)
			break;
	}
	set1(&p->s_axil_arvalid, 0);
	for (int i = 0; i < 1000 && !p->s_axil_rvalid; i++)
		cycle(s);
	uint32_t v = get32(p->s_axil_rdata);
	cycle(s);
	return v;
}

uint64_t vta_rtlsim_counter(vta_rtlsim_t *s, uint32_t off)
{
	uint32_t lo = vta_rtlsim_reg_read(s, off);
	uint32_t hi = vta_rtlsim_reg_read(s, off + 4);
	return (uint64_t)hi << 32 | lo;
}

/* ---- life cycle ---- */
static int power_on(vta_rtlsim_t *s, vta_error_t *err)
{
	if (s->h)
		vtartl_protectlib_final(s->h);
	memset(&s->p, 0, sizeof s->p);
	s->ar_n = s->aw_n = s->b_n = 0;
	s->h = vtartl_protectlib_create("vta");
	if (!s->h)
		return vta_error_set(err, VTA_ENOMEM, -1, "rtlsim: cannot create the Verilated model");
#ifdef VTA_RTL_TRACE
	if (vta_vl_last_context)
		vta_vl_calc_unused_sigs(vta_vl_last_context, 1);
	TRACE_TIME(10 * s->cycle);
#endif
	set1(&s->p.rst, 1);
	combo(s);
	for (int i = 0; i < 4; i++)
		cycle(s);
	set1(&s->p.rst, 0);
	cycle(s);
	memset(&s->counters, 0, sizeof s->counters);
	return 0;
}

vta_rtlsim_t *vta_rtlsim_create(size_t dram_bytes, vta_error_t *err)
{
	vta_error_clear(err);
	vta_rtlsim_t *s = calloc(1, sizeof *s);
	if (!s) {
		vta_error_set(err, VTA_ENOMEM, -1, "rtlsim: out of memory");
		return NULL;
	}
	s->dram = calloc(dram_bytes ? dram_bytes : 1, 1);
	if (!s->dram) {
		free(s);
		vta_error_set(err, VTA_ENOMEM, -1, "rtlsim: cannot allocate %zu bytes of DRAM", dram_bytes);
		return NULL;
	}
	s->dram_size = dram_bytes;
	s->latency = 8;
	const char *lat = getenv("VTA_RTL_LATENCY");
	if (lat && *lat)
		s->latency = (unsigned)strtoul(lat, NULL, 0);
	s->watchdog = 20000;
	if (power_on(s, err)) {
		free(s->dram);
		free(s);
		return NULL;
	}
	return s;
}

void vta_rtlsim_destroy(vta_rtlsim_t *s)
{
	if (!s)
		return;
	if (s->h)
		vtartl_protectlib_final(s->h);
	free(s->dram);
	free(s);
}

int vta_rtlsim_reset(vta_rtlsim_t *s, vta_error_t *err)
{
	vta_error_clear(err);
	return power_on(s, err);
}

uint8_t *vta_rtlsim_dram(vta_rtlsim_t *s) { return s->dram; }
size_t vta_rtlsim_dram_size(const vta_rtlsim_t *s) { return s->dram_size; }
void vta_rtlsim_set_bases(vta_rtlsim_t *s, const vta_bases_t *b) { s->bases = *b; }
void vta_rtlsim_set_latency(vta_rtlsim_t *s, unsigned c) { s->latency = c; }
void vta_rtlsim_set_watchdog(vta_rtlsim_t *s, uint32_t c) { s->watchdog = c; }
const vta_counters_t *vta_rtlsim_counters(const vta_rtlsim_t *s) { return &s->counters; }

static void write64(vta_rtlsim_t *s, uint32_t off, uint64_t v)
{
	vta_rtlsim_reg_write(s, off, (uint32_t)v);
	vta_rtlsim_reg_write(s, off + 4, (uint32_t)(v >> 32));
}

static void read_counters(vta_rtlsim_t *s)
{
	vta_counters_t *c = &s->counters;
	c->cycles = vta_rtlsim_counter(s, VTA_REG_CNT_CYCLES);
	c->gemm_uops = vta_rtlsim_counter(s, VTA_REG_CNT_GEMM_UOPS);
	c->gemm_reset_uops = vta_rtlsim_counter(s, VTA_REG_CNT_RESET_UOPS);
	c->alu_uops = vta_rtlsim_counter(s, VTA_REG_CNT_ALU_UOPS);
	c->bytes_written = vta_rtlsim_counter(s, VTA_REG_CNT_DMA_WR_BYTES);
	/* instructions by opcode (counted at dispatch) and DRAM element bytes
	 * by memory type: the same meaning as the golden model's on a run that
	 * completes (after an error the golden model stops at once while the
	 * RTL may have dispatched or loaded more) */
	for (unsigned k = 0; k < 8; k++) {
		c->insns[k] = vta_rtlsim_counter(s, VTA_REG_CNT_INSNS_LOAD + 8 * k);
		c->bytes_read[k] = vta_rtlsim_counter(s, VTA_REG_CNT_RD_UOP + 8 * k);
	}
	c->insn_bytes_read = 16 * vta_rtlsim_counter(s, VTA_REG_CNT_INSNS);
	/* token_waits: the RTL counts cycles spent waiting (the golden model
	 * counts instructions that waited; the two are not comparable) */
	c->token_waits[VTA_Q_G2L] = vta_rtlsim_counter(s, VTA_REG_CNT_LOAD_WAIT);
	c->token_waits[VTA_Q_L2G] = vta_rtlsim_counter(s, VTA_REG_CNT_COMPUTE_WAIT);
	c->token_waits[VTA_Q_G2S] = vta_rtlsim_counter(s, VTA_REG_CNT_STORE_WAIT);
}

int vta_rtlsim_irq(const vta_rtlsim_t *s) { return s->p.irq != 0; }

unsigned vta_rtlsim_axi_pending(const vta_rtlsim_t *s) { return s->ar_n + s->aw_n + s->b_n; }

int vta_rtlsim_wait_irq(vta_rtlsim_t *s, uint64_t max_cycles)
{
	for (uint64_t i = 0; i < max_cycles && !s->p.irq; i++)
		cycle(s);
	return s->p.irq != 0;
}

void vta_rtlsim_set_fault(vta_rtlsim_t *s, uint64_t addr, uint64_t bytes, unsigned resp)
{
	s->fault_addr = addr;
	s->fault_bytes = bytes;
	s->fault_resp = bytes ? resp & 3 : 0;
}

int vta_rtlsim_soft_reset(vta_rtlsim_t *s, uint64_t max_cycles, vta_error_t *err)
{
	vta_error_clear(err);
	uint64_t start = s->cycle;
	vta_rtlsim_reg_write(s, VTA_REG_CONTROL, VTA_CONTROL_SOFT_RESET);
	while (vta_rtlsim_reg_read(s, VTA_REG_CONTROL) & VTA_CONTROL_SOFT_RESET)
		if (s->cycle - start > max_cycles)
			return vta_error_set(err, VTA_ETIMEOUT, -1,
					     "rtlsim: the soft reset did not complete within %llu cycles "
					     "(a DMA burst never completed)",
					     (unsigned long long)max_cycles);
	return 0;
}

int vta_rtlsim_run(vta_rtlsim_t *s, uint64_t insn_addr, uint32_t insn_count, vta_error_t *err)
{
	vta_error_clear(err);
	if (vta_rtlsim_reg_read(s, VTA_REG_CONFIG_ID) != VTA_CONFIG_ID)
		return vta_error_set(err, VTA_EUNSUPPORTED, -1,
				     "rtlsim: the RTL was built for another configuration");
	vta_rtlsim_reg_write(s, VTA_REG_WATCHDOG, s->watchdog);
	write64(s, VTA_REG_FETCH_INSN_ADDR, insn_addr);
	vta_rtlsim_reg_write(s, VTA_REG_FETCH_INSN_COUNT, insn_count);
	write64(s, VTA_REG_LOAD_INP_ADDR, s->bases.inp);
	write64(s, VTA_REG_LOAD_WGT_ADDR, s->bases.wgt);
	write64(s, VTA_REG_COMPUTE_UOP_ADDR, s->bases.uop);
	write64(s, VTA_REG_COMPUTE_BIAS_ADDR, s->bases.acc);
	write64(s, VTA_REG_STORE_OUT_ADDR, s->bases.out);
	vta_rtlsim_reg_write(s, VTA_REG_LOAD_CTRL, 0x81);
	vta_rtlsim_reg_write(s, VTA_REG_COMPUTE_CTRL, 0x81);
	vta_rtlsim_reg_write(s, VTA_REG_STORE_CTRL, 0x81);
	/* the interrupt ends the wait (ISR cleared first, cleared again after) */
	vta_rtlsim_reg_write(s, VTA_REG_FETCH_ISR, VTA_IRQ_DONE | VTA_IRQ_ERROR);
	vta_rtlsim_reg_write(s, VTA_REG_FETCH_IER, VTA_IRQ_DONE | VTA_IRQ_ERROR);
	vta_rtlsim_reg_write(s, VTA_REG_FETCH_GIE, VTA_GIE_ENABLE);
	vta_rtlsim_reg_write(s, VTA_REG_FETCH_CTRL, 0x1);
	uint64_t start = s->cycle;
	uint32_t st = 0;
	for (;;) {
		vta_rtlsim_wait_irq(s, 64);
		st = vta_rtlsim_reg_read(s, VTA_REG_STATUS);
		if (st & (VTA_STATUS_ERR_MASK | VTA_STATUS_DONE))
			break;
		if (s->cycle - start > (1ull << 32))
			return vta_error_set(err, VTA_ETIMEOUT, -1,
					     "rtlsim: no FINISH after %llu cycles",
					     (unsigned long long)(s->cycle - start));
	}
	vta_rtlsim_reg_write(s, VTA_REG_FETCH_ISR, VTA_IRQ_DONE | VTA_IRQ_ERROR);
	read_counters(s);
	uint32_t who = vta_rtlsim_reg_read(s, VTA_REG_ERR_INFO);
	uint32_t at = vta_rtlsim_reg_read(s, VTA_REG_ERR_INSN);
	long idx = at == 0xFFFFFFFFu ? -1 : (long)at;
	static const char *const mod[] = {"?", "fetch", "load", "compute", "store", "token queue",
					  "watchdog", "start while busy"};
	const char *m = mod[who & 7];
	if (st & VTA_STATUS_ERR_BUSY)
		return vta_error_set(err, VTA_EIO, -1, "rtlsim: start refused, the device was busy");
	if (st & VTA_STATUS_ERR_ILLEGAL)
		return vta_error_set(err, VTA_EILLEGAL, idx,
				     "rtlsim: instruction %ld: illegal opcode, memory type or flag (%s)",
				     idx, m);
	if (st & VTA_STATUS_ERR_TOKEN)
		return vta_error_set(err, VTA_ETOKEN, idx,
				     "rtlsim: instruction %ld: token queue overflow", idx);
	if (st & VTA_STATUS_ERR_RANGE)
		return vta_error_set(err, VTA_ERANGE, idx,
				     "rtlsim: instruction %ld: SRAM index out of range (%s)", idx, m);
	if (st & VTA_STATUS_ERR_DRAM)
		return vta_error_set(err, VTA_ERANGE, idx,
				     "rtlsim: instruction %ld: AXI error response at DRAM address "
				     "0x%llx (%s)", idx,
				     (unsigned long long)vta_rtlsim_counter(s, VTA_REG_ERR_ADDR), m);
	if (st & VTA_STATUS_ERR_WATCHDOG)
		return vta_error_set(err, VTA_EDEADLOCK, idx,
				     "rtlsim: no progress for %u cycles (deadlock or no FINISH; "
				     "instruction %ld waits)", s->watchdog, idx);
	return 0;
}
