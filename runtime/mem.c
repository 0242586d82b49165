/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device memory: a first-fit allocator of whole pages over a device's DMA
 * window, the driver API on top of it (VTAMem*, VTADevice*, cache
 * maintenance) and the runtime's buffer handles (VTABuffer*).
 *
 * VTAMemAlloc takes no device argument, so, as in TVM, there is one
 * allocator per process and device, shared by all threads (under a mutex):
 * its memory comes from the device of the calling thread's context, and
 * every other call finds the device from the address or handle it is given,
 * whichever thread makes it. Blocks are kept sorted by offset, so finding
 * the block that holds an address is a binary search. A block that queued or
 * running work still references is released only when that work is done.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

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

/* What VTABufferAlloc returns: the buffer behind an opaque handle. */
typedef struct {
	uint32_t magic;
	size_t off;  /* window offset of its block */
	size_t size; /* bytes asked for */
	uint8_t *va;
	uint64_t pa;
} Buffer;

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
static int64_t window_off(const Mem *m, const void *p)
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

int mem_in_window(const Mem *m, const void *p) { return window_off(m, p) >= 0; }

uint8_t *mem_cpu(const Mem *m, size_t off, int flags)
{
	const vta_dev_t *d = m->dev;
	return ((flags & MEM_UNCACHED) && d->dram_va_uc ? d->dram_va_uc : d->dram_va) + off;
}

/* The block holding [p, p + n) of some device, locked, or NULL with an
 * error recorded naming fn. Unlock with range_done. */
static RtDev *find_range(const char *fn, const void *p, size_t n, MemBlock *b)
{
	RtDev *d = rtdev_of_ptr(p);
	if (!d) {
		rt_error(NULL, VTA_EINVAL, "%s: %p is not in the DMA memory of an open device", fn, p);
		return NULL;
	}
	Mem *m = rtdev_mem(d);
	mem_lock(m);
	int64_t off = window_off(m, p);
	if (mem_find_range(m, (uint64_t)off, 0, b) < 0) {
		mem_unlock(m);
		rtdev_release(d);
		rt_error(NULL, VTA_EINVAL, "%s: %p is not in a live buffer of the %s device (freed?)",
			 fn, p, m->dev->be->name);
		return NULL;
	}
	if (n > b->off + b->len - (uint64_t)off) {
		mem_unlock(m);
		rtdev_release(d);
		rt_error(NULL, VTA_ERANGE, "%s: %zu bytes at %p run past the end of their %zu-byte buffer",
			 fn, n, p, b->len);
		return NULL;
	}
	return d;
}

static void range_done(RtDev *d)
{
	mem_unlock(rtdev_mem(d));
	rtdev_release(d);
}

/* ---- Driver API --------------------------------------------------------- */

void *VTAMemAlloc(size_t size, int cached)
{
	vta_context_t *ctx = rt_current();
	if (!ctx)
		return NULL;
	Mem *m = rtdev_mem(rt_dev(ctx));
	int flags = cached ? 0 : MEM_UNCACHED;
	size_t off;
	vta_error_t err;
	if (mem_alloc(m, size, flags, "VTAMemAlloc", &off, &err)) {
		rt_error(ctx, err.code, "%s", err.msg);
		return NULL;
	}
	return mem_cpu(m, off, flags);
}

void VTAMemFree(void *buf)
{
	if (!buf)
		return;
	RtDev *d = rtdev_of_ptr(buf);
	Mem *m = d ? rtdev_mem(d) : NULL;
	long i = -1;
	if (m) {
		mem_lock(m);
		int64_t off = window_off(m, buf);
		i = block_at(m, (size_t)off);
		if (i >= 0 && (m->b[i].flags & MEM_INTERNAL || m->b[i].freed))
			i = -1;
		if (i >= 0)
			free_locked(m, (size_t)i);
		mem_unlock(m);
	}
	if (i < 0)
		rt_error(NULL, VTA_EINVAL, "VTAMemFree: %p is not a live VTAMemAlloc buffer (freed twice?)",
			 buf);
	if (d)
		rtdev_release(d);
}

vta_phy_addr_t VTAMemGetPhyAddr(void *buf)
{
	MemBlock b;
	RtDev *d = find_range("VTAMemGetPhyAddr", buf, 0, &b);
	if (!d)
		return 0;
	uint64_t pa = rtdev_dev(d)->dram_pa + (uint64_t)window_off(rtdev_mem(d), buf);
	range_done(d);
	return (vta_phy_addr_t)pa;
}

void VTAMemCopyFromHost(void *dst, const void *src, size_t size)
{
	MemBlock b;
	RtDev *d = size ? find_range("VTAMemCopyFromHost", dst, size, &b) : NULL;
	if (d) {
		memcpy(dst, src, size);
		range_done(d);
	}
}

