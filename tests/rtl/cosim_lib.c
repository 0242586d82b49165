/* SPDX-License-Identifier: Apache-2.0 */
/* Differential testing of the RTL against the golden model (cosim_lib.h). */
#include "cosim_lib.h"

#include <vta/vta_regmap.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

int cs_init(cs_ctx_t *c)
{
	vta_error_t err;
	memset(c, 0, sizeof *c);
	c->fsim = vta_fsim_create(CS_DRAM, &err);
	if (!c->fsim) {
		snprintf(c->why, sizeof c->why, "fsim: %s", err.msg);
		return -1;
	}
	c->rtl = vta_rtlsim_create(CS_DRAM, &err);
	if (!c->rtl) {
		snprintf(c->why, sizeof c->why, "rtlsim: %s", err.msg);
		return -1;
	}
	vta_rtlsim_get_axi(c->rtl, &c->axi);
	c->data = malloc(CS_DRAM);
	if (!c->data)
		return -1;
	uint64_t s = 12345;
	for (size_t i = 0; i < CS_DRAM; i += 8) {
		uint64_t r = test_rand(&s);
		memcpy(c->data + i, &r, 8);
	}
	return 0;
}

void cs_fini(cs_ctx_t *c)
{
	vta_fsim_destroy(c->fsim);
	vta_rtlsim_destroy(c->rtl);
	free(c->data);
}

static void image(const cs_prog_t *p, const uint8_t *tmpl, uint8_t *dram)
{
	memcpy(dram, tmpl, CS_DRAM);
	memset(dram, 0, CS_DATA_AT);
	for (uint32_t i = 0; i < p->n; i++)
		vta_insn_store(&p->insn[i], dram + 16 * (size_t)i);
	for (uint32_t i = 0; i < p->nuops; i++)
		memcpy(dram + CS_UOP_AT + 4 * (size_t)i, &p->uops[i], 4);
}

int cs_prepare(cs_ctx_t *c, const cs_prog_t *p, vta_error_t *ef)
{
	c->why[0] = 0;
	vta_fsim_reset(c->fsim);
	image(p, c->data, vta_fsim_dram(c->fsim));
	vta_fsim_set_bases(c->fsim, &p->bases);
	int f = vta_fsim_run(c->fsim, 0, p->n, ef);
	image(p, c->data, vta_rtlsim_dram(c->rtl));
	vta_rtlsim_set_bases(c->rtl, &p->bases);
	return f;
}

int cs_same_dram(cs_ctx_t *c)
{
	const uint8_t *a = vta_fsim_dram(c->fsim), *b = vta_rtlsim_dram(c->rtl);
	if (!memcmp(a, b, CS_DRAM))
		return 0;
	size_t i = 0, n = 0;
	while (a[i] == b[i])
		i++;
	for (size_t j = i; j < CS_DRAM; j++)
		n += a[j] != b[j];
	snprintf(c->why, sizeof c->why, "DRAM differs at 0x%zx (golden 0x%02x, rtl 0x%02x), %zu bytes differ",
		 i, a[i], b[i], n);
	return 1;
}

static int run_both(cs_ctx_t *c, const cs_prog_t *p, int *code, int power_on)
{
	vta_error_t ef, er;
	vta_rtlsim_set_axi(c->rtl, p->has_axi ? &p->axi : &c->axi);
	if (power_on && vta_rtlsim_reset(c->rtl, &er)) {
		snprintf(c->why, sizeof c->why, "rtlsim reset: %s", er.msg);
		return -1;
	}
	int f = cs_prepare(c, p, &ef);
	int r = vta_rtlsim_run(c->rtl, 0, p->n, &er);
	c->rtl_cycles = vta_rtlsim_counters(c->rtl)->cycles;
	if (code)
		*code = f;
	if (f != r) {
		snprintf(c->why, sizeof c->why, "golden %d (%.300s) vs rtl %d (%.300s)", f,
			 f ? ef.msg : "ok", r, r ? er.msg : "ok");
		return 1;
	}
	if (f && ef.insn_index != er.insn_index) {
		snprintf(c->why, sizeof c->why, "error at instruction %ld on the golden model (%.300s), "
			 "%ld on the rtl (%.300s)", ef.insn_index, ef.msg, er.insn_index, er.msg);
		return 1;
	}
	if (f)
		return 0;
	if (cs_same_dram(c))
		return 1;
	/* counters that mean the same thing on both (token waits and cycles do not) */
	const vta_counters_t *cf = vta_fsim_counters(c->fsim), *cr = vta_rtlsim_counters(c->rtl);
	static const char *const what[] = {"insns", "bytes_read", "gemm_uops", "gemm_reset_uops",
					   "alu_uops", "bytes_written", "insn_bytes_read"};
	const uint64_t *fv[] = {cf->insns, cf->bytes_read, &cf->gemm_uops, &cf->gemm_reset_uops,
				&cf->alu_uops, &cf->bytes_written, &cf->insn_bytes_read};
	const uint64_t *rv[] = {cr->insns, cr->bytes_read, &cr->gemm_uops, &cr->gemm_reset_uops,
				&cr->alu_uops, &cr->bytes_written, &cr->insn_bytes_read};
	for (unsigned k = 0; k < sizeof what / sizeof what[0]; k++)
		for (unsigned j = 0; j < (k < 2 ? 8u : 1u); j++)
			if (fv[k][j] != rv[k][j]) {
				snprintf(c->why, sizeof c->why,
					 "counter %s[%u]: golden %llu, rtl %llu", what[k], j,
					 (unsigned long long)fv[k][j], (unsigned long long)rv[k][j]);
				return 1;
			}
	return 0;
}

