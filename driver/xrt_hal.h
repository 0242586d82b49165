/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The xrt backend's test seam: the few calls of XRT's C HAL (xrt.h,
 * experimental/xrt-next.h) the backend makes, as a table. On a machine with
 * XRT the table is filled from libxrt_core at run time (dlopen: nothing
 * links against XRT); tests fill it with a model over the RTL simulation
 * (tests/runtime/xrt_model.c), so the backend's own logic runs in CI.
 */
#ifndef VTA_DRIVER_XRT_HAL_H
#define VTA_DRIVER_XRT_HAL_H

#include <stddef.h>
#include <stdint.h>

struct vta_xrt_hal {
	void *opaque;
	/* Devices present (xclProbe). */
	unsigned (*probe)(void *opaque);
	/* xclOpen / xclClose. */
	void *(*open)(void *opaque, unsigned index);
	void (*close)(void *dev);
	/* xclLoadXclBin with a checked image; NULL in a test seam. */
	int (*load_xclbin)(void *dev, const void *axlf);
	/* xclOpenContext (exclusive) / xclCloseContext on the IP. */
	int (*open_context)(void *dev, const unsigned char uuid[16], unsigned ip);
	void (*close_context)(void *dev, const unsigned char uuid[16], unsigned ip);
	/* xclIPName2Index: < 0 when the IP is not in the loaded xclbin. */
	int (*ip_index)(void *dev, const char *name);
	/* xclRegRead / xclRegWrite: 0 or an errno. */
	int (*reg_read)(void *dev, unsigned ip, uint32_t off, uint32_t *val);
	int (*reg_write)(void *dev, unsigned ip, uint32_t off, uint32_t val);
	/* Buffer objects: xclAllocBO (cacheable; 0xFFFFFFFF on failure),
	 * xclFreeBO, xclMapBO, xclUnmapBO, xclSyncBO (to_device 1: host ->
	 * device), and the device address from xclGetBOProperties. */
	unsigned (*alloc_bo)(void *dev, size_t size);
	void (*free_bo)(void *dev, unsigned bo);
	void *(*map_bo)(void *dev, unsigned bo);
	void (*unmap_bo)(void *dev, unsigned bo, void *addr);
	int (*sync_bo)(void *dev, unsigned bo, int to_device, size_t size, size_t offset);
	int (*bo_paddr)(void *dev, unsigned bo, uint64_t *paddr);
	/* The IP's interrupt (xclOpenIPInterruptNotify): wait at most timeout_ms
	 * for it; 1 fired, 0 timed out, -1 no interrupt (poll instead). */
	int (*wait_irq)(void *dev, unsigned ip, int timeout_ms);
	/* A test seam's xclbin UUID (with load_xclbin NULL). */
	const unsigned char *uuid;
};

#endif /* VTA_DRIVER_XRT_HAL_H */
