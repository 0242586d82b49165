/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The golden model against hand-derived values and against plain reference
 * loops written here from the pseudo-code of VTA-SPEC 4.4-4.6. Written for
 * any configuration (sizes come from vta_config.h).
 */
#include <vta/fsim.h>
#include <vta/isa.h>

#include "test.h"

enum {
	DRAM = 1 << 22,
	LANES = VTA_BATCH * VTA_BLOCK_OUT, /* lanes of an ACC / OUT element */
	INP_LANES = VTA_BATCH * VTA_BLOCK_IN,
	WGT_LANES = VTA_BLOCK_OUT * VTA_BLOCK_IN,
	/* Data areas in DRAM, aligned for every element size. */
	UOP_AT = 0x10000,
	INP_AT = 0x40000,
	WGT_AT = 0x80000,
	ACC_AT = 0x100000,
	OUT_AT = 0x200000,
};

/* A program under construction: instructions at address 0. */
typedef struct {
	vta_fsim_t *sim;
	uint8_t *dram;
	uint32_t n;
	vta_error_t err;
} Prog;

static void prog_init(Prog *p)
{
	memset(p, 0, sizeof *p);
	p->sim = vta_fsim_create(DRAM, &p->err);
	CHECK(p->sim != NULL);
	p->dram = p->sim ? vta_fsim_dram(p->sim) : NULL;
}

static void prog_done(Prog *p) { vta_fsim_destroy(p->sim); }

static void emit(Prog *p, const vta_insn_t *in)
{
	vta_insn_word_t w;
	vta_error_t err;
	if (vta_insn_encode(in, &w, &err)) {
		test_fail_(__FILE__, __LINE__, "encode: %s", err.msg);
		return;
	}
	vta_insn_store(&w, p->dram + 16 * (size_t)p->n++);
}

static void emit_raw(Prog *p, uint64_t w0, uint64_t w1)
{
	vta_insn_word_t w = {{w0, w1}};
	vta_insn_store(&w, p->dram + 16 * (size_t)p->n++);
}

/* Run what was emitted since the last run; the next run starts afresh. */
static int run(Prog *p)
{
	int rc = vta_fsim_run(p->sim, 0, p->n, &p->err);
	p->n = 0;
	return rc;
}

static vta_insn_t mem(uint32_t opcode, uint32_t type, uint32_t sram, uint32_t dram, uint32_t y,
		      uint32_t x, uint32_t stride)
{
	vta_insn_t in;
	memset(&in, 0, sizeof in);
	in.opcode = opcode;
	in.memory_type = type;
	in.sram_base = sram;
	in.dram_base = dram;
	in.y_size = y;
	in.x_size = x;
	in.x_stride = stride;
	return in;
}

static vta_insn_t load(uint32_t type, uint32_t sram, uint32_t dram_byte, uint32_t y, uint32_t x,
		       uint32_t stride)
{
	return mem(VTA_OPCODE_LOAD, type, sram, dram_byte / vta_mem_elem_bytes(type), y, x, stride);
}

static vta_insn_t store(uint32_t sram, uint32_t dram_byte, uint32_t y, uint32_t x, uint32_t stride)
{
	return mem(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, sram, dram_byte / VTA_OUT_ELEM_BYTES, y, x, stride);
}

static vta_insn_t compute(uint32_t opcode, uint32_t bgn, uint32_t end, uint32_t iter_out,
			  uint32_t iter_in)
{
	vta_insn_t in;
	memset(&in, 0, sizeof in);
	in.opcode = opcode;
	in.uop_bgn = bgn;
	in.uop_end = end;
	in.iter_out = iter_out;
	in.iter_in = iter_in;
	return in;
}

static vta_insn_t alu(uint32_t op, uint32_t n_elems, int use_imm, int32_t imm, uint32_t src_step)
{
	vta_insn_t in = compute(VTA_OPCODE_ALU, 0, 1, 1, n_elems);
	in.alu_opcode = op;
	in.use_imm = (uint32_t)use_imm;
	in.imm = use_imm ? imm : 0;
	in.dst_factor_in = 1;
	in.src_factor_in = src_step;
	return in;
}

static vta_insn_t finish(void)
{
	vta_insn_t in;
	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_FINISH;
	return in;
}

static void put_uop(Prog *p, uint32_t i, uint32_t dst, uint32_t src, uint32_t wgt)
{
	vta_uop_t u = {dst, src, wgt};
	uint32_t w = 0;
	CHECK_EQ(vta_uop_encode(&u, &w, NULL), VTA_OK);
	uint8_t *b = p->dram + UOP_AT + 4 * (size_t)i;
	for (int k = 0; k < 4; k++)
		b[k] = (uint8_t)(w >> (8 * k));
}

static void put_i32(Prog *p, size_t addr, int32_t v)
{
	for (int k = 0; k < 4; k++)
		p->dram[addr + (size_t)k] = (uint8_t)((uint32_t)v >> (8 * k));
}

static int32_t acc_at(Prog *p, uint32_t elem, int lane)
{
	int32_t *acc = (int32_t *)(void *)vta_fsim_sram(p->sim, VTA_MEM_ID_ACC, NULL);
	return acc[(size_t)elem * LANES + (size_t)lane];
}

static int8_t out_at(Prog *p, uint32_t elem, int lane)
{
	return (int8_t)vta_fsim_sram(p->sim, VTA_MEM_ID_OUT, NULL)[(size_t)elem * LANES + (size_t)lane];
}

/* ------------------------------------------------------------------------ */

/* VTA-SPEC 7.4's worked example, run for its results: C = A . B^T. */
static void gemm_single_tile(void)
{
	Prog p;
	prog_init(&p);
	uint64_t s = 7;
	int8_t a[INP_LANES], w[WGT_LANES];
	for (int i = 0; i < INP_LANES; i++)
		a[i] = (int8_t)test_rand_range(&s, -128, 127);
	for (int i = 0; i < WGT_LANES; i++)
		w[i] = (int8_t)test_rand_range(&s, -128, 127);
	memcpy(p.dram + INP_AT, a, sizeof a);
	memcpy(p.dram + WGT_AT, w, sizeof w);
	put_uop(&p, 0, 0, 0, 0);

	vta_insn_t in = load(VTA_MEM_ID_INP, 0, INP_AT, 1, 1, 1);
	emit(&p, &in);
	in = load(VTA_MEM_ID_WGT, 0, WGT_AT, 1, 1, 1);
	in.push_next = 1;
	emit(&p, &in);
	in = load(VTA_MEM_ID_UOP, 0, UOP_AT, 1, 1, 1);
	in.pop_prev = 1;
	emit(&p, &in);
	in = compute(VTA_OPCODE_GEMM, 0, 1, 1, 1);
	in.reset = 1;
	emit(&p, &in);
	in = compute(VTA_OPCODE_GEMM, 0, 1, 1, 1);
	in.push_next = 1;
	emit(&p, &in);
	in = store(0, OUT_AT, 1, 1, 1);
	in.pop_prev = 1;
	in.push_prev = 1;
	emit(&p, &in);
	in = load(VTA_MEM_ID_UOP, 0, 0, 0, 0, 0);
	in.pop_next = 1;
	emit(&p, &in);
	in = finish();
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);

	for (int b = 0; b < VTA_BATCH; b++)
		for (int c = 0; c < VTA_BLOCK_OUT; c++) {
			int32_t sum = 0;
			for (int k = 0; k < VTA_BLOCK_IN; k++)
				sum += a[b * VTA_BLOCK_IN + k] * w[c * VTA_BLOCK_IN + k];
			CHECK_EQ(acc_at(&p, 0, b * VTA_BLOCK_OUT + c), sum);
			CHECK_EQ((int8_t)p.dram[OUT_AT + b * VTA_BLOCK_OUT + c], (int8_t)sum);
		}
	const vta_counters_t *c = vta_fsim_counters(p.sim);
	CHECK_EQ(c->insns[VTA_OPCODE_LOAD], 4);
	CHECK_EQ(c->insns[VTA_OPCODE_GEMM], 2);
	CHECK_EQ(c->insns[VTA_OPCODE_STORE], 1);
	CHECK_EQ(c->insns[VTA_OPCODE_FINISH], 1);
	CHECK_EQ(c->gemm_uops, 1);
	CHECK_EQ(c->gemm_reset_uops, 1);
	CHECK_EQ(c->bytes_read[VTA_MEM_ID_INP], INP_LANES);
	CHECK_EQ(c->bytes_read[VTA_MEM_ID_WGT], WGT_LANES);
	CHECK_EQ(c->bytes_read[VTA_MEM_ID_UOP], 4);
	CHECK_EQ(c->bytes_written, VTA_OUT_ELEM_BYTES);
	CHECK_EQ(c->insn_bytes_read, 8 * 16);
	for (int q = 0; q < VTA_Q_COUNT; q++)
		CHECK_EQ(vta_fsim_tokens(p.sim, q), 0);
	prog_done(&p);
}