int cs_run(cs_ctx_t *c, const cs_prog_t *p, int *code) { return run_both(c, p, code, 1); }

int cs_run_warm(cs_ctx_t *c, const cs_prog_t *p, int *code) { return run_both(c, p, code, 0); }

/* Zeros into every row of SRAM t (and OUT with ACC): LOADs of padding only
 * (y_size 0, x_size 1, all four pads k <= 15: 2k rows of 2k+1 zero elements). */
static void scrub(cs_prog_t *q, unsigned t, uint32_t depth)
{
	uint32_t k = 15;
	while (k > 1 && 2 * k * (2 * k + 1) > depth)
		k--;
	uint32_t blk = 2 * k * (2 * k + 1);
	for (uint32_t at = 0; at < depth; at += blk) {
		vta_insn_t in = {0};
		in.opcode = VTA_OPCODE_LOAD;
		in.memory_type = t;
		in.x_size = in.x_stride = 1;
		in.x_pad_0 = in.x_pad_1 = in.y_pad_0 = in.y_pad_1 = k;
		in.sram_base = at + blk <= depth ? at : depth - blk;
		cs_emit(q, &in);
	}
}

int cs_run_reset_midrun(cs_ctx_t *c, const cs_prog_t *p, uint64_t after, int *code)
{
	vta_error_t er;
	c->why[0] = 0;
	vta_rtlsim_set_axi(c->rtl, p->has_axi ? &p->axi : &c->axi);
	if (vta_rtlsim_reset(c->rtl, &er)) {
		snprintf(c->why, sizeof c->why, "rtlsim reset: %s", er.msg);
		return -1;
	}
	vta_rtlsim_t *r = c->rtl;
	image(p, c->data, vta_rtlsim_dram(r));
	const uint64_t b[5] = {p->bases.inp, p->bases.wgt, p->bases.uop, p->bases.acc, p->bases.out};
	static const uint32_t reg[5] = {VTA_REG_LOAD_INP_ADDR, VTA_REG_LOAD_WGT_ADDR,
					VTA_REG_COMPUTE_UOP_ADDR, VTA_REG_COMPUTE_BIAS_ADDR,
					VTA_REG_STORE_OUT_ADDR};
	for (unsigned i = 0; i < 5; i++) {
		vta_rtlsim_reg_write(r, reg[i], (uint32_t)b[i]);
		vta_rtlsim_reg_write(r, reg[i] + 4, (uint32_t)(b[i] >> 32));
	}
	vta_rtlsim_reg_write(r, VTA_REG_FETCH_INSN_ADDR, 0);
	vta_rtlsim_reg_write(r, VTA_REG_FETCH_INSN_ADDR_HI, 0);
	vta_rtlsim_reg_write(r, VTA_REG_FETCH_INSN_COUNT, p->n);
	vta_rtlsim_reg_write(r, VTA_REG_FETCH_CTRL, 1);
	vta_rtlsim_step(r, after);
	if (vta_rtlsim_soft_reset(r, 1000000, &er)) {
		snprintf(c->why, sizeof c->why, "soft reset %llu cycles into the run: %s",
			 (unsigned long long)after, er.msg);
		return 1;
	}
	unsigned pend = vta_rtlsim_axi_pending(r);
	const char *v = vta_rtlsim_protocol_error(r);
	if (pend || v) {
		snprintf(c->why, sizeof c->why, "soft reset %llu cycles into the run: %s%u AXI bursts "
			 "left unfinished", (unsigned long long)after, v ? v : "", pend);
		return 1;
	}
	static cs_prog_t z;
	memset(&z, 0, sizeof z);
	scrub(&z, VTA_MEM_ID_INP, VTA_INP_BUFF_DEPTH);
	scrub(&z, VTA_MEM_ID_WGT, VTA_WGT_BUFF_DEPTH);
	scrub(&z, VTA_MEM_ID_ACC, VTA_ACC_BUFF_DEPTH);
	scrub(&z, VTA_MEM_ID_UOP, VTA_UOP_BUFF_DEPTH);
	vta_insn_t in = {0};
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = VTA_MEM_ID_INP;
	in.push_next = 1; /* FINISH after the last load */
	cs_emit(&z, &in);
	in = (vta_insn_t){0};
	in.opcode = VTA_OPCODE_FINISH;
	in.pop_prev = 1;
	cs_emit(&z, &in);
	for (uint32_t i = 0; i < z.n; i++)
		vta_insn_store(&z.insn[i], vta_rtlsim_dram(r) + 16 * (size_t)i);
	if (vta_rtlsim_run(r, 0, z.n, &er)) {
		snprintf(c->why, sizeof c->why, "clearing the SRAMs after the soft reset: %s", er.msg);
		return 1;
	}
	int rc = run_both(c, p, code, 0);
	if (rc) {
		char w[sizeof c->why];
		snprintf(w, sizeof w, "after a soft reset %llu cycles into the run: %.900s",
			 (unsigned long long)after, c->why);
		memcpy(c->why, w, sizeof c->why);
	}
	return rc;
}

