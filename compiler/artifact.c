/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .vtam artifact: everything needed to run a compiled model, in one
 * versioned, byte-reproducible file (all integers little-endian):
 *
 *   "VTAM" u32 version  u32 config_id  str config  u32 batch block_in block_out
 *   u32 n_nodes, per node: u32 op, str name, u32 n_in, u32 in[n_in] (node
 *       ordinals), type, attrs, u8 on_vta, u64 n_data + data (plain consts)
 *   u32 n_inputs, u32 ordinals; u32 n_outputs, u32 ordinals
 *   u32 n_kernels, per kernel: u32 node, i64 insn_off insn_count uop_off
 *       n_uops macs, u32 th tco tci pingpong
 *   i64 arena_size, i64 image_len, image bytes (the device memory image:
 *       packed weights and biases, micro-ops, instruction streams)
 *
 * Reading rebuilds the graph through the typed builder, so a file whose
 * stored types disagree with its ops is refused. Running binds the image to
 * a device context of the runtime (fsim, rtl, ...), relocates the
 * instructions' DRAM addresses and runs the graph, VTA kernels on the device
 * and the rest on the host.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vta/runtime.h>

#include "vc.h"

/* ---- writing --------------------------------------------------------- */

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

int vc_artifact_bytes(vc_module *m, uint8_t **bytes, size_t *len)
{
	if (!(m->props & VC_PROP_EMITTED) || !m->stream)
		return vc_error(m, NULL, "artifact: the module has not been through emit");
	wbuf b = {0};
	vc_graph *g = m->g;
	put(&b, VC_VTAM_MAGIC, 4);
	put_u32(&b, VC_VTAM_VERSION);
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
		put_u32(&b, (uint32_t)kn->tile.pingpong);
	}
	int64_t img = m->stream->size;
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

