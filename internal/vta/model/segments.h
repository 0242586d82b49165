/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A compiled model's device image in device buffers (segments.c): one
 * buffer per VTA_MGRAPH_SEGMENT bytes, the DRAM addresses of the kernels'
 * LOAD/STORE instructions relocated into them. Internal to libvta; the
 * model API and the compiler's runner (compiler/artifact/runner.c) share it.
 */
#ifndef VTA_MODEL_SEGMENTS_H
#define VTA_MODEL_SEGMENTS_H

#include <vta/runtime.h>

#include <vta/model/graph.h>

typedef struct vta_mseg {
	int n;
	int64_t size;          /* image bytes */
	uint8_t **host;        /* host view of each buffer */
	vta_phy_addr_t *pa;    /* its physical address */
} vta_mseg_t;

/* Copy the image (size bytes) into device memory of ctx (cached: the CPU's
 * cached view, as VTAMemAlloc's flag). s is zeroed first; free it with
 * vta_mseg_free, also after an error. */
int vta_mseg_load(vta_mseg_t *s, const uint8_t *image, int64_t size, int cached, vta_context_t *ctx,
		  vta_error_t *err);
/* Relocate kernel k's count instructions at image offset insn_off. */
int vta_mseg_relocate(vta_mseg_t *s, uint32_t k, int64_t insn_off, int64_t count, vta_error_t *err);
/* Make the whole image visible to the device. */
int vta_mseg_flush(const vta_mseg_t *s, vta_context_t *ctx, vta_error_t *err);
/* The buffers, then the tables. */
void vta_mseg_free(vta_mseg_t *s, vta_context_t *ctx);

/* Host and physical address of image offset off (emit places each region
 * inside one buffer). */
static inline uint8_t *vta_mseg_host(const vta_mseg_t *s, int64_t off)
{
	return s->host[off / VTA_MGRAPH_SEGMENT] + off % VTA_MGRAPH_SEGMENT;
}
static inline vta_phy_addr_t vta_mseg_phys(const vta_mseg_t *s, int64_t off)
{
	return s->pa[off / VTA_MGRAPH_SEGMENT] + (vta_phy_addr_t)(off % VTA_MGRAPH_SEGMENT);
}

#endif /* VTA_MODEL_SEGMENTS_H */
