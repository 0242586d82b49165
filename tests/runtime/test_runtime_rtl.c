/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime cases of rt_cases.c on the RTL: first through the `rtl`
 * backend (the Verilator model in-process), then through the `zynq` backend
 * with its register accesses connected to the model's AXI4-Lite port, its
 * interrupt wait to the irq pin and its DMA window to the model's DRAM, so
 * the board code path runs here. On both, the recovery cases of
 * rt_recovery.c; on zynq-over-RTL also the interrupt, its fallbacks and a
 * start refused because someone else started first. No harness reset after
 * the model's creation: recovery is the backends' soft reset.
 *
 * Then zynq-board-mem/: the same registers, but memory as on a board whose
 * port does not snoop the caches (tests/runtime/board_model.h): the CPU's
 * cached view reaches the model's DRAM only through u-dma-buf's sync files,
 * so a missing flush or invalidate makes a case fail.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vta/isa.h>
#include <vta/pynq_driver.h>
#include <vta/rtlsim.h>
#include <vta/runtime.h>
#include <vta/vta_config.h>
#include <vta/vta_regmap.h>

#include "../../driver/zynq.h"
#include "../../runtime/seams.h"
#include "../test.h"
#include "board_model.h"
#include "xrt_model.h"
#include "rt_common.h"
#include "rt_recovery.h"

static vta_rtlsim_t *zsim;
static struct vta_mmio zm_rtl; /* vta_rtl_mmio(zsim): what the wrappers below call */

/* The zynq backend's port: the RTL's registers, irq pin and DRAM, with
 * counters and switches for the interrupt and start-while-busy tests. */
static struct {
	int irq_mode;        /* 0 the irq pin, 1 no interrupt (-1), 2 never fires */
	unsigned irq_wakes;  /* wait_irq calls that returned 1 */
	unsigned pauses;     /* polls without interrupt */
	int steal_start;     /* start another program just before the backend's start */
} zport;

static uint32_t z_read(void *opaque, uint32_t off) { return zm_rtl.read32(opaque, off); }
static void z_write(void *opaque, uint32_t off, uint32_t v)
{
	if (zport.steal_start && off == VTA_REG_FETCH_CTRL && (v & 1)) {
		/* someone else's run: 2 instructions at device address 0x100 (a
		 * GEMM of 100,000 micro-ops on whatever UOP 0 holds, FINISH) */
		zport.steal_start = 0;
		vta_insn_t g = {0}, f = {0};
		g.opcode = VTA_OPCODE_GEMM;
		g.uop_end = 1;
		g.iter_out = 1000;
		g.iter_in = 100;
		f.opcode = VTA_OPCODE_FINISH;
		vta_insn_word_t w;
		CHECK_EQ(vta_insn_encode(&g, &w, NULL), 0);
		vta_insn_store(&w, vta_rtlsim_dram(zsim) + 0x100);
		CHECK_EQ(vta_insn_encode(&f, &w, NULL), 0);
		vta_insn_store(&w, vta_rtlsim_dram(zsim) + 0x110);
		zm_rtl.write32(opaque, VTA_REG_FETCH_INSN_ADDR, 0x100);
		zm_rtl.write32(opaque, VTA_REG_FETCH_INSN_COUNT, 2);
		zm_rtl.write32(opaque, VTA_REG_FETCH_CTRL, 1);
	}
	zm_rtl.write32(opaque, off, v);
}
static void z_pause(void *opaque)
{
	zport.pauses++;
	zm_rtl.pause(opaque);
}
static int z_wait_irq(void *opaque, uint32_t polls)
{
	if (zport.irq_mode == 1)
		return -1;
	if (zport.irq_mode == 2) { /* time passes, no interrupt */
		vta_rtlsim_step(opaque, 64 * (uint64_t)polls);
		return 0;
	}
	int r = zm_rtl.wait_irq(opaque, polls);
	zport.irq_wakes += r > 0;
	return r;
}

