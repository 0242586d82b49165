/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device memory: a first-fit allocator of whole pages over the device's DMA
 * window, the driver API on top of it (VTAMem*, VTADevice*, cache
 * maintenance) and the runtime's buffer handles (VTABuffer*).
 *
 * VTAMemAlloc takes no device argument, so its memory comes from the calling
 * thread's current context, i.e. from that context's device: the
 * simulators' DRAM or a board's u-dma-buf region. Blocks are kept sorted by
 * offset, so finding the block that holds an address is a binary search.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define PAGE ((size_t)VTA_PAGE_BYTES)
#define BUFFER_MAGIC 0x56544142u /* "VTAB" */

int mem_alloc(vta_context_t *ctx, size_t size, int internal, size_t *off)
{
	Mem *m = &ctx->mem;
	vta_dev_t *d = ctx->dev;
	if (size == 0)
		return rt_error(ctx, VTA_EINVAL, "VTAMemAlloc: size 0");
	if (size > VTA_MAX_XFER && !internal)
		return rt_error(ctx, VTA_ERANGE,
				"VTAMemAlloc: %zu bytes is more than VTA_MAX_XFER (%d bytes)", size,
				VTA_MAX_XFER);
	size_t len = (size + PAGE - 1) / PAGE * PAGE;
	size_t prev_end = (d->dram_first + PAGE - 1) / PAGE * PAGE, i;
	for (i = 0; i < m->n; i++) {
		if (m->b[i].off - prev_end >= len)
			break;
		prev_end = m->b[i].off + m->b[i].len;
	}
	if (i == m->n && (prev_end > d->dram_size || d->dram_size - prev_end < len))
		return rt_error(ctx, VTA_ENOMEM,
				"VTAMemAlloc: no %zu contiguous bytes left in the %zu-byte DMA window of "
				"the %s device",
				len, d->dram_size - d->dram_first, d->be->name);
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		MemBlock *b = realloc(m->b, cap * sizeof *b);
		if (!b)
			return rt_error(ctx, VTA_ENOMEM, "VTAMemAlloc: out of host memory");
		m->b = b;
		m->cap = cap;
	}
	memmove(&m->b[i + 1], &m->b[i], (m->n - i) * sizeof *m->b);
	m->b[i] = (MemBlock){prev_end, len, internal};
	m->n++;
	if (!internal)
		m->user_blocks++;
	*off = prev_end;
	return VTA_OK;
}

void mem_free_block(vta_context_t *ctx, size_t i)
{
	Mem *m = &ctx->mem;
	if (!m->b[i].internal)
		m->user_blocks--;
	memmove(&m->b[i], &m->b[i + 1], (m->n - i - 1) * sizeof *m->b);
	m->n--;
}

long mem_find(const vta_context_t *ctx, const void *p)
{
	const vta_dev_t *d = ctx->dev;
	const uint8_t *q = p;
	if (!q || q < d->dram_va || q >= d->dram_va + d->dram_size)
		return -1;
	size_t off = (size_t)(q - d->dram_va), lo = 0, hi = ctx->mem.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const MemBlock *b = &ctx->mem.b[mid];
		if (off < b->off)
			hi = mid;
		else if (off >= b->off + b->len)
			lo = mid + 1;
		else
			return (long)mid;
	}
	return -1;
}

void mem_destroy(vta_context_t *ctx)
{
	free(ctx->mem.b);
	memset(&ctx->mem, 0, sizeof ctx->mem);
}

/* The block holding [p, p + n) of the calling thread's context, or -1 with
 * an error recorded naming fn. */
static long find_range(vta_context_t *ctx, const char *fn, const void *p, size_t n)
{
	long i = mem_find(ctx, p);
	if (i < 0) {
		rt_error(ctx, VTA_EINVAL, "%s: %p is not in a live buffer of the %s device (freed?)", fn,
			 p, ctx->dev->be->name);
		return -1;
	}
	const MemBlock *b = &ctx->mem.b[i];
	size_t off = (size_t)((const uint8_t *)p - ctx->dev->dram_va);
	if (n > b->off + b->len - off) {
		rt_error(ctx, VTA_ERANGE, "%s: %zu bytes at %p run past the end of their %zu-byte buffer",
			 fn, n, p, b->len);
		return -1;
	}
	return i;
}

/* ---- Driver API --------------------------------------------------------- */

void *VTAMemAlloc(size_t size, int cached)
{
	(void)cached; /* every window is mapped one way; see docs/runtime.md */
	vta_context_t *ctx = rt_current();
	size_t off;
	if (!ctx || mem_alloc(ctx, size, 0, &off))
		return NULL;
	return ctx->dev->dram_va + off;
}

