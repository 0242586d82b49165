/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The model API (<vta/model.h>): a .vtam file checked and decoded
 * (vtam.c, graph.c), its device image copied into cached device buffers,
 * one per VTA_MGRAPH_SEGMENT of the image, the DRAM addresses of its LOAD
 * and STORE instructions relocated into them; a run goes through the graph
 * in program order, VTA kernels on the model's own context (every run is
 * checked against the live buffers) and the rest on the host (hostops.c).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vta/isa.h>
#include <vta/model.h>
#include <vta/runtime.h>
#include <vta/util.h>
#include <vta/model/hostops.h>
#include <vta/model/segments.h>
#include <vta/vtam.h>

#include "../context.h"

/* A bound on the host memory of one run (the sum of all its values, far
 * above what the networks of docs/compiler.md need), so that a crafted file
 * cannot make a run allocate without limit. */
#define VTA_MODEL_MAX_HOST_BYTES (2ll << 30)

struct vta_model {
	uint8_t *file; /* the constants of the graph point into it */
	vta_mgraph_t g;
	vta_context_t *ctx;
	vta_mseg_t seg; /* the device image */
	int *users;             /* per node: distinct nodes that use it */
	int *is_output;
	vta_tensor_info_t in_info[VTA_MGRAPH_MAX_IO], out_info[VTA_MGRAPH_MAX_IO];
	vta_layer_stats_t *layers; /* per node, in program order */
	uint64_t runs, cycles, host_ns;
	vta_model_progress_fn progress;
	void *progress_ctx;
};

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint8_t *host_at(const vta_model_t *m, int64_t off)
{
	return vta_mseg_host(&m->seg, off);
}

static vta_phy_addr_t phys_at(const vta_model_t *m, int64_t off)
{
	return vta_mseg_phys(&m->seg, off);
}

/* ---- opening ----------------------------------------------------------- */

static void info_of(const vta_mnode_t *n, vta_tensor_info_t *t)
{
	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "%s", n->name);
	t->rank = n->type.rank;
	memcpy(t->dim, n->type.dim, sizeof t->dim);
	t->elems = vta_mtype_elems(&n->type);
	t->dtype = (int)n->type.dtype;
	t->quantized = n->type.quantized;
	t->exp = n->type.exp;
}

/* META lines "scale=S", "mean=M[,M..]", "std=S[,S..]": the preprocessing
 * of the first input. Unknown keys are left for newer readers. */
int vta_meta_preproc(const uint8_t *p, size_t n, const char *what, vta_tensor_info_t *t, vta_error_t *err)
{
	size_t at = 0;
	while (at < n) {
		size_t end = at;
		while (end < n && p[end] != '\n')
			end++;
		char line[256];
		size_t len = end - at < sizeof line - 1 ? end - at : sizeof line - 1;
		memcpy(line, p + at, len);
		line[len] = 0;
		at = end + 1;
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		const char *key = line, *val = eq + 1;
		int is_mean = !strcmp(key, "mean"), is_std = !strcmp(key, "std");
		if (!strcmp(key, "scale")) {
			char *e;
			t->scale = strtod(val, &e);
			if (e == val || *e)
				return vta_error_set(err, VTA_EINVAL, -1, "%s: META scale=%s is not a number", what, val);
			t->has_preproc = 1;
		} else if (is_mean || is_std) {
			double *out = is_mean ? t->mean : t->std;
			int k = 0;
			for (const char *q = val; *q;) {
				char *e;
				double v = strtod(q, &e);
				if (e == q || (*e && *e != ',') || k == 4 || (is_std && v == 0))
					return vta_error_set(err, VTA_EINVAL, -1, "%s: META %s=%s: expected 1 to 4 numbers%s",
							     what, key, val, is_std ? ", none 0" : "");
				out[k++] = v;
				q = *e ? e + 1 : e;
			}
			*(is_mean ? &t->n_mean : &t->n_std) = k;
			t->has_preproc = 1;
		}
	}
	if (t->has_preproc && !t->scale)
		t->scale = 1.0;
	return 0;
}

