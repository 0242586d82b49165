/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C harness of the Verilated VTA RTL (vta/rtlsim.h): clock, AXI4-Lite master,
 * AXI4 slave DRAM model. The Verilator interface (vtartl_ports.h) is
 * generated at build time by hw/protogen.sh from the lib-create model.
 */
#include <vta/rtlsim.h>
#include <vta/vta_config.h>
#include <vta/vta_regmap.h>

#include <stdarg.h>
#include <stdio.h>
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
/* dump times: 10 per cycle (rising edge at +5); the falling edge at the
 * cycle's first input update, later input updates in the cycle +1 each */
#define TRACE_TIME(t) (trace_time = (t))
#define TRACE_FROM(t) (trace_time = trace_time < (t) ? (t) : trace_time + 1)
#else
#define TRACE_TIME(t) ((void)0)
#define TRACE_FROM(t) ((void)0)
#endif

#define BUS_BYTES (VTA_BUS_WIDTH / 8)
#define BUS_WORDS ((BUS_BYTES + 3) / 4)
#define LOG_BUS_BYTES (VTA_LOG_BUS_WIDTH - 3)
#define AXQ 16   /* bursts the DRAM model holds per direction */
#define ACCEPT 8 /* AR and AW it accepts ahead: the HP ports' command acceptance (UG1085) */
#define MAX_INJ 8

typedef struct burst {
	uint64_t addr;
	unsigned len;   /* beats */
	unsigned beat;  /* next beat */
	uint64_t ready; /* read: first cycle its next beat may be valid; write: B may be valid */
	unsigned resp;  /* write: the response of the whole burst */
} burst_t;

/* What the monitor remembers of the previous cycle: every VALID that was not
 * taken must stay high, with the same payload (AXI4 A3.2.1). Only a VALID
 * left waiting (*_wait) has its payload saved. */
typedef struct mon {
	int ar_wait, aw_wait, w_wait, lb_wait, lr_wait;
	uint64_t ar_addr, aw_addr, w_strb;
	unsigned ar_len, ar_size, ar_burst, aw_len, aw_size, aw_burst, w_last;
	uint32_t w_data[BUS_WORDS];
	unsigned lb_resp, lr_resp;
	uint32_t lr_data;
	unsigned lite_wr_open, lite_rd_open; /* accepted AXI-Lite requests without a response */
	unsigned w_beat;                     /* W beats of the oldest open AW so far */
} mon_t;

struct vta_rtlsim {
	void *h;
	vtartl_ports_t p;
	uint8_t *dram;
	size_t dram_size;
	uint64_t cycle;
	vta_rtlsim_axi_t axi;
	uint64_t rng;
	uint32_t watchdog;
	vta_bases_t bases;
	vta_counters_t counters;
	burst_t ar[AXQ]; /* accepted reads; the head is being returned */
	unsigned ar_n;
	int r_valid;     /* RVALID is up (held until RREADY) */
	burst_t aw[AXQ]; /* accepted writes whose data has not all arrived */
	unsigned aw_n;
	burst_t b[AXQ];  /* writes waiting for their B */
	unsigned b_n;
	int b_valid;
	struct { uint64_t lo, hi; unsigned resp; } inj[MAX_INJ];
	unsigned n_inj;
	/* AXI-Lite handshakes of the last cycle (for the register access loops) */
	int lite_aw_hs, lite_w_hs, lite_b_hs, lite_ar_hs, lite_r_hs;
	mon_t mon;
	char violation[256];
	int drop_arvalid; /* vta_rtlsim_test_drop_arvalid */
};

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
static uint64_t get_strb(const svLogicVecVal *v)
{
	uint64_t x = get64(v);
	return BUS_BYTES >= 64 ? x : x & ((1ull << BUS_BYTES) - 1);
}

/* ---- seeded stalls ---- */
static uint64_t rnd(vta_rtlsim_t *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545F4914F6CDD1Dull;
}
/* with back-pressure on: true with probability pct/100; otherwise always true */
static int go(vta_rtlsim_t *s, unsigned pct)
{
	return !s->axi.backpressure || rnd(s) % 100 < pct;
}
static unsigned stall(vta_rtlsim_t *s, unsigned max)
{
	return s->axi.backpressure ? (unsigned)(rnd(s) % (max + 1)) : 0;
}

/* Inputs of the port struct to the model (outputs updated combinationally),
 * with the clock low: after a rising edge this evaluation is also the falling
 * edge, so a cycle costs two evaluations of the model (vtartl_eval, generated
 * by hw/protogen.sh; the lib-create calls would need three: the falling edge,
 * the inputs and the rising edge each evaluate the model's input logic). */
