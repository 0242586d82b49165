/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fold-const: a node whose inputs are all constants is evaluated with the
 * reference kernels and replaced by its value.
 */
#include "exec/exec.h"
#include "graph/graph.h"

static int fold_const(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	int count;
	vc_node **nodes = vc_snapshot(m, &count);
	if (!nodes)
		return vc_error(m, NULL, "out of memory");
	for (int i = 0; i < count; i++) {
		vc_node *n = nodes[i];
		if (n->op == VC_OP_INPUT || n->op == VC_OP_CONST || n->n_in == 0)
			continue;
		int all = 1;
		for (int k = 0; k < n->n_in; k++)
			all &= n->in[k]->op == VC_OP_CONST;
		if (!all)
			continue;
		vc_tensor in[16], out;
		if (n->n_in > 16)
			continue;
		for (int k = 0; k < n->n_in; k++) {
			in[k].t = n->in[k]->type;
			in[k].data = n->in[k]->data;
			in[k].owned = 0;
		}
		if (vc_ref_run(m, n, in, &out))
			return -1;
		vc_set_insert_before(m, n);
		vc_node *c = vc_const(m, n->name, n->type.dtype, n->type.rank, n->type.dim, out.data);
		vc_tensor_free(&out);
		if (!c)
			return -1;
		c->type = n->type;
		vc_replace_all_uses(m, n, c);
		vc_stat_add(p, "folded", 1);
	}
	vc_set_insert_before(m, NULL);
	vc_remove_dead(m);
	return 0;
}

const vc_pass_desc vc_pass_fold_const = {
	.name = "fold-const",
	.summary = "evaluate nodes whose inputs are all constants",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_IMPORTED,
	.provides_props = VC_PROP_CONST_FOLDED,
	.stats = {"folded"},
	.run = fold_const,
};
