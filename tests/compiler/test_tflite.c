/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TFLite front end:
 *   - a conformance table, one tiny model per operator (written here with
 *     our own FlatBuffers writer): the imported model on the host against
 *     an NHWC reference written in this file, and compiled to int8, the
 *     .vtam run by libvta's model API on fsim, against the same reference;
 *   - ResNet-8 (MLPerf Tiny, float TFLite) on 100 CIFAR-10 images on fsim,
 *     calibrated on 200 other images, against the float model's own score
 *     (default configuration, plain build only); the int8 TFLite file too;
 *   - bad input: truncated and corrupted files, data that disagrees with
 *     its shape, unsupported operators, types and options, bad options of
 *     the newer operators (SPLIT, STRIDED_SLICE, FLOAT16 without
 *     DEQUANTIZE, ...), each refused with the file, operator and reason named;
 *   - compiling without calibration data is refused with the way to do it;
 *   - MobileNet-V2 (int8 TFLite) on one photo on fsim (default configuration,
 *     plain build).
 */
#include <math.h>
#include <unistd.h>

#include <vta/model.h>

#include "artifact/artifact.h"
#include "cli/cli.h"
#include "import/import.h"
#include "tflbuild.h"
#include "test.h"

/* BuiltinOperator and BuiltinOptions numbers of schema.fbs */
enum { ADD = 0, AVERAGE_POOL_2D = 1, CONCATENATION = 2, CONV_2D = 3, DEPTHWISE_CONV_2D = 4, DEQUANTIZE = 6,
       FULLY_CONNECTED = 9, LOGISTIC = 14, MAX_POOL_2D = 17, MUL = 18, RELU6 = 21, RESHAPE = 22, SOFTMAX = 25,
       RESIZE_BILINEAR = 23, TANH = 28, PAD = 34, MEAN = 40, RESIZE_NEAREST_NEIGHBOR = 97, QUANTIZE = 114 };
enum { O_CONV = 1, O_DW = 2, O_POOL = 5, O_FC = 8, O_SOFTMAX = 9, O_CONCAT = 10, O_ADD = 11, O_RESHAPE = 17,
       O_MUL = 21, O_REDUCER = 27, O_RESIZE_NEAREST = 74, O_RESIZE_BILINEAR = 15 };
enum { SAME = 0, VALID = 1, A_NONE = 0, A_RELU = 1, A_RELU6 = 3, A_TANH = 4 };

static uint64_t seed = 11;

