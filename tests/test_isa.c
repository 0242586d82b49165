/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The instruction codec: the encoding examples of VTA-SPEC 3.10, the packing
 * rule of 3.9 recomputed here independently, round trips and field checks.
 */
#include <vta/isa.h>

#include "test.h"

#define IS_DEFAULT_CONFIG                                                                  \
	(VTA_LOG_BATCH == 0 && VTA_LOG_BLOCK == 4 && VTA_LOG_UOP_BUFF_SIZE == 15 &&         \
	 VTA_LOG_INP_BUFF_SIZE == 15 && VTA_LOG_WGT_BUFF_SIZE == 18 && VTA_LOG_ACC_BUFF_SIZE == 17)

static void check_words(const vta_insn_t *in, uint64_t w0, uint64_t w1)
{
	vta_insn_word_t w;
	vta_error_t err;
	CHECK_EQ(vta_insn_encode(in, &w, &err), VTA_OK);
	CHECK_U64(w.w[0], w0);
	CHECK_U64(w.w[1], w1);
	/* and back */
	vta_insn_word_t given = {{w0, w1}};
	vta_insn_t back;
	vta_insn_decode(&given, &back);
	CHECK(memcmp(&back, in, sizeof back) == 0);
}

/* VTA-SPEC 3.10, rows that do not depend on the configuration. */
static void spec_examples_memory(void)
{
	vta_insn_t in;
	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = VTA_MEM_ID_UOP;
	in.dram_base = 0x400;
	in.y_size = 1;
	in.x_size = 5;
	in.x_stride = 5;
	check_words(&in, 0x0000001000000000ull, 0x0000000500050001ull);

	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = VTA_MEM_ID_INP;
	in.push_next = 1;
	in.sram_base = 16;
	in.dram_base = 0x1234;
	in.y_size = 4;
	in.x_size = 4;
	in.x_stride = 16;
	in.y_pad_0 = in.y_pad_1 = in.x_pad_0 = in.x_pad_1 = 1;
	check_words(&in, 0x00000048D0004140ull, 0x1111001000040004ull);

	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_STORE;
	in.pop_prev = in.push_prev = 1;
	in.memory_type = VTA_MEM_ID_OUT;
	in.dram_base = 0x2000;
	in.y_size = 1;
	in.x_size = 8;
	in.x_stride = 8;
	check_words(&in, 0x0000008000000229ull, 0x0000000800080001ull);

	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_FINISH;
	check_words(&in, 0x3, 0);

	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_LOAD;
	in.pop_prev = 1;
	check_words(&in, 0x8, 0);
}

/* VTA-SPEC 3.10, rows for the default configuration only. */
static void spec_examples_compute(void)
{
#if IS_DEFAULT_CONFIG
	vta_insn_t in;
	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_GEMM;
	in.pop_prev = in.push_prev = 1;
	in.uop_bgn = 3;
	in.uop_end = 5;
	in.iter_out = 4;
	in.iter_in = 2;
	in.dst_factor_out = 1;
	in.dst_factor_in = 2;
	in.src_factor_out = 3;
	in.src_factor_in = 4;
	in.wgt_factor_out = 5;
	in.wgt_factor_in = 6;
	check_words(&in, 0x0004002000A0032Aull, 0x0180500800C01001ull);

	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_ALU;
	in.alu_opcode = VTA_ALU_OPCODE_SHR;
	in.use_imm = 1;
	in.imm = -3;
	in.uop_bgn = 0;
	in.uop_end = 1;
	in.iter_out = 1;
	in.iter_in = 8;
	in.dst_factor_in = 1;
	in.src_factor_in = 1;
	check_words(&in, 0x0010000800200004ull, 0xFFFDB00200000800ull);

	vta_uop_t u = {5, 7, 9}, back;
	uint32_t word;
	CHECK_EQ(vta_uop_encode(&u, &word, NULL), VTA_OK);
	CHECK_U64(word, 0x02403805u);
	vta_uop_decode(0x02403805u, &back);
	CHECK_EQ(back.dst_idx, 5);
	CHECK_EQ(back.src_idx, 7);
	CHECK_EQ(back.wgt_idx, 9);
#endif
}