static void combo(vta_rtlsim_t *s)
{
	TRACE_FROM(10 * s->cycle);
	s->p.clk = 0;
	vtartl_eval(s->h, &s->p, 0);
}

/* The rising edge (cycle() has just passed the inputs through combo). Of the
 * outputs only irq is copied back (hw/module.mk); the others are read after
 * the next combo, which every cycle starts with. */
static void eval_cycle(vta_rtlsim_t *s)
{
	TRACE_TIME(10 * s->cycle + 5);
	s->p.clk = 1;
	vtartl_eval(s->h, &s->p, 1);
	s->cycle++;
}

/* ---- DRAM responses ---- */
/* Response to an access of [a, a + n): DECERR outside the DRAM, an injected
 * error, or OKAY. */
static unsigned resp_of(const vta_rtlsim_t *s, uint64_t a, uint64_t n)
{
	if (a + n > s->dram_size || a + n < a)
		return 3;
	for (unsigned i = 0; i < s->n_inj; i++)
		if (a < s->inj[i].hi && a + n > s->inj[i].lo)
			return s->inj[i].resp;
	return 0;
}

/* ---- protocol monitor ---- */
static void violate(vta_rtlsim_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void violate(vta_rtlsim_t *s, const char *fmt, ...)
{
	if (s->violation[0])
		return;
	int k = snprintf(s->violation, sizeof s->violation, "cycle %llu: ",
			 (unsigned long long)s->cycle);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->violation + k, sizeof s->violation - (size_t)k, fmt, ap);
	va_end(ap);
}

/* AR or AW accepted: INCR, full-width beats, aligned, legal length, inside one 4 KiB page. */
static void check_burst(vta_rtlsim_t *s, const char *ch, uint64_t addr, unsigned len,
			unsigned size, unsigned burst)
{
	if (burst != 1)
		violate(s, "%s: AxBURST %u, expected INCR", ch, burst);
	else if (size != LOG_BUS_BYTES)
		violate(s, "%s: AxSIZE %u, expected %u (the bus width)", ch, size, LOG_BUS_BYTES);
	else if (addr % BUS_BYTES)
		violate(s, "%s: address 0x%llx not aligned to the bus width", ch,
			(unsigned long long)addr);
	else if (len > s->axi.max_burst)
		violate(s, "%s: burst of %u beats at 0x%llx, longer than %u", ch, len,
			(unsigned long long)addr, s->axi.max_burst);
	else if ((addr & 4095) + (uint64_t)len * BUS_BYTES > 4096)
		violate(s, "%s: burst of %u beats at 0x%llx crosses a 4 KiB boundary", ch, len,
			(unsigned long long)addr);
}

/* The outputs of the RTL in this cycle, against those of the last one. */
static void monitor(vta_rtlsim_t *s)
{
	const vtartl_ports_t *p = &s->p;
	mon_t *m = &s->mon;
	if (p->rst)
		return;
	int ar_v = p->m_axi_arvalid;
	if (m->ar_wait && s->drop_arvalid) {
		ar_v = 0;
		s->drop_arvalid = 0;
	}
	if (m->ar_wait &&
	    (!ar_v || get64(p->m_axi_araddr) != m->ar_addr ||
	     (get32(p->m_axi_arlen) & 0xFF) != m->ar_len || (get32(p->m_axi_arsize) & 7) != m->ar_size ||
	     (get32(p->m_axi_arburst) & 3) != m->ar_burst))
		violate(s, "AR: ARVALID dropped or payload changed before ARREADY (addr 0x%llx)",
			(unsigned long long)m->ar_addr);
	if (m->aw_wait &&
	    (!p->m_axi_awvalid || get64(p->m_axi_awaddr) != m->aw_addr ||
	     (get32(p->m_axi_awlen) & 0xFF) != m->aw_len || (get32(p->m_axi_awsize) & 7) != m->aw_size ||
	     (get32(p->m_axi_awburst) & 3) != m->aw_burst))
		violate(s, "AW: AWVALID dropped or payload changed before AWREADY (addr 0x%llx)",
			(unsigned long long)m->aw_addr);
	if (m->w_wait) {
		int same = p->m_axi_wvalid && get_strb(p->m_axi_wstrb) == m->w_strb &&
			   (unsigned)p->m_axi_wlast == m->w_last;
		for (unsigned i = 0; same && i < BUS_WORDS; i++)
			same = p->m_axi_wdata[i].aval == m->w_data[i];
		if (!same)
			violate(s, "W: WVALID dropped or WDATA/WSTRB/WLAST changed before WREADY");
	}
	if (m->lb_wait && (!p->s_axil_bvalid || (get32(p->s_axil_bresp) & 3) != m->lb_resp))
		violate(s, "AXI-Lite B: BVALID dropped or BRESP changed before BREADY");
	if (m->lr_wait &&
	    (!p->s_axil_rvalid || get32(p->s_axil_rdata) != m->lr_data ||
	     (get32(p->s_axil_rresp) & 3) != m->lr_resp))
		violate(s, "AXI-Lite R: RVALID dropped or RDATA/RRESP changed before RREADY");
	if (p->s_axil_bvalid && !m->lite_wr_open)
		violate(s, "AXI-Lite B: BVALID without an accepted write");
	if (p->s_axil_rvalid && !m->lite_rd_open)
		violate(s, "AXI-Lite R: RVALID without an accepted read");
}