static float frand(void)
{
	return (float)((double)(test_rand(&seed) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static float *rands(int64_t n, float scale)
{
	float *v = malloc((size_t)n * sizeof *v);
	for (int64_t i = 0; i < n; i++)
		v[i] = frand() * scale;
	return v;
}

/* ---- the NHWC reference ------------------------------------------------ */

typedef struct nhwc {
	int n, h, w, c;
	float *d;
} nhwc;

static float *at(const nhwc *t, int n, int h, int w, int c)
{
	return &t->d[((n * t->h + h) * t->w + w) * t->c + c];
}

static nhwc alloc_nhwc(int n, int h, int w, int c)
{
	nhwc t = {n, h, w, c, calloc((size_t)n * h * w * c, sizeof(float))};
	return t;
}

static float act(float v, int a)
{
	if (a == A_RELU)
		return v > 0 ? v : 0;
	if (a == A_RELU6)
		return v < 0 ? 0 : v > 6 ? 6 : v;
	return v;
}

/* TensorFlow's SAME: out = ceil(in / s), the odd padding row at the end. */
static int pad_before(int in, int k, int s, int padding)
{
	if (padding == VALID)
		return 0;
	int out = (in + s - 1) / s, total = (out - 1) * s + k - in;
	return total > 0 ? total / 2 : 0;
}

static int out_size(int in, int k, int s, int padding)
{
	return padding == SAME ? (in + s - 1) / s : (in - k) / s + 1;
}

/* Convolution, w OHWI (depthwise: 1HWC with C = in channels * mult). */
static nhwc ref_conv(const nhwc *x, const float *w, int O, int K, const float *b, int s, int padding, int a, int dw)
{
	int OH = out_size(x->h, K, s, padding), OW = out_size(x->w, K, s, padding);
	int pt = pad_before(x->h, K, s, padding), pl = pad_before(x->w, K, s, padding);
	nhwc y = alloc_nhwc(x->n, OH, OW, O);
	int mult = O / x->c;
	for (int n = 0; n < x->n; n++)
		for (int oh = 0; oh < OH; oh++)
			for (int ow = 0; ow < OW; ow++)
				for (int o = 0; o < O; o++) {
					double acc = b ? b[o] : 0;
					for (int kh = 0; kh < K; kh++)
						for (int kw = 0; kw < K; kw++) {
							int ih = oh * s - pt + kh, iw = ow * s - pl + kw;
							if (ih < 0 || ih >= x->h || iw < 0 || iw >= x->w)
								continue;
							if (dw)
								acc += *at(x, n, ih, iw, o / mult) * w[(kh * K + kw) * O + o];
							else
								for (int c = 0; c < x->c; c++)
									acc += *at(x, n, ih, iw, c) * w[((o * K + kh) * K + kw) * x->c + c];
						}
					*at(&y, n, oh, ow, o) = act((float)acc, a);
				}
	return y;
}

static nhwc ref_pool(const nhwc *x, int K, int s, int padding, int is_max)
{
	int OH = out_size(x->h, K, s, padding), OW = out_size(x->w, K, s, padding);
	int pt = pad_before(x->h, K, s, padding), pl = pad_before(x->w, K, s, padding);
	nhwc y = alloc_nhwc(x->n, OH, OW, x->c);
	for (int n = 0; n < x->n; n++)
		for (int oh = 0; oh < OH; oh++)
			for (int ow = 0; ow < OW; ow++)
				for (int c = 0; c < x->c; c++) {
					double acc = is_max ? -INFINITY : 0;
					int cnt = 0;
					for (int kh = 0; kh < K; kh++)
						for (int kw = 0; kw < K; kw++) {
							int ih = oh * s - pt + kh, iw = ow * s - pl + kw;
							if (ih < 0 || ih >= x->h || iw < 0 || iw >= x->w)
								continue; /* TFLite: padding is not part of the window */
							float v = *at(x, n, ih, iw, c);
							acc = is_max ? fmax(acc, v) : acc + v;
							cnt++;
						}
					*at(&y, n, oh, ow, c) = (float)(is_max ? acc : acc / cnt);
				}
	return y;
}

static nhwc ref_pad(const nhwc *x, int t, int b, int l, int r)
{
	nhwc y = alloc_nhwc(x->n, x->h + t + b, x->w + l + r, x->c);
	for (int n = 0; n < x->n; n++)
		for (int h = 0; h < x->h; h++)
			for (int w = 0; w < x->w; w++)
				for (int c = 0; c < x->c; c++)
					*at(&y, n, h + t, w + l, c) = *at(x, n, h, w, c);
	return y;
}

/* ---- one conformance case ---------------------------------------------- */

typedef struct tcase {
	const char *name;
	tfl_model md;
	nhwc x;       /* the input (real values) */
	nhwc want;    /* the reference output */
	int pixels;   /* the input is uint8 pixels 0..255 (an int8 model), else real values */
	int out_rank; /* 2: output [N, C] */
} tcase;

#define T(i, nm, ty, rk, ...) (c->md.t[i] = (tfl_tensor){.name = nm, .type = ty, .rank = rk, .shape = {__VA_ARGS__}})
#define CONSTF(i, p, count) (c->md.t[i].data = (p), c->md.t[i].bytes = (size_t)(count) * 4)

static void OPT(tfl_op *o, int kind, int id, double v)
{
	o->opt[o->nopt].id = id;
	o->opt[o->nopt].kind = kind;
	o->opt[o->nopt].i = (int32_t)v;
	o->opt[o->nopt].f = (float)v;
	o->nopt++;
}

static tfl_op *op(tcase *c, int code, int opt_type, int out, int nin, int i0, int i1, int i2)
{
	tfl_op *o = &c->md.op[c->md.nop++];
	*o = (tfl_op){.code = code, .opt_type = opt_type, .nin = nin, .in = {i0, i1, i2}, .out = out};
	return o;
}

static void input(tcase *c, int n, int h, int w, int ch)
{
	T(0, "x", TFL_FLOAT32, 4, n, h, w, ch);
	c->x = alloc_nhwc(n, h, w, ch);
	for (int i = 0; i < n * h * w * ch; i++)
		c->x.d[i] = frand();
	c->md.input = 0;
}

/* Keeps the weight arrays alive for the model bytes. */
static float *keep[256];
static int nkeep;

static float *kept(float *p)
{
	keep[nkeep++] = p;
	return p;
}

static void conv_case(tcase *c, const char *name, int H, int C, int O, int K, int s, int padding, int a, int dw,
		      int bias)
{
	c->name = name;
	input(c, 1, H, H, C);
	float *w = kept(rands((int64_t)(dw ? 1 : O) * K * K * (dw ? O : C), 0.5f)), *b = kept(rands(O, 0.2f));
	if (dw)
		T(1, "w", TFL_FLOAT32, 4, 1, K, K, O);
	else
		T(1, "w", TFL_FLOAT32, 4, O, K, K, C);
	CONSTF(1, w, (dw ? 1 : O) * K * K * (dw ? O : C));
	T(2, "b", TFL_FLOAT32, 1, O);
	CONSTF(2, b, O);
	int OH = out_size(H, K, s, padding);
	T(3, "y", TFL_FLOAT32, 4, 1, OH, OH, O);
	c->md.nt = 4;
	tfl_op *o = op(c, dw ? DEPTHWISE_CONV_2D : CONV_2D, dw ? O_DW : O_CONV, 3, bias ? 3 : 2, 0, 1, 2);
	OPT(o, TFL_OPT_U8, 0, padding);
	OPT(o, TFL_OPT_I32, 1, s);
	OPT(o, TFL_OPT_I32, 2, s);
	if (dw)
		OPT(o, TFL_OPT_I32, 3, O / C);
	OPT(o, TFL_OPT_U8, dw ? 4 : 3, a);
	c->md.output = 3;
	c->want = ref_conv(&c->x, w, O, K, bias ? b : NULL, s, padding, a, dw);
}

static void pool_case(tcase *c, const char *name, int H, int C, int K, int s, int padding, int is_max)
{
	c->name = name;
	input(c, 1, H, H, C);
	int OH = out_size(H, K, s, padding);
	T(1, "y", TFL_FLOAT32, 4, 1, OH, OH, C);
	c->md.nt = 2;
	tfl_op *o = op(c, is_max ? MAX_POOL_2D : AVERAGE_POOL_2D, O_POOL, 1, 1, 0, 0, 0);
	OPT(o, TFL_OPT_U8, 0, padding);
	OPT(o, TFL_OPT_I32, 1, s);
	OPT(o, TFL_OPT_I32, 2, s);
	OPT(o, TFL_OPT_I32, 3, K);
	OPT(o, TFL_OPT_I32, 4, K);
	c->md.output = 1;
	c->want = ref_pool(&c->x, K, s, padding, is_max);
}

static const int32_t axes_hw[2] = {1, 2};
static const int32_t shape_1x16[2] = {1, 16};

/* ---- the operators added for detectors and segmenters ------------------ */

enum { DEPTH_TO_SPACE = 5, TRANSPOSE = 39, SUB = 41, DIV = 42, SQUEEZE = 43, STRIDED_SLICE = 45, SPLIT = 49,
       PRELU = 54, MAXIMUM = 55, MINIMUM = 57, PADV2 = 60, SLICE = 65, EXPAND_DIMS = 70, LEAKY_RELU = 98,
       MIRROR_PAD = 100, SPLIT_V = 102, HARD_SWISH = 117 };
enum { O_SUB = 28, O_DIV = 29, O_STRIDED_SLICE = 32, O_SPLIT = 35, O_LEAKY_RELU = 75, O_MIRROR_PAD = 77,
       O_SPLIT_V = 79, O_DEPTH_TO_SPACE = 94 };

/* An IEEE half of a float it represents exactly (a normal half or 0). */
static uint16_t to_half(float f)
{
	if (f == 0)
		return 0;
	int e;
	double m = frexp(fabs(f), &e); /* |f| = m 2^e, m in [0.5, 1) */
	uint16_t bits = (uint16_t)((e + 14) << 10 | ((int)(m * 2048) & 0x3ff));
	return f < 0 ? (uint16_t)(bits | 0x8000) : bits;
}

/* n values k/256, |k| < 256 * scale: exact in half precision. */
static float *halfable(int64_t n, float scale)
{
	float *v = rands(n, scale);
	for (int64_t i = 0; i < n; i++)
		v[i] = (float)round(v[i] * 256) / 256;
	return v;
}

static uint16_t *halves(const float *v, int64_t n)
{
	uint16_t *h = (uint16_t *)kept(malloc((size_t)n * sizeof *h));
	for (int64_t i = 0; i < n; i++)
		h[i] = to_half(v[i]);
	return h;
}

/* A constant INT32 tensor i of the n values (kept alive). */
static void ints(tcase *c, int i, const char *nm, int rank, int n, const int32_t *v)
{
	int32_t *d = (int32_t *)kept(malloc((size_t)(n ? n : 1) * sizeof *d));
	memcpy(d, v, (size_t)n * sizeof *d);
	c->md.t[i] = (tfl_tensor){.name = nm, .type = TFL_INT32, .rank = rank, .shape = {n}, .data = d, .bytes = (size_t)n * 4};
}

/* A float scalar constant (rank 0). */
static void scalar(tcase *c, int i, const char *nm, float v)
{
	float *d = kept(malloc(sizeof *d));
	*d = v;
	c->md.t[i] = (tfl_tensor){.name = nm, .type = TFL_FLOAT32, .rank = 0, .data = d, .bytes = 4};
}

/* fp16 weights as the TFLite converter writes them: FLOAT16 buffers, each
 * DEQUANTIZE'd to FLOAT32, then CONV_2D (relu) and DEPTHWISE_CONV_2D. */
static void fp16_case(tcase *c)
{
	c->name = "fp16: DEQUANTIZE + CONV_2D, DEPTHWISE";
	input(c, 1, 6, 6, 8);
	float *w = kept(halfable(16 * 9 * 8, 0.5f)), *b = kept(halfable(16, 0.25f)), *dw = kept(halfable(9 * 16, 0.5f));
	T(1, "wh", TFL_FLOAT16, 4, 16, 3, 3, 8);
	c->md.t[1].data = halves(w, 16 * 9 * 8), c->md.t[1].bytes = 16 * 9 * 8 * 2;
	T(2, "bh", TFL_FLOAT16, 1, 16);
	c->md.t[2].data = halves(b, 16), c->md.t[2].bytes = 32;
	T(3, "w", TFL_FLOAT32, 4, 16, 3, 3, 8);
	T(4, "b", TFL_FLOAT32, 1, 16);
	T(5, "c", TFL_FLOAT32, 4, 1, 6, 6, 16);
	T(6, "dwh", TFL_FLOAT16, 4, 1, 3, 3, 16);
	c->md.t[6].data = halves(dw, 9 * 16), c->md.t[6].bytes = 9 * 16 * 2;
	T(7, "dw", TFL_FLOAT32, 4, 1, 3, 3, 16);
	T(8, "y", TFL_FLOAT32, 4, 1, 6, 6, 16);
	c->md.nt = 9;
	op(c, DEQUANTIZE, 0, 3, 1, 1, 0, 0);
	op(c, DEQUANTIZE, 0, 4, 1, 2, 0, 0);
	tfl_op *o = op(c, CONV_2D, O_CONV, 5, 3, 0, 3, 4);
	OPT(o, TFL_OPT_I32, 1, 1);
	OPT(o, TFL_OPT_I32, 2, 1);
	OPT(o, TFL_OPT_U8, 3, A_RELU);
	op(c, DEQUANTIZE, 0, 7, 1, 6, 0, 0);
	o = op(c, DEPTHWISE_CONV_2D, O_DW, 8, 2, 5, 7, 0);
	OPT(o, TFL_OPT_I32, 1, 1);
	OPT(o, TFL_OPT_I32, 2, 1);
	OPT(o, TFL_OPT_I32, 3, 1);
	c->md.output = 8;
	nhwc y = ref_conv(&c->x, w, 16, 3, b, 1, SAME, A_RELU, 0);
	c->want = ref_conv(&y, dw, 16, 3, NULL, 1, SAME, A_NONE, 1);
	free(y.d);
}

/* c = conv(x) of 16 channels on 6x6 (tensors 0..3, output "y"), the start
 * of the cases below: the int8 model then has a VTA kernel. */
static nhwc conv_start(tcase *c, const char *name)
{
	conv_case(c, name, 6, 8, 16, 3, 1, SAME, A_NONE, 0, 1);
	nhwc y = c->want;
	c->want = (nhwc){0};
	return y;
}

/* SPLIT the channels in two, SPLIT_V the rows of the first half [2, -1],
 * CONCATENATION of them swapped, then with the second half. */
static void split_case(tcase *c)
{
	nhwc y = conv_start(c, "SPLIT, SPLIT_V, CONCATENATION");
	ints(c, 4, "axis_c", 0, 1, (const int32_t[]){3});
	T(5, "s0", TFL_FLOAT32, 4, 1, 6, 6, 8);
	T(6, "s1", TFL_FLOAT32, 4, 1, 6, 6, 8);
	ints(c, 7, "sizes", 1, 2, (const int32_t[]){2, -1});
	ints(c, 8, "axis_h", 0, 1, (const int32_t[]){1});
	T(9, "v0", TFL_FLOAT32, 4, 1, 2, 6, 8);
	T(10, "v1", TFL_FLOAT32, 4, 1, 4, 6, 8);
	T(11, "r", TFL_FLOAT32, 4, 1, 6, 6, 8);
	T(12, "out", TFL_FLOAT32, 4, 1, 6, 6, 16);
	c->md.nt = 13;
	tfl_op *o = op(c, SPLIT, O_SPLIT, 5, 2, 4, 3, 0);
	o->nout = 2;
	OPT(o, TFL_OPT_I32, 0, 2);
	o = op(c, SPLIT_V, O_SPLIT_V, 9, 3, 5, 7, 8);
	o->nout = 2;
	OPT(o, TFL_OPT_I32, 0, 2);
	OPT(op(c, CONCATENATION, O_CONCAT, 11, 2, 10, 9, 0), TFL_OPT_I32, 0, 1);
	OPT(op(c, CONCATENATION, O_CONCAT, 12, 2, 6, 11, 0), TFL_OPT_I32, 0, -1);
	c->md.output = 12;
	c->want = alloc_nhwc(1, 6, 6, 16);
	for (int h = 0; h < 6; h++)
		for (int w = 0; w < 6; w++)
			for (int ch = 0; ch < 8; ch++) {
				*at(&c->want, 0, h, w, ch) = *at(&y, 0, h, w, 8 + ch);
				*at(&c->want, 0, h, w, 8 + ch) = *at(&y, 0, (h + 2) % 6, w, ch);
			}
	free(y.d);
}

/* STRIDED_SLICE (masks on N and W), SLICE, TRANSPOSE of H and W, RESHAPE
 * to 3-D (channels and positions: the NHWC order). */
static void slice_case(tcase *c)
{
	nhwc y = conv_start(c, "STRIDED_SLICE, SLICE, TRANSPOSE, RESHAPE");
	ints(c, 4, "b", 1, 4, (const int32_t[]){0, 1, 0, 4});
	ints(c, 5, "e", 1, 4, (const int32_t[]){0, 5, 0, 12});
	ints(c, 6, "s", 1, 4, (const int32_t[]){1, 1, 1, 1});
	T(7, "ss", TFL_FLOAT32, 4, 1, 4, 6, 8);
	ints(c, 8, "sb", 1, 4, (const int32_t[]){0, 0, 1, 0});
	ints(c, 9, "sz", 1, 4, (const int32_t[]){-1, -1, 4, -1});
	T(10, "sl", TFL_FLOAT32, 4, 1, 4, 4, 8);
	ints(c, 11, "perm", 1, 4, (const int32_t[]){0, 2, 1, 3});
	T(12, "tr", TFL_FLOAT32, 4, 1, 4, 4, 8);
	ints(c, 13, "shape", 1, 3, (const int32_t[]){1, 16, 8});
	T(14, "out", TFL_FLOAT32, 3, 1, 16, 8);
	c->md.nt = 15;
	tfl_op *o = op(c, STRIDED_SLICE, O_STRIDED_SLICE, 7, 4, 3, 4, 5);
	o->in[3] = 6;
	OPT(o, TFL_OPT_I32, 0, 5); /* begin_mask: N and W */
	OPT(o, TFL_OPT_I32, 1, 5); /* end_mask */
	op(c, SLICE, 0, 10, 3, 7, 8, 9);
	op(c, TRANSPOSE, 0, 12, 2, 10, 11, 0);
	op(c, RESHAPE, 0, 14, 2, 12, 13, 0);
	c->md.output = 14;
	c->out_rank = 3;
	c->want = alloc_nhwc(1, 1, 1, 128);
	for (int h = 0; h < 4; h++)
		for (int w = 0; w < 4; w++)
			for (int ch = 0; ch < 8; ch++)
				c->want.d[(h * 4 + w) * 8 + ch] = *at(&y, 0, 1 + w, 1 + h, 4 + ch);
	free(y.d);
}

/* out = tanh((y - k) / 4) + hard_swish(y), k per channel. */
static void arith_case(tcase *c)
{
	nhwc y = conv_start(c, "SUB, DIV, TANH, HARD_SWISH");
	float *k = kept(rands(16, 0.5f));
	T(4, "k", TFL_FLOAT32, 1, 16);
	CONSTF(4, k, 16);
	T(5, "s", TFL_FLOAT32, 4, 1, 6, 6, 16);
	scalar(c, 6, "four", 4.0f);
	T(7, "d", TFL_FLOAT32, 4, 1, 6, 6, 16);
	T(8, "t", TFL_FLOAT32, 4, 1, 6, 6, 16);
	T(9, "hs", TFL_FLOAT32, 4, 1, 6, 6, 16);
	T(10, "out", TFL_FLOAT32, 4, 1, 6, 6, 16);
	c->md.nt = 11;
	OPT(op(c, SUB, O_SUB, 5, 2, 3, 4, 0), TFL_OPT_U8, 0, A_NONE);
	OPT(op(c, DIV, O_DIV, 7, 2, 5, 6, 0), TFL_OPT_U8, 0, A_NONE);
	op(c, TANH, 0, 8, 1, 7, 0, 0);
	op(c, HARD_SWISH, 0, 9, 1, 3, 0, 0);
	OPT(op(c, ADD, O_ADD, 10, 2, 8, 9, 0), TFL_OPT_U8, 0, A_NONE);
	c->md.output = 10;
	c->want = alloc_nhwc(1, 6, 6, 16);
	for (int i = 0; i < 6 * 6 * 16; i++) {
		double v = y.d[i], r6 = fmin(fmax(v + 3, 0), 6);
		c->want.d[i] = (float)(tanh((v - k[i % 16]) / 4) + v * r6 / 6);
	}
	free(y.d);
}

/* out = max(leaky_relu(y, 1/8), -0.1) + min(prelu(y, slope[c]), 0.5) */
static void leaky_case(tcase *c)
{
	nhwc y = conv_start(c, "LEAKY_RELU, PRELU, MAXIMUM, MINIMUM");
	float *sl = kept(rands(16, 0.5f));
	T(4, "l", TFL_FLOAT32, 4, 1, 6, 6, 16);
	T(5, "slope", TFL_FLOAT32, 3, 1, 1, 16);
	CONSTF(5, sl, 16);
	T(6, "p", TFL_FLOAT32, 4, 1, 6, 6, 16);
	scalar(c, 7, "lo", -0.1f);
	scalar(c, 8, "hi", 0.5f);
	T(9, "mx", TFL_FLOAT32, 4, 1, 6, 6, 16);
	T(10, "mn", TFL_FLOAT32, 4, 1, 6, 6, 16);
	T(11, "out", TFL_FLOAT32, 4, 1, 6, 6, 16);
	c->md.nt = 12;
	OPT(op(c, LEAKY_RELU, O_LEAKY_RELU, 4, 1, 3, 0, 0), TFL_OPT_F32, 0, 0.125);
	op(c, PRELU, 0, 6, 2, 3, 5, 0);
	op(c, MAXIMUM, 0, 9, 2, 4, 7, 0);
	op(c, MINIMUM, 0, 10, 2, 8, 6, 0);
	OPT(op(c, ADD, O_ADD, 11, 2, 9, 10, 0), TFL_OPT_U8, 0, A_NONE);
	c->md.output = 11;
	c->want = alloc_nhwc(1, 6, 6, 16);
	for (int i = 0; i < 6 * 6 * 16; i++) {
		double v = y.d[i], l = v >= 0 ? v : v / 8, p = v >= 0 ? v : sl[i % 16] * v;
		c->want.d[i] = (float)(fmax(l, -0.1) + fmin(p, 0.5));
	}
	free(y.d);
}

/* PADV2 with 0.5 (1 row on top, 2 columns on the right), DEPTH_TO_SPACE
 * by 2, STRIDED_SLICE of row 3 (shrink_axis_mask). */
static void d2s_case(tcase *c)
{
	nhwc y = conv_start(c, "PADV2, DEPTH_TO_SPACE, STRIDED_SLICE shrink");
	ints(c, 4, "pads", 2, 8, (const int32_t[]){0, 0, 1, 0, 0, 2, 0, 0});
	c->md.t[4].rank = 2, c->md.t[4].shape[0] = 4, c->md.t[4].shape[1] = 2;
	scalar(c, 5, "half", 0.5f);
	T(6, "p", TFL_FLOAT32, 4, 1, 7, 8, 16);
	T(7, "d", TFL_FLOAT32, 4, 1, 14, 16, 4);
	ints(c, 8, "b", 1, 4, (const int32_t[]){0, 3, 0, 0});
	ints(c, 9, "e", 1, 4, (const int32_t[]){1, 4, 16, 4});
	ints(c, 10, "s", 1, 4, (const int32_t[]){1, 1, 1, 1});
	T(11, "out", TFL_FLOAT32, 3, 1, 16, 4);
	c->md.nt = 12;
	op(c, PADV2, 0, 6, 3, 3, 4, 5);
	OPT(op(c, DEPTH_TO_SPACE, O_DEPTH_TO_SPACE, 7, 1, 6, 0, 0), TFL_OPT_I32, 0, 2);
	tfl_op *o = op(c, STRIDED_SLICE, O_STRIDED_SLICE, 11, 4, 7, 8, 9);
	o->in[3] = 10;
	OPT(o, TFL_OPT_I32, 4, 2); /* shrink_axis_mask: H */
	c->md.output = 11;
	c->out_rank = 3;
	c->want = alloc_nhwc(1, 1, 1, 64);
	for (int w = 0; w < 16; w++)
		for (int cc = 0; cc < 4; cc++) {
			/* d[3][w][cc] = p[1][w / 2][(1 * 2 + w % 2) * 4 + cc]; p row 1 is y row 0 */
			int pw = w / 2, pc = (2 + w % 2) * 4 + cc;
			c->want.d[w * 4 + cc] = pw < 6 ? *at(&y, 0, 0, pw, pc) : 0.5f;
		}
	free(y.d);
}

/* The source of entry i of an axis of n mirrored (TensorFlow's MirrorPad). */
static int mirrored(int i, int n, int symmetric)
{
	return i < 0 ? (symmetric ? -i - 1 : -i) : i >= n ? (symmetric ? 2 * n - 1 - i : 2 * n - 2 - i) : i;
}

/* MIRROR_PAD REFLECT (rows 2 + 1, columns 1 + 2), then SYMMETRIC (a row on
 * top, a column on the right). */
static void mirror_case(tcase *c)
{
	nhwc y = conv_start(c, "MIRROR_PAD REFLECT, SYMMETRIC");
	ints(c, 4, "p1", 2, 8, (const int32_t[]){0, 0, 2, 1, 1, 2, 0, 0});
	c->md.t[4].rank = 2, c->md.t[4].shape[0] = 4, c->md.t[4].shape[1] = 2;
	T(5, "r", TFL_FLOAT32, 4, 1, 9, 9, 16);
	ints(c, 6, "p2", 2, 8, (const int32_t[]){0, 0, 1, 0, 0, 1, 0, 0});
	c->md.t[6].rank = 2, c->md.t[6].shape[0] = 4, c->md.t[6].shape[1] = 2;
	T(7, "out", TFL_FLOAT32, 4, 1, 10, 10, 16);
	c->md.nt = 8;
	OPT(op(c, MIRROR_PAD, O_MIRROR_PAD, 5, 2, 3, 4, 0), TFL_OPT_U8, 0, 0);
	OPT(op(c, MIRROR_PAD, O_MIRROR_PAD, 7, 2, 5, 6, 0), TFL_OPT_U8, 0, 1);
	c->md.output = 7;
	c->want = alloc_nhwc(1, 10, 10, 16);
	for (int h = 0; h < 10; h++)
		for (int w = 0; w < 10; w++)
			for (int ch = 0; ch < 16; ch++) {
				int rh = mirrored(h - 1, 9, 1), rw = mirrored(w, 9, 1); /* into r */
				int yh = mirrored(rh - 2, 6, 0), yw = mirrored(rw - 1, 6, 0);
				*at(&c->want, 0, h, w, ch) = *at(&y, 0, yh, yw, ch);
			}
	free(y.d);
}

/* TensorFlow's bilinear source coordinate of output o (in -> out entries):
 * half_pixel_centers (o + 0.5) in / out - 0.5, align_corners o (in - 1) /
 * (out - 1), else o in / out; clamped to the input. */
static double tf_src(int o, int in, int out, int align, int half)
{
	double x = align ? (out > 1 ? o * (double)(in - 1) / (out - 1) : 0.0)
		       : half ? (o + 0.5) * in / out - 0.5 : (double)o * in / out;
	return x < 0 ? 0 : x > in - 1 ? in - 1 : x;
}

/* RESIZE_BILINEAR of y (6x6) to 9x4 with half_pixel_centers, then to 5x7
 * with align_corners. */
static void bilinear_case(tcase *c)
{
	nhwc y = conv_start(c, "RESIZE_BILINEAR half-pixel, align_corners");
	ints(c, 4, "s1", 1, 2, (const int32_t[]){9, 4});
	T(5, "b1", TFL_FLOAT32, 4, 1, 9, 4, 16);
	ints(c, 6, "s2", 1, 2, (const int32_t[]){5, 7});
	T(7, "out", TFL_FLOAT32, 4, 1, 5, 7, 16);
	c->md.nt = 8;
	OPT(op(c, RESIZE_BILINEAR, O_RESIZE_BILINEAR, 5, 2, 3, 4, 0), TFL_OPT_U8, 3, 1);
	OPT(op(c, RESIZE_BILINEAR, O_RESIZE_BILINEAR, 7, 2, 5, 6, 0), TFL_OPT_U8, 2, 1);
	c->md.output = 7;
	nhwc b1 = alloc_nhwc(1, 9, 4, 16);
	for (int pass = 0; pass < 2; pass++) {
		const nhwc *src = pass ? &b1 : &y;
		nhwc *dst = pass ? &c->want : &b1;
		int oh = pass ? 5 : 9, ow = pass ? 7 : 4, ih = pass ? 9 : 6, iw = pass ? 4 : 6;
		if (pass)
			*dst = alloc_nhwc(1, 5, 7, 16);
		for (int h = 0; h < oh; h++)
			for (int w = 0; w < ow; w++) {
				double sh = tf_src(h, ih, oh, pass, !pass), sw = tf_src(w, iw, ow, pass, !pass);
				int h0 = (int)sh, w0 = (int)sw, h1 = h0 + 1 < ih ? h0 + 1 : h0, w1 = w0 + 1 < iw ? w0 + 1 : w0;
				double fh = sh - h0, fw = sw - w0;
				for (int ch = 0; ch < 16; ch++) {
					double top = *at(src, 0, h0, w0, ch) * (1 - fw) + *at(src, 0, h0, w1, ch) * fw;
					double bot = *at(src, 0, h1, w0, ch) * (1 - fw) + *at(src, 0, h1, w1, ch) * fw;
					*at(dst, 0, h, w, ch) = (float)(top * (1 - fh) + bot * fh);
				}
			}
	}
	free(b1.d);
	free(y.d);
}

/* RESIZE_NEAREST_NEIGHBOR of y (6x6) to 4x9 with align_corners: source
 * round(o (in - 1) / (out - 1)), halves away from zero. */
static void nearest_align_case(tcase *c)
{
	nhwc y = conv_start(c, "RESIZE_NEAREST_NEIGHBOR 4x9 align_corners");
	ints(c, 4, "size", 1, 2, (const int32_t[]){4, 9});
	T(5, "out", TFL_FLOAT32, 4, 1, 4, 9, 16);
	c->md.nt = 6;
	OPT(op(c, RESIZE_NEAREST_NEIGHBOR, O_RESIZE_NEAREST, 5, 2, 3, 4, 0), TFL_OPT_U8, 0, 1);
	c->md.output = 5;
	c->want = alloc_nhwc(1, 4, 9, 16);
	for (int h = 0; h < 4; h++)
		for (int w = 0; w < 9; w++)
			for (int ch = 0; ch < 16; ch++)
				*at(&c->want, 0, h, w, ch) = *at(&y, 0, (int)round(h * 5.0 / 3), (int)round(w * 5.0 / 8), ch);
	free(y.d);
}

/* PAD (zeros) before MAX_POOL_2D (a pad node: the zeros are elements), MEAN,
 * SQUEEZE to [1,16], EXPAND_DIMS to [1,1,16]. */
static void squeeze_case(tcase *c)
{
	nhwc y = conv_start(c, "PAD + MAX_POOL_2D, SQUEEZE, EXPAND_DIMS");
	ints(c, 4, "pads", 2, 8, (const int32_t[]){0, 0, 1, 1, 1, 1, 0, 0});
	c->md.t[4].rank = 2, c->md.t[4].shape[0] = 4, c->md.t[4].shape[1] = 2;
	T(5, "p", TFL_FLOAT32, 4, 1, 8, 8, 16);
	T(6, "mp", TFL_FLOAT32, 4, 1, 4, 4, 16);
	ints(c, 7, "axes", 1, 2, axes_hw);
	T(8, "m", TFL_FLOAT32, 4, 1, 1, 1, 16);
	T(9, "sq", TFL_FLOAT32, 2, 1, 16);
	ints(c, 10, "ax", 0, 1, (const int32_t[]){1});
	T(11, "out", TFL_FLOAT32, 3, 1, 1, 16);
	c->md.nt = 12;
	op(c, PAD, 0, 5, 2, 3, 4, 0);
	tfl_op *o = op(c, MAX_POOL_2D, O_POOL, 6, 1, 5, 0, 0);
	OPT(o, TFL_OPT_U8, 0, VALID);
	OPT(o, TFL_OPT_I32, 1, 2);
	OPT(o, TFL_OPT_I32, 2, 2);
	OPT(o, TFL_OPT_I32, 3, 2);
	OPT(o, TFL_OPT_I32, 4, 2);
	OPT(op(c, MEAN, O_REDUCER, 8, 2, 6, 7, 0), TFL_OPT_U8, 0, 1);
	op(c, SQUEEZE, 0, 9, 1, 8, 0, 0);
	op(c, EXPAND_DIMS, 0, 11, 2, 9, 10, 0);
	c->md.output = 11;
	c->out_rank = 3;
	nhwc p = ref_pad(&y, 1, 1, 1, 1), mp = ref_pool(&p, 2, 2, VALID, 1);
	c->want = alloc_nhwc(1, 1, 1, 16);
	for (int ch = 0; ch < 16; ch++) {
		double s = 0;
		for (int i = 0; i < 16; i++)
			s += mp.d[i * 16 + ch];
		c->want.d[ch] = (float)(s / 16);
	}
	free(p.d);
	free(mp.d);
	free(y.d);
}

/* PAD then a VALID convolution (the zeros become the conv's padding) */
static void pad_conv_case(tcase *c)
{
	static const int32_t pads[8] = {0, 0, 1, 1, 2, 0, 0, 0};
	c->name = "PAD + CONV_2D VALID";
	input(c, 1, 7, 7, 16);
	T(1, "pads", TFL_INT32, 2, 4, 2);
	c->md.t[1].data = pads, c->md.t[1].bytes = 32;
	T(2, "p", TFL_FLOAT32, 4, 1, 9, 9, 16);
	float *pw = kept(rands(16 * 9 * 16, 0.5f));
	T(3, "w", TFL_FLOAT32, 4, 16, 3, 3, 16);
	CONSTF(3, pw, 16 * 9 * 16);
	T(4, "y", TFL_FLOAT32, 4, 1, 7, 7, 16);
	c->md.nt = 5;
	op(c, PAD, 0, 2, 2, 0, 1, 0);
	tfl_op *o = op(c, CONV_2D, O_CONV, 4, 2, 2, 3, 0);
	OPT(o, TFL_OPT_U8, 0, VALID);
	OPT(o, TFL_OPT_I32, 1, 1);
	OPT(o, TFL_OPT_I32, 2, 1);
	c->md.output = 4;
	nhwc padded = ref_pad(&c->x, 1, 1, 2, 0);
	c->want = ref_conv(&padded, pw, 16, 3, NULL, 1, VALID, A_NONE, 0);
	free(padded.d);
}

/* an int8 model: uint8 input (pixels), QUANTIZE to int8, a conv with
 * int8 weights (per-channel scales) and int32 bias, DEQUANTIZE */
static void int8_case(tcase *c)
{
	c->name = "QUANTIZE + int8 CONV_2D + DEQUANTIZE";
	static float in_scale[1] = {1.0f / 128}, w_scale[16], b_scale[16], q_scale[1] = {1.0f / 128}, o_scale[1] = {0.05f};
	static int64_t in_zero[1] = {128}, zeros16[16], q_zero[1] = {0}, o_zero[1] = {-3};
	static int8_t wq[16 * 9 * 8];
	static int32_t bq[16];
	T(0, "pixels", TFL_UINT8, 4, 1, 6, 6, 8);
	c->md.t[0].nq = 1, c->md.t[0].scale = in_scale, c->md.t[0].zero = in_zero;
	c->x = alloc_nhwc(1, 6, 6, 8);
	for (int i = 0; i < 6 * 6 * 8; i++)
		c->x.d[i] = (float)(test_rand(&seed) % 256); /* pixels */
	c->pixels = 1;
	T(1, "q", TFL_INT8, 4, 1, 6, 6, 8);
	c->md.t[1].nq = 1, c->md.t[1].scale = q_scale, c->md.t[1].zero = q_zero;
	float wreal[16 * 9 * 8], breal[16];
	for (int oc = 0; oc < 16; oc++) {
		w_scale[oc] = 0.004f * (float)(1 + oc % 5);
		b_scale[oc] = in_scale[0] * w_scale[oc];
		bq[oc] = (int32_t)(test_rand(&seed) % 2001) - 1000;
		breal[oc] = b_scale[oc] * (float)bq[oc];
		for (int i = 0; i < 72; i++) {
			wq[oc * 72 + i] = (int8_t)((int)(test_rand(&seed) % 255) - 127);
			wreal[oc * 72 + i] = w_scale[oc] * wq[oc * 72 + i];
		}
	}
	T(2, "wq", TFL_INT8, 4, 16, 3, 3, 8);
	c->md.t[2].data = wq, c->md.t[2].bytes = sizeof wq;
	c->md.t[2].nq = 16, c->md.t[2].scale = w_scale, c->md.t[2].zero = zeros16, c->md.t[2].qdim = 0;
	T(3, "bq", TFL_INT32, 1, 16);
	c->md.t[3].data = bq, c->md.t[3].bytes = sizeof bq;
	c->md.t[3].nq = 16, c->md.t[3].scale = b_scale, c->md.t[3].zero = zeros16;
	T(4, "yq", TFL_INT8, 4, 1, 6, 6, 16);
	c->md.t[4].nq = 1, c->md.t[4].scale = o_scale, c->md.t[4].zero = o_zero;
	T(5, "y", TFL_FLOAT32, 4, 1, 6, 6, 16);
	c->md.nt = 6;
	c->md.input = 0;
	op(c, QUANTIZE, 0, 1, 1, 0, 0, 0);
	tfl_op *o = op(c, CONV_2D, O_CONV, 4, 3, 1, 2, 3);
	OPT(o, TFL_OPT_I32, 1, 1);
	OPT(o, TFL_OPT_I32, 2, 1);
	OPT(o, TFL_OPT_U8, 3, A_RELU);
	op(c, DEQUANTIZE, 0, 5, 1, 4, 0, 0);
	c->md.output = 5;
	nhwc real = alloc_nhwc(1, 6, 6, 8);
	for (int i = 0; i < 6 * 6 * 8; i++)
		real.d[i] = (c->x.d[i] - 128) / 128; /* uint8: real = scale * (q - zero_point) */
	c->want = ref_conv(&real, wreal, 16, 3, breal, 1, SAME, A_RELU, 0);
	free(real.d);
}

static int build_cases(tcase *cs)
{
	int k = 0;
	tcase *c;
	conv_case(&cs[k++], "CONV_2D 3x3 SAME relu", 8, 16, 16, 3, 1, SAME, A_RELU, 0, 1);
	conv_case(&cs[k++], "CONV_2D 3x3 VALID s2 relu6", 9, 8, 24, 3, 2, VALID, A_RELU6, 0, 1);
	conv_case(&cs[k++], "CONV_2D 1x1 SAME s2 no bias", 8, 16, 20, 1, 2, SAME, A_NONE, 0, 0);
	conv_case(&cs[k++], "DEPTHWISE_CONV_2D SAME relu6", 8, 16, 16, 3, 1, SAME, A_RELU6, 1, 1);
	conv_case(&cs[k++], "DEPTHWISE_CONV_2D x2 VALID s2", 9, 8, 16, 3, 2, VALID, A_NONE, 1, 1);
	pool_case(&cs[k++], "AVERAGE_POOL_2D 3x3 SAME s2", 9, 16, 3, 2, SAME, 0);
	pool_case(&cs[k++], "MAX_POOL_2D 2x2 VALID s2", 8, 16, 2, 2, VALID, 1);

	/* ADD: y = relu(x + conv(x)) */
	c = &cs[k++];
	conv_case(c, "ADD relu (residual)", 6, 16, 16, 3, 1, SAME, A_NONE, 0, 1);
	T(4, "sum", TFL_FLOAT32, 4, 1, 6, 6, 16);
	c->md.nt = 5;
	OPT(op(c, ADD, O_ADD, 4, 2, 0, 3, 0), TFL_OPT_U8, 0, A_RELU);
	c->md.output = 4;
	for (int i = 0; i < 6 * 6 * 16; i++)
		c->want.d[i] = act(c->want.d[i] + c->x.d[i], A_RELU);

	/* SiLU and a concatenation with the input along the channels:
	 * y = conv(x), out = concat(x, y * logistic(y)) */
	c = &cs[k++];
	conv_case(c, "LOGISTIC, MUL (SiLU), CONCATENATION", 6, 16, 16, 3, 1, SAME, A_NONE, 0, 1);
	T(4, "s", TFL_FLOAT32, 4, 1, 6, 6, 16);
	T(5, "z", TFL_FLOAT32, 4, 1, 6, 6, 16);
	T(6, "out", TFL_FLOAT32, 4, 1, 6, 6, 32);
	c->md.nt = 7;
	op(c, LOGISTIC, 0, 4, 1, 3, 0, 0);
	OPT(op(c, MUL, O_MUL, 5, 2, 3, 4, 0), TFL_OPT_U8, 0, A_NONE);
	OPT(op(c, CONCATENATION, O_CONCAT, 6, 2, 0, 5, 0), TFL_OPT_I32, 0, 3);
	c->md.output = 6;
	nhwc cat = alloc_nhwc(1, 6, 6, 32);
	for (int h = 0; h < 6; h++)
		for (int w = 0; w < 6; w++)
			for (int ch = 0; ch < 16; ch++) {
				float v = *at(&c->want, 0, h, w, ch);
				*at(&cat, 0, h, w, ch) = *at(&c->x, 0, h, w, ch);
				*at(&cat, 0, h, w, 16 + ch) = (float)(v / (1.0 + exp(-(double)v)));
			}
	free(c->want.d);
	c->want = cat;

	/* a standalone RELU6, then RESIZE_NEAREST_NEIGHBOR to twice the rows
	 * and columns (half_pixel_centers): output (h, w) is (h / 2, w / 2) */
	static const int32_t size_8x8[2] = {8, 8};
	c = &cs[k++];
	c->name = "RELU6, RESIZE_NEAREST_NEIGHBOR x2";
	input(c, 1, 4, 4, 16);
	for (int i = 0; i < 4 * 4 * 16; i++)
		c->x.d[i] *= 8; /* reach past 6 */
	T(1, "r", TFL_FLOAT32, 4, 1, 4, 4, 16);
	T(2, "size", TFL_INT32, 1, 2);
	c->md.t[2].data = size_8x8, c->md.t[2].bytes = 8;
	T(3, "y", TFL_FLOAT32, 4, 1, 8, 8, 16);
	c->md.nt = 4;
	op(c, RELU6, 0, 1, 1, 0, 0, 0);
	OPT(op(c, RESIZE_NEAREST_NEIGHBOR, O_RESIZE_NEAREST, 3, 2, 1, 2, 0), TFL_OPT_U8, 1, 1);
	c->md.output = 3;
	c->want = alloc_nhwc(1, 8, 8, 16);
	for (int h = 0; h < 8; h++)
		for (int w = 0; w < 8; w++)
			for (int ch = 0; ch < 16; ch++)
				*at(&c->want, 0, h, w, ch) = act(*at(&c->x, 0, h / 2, w / 2, ch), A_RELU6);

	/* MEAN over H, W (keep_dims), then FULLY_CONNECTED from the 4-D [1,1,1,16] */
	c = &cs[k++];
	c->name = "MEAN keep_dims + FULLY_CONNECTED relu";
	input(c, 1, 4, 4, 16);
	T(1, "axes", TFL_INT32, 1, 2);
	c->md.t[1].data = axes_hw, c->md.t[1].bytes = 8;
	T(2, "m", TFL_FLOAT32, 4, 1, 1, 1, 16);
	float *fw = kept(rands(10 * 16, 0.5f)), *fb = kept(rands(10, 0.2f));
	T(3, "fw", TFL_FLOAT32, 2, 10, 16);
	CONSTF(3, fw, 160);
	T(4, "fb", TFL_FLOAT32, 1, 10);
	CONSTF(4, fb, 10);
	T(5, "y", TFL_FLOAT32, 2, 1, 10);
	c->md.nt = 6;
	OPT(op(c, MEAN, O_REDUCER, 2, 2, 0, 1, 0), TFL_OPT_U8, 0, 1);
	OPT(op(c, FULLY_CONNECTED, O_FC, 5, 3, 2, 3, 4), TFL_OPT_U8, 0, A_RELU);
	c->md.output = 5;
	c->out_rank = 2;
	c->want = alloc_nhwc(1, 1, 1, 10);
	for (int o = 0; o < 10; o++) {
		double acc = fb[o];
		for (int ch = 0; ch < 16; ch++) {
			double mean = 0;
			for (int i = 0; i < 16; i++)
				mean += c->x.d[i * 16 + ch];
			acc += mean / 16 * fw[o * 16 + ch];
		}
		c->want.d[o] = act((float)acc, A_RELU);
	}

	/* MEAN without keep_dims -> RESHAPE -> SOFTMAX */
	c = &cs[k++];
	c->name = "MEAN + RESHAPE + SOFTMAX";
	input(c, 1, 3, 3, 16);
	T(1, "axes", TFL_INT32, 1, 2);
	c->md.t[1].data = axes_hw, c->md.t[1].bytes = 8;
	T(2, "m", TFL_FLOAT32, 2, 1, 16);
	T(3, "shape", TFL_INT32, 1, 2);
	c->md.t[3].data = shape_1x16, c->md.t[3].bytes = 8;
	T(4, "r", TFL_FLOAT32, 2, 1, 16);
	T(5, "y", TFL_FLOAT32, 2, 1, 16);
	c->md.nt = 6;
	OPT(op(c, MEAN, O_REDUCER, 2, 2, 0, 1, 0), TFL_OPT_U8, 0, 0);
	op(c, RESHAPE, 0, 4, 2, 2, 3, 0);
	OPT(op(c, SOFTMAX, O_SOFTMAX, 5, 1, 4, 0, 0), TFL_OPT_F32, 0, 1.0);
	c->md.output = 5;
	c->out_rank = 2;
	c->want = alloc_nhwc(1, 1, 1, 16);
	double m[16], mx = -INFINITY, sum = 0;
	for (int ch = 0; ch < 16; ch++) {
		m[ch] = 0;
		for (int i = 0; i < 9; i++)
			m[ch] += c->x.d[i * 16 + ch] / 9.0;
		mx = fmax(mx, m[ch]);
	}
	for (int ch = 0; ch < 16; ch++)
		sum += exp(m[ch] - mx);
	for (int ch = 0; ch < 16; ch++)
		c->want.d[ch] = (float)(exp(m[ch] - mx) / sum);

	pad_conv_case(&cs[k++]);

	int8_case(&cs[k++]);
	fp16_case(&cs[k++]);
	split_case(&cs[k++]);
	slice_case(&cs[k++]);
	arith_case(&cs[k++]);
	leaky_case(&cs[k++]);
	d2s_case(&cs[k++]);
	squeeze_case(&cs[k++]);
	mirror_case(&cs[k++]);
	bilinear_case(&cs[k++]);
	nearest_align_case(&cs[k++]);
	return k;
}

/* The NCHW input of our graph from the NHWC case input (pixels for int inputs). */
static void to_nchw(const nhwc *x, float *out)
{
	for (int h = 0; h < x->h; h++)
		for (int w = 0; w < x->w; w++)
			for (int c = 0; c < x->c; c++)
				out[(c * x->h + h) * x->w + w] = *at(x, 0, h, w, c);
}

/* Largest |ours - want| (ours NCHW or [N,C]) and the largest |want|. */
static void compare(const tcase *c, const float *ours, double *err, double *range)
{
	*err = 0, *range = 0;
	const nhwc *y = &c->want;
	for (int h = 0; h < y->h; h++)
		for (int w = 0; w < y->w; w++)
			for (int ch = 0; ch < y->c; ch++) {
				float want = *at(y, 0, h, w, ch);
				float got = ours[(ch * y->h + h) * y->w + w];
				*err = fmax(*err, fabs(got - want));
				*range = fmax(*range, fabs(want));
			}
}

static void conformance(void)
{
	static tcase cs[32];
	memset(cs, 0, sizeof cs);
	nkeep = 0;
	int n = build_cases(cs), ok = 0;
	printf("  %-40s %12s %14s  %s\n", "TFLite operator(s)", "float error", "int8 err/range", "int8 ran on");
	for (int i = 0; i < n; i++) {
		tcase *c = &cs[i];
		size_t len;
		uint8_t *bytes = tfl_build(&c->md, &len);
		vc_module *f = vc_module_new(), *q = vc_module_new();
		double ferr = -1, qerr = -1, range = 0;
		int kernels = -1, good = 0;
		char err[1024] = "";
		if (!bytes || vc_import_tflite_bytes(f, bytes, len) || vc_import_tflite_bytes(q, bytes, len)) {
			printf("  %-40s import failed: %s\n", c->name, f->diag.msg);
			goto next;
		}
		vc_compile_opts fo = {.pipeline = "float"};
		vc_tensor in, out;
		if (vc_compile(f, &fo, err, sizeof err) || vc_tensor_alloc(&in, &f->g->inputs[0]->type))
			goto next;
		to_nchw(&c->x, in.data);
		if (!vc_interp(f, &in, &out, NULL, NULL, NULL)) {
			compare(c, out.data, &ferr, &range);
			vc_tensor_free(&out);
		}
		/* int8: calibrated on 16 other inputs of the same kind */
		for (int s = 0; s < 16; s++) {
			nhwc cal = alloc_nhwc(1, c->x.h, c->x.w, c->x.c);
			for (int k = 0; k < c->x.h * c->x.w * c->x.c; k++)
				cal.d[k] = c->pixels ? (float)(test_rand(&seed) % 256) : frand();
			vc_samples *cs_ = &q->calib;
			int64_t e = vc_type_elems(&in.t);
			float *d = vc_alloc(q, (size_t)((cs_->count + 1) * e) * sizeof *d);
			if (cs_->count)
				memcpy(d, cs_->data, (size_t)(cs_->count * e) * sizeof *d);
			to_nchw(&cal, d + cs_->count * e);
			cs_->data = d, cs_->elems = e, cs_->count++;
			free(cal.d);
		}
		/* int8: the .vtam opened and run by libvta's model API on fsim */
		vc_compile_opts qo = {0};
		uint8_t *art = NULL;
		size_t alen;
		vta_model_t *vm = NULL;
		vta_error_t e = {0};
		if (vc_compile(q, &qo, err, sizeof err) || vc_artifact_bytes(q, &art, &alen) ||
		    vta_model_open_bytes(art, alen, c->name, "fsim", &vm, &e)) {
			printf("  %-40s int8: %s%s%s\n", c->name, err, q->diag.msg, e.msg);
		} else {
			int64_t ne = (int64_t)c->want.n * c->want.h * c->want.w * c->want.c;
			float *got = calloc((size_t)ne, sizeof *got);
			vta_tensor_t ti = {VTA_DTYPE_F32, 0, in.data, (size_t)vc_type_elems(&in.t) * sizeof(float)};
			vta_tensor_t to = {VTA_DTYPE_F32, 0, got, (size_t)ne * sizeof *got};
			double rq;
			if (!vta_model_run(vm, &ti, &to, &e))
				compare(c, got, &qerr, &rq);
			else
				printf("  %-40s libvta: %s\n", c->name, e.msg);
			free(got);
			kernels = q->n_kernels;
		}
		vta_model_close(vm);
		free(art);
		vc_tensor_free(&in);
		/* the float model matches to float rounding; int8 within a few
		 * steps of 2^e <= range/63.5 */
		good = ferr >= 0 && ferr <= 1e-4 * (1 + range) && qerr >= 0 && qerr <= 0.06 * range;
		printf("  %-40s %12.2g %13.2f%%  %s%s\n", c->name, ferr, 100 * qerr / (range > 0 ? range : 1),
		       kernels > 0 ? "vta" : "host", good ? "" : "   <-- FAIL");
	next:
		ok += good;
		free(bytes);
		vc_module_free(f);
		vc_module_free(q);
		free(c->x.d);
		free(c->want.d);
	}
	for (int i = 0; i < nkeep; i++)
		free(keep[i]);
	printf("%d of %d TFLite conformance models match the NHWC reference\n", ok, n);
	CHECK_EQ(ok, n);
}

static void write_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(b, 1, n, f);
		fclose(f);
	}
}

/* The error importing bytes (written to a file) gives. */
static const char *import_error(const uint8_t *b, size_t n, char *msg, size_t cap)
{
	char path[] = "/tmp/vc_tflite_XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	write_file(path, b, n);
	vc_module *m = vc_module_new();
	int rc = vc_import_file(m, path);
	snprintf(msg, cap, "%s", rc ? m->diag.msg : "");
	vc_module_free(m);
	unlink(path);
	return rc ? msg : NULL;
}

static void bad_input(void)
{
	char msg[1024], path[1024];
	snprintf(path, sizeof path, "%s/../shared/models/resnet8-cifar10-int8.tflite", test_root());
	uint8_t *b;
	size_t n;
	vta_error_t e;
	CHECK_EQ(vta_read_file(path, &b, &n, &e), 0);
	/* truncated: every cut is refused, naming the file */
	size_t cuts[] = {0, 4, 8, 64, 1000, n / 2, n - 100, n - 1};
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		CHECK(import_error(b, cuts[i], msg, sizeof msg) != NULL);
		CHECK_STR_CONTAINS(msg, "/tmp/vc_tflite_");
	}
	/* corrupted: flipped bytes never crash; errors say what was wrong */
	uint64_t st = 5;
	int refused = 0;
	for (int t = 0; t < 300; t++) {
		uint8_t *c = malloc(n);
		memcpy(c, b, n);
		for (int k = 0; k < 4; k++) /* in the tables and offsets (the front), or anywhere */
			c[test_rand(&st) % (k < 2 ? 4096 : n)] ^= (uint8_t)(1 + test_rand(&st) % 255);
		vc_module *m = vc_module_new();
		if (vc_import_tflite_bytes(m, c, n)) {
			refused++;
			CHECK(strlen(m->diag.msg) > 10);
		}
		vc_module_free(m);
		free(c);
	}
	printf("corrupted files: %d of 300 refused, the rest imported without harm\n", refused);
	CHECK(refused > 0);
	free(b);
	/* found by fuzz_tflite: a constant's buffer table whose offset field lies
	 * outside the table was refused with an empty message */
	snprintf(path, sizeof path, "%s/tests/fuzz/regress/tflite/buffer-field-outside-table", test_root());
	CHECK_EQ(vta_read_file(path, &b, &n, &e), 0);
	vc_module *fm = vc_module_new();
	CHECK(vc_import_tflite_bytes(fm, b, n) != 0);
	CHECK_STR_CONTAINS(fm->diag.msg, "operator 2 (PAD): a constant buffer: field 2 of the table at offset 1796 lies "
					 "outside the table");
	vc_module_free(fm);
	free(b);

	/* a constant whose data disagrees with its shape */
	tcase c = {0};
	nkeep = 0;
	conv_case(&c, "short weights", 6, 8, 8, 3, 1, SAME, A_NONE, 0, 1);
	c.md.t[1].bytes -= 4;
	uint8_t *bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, "operator 0 (CONV_2D)");
	CHECK_STR_CONTAINS(msg, "tensor 1 'w' holds 2300 bytes");
	free(bytes);
	c.md.t[1].bytes += 4;
	/* the declared output shape disagrees with the operator */
	c.md.t[3].shape[3] = 9;
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, "output tensor 3 'y' is declared [1,6,6,9]");
	free(bytes);
	c.md.t[3].shape[3] = 8;
	/* an unsupported fused activation, then an unsupported operator */
	c.md.op[0].opt[3].i = A_TANH;
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, "operator 0 (CONV_2D): fused activation TANH is not supported");
	free(bytes);
	c.md.op[0].opt[3].i = 9; /* not an activation of the schema */
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, "operator 0 (CONV_2D): fused activation 9 is not a TFLite activation");
	free(bytes);
	c.md.op[0].opt[3].i = A_NONE;
	c.md.op[0].opt[0].i = 2; /* padding neither SAME nor VALID */
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, "operator 0 (CONV_2D): padding 2 is neither SAME nor VALID");
	free(bytes);
	c.md.op[0].opt[0].i = SAME;
	c.md.op[0].opt_type = O_POOL; /* options of another operator, named */
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, "operator 0 (CONV_2D): carries Pool2DOptions where Conv2DOptions was expected");
	free(bytes);
	c.md.op[0].opt_type = O_CONV;
	c.md.op[0].code = 67; /* TRANSPOSE_CONV is not taken */
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, ": 1 op type is not supported: TRANSPOSE_CONV (1 operator: y)");
	free(bytes);
	c.md.op[0].code = 150; /* past BATCH_MATMUL (126): the extended builtin_code field */
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, ": 1 op type is not supported: GELU (1 operator: y)");
	free(bytes);
	c.md.op[0].code = 1000; /* beyond every schema */
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, ": 1 op type is not supported: unknown builtin code 1000 (1 operator: y)");
	free(bytes);
	/* sparse weights */
	c.md.op[0].code = CONV_2D;
	c.md.t[1].sparse = 1;
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, ": sparse tensors are not supported (1 tensor: 'w')");
	free(bytes);
	c.md.t[1].sparse = 0;
	/* an unsupported tensor type */
	c.md.op[0].code = CONV_2D;
	c.md.t[0].type = TFL_FLOAT16;
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, "graph input 0 'x' has type FLOAT16");
	free(bytes);
	c.md.t[0].type = TFL_FLOAT32;
	c.md.t[1].type = TFL_FLOAT16; /* weights of a type we do not take */
	c.md.t[1].bytes /= 2;
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, "operator 0 (CONV_2D): constant tensor 1 'w' has type FLOAT16");
	free(bytes);
	/* int8 weights with a custom quantization (its numbers mean nothing to us) */
	static const float one_scale[1] = {0.01f};
	static const int64_t zero_point[1] = {0};
	c.md.t[1].type = TFL_INT8;
	c.md.t[1].bytes /= 2;
	c.md.t[1].nq = 1, c.md.t[1].scale = one_scale, c.md.t[1].zero = zero_point, c.md.t[1].qdetails = 1;
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, "operator 0 (CONV_2D): tensor 1 'w' has quantization details (CustomQuantization)");
	free(bytes);
	c.md.t[1].qdetails = 0;
	c.md.t[0].type = TFL_INT8; /* and a graph input with one */
	c.md.t[0].nq = 1, c.md.t[0].scale = one_scale, c.md.t[0].zero = zero_point, c.md.t[0].qdetails = 1;
	bytes = tfl_build(&c.md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, "graph input 0 'x' has quantization details (CustomQuantization)");
	free(bytes);
	free(c.x.d);
	free(c.want.d);
	for (int i = 0; i < nkeep; i++)
		free(keep[i]);
}

