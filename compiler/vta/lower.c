/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lower: per tile, the loop nest as VTA instructions with symbolic DRAM
 * addresses: DMA with per-tile padding, GEMM micro-op kernels with the two
 * hardware loops, the bias, residual and requantization ALU sequences, the
 * store; micro-op kernels deduplicated and kept resident in the micro-op SRAM.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "vta/codegen.h"

typedef struct lowering {
	vc_module *m;
	vc_kernel *k;
	int scratch; /* code and micro-ops on the heap (a candidate the tiler costs), not in the module */
	/* micro-op placement: DRAM segments of k->uops and what is resident */
	int nseg;
	int seg_off[512], seg_len[512], seg_sram[512];
	int sram_next;
} lowering;

static vc_kinsn *emit(lowering *L)
{
	vc_kernel *k = L->k;
	if (k->n == k->cap) {
		int nc = k->cap ? k->cap * 2 : 256;
		vc_kinsn *nk = L->scratch ? realloc(k->code, (size_t)nc * sizeof *nk) : vc_alloc(L->m, (size_t)nc * sizeof *nk);
		if (!nk)
			return NULL;
		if (k->n && !L->scratch)
			memcpy(nk, k->code, (size_t)k->n * sizeof *nk);
		k->code = nk;
		k->cap = nc;
	}
	vc_kinsn *ki = &k->code[k->n++];
	memset(ki, 0, sizeof *ki);
	ki->arg = -1;
	return ki;
}

/* Room for n more constant words (micro-ops, the identity block) in k->uops. */
static int grow_words(lowering *L, int n)
{
	vc_kernel *k = L->k;
	if (k->n_uops + n <= k->cap_uops)
		return 0;
	int nc = k->cap_uops ? k->cap_uops * 2 : 1024;
	while (nc < k->n_uops + n)
		nc *= 2;
	uint32_t *nu = L->scratch ? realloc(k->uops, (size_t)nc * 4) : vc_alloc(L->m, (size_t)nc * 4);
	if (!nu)
		return -1;
	if (k->n_uops && !L->scratch)
		memcpy(nu, k->uops, (size_t)k->n_uops * 4);
	k->uops = nu;
	k->cap_uops = nc;
	return 0;
}

/* Make the micro-op sequence u[0..n) resident; returns its SRAM start. */
static int uops(lowering *L, const uint32_t *u, int n)
{
	vc_kernel *k = L->k;
	vc_target *t = &L->m->target;
	/* resident already? */
	for (int s = 0; s < L->nseg; s++)
		if (L->seg_len[s] == n && L->seg_sram[s] >= 0 && !memcmp(&k->uops[L->seg_off[s]], u, (size_t)n * 4))
			return L->seg_sram[s];
	/* in DRAM already? */
	int seg = -1;
	for (int s = 0; s < L->nseg && seg < 0; s++)
		if (L->seg_len[s] == n && !memcmp(&k->uops[L->seg_off[s]], u, (size_t)n * 4))
			seg = s;
	if (seg < 0) {
		if (L->nseg == 512)
			return vc_error(L->m, k->node, "lower: more than 512 distinct micro-op kernels"), -1;
		if (grow_words(L, n))
			return -1;
		memcpy(&k->uops[k->n_uops], u, (size_t)n * 4);
		seg = L->nseg++;
		L->seg_off[seg] = k->n_uops;
		L->seg_len[seg] = n;
		k->n_uops += n;
	}
	if (L->sram_next + n > t->uop_depth) { /* full: start over */
		for (int s = 0; s < L->nseg; s++)
			L->seg_sram[s] = -1;
		L->sram_next = 0;
	}
	vc_kinsn *ki = emit(L);
	if (!ki)
		return -1;
	ki->insn.opcode = VTA_OPCODE_LOAD;
	ki->insn.memory_type = VTA_MEM_ID_UOP;
	ki->insn.sram_base = (uint32_t)L->sram_next;
	ki->insn.dram_base = (uint32_t)L->seg_off[seg];
	ki->insn.y_size = 1;
	ki->insn.x_size = ki->insn.x_stride = (uint32_t)n;
	ki->arg = VC_ARG_UOP;
	ki->writes = 1u << VC_RES_UOP;
	L->seg_sram[seg] = L->sram_next;
	L->sram_next += n;
	return L->seg_sram[seg];
}

static int uop_word(lowering *L, uint32_t dst, uint32_t src, uint32_t wgt, uint32_t *out)
{
	vta_uop_t u = {dst, src, wgt};
	vta_error_t err;
	if (vta_uop_encode(&u, out, &err))
		return vc_error(L->m, L->k->node, "lower: %s", err.msg);
	return 0;
}

static int alu(lowering *L, int op, int use_imm, int32_t imm, int ubgn, uint32_t iter_out, uint32_t iter_in,
	       uint32_t dfo, uint32_t dfi, uint32_t sfo, uint32_t sfi, int acc_res);

/* The rounding shift of the requantization on one ACC region (micro-op ub):
 * [SHR s-15], ADD 2^(s-1), SHR s; a negative s is a left shift. With
 * rounded the bias already carries 2^(s-1) (vc_bias_rounding): SHR s. */
static int requant_shift(lowering *L, int ub, int s, int rounded, uint32_t io, uint32_t ii, uint32_t f, int ares)
{
	if (rounded)
		return alu(L, VTA_ALU_OPCODE_SHR, 1, s, ub, io, ii, f, 1, f, 1, ares);
	if (s > 15) {
		if (alu(L, VTA_ALU_OPCODE_SHR, 1, s - 15, ub, io, ii, f, 1, f, 1, ares))
			return -1;
		s = 15;
	}
	if (s > 0 && alu(L, VTA_ALU_OPCODE_ADD, 1, 1 << (s - 1), ub, io, ii, f, 1, f, 1, ares))
		return -1;
	if (s != 0 && alu(L, VTA_ALU_OPCODE_SHR, 1, s, ub, io, ii, f, 1, f, 1, ares))
		return -1;
	return 0;
}

