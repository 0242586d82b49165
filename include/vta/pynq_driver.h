/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Source compatibility with TVM's board driver header (src/pynq/pynq_driver.h
 * and the register constants TVM's build passes with -D): mapping the
 * accelerator's registers and writing them directly, as TVM's board tests do.
 *
 * The addresses are the board's (boards/boards.txt, for this configuration's
 * target); the `rtl` backend answers at the same addresses, and the `zynq`
 * backend on the board and over its test seam. A write that starts a run
 * (bit 0 of the fetch control register) is first checked like every other
 * launch (docs/runtime.md, "Checked streams"), with the base registers the
 * program wrote, and the touched buffers are flushed; a stream that reaches
 * outside the process's live buffers is not started (vta_errmsg() says why).
 */
#ifndef VTA_PYNQ_DRIVER_H
#define VTA_PYNQ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include <vta/driver.h>
#include <vta/vta_board_regs.h>
#include <vta/vta_regmap.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/*
 * Map the register page at physical address addr (one of VTA_*_ADDR below,
 * or any address inside the device's register window) and return a handle
 * for VTAReadMappedReg / VTAWriteMappedReg; NULL if the device has no
 * registers (fsim) or addr is outside them. TVM has had both
 * VTAMapRegister(addr) and VTAMapRegister(addr, length); both compile here
 * (the length is not needed: the window is the device's).
 */
void *VTAMapRegister(uint32_t addr, ...);
/* Release a handle (TVM's VTAUnmapRegister(vta) or (vta, length)). */
void VTAUnmapRegister(void *vta, ...);
/* 32-bit register access at byte offset `offset` from a handle. */
void VTAWriteMappedReg(void *base_addr, uint32_t offset, uint32_t val);
uint32_t VTAReadMappedReg(void *base_addr, uint32_t offset);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

/* TVM's constants: the values of the HLS control protocol (VTA-SPEC 5.1). */
#define VTA_START 0x1
#define VTA_AUTORESTART 0x81
#define VTA_DONE 0x1
#define VTA_RANGE 0x100

/* The four modules' register pages and their registers, as TVM's build
 * defines them (unless the program's build already did). */
#ifndef VTA_IP_REG_MAP_RANGE
#define VTA_IP_REG_MAP_RANGE 0x1000
#endif
#ifndef VTA_FETCH_ADDR
#define VTA_FETCH_ADDR (VTA_BOARD_REG_BASE + VTA_REG_FETCH_CTRL)
#define VTA_LOAD_ADDR (VTA_BOARD_REG_BASE + VTA_REG_LOAD_CTRL)
#define VTA_COMPUTE_ADDR (VTA_BOARD_REG_BASE + VTA_REG_COMPUTE_CTRL)
#define VTA_STORE_ADDR (VTA_BOARD_REG_BASE + VTA_REG_STORE_CTRL)
#endif
#ifndef VTA_FETCH_INSN_COUNT_OFFSET
#define VTA_FETCH_INSN_COUNT_OFFSET (VTA_REG_FETCH_INSN_COUNT - VTA_REG_FETCH_CTRL)
#define VTA_FETCH_INSN_ADDR_OFFSET (VTA_REG_FETCH_INSN_ADDR - VTA_REG_FETCH_CTRL)
#define VTA_LOAD_INP_ADDR_OFFSET (VTA_REG_LOAD_INP_ADDR - VTA_REG_LOAD_CTRL)
#define VTA_LOAD_WGT_ADDR_OFFSET (VTA_REG_LOAD_WGT_ADDR - VTA_REG_LOAD_CTRL)
#define VTA_COMPUTE_DONE_WR_OFFSET (VTA_REG_COMPUTE_DONE_WR - VTA_REG_COMPUTE_CTRL)
#define VTA_COMPUTE_DONE_RD_OFFSET (VTA_REG_COMPUTE_DONE - VTA_REG_COMPUTE_CTRL)
#define VTA_COMPUTE_UOP_ADDR_OFFSET (VTA_REG_COMPUTE_UOP_ADDR - VTA_REG_COMPUTE_CTRL)
#define VTA_COMPUTE_BIAS_ADDR_OFFSET (VTA_REG_COMPUTE_BIAS_ADDR - VTA_REG_COMPUTE_CTRL)
#define VTA_STORE_OUT_ADDR_OFFSET (VTA_REG_STORE_OUT_ADDR - VTA_REG_STORE_CTRL)
#endif

#ifdef __cplusplus
}
#endif

#endif /* VTA_PYNQ_DRIVER_H */