/*
 * The packing rule of VTA-SPEC 3.9, recomputed from the buffer depths alone,
 * must give the positions the generator wrote into vta_config.h.
 */
static int packed_lsb(const int *widths, int n, int which)
{
	int pos = 0;
	for (int i = 0; i < n; i++) {
		if (pos % 64 + widths[i] > 64)
			pos = (pos / 64 + 1) * 64;
		if (i == which)
			return pos;
		pos += widths[i];
	}
	return -1;
}

static void packing_rule(void)
{
	int u = VTA_LOG_UOP_BUFF_DEPTH, a = VTA_LOG_ACC_BUFF_DEPTH, i = VTA_LOG_INP_BUFF_DEPTH,
	    w = VTA_LOG_WGT_BUFF_DEPTH;
	int gemm[] = {3, 1, 1, 1, 1, 1, u, u + 1, 14, 14, a, a, i, i, w, w};
	CHECK_EQ(VTA_GEMM_UOP_END_LSB, packed_lsb(gemm, 16, 7));
	CHECK_EQ(VTA_GEMM_DST_FACTOR_OUT_LSB, packed_lsb(gemm, 16, 10));
	CHECK_EQ(VTA_GEMM_SRC_FACTOR_IN_LSB, packed_lsb(gemm, 16, 13));
	CHECK_EQ(VTA_GEMM_WGT_FACTOR_IN_LSB, packed_lsb(gemm, 16, 15));
	int alu[] = {3, 1, 1, 1, 1, 1, u, u + 1, 14, 14, a, a, a, a, 3, 1, 16};
	CHECK_EQ(VTA_ALU_SRC_FACTOR_OUT_LSB, packed_lsb(alu, 17, 12));
	CHECK_EQ(VTA_ALU_ALU_OPCODE_LSB, packed_lsb(alu, 17, 14));
	CHECK_EQ(VTA_ALU_IMM_LSB, packed_lsb(alu, 17, 16));
	CHECK_EQ(VTA_UOP_SRC_IDX_LSB, a);
	CHECK_EQ(VTA_UOP_WGT_IDX_LSB, a + (a > i ? a : i));
	CHECK(VTA_UOP_WGT_IDX_LSB + VTA_UOP_WGT_IDX_WIDTH <= 32);
}

static uint32_t rand_field(uint64_t *s, int width)
{
	return (uint32_t)(test_rand(s) & ((width >= 32 ? 0xFFFFFFFFull : (1ull << width) - 1)));
}

