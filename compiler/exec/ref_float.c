/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The float reference: convolution, dense, matmul, broadcasting add and mul,
 * global average pooling, softmax and batchnorm. Calibration runs the model
 * through these, and they are the float baseline accuracy is measured
 * against; convolution and dense go through OpenBLAS's sgemm (a declared
 * dependency of the compiler, never of libvta).
 */
#include <math.h>
#include <stdlib.h>

#include <cblas.h>

#include "exec/exec.h"
#include <vta/model/hostgemm.h>
#include <vta/model/hostops.h>

/*
 * Convolution as im2col + sgemm (OpenBLAS): per image and group, the
 * [CG*KH*KW, OH*OW] column matrix of the input times the [OG, CG*KH*KW]
 * weights. Depthwise convolutions (one input channel a group) are direct
 * loops: a one-row GEMM per channel would spend its time in call overhead.
 * Returns -1 when the column buffer cannot be allocated.
 */
static int conv_f32(const vc_attrs *a, const vc_tensor *x, const vc_tensor *w, const vc_tensor *b, vc_tensor *y)
{
	int64_t N = x->t.dim[0], C = x->t.dim[1], H = x->t.dim[2], W = x->t.dim[3];
	int64_t O = w->t.dim[0], CG = w->t.dim[1], KH = w->t.dim[2], KW = w->t.dim[3];
	int64_t OH = y->t.dim[2], OW = y->t.dim[3], G = a->group, OG = O / G;
	int64_t sh = a->stride[0], sw = a->stride[1], ph = a->pad[0], pw = a->pad[1];
	int64_t dh = a->dilation[0], dw = a->dilation[1], P = OH * OW, K = CG * KH * KW;
	const float *xd = x->data, *wd = w->data, *bd = b ? b->data : NULL;
	float *yd = y->data;
	for (int64_t o = 0; o < N * O; o++)
		for (int64_t p = 0; p < P; p++)
			yd[o * P + p] = bd ? bd[o % O] : 0.0f;
	if (CG == 1 && OG == 1) { /* depthwise */
		for (int64_t n = 0; n < N; n++)
			for (int64_t c = 0; c < C; c++) {
				const float *xc = xd + (n * C + c) * H * W, *wc = wd + c * KH * KW;
				float *yc = yd + (n * O + c) * P;
				for (int64_t kh = 0; kh < KH; kh++)
					for (int64_t kw = 0; kw < KW; kw++) {
						float wv = wc[kh * KW + kw];
						for (int64_t oh = 0; oh < OH; oh++) {
							int64_t ih = oh * sh - ph + kh * dh;
							if (ih < 0 || ih >= H)
								continue;
							for (int64_t ow = 0; ow < OW; ow++) {
								int64_t iw = ow * sw - pw + kw * dw;
								if (iw >= 0 && iw < W)
									yc[oh * OW + ow] += wv * xc[ih * W + iw];
							}
						}
					}
			}
		return 0;
	}
	int direct = KH == 1 && KW == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 && OH == H && OW == W;
	float *col = direct ? NULL : malloc((size_t)(K * P) * sizeof *col);
	if (!direct && !col)
		return -1;
	for (int64_t n = 0; n < N; n++)
		for (int64_t g = 0; g < G; g++) {
			const float *xg = xd + (n * C + g * CG) * H * W;
			if (!direct)
				for (int64_t c = 0; c < CG; c++)
					for (int64_t kh = 0; kh < KH; kh++)
						for (int64_t kw = 0; kw < KW; kw++) {
							float *row = col + ((c * KH + kh) * KW + kw) * P;
							for (int64_t oh = 0; oh < OH; oh++) {
								int64_t ih = oh * sh - ph + kh * dh;
								for (int64_t ow = 0; ow < OW; ow++) {
									int64_t iw = ow * sw - pw + kw * dw;
									row[oh * OW + ow] = ih >= 0 && ih < H && iw >= 0 && iw < W
												    ? xg[(c * H + ih) * W + iw]
												    : 0.0f;
								}
							}
						}
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)OG, (int)P, (int)K, 1.0f, wd + g * OG * K,
				    (int)K, direct ? xg : col, (int)P, 1.0f, yd + (n * O + g * OG) * P, (int)P);
		}
	free(col);
	return 0;
}

