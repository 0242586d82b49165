/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The AXI protocol monitor of the RTL harness (sim/rtl/rtlsim.c), without the
 * RTL: the harness is compiled into this program as it is, and the three
 * functions it calls on the Verilated model (vtartl_protectlib_create/final,
 * vtartl_eval) are a scripted stand-in defined here: an AXI4 master that
 * issues a list of read and write bursts and an AXI-Lite slave with a small
 * register file, both with registered outputs (they change at the rising edge,
 * as the model's do). Each negative case breaks one rule once, in the cycle
 * after the first edge where it can (a VALID not taken, a burst's beat, a
 * response nobody asked for), and requires the monitor's message for that rule
 * at that cycle; the positive case runs every kind of legal traffic under
 * back-pressure and requires no violation and the data of every transfer.
 */
#include "rtlsim.c"

#include <stddef.h>

#include "test.h"

/* ---------------------------------------------------------- the stand-in */
typedef struct xfer {
	uint64_t addr;
	unsigned beats, size, burst;
} xfer_t;

enum fault {
	F_NONE,
	F_AR_DROP, F_AR_ADDR, F_AR_LEN, F_AR_SIZE, F_AR_BURST,
	F_AW_DROP, F_AW_ADDR, F_AW_LEN, F_AW_SIZE, F_AW_BURST,
	F_W_DROP, F_W_DATA, F_W_STRB, F_W_LAST,
	F_WLAST_EARLY, F_WLAST_MISSING,
	F_LB_DROP, F_LB_RESP, F_LR_DROP, F_LR_DATA, F_LR_RESP, F_LB_SPURIOUS, F_LR_SPURIOUS,
};

#define NX 32
typedef struct fake {
	/* the scenario (kept by create) */
	xfer_t rd[NX], wr[NX];
	unsigned n_rd, n_wr;
	enum fault fault;
	const uint8_t *dram; /* the harness's DRAM, for checking R data */
	/* state, cleared by create and by the reset pin */
	uint64_t edges;      /* rising edges since create */
	uint64_t fault_edge; /* the edge after which the broken output shows (0: none yet) */
	unsigned rd_i, r_i, r_beat, aw_i, w_i, w_beat, b_n, r_bad;
	int lb, lr, law, lw;
	uint32_t law_addr, lw_data, lr_data, regs[64];
} fake_t;
static fake_t F;

void *vtartl_protectlib_create(const char *scope)
{
	(void)scope;
	memset(&F.edges, 0, sizeof F - offsetof(fake_t, edges));
	return &F;
}
void vtartl_protectlib_final(void *h) { (void)h; }

/* what W beat `beat` of write burst x carries: its byte address, word by word */
static uint32_t w_word(const xfer_t *x, unsigned beat, unsigned i)
{
	return (uint32_t)(x->addr + (uint64_t)beat * BUS_BYTES + 4 * i) ^ 0x5a5a0000u;
}
static uint32_t lite_value(uint32_t addr) { return F.regs[(addr / 4) % 64] ^ addr; }

/* a fault shows for one cycle, after the edge that armed it */
static int broken(enum fault f) { return F.fault == f && F.fault_edge && F.edges == F.fault_edge; }
static void arm(enum fault lo, enum fault hi)
{
	if (!F.fault_edge && F.fault >= lo && F.fault <= hi)
		F.fault_edge = F.edges + 1;
}

/* the outputs, from the state */
static void drive(vtartl_ports_t *p)
{
	if (p->rst_i) { /* as the RTL: every VALID and READY low during reset */
		set1(&p->m_axi_arvalid, 0);
		set1(&p->m_axi_awvalid, 0);
		set1(&p->m_axi_wvalid, 0);
		set1(&p->s_axil_awready, 0);
		set1(&p->s_axil_wready, 0);
		set1(&p->s_axil_bvalid, 0);
		set1(&p->s_axil_arready, 0);
		set1(&p->s_axil_rvalid, 0);
		return;
	}
	const xfer_t *r = F.rd_i < F.n_rd ? &F.rd[F.rd_i] : NULL;
	set1(&p->m_axi_arvalid, r && !broken(F_AR_DROP));
	setv(p->m_axi_araddr, 2, r ? r->addr + (broken(F_AR_ADDR) ? BUS_BYTES : 0) : 0);
	setv(p->m_axi_arlen, 1, r ? r->beats - 1 + broken(F_AR_LEN) : 0);
	setv(p->m_axi_arsize, 1, r ? r->size - broken(F_AR_SIZE) : 0);
	setv(p->m_axi_arburst, 1, r ? (broken(F_AR_BURST) ? 2 : r->burst) : 0);
	set1(&p->m_axi_rready, 1);

	const xfer_t *a = F.aw_i < F.n_wr ? &F.wr[F.aw_i] : NULL;
	set1(&p->m_axi_awvalid, a && !broken(F_AW_DROP));
	setv(p->m_axi_awaddr, 2, a ? a->addr + (broken(F_AW_ADDR) ? BUS_BYTES : 0) : 0);
	setv(p->m_axi_awlen, 1, a ? a->beats - 1 + broken(F_AW_LEN) : 0);
	setv(p->m_axi_awsize, 1, a ? a->size - broken(F_AW_SIZE) : 0);
	setv(p->m_axi_awburst, 1, a ? (broken(F_AW_BURST) ? 2 : a->burst) : 0);

	/* W beats of bursts whose AW was taken */
	const xfer_t *w = F.w_i < F.aw_i ? &F.wr[F.w_i] : NULL;
	set1(&p->m_axi_wvalid, w && !broken(F_W_DROP));
	for (unsigned i = 0; i < BUS_WORDS; i++) {
		p->m_axi_wdata[i].aval = w ? w_word(w, F.w_beat, i) ^ (broken(F_W_DATA) && i == 0) : 0;
		p->m_axi_wdata[i].bval = 0;
	}
	uint64_t strb = BUS_BYTES >= 64 ? ~0ull : (1ull << BUS_BYTES) - 1;
	setv(p->m_axi_wstrb, 2, w ? strb ^ broken(F_W_STRB) : 0);
	int last = w && F.w_beat + 1 == w->beats;
	if (F.fault == F_WLAST_EARLY && F.w_i == 0)
		last = F.w_beat == 0;
	if (F.fault == F_WLAST_MISSING && F.w_i == 0)
		last = 0;
	set1(&p->m_axi_wlast, last ^ broken(F_W_LAST));
	set1(&p->m_axi_bready, 1);

	/* AXI-Lite slave: one write and one read at a time */
	set1(&p->s_axil_awready, !F.law && !F.lb);
	set1(&p->s_axil_wready, !F.lw && !F.lb);
	set1(&p->s_axil_bvalid, (F.lb && !broken(F_LB_DROP)) || broken(F_LB_SPURIOUS));
	setv(p->s_axil_bresp, 1, broken(F_LB_RESP) ? 2 : 0);
	set1(&p->s_axil_arready, !F.lr);
	set1(&p->s_axil_rvalid, (F.lr && !broken(F_LR_DROP)) || broken(F_LR_SPURIOUS));
	setv(p->s_axil_rdata, 1, F.lr_data ^ broken(F_LR_DATA));
	setv(p->s_axil_rresp, 1, broken(F_LR_RESP) ? 2 : 0);
	set1(&p->irq, 0);
}

/* the rising edge: handshakes the edge sees, then the next state */
static void edge(const vtartl_ports_t *p)
{
	if (p->rst_i) {
		vtartl_protectlib_create(NULL);
		return;
	}
	if (p->m_axi_arvalid && p->m_axi_arready)
		F.rd_i++;
	else if (p->m_axi_arvalid)
		arm(F_AR_DROP, F_AR_BURST);
	if (p->m_axi_rvalid && p->m_axi_rready && F.r_i < F.rd_i) {
		const xfer_t *x = &F.rd[F.r_i];
		uint64_t a = x->addr + (uint64_t)F.r_beat * BUS_BYTES;
		F.r_bad += (unsigned)p->m_axi_rlast != (F.r_beat + 1 == x->beats) ||
			   (get32(p->m_axi_rresp) & 3) != 0 || memcmp(p->m_axi_rdata, F.dram + a, 4) != 0;
		if (++F.r_beat == x->beats) {
			F.r_i++;
			F.r_beat = 0;
		}
	}
	if (p->m_axi_awvalid && p->m_axi_awready)
		F.aw_i++;
	else if (p->m_axi_awvalid)
		arm(F_AW_DROP, F_AW_BURST);
	if (p->m_axi_wvalid && p->m_axi_wready) {
		if (++F.w_beat == F.wr[F.w_i].beats) {
			F.w_i++;
			F.w_beat = 0;
		}
	} else if (p->m_axi_wvalid) {
		arm(F_W_DROP, F_W_LAST);
	}
	if (p->m_axi_bvalid && p->m_axi_bready)
		F.b_n++;

	if (p->s_axil_awvalid && p->s_axil_awready) {
		F.law = 1;
		F.law_addr = get32(p->s_axil_awaddr);
	}
	if (p->s_axil_wvalid && p->s_axil_wready) {
		F.lw = 1;
		F.lw_data = get32(p->s_axil_wdata);
	}
	if (F.lb && p->s_axil_bvalid && p->s_axil_bready)
		F.lb = 0;
	else if (F.lb)
		arm(F_LB_DROP, F_LB_RESP);
	if (F.law && F.lw && !F.lb) {
		F.regs[(F.law_addr / 4) % 64] = F.lw_data;
		F.law = F.lw = 0;
		F.lb = 1;
	}
	if (F.lr && p->s_axil_rvalid && p->s_axil_rready)
		F.lr = 0;
	else if (F.lr)
		arm(F_LR_DROP, F_LR_RESP);
	if (p->s_axil_arvalid && p->s_axil_arready) {
		F.lr = 1;
		F.lr_data = lite_value(get32(p->s_axil_araddr));
	}
	if (F.edges == 20)
		arm(F_LB_SPURIOUS, F_LR_SPURIOUS);
	F.edges++;
}

void vtartl_eval(void *h, struct vtartl_ports *p, int clk)
{
	(void)h;
	if (clk)
		edge(p);
	drive(p);
}

/* ---------------------------------------------------------- scenarios */
static vta_rtlsim_t *sim;

/* a harness with back-pressure (seed) and the bursts and fault set up in F */
static void start(enum fault f, uint64_t seed, unsigned max_burst)
{
	vta_error_t err;
	F.fault = f;
	if (!sim) {
		sim = vta_rtlsim_create(1 << 20, &err);
		CHECK(sim != NULL);
	}
	vta_rtlsim_axi_t axi;
	vta_rtlsim_axi_defaults(&axi);
	axi.backpressure = 1;
	axi.seed = seed;
	axi.rd_latency = 3;
	axi.wr_latency = 2;
	if (max_burst)
		axi.max_burst = max_burst;
	vta_rtlsim_set_axi(sim, &axi);
	CHECK_EQ(vta_rtlsim_reset(sim, &err), 0);
	F.dram = vta_rtlsim_dram(sim);
}

static void add(xfer_t *list, unsigned *n, uint64_t addr, unsigned beats)
{
	xfer_t x = {addr, beats, LOG_BUS_BYTES, 1};
	list[(*n)++] = x;
}

/* bursts of 1 to 16 beats (1 KiB apart: the widest bus's longest burst), the
 * last one ending exactly at a 4 KiB boundary */
static void traffic(void)
{
	F.n_rd = F.n_wr = 0;
	for (unsigned k = 0; k < 12; k++) {
		unsigned beats = 1 + (k * 5) % 16;
		add(F.rd, &F.n_rd, 0x1000 + (uint64_t)k * 0x400, beats);
		add(F.wr, &F.n_wr, 0x40000 + (uint64_t)k * 0x400, beats);
	}
	add(F.rd, &F.n_rd, 0x5000 - 16 * BUS_BYTES, 16);
	add(F.wr, &F.n_wr, 0x45000 - 16 * BUS_BYTES, 16);
}

static void lite_traffic(void)
{
	for (uint32_t k = 0; k < 24; k++) {
		vta_rtlsim_reg_write(sim, 4 * k, 0x1000u * k + 7);
		uint32_t got = vta_rtlsim_reg_read(sim, 4 * k);
		if (got != ((0x1000u * k + 7) ^ 4 * k))
			test_fail_(__FILE__, __LINE__, "AXI-Lite read of 0x%x: 0x%x", 4 * k, got);
	}
}

/* run until the master is done (or a violation); the violation text */
static const char *run(void)
{
	for (unsigned i = 0; i < 4000 && !vta_rtlsim_protocol_error(sim); i++) {
		vta_rtlsim_step(sim, 1);
		if (F.r_i == F.n_rd && F.w_i == F.n_wr && F.b_n == F.n_wr && i > 30)
			break;
	}
	return vta_rtlsim_protocol_error(sim);
}

/* the violation must name the rule and, for a fault with a cycle, that cycle */
static void expect_(const char *what, int with_cycle, int line)
{
	const char *v = vta_rtlsim_protocol_error(sim);
	if (!v) {
		test_fail_(__FILE__, line, "fault %d: no violation reported (expected \"%s\")", F.fault, what);
		return;
	}
	if (!strstr(v, what))
		test_fail_(__FILE__, line, "fault %d: \"%s\", expected \"%s\"", F.fault, v, what);
	if (with_cycle) {
		/* the monitor counts the harness's cycles; the stand-in counts edges since power-on */
		unsigned long long at = vta_rtlsim_cycle(sim) - F.edges + F.fault_edge, got = 0;
		if (!F.fault_edge || sscanf(v, "cycle %llu:", &got) != 1 || got != at)
			test_fail_(__FILE__, line, "fault %d: \"%s\", expected at cycle %llu", F.fault, v, at);
	}
}
#define expect(what, with_cycle) expect_(what, with_cycle, __LINE__)

/* ---------------------------------------------------------- cases */
/* Positive control: reads, writes and register accesses under back-pressure
 * (several seeds) pass, and every transfer carried its data. */
static void test_legal(void)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		traffic();
		start(F_NONE, seed, 0);
		uint8_t *d = vta_rtlsim_dram(sim);
		for (size_t i = 0; i < 0x6000; i++)
			d[i] = (uint8_t)(i * 7 + seed);
		const char *v = run();
		if (v)
			test_fail_(__FILE__, __LINE__, "seed %llu: %s", (unsigned long long)seed, v);
		CHECK_EQ(F.r_i, F.n_rd);
		CHECK_EQ(F.r_bad, 0);
		CHECK_EQ(F.b_n, F.n_wr);
		for (unsigned k = 0; k < F.n_wr; k++)
			for (unsigned b = 0; b < F.wr[k].beats; b++) {
				uint32_t got;
				memcpy(&got, d + F.wr[k].addr + (uint64_t)b * BUS_BYTES, 4);
				if (got != w_word(&F.wr[k], b, 0))
					test_fail_(__FILE__, __LINE__, "write burst %u beat %u: 0x%08x", k, b, got);
			}
		lite_traffic();
		CHECK(vta_rtlsim_protocol_error(sim) == NULL);
		CHECK(vta_rtlsim_cycle(sim) > 200);
	}
}

