/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Directed tests of the RTL through the C harness: registers, programs for
 * every instruction (padding on all sides, strides, loops, ALU operand edge
 * cases, narrowing, tokens across runs) and every error case. Each program
 * runs on the golden model and on the RTL from power-on; both must return the
 * same code and, on success, the same DRAM bytes and counters (cs_run). Where
 * the result is easy to derive by hand, the stored bytes are also checked
 * against values computed here from the input data.
 */
#include "cosim_lib.h"

#include <vta/vta_regmap.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

enum {
	LANES = VTA_BATCH * VTA_BLOCK_OUT, /* int32 lanes of an ACC element = bytes of OUT */
	OA = CS_OUT_AT / VTA_OUT_ELEM_BYTES, /* first OUT element of the store area */
	ANY = -1,
};

static cs_ctx_t ctx;
static int ready;
static cs_prog_t P; /* the program being built */

/* DRAM timing of every run: the harness defaults, or --latency N and
 * --backpressure 1 [--seed S] on the command line. */
static int opt_latency, opt_bp;
static unsigned long long opt_seed = 1;

static cs_ctx_t *C(void)
{
	if (!ready) {
		CHECK(cs_init(&ctx) == 0);
		if (opt_latency)
			ctx.axi.rd_latency = ctx.axi.wr_latency = (unsigned)opt_latency;
		ctx.axi.backpressure = opt_bp;
		ctx.axi.seed = opt_seed;
		ready = 1;
	}
	return &ctx;
}

/* ------------------------------------------------------------ builders */
static void begin(void) { memset(&P, 0, sizeof P); }
static void emit(vta_insn_t in) { cs_emit(&P, &in); }

static void uop(uint32_t i, uint32_t dst, uint32_t src, uint32_t wgt)
{
	vta_uop_t u = {dst, src, wgt};
	vta_error_t err;
	if (vta_uop_encode(&u, &P.uops[i], &err))
		test_fail_(__FILE__, __LINE__, "uop: %s", err.msg);
	if (i >= P.nuops)
		P.nuops = i + 1;
}

/* first DRAM element of type t's input data */
static uint32_t din(unsigned t) { return CS_DATA_AT / vta_mem_elem_bytes(t); }

static vta_insn_t ld(unsigned t, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride)
{
	return cs_mem(VTA_OPCODE_LOAD, t, sram, dram, y, x, stride);
}
static vta_insn_t st(uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride)
{
	return cs_mem(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, sram, dram, y, x, stride);
}
/* the micro-op table [0, nuops) into UOP SRAM 0.. */
static vta_insn_t ld_uops(void) { return ld(VTA_MEM_ID_UOP, 0, CS_UOP_AT / 4, 1, P.nuops, P.nuops); }

static vta_insn_t loop(unsigned op, uint32_t bgn, uint32_t end, uint32_t out, uint32_t inr)
{
	vta_insn_t in = {0};
	in.opcode = op;
	in.uop_bgn = bgn;
	in.uop_end = end;
	in.iter_out = out;
	in.iter_in = inr;
	return in;
}
static vta_insn_t gemm(uint32_t bgn, uint32_t end, uint32_t out, uint32_t inr)
{
	return loop(VTA_OPCODE_GEMM, bgn, end, out, inr);
}
static vta_insn_t alu(unsigned aop, int use_imm, int32_t imm, uint32_t bgn, uint32_t end, uint32_t out,
		      uint32_t inr)
{
	vta_insn_t in = loop(VTA_OPCODE_ALU, bgn, end, out, inr);
	in.alu_opcode = aop;
	in.use_imm = (uint32_t)use_imm;
	in.imm = use_imm ? imm : 0;
	return in;
}
static vta_insn_t fin(void)
{
	vta_insn_t in = {0};
	in.opcode = VTA_OPCODE_FINISH;
	return in;
}
/* compute-module token no-op (LOAD UOP, x_size 0) */
static vta_insn_t cnop(void) { return ld(VTA_MEM_ID_UOP, 0, 0, 0, 0, 0); }

/* A last STORE that pushes to compute, whose FINISH pops it (s2g). */
static void store_and_finish_nopop(vta_insn_t s)
{
	s.push_prev = 1;
	emit(s);
	vta_insn_t f = fin();
	f.pop_next = 1;
	emit(f);
}

/* Compute results -> store: g2s token to the STORE, s2g back to FINISH. */
static void store_and_finish(vta_insn_t s)
{
	vta_insn_t n = cnop();
	n.push_next = 1;
	emit(n);
	s.pop_prev = 1;
	store_and_finish_nopop(s);
}

/* Run P on both models; they must agree, and the golden code must be want
 * (any code when want is ANY). */
static void go_(int want, int line)
{
	int code = -1;
	if (cs_run(C(), &P, &code))
		test_fail_(__FILE__, line, "models differ: %s", C()->why);
	else if (want != ANY && code != want)
		test_fail_(__FILE__, line, "code %d, expected %d", code, want);
}
#define go(want) go_(want, __LINE__)

/* ------------------------------------------------------------ hand references */
static const uint8_t *tmpl(void) { return C()->data; }
static const uint8_t *dram(void) { return vta_fsim_dram(C()->fsim); }

static int32_t rd32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}
/* lane l of ACC element e of the input data */
static int32_t acc_in(uint32_t e, unsigned l)
{
	return rd32(tmpl() + (size_t)(din(VTA_MEM_ID_ACC) + e) * VTA_ACC_ELEM_BYTES + 4 * l);
}
/* dot product of INP element ie (batch row b) and WGT element we (output o) of the input data */
static int32_t dot(uint32_t ie, uint32_t we, unsigned b, unsigned o)
{
	const int8_t *x = (const int8_t *)tmpl() + (size_t)(din(VTA_MEM_ID_INP) + ie) * VTA_INP_ELEM_BYTES;
	const int8_t *w = (const int8_t *)tmpl() + (size_t)(din(VTA_MEM_ID_WGT) + we) * VTA_WGT_ELEM_BYTES;
	int32_t s = 0;
	for (unsigned i = 0; i < VTA_BLOCK_IN; i++)
		s += x[b * VTA_BLOCK_IN + i] * w[o * VTA_BLOCK_IN + i];
	return s;
}
/* byte of lane l of stored OUT element e (DRAM element OA + e) */
static int out_byte(uint32_t e, unsigned l) { return dram()[(size_t)(OA + e) * VTA_OUT_ELEM_BYTES + l]; }

static void check_out_(uint32_t e, unsigned l, int32_t want, int line)
{
	int got = out_byte(e, l);
	if (got != (int)((uint32_t)want & 0xff))
		test_fail_(__FILE__, line, "OUT element %u lane %u: 0x%02x, expected 0x%02x", e, l, got,
			   (unsigned)want & 0xff);
}
#define check_out(e, l, want) check_out_(e, l, want, __LINE__)

/* ------------------------------------------------------------ registers */
static void test_registers(void)
{
	vta_rtlsim_t *r = C()->rtl;
	CHECK_EQ(vta_rtlsim_reg_read(r, VTA_REG_CONFIG_ID), VTA_CONFIG_ID);
	unsigned ma, mi, pa;
	CHECK_EQ(sscanf(VTA_HW_VER, "%u.%u.%u", &ma, &mi, &pa), 3);
	CHECK_EQ(vta_rtlsim_reg_read(r, VTA_REG_HW_VERSION), ma << 16 | mi << 8 | pa);
	vta_rtlsim_reg_write(r, VTA_REG_LOAD_INP_ADDR, 0x12345678);
	CHECK_EQ(vta_rtlsim_reg_read(r, VTA_REG_LOAD_INP_ADDR), 0x12345678);
	vta_rtlsim_reg_write(r, VTA_REG_LOAD_INP_ADDR, 0);
	CHECK(vta_rtlsim_reg_read(r, VTA_REG_STATUS) & VTA_STATUS_IDLE);
}

/* ------------------------------------------------------------ LOAD */
/*
 * LOAD ACC / ACC_8BIT: a 2x3 block, row stride 5, padded y 1/2 and x 2/1
 * (a 5x6 block) at SRAM 3; ACC_8BIT then shifted right by 4 (the sign
 * extension shows in bits 7..4). OUT 0..39 stored: zero except the data.
 */
static void test_load_acc_padded(void)
{
	for (int acc8 = 0; acc8 < 2; acc8++) {
		unsigned t = acc8 ? VTA_MEM_ID_ACC_8BIT : VTA_MEM_ID_ACC;
		begin();
		uop(0, 3, 3, 0);
		emit(ld_uops());
		vta_insn_t in = ld(t, 3, din(t) + 1, 2, 3, 5);
		in.y_pad_0 = 1; in.y_pad_1 = 2; in.x_pad_0 = 2; in.x_pad_1 = 1;
		emit(in);
		if (acc8) {
			in = alu(VTA_ALU_OPCODE_SHR, 1, 4, 0, 1, 30, 1);
			in.dst_factor_out = in.src_factor_out = 1;
			emit(in);
		}
		store_and_finish(st(0, OA, 1, 40, 40));
		go(0);
		for (uint32_t e = 0; e < 40; e++)
			for (unsigned l = 0; l < LANES; l++) {
				int32_t v = 0;
				uint32_t r = (e - 3) / 6, c = (e - 3) % 6;
				if (e >= 3 && e < 33 && r >= 1 && r < 3 && c >= 2 && c < 5) {
					uint32_t de = 1 + (r - 1) * 5 + (c - 2);
					if (acc8)
						v = ((const int8_t *)tmpl())[(size_t)(din(t) + de) *
									     VTA_ACC8_ELEM_BYTES + l] >> 4;
					else
						v = acc_in(de, l);
				}
				check_out(e, l, v);
			}
	}
}

/*
 * LOAD UOP with padding on all sides: a 2x2 block of micro-ops (dst 1..4)
 * padded to 4x4; the 12 padding micro-ops are {0, 0, 0}. ALU ADD #1 over all
 * 16 adds 12 to ACC 0, back to back (sequential semantics), 1 to ACC 1..4.
 */
static void test_load_uop_padded(void)
{
	begin();
	for (uint32_t i = 0; i < 4; i++)
		uop(i, i + 1, i + 1, 0);
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 8, 8));
	vta_insn_t in = ld(VTA_MEM_ID_UOP, 0, CS_UOP_AT / 4, 2, 2, 2);
	in.y_pad_0 = in.y_pad_1 = in.x_pad_0 = in.x_pad_1 = 1;
	emit(in);
	emit(alu(VTA_ALU_OPCODE_ADD, 1, 1, 0, 16, 1, 1));
	store_and_finish(st(0, OA, 1, 8, 8));
	go(0);
	for (uint32_t e = 0; e < 8; e++)
		for (unsigned l = 0; l < LANES; l++)
			check_out(e, l, acc_in(e, l) + (e == 0 ? 12 : e <= 4 ? 1 : 0));
}

/*
 * LOAD INP and WGT with padding on all sides, strided; GEMM reads padded and
 * data elements. INP: 2 rows of 2 (stride 3) padded y 1/1, x 1/1 -> 4x4 at
 * SRAM 0 (data at 5, 6, 9, 10 = DRAM 0, 1, 3, 4). WGT: 1x2 padded x 1/1,
 * y 1/0 -> 2x4 at SRAM 2 (data at 7, 8). OUT e = INP e . WGT 7 for e < 16,
 * OUT 16 = INP 5 . WGT 6 (padding: 0), OUT 17 = INP 9 . WGT 8.
 */
static void test_load_inp_wgt_padded(void)
{
	begin();
	for (uint32_t e = 0; e < 16; e++)
		uop(e, e, e, 7);
	uop(16, 16, 5, 6);
	uop(17, 17, 9, 8);
	emit(ld_uops());
	vta_insn_t in = ld(VTA_MEM_ID_INP, 0, din(VTA_MEM_ID_INP), 2, 2, 3);
	in.y_pad_0 = in.y_pad_1 = in.x_pad_0 = in.x_pad_1 = 1;
	emit(in);
	in = ld(VTA_MEM_ID_WGT, 2, din(VTA_MEM_ID_WGT), 1, 2, 2);
	in.y_pad_0 = 1; in.x_pad_0 = in.x_pad_1 = 1;
	in.push_next = 1;
	emit(in);
	in = gemm(0, 18, 1, 1);
	in.reset = 1;
	in.pop_prev = 1;
	emit(in);
	emit(gemm(0, 18, 1, 1));
	store_and_finish(st(0, OA, 1, 18, 18));
	go(0);
	static const int inp_data[16] = {-1, -1, -1, -1, -1, 0, 1, -1, -1, 3, 4, -1, -1, -1, -1, -1};
	for (uint32_t e = 0; e < 18; e++)
		for (unsigned b = 0; b < VTA_BATCH; b++)
			for (unsigned o = 0; o < VTA_BLOCK_OUT; o++) {
				int32_t v = 0;
				if (e < 16 && inp_data[e] >= 0)
					v = dot((uint32_t)inp_data[e], 0, b, o);
				if (e == 17)
					v = dot(3, 1, b, o);
				check_out(e, b * VTA_BLOCK_OUT + o, v);
			}
}

/* Every memory type with padding, strides and x_size 0, golden model only:
 * a sweep of pad/stride shapes, each loaded then consumed and stored. */