enum { CUSTOM = 32, UNIDIRECTIONAL_SEQUENCE_LSTM = 44, EXP = 47, UNPACK = 88 };

/* Every operator type the importer does not take is named in one message,
 * with its count and first operators (by their output tensors), before any
 * structural check: the UNPACK has two outputs, the LSTM's output has a
 * dimension 0 and refers to a tensor that does not exist, the convolution
 * takes that output as input and a non-constant as weights. */
static void unsupported_all(void)
{
	tcase cc = {0}, *c = &cc;
	T(0, "x", TFL_FLOAT32, 4, 1, 4, 4, 2);
	T(1, "s0", TFL_FLOAT32, 4, 1, 4, 4, 1);
	T(2, "s1", TFL_FLOAT32, 4, 1, 4, 4, 1);
	T(3, "t1", TFL_FLOAT32, 4, 1, 4, 4, 1);
	T(4, "t2", TFL_FLOAT32, 4, 1, 4, 4, 1);
	T(5, "det", TFL_FLOAT32, 2, 1, 4);
	T(6, "lstm", TFL_FLOAT32, 3, 1, 0, 8);
	T(7, "y", TFL_FLOAT32, 4, 1, 4, 4, 2);
	c->md.nt = 8;
	op(c, UNPACK, 0, 1, 1, 0, 0, 0)->nout = 2;
	op(c, EXP, 0, 3, 1, 1, 0, 0);
	op(c, EXP, 0, 4, 1, 2, 0, 0);
	op(c, CUSTOM, 0, 5, 1, 3, 0, 0)->custom = "TFLite_Detection_PostProcess";
	op(c, UNIDIRECTIONAL_SEQUENCE_LSTM, 0, 6, 2, 5, 9, 0);
	op(c, CONV_2D, O_CONV, 7, 2, 6, 4, 0);
	c->md.input = 0;
	c->md.output = 7;
	const char *want = "4 op types are not supported: UNPACK (1 operator: s0), EXP (2 operators: t1, t2), CUSTOM op "
			   "'TFLite_Detection_PostProcess' (1 operator: det), UNIDIRECTIONAL_SEQUENCE_LSTM (1 operator: lstm); "
			   "CUSTOM ops are not supported; recurrent ops are not supported";
	size_t n;
	uint8_t *bytes = tfl_build(&c->md, &n);
	char msg[1024];
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	/* the file's name, then the list and nothing else */
	size_t ml = strlen(msg), wl = strlen(want);
	CHECK(!strncmp(msg, "/tmp/vc_tflite_", 15) && ml > wl + 2 && !strncmp(msg + ml - wl - 2, ": ", 2));
	CHECK(ml > wl && !strcmp(msg + ml - wl, want));
	if (ml <= wl || strcmp(msg + ml - wl, want))
		fprintf(stderr, "got:  %s\nwant: ...%s\n", msg, want);
	free(bytes);
	/* a CUSTOM op alone */
	c->md.op[0] = c->md.op[3];
	c->md.op[0].out = 7;
	c->md.op[0].in[0] = 0;
	c->md.nop = 1;
	bytes = tfl_build(&c->md, &n);
	CHECK(import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, ": 1 op type is not supported: CUSTOM op 'TFLite_Detection_PostProcess' (1 operator: y); "
				"CUSTOM ops are not supported");
	free(bytes);
}

