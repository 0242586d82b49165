/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kernel and stream passes:
 *
 *   tile    choose (rows, output blocks, input blocks) per kernel so that
 *           every buffer fits half its SRAM (ping-pong), minimising DRAM
 *           traffic
 *   lower   the tile loop nest as VTA instructions with symbolic DRAM
 *           addresses: DMA with per-tile padding, GEMM micro-op kernels with
 *           the two hardware loops, the bias and requantization ALU
 *           sequence, the store; micro-ops deduplicated and kept resident
 *   tokens  dependency tokens from the SRAM regions each instruction reads
 *           and writes (a static CoProcSync)
 *   emit    place every device tensor, micro-op and instruction stream in
 *           one device memory image and encode the instructions
 *
 * The structure the hardware needs (DMA shapes, loop factors, ALU opcodes)
 * is constructed directly here from the tile plan; nothing is pattern
 * matched back out of loops.
 */
#include <stdlib.h>
#include <string.h>

#include "vc.h"

/* ---- tile ------------------------------------------------------------ */

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* Does the tile fit every SRAM and field of the ISA? */
static int fits(const vc_target *t, const vc_geom *g, int64_t th, int64_t tco, int64_t tci, int halves)
{
	int64_t cols = (g->ow - 1) * g->sw + g->kw, rows = (th - 1) * g->sh + g->kh;
	int64_t k2 = g->kh * g->kw;
	if (tci * rows * cols > t->inp_depth / halves)
		return 0;
	if (tco * tci * k2 > t->wgt_depth / halves)
		return 0;
	if (tco * th * g->ow * (1 + g->res) + tco > t->acc_depth / halves)
		return 0;
	if (tco * tci * k2 > t->uop_depth / 2)
		return 0;
	if (g->sh * cols >= 2048 || g->ow >= 2048 || th * g->ow >= 2048 || th > 16383 || tco * th > 16383)
		return 0;
	if (g->w >= 65536 || th * g->ow >= 65536 || g->cib * k2 >= 65536 || g->oh * g->ow >= 65536)
		return 0;
	return 1;
}

int vc_kernel_plan(const vc_target *t, const vc_geom *g, vc_tiling *out, char *why, size_t whyn)
{
	if (g->pt > 15 || g->pb > 15 || g->pl > 15 || g->pr > 15)
		return snprintf(why, whyn, "padding above 15"), -1;
	if ((g->ow - 1) * g->sw + g->kw <= g->pl)
		return snprintf(why, whyn, "kernel window inside the left padding"), -1;
	double best = -1;
	for (int halves = 2; halves >= 1 && best < 0; halves--)
		for (int64_t tco = 1; tco <= g->cob; tco++)
			for (int64_t tci = 1; tci <= g->cib; tci++)
				for (int64_t th = 1; th <= g->oh; th++) {
					if (!fits(t, g, th, tco, tci, halves))
						break; /* larger th only gets worse */
					int64_t R = cdiv(g->oh, th), C = cdiv(g->cob, tco), S = cdiv(g->cib, tci);
					int64_t rows = (th - 1) * g->sh + g->kh, cols = (g->ow - 1) * g->sw + g->kw;
					double inp = (double)(g->nb * R * C * g->cib * rows * cols) * VTA_INP_ELEM_BYTES;
					double wgt = (double)(g->nb * R * g->cob * g->cib * g->kh * g->kw) * VTA_WGT_ELEM_BYTES;
					double insns = (double)(g->nb * R * C * (S * (tci + 2) + 8));
					double cost = inp + wgt + 64.0 * insns;
					if (best < 0 || cost < best) {
						best = cost;
						out->th = (int)th;
						out->tco = (int)tco;
						out->tci = (int)tci;
						out->pingpong = halves == 2;
					}
				}
	if (best < 0)
		return snprintf(why, whyn, "no tile of this %lldx%lld convolution fits the SRAMs (input row %lld elements)",
				(long long)g->kh, (long long)g->kw, (long long)((g->ow - 1) * g->sw + g->kw)),
		       -1;
	return 0;
}

static int tile(vc_pass *p, vc_module *m, vc_unit *u)
{
	vc_kernel *k = u->kernel;
	vc_geom g;
	vc_geom_of(&m->target, k->node, &g);
	char why[256];
	if (vc_kernel_plan(&m->target, &g, &k->tile, why, sizeof why))
		return vc_error(m, k->node, "tile: %s", why);
	k->tiled = 1;
	vc_stat_add(p, "kernels", 1);
	if (!k->tile.pingpong)
		vc_stat_add(p, "single-buffered", 1);
	return 0;
}

