/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The graph IR. A graph function is a topologically ordered array of nodes;
 * each node produces one value whose type (shape, dtype, layout,
 * quantization) is computed by vc_build when the node is made, so no pass
 * ever re-infers types. Use lists are kept by every rewiring helper and
 * checked by the verifier.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

/* ---- arena ------------------------------------------------------------ */

struct vc_arena_blk {
	vc_arena_blk *next;
	size_t size;
	max_align_t data[];
};

void *vc_alloc(vc_module *m, size_t bytes)
{
	vc_arena_blk *b = calloc(1, sizeof *b + bytes + 1);
	if (!b)
		return NULL;
	b->size = bytes;
	b->next = m->arena;
	m->arena = b;
	return b->data;
}

void vc_arena_adopt(vc_module *m, vc_module *from)
{
	vc_arena_blk **tail = &from->arena;
	while (*tail)
		tail = &(*tail)->next;
	*tail = m->arena;
	m->arena = from->arena;
	from->arena = NULL;
}

char *vc_strdup(vc_module *m, const char *s)
{
	size_t n = strlen(s);
	char *p = vc_alloc(m, n + 1);
	if (p)
		memcpy(p, s, n + 1);
	return p;
}

vc_target vc_target_default(void)
{
	vc_target t = {
		.batch = VTA_BATCH,
		.block_in = VTA_BLOCK_IN,
		.block_out = VTA_BLOCK_OUT,
		.inp_depth = VTA_INP_BUFF_DEPTH,
		.wgt_depth = VTA_WGT_BUFF_DEPTH,
		.acc_depth = VTA_ACC_BUFF_DEPTH,
		.uop_depth = VTA_UOP_BUFF_DEPTH,
		.config_id = VTA_CONFIG_ID,
	};
	return t;
}

vc_module *vc_module_new(void)
{
	vc_module *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->target = vc_target_default();
	m->g = vc_alloc(m, sizeof *m->g);
	if (!m->g) {
		free(m);
		return NULL;
	}
	return m;
}

