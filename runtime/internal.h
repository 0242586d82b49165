/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private header of the runtime: the functions through which its modules
 * talk, one section per .c file. Each module's state is private to its file.
 *
 * Ownership: a device (device.c) is opened once per process and backend and
 * shared by every thread, as TVM's VTAMemAlloc implies; it owns the DMA
 * allocator and the buffer handles (mem.c). A context (context.c) is one
 * thread's view of a device: its instruction queue (command.c), its micro-op
 * kernels (uop.c) and its last error. Every stream is checked (validate.c)
 * before a device runs it.
 */
#ifndef VTA_RUNTIME_INTERNAL_H
#define VTA_RUNTIME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <vta/isa.h>
#include <vta/runtime.h>

#include "../driver/backend.h"

typedef struct RtDev RtDev;
typedef struct Mem Mem;
typedef struct Cmdq Cmdq;
typedef struct Uops Uops;
typedef struct Touched Touched;

/* ---- device.c: the process's devices and the one way to run them ------- */

/* A reference to the process's device of backend `target`, opened on first
 * use. Release with rtdev_release. */
int rtdev_acquire(const char *target, RtDev **out, vta_error_t *err);
/* A new device through a test seam (not shared by name). */
int rtdev_acquire_seam(const char *backend, const void *seam, RtDev **out, vta_error_t *err);
void rtdev_release(RtDev *d);
/* Another reference to d; returns d. */
RtDev *rtdev_ref(RtDev *d);
/* The device whose DMA window holds CPU address p, or whose buffer handle
 * h is, with a reference; NULL if none. */
RtDev *rtdev_of_ptr(const void *p);
RtDev *rtdev_of_handle(const void *h);
vta_dev_t *rtdev_dev(const RtDev *d);
Mem *rtdev_mem(const RtDev *d);

/* Run n instructions at insn_pa with base registers bases (NULL: 0): the
 * stream is checked against the live buffers, the buffers it touches are
 * kept from being freed and synced for the device, then it runs, then what
 * it wrote is synced for the CPU. 0 or a VTA_E* code with err filled. */
int rtdev_run(RtDev *d, uint64_t insn_pa, uint32_t n, uint32_t wait_cycles, vta_error_t *err);
/* The same steps around a run the caller starts itself through registers
 * (VTAWriteMappedReg): check, pin nothing, flush. */
int rtdev_prepare_raw(RtDev *d, uint64_t insn_pa, uint32_t n, const vta_bases_t *bases,
		      vta_error_t *err);
/* Whether the last start through mapped registers was refused (set: 0 or
 * 1 to change it, -1 to ask); run lock held. */
int rtdev_start_refused(RtDev *d, int set);
/* Serialize access to the device's registers with runs of other threads. */
void rtdev_lock(RtDev *d);
void rtdev_unlock(RtDev *d);

/* ---- mem.c: allocator over the DMA window, buffer handles -------------- */

/* Flags of a block. */
enum { MEM_INTERNAL = 1, MEM_UNCACHED = 2 };

/* What the validator needs to know of a block. */
typedef struct {
	size_t off, len; /* window offset and length */
	int flags;
} MemBlock;

Mem *mem_create(vta_dev_t *dev);
void mem_destroy(Mem *m);
void mem_lock(Mem *m);
void mem_unlock(Mem *m);

/* These take the lock themselves. Allocate len bytes (flags MEM_*);
 * the error names fn. */
int mem_alloc(Mem *m, size_t size, int flags, const char *fn, size_t *off, vta_error_t *err);
/* Free the block at window offset off; if work still references it, the
 * memory is released when that work is done. */
void mem_free_off(Mem *m, size_t off);
/* Nothing allocated by the user, nothing pinned: the device may close. */
int mem_idle(Mem *m);
size_t mem_bytes_used(Mem *m);
/* h is a live buffer handle of this window. */
int mem_owns_handle(Mem *m, const void *h);
/* CPU address p lies in one of the window's views. */
int mem_in_window(const Mem *m, const void *p);
/* The CPU address of window offset off in the view of its block. */
uint8_t *mem_cpu(const Mem *m, size_t off, int flags);

/* These need the lock held. The live block holding window bytes
 * [off, off + n), or -1. */
long mem_find_range(const Mem *m, uint64_t off, uint64_t n, MemBlock *b);
/* The live block nearest to window offset off (for messages), or -1. */
long mem_nearest(const Mem *m, uint64_t off, MemBlock *b);
/* Keep the block at window offset off from being released (+1) or let it
 * go again (-1). */
