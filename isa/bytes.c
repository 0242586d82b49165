/* SPDX-License-Identifier: Apache-2.0 */
/* The growable byte buffer of internal/vta/bytes.h. */
#include <stdlib.h>
#include <string.h>

#include <vta/bytes.h>

void vta_buf_put(vta_buf *b, const void *data, size_t n)
{
	if (b->oom || !n)
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->n + n)
			cap *= 2;
		uint8_t *np = realloc(b->p, cap);
		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

void vta_buf_put_le32(vta_buf *b, uint32_t v)
{
	uint8_t d[4];
	vta_wr_le32(d, v);
	vta_buf_put(b, d, 4);
}

void vta_buf_put_le64(vta_buf *b, uint64_t v)
{
	uint8_t d[8];
	vta_wr_le64(d, v);
	vta_buf_put(b, d, 8);
}
