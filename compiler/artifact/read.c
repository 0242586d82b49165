/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading a .vtam file: libvta checks the container (<vta/vtam.h>) and
 * decodes the GRAPH section (internal/vta/model/graph.h, where the format is
 * described and every count, offset and size is checked); the IR is rebuilt
 * from that decoding through the typed builder.
 */
#include <stdlib.h>
#include <string.h>

#include <vta/vtam.h>

#include "artifact/artifact.h"
#include "pass/pass.h"

/* The decoded attributes as the IR's (res_shift and the rest the builder
 * derives are computed again by vc_build). */
static void ir_attrs(const vta_mattrs_t *f, vc_attrs *a)
{
	for (int i = 0; i < 2; i++) {
		a->kernel[i] = f->kernel[i];
		a->stride[i] = f->stride[i];
		a->dilation[i] = f->dilation[i];
	}
	memcpy(a->pad, f->pad, sizeof a->pad);
	a->group = f->group;
	a->axis = f->axis;
	a->ceil_mode = f->ceil_mode;
	a->count_include_pad = f->count_include_pad;
	a->coerce2d = f->coerce2d;
	a->exp = f->exp;
	a->lo = f->lo;
	a->hi = f->hi;
	a->eps = f->eps;
	a->nshape = f->nshape;
	memcpy(a->shape, f->shape, sizeof a->shape);
	a->shift = f->shift;
	a->relu = f->relu;
	a->qlo = f->qlo;
	a->qhi = f->qhi;
	a->dev_off = f->dev_off;
	a->kernel_id = f->kernel_id;
	a->leaky = f->leaky;
	a->resize_mode = f->resize_mode;
	a->resize_coord = f->resize_coord;
	a->resize_round = f->resize_round;
	memcpy(a->scale, f->scale, sizeof a->scale);
	a->fn = f->fn;
	a->axes = f->axes;
	a->keepdims = f->keepdims;
	a->alpha = f->alpha;
	a->beta = f->beta;
}

static void ir_type(const vta_mtype_t *f, vc_type *t)
{
	memset(t, 0, sizeof *t);
	t->rank = f->rank;
	memcpy(t->dim, f->dim, sizeof t->dim);
	t->dtype = (vc_dtype)f->dtype;
	t->layout = (vc_layout)f->layout;
	t->quantized = f->quantized;
	t->exp = f->exp;
}

/* The format's op codes and dtypes are the IR's. */
#define SAME_OP(x) _Static_assert(VTA_MOP_##x == (int)VC_OP_##x, "graph.h op code " #x)
SAME_OP(INPUT);
SAME_OP(CONST);
SAME_OP(CONV);
SAME_OP(DENSE);
SAME_OP(MATMUL);
SAME_OP(ADD);
SAME_OP(MUL);
SAME_OP(RELU);
SAME_OP(CLIP);
SAME_OP(MAXPOOL);
SAME_OP(AVGPOOL);
SAME_OP(GAP);
SAME_OP(RESHAPE);
SAME_OP(FLATTEN);
SAME_OP(SOFTMAX);
SAME_OP(BATCHNORM);
SAME_OP(CONCAT);
SAME_OP(QUANTIZE);
SAME_OP(DEQUANTIZE);
SAME_OP(QCONV);
SAME_OP(QDENSE);
SAME_OP(REQUANT);
SAME_OP(QCONV_RQ);
SAME_OP(PACK);
SAME_OP(UNPACK);
SAME_OP(VTA_CONV);
SAME_OP(QADD);
SAME_OP(LEAKY);
SAME_OP(UPSAMPLE);
SAME_OP(ALIGN);
SAME_OP(YOLO);
SAME_OP(PAD);
SAME_OP(SIGMOID);
SAME_OP(TRANSPOSE);
SAME_OP(SLICE);
SAME_OP(RESIZE);
SAME_OP(UNARY);
SAME_OP(BINARY);
SAME_OP(REDUCE);
_Static_assert(VTA_MOP_REDUCE + 1 == (int)VC_OP_COUNT, "graph.h has a code for every IR op");
_Static_assert((int)VTA_RESIZE_LINEAR == (int)VC_RESIZE_LINEAR &&
		       (int)VTA_COORD_TF_HALF_PIXEL_FOR_NN == (int)VC_COORD_TF_HALF_PIXEL_FOR_NN &&
		       (int)VTA_ROUND_CEIL == (int)VC_ROUND_CEIL, "graph.h resize choices");
_Static_assert(VTA_MDT_F32 == (int)VC_F32 && VTA_MDT_I8 == (int)VC_I8 && VTA_MDT_I32 == (int)VC_I32, "graph.h dtypes");
_Static_assert(VTA_MGRAPH_MAX_RANK == VC_MAX_RANK && VTA_MGRAPH_SEGMENT == VC_SEGMENT_BYTES, "graph.h sizes");
_Static_assert(VTA_MGRAPH_MAX_IMAGE == VC_MAX_ARENA, "graph.h image limit");

/* The IR from libvta's decoding of the GRAPH section: every node rebuilt
 * through the typed builder, so stored types that disagree with their ops
 * are refused. */
