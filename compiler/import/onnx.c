/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ONNX import through protobuf-c (C code generated at build time from the
 * onnx.proto of Debian's libonnx-dev). The importer builds the graph with
 * vc_build, so every node is typed as it is made. Anything it does not
 * understand is an error that names the node, the op, and the attribute or
 * data type; a malformed file is refused, never half-imported.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <vta/bytes.h>

#include "onnx.pb-c.h"
#include "import/import.h"
#include "exec/exec.h"
#include "import/unsupported.h"

enum {
	ONNX_FLOAT = 1, ONNX_UINT8 = 2, ONNX_INT8 = 3, ONNX_UINT16 = 4, ONNX_INT16 = 5, ONNX_INT32 = 6, ONNX_INT64 = 7,
	ONNX_BOOL = 9, ONNX_FLOAT16 = 10, ONNX_DOUBLE = 11
};

/* Bytes of an element of data type dt in raw_data (0: not taken). */
static size_t onnx_esize(int dt)
{
	switch (dt) {
	case ONNX_UINT8: case ONNX_INT8: case ONNX_BOOL: return 1;
	case ONNX_UINT16: case ONNX_INT16: case ONNX_FLOAT16: return 2;
	case ONNX_FLOAT: case ONNX_INT32: return 4;
	case ONNX_INT64: case ONNX_DOUBLE: return 8;
	default: return 0;
	}
}

/* Data type dt holds integers (shapes, indices, quantized weights). */
static int onnx_is_int(int dt)
{
	return dt != ONNX_FLOAT && dt != ONNX_FLOAT16 && dt != ONNX_DOUBLE;
}

/* Element i of raw little-endian data of type dt, as a real number. */
static double raw_value(int dt, const uint8_t *p)
{
	uint64_t u;
	double d;
	float f;
	switch (dt) {
	case ONNX_UINT8: case ONNX_BOOL: return p[0];
	case ONNX_INT8: return (int8_t)p[0];
	case ONNX_UINT16: return (uint16_t)(p[0] | p[1] << 8);
	case ONNX_INT16: return (int16_t)(p[0] | p[1] << 8);
	case ONNX_FLOAT16: return vc_imp_half((uint16_t)(p[0] | p[1] << 8));
	case ONNX_INT32: return (int32_t)vta_rd_le32(p);
	case ONNX_INT64: return (double)(int64_t)vta_rd_le64(p);
	case ONNX_DOUBLE:
		u = vta_rd_le64(p);
		memcpy(&d, &u, 8);
		return d;
	default:
		u = vta_rd_le32(p);
		memcpy(&f, &u, 4);
		return f;
	}
}
/* Inputs of one ONNX node: DenseNet-201's widest concat has 49. */
#define VC_ONNX_MAX_IN 64

static const char *dtype_name(int t)
{
	static const char *const names[] = {"undefined", "float", "uint8", "int8", "uint16", "int16", "int32",
					    "int64", "string", "bool", "float16", "double", "uint32", "uint64",
					    "complex64", "complex128", "bfloat16"};
	return t >= 0 && t < (int)(sizeof names / sizeof names[0]) ? names[t] : "unknown";
}

/* Importer state: the value table (ONNX name -> node), the opset, and
 * the constants that hold integers (ONNX int32/int64: shapes and indices,
 * kept as float constants like every other; their division truncates). */
typedef struct importer {
	vc_module *m;
	const Onnx__GraphProto *g;
	int64_t opset;
	int n, cap;
	const char **names;
	vc_node **vals;
	int n_int, cap_int;
	const vc_node **ints;
} importer;

static int mark_int(importer *im, const vc_node *c)
{
	if (im->n_int == im->cap_int) {
		int nc = im->cap_int ? im->cap_int * 2 : 32;
		const vc_node **p = realloc(im->ints, (size_t)nc * sizeof *p);
		if (!p)
			return vc_error(im->m, NULL, "out of memory");
		im->ints = p;
		im->cap_int = nc;
	}
	im->ints[im->n_int++] = c;
	return 0;
}

static int is_int(const importer *im, const vc_node *c)
{
	for (int i = 0; i < im->n_int; i++)
		if (im->ints[i] == c)
			return 1;
	return 0;
}

static int bind(importer *im, const char *name, vc_node *n)
{
	if (im->n == im->cap) {
		int nc = im->cap ? im->cap * 2 : 64;
		const char **nn = realloc(im->names, (size_t)nc * sizeof *nn);
		if (!nn)
			return -1;
		im->names = nn;
		vc_node **nv = realloc(im->vals, (size_t)nc * sizeof *nv);
		if (!nv)
			return -1;
		im->vals = nv;
		im->cap = nc;
	}
	im->names[im->n] = name;
	im->vals[im->n++] = n;
	return 0;
}

static vc_node *lookup(importer *im, const char *name)
{
	for (int i = im->n - 1; i >= 0; i--)
		if (!strcmp(im->names[i], name))
			return im->vals[i];
	return NULL;
}

/* A TensorProto as a float const node (int64/int32 values converted: they
 * are shapes and small integers). */
static vc_node *tensor_const(vc_module *m, const Onnx__TensorProto *t, const char *what)
{
	const char *name = t->name && t->name[0] ? t->name : what;
	if (t->n_dims > VC_MAX_RANK) {
		vc_error(m, NULL, "tensor '%s' has rank %zu (at most %d supported)", name, t->n_dims, VC_MAX_RANK);
		return NULL;
	}
	if (t->n_external_data || (t->has_data_location && t->data_location != 0)) {
		vc_error(m, NULL, "tensor '%s' uses external data, which is not supported", name);
		return NULL;
	}
	int64_t dim[VC_MAX_RANK], count = 1;
	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] < 0 || t->dims[i] > VC_MAX_DIM || (count *= t->dims[i]) > VC_MAX_ELEMS) {
			vc_error(m, NULL, "tensor '%s' has a bad or too large dimension %lld", name, (long long)t->dims[i]);
			return NULL;
		}
		dim[i] = t->dims[i];
	}
	int dt = t->has_data_type ? t->data_type : 0;
	size_t esize = onnx_esize(dt);
	if (!esize) {
		vc_error(m, NULL, "tensor '%s' has data type %s (%d), which is not supported", name, dtype_name(dt), dt);
		return NULL;
	}
	vc_node *n = vc_const(m, name, VC_F32, (int)t->n_dims, dim, NULL);
	if (!n)
		return NULL;
	float *out = n->data;
	size_t have;
	if (t->has_raw_data) {
		have = t->raw_data.len / esize;
		if (t->raw_data.len % esize || (int64_t)have != count)
			goto short_data;
		for (int64_t i = 0; i < count; i++)
			out[i] = (float)raw_value(dt, t->raw_data.data + (size_t)i * esize);
		return n;
	}
	/* the typed fields: 8- and 16-bit types (float16 as its bits) in int32_data */
	have = dt == ONNX_FLOAT ? t->n_float_data : dt == ONNX_INT64 ? t->n_int64_data : dt == ONNX_DOUBLE ? t->n_double_data
													    : t->n_int32_data;
	if ((int64_t)have != count)
		goto short_data;
	for (int64_t i = 0; i < count; i++)
		out[i] = dt == ONNX_FLOAT ? t->float_data[i]
			 : dt == ONNX_INT64 ? (float)t->int64_data[i]
			 : dt == ONNX_DOUBLE ? (float)t->double_data[i]
			 : dt == ONNX_FLOAT16 ? vc_imp_half((uint16_t)t->int32_data[i])
					      : (float)t->int32_data[i];
	return n;
short_data:
	vc_error(m, NULL, "tensor '%s' holds %zu values of %s where its shape needs %lld", name, have, dtype_name(dt),
		 (long long)count);
	return NULL;
}

/* ---- attributes ---------------------------------------------------- */

static const Onnx__AttributeProto *attr(const Onnx__NodeProto *np, const char *name)
{
	for (size_t i = 0; i < np->n_attribute; i++)
		if (np->attribute[i]->name && !strcmp(np->attribute[i]->name, name))
			return np->attribute[i];
	return NULL;
}

static int64_t attr_i(const Onnx__NodeProto *np, const char *name, int64_t def)
{
	const Onnx__AttributeProto *a = attr(np, name);
	return a && a->has_i ? a->i : def;
}

static double attr_f(const Onnx__NodeProto *np, const char *name, double def)
{
	const Onnx__AttributeProto *a = attr(np, name);
	return a && a->has_f ? a->f : def;
}

static const char *attr_s(const Onnx__NodeProto *np, const char *name, char *buf, size_t n)
{
	const Onnx__AttributeProto *a = attr(np, name);
	if (!a || !a->has_s)
		return NULL;
	size_t len = a->s.len < n - 1 ? a->s.len : n - 1;
	memcpy(buf, a->s.data, len);
	buf[len] = 0;
	return buf;
}

static int attr_ints(const Onnx__NodeProto *np, const char *name, int64_t *out, int max, int64_t *count)
{
	const Onnx__AttributeProto *a = attr(np, name);
	*count = 0;
	if (!a)
		return 0;
	if ((int)a->n_ints > max)
		return -1;
	for (size_t i = 0; i < a->n_ints; i++)
		out[i] = a->ints[i];
	*count = (int64_t)a->n_ints;
	return 1;
}

/* A node's name in messages: its name, else its first output, else its op. */
static const char *node_name(const Onnx__NodeProto *np)
{
	return np->name && np->name[0] ? np->name : np->n_output && np->output[0][0] ? np->output[0]
						  : np->op_type ? np->op_type : "";
}

/* Every attribute of np must be one the op's importer understands. */
static int check_attrs(vc_module *m, const Onnx__NodeProto *np, const char *const *known)
{
	for (size_t i = 0; i < np->n_attribute; i++) {
		const char *an = np->attribute[i]->name ? np->attribute[i]->name : "";
		int ok = 0;
		for (const char *const *k = known; *k; k++)
			ok |= !strcmp(*k, an);
		if (!ok)
			return vc_error(m, NULL, "node '%s' (%s): attribute '%s' is not supported", node_name(np),
					np->op_type, an);
	}
	return 0;
}

/* Spatial attributes shared by Conv and the pools: kernel, strides, pads,
 * dilations, auto_pad, for 2-D data of height H and width W. */
static int spatial(vc_module *m, const Onnx__NodeProto *np, vc_attrs *a, int64_t H, int64_t W, const int64_t *kdef)
{
	int64_t v[8], c;
	const char *nm = node_name(np);
	if (attr_ints(np, "kernel_shape", v, 8, &c) < 0 || (c && c != 2))
		return vc_error(m, NULL, "node '%s' (%s): only 2-D kernels are supported", nm, np->op_type);
	a->kernel[0] = c ? v[0] : kdef ? kdef[0] : 1;
	a->kernel[1] = c ? v[1] : kdef ? kdef[1] : 1;
	if (attr_ints(np, "strides", v, 8, &c) < 0 || (c && c != 2))
		return vc_error(m, NULL, "node '%s' (%s): strides must have 2 entries", nm, np->op_type);
	if (c)
		a->stride[0] = v[0], a->stride[1] = v[1];
	if (attr_ints(np, "dilations", v, 8, &c) < 0 || (c && c != 2))
		return vc_error(m, NULL, "node '%s' (%s): dilations must have 2 entries", nm, np->op_type);
	if (c)
		a->dilation[0] = v[0], a->dilation[1] = v[1];
	if (attr_ints(np, "pads", v, 8, &c) < 0 || (c && c != 4))
		return vc_error(m, NULL, "node '%s' (%s): pads must have 4 entries", nm, np->op_type);
	if (c) { /* ONNX order: top, left, bottom, right (begins then ends) */
		for (int i = 0; i < 4; i++)
			a->pad[i] = v[i];
	}
	for (int i = 0; i < 2; i++)
		if (a->stride[i] < 1 || a->dilation[i] < 1 || a->kernel[i] < 1 || a->pad[i] < 0 || a->pad[i + 2] < 0)
			return vc_error(m, NULL, "node '%s' (%s): non-positive kernel, stride or dilation, or negative pad",
					nm, np->op_type);
	char ap[32];
	if (attr_s(np, "auto_pad", ap, sizeof ap) && strcmp(ap, "NOTSET")) {
		int64_t in[2] = {H, W};
		for (int i = 0; i < 2; i++) {
			if (!strcmp(ap, "VALID")) {
				a->pad[i] = a->pad[i + 2] = 0;
				continue;
			}
			if (strcmp(ap, "SAME_UPPER") && strcmp(ap, "SAME_LOWER"))
				return vc_error(m, NULL, "node '%s' (%s): auto_pad '%s' is not supported", nm, np->op_type, ap);
			int64_t out = (in[i] + a->stride[i] - 1) / a->stride[i];
			int64_t total = (out - 1) * a->stride[i] + (a->kernel[i] - 1) * a->dilation[i] + 1 - in[i];
			if (total < 0)
				total = 0;
			int64_t small = total / 2, big = total - small;
			a->pad[i] = !strcmp(ap, "SAME_UPPER") ? small : big;
			a->pad[i + 2] = !strcmp(ap, "SAME_UPPER") ? big : small;
		}
	}
	return 0;
}

/* ---- nodes -------------------------------------------------------- */

static vc_node *transpose2d(vc_module *m, vc_node *c, const char *name)
{
	int64_t d[2] = {c->type.dim[1], c->type.dim[0]};
	vc_node *t = vc_const(m, name, VC_F32, 2, d, NULL);
	if (!t)
		return NULL;
	const float *s = c->data;
	float *o = t->data;
	for (int64_t i = 0; i < d[1]; i++)
		for (int64_t j = 0; j < d[0]; j++)
			o[j * d[1] + i] = s[i * d[0] + j];
	return t;
}

/* A float of a constant as an index, bounded (ONNX writes INT64_MAX for
 * "to the end", which a float cannot convert back). */
static int64_t as_index(float v)
{
	return v > 0x1p40f ? INT64_C(1) << 40 : v < -0x1p40f ? -(INT64_C(1) << 40) : (int64_t)v;
}

/* The constant integer list of input i (opset 13 and later: axes, split)
 * or else attribute name: the count (0: neither given), or -1 if it is not
 * a constant of at most max entries. */
static int int_list(const Onnx__NodeProto *np, vc_node *const *in, int n_in, int i, const char *name, int64_t *out,
		    int max)
{
	if (i < n_in && in[i]) {
		const vc_node *c = in[i];
		if (c->op != VC_OP_CONST || c->type.rank != 1 || c->type.dim[0] > max)
			return -1;
		for (int64_t k = 0; k < c->type.dim[0]; k++)
			out[k] = as_index(((const float *)c->data)[k]);
		return (int)c->type.dim[0];
	}
	int64_t c = 0;
	return attr_ints(np, name, out, max, &c) < 0 ? -1 : (int)c;
}

/* The reductions of ONNX's default domain and their functions. */
static const struct {
	const char *name;
	int fn;
} reduce_ops[] = {
	{"ReduceSum", VTA_FN_SUM},   {"ReduceMean", VTA_FN_MEAN},      {"ReduceMax", VTA_FN_RMAX},
	{"ReduceMin", VTA_FN_RMIN},  {"ReduceProd", VTA_FN_PROD},      {"ReduceL1", VTA_FN_L1},
	{"ReduceL2", VTA_FN_L2},     {"ReduceSumSquare", VTA_FN_SUMSQUARE}, {"ReduceLogSum", VTA_FN_LOGSUM},
	{"ReduceLogSumExp", VTA_FN_LOGSUMEXP},
};

/*
 * The reductions (the axes an attribute, or an input from opset 18, 13 for
 * ReduceSum; none: every axis, or the input itself with
 * noop_with_empty_axes). The mean or sum over every axis after the first
 * two is the global average pool (times the plane for the sum), the
 * maximum over the rows and columns of 4-D data a max pool over the whole
 * image (int8 on the way); the rest is the float reduce op on the host.
 */
