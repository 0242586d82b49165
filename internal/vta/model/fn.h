/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The element functions of the unary, binary and reduce nodes: one list for
 * the compiler's IR (attrs fn) and libvta, since a .vtam stores the number.
 * Append only: a function's number is part of the file format.
 */
#ifndef VTA_MODEL_FN_H
#define VTA_MODEL_FN_H

enum {
	/* unary: y = f(x), alpha and beta where the function takes them */
	VTA_FN_EXP, VTA_FN_LOG, VTA_FN_ABS, VTA_FN_NEG, VTA_FN_SQRT, VTA_FN_RECIPROCAL, VTA_FN_FLOOR, VTA_FN_CEIL,
	VTA_FN_ROUND, /* half to even */
	VTA_FN_SIGN, VTA_FN_ERF, VTA_FN_SIN, VTA_FN_COS, VTA_FN_TAN, VTA_FN_ASIN, VTA_FN_ACOS, VTA_FN_ATAN,
	VTA_FN_SINH, VTA_FN_COSH, VTA_FN_ASINH, VTA_FN_ACOSH, VTA_FN_ATANH, VTA_FN_TANH, VTA_FN_SOFTPLUS,
	VTA_FN_SOFTSIGN,
	VTA_FN_ELU,              /* x > 0 ? x : alpha (e^x - 1) */
	VTA_FN_SELU,             /* beta (x > 0 ? x : alpha (e^x - 1)) */
	VTA_FN_CELU,             /* max(0, x) + min(0, alpha (e^(x / alpha) - 1)) */
	VTA_FN_THRESHOLDED_RELU, /* x > alpha ? x : 0 */
	VTA_FN_MISH,             /* x tanh(softplus(x)) */
	VTA_FN_UNARY_END,
	/* binary, numpy broadcasting: y = a f b */
	VTA_FN_DIV = 64, VTA_FN_MAX, VTA_FN_MIN, VTA_FN_POW, VTA_FN_SUB,
	VTA_FN_BINARY_END,
	/* reductions over the axes of a mask */
	VTA_FN_SUM = 128, VTA_FN_MEAN, VTA_FN_RMAX, VTA_FN_RMIN, VTA_FN_PROD, VTA_FN_L1, VTA_FN_L2, VTA_FN_SUMSQUARE,
	VTA_FN_LOGSUM, VTA_FN_LOGSUMEXP,
	VTA_FN_REDUCE_END
};

#endif /* VTA_MODEL_FN_H */
