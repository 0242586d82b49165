/* SPDX-License-Identifier: Apache-2.0 */
/* RTL benchmarks: GEMM and ALU micro-ops per cycle (hazard-free and dependent
 * micro-op lists, ALU with an immediate and in register mode), simulated
 * cycles per second, DMA efficiency (bytes moved per cycle / bus bytes) of
 * load-only and store-only programs at the PYNQ DRAM latency and at 100 cycles. */
#include "cosim_lib.h"

#include <time.h>

#include <vta/vta_regmap.h>

#include "bench.h"
#include "test.h"

/* The micro-op lists of the benchmarks. */
enum bench_kind {
	B_GEMM,       /* GEMM, every micro-op a different ACC row (no hazards) */
	B_GEMM_DEP,   /* GEMM, every micro-op accumulates into the row of the one before */
	B_ALU_IMM,    /* ALU ADD with an immediate */
	B_ALU_REG,    /* ALU ADD acc[dst], acc[src], dst and src in different ACC banks */
	B_ALU_BCAST,  /* ALU ADD acc[dst], acc[src], one src row for 16 dst rows (a bias) */
	B_ALU_BANK,   /* the same with dst and src in one bank (two reads in one bank) */
};

/* One long GEMM or ALU over n uops x iters; returns uops/cycle of the compute phase. */
static int run_long(vta_rtlsim_t *r, enum bench_kind kind, double *upc, double *cps, double *wcps)
{
	uint8_t *dram = vta_rtlsim_dram(r);
	enum { NU = 64 };
	int alu = kind >= B_ALU_IMM;
	for (uint32_t k = 0; k < NU; k++) {
		/* dependent list: 8 rows of 8 micro-ops each accumulating into one row */
		uint32_t dst = kind == B_GEMM_DEP ? k / 8 : k;
		/* ACC banks are rows modulo 4 (docs/rtl.md): src 1 (or 4) rows after dst */
		uint32_t src = kind == B_ALU_REG ? k + NU + 1 : kind == B_ALU_BANK ? k + NU + 4 :
			       kind == B_ALU_BCAST ? NU + k / 16 : k;
		vta_uop_t u = {dst % VTA_ACC_BUFF_DEPTH, src % VTA_INP_BUFF_DEPTH % VTA_ACC_BUFF_DEPTH,
			       k % VTA_WGT_BUFF_DEPTH};
		uint32_t w = 0;
		vta_uop_encode(&u, &w, NULL);
		memcpy(dram + CS_UOP_AT + 4 * k, &w, 4);
	}
	static cs_prog_t p;
	memset(&p, 0, sizeof p);
	vta_insn_t i = {0};
	i.opcode = VTA_OPCODE_LOAD; i.memory_type = VTA_MEM_ID_UOP;
	i.x_size = i.x_stride = NU; i.y_size = 1; i.dram_base = CS_UOP_AT / 4;
	cs_emit(&p, &i);
	memset(&i, 0, sizeof i);
	i.opcode = alu ? VTA_OPCODE_ALU : VTA_OPCODE_GEMM;
	/* VTA_BENCH_ITERS: outer iterations of the GEMM lists (default 1000; the ALU
	 * lists run a fifth), fewer for an instruction count under valgrind */
	const char *it = getenv("VTA_BENCH_ITERS");
	uint32_t iters = it && atoi(it) >= 5 ? (uint32_t)atoi(it) : 1000;
	i.uop_bgn = 0; i.uop_end = NU; i.iter_out = alu ? iters / 5 : iters; i.iter_in = 8;
	if (alu) {
		i.alu_opcode = VTA_ALU_OPCODE_ADD;
		i.use_imm = kind == B_ALU_IMM;
		i.imm = 3;
	}
	cs_emit(&p, &i);
	memset(&i, 0, sizeof i);
	i.opcode = VTA_OPCODE_FINISH;
	cs_emit(&p, &i);
	for (uint32_t k = 0; k < p.n; k++)
		vta_insn_store(&p.insn[k], dram + 16 * k);
	vta_error_t err;
	/* CPU time of this process: the simulator's speed on one core, not diluted by
	 * other jobs on a shared machine (the wall-clock figure is printed too). */
	double t0 = bench_cpu(), w0 = bench_wall();
	uint64_t c0 = vta_rtlsim_cycle(r);
	if (vta_rtlsim_run(r, 0, p.n, &err)) {
		fprintf(stderr, "bench_rtl: %s\n", err.msg);
		return 1;
	}
	double dt = bench_cpu() - t0, wt = bench_wall() - w0;
	uint64_t cyc = vta_rtlsim_cycle(r) - c0;
	uint64_t busy = vta_rtlsim_counter(r, alu ? VTA_REG_CNT_ALU_BUSY : VTA_REG_CNT_GEMM_BUSY);
	const vta_counters_t *c = vta_rtlsim_counters(r);
	*upc = (double)(alu ? c->alu_uops : c->gemm_uops) / (double)busy;
	*cps = (double)cyc / dt;
	*wcps = (double)cyc / wt;
	return 0;
}



