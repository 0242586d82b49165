/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The graph interpreter: runs the entry graph node by node in program order
 * with the reference kernels. It serves calibration (value ranges), the
 * float baseline, and the CPU side of a compiled model (VTA_CONV nodes go to
 * a hook that runs them on the device).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/exec.h"

static void note_range(const vc_tensor *t, vc_range *r)
{
	if (t->t.dtype != VC_F32)
		return;
	int64_t e = vc_type_elems(&t->t);
	const float *d = t->data;
	float am = r->absmax, pm = r->posmax, nm = r->negmin;
	uint64_t *h = r->hist;
	for (int64_t i = 0; i < e; i++) {
		float v = d[i], a = fabsf(v);
		if (!isfinite(v))
			continue;
		am = a > am ? a : am;
		pm = v > pm ? v : pm;
		nm = v < nm ? v : nm;
		if (h && v != 0.0f)
			h[(v < 0) * VC_HIST_BINS + vc_hist_bin(a)]++;
	}
	r->absmax = am;
	r->posmax = pm;
	r->negmin = nm;
	if (r->chsum && t->t.rank >= 2 && t->t.dim[1] == r->chn) {
		int64_t C = r->chn, inner = e / (t->t.dim[0] * C);
		for (int64_t b = 0; b < e / inner; b++) {
			double sum = 0;
			for (int64_t k = 0; k < inner; k++)
				sum += isfinite(d[b * inner + k]) ? d[b * inner + k] : 0.0f;
			r->chsum[b % C] += sum;
		}
		r->chcount += (double)(e / C);
	}
}

int vc_interp(vc_module *m, const vc_tensor *inputs, vc_tensor *outputs, vc_range *stats, vc_vta_hook hook,
	      void *hook_ctx)
{
	vc_graph *g = m->g;
	int ids = g->next_id;
	vc_tensor *val = calloc((size_t)ids, sizeof *val);
	int *left = calloc((size_t)ids, sizeof *left); /* users still to run */
	vc_tensor *args = NULL;
	int rc = -1;
	if (!val || !left) {
		vc_error(m, NULL, "out of memory");
		goto done;
	}
	for (int i = 0; i < g->n; i++)
		left[g->nodes[i]->id] = g->nodes[i]->n_users;
	for (int i = 0; i < g->n; i++) {
		vc_node *n = g->nodes[i];
		vc_tensor *out = &val[n->id];
		if (n->op == VC_OP_INPUT) {
			int k = 0;
			while (k < g->n_inputs && g->inputs[k] != n)
				k++;
			if (k == g->n_inputs || !vc_type_equal(&inputs[k].t, &n->type)) {
				char a[128] = "", b[128];
				if (k < g->n_inputs)
					vc_type_str(&inputs[k].t, a, sizeof a);
				vc_type_str(&n->type, b, sizeof b);
				vc_error(m, n, "input tensor %s does not match the declared %s", a, b);
				goto done;
			}
			out->t = inputs[k].t;
			out->data = inputs[k].data;
			out->owned = 0;
		} else if (n->op == VC_OP_CONST) {
			out->t = n->type;
			out->data = n->data;
			out->owned = 0;
		} else {
			free(args);
			args = calloc((size_t)(n->n_in ? n->n_in : 1), sizeof *args);
			if (!args) {
				vc_error(m, n, "out of memory");
				goto done;
			}
			for (int k = 0; k < n->n_in; k++)
				args[k] = val[n->in[k]->id];
			struct timespec t0, t1;
			if (m->node_seconds)
				clock_gettime(CLOCK_MONOTONIC, &t0);
			int r = n->op == VC_OP_VTA_CONV && hook ? hook(hook_ctx, m, n, args, out) : vc_ref_run(m, n, args, out);
			if (r)
				goto done;
			if (m->node_seconds) {
				clock_gettime(CLOCK_MONOTONIC, &t1);
				m->node_seconds[n->id] += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
			}
			/* release inputs nobody needs any more */
			for (int k = 0; k < n->n_in; k++) {
				vc_node *v = n->in[k];
				int dup = 0;
				for (int j = 0; j < k; j++)
					dup |= n->in[j] == v;
				if (dup)
					continue;
				if (--left[v->id] == 0) {
					int is_out = 0;
					for (int o = 0; o < g->n_outputs; o++)
						is_out |= g->outputs[o] == v;
					if (!is_out)
						vc_tensor_free(&val[v->id]);
				}
			}
		}
		if (stats)
			note_range(out, &stats[n->id]);
	}
	for (int o = 0; o < g->n_outputs; o++) {
		vc_tensor *v = &val[g->outputs[o]->id];
		if (vc_tensor_alloc(&outputs[o], &v->t)) {
			vc_error(m, NULL, "out of memory");
			goto done;
		}
		memcpy(outputs[o].data, v->data, vc_type_bytes(&v->t));
	}
	rc = 0;
done:
	if (val)
		for (int i = 0; i < ids; i++)
			vc_tensor_free(&val[i]);
	free(val);
	free(left);
	free(args);
	return rc;
}
