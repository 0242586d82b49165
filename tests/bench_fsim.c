/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Speed of the golden model on a large blocked GEMM (and on ALU work).
 * Prints BENCH lines: fsim_gemm_gmacs, fsim_alu_muops.
 *
 * The GEMM program is the inner part of a blocked matrix multiply: a full
 * INP and WGT buffer, and GEMM instructions whose two loop levels walk
 * 16 x 16 output tiles with 64 micro-ops each, as a compiler emits them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vta/fsim.h>
#include <vta/isa.h>

#include "bench.h"

static void emit(uint8_t *dram, uint32_t *n, vta_insn_t *in)
{
	vta_insn_word_t w;
	vta_error_t err;
	if (vta_insn_encode(in, &w, &err)) {
		fprintf(stderr, "bench_fsim: %s\n", err.msg);
		exit(1);
	}
	vta_insn_store(&w, dram + 16 * (size_t)(*n)++);
	memset(in, 0, sizeof *in);
}

static void put_uops(uint8_t *dram, size_t at, int n, int alu)
{
	for (int u = 0; u < n; u++) {
		vta_uop_t op = {(uint32_t)u % VTA_ACC_BUFF_DEPTH, (uint32_t)(alu ? (u + 1) % VTA_ACC_BUFF_DEPTH : u % VTA_INP_BUFF_DEPTH),
				alu ? 0 : (uint32_t)u % VTA_WGT_BUFF_DEPTH};
		uint32_t w;
		vta_uop_encode(&op, &w, NULL);
		memcpy(dram + at + 4 * (size_t)u, &w, 4);
	}
}

/* Run a program of `reps` copies of one compute instruction; returns uops/s. */
static double run_compute(vta_fsim_t *sim, int alu, int reps, uint64_t *uops)
{
	uint8_t *dram = vta_fsim_dram(sim);
	enum { UOPS = 64, UOP_AT = 1 << 20, INP_AT = 2 << 20, WGT_AT = 4 << 20 };
	int n_uops = UOPS < VTA_ACC_BUFF_DEPTH / 2 ? UOPS : VTA_ACC_BUFF_DEPTH / 2;
	put_uops(dram, UOP_AT, n_uops, alu);
	for (size_t i = 0; i < (size_t)VTA_INP_BUFF_SIZE; i++)
		dram[INP_AT + i] = (uint8_t)(i * 7);
	for (size_t i = 0; i < (size_t)VTA_WGT_BUFF_SIZE; i++)
		dram[WGT_AT + i] = (uint8_t)(i * 13);
	uint32_t n = 0;
	vta_insn_t in;
	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = VTA_MEM_ID_UOP;
	in.dram_base = UOP_AT / 4;
	in.y_size = 1;
	in.x_size = in.x_stride = (uint32_t)n_uops;
	emit(dram, &n, &in);
	uint32_t inp_n = VTA_INP_BUFF_DEPTH, wgt_n = VTA_WGT_BUFF_DEPTH;
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = VTA_MEM_ID_INP;
	in.dram_base = INP_AT / VTA_INP_ELEM_BYTES;
	in.y_size = 1;
	in.x_size = in.x_stride = inp_n;
	emit(dram, &n, &in);
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = VTA_MEM_ID_WGT;
	in.dram_base = WGT_AT / VTA_WGT_ELEM_BYTES;
	in.y_size = 1;
	in.x_size = in.x_stride = wgt_n;
	in.push_next = 1;
	emit(dram, &n, &in);
	/* Loop extents keep every index inside its buffer. */
	uint32_t it_o = 4, it_i = 4;
	for (int r = 0; r < reps; r++) {
		in.opcode = alu ? VTA_OPCODE_ALU : VTA_OPCODE_GEMM;
		in.pop_prev = r == 0;
		in.uop_bgn = 0;
		in.uop_end = (uint32_t)n_uops;
		in.iter_out = it_o;
		in.iter_in = it_i;
		in.dst_factor_out = (uint32_t)(VTA_ACC_BUFF_DEPTH / 2 - n_uops) / (it_o * it_i) * it_i;
		in.dst_factor_in = (uint32_t)(VTA_ACC_BUFF_DEPTH / 2 - n_uops) / (it_o * it_i);
		if (alu) {
			in.alu_opcode = (uint32_t)(r % 3 == 0 ? VTA_ALU_OPCODE_ADD : r % 3 == 1 ? VTA_ALU_OPCODE_SHR : VTA_ALU_OPCODE_MAX);
			in.use_imm = r % 3 != 0;
			in.imm = r % 3 == 1 ? 1 : r % 3 == 2 ? -100 : 0;
			in.src_factor_out = in.dst_factor_out;
			in.src_factor_in = in.dst_factor_in;
		} else {
			in.src_factor_out = 1;
			in.src_factor_in = (uint32_t)(VTA_INP_BUFF_DEPTH - n_uops - 4) / 4;
			in.wgt_factor_out = 1;
			in.wgt_factor_in = (uint32_t)(VTA_WGT_BUFF_DEPTH - n_uops - 4) / 4;
			if (VTA_WGT_BUFF_DEPTH < n_uops + 8 || VTA_INP_BUFF_DEPTH < n_uops + 8)
				in.iter_out = in.iter_in = 1;
		}
		emit(dram, &n, &in);
	}
	in.opcode = VTA_OPCODE_FINISH;
	emit(dram, &n, &in);

	vta_error_t err;
	vta_fsim_clear_counters(sim);
	/* CPU time of this thread: the machine is shared, and the model runs on one
	 * thread, so time spent waiting for a core is not the model's. */
	double t0 = bench_seconds(CLOCK_THREAD_CPUTIME_ID);
	if (vta_fsim_run(sim, 0, n, &err)) {
		fprintf(stderr, "bench_fsim: %s\n", err.msg);
		exit(1);
	}
	double dt = bench_seconds(CLOCK_THREAD_CPUTIME_ID) - t0;
	const vta_counters_t *c = vta_fsim_counters(sim);
	*uops = alu ? c->alu_uops : c->gemm_uops;
	return (double)*uops / dt;
}

int main(void)
{
	vta_error_t err;
	vta_fsim_t *sim = vta_fsim_create(8 << 20, &err);
	if (!sim) {
		fprintf(stderr, "bench_fsim: %s\n", err.msg);
		return 1;
	}
	uint64_t uops;
	double best = 0;
	for (int i = 0; i < 3; i++) { /* best of three: the machine is shared */
		double r = run_compute(sim, 0, 2000, &uops);
		best = r > best ? r : best;
	}
	double macs = (double)VTA_BATCH * VTA_BLOCK_IN * VTA_BLOCK_OUT;
	bench_print(best * macs / 1e9, 2, "GMAC/s", "fsim_gemm_gmacs");
	best = 0;
	for (int i = 0; i < 3; i++) {
		double r = run_compute(sim, 1, 2000, &uops);
		best = r > best ? r : best;
	}
	bench_print(best / 1e6, 1, "Muop/s", "fsim_alu_muops");
	vta_fsim_destroy(sim);
	return 0;
}