/* The GEMM over the micro-ops ubuf[0..nu) of a tile's th rows and ow columns
 * in groups of grp (the two hardware loops); source rows sfo apart. */
static int gemm(lowering *L, const uint32_t *ubuf, int nu, int64_t th, int64_t ow, int64_t grp, uint32_t sfo,
		uint32_t sfi, uint32_t reads, uint32_t writes)
{
	int ub = uops(L, ubuf, nu);
	vc_kinsn *ki;
	if (ub < 0 || !(ki = emit(L)))
		return -1;
	ki->insn.opcode = VTA_OPCODE_GEMM;
	ki->insn.uop_bgn = (uint32_t)ub, ki->insn.uop_end = (uint32_t)(ub + nu);
	ki->insn.iter_out = (uint32_t)th, ki->insn.iter_in = (uint32_t)(ow / grp);
	ki->insn.dst_factor_out = (uint32_t)ow, ki->insn.dst_factor_in = (uint32_t)grp;
	ki->insn.src_factor_out = sfo, ki->insn.src_factor_in = sfi;
	ki->reads = reads | 1u << VC_RES_UOP;
	ki->writes = writes;
	return 0;
}

/* One ALU instruction over the accumulator block of a tile. */
static int alu(lowering *L, int op, int use_imm, int32_t imm, int ubgn, uint32_t iter_out, uint32_t iter_in,
	       uint32_t dfo, uint32_t dfi, uint32_t sfo, uint32_t sfi, int acc_res)
{
	vc_kinsn *ki = emit(L);
	if (!ki)
		return -1;
	vta_insn_t *in = &ki->insn;
	in->opcode = VTA_OPCODE_ALU;
	in->alu_opcode = (uint32_t)op;
	in->use_imm = (uint32_t)use_imm;
	in->imm = imm;
	in->uop_bgn = (uint32_t)ubgn;
	in->uop_end = (uint32_t)ubgn + 1;
	in->iter_out = iter_out, in->iter_in = iter_in;
	in->dst_factor_out = dfo, in->dst_factor_in = dfi;
	in->src_factor_out = sfo, in->src_factor_in = sfi;
	ki->reads = ki->writes = 1u << acc_res;
	ki->reads |= 1u << VC_RES_UOP;
	return 0;
}

/* LOAD ACC_8BIT (the residual) or STORE of tco output channel blocks of
 * th*ow elements from output row oh0: one instruction whose x_stride is the
 * channel-block stride oh*ow or, when that does not fit the field (feature
 * maps of 256x256 and more, YOLOv3-tiny's 416x416), one per block. */
static int out_blocks(lowering *L, const vc_geom *g, int opcode, int mem, uint32_t sram, int64_t nb, int64_t co0,
		      int64_t oh0, int64_t tco, int64_t th, int arg, uint32_t reads, uint32_t writes)
{
	int64_t plane = g->oh * g->ow, xs = th * g->ow;
	int split = plane >= (1 << VTA_MEM_X_STRIDE_WIDTH);
	for (int64_t j = 0; j < (split ? tco : 1); j++) {
		vc_kinsn *ki = emit(L);
		if (!ki)
			return -1;
		ki->insn.opcode = opcode;
		ki->insn.memory_type = mem;
		ki->insn.sram_base = sram + (uint32_t)(j * xs);
		ki->insn.dram_base = (uint32_t)(((nb * g->cob + co0 + j) * g->oh + oh0) * g->ow);
		ki->insn.y_size = (uint32_t)(split ? 1 : tco), ki->insn.x_size = (uint32_t)xs;
		ki->insn.x_stride = (uint32_t)(split ? xs : plane);
		ki->arg = arg;
		ki->reads = reads, ki->writes = writes;
	}
	return 0;
}

/* Where one reduction step of a tile finds its inputs or weights: the
 * buffer half, the element offset in the buffer, and whether it must be
 * loaded (a resident block is loaded by its first tile only). */
typedef struct slot {
	int half;
	uint32_t base;
	int load;
} slot;

/* The input DMA of rows [oh0, oh0 + th) of channel blocks [ci0, ci0 + tci):
 * one padded 2-D load per channel block, at SRAM element ibase. */
static int load_inputs(lowering *L, const vc_geom *g, int64_t nb, int64_t oh0, int64_t th, int64_t ci0, int64_t tci,
		       uint32_t ibase, int half)
{
	int skip_rows = vc_skips_rows(g);
	int64_t cols = (g->ow - 1) * g->sw + g->kw, rows = skip_rows ? th : (th - 1) * g->sh + g->kh;
	int64_t r0 = oh0 * g->sh - g->pt, r1 = r0 + (skip_rows ? (th - 1) * g->sh + 1 : rows);
	int64_t yp0 = r0 < 0 ? -r0 : 0, yp1 = r1 > g->h ? r1 - g->h : 0;
	int64_t ysz = rows - yp0 - yp1, xsz = cols - g->pl < g->w ? cols - g->pl : g->w;
	int64_t xp1 = cols - g->pl - xsz;
	if (ysz < 0 || yp0 > 15 || yp1 > 15 || xp1 > 15)
		return vc_error(L->m, L->k->node, "lower: tile at row %lld needs padding the DMA cannot express",
				(long long)oh0);
	for (int64_t cb = 0; cb < tci; cb++) {
		vc_kinsn *ki = emit(L);
		if (!ki)
			return -1;
		vta_insn_t *in = &ki->insn;
		in->opcode = VTA_OPCODE_LOAD;
		in->memory_type = VTA_MEM_ID_INP;
		in->sram_base = ibase + (uint32_t)(cb * rows * cols);
		in->dram_base = (uint32_t)(((nb * g->cib + ci0 + cb) * g->h + (r0 + yp0)) * g->w);
		in->y_size = (uint32_t)ysz, in->x_size = (uint32_t)xsz;
		in->x_stride = (uint32_t)(g->w * (skip_rows ? g->sh : 1));
		in->y_pad_0 = (uint32_t)yp0, in->y_pad_1 = (uint32_t)yp1;
		in->x_pad_0 = (uint32_t)g->pl, in->x_pad_1 = (uint32_t)xp1;
		ki->arg = VC_ARG_INP;
		ki->writes = 1u << (VC_RES_INP0 + half);
	}
	return 0;
}

