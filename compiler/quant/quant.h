/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Quantization: the compiler's own int8 with power-of-two scales.
 *
 *   calibrate.c  runs the float graph on the calibration samples (value
 *                ranges and histograms) and chooses exponents by the max,
 *                percentile or MSE method
 *   quantize.c   the quantize pass: conv/dense -> qconv/qdense + requant with
 *                per-output-channel weight exponents, residual adds on the
 *                accumulator, relu/clip/maxpool/reshape kept integer
 */
#ifndef VC_QUANT_H
#define VC_QUANT_H

#include "exec/exec.h"
#include "pass/pass.h"

extern const vc_pass_desc vc_pass_quantize;

typedef enum vc_calib_method { VC_CALIB_MAX, VC_CALIB_PERCENTILE, VC_CALIB_MSE } vc_calib_method;

typedef struct vc_calib_opts {
	vc_calib_method method;
	double percentile; /* for VC_CALIB_PERCENTILE, e.g. 99.99 */
} vc_calib_opts;

/* The smallest exponent e with 127 * 2^e >= r (0 for r <= 0). */
int vc_exp_for(double r);
/* Run the first `want` (all if <= 0) calibration samples of m through its
 * float graph into rng[node id] (histograms where rng[].hist is set).
 * Without samples: -1 with a message that says how to calibrate. */
int vc_calibrate(vc_module *m, int want, vc_range *rng, int *used);
/* The exponent for a value with statistics r as its consumer keeps it: only
 * the positive side (after a relu or a clip with lo >= 0), magnitudes up to
 * limit (a clip's bound; INFINITY for none). */
int vc_choose_exp(const vc_range *r, const vc_calib_opts *o, int positive, double limit);
/* The same as a step (real = q * step): `levels` steps on the side kept
 * (127 signed, 255 unsigned); with m > 0 the step is m * 2^e for an integer
 * e, with m = 0 any positive number (vc_choose_exp is levels 127, m 1). */
double vc_choose_step(const vc_range *r, const vc_calib_opts *o, int positive, double limit, int levels, double m);
/* The exponent of n weights w[0], w[stride], ...: by max, or (method MSE)
 * the one of max's and the three below it with the least squared error. */
int vc_weight_exp(const float *w, int64_t n, int64_t stride, int method);

#endif /* VC_QUANT_H */
