/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Backend "fsim": the golden model (sim/fsim.c) in-process. Its DRAM is the
 * DMA window; physical address = byte offset, and the first page is never
 * handed out so that 0 is not a valid buffer address.
 */
#include <stdio.h>
#include <string.h>

#include <vta/fsim.h>
#include <vta/vta_config.h>

#include "backend.h"

typedef struct {
	vta_fsim_t *sim;
} FsimDev;

static int fsim_open(vta_dev_t *dev, vta_error_t *err)
{
	FsimDev *p = dev->priv;
	p->sim = vta_fsim_create(vta_sim_dram_bytes(), err);
	if (!p->sim)
		return err ? err->code : VTA_ENOMEM;
	dev->dram_va = vta_fsim_dram(p->sim);
	dev->dram_pa = 0;
	dev->dram_size = vta_fsim_dram_size(p->sim);
	dev->dram_first = 4096;
	dev->coherent = 1;
	return VTA_OK;
}

static void fsim_close(vta_dev_t *dev)
{
	FsimDev *p = dev->priv;
	vta_fsim_destroy(p->sim);
	p->sim = NULL;
}

static int fsim_identify(vta_dev_t *dev, uint32_t *config_id, uint32_t *version, vta_error_t *err)
{
	(void)dev;
	(void)err;
	*config_id = VTA_CONFIG_ID; /* built from the same header as the runtime */
	*version = 0;
	return VTA_OK;
}

static int fsim_run(vta_dev_t *dev, uint64_t insn_pa, uint32_t n, uint32_t wait_cycles,
		    vta_error_t *err)
{
	(void)wait_cycles; /* the model detects deadlocks instead of timing out */
	FsimDev *p = dev->priv;
	vta_fsim_clear_counters(p->sim);
	return vta_fsim_run(p->sim, insn_pa, n, err);
}

static int fsim_recover(vta_dev_t *dev, vta_error_t *err)
{
	(void)err;
	FsimDev *p = dev->priv;
	vta_fsim_reset(p->sim);
	return VTA_OK;
}

static void fsim_counters(vta_dev_t *dev, vta_counters_t *c)
{
	FsimDev *p = dev->priv;
	vta_counters_add(c, vta_fsim_counters(p->sim));
}

static void fsim_describe(vta_dev_t *dev, char *buf, size_t n)
{
	snprintf(buf, n, "golden model, %zu MiB DRAM", dev->dram_size >> 20);
}

const vta_backend_t vta_backend_fsim = {
	.name = "fsim",
	.summary = "the golden model, in-process (always available)",
	.priv_size = sizeof(FsimDev),
	.open = fsim_open,
	.close = fsim_close,
	.identify = fsim_identify,
	.run = fsim_run,
	.recover = fsim_recover,
	.counters = fsim_counters,
	.describe = fsim_describe,
};