void VTAMemCopyToHost(void *dst, const void *src, size_t size)
{
	MemBlock b;
	RtDev *d = size ? find_range("VTAMemCopyToHost", src, size, &b) : NULL;
	if (d) {
		memcpy(dst, src, size);
		range_done(d);
	}
}

/* Flush (or invalidate) window bytes [off, off + n) of device d; errors
 * are recorded naming fn. */
static int sync_range(RtDev *d, int flush, size_t off, size_t n, const char *fn)
{
	vta_error_t err;
	vta_error_clear(&err);
	rtdev_lock(d);
	int rc = flush ? vta_dev_flush(rtdev_dev(d), off, n, 1, &err)
		       : vta_dev_invalidate(rtdev_dev(d), off, n, &err);
	rtdev_unlock(d);
	if (rc)
		rt_error(NULL, rc, "%s: %s", fn, err.msg);
	return rc;
}

/* Flush or invalidate CPU bytes [p, p + n) of a cached buffer. */
static void cache_op(int flush, const char *fn, const void *p, size_t n)
{
	MemBlock b;
	RtDev *d = n ? find_range(fn, p, n, &b) : NULL;
	if (!d)
		return;
	size_t off = (size_t)window_off(rtdev_mem(d), p);
	mem_unlock(rtdev_mem(d));
	if (!(b.flags & MEM_UNCACHED))
		sync_range(d, flush, off, n, fn);
	rtdev_release(d);
}

void VTAFlushCache(void *vir_addr, vta_phy_addr_t phy_addr, int size)
{
	(void)phy_addr;
	if (size >= 0)
		cache_op(1, "VTAFlushCache", vir_addr, (size_t)size);
}

void VTAInvalidateCache(void *vir_addr, vta_phy_addr_t phy_addr, int size)
{
	(void)phy_addr;
	if (size >= 0)
		cache_op(0, "VTAInvalidateCache", vir_addr, (size_t)size);
}

void VTAProgram(const char *bitstream)
{
	FILE *f = bitstream ? fopen(bitstream, "rb") : NULL;
	if (f)
		fclose(f);
	else
		rt_error(NULL, VTA_EIO, "VTAProgram: cannot read bitstream \"%s\"",
			 bitstream ? bitstream : "(null)");
}

VTADeviceHandle VTADeviceAlloc(void) { return rt_current(); }

void VTADeviceFree(VTADeviceHandle handle) { (void)handle; }

int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count,
		 uint32_t wait_cycles)
{
	vta_context_t *ctx = rt_cmd(device, "VTADeviceRun");
	if (!ctx)
		return -1;
	vta_error_t err;
	vta_error_clear(&err);
	int rc = rtdev_run(rt_dev(ctx), insn_phy_addr, insn_count, wait_cycles, &err);
	if (!rc)
		return 0;
	rt_error_from(ctx, "VTADeviceRun", &err);
	return rc == VTA_ETIMEOUT ? 1 : -1;
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
	const Buffer *buf = h;
	long i = block_at(m, buf->off);
	if (i >= 0) {
		*b = view(&m->b[i]);
		*size = buf->size;
	}
	return i;
}

void *VTABufferAlloc(size_t size)
{
	vta_context_t *ctx = rt_current();
	if (!ctx)
		return NULL;
	Mem *m = rtdev_mem(rt_dev(ctx));
	Buffer *b = calloc(1, sizeof *b);
	if (!b) {
		rt_error(ctx, VTA_ENOMEM, "VTABufferAlloc: out of host memory");
		return NULL;
	}
	vta_error_t err;
	mem_lock(m);
	int rc = alloc_locked(m, size, 0, "VTABufferAlloc", &b->off, &err);
	if (!rc && set_add(&m->handles, (uintptr_t)b)) {
		free_locked(m, (size_t)block_at(m, b->off));
		rc = vta_error_set(&err, VTA_ENOMEM, -1, "VTABufferAlloc: out of host memory");
	}
	mem_unlock(m);
	if (rc) {
		free(b);
		rt_error(ctx, rc, "%s", err.msg);
		return NULL;
	}
	b->magic = BUFFER_MAGIC;
	b->size = size;
	b->va = mem_cpu(m, b->off, 0);
	b->pa = m->dev->dram_pa + b->off;
	return b;
}

