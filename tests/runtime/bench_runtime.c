/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime benchmarks. Prints BENCH lines:
 *   runtime_insn_per_sec      instructions queued and encoded per second
 *                             (VTALoadBuffer2D + VTAPushGEMMOp of a resident kernel)
 *   runtime_matmul_<be>_ms    end-to-end 64x256x256 int8 matmul on backend <be>
 *                             (pack, copy in, queue, run, copy out), for every
 *                             backend linked into this program (fsim, rtl)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <vta/hw_spec.h>
#include <vta/runtime.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

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
	double t0 = now();
	for (int i = 0; i < iters; i++) {
		VTALoadBuffer2D(cmd, buf, 0, 1, 1, 1, 0, 0, 0, 0, (uint32_t)(i & 7), VTA_MEM_ID_INP);
		VTAPushGEMMOp(&slot, k_one, NULL, 0);
	}
	double dt = now() - t0;
	if (vta_synchronize(cmd, 1u << 31))
		return 1;
	VTABufferFree(buf);
	printf("BENCH runtime_insn_per_sec %.0f insn/s\n", 2.0 * iters / dt);
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
	if (vta_set_target(target))
		return 1;
	VTACommandHandle cmd = VTATLSCommandHandle();
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
		double t0 = now();
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
		double dt = now() - t0;
		if (dt < best)
			best = dt;
	}
	printf("BENCH runtime_matmul_%s_ms %.3f ms\n", target, best * 1e3);
	free(a), free(w), free(o);
	VTARuntimeShutdown();
	return 0;
}

int main(void)
{
	if (bench_queue())
		goto fail;
	static const char *targets[] = {"fsim", "rtl"};
	for (int i = 0; i < 2; i++)
		if (!vta_backend_probe(targets[i], NULL, 0) && bench_matmul(targets[i]))
			goto fail;
	VTARuntimeShutdown();
	return 0;
fail:
	fprintf(stderr, "bench_runtime: %s\n", vta_errmsg(NULL));
	return 1;
}