static vc_node *reduce(vc_module *m, const Onnx__NodeProto *np, vc_node *const *in, int n_in, const char *op,
		       const char *nm)
{
	vc_node *x = in[0];
	int64_t axes[VC_MAX_RANK];
	int r = x->type.rank, c = int_list(np, in, n_in, 1, "axes", axes, VC_MAX_RANK), fn = -1, mask = 0;
	for (size_t i = 0; i < sizeof reduce_ops / sizeof reduce_ops[0]; i++)
		fn = strcmp(reduce_ops[i].name, op) ? fn : reduce_ops[i].fn;
	if (c == 0 && attr_i(np, "noop_with_empty_axes", 0))
		return x;
	for (int i = 0; c == 0 && i < r; i++)
		mask |= 1 << i;
	for (int i = 0; c > 0 && i < c && mask >= 0; i++) {
		int64_t ax = axes[i] + (axes[i] < 0 ? r : 0);
		mask = ax >= 0 && ax < r && !(mask >> ax & 1) ? mask | 1 << ax : -1;
	}
	if (fn < 0 || c < 0 || mask <= 0) {
		vc_error(m, NULL, "node '%s' (%s): the axes must be constant, distinct and inside the input's %d dimensions",
			 nm, op, r);
		return NULL;
	}
	int keep = attr_i(np, "keepdims", 1) != 0, spatial = r >= 3 && mask == ((1 << r) - 4);
	vc_attrs a;
	vc_attrs_init(&a);
	vc_node *g = NULL;
	if (spatial && (fn == VTA_FN_MEAN || fn == VTA_FN_SUM)) {
		int64_t plane = 1;
		for (int i = 2; i < r; i++)
			plane *= x->type.dim[i];
		g = vc_build(m, VC_OP_GAP, &x, 1, &a, keep && fn == VTA_FN_MEAN ? nm : NULL);
		g = g && fn == VTA_FN_SUM ? vc_imp_scale(m, g, (double)plane, keep ? nm : NULL) : g;
	} else if (spatial && fn == VTA_FN_RMAX && r == 4) {
		a.kernel[0] = x->type.dim[2], a.kernel[1] = x->type.dim[3];
		g = vc_build(m, VC_OP_MAXPOOL, &x, 1, &a, keep ? nm : NULL);
	} else {
		a.fn = fn, a.axes = mask, a.keepdims = keep;
		return vc_build(m, VC_OP_REDUCE, &x, 1, &a, nm);
	}
	if (!g || keep)
		return g;
	vc_attrs_init(&a);
	a.nshape = 2;
	a.shape[0] = x->type.dim[0];
	a.shape[1] = x->type.dim[1];
	return vc_build(m, VC_OP_RESHAPE, &g, 1, &a, nm);
}

/* Pad of mode reflect or edge along axis ax of x, b before and e after
 * (b + e <= 15): a concat of x and single-row (column) slices of it, the
 * rows mirrored about the border one (reflect: b .. 1 before, L - 2 ..
 * L - 1 - e after) or the border row repeated (edge). */
static vc_node *pad_copies(vc_module *m, vc_node *x, int ax, int64_t b, int64_t e, int reflect, const char *nm)
{
	int64_t L = x->type.dim[ax];
	vc_node *parts[16];
	int n = 0;
	for (int64_t r = -b; r < L + e; r++) {
		if (r >= 0 && r < L) { /* x itself, once */
			parts[n++] = x;
			r = L - 1;
			continue;
		}
		int64_t src = r < 0 ? (reflect ? -r : 0) : (reflect ? 2 * (L - 1) - r : L - 1);
		vc_attrs a;
		vc_attrs_init(&a);
		a.axis = ax, a.pad[0] = src, a.pad[2] = L - 1 - src;
		if (!(parts[n++] = vc_build(m, VC_OP_SLICE, &x, 1, &a, NULL)))
			return NULL;
	}
	vc_attrs a;
	vc_attrs_init(&a);
	a.axis = ax;
	return n == 1 ? x : vc_build(m, VC_OP_CONCAT, parts, n, &a, nm);
}

/* Pad of the rows and columns of 4-D data (the pads an attribute before
 * opset 11, then a constant input, as the value): mode constant is the pad
 * op; reflect and edge (at most 15 rows and 15 columns added) are slices
 * and concats (pad_copies). No padding at all (PyTorch's average pooling
 * with count_include_pad) is the input itself. */
/* Constant padding of any axes of x (pads: begins then ends) as a concat
 * a padded axis of the value's blocks before and after. */
static vc_node *pad_concat(vc_module *m, vc_node *x, const int64_t *p, double value, const char *nm)
{
	int r = x->type.rank, last = -1;
	for (int d = 0; d < r; d++)
		last = p[d] || p[d + r] ? d : last;
	for (int d = 0; x && d <= last; d++) {
		if (!p[d] && !p[d + r])
			continue;
		vc_node *parts[3];
		int k = 0;
		for (int side = 0; side < 2; side++) {
			if (side)
				parts[k++] = x;
			if (!p[d + side * r])
				continue;
			int64_t dim[VC_MAX_RANK];
			memcpy(dim, x->type.dim, sizeof dim);
			dim[d] = p[d + side * r];
			vc_node *c = vc_const(m, NULL, VC_F32, r, dim, NULL);
			for (int64_t i = 0; c && i < vc_type_elems(&c->type); i++)
				((float *)c->data)[i] = (float)value;
			if (!(parts[k++] = c))
				return NULL;
		}
		vc_attrs a;
		vc_attrs_init(&a);
		a.axis = d;
		x = vc_build(m, VC_OP_CONCAT, parts, k, &a, d == last ? nm : NULL);
	}
	return x;
}

static vc_node *pad(vc_module *m, const Onnx__NodeProto *np, vc_node *const *in, int n_in, int64_t opset, const char *nm)
{
	char mode[32] = "constant";
	attr_s(np, "mode", mode, sizeof mode);
	int reflect = !strcmp(mode, "reflect"), copies = reflect || !strcmp(mode, "edge");
	if (!copies && strcmp(mode, "constant")) {
		vc_error(m, NULL, "node '%s' (Pad): mode '%s' is not supported (constant, reflect and edge are)", nm, mode);
		return NULL;
	}
	int64_t p[2 * VC_MAX_RANK], c = 0;
	double value = attr_f(np, "value", 0.0);
	vc_node *x = in[0];
	if (opset < 11) {
		if (attr_ints(np, "pads", p, 2 * VC_MAX_RANK, &c) < 0)
			c = -1;
	} else if (n_in >= 2 && in[1]->op == VC_OP_CONST && in[1]->type.rank == 1 &&
		   in[1]->type.dim[0] <= 2 * VC_MAX_RANK) {
		c = in[1]->type.dim[0];
		for (int64_t i = 0; i < c; i++)
			p[i] = as_index(((const float *)in[1]->data)[i]);
		if (n_in >= 3) {
			if (in[2]->op != VC_OP_CONST || vc_type_elems(&in[2]->type) != 1) {
				vc_error(m, NULL, "node '%s' (Pad): the constant value must be a constant scalar", nm);
				return NULL;
			}
			value = ((const float *)in[2]->data)[0];
		}
	} else {
		c = -1;
	}
	int r = x->type.rank, ok = c == 2 * r, spatial = r == 4;
	for (int i = 0; ok && i < c; i++) { /* begins then ends */
		ok = p[i] >= 0 && p[i] <= 4096;
		spatial &= i % 4 >= 2 || p[i] == 0;
	}
	if (ok && !spatial && !copies) /* another axis (Swin pads NHWC's rows and columns) */
		return pad_concat(m, x, p, value, nm);
	ok &= spatial;
	if (!ok) {
		vc_error(m, NULL, "node '%s' (Pad): only constant, non-negative pads of the rows and columns of 4-D data "
			 "are supported", nm);
		return NULL;
	}
	if (!(p[2] | p[3] | p[6] | p[7]))
		return x;
	if (copies) {
		for (int i = 2; i < 4; i++)
			if (p[i] + p[i + 4] > 15 || (reflect && (p[i] >= x->type.dim[i] || p[i + 4] >= x->type.dim[i]))) {
				vc_error(m, NULL, "node '%s' (Pad): mode %s adds at most 15 rows and 15 columns%s", nm, mode,
					 reflect ? ", fewer a side than the input has" : "");
				return NULL;
			}
		vc_node *y = pad_copies(m, x, 2, p[2], p[6], reflect, p[3] | p[7] ? NULL : nm);
		return y && (p[3] | p[7]) ? pad_copies(m, y, 3, p[3], p[7], reflect, nm) : y;
	}
	vc_attrs a;
	vc_attrs_init(&a);
	a.pad[0] = p[2], a.pad[1] = p[3], a.pad[2] = p[6], a.pad[3] = p[7];
	a.lo = value;
	return vc_build(m, VC_OP_PAD, &x, 1, &a, nm);
}

/* ---- constants of exporters' shape logic (ViT's class token) ------- */

/* The numpy broadcast of the dims of t with dims d (rank r) into out;
 * the result's rank, or -1 if they do not broadcast. */
static int bcast_dims(const vc_type *t, const int64_t *d, int r, int64_t *out)
{
	int rank = t->rank > r ? t->rank : r;
	if (rank > VC_MAX_RANK)
		return -1;
	for (int i = 0; i < rank; i++) {
		int ti = i - (rank - t->rank), di = i - (rank - r);
		int64_t a = ti >= 0 ? t->dim[ti] : 1, b = di >= 0 ? d[di] : 1;
		if (a != b && a != 1 && b != 1)
			return -1;
		out[i] = a == 1 ? b : a;
	}
	return rank;
}

/* Element o of a result of dims out (rank r) read from t, broadcast. */
static int64_t bcast_at(const vc_type *t, const int64_t *out, int r, int64_t o)
{
	int64_t idx = 0, stride = 1;
	for (int d = r - 1; d >= 0; d--) {
		int64_t c = o % out[d];
		o /= out[d];
		int td = d - (r - t->rank);
		if (td >= 0) {
			idx += t->dim[td] == 1 ? 0 : c * stride;
			stride *= t->dim[td];
		}
	}
	return idx;
}

/* Gather along axis 0 of constant 1-D data (a Shape's) at constant indices. */
/* a op b of two constants (shape arithmetic: PyTorch's exports compute
 * slice bounds from Shape), numpy broadcasting; integer division
 * truncates when both hold integers. */
static vc_node *const_arith(importer *im, char op, const vc_node *a, const vc_node *b, const char *nm)
{
	vc_module *m = im->m;
	int64_t out[VC_MAX_RANK];
	memcpy(out, a->type.dim, sizeof out);
	int r = bcast_dims(&b->type, out, a->type.rank, out);
	if (r < 0) {
		vc_error(m, NULL, "node '%s': constants of shapes that do not broadcast", nm);
		return NULL;
	}
	int ints = is_int(im, a) && is_int(im, b);
	vc_node *c = vc_const(m, nm, VC_F32, r, out, NULL);
	if (!c)
		return NULL;
	for (int64_t i = 0; i < vc_type_elems(&c->type); i++) {
		double x = ((const float *)a->data)[bcast_at(&a->type, out, r, i)];
		double y = ((const float *)b->data)[bcast_at(&b->type, out, r, i)];
		double v = op == 'A' ? x + y : op == 'S' ? x - y : op == 'M' ? x * y : ints && y ? trunc(x / y) : x / y;
		((float *)c->data)[i] = (float)v;
	}
	return ints && mark_int(im, c) ? NULL : c;
}

/* Gather of a computed tensor at one constant index along an axis (a
 * transformer's class token, x[:, 0]): a one-entry slice, reshaped without
 * the axis for a scalar index. */
static vc_node *gather_one(importer *im, vc_node *x, const vc_node *idx, int64_t axis, const char *nm)
{
	vc_module *m = im->m;
	int r = x->type.rank;
	axis += axis < 0 ? r : 0;
	int one = vc_type_elems(&idx->type) == 1 && idx->type.rank <= 1;
	int64_t k = one ? as_index(((const float *)idx->data)[0]) : -1, n = 0;
	if (one && axis >= 0 && axis < r) {
		n = x->type.dim[axis];
		k += k < 0 ? n : 0;
	}
	if (!one || axis < 0 || axis >= r || k < 0 || k >= n) {
		vc_error(m, NULL, "node '%s' (Gather): of a computed tensor only one constant index inside an axis is "
			 "supported", nm);
		return NULL;
	}
	vc_attrs a;
	vc_attrs_init(&a);
	a.axis = axis, a.pad[0] = k, a.pad[2] = n - k - 1;
	vc_node *y = n == 1 ? x : vc_build(m, VC_OP_SLICE, &x, 1, &a, idx->type.rank ? nm : NULL);
	if (!y || idx->type.rank)
		return y;
	vc_attrs_init(&a);
	for (int d = 0; d < r; d++)
		if (d != axis)
			a.shape[a.nshape++] = x->type.dim[d];
	return vc_build(m, VC_OP_RESHAPE, &y, 1, &a, nm);
}

static vc_node *gather(importer *im, const Onnx__NodeProto *np, vc_node *x, const vc_node *idx, const char *nm)
{
	vc_module *m = im->m;
	if (x->op != VC_OP_CONST && idx->op == VC_OP_CONST)
		return gather_one(im, x, idx, attr_i(np, "axis", 0), nm);
	if (x->op != VC_OP_CONST || idx->op != VC_OP_CONST || x->type.rank != 1 || attr_i(np, "axis", 0) != 0) {
		vc_error(m, NULL, "node '%s' (Gather): only constant indices into constant 1-D data, or one into a computed "
			 "tensor, are supported", nm);
		return NULL;
	}
	vc_node *c = vc_const(m, nm, VC_F32, idx->type.rank, idx->type.dim, NULL);
	if (!c)
		return NULL;
	int64_t n = x->type.dim[0];
	for (int64_t i = 0; i < vc_type_elems(&idx->type); i++) {
		int64_t k = as_index(((const float *)idx->data)[i]);
		k += k < 0 ? n : 0;
		if (k < 0 || k >= n) {
			vc_error(m, NULL, "node '%s' (Gather): index %lld outside %lld entries", nm, (long long)k, (long long)n);
			return NULL;
		}
		((float *)c->data)[i] = ((const float *)x->data)[k];
	}
	return is_int(im, x) && mark_int(im, c) ? NULL : c;
}

/* The k-th entry of Slice input i (opset 10 and later) or of attribute
 * name (before): 0 and *ok = 0 when it is not a constant. */
static int64_t slice_arg(const Onnx__NodeProto *np, vc_node *const *in, int n_in, int64_t opset, int i, const char *name,
			 int64_t def, int *ok)
{
	int64_t v[8], c;
	if (opset < 10) {
		if (attr_ints(np, name, v, 8, &c) < 0 || (!c && !def && strcmp(name, "axes")))
			*ok = 0;
		return c == 1 ? v[0] : def;
	}
	if (i >= n_in)
		return def;
	if (in[i]->op != VC_OP_CONST || vc_type_elems(&in[i]->type) != 1)
		*ok = 0;
	return *ok ? as_index(((const float *)in[i]->data)[0]) : 0;
}

/* Slice of one axis with step 1 (PyTorch's chunk), bounds as ONNX clamps
 * them; the whole axis is the input itself. */
/* Slice of a constant: any axes and steps (negative ones too), as ONNX
 * clamps the bounds; 1 if it is not one this takes (the caller's
 * refusal speaks), else 0 with *out set or -1 on failure. */
