/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The element functions of a compiled model's unary, binary and reduce
 * nodes (<vta/model/fn.h>): float on the host, computed in double and
 * rounded once to float, as the ONNX definitions state them.
 */
#include <math.h>
#include <stdlib.h>

#include <vta/model/fn.h>
#include <vta/model/hostops.h>

static double softplus(double x)
{
	return x > 30 ? x : log1p(exp(x)); /* past 30, exp(x) swamps the 1 */
}

static double unary(int fn, double x, double alpha, double beta)
{
	switch (fn) {
	case VTA_FN_EXP: return exp(x);
	case VTA_FN_LOG: return log(x);
	case VTA_FN_ABS: return fabs(x);
	case VTA_FN_NEG: return -x;
	case VTA_FN_SQRT: return sqrt(x);
	case VTA_FN_RECIPROCAL: return 1.0 / x;
	case VTA_FN_FLOOR: return floor(x);
	case VTA_FN_CEIL: return ceil(x);
	case VTA_FN_ROUND: return nearbyint(x); /* the default mode: half to even */
	case VTA_FN_SIGN: return x > 0 ? 1.0 : x < 0 ? -1.0 : x;
	case VTA_FN_ERF: return erf(x);
	case VTA_FN_SIN: return sin(x);
	case VTA_FN_COS: return cos(x);
	case VTA_FN_TAN: return tan(x);
	case VTA_FN_ASIN: return asin(x);
	case VTA_FN_ACOS: return acos(x);
	case VTA_FN_ATAN: return atan(x);
	case VTA_FN_SINH: return sinh(x);
	case VTA_FN_COSH: return cosh(x);
	case VTA_FN_ASINH: return asinh(x);
	case VTA_FN_ACOSH: return acosh(x);
	case VTA_FN_ATANH: return atanh(x);
	case VTA_FN_TANH: return tanh(x);
	case VTA_FN_SOFTPLUS: return softplus(x);
	case VTA_FN_SOFTSIGN: return x / (1.0 + fabs(x));
	case VTA_FN_ELU: return x > 0 ? x : alpha * expm1(x);
	case VTA_FN_SELU: return beta * (x > 0 ? x : alpha * expm1(x));
	case VTA_FN_CELU: return fmax(0.0, x) + fmin(0.0, alpha * expm1(x / alpha));
	case VTA_FN_THRESHOLDED_RELU: return x > alpha ? x : 0.0;
	default: return x * tanh(softplus(x)); /* VTA_FN_MISH */
	}
}

void vta_unary_f32(int fn, double alpha, double beta, const float *x, float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		y[i] = (float)unary(fn, x[i], alpha, beta);
}

double vta_binary_value(int fn, double a, double b)
{
	switch (fn) {
	case VTA_FN_DIV: return a / b;
	case VTA_FN_MAX: return a != a || b != b ? NAN : fmax(a, b); /* NaN propagates, as in ONNX Max */
	case VTA_FN_MIN: return a != a || b != b ? NAN : fmin(a, b);
	case VTA_FN_POW: return pow(a, b);
	default: return a - b; /* VTA_FN_SUB */
	}
}

/* The start value of a reduction and one step of it. */
static double reduce_start(int fn)
{
	switch (fn) {
	case VTA_FN_RMAX: return -INFINITY;
	case VTA_FN_RMIN: return INFINITY;
	case VTA_FN_PROD: return 1.0;
	default: return 0.0;
	}
}

static double reduce_step(int fn, double acc, double v, double shift)
{
	switch (fn) {
	case VTA_FN_RMAX: return v > acc || v != v ? v : acc;
	case VTA_FN_RMIN: return v < acc || v != v ? v : acc;
	case VTA_FN_PROD: return acc * v;
	case VTA_FN_L1: return acc + fabs(v);
	case VTA_FN_L2:
	case VTA_FN_SUMSQUARE: return acc + v * v;
	case VTA_FN_LOGSUMEXP: return acc + exp(v - shift);
	default: return acc + v; /* SUM, MEAN, LOGSUM */
	}
}

static double reduce_end(int fn, double acc, int64_t count, double shift)
{
	switch (fn) {
	case VTA_FN_MEAN: return count ? acc / (double)count : NAN;
	case VTA_FN_L2: return sqrt(acc);
	case VTA_FN_LOGSUM: return log(acc);
	case VTA_FN_LOGSUMEXP: return shift + log(acc);
	default: return acc;
	}
}

int vta_reduce_f32(int fn, int axes, const vta_mtype_t *xt, const float *x, float *y)
{
	/* the output index of every input element: the kept dimensions' */
	int64_t n = vta_mtype_elems(xt), out = 1;
	for (int d = 0; d < xt->rank; d++)
		out *= axes >> d & 1 ? 1 : xt->dim[d];
	int64_t *at = malloc((size_t)(n ? n : 1) * sizeof *at), count = out ? n / out : 0;
	double *acc = malloc((size_t)(out ? out : 1) * 2 * sizeof *acc), *shift = acc + out;
	if (!at || !acc) {
		free(at);
		free(acc);
		return VTA_ENOMEM;
	}
	for (int64_t i = 0; i < n; i++) {
		int64_t rest = i, o = 0, stride = 1;
		for (int d = xt->rank - 1; d >= 0; d--) {
			int64_t c = rest % xt->dim[d];
			rest /= xt->dim[d];
			if (!(axes >> d & 1)) {
				o += c * stride;
				stride *= xt->dim[d];
			}
		}
		at[i] = o;
	}
	/* log-sum-exp: shifted by the largest value, so exp cannot overflow */
	for (int64_t o = 0; o < out; o++)
		acc[o] = reduce_start(fn), shift[o] = fn == VTA_FN_LOGSUMEXP ? -INFINITY : 0.0;
	if (fn == VTA_FN_LOGSUMEXP) {
		for (int64_t i = 0; i < n; i++)
			shift[at[i]] = fmax(shift[at[i]], x[i]);
		for (int64_t o = 0; o < out; o++)
			shift[o] = isfinite(shift[o]) ? shift[o] : 0.0;
	}
	for (int64_t i = 0; i < n; i++)
		acc[at[i]] = reduce_step(fn, acc[at[i]], x[i], shift[at[i]]);
	for (int64_t o = 0; o < out; o++)
		y[o] = (float)reduce_end(fn, acc[o], count, shift[o]);
	free(at);
	free(acc);
	return 0;
}