static void rtl_fault_env(uint64_t addr, uint64_t bytes)
{
	char v[64];
	snprintf(v, sizeof v, "0x%llx+%llu", (unsigned long long)addr, (unsigned long long)bytes);
	if (bytes)
		setenv("VTA_RTL_FAULT", v, 1);
	else
		unsetenv("VTA_RTL_FAULT");
}

static void zsim_fault(uint64_t addr, uint64_t bytes) { vta_rtlsim_set_fault(zsim, addr, bytes, 2); }

static void use_rtl(void)
{
	VTARuntimeShutdown();
	CHECK_EQ(vta_set_target("rtl"), 0);
	vta_context_t *ctx = vta_context_current();
	CHECK(ctx != NULL);
	if (ctx)
		CHECK(strcmp(vta_context_backend(ctx), "rtl") == 0);
	rt_inject_fault = rtl_fault_env;
	rt_after_leftover = NULL;
}

static vta_context_t *zctx;

/* the leftover program left exactly one g2s token on the device */
static void z_check_leftover(void) { CHECK_EQ(vta_rtlsim_reg_read(zsim, VTA_REG_TOKENS2) & 0x1FF, 1); }

static void use_zynq(void)
{
	VTARuntimeShutdown();
	vta_error_t err;
	zsim = vta_rtlsim_create((size_t)64 << 20, &err);
	CHECK(zsim != NULL);
	if (!zsim)
		return;
	vta_rtl_mmio(zsim, &zm_rtl);
	static struct vta_mmio m;
	m = zm_rtl;
	m.read32 = z_read;
	m.write32 = z_write;
	m.pause = z_pause;
	m.wait_irq = z_wait_irq;
	CHECK_EQ(vta_zynq_open_mmio(&m, &zctx, &err), 0);
	CHECK_EQ(vta_context_bind(zctx), 0);
	vta_device_info_t info;
	CHECK_EQ(vta_context_info(zctx, &info), 0);
	CHECK_U64(info.config_id, VTA_CONFIG_ID);
	rt_inject_fault = zsim_fault;
	rt_after_leftover = z_check_leftover;
}

/* A run that does not finish within wait_cycles polls: VTA_ETIMEOUT, the
 * device is reset, and the next program works. */
static int k_big(void *sig)
{
	(void)sig;
	VTAUopLoopBegin(1000, 0, 0, 0);
	VTAUopLoopBegin(100, 0, 0, 0);
	VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
	VTAUopLoopEnd();
	VTAUopLoopEnd();
	return 0;
}

static void test_timeout(void)
{
	static void *slot;
	VTACommandHandle cmd = VTATLSCommandHandle();
	vta_set_log_errors(vta_context_current(), 0);
	CHECK_EQ(VTAPushGEMMOp(&slot, k_big, NULL, 0), 0);
	CHECK_EQ(vta_synchronize(cmd, 3), VTA_ETIMEOUT);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "within 3 polls");
	vta_clear_error(NULL);
	vta_set_log_errors(vta_context_current(), 1);
	for (size_t i = 0; rt_cases[i].name; i++)
		if (!strcmp(rt_cases[i].name, "gemm-blocked"))
			rt_cases[i].fn();
}

static void run_case(const char *name)
{
	for (size_t i = 0; rt_cases[i].name; i++)
		if (!strcmp(rt_cases[i].name, name))
			rt_cases[i].fn();
}

/* Runs complete woken by the interrupt, and the irq pin is low after them. */
static void test_irq(void)
{
	unsigned w = zport.irq_wakes, p = zport.pauses;
	run_case("gemm-blocked");
	CHECK(zport.irq_wakes > w);
	CHECK_EQ(zport.pauses, p);
	CHECK_EQ(vta_rtlsim_irq(zsim), 0);
}

/* Without an interrupt (wait_irq -1) the backend polls; with one that never
 * fires, it still sees DONE after each wait. */
