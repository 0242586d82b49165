/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reference kernels, float and int8, one per op the importer accepts. They
 * are the CPU fallback of a compiled model and the oracle every lowered op
 * is checked against, so they are written for clarity, not speed (except
 * that the convolution loops keep the innermost index contiguous).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vc.h"

int vc_tensor_alloc(vc_tensor *x, const vc_type *t)
{
	x->t = *t;
	size_t bytes = vc_type_bytes(t);
	x->data = calloc(1, bytes ? bytes : 1);
	x->owned = 1;
	return x->data ? 0 : -1;
}

void vc_tensor_free(vc_tensor *x)
{
	if (x->owned)
		free(x->data);
	x->data = NULL;
	x->owned = 0;
}

int8_t vc_quantize_value(float x, int exp)
{
	float q = roundf(ldexpf(x, -exp)); /* round half away from zero */
	if (!(q >= -127.0f)) /* also catches NaN */
		q = q != q ? 0.0f : -127.0f;
	if (q > 127.0f)
		q = 127.0f;
	return (int8_t)q;
}

/*
 * Requantization, defined as exactly the ALU sequence the lowering emits:
 * for shifts above 15 first SHR (shift-15) (the rounding constant of a larger
 * shift does not fit the 16-bit immediate), then ADD 2^(s-1), SHR s; a
 * negative shift is a left shift; then MAX lo, MIN hi.
 */
int32_t vc_requant_value(int32_t acc, int shift, int64_t lo, int64_t hi)
{
	int32_t v = acc;
	if (shift > 15) {
		v = v >> (shift - 15); /* arithmetic on every compiler we support */
		shift = 15;
	}
	if (shift > 0) {
		uint32_t u = (uint32_t)v + (1u << (shift - 1));
		v = (int32_t)u >> shift;
	} else if (shift < 0) {
		v = (int32_t)((uint32_t)v << ((-shift) & 31));
	}
	if (v < lo)
		v = (int32_t)lo;
	if (v > hi)
		v = (int32_t)hi;
	return v;
}

/* ---- helpers -------------------------------------------------------- */

static double get(const vc_tensor *x, int64_t i)
{
	switch (x->t.dtype) {
	case VC_F32:
		return ((const float *)x->data)[i];
	case VC_I8:
		return ((const int8_t *)x->data)[i];
	default:
		return ((const int32_t *)x->data)[i];
	}
}

/* Index into a broadcast operand for flat output index o. */
static int64_t bcast_index(const vc_type *out, const vc_type *in, int64_t o)
{
	int64_t idx = 0, stride = 1;
	for (int d = out->rank - 1; d >= 0; d--) {
		int64_t c = o % out->dim[d];
		o /= out->dim[d];
		int di = d - (out->rank - in->rank);
		if (di >= 0) {
			if (in->dim[di] != 1)
				idx += c * stride;
			stride *= in->dim[di];
		}
	}
	return idx;
}

/* ---- convolution and dense ------------------------------------------ */

static void conv_f32(const vc_attrs *a, const vc_tensor *x, const vc_tensor *w, const vc_tensor *b, vc_tensor *y)
{
	int64_t N = x->t.dim[0], C = x->t.dim[1], H = x->t.dim[2], W = x->t.dim[3];
	int64_t O = w->t.dim[0], CG = w->t.dim[1], KH = w->t.dim[2], KW = w->t.dim[3];
	int64_t OH = y->t.dim[2], OW = y->t.dim[3], G = a->group, OG = O / G;
	const float *xd = x->data, *wd = w->data, *bd = b ? b->data : NULL;
	float *yd = y->data;
	for (int64_t n = 0; n < N; n++)
		for (int64_t o = 0; o < O; o++) {
			int64_t g = o / OG;
			for (int64_t oh = 0; oh < OH; oh++)
				for (int64_t ow = 0; ow < OW; ow++) {
					double s = bd ? bd[o] : 0.0;
					for (int64_t c = 0; c < CG; c++)
						for (int64_t kh = 0; kh < KH; kh++) {
							int64_t ih = oh * a->stride[0] - a->pad[0] + kh * a->dilation[0];
							if (ih < 0 || ih >= H)
								continue;
							for (int64_t kw = 0; kw < KW; kw++) {
								int64_t iw = ow * a->stride[1] - a->pad[1] + kw * a->dilation[1];
								if (iw < 0 || iw >= W)
									continue;
								s += (double)xd[((n * C + g * CG + c) * H + ih) * W + iw] *
								     wd[((o * CG + c) * KH + kh) * KW + kw];
							}
						}
					yd[((n * O + o) * OH + oh) * OW + ow] = (float)s;
				}
		}
}