int cs_check(cs_ctx_t *c, const cs_prog_t *p, int *code)
{
	return p->reset_after ? cs_run_reset_midrun(c, p, p->reset_after, code) : cs_run(c, p, code);
}

int cs_run_rtl(cs_ctx_t *c, const cs_prog_t *p, vta_error_t *err)
{
	vta_rtlsim_set_axi(c->rtl, p->has_axi ? &p->axi : &c->axi);
	int rc = vta_rtlsim_reset(c->rtl, err);
	if (rc)
		return rc;
	image(p, c->data, vta_rtlsim_dram(c->rtl));
	vta_rtlsim_set_bases(c->rtl, &p->bases);
	rc = vta_rtlsim_run(c->rtl, 0, p->n, err);
	c->rtl_cycles = vta_rtlsim_counters(c->rtl)->cycles;
	return rc;
}

vta_insn_t cs_mem(unsigned op, unsigned t, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
		  uint32_t stride)
{
	vta_insn_t in = {0};
	in.opcode = op;
	in.memory_type = t;
	in.sram_base = sram;
	in.dram_base = dram;
	in.y_size = y;
	in.x_size = x;
	in.x_stride = stride;
	return in;
}

void cs_emit(cs_prog_t *p, const vta_insn_t *in)
{
	vta_error_t err;
	if (p->n >= CS_MAX_INSNS)
		return;
	if (vta_insn_encode(in, &p->insn[p->n], &err)) {
		test_fail_(__FILE__, __LINE__, "encode: %s", err.msg);
		return;
	}
	p->n++;
}

void cs_emit_raw(cs_prog_t *p, uint64_t w0, uint64_t w1)
{
	if (p->n >= CS_MAX_INSNS)
		return;
	p->insn[p->n].w[0] = w0;
	p->insn[p->n].w[1] = w1;
	p->n++;
}

/* ------------------------------------------------------------ generator */
typedef struct gen {
	uint64_t s;
	vta_insn_t in[CS_MAX_INSNS];
	int mod[CS_MAX_INSNS];
	uint32_t n;
	uint32_t nuops;
} gen_t;

static long rr(gen_t *g, long lo, long hi) { return test_rand_range(&g->s, lo, hi); }
static int chance(gen_t *g, int pct) { return rr(g, 0, 99) < pct; }

static int module_of(const vta_insn_t *in) { return (int)vta_insn_module(in); }

static void raw_append(gen_t *g, const vta_insn_t *in)
{
	if (g->n >= CS_MAX_INSNS - 4)
		return;
	g->in[g->n] = *in;
	g->mod[g->n] = module_of(in);
	g->n++;
}

/* Append in, chained to the previous instruction by a token when the module
 * changes (load<->store goes through a compute no-op). */
static void append(gen_t *g, vta_insn_t in)
{
	int m = module_of(&in);
	if (g->n) {
		vta_insn_t *pv = &g->in[g->n - 1];
		int pm = g->mod[g->n - 1];
		if ((pm == 1 && m == 3) || (pm == 3 && m == 1)) {
			vta_insn_t relay = {0};
			relay.opcode = VTA_OPCODE_LOAD;
			relay.memory_type = VTA_MEM_ID_UOP;
			append(g, relay);
			pv = &g->in[g->n - 1];
			pm = 2;
		}
		if (pm == 1 && m == 2) { pv->push_next = 1; in.pop_prev = 1; }
		if (pm == 2 && m == 1) { pv->push_prev = 1; in.pop_next = 1; }
		if (pm == 2 && m == 3) { pv->push_next = 1; in.pop_prev = 1; }
		if (pm == 3 && m == 2) { pv->push_prev = 1; in.pop_next = 1; }
	}
	raw_append(g, &in);
}

static uint32_t elem_bytes(unsigned t)
{
	switch (t) {
	case VTA_MEM_ID_UOP: return 4;
	case VTA_MEM_ID_WGT: return VTA_WGT_ELEM_BYTES;
	case VTA_MEM_ID_INP: return VTA_INP_ELEM_BYTES;
	case VTA_MEM_ID_ACC: return VTA_ACC_ELEM_BYTES;
	case VTA_MEM_ID_ACC_8BIT: return VTA_ACC8_ELEM_BYTES;
	default: return VTA_OUT_ELEM_BYTES;
	}
}

static uint32_t depth_of(unsigned t)
{
	switch (t) {
	case VTA_MEM_ID_UOP: return VTA_UOP_BUFF_DEPTH;
	case VTA_MEM_ID_WGT: return VTA_WGT_BUFF_DEPTH;
	case VTA_MEM_ID_INP: return VTA_INP_BUFF_DEPTH;
	default: return VTA_ACC_BUFF_DEPTH;
	}
}

/* A size up to max, usually small: most programs stay cheap, some reach the
 * limits (x 64, y 32, pads 15, 64 micro-ops, loop extents 64). */
static uint32_t skewed(gen_t *g, uint32_t lo, uint32_t small, uint32_t max)
{
	long r = rr(g, 0, 99);
	if (r < 70)
		return (uint32_t)rr(g, lo, small);
	if (r < 92)
		return (uint32_t)rr(g, lo, (small + max) / 2);
	return (uint32_t)rr(g, lo, max);
}

