/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decoding the GRAPH section of a .vtam file (format: graph.h). Every count,
 * ordinal, offset and size comes from the file, so each is checked before
 * it is used, in arithmetic that cannot overflow.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <vta/bytes.h>

#include <vta/model/graph.h>

typedef struct rbuf {
	const uint8_t *p;
	size_t n, at;
	int bad;
} rbuf;

static const uint8_t *take(rbuf *r, uint64_t n)
{
	if (r->bad || n > r->n - r->at) {
		r->bad = 1;
		return NULL;
	}
	const uint8_t *p = r->p + r->at;
	r->at += (size_t)n;
	return p;
}

static uint32_t get_u32(rbuf *r)
{
	const uint8_t *d = take(r, 4);
	return d ? vta_rd_le32(d) : 0;
}

static uint64_t get_u64(rbuf *r)
{
	uint64_t lo = get_u32(r);
	return lo | (uint64_t)get_u32(r) << 32;
}

static int64_t get_i64(rbuf *r) { return (int64_t)get_u64(r); }

static int get_int(rbuf *r) { return (int)(int32_t)get_u32(r); }

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

size_t vta_mdtype_size(uint32_t dtype)
{
	return dtype == VTA_MDT_I8 ? 1 : dtype == VTA_MDT_F32 || dtype == VTA_MDT_I32 ? 4 : 0;
}

int64_t vta_mtype_elems(const vta_mtype_t *t)
{
	int64_t e = 1;
	for (int i = 0; i < t->rank; i++)
		e *= t->dim[i];
	return e;
}

int64_t vta_mtype_bytes(const vta_mtype_t *t)
{
	return vta_mtype_elems(t) * (int64_t)vta_mdtype_size(t->dtype);
}

int vta_mtype_same_dims(const vta_mtype_t *a, const vta_mtype_t *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dim[i] != b->dim[i])
			return 0;
	return 1;
}

/* A type with at most 2^32 elements of a known dtype (so sizes fit int64). */
static int get_type(rbuf *r, vta_mtype_t *t)
{
	memset(t, 0, sizeof *t);
	uint32_t rank = get_u32(r);
	if (rank > VTA_MGRAPH_MAX_RANK)
		return -1;
	t->rank = (int)rank;
	int64_t e = 1;
	for (int i = 0; i < t->rank; i++) {
		t->dim[i] = get_i64(r);
		if (t->dim[i] < 0 || t->dim[i] > (1 << 30) || (e *= t->dim[i] ? t->dim[i] : 1) > (1ll << 32))
			return -1;
	}
	t->dtype = get_u32(r);
	t->layout = get_u32(r);
	t->quantized = get_int(r);
	t->exp = get_int(r);
	return !vta_mdtype_size(t->dtype) || t->layout > 1 ? -1 : 0;
}

static int get_attrs(rbuf *r, vta_mattrs_t *a)
{
	for (int i = 0; i < 2; i++) {
		a->kernel[i] = get_i64(r);
		a->stride[i] = get_i64(r);
		a->dilation[i] = get_i64(r);
	}
	for (int i = 0; i < 4; i++)
		a->pad[i] = get_i64(r);
	a->group = get_i64(r);
	a->axis = get_i64(r);
	a->ceil_mode = get_int(r);
	a->count_include_pad = get_int(r);
	a->coerce2d = get_int(r);
	a->exp = get_int(r);
	a->lo = get_f64(r);
	a->hi = get_f64(r);
	a->eps = get_f64(r);
	a->nshape = get_int(r);
	for (int i = 0; i < VTA_MGRAPH_MAX_RANK; i++)
		a->shape[i] = get_i64(r);
	a->shift = get_int(r);
	a->relu = get_int(r);
	a->qlo = get_i64(r);
	a->qhi = get_i64(r);
	a->dev_off = get_i64(r);
	a->kernel_id = get_int(r);
	a->leaky = get_int(r);
	a->resize_mode = get_int(r);
	a->resize_coord = get_int(r);
	a->resize_round = get_int(r);
	a->scale[0] = get_f64(r);
	a->scale[1] = get_f64(r);
	a->fn = get_int(r);
	a->axes = get_int(r);
	a->keepdims = get_int(r);
	a->alpha = get_f64(r);
	a->beta = get_f64(r);
	return a->nshape < 0 || a->nshape > VTA_MGRAPH_MAX_RANK ? -1 : 0;
}

static int in_one_segment(int64_t off, int64_t bytes)
{
	return off >= 0 && bytes >= 0 && bytes <= VTA_MGRAPH_SEGMENT &&
	       (bytes == 0 || off / VTA_MGRAPH_SEGMENT == (off + bytes - 1) / VTA_MGRAPH_SEGMENT);
}

void vta_mgraph_free(vta_mgraph_t *g)
{
	if (!g)
		return;
	free(g->nodes);
	free(g->kernels);
	free(g->image);
	memset(g, 0, sizeof *g);
}