void vc_module_free(vc_module *m)
{
	if (!m)
		return;
	for (vc_arena_blk *b = m->arena, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(m);
}

/* ---- diagnostics ---------------------------------------------------- */

int vc_error(vc_module *m, const vc_node *n, const char *fmt, ...)
{
	m->diag.count++;
	if (m->diag.count > 1)
		return -1;
	char text[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (n)
		snprintf(m->diag.msg, sizeof m->diag.msg, "node %%%d (%s '%s'): %s", n->id, vc_op_name(n->op),
			 n->name, text);
	else
		snprintf(m->diag.msg, sizeof m->diag.msg, "%s", text);
	return -1;
}

void vc_error_prefix(vc_module *m, const char *prefix)
{
	size_t cap = sizeof m->diag.msg, pl = strlen(prefix), ml = strlen(m->diag.msg);
	if (pl >= cap)
		pl = cap - 1;
	if (pl + ml >= cap)
		ml = cap - 1 - pl;
	memmove(m->diag.msg + pl, m->diag.msg, ml);
	memcpy(m->diag.msg, prefix, pl);
	m->diag.msg[pl + ml] = 0;
}

/* ---- names and sizes ------------------------------------------------- */

static const char *const op_names[VC_OP_COUNT] = {
	[VC_OP_INPUT] = "input",       [VC_OP_CONST] = "const",         [VC_OP_CONV] = "conv",
	[VC_OP_DENSE] = "dense",       [VC_OP_MATMUL] = "matmul",       [VC_OP_ADD] = "add",
	[VC_OP_MUL] = "mul",           [VC_OP_RELU] = "relu",           [VC_OP_CLIP] = "clip",
	[VC_OP_MAXPOOL] = "maxpool",   [VC_OP_AVGPOOL] = "avgpool",     [VC_OP_GAP] = "global_avgpool",
	[VC_OP_RESHAPE] = "reshape",   [VC_OP_FLATTEN] = "flatten",     [VC_OP_SOFTMAX] = "softmax",
	[VC_OP_BATCHNORM] = "batchnorm", [VC_OP_CONCAT] = "concat",     [VC_OP_QUANTIZE] = "quantize",
	[VC_OP_DEQUANTIZE] = "dequantize", [VC_OP_QCONV] = "qconv",     [VC_OP_QDENSE] = "qdense",
	[VC_OP_REQUANT] = "requant",   [VC_OP_PACK] = "pack",           [VC_OP_UNPACK] = "unpack",
	[VC_OP_VTA_CONV] = "vta.conv", [VC_OP_QCONV_RQ] = "qconv.rq", [VC_OP_QADD] = "qadd",
	[VC_OP_LEAKY] = "leaky",       [VC_OP_UPSAMPLE] = "upsample",   [VC_OP_ALIGN] = "align",
	[VC_OP_YOLO] = "yolo",
	[VC_OP_PAD] = "pad",           [VC_OP_SIGMOID] = "sigmoid",     [VC_OP_TRANSPOSE] = "transpose",
	[VC_OP_SLICE] = "slice",       [VC_OP_RESIZE] = "resize",
	[VC_OP_UNARY] = "unary",       [VC_OP_BINARY] = "binary",       [VC_OP_REDUCE] = "reduce",
};

const char *vc_op_name(vc_op op)
{
	return op >= 0 && op < VC_OP_COUNT ? op_names[op] : "?";
}

const char *vc_dtype_name(vc_dtype t)
{
	return t == VC_F32 ? "f32" : t == VC_I8 ? "i8" : "i32";
}

size_t vc_dtype_size(vc_dtype t)
{
	return t == VC_I8 ? 1 : 4;
}

int64_t vc_type_elems(const vc_type *t)
{
	int64_t e = 1;
	for (int i = 0; i < t->rank; i++)
		e *= t->dim[i];
	return e;
}

int vc_type_check(const vc_type *t)
{
	if (t->rank < 0 || t->rank > VC_MAX_RANK || t->exp < -VC_MAX_EXP || t->exp > VC_MAX_EXP)
		return -1;
	int64_t e = 1;
	for (int i = 0; i < t->rank; i++) {
		if (t->dim[i] < 0 || t->dim[i] > VC_MAX_DIM)
			return -1;
		if (t->dim[i] && (e *= t->dim[i]) > VC_MAX_ELEMS)
			return -1;
	}
	return 0;
}

size_t vc_type_bytes(const vc_type *t)
{
	return (size_t)vc_type_elems(t) * vc_dtype_size(t->dtype);
}

int vc_type_equal(const vc_type *a, const vc_type *b)
{
	if (a->rank != b->rank || a->dtype != b->dtype || a->layout != b->layout || a->quantized != b->quantized)
		return 0;
	if (a->quantized && a->exp != b->exp)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dim[i] != b->dim[i])
			return 0;
	return 1;
}

int vc_type_str(const vc_type *t, char *buf, size_t n)
{
	int k = snprintf(buf, n, "%s%s[", t->layout == VC_PACKED ? "packed " : "", vc_dtype_name(t->dtype));
	for (int i = 0; i < t->rank && k < (int)n; i++)
		k += snprintf(buf + k, n - (size_t)k, "%s%lld", i ? "," : "", (long long)t->dim[i]);
	if (k < (int)n)
		k += snprintf(buf + k, n - (size_t)k, "]");
	if (t->quantized && k < (int)n)
		k += snprintf(buf + k, n - (size_t)k, " q2^%d", t->exp);
	return k;
}

void vc_attrs_init(vc_attrs *a)
{
	memset(a, 0, sizeof *a);
	a->stride[0] = a->stride[1] = 1;
	a->dilation[0] = a->dilation[1] = 1;
	a->group = 1;
	a->lo = -INFINITY;
	a->hi = INFINITY;
	a->eps = 1e-5;
	a->qlo = -127;
	a->qhi = 127;
	a->dev_off = -1;
	a->kernel_id = -1;
}

const char *vc_prop_name(int bit)
{
	static const char *const names[VC_PROP_COUNT_] = {"imported", "canonical", "bn_folded", "const_folded",
							  "quantized", "partitioned", "packed", "fused",
							  "tiled", "lowered", "tokens", "emitted"};
	return bit >= 0 && bit < VC_PROP_COUNT_ ? names[bit] : "?";
}

/* ---- type inference ------------------------------------------------- */

static vc_type make_type(vc_dtype dt, int rank, const int64_t *dim)
{
	vc_type t;
	memset(&t, 0, sizeof t);
	t.dtype = dt;
	t.rank = rank; /* a rank beyond VC_MAX_RANK fails vc_type_check */
	for (int i = 0; i < rank && i < VC_MAX_RANK; i++)
		t.dim[i] = dim[i];
	return t;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

static int pool_out(int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, int64_t d, int ceil_mode,
		    int64_t *out)
{
	/* Attributes come from files: bounded first, the arithmetic cannot overflow. */
	if (k < 1 || s < 1 || d < 1 || p0 < 0 || p1 < 0 || k > VC_MAX_DIM || s > VC_MAX_DIM ||
	    d > VC_MAX_DIM || p0 > VC_MAX_DIM || p1 > VC_MAX_DIM)
		return -1;
	int64_t span = in + p0 + p1 - d * (k - 1) - 1;
	if (span < 0 || s <= 0)
		return -1;
	*out = (ceil_mode ? ceil_div(span, s) : span / s) + 1;
	if (ceil_mode && (*out - 1) * s >= in + p0) /* last window must start inside */
		(*out)--;
	return 0;
}

static int broadcast(vc_module *m, const vc_node *n, const vc_type *a, const vc_type *b, vc_type *out)
{
	int rank = a->rank > b->rank ? a->rank : b->rank;
	*out = *a;
	out->rank = rank;
	for (int i = 0; i < rank; i++) {
		int ia = i - (rank - a->rank), ib = i - (rank - b->rank);
		int64_t da = ia >= 0 ? a->dim[ia] : 1, db = ib >= 0 ? b->dim[ib] : 1;
		if (da != db && da != 1 && db != 1)
			return vc_error(m, n, "shapes do not broadcast (dimension %d: %lld vs %lld)", i, (long long)da,
					(long long)db);
		out->dim[i] = da == 1 ? db : da;
	}
	return 0;
}

/* A per-channel shift vector of node n: a constant int32 [C] with v[c] >= 0
 * and base + v[c] inside [lo, hi] for every channel. */
static int chan_shifts(vc_module *m, const vc_node *n, const vc_node *v, int64_t C, int base, int lo, int hi,
		       const char *what)
{
	const vc_type *t = &v->type;
	if (t->dtype != VC_I32 || t->rank != 1 || t->dim[0] != C || t->layout != VC_PLAIN)
		return vc_error(m, n, "the channel shifts must be int32 [%lld]", (long long)C);
	if (v->op != VC_OP_CONST || !v->data)
		return vc_error(m, n, "the channel shifts must be a constant");
	for (int64_t c = 0; c < C; c++) {
		int32_t d = ((const int32_t *)v->data)[c];
		if (d < 0 || (int64_t)base + d < lo || (int64_t)base + d > hi)
			return vc_error(m, n, "channel %lld: %s %d + %d is outside [%d,%d]", (long long)c, what, base, d, lo, hi);
	}
	return 0;
}

#define NEED(cond, ...)                                   \
	do {                                              \
		if (!(cond))                              \
			return vc_error(m, n, __VA_ARGS__); \
	} while (0)

/* ---- type rules: n->type from n's inputs and attributes, one function an
 * op (or a family); -1 with a diagnostic if the node is ill-typed. Inputs
 * are inside the bounds of vc_type_check. */

static int type_conv(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	const vc_type *w = &n->in[1]->type;
	NEED(x->rank == 4 && w->rank == 4, "convolution needs 4-D data and weights");
	NEED(a->group >= 1 && a->group <= VC_MAX_DIM && x->dim[1] == w->dim[1] * a->group, "input channels %lld do not match weights %lld x group %lld",
	     (long long)x->dim[1], (long long)w->dim[1], (long long)a->group);
	NEED(w->dim[0] % a->group == 0, "output channels not divisible by group");
	int64_t oh, ow;
	NEED(pool_out(x->dim[2], w->dim[2], a->stride[0], a->pad[0], a->pad[2], a->dilation[0], 0, &oh) == 0 &&
		     pool_out(x->dim[3], w->dim[3], a->stride[1], a->pad[1], a->pad[3], a->dilation[1], 0, &ow) == 0,
	     "kernel larger than padded input");
	int64_t d[4] = {x->dim[0], w->dim[0], oh, ow};
	if (n->op == VC_OP_CONV) {
		NEED(x->dtype == VC_F32 && w->dtype == VC_F32, "float convolution needs f32 operands");
		*t = make_type(VC_F32, 4, d);
	} else {
		NEED(x->dtype == VC_I8 && w->dtype == VC_I8 && x->quantized && w->quantized,
		     "qconv needs quantized int8 data and weights");
		*t = make_type(VC_I32, 4, d);
		t->quantized = 1;
		t->exp = x->exp + w->exp;
	}
	if (n->n_in > 2) {
		const vc_type *b = &n->in[2]->type;
		NEED(b->rank == 1 && b->dim[0] == w->dim[0], "bias must be 1-D with %lld entries", (long long)w->dim[0]);
		if (n->op == VC_OP_QCONV)
			NEED(b->dtype == VC_I32 && b->exp == t->exp, "qconv bias must be int32 at 2^%d", t->exp);
	}
	return 0;
}

static int type_dense(vc_module *m, vc_node *n)
{
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	const vc_type *w = &n->in[1]->type;
	NEED(x->rank == 2 && w->rank == 2 && x->dim[1] == w->dim[1], "dense needs x[N,I] and w[O,I] with equal I");
	int64_t d[2] = {x->dim[0], w->dim[0]};
	if (n->op == VC_OP_DENSE) {
		NEED(x->dtype == VC_F32 && w->dtype == VC_F32, "float dense needs f32 operands");
		*t = make_type(VC_F32, 2, d);
	} else {
		NEED(x->dtype == VC_I8 && w->dtype == VC_I8, "qdense needs int8 operands");
		*t = make_type(VC_I32, 2, d);
		t->quantized = 1;
		t->exp = x->exp + w->exp;
	}
	if (n->n_in > 2) {
		const vc_type *b = &n->in[2]->type;
		NEED(vc_type_elems(b) == w->dim[0], "bias must have %lld entries", (long long)w->dim[0]);
		if (n->op == VC_OP_QDENSE)
			NEED(b->dtype == VC_I32 && b->exp == t->exp, "qdense bias must be int32 at 2^%d", t->exp);
	}
	return 0;
}

static int type_matmul(vc_module *m, vc_node *n)
{
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	const vc_type *b = &n->in[1]->type;
	NEED(x->rank >= 2 && b->rank >= 2 && x->dim[x->rank - 1] == b->dim[b->rank - 2], "matmul inner dimensions differ");
	NEED(x->rank == b->rank, "matmul operands of different rank are not supported");
	for (int i = 0; i + 2 < x->rank; i++)
		NEED(x->dim[i] == b->dim[i], "matmul batch dimensions differ");
	*t = *x;
	t->dim[x->rank - 1] = b->dim[b->rank - 1];
	NEED(x->dtype == VC_F32 && b->dtype == VC_F32, "matmul needs f32");
	return 0;
}

static int type_add_mul(vc_module *m, vc_node *n)
{
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->dtype == n->in[1]->type.dtype, "operands have different dtypes");
	NEED(x->dtype == VC_F32, "%s is only defined on f32 (quantize keeps it on the CPU in float)", vc_op_name(n->op));
	return broadcast(m, n, x, &n->in[1]->type, t);
}

static int type_elementwise(vc_module *m, vc_node *n)
{
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	*t = *x;
	NEED(x->layout == VC_PLAIN, "elementwise op on packed data outside a fused kernel");
	return 0;
}

static int type_pool(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->rank == 4, "pooling needs 4-D data");
	NEED(n->op == VC_OP_MAXPOOL || x->dtype == VC_F32, "average pooling is only defined on f32");
	int64_t oh, ow;
	NEED(pool_out(x->dim[2], a->kernel[0], a->stride[0], a->pad[0], a->pad[2], a->dilation[0], a->ceil_mode, &oh) == 0 &&
		     pool_out(x->dim[3], a->kernel[1], a->stride[1], a->pad[1], a->pad[3], a->dilation[1], a->ceil_mode, &ow) == 0,
	     "pooling window larger than padded input");
	*t = *x;
	t->dim[2] = oh;
	t->dim[3] = ow;
	return 0;
}

