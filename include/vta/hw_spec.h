/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Source compatibility with TVM's <vta/hw_spec.h>: the hardware constants
 * under TVM's names and the instruction and micro-op struct types that
 * TVM-era code builds instructions with.
 *
 * Everything here is derived from the one configuration header
 * <vta/vta_config.h> (generated from config/<name>.json). The structs use C
 * bit-fields because that is what existing code expects; the stack itself
 * never does: it encodes with the shift-and-mask codec of <vta/isa.h>. With
 * GCC and Clang on little-endian targets the two layouts are identical (a
 * field that would straddle a 64-bit word starts the next word, VTA-SPEC 3.1);
 * tests/runtime/test_compat.c checks that bit for bit.
 */
#ifndef VTA_HW_SPEC_H
#define VTA_HW_SPEC_H

#include <stdint.h>

#include <vta/vta_config.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Constants TVM's header had that the configuration header does not need. */
#ifndef VTA_MEMOP_PAD_VAL_BIT_WIDTH
#define VTA_MEMOP_PAD_VAL_BIT_WIDTH 2
#endif
#ifndef VTA_MUL_ARG_BIT_WIDTH
#define VTA_MUL_ARG_BIT_WIDTH 8
#endif
#ifndef VTA_LOG_UOP_BUFF_DEPTH
#error "vta_config.h is too old: VTA_LOG_UOP_BUFF_DEPTH is missing"
#endif

/* Instruction queue ids used by VTADepPush / VTADepPop (TVM's numbering). */
#define VTA_QID_LOAD_INP 1
#define VTA_QID_LOAD_WGT 1
#define VTA_QID_LOAD_OUT 2
#define VTA_QID_STORE_OUT 3
#define VTA_QID_COMPUTE 2

/* Any instruction: the opcode and the four dependency flags. */
typedef struct {
	uint64_t opcode : VTA_OPCODE_BIT_WIDTH;
	uint64_t pop_prev_dep : 1;
	uint64_t pop_next_dep : 1;
	uint64_t push_prev_dep : 1;
	uint64_t push_next_dep : 1;
	uint64_t pad_0 : 64 - VTA_OPCODE_BIT_WIDTH - 4;
	uint64_t pad_1 : 64;
} VTAGenericInsn;

/* LOAD and STORE (VTA-SPEC 3.4). */
typedef struct {
	uint64_t opcode : VTA_MEM_OPCODE_WIDTH;
	uint64_t pop_prev_dep : 1;
	uint64_t pop_next_dep : 1;
	uint64_t push_prev_dep : 1;
	uint64_t push_next_dep : 1;
	uint64_t memory_type : VTA_MEM_MEMORY_TYPE_WIDTH;
	uint64_t sram_base : VTA_MEM_SRAM_BASE_WIDTH;
	uint64_t dram_base : VTA_MEM_DRAM_BASE_WIDTH;
	uint64_t y_size : VTA_MEM_Y_SIZE_WIDTH;
	uint64_t x_size : VTA_MEM_X_SIZE_WIDTH;
	uint64_t x_stride : VTA_MEM_X_STRIDE_WIDTH;
	uint64_t y_pad_0 : VTA_MEM_Y_PAD_0_WIDTH;
	uint64_t y_pad_1 : VTA_MEM_Y_PAD_1_WIDTH;
	uint64_t x_pad_0 : VTA_MEM_X_PAD_0_WIDTH;
	uint64_t x_pad_1 : VTA_MEM_X_PAD_1_WIDTH;
} VTAMemInsn;

/* GEMM (VTA-SPEC 3.5). */
typedef struct {
	uint64_t opcode : VTA_GEMM_OPCODE_WIDTH;
	uint64_t pop_prev_dep : 1;
	uint64_t pop_next_dep : 1;
	uint64_t push_prev_dep : 1;
	uint64_t push_next_dep : 1;
	uint64_t reset_reg : 1;
	uint64_t uop_bgn : VTA_GEMM_UOP_BGN_WIDTH;
	uint64_t uop_end : VTA_GEMM_UOP_END_WIDTH;
	uint64_t iter_out : VTA_GEMM_ITER_OUT_WIDTH;
	uint64_t iter_in : VTA_GEMM_ITER_IN_WIDTH;
	uint64_t dst_factor_out : VTA_GEMM_DST_FACTOR_OUT_WIDTH;
	uint64_t dst_factor_in : VTA_GEMM_DST_FACTOR_IN_WIDTH;
	uint64_t src_factor_out : VTA_GEMM_SRC_FACTOR_OUT_WIDTH;
	uint64_t src_factor_in : VTA_GEMM_SRC_FACTOR_IN_WIDTH;
	uint64_t wgt_factor_out : VTA_GEMM_WGT_FACTOR_OUT_WIDTH;
	uint64_t wgt_factor_in : VTA_GEMM_WGT_FACTOR_IN_WIDTH;
} VTAGemInsn;

/* ALU (VTA-SPEC 3.6). */
typedef struct {
	uint64_t opcode : VTA_ALU_OPCODE_WIDTH;
	uint64_t pop_prev_dep : 1;
	uint64_t pop_next_dep : 1;
	uint64_t push_prev_dep : 1;
	uint64_t push_next_dep : 1;
	uint64_t reset_reg : 1;
	uint64_t uop_bgn : VTA_ALU_UOP_BGN_WIDTH;
	uint64_t uop_end : VTA_ALU_UOP_END_WIDTH;
	uint64_t iter_out : VTA_ALU_ITER_OUT_WIDTH;
	uint64_t iter_in : VTA_ALU_ITER_IN_WIDTH;
	uint64_t dst_factor_out : VTA_ALU_DST_FACTOR_OUT_WIDTH;
	uint64_t dst_factor_in : VTA_ALU_DST_FACTOR_IN_WIDTH;
	uint64_t src_factor_out : VTA_ALU_SRC_FACTOR_OUT_WIDTH;
	uint64_t src_factor_in : VTA_ALU_SRC_FACTOR_IN_WIDTH;
	uint64_t alu_opcode : VTA_ALU_ALU_OPCODE_WIDTH;
	uint64_t use_imm : 1;
	int64_t imm : VTA_ALU_IMM_WIDTH;
} VTAAluInsn;

/* One 128-bit instruction viewed in any of its formats. Tagged, because
 * TVM-era code declares `union VTAInsn converter;`. */
typedef union VTAInsn {
	VTAGenericInsn generic;
	VTAMemInsn mem;
	VTAGemInsn gemm;
	VTAAluInsn alu;
} VTAInsn;

/* One 32-bit micro-op (VTA-SPEC 3.8). */
typedef struct {
	uint32_t dst_idx : VTA_UOP_DST_IDX_WIDTH;
	uint32_t src_idx : VTA_UOP_SRC_IDX_WIDTH;
	uint32_t wgt_idx : VTA_UOP_WGT_IDX_WIDTH;
} VTAUop;

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
_Static_assert(sizeof(VTAInsn) == VTA_INS_WIDTH / 8, "VTAInsn must be 128 bits");
_Static_assert(sizeof(VTAUop) == VTA_UOP_WIDTH / 8, "VTAUop must be 32 bits");
#endif

#ifdef __cplusplus
}
#endif

#endif /* VTA_HW_SPEC_H */
