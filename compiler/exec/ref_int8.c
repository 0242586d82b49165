/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The integer operators a compiled model runs on the host, and the oracle of
 * the device: quantize and dequantize, qconv/qdense (int8 x int8 -> int32,
 * wrapping like the hardware's accumulator), qadd, requant, pack/unpack to
 * the VTA blocked layout, and the fused VTA kernel on packed data. The
 * rounding of quantize and requantize is defined here once and shared with
 * the lowering, so device and host agree bit for bit.
 */
#include <math.h>

#include "exec/exec.h"
#include <vta/model/hostgemm.h>
#include <vta/model/hostops.h>

int8_t vc_quantize_value(float x, int exp)
{
	return vta_quantize_value(x, exp); /* libvta's, as deployed */
}

/* Requantization: libvta's (runtime/model/hostgemm.c), the ALU sequence the
 * lowering emits, so the host kernels and this reference round alike. */
int32_t vc_requant_value(int32_t acc, int shift, int64_t lo, int64_t hi)
{
	return vta_requant_value(acc, shift, lo, hi);
}

int vc_leaky_fused(int shift, int leaky)
{
	return vta_leaky_fused(shift, leaky);
}

int32_t vc_bias_rounding(int shift, int leaky)
{
	return vta_bias_rounding(shift, leaky);
}

int32_t vc_requant_leaky(int32_t acc, int shift, int leaky, int64_t lo, int64_t hi)
{
	return vta_requant_leaky(acc, shift, leaky, lo, hi);
}

int32_t vc_requant_round(int32_t acc, int s, int64_t lo, int64_t hi)
{
	return vta_requant_round(acc, s, lo, hi);
}

/* The channel (dimension 1) of flat index i of a tensor of type t. */
static int64_t channel_of(const vc_type *t, int64_t i)
{
	int64_t inner = 1;
	for (int k = 2; k < t->rank; k++)
		inner *= t->dim[k];
	return t->rank >= 2 ? (i / inner) % t->dim[1] : 0;
}

static void conv_i8(const vc_attrs *a, const vc_tensor *x, const vc_tensor *w, const vc_tensor *b, vc_tensor *y)
{
	int64_t N = x->t.dim[0], C = x->t.dim[1], H = x->t.dim[2], W = x->t.dim[3];
	int64_t O = w->t.dim[0], CG = w->t.dim[1], KH = w->t.dim[2], KW = w->t.dim[3];
	int64_t OH = y->t.dim[2], OW = y->t.dim[3], G = a->group, OG = O / G;
	const int8_t *xd = x->data, *wd = w->data;
	const int32_t *bd = b ? b->data : NULL;
	int32_t *yd = y->data;
	if (CG == 1 && OG == 1) { /* depthwise: tap by tap over whole output rows (the host kernel) */
		int64_t P = OH * OW;
		for (int64_t n = 0; n < N; n++)
			for (int64_t c = 0; c < C; c++) {
				uint32_t *yc = (uint32_t *)yd + (n * O + c) * P;
				const int8_t *xc = xd + (n * C + c) * H * W, *wc = wd + c * KH * KW;
				for (int64_t p = 0; p < P; p++)
					yc[p] = bd ? (uint32_t)bd[c] : 0u;
				for (int64_t kh = 0; kh < KH; kh++)
					for (int64_t kw = 0; kw < KW; kw++) {
						int32_t wv = wc[kh * KW + kw];
						for (int64_t oh = 0; oh < OH; oh++) {
							int64_t ih = oh * a->stride[0] - a->pad[0] + kh * a->dilation[0];
							if (ih < 0 || ih >= H)
								continue;
							for (int64_t ow = 0; ow < OW; ow++) {
								int64_t iw = ow * a->stride[1] - a->pad[1] + kw * a->dilation[1];
								if (iw >= 0 && iw < W)
									yc[oh * OW + ow] += (uint32_t)(wv * xc[ih * W + iw]);
							}
						}
					}
			}
		return;
	}
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

static void dense_i8(const vc_tensor *x, const vc_tensor *w, const vc_tensor *b, vc_tensor *y)
{
	int64_t N = x->t.dim[0], I = x->t.dim[1], O = w->t.dim[0];
	const int8_t *xd = x->data, *wd = w->data;
	for (int64_t n = 0; n < N; n++)
		for (int64_t o = 0; o < O; o++) {
			uint32_t s = b ? (uint32_t)((const int32_t *)b->data)[o] : 0;
			for (int64_t i = 0; i < I; i++)
				s += (uint32_t)(xd[n * I + i] * wd[o * I + i]);
			((int32_t *)y->data)[n * O + o] = (int32_t)s;
		}
}

/* ---- packing (VTA-SPEC 2.6) ------------------------------------------ */

/* Plain NCHW (or NC) int8 to [N/B][C/BL][H][W][B][BL], zero padded, and
 * back: libvta's. */
static void repack(const vc_tensor *plain, const vc_tensor *packed, int to_packed)
{
	vta_mtype_t u, p;
	vc_to_mtype(&plain->t, &u);
	vc_to_mtype(&packed->t, &p);
	vta_repack(&p, &u, to_packed ? plain->data : packed->data, to_packed ? packed->data : plain->data, to_packed);
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
	int64_t K = bias->t.rank == 4 ? bias->t.dim[1] : 1;
	int dw = a->group > 1;
	int64_t WB = wt->dim[1]; /* input blocks of the weights (1 for depthwise) */
	int8_t *yd = y->data;
	int64_t lo = a->relu ? 0 : a->qlo;
	for (int64_t nb = 0; nb < yt->dim[0]; nb++)
		for (int64_t ob = 0; ob < OB; ob++)
			for (int64_t oh = 0; oh < OH; oh++)
				for (int64_t ow = 0; ow < OW; ow++)
					for (int64_t b = 0; b < B; b++)
						for (int64_t c = 0; c < BO; c++) {
							uint32_t s = 0;
							/* depthwise: the block's own input block, weight block (ob, 0) */
							for (int64_t cb = dw ? ob : 0; cb < (dw ? ob + 1 : CB); cb++)
								for (int64_t kh = 0; kh < KH; kh++) {
									int64_t ih = oh * a->stride[0] - a->pad[0] + kh;
									if (ih < 0 || ih >= H)
										continue;
									for (int64_t kw = 0; kw < KW; kw++) {
										int64_t iw = ow * a->stride[1] - a->pad[1] + kw;
										if (iw < 0 || iw >= W)
											continue;
										const int8_t *xv = xd + ((((nb * CB + cb) * H + ih) * W + iw) * B + b) * BI;
										const int8_t *wv = wd + ((((ob * WB + (dw ? 0 : cb)) * KH + kh) * KW + kw) * BO + c) * BI;
										for (int64_t k = 0; k < BI; k++)
											s += (uint32_t)(xv[k] * wv[k]);
									}
								}
							int64_t o = ((((nb * OB + ob) * OH + oh) * OW + ow) * B + b) * BO + c;
							if (K == 1) {
								s += (uint32_t)bd[(ob * B + b) * BO + c];
								if (res) /* the ALU's SHR by -res_shift, then ADD */
									s += (uint32_t)((const int8_t *)res->data)[o] << a->res_shift;
								s -= (uint32_t)vc_bias_rounding(a->shift, a->leaky); /* the packed bias carries it */
								yd[o] = (int8_t)vc_requant_leaky((int32_t)s, a->shift, a->leaky, lo, a->qhi);
								continue;
							}
							/* per-channel rows: bias + rounding, shift, -residual shift */
							const int32_t *row = bd + ((ob * K) * B + b) * BO + c;
							s += (uint32_t)row[0];
							if (res)
								s += (uint32_t)vta_alu_shr(((const int8_t *)res->data)[o], row[2 * B * BO]);
							int32_t v = vta_alu_shr((int32_t)s, row[B * BO]);
							yd[o] = (int8_t)(v < lo ? lo : v > a->qhi ? a->qhi : v);
						}
}

int vc_ref_run_int8(vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out)
{
	int64_t e = vc_type_elems(&n->type);
	const vc_tensor *x = &in[0];
	switch (n->op) {
	case VC_OP_QCONV:
		conv_i8(&n->a, &in[0], &in[1], n->n_in > 2 ? &in[2] : NULL, out);
		return 0;
	case VC_OP_QDENSE:
		dense_i8(&in[0], &in[1], n->n_in > 2 ? &in[2] : NULL, out);
		return 0;
	case VC_OP_QUANTIZE: /* libvta's, to the node's bounds (-128 allowed) */
		vta_quantize_f32(x->data, out->data, e, n->type.exp, (int)n->a.qlo, (int)n->a.qhi);
		return 0;
	case VC_OP_DEQUANTIZE: { /* libvta's */
		vta_mtype_t t;
		vc_to_mtype(&x->t, &t);
		vta_dequantize(&t, x->data, out->data);
		return 0;
	}
	case VC_OP_REQUANT:
		for (int64_t i = 0; i < e; i++) {
			int32_t v = ((const int32_t *)x->data)[i];
			int64_t lo = n->a.relu ? 0 : n->a.qlo;
			((int8_t *)out->data)[i] =
				(int8_t)(n->n_in > 1 ? vc_requant_round(v, n->a.shift + ((const int32_t *)in[1].data)[channel_of(&n->type, i)], lo, n->a.qhi)
						     : vc_requant_leaky(v, n->a.shift, n->a.leaky, lo, n->a.qhi));
		}
		return 0;
	case VC_OP_PACK:
		if (n->a.kernel[1] > 1) { /* a convolution's columns folded into its channels (graph/pack.c) */
			vta_mtype_t u, p;
			vc_to_mtype(&x->t, &u);
			vc_to_mtype(&out->t, &p);
			vta_pack_fold(&p, &u, x->data, out->data, n->a.kernel[1], n->a.stride[1], n->a.pad[1]);
		} else
			repack(x, out, 1);
		return 0;
	case VC_OP_UNPACK:
		repack(out, x, 0);
		return 0;
	case VC_OP_VTA_CONV:
		vta_conv(&n->a, &in[0], &in[1], &in[2], n->n_in > 3 ? &in[3] : NULL, out);
		return 0;
	case VC_OP_QCONV_RQ: {
		vc_type acc = n->type;
		acc.dtype = VC_I32;
		vc_tensor t;
		if (vc_tensor_alloc(&t, &acc))
			return vc_error(m, n, "out of memory");
		if (x->t.rank == 4)
			conv_i8(&n->a, &in[0], &in[1], &in[2], &t);
		else
			dense_i8(&in[0], &in[1], &in[2], &t);
		/* per-channel: the bias is [2,O], its second row the channel shifts */
		const int32_t *d = in[2].t.rank == 2 ? (const int32_t *)in[2].data + in[2].t.dim[1] : NULL;
		int64_t lo = n->a.relu ? 0 : n->a.qlo;
		for (int64_t i = 0; i < e; i++) {
			int dc = d ? d[channel_of(&n->type, i)] : 0;
			uint32_t v = (uint32_t)((const int32_t *)t.data)[i];
			if (n->n_in > 3)
				v += (uint32_t)((const int8_t *)in[3].data)[i] << (n->a.res_shift + dc);
			((int8_t *)out->data)[i] = (int8_t)(d ? vc_requant_round((int32_t)v, n->a.shift + dc, lo, n->a.qhi)
							      : vc_requant_leaky((int32_t)v, n->a.shift, n->a.leaky, lo, n->a.qhi));
		}
		vc_tensor_free(&t);
		return 0;
	}
	case VC_OP_QADD:
		for (int64_t i = 0; i < e; i++) {
			int sh = n->a.res_shift + (n->n_in > 2 ? ((const int32_t *)in[2].data)[channel_of(&n->type, i)] : 0);
			((int32_t *)out->data)[i] =
				(int32_t)((uint32_t)((const int32_t *)x->data)[i] + ((uint32_t)((const int8_t *)in[1].data)[i] << sh));
		}
		return 0;
	default:
		return 1;
	}
}