/* Random field values of every format survive encode -> decode. */
static void round_trip_random(void)
{
	uint64_t s = 42;
	for (int n = 0; n < 20000; n++) {
		vta_insn_t in, back;
		memset(&in, 0, sizeof in);
		int kind = (int)(test_rand(&s) % 4);
		in.pop_prev = rand_field(&s, 1);
		in.pop_next = rand_field(&s, 1);
		in.push_prev = rand_field(&s, 1);
		in.push_next = rand_field(&s, 1);
		if (kind <= 1) {
			in.opcode = (uint32_t)kind;
			in.memory_type = rand_field(&s, 3);
			in.sram_base = rand_field(&s, 16);
			in.dram_base = rand_field(&s, 32);
			in.y_size = rand_field(&s, 16);
			in.x_size = rand_field(&s, 16);
			in.x_stride = rand_field(&s, 16);
			in.y_pad_0 = rand_field(&s, 4);
			in.y_pad_1 = rand_field(&s, 4);
			in.x_pad_0 = rand_field(&s, 4);
			in.x_pad_1 = rand_field(&s, 4);
		} else {
			in.opcode = kind == 2 ? VTA_OPCODE_GEMM : VTA_OPCODE_ALU;
			in.reset = rand_field(&s, 1);
			in.uop_bgn = rand_field(&s, VTA_LOG_UOP_BUFF_DEPTH);
			in.uop_end = rand_field(&s, VTA_LOG_UOP_BUFF_DEPTH + 1);
			in.iter_out = rand_field(&s, 14);
			in.iter_in = rand_field(&s, 14);
			in.dst_factor_out = rand_field(&s, VTA_LOG_ACC_BUFF_DEPTH);
			in.dst_factor_in = rand_field(&s, VTA_LOG_ACC_BUFF_DEPTH);
			if (kind == 2) {
				in.src_factor_out = rand_field(&s, VTA_LOG_INP_BUFF_DEPTH);
				in.src_factor_in = rand_field(&s, VTA_LOG_INP_BUFF_DEPTH);
				in.wgt_factor_out = rand_field(&s, VTA_LOG_WGT_BUFF_DEPTH);
				in.wgt_factor_in = rand_field(&s, VTA_LOG_WGT_BUFF_DEPTH);
			} else {
				in.src_factor_out = rand_field(&s, VTA_LOG_ACC_BUFF_DEPTH);
				in.src_factor_in = rand_field(&s, VTA_LOG_ACC_BUFF_DEPTH);
				in.alu_opcode = rand_field(&s, 3);
				in.use_imm = rand_field(&s, 1);
				in.imm = (int16_t)rand_field(&s, 16);
			}
		}
		vta_insn_word_t w;
		CHECK_EQ(vta_insn_encode(&in, &w, NULL), VTA_OK);
		vta_insn_decode(&w, &back);
		CHECK(memcmp(&in, &back, sizeof in) == 0);
		if (test_failed_)
			return;
	}
}

static void field_range_errors(void)
{
	vta_insn_t in;
	vta_insn_word_t w;
	vta_error_t err;
	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_LOAD;
	in.x_size = 65536;
	CHECK_EQ(vta_insn_encode(&in, &w, &err), VTA_ERANGE);
	CHECK_STR_CONTAINS(err.msg, "x_size = 65536");
	CHECK_STR_CONTAINS(err.msg, "16-bit");

	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_GEMM;
	in.uop_end = 1u << (VTA_LOG_UOP_BUFF_DEPTH + 1);
	CHECK_EQ(vta_insn_encode(&in, &w, &err), VTA_ERANGE);
	CHECK_STR_CONTAINS(err.msg, "uop_end");

	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_ALU;
	in.use_imm = 1;
	in.imm = 32768;
	CHECK_EQ(vta_insn_encode(&in, &w, &err), VTA_ERANGE);
	CHECK_STR_CONTAINS(err.msg, "imm = 32768");
	in.imm = -32768; /* the sign boundary itself fits */
	CHECK_EQ(vta_insn_encode(&in, &w, &err), VTA_OK);
	vta_insn_t back;
	vta_insn_decode(&w, &back);
	CHECK_EQ(back.imm, -32768);
	in.imm = 32767;
	CHECK_EQ(vta_insn_encode(&in, &w, &err), VTA_OK);
	vta_insn_decode(&w, &back);
	CHECK_EQ(back.imm, 32767);

	/* A field of another format must be zero. */
	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_GEMM;
	in.x_size = 3;
	CHECK_EQ(vta_insn_encode(&in, &w, &err), VTA_EINVAL);
	CHECK_STR_CONTAINS(err.msg, "x_size");

	vta_uop_t u = {VTA_ACC_BUFF_DEPTH, 0, 0};
	uint32_t word;
	CHECK_EQ(vta_uop_encode(&u, &word, &err), VTA_ERANGE);
	CHECK_STR_CONTAINS(err.msg, "dst_idx");
}