/* Every node is one libvta runs, each kernel's operands are placed. */
static int check_nodes(vta_model_t *m, vta_error_t *err)
{
	const vta_mgraph_t *g = &m->g;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const vta_mnode_t *n = &g->nodes[i];
		int rc = vta_hostop_check(g, i, err);
		if (rc)
			return rc;
		for (int k = 0; k < n->n_in; k++) {
			int dup = 0;
			for (int j = 0; j < k; j++)
				dup |= n->in[j] == n->in[k];
			m->users[n->in[k]] += !dup;
		}
		if (n->op != VTA_MOP_VTA_CONV)
			continue;
		int kid = n->a.kernel_id;
		if (kid < 0 || (uint32_t)kid >= g->n_kernels || g->kernels[kid].node != i)
			return vta_error_set(err, VTA_EINVAL, -1, "node %" PRIu32 " ('%s'): vta.conv without its kernel",
					     i, n->name);
		const vta_mnode_t *x = &g->nodes[n->in[0]], *res = n->n_in > 3 ? &g->nodes[n->in[3]] : NULL;
		if (x->a.dev_off < 0 || n->a.dev_off < 0 || (res && res->a.dev_off < 0))
			return vta_error_set(err, VTA_EINVAL, -1, "node %" PRIu32 " ('%s'): the kernel or its operands"
					     " were not placed in device memory", i, n->name);
	}
	for (int o = 0; o < g->n_outputs; o++)
		m->is_output[g->outputs[o]] = 1;
	int64_t host = 0; /* what a run may allocate at most: every value at once */
	for (uint32_t i = 0; i < g->n_nodes; i++)
		host += g->nodes[i].op == VTA_MOP_CONST ? 0 : vta_mtype_bytes(&g->nodes[i].type);
	if (host > VTA_MODEL_MAX_HOST_BYTES)
		return vta_error_set(err, VTA_ERANGE, -1, "the graph's values take %" PRId64 " bytes, more than the"
				     " %lld a run may allocate", host, (long long)VTA_MODEL_MAX_HOST_BYTES);
	return 0;
}

static int load_device(vta_model_t *m, const char *target, vta_error_t *err)
{
	int rc = ctx_open(target ? target : ctx_default_target(), &m->ctx, err);
	if (rc)
		return rc;
	int64_t size = m->g.image_size;
	if (!m->g.n_kernels || !size)
		return 0;
	if ((rc = vta_mseg_load(&m->seg, m->g.image, size, 1, m->ctx, err)))
		return rc;
	for (uint32_t k = 0; k < m->g.n_kernels; k++)
		if ((rc = vta_mseg_relocate(&m->seg, k, m->g.kernels[k].insn_off, m->g.kernels[k].insn_count, err)))
			return rc;
	return vta_mseg_flush(&m->seg, m->ctx, err);
}

/* Multiply-accumulates of a host convolution, dense layer or matrix product. */
static int64_t host_macs(const vta_mgraph_t *g, const vta_mnode_t *n)
{
	const vta_mtype_t *w = n->n_in > 1 ? &g->nodes[n->in[1]].type : NULL;
	switch (n->op) {
	case VTA_MOP_CONV:
	case VTA_MOP_QCONV:
	case VTA_MOP_QCONV_RQ:
	case VTA_MOP_DENSE:
	case VTA_MOP_QDENSE: /* each output: a window of w's inner dimensions */
		return vta_mtype_elems(&n->type) * (w->rank == 4 ? w->dim[1] * w->dim[2] * w->dim[3] : w->dim[1]);
	case VTA_MOP_MATMUL:
		return vta_mtype_elems(&n->type) * w->dim[w->rank - 2];
	default:
		return 0;
	}
}