/*
 * Uop loops: dst = uop.dst + o*dst_out + i*dst_in, likewise src and wgt.
 * A blocked GEMM over several uops and both loop levels against a plain
 * reference of the pseudo-code of VTA-SPEC 4.5.4.
 */
static void gemm_blocked_loops(void)
{
	Prog p;
	prog_init(&p);
	uint64_t s = 99;
	enum { NI = 24, NW = 12 };
	static int8_t a[NI][INP_LANES], w[NW][WGT_LANES];
	for (int e = 0; e < NI; e++)
		for (int i = 0; i < INP_LANES; i++)
			a[e][i] = (int8_t)test_rand_range(&s, -128, 127);
	for (int e = 0; e < NW; e++)
		for (int i = 0; i < WGT_LANES; i++)
			w[e][i] = (int8_t)test_rand_range(&s, -128, 127);
	memcpy(p.dram + INP_AT, a, sizeof a);
	memcpy(p.dram + WGT_AT, w, sizeof w);
	/* Three uops; loops 2 (outer) x 3 (inner). */
	uint32_t ud[3] = {0, 1, 7}, us[3] = {0, 2, 5}, uw[3] = {1, 0, 2};
	for (int u = 0; u < 3; u++)
		put_uop(&p, (uint32_t)u + 4, ud[u], us[u], uw[u]);
	vta_insn_t in = load(VTA_MEM_ID_INP, 0, INP_AT, 1, NI, NI);
	emit(&p, &in);
	in = load(VTA_MEM_ID_WGT, 0, WGT_AT, 1, NW, NW);
	in.push_next = 1;
	emit(&p, &in);
	in = load(VTA_MEM_ID_UOP, 4, UOP_AT + 16, 1, 3, 3);
	in.pop_prev = 1;
	emit(&p, &in);
	in = compute(VTA_OPCODE_GEMM, 4, 7, 2, 3);
	in.dst_factor_out = 9;
	in.dst_factor_in = 2;
	in.src_factor_out = 4;
	in.src_factor_in = 3;
	in.wgt_factor_out = 3;
	in.wgt_factor_in = 2;
	emit(&p, &in);
	in = finish();
	emit(&p, &in);
	/* ACC starts at zero after create. */
	static int32_t ref[32][LANES];
	memset(ref, 0, sizeof ref);
	for (uint32_t o = 0; o < 2; o++)
		for (uint32_t i = 0; i < 3; i++)
			for (int u = 0; u < 3; u++) {
				uint32_t d = ud[u] + o * 9 + i * 2, sr = us[u] + o * 4 + i * 3,
					 wg = uw[u] + o * 3 + i * 2;
				for (int b = 0; b < VTA_BATCH; b++)
					for (int c = 0; c < VTA_BLOCK_OUT; c++) {
						int32_t sum = 0;
						for (int k = 0; k < VTA_BLOCK_IN; k++)
							sum += a[sr][b * VTA_BLOCK_IN + k] *
							       w[wg][c * VTA_BLOCK_IN + k];
						ref[d][b * VTA_BLOCK_OUT + c] += sum;
					}
			}
	CHECK_EQ(run(&p), VTA_OK);
	for (uint32_t d = 0; d < 32; d++)
		for (int l = 0; l < LANES; l++) {
			CHECK_EQ(acc_at(&p, d, l), ref[d][l]);
			CHECK_EQ(out_at(&p, d, l), (int8_t)ref[d][l]);
		}
	CHECK_EQ(vta_fsim_counters(p.sim)->gemm_uops, 18);
	prog_done(&p);
}

/* Reset zeroes exactly the ACC and OUT entries the loops reach. */
static void gemm_reset_indices(void)
{
	Prog p;
	prog_init(&p);
	for (int e = 0; e < 40; e++)
		for (int l = 0; l < LANES; l++)
			put_i32(&p, ACC_AT + (size_t)(e * LANES + l) * 4, 1000 + e);
	/* src and wgt are ignored by reset, even when the loops take them out of range */
	put_uop(&p, 0, 1, (1u << VTA_UOP_SRC_IDX_WIDTH) - 1, (1u << VTA_UOP_WGT_IDX_WIDTH) - 1);
	vta_insn_t in = load(VTA_MEM_ID_UOP, 0, UOP_AT, 1, 1, 1);
	emit(&p, &in);
	in = load(VTA_MEM_ID_ACC, 0, ACC_AT, 1, 40, 40);
	emit(&p, &in);
	in = compute(VTA_OPCODE_GEMM, 0, 1, 3, 2);
	in.reset = 1;
	in.dst_factor_out = 10; /* 1 + o*10 + i*4: 1, 5, 11, 15, 21, 25 */
	in.dst_factor_in = 4;
	in.src_factor_out = VTA_INP_BUFF_DEPTH - 1;
	in.wgt_factor_out = VTA_WGT_BUFF_DEPTH - 1;
	emit(&p, &in);
	in = finish();
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);
	for (int e = 0; e < 40; e++) {
		int reset = e == 1 || e == 5 || e == 11 || e == 15 || e == 21 || e == 25;
		CHECK_EQ(acc_at(&p, (uint32_t)e, LANES - 1), reset ? 0 : 1000 + e);
		CHECK_EQ(out_at(&p, (uint32_t)e, 0), reset ? 0 : (int8_t)(1000 + e));
	}
	prog_done(&p);
}

