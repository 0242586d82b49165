/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device interface every backend implements (private to the library).
 *
 * A device is what VTADeviceAlloc names: a DMA window (a physically
 * contiguous range of device memory that the CPU can address), a way to run
 * an instruction stream that lies in it, and optionally registers and cache
 * maintenance. The runtime allocates from the window itself (runtime/mem.c),
 * so a backend never sees individual buffers.
 *
 * Each backend is one file with one const vta_backend_t; driver/device.c
 * lists them and chooses one by name at run time.
 */
#ifndef VTA_DRIVER_BACKEND_H
#define VTA_DRIVER_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include <vta/device.h>
#include <vta/error.h>

typedef struct vta_dev vta_dev_t;
typedef struct vta_mmio vta_mmio_t;

typedef struct vta_backend {
	const char *name;    /* as VTA_TARGET spells it */
	const char *summary; /* one line for `vta info` */
	size_t priv_size;    /* bytes of zeroed state attached as dev->priv */

	/* Optional. 0 if the backend can be opened here; else a VTA_E* code and
	 * the reason in why. NULL means always available. */
	int (*probe)(char *why, size_t n);

	/* Required. Acquire the device and set dev->dram_va/_pa/_size,
	 * dev->dram_first and dev->coherent. On failure release everything
	 * acquired and return the code with err filled. */
	int (*open)(vta_dev_t *dev, vta_error_t *err);

	/* Required. Release what open acquired. */
	void (*close)(vta_dev_t *dev);

	/* Required. Read the configuration ID and version of the device. */
	int (*identify)(vta_dev_t *dev, uint32_t *config_id, uint32_t *version, vta_error_t *err);

	/* Required. Run insn_count instructions at physical address insn_pa
	 * with base registers 0 and wait for FINISH (wait_cycles: see
	 * VTADeviceRun). 0, VTA_ETIMEOUT or another VTA_E* code. */
	int (*run)(vta_dev_t *dev, uint64_t insn_pa, uint32_t insn_count, uint32_t wait_cycles,
		   vta_error_t *err);

	/* Optional. After a failed run, bring the device back to power-on
	 * state (tokens, queues) so that the next run starts clean: the soft
	 * reset on devices with registers. 0 or a VTA_E* code with err filled. */
	int (*recover)(vta_dev_t *dev, vta_error_t *err);

	/* Optional. Write back / discard CPU caches for window bytes
	 * [off, off + n). NULL on coherent devices. */
	void (*flush)(vta_dev_t *dev, size_t off, size_t n);
	void (*invalidate)(vta_dev_t *dev, size_t off, size_t n);

	/* Optional. Add the counters of the last run to *c. */
	void (*counters)(vta_dev_t *dev, vta_counters_t *c);

	/* Optional. One line describing the open device. */
	void (*describe)(vta_dev_t *dev, char *buf, size_t n);
} vta_backend_t;

struct vta_dev {
	const vta_backend_t *be;
	void *priv;

	uint8_t *dram_va;  /* CPU address of the DMA window */
	uint64_t dram_pa;  /* its physical address */
	size_t dram_size;  /* its bytes */
	size_t dram_first; /* first byte offset the allocator may hand out */
	int coherent;

	uint32_t config_id, version;
	uint64_t runs;
	vta_counters_t total; /* counters summed over all runs */
	int has_counters;

	/* For backends driven through registers (zynq): how to reach them.
	 * Set by vta_dev_open_mmio before open; NULL means the real board. */
	const vta_mmio_t *mmio;
};

/* Open backend `name`; on success *out is an identified device whose
 * configuration matched VTA_CONFIG_ID. */
int vta_dev_open(const char *name, vta_dev_t **out, vta_error_t *err);
void vta_dev_close(vta_dev_t *dev);
/* Run and account; on failure the device is recovered. */
int vta_dev_run(vta_dev_t *dev, uint64_t insn_pa, uint32_t insn_count, uint32_t wait_cycles,
		vta_error_t *err);

/* The backends, in the order `vta info` lists them. */
const vta_backend_t *vta_backend_find(const char *name);
extern const vta_backend_t vta_backend_fsim;
extern const vta_backend_t vta_backend_rtl;
extern const vta_backend_t vta_backend_zynq;
extern const vta_backend_t vta_backend_xrt;

/* Shared by backends: *t += *c, field by field. */
void vta_counters_add(vta_counters_t *t, const vta_counters_t *c);

/* Shared by backends: the DRAM size of the simulators ($VTA_DRAM_MB). */
size_t vta_sim_dram_bytes(void);

#endif /* VTA_DRIVER_BACKEND_H */