int vc_artifact_write(vc_module *m, const char *path)
{
	uint8_t *bytes;
	size_t len;
	if (vc_artifact_bytes(m, &bytes, &len))
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

/* ---- reading --------------------------------------------------------- */

typedef struct rbuf {
	const uint8_t *p;
	size_t n, at;
	int bad;
} rbuf;

static const uint8_t *take(rbuf *r, size_t n)
{
	if (r->bad || n > r->n - r->at) {
		r->bad = 1;
		return NULL;
	}
	const uint8_t *p = r->p + r->at;
	r->at += n;
	return p;
}

static uint64_t get_u64(rbuf *r)
{
	const uint8_t *d = take(r, 8);
	uint64_t v = 0;
	for (int i = 7; d && i >= 0; i--)
		v = v << 8 | d[i];
	return v;
}

static uint32_t get_u32(rbuf *r)
{
	const uint8_t *d = take(r, 4);
	return d ? (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24 : 0;
}

static double get_f64(rbuf *r)
{
	uint64_t u = get_u64(r);
	double v;
	memcpy(&v, &u, 8);
	return v;
}

static void get_str(rbuf *r, char *out, size_t n)
{
	uint32_t len = get_u32(r);
	const uint8_t *d = take(r, len);
	size_t k = d ? (len < n - 1 ? len : n - 1) : 0;
	if (k)
		memcpy(out, d, k);
	out[k] = 0;
}

static void get_attrs(rbuf *r, vc_attrs *a)
{
	for (int i = 0; i < 2; i++) {
		a->kernel[i] = (int64_t)get_u64(r);
		a->stride[i] = (int64_t)get_u64(r);
		a->dilation[i] = (int64_t)get_u64(r);
	}
	for (int i = 0; i < 4; i++)
		a->pad[i] = (int64_t)get_u64(r);
	a->group = (int64_t)get_u64(r);
	a->axis = (int64_t)get_u64(r);
	a->ceil_mode = (int)get_u32(r);
	a->count_include_pad = (int)get_u32(r);
	a->coerce2d = (int)get_u32(r);
	a->exp = (int32_t)get_u32(r);
	a->lo = get_f64(r);
	a->hi = get_f64(r);
	a->eps = get_f64(r);
	a->nshape = (int)get_u32(r);
	if (a->nshape < 0 || a->nshape > VC_MAX_RANK)
		r->bad = 1;
	for (int i = 0; i < VC_MAX_RANK; i++)
		a->shape[i] = (int64_t)get_u64(r);
	a->shift = (int32_t)get_u32(r);
	a->relu = (int)get_u32(r);
	a->qlo = (int64_t)get_u64(r);
	a->qhi = (int64_t)get_u64(r);
	a->dev_off = (int64_t)get_u64(r);
	a->kernel_id = (int32_t)get_u32(r);
}

static int get_type(rbuf *r, vc_type *t)
{
	memset(t, 0, sizeof *t);
	t->rank = (int)get_u32(r);
	if (t->rank < 0 || t->rank > VC_MAX_RANK)
		return -1;
	int64_t e = 1;
	for (int i = 0; i < t->rank; i++) {
		t->dim[i] = (int64_t)get_u64(r);
		if (t->dim[i] < 0 || t->dim[i] > (1 << 30) || (e *= t->dim[i] ? t->dim[i] : 1) > (1ll << 32))
			return -1;
	}
	t->dtype = (vc_dtype)get_u32(r);
	t->layout = (vc_layout)get_u32(r);
	t->quantized = (int)get_u32(r);
	t->exp = (int32_t)get_u32(r);
	return t->dtype > VC_I32 || t->layout > VC_PACKED ? -1 : 0;
}

int vc_artifact_parse(vc_module *m, const uint8_t *bytes, size_t len)
{
	rbuf r = {.p = bytes, .n = len};
	const uint8_t *magic = take(&r, 4);
	if (!magic || memcmp(magic, VC_VTAM_MAGIC, 4))
		return vc_error(m, NULL, "not a .vtam file (bad magic)");
	uint32_t ver = get_u32(&r);
	if (ver != VC_VTAM_VERSION)
		return vc_error(m, NULL, ".vtam version %u; this tool reads version %d", ver, VC_VTAM_VERSION);
	uint32_t id = get_u32(&r);
	char cfg[512];
	get_str(&r, cfg, sizeof cfg);
	if (!r.bad && id != m->target.config_id)
		return vc_error(m, NULL, "the model was compiled for VTA configuration 0x%08X (%s); this build is 0x%08X (%s)",
				id, cfg, m->target.config_id, VTA_CONFIG_CANONICAL);
	get_u32(&r), get_u32(&r), get_u32(&r);
	uint32_t nn = get_u32(&r);
	if (r.bad || nn > (1u << 20))
		return vc_error(m, NULL, ".vtam: truncated or bad node count");
	vc_node **ord = calloc(nn ? nn : 1, sizeof *ord);
	int64_t *data_off = calloc(nn ? nn : 1, sizeof *data_off);
	int rc = -1;
	if (!ord || !data_off) {
		vc_error(m, NULL, "out of memory");
		goto done;
	}
	for (uint32_t i = 0; i < nn; i++) {
		uint32_t op = get_u32(&r);
		char name[64];
		get_str(&r, name, sizeof name);
		uint32_t nin = get_u32(&r);
		if (r.bad || op >= VC_OP_COUNT || nin > 16) {
			vc_error(m, NULL, ".vtam: node %u is malformed", i);
			goto done;
		}
		vc_node *in[16];
		for (uint32_t k = 0; k < nin; k++) {
			uint32_t o = get_u32(&r);
			if (o >= i) {
				vc_error(m, NULL, ".vtam: node %u uses node %u, which is not before it", i, o);
				goto done;
			}
			in[k] = ord[o];
		}
		vc_type t;
		vc_attrs a;
		vc_attrs_init(&a);
		if (get_type(&r, &t)) {
			vc_error(m, NULL, ".vtam: node %u has a malformed type", i);
			goto done;
		}
		get_attrs(&r, &a);
		const uint8_t *on = take(&r, 1);
		uint64_t nd = get_u64(&r);
		const uint8_t *d = take(&r, nd);
		if (r.bad) {
			vc_error(m, NULL, ".vtam: truncated in node %u", i);
			goto done;
		}
		vc_node *n;
		if (op == VC_OP_INPUT) {
			n = vc_input(m, name, t.dtype, t.rank, t.dim);
		} else if (op == VC_OP_CONST) {
			if (nd && nd != vc_type_bytes(&t)) {
				vc_error(m, NULL, ".vtam: constant '%s' has %llu bytes for %zu", name, (unsigned long long)nd,
					 vc_type_bytes(&t));
				goto done;
			}
			n = vc_const(m, name, t.dtype, t.rank, t.dim, nd ? d : NULL);
			if (n) {
				n->type = t;
				n->a = a;
				data_off[i] = nd ? -1 : a.dev_off;
			}
		} else {
			n = vc_build(m, (vc_op)op, in, (int)nin, &a, name);
			if (n && !vc_type_equal(&n->type, &t)) {
				vc_error(m, n, ".vtam: stored type differs from the type of the op");
				goto done;
			}
		}
		if (!n)
			goto done;
		n->on_vta = on ? *on : 0;
		ord[i] = n;
	}
	uint32_t ni = get_u32(&r);
	vc_node *ins[8];
	for (uint32_t i = 0; i < ni && i < 8; i++) {
		uint32_t o = get_u32(&r);
		ins[i] = o < nn ? ord[o] : NULL;
	}
	uint32_t no = get_u32(&r);
	if (r.bad || ni < 1 || ni > 8 || no < 1 || no > 8) {
		vc_error(m, NULL, ".vtam: bad input/output lists");
		goto done;
	}
	for (uint32_t i = 0; i < ni; i++)
		if (!ins[i] || ins[i]->op != VC_OP_INPUT) {
			vc_error(m, NULL, ".vtam: input %u is not an input node", i);
			goto done;
		}
	m->g->n_inputs = (int)ni;
	memcpy(m->g->inputs, ins, ni * sizeof *ins);
	for (uint32_t i = 0; i < no; i++) {
		uint32_t o = get_u32(&r);
		if (o >= nn) {
			vc_error(m, NULL, ".vtam: output %u is not a node", i);
			goto done;
		}
		m->g->outputs[i] = ord[o];
	}
	m->g->n_outputs = (int)no;
	uint32_t nk = get_u32(&r);
	if (r.bad || nk > nn) {
		vc_error(m, NULL, ".vtam: bad kernel count");
		goto done;
	}
	m->kernels = vc_alloc(m, (nk ? nk : 1) * sizeof *m->kernels);
	if (!m->kernels) {
		vc_error(m, NULL, "out of memory");
		goto done;
	}
	for (uint32_t k = 0; k < nk; k++) {
		vc_kernel *kn = vc_alloc(m, sizeof *kn);
		uint32_t o = get_u32(&r);
		if (!kn || o >= nn || ord[o]->op != VC_OP_VTA_CONV || ord[o]->a.kernel_id != (int)k) {
			vc_error(m, NULL, ".vtam: kernel %u does not belong to a vta.conv node", k);
			goto done;
		}
		kn->id = (int)k;
		kn->node = ord[o];
		kn->insn_off = (int64_t)get_u64(&r);
		kn->insn_count = (int64_t)get_u64(&r);
		kn->uop_off = (int64_t)get_u64(&r);
		kn->n_uops = (int)get_u64(&r);
		kn->macs = (int64_t)get_u64(&r);
		kn->tile.th = (int)get_u32(&r);
		kn->tile.tco = (int)get_u32(&r);
		kn->tile.tci = (int)get_u32(&r);
		kn->tile.pingpong = (int)get_u32(&r);
		kn->tiled = 1;
		m->kernels[k] = kn;
	}
	m->n_kernels = (int)nk;
	int64_t size = (int64_t)get_u64(&r), img = (int64_t)get_u64(&r);
	if (r.bad || size < 0 || img < 0 || img > size || size > (1ll << 32)) {
		vc_error(m, NULL, ".vtam: bad image size");
		goto done;
	}
	const uint8_t *image = take(&r, (size_t)img);
	if (!image || r.at != r.n) {
		vc_error(m, NULL, ".vtam: %s", image ? "trailing bytes after the image" : "truncated image");
		goto done;
	}
	vc_stream *s = vc_alloc(m, sizeof *s);
	if (!s || !(s->image = vc_alloc(m, (size_t)(size ? size : 1)))) {
		vc_error(m, NULL, "out of memory");
		goto done;
	}
	memcpy(s->image, image, (size_t)img);
	s->size = size;
	m->stream = s;
	/* packed constants live in the image; everything placed must fit it */
	for (uint32_t i = 0; i < nn; i++) {
		vc_node *n = ord[i];
		if (n->a.dev_off >= 0 && (n->a.dev_off + (int64_t)vc_type_bytes(&n->type) > size)) {
			vc_error(m, n, ".vtam: device placement outside the image");
			goto done;
		}
		if (n->op == VC_OP_CONST && data_off[i] >= 0)
			memcpy(n->data, s->image + data_off[i], vc_type_bytes(&n->type));
	}
	for (int k = 0; k < m->n_kernels; k++) {
		vc_kernel *kn = m->kernels[k];
		if (kn->insn_off < 0 || kn->insn_count < 1 || kn->insn_off + 16 * kn->insn_count > size ||
		    kn->uop_off < 0 || kn->uop_off + 4 * (int64_t)kn->n_uops > size) {
			vc_error(m, kn->node, ".vtam: kernel %d lies outside the image", k);
			goto done;
		}
	}
	m->props = VC_PROP_IMPORTED | VC_PROP_EMITTED | VC_PROP_PACKED | VC_PROP_QUANTIZED;
	rc = vc_verify(m);
done:
	free(ord);
	free(data_off);
	return rc;
}

int vc_artifact_read(vc_module *m, const char *path)
{
	uint8_t *buf;
	size_t n;
	vta_error_t e;
	if (vta_read_file(path, &buf, &n, &e))
		return vc_error(m, NULL, "%s", e.msg);
	int rc = vc_artifact_parse(m, buf, n);
	free(buf);
	return rc;
}

/* ---- running --------------------------------------------------------- */

struct vc_runner {
	vc_module *m;
	vta_context_t *ctx;
	VTADeviceHandle dev;
	uint8_t *arena;
	vta_phy_addr_t phys;
	uint64_t runs, cycles, gemm_uops;
};

static int relocate(vc_module *m, uint8_t *arena, vta_phy_addr_t phys)
{
	for (int k = 0; k < m->n_kernels; k++) {
		vc_kernel *kn = m->kernels[k];
		for (int64_t i = 0; i < kn->insn_count; i++) {
			uint8_t *p = arena + kn->insn_off + 16 * i;
			vta_insn_word_t w;
			vta_insn_t in;
			vta_insn_load(p, &w);
			vta_insn_decode(&w, &in);
			if (in.opcode != VTA_OPCODE_LOAD && in.opcode != VTA_OPCODE_STORE)
				continue;
			uint32_t eb = vta_mem_elem_bytes(in.memory_type);
			if (!eb || phys % eb)
				return vc_error(m, kn->node, "kernel %d instruction %lld: cannot relocate", k, (long long)i);
			in.dram_base += (uint32_t)(phys / eb);
			vta_error_t err;
			if (vta_insn_encode(&in, &w, &err))
				return vc_error(m, kn->node, "relocating kernel %d: %s", k, err.msg);
			vta_insn_store(&w, p);
		}
	}
	return 0;
}

vc_runner *vc_runner_open(vc_module *m, const char *target, char *err, size_t n)
{
	vc_runner *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, n, "out of memory");
		return NULL;
	}
	r->m = m;
	vta_error_t e;
	vta_error_clear(&e);
	if (vta_context_open(target, &r->ctx, &e)) {
		snprintf(err, n, "cannot open VTA target '%s': %s", target ? target : "(default)", e.msg);
		free(r);
		return NULL;
	}
	if (vta_context_bind(r->ctx)) {
		snprintf(err, n, "cannot bind the VTA context: %s", vta_errmsg(NULL));
		vta_context_close(r->ctx);
		free(r);
		return NULL;
	}
	int64_t size = m->stream ? m->stream->size : 0;
	if (size > 0) {
		if (size > VTA_MAX_XFER) {
			snprintf(err, n, "the model needs %lld bytes of device memory in one buffer (at most %d)",
				 (long long)size, VTA_MAX_XFER);
			goto fail;
		}
		r->dev = VTADeviceAlloc();
		r->arena = VTAMemAlloc((size_t)size, VTA_NOT_CACHED);
		if (!r->arena || !r->dev) {
			snprintf(err, n, "cannot allocate %lld bytes of device memory: %s", (long long)size,
				 vta_errmsg(r->ctx));
			goto fail;
		}
		r->phys = VTAMemGetPhyAddr(r->arena);
		memcpy(r->arena, m->stream->image, (size_t)size);
		if (relocate(m, r->arena, r->phys)) {
			snprintf(err, n, "%s", m->diag.msg);
			goto fail;
		}
		VTAFlushCache(r->arena, r->phys, (int)size);
	}
	return r;
fail:
	vc_runner_close(r);
	return NULL;
}