/* Accumulation wraps modulo 2^32 and OUT keeps the low 8 bits. */
static void gemm_wraps(void)
{
	Prog p;
	prog_init(&p);
	for (int l = 0; l < LANES; l++)
		put_i32(&p, ACC_AT + (size_t)l * 4, INT32_MAX);
	for (int i = 0; i < INP_LANES; i++)
		p.dram[INP_AT + i] = (uint8_t)(int8_t)-128;
	for (int i = 0; i < WGT_LANES; i++)
		p.dram[WGT_AT + i] = (uint8_t)(int8_t)-128; /* each product is +16384 */
	put_uop(&p, 0, 0, 0, 0);
	vta_insn_t in = load(VTA_MEM_ID_UOP, 0, UOP_AT, 1, 1, 1);
	emit(&p, &in);
	in = load(VTA_MEM_ID_ACC, 0, ACC_AT, 1, 1, 1);
	emit(&p, &in);
	in = load(VTA_MEM_ID_INP, 0, INP_AT, 1, 1, 1);
	emit(&p, &in);
	in = load(VTA_MEM_ID_WGT, 0, WGT_AT, 1, 1, 1);
	in.push_next = 1;
	emit(&p, &in);
	in = compute(VTA_OPCODE_GEMM, 0, 1, 1, 1);
	in.pop_prev = 1;
	emit(&p, &in);
	in = finish();
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);
	int64_t expect = (int64_t)INT32_MAX + 16384LL * VTA_BLOCK_IN;
	int32_t wrapped = (int32_t)(uint32_t)(uint64_t)expect;
	CHECK(wrapped < 0);
	CHECK_EQ(acc_at(&p, 0, 0), wrapped);
	CHECK_EQ(out_at(&p, 0, 0), (int8_t)(expect & 0xFF));
	prog_done(&p);
}

/* ------------------------------------------------------------------------ */
/* ALU: every operation with register and immediate operands.               */

/* Loads A into ACC[0..n) and B into ACC[n..2n), one value per element
 * (all lanes equal), runs one ALU instruction, returns ACC[0..n) lane 0. */
static void alu_case(uint32_t op, int use_imm, int32_t imm, const int32_t *A, const int32_t *B,
		     int n, const int32_t *expect, int line)
{
	Prog p;
	prog_init(&p);
	for (int e = 0; e < n; e++)
		for (int l = 0; l < LANES; l++) {
			put_i32(&p, ACC_AT + (size_t)(e * LANES + l) * 4, A[e]);
			put_i32(&p, ACC_AT + (size_t)((n + e) * LANES + l) * 4, B ? B[e] : 0);
		}
	put_uop(&p, 0, 0, (uint32_t)n, 0);
	vta_insn_t in = load(VTA_MEM_ID_UOP, 0, UOP_AT, 1, 1, 1);
	emit(&p, &in);
	in = load(VTA_MEM_ID_ACC, 0, ACC_AT, 1, (uint32_t)(2 * n), (uint32_t)(2 * n));
	emit(&p, &in);
	in = alu(op, (uint32_t)n, use_imm, imm, 1);
	in.push_next = 1;
	emit(&p, &in);
	in = store(0, OUT_AT, 1, (uint32_t)n, (uint32_t)n);
	in.pop_prev = 1;
	in.push_prev = 1;
	emit(&p, &in);
	in = finish();
	in.pop_next = 1;
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);
	for (int e = 0; e < n; e++)
		for (int l = 0; l < LANES; l += LANES - 1) {
			if (acc_at(&p, (uint32_t)e, l) != expect[e])
				test_fail_(__FILE__, line, "%s case %d: ACC %d, expected %d",
					   vta_alu_name(op), e, acc_at(&p, (uint32_t)e, l), expect[e]);
			if ((int8_t)p.dram[OUT_AT + (size_t)(e * LANES + l)] != (int8_t)expect[e])
				test_fail_(__FILE__, line, "%s case %d: stored %d, expected %d",
					   vta_alu_name(op), e,
					   (int8_t)p.dram[OUT_AT + (size_t)(e * LANES + l)],
					   (int8_t)expect[e]);
		}
	CHECK_EQ(vta_fsim_counters(p.sim)->alu_uops, n);
	prog_done(&p);
}

#define ALU_REG(op, A, B, E) alu_case(op, 0, 0, A, B, (int)(sizeof A / sizeof *A), E, __LINE__)

static void alu_register(void)
{
	static const int32_t A[] = {5, -3, INT32_MAX, INT32_MIN, 0x12345678, -17, 1000, -1};
	static const int32_t B[] = {-3, 5, 1, -1, 8, 2, -3, INT32_MIN};
	static const int32_t min[] = {-3, -3, 1, INT32_MIN, 8, -17, -3, INT32_MIN};
	static const int32_t max[] = {5, 5, INT32_MAX, -1, 0x12345678, 2, 1000, -1};
	static const int32_t add[] = {2, 2, INT32_MIN, INT32_MAX, 0x12345680, -15, 997, INT32_MAX};
	ALU_REG(VTA_ALU_OPCODE_MIN, A, B, min);
	ALU_REG(VTA_ALU_OPCODE_MAX, A, B, max);
	ALU_REG(VTA_ALU_OPCODE_ADD, A, B, add);

	/* SHR: B >= 0 shifts right arithmetically by B & 31; B < 0 shifts left
	 * by -B & 31. INT32_MIN as the amount is a left shift by 0. */
	static const int32_t SA[] = {-17, 0x12345678, 0x12345678, 0x12345678, 1, -1, 0x40000000, 7};
	static const int32_t SB[] = {2, 32, 33, -33, -31, 31, -1, INT32_MIN};
	static const int32_t shr[] = {-5, 0x12345678, 0x091A2B3C, 0x2468ACF0, INT32_MIN, -1, INT32_MIN, 7};
	ALU_REG(VTA_ALU_OPCODE_SHR, SA, SB, shr);

	static const int32_t MA[] = {65536, -7, 46341, INT32_MIN, 3};
	static const int32_t MB[] = {65536, 6, 46341, -1, -5};
	static const int32_t mul[] = {0, -42, (int32_t)0x80001219u, INT32_MIN, -15};
	ALU_REG(VTA_ALU_OPCODE_MUL, MA, MB, mul);
}

static void alu_immediate(void)
{
	static const int32_t A[] = {-40000, 40000, 0, -1};
	static const int32_t min_m32768[] = {-40000, -32768, -32768, -32768};
	alu_case(VTA_ALU_OPCODE_MIN, 1, -32768, A, NULL, 4, min_m32768, __LINE__);
	static const int32_t max_32767[] = {32767, 40000, 32767, 32767};
	alu_case(VTA_ALU_OPCODE_MAX, 1, 32767, A, NULL, 4, max_32767, __LINE__);
	static const int32_t add_m1[] = {-40001, 39999, -1, -2};
	alu_case(VTA_ALU_OPCODE_ADD, 1, -1, A, NULL, 4, add_m1, __LINE__);
	static const int32_t shr_3[] = {-5000, 5000, 0, -1};
	alu_case(VTA_ALU_OPCODE_SHR, 1, 3, A, NULL, 4, shr_3, __LINE__);
	static const int32_t shl_2[] = {-160000, 160000, 0, -4};
	alu_case(VTA_ALU_OPCODE_SHR, 1, -2, A, NULL, 4, shl_2, __LINE__);
	static const int32_t copy[] = {-40000, 40000, 0, -1};
	alu_case(VTA_ALU_OPCODE_SHR, 1, 0, A, NULL, 4, copy, __LINE__);
	static const int32_t mul_m3[] = {120000, -120000, 0, 3};
	alu_case(VTA_ALU_OPCODE_MUL, 1, -3, A, NULL, 4, mul_m3, __LINE__);
}

