/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Byte order and a growable byte buffer, shared by every reader and writer
 * of the stack's files (.vtam, program files, models, datasets,
 * bitstreams). The files fix their byte order; these never depend on the
 * host's. Not installed.
 */
#ifndef VTA_BYTES_H
#define VTA_BYTES_H

#include <stddef.h>
#include <stdint.h>

static inline uint16_t vta_rd_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static inline uint32_t vta_rd_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t vta_rd_le64(const uint8_t *p) { return vta_rd_le32(p) | (uint64_t)vta_rd_le32(p + 4) << 32; }

static inline uint32_t vta_rd_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void vta_wr_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void vta_wr_le64(uint8_t *p, uint64_t v)
{
	vta_wr_le32(p, (uint32_t)v);
	vta_wr_le32(p + 4, (uint32_t)(v >> 32));
}

/* A growable byte buffer (isa/bytes.c). A failed allocation sets oom and
 * makes every later put a no-op, so a writer checks once at the end.
 * Zero-initialized is empty; free p when done. */
typedef struct vta_buf {
	uint8_t *p;
	size_t n, cap;
	int oom;
} vta_buf;

void vta_buf_put(vta_buf *b, const void *data, size_t n);
void vta_buf_put_le32(vta_buf *b, uint32_t v);
void vta_buf_put_le64(vta_buf *b, uint64_t v);

#endif /* VTA_BYTES_H */
