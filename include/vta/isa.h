/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VTA instruction set in C: encode, decode and validate the 128-bit
 * instructions and the 32-bit micro-op of the configuration this library was
 * built for (VTA-SPEC section 3).
 *
 * Encoding uses explicit shifts and masks with the field positions generated
 * in <vta/vta_config.h>; no C bit-fields are used, so the layout never depends
 * on a compiler.
 */
#ifndef VTA_ISA_H
#define VTA_ISA_H

#include <stddef.h>
#include <stdint.h>

#include <vta/error.h>
#include <vta/vta_config.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library exports exactly what its public headers declare. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* One encoded instruction: w[0] holds bits 63..0, w[1] bits 127..64. In DRAM
 * an instruction is w[0] then w[1], each little-endian. */
typedef struct vta_insn_word {
	uint64_t w[2];
} vta_insn_word_t;

/*
 * A decoded instruction. Which fields are meaningful depends on opcode:
 * LOAD/STORE use the memory fields, GEMM and ALU the compute fields (ALU also
 * alu_opcode, use_imm and imm), FINISH and reserved opcodes only the header.
 */
typedef struct vta_insn {
	uint32_t opcode; /* VTA_OPCODE_* (0..7) */
	uint32_t pop_prev, pop_next, push_prev, push_next;

	/* LOAD / STORE */
	uint32_t memory_type; /* VTA_MEM_ID_* */
	uint32_t sram_base;
	uint32_t dram_base;
	uint32_t y_size, x_size, x_stride;
	uint32_t y_pad_0, y_pad_1, x_pad_0, x_pad_1;

	/* GEMM / ALU */
	uint32_t reset;
	uint32_t uop_bgn, uop_end;
	uint32_t iter_out, iter_in;
	uint32_t dst_factor_out, dst_factor_in;
	uint32_t src_factor_out, src_factor_in;
	uint32_t wgt_factor_out, wgt_factor_in; /* GEMM only */
	uint32_t alu_opcode;                    /* ALU only: VTA_ALU_OPCODE_* */
	uint32_t use_imm;
	int32_t imm; /* signed 16-bit */
} vta_insn_t;

typedef struct vta_uop {
	uint32_t dst_idx, src_idx, wgt_idx;
} vta_uop_t;

/*
 * Encode in into *out. Every field must fit its width in this configuration;
 * otherwise VTA_ERANGE is returned with a message naming the field. Fields
 * that the opcode does not use must be zero. Reserved opcodes (5..7) are
 * encoded as a bare header so that tests can build illegal streams.
 */
int vta_insn_encode(const vta_insn_t *in, vta_insn_word_t *out, vta_error_t *err);

/* Decode w. Never fails: every bit pattern decodes to some vta_insn_t. */
void vta_insn_decode(const vta_insn_word_t *w, vta_insn_t *out);

/* Encode a micro-op; VTA_ERANGE names a field that does not fit. */
int vta_uop_encode(const vta_uop_t *in, uint32_t *out, vta_error_t *err);
void vta_uop_decode(uint32_t word, vta_uop_t *out);

/* Instructions as they lie in DRAM (16 little-endian bytes). */
void vta_insn_store(const vta_insn_word_t *w, uint8_t bytes[16]);
void vta_insn_load(const uint8_t bytes[16], vta_insn_word_t *w);

/* Which module executes the instruction (VTA-SPEC 4.2). */
typedef enum vta_module { VTA_MODULE_LOAD = 1, VTA_MODULE_COMPUTE = 2, VTA_MODULE_STORE = 3 } vta_module_t;
vta_module_t vta_insn_module(const vta_insn_t *in);

/* Bytes of one DRAM element of a memory type, or 0 for an illegal type. */
uint32_t vta_mem_elem_bytes(unsigned memory_type);
/* Depth in elements of the SRAM a memory type is loaded into, or 0. */
uint32_t vta_mem_depth(unsigned memory_type);

/* Lower-case names: "load", "gemm", ...; "uop", "wgt", ...; "min", "shr", ... */
const char *vta_opcode_name(unsigned opcode);
const char *vta_mem_name(unsigned memory_type);
const char *vta_alu_name(unsigned alu_opcode);

/*
 * One line of assembly for an instruction, in the syntax that vta_asm reads
 * (see docs/assembly.md). Returns the length written (truncated to n-1).
 */
int vta_insn_format(const vta_insn_t *in, char *buf, size_t n);

/*
 * The same for an encoded word. When the word is not the canonical encoding
 * of its decoded form (unused bits set, a reserved opcode) the line is a raw
 * ".insn 0x... 0x..." directive followed by the decoded form as a comment, so
 * that assembling the output always gives back the same bits.
 */
int vta_insn_word_format(const vta_insn_word_t *w, char *buf, size_t n);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* VTA_ISA_H */
