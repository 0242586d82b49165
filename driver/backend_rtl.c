/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Backend "rtl": the Verilator model of the RTL in hw/, in-process (sim/rtl), clocked
 * only while the host waits for a run. Its DRAM is the DMA window, as for
 * fsim. It is driven through its registers by the same code as a board
 * (driver/regs.c): idle check, start, interrupt, soft reset after errors.
 * This file is linked only into programs that also link the RTL model (see
 * runtime/module.mk); driver/device.c refers to it weakly.
 *
 * Environment (docs/runtime.md): VTA_RTL_DRAM_LATENCY=N or R,W (DRAM read and
 * write latency in cycles; default the modelled latency of the board of the
 * configuration), VTA_RTL_BACKPRESSURE=1 (random legal stalls on every AXI
 * and AXI-Lite channel), VTA_RTL_SEED=S (their seed), VTA_RTL_FAULT (below).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/rtlsim.h>
#include <vta/vta_regmap.h>

#include "backend.h"
#include "regs.h"
#include "zynq.h"

/* Cycles of one poll of the status register (pause, wait_irq). */
#define POLL_CYCLES 64

typedef struct {
	vta_rtlsim_t *sim;
	struct vta_mmio m; /* registers of sim (vta_rtl_mmio), as a board driver sees them */
} RtlDev;

static uint32_t sim_read32(void *opaque, uint32_t off) { return vta_rtlsim_reg_read(opaque, off); }
static void sim_write32(void *opaque, uint32_t off, uint32_t v) { vta_rtlsim_reg_write(opaque, off, v); }
static void sim_pause(void *opaque) { vta_rtlsim_step(opaque, POLL_CYCLES); }
static int sim_wait_irq(void *opaque, uint32_t polls)
{
	return vta_rtlsim_wait_irq(opaque, (uint64_t)polls * POLL_CYCLES);
}

void vta_rtl_mmio(struct vta_rtlsim *sim, struct vta_mmio *m)
{
	*m = (struct vta_mmio){.opaque = sim, .read32 = sim_read32, .write32 = sim_write32,
			       .pause = sim_pause, .wait_irq = sim_wait_irq,
			       .dma_va = vta_rtlsim_dram(sim), .dma_size = vta_rtlsim_dram_size(sim)};
}

/* The DRAM model from the environment; a value that is not a number is an error. */
static int axi_from_env(vta_rtlsim_axi_t *a, vta_error_t *err)
{
	const char *v = getenv("VTA_RTL_DRAM_LATENCY");
	if (v && *v) {
		char *end;
		unsigned long r = strtoul(v, &end, 10), w = r;
		if (*end == ',')
			w = strtoul(end + 1, &end, 10);
		if (*end || r < 1 || w < 1 || r > 100000 || w > 100000)
			return vta_error_set(err, VTA_EINVAL, -1,
					     "VTA_RTL_DRAM_LATENCY=\"%s\": expected N or R,W cycles (1..100000)", v);
		a->rd_latency = (unsigned)r;
		a->wr_latency = (unsigned)w;
	}
	v = getenv("VTA_RTL_BACKPRESSURE");
	if (v && *v) {
		if (strcmp(v, "0") && strcmp(v, "1"))
			return vta_error_set(err, VTA_EINVAL, -1,
					     "VTA_RTL_BACKPRESSURE=\"%s\": expected 0 or 1", v);
		a->backpressure = *v == '1';
	}
	v = getenv("VTA_RTL_SEED");
	if (v && *v) {
		char *end;
		a->seed = strtoull(v, &end, 0);
		if (*end)
			return vta_error_set(err, VTA_EINVAL, -1, "VTA_RTL_SEED=\"%s\": not a number", v);
	}
	return VTA_OK;
}

