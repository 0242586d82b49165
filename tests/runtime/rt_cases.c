/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime cases run on every backend (tests/runtime/test_runtime*.c pick
 * the backend): GEMM single and blocked, every ALU op with register and
 * immediate operands, padded loads, micro-op cache eviction, double
 * buffering, FORCE_SERIAL, and API misuse followed by a working program.
 * Results are checked against plain C references.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vta/hw_spec.h>
#include <vta/isa.h>
#include <vta/runtime.h>

#include "../test.h"
#include "rt_common.h"

#define B VTA_BATCH
#define BI VTA_BLOCK_IN
#define BO VTA_BLOCK_OUT

/* Per thread: the threads case runs these cases on two threads at once. */
static _Thread_local uint64_t seed = 0x1234;

static void fill_i8(int8_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		a[i] = (int8_t)test_rand_range(&seed, -128, 127);
}

/* ---- Blocked GEMM: OUT[m][n] = low8(sum_k A[m][k] * W[n][k]) ----------- */

typedef struct {
	int mb, kb, nb; /* blocks of BATCH rows, BLOCK_IN and BLOCK_OUT columns */
} Gemm;

static _Thread_local const Gemm *cur_gemm;

static int k_reset(void *sig)
{
	(void)sig;
	VTAUopLoopBegin((uint32_t)cur_gemm->mb, (uint32_t)cur_gemm->nb, 0, 0);
	for (int n = 0; n < cur_gemm->nb; n++)
		VTAUopPush(0, 1, (uint32_t)n, 0, 0, 0, 0, 0);
	VTAUopLoopEnd();
	return 0;
}

static int k_gemm(void *sig)
{
	(void)sig;
	const Gemm *g = cur_gemm;
	VTAUopLoopBegin((uint32_t)g->mb, (uint32_t)g->nb, (uint32_t)g->kb, 0);
	VTAUopLoopBegin((uint32_t)g->kb, 0, 1, 1);
	for (int n = 0; n < g->nb; n++)
		VTAUopPush(0, 0, (uint32_t)n, 0, (uint32_t)(n * g->kb), 0, 0, 0);
	VTAUopLoopEnd();
	VTAUopLoopEnd();
	return 0;
}

/* Pack A (M x K row-major) and W (N x K) into VTA elements (VTA-SPEC 2.3). */
static void pack(const Gemm *g, const int8_t *a, const int8_t *w, int8_t *pa, int8_t *pw)
{
	int K = g->kb * BI;
	for (int i = 0; i < g->mb; i++)
		for (int k = 0; k < g->kb; k++)
			for (int b = 0; b < B; b++)
				for (int kk = 0; kk < BI; kk++)
					pa[((i * g->kb + k) * B + b) * BI + kk] = a[(i * B + b) * K + k * BI + kk];
	for (int n = 0; n < g->nb; n++)
		for (int k = 0; k < g->kb; k++)
			for (int c = 0; c < BO; c++)
				for (int kk = 0; kk < BI; kk++)
					pw[((n * g->kb + k) * BO + c) * BI + kk] = w[(n * BO + c) * K + k * BI + kk];
}

static void run_gemm(const Gemm *g, int debug)
{
	static void *slot_reset, *slot_gemm;
	int M = g->mb * B, K = g->kb * BI, N = g->nb * BO;
	int8_t a[M * K], w[N * K], pa[M * K], pw[N * K], out[M * N], ref[M * N];
	fill_i8(a, sizeof a);
	fill_i8(w, sizeof w);
	pack(g, a, w, pa, pw);
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			int32_t s = 0;
			for (int k = 0; k < K; k++)
				s += a[m * K + k] * w[n * K + k];
			ref[m * N + n] = (int8_t)s;
		}
	VTACommandHandle cmd = VTATLSCommandHandle();
	CHECK(cmd != NULL);
	if (!cmd)
		return;
	VTASetDebugMode(cmd, debug);
	void *ba = VTABufferAlloc(sizeof pa), *bw = VTABufferAlloc(sizeof pw),
	     *bo = VTABufferAlloc(sizeof out);
	CHECK(ba && bw && bo);
	VTABufferCopy(pa, 0, ba, 0, sizeof pa, VTA_MEMCPY_H2D);
	VTABufferCopy(pw, 0, bw, 0, sizeof pw, VTA_MEMCPY_H2D);
	cur_gemm = g;
	int sig = g->mb * 10000 + g->kb * 100 + g->nb;
	VTALoadBuffer2D(cmd, ba, 0, (uint32_t)g->kb, (uint32_t)g->mb, (uint32_t)g->kb, 0, 0, 0, 0, 0,
			VTA_MEM_ID_INP);
	VTALoadBuffer2D(cmd, bw, 0, (uint32_t)g->kb, (uint32_t)g->nb, (uint32_t)g->kb, 0, 0, 0, 0, 0,
			VTA_MEM_ID_WGT);
	CHECK_EQ(VTAPushGEMMOp(&slot_reset, k_reset, &sig, sizeof sig), 0);
	CHECK_EQ(VTADepPush(cmd, 1, 2), 0);
	CHECK_EQ(VTADepPop(cmd, 1, 2), 0);
	CHECK_EQ(VTAPushGEMMOp(&slot_gemm, k_gemm, &sig, sizeof sig), 0);
	CHECK_EQ(VTADepPush(cmd, 2, 3), 0);
	CHECK_EQ(VTADepPop(cmd, 2, 3), 0);
	VTAStoreBuffer2D(cmd, 0, VTA_MEM_ID_OUT, bo, 0, (uint32_t)g->nb, (uint32_t)g->mb,
			 (uint32_t)g->nb);
	CHECK_EQ(vta_synchronize(cmd, 1u << 31), 0);
	VTABufferCopy(bo, 0, out, 0, sizeof out, VTA_MEMCPY_D2H);
	/* out is packed [mb][nb][B][BO] */
	int bad = 0;
	for (int i = 0; i < g->mb && !bad; i++)
		for (int n = 0; n < g->nb; n++)
			for (int b = 0; b < B; b++)
				for (int c = 0; c < BO; c++)
					if (out[((i * g->nb + n) * B + b) * BO + c] !=
					    ref[(i * B + b) * N + n * BO + c])
						bad++;
	CHECK_EQ(bad, 0);
	VTABufferFree(ba);
	VTABufferFree(bw);
	VTABufferFree(bo);
	VTASetDebugMode(cmd, 0);
	CHECK_EQ(vta_errcode(NULL), 0);
}

