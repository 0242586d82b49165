/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime on the golden model: TVM source compatibility (the worked
 * example of VTA-SPEC 7.4, hw_spec.h struct layouts), backend selection,
 * the bitstream check, one context per thread, and the shared runtime cases
 * of rt_cases.c.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* What TVM-era code includes. */
#include <vta/driver.h>
#include <vta/hw_spec.h>
#include <vta/runtime/runtime.h>

#include <vta/isa.h>
#include <vta/pynq_driver.h>
#include <vta/runtime.h>
#include <vta/vta_regmap.h>

#include "../../driver/zynq.h"
#include "../../runtime/seams.h"
#include "../test.h"
#include "rt_common.h"

/* ---- VTA-SPEC 7.4 worked example, written as TVM-era code --------------- */

static void *example_slot;

static int example_kernel(void *signature)
{
	(void)signature;
	VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
	return 0;
}

static void test_worked_example(void)
{
	VTACommandHandle cmd = VTATLSCommandHandle();
	void *inp = VTABufferAlloc(VTA_INP_ELEM_BYTES);
	void *wgt = VTABufferAlloc(VTA_WGT_ELEM_BYTES);
	void *out = VTABufferAlloc(VTA_OUT_ELEM_BYTES);
	VTALoadBuffer2D(cmd, inp, 0, 1, 1, 1, 0, 0, 0, 0, 0, VTA_MEM_ID_INP);
	VTALoadBuffer2D(cmd, wgt, 0, 1, 1, 1, 0, 0, 0, 0, 0, VTA_MEM_ID_WGT);
	VTADepPush(cmd, 1, 2);
	VTADepPop(cmd, 1, 2);
	VTAPushGEMMOp(&example_slot, example_kernel, NULL, 0);
	VTADepPush(cmd, 2, 3);
	VTADepPop(cmd, 2, 3);
	VTAStoreBuffer2D(cmd, 0, VTA_MEM_ID_OUT, out, 0, 1, 1, 1);
	VTASynchronize(cmd, 1u << 31);
	CHECK_EQ(vta_errcode(NULL), 0);

	const uint8_t *bytes;
	size_t n;
	CHECK_EQ(vta_context_last_stream(vta_context_current(), &bytes, &n), 0);
	CHECK_EQ(n, 8);
	static const struct {
		unsigned opcode, mem, x_size, pop_prev, pop_next, push_prev, push_next;
	} want[8] = {
		{VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 1, 0, 0, 0, 0},
		{VTA_OPCODE_LOAD, VTA_MEM_ID_WGT, 1, 0, 0, 0, 1},
		{VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 1, 1, 0, 0, 0},
		{VTA_OPCODE_GEMM, 0, 0, 0, 0, 0, 1},
		{VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 1, 1, 0, 1, 0},
		{VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 0, 0, 0, 0, 1},
		{VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 0, 1, 1, 0, 0},
		{VTA_OPCODE_FINISH, 0, 0, 0, 0, 0, 0},
	};
	for (size_t i = 0; i < n && i < 8; i++) {
		VTAInsn insn; /* read the way TVM-era code did */
		memcpy(&insn, bytes + 16 * i, sizeof insn);
		CHECK_EQ(insn.generic.opcode, want[i].opcode);
		CHECK_EQ(insn.generic.pop_prev_dep, want[i].pop_prev);
		CHECK_EQ(insn.generic.pop_next_dep, want[i].pop_next);
		CHECK_EQ(insn.generic.push_prev_dep, want[i].push_prev);
		CHECK_EQ(insn.generic.push_next_dep, want[i].push_next);
		if (want[i].opcode == VTA_OPCODE_LOAD || want[i].opcode == VTA_OPCODE_STORE) {
			CHECK_EQ(insn.mem.memory_type, want[i].mem);
			CHECK_EQ(insn.mem.x_size, want[i].x_size);
		}
	}
	/* LOAD UOP of the kernel: one micro-op at SRAM 0; GEMM over [0, 1). */
	VTAInsn u, g;
	memcpy(&u, bytes + 32, 16);
	memcpy(&g, bytes + 48, 16);
	CHECK_EQ(u.mem.sram_base, 0);
	CHECK_EQ(u.mem.y_size, 1);
	CHECK_EQ(u.mem.x_stride, 1);
	CHECK_EQ(g.gemm.uop_bgn, 0);
	CHECK_EQ(g.gemm.uop_end, 1);
	CHECK_EQ(g.gemm.iter_out, 1);
	CHECK_EQ(g.gemm.iter_in, 1);
	VTABufferFree(inp);
	VTABufferFree(wgt);
	VTABufferFree(out);
}