/* The weight DMA of output blocks [co0, co0 + tco), input blocks [ci0, ci0 +
 * tci): tco rows of tci*k2 contiguous elements, at SRAM element wbase. */
static int load_weights(lowering *L, const vc_geom *g, int64_t co0, int64_t tco, int64_t ci0, int64_t tci,
			uint32_t wbase, int half)
{
	int64_t k2 = g->kh * g->kw;
	vc_kinsn *ki = emit(L);
	if (!ki)
		return -1;
	ki->insn.opcode = VTA_OPCODE_LOAD;
	ki->insn.memory_type = VTA_MEM_ID_WGT;
	ki->insn.sram_base = wbase;
	int64_t wcib = g->dw ? 1 : g->cib, wci0 = g->dw ? 0 : ci0, wtci = g->dw ? 1 : tci; /* depthwise: diagonal blocks */
	ki->insn.dram_base = (uint32_t)((co0 * wcib + wci0) * k2);
	ki->insn.y_size = (uint32_t)tco, ki->insn.x_size = (uint32_t)(wtci * k2);
	ki->insn.x_stride = (uint32_t)(wcib * k2);
	ki->arg = VC_ARG_WGT;
	ki->writes = 1u << (VC_RES_WGT0 + half);
	return 0;
}

/* The split of INP and WGT: a half for each ping-pong buffer; with a
 * residual GEMM, INP ends with a residual tile per ACC half (from *rin) and
 * WGT with the identity block (its last element). */
static void buffers(const vc_target *t, const vc_geom *g, const vc_tiling *tl, int *inp_half, int *wgt_half,
		    uint32_t *rin)
{
	int halves = tl->pingpong ? 2 : 1;
	int64_t rsize = g->res_gemm ? (int64_t)tl->tco * tl->th * g->ow : 0;
	*inp_half = (int)((t->inp_depth - halves * rsize) / halves);
	*wgt_half = (t->wgt_depth - (g->res_gemm ? 1 : 0)) / halves;
	*rin = (uint32_t)(t->inp_depth - halves * rsize);
}

/* The resident operand of outer index a (tiling tl): its buffer half and
 * where reduction step s starts; with `load`, its DMA (every step). */
static int resident(lowering *L, const vc_geom *g, const vc_tiling *tl, int64_t nb, int64_t a, int64_t s, int load,
		    slot *out)
{
	const vc_target *t = &L->m->target;
	int halves = tl->pingpong ? 2 : 1, inp_half, wgt_half;
	uint32_t rin;
	buffers(t, g, tl, &inp_half, &wgt_half, &rin);
	int64_t k2 = g->kh * g->kw, cols = (g->ow - 1) * g->sw + g->kw;
	out->half = (int)(a % halves);
	if (tl->rows_outer) {
		int64_t oh0 = a * tl->th, th = g->oh - oh0 < tl->th ? g->oh - oh0 : tl->th;
		int64_t rows = vc_skips_rows(g) ? th : (th - 1) * g->sh + g->kh;
		out->base = (uint32_t)(out->half * inp_half + s * tl->tci * rows * cols);
		for (int64_t ci0 = 0, j = 0; load && ci0 < g->cib; ci0 += tl->tci, j++) {
			int64_t tci = g->cib - ci0 < tl->tci ? g->cib - ci0 : tl->tci;
			if (load_inputs(L, g, nb, oh0, th, ci0, tci,
					(uint32_t)(out->half * inp_half + j * tl->tci * rows * cols), out->half))
				return -1;
		}
	} else {
		int64_t co0 = a * tl->tco, tco = g->cob - co0 < tl->tco ? g->cob - co0 : tl->tco;
		out->base = (uint32_t)(out->half * wgt_half + s * tco * tl->tci * k2);
		for (int64_t ci0 = 0, j = 0; load && ci0 < g->cib; ci0 += tl->tci, j++) {
			int64_t tci = g->cib - ci0 < tl->tci ? g->cib - ci0 : tl->tci;
			if (load_weights(L, g, co0, tco, ci0, tci,
					 (uint32_t)(out->half * wgt_half + j * tco * tl->tci * k2), out->half))
				return -1;
		}
	}
	return 0;
}

/* A reset GEMM over io x ii accumulator rows from row base (f rows apart
 * outside). */
static int reset_rows(lowering *L, uint32_t base, uint32_t io, uint32_t ii, uint32_t f, int ares)
{
	uint32_t w;
	int ub;
	vc_kinsn *ki;
	if (uop_word(L, base, 0, 0, &w) || (ub = uops(L, &w, 1)) < 0 || !(ki = emit(L)))
		return -1;
	ki->insn.opcode = VTA_OPCODE_GEMM;
	ki->insn.reset = 1;
	ki->insn.uop_bgn = (uint32_t)ub, ki->insn.uop_end = (uint32_t)ub + 1;
	ki->insn.iter_out = io, ki->insn.iter_in = ii;
	ki->insn.dst_factor_out = f, ki->insn.dst_factor_in = 1;
	ki->writes = 1u << ares;
	ki->reads = 1u << VC_RES_UOP;
	return 0;
}