static void test_gemm_single(void)
{
	Gemm g = {1, 1, 1};
	run_gemm(&g, 0);
}

static void test_gemm_blocked(void)
{
	Gemm g = {4, 3, 2};
	run_gemm(&g, 0);
	Gemm h = {2, 2, 3};
	run_gemm(&h, 0);
}

/* The device counters of the last run, per run: what per-layer statistics
 * read. GEMM micro-ops are mb*kb*nb (outer mb, inner kb, nb per iteration),
 * reset ones mb*nb; busy cycles are within the run's cycles. */
static void test_last_run_counters(void)
{
	Gemm g = {4, 3, 2};
	run_gemm(&g, 0);
	vta_counters_t c;
	CHECK_EQ(vta_context_last_run(vta_context_current(), &c), 0);
	CHECK_U64(c.gemm_uops, (uint64_t)g.mb * g.kb * g.nb);
	CHECK_U64(c.gemm_reset_uops, (uint64_t)g.mb * g.nb);
	CHECK(c.insns[VTA_OPCODE_GEMM] >= 2);
	CHECK_EQ(c.insns[VTA_OPCODE_FINISH], 1);
	if (c.cycles) { /* devices with a clock */
		CHECK(c.busy[VTA_BUSY_GEMM] > 0 && c.busy[VTA_BUSY_GEMM] <= c.cycles);
		CHECK(c.busy[VTA_BUSY_LOAD] > 0 && c.busy[VTA_BUSY_LOAD] <= c.cycles);
		CHECK(c.busy[VTA_BUSY_STORE] > 0 && c.busy[VTA_BUSY_STORE] <= c.cycles);
	}
}

static void test_force_serial(void)
{
	Gemm g = {3, 2, 2};
	run_gemm(&g, VTA_DEBUG_FORCE_SERIAL);
}

/* ---- ALU: every opcode, register and immediate ---------------------------- */

enum { ALU_N = 8 }; /* elements per operand */

static struct {
	uint32_t op, use_imm;
	int32_t imm;
} cur_alu;

static int k_alu(void *sig)
{
	(void)sig;
	VTAUopLoopBegin(ALU_N, 1, 1, 0);
	VTAUopPush(1, 0, 0, cur_alu.use_imm ? 0 : ALU_N, 0, cur_alu.op, cur_alu.use_imm, cur_alu.imm);
	VTAUopLoopEnd();
	return 0;
}

static int32_t alu_ref(uint32_t op, int32_t a, int32_t b)
{
	switch (op) {
	case VTA_ALU_OPCODE_MIN: return a < b ? a : b;
	case VTA_ALU_OPCODE_MAX: return a < b ? b : a;
	case VTA_ALU_OPCODE_ADD: return (int32_t)((uint32_t)a + (uint32_t)b);
	case VTA_ALU_OPCODE_SHR:
		if (b >= 0)
			return a >> (b & 31);
		return (int32_t)((uint32_t)a << ((uint32_t)(-(int64_t)b) & 31));
	default: return (int32_t)((uint32_t)a * (uint32_t)b);
	}
}

