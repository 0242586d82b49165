/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host side of a compiled model: the nodes that do not run on VTA
 * (quantize and dequantize, packing to the VTA layout and back, padding,
 * pooling, reshapes, transposes, slices, softmax, clips, concatenation,
 * float add/mul, sigmoid, resize, and Darknet's leaky ReLU, upsample, shortcut
 * alignment and yolo layer; the convolutions, products and int8 layers and
 * epilogues in hostgemm.c). Each op has a check, run once
 * when the model is opened, that the stored types are consistent enough for
 * its loops to stay inside its buffers; the loops then trust them. The
 * arithmetic is the compiler's reference (compiler/exec/), bit for bit for
 * the integer ops: tests/compiler/test_model.c compares whole models.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <vta/model/fn.h>
#include <vta/model/hostgemm.h>
#include <vta/model/hostops.h>

const char *vta_mop_name(uint32_t op)
{
	switch (op) {
	case VTA_MOP_INPUT: return "input";
	case VTA_MOP_CONST: return "const";
	case VTA_MOP_RELU: return "relu";
	case VTA_MOP_CLIP: return "clip";
	case VTA_MOP_MAXPOOL: return "maxpool";
	case VTA_MOP_AVGPOOL: return "avgpool";
	case VTA_MOP_GAP: return "gap";
	case VTA_MOP_RESHAPE: return "reshape";
	case VTA_MOP_FLATTEN: return "flatten";
	case VTA_MOP_SOFTMAX: return "softmax";
	case VTA_MOP_CONCAT: return "concat";
	case VTA_MOP_ADD: return "add";
	case VTA_MOP_MUL: return "mul";
	case VTA_MOP_PAD: return "pad";
	case VTA_MOP_LEAKY: return "leaky";
	case VTA_MOP_UPSAMPLE: return "upsample";
	case VTA_MOP_ALIGN: return "align";
	case VTA_MOP_YOLO: return "yolo";
	case VTA_MOP_SIGMOID: return "sigmoid";
	case VTA_MOP_TRANSPOSE: return "transpose";
	case VTA_MOP_SLICE: return "slice";
	case VTA_MOP_RESIZE: return "resize";
	case VTA_MOP_UNARY: return "unary";
	case VTA_MOP_BINARY: return "binary";
	case VTA_MOP_REDUCE: return "reduce";
	case VTA_MOP_QUANTIZE: return "quantize";
	case VTA_MOP_DEQUANTIZE: return "dequantize";
	case VTA_MOP_PACK: return "pack";
	case VTA_MOP_UNPACK: return "unpack";
	case VTA_MOP_VTA_CONV: return "vta.conv";
	default: return vta_hostgemm_name(op);
	}
}

static double get(const vta_mtype_t *t, const void *d, int64_t i)
{
	switch (t->dtype) {
	case VTA_MDT_F32: return ((const float *)d)[i];
	case VTA_MDT_I8: return ((const int8_t *)d)[i];
	default: return ((const int32_t *)d)[i];
	}
}

static void put(const vta_mtype_t *t, void *d, int64_t i, double v)
{
	if (t->dtype == VTA_MDT_F32)
		((float *)d)[i] = (float)v;
	else if (t->dtype == VTA_MDT_I8)
		((int8_t *)d)[i] = (int8_t)v;
	else
		((int32_t *)d)[i] = (int32_t)v;
}

int8_t vta_quantize_clip(float x, int exp, int lo, int hi)
{
	float q = roundf(ldexpf(x, -exp)); /* round half away from zero */
	if (!(q >= (float)lo)) /* also catches NaN */
		q = q != q ? 0.0f : (float)lo;
	if (q > (float)hi)
		q = (float)hi;
	return (int8_t)q;
}

int8_t vta_quantize_value(float x, int exp)
{
	return vta_quantize_clip(x, exp, -127, 127);
}

void vta_quantize_f32(const float *x, int8_t *y, int64_t n, int exp, int lo, int hi)
{
	if (exp < -126 || exp > 126) {
		for (int64_t i = 0; i < n; i++)
			y[i] = vta_quantize_clip(x[i], exp, lo, hi);
		return;
	}
	/* x * 2^-exp is ldexpf(x, -exp): a product with a power of two rounds
	 * once, as ldexpf does; a multiply in the loop instead of a call */
	float s = ldexpf(1.0f, -exp), fl = (float)lo, fh = (float)hi;
	for (int64_t i = 0; i < n; i++) {
		float q = roundf(x[i] * s);
		q = q >= fl ? q : q != q ? 0.0f : fl;
		y[i] = (int8_t)(q > fh ? fh : q);
	}
}

void vta_dequantize(const vta_mtype_t *t, const void *x, float *y)
{
	int64_t n = vta_mtype_elems(t);
	if (t->dtype == VTA_MDT_I8 && t->exp >= -126 && t->exp <= 127) {
		/* q * 2^exp in float rounds once, as the double path does (an int8
		 * is exact in a float; an int32 need not be) */
		float s = ldexpf(1.0f, t->exp);
		for (int64_t i = 0; i < n; i++)
			y[i] = (float)((const int8_t *)x)[i] * s;
		return;
	}
	for (int64_t i = 0; i < n; i++)
		y[i] = (float)ldexp(get(t, x, i), t->exp);
}

/* ---- checks ------------------------------------------------------------ */

static int bad(vta_error_t *err, const vta_mnode_t *n, uint32_t i, const char *what)
{
	return vta_error_set(err, VTA_EINVAL, -1, "node %u ('%s', %s): %s", (unsigned)i, n->name,
			     vta_mop_name(n->op), what);
}