static void dense_f32(const vc_tensor *x, const vc_tensor *w, const vc_tensor *b, vc_tensor *y)
{
	int64_t N = x->t.dim[0], IN = x->t.dim[1], O = w->t.dim[0];
	float *yd = y->data;
	for (int64_t n = 0; n < N; n++)
		for (int64_t o = 0; o < O; o++)
			yd[n * O + o] = b ? ((const float *)b->data)[o] : 0.0f;
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)N, (int)O, (int)IN, 1.0f, x->data, (int)IN, w->data, (int)IN,
		    1.0f, yd, (int)O);
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
	vta_mtype_t t;
	vc_to_mtype(&x->t, &t);
	vta_softmax_axis(&t, n->a.axis, n->a.coerce2d, x->data, y->data); /* libvta's, as deployed */
}

static void batchnorm(const vc_node *n, const vc_tensor *in, vc_tensor *y)
{
	vta_mtype_t t;
	vc_to_mtype(&in[0].t, &t);
	vta_batchnorm_f32(&t, in[0].data, in[1].data, in[2].data, in[3].data, in[4].data, n->a.eps, y->data); /* libvta's */
}

/* ---- dispatch ------------------------------------------------------- */

int vc_ref_run_float(vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out)
{
	const vc_tensor *x = &in[0];
	switch (n->op) {
	case VC_OP_CONV:
		if (conv_f32(&n->a, &in[0], &in[1], n->n_in > 2 ? &in[2] : NULL, out))
			return vc_error(m, n, "out of memory for the convolution's column buffer");
		return 0;
	case VC_OP_DENSE:
		dense_f32(&in[0], &in[1], n->n_in > 2 ? &in[2] : NULL, out);
		return 0;
	case VC_OP_MATMUL:
		matmul(&in[0], &in[1], out);
		return 0;
	case VC_OP_ADD:
	case VC_OP_MUL:
	{
		vta_mtype_t r, ta, tb;
		vc_to_mtype(&n->type, &r);
		vc_to_mtype(&in[0].t, &ta);
		vc_to_mtype(&in[1].t, &tb);
		vta_add_mul_f32(n->op == VC_OP_MUL, &r, &ta, in[0].data, &tb, in[1].data, out->data);
		return 0;
	}
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
	case VC_OP_LEAKY: /* libvta's, as deployed */
		vta_leaky_f32(in[0].data, out->data, vc_type_elems(&n->type), n->a.leaky);
		return 0;
	case VC_OP_SIGMOID: /* libvta's, as deployed */
		vta_sigmoid_f32(in[0].data, out->data, vc_type_elems(&n->type));
		return 0;
	case VC_OP_UNARY: /* libvta's, as deployed */
		vta_unary_f32(n->a.fn, n->a.alpha, n->a.beta, in[0].data, out->data, vc_type_elems(&n->type));
		return 0;
	case VC_OP_BINARY:
	case VC_OP_REDUCE: { /* libvta's, as deployed */
		vta_mtype_t at, bt, yt;
		vc_to_mtype(&x->t, &at);
		vc_to_mtype(&n->type, &yt);
		if (n->op == VC_OP_REDUCE)
			return vta_reduce_f32(n->a.fn, n->a.axes, &at, x->data, out->data) ? vc_error(m, n, "out of memory") : 0;
		vc_to_mtype(&in[1].t, &bt);
		vta_binary_f32(n->a.fn, &yt, &at, x->data, &bt, in[1].data, out->data);
		return 0;
	}
	case VC_OP_RESIZE: { /* libvta's, as deployed */
		vta_mtype_t xt, yt;
		vc_to_mtype(&x->t, &xt);
		vc_to_mtype(&n->type, &yt);
		if (vta_resize_f32(&xt, x->data, &yt, out->data, n->a.resize_mode, n->a.resize_coord, n->a.resize_round,
				   n->a.scale))
			return vc_error(m, n, "out of memory");
		return 0;
	}
	case VC_OP_YOLO: /* Darknet's yolo layer: logistic on x, y, objectness and the classes */
		vta_yolo_f32(in[0].data, out->data, x->t.dim[0], n->in[1]->type.dim[0], n->a.axis,
			     x->t.dim[2] * x->t.dim[3]);
		return 0;
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
