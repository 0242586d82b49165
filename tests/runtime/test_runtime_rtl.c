/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime cases of rt_cases.c on the RTL: first through the `rtl`
 * backend (the Verilator model in-process), then through the `zynq` backend
 * with its register accesses connected to the model's AXI4-Lite port and its
 * DMA window to the model's DRAM, so the board code path runs here.
 */
#include <stdio.h>
#include <string.h>

#include <vta/rtlsim.h>
#include <vta/runtime.h>
#include <vta/vta_config.h>

#include "../../driver/zynq.h"
#include "../test.h"
#include "rt_common.h"

static vta_rtlsim_t *zsim;

static uint32_t z_read(void *opaque, uint32_t off) { return vta_rtlsim_reg_read(opaque, off); }
static void z_write(void *opaque, uint32_t off, uint32_t v) { vta_rtlsim_reg_write(opaque, off, v); }
static void z_pause(void *opaque) { vta_rtlsim_step(opaque, 64); }
static void z_reset(void *opaque) { vta_rtlsim_reset(opaque, NULL); }

static void use_rtl(void)
{
	VTARuntimeShutdown();
	CHECK_EQ(vta_set_target("rtl"), 0);
	vta_context_t *ctx = vta_context_current();
	CHECK(ctx != NULL);
	if (ctx)
		CHECK(strcmp(vta_context_backend(ctx), "rtl") == 0);
}

static vta_context_t *zctx;

static void use_zynq(void)
{
	VTARuntimeShutdown();
	vta_error_t err;
	zsim = vta_rtlsim_create((size_t)64 << 20, &err);
	CHECK(zsim != NULL);
	if (!zsim)
		return;
	static struct vta_mmio m;
	m = (struct vta_mmio){zsim, z_read, z_write, z_pause, z_reset, vta_rtlsim_dram(zsim), 0,
			      vta_rtlsim_dram_size(zsim)};
	CHECK_EQ(vta_zynq_open_mmio(&m, &zctx, &err), 0);
	CHECK_EQ(vta_context_bind(zctx), 0);
	vta_device_info_t info;
	CHECK_EQ(vta_context_info(zctx, &info), 0);
	CHECK_U64(info.config_id, VTA_CONFIG_ID);
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

static test_case_t cases[64];
static char names[64][48];

int main(int argc, char **argv)
{
	size_t n = 0;
	cases[n++] = (test_case_t){"rtl/open", use_rtl};
	for (size_t i = 0; rt_cases[i].name; i++, n++) {
		snprintf(names[n], sizeof names[n], "rtl/%s", rt_cases[i].name);
		cases[n] = (test_case_t){names[n], rt_cases[i].fn};
	}
	cases[n++] = (test_case_t){"zynq-over-rtl/open", use_zynq};
	for (size_t i = 0; rt_cases[i].name; i++, n++) {
		snprintf(names[n], sizeof names[n], "zynq-over-rtl/%s", rt_cases[i].name);
		cases[n] = (test_case_t){names[n], rt_cases[i].fn};
	}
	cases[n++] = (test_case_t){"zynq-over-rtl/timeout", test_timeout};
	cases[n] = (test_case_t){NULL, NULL};
	int rc = test_main(argc, argv, cases);
	vta_context_bind(NULL);
	vta_context_close(zctx);
	vta_rtlsim_destroy(zsim);
	return rc;
}