static void conv_i8(const vc_attrs *a, const vc_tensor *x, const vc_tensor *w, const vc_tensor *b, vc_tensor *y)
{
	int64_t N = x->t.dim[0], C = x->t.dim[1], H = x->t.dim[2], W = x->t.dim[3];
	int64_t O = w->t.dim[0], CG = w->t.dim[1], KH = w->t.dim[2], KW = w->t.dim[3];
	int64_t OH = y->t.dim[2], OW = y->t.dim[3], G = a->group, OG = O / G;
	const int8_t *xd = x->data, *wd = w->data;
	const int32_t *bd = b ? b->data : NULL;
	int32_t *yd = y->data;
	for (int64_t n = 0; n < N; n++)
		for (int64_t o = 0; o < O; o++) {
			int64_t g = o / OG;
			for (int64_t oh = 0; oh < OH; oh++)
				for (int64_t ow = 0; ow < OW; ow++) {
					uint32_t s = 0;
					for (int64_t c = 0; c < CG; c++)
						for (int64_t kh = 0; kh < KH; kh++) {
							int64_t ih = oh * a->stride[0] - a->pad[0] + kh * a->dilation[0];
							if (ih < 0 || ih >= H)
								continue;
							for (int64_t kw = 0; kw < KW; kw++) {
								int64_t iw = ow * a->stride[1] - a->pad[1] + kw * a->dilation[1];
								if (iw < 0 || iw >= W)
									continue;
								s += (uint32_t)(xd[((n * C + g * CG + c) * H + ih) * W + iw] *
										wd[((o * CG + c) * KH + kh) * KW + kw]);
							}
						}
					if (bd)
						s += (uint32_t)bd[o];
					yd[((n * O + o) * OH + oh) * OW + ow] = (int32_t)s;
				}
		}
}

static void dense(const vc_tensor *x, const vc_tensor *w, const vc_tensor *b, vc_tensor *y)
{
	int64_t N = x->t.dim[0], I = x->t.dim[1], O = w->t.dim[0];
	for (int64_t n = 0; n < N; n++)
		for (int64_t o = 0; o < O; o++) {
			if (y->t.dtype == VC_F32) {
				double s = b ? get(b, o) : 0.0;
				for (int64_t i = 0; i < I; i++)
					s += get(x, n * I + i) * get(w, o * I + i);
				((float *)y->data)[n * O + o] = (float)s;
			} else {
				uint32_t s = b ? (uint32_t)((const int32_t *)b->data)[o] : 0;
				const int8_t *xd = x->data, *wd = w->data;
				for (int64_t i = 0; i < I; i++)
					s += (uint32_t)(xd[n * I + i] * wd[o * I + i]);
				((int32_t *)y->data)[n * O + o] = (int32_t)s;
			}
		}
}

static void matmul(const vc_tensor *a, const vc_tensor *b, vc_tensor *y)
{
	int r = a->t.rank;
	int64_t M = a->t.dim[r - 2], K = a->t.dim[r - 1], N = b->t.dim[r - 1], batch = 1;
	for (int i = 0; i + 2 < r; i++)
		batch *= a->t.dim[i];
	const float *ad = a->data, *bd = b->data;
	float *yd = y->data;
	for (int64_t z = 0; z < batch; z++)
		for (int64_t i = 0; i < M; i++)
			for (int64_t j = 0; j < N; j++) {
				double s = 0;
				for (int64_t k = 0; k < K; k++)
					s += (double)ad[z * M * K + i * K + k] * bd[z * K * N + k * N + j];
				yd[z * M * N + i * N + j] = (float)s;
			}
}

/* ---- pooling -------------------------------------------------------- */

static void pool(const vc_node *n, const vc_tensor *x, vc_tensor *y)
{
	const vc_attrs *a = &n->a;
	int64_t NC = x->t.dim[0] * x->t.dim[1], H = x->t.dim[2], W = x->t.dim[3], OH = y->t.dim[2], OW = y->t.dim[3];
	int is_max = n->op == VC_OP_MAXPOOL;
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
						double v = get(x, (p * H + ih) * W + iw);
						acc = is_max ? (v > acc ? v : acc) : acc + v;
						count++;
					}
				int64_t o = (p * OH + oh) * OW + ow;
				if (is_max) {
					if (y->t.dtype == VC_F32)
						((float *)y->data)[o] = (float)acc;
					else
						((int8_t *)y->data)[o] = (int8_t)acc;
				} else {
					int64_t div = a->count_include_pad ? window : count;
					((float *)y->data)[o] = (float)(div ? acc / (double)div : 0.0);
				}
			}
}