static void test_alu_ops(void)
{
	static void *slot;
	VTACommandHandle cmd = VTATLSCommandHandle();
	CHECK(cmd != NULL);
	if (!cmd)
		return;
	const int lanes = B * BO;
	int32_t acc[2 * ALU_N * lanes];
	int8_t out[ALU_N * lanes];
	void *bacc = VTABufferAlloc(sizeof acc), *bout = VTABufferAlloc(sizeof out);
	CHECK(bacc && bout);
	for (uint32_t op = 0; op <= VTA_ALU_OPCODE_MUL; op++)
		for (uint32_t use_imm = 0; use_imm < 2; use_imm++) {
			int shr = op == VTA_ALU_OPCODE_SHR;
			for (int i = 0; i < 2 * ALU_N * lanes; i++) {
				int second = i >= ALU_N * lanes;
				acc[i] = (int32_t)test_rand_range(&seed, INT32_MIN, INT32_MAX);
				if (second && shr)
					acc[i] = (int32_t)test_rand_range(&seed, -8, 7);
				if (second && op == VTA_ALU_OPCODE_MUL)
					acc[i] = (int32_t)test_rand_range(&seed, -70000, 70000);
			}
			cur_alu.op = op;
			cur_alu.use_imm = use_imm;
			cur_alu.imm = shr ? (int32_t)test_rand_range(&seed, -8, 7)
					  : (int32_t)test_rand_range(&seed, -16384, 16383);
			int sig = (int)(op * 2 + use_imm);
			VTABufferCopy(acc, 0, bacc, 0, sizeof acc, VTA_MEMCPY_H2D);
			VTALoadBuffer2D(cmd, bacc, 0, 2 * ALU_N, 1, 2 * ALU_N, 0, 0, 0, 0, 0, VTA_MEM_ID_ACC);
			CHECK_EQ(VTAPushALUOp(&slot, k_alu, &sig, sizeof sig), 0);
			CHECK_EQ(VTADepPush(cmd, 2, 3), 0);
			CHECK_EQ(VTADepPop(cmd, 2, 3), 0);
			VTAStoreBuffer2D(cmd, 0, VTA_MEM_ID_OUT, bout, 0, ALU_N, 1, ALU_N);
			CHECK_EQ(vta_synchronize(cmd, 1u << 31), 0);
			VTABufferCopy(bout, 0, out, 0, sizeof out, VTA_MEMCPY_D2H);
			int bad = 0;
			for (int i = 0; i < ALU_N * lanes; i++) {
				int32_t b = use_imm ? cur_alu.imm : acc[ALU_N * lanes + i];
				if (out[i] != (int8_t)alu_ref(op, acc[i], b) && !bad++)
					test_fail_(__FILE__, __LINE__, "%s%s lane %d: %d, expected %d",
						   vta_alu_name(op), use_imm ? " imm" : "", i, out[i],
						   (int8_t)alu_ref(op, acc[i], b));
			}
		}
	VTABufferFree(bacc);
	VTABufferFree(bout);
}

/* ---- Padded 2-D load: identity weights copy the padded block to OUT ------ */

static int pad_total;

static int k_copy(void *sig)
{
	int reset = *(int *)sig;
	VTAUopLoopBegin((uint32_t)pad_total, 1, 1, 0);
	VTAUopPush(0, (uint32_t)reset, 0, 0, 0, 0, 0, 0);
	VTAUopLoopEnd();
	return 0;
}

static void test_padded_load(void)
{
	static void *slot;
	enum { X = 3, Y = 4, XS = 5, XP0 = 1, XP1 = 2, YP0 = 2, YP1 = 1 };
	const int W = XP0 + X + XP1, R = YP0 + Y + YP1;
	pad_total = W * R;
	VTACommandHandle cmd = VTATLSCommandHandle();
	if (!cmd)
		return;
	int8_t inp[Y * XS * B * BI], wgt[BO * BI], out[W * R * B * BO];
	fill_i8(inp, sizeof inp);
	memset(wgt, 0, sizeof wgt);
	for (int c = 0; c < BO; c++)
		wgt[c * BI + c] = 1;
	void *bi = VTABufferAlloc(sizeof inp), *bw = VTABufferAlloc(sizeof wgt),
	     *bo = VTABufferAlloc(sizeof out);
	VTABufferCopy(inp, 0, bi, 0, sizeof inp, VTA_MEMCPY_H2D);
	VTABufferCopy(wgt, 0, bw, 0, sizeof wgt, VTA_MEMCPY_H2D);
	/* rows of X elements taken every XS, starting one element in */
	VTALoadBuffer2D(cmd, bi, 1, X, Y, XS, XP0, YP0, XP1, YP1, 0, VTA_MEM_ID_INP);
	VTALoadBuffer2D(cmd, bw, 0, 1, 1, 1, 0, 0, 0, 0, 0, VTA_MEM_ID_WGT);
	int one = 1, zero = 0;
	CHECK_EQ(VTAPushGEMMOp(&slot, k_copy, &one, sizeof one), 0);
	VTADepPush(cmd, 1, 2);
	VTADepPop(cmd, 1, 2);
	CHECK_EQ(VTAPushGEMMOp(&slot, k_copy, &zero, sizeof zero), 0);
	VTADepPush(cmd, 2, 3);
	VTADepPop(cmd, 2, 3);
	VTAStoreBuffer2D(cmd, 0, VTA_MEM_ID_OUT, bo, 0, (uint32_t)(W * R), 1, (uint32_t)(W * R));
	CHECK_EQ(vta_synchronize(cmd, 1u << 31), 0);
	VTABufferCopy(bo, 0, out, 0, sizeof out, VTA_MEMCPY_D2H);
	int bad = 0;
	for (int r = 0; r < R; r++)
		for (int x = 0; x < W; x++) {
			int y = r - YP0, xx = x - XP0;
			int in_data = y >= 0 && y < Y && xx >= 0 && xx < X;
			for (int l = 0; l < B * BI; l++) {
				int8_t want = in_data ? inp[(1 + y * XS + xx) * B * BI + l] : 0;
				if (out[(r * W + x) * B * BO + l] != want)
					bad++;
			}
		}
	CHECK_EQ(bad, 0);
	VTABufferFree(bi);
	VTABufferFree(bw);
	VTABufferFree(bo);
}