static int type_gap(vc_module *m, vc_node *n)
{
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->rank >= 3 && x->dtype == VC_F32, "global average pool needs f32 data of rank >= 3");
	*t = *x;
	for (int i = 2; i < x->rank; i++)
		t->dim[i] = 1;
	return 0;
}

static int type_reshape(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(a->nshape >= 1 && a->nshape <= VC_MAX_RANK, "reshape needs a target shape of rank 1..6");
	NEED(x->layout == VC_PLAIN, "reshape of packed data");
	int64_t d[VC_MAX_RANK], known = 1;
	int infer_at = -1;
	for (int i = 0; i < a->nshape; i++) {
		d[i] = a->shape[i];
		if (d[i] == 0) {
			NEED(i < x->rank, "reshape copies dimension %d that the input lacks", i);
			d[i] = x->dim[i];
		}
		if (d[i] == -1) {
			NEED(infer_at < 0, "reshape has two -1 dimensions");
			infer_at = i;
			continue;
		}
		NEED(d[i] > 0 && d[i] <= VC_MAX_ELEMS / known, "reshape dimension %d is %lld", i,
		     (long long)d[i]);
		known *= d[i];
	}
	int64_t total = vc_type_elems(x);
	if (infer_at >= 0) {
		NEED(known > 0 && total % known == 0, "reshape cannot infer the -1 dimension");
		d[infer_at] = total / known;
		known *= d[infer_at];
	}
	NEED(known == total, "reshape from %lld to %lld elements", (long long)total, (long long)known);
	vc_type q = *x;
	*t = make_type(x->dtype, a->nshape, d);
	t->quantized = q.quantized;
	t->exp = q.exp;
	return 0;
}

static int type_flatten(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	int64_t ax = a->axis < 0 ? a->axis + x->rank : a->axis;
	NEED(ax >= 0 && ax <= x->rank, "flatten axis %lld out of range", (long long)a->axis);
	int64_t d[2] = {1, 1};
	for (int i = 0; i < x->rank; i++)
		d[i >= ax] *= x->dim[i];
	vc_type q = *x;
	*t = make_type(x->dtype, 2, d);
	t->quantized = q.quantized;
	t->exp = q.exp;
	return 0;
}

static int type_softmax(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	int64_t ax = a->axis < 0 ? a->axis + x->rank : a->axis;
	NEED(ax >= 0 && ax < x->rank && x->dtype == VC_F32, "softmax needs f32 data and an axis in range");
	*t = *x;
	return 0;
}

static int type_batchnorm(vc_module *m, vc_node *n)
{
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->rank >= 2 && x->dtype == VC_F32, "batchnorm needs f32 data of rank >= 2");
	for (int i = 1; i < 5; i++)
		NEED(vc_type_elems(&n->in[i]->type) == x->dim[1] && n->in[i]->type.dtype == VC_F32,
		     "batchnorm parameter %d must have %lld f32 entries", i, (long long)x->dim[1]);
	*t = *x;
	return 0;
}