const vc_pass_desc vc_pass_tile = {
	.name = "tile",
	.summary = "choose a tiling that fits the SRAMs with ping-pong halves",
	.anchor = VC_ANCHOR_KERNEL,
	.requires_props = VC_PROP_PACKED,
	.provides_props = VC_PROP_TILED,
	.stats = {"kernels", "single-buffered"},
	.run = tile,
};

/* ---- lower ------------------------------------------------------------ */

typedef struct lowering {
	vc_module *m;
	vc_kernel *k;
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
		vc_kinsn *nk = vc_alloc(L->m, (size_t)nc * sizeof *nk);
		if (!nk)
			return NULL;
		if (k->n)
			memcpy(nk, k->code, (size_t)k->n * sizeof *nk);
		k->code = nk;
		k->cap = nc;
	}
	vc_kinsn *ki = &k->code[k->n++];
	memset(ki, 0, sizeof *ki);
	ki->arg = -1;
	return ki;
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
		if (k->n_uops + n > k->cap_uops) {
			int nc = k->cap_uops ? k->cap_uops * 2 : 1024;
			while (nc < k->n_uops + n)
				nc *= 2;
			uint32_t *nu = vc_alloc(L->m, (size_t)nc * 4);
			if (!nu)
				return -1;
			if (k->n_uops)
				memcpy(nu, k->uops, (size_t)k->n_uops * 4);
			k->uops = nu;
			k->cap_uops = nc;
		}
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