/* ---- Many distinct kernels: the micro-op cache wraps and evicts ---------- */

static int evict_len;

static int k_add(void *sig)
{
	int imm = *(int *)sig;
	for (int i = 0; i < evict_len; i++)
		VTAUopPush(1, 0, (uint32_t)i, (uint32_t)i, 0, VTA_ALU_OPCODE_ADD, 1, imm);
	return 0;
}

static void test_uop_eviction(void)
{
	static void *slot;
	int L = VTA_UOP_BUFF_DEPTH / 8;
	if (L > VTA_ACC_BUFF_DEPTH / 2)
		L = VTA_ACC_BUFF_DEPTH / 2;
	evict_len = L;
	VTACommandHandle cmd = VTATLSCommandHandle();
	if (!cmd)
		return;
	const int lanes = B * BO;
	int32_t acc[L * lanes];
	int8_t out[L * lanes];
	for (int i = 0; i < L * lanes; i++)
		acc[i] = (int32_t)test_rand_range(&seed, -100000, 100000);
	void *ba = VTABufferAlloc(sizeof acc), *bo = VTABufferAlloc(sizeof out);
	VTABufferCopy(acc, 0, ba, 0, sizeof acc, VTA_MEMCPY_H2D);
	VTALoadBuffer2D(cmd, ba, 0, (uint32_t)L, 1, (uint32_t)L, 0, 0, 0, 0, 0, VTA_MEM_ID_ACC);
	/* 40 kernels of L micro-ops = 5 times the UOP buffer; kernels 0..3 are
	 * used again after each round, some still resident, some evicted. */
	int64_t sum = 0;
	for (int round = 0; round < 5; round++)
		for (int k = 0; k < 8; k++) {
			int imm = round * 8 + k - 17;
			CHECK_EQ(VTAPushALUOp(&slot, k_add, &imm, sizeof imm), 0);
			sum += imm;
			int again = k % 4 - 17;
			CHECK_EQ(VTAPushALUOp(&slot, k_add, &again, sizeof again), 0);
			sum += again;
		}
	VTADepPush(cmd, 2, 3);
	VTADepPop(cmd, 2, 3);
	VTAStoreBuffer2D(cmd, 0, VTA_MEM_ID_OUT, bo, 0, (uint32_t)L, 1, (uint32_t)L);
	CHECK_EQ(vta_synchronize(cmd, 1u << 31), 0);
	VTABufferCopy(bo, 0, out, 0, sizeof out, VTA_MEMCPY_D2H);
	int bad = 0;
	for (int i = 0; i < L * lanes; i++)
		if (out[i] != (int8_t)(acc[i] + sum))
			bad++;
	CHECK_EQ(bad, 0);
	VTABufferFree(ba);
	VTABufferFree(bo);
}

/* ---- Double buffering: loads of tile t+1 overlap the GEMM of tile t ----- */

enum { DB_TILES = 6, DB_MB = 2 };

static int k_db(void *sig)
{
	int half = *(int *)sig;
	int reset = half < 0;
	if (reset)
		half = 0;
	VTAUopLoopBegin(DB_MB, 1, 1, 0);
	VTAUopPush(0, (uint32_t)reset, 0, (uint32_t)(half * DB_MB), (uint32_t)half, 0, 0, 0);
	VTAUopLoopEnd();
	return 0;
}

