/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The analysis manager: the analyses of a registry (vc_analysis_desc)
 * computed on demand and cached for one pipeline run, dropped after a pass
 * unless the pass preserves them (its descriptor's .preserves), and, with
 * --verify-analyses, recomputed after every pass and compared with the
 * cached result, so that a pass that declares an analysis preserved but
 * changes what it is computed from is caught.
 *
 * Module analyses are cached once; kernel analyses per kernel: a kernel
 * pass changes its own kernel only, so after it runs on kernel k only k's
 * results are dropped (the other kernels' stay valid; --verify-analyses
 * still recomputes all of them). Every result is a flat byte array (memcmp
 * compares two computations).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ir/kernel.h"
#include "pass/pass.h"

typedef struct slot {
	void *data;
	size_t bytes;
	int valid;
} slot;

struct vc_am {
	const vc_analysis_desc *an;
	int n;
	slot mod[VC_MAX_ANALYSES];  /* module analyses */
	slot *kern[VC_MAX_ANALYSES]; /* kernel analyses, nk entries each */
	int nk;
	atomic_long computed[VC_MAX_ANALYSES]; /* cache misses (--stats); kernel groups may run on threads */
};

vc_am *vc_am_new(const vc_registry *r)
{
	vc_am *am = calloc(1, sizeof(vc_am));
	if (am && r) {
		am->an = r->analyses;
		am->n = r->n_analyses < VC_MAX_ANALYSES ? r->n_analyses : VC_MAX_ANALYSES;
	}
	return am;
}

static void drop_kernels(vc_am *am)
{
	for (int a = 0; a < am->n; a++) {
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
	for (int a = 0; a < am->n; a++)
		free(am->mod[a].data);
	drop_kernels(am);
	free(am);
}

/* The slot of (id, kernel); NULL when out of range or out of memory. The
 * kernel slots follow the module's kernels (a pass that makes kernels
 * preserves no kernel analysis, so none survives a change of their number). */
static slot *slot_of(vc_am *am, vc_module *m, int id, int kernel)
{
	if (!am->an[id].per_kernel)
		return &am->mod[id];
	if (kernel < 0 || kernel >= m->n_kernels)
		return NULL;
	if (am->nk != m->n_kernels) {
		drop_kernels(am);
		for (int a = 0; a < am->n; a++)
			if (am->an[a].per_kernel && !(am->kern[a] = calloc((size_t)m->n_kernels, sizeof(slot)))) {
				drop_kernels(am);
				return NULL;
			}
		am->nk = m->n_kernels;
	}
	return &am->kern[id][kernel];
}

static void *compute(const vc_am *am, vc_module *m, int id, int kernel, size_t *bytes)
{
	*bytes = 0;
	return am->an[id].compute(m, am->an[id].per_kernel ? kernel : -1, bytes);
}

const void *vc_analysis_get(vc_am *am, vc_module *m, int id, int kernel, size_t *bytes)
{
	if (!am || id < 0 || id >= am->n)
		return NULL;
	slot *s = slot_of(am, m, id, kernel);
	if (!s)
		return NULL;
	if (!s->valid) {
		free(s->data);
		s->data = compute(am, m, id, kernel, &s->bytes);
		s->valid = s->data != NULL;
		atomic_fetch_add(&am->computed[id], 1);
	}
	if (bytes)
		*bytes = s->bytes;
	return s->data;
}

int64_t vc_am_computed(const vc_am *am, int id)
{
	return am && id >= 0 && id < am->n ? (int64_t)atomic_load(&am->computed[id]) : 0;
}

/* Recompute a cached result and compare; 0 when it is the same. */
static int stale(const vc_am *am, vc_module *m, int id, int kernel, const slot *s)
{
	size_t n;
	void *fresh = compute(am, m, id, kernel, &n);
	int same = fresh && n == s->bytes && !memcmp(fresh, s->data, n);
	free(fresh);
	return !same;
}

int vc_am_verify(vc_am *am, vc_module *m, const vc_pass_desc *d)
{
	for (int a = 0; a < am->n; a++) {
		if (!(d->preserves >> a & 1))
			continue;
		if (!am->an[a].per_kernel) {
			if (am->mod[a].valid && stale(am, m, a, -1, &am->mod[a]))
				return vc_error(m, NULL,
						"--verify-analyses: analysis %s is stale after pass %s, which declares it preserved",
						am->an[a].name, d->name);
			continue;
		}
		for (int k = 0; k < am->nk && am->nk == m->n_kernels; k++)
			if (am->kern[a][k].valid && stale(am, m, a, k, &am->kern[a][k]))
				return vc_error(m, m->kernels[k]->node,
						"--verify-analyses: analysis %s of kernel @k%d is stale after pass %s, which "
						"declares it preserved",
						am->an[a].name, m->kernels[k]->id, d->name);
	}
	return 0;
}

void vc_am_invalidate(vc_am *am, vc_module *m, const vc_pass_desc *d, int kernel, unsigned what)
{
	for (int a = 0; a < am->n; a++) {
		if (d->preserves >> a & 1)
			continue;
		if (!am->an[a].per_kernel) {
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
	for (int a = 0; a < am->n; a++)
		if (am->an[a].per_kernel)
			return m->n_kernels && !slot_of(am, m, a, 0) ? -1 : 0;
	return 0;
}

void vc_am_compute_all(vc_am *am, vc_module *m)
{
	for (int a = 0; a < am->n; a++) {
		if (!am->an[a].per_kernel)
			vc_analysis_get(am, m, a, -1, NULL);
		else
			for (int k = 0; k < m->n_kernels; k++)
				vc_analysis_get(am, m, a, k, NULL);
	}
}