static void test_load_shapes(void)
{
	static const uint8_t shape[][6] = {
		/* y x stride yp0 yp1 xp0 (xp1 = yp0) */
		{1, 1, 1, 0, 0, 0}, {3, 2, 7, 2, 1, 3}, {2, 5, 5, 0, 3, 0},
		{1, 4, 4, 1, 0, 2}, {4, 1, 2, 0, 0, 1}, {0, 3, 3, 1, 1, 1},
	};
	for (unsigned s = 0; s < sizeof shape / sizeof shape[0]; s++)
		for (unsigned t = 0; t <= VTA_MEM_ID_ACC_8BIT; t++) {
			if (t == VTA_MEM_ID_OUT)
				continue;
			begin();
			for (uint32_t i = 0; i < 24; i++)
				uop(i, i, i % 24, i % 8);
			emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC) + 40, 1, 24, 24));
			emit(ld_uops());
			emit(ld(VTA_MEM_ID_INP, 0, din(VTA_MEM_ID_INP) + 50, 1, 24, 24));
			vta_insn_t in = ld(VTA_MEM_ID_WGT, 0, din(VTA_MEM_ID_WGT) + 20, 1, 8, 8);
			in.push_next = 1;
			emit(in);
			uint32_t dram = t == VTA_MEM_ID_UOP ? CS_UOP_AT / 4 + 2 : din(t) + 3 * s;
			in = ld(t, 1, dram, shape[s][0], shape[s][1], shape[s][2]);
			in.y_pad_0 = shape[s][3];
			in.y_pad_1 = shape[s][4];
			in.x_pad_0 = shape[s][5];
			in.x_pad_1 = shape[s][3];
			int on_load = t == VTA_MEM_ID_INP || t == VTA_MEM_ID_WGT;
			if (on_load) {
				in.pop_next = 1;
				in.push_next = 1;
				vta_insn_t n = cnop();
				n.pop_prev = 1;
				n.push_prev = 1;
				emit(n);
			}
			emit(in);
			in = gemm(0, 24, 1, 1);
			in.pop_prev = 1;
			emit(in);
			if (t == VTA_MEM_ID_UOP) /* consume the loaded micro-ops too */
				emit(alu(VTA_ALU_OPCODE_ADD, 1, 3, 0, 24, 1, 1));
			store_and_finish(st(0, OA, 1, 24, 24));
			go(0);
		}
}

/* x_size = 0 is a token-only no-op for every memory type (6 and 7 too), the
 * other fields ignored; the tokens still flow. */
static void test_load_x0_noop(void)
{
	begin();
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 4, 4));
	for (unsigned t = 0; t < 8; t++) {
		vta_insn_t in = ld(t, 0xffff, 0xfffffff0u, 3, 0, 0);
		in.y_pad_0 = in.x_pad_1 = 15;
		if (t == VTA_MEM_ID_INP || t == VTA_MEM_ID_WGT) {
			in.pop_next = 1;
			in.push_next = 1;
			vta_insn_t n = cnop();
			n.push_prev = 1;
			emit(n);
			emit(in);
			n = cnop();
			n.pop_prev = 1;
			emit(n);
		} else {
			emit(in);
		}
	}
	vta_insn_t s = st(0xffff, 0xfffffff0u, 5, 0, 0); /* STORE x_size 0 */
	s.pop_prev = 1;
	s.push_prev = 1;
	vta_insn_t n = cnop();
	n.push_next = 1;
	emit(n);
	emit(s);
	n = cnop();
	n.pop_next = 1;
	emit(n);
	store_and_finish(st(0, OA, 1, 4, 4));
	go(0);
	for (uint32_t e = 0; e < 4; e++)
		for (unsigned l = 0; l < LANES; l++)
			check_out(e, l, acc_in(e, l));
	/* STORE x_size 0 with padding: a no-op too (the pad check needs x_size != 0) */
	begin();
	s = st(0, OA, 1, 0, 0);
	s.x_pad_0 = 1;
	s.push_prev = 1;
	emit(s);
	vta_insn_t f = fin();
	f.pop_next = 1;
	emit(f);
	go(0);
}

/* Base registers: every DRAM access is base + dram_base * element size. */
static void test_base_registers(void)
{
	begin();
	P.bases = (vta_bases_t){0x1000, 0x2000, 0x3000, 0x5000, 0x7000};
	uop(0, 0, 0, 0);
	uop(1, 1, 1, 1);
	/* the micro-ops lie at CS_UOP_AT: dram_base counts from the UOP base */
	emit(ld(VTA_MEM_ID_UOP, 0, (CS_UOP_AT - 0x1000) / 4, 1, 2, 2));
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 2, 2));
	emit(ld(VTA_MEM_ID_INP, 0, din(VTA_MEM_ID_INP), 1, 2, 2));
	vta_insn_t in = ld(VTA_MEM_ID_WGT, 0, din(VTA_MEM_ID_WGT), 1, 2, 2);
	in.push_next = 1;
	emit(in);
	in = gemm(0, 2, 1, 1);
	in.pop_prev = 1;
	emit(in);
	store_and_finish(st(0, OA, 1, 2, 2));
	go(0);
	/* out e = acc(e at +0x5000) + inp(e at +0x2000) . wgt(e at +0x3000), stored at +0x7000 */
	for (uint32_t e = 0; e < 2; e++)
		for (unsigned b = 0; b < VTA_BATCH; b++)
			for (unsigned o = 0; o < VTA_BLOCK_OUT; o++) {
				unsigned l = b * VTA_BLOCK_OUT + o;
				int32_t v = (int32_t)((uint32_t)acc_in(e + 0x5000 / VTA_ACC_ELEM_BYTES, l) +
						      (uint32_t)dot(e + 0x2000 / VTA_INP_ELEM_BYTES,
								    e + 0x3000 / VTA_WGT_ELEM_BYTES, b, o));
				int got = dram()[0x7000 + (size_t)(OA + e) * VTA_OUT_ELEM_BYTES + l];
				CHECK_EQ(got, (int)((uint32_t)v & 0xff));
			}
}

/* ------------------------------------------------------------ GEMM */
/* Both loop levels with every factor, reset then accumulate (golden model). */
static void test_gemm_loops(void)
{
	begin();
	uop(0, 0, 0, 0);
	uop(1, 1, 2, 3);
	uop(2, 5, 1, 2);
	emit(ld_uops());
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 48, 48));
	emit(ld(VTA_MEM_ID_INP, 0, din(VTA_MEM_ID_INP), 1, 48, 48));
	vta_insn_t in = ld(VTA_MEM_ID_WGT, 0, din(VTA_MEM_ID_WGT), 1, 48, 48);
	in.push_next = 1;
	emit(in);
	in = gemm(0, 3, 2, 3); /* reset: ACC 0,1,5 + 12*o + 4*i */
	in.reset = 1;
	in.dst_factor_out = 12; in.dst_factor_in = 4;
	in.src_factor_out = 40; in.wgt_factor_out = 40; /* ignored by reset */
	in.pop_prev = 1;
	emit(in);
	in = gemm(0, 3, 3, 4);
	in.dst_factor_out = 11; in.dst_factor_in = 3;
	in.src_factor_out = 7; in.src_factor_in = 2;
	in.wgt_factor_out = 5; in.wgt_factor_in = 1;
	emit(in);
	emit(gemm(1, 3, 0, 5)); /* zero iterations */
	emit(gemm(2, 2, 4, 5));
	emit(gemm(3, 1, 4, 5));
	in = gemm(1, 2, 2, 2); /* accumulate with reset=0, all factors zero */
	emit(in);
	store_and_finish(st(0, OA, 1, 48, 48));
	go(0);
}

/* Back-to-back micro-ops on one ACC entry see each other's result: four
 * uops into ACC 0, repeated 3 times by the inner loop (dst factor 0), after a
 * reset; ALU register mode ACC 1 += ACC 1 four times (x16). */
static void test_same_acc_sequential(void)
{
	begin();
	for (uint32_t k = 0; k < 4; k++)
		uop(k, 0, k, k);
	uop(4, 1, 1, 0);
	emit(ld_uops());
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 2, 2));
	emit(ld(VTA_MEM_ID_INP, 0, din(VTA_MEM_ID_INP), 1, 4, 4));
	vta_insn_t in = ld(VTA_MEM_ID_WGT, 0, din(VTA_MEM_ID_WGT), 1, 4, 4);
	in.push_next = 1;
	emit(in);
	in = gemm(0, 1, 1, 1);
	in.reset = 1;
	in.pop_prev = 1;
	emit(in);
	emit(gemm(0, 4, 1, 3));
	emit(alu(VTA_ALU_OPCODE_ADD, 0, 0, 4, 5, 2, 2));
	store_and_finish(st(0, OA, 1, 2, 2));
	go(0);
	for (unsigned b = 0; b < VTA_BATCH; b++)
		for (unsigned o = 0; o < VTA_BLOCK_OUT; o++) {
			int32_t s = 0;
			for (uint32_t k = 0; k < 4; k++)
				s += dot(k, k, b, o);
			check_out(0, b * VTA_BLOCK_OUT + o, 3 * s);
			check_out(1, b * VTA_BLOCK_OUT + o, (int32_t)((uint32_t)acc_in(1, b * VTA_BLOCK_OUT + o) * 16));
		}
}

/* ------------------------------------------------------------ ALU */
/*
 * Every ALU op with immediates at the edges (SHR: negative and >= 32
 * amounts) and in register mode (random 32-bit operands: SHR by negative
 * amounts). The result is stored (bits 7..0), shifted right by 16 and stored
 * again (bits 23..16), both checked against test_ref_alu.
 */
static void alu_case(unsigned op, int use_imm, int32_t imm)
{
	begin();
	for (uint32_t i = 0; i < 4; i++)
		uop(i, i, i + 4, 0);
	emit(ld_uops());
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC) + 7, 1, 8, 8));
	emit(alu(op, use_imm, imm, 0, 4, 1, 1));
	vta_insn_t n = cnop();
	n.push_next = 1;
	emit(n);
	vta_insn_t s = st(0, OA, 1, 4, 4);
	s.pop_prev = 1;
	s.push_prev = 1;
	emit(s);
	vta_insn_t in = alu(VTA_ALU_OPCODE_SHR, 1, 16, 0, 4, 1, 1);
	in.pop_next = 1;
	emit(in);
	store_and_finish(st(0, OA + 4, 1, 4, 4));
	go(0);
	for (uint32_t e = 0; e < 4; e++)
		for (unsigned l = 0; l < LANES; l++) {
			int32_t r = test_ref_alu(op, acc_in(7 + e, l), use_imm ? imm : acc_in(7 + e + 4, l));
			check_out(e, l, r);
			check_out(4 + e, l, r >> 16);
		}
}

static void test_alu_ops(void)
{
	static const int32_t imms[] = {-32768, 32767, -1, 0, 1, 5, 128, -129};
	static const int32_t shifts[] = {-32768, -33, -32, -31, -8, -1, 0, 1, 7, 31, 32, 33, 32767};
	for (unsigned op = 0; op <= VTA_ALU_OPCODE_MUL; op++) {
		alu_case(op, 0, 0);
		if (op == VTA_ALU_OPCODE_SHR)
			for (unsigned k = 0; k < sizeof shifts / sizeof shifts[0]; k++)
				alu_case(op, 1, shifts[k]);
		else
			for (unsigned k = 0; k < sizeof imms / sizeof imms[0]; k++)
				alu_case(op, 1, imms[k]);
	}
}

/* ALU loops with both levels and all factors, register and immediate (golden). */
static void test_alu_loops(void)
{
	for (unsigned op = 0; op <= VTA_ALU_OPCODE_MUL; op++) {
		begin();
		uop(0, 0, 30, 0);
		uop(1, 2, 31, 0);
		emit(ld_uops());
		emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 64, 64));
		vta_insn_t in = alu(op, 0, 0, 0, 2, 3, 4);
		in.dst_factor_out = 9; in.dst_factor_in = 1;
		in.src_factor_out = 3; in.src_factor_in = 5;
		emit(in);
		in = alu(op, 1, op == VTA_ALU_OPCODE_SHR ? -3 : 77, 0, 2, 2, 3);
		in.dst_factor_out = 5; in.dst_factor_in = 2;
		in.src_factor_out = 8; in.src_factor_in = 8; /* read (range) but not used */
		emit(in);
		store_and_finish(st(0, OA, 1, 64, 64));
		go(0);
	}
}

/* Narrowing keeps the low 8 bits: 128 -> -128, 255 -> -1, 256 -> 0, -129 -> 127. */
static void test_narrowing(void)
{
	static const int32_t v[] = {127, 128, 255, 256, -128, -129, 32767, -32768};
	begin();
	uop(0, 0, 0, 0);
	for (uint32_t i = 0; i < 8; i++)
		uop(1 + i, i, i, 0);
	emit(ld_uops());
	vta_insn_t in = gemm(0, 1, 8, 1); /* reset ACC 0..7 */
	in.reset = 1;
	in.dst_factor_out = 1;
	emit(in);
	for (uint32_t i = 0; i < 8; i++)
		emit(alu(VTA_ALU_OPCODE_ADD, 1, v[i], 1 + i, 2 + i, 1, 1));
	store_and_finish(st(0, OA, 1, 8, 8));
	go(0);
	for (uint32_t i = 0; i < 8; i++)
		for (unsigned l = 0; l < LANES; l++)
			check_out(i, l, v[i]);
	CHECK_EQ((int8_t)out_byte(1, 0), -128);
}

/* ------------------------------------------------------------ STORE, FINISH, tokens */
/* STORE 3 rows of 2, DRAM stride 5: the gaps keep their bytes. */
static void test_store_strided(void)
{
	begin();
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 9, 9));
	store_and_finish(st(2, OA, 3, 2, 5));
	go(0);
	for (uint32_t e = 0; e < 15; e++)
		for (unsigned l = 0; l < LANES; l++) {
			uint32_t r = e / 5, c = e % 5;
			size_t at = (size_t)(OA + e) * VTA_OUT_ELEM_BYTES + l;
			if (c < 2)
				check_out(e, l, acc_in(2 + 2 * r + c, l));
			else
				CHECK_EQ(dram()[at], tmpl()[at]);
		}
}

/* FINISH ends the run: compute instructions queued after it never execute,
 * so the STORE waiting for their token never writes. */