/* "A VALID not taken stays up with the same payload": each channel the RTL drives */
static void test_hold(void)
{
	static const struct { enum fault f; const char *what; } c[] = {
		{F_AR_DROP, "AR: ARVALID dropped or payload changed before ARREADY"},
		{F_AR_ADDR, "AR: ARVALID dropped or payload changed before ARREADY"},
		{F_AR_LEN, "AR: ARVALID dropped or payload changed before ARREADY"},
		{F_AR_SIZE, "AR: ARVALID dropped or payload changed before ARREADY"},
		{F_AR_BURST, "AR: ARVALID dropped or payload changed before ARREADY"},
		{F_AW_DROP, "AW: AWVALID dropped or payload changed before AWREADY"},
		{F_AW_ADDR, "AW: AWVALID dropped or payload changed before AWREADY"},
		{F_AW_LEN, "AW: AWVALID dropped or payload changed before AWREADY"},
		{F_AW_SIZE, "AW: AWVALID dropped or payload changed before AWREADY"},
		{F_AW_BURST, "AW: AWVALID dropped or payload changed before AWREADY"},
		{F_W_DROP, "W: WVALID dropped or WDATA/WSTRB/WLAST changed before WREADY"},
		{F_W_DATA, "W: WVALID dropped or WDATA/WSTRB/WLAST changed before WREADY"},
		{F_W_STRB, "W: WVALID dropped or WDATA/WSTRB/WLAST changed before WREADY"},
		{F_W_LAST, "W: WVALID dropped or WDATA/WSTRB/WLAST changed before WREADY"},
	};
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
		traffic();
		start(c[k].f, 1 + k, 0);
		run();
		expect(c[k].what, 1);
	}
}

