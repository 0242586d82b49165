/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The zynq backend's test seam, so that the code that drives a board can
 * drive a simulation instead (tests/runtime/test_runtime_rtl.c connects it
 * to the RTL model's AXI4-Lite port, irq pin and DRAM). The rtl backend
 * drives its own model through the same struct (driver/regs.h).
 *
 * On a board the registers are mapped through UIO or /dev/mem and the DMA
 * window is a u-dma-buf region mapped twice: cached (maintained through the
 * region's sysfs sync files around every run, as the board's memory port does
 * not snoop the caches) and uncached (O_SYNC). A struct vta_mmio replaces the
 * registers and either the whole window (dma_va only: coherent memory) or
 * only its uncached view (root set: the cached view and the sync files are a
 * u-dma-buf tree under root, so the board's memory code runs as on a board).
 */
#ifndef VTA_DRIVER_ZYNQ_H
#define VTA_DRIVER_ZYNQ_H

#include <stddef.h>
#include <stdint.h>

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
	/* The DMA window as the device sees it: CPU address, device address,
	 * bytes. */
	uint8_t *dma_va;
	uint64_t dma_pa;
	size_t dma_size;
	/* Optional: a directory holding dev/udmabuf0 and
	 * sys/class/u-dma-buf/udmabuf0/ (phys_addr, size, sync_*) as on a board.
	 * Its dev/udmabuf0 is the cached view; it reaches dma_va only through
	 * the sync files, which the test serves: sysfs_written is called after
	 * every write to a file under root with the file's path. */
	const char *root;
	void (*sysfs_written)(void *opaque, const char *path);
	/* Optional: called where the board executes its memory barrier. */
	void (*barrier)(void *opaque);
};

/* An mmio connected to an RTL model (driver/backend_rtl.c): registers
 * through its AXI4-Lite port, pause = 64 cycles, wait_irq on its irq pin
 * (64 cycles a poll), DMA window = its DRAM at device address 0. */
struct vta_rtlsim;
void vta_rtl_mmio(struct vta_rtlsim *sim, struct vta_mmio *m);

#endif /* VTA_DRIVER_ZYNQ_H */