void VTAMemFree(void *buf)
{
	if (!buf)
		return;
	vta_context_t *ctx = rt_current();
	if (!ctx)
		return;
	long i = mem_find(ctx, buf);
	if (i < 0 || ctx->dev->dram_va + ctx->mem.b[i].off != (uint8_t *)buf || ctx->mem.b[i].internal) {
		rt_error(ctx, VTA_EINVAL, "VTAMemFree: %p is not a live VTAMemAlloc buffer (freed twice?)",
			 buf);
		return;
	}
	mem_free_block(ctx, (size_t)i);
	rt_maybe_close(ctx);
}

vta_phy_addr_t VTAMemGetPhyAddr(void *buf)
{
	vta_context_t *ctx = rt_current();
	if (!ctx)
		return 0;
	if (mem_find(ctx, buf) < 0) {
		rt_error(ctx, VTA_EINVAL, "VTAMemGetPhyAddr: %p is not in a live buffer of the %s device",
			 buf, ctx->dev->be->name);
		return 0;
	}
	return (vta_phy_addr_t)(ctx->dev->dram_pa + (size_t)((uint8_t *)buf - ctx->dev->dram_va));
}

void VTAMemCopyFromHost(void *dst, const void *src, size_t size)
{
	vta_context_t *ctx = rt_current();
	if (ctx && size && find_range(ctx, "VTAMemCopyFromHost", dst, size) >= 0)
		memcpy(dst, src, size);
}

void VTAMemCopyToHost(void *dst, const void *src, size_t size)
{
	vta_context_t *ctx = rt_current();
	if (ctx && size && find_range(ctx, "VTAMemCopyToHost", src, size) >= 0)
		memcpy(dst, src, size);
}

static void cache_op(vta_context_t *ctx, int flush, const char *fn, const void *p, size_t n)
{
	vta_dev_t *d = ctx->dev;
	void (*op)(vta_dev_t *, size_t, size_t) = flush ? d->be->flush : d->be->invalidate;
	if (n == 0 || find_range(ctx, fn, p, n) < 0 || d->coherent || !op)
		return;
	op(d, (size_t)((const uint8_t *)p - d->dram_va), n);
}

void VTAFlushCache(void *vir_addr, vta_phy_addr_t phy_addr, int size)
{
	(void)phy_addr;
	vta_context_t *ctx = rt_current();
	if (ctx && size >= 0)
		cache_op(ctx, 1, "VTAFlushCache", vir_addr, (size_t)size);
}

void VTAInvalidateCache(void *vir_addr, vta_phy_addr_t phy_addr, int size)
{
	(void)phy_addr;
	vta_context_t *ctx = rt_current();
	if (ctx && size >= 0)
		cache_op(ctx, 0, "VTAInvalidateCache", vir_addr, (size_t)size);
}

void VTAProgram(const char *bitstream)
{
	vta_context_t *ctx = rt_current();
	FILE *f = bitstream ? fopen(bitstream, "rb") : NULL;
	if (f)
		fclose(f);
	else if (ctx)
		rt_error(ctx, VTA_EIO, "VTAProgram: cannot read bitstream \"%s\"",
			 bitstream ? bitstream : "(null)");
}

VTADeviceHandle VTADeviceAlloc(void)
{
	vta_context_t *ctx = rt_current();
	if (!ctx)
		return NULL;
	ctx->dev_handles++;
	return ctx;
}

void VTADeviceFree(VTADeviceHandle handle)
{
	vta_context_t *ctx = handle;
	if (ctx && ctx->magic == CTX_MAGIC && ctx->dev_handles > 0)
		ctx->dev_handles--;
}

int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count,
		 uint32_t wait_cycles)
{
	vta_context_t *ctx = rt_cmd(device, "VTADeviceRun");
	if (!ctx)
		return -1;
	vta_error_t err;
	vta_error_clear(&err);
	int rc = vta_dev_run(ctx->dev, insn_phy_addr, insn_count, wait_cycles, &err);
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

Buffer *buffer_lookup(const vta_context_t *ctx, const void *handle)
{
	return set_index(&ctx->handles, (uintptr_t)handle) >= 0 ? (Buffer *)handle : NULL;
}

void buffers_destroy(vta_context_t *ctx)
{
	PtrSet *s = &ctx->handles;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slot[i] > 1)
			free((void *)s->slot[i]);
	free(s->slot);
	memset(s, 0, sizeof *s);
}