static int type_concat(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	int64_t ax = a->axis < 0 ? a->axis + x->rank : a->axis;
	NEED(ax >= 0 && ax < x->rank, "concat axis out of range");
	*t = *x;
	for (int i = 1; i < n->n_in; i++) {
		const vc_type *y = &n->in[i]->type;
		NEED(y->rank == x->rank && y->dtype == x->dtype, "concat input %d differs in rank or dtype", i);
		NEED(y->layout == x->layout && y->quantized == x->quantized && (!x->quantized || y->exp == x->exp),
		     "concat input %d differs in layout or scale", i);
		for (int k = 0; k < x->rank; k++)
			NEED(k == ax || y->dim[k] == x->dim[k], "concat input %d differs in dimension %d", i, k);
		t->dim[ax] += y->dim[ax];
	}
	return 0;
}

/* rows and columns: dims 2 and 3 of plain NCHW and of packed [N/B][C/BL][H][W][B][BL] */
static int type_pad(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED((x->rank == 4 && x->layout == VC_PLAIN) || (x->rank == 6 && x->layout == VC_PACKED),
	     "pad needs plain 4-D or packed data");
	for (int i = 0; i < 4; i++)
		NEED(a->pad[i] >= 0 && a->pad[i] <= 4096, "pad amount %lld out of range", (long long)a->pad[i]);
	*t = *x;
	t->dim[2] += a->pad[0] + a->pad[2];
	t->dim[3] += a->pad[1] + a->pad[3];
	return 0;
}

static int type_quantize(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->dtype == VC_F32, "quantize needs f32 input");
	NEED(a->qlo >= -128 && a->qhi <= 127 && a->qlo <= a->qhi, "quantize bounds %lld..%lld are not int8",
	     (long long)a->qlo, (long long)a->qhi);
	NEED(a->exp >= -VC_MAX_EXP && a->exp <= VC_MAX_EXP, "quantize exponent %d is out of range", a->exp);
	*t = *x;
	t->dtype = VC_I8;
	t->quantized = 1;
	t->exp = a->exp;
	return 0;
}

static int type_dequantize(vc_module *m, vc_node *n)
{
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->dtype != VC_F32 && x->quantized && x->layout == VC_PLAIN, "dequantize needs plain quantized integers");
	*t = *x;
	t->dtype = VC_F32;
	t->quantized = 0;
	t->exp = 0;
	return 0;
}

static int type_requant(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->dtype == VC_I32 && x->quantized, "requant needs a quantized int32 input");
	NEED(a->exp >= -VC_MAX_EXP && a->exp <= VC_MAX_EXP, "requant exponent %d is out of range", a->exp);
	*t = *x;
	t->dtype = VC_I8;
	t->exp = a->exp;
	a->shift = a->exp - x->exp;
	NEED(a->shift >= -31 && a->shift <= 31, "requant shift %d is out of the ALU range [-31,31]", a->shift);
	NEED(a->leaky >= 0 && a->leaky <= 15 && a->shift + a->leaky <= 31, "requant leaky shift %d is out of range", a->leaky);
	NEED(n->n_in <= 2, "requant takes at most 2 inputs");
	if (n->n_in == 2) /* per-channel: channel c is at 2^(exp - d[c]) */
		return chan_shifts(m, n, n->in[1], x->rank >= 2 ? x->dim[1] : 0, a->shift, -31, 31, "requant shift");
	return 0;
}

static int type_qconv_rq(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	/* typed as the qconv/qdense it contains, then requantized */
	const vc_type *w = &n->in[1]->type;
	NEED(x->dtype == VC_I8 && w->dtype == VC_I8 && x->quantized && w->quantized, "qconv.rq needs quantized int8 operands");
	NEED(a->exp >= -VC_MAX_EXP && a->exp <= VC_MAX_EXP, "qconv.rq exponent %d is out of range", a->exp);
	int64_t d[4] = {x->dim[0], w->dim[0], 1, 1};
	int rank = 2;
	if (x->rank == 4 && w->rank == 4) {
		NEED(a->group >= 1 && a->group <= VC_MAX_DIM && x->dim[1] == w->dim[1] * a->group,
		     "input channels %lld do not match the weights", (long long)x->dim[1]);
		NEED(pool_out(x->dim[2], w->dim[2], a->stride[0], a->pad[0], a->pad[2], a->dilation[0], 0, &d[2]) == 0 &&
			     pool_out(x->dim[3], w->dim[3], a->stride[1], a->pad[1], a->pad[3], a->dilation[1], 0, &d[3]) == 0,
		     "kernel larger than padded input");
		rank = 4;
	} else {
		NEED(x->rank == 2 && w->rank == 2 && x->dim[1] == w->dim[1], "qconv.rq needs 4-D conv or 2-D dense operands");
	}
	const vc_type *b = &n->in[2]->type;
	/* bias [O], or per-channel [2,O]: the bias, then the channel shifts d */
	int pc = b->rank == 2;
	NEED(b->dtype == VC_I32 && (b->rank == 1 || (pc && b->dim[0] == 2)) && b->dim[b->rank - 1] == w->dim[0] &&
		     b->exp == x->exp + w->exp,
	     "qconv.rq bias must be int32 [%lld] or [2,%lld] at 2^%d", (long long)w->dim[0], (long long)w->dim[0],
	     x->exp + w->exp);
	*t = make_type(VC_I8, rank, d);
	t->quantized = 1;
	t->exp = a->exp;
	a->shift = a->exp - (x->exp + w->exp);
	NEED(a->shift >= -31 && a->shift <= 31, "shift %d is out of the ALU range [-31,31]", a->shift);
	NEED(a->leaky >= 0 && a->leaky <= 15 && a->shift + a->leaky <= 31, "leaky shift %d is out of range", a->leaky);
	if (pc && n->in[2]->op == VC_OP_CONST) {
		const int32_t *dv = (const int32_t *)n->in[2]->data + w->dim[0];
		for (int64_t c = 0; c < w->dim[0]; c++)
			NEED(dv[c] >= 0 && a->shift + dv[c] <= 31, "channel %lld: shift %d + %d is outside [0,31]",
			     (long long)c, a->shift, dv[c]);
	}
	NEED(n->n_in <= 4, "qconv.rq takes at most 4 inputs");
	if (n->n_in == 4) {
		const vc_type *r = &n->in[3]->type;
		NEED(r->dtype == VC_I8 && r->quantized && r->layout == VC_PLAIN && r->rank == rank,
		     "qconv.rq residual must be plain quantized int8 of the output's rank");
		for (int i = 0; i < rank; i++)
			NEED(r->dim[i] == d[i], "qconv.rq residual dimension %d is %lld, the output's %lld", i,
			     (long long)r->dim[i], (long long)d[i]);
		a->res_shift = r->exp - (x->exp + w->exp);
		NEED(a->res_shift >= 0 && a->res_shift <= 24, "residual shift %d is outside [0,24]", a->res_shift);
		if (pc && n->in[2]->op == VC_OP_CONST) {
			const int32_t *dv = (const int32_t *)n->in[2]->data + w->dim[0];
			for (int64_t c = 0; c < w->dim[0]; c++)
				NEED(a->res_shift + dv[c] <= 24, "channel %lld: residual shift %d + %d is above 24",
				     (long long)c, a->res_shift, dv[c]);
		}
	}
	return 0;
}