/* A permutation of x's dimensions (attribute shape) gives y's. */
static int transpose_ok(const vta_mtype_t *x, const vta_mtype_t *y, const vta_mattrs_t *a)
{
	int ok = x->rank >= 1 && x->rank == y->rank && a->nshape == x->rank && x->dtype == y->dtype &&
		 x->layout == 0 && y->layout == 0, seen = 0;
	for (int d = 0; ok && d < x->rank; d++) {
		int64_t p = a->shape[d];
		ok = p >= 0 && p < x->rank && !(seen >> p & 1) && y->dim[d] == x->dim[p];
		seen |= ok ? 1 << p : 0;
	}
	return ok;
}

/* y is x cut by pad[0] and pad[2] entries along axis. */
static int slice_ok(const vta_mtype_t *x, const vta_mtype_t *y, const vta_mattrs_t *a)
{
	int ok = x->rank == y->rank && x->dtype == y->dtype && x->layout == 0 && y->layout == 0 && a->axis >= 0 &&
		 a->axis < x->rank && a->pad[0] >= 0 && a->pad[2] >= 0;
	for (int d = 0; ok && d < x->rank; d++)
		ok = d == a->axis ? a->pad[0] <= x->dim[d] && a->pad[2] <= x->dim[d] &&
					    y->dim[d] == x->dim[d] - a->pad[0] - a->pad[2]
				  : y->dim[d] == x->dim[d];
	return ok;
}

/* Darknet's upsample (by stride) or shortcut alignment of plain 4-D data. */
static int resample_ok(int upsample, const vta_mtype_t *x, const vta_mtype_t *y, const vta_mattrs_t *a)
{
	int ok = x->rank == 4 && y->rank == 4 && x->layout == 0 && y->layout == 0 && x->dtype == y->dtype &&
		 x->dtype != VTA_MDT_I32 && x->dim[0] == y->dim[0];
	if (upsample)
		ok = ok && a->stride[0] >= 1 && a->stride[0] <= 64 && a->stride[1] >= 1 && a->stride[1] <= 64 &&
		     x->dim[1] == y->dim[1] && y->dim[2] == x->dim[2] * a->stride[0] && y->dim[3] == x->dim[3] * a->stride[1];
	return ok;
}

/* Rows and columns of plain 4-D float data resampled to y's, with known choices. */
static int resize_ok(const vta_mtype_t *x, const vta_mtype_t *y, const vta_mattrs_t *a)
{
	return x->rank == 4 && y->rank == 4 && x->layout == 0 && y->layout == 0 && x->dtype == VTA_MDT_F32 &&
	       y->dtype == VTA_MDT_F32 && x->dim[0] == y->dim[0] && x->dim[1] == y->dim[1] && y->dim[2] >= 1 &&
	       y->dim[3] >= 1 && a->resize_mode >= VTA_RESIZE_NEAREST && a->resize_mode <= VTA_RESIZE_LINEAR &&
	       a->resize_coord >= 0 && a->resize_coord <= VTA_COORD_TF_HALF_PIXEL_FOR_NN && a->resize_round >= 0 &&
	       a->resize_round <= VTA_ROUND_CEIL && a->scale[0] > 0 && a->scale[0] < 65536 && a->scale[1] > 0 &&
	       a->scale[1] < 65536;
}

/* y is x reduced over the axes of the mask (kept as 1s or dropped). */
static int reduce_ok(const vta_mtype_t *x, const vta_mtype_t *y, const vta_mattrs_t *a)
{
	int ok = x->dtype == VTA_MDT_F32 && y->dtype == VTA_MDT_F32 && x->layout == 0 && y->layout == 0 &&
		 a->fn >= VTA_FN_SUM && a->fn < VTA_FN_REDUCE_END && a->axes > 0 && a->axes < (1 << x->rank), r = 0;
	for (int d = 0; ok && d < x->rank; d++)
		if (!(a->axes >> d & 1) || a->keepdims) {
			ok = r < y->rank && y->dim[r] == (a->axes >> d & 1 ? 1 : x->dim[d]);
			r++;
		}
	return ok && r == y->rank;
}