/* DRAM elements of type t the random data area holds for one transfer */
static uint32_t dram_room(unsigned t) { return (CS_OUT_AT - CS_DATA_AT) / elem_bytes(t) / 2; }

static vta_insn_t gen_load(gen_t *g, unsigned t)
{
	vta_insn_t in = {0};
	uint32_t E = elem_bytes(t), D = depth_of(t);
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = t;
	in.x_size = skewed(g, 1, t == VTA_MEM_ID_UOP ? 12 : 6, 64);
	in.y_size = chance(g, 10) ? 0 : skewed(g, 1, 4, 32);
	if (chance(g, 30)) {
		uint32_t pm = chance(g, 80) ? 2 : 15;
		in.x_pad_0 = (uint32_t)rr(g, 0, pm);
		in.x_pad_1 = (uint32_t)rr(g, 0, pm);
		in.y_pad_0 = (uint32_t)rr(g, 0, pm);
		in.y_pad_1 = (uint32_t)rr(g, 0, pm);
	}
	in.x_stride = chance(g, 50) ? in.x_size : in.x_size + (uint32_t)rr(g, 0, 5);
	/* the block must fit half the SRAM (small configurations) and the data area */
	for (;;) {
		uint32_t W = in.x_pad_0 + in.x_size + in.x_pad_1;
		uint32_t rows = in.y_pad_0 + in.y_size + in.y_pad_1;
		uint32_t span = in.y_size ? (in.y_size - 1) * in.x_stride + in.x_size : 0;
		if (rows * W <= D / 2 && span <= dram_room(t))
			break;
		if (in.y_size > 1)
			in.y_size /= 2;
		else if (in.y_pad_0 + in.y_pad_1 + in.x_pad_0 + in.x_pad_1)
			in.y_pad_0 = in.y_pad_1 = in.x_pad_0 = in.x_pad_1 = 0;
		else if (in.x_size > 1)
			in.x_size /= 2, in.x_stride = in.x_size;
		else
			in.y_size = 0;
	}
	uint32_t W = in.x_pad_0 + in.x_size + in.x_pad_1;
	uint32_t rows = in.y_pad_0 + in.y_size + in.y_pad_1;
	in.sram_base = (uint32_t)rr(g, 0, (long)(D - rows * W));
	uint32_t span = in.y_size ? (in.y_size - 1) * in.x_stride + in.x_size : 0;
	if (t == VTA_MEM_ID_UOP) {
		if (span > g->nuops)
			in.y_size = 1, span = in.x_size;
		if (span > g->nuops)
			in.x_size = in.x_stride = span = 1;
		in.dram_base = CS_UOP_AT / 4 + (uint32_t)rr(g, 0, (long)(g->nuops - span));
	} else {
		uint32_t lo = CS_DATA_AT / E, hi = CS_DRAM / E - span;
		in.dram_base = (uint32_t)rr(g, lo, hi);
	}
	return in;
}

/* factor so that (iter-1)*f stays below quarter depth */
static uint32_t factor(gen_t *g, uint32_t iter, uint32_t D, unsigned width)
{
	uint32_t lim = D / 4 / (iter > 1 ? iter - 1 : 1);
	uint32_t maxw = (1u << width) - 1;
	if (lim > maxw)
		lim = maxw;
	if (chance(g, 20))
		return 0;
	return (uint32_t)rr(g, 0, lim < 8 ? lim : (chance(g, 70) ? 8 : lim));
}

/* Micro-op range and loop extents; at most 4096 micro-op executions per
 * instruction so a program stays a few milliseconds of simulation. */
static void gen_loops(gen_t *g, vta_insn_t *in)
{
	in->uop_bgn = (uint32_t)rr(g, 0, g->nuops - 1);
	uint32_t len = skewed(g, 1, 4, 64);
	in->uop_end = in->uop_bgn + len > g->nuops ? g->nuops : in->uop_bgn + len;
	if (chance(g, 3))
		in->uop_end = in->uop_bgn; /* zero iterations */
	in->iter_out = chance(g, 3) ? 0 : skewed(g, 1, 4, 64);
	in->iter_in = skewed(g, 1, 4, 64);
	uint32_t n = in->uop_end > in->uop_bgn ? in->uop_end - in->uop_bgn : 1;
	while (n * (in->iter_out ? in->iter_out : 1) * in->iter_in > 4096)
		if (in->iter_in > in->iter_out)
			in->iter_in /= 2;
		else
			in->iter_out /= 2;
}

static vta_insn_t gen_gemm(gen_t *g)
{
	vta_insn_t in = {0};
	in.opcode = VTA_OPCODE_GEMM;
	in.reset = chance(g, 20);
	gen_loops(g, &in);
	in.dst_factor_out = factor(g, in.iter_out, VTA_ACC_BUFF_DEPTH, VTA_GEMM_DST_FACTOR_OUT_WIDTH);
	in.dst_factor_in = factor(g, in.iter_in, VTA_ACC_BUFF_DEPTH, VTA_GEMM_DST_FACTOR_IN_WIDTH);
	in.src_factor_out = factor(g, in.iter_out, VTA_INP_BUFF_DEPTH, VTA_GEMM_SRC_FACTOR_OUT_WIDTH);
	in.src_factor_in = factor(g, in.iter_in, VTA_INP_BUFF_DEPTH, VTA_GEMM_SRC_FACTOR_IN_WIDTH);
	in.wgt_factor_out = factor(g, in.iter_out, VTA_WGT_BUFF_DEPTH, VTA_GEMM_WGT_FACTOR_OUT_WIDTH);
	in.wgt_factor_in = factor(g, in.iter_in, VTA_WGT_BUFF_DEPTH, VTA_GEMM_WGT_FACTOR_IN_WIDTH);
	return in;
}