/* ---- packing (VTA-SPEC 2.6) ------------------------------------------ */

/* Plain NCHW (or NC) int8 to [N/B][C/BL][H][W][B][BL], zero padded. */
static void pack(const vc_tensor *x, vc_tensor *y)
{
	const vc_type *t = &y->t;
	int64_t N = x->t.dim[0], C = x->t.dim[1];
	int64_t H = t->dim[2], W = t->dim[3], B = t->dim[4], BL = t->dim[5];
	const int8_t *xd = x->data;
	int8_t *yd = y->data;
	for (int64_t nb = 0; nb < t->dim[0]; nb++)
		for (int64_t cb = 0; cb < t->dim[1]; cb++)
			for (int64_t h = 0; h < H; h++)
				for (int64_t w = 0; w < W; w++)
					for (int64_t b = 0; b < B; b++)
						for (int64_t c = 0; c < BL; c++) {
							int64_t n = nb * B + b, ch = cb * BL + c;
							int64_t o = ((((nb * t->dim[1] + cb) * H + h) * W + w) * B + b) * BL + c;
							yd[o] = n < N && ch < C ? xd[((n * C + ch) * H + h) * W + w] : 0;
						}
}

static void unpack(const vc_tensor *x, vc_tensor *y)
{
	const vc_type *p = &x->t;
	int64_t N = y->t.dim[0], C = y->t.dim[1], H = p->dim[2], W = p->dim[3], B = p->dim[4], BL = p->dim[5];
	const int8_t *xd = x->data;
	int8_t *yd = y->data;
	for (int64_t n = 0; n < N; n++)
		for (int64_t c = 0; c < C; c++)
			for (int64_t h = 0; h < H; h++)
				for (int64_t w = 0; w < W; w++) {
					int64_t nb = n / B, b = n % B, cb = c / BL, cl = c % BL;
					yd[((n * C + c) * H + h) * W + w] =
						xd[((((nb * p->dim[1] + cb) * H + h) * W + w) * B + b) * BL + cl];
				}
}

/* The fused VTA kernel on packed data: GEMM, bias, requantize. */
static void vta_conv(const vc_attrs *a, const vc_tensor *x, const vc_tensor *w, const vc_tensor *bias, const vc_tensor *res,
		     vc_tensor *y)
{
	const vc_type *xt = &x->t, *wt = &w->t, *yt = &y->t;
	int64_t CB = xt->dim[1], H = xt->dim[2], W = xt->dim[3], B = xt->dim[4], BI = xt->dim[5];
	int64_t KH = wt->dim[2], KW = wt->dim[3], BO = wt->dim[4];
	int64_t OB = yt->dim[1], OH = yt->dim[2], OW = yt->dim[3];
	const int8_t *xd = x->data, *wd = w->data;
	const int32_t *bd = bias->data;
	int8_t *yd = y->data;
	int64_t lo = a->relu ? 0 : a->qlo;
	for (int64_t nb = 0; nb < yt->dim[0]; nb++)
		for (int64_t ob = 0; ob < OB; ob++)
			for (int64_t oh = 0; oh < OH; oh++)
				for (int64_t ow = 0; ow < OW; ow++)
					for (int64_t b = 0; b < B; b++)
						for (int64_t c = 0; c < BO; c++) {
							uint32_t s = 0;
							for (int64_t cb = 0; cb < CB; cb++)
								for (int64_t kh = 0; kh < KH; kh++) {
									int64_t ih = oh * a->stride[0] - a->pad[0] + kh;
									if (ih < 0 || ih >= H)
										continue;
									for (int64_t kw = 0; kw < KW; kw++) {
										int64_t iw = ow * a->stride[1] - a->pad[1] + kw;
										if (iw < 0 || iw >= W)
											continue;
										const int8_t *xv = xd + ((((nb * CB + cb) * H + ih) * W + iw) * B + b) * BI;
										const int8_t *wv = wd + ((((ob * CB + cb) * KH + kh) * KW + kw) * BO + c) * BI;
										for (int64_t k = 0; k < BI; k++)
											s += (uint32_t)(xv[k] * wv[k]);
									}
								}
							s += (uint32_t)bd[(ob * B + b) * BO + c];
							int64_t o = ((((nb * OB + ob) * OH + oh) * OW + ow) * B + b) * BO + c;
							if (res) /* the ALU's SHR by -res_shift, then ADD */
								s += (uint32_t)((const int8_t *)res->data)[o] << a->res_shift;
							yd[o] = (int8_t)vc_requant_value((int32_t)s, a->shift, lo, a->qhi);
						}
}