/* Narrowing to OUT is truncation to the low 8 bits, no saturation. */
static void narrowing(void)
{
	static const int32_t A[] = {127, 128, -129, 255, 0x12345678, INT32_MAX, INT32_MIN, -128};
	static const int32_t copy[] = {127, 128, -129, 255, 0x12345678, INT32_MAX, INT32_MIN, -128};
	alu_case(VTA_ALU_OPCODE_SHR, 1, 0, A, NULL, 8, copy, __LINE__);
	/* alu_case checks OUT == (int8_t)ACC; spell out the hand-derived bytes too. */
	CHECK_EQ((int8_t)128, -128);
	CHECK_EQ((int8_t)-129, 127);
	CHECK_EQ((int8_t)0x12345678, 0x78);
	CHECK_EQ((int8_t)INT32_MAX, -1);
}

/* An ALU source at another index, with both loop levels. */
static void alu_loops(void)
{
	Prog p;
	prog_init(&p);
	for (int e = 0; e < 16; e++)
		for (int l = 0; l < LANES; l++)
			put_i32(&p, ACC_AT + (size_t)(e * LANES + l) * 4, e * 100 + l);
	put_uop(&p, 0, 0, 8, 0);
	vta_insn_t in = load(VTA_MEM_ID_UOP, 0, UOP_AT, 1, 1, 1);
	emit(&p, &in);
	in = load(VTA_MEM_ID_ACC, 0, ACC_AT, 1, 16, 16);
	emit(&p, &in);
	in = compute(VTA_OPCODE_ALU, 0, 1, 2, 2);
	in.alu_opcode = VTA_ALU_OPCODE_ADD;
	in.dst_factor_out = 4; /* dst 0, 1, 4, 5 */
	in.dst_factor_in = 1;
	in.src_factor_out = 2; /* src 8, 9, 10, 11 */
	in.src_factor_in = 1;
	emit(&p, &in);
	in = finish();
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);
	int dst[4] = {0, 1, 4, 5}, src[4] = {8, 9, 10, 11};
	for (int j = 0; j < 4; j++)
		CHECK_EQ(acc_at(&p, (uint32_t)dst[j], 3), dst[j] * 100 + 3 + src[j] * 100 + 3);
	CHECK_EQ(acc_at(&p, 2, 0), 200);
	CHECK_EQ(acc_at(&p, 3, 0), 300);
	prog_done(&p);
}

/* ------------------------------------------------------------------------ */
/* Loads with padding; ACC_8BIT; base registers; x_size = 0.                 */

/* A 2x3 block with pads top 1, bottom 2, left 1, right 1 becomes 5 rows of
 * 5 elements at sram 3, and nothing else changes. */
static void padded_load_all_sides(void)
{
	static const unsigned types[] = {VTA_MEM_ID_INP, VTA_MEM_ID_WGT, VTA_MEM_ID_UOP, VTA_MEM_ID_ACC};
	for (int t = 0; t < 4; t++) {
		Prog p;
		prog_init(&p);
		unsigned type = types[t];
		uint32_t E = vta_mem_elem_bytes(type);
		size_t sram_bytes;
		uint8_t *sram = vta_fsim_sram(p.sim, type, &sram_bytes);
		memset(sram, 0x55, 40 * (size_t)E); /* old contents, to see what is written */
		/* DRAM rows of stride 4 elements; element (y, x) filled with 16*y + x + 1. */
		for (int y = 0; y < 2; y++)
			for (int x = 0; x < 4; x++)
				memset(p.dram + INP_AT + (size_t)(y * 4 + x) * E, 16 * y + x + 1, E);
		vta_insn_t in = mem(VTA_OPCODE_LOAD, type, 3, INP_AT / E, 2, 3, 4);
		in.y_pad_0 = 1;
		in.y_pad_1 = 2;
		in.x_pad_0 = 1;
		in.x_pad_1 = 1;
		if (type == VTA_MEM_ID_INP || type == VTA_MEM_ID_WGT)
			in.push_next = 1;
		emit(&p, &in);
		in = finish();
		in.pop_prev = type == VTA_MEM_ID_INP || type == VTA_MEM_ID_WGT;
		emit(&p, &in);
		CHECK_EQ(run(&p), VTA_OK);
		/* Expected block, 5 x 5 at element 3: '.' zero, digits data. */
		static const char *expect[5] = {".....", ".123.", ".567.", ".....", "....."};
		for (int e = 0; e < 40; e++) {
			int in_block = e >= 3 && e < 28;
			uint8_t want = 0x55;
			if (in_block) {
				char ch = expect[(e - 3) / 5][(e - 3) % 5];
				want = ch == '.' ? 0 : (uint8_t)(ch - '1' + 1 + (ch >= '5' ? 16 - 4 : 0));
			}
			for (uint32_t b = 0; b < E; b++)
				if (sram[(size_t)e * E + b] != want) {
					test_fail_(__FILE__, __LINE__, "%s element %d byte %u: %u, expected %u",
						   vta_mem_name(type), e, b, sram[(size_t)e * E + b], want);
					b = E;
					e = 40;
				}
		}
		prog_done(&p);
	}
}

/* Padding reaches GEMM: a padded INP row feeds zeros into the dot product. */
static void padded_load_feeds_gemm(void)
{
	Prog p;
	prog_init(&p);
	for (int i = 0; i < INP_LANES; i++)
		p.dram[INP_AT + i] = 1;
	for (int c = 0; c < VTA_BLOCK_OUT; c++)
		for (int k = 0; k < VTA_BLOCK_IN; k++)
			p.dram[WGT_AT + c * VTA_BLOCK_IN + k] = (uint8_t)(c + 1);
	put_uop(&p, 0, 0, 0, 0);
	vta_insn_t in = load(VTA_MEM_ID_INP, 0, INP_AT, 1, 1, 1);
	in.x_pad_0 = 1; /* INP[0] = 0, INP[1] = data */
	emit(&p, &in);
	in = load(VTA_MEM_ID_WGT, 0, WGT_AT, 1, 1, 1);
	in.push_next = 1;
	emit(&p, &in);
	in = load(VTA_MEM_ID_UOP, 0, UOP_AT, 1, 1, 1);
	in.pop_prev = 1;
	emit(&p, &in);
	in = compute(VTA_OPCODE_GEMM, 0, 1, 1, 2); /* acc[i] += inp[i] . w */
	in.dst_factor_in = 1;
	in.src_factor_in = 1;
	emit(&p, &in);
	in = finish();
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);
	for (int c = 0; c < VTA_BLOCK_OUT; c++) {
		CHECK_EQ(acc_at(&p, 0, c), 0);
		CHECK_EQ(acc_at(&p, 1, c), (c + 1) * VTA_BLOCK_IN);
	}
	prog_done(&p);
}

static void acc8_sign_extends(void)
{
	Prog p;
	prog_init(&p);
	static const int8_t v[4] = {-128, 127, -1, 5};
	for (int e = 0; e < 2; e++)
		for (int l = 0; l < LANES; l++)
			p.dram[ACC_AT + (size_t)(e * LANES + l)] = (uint8_t)v[(e * 2 + l) % 4];
	vta_insn_t in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_ACC_8BIT, 1, ACC_AT / VTA_ACC8_ELEM_BYTES, 1, 2, 2);
	emit(&p, &in);
	in = finish();
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);
	for (int e = 0; e < 2; e++)
		for (int l = 0; l < LANES; l++) {
			CHECK_EQ(acc_at(&p, (uint32_t)e + 1, l), v[(e * 2 + l) % 4]);
			CHECK_EQ(out_at(&p, (uint32_t)e + 1, l), v[(e * 2 + l) % 4]);
		}
	CHECK_EQ(vta_fsim_counters(p.sim)->bytes_read[VTA_MEM_ID_ACC_8BIT], 2 * VTA_ACC8_ELEM_BYTES);
	prog_done(&p);
}