static int type_qadd(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	const vc_type *r = &n->in[1]->type;
	NEED(x->dtype == VC_I32 && x->quantized && x->layout == VC_PLAIN, "qadd needs a plain quantized int32 accumulator");
	NEED(r->dtype == VC_I8 && r->quantized && r->layout == VC_PLAIN && r->rank == x->rank,
	     "qadd needs a plain quantized int8 residual of the same rank");
	for (int i = 0; i < x->rank; i++)
		NEED(r->dim[i] == x->dim[i], "qadd operands differ in dimension %d", i);
	a->res_shift = r->exp - x->exp;
	NEED(a->res_shift >= 0 && a->res_shift <= 24, "residual shift %d is outside [0,24]", a->res_shift);
	*t = *x;
	NEED(n->n_in <= 3, "qadd takes at most 3 inputs");
	if (n->n_in == 3) /* per-channel accumulator exponents */
		return chan_shifts(m, n, n->in[2], x->rank >= 2 ? x->dim[1] : 0, a->res_shift, 0, 24, "residual shift");
	return 0;
}

static int type_pack(vc_module *m, vc_node *n)
{
	const vc_target *tg = &m->target;
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->dtype == VC_I8 && x->layout == VC_PLAIN && (x->rank == 4 || x->rank == 2),
	     "pack needs plain int8 data of rank 4 or 2");
	int64_t h = x->rank == 4 ? x->dim[2] : 1, w = x->rank == 4 ? x->dim[3] : 1, c = x->dim[1];
	if (a->kernel[1] > 1) { /* the columns of a KW-wide kernel folded into the channels (graph/pack.c) */
		NEED(x->rank == 4 && a->stride[1] >= 1 && a->pad[1] >= 0 && a->pad[3] >= 0 &&
			     w + a->pad[1] + a->pad[3] >= a->kernel[1],
		     "pack: a column fold needs 4-D data at least one kernel wide");
		c *= a->kernel[1];
		w = (w + a->pad[1] + a->pad[3] - a->kernel[1]) / a->stride[1] + 1;
	}
	int64_t d[6] = {ceil_div(x->dim[0], tg->batch), ceil_div(c, tg->block_in), h, w, tg->batch, tg->block_in};
	vc_type q = *x;
	*t = make_type(VC_I8, 6, d);
	t->layout = VC_PACKED;
	t->quantized = q.quantized;
	t->exp = q.exp;
	return 0;
}

static int type_unpack(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->layout == VC_PACKED && x->rank == 6, "unpack needs packed data");
	NEED(a->nshape == 4 || a->nshape == 2, "unpack needs a 4-D or 2-D target shape");
	NEED(x->dim[4] > 0 && x->dim[5] > 0, "unpack of empty blocks");
	for (int i = 0; i < a->nshape; i++)
		NEED(a->shape[i] >= 0 && a->shape[i] <= VC_MAX_DIM, "unpack dimension %d is %lld", i,
		     (long long)a->shape[i]);
	int64_t c = a->shape[1], h = a->nshape == 4 ? a->shape[2] : 1, w = a->nshape == 4 ? a->shape[3] : 1;
	NEED(ceil_div(a->shape[0], x->dim[4]) == x->dim[0] && ceil_div(c, x->dim[5]) == x->dim[1] && h == x->dim[2] &&
		     w == x->dim[3],
	     "unpack target shape does not match the packed data");
	vc_type q = *x;
	*t = make_type(VC_I8, a->nshape, a->shape);
	t->quantized = q.quantized;
	t->exp = q.exp;
	return 0;
}

static int type_vta_conv(vc_module *m, vc_node *n)
{
	const vc_target *tg = &m->target;
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	const vc_type *w = &n->in[1]->type, *b = &n->in[2]->type;
	NEED(x->layout == VC_PACKED && w->layout == VC_PACKED && x->dtype == VC_I8 && w->dtype == VC_I8,
	     "vta.conv needs packed int8 data and weights");
	/* depthwise (group > 1): diagonal weight blocks [OB,1,KH,KW,BO,BI], one a block of the input */
	int dwc = a->group > 1;
	NEED(w->rank == 6 && (dwc ? w->dim[1] == 1 && x->dim[1] == w->dim[0] && tg->block_in == tg->block_out
				  : w->dim[1] == x->dim[1]) &&
		     w->dim[4] == tg->block_out && w->dim[5] == tg->block_in && x->dim[5] == tg->block_in &&
		     x->dim[4] == tg->batch,
	     "vta.conv weights [%lld,%lld,..] do not match data blocks", (long long)w->dim[0], (long long)w->dim[1]);
	/* packed bias [OB,B,BO]; per-channel [OB,K,B,BO]: K rows a block, the bias
	 * with the rounding constant, the requant shifts, and with a residual
	 * its (negated) left shifts */
	int kb = b->rank == 4 ? (int)b->dim[1] : 1;
	NEED((b->rank == 3 || (b->rank == 4 && kb == 2 + (n->n_in > 3))) && b->dtype == VC_I32 &&
		     b->dim[0] == w->dim[0] && b->dim[b->rank - 2] == tg->batch && b->dim[b->rank - 1] == tg->block_out,
	     "vta.conv bias must be packed int32 [%lld,%d,%d] or [%lld,%d,%d,%d]", (long long)w->dim[0], tg->batch,
	     tg->block_out, (long long)w->dim[0], 2 + (n->n_in > 3), tg->batch, tg->block_out);
	NEED(a->dilation[0] == 1 && a->dilation[1] == 1, "vta.conv supports dilation 1");
	int64_t oh, ow;
	NEED(pool_out(x->dim[2], w->dim[2], a->stride[0], a->pad[0], a->pad[2], 1, 0, &oh) == 0 &&
		     pool_out(x->dim[3], w->dim[3], a->stride[1], a->pad[1], a->pad[3], 1, 0, &ow) == 0,
	     "kernel larger than padded input");
	int64_t d[6] = {x->dim[0], w->dim[0], oh, ow, tg->batch, tg->block_out};
	*t = make_type(VC_I8, 6, d);
	t->layout = VC_PACKED;
	t->quantized = 1;
	t->exp = a->exp;
	NEED(a->shift >= -31 && a->shift <= 31, "shift %d is out of the ALU range [-31,31]", a->shift);
	NEED(a->leaky >= 0 && a->leaky <= 15 && a->shift + a->leaky <= 31, "leaky shift %d is out of range", a->leaky);
	NEED(n->n_in <= 4, "vta.conv takes at most 4 inputs");
	if (n->n_in == 4) {
		const vc_type *r = &n->in[3]->type;
		NEED(r->dtype == VC_I8 && r->quantized && r->layout == VC_PACKED && r->rank == 6,
		     "vta.conv residual must be packed quantized int8");
		for (int i = 0; i < 6; i++)
			NEED(r->dim[i] == d[i], "vta.conv residual dimension %d is %lld, the output's %lld", i,
			     (long long)r->dim[i], (long long)d[i]);
		a->res_shift = r->exp - (x->exp + w->exp);
		NEED(a->res_shift >= 0 && a->res_shift <= 24, "residual shift %d is outside [0,24]", a->res_shift);
	}
	return 0;
}

