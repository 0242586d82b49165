/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Floor 2 of the runtime: what a stream may touch (validate.c), checked
 * against the allocator's live blocks, and the dependency tokens of a
 * stream. Calls only the allocator.
 */
#ifndef VTA_RUNTIME_VALIDATE_H
#define VTA_RUNTIME_VALIDATE_H

#include <vta/isa.h>

#include "alloc.h"

typedef struct Touched Touched;

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

#endif /* VTA_RUNTIME_VALIDATE_H */