static int open_model(vta_model_t *m, const char *what, size_t len, const char *target, vta_error_t *err)
{
	vta_vtam_t v;
	int rc = vta_vtam_parse(m->file, len, what, &v, err);
	if (rc)
		return rc;
	size_t gn, mn;
	const uint8_t *gs = vta_vtam_section(&v, m->file, VTA_VTAM_GRAPH, &gn);
	const uint8_t *ms = vta_vtam_section(&v, m->file, VTA_VTAM_META, &mn);
	if ((rc = vta_mgraph_decode(gs, gn, what, &m->g, err)))
		return rc;
	const vta_mgraph_t *g = &m->g;
	m->users = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *m->users);
	m->is_output = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *m->is_output);
	m->layers = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *m->layers);
	if (!m->users || !m->is_output || !m->layers)
		return vta_error_set(err, VTA_ENOMEM, -1, "out of memory");
	if ((rc = check_nodes(m, err))) {
		char msg[VTA_ERROR_MSG_MAX];
		snprintf(msg, sizeof msg, "%s", err->msg);
		return vta_error_set(err, rc, -1, "%s: %s", what, msg);
	}
	for (int i = 0; i < g->n_inputs; i++)
		info_of(&g->nodes[g->inputs[i]], &m->in_info[i]);
	for (int i = 0; i < g->n_outputs; i++)
		info_of(&g->nodes[g->outputs[i]], &m->out_info[i]);
	if (ms && (rc = vta_meta_preproc(ms, mn, what, &m->in_info[0], err)))
		return rc;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		m->layers[i].name = g->nodes[i].name;
		m->layers[i].op = vta_mop_name(g->nodes[i].op);
		m->layers[i].on_vta = g->nodes[i].op == VTA_MOP_VTA_CONV;
		if (m->layers[i].on_vta)
			m->layers[i].macs = g->kernels[g->nodes[i].a.kernel_id].macs;
		else
			m->layers[i].macs = host_macs(g, &g->nodes[i]);
	}
	return load_device(m, target, err);
}

int vta_model_open_bytes(const uint8_t *bytes, size_t len, const char *what, const char *target,
			 vta_model_t **out, vta_error_t *err)
{
	*out = NULL;
	vta_model_t *m = calloc(1, sizeof *m);
	if (!m || !(m->file = malloc(len ? len : 1))) {
		free(m);
		return vta_error_set(err, VTA_ENOMEM, -1, "out of memory for a %zu-byte model", len);
	}
	if (len)
		memcpy(m->file, bytes, len);
	int rc = open_model(m, what ? what : "the model", len, target, err);
	if (rc) {
		vta_model_close(m);
		return rc;
	}
	*out = m;
	return 0;
}

int vta_model_open(const char *path, const char *target, vta_model_t **out, vta_error_t *err)
{
	uint8_t *b;
	size_t n;
	*out = NULL;
	int rc = vta_read_file(path, &b, &n, err);
	if (rc)
		return rc;
	rc = vta_model_open_bytes(b, n, path, target, out, err);
	free(b);
	return rc;
}

void vta_model_close(vta_model_t *m)
{
	if (!m)
		return;
	if (m->ctx) {
		vta_mseg_free(&m->seg, m->ctx);
		ctx_close(m->ctx);
	}
	free(m->users);
	free(m->is_output);
	free(m->layers);
	vta_mgraph_free(&m->g);
	free(m->file);
	free(m);
}

/* ---- queries ----------------------------------------------------------- */

int vta_model_n_inputs(const vta_model_t *m) { return m ? m->g.n_inputs : 0; }

int vta_model_n_outputs(const vta_model_t *m) { return m ? m->g.n_outputs : 0; }

int vta_model_input(const vta_model_t *m, int i, vta_tensor_info_t *out)
{
	if (!m || i < 0 || i >= m->g.n_inputs)
		return VTA_EINVAL;
	*out = m->in_info[i];
	return 0;
}

int vta_model_output(const vta_model_t *m, int i, vta_tensor_info_t *out)
{
	if (!m || i < 0 || i >= m->g.n_outputs)
		return VTA_EINVAL;
	*out = m->out_info[i];
	return 0;
}

void vta_model_set_progress(vta_model_t *m, vta_model_progress_fn fn, void *ctx)
{
	if (m)
		m->progress = fn, m->progress_ctx = ctx;
}

int vta_model_stats(const vta_model_t *m, vta_model_stats_t *out)
{
	if (!m)
		return VTA_EINVAL;
	memset(out, 0, sizeof *out);
	out->runs = m->runs;
	out->cycles = m->cycles;
	out->host_ns = m->host_ns;
	out->n_layers = (int)m->g.n_nodes;
	out->layers = m->layers;
	return 0;
}

/* ---- running ----------------------------------------------------------- */

/* n elements from (sdt, sexp) to (ddt, dexp): float <-> quantized, or the
 * same dtype at the same exponent. */