static void test_irq_fallback(void)
{
	for (int mode = 1; mode <= 2; mode++) {
		zport.irq_mode = mode;
		unsigned w = zport.irq_wakes, p = zport.pauses;
		run_case("gemm-blocked");
		CHECK_EQ(zport.irq_wakes, w);
		if (mode == 1)
			CHECK(zport.pauses > p);
	}
	zport.irq_mode = 0;
}

/* Another program is started just before the backend's start: the device
 * refuses the backend's start, the backend reports it and recovers. */
static void test_start_busy(void)
{
	static void *slot;
	VTACommandHandle cmd = VTATLSCommandHandle();
	vta_set_log_errors(vta_context_current(), 0);
	CHECK_EQ(VTAPushGEMMOp(&slot, k_big, NULL, 0), 0);
	zport.steal_start = 1;
	CHECK_EQ(vta_synchronize(cmd, 1u << 31), VTA_EIO);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "refused the start");
	vta_clear_error(NULL);
	vta_set_log_errors(vta_context_current(), 1);
	run_case("gemm-blocked");
}

static Board board;

static void use_board(void)
{
	vta_context_bind(NULL);
	if (board_open(&board, 1))
		return;
	CHECK_EQ(vta_context_bind(board.ctx), 0);
	vta_device_info_t info;
	CHECK_EQ(vta_context_info(board.ctx, &info), 0);
	CHECK_EQ(info.coherent, 0); /* from boards/boards.txt: HP ports */
	CHECK_STR_CONTAINS(info.description, "synced around every run");
}

/* ---- Cases of the board's memory ------------------------------------------- */

/* The model itself: a CPU write through the cached view does not reach the
 * device until it is flushed, and a device write does not reach the CPU
 * until it is invalidated. */
static void test_noncoherent_model(void)
{
	uint8_t *p = VTAMemAlloc(4096, VTA_CACHED);
	CHECK(p != NULL);
	if (!p)
		return;
	uint64_t pa = VTAMemGetPhyAddr(p);
	uint8_t *dram = vta_rtlsim_dram(board.sim) + pa;
	memset(p, 0x11, 64);
	CHECK(dram[0] != 0x11);
	VTAFlushCache(p, (vta_phy_addr_t)pa, 64);
	CHECK_EQ(dram[0], 0x11);
	dram[1] = 0x22;
	CHECK(p[1] != 0x22);
	VTAInvalidateCache(p, (vta_phy_addr_t)pa, 64);
	CHECK_EQ(p[1], 0x22);
	CHECK_EQ(vta_errcode(NULL), 0);
	VTAMemFree(p);
}

/* A raw stream in s: STORE one page of the OUT buffer to out, FINISH. */
static void store_page(uint8_t *s, void *out)
{
	vta_insn_t st = {0}, fin = {0};
	st.opcode = VTA_OPCODE_STORE;
	st.memory_type = VTA_MEM_ID_OUT;
	st.dram_base = (uint32_t)(VTAMemGetPhyAddr(out) / VTA_OUT_ELEM_BYTES);
	st.x_size = st.x_stride = 4096 / VTA_OUT_ELEM_BYTES;
	st.y_size = 1;
	fin.opcode = VTA_OPCODE_FINISH;
	vta_insn_word_t w;
	CHECK_EQ(vta_insn_encode(&st, &w, NULL), 0);
	vta_insn_store(&w, s);
	CHECK_EQ(vta_insn_encode(&fin, &w, NULL), 0);
	vta_insn_store(&w, s + 16);
}

/* What a run writes is invalidated for the CPU after it, without being
 * asked (raw stream: one STORE of the OUT buffer, FINISH). */
static void test_invalidate_after_run(void)
{
	uint8_t *out = VTAMemAlloc(4096, VTA_CACHED), *s = VTAMemAlloc(4096, VTA_CACHED);
	CHECK(out && s);
	if (!out || !s)
		return;
	memset(out, 0xEE, 4096);
	store_page(s, out);
	CHECK_EQ(VTADeviceRun(VTADeviceAlloc(), VTAMemGetPhyAddr(s), 2, 100000), 0);
	const uint8_t *dram = vta_rtlsim_dram(board.sim) + VTAMemGetPhyAddr(out);
	int wrote = 0;
	for (int i = 0; i < 4096; i++)
		wrote |= dram[i] != 0xEE;
	CHECK(wrote);
	CHECK(memcmp(out, dram, 4096) == 0);
	VTAMemFree(out);
	VTAMemFree(s);
}