static void test_finish(void)
{
	begin();
	uop(0, 0, 0, 0);
	emit(ld_uops());
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 2, 2));
	store_and_finish(st(0, OA, 1, 2, 2));
	emit(alu(VTA_ALU_OPCODE_ADD, 1, 1, 0, 1, 1, 1));
	vta_insn_t n = cnop();
	n.push_next = 1;
	emit(n);
	vta_insn_t s = st(0, OA + 2, 1, 2, 2);
	s.pop_prev = 1;
	emit(s);
	emit(fin());
	/* the RTL counts instructions when fetch dispatches them, the golden model
	 * when they execute (docs/rtl.md, Counters): only those differ here */
	int code = -1;
	if (cs_run(C(), &P, &code) && strncmp(C()->why, "counter insns", 13))
		test_fail_(__FILE__, __LINE__, "models differ: %s", C()->why);
	CHECK_EQ(code, 0);
	CHECK(!memcmp(vta_fsim_dram(C()->fsim), vta_rtlsim_dram(C()->rtl), CS_DRAM));
	for (uint32_t e = 0; e < 2; e++)
		for (unsigned l = 0; l < LANES; l++)
			check_out(e, l, acc_in(e, l));
	for (size_t i = 0; i < 2 * VTA_OUT_ELEM_BYTES; i++) {
		size_t at = (size_t)(OA + 2) * VTA_OUT_ELEM_BYTES + i;
		CHECK_EQ(dram()[at], tmpl()[at]);
	}
}

/* Put program q at byte 0x2000 of both DRAMs and run it without a reset. */
static void run_again_(const cs_prog_t *q, int want, int line)
{
	enum { AT = 0x2000 };
	vta_error_t ef, er;
	for (uint32_t i = 0; i < q->n; i++) {
		vta_insn_store(&q->insn[i], vta_fsim_dram(C()->fsim) + AT + 16 * (size_t)i);
		vta_insn_store(&q->insn[i], vta_rtlsim_dram(C()->rtl) + AT + 16 * (size_t)i);
	}
	int f = vta_fsim_run(C()->fsim, AT, q->n, &ef);
	int r = vta_rtlsim_run(C()->rtl, AT, q->n, &er);
	if (f != r)
		test_fail_(__FILE__, line, "golden %d (%s) vs rtl %d (%s)", f, f ? ef.msg : "ok", r,
			   r ? er.msg : "ok");
	if (f != want)
		test_fail_(__FILE__, line, "code %d, expected %d", f, want);
	if (!f && memcmp(vta_fsim_dram(C()->fsim), vta_rtlsim_dram(C()->rtl), CS_DRAM))
		test_fail_(__FILE__, line, "DRAM differs after a second run");
}
#define run_again(q, want) run_again_(q, want, __LINE__)

/* Tokens and SRAM contents persist from one run to the next: run 1 loads ACC
 * and leaves a g2s token; run 2 stores (popping it); run 3 pops again and
 * deadlocks on both models. */
static void test_tokens_persist(void)
{
	static cs_prog_t q;
	begin();
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 3, 3));
	vta_insn_t n = cnop();
	n.push_next = 1;
	emit(n);
	emit(fin());
	go(0);
	memset(&q, 0, sizeof q);
	vta_insn_t s = st(0, OA, 1, 3, 3);
	s.pop_prev = 1;
	s.push_prev = 1;
	cs_emit(&q, &s);
	vta_insn_t f = fin();
	f.pop_next = 1;
	cs_emit(&q, &f);
	run_again(&q, 0);
	for (uint32_t e = 0; e < 3; e++)
		for (unsigned l = 0; l < LANES; l++)
			check_out(e, l, acc_in(e, l));
	run_again(&q, VTA_EDEADLOCK);
}

/* Instructions still queued when FINISH executes are dropped, also those
 * waiting for a token: run 1 leaves a STORE waiting for g2s; run 2 pushes a
 * g2s token that the dropped STORE must not take (no DRAM write); run 3
 * stores with that token. */
static void test_finish_drops_queued(void)
{
	static cs_prog_t q;
	begin();
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 2, 2));
	emit(fin());
	vta_insn_t s = st(0, OA, 1, 2, 2);
	s.pop_prev = 1;
	emit(s);
	int code = -1;
	if (cs_run(C(), &P, &code) && strncmp(C()->why, "counter insns", 13))
		test_fail_(__FILE__, __LINE__, "models differ: %s", C()->why);
	CHECK_EQ(code, 0);
	memset(&q, 0, sizeof q);
	vta_insn_t n = cnop();
	n.push_next = 1;
	cs_emit(&q, &n);
	vta_insn_t f = fin();
	cs_emit(&q, &f);
	run_again(&q, 0);
	for (size_t i = 0; i < 2 * VTA_OUT_ELEM_BYTES; i++)
		CHECK_EQ(dram()[(size_t)OA * VTA_OUT_ELEM_BYTES + i], tmpl()[(size_t)OA * VTA_OUT_ELEM_BYTES + i]);
	memset(&q, 0, sizeof q);
	s = st(0, OA, 1, 2, 2);
	s.pop_prev = 1;
	s.push_prev = 1;
	cs_emit(&q, &s);
	f.pop_next = 1;
	cs_emit(&q, &f);
	run_again(&q, 0);
	for (uint32_t e = 0; e < 2; e++)
		for (unsigned l = 0; l < LANES; l++)
			check_out(e, l, acc_in(e, l));
}

/* ------------------------------------------------------------ control registers */
/*
 * Soft reset, interrupts, error registers, watchdog, start while busy. The
 * RTL is driven register by register here (as a board driver does); the reset
 * pin is used only at the power-up of each test, every later recovery is the
 * soft reset. After each recovery a reference program that uses all three
 * modules and all four token queues must give the golden model's DRAM.
 */
static vta_rtlsim_t *R(void) { return C()->rtl; }
static uint32_t reg(uint32_t off) { return vta_rtlsim_reg_read(R(), off); }
static void wreg(uint32_t off, uint32_t v) { vta_rtlsim_reg_write(R(), off, v); }

static void power_up(void)
{
	vta_error_t e;
	CHECK(vta_rtlsim_reset(R(), &e) == 0);
}

/* Start the stream of n instructions at addr (base registers 0), no wait. */
static void raw_start(uint64_t addr, uint32_t n)
{
	static const uint32_t bases[] = {VTA_REG_LOAD_INP_ADDR, VTA_REG_LOAD_WGT_ADDR,
					 VTA_REG_COMPUTE_UOP_ADDR, VTA_REG_COMPUTE_BIAS_ADDR,
					 VTA_REG_STORE_OUT_ADDR};
	for (unsigned i = 0; i < sizeof bases / sizeof bases[0]; i++) {
		wreg(bases[i], 0);
		wreg(bases[i] + 4, 0);
	}
	wreg(VTA_REG_FETCH_INSN_ADDR, (uint32_t)addr);
	wreg(VTA_REG_FETCH_INSN_ADDR_HI, (uint32_t)(addr >> 32));
	wreg(VTA_REG_FETCH_INSN_COUNT, n);
	wreg(VTA_REG_FETCH_CTRL, 1);
}

/* Clock until STATUS shows DONE or an error, at most max cycles; STATUS. */
static uint32_t raw_wait(uint64_t max)
{
	uint64_t t0 = vta_rtlsim_cycle(R());
	uint32_t st;
	while (!((st = reg(VTA_REG_STATUS)) & (VTA_STATUS_DONE | VTA_STATUS_ERR_MASK)) &&
	       vta_rtlsim_cycle(R()) - t0 < max)
		vta_rtlsim_step(R(), 32);
	return st;
}

/* Soft reset; afterwards the device must look as after power-up. */
static void soft_reset_(int line)
{
	vta_error_t e;
	if (vta_rtlsim_soft_reset(R(), 200000, &e))
		test_fail_(__FILE__, line, "%s", e.msg);
	uint32_t st = reg(VTA_REG_STATUS);
	if (st != (VTA_STATUS_IDLE | VTA_STATUS_RESET_DONE))
		test_fail_(__FILE__, line, "STATUS 0x%x after the soft reset", st);
	if (reg(VTA_REG_TOKENS) || reg(VTA_REG_TOKENS2))
		test_fail_(__FILE__, line, "tokens 0x%x 0x%x after the soft reset", reg(VTA_REG_TOKENS),
			   reg(VTA_REG_TOKENS2));
	if (reg(VTA_REG_ERR_INFO) || reg(VTA_REG_ERR_INSN) != 0xFFFFFFFFu || reg(VTA_REG_FETCH_ISR) ||
	    vta_rtlsim_counter(R(), VTA_REG_CNT_CYCLES) || vta_rtlsim_counter(R(), VTA_REG_CNT_INSNS))
		test_fail_(__FILE__, line, "error registers, ISR or counters not cleared");
	if (vta_rtlsim_axi_pending(R()))
		test_fail_(__FILE__, line, "%u AXI bursts abandoned", vta_rtlsim_axi_pending(R()));
}
#define soft_reset() soft_reset_(__LINE__)

/* The reference program: LOAD UOP/ACC/INP/WGT, GEMM, a second INP load
 * behind a g2l token, GEMM, ALU, STORE; l2g, g2l, g2s and s2g all used. */
static void reference_program(void)
{
	begin();
	for (uint32_t e = 0; e < 8; e++)
		uop(e, e, e, e % 4);
	emit(ld_uops());
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 8, 8));
	emit(ld(VTA_MEM_ID_INP, 0, din(VTA_MEM_ID_INP), 1, 8, 8));
	vta_insn_t in = ld(VTA_MEM_ID_WGT, 0, din(VTA_MEM_ID_WGT), 1, 4, 4);
	in.push_next = 1;
	emit(in);
	in = gemm(0, 8, 1, 1);
	in.pop_prev = 1;
	in.push_prev = 1;
	emit(in);
	in = ld(VTA_MEM_ID_INP, 0, din(VTA_MEM_ID_INP) + 8, 1, 8, 8);
	in.pop_next = 1;
	in.push_next = 1;
	emit(in);
	in = gemm(0, 8, 1, 1);
	in.pop_prev = 1;
	emit(in);
	emit(alu(VTA_ALU_OPCODE_ADD, 1, 3, 0, 8, 1, 1));
	store_and_finish(st(0, OA, 1, 8, 8));
}

/* The reference program on the RTL as it is now (no power-on) against the
 * golden model from reset: same code (0), DRAM bytes and counters. */
static void check_next_(int line)
{
	reference_program();
	int code = -1;
	if (cs_run_warm(C(), &P, &code))
		test_fail_(__FILE__, line, "next program: %s", C()->why);
	else if (code)
		test_fail_(__FILE__, line, "next program: golden code %d", code);
}
#define check_next() check_next_(__LINE__)

/* A long program: WGT loads as large as the data area (long DMA requests of
 * many bursts) beside a 100,000-micro-op GEMM. */
static void long_program(void)
{
	begin();
	uint32_t n = (CS_OUT_AT - CS_DATA_AT) / VTA_WGT_ELEM_BYTES;
	if (n > VTA_WGT_BUFF_DEPTH)
		n = VTA_WGT_BUFF_DEPTH;
	uop(0, 0, 0, 0);
	emit(ld_uops());
	emit(gemm(0, 1, 1000, 100));
	for (int k = 0; k < 4; k++)
		emit(ld(VTA_MEM_ID_WGT, 0, din(VTA_MEM_ID_WGT), 1, n, n));
	emit(fin());
}

/* HW_VERSION, CONTROL and the power-on values; the soft reset of an idle
 * device keeps the configuration registers and clears RESET_DONE on W1C. */
static void test_soft_reset_idle(void)
{
	power_up();
	CHECK_EQ(reg(VTA_REG_STATUS), VTA_STATUS_IDLE | VTA_STATUS_RESET_DONE);
	CHECK_EQ(reg(VTA_REG_CONTROL), 0);
	CHECK_EQ(reg(VTA_REG_ERR_INSN), 0xFFFFFFFFu);
	CHECK_EQ(reg(VTA_REG_WATCHDOG), 65536);
	wreg(VTA_REG_WATCHDOG, 1234);
	wreg(VTA_REG_FETCH_GIE, VTA_GIE_ENABLE);
	wreg(VTA_REG_FETCH_IER, VTA_IRQ_ERROR);
	wreg(VTA_REG_LOAD_WGT_ADDR, 0x5670);
	wreg(VTA_REG_STATUS, VTA_STATUS_RESET_DONE);
	CHECK_EQ(reg(VTA_REG_STATUS), VTA_STATUS_IDLE);
	/* CONTROL reads 1 while the reset runs (an idle device's takes a few
	 * cycles: under AXI-Lite back-pressure it may be over before the reads) */
	wreg(VTA_REG_CONTROL, VTA_CONTROL_SOFT_RESET);
	if (!C()->axi.backpressure) {
		CHECK_EQ(reg(VTA_REG_CONTROL), VTA_CONTROL_SOFT_RESET);
		CHECK(reg(VTA_REG_STATUS) & VTA_STATUS_RESETTING);
	}
	vta_rtlsim_step(R(), 20);
	CHECK_EQ(reg(VTA_REG_CONTROL), 0);
	soft_reset();
	CHECK_EQ(reg(VTA_REG_WATCHDOG), 1234);
	CHECK_EQ(reg(VTA_REG_FETCH_GIE), VTA_GIE_ENABLE);
	CHECK_EQ(reg(VTA_REG_FETCH_IER), VTA_IRQ_ERROR);
	CHECK_EQ(reg(VTA_REG_LOAD_WGT_ADDR), 0x5670);
	wreg(VTA_REG_FETCH_GIE, 0);
	wreg(VTA_REG_FETCH_IER, 0);
	check_next();
}

/* A timeout: the host gives up on a long program while DMA bursts are in
 * flight. The soft reset lets them complete (none is abandoned), a start
 * written during it is refused, and the next program is right. */
