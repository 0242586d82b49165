/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Code generation for VTA: the kernel and stream passes and what they share.
 *
 *   plan.c    the geometry of a convolution in blocks of the target and the
 *             choice of a tiling that fits the SRAMs and ISA fields (also the
 *             capability check of partition)
 *   tile.c    tile: a tiling per kernel
 *   lower.c   lower: the tile loop nest as VTA instructions and micro-ops
 *   tokens.c  tokens: dependency tokens between load, compute and store
 *   emit.c    emit: one device memory image, instructions encoded
 *
 * The structure the hardware needs (DMA shapes, loop factors, ALU opcodes)
 * is constructed directly from the tile plan; nothing is pattern matched
 * back out of loops.
 */
#ifndef VC_CODEGEN_H
#define VC_CODEGEN_H

#include "ir/kernel.h"
#include "pass/pass.h"

/* The shape of a convolution as the VTA sees it (blocks of the target). */
typedef struct vc_geom {
	int64_t nb, cib, h, w;  /* input: batch blocks, channel blocks, rows, columns */
	int64_t cob, kh, kw;    /* output channel blocks, kernel */
	int64_t oh, ow, sh, sw; /* output size, strides */
	int64_t pt, pl, pb, pr; /* padding */
	int res;                /* a residual is added (its tile takes ACC space) */
	int leaky;              /* a leaky ReLU: one more ACC region, shared with the residual's */
	int kb;                 /* ACC rows of bias a block: 1, or per-channel 2 (+1 with a residual) */
	int dw;                 /* depthwise: output block b reads input block b only, through
				 * diagonal weight blocks (cib == cob, one weight block a tap) */
} vc_geom;
/* Geometry of a QCONV, QDENSE, QCONV_RQ or VTA_CONV node (for QCONV/QDENSE
 * the caller sets res and kb: they belong to the requant after it). */
int vc_geom_of(const vc_target *t, const vc_node *n, vc_geom *g);
/* Micro-ops apart that two writing one ACC row must be for the second not to
 * wait for the first (the GEMM pipeline's depth behind S1). */
#define VC_HAZARD_SPAN 3
/* Output columns per GEMM micro-op group: the least divisor of ow that, with
 * tco output blocks, puts VC_HAZARD_SPAN micro-ops between writes of a row. */
int64_t vc_column_group(int64_t tco, int64_t ow);
/* Choose a tiling that fits every SRAM (with ping-pong halves) and the ISA
 * field widths; -1 with the reason in why when none exists. */
int vc_kernel_plan(const vc_target *t, const vc_geom *g, vc_tiling *out, char *why, size_t whyn);

/* emit.c: alignment of every object in the device image (bytes). */
int64_t vc_arena_align(void);

extern const vc_pass_desc vc_pass_tile, vc_pass_lower, vc_pass_tokens, vc_pass_emit;

#endif /* VC_CODEGEN_H */
