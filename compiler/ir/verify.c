/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The verifier (--verify-each): program order, use lists, every type
 * recomputed by the builder and compared, outputs and inputs; then the
 * kernels and the stream (verify_code.c).
 */
#include "ir/ir.h"
#include "ir/kernel.h"

int vc_verify(vc_module *m)
{
	vc_graph *g = m->g;
	/* order: every input appears before its user */
	for (int i = 0; i < g->n; i++)
		g->nodes[i]->dead = 0;
	for (int i = 0; i < g->n; i++) {
		vc_node *n = g->nodes[i];
		for (int k = 0; k < n->n_in; k++) {
			vc_node *v = n->in[k];
			if (!v)
				return vc_error(m, n, "verifier: input %d is null", k);
			if (!v->dead)
				return vc_error(m, n, "verifier: input %%%d is not defined before its use", v->id);
			int listed = 0;
			for (int u = 0; u < v->n_users; u++)
				listed |= v->users[u] == n;
			if (!listed)
				return vc_error(m, n, "verifier: missing from the use list of %%%d", v->id);
		}
		for (int u = 0; u < n->n_users; u++) {
			int uses = 0;
			for (int k = 0; k < n->users[u]->n_in; k++)
				uses |= n->users[u]->in[k] == n;
			if (!uses)
				return vc_error(m, n, "verifier: use list names %%%d, which does not use it", n->users[u]->id);
			for (int q = 0; q < u; q++)
				if (n->users[q] == n->users[u])
					return vc_error(m, n, "verifier: use list names %%%d twice", n->users[u]->id);
		}
		/* types: recompute and compare */
		vc_type saved = n->type;
		vc_attrs sa = n->a;
		if (vc_retype(m, n))
			return -1;
		if (!vc_type_equal(&saved, &n->type)) {
			char a[128], b[128];
			vc_type_str(&saved, a, sizeof a);
			vc_type_str(&n->type, b, sizeof b);
			n->type = saved;
			return vc_error(m, n, "verifier: stored type %s differs from the inferred %s", a, b);
		}
		n->a = sa;
		if (n->op == VC_OP_CONST && !n->data)
			return vc_error(m, n, "verifier: constant without data");
		n->dead = 1; /* mark as defined */
	}
	for (int i = 0; i < g->n; i++)
		g->nodes[i]->dead = 0;
	if (g->n_outputs == 0)
		return vc_error(m, NULL, "verifier: the entry graph has no outputs");
	for (int i = 0; i < g->n_outputs; i++) {
		int found = 0;
		for (int k = 0; k < g->n; k++)
			found |= g->nodes[k] == g->outputs[i];
		if (!found)
			return vc_error(m, NULL, "verifier: output %d is not a node of the graph", i);
	}
	for (int i = 0; i < g->n_inputs; i++)
		if (g->inputs[i]->op != VC_OP_INPUT)
			return vc_error(m, g->inputs[i], "verifier: graph input is not an input node");
	/* kernel and stream levels (verify_code.c) */
	for (int k = 0; k < m->n_kernels; k++)
		if (vc_verify_kernel(m, m->kernels[k]))
			return -1;
	return vc_verify_stream(m);
}
