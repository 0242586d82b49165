/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pack: VTA ops to the blocked layout (VTA-SPEC 2.6): weights and biases
 * packed once, channels padded to the block on both sides, pack/unpack on
 * every edge that crosses the region boundary (an unpack -> pack pair of
 * matching layout is elided); one kernel function per VTA op.
 *
 * A convolution with few input channels (ResNet's first, 3 channels of a
 * 16-channel block) folds its kernel columns into the channels: the pack of
 * its input places, at output column x, the input columns x*sw - pl + kw
 * for every kw as channels kw*C + c, and the kernel becomes KH x 1 over
 * ceil(KW*C / BLOCK_IN) blocks instead of KH x KW over ceil(C / BLOCK_IN):
 * 7 x 2 blocks instead of 7 x 7 for the 7x7 stride-2 layer.
 */
#include <stdio.h>
#include <string.h>

#include "exec/exec.h"
#include "graph/graph.h"
#include "ir/kernel.h"

static vc_node *pack_weights(vc_module *m, const vc_node *w, const vc_target *t, int dw)
{
	const vc_type *wt = &w->type;
	int64_t O = wt->dim[0], I = wt->dim[1], KH = wt->rank == 4 ? wt->dim[2] : 1, KW = wt->rank == 4 ? wt->dim[3] : 1;
	int64_t BO = t->block_out, BI = t->block_in;
	int64_t d[6] = {(O + BO - 1) / BO, dw ? 1 : (I + BI - 1) / BI, KH, KW, BO, BI};
	vc_node *p = vc_const(m, NULL, VC_I8, 6, d, NULL);
	if (!p)
		return NULL;
	p->type.layout = VC_PACKED;
	p->type.quantized = 1;
	p->type.exp = wt->exp;
	const int8_t *src = w->data;
	int8_t *dst = p->data;
	if (dw) { /* [OB,1,KH,KW,BO,BI]: channel o's taps on the diagonal of its block */
		for (int64_t o = 0; o < O; o++)
			for (int64_t kh = 0; kh < KH; kh++)
				for (int64_t kw = 0; kw < KW; kw++)
					dst[(((o / BO) * KH + kh) * KW + kw) * BO * BI + (o % BO) * BI + o % BI] = src[(o * KH + kh) * KW + kw];
		return p;
	}
	for (int64_t o = 0; o < O; o++)
		for (int64_t i = 0; i < I; i++)
			for (int64_t kh = 0; kh < KH; kh++)
				for (int64_t kw = 0; kw < KW; kw++)
					dst[((((o / BO) * d[1] + i / BI) * KH + kh) * KW + kw) * BO * BI + (o % BO) * BI + i % BI] =
						src[((o * I + i) * KH + kh) * KW + kw];
	return p;
}

/* Fold the columns of a convolution's kernel into its input channels? */
static int folds_columns(const vc_node *n, const vc_target *t)
{
	const vc_type *x = &n->in[0]->type, *w = &n->in[1]->type;
	if (n->type.rank != 4 || x->rank != 4 || n->n_in > 3 || n->a.group != 1 || n->a.dilation[1] != 1)
		return 0;
	int64_t C = x->dim[1], KW = w->dim[3], BI = t->block_in;
	return KW > 1 && (C * KW + BI - 1) / BI < KW * ((C + BI - 1) / BI);
}

/* The weights of a column fold: [O][KW*C][KH][1] from [O][C][KH][KW]. */
static vc_node *fold_weights(vc_module *m, const vc_node *w)
{
	const vc_type *wt = &w->type;
	int64_t O = wt->dim[0], C = wt->dim[1], KH = wt->dim[2], KW = wt->dim[3];
	int64_t d[4] = {O, KW * C, KH, 1};
	vc_node *f = vc_const(m, NULL, VC_I8, 4, d, NULL);
	if (!f)
		return NULL;
	f->type.quantized = wt->quantized;
	f->type.exp = wt->exp;
	const int8_t *src = w->data;
	int8_t *dst = f->data;
	for (int64_t o = 0; o < O; o++)
		for (int64_t c = 0; c < C; c++)
			for (int64_t kh = 0; kh < KH; kh++)
				for (int64_t kw = 0; kw < KW; kw++)
					dst[(o * KW * C + kw * C + c) * KH + kh] = src[((o * C + c) * KH + kh) * KW + kw];
	return f;
}