/* An uncached buffer is the device's memory itself: no sync. */
static void test_uncached_buffer(void)
{
	uint8_t *p = VTAMemAlloc(4096, VTA_NOT_CACHED);
	CHECK(p != NULL);
	if (!p)
		return;
	uint8_t *dram = vta_rtlsim_dram(board.sim) + VTAMemGetPhyAddr(p);
	uint64_t before = board.synced_dev;
	p[5] = 0x33;
	CHECK_EQ(dram[5], 0x33);
	VTAFlushCache(p, VTAMemGetPhyAddr(p), 4096);
	CHECK_U64(board.synced_dev, before);
	VTAMemFree(p);
}

/* Around a run: every sync for the device, then the barrier, then the
 * start; the sync for the CPU after it. */
static void test_sync_order(void)
{
	board.nevents = 0;
	for (size_t i = 0; rt_cases[i].name; i++)
		if (!strcmp(rt_cases[i].name, "gemm-single"))
			rt_cases[i].fn();
	int seen_start = 0, bad = 0, ndev = 0, ncpu = 0;
	for (size_t i = 0; i < board.nevents; i++) {
		int e = board.events[i];
		if (e == EV_START) {
			seen_start = 1;
			bad |= i == 0 || board.events[i - 1] != EV_BARRIER;
		}
		if (e == EV_SYNC_DEV)
			ndev += !seen_start;
		if (e == EV_SYNC_CPU)
			ncpu += seen_start;
	}
	CHECK(seen_start);
	CHECK(!bad);
	CHECK(!board.bad_sync); /* every sync had a range in the region and a valid direction */
	CHECK(ndev >= 3); /* instructions, micro-ops, inputs... */
	CHECK(ncpu >= 1); /* the output */
}

/* A sync that fails (here sync_for_device cannot be opened) is reported,
 * naming the file, and the device does not start. */
static void test_sync_error(void)
{
	char path[400], moved[420];
	snprintf(path, sizeof path, "%s/sync_for_device", board.attr);
	snprintf(moved, sizeof moved, "%s.saved", path);
	CHECK_EQ(rename(path, moved), 0);
	CHECK_EQ(mkdir(path, 0755), 0);
	vta_set_log_errors(board.ctx, 0);
	uint8_t *s = VTAMemAlloc(4096, VTA_CACHED);
	memset(s, 0, 16);
	s[0] = VTA_OPCODE_FINISH;
	vta_device_info_t before, after;
	vta_context_info(board.ctx, &before);
	CHECK_EQ(VTADeviceRun(VTADeviceAlloc(), VTAMemGetPhyAddr(s), 1, 1000), -1);
	CHECK_EQ(vta_errcode(NULL), VTA_EIO);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "sync_for_device");
	vta_context_info(board.ctx, &after);
	CHECK_U64(after.runs, before.runs);
	vta_clear_error(NULL);
	rmdir(path);
	CHECK_EQ(rename(moved, path), 0);
	CHECK_EQ(VTADeviceRun(VTADeviceAlloc(), VTAMemGetPhyAddr(s), 1, 100000), 0);
	VTAMemFree(s);
	vta_set_log_errors(board.ctx, 1);
}

/* TVM's register mapping on the board: the configuration ID read through a
 * mapped page; a start whose stream lies outside the buffers is refused,
 * and done does not read as set afterwards. */