static int const_slice(importer *im, const Onnx__NodeProto *np, vc_node *const *in, int n_in, const char *nm,
		       vc_node **out)
{
	const vc_node *x = in[0];
	int r = x->type.rank;
	int64_t st[VC_MAX_RANK], en[VC_MAX_RANK], ax[VC_MAX_RANK], sp[VC_MAX_RANK];
	int ns = int_list(np, in, n_in, 1, "starts", st, VC_MAX_RANK), ne = int_list(np, in, n_in, 2, "ends", en, VC_MAX_RANK);
	int na = int_list(np, in, n_in, 3, "axes", ax, VC_MAX_RANK), nsp = int_list(np, in, n_in, 4, "steps", sp, VC_MAX_RANK);
	if (x->op != VC_OP_CONST || ns <= 0 || ne != ns || (na && na != ns) || (nsp && nsp != ns))
		return 1;
	int64_t lo[VC_MAX_RANK], step[VC_MAX_RANK], dim[VC_MAX_RANK];
	for (int d = 0; d < r; d++)
		lo[d] = 0, step[d] = 1, dim[d] = x->type.dim[d];
	for (int i = 0; i < ns; i++) {
		int64_t a = na ? ax[i] + (ax[i] < 0 ? r : 0) : i, s = nsp ? sp[i] : 1;
		if (a < 0 || a >= r || s == 0)
			return 1;
		int64_t n = x->type.dim[a], b = st[i] + (st[i] < 0 ? n : 0), e = en[i] + (en[i] < 0 ? n : 0);
		b = s > 0 ? (b < 0 ? 0 : b > n ? n : b) : (b < 0 ? -1 : b > n - 1 ? n - 1 : b);
		e = s > 0 ? (e < 0 ? 0 : e > n ? n : e) : (e < -1 ? -1 : e > n - 1 ? n - 1 : e);
		int64_t cnt = s > 0 ? (e - b + s - 1) / s : (b - e + -s - 1) / -s;
		lo[a] = b, step[a] = s, dim[a] = cnt > 0 ? cnt : 0;
	}
	vc_node *c = vc_const(im->m, nm, VC_F32, r, dim, NULL);
	for (int64_t o = 0; c && o < vc_type_elems(&c->type); o++) {
		int64_t rest = o, src = 0, stride = 1;
		for (int d = r - 1; d >= 0; d--) {
			int64_t k = rest % dim[d];
			rest /= dim[d];
			src += (lo[d] + k * step[d]) * stride;
			stride *= x->type.dim[d];
		}
		((float *)c->data)[o] = ((const float *)x->data)[src];
	}
	*out = c;
	return c && is_int(im, x) && mark_int(im, c) ? -1 : c ? 0 : -1;
}

static vc_node *slice(importer *im, const Onnx__NodeProto *np, vc_node *const *in, int n_in, const char *nm)
{
	vc_module *m = im->m;
	vc_node *x = in[0], *c = NULL;
	int cs = im->opset >= 10 ? const_slice(im, np, in, n_in, nm, &c) : 1;
	if (cs <= 0)
		return cs ? NULL : c;
	int ok = im->opset >= 10 ? n_in >= 3 : 1, r = x->type.rank;
	for (int i = 1; ok && i < n_in; i++)
		ok = in[i]->op == VC_OP_CONST && in[i]->type.rank == 1 && in[i]->type.dim[0] == 1;
	int64_t start = slice_arg(np, in, n_in, im->opset, 1, "starts", 0, &ok);
	int64_t end = slice_arg(np, in, n_in, im->opset, 2, "ends", 0, &ok);
	int64_t axis = slice_arg(np, in, n_in, im->opset, 3, "axes", 0, &ok);
	int64_t step = slice_arg(np, in, n_in, im->opset, 4, "steps", 1, &ok);
	axis += axis < 0 ? r : 0;
	if (!ok || step < 1 || step > 64 || axis < 0 || axis >= r || (step > 1 && r >= VC_MAX_RANK)) {
		vc_error(m, NULL, "node '%s' (Slice): of a computed tensor only one axis with a step of 1 to 64 and constant "
			 "bounds is supported", nm);
		return NULL;
	}
	int64_t dim = x->type.dim[axis];
	start += start < 0 ? dim : 0;
	end += end < 0 ? dim : 0;
	start = start < 0 ? 0 : start > dim ? dim : start;
	end = end < 0 ? 0 : end > dim ? dim : end;
	if (start >= end) {
		vc_error(m, NULL, "node '%s' (Slice): the slice is empty", nm);
		return NULL;
	}
	/* a step s (Swin's x[:, 0::2]): the count * s entries from start, as
	 * [count, s], the first of each s, back to rank r */
	int64_t count = (end - start + step - 1) / step;
	end = start + count * step;
	int pad_end = end > dim;
	if (start == 0 && end == dim && step == 1)
		return x;
	vc_attrs a;
	vc_attrs_init(&a);
	a.axis = axis;
	a.pad[0] = start;
	a.pad[2] = pad_end ? 0 : dim - end;
	vc_node *y = start || a.pad[2] ? vc_build(m, VC_OP_SLICE, &x, 1, &a, step == 1 ? nm : NULL) : x;
	if (!y || step == 1)
		return y;
	if (pad_end) { /* the last group is short: pad it with zeros that are never taken */
		vc_attrs_init(&a);
		int64_t zd[VC_MAX_RANK];
		memcpy(zd, y->type.dim, sizeof zd);
		zd[axis] = end - dim;
		vc_node *args[2] = {y, vc_const(m, NULL, VC_F32, r, zd, NULL)};
		a.axis = axis;
		y = args[1] ? vc_build(m, VC_OP_CONCAT, args, 2, &a, NULL) : NULL;
		if (!y)
			return NULL;
	}
	vc_attrs_init(&a);
	for (int d = 0; d < r; d++) {
		a.shape[a.nshape++] = d == axis ? count : x->type.dim[d];
		if (d == axis)
			a.shape[a.nshape++] = step;
	}
	y = vc_build(m, VC_OP_RESHAPE, &y, 1, &a, NULL);
	vc_attrs s1;
	vc_attrs_init(&s1);
	s1.axis = axis + 1, s1.pad[2] = step - 1;
	y = y ? vc_build(m, VC_OP_SLICE, &y, 1, &s1, NULL) : NULL;
	vc_attrs_init(&a);
	for (int d = 0; d < r; d++)
		a.shape[a.nshape++] = d == axis ? count : x->type.dim[d];
	return y ? vc_build(m, VC_OP_RESHAPE, &y, 1, &a, nm) : NULL;
}

/* A node being imported: its inputs (optional ones left out at the end
 * dropped) and its name (else its first output, else its op). */
typedef struct onnx_node {
	importer *im;
	vc_module *m;
	const Onnx__NodeProto *np;
	const char *op, *nm;
	vc_node *in[VC_ONNX_MAX_IN];
	int n_in;
	vc_attrs a; /* initialized: the handler sets what its op takes */
} onnx_node;

/* x with the same values in shape dim: a constant of that shape (the
 * handlers read weights' values), else a reshape. */
static vc_node *reshaped(vc_module *m, vc_node *x, int rank, const int64_t *dim)
{
	if (x->op == VC_OP_CONST)
		return vc_const(m, NULL, VC_F32, rank, dim, x->data);
	vc_attrs a;
	vc_attrs_init(&a);
	a.nshape = rank;
	memcpy(a.shape, dim, (size_t)rank * sizeof *dim);
	return vc_build(m, VC_OP_RESHAPE, &x, 1, &a, NULL);
}

/* 1-D data or weights [A, B, L] as [A, B, 1, L]. */
static vc_node *as_2d(vc_module *m, vc_node *x)
{
	const int64_t *d = x->type.dim, d4[4] = {d[0], d[1], 1, d[2]};
	return reshaped(m, x, 4, d4);
}

/*
 * A 1-D Conv, ConvTranspose or pool (3-D data N x C x L) as the 2-D op fn
 * of H = 1: the input (and 3-D weights) reshaped to [N, C, 1, L], the
 * spatial attributes lifted to the columns (a leading 1 for the rows'
 * kernel, stride, dilation and output size, 0 for their output_padding
 * and pads), and the result reshaped back to [N, C', L'].
 */
static vc_node *lift_1d(onnx_node *on, vc_node *(*fn)(onnx_node *))
{
	enum { MAX_ATTRS = 16 };
	static const char *const lists[] = {"kernel_shape", "strides", "dilations", "output_padding", "output_shape",
					    "pads", NULL};
	const Onnx__NodeProto *np = on->np;
	Onnx__NodeProto np2 = *np;
	Onnx__AttributeProto attrs[MAX_ATTRS], *ptrs[MAX_ATTRS];
	int64_t ints[MAX_ATTRS][VC_MAX_RANK + 1];
	if (np->n_attribute > MAX_ATTRS) {
		vc_error(on->m, NULL, "node '%s' (%s): more than %d attributes", on->nm, on->op, MAX_ATTRS);
		return NULL;
	}
	for (size_t i = 0; i < np->n_attribute; i++) {
		attrs[i] = *np->attribute[i];
		ptrs[i] = &attrs[i];
		int k = 0;
		while (lists[k] && (!attrs[i].name || strcmp(attrs[i].name, lists[k])))
			k++;
		size_t n = attrs[i].n_ints, pads = k == 5;
		if (!lists[k])
			continue;
		if (pads ? n != 2 : n < 1 || n > VC_MAX_RANK) {
			vc_error(on->m, NULL, "node '%s' (%s): %s needs %s for 1-D data", on->nm, on->op, attrs[i].name,
				 pads ? "2 entries" : "an entry");
			return NULL;
		}
		/* the rows' entry goes before the columns' (pads: before each) */
		int64_t *o = ints[i];
		if (pads)
			o[0] = 0, o[1] = attrs[i].ints[0], o[2] = 0, o[3] = attrs[i].ints[1];
		else
			memcpy(o, attrs[i].ints, (n - 1) * sizeof *o), o[n - 1] = k == 3 ? 0 : 1, o[n] = attrs[i].ints[n - 1];
		attrs[i].ints = o;
		attrs[i].n_ints = n + (pads ? 2 : 1);
	}
	np2.attribute = ptrs;
	for (int i = 0; i < 2 && i < on->n_in; i++)
		if (on->in[i]->type.rank == 3 && !(on->in[i] = as_2d(on->m, on->in[i])))
			return NULL;
	on->np = &np2;
	vc_node *y = fn(on);
	on->np = np;
	if (!y || y->type.rank != 4 || y->type.dim[2] != 1) {
		if (y)
			vc_error(on->m, NULL, "node '%s' (%s): the 2-D op made %lld rows where 1 was expected", on->nm,
				 on->op, (long long)y->type.dim[2]);
		return NULL;
	}
	/* the 2-D op keeps the node's name with a suffix; the result has it */
	snprintf(y->name, sizeof y->name, "%.58s.2d", on->nm);
	vc_attrs a;
	vc_attrs_init(&a);
	a.nshape = 3;
	a.shape[0] = y->type.dim[0], a.shape[1] = y->type.dim[1], a.shape[2] = y->type.dim[3];
	return vc_build(on->m, VC_OP_RESHAPE, &y, 1, &a, on->nm);
}

static vc_node *op_conv(onnx_node *on)
{
	int r = on->in[0]->type.rank;
	if (r == 3 && on->in[1]->type.rank == 3)
		return lift_1d(on, op_conv);
	if (r == 5) {
		vc_error(on->m, NULL, "node '%s' (Conv): 3-D convolution is not supported", on->nm);
		return NULL;
	}
	if (on->in[0]->type.rank != 4 || on->in[1]->type.rank != 4) {
		vc_error(on->m, NULL, "node '%s' (Conv): only 1-D and 2-D convolution (3-D and 4-D tensors) is supported",
			 on->nm);
		return NULL;
	}
	int64_t kd[2] = {on->in[1]->type.dim[2], on->in[1]->type.dim[3]};
	if (spatial(on->m, on->np, &on->a, on->in[0]->type.dim[2], on->in[0]->type.dim[3], kd))
		return NULL;
	if (on->a.kernel[0] != kd[0] || on->a.kernel[1] != kd[1]) {
		vc_error(on->m, NULL, "node '%s' (Conv): kernel_shape differs from the weights", on->nm);
		return NULL;
	}
	on->a.group = attr_i(on->np, "group", 1);
	return vc_build(on->m, VC_OP_CONV, on->in, on->n_in, &on->a, on->nm);
}

/* x [N,C,H,W] with sh - 1 zero rows after each row and sw - 1 zero
 * columns after each column ([N,C,H*sh,W*sw]): reshapes that make each
 * row (column) a plane of its own, and a pad of those planes. */
static vc_node *zero_insert(vc_module *m, vc_node *x, int64_t sh, int64_t sw)
{
	int64_t N = x->type.dim[0], C = x->type.dim[1], H = x->type.dim[2], W = x->type.dim[3];
	for (int k = 0; x && k < 2; k++) {
		int64_t s = k ? sh : sw;
		if (s == 1)
			continue;
		vc_attrs a;
		vc_attrs_init(&a);
		a.nshape = 4;
		const int64_t col[4] = {N, C * H, W, 1}, row[4] = {N, C * H, 1, W};
		memcpy(a.shape, k ? row : col, sizeof col);
		x = vc_build(m, VC_OP_RESHAPE, &x, 1, &a, NULL);
		vc_attrs_init(&a);
		a.pad[k ? 2 : 3] = s - 1;
		a.lo = 0.0;
		x = x ? vc_build(m, VC_OP_PAD, &x, 1, &a, NULL) : NULL;
		vc_attrs_init(&a);
		a.nshape = 4;
		H *= k ? s : 1, W *= k ? 1 : s;
		const int64_t back[4] = {N, C, H, W};
		memcpy(a.shape, back, sizeof back);
		x = x ? vc_build(m, VC_OP_RESHAPE, &x, 1, &a, NULL) : NULL;
	}
	return x;
}

/* The convolution weights [M, C/g, kh, kw] of ConvTranspose's w [C, M/g,
 * kh, kw]: in and out channels swapped within each group, the kernel
 * turned by 180 degrees. */
static vc_node *transposed_weights(vc_module *m, const vc_node *w, int64_t g, const char *nm)
{
	int64_t C = w->type.dim[0], Mg = w->type.dim[1], kh = w->type.dim[2], kw = w->type.dim[3], Cg = C / g;
	const int64_t dim[4] = {Mg * g, Cg, kh, kw};
	char name[80];
	snprintf(name, sizeof name, "%.60s.w", nm);
	vc_node *c = vc_const(m, name, VC_F32, 4, dim, NULL);
	if (!c)
		return NULL;
	const float *src = w->data;
	float *dst = c->data;
	for (int64_t gi = 0; gi < g; gi++)
		for (int64_t o = 0; o < Mg; o++)
			for (int64_t i = 0; i < Cg; i++)
				for (int64_t y = 0; y < kh; y++)
					for (int64_t x = 0; x < kw; x++)
						dst[(((gi * Mg + o) * Cg + i) * kh + y) * kw + x] =
							src[(((gi * Cg + i) * Mg + o) * kh + (kh - 1 - y)) * kw + (kw - 1 - x)];
	return c;
}

/* ConvTranspose's pads (top, left, bottom, right) from its attributes: the
 * pads, or those output_shape or auto_pad SAME_* imply (negative: more
 * output than the stride gives). -1 with a diagnostic. */
static int deconv_pads(onnx_node *on, const int64_t *in, const int64_t *k, const int64_t *s, const int64_t *d,
		       const int64_t *op, int64_t *pads)
{
	char ap[16] = "NOTSET";
	attr_s(on->np, "auto_pad", ap, sizeof ap);
	int64_t os[4], c = 0;
	if (attr_ints(on->np, "pads", pads, 4, &c) < 0 || (c && c != 4) || attr_ints(on->np, "output_shape", os, 4, &c) < 0 ||
	    (c && c != 2 && c != 4)) {
		return vc_error(on->m, NULL, "node '%s' (ConvTranspose): pads needs 4 entries and output_shape 2", on->nm);
	}
	int same = !strncmp(ap, "SAME_", 5);
	if (!c && !same)
		return strcmp(ap, "NOTSET") && strcmp(ap, "VALID")
			       ? vc_error(on->m, NULL, "node '%s' (ConvTranspose): auto_pad '%s' is unknown", on->nm, ap)
			       : 0;
	for (int i = 0; i < 2; i++) {
		int64_t out = c ? os[c - 2 + i] : in[i] * s[i];
		int64_t total = s[i] * (in[i] - 1) + op[i] + (k[i] - 1) * d[i] + 1 - out;
		int upper = !strcmp(ap, "SAME_UPPER");
		int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2); /* rounded down, as ONNX's reference */
		pads[i] = upper ? half : total - half;
		pads[i + 2] = total - pads[i];
	}
	return 0;
}

/*
 * ConvTranspose (2-D, constant weights) as a convolution VTA runs: the
 * input with stride - 1 zeros inserted between its rows and columns,
 * padded by dilation * (kernel - 1) less the given pads (cropped where
 * that is negative), convolved at stride 1 with the weights of
 * transposed_weights.
 */
