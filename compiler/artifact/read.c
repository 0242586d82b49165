/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading a .vtam file (format: artifact.h). Every node is rebuilt through
 * the typed builder, so a file whose stored types disagree with its ops is
 * refused; every count, offset and size is checked against the file.
 */
#include <stdlib.h>
#include <string.h>

#include <vta/vtam.h>

#include "artifact/artifact.h"
#include "pass/pass.h"

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
	a->leaky = (int32_t)get_u32(r);
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

/* The GRAPH section. */
static int parse_graph(vc_module *m, const uint8_t *bytes, size_t len)
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
		if (n->a.dev_off >= 0 && (n->a.dev_off > size || (int64_t)vc_type_bytes(&n->type) > size - n->a.dev_off)) {
			vc_error(m, n, ".vtam: device placement outside the image");
			goto done;
		}
		if (n->a.dev_off >= 0 && !vc_in_one_segment(n->a.dev_off, (int64_t)vc_type_bytes(&n->type))) {
			vc_error(m, n, ".vtam: device placement at %lld crosses a %lld-byte buffer boundary",
				 (long long)n->a.dev_off, (long long)VC_SEGMENT_BYTES);
			goto done;
		}
		if (n->op == VC_OP_CONST && data_off[i] >= 0)
			memcpy(n->data, s->image + data_off[i], vc_type_bytes(&n->type));
	}
	for (int k = 0; k < m->n_kernels; k++) {
		vc_kernel *kn = m->kernels[k];
		/* compared by division, so corrupt counts cannot overflow */
		if (kn->insn_off < 0 || kn->insn_off > size || kn->insn_count < 1 ||
		    kn->insn_count > (size - kn->insn_off) / 16 || kn->uop_off < 0 || kn->uop_off > size || kn->n_uops < 0 ||
		    kn->n_uops > (size - kn->uop_off) / 4) {
			vc_error(m, kn->node, ".vtam: kernel %d lies outside the image", k);
			goto done;
		}
		if (!vc_in_one_segment(kn->insn_off, 16 * kn->insn_count) ||
		    !vc_in_one_segment(kn->uop_off, 4 * (int64_t)kn->n_uops)) {
			vc_error(m, kn->node, ".vtam: kernel %d crosses a %lld-byte buffer boundary", k,
				 (long long)VC_SEGMENT_BYTES);
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
	return parse_graph(m, g, n);
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