static int convert(int sdt, int sexp, const void *s, int ddt, int dexp, void *d, int64_t n)
{
	if (sdt == ddt && (sdt == VTA_DTYPE_F32 || sexp == dexp)) {
		memcpy(d, s, (size_t)n * vta_mdtype_size((uint32_t)sdt));
		return 0;
	}
	if (ddt == VTA_DTYPE_F32 && sdt != VTA_DTYPE_F32) {
		for (int64_t i = 0; i < n; i++)
			((float *)d)[i] = ldexpf(sdt == VTA_DTYPE_I8 ? (float)((const int8_t *)s)[i]
								 : (float)((const int32_t *)s)[i], sexp);
		return 0;
	}
	if (ddt == VTA_DTYPE_I8 && sdt == VTA_DTYPE_F32) {
		for (int64_t i = 0; i < n; i++)
			((int8_t *)d)[i] = vta_quantize_value(((const float *)s)[i], dexp);
		return 0;
	}
	return VTA_EINVAL;
}

/* A dtype as the caller writes it (VTA_DTYPE_*), or its number when it is none. */
static const char *dtype_str(int dtype, char *buf, size_t n)
{
	static const char *const names[] = {"VTA_DTYPE_F32", "VTA_DTYPE_I8", "VTA_DTYPE_I32"};
	if (dtype >= 0 && dtype < 3)
		return names[dtype];
	snprintf(buf, n, "dtype %d (no VTA_DTYPE_*)", dtype);
	return buf;
}

static int check_tensor(const vta_tensor_t *t, const vta_tensor_info_t *info, const char *kind, int i,
			vta_error_t *err)
{
	size_t es = vta_mdtype_size((uint32_t)t->dtype);
	char b[48];
	if (!t->data || !es || t->bytes != (size_t)info->elems * es)
		return vta_error_set(err, VTA_EINVAL, -1, "%s %d ('%s'): %zu bytes of %s given for %" PRId64
				     " elements", kind, i, info->name, t->bytes, dtype_str(t->dtype, b, sizeof b),
				     info->elems);
	return 0;
}

static int run_kernel(vta_model_t *m, uint32_t i, const vta_mval_t *in, vta_mval_t *y, vta_error_t *err)
{
	const vta_mgraph_t *g = &m->g;
	const vta_mnode_t *n = &g->nodes[i];
	const vta_mkernel_t *kn = &g->kernels[n->a.kernel_id];
	vta_error_t e;
	for (int k = 0; k < n->n_in; k += 3) { /* the input, and the residual */
		int64_t off = g->nodes[n->in[k]].a.dev_off, b = vta_mtype_bytes(in[k].t);
		memcpy(host_at(m, off), in[k].data, (size_t)b);
		if (ctx_mem_sync(m->ctx, 1, host_at(m, off), (size_t)b, &e))
			return vta_error_set(err, e.code, -1, "node %" PRIu32 " ('%s'): %s", i, n->name, e.msg);
	}
	if (ctx_run(m->ctx, phys_at(m, kn->insn_off), (uint32_t)kn->insn_count, 1u << 30, &e))
		return vta_error_set(err, VTA_EIO, e.insn_index,
				     "node %" PRIu32 " ('%s'): kernel %d failed on the device: %s", i, n->name,
				     n->a.kernel_id, e.msg);
	int64_t yb = vta_mtype_bytes(y->t);
	if (ctx_mem_sync(m->ctx, 0, host_at(m, n->a.dev_off), (size_t)yb, &e))
		return vta_error_set(err, e.code, -1, "node %" PRIu32 " ('%s'): %s", i, n->name, e.msg);
	memcpy(y->data, host_at(m, n->a.dev_off), (size_t)yb);
	vta_counters_t c;
	vta_layer_stats_t *l = &m->layers[i];
	if (!vta_context_last_run(m->ctx, &c)) {
		l->cycles = c.cycles;
		memcpy(l->busy, c.busy, sizeof l->busy);
		l->gemm_uops = c.gemm_uops;
		m->cycles += c.cycles;
	}
	return 0;
}