static vc_node *op_conv_transpose(onnx_node *on)
{
	if (on->in[0]->type.rank == 3 && on->in[1]->type.rank == 3)
		return lift_1d(on, op_conv_transpose);
	if (on->in[0]->type.rank == 5) {
		vc_error(on->m, NULL, "node '%s' (ConvTranspose): 3-D transposed convolution is not supported", on->nm);
		return NULL;
	}
	vc_node *x = on->in[0], *w = on->in[1];
	int64_t g = attr_i(on->np, "group", 1), s[2] = {1, 1}, d[2] = {1, 1}, op[2] = {0, 0}, ks[2], pads[4] = {0}, c;
	int ok = x->type.rank == 4 && w->type.rank == 4 && w->op == VC_OP_CONST && g >= 1 && x->type.dim[1] % g == 0 &&
		 w->type.dim[0] == x->type.dim[1];
	ok = ok && attr_ints(on->np, "strides", s, 2, &c) >= 0 && attr_ints(on->np, "dilations", d, 2, &c) >= 0 &&
	     attr_ints(on->np, "output_padding", op, 2, &c) >= 0 && attr_ints(on->np, "kernel_shape", ks, 2, &c) >= 0 &&
	     (!c || (ks[0] == w->type.dim[2] && ks[1] == w->type.dim[3]));
	for (int i = 0; ok && i < 2; i++)
		ok = s[i] >= 1 && s[i] <= 64 && d[i] >= 1 && d[i] <= 64 && op[i] >= 0 && op[i] < (s[i] > d[i] ? s[i] : d[i]);
	if (!ok) {
		vc_error(on->m, NULL, "node '%s' (ConvTranspose): only 1-D and 2-D with constant weights [C, M/group, kh, kw] "
			 "matching the input, strides and dilations 1 to 64 and output_padding below them is supported", on->nm);
		return NULL;
	}
	const int64_t in[2] = {x->type.dim[2], x->type.dim[3]}, k[2] = {w->type.dim[2], w->type.dim[3]};
	if (deconv_pads(on, in, k, s, d, op, pads))
		return NULL;
	vc_node *z = zero_insert(on->m, x, s[0], s[1]);
	/* the zeros inserted after the last row (column) count as its padding */
	int64_t cp[4];
	for (int i = 0; i < 2; i++) {
		cp[i] = d[i] * (k[i] - 1) - pads[i];
		cp[i + 2] = d[i] * (k[i] - 1) - pads[i + 2] + op[i] - (s[i] - 1);
	}
	for (int i = 0; z && i < 2; i++) {
		if (cp[i] >= 0 && cp[i + 2] >= 0)
			continue;
		vc_attrs a;
		vc_attrs_init(&a);
		a.axis = 2 + i;
		a.pad[0] = cp[i] < 0 ? -cp[i] : 0, a.pad[2] = cp[i + 2] < 0 ? -cp[i + 2] : 0;
		if (a.pad[0] + a.pad[2] >= z->type.dim[2 + i]) {
			vc_error(on->m, NULL, "node '%s' (ConvTranspose): the pads leave no output", on->nm);
			return NULL;
		}
		z = vc_build(on->m, VC_OP_SLICE, &z, 1, &a, NULL);
		cp[i] = cp[i] < 0 ? 0 : cp[i], cp[i + 2] = cp[i + 2] < 0 ? 0 : cp[i + 2];
	}
	vc_node *args[3] = {z, transposed_weights(on->m, w, g, on->nm), on->n_in > 2 ? on->in[2] : NULL};
	if (!args[0] || !args[1])
		return NULL;
	on->a.pad[0] = cp[0], on->a.pad[1] = cp[1], on->a.pad[2] = cp[2], on->a.pad[3] = cp[3];
	on->a.dilation[0] = d[0], on->a.dilation[1] = d[1];
	on->a.kernel[0] = k[0], on->a.kernel[1] = k[1];
	on->a.group = g;
	return vc_build(on->m, VC_OP_CONV, args, args[2] ? 3 : 2, &on->a, on->nm);
}

static vc_node *op_gemm(onnx_node *on)
{
	double alpha = attr_f(on->np, "alpha", 1.0), beta = attr_f(on->np, "beta", 1.0);
	int64_t ta = attr_i(on->np, "transA", 0), tb = attr_i(on->np, "transB", 0);
	if (ta || on->in[1]->op != VC_OP_CONST || on->in[1]->type.rank != 2 || on->in[0]->type.rank != 2 ||
	    (on->n_in > 2 && on->in[2]->op != VC_OP_CONST)) {
		vc_error(on->m, NULL, "node '%s' (Gemm): only transA=0 with constant 2-D B and C is supported", on->nm);
		return NULL;
	}
	vc_node *w = tb ? on->in[1] : transpose2d(on->m, on->in[1], on->nm);
	if (!w)
		return NULL;
	if (alpha != 1.0) {
		vc_node *s = vc_const(on->m, NULL, VC_F32, 2, w->type.dim, w->data);
		if (!s)
			return NULL;
		for (int64_t i = 0; i < vc_type_elems(&s->type); i++)
			((float *)s->data)[i] *= (float)alpha;
		w = s;
	}
	vc_node *args[3] = {on->in[0], w, NULL};
	int nargs = 2;
	int64_t O = w->type.dim[0], N = on->in[0]->type.dim[0];
	vc_node *bias_full = NULL;
	if (on->n_in > 2) {
		const vc_type *ct = &on->in[2]->type;
		int64_t ce = vc_type_elems(ct);
		if (ce == O && (ct->rank == 1 || ct->dim[0] == 1)) {
			int64_t d1[1] = {O};
			vc_node *b = vc_const(on->m, NULL, VC_F32, 1, d1, on->in[2]->data);
			if (!b)
				return NULL;
			for (int64_t i = 0; i < O; i++)
				((float *)b->data)[i] *= (float)beta;
			args[nargs++] = b;
		} else {
			bias_full = on->in[2]; /* general broadcast: add after */
		}
	}
	vc_node *y = vc_build(on->m, VC_OP_DENSE, args, nargs, &on->a, on->nm);
	if (y && bias_full) {
		(void)N;
		if (beta != 1.0) {
			vc_error(on->m, NULL, "node '%s' (Gemm): beta != 1 with a non-vector C is not supported", on->nm);
			return NULL;
		}
		vc_node *ab[2] = {y, bias_full};
		y = vc_build(on->m, VC_OP_ADD, ab, 2, NULL, NULL);
	}
	return y;
}

/* MatMul by a constant matrix is a dense layer (on VTA); data of rank 3
 * or more (ConvNeXt's and transformers' [N, ..., K] @ [K, M]) goes through
 * it as [rows, K] and back. Two computed operands are a matrix product on
 * the host. */
static vc_node *op_matmul(onnx_node *on)
{
	vc_node *x = on->in[0];
	const vc_type *xt = &x->type;
	if (on->in[1]->op != VC_OP_CONST || on->in[1]->type.rank != 2 || xt->rank < 2)
		return vc_build(on->m, VC_OP_MATMUL, on->in, 2, &on->a, on->nm);
	vc_node *w = transpose2d(on->m, on->in[1], NULL);
	if (!w)
		return NULL;
	vc_attrs a;
	vc_attrs_init(&a);
	int64_t rows = vc_type_elems(xt) / (xt->dim[xt->rank - 1] ? xt->dim[xt->rank - 1] : 1);
	if (xt->rank > 2) {
		a.nshape = 2, a.shape[0] = rows, a.shape[1] = xt->dim[xt->rank - 1];
		x = vc_build(on->m, VC_OP_RESHAPE, &x, 1, &a, NULL);
	}
	vc_node *args[2] = {x, w};
	vc_node *y = x ? vc_build(on->m, VC_OP_DENSE, args, 2, &on->a, xt->rank > 2 ? NULL : on->nm) : NULL;
	if (!y || xt->rank == 2)
		return y;
	a.nshape = xt->rank;
	memcpy(a.shape, xt->dim, sizeof a.shape);
	a.shape[xt->rank - 1] = w->type.dim[0];
	return vc_build(on->m, VC_OP_RESHAPE, &y, 1, &a, on->nm);
}

/* ConstantOfShape: a constant of the given shape filled with the value
 * attribute's one element (0.0 without it). */
static vc_node *op_constant_of_shape(onnx_node *on)
{
	const vc_node *sh = on->in[0];
	const Onnx__AttributeProto *va = attr(on->np, "value");
	int64_t d[VC_MAX_RANK];
	int r = sh->op == VC_OP_CONST && sh->type.rank == 1 && sh->type.dim[0] <= VC_MAX_RANK ? (int)sh->type.dim[0] : -1;
	for (int i = 0; i < r; i++)
		d[i] = as_index(((const float *)sh->data)[i]);
	vc_node *v = va && va->t ? tensor_const(on->m, va->t, on->nm) : NULL;
	if (r < 0 || (va && (!v || vc_type_elems(&v->type) != 1))) {
		vc_error(on->m, NULL, "node '%s' (ConstantOfShape): needs a constant 1-D shape and a value of one element",
			 on->nm);
		return NULL;
	}
	vc_node *c = vc_const(on->m, on->nm, VC_F32, r, d, NULL);
	for (int64_t i = 0; c && i < vc_type_elems(&c->type); i++)
		((float *)c->data)[i] = v ? ((const float *)v->data)[0] : 0.0f;
	return c && v && onnx_is_int(va->t->data_type) && mark_int(on->im, c) ? NULL : c;
}

/* Equal and Where of constants (numpy broadcasting): the exporters' shape
 * logic; of computed tensors they are refused (no boolean values here). */
static vc_node *op_equal_where(onnx_node *on)
{
	int where = on->op[0] == 'W', n = where ? 3 : 2, r = 0, ints = 1;
	int64_t out[VC_MAX_RANK] = {0};
	for (int i = 0; i < n; i++) {
		if (on->in[i]->op != VC_OP_CONST) {
			vc_error(on->m, NULL, "node '%s' (%s): only constant operands are supported", on->nm, on->op);
			return NULL;
		}
		r = bcast_dims(&on->in[i]->type, out, r, out);
		if (r < 0) {
			vc_error(on->m, NULL, "node '%s' (%s): the operands do not broadcast", on->nm, on->op);
			return NULL;
		}
		ints &= i == 0 || is_int(on->im, on->in[i]);
	}
	vc_node *c = vc_const(on->m, on->nm, VC_F32, r, out, NULL);
	for (int64_t o = 0; c && o < vc_type_elems(&c->type); o++) {
		float v[3];
		for (int i = 0; i < n; i++)
			v[i] = ((const float *)on->in[i]->data)[bcast_at(&on->in[i]->type, out, r, o)];
		((float *)c->data)[o] = where ? (v[0] != 0 ? v[1] : v[2]) : (float)(v[0] == v[1]);
	}
	return c && (!where || ints) && mark_int(on->im, c) ? NULL : c;
}

/* Range, Mod and Not of constants (exporters' index arithmetic: Swin's
 * window masks); of computed tensors they are refused. */
static vc_node *op_const_misc(onnx_node *on)
{
	for (int i = 0; i < on->n_in; i++)
		if (!on->in[i] || on->in[i]->op != VC_OP_CONST) {
			vc_error(on->m, NULL, "node '%s' (%s): only constant operands are supported", on->nm, on->op);
			return NULL;
		}
	const float *a = on->in[0]->data;
	if (!strcmp(on->op, "Range")) {
		double start = a[0], limit = ((const float *)on->in[1]->data)[0], delta = ((const float *)on->in[2]->data)[0];
		double cnt = delta ? ceil((limit - start) / delta) : -1;
		if (cnt < 0 || cnt > 1 << 24) {
			vc_error(on->m, NULL, "node '%s' (Range): %g to %g by %g", on->nm, start, limit, delta);
			return NULL;
		}
		int64_t n = (int64_t)cnt;
		vc_node *c = vc_const(on->m, on->nm, VC_F32, 1, &n, NULL);
		for (int64_t i = 0; c && i < n; i++)
			((float *)c->data)[i] = (float)(start + (double)i * delta);
		return c && is_int(on->im, on->in[0]) && mark_int(on->im, c) ? NULL : c;
	}
	int mod = !strcmp(on->op, "Mod"), r = on->in[0]->type.rank;
	int64_t out[VC_MAX_RANK];
	memcpy(out, on->in[0]->type.dim, sizeof out);
	if (mod && (r = bcast_dims(&on->in[1]->type, out, r, out)) < 0) {
		vc_error(on->m, NULL, "node '%s' (Mod): the operands do not broadcast", on->nm);
		return NULL;
	}
	vc_node *c = vc_const(on->m, on->nm, VC_F32, r, out, NULL);
	int fmod_ = (int)attr_i(on->np, "fmod", 0);
	for (int64_t o = 0; c && o < vc_type_elems(&c->type); o++) {
		double x = a[bcast_at(&on->in[0]->type, out, r, o)];
		if (!mod) {
			((float *)c->data)[o] = (float)(x == 0);
			continue;
		}
		double y = ((const float *)on->in[1]->data)[bcast_at(&on->in[1]->type, out, r, o)];
		double v = y == 0 ? 0 : fmod(x, y);
		if (!fmod_ && v != 0 && (v < 0) != (y < 0)) /* the divisor's sign, as Python's % */
			v += y;
		((float *)c->data)[o] = (float)v;
	}
	return c && (!mod || is_int(on->im, on->in[0])) && mark_int(on->im, c) ? NULL : c;
}

/* ScatterND of constants: data with the slices updates[i] written at the
 * index tuples indices[i] (reduction none). */
static vc_node *op_scatter_nd(onnx_node *on)
{
	const vc_node *x = on->in[0], *idx = on->in[1], *up = on->in[2];
	int q = idx->type.rank, r = x->type.rank;
	int64_t k = q ? idx->type.dim[q - 1] : 0;
	int ok = x->op == VC_OP_CONST && idx->op == VC_OP_CONST && up->op == VC_OP_CONST && q >= 1 && k >= 1 && k <= r;
	char red[16] = "none";
	attr_s(on->np, "reduction", red, sizeof red);
	int64_t slice = 1, tuples = ok ? vc_type_elems(&idx->type) / k : 0;
	for (int d = (int)k; ok && d < r; d++)
		slice *= x->type.dim[d];
	if (!ok || strcmp(red, "none") || vc_type_elems(&up->type) != tuples * slice) {
		vc_error(on->m, NULL, "node '%s' (ScatterND): only constant operands of matching shapes, reduction none", on->nm);
		return NULL;
	}
	vc_node *c = vc_const(on->m, on->nm, VC_F32, r, x->type.dim, x->data);
	for (int64_t t = 0; c && t < tuples; t++) {
		int64_t off = 0;
		for (int d = 0; d < k; d++) {
			int64_t i = as_index(((const float *)idx->data)[t * k + d]);
			i += i < 0 ? x->type.dim[d] : 0;
			if (i < 0 || i >= x->type.dim[d]) {
				vc_error(on->m, NULL, "node '%s' (ScatterND): index %lld outside dimension %d", on->nm, (long long)i, d);
				return NULL;
			}
			off = off * x->type.dim[d] + i;
		}
		memcpy((float *)c->data + off * slice, (const float *)up->data + t * slice, (size_t)slice * sizeof(float));
	}
	return c && is_int(on->im, x) && mark_int(on->im, c) ? NULL : c;
}

/* Expand to a constant shape (numpy broadcasting): a constant is expanded
 * here; a computed tensor is multiplied by ones of the shape. */
static vc_node *op_expand(onnx_node *on)
{
	vc_node *x = on->in[0];
	const vc_node *sh = on->in[1];
	int64_t d[VC_MAX_RANK], out[VC_MAX_RANK];
	int r = sh->op == VC_OP_CONST && sh->type.rank == 1 && sh->type.dim[0] <= VC_MAX_RANK ? (int)sh->type.dim[0] : -1;
	for (int i = 0; i < r; i++)
		d[i] = as_index(((const float *)sh->data)[i]);
	int rank = r < 0 ? -1 : bcast_dims(&x->type, d, r, out);
	if (rank < 0) {
		vc_error(on->m, NULL, "node '%s' (Expand): needs a constant shape the input broadcasts to", on->nm);
		return NULL;
	}
	vc_node *c = vc_const(on->m, x->op == VC_OP_CONST ? on->nm : NULL, VC_F32, x->op == VC_OP_CONST ? rank : r,
			      x->op == VC_OP_CONST ? out : d, NULL);
	for (int64_t o = 0; c && o < vc_type_elems(&c->type); o++)
		((float *)c->data)[o] = x->op == VC_OP_CONST ? ((const float *)x->data)[bcast_at(&x->type, out, rank, o)] : 1.0f;
	if (!c || x->op == VC_OP_CONST)
		return c && is_int(on->im, x) && mark_int(on->im, c) ? NULL : c;
	vc_node *args[2] = {x, c};
	return vc_build(on->m, VC_OP_MUL, args, 2, NULL, on->nm);
}

