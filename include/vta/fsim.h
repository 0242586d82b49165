/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The golden model: a bit-exact functional simulator of VTA (VTA-SPEC
 * sections 2 to 4, with the Project rules). Every other implementation in the
 * stack is checked against it.
 *
 * The model owns a flat device DRAM; device (physical) address A is byte A of
 * that array. A run executes the instruction stream at insn_addr through the
 * three module queues and the four token queues until FINISH. It never hangs
 * and never aborts: a program that deadlocks, overflows a token queue, uses an
 * illegal opcode, memory type or flag, or addresses outside an SRAM or the
 * DRAM stops with an error naming the instruction (index and disassembly).
 *
 * SRAM contents and token counts persist from one run to the next, as on the
 * hardware (VTA-SPEC 4.9); vta_fsim_reset() clears them.
 */
#ifndef VTA_FSIM_H
#define VTA_FSIM_H

#include <stddef.h>
#include <stdint.h>

#include <vta/device.h>
#include <vta/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library exports exactly what its public headers declare. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef struct vta_fsim vta_fsim_t;

/* Create a model with dram_bytes of zeroed device DRAM. NULL on failure
 * (err says why). */
vta_fsim_t *vta_fsim_create(size_t dram_bytes, vta_error_t *err);
void vta_fsim_destroy(vta_fsim_t *sim);

/* The device DRAM, writable by the host between runs. */
uint8_t *vta_fsim_dram(vta_fsim_t *sim);
size_t vta_fsim_dram_size(const vta_fsim_t *sim);

/* Base registers used by the following runs (all zero after create). */
void vta_fsim_set_bases(vta_fsim_t *sim, const vta_bases_t *bases);

/*
 * Execute insn_count instructions starting at byte address insn_addr (16-byte
 * aligned). Returns 0 once FINISH has executed, or a VTA_E* code with err
 * filled in. Counters accumulate across runs until vta_fsim_clear_counters().
 */
int vta_fsim_run(vta_fsim_t *sim, uint64_t insn_addr, uint32_t insn_count, vta_error_t *err);

/* Clear SRAMs, token counts and counters, as after power-on. */
void vta_fsim_reset(vta_fsim_t *sim);

const vta_counters_t *vta_fsim_counters(const vta_fsim_t *sim);
void vta_fsim_clear_counters(vta_fsim_t *sim);

/* Outstanding tokens in queue q (VTA_Q_*). */
uint32_t vta_fsim_tokens(const vta_fsim_t *sim, int q);

/*
 * Direct view of an on-chip buffer for tests and debugging: memory_type is
 * VTA_MEM_ID_UOP, _WGT, _INP, _ACC or _OUT; *bytes receives its size. The
 * layout is that of VTA-SPEC 2.3 (elements of the type's size, in order).
 */
uint8_t *vta_fsim_sram(vta_fsim_t *sim, unsigned memory_type, size_t *bytes);

/*
 * GEMM runs an AVX2 kernel where the host has AVX2 (the default) or the
 * portable one; both give the same results. Returns 1 if the AVX2 kernel is
 * used after the call. Tests compare the two.
 */
int vta_fsim_use_simd(vta_fsim_t *sim, int enable);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* VTA_FSIM_H */