static int lower(vc_pass *p, vc_module *m, vc_unit *u)
{
	vc_kernel *k = u->kernel;
	const vc_target *t = &m->target;
	const vc_node *n = k->node;
	vc_geom g;
	vc_geom_of(t, n, &g);
	vc_tiling tl = k->tile;
	if (!k->tiled)
		return vc_error(m, n, "lower: kernel %d has no tiling", k->id);
	lowering *L = calloc(1, sizeof *L);
	if (!L)
		return vc_error(m, n, "out of memory");
	L->m = m;
	L->k = k;
	k->n = 0;
	k->n_uops = 0;
	int halves = tl.pingpong ? 2 : 1;
	int inp_half = t->inp_depth / halves, wgt_half = t->wgt_depth / halves, acc_half = t->acc_depth / halves;
	int64_t cols = (g.ow - 1) * g.sw + g.kw, k2 = g.kh * g.kw;
	int shift = n->a.shift;
	int64_t lo = n->a.relu ? 0 : n->a.qlo, hi = n->a.qhi;
	int rc = -1;
	uint32_t *ubuf = malloc((size_t)(t->uop_depth + 1) * 4);
	if (!ubuf) {
		vc_error(m, n, "out of memory");
		goto done;
	}
	int64_t step = 0, tiles = 0;
	for (int64_t nb = 0; nb < g.nb; nb++)
		for (int64_t co0 = 0; co0 < g.cob; co0 += tl.tco)
			for (int64_t oh0 = 0; oh0 < g.oh; oh0 += tl.th) {
				int64_t tco = g.cob - co0 < tl.tco ? g.cob - co0 : tl.tco;
				int64_t th = g.oh - oh0 < tl.th ? g.oh - oh0 : tl.th;
				int ah = (int)(tiles % halves), ares = VC_RES_ACC0 + ah;
				uint32_t abase = (uint32_t)(ah * acc_half), bbase = abase + (uint32_t)(tco * th * g.ow);
				int64_t rows = (th - 1) * g.sh + g.kh;
				vc_kinsn *ki;

				/* reset the accumulators of the tile */
				if (uop_word(L, abase, 0, 0, &ubuf[0]))
					goto done;
				int ub = uops(L, ubuf, 1);
				if (ub < 0 || !(ki = emit(L)))
					goto done;
				ki->insn.opcode = VTA_OPCODE_GEMM;
				ki->insn.reset = 1;
				ki->insn.uop_bgn = (uint32_t)ub, ki->insn.uop_end = (uint32_t)ub + 1;
				ki->insn.iter_out = (uint32_t)(tco * th), ki->insn.iter_in = (uint32_t)g.ow;
				ki->insn.dst_factor_out = (uint32_t)g.ow, ki->insn.dst_factor_in = 1;
				ki->writes = 1u << ares;
				ki->reads = 1u << VC_RES_UOP;

				for (int64_t ci0 = 0; ci0 < g.cib; ci0 += tl.tci, step++) {
					int64_t tci = g.cib - ci0 < tl.tci ? g.cib - ci0 : tl.tci;
					int h = (int)(step % halves);
					uint32_t ibase = (uint32_t)(h * inp_half), wbase = (uint32_t)(h * wgt_half);
					/* input: one padded 2-D DMA per channel block */
					int64_t r0 = oh0 * g.sh - g.pt, r1 = r0 + rows;
					int64_t yp0 = r0 < 0 ? -r0 : 0, yp1 = r1 > g.h ? r1 - g.h : 0;
					int64_t ysz = rows - yp0 - yp1, xsz = cols - g.pl < g.w ? cols - g.pl : g.w;
					int64_t xp1 = cols - g.pl - xsz;
					if (ysz < 0 || yp0 > 15 || yp1 > 15 || xp1 > 15) {
						vc_error(m, n, "lower: tile at row %lld needs padding the DMA cannot express",
							 (long long)oh0);
						goto done;
					}
					for (int64_t cb = 0; cb < tci; cb++) {
						if (!(ki = emit(L)))
							goto done;
						vta_insn_t *in = &ki->insn;
						in->opcode = VTA_OPCODE_LOAD;
						in->memory_type = VTA_MEM_ID_INP;
						in->sram_base = ibase + (uint32_t)(cb * rows * cols);
						in->dram_base = (uint32_t)(((nb * g.cib + ci0 + cb) * g.h + (r0 + yp0)) * g.w);
						in->y_size = (uint32_t)ysz, in->x_size = (uint32_t)xsz, in->x_stride = (uint32_t)g.w;
						in->y_pad_0 = (uint32_t)yp0, in->y_pad_1 = (uint32_t)yp1;
						in->x_pad_0 = (uint32_t)g.pl, in->x_pad_1 = (uint32_t)xp1;
						ki->arg = VC_ARG_INP;
						ki->writes = 1u << (VC_RES_INP0 + h);
					}
					/* weights: tco rows of tci*k2 contiguous elements */
					if (!(ki = emit(L)))
						goto done;
					ki->insn.opcode = VTA_OPCODE_LOAD;
					ki->insn.memory_type = VTA_MEM_ID_WGT;
					ki->insn.sram_base = wbase;
					ki->insn.dram_base = (uint32_t)((co0 * g.cib + ci0) * k2);
					ki->insn.y_size = (uint32_t)tco, ki->insn.x_size = (uint32_t)(tci * k2);
					ki->insn.x_stride = (uint32_t)(g.cib * k2);
					ki->arg = VC_ARG_WGT;
					ki->writes = 1u << (VC_RES_WGT0 + h);
					/* GEMM: one micro-op per (block out, block in, kh, kw); rows and
					 * columns are the two hardware loops */
					int nu = 0;
					for (int64_t ob = 0; ob < tco; ob++)
						for (int64_t cb = 0; cb < tci; cb++)
							for (int64_t kh = 0; kh < g.kh; kh++)
								for (int64_t kw = 0; kw < g.kw; kw++)
									if (uop_word(L, abase + (uint32_t)(ob * th * g.ow),
										     ibase + (uint32_t)(cb * rows * cols + kh * cols + kw),
										     wbase + (uint32_t)((ob * tci + cb) * k2 + kh * g.kw + kw),
										     &ubuf[nu++]))
										goto done;
					ub = uops(L, ubuf, nu);
					if (ub < 0 || !(ki = emit(L)))
						goto done;
					ki->insn.opcode = VTA_OPCODE_GEMM;
					ki->insn.uop_bgn = (uint32_t)ub, ki->insn.uop_end = (uint32_t)(ub + nu);
					ki->insn.iter_out = (uint32_t)th, ki->insn.iter_in = (uint32_t)g.ow;
					ki->insn.dst_factor_out = (uint32_t)g.ow, ki->insn.dst_factor_in = 1;
					ki->insn.src_factor_out = (uint32_t)(g.sh * cols), ki->insn.src_factor_in = (uint32_t)g.sw;
					ki->reads = 1u << (VC_RES_INP0 + h) | 1u << (VC_RES_WGT0 + h) | 1u << ares | 1u << VC_RES_UOP;
					ki->writes = 1u << ares;
					k->macs += th * g.ow * tco * tci * k2 * t->batch * t->block_in * t->block_out;
				}

				/* bias: load tco ACC elements, add them to every position */
				if (!(ki = emit(L)))
					goto done;
				ki->insn.opcode = VTA_OPCODE_LOAD;
				ki->insn.memory_type = VTA_MEM_ID_ACC;
				ki->insn.sram_base = bbase;
				ki->insn.dram_base = (uint32_t)co0;
				ki->insn.y_size = 1, ki->insn.x_size = ki->insn.x_stride = (uint32_t)tco;
				ki->arg = VC_ARG_BIAS;
				ki->writes = 1u << ares;
				if (uop_word(L, abase, bbase, 0, &ubuf[0]))
					goto done;
				if ((ub = uops(L, ubuf, 1)) < 0)
					goto done;
				if (alu(L, VTA_ALU_OPCODE_ADD, 0, 0, ub, (uint32_t)tco, (uint32_t)(th * g.ow), (uint32_t)(th * g.ow), 1,
					1, 0, ares))
					goto done;

				/* residual: the int8 tensor of the output's shape, sign-extended
				 * into the ACC after the bias (LOAD ACC_8BIT), brought to the
				 * accumulator's exponent by a left shift (SHR by a negative
				 * immediate), added with one tensor-tensor ALU ADD */
				if (g.res) {
					uint32_t rbase = bbase + (uint32_t)tco;
					if (!(ki = emit(L)))
						goto done;
					ki->insn.opcode = VTA_OPCODE_LOAD;
					ki->insn.memory_type = VTA_MEM_ID_ACC_8BIT;
					ki->insn.sram_base = rbase;
					ki->insn.dram_base = (uint32_t)(((nb * g.cob + co0) * g.oh + oh0) * g.ow);
					ki->insn.y_size = (uint32_t)tco, ki->insn.x_size = (uint32_t)(th * g.ow);
					ki->insn.x_stride = (uint32_t)(g.oh * g.ow);
					ki->arg = VC_ARG_RES;
					ki->writes = 1u << ares;
					uint32_t rio = (uint32_t)(tco * th), rii = (uint32_t)g.ow, rf = (uint32_t)g.ow;
					if (n->a.res_shift) {
						if (uop_word(L, rbase, rbase, 0, &ubuf[0]) || (ub = uops(L, ubuf, 1)) < 0)
							goto done;
						if (alu(L, VTA_ALU_OPCODE_SHR, 1, -n->a.res_shift, ub, rio, rii, rf, 1, rf, 1, ares))
							goto done;
					}
					if (uop_word(L, abase, rbase, 0, &ubuf[0]) || (ub = uops(L, ubuf, 1)) < 0)
						goto done;
					if (alu(L, VTA_ALU_OPCODE_ADD, 0, 0, ub, rio, rii, rf, 1, rf, 1, ares))
						goto done;
					vc_stat_add(p, "residual-tiles", 1);
				}

				/* requantize: [SHR s-15], ADD 2^(s-1), SHR s, MAX lo, MIN hi */
				if (uop_word(L, abase, abase, 0, &ubuf[0]))
					goto done;
				if ((ub = uops(L, ubuf, 1)) < 0)
					goto done;
				uint32_t io = (uint32_t)(tco * th), ii = (uint32_t)g.ow, f = (uint32_t)g.ow;
				int s = shift;
				if (s > 15) {
					if (alu(L, VTA_ALU_OPCODE_SHR, 1, s - 15, ub, io, ii, f, 1, f, 1, ares))
						goto done;
					s = 15;
				}
				if (s > 0 && alu(L, VTA_ALU_OPCODE_ADD, 1, 1 << (s - 1), ub, io, ii, f, 1, f, 1, ares))
					goto done;
				if (s != 0 && alu(L, VTA_ALU_OPCODE_SHR, 1, s, ub, io, ii, f, 1, f, 1, ares))
					goto done;
				if (alu(L, VTA_ALU_OPCODE_MAX, 1, (int32_t)lo, ub, io, ii, f, 1, f, 1, ares) ||
				    alu(L, VTA_ALU_OPCODE_MIN, 1, (int32_t)hi, ub, io, ii, f, 1, f, 1, ares))
					goto done;

				/* store: tco rows of th*ow contiguous output elements */
				if (!(ki = emit(L)))
					goto done;
				ki->insn.opcode = VTA_OPCODE_STORE;
				ki->insn.memory_type = VTA_MEM_ID_OUT;
				ki->insn.sram_base = abase;
				ki->insn.dram_base = (uint32_t)(((nb * g.cob + co0) * g.oh + oh0) * g.ow);
				ki->insn.y_size = (uint32_t)tco, ki->insn.x_size = (uint32_t)(th * g.ow);
				ki->insn.x_stride = (uint32_t)(g.oh * g.ow);
				ki->arg = VC_ARG_OUT;
				ki->reads = 1u << ares;
				tiles++;
			}
	vc_kinsn *fin = emit(L);
	if (!fin)
		goto done;
	fin->insn.opcode = VTA_OPCODE_FINISH;
	fin->writes = (1u << VC_NRES) - 1;
	vc_stat_add(p, "instructions", k->n);
	vc_stat_add(p, "uops", k->n_uops);
	vc_stat_add(p, "tiles", tiles);
	rc = 0;
done:
	free(ubuf);
	free(L);
	return rc;
}

