/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VTA RTL in hw/ simulated by Verilator, driven from C: a clock, an
 * AXI4-Lite master on the control registers (docs/registers.md) and an AXI4
 * slave DRAM model with a configurable latency. The device interface mirrors
 * the golden model's (vta/fsim.h), so one test program runs on either.
 *
 * The clock is lazy: cycles run only inside register accesses, vta_rtlsim_step()
 * and vta_rtlsim_run(). Device address A is byte A of the DRAM array.
 *
 * The DRAM side models a Zynq HP port (docs/rtl.md, DRAM model): a read and a
 * write latency, optional seeded random legal back-pressure on every AXI and
 * AXI-Lite channel, error responses at chosen addresses, and an AXI protocol
 * monitor; a run during which the RTL broke an AXI rule fails with VTA_EIO.
 * The library reads no environment variable; the rtl backend
 * (driver/backend_rtl.c) maps VTA_RTL_DRAM_LATENCY and VTA_RTL_BACKPRESSURE
 * onto vta_rtlsim_set_axi().
 */
#ifndef VTA_RTLSIM_H
#define VTA_RTLSIM_H

#include <stddef.h>
#include <stdint.h>

#include <vta/device.h>
#include <vta/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vta_rtlsim vta_rtlsim_t;

/* Create a model with dram_bytes of zeroed device DRAM, held in reset for a
 * few cycles. NULL on failure (err says why). */
vta_rtlsim_t *vta_rtlsim_create(size_t dram_bytes, vta_error_t *err);
void vta_rtlsim_destroy(vta_rtlsim_t *sim);

uint8_t *vta_rtlsim_dram(vta_rtlsim_t *sim);
size_t vta_rtlsim_dram_size(const vta_rtlsim_t *sim);

/* Base registers written before each following run (all zero after create). */
void vta_rtlsim_set_bases(vta_rtlsim_t *sim, const vta_bases_t *bases);

/* The DRAM and bus model. */
typedef struct vta_rtlsim_axi {
	unsigned rd_latency;  /* cycles from an accepted AR to its first R beat */
	unsigned wr_latency;  /* cycles from the last W beat of a burst to its B */
	int backpressure;     /* 1: random legal stalls on every AXI and AXI-Lite channel */
	uint64_t seed;        /* of the stalls; the generator restarts at every power-on */
	unsigned max_burst;   /* the monitor fails bursts longer than this (beats) */
} vta_rtlsim_axi_t;

/* VTA_RTL_LATENCY_<board>: the modelled read latency in cycles of the PL clock
 * (docs/rtl.md, DRAM model); the default is the one of VTA_TARGET. */
enum { VTA_RTL_LATENCY_PYNQ = 24, VTA_RTL_LATENCY_ULTRA96 = 48 };

/* Defaults: read and write latency of the configuration's board, no
 * back-pressure, seed 1, bursts of at most 16 beats (the Zynq HP ports are
 * AXI3 ports). Takes effect at once (the seed at the next power-on). */
void vta_rtlsim_axi_defaults(vta_rtlsim_axi_t *axi);
void vta_rtlsim_set_axi(vta_rtlsim_t *sim, const vta_rtlsim_axi_t *axi);
void vta_rtlsim_get_axi(const vta_rtlsim_t *sim, vta_rtlsim_axi_t *axi);
/* Read latency only (kept for older callers). */
void vta_rtlsim_set_latency(vta_rtlsim_t *sim, unsigned cycles);

/* Error injection: every R beat, and every write burst, that touches a byte of
 * [addr, addr + bytes) gets response resp (2 SLVERR, 3 DECERR; a write burst
 * with an error response writes nothing). Accesses outside the DRAM always get
 * DECERR. Up to 8 ranges; they persist across power-ons until cleared.
 * Returns 0, or VTA_EINVAL for a bad resp or too many ranges. */
int vta_rtlsim_inject_error(vta_rtlsim_t *sim, uint64_t addr, uint64_t bytes, unsigned resp);
void vta_rtlsim_clear_errors(vta_rtlsim_t *sim);