int vta_hostop_check(const vta_mgraph_t *g, uint32_t i, vta_error_t *err)
{
	const vta_mnode_t *n = &g->nodes[i];
	const vta_mtype_t *y = &n->type, *x = n->n_in ? &g->nodes[n->in[0]].type : NULL;
	if (!vta_mop_name(n->op)) /* no name to give: the number is all the file says */
		return vta_error_set(err, VTA_EUNSUPPORTED, -1, "node %u ('%s'): op code %u is unknown to this libvta "
				     "(a .vtam of a newer compiler?)", (unsigned)i, n->name, (unsigned)n->op);
	if (n->op == VTA_MOP_INPUT || n->op == VTA_MOP_CONST)
		return 0;
	if (vta_hostgemm_op(n->op))
		return n->n_in ? vta_hostgemm_check(g, i, err) : bad(err, n, i, "wrong number of operands");
	int binary = n->op == VTA_MOP_ADD || n->op == VTA_MOP_MUL || n->op == VTA_MOP_YOLO || n->op == VTA_MOP_BINARY;
	int varying = n->op == VTA_MOP_CONCAT || n->op == VTA_MOP_VTA_CONV;
	if (!x || (!varying && n->n_in != 1 + binary))
		return bad(err, n, i, "wrong number of operands");
	int64_t xe = vta_mtype_elems(x), ye = vta_mtype_elems(y);
	switch (n->op) {
	case VTA_MOP_QUANTIZE:
		return xe == ye && x->dtype == VTA_MDT_F32 && y->dtype == VTA_MDT_I8 && n->a.qlo >= -128 &&
				       n->a.qhi <= 127 && n->a.qlo <= n->a.qhi
			       ? 0
			       : bad(err, n, i, "needs float in, int8 out, as many elements, int8 bounds");
	case VTA_MOP_ADD:
	case VTA_MOP_MUL:
	case VTA_MOP_BINARY: { /* numpy broadcasting: each operand's dims 1 or the result's, aligned right */
		int ok = y->dtype == VTA_MDT_F32 && y->layout == 0 &&
			 (n->op != VTA_MOP_BINARY || (n->a.fn >= VTA_FN_DIV && n->a.fn < VTA_FN_BINARY_END));
		for (int k = 0; ok && k < 2; k++) {
			const vta_mtype_t *t = &g->nodes[n->in[k]].type;
			ok = t->dtype == VTA_MDT_F32 && t->rank <= y->rank;
			for (int d = 0; ok && d < t->rank; d++)
				ok = t->dim[d] == 1 || t->dim[d] == y->dim[d + y->rank - t->rank];
		}
		return ok ? 0 : bad(err, n, i, "needs float operands that broadcast to the result");
	}
	case VTA_MOP_TRANSPOSE:
		return transpose_ok(x, y, &n->a) ? 0
			: bad(err, n, i, "needs plain data and a permutation of its dimensions to the result's");
	case VTA_MOP_SLICE:
		return slice_ok(x, y, &n->a) ? 0 : bad(err, n, i, "needs plain data cut along an axis inside it to the result");
	case VTA_MOP_SIGMOID:
		return vta_mtype_same_dims(x, y) && x->dtype == VTA_MDT_F32 && y->dtype == VTA_MDT_F32 ? 0
			: bad(err, n, i, "needs float in and out of one shape");
	case VTA_MOP_LEAKY:
		return vta_mtype_same_dims(x, y) && x->dtype == VTA_MDT_F32 && y->dtype == VTA_MDT_F32 && n->a.leaky >= 1 &&
				       n->a.leaky <= 15
			       ? 0
			       : bad(err, n, i, "needs float in and out of one shape and a shift in [1,15]");
	case VTA_MOP_UPSAMPLE:
	case VTA_MOP_ALIGN:
		return resample_ok(n->op == VTA_MOP_UPSAMPLE, x, y, &n->a) ? 0
			: bad(err, n, i, "needs plain 4-D float or int8 data of matching shapes");
	case VTA_MOP_UNARY:
		return vta_mtype_same_dims(x, y) && x->dtype == VTA_MDT_F32 && y->dtype == VTA_MDT_F32 && n->a.fn >= 0 &&
				       n->a.fn < VTA_FN_UNARY_END
			       ? 0
			       : bad(err, n, i, "needs float in and out of one shape and a known function");
	case VTA_MOP_REDUCE:
		return reduce_ok(x, y, &n->a) ? 0
			: bad(err, n, i, "needs float in and out, a known function and axes that give the result's shape");
	case VTA_MOP_RESIZE:
		return resize_ok(x, y, &n->a) ? 0
			: bad(err, n, i, "needs plain 4-D float data, rows and columns resized, and known choices");
	case VTA_MOP_YOLO: {
		const vta_mnode_t *an = &g->nodes[n->in[1]];
		int ok = vta_mtype_same_dims(x, y) && x->rank == 4 && x->dtype == VTA_MDT_F32 && y->dtype == VTA_MDT_F32 &&
			 an->op == VTA_MOP_CONST && an->type.rank == 2 && an->type.dim[1] == 2 &&
			 an->type.dtype == VTA_MDT_F32 && n->a.axis >= 1 && n->a.axis < (1 << 20) &&
			 x->dim[1] == an->type.dim[0] * (n->a.axis + 5);
		return ok ? 0 : bad(err, n, i, "needs float [N, anchors x (classes + 5), H, W] and constant anchors [n,2]");
	}
	case VTA_MOP_PAD: { /* plain [N][C][H][W] or packed [.][.][H][W][B][BL] */
		const vta_mattrs_t *a = &n->a;
		int ok = (x->rank == 4 || x->rank == 6) && y->rank == x->rank && x->dtype == y->dtype &&
			 x->layout == y->layout;
		for (int d = 0; ok && d < x->rank; d++)
			ok = d == 2 || d == 3 || x->dim[d] == y->dim[d];
		for (int k = 0; ok && k < 2; k++)
			ok = a->pad[k] >= 0 && a->pad[k + 2] >= 0 && a->pad[k] <= 1024 && a->pad[k + 2] <= 1024 &&
			     y->dim[2 + k] == x->dim[2 + k] + a->pad[k] + a->pad[k + 2];
		return ok ? 0 : bad(err, n, i, "inconsistent shapes, dtypes or padding");
	}
	case VTA_MOP_DEQUANTIZE:
		return xe == ye && x->dtype != VTA_MDT_F32 && y->dtype == VTA_MDT_F32 ? 0
			: bad(err, n, i, "needs integers in, float out, as many elements");
	case VTA_MOP_RELU:
	case VTA_MOP_CLIP:
	case VTA_MOP_RESHAPE:
	case VTA_MOP_FLATTEN:
		return xe == ye && x->dtype == y->dtype ? 0 : bad(err, n, i, "needs the same dtype and size");
	case VTA_MOP_SOFTMAX: {
		int64_t ax = n->a.axis < 0 ? n->a.axis + x->rank : n->a.axis;
		return vta_mtype_same_dims(x, y) && x->dtype == VTA_MDT_F32 && y->dtype == VTA_MDT_F32 && ax >= 0 &&
				       ax < x->rank
			       ? 0
			       : bad(err, n, i, "needs float in and out of one shape and an axis inside it");
	}
	case VTA_MOP_GAP:
		return x->rank >= 2 && y->dtype == VTA_MDT_F32 && x->dim[0] * x->dim[1] == ye && ye > 0 ? 0
			: bad(err, n, i, "needs N x C float results of an input of rank 2 or more");
	case VTA_MOP_MAXPOOL:
	case VTA_MOP_AVGPOOL: {
		const vta_mattrs_t *a = &n->a;
		int ok = x->rank == 4 && y->rank == 4 && x->dim[0] == y->dim[0] && x->dim[1] == y->dim[1] &&
			 (n->op == VTA_MOP_MAXPOOL ? x->dtype == y->dtype : y->dtype == VTA_MDT_F32);
		for (int k = 0; ok && k < 2; k++)
			ok = a->kernel[k] >= 1 && a->kernel[k] <= 1024 && a->stride[k] >= 1 && a->stride[k] <= 1024 &&
			     a->dilation[k] >= 1 && a->dilation[k] <= 1024 && a->pad[k] >= 0 && a->pad[k] <= 1024 &&
			     a->pad[k + 2] >= 0 && a->pad[k + 2] <= 1024 && y->dim[2 + k] >= 1 &&
			     y->dim[2 + k] <= x->dim[2 + k] + a->pad[k] + a->pad[k + 2]; /* windows start in the padded input */
		return ok ? 0 : bad(err, n, i, "inconsistent shapes, dtypes or window");
	}
	case VTA_MOP_CONCAT: {
		int64_t ax = n->a.axis < 0 ? n->a.axis + y->rank : n->a.axis, sum = 0;
		int ok = ax >= 0 && ax < y->rank;
		for (int k = 0; ok && k < n->n_in; k++) {
			const vta_mtype_t *t = &g->nodes[n->in[k]].type;
			ok = t->rank == y->rank && t->dtype == y->dtype;
			for (int d = 0; ok && d < y->rank; d++)
				ok = d == ax || t->dim[d] == y->dim[d];
			sum += ok ? t->dim[ax] : 0;
		}
		return ok && sum == y->dim[ax] ? 0 : bad(err, n, i, "operands that do not make up the result");
	}
	case VTA_MOP_PACK:
	case VTA_MOP_UNPACK: {
		const vta_mtype_t *p = n->op == VTA_MOP_PACK ? y : x, *u = n->op == VTA_MOP_PACK ? x : y;
		int ok = p->rank == 6 && p->layout == 1 && u->layout == 0 && (u->rank == 4 || u->rank == 2) &&
			 p->dtype == VTA_MDT_I8 && u->dtype == VTA_MDT_I8;
		/* a pack may fold a kw-wide kernel's columns into the channels
		 * (the compiler's graph/pack.c): kw times the channels, the
		 * convolution's output width */
		int64_t kw = n->op == VTA_MOP_PACK && n->a.kernel[1] > 1 ? n->a.kernel[1] : 1, uw = u->rank == 4 ? u->dim[3] : 1;
		if (kw > 1) {
			ok = ok && u->rank == 4 && n->a.stride[1] >= 1 && n->a.pad[1] >= 0 && n->a.pad[3] >= 0 &&
			     uw + n->a.pad[1] + n->a.pad[3] >= kw && u->dim[1] <= INT64_MAX / kw;
			uw = ok ? (uw + n->a.pad[1] + n->a.pad[3] - kw) / n->a.stride[1] + 1 : 0;
		}
		ok = ok && u->dim[0] <= p->dim[0] * p->dim[4] && u->dim[1] * kw <= p->dim[1] * p->dim[5] &&
		     p->dim[2] == (u->rank == 4 ? u->dim[2] : 1) && p->dim[3] == uw;
		return ok ? 0 : bad(err, n, i, "plain and packed shapes that do not correspond");
	}
	case VTA_MOP_VTA_CONV: /* on the device: model.c checks its placement */
		return n->n_in >= 3 && n->n_in <= 4 ? 0 : bad(err, n, i, "wrong number of operands");
	default:
		return bad(err, n, i, "unexpected op");
	}
}

