/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing a .vtam file from an emitted module (format: runtime/model/graph.h). Compiling
 * the same model twice gives identical bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vta/vtam.h>

#include "artifact/artifact.h"
#include "pass/pass.h"

typedef struct wbuf {
	uint8_t *p;
	size_t n, cap;
	int oom;
} wbuf;

static void put(wbuf *b, const void *d, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n > b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 4096;
		while (nc < b->n + n)
			nc *= 2;
		uint8_t *np = realloc(b->p, nc);
		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void put_u64(wbuf *b, uint64_t v)
{
	uint8_t d[8];
	for (int i = 0; i < 8; i++)
		d[i] = (uint8_t)(v >> (8 * i));
	put(b, d, 8);
}

static void put_u32(wbuf *b, uint32_t v)
{
	uint8_t d[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	put(b, d, 4);
}

static void put_f64(wbuf *b, double v)
{
	uint64_t u;
	memcpy(&u, &v, 8);
	put_u64(b, u);
}

static void put_str(wbuf *b, const char *s)
{
	put_u32(b, (uint32_t)strlen(s));
	put(b, s, strlen(s));
}

static void put_attrs(wbuf *b, const vc_attrs *a)
{
	for (int i = 0; i < 2; i++) {
		put_u64(b, (uint64_t)a->kernel[i]);
		put_u64(b, (uint64_t)a->stride[i]);
		put_u64(b, (uint64_t)a->dilation[i]);
	}
	for (int i = 0; i < 4; i++)
		put_u64(b, (uint64_t)a->pad[i]);
	put_u64(b, (uint64_t)a->group);
	put_u64(b, (uint64_t)a->axis);
	put_u32(b, (uint32_t)a->ceil_mode);
	put_u32(b, (uint32_t)a->count_include_pad);
	put_u32(b, (uint32_t)a->coerce2d);
	put_u32(b, (uint32_t)a->exp);
	put_f64(b, a->lo);
	put_f64(b, a->hi);
	put_f64(b, a->eps);
	put_u32(b, (uint32_t)a->nshape);
	for (int i = 0; i < VC_MAX_RANK; i++)
		put_u64(b, (uint64_t)a->shape[i]);
	put_u32(b, (uint32_t)a->shift);
	put_u32(b, (uint32_t)a->relu);
	put_u64(b, (uint64_t)a->qlo);
	put_u64(b, (uint64_t)a->qhi);
	put_u64(b, (uint64_t)a->dev_off);
	put_u32(b, (uint32_t)a->kernel_id);
	put_u32(b, (uint32_t)a->leaky);
}

static void put_type(wbuf *b, const vc_type *t)
{
	put_u32(b, (uint32_t)t->rank);
	for (int i = 0; i < t->rank; i++)
		put_u64(b, (uint64_t)t->dim[i]);
	put_u32(b, (uint32_t)t->dtype);
	put_u32(b, (uint32_t)t->layout);
	put_u32(b, (uint32_t)t->quantized);
	put_u32(b, (uint32_t)t->exp);
}

static int ordinal(const vc_graph *g, const vc_node *n)
{
	for (int i = 0; i < g->n; i++)
		if (g->nodes[i] == n)
			return i;
	return -1;
}

/* The GRAPH section: the graph, kernels and device image. */
static int graph_bytes(vc_module *m, uint8_t **bytes, size_t *len)
{
	if (!(m->props & VC_PROP_EMITTED) || !m->stream)
		return vc_error(m, NULL, "artifact: the module has not been through emit");
	wbuf b = {0};
	vc_graph *g = m->g;
	put(&b, "VTAM", 4);
	put_u32(&b, VTA_MGRAPH_VERSION);
	put_u32(&b, m->target.config_id);
	put_str(&b, VTA_CONFIG_CANONICAL);
	put_u32(&b, (uint32_t)m->target.batch);
	put_u32(&b, (uint32_t)m->target.block_in);
	put_u32(&b, (uint32_t)m->target.block_out);
	put_u32(&b, (uint32_t)g->n);
	for (int i = 0; i < g->n; i++) {
		const vc_node *n = g->nodes[i];
		put_u32(&b, (uint32_t)n->op);
		put_str(&b, n->name);
		put_u32(&b, (uint32_t)n->n_in);
		for (int k = 0; k < n->n_in; k++)
			put_u32(&b, (uint32_t)ordinal(g, n->in[k]));
		put_type(&b, &n->type);
		put_attrs(&b, &n->a);
		uint8_t on = (uint8_t)n->on_vta;
		put(&b, &on, 1);
		int inline_data = n->op == VC_OP_CONST && n->a.dev_off < 0;
		size_t nd = inline_data ? vc_type_bytes(&n->type) : 0;
		put_u64(&b, nd);
		if (nd)
			put(&b, n->data, nd);
	}
	put_u32(&b, (uint32_t)g->n_inputs);
	for (int i = 0; i < g->n_inputs; i++)
		put_u32(&b, (uint32_t)ordinal(g, g->inputs[i]));
	put_u32(&b, (uint32_t)g->n_outputs);
	for (int i = 0; i < g->n_outputs; i++)
		put_u32(&b, (uint32_t)ordinal(g, g->outputs[i]));
	put_u32(&b, (uint32_t)m->n_kernels);
	for (int k = 0; k < m->n_kernels; k++) {
		const vc_kernel *kn = m->kernels[k];
		put_u32(&b, (uint32_t)ordinal(g, kn->node));
		put_u64(&b, (uint64_t)kn->insn_off);
		put_u64(&b, (uint64_t)kn->insn_count);
		put_u64(&b, (uint64_t)kn->uop_off);
		put_u64(&b, (uint64_t)kn->n_uops);
		put_u64(&b, (uint64_t)kn->macs);
		put_u32(&b, (uint32_t)kn->tile.th);
		put_u32(&b, (uint32_t)kn->tile.tco);
		put_u32(&b, (uint32_t)kn->tile.tci);
		put_u32(&b, (uint32_t)(kn->tile.pingpong | kn->tile.rows_outer << 1 | kn->tile.resident << 2));
	}
	/* only the part that may be non-zero is scanned: an arena is mostly zero */
	int64_t img = m->stream->used < m->stream->size ? m->stream->used : m->stream->size;
	while (img > 0 && m->stream->image[img - 1] == 0)
		img--;
	put_u64(&b, (uint64_t)m->stream->size);
	put_u64(&b, (uint64_t)img);
	put(&b, m->stream->image, (size_t)img);
	if (b.oom) {
		free(b.p);
		return vc_error(m, NULL, "artifact: out of memory");
	}
	*bytes = b.p;
	*len = b.n;
	return 0;
}

/* The file: the GRAPH section (and META, when given) in the checked
 * container (<vta/vtam.h>). */
int vc_artifact_bytes_meta(vc_module *m, const char *meta, uint8_t **bytes, size_t *len)
{
	uint8_t *g = NULL;
	size_t n[2] = {0, meta ? strlen(meta) : 0};
	if (graph_bytes(m, &g, &n[0]))
		return -1;
	uint32_t kind[2] = {VTA_VTAM_GRAPH, VTA_VTAM_META};
	const uint8_t *data[2] = {g, (const uint8_t *)meta};
	vta_error_t e;
	int rc = vta_vtam_build(kind, data, n, meta && *meta ? 2 : 1, bytes, len, &e);
	free(g);
	return rc ? vc_error(m, NULL, "artifact: %s", e.msg) : 0;
}

int vc_artifact_bytes(vc_module *m, uint8_t **bytes, size_t *len)
{
	return vc_artifact_bytes_meta(m, NULL, bytes, len);
}

int vc_artifact_write_meta(vc_module *m, const char *path, const char *meta)
{
	uint8_t *bytes;
	size_t len;
	if (vc_artifact_bytes_meta(m, meta, &bytes, &len))
		return -1;
	FILE *f = fopen(path, "wb");
	if (!f) {
		free(bytes);
		return vc_error(m, NULL, "cannot create %s: %s", path, strerror(errno));
	}
	size_t w = fwrite(bytes, 1, len, f);
	int bad = fclose(f) != 0 || w != len;
	free(bytes);
	if (bad)
		return vc_error(m, NULL, "cannot write %s", path);
	return 0;
}

int vc_artifact_write(vc_module *m, const char *path)
{
	return vc_artifact_write_meta(m, path, NULL);
}