/* The new operators' bad input: one clear message naming the operator. */
static void refused(tcase *c, const char *want)
{
	size_t n;
	char msg[1024];
	uint8_t *bytes = tfl_build(&c->md, &n);
	CHECK(bytes && import_error(bytes, n, msg, sizeof msg) != NULL);
	CHECK_STR_CONTAINS(msg, want);
	free(bytes);
}

static void bad_new_ops(void)
{
	tcase cc = {0}, *c = &cc;
	nkeep = 0;
	nhwc y = conv_start(c, "bad");
	/* SPLIT: 3 parts of 16 channels; 2 parts for 3 outputs */
	ints(c, 4, "axis", 0, 1, (const int32_t[]){-1});
	for (int k = 0; k < 3; k++)
		T(5 + k, "s", TFL_FLOAT32, 4, 1, 6, 6, 5);
	c->md.nt = 8;
	tfl_op *o = op(c, SPLIT, O_SPLIT, 5, 2, 4, 3, 0);
	o->nout = 3;
	OPT(o, TFL_OPT_I32, 0, 3);
	c->md.output = 5;
	refused(c, "operator 1 (SPLIT): num_splits 3 does not divide axis 3 of 16 entries");
	o->opt[0].i = 2;
	refused(c, "operator 1 (SPLIT): num_splits 2 does not match its 3 outputs");
	/* SPLIT_V: sizes that do not add up */
	ints(c, 8, "sizes", 1, 3, (const int32_t[]){4, 4, 4});
	*o = (tfl_op){.code = SPLIT_V, .opt_type = O_SPLIT_V, .nin = 3, .in = {3, 8, 4}, .out = 5, .nout = 3};
	OPT(o, TFL_OPT_I32, 0, 3);
	c->md.nt = 9;
	refused(c, "operator 1 (SPLIT_V): the sizes of the parts do not add up to axis 3 of 16 entries");
	/* STRIDED_SLICE: a stride of 2, then an ellipsis */
	ints(c, 4, "b", 1, 4, (const int32_t[]){0, 0, 0, 0});
	ints(c, 5, "e", 1, 4, (const int32_t[]){1, 6, 6, 16});
	ints(c, 6, "st", 1, 4, (const int32_t[]){1, 1, 1, 2});
	T(7, "ss", TFL_FLOAT32, 4, 1, 6, 6, 8);
	c->md.nt = 8;
	*o = (tfl_op){.code = STRIDED_SLICE, .opt_type = O_STRIDED_SLICE, .nin = 4, .in = {3, 4, 5, 6}, .out = 7};
	OPT(o, TFL_OPT_I32, 3, 0);
	c->md.output = 7;
	refused(c, "operator 1 (STRIDED_SLICE): stride 2 on axis 3 is not supported (only 1)");
	OPT(o, TFL_OPT_I32, 2, 1);
	refused(c, "operator 1 (STRIDED_SLICE): ellipsis_mask 1 is not supported");
	/* a FLOAT16 constant used without DEQUANTIZE */
	static const uint16_t h16[16];
	T(4, "k", TFL_FLOAT16, 1, 16);
	c->md.t[4].data = h16, c->md.t[4].bytes = sizeof h16;
	T(5, "out", TFL_FLOAT32, 4, 1, 6, 6, 16);
	c->md.nt = 6;
	*o = (tfl_op){.code = ADD, .opt_type = O_ADD, .nin = 2, .in = {3, 4}, .out = 5};
	c->md.output = 5;
	refused(c, "operator 1 (ADD): tensor 4 'k' has type FLOAT16, which is taken only as a constant feeding "
		   "DEQUANTIZE");
	/* DIV by a computed value, MAXIMUM of two */
	*o = (tfl_op){.code = DIV, .opt_type = O_DIV, .nin = 2, .in = {3, 3}, .out = 5};
	refused(c, "operator 1 (DIV): the divisor (tensor 3 'y') must be a constant without zeros");
	*o = (tfl_op){.code = MAXIMUM, .nin = 2, .in = {3, 3}, .out = 5};
	refused(c, "operator 1 (MAXIMUM): MAXIMUM is supported of a computed value and a constant scalar (a clip) only");
	/* TRANSPOSE by a repeated axis; DEPTH_TO_SPACE by 3 of 16 channels */
	ints(c, 4, "perm", 1, 4, (const int32_t[]){0, 1, 1, 3});
	*o = (tfl_op){.code = TRANSPOSE, .nin = 2, .in = {3, 4}, .out = 5};
	refused(c, "operator 1 (TRANSPOSE): the permutation is not one of the 4 axes of its input");
	*o = (tfl_op){.code = DEPTH_TO_SPACE, .opt_type = O_DEPTH_TO_SPACE, .nin = 1, .in = {3}, .out = 5};
	OPT(o, TFL_OPT_I32, 0, 3);
	refused(c, "operator 1 (DEPTH_TO_SPACE): block_size 3 does not divide the channels of a 4-D input into its "
		   "square");
	/* MIRROR_PAD REFLECT of the whole axis */
	ints(c, 4, "pads", 2, 8, (const int32_t[]){0, 0, 6, 0, 0, 0, 0, 0});
	c->md.t[4].rank = 2, c->md.t[4].shape[0] = 4, c->md.t[4].shape[1] = 2;
	*o = (tfl_op){.code = MIRROR_PAD, .opt_type = O_MIRROR_PAD, .nin = 2, .in = {3, 4}, .out = 5};
	refused(c, "operator 1 (MIRROR_PAD): pads 6 entries of an axis of 6 (at most 7, and less than the axis)");
	free(y.d);
	free(c->x.d);
	for (int i = 0; i < nkeep; i++)
		free(keep[i]);
}