/* The epilogue of a tile after its GEMM, in parts (EP_*) the caller emits in
 * order: with ping-pong halves the bias LOAD at the tile's start, the rest
 * of it after the next tile's GEMMs begin (its ALU instructions then run
 * beside them in the RTL's GEMM unit; docs/compiler.md, "Epilogue beside the
 * next tile"). Epilogue GEMMs (the leaky copy's reset, the residual GEMM)
 * split it where the next tile has a GEMM to follow them. */
enum { EP_BIAS_LOAD, EP_TRESET, EP_BIAS, EP_RES_GEMM, EP_REST, EP_DONE };

typedef struct ep_ctx { /* the kernel's */
	const vc_target *t;
	const vc_geom *g;
	const vc_node *n;
	int shift;
	int64_t lo, hi;
	uint32_t *ubuf;
	int64_t res_tiles, leaky_tiles;
} ep_ctx;

typedef struct tile_ep { /* a tile's */
	int64_t nb, co0, oh0, tco, th;
	int ah, ares;
	uint32_t abase, bbase, rbase_in;
	int next; /* the next part to emit */
} tile_ep;

/* What the parts of a tile's epilogue derive from the kernel and the tile.
 * Leaky ReLU: a copy T of the accumulators (reset, ADD) next to them, in the
 * residual's region (dead by now), one row further when T and X would share
 * an ACC bank. With the rounding in the bias (vc_leaky_fused): T = X <<
 * leaky, X += 2^(s+leaky-1) - 2^(s-1), X = MAX(X, T) >> (s + leaky);
 * otherwise T and X are requantized by s + leaky and s, then X = MAX(X, T).
 * T's reset comes first (T does not depend on X) unless T is the residual's
 * region. */
typedef struct ep_vals {
	vc_geom g;
	uint32_t io, ii, f; /* the ALU loops over the tile's accumulators */
	uint32_t tbase;     /* T */
	int leaky, rounded, fused;
	int rs; /* what is left of the shift after the residual's pre-shift */
	int treset_first;
} ep_vals;

static void ep_values(const ep_ctx *c, const tile_ep *e, ep_vals *v)
{
	const vc_geom *g = c->g;
	v->g = *g;
	v->io = (uint32_t)(e->tco * e->th), v->ii = (uint32_t)g->ow, v->f = (uint32_t)g->ow;
	v->tbase = e->bbase + (uint32_t)(e->tco * g->kb);
	if ((v->tbase - e->abase) % 4 == 0)
		v->tbase++;
	v->leaky = c->n->a.leaky;
	v->rounded = g->kb == 1 && vc_bias_rounding(c->shift, v->leaky) != 0;
	v->fused = v->rounded && v->leaky;
	v->rs = c->shift - g->res_pre;
	v->treset_first = !g->res || g->res_gemm;
}

/* A one-micro-op ALU instruction over the tile's accumulators (the loops of
 * v), dst and src rows from dst0 and src0. */
static int ep_alu(lowering *L, const ep_vals *v, int opcode, int use_imm, int32_t imm, uint32_t dst0,
		  uint32_t src0, uint32_t *ubuf, int ares)
{
	int ub;
	if (uop_word(L, dst0, src0, 0, &ubuf[0]) || (ub = uops(L, ubuf, 1)) < 0)
		return -1;
	return alu(L, opcode, use_imm, imm, ub, v->io, v->ii, v->f, 1, v->f, 1, ares);
}

/* The same with one source row a block (the bias rows: per block and
 * position, every kb-th row from src0). */
static int ep_alu_rows(lowering *L, const ep_vals *v, const tile_ep *e, int opcode, uint32_t dst0, uint32_t src0,
		       uint32_t *ubuf)
{
	int ub;
	uint32_t pos = (uint32_t)(e->th * v->g.ow);
	if (uop_word(L, dst0, src0, 0, &ubuf[0]) || (ub = uops(L, ubuf, 1)) < 0)
		return -1;
	return alu(L, opcode, 0, 0, ub, (uint32_t)e->tco, pos, pos, 1, (uint32_t)v->g.kb, 0, e->ares);
}

/* bias: load tco ACC elements, added to every position in EP_BIAS */
static int ep_bias_load(lowering *L, const ep_vals *v, const tile_ep *e)
{
	vc_kinsn *ki = emit(L);
	if (!ki)
		return -1;
	ki->insn.opcode = VTA_OPCODE_LOAD;
	ki->insn.memory_type = VTA_MEM_ID_ACC;
	ki->insn.sram_base = e->bbase;
	ki->insn.dram_base = (uint32_t)(e->co0 * v->g.kb);
	ki->insn.y_size = 1, ki->insn.x_size = ki->insn.x_stride = (uint32_t)(e->tco * v->g.kb);
	ki->arg = VC_ARG_BIAS;
	ki->writes = 1u << e->ares;
	return 0;
}

/* The bias added; with the residual on the GEMM, [ACC >>= res_pre] here and
 * ACC += residual * res_weight in EP_RES_GEMM. */