static vta_insn_t gen_alu(gen_t *g)
{
	vta_insn_t in = {0};
	in.opcode = VTA_OPCODE_ALU;
	gen_loops(g, &in);
	in.alu_opcode = (uint32_t)rr(g, 0, 4);
	in.use_imm = chance(g, 50);
	if (in.use_imm)
		in.imm = (int32_t)(in.alu_opcode == VTA_ALU_OPCODE_SHR && chance(g, 80) ? rr(g, -31, 31)
										      : rr(g, -32768, 32767));
	in.dst_factor_out = factor(g, in.iter_out, VTA_ACC_BUFF_DEPTH, VTA_ALU_DST_FACTOR_OUT_WIDTH);
	in.dst_factor_in = factor(g, in.iter_in, VTA_ACC_BUFF_DEPTH, VTA_ALU_DST_FACTOR_IN_WIDTH);
	in.src_factor_out = factor(g, in.iter_out, VTA_ACC_BUFF_DEPTH, VTA_ALU_SRC_FACTOR_OUT_WIDTH);
	in.src_factor_in = factor(g, in.iter_in, VTA_ACC_BUFF_DEPTH, VTA_ALU_SRC_FACTOR_IN_WIDTH);
	return in;
}

static vta_insn_t gen_store(gen_t *g)
{
	vta_insn_t in = {0};
	in.opcode = VTA_OPCODE_STORE;
	in.memory_type = VTA_MEM_ID_OUT;
	in.x_size = skewed(g, 1, 6, 64);
	in.y_size = skewed(g, 1, 4, 32);
	in.x_stride = chance(g, 50) ? in.x_size : in.x_size + (uint32_t)rr(g, 0, 5);
	while (in.x_size * in.y_size > VTA_OUT_BUFF_DEPTH / 2) {
		if (in.y_size > 1)
			in.y_size /= 2;
		else
			in.x_size /= 2, in.x_stride = in.x_size;
	}
	in.sram_base = (uint32_t)rr(g, 0, VTA_OUT_BUFF_DEPTH - in.x_size * in.y_size);
	uint32_t E = VTA_OUT_ELEM_BYTES;
	uint32_t span = (in.y_size - 1) * in.x_stride + in.x_size;
	in.dram_base = (uint32_t)rr(g, CS_OUT_AT / E, CS_DRAM / E - span);
	return in;
}

static vta_insn_t gen_any(gen_t *g)
{
	long r = rr(g, 0, 99);
	if (r < 14) return gen_load(g, VTA_MEM_ID_INP);
	if (r < 28) return gen_load(g, VTA_MEM_ID_WGT);
	if (r < 35) return gen_load(g, VTA_MEM_ID_ACC);
	if (r < 39) return gen_load(g, VTA_MEM_ID_ACC_8BIT);
	if (r < 42) return gen_load(g, VTA_MEM_ID_UOP);
	if (r < 62) return gen_gemm(g);
	if (r < 84) return gen_alu(g);
	if (r < 97) return gen_store(g);
	vta_insn_t nop = {0}; /* token-only no-op of some module */
	nop.opcode = chance(g, 50) ? VTA_OPCODE_STORE : VTA_OPCODE_LOAD;
	nop.memory_type = (uint32_t)rr(g, 0, 7);
	nop.sram_base = (uint32_t)rr(g, 0, 65535);
	return nop;
}

