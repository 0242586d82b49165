/* SPDX-License-Identifier: Apache-2.0 */
/* RTL benchmarks: GEMM and ALU micro-ops per cycle, simulated cycles per second. */
#include "cosim_lib.h"

#include <time.h>

#include <vta/vta_regmap.h>

#include "test.h"

/* CPU time of this process: the simulator's speed on one core, not diluted by
 * other jobs on a shared machine (the wall-clock figure is printed too). */
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double wall(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One long GEMM or ALU over n uops x iters; returns uops/cycle of the compute phase. */
static int run_long(vta_rtlsim_t *r, int alu, double *upc, double *cps, double *wcps)
{
	uint8_t *dram = vta_rtlsim_dram(r);
	enum { NU = 64 };
	for (uint32_t k = 0; k < NU; k++) {
		vta_uop_t u = {k % VTA_ACC_BUFF_DEPTH, k % VTA_INP_BUFF_DEPTH % VTA_ACC_BUFF_DEPTH,
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
	i.uop_bgn = 0; i.uop_end = NU; i.iter_out = alu ? 200 : 1000; i.iter_in = 8;
	if (alu) { i.alu_opcode = VTA_ALU_OPCODE_ADD; i.use_imm = 1; i.imm = 3; }
	cs_emit(&p, &i);
	memset(&i, 0, sizeof i);
	i.opcode = VTA_OPCODE_FINISH;
	cs_emit(&p, &i);
	for (uint32_t k = 0; k < p.n; k++)
		vta_insn_store(&p.insn[k], dram + 16 * k);
	vta_error_t err;
	double t0 = now(), w0 = wall();
	uint64_t c0 = vta_rtlsim_cycle(r);
	if (vta_rtlsim_run(r, 0, p.n, &err)) {
		fprintf(stderr, "bench_rtl: %s\n", err.msg);
		return 1;
	}
	double dt = now() - t0, wt = wall() - w0;
	uint64_t cyc = vta_rtlsim_cycle(r) - c0;
	uint64_t busy = vta_rtlsim_counter(r, alu ? VTA_REG_CNT_ALU_BUSY : VTA_REG_CNT_GEMM_BUSY);
	const vta_counters_t *c = vta_rtlsim_counters(r);
	*upc = (double)(alu ? c->alu_uops : c->gemm_uops) / (double)busy;
	*cps = (double)cyc / dt;
	*wcps = (double)cyc / wt;
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
	double g, gc, gw, a, ac, aw;
	if (run_long(r, 0, &g, &gc, &gw) || run_long(r, 1, &a, &ac, &aw))
		return 1;
	printf("BENCH rtl_gemm_uops_per_cycle %.3f uops/cycle\n", g);
	printf("BENCH rtl_sim_cycles_per_sec %.0f cycles/s\n", gc);
	printf("BENCH rtl_sim_cycles_per_sec_wall %.0f cycles/s\n", gw);
	printf("BENCH rtl_alu_uops_per_cycle %.3f uops/cycle\n", a);
	vta_rtlsim_destroy(r);
	return 0;
}
