/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Floor 1 of the runtime: the allocator of one device's DMA window (alloc.c)
 * and its buffer handles. It knows the device's window and nothing above:
 * errors go to the caller's vta_error_t.
 *
 * Blocks are whole pages kept sorted by offset. A block that queued or
 * running work still references (pinned) is released only when the last
 * pin goes.
 */
#ifndef VTA_RUNTIME_ALLOC_H
#define VTA_RUNTIME_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include <vta/error.h>
#include <vta/driver.h>

#include "../driver/backend.h"

typedef struct Mem Mem;

/* Flags of a block. */
enum { MEM_INTERNAL = 1, MEM_UNCACHED = 2 };

/* What the validator needs to know of a block. */
typedef struct {
	size_t off, len; /* window offset and length */
	int flags;
} MemBlock;

/* What VTABufferAlloc returns: the buffer behind an opaque handle. */
typedef struct {
	uint32_t magic;
	size_t off;  /* window offset of its block */
	size_t size; /* bytes asked for */
	uint8_t *va;
	uint64_t pa;
} MemBuffer;

Mem *mem_create(vta_dev_t *dev);
void mem_destroy(Mem *m);
void mem_lock(Mem *m);
void mem_unlock(Mem *m);
const vta_dev_t *mem_device(const Mem *m);

/* These take the lock themselves. Allocate len bytes (flags MEM_*);
 * the error names fn. */
int mem_alloc(Mem *m, size_t size, int flags, const char *fn, size_t *off, vta_error_t *err);
/* Free the block at window offset off; if work still references it, the
 * memory is released when that work is done. */
void mem_free_off(Mem *m, size_t off);
/* Free the user block (not internal, not freed yet) at window offset off;
 * VTA_EINVAL if there is none. */
int mem_free_user(Mem *m, size_t off);
/* Nothing allocated by the user, nothing pinned: the device may close. */
int mem_idle(Mem *m);
size_t mem_bytes_used(Mem *m);
/* A new buffer handle of size bytes, or VTA_E* with err naming fn. */
int mem_buffer_alloc(Mem *m, size_t size, const char *fn, MemBuffer **out, vta_error_t *err);
/* Free buffer handle h; VTA_EINVAL if it is not a live handle of m. */
int mem_buffer_free(Mem *m, void *h);
/* h is a live buffer handle of this window. */
int mem_owns_handle(Mem *m, const void *h);

/* These need no lock. Window offset of CPU address p (either view), or -1. */
int64_t mem_window_off(const Mem *m, const void *p);
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

#endif /* VTA_RUNTIME_ALLOC_H */