static void gen_fault(gen_t *g, int f)
{
	vta_insn_t in = {0};
	switch (f) {
	case 0: /* reserved opcode */
		in.opcode = (uint32_t)rr(g, 5, 7);
		append(g, in);
		break;
	case 1: /* LOAD of memory type 4, 6 or 7 */
		in = gen_load(g, VTA_MEM_ID_INP);
		in.memory_type = (uint32_t)(chance(g, 34) ? 4 : rr(g, 6, 7));
		in.dram_base = CS_DATA_AT / 16;
		append(g, in);
		break;
	case 2: /* reserved ALU opcode */
		in = gen_alu(g);
		in.alu_opcode = (uint32_t)rr(g, 5, 7);
		append(g, in);
		break;
	case 3: /* STORE with padding */
		in = gen_store(g);
		in.x_pad_0 = 1;
		append(g, in);
		break;
	case 4: /* flag without a queue */
		if (chance(g, 50)) {
			in = gen_load(g, chance(g, 50) ? VTA_MEM_ID_INP : VTA_MEM_ID_WGT);
			append(g, in);
			if (chance(g, 50)) g->in[g->n - 1].push_prev = 1;
			else g->in[g->n - 1].pop_prev = 1;
		} else {
			in = gen_store(g);
			append(g, in);
			g->in[g->n - 1].push_next = 1;
		}
		break;
	case 5: /* load block beyond the SRAM */
		in = gen_load(g, (unsigned)(chance(g, 50) ? VTA_MEM_ID_INP : VTA_MEM_ID_ACC));
		in.sram_base = depth_of(in.memory_type) - 1;
		in.x_size = in.x_stride = 2;
		in.y_size = 1;
		append(g, in);
		break;
	case 6: /* GEMM / ALU index beyond the SRAM */
		in = chance(g, 50) ? gen_gemm(g) : gen_alu(g);
		in.uop_end = in.uop_bgn + 1;
		in.iter_out = 2;
		in.iter_in = 1;
		in.reset = 0;
		in.dst_factor_out = VTA_ACC_BUFF_DEPTH - 1;
		if (in.dst_factor_out >= (1u << VTA_GEMM_DST_FACTOR_OUT_WIDTH))
			in.dst_factor_out = (1u << VTA_GEMM_DST_FACTOR_OUT_WIDTH) - 1;
		append(g, in);
		break;
	case 7: /* DRAM beyond the end */
		in = gen_load(g, VTA_MEM_ID_INP);
		in.dram_base = CS_DRAM / VTA_INP_ELEM_BYTES + (uint32_t)rr(g, 0, 1000);
		append(g, in);
		break;
	case 8: /* pop of a token never pushed */
		in = gen_gemm(g);
		append(g, in);
		g->in[g->n - 1].pop_next = 1;
		break;
	default: /* token overflow: compute pushes g2l that nobody pops, then FINISH */
		for (int i = 0; i < VTA_TOKEN_QUEUE_DEPTH + 1; i++) {
			vta_insn_t t = {0};
			t.opcode = VTA_OPCODE_LOAD;
			t.memory_type = VTA_MEM_ID_UOP;
			if (i == 0)
				append(g, t);
			else
				raw_append(g, &t);
			g->in[g->n - 1].push_prev = 1;
		}
		break;
	}
}

/*
 * A double-buffered pipeline (the way TVM schedules VTA): iteration i loads
 * INP/WGT into buffer i%2, computes on it (optionally after an ACC load) into
 * ACC/OUT buffer i%2, and stores that; tokens let load run up to two
 * iterations ahead of compute and compute ahead of store, so the three
 * modules overlap. Buffers are Q rows; micro-ops [0,K) address buffer 0 and
 * [K,2K) the same rows of buffer 1.
 */
enum { PQ = 8 };
static void gen_pipelined(gen_t *g, cs_prog_t *p)
{
	uint32_t K = (uint32_t)rr(g, 1, 6);
	g->nuops = 2 * K;
	p->nuops = g->nuops;
	for (uint32_t j = 0; j < K; j++) {
		vta_uop_t u = {(uint32_t)rr(g, 0, PQ - 1), (uint32_t)rr(g, 0, PQ - 1),
			       (uint32_t)rr(g, 0, PQ - 1)};
		vta_uop_encode(&u, &p->uops[j], NULL);
		u.dst_idx += PQ; u.src_idx += PQ; u.wgt_idx += PQ;
		vta_uop_encode(&u, &p->uops[K + j], NULL);
	}
	vta_insn_t in = {0};
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = VTA_MEM_ID_UOP;
	in.x_size = in.x_stride = g->nuops;
	in.y_size = 1;
	in.dram_base = CS_UOP_AT / 4;
	raw_append(g, &in);
	int n = (int)rr(g, 2, 8);
	for (int i = 0; i < n; i++) {
		uint32_t b = (uint32_t)i % 2;
		/* load: wait until compute released buffer b (iteration i-2) */
		for (int k = 0; k < 2; k++) {
			unsigned t = k ? VTA_MEM_ID_WGT : VTA_MEM_ID_INP;
			memset(&in, 0, sizeof in);
			in.opcode = VTA_OPCODE_LOAD;
			in.memory_type = t;
			in.x_size = (uint32_t)rr(g, 1, PQ);
			in.x_stride = in.x_size;
			in.y_size = 1;
			in.sram_base = b * PQ + (uint32_t)rr(g, 0, PQ - in.x_size);
			in.dram_base = (uint32_t)rr(g, CS_DATA_AT / elem_bytes(t),
						    CS_OUT_AT / elem_bytes(t) - in.x_size);
			in.pop_next = k == 0 && i >= 2;
			in.push_next = k == 1;
			raw_append(g, &in);
		}
		/* compute: wait for the data and for store to release OUT buffer b */
		int first = 1;
		if (chance(g, 30)) {
			in = (vta_insn_t){0};
			in.opcode = VTA_OPCODE_LOAD;
			in.memory_type = chance(g, 50) ? VTA_MEM_ID_ACC : VTA_MEM_ID_ACC_8BIT;
			in.x_size = (uint32_t)rr(g, 1, PQ);
			in.x_stride = in.x_size;
			in.y_size = 1;
			in.sram_base = b * PQ + (uint32_t)rr(g, 0, PQ - in.x_size);
			in.dram_base = (uint32_t)rr(g, CS_DATA_AT / elem_bytes(in.memory_type),
						    CS_OUT_AT / elem_bytes(in.memory_type) - in.x_size);
			in.pop_prev = 1;
			in.pop_next = i >= 2;
			raw_append(g, &in);
			first = 0;
		}
		int ops = (int)rr(g, 1, 3);
		for (int k = 0; k < ops; k++) {
			in = chance(g, 65) ? gen_gemm(g) : gen_alu(g);
			in.uop_bgn = b * K + (uint32_t)rr(g, 0, K - 1);
			in.uop_end = in.uop_bgn + (uint32_t)rr(g, 1, K - (in.uop_bgn - b * K));
			in.iter_out = (uint32_t)rr(g, 1, 2);
			in.iter_in = (uint32_t)rr(g, 1, 2);
			in.dst_factor_out = in.dst_factor_in = 0;
			in.src_factor_out = in.src_factor_in = 0;
			in.wgt_factor_out = in.wgt_factor_in = 0;
			in.pop_prev = first;
			in.pop_next = first && i >= 2;
			in.push_prev = k == ops - 1;
			in.push_next = k == ops - 1;
			raw_append(g, &in);
			first = 0;
		}
		/* store buffer b */
		in = (vta_insn_t){0};
		in.opcode = VTA_OPCODE_STORE;
		in.memory_type = VTA_MEM_ID_OUT;
		in.x_size = (uint32_t)rr(g, 1, PQ);
		in.x_stride = in.x_size;
		in.y_size = 1;
		in.sram_base = b * PQ + (uint32_t)rr(g, 0, PQ - in.x_size);
		in.dram_base = (uint32_t)rr(g, CS_OUT_AT / VTA_OUT_ELEM_BYTES,
					    CS_DRAM / VTA_OUT_ELEM_BYTES - in.x_size);
		in.pop_prev = 1;
		in.push_prev = 1;
		raw_append(g, &in);
	}
	/* FINISH after the last store: pop the s2g tokens compute has not popped */
	in = (vta_insn_t){0};
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = VTA_MEM_ID_UOP;
	in.pop_next = 1;
	raw_append(g, &in);
	in = (vta_insn_t){0};
	in.opcode = VTA_OPCODE_FINISH;
	in.pop_next = n >= 2;
	raw_append(g, &in);
}