static int type_transpose(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->layout == VC_PLAIN && x->rank >= 1 && a->nshape == x->rank,
	     "transpose needs plain data and a permutation of its %d dimensions", x->rank);
	int seen = 0;
	*t = *x;
	for (int i = 0; i < x->rank; i++) {
		NEED(a->shape[i] >= 0 && a->shape[i] < x->rank && !(seen >> a->shape[i] & 1),
		     "transpose: entry %d of the permutation is %lld", i, (long long)a->shape[i]);
		seen |= 1 << a->shape[i];
		t->dim[i] = x->dim[a->shape[i]];
	}
	return 0;
}

static int type_slice(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->layout == VC_PLAIN && a->axis >= 0 && a->axis < x->rank, "slice needs plain data and an axis inside it");
	NEED(a->pad[0] >= 0 && a->pad[2] >= 0 && a->pad[0] < x->dim[a->axis] - a->pad[2],
	     "slice cuts %lld and %lld of the %lld entries of axis %lld", (long long)a->pad[0], (long long)a->pad[2],
	     (long long)x->dim[a->axis], (long long)a->axis);
	*t = *x;
	t->dim[a->axis] -= a->pad[0] + a->pad[2];
	return 0;
}

static int type_sigmoid(vc_module *m, vc_node *n)
{
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->dtype == VC_F32 && x->layout == VC_PLAIN, "sigmoid needs plain f32 data (quantize keeps it in float)");
	*t = *x;
	return 0;
}

static int type_leaky(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->dtype == VC_F32 && x->layout == VC_PLAIN, "leaky needs plain f32 data (int8 leaky is fused into requant)");
	NEED(a->leaky >= 1 && a->leaky <= 15, "leaky slope 2^-%d: the shift must be in [1,15]", a->leaky);
	*t = *x;
	return 0;
}

static int type_upsample(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->rank == 4 && x->layout == VC_PLAIN && x->dtype != VC_I32, "upsample needs plain 4-D f32 or int8 data");
	NEED(a->stride[0] >= 1 && a->stride[1] >= 1 && a->stride[0] <= 64 && a->stride[1] <= 64,
	     "upsample stride %lldx%lld is outside [1,64]", (long long)a->stride[0], (long long)a->stride[1]);
	*t = *x;
	t->dim[2] *= a->stride[0];
	t->dim[3] *= a->stride[1];
	return 0;
}

static int type_resize(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->rank == 4 && x->layout == VC_PLAIN && x->dtype == VC_F32, "resize needs plain 4-D f32 data");
	NEED(a->nshape == 4 && a->shape[0] == x->dim[0] && a->shape[1] == x->dim[1],
	     "resize changes only rows and columns: the result's shape must be [%lld, %lld, H, W]",
	     (long long)x->dim[0], (long long)x->dim[1]);
	for (int k = 0; k < 2; k++)
		NEED(a->shape[2 + k] >= 1 && a->shape[2 + k] <= 65536 && a->scale[k] > 0 && a->scale[k] < 65536,
		     "resize to %lld %s (scale %g) is outside 1 to 65536", (long long)a->shape[2 + k], k ? "columns" : "rows",
		     a->scale[k]);
	NEED(a->resize_mode >= VC_RESIZE_NEAREST && a->resize_mode <= VC_RESIZE_LINEAR && a->resize_coord >= 0 &&
		     a->resize_coord <= VC_COORD_TF_HALF_PIXEL_FOR_NN && a->resize_round >= 0 &&
		     a->resize_round <= VC_ROUND_CEIL,
	     "resize mode %d, coordinate mapping %d or rounding %d is unknown", a->resize_mode, a->resize_coord,
	     a->resize_round);
	*t = *x;
	t->dim[2] = a->shape[2];
	t->dim[3] = a->shape[3];
	return 0;
}

static int type_unary(vc_module *m, vc_node *n)
{
	const vc_type *x = &n->in[0]->type;
	NEED(x->dtype == VC_F32 && x->layout == VC_PLAIN, "unary needs plain f32 data (quantize keeps it in float)");
	NEED(n->a.fn >= 0 && n->a.fn < VTA_FN_UNARY_END, "unary function %d is unknown", n->a.fn);
	n->type = *x;
	return 0;
}

static int type_binary(vc_module *m, vc_node *n)
{
	const vc_type *x = &n->in[0]->type, *y = &n->in[1]->type;
	NEED(x->dtype == VC_F32 && y->dtype == VC_F32 && x->layout == VC_PLAIN && y->layout == VC_PLAIN,
	     "binary needs plain f32 operands (quantize keeps it in float)");
	NEED(n->a.fn >= VTA_FN_DIV && n->a.fn < VTA_FN_BINARY_END, "binary function %d is unknown", n->a.fn);
	return broadcast(m, n, x, y, &n->type);
}

