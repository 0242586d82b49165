/* SPDX-License-Identifier: Apache-2.0 */
/*
 * VTA assembly: a text form of instruction streams and the DRAM data they
 * use, and the binary files the `vta` tool reads and writes.
 *
 * A program is an instruction stream placed at a DRAM address, plus optional
 * data segments (micro-ops, inputs, weights, ...), base-register values and
 * result regions to print after a run. docs/assembly.md describes the syntax.
 *
 * Binary files: a program that is only instructions at address 0 is written
 * as a raw stream of 16-byte instructions (what the hardware fetches).
 * Anything else is written as a program image: the magic "VTAPROG1", then the
 * fields of vta_program_t in little-endian order (see asm.c).
 */
#ifndef VTA_ASM_H
#define VTA_ASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <vta/device.h>
#include <vta/error.h>
#include <vta/isa.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vta_segment {
	uint64_t addr;  /* DRAM byte address */
	uint8_t *bytes;
	size_t len;
} vta_segment_t;

enum { VTA_PRINT_I8 = 0, VTA_PRINT_I32 = 1 };

/* A DRAM region shown after a run: rows x cols values of one type. */
typedef struct vta_print {
	char name[32];
	uint64_t addr;
	uint32_t type; /* VTA_PRINT_* */
	uint32_t rows, cols;
} vta_print_t;

typedef struct vta_program {
	vta_insn_word_t *insns;
	size_t n_insns, cap_insns;
	uint64_t text_addr;   /* DRAM byte address of the instruction stream */
	uint64_t dram_bytes;  /* DRAM the program needs (0: just enough) */
	vta_bases_t bases;
	vta_segment_t *segs;
	size_t n_segs;
	vta_print_t *prints;
	size_t n_prints;
	uint32_t config_id;   /* configuration the program was assembled for */
} vta_program_t;

/* Assemble text (a whole file; name is used in messages as "name:line:").
 * On success *prog owns its memory; free it with vta_program_free. */
int vta_asm(const char *text, const char *name, vta_program_t *prog, vta_error_t *err);
void vta_program_free(vta_program_t *prog);

/* Write the program as text that vta_asm reads back to the same program. */
int vta_disasm(const vta_program_t *prog, FILE *out);

/* Read and write binary files (raw stream or image). */
int vta_program_write(const vta_program_t *prog, const char *path, vta_error_t *err);
int vta_program_read(const char *path, vta_program_t *prog, vta_error_t *err);
/* Parse a binary file already in memory. */
int vta_program_parse(const uint8_t *data, size_t len, const char *name, vta_program_t *prog,
		      vta_error_t *err);

/*
 * The most DRAM a program may claim or reach (.dram, its text, data, result
 * regions and base registers): 4 GiB, twice the largest board's DRAM, and what
 * `vta sim` may have to allocate for the golden model. The assembler and the
 * program reader refuse anything beyond it.
 */
#define VTA_PROGRAM_MAX_DRAM (UINT64_C(1) << 32)

/* DRAM bytes the program touches: the end of its text, data and result
 * regions (UINT64_MAX if that end does not fit in 64 bits). */
uint64_t vta_program_extent(const vta_program_t *prog);

/*
 * Copy the data segments and the instruction stream of prog into
 * dram[0..size), as `vta sim` runs it. Fails with VTA_ERANGE, naming the
 * piece that does not fit, before writing anything.
 */
int vta_program_place(const vta_program_t *prog, uint8_t *dram, uint64_t size, vta_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* VTA_ASM_H */