void cs_gen(cs_prog_t *p, uint64_t seed, int kind)
{
	static gen_t g;
	memset(&g, 0, sizeof g);
	memset(p, 0, sizeof *p);
	g.s = seed * 0x9E3779B97F4A7C15ull + 1;
	test_rand(&g.s);
	int faulty = kind == 1 || (kind < 0 && chance(&g, 12));
	if (!faulty && chance(&g, 30)) {
		gen_pipelined(&g, p);
		goto encode;
	}
	/* micro-op table: indices valid for GEMM (INP, WGT, ACC) and ALU (ACC) */
	uint32_t dmax = VTA_ACC_BUFF_DEPTH / 2;
	uint32_t smax = (VTA_INP_BUFF_DEPTH < VTA_ACC_BUFF_DEPTH ? VTA_INP_BUFF_DEPTH : VTA_ACC_BUFF_DEPTH) / 2;
	uint32_t wmax = VTA_WGT_BUFF_DEPTH / 2;
	g.nuops = (uint32_t)rr(&g, 4, 96);
	p->nuops = g.nuops;
	for (uint32_t i = 0; i < g.nuops; i++) {
		vta_uop_t u;
		int narrow = chance(&g, 50); /* reuse a few indices: hazards */
		u.dst_idx = (uint32_t)rr(&g, 0, narrow ? 3 : dmax - 1);
		u.src_idx = (uint32_t)rr(&g, 0, narrow ? 3 : smax - 1);
		u.wgt_idx = (uint32_t)rr(&g, 0, narrow ? 3 : wmax - 1);
		vta_uop_encode(&u, &p->uops[i], NULL);
	}
	if (chance(&g, 15)) {
		uint64_t b = 4096;
		p->bases = (vta_bases_t){b, b, b, b, b};
	}
	vta_insn_t lu = {0};
	lu.opcode = VTA_OPCODE_LOAD;
	lu.memory_type = VTA_MEM_ID_UOP;
	lu.x_size = lu.x_stride = g.nuops;
	lu.y_size = 1;
	lu.dram_base = CS_UOP_AT / 4;
	append(&g, lu);
	int len = (int)rr(&g, 2, chance(&g, 10) ? 120 : 30);
	int fault_at = faulty ? (int)rr(&g, 0, len - 1) : -1;
	int fault = (int)rr(&g, 0, 9);
	for (int i = 0; i < len; i++) {
		if (i == fault_at) {
			gen_fault(&g, fault);
			if (fault == 9)
				break; /* nothing may pop before the overflow */
		}
		else
			append(&g, gen_any(&g));
	}
	vta_insn_t fin = {0};
	fin.opcode = VTA_OPCODE_FINISH;
	if (faulty && fault == 9)
		raw_append(&g, &fin);
	else if (!(faulty && fault == 8 && chance(&g, 50)))
		append(&g, fin);
encode:
	/* rebase data addresses when the base registers are set */
	for (uint32_t i = 0; i < g.n; i++) {
		vta_insn_t *in = &g.in[i];
		if ((in->opcode == VTA_OPCODE_LOAD || in->opcode == VTA_OPCODE_STORE) && p->bases.inp) {
			uint32_t E = in->opcode == VTA_OPCODE_STORE ? VTA_OUT_ELEM_BYTES : elem_bytes(in->memory_type);
			if (in->dram_base >= 4096 / E)
				in->dram_base -= 4096 / E;
		}
		vta_insn_encode(in, &p->insn[p->n], NULL);
		p->n++;
	}
}