const vc_pass_desc vc_pass_lower = {
	.name = "lower",
	.summary = "tile loop nest to VTA instructions: padded DMA, micro-op GEMM, ALU requantization, store",
	.anchor = VC_ANCHOR_KERNEL,
	.requires_props = VC_PROP_TILED,
	.provides_props = VC_PROP_LOWERED,
	.stats = {"instructions", "uops", "tiles", "residual-tiles"},
	.run = lower,
};

/* ---- tokens ---------------------------------------------------------- */

enum { MOD_LOAD, MOD_COMPUTE, MOD_STORE, NMOD };

static int module_of(const vta_insn_t *in)
{
	switch (in->opcode) {
	case VTA_OPCODE_LOAD:
		return in->memory_type == VTA_MEM_ID_INP || in->memory_type == VTA_MEM_ID_WGT ? MOD_LOAD : MOD_COMPUTE;
	case VTA_OPCODE_STORE:
		return MOD_STORE;
	default:
		return MOD_COMPUTE;
	}
}

/*
 * For every instruction, the latest instruction of each other module it
 * must wait for (RAW on what it reads, WAR/WAW on what it writes). Per
 * queue, waits are made monotone: a wait already covered by an earlier,
 * later-producing token needs none. The k-th pop then always matches the
 * k-th push, and every push precedes its pop in program order.
 */