/* Base registers are added to dram_base * element size (VTA-SPEC 2.4). */
static void base_registers(void)
{
	Prog p;
	prog_init(&p);
	vta_bases_t b = {.acc = ACC_AT, .out = OUT_AT};
	vta_fsim_set_bases(p.sim, &b);
	for (int l = 0; l < LANES; l++)
		put_i32(&p, ACC_AT + (size_t)(3 * LANES + l) * 4, 42 + l);
	vta_insn_t in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_ACC, 0, 3, 1, 1, 1); /* element 3 after base */
	in.push_next = 1;
	emit(&p, &in);
	in = mem(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, 2, 1, 1, 1);
	in.pop_prev = 1;
	in.push_prev = 1;
	emit(&p, &in);
	in = finish();
	in.pop_next = 1;
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);
	for (int l = 0; l < LANES; l++)
		CHECK_EQ(p.dram[OUT_AT + 2 * VTA_OUT_ELEM_BYTES + l], 42 + l);
	prog_done(&p);
}

/* x_size = 0 only handles tokens: pads and other fields are ignored. */
static void zero_size_is_noop(void)
{
	Prog p;
	prog_init(&p);
	uint8_t *inp = vta_fsim_sram(p.sim, VTA_MEM_ID_INP, NULL);
	memset(inp, 7, 64);
	vta_insn_t in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 0, 0, 5, 0, 0);
	in.y_pad_0 = in.x_pad_0 = 15;
	in.push_next = 1;
	emit(&p, &in);
	in = mem(VTA_OPCODE_LOAD, 7, 0xFFFF, 0, 0, 0, 0); /* illegal type is fine with x = 0 */
	in.pop_prev = 1;
	emit(&p, &in);
	in = mem(VTA_OPCODE_STORE, 0, 0xFFFF, 0xFFFFFFFF, 9, 0, 0);
	in.x_pad_1 = 3;
	emit(&p, &in);
	in = finish();
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);
	CHECK_EQ(inp[0], 7);
	CHECK_EQ(inp[63], 7);
	CHECK_EQ(vta_fsim_counters(p.sim)->bytes_read[VTA_MEM_ID_INP], 0);
	prog_done(&p);
}

/* Strided stores write only their rows; the gaps keep their bytes. */
static void strided_store(void)
{
	Prog p;
	prog_init(&p);
	for (int e = 0; e < 6; e++)
		for (int l = 0; l < LANES; l++)
			put_i32(&p, ACC_AT + (size_t)(e * LANES + l) * 4, e + 1);
	memset(p.dram + OUT_AT, 0xEE, 16 * VTA_OUT_ELEM_BYTES);
	vta_insn_t in = load(VTA_MEM_ID_ACC, 0, ACC_AT, 1, 6, 6);
	in.push_next = 1;
	emit(&p, &in);
	in = store(0, OUT_AT, 3, 2, 5); /* rows of 2 elements, 5 apart */
	in.pop_prev = 1;
	in.push_prev = 1;
	emit(&p, &in);
	in = finish();
	in.pop_next = 1;
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);
	static const int expect[16] = {1, 2, -1, -1, -1, 3, 4, -1, -1, -1, 5, 6, -1, -1, -1, -1};
	for (int e = 0; e < 16; e++)
		CHECK_EQ(p.dram[OUT_AT + (size_t)e * VTA_OUT_ELEM_BYTES + LANES - 1],
			 expect[e] < 0 ? 0xEE : expect[e]);
	prog_done(&p);
}

/* ------------------------------------------------------------------------ */
/* Tokens and state across runs.                                             */

static void tokens_persist_across_runs(void)
{
	Prog p;
	prog_init(&p);
	vta_insn_t in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 0, 0, 0, 0, 0);
	in.push_next = 1; /* leaves an l2g token behind */
	emit(&p, &in);
	in = finish();
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);
	CHECK_EQ(vta_fsim_tokens(p.sim, VTA_Q_L2G), 1);
	in = finish();
	in.pop_prev = 1; /* satisfied by the token of the first run */
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);
	CHECK_EQ(vta_fsim_tokens(p.sim, VTA_Q_L2G), 0);
	/* SRAM persists too, and reset clears everything. */
	vta_fsim_sram(p.sim, VTA_MEM_ID_ACC, NULL)[5] = 9;
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_EDEADLOCK);
	CHECK_EQ(vta_fsim_sram(p.sim, VTA_MEM_ID_ACC, NULL)[5], 9);
	vta_fsim_reset(p.sim);
	CHECK_EQ(vta_fsim_sram(p.sim, VTA_MEM_ID_ACC, NULL)[5], 0);
	CHECK_EQ(vta_fsim_counters(p.sim)->insns[VTA_OPCODE_FINISH], 0);
	prog_done(&p);
}

/* A compute instruction popping two queues waits for both. */
static void double_pop_and_waits(void)
{
	Prog p;
	prog_init(&p);
	vta_insn_t in = finish();
	in.pop_prev = 1;
	in.pop_next = 1;
	emit(&p, &in);
	in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_WGT, 0, 0, 0, 0, 0);
	in.push_next = 1;
	emit(&p, &in);
	in = mem(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, 0, 0, 0, 0);
	in.push_prev = 1;
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_OK);
	/* Each round runs load, then compute, then store: the l2g token is
	 * there when FINISH is first tried, the s2g token is not. */
	const vta_counters_t *c = vta_fsim_counters(p.sim);
	CHECK_EQ(c->token_waits[VTA_Q_L2G], 0);
	CHECK_EQ(c->token_waits[VTA_Q_S2G], 1);
	CHECK_EQ(c->token_waits[VTA_Q_G2S], 0);
	prog_done(&p);

	/* With only one of the two tokens it deadlocks, naming both modules' state. */
	prog_init(&p);
	in = finish();
	in.pop_prev = 1;
	in.pop_next = 1;
	emit(&p, &in);
	in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_WGT, 0, 0, 0, 0, 0);
	in.push_next = 1;
	emit(&p, &in);
	CHECK_EQ(run(&p), VTA_EDEADLOCK);
	CHECK_EQ(p.err.insn_index, 0);
	CHECK_STR_CONTAINS(p.err.msg, "compute waits at instruction 0 (finish pop_prev pop_next) for a s2g token");
	prog_done(&p);
}

/* ------------------------------------------------------------------------ */
/* Errors: each names the instruction and the reason, and never hangs.      */

static void expect_error(void (*build)(Prog *), int code, long index, const char *text, int line)
{
	Prog p;
	prog_init(&p);
	build(&p);
	int rc = run(&p);
	if (rc != code)
		test_fail_(__FILE__, line, "run returned %d (%s), expected %d; message: %s", rc,
			   vta_strerror(rc), code, p.err.msg);
	else if (p.err.insn_index != index)
		test_fail_(__FILE__, line, "error names instruction %ld, expected %ld: %s",
			   p.err.insn_index, index, p.err.msg);
	else if (!strstr(p.err.msg, text))
		test_fail_(__FILE__, line, "message \"%s\" lacks \"%s\"", p.err.msg, text);
	prog_done(&p);
}

