/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The heavy host ops of a compiled model (hostgemm.c): what the compiler's
 * partition leaves off VTA (float conv, dense, matmul, batchnorm; int8
 * qconv, qdense, requant, qconv.rq, qadd), as im2col + GEMM with contiguous
 * inner loops, depthwise convolutions as direct loops. hostops.c dispatches
 * to them; the integer ops are bit for bit the compiler's reference
 * (compiler/exec/ref_int8.c), whose rounding helpers are these.
 */
#ifndef VTA_MODEL_HOSTGEMM_H
#define VTA_MODEL_HOSTGEMM_H

#include <vta/model/hostops.h>

/* 1 if op is one of this file's. */
int vta_hostgemm_op(uint32_t op);
/* Its name ("conv", "qconv.rq", ...; the compiler's), NULL for another op. */
const char *vta_hostgemm_name(uint32_t op);
/* Node i (one of this file's ops) is consistent: operand types, shapes,
 * shifts and channel shifts in range, so the loops stay inside the buffers
 * and no shift is undefined. */
int vta_hostgemm_check(const vta_mgraph_t *g, uint32_t i, vta_error_t *err);
/* Run a checked node: 0, or VTA_ENOMEM when a work buffer is not there. */
int vta_hostgemm_run(const vta_mnode_t *n, const vta_mval_t *in, vta_mval_t *y);

/* Batchnorm of x (type t, [N][C][...]): (x - mu[c]) * sc[c] / sqrt(var[c] + eps) + bi[c],
 * in double per channel (the compiler's float reference calls it). */
void vta_batchnorm_f32(const vta_mtype_t *t, const float *x, const float *sc, const float *bi, const float *mu,
		       const float *var, double eps, float *y);

/*
 * Requantization as exactly the ALU sequence the compiler's lowering emits:
 * for shifts above 15 first SHR (shift-15), then ADD 2^(s-1), SHR s; a
 * negative shift is a left shift; then MAX lo, MIN hi. shift in [-31,31].
 */
int32_t vta_requant_value(int32_t acc, int shift, int64_t lo, int64_t hi);
/* The fused leaky ReLU (slope 2^-leaky) is exact in one rounding when
 * shift >= 1 and shift + leaky <= 15; the packed bias then carries the
 * rounding constant vta_bias_rounding returns (0 when it cannot). */
int vta_leaky_fused(int shift, int leaky);
int32_t vta_bias_rounding(int shift, int leaky);
/* Requantization with a leaky ReLU (leaky 0: vta_requant_value). */
int32_t vta_requant_leaky(int32_t acc, int shift, int leaky, int64_t lo, int64_t hi);
/* The ALU's SHR: b >= 0 shifts right (arithmetic) by b & 31, b < 0 left by -b & 31. */
int32_t vta_alu_shr(int32_t a, int32_t b);
/* The per-channel epilogue: acc + 2^(s-1), one arithmetic SHR by s (left
 * by -s without rounding when s <= 0), then the clip. */
int32_t vta_requant_round(int32_t acc, int s, int64_t lo, int64_t hi);

#endif /* VTA_MODEL_HOSTGEMM_H */