static int type_reduce(vc_module *m, vc_node *n)
{
	const vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->dtype == VC_F32 && x->layout == VC_PLAIN, "reduce needs plain f32 data (quantize keeps it in float)");
	NEED(a->fn >= VTA_FN_SUM && a->fn < VTA_FN_REDUCE_END, "reduce function %d is unknown", a->fn);
	NEED(a->axes > 0 && a->axes < (1 << x->rank), "reduce axes 0x%x are not a set of the %d dimensions", (unsigned)a->axes,
	     x->rank);
	*t = *x;
	t->rank = 0;
	for (int d = 0; d < x->rank; d++)
		if (!(a->axes >> d & 1))
			t->dim[t->rank++] = x->dim[d];
		else if (a->keepdims)
			t->dim[t->rank++] = 1;
	return 0;
}

static int type_align(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	NEED(x->rank == 4 && x->layout == VC_PLAIN && x->dtype != VC_I32 && a->nshape == 4,
	     "align needs plain 4-D f32 or int8 data and a 4-D target shape");
	NEED(a->shape[0] == x->dim[0] && a->shape[1] >= 1 && a->shape[2] >= 1 && a->shape[3] >= 1,
	     "align target shape must keep the batch and be positive");
	*t = *x;
	for (int i = 1; i < 4; i++)
		t->dim[i] = a->shape[i];
	return 0;
}

static int type_yolo(vc_module *m, vc_node *n)
{
	vc_attrs *a = &n->a;
	const vc_type *x = &n->in[0]->type;
	vc_type *t = &n->type;
	const vc_type *an = &n->in[1]->type;
	NEED(x->rank == 4 && x->dtype == VC_F32 && x->layout == VC_PLAIN, "yolo needs plain 4-D f32 data");
	NEED(an->rank == 2 && an->dim[1] == 2 && an->dtype == VC_F32 && n->in[1]->op == VC_OP_CONST,
	     "yolo anchors must be a constant f32 [n,2]");
	NEED(a->axis >= 1 && x->dim[1] == an->dim[0] * (a->axis + 5), "yolo input has %lld channels, %lld anchors x (%lld classes + 5) expected",
	     (long long)x->dim[1], (long long)an->dim[0], (long long)a->axis);
	*t = *x;
	return 0;
}

/* Each op's least number of inputs and its type rule. */
static const struct {
	int arity;
	int (*rule)(vc_module *m, vc_node *n);
} type_rules[VC_OP_COUNT] = {
	[VC_OP_CONV] = {2, type_conv},
	[VC_OP_QCONV] = {3, type_conv},
	[VC_OP_DENSE] = {2, type_dense},
	[VC_OP_QDENSE] = {3, type_dense},
	[VC_OP_MATMUL] = {2, type_matmul},
	[VC_OP_ADD] = {2, type_add_mul},
	[VC_OP_MUL] = {2, type_add_mul},
	[VC_OP_RELU] = {1, type_elementwise},
	[VC_OP_CLIP] = {1, type_elementwise},
	[VC_OP_MAXPOOL] = {1, type_pool},
	[VC_OP_AVGPOOL] = {1, type_pool},
	[VC_OP_GAP] = {1, type_gap},
	[VC_OP_RESHAPE] = {1, type_reshape},
	[VC_OP_FLATTEN] = {1, type_flatten},
	[VC_OP_SOFTMAX] = {1, type_softmax},
	[VC_OP_BATCHNORM] = {5, type_batchnorm},
	[VC_OP_CONCAT] = {1, type_concat},
	[VC_OP_PAD] = {1, type_pad},
	[VC_OP_QUANTIZE] = {1, type_quantize},
	[VC_OP_DEQUANTIZE] = {1, type_dequantize},
	[VC_OP_REQUANT] = {1, type_requant},
	[VC_OP_QCONV_RQ] = {3, type_qconv_rq},
	[VC_OP_QADD] = {2, type_qadd},
	[VC_OP_PACK] = {1, type_pack},
	[VC_OP_UNPACK] = {1, type_unpack},
	[VC_OP_VTA_CONV] = {3, type_vta_conv},
	[VC_OP_TRANSPOSE] = {1, type_transpose},
	[VC_OP_SLICE] = {1, type_slice},
	[VC_OP_SIGMOID] = {1, type_sigmoid},
	[VC_OP_LEAKY] = {1, type_leaky},
	[VC_OP_UPSAMPLE] = {1, type_upsample},
	[VC_OP_RESIZE] = {1, type_resize},
	[VC_OP_UNARY] = {1, type_unary},
	[VC_OP_BINARY] = {2, type_binary},
	[VC_OP_REDUCE] = {1, type_reduce},
	[VC_OP_ALIGN] = {1, type_align},
	[VC_OP_YOLO] = {2, type_yolo},
};

/* Compute n->type from n's inputs and attributes; -1 with a diagnostic if
 * the node is ill-typed. Inputs are inside the bounds of vc_type_check. */
static int infer_type(vc_module *m, vc_node *n)
{
	if (n->op == VC_OP_INPUT || n->op == VC_OP_CONST)
		return 0; /* typed by their constructors */
	if ((int)n->op < 0 || n->op >= VC_OP_COUNT || !type_rules[n->op].rule)
		return vc_error(m, n, "no type rule");
	NEED(n->n_in >= type_rules[n->op].arity, "needs %d inputs, has %d", type_rules[n->op].arity, n->n_in);
	for (int i = 0; i < n->n_in; i++)
		NEED(n->in[i] != NULL, "input %d is missing", i);
	return type_rules[n->op].rule(m, n);
}

/* ---- building ------------------------------------------------------- */

static int grow(vc_module *m, void **arr, int *cap, int need, size_t elem)
{
	if (need <= *cap)
		return 0;
	int nc = *cap ? *cap * 2 : 16;
	while (nc < need)
		nc *= 2;
	void *p = vc_alloc(m, (size_t)nc * elem);
	if (!p)
		return -1;
	if (*arr)
		memcpy(p, *arr, (size_t)*cap * elem);
	*arr = p;
	*cap = nc;
	return 0;
}

static int add_user(vc_module *m, vc_node *v, vc_node *user)
{
	if (grow(m, (void **)&v->users, &v->cap_users, v->n_users + 1, sizeof(vc_node *)))
		return -1;
	v->users[v->n_users++] = user;
	return 0;
}

static void drop_user(vc_node *v, vc_node *user)
{
	for (int i = 0; i < v->n_users; i++)
		if (v->users[i] == user) {
			memmove(&v->users[i], &v->users[i + 1], (size_t)(v->n_users - i - 1) * sizeof(vc_node *));
			v->n_users--;
			return;
		}
}