static int decode_nodes(rbuf *r, const char *what, vta_mgraph_t *g, vta_error_t *err)
{
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		vta_mnode_t *n = &g->nodes[i];
		n->op = get_u32(r);
		get_str(r, n->name, sizeof n->name);
		uint32_t nin = get_u32(r);
		if (r->bad || nin > VTA_MGRAPH_MAX_IN)
			return vta_error_set(err, VTA_EINVAL, -1, "%s: node %" PRIu32 " is truncated or has %" PRIu32
					     " operands (at most %d)", what, i, nin, VTA_MGRAPH_MAX_IN);
		n->n_in = (int)nin;
		for (uint32_t k = 0; k < nin; k++)
			if ((n->in[k] = get_u32(r)) >= i && !r->bad)
				return vta_error_set(err, VTA_EINVAL, -1, "%s: node %" PRIu32 " ('%s') uses node %" PRIu32
						     ", which is not before it", what, i, n->name, n->in[k]);
		if (get_type(r, &n->type))
			return vta_error_set(err, VTA_EINVAL, -1, "%s: node %" PRIu32 " ('%s') has a malformed type",
					     what, i, n->name);
		if (get_attrs(r, &n->a))
			return vta_error_set(err, VTA_EINVAL, -1, "%s: node %" PRIu32 " ('%s') has a shape attribute of"
					     " rank %d", what, i, n->name, n->a.nshape);
		const uint8_t *on = take(r, 1);
		n->on_vta = on ? *on : 0;
		uint64_t nd = get_u64(r);
		const uint8_t *d = take(r, nd);
		if (r->bad)
			return vta_error_set(err, VTA_EINVAL, -1, "%s: truncated in node %" PRIu32 " ('%s')", what, i,
					     n->name);
		if (nd && (n->op != VTA_MOP_CONST || nd != (uint64_t)vta_mtype_bytes(&n->type)))
			return vta_error_set(err, VTA_EINVAL, -1, "%s: node %" PRIu32 " ('%s') carries %" PRIu64
					     " bytes of data for a %s of %" PRId64 " bytes", what, i, n->name, nd,
					     n->op == VTA_MOP_CONST ? "constant" : "non-constant",
					     vta_mtype_bytes(&n->type));
		n->data = nd ? d : NULL;
	}
	return 0;
}

static int decode_io(rbuf *r, const char *what, vta_mgraph_t *g, vta_error_t *err)
{
	for (int list = 0; list < 2; list++) {
		uint32_t cnt = get_u32(r);
		if (r->bad || cnt < 1 || cnt > VTA_MGRAPH_MAX_IO)
			return vta_error_set(err, VTA_EINVAL, -1, "%s: %" PRIu32 " graph %s (1 to %d)", what, cnt,
					     list ? "outputs" : "inputs", VTA_MGRAPH_MAX_IO);
		uint32_t *ord = list ? g->outputs : g->inputs;
		for (uint32_t i = 0; i < cnt; i++) {
			ord[i] = get_u32(r);
			if (!r->bad && (ord[i] >= g->n_nodes || (!list && g->nodes[ord[i]].op != VTA_MOP_INPUT)))
				return vta_error_set(err, VTA_EINVAL, -1, "%s: graph %s %" PRIu32 " is node %" PRIu32
						     ", not %s", what, list ? "output" : "input", i, ord[i],
						     list ? "a node" : "an input node");
		}
		*(list ? &g->n_outputs : &g->n_inputs) = (int)cnt;
	}
	return 0;
}

static int decode_kernels(rbuf *r, const char *what, vta_mgraph_t *g, vta_error_t *err)
{
	uint32_t nk = get_u32(r);
	if (r->bad || nk > g->n_nodes)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: %" PRIu32 " kernels for %" PRIu32 " nodes", what, nk,
				     g->n_nodes);
	if (!(g->kernels = calloc(nk ? nk : 1, sizeof *g->kernels)))
		return vta_error_set(err, VTA_ENOMEM, -1, "%s: out of memory for %" PRIu32 " kernels", what, nk);
	g->n_kernels = nk;
	for (uint32_t k = 0; k < nk; k++) {
		vta_mkernel_t *kn = &g->kernels[k];
		kn->node = get_u32(r);
		if (!r->bad && (kn->node >= g->n_nodes || g->nodes[kn->node].op != VTA_MOP_VTA_CONV ||
				g->nodes[kn->node].a.kernel_id != (int)k))
			return vta_error_set(err, VTA_EINVAL, -1, "%s: kernel %" PRIu32 " does not belong to a vta.conv"
					     " node", what, k);
		kn->insn_off = get_i64(r);
		kn->insn_count = get_i64(r);
		kn->uop_off = get_i64(r);
		kn->n_uops = get_i64(r);
		kn->macs = get_i64(r);
		kn->th = get_u32(r);
		kn->tco = get_u32(r);
		kn->tci = get_u32(r);
		kn->flags = get_u32(r);
	}
	return 0;
}

