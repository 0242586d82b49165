/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuse: qconv/qdense + bias [+ residual qadd] + requant (+ relu or clip)
 * marked for VTA become one qconv.rq node; a clip (ReLU6) becomes the
 * requant's integer bounds, so it costs nothing on the device.
 */
#include <math.h>
#include <string.h>

#include "graph/graph.h"

static int fuse(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	int count;
	vc_node **nodes = vc_snapshot(m, &count);
	if (!nodes)
		return vc_error(m, NULL, "out of memory");
	for (int i = 0; i < count; i++) {
		vc_node *r = nodes[i];
		if (r->op != VC_OP_REQUANT || !r->on_vta)
			continue;
		vc_node *c = r->in[0], *last = r, *res = NULL;
		if (c->op == VC_OP_QADD) {
			res = c->in[1];
			c = c->in[0];
		}
		vc_attrs a = c->a;
		a.exp = r->a.exp;
		a.relu = r->a.relu;
		a.qlo = r->a.qlo;
		a.qhi = r->a.qhi;
		a.leaky = r->a.leaky;
		vc_node *act = r->n_users == 1 && r->users[0]->on_vta ? r->users[0] : NULL;
		if (act && act->op == VC_OP_RELU) {
			a.relu = 1;
			last = act;
		} else if (act && act->op == VC_OP_CLIP) { /* ReLU6 and friends: the clip in integers */
			double lo = ceil(ldexp(act->a.lo, -a.exp)), hi = floor(ldexp(act->a.hi, -a.exp));
			a.qlo = lo > (double)a.qlo ? (int64_t)fmin(lo, 127.0) : a.qlo;
			a.qhi = hi < (double)a.qhi ? (int64_t)fmax(hi, -127.0) : a.qhi;
			last = act;
		}
		vc_set_insert_before(m, r);
		vc_node *bias = c->in[2];
		if (r->n_in > 1) { /* per-channel: the bias and the channel shifts as one [2,O] constant */
			int64_t O = vc_type_elems(&bias->type), d2[2] = {2, O};
			vc_node *b2 = vc_const(m, NULL, VC_I32, 2, d2, NULL);
			if (!b2)
				return -1;
			b2->type.quantized = 1;
			b2->type.exp = bias->type.exp;
			memcpy(b2->data, bias->data, (size_t)O * 4);
			memcpy((int32_t *)b2->data + O, r->in[1]->data, (size_t)O * 4);
			bias = b2;
		}
		vc_node *fin[4] = {c->in[0], c->in[1], bias, res};
		vc_node *f = vc_build(m, VC_OP_QCONV_RQ, fin, res ? 4 : 3, &a, c->name);
		if (!f)
			return -1;
		f->on_vta = 1;
		vc_replace_all_uses(m, last, f);
		vc_stat_add(p, "fused", 1);
		if (res)
			vc_stat_add(p, "residual-fused", 1);
		if (last != r)
			vc_stat_add(p, last->op == VC_OP_RELU ? "relu-fused" : "clip-fused", 1);
	}
	vc_set_insert_before(m, NULL);
	vc_remove_dead(m);
	return 0;
}

const vc_pass_desc vc_pass_fuse = {
	.name = "fuse",
	.summary = "fuse qconv/qdense, bias, residual add, requantize and relu into one kernel op",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_PARTITIONED,
	.provides_props = VC_PROP_FUSED,
	.stats = {"fused", "relu-fused", "clip-fused", "residual-fused"},
	.run = fuse,
};
