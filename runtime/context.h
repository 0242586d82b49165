/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Floor 6 of the runtime: contexts (context.c). A context is one user's
 * view of a device: it owns a reference to the device, an instruction
 * queue, a micro-op cache, the debug flags and the last error; running and
 * synchronizing live here. The TVM API (api_*.c) and the model runtime
 * (model/) are built on contexts; nothing here knows threads.
 */
#ifndef VTA_RUNTIME_CONTEXT_H
#define VTA_RUNTIME_CONTEXT_H

#include <vta/runtime.h>

#include "uopcache.h"

/* A new context on backend target (never NULL; see ctx_default_target). */
int ctx_open(const char *target, vta_context_t **out, vta_error_t *err);
/* A new context on a new device opened through a test seam. */
int ctx_open_seam(const char *backend, const void *seam, vta_context_t **out, vta_error_t *err);
void ctx_close(vta_context_t *ctx);
/* $VTA_TARGET, else "fsim". */
const char *ctx_default_target(void);
/* p is a live context. */
int ctx_valid(const void *p);

RtDev *ctx_dev(const vta_context_t *ctx);
int ctx_debug(const vta_context_t *ctx);
void ctx_set_debug(vta_context_t *ctx, int flags);

/* ---- Errors ----------------------------------------------------------------- */

/* Record an error in ctx (printed if its logging is on); returns code. */
int ctx_error(vta_context_t *ctx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, and poison the program being queued. */
int ctx_fail(vta_context_t *ctx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Record err (poison: also poison the program); returns its code. */
int ctx_fail_with(vta_context_t *ctx, const vta_error_t *err, int poison);
/* Record err with a prefix: "what: message". */
int ctx_error_from(vta_context_t *ctx, const char *what, const vta_error_t *err);
const vta_error_t *ctx_last_error(const vta_context_t *ctx);
void ctx_clear_error(vta_context_t *ctx);
/* Whether errors are printed as they are recorded ($VTA_LOG_ERRORS). */
int ctx_env_log_errors(void);

/* ---- Queuing and running ------------------------------------------------------ */

/* VTADepPush (push 1) / VTADepPop (push 0). */
int ctx_dep(vta_context_t *ctx, int push, int from, int to);
int ctx_load_2d(vta_context_t *ctx, const void *h, uint32_t elem_offset, uint32_t x_size,
		uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before,
		uint32_t x_pad_after, uint32_t y_pad_after, uint32_t sram_index, uint32_t type);
int ctx_store_2d(vta_context_t *ctx, uint32_t sram_index, uint32_t type, const void *h,
		 uint32_t elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride);
/* VTAPushGEMMOp (mode 0) / VTAPushALUOp (mode 1). */
int ctx_push_op(vta_context_t *ctx, int mode, void **slot, int (*finit)(void *), void *sig,
		int nbytes);
Uops *ctx_uops(const vta_context_t *ctx);
/* Run what is queued and wait; the queue is empty afterwards. */
int ctx_synchronize(vta_context_t *ctx, uint32_t wait_cycles);
/* Run a stream of n instructions already in the device's memory at insn_pa
 * (checked and synced as every run); errors to err only. */
int ctx_run(vta_context_t *ctx, uint64_t insn_pa, uint32_t n, uint32_t wait_cycles,
	    vta_error_t *err);

/* ---- Device memory of the context's device ------------------------------------- */

/* size bytes (cached: the CPU's cached view); *pa its device address. */
void *ctx_mem_alloc(vta_context_t *ctx, size_t size, int cached, uint64_t *pa, vta_error_t *err);
void ctx_mem_free(vta_context_t *ctx, void *p);
/* Make CPU writes to [p, p + n) visible to the device (flush 1) or the
 * device's writes visible to the CPU (flush 0); p in a block of ctx's. */
int ctx_mem_sync(vta_context_t *ctx, int flush, const void *p, size_t n, vta_error_t *err);

#endif /* VTA_RUNTIME_CONTEXT_H */