void VTABufferFree(void *buffer)
{
	if (!buffer)
		return;
	RtDev *d = rtdev_of_handle(buffer);
	if (!d) {
		rt_error(NULL, VTA_EINVAL, "VTABufferFree: %p is not a live buffer handle (freed twice?)",
			 buffer);
		return;
	}
	Mem *m = rtdev_mem(d);
	Buffer *b = buffer;
	mem_lock(m);
	long j = set_index(&m->handles, (uintptr_t)b);
	if (j >= 0) {
		set_remove(&m->handles, j);
		long i = block_at(m, b->off);
		if (i >= 0)
			free_locked(m, (size_t)i);
	}
	mem_unlock(m);
	if (j >= 0) {
		b->magic = 0;
		free(b);
	} else {
		rt_error(NULL, VTA_EINVAL, "VTABufferFree: %p is not a live buffer handle (freed twice?)",
			 buffer);
	}
	rtdev_release(d);
}

void *VTABufferCPUPtr(VTACommandHandle cmd, void *buffer)
{
	(void)cmd; /* any thread may ask, whatever its context */
	RtDev *d = rtdev_of_handle(buffer);
	if (!d)
		return buffer;
	void *va = ((Buffer *)buffer)->va;
	rtdev_release(d);
	return va;
}

/* One side of a copy: a handle (device) or a plain pointer; NULL with an
 * error recorded if the range does not fit the buffer. *dev gets the
 * device of a handle (with a reference) and *off its window offset. */
static uint8_t *copy_side(const void *p, int is_dev, size_t off, size_t size, const char *which,
			  RtDev **dev, size_t *woff)
{
	*dev = NULL;
	if (!is_dev)
		return (uint8_t *)p + off;
	RtDev *d = rtdev_of_handle(p);
	if (!d) {
		rt_error(NULL, VTA_EINVAL, "VTABufferCopy: %s %p is not a live buffer handle (freed?)",
			 which, p);
		return NULL;
	}
	const Buffer *b = p;
	if (off > b->size || size > b->size - off) {
		rt_error(NULL, VTA_ERANGE,
			 "VTABufferCopy: bytes [%zu, %zu) of %s lie outside its %zu-byte buffer", off,
			 off + size, which, b->size);
		rtdev_release(d);
		return NULL;
	}
	*dev = d;
	*woff = b->off + off;
	return b->va + off;
}

void VTABufferCopy(const void *from, size_t from_offset, void *to, size_t to_offset, size_t size,
		   int kind_mask)
{
	if (kind_mask == 0 || size == 0)
		return;
	int from_dev = (kind_mask & VTA_MEMCPY_D2H) != 0, to_dev = (kind_mask & VTA_MEMCPY_H2D) != 0;
	RtDev *ds, *dd = NULL;
	size_t so = 0, doff = 0;
	uint8_t *src = copy_side(from, from_dev, from_offset, size, "source", &ds, &so);
	uint8_t *dst = src ? copy_side(to, to_dev, to_offset, size, "destination", &dd, &doff) : NULL;
	if (dst && (!ds || !sync_range(ds, 0, so, size, "VTABufferCopy"))) {
		memmove(dst, src, size);
		if (dd)
			sync_range(dd, 1, doff, size, "VTABufferCopy");
	}
	if (ds)
		rtdev_release(ds);
	if (dd)
		rtdev_release(dd);
}

static void barrier(VTACommandHandle cmd, int flush, int skip_flag, const char *fn, void *buffer,
		    uint32_t elem_bits, uint32_t start, uint32_t extent)
{
	vta_context_t *ctx = rt_cmd(cmd, fn);
	if (!ctx || (cmd_debug(ctx) & skip_flag))
		return;
	RtDev *d = rtdev_of_handle(buffer);
	if (!d) {
		rt_error(ctx, VTA_EINVAL, "%s: %p is not a live buffer handle", fn, buffer);
		return;
	}
	const Buffer *b = buffer;
	uint64_t eb = (elem_bits + 7) / 8, lo = start * eb, n = extent * eb;
	if (lo > b->size || n > b->size - lo)
		rt_error(ctx, VTA_ERANGE, "%s: elements [%" PRIu32 ", %" PRIu32 ") of %" PRIu32
			 " bits lie outside the %zu-byte buffer", fn, start, start + extent,
			 elem_bits, b->size);
	else if (n)
		sync_range(d, flush, b->off + (size_t)lo, (size_t)n, fn);
	rtdev_release(d);
}

void VTAWriteBarrier(VTACommandHandle cmd, void *buffer, uint32_t elem_bits, uint32_t start,
		     uint32_t extent)
{
	barrier(cmd, 0, VTA_DEBUG_SKIP_WRITE_BARRIER, "VTAWriteBarrier", buffer, elem_bits, start,
		extent);
}

void VTAReadBarrier(VTACommandHandle cmd, void *buffer, uint32_t elem_bits, uint32_t start,
		    uint32_t extent)
{
	barrier(cmd, 1, VTA_DEBUG_SKIP_READ_BARRIER, "VTAReadBarrier", buffer, elem_bits, start,
		extent);
}
