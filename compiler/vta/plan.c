/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The geometry of a convolution in blocks of the target, and the tiling
 * plan: (rows, output blocks, input blocks) such that every buffer fits half
 * its SRAM (ping-pong) and every ISA field, with the least DRAM traffic;
 * single buffering when no ping-pong tile fits. Used by partition (can VTA
 * run it?), tile and lower.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vta/codegen.h"

int vc_geom_of(const vc_target *t, const vc_node *n, vc_geom *g)
{
	memset(g, 0, sizeof *g);
	const vc_type *x = &n->in[0]->type, *w = &n->in[1]->type;
	if (n->op == VC_OP_VTA_CONV) {
		g->nb = x->dim[0], g->cib = x->dim[1], g->h = x->dim[2], g->w = x->dim[3];
		g->cob = w->dim[0], g->kh = w->dim[2], g->kw = w->dim[3];
		g->oh = n->type.dim[2], g->ow = n->type.dim[3];
	} else if (x->rank == 4) {
		g->nb = (x->dim[0] + t->batch - 1) / t->batch, g->cib = (x->dim[1] + t->block_in - 1) / t->block_in;
		g->h = x->dim[2], g->w = x->dim[3];
		g->cob = (w->dim[0] + t->block_out - 1) / t->block_out, g->kh = w->dim[2], g->kw = w->dim[3];
		g->oh = n->type.dim[2], g->ow = n->type.dim[3];
	} else {
		g->nb = (x->dim[0] + t->batch - 1) / t->batch, g->cib = (x->dim[1] + t->block_in - 1) / t->block_in;
		g->h = g->w = g->kh = g->kw = g->oh = g->ow = 1;
		g->cob = (w->dim[0] + t->block_out - 1) / t->block_out;
	}
	g->res = (n->op == VC_OP_VTA_CONV || n->op == VC_OP_QCONV_RQ) && n->n_in > 3;
	g->leaky = (n->op == VC_OP_VTA_CONV || n->op == VC_OP_QCONV_RQ) && n->a.leaky;
	const vc_type *b = n->n_in > 2 ? &n->in[2]->type : NULL;
	g->kb = n->op == VC_OP_VTA_CONV && b && b->rank == 4 ? (int)b->dim[1]
		: n->op == VC_OP_QCONV_RQ && b && b->rank == 2 ? 2 + g->res
							       : 1;
	/* the residual as a GEMM tap: an int8 weight 2^(shift - pre) on the
	 * diagonal, pre = shift - 6 when the shift exceeds 6: the accumulators
	 * are shifted right by pre before it (exact while pre < the requant
	 * shift: floor(floor(x / 2^p) / 2^q) = floor(x / 2^(p+q)), and the
	 * residual term is a multiple of 2^pre); a block stride that fits the
	 * DMA's 16-bit x_stride; one shift for every channel */
	int pre = n->a.res_shift > 6 ? n->a.res_shift - 6 : 0;
	g->res_gemm = g->res && g->kb == 1 && n->a.res_shift >= 0 && (!pre || pre < n->a.shift) &&
		      t->block_in == t->block_out && n->type.dim[2] * n->type.dim[3] < 65536;
	g->res_pre = g->res_gemm ? pre : 0;
	g->res_weight = g->res_gemm ? 1 << (n->a.res_shift - pre) : 0;
	int conv = x->rank == 4 || n->op == VC_OP_VTA_CONV;
	g->dw = conv && n->a.group > 1;
	g->sh = conv ? n->a.stride[0] : 1, g->sw = conv ? n->a.stride[1] : 1;
	g->pt = conv ? n->a.pad[0] : 0, g->pl = conv ? n->a.pad[1] : 0;
	g->pb = conv ? n->a.pad[2] : 0, g->pr = conv ? n->a.pad[3] : 0;
	return 0;
}


int64_t vc_column_group(int64_t tco, int64_t th, int64_t ow)
{
	for (int64_t grp = 1; grp < ow; grp++) {
		if (ow % grp || tco * grp < VC_HAZARD_SPAN)
			continue;
		unsigned banks = 0; /* the ACC banks (row % 4) of one pass over the group */
		for (int64_t ob = 0; ob < tco; ob++)
			for (int64_t x = 0; x < grp; x++)
				banks |= 1u << ((ob * th * ow + x) & 3);
		if (banks == 0xf)
			return grp;
	}
	return ow;
}

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

int vc_skips_rows(const vc_geom *g)
{
	return g->kh == 1 && g->sh > 1 && g->pt == 0 && g->pb == 0;
}