/* No calibration data: refused with the way to calibrate. */
static void calibration_required(void)
{
	tcase c = {0};
	nkeep = 0;
	conv_case(&c, "needs calibration", 6, 8, 8, 3, 1, SAME, A_RELU, 0, 1);
	size_t n;
	uint8_t *bytes = tfl_build(&c.md, &n);
	vc_module *m = vc_module_new();
	CHECK_EQ(vc_import_tflite_bytes(m, bytes, n), 0);
	vc_compile_opts o = {0};
	char err[1024];
	CHECK(vc_compile(m, &o, err, sizeof err) != 0);
	CHECK_STR_CONTAINS(err, "no calibration samples");
	CHECK_STR_CONTAINS(err, "--calib=DATA");
	CHECK_STR_CONTAINS(err, "--calib=synthetic");
	vc_module_free(m);
	/* the explicit opt-in compiles */
	m = vc_module_new();
	CHECK_EQ(vc_import_tflite_bytes(m, bytes, n), 0);
	o.calib_path = "synthetic";
	CHECK_EQ(vc_compile(m, &o, err, sizeof err), 0);
	CHECK(m->calib.synthetic);
	vc_module_free(m);
	free(bytes);
	free(c.x.d);
	free(c.want.d);
	for (int i = 0; i < nkeep; i++)
		free(keep[i]);
}

