/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Recovery through the driver API on a device with registers (the rtl
 * target, and the zynq backend over the RTL): a timeout, a deadlock, an
 * illegal instruction, an AXI error response and a program that leaves a
 * compute->store token behind, each followed by a reference program that
 * must store the golden model's bytes. The device is recovered only by the
 * backends themselves (soft reset after an error, idle check before a run);
 * nothing here resets it.
 *
 * Programs are raw instruction streams in one VTAMemAlloc buffer, run with
 * VTADeviceRun; the golden model runs the same bytes at the same addresses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/driver.h>
#include <vta/fsim.h>
#include <vta/isa.h>
#include <vta/runtime.h>
#include <vta/vta_config.h>

#include "../test.h"
#include "rt_recovery.h"

void (*rt_inject_fault)(uint64_t addr, uint64_t bytes);

enum {
	BUF = 256 << 10,  /* the one buffer */
	UOP_AT = 0x1000,  /* byte offsets in it */
	ACC_AT = 0x2000,
	INP_AT = 0x3000,
	WGT_AT = 0x4000,
	OUT_AT = 0x8000,
	BIG_AT = 0x10000, /* 64 KiB of weights for the long program */
	MAX_INSNS = 256,
};

typedef struct {
	uint8_t *va;
	uint64_t pa;
	vta_insn_word_t w[MAX_INSNS];
	uint32_t n;
} Prog;

static Prog P;

/* DRAM element index of byte offset off of the buffer, for memory type t. */
static uint32_t el(unsigned t, uint32_t off) { return (uint32_t)((P.pa + off) / vta_mem_elem_bytes(t)); }

static void emit(vta_insn_t in)
{
	vta_error_t err;
	if (P.n < MAX_INSNS && vta_insn_encode(&in, &P.w[P.n], &err))
		test_fail_(__FILE__, __LINE__, "encode: %s", err.msg);
	P.n++;
}

static vta_insn_t mem(unsigned op, unsigned t, uint32_t sram, uint32_t dram, uint32_t x)
{
	vta_insn_t in = {0};
	in.opcode = op;
	in.memory_type = t;
	in.sram_base = sram;
	in.dram_base = dram;
	in.y_size = x ? 1 : 0;
	in.x_size = x;
	in.x_stride = x;
	return in;
}

static vta_insn_t ld(unsigned t, uint32_t sram, uint32_t off, uint32_t x)
{
	return mem(VTA_OPCODE_LOAD, t, sram, el(t, off), x);
}

static vta_insn_t loop(unsigned op, uint32_t end, uint32_t out, uint32_t in_)
{
	vta_insn_t in = {0};
	in.opcode = op;
	in.uop_end = end;
	in.iter_out = out;
	in.iter_in = in_;
	return in;
}

static vta_insn_t op(unsigned opcode)
{
	vta_insn_t in = {0};
	in.opcode = opcode;
	return in;
}

/* compute-module token no-op */
static vta_insn_t cnop(void) { return mem(VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 0, 0, 0); }

/* Fill the buffer (input data from a fixed seed, micro-ops) and start a program. */
static int setup(void)
{
	if (!P.va) {
		P.va = VTAMemAlloc(BUF, VTA_CACHED);
		CHECK(P.va != NULL);
		if (!P.va)
			return -1;
		P.pa = VTAMemGetPhyAddr(P.va);
	}
	uint64_t s = 99;
	for (size_t i = UOP_AT; i < BUF; i++)
		P.va[i] = (uint8_t)test_rand(&s);
	for (uint32_t e = 0; e < 8; e++) {
		vta_uop_t u = {e, e, e % 4};
		uint32_t w;
		CHECK(vta_uop_encode(&u, &w, NULL) == 0);
		memcpy(P.va + UOP_AT + 4 * e, &w, 4);
	}
	memset(P.va + OUT_AT, 0, 8 * VTA_OUT_ELEM_BYTES);
	P.n = 0;
	return 0;
}