static int ep_bias(lowering *L, const ep_ctx *c, const ep_vals *v, const tile_ep *e)
{
	if (ep_alu_rows(L, v, e, VTA_ALU_OPCODE_ADD, e->abase, e->bbase, c->ubuf))
		return -1;
	if (!v->g.res_gemm || !v->g.res_pre)
		return 0;
	int ub;
	if (uop_word(L, e->abase, e->abase, 0, &c->ubuf[0]) || (ub = uops(L, c->ubuf, 1)) < 0)
		return -1;
	return alu(L, VTA_ALU_OPCODE_SHR, 1, v->g.res_pre, ub, (uint32_t)(e->tco * e->th), (uint32_t)v->g.ow,
		   (uint32_t)v->g.ow, 1, (uint32_t)v->g.ow, 1, e->ares);
}

/* The residual on the GEMM: one micro-op per output vector. */
static int ep_res_gemm(lowering *L, ep_ctx *c, const ep_vals *v, const tile_ep *e)
{
	if (!v->g.res_gemm)
		return 0;
	int64_t grp = vc_column_group(e->tco, e->th, v->g.ow);
	int nu = 0;
	for (int64_t ob = 0; ob < e->tco; ob++)
		for (int64_t x = 0; x < grp; x++)
			if (uop_word(L, e->abase + (uint32_t)(ob * e->th * v->g.ow + x),
				     e->rbase_in + (uint32_t)(ob * e->th * v->g.ow + x), (uint32_t)(c->t->wgt_depth - 1),
				     &c->ubuf[nu++]))
				return -1;
	if (gemm(L, c->ubuf, nu, e->th, v->g.ow, grp, (uint32_t)v->g.ow, (uint32_t)grp,
		 1u << (VC_RES_RIN0 + e->ah) | 1u << VC_RES_WID | 1u << e->ares, 1u << e->ares))
		return -1;
	c->res_tiles++;
	return 0;
}

/* The residual on the ALU: the int8 tensor of the output's shape,
 * sign-extended into the ACC after the bias (LOAD ACC_8BIT), brought to the
 * accumulator's exponent by a left shift (SHR by a negative immediate, or
 * per channel by the block's third bias row), added with one tensor-tensor
 * ALU ADD. */
static int ep_res_alu(lowering *L, ep_ctx *c, const ep_vals *v, const tile_ep *e)
{
	const vc_geom *g = &v->g;
	uint32_t rbase = e->bbase + (uint32_t)(e->tco * g->kb);
	if (out_blocks(L, g, VTA_OPCODE_LOAD, VTA_MEM_ID_ACC_8BIT, rbase, e->nb, e->co0, e->oh0, e->tco, e->th,
		       VC_ARG_RES, 0, 1u << e->ares))
		return -1;
	if (g->kb > 1 ? ep_alu_rows(L, v, e, VTA_ALU_OPCODE_SHR, rbase, e->bbase + 2, c->ubuf)
	    : c->n->a.res_shift ? ep_alu(L, v, VTA_ALU_OPCODE_SHR, 1, -c->n->a.res_shift, rbase, rbase, c->ubuf, e->ares)
				: 0)
		return -1;
	if (ep_alu(L, v, VTA_ALU_OPCODE_ADD, 0, 0, e->abase, rbase, c->ubuf, e->ares))
		return -1;
	c->res_tiles++;
	return 0;
}

/* Leaky ReLU's copy T of the accumulators, shifted (see ep_vals). */
static int ep_leaky_copy(lowering *L, ep_ctx *c, const ep_vals *v, const tile_ep *e)
{
	int ut;
	if (!v->treset_first && reset_rows(L, v->tbase, v->io, v->ii, v->f, e->ares))
		return -1;
	if (ep_alu(L, v, VTA_ALU_OPCODE_ADD, 0, 0, v->tbase, e->abase, c->ubuf, e->ares))
		return -1;
	if (uop_word(L, v->tbase, v->tbase, 0, &c->ubuf[0]) || (ut = uops(L, c->ubuf, 1)) < 0)
		return -1;
	if (v->fused ? alu(L, VTA_ALU_OPCODE_SHR, 1, -v->leaky, ut, v->io, v->ii, v->f, 1, v->f, 1, e->ares)
		     : requant_shift(L, ut, v->rs + v->leaky, 0, v->io, v->ii, v->f, e->ares))
		return -1;
	c->leaky_tiles++;
	return 0;
}

/* Requantize: [SHR s-15], [ADD 2^(s-1)], SHR s, (leaky: MAX with T), MAX
 * lo, MIN hi; with channel shifts one register-mode SHR by the block's
 * second bias row instead of the first three (the rounding constant is in
 * the bias). */
static int ep_requant(lowering *L, const ep_ctx *c, const ep_vals *v, const tile_ep *e)
{
	uint32_t *ubuf = c->ubuf, io = v->io, ii = v->ii, f = v->f;
	int ares = e->ares, ub;
	if (v->g.kb > 1 && ep_alu_rows(L, v, e, VTA_ALU_OPCODE_SHR, e->abase, e->bbase + 1, ubuf))
		return -1;
	if (uop_word(L, e->abase, e->abase, 0, &ubuf[0]) || (ub = uops(L, ubuf, 1)) < 0)
		return -1;
	if (v->fused) {
		int32_t d = ((int32_t)1 << (v->rs + v->leaky - 1)) - ((int32_t)1 << (v->rs - 1));
		if (d && alu(L, VTA_ALU_OPCODE_ADD, 1, d, ub, io, ii, f, 1, f, 1, ares))
			return -1;
	} else if (v->g.kb == 1 && requant_shift(L, ub, v->rs, v->rounded, io, ii, f, ares))
		return -1;
	if (v->leaky) {
		if (ep_alu(L, v, VTA_ALU_OPCODE_MAX, 0, 0, e->abase, v->tbase, ubuf, ares))
			return -1;
		/* the micro-op SRAM may have been refilled: fetch ub again */
		if (uop_word(L, e->abase, e->abase, 0, &ubuf[0]) || (ub = uops(L, ubuf, 1)) < 0)
			return -1;
		if (v->fused && alu(L, VTA_ALU_OPCODE_SHR, 1, v->rs + v->leaky, ub, io, ii, f, 1, f, 1, ares))
			return -1;
	}
	return alu(L, VTA_ALU_OPCODE_MAX, 1, (int32_t)c->lo, ub, io, ii, f, 1, f, 1, ares) ||
			       alu(L, VTA_ALU_OPCODE_MIN, 1, (int32_t)c->hi, ub, io, ii, f, 1, f, 1, ares)
		       ? -1
		       : 0;
}

