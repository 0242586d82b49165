/* SPDX-License-Identifier: Apache-2.0 */
/*
 * emit: place every device tensor, micro-op and instruction stream in one
 * device memory image, none across a segment boundary (ir/kernel.h), and
 * encode the instructions.
 */
#include <string.h>

#include "vta/codegen.h"

static int64_t align_up(int64_t v, int64_t a)
{
	return (v + a - 1) / a * a;
}

int64_t vc_arena_align(void)
{
	int64_t a = 256;
	if (VTA_WGT_ELEM_BYTES > a)
		a = VTA_WGT_ELEM_BYTES;
	if (VTA_ACC_ELEM_BYTES > a)
		a = VTA_ACC_ELEM_BYTES;
	return a;
}

/* The offset of a region of `bytes` at or after *off that does not cross a
 * segment boundary (kernel.h); *off moves past it. -1 if it is larger than a
 * segment. */
static int64_t place(int64_t *off, int64_t bytes, int64_t A)
{
	if (bytes > VC_SEGMENT_BYTES)
		return -1;
	int64_t at = *off;
	if (!vc_in_one_segment(at, bytes))
		at = align_up(at, VC_SEGMENT_BYTES);
	*off = align_up(at + bytes, A);
	return at;
}

static int emit_stream(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	int64_t A = vc_arena_align(), off = 0;
	vc_graph *g = m->g;
	for (int i = 0; i < g->n; i++) {
		vc_node *n = g->nodes[i];
		n->a.dev_off = -1;
		if (n->type.layout != VC_PACKED)
			continue;
		if ((n->a.dev_off = place(&off, (int64_t)vc_type_bytes(&n->type), A)) < 0)
			return vc_error(m, n, "emit: %zu bytes do not fit one device buffer of %lld bytes",
					vc_type_bytes(&n->type), (long long)VC_SEGMENT_BYTES);
	}
	for (int k = 0; k < m->n_kernels; k++) {
		vc_kernel *kn = m->kernels[k];
		kn->insn_count = kn->n;
		kn->uop_off = place(&off, 4 * (int64_t)kn->n_uops, A);
		kn->insn_off = place(&off, 16 * (int64_t)kn->n, A);
		if (kn->uop_off < 0 || kn->insn_off < 0)
			return vc_error(m, kn->node, "emit: kernel %d: %d micro-ops or %d instructions do not fit one device buffer", k,
					kn->n_uops, kn->n);
	}
	if (off > VC_MAX_ARENA)
		return vc_error(m, NULL, "emit: the network needs a %lld-byte device arena, more than the "
				"%lld a .vtam may hold", (long long)off, (long long)VC_MAX_ARENA);
	vc_stream *s = vc_alloc(m, sizeof *s);
	uint8_t *img = s ? vc_alloc(m, (size_t)(off ? off : 1)) : NULL;
	if (!img)
		return vc_error(m, NULL, "emit: out of memory for a %lld-byte image", (long long)off);
	s->image = img;
	s->size = off;
	s->used = off;
	for (int i = 0; i < g->n; i++) {
		vc_node *n = g->nodes[i];
		if (n->op == VC_OP_CONST && n->a.dev_off >= 0) {
			memcpy(img + n->a.dev_off, n->data, vc_type_bytes(&n->type));
			vc_stat_add(p, "weight-bytes", (int64_t)vc_type_bytes(&n->type));
		}
	}
	for (int k = 0; k < m->n_kernels; k++) {
		vc_kernel *kn = m->kernels[k];
		const vc_node *n = kn->node;
		int64_t argoff[VC_NARGS] = {n->in[0]->a.dev_off, n->in[1]->a.dev_off, n->in[2]->a.dev_off, n->a.dev_off,
					    kn->uop_off, n->n_in > 3 ? n->in[3]->a.dev_off : -1};
		for (int i = 0; i < kn->n_uops; i++) {
			uint32_t w = kn->uops[i];
			uint8_t *d = img + kn->uop_off + 4 * i;
			d[0] = (uint8_t)w, d[1] = (uint8_t)(w >> 8), d[2] = (uint8_t)(w >> 16), d[3] = (uint8_t)(w >> 24);
		}
		for (int i = 0; i < kn->n; i++) {
			vta_insn_t in = kn->code[i].insn;
			int arg = kn->code[i].arg;
			if (arg >= 0) {
				int64_t eb = vta_mem_elem_bytes(in.memory_type);
				if (argoff[arg] < 0 || eb == 0 || argoff[arg] % eb)
					return vc_error(m, n, "emit: kernel %d instruction %d has an unplaced operand", k, i);
				in.dram_base += (uint32_t)(argoff[arg] / eb);
			}
			vta_insn_word_t w;
			vta_error_t err;
			if (vta_insn_encode(&in, &w, &err))
				return vc_error(m, n, "emit: kernel %d instruction %d: %s", k, i, err.msg);
			vta_insn_store(&w, img + kn->insn_off + 16 * i);
		}
		vc_stat_add(p, "instructions", kn->n);
	}
	m->stream = s;
	vc_stat_add(p, "image-bytes", off);
	return 0;
}

const vc_pass_desc vc_pass_emit = {
	.name = "emit",
	.summary = "place tensors, micro-ops and instructions in one device image and encode them",
	.anchor = VC_ANCHOR_STREAM,
	.preserves = VC_PRESERVES_ALL, /* writes the stream only */
	.requires_props = VC_PROP_TOKENS | VC_PROP_PACKED,
	.provides_props = VC_PROP_EMITTED,
	.stats = {"instructions", "weight-bytes", "image-bytes"},
	.run = emit_stream,
};
