/* SPDX-License-Identifier: Apache-2.0 */
/*
 * XRT's C HAL (driver/xrt_hal.h) modelled over the RTL simulation, so the
 * xrt backend's own logic runs in CI: one device holding one IP, "vta:{vta_1}",
 * whose registers are the model's AXI4-Lite port and interrupt its irq pin;
 * buffer objects are host memory that reaches the model's DRAM only through
 * sync_bo (as on a card), so a missing sync fails a program; the IP's
 * context is exclusive.
 */
#ifndef VTA_TESTS_XRT_MODEL_H
#define VTA_TESTS_XRT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <vta/rtlsim.h>

#include "../../driver/xrt_hal.h"
#include "../../driver/zynq.h"

typedef struct {
	struct vta_xrt_hal hal;
	vta_rtlsim_t *sim;
	struct vta_mmio rtl;
	uint8_t *host;       /* the buffer object's host memory */
	size_t bo_size;
	int bo_live, contexts;
	int fail_sync;       /* the next sync_bo fails with this errno */
	uint64_t syncs_to, syncs_from;
} XrtModel;

/* 0, or -1 (message on stderr). */
int xrt_model_init(XrtModel *x, size_t dram_bytes);
void xrt_model_free(XrtModel *x);

#endif
