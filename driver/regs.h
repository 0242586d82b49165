/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Control of a VTA device through its register window (docs/registers.md),
 * shared by the backends that reach the accelerator over AXI4-Lite: zynq (a
 * board, or the RTL model through a test port) and rtl (the RTL model). Every
 * access goes through a struct vta_mmio (driver/zynq.h), so the code that
 * drives a board is the code the RTL tests run.
 *
 * Life of a run: vta_regs_prepare (the device must be idle with no token
 * left, else it is soft-reset), vta_regs_run (start, wait on the interrupt or
 * poll, decode STATUS), and after any failure vta_regs_soft_reset. The reset
 * pin of a simulation is never used: a board has none after power-up.
 */
#ifndef VTA_DRIVER_REGS_H
#define VTA_DRIVER_REGS_H

#include <stddef.h>
#include <stdint.h>

#include <vta/device.h>
#include <vta/error.h>

struct vta_mmio;

/* Soft reset (CONTROL_SOFT_RESET) and wait until it completes; afterwards the
 * device must be idle with zero tokens. VTA_EIO when it does not complete
 * (a bus that never answers: only a PL reset helps, docs/runtime.md). */
int vta_regs_soft_reset(const struct vta_mmio *m, vta_error_t *err);

/* Before a run: if the device is not idle, has tokens left, an error flag or
 * a run in progress, soft-reset it. */
int vta_regs_prepare(const struct vta_mmio *m, vta_error_t *err);

/*
 * Run n instructions at device address insn_pa (base registers 0): clear
 * FETCH_ISR, enable IRQ_DONE and IRQ_ERROR, start, then wait for DONE or an
 * error flag for at most max_polls polls. With m->wait_irq the wait sleeps
 * on the interrupt (an interrupt costs one poll, a wait_irq timeout the polls
 * it was given); when wait_irq returns -1 it polls instead. Errors carry the
 * failing instruction (ERR_INSN) in err->insn_index; an AXI error response
 * is VTA_ERANGE when ERR_ADDR lies outside [dma_pa, dma_pa + dma_size),
 * VTA_EIO inside it; a refused start (STATUS_ERR_BUSY) is VTA_EIO.
 */
int vta_regs_run(const struct vta_mmio *m, uint64_t insn_pa, uint32_t n, uint32_t max_polls,
		 uint64_t dma_pa, size_t dma_size, vta_error_t *err);

/* Add the event counters of the last run to *c. */
void vta_regs_counters(const struct vta_mmio *m, vta_counters_t *c);

#endif /* VTA_DRIVER_REGS_H */