static void test_mapped_registers(void)
{
	void *fetch = VTAMapRegister(VTA_FETCH_ADDR);
	void *compute = VTAMapRegister(VTA_COMPUTE_ADDR, 0x1000);
	void *id = VTAMapRegister(VTA_BOARD_REG_BASE + VTA_REG_CONFIG_ID);
	CHECK(fetch && compute && id);
	if (!fetch || !compute || !id)
		return;
	CHECK_U64(VTAReadMappedReg(id, 0), VTA_CONFIG_ID);
	vta_set_log_errors(board.ctx, 0);
	VTAWriteMappedReg(fetch, VTA_FETCH_INSN_COUNT_OFFSET, 1);
	VTAWriteMappedReg(fetch, VTA_FETCH_INSN_ADDR_OFFSET, 0x10);
	VTAWriteMappedReg(fetch, 0, VTA_START);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "the run was not started");
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "the fetch of 1 instructions");
	CHECK_EQ(VTAReadMappedReg(compute, VTA_COMPUTE_DONE_RD_OFFSET), 0);
	vta_clear_error(NULL);
	CHECK(VTAMapRegister(VTA_BOARD_REG_BASE + VTA_BOARD_REG_SIZE) == NULL);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "register window");
	vta_clear_error(NULL);
	vta_set_log_errors(board.ctx, 1);
	VTAUnmapRegister(fetch);
	VTAUnmapRegister(compute, 0x1000);
	VTAUnmapRegister(id);
	CHECK_EQ(vta_errcode(NULL), 0);
}

/* A buffer freed while a run that writes it is in flight (here: at the
 * barrier before the start) is not handed out again until the run is over. */
static struct {
	uint8_t *victim, *probe;
} fwr;

static void free_during_run(void *arg)
{
	(void)arg;
	VTAMemFree(fwr.victim);
	fwr.probe = VTAMemAlloc(4096, VTA_CACHED);
}

static void test_free_while_running(void)
{
	fwr.victim = VTAMemAlloc(4096, VTA_CACHED);
	uint8_t *s = VTAMemAlloc(4096, VTA_CACHED);
	CHECK(fwr.victim && s);
	if (!fwr.victim || !s)
		return;
	store_page(s, fwr.victim);
	vta_device_info_t i0, i1;
	vta_context_info(board.ctx, &i0);
	board.on_barrier = free_during_run;
	CHECK_EQ(VTADeviceRun(VTADeviceAlloc(), VTAMemGetPhyAddr(s), 2, 100000), 0);
	board.on_barrier = NULL;
	CHECK(fwr.probe != NULL && fwr.probe != fwr.victim);
	vta_context_info(board.ctx, &i1);
	CHECK_U64(i1.dram_free, i0.dram_free); /* victim released after the run, probe held */
	CHECK_EQ(vta_errcode(NULL), 0);
	VTAMemFree(fwr.probe);
	VTAMemFree(s);
}

/* The region is locked: a second open is refused, naming the holder. */
static void test_device_lock(void)
{
	Board second = board;
	second.ctx = NULL;
	vta_error_t err;
	CHECK_EQ(vta_zynq_open_mmio(&second.mmio, &second.ctx, &err), VTA_EIO);
	CHECK(second.ctx == NULL);
	CHECK_STR_CONTAINS(err.msg, "udmabuf0");
	CHECK_STR_CONTAINS(err.msg, "already in use by this process");
}

/* ---- xrt-over-rtl: the xrt backend over a model of XRT's HAL ---------- */

static XrtModel xm;
static vta_context_t *xctx;

static void use_xrt(void)
{
	vta_context_bind(NULL);
	if (xrt_model_init(&xm, BOARD_DRAM_BYTES))
		return;
	vta_error_t err;
	CHECK_EQ(vta_context_open_seam("xrt", &xm.hal, &xctx, &err), 0);
	if (!xctx)
		return;
	CHECK_EQ(vta_context_bind(xctx), 0);
	vta_device_info_t info;
	CHECK_EQ(vta_context_info(xctx, &info), 0);
	CHECK_U64(info.config_id, VTA_CONFIG_ID);
	CHECK_EQ(info.coherent, 0); /* buffer objects are synced explicitly */
	CHECK_STR_CONTAINS(info.description, "IP \"vta:{vta_1}\"");
}