/* Fraction of the bus a load-only (reads) or store-only (writes) program
 * keeps busy at a DRAM latency: 24 padded INP tiles (8 rows of 14 elements,
 * stride 56) with a 16-element WGT block after every third; or 32 STOREs of 4
 * rows of 14 elements, stride 28. */
static int run_dma(vta_rtlsim_t *r, int writes, unsigned lat, double *eff)
{
	static cs_prog_t p;
	memset(&p, 0, sizeof p);
	uint64_t bytes = 0;
	vta_insn_t in;
	if (!writes) {
		for (uint32_t i = 0; i < 24; i++) {
			in = cs_mem(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 0, CS_DATA_AT / VTA_INP_ELEM_BYTES + i * 64, 8, 14, 56);
			in.x_pad_0 = in.x_pad_1 = in.y_pad_0 = 1;
			in.push_next = i == 23;
			cs_emit(&p, &in);
			bytes += 8 * 14 * VTA_INP_ELEM_BYTES;
			if (i % 3 == 1) {
				in = cs_mem(VTA_OPCODE_LOAD, VTA_MEM_ID_WGT, 0, CS_DATA_AT / VTA_WGT_ELEM_BYTES + i, 1, 16, 16);
				cs_emit(&p, &in);
				bytes += 16 * VTA_WGT_ELEM_BYTES;
			}
		}
		in = cs_mem(VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 0, 0, 0, 0, 0);
		in.pop_prev = 1;
		cs_emit(&p, &in);
	} else {
		in = cs_mem(VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 0, 0, 0, 0, 0);
		in.push_next = 1;
		cs_emit(&p, &in);
		for (uint32_t i = 0; i < 32; i++) {
			in = cs_mem(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, CS_OUT_AT / VTA_OUT_ELEM_BYTES + i * 128, 4, 14, 28);
			in.pop_prev = i == 0;
			in.push_prev = i == 31;
			cs_emit(&p, &in);
			bytes += 4 * 14 * VTA_OUT_ELEM_BYTES;
		}
	}
	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_FINISH;
	in.pop_next = writes;
	cs_emit(&p, &in);
	uint8_t *dram = vta_rtlsim_dram(r);
	for (uint32_t k = 0; k < p.n; k++)
		vta_insn_store(&p.insn[k], dram + 16 * k);
	vta_rtlsim_axi_t a;
	vta_rtlsim_axi_defaults(&a);
	a.rd_latency = a.wr_latency = lat;
	vta_rtlsim_set_axi(r, &a);
	vta_error_t err;
	if (vta_rtlsim_run(r, 0, p.n, &err)) {
		fprintf(stderr, "bench_rtl: %s\n", err.msg);
		return 1;
	}
	*eff = (double)bytes / (double)vta_rtlsim_counters(r)->cycles / (VTA_BUS_WIDTH / 8);
	return 0;
}

int main(void)
{
	vta_error_t err;
	vta_rtlsim_t *r = vta_rtlsim_create(CS_DRAM, &err);
	if (!r) {
		fprintf(stderr, "bench_rtl: %s\n", err.msg);
		return 1;
	}
	static const struct {
		enum bench_kind kind;
		const char *name;
	} runs[] = {
		{B_GEMM, "rtl_gemm_uops_per_cycle"},
		{B_GEMM_DEP, "rtl_gemm_uops_per_cycle_dep"},
		{B_ALU_IMM, "rtl_alu_uops_per_cycle"},
		{B_ALU_REG, "rtl_alu_reg_uops_per_cycle"},
		{B_ALU_BCAST, "rtl_alu_reg_bcast_uops_per_cycle"},
		{B_ALU_BANK, "rtl_alu_reg_samebank_uops_per_cycle"},
	};
	const char *only = getenv("VTA_BENCH_ONLY"); /* one figure, e.g. under valgrind */
	for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
		double upc, cps, wcps;
		if (only && strcmp(only, runs[k].name))
			continue;
		if (vta_rtlsim_reset(r, &err) || run_long(r, runs[k].kind, &upc, &cps, &wcps)) {
			fprintf(stderr, "bench_rtl: %s\n", err.msg);
			return 1;
		}
		bench_print(upc, 3, "uops/cycle", "%s", runs[k].name);
		if (runs[k].kind == B_GEMM) {
			/* simulation speed on the long hazard-free GEMM loop */
			bench_print(cps, 0, "cycles/s", "rtl_sim_cycles_per_sec");
			bench_print(wcps, 0, "cycles/s", "rtl_sim_cycles_per_sec_wall");
		}
	}
	static const unsigned lats[] = {VTA_RTL_LATENCY_PYNQ, 100};
	for (int w = 0; w <= 1; w++)
		for (unsigned l = 0; l < 2; l++) {
			char name[64];
			snprintf(name, sizeof name, "rtl_dma_%s_efficiency_lat%u", w ? "write" : "read",
				 lats[l]);
			double e;
			if (only && strcmp(only, name))
				continue;
			if (vta_rtlsim_reset(r, &err) || run_dma(r, w, lats[l], &e))
				return 1;
			bench_print(e, 3, "fraction", "%s", name);
		}
	vta_rtlsim_destroy(r);
	return 0;
}