/* ---- quantized models (QDQ and QOperator) -------------------------- */

/*
 * The compiler quantizes by itself (calibrating its own scales), so a
 * quantized model is imported as the real-valued model its parameters
 * describe, as a TFLite int8 model is: a constant q of scale s and zero
 * point z (one value, or one per entry of axis) becomes (q - z) s; a
 * computed value is taken as the real value it stands for.
 */
static vc_node *dequantized(onnx_node *on, vc_node *q, const vc_node *sc, const vc_node *zp, int64_t axis)
{
	if (q->op != VC_OP_CONST)
		return q;
	int64_t ns = vc_type_elems(&sc->type), r = q->type.rank, inner = 1;
	axis += axis < 0 ? r : 0;
	int ok = sc->op == VC_OP_CONST && (!zp || (zp->op == VC_OP_CONST && vc_type_elems(&zp->type) == ns)) &&
		 (ns == 1 || (axis >= 0 && axis < r && q->type.dim[axis] == ns));
	if (!ok) {
		vc_error(on->m, NULL, "node '%s' (%s): scales and zero points must be constants, one or one an entry of "
			 "axis %lld", on->nm, on->op, (long long)axis);
		return NULL;
	}
	for (int64_t d = axis + 1; ns > 1 && d < r; d++)
		inner *= q->type.dim[d];
	vc_node *c = vc_const(on->m, NULL, VC_F32, (int)r, q->type.dim, NULL);
	for (int64_t i = 0; c && i < vc_type_elems(&c->type); i++) {
		int64_t k = ns > 1 ? i / inner % ns : 0;
		double z = zp ? ((const float *)zp->data)[k] : 0.0;
		((float *)c->data)[i] = (float)((((const float *)q->data)[i] - z) * ((const float *)sc->data)[k]);
	}
	return c;
}

/* QuantizeLinear and DequantizeLinear: a constant is dequantized (its
 * quantization is refused: no integer tensors here), a computed value
 * passes as it is. */
static vc_node *op_qdq(onnx_node *on)
{
	int deq = on->op[0] == 'D';
	if (on->in[0]->op == VC_OP_CONST && !deq) {
		vc_error(on->m, NULL, "node '%s' (QuantizeLinear): quantizing a constant is not supported", on->nm);
		return NULL;
	}
	vc_node *y = dequantized(on, on->in[0], on->in[1], on->n_in > 2 ? on->in[2] : NULL, attr_i(on->np, "axis", 1));
	if (y && y->op == VC_OP_CONST && y != on->in[0])
		snprintf(y->name, sizeof y->name, "%s", on->nm);
	return y;
}

/* QLinearConv (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp[, B]): the
 * convolution of the real input by the dequantized weights, the int32 bias
 * at x_scale w_scale[c]. */
static vc_node *op_qlinear_conv(onnx_node *on)
{
	vc_node **in = on->in, *w = dequantized(on, in[3], in[4], in[5], 0), *b = NULL;
	if (!w)
		return NULL;
	if (on->n_in > 8) {
		const vc_node *bq = in[8], *xs = in[1], *ws = in[4];
		int64_t O = bq->type.rank == 1 ? bq->type.dim[0] : -1, nw = vc_type_elems(&ws->type);
		if (bq->op != VC_OP_CONST || xs->op != VC_OP_CONST || vc_type_elems(&xs->type) != 1 || O != w->type.dim[0] ||
		    (nw != 1 && nw != O)) {
			vc_error(on->m, NULL, "node '%s' (QLinearConv): the bias must be a constant of one value an output "
				 "channel, x_scale one constant", on->nm);
			return NULL;
		}
		b = vc_const(on->m, NULL, VC_F32, 1, &O, NULL);
		for (int64_t c = 0; b && c < O; c++)
			((float *)b->data)[c] = (float)((double)((const float *)bq->data)[c] * ((const float *)xs->data)[0] *
							((const float *)ws->data)[nw == 1 ? 0 : c]);
		if (!b)
			return NULL;
	}
	vc_node *x = in[0];
	on->in[0] = x, on->in[1] = w, on->in[2] = b;
	on->n_in = b ? 3 : 2;
	return op_conv(on);
}

/* QLinearMatMul (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): the
 * product of the real operands (constants dequantized). */
static vc_node *op_qlinear_matmul(onnx_node *on)
{
	vc_node *a = dequantized(on, on->in[0], on->in[1], on->in[2], -1);
	vc_node *b = a ? dequantized(on, on->in[3], on->in[4], on->in[5], -1) : NULL;
	if (!b)
		return NULL;
	on->in[0] = a, on->in[1] = b, on->n_in = 2;
	return op_matmul(on);
}

/* Cast: of a constant, its values converted (to an integer type: the
 * fraction dropped, as numpy's astype; to float16: rounded to it); of a
 * computed tensor only to float (values here are float). */
static vc_node *op_cast(onnx_node *on)
{
	int64_t to = attr_i(on->np, "to", 0);
	vc_node *x = on->in[0];
	if (x->op != VC_OP_CONST) {
		if (to == ONNX_FLOAT || to == ONNX_DOUBLE)
			return x;
		vc_error(on->m, NULL, "node '%s' (Cast): a computed tensor cast to %s is not supported (only to float)",
			 on->nm, dtype_name((int)to));
		return NULL;
	}
	if (!onnx_esize((int)to)) {
		vc_error(on->m, NULL, "node '%s' (Cast): to %s is not supported", on->nm, dtype_name((int)to));
		return NULL;
	}
	vc_node *c = vc_const(on->m, on->nm, VC_F32, x->type.rank, x->type.dim, NULL);
	for (int64_t i = 0; c && i < vc_type_elems(&c->type); i++) {
		float v = ((const float *)x->data)[i];
		((float *)c->data)[i] = to == ONNX_BOOL ? (float)(v != 0) : onnx_is_int((int)to) ? truncf(v)
					: to == ONNX_FLOAT16 ? vc_imp_half(vc_imp_to_half(v)) : v;
	}
	return c && onnx_is_int((int)to) && mark_int(on->im, c) ? NULL : c;
}

/* LayerNormalization (opset 17) over the axes from axis on: (x - mean) /
 * sqrt(var + epsilon) * scale (+ bias), the mean and variance as reduce
 * nodes, the rest the host's float arithmetic (PyTorch's opset-13 export
 * writes the same with ReduceMean, Sub, Pow, Sqrt, Div). */
static vc_node *op_layer_norm(onnx_node *on)
{
	vc_node *x = on->in[0];
	int r = x->type.rank;
	int64_t axis = attr_i(on->np, "axis", -1);
	axis += axis < 0 ? r : 0;
	if (axis < 0 || axis >= r || on->np->n_output > 1) {
		vc_error(on->m, NULL, "node '%s' (LayerNormalization): axis %lld of rank %d, or the Mean and InvStdDev "
			 "outputs (not supported)", on->nm, (long long)attr_i(on->np, "axis", -1), r);
		return NULL;
	}
	vc_attrs a;
	vc_attrs_init(&a);
	a.fn = VTA_FN_MEAN, a.keepdims = 1;
	for (int d = (int)axis; d < r; d++)
		a.axes |= 1 << d;
	vc_node *mean = vc_build(on->m, VC_OP_REDUCE, &x, 1, &a, NULL);
	vc_node *d = mean ? vc_imp_sub(on->m, x, mean, NULL) : NULL;
	vc_node *args[2] = {d, d};
	vc_node *sq = d ? vc_build(on->m, VC_OP_MUL, args, 2, NULL, NULL) : NULL;
	vc_node *var = sq ? vc_build(on->m, VC_OP_REDUCE, &sq, 1, &a, NULL) : NULL;
	args[0] = var, args[1] = vc_imp_scalar(on->m, attr_f(on->np, "epsilon", 1e-5));
	vc_node *ve = var && args[1] ? vc_build(on->m, VC_OP_ADD, args, 2, NULL, NULL) : NULL;
	vc_attrs u;
	vc_attrs_init(&u);
	u.fn = VTA_FN_SQRT;
	vc_node *sd = ve ? vc_build(on->m, VC_OP_UNARY, &ve, 1, &u, NULL) : NULL;
	vc_attrs b;
	vc_attrs_init(&b);
	b.fn = VTA_FN_DIV;
	args[0] = d, args[1] = sd;
	vc_node *y = sd ? vc_build(on->m, VC_OP_BINARY, args, 2, &b, NULL) : NULL;
	args[0] = y, args[1] = on->in[1];
	int bias = on->n_in > 2 && on->in[2];
	y = y ? vc_build(on->m, VC_OP_MUL, args, 2, NULL, bias ? NULL : on->nm) : NULL;
	args[0] = y, args[1] = bias ? on->in[2] : NULL;
	return y && bias ? vc_build(on->m, VC_OP_ADD, args, 2, NULL, on->nm) : y;
}

/* Sum, Max, Min, Mean of any number of inputs: op (a BINARY's fn) folded
 * left to right, Mean scaled by 1 / n; one input is itself. */
static vc_node *variadic(onnx_node *on, vc_op op, int fn)
{
	vc_node *y = on->in[0];
	for (int i = 1; y && i < on->n_in; i++) {
		vc_node *args[2] = {y, on->in[i]};
		vc_attrs a;
		vc_attrs_init(&a);
		a.fn = fn;
		int last = i + 1 == on->n_in && strcmp(on->op, "Mean");
		y = vc_build(on->m, op, args, 2, &a, last ? on->nm : NULL);
	}
	return y && !strcmp(on->op, "Mean") ? vc_imp_scale(on->m, y, 1.0 / on->n_in, on->nm) : y;
}

static vc_node *op_max_min_mean(onnx_node *on)
{
	for (int i = 0; i < on->n_in; i++)
		if (!on->in[i]) {
			vc_error(on->m, NULL, "node '%s' (%s): input %d is left out", on->nm, on->op, i);
			return NULL;
		}
	if (!strcmp(on->op, "Mean"))
		return variadic(on, VC_OP_ADD, 0);
	return variadic(on, VC_OP_BINARY, !strcmp(on->op, "Max") ? VTA_FN_MAX : VTA_FN_MIN);
}

static vc_node *op_pow(onnx_node *on)
{
	on->a.fn = VTA_FN_POW;
	return vc_build(on->m, VC_OP_BINARY, on->in, 2, &on->a, on->nm);
}

/* The elementwise functions of ONNX's default domain that are one unary
 * node: the function, and its attributes' names and defaults. */
static const struct unary_op {
	const char *name;
	int fn;
	const char *a_name, *b_name;
	double a_def, b_def;
} unary_ops[] = {
	{"Exp", VTA_FN_EXP, NULL, NULL, 0, 0},
	{"Log", VTA_FN_LOG, NULL, NULL, 0, 0},
	{"Abs", VTA_FN_ABS, NULL, NULL, 0, 0},
	{"Neg", VTA_FN_NEG, NULL, NULL, 0, 0},
	{"Sqrt", VTA_FN_SQRT, NULL, NULL, 0, 0},
	{"Reciprocal", VTA_FN_RECIPROCAL, NULL, NULL, 0, 0},
	{"Floor", VTA_FN_FLOOR, NULL, NULL, 0, 0},
	{"Ceil", VTA_FN_CEIL, NULL, NULL, 0, 0},
	{"Round", VTA_FN_ROUND, NULL, NULL, 0, 0},
	{"Sign", VTA_FN_SIGN, NULL, NULL, 0, 0},
	{"Erf", VTA_FN_ERF, NULL, NULL, 0, 0},
	{"Sin", VTA_FN_SIN, NULL, NULL, 0, 0},
	{"Cos", VTA_FN_COS, NULL, NULL, 0, 0},
	{"Tan", VTA_FN_TAN, NULL, NULL, 0, 0},
	{"Asin", VTA_FN_ASIN, NULL, NULL, 0, 0},
	{"Acos", VTA_FN_ACOS, NULL, NULL, 0, 0},
	{"Atan", VTA_FN_ATAN, NULL, NULL, 0, 0},
	{"Sinh", VTA_FN_SINH, NULL, NULL, 0, 0},
	{"Cosh", VTA_FN_COSH, NULL, NULL, 0, 0},
	{"Asinh", VTA_FN_ASINH, NULL, NULL, 0, 0},
	{"Acosh", VTA_FN_ACOSH, NULL, NULL, 0, 0},
	{"Atanh", VTA_FN_ATANH, NULL, NULL, 0, 0},
	{"Softplus", VTA_FN_SOFTPLUS, NULL, NULL, 0, 0},
	{"Softsign", VTA_FN_SOFTSIGN, NULL, NULL, 0, 0},
	{"Elu", VTA_FN_ELU, "alpha", NULL, 1.0, 0},
	{"Selu", VTA_FN_SELU, "alpha", "gamma", 1.67326319217681884765625, 1.05070102214813232421875},
	{"Celu", VTA_FN_CELU, "alpha", NULL, 1.0, 0},
	{"ThresholdedRelu", VTA_FN_THRESHOLDED_RELU, "alpha", NULL, 1.0, 0},
	{"Mish", VTA_FN_MISH, NULL, NULL, 0, 0},
};

static vc_node *op_unary(onnx_node *on)
{
	for (size_t i = 0; i < sizeof unary_ops / sizeof unary_ops[0]; i++) {
		const struct unary_op *u = &unary_ops[i];
		if (strcmp(u->name, on->op))
			continue;
		on->a.fn = u->fn;
		on->a.alpha = u->a_name ? attr_f(on->np, u->a_name, u->a_def) : 0;
		on->a.beta = u->b_name ? attr_f(on->np, u->b_name, u->b_def) : 0;
		if (u->fn == VTA_FN_CELU && on->a.alpha == 0) {
			vc_error(on->m, NULL, "node '%s' (Celu): alpha must not be 0", on->nm);
			return NULL;
		}
		return vc_build(on->m, VC_OP_UNARY, on->in, 1, &on->a, on->nm);
	}
	vc_error(on->m, NULL, "node '%s': op %s has no unary function", on->nm, on->op);
	return NULL;
}

/* LogSoftmax: the softmax (its axis rules), then the logarithm. */
static vc_node *op_log_softmax(onnx_node *on)
{
	on->a.coerce2d = on->im->opset < 13;
	on->a.axis = attr_i(on->np, "axis", on->im->opset < 13 ? 1 : -1);
	vc_node *y = vc_build(on->m, VC_OP_SOFTMAX, on->in, 1, &on->a, NULL);
	vc_attrs a;
	vc_attrs_init(&a);
	a.fn = VTA_FN_LOG;
	return y ? vc_build(on->m, VC_OP_UNARY, &y, 1, &a, on->nm) : NULL;
}

static vc_node *op_arith(onnx_node *on)
{
	char k = !strcmp(on->op, "Sub") ? 'S' : !strcmp(on->op, "Div") ? 'D' : !strcmp(on->op, "Mul") ? 'M' : 'A';
	if (on->in[0]->op == VC_OP_CONST && on->in[1]->op == VC_OP_CONST && on->n_in == 2)
		return const_arith(on->im, k, on->in[0], on->in[1], on->nm);
	if (attr(on->np, "axis")) {
		vc_error(on->m, NULL, "node '%s' (%s): legacy broadcast axis is not supported", on->nm, on->op);
		return NULL;
	}
	if (k == 'D' && on->in[1]->op != VC_OP_CONST) { /* a tensor divisor: the host's division */
		on->a.fn = VTA_FN_DIV;
		return vc_build(on->m, VC_OP_BINARY, on->in, 2, &on->a, on->nm);
	}
	if (!strcmp(on->op, "Sum") && on->n_in != 2)
		return variadic(on, VC_OP_ADD, 0);
	if (k == 'S' || k == 'D') {
		return k == 'S' ? vc_imp_sub(on->m, on->in[0], on->in[1], on->nm)
				: vc_imp_div_const(on->m, on->in[0], on->in[1], on->nm);
	}
	return vc_build(on->m, !strcmp(on->op, "Mul") ? VC_OP_MUL : VC_OP_ADD, on->in, 2, &on->a, on->nm);
}

