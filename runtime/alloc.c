/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The allocator of a device's DMA window (alloc.h): a first-fit allocator
 * of whole pages, and the buffer handles of TVM's VTABuffer* API.
 *
 * VTAMemAlloc takes no device argument, so, as in TVM, there is one
 * allocator per process and device, shared by all threads under its mutex.
 * Blocks are kept sorted by offset, so finding the block that holds an
 * address is a binary search.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

#define PAGE ((size_t)VTA_PAGE_BYTES)
#define BUFFER_MAGIC 0x56544142u /* "VTAB" */

typedef struct {
	size_t off, len;
	int flags;
	unsigned pins; /* queued programs and runs that reference it */
	int freed;     /* freed by the user while pinned: release at pins 0 */
} Block;

typedef struct {
	uintptr_t *slot; /* open addressing; 0 empty, 1 deleted */
	size_t cap, n, used;
} PtrSet;

struct Mem {
	vta_dev_t *dev;
	pthread_mutex_t lock;
	Block *b; /* allocated blocks, sorted by offset */
	size_t n, cap;
	size_t user_blocks; /* blocks handed to the user, not yet released */
	size_t pinned;      /* blocks with pins > 0 */
	PtrSet handles;
};

Mem *mem_create(vta_dev_t *dev)
{
	Mem *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->dev = dev;
	pthread_mutex_init(&m->lock, NULL);
	return m;
}

static void handles_destroy(PtrSet *s);

void mem_destroy(Mem *m)
{
	if (!m)
		return;
	handles_destroy(&m->handles);
	free(m->b);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

void mem_lock(Mem *m) { pthread_mutex_lock(&m->lock); }

void mem_unlock(Mem *m) { pthread_mutex_unlock(&m->lock); }

const vta_dev_t *mem_device(const Mem *m) { return m->dev; }

/* ---- Blocks (lock held) --------------------------------------------------- */

static int alloc_locked(Mem *m, size_t size, int flags, const char *fn, size_t *off,
			vta_error_t *err)
{
	vta_dev_t *d = m->dev;
	if (size == 0)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: size 0", fn);
	if (size > VTA_MAX_XFER && !(flags & MEM_INTERNAL))
		return vta_error_set(err, VTA_ERANGE, -1,
				     "%s: %zu bytes is more than VTA_MAX_XFER (%d bytes)", fn, size,
				     VTA_MAX_XFER);
	if (size > d->dram_size)
		return vta_error_set(err, VTA_ENOMEM, -1, "%s: %zu bytes is more than the %zu-byte DMA "
				     "window of the %s device", fn, size, d->dram_size, d->be->name);
	size_t len = (size + PAGE - 1) / PAGE * PAGE;
	size_t prev_end = (d->dram_first + PAGE - 1) / PAGE * PAGE, i;
	for (i = 0; i < m->n; i++) {
		if (m->b[i].off - prev_end >= len)
			break;
		prev_end = m->b[i].off + m->b[i].len;
	}
	if (i == m->n && (prev_end > d->dram_size || d->dram_size - prev_end < len))
		return vta_error_set(err, VTA_ENOMEM, -1,
				     "%s: no %zu contiguous bytes left in the %zu-byte DMA window of "
				     "the %s device",
				     fn, len, d->dram_size - d->dram_first, d->be->name);
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		Block *b = realloc(m->b, cap * sizeof *b);
		if (!b)
			return vta_error_set(err, VTA_ENOMEM, -1, "%s: out of host memory", fn);
		m->b = b;
		m->cap = cap;
	}
	memmove(&m->b[i + 1], &m->b[i], (m->n - i) * sizeof *m->b);
	m->b[i] = (Block){prev_end, len, flags, 0, 0};
	m->n++;
	if (!(flags & MEM_INTERNAL))
		m->user_blocks++;
	*off = prev_end;
	return VTA_OK;
}

/* Index of the block starting at window offset off, or -1. */
static long block_at(const Mem *m, size_t off)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->b[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->b[lo].off == off ? (long)lo : -1;
}