/* Syncs happen around runs (the model's DRAM is reached only through
 * them), a failed one is reported naming xclSyncBO and stops the run, and
 * the IP's context is exclusive. */
static void test_xrt_sync_and_context(void)
{
	CHECK(xm.syncs_to > 0 && xm.syncs_from > 0);
	vta_set_log_errors(xctx, 0);
	uint8_t *s = VTAMemAlloc(4096, VTA_CACHED);
	memset(s, 0, 16);
	s[0] = VTA_OPCODE_FINISH;
	xm.fail_sync = EIO;
	vta_device_info_t before, after;
	vta_context_info(xctx, &before);
	CHECK_EQ(VTADeviceRun(VTADeviceAlloc(), VTAMemGetPhyAddr(s), 1, 1000), -1);
	CHECK_STR_CONTAINS(vta_errmsg(NULL), "xclSyncBO");
	vta_context_info(xctx, &after);
	CHECK_U64(after.runs, before.runs);
	vta_clear_error(NULL);
	CHECK_EQ(VTADeviceRun(VTADeviceAlloc(), VTAMemGetPhyAddr(s), 1, 100000), 0);
	VTAMemFree(s);
	vta_context_t *second = NULL;
	vta_error_t err;
	CHECK_EQ(vta_context_open_seam("xrt", &xm.hal, &second, &err), VTA_EIO);
	CHECK_STR_CONTAINS(err.msg, "exclusive context");
	vta_set_log_errors(xctx, 1);
}

static test_case_t cases[160];
static char names[160][48];

static size_t add_cases(size_t n, const char *prefix, const test_case_t *list)
{
	for (size_t i = 0; list[i].name; i++, n++) {
		snprintf(names[n], sizeof names[n], "%s/%s", prefix, list[i].name);
		cases[n] = (test_case_t){names[n], list[i].fn};
	}
	return n;
}

int main(int argc, char **argv)
{
	size_t n = 0;
	cases[n++] = (test_case_t){"rtl/open", use_rtl};
	n = add_cases(n, "rtl", rt_cases);
	n = add_cases(n, "rtl", rt_recovery_cases);
	cases[n++] = (test_case_t){"zynq-over-rtl/open", use_zynq};
	n = add_cases(n, "zynq-over-rtl", rt_cases);
	cases[n++] = (test_case_t){"zynq-over-rtl/timeout", test_timeout};
	cases[n++] = (test_case_t){"zynq-over-rtl/irq", test_irq};
	cases[n++] = (test_case_t){"zynq-over-rtl/irq-fallback", test_irq_fallback};
	cases[n++] = (test_case_t){"zynq-over-rtl/start-busy", test_start_busy};
	n = add_cases(n, "zynq-over-rtl", rt_recovery_cases);
	cases[n++] = (test_case_t){"zynq-board-mem/open", use_board};
	n = add_cases(n, "zynq-board-mem", rt_cases);
	static const test_case_t own[] = {
		{"noncoherent-model", test_noncoherent_model},
		{"invalidate-after-run", test_invalidate_after_run},
		{"uncached-buffer", test_uncached_buffer},
		{"sync-order", test_sync_order},
		{"sync-error", test_sync_error},
		{"mapped-registers", test_mapped_registers},
		{"free-while-running", test_free_while_running},
		{"device-lock", test_device_lock},
		{NULL, NULL},
	};
	n = add_cases(n, "zynq-board-mem", own);
	cases[n++] = (test_case_t){"xrt-over-rtl/open", use_xrt};
	n = add_cases(n, "xrt-over-rtl", rt_cases);
	cases[n++] = (test_case_t){"xrt-over-rtl/sync-and-context", test_xrt_sync_and_context};
	cases[n] = (test_case_t){NULL, NULL};
	int rc = test_main(argc, argv, cases);
	vta_context_bind(NULL);
	vta_context_close(zctx);
	vta_rtlsim_destroy(zsim);
	board_close(&board);
	vta_context_close(xctx);
	xrt_model_free(&xm);
	return rc;
}