static void b_deadlock(Prog *p)
{
	vta_insn_t in = load(VTA_MEM_ID_INP, 0, INP_AT, 1, 1, 1);
	emit(p, &in);
	in = compute(VTA_OPCODE_GEMM, 0, 0, 0, 0);
	in.pop_prev = 1; /* nobody pushes l2g */
	emit(p, &in);
	in = finish();
	emit(p, &in);
}
static void b_no_finish(Prog *p)
{
	vta_insn_t in = load(VTA_MEM_ID_INP, 0, INP_AT, 1, 1, 1);
	emit(p, &in);
}
static void b_opcode5(Prog *p)
{
	vta_insn_t in = finish();
	emit(p, &in);
	emit_raw(p, 0x5, 0);
}
static void b_load_out(Prog *p)
{
	vta_insn_t in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_OUT, 0, 0, 1, 1, 1);
	emit(p, &in);
}
static void b_load_type6(Prog *p)
{
	vta_insn_t in = mem(VTA_OPCODE_LOAD, 6, 0, 0, 1, 1, 1);
	emit(p, &in);
}
static void b_alu_op7(Prog *p)
{
	vta_insn_t in = alu(7, 0, 0, 0, 0); /* fatal even with zero iterations */
	emit(p, &in);
}
static void b_load_pop_prev(Prog *p)
{
	vta_insn_t in = load(VTA_MEM_ID_WGT, 0, WGT_AT, 1, 1, 1);
	in.pop_prev = 1;
	emit(p, &in);
}
static void b_store_push_next(Prog *p)
{
	vta_insn_t in = finish();
	emit(p, &in);
	in = store(0, OUT_AT, 1, 1, 1);
	in.push_next = 1;
	emit(p, &in);
}
static void b_store_pad(Prog *p)
{
	vta_insn_t in = store(0, OUT_AT, 1, 1, 1);
	in.x_pad_0 = 1;
	emit(p, &in);
}
static void b_load_past_sram(Prog *p)
{
	vta_insn_t in = load(VTA_MEM_ID_INP, VTA_INP_BUFF_DEPTH - 2, INP_AT, 1, 2, 2);
	in.x_pad_1 = 1; /* 3 elements from depth - 2 */
	emit(p, &in);
	in = finish();
	emit(p, &in);
}
static void b_load_ends_at_depth(Prog *p)
{
	vta_insn_t in = load(VTA_MEM_ID_ACC, VTA_ACC_BUFF_DEPTH - 2, ACC_AT, 1, 2, 2);
	emit(p, &in);
	in = compute(VTA_OPCODE_GEMM, 0, 0, 1, 1);
	in.pop_prev = 1;
	emit(p, &in);
}
static void b_gemm_acc_range(Prog *p)
{
	put_uop(p, 0, 1, 0, 0);
	vta_insn_t in = load(VTA_MEM_ID_UOP, 0, UOP_AT, 1, 1, 1);
	emit(p, &in);
	in = compute(VTA_OPCODE_GEMM, 0, 1, 2, 1);
	in.reset = 1;
	in.dst_factor_out = VTA_ACC_BUFF_DEPTH - 1; /* 1 + (depth - 1) = depth */
	emit(p, &in);
}
static void b_gemm_wgt_range(Prog *p)
{
	put_uop(p, 0, 0, 0, VTA_WGT_BUFF_DEPTH - 1);
	vta_insn_t in = load(VTA_MEM_ID_UOP, 0, UOP_AT, 1, 1, 1);
	emit(p, &in);
	in = compute(VTA_OPCODE_GEMM, 0, 1, 1, 2);
	in.wgt_factor_in = 1;
	emit(p, &in);
}
static void b_alu_src_range_imm(Prog *p)
{
	put_uop(p, 0, 0, VTA_ACC_BUFF_DEPTH - 1, 0);
	vta_insn_t in = load(VTA_MEM_ID_UOP, 0, UOP_AT, 1, 1, 1);
	emit(p, &in);
	in = alu(VTA_ALU_OPCODE_ADD, 2, 1, 1, 1); /* source is checked even with use_imm */
	emit(p, &in);
}
static void b_uop_range(Prog *p)
{
	vta_insn_t in = compute(VTA_OPCODE_ALU, VTA_UOP_BUFF_DEPTH - 1, VTA_UOP_BUFF_DEPTH + 1, 1, 1);
	emit(p, &in);
}
static void b_store_src_range(Prog *p)
{
	vta_insn_t in = store(VTA_OUT_BUFF_DEPTH - 4, OUT_AT, 2, 3, 3);
	emit(p, &in);
}
static void b_dram_range(Prog *p)
{
	vta_insn_t in = load(VTA_MEM_ID_INP, 0, DRAM - VTA_INP_ELEM_BYTES, 2, 1, 1);
	emit(p, &in); /* the second row starts at the end of DRAM */
}
static void b_token_overflow(Prog *p)
{
	for (int i = 0; i <= VTA_TOKEN_QUEUE_DEPTH; i++) {
		vta_insn_t in = mem(VTA_OPCODE_STORE, 0, 0, 0, 0, 0, 0);
		in.push_prev = 1;
		emit(p, &in);
	}
}
/* 513 loads wait for g2l tokens that compute instructions after them would
 * push: the load queue fills and fetch can never reach those pushes. */
static void b_queue_full(Prog *p)
{
	for (int i = 0; i <= VTA_INSN_QUEUE_DEPTH; i++) {
		vta_insn_t in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 0, 0, 0, 0, 0);
		in.pop_next = 1;
		emit(p, &in);
	}
	for (int i = 0; i <= VTA_INSN_QUEUE_DEPTH; i++) {
		vta_insn_t in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 0, 0, 0, 0, 0);
		in.push_prev = 1;
		emit(p, &in);
	}
	vta_insn_t in = finish();
	emit(p, &in);
}

#define STR_(x) #x
#define STR(x) STR_(x)

