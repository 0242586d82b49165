/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Differential testing of the RTL against the golden model: programs, a
 * constrained-random generator, a runner that compares every DRAM byte and
 * the error code, a shrinker and the reproducer file format.
 */
#ifndef VTA_COSIM_LIB_H
#define VTA_COSIM_LIB_H

#include <vta/fsim.h>
#include <vta/isa.h>
#include <vta/rtlsim.h>

enum {
	CS_DRAM = 1 << 19,      /* device DRAM bytes */
	CS_MAX_INSNS = 1024,    /* instructions at address 0 */
	CS_UOP_AT = 0x4000,     /* micro-op table (byte address) */
	CS_MAX_UOPS = 1024,
	CS_DATA_AT = 0x8000,    /* random input data from here ... */
	CS_OUT_AT = 0x40000,    /* ... stores write from here to the end */
};

typedef struct cs_prog {
	uint32_t n;
	int has_axi;           /* the DRAM timing it failed under (reproducers) */
	uint64_t reset_after;  /* nonzero: cs_check soft-resets it this many cycles in */
	vta_rtlsim_axi_t axi;
	vta_insn_word_t insn[CS_MAX_INSNS];
	uint32_t nuops;
	uint32_t uops[CS_MAX_UOPS];
	vta_bases_t bases;
} cs_prog_t;

typedef struct cs_ctx {
	vta_fsim_t *fsim;
	vta_rtlsim_t *rtl;
	uint8_t *data; /* DRAM template */
	char why[1024];
	uint64_t rtl_cycles;
	vta_rtlsim_axi_t axi; /* DRAM timing of every cs_run (cs_init: the defaults) */
} cs_ctx_t;

int cs_init(cs_ctx_t *c);
void cs_fini(cs_ctx_t *c);

/* Run p on both models from power-on, the RTL with c->axi (or with p->axi
 * when the program carries one); 0 when they agree (why explains a
 * mismatch). *code receives the golden model's result code. */
int cs_run(cs_ctx_t *c, const cs_prog_t *p, int *code);
/* The same without the power-on of the RTL: it keeps its state (tokens,
 * SRAMs, queues) from whatever ran before, e.g. a soft reset; the golden
 * model still starts from reset. */
int cs_run_warm(cs_ctx_t *c, const cs_prog_t *p, int *code);
/* The parts of a run, for tests that drive the RTL themselves: put p into
 * both DRAMs (and the base registers), run it on the golden model and
 * return its code; then compare the DRAMs (0 when equal, else why says where). */
int cs_prepare(cs_ctx_t *c, const cs_prog_t *p, vta_error_t *golden_err);
int cs_same_dram(cs_ctx_t *c);

/* Reset and start mid-run: from power-on, start p on the RTL, let it run
 * for `after` cycles, soft-reset it (CONTROL_SOFT_RESET), check that no AXI
 * burst was abandoned, clear every SRAM with a padding-only program (the
 * golden model's start from reset has zeroed SRAMs), then run p again
 * without a power-on and compare it with the golden model as cs_run does. */
int cs_run_reset_midrun(cs_ctx_t *c, const cs_prog_t *p, uint64_t after, int *code);

/* cs_run, or cs_run_reset_midrun when p->reset_after is set. */
int cs_check(cs_ctx_t *c, const cs_prog_t *p, int *code);

/* Run p on the RTL alone from power-on (same DRAM image as cs_run);
 * returns its code (err filled in). */
int cs_run_rtl(cs_ctx_t *c, const cs_prog_t *p, vta_error_t *err);

/* Build a random program from seed (kind: -1 any, 0 valid only, 1 faulty). */
void cs_gen(cs_prog_t *p, uint64_t seed, int kind);

/* Shrink a failing program (fewer instructions, smaller loops) while it still fails. */
void cs_shrink(cs_ctx_t *c, cs_prog_t *p);

int cs_save(const cs_prog_t *p, const char *path, const char *comment);
int cs_load(cs_prog_t *p, const char *path);

/* Helpers for directed tests: append an instruction (encode errors fail). */
void cs_emit(cs_prog_t *p, const vta_insn_t *in);
/* A LOAD or STORE (op) of memory type t: y rows of x elements, DRAM row stride. */
vta_insn_t cs_mem(unsigned op, unsigned t, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
		  uint32_t stride);
void cs_emit_raw(cs_prog_t *p, uint64_t w0, uint64_t w1);

#endif