/* The insertion point is module state (R12: no hidden globals). */
void vc_set_insert_before(vc_module *m, vc_node *before)
{
	m->ip = before;
}

static int place(vc_module *m, vc_node *n)
{
	vc_graph *g = m->g;
	if (grow(m, (void **)&g->nodes, &g->cap, g->n + 1, sizeof(vc_node *)))
		return -1;
	int at = g->n;
	if (m->ip)
		for (int i = 0; i < g->n; i++)
			if (g->nodes[i] == m->ip) {
				at = i;
				break;
			}
	memmove(&g->nodes[at + 1], &g->nodes[at], (size_t)(g->n - at) * sizeof(vc_node *));
	g->nodes[at] = n;
	g->n++;
	return 0;
}

static vc_node *new_node(vc_module *m, vc_op op, const char *name, int n_in)
{
	vc_node *n = vc_alloc(m, sizeof *n);
	if (!n) {
		vc_error(m, NULL, "out of memory");
		return NULL;
	}
	n->id = m->g->next_id++;
	n->op = op;
	if (name)
		snprintf(n->name, sizeof n->name, "%s", name);
	else
		snprintf(n->name, sizeof n->name, "%s_%d", vc_op_name(op), n->id);
	n->n_in = n_in;
	if (n_in) {
		n->in = vc_alloc(m, (size_t)n_in * sizeof(vc_node *));
		if (!n->in) {
			vc_error(m, NULL, "out of memory");
			return NULL;
		}
	}
	vc_attrs_init(&n->a);
	return n;
}

/* Type n, and keep every result inside the bounds of vc_type_check. */
static int infer(vc_module *m, vc_node *n)
{
	if (infer_type(m, n))
		return -1;
	if (vc_type_check(&n->type)) {
		char ts[128];
		vc_type_str(&n->type, ts, sizeof ts);
		return vc_error(m, n, "result type %s is beyond the compiler's limits (dimensions up to "
				"2^30, 2^31 elements, exponents up to +-%d)", ts, VC_MAX_EXP);
	}
	return 0;
}

vc_node *vc_build(vc_module *m, vc_op op, vc_node *const *in, int n_in, const vc_attrs *a, const char *name)
{
	vc_node *n = new_node(m, op, name, n_in);
	if (!n)
		return NULL;
	if (a)
		n->a = *a;
	for (int i = 0; i < n_in; i++)
		n->in[i] = in[i];
	if (infer(m, n))
		return NULL;
	for (int i = 0; i < n_in; i++) {
		int dup = 0; /* a use list is a set: one entry per user */
		for (int k = 0; k < i; k++)
			dup |= in[k] == in[i];
		if (!dup && add_user(m, in[i], n))
			return NULL;
	}
	if (place(m, n))
		return NULL;
	return n;
}

/* An input's or constant's declared type inside the bounds of vc_type_check. */
static int check_new_type(vc_module *m, vc_node *n)
{
	if (n->type.rank < 0 || n->type.rank > VC_MAX_RANK || vc_type_check(&n->type))
		return vc_error(m, n, "a tensor of rank %d with dimensions beyond the compiler's limits "
				"(up to 2^30, 2^31 elements)", n->type.rank);
	return 0;
}

vc_node *vc_input(vc_module *m, const char *name, vc_dtype dt, int rank, const int64_t *dim)
{
	vc_node *n = new_node(m, VC_OP_INPUT, name, 0);
	if (!n)
		return NULL;
	n->type = make_type(dt, rank, dim);
	if (check_new_type(m, n))
		return NULL;
	if (place(m, n))
		return NULL;
	if (m->g->n_inputs >= 8) {
		vc_error(m, n, "more than 8 graph inputs");
		return NULL;
	}
	m->g->inputs[m->g->n_inputs++] = n;
	return n;
}

vc_node *vc_const(vc_module *m, const char *name, vc_dtype dt, int rank, const int64_t *dim, const void *data)
{
	vc_node *n = new_node(m, VC_OP_CONST, name, 0);
	if (!n)
		return NULL;
	n->type = make_type(dt, rank, dim);
	if (check_new_type(m, n))
		return NULL;
	size_t bytes = vc_type_bytes(&n->type);
	n->data = vc_alloc(m, bytes ? bytes : 1);
	if (!n->data) {
		vc_error(m, n, "out of memory for %zu bytes", bytes);
		return NULL;
	}
	if (data)
		memcpy(n->data, data, bytes);
	if (place(m, n))
		return NULL;
	return n;
}

int vc_retype(vc_module *m, vc_node *n)
{
	if (n->op == VC_OP_INPUT || n->op == VC_OP_CONST)
		return 0;
	return infer(m, n);
}

void vc_replace_all_uses(vc_module *m, vc_node *old, vc_node *with)
{
	while (old->n_users > 0) {
		vc_node *u = old->users[0];
		for (int i = 0; i < u->n_in; i++)
			if (u->in[i] == old)
				vc_set_input(m, u, i, with);
	}
	for (int i = 0; i < m->g->n_outputs; i++)
		if (m->g->outputs[i] == old)
			m->g->outputs[i] = with;
}

void vc_set_input(vc_module *m, vc_node *n, int i, vc_node *v)
{
	vc_node *old = n->in[i];
	n->in[i] = v;
	int still = 0;
	for (int k = 0; k < n->n_in; k++)
		still |= n->in[k] == old;
	if (!still)
		drop_user(old, n);
	int has = 0;
	for (int k = 0; k < v->n_users; k++)
		has |= v->users[k] == n;
	if (!has)
		add_user(m, v, n);
}

static int is_output(const vc_graph *g, const vc_node *n)
{
	for (int i = 0; i < g->n_outputs; i++)
		if (g->outputs[i] == n)
			return 1;
	return 0;
}

void vc_remove_dead(vc_module *m)
{
	vc_graph *g = m->g;
	/* reverse order: removing a node may free its inputs */
	for (int i = g->n - 1; i >= 0; i--) {
		vc_node *n = g->nodes[i];
		if (n->n_users || is_output(g, n) || n->op == VC_OP_INPUT)
			continue;
		for (int k = 0; k < n->n_in; k++)
			drop_user(n->in[k], n);
		n->dead = 1;
	}
	int j = 0;
	for (int i = 0; i < g->n; i++)
		if (!g->nodes[i]->dead)
			g->nodes[j++] = g->nodes[i];
	g->n = j;
}
