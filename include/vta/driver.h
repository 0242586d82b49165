/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VTA driver API, source-compatible with TVM's <vta/driver.h>
 * (VTA-SPEC section 6): device buffers, cache maintenance and running an
 * instruction stream.
 *
 * Which device these functions talk to is chosen when the program runs, not
 * when it is built: the calling thread's VTA context (see <vta/runtime.h>)
 * opens the backend named by vta_set_target() or the VTA_TARGET environment
 * variable (fsim, rtl, zynq, xrt; default fsim) the first time it is needed.
 *
 * Memory. VTAMemAlloc() hands out memory from the DMA window of the calling
 * thread's device: the golden model's or the RTL simulation's DRAM, or the
 * board's u-dma-buf region. A buffer therefore belongs to one device; use it
 * only with that device's context. Buffers are page-aligned (4 KiB).
 *
 * Errors. TVM's versions of these functions aborted the process; ours never
 * do. A failing call returns NULL, 0 or nonzero as its prototype allows, does
 * nothing else, and records a message naming the problem that vta_errmsg()
 * returns (and, unless VTA_LOG_ERRORS=0, prints it to stderr).
 */
#ifndef VTA_DRIVER_H
#define VTA_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library exports exactly what its public headers declare. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* VTAMemAlloc(size, cached): request a CPU-cacheable or an uncached buffer. */
#define VTA_CACHED 1
#define VTA_NOT_CACHED 0

/* Largest physically contiguous buffer (32 MiB). */
#ifndef VTA_MAX_XFER
#define VTA_MAX_XFER (1 << 25)
#endif

/* Page size; every buffer is aligned to it. */
#define VTA_PAGE_BITS 12
#define VTA_PAGE_BYTES (1 << VTA_PAGE_BITS)

/* Opaque device context. */
typedef void *VTADeviceHandle;

/* A physical (device-visible) address. */
#ifdef USE_VTA64
typedef uint64_t vta_phy_addr_t;
#else
typedef uint32_t vta_phy_addr_t;
#endif

/*
 * Constructor. A handle on the calling thread's device, opening it if needed
 * (the handle shares the device with VTAMemAlloc and the runtime). NULL on
 * failure, for example a bitstream built for another configuration.
 */
VTADeviceHandle VTADeviceAlloc(void);

/* Destructor. Releases the handle; NULL is a no-op. */
void VTADeviceFree(VTADeviceHandle handle);

/*
 * Run insn_count instructions that start at physical address insn_phy_addr
 * (16-byte aligned, inside a VTAMemAlloc buffer) and wait until FINISH has
 * executed. wait_cycles bounds the wait in polls of the status register (on
 * the rtl target one poll is 64 clock cycles; where the device interrupts,
 * the wait sleeps on the interrupt and a wake-up counts as one poll); the
 * golden model never needs it. Returns 0 on completion, 1 on timeout (as TVM
 * did) and -1 on any other error (a deadlocked or illegal program, a bad
 * address, a bus error); vta_errmsg() says which. After an error or a
 * timeout the device is soft-reset and ready for the next run; a device left
 * busy or with tokens by an earlier program is soft-reset before the run.
 */
int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count,
		 uint32_t wait_cycles);

/*
 * Allocate size bytes (1 .. VTA_MAX_XFER) of device memory, page-aligned,
 * physically contiguous. Returns the CPU address, or NULL on failure.
 */
void *VTAMemAlloc(size_t size, int cached);

/* Free a buffer from VTAMemAlloc. NULL is a no-op; an unknown or already
 * freed address is reported as an error and otherwise ignored. */
void VTAMemFree(void *buf);

/* Physical address of a VTAMemAlloc address (or of a byte inside one);
 * 0 for any other pointer. */
vta_phy_addr_t VTAMemGetPhyAddr(void *buf);

/* Copy between host memory and a device buffer. The device side must lie
 * inside one live buffer; otherwise nothing is copied and an error is
 * recorded. */
void VTAMemCopyFromHost(void *dst, const void *src, size_t size);
void VTAMemCopyToHost(void *dst, const void *src, size_t size);

/* Make CPU writes visible to the device (flush) or device writes visible to
 * the CPU (invalidate). No-ops on coherent devices and the simulators. */
void VTAFlushCache(void *vir_addr, vta_phy_addr_t phy_addr, int size);
void VTAInvalidateCache(void *vir_addr, vta_phy_addr_t phy_addr, int size);

/* Accepted for compatibility; bitstreams are loaded by the board's tools
 * (see boards/), so this only records an error if path is not readable. */
void VTAProgram(const char *bitstream);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* VTA_DRIVER_H */
