/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private header of the runtime, one section per .c file (chibicc style).
 */
#ifndef VTA_RUNTIME_INTERNAL_H
#define VTA_RUNTIME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <vta/isa.h>
#include <vta/runtime.h>

#include "../driver/backend.h"

/* ---- mem.c: allocator over the device's DMA window, buffer handles ---- */

typedef struct {
	size_t off, len; /* byte offset in the window, length (whole pages) */
	int internal;    /* staging buffer of the runtime, not the user's */
} MemBlock;

typedef struct {
	MemBlock *b; /* allocated blocks, sorted by offset */
	size_t n, cap;
	size_t user_blocks; /* blocks handed to the user */
} Mem;

/* What VTABufferAlloc returns: the buffer behind an opaque handle. */
typedef struct {
	uint32_t magic;
	uint8_t *va;
	uint64_t pa;
	size_t size;
} Buffer;

typedef struct {
	uintptr_t *slot; /* open addressing; 0 empty, 1 deleted */
	size_t cap, n, used;
} PtrSet;

/* Allocate (internal: for the runtime's own staging) and free blocks. */
int mem_alloc(vta_context_t *ctx, size_t size, int internal, size_t *off);
void mem_free_block(vta_context_t *ctx, size_t index);
/* Index of the block containing CPU address p, or -1. */
long mem_find(const vta_context_t *ctx, const void *p);
void mem_destroy(vta_context_t *ctx);
/* The Buffer of a live handle, or NULL. */
Buffer *buffer_lookup(const vta_context_t *ctx, const void *handle);
void buffers_destroy(vta_context_t *ctx);

/* ---- uop.c: micro-op kernels and their cache in the UOP SRAM ----------- */

typedef struct Kernel Kernel;

typedef struct {
	Kernel **tab;     /* hash of recorded kernels by (slot, signature) */
	size_t ntab, nkernels;
	size_t bytes, limit; /* memory of recorded kernels, and its bound */
	Kernel *lru_head, *lru_tail; /* most recently used first */

	Kernel **res;     /* kernels resident in the UOP SRAM, placement order */
	size_t nres, capres;
	uint32_t ptr;     /* where the next kernel goes */

	uint32_t *stage;  /* micro-ops loaded in this program, in load order */
	size_t nstage, capstage;
	size_t buf_off;   /* DMA block holding them at synchronize */
	int have_buf;

	Kernel *rec;      /* being recorded by a finit callback */
	uint64_t clock;
} Uops;

int uop_push_op(vta_context_t *ctx, int mode, void **slot, int (*finit)(void *), void *sig,
		int nbytes);
/* Forget residency (after each synchronize). */
void uop_reset_window(vta_context_t *ctx);
void uop_destroy(vta_context_t *ctx);

/* ---- command.c: instruction queue, dependencies, synchronize ---------- */

typedef struct {
	vta_insn_word_t *w;
	size_t n, cap;
	uint8_t pend_prev[4], pend_next[4]; /* per stage 1..3 */
	int debug;
	int poisoned;          /* an error happened while queuing */
	vta_error_t poison;    /* the first one */
	size_t insn_off, insn_len; /* DMA block for the stream (insn_len 0: none) */
	int have_insn_buf;
	size_t last_n;         /* instructions of the last synchronize */
} Cmdq;

/* Append in (its pops come from the pending flags of its stage). */
int cmd_emit(vta_context_t *ctx, int stage, vta_insn_t *in);
/* After a call that appended: synchronize if the queue is nearly full. */
int cmd_check_overflow(vta_context_t *ctx);
void cmd_destroy(vta_context_t *ctx);
void cmd_reset(vta_context_t *ctx);

/* ---- context.c: contexts, the per-thread handle, errors ---------------- */

#define CTX_MAGIC 0x56544143u /* "VTAC" */

struct vta_context {
	uint32_t magic;
	vta_dev_t *dev;
	int dev_handles;  /* VTADeviceAlloc handles not yet freed */
	int closing;      /* VTARuntimeShutdown waits for the last buffer */
	int log_errors;
	vta_error_t err;
	Mem mem;
	PtrSet handles;
	Cmdq q;
	Uops u;
	uint64_t insns_queued;
};

/* Record an error in ctx (and print it if logging is on); returns code. */
int rt_error(vta_context_t *ctx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, and poison the program being queued. */
int rt_fail(vta_context_t *ctx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Copy a device error into ctx with a prefix. */
int rt_error_from(vta_context_t *ctx, const char *what, const vta_error_t *err);
/* The thread's current context, created if needed (NULL on failure). */
vta_context_t *rt_current(void);
/* The context of a command handle, or NULL (error recorded). */
vta_context_t *rt_cmd(VTACommandHandle cmd, const char *fn);
/* Called when the last user buffer is freed. */
void rt_maybe_close(vta_context_t *ctx);

#endif /* VTA_RUNTIME_INTERNAL_H */
