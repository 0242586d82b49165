/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Multiply two int8 matrices on VTA through the runtime API and check the
 * answer on the CPU.
 *
 *   cc matmul.c $(pkg-config --cflags --libs vta) -o matmul
 *   VTA_TARGET=fsim ./matmul [M K N]
 *
 * C[M][N] = low 8 bits of A[M][K] x B[K][N]; M must be a multiple of
 * VTA_BATCH, K of VTA_BLOCK_IN and N of VTA_BLOCK_OUT.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <vta/hw_spec.h>
#include <vta/runtime.h>

static int mb, kb, nb; /* sizes in blocks, read by the kernel callbacks */

/* Zero the accumulators: one micro-op per output block column. */
static int reset_kernel(void *sig)
{
	(void)sig;
	VTAUopLoopBegin((uint32_t)mb, (uint32_t)nb, 0, 0);
	for (int n = 0; n < nb; n++)
		VTAUopPush(0, 1, (uint32_t)n, 0, 0, 0, 0, 0);
	VTAUopLoopEnd();
	return 0;
}

/* ACC[i][n] += INP[i][k] x WGT[n][k] over all row blocks i and k. */
static int gemm_kernel(void *sig)
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

int main(int argc, char **argv)
{
	int M = argc > 3 ? atoi(argv[1]) : 4 * VTA_BATCH;
	int K = argc > 3 ? atoi(argv[2]) : 4 * VTA_BLOCK_IN;
	int N = argc > 3 ? atoi(argv[3]) : 4 * VTA_BLOCK_OUT;
	if (M <= 0 || K <= 0 || N <= 0 || M % VTA_BATCH || K % VTA_BLOCK_IN || N % VTA_BLOCK_OUT) {
		fprintf(stderr, "usage: matmul [M K N], multiples of %d, %d, %d\n", VTA_BATCH,
			VTA_BLOCK_IN, VTA_BLOCK_OUT);
		return 2;
	}
	mb = M / VTA_BATCH;
	kb = K / VTA_BLOCK_IN;
	nb = N / VTA_BLOCK_OUT;
	if (mb * kb > VTA_INP_BUFF_DEPTH || nb * kb > VTA_WGT_BUFF_DEPTH ||
	    mb * nb > VTA_ACC_BUFF_DEPTH) {
		fprintf(stderr, "matmul: %dx%dx%d does not fit the on-chip buffers in one tile\n", M, K, N);
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);

	/* Random inputs, packed into VTA elements (VTA-SPEC 2.3, 2.6). */
	int8_t *a = malloc((size_t)M * K), *b = malloc((size_t)K * N), *c = malloc((size_t)M * N);
	int8_t *pa = malloc((size_t)M * K), *pb = malloc((size_t)K * N);
	srand(1);
	for (int i = 0; i < M * K; i++)
		a[i] = (int8_t)(rand() % 256 - 128);
	for (int i = 0; i < K * N; i++)
		b[i] = (int8_t)(rand() % 256 - 128);
	for (int m = 0; m < M; m++)
		for (int k = 0; k < K; k++) /* [mb][kb][BATCH][BLOCK_IN] */
			pa[(((m / VTA_BATCH) * kb + k / VTA_BLOCK_IN) * VTA_BATCH + m % VTA_BATCH) *
				   VTA_BLOCK_IN + k % VTA_BLOCK_IN] = a[m * K + k];
	for (int k = 0; k < K; k++)
		for (int n = 0; n < N; n++) /* [nb][kb][BLOCK_OUT][BLOCK_IN] */
			pb[(((n / VTA_BLOCK_OUT) * kb + k / VTA_BLOCK_IN) * VTA_BLOCK_OUT +
			    n % VTA_BLOCK_OUT) * VTA_BLOCK_IN + k % VTA_BLOCK_IN] = b[k * N + n];

	VTACommandHandle cmd = VTATLSCommandHandle();
	if (!cmd) {
		fprintf(stderr, "matmul: %s\n", vta_errmsg(NULL));
		return 1;
	}
	void *da = VTABufferAlloc((size_t)M * K), *db = VTABufferAlloc((size_t)K * N),
	     *dc = VTABufferAlloc((size_t)M * N);
	if (!da || !db || !dc) {
		fprintf(stderr, "matmul: %s\n", vta_errmsg(NULL));
		return 1;
	}
	VTABufferCopy(pa, 0, da, 0, (size_t)M * K, VTA_MEMCPY_H2D);
	VTABufferCopy(pb, 0, db, 0, (size_t)K * N, VTA_MEMCPY_H2D);

	static void *reset_slot, *gemm_slot;
	VTALoadBuffer2D(cmd, da, 0, (uint32_t)kb, (uint32_t)mb, (uint32_t)kb, 0, 0, 0, 0, 0,
			VTA_MEM_ID_INP);
	VTALoadBuffer2D(cmd, db, 0, (uint32_t)kb, (uint32_t)nb, (uint32_t)kb, 0, 0, 0, 0, 0,
			VTA_MEM_ID_WGT);
	VTAPushGEMMOp(&reset_slot, reset_kernel, NULL, 0);
	VTADepPush(cmd, 1, 2); /* the loads are done ... */
	VTADepPop(cmd, 1, 2);  /* ... before the GEMM runs */
	VTAPushGEMMOp(&gemm_slot, gemm_kernel, NULL, 0);
	VTADepPush(cmd, 2, 3);
	VTADepPop(cmd, 2, 3);
	VTAStoreBuffer2D(cmd, 0, VTA_MEM_ID_OUT, dc, 0, (uint32_t)nb, (uint32_t)mb, (uint32_t)nb);
	if (vta_synchronize(cmd, 1u << 31)) {
		fprintf(stderr, "matmul: %s\n", vta_errmsg(NULL));
		return 1;
	}
	int8_t *pc = malloc((size_t)M * N);
	VTABufferCopy(dc, 0, pc, 0, (size_t)M * N, VTA_MEMCPY_D2H);
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) /* [mb][nb][BATCH][BLOCK_OUT] */
			c[m * N + n] = pc[(((m / VTA_BATCH) * nb + n / VTA_BLOCK_OUT) * VTA_BATCH +
					   m % VTA_BATCH) * VTA_BLOCK_OUT + n % VTA_BLOCK_OUT];
	clock_gettime(CLOCK_MONOTONIC, &t1);

	int errors = 0;
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			int32_t s = 0;
			for (int k = 0; k < K; k++)
				s += a[m * K + k] * b[k * N + n];
			errors += c[m * N + n] != (int8_t)s;
		}
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("matmul %dx%dx%d on %s: %s (%d wrong), %.3f ms\n", M, K, N,
	       vta_context_backend(vta_context_current()), errors ? "FAIL" : "ok", errors, ms);

	VTABufferFree(da);
	VTABufferFree(db);
	VTABufferFree(dc);
	VTARuntimeShutdown();
	free(a), free(b), free(c), free(pa), free(pb), free(pc);
	return errors ? 1 : 0;
}
