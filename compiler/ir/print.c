/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The module as text: the graph in program order with types, attributes and
 * placement, one summary line per kernel, the stream size; and a hash of
 * that text (determinism checks).
 */
#include <stdlib.h>

#include "ir/ir.h"
#include "ir/kernel.h"

static void print_attrs(FILE *f, const vc_node *n)
{
	const vc_attrs *a = &n->a;
	switch (n->op) {
	case VC_OP_CONV:
	case VC_OP_QCONV:
	case VC_OP_QCONV_RQ:
	case VC_OP_VTA_CONV:
		fprintf(f, " {stride=%lldx%lld pad=%lld,%lld,%lld,%lld", (long long)a->stride[0], (long long)a->stride[1],
			(long long)a->pad[0], (long long)a->pad[1], (long long)a->pad[2], (long long)a->pad[3]);
		if (a->group != 1)
			fprintf(f, " group=%lld", (long long)a->group);
		if (a->dilation[0] != 1 || a->dilation[1] != 1)
			fprintf(f, " dilation=%lldx%lld", (long long)a->dilation[0], (long long)a->dilation[1]);
		if (n->op == VC_OP_VTA_CONV || n->op == VC_OP_QCONV_RQ)
			fprintf(f, " shift=%d relu=%d clip=%lld..%lld kernel=%d", a->shift, a->relu, (long long)a->qlo,
				(long long)a->qhi, a->kernel_id);
		if ((n->op == VC_OP_VTA_CONV || n->op == VC_OP_QCONV_RQ) && n->n_in > 3)
			fprintf(f, " residual-shift=%d", a->res_shift);
		if ((n->op == VC_OP_VTA_CONV || n->op == VC_OP_QCONV_RQ) && a->leaky)
			fprintf(f, " leaky=2^-%d", a->leaky);
		fprintf(f, "}");
		break;
	case VC_OP_MAXPOOL:
	case VC_OP_AVGPOOL:
		fprintf(f, " {kernel=%lldx%lld stride=%lldx%lld pad=%lld,%lld,%lld,%lld%s}", (long long)a->kernel[0],
			(long long)a->kernel[1], (long long)a->stride[0], (long long)a->stride[1], (long long)a->pad[0],
			(long long)a->pad[1], (long long)a->pad[2], (long long)a->pad[3], a->ceil_mode ? " ceil" : "");
		break;
	case VC_OP_CLIP:
		fprintf(f, " {lo=%g hi=%g}", a->lo, a->hi);
		break;
	case VC_OP_PAD:
		fprintf(f, " {pad=%lld,%lld,%lld,%lld value=%g}", (long long)a->pad[0], (long long)a->pad[1],
			(long long)a->pad[2], (long long)a->pad[3], a->lo);
		break;
	case VC_OP_QUANTIZE:
		if (a->qlo != -127 || a->qhi != 127)
			fprintf(f, " {clip=%lld..%lld}", (long long)a->qlo, (long long)a->qhi);
		break;
	case VC_OP_REQUANT:
		fprintf(f, " {shift=%d relu=%d clip=%lld..%lld", a->shift, a->relu, (long long)a->qlo, (long long)a->qhi);
		if (a->leaky)
			fprintf(f, " leaky=2^-%d", a->leaky);
		fprintf(f, "}");
		break;
	case VC_OP_LEAKY:
		fprintf(f, " {slope=2^-%d}", a->leaky);
		break;
	case VC_OP_UPSAMPLE:
		fprintf(f, " {stride=%lldx%lld}", (long long)a->stride[0], (long long)a->stride[1]);
		break;
	case VC_OP_YOLO:
		fprintf(f, " {classes=%lld}", (long long)a->axis);
		break;
	case VC_OP_FLATTEN:
	case VC_OP_SOFTMAX:
	case VC_OP_CONCAT:
		fprintf(f, " {axis=%lld}", (long long)a->axis);
		break;
	default:
		break;
	}
}

void vc_print_graph(FILE *f, const vc_module *m)
{
	const vc_graph *g = m->g;
	fprintf(f, "graph @main(");
	for (int i = 0; i < g->n_inputs; i++)
		fprintf(f, "%s%%%d", i ? ", " : "", g->inputs[i]->id);
	fprintf(f, ") {\n");
	for (int i = 0; i < g->n; i++) {
		const vc_node *n = g->nodes[i];
		char ty[128];
		vc_type_str(&n->type, ty, sizeof ty);
		fprintf(f, "  %%%d = %s(", n->id, vc_op_name(n->op));
		for (int k = 0; k < n->n_in; k++)
			fprintf(f, "%s%%%d", k ? ", " : "", n->in[k]->id);
		fprintf(f, ")");
		print_attrs(f, n);
		fprintf(f, " : %s%s  # %s\n", ty, n->on_vta ? " @vta" : "", n->name);
	}
	fprintf(f, "  return");
	for (int i = 0; i < g->n_outputs; i++)
		fprintf(f, "%s %%%d", i ? "," : "", g->outputs[i]->id);
	fprintf(f, "\n}\n");
	for (int k = 0; k < m->n_kernels; k++) {
		const vc_kernel *kn = m->kernels[k];
		fprintf(f, "kernel @k%d for %%%d {tile th=%d tco=%d tci=%d pingpong=%d; %d insns, %d uops}\n", kn->id,
			kn->node->id, kn->tile.th, kn->tile.tco, kn->tile.tci, kn->tile.pingpong, kn->n, kn->n_uops);
	}
	if (m->stream)
		fprintf(f, "stream {%lld bytes}\n", (long long)m->stream->size);
}

uint64_t vc_hash_module(const vc_module *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return 0;
	vc_print_graph(f, m);
	fclose(f);
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)buf[i]) * 1099511628211ull;
	free(buf);
	return h;
}
