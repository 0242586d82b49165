/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TVM's memory API over the process's devices: VTAMem* and cache
 * maintenance (<vta/driver.h>), buffer handles (VTABuffer*, barriers) and
 * VTADevice*.
 *
 * VTAMemAlloc takes no device argument, so, as in TVM, its memory comes
 * from the device of the calling thread's context, and every other call
 * finds the device from the address or handle it is given, whichever
 * thread makes it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "api.h"

/* The block holding [p, p + n) of some device, locked, or NULL with an
 * error recorded naming fn. Unlock with range_done. */
static RtDev *find_range(const char *fn, const void *p, size_t n, MemBlock *b)
{
	RtDev *d = rtdev_of_ptr(p);
	if (!d) {
		api_error(VTA_EINVAL, "%s: %p is not in the DMA memory of an open device", fn, p);
		return NULL;
	}
	Mem *m = rtdev_mem(d);
	mem_lock(m);
	int64_t off = mem_window_off(m, p);
	if (mem_find_range(m, (uint64_t)off, 0, b) < 0) {
		mem_unlock(m);
		rtdev_release(d);
		api_error(VTA_EINVAL, "%s: %p is not in a live buffer of the %s device (freed?)", fn, p,
			  mem_device(m)->be->name);
		return NULL;
	}
	if (n > b->off + b->len - (uint64_t)off) {
		mem_unlock(m);
		rtdev_release(d);
		api_error(VTA_ERANGE, "%s: %zu bytes at %p run past the end of their %zu-byte buffer", fn,
			  n, p, b->len);
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
	vta_context_t *ctx = api_current();
	if (!ctx)
		return NULL;
	vta_error_t err;
	void *p = ctx_mem_alloc(ctx, size, cached, NULL, &err);
	if (!p)
		ctx_error(ctx, err.code, "%s", err.msg);
	return p;
}

void VTAMemFree(void *buf)
{
	if (!buf)
		return;
	RtDev *d = rtdev_of_ptr(buf);
	int rc = VTA_EINVAL;
	if (d) {
		Mem *m = rtdev_mem(d);
		rc = mem_free_user(m, (size_t)mem_window_off(m, buf));
	}
	if (rc)
		api_error(VTA_EINVAL, "VTAMemFree: %p is not a live VTAMemAlloc buffer (freed twice?)",
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
	uint64_t pa = rtdev_dev(d)->dram_pa + (uint64_t)mem_window_off(rtdev_mem(d), buf);
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
	int rc = rtdev_sync(d, flush, off, n, &err);
	if (rc)
		api_error(rc, "%s: %s", fn, err.msg);
	return rc;
}

/* Flush or invalidate CPU bytes [p, p + n) of a cached buffer. */
static void cache_op(int flush, const char *fn, const void *p, size_t n)
{
	MemBlock b;
	RtDev *d = n ? find_range(fn, p, n, &b) : NULL;
	if (!d)
		return;
	size_t off = (size_t)mem_window_off(rtdev_mem(d), p);
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
		api_error(VTA_EIO, "VTAProgram: cannot read bitstream \"%s\"",
			  bitstream ? bitstream : "(null)");
}

VTADeviceHandle VTADeviceAlloc(void) { return api_current(); }

void VTADeviceFree(VTADeviceHandle handle) { (void)handle; }

int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count,
		 uint32_t wait_cycles)
{
	vta_context_t *ctx = api_cmd(device, "VTADeviceRun");
	if (!ctx)
		return -1;
	vta_error_t err;
	vta_error_clear(&err);
	int rc = ctx_run(ctx, insn_phy_addr, insn_count, wait_cycles, &err);
	if (!rc)
		return 0;
	ctx_error_from(ctx, "VTADeviceRun", &err);
	return rc == VTA_ETIMEOUT ? 1 : -1;
}

/* ---- Buffer handles ------------------------------------------------------ */

void *VTABufferAlloc(size_t size)
{
	vta_context_t *ctx = api_current();
	if (!ctx)
		return NULL;
	MemBuffer *b;
	vta_error_t err;
	if (mem_buffer_alloc(rtdev_mem(ctx_dev(ctx)), size, "VTABufferAlloc", &b, &err)) {
		ctx_error(ctx, err.code, "%s", err.msg);
		return NULL;
	}
	return b;
}

void VTABufferFree(void *buffer)
{
	if (!buffer)
		return;
	RtDev *d = rtdev_of_handle(buffer);
	if (!d || mem_buffer_free(rtdev_mem(d), buffer))
		api_error(VTA_EINVAL, "VTABufferFree: %p is not a live buffer handle (freed twice?)",
			  buffer);
	if (d)
		rtdev_release(d);
}

void *VTABufferCPUPtr(VTACommandHandle cmd, void *buffer)
{
	(void)cmd; /* any thread may ask, whatever its context */
	RtDev *d = rtdev_of_handle(buffer);
	if (!d)
		return buffer;
	void *va = ((MemBuffer *)buffer)->va;
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
		api_error(VTA_EINVAL, "VTABufferCopy: %s %p is not a live buffer handle (freed?)", which,
			  p);
		return NULL;
	}
	const MemBuffer *b = p;
	if (off > b->size || size > b->size - off) {
		api_error(VTA_ERANGE, "VTABufferCopy: bytes [%zu, %zu) of %s lie outside its %zu-byte "
			  "buffer", off, off + size, which, b->size);
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
	vta_context_t *ctx = api_cmd(cmd, fn);
	if (!ctx || (ctx_debug(ctx) & skip_flag))
		return;
	RtDev *d = rtdev_of_handle(buffer);
	if (!d) {
		ctx_error(ctx, VTA_EINVAL, "%s: %p is not a live buffer handle", fn, buffer);
		return;
	}
	const MemBuffer *b = buffer;
	uint64_t eb = (elem_bits + 7) / 8, lo = start * eb, n = extent * eb;
	if (lo > b->size || n > b->size - lo)
		ctx_error(ctx, VTA_ERANGE, "%s: elements [%" PRIu32 ", %" PRIu32 ") of %" PRIu32
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
