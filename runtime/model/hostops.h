/* SPDX-License-Identifier: Apache-2.0 */
/* The host ops of a compiled model (hostops.c); internal to libvta, and
 * the compiler's references call the shared ones (the compiler may call the
 * runtime, never the reverse). */
#ifndef VTA_MODEL_HOSTOPS_H
#define VTA_MODEL_HOSTOPS_H

#include "graph.h"

/* A value during a run: its type (the producing node's) and data. */
typedef struct vta_mval {
	const vta_mtype_t *t;
	void *data;
	int owned;
} vta_mval_t;

/* The op's name, or NULL for an op libvta does not run. */
const char *vta_mop_name(uint32_t op);
/* Node i of g can run: its op is known and its types are consistent with
 * its operands' (so the loops of vta_hostop_run stay inside the buffers). */
int vta_hostop_check(const vta_mgraph_t *g, uint32_t i, vta_error_t *err);
/* Run a checked host node: y->data is allocated with the node's type. */
int vta_hostop_run(const vta_mnode_t *n, const vta_mval_t *in, vta_mval_t *y);
/* float -> int8 at exponent exp: round half away from zero, clip to lo..hi
 * (NaN -> 0); vta_quantize_value clips to +-127. */
int8_t vta_quantize_clip(float x, int exp, int lo, int hi);
int8_t vta_quantize_value(float x, int exp);
/* y = a + b (or a * b) with numpy broadcasting to the result type r. */
void vta_add_mul_f32(int mul, const vta_mtype_t *r, const vta_mtype_t *ta, const float *a, const vta_mtype_t *tb,
		     const float *b, float *y);
/* Pad rows and columns (pad[0] top, pad[1] left) of x, plain NCHW or packed,
 * with the real value lo (its integer at x's exponent when quantized). */
void vta_pad(const vta_mtype_t *xt, const void *x, const vta_mtype_t *yt, void *y, const int64_t *pad, double lo);
/* Softmax over the middle index of x[outer][len][inner] (y likewise). */
void vta_softmax_f32(const float *x, float *y, int64_t outer, int64_t len, int64_t inner);

#endif /* VTA_MODEL_HOSTOPS_H */