/* The bias in the ACC layout [OB,B,BO]. With per-channel shifts (a [2,O]
 * bias of qconv.rq) K rows a block, [OB,K,B,BO], the operands of the
 * per-channel epilogue: the bias plus the rounding constant 2^(s[c]-1), the
 * requant shifts s[c] = shift + d[c], and with a residual the negated left
 * shifts -(res_shift + d[c]) (SHR by a negative amount shifts left). With one shift
 * for all channels the bias carries the epilogue's rounding constant
 * vc_bias_rounding (exec.h). */
static vc_node *pack_bias(vc_module *m, const vc_node *b, const vc_target *t, const vc_node *n)
{
	int pc = b->type.rank == 2;
	int64_t O = b->type.dim[b->type.rank - 1], BO = t->block_out, B = t->batch, K = pc ? 2 + (n->n_in > 3) : 1;
	int64_t d4[4] = {(O + BO - 1) / BO, K, B, BO}, d3[3] = {d4[0], B, BO};
	vc_node *p = pc ? vc_const(m, NULL, VC_I32, 4, d4, NULL) : vc_const(m, NULL, VC_I32, 3, d3, NULL);
	if (!p)
		return NULL;
	p->type.layout = VC_PACKED;
	p->type.quantized = 1;
	p->type.exp = b->type.exp;
	int32_t *dst = p->data;
	const int32_t *bias = b->data, *d = pc ? bias + O : NULL;
	int32_t r = pc ? 0 : vc_bias_rounding(n->a.shift, n->a.leaky);
	for (int64_t o = 0; o < O; o++)
		for (int64_t bb = 0; bb < B; bb++) {
			int64_t at = (((o / BO) * K) * B + bb) * BO + o % BO, row = B * BO;
			if (!pc) {
				dst[at] = (int32_t)((uint32_t)bias[o] + (uint32_t)r);
				continue;
			}
			int s = n->a.shift + d[o];
			dst[at] = (int32_t)((uint32_t)bias[o] + (s > 0 ? 1u << (s - 1) : 0u));
			dst[at + row] = s;
			if (K == 3)
				dst[at + 2 * row] = -(n->a.res_shift + d[o]);
		}
	return p;
}

static int add_kernel(vc_module *m, vc_node *n)
{
	vc_kernel **nk = vc_alloc(m, (size_t)(m->n_kernels + 1) * sizeof *nk);
	vc_kernel *k = vc_alloc(m, sizeof *k);
	if (!nk || !k)
		return vc_error(m, n, "out of memory");
	if (m->n_kernels)
		memcpy(nk, m->kernels, (size_t)m->n_kernels * sizeof *nk);
	k->id = m->n_kernels;
	k->node = n;
	n->a.kernel_id = k->id;
	nk[m->n_kernels++] = k;
	m->kernels = nk;
	return 0;
}

/* The packed form of a plain int8 value: reuse the VTA result it was
 * unpacked from when that has the layout; a channel concat of inputs that
 * are whole channel blocks is the concat of their packed forms (the blocks
 * line up, no unpack/pack round trip); else a new pack. */
static vc_node *packed_form(vc_pass *p, vc_module *m, vc_node *x)
{
	const vc_target *t = &m->target;
	if (x->op == VC_OP_CONCAT && x->type.rank == 4 && (x->a.axis == 1 || x->a.axis == -3)) {
		int whole = 1;
		for (int i = 0; i < x->n_in; i++)
			whole &= x->in[i]->type.dim[1] % t->block_in == 0;
		vc_node **parts = whole ? vc_alloc(m, (size_t)x->n_in * sizeof *parts) : NULL;
		if (parts) {
			for (int i = 0; i < x->n_in; i++)
				if (!(parts[i] = packed_form(p, m, x->in[i])))
					return NULL;
			vc_attrs a;
			vc_attrs_init(&a);
			a.axis = 1;
			char nm[64];
			snprintf(nm, sizeof nm, "%.50s.packed", x->name);
			vc_node *c = vc_build(m, VC_OP_CONCAT, parts, x->n_in, &a, nm);
			if (c)
				vc_stat_add(p, "concat-by-layout", 1);
			return c;
		}
	}
	if (x->op == VC_OP_PAD && x->type.rank == 4 && x->in[0]->op == VC_OP_UNPACK) {
		/* a pad of an unpacked VTA result: pad the packed blocks instead */
		vc_node *inner = packed_form(p, m, x->in[0]);
		if (!inner)
			return NULL;
		if (inner->type.layout == VC_PACKED && inner != x->in[0]) {
			char nm[64];
			snprintf(nm, sizeof nm, "%.50s.packed", x->name);
			vc_node *pd = vc_build(m, VC_OP_PAD, &inner, 1, &x->a, nm);
			if (pd)
				vc_stat_add(p, "pad-by-layout", 1);
			return pd;
		}
	}
	if (x->op == VC_OP_UNPACK) {
		const vc_type *pt = &x->in[0]->type;
		int64_t C = x->type.dim[1], H = x->type.rank == 4 ? x->type.dim[2] : 1,
			W = x->type.rank == 4 ? x->type.dim[3] : 1;
		if (pt->dim[1] == (C + t->block_in - 1) / t->block_in && pt->dim[5] == t->block_in && pt->dim[2] == H &&
		    pt->dim[3] == W) {
			vc_stat_add(p, "unpack-pack-elided", 1);
			return x->in[0];
		}
	}
	vc_node *xp = vc_build(m, VC_OP_PACK, &x, 1, NULL, NULL);
	if (xp && x->type.dim[1] % t->block_in)
		vc_stat_add(p, "channels-padded", 1);
	return xp;
}