static void test_double_buffer(void)
{
	static void *slot;
	VTACommandHandle cmd = VTATLSCommandHandle();
	if (!cmd)
		return;
	const int M = DB_MB * B, K = DB_TILES * BI, N = BO;
	int8_t a[M * K], w[N * K], pa[DB_TILES][DB_MB * B * BI], pw[DB_TILES][BO * BI], out[M * N];
	fill_i8(a, sizeof a);
	fill_i8(w, sizeof w);
	for (int t = 0; t < DB_TILES; t++) {
		for (int i = 0; i < DB_MB; i++)
			for (int b = 0; b < B; b++)
				for (int kk = 0; kk < BI; kk++)
					pa[t][(i * B + b) * BI + kk] = a[(i * B + b) * K + t * BI + kk];
		for (int c = 0; c < BO; c++)
			for (int kk = 0; kk < BI; kk++)
				pw[t][c * BI + kk] = w[c * K + t * BI + kk];
	}
	void *ba = VTABufferAlloc(sizeof pa), *bw = VTABufferAlloc(sizeof pw),
	     *bo = VTABufferAlloc(sizeof out);
	VTABufferCopy(pa, 0, ba, 0, sizeof pa, VTA_MEMCPY_H2D);
	VTABufferCopy(pw, 0, bw, 0, sizeof pw, VTA_MEMCPY_H2D);
	int reset = -1;
	CHECK_EQ(VTAPushGEMMOp(&slot, k_db, &reset, sizeof reset), 0);
	for (int t = 0; t < DB_TILES; t++) {
		int half = t % 2;
		if (t >= 2)
			VTADepPop(cmd, 2, 1); /* compute released this half */
		VTALoadBuffer2D(cmd, ba, (uint32_t)(t * DB_MB), DB_MB, 1, DB_MB, 0, 0, 0, 0,
				(uint32_t)(half * DB_MB), VTA_MEM_ID_INP);
		VTALoadBuffer2D(cmd, bw, (uint32_t)t, 1, 1, 1, 0, 0, 0, 0, (uint32_t)half, VTA_MEM_ID_WGT);
		VTADepPush(cmd, 1, 2);
		VTADepPop(cmd, 1, 2);
		CHECK_EQ(VTAPushGEMMOp(&slot, k_db, &half, sizeof half), 0);
		VTADepPush(cmd, 2, 1);
	}
	VTADepPop(cmd, 2, 1);
	VTADepPop(cmd, 2, 1);
	VTADepPush(cmd, 2, 3);
	VTADepPop(cmd, 2, 3);
	VTAStoreBuffer2D(cmd, 0, VTA_MEM_ID_OUT, bo, 0, DB_MB, 1, DB_MB);
	CHECK_EQ(vta_synchronize(cmd, 1u << 31), 0);
	VTABufferCopy(bo, 0, out, 0, sizeof out, VTA_MEMCPY_D2H);
	int bad = 0;
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			int32_t s = 0;
			for (int k = 0; k < K; k++)
				s += a[m * K + k] * w[n * K + k];
			if (out[m * N + n] != (int8_t)s)
				bad++;
		}
	CHECK_EQ(bad, 0);
	VTABufferFree(ba);
	VTABufferFree(bw);
	VTABufferFree(bo);
}


/* ---- DMA checks: no stream reaches outside the process's live buffers ----- */

/* A raw stream of n instructions in a fresh VTAMemAlloc buffer. */
static uint8_t *raw_stream(const vta_insn_t *ins, size_t n)
{
	uint8_t *buf = VTAMemAlloc(16 * n, VTA_CACHED);
	CHECK(buf != NULL);
	for (size_t i = 0; buf && i < n; i++) {
		vta_insn_word_t w;
		CHECK_EQ(vta_insn_encode(&ins[i], &w, NULL), 0);
		vta_insn_store(&w, buf + 16 * i);
	}
	return buf;
}

static vta_insn_t mem_insn(unsigned op, unsigned type, uint64_t dram_base, unsigned x, unsigned y,
			   unsigned stride)
{
	vta_insn_t in = {0};
	in.opcode = op;
	in.memory_type = type;
	in.dram_base = (uint32_t)dram_base;
	in.x_size = x;
	in.y_size = y;
	in.x_stride = stride;
	return in;
}

/* Run [LOAD/STORE, FINISH] raw; expect it refused before the device ran,
 * with a message naming instruction 0, and `text`. */
static void expect_refused(vta_insn_t bad, int code, const char *text)
{
	vta_insn_t prog[2] = {bad, {0}};
	prog[1].opcode = VTA_OPCODE_FINISH;
	uint8_t *s = raw_stream(prog, 2);
	if (!s)
		return;
	VTADeviceHandle dev = VTADeviceAlloc();
	vta_device_info_t before, after;
	vta_context_info(vta_context_current(), &before);
	CHECK_EQ(VTADeviceRun(dev, VTAMemGetPhyAddr(s), 2, 100000), -1);
	CHECK_EQ(vta_errcode(NULL), code);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), text);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "was not run");
	vta_context_info(vta_context_current(), &after);
	CHECK_U64(after.runs, before.runs); /* the device never started */
	vta_clear_error(NULL);
	VTADeviceFree(dev);
	VTAMemFree(s);
}

