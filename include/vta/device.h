/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every execution engine of a VTA program has in common: the golden
 * model (sim/fsim.c) and the RTL simulation both run an instruction stream
 * that lies in a device DRAM, with the per-stream base registers of
 * VTA-SPEC 2.4, and both report the same counters and the same errors. A test
 * written against vta_device_t runs unchanged on either.
 */
#ifndef VTA_DEVICE_H
#define VTA_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <vta/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Base registers added to dram_base * element bytes (VTA-SPEC 2.4, 5.1). */
typedef struct vta_bases {
	uint64_t uop, inp, wgt, acc, out;
} vta_bases_t;

/* Token queues, in the order used by every counter array below. */
enum { VTA_Q_L2G = 0, VTA_Q_G2L = 1, VTA_Q_G2S = 2, VTA_Q_S2G = 3, VTA_Q_COUNT = 4 };

typedef struct vta_counters {
	uint64_t insns[8];        /* instructions executed, by opcode */
	uint64_t gemm_uops;       /* micro-ops executed by non-reset GEMMs */
	uint64_t gemm_reset_uops; /* micro-ops executed by reset GEMMs */
	uint64_t alu_uops;        /* micro-ops executed by ALU instructions */
	uint64_t bytes_read[8];   /* DRAM bytes read, by memory type (padding excluded) */
	uint64_t bytes_written;   /* DRAM bytes written by STORE */
	uint64_t insn_bytes_read; /* DRAM bytes of instructions fetched */
	uint64_t token_waits[VTA_Q_COUNT]; /* instructions that had to wait for a token */
	uint64_t cycles;          /* clock cycles of the last run (0 for the golden model) */
	/* Cycles each module was busy (VTA_BUSY_*; 0 for the golden model):
	 * load and store executing an instruction (token waits included),
	 * compute executing GEMM and ALU instructions. */
	uint64_t busy[4];
} vta_counters_t;

enum { VTA_BUSY_LOAD = 0, VTA_BUSY_GEMM = 1, VTA_BUSY_ALU = 2, VTA_BUSY_STORE = 3 };

#ifdef __cplusplus
}
#endif

#endif /* VTA_DEVICE_H */