static void test_soft_reset_midrun(void)
{
	power_up();
	long_program();
	cs_prepare(C(), &P, NULL);
	raw_start(0, P.n);
	uint64_t t0 = vta_rtlsim_cycle(R());
	while (!vta_rtlsim_axi_pending(R()) && vta_rtlsim_cycle(R()) - t0 < 100000)
		vta_rtlsim_step(R(), 1);
	vta_rtlsim_step(R(), 300); /* well inside the first WGT load */
	CHECK(reg(VTA_REG_STATUS) & VTA_STATUS_RUNNING);
	CHECK(vta_rtlsim_axi_pending(R()) > 0);
	wreg(VTA_REG_CONTROL, VTA_CONTROL_SOFT_RESET);
	wreg(VTA_REG_FETCH_CTRL, 1); /* refused */
	uint64_t t1 = vta_rtlsim_cycle(R());
	while (reg(VTA_REG_CONTROL) && vta_rtlsim_cycle(R()) - t1 < 100000)
		;
	CHECK_EQ(reg(VTA_REG_CONTROL), 0);
	CHECK_EQ(vta_rtlsim_axi_pending(R()), 0);
	uint32_t st = reg(VTA_REG_STATUS);
	CHECK_EQ(st, VTA_STATUS_IDLE | VTA_STATUS_RESET_DONE | VTA_STATUS_ERR_BUSY);
	CHECK_EQ(reg(VTA_REG_ERR_INFO), VTA_ERRSRC_BUSY);
	CHECK_EQ(reg(VTA_REG_ERR_INSN), 0xFFFFFFFFu);
	wreg(VTA_REG_STATUS, VTA_STATUS_ERR_BUSY);
	soft_reset();
	check_next();
}

/* A start while a run is in progress is refused (STATUS_ERR_BUSY, ERR_INFO
 * busy, IRQ_ERROR); the running program goes on and finishes correctly. */
static void test_start_busy(void)
{
	power_up();
	reference_program();
	CHECK_EQ(cs_prepare(C(), &P, NULL), 0);
	raw_start(0, P.n);
	CHECK_EQ(reg(VTA_REG_FETCH_CTRL) & 1, 1);
	wreg(VTA_REG_FETCH_CTRL, 1);
	CHECK(reg(VTA_REG_STATUS) & VTA_STATUS_ERR_BUSY);
	uint32_t st;
	for (int i = 0; i < 10000 && ((st = reg(VTA_REG_STATUS)) & VTA_STATUS_RUNNING); i++)
		vta_rtlsim_step(R(), 32);
	CHECK_EQ(st & ~VTA_STATUS_IDLE, VTA_STATUS_DONE | VTA_STATUS_ERR_BUSY);
	CHECK_EQ(reg(VTA_REG_ERR_INFO), VTA_ERRSRC_BUSY);
	CHECK_EQ(reg(VTA_REG_ERR_INSN), 0xFFFFFFFFu);
	CHECK_EQ(reg(VTA_REG_FETCH_ISR), VTA_IRQ_DONE | VTA_IRQ_ERROR);
	if (cs_same_dram(C()))
		test_fail_(__FILE__, __LINE__, "%s", C()->why);
	/* the next accepted start clears the error */
	check_next();
	CHECK_EQ(reg(VTA_REG_STATUS) & VTA_STATUS_ERR_MASK, 0);
}

/* ISR (W1C) with the done and error sources, IER, GIE; irq is their AND/OR. */
static void test_interrupts(void)
{
	power_up();
	CHECK_EQ(vta_rtlsim_irq(R()), 0);
	CHECK_EQ(reg(VTA_REG_FETCH_GIE) | reg(VTA_REG_FETCH_IER) | reg(VTA_REG_FETCH_ISR), 0);
	reference_program();
	CHECK_EQ(cs_prepare(C(), &P, NULL), 0);
	raw_start(0, P.n);
	CHECK_EQ(raw_wait(100000) & VTA_STATUS_DONE, VTA_STATUS_DONE);
	CHECK_EQ(reg(VTA_REG_FETCH_ISR), VTA_IRQ_DONE); /* pending, not enabled */
	CHECK_EQ(vta_rtlsim_irq(R()), 0);
	wreg(VTA_REG_FETCH_IER, VTA_IRQ_DONE);
	CHECK_EQ(vta_rtlsim_irq(R()), 0); /* GIE off */
	wreg(VTA_REG_FETCH_GIE, VTA_GIE_ENABLE);
	CHECK_EQ(vta_rtlsim_irq(R()), 1);
	wreg(VTA_REG_FETCH_ISR, VTA_IRQ_ERROR); /* another bit: no effect */
	CHECK_EQ(reg(VTA_REG_FETCH_ISR), VTA_IRQ_DONE);
	CHECK_EQ(vta_rtlsim_irq(R()), 1);
	wreg(VTA_REG_FETCH_ISR, VTA_IRQ_DONE);
	CHECK_EQ(reg(VTA_REG_FETCH_ISR), 0);
	CHECK_EQ(vta_rtlsim_irq(R()), 0);
	if (cs_same_dram(C()))
		test_fail_(__FILE__, __LINE__, "%s", C()->why);
	/* the error source: an illegal instruction, enabled with DONE only, then both */
	begin();
	cs_emit_raw(&P, 5, 0);
	emit(fin());
	CHECK_EQ(cs_prepare(C(), &P, NULL), VTA_EILLEGAL);
	raw_start(0, P.n);
	CHECK(raw_wait(100000) & VTA_STATUS_ERR_ILLEGAL);
	CHECK_EQ(reg(VTA_REG_FETCH_ISR), VTA_IRQ_ERROR);
	CHECK_EQ(vta_rtlsim_irq(R()), 0);
	wreg(VTA_REG_FETCH_IER, VTA_IRQ_DONE | VTA_IRQ_ERROR);
	CHECK_EQ(vta_rtlsim_irq(R()), 1);
	wreg(VTA_REG_FETCH_GIE, 0);
	CHECK_EQ(vta_rtlsim_irq(R()), 0);
	wreg(VTA_REG_FETCH_GIE, VTA_GIE_ENABLE);
	CHECK_EQ(vta_rtlsim_irq(R()), 1);
	/* the soft reset clears ISR (and so irq), keeps GIE and IER */
	soft_reset();
	CHECK_EQ(vta_rtlsim_irq(R()), 0);
	CHECK_EQ(reg(VTA_REG_FETCH_IER), VTA_IRQ_DONE | VTA_IRQ_ERROR);
	/* an interrupt wakes vta_rtlsim_wait_irq as soon as FINISH executes */
	reference_program();
	cs_prepare(C(), &P, NULL);
	raw_start(0, P.n);
	CHECK_EQ(vta_rtlsim_wait_irq(R(), 100000), 1);
	CHECK_EQ(reg(VTA_REG_STATUS) & VTA_STATUS_DONE, VTA_STATUS_DONE);
	wreg(VTA_REG_FETCH_ISR, VTA_IRQ_DONE | VTA_IRQ_ERROR);
	wreg(VTA_REG_FETCH_GIE, 0);
	check_next();
}

/* WATCHDOG = 0 disables the watchdog: a deadlocked program keeps running;
 * with a watchdog it is declared deadlocked at the instruction that waits. */
static void test_watchdog_zero(void)
{
	power_up();
	begin();
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 2, 2));
	vta_insn_t in = gemm(0, 0, 0, 0);
	in.pop_prev = 1; /* never pushed */
	emit(in);
	emit(fin());
	vta_error_t ef;
	CHECK_EQ(cs_prepare(C(), &P, &ef), VTA_EDEADLOCK);
	wreg(VTA_REG_WATCHDOG, 0);
	raw_start(0, P.n);
	vta_rtlsim_step(R(), 5000);
	CHECK_EQ(reg(VTA_REG_STATUS) & (VTA_STATUS_RUNNING | VTA_STATUS_ERR_MASK), VTA_STATUS_RUNNING);
	wreg(VTA_REG_WATCHDOG, 100);
	CHECK(raw_wait(1000) & VTA_STATUS_ERR_WATCHDOG);
	CHECK_EQ(reg(VTA_REG_ERR_INFO), VTA_ERRSRC_WATCHDOG);
	CHECK_EQ(reg(VTA_REG_ERR_INSN), (uint32_t)ef.insn_index);
	CHECK_EQ(ef.insn_index, 1);
	CHECK_EQ(reg(VTA_REG_STATUS) & VTA_STATUS_RUNNING, 0);
	wreg(VTA_REG_WATCHDOG, 65536);
	soft_reset();
	check_next();
}

/* P (instruction 2 a STORE from OA) run with a write error at byte bad: the
 * error names that STORE and its burst (at OA); then recovery. */
static void store_fault(uint64_t bad, unsigned resp)
{
	cs_prepare(C(), &P, NULL);
	vta_rtlsim_set_fault(R(), bad, 1, resp);
	raw_start(0, P.n);
	CHECK(raw_wait(100000) & VTA_STATUS_ERR_DRAM);
	CHECK_EQ(reg(VTA_REG_ERR_INFO), VTA_ERRSRC_STORE);
	CHECK_EQ(reg(VTA_REG_ERR_INSN), 2);
	CHECK_U64(vta_rtlsim_counter(R(), VTA_REG_ERR_ADDR), CS_OUT_AT);
	vta_rtlsim_set_fault(R(), 0, 0, 0);
	soft_reset();
	check_next();
}

/* ERR_ADDR and ERR_INSN of AXI error responses (injected by the harness):
 * a read gives the failing beat, a write the start of the failing burst; the
 * instruction is the LOAD / STORE concerned. Then the 64-bit latch: the high
 * word comes from the low-word read. */
static void test_bus_errors(void)
{
	power_up();
	for (unsigned resp = 2; resp <= 3; resp++) {
		/* LOAD INP of 16 elements, element 5 fails */
		begin();
		emit(cnop());
		vta_insn_t in = ld(VTA_MEM_ID_INP, 0, din(VTA_MEM_ID_INP), 1, 16, 16);
		in.push_next = 1;
		emit(in);
		vta_insn_t f = fin();
		f.pop_prev = 1;
		emit(f);
		cs_prepare(C(), &P, NULL);
		uint64_t bad = CS_DATA_AT + 5 * VTA_INP_ELEM_BYTES;
		vta_rtlsim_set_fault(R(), bad, VTA_INP_ELEM_BYTES, resp);
		raw_start(0, P.n);
		CHECK(raw_wait(100000) & VTA_STATUS_ERR_DRAM);
		CHECK_EQ(reg(VTA_REG_ERR_INFO), VTA_ERRSRC_LOAD);
		CHECK_EQ(reg(VTA_REG_ERR_INSN), 1);
		CHECK_U64(vta_rtlsim_counter(R(), VTA_REG_ERR_ADDR), bad / (VTA_BUS_WIDTH / 8) * (VTA_BUS_WIDTH / 8));
		vta_rtlsim_set_fault(R(), 0, 0, 0);
		soft_reset();
		CHECK_U64(vta_rtlsim_counter(R(), VTA_REG_ERR_ADDR), 0);
		check_next();
		/* STORE of 4 elements into a failing range: the B response of the burst */
		begin();
		emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 4, 4));
		store_and_finish(st(0, OA, 1, 4, 4));
		store_fault(CS_OUT_AT + 2 * VTA_OUT_ELEM_BYTES, resp);
		/* two STOREs, the first one's write fails: store is at the second
		 * when the response arrives (it does not wait for B between
		 * instructions), and ERR_INSN still names the first */
		begin();
		emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 4, 4));
		vta_insn_t n = cnop();
		n.push_next = 1;
		emit(n);
		vta_insn_t s1 = st(0, OA, 1, 4, 4);
		s1.pop_prev = 1;
		emit(s1);
		store_and_finish_nopop(st(0, OA + 64, 1, 4, 4));
		store_fault(CS_OUT_AT + VTA_OUT_ELEM_BYTES, resp);
	}
	/* instructions fetched from 4 GiB, beyond the DRAM: a fetch error at
	 * instruction 0 whose address needs the high word */
	raw_start(1ull << 32, 4);
	CHECK(raw_wait(100000) & VTA_STATUS_ERR_DRAM);
	CHECK_EQ(reg(VTA_REG_ERR_INFO), VTA_ERRSRC_FETCH);
	CHECK_EQ(reg(VTA_REG_ERR_INSN), 0);
	CHECK_EQ(reg(VTA_REG_ERR_ADDR), 0);
	CHECK_EQ(reg(VTA_REG_ERR_ADDR_HI), 1);
	/* one latch: a high word is the one latched by the last low-word read */
	CHECK_EQ(reg(VTA_REG_ERR_ADDR), 0);
	CHECK_EQ(reg(VTA_REG_CNT_CYCLES_HI), 1);
	CHECK(reg(VTA_REG_CNT_CYCLES) > 0);
	CHECK_EQ(reg(VTA_REG_CNT_CYCLES_HI), 0);
	CHECK_EQ(reg(VTA_REG_ERR_ADDR_HI), 0);
	soft_reset();
	check_next();
}

/* Recovery with the soft reset only, each fault then the reference program,
 * all on one power-up: a deadlock, an illegal instruction, an SRAM range
 * error, a token overflow, and a program that leaves a compute->store token
 * behind (which, without the reset, makes the next program store early). */
