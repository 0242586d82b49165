/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The analysis manager: analyses computed on demand and cached for one
 * pipeline run, dropped after a pass unless the pass preserves them
 * (vc_pass_preserves), and, with --verify-analyses, recomputed after every
 * pass and compared with the cached result, so that a pass that declares an
 * analysis preserved but changes what it is computed from is caught.
 *
 * Liveness belongs to the module; geometry, plan and code summary to each
 * kernel, cached per kernel: a kernel pass changes its own kernel only, so
 * after it runs on kernel k only k's results are dropped (the other
 * kernels' stay valid; --verify-analyses still recomputes all of them).
 * Every result is a flat byte array (memcmp compares two computations).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pass/pass.h"
#include "vta/codegen.h"

typedef struct slot {
	void *data;
	size_t bytes;
	int valid;
} slot;

struct vc_am {
	slot mod[VC_AN_COUNT];  /* module analyses */
	slot *kern[VC_AN_COUNT]; /* kernel analyses, nk entries each */
	int nk;
	atomic_long computed[VC_AN_COUNT]; /* cache misses (--stats); kernel groups may run on threads */
};

static const char *const names[VC_AN_COUNT] = {"liveness", "geometry", "plan", "code-summary"};

const char *vc_analysis_name(vc_analysis_id id)
{
	return id < VC_AN_COUNT ? names[id] : "?";
}