/* ---- softmax, batchnorm, concat ------------------------------------- */

static void softmax(const vc_node *n, const vc_tensor *x, vc_tensor *y)
{
	const vc_type *t = &x->t;
	int64_t ax = n->a.axis < 0 ? n->a.axis + t->rank : n->a.axis;
	int64_t outer = 1, len = 1, inner = 1;
	for (int i = 0; i < t->rank; i++) {
		if (i < ax)
			outer *= t->dim[i];
		else if (i == ax || n->a.coerce2d)
			len *= t->dim[i];
		else
			inner *= t->dim[i];
	}
	const float *xd = x->data;
	float *yd = y->data;
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

static void batchnorm(const vc_node *n, const vc_tensor *in, vc_tensor *y)
{
	const vc_type *t = &in[0].t;
	int64_t N = t->dim[0], C = t->dim[1], S = vc_type_elems(t) / (N * C);
	const float *x = in[0].data, *sc = in[1].data, *bi = in[2].data, *mu = in[3].data, *var = in[4].data;
	float *yd = y->data;
	for (int64_t a = 0; a < N; a++)
		for (int64_t c = 0; c < C; c++) {
			double k = sc[c] / sqrt((double)var[c] + n->a.eps);
			for (int64_t s = 0; s < S; s++) {
				int64_t i = (a * C + c) * S + s;
				yd[i] = (float)((x[i] - mu[c]) * k + bi[c]);
			}
		}
}

static void concat(const vc_node *n, const vc_tensor *in, vc_tensor *y)
{
	const vc_type *t = &y->t;
	int64_t ax = n->a.axis < 0 ? n->a.axis + t->rank : n->a.axis;
	int64_t outer = 1, inner = 1;
	for (int i = 0; i < t->rank; i++) {
		if (i < ax)
			outer *= t->dim[i];
		if (i > ax)
			inner *= t->dim[i];
	}
	size_t es = vc_dtype_size(t->dtype);
	uint8_t *yd = y->data;
	int64_t off = 0;
	for (int k = 0; k < n->n_in; k++) {
		int64_t len = in[k].t.dim[ax] * inner;
		for (int64_t o = 0; o < outer; o++)
			memcpy(yd + (size_t)(o * t->dim[ax] * inner + off) * es, (const uint8_t *)in[k].data + (size_t)(o * len) * es,
			       (size_t)len * es);
		off += len;
	}
}

/* ---- dispatch ------------------------------------------------------- */

int vc_ref_run(vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out)
{
	if (vc_tensor_alloc(out, &n->type))
		return vc_error(m, n, "out of memory for the result");
	int64_t e = vc_type_elems(&n->type);
	const vc_tensor *x = &in[0];
	switch (n->op) {
	case VC_OP_CONST:
		memcpy(out->data, n->data, vc_type_bytes(&n->type));
		return 0;
	case VC_OP_CONV:
		conv_f32(&n->a, &in[0], &in[1], n->n_in > 2 ? &in[2] : NULL, out);
		return 0;
	case VC_OP_QCONV:
		conv_i8(&n->a, &in[0], &in[1], n->n_in > 2 ? &in[2] : NULL, out);
		return 0;
	case VC_OP_DENSE:
	case VC_OP_QDENSE:
		dense(&in[0], &in[1], n->n_in > 2 ? &in[2] : NULL, out);
		return 0;
	case VC_OP_MATMUL:
		matmul(&in[0], &in[1], out);
		return 0;
	case VC_OP_ADD:
	case VC_OP_MUL:
		for (int64_t i = 0; i < e; i++) {
			float a = ((const float *)in[0].data)[bcast_index(&n->type, &in[0].t, i)];
			float b = ((const float *)in[1].data)[bcast_index(&n->type, &in[1].t, i)];
			((float *)out->data)[i] = n->op == VC_OP_ADD ? a + b : a * b;
		}
		return 0;
	case VC_OP_RELU:
	case VC_OP_CLIP: {
		double lo = n->op == VC_OP_RELU ? 0.0 : n->a.lo, hi = n->op == VC_OP_RELU ? INFINITY : n->a.hi;
		if (x->t.quantized) { /* bounds in real units, applied to the integers */
			lo = n->op == VC_OP_RELU ? 0.0 : ceil(ldexp(lo, -x->t.exp));
			hi = n->op == VC_OP_RELU ? INFINITY : floor(ldexp(hi, -x->t.exp));
		}
		for (int64_t i = 0; i < e; i++) {
			double v = get(x, i);
			v = v < lo ? lo : v > hi ? hi : v;
			if (x->t.dtype == VC_F32)
				((float *)out->data)[i] = (float)v;
			else if (x->t.dtype == VC_I8)
				((int8_t *)out->data)[i] = (int8_t)v;
			else
				((int32_t *)out->data)[i] = (int32_t)v;
		}
		return 0;
	}
	case VC_OP_MAXPOOL:
	case VC_OP_AVGPOOL:
		pool(n, x, out);
		return 0;
	case VC_OP_GAP: {
		int64_t NC = x->t.dim[0] * x->t.dim[1], S = vc_type_elems(&x->t) / NC;
		for (int64_t p = 0; p < NC; p++) {
			double s = 0;
			for (int64_t i = 0; i < S; i++)
				s += get(x, p * S + i);
			((float *)out->data)[p] = (float)(s / (double)S);
		}
		return 0;
	}
	case VC_OP_RESHAPE:
	case VC_OP_FLATTEN:
		memcpy(out->data, x->data, vc_type_bytes(&n->type));
		return 0;
	case VC_OP_SOFTMAX:
		softmax(n, x, out);
		return 0;
	case VC_OP_BATCHNORM:
		batchnorm(n, in, out);
		return 0;
	case VC_OP_CONCAT:
		concat(n, in, out);
		return 0;
	case VC_OP_QUANTIZE:
		for (int64_t i = 0; i < e; i++)
			((int8_t *)out->data)[i] = vc_quantize_value(((const float *)x->data)[i], n->type.exp);
		return 0;
	case VC_OP_DEQUANTIZE:
		for (int64_t i = 0; i < e; i++)
			((float *)out->data)[i] = (float)ldexp(get(x, i), x->t.exp);
		return 0;
	case VC_OP_REQUANT:
		for (int64_t i = 0; i < e; i++)
			((int8_t *)out->data)[i] = (int8_t)vc_requant_value(((const int32_t *)x->data)[i], n->a.shift,
									    n->a.relu ? 0 : n->a.qlo, n->a.qhi);
		return 0;
	case VC_OP_PACK:
		pack(x, out);
		return 0;
	case VC_OP_UNPACK:
		unpack(x, out);
		return 0;
	case VC_OP_VTA_CONV:
		vta_conv(&n->a, &in[0], &in[1], &in[2], n->n_in > 3 ? &in[3] : NULL, out);
		return 0;
	case VC_OP_QCONV_RQ: {
		vc_type acc = n->type;
		acc.dtype = VC_I32;
		vc_tensor t;
		if (vc_tensor_alloc(&t, &acc)) {
			vc_tensor_free(out);
			return vc_error(m, n, "out of memory");
		}
		if (x->t.rank == 4)
			conv_i8(&n->a, &in[0], &in[1], &in[2], &t);
		else
			dense(&in[0], &in[1], &in[2], &t);
		if (n->n_in > 3)
			for (int64_t i = 0; i < e; i++)
				((int32_t *)t.data)[i] = (int32_t)((uint32_t)((const int32_t *)t.data)[i] +
								   ((uint32_t)((const int8_t *)in[3].data)[i] << n->a.res_shift));
		for (int64_t i = 0; i < e; i++)
			((int8_t *)out->data)[i] = (int8_t)vc_requant_value(((const int32_t *)t.data)[i], n->a.shift,
									    n->a.relu ? 0 : n->a.qlo, n->a.qhi);
		vc_tensor_free(&t);
		return 0;
	}
	case VC_OP_QADD:
		for (int64_t i = 0; i < e; i++)
			((int32_t *)out->data)[i] = (int32_t)((uint32_t)((const int32_t *)x->data)[i] +
							      ((uint32_t)((const int8_t *)in[1].data)[i] << n->a.res_shift));
		return 0;
	default:
		vc_tensor_free(out);
		return vc_error(m, n, "no reference kernel");
	}
}