/* ---- kernels ----------------------------------------------------------- */

void vta_pool(int is_max, const vta_mattrs_t *a, const vta_mtype_t *xt, const void *x, const vta_mtype_t *yt,
	      void *y)
{
	int64_t NC = xt->dim[0] * xt->dim[1], H = xt->dim[2], W = xt->dim[3];
	int64_t OH = yt->dim[2], OW = yt->dim[3];
	if (is_max && xt->dtype == VTA_MDT_I8 && yt->dtype == VTA_MDT_I8 && a->dilation[0] == 1 && a->dilation[1] == 1) {
		/* int8 max pooling (the deployed models'): direct loops over the window
		 * clipped to the input; a window wholly in the padding gives 0 */
		for (int64_t p = 0; p < NC; p++)
			for (int64_t oh = 0; oh < OH; oh++) {
				int64_t h0 = oh * a->stride[0] - a->pad[0], h1 = h0 + a->kernel[0];
				h0 = h0 < 0 ? 0 : h0, h1 = h1 > H ? H : h1;
				for (int64_t ow = 0; ow < OW; ow++) {
					int64_t w0 = ow * a->stride[1] - a->pad[1], w1 = w0 + a->kernel[1];
					w0 = w0 < 0 ? 0 : w0, w1 = w1 > W ? W : w1;
					int m = h0 < h1 && w0 < w1 ? INT8_MIN : 0;
					for (int64_t ih = h0; ih < h1; ih++)
						for (int64_t iw = w0; iw < w1; iw++) {
							int v = ((const int8_t *)x)[(p * H + ih) * W + iw];
							m = v > m ? v : m;
						}
					((int8_t *)y)[(p * OH + oh) * OW + ow] = (int8_t)m;
				}
			}
		return;
	}
	for (int64_t p = 0; p < NC; p++)
		for (int64_t oh = 0; oh < OH; oh++)
			for (int64_t ow = 0; ow < OW; ow++) {
				double acc = is_max ? -INFINITY : 0.0;
				int64_t count = 0, window = 0;
				for (int64_t kh = 0; kh < a->kernel[0]; kh++)
					for (int64_t kw = 0; kw < a->kernel[1]; kw++) {
						int64_t ih = oh * a->stride[0] - a->pad[0] + kh * a->dilation[0];
						int64_t iw = ow * a->stride[1] - a->pad[1] + kw * a->dilation[1];
						/* the window as clipped to the padded input */
						if (ih < H + a->pad[2] && iw < W + a->pad[3])
							window++;
						if (ih < 0 || ih >= H || iw < 0 || iw >= W)
							continue;
						double v = get(xt, x, (p * H + ih) * W + iw);
						acc = is_max ? (v > acc ? v : acc) : acc + v;
						count++;
					}
				int64_t o = (p * OH + oh) * OW + ow;
				if (is_max) /* a window wholly in the padding: nothing to take */
					put(yt, y, o, count || yt->dtype == VTA_MDT_F32 ? acc : 0.0);
				else {
					int64_t div = a->count_include_pad ? window : count;
					((float *)y)[o] = (float)(div ? acc / (double)div : 0.0);
				}
			}
}

