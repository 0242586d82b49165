/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The module as text (docs/passes.md, "Textual IR"): a header with the
 * configuration, the properties that hold and the next node id; the graph
 * in program order, every node with its id, op, operands, the attributes
 * that differ from their defaults (and the ones its op always shows), its
 * type, its placement and its name; constants in hex. parse.c reads this
 * text back to the same module, so printing, parsing and printing again
 * gives the same bytes. Kernels and the stream follow the graph.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/kernel.h"

/* Attributes an op always shows (readability); any other field is shown
 * when it differs from vc_attrs_init's default. */
enum { SHOW_STRIDE = 1, SHOW_PAD = 2, SHOW_WINDOW = 4, SHOW_AXIS = 8, SHOW_RQ = 16 };

static unsigned shown(vc_op op)
{
	switch (op) {
	case VC_OP_CONV:
	case VC_OP_QCONV:
		return SHOW_STRIDE | SHOW_PAD;
	case VC_OP_QCONV_RQ:
	case VC_OP_VTA_CONV:
		return SHOW_STRIDE | SHOW_PAD | SHOW_RQ;
	case VC_OP_MAXPOOL:
	case VC_OP_AVGPOOL:
		return SHOW_STRIDE | SHOW_PAD | SHOW_WINDOW;
	case VC_OP_REQUANT:
		return SHOW_RQ;
	case VC_OP_UPSAMPLE:
		return SHOW_STRIDE;
	case VC_OP_FLATTEN:
	case VC_OP_SOFTMAX:
	case VC_OP_CONCAT:
	case VC_OP_YOLO:
		return SHOW_AXIS;
	default:
		return 0;
	}
}

static void sep(FILE *f, int *first)
{
	fputs(*first ? " {" : " ", f);
	*first = 0;
}