void vc_runner_close(vc_runner *r)
{
	if (!r)
		return;
	vta_context_bind(r->ctx); /* several runners may be open: act on ours */
	if (r->arena)
		VTAMemFree(r->arena);
	if (r->dev)
		VTADeviceFree(r->dev);
	vta_context_bind(NULL);
	vta_context_close(r->ctx);
	free(r);
}

static int device_hook(void *ctx, vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out)
{
	vc_runner *r = ctx;
	const vc_node *x = n->in[0];
	vc_kernel *kn = n->a.kernel_id >= 0 && n->a.kernel_id < m->n_kernels ? m->kernels[n->a.kernel_id] : NULL;
	if (!kn || x->a.dev_off < 0 || n->a.dev_off < 0)
		return vc_error(m, n, "run: the kernel or its operands were not placed in device memory");
	size_t xb = vc_type_bytes(&x->type), yb = vc_type_bytes(&n->type);
	if (vta_context_bind(r->ctx))
		return vc_error(m, n, "run: cannot bind the runner's VTA context");
	memcpy(r->arena + x->a.dev_off, in[0].data, xb);
	VTAFlushCache(r->arena + x->a.dev_off, r->phys + (vta_phy_addr_t)x->a.dev_off, (int)xb);
	if (n->n_in > 3) { /* the residual */
		const vc_node *res = n->in[3];
		size_t rb = vc_type_bytes(&res->type);
		if (res->a.dev_off < 0)
			return vc_error(m, n, "run: the residual operand was not placed in device memory");
		memcpy(r->arena + res->a.dev_off, in[3].data, rb);
		VTAFlushCache(r->arena + res->a.dev_off, r->phys + (vta_phy_addr_t)res->a.dev_off, (int)rb);
	}
	if (VTADeviceRun(r->dev, r->phys + (vta_phy_addr_t)kn->insn_off, (uint32_t)kn->insn_count, 1u << 30))
		return vc_error(m, n, "run: kernel %d failed on the device: %s", kn->id, vta_errmsg(r->ctx));
	r->runs++;
	VTAInvalidateCache(r->arena + n->a.dev_off, r->phys + (vta_phy_addr_t)n->a.dev_off, (int)yb);
	if (vc_tensor_alloc(out, &n->type))
		return vc_error(m, n, "out of memory");
	memcpy(out->data, r->arena + n->a.dev_off, yb);
	return 0;
}

int vc_runner_run(vc_runner *r, const vc_tensor *inputs, vc_tensor *outputs)
{
	return vc_interp(r->m, inputs, outputs, NULL, device_hook, r);
}

void vc_runner_stats(vc_runner *r, uint64_t *runs, uint64_t *cycles, uint64_t *gemm_uops)
{
	vta_device_info_t info;
	memset(&info, 0, sizeof info);
	vta_context_info(r->ctx, &info);
	if (runs)
		*runs = r->runs;
	if (cycles)
		*cycles = info.counters.cycles;
	if (gemm_uops)
		*gemm_uops = info.counters.gemm_uops;
}

int vc_simulate(vc_module *m, const vc_tensor *inputs, vc_tensor *outputs)
{
	return vc_interp(m, inputs, outputs, NULL, NULL, NULL);
}
