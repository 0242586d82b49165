/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime benchmarks. Prints BENCH lines:
 *   runtime_insn_per_sec      instructions queued and encoded per second
 *                             (VTALoadBuffer2D + VTAPushGEMMOp of a resident kernel)
 *   runtime_validate_ns_per_insn  the DMA check before a launch, per instruction
 *                             (a 1M-instruction stream of loads, GEMMs and
 *                             stores over four buffers)
 *   runtime_matmul_<be>_ms    end-to-end 64x256x256 int8 matmul on backend <be>
 *                             (pack, copy in, queue, run, copy out), for every
 *                             backend linked into this program (fsim, rtl)
 *   runtime_board_matmul_syncs_per_run, _sync_kib_per_run, _cpu_kib_per_run
 *                             with the RTL: the same matmul on the zynq
 *                             backend over the simulated non-coherent board
 *                             (tests/runtime/board_model.h): cache syncs and
 *                             the bytes they cover per run, and the bytes the
 *                             CPU itself writes and reads in device memory
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vta/hw_spec.h>
#include <vta/runtime.h>

#include "../../runtime/context.h"
#include "../bench.h"
#ifdef VTA_BENCH_BOARD
#include "board_model.h"
#endif

static int mb, kb, nb;

static int k_reset(void *sig)
{
	(void)sig;
	VTAUopLoopBegin((uint32_t)mb, (uint32_t)nb, 0, 0);
	for (int n = 0; n < nb; n++)
		VTAUopPush(0, 1, (uint32_t)n, 0, 0, 0, 0, 0);
	VTAUopLoopEnd();
	return 0;
}

static int k_gemm(void *sig)
{
	(void)sig;
	VTAUopLoopBegin((uint32_t)mb, (uint32_t)nb, (uint32_t)kb, 0);
	VTAUopLoopBegin((uint32_t)kb, 0, 1, 1);
	for (int n = 0; n < nb; n++)
		VTAUopPush(0, 0, (uint32_t)n, 0, (uint32_t)(n * kb), 0, 0, 0);
	VTAUopLoopEnd();
	VTAUopLoopEnd();
	return 0;
}

static int k_one(void *sig)
{
	(void)sig;
	VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
	return 0;
}

static int bench_queue(void)
{
	static void *slot;
	VTACommandHandle cmd = VTATLSCommandHandle();
	void *buf = VTABufferAlloc(4096);
	if (!cmd || !buf)
		return 1;
	const int iters = 200000;
	double t0 = bench_wall();
	for (int i = 0; i < iters; i++) {
		VTALoadBuffer2D(cmd, buf, 0, 1, 1, 1, 0, 0, 0, 0, (uint32_t)(i & 7), VTA_MEM_ID_INP);
		VTAPushGEMMOp(&slot, k_one, NULL, 0);
	}
	double dt = bench_wall() - t0;
	if (vta_synchronize(cmd, 1u << 31))
		return 1;
	VTABufferFree(buf);
	bench_print(2.0 * iters / dt, 0, "insn/s", "runtime_insn_per_sec");
	return 0;
}

static int bench_validate(void)
{
	const uint32_t n = 1u << 20;
	uint8_t *s = VTAMemAlloc((size_t)n * 16, VTA_CACHED);
	uint8_t *buf[4];
	for (int i = 0; i < 4; i++)
		buf[i] = VTAMemAlloc(1u << 20, VTA_CACHED);
	if (!s || !buf[3])
		return 1;
	for (uint32_t i = 0; i < n; i++) {
		vta_insn_t in = {0};
		int k = (int)(i % 4);
		in.opcode = k == 2 ? VTA_OPCODE_GEMM : k == 3 ? VTA_OPCODE_STORE : VTA_OPCODE_LOAD;
		if (k != 2) {
			in.memory_type = k == 0 ? VTA_MEM_ID_INP : k == 1 ? VTA_MEM_ID_WGT : VTA_MEM_ID_OUT;
			uint32_t eb = k == 1 ? VTA_WGT_ELEM_BYTES : VTA_INP_ELEM_BYTES;
			in.dram_base = (uint32_t)(VTAMemGetPhyAddr(buf[k]) / eb + i % 16);
			in.x_size = in.x_stride = 2;
			in.y_size = 2;
		} else {
			in.uop_end = in.iter_out = in.iter_in = 1;
		}
		if (i == n - 1) {
			memset(&in, 0, sizeof in);
			in.opcode = VTA_OPCODE_FINISH;
		}
		vta_insn_word_t w;
		vta_error_t err;
		if (vta_insn_encode(&in, &w, &err)) {
			fprintf(stderr, "bench_runtime: %s\n", err.msg);
			return 1;
		}
		vta_insn_store(&w, s + 16 * (size_t)i);
	}
	RtDev *d = ctx_dev(vta_context_current());
	Mem *m = rtdev_mem(d);
	uint64_t pa = VTAMemGetPhyAddr(s);
	double best = 1e30;
	for (int rep = 0; rep < 5; rep++) {
		Touched t;
		touched_init(&t);
		vta_error_t err;
		mem_lock(m);
		double t0 = bench_wall();
		int rc = rt_validate(m, rtdev_dev(d), pa, n, NULL, &t, &err);
		double dt = bench_wall() - t0;
		mem_unlock(m);
		touched_free(&t);
		if (rc) {
			fprintf(stderr, "bench_runtime: %s\n", err.msg);
			return 1;
		}
		if (dt < best)
			best = dt;
	}
	bench_print(best * 1e9 / n, 2, "ns", "runtime_validate_ns_per_insn");
	VTAMemFree(s);
	for (int i = 0; i < 4; i++)
		VTAMemFree(buf[i]);
	return 0;
}