static vc_node *op_relu(onnx_node *on)
{
	return vc_build(on->m, VC_OP_RELU, on->in, 1, &on->a, on->nm);
}

static vc_node *op_sigmoid(onnx_node *on)
{
	return vc_build(on->m, VC_OP_SIGMOID, on->in, 1, &on->a, on->nm);
}

static vc_node *op_leaky_relu(onnx_node *on)
{
	/* PRelu's slope broadcasts onto x one way (the rule checks the ops
	 * it becomes, under names of their own: say it of this node) */
	const vc_type *x = &on->in[0]->type, *s = on->n_in > 1 ? &on->in[1]->type : NULL;
	/* PRelu 1 and 6: a slope of one value is shared, one of C values is a
	 * channel's (axis 1); numpy broadcasting came with opset 7 */
	if (s && on->im->opset < 7 && s->rank == 1 && s->dim[0] > 1 && x->rank >= 3 && s->dim[0] == x->dim[1]) {
		int64_t d[VC_MAX_RANK] = {s->dim[0]};
		for (int i = 1; i < x->rank - 1; i++)
			d[i] = 1;
		if (!(on->in[1] = reshaped(on->m, on->in[1], x->rank - 1, d)))
			return NULL;
		s = &on->in[1]->type;
	}
	for (int i = 1; s && i <= s->rank; i++)
		if (i > x->rank || (s->dim[s->rank - i] != 1 && s->dim[s->rank - i] != x->dim[x->rank - i])) {
			vc_error(on->m, NULL, "node '%s' (PRelu): a slope of %d dimensions does not broadcast onto the input "
				 "(dimension %d from the end: %lld)", on->nm, s->rank, i, (long long)s->dim[s->rank - i]);
			return NULL;
		}
	return vc_imp_leaky_relu(on->m, on->in[0], on->n_in > 1 ? on->in[1] : NULL, attr_f(on->np, "alpha", 0.01), on->nm);
}

static vc_node *op_tanh(onnx_node *on)
{
	return vc_imp_tanh(on->m, on->in[0], on->nm);
}

static vc_node *op_hard_sigmoid(onnx_node *on)
{
	/* max(0, min(1, alpha x + beta)) (HardSwish: alpha 1/6, beta 1/2,
	 * times x) as the float ops libvta runs: mul, add, clip */
	int swish = on->op[4] == 'S' && on->op[5] == 'w';
	double alpha = swish ? 1.0 / 6.0 : attr_f(on->np, "alpha", 0.2), beta = swish ? 0.5 : attr_f(on->np, "beta", 0.5);
	return vc_imp_hard_sigmoid(on->m, on->in[0], alpha, beta, swish, on->nm);
}

static vc_node *op_reduce(onnx_node *on)
{
	return reduce(on->m, on->np, on->in, on->n_in, on->op, on->nm);
}

static vc_node *op_pad(onnx_node *on)
{
	return pad(on->m, on->np, on->in, on->n_in, on->im->opset, on->nm);
}

static vc_node *op_clip(onnx_node *on)
{
	on->a.lo = attr_f(on->np, "min", -INFINITY);
	on->a.hi = attr_f(on->np, "max", INFINITY);
	for (int k = 1; k < on->n_in; k++) {
		if (on->in[k]->op != VC_OP_CONST || vc_type_elems(&on->in[k]->type) != 1) {
			vc_error(on->m, NULL, "node '%s' (Clip): min/max must be constant scalars", on->nm);
			return NULL;
		}
		*(k == 1 ? &on->a.lo : &on->a.hi) = ((float *)on->in[k]->data)[0];
	}
	return vc_build(on->m, VC_OP_CLIP, on->in, 1, &on->a, on->nm);
}

static vc_node *op_pool(onnx_node *on)
{
	int is_max = on->op[0] == 'M', r = on->in[0]->type.rank;
	if (r == 3)
		return lift_1d(on, op_pool);
	if (r != 4) {
		vc_error(on->m, NULL, "node '%s' (%s): %s", on->nm, on->op, r == 5 ? "3-D pooling is not supported"
			 : "only 1-D and 2-D pooling (3-D and 4-D tensors) is supported");
		return NULL;
	}
	if (!attr(on->np, "kernel_shape")) {
		vc_error(on->m, NULL, "node '%s' (%s): kernel_shape is required", on->nm, on->op);
		return NULL;
	}
	if (spatial(on->m, on->np, &on->a, on->in[0]->type.dim[2], on->in[0]->type.dim[3], NULL))
		return NULL;
	if (attr_i(on->np, "storage_order", 0) != 0 || on->np->n_output > 1) {
		vc_error(on->m, NULL, "node '%s' (MaxPool): the Indices output / storage_order are not supported", on->nm);
		return NULL;
	}
	on->a.ceil_mode = (int)attr_i(on->np, "ceil_mode", 0);
	on->a.count_include_pad = (int)attr_i(on->np, "count_include_pad", 0);
	return vc_build(on->m, is_max ? VC_OP_MAXPOOL : VC_OP_AVGPOOL, on->in, 1, &on->a, on->nm);
}

static vc_node *op_gap(onnx_node *on)
{
	return vc_build(on->m, VC_OP_GAP, on->in, 1, &on->a, on->nm);
}

static vc_node *op_reshape(onnx_node *on)
{
	if (attr_i(on->np, "allowzero", 0)) {
		vc_error(on->m, NULL, "node '%s' (Reshape): allowzero=1 is not supported", on->nm);
		return NULL;
	}
	int64_t c = 0;
	if (on->n_in >= 2) {
		if (on->in[1]->op != VC_OP_CONST || on->in[1]->type.rank != 1 || on->in[1]->type.dim[0] > VC_MAX_RANK) {
			vc_error(on->m, NULL, "node '%s' (Reshape): the shape must be a constant of at most %d entries", on->nm,
				 VC_MAX_RANK);
			return NULL;
		}
		c = on->in[1]->type.dim[0];
		for (int64_t i = 0; i < c; i++)
			on->a.shape[i] = (int64_t)((float *)on->in[1]->data)[i];
	} else if (attr_ints(on->np, "shape", on->a.shape, VC_MAX_RANK, &c) < 0) {
		vc_error(on->m, NULL, "node '%s' (Reshape): shape of rank > %d", on->nm, VC_MAX_RANK);
		return NULL;
	}
	on->a.nshape = (int)c;
	return vc_build(on->m, VC_OP_RESHAPE, on->in, 1, &on->a, on->nm);
}

static vc_node *op_flatten(onnx_node *on)
{
	on->a.axis = attr_i(on->np, "axis", 1);
	return vc_build(on->m, VC_OP_FLATTEN, on->in, 1, &on->a, on->nm);
}

static vc_node *op_softmax(onnx_node *on)
{
	on->a.coerce2d = on->im->opset < 13;
	on->a.axis = attr_i(on->np, "axis", on->im->opset < 13 ? 1 : -1);
	return vc_build(on->m, VC_OP_SOFTMAX, on->in, 1, &on->a, on->nm);
}

static vc_node *op_batchnorm(onnx_node *on)
{
	if (attr_i(on->np, "training_mode", 0) || on->np->n_output > 1) {
		vc_error(on->m, NULL, "node '%s' (BatchNormalization): training mode is not supported", on->nm);
		return NULL;
	}
	if (attr_i(on->np, "spatial", 1) != 1) {
		vc_error(on->m, NULL, "node '%s' (BatchNormalization): spatial=0 is not supported", on->nm);
		return NULL;
	}
	on->a.eps = attr_f(on->np, "epsilon", 1e-5);
	return vc_build(on->m, VC_OP_BATCHNORM, on->in, 5, &on->a, on->nm);
}

static vc_node *op_concat(onnx_node *on)
{
	if (!attr(on->np, "axis") && on->im->opset >= 4) {
		vc_error(on->m, NULL, "node '%s' (Concat): attribute axis is required", on->nm);
		return NULL;
	}
	on->a.axis = attr_i(on->np, "axis", 1);
	/* a node takes at most 16 operands (the .vtam format's limit):
	 * more (DenseNet's last blocks) are concatenated 16 at a time */
	vc_node *y = vc_build(on->m, VC_OP_CONCAT, on->in, on->n_in < 16 ? on->n_in : 16, &on->a, on->n_in <= 16 ? on->nm : NULL);
	for (int k = 16; y && k < on->n_in; k += 15) {
		vc_node *part[16] = {y};
		int cnt = on->n_in - k < 15 ? on->n_in - k : 15;
		memcpy(part + 1, on->in + k, (size_t)cnt * sizeof *part);
		y = vc_build(on->m, VC_OP_CONCAT, part, cnt + 1, &on->a, k + cnt == on->n_in ? on->nm : NULL);
	}
	return y;
}

static vc_node *op_identity(onnx_node *on)
{
	/* Dropout outside training is the identity whatever its ratio (an
	 * input from opset 12); training_mode true would drop values, unless
	 * the ratio is a constant 0 (Swin's attention dropout as exported) */
	const vc_node *t = on->n_in > 2 && !strcmp(on->op, "Dropout") ? on->in[2] : NULL, *r = on->n_in > 1 ? on->in[1] : NULL;
	int zero = r && r->op == VC_OP_CONST && vc_type_elems(&r->type) == 1 && ((const float *)r->data)[0] == 0;
	if (t && !zero && (t->op != VC_OP_CONST || vc_type_elems(&t->type) != 1 || ((const float *)t->data)[0] != 0)) {
		vc_error(on->m, NULL, "node '%s' (Dropout): training_mode must be a constant false (or the ratio 0)", on->nm);
		return NULL;
	}
	return on->in[0];
}

static vc_node *op_constant(onnx_node *on)
{
	const Onnx__AttributeProto *v = attr(on->np, "value");
	if (!v || !v->t) {
		vc_error(on->m, NULL, "node '%s' (Constant): only the tensor 'value' form is supported", on->nm);
		return NULL;
	}
	vc_node *c = tensor_const(on->m, v->t, on->nm);
	return c && onnx_is_int(v->t->data_type) && mark_int(on->im, c) ? NULL : c;
}

static vc_node *op_shape(onnx_node *on)
{
	int64_t r = on->in[0]->type.rank;
	vc_node *c = vc_const(on->m, on->nm, VC_F32, 1, &r, NULL);
	for (int64_t i = 0; c && i < r; i++)
		((float *)c->data)[i] = (float)on->in[0]->type.dim[i];
	return c && mark_int(on->im, c) ? NULL : c;
}

static vc_node *op_gather(onnx_node *on)
{
	return gather(on->im, on->np, on->in[0], on->in[1], on->nm);
}

static vc_node *op_slice(onnx_node *on)
{
	return slice(on->im, on->np, on->in, on->n_in, on->nm);
}

/* How often the graph reads the value name: node inputs and graph outputs. */
static int uses(const Onnx__GraphProto *g, const char *name)
{
	int n = 0;
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_input; k++)
			n += !strcmp(g->node[i]->input[k], name);
	for (size_t i = 0; i < g->n_output; i++)
		n += g->output[i]->name && !strcmp(g->output[i]->name, name);
	return n;
}

static vc_node *op_transpose(onnx_node *on)
{
	int64_t c;
	if (attr_ints(on->np, "perm", on->a.shape, VC_MAX_RANK, &c) < 0 || (c && c != on->in[0]->type.rank)) {
		vc_error(on->m, NULL, "node '%s' (Transpose): perm does not have an entry per dimension", on->nm);
		return NULL;
	}
	on->a.nshape = on->in[0]->type.rank;
	for (int i = 0; !c && i < on->a.nshape; i++) /* default: the dimensions reversed */
		on->a.shape[i] = on->a.nshape - 1 - i;
	/* tf2onnx's NHWC graph input brought to NCHW, its only use: the input
	 * itself becomes NCHW, as images and datasets are read */
	vc_node *x = on->in[0];
	static const int64_t to_nchw[4] = {0, 3, 1, 2};
	if (x->op == VC_OP_INPUT && x->type.rank == 4 && !memcmp(on->a.shape, to_nchw, sizeof to_nchw) &&
	    uses(on->im->g, on->np->input[0]) == 1) {
		const int64_t d[4] = {x->type.dim[0], x->type.dim[3], x->type.dim[1], x->type.dim[2]};
		memcpy(x->type.dim, d, sizeof d);
		return x;
	}
	return vc_build(on->m, VC_OP_TRANSPOSE, on->in, 1, &on->a, on->nm);
}

/* GlobalMaxPool: max pooling over the whole image (4-D). */
static vc_node *op_global_max_pool(onnx_node *on)
{
	if (on->in[0]->type.rank != 4) {
		vc_error(on->m, NULL, "node '%s' (GlobalMaxPool): only 4-D data is supported", on->nm);
		return NULL;
	}
	on->a.kernel[0] = on->in[0]->type.dim[2], on->a.kernel[1] = on->in[0]->type.dim[3];
	on->a.stride[0] = on->a.stride[1] = 1;
	return vc_build(on->m, VC_OP_MAXPOOL, on->in, 1, &on->a, on->nm);
}

/* Split along an axis into the node's outputs: the sizes an attribute (an
 * input from opset 13), else equal parts (opset 18's num_outputs: the last
 * part may be smaller); each output is a slice, outputs after the first
 * bound here. */
static vc_node *op_split(onnx_node *on)
{
	vc_node *x = on->in[0];
	int r = x->type.rank, n_out = (int)on->np->n_output;
	int64_t axis = attr_i(on->np, "axis", 0), parts[16];
	axis += axis < 0 ? r : 0;
	if (axis < 0 || axis >= r || n_out > 16) {
		vc_error(on->m, NULL, "node '%s' (Split): axis %lld of rank %d, or %d outputs (at most 16)", on->nm,
			 (long long)attr_i(on->np, "axis", 0), r, n_out);
		return NULL;
	}
	int64_t dim = x->type.dim[axis];
	int c = int_list(on->np, on->in, on->n_in, 1, "split", parts, 16);
	if (c == 0) { /* equal parts, the last smaller when num_outputs does not divide (opset 18) */
		int64_t k = (dim + n_out - 1) / n_out;
		for (int i = 0; i < n_out; i++)
			parts[i] = dim - k * i < k ? dim - k * i : k;
		c = n_out;
		if (on->im->opset < 18 && dim % n_out)
			c = -2;
	}
	int64_t sum = 0;
	for (int i = 0; c == n_out && i < c; i++)
		sum += parts[i] >= 1 ? parts[i] : -(INT64_C(1) << 40);
	if (c != n_out || sum != dim) {
		vc_error(on->m, NULL, "node '%s' (Split): the parts (constant, each at least 1) must add up to the %lld "
			 "entries of axis %lld over %d outputs", on->nm, (long long)dim, (long long)axis, n_out);
		return NULL;
	}
	vc_node *first = NULL;
	for (int i = 0, start = 0; i < n_out; start += (int)parts[i], i++) {
		vc_attrs a;
		vc_attrs_init(&a);
		a.axis = axis, a.pad[0] = start, a.pad[2] = dim - start - parts[i];
		const char *name = on->np->output[i][0] ? on->np->output[i] : NULL;
		vc_node *y = n_out == 1 ? x : vc_build(on->m, VC_OP_SLICE, &x, 1, &a, name);
		if (!y || (i && name && bind(on->im, name, y)))
			return NULL;
		first = i ? first : y;
	}
	return first;
}

/* Squeeze and Unsqueeze as a reshape (the axes an attribute, an input from
 * opset 13; Squeeze without axes drops every dimension of 1). */