/* The first AXI/AXI-Lite rule the RTL broke since power-on, or NULL. */
const char *vta_rtlsim_protocol_error(const vta_rtlsim_t *sim);
/* Test hook for the monitor itself: the next time an edge leaves ARVALID up
 * and not taken, the monitor is shown it low in the cycle after, as if the RTL
 * had dropped it (the model and the DRAM model see the real signal). One-shot;
 * kept across power-ons until it fires. */
void vta_rtlsim_test_drop_arvalid(vta_rtlsim_t *sim);

/* Watchdog: cycles without progress before a run is declared deadlocked. */
void vta_rtlsim_set_watchdog(vta_rtlsim_t *sim, uint32_t cycles);

/*
 * Start the instruction stream at insn_addr (insn_count instructions) the way
 * a PYNQ driver does (register writes of VTA-SPEC 5.1), then clock until
 * COMPUTE_DONE or an error flag, woken by the interrupt (GIE and IER are set,
 * ISR cleared before and after). Returns 0 or a VTA_E* code (err filled in,
 * err->insn_index from ERR_INSN): the STATUS error bits map to VTA_EILLEGAL,
 * VTA_ERANGE (SRAM range, AXI error response), VTA_ETOKEN, VTA_EDEADLOCK
 * (watchdog) and VTA_EIO (start refused: busy; or the protocol monitor saw a
 * violation, the message says which rule); VTA_ETIMEOUT after 2^32 cycles.
 * Tokens, SRAMs and errors of a previous run are not reset here.
 */
int vta_rtlsim_run(vta_rtlsim_t *sim, uint64_t insn_addr, uint32_t insn_count, vta_error_t *err);

/* Power-on again through the reset pin: a new model, SRAMs, token counts,
 * queues and counters cleared. A board has no such pin after power-up; the
 * backends recover with the soft reset instead. */
int vta_rtlsim_reset(vta_rtlsim_t *sim, vta_error_t *err);

/* Soft reset through CONTROL_SOFT_RESET (docs/registers.md): clock until it
 * completes; VTA_ETIMEOUT after max_cycles (a DMA burst that never ends). */
int vta_rtlsim_soft_reset(vta_rtlsim_t *sim, uint64_t max_cycles, vta_error_t *err);

/* The irq output pin. wait_irq clocks until it is high or max_cycles have
 * passed and returns the pin. */
int vta_rtlsim_irq(const vta_rtlsim_t *sim);
int vta_rtlsim_wait_irq(vta_rtlsim_t *sim, uint64_t max_cycles);

/* One injected range instead of all others (vta_rtlsim_inject_error):
 * bytes = 0 just removes them. */
void vta_rtlsim_set_fault(vta_rtlsim_t *sim, uint64_t addr, uint64_t bytes, unsigned resp);

/* AXI bursts the DRAM model has accepted and not finished (read bursts with
 * beats still to deliver, write bursts without their B response). A burst
 * the RTL abandoned stays here forever. */
unsigned vta_rtlsim_axi_pending(const vta_rtlsim_t *sim);

/* Counters of the last run (cycles, uops, DMA bytes, token waits). */
const vta_counters_t *vta_rtlsim_counters(const vta_rtlsim_t *sim);

/* Register-level access to the AXI4-Lite window (offsets of vta_regmap.h);
 * each access clocks the model until the handshake completes. */
uint32_t vta_rtlsim_reg_read(vta_rtlsim_t *sim, uint32_t offset);
void vta_rtlsim_reg_write(vta_rtlsim_t *sim, uint32_t offset, uint32_t value);
/* Clock the model n cycles. */
void vta_rtlsim_step(vta_rtlsim_t *sim, uint64_t n);
/* Cycles clocked since create. */
uint64_t vta_rtlsim_cycle(const vta_rtlsim_t *sim);
/* 64-bit event counter register (VTA_REG_CNT_*). */
uint64_t vta_rtlsim_counter(vta_rtlsim_t *sim, uint32_t offset);

#ifdef __cplusplus
}
#endif

#endif /* VTA_RTLSIM_H */