static void test_lite_hold(void)
{
	static const struct { enum fault f; const char *what; } c[] = {
		{F_LB_DROP, "AXI-Lite B: BVALID dropped or BRESP changed before BREADY"},
		{F_LB_RESP, "AXI-Lite B: BVALID dropped or BRESP changed before BREADY"},
		{F_LR_DROP, "AXI-Lite R: RVALID dropped or RDATA/RRESP changed before RREADY"},
		{F_LR_DATA, "AXI-Lite R: RVALID dropped or RDATA/RRESP changed before RREADY"},
		{F_LR_RESP, "AXI-Lite R: RVALID dropped or RDATA/RRESP changed before RREADY"},
	};
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
		F.n_rd = F.n_wr = 0;
		start(c[k].f, 1 + k, 0);
		for (uint32_t i = 0; i < 24 && !vta_rtlsim_protocol_error(sim); i++) {
			vta_rtlsim_reg_write(sim, 4 * i, i);
			vta_rtlsim_reg_read(sim, 4 * i);
		}
		expect(c[k].what, 1);
	}
}

/* responses the harness never asked for */
static void test_lite_spurious(void)
{
	F.n_rd = F.n_wr = 0;
	start(F_LB_SPURIOUS, 1, 0);
	vta_rtlsim_step(sim, 40);
	expect("AXI-Lite B: BVALID without an accepted write", 1);
	start(F_LR_SPURIOUS, 1, 0);
	vta_rtlsim_step(sim, 40);
	expect("AXI-Lite R: RVALID without an accepted read", 1);
}