static void errors(void)
{
	expect_error(b_deadlock, VTA_EDEADLOCK, 1, "compute waits at instruction 1 (gemm", __LINE__);
	expect_error(b_deadlock, VTA_EDEADLOCK, 1, "for a l2g token", __LINE__);
	expect_error(b_no_finish, VTA_EDEADLOCK, 0, "ended without FINISH", __LINE__);
	expect_error(b_opcode5, VTA_EILLEGAL, 1, "opcode 5 is reserved", __LINE__);
	expect_error(b_load_out, VTA_EILLEGAL, 0, "OUT buffer cannot be loaded", __LINE__);
	expect_error(b_load_type6, VTA_EILLEGAL, 0, "memory type 6", __LINE__);
	expect_error(b_alu_op7, VTA_EILLEGAL, 0, "ALU opcode 7 is reserved", __LINE__);
	expect_error(b_load_pop_prev, VTA_EILLEGAL, 0, "pop_prev and push_prev must be 0", __LINE__);
	expect_error(b_store_push_next, VTA_EILLEGAL, 1, "pop_next and push_next must be 0", __LINE__);
	expect_error(b_store_pad, VTA_EILLEGAL, 0, "STORE cannot pad", __LINE__);
	expect_error(b_load_past_sram, VTA_ERANGE, 0, "runs past the end of the " STR(VTA_INP_BUFF_DEPTH),
		     __LINE__);
	/* A block ending exactly at the depth is fine: the run then deadlocks. */
	expect_error(b_load_ends_at_depth, VTA_EDEADLOCK, 1, "l2g", __LINE__);
	expect_error(b_gemm_acc_range, VTA_ERANGE, 1, "ACC index reaches " STR(VTA_ACC_BUFF_DEPTH), __LINE__);
	expect_error(b_gemm_wgt_range, VTA_ERANGE, 1, "WGT index reaches " STR(VTA_WGT_BUFF_DEPTH), __LINE__);
	expect_error(b_alu_src_range_imm, VTA_ERANGE, 1, "source ACC index", __LINE__);
	expect_error(b_uop_range, VTA_ERANGE, 0, "micro-op index reaches " STR(VTA_UOP_BUFF_DEPTH), __LINE__);
	expect_error(b_store_src_range, VTA_ERANGE, 0, "runs past the end", __LINE__);
	expect_error(b_dram_range, VTA_ERANGE, 0, "outside the 4194304-byte DRAM", __LINE__);
	expect_error(b_token_overflow, VTA_ETOKEN, VTA_TOKEN_QUEUE_DEPTH, "token queue s2g already holds",
		     __LINE__);
	expect_error(b_queue_full, VTA_EDEADLOCK, 0, "after fetching " STR(VTA_INSN_QUEUE_DEPTH), __LINE__);
}

/* A run with a bad address or size is refused before anything runs. */
static void run_arguments(void)
{
	Prog p;
	prog_init(&p);
	CHECK_EQ(vta_fsim_run(p.sim, 8, 1, &p.err), VTA_EINVAL);
	CHECK_STR_CONTAINS(p.err.msg, "not 16-byte aligned");
	CHECK_EQ(vta_fsim_run(p.sim, DRAM - 16, 2, &p.err), VTA_ERANGE);
	CHECK_EQ(vta_fsim_run(p.sim, 0, 0, &p.err), VTA_EDEADLOCK);
	CHECK(vta_fsim_create(0, &p.err) == NULL);
	CHECK_EQ(p.err.code, VTA_EINVAL);
	prog_done(&p);
}

/* A failing instruction leaves the buffers as they were. */
static void failed_instruction_writes_nothing(void)
{
	Prog p;
	prog_init(&p);
	b_gemm_acc_range(&p);
	int32_t *acc = (int32_t *)(void *)vta_fsim_sram(p.sim, VTA_MEM_ID_ACC, NULL);
	acc[LANES] = 77;
	CHECK_EQ(run(&p), VTA_ERANGE);
	CHECK_EQ(acc[LANES], 77);
	prog_done(&p);
}

/* ------------------------------------------------------------------------ */
/* GEMM and ALU kernels (AVX2 and portable) against plain loops here.       */

enum { K_INP = 64, K_WGT = 32, K_ACC = 64, K_UOPS = 16 };

/* The state a random program leaves, computed from VTA-SPEC 4.5.4-4.5.5. */
typedef struct {
	int8_t inp[K_INP][INP_LANES];
	int8_t wgt[K_WGT][WGT_LANES];
	int32_t acc[K_ACC][LANES];
} KState;

static void ref_compute(KState *k, const vta_insn_t *in, const vta_uop_t *u, int n)
{
	for (uint32_t o = 0; o < in->iter_out; o++)
		for (uint32_t i = 0; i < in->iter_in; i++)
			for (int m = 0; m < n; m++) {
				uint32_t d = u[m].dst_idx + o * in->dst_factor_out + i * in->dst_factor_in;
				uint32_t x = u[m].src_idx + o * in->src_factor_out + i * in->src_factor_in;
				uint32_t w = u[m].wgt_idx + o * in->wgt_factor_out + i * in->wgt_factor_in;
				if (in->opcode == VTA_OPCODE_ALU) {
					for (int l = 0; l < LANES; l++)
						k->acc[d][l] = test_ref_alu(in->alu_opcode, k->acc[d][l],
								       in->use_imm ? in->imm : k->acc[x][l]);
					continue;
				}
				for (int b = 0; b < VTA_BATCH; b++)
					for (int c = 0; c < VTA_BLOCK_OUT; c++) {
						int64_t sum = 0;
						for (int q = 0; q < VTA_BLOCK_IN; q++)
							sum += k->inp[x][b * VTA_BLOCK_IN + q] *
							       k->wgt[w][c * VTA_BLOCK_IN + q];
						int32_t *a = &k->acc[d][b * VTA_BLOCK_OUT + c];
						*a = (int32_t)((uint32_t)*a + (uint32_t)sum);
					}
			}
}

/*
 * Random GEMM and ALU instructions, with input vectors that end in zero
 * pairs or are all zero (the kernels skip those), loop factors of 0 (ACC rows
 * or weights shared along a loop), and register-mode ALU reading rows that
 * earlier micro-ops of the same instruction wrote. Both kernels must leave
 * what the plain loops compute, in ACC, OUT and the stored DRAM bytes.
 */