int vta_model_run(vta_model_t *m, const vta_tensor_t *inputs, const vta_tensor_t *outputs, vta_error_t *err)
{
	if (!m)
		return vta_error_set(err, VTA_EINVAL, -1, "no model");
	const vta_mgraph_t *g = &m->g;
	for (int i = 0; i < g->n_inputs; i++)
		if (check_tensor(&inputs[i], &m->in_info[i], "input", i, err))
			return VTA_EINVAL;
	for (int i = 0; i < g->n_outputs; i++)
		if (check_tensor(&outputs[i], &m->out_info[i], "output", i, err))
			return VTA_EINVAL;
	uint64_t t0 = now_ns();
	m->cycles = 0;
	char b1[48], b2[48]; /* dtypes named in messages */
	vta_mval_t *val = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *val);
	int *left = malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *left);
	vta_mval_t args[VTA_MGRAPH_MAX_IN];
	int rc = 0;
	if (!val || !left) {
		rc = vta_error_set(err, VTA_ENOMEM, -1, "out of memory");
		goto done;
	}
	memcpy(left, m->users, g->n_nodes * sizeof *left);
	for (uint32_t i = 0; i < g->n_nodes && !rc; i++) {
		const vta_mnode_t *n = &g->nodes[i];
		vta_mval_t *y = &val[i];
		uint64_t h0 = now_ns();
		y->t = &n->type;
		if (n->op == VTA_MOP_CONST) {
			y->data = (void *)n->data;
			size_t cb = (size_t)vta_mtype_bytes(&n->type);
			if ((uintptr_t)n->data % 8 && cb) { /* in the file, unaligned: the host ops read it typed */
				if (!(y->data = malloc(cb))) {
					rc = vta_error_set(err, VTA_ENOMEM, -1, "node %" PRIu32 " ('%s'): out of memory for %zu"
							   " bytes", i, n->name, cb);
					break;
				}
				memcpy(y->data, n->data, cb);
				y->owned = 1;
			}
			continue;
		}
		size_t bytes = (size_t)vta_mtype_bytes(&n->type);
		if (!(y->data = calloc(1, bytes ? bytes : 1))) {
			rc = vta_error_set(err, VTA_ENOMEM, -1, "node %" PRIu32 " ('%s'): out of memory for %zu bytes", i,
					   n->name, bytes);
			break;
		}
		y->owned = 1;
		if (n->op == VTA_MOP_INPUT) {
			int k = 0;
			while (g->inputs[k] != i)
				k++;
			if (convert(inputs[k].dtype, inputs[k].exp, inputs[k].data, (int)n->type.dtype, n->type.exp,
				    y->data, vta_mtype_elems(&n->type)))
				rc = vta_error_set(err, VTA_EINVAL, -1, "input %d ('%s'): %s cannot be converted to"
						   " the model's %s", k, n->name, dtype_str(inputs[k].dtype, b1, sizeof b1),
						   dtype_str((int)n->type.dtype, b2, sizeof b2));
			continue;
		}
		for (int k = 0; k < n->n_in; k++)
			args[k] = val[n->in[k]];
		if (n->op == VTA_MOP_VTA_CONV) {
			rc = run_kernel(m, i, args, y, err);
			if (!rc && m->progress)
				m->progress(m->progress_ctx, n->a.kernel_id + 1, (int)m->g.n_kernels);
		}
		else if ((rc = vta_hostop_run(n, args, y)))
			rc = vta_error_set(err, rc == VTA_ENOMEM ? VTA_ENOMEM : VTA_EINVAL, -1, "node %" PRIu32 " ('%s', %s): %s",
					   i, n->name, vta_mop_name(n->op),
					   rc == VTA_ENOMEM ? "out of memory for a work buffer" : "no host kernel");
		for (int k = 0; k < n->n_in; k++) { /* release what nobody needs any more */
			uint32_t v = n->in[k];
			int dup = 0;
			for (int j = 0; j < k; j++)
				dup |= n->in[j] == v;
			if (!dup && --left[v] == 0 && !m->is_output[v] && val[v].owned) {
				free(val[v].data);
				val[v].data = NULL;
				val[v].owned = 0;
			}
		}
		m->layers[i].host_ns = now_ns() - h0;
	}
	for (int o = 0; o < g->n_outputs && !rc; o++) {
		const vta_mval_t *v = &val[g->outputs[o]];
		if (convert((int)v->t->dtype, v->t->exp, v->data, outputs[o].dtype, outputs[o].exp, outputs[o].data,
			    vta_mtype_elems(v->t)))
			rc = vta_error_set(err, VTA_EINVAL, -1, "output %d ('%s'): the model's %s cannot be"
					   " converted to %s", o, m->out_info[o].name, dtype_str((int)v->t->dtype, b1, sizeof b1),
					   dtype_str(outputs[o].dtype, b2, sizeof b2));
	}
	if (!rc)
		m->runs++;
done:
	for (uint32_t i = 0; val && i < g->n_nodes; i++)
		if (val[i].owned)
			free(val[i].data);
	free(val);
	free(left);
	m->host_ns = now_ns() - t0;
	return rc;
}
