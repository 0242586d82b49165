/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Contexts on simulated boards, for tests (not part of the installed API):
 * a backend's board code driven through its test seam (driver/zynq.h,
 * driver/xrt.h) instead of the board's device files.
 */
#ifndef VTA_RUNTIME_SEAMS_H
#define VTA_RUNTIME_SEAMS_H

#include <vta/error.h>
#include <vta/runtime.h>

struct vta_mmio;

/* A context on a new device of backend `backend` opened through `seam`
 * (which must outlive the device); it is not shared by name. */
int vta_context_open_seam(const char *backend, const void *seam, vta_context_t **out,
			  vta_error_t *err);

/* The zynq backend through a struct vta_mmio. */
int vta_zynq_open_mmio(const struct vta_mmio *mmio, vta_context_t **out, vta_error_t *err);

#endif /* VTA_RUNTIME_SEAMS_H */