int vc_tiling_fits(const vc_target *t, const vc_geom *g, const vc_tiling *tl)
{
	int64_t th = tl->th, tco = tl->tco, tci = tl->tci;
	int halves = tl->pingpong ? 2 : 1;
	int64_t cols = (g->ow - 1) * g->sw + g->kw;
	int64_t rows = vc_skips_rows(g) ? th : (th - 1) * g->sh + g->kh;
	int64_t k2 = g->kh * g->kw;
	/* depthwise: a tile reads its own tco input blocks through one diagonal
	 * weight block a tap and output block (nothing to keep resident) */
	if (g->dw && (tci != tco || tl->resident))
		return 0;
	int64_t inp = (tl->resident && tl->rows_outer ? g->cib : tci) * rows * cols;
	int64_t wblocks = tco * (g->dw ? 1 : tci) * k2;
	int64_t wgt = tl->resident && !tl->rows_outer ? tco * g->cib * k2 : wblocks;
	/* a residual GEMM takes a residual tile per ACC half in INP and the
	 * identity block at the end of WGT */
	int64_t rin = g->res_gemm ? tco * th * g->ow : 0;
	if (inp > (t->inp_depth - halves * rin) / halves || wgt > (t->wgt_depth - (g->res_gemm ? 1 : 0)) / halves)
		return 0;
	/* a third ACC region: the residual loaded by the ALU path, or a leaky
	 * ReLU's copy (one row more to keep it off the accumulators' bank) */
	if (tco * th * g->ow * (1 + ((g->res && !g->res_gemm) || g->leaky)) + tco * g->kb + (g->leaky != 0) >
	    t->acc_depth / halves)
		return 0;
	if (wblocks * vc_column_group(tco, th, g->ow) > t->uop_depth / 2)
		return 0;
	if ((vc_skips_rows(g) ? 1 : g->sh) * cols >= 2048 || g->ow >= 2048 || th * g->ow >= 2048 || th > 16383 ||
	    tco * th > 16383)
		return 0;
	/* (a channel-block stride oh*ow over the x_stride field splits the stores, lower.c) */
	if (g->w * g->sh >= 65536 || th * g->ow >= 65536 || g->cib * k2 >= 65536)
		return 0;
	return 1;
}


int64_t vc_tiling_estimate(const vc_target *t, const vc_geom *g, const vc_tiling *tl, const vc_timing *tm, int alu_ops)
{
	(void)t;
	int64_t R = cdiv(g->oh, tl->th), C = cdiv(g->cob, tl->tco), S = g->dw ? 1 : cdiv(g->cib, tl->tci);
	int64_t wcib = g->dw ? 1 : g->cib, wtci = g->dw ? 1 : tl->tci; /* weight blocks a tap and output block */
	int64_t T = g->nb * R * C;
	int64_t rows = vc_skips_rows(g) ? tl->th : (tl->th - 1) * g->sh + g->kh;
	int64_t cols = (g->ow - 1) * g->sw + g->kw, k2 = g->kh * g->kw;
	int64_t vec = g->nb * g->cob * g->oh * g->ow; /* output vectors */
	int bus = tm->bus_bytes;
	/* compute: micro-ops (the same for every tiling), instructions, micro-op loads */
	int64_t gemm = vec * wcib * k2, insns = T * (S + (int64_t)alu_ops + 4);
	int64_t nu = (int64_t)tl->tco * wtci * k2 * vc_column_group(tl->tco, tl->th, g->ow);
	int64_t compute = gemm + vec * (1 + (int64_t)alu_ops) + insns * (tm->pipe + tm->insn_start + tm->insn_end) +
			  2 * S * nu;
	if (g->res && !g->res_gemm) /* the residual loaded by compute */
		compute += vec * VTA_ACC_ELEM_BYTES / 4 / bus + T * tm->dram_latency;
	/* load: beats, and a latency per instruction */
	int64_t inp_loads = tl->resident && tl->rows_outer ? g->nb * R : T;
	int64_t wgt_loads = tl->resident && !tl->rows_outer ? g->nb * C : T;
	int64_t inp_beats = inp_loads * (g->dw ? tl->tco : g->cib) * rows * cols * VTA_INP_ELEM_BYTES / bus;
	int64_t wgt_beats = wgt_loads * tl->tco * wcib * k2 * VTA_WGT_ELEM_BYTES / bus;
	int64_t load = inp_beats + wgt_beats + (inp_loads * S * tl->tci + wgt_loads * S) * (tm->dram_latency / 4 + 4);
	int64_t store = vec * VTA_OUT_ELEM_BYTES / bus + T * tm->wr_latency;
	int64_t epilogue = vec * (1 + (int64_t)alu_ops) / T + store / T;
	if (!tl->pingpong)
		return compute + load + store / T;
	/* overlapped, but for the first step's loads and the last tile's epilogue */
	int64_t m = compute > load ? compute : load;
	return m + load / (T * S) + epilogue;
}

