/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Convolutions, dense layers and matrix products on the host, and the int8
 * epilogues around them (hostgemm.h). A convolution is, per image, group
 * and tile of output pixels, an im2col column matrix [CG*KH*KW][tile] times
 * the group's weights [OG][CG*KH*KW]; the GEMM's inner loop runs along the
 * tile, contiguous in both the column and the output, so compilers
 * vectorize it. int8 products accumulate in uint32 (wrapping, like the
 * device's accumulator and the compiler's reference), so their order does
 * not matter and the results are bit-exact. Float results follow the
 * reference's order where it is a plain loop (depthwise, matmul,
 * batchnorm); its convolution and dense use OpenBLAS, so those agree to
 * rounding only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <vta/model/hostgemm.h>

/* Bounds of the checks: window sizes, strides, exponents (the compiler's
 * are far inside them), and the taps of one output (its column height). */
#define MAX_WINDOW (1 << 20)
#define MAX_EXP 1024
#define MAX_TAPS (1 << 22)
/* Bytes of a column tile: about the L2 cache. */
#define COL_BYTES (1 << 20)

int vta_hostgemm_op(uint32_t op)
{
	return vta_hostgemm_name(op) != NULL;
}

const char *vta_hostgemm_name(uint32_t op)
{
	switch (op) {
	case VTA_MOP_CONV: return "conv";
	case VTA_MOP_DENSE: return "dense";
	case VTA_MOP_MATMUL: return "matmul";
	case VTA_MOP_BATCHNORM: return "batchnorm";
	case VTA_MOP_QCONV: return "qconv";
	case VTA_MOP_QDENSE: return "qdense";
	case VTA_MOP_REQUANT: return "requant";
	case VTA_MOP_QCONV_RQ: return "qconv.rq";
	case VTA_MOP_QADD: return "qadd";
	default: return NULL;
	}
}

/* ---- rounding (the compiler's reference calls these) ------------------ */

