/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Floor 3 of the runtime: the process's devices (devices.c). Each backend
 * is opened once per process and shared by every thread, as TVM's
 * VTAMemAlloc implies; a device owns the allocator of its DMA window. Every
 * stream is checked (validate.h) before a device runs it.
 */
#ifndef VTA_RUNTIME_DEVICES_H
#define VTA_RUNTIME_DEVICES_H

#include "alloc.h"
#include "validate.h"

typedef struct RtDev RtDev;

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
/* Flush (flush 1) or invalidate window bytes [off, off + n) of d, under
 * its run lock. */
int rtdev_sync(RtDev *d, int flush, size_t off, size_t n, vta_error_t *err);
/* Whether the last start through mapped registers was refused (set: 0 or
 * 1 to change it, -1 to ask); run lock held. */
int rtdev_start_refused(RtDev *d, int set);
/* Serialize access to the device's registers with runs of other threads. */
void rtdev_lock(RtDev *d);
void rtdev_unlock(RtDev *d);

#endif /* VTA_RUNTIME_DEVICES_H */