void vta_softmax_f32(const float *xd, float *yd, int64_t outer, int64_t len, int64_t inner)
{
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			double mx = -INFINITY, sum = 0;
			for (int64_t k = 0; k < len; k++)
				mx = fmax(mx, xd[(o * len + k) * inner + i]);
			for (int64_t k = 0; k < len; k++)
				sum += exp(xd[(o * len + k) * inner + i] - mx);
			for (int64_t k = 0; k < len; k++)
				yd[(o * len + k) * inner + i] = (float)(exp(xd[(o * len + k) * inner + i] - mx) / sum);
		}
}

void vta_softmax_axis(const vta_mtype_t *t, int64_t axis, int coerce2d, const float *x, float *y)
{
	int64_t ax = axis < 0 ? axis + t->rank : axis;
	int64_t outer = 1, len = 1, inner = 1;
	for (int i = 0; i < t->rank; i++) {
		if (i < ax)
			outer *= t->dim[i];
		else if (i == ax || coerce2d)
			len *= t->dim[i];
		else
			inner *= t->dim[i];
	}
	vta_softmax_f32(x, y, outer, len, inner);
}

void vta_concat(const vta_mtype_t *t, int64_t axis, int n, const vta_mtype_t *const *ts, const void *const *xs,
		void *y)
{
	int64_t ax = axis < 0 ? axis + t->rank : axis;
	int64_t outer = 1, inner = 1;
	for (int i = 0; i < t->rank; i++) {
		if (i < ax)
			outer *= t->dim[i];
		if (i > ax)
			inner *= t->dim[i];
	}
	size_t es = vta_mdtype_size(t->dtype);
	uint8_t *yd = y;
	int64_t off = 0;
	for (int k = 0; k < n; k++) {
		int64_t len = ts[k]->dim[ax] * inner;
		for (int64_t o = 0; o < outer; o++)
			memcpy(yd + (size_t)(o * t->dim[ax] * inner + off) * es, (const uint8_t *)xs[k] + (size_t)(o * len) * es,
			       (size_t)len * es);
		off += len;
	}
}

/* The VTA blocked layout [N/B][C/BL][H][W][B][BL] (VTA-SPEC 2.6); p the
 * packed type, u the plain one; zero where the plain tensor has no element. */
void vta_repack(const vta_mtype_t *p, const vta_mtype_t *u, const int8_t *src, int8_t *dst, int to_packed)
{
	if (to_packed) { /* a fold of one column is the plain packing */
		vta_pack_fold(p, u, src, dst, 1, 1, 0);
		return;
	}
	int64_t N = u->dim[0], C = u->dim[1], H = p->dim[2], W = p->dim[3], B = p->dim[4], BL = p->dim[5];
	for (int64_t nb = 0; nb < p->dim[0]; nb++)
		for (int64_t cb = 0; cb < p->dim[1]; cb++)
			for (int64_t h = 0; h < H; h++)
				for (int64_t w = 0; w < W; w++)
					for (int64_t b = 0; b < B; b++)
						for (int64_t c = 0; c < BL; c++) {
							int64_t n = nb * B + b, ch = cb * BL + c;
							int64_t o = ((((nb * p->dim[1] + cb) * H + h) * W + w) * B + b) * BL + c;
							if (n < N && ch < C)
								dst[((n * C + ch) * H + h) * W + w] = src[o];
						}
}

void vta_pack_fold(const vta_mtype_t *p, const vta_mtype_t *u, const int8_t *src, int8_t *dst, int64_t kw, int64_t sw,
		   int64_t pl)
{
	int64_t N = u->dim[0], C = u->dim[1], XW = u->rank == 4 ? u->dim[3] : 1;
	int64_t H = p->dim[2], W = p->dim[3], B = p->dim[4], BL = p->dim[5];
	for (int64_t nb = 0; nb < p->dim[0]; nb++)
		for (int64_t cb = 0; cb < p->dim[1]; cb++)
			for (int64_t h = 0; h < H; h++)
				for (int64_t w = 0; w < W; w++)
					for (int64_t b = 0; b < B; b++)
						for (int64_t c = 0; c < BL; c++) {
							int64_t n = nb * B + b, ch = cb * BL + c, k = ch / C, xc = ch % C;
							int64_t xw = w * sw - pl + k;
							int64_t o = ((((nb * p->dim[1] + cb) * H + h) * W + w) * B + b) * BL + c;
							dst[o] = n < N && ch < C * kw && xw >= 0 && xw < XW
									 ? src[((n * C + xc) * H + h) * XW + xw]
									 : 0;
						}
}

/* Index into a broadcast operand t for flat index o of the result r. */
static int64_t bcast_index(const vta_mtype_t *r, const vta_mtype_t *t, int64_t o)
{
	int64_t idx = 0, stride = 1;
	for (int d = r->rank - 1; d >= 0; d--) {
		int64_t c = o % r->dim[d];
		o /= r->dim[d];
		int di = d - (r->rank - t->rank);
		if (di >= 0) {
			if (t->dim[di] != 1)
				idx += c * stride;
			stride *= t->dim[di];
		}
	}
	return idx;
}

/* The element of operand t for result element o is o / inner when t's
 * dimensions are r's up to some axis and 1 after it (the same shape: inner
 * 1; a scalar: inner = every element; a per-channel [N,C,1,1] onto
 * [N,C,H,W]: H * W); 0 when t broadcasts otherwise. */
