/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host execution of the graph IR:
 *
 *   ref.c        tensors and the reference dispatch: one kernel per op, the
 *                CPU fallback of a compiled model and the oracle every
 *                lowered op is checked against; layout ops shared by every
 *                dtype (relu/clip, max pooling, reshape, concat)
 *   ref_int8.c   the integer operators a deployed model runs on the host:
 *                quantize, dequantize, qconv/qdense, qadd, requant, pack,
 *                unpack and the VTA kernel's reference (bit-exact with the
 *                device)
 *   ref_float.c  the float reference (conv, dense, matmul, add/mul, sigmoid, average
 *                pooling, softmax, batchnorm): calibration and the float
 *                baseline
 *   interp.c     runs a graph node by node; VTA kernels may go to a hook
 *   detect.c     boxes from the outputs of Darknet yolo layers
 */
#ifndef VC_EXEC_H
#define VC_EXEC_H

#include "ir/ir.h"

/* A tensor on the host: a type and its data. */
typedef struct vc_tensor {
	vc_type t;
	void *data;
	int owned;
} vc_tensor;

int vc_tensor_alloc(vc_tensor *x, const vc_type *t);
void vc_tensor_free(vc_tensor *x);
/* The type in libvta's form (internal/vta/model/graph.h), for the host ops the
 * compiler's reference shares with libvta. */
struct vta_mtype;
void vc_to_mtype(const vc_type *t, struct vta_mtype *m);
/* The attributes libvta's host kernels read, in libvta's form. */
struct vta_mattrs;
void vc_to_mattrs(const vc_attrs *a, struct vta_mattrs *m);

/*
 * Run one op on host tensors: out is allocated with the node's type. in[] are
 * the input tensors in node order. Returns 0, or -1 with m's diagnostic set.
 */
int vc_ref_run(vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out);

/* Rounding of quantize and requantize (shared with the lowering). */
int8_t vc_quantize_value(float x, int exp);
int32_t vc_requant_value(int32_t acc, int shift, int64_t lo, int64_t hi);
/* The same with a fused leaky ReLU (leaky > 0): max(rq(acc, s), rq(acc, s +
 * leaky)) before the clip, as the ALU computes it. */
int32_t vc_requant_leaky(int32_t acc, int shift, int leaky, int64_t lo, int64_t hi);
/* The per-channel form: round-to-nearest by adding 2^(s-1), one shift by s
 * (up to 31; negative: left), then the clip. */
int32_t vc_requant_round(int32_t acc, int s, int64_t lo, int64_t hi);
/* The VTA epilogue's shortcuts, which the references above follow exactly:
 * a leaky ReLU with 1 <= shift and shift + leaky <= 15 runs as
 *   X = acc + 2^(s-1); T = X << leaky; X += 2^(s+leaky-1) - 2^(s-1);
 *   y = clip(max(X, T) >> (s + leaky))
 * in 32-bit arithmetic (the same as max of the two requantizations, with
 * one copy, one shift and one ADD fewer); vc_bias_rounding is the rounding
 * constant 2^(s-1) the packed bias carries (1 <= shift <= 15 and, for a
 * leaky ReLU, the fused form), 0 when the epilogue rounds itself. */
int vc_leaky_fused(int shift, int leaky);
int32_t vc_bias_rounding(int shift, int leaky);

/* ---- interp.c */

/* A hook that runs VTA_CONV nodes somewhere else (the device). */
typedef int (*vc_vta_hook)(void *ctx, vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out);

/* Run the entry graph: inputs in graph-input order, outputs allocated. If
 * stats is non-NULL it receives, per node id, the largest |value| seen, the
 * largest positive value and, where hist is set, a histogram of the float
 * values (calibration). */
#define VC_HIST_BINS 4096 /* per sign: 8 exponent bits + 4 mantissa bits of |x| */
typedef struct vc_range {
	float absmax, posmax;
	float negmin;   /* the most negative value seen; 0 when none was */
	uint64_t *hist; /* NULL, or [2][VC_HIST_BINS]: values > 0, values < 0 by vc_hist_bin(|x|) */
	double *chsum;  /* NULL, or [chn]: the sum of the values of each channel (dimension 1) */
	int64_t chn;
	double chcount; /* values summed into each chsum[c] */
} vc_range;
/* The histogram bin of a finite |x| (x >= 0), and the lower edge of bin b. */
static inline int vc_hist_bin(float ax)
{
	uint32_t u;
	__builtin_memcpy(&u, &ax, 4);
	return (int)(u >> 19);
}
static inline float vc_hist_edge(int b)
{
	uint32_t u = (uint32_t)b << 19;
	float f;
	__builtin_memcpy(&f, &u, 4);
	return f;
}
int vc_interp(vc_module *m, const vc_tensor *inputs, vc_tensor *outputs, vc_range *stats, vc_vta_hook hook,
	      void *hook_ctx);

/* The op kernels of ref_int8.c and ref_float.c: out is already allocated
 * with n's type. 0 done, -1 error (diagnostic in m), 1 not an op of that file. */
int vc_ref_run_int8(vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out);
int vc_ref_run_float(vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out);
/* Element i of a tensor of any dtype, as a double. */
double vc_tensor_get(const vc_tensor *x, int64_t i);

/* ---- detect.c */

/* A detection: centre, size (fractions of the input), probability, class. */
typedef struct vc_box {
	float x, y, w, h, prob;
	int cls;
} vc_box;
/* Boxes of the yolo outputs of a Darknet model above thresh (objectness x
 * class probability), best first, after per-class non-maximum suppression
 * at IoU nms. Returns the number kept, *boxes malloc'd (free it), or -1. */
int vc_yolo_decode(const vc_module *m, const vc_tensor *outs, int n_outs, float thresh, float nms, vc_box **boxes);

#endif /* VC_EXEC_H */