int vc_kernel_plan(const vc_target *t, const vc_geom *g, vc_tiling *out, char *why, size_t whyn)
{
	if (g->pt > 15 || g->pb > 15 || g->pl > 15 || g->pr > 15)
		return snprintf(why, whyn, "padding above 15"), -1;
	if ((g->ow - 1) * g->sw + g->kw <= g->pl)
		return snprintf(why, whyn, "kernel window inside the left padding"), -1;
	vc_timing tm;
	vc_timing_default(&tm);
	vc_tiling cand[VC_PLAN_KEEP];
	int n = vc_tiling_candidates(t, g, &tm, 6, NULL, cand, VC_PLAN_KEEP);
	int64_t best = n ? 0 : -1;
	if (n)
		*out = cand[0];
	if (best < 0)
		return snprintf(why, whyn, "no tile of this %lldx%lld convolution fits the SRAMs (input row %lld elements)",
				(long long)g->kh, (long long)g->kw, (long long)((g->ow - 1) * g->sw + g->kw)),
		       -1;
	return 0;
}

/* The distinct tile sizes for an extent: ceil(n / k) for k = 1..n. */
static int sizes(int64_t n, int64_t *out)
{
	int c = 0;
	for (int64_t k = 1; k <= n; k++) {
		int64_t v = cdiv(n, k);
		if (!c || out[c - 1] != v)
			out[c++] = v;
	}
	return c;
}

int vc_tiling_candidates(const vc_target *t, const vc_geom *g, const vc_timing *tm, int alu_ops, const vc_tiling *want,
			 vc_tiling *out, int keep)
{
	int64_t *ths = malloc((size_t)(g->oh + g->cob + g->cib + 3) * sizeof *ths);
	if (!ths)
		return 0;
	int64_t *tcos = ths + g->oh + 1, *tcis = tcos + g->cob + 1;
	int nth = sizes(g->oh, ths), ntco = sizes(g->cob, tcos), ntci = sizes(g->cib, tcis);
	if (keep > VC_PLAN_KEEP)
		keep = VC_PLAN_KEEP;
	/* the structural classes (ping-pong or not; streaming, weights resident,
	 * inputs resident) each keep their best few, so that the estimate's
	 * errors between classes do not hide a class from the cycle model */
	enum { CLASSES = 6 };
	int per = keep / CLASSES > 0 ? keep / CLASSES : 1;
	vc_tiling best[CLASSES][VC_PLAN_KEEP];
	int64_t est[CLASSES][VC_PLAN_KEEP + 1];
	int nb[CLASSES] = {0};
	for (int pp = 1; pp >= 0; pp--)
		for (int kind = 0; kind < 3; kind++)
			for (int a = 0; a < ntco; a++)
				for (int b = 0; b < ntci; b++)
					for (int c = 0; c < nth; c++) {
						vc_tiling tl = {(int)ths[c], (int)tcos[a], (int)tcis[b], pp, kind == 2, kind != 0};
						if (g->dw) { /* the tile's own input blocks */
							if (b > 0)
								break;
							tl.tci = tl.tco;
						}
						/* residency needs an inner loop */
						int64_t inner = tl.rows_outer ? cdiv(g->cob, tl.tco) : cdiv(g->oh, tl.th);
						if (tl.resident && inner < 2)
							continue;
						if (want && ((want->th && tl.th != want->th) || (want->tco && tl.tco != want->tco) ||
							     (want->tci && tl.tci != want->tci)))
							continue;
						if (!vc_tiling_fits(t, g, &tl))
							continue;
						int64_t e = vc_tiling_estimate(t, g, &tl, tm, alu_ops);
						int cls = (1 - pp) * 3 + kind, *n = &nb[cls], at = *n;
						while (at > 0 && est[cls][at - 1] > e)
							at--;
						if (at >= per)
							continue;
						if (*n < per)
							++*n;
						memmove(&best[cls][at + 1], &best[cls][at], (size_t)(*n - 1 - at) * sizeof best[0][0]);
						memmove(&est[cls][at + 1], &est[cls][at], (size_t)(*n - 1 - at) * sizeof est[0][0]);
						best[cls][at] = tl;
						est[cls][at] = e;
					}
	free(ths);
	/* best first over all classes */
	int n = 0, pos[CLASSES] = {0};
	for (;;) {
		int pick = -1;
		for (int c = 0; c < CLASSES; c++)
			if (pos[c] < nb[c] && (pick < 0 || est[c][pos[c]] < est[pick][pos[pick]]))
				pick = c;
		if (pick < 0)
			break;
		out[n++] = best[pick][pos[pick]++];
	}
	return n;
}
