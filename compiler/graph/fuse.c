/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuse: qconv/qdense + bias [+ residual qadd] + requant (+ relu) marked for
 * VTA become one qconv.rq node.
 */
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
		if (r->n_users == 1 && r->users[0]->op == VC_OP_RELU && r->users[0]->on_vta) {
			a.relu = 1;
			last = r->users[0];
		}
		vc_set_insert_before(m, r);
		vc_node *fin[4] = {c->in[0], c->in[1], c->in[2], res};
		vc_node *f = vc_build(m, VC_OP_QCONV_RQ, fin, res ? 4 : 3, &a, c->name);
		if (!f)
			return -1;
		f->on_vta = 1;
		vc_replace_all_uses(m, last, f);
		vc_stat_add(p, "fused", 1);
		if (res)
			vc_stat_add(p, "residual-fused", 1);
		if (last != r)
			vc_stat_add(p, "relu-fused", 1);
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
	.stats = {"fused", "relu-fused", "residual-fused"},
	.run = fuse,
};