/* WLAST on a beat other than the burst's last, and missing on the last */
static void test_wlast(void)
{
	F.n_rd = F.n_wr = 0;
	add(F.wr, &F.n_wr, 0x40000, 4);
	start(F_WLAST_EARLY, 1, 0);
	run();
	expect("W: WLAST set at beat 1 of a 4-beat burst (addr 0x40000)", 0);
	start(F_WLAST_MISSING, 1, 0);
	run();
	expect("W: WLAST missing at beat 4 of a 4-beat burst (addr 0x40000)", 0);
}

/* the checks of an accepted AR or AW (check_burst), each on its own */
static void test_bursts(void)
{
	char msg[128];
	const uint64_t page = 0x2000;
	static const char *const ch[] = {"AR", "AW"};
	for (unsigned w = 0; w < 2; w++) {
		for (unsigned k = 0; k < 6; k++) {
			xfer_t x = {page + 4 * BUS_BYTES, 4, LOG_BUS_BYTES, 1};
			unsigned max_burst = 0;
			switch (k) {
			case 0: x.burst = 2; snprintf(msg, sizeof msg, "%s: AxBURST 2, expected INCR", ch[w]); break;
			case 1: x.size = LOG_BUS_BYTES - 1;
				snprintf(msg, sizeof msg, "%s: AxSIZE %u, expected %u (the bus width)", ch[w],
					 LOG_BUS_BYTES - 1, LOG_BUS_BYTES);
				break;
			case 2: x.addr += 4;
				snprintf(msg, sizeof msg, "%s: address 0x%llx not aligned", ch[w],
					 (unsigned long long)x.addr);
				break;
			case 3: x.beats = 17;
				snprintf(msg, sizeof msg, "%s: burst of 17 beats at 0x%llx, longer than 16", ch[w],
					 (unsigned long long)x.addr);
				break;
			case 4: x.beats = 5; max_burst = 4;
				snprintf(msg, sizeof msg, "%s: burst of 5 beats at 0x%llx, longer than 4", ch[w],
					 (unsigned long long)x.addr);
				break;
			default: x.addr = page - 3 * BUS_BYTES;
				snprintf(msg, sizeof msg, "%s: burst of 4 beats at 0x%llx crosses a 4 KiB boundary",
					 ch[w], (unsigned long long)x.addr);
				break;
			}
			F.n_rd = F.n_wr = 0;
			if (w)
				F.wr[F.n_wr++] = x;
			else
				F.rd[F.n_rd++] = x;
			start(F_NONE, 1, max_burst);
			run();
			expect(msg, 0);
			/* the same burst one step inside the rule passes */
			if (k >= 3) {
				if (k == 5)
					x.addr = page - 4 * BUS_BYTES;
				else
					x.beats--;
				if (w)
					F.wr[0] = x;
				else
					F.rd[0] = x;
				start(F_NONE, 1, max_burst);
				CHECK(run() == NULL);
			}
		}
	}
}

static void test_teardown(void)
{
	vta_rtlsim_destroy(sim);
	sim = NULL;
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"legal", test_legal},
		{"hold", test_hold},
		{"lite_hold", test_lite_hold},
		{"lite_spurious", test_lite_spurious},
		{"wlast", test_wlast},
		{"bursts", test_bursts},
		{"teardown", test_teardown},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