static void test_recovery(void)
{
	power_up();
	static const int want[] = {VTA_EDEADLOCK, VTA_EILLEGAL, VTA_ERANGE, VTA_ETOKEN};
	for (unsigned k = 0; k < 4; k++) {
		begin();
		vta_insn_t in;
		switch (k) {
		case 0: /* a STORE waits for a g2s token never pushed; FINISH waits for it */
			in = st(0, 0, 0, 0, 0);
			in.pop_prev = 1;
			in.push_prev = 1;
			emit(in);
			in = fin();
			in.pop_next = 1;
			emit(in);
			break;
		case 1:
			emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 2, 2));
			cs_emit_raw(&P, 6, 0);
			emit(fin());
			break;
		case 2:
			emit(ld(VTA_MEM_ID_ACC, VTA_ACC_BUFF_DEPTH - 1, din(VTA_MEM_ID_ACC), 1, 2, 2));
			emit(fin());
			break;
		default:
			for (int i = 0; i <= VTA_TOKEN_QUEUE_DEPTH; i++) {
				in = cnop();
				in.push_next = 1;
				emit(in);
			}
			break;
		}
		int code = -1;
		if (cs_run_warm(C(), &P, &code))
			test_fail_(__FILE__, __LINE__, "fault %u: %s", k, C()->why);
		CHECK_EQ(code, want[k]);
		soft_reset();
		check_next();
	}
	/* a compute->store token left behind (by a program that also leaves other
	 * values in OUT 0..7): first without the soft reset, where the next
	 * program's STORE takes the stale token and stores those values */
	for (int reset = 0; reset < 2; reset++) {
		begin();
		uop(0, 0, 0, 0);
		emit(ld_uops());
		emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC) + 64, 1, 8, 8));
		vta_insn_t a = alu(VTA_ALU_OPCODE_ADD, 1, 1, 0, 1, 8, 1);
		a.dst_factor_out = a.src_factor_out = 1;
		emit(a);
		vta_insn_t n = cnop();
		n.push_next = 1;
		emit(n);
		emit(fin());
		int code = -1;
		if (cs_run_warm(C(), &P, &code))
			test_fail_(__FILE__, __LINE__, "%s", C()->why);
		CHECK_EQ(reg(VTA_REG_TOKENS2) & 0x1FF, 1);
		if (reset) {
			soft_reset();
			check_next();
		} else {
			reference_program();
			CHECK_EQ(cs_run_warm(C(), &P, &code), 1); /* stale output */
			CHECK(!strncmp(C()->why, "DRAM differs", 12));
			soft_reset();
		}
	}
}

/* ------------------------------------------------------------ errors */
static void e_reserved_opcodes(void)
{
	for (unsigned op = 5; op <= 7; op++) {
		begin();
		cs_emit_raw(&P, op, 0);
		emit(fin());
		go(VTA_EILLEGAL);
	}
	begin(); /* after FINISH: still dispatched, so still illegal */
	emit(fin());
	cs_emit_raw(&P, 5, 0);
	go(VTA_EILLEGAL);
}

/* Legality is checked when fetch dispatches, not when the module executes:
 * an illegal instruction queued behind one that waits forever for a token is
 * still reported as illegal (not as a deadlock), in each module's queue. */
static void e_illegal_behind_blocked(void)
{
	for (unsigned k = 0; k < 5; k++) {
		begin();
		vta_insn_t w, bad;
		switch (k) {
		case 0: /* compute blocked; ALU opcode 6 behind it */
			w = gemm(0, 0, 0, 0); w.pop_prev = 1;
			bad = alu(6, 0, 0, 0, 0, 0, 0);
			break;
		case 1: /* load blocked; LOAD WGT with push_prev behind it */
			w = ld(VTA_MEM_ID_INP, 0, 0, 0, 0, 0); w.pop_next = 1;
			bad = ld(VTA_MEM_ID_WGT, 0, din(VTA_MEM_ID_WGT), 1, 1, 1); bad.push_prev = 1;
			break;
		case 2: /* store blocked; STORE with padding behind it */
			w = st(0, 0, 0, 0, 0); w.pop_prev = 1;
			bad = st(0, OA, 1, 1, 1); bad.y_pad_1 = 2;
			break;
		case 3: /* compute blocked; LOAD of memory type 7 behind it */
			w = cnop(); w.pop_next = 1;
			bad = ld(7, 0, din(VTA_MEM_ID_INP), 1, 1, 1);
			break;
		default: /* compute blocked; reserved opcode behind it */
			w = cnop(); w.pop_prev = 1;
			bad = fin(); bad.opcode = 6;
			break;
		}
		emit(w);
		if (k == 4)
			cs_emit_raw(&P, 6, 0);
		else
			emit(bad);
		emit(fin());
		go(VTA_EILLEGAL);
	}
}

/* every counter the co-simulation compares, against expected values */
static void same_counters(uint32_t delay, uint32_t m, const char *who, const vta_counters_t *c,
			  const vta_counters_t *want)
{
	static const char *const what[] = {"insns", "bytes_read", "gemm_uops", "gemm_reset_uops",
					   "alu_uops", "bytes_written", "insn_bytes_read"};
	const uint64_t *got[] = {c->insns, c->bytes_read, &c->gemm_uops, &c->gemm_reset_uops,
				 &c->alu_uops, &c->bytes_written, &c->insn_bytes_read};
	const uint64_t *exp[] = {want->insns, want->bytes_read, &want->gemm_uops,
				 &want->gemm_reset_uops, &want->alu_uops, &want->bytes_written,
				 &want->insn_bytes_read};
	for (unsigned k = 0; k < sizeof what / sizeof what[0]; k++)
		for (unsigned j = 0; j < (k < 2 ? 8u : 1u); j++)
			if (got[k][j] != exp[k][j])
				test_fail_(__FILE__, __LINE__,
					   "delay %u, %u elements: %s %s[%u] %llu, expected %llu", delay, m,
					   who, what[k], j, (unsigned long long)got[k][j],
					   (unsigned long long)exp[k][j]);
}

/* An illegal instruction behind a head that waits at a full queue when
 * FINISH goes (docs/rtl.md, FINISH): compute loads ACC rows (long, so that
 * fetch fills the load queue meanwhile: 8 bus beats per queued LOAD), then
 * pushes the token the first LOAD waits for, runs `delay` token no-ops and
 * FINISH; behind FINISH come `behind` LOADs (the first waits for the token and
 * reads m elements, the rest are no-ops) and a reserved opcode. With behind = the
 * load queue's depth + 1 the last LOAD finds the queue full: the golden model
 * executes FINISH in the round its fetch stopped there, so it never reaches the
 * reserved opcode and the run ends without an error, and the RTL must not
 * dispatch the waiting LOAD when the first LOAD frees the queue around the
 * cycle FINISH goes. With one LOAD fewer nothing waits and both models report
 * the reserved opcode (the control: the illegal instruction is there and
 * reachable). Every counter is checked against values derived here: the
 * golden model counts the instructions before FINISH, the RTL counts at
 * dispatch (docs/rtl.md, Counters), so its LOAD count is exactly the queue's
 * depth higher when the head waited; the golden model reads none of the first
 * queued LOAD's elements. */
static void finish_blocked_run(uint32_t delay, uint32_t m, uint32_t behind)
{
	if (VTA_INSN_QUEUE_DEPTH + 32 + delay > CS_MAX_INSNS)
		return;
	begin();
	/* ACC loads of at least 8 beats per queued LOAD in all (wide buses: several) */
	uint32_t rows = VTA_ACC_BUFF_DEPTH < 512 ? VTA_ACC_BUFF_DEPTH / 64 : 8;
	uint32_t beats = rows * 64 * VTA_ACC_ELEM_BYTES / (VTA_BUS_WIDTH / 8);
	uint32_t n_acc = 0;
	for (uint32_t b = 0; b < 8 * VTA_INSN_QUEUE_DEPTH; b += beats, n_acc++)
		emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), rows, 64, 64));
	vta_insn_t t = ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 16, 16);
	t.push_prev = 1;
	emit(t);
	for (uint32_t i = 0; i < delay; i++)
		emit(cnop());
	emit(fin());
	uint32_t before = P.n; /* instructions up to FINISH */
	for (uint32_t i = 0; i < behind; i++) {
		vta_insn_t l = ld(VTA_MEM_ID_INP, 0, din(VTA_MEM_ID_INP), i ? 0 : 1, i ? 0 : m, i ? 0 : m);
		l.pop_next = i == 0;
		emit(l);
	}
	cs_emit_raw(&P, 5, 0);
	int code = -1;
	int rc = cs_run(C(), &P, &code);
	if (behind <= VTA_INSN_QUEUE_DEPTH) {
		if (rc)
			test_fail_(__FILE__, __LINE__, "delay %u, %u elements, %u behind: %s", delay, m,
				   behind, C()->why);
		CHECK_EQ(code, VTA_EILLEGAL);
		return;
	}
	/* no error on either, the same DRAM: only counters differ (cs_run stops at the first) */
	if (rc != 1 || strncmp(C()->why, "counter ", 8))
		test_fail_(__FILE__, __LINE__, "delay %u, %u elements: expected the counters to differ: %s",
			   delay, m, rc ? C()->why : "the models agree");
	CHECK_EQ(code, 0);
	/* the golden model: the instructions up to FINISH, and its fetch stopped
	 * at the waiting head, having fetched the queue's depth behind FINISH */
	vta_counters_t want;
	memset(&want, 0, sizeof want);
	want.insns[VTA_OPCODE_LOAD] = before - 1;
	want.insns[VTA_OPCODE_FINISH] = 1;
	want.bytes_read[VTA_MEM_ID_ACC] = ((uint64_t)n_acc * rows * 64 + 16) * VTA_ACC_ELEM_BYTES;
	want.insn_bytes_read = 16ull * (before + VTA_INSN_QUEUE_DEPTH);
	same_counters(delay, m, "golden", vta_fsim_counters(C()->fsim), &want);
	/* the RTL: the queue's depth of LOADs dispatched behind FINISH and no more
	 * (the head waited). The load module may start the first of them on T's
	 * token before FINISH executes (the golden model runs compute up to FINISH
	 * first); its DMA then completes, so by the time the counters are read it
	 * has written none, some or all of its m elements (latency 100: none). */
	const vta_counters_t *cr = vta_rtlsim_counters(C()->rtl);
	uint64_t inp = cr->bytes_read[VTA_MEM_ID_INP];
	if (inp > (uint64_t)m * VTA_INP_ELEM_BYTES || inp % VTA_INP_ELEM_BYTES)
		test_fail_(__FILE__, __LINE__, "delay %u, %u elements: rtl bytes_read[%u] %llu, expected "
			   "whole elements of at most %u", delay, m, VTA_MEM_ID_INP,
			   (unsigned long long)inp, m * VTA_INP_ELEM_BYTES);
	want.insns[VTA_OPCODE_LOAD] += VTA_INSN_QUEUE_DEPTH;
	want.bytes_read[VTA_MEM_ID_INP] = inp;
	same_counters(delay, m, "rtl", cr, &want);
}

/* the first LOAD frees the queue before, with and after FINISH's pop */
static void e_finish_blocked(void)
{
	static const uint32_t delays[] = {0, 1, 2, 5};
	if (TEST_SANITIZED) { /* one case (the pop the cycle before the queue frees) and the control */
		finish_blocked_run(1, 0, VTA_INSN_QUEUE_DEPTH + 1);
		finish_blocked_run(1, 0, VTA_INSN_QUEUE_DEPTH);
		return;
	}
	for (size_t k = 0; k < sizeof delays / sizeof delays[0]; k++)
		for (uint32_t m = 0; m <= 3; m += 3)
			finish_blocked_run(delays[k], m, VTA_INSN_QUEUE_DEPTH + 1);
	finish_blocked_run(1, 3, VTA_INSN_QUEUE_DEPTH);
}

/* the same under each DRAM timing of test_timings (fewer cases) */
static void e_finish_blocked_timed(void)
{
	finish_blocked_run(0, 0, VTA_INSN_QUEUE_DEPTH + 1);
	finish_blocked_run(1, 0, VTA_INSN_QUEUE_DEPTH + 1);
	finish_blocked_run(2, 3, VTA_INSN_QUEUE_DEPTH + 1);
}

static void e_load_types(void)
{
	static const unsigned types[] = {VTA_MEM_ID_OUT, 6, 7};
	for (unsigned k = 0; k < 3; k++) {
		begin();
		emit(ld(types[k], 0, din(VTA_MEM_ID_INP), 1, 1, 1));
		emit(fin());
		go(VTA_EILLEGAL);
	}
}

static void e_alu_opcodes(void)
{
	for (unsigned op = 5; op <= 7; op++) {
		begin();
		emit(alu(op, op & 1, 3, 0, 0, 0, 0)); /* even with zero iterations */
		emit(fin());
		go(VTA_EILLEGAL);
	}
}

static void e_store_pad(void)
{
	for (unsigned k = 0; k < 4; k++) {
		begin();
		vta_insn_t s = st(0, OA, 1, 1, 1);
		uint32_t *pad[] = {&s.y_pad_0, &s.y_pad_1, &s.x_pad_0, &s.x_pad_1};
		*pad[k] = 1;
		emit(s);
		emit(fin());
		go(VTA_EILLEGAL);
	}
}

/* pop_prev/push_prev on LOAD INP/WGT, pop_next/push_next on STORE */
static void e_flags_without_queue(void)
{
	for (unsigned k = 0; k < 6; k++) {
		begin();
		vta_insn_t in = k < 4 ? ld(k < 2 ? VTA_MEM_ID_INP : VTA_MEM_ID_WGT, 0,
					   din(k < 2 ? VTA_MEM_ID_INP : VTA_MEM_ID_WGT), 1, 1, 1)
				      : st(0, OA, 1, 1, 1);
		if (k < 4 && k % 2 == 0) in.pop_prev = 1;
		if (k < 4 && k % 2 == 1) in.push_prev = 1;
		if (k == 4) in.pop_next = 1;
		if (k == 5) in.push_next = 1;
		emit(in);
		emit(fin());
		go(VTA_EILLEGAL);
	}
}

/* A load block past the SRAM end (x padding, rows), per memory type; a block
 * ending exactly at the depth is fine. The load hands a token to FINISH so
 * the check happens before the run ends. */
static void e_load_sram_range(void)
{
	static const unsigned types[] = {VTA_MEM_ID_UOP, VTA_MEM_ID_WGT, VTA_MEM_ID_INP, VTA_MEM_ID_ACC,
					 VTA_MEM_ID_ACC_8BIT};
	for (unsigned k = 0; k < 5; k++)
		for (unsigned v = 0; v < 3; v++) {
			unsigned t = types[k];
			uint32_t D = vta_mem_depth(t);
			begin();
			uint32_t dram = t == VTA_MEM_ID_UOP ? CS_UOP_AT / 4 : din(t);
			vta_insn_t in = ld(t, D - 2, dram, 1, 2, 2);
			if (v == 0) in.x_pad_1 = 1;       /* 3 elements from depth - 2 */
			if (v == 1) in.y_size = 2;        /* a second row */
			int on_load = t == VTA_MEM_ID_INP || t == VTA_MEM_ID_WGT;
			if (on_load) in.push_next = 1;
			emit(in);
			vta_insn_t f = fin();
			f.pop_prev = (uint32_t)on_load;
			emit(f);
			go(v == 2 ? 0 : VTA_ERANGE);
		}
}