/* ---- hw_spec.h bit-fields equal the shift-and-mask codec ---------------- */

static void test_hw_spec_layout(void)
{
	uint64_t s = 99;
	for (int t = 0; t < 2000; t++) {
		vta_insn_t in = {0};
		VTAInsn c;
		memset(&c, 0, sizeof c);
		int kind = t % 3;
		in.pop_prev = (uint32_t)test_rand_range(&s, 0, 1);
		in.push_next = (uint32_t)test_rand_range(&s, 0, 1);
		if (kind == 0) {
			in.opcode = VTA_OPCODE_LOAD;
			in.memory_type = VTA_MEM_ID_INP;
			in.sram_base = (uint32_t)test_rand_range(&s, 0, 65535);
			in.dram_base = (uint32_t)test_rand(&s);
			in.y_size = (uint32_t)test_rand_range(&s, 0, 65535);
			in.x_size = (uint32_t)test_rand_range(&s, 0, 65535);
			in.x_stride = (uint32_t)test_rand_range(&s, 0, 65535);
			in.x_pad_1 = (uint32_t)test_rand_range(&s, 0, 15);
			c.mem.opcode = in.opcode;
			c.mem.memory_type = in.memory_type;
			c.mem.sram_base = in.sram_base;
			c.mem.dram_base = in.dram_base;
			c.mem.y_size = in.y_size;
			c.mem.x_size = in.x_size;
			c.mem.x_stride = in.x_stride;
			c.mem.x_pad_1 = in.x_pad_1;
			c.mem.pop_prev_dep = in.pop_prev;
			c.mem.push_next_dep = in.push_next;
		} else if (kind == 1) {
			in.opcode = VTA_OPCODE_GEMM;
			in.uop_bgn = (uint32_t)test_rand_range(&s, 0, VTA_UOP_BUFF_DEPTH - 1);
			in.uop_end = (uint32_t)test_rand_range(&s, 0, VTA_UOP_BUFF_DEPTH);
			in.iter_out = (uint32_t)test_rand_range(&s, 0, 16383);
			in.dst_factor_in = (uint32_t)test_rand_range(&s, 0, VTA_ACC_BUFF_DEPTH - 1);
			in.wgt_factor_in = (uint32_t)test_rand_range(&s, 0, VTA_WGT_BUFF_DEPTH - 1);
			c.gemm.opcode = in.opcode;
			c.gemm.uop_bgn = in.uop_bgn;
			c.gemm.uop_end = in.uop_end;
			c.gemm.iter_out = in.iter_out;
			c.gemm.dst_factor_in = in.dst_factor_in;
			c.gemm.wgt_factor_in = in.wgt_factor_in;
			c.gemm.pop_prev_dep = in.pop_prev;
			c.gemm.push_next_dep = in.push_next;
		} else {
			in.opcode = VTA_OPCODE_ALU;
			in.src_factor_out = (uint32_t)test_rand_range(&s, 0, VTA_ACC_BUFF_DEPTH - 1);
			in.alu_opcode = (uint32_t)test_rand_range(&s, 0, 4);
			in.use_imm = 1;
			in.imm = (int32_t)test_rand_range(&s, -32768, 32767);
			c.alu.opcode = in.opcode;
			c.alu.src_factor_out = in.src_factor_out;
			c.alu.alu_opcode = in.alu_opcode;
			c.alu.use_imm = 1;
			c.alu.imm = in.imm;
			c.alu.pop_prev_dep = in.pop_prev;
			c.alu.push_next_dep = in.push_next;
		}
		vta_insn_word_t w;
		CHECK_EQ(vta_insn_encode(&in, &w, NULL), 0);
		uint8_t bytes[16];
		vta_insn_store(&w, bytes);
		if (memcmp(bytes, &c, 16)) {
			CHECK(!"bit-field layout differs from the codec");
			return;
		}
	}
	VTAUop uop = {0};
	uop.dst_idx = 5;
	uop.src_idx = 7;
	uop.wgt_idx = 9;
	vta_uop_t v = {5, 7, 9};
	uint32_t word, cw;
	CHECK_EQ(vta_uop_encode(&v, &word, NULL), 0);
	memcpy(&cw, &uop, 4);
	CHECK_U64(cw, word);
}

