/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The zynq backend's two seams, so that the code that drives a board can
 * drive a simulation instead (tests/runtime/test_runtime_rtl.c connects them
 * to the RTL model's AXI4-Lite port and DRAM).
 *
 * On a board the registers are mapped through UIO or /dev/mem and the DMA
 * window is a u-dma-buf region; vta_zynq_open_mmio replaces both.
 */
#ifndef VTA_DRIVER_ZYNQ_H
#define VTA_DRIVER_ZYNQ_H

#include <stddef.h>
#include <stdint.h>

#include <vta/error.h>
#include <vta/runtime.h>

struct vta_mmio {
	void *opaque;
	/* Required: 32-bit accesses at byte offsets of vta_regmap.h. */
	uint32_t (*read32)(void *opaque, uint32_t off);
	void (*write32)(void *opaque, uint32_t off, uint32_t val);
	/* Optional: called between polls of the done register. */
	void (*pause)(void *opaque);
	/* Optional: return the accelerator to power-on state (a PL reset). */
	void (*reset)(void *opaque);
	/* The DMA window: CPU address, device address, bytes. */
	uint8_t *dma_va;
	uint64_t dma_pa;
	size_t dma_size;
};

/* Open a context whose zynq backend uses mmio (which must outlive it). */
int vta_zynq_open_mmio(const struct vta_mmio *mmio, vta_context_t **out, vta_error_t *err);

#endif /* VTA_DRIVER_ZYNQ_H */
