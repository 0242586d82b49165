/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A simulated PYNQ/Ultra96 board for tests and benchmarks: the zynq
 * backend's registers connected to the RTL model's AXI4-Lite port, and its
 * memory either the model's DRAM (coherent) or, as on a board whose memory
 * port does not snoop the caches, a u-dma-buf tree under a temporary
 * directory: the CPU's cached view is its dev/udmabuf0 file, which reaches
 * the model's DRAM only when the backend writes the tree's sync_for_device
 * file (and the other way on sync_for_cpu), which board_model.c serves as the
 * kernel would. A missing flush or invalidate makes a program fail.
 */
#ifndef VTA_TESTS_BOARD_MODEL_H
#define VTA_TESTS_BOARD_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <vta/rtlsim.h>
#include <vta/runtime.h>

#include "../../driver/zynq.h"

#define BOARD_DRAM_BYTES ((size_t)64 << 20)

/* What the model's "kernel" and registers saw, in order. */
enum { EV_SYNC_DEV = 1, EV_SYNC_CPU, EV_BARRIER, EV_START };

typedef struct {
	vta_rtlsim_t *sim;
	struct vta_mmio rtl;  /* the model's own port (vta_rtl_mmio) */
	struct vta_mmio mmio; /* what the zynq backend is given */
	vta_context_t *ctx;
	char root[256], dev[300], attr[300]; /* tree, dev/udmabuf0, its sysfs dir */
	int fd;                               /* the model's own handle on dev/udmabuf0 */
	int events[64];
	size_t nevents;
	uint64_t synced_dev, synced_cpu;      /* bytes copied either way */
	int bad_sync;                         /* a sync file held a bad value */
	/* Optional: called at the barrier before a start, i.e. while a run
	 * holds its buffers. */
	void (*on_barrier)(void *arg);
	void *on_barrier_arg;
} Board;

/* Create the model and open a context on it (not bound); with_tree: the
 * non-coherent u-dma-buf memory. 0 or -1 (message on stderr). */
int board_open(Board *b, int with_tree);
/* Close the context, destroy the model and remove the tree. */
void board_close(Board *b);
void board_remove_tree(Board *b);

#endif