static void print_attrs(FILE *f, const vc_node *n)
{
	const vc_attrs *a = &n->a;
	vc_attrs d;
	vc_attrs_init(&d);
	unsigned s = shown(n->op);
	int first = 1;
	if ((s & SHOW_WINDOW) || a->kernel[0] != d.kernel[0] || a->kernel[1] != d.kernel[1]) {
		sep(f, &first);
		fprintf(f, "window=%" PRId64 "x%" PRId64, a->kernel[0], a->kernel[1]);
	}
	if ((s & SHOW_STRIDE) || a->stride[0] != d.stride[0] || a->stride[1] != d.stride[1]) {
		sep(f, &first);
		fprintf(f, "stride=%" PRId64 "x%" PRId64, a->stride[0], a->stride[1]);
	}
	if ((s & SHOW_PAD) || memcmp(a->pad, d.pad, sizeof a->pad)) {
		sep(f, &first);
		fprintf(f, "pad=%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64, a->pad[0], a->pad[1], a->pad[2], a->pad[3]);
	}
	if (a->dilation[0] != d.dilation[0] || a->dilation[1] != d.dilation[1]) {
		sep(f, &first);
		fprintf(f, "dilation=%" PRId64 "x%" PRId64, a->dilation[0], a->dilation[1]);
	}
	if (a->group != d.group) {
		sep(f, &first);
		fprintf(f, "group=%" PRId64, a->group);
	}
	if ((s & SHOW_AXIS) || a->axis != d.axis) {
		sep(f, &first);
		fprintf(f, "axis=%" PRId64, a->axis);
	}
	if (a->ceil_mode) {
		sep(f, &first);
		fprintf(f, "ceil=%d", a->ceil_mode);
	}
	if (a->count_include_pad) {
		sep(f, &first);
		fprintf(f, "count-include-pad=%d", a->count_include_pad);
	}
	if (a->coerce2d) {
		sep(f, &first);
		fprintf(f, "coerce2d=%d", a->coerce2d);
	}
	if (a->exp != d.exp) {
		sep(f, &first);
		fprintf(f, "exp=%d", a->exp);
	}
	if (a->lo != d.lo) {
		sep(f, &first);
		fprintf(f, "lo=%.17g", a->lo);
	}
	if (a->hi != d.hi) {
		sep(f, &first);
		fprintf(f, "hi=%.17g", a->hi);
	}
	if (a->eps != d.eps) {
		sep(f, &first);
		fprintf(f, "eps=%.17g", a->eps);
	}
	if (a->nshape) {
		sep(f, &first);
		fputs("shape=", f);
		for (int i = 0; i < a->nshape; i++)
			fprintf(f, "%s%" PRId64, i ? "," : "", a->shape[i]);
	}
	if ((s & SHOW_RQ) || a->shift != d.shift || a->relu != d.relu || a->qlo != d.qlo || a->qhi != d.qhi) {
		sep(f, &first);
		fprintf(f, "shift=%d relu=%d clip=%" PRId64 "..%" PRId64, a->shift, a->relu, a->qlo, a->qhi);
	}
	if (a->res_shift != d.res_shift) {
		sep(f, &first);
		fprintf(f, "residual-shift=%d", a->res_shift);
	}
	if (a->leaky != d.leaky) {
		sep(f, &first);
		fprintf(f, "leaky=%d", a->leaky);
	}
	if (n->op == VC_OP_RESIZE) {
		sep(f, &first);
		fprintf(f, "resize=%d,%d,%d scale=%.17gx%.17g", a->resize_mode, a->resize_coord, a->resize_round, a->scale[0],
			a->scale[1]);
	}
	if (n->op == VC_OP_UNARY || n->op == VC_OP_BINARY || n->op == VC_OP_REDUCE) {
		sep(f, &first);
		fprintf(f, "fn=%d", a->fn);
		if (n->op == VC_OP_REDUCE)
			fprintf(f, " axes=%d keepdims=%d", a->axes, a->keepdims);
		if (a->alpha != 0 || a->beta != 0)
			fprintf(f, " alpha=%.17g beta=%.17g", a->alpha, a->beta);
	}
	if (a->kernel_id != d.kernel_id) {
		sep(f, &first);
		fprintf(f, "kernel=@k%d", a->kernel_id);
	}
	if (a->dev_off != d.dev_off) {
		sep(f, &first);
		fprintf(f, "dev-off=%" PRId64, a->dev_off);
	}
	if (!first)
		fputc('}', f);
}

/* A string in double quotes; '"', '\\' and bytes outside printable ASCII
 * as \xHH, so any name survives the round trip. */
void vc_print_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\' || *p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Payloads (constants, the device image): hex bytes in memory order, 32
 * bytes a line (a table and one write a line: weights of real networks are
 * megabytes). */
static void print_hex(FILE *f, const uint8_t *p, size_t bytes, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	if ((flags & VC_PRINT_ELIDE) && bytes > 32) {
		fprintf(f, " = [... %zu bytes]", bytes);
		return;
	}
	fputs(" = [", f);
	char line[5 + 64];
	for (size_t i = 0; i < bytes; i += 32) {
		size_t k = 0, e = bytes - i < 32 ? bytes - i : 32;
		if (bytes > 32) {
			memcpy(line, "\n    ", 5);
			k = 5;
		}
		for (size_t j = 0; j < e; j++) {
			line[k++] = hex[p[i + j] >> 4];
			line[k++] = hex[p[i + j] & 15];
		}
		fwrite(line, 1, k, f);
	}
	fputs(bytes > 32 ? "\n  ]" : "]", f);
}

static const char *const arg_names[VC_NARGS] = {"inp", "wgt", "bias", "out", "uop", "res"};
static const char *const res_names[VC_NRES] = {"inp0", "inp1", "wgt0", "wgt1", "acc0", "acc1", "uop", "rin0", "rin1", "wid"};

const char *vc_kernel_arg_name(int arg)
{
	return arg >= 0 && arg < VC_NARGS ? arg_names[arg] : NULL;
}

const char *vc_kernel_res_name(int res)
{
	return res >= 0 && res < VC_NRES ? res_names[res] : NULL;
}

static void print_res(FILE *f, const char *key, uint32_t mask)
{
	fprintf(f, " %s=", key);
	if (!mask)
		fputc('-', f);
	for (int r = 0, first = 1; r < VC_NRES; r++)
		if (mask & (1u << r)) {
			fprintf(f, "%s%s", first ? "" : "+", res_names[r]);
			first = 0;
		}
}

/* A kernel: its tiling and placement, the micro-ops (dst,src,wgt; a word
 * that is not the canonical encoding of its fields as =0xHEX), and one
 * instruction a line in the assembler's syntax (docs/assembly.md) after
 * the operand its DRAM address is relative to and the SRAM regions it
 * reads and writes. */
void vc_print_kernel(FILE *f, const vc_kernel *kn, unsigned flags)
{
	(void)flags;
	fprintf(f, "kernel @k%d for %%%d {th=%d tco=%d tci=%d pingpong=%d tiled=%d insn-off=%" PRId64 " insn-count=%" PRId64
		   " uop-off=%" PRId64 " macs=%" PRId64 "%s%s} {\n",
		kn->id, kn->node->id, kn->tile.th, kn->tile.tco, kn->tile.tci, kn->tile.pingpong, kn->tiled, kn->insn_off,
		kn->insn_count, kn->uop_off, kn->macs, kn->tile.rows_outer ? " rows-outer=1" : "",
		kn->tile.resident ? " resident=1" : "");
	if (kn->n_uops) {
		fprintf(f, "  uops [");
		for (int i = 0; i < kn->n_uops; i++) {
			vta_uop_t u;
			uint32_t w = 0;
			vta_error_t err;
			vta_uop_decode(kn->uops[i], &u);
			if (i % 8 == 0)
				fputs("\n   ", f);
			if (!vta_uop_encode(&u, &w, &err) && w == kn->uops[i])
				fprintf(f, " %u,%u,%u", u.dst_idx, u.src_idx, u.wgt_idx);
			else
				fprintf(f, " =0x%08" PRIx32, kn->uops[i]);
		}
		fprintf(f, "\n  ]\n");
	}
	for (int i = 0; i < kn->n; i++) {
		const vc_kinsn *ki = &kn->code[i];
		char line[256];
		vta_insn_format(&ki->insn, line, sizeof line);
		fprintf(f, "  {arg=%s", ki->arg >= 0 && ki->arg < VC_NARGS ? arg_names[ki->arg] : "-");
		print_res(f, "reads", ki->reads);
		print_res(f, "writes", ki->writes);
		fprintf(f, "} %s\n", line);
	}
	fprintf(f, "}\n");
}

static void print_header(FILE *f, const vc_module *m)
{
	const vc_target *t = &m->target;
	fprintf(f, "module {config=0x%08" PRIx32 " batch=%d block-in=%d block-out=%d props=", t->config_id, t->batch,
		t->block_in, t->block_out);
	int first = 1;
	for (int b = 0; b < VC_PROP_COUNT_; b++)
		if (m->props & (1ull << b)) {
			fprintf(f, "%s%s", first ? "" : ",", vc_prop_name(b));
			first = 0;
		}
	if (first)
		fputs("none", f);
	fprintf(f, " next-id=%d}\n", m->g->next_id);
}

void vc_print_module(FILE *f, const vc_module *m, unsigned flags)
{
	const vc_graph *g = m->g;
	print_header(f, m);
	fprintf(f, "graph @main(");
	for (int i = 0; i < g->n_inputs; i++)
		fprintf(f, "%s%%%d", i ? ", " : "", g->inputs[i]->id);
	fprintf(f, ") {\n");
	for (int i = 0; i < g->n; i++) {
		const vc_node *n = g->nodes[i];
		char ty[160];
		vc_type_str(&n->type, ty, sizeof ty);
		fprintf(f, "  %%%d = %s(", n->id, vc_op_name(n->op));
		for (int k = 0; k < n->n_in; k++)
			fprintf(f, "%s%%%d", k ? ", " : "", n->in[k]->id);
		fprintf(f, ")");
		print_attrs(f, n);
		fprintf(f, " : %s%s ", ty, n->on_vta ? " @vta" : "");
		vc_print_quoted(f, n->name);
		if (n->op == VC_OP_CONST)
			print_hex(f, n->data, vc_type_bytes(&n->type), flags);
		fputc('\n', f);
	}
	fprintf(f, "  return");
	for (int i = 0; i < g->n_outputs; i++)
		fprintf(f, "%s %%%d", i ? "," : "", g->outputs[i]->id);
	fprintf(f, "\n}\n");
	for (int k = 0; k < m->n_kernels; k++)
		vc_print_kernel(f, m->kernels[k], flags);
	if (m->stream) {
		fprintf(f, "stream {size=%" PRId64 " used=%" PRId64 "}", m->stream->size, m->stream->used);
		print_hex(f, m->stream->image, (size_t)m->stream->size, flags);
		fputc('\n', f);
	}
}

void vc_print_graph(FILE *f, const vc_module *m)
{
	vc_print_module(f, m, VC_PRINT_ELIDE);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const uint8_t *)p)[i]) * 1099511628211ull;
	return h;
}

/* The elided text plus every constant's bytes: as exact as the full text,
 * without formatting megabytes of hex. */
uint64_t vc_hash_module(const vc_module *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return 0;
	vc_print_module(f, m, VC_PRINT_ELIDE);
	fclose(f);
	uint64_t h = fnv(1469598103934665603ull, buf, len);
	free(buf);
	for (int i = 0; i < m->g->n; i++)
		if (m->g->nodes[i]->op == VC_OP_CONST)
			h = fnv(h, m->g->nodes[i]->data, vc_type_bytes(&m->g->nodes[i]->type));
	return h;
}