int32_t vta_requant_value(int32_t acc, int shift, int64_t lo, int64_t hi)
{
	int32_t v = acc;
	if (shift > 15) { /* the rounding constant of a larger shift does not fit the 16-bit immediate */
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

int vta_leaky_fused(int shift, int leaky)
{
	return leaky > 0 && shift >= 1 && shift + leaky <= 15;
}

int32_t vta_bias_rounding(int shift, int leaky)
{
	return shift >= 1 && shift <= 15 && (!leaky || vta_leaky_fused(shift, leaky)) ? (int32_t)1 << (shift - 1) : 0;
}

int32_t vta_requant_leaky(int32_t acc, int shift, int leaky, int64_t lo, int64_t hi)
{
	if (!leaky)
		return vta_requant_value(acc, shift, lo, hi);
	if (vta_leaky_fused(shift, leaky)) { /* max(x, x << leaky) of the rounded sum, shifted once */
		uint32_t x = (uint32_t)acc + (1u << (shift - 1));
		uint32_t t = x << leaky;
		x += (1u << (shift + leaky - 1)) - (1u << (shift - 1));
		int32_t m = (int32_t)x < (int32_t)t ? (int32_t)t : (int32_t)x;
		int32_t v = m >> (shift + leaky);
		return v < lo ? (int32_t)lo : v > hi ? (int32_t)hi : v;
	}
	int32_t v = vta_requant_value(acc, shift, INT32_MIN, INT32_MAX);
	int32_t t = vta_requant_value(acc, shift + leaky, INT32_MIN, INT32_MAX);
	v = v < t ? t : v;
	return v < lo ? (int32_t)lo : v > hi ? (int32_t)hi : v;
}

int32_t vta_alu_shr(int32_t a, int32_t b)
{
	if (b >= 0)
		return a < 0 ? ~(~a >> (b & 31)) : a >> (b & 31);
	return (int32_t)((uint32_t)a << ((0u - (uint32_t)b) & 31));
}

int32_t vta_requant_round(int32_t acc, int s, int64_t lo, int64_t hi)
{
	uint32_t v = (uint32_t)acc + (s > 0 ? 1u << (s - 1) : 0u);
	int32_t r = vta_alu_shr((int32_t)v, s);
	return r < lo ? (int32_t)lo : r > hi ? (int32_t)hi : r;
}

/* ---- checks ------------------------------------------------------------ */

static int bad(vta_error_t *err, const vta_mnode_t *n, uint32_t i, const char *what)
{
	return vta_error_set(err, VTA_EINVAL, -1, "node %u ('%s', %s): %s", (unsigned)i, n->name,
			     vta_hostgemm_name(n->op), what);
}

static int plain(const vta_mtype_t *t, uint32_t dtype)
{
	return t->layout == 0 && t->dtype == dtype && t->exp >= -MAX_EXP && t->exp <= MAX_EXP;
}

static int32_t i32_at(const uint8_t *d, int64_t i)
{
	int32_t v;
	memcpy(&v, d + 4 * i, 4); /* constants in the file are not aligned */
	return v;
}

/* x [N][C][H][W] by weights w [O][C/group][KH][KW] into y: the shapes agree
 * and y's rows and columns are those the window, stride, dilation and
 * padding give (the compiler's pool_out), so every tap read is in x or in
 * the padding the loops test for. */
static int conv_shapes(const vta_mattrs_t *a, const vta_mtype_t *x, const vta_mtype_t *w, const vta_mtype_t *y)
{
	if (x->rank != 4 || w->rank != 4 || y->rank != 4 || a->group < 1 || a->group > MAX_WINDOW ||
	    x->dim[1] % a->group || w->dim[0] % a->group || x->dim[1] / a->group != w->dim[1] ||
	    y->dim[0] != x->dim[0] || y->dim[1] != w->dim[0] || w->dim[1] * w->dim[2] * w->dim[3] > MAX_TAPS)
		return 0;
	for (int k = 0; k < 2; k++) {
		int64_t s = a->stride[k], d = a->dilation[k], p0 = a->pad[k], p1 = a->pad[k + 2];
		if (s < 1 || s > MAX_WINDOW || d < 1 || d > MAX_WINDOW || p0 < 0 || p0 > MAX_WINDOW || p1 < 0 ||
		    p1 > MAX_WINDOW || w->dim[2 + k] < 1)
			return 0;
		int64_t span = d * (w->dim[2 + k] - 1) + 1, padded = x->dim[2 + k] + p0 + p1;
		if (padded < span || y->dim[2 + k] != (padded - span) / s + 1)
			return 0;
	}
	return 1;
}

/* x [N][I] by w [O][I] into y [N][O]. */
static int dense_shapes(const vta_mtype_t *x, const vta_mtype_t *w, const vta_mtype_t *y)
{
	return x->rank == 2 && w->rank == 2 && y->rank == 2 && x->dim[1] == w->dim[1] && y->dim[0] == x->dim[0] &&
	       y->dim[1] == w->dim[0];
}

/* Constant channel shifts c (int32 [C]), each d >= 0 with base + d in [lo, hi]. */
static int chan_shifts(const vta_mgraph_t *g, uint32_t c, int64_t C, int64_t base, int64_t lo, int64_t hi)
{
	const vta_mnode_t *s = &g->nodes[c];
	if (s->op != VTA_MOP_CONST || !s->data || !plain(&s->type, VTA_MDT_I32) || s->type.rank != 1 ||
	    s->type.dim[0] != C)
		return 0;
	for (int64_t k = 0; k < C; k++) {
		int64_t d = i32_at(s->data, k);
		if (d < 0 || base + d < lo || base + d > hi)
			return 0;
	}
	return 1;
}

/* The requantization of qconv.rq and requant: shift and leaky shift in the ALU's range. */
static int requant_ok(const vta_mattrs_t *a)
{
	return a->shift >= -31 && a->shift <= 31 && a->leaky >= 0 && a->leaky <= 15 && a->shift + a->leaky <= 31;
}

static int check_qconv_rq(const vta_mgraph_t *g, uint32_t i, vta_error_t *err)
{
	const vta_mnode_t *n = &g->nodes[i];
	const vta_mtype_t *x = &g->nodes[n->in[0]].type, *w = &g->nodes[n->in[1]].type, *b = &g->nodes[n->in[2]].type;
	const vta_mtype_t *y = &n->type;
	if (!plain(x, VTA_MDT_I8) || !plain(w, VTA_MDT_I8) || !plain(y, VTA_MDT_I8) ||
	    !(x->rank == 4 ? conv_shapes(&n->a, x, w, y) : dense_shapes(x, w, y)))
		return bad(err, n, i, "needs int8 data, weights and result of a convolution's or dense layer's shapes");
	if (!requant_ok(&n->a))
		return bad(err, n, i, "shift or leaky shift outside the ALU's range");
	int64_t O = w->dim[0];
	int pc = b->rank == 2;
	if (!plain(b, VTA_MDT_I32) || !(b->rank == 1 || (pc && b->dim[0] == 2)) || b->dim[b->rank - 1] != O)
		return bad(err, n, i, "needs an int32 bias [O] or [2,O]");
	const vta_mnode_t *bn = &g->nodes[n->in[2]];
	int64_t rs = n->n_in > 3 ? (int64_t)g->nodes[n->in[3]].type.exp - (x->exp + w->exp) : 0;
	if (n->n_in > 3 && (!plain(&g->nodes[n->in[3]].type, VTA_MDT_I8) || !vta_mtype_same_dims(&g->nodes[n->in[3]].type, y) ||
			    rs < 0 || rs > 24))
		return bad(err, n, i, "needs an int8 residual of the result's shape at a shift in [0,24]");
	if (pc) { /* the second row: the channel shifts, added to the shift and to the residual's */
		if (bn->op != VTA_MOP_CONST || !bn->data)
			return bad(err, n, i, "per-channel shifts that are not a constant");
		for (int64_t c = 0; c < O; c++) {
			int64_t d = i32_at(bn->data, O + c);
			if (d < 0 || n->a.shift + d > 31 || (n->n_in > 3 && rs + d > 24))
				return bad(err, n, i, "a channel shift out of range");
		}
	}
	return 0;
}

static int check_int8(const vta_mgraph_t *g, uint32_t i, vta_error_t *err)
{
	const vta_mnode_t *n = &g->nodes[i];
	const vta_mtype_t *x = &g->nodes[n->in[0]].type, *y = &n->type;
	const vta_mtype_t *r = n->n_in > 1 ? &g->nodes[n->in[1]].type : NULL;
	switch (n->op) {
	case VTA_MOP_QCONV:
	case VTA_MOP_QDENSE: {
		int conv = n->op == VTA_MOP_QCONV;
		if (!plain(x, VTA_MDT_I8) || !plain(r, VTA_MDT_I8) || !plain(y, VTA_MDT_I32) ||
		    !(conv ? conv_shapes(&n->a, x, r, y) : dense_shapes(x, r, y)))
			return bad(err, n, i, "needs int8 data and weights, an int32 result, of matching shapes");
		const vta_mtype_t *b = n->n_in > 2 ? &g->nodes[n->in[2]].type : NULL;
		if (b && (!plain(b, VTA_MDT_I32) || vta_mtype_elems(b) != r->dim[0] || (conv && b->rank != 1)))
			return bad(err, n, i, "needs an int32 bias of one entry per output channel");
		return 0;
	}
	case VTA_MOP_QCONV_RQ:
		return check_qconv_rq(g, i, err);
	case VTA_MOP_REQUANT:
		if (!plain(x, VTA_MDT_I32) || !plain(y, VTA_MDT_I8) || !vta_mtype_same_dims(x, y) || !requant_ok(&n->a))
			return bad(err, n, i, "needs int32 in, int8 out of one shape and a shift in the ALU's range");
		if (r && (x->rank < 2 || !chan_shifts(g, n->in[1], x->dim[1], n->a.shift, -31, 31)))
			return bad(err, n, i, "needs constant int32 channel shifts [C] with shifts in [-31,31]");
		return 0;
	case VTA_MOP_QADD: {
		int64_t rs = (int64_t)r->exp - x->exp;
		if (!plain(x, VTA_MDT_I32) || !plain(r, VTA_MDT_I8) || !plain(y, VTA_MDT_I32) || !vta_mtype_same_dims(x, r) ||
		    !vta_mtype_same_dims(x, y) || rs < 0 || rs > 24)
			return bad(err, n, i, "needs an int32 accumulator and an int8 residual of one shape, a shift in [0,24]");
		if (n->n_in > 2 && (x->rank < 2 || !chan_shifts(g, n->in[2], x->dim[1], rs, 0, 24)))
			return bad(err, n, i, "needs constant int32 channel shifts [C] with residual shifts in [0,24]");
		return 0;
	}
	default:
		return bad(err, n, i, "unexpected op");
	}
}

int vta_hostgemm_check(const vta_mgraph_t *g, uint32_t i, vta_error_t *err)
{
	const vta_mnode_t *n = &g->nodes[i];
	static const int lo_in[] = {[VTA_MOP_CONV] = 2, [VTA_MOP_DENSE] = 2, [VTA_MOP_MATMUL] = 2, [VTA_MOP_BATCHNORM] = 5,
				    [VTA_MOP_QCONV] = 2, [VTA_MOP_QDENSE] = 2, [VTA_MOP_REQUANT] = 1, [VTA_MOP_QCONV_RQ] = 3,
				    [VTA_MOP_QADD] = 2};
	static const int hi_in[] = {[VTA_MOP_CONV] = 3, [VTA_MOP_DENSE] = 3, [VTA_MOP_MATMUL] = 2, [VTA_MOP_BATCHNORM] = 5,
				    [VTA_MOP_QCONV] = 3, [VTA_MOP_QDENSE] = 3, [VTA_MOP_REQUANT] = 2, [VTA_MOP_QCONV_RQ] = 4,
				    [VTA_MOP_QADD] = 3};
	if (n->n_in < lo_in[n->op] || n->n_in > hi_in[n->op])
		return bad(err, n, i, "wrong number of operands");
	const vta_mtype_t *x = &g->nodes[n->in[0]].type, *w = &g->nodes[n->in[1 % n->n_in]].type, *y = &n->type;
	const vta_mtype_t *b = n->n_in > 2 ? &g->nodes[n->in[2]].type : NULL;
	switch (n->op) {
	case VTA_MOP_CONV:
	case VTA_MOP_DENSE: {
		int conv = n->op == VTA_MOP_CONV;
		if (!plain(x, VTA_MDT_F32) || !plain(w, VTA_MDT_F32) || !plain(y, VTA_MDT_F32) ||
		    !(conv ? conv_shapes(&n->a, x, w, y) : dense_shapes(x, w, y)))
			return bad(err, n, i, "needs float data, weights and result of matching shapes");
		if (b && (!plain(b, VTA_MDT_F32) || vta_mtype_elems(b) != w->dim[0] || (conv && b->rank != 1)))
			return bad(err, n, i, "needs a float bias of one entry per output channel");
		return 0;
	}
	case VTA_MOP_MATMUL: {
		int r = x->rank, ok = r >= 2 && w->rank == r && y->rank == r && plain(x, VTA_MDT_F32) &&
				      plain(w, VTA_MDT_F32) && plain(y, VTA_MDT_F32);
		for (int k = 0; ok && k + 2 < r; k++)
			ok = x->dim[k] == w->dim[k] && y->dim[k] == x->dim[k];
		ok = ok && x->dim[r - 1] == w->dim[r - 2] && y->dim[r - 2] == x->dim[r - 2] && y->dim[r - 1] == w->dim[r - 1];
		return ok ? 0 : bad(err, n, i, "needs float operands [..][M][K] and [..][K][N] and a result [..][M][N]");
	}
	case VTA_MOP_BATCHNORM: {
		int ok = x->rank >= 2 && plain(x, VTA_MDT_F32) && plain(y, VTA_MDT_F32) && vta_mtype_same_dims(x, y);
		for (int k = 1; ok && k < 5; k++)
			ok = plain(&g->nodes[n->in[k]].type, VTA_MDT_F32) &&
			     vta_mtype_elems(&g->nodes[n->in[k]].type) == x->dim[1];
		return ok ? 0 : bad(err, n, i, "needs float data of rank 2 or more and four float [C] parameters");
	}
	default:
		return check_int8(g, i, err);
	}
}

/* ---- kernels ----------------------------------------------------------- */

typedef struct conv_geom {
	int64_t N, C, H, W, O, CG, KH, KW, OH, OW, G, OG, P, K;
	int64_t sh, sw, ph, pw, dh, dw;
} conv_geom;

static conv_geom geom(const vta_mattrs_t *a, const vta_mtype_t *x, const vta_mtype_t *w, const vta_mtype_t *y)
{
	conv_geom c = {x->dim[0], x->dim[1], x->dim[2], x->dim[3], w->dim[0], w->dim[1], w->dim[2], w->dim[3],
		       y->dim[2], y->dim[3], a->group, w->dim[0] / a->group, 0, 0,
		       a->stride[0], a->stride[1], a->pad[0], a->pad[1], a->dilation[0], a->dilation[1]};
	c.P = c.OH * c.OW;
	c.K = c.CG * c.KH * c.KW;
	return c;
}

/* Rows of the column matrix for output pixels p0 .. p0+pt of the channels
 * of x from xc (es-byte elements): row (c, kh, kw), column p the tap's
 * input value, 0 in the padding. Stride-1 rows are copies. */
static void im2col(const conv_geom *g, const uint8_t *xc, size_t es, int64_t p0, int64_t pt, uint8_t *col)
{
	for (int64_t c = 0; c < g->CG; c++)
		for (int64_t kh = 0; kh < g->KH; kh++)
			for (int64_t kw = 0; kw < g->KW; kw++) {
				uint8_t *row = col + (size_t)(((c * g->KH + kh) * g->KW + kw) * pt) * es;
				int64_t p = p0;
				while (p < p0 + pt) {
					int64_t oh = p / g->OW, ow = p % g->OW, n = g->OW - ow;
					n = n < p0 + pt - p ? n : p0 + pt - p;
					int64_t ih = oh * g->sh - g->ph + kh * g->dh, iw0 = ow * g->sw - g->pw + kw * g->dw;
					uint8_t *out = row + (size_t)(p - p0) * es;
					if (ih < 0 || ih >= g->H) {
						memset(out, 0, (size_t)n * es);
					} else {
						const uint8_t *src = xc + (size_t)((c * g->H + ih) * g->W) * es;
						/* the columns q of this run whose input column lies inside */
						int64_t qa = iw0 >= 0 ? 0 : (-iw0 + g->sw - 1) / g->sw;
						int64_t qb = iw0 >= g->W ? 0 : (g->W - 1 - iw0) / g->sw + 1;
						qa = qa < n ? qa : n, qb = qb < n ? qb : n, qb = qb > qa ? qb : qa;
						memset(out, 0, (size_t)qa * es);
						if (g->sw == 1 && qb > qa)
							memcpy(out + (size_t)qa * es, src + (size_t)(iw0 + qa) * es,
							       (size_t)(qb - qa) * es);
						else if (g->sw > 1 && es == 1)
							for (int64_t q = qa; q < qb; q++)
								out[q] = src[iw0 + q * g->sw];
						else if (g->sw > 1)
							for (int64_t q = qa; q < qb; q++)
								memcpy(out + q * 4, src + (iw0 + q * g->sw) * 4, 4);
						memset(out + (size_t)qb * es, 0, (size_t)(n - qb) * es);
					}
					p += n;
				}
			}
}

/* y0..y3[0..n) += w0..w3 * c[0..n): four output rows at a time, so each
 * column row is loaded and widened once for four (|w * x| <= 2^14: int16
 * products, summed into wrapping uint32). Parameters, so that restrict
 * lets the compiler vectorize without alias checks. */
static void axpy4_i8(int64_t n, const int16_t *w, const int8_t *restrict c, uint32_t *restrict y0,
		     uint32_t *restrict y1, uint32_t *restrict y2, uint32_t *restrict y3)
{
	int16_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
	for (int64_t p = 0; p < n; p++) {
		int16_t v = c[p];
		y0[p] += (uint32_t)(int32_t)(int16_t)(w0 * v);
		y1[p] += (uint32_t)(int32_t)(int16_t)(w1 * v);
		y2[p] += (uint32_t)(int32_t)(int16_t)(w2 * v);
		y3[p] += (uint32_t)(int32_t)(int16_t)(w3 * v);
	}
}

static void axpy_i8(int64_t n, int16_t w, const int8_t *restrict c, uint32_t *restrict y)
{
	for (int64_t p = 0; p < n; p++)
		y[p] += (uint32_t)(int32_t)(int16_t)(w * c[p]);
}

static void axpy4_f32(int64_t n, const float *w, const float *restrict c, float *restrict y0, float *restrict y1,
		      float *restrict y2, float *restrict y3)
{
	float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
	for (int64_t p = 0; p < n; p++) {
		float v = c[p];
		y0[p] += w0 * v;
		y1[p] += w1 * v;
		y2[p] += w2 * v;
		y3[p] += w3 * v;
	}
}

static void axpy_f32(int64_t n, float w, const float *restrict c, float *restrict y)
{
	for (int64_t p = 0; p < n; p++)
		y[p] += w * c[p];
}

/* acc[o][0..pt) (row stride ldy) += w[o][k] * col[k][0..pt) (row stride
 * ldc): int8 into uint32 (i8), else float, each output summed along k in
 * order; four output rows at a time. */
static void gemm(int i8, int64_t OG, int64_t K, int64_t pt, const void *w, const void *col, int64_t ldc, void *acc,
		 int64_t ldy)
{
	const int8_t *wb = w, *cb = col;
	const float *wf = w, *cf = col;
	uint32_t *yb = acc;
	float *yf = acc;
	for (int64_t o = 0; o < OG; o += 4) {
		for (int64_t k = 0; k < K; k++) {
			int64_t wo = o * K + k, co = k * ldc, r = o * ldy;
			if (o + 4 > OG) /* the last rows, one at a time */
				for (int64_t q = o; q < OG; q++)
					if (i8)
						axpy_i8(pt, wb[q * K + k], cb + co, yb + q * ldy);
					else
						axpy_f32(pt, wf[q * K + k], cf + co, yf + q * ldy);
			else if (i8) {
				int16_t wk[4] = {wb[wo], wb[wo + K], wb[wo + 2 * K], wb[wo + 3 * K]};
				axpy4_i8(pt, wk, cb + co, yb + r, yb + r + ldy, yb + r + 2 * ldy, yb + r + 3 * ldy);
			} else {
				float wk[4] = {wf[wo], wf[wo + K], wf[wo + 2 * K], wf[wo + 3 * K]};
				axpy4_f32(pt, wk, cf + co, yf + r, yf + r + ldy, yf + r + 2 * ldy, yf + r + 3 * ldy);
			}
		}
	}
}

/* The output columns [*q0, *q1) whose tap kw reads inside the row (0 <= iw < W). */
static void tap_columns(const conv_geom *g, int64_t kw, int64_t *q0, int64_t *q1)
{
	int64_t iw0 = kw * g->dw - g->pw; /* the input column of output column 0 */
	int64_t a = iw0 >= 0 ? 0 : (-iw0 + g->sw - 1) / g->sw, b = iw0 >= g->W ? 0 : (g->W - 1 - iw0) / g->sw + 1;
	*q0 = a < g->OW ? a : g->OW;
	*q1 = b < g->OW ? b : g->OW;
	*q1 = *q1 > *q0 ? *q1 : *q0;
}

/* One tap over one output row, columns [q0, q1): y[q] += w * x[iw0 + q * sw]
 * (x the input row; iw0 + q0 * sw >= 0). */
static void tap_row_i8(int64_t q0, int64_t q1, int64_t iw0, int64_t sw, int16_t w, const int8_t *restrict x,
		       uint32_t *restrict y)
{
	if (sw == 1) /* contiguous: vectorized */
		for (int64_t q = q0; q < q1; q++)
			y[q] += (uint32_t)(int32_t)(int16_t)(w * x[iw0 + q]);
	else
		for (int64_t q = q0; q < q1; q++)
			y[q] += (uint32_t)(int32_t)(int16_t)(w * x[iw0 + q * sw]);
}

static void tap_row_f32(int64_t q0, int64_t q1, int64_t iw0, int64_t sw, float w, const float *restrict x,
			float *restrict y)
{
	for (int64_t q = q0; q < q1; q++)
		y[q] += w * x[iw0 + q * sw];
}

/* Depthwise (one input channel a group): tap by tap over whole output rows,
 * the float sums in the reference's order; the columns a tap reads inside
 * the row found once, so the inner loop has no test. */
static void depthwise(const conv_geom *g, int i8, const void *x, const void *w, void *y)
{
	for (int64_t nc = 0; nc < g->N * g->C; nc++)
		for (int64_t kh = 0; kh < g->KH; kh++)
			for (int64_t kw = 0; kw < g->KW; kw++) {
				int64_t q0, q1, iw0 = kw * g->dw - g->pw, t = (nc % g->C * g->KH + kh) * g->KW + kw;
				tap_columns(g, kw, &q0, &q1);
				for (int64_t oh = 0; oh < g->OH; oh++) {
					int64_t ih = oh * g->sh - g->ph + kh * g->dh;
					if (ih < 0 || ih >= g->H)
						continue;
					int64_t xo = (nc * g->H + ih) * g->W, yo = nc * g->P + oh * g->OW;
					if (i8)
						tap_row_i8(q0, q1, iw0, g->sw, ((const int8_t *)w)[t], (const int8_t *)x + xo,
							   (uint32_t *)y + yo);
					else
						tap_row_f32(q0, q1, iw0, g->sw, ((const float *)w)[t], (const float *)x + xo,
							    (float *)y + yo);
				}
			}
}

/*
 * y (int32 for int8 data, else float, [N][O][OH][OW]) = bias + conv(x, w).
 * A 1x1, stride-1, unpadded convolution multiplies x directly; otherwise the
 * column matrix is built tile by tile (COL_BYTES). VTA_ENOMEM without it.
 */
static int conv(const vta_mattrs_t *a, const vta_mval_t *x, const vta_mval_t *w, const vta_mval_t *b, vta_mval_t *y)
{
	conv_geom g = geom(a, x->t, w->t, y->t);
	int i8 = x->t->dtype == VTA_MDT_I8;
	size_t es = i8 ? 1 : 4;
	for (int64_t o = 0; o < g.N * g.O; o++) /* the bias first: the sums wrap, or the reference adds it first */
		for (int64_t p = 0; p < g.P; p++) {
			if (i8)
				((int32_t *)y->data)[o * g.P + p] = b ? ((const int32_t *)b->data)[o % g.O] : 0;
			else
				((float *)y->data)[o * g.P + p] = b ? ((const float *)b->data)[o % g.O] : 0.0f;
		}
	if (g.CG == 1 && g.OG == 1) {
		depthwise(&g, i8, x->data, w->data, y->data);
		return 0;
	}
	int direct = g.KH == 1 && g.KW == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 && g.OH == g.H &&
		     g.OW == g.W;
	int64_t pt = direct ? g.P : COL_BYTES / (int64_t)es / (g.K ? g.K : 1);
	pt = pt < 64 ? 64 : pt > g.P ? g.P : pt;
	uint8_t *col = direct || !g.P ? NULL : malloc((size_t)(g.K * pt) * es + 1); /* + 1: no channels, K 0 */
	if (!direct && g.P && !col)
		return VTA_ENOMEM;
	for (int64_t n = 0; n < g.N; n++)
		for (int64_t gr = 0; gr < g.G; gr++) {
			const uint8_t *xg = (const uint8_t *)x->data + (size_t)((n * g.C + gr * g.CG) * g.H * g.W) * es;
			int64_t yo = (n * g.O + gr * g.OG) * g.P, wo = gr * g.OG * g.K;
			for (int64_t p0 = 0; p0 < g.P; p0 += pt) {
				int64_t m = g.P - p0 < pt ? g.P - p0 : pt;
				const uint8_t *c = direct ? xg + (size_t)p0 * es : col;
				if (!direct)
					im2col(&g, xg, es, p0, m, col);
				gemm(i8, g.OG, g.K, m, (const uint8_t *)w->data + (size_t)wo * es, c, direct ? g.P : m,
				     (uint8_t *)y->data + (size_t)(yo + p0) * 4, g.P);
			}
		}
	free(col);
	return 0;
}

/* y [N][O] = bias + x [N][I] . w [O][I]^T: dot products along I. */
static void dense(const vta_mval_t *x, const vta_mval_t *w, const vta_mval_t *b, vta_mval_t *y)
{
	int64_t N = x->t->dim[0], I = x->t->dim[1], O = w->t->dim[0];
	for (int64_t n = 0; n < N; n++)
		for (int64_t o = 0; o < O; o++) {
			if (x->t->dtype == VTA_MDT_I8) {
				const int8_t *restrict xv = (const int8_t *)x->data + n * I, *restrict wv = (const int8_t *)w->data + o * I;
				uint32_t s = b ? (uint32_t)((const int32_t *)b->data)[o] : 0;
				for (int64_t i = 0; i < I; i++)
					s += (uint32_t)(int32_t)(int16_t)(xv[i] * wv[i]);
				((int32_t *)y->data)[n * O + o] = (int32_t)s;
				continue;
			}
			const float *restrict xv = (const float *)x->data + n * I, *restrict wv = (const float *)w->data + o * I;
			float s[8] = {0}; /* eight partial sums: a vector of them */
			int64_t i = 0;
			for (; i + 8 <= I; i += 8)
				for (int k = 0; k < 8; k++)
					s[k] += xv[i + k] * wv[i + k];
			for (; i < I; i++)
				s[0] += xv[i] * wv[i];
			float t = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
			((float *)y->data)[n * O + o] = (b ? ((const float *)b->data)[o] : 0.0f) + t;
		}
}

/* y [..][M][N] = a [..][M][K] . b [..][K][N], in double along k as the reference. */
static int matmul(const vta_mval_t *a, const vta_mval_t *b, vta_mval_t *y)
{
	int r = a->t->rank;
	int64_t M = a->t->dim[r - 2], K = a->t->dim[r - 1], N = b->t->dim[r - 1], batch = 1;
	for (int i = 0; i + 2 < r; i++)
		batch *= a->t->dim[i];
	double *acc = malloc((size_t)(N ? N : 1) * sizeof *acc);
	if (!acc)
		return VTA_ENOMEM;
	const float *ad = a->data, *bd = b->data;
	float *yd = y->data;
	for (int64_t z = 0; z < batch; z++)
		for (int64_t i = 0; i < M; i++) {
			for (int64_t j = 0; j < N; j++)
				acc[j] = 0;
			for (int64_t k = 0; k < K; k++) {
				double av = ad[(z * M + i) * K + k];
				const float *restrict br = bd + (z * K + k) * N;
				for (int64_t j = 0; j < N; j++)
					acc[j] += av * br[j];
			}
			for (int64_t j = 0; j < N; j++)
				yd[(z * M + i) * N + j] = (float)acc[j];
		}
	free(acc);
	return 0;
}

void vta_batchnorm_f32(const vta_mtype_t *t, const float *x, const float *sc, const float *bi, const float *mu,
		       const float *var, double eps, float *y)
{
	int64_t N = t->dim[0], C = t->dim[1], S = N && C ? vta_mtype_elems(t) / (N * C) : 0;
	for (int64_t a = 0; a < N; a++)
		for (int64_t c = 0; c < C; c++) {
			double k = sc[c] / sqrt((double)var[c] + eps);
			for (int64_t s = 0; s < S; s++) {
				int64_t i = (a * C + c) * S + s;
				y[i] = (float)((x[i] - mu[c]) * k + bi[c]);
			}
		}
}

/* Elements of t per channel (dimension 1), for the channel of a flat index. */
static int64_t plane_of(const vta_mtype_t *t)
{
	int64_t inner = 1;
	for (int k = 2; k < t->rank; k++)
		inner *= t->dim[k];
	return inner ? inner : 1;
}

/* qconv.rq: the convolution or dense layer into int32, [+ residual], requantized. */
static int qconv_rq(const vta_mnode_t *n, const vta_mval_t *in, vta_mval_t *y)
{
	int64_t e = vta_mtype_elems(y->t), inner = plane_of(y->t), C = y->t->dim[1];
	vta_mtype_t at = *y->t;
	at.dtype = VTA_MDT_I32;
	vta_mval_t acc = {&at, malloc((size_t)(e ? e : 1) * 4), 1};
	if (!acc.data)
		return VTA_ENOMEM;
	int rc = 0;
	if (in[0].t->rank == 4)
		rc = conv(&n->a, &in[0], &in[1], &in[2], &acc);
	else
		dense(&in[0], &in[1], &in[2], &acc);
	/* per-channel: the bias is [2,O], its second row the channel shifts */
	const int32_t *d = in[2].t->rank == 2 ? (const int32_t *)in[2].data + in[2].t->dim[1] : NULL;
	int rs = n->n_in > 3 ? in[3].t->exp - (in[0].t->exp + in[1].t->exp) : 0;
	int64_t lo = n->a.relu ? 0 : n->a.qlo;
	const uint32_t *av = acc.data;
	for (int64_t i = 0; !rc && i < e; i++) {
		int dc = d ? d[(i / inner) % C] : 0;
		uint32_t v = av[i];
		if (n->n_in > 3)
			v += (uint32_t)((const int8_t *)in[3].data)[i] << (rs + dc);
		((int8_t *)y->data)[i] = (int8_t)(d ? vta_requant_round((int32_t)v, n->a.shift + dc, lo, n->a.qhi)
						    : vta_requant_leaky((int32_t)v, n->a.shift, n->a.leaky, lo, n->a.qhi));
	}
	free(acc.data);
	return rc;
}

int vta_hostgemm_run(const vta_mnode_t *n, const vta_mval_t *in, vta_mval_t *y)
{
	const vta_mval_t *b = n->n_in > 2 ? &in[2] : NULL;
	int64_t e = vta_mtype_elems(y->t), inner = plane_of(y->t), C = y->t->rank >= 2 ? y->t->dim[1] : 1;
	switch (n->op) {
	case VTA_MOP_CONV:
	case VTA_MOP_QCONV:
		return conv(&n->a, &in[0], &in[1], b, y);
	case VTA_MOP_DENSE:
	case VTA_MOP_QDENSE:
		dense(&in[0], &in[1], b, y);
		return 0;
	case VTA_MOP_MATMUL:
		return matmul(&in[0], &in[1], y);
	case VTA_MOP_BATCHNORM:
		vta_batchnorm_f32(in[0].t, in[0].data, in[1].data, in[2].data, in[3].data, in[4].data, n->a.eps, y->data);
		return 0;
	case VTA_MOP_QCONV_RQ:
		return qconv_rq(n, in, y);
	case VTA_MOP_REQUANT: {
		const int32_t *x = in[0].data, *d = n->n_in > 1 ? in[1].data : NULL;
		int64_t lo = n->a.relu ? 0 : n->a.qlo;
		for (int64_t i = 0; i < e; i++)
			((int8_t *)y->data)[i] = (int8_t)(d ? vta_requant_round(x[i], n->a.shift + d[(i / inner) % C], lo, n->a.qhi)
							    : vta_requant_leaky(x[i], n->a.shift, n->a.leaky, lo, n->a.qhi));
		return 0;
	}
	case VTA_MOP_QADD: {
		const int32_t *x = in[0].data, *d = n->n_in > 2 ? in[2].data : NULL;
		const int8_t *r = in[1].data;
		int rs = in[1].t->exp - in[0].t->exp;
		for (int64_t i = 0; i < e; i++)
			((int32_t *)y->data)[i] =
				(int32_t)((uint32_t)x[i] + ((uint32_t)r[i] << (rs + (d ? d[(i / inner) % C] : 0))));
		return 0;
	}
	default:
		return VTA_EINVAL;
	}
}