static void test_dma_check(void)
{
	vta_set_log_errors(vta_context_current(), 0);
	vta_clear_error(NULL);
	uint8_t *a = VTAMemAlloc(4096, VTA_CACHED), *b = VTAMemAlloc(4096, VTA_CACHED);
	CHECK(a && b);
	uint64_t pa = VTAMemGetPhyAddr(a), pb = VTAMemGetPhyAddr(b);
	const unsigned ob = VTA_OUT_ELEM_BYTES, ib = VTA_INP_ELEM_BYTES;
	/* A STORE 1 MiB past its buffer into memory no one holds (c was
	 * freed), and one to address 0. */
	uint8_t *c = VTAMemAlloc(2u << 20, VTA_CACHED);
	uint64_t pc = VTAMemGetPhyAddr(c);
	VTAMemFree(c);
	expect_refused(mem_insn(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, (pc + (1u << 20)) / ob, 1, 1, 1),
		       VTA_ERANGE, "instruction 0 (STORE)");
	expect_refused(mem_insn(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, 1, 1, 1), VTA_ERANGE,
		       "nearest live buffer");
	/* The last row of a 2-D LOAD runs past the end of a. */
	expect_refused(mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, pa / ib, 1, 4096 / ib + 1, 1),
		       VTA_ERANGE, "instruction 0 (LOAD INP)");
	/* A range over two buffers is not inside one, even where they touch. */
	if (pb == pa + 4096)
		expect_refused(mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, (pb - ib) / ib, 2, 1, 2),
			       VTA_ERANGE, "one live buffer");
	/* dram_base * 256 and y * stride would wrap in 32 bits. */
	expect_refused(mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_WGT, 0xFFFFFFFFu, 1, 1, 1), VTA_ERANGE,
		       "do not lie inside");
	expect_refused(mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, pa / ib, 16, 65535, 65535), VTA_ERANGE,
		       "do not lie inside");
	/* Memory types with no DRAM layout. */
	expect_refused(mem_insn(VTA_OPCODE_LOAD, 6, pa / 16, 1, 1, 1), VTA_EILLEGAL, "cannot be loaded");
	/* The fetch itself must lie in one buffer, and freed buffers are not live. */
	VTADeviceHandle dev = VTADeviceAlloc();
	CHECK_EQ(VTADeviceRun(dev, (vta_phy_addr_t)pa, 4096 / 16 + 1, 1000), -1);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "the fetch of 257 instructions");
	vta_clear_error(NULL);
	VTAMemFree(b);
	CHECK_EQ(VTADeviceRun(dev, (vta_phy_addr_t)pb, 1, 1000), -1);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "do not lie inside one live buffer");
	vta_clear_error(NULL);
	/* Inside the buffer it runs: a STORE of one element, then FINISH. */
	vta_insn_t ok[2] = {mem_insn(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, pa / ob + 1, 1, 1, 1), {0}};
	ok[1].opcode = VTA_OPCODE_FINISH;
	uint8_t *s = raw_stream(ok, 2);
	CHECK_EQ(VTADeviceRun(dev, VTAMemGetPhyAddr(s), 2, 100000), 0);
	CHECK_EQ(vta_errcode(NULL), 0);
	VTAMemFree(s);
	VTADeviceFree(dev);
	VTAMemFree(a);
	vta_set_log_errors(vta_context_current(), 1);
}

/* A buffer freed after an instruction that writes it was queued: the
 * memory is not handed out again before the program has run, so the store
 * lands in no one else's buffer; it is released afterwards. */
static void test_free_while_queued(void)
{
	VTACommandHandle cmd = VTATLSCommandHandle();
	if (!cmd)
		return;
	vta_device_info_t i0, i1, i2;
	vta_context_info(vta_context_current(), &i0);
	void *a = VTABufferAlloc(4096);
	CHECK(a != NULL);
	CHECK_EQ(VTADepPush(cmd, 2, 3), 0);
	CHECK_EQ(VTADepPop(cmd, 2, 3), 0);
	VTAStoreBuffer2D(cmd, 0, VTA_MEM_ID_OUT, a, 0, 4096 / VTA_OUT_ELEM_BYTES, 1,
			 4096 / VTA_OUT_ELEM_BYTES);
	uint8_t *pa = VTABufferCPUPtr(cmd, a);
	VTABufferFree(a);
	CHECK(VTABufferCPUPtr(cmd, a) == a); /* no longer a handle */
	void *b = VTABufferAlloc(4096);
	uint8_t *pb = VTABufferCPUPtr(cmd, b);
	CHECK(pb != pa);
	uint8_t fill[4096], got[4096];
	memset(fill, 0x5A, sizeof fill);
	VTABufferCopy(fill, 0, b, 0, sizeof fill, VTA_MEMCPY_H2D);
	vta_context_info(vta_context_current(), &i1);
	CHECK_EQ(vta_synchronize(cmd, 1u << 31), 0);
	VTABufferCopy(b, 0, got, 0, sizeof got, VTA_MEMCPY_D2H);
	CHECK(memcmp(got, fill, sizeof got) == 0);
	VTABufferFree(b);
	vta_context_info(vta_context_current(), &i2);
	CHECK(i2.dram_free > i1.dram_free); /* a's page is back */
	CHECK(i2.dram_free <= i0.dram_free);
}

/* ---- Automatic synchronize in the middle of a program -------------------- */

/* The runtime stages at most 2^18 micro-ops per program (runtime/uopcache.c);
 * kernels of a whole UOP buffer each fill it after this many. */
#define STAGED_UOPS (1 << 18)
enum { SPLIT_L = 4 };

static int k_fill(void *sig)
{
	int imm = *(const int *)sig;
	for (int j = 0; j < VTA_UOP_BUFF_DEPTH; j++) /* each accumulator DEPTH/L times */
		VTAUopPush(1, 0, (uint32_t)(j % SPLIT_L), (uint32_t)(j % SPLIT_L), 0, VTA_ALU_OPCODE_ADD, 1,
			   imm);
	return 0;
}

/* A program whose micro-ops overflow the staging area, with a load->compute
 * token in flight when it is split: both parts run, and the result is that
 * of one program. */