static int build_ir(vc_module *m, const vta_mgraph_t *f)
{
	vc_node **ord = calloc(f->n_nodes ? f->n_nodes : 1, sizeof *ord);
	if (!ord)
		return vc_error(m, NULL, "out of memory");
	int rc = -1;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const vta_mnode_t *fn = &f->nodes[i];
		if (fn->op >= VC_OP_COUNT) {
			vc_error(m, NULL, ".vtam: node %u ('%s') has op code %u, unknown to this compiler", i, fn->name,
				 fn->op);
			goto done;
		}
		vc_node *in[VTA_MGRAPH_MAX_IN];
		for (int k = 0; k < fn->n_in; k++)
			in[k] = ord[fn->in[k]];
		vc_type t;
		vc_attrs a;
		vc_attrs_init(&a);
		ir_type(&fn->type, &t);
		ir_attrs(&fn->a, &a);
		vc_node *n;
		if (fn->op == VC_OP_INPUT) {
			n = vc_input(m, fn->name, t.dtype, t.rank, t.dim);
		} else if (fn->op == VC_OP_CONST) {
			n = vc_const(m, fn->name, t.dtype, t.rank, t.dim, fn->data);
			if (n) {
				n->type = t;
				n->a = a;
			}
		} else {
			n = vc_build(m, (vc_op)fn->op, in, fn->n_in, &a, fn->name);
			if (n && !vc_type_equal(&n->type, &t)) {
				vc_error(m, n, ".vtam: stored type differs from the type of the op");
				goto done;
			}
		}
		if (!n)
			goto done;
		n->on_vta = fn->on_vta;
		ord[i] = n;
	}
	m->g->n_inputs = f->n_inputs;
	for (int i = 0; i < f->n_inputs; i++)
		m->g->inputs[i] = ord[f->inputs[i]];
	m->g->n_outputs = f->n_outputs;
	for (int i = 0; i < f->n_outputs; i++)
		m->g->outputs[i] = ord[f->outputs[i]];
	m->kernels = vc_alloc(m, (f->n_kernels ? f->n_kernels : 1) * sizeof *m->kernels);
	vc_stream *s = vc_alloc(m, sizeof *s);
	if (!m->kernels || !s || !(s->image = vc_alloc(m, (size_t)(f->image_size ? f->image_size : 1)))) {
		vc_error(m, NULL, "out of memory");
		goto done;
	}
	for (uint32_t k = 0; k < f->n_kernels; k++) {
		const vta_mkernel_t *fk = &f->kernels[k];
		vc_kernel *kn = vc_alloc(m, sizeof *kn);
		if (!kn) {
			vc_error(m, NULL, "out of memory");
			goto done;
		}
		kn->id = (int)k;
		kn->node = ord[fk->node];
		kn->insn_off = fk->insn_off;
		kn->insn_count = fk->insn_count;
		kn->uop_off = fk->uop_off;
		kn->n_uops = (int)fk->n_uops;
		kn->macs = fk->macs;
		kn->tile.th = (int)fk->th;
		kn->tile.tco = (int)fk->tco;
		kn->tile.tci = (int)fk->tci;
		kn->tile.pingpong = fk->flags & 1; /* write.c: pingpong | rows_outer << 1 | resident << 2 */
		kn->tile.rows_outer = fk->flags >> 1 & 1;
		kn->tile.resident = fk->flags >> 2 & 1;
		kn->tiled = 1;
		m->kernels[k] = kn;
	}
	m->n_kernels = (int)f->n_kernels;
	memcpy(s->image, f->image, (size_t)f->image_size);
	s->size = f->image_size;
	s->used = f->image_size; /* the writer scans only this part for non-zero bytes */
	m->stream = s;
	m->props = VC_PROP_IMPORTED | VC_PROP_EMITTED | VC_PROP_PACKED | VC_PROP_QUANTIZED;
	rc = vc_verify(m);
done:
	free(ord);
	return rc;
}

/* The container first (<vta/vtam.h>): magic, version, checksum, section
 * bounds, configuration; then the GRAPH section. */
static int parse_file(vc_module *m, const uint8_t *bytes, size_t len, const char *what)
{
	vta_vtam_t v;
	vta_error_t e;
	if (vta_vtam_parse(bytes, len, what, &v, &e))
		return vc_error(m, NULL, "%s", e.msg);
	size_t n;
	const uint8_t *g = vta_vtam_section(&v, bytes, VTA_VTAM_GRAPH, &n);
	vta_mgraph_t f;
	int rc = vta_mgraph_decode(g, n, what, &f, &e) ? vc_error(m, NULL, "%s", e.msg) : build_ir(m, &f);
	vta_mgraph_free(&f);
	return rc;
}

int vc_artifact_parse(vc_module *m, const uint8_t *bytes, size_t len)
{
	return parse_file(m, bytes, len, "the model");
}

int vc_artifact_read(vc_module *m, const char *path)
{
	uint8_t *buf;
	size_t n;
	vta_error_t e;
	if (vta_read_file(path, &buf, &n, &e))
		return vc_error(m, NULL, "%s", e.msg);
	int rc = parse_file(m, buf, n, path);
	free(buf);
	return rc;
}
