/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Floor 5 of the runtime: micro-op kernels (uopcache.c, VTA-SPEC 7.5):
 * recording them through the finit callbacks of VTAPushGEMMOp /
 * VTAPushALUOp, keeping them in a bounded table, placing them in the UOP
 * SRAM as a ring, and emitting the LOAD UOP, GEMM and ALU instructions
 * through the queue. It never runs anything: when the program has staged
 * as many micro-ops as its DMA block holds it says so (UOPS_STAGING_FULL),
 * and its owner runs what is queued and asks again.
 */
#ifndef VTA_RUNTIME_UOPCACHE_H
#define VTA_RUNTIME_UOPCACHE_H

#include "cmdq.h"

typedef struct Uops Uops;

/* uops_push_op's answer when the program must be run first (not a VTA_E*). */
#define UOPS_STAGING_FULL (-1)

/* limit_bytes: bound on the memory of recorded kernels. */
Uops *uops_create(size_t limit_bytes);
/* Free everything, and the staging block on device d. */
void uops_destroy(Uops *u, RtDev *d);

/* Record (once per slot and signature: the slot is a key only) and emit a
 * kernel: finit runs with the recorder of u active, so that the VTAUop*
 * calls it makes reach uops_rec_*. Errors of those calls are returned
 * here. */
int uops_push_op(Uops *u, Cmdq *q, RtDev *d, int mode, void **slot, int (*finit)(void *),
		 void *sig, int nbytes, vta_error_t *err);

/* While a finit callback runs: 1 recording, 0 not, -1 recording a kernel
 * that has already failed (the calls that follow are ignored). */
int uops_recording(const Uops *u);
/* A failure marks the kernel failed; uops_push_op returns it. */
int uops_rec_loop(Uops *u, uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
		  uint32_t wgt_factor);
/* dump: print the micro-op (VTA_DEBUG_DUMP_UOP). */
int uops_rec_push(Uops *u, uint32_t mode, uint32_t reset_out, uint32_t dst_index,
		  uint32_t src_index, uint32_t wgt_index, uint32_t opcode, uint32_t use_imm,
		  int32_t imm_val, int dump);

/* Micro-ops staged for the program being queued (copied at its finish)
 * and their window offset. */
size_t uops_staged(const Uops *u, const uint32_t **words, size_t *buf_off);
/* Forget residency (after each run). */
void uops_reset_window(Uops *u);

#endif /* VTA_RUNTIME_UOPCACHE_H */
