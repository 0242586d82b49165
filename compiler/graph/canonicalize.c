/* SPDX-License-Identifier: Apache-2.0 */
/*
 * canonicalize: a conv/dense whose only user adds a per-channel constant
 * becomes a conv/dense with that bias; a matmul by a constant becomes dense;
 * a dense layer whose int8 weights would not fit half a device buffer
 * (AlexNet's and VGG's 9216 x 4096 and 25088 x 4096) becomes denses of
 * fewer output rows each, concatenated.
 */
#include <string.h>

#include "graph/graph.h"
#include "ir/kernel.h"

/* The dense n ([N,I] x w[O,I] (+ b[O])) as k denses of consecutive output
 * rows, a multiple of 64 each, whose weights fit half a device buffer,
 * then a concat of their results, in *out (NULL: it fits already, or it
 * cannot be split so, and emit names its size). 0, or -1 on failure. */
static int split_dense(vc_module *m, vc_node *n, vc_node **out)
{
	vc_node *w = n->in[1], *b = n->n_in > 2 ? n->in[2] : NULL;
	*out = NULL;
	if (w->op != VC_OP_CONST || w->type.rank != 2 || (b && b->op != VC_OP_CONST))
		return 0;
	int64_t O = w->type.dim[0], I = w->type.dim[1], limit = VC_SEGMENT_BYTES / 2;
	if (O * I <= limit || I > limit / 64)
		return 0;
	int64_t rows = limit / I / 64 * 64, parts = (O + rows - 1) / rows;
	if (parts > 16)
		return 0; /* a concat takes 16 */
	vc_node *outs[16];
	for (int64_t k = 0; k < parts; k++) {
		int64_t o0 = k * rows, on = O - o0 < rows ? O - o0 : rows, wd[2] = {on, I};
		vc_node *args[3] = {n->in[0], vc_const(m, NULL, VC_F32, 2, wd, (const float *)w->data + o0 * I),
				    b ? vc_const(m, NULL, VC_F32, 1, &on, (const float *)b->data + o0) : NULL};
		if (!args[1] || (b && !args[2]) || !(outs[k] = vc_build(m, VC_OP_DENSE, args, b ? 3 : 2, &n->a, NULL)))
			return -1;
	}
	vc_attrs a;
	vc_attrs_init(&a);
	a.axis = 1;
	*out = vc_build(m, VC_OP_CONCAT, outs, (int)parts, &a, n->name);
	return *out ? 0 : -1;
}

/* If c is a constant holding one value per channel of a [N,O,...] or [N,O]
 * result, return a 1-D copy of it. */
static vc_node *per_channel(vc_module *m, const vc_node *c, int64_t O, int out_rank)
{
	if (c->op != VC_OP_CONST || c->type.dtype != VC_F32 || vc_type_elems(&c->type) != O)
		return NULL;
	const vc_type *t = &c->type;
	int ok;
	if (out_rank == 4) /* [O,1,1] or [1,O,1,1] */
		ok = (t->rank == 3 && t->dim[0] == O) || (t->rank == 4 && t->dim[1] == O) || O == 1;
	else /* [O] or [1,O] */
		ok = (t->rank == 1) || (t->rank == 2 && t->dim[1] == O);
	if (!ok)
		return NULL;
	int64_t d[1] = {O};
	return vc_const(m, NULL, VC_F32, 1, d, c->data);
}

static int canonicalize(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	int count;
	vc_node **nodes = vc_snapshot(m, &count);
	if (!nodes)
		return vc_error(m, NULL, "out of memory");
	for (int i = 0; i < count; i++) {
		vc_node *n = nodes[i];
		vc_set_insert_before(m, n);
		if (n->op == VC_OP_ADD) {
			for (int k = 0; k < 2; k++) {
				vc_node *c = n->in[k], *other = n->in[1 - k];
				if ((c->op != VC_OP_CONV && c->op != VC_OP_DENSE) || c->n_in != 2 || !vc_only_user(c, n))
					continue;
				vc_node *b = per_channel(m, other, c->type.dim[1], c->type.rank);
				if (!b)
					continue;
				vc_node *args[3] = {c->in[0], c->in[1], b};
				vc_node *nc = vc_build(m, c->op, args, 3, &c->a, c->name);
				if (!nc)
					return -1;
				if (!vc_type_equal(&nc->type, &n->type))
					continue; /* the add also broadcast the result: keep it */
				vc_replace_all_uses(m, n, nc);
				vc_stat_add(p, "biases-merged", 1);
				break;
			}
		} else if (n->op == VC_OP_MATMUL && n->in[1]->op == VC_OP_CONST && n->type.rank == 2) {
			vc_node *bm = n->in[1];
			int64_t d[2] = {bm->type.dim[1], bm->type.dim[0]};
			vc_node *w = vc_const(m, NULL, VC_F32, 2, d, NULL);
			if (!w)
				return -1;
			for (int64_t r = 0; r < d[1]; r++)
				for (int64_t c = 0; c < d[0]; c++)
					((float *)w->data)[c * d[1] + r] = ((const float *)bm->data)[r * d[0] + c];
			vc_node *args[2] = {n->in[0], w};
			vc_node *nd = vc_build(m, VC_OP_DENSE, args, 2, NULL, n->name);
			if (!nd)
				return -1;
			vc_replace_all_uses(m, n, nd);
			vc_stat_add(p, "matmul-to-dense", 1);
		} else if (n->op == VC_OP_DENSE) {
			vc_node *c;
			if (split_dense(m, n, &c))
				return -1;
			if (c) {
				vc_replace_all_uses(m, n, c);
				vc_stat_add(p, "dense-split", 1);
			}
		}
	}
	vc_set_insert_before(m, NULL);
	vc_remove_dead(m);
	return 0;
}

const vc_pass_desc vc_pass_canonicalize = {
	.name = "canonicalize",
	.summary = "merge constant adds into conv/dense biases; matmul by a constant becomes dense; split dense layers too large for a device buffer",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_IMPORTED,
	.provides_props = VC_PROP_CANONICAL,
	.stats = {"biases-merged", "matmul-to-dense", "dense-split"},
	.run = canonicalize,
};
