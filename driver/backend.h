/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device interface every backend implements (private to the library).
 *
 * A device is what VTADeviceAlloc names: a DMA window (a physically
 * contiguous range of device memory that the CPU can address), a way to run
 * an instruction stream that lies in it, and optionally registers and cache
 * maintenance. The runtime allocates from the window itself and checks every
 * stream before it runs (runtime/), so a backend never sees individual
 * buffers. A backend never calls into the runtime.
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

typedef struct vta_backend {
	const char *name;    /* as VTA_TARGET spells it */
	const char *summary; /* one line for `vta info` */
	size_t priv_size;    /* bytes of zeroed state attached as dev->priv */

	/* Optional. 0 if the backend can be opened here; else a VTA_E* code and
	 * the reason in why. NULL means always available. */
	int (*probe)(char *why, size_t n);

	/* Required. Acquire the device (exclusively: a device another process
	 * holds is refused, naming the holder) and set dev->dram_va/_pa/_size,
	 * dev->dram_va_uc, dev->dram_first and dev->coherent. On failure release
	 * everything acquired and return the code with err filled. */
	int (*open)(vta_dev_t *dev, vta_error_t *err);

	/* Required. Release what open acquired. */
	void (*close)(vta_dev_t *dev);

	/* Required. Read the configuration ID and version of the device. */
	int (*identify)(vta_dev_t *dev, uint32_t *config_id, uint32_t *version, vta_error_t *err);

	/* Required. Run insn_count instructions at physical address insn_pa
	 * with base registers 0 and wait for FINISH (wait_cycles: see
	 * VTADeviceRun). The caller has checked the stream and made the CPU's
	 * writes visible (flush). 0, VTA_ETIMEOUT or another VTA_E* code. */
	int (*run)(vta_dev_t *dev, uint64_t insn_pa, uint32_t insn_count, uint32_t wait_cycles,
		   vta_error_t *err);

	/* Optional. After a failed run, bring the device back to power-on
	 * state (tokens, queues) so that the next run starts clean: the soft
	 * reset on devices with registers. 0 or a VTA_E* code with err filled. */
	int (*recover)(vta_dev_t *dev, vta_error_t *err);

	/* Optional (NULL on coherent devices). Make CPU writes to window bytes
	 * [off, off + n) visible to the device (flush; written_by_device says
	 * the device will also write them), or the device's writes visible to
	 * the CPU (invalidate). 0 or a VTA_E* code with err naming what failed. */
	int (*flush)(vta_dev_t *dev, size_t off, size_t n, int written_by_device, vta_error_t *err);
	int (*invalidate)(vta_dev_t *dev, size_t off, size_t n, vta_error_t *err);

	/* Optional. Add the counters of the last run to *c. */
	void (*counters)(vta_dev_t *dev, vta_counters_t *c);

	/* Optional. One line describing the open device. */
	void (*describe)(vta_dev_t *dev, char *buf, size_t n);

	/* Optional: the AXI4-Lite register window (vta_regmap.h offsets), for
	 * VTAMapRegister. reg_ptr returns the CPU address of the window when it
	 * is real memory (a board), else NULL and reads and writes go through
	 * reg_read/reg_write. */
	uint32_t (*reg_read)(vta_dev_t *dev, uint32_t off);
	void (*reg_write)(vta_dev_t *dev, uint32_t off, uint32_t val);
	volatile uint32_t *(*reg_ptr)(vta_dev_t *dev);
} vta_backend_t;

struct vta_dev {
	const vta_backend_t *be;
	void *priv;

	uint8_t *dram_va;    /* CPU address of the DMA window (cached view) */
	uint8_t *dram_va_uc; /* its uncached view, or NULL if the same as dram_va */
	uint64_t dram_pa;    /* its physical address */
	size_t dram_size;    /* its bytes */
	size_t dram_first;   /* first byte offset the allocator may hand out */
	int coherent;        /* 1: device accesses snoop the CPU caches */
	uint64_t reg_base;   /* physical address of the register window (0: none) */
	uint32_t reg_size;

	uint32_t config_id, version;
	uint64_t runs;
	vta_counters_t total; /* counters summed over all runs */
	vta_counters_t last;  /* those of the last run */
	int has_counters;
	uint64_t syncs, sync_bytes; /* cache maintenance calls and bytes */

	/* A test seam replacing the board (driver/zynq.h: struct vta_mmio for
	 * zynq, driver/xrt_hal.h: struct vta_xrt_hal for xrt), or NULL. */
	const void *seam;
};

/* Open backend `name`; on success *out is an identified device whose
 * configuration matched VTA_CONFIG_ID. */
int vta_dev_open(const char *name, vta_dev_t **out, vta_error_t *err);
/* The same through a test seam (see struct vta_dev). */
int vta_dev_open_seam(const char *name, const void *seam, vta_dev_t **out, vta_error_t *err);
void vta_dev_close(vta_dev_t *dev);
/* Run and account; on failure the device is recovered. */
int vta_dev_run(vta_dev_t *dev, uint64_t insn_pa, uint32_t insn_count, uint32_t wait_cycles,
		vta_error_t *err);
/* Cache maintenance of window bytes [off, off + n), counted; 0 on coherent
 * devices. */
int vta_dev_flush(vta_dev_t *dev, size_t off, size_t n, int written_by_device, vta_error_t *err);
int vta_dev_invalidate(vta_dev_t *dev, size_t off, size_t n, vta_error_t *err);

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

/* Shared by backends: the register window of the board this configuration
 * targets (boards/boards.txt; VTA_BOARD names another), so that code using
 * the board's addresses (VTAMapRegister) runs unchanged on a simulation. */
int vta_board_reg_window(uint64_t *base, uint32_t *size, int *coherent, vta_error_t *err);

/* Shared by backends: order the CPU's memory writes before the register
 * write that follows (the start of a run). */
void vta_io_barrier(void);

/* Shared by backends: take an exclusive lock on an open device file; on
 * conflict the error names the process holding it (from /proc/locks). */
int vta_lock_device_file(int fd, const char *path, vta_error_t *err);

#endif /* VTA_DRIVER_BACKEND_H */