static int64_t bcast_inner(const vta_mtype_t *r, const vta_mtype_t *t)
{
	int64_t inner = 1;
	int d = r->rank - 1;
	for (; d >= 0; d--) {
		int di = d - (r->rank - t->rank);
		if (di >= 0 && t->dim[di] != 1)
			break;
		inner *= r->dim[d];
	}
	for (; d >= 0; d--) {
		int di = d - (r->rank - t->rank);
		if (di >= 0 && t->dim[di] != r->dim[d])
			return 0;
		if (di < 0 && r->dim[d] != 1)
			return 0;
	}
	return inner;
}

void vta_add_mul_f32(int mul, const vta_mtype_t *r, const vta_mtype_t *ta, const float *a, const vta_mtype_t *tb,
		     const float *b, float *y)
{
	int64_t e = vta_mtype_elems(r), ia = bcast_inner(r, ta), ib = bcast_inner(r, tb);
	if (ia == 1 && ib == 1) { /* the same shapes (residuals) */
		for (int64_t i = 0; i < e; i++)
			y[i] = mul ? a[i] * b[i] : a[i] + b[i];
		return;
	}
	if (ia == 1 && ib > 1) {
		/* b one value a run of ib (a scalar, squeeze-excitation's scale
		 * per channel): loops the compiler vectorizes */
		for (int64_t o = 0; o < e; o += ib) {
			float v = b[o / ib];
			if (mul)
				for (int64_t i = o; i < o + ib; i++)
					y[i] = a[i] * v;
			else
				for (int64_t i = o; i < o + ib; i++)
					y[i] = a[i] + v;
		}
		return;
	}
	if (ib == 1 && ia > 0) { /* the same with the operands' roles swapped: + and * commute */
		vta_add_mul_f32(mul, r, tb, b, ta, a, y);
		return;
	}
	for (int64_t i = 0; i < e; i++) {
		float u = a[bcast_index(r, ta, i)], v = b[bcast_index(r, tb, i)];
		y[i] = mul ? u * v : u + v;
	}
}

void vta_binary_f32(int fn, const vta_mtype_t *r, const vta_mtype_t *ta, const float *a, const vta_mtype_t *tb,
		    const float *b, float *y)
{
	int64_t e = vta_mtype_elems(r);
	for (int64_t i = 0; i < e; i++)
		y[i] = (float)vta_binary_value(fn, a[bcast_index(r, ta, i)], b[bcast_index(r, tb, i)]);
}

void vta_pad(const vta_mtype_t *xt, const void *x, const vta_mtype_t *yt, void *y, const int64_t *pad, double lo)
{
	int64_t NC = xt->dim[0] * xt->dim[1], H = xt->dim[2], W = xt->dim[3], OH = yt->dim[2], OW = yt->dim[3];
	int64_t blk = xt->rank == 6 ? xt->dim[4] * xt->dim[5] : 1; /* packed: a block per (h, w) */
	/* quantized: the value's integer, rounded half to even as nearbyint does */
	double v = xt->quantized ? fmax(fmin(nearbyint(ldexp(lo, -xt->exp)), 127.0), -128.0) : lo;
	size_t es = vta_mdtype_size(xt->dtype) * (size_t)blk;
	for (int64_t i = 0; i < NC * OH * OW * blk; i++)
		put(yt, y, i, v);
	for (int64_t p = 0; p < NC; p++)
		for (int64_t h = 0; h < H; h++)
			memcpy((uint8_t *)y + ((size_t)((p * OH + h + pad[0]) * OW + pad[1])) * es,
			       (const uint8_t *)x + (size_t)((p * H + h) * W) * es, (size_t)W * es);
}

void vta_resample(int align, const vta_mtype_t *it, const void *x, const vta_mtype_t *ot, void *y,
		  const int64_t *stride)
{
	size_t es = vta_mdtype_size(it->dtype);
	int64_t N = ot->dim[0], C = ot->dim[1], H = ot->dim[2], W = ot->dim[3];
	int64_t IC = it->dim[1], IH = it->dim[2], IW = it->dim[3];
	const uint8_t *xd = x;
	uint8_t *yd = y;
	if (!align) {
		for (int64_t p = 0; p < N * C; p++)
			for (int64_t r = 0; r < H; r++)
				for (int64_t c = 0; c < W; c++)
					memcpy(yd + (size_t)((p * H + r) * W + c) * es,
					       xd + (size_t)((p * IH + r / stride[0]) * IW + c / stride[1]) * es, es);
		return;
	}
	memset(yd, 0, (size_t)vta_mtype_bytes(ot));
	int64_t sth = IH / H > 1 ? IH / H : 1, sph = H / IH > 1 ? H / IH : 1;
	int64_t stw = IW / W > 1 ? IW / W : 1, spw = W / IW > 1 ? W / IW : 1;
	int64_t mc = C < IC ? C : IC, mh = H < IH ? H : IH, mw = W < IW ? W : IW;
	for (int64_t b = 0; b < N; b++)
		for (int64_t k = 0; k < mc; k++)
			for (int64_t j = 0; j < mh; j++)
				for (int64_t i = 0; i < mw; i++) {
					int64_t oj = j * sph, oi = i * spw, ij = j * sth, ii = i * stw;
					if (oj < H && oi < W && ij < IH && ii < IW)
						memcpy(yd + (size_t)(((b * C + k) * H + oj) * W + oi) * es,
						       xd + (size_t)(((b * IC + k) * IH + ij) * IW + ii) * es, es);
				}
}

static float logistic(float v)
{
	return 1.0f / (1.0f + expf(-v));
}

void vta_yolo_f32(const float *x, float *y, int64_t batch, int64_t anchors, int64_t classes, int64_t plane)
{
	for (int64_t b = 0; b < batch; b++)
		for (int64_t a = 0; a < anchors; a++)
			for (int64_t e = 0; e < classes + 5; e++) {
				int64_t off = ((b * anchors + a) * (classes + 5) + e) * plane;
				for (int64_t i = 0; i < plane; i++)
					y[off + i] = e == 2 || e == 3 ? x[off + i] : logistic(x[off + i]);
			}
}