/* ------------------------------------------------------------ shrinking */
/* The kind of a mismatch: its first word ("DRAM", "golden", "error"), or
 * "counter NAME", after the soft-reset prefix: a shrunk program must fail the
 * same way, not merely fail (a program cut short may stumble into a known,
 * allowed difference instead). */
static void kind_of(const char *why, char *k, size_t n)
{
	const char *w = strstr(why, "into the run: ");
	w = w ? w + 14 : why;
	size_t i = 0;
	int words = strncmp(w, "counter ", 8) ? 1 : 2;
	while (w[i] && i + 1 < n && (w[i] != ' ' || --words > 0))
		i++;
	memcpy(k, w, i);
	k[i] = 0;
}

static char shrink_kind[64];

static int fails(cs_ctx_t *c, const cs_prog_t *p)
{
	if (cs_check(c, p, NULL) <= 0)
		return 0;
	char k[64];
	kind_of(c->why, k, sizeof k);
	return !strcmp(k, shrink_kind);
}

void cs_shrink(cs_ctx_t *c, cs_prog_t *p)
{
	static cs_prog_t q;
	cs_check(c, p, NULL);
	kind_of(c->why, shrink_kind, sizeof shrink_kind);
	int progress = 1;
	while (progress) {
		progress = 0;
		for (uint32_t i = 0; i < p->n; i++) {
			q = *p;
			memmove(&q.insn[i], &q.insn[i + 1], (q.n - i - 1) * sizeof q.insn[0]);
			q.n--;
			if (fails(c, &q)) {
				*p = q;
				progress = 1;
				i--;
			}
		}
		for (uint32_t i = 0; i < p->n; i++) {
			vta_insn_t in;
			vta_insn_decode(&p->insn[i], &in);
			vta_insn_t t = in;
			if (in.opcode == VTA_OPCODE_GEMM || in.opcode == VTA_OPCODE_ALU) {
				if (in.iter_out > 1) t.iter_out = 1;
				else if (in.iter_in > 1) t.iter_in = 1;
				else if (in.uop_end > in.uop_bgn + 1) t.uop_end = in.uop_bgn + 1;
			} else if (in.opcode == VTA_OPCODE_LOAD || in.opcode == VTA_OPCODE_STORE) {
				if (in.y_size > 1) t.y_size = 1;
				else if (in.x_size > 1) t.x_size = in.x_size - 1;
			}
			if (!memcmp(&t, &in, sizeof t))
				continue;
			q = *p;
			if (vta_insn_encode(&t, &q.insn[i], NULL))
				continue;
			if (fails(c, &q)) {
				*p = q;
				progress = 1;
			}
		}
	}
}

/* ------------------------------------------------------------ files */
int cs_save(const cs_prog_t *p, const char *path, const char *comment)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# VTA RTL co-simulation reproducer (tests/rtl/cosim_lib.c)\n# %s\n", comment);
	if (p->has_axi)
		fprintf(f, "axi %u %u %d %llu\n", p->axi.rd_latency, p->axi.wr_latency,
			p->axi.backpressure, (unsigned long long)p->axi.seed);
	if (p->reset_after)
		fprintf(f, "reset_after %llu\n", (unsigned long long)p->reset_after);
	fprintf(f, "bases %llx %llx %llx %llx %llx\n", (unsigned long long)p->bases.uop,
		(unsigned long long)p->bases.inp, (unsigned long long)p->bases.wgt,
		(unsigned long long)p->bases.acc, (unsigned long long)p->bases.out);
	for (uint32_t i = 0; i < p->nuops; i++)
		fprintf(f, "uop %08x\n", p->uops[i]);
	for (uint32_t i = 0; i < p->n; i++) {
		char buf[256];
		vta_insn_word_format(&p->insn[i], buf, sizeof buf);
		fprintf(f, "insn %016llx %016llx  # %s\n", (unsigned long long)p->insn[i].w[0],
			(unsigned long long)p->insn[i].w[1], buf);
	}
	return fclose(f);
}

int cs_load(cs_prog_t *p, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	memset(p, 0, sizeof *p);
	char line[512];
	while (fgets(line, sizeof line, f)) {
		unsigned long long a, b, c, d, e;
		unsigned u, w;
		int bp;
		if (sscanf(line, "axi %u %u %d %llu", &u, &w, &bp, &a) == 4) {
			vta_rtlsim_axi_defaults(&p->axi);
			p->axi.rd_latency = u;
			p->axi.wr_latency = w;
			p->axi.backpressure = bp;
			p->axi.seed = a;
			p->has_axi = 1;
		} else if (sscanf(line, "reset_after %llu", &a) == 1) {
			p->reset_after = a;
		} else if (sscanf(line, "bases %llx %llx %llx %llx %llx", &a, &b, &c, &d, &e) == 5)
			p->bases = (vta_bases_t){a, b, c, d, e};
		else if (sscanf(line, "uop %x", &u) == 1 && p->nuops < CS_MAX_UOPS)
			p->uops[p->nuops++] = u;
		else if (sscanf(line, "insn %llx %llx", &a, &b) == 2 && p->n < CS_MAX_INSNS) {
			p->insn[p->n].w[0] = a;
			p->insn[p->n].w[1] = b;
			p->n++;
		}
	}
	fclose(f);
	return 0;
}