void rt_test_auto_sync_split(void)
{
	static void *slot;
	VTACommandHandle cmd = VTATLSCommandHandle();
	if (!cmd)
		return;
	const int lanes = B * BO, K = STAGED_UOPS / VTA_UOP_BUFF_DEPTH + 2;
	int32_t acc[SPLIT_L * lanes];
	int8_t out[SPLIT_L * lanes], inp[VTA_INP_ELEM_BYTES] = {0};
	for (int i = 0; i < SPLIT_L * lanes; i++)
		acc[i] = (int32_t)test_rand_range(&seed, -1000, 1000);
	void *ba = VTABufferAlloc(sizeof acc), *bo = VTABufferAlloc(sizeof out),
	     *bi = VTABufferAlloc(sizeof inp);
	VTABufferCopy(acc, 0, ba, 0, sizeof acc, VTA_MEMCPY_H2D);
	VTABufferCopy(inp, 0, bi, 0, sizeof inp, VTA_MEMCPY_H2D);
	vta_device_info_t i0, i1;
	vta_context_info(vta_context_current(), &i0);
	VTALoadBuffer2D(cmd, ba, 0, SPLIT_L, 1, SPLIT_L, 0, 0, 0, 0, 0, VTA_MEM_ID_ACC);
	int64_t sum = 0;
	for (int k = 0; k < K; k++) {
		/* load waits until compute has taken the previous load (a load
		 * running ahead would overflow the 255-token queue) */
		if (k)
			CHECK_EQ(VTADepPop(cmd, 2, 1), 0);
		VTALoadBuffer2D(cmd, bi, 0, 1, 1, 1, 0, 0, 0, 0, 0, VTA_MEM_ID_INP);
		CHECK_EQ(VTADepPush(cmd, 1, 2), 0);
		CHECK_EQ(VTADepPop(cmd, 1, 2), 0);
		int imm = k - 20;
		CHECK_EQ(VTAPushALUOp(&slot, k_fill, &imm, sizeof imm), 0);
		CHECK_EQ(VTADepPush(cmd, 2, 1), 0);
		sum += imm;
	}
	CHECK_EQ(VTADepPop(cmd, 2, 1), 0);
	VTADepPush(cmd, 2, 3);
	VTADepPop(cmd, 2, 3);
	VTAStoreBuffer2D(cmd, 0, VTA_MEM_ID_OUT, bo, 0, SPLIT_L, 1, SPLIT_L);
	CHECK_EQ(vta_synchronize(cmd, 1u << 31), 0);
	vta_context_info(vta_context_current(), &i1);
	CHECK(i1.runs >= i0.runs + 2); /* split in two (at least) */
	VTABufferCopy(bo, 0, out, 0, sizeof out, VTA_MEMCPY_D2H);
	int bad = 0, times = VTA_UOP_BUFF_DEPTH / SPLIT_L;
	for (int i = 0; i < SPLIT_L * lanes; i++)
		if (out[i] != (int8_t)(uint32_t)(acc[i] + (int64_t)times * sum))
			bad++;
	CHECK_EQ(bad, 0);
	VTABufferFree(ba);
	VTABufferFree(bo);
	VTABufferFree(bi);
}

/* An automatic synchronize that fails poisons the program: the final
 * VTASynchronize returns the error (here the program pops a store->compute
 * token before any store pushes one, so it cannot be split). */
static void test_auto_sync_poison(void)
{
	static void *slot;
	VTACommandHandle cmd = VTATLSCommandHandle();
	if (!cmd)
		return;
	vta_set_log_errors(vta_context_current(), 0);
	CHECK_EQ(VTADepPop(cmd, 3, 2), 0);
	int failed = 0;
	for (int k = 0; k < STAGED_UOPS / VTA_UOP_BUFF_DEPTH + 2; k++) {
		int imm = k + 1;
		failed |= VTAPushALUOp(&slot, k_fill, &imm, sizeof imm) != 0;
	}
	CHECK(failed);
	int rc = vta_synchronize(cmd, 1u << 31);
	CHECK_EQ(rc, VTA_ETOKEN);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "automatic synchronize");
	vta_clear_error(NULL);
	vta_set_log_errors(vta_context_current(), 1);
	Gemm g = {1, 1, 1};
	run_gemm(&g, 0); /* the next program works */
}

/* ---- Misuse: each returns an error and the next program works ------------ */

static void expect_error(int code, const char *text)
{
	CHECK_EQ(vta_errcode(NULL), code);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), text);
	vta_clear_error(NULL);
}

static int k_hazard(void *sig)
{
	(void)sig;
	VTAUopPush(0, 0, 3, 0, 0, 0, 0, 0);
	VTAUopPush(0, 0, 3, 1, 0, 0, 0, 0);
	return 0;
}

static int k_ok(void *sig)
{
	(void)sig;
	VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
	return 0;
}