static int pack(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	const vc_target *t = &m->target;
	int count;
	vc_node **nodes = vc_snapshot(m, &count);
	if (!nodes)
		return vc_error(m, NULL, "out of memory");
	for (int i = 0; i < count; i++) {
		vc_node *n = nodes[i];
		if (n->op != VC_OP_QCONV_RQ || !n->on_vta)
			continue;
		vc_set_insert_before(m, n);
		vc_attrs a = n->a;
		int fold = folds_columns(n, t);
		vc_node *xp, *wsrc = n->in[1];
		if (fold) { /* the input packed with its columns folded into channels, the kernel KH x 1 */
			vc_attrs pa;
			vc_attrs_init(&pa);
			pa.kernel[1] = n->in[1]->type.dim[3];
			pa.stride[1] = a.stride[1];
			pa.pad[1] = a.pad[1], pa.pad[3] = a.pad[3];
			char nm[64];
			snprintf(nm, sizeof nm, "%.50s.fold", n->name);
			xp = vc_build(m, VC_OP_PACK, &n->in[0], 1, &pa, nm);
			wsrc = xp ? fold_weights(m, n->in[1]) : NULL;
			if (!wsrc)
				return -1;
			a.kernel[1] = 1, a.stride[1] = 1, a.pad[1] = a.pad[3] = 0;
			vc_stat_add(p, "columns-folded", 1);
		} else {
			xp = packed_form(p, m, n->in[0]);
		}
		vc_node *rp = n->n_in > 3 && xp ? packed_form(p, m, n->in[3]) : NULL;
		if (!xp || (n->n_in > 3 && !rp))
			return -1;
		vc_node *wp = pack_weights(m, wsrc, t, n->a.group > 1);
		vc_node *bp = wp ? pack_bias(m, n->in[2], t, n) : NULL;
		if (!bp)
			return -1;
		if (n->type.rank == 2) { /* dense: a 1x1 convolution on 1x1 images */
			a.stride[0] = a.stride[1] = 1;
			memset(a.pad, 0, sizeof a.pad);
		}
		vc_node *args[4] = {xp, wp, bp, rp};
		vc_node *v = vc_build(m, VC_OP_VTA_CONV, args, rp ? 4 : 3, &a, n->name);
		if (!v)
			return -1;
		v->on_vta = 1;
		vc_attrs ua;
		vc_attrs_init(&ua);
		ua.nshape = n->type.rank;
		memcpy(ua.shape, n->type.dim, sizeof ua.shape);
		char un[64];
		snprintf(un, sizeof un, "%.50s.unpack", n->name);
		vc_node *up = vc_build(m, VC_OP_UNPACK, &v, 1, &ua, un);
		if (!up)
			return -1;
		if (n->type.dim[1] % t->block_out)
			vc_stat_add(p, "channels-padded", 1);
		vc_replace_all_uses(m, n, up);
		if (add_kernel(m, v))
			return -1;
		vc_stat_add(p, "kernels", 1);
	}
	vc_set_insert_before(m, NULL);
	vc_remove_dead(m);
	/* kernels whose node died (elided chains) are not possible: every VTA
	 * op has at least its unpack user */
	return 0;
}

const vc_pass_desc vc_pass_pack = {
	.name = "pack",
	.summary = "blocked layout for VTA ops: pack weights, pad channels, pack/unpack at region edges",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_FUSED,
	.provides_props = VC_PROP_PACKED,
	.stats = {"kernels", "channels-padded", "unpack-pack-elided", "concat-by-layout", "pad-by-layout", "columns-folded"},
	.run = pack,
};
