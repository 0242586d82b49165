/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Floor 4 of the runtime: the instruction queue (cmdq.c, VTA-SPEC 7.4):
 * loads and stores, automatic dependency tokens, the synchronize epilogue,
 * the FORCE_SERIAL rewrite, the buffers a queued program keeps pinned and
 * the DMA block its stream is written to. It knows no context: errors go to
 * the caller's vta_error_t, and running the stream is the caller's.
 */
#ifndef VTA_RUNTIME_CMDQ_H
#define VTA_RUNTIME_CMDQ_H

#include <stdio.h>

#include "devices.h"

typedef struct Cmdq Cmdq;

/* The three modules' stages (queue ids of TVM's VTADepPush/VTADepPop). */
enum { STAGE_NONE = 0, STAGE_LOAD = 1, STAGE_COMPUTE = 2, STAGE_STORE = 3 };

Cmdq *cmdq_create(void);
/* Unpin what the queue holds and free its stream block on device d. */
void cmdq_destroy(Cmdq *q, RtDev *d);
/* Empty the queue, forget the poison and unpin its buffers on d. */
void cmdq_reset(Cmdq *q, RtDev *d);

/* Instructions queued, and appended since the queue was created. */
size_t cmdq_len(const Cmdq *q);
uint64_t cmdq_total(const Cmdq *q);
/* The queue must be run before more is appended (an automatic split). */
int cmdq_nearly_full(const Cmdq *q);

/* Append in with the pending pops of its stage. */
int cmdq_emit(Cmdq *q, int stage, vta_insn_t *in, vta_error_t *err);
/* TVM's VTADepPush / VTADepPop between queue ids from and to (checked). */
int cmdq_dep(Cmdq *q, int push, int from, int to, const char *fn, vta_error_t *err);
/* A 2-D load into (store from) SRAM of buffer handle h on device d, checked
 * against the buffer and the SRAM; the buffer stays pinned until reset. */
int cmdq_load_2d(Cmdq *q, RtDev *d, const void *h, uint32_t elem_offset, uint32_t x_size,
		 uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before,
		 uint32_t x_pad_after, uint32_t y_pad_after, uint32_t sram_index, uint32_t type,
		 vta_error_t *err);
int cmdq_store_2d(Cmdq *q, RtDev *d, uint32_t sram_index, uint32_t type, const void *h,
		  uint32_t elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride,
		  vta_error_t *err);

/* Drop the queued instructions of a poisoned program (it will be
 * discarded), keeping its poison, pins and pending pops. */
void cmdq_drop(Cmdq *q);
/* The first error met while queuing: the program will be discarded. */
void cmdq_poison(Cmdq *q, const vta_error_t *e);
const vta_error_t *cmdq_poisoned(const Cmdq *q);

/* Close the program (serial: the FORCE_SERIAL rewrite), check its length
 * and tokens and write it into the stream block on d: *pa and *n are what
 * to run. Micro-ops (uops, n_uops words) are copied to window offset
 * uop_off. */
int cmdq_finish(Cmdq *q, RtDev *d, int serial, const uint32_t *uops, size_t n_uops,
		size_t uop_off, uint64_t *pa, uint32_t *n, vta_error_t *err);
/* The stream of the last finish, as the device reads it. */
int cmdq_last_stream(const Cmdq *q, RtDev *d, const uint8_t **bytes, size_t *count);
/* The queued instructions with their token counts (VTA_DEBUG_DUMP_INSN). */
void cmdq_dump(const Cmdq *q, FILE *f);

/* Splitting a program that fills the queue: tokens pushed but not yet
 * popped are popped at the end of the first part and pushed again at the
 * start of the next; pending pops stay pending. */
typedef struct {
	long bal[VTA_Q_COUNT];
	uint8_t prev[4], next[4];
} CmdqSplit;
/* Before running the first part; VTA_ETOKEN if it pops a token before the
 * instruction that pushes it. */
int cmdq_split_begin(Cmdq *q, CmdqSplit *s, vta_error_t *err);
/* After the first part ran (and the queue was reset). */
int cmdq_split_end(Cmdq *q, const CmdqSplit *s, vta_error_t *err);

#endif /* VTA_RUNTIME_CMDQ_H */