static int bench_matmul(const char *target)
{
	static void *s_reset, *s_gemm;
	const int M = 64 * VTA_BATCH, K = 256, N = 256;
	mb = M / VTA_BATCH, kb = K / VTA_BLOCK_IN, nb = N / VTA_BLOCK_OUT;
	if (mb * kb > VTA_INP_BUFF_DEPTH || nb * kb > VTA_WGT_BUFF_DEPTH || mb * nb > VTA_ACC_BUFF_DEPTH)
		mb = 8, kb = 4, nb = 4;
	VTARuntimeShutdown();
#ifdef VTA_BENCH_BOARD
	static Board board;
	if (!strcmp(target, "board")) {
		if (board_open(&board, 1) || vta_context_bind(board.ctx))
			return 1;
	} else
#endif
	if (vta_set_target(target))
		return 1;
	VTACommandHandle cmd = VTATLSCommandHandle();
	vta_device_info_t i0, i1;
	vta_context_info(vta_context_current(), &i0);
	if (!cmd)
		return 1;
	size_t na = (size_t)mb * kb * VTA_INP_ELEM_BYTES, nw = (size_t)nb * kb * VTA_WGT_ELEM_BYTES,
	       no = (size_t)mb * nb * VTA_OUT_ELEM_BYTES;
	int8_t *a = malloc(na), *w = malloc(nw), *o = malloc(no);
	for (size_t i = 0; i < na; i++)
		a[i] = (int8_t)(i * 7);
	for (size_t i = 0; i < nw; i++)
		w[i] = (int8_t)(i * 13);
	double best = 1e30;
	for (int rep = 0; rep < 3; rep++) {
		double t0 = bench_wall();
		void *da = VTABufferAlloc(na), *dw = VTABufferAlloc(nw), *dout = VTABufferAlloc(no);
		VTABufferCopy(a, 0, da, 0, na, VTA_MEMCPY_H2D);
		VTABufferCopy(w, 0, dw, 0, nw, VTA_MEMCPY_H2D);
		VTALoadBuffer2D(cmd, da, 0, (uint32_t)kb, (uint32_t)mb, (uint32_t)kb, 0, 0, 0, 0, 0,
				VTA_MEM_ID_INP);
		VTALoadBuffer2D(cmd, dw, 0, (uint32_t)kb, (uint32_t)nb, (uint32_t)kb, 0, 0, 0, 0, 0,
				VTA_MEM_ID_WGT);
		VTAPushGEMMOp(&s_reset, k_reset, NULL, 0);
		VTADepPush(cmd, 1, 2);
		VTADepPop(cmd, 1, 2);
		VTAPushGEMMOp(&s_gemm, k_gemm, NULL, 0);
		VTADepPush(cmd, 2, 3);
		VTADepPop(cmd, 2, 3);
		VTAStoreBuffer2D(cmd, 0, VTA_MEM_ID_OUT, dout, 0, (uint32_t)nb, (uint32_t)mb, (uint32_t)nb);
		if (vta_synchronize(cmd, 1u << 31))
			return 1;
		VTABufferCopy(dout, 0, o, 0, no, VTA_MEMCPY_D2H);
		VTABufferFree(da);
		VTABufferFree(dw);
		VTABufferFree(dout);
		double dt = bench_wall() - t0;
		if (dt < best)
			best = dt;
	}
	vta_context_info(vta_context_current(), &i1);
	if (strcmp(target, "board")) {
		bench_print(best * 1e3, 3, "ms", "runtime_matmul_%s_ms", target);
	} else {
		bench_print((double)(i1.cache_syncs - i0.cache_syncs) / 3,
			    1, "syncs", "runtime_board_matmul_syncs_per_run");
		bench_print((double)(i1.cache_sync_bytes - i0.cache_sync_bytes) / 3 / 1024,
			    1, "KiB", "runtime_board_matmul_sync_kib_per_run");
		bench_print((double)(na + nw + no) / 1024, 1, "KiB", "runtime_board_matmul_cpu_kib_per_run");
	}
	free(a), free(w), free(o);
	VTARuntimeShutdown();
#ifdef VTA_BENCH_BOARD
	if (!strcmp(target, "board")) {
		vta_context_bind(NULL);
		board_close(&board);
	}
#endif
	return 0;
}

int main(void)
{
	if (bench_queue() || bench_validate())
		goto fail;
	static const char *targets[] = {"fsim", "rtl"};
	for (int i = 0; i < 2; i++)
		if (!vta_backend_probe(targets[i], NULL, 0) && bench_matmul(targets[i]))
			goto fail;
#ifdef VTA_BENCH_BOARD
	if (bench_matmul("board"))
		goto fail;
#endif
	VTARuntimeShutdown();
	return 0;
fail:
	fprintf(stderr, "bench_runtime: %s\n", vta_errmsg(NULL));
	return 1;
}