void vta_transpose(const vta_mtype_t *xt, const void *x, const vta_mtype_t *yt, void *y, const int64_t *perm)
{
	size_t es = vta_mdtype_size(xt->dtype);
	int r = yt->rank;
	int64_t xs[VTA_MGRAPH_MAX_RANK], st[VTA_MGRAPH_MAX_RANK], at[VTA_MGRAPH_MAX_RANK] = {0}, e = vta_mtype_elems(yt);
	xs[xt->rank - 1] = 1;
	for (int d = xt->rank - 1; d > 0; d--)
		xs[d - 1] = xs[d] * xt->dim[d];
	for (int d = 0; d < r; d++)
		st[d] = xs[perm[d]]; /* x's stride along y's dimension d */
	/* y in order, its coordinates counted like an odometer; the innermost
	 * run is a strided gather (a channel shuffle's is one plane) */
	int64_t off = 0, inner = yt->dim[r - 1], sti = st[r - 1];
	const uint8_t *xd = x;
	uint8_t *yd = y;
	for (int64_t o = 0; o < e; o += inner) {
		if (es == 1)
			for (int64_t k = 0; k < inner; k++)
				yd[o + k] = xd[off + k * sti];
		else
			for (int64_t k = 0; k < inner; k++)
				memcpy(yd + (size_t)(o + k) * es, xd + (size_t)(off + k * sti) * es, es);
		for (int d = r - 2; d >= 0; d--) {
			off += st[d];
			if (++at[d] < yt->dim[d])
				break;
			off -= st[d] * yt->dim[d];
			at[d] = 0;
		}
	}
}

void vta_slice(const vta_mtype_t *xt, const void *x, const vta_mtype_t *yt, void *y, int64_t axis, int64_t start)
{
	size_t es = vta_mdtype_size(xt->dtype);
	int64_t outer = 1, inner = es;
	for (int d = 0; d < axis; d++)
		outer *= xt->dim[d];
	for (int d = (int)axis + 1; d < xt->rank; d++)
		inner *= xt->dim[d];
	int64_t xl = xt->dim[axis] * inner, yl = yt->dim[axis] * inner;
	for (int64_t o = 0; o < outer; o++)
		memcpy((uint8_t *)y + o * yl, (const uint8_t *)x + o * xl + start * inner, (size_t)yl);
}

/* The source coordinate of output index o along an axis of in entries
 * resized by scale (ONNX Resize's coordinate_transformation_mode; the
 * resized length is in * scale, not rounded, as ONNX's reference has it). */
static double resize_source(int coord, int64_t o, int64_t in, double scale)
{
	double v = (double)o, len = (double)in * scale;
	int one = fabs(len - 1.0) < 1e-9;
	switch (coord) {
	case VTA_COORD_HALF_PIXEL: return (v + 0.5) / scale - 0.5;
	case VTA_COORD_PYTORCH_HALF_PIXEL: return one ? 0.0 : (v + 0.5) / scale - 0.5;
	case VTA_COORD_ALIGN_CORNERS: return one ? 0.0 : v * (double)(in - 1) / (len - 1.0);
	case VTA_COORD_ASYMMETRIC: return v / scale;
	default: return (v + 0.5) / scale; /* tf_half_pixel_for_nn */
	}
}

/*
 * Per output index along an axis: the two source indices and the weight of
 * the second (linear), or one index with weight 0 (nearest, by ONNX's
 * nearest_mode); source coordinates are clamped to the input, which is
 * what ONNX's edge handling and TensorFlow's bounds both give.
 */
static void resize_axis(int mode, int coord, int round, int64_t in, int64_t out, double scale, int64_t *i0,
			int64_t *i1, float *w)
{
	for (int64_t o = 0; o < out; o++) {
		double s = resize_source(coord, o, in, scale);
		if (mode == VTA_RESIZE_NEAREST) {
			double f = floor(s), frac = s - f;
			switch (round) {
			case VTA_ROUND_PREFER_FLOOR: s = frac > 0.5 ? f + 1 : f; break;
			case VTA_ROUND_PREFER_CEIL: s = frac >= 0.5 ? f + 1 : f; break;
			case VTA_ROUND_FLOOR: s = f; break;
			default: s = ceil(s); break;
			}
		}
		s = s < 0 ? 0 : s > (double)(in - 1) ? (double)(in - 1) : s;
		int64_t k = (int64_t)s;
		i0[o] = k;
		i1[o] = k + 1 < in && s > (double)k ? k + 1 : k;
		w[o] = (float)(s - (double)k);
	}
}

int vta_resize_f32(const vta_mtype_t *xt, const float *x, const vta_mtype_t *yt, float *y, int mode, int coord,
		   int round, const double *scale)
{
	int64_t H = xt->dim[2], W = xt->dim[3], OH = yt->dim[2], OW = yt->dim[3];
	int64_t *idx = malloc((size_t)(2 * (OH + OW)) * sizeof *idx);
	float *w = malloc((size_t)(OH + OW) * sizeof *w);
	if (!idx || !w) {
		free(idx);
		free(w);
		return VTA_ENOMEM;
	}
	int64_t *r0 = idx, *r1 = idx + OH, *c0 = idx + 2 * OH, *c1 = c0 + OW;
	float *wr = w, *wc = w + OH;
	resize_axis(mode, coord, round, H, OH, scale[0], r0, r1, wr);
	resize_axis(mode, coord, round, W, OW, scale[1], c0, c1, wc);
	for (int64_t p = 0; p < xt->dim[0] * xt->dim[1]; p++) {
		const float *xp = x + p * H * W;
		float *yp = y + p * OH * OW;
		for (int64_t r = 0; r < OH; r++) {
			const float *a = xp + r0[r] * W, *b = xp + r1[r] * W;
			for (int64_t c = 0; c < OW; c++) {
				float top = a[c0[c]] + wc[c] * (a[c1[c]] - a[c0[c]]);
				float bot = b[c0[c]] + wc[c] * (b[c1[c]] - b[c0[c]]);
				yp[r * OW + c] = top + wr[r] * (bot - top);
			}
		}
	}
	free(idx);
	free(w);
	return 0;
}

