/* SPDX-License-Identifier: Apache-2.0 */
/* The host ops of a compiled model (hostops.c); internal to libvta, and
 * the compiler's references call the shared ones (the compiler may call the
 * runtime, never the reverse). */
#ifndef VTA_MODEL_HOSTOPS_H
#define VTA_MODEL_HOSTOPS_H

#include <vta/model/graph.h>

/* A value during a run: its type (the producing node's) and data. */
typedef struct vta_mval {
	const vta_mtype_t *t;
	void *data;
	int owned;
} vta_mval_t;

/* The op's name, or NULL for a code outside the format (libvta runs every
 * op of the format: the heavy ones in hostgemm.c). */
const char *vta_mop_name(uint32_t op);
/* Node i of g can run: its op is known and its types are consistent with
 * its operands' (so the loops of vta_hostop_run stay inside the buffers). */
int vta_hostop_check(const vta_mgraph_t *g, uint32_t i, vta_error_t *err);
/* Run a checked host node: y->data is allocated with the node's type.
 * 0, VTA_ENOMEM (a work buffer), or nonzero for an op it does not run. */
int vta_hostop_run(const vta_mnode_t *n, const vta_mval_t *in, vta_mval_t *y);
/* float -> int8 at exponent exp: round half away from zero, clip to lo..hi
 * (NaN -> 0); vta_quantize_value clips to +-127. */
int8_t vta_quantize_clip(float x, int exp, int lo, int hi);
int8_t vta_quantize_value(float x, int exp);
/* The same over n values (quantize nodes). */
void vta_quantize_f32(const float *x, int8_t *y, int64_t n, int exp, int lo, int hi);
/* y = q * 2^exp of the integers x of type t (dequantize nodes). */
void vta_dequantize(const vta_mtype_t *t, const void *x, float *y);
/* y = a + b (or a * b) with numpy broadcasting to the result type r. */
void vta_add_mul_f32(int mul, const vta_mtype_t *r, const vta_mtype_t *ta, const float *a, const vta_mtype_t *tb,
		     const float *b, float *y);
/* Pad rows and columns (pad[0] top, pad[1] left) of x, plain NCHW or packed,
 * with the real value lo (its integer at x's exponent when quantized). */
void vta_pad(const vta_mtype_t *xt, const void *x, const vta_mtype_t *yt, void *y, const int64_t *pad, double lo);
/* Softmax over the middle index of x[outer][len][inner] (y likewise). */
void vta_softmax_f32(const float *x, float *y, int64_t outer, int64_t len, int64_t inner);
/* Softmax of x (type t) over axis (negative: from the end); coerce2d: over
 * that axis and all after it (ONNX before opset 13). */
void vta_softmax_axis(const vta_mtype_t *t, int64_t axis, int coerce2d, const float *x, float *y);
/* Concatenation of n tensors (types ts, data xs) along axis into y (type t). */
void vta_concat(const vta_mtype_t *t, int64_t axis, int n, const vta_mtype_t *const *ts, const void *const *xs,
		void *y);
/* The VTA blocked layout [N/B][C/BL][H][W][B][BL] (VTA-SPEC 2.6) of plain
 * int8 NCHW (or NC) u: to_packed, src plain to dst packed p (zero where u
 * has no element); else back. */
void vta_repack(const vta_mtype_t *p, const vta_mtype_t *u, const int8_t *src, int8_t *dst, int to_packed);
/* The packing of a convolution's input with its kernel's kw columns folded
 * into the channels (the compiler's pack with kernel[1] = kw > 1): channel
 * k*C + c of packed column w is plain column w*sw - pl + k of channel c
 * (zero outside the image). */
void vta_pack_fold(const vta_mtype_t *p, const vta_mtype_t *u, const int8_t *src, int8_t *dst, int64_t kw, int64_t sw,
		   int64_t pl);
/* Max (is_max) or average pooling of x [N][C][H][W] by a's kernel, stride,
 * dilation, pad and count_include_pad; a max window wholly in the padding
 * gives 0 for integers. */
void vta_pool(int is_max, const vta_mattrs_t *a, const vta_mtype_t *xt, const void *x, const vta_mtype_t *yt,
	      void *y);
/* Darknet's upsample (nearest, by stride) or, with align, its shortcut
 * operand brought to ot's shape (compiler/exec/ref.c describes it). */
void vta_resample(int align, const vta_mtype_t *it, const void *x, const vta_mtype_t *ot, void *y,
		  const int64_t *stride);
/* Darknet's yolo layer on [batch][anchors][classes + 5][plane]: logistic on
 * all but the box width and height (entries 2 and 3). */
void vta_yolo_f32(const float *x, float *y, int64_t batch, int64_t anchors, int64_t classes, int64_t plane);
/* y = x with its dimensions permuted: dimension d of y is perm[d] of x
 * (plain, any rank and dtype). */
void vta_transpose(const vta_mtype_t *xt, const void *x, const vta_mtype_t *yt, void *y, const int64_t *perm);
/* y = x[..., start:start + y's extent, ...] along axis (plain, any dtype). */
void vta_slice(const vta_mtype_t *xt, const void *x, const vta_mtype_t *yt, void *y, int64_t axis, int64_t start);
/* Rows and columns of x [N][C][H][W] resampled to y's (ONNX Resize: mode
 * VTA_RESIZE_*, coordinate mapping VTA_COORD_*, nearest rounding
 * VTA_ROUND_*, scale of rows and columns). 0 or VTA_ENOMEM. */
int vta_resize_f32(const vta_mtype_t *xt, const float *x, const vta_mtype_t *yt, float *y, int mode, int coord,
		   int round, const double *scale);
/* hostelem.c: y = fn(x) elementwise (a unary VTA_FN_*; alpha, beta its
 * parameters); fn of two values (a binary VTA_FN_*); fn (a reduction
 * VTA_FN_*) of x over the dimensions in the mask axes into y (the kept
 * dimensions in order): 0 or VTA_ENOMEM. */
void vta_unary_f32(int fn, double alpha, double beta, const float *x, float *y, int64_t n);
double vta_binary_value(int fn, double a, double b);
int vta_reduce_f32(int fn, int axes, const vta_mtype_t *xt, const float *x, float *y);
/* y = a fn b (a binary VTA_FN_*) with numpy broadcasting to the result type r. */
void vta_binary_f32(int fn, const vta_mtype_t *r, const vta_mtype_t *ta, const float *a, const vta_mtype_t *tb,
		    const float *b, float *y);
/* The logistic function 1 / (1 + e^-x), elementwise. */
void vta_sigmoid_f32(const float *x, float *y, int64_t n);
/* x >= 0 ? x : x * 2^-shift. */
void vta_leaky_f32(const float *x, float *y, int64_t n, int shift);

#endif /* VTA_MODEL_HOSTOPS_H */