static vc_node *op_squeeze(onnx_node *on)
{
	const vc_type *t = &on->in[0]->type;
	int un = on->op[0] == 'U', c, r = t->rank;
	int64_t axes[VC_MAX_RANK];
	c = int_list(on->np, on->in, on->n_in, 1, "axes", axes, VC_MAX_RANK);
	int out_r = un ? r + c : r - c, mark[VC_MAX_RANK + 1] = {0}, ok = c >= 0 && (c > 0 || !un) && out_r >= 0 &&
											out_r <= VC_MAX_RANK;
	for (int i = 0; ok && i < c; i++) {
		int64_t ax = axes[i] + (axes[i] < 0 ? (un ? out_r : r) : 0);
		ok = ax >= 0 && ax < (un ? out_r : r) && !mark[ax] && (un || t->dim[ax] == 1);
		if (ok)
			mark[ax] = 1;
	}
	if (!ok) {
		vc_error(on->m, NULL, "node '%s' (%s): the axes must be constant, distinct and inside the %s (at most %d)%s",
			 on->nm, on->op, un ? "result's rank" : "input's rank", VC_MAX_RANK, un ? "" : ", of size 1");
		return NULL;
	}
	int n = 0;
	if (un)
		for (int d = 0, k = 0; d < out_r; d++)
			on->a.shape[n++] = mark[d] ? 1 : t->dim[k++];
	else
		for (int d = 0; d < r; d++)
			if (!(c ? mark[d] : t->dim[d] == 1))
				on->a.shape[n++] = t->dim[d];
	on->a.nshape = n;
	return vc_build(on->m, VC_OP_RESHAPE, on->in, 1, &on->a, on->nm);
}

/* DepthToSpace (DCR or CRD) and SpaceToDepth of 4-D data by blocksize b:
 * a reshape to 6-D, a transpose and a reshape back. */
static vc_node *op_depth_space(onnx_node *on)
{
	const vc_type *t = &on->in[0]->type;
	int to_space = on->op[0] == 'D';
	int64_t b = attr_i(on->np, "blocksize", 0), N = t->dim[0], C = t->dim[1], H = t->dim[2], W = t->dim[3];
	char mode[8] = "DCR";
	attr_s(on->np, "mode", mode, sizeof mode);
	int crd = !strcmp(mode, "CRD");
	if (t->rank != 4 || b < 1 || b > 64 || (!crd && strcmp(mode, "DCR")) ||
	    (to_space ? C % (b * b) : H % b || W % b)) {
		vc_error(on->m, NULL, "node '%s' (%s): needs 4-D data, blocksize 1 to 64 dividing the %s, mode DCR or CRD",
			 on->nm, on->op, to_space ? "channels twice" : "rows and columns");
		return NULL;
	}
	vc_attrs a, p, o;
	vc_attrs_init(&a), vc_attrs_init(&p), vc_attrs_init(&o);
	a.nshape = p.nshape = 6, o.nshape = 4;
	static const int64_t dcr[6] = {0, 3, 4, 1, 5, 2}, crdp[6] = {0, 1, 4, 2, 5, 3}, s2d[6] = {0, 3, 5, 1, 2, 4};
	const int64_t *perm = !to_space ? s2d : crd ? crdp : dcr;
	int64_t c = C / (b * b);
	const int64_t d6[3][6] = {{N, b, b, c, H, W}, {N, c, b, b, H, W}, {N, C, H / b, b, W / b, b}};
	memcpy(a.shape, d6[!to_space ? 2 : crd ? 1 : 0], sizeof a.shape);
	memcpy(p.shape, perm, sizeof p.shape);
	const int64_t d4[4] = {N, to_space ? c : C * b * b, to_space ? H * b : H / b, to_space ? W * b : W / b};
	memcpy(o.shape, d4, sizeof d4);
	vc_node *y = vc_build(on->m, VC_OP_RESHAPE, on->in, 1, &a, NULL);
	y = y ? vc_build(on->m, VC_OP_TRANSPOSE, &y, 1, &p, NULL) : NULL;
	return y ? vc_build(on->m, VC_OP_RESHAPE, &y, 1, &o, on->nm) : NULL;
}

/* The whole factor out/in of a resize along one axis; 0 if it is not one. */
static int64_t whole_scale(double scale, int64_t in, int64_t out)
{
	int64_t k = out > 0 && in > 0 && out % in == 0 ? out / in : 0;
	return k >= 1 && fabs(scale - (double)k) < 1e-6 * (double)k ? k : 0;
}

/* The index of name in the NULL-terminated names, or -1. */
static int choice(const char *name, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

/* Resize's scales (or sizes) into sc and out: an attribute (Upsample 7),
 * input 1 (Upsample 9, Resize 10), input 2 or the sizes in input 3 (Resize
 * 11 and later). -1 with a diagnostic if they are not constants of 4. */
static int resize_scales(onnx_node *on, int upsample, double *sc, int64_t *out)
{
	const vc_type *xt = &on->in[0]->type;
	int si = upsample || on->im->opset < 11 ? 1 : 2;
	const vc_node *sv = on->n_in > si ? on->in[si] : NULL, *zv = on->n_in > 3 && !upsample ? on->in[3] : NULL;
	const Onnx__AttributeProto *sa = upsample ? attr(on->np, "scales") : NULL;
	for (int i = 0; i < 4; i++)
		out[i] = xt->dim[i];
	if (sa && sa->n_floats == 4) {
		for (int i = 0; i < 4; i++)
			sc[i] = sa->floats[i];
	} else if (sv && vc_type_elems(&sv->type) == 4 && sv->op == VC_OP_CONST) {
		for (int i = 0; i < 4; i++)
			sc[i] = ((const float *)sv->data)[i];
	} else if (zv && vc_type_elems(&zv->type) == 4 && zv->op == VC_OP_CONST) {
		for (int i = 0; i < 4; i++)
			sc[i] = (double)(out[i] = as_index(((const float *)zv->data)[i])) / (double)xt->dim[i];
		return 0;
	} else {
		return vc_error(on->m, NULL, "node '%s' (%s): the scales or sizes must be a constant of 4 entries", on->nm,
				on->op);
	}
	for (int i = 0; i < 4; i++)
		out[i] = (int64_t)floor((double)xt->dim[i] * sc[i] + 1e-9);
	return 0;
}

/*
 * Resize (opset 10 and later) and Upsample (7-9) of the rows and columns.
 * Nearest neighbour by whole factors where the source pixel of output y is
 * y / k rounded down (asymmetric with floor, PyTorch's nn.Upsample; or with
 * round_prefer_floor at a factor of 2; half_pixel or pytorch_half_pixel
 * with round_prefer_floor/ceil) is the upsample op, which also moves int8;
 * every other nearest or linear resize is the float resize op on the host.
 * Scales or sizes must be constants; cubic and tf_crop_and_resize are
 * refused by name.
 */
static vc_node *op_resize(onnx_node *on)
{
	static const char *const modes[] = {"nearest", "linear", NULL};
	static const char *const coords[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
					     "tf_half_pixel_for_nn", NULL};
	static const char *const rounds[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", NULL};
	const vc_type *xt = &on->in[0]->type;
	int upsample = !strcmp(on->op, "Upsample");
	char mode[32] = "nearest", ctm[32] = "half_pixel", nmode[32] = "round_prefer_floor";
	attr_s(on->np, "mode", mode, sizeof mode);
	if (upsample || on->im->opset < 11) /* before opset 11: asymmetric, floor */
		snprintf(ctm, sizeof ctm, "asymmetric"), snprintf(nmode, sizeof nmode, "floor");
	attr_s(on->np, "coordinate_transformation_mode", ctm, sizeof ctm);
	attr_s(on->np, "nearest_mode", nmode, sizeof nmode);
	int im = choice(mode, modes), ic = choice(ctm, coords), ir = choice(nmode, rounds);
	if (im < 0 || ic < 0 || ir < 0) {
		vc_error(on->m, NULL, "node '%s' (%s): %s '%s' is not supported", on->nm, on->op,
			 im < 0 ? "mode" : ic < 0 ? "coordinate_transformation_mode" : "nearest_mode",
			 im < 0 ? mode : ic < 0 ? ctm : nmode);
		return NULL;
	}
	if (attr_i(on->np, "antialias", 0)) {
		vc_error(on->m, NULL, "node '%s' (%s): antialias is not supported", on->nm, on->op);
		return NULL;
	}
	if (xt->rank != 4) {
		vc_error(on->m, NULL, "node '%s' (%s): only 4-D data is supported", on->nm, on->op);
		return NULL;
	}
	double sc[4];
	int64_t out[4];
	if (resize_scales(on, upsample, sc, out))
		return NULL;
	if (out[0] != xt->dim[0] || out[1] != xt->dim[1] || out[2] < 1 || out[3] < 1 || out[2] > 65536 ||
	    out[3] > 65536) {
		vc_error(on->m, NULL, "node '%s' (%s): only the rows and columns can be resized, to 1 to 65536 (scales %g, "
			 "%g, %g, %g)", on->nm, on->op, sc[0], sc[1], sc[2], sc[3]);
		return NULL;
	}
	if (out[2] == xt->dim[2] && out[3] == xt->dim[3] && sc[2] == 1 && sc[3] == 1)
		return on->in[0];
	int64_t kh = whole_scale(sc[2], xt->dim[2], out[2]), kw = whole_scale(sc[3], xt->dim[3], out[3]);
	int64_t k = kh > kw ? kh : kw;
	int floor_like = (ic == VC_COORD_ASYMMETRIC && (ir == VC_ROUND_FLOOR || (k <= 2 && ir == VC_ROUND_PREFER_FLOOR))) ||
			 ((ic == VC_COORD_HALF_PIXEL || ic == VC_COORD_PYTORCH_HALF_PIXEL) &&
			  (ir == VC_ROUND_PREFER_FLOOR || ir == VC_ROUND_PREFER_CEIL));
	if (im == VC_RESIZE_NEAREST && kh && kw && kh <= 64 && kw <= 64 && floor_like) {
		on->a.stride[0] = kh, on->a.stride[1] = kw;
		return vc_build(on->m, VC_OP_UPSAMPLE, on->in, 1, &on->a, on->nm);
	}
	on->a.resize_mode = im, on->a.resize_coord = ic, on->a.resize_round = ir;
	on->a.scale[0] = sc[2], on->a.scale[1] = sc[3];
	on->a.nshape = 4;
	memcpy(on->a.shape, out, sizeof out);
	return vc_build(on->m, VC_OP_RESIZE, on->in, 1, &on->a, on->nm);
}

#define NO_ATTRS ((const char *const[]){NULL})
#define REDUCE_ATTRS ((const char *const[]){"axes", "keepdims", "noop_with_empty_axes", NULL})

/* The op types of the default domain the importer takes: the attributes
 * each may carry, its least number of inputs, and its handler. */
static const struct onnx_op {
	const char *name;
	const char *const *attrs;
	int min_in;
	vc_node *(*fn)(onnx_node *on);
	int holes; /* optional inputs may be left out before given ones (the handler checks for NULL) */
} onnx_ops[] = {
	{"Conv", (const char *const[]){"kernel_shape", "strides", "pads", "dilations", "group", "auto_pad", NULL}, 2, op_conv, 0},
	{"Gemm", (const char *const[]){"alpha", "beta", "transA", "transB", "broadcast", NULL}, 2, op_gemm, 0},
	{"MatMul", NO_ATTRS, 2, op_matmul, 0},
	{"Add", (const char *const[]){"broadcast", "axis", NULL}, 2, op_arith, 0},
	{"Sum", (const char *const[]){"broadcast", "axis", NULL}, 1, op_arith, 0},
	{"Max", NO_ATTRS, 1, op_max_min_mean, 0},
	{"Min", NO_ATTRS, 1, op_max_min_mean, 0},
	{"Mean", NO_ATTRS, 1, op_max_min_mean, 0},
	{"Pow", NO_ATTRS, 2, op_pow, 0},
	{"LayerNormalization", (const char *const[]){"axis", "epsilon", "stash_type", NULL}, 2, op_layer_norm, 0},
	{"QuantizeLinear", (const char *const[]){"axis", "saturate", NULL}, 2, op_qdq, 0},
	{"DequantizeLinear", (const char *const[]){"axis", NULL}, 2, op_qdq, 0},
	{"QLinearConv", (const char *const[]){"kernel_shape", "strides", "pads", "dilations", "group", "auto_pad", NULL}, 8,
	 op_qlinear_conv, 0},
	{"QLinearMatMul", NO_ATTRS, 8, op_qlinear_matmul, 0},
	{"Cast", (const char *const[]){"to", "saturate", NULL}, 1, op_cast, 0},
	{"ConstantOfShape", (const char *const[]){"value", NULL}, 1, op_constant_of_shape, 0},
	{"Equal", NO_ATTRS, 2, op_equal_where, 0},
	{"Where", NO_ATTRS, 3, op_equal_where, 0},
	{"Expand", NO_ATTRS, 2, op_expand, 0},
	{"Range", NO_ATTRS, 3, op_const_misc, 0},
	{"Mod", (const char *const[]){"fmod", NULL}, 2, op_const_misc, 0},
	{"Not", NO_ATTRS, 1, op_const_misc, 0},
	{"ScatterND", (const char *const[]){"reduction", NULL}, 3, op_scatter_nd, 0},
	{"LogSoftmax", (const char *const[]){"axis", NULL}, 1, op_log_softmax, 0},
	{"Exp", NO_ATTRS, 1, op_unary, 0}, {"Log", NO_ATTRS, 1, op_unary, 0}, {"Abs", NO_ATTRS, 1, op_unary, 0},
	{"Neg", NO_ATTRS, 1, op_unary, 0}, {"Sqrt", NO_ATTRS, 1, op_unary, 0}, {"Reciprocal", NO_ATTRS, 1, op_unary, 0},
	{"Floor", NO_ATTRS, 1, op_unary, 0}, {"Ceil", NO_ATTRS, 1, op_unary, 0}, {"Round", NO_ATTRS, 1, op_unary, 0},
	{"Sign", NO_ATTRS, 1, op_unary, 0}, {"Erf", NO_ATTRS, 1, op_unary, 0}, {"Sin", NO_ATTRS, 1, op_unary, 0},
	{"Cos", NO_ATTRS, 1, op_unary, 0}, {"Tan", NO_ATTRS, 1, op_unary, 0}, {"Asin", NO_ATTRS, 1, op_unary, 0},
	{"Acos", NO_ATTRS, 1, op_unary, 0}, {"Atan", NO_ATTRS, 1, op_unary, 0}, {"Sinh", NO_ATTRS, 1, op_unary, 0},
	{"Cosh", NO_ATTRS, 1, op_unary, 0}, {"Asinh", NO_ATTRS, 1, op_unary, 0}, {"Acosh", NO_ATTRS, 1, op_unary, 0},
	{"Atanh", NO_ATTRS, 1, op_unary, 0}, {"Softplus", NO_ATTRS, 1, op_unary, 0},
	{"Softsign", NO_ATTRS, 1, op_unary, 0}, {"Mish", NO_ATTRS, 1, op_unary, 0},
	{"Elu", (const char *const[]){"alpha", NULL}, 1, op_unary, 0},
	{"Selu", (const char *const[]){"alpha", "gamma", NULL}, 1, op_unary, 0},
	{"Celu", (const char *const[]){"alpha", NULL}, 1, op_unary, 0},
	{"ThresholdedRelu", (const char *const[]){"alpha", NULL}, 1, op_unary, 0},
	{"Mul", (const char *const[]){"broadcast", "axis", NULL}, 2, op_arith, 0},
	{"Sub", (const char *const[]){"broadcast", "axis", NULL}, 2, op_arith, 0},
	{"Div", (const char *const[]){"broadcast", "axis", NULL}, 2, op_arith, 0},
	{"Relu", NO_ATTRS, 1, op_relu, 0},
	{"Sigmoid", NO_ATTRS, 1, op_sigmoid, 0},
	{"HardSigmoid", (const char *const[]){"alpha", "beta", NULL}, 1, op_hard_sigmoid, 0},
	{"HardSwish", NO_ATTRS, 1, op_hard_sigmoid, 0},
	{"LeakyRelu", (const char *const[]){"alpha", NULL}, 1, op_leaky_relu, 0},
	{"PRelu", NO_ATTRS, 2, op_leaky_relu, 0},
	{"Tanh", NO_ATTRS, 1, op_tanh, 0},
	{"ReduceMean", REDUCE_ATTRS, 1, op_reduce, 0},
	{"ReduceMax", REDUCE_ATTRS, 1, op_reduce, 0},
	{"ReduceSum", REDUCE_ATTRS, 1, op_reduce, 0},
	{"ReduceMin", REDUCE_ATTRS, 1, op_reduce, 0},
	{"ReduceProd", REDUCE_ATTRS, 1, op_reduce, 0},
	{"ReduceL1", REDUCE_ATTRS, 1, op_reduce, 0},
	{"ReduceL2", REDUCE_ATTRS, 1, op_reduce, 0},
	{"ReduceSumSquare", REDUCE_ATTRS, 1, op_reduce, 0},
	{"ReduceLogSum", REDUCE_ATTRS, 1, op_reduce, 0},
	{"ReduceLogSumExp", REDUCE_ATTRS, 1, op_reduce, 0},
	{"Split", (const char *const[]){"axis", "split", "num_outputs", NULL}, 1, op_split, 0},
	{"ConvTranspose", (const char *const[]){"auto_pad", "dilations", "group", "kernel_shape", "output_padding",
						"output_shape", "pads", "strides", NULL}, 2, op_conv_transpose, 0},
	{"Squeeze", (const char *const[]){"axes", NULL}, 1, op_squeeze, 0},
	{"Unsqueeze", (const char *const[]){"axes", NULL}, 1, op_squeeze, 0},
	{"DepthToSpace", (const char *const[]){"blocksize", "mode", NULL}, 1, op_depth_space, 0},
	{"SpaceToDepth", (const char *const[]){"blocksize", NULL}, 1, op_depth_space, 0},
	{"Pad", (const char *const[]){"mode", "pads", "value", NULL}, 1, op_pad, 0},
	{"Clip", (const char *const[]){"min", "max", NULL}, 1, op_clip, 0},
	{"MaxPool", (const char *const[]){"kernel_shape", "strides", "pads", "dilations", "auto_pad", "ceil_mode", "storage_order", NULL}, 1, op_pool, 0},
	{"AveragePool", (const char *const[]){"kernel_shape", "strides", "pads", "dilations", "auto_pad", "ceil_mode", "count_include_pad", NULL}, 1, op_pool, 0},
	{"GlobalAveragePool", NO_ATTRS, 1, op_gap, 0},
	{"Reshape", (const char *const[]){"shape", "allowzero", NULL}, 1, op_reshape, 0},
	{"Flatten", (const char *const[]){"axis", NULL}, 1, op_flatten, 0},
	{"Softmax", (const char *const[]){"axis", NULL}, 1, op_softmax, 0},
	{"BatchNormalization", (const char *const[]){"epsilon", "momentum", "spatial", "is_test", "consumed_inputs", "training_mode", NULL}, 5, op_batchnorm, 0},
	{"Concat", (const char *const[]){"axis", NULL}, 1, op_concat, 0},
	{"Identity", (const char *const[]){"ratio", "is_test", "seed", NULL}, 1, op_identity, 0},
	{"Dropout", (const char *const[]){"ratio", "is_test", "seed", NULL}, 1, op_identity, 0},
	{"Constant", (const char *const[]){"value", NULL}, 0, op_constant, 0},
	{"Shape", NO_ATTRS, 1, op_shape, 0},
	{"Gather", (const char *const[]){"axis", NULL}, 2, op_gather, 0},
	{"Slice", (const char *const[]){"starts", "ends", "axes", NULL}, 1, op_slice, 0},
	{"Transpose", (const char *const[]){"perm", NULL}, 1, op_transpose, 0},
	{"GlobalMaxPool", NO_ATTRS, 1, op_global_max_pool, 0},
	{"Resize", (const char *const[]){"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
				 "exclude_outside", "extrapolation_value", "antialias", NULL}, 1, op_resize, 1},
	{"Upsample", (const char *const[]){"mode", "scales", NULL}, 1, op_resize, 0},
};

static const struct onnx_op *onnx_op_find(const char *name)
{
	for (size_t i = 0; i < sizeof onnx_ops / sizeof onnx_ops[0]; i++)
		if (!strcmp(onnx_ops[i].name, name))
			return &onnx_ops[i];
	return NULL;
}

/* The node np through its op's handler, after its inputs, domain,
 * attributes and number of inputs are checked. */
static vc_node *import_node(importer *im, const Onnx__NodeProto *np)
{
	vc_module *m = im->m;
	const char *op = np->op_type ? np->op_type : "";
	const char *nm = node_name(np);
	onnx_node ctx = {.im = im, .m = m, .np = np, .op = op, .nm = nm};
	vc_attrs_init(&ctx.a);
	vc_node **in = ctx.in;
	int n_in = 0;
	if (np->n_input > VC_ONNX_MAX_IN) {
		vc_error(m, NULL, "node '%s' (%s): more than %d inputs", nm, op, VC_ONNX_MAX_IN);
		return NULL;
	}
	for (size_t i = 0; i < np->n_input; i++) {
		if (!np->input[i][0]) { /* optional input left out */
			in[n_in++] = NULL;
			continue;
		}
		in[n_in] = lookup(im, np->input[i]);
		if (!in[n_in]) {
			vc_error(m, NULL, "node '%s' (%s): input '%s' is not defined before it is used", nm, op, np->input[i]);
			return NULL;
		}
		n_in++;
	}
	while (n_in > 0 && !in[n_in - 1])
		n_in--;
	if (np->domain && np->domain[0] && strcmp(np->domain, "ai.onnx")) {
		vc_error(m, NULL, "node '%s': op %s of domain '%s' is not supported", nm, op, np->domain);
		return NULL;
	}
	const struct onnx_op *o = onnx_op_find(op);
	if (!o) {
		vc_error(m, NULL, "node '%s': op %s is not supported", nm, op);
		return NULL;
	}
	for (int i = 0; i < n_in && !o->holes; i++)
		if (!in[i]) {
			vc_error(m, NULL, "node '%s' (%s): optional input %d left out before a given one", nm, op, i);
			return NULL;
		}
	if (check_attrs(m, np, o->attrs))
		return NULL;
	if (n_in < o->min_in) {
		vc_error(m, NULL, "node '%s' (%s): needs %d inputs, has %d", nm, op, o->min_in, n_in);
		return NULL;
	}
	ctx.n_in = n_in;
	return o->fn(&ctx);
}

/*
 * A node of constants only, of at most 65536 values, evaluated now: the
 * shape arithmetic of exporters (Shape, Slice, Concat, Gather, Cast ...)
 * becomes the constant that Resize's sizes or Reshape's shape must be;
 * integers stay integers. Larger ones are left to the fold-const pass.
 */
static vc_node *fold_small(importer *im, vc_node *n)
{
	if (!n || n->op == VC_OP_CONST || n->op == VC_OP_INPUT || n->n_in < 1 || n->n_in > 16 ||
	    vc_type_elems(&n->type) > 65536 || n->type.dtype != VC_F32)
		return n;
	vc_tensor in[16], out;
	int ints = 0;
	for (int k = 0; k < n->n_in; k++) {
		if (n->in[k]->op != VC_OP_CONST)
			return n;
		in[k] = (vc_tensor){.t = n->in[k]->type, .data = n->in[k]->data, .owned = 0};
		ints |= is_int(im, n->in[k]);
	}
	if (vc_ref_run(im->m, n, in, &out))
		return NULL;
	vc_node *c = vc_const(im->m, n->name, VC_F32, n->type.rank, n->type.dim, out.data);
	vc_tensor_free(&out);
	return c && ints && mark_int(im, c) ? NULL : c;
}

/* Every node whose op the importer does not take (onnx_ops), and sparse initializers,
 * in one diagnostic before anything else of the graph is read. */
static int unsupported_ops(vc_module *m, const Onnx__GraphProto *g)
{
	vc_unsup u;
	vc_unsup_init(&u, "node");
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *np = g->node[i];
		if (!np->op_type || !np->op_type[0])
			continue; /* refused by import_model with its index */
		/* the node's name, else its first output that is not left out, else its index */
		char type[72], idx[32];
		snprintf(idx, sizeof idx, "node %zu", i);
		const char *nm = np->name && np->name[0] ? np->name : idx;
		for (size_t k = 0; nm == idx && k < np->n_output; k++)
			if (np->output[k][0])
				nm = np->output[k];
		if (np->domain && np->domain[0] && strcmp(np->domain, "ai.onnx")) {
			snprintf(type, sizeof type, "%.30s of domain %.30s", np->op_type, np->domain);
			vc_unsup_add(&u, type, nm);
			continue;
		}
		if (onnx_op_find(np->op_type))
			continue;
		vc_unsup_add(&u, np->op_type, nm);
		if (!strcmp(np->op_type, "LSTM") || !strcmp(np->op_type, "GRU") || !strcmp(np->op_type, "RNN"))
			vc_unsup_note(&u, "recurrent ops are not supported");
	}
	if (g->n_sparse_initializer) {
		const Onnx__SparseTensorProto *sp = g->sparse_initializer[0];
		char note[128];
		snprintf(note, sizeof note, "sparse tensors are not supported (%zu sparse initializer%s: '%.40s'%s)",
			 g->n_sparse_initializer, g->n_sparse_initializer == 1 ? "" : "s",
			 sp->values && sp->values->name ? sp->values->name : "", g->n_sparse_initializer > 1 ? ", ..." : "");
		vc_unsup_note(&u, note);
	}
	return vc_unsup_report(m, &u, "op");
}

/* ---- model ---------------------------------------------------------- */

static int value_type(vc_module *m, const Onnx__ValueInfoProto *v, int64_t *dim, int *rank)
{
	const char *name = v->name ? v->name : "";
	if (!v->type || v->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !v->type->tensor_type)
		return vc_error(m, NULL, "graph input '%s' is not a tensor", name);
	const Onnx__TypeProto__Tensor *t = v->type->tensor_type;
	if (!t->has_elem_type || t->elem_type != ONNX_FLOAT)
		return vc_error(m, NULL, "graph input '%s' has data type %s; only float is supported", name,
				dtype_name(t->has_elem_type ? t->elem_type : 0));
	if (!t->shape || t->shape->n_dim > VC_MAX_RANK)
		return vc_error(m, NULL, "graph input '%s' has no shape or a rank above %d", name, VC_MAX_RANK);
	*rank = (int)t->shape->n_dim;
	for (size_t i = 0; i < t->shape->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = t->shape->dim[i];
		dim[i] = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ? d->dim_value : 1;
		if (dim[i] <= 0 || dim[i] > (1 << 24))
			return vc_error(m, NULL, "graph input '%s' has a bad dimension %lld", name, (long long)dim[i]);
	}
	return 0;
}

/* A graph output no node bound: a later output of a node (Dropout's mask)
 * is said as such. */
static int missing_output(vc_module *m, const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 1; k < g->node[i]->n_output; k++)
			if (!strcmp(g->node[i]->output[k], name))
				return vc_error(m, NULL, "graph output '%s' is output %zu of node '%s' (%s): %s", name, k + 1,
						node_name(g->node[i]), g->node[i]->op_type,
						!strcmp(g->node[i]->op_type, "Dropout") ? "the mask output is not supported"
											 : "only the first output is supported");
	return vc_error(m, NULL, "graph output '%s' is not produced by any node", name);
}