void vta_sigmoid_f32(const float *x, float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		y[i] = logistic(x[i]);
}

void vta_leaky_f32(const float *x, float *y, int64_t n, int shift)
{
	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] >= 0 ? x[i] : ldexpf(x[i], -shift);
}

int vta_hostop_run(const vta_mnode_t *n, const vta_mval_t *in, vta_mval_t *y)
{
	const vta_mval_t *x = &in[0];
	int64_t e = vta_mtype_elems(y->t);
	if (vta_hostgemm_op(n->op))
		return vta_hostgemm_run(n, in, y);
	switch (n->op) {
	case VTA_MOP_QUANTIZE:
		vta_quantize_f32(x->data, y->data, e, y->t->exp, (int)n->a.qlo, (int)n->a.qhi);
		return 0;
	case VTA_MOP_ADD:
	case VTA_MOP_MUL:
		vta_add_mul_f32(n->op == VTA_MOP_MUL, y->t, x->t, x->data, in[1].t, in[1].data, y->data);
		return 0;
	case VTA_MOP_PAD:
		vta_pad(x->t, x->data, y->t, y->data, n->a.pad, n->a.lo);
		return 0;
	case VTA_MOP_LEAKY:
		vta_leaky_f32(x->data, y->data, e, n->a.leaky);
		return 0;
	case VTA_MOP_SIGMOID:
		vta_sigmoid_f32(x->data, y->data, e);
		return 0;
	case VTA_MOP_TRANSPOSE:
		vta_transpose(x->t, x->data, y->t, y->data, n->a.shape);
		return 0;
	case VTA_MOP_SLICE:
		vta_slice(x->t, x->data, y->t, y->data, n->a.axis, n->a.pad[0]);
		return 0;
	case VTA_MOP_UPSAMPLE:
	case VTA_MOP_ALIGN:
		vta_resample(n->op == VTA_MOP_ALIGN, x->t, x->data, y->t, y->data, n->a.stride);
		return 0;
	case VTA_MOP_UNARY:
		vta_unary_f32(n->a.fn, n->a.alpha, n->a.beta, x->data, y->data, e);
		return 0;
	case VTA_MOP_BINARY:
		vta_binary_f32(n->a.fn, y->t, x->t, x->data, in[1].t, in[1].data, y->data);
		return 0;
	case VTA_MOP_REDUCE:
		return vta_reduce_f32(n->a.fn, n->a.axes, x->t, x->data, y->data);
	case VTA_MOP_RESIZE:
		return vta_resize_f32(x->t, x->data, y->t, y->data, n->a.resize_mode, n->a.resize_coord, n->a.resize_round,
				      n->a.scale);
	case VTA_MOP_YOLO:
		vta_yolo_f32(x->data, y->data, x->t->dim[0], in[1].t->dim[0], n->a.axis, x->t->dim[2] * x->t->dim[3]);
		return 0;
	case VTA_MOP_DEQUANTIZE:
		vta_dequantize(x->t, x->data, y->data);
		return 0;
	case VTA_MOP_RELU:
	case VTA_MOP_CLIP: {
		double lo = n->op == VTA_MOP_RELU ? 0.0 : n->a.lo, hi = n->op == VTA_MOP_RELU ? INFINITY : n->a.hi;
		if (x->t->quantized && n->op == VTA_MOP_CLIP) { /* bounds in real units, applied to the integers */
			lo = ceil(ldexp(lo, -x->t->exp));
			hi = floor(ldexp(hi, -x->t->exp));
		}
		for (int64_t i = 0; i < e; i++) {
			double v = get(x->t, x->data, i);
			put(y->t, y->data, i, v < lo ? lo : v > hi ? hi : v);
		}
		return 0;
	}
	case VTA_MOP_RESHAPE:
	case VTA_MOP_FLATTEN:
		memcpy(y->data, x->data, (size_t)vta_mtype_bytes(y->t));
		return 0;
	case VTA_MOP_MAXPOOL:
	case VTA_MOP_AVGPOOL:
		vta_pool(n->op == VTA_MOP_MAXPOOL, &n->a, x->t, x->data, y->t, y->data);
		return 0;
	case VTA_MOP_GAP: {
		int64_t NC = x->t->dim[0] * x->t->dim[1], S = vta_mtype_elems(x->t) / NC;
		for (int64_t p = 0; p < NC; p++) {
			double s = 0;
			for (int64_t i = 0; i < S; i++)
				s += get(x->t, x->data, p * S + i);
			((float *)y->data)[p] = (float)(S ? s / (double)S : 0.0);
		}
		return 0;
	}
	case VTA_MOP_SOFTMAX:
		vta_softmax_axis(x->t, n->a.axis, n->a.coerce2d, x->data, y->data);
		return 0;
	case VTA_MOP_CONCAT:
	{
		const vta_mtype_t *ts[VTA_MGRAPH_MAX_IN];
		const void *xs[VTA_MGRAPH_MAX_IN];
		for (int k = 0; k < n->n_in; k++)
			ts[k] = in[k].t, xs[k] = in[k].data;
		vta_concat(y->t, n->a.axis, n->n_in, ts, xs, y->data);
		return 0;
	}
	case VTA_MOP_PACK:
		if (n->a.kernel[1] > 1) /* a convolution's columns folded into its channels */
			vta_pack_fold(y->t, x->t, x->data, y->data, n->a.kernel[1], n->a.stride[1], n->a.pad[1]);
		else
			vta_repack(y->t, x->t, x->data, y->data, 1);
		return 0;
	case VTA_MOP_UNPACK:
		vta_repack(x->t, y->t, x->data, y->data, 0);
		return 0;
	default:
		return -1;
	}
}