static void kernels_match_reference(void)
{
	uint64_t seed = 11;
	for (int round = 0; round < 100; round++) {
		static KState k;
		for (int e = 0; e < K_INP; e++) {
			int zero_from = (int)test_rand_range(&seed, 0, 2) ? INP_LANES
					: (int)test_rand_range(&seed, 0, INP_LANES);
			for (int l = 0; l < INP_LANES; l++)
				k.inp[e][l] = l % VTA_BLOCK_IN >= zero_from ? 0 : (int8_t)test_rand_range(&seed, -128, 127);
		}
		for (int e = 0; e < K_WGT; e++)
			for (int l = 0; l < WGT_LANES; l++)
				k.wgt[e][l] = (int8_t)test_rand_range(&seed, -128, 127);
		for (int e = 0; e < K_ACC; e++)
			for (int l = 0; l < LANES; l++)
				k.acc[e][l] = (int32_t)test_rand_range(&seed, -(1ll << 31), (1ll << 31) - 1);

		/* The program: loads, NI compute instructions over one micro-op list,
		 * store of every ACC element. */
		enum { NI = 6 };
		vta_uop_t u[K_UOPS];
		int nu = (int)test_rand_range(&seed, 1, K_UOPS);
		/* odd rounds: micro-ops as the compiler writes them, runs of r with
		 * one weight and evenly stepping rows (the columns of a group), and
		 * GEMMs whose inner loop steps by a whole run */
		int runs = round % 2, r0 = (int)test_rand_range(&seed, 1, 4);
		uint32_t ed = (uint32_t)test_rand_range(&seed, 1, 2), es = (uint32_t)test_rand_range(&seed, 0, 2);
		for (int m = 0; m < nu; m++) {
			u[m].dst_idx = (uint32_t)test_rand_range(&seed, 0, 15);
			u[m].src_idx = (uint32_t)test_rand_range(&seed, 0, 15);
			u[m].wgt_idx = (uint32_t)test_rand_range(&seed, 0, 7);
			if (runs) {
				u[m].dst_idx %= 8, u[m].src_idx %= 8;
				int r = m == 0 ? r0 : (int)test_rand_range(&seed, 1, 4);
				for (int j = 1; j < r && m + 1 < nu; j++, m++)
					u[m + 1] = (vta_uop_t){u[m].dst_idx + ed, u[m].src_idx + es, u[m].wgt_idx};
			} else if (m > 0 && test_rand_range(&seed, 0, 1))
				u[m].dst_idx = u[m - 1].dst_idx; /* taps into one row */
		}
		vta_insn_t ins[NI];
		for (int j = 0; j < NI; j++) {
			int gemm = j < 3 || test_rand_range(&seed, 0, 1);
			vta_insn_t in = compute(gemm ? VTA_OPCODE_GEMM : VTA_OPCODE_ALU, 0, (uint32_t)nu,
						(uint32_t)test_rand_range(&seed, 1, 3), (uint32_t)test_rand_range(&seed, 1, 9));
			in.dst_factor_out = (uint32_t)test_rand_range(&seed, 0, 8);
			in.src_factor_out = (uint32_t)test_rand_range(&seed, 0, 8);
			in.dst_factor_in = (uint32_t)test_rand_range(&seed, 0, 3);
			in.src_factor_in = (uint32_t)test_rand_range(&seed, 0, 2);
			if (gemm) {
				in.wgt_factor_out = (uint32_t)test_rand_range(&seed, 0, 4);
				in.wgt_factor_in = (uint32_t)test_rand_range(&seed, 0, 1) * (uint32_t)test_rand_range(&seed, 1, 2);
				if (runs && test_rand_range(&seed, 0, 1)) {
					in.iter_in = (uint32_t)test_rand_range(&seed, 1, 4);
					in.dst_factor_in = (uint32_t)r0 * ed, in.src_factor_in = (uint32_t)r0 * es;
					in.wgt_factor_in = 0;
				}
			} else {
				in.alu_opcode = (uint32_t)test_rand_range(&seed, 0, VTA_ALU_OPCODE_MUL);
				in.use_imm = (uint32_t)test_rand_range(&seed, 0, 1);
				in.imm = in.alu_opcode == VTA_ALU_OPCODE_SHR ? (int32_t)test_rand_range(&seed, -40, 40)
					: (int32_t)test_rand_range(&seed, -(1 << 15), (1 << 15) - 1);
			}
			ins[j] = in;
		}

		Prog p[2];
		for (int v = 0; v < 2; v++) {
			prog_init(&p[v]);
			vta_fsim_use_simd(p[v].sim, v == 0);
			memcpy(p[v].dram + INP_AT, k.inp, sizeof k.inp);
			memcpy(p[v].dram + WGT_AT, k.wgt, sizeof k.wgt);
			memcpy(p[v].dram + ACC_AT, k.acc, sizeof k.acc);
			for (int m = 0; m < nu; m++)
				put_uop(&p[v], (uint32_t)m, u[m].dst_idx, u[m].src_idx, u[m].wgt_idx);
			vta_insn_t in = load(VTA_MEM_ID_INP, 0, INP_AT, 1, K_INP, K_INP);
			emit(&p[v], &in);
			in = load(VTA_MEM_ID_WGT, 0, WGT_AT, 1, K_WGT, K_WGT);
			in.push_next = 1;
			emit(&p[v], &in);
			in = load(VTA_MEM_ID_UOP, 0, UOP_AT, 1, (uint32_t)nu, (uint32_t)nu);
			in.pop_prev = 1;
			emit(&p[v], &in);
			in = load(VTA_MEM_ID_ACC, 0, ACC_AT, 1, K_ACC, K_ACC);
			emit(&p[v], &in);
			for (int j = 0; j < NI; j++) {
				in = ins[j];
				in.push_next = j == NI - 1;
				emit(&p[v], &in);
			}
			in = store(0, OUT_AT, 1, K_ACC, K_ACC);
			in.pop_prev = 1;
			in.push_prev = 1;
			emit(&p[v], &in);
			in = finish();
			in.pop_next = 1;
			emit(&p[v], &in);
			CHECK_EQ(run(&p[v]), VTA_OK);
		}
		for (int j = 0; j < NI; j++)
			ref_compute(&k, &ins[j], u, nu);
		for (int v = 0; v < 2; v++) {
			int bad_acc = 0, bad_out = 0, bad_dram = 0;
			for (int e = 0; e < K_ACC; e++)
				for (int l = 0; l < LANES; l++) {
					bad_acc += acc_at(&p[v], (uint32_t)e, l) != k.acc[e][l];
					bad_out += out_at(&p[v], (uint32_t)e, l) != (int8_t)k.acc[e][l];
					bad_dram += (int8_t)p[v].dram[OUT_AT + (size_t)e * LANES + (size_t)l] != (int8_t)k.acc[e][l];
				}
			if (bad_acc || bad_out || bad_dram)
				test_fail_(__FILE__, __LINE__, "round %d, %s kernel: %d ACC, %d OUT, %d DRAM lanes differ",
					   round, v == 0 ? "AVX2" : "portable", bad_acc, bad_out, bad_dram);
		}

		/* The host writes INP and WGT through the SRAM view: the next GEMM
		 * sees the new values without a LOAD. */
		for (int v = 0; v < 2; v++) {
			int8_t *inp = (int8_t *)vta_fsim_sram(p[v].sim, VTA_MEM_ID_INP, NULL);
			int8_t *wgt = (int8_t *)vta_fsim_sram(p[v].sim, VTA_MEM_ID_WGT, NULL);
			inp[0] = 3, wgt[0] = 5; /* element 0, lane 0: batch 0, input channel 0 (and out 0) */
			vta_insn_t in = compute(VTA_OPCODE_GEMM, 0, 1, 1, 1);
			in.reset = 1;
			emit(&p[v], &in);
			in = compute(VTA_OPCODE_GEMM, 0, 1, 1, 1);
			emit(&p[v], &in);
			in = finish();
			emit(&p[v], &in);
			put_uop(&p[v], 0, 0, 0, 0);
			in = load(VTA_MEM_ID_UOP, 0, UOP_AT, 1, 1, 1);
			memmove(p[v].dram + 16, p[v].dram, 48);
			vta_insn_word_t w;
			vta_insn_encode(&in, &w, NULL);
			vta_insn_store(&w, p[v].dram);
			p[v].n = 4;
			CHECK_EQ(run(&p[v]), VTA_OK);
			int64_t want = 0;
			for (int q = 0; q < VTA_BLOCK_IN; q++)
				want += inp[q] * wgt[q];
			CHECK_EQ(acc_at(&p[v], 0, 0), want);
			prog_done(&p[v]);
		}
	}
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"gemm_single_tile", gemm_single_tile},
		{"gemm_blocked_loops", gemm_blocked_loops},
		{"gemm_reset_indices", gemm_reset_indices},
		{"gemm_wraps", gemm_wraps},
		{"alu_register", alu_register},
		{"alu_immediate", alu_immediate},
		{"narrowing", narrowing},
		{"alu_loops", alu_loops},
		{"padded_load_all_sides", padded_load_all_sides},
		{"padded_load_feeds_gemm", padded_load_feeds_gemm},
		{"acc8_sign_extends", acc8_sign_extends},
		{"base_registers", base_registers},
		{"zero_size_is_noop", zero_size_is_noop},
		{"strided_store", strided_store},
		{"tokens_persist_across_runs", tokens_persist_across_runs},
		{"double_pop_and_waits", double_pop_and_waits},
		{"errors", errors},
		{"run_arguments", run_arguments},
		{"failed_instruction_writes_nothing", failed_instruction_writes_nothing},
		{"kernels_match_reference", kernels_match_reference},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
