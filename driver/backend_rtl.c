/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Backend "rtl": the Verilator model of the RTL in hw/, in-process (sim/rtl), clocked
 * only while the host waits for a run. Its DRAM is the DMA window, as for
 * fsim. This file is linked only into programs that also link the RTL
 * model (see runtime/module.mk); driver/device.c refers to it weakly.
 */
#include <stdio.h>

#include <vta/rtlsim.h>
#include <vta/vta_regmap.h>

#include "backend.h"

typedef struct {
	vta_rtlsim_t *sim;
} RtlDev;

static int rtl_open(vta_dev_t *dev, vta_error_t *err)
{
	RtlDev *p = dev->priv;
	p->sim = vta_rtlsim_create(vta_sim_dram_bytes(), err);
	if (!p->sim)
		return err ? err->code : VTA_ENOMEM;
	dev->dram_va = vta_rtlsim_dram(p->sim);
	dev->dram_pa = 0;
	dev->dram_size = vta_rtlsim_dram_size(p->sim);
	dev->dram_first = 4096;
	dev->coherent = 1;
	return VTA_OK;
}

static void rtl_close(vta_dev_t *dev)
{
	RtlDev *p = dev->priv;
	vta_rtlsim_destroy(p->sim);
	p->sim = NULL;
}

static int rtl_identify(vta_dev_t *dev, uint32_t *config_id, uint32_t *version, vta_error_t *err)
{
	(void)err;
	RtlDev *p = dev->priv;
	*config_id = vta_rtlsim_reg_read(p->sim, VTA_REG_CONFIG_ID);
	*version = vta_rtlsim_reg_read(p->sim, VTA_REG_HW_VERSION);
	return VTA_OK;
}

static int rtl_run(vta_dev_t *dev, uint64_t insn_pa, uint32_t n, uint32_t wait_cycles,
		   vta_error_t *err)
{
	(void)wait_cycles; /* the RTL watchdog reports deadlocks */
	RtlDev *p = dev->priv;
	return vta_rtlsim_run(p->sim, insn_pa, n, err);
}

static void rtl_recover(vta_dev_t *dev)
{
	RtlDev *p = dev->priv;
	vta_rtlsim_reset(p->sim, NULL);
}

static void rtl_counters(vta_dev_t *dev, vta_counters_t *c)
{
	RtlDev *p = dev->priv;
	vta_counters_add(c, vta_rtlsim_counters(p->sim));
}

static void rtl_describe(vta_dev_t *dev, char *buf, size_t n)
{
	snprintf(buf, n, "Verilator model of hw/, %zu MiB DRAM", dev->dram_size >> 20);
}

const vta_backend_t vta_backend_rtl = {
	.name = "rtl",
	.summary = "the RTL (hw/*.v) simulated by Verilator, in-process",
	.priv_size = sizeof(RtlDev),
	.open = rtl_open,
	.close = rtl_close,
	.identify = rtl_identify,
	.run = rtl_run,
	.recover = rtl_recover,
	.counters = rtl_counters,
	.describe = rtl_describe,
};
