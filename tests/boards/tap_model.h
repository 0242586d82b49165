/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A software JTAG chain for testing the JTAG engine without a cable: each
 * device is an IEEE 1149.1 TAP with IDCODE and BYPASS; Xilinx PL TAPs also
 * model JPROGRAM, CFG_IN, CFG_OUT and JSTART closely enough to check the
 * configuration sequence bit for bit. It plugs in as a vta_jtag_cable_t.
 */
#ifndef VTA_TESTS_TAP_MODEL_H
#define VTA_TESTS_TAP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "flash.h"

enum { TAP_OTHER, TAP_7SERIES, TAP_ZYNQMP };

#define TAP_MAX 8
#define TAP_LOG 64

typedef struct tap_dev {
	/* set up by the test */
	int kind;
	unsigned ir_len;
	uint32_t idcode;       /* 0: no IDCODE register (BYPASS after reset) */
	uint32_t idcode_insn;  /* its IDCODE instruction (0xE on an ARM DAP) */
	/* TAP state */
	uint32_t ir, ir_shift;
	uint64_t dr;
	unsigned dr_len;
	/* configuration logic (PL TAPs) */
	int program_count, early_data, done, start_seen, synced, stat_pending, jstart;
	unsigned long rti_since_program, rti_since_jstart;
	uint32_t word;          /* last 32 bits into CFG_IN */
	unsigned word_bits;
	int expect_cmd;
	uint32_t insn_log[TAP_LOG]; /* instructions at Update-IR, in order */
	int ninsn;
	uint8_t *cfg_bits;      /* bits of the first CFG_IN scan after JPROGRAM */
	size_t ncfg_bits, cfg_cap;
	int cfg_session;        /* 0 none yet, 1 recording, 2 done */
} tap_dev_t;

typedef struct tap_chain {
	int n;                  /* dev[0] is nearest TDO */
	tap_dev_t dev[TAP_MAX];
	int state;
	int tdo_stuck_low;
	unsigned long clocks;
} tap_chain_t;

/* Add a device at the TDI end of the chain (call in TDO-to-TDI order). */
void tap_add(tap_chain_t *c, int kind, unsigned ir_len, uint32_t idcode);

/* A cable whose opaque is c. */
vta_jtag_cable_t tap_cable(tap_chain_t *c);

/* Free what the model allocated. */
void tap_free(tap_chain_t *c);

/* The instruction codes of a PL device's model. */
uint32_t tap_insn(const tap_dev_t *d, uint32_t pl_insn);

#endif