/* GEMM / ALU SRAM indices at the depth; micro-op index; STORE source. */
static void e_compute_range(void)
{
	for (unsigned k = 0; k < 9; k++) {
		begin();
		uop(0, 0, 0, 0);
		uop(1, VTA_ACC_BUFF_DEPTH - 1, VTA_INP_BUFF_DEPTH - 1, VTA_WGT_BUFF_DEPTH - 1);
		uop(2, 1, VTA_ACC_BUFF_DEPTH - 1, 0);
		uop(3, VTA_ACC_BUFF_DEPTH - 1, 0, 0);
		emit(ld_uops());
		vta_insn_t in = gemm(1, 2, 1, 2);
		int want = VTA_ERANGE;
		switch (k) {
		case 0: in.dst_factor_in = 1; break;       /* GEMM ACC */
		case 1: in.src_factor_in = 1; break;       /* GEMM INP */
		case 2: in.wgt_factor_in = 1; break;       /* GEMM WGT */
		case 3: in.reset = 1; in.dst_factor_in = 1; break; /* reset: ACC checked */
		case 4: in.reset = 1; in.src_factor_in = in.wgt_factor_in = 1; want = 0; break; /* not INP/WGT */
		case 5: in = alu(VTA_ALU_OPCODE_ADD, 0, 0, 3, 4, 1, 2); in.dst_factor_in = 1; break; /* dst */
		case 6: in = alu(VTA_ALU_OPCODE_MAX, 1, -7, 2, 3, 1, 2); in.src_factor_in = 1; break; /* src, imm */
		case 7: in = gemm(VTA_UOP_BUFF_DEPTH - 1, VTA_UOP_BUFF_DEPTH + 1, 1, 1); break; /* uop index */
		default: in = alu(VTA_ALU_OPCODE_MIN, 0, 0, VTA_UOP_BUFF_DEPTH - 1, VTA_UOP_BUFF_DEPTH + 1, 1, 1);
		}
		emit(in);
		emit(fin());
		go(want);
	}
	for (unsigned k = 0; k < 3; k++) { /* STORE source: past the end, two rows, exactly at it */
		begin();
		vta_insn_t s = st(VTA_OUT_BUFF_DEPTH - 4, OA, k == 1 ? 2 : 1, k == 0 ? 5 : 4, 5);
		s.push_prev = 1;
		emit(s);
		vta_insn_t f = fin();
		f.pop_next = 1;
		emit(f);
		go(k == 2 ? 0 : VTA_ERANGE);
	}
}

/* DRAM accesses beyond the end: loads of each module, a second row, a STORE,
 * and an instruction stream running past the end. */
static void e_dram_range(void)
{
	uint32_t end_inp = CS_DRAM / VTA_INP_ELEM_BYTES;
	for (unsigned k = 0; k < 6; k++) {
		begin();
		vta_insn_t in;
		int to_compute = 1;
		switch (k) {
		case 0: in = ld(VTA_MEM_ID_INP, 0, end_inp + 3, 1, 1, 1); break;
		case 1: in = ld(VTA_MEM_ID_INP, 0, end_inp - 1, 2, 1, 1); break; /* row 2 at the end */
		case 2: in = ld(VTA_MEM_ID_WGT, 0, CS_DRAM / VTA_WGT_ELEM_BYTES - 1, 1, 2, 2); break;
		case 3: in = ld(VTA_MEM_ID_ACC, 0, CS_DRAM / VTA_ACC_ELEM_BYTES, 1, 1, 1); to_compute = 0; break;
		case 4: in = ld(VTA_MEM_ID_UOP, 0, CS_DRAM / 4 - 1, 1, 2, 2); to_compute = 0; break;
		default: in = st(0, CS_DRAM / VTA_OUT_ELEM_BYTES - 1, 1, 2, 2); to_compute = 2; break;
		}
		vta_insn_t f = fin();
		if (to_compute == 1) { in.push_next = 1; f.pop_prev = 1; }
		if (to_compute == 2) { in.push_prev = 1; f.pop_next = 1; }
		emit(in);
		emit(f);
		go(VTA_ERANGE);
	}
	/* the instruction stream itself: golden code, same on the RTL. Its first
	 * instruction (the last in DRAM) is a no-op: were it illegal, whether the
	 * RTL reports that or the error response of the second would depend on
	 * the DRAM timing (the golden model checks the stream's range first). */
	vta_error_t ef, er;
	vta_fsim_reset(C()->fsim);
	CHECK(vta_rtlsim_reset(C()->rtl, &er) == 0);
	vta_insn_word_t nop;
	vta_insn_t n0 = cnop();
	CHECK(vta_insn_encode(&n0, &nop, NULL) == 0);
	vta_insn_store(&nop, vta_fsim_dram(C()->fsim) + CS_DRAM - 16);
	vta_insn_store(&nop, vta_rtlsim_dram(C()->rtl) + CS_DRAM - 16);
	int f = vta_fsim_run(C()->fsim, CS_DRAM - 16, 2, &ef);
	int r = vta_rtlsim_run(C()->rtl, CS_DRAM - 16, 2, &er);
	CHECK_EQ(f, VTA_ERANGE);
	CHECK_EQ(r, f);
}

/* 256 pushes into each token queue with nobody popping. */
static void e_token_overflow(void)
{
	for (unsigned q = 0; q < 4; q++) {
		begin();
		for (int i = 0; i <= VTA_TOKEN_QUEUE_DEPTH; i++) {
			vta_insn_t in;
			switch (q) {
			case VTA_Q_L2G: in = ld(VTA_MEM_ID_INP, 0, 0, 0, 0, 0); in.push_next = 1; break;
			case VTA_Q_G2L: in = cnop(); in.push_prev = 1; break;
			case VTA_Q_G2S: in = cnop(); in.push_next = 1; break;
			default: in = st(0, 0, 0, 0, 0); in.push_prev = 1; break;
			}
			emit(in);
		}
		go(VTA_ETOKEN);
	}
}

/* A pop of a token never pushed, on each queue, on FINISH's path; a stream
 * without FINISH; an empty stream. */
static void e_deadlock(void)
{
	for (unsigned q = 0; q < 4; q++) {
		begin();
		vta_insn_t in, f = fin();
		switch (q) {
		case VTA_Q_L2G: in = gemm(0, 0, 0, 0); in.pop_prev = 1; break;
		case VTA_Q_G2L: in = ld(VTA_MEM_ID_INP, 0, 0, 0, 0, 0); in.pop_next = 1; in.push_next = 1;
			f.pop_prev = 1; break;
		case VTA_Q_G2S: in = st(0, 0, 0, 0, 0); in.pop_prev = 1; in.push_prev = 1; f.pop_next = 1; break;
		default: in = alu(VTA_ALU_OPCODE_ADD, 0, 0, 0, 0, 0, 0); in.pop_next = 1; break;
		}
		emit(in);
		emit(f);
		go(VTA_EDEADLOCK);
	}
	begin();
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, 1, 1));
	go(VTA_EDEADLOCK);
	begin();
	go(VTA_EDEADLOCK);
}

/* Full instruction queue: n LOADs wait for g2l tokens that compute
 * instructions behind them would push; once the load queue is full, fetch
 * can never reach those pushes. Written straight into both DRAMs (more than
 * CS_MAX_INSNS instructions). Returns the golden code (and checks the RTL's). */
static int queue_full_run(unsigned n)
{
	vta_error_t ef, er;
	vta_fsim_reset(C()->fsim);
	CHECK(vta_rtlsim_reset(C()->rtl, &er) == 0);
	vta_bases_t zero = {0, 0, 0, 0, 0};
	vta_fsim_set_bases(C()->fsim, &zero);
	vta_rtlsim_set_bases(C()->rtl, &zero);
	uint32_t k = 0;
	for (unsigned i = 0; i < 2 * n + 1; i++, k++) {
		vta_insn_t in = i < n ? ld(VTA_MEM_ID_INP, 0, 0, 0, 0, 0) : i < 2 * n ? cnop() : fin();
		if (i < n)
			in.pop_next = 1;
		else if (i < 2 * n)
			in.push_prev = 1;
		vta_insn_word_t w;
		CHECK(vta_insn_encode(&in, &w, NULL) == 0);
		vta_insn_store(&w, vta_fsim_dram(C()->fsim) + 16 * (size_t)k);
		vta_insn_store(&w, vta_rtlsim_dram(C()->rtl) + 16 * (size_t)k);
	}
	int f = vta_fsim_run(C()->fsim, 0, k, &ef);
	int r = vta_rtlsim_run(C()->rtl, 0, k, &er);
	if (f != r)
		test_fail_(__FILE__, __LINE__, "%u loads: golden %d (%s) vs rtl %d (%s)", n, f,
			   f ? ef.msg : "ok", r, r ? er.msg : "ok");
	return f;
}

/* Below the depth the loads wait until the pushes arrive; above it, deadlock.
 * (Between 256 and the depth the outcome depends on the schedule: the golden
 * model lets compute run 255 tokens ahead and reports a token overflow.) */
static void e_queue_full(void)
{
	CHECK_EQ(queue_full_run(8), 0);
	CHECK_EQ(queue_full_run(200), 0);
	CHECK_EQ(queue_full_run(VTA_INSN_QUEUE_DEPTH + 1), VTA_EDEADLOCK);
	CHECK_EQ(queue_full_run(VTA_INSN_QUEUE_DEPTH + 2), VTA_EDEADLOCK);
	CHECK_EQ(queue_full_run(VTA_INSN_QUEUE_DEPTH + 9), VTA_EDEADLOCK);
}

/* ------------------------------------------------------------ pipeline hazards */
/*
 * The compute pipeline forwards results (docs/rtl.md, Compute pipeline):
 * every micro-op must see the results of all micro-ops before it, whatever
 * their distance, across loop levels and instructions. These programs hit
 * each forwarding distance, the ACC banks (same-bank operands read in two
 * cycles) and the MUL wait. Each stores all four bytes of the ACC rows it
 * touched (SHR by 8 between stores), so a stale 32-bit value shows.
 */
static void store_acc_bytes(uint32_t rows)
{
	uop(P.nuops, 0, 0, 0); /* dst row 0, src unused */
	uint32_t shr = P.nuops - 1;
	emit(ld_uops());
	for (uint32_t k = 0; k < 4; k++) {
		vta_insn_t n = cnop();
		n.push_next = 1;
		emit(n);
		vta_insn_t s = st(0, OA + k * rows, 1, rows, rows);
		s.pop_prev = 1;
		s.push_prev = 1;
		emit(s);
		vta_insn_t a = alu(VTA_ALU_OPCODE_SHR, 1, 8, shr, shr + 1, rows, 1);
		a.dst_factor_out = 1;
		a.pop_next = 1;
		emit(a);
	}
	emit(fin());
}

/* the INP, WGT and ACC input data into SRAM 0.., then the compute stream */
static void load_operands(uint32_t n)
{
	emit(ld(VTA_MEM_ID_ACC, 0, din(VTA_MEM_ID_ACC), 1, n, n));
	emit(ld(VTA_MEM_ID_INP, 0, din(VTA_MEM_ID_INP), 1, n, n));
	vta_insn_t in = ld(VTA_MEM_ID_WGT, 0, din(VTA_MEM_ID_WGT), 1, n, n);
	in.push_next = 1;
	emit(in);
	vta_insn_t w = cnop();
	w.pop_prev = 1;
	emit(w);
}

/* GEMM micro-op j accumulates into the row micro-op j - d wrote, d = 1..6,
 * and the list repeats (inner loop, dst factor 0) so the last micro-ops feed
 * the first ones; a reset micro-op right before accumulations on its row. */
static void test_pipe_gemm_distance(void)
{
	for (uint32_t d = 1; d <= 6; d++) {
		begin();
		for (uint32_t j = 0; j < 12; j++)
			uop(j, j % d, j, 11 - j);
		emit(ld_uops());
		load_operands(12);
		vta_insn_t g = gemm(0, 12, 2, 3);
		g.src_factor_in = 1;
		g.wgt_factor_out = 1;
		emit(g);
		store_acc_bytes(d);
		go(0);
	}
	begin();
	uop(0, 2, 0, 0);
	uop(1, 2, 1, 1);
	uop(2, 2, 2, 2);
	uop(3, 3, 3, 3);
	emit(ld_uops());
	load_operands(4);
	vta_insn_t r = gemm(0, 1, 1, 1);
	r.reset = 1;
	emit(r);
	emit(gemm(1, 4, 1, 2));
	r = gemm(3, 4, 1, 1);
	r.reset = 1;
	emit(r);
	emit(gemm(1, 3, 1, 1));
	store_acc_bytes(4);
	go(0);
}

/* ALU register mode: src is the row written d micro-ops before (d = 1..5,
 * same bank when d is a multiple of 4), dst == src, and a chain of
 * immediate-mode micro-ops on one row. */
