/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The float reference: convolution, dense, matmul, broadcasting add and mul,
 * global average pooling, softmax and batchnorm. Calibration runs the model
 * through these, and they are the float baseline accuracy is measured
 * against.
 */
#include <math.h>

#include "exec/exec.h"

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

static void dense_f32(const vc_tensor *x, const vc_tensor *w, const vc_tensor *b, vc_tensor *y)
{
	int64_t N = x->t.dim[0], I = x->t.dim[1], O = w->t.dim[0];
	for (int64_t n = 0; n < N; n++)
		for (int64_t o = 0; o < O; o++) {
			double s = b ? vc_tensor_get(b, o) : 0.0;
			for (int64_t i = 0; i < I; i++)
				s += vc_tensor_get(x, n * I + i) * vc_tensor_get(w, o * I + i);
			((float *)y->data)[n * O + o] = (float)s;
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

int vc_ref_run_float(vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out)
{
	(void)m;
	int64_t e = vc_type_elems(&n->type);
	const vc_tensor *x = &in[0];
	switch (n->op) {
	case VC_OP_CONV:
		conv_f32(&n->a, &in[0], &in[1], n->n_in > 2 ? &in[2] : NULL, out);
		return 0;
	case VC_OP_DENSE:
		dense_f32(&in[0], &in[1], n->n_in > 2 ? &in[2] : NULL, out);
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
	case VC_OP_GAP: {
		int64_t NC = x->t.dim[0] * x->t.dim[1], S = vc_type_elems(&x->t) / NC;
		for (int64_t p = 0; p < NC; p++) {
			double s = 0;
			for (int64_t i = 0; i < S; i++)
				s += vc_tensor_get(x, p * S + i);
			((float *)out->data)[p] = (float)(s / (double)S);
		}
		return 0;
	}
	case VC_OP_SOFTMAX:
		softmax(n, x, out);
		return 0;
	case VC_OP_BATCHNORM:
		batchnorm(n, in, out);
		return 0;
	default:
		return 1;
	}
}