/* Run P on the device (wait polls); the error code (0, or vta_errcode). */
static int device_run(uint32_t wait)
{
	for (uint32_t i = 0; i < P.n; i++)
		vta_insn_store(&P.w[i], P.va + 16 * (size_t)i);
	VTAFlushCache(P.va, (vta_phy_addr_t)P.pa, BUF);
	VTADeviceHandle d = VTADeviceAlloc();
	CHECK(d != NULL);
	int rc = VTADeviceRun(d, (vta_phy_addr_t)P.pa, P.n, wait);
	VTADeviceFree(d);
	VTAInvalidateCache(P.va, (vta_phy_addr_t)P.pa, BUF);
	return rc ? vta_errcode(NULL) : 0;
}

/* The reference program (LOAD UOP/ACC/INP/WGT, GEMM, a second INP load behind
 * a g2l token, GEMM, ALU, STORE: all four token queues) on the device and on
 * the golden model from the same bytes; the stored bytes must agree. */
static void reference_(int line)
{
	if (setup())
		return;
	emit(ld(VTA_MEM_ID_UOP, 0, UOP_AT, 8));
	emit(ld(VTA_MEM_ID_ACC, 0, ACC_AT, 8));
	emit(ld(VTA_MEM_ID_INP, 0, INP_AT, 8));
	vta_insn_t in = ld(VTA_MEM_ID_WGT, 0, WGT_AT, 4);
	in.push_next = 1;
	emit(in);
	in = loop(VTA_OPCODE_GEMM, 8, 1, 1);
	in.pop_prev = in.push_prev = 1;
	emit(in);
	in = ld(VTA_MEM_ID_INP, 0, INP_AT + 8 * VTA_INP_ELEM_BYTES, 8);
	in.pop_next = in.push_next = 1;
	emit(in);
	in = loop(VTA_OPCODE_GEMM, 8, 1, 1);
	in.pop_prev = 1;
	emit(in);
	in = loop(VTA_OPCODE_ALU, 8, 1, 1);
	in.alu_opcode = VTA_ALU_OPCODE_ADD;
	in.use_imm = 1;
	in.imm = 3;
	emit(in);
	in = cnop();
	in.push_next = 1;
	emit(in);
	in = mem(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, el(VTA_MEM_ID_OUT, OUT_AT), 8);
	in.pop_prev = in.push_prev = 1;
	emit(in);
	in = op(VTA_OPCODE_FINISH);
	in.pop_next = 1;
	emit(in);

	/* golden model: the buffer at the same device address */
	vta_error_t err;
	vta_fsim_t *g = vta_fsim_create((size_t)P.pa + BUF, &err);
	CHECK(g != NULL);
	if (!g)
		return;
	for (uint32_t i = 0; i < P.n; i++)
		vta_insn_store(&P.w[i], P.va + 16 * (size_t)i);
	memcpy(vta_fsim_dram(g) + P.pa, P.va, BUF);
	int gc = vta_fsim_run(g, P.pa, P.n, &err);
	int rc = device_run(1u << 31);
	if (gc || rc)
		test_fail_(__FILE__, line, "reference program: golden %d, device %d (%s)", gc, rc,
			   rc ? vta_errmsg(NULL) : "ok");
	else if (memcmp(vta_fsim_dram(g) + P.pa + OUT_AT, P.va + OUT_AT, 8 * VTA_OUT_ELEM_BYTES))
		test_fail_(__FILE__, line, "reference program: stored bytes differ from the golden model");
	vta_fsim_destroy(g);
}
#define reference() reference_(__LINE__)

/* Run the faulty program P, expect code want and a message containing what. */
static void fault_(uint32_t wait, int want, const char *what, int line)
{
	vta_set_log_errors(vta_context_current(), 0);
	int rc = device_run(wait);
	if (rc != want)
		test_fail_(__FILE__, line, "code %d (%s), expected %d", rc, rc ? vta_errmsg(NULL) : "ok",
			   want);
	else if (what && !strstr(vta_errmsg(NULL), what))
		test_fail_(__FILE__, line, "message \"%s\" does not say \"%s\"", vta_errmsg(NULL), what);
	vta_clear_error(NULL);
	vta_set_log_errors(vta_context_current(), 1);
}
#define fault(wait, want, what) fault_(wait, want, what, __LINE__)