static int ep_part(lowering *L, ep_ctx *c, const tile_ep *e, int part)
{
	ep_vals v;
	ep_values(c, e, &v);
	switch (part) {
	case EP_BIAS_LOAD:
		return ep_bias_load(L, &v, e);
	case EP_TRESET:
		return v.leaky && v.treset_first ? reset_rows(L, v.tbase, v.io, v.ii, v.f, e->ares) : 0;
	case EP_BIAS:
		return ep_bias(L, c, &v, e);
	case EP_RES_GEMM:
		return ep_res_gemm(L, c, &v, e);
	default: /* EP_REST: residual on the ALU, leaky's copy, requantize, store */
		if (v.g.res && !v.g.res_gemm && ep_res_alu(L, c, &v, e))
			return -1;
		if (v.leaky && ep_leaky_copy(L, c, &v, e))
			return -1;
		if (ep_requant(L, c, &v, e))
			return -1;
		/* store: tco rows of th*ow contiguous output elements */
		return out_blocks(L, &v.g, VTA_OPCODE_STORE, VTA_MEM_ID_OUT, e->abase, e->nb, e->co0, e->oh0, e->tco,
				  e->th, VC_ARG_OUT, 1u << e->ares, 0);
	}
}

/* Parts of e up to and including `upto`. */
static int ep_emit(lowering *L, ep_ctx *c, tile_ep *e, int upto)
{
	for (; e->next <= upto; e->next++)
		if (ep_part(L, c, e, e->next))
			return -1;
	return 0;
}

/* The state of one kernel's lowering (vc_lower_kernel): its geometry and
 * tiling, the SRAM halves, and the epilogue deferred to the next tile. */
typedef struct kstate {
	const vc_target *t;
	vc_geom g;
	vc_tiling tl;
	int halves, inp_half, wgt_half, acc_half;
	uint32_t rin;      /* the residual tiles in INP */
	int64_t cols, k2;  /* input columns a row of output reads; taps */
	int skip_rows;     /* a kernel of one row that strides over rows (1x1, stride 2) loads only the rows it reads */
	int64_t rstep;     /* SRAM rows between output rows */
	int64_t R, C;      /* row tiles, output block tiles */
	int64_t tiles, istep, wstep;
	uint32_t *ubuf;
	ep_ctx ec;
	int defer, have_pend; /* with ping-pong halves, a tile's epilogue follows the next tile's first GEMM */
	tile_ep pend;
} kstate;

/* The residual's identity block (times 2^shift) for a GEMM with it: the
 * kernel's first constant words, kept in WGT's last element. */
static int identity_block(lowering *L, const kstate *ks)
{
	const vc_target *t = ks->t;
	int words = VTA_WGT_ELEM_BYTES / 4;
	if (grow_words(L, words) < 0)
		return -1;
	int8_t *id = (int8_t *)(void *)L->k->uops;
	memset(id, 0, VTA_WGT_ELEM_BYTES);
	for (int c = 0; c < t->block_out; c++)
		id[c * t->block_in + c] = (int8_t)ks->g.res_weight;
	L->k->n_uops = words;
	vc_kinsn *ki = emit(L);
	if (!ki)
		return -1;
	ki->insn.opcode = VTA_OPCODE_LOAD;
	ki->insn.memory_type = VTA_MEM_ID_WGT;
	ki->insn.sram_base = (uint32_t)(t->wgt_depth - 1);
	ki->insn.dram_base = 0;
	ki->insn.y_size = 1, ki->insn.x_size = ki->insn.x_stride = 1;
	ki->arg = VC_ARG_UOP;
	ki->writes = 1u << VC_RES_WID;
	return 0;
}

/* The residual tile into INP, for a GEMM with the identity block. */
static int residual_load(lowering *L, const kstate *ks, const tile_ep *e)
{
	const vc_geom *g = &ks->g;
	vc_kinsn *ki = emit(L);
	if (!ki)
		return -1;
	ki->insn.opcode = VTA_OPCODE_LOAD;
	ki->insn.memory_type = VTA_MEM_ID_INP;
	ki->insn.sram_base = e->rbase_in;
	ki->insn.dram_base = (uint32_t)(((e->nb * g->cob + e->co0) * g->oh + e->oh0) * g->ow);
	ki->insn.y_size = (uint32_t)e->tco, ki->insn.x_size = (uint32_t)(e->th * g->ow);
	ki->insn.x_stride = (uint32_t)(g->oh * g->ow);
	ki->arg = VC_ARG_RES;
	ki->writes = 1u << (VC_RES_RIN0 + e->ah);
	return 0;
}

/* Step s of a tile (input blocks [ci0, ci0 + tci)): inputs resident across
 * output blocks (rows outer), or weights across row tiles (blocks outer);
 * the other streams. The first outer index loads its resident operand here;
 * every later one was loaded while the one before ran. Then the GEMM, with
 * the deferred epilogue of the tile before around it. */