int vc_analysis_per_kernel(vc_analysis_id id)
{
	return id != VC_AN_LIVENESS;
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

/* geometry: vc_geom of the kernel's convolution (zero if it has none). */
static void *geometry(vc_module *m, const vc_kernel *k, size_t *bytes)
{
	vc_geom *g = calloc(1, sizeof *g);
	if (g && vc_geom_of(&m->target, k->node, g))
		memset(g, 0, sizeof *g);
	*bytes = sizeof *g;
	return g;
}

/* plan: the best tiling by the quick estimate at the board's latency, or why
 * none fits (vc_kernel_plan); from the kernel's geometry. */
static void *plan(vc_module *m, const vc_kernel *k, size_t *bytes)
{
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
static void *code_summary(const vc_kernel *kn, size_t *bytes)
{
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

static void *compute(vc_module *m, vc_analysis_id id, int kernel, size_t *bytes)
{
	*bytes = 0;
	switch (id) {
	case VC_AN_LIVENESS: return liveness(m, bytes);
	case VC_AN_GEOMETRY: return geometry(m, m->kernels[kernel], bytes);
	case VC_AN_PLAN: return plan(m, m->kernels[kernel], bytes);
	default: return code_summary(m->kernels[kernel], bytes);
	}
}

vc_am *vc_am_new(void)
{
	return calloc(1, sizeof(vc_am));
}

static void drop_kernels(vc_am *am)
{
	for (int a = 0; a < VC_AN_COUNT; a++) {
		for (int k = 0; k < am->nk && am->kern[a]; k++)
			free(am->kern[a][k].data);
		free(am->kern[a]);
		am->kern[a] = NULL;
	}
	am->nk = 0;
}

void vc_am_free(vc_am *am)
{
	if (!am)
		return;
	for (int a = 0; a < VC_AN_COUNT; a++)
		free(am->mod[a].data);
	drop_kernels(am);
	free(am);
}

/* The slot of (id, kernel); NULL when out of range or out of memory. The
 * kernel slots follow the module's kernels (a pass that makes kernels
 * preserves no kernel analysis, so none survives a change of their number). */
static slot *slot_of(vc_am *am, vc_module *m, vc_analysis_id id, int kernel)
{
	if (!vc_analysis_per_kernel(id))
		return &am->mod[id];
	if (kernel < 0 || kernel >= m->n_kernels)
		return NULL;
	if (am->nk != m->n_kernels) {
		drop_kernels(am);
		for (int a = 0; a < VC_AN_COUNT; a++)
			if (vc_analysis_per_kernel((vc_analysis_id)a) &&
			    !(am->kern[a] = calloc((size_t)m->n_kernels, sizeof(slot)))) {
				drop_kernels(am);
				return NULL;
			}
		am->nk = m->n_kernels;
	}
	return &am->kern[id][kernel];
}

const void *vc_analysis_get(vc_am *am, vc_module *m, vc_analysis_id id, int kernel, size_t *bytes)
{
	if (!am || id >= VC_AN_COUNT)
		return NULL;
	slot *s = slot_of(am, m, id, kernel);
	if (!s)
		return NULL;
	if (!s->valid) {
		free(s->data);
		s->data = compute(m, id, kernel, &s->bytes);
		s->valid = s->data != NULL;
		atomic_fetch_add(&am->computed[id], 1);
	}
	if (bytes)
		*bytes = s->bytes;
	return s->data;
}

int64_t vc_am_computed(const vc_am *am, vc_analysis_id id)
{
	return am && id < VC_AN_COUNT ? (int64_t)atomic_load(&am->computed[id]) : 0;
}

/* Recompute a cached result and compare; 0 when it is the same. */
static int stale(vc_module *m, vc_analysis_id id, int kernel, const slot *s)
{
	size_t n;
	void *fresh = compute(m, id, kernel, &n);
	int same = fresh && n == s->bytes && !memcmp(fresh, s->data, n);
	free(fresh);
	return !same;
}

int vc_am_verify(vc_am *am, vc_module *m, const vc_pass_desc *d)
{
	uint32_t keep = vc_pass_preserves(d);
	for (int a = 0; a < VC_AN_COUNT; a++) {
		if (!(keep >> a & 1))
			continue;
		if (!vc_analysis_per_kernel((vc_analysis_id)a)) {
			if (am->mod[a].valid && stale(m, (vc_analysis_id)a, -1, &am->mod[a]))
				return vc_error(m, NULL,
						"--verify-analyses: analysis %s is stale after pass %s, which declares it preserved",
						names[a], d->name);
			continue;
		}
		for (int k = 0; k < am->nk && am->nk == m->n_kernels; k++)
			if (am->kern[a][k].valid && stale(m, (vc_analysis_id)a, k, &am->kern[a][k]))
				return vc_error(m, m->kernels[k]->node,
						"--verify-analyses: analysis %s of kernel @k%d is stale after pass %s, which "
						"declares it preserved",
						names[a], m->kernels[k]->id, d->name);
	}
	return 0;
}

void vc_am_invalidate(vc_am *am, vc_module *m, const vc_pass_desc *d, int kernel, unsigned what)
{
	uint32_t keep = vc_pass_preserves(d);
	for (int a = 0; a < VC_AN_COUNT; a++) {
		if (keep >> a & 1)
			continue;
		if (!vc_analysis_per_kernel((vc_analysis_id)a)) {
			if (what & VC_AM_MODULE)
				am->mod[a].valid = 0;
			continue;
		}
		for (int k = 0; k < am->nk && (what & VC_AM_KERNELS); k++)
			if (kernel < 0 || k == kernel)
				am->kern[a][k].valid = 0;
	}
	if ((what & VC_AM_MODULE) && am->nk != m->n_kernels)
		drop_kernels(am);
}

int vc_am_prepare(vc_am *am, vc_module *m)
{
	return m->n_kernels && !slot_of(am, m, VC_AN_GEOMETRY, 0) ? -1 : 0;
}

void vc_am_compute_all(vc_am *am, vc_module *m)
{
	for (int a = 0; a < VC_AN_COUNT; a++) {
		if (!vc_analysis_per_kernel((vc_analysis_id)a))
			vc_analysis_get(am, m, (vc_analysis_id)a, -1, NULL);
		else
			for (int k = 0; k < m->n_kernels; k++)
				vc_analysis_get(am, m, (vc_analysis_id)a, k, NULL);
	}
}

const vc_geom *vc_unit_geom(vc_module *m, const vc_unit *u)
{
	return vc_analysis_get(u->am, m, VC_AN_GEOMETRY, u->index, NULL);
}

const vc_plan *vc_unit_plan(vc_module *m, const vc_unit *u)
{
	return vc_analysis_get(u->am, m, VC_AN_PLAN, u->index, NULL);
}