/* ---- Backends ------------------------------------------------------------ */

static void test_backend_selection(void)
{
	char why[256];
	CHECK_EQ(vta_backend_probe("fsim", why, sizeof why), 0);
	CHECK_EQ(vta_backend_probe("nosuch", why, sizeof why), VTA_EINVAL);
	CHECK_STR_CONTAINS(why, "no backend is called");
	/* Without an XRT device (CI): says why, naming XRT (not built in, not
	 * installed, or no device), and opening it is refused with that. */
	int rc = vta_backend_probe("xrt", why, sizeof why);
	if (rc) {
		CHECK_STR_CONTAINS(why, "XRT");
		vta_context_t *ctx = NULL;
		vta_error_t err;
		CHECK_EQ(vta_context_open("xrt", &ctx, &err), rc);
		CHECK_STR_CONTAINS(err.msg, "backend \"xrt\" is not available");
		CHECK_STR_CONTAINS(err.msg, why);
	}
	CHECK_EQ(vta_set_target("fsim"), 0);
	CHECK(strcmp(vta_context_backend(vta_context_current()), "fsim") == 0);
	CHECK_EQ(vta_set_target("zynq"), VTA_EINVAL);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "VTARuntimeShutdown");
	vta_clear_error(NULL);
	vta_device_info_t info;
	CHECK_EQ(vta_context_info(vta_context_current(), &info), 0);
	CHECK_U64(info.config_id, VTA_CONFIG_ID);
	CHECK(info.dram_bytes > 0);
	CHECK_EQ(vta_set_target(NULL), 0);
	/* The golden model has no registers to map. */
	vta_set_log_errors(vta_context_current(), 0);
	CHECK(VTAMapRegister(VTA_FETCH_ADDR) == NULL);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "has no registers");
	vta_clear_error(NULL);
	vta_set_log_errors(vta_context_current(), 1);
}

/* A fake register block whose CONFIG_ID is wrong: the zynq backend must
 * refuse it and name both IDs. */
static uint32_t fake_read(void *opaque, uint32_t off)
{
	(void)opaque;
	return off == VTA_REG_CONFIG_ID ? 0xDEADBEEFu : off == VTA_REG_HW_VERSION ? 0x00010000u : 0;
}

static void fake_write(void *opaque, uint32_t off, uint32_t val)
{
	(void)opaque;
	(void)off;
	(void)val;
}

static void test_bitstream_check(void)
{
	static uint8_t dram[1 << 16];
	struct vta_mmio m = {.read32 = fake_read, .write32 = fake_write, .dma_va = dram,
			     .dma_size = sizeof dram};
	vta_context_t *ctx = NULL;
	vta_error_t err;
	CHECK_EQ(vta_zynq_open_mmio(&m, &ctx, &err), VTA_EUNSUPPORTED);
	CHECK(ctx == NULL);
	CHECK_STR_CONTAINS(err.msg, "0xDEADBEEF");
	char mine[32];
	snprintf(mine, sizeof mine, "0x%08X", (unsigned)VTA_CONFIG_ID);
	CHECK_STR_CONTAINS(err.msg, mine);
	CHECK_STR_CONTAINS(err.msg, VTA_CONFIG_NAME);
}

/* ---- One context per thread ----------------------------------------------- */