void mem_pin(Mem *m, size_t off, int delta);
/* The buffer handle h of this window: its block, or -1. */
long mem_handle(const Mem *m, const void *h, MemBlock *b, size_t *size);

/* ---- validate.c: what a stream may touch --------------------------------- */

/* The blocks a stream touches: one entry per block, with the byte range
 * [lo, hi) of the window it reads or writes there. */
typedef struct {
	size_t off;   /* the block */
	size_t lo, hi;
	int flags;    /* the block's MEM_* flags */
	int written;
} Touch;

struct Touched {
	Touch *t;
	size_t n, cap;
	Touch local[8];
};

void touched_init(Touched *t);
void touched_free(Touched *t);

/* Check n instructions at device address insn_pa against the live blocks of
 * m (lock held): the fetch, and every LOAD and STORE (with base registers
 * bases, NULL: 0) must lie inside one live block, in overflow-safe
 * arithmetic. Fills *out; on failure err names the instruction index, the
 * range and the nearest block. */
int rt_validate(const Mem *m, const vta_dev_t *dev, uint64_t insn_pa, uint32_t n,
		const vta_bases_t *bases, Touched *out, vta_error_t *err);

/* Dependency tokens of an encoded stream: every pop has its push, in an
 * order the three modules can execute, and no token is left over. */
int rt_check_tokens(const vta_insn_word_t *w, size_t n, vta_error_t *err);
/* Pushes minus pops of each token queue (VTA_Q_*) over a stream. */
void rt_token_balance(const vta_insn_word_t *w, size_t n, long bal[VTA_Q_COUNT]);

/* ---- uop.c: micro-op kernels and their cache in the UOP SRAM ----------- */

Uops *uop_create(void);
int uop_push_op(vta_context_t *ctx, int mode, void **slot, int (*finit)(void *), void *sig,
		int nbytes);
int uop_recording(const vta_context_t *ctx);
/* Micro-ops staged for the program being queued (copied at synchronize). */
size_t uop_staged(const vta_context_t *ctx, const uint32_t **words, size_t *buf_off);
/* Forget residency (after each synchronize). */
void uop_reset_window(vta_context_t *ctx);
void uop_destroy(vta_context_t *ctx);

/* ---- command.c: instruction queue, dependencies, synchronize ---------- */

Cmdq *cmd_create(void);
/* Append in (its pops come from the pending flags of its stage). */
int cmd_emit(vta_context_t *ctx, int stage, vta_insn_t *in);
/* A queued instruction reads or writes the buffer at window offset off:
 * keep it until the program has run. */
int cmd_pin(vta_context_t *ctx, size_t off);
/* After a call that appended: synchronize if the queue is nearly full. */
int cmd_check_overflow(vta_context_t *ctx);
/* Synchronize now because staging memory is full (as cmd_check_overflow). */
int cmd_sync_for_room(vta_context_t *ctx);
int cmd_debug(const vta_context_t *ctx);
/* Poison the program being queued with the context's last error. */
void cmd_poison(vta_context_t *ctx);
void cmd_destroy(vta_context_t *ctx);
void cmd_reset(vta_context_t *ctx);

/* ---- context.c: contexts, the per-thread handle, errors ---------------- */

RtDev *rt_dev(const vta_context_t *ctx);
Cmdq *rt_cmdq(const vta_context_t *ctx);
Uops *rt_uops(const vta_context_t *ctx);
void rt_count_insns(vta_context_t *ctx, uint64_t n);

/* Record an error in ctx (NULL: the calling thread's context, or the
 * thread's own record if it has none) and print it if logging is on;
 * returns code. */
int rt_error(vta_context_t *ctx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, and poison the program being queued. */
int rt_fail(vta_context_t *ctx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Copy a device error into ctx with a prefix. */
int rt_error_from(vta_context_t *ctx, const char *what, const vta_error_t *err);
const vta_error_t *rt_last_error(const vta_context_t *ctx);
/* The thread's current context, created if needed (NULL on failure). */
vta_context_t *rt_current(void);
/* The thread's current context if it has one. */
vta_context_t *rt_current_if_any(void);
/* The context of a command handle, or NULL (error recorded). */
vta_context_t *rt_cmd(VTACommandHandle cmd, const char *fn);

#endif /* VTA_RUNTIME_INTERNAL_H */