static int tokens(vc_pass *p, vc_module *m, vc_unit *u)
{
	vc_kernel *k = u->kernel;
	int last_r[VC_NRES][NMOD], last_w[VC_NRES][NMOD];
	int covered[NMOD][NMOD]; /* [from][to]: latest producer already waited for */
	for (int r = 0; r < VC_NRES; r++)
		for (int mo = 0; mo < NMOD; mo++)
			last_r[r][mo] = last_w[r][mo] = -1;
	for (int a = 0; a < NMOD; a++)
		for (int b = 0; b < NMOD; b++)
			covered[a][b] = -1;
	for (int i = 0; i < k->n; i++) {
		vc_kinsn *ki = &k->code[i];
		vta_insn_t *in = &ki->insn;
		in->pop_prev = in->pop_next = in->push_prev = in->push_next = 0;
	}
	for (int i = 0; i < k->n; i++) {
		vc_kinsn *ki = &k->code[i];
		int me = module_of(&ki->insn);
		int need[NMOD] = {-1, -1, -1};
		for (int r = 0; r < VC_NRES; r++) {
			for (int o = 0; o < NMOD; o++) {
				if (o == me)
					continue;
				if ((ki->reads | ki->writes) >> r & 1)
					need[o] = last_w[r][o] > need[o] ? last_w[r][o] : need[o];
				if (ki->writes >> r & 1)
					need[o] = last_r[r][o] > need[o] ? last_r[r][o] : need[o];
			}
		}
		for (int o = 0; o < NMOD; o++) {
			if (need[o] < 0 || need[o] <= covered[o][me])
				continue;
			if ((o == MOD_LOAD && me == MOD_STORE) || (o == MOD_STORE && me == MOD_LOAD))
				return vc_error(m, k->node, "tokens: instruction %d needs a load<->store dependency", i);
			vta_insn_t *prod = &k->code[need[o]].insn, *cons = &ki->insn;
			/* queue direction: towards the store end is "next" */
			if (o < me) {
				prod->push_next = 1;
				cons->pop_prev = 1;
			} else {
				prod->push_prev = 1;
				cons->pop_next = 1;
			}
			covered[o][me] = need[o];
			vc_stat_add(p, "tokens", 1);
		}
		for (int r = 0; r < VC_NRES; r++) {
			if (ki->reads >> r & 1)
				last_r[r][me] = i;
			if (ki->writes >> r & 1)
				last_w[r][me] = i;
		}
	}
	return 0;
}

