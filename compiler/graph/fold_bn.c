/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fold-bn: conv -> batchnorm with constant parameters becomes one conv with
 * scaled weights and a bias; any other batchnorm with constant parameters
 * (DenseNet's, after a concat) becomes x * k + b with per-channel constants,
 * float ops libvta runs.
 */
#include <math.h>

#include "graph/graph.h"

/* Batchnorm bn on its own: y = x * k + b, k = scale / sqrt(var + eps), b =
 * bias - mean * k, both [C, 1, ...] so that they broadcast over dimension 1. */
static int scale_shift(vc_module *m, vc_node *bn)
{
	const vc_type *t = &bn->in[0]->type;
	int64_t C = t->dim[1], d[VC_MAX_RANK];
	d[0] = C;
	for (int i = 1; i < t->rank - 1; i++)
		d[i] = 1;
	vc_node *k = vc_const(m, NULL, VC_F32, t->rank - 1, d, NULL), *b = vc_const(m, NULL, VC_F32, t->rank - 1, d, NULL);
	if (!k || !b)
		return -1;
	const float *sc = bn->in[1]->data, *be = bn->in[2]->data, *mu = bn->in[3]->data, *var = bn->in[4]->data;
	for (int64_t c = 0; c < C; c++) {
		double kc = sc[c] / sqrt((double)var[c] + bn->a.eps);
		((float *)k->data)[c] = (float)kc;
		((float *)b->data)[c] = (float)(be[c] - mu[c] * kc);
	}
	vc_node *args[2] = {bn->in[0], k};
	vc_node *y = vc_build(m, VC_OP_MUL, args, 2, NULL, NULL);
	args[0] = y, args[1] = b;
	y = y ? vc_build(m, VC_OP_ADD, args, 2, NULL, bn->name) : NULL;
	if (!y)
		return -1;
	vc_replace_all_uses(m, bn, y);
	return 0;
}

static int fold_bn(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	int count;
	vc_node **nodes = vc_snapshot(m, &count);
	if (!nodes)
		return vc_error(m, NULL, "out of memory");
	for (int i = 0; i < count; i++) {
		vc_node *bn = nodes[i];
		if (bn->op != VC_OP_BATCHNORM)
			continue;
		vc_node *c = bn->in[0];
		int consts = 1;
		for (int k = 1; k < 5; k++)
			consts &= bn->in[k]->op == VC_OP_CONST;
		if (!consts)
			continue;
		vc_set_insert_before(m, bn);
		if (c->op != VC_OP_CONV || !vc_only_user(c, bn) || c->in[1]->op != VC_OP_CONST ||
		    (c->n_in > 2 && c->in[2]->op != VC_OP_CONST)) {
			if (scale_shift(m, bn))
				return -1;
			vc_stat_add(p, "scale-shift", 1);
			continue;
		}
		const vc_node *wc = c->in[1];
		int64_t O = wc->type.dim[0], per = vc_type_elems(&wc->type) / O;
		vc_node *w = vc_const(m, NULL, VC_F32, 4, wc->type.dim, wc->data);
		int64_t d1[1] = {O};
		vc_node *b = vc_const(m, NULL, VC_F32, 1, d1, NULL);
		if (!w || !b)
			return -1;
		const float *sc = bn->in[1]->data, *be = bn->in[2]->data, *mu = bn->in[3]->data, *var = bn->in[4]->data;
		for (int64_t o = 0; o < O; o++) {
			double k = sc[o] / sqrt((double)var[o] + bn->a.eps);
			for (int64_t j = 0; j < per; j++)
				((float *)w->data)[o * per + j] = (float)(((float *)w->data)[o * per + j] * k);
			double b0 = c->n_in > 2 ? ((const float *)c->in[2]->data)[o] : 0.0;
			((float *)b->data)[o] = (float)((b0 - mu[o]) * k + be[o]);
		}
		vc_node *args[3] = {c->in[0], w, b};
		vc_node *nc = vc_build(m, VC_OP_CONV, args, 3, &c->a, c->name);
		if (!nc)
			return -1;
		vc_replace_all_uses(m, bn, nc);
		vc_stat_add(p, "folded", 1);
	}
	vc_set_insert_before(m, NULL);
	vc_remove_dead(m);
	return 0;
}

const vc_pass_desc vc_pass_fold_bn = {
	.name = "fold-bn",
	.summary = "fold batch normalization into the preceding convolution; any other becomes a per-channel mul and add",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_IMPORTED,
	.provides_props = VC_PROP_BN_FOLDED,
	.stats = {"folded", "scale-shift"},
	.run = fold_bn,
};
