/* SPDX-License-Identifier: Apache-2.0 */
/*
 * partition: mark what runs on VTA by capability checks on each op (never by
 * names): group, dilation, padding, and a tiling that fits the SRAMs and ISA
 * fields (vta/plan.c), with the residual's ACC space when there is one.
 */
#include <stdio.h>
#include <string.h>

#include "graph/graph.h"
#include "vta/codegen.h"

/* Can VTA run this qconv/qdense? why names the first reason it cannot. */
static int vta_legal(const vc_target *t, const vc_node *n, int res, int leaky, int per_channel, int depthwise_on_vta,
		     char *why, size_t wn)
{
	if (n->op != VC_OP_QCONV && n->op != VC_OP_QDENSE)
		return snprintf(why, wn, "%s has no VTA lowering", vc_op_name(n->op)), 0;
	const vc_type *x = &n->in[0]->type, *w = &n->in[1]->type;
	int dw = n->a.group > 1 && x->rank == 4 && n->a.group == x->dim[1] && w->dim[0] == n->a.group && w->dim[1] == 1;
	if (n->a.dilation[0] != 1 || n->a.dilation[1] != 1)
		return snprintf(why, wn, "dilated convolution"), 0;
	if (n->a.group != 1 && !dw)
		return snprintf(why, wn, "grouped convolution (only depthwise, one output channel a group, runs on VTA)"), 0;
	if (dw && !depthwise_on_vta)
		return snprintf(why, wn, "depthwise convolution (partition{depthwise=cpu})"), 0;
	if (dw && (res || t->block_in != t->block_out))
		return snprintf(why, wn, "depthwise convolution with a residual add or BLOCK_IN != BLOCK_OUT"), 0;
	for (int i = 0; i < 4; i++)
		if (n->a.pad[i] > 15)
			return snprintf(why, wn, "padding %lld exceeds the 4-bit DMA pad field", (long long)n->a.pad[i]), 0;
	if (n->in[1]->op != VC_OP_CONST || n->in[2]->op != VC_OP_CONST)
		return snprintf(why, wn, "weights or bias are not constant"), 0;
	vc_geom g;
	vc_tiling tl;
	vc_geom_of(t, n, &g);
	g.res = res;
	g.leaky = leaky;
	g.kb = per_channel ? 2 + res : 1;
	if (res && t->block_in != t->block_out)
		return snprintf(why, wn, "residual add with BLOCK_IN != BLOCK_OUT"), 0;
	if (vc_kernel_plan(t, &g, &tl, why, wn))
		return 0;
	return 1;
}

enum { DEPTHWISE_VTA, DEPTHWISE_CPU }; /* the depthwise option's choices, in order */

static int partition(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	const char *cpu = vc_opt_str(p, "cpu");
	int dw_vta = vc_opt_int(p, "depthwise") == DEPTHWISE_VTA;
	int count;
	vc_node **nodes = vc_snapshot(m, &count);
	if (!nodes || vc_check_list(m, "partition", "cpu", cpu, nodes, count))
		return -1;
	for (int i = 0; i < count; i++)
		nodes[i]->on_vta = 0;
	for (int i = 0; i < count; i++) {
		vc_node *r = nodes[i];
		if (r->op != VC_OP_REQUANT)
			continue;
		vc_node *c = r->in[0], *qa = NULL;
		if (c->op == VC_OP_QADD) { /* conv + residual add: one kernel, or all on the CPU */
			qa = c;
			c = qa->in[0];
		}
		char why[256] = "";
		if (!vc_only_user(qa ? qa : c, r) || (qa && !vc_only_user(c, qa)) || vc_listed(cpu, c) ||
		    !vta_legal(&m->target, c, qa != NULL, r->a.leaky != 0, r->n_in > 1, dw_vta, why, sizeof why)) {
			if (why[0] && vc_opt_int(p, "verbose"))
				fprintf(stderr, "partition: %s '%s'%s stays on the CPU: %s\n", vc_op_name(c->op), c->name,
					qa ? " with its residual add" : "", why);
			vc_stat_add(p, "on-cpu", 1);
			continue;
		}
		c->on_vta = r->on_vta = 1;
		if (qa)
			qa->on_vta = 1;
		if (r->n_users == 1 && (r->users[0]->op == VC_OP_RELU || r->users[0]->op == VC_OP_CLIP) &&
		    r->users[0]->type.dtype == VC_I8)
			r->users[0]->on_vta = 1;
		vc_stat_add(p, "on-vta", 1);
	}
	return 0;
}

const vc_pass_desc vc_pass_partition = {
	.name = "partition",
	.summary = "decide by capability checks which ops run on VTA",
	.anchor = VC_ANCHOR_GRAPH,
	.preserves = VC_PRESERVES_ALL, /* only marks nodes */
	.requires_props = VC_PROP_QUANTIZED,
	.provides_props = VC_PROP_PARTITIONED,
	.opts = {{"cpu", VC_OPT_STRING, "", "ops forced onto the CPU: names or node ids separated by ':'", NULL},
		 {"verbose", VC_OPT_BOOL, "false", "say why each op stays on the CPU", NULL},
		 {"depthwise", VC_OPT_ENUM, "vta", "depthwise convolutions: vta (block-diagonal GEMM) or cpu (int8 on the host)",
		  "vta|cpu"}},
	.stats = {"on-vta", "on-cpu"},
	.run = partition,
};
