/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The geometry of a convolution in blocks of the target, and the tiling
 * plan: (rows, output blocks, input blocks) such that every buffer fits half
 * its SRAM (ping-pong) and every ISA field, with the least DRAM traffic;
 * single buffering when no ping-pong tile fits. Used by partition (can VTA
 * run it?), tile and lower.
 */
#include <stdio.h>
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
	int conv = x->rank == 4 || n->op == VC_OP_VTA_CONV;
	g->dw = conv && n->a.group > 1;
	g->sh = conv ? n->a.stride[0] : 1, g->sw = conv ? n->a.stride[1] : 1;
	g->pt = conv ? n->a.pad[0] : 0, g->pl = conv ? n->a.pad[1] : 0;
	g->pb = conv ? n->a.pad[2] : 0, g->pr = conv ? n->a.pad[3] : 0;
	return 0;
}


int64_t vc_column_group(int64_t tco, int64_t ow)
{
	for (int64_t grp = 1; grp < ow; grp++)
		if (ow % grp == 0 && tco * grp >= VC_HAZARD_SPAN)
			return grp;
	return ow;
}

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* Does the tile fit every SRAM and field of the ISA? */
static int fits(const vc_target *t, const vc_geom *g, int64_t th, int64_t tco, int64_t tci, int halves)
{
	int64_t cols = (g->ow - 1) * g->sw + g->kw, rows = (th - 1) * g->sh + g->kh;
	int64_t k2 = g->kh * g->kw, wblocks = tco * (g->dw ? 1 : tci) * k2;
	if (tci * rows * cols > t->inp_depth / halves)
		return 0;
	if (wblocks > t->wgt_depth / halves)
		return 0;
	if (tco * th * g->ow * (1 + (g->res || g->leaky)) + tco * g->kb > t->acc_depth / halves)
		return 0;
	if (wblocks * vc_column_group(tco, g->ow) > t->uop_depth / 2)
		return 0;
	if (g->sh * cols >= 2048 || g->ow >= 2048 || th * g->ow >= 2048 || th > 16383 || tco * th > 16383)
		return 0;
	/* (a channel-block stride oh*ow over the x_stride field splits the stores, lower.c) */
	if (g->w >= 65536 || th * g->ow >= 65536 || g->cib * k2 >= 65536)
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
			for (int64_t tci = g->dw ? tco : 1; tci <= (g->dw ? tco : g->cib); tci++)
				for (int64_t th = 1; th <= g->oh; th++) {
					if (!fits(t, g, th, tco, tci, halves))
						break; /* larger th only gets worse */
					int64_t R = cdiv(g->oh, th), C = cdiv(g->cob, tco), S = g->dw ? 1 : cdiv(g->cib, tci);
					int64_t rows = (th - 1) * g->sh + g->kh, cols = (g->ow - 1) * g->sw + g->kw;
					int64_t inb = g->dw ? g->cob : C * g->cib, wcib = g->dw ? 1 : g->cib; /* blocks loaded */
					double inp = (double)(g->nb * R * inb * rows * cols) * VTA_INP_ELEM_BYTES;
					double wgt = (double)(g->nb * R * g->cob * wcib * g->kh * g->kw) * VTA_WGT_ELEM_BYTES;
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