void *VTABufferAlloc(size_t size)
{
	vta_context_t *ctx = rt_current();
	if (!ctx)
		return NULL;
	Buffer *b = calloc(1, sizeof *b);
	size_t off;
	if (!b || set_add(&ctx->handles, (uintptr_t)b)) {
		free(b);
		rt_error(ctx, VTA_ENOMEM, "VTABufferAlloc: out of host memory");
		return NULL;
	}
	if (mem_alloc(ctx, size, 0, &off)) {
		ctx->handles.slot[set_index(&ctx->handles, (uintptr_t)b)] = 1;
		ctx->handles.n--;
		free(b);
		return NULL;
	}
	b->magic = BUFFER_MAGIC;
	b->va = ctx->dev->dram_va + off;
	b->pa = ctx->dev->dram_pa + off;
	b->size = size;
	return b;
}

void VTABufferFree(void *buffer)
{
	if (!buffer)
		return;
	vta_context_t *ctx = rt_current();
	if (!ctx)
		return;
	long j = set_index(&ctx->handles, (uintptr_t)buffer);
	if (j < 0) {
		rt_error(ctx, VTA_EINVAL, "VTABufferFree: %p is not a live buffer handle (freed twice?)",
			 buffer);
		return;
	}
	Buffer *b = buffer;
	ctx->handles.slot[j] = 1;
	ctx->handles.n--;
	long i = mem_find(ctx, b->va);
	if (i >= 0)
		mem_free_block(ctx, (size_t)i);
	b->magic = 0;
	free(b);
	rt_maybe_close(ctx);
}

void *VTABufferCPUPtr(VTACommandHandle cmd, void *buffer)
{
	vta_context_t *ctx = rt_cmd(cmd, "VTABufferCPUPtr");
	Buffer *b = ctx ? buffer_lookup(ctx, buffer) : NULL;
	return b ? b->va : buffer;
}

/* Resolve one side of a copy: a handle (device) or a plain pointer. */
static uint8_t *copy_side(vta_context_t *ctx, const void *p, int is_dev, size_t off, size_t size,
			  const char *which)
{
	if (!is_dev)
		return (uint8_t *)p + off;
	Buffer *b = buffer_lookup(ctx, p);
	if (!b) {
		rt_error(ctx, VTA_EINVAL, "VTABufferCopy: %s %p is not a live buffer handle (freed?)",
			 which, p);
		return NULL;
	}
	if (off > b->size || size > b->size - off) {
		rt_error(ctx, VTA_ERANGE,
			 "VTABufferCopy: bytes [%zu, %zu) of %s lie outside its %zu-byte buffer", off,
			 off + size, which, b->size);
		return NULL;
	}
	return b->va + off;
}

void VTABufferCopy(const void *from, size_t from_offset, void *to, size_t to_offset, size_t size,
		   int kind_mask)
{
	vta_context_t *ctx = rt_current();
	if (!ctx || kind_mask == 0 || size == 0)
		return;
	int from_dev = (kind_mask & VTA_MEMCPY_D2H) != 0, to_dev = (kind_mask & VTA_MEMCPY_H2D) != 0;
	uint8_t *src = copy_side(ctx, from, from_dev, from_offset, size, "source");
	uint8_t *dst = src ? copy_side(ctx, to, to_dev, to_offset, size, "destination") : NULL;
	if (!dst)
		return;
	if (from_dev)
		cache_op(ctx, 0, "VTABufferCopy", src, size);
	memmove(dst, src, size);
	if (to_dev)
		cache_op(ctx, 1, "VTABufferCopy", dst, size);
}

static void barrier(VTACommandHandle cmd, int flush, int skip_flag, const char *fn, void *buffer,
		    uint32_t elem_bits, uint32_t start, uint32_t extent)
{
	vta_context_t *ctx = rt_cmd(cmd, fn);
	if (!ctx || (ctx->q.debug & skip_flag))
		return;
	Buffer *b = buffer_lookup(ctx, buffer);
	if (!b) {
		rt_error(ctx, VTA_EINVAL, "%s: %p is not a live buffer handle", fn, buffer);
		return;
	}
	uint64_t eb = (elem_bits + 7) / 8, lo = start * eb, n = extent * eb;
	if (lo > b->size || n > b->size - lo) {
		rt_error(ctx, VTA_ERANGE, "%s: elements [%" PRIu32 ", %" PRIu32 ") of %" PRIu32
			 " bits lie outside the %zu-byte buffer", fn, start, start + extent,
			 elem_bits, b->size);
		return;
	}
	cache_op(ctx, flush, fn, b->va + lo, (size_t)n);
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