/* Index of the block containing window offset off, or -1. */
static long block_holding(const Mem *m, uint64_t off)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const Block *b = &m->b[mid];
		if (off < b->off)
			hi = mid;
		else if (off - b->off >= b->len)
			lo = mid + 1;
		else
			return (long)mid;
	}
	return -1;
}

static void release(Mem *m, size_t i)
{
	if (!(m->b[i].flags & MEM_INTERNAL))
		m->user_blocks--;
	memmove(&m->b[i], &m->b[i + 1], (m->n - i - 1) * sizeof *m->b);
	m->n--;
}

static void free_locked(Mem *m, size_t i)
{
	if (m->b[i].pins)
		m->b[i].freed = 1;
	else
		release(m, i);
}

static MemBlock view(const Block *b) { return (MemBlock){b->off, b->len, b->flags}; }

long mem_find_range(const Mem *m, uint64_t off, uint64_t n, MemBlock *out)
{
	long i = block_holding(m, off);
	if (i < 0)
		return -1;
	const Block *b = &m->b[i];
	if (n > b->len - (off - b->off))
		return -1;
	*out = view(b);
	return i;
}

long mem_nearest(const Mem *m, uint64_t off, MemBlock *out)
{
	if (!m->n)
		return -1;
	size_t lo = 0, hi = m->n;
	while (lo < hi) { /* first block starting after off */
		size_t mid = (lo + hi) / 2;
		if (m->b[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t best = lo < m->n ? lo : m->n - 1;
	if (lo > 0) {
		const Block *p = &m->b[lo - 1];
		uint64_t before = off < p->off + p->len ? 0 : off - (p->off + p->len);
		if (lo == m->n || before <= m->b[lo].off - off)
			best = lo - 1;
	}
	*out = view(&m->b[best]);
	return (long)best;
}

void mem_pin(Mem *m, size_t off, int delta)
{
	long i = block_at(m, off);
	if (i < 0)
		return;
	Block *b = &m->b[i];
	if (delta > 0) {
		if (b->pins++ == 0)
			m->pinned++;
		return;
	}
	if (b->pins && --b->pins == 0) {
		m->pinned--;
		if (b->freed)
			release(m, (size_t)i);
	}
}

/* ---- Blocks (locking) ------------------------------------------------------ */

int mem_alloc(Mem *m, size_t size, int flags, const char *fn, size_t *off, vta_error_t *err)
{
	mem_lock(m);
	int rc = alloc_locked(m, size, flags, fn, off, err);
	mem_unlock(m);
	return rc;
}

void mem_free_off(Mem *m, size_t off)
{
	mem_lock(m);
	long i = block_at(m, off);
	if (i >= 0)
		free_locked(m, (size_t)i);
	mem_unlock(m);
}

int mem_idle(Mem *m)
{
	mem_lock(m);
	int idle = m->user_blocks == 0 && m->pinned == 0;
	mem_unlock(m);
	return idle;
}

size_t mem_bytes_used(Mem *m)
{
	mem_lock(m);
	size_t used = 0;
	for (size_t i = 0; i < m->n; i++)
		used += m->b[i].len;
	mem_unlock(m);
	return used;
}

/* Window offset of CPU address p (either view), or -1. */
int64_t mem_window_off(const Mem *m, const void *p)
{
	const vta_dev_t *d = m->dev;
	const uint8_t *q = p;
	if (!q)
		return -1;
	if (q >= d->dram_va && q < d->dram_va + d->dram_size)
		return q - d->dram_va;
	if (d->dram_va_uc && q >= d->dram_va_uc && q < d->dram_va_uc + d->dram_size)
		return q - d->dram_va_uc;
	return -1;
}

int mem_in_window(const Mem *m, const void *p) { return mem_window_off(m, p) >= 0; }

uint8_t *mem_cpu(const Mem *m, size_t off, int flags)
{
	const vta_dev_t *d = m->dev;
	return ((flags & MEM_UNCACHED) && d->dram_va_uc ? d->dram_va_uc : d->dram_va) + off;
}

/* ---- Buffer handles ------------------------------------------------------ */

static uintptr_t hash_ptr(uintptr_t p)
{
	uint64_t x = (uint64_t)p * 0x9E3779B97F4A7C15ull;
	return (uintptr_t)(x >> 17);
}

static int set_grow(PtrSet *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	uintptr_t *slot = calloc(cap, sizeof *slot);
	if (!slot)
		return VTA_ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		uintptr_t p = s->slot[i];
		if (p > 1) {
			size_t j = hash_ptr(p) & (cap - 1);
			while (slot[j])
				j = (j + 1) & (cap - 1);
			slot[j] = p;
		}
	}
	free(s->slot);
	s->slot = slot;
	s->cap = cap;
	s->used = s->n;
	return VTA_OK;
}

static long set_index(const PtrSet *s, uintptr_t p)
{
	if (!s->cap || p <= 1)
		return -1;
	size_t j = hash_ptr(p) & (s->cap - 1);
	while (s->slot[j]) {
		if (s->slot[j] == p)
			return (long)j;
		j = (j + 1) & (s->cap - 1);
	}
	return -1;
}

static int set_add(PtrSet *s, uintptr_t p)
{
	if ((s->used + 1) * 2 > s->cap && set_grow(s))
		return VTA_ENOMEM;
	size_t j = hash_ptr(p) & (s->cap - 1);
	while (s->slot[j] > 1)
		j = (j + 1) & (s->cap - 1);
	if (!s->slot[j])
		s->used++;
	s->slot[j] = p;
	s->n++;
	return VTA_OK;
}

static void set_remove(PtrSet *s, long j)
{
	s->slot[j] = 1;
	s->n--;
}

static void handles_destroy(PtrSet *s)
{
	for (size_t i = 0; i < s->cap; i++)
		if (s->slot[i] > 1)
			free((void *)s->slot[i]);
	free(s->slot);
	memset(s, 0, sizeof *s);
}

int mem_owns_handle(Mem *m, const void *h)
{
	mem_lock(m);
	int yes = set_index(&m->handles, (uintptr_t)h) >= 0;
	mem_unlock(m);
	return yes;
}

long mem_handle(const Mem *m, const void *h, MemBlock *b, size_t *size)
{
	if (set_index(&m->handles, (uintptr_t)h) < 0)
		return -1;
	const MemBuffer *buf = h;
	long i = block_at(m, buf->off);
	if (i >= 0) {
		*b = view(&m->b[i]);
		*size = buf->size;
	}
	return i;
}

int mem_free_user(Mem *m, size_t off)
{
	mem_lock(m);
	long i = block_at(m, off);
	if (i >= 0 && (m->b[i].flags & MEM_INTERNAL || m->b[i].freed))
		i = -1;
	if (i >= 0)
		free_locked(m, (size_t)i);
	mem_unlock(m);
	return i >= 0 ? VTA_OK : VTA_EINVAL;
}

int mem_buffer_alloc(Mem *m, size_t size, const char *fn, MemBuffer **out, vta_error_t *err)
{
	*out = NULL;
	MemBuffer *b = calloc(1, sizeof *b);
	if (!b)
		return vta_error_set(err, VTA_ENOMEM, -1, "%s: out of host memory", fn);
	mem_lock(m);
	int rc = alloc_locked(m, size, 0, fn, &b->off, err);
	if (!rc && set_add(&m->handles, (uintptr_t)b)) {
		free_locked(m, (size_t)block_at(m, b->off));
		rc = vta_error_set(err, VTA_ENOMEM, -1, "%s: out of host memory", fn);
	}
	mem_unlock(m);
	if (rc) {
		free(b);
		return rc;
	}
	b->magic = BUFFER_MAGIC;
	b->size = size;
	b->va = mem_cpu(m, b->off, 0);
	b->pa = m->dev->dram_pa + b->off;
	*out = b;
	return VTA_OK;
}

int mem_buffer_free(Mem *m, void *h)
{
	MemBuffer *b = h;
	mem_lock(m);
	long j = set_index(&m->handles, (uintptr_t)b);
	if (j >= 0) {
		set_remove(&m->handles, j);
		long i = block_at(m, b->off);
		if (i >= 0)
			free_locked(m, (size_t)i);
	}
	mem_unlock(m);
	if (j < 0)
		return VTA_EINVAL;
	b->magic = 0;
	free(b);
	return VTA_OK;
}