/* Placements and kernels inside the image and inside one device buffer. */
static int check_image(const char *what, vta_mgraph_t *g, vta_error_t *err)
{
	int64_t size = g->image_size;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		vta_mnode_t *n = &g->nodes[i];
		int64_t off = n->a.dev_off, bytes = vta_mtype_bytes(&n->type);
		if (off < 0)
			continue;
		if (off > size || bytes > size - off)
			return vta_error_set(err, VTA_ERANGE, -1, "%s: node %" PRIu32 " ('%s'): device placement at %"
					     PRId64 " (%" PRId64 " bytes) outside the %" PRId64 "-byte image", what, i,
					     n->name, off, bytes, size);
		if (!in_one_segment(off, bytes))
			return vta_error_set(err, VTA_ERANGE, -1, "%s: node %" PRIu32 " ('%s'): device placement at %"
					     PRId64 " crosses a %" PRId64 "-byte buffer boundary", what, i, n->name, off,
					     VTA_MGRAPH_SEGMENT);
		if (n->op == VTA_MOP_CONST && !n->data)
			n->data = g->image + off;
	}
	for (uint32_t k = 0; k < g->n_kernels; k++) {
		const vta_mkernel_t *kn = &g->kernels[k];
		if (kn->insn_off < 0 || kn->insn_off > size || kn->insn_count < 1 ||
		    kn->insn_count > (size - kn->insn_off) / 16 || kn->uop_off < 0 || kn->uop_off > size ||
		    kn->n_uops < 0 || kn->n_uops > (size - kn->uop_off) / 4)
			return vta_error_set(err, VTA_ERANGE, -1, "%s: kernel %" PRIu32 " lies outside the image", what,
					     k);
		if (!in_one_segment(kn->insn_off, 16 * kn->insn_count) ||
		    !in_one_segment(kn->uop_off, 4 * kn->n_uops))
			return vta_error_set(err, VTA_ERANGE, -1, "%s: kernel %" PRIu32 " crosses a %" PRId64
					     "-byte buffer boundary", what, k, VTA_MGRAPH_SEGMENT);
	}
	for (uint32_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].op == VTA_MOP_CONST && !g->nodes[i].data && vta_mtype_bytes(&g->nodes[i].type))
			return vta_error_set(err, VTA_EINVAL, -1, "%s: constant node %" PRIu32 " ('%s') has no data",
					     what, i, g->nodes[i].name);
	return 0;
}

int vta_mgraph_decode(const uint8_t *bytes, size_t len, const char *what, vta_mgraph_t *g,
		      vta_error_t *err)
{
	memset(g, 0, sizeof *g);
	rbuf r = {.p = bytes, .n = bytes ? len : 0};
	const uint8_t *magic = take(&r, 4);
	if (!magic || memcmp(magic, "VTAM", 4))
		return vta_error_set(err, VTA_EINVAL, -1, "%s: the GRAPH section does not start with \"VTAM\"", what);
	uint32_t ver = get_u32(&r);
	if (ver != VTA_MGRAPH_VERSION)
		return vta_error_set(err, VTA_EUNSUPPORTED, -1, "%s: graph version %" PRIu32 "; this library reads"
				     " version %d (compile the model again with this release's vta compile)", what, ver,
				     VTA_MGRAPH_VERSION);
	g->config_id = get_u32(&r);
	get_str(&r, g->config, sizeof g->config);
	g->batch = get_u32(&r);
	g->block_in = get_u32(&r);
	g->block_out = get_u32(&r);
	if (!r.bad && g->config_id != VTA_CONFIG_ID)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: the graph was compiled for VTA configuration 0x%08"
				     PRIX32 " (%s); this library is 0x%08X (%s)", what, g->config_id, g->config,
				     (unsigned)VTA_CONFIG_ID, VTA_CONFIG_CANONICAL);
	uint32_t nn = get_u32(&r);
	if (r.bad || nn > VTA_MGRAPH_MAX_NODES || nn > (r.n - r.at) / 16)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: truncated, or a node count of %" PRIu32
				     " the section cannot hold", what, nn);
	if (!(g->nodes = calloc(nn ? nn : 1, sizeof *g->nodes)))
		return vta_error_set(err, VTA_ENOMEM, -1, "%s: out of memory for %" PRIu32 " nodes", what, nn);
	g->n_nodes = nn;
	int rc;
	if ((rc = decode_nodes(&r, what, g, err)) || (rc = decode_io(&r, what, g, err)) ||
	    (rc = decode_kernels(&r, what, g, err)))
		return rc;
	int64_t size = get_i64(&r), img = get_i64(&r);
	if (r.bad || size < 0 || img < 0 || img > size || size > VTA_MGRAPH_MAX_IMAGE)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: truncated, or an image of %" PRId64 " bytes stored"
				     " for %" PRId64 " (at most %" PRId64 ")", what, img, size, VTA_MGRAPH_MAX_IMAGE);
	const uint8_t *image = take(&r, (uint64_t)img);
	if (!image || r.at != r.n)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: %s", what,
				     image ? "trailing bytes after the image" : "truncated image");
	if (!(g->image = calloc((size_t)(size ? size : 1), 1)))
		return vta_error_set(err, VTA_ENOMEM, -1, "%s: out of memory for a %" PRId64 "-byte image", what,
				     size);
	if (img)
		memcpy(g->image, image, (size_t)img);
	g->image_size = size;
	return check_image(what, g, err);
}