static void test_misuse(void)
{
	static void *slot_h, *slot_ok;
	VTACommandHandle cmd = VTATLSCommandHandle();
	if (!cmd)
		return;
	vta_set_log_errors(vta_context_current(), 0);
	vta_clear_error(NULL);

	/* Freed buffer. */
	void *b = VTABufferAlloc(4096);
	CHECK(b != NULL);
	VTABufferFree(b);
	VTABufferFree(b);
	expect_error(VTA_EINVAL, "VTABufferFree");
	VTALoadBuffer2D(cmd, b, 0, 1, 1, 1, 0, 0, 0, 0, 0, VTA_MEM_ID_INP);
	expect_error(VTA_EINVAL, "not a live buffer handle");
	CHECK_EQ(vta_synchronize(cmd, 1u << 31), VTA_EINVAL);
	expect_error(VTA_EINVAL, "discarded");
	void *raw = VTAMemAlloc(8192, VTA_CACHED);
	VTAMemFree(raw);
	VTAMemCopyFromHost(raw, &b, sizeof b);
	expect_error(VTA_EINVAL, "VTAMemCopyFromHost");
	VTAMemFree(raw);
	expect_error(VTA_EINVAL, "VTAMemFree");

	/* Misaligned or foreign addresses. */
	int local = 0;
	CHECK_EQ(VTAMemGetPhyAddr(&local), 0);
	expect_error(VTA_EINVAL, "VTAMemGetPhyAddr");
	uint8_t *ins = VTAMemAlloc(4096, VTA_CACHED);
	VTADeviceHandle dev = VTADeviceAlloc();
	CHECK(dev != NULL);
	CHECK_EQ(VTADeviceRun(dev, VTAMemGetPhyAddr(ins) + 4, 1, 1000), -1);
	expect_error(VTA_EINVAL, "not 16-byte aligned");

	/* Out-of-range sizes. */
	CHECK(VTAMemAlloc((size_t)VTA_MAX_XFER + 1, VTA_CACHED) == NULL);
	expect_error(VTA_ERANGE, "VTA_MAX_XFER");
	void *small = VTABufferAlloc(64);
	char host[128];
	VTABufferCopy(host, 0, small, 32, 64, VTA_MEMCPY_H2D);
	expect_error(VTA_ERANGE, "outside its 64-byte buffer");
	/* one element more than the 64 bytes hold, whatever the element size */
	const uint32_t over = 64 / VTA_INP_ELEM_BYTES + 1;
	VTALoadBuffer2D(cmd, small, 0, over, 1, over, 0, 0, 0, 0, 0, VTA_MEM_ID_INP);
	expect_error(VTA_ERANGE, "buffer has 64");
	VTALoadBuffer2D(cmd, small, 0, 1, 1, 1, 0, 0, 0, 0, VTA_INP_BUFF_DEPTH, VTA_MEM_ID_INP);
	expect_error(VTA_ERANGE, "do not fit");
	VTAStoreBuffer2D(cmd, 0, VTA_MEM_ID_ACC, small, 0, 1, 1, 1);
	expect_error(VTA_EINVAL, "VTAStoreBuffer2D: memory type acc cannot be stored (only out, VTA_MEM_ID_OUT)");
	CHECK(VTADepPush(cmd, 1, 3) != 0);
	expect_error(VTA_EINVAL, "no token queue between load and store");
	CHECK(VTAPushGEMMOp(&slot_h, k_hazard, NULL, 0) != 0);
	expect_error(VTA_EINVAL, "read-after-write hazard");
	VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
	expect_error(VTA_EINVAL, "outside a micro-op kernel callback");
	CHECK(vta_synchronize(cmd, 1u << 31) != 0);
	vta_clear_error(NULL);

	/* Unbalanced tokens, through the runtime: an extra push leaves a token
	 * for the next run, so the program is refused before it runs. */
	CHECK_EQ(VTADepPush(cmd, 1, 2), 0);
	CHECK_EQ(vta_synchronize(cmd, 1u << 31), VTA_ETOKEN);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "load->compute token is pushed");
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "never popped");
	vta_clear_error(NULL);

	/* A deadlocking program, through the runtime: an extra pop. */
	CHECK_EQ(VTADepPop(cmd, 3, 2), 0);
	CHECK_EQ(VTAPushGEMMOp(&slot_ok, k_ok, NULL, 0), 0);
	int rc = vta_synchronize(cmd, 100000);
	CHECK(rc == VTA_EDEADLOCK || rc == VTA_ETIMEOUT);
	CHECK(vta_errcode(NULL) == rc);
	vta_clear_error(NULL);

	/* ... and through the driver: a stream without FINISH. */
	uint8_t nop[16] = {0};
	memcpy(ins, nop, 16);
	rc = VTADeviceRun(dev, VTAMemGetPhyAddr(ins), 1, 100000);
	CHECK(rc != 0);
	CHECK(vta_errcode(NULL) != 0);
	vta_clear_error(NULL);
	VTADeviceFree(dev);
	VTAMemFree(ins);
	VTABufferFree(small);

	/* The next program works. */
	Gemm g = {2, 2, 2};
	run_gemm(&g, 0);
	vta_set_log_errors(vta_context_current(), 1);
}

const test_case_t rt_cases[] = {
	{"gemm-single", test_gemm_single},
	{"gemm-blocked", test_gemm_blocked},
	{"alu-ops", test_alu_ops},
	{"padded-load", test_padded_load},
	{"uop-eviction", test_uop_eviction},
	{"double-buffer", test_double_buffer},
	{"force-serial", test_force_serial},
	{"last-run-counters", test_last_run_counters},
	{"auto-sync-poison", test_auto_sync_poison},
	{"dma-check", test_dma_check},
	{"free-while-queued", test_free_while_queued},
	{"misuse", test_misuse},
	{NULL, NULL},
};