static int import_model(vc_module *m, const Onnx__ModelProto *mp)
{
	importer im = {.m = m, .opset = 1};
	int rc = -1;
	for (size_t i = 0; i < mp->n_opset_import; i++)
		if (!mp->opset_import[i]->domain || !mp->opset_import[i]->domain[0] ||
		    !strcmp(mp->opset_import[i]->domain, "ai.onnx"))
			im.opset = mp->opset_import[i]->version;
	const Onnx__GraphProto *g = mp->graph;
	if (!g) {
		vc_error(m, NULL, "the model has no graph");
		return -1;
	}
	im.g = g;
	if (unsupported_ops(m, g))
		return -1;
	for (size_t i = 0; i < g->n_initializer; i++) {
		vc_node *c = tensor_const(m, g->initializer[i], "initializer");
		if (!c || bind(&im, g->initializer[i]->name ? g->initializer[i]->name : "", c) ||
		    (onnx_is_int(g->initializer[i]->data_type) && mark_int(&im, c)))
			goto done;
	}
	for (size_t i = 0; i < g->n_input; i++) {
		const char *name = g->input[i]->name ? g->input[i]->name : "";
		if (lookup(&im, name))
			continue; /* an initializer listed as input (old exporters) */
		int64_t dim[VC_MAX_RANK];
		int rank = 0;
		if (value_type(m, g->input[i], dim, &rank))
			goto done;
		vc_node *n = vc_input(m, name, VC_F32, rank, dim);
		if (!n || bind(&im, name, n))
			goto done;
	}
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *np = g->node[i];
		if (np->n_output < 1 || !np->op_type || !np->op_type[0]) {
			vc_error(m, NULL, "node %zu has no op type or no output", i);
			goto done;
		}
		vc_node *n = fold_small(&im, import_node(&im, np));
		if (n && (n->op == VC_OP_RESHAPE || n->op == VC_OP_FLATTEN) && n->in[0]->op == VC_OP_CONST)
			n = vc_const(m, n->name, VC_F32, n->type.rank, n->type.dim, n->in[0]->data); /* fold now */
		if (!n || bind(&im, np->output[0], n))
			goto done;
	}
	if (g->n_output < 1 || g->n_output > 8) {
		vc_error(m, NULL, "the graph has %zu outputs (1..8 supported)", g->n_output);
		goto done;
	}
	for (size_t i = 0; i < g->n_output; i++) {
		vc_node *n = lookup(&im, g->output[i]->name ? g->output[i]->name : "");
		if (!n) {
			missing_output(m, g, g->output[i]->name ? g->output[i]->name : "");
			goto done;
		}
		/* values here are real numbers: an integer output (a quantized
		 * tensor, indices) would be handed out as something else */
		const Onnx__TypeProto *tp = g->output[i]->type;
		int et = tp && tp->tensor_type && tp->tensor_type->has_elem_type ? tp->tensor_type->elem_type : ONNX_FLOAT;
		if (et != ONNX_FLOAT && et != ONNX_DOUBLE && et != ONNX_FLOAT16) {
			vc_error(m, NULL, "graph output '%s' has data type %s; only float outputs are supported (a quantized "
				 "model ends with DequantizeLinear)", g->output[i]->name, dtype_name(et));
			goto done;
		}
		m->g->outputs[m->g->n_outputs++] = n;
	}
	if (m->g->n_inputs == 0) {
		vc_error(m, NULL, "the graph has no inputs");
		goto done;
	}
	vc_remove_dead(m);
	m->props |= VC_PROP_IMPORTED;
	rc = 0;
done:
	free(im.names);
	free(im.vals);
	free(im.ints);
	return rc;
}

int vc_import_onnx_bytes(vc_module *m, const uint8_t *bytes, size_t len)
{
	Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, bytes);
	if (!mp)
		return vc_error(m, NULL, "not a valid ONNX model (the protobuf does not parse: truncated or corrupt)");
	int rc = import_model(m, mp);
	onnx__model_proto__free_unpacked(mp, NULL);
	return rc;
}

static uint8_t *slurp(vc_module *m, const char *path, size_t *len)
{
	uint8_t *buf;
	vta_error_t e;
	if (vta_read_file(path, &buf, len, &e)) {
		vc_error(m, NULL, "%s", e.msg);
		return NULL;
	}
	return buf;
}

int vc_import_onnx_file(vc_module *m, const char *path)
{
	size_t len;
	uint8_t *buf = slurp(m, path, &len);
	if (!buf)
		return -1;
	int rc = vc_import_onnx_bytes(m, buf, len);
	free(buf);
	if (rc && !strstr(m->diag.msg, path)) {
		char pre[512];
		snprintf(pre, sizeof pre, "%.500s: ", path);
		vc_error_prefix(m, pre);
	}
	return rc;
}

int vc_read_tensor_pb(vc_module *m, const char *path, vc_tensor *out)
{
	size_t len;
	uint8_t *buf = slurp(m, path, &len);
	if (!buf)
		return -1;
	Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, buf);
	free(buf);
	if (!tp)
		return vc_error(m, NULL, "%s is not a TensorProto", path);
	int rc = -1;
	if (!tp->has_data_type || tp->data_type != ONNX_FLOAT) {
		vc_error(m, NULL, "%s: data type %s is not supported", path, dtype_name(tp->has_data_type ? tp->data_type : 0));
	} else {
		/* a detached const: reuse the conversion, then copy out */
		vc_node *c = tensor_const(m, tp, path);
		if (c && !vc_tensor_alloc(out, &c->type)) {
			memcpy(out->data, c->data, vc_type_bytes(&c->type));
			rc = 0;
		}
		/* the const node is in the graph but unused: drop it */
		vc_remove_dead(m);
	}
	onnx__tensor_proto__free_unpacked(tp, NULL);
	return rc;
}