static void test_pipe_alu_forward(void)
{
	static const unsigned ops[] = {VTA_ALU_OPCODE_ADD, VTA_ALU_OPCODE_MAX, VTA_ALU_OPCODE_SHR};
	for (uint32_t d = 1; d <= 5; d++)
		for (unsigned o = 0; o < 3; o++) {
			begin();
			for (uint32_t j = 0; j < 10; j++)
				uop(j, j + d, j, 0); /* dst j + d, src j (written d micro-ops before) */
			uop(10, 3, 3, 0);            /* dst == src */
			emit(ld_uops());
			load_operands(16);
			if (ops[o] == VTA_ALU_OPCODE_SHR) /* small amounts: keep the values alive */
				emit(alu(VTA_ALU_OPCODE_SHR, 1, 28, 0, 10, 1, 1));
			emit(alu(ops[o], 0, 0, 0, 11, 2, 1));
			emit(alu(VTA_ALU_OPCODE_ADD, 1, -7, 10, 11, 1, 4)); /* row 3, four times */
			store_acc_bytes(16);
			go(0);
		}
}

/* MUL: chains through one row and through the rows before (the micro-op
 * behind a MUL waits for its result), register and immediate mode, same and
 * different banks. */
static void test_pipe_mul(void)
{
	begin();
	for (uint32_t j = 0; j < 8; j++)
		uop(j, j + 1, j, 0);
	uop(8, 2, 6, 0); /* same bank */
	emit(ld_uops());
	load_operands(12);
	emit(alu(VTA_ALU_OPCODE_SHR, 1, 20, 0, 8, 1, 1));
	emit(alu(VTA_ALU_OPCODE_MUL, 0, 0, 0, 9, 2, 1));
	emit(alu(VTA_ALU_OPCODE_MUL, 1, -3, 8, 9, 1, 3));
	store_acc_bytes(12);
	go(0);
}

/* The source-row cache: one src row broadcast over many dst rows (a bias),
 * with that row itself among the destinations (the cached value must follow
 * its writes, also a MUL's), then a LOAD ACC of the row between two ALU
 * instructions (a new instruction starts uncached). */
static void test_pipe_src_cache(void)
{
	static const unsigned ops[] = {VTA_ALU_OPCODE_ADD, VTA_ALU_OPCODE_MUL, VTA_ALU_OPCODE_MIN};
	for (unsigned o = 0; o < 3; o++) {
		begin();
		for (uint32_t j = 0; j < 12; j++)
			uop(j, j, 5, 0); /* dst j, src 5: row 5 is written by micro-op 5 */
		uop(12, 9, 13, 0);
		emit(ld_uops());
		load_operands(16);
		if (ops[o] == VTA_ALU_OPCODE_MUL)
			emit(alu(VTA_ALU_OPCODE_SHR, 1, 24, 0, 12, 1, 1));
		emit(alu(ops[o], 0, 0, 0, 12, 2, 1));
		emit(ld(VTA_MEM_ID_ACC, 5, din(VTA_MEM_ID_ACC) + 11, 1, 1, 1));
		emit(alu(ops[o], 0, 0, 0, 13, 1, 1));
		store_acc_bytes(16);
		go(0);
	}
}

/* Results cross instruction boundaries: GEMM rows read by the ALU right
 * after, ALU rows accumulated by GEMM, a LOAD ACC between two writers of a
 * row. */
static void test_pipe_across(void)
{
	begin();
	uop(0, 0, 0, 0);
	uop(1, 1, 1, 1);
	uop(2, 1, 0, 0); /* ALU: dst 1, src 0 */
	uop(3, 0, 1, 0);
	emit(ld_uops());
	load_operands(4);
	emit(gemm(0, 2, 1, 1));
	emit(alu(VTA_ALU_OPCODE_ADD, 0, 0, 2, 4, 1, 1));
	emit(gemm(0, 2, 1, 1));
	emit(ld(VTA_MEM_ID_ACC, 1, din(VTA_MEM_ID_ACC) + 9, 1, 1, 1));
	emit(gemm(0, 2, 1, 1));
	emit(alu(VTA_ALU_OPCODE_MIN, 1, 5, 2, 3, 1, 1));
	store_acc_bytes(4);
	go(0);
}

/* One micro-op per cycle where the design promises it: a list where every
 * micro-op accumulates into the row of the one before, and register-mode ALU
 * with dst and src in different banks (RTL counters: micro-ops / busy cycles). */
static double rtl_upc(int alu_busy)
{
	vta_rtlsim_t *r = C()->rtl;
	const vta_counters_t *c = vta_rtlsim_counters(r);
	uint64_t busy = vta_rtlsim_counter(r, alu_busy ? VTA_REG_CNT_ALU_BUSY : VTA_REG_CNT_GEMM_BUSY);
	return (double)(alu_busy ? c->alu_uops : c->gemm_uops) / (double)busy;
}
static void test_pipe_throughput(void)
{
	begin();
	for (uint32_t j = 0; j < 32; j++)
		uop(j, j / 8, j, j);
	emit(ld_uops());
	load_operands(32);
	emit(gemm(0, 32, 4, 8));
	store_acc_bytes(4);
	go(0);
	if (rtl_upc(0) < 0.95)
		test_fail_(__FILE__, __LINE__, "dependent GEMM: %.3f micro-ops per cycle", rtl_upc(0));
	begin();
	for (uint32_t j = 0; j < 32; j++)
		uop(j, j, j + 33, 0);
	emit(ld_uops());
	load_operands(72);
	emit(alu(VTA_ALU_OPCODE_ADD, 0, 0, 0, 32, 8, 4));
	store_acc_bytes(4);
	go(0);
	/* the store's SHR passes (4 rows each) count as ALU busy too */
	if (rtl_upc(1) < 0.9)
		test_fail_(__FILE__, __LINE__, "register-mode ALU: %.3f micro-ops per cycle", rtl_upc(1));
}

/* ------------------------------------------------------------ GEMM beside ALU */
/* An ALU instruction behind a GEMM runs beside it (docs/rtl.md, GEMM unit)
 * when the GEMM's footprint is known and error-free; the ALU waits for rows of
 * that footprint and for the ACC banks the GEMM uses. Each case is checked
 * against the golden model, which runs the instructions one after the other.
 * The GEMM: micro-ops 0..7 accumulate INP j x WGT j into rows gdst + j*gstep,
 * 16 times (dst factors 0). The ALU: micro-op 8 (dst adst, src asrc), rows
 * adst + 8 * k ... over 8 outer iterations of factor afac. */
static uint64_t cycles_of(void) { return vta_rtlsim_counters(C()->rtl)->cycles; }
static void overlap_prog(uint32_t gdst, uint32_t gstep, uint32_t adst, uint32_t asrc, uint32_t afac, int use_imm,
			 int drain)
{
	begin();
	for (uint32_t j = 0; j < 8; j++)
		uop(j, gdst + j * gstep, j, j);
	uop(8, adst, asrc, 0);
	emit(ld_uops());
	load_operands(40);
	emit(gemm(0, 8, 4, 4));
	if (drain) /* a LOAD UOP no-op: everything before it ends first */
		emit(cnop());
	vta_insn_t a = alu(VTA_ALU_OPCODE_ADD, use_imm, 3, 8, 9, 8, 4);
	a.dst_factor_out = afac, a.src_factor_out = afac;
	a.dst_factor_in = 0, a.src_factor_in = 0;
	emit(a);
	emit(alu(VTA_ALU_OPCODE_SHR, 1, 1, 8, 9, 8, 1));
	store_acc_bytes(40);
}
static void test_overlap_cases(void)
{
	static const struct {
		uint32_t gdst, gstep, adst, asrc, afac;
		int imm, beside; /* beside: the ALU must hide (most of) its time under the GEMM */
	} cs[] = {
		{0, 1, 16, 24, 1, 0, 1}, /* disjoint rows, register mode */
		{0, 1, 16, 0, 1, 1, 1},  /* disjoint, immediate mode (src field in the footprint, unread) */
		{0, 1, 4, 30, 1, 0, 0},  /* ALU dst rows 4..11 overlap the GEMM's 0..7: waits */
		{0, 1, 16, 2, 1, 0, 0},  /* ALU src rows 2..9 in the footprint: waits */
		{0, 4, 32, 33, 4, 0, 0}, /* GEMM rows 0,4,..,28 and ALU rows 32,36,..: one bank for both */
		{1, 1, 9, 17, 1, 0, 0},  /* footprint 1..8, ALU dst 9..16 (adjacent), src 17..: no overlap */
	};
	for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
		overlap_prog(cs[k].gdst, cs[k].gstep, cs[k].adst, cs[k].asrc, cs[k].afac, cs[k].imm, 1);
		go(0);
		uint64_t serial = cycles_of();
		overlap_prog(cs[k].gdst, cs[k].gstep, cs[k].adst, cs[k].asrc, cs[k].afac, cs[k].imm, 0);
		go(0);
		uint64_t both = cycles_of();
		/* the first ALU has 32 micro-ops: beside the GEMM's 128 it costs (almost) nothing */
		if (cs[k].beside && both + 24 > serial)
			test_fail_(__FILE__, __LINE__, "case %zu: %llu cycles beside, %llu in series", k,
				   (unsigned long long)both, (unsigned long long)serial);
		if (both > serial + 8)
			test_fail_(__FILE__, __LINE__, "case %zu: %llu cycles beside, %llu in series", k,
				   (unsigned long long)both, (unsigned long long)serial);
	}
}

/* Tokens and order around a GEMM running beside ALU instructions: the GEMM
 * pushes g2s for a STORE of its rows, the ALU behind it (other rows) pushes
 * g2s for a STORE of its own, a compute no-op and FINISH pop the stores' s2g;
 * a MUL (never beside), a reset GEMM and ALU chains on the GEMM's rows. */
static void test_overlap_tokens(void)
{
	begin();
	for (uint32_t j = 0; j < 8; j++)
		uop(j, j, j, j);
	uop(8, 16, 24, 0);
	uop(9, 0, 0, 0);
	uop(10, 16, 0, 0);
	emit(ld_uops());
	load_operands(40);
	vta_insn_t g = gemm(0, 8, 4, 4);
	g.push_next = 1;
	emit(g);
	vta_insn_t a = alu(VTA_ALU_OPCODE_ADD, 0, 0, 8, 9, 8, 1);
	a.dst_factor_out = a.src_factor_out = 1;
	a.push_next = 1;
	emit(a);
	vta_insn_t s = st(0, OA, 1, 8, 8);
	s.pop_prev = s.push_prev = 1;
	emit(s);
	s = st(16, OA + 8, 1, 8, 8);
	s.pop_prev = s.push_prev = 1;
	emit(s);
	vta_insn_t n = cnop();
	n.pop_next = 1;
	emit(n);
	/* a reset GEMM, then ALU work right behind it on other rows and on its rows */
	vta_insn_t r = gemm(0, 8, 1, 1);
	r.reset = 1;
	emit(r);
	emit(alu(VTA_ALU_OPCODE_MUL, 1, 3, 10, 11, 1, 8)); /* row 16, eight times */
	emit(gemm(0, 8, 2, 2));
	a = alu(VTA_ALU_OPCODE_MAX, 1, -5, 9, 10, 8, 1); /* rows 0..7: the GEMM's */
	a.dst_factor_out = a.src_factor_out = 1;
	emit(a);
	a = alu(VTA_ALU_OPCODE_ADD, 0, 0, 10, 11, 8, 1); /* rows 16..23 += rows 0..7 */
	a.dst_factor_out = a.src_factor_out = 1;
	emit(a);
	vta_insn_t f = fin();
	f.pop_next = 1;
	emit(f);
	go(0);
	begin();
	/* the same rows afterwards, narrowed */
	for (uint32_t j = 0; j < 8; j++)
		uop(j, j, j, j);
	uop(8, 16, 0, 0);
	emit(ld_uops());
	load_operands(40);
	emit(gemm(0, 8, 4, 4));
	a = alu(VTA_ALU_OPCODE_ADD, 0, 0, 8, 9, 8, 1);
	a.dst_factor_out = a.src_factor_out = 1;
	emit(a);
	store_acc_bytes(24);
	go(0);
}

/* Errors next to a GEMM: a GEMM whose last iterations leave ACC, INP or WGT
 * (the ALU behind it must not start: the error is the GEMM's), and a GEMM
 * followed by an ALU with an index out of range, an illegal ALU opcode or a
 * micro-op range past the UOP SRAM. */
static void test_overlap_errors(void)
{
	for (unsigned k = 0; k < 7; k++) {
		begin();
		for (uint32_t j = 0; j < 8; j++)
			uop(j, j, j, j);
		uop(8, 16, 24, 0);
		emit(ld_uops());
		load_operands(40);
		vta_insn_t g = gemm(0, 8, 4, 4);
		if (k == 0)
			g.dst_factor_out = VTA_ACC_BUFF_DEPTH / 3;
		if (k == 1)
			g.src_factor_out = VTA_INP_BUFF_DEPTH / 3;
		if (k == 2)
			g.wgt_factor_out = VTA_WGT_BUFF_DEPTH / 3;
		emit(g);
		vta_insn_t a = alu(VTA_ALU_OPCODE_ADD, 0, 0, 8, 9, 8, 1);
		a.dst_factor_out = a.src_factor_out = 1;
		if (k == 3)
			a.src_factor_out = VTA_ACC_BUFF_DEPTH / 7;
		if (k == 4)
			a.alu_opcode = 6;
		if (k == 5)
			a.uop_bgn = VTA_UOP_BUFF_DEPTH - 1, a.uop_end = VTA_UOP_BUFF_DEPTH + 1;
		emit(a);
		if (k == 6) /* an ALU after the GEMM pops a token nobody pushes: deadlock */
			a.pop_prev = 1, emit(a);
		store_acc_bytes(24);
		go(k == 4 ? VTA_EILLEGAL : k == 6 ? VTA_EDEADLOCK : VTA_ERANGE);
	}
}


/* The GEMM's ACC footprint at its edges: GEMMs with non-zero dst factors
 * (the footprint's (iter - 1) * factor terms) and ALU rows just inside and
 * just outside it, above and below. Each program runs twice, with the ALU
 * held behind the GEMM by a compute NOP and beside it; both must match the
 * golden model, and rows outside the footprint must gain from running beside. */