static void monitor_save(vta_rtlsim_t *s)
{
	const vtartl_ports_t *p = &s->p;
	mon_t *m = &s->mon;
	m->ar_wait = p->m_axi_arvalid && !p->m_axi_arready;
	if (m->ar_wait) {
		m->ar_addr = get64(p->m_axi_araddr);
		m->ar_len = get32(p->m_axi_arlen) & 0xFF;
		m->ar_size = get32(p->m_axi_arsize) & 7;
		m->ar_burst = get32(p->m_axi_arburst) & 3;
	}
	m->aw_wait = p->m_axi_awvalid && !p->m_axi_awready;
	if (m->aw_wait) {
		m->aw_addr = get64(p->m_axi_awaddr);
		m->aw_len = get32(p->m_axi_awlen) & 0xFF;
		m->aw_size = get32(p->m_axi_awsize) & 7;
		m->aw_burst = get32(p->m_axi_awburst) & 3;
	}
	m->w_wait = p->m_axi_wvalid && !p->m_axi_wready;
	if (m->w_wait) {
		m->w_strb = get_strb(p->m_axi_wstrb);
		m->w_last = p->m_axi_wlast;
		for (unsigned i = 0; i < BUS_WORDS; i++)
			m->w_data[i] = p->m_axi_wdata[i].aval;
	}
	m->lb_wait = p->s_axil_bvalid && !p->s_axil_bready;
	if (m->lb_wait)
		m->lb_resp = get32(p->s_axil_bresp) & 3;
	m->lr_wait = p->s_axil_rvalid && !p->s_axil_rready;
	if (m->lr_wait) {
		m->lr_data = get32(p->s_axil_rdata);
		m->lr_resp = get32(p->s_axil_rresp) & 3;
	}
}

/* One clock cycle with the DRAM model; the AXI-Lite inputs are whatever the
 * caller left in the port struct. */
