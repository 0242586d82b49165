/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compiler's analyses (codegen.h, VC_AN_*), which the pass manager
 * caches and checks (pass/analysis.c): liveness of the module's graph, and
 * per kernel its geometry, its plan and a summary of its code.
 */
#include <stdlib.h>
#include <string.h>

#include "vta/codegen.h"

/* liveness: for each node in program order, the index of its last user
 * (-1: none; graph outputs live to the end, g->n). */
static void *liveness(vc_module *m, int kernel, size_t *bytes)
{
	(void)kernel;
	vc_graph *g = m->g;
	int64_t *last = malloc((size_t)(g->n ? g->n : 1) * sizeof *last);
	int *pos = malloc((size_t)(g->next_id > 0 ? g->next_id : 1) * sizeof *pos);
	if (!last || !pos) {
		free(last);
		free(pos);
		return NULL;
	}
	for (int i = 0; i < g->n; i++) {
		if (g->nodes[i]->id >= 0 && g->nodes[i]->id < g->next_id)
			pos[g->nodes[i]->id] = i;
		last[i] = -1;
	}
	for (int i = 0; i < g->n; i++)
		for (int k = 0; k < g->nodes[i]->n_in; k++)
			last[pos[g->nodes[i]->in[k]->id]] = i;
	for (int o = 0; o < g->n_outputs; o++)
		last[pos[g->outputs[o]->id]] = g->n;
	free(pos);
	*bytes = (size_t)g->n * sizeof *last;
	return last;
}

/* geometry: vc_geom of the kernel's convolution (zero if it has none). */
static void *geometry(vc_module *m, int kernel, size_t *bytes)
{
	vc_geom *g = calloc(1, sizeof *g);
	if (g && vc_geom_of(&m->target, m->kernels[kernel]->node, g))
		memset(g, 0, sizeof *g);
	*bytes = sizeof *g;
	return g;
}

/* plan: the best tiling by the quick estimate at the board's latency, or why
 * none fits (vc_kernel_plan); from the kernel's geometry. */
static void *plan(vc_module *m, int kernel, size_t *bytes)
{
	const vc_kernel *k = m->kernels[kernel];
	vc_plan *p = calloc(1, sizeof *p);
	vc_geom g;
	if (!p)
		return NULL;
	if (vc_geom_of(&m->target, k->node, &g))
		snprintf(p->why, sizeof p->why, "kernel @k%d has no convolution", k->id);
	else
		p->ok = !vc_kernel_plan(&m->target, &g, &p->tiling, p->why, sizeof p->why);
	*bytes = sizeof *p;
	return p;
}

/* code-summary: instructions of each opcode, micro-ops, tokens pushed and
 * popped, and micro-op executions (sum of range x iterations). */
enum { CS_OPS = 8, CS_UOPS = 8, CS_PUSH, CS_POP, CS_EXEC, CS_N };
static void *code_summary(vc_module *m, int kernel, size_t *bytes)
{
	const vc_kernel *kn = m->kernels[kernel];
	int64_t *r = calloc(CS_N, sizeof *r);
	if (!r)
		return NULL;
	r[CS_UOPS] = kn->n_uops;
	for (int i = 0; i < kn->n; i++) {
		const vta_insn_t *in = &kn->code[i].insn;
		r[in->opcode & 7]++;
		r[CS_PUSH] += in->push_prev + in->push_next;
		r[CS_POP] += in->pop_prev + in->pop_next;
		if (in->opcode == VTA_OPCODE_GEMM || in->opcode == VTA_OPCODE_ALU)
			r[CS_EXEC] += ((int64_t)in->uop_end - in->uop_bgn) * in->iter_out * in->iter_in;
	}
	*bytes = CS_N * sizeof *r;
	return r;
}

const vc_analysis_desc vc_vta_analyses[VC_AN_COUNT] = {
	[VC_AN_LIVENESS] = {"liveness", 0, liveness},
	[VC_AN_GEOMETRY] = {"geometry", 1, geometry},
	[VC_AN_PLAN] = {"plan", 1, plan},
	[VC_AN_CODE_SUMMARY] = {"code-summary", 1, code_summary},
};

const vc_geom *vc_unit_geom(vc_module *m, const vc_unit *u)
{
	return vc_analysis_get(u->am, m, VC_AN_GEOMETRY, u->index, NULL);
}

const vc_plan *vc_unit_plan(vc_module *m, const vc_unit *u)
{
	return vc_analysis_get(u->am, m, VC_AN_PLAN, u->index, NULL);
}