const vc_pass_desc vc_pass_tokens = {
	.name = "tokens",
	.summary = "insert dependency tokens between the load, compute and store modules",
	.anchor = VC_ANCHOR_KERNEL,
	.requires_props = VC_PROP_LOWERED,
	.provides_props = VC_PROP_TOKENS,
	.stats = {"tokens"},
	.run = tokens,
};

/* ---- emit ------------------------------------------------------------ */

static int64_t align_up(int64_t v, int64_t a)
{
	return (v + a - 1) / a * a;
}

int64_t vc_arena_align(void);
int64_t vc_arena_align(void)
{
	int64_t a = 256;
	if (VTA_WGT_ELEM_BYTES > a)
		a = VTA_WGT_ELEM_BYTES;
	if (VTA_ACC_ELEM_BYTES > a)
		a = VTA_ACC_ELEM_BYTES;
	return a;
}

static int emit_stream(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	int64_t A = vc_arena_align(), off = 0;
	vc_graph *g = m->g;
	for (int i = 0; i < g->n; i++) {
		vc_node *n = g->nodes[i];
		n->a.dev_off = -1;
		if (n->type.layout != VC_PACKED)
			continue;
		n->a.dev_off = off;
		off = align_up(off + (int64_t)vc_type_bytes(&n->type), A);
	}
	for (int k = 0; k < m->n_kernels; k++) {
		vc_kernel *kn = m->kernels[k];
		kn->uop_off = off;
		off = align_up(off + 4 * (int64_t)kn->n_uops, A);
		kn->insn_off = off;
		kn->insn_count = kn->n;
		off = align_up(off + 16 * (int64_t)kn->n, A);
	}
	vc_stream *s = vc_alloc(m, sizeof *s);
	uint8_t *img = s ? vc_alloc(m, (size_t)(off ? off : 1)) : NULL;
	if (!img)
		return vc_error(m, NULL, "emit: out of memory for a %lld-byte image", (long long)off);
	s->image = img;
	s->size = off;
	for (int i = 0; i < g->n; i++) {
		vc_node *n = g->nodes[i];
		if (n->op == VC_OP_CONST && n->a.dev_off >= 0) {
			memcpy(img + n->a.dev_off, n->data, vc_type_bytes(&n->type));
			vc_stat_add(p, "weight-bytes", (int64_t)vc_type_bytes(&n->type));
		}
	}
	for (int k = 0; k < m->n_kernels; k++) {
		vc_kernel *kn = m->kernels[k];
		const vc_node *n = kn->node;
		int64_t argoff[VC_NARGS] = {n->in[0]->a.dev_off, n->in[1]->a.dev_off, n->in[2]->a.dev_off, n->a.dev_off,
					    kn->uop_off, n->n_in > 3 ? n->in[3]->a.dev_off : -1};
		for (int i = 0; i < kn->n_uops; i++) {
			uint32_t w = kn->uops[i];
			uint8_t *d = img + kn->uop_off + 4 * i;
			d[0] = (uint8_t)w, d[1] = (uint8_t)(w >> 8), d[2] = (uint8_t)(w >> 16), d[3] = (uint8_t)(w >> 24);
		}
		for (int i = 0; i < kn->n; i++) {
			vta_insn_t in = kn->code[i].insn;
			int arg = kn->code[i].arg;
			if (arg >= 0) {
				int64_t eb = vta_mem_elem_bytes(in.memory_type);
				if (argoff[arg] < 0 || eb == 0 || argoff[arg] % eb)
					return vc_error(m, n, "emit: kernel %d instruction %d has an unplaced operand", k, i);
				in.dram_base += (uint32_t)(argoff[arg] / eb);
			}
			vta_insn_word_t w;
			vta_error_t err;
			if (vta_insn_encode(&in, &w, &err))
				return vc_error(m, n, "emit: kernel %d instruction %d: %s", k, i, err.msg);
			vta_insn_store(&w, img + kn->insn_off + 16 * i);
		}
		vc_stat_add(p, "instructions", kn->n);
	}
	m->stream = s;
	vc_stat_add(p, "image-bytes", off);
	return 0;
}

const vc_pass_desc vc_pass_emit = {
	.name = "emit",
	.summary = "place tensors, micro-ops and instructions in one device image and encode them",
	.anchor = VC_ANCHOR_STREAM,
	.requires_props = VC_PROP_TOKENS | VC_PROP_PACKED,
	.provides_props = VC_PROP_EMITTED,
	.stats = {"instructions", "weight-bytes", "image-bytes"},
	.run = emit_stream,
};
