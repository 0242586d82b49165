/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing a .vtam file from an emitted module (format: internal/vta/model/graph.h). Compiling
 * the same model twice gives identical bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vta/bytes.h>
#include <vta/vtam.h>

#include "artifact/artifact.h"
#include "pass/pass.h"

static void put_f64(vta_buf *b, double v)
{
	uint64_t u;
	memcpy(&u, &v, 8);
	vta_buf_put_le64(b, u);
}

static void put_str(vta_buf *b, const char *s)
{
	vta_buf_put_le32(b, (uint32_t)strlen(s));
	vta_buf_put(b, s, strlen(s));
}

static void put_attrs(vta_buf *b, const vc_attrs *a)
{
	for (int i = 0; i < 2; i++) {
		vta_buf_put_le64(b, (uint64_t)a->kernel[i]);
		vta_buf_put_le64(b, (uint64_t)a->stride[i]);
		vta_buf_put_le64(b, (uint64_t)a->dilation[i]);
	}
	for (int i = 0; i < 4; i++)
		vta_buf_put_le64(b, (uint64_t)a->pad[i]);
	vta_buf_put_le64(b, (uint64_t)a->group);
	vta_buf_put_le64(b, (uint64_t)a->axis);
	vta_buf_put_le32(b, (uint32_t)a->ceil_mode);
	vta_buf_put_le32(b, (uint32_t)a->count_include_pad);
	vta_buf_put_le32(b, (uint32_t)a->coerce2d);
	vta_buf_put_le32(b, (uint32_t)a->exp);
	put_f64(b, a->lo);
	put_f64(b, a->hi);
	put_f64(b, a->eps);
	vta_buf_put_le32(b, (uint32_t)a->nshape);
	for (int i = 0; i < VC_MAX_RANK; i++)
		vta_buf_put_le64(b, (uint64_t)a->shape[i]);
	vta_buf_put_le32(b, (uint32_t)a->shift);
	vta_buf_put_le32(b, (uint32_t)a->relu);
	vta_buf_put_le64(b, (uint64_t)a->qlo);
	vta_buf_put_le64(b, (uint64_t)a->qhi);
	vta_buf_put_le64(b, (uint64_t)a->dev_off);
	vta_buf_put_le32(b, (uint32_t)a->kernel_id);
	vta_buf_put_le32(b, (uint32_t)a->leaky);
	vta_buf_put_le32(b, (uint32_t)a->resize_mode);
	vta_buf_put_le32(b, (uint32_t)a->resize_coord);
	vta_buf_put_le32(b, (uint32_t)a->resize_round);
	put_f64(b, a->scale[0]);
	put_f64(b, a->scale[1]);
	vta_buf_put_le32(b, (uint32_t)a->fn);
	vta_buf_put_le32(b, (uint32_t)a->axes);
	vta_buf_put_le32(b, (uint32_t)a->keepdims);
	put_f64(b, a->alpha);
	put_f64(b, a->beta);
}

static void put_type(vta_buf *b, const vc_type *t)
{
	vta_buf_put_le32(b, (uint32_t)t->rank);
	for (int i = 0; i < t->rank; i++)
		vta_buf_put_le64(b, (uint64_t)t->dim[i]);
	vta_buf_put_le32(b, (uint32_t)t->dtype);
	vta_buf_put_le32(b, (uint32_t)t->layout);
	vta_buf_put_le32(b, (uint32_t)t->quantized);
	vta_buf_put_le32(b, (uint32_t)t->exp);
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
	vta_buf b = {0};
	vc_graph *g = m->g;
	vta_buf_put(&b, "VTAM", 4);
	vta_buf_put_le32(&b, VTA_MGRAPH_VERSION);
	vta_buf_put_le32(&b, m->target.config_id);
	put_str(&b, VTA_CONFIG_CANONICAL);
	vta_buf_put_le32(&b, (uint32_t)m->target.batch);
	vta_buf_put_le32(&b, (uint32_t)m->target.block_in);
	vta_buf_put_le32(&b, (uint32_t)m->target.block_out);
	vta_buf_put_le32(&b, (uint32_t)g->n);
	for (int i = 0; i < g->n; i++) {
		const vc_node *n = g->nodes[i];
		vta_buf_put_le32(&b, (uint32_t)n->op);
		put_str(&b, n->name);
		vta_buf_put_le32(&b, (uint32_t)n->n_in);
		for (int k = 0; k < n->n_in; k++)
			vta_buf_put_le32(&b, (uint32_t)ordinal(g, n->in[k]));
		put_type(&b, &n->type);
		put_attrs(&b, &n->a);
		uint8_t on = (uint8_t)n->on_vta;
		vta_buf_put(&b, &on, 1);
		int inline_data = n->op == VC_OP_CONST && n->a.dev_off < 0;
		size_t nd = inline_data ? vc_type_bytes(&n->type) : 0;
		vta_buf_put_le64(&b, nd);
		if (nd)
			vta_buf_put(&b, n->data, nd);
	}
	vta_buf_put_le32(&b, (uint32_t)g->n_inputs);
	for (int i = 0; i < g->n_inputs; i++)
		vta_buf_put_le32(&b, (uint32_t)ordinal(g, g->inputs[i]));
	vta_buf_put_le32(&b, (uint32_t)g->n_outputs);
	for (int i = 0; i < g->n_outputs; i++)
		vta_buf_put_le32(&b, (uint32_t)ordinal(g, g->outputs[i]));
	vta_buf_put_le32(&b, (uint32_t)m->n_kernels);
	for (int k = 0; k < m->n_kernels; k++) {
		const vc_kernel *kn = m->kernels[k];
		vta_buf_put_le32(&b, (uint32_t)ordinal(g, kn->node));
		vta_buf_put_le64(&b, (uint64_t)kn->insn_off);
		vta_buf_put_le64(&b, (uint64_t)kn->insn_count);
		vta_buf_put_le64(&b, (uint64_t)kn->uop_off);
		vta_buf_put_le64(&b, (uint64_t)kn->n_uops);
		vta_buf_put_le64(&b, (uint64_t)kn->macs);
		vta_buf_put_le32(&b, (uint32_t)kn->tile.th);
		vta_buf_put_le32(&b, (uint32_t)kn->tile.tco);
		vta_buf_put_le32(&b, (uint32_t)kn->tile.tci);
		vta_buf_put_le32(&b, (uint32_t)(kn->tile.pingpong | kn->tile.rows_outer << 1 | kn->tile.resident << 2));
	}
	/* only the part that may be non-zero is scanned: an arena is mostly zero */
	int64_t img = m->stream->used < m->stream->size ? m->stream->used : m->stream->size;
	while (img > 0 && m->stream->image[img - 1] == 0)
		img--;
	vta_buf_put_le64(&b, (uint64_t)m->stream->size);
	vta_buf_put_le64(&b, (uint64_t)img);
	vta_buf_put(&b, m->stream->image, (size_t)img);
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