/* ResNet-8 on CIFAR-10: calibrated on images 0..199, scored on 1000..1099. */
static void resnet8(void)
{
	if (strcmp(test_label(), "vta")) {
		printf("ResNet-8 runs in the default configuration's plain build only (this is '%s')\n", test_label());
		return;
	}
	char model[1024], data[1024], err[1024];
	snprintf(model, sizeof model, "%s/../shared/models/resnet8-cifar10-float.tflite", test_root());
	snprintf(data, sizeof data, "%s/../shared/data/cifar10-test-2k.bin", test_root());
	vc_module *f = vc_module_new(), *q = vc_module_new();
	CHECK_EQ(vc_import_file(f, model), 0);
	CHECK_EQ(vc_import_file(q, model), 0);
	vc_compile_opts fo = {.pipeline = "float"};
	vc_compile_opts qo = {.calib_path = data, .calib_count = 200, .calib_offset_set = 1, .calib_offset = 0};
	CHECK_EQ(vc_compile(f, &fo, err, sizeof err), 0);
	CHECK_EQ(vc_compile(q, &qo, err, sizeof err), 0);
	CHECK_EQ(q->n_kernels, 10); /* every convolution and the classifier on VTA */
	vc_dataset d;
	CHECK_EQ(vc_dataset_load(data, NULL, VC_DATASET_CIFAR, &d, err, sizeof err), 0);
	vc_runner *r = vc_runner_open(q, "fsim", err, sizeof err);
	CHECK(r != NULL);
	int fl = 0, vt = 0, agree = 0, N = 100;
	vc_tensor in;
	vc_tensor_alloc(&in, &f->g->inputs[0]->type);
	for (int s = 1000; r && s < 1000 + N; s++) {
		for (int64_t i = 0; i < 3072; i++)
			((float *)in.data)[i] = d.pixels[(size_t)s * 3072 + (size_t)i];
		vc_tensor a, b;
		CHECK_EQ(vc_interp(f, &in, &a, NULL, NULL, NULL), 0);
		CHECK_EQ(vc_runner_run(r, &in, &b), 0);
		int ia = 0, ib = 0;
		for (int k = 1; k < 10; k++) {
			ia = ((float *)a.data)[k] > ((float *)a.data)[ia] ? k : ia;
			ib = ((float *)b.data)[k] > ((float *)b.data)[ib] ? k : ib;
		}
		fl += ia == d.labels[s], vt += ib == d.labels[s], agree += ia == ib;
		vc_tensor_free(&a);
		vc_tensor_free(&b);
	}
	printf("ResNet-8 on 100 CIFAR-10 images: float %d, int8 on VTA (fsim) %d, agreement %d\n", fl, vt, agree);
	/* 100 images: a gap of 5 points and 90% agreement allow for sampling
	 * noise around the benchmark's 1 point / 98% on 1,500 */
	CHECK(vt >= fl - 5);
	CHECK(agree >= 90);
	vc_tensor_free(&in);
	vc_runner_close(r);
	vc_module_free(q);
	/* the int8 TFLite file: imported (dequantized), requantized by us */
	snprintf(model, sizeof model, "%s/../shared/models/resnet8-cifar10-int8.tflite", test_root());
	q = vc_module_new();
	CHECK_EQ(vc_import_file(q, model), 0);
	qo.calib_count = 50;
	CHECK_EQ(vc_compile(q, &qo, err, sizeof err), 0);
	CHECK_EQ(q->n_kernels, 10);
	vc_dataset_free(&d);
	vc_module_free(q);
	vc_module_free(f);
}

