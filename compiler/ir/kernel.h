/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel and stream IR: a fused VTA kernel with its tiling, its
 * instructions (DRAM addresses relative to a symbolic operand, the SRAM
 * regions each reads and writes) and micro-ops; the stream unit holding the
 * device memory image. Built by the passes in vta/, stored by artifact/.
 */
#ifndef VC_KERNEL_H
#define VC_KERNEL_H

#include <vta/driver.h>

#include "ir/ir.h"

/* Kernel IR: a fused VTA kernel, its tiling, and its instructions. */
enum { VC_ARG_INP, VC_ARG_WGT, VC_ARG_BIAS, VC_ARG_OUT, VC_ARG_UOP, VC_ARG_RES, VC_NARGS };

/* SRAM resources tracked by the token pass (buffer halves for ping-pong). */
/* (RIN: the residual tile of ACC half 0 or 1 in INP; WID: the identity weight block) */
enum { VC_RES_INP0, VC_RES_INP1, VC_RES_WGT0, VC_RES_WGT1, VC_RES_ACC0, VC_RES_ACC1, VC_RES_UOP, VC_RES_RIN0,
       VC_RES_RIN1, VC_RES_WID, VC_NRES };

typedef struct vc_kinsn {
	vta_insn_t insn;  /* dram_base is relative to arg `arg` (elements) */
	int arg;          /* VC_ARG_* for LOAD/STORE, -1 otherwise */
	uint32_t reads, writes; /* masks of VC_RES_* */
} vc_kinsn;

typedef struct vc_tiling {
	int th;    /* output rows per tile */
	int tco;   /* output-channel blocks per tile */
	int tci;   /* input-channel blocks per reduction step */
	int pingpong; /* 1: two halves per buffer */
	int rows_outer; /* 1: row tiles outer, output blocks inner; 0: the other way */
	int resident;   /* the outer loop's operand (rows outer: the inputs of a row tile,
			 * all channels; else the weights of an output block) is loaded
			 * once and kept for every tile of the inner loop */
} vc_tiling;

struct vc_kernel {
	int id;
	vc_node *node;  /* the VTA_CONV node it implements */
	vc_tiling tile;
	int tiled;
	int n, cap;
	vc_kinsn *code;
	int n_uops, cap_uops;
	uint32_t *uops; /* the kernel's micro-ops, as loaded from DRAM */
	/* emitted placement */
	int64_t insn_off;  /* byte offset of the instruction stream in the arena */
	int64_t insn_count;
	int64_t uop_off;
	int64_t macs;
};

/* The device image is cut into segments of VC_SEGMENT_BYTES, the largest
 * contiguous device buffer (VTA_MAX_XFER): the runner allocates each segment
 * as its own buffer, so no tensor, micro-op block or instruction stream may
 * cross a segment boundary (emit places them so; the artifact reader checks). */
#define VC_SEGMENT_BYTES ((int64_t)VTA_MAX_XFER)
static inline int vc_in_one_segment(int64_t off, int64_t bytes)
{
	return off >= 0 && bytes >= 0 && bytes <= VC_SEGMENT_BYTES &&
	       (bytes == 0 || off / VC_SEGMENT_BYTES == (off + bytes - 1) / VC_SEGMENT_BYTES);
}

/* The stream unit: the device memory image. */
struct vc_stream {
	uint8_t *image;   /* device arena contents (weights, uops, instructions) */
	int64_t size;     /* bytes of the arena (>= image data) */
	int64_t used;     /* bytes from the start that may be non-zero (the rest is zero) */
};

/* print.c: the names the textual IR gives operands (VC_ARG_*) and SRAM
 * regions (VC_RES_*); NULL out of range. */
const char *vc_kernel_arg_name(int arg);
const char *vc_kernel_res_name(int res);
/* One kernel as the module text shows it (--print-ir-after in kernel(...)). */
void vc_print_kernel(FILE *f, const vc_kernel *k, unsigned flags);

/* verify_code.c: the kernel verifier (DMA and compute ranges against the
 * operands and SRAM, micro-ops, clip before store, tokens, FINISH) and the
 * stream verifier (the same on the encoded image, DRAM ranges inside it);
 * 0 when well formed, else -1 with a message naming kernel and instruction. */
int vc_verify_kernel(vc_module *m, const vc_kernel *k);
int vc_verify_stream(vc_module *m);

#endif /* VC_KERNEL_H */
