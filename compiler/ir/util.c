/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the passes that rewrite the graph.
 */
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/kernel.h"

vc_node **vc_snapshot(vc_module *m, int *n)
{
	*n = m->g->n;
	vc_node **s = vc_alloc(m, (size_t)(*n ? *n : 1) * sizeof *s);
	if (s)
		memcpy(s, m->g->nodes, (size_t)*n * sizeof *s);
	return s;
}

int vc_only_user(const vc_node *v, const vc_node *u)
{
	return v->n_users == 1 && v->users[0] == u;
}

/* Is n named in the ':'-separated list (names or node ids)? */
int vc_listed(const char *list, const vc_node *n)
{
	char id[16];
	snprintf(id, sizeof id, "%d", n->id);
	for (const char *s = list; *s;) {
		const char *e = strchr(s, ':');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if ((len == strlen(n->name) && !strncmp(s, n->name, len)) || (len == strlen(id) && !strncmp(s, id, len)))
			return 1;
		s += len + (e ? 1 : 0);
	}
	return 0;
}

/* Check that every name in a ':' list names a node (R9: typos are errors). */
int vc_check_list(vc_module *m, const char *pass, const char *opt, const char *list, vc_node **nodes, int count)
{
	for (const char *s = list; *s;) {
		const char *e = strchr(s, ':');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		int found = 0;
		for (int i = 0; i < count && !found; i++) {
			char id[16];
			snprintf(id, sizeof id, "%d", nodes[i]->id);
			found = (len == strlen(nodes[i]->name) && !strncmp(s, nodes[i]->name, len)) ||
				(len == strlen(id) && !strncmp(s, id, len));
		}
		if (!found && len)
			return vc_error(m, NULL, "%s: option %s names '%.*s', which is no node of the graph", pass, opt, (int)len,
					s);
		s += len + (e ? 1 : 0);
	}
	return 0;
}

int64_t vc_node_macs(const vc_module *m, const vc_node *n)
{
	if (n->op == VC_OP_VTA_CONV) {
		const vc_kernel *k = n->a.kernel_id >= 0 && n->a.kernel_id < m->n_kernels ? m->kernels[n->a.kernel_id] : NULL;
		return k ? k->macs : 0;
	}
	if ((n->op == VC_OP_CONV || n->op == VC_OP_QCONV || n->op == VC_OP_QCONV_RQ) && n->n_in > 1 &&
	    n->in[1]->type.rank == 4) {
		const vc_type *w = &n->in[1]->type;
		return (int64_t)vc_type_elems(&n->type) * w->dim[1] * w->dim[2] * w->dim[3];
	}
	if ((n->op == VC_OP_DENSE || n->op == VC_OP_QDENSE) && n->n_in > 1 && n->in[1]->type.rank == 2)
		return (int64_t)vc_type_elems(&n->type) * n->in[1]->type.dim[1];
	if ((n->op == VC_OP_QCONV_RQ) && n->n_in > 1 && n->in[1]->type.rank == 2)
		return (int64_t)vc_type_elems(&n->type) * n->in[1]->type.dim[1];
	if (n->op == VC_OP_MATMUL && n->n_in > 1 && n->in[0]->type.rank >= 2) {
		const vc_type *a = &n->in[0]->type;
		return (int64_t)vc_type_elems(&n->type) * a->dim[a->rank - 1];
	}
	return 0;
}