/* MobileNet-V2 (int8 TFLite): calibrated on the two photos that are not
 * scored, then cat.bmp on fsim: the float reference and VTA both say
 * Egyptian cat (class 286 of imagenet_labels.txt, 0 = background), and
 * their top-5 share at least 3 classes. */
static void mobilenet(void)
{
	if (strcmp(test_label(), "vta")) {
		printf("MobileNet-V2 runs in the default configuration's plain build only (this is '%s')\n", test_label());
		return;
	}
	char model[1024], a[1024], b[1024], cat[1024], err[1024];
	snprintf(model, sizeof model, "%s/../shared/models/mobilenet-v2-1.0-224-int8.tflite", test_root());
	snprintf(a, sizeof a, "%s/../shared/images/owl.jpg", test_root());
	snprintf(b, sizeof b, "%s/../shared/images/sunflower.bmp", test_root());
	snprintf(cat, sizeof cat, "%s/../shared/images/cat.bmp", test_root());
	vc_module *f = vc_module_new(), *q = vc_module_new();
	CHECK_EQ(vc_import_file(f, model), 0);
	CHECK_EQ(vc_import_file(q, model), 0);
	CHECK_EQ(vc_calib_add(q, a, 0, -1, err, sizeof err), 0);
	CHECK_EQ(vc_calib_add(q, b, 0, -1, err, sizeof err), 0);
	vc_compile_opts fo = {.pipeline = "float"}, qo = {0};
	CHECK_EQ(vc_compile(f, &fo, err, sizeof err), 0);
	CHECK_EQ(vc_compile(q, &qo, err, sizeof err), 0);
	CHECK_EQ(q->n_kernels, 53); /* every convolution, the depthwise ones too */
	vc_tensor in, x, y;
	vc_tensor_alloc(&in, &f->g->inputs[0]->type);
	CHECK_EQ(vc_read_input(cat, &in.t, in.data, err, sizeof err), 0);
	vc_runner *r = vc_runner_open(q, "fsim", err, sizeof err);
	CHECK(r != NULL);
	if (r && !vc_interp(f, &in, &x, NULL, NULL, NULL) && !vc_runner_run(r, &in, &y)) {
		int tf[5], tq[5], overlap = 0;
		for (int j = 0; j < 5; j++) { /* top-5 of each */
			tf[j] = tq[j] = -1;
			for (int i = 0; i < 1001; i++) {
				int used_f = 0, used_q = 0;
				for (int k = 0; k < j; k++)
					used_f |= tf[k] == i, used_q |= tq[k] == i;
				if (!used_f && (tf[j] < 0 || ((float *)x.data)[i] > ((float *)x.data)[tf[j]]))
					tf[j] = i;
				if (!used_q && (tq[j] < 0 || ((float *)y.data)[i] > ((float *)y.data)[tq[j]]))
					tq[j] = i;
			}
		}
		for (int i = 0; i < 5; i++)
			for (int j = 0; j < 5; j++)
				overlap += tf[i] == tq[j];
		printf("MobileNet-V2, cat.bmp: float top-1 %d, VTA top-1 %d, top-5 overlap %d\n", tf[0], tq[0], overlap);
		CHECK_EQ(tf[0], 286);
		CHECK_EQ(tq[0], 286);
		CHECK(overlap >= 3);
		vc_tensor_free(&x);
		vc_tensor_free(&y);
	}
	vc_runner_close(r);
	vc_tensor_free(&in);
	vc_module_free(f);
	vc_module_free(q);
}

static const test_case_t cases[] = {
	{"conformance", conformance},
	{"bad_input", bad_input},
	{"unsupported_all", unsupported_all},
	{"bad_new_ops", bad_new_ops},
	{"calibration_required", calibration_required},
	{"resnet8", resnet8},
	{"mobilenet", mobilenet},
	{NULL, NULL},
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, cases);
}