static void routing_and_sizes(void)
{
	vta_insn_t in;
	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = VTA_MEM_ID_INP;
	CHECK_EQ(vta_insn_module(&in), VTA_MODULE_LOAD);
	in.memory_type = VTA_MEM_ID_WGT;
	CHECK_EQ(vta_insn_module(&in), VTA_MODULE_LOAD);
	in.memory_type = VTA_MEM_ID_UOP;
	CHECK_EQ(vta_insn_module(&in), VTA_MODULE_COMPUTE);
	in.memory_type = VTA_MEM_ID_ACC;
	CHECK_EQ(vta_insn_module(&in), VTA_MODULE_COMPUTE);
	in.memory_type = 7;
	CHECK_EQ(vta_insn_module(&in), VTA_MODULE_COMPUTE);
	in.opcode = VTA_OPCODE_STORE;
	CHECK_EQ(vta_insn_module(&in), VTA_MODULE_STORE);
	in.opcode = 6;
	CHECK_EQ(vta_insn_module(&in), VTA_MODULE_COMPUTE);
	/* Element sizes of VTA-SPEC 1.5 from the tile shape. */
	CHECK_EQ(vta_mem_elem_bytes(VTA_MEM_ID_UOP), 4);
	CHECK_EQ(vta_mem_elem_bytes(VTA_MEM_ID_INP), VTA_BATCH * VTA_BLOCK_IN);
	CHECK_EQ(vta_mem_elem_bytes(VTA_MEM_ID_WGT), VTA_BLOCK_OUT * VTA_BLOCK_IN);
	CHECK_EQ(vta_mem_elem_bytes(VTA_MEM_ID_ACC), 4 * VTA_BATCH * VTA_BLOCK_OUT);
	CHECK_EQ(vta_mem_elem_bytes(VTA_MEM_ID_ACC_8BIT), VTA_BATCH * VTA_BLOCK_OUT);
	CHECK_EQ(vta_mem_elem_bytes(6), 0);
	CHECK_EQ(VTA_ACC_BUFF_DEPTH * vta_mem_elem_bytes(VTA_MEM_ID_ACC), 1 << VTA_LOG_ACC_BUFF_SIZE);
}

static void dram_byte_order(void)
{
	vta_insn_word_t w = {{0x0807060504030201ull, 0x100F0E0D0C0B0A09ull}}, back;
	uint8_t b[16];
	vta_insn_store(&w, b);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(b[i], i + 1);
	vta_insn_load(b, &back);
	CHECK_U64(back.w[0], w.w[0]);
	CHECK_U64(back.w[1], w.w[1]);
}

/* Every code of error.h by its name as written there; other values none. */
static void status_names(void)
{
	static const struct {
		int code;
		const char *name;
	} codes[] = {{VTA_OK, "VTA_OK"}, {VTA_EINVAL, "VTA_EINVAL"}, {VTA_ERANGE, "VTA_ERANGE"},
		     {VTA_EILLEGAL, "VTA_EILLEGAL"}, {VTA_EDEADLOCK, "VTA_EDEADLOCK"}, {VTA_ETOKEN, "VTA_ETOKEN"},
		     {VTA_ENOMEM, "VTA_ENOMEM"}, {VTA_EIO, "VTA_EIO"}, {VTA_ETIMEOUT, "VTA_ETIMEOUT"},
		     {VTA_EUNSUPPORTED, "VTA_EUNSUPPORTED"}};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		const char *n = vta_status_name(codes[i].code);
		CHECK(n && !strcmp(n, codes[i].name));
	}
	CHECK(vta_status_name(-1) == NULL);
	CHECK(vta_status_name(10) == NULL);
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"spec_examples_memory", spec_examples_memory},
		{"spec_examples_compute", spec_examples_compute},
		{"packing_rule", packing_rule},
		{"round_trip_random", round_trip_random},
		{"field_range_errors", field_range_errors},
		{"routing_and_sizes", routing_and_sizes},
		{"dram_byte_order", dram_byte_order},
		{"status_names", status_names},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
