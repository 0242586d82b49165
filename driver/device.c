/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Devices: the table of backends, opening one by name with the bitstream
 * check, and running streams with error recovery (driver/backend.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/runtime.h>
#include <vta/vta_config.h>

#include "backend.h"

/* Every backend name, whether or not it is compiled in: the user asking for
 * an absent one is told why it is absent. */
/* The rtl backend lives in a separate object (it needs the Verilator model
 * and libstdc++); programs that link it get it, the others see NULL. */
extern const vta_backend_t vta_backend_rtl __attribute__((weak));

/* Every backend name, whether or not it is compiled in: the user asking for
 * an absent one is told why it is absent. */
static const struct {
	const char *name;
	const vta_backend_t *be;
	const char *absent; /* why be is NULL */
} backends[] = {
	{"fsim", &vta_backend_fsim, NULL},
	{"rtl", &vta_backend_rtl,
	 "this program was not linked with the RTL simulation (in-tree programs such as "
	 "build/bin/matmul-rtl link it; it needs Verilator at build time; see docs/runtime.md)"},
#ifdef VTA_HAVE_ZYNQ
	{"zynq", &vta_backend_zynq, NULL},
#else
	{"zynq", NULL, "this library was built without the register map (hw/regmap.txt)"},
#endif
#ifdef VTA_HAVE_XRT
	{"xrt", &vta_backend_xrt, NULL},
#else
	{"xrt", NULL,
	 "this library was built without XRT (its headers, /usr/include/xrt/xrt.h from Debian's "
	 "libxrt-dev, were not found at build time; install it or set XRT_INCLUDE, and rebuild)"},
#endif
};

enum { N_BACKENDS = sizeof backends / sizeof backends[0] };

int vta_backend_count(void) { return N_BACKENDS; }

const char *vta_backend_name(int i) { return i >= 0 && i < N_BACKENDS ? backends[i].name : NULL; }

const vta_backend_t *vta_backend_find(const char *name)
{
	for (int i = 0; i < N_BACKENDS; i++)
		if (!strcmp(backends[i].name, name))
			return i == 1 && !&vta_backend_rtl ? NULL : backends[i].be;
	return NULL;
}

int vta_backend_probe(const char *name, char *why, size_t n)
{
	if (why && n)
		why[0] = 0;
	for (int i = 0; i < N_BACKENDS; i++) {
		if (strcmp(backends[i].name, name))
			continue;
		if (!backends[i].be || (i == 1 && !&vta_backend_rtl)) {
			if (why && n)
				snprintf(why, n, "%s", backends[i].absent);
			return VTA_EUNSUPPORTED;
		}
		if (!backends[i].be->probe)
			return VTA_OK;
		char tmp[256] = "";
		int rc = backends[i].be->probe(tmp, sizeof tmp);
		if (rc && why && n)
			snprintf(why, n, "%s", tmp);
		return rc;
	}
	if (why && n)
		snprintf(why, n, "no backend is called \"%s\" (fsim, rtl, zynq, xrt)", name);
	return VTA_EINVAL;
}

static int open_backend(const vta_backend_t *be, const void *seam, vta_dev_t **out,
			vta_error_t *err)
{
	vta_dev_t *dev = calloc(1, sizeof *dev);
	if (!dev)
		return vta_error_set(err, VTA_ENOMEM, -1, "cannot allocate a %s device", be->name);
	dev->be = be;
	dev->seam = seam;
	if (be->priv_size && !(dev->priv = calloc(1, be->priv_size))) {
		free(dev);
		return vta_error_set(err, VTA_ENOMEM, -1, "cannot allocate a %s device", be->name);
	}
	int rc = be->open(dev, err);
	if (rc) {
		free(dev->priv);
		free(dev);
		return rc;
	}
	rc = be->identify(dev, &dev->config_id, &dev->version, err);
	if (!rc && dev->config_id != VTA_CONFIG_ID)
		rc = vta_error_set(err, VTA_EUNSUPPORTED, -1,
				   "the %s device was built for configuration ID 0x%08" PRIX32
				   " (version 0x%08" PRIX32 "), but this library for configuration ID 0x%08X "
				   "(%s); load a bitstream built from the same configuration",
				   be->name, dev->config_id, dev->version, (unsigned)VTA_CONFIG_ID,
				   VTA_CONFIG_NAME);
	if (!rc && (uint64_t)dev->dram_pa + dev->dram_size > ((uint64_t)1 << 32) &&
	    sizeof(vta_phy_addr_t) < 8)
		rc = vta_error_set(err, VTA_ERANGE, -1,
				   "the %s DMA window 0x%" PRIX64 "+0x%zx reaches beyond 4 GiB, but "
				   "vta_phy_addr_t is 32 bits (build with -DUSE_VTA64)",
				   be->name, dev->dram_pa, dev->dram_size);
	if (rc) {
		be->close(dev);
		free(dev->priv);
		free(dev);
		return rc;
	}
	dev->has_counters = be->counters != NULL;
	*out = dev;
	return VTA_OK;
}

int vta_dev_open(const char *name, vta_dev_t **out, vta_error_t *err)
{
	*out = NULL;
	char why[256];
	int rc = vta_backend_probe(name, why, sizeof why);
	if (rc)
		return vta_error_set(err, rc, -1, "backend \"%s\" is not available: %s", name, why);
	return open_backend(vta_backend_find(name), NULL, out, err);
}

int vta_dev_open_seam(const char *name, const void *seam, vta_dev_t **out, vta_error_t *err)
{
	*out = NULL;
	const vta_backend_t *be = vta_backend_find(name);
	if (!be)
		return vta_error_set(err, VTA_EUNSUPPORTED, -1, "backend \"%s\" is not built in", name);
	return open_backend(be, seam, out, err);
}

void vta_dev_close(vta_dev_t *dev)
{
	if (!dev)
		return;
	dev->be->close(dev);
	free(dev->priv);
	free(dev);
}

int vta_dev_run(vta_dev_t *dev, uint64_t insn_pa, uint32_t insn_count, uint32_t wait_cycles,
		vta_error_t *err)
{
	if (insn_pa % 16)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "instruction address 0x%" PRIX64 " is not 16-byte aligned", insn_pa);
	if (insn_count == 0)
		return vta_error_set(err, VTA_EINVAL, -1, "a run needs at least one instruction");
	if (insn_pa < dev->dram_pa + dev->dram_first ||
	    insn_pa - dev->dram_pa > dev->dram_size ||
	    (uint64_t)insn_count * 16 > dev->dram_size - (insn_pa - dev->dram_pa))
		return vta_error_set(err, VTA_ERANGE, -1,
				     "%" PRIu32 " instructions at 0x%" PRIX64
				     " do not lie inside device memory 0x%" PRIX64 "..0x%" PRIX64,
				     insn_count, insn_pa, dev->dram_pa + dev->dram_first,
				     dev->dram_pa + dev->dram_size);
	int rc = dev->be->run(dev, insn_pa, insn_count, wait_cycles, err);
	dev->runs++;
	memset(&dev->last, 0, sizeof dev->last);
	if (dev->be->counters) {
		dev->be->counters(dev, &dev->last);
		vta_counters_add(&dev->total, &dev->last);
	}
	vta_error_t rerr;
	vta_error_clear(&rerr);
	if (rc && dev->be->recover && dev->be->recover(dev, &rerr) && err) {
		/* the run's error stays first; say that the device is not usable */
		size_t len = strlen(err->msg);
		snprintf(err->msg + len, sizeof err->msg - len, "; recovery failed: %s", rerr.msg);
	}
	return rc;
}

int vta_dev_flush(vta_dev_t *dev, size_t off, size_t n, int written_by_device, vta_error_t *err)
{
	if (dev->coherent || !dev->be->flush || n == 0)
		return VTA_OK;
	dev->syncs++;
	dev->sync_bytes += n;
	return dev->be->flush(dev, off, n, written_by_device, err);
}

int vta_dev_invalidate(vta_dev_t *dev, size_t off, size_t n, vta_error_t *err)
{
	if (dev->coherent || !dev->be->invalidate || n == 0)
		return VTA_OK;
	dev->syncs++;
	dev->sync_bytes += n;
	return dev->be->invalidate(dev, off, n, err);
}
