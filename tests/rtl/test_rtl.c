/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Directed tests of the RTL through the C harness: registers, one program per
 * instruction kind and per error case, each compared with the golden model.
 */
#include "cosim_lib.h"

#include <vta/vta_regmap.h>

#include "test.h"

static cs_ctx_t ctx;
static int ready;

static cs_ctx_t *C(void)
{
	if (!ready) {
		CHECK(cs_init(&ctx) == 0);
		ready = 1;
	}
	return &ctx;
}

static void test_registers(void)
{
	vta_rtlsim_t *r = C()->rtl;
	CHECK_EQ(vta_rtlsim_reg_read(r, VTA_REG_CONFIG_ID), VTA_CONFIG_ID);
	CHECK_EQ(vta_rtlsim_reg_read(r, VTA_REG_HW_VERSION), 0x10000);
	vta_rtlsim_reg_write(r, VTA_REG_LOAD_INP_ADDR, 0x12345678);
	CHECK_EQ(vta_rtlsim_reg_read(r, VTA_REG_LOAD_INP_ADDR), 0x12345678);
	vta_rtlsim_reg_write(r, VTA_REG_LOAD_INP_ADDR, 0);
	CHECK(vta_rtlsim_reg_read(r, VTA_REG_STATUS) & VTA_STATUS_IDLE);
}

/* Run a generated program of the given kind and check both models agree and
 * the golden model returns want (or any code when want < 0). */
static void check_seed(uint64_t seed, int kind, int want)
{
	static cs_prog_t p;
	cs_gen(&p, seed, kind);
	int code = -1;
	int r = cs_run(C(), &p, &code);
	if (r)
		test_fail_(__FILE__, __LINE__, "seed %llu: %s", (unsigned long long)seed, C()->why);
	if (want >= 0)
		CHECK_EQ(code, want);
}

static void run_prog(cs_prog_t *p, int want)
{
	int code = -1;
	int r = cs_run(C(), p, &code);
	if (r)
		test_fail_(__FILE__, __LINE__, "%s", C()->why);
	CHECK_EQ(code, want);
}

static void finish(cs_prog_t *p)
{
	vta_insn_t f = {0};
	f.opcode = VTA_OPCODE_FINISH;
	cs_emit(p, &f);
}

/* LOAD INP/WGT -> GEMM -> STORE with tokens, known answer from the golden model */
static void test_gemm_store(void)
{
	static cs_prog_t p;
	memset(&p, 0, sizeof p);
	p.nuops = 2;
	vta_uop_t u0 = {0, 0, 0}, u1 = {1, 1, 1};
	vta_uop_encode(&u0, &p.uops[0], NULL);
	vta_uop_encode(&u1, &p.uops[1], NULL);
	vta_insn_t i = {0};
	i.opcode = VTA_OPCODE_LOAD; i.memory_type = VTA_MEM_ID_UOP;
	i.x_size = i.x_stride = 2; i.y_size = 1; i.dram_base = CS_UOP_AT / 4;
	cs_emit(&p, &i);
	memset(&i, 0, sizeof i);
	i.opcode = VTA_OPCODE_LOAD; i.memory_type = VTA_MEM_ID_INP;
	i.x_size = i.x_stride = 2; i.y_size = 1; i.dram_base = CS_DATA_AT / VTA_INP_ELEM_BYTES;
	cs_emit(&p, &i);
	i.memory_type = VTA_MEM_ID_WGT; i.dram_base = CS_DATA_AT / VTA_WGT_ELEM_BYTES + 3;
	i.push_next = 1;
	cs_emit(&p, &i);
	memset(&i, 0, sizeof i);
	i.opcode = VTA_OPCODE_GEMM; i.reset = 1; i.uop_bgn = 0; i.uop_end = 2;
	i.iter_out = i.iter_in = 1; i.pop_prev = 1;
	cs_emit(&p, &i);
	i.reset = 0; i.pop_prev = 0; i.iter_in = 3; i.push_next = 1;
	cs_emit(&p, &i);
	memset(&i, 0, sizeof i);
	i.opcode = VTA_OPCODE_STORE; i.memory_type = VTA_MEM_ID_OUT;
	i.x_size = i.x_stride = 2; i.y_size = 1; i.dram_base = CS_OUT_AT / 16;
	i.pop_prev = 1; i.push_prev = 1;
	cs_emit(&p, &i);
	memset(&i, 0, sizeof i);
	i.opcode = VTA_OPCODE_FINISH; i.pop_next = 1;
	cs_emit(&p, &i);
	run_prog(&p, 0);
}