static int lower_step(lowering *L, kstate *ks, const tile_ep *e, int64_t a, int64_t b, int64_t ci0, int64_t tci,
		      int64_t s)
{
	const vc_geom *g = &ks->g;
	const vc_tiling *tl = &ks->tl;
	int64_t wtci = g->dw ? 1 : tci; /* weight blocks a tap and output block */
	slot in_s, w_s, *rs = tl->rows_outer ? &in_s : &w_s, *ss = tl->rows_outer ? &w_s : &in_s;
	if (tl->resident) {
		int load_now = b == 0 && s == 0 && (a == 0 || ks->halves == 1);
		if (resident(L, g, tl, e->nb, a, s, load_now, rs))
			return -1;
	} else {
		rs->half = (int)((*(tl->rows_outer ? &ks->istep : &ks->wstep))++ % ks->halves);
		rs->base = (uint32_t)(rs->half * (tl->rows_outer ? ks->inp_half : ks->wgt_half));
		if (tl->rows_outer ? load_inputs(L, g, e->nb, e->oh0, e->th, ci0, tci, rs->base, rs->half)
				   : load_weights(L, g, e->co0, e->tco, ci0, tci, rs->base, rs->half))
			return -1;
	}
	ss->half = (int)((*(tl->rows_outer ? &ks->wstep : &ks->istep))++ % ks->halves);
	ss->base = (uint32_t)(ss->half * (tl->rows_outer ? ks->wgt_half : ks->inp_half));
	if (tl->rows_outer ? load_weights(L, g, e->co0, e->tco, ci0, tci, ss->base, ss->half)
			   : load_inputs(L, g, e->nb, e->oh0, e->th, ci0, tci, ss->base, ss->half))
		return -1;
	/* GEMM: one micro-op per (block in, kh, kw, block out, column of the
	 * group); rows and column groups are the two hardware loops.
	 * Consecutive micro-ops write different ACC rows (the block out and the
	 * column innermost), so none waits for the one before to leave the
	 * pipeline. */
	int64_t grp = vc_column_group(e->tco, tl->th, g->ow), cols = ks->cols;
	int64_t rows = ks->skip_rows ? e->th : (e->th - 1) * g->sh + g->kh;
	int nu = 0;
	for (int64_t cb = 0; cb < (g->dw ? 1 : tci); cb++) /* depthwise: block ob reads block ob */
		for (int64_t kh = 0; kh < g->kh; kh++)
			for (int64_t kw = 0; kw < g->kw; kw++)
				for (int64_t ob = 0; ob < e->tco; ob++)
					for (int64_t x = 0; x < grp; x++)
						if (uop_word(L, e->abase + (uint32_t)(ob * e->th * g->ow + x),
							     in_s.base + (uint32_t)((g->dw ? ob : cb) * rows * cols + kh * cols + kw + x * g->sw),
							     w_s.base + (uint32_t)((ob * wtci + cb) * ks->k2 + kh * g->kw + kw),
							     &ks->ubuf[nu++]))
							return -1;
	/* the tile before: T's reset ahead of this GEMM, its ALU work (up to the
	 * residual GEMM) behind it, the rest behind the next GEMM */
	if (ks->have_pend && s == 0 && ep_emit(L, &ks->ec, &ks->pend, EP_TRESET))
		return -1;
	if (gemm(L, ks->ubuf, nu, e->th, g->ow, grp, (uint32_t)(ks->rstep * cols), (uint32_t)(grp * g->sw),
		 1u << (VC_RES_INP0 + in_s.half) | 1u << (VC_RES_WGT0 + w_s.half) | 1u << e->ares, 1u << e->ares))
		return -1;
	if (ks->have_pend && s <= 1 && ep_emit(L, &ks->ec, &ks->pend, s == 0 && g->res_gemm ? EP_RES_GEMM : EP_REST))
		return -1;
	const vc_target *t = ks->t;
	L->k->macs += e->th * g->ow * e->tco * wtci * ks->k2 * t->batch * t->block_in * t->block_out;
	return 0;
}

/* One output tile (image nb, outer index a, inner index b): its reset, its
 * steps over the input blocks, its epilogue now or after the next tile's
 * first GEMMs. */
static int lower_tile(lowering *L, kstate *ks, int64_t nb, int64_t a, int64_t b)
{
	const vc_geom *g = &ks->g;
	const vc_tiling *tl = &ks->tl;
	int64_t cbk = tl->rows_outer ? b : a, rbk = tl->rows_outer ? a : b;
	int64_t co0 = cbk * tl->tco, oh0 = rbk * tl->th;
	int64_t tco = g->cob - co0 < tl->tco ? g->cob - co0 : tl->tco;
	int64_t th = g->oh - oh0 < tl->th ? g->oh - oh0 : tl->th;
	int ah = (int)(ks->tiles % ks->halves), ares = VC_RES_ACC0 + ah;
	uint32_t abase = (uint32_t)(ah * ks->acc_half), bbase = abase + (uint32_t)(tco * th * g->ow);
	uint32_t rbase_in = ks->rin + (uint32_t)(ah * tl->tco * tl->th * g->ow);
	tile_ep cur = {nb, co0, oh0, tco, th, ah, ares, abase, bbase, rbase_in, EP_BIAS_LOAD};
	/* deferred: the bias now (the epilogue before has left this half) */
	if (ks->defer && ep_emit(L, &ks->ec, &cur, EP_BIAS_LOAD))
		return -1;
	/* reset the accumulators of the tile */
	if (reset_rows(L, abase, (uint32_t)(tco * th), (uint32_t)g->ow, (uint32_t)g->ow, ares))
		return -1;
	if (g->res_gemm && residual_load(L, ks, &cur))
		return -1;
	/* depthwise: one step over the tile's own input blocks, whose weights
	 * are diagonal blocks (one per output block) */
	int64_t ci_lo = g->dw ? co0 : 0, ci_hi = g->dw ? co0 + tco : g->cib, ci_step = g->dw ? tco : tl->tci;
	for (int64_t ci0 = ci_lo, s = 0; ci0 < ci_hi; ci0 += ci_step, s++)
		if (lower_step(L, ks, &cur, a, b, ci0, ci_hi - ci0 < ci_step ? ci_hi - ci0 : ci_step, s))
			return -1;
	/* the next outer index's resident operand, into the other half, while
	 * this one's tiles compute */
	if (tl->resident && ks->halves == 2 && b == 0 && a + 1 < (tl->rows_outer ? ks->R : ks->C)) {
		slot next;
		if (resident(L, g, tl, nb, a + 1, 0, 1, &next))
			return -1;
	}
	/* the epilogue: now, or the rest of it after the next tile's first GEMMs */
	if (!ks->defer) {
		if (ep_emit(L, &ks->ec, &cur, EP_REST))
			return -1;
	} else {
		if (ks->have_pend && ep_emit(L, &ks->ec, &ks->pend, EP_REST))
			return -1;
		ks->pend = cur;
		ks->have_pend = 1;
	}
	ks->tiles++;
	return 0;
}