static int rtl_open(vta_dev_t *dev, vta_error_t *err)
{
	RtlDev *p = dev->priv;
	vta_rtlsim_axi_t axi;
	vta_rtlsim_axi_defaults(&axi);
	int env_rc = axi_from_env(&axi, err);
	if (env_rc)
		return env_rc;
	p->sim = vta_rtlsim_create(vta_sim_dram_bytes(), err);
	if (!p->sim)
		return err ? err->code : VTA_ENOMEM;
	vta_rtlsim_set_axi(p->sim, &axi);
	/* the stall generator restarts from the seed at power-on */
	if (axi.backpressure && vta_rtlsim_reset(p->sim, err)) {
		vta_rtlsim_destroy(p->sim);
		p->sim = NULL;
		return err ? err->code : VTA_ENOMEM;
	}
	vta_rtl_mmio(p->sim, &p->m);
	dev->dram_va = p->m.dma_va;
	dev->dram_pa = p->m.dma_pa;
	dev->dram_size = p->m.dma_size;
	dev->dram_first = 4096;
	dev->coherent = 1;
	/* The board's register addresses, so that VTAMapRegister code runs. */
	int rc = vta_board_reg_window(&dev->reg_base, &dev->reg_size, NULL, err);
	if (rc) {
		vta_rtlsim_destroy(p->sim);
		p->sim = NULL;
	}
	return rc;
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

/* $VTA_RTL_FAULT=ADDR+BYTES[:decerr]: the DRAM answers every access to that
 * range with SLVERR (or DECERR), read before each run; unset or empty: none. */
static int apply_fault(vta_rtlsim_t *sim, vta_error_t *err)
{
	const char *s = getenv("VTA_RTL_FAULT");
	if (!s || !*s) {
		vta_rtlsim_set_fault(sim, 0, 0, 0);
		return VTA_OK;
	}
	char *end;
	unsigned long long a = strtoull(s, &end, 0), n = 0;
	if (*end == '+')
		n = strtoull(end + 1, &end, 0);
	unsigned resp = 2;
	if (!strcmp(end, ":decerr"))
		resp = 3;
	else if (*end && strcmp(end, ":slverr"))
		n = 0;
	if (!n)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "VTA_RTL_FAULT=\"%s\" is not ADDR+BYTES[:slverr|:decerr]", s);
	vta_rtlsim_set_fault(sim, a, n, resp);
	return VTA_OK;
}

static int rtl_run(vta_dev_t *dev, uint64_t insn_pa, uint32_t n, uint32_t wait_cycles,
		   vta_error_t *err)
{
	RtlDev *p = dev->priv;
	int rc = apply_fault(p->sim, err);
	if (!rc)
		rc = vta_regs_prepare(&p->m, err);
	if (!rc)
		rc = vta_regs_run(&p->m, insn_pa, n, wait_cycles, dev->dram_pa, dev->dram_size, err);
	return rc;
}

static int rtl_recover(vta_dev_t *dev, vta_error_t *err)
{
	RtlDev *p = dev->priv;
	return vta_regs_soft_reset(&p->m, err);
}

static void rtl_counters(vta_dev_t *dev, vta_counters_t *c)
{
	RtlDev *p = dev->priv;
	vta_regs_counters(&p->m, c);
}

static void rtl_describe(vta_dev_t *dev, char *buf, size_t n)
{
	RtlDev *p = dev->priv;
	vta_rtlsim_axi_t a;
	vta_rtlsim_get_axi(p->sim, &a);
	snprintf(buf, n, "Verilator model of hw/, %zu MiB DRAM, latency %u/%u cycles%s",
		 dev->dram_size >> 20, a.rd_latency, a.wr_latency,
		 a.backpressure ? ", back-pressure" : "");
}

static uint32_t rtl_reg_read(vta_dev_t *dev, uint32_t off)
{
	RtlDev *p = dev->priv;
	return vta_rtlsim_reg_read(p->sim, off);
}

static void rtl_reg_write(vta_dev_t *dev, uint32_t off, uint32_t val)
{
	RtlDev *p = dev->priv;
	vta_rtlsim_reg_write(p->sim, off, val);
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
	.reg_read = rtl_reg_read,
	.reg_write = rtl_reg_write,
};
