/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The analysis manager: analyses computed on demand and cached for one
 * pipeline run, dropped after a pass unless the pass preserves them
 * (vc_pass_preserves), and, with --verify-analyses, recomputed after every
 * pass and compared with the cached result, so that a pass that declares an
 * analysis preserved but changes what it is computed from is caught.
 *
 * Every result is a flat byte array (memcmp compares two computations).
 */
#include <stdlib.h>
#include <string.h>

#include "pass/pass.h"
#include "vta/codegen.h"

struct vc_am {
	void *data[VC_AN_COUNT];
	size_t bytes[VC_AN_COUNT];
	int valid[VC_AN_COUNT];
};

static const char *const names[VC_AN_COUNT] = {"liveness", "geometry", "code-summary"};

const char *vc_analysis_name(vc_analysis_id id)
{
	return id < VC_AN_COUNT ? names[id] : "?";
}

/* liveness: for each node in program order, the index of its last user
 * (-1: none; graph outputs live to the end, g->n). */
static void *liveness(vc_module *m, size_t *bytes)
{
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

/* geometry: vc_geom of every kernel's convolution. */
static void *geometry(vc_module *m, size_t *bytes)
{
	vc_geom *gs = calloc((size_t)(m->n_kernels ? m->n_kernels : 1), sizeof *gs);
	if (!gs)
		return NULL;
	for (int k = 0; k < m->n_kernels; k++)
		if (vc_geom_of(&m->target, m->kernels[k]->node, &gs[k]))
			memset(&gs[k], 0, sizeof gs[k]);
	*bytes = (size_t)m->n_kernels * sizeof *gs;
	return gs;
}

/* code-summary: per kernel, instructions of each opcode, micro-ops, tokens
 * pushed and popped, and micro-op executions (sum of range x iterations). */
enum { CS_OPS = 8, CS_UOPS = 8, CS_PUSH, CS_POP, CS_EXEC, CS_N };
static void *code_summary(vc_module *m, size_t *bytes)
{
	int64_t *s = calloc((size_t)(m->n_kernels ? m->n_kernels : 1) * CS_N, sizeof *s);
	if (!s)
		return NULL;
	for (int k = 0; k < m->n_kernels; k++) {
		const vc_kernel *kn = m->kernels[k];
		int64_t *r = s + (size_t)k * CS_N;
		r[CS_UOPS] = kn->n_uops;
		for (int i = 0; i < kn->n; i++) {
			const vta_insn_t *in = &kn->code[i].insn;
			r[in->opcode & 7]++;
			r[CS_PUSH] += in->push_prev + in->push_next;
			r[CS_POP] += in->pop_prev + in->pop_next;
			if (in->opcode == VTA_OPCODE_GEMM || in->opcode == VTA_OPCODE_ALU)
				r[CS_EXEC] += ((int64_t)in->uop_end - in->uop_bgn) * in->iter_out * in->iter_in;
		}
	}
	*bytes = (size_t)m->n_kernels * CS_N * sizeof *s;
	return s;
}

static void *compute(vc_module *m, vc_analysis_id id, size_t *bytes)
{
	*bytes = 0;
	switch (id) {
	case VC_AN_LIVENESS: return liveness(m, bytes);
	case VC_AN_GEOMETRY: return geometry(m, bytes);
	default: return code_summary(m, bytes);
	}
}

vc_am *vc_am_new(void)
{
	return calloc(1, sizeof(vc_am));
}

void vc_am_free(vc_am *am)
{
	if (!am)
		return;
	for (int a = 0; a < VC_AN_COUNT; a++)
		free(am->data[a]);
	free(am);
}

const void *vc_analysis_get(vc_am *am, vc_module *m, vc_analysis_id id, size_t *bytes)
{
	if (!am || id >= VC_AN_COUNT)
		return NULL;
	if (!am->valid[id]) {
		free(am->data[id]);
		am->data[id] = compute(m, id, &am->bytes[id]);
		am->valid[id] = am->data[id] != NULL;
	}
	if (bytes)
		*bytes = am->bytes[id];
	return am->data[id];
}

int vc_am_after_pass(vc_am *am, vc_module *m, const vc_pass_desc *d, int verify)
{
	uint32_t keep = vc_pass_preserves(d);
	for (int a = 0; a < VC_AN_COUNT; a++) {
		if (!am->valid[a])
			continue;
		if (!(keep >> a & 1)) {
			am->valid[a] = 0;
			continue;
		}
		if (!verify)
			continue;
		size_t n;
		void *fresh = compute(m, (vc_analysis_id)a, &n);
		int same = fresh && n == am->bytes[a] && !memcmp(fresh, am->data[a], n);
		free(fresh);
		if (!same)
			return vc_error(m, NULL,
					"--verify-analyses: analysis %s is stale after pass %s, which declares it preserved",
					names[a], d->name);
	}
	return 0;
}

void vc_am_compute_all(vc_am *am, vc_module *m)
{
	for (int a = 0; a < VC_AN_COUNT; a++)
		vc_analysis_get(am, m, (vc_analysis_id)a, NULL);
}
