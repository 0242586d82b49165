/* SPDX-License-Identifier: Apache-2.0 */
/* A compiled model's device image in device buffers (segments.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <vta/isa.h>
#include <vta/model/segments.h>

#include "../context.h"

static size_t seg_bytes(const vta_mseg_t *s, int i)
{
	int64_t at = (int64_t)i * VTA_MGRAPH_SEGMENT;
	return (size_t)(s->size - at < VTA_MGRAPH_SEGMENT ? s->size - at : VTA_MGRAPH_SEGMENT);
}

int vta_mseg_load(vta_mseg_t *s, const uint8_t *image, int64_t size, int cached, vta_context_t *ctx,
		  vta_error_t *err)
{
	memset(s, 0, sizeof *s);
	if (size <= 0)
		return 0;
	s->size = size;
	s->n = (int)((size + VTA_MGRAPH_SEGMENT - 1) / VTA_MGRAPH_SEGMENT);
	s->host = calloc((size_t)s->n, sizeof *s->host);
	s->pa = calloc((size_t)s->n, sizeof *s->pa);
	if (!s->host || !s->pa)
		return vta_error_set(err, VTA_ENOMEM, -1, "out of memory");
	for (int i = 0; i < s->n; i++) {
		size_t bytes = seg_bytes(s, i);
		vta_error_t e;
		uint64_t pa;
		if (!(s->host[i] = ctx_mem_alloc(ctx, bytes, cached, &pa, &e)))
			return vta_error_set(err, VTA_ENOMEM, -1, "cannot allocate %zu bytes of device memory (buffer"
					     " %d of %d, %" PRId64 " bytes in all): %s", bytes, i + 1, s->n, size,
					     e.msg);
		s->pa[i] = (vta_phy_addr_t)pa;
		memcpy(s->host[i], image + (int64_t)i * VTA_MGRAPH_SEGMENT, bytes);
	}
	return 0;
}

int vta_mseg_relocate(vta_mseg_t *s, uint32_t k, int64_t insn_off, int64_t count, vta_error_t *err)
{
	for (int64_t i = 0; i < count; i++) {
		uint8_t *p = vta_mseg_host(s, insn_off + 16 * i);
		vta_insn_word_t w;
		vta_insn_t in;
		vta_insn_load(p, &w);
		vta_insn_decode(&w, &in);
		if (in.opcode != VTA_OPCODE_LOAD && in.opcode != VTA_OPCODE_STORE)
			continue;
		uint32_t eb = vta_mem_elem_bytes(in.memory_type);
		int64_t off = (int64_t)in.dram_base * eb;
		if (!eb || off >= s->size)
			return vta_error_set(err, VTA_ERANGE, (long)i, "kernel %" PRIu32 " instruction %" PRId64
					     ": DRAM address outside the image", k, i);
		vta_phy_addr_t pa = vta_mseg_phys(s, off);
		if (pa % eb || pa / eb > UINT32_MAX)
			return vta_error_set(err, VTA_ERANGE, (long)i, "kernel %" PRIu32 " instruction %" PRId64
					     ": cannot relocate to 0x%llx", k, i, (unsigned long long)pa);
		in.dram_base = (uint32_t)(pa / eb);
		int rc = vta_insn_encode(&in, &w, err);
		if (rc)
			return rc;
		vta_insn_store(&w, p);
	}
	return 0;
}

int vta_mseg_flush(const vta_mseg_t *s, vta_context_t *ctx, vta_error_t *err)
{
	for (int i = 0; i < s->n; i++) {
		int rc = ctx_mem_sync(ctx, 1, s->host[i], seg_bytes(s, i), err);
		if (rc)
			return rc;
	}
	return 0;
}

void vta_mseg_free(vta_mseg_t *s, vta_context_t *ctx)
{
	for (int i = 0; s->host && i < s->n; i++)
		if (s->host[i])
			ctx_mem_free(ctx, s->host[i]);
	free(s->host);
	free(s->pa);
	memset(s, 0, sizeof *s);
}