static void *thread_main(void *arg)
{
	int *failed = arg;
	for (int i = 0; rt_cases[i].name; i++)
		if (!strcmp(rt_cases[i].name, "gemm-blocked")) {
			int before = test_failed_;
			rt_cases[i].fn();
			*failed = test_failed_ != before;
		}
	void *mine = VTATLSCommandHandle();
	VTARuntimeShutdown();
	return mine;
}

static void test_threads(void)
{
	pthread_t t[2];
	int failed[2] = {0, 0};
	void *handle[2];
	for (int i = 0; i < 2; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, thread_main, &failed[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], &handle[i]);
	CHECK(handle[0] != VTATLSCommandHandle());
	CHECK_EQ(failed[0] + failed[1], 0);
}

/* One allocator per process and device, as in TVM: a buffer allocated by
 * one thread is found by another (VTABufferCPUPtr, VTAMemGetPhyAddr, free),
 * and two threads' buffers never overlap. */
typedef struct {
	void *handle, *raw;
	uint8_t *cpu;
	uint64_t raw_pa, mine_pa;
	void *mine;
} Shared;

static void *share_main(void *arg)
{
	Shared *s = arg;
	s->cpu = VTABufferCPUPtr(VTATLSCommandHandle(), s->handle);
	s->raw_pa = VTAMemGetPhyAddr(s->raw);
	s->mine = VTAMemAlloc(8192, VTA_CACHED);
	s->mine_pa = VTAMemGetPhyAddr(s->mine);
	VTAMemFree(s->raw); /* freed by a thread that did not allocate it */
	VTARuntimeShutdown();
	return NULL;
}

static void test_shared_allocator(void)
{
	Shared s = {VTABufferAlloc(4096), VTAMemAlloc(4096, VTA_CACHED), NULL, 0, 0, NULL};
	CHECK(s.handle && s.raw);
	uint64_t raw_pa = VTAMemGetPhyAddr(s.raw);
	uint8_t *cpu = VTABufferCPUPtr(VTATLSCommandHandle(), s.handle);
	pthread_t t;
	CHECK_EQ(pthread_create(&t, NULL, share_main, &s), 0);
	pthread_join(t, NULL);
	CHECK(s.cpu == cpu);
	CHECK_U64(s.raw_pa, raw_pa);
	CHECK(s.mine != NULL);
	CHECK(s.mine_pa + 8192 <= raw_pa || s.mine_pa >= raw_pa + 4096);
	CHECK_EQ(vta_errcode(NULL), 0);
	vta_set_log_errors(vta_context_current(), 0);
	VTAMemFree(s.raw);
	vta_set_log_errors(vta_context_current(), 1);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "freed twice");
	vta_clear_error(NULL);
	VTAMemFree(s.mine);
	VTABufferFree(s.handle);
	CHECK_EQ(vta_errcode(NULL), 0);
}

static void test_shutdown(void)
{
	void *b = VTABufferAlloc(100);
	VTARuntimeShutdown(); /* the buffer keeps the device alive */
	CHECK(VTABufferCPUPtr(VTATLSCommandHandle(), b) != b);
	VTABufferFree(b);
	VTARuntimeShutdown();
	CHECK(VTATLSCommandHandle() != NULL);
	VTARuntimeShutdown();
}

static test_case_t cases[64];

int main(int argc, char **argv)
{
	static const test_case_t own[] = {
		{"worked-example", test_worked_example},
		{"hw-spec-layout", test_hw_spec_layout},
		{"backend-selection", test_backend_selection},
		{"bitstream-check", test_bitstream_check},
		{"threads", test_threads},
		{"shared-allocator", test_shared_allocator},
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		cases[n++] = own[i];
	for (size_t i = 0; rt_cases[i].name; i++)
		cases[n++] = rt_cases[i];
	cases[n++] = (test_case_t){"auto-sync-split", rt_test_auto_sync_split};
	cases[n++] = (test_case_t){"shutdown", test_shutdown};
	cases[n] = (test_case_t){NULL, NULL};
	int rc = test_main(argc, argv, cases);
	VTARuntimeShutdown();
	return rc;
}