static void cycle(vta_rtlsim_t *s)
{
	vtartl_ports_t *p = &s->p;
	/* drive the slave side from model state; a VALID once up stays up */
	set1(&p->m_axi_arready, s->ar_n < ACCEPT && go(s, 70));
	burst_t *r = s->ar_n ? &s->ar[0] : NULL;
	if (!s->r_valid && r && s->cycle >= r->ready && go(s, 75)) {
		uint64_t a = r->addr + (uint64_t)r->beat * BUS_BYTES;
		unsigned resp = resp_of(s, a, BUS_BYTES);
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
		s->r_valid = 1;
	}
	set1(&p->m_axi_rvalid, s->r_valid);
	set1(&p->m_axi_awready, s->aw_n < ACCEPT && s->aw_n + s->b_n < AXQ && go(s, 70));
	set1(&p->m_axi_wready, s->aw_n > 0 && go(s, 75));
	if (!s->b_valid && s->b_n && s->cycle >= s->b[0].ready && go(s, 70))
		s->b_valid = 1;
	set1(&p->m_axi_bvalid, s->b_valid);
	setv(p->m_axi_bresp, 1, s->b_valid ? s->b[0].resp : 0);

	combo(s);
	monitor(s);

	/* handshakes at this edge */
	int ar_hs = p->m_axi_arvalid && p->m_axi_arready;
	int r_hs = s->r_valid && p->m_axi_rready;
	int aw_hs = p->m_axi_awvalid && p->m_axi_awready;
	int w_hs = p->m_axi_wvalid && p->m_axi_wready;
	int b_hs = s->b_valid && p->m_axi_bready;
	s->lite_aw_hs = p->s_axil_awvalid && p->s_axil_awready;
	s->lite_w_hs = p->s_axil_wvalid && p->s_axil_wready;
	s->lite_b_hs = p->s_axil_bvalid && p->s_axil_bready;
	s->lite_ar_hs = p->s_axil_arvalid && p->s_axil_arready;
	s->lite_r_hs = p->s_axil_rvalid && p->s_axil_rready;
	burst_t nar = {0}, naw = {0};
	if (ar_hs) {
		nar.addr = get64(p->m_axi_araddr);
		nar.len = (get32(p->m_axi_arlen) & 0xFF) + 1;
		nar.ready = s->cycle + s->axi.rd_latency + stall(s, 8);
		check_burst(s, "AR", nar.addr, nar.len, get32(p->m_axi_arsize) & 7,
			    get32(p->m_axi_arburst) & 3);
	}
	if (aw_hs) {
		naw.addr = get64(p->m_axi_awaddr);
		naw.len = (get32(p->m_axi_awlen) & 0xFF) + 1;
		naw.resp = resp_of(s, naw.addr, (uint64_t)naw.len * BUS_BYTES);
		check_burst(s, "AW", naw.addr, naw.len, get32(p->m_axi_awsize) & 7,
			    get32(p->m_axi_awburst) & 3);
	}
	if (w_hs) {
		burst_t *w = &s->aw[0];
		uint64_t a = w->addr + (uint64_t)w->beat * BUS_BYTES;
		if (!w->resp) {
			uint32_t d[BUS_WORDS];
			for (unsigned i = 0; i < BUS_WORDS; i++)
				d[i] = p->m_axi_wdata[i].aval;
			const uint8_t *src = (const uint8_t *)d;
			uint64_t strb = get_strb(p->m_axi_wstrb);
			for (unsigned i = 0; i < BUS_BYTES; i++)
				if (strb >> i & 1)
					s->dram[a + i] = src[i];
		}
		w->beat++;
		if ((unsigned)p->m_axi_wlast != (w->beat == w->len))
			violate(s, "W: WLAST %s at beat %u of a %u-beat burst (addr 0x%llx)",
				p->m_axi_wlast ? "set" : "missing", w->beat, w->len,
				(unsigned long long)w->addr);
		if (w->beat == w->len) {
			w->ready = s->cycle + s->axi.wr_latency + stall(s, 8);
			s->b[s->b_n++] = *w;
			memmove(&s->aw[0], &s->aw[1], (s->aw_n - 1) * sizeof s->aw[0]);
			s->aw_n--;
		}
	}
	mon_t *m = &s->mon;
	if (s->lite_aw_hs)
		m->lite_wr_open++;
	if (s->lite_b_hs && m->lite_wr_open)
		m->lite_wr_open--;
	if (s->lite_ar_hs)
		m->lite_rd_open++;
	if (s->lite_r_hs && m->lite_rd_open)
		m->lite_rd_open--;

	/* what the rising edge sees: a VALID it does not take must stay up after it */
	monitor_save(s);
	eval_cycle(s);

	if (r_hs) {
		s->r_valid = 0;
		r->beat++;
		if (r->beat == r->len) {
			memmove(&s->ar[0], &s->ar[1], (s->ar_n - 1) * sizeof s->ar[0]);
			s->ar_n--;
			/* the next burst's beats follow, each no earlier than its latency */
		} else {
			r->ready = s->cycle + stall(s, 3);
		}
	}
	if (b_hs) {
		s->b_valid = 0;
		memmove(&s->b[0], &s->b[1], (s->b_n - 1) * sizeof s->b[0]);
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
/* Bound on the cycles one register access may take: a slave that never
 * answers is a protocol violation, not a hang. */
#define LITE_TIMEOUT 10000

void vta_rtlsim_reg_write(vta_rtlsim_t *s, uint32_t off, uint32_t val)
{
	vtartl_ports_t *p = &s->p;
	setv(p->s_axil_awaddr, 1, off);
	setv(p->s_axil_wdata, 1, val);
	setv(p->s_axil_wstrb, 1, 0xF);
	/* under back-pressure AW and W come up in different cycles */
	unsigned aw_at = stall(s, 3), w_at = stall(s, 3);
	int aw_done = 0, w_done = 0, i;
	for (i = 0; (!aw_done || !w_done) && i < LITE_TIMEOUT; i++) {
		set1(&p->s_axil_awvalid, !aw_done && (unsigned)i >= aw_at);
		set1(&p->s_axil_wvalid, !w_done && (unsigned)i >= w_at);
		set1(&p->s_axil_bready, 0);
		cycle(s);
		aw_done |= s->lite_aw_hs;
		w_done |= s->lite_w_hs;
	}
	set1(&p->s_axil_awvalid, 0);
	set1(&p->s_axil_wvalid, 0);
	for (i = 0; i < LITE_TIMEOUT; i++) {
		set1(&p->s_axil_bready, go(s, 50));
		cycle(s);
		if (s->lite_b_hs)
			break;
	}
	set1(&p->s_axil_bready, 0);
	if (i == LITE_TIMEOUT)
		violate(s, "AXI-Lite: no write response to 0x%x", off);
}

uint32_t vta_rtlsim_reg_read(vta_rtlsim_t *s, uint32_t off)
{
	vtartl_ports_t *p = &s->p;
	setv(p->s_axil_araddr, 1, off);
	unsigned ar_at = stall(s, 3);
	int i;
	set1(&p->s_axil_rready, 0);
	for (i = 0; i < LITE_TIMEOUT; i++) {
		set1(&p->s_axil_arvalid, (unsigned)i >= ar_at);
		cycle(s);
		if (s->lite_ar_hs)
			break;
	}
	set1(&p->s_axil_arvalid, 0);
	uint32_t v = 0;
	for (i = 0; i < LITE_TIMEOUT; i++) {
		set1(&p->s_axil_rready, go(s, 50));
		combo(s);
		v = get32(p->s_axil_rdata);
		cycle(s);
		if (s->lite_r_hs)
			break;
	}
	set1(&p->s_axil_rready, 0);
	if (i == LITE_TIMEOUT)
		violate(s, "AXI-Lite: no read response from 0x%x", off);
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
	s->r_valid = s->b_valid = 0;
	memset(&s->mon, 0, sizeof s->mon);
	s->violation[0] = 0;
	s->rng = s->axi.seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
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
	vta_rtlsim_axi_defaults(&s->axi);
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
void vta_rtlsim_axi_defaults(vta_rtlsim_axi_t *a)
{
	memset(a, 0, sizeof *a);
	a->rd_latency = strcmp(VTA_TARGET, "ultra96") ? VTA_RTL_LATENCY_PYNQ : VTA_RTL_LATENCY_ULTRA96;
	a->wr_latency = a->rd_latency;
	a->seed = 1;
	a->max_burst = 16;
}

void vta_rtlsim_set_axi(vta_rtlsim_t *s, const vta_rtlsim_axi_t *a)
{
	s->axi = *a;
	if (s->axi.rd_latency < 1)
		s->axi.rd_latency = 1;
	if (s->axi.wr_latency < 1)
		s->axi.wr_latency = 1;
	if (s->axi.max_burst < 1 || s->axi.max_burst > 256)
		s->axi.max_burst = 256;
}

void vta_rtlsim_get_axi(const vta_rtlsim_t *s, vta_rtlsim_axi_t *a) { *a = s->axi; }

void vta_rtlsim_set_latency(vta_rtlsim_t *s, unsigned c)
{
	s->axi.rd_latency = c < 1 ? 1 : c;
}

int vta_rtlsim_inject_error(vta_rtlsim_t *s, uint64_t addr, uint64_t bytes, unsigned resp)
{
	if ((resp != 2 && resp != 3) || s->n_inj == MAX_INJ || addr + bytes < addr)
		return VTA_EINVAL;
	s->inj[s->n_inj].lo = addr;
	s->inj[s->n_inj].hi = addr + bytes;
	s->inj[s->n_inj].resp = resp;
	s->n_inj++;
	return 0;
}

void vta_rtlsim_clear_errors(vta_rtlsim_t *s) { s->n_inj = 0; }

const char *vta_rtlsim_protocol_error(const vta_rtlsim_t *s)
{
	return s->violation[0] ? s->violation : NULL;
}

void vta_rtlsim_test_drop_arvalid(vta_rtlsim_t *s) { s->drop_arvalid = 1; }
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
	vta_rtlsim_clear_errors(s);
	if (bytes)
		vta_rtlsim_inject_error(s, addr, bytes, resp);
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
		if (s->violation[0])
			break;
		if (s->cycle - start > (1ull << 32))
			return vta_error_set(err, VTA_ETIMEOUT, -1,
					     "rtlsim: no FINISH after %llu cycles",
					     (unsigned long long)(s->cycle - start));
	}
	vta_rtlsim_reg_write(s, VTA_REG_FETCH_ISR, VTA_IRQ_DONE | VTA_IRQ_ERROR);
	read_counters(s);
	if (s->violation[0])
		return vta_error_set(err, VTA_EIO, -1, "rtlsim: AXI protocol violation: %s",
				     s->violation);
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