/* A program that runs long: 64 KiB weight loads (many bursts) and a
 * 100,000-micro-op GEMM; given 3 polls it times out with bursts in flight. */
static void c_timeout(void)
{
	if (setup())
		return;
	uint32_t n = (BUF - BIG_AT) / VTA_WGT_ELEM_BYTES;
	if (n > VTA_WGT_BUFF_DEPTH)
		n = VTA_WGT_BUFF_DEPTH;
	emit(ld(VTA_MEM_ID_UOP, 0, UOP_AT, 1));
	for (int k = 0; k < 4; k++)
		emit(ld(VTA_MEM_ID_WGT, 0, BIG_AT, n));
	emit(loop(VTA_OPCODE_GEMM, 1, 1000, 100));
	emit(op(VTA_OPCODE_FINISH));
	fault(3, VTA_ETIMEOUT, "within 3 polls");
	reference();
}

/* A STORE waits for a g2s token nobody pushes; FINISH waits for the STORE. */
static void c_deadlock(void)
{
	if (setup())
		return;
	vta_insn_t in = mem(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, el(VTA_MEM_ID_OUT, OUT_AT), 1);
	in.pop_prev = in.push_prev = 1;
	emit(ld(VTA_MEM_ID_ACC, 0, ACC_AT, 2));
	emit(in);
	in = op(VTA_OPCODE_FINISH);
	in.pop_next = 1;
	emit(in);
	fault(1u << 31, VTA_EDEADLOCK, "deadlock at instruction 1");
	reference();
}

/* Reserved opcode 5 at instruction 1. */
static void c_illegal(void)
{
	if (setup())
		return;
	emit(ld(VTA_MEM_ID_ACC, 0, ACC_AT, 2));
	P.w[P.n].w[0] = 5;
	P.w[P.n].w[1] = 0;
	P.n++;
	emit(op(VTA_OPCODE_FINISH));
	fault(1u << 31, VTA_EILLEGAL, "instruction 1:");
	reference();
}

/* SLVERR on the INP bytes of the buffer: a bus error inside the DMA window. */
static void c_bus_error(void)
{
	if (setup())
		return;
	vta_insn_t in = ld(VTA_MEM_ID_INP, 0, INP_AT, 8);
	in.push_next = 1;
	emit(cnop());
	emit(in);
	in = op(VTA_OPCODE_FINISH);
	in.pop_prev = 1;
	emit(in);
	char what[64];
	snprintf(what, sizeof what, "AXI error response at DRAM address 0x%llX",
		 (unsigned long long)(P.pa + INP_AT));
	rt_inject_fault(P.pa + INP_AT, VTA_INP_ELEM_BYTES);
	fault(1u << 31, VTA_EIO, what);
	rt_inject_fault(0, 0);
	reference();
}

/* A program that leaves a compute->store token (and other values in OUT):
 * it succeeds, and the next program must not see the token. */
static void c_leftover_token(void)
{
	if (setup())
		return;
	emit(ld(VTA_MEM_ID_UOP, 0, UOP_AT, 1));
	emit(ld(VTA_MEM_ID_ACC, 0, ACC_AT + 8 * VTA_ACC_ELEM_BYTES, 8));
	vta_insn_t in = loop(VTA_OPCODE_ALU, 1, 8, 1);
	in.alu_opcode = VTA_ALU_OPCODE_ADD;
	in.use_imm = 1;
	in.imm = 1;
	in.dst_factor_out = in.src_factor_out = 1;
	emit(in);
	in = cnop();
	in.push_next = 1;
	emit(in);
	emit(op(VTA_OPCODE_FINISH));
	fault(1u << 31, 0, NULL);
	if (rt_after_leftover)
		rt_after_leftover();
	reference();
}

void (*rt_after_leftover)(void);

static void c_free(void)
{
	VTAMemFree(P.va);
	P.va = NULL;
}

const struct test_case rt_recovery_cases[] = {
	{"recover-timeout", c_timeout},
	{"recover-deadlock", c_deadlock},
	{"recover-illegal", c_illegal},
	{"recover-bus-error", c_bus_error},
	{"recover-leftover-token", c_leftover_token},
	{"recover-free", c_free},
	{NULL, NULL},
};