int vc_lower_kernel(vc_module *m, vc_kernel *k, const vc_geom *gp, const vc_tiling *tlp, int scratch,
		    vc_lower_stats *st)
{
	const vc_target *t = &m->target;
	const vc_node *n = k->node;
	kstate ks;
	memset(&ks, 0, sizeof ks);
	ks.t = t;
	ks.g = *gp;
	ks.tl = *tlp;
	const vc_geom *g = &ks.g;
	lowering *L = calloc(1, sizeof *L);
	if (!L)
		return vc_error(m, n, "out of memory");
	L->m = m;
	L->k = k;
	L->scratch = scratch;
	k->n = 0;
	k->n_uops = 0;
	k->macs = 0;
	int rc = -1;
	ks.halves = ks.tl.pingpong ? 2 : 1;
	ks.acc_half = t->acc_depth / ks.halves;
	buffers(t, g, &ks.tl, &ks.inp_half, &ks.wgt_half, &ks.rin);
	ks.cols = (g->ow - 1) * g->sw + g->kw, ks.k2 = g->kh * g->kw;
	ks.skip_rows = vc_skips_rows(g);
	ks.rstep = ks.skip_rows ? 1 : g->sh;
	if (!vc_tiling_fits(t, g, &ks.tl)) {
		vc_error(m, n, "lower: the tiling %dx%dx%d does not fit", ks.tl.th, ks.tl.tco, ks.tl.tci);
		free(L);
		return -1;
	}
	int64_t lo = n->a.relu ? 0 : n->a.qlo, hi = n->a.qhi;
	if (!(ks.ubuf = malloc((size_t)(t->uop_depth + 1) * 4))) {
		vc_error(m, n, "out of memory");
		goto done;
	}
	ks.R = (g->oh + ks.tl.th - 1) / ks.tl.th, ks.C = (g->cob + ks.tl.tco - 1) / ks.tl.tco;
	ks.ec = (ep_ctx){t, g, n, n->a.shift, lo, hi, ks.ubuf, 0, 0};
	ks.defer = ks.halves == 2 && g->nb * ks.R * ks.C > 1;
	if (g->res_gemm && identity_block(L, &ks))
		goto done;
	for (int64_t nb = 0; nb < g->nb; nb++)
		for (int64_t a = 0; a < (ks.tl.rows_outer ? ks.R : ks.C); a++)
			for (int64_t b = 0; b < (ks.tl.rows_outer ? ks.C : ks.R); b++)
				if (lower_tile(L, &ks, nb, a, b))
					goto done;
	if (ks.have_pend && ep_emit(L, &ks.ec, &ks.pend, EP_REST))
		goto done;
	vc_kinsn *fin = emit(L);
	if (!fin)
		goto done;
	fin->insn.opcode = VTA_OPCODE_FINISH;
	fin->writes = (1u << VC_NRES) - 1;
	if (st) {
		st->tiles = ks.tiles;
		st->residual_tiles = ks.ec.res_tiles;
		st->leaky_tiles = ks.ec.leaky_tiles;
	}
	rc = 0;
done:
	free(ks.ubuf);
	free(L);
	return rc;
}

static int lower(vc_pass *p, vc_module *m, vc_unit *u)
{
	vc_kernel *k = u->kernel;
	if (!k->tiled)
		return vc_error(m, k->node, "lower: kernel %d has no tiling", k->id);
	const vc_geom *g = vc_unit_geom(m, u);
	if (!g)
		return vc_error(m, k->node, "lower: out of memory");
	vc_lower_stats st;
	if (vc_lower_kernel(m, k, g, &k->tile, 0, &st))
		return -1;
	vc_stat_add(p, "instructions", k->n);
	vc_stat_add(p, "uops", k->n_uops);
	vc_stat_add(p, "tiles", st.tiles);
	if (st.residual_tiles)
		vc_stat_add(p, "residual-tiles", st.residual_tiles);
	if (st.leaky_tiles)
		vc_stat_add(p, "leaky-tiles", st.leaky_tiles);
	return 0;
}

const vc_pass_desc vc_pass_lower = {
	.name = "lower",
	.summary = "tile loop nest to VTA instructions: padded DMA, micro-op GEMM, ALU requantization, store",
	.anchor = VC_ANCHOR_KERNEL,
	.preserves = VC_PRESERVES_NOT_CODE, /* writes the kernel's code */
	.parallel = 1,
	.requires_props = VC_PROP_TILED,
	.provides_props = VC_PROP_LOWERED,
	.stats = {"instructions", "uops", "tiles", "residual-tiles", "leaky-tiles"},
	.run = lower,
};