static void edge_prog(uint32_t gdst, uint32_t fdo, uint32_t fdi, uint32_t adst, uint32_t asrc, int drain)
{
	begin();
	for (uint32_t j = 0; j < 8; j++)
		uop(j, gdst + j, j, j);
	uop(8, adst, asrc, 0);
	emit(ld_uops());
	load_operands(56);
	vta_insn_t g = gemm(0, 8, 4, 4);
	g.dst_factor_out = fdo, g.dst_factor_in = fdi;
	emit(g);
	if (drain)
		emit(cnop());
	vta_insn_t a = alu(VTA_ALU_OPCODE_ADD, 0, 3, 8, 9, 8, 4);
	a.dst_factor_out = 1, a.src_factor_out = 1;
	a.dst_factor_in = 0, a.src_factor_in = 0;
	emit(a);
	store_acc_bytes(56);
}

static void test_overlap_edges(void)
{
	/* footprint = [gdst, gdst + 7 + 3 * fdo + 3 * fdi]; the ALU touches
	 * dst adst..adst+7 and src asrc..asrc+7 */
	static const struct { uint32_t gdst, fdo, fdi, adst, asrc; int outside; } cs[] = {
		{0, 8, 2, 36, 48, 0}, /* footprint 0..37: dst 36..43 overlaps its top */
		{0, 8, 2, 38, 48, 1}, /* dst 38..45 just above */
		{0, 8, 2, 46, 30, 0}, /* src 30..37 inside */
		{8, 0, 0, 0, 40, 1},  /* footprint 8..15: dst 0..7 just below */
		{8, 0, 0, 1, 40, 0},  /* dst 1..8: row 8 inside */
		{8, 0, 0, 40, 1, 0},  /* src 1..8: row 8 inside */
		{0, 1, 1, 12, 40, 0}, /* footprint 0..13 */
		{0, 1, 1, 13, 40, 0},
		{0, 1, 1, 14, 40, 1},
	};
	for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
		edge_prog(cs[k].gdst, cs[k].fdo, cs[k].fdi, cs[k].adst, cs[k].asrc, 1);
		go(0);
		uint64_t serial = cycles_of();
		edge_prog(cs[k].gdst, cs[k].fdo, cs[k].fdi, cs[k].adst, cs[k].asrc, 0);
		go(0);
		uint64_t beside = cycles_of();
		if (cs[k].outside)
			CHECK(beside < serial);
	}
}

/* Random GEMMs (any micro-ops, all six factors, some resets) each followed
 * by one to three ALU instructions of any operation, against the golden model
 * (100 programs, about 1 s; 20 under the sanitizers). */
static uint32_t next_rand(uint64_t *s, uint32_t n)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33) % n;
}

static void test_overlap_random(void)
{
	static const unsigned ops[] = {VTA_ALU_OPCODE_MIN, VTA_ALU_OPCODE_MAX, VTA_ALU_OPCODE_ADD,
				       VTA_ALU_OPCODE_SHR, VTA_ALU_OPCODE_MUL};
	for (uint64_t seed = 1; seed <= (TEST_SANITIZED ? 20 : 100); seed++) {
		uint64_t s = seed;
		begin();
		uint32_t nu = 0;
		for (uint32_t j = 0; j < 48; j++)
			uop(nu++, next_rand(&s, 40), next_rand(&s, 40), next_rand(&s, 40));
		emit(ld_uops());
		load_operands(64);
		for (int blk = 0; blk < 3; blk++) {
			uint32_t b = next_rand(&s, 40), e = b + 1 + next_rand(&s, 8);
			vta_insn_t g = gemm(b, e, 1 + next_rand(&s, 3), 1 + next_rand(&s, 3));
			g.dst_factor_out = next_rand(&s, 6), g.dst_factor_in = next_rand(&s, 4);
			g.src_factor_out = next_rand(&s, 4), g.src_factor_in = next_rand(&s, 3);
			g.wgt_factor_out = next_rand(&s, 3), g.wgt_factor_in = next_rand(&s, 3);
			g.reset = next_rand(&s, 5) == 0;
			emit(g);
			int na = 1 + (int)next_rand(&s, 3);
			for (int k = 0; k < na; k++) {
				uint32_t ab = next_rand(&s, 44), ae = ab + 1 + next_rand(&s, 4);
				unsigned op = ops[next_rand(&s, seed % 7 == 0 ? 5 : 4)];
				int imm = (int)next_rand(&s, 2);
				int v = op == VTA_ALU_OPCODE_SHR ? (int)next_rand(&s, 5) : (int)next_rand(&s, 200) - 100;
				vta_insn_t a = alu(op, imm, v, ab, ae, 1 + next_rand(&s, 4), 1 + next_rand(&s, 3));
				a.dst_factor_out = next_rand(&s, 5), a.src_factor_out = next_rand(&s, 5);
				a.dst_factor_in = next_rand(&s, 3), a.src_factor_in = next_rand(&s, 3);
				emit(a);
			}
		}
		store_acc_bytes(64);
		go(0);
	}
}

/* ------------------------------------------------------------ random */
static void check_seed(uint64_t seed, int kind)
{
	cs_gen(&P, seed, kind);
	int code = -1;
	if (cs_run(C(), &P, &code))
		test_fail_(__FILE__, __LINE__, "seed %llu: %s", (unsigned long long)seed, C()->why);
}

static void test_random_valid(void)
{
	for (uint64_t s = 1; s <= 40; s++)
		check_seed(s, 0);
}

static void test_random_faults(void)
{
	for (uint64_t s = 100; s < 160; s++)
		check_seed(s, 1);
}

/* The DRAM model itself: the protocol monitor fails a run that breaks a rule
 * it checks (bursts longer than an 8-beat limit; an ARVALID dropped before
 * ARREADY, shown to the monitor by its test hook), and injected error
 * responses on reads and on writes come back as VTA_ERANGE naming the DRAM,
 * while an injected range nobody touches changes nothing. */
static void test_dram_model(void)
{
	cs_ctx_t *c = C();
	vta_rtlsim_axi_t keep = c->axi;
	vta_error_t er;
	begin();
	vta_insn_t w = ld(VTA_MEM_ID_WGT, 0, din(VTA_MEM_ID_WGT), 1, 2, 2);
	w.push_next = 1;
	emit(w);
	vta_insn_t f = fin();
	f.pop_prev = 1;
	emit(f);
	CHECK_EQ(cs_run_rtl(c, &P, &er), 0);
	CHECK(vta_rtlsim_protocol_error(c->rtl) == NULL);
	c->axi.max_burst = 8; /* a WGT element alone is longer on buses up to 128 bits */
	if ((uint32_t)VTA_WGT_ELEM_BYTES * 2 > 8u * (VTA_BUS_WIDTH / 8)) {
		CHECK_EQ(cs_run_rtl(c, &P, &er), VTA_EIO);
		CHECK(strstr(er.msg, "longer than 8") != NULL);
		CHECK(vta_rtlsim_protocol_error(c->rtl) != NULL);
	}
	c->axi = keep;
	c->axi.backpressure = 1; /* stalls: some AR waits for ARREADY */
	vta_rtlsim_test_drop_arvalid(c->rtl);
	CHECK_EQ(cs_run_rtl(c, &P, &er), VTA_EIO);
	CHECK(strstr(er.msg, "ARVALID dropped") != NULL);
	CHECK_EQ(cs_run_rtl(c, &P, &er), 0); /* one-shot */
	c->axi = keep;

	/* error responses: a read of INP data, a STORE */
	uint64_t inp = (uint64_t)din(VTA_MEM_ID_INP) * VTA_INP_ELEM_BYTES;
	uint64_t out = (uint64_t)OA * VTA_OUT_ELEM_BYTES;
	for (unsigned resp = 2; resp <= 3; resp++) {
		CHECK_EQ(vta_rtlsim_inject_error(c->rtl, inp + VTA_INP_ELEM_BYTES, 1, resp), 0);
		begin();
		vta_insn_t in = ld(VTA_MEM_ID_INP, 0, din(VTA_MEM_ID_INP), 1, 4, 4);
		in.push_next = 1;
		emit(in);
		f = fin();
		f.pop_prev = 1;
		emit(f);
		CHECK_EQ(cs_run_rtl(c, &P, &er), VTA_ERANGE);
		CHECK(strstr(er.msg, "DRAM") != NULL);
		vta_rtlsim_clear_errors(c->rtl);

		CHECK_EQ(vta_rtlsim_inject_error(c->rtl, out + 2 * VTA_OUT_ELEM_BYTES, 1, resp), 0);
		begin();
		store_and_finish(st(0, OA, 1, 4, 4));
		CHECK_EQ(cs_run_rtl(c, &P, &er), VTA_ERANGE);
		CHECK(strstr(er.msg, "DRAM") != NULL);
		vta_rtlsim_clear_errors(c->rtl);
	}
	CHECK_EQ(vta_rtlsim_inject_error(c->rtl, 0, 1, 1), VTA_EINVAL);
	/* a range nobody touches: the same result as the golden model */
	CHECK_EQ(vta_rtlsim_inject_error(c->rtl, CS_DRAM - 4096, 4096, 2), 0);
	begin();
	store_and_finish(st(0, OA, 2, 3, 5));
	go(0);
	vta_rtlsim_clear_errors(c->rtl);
}

/* Results that must not depend on DRAM timing (docs/rtl.md, FINISH): the
 * error and FINISH cases again at latencies 1, 8 and 100, with and without
 * back-pressure, several stall seeds each. */
static void e_reserved_opcodes(void);
static void e_illegal_behind_blocked(void);
static void e_dram_range(void);
static void e_finish_blocked_timed(void);
static void e_deadlock(void);
static void test_finish(void);
static void test_finish_drops_queued(void);
static void test_tokens_persist(void);
static void test_timings(void)
{
	static void (*const cases[])(void) = {e_reserved_opcodes, e_illegal_behind_blocked,
					      e_dram_range, e_deadlock, e_finish_blocked_timed, test_finish,
					      test_finish_drops_queued, test_tokens_persist};
	static const unsigned lats[] = {1, 8, 100};
	/* sanitized builds: the FINISH case only, one stall seed */
	size_t ncases = TEST_SANITIZED ? 1 : sizeof cases / sizeof cases[0];
	vta_rtlsim_axi_t keep = C()->axi;
	for (unsigned l = 0; l < 3; l++)
		for (int bp = 0; bp <= 1; bp++)
			for (uint64_t seed = 1; seed <= (bp && !TEST_SANITIZED ? 3u : 1u); seed++) {
				C()->axi = keep;
				C()->axi.rd_latency = C()->axi.wr_latency = lats[l];
				C()->axi.backpressure = bp;
				C()->axi.seed = seed;
				int before = test_failed_;
				for (size_t k = 0; k < ncases; k++)
					cases[k]();
				if (test_failed_ && !before) {
					size_t n = strlen(test_why_);
					snprintf(test_why_ + n, sizeof test_why_ - n,
						 " (latency %u, back-pressure %d, seed %llu)", lats[l], bp,
						 (unsigned long long)seed);
				}
			}
	C()->axi = keep;
}

static void test_teardown(void)
{
	if (ready)
		cs_fini(&ctx);
	ready = 0;
}

int main(int argc, char **argv)
{
	/* our options first; the rest goes to test_main */
	int k = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--latency") && i + 1 < argc)
			opt_latency = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--backpressure") && i + 1 < argc)
			opt_bp = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			opt_seed = strtoull(argv[++i], NULL, 0);
		else
			argv[k++] = argv[i];
	}
	argc = k;
	static const test_case_t cases[] = {
		{"registers", test_registers},
		{"load_acc_padded", test_load_acc_padded},
		{"load_uop_padded", test_load_uop_padded},
		{"load_inp_wgt_padded", test_load_inp_wgt_padded},
		{"load_shapes", test_load_shapes},
		{"load_x0_noop", test_load_x0_noop},
		{"base_registers", test_base_registers},
		{"gemm_loops", test_gemm_loops},
		{"same_acc_sequential", test_same_acc_sequential},
		{"pipe_gemm_distance", test_pipe_gemm_distance},
		{"pipe_alu_forward", test_pipe_alu_forward},
		{"pipe_mul", test_pipe_mul},
		{"pipe_src_cache", test_pipe_src_cache},
		{"pipe_across", test_pipe_across},
		{"pipe_throughput", test_pipe_throughput},
		{"overlap_cases", test_overlap_cases},
		{"overlap_tokens", test_overlap_tokens},
		{"overlap_errors", test_overlap_errors},
		{"overlap_edges", test_overlap_edges},
		{"overlap_random", test_overlap_random},
		{"alu_ops", test_alu_ops},
		{"alu_loops", test_alu_loops},
		{"narrowing", test_narrowing},
		{"store_strided", test_store_strided},
		{"finish", test_finish},
		{"tokens_persist", test_tokens_persist},
		{"finish_drops_queued", test_finish_drops_queued},
		{"soft_reset_idle", test_soft_reset_idle},
		{"soft_reset_midrun", test_soft_reset_midrun},
		{"start_busy", test_start_busy},
		{"interrupts", test_interrupts},
		{"watchdog_zero", test_watchdog_zero},
		{"bus_errors", test_bus_errors},
		{"recovery", test_recovery},
		{"err_reserved_opcodes", e_reserved_opcodes},
		{"err_illegal_behind_blocked", e_illegal_behind_blocked},
		{"err_load_types", e_load_types},
		{"err_alu_opcodes", e_alu_opcodes},
		{"err_store_pad", e_store_pad},
		{"err_flags_without_queue", e_flags_without_queue},
		{"err_load_sram_range", e_load_sram_range},
		{"err_compute_range", e_compute_range},
		{"err_dram_range", e_dram_range},
		{"err_token_overflow", e_token_overflow},
		{"err_deadlock", e_deadlock},
		{"err_queue_full", e_queue_full},
		{"err_finish_blocked", e_finish_blocked},
		{"random_valid", test_random_valid},
		{"random_faults", test_random_faults},
		{"dram_model", test_dram_model},
		{"timings", test_timings},
		{"teardown", test_teardown},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