static void test_alu_ops(void)
{
	for (unsigned op = 0; op <= 4; op++)
		for (unsigned imm = 0; imm < 2; imm++) {
			static cs_prog_t p;
			memset(&p, 0, sizeof p);
			p.nuops = 2;
			vta_uop_t u0 = {0, 1, 0}, u1 = {1, 0, 0};
			vta_uop_encode(&u0, &p.uops[0], NULL);
			vta_uop_encode(&u1, &p.uops[1], NULL);
			vta_insn_t i = {0};
			i.opcode = VTA_OPCODE_LOAD; i.memory_type = VTA_MEM_ID_UOP;
			i.x_size = i.x_stride = 2; i.y_size = 1; i.dram_base = CS_UOP_AT / 4;
			cs_emit(&p, &i);
			i.memory_type = VTA_MEM_ID_ACC; i.dram_base = CS_DATA_AT / VTA_ACC_ELEM_BYTES;
			cs_emit(&p, &i);
			memset(&i, 0, sizeof i);
			i.opcode = VTA_OPCODE_ALU; i.alu_opcode = op; i.use_imm = imm;
			i.imm = op == VTA_ALU_OPCODE_SHR ? -3 : -1234;
			i.uop_bgn = 0; i.uop_end = 2; i.iter_out = 2; i.iter_in = 2;
			i.push_next = 1;
			cs_emit(&p, &i);
			memset(&i, 0, sizeof i);
			i.opcode = VTA_OPCODE_STORE; i.memory_type = VTA_MEM_ID_OUT;
			i.x_size = i.x_stride = 2; i.y_size = 1; i.dram_base = CS_OUT_AT / 16;
			i.pop_prev = 1; i.push_prev = 1;
			cs_emit(&p, &i);
			memset(&i, 0, sizeof i);
			i.opcode = VTA_OPCODE_FINISH; i.pop_next = 1;
			cs_emit(&p, &i);
			run_prog(&p, 0);
		}
}

static void test_illegal_opcode(void)
{
	static cs_prog_t p;
	memset(&p, 0, sizeof p);
	cs_emit_raw(&p, 5, 0);
	finish(&p);
	run_prog(&p, VTA_EILLEGAL);
}

static void test_no_finish(void)
{
	static cs_prog_t p;
	memset(&p, 0, sizeof p);
	cs_emit_raw(&p, 0, 0); /* LOAD UOP x_size 0: compute no-op */
	run_prog(&p, VTA_EDEADLOCK);
}

static void test_random_valid(void)
{
	for (uint64_t s = 1; s <= 40; s++)
		check_seed(s, 0, -1);
}

static void test_random_faults(void)
{
	for (uint64_t s = 100; s < 160; s++)
		check_seed(s, 1, -1);
}

static void test_teardown(void)
{
	if (ready)
		cs_fini(&ctx);
	ready = 0;
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"registers", test_registers},
		{"gemm_store", test_gemm_store},
		{"alu_ops", test_alu_ops},
		{"illegal_opcode", test_illegal_opcode},
		{"no_finish", test_no_finish},
		{"random_valid", test_random_valid},
		{"random_faults", test_random_faults},
		{"teardown", test_teardown},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
