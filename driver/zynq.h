/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The zynq backend's two seams, so that the code that drives a board can
 * drive a simulation instead (tests/runtime/test_runtime_rtl.c connects them
 * to the RTL model's AXI4-Lite port, irq pin and DRAM). The rtl backend
 * drives its own model through the same struct (driver/regs.h).
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
	/* Optional: called between polls of the status register. */
	void (*pause)(void *opaque);
	/* Optional: wait for the interrupt line for at most `polls` poll
	 * intervals (re-enabling it first, as UIO wants): 1 when it fired, 0 on
	 * timeout, -1 when there is no interrupt (the caller polls instead). */
	int (*wait_irq)(void *opaque, uint32_t polls);
	/* The DMA window: CPU address, device address, bytes. */
	uint8_t *dma_va;
	uint64_t dma_pa;
	size_t dma_size;
};

/* Open a context whose zynq backend uses mmio (which must outlive it). */
int vta_zynq_open_mmio(const struct vta_mmio *mmio, vta_context_t **out, vta_error_t *err);

/* An mmio connected to an RTL model (driver/backend_rtl.c): registers
 * through its AXI4-Lite port, pause = 64 cycles, wait_irq on its irq pin
 * (64 cycles a poll), DMA window = its DRAM at device address 0. */
struct vta_rtlsim;
void vta_rtl_mmio(struct vta_rtlsim *sim, struct vta_mmio *m);

#endif /* VTA_DRIVER_ZYNQ_H */
