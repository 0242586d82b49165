/* SPDX-License-Identifier: Apache-2.0 */
/* The FlatBuffers writer of fbwrite.h. */
#include <stdlib.h>
#include <string.h>

#include "fbwrite.h"

void fbw_init(fbw *b)
{
	memset(b, 0, sizeof *b);
}

void fbw_free(fbw *b)
{
	free(b->buf);
	memset(b, 0, sizeof *b);
}

/* Room for n more bytes in front; the address of the new first byte. */
static uint8_t *front(fbw *b, size_t n)
{
	if (b->oom)
		return NULL;
	if (b->used + n > b->cap) {
		size_t nc = b->cap ? b->cap : 1024;
		while (nc < b->used + n)
			nc *= 2;
		uint8_t *nb = malloc(nc);
		if (!nb) {
			b->oom = 1;
			return NULL;
		}
		if (b->used)
			memcpy(nb + nc - b->used, b->buf + b->cap - b->used, b->used);
		free(b->buf);
		b->buf = nb;
		b->cap = nc;
	}
	b->used += n;
	return b->buf + b->cap - b->used;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static void pad4(fbw *b)
{
	while (b->used % 4) {
		uint8_t *p = front(b, 1);
		if (!p)
			return;
		*p = 0;
	}
}

/* A u32 in front; 0 when out of memory. */
static uint32_t push32(fbw *b, uint32_t v)
{
	uint8_t *p = front(b, 4);
	if (!p)
		return 0;
	put32(p, v);
	return (uint32_t)b->used;
}

/* The uoffset to r from a field at distance at (the field's first byte). */
static uint32_t rel(uint32_t at, fbw_ref r)
{
	return at - r;
}

static fbw_ref vector(fbw *b, const void *data, size_t n, size_t elem)
{
	size_t bytes = n * elem;
	pad4(b);
	while ((b->used + bytes) % 4) { /* the count must land 4-aligned */
		uint8_t *p = front(b, 1);
		if (!p)
			return 0;
		*p = 0;
	}
	uint8_t *p = front(b, bytes);
	if (p && bytes)
		memcpy(p, data, bytes); /* little-endian host assumed by the tests */
	return push32(b, (uint32_t)n);
}

fbw_ref fbw_string(fbw *b, const char *s)
{
	size_t n = strlen(s);
	pad4(b);
	while ((b->used + n + 1) % 4) { /* padding goes after the NUL */
		uint8_t *p = front(b, 1);
		if (!p)
			return 0;
		*p = 0;
	}
	uint8_t *z = front(b, 1);
	if (z)
		*z = 0;
	uint8_t *p = front(b, n);
	if (p && n)
		memcpy(p, s, n);
	return push32(b, (uint32_t)n);
}

fbw_ref fbw_bytes(fbw *b, const void *data, size_t n)
{
	return vector(b, data, n, 1);
}

fbw_ref fbw_i32s(fbw *b, const int32_t *v, size_t n)
{
	return vector(b, v, n, 4);
}

fbw_ref fbw_f32s(fbw *b, const float *v, size_t n)
{
	return vector(b, v, n, 4);
}

fbw_ref fbw_i64s(fbw *b, const int64_t *v, size_t n)
{
	return vector(b, v, n, 8);
}

fbw_ref fbw_refs(fbw *b, const fbw_ref *v, size_t n)
{
	pad4(b);
	for (size_t i = n; i-- > 0;) {
		uint8_t *p = front(b, 4);
		if (!p)
			return 0;
		put32(p, rel((uint32_t)b->used, v[i]));
	}
	return push32(b, (uint32_t)n);
}

void fbw_begin(fbw *b)
{
	b->nf = 0;
	pad4(b);
}

static void field(fbw *b, int id, const void *v, size_t n)
{
	if (b->nf == FBW_MAX_FIELDS || id < 0 || id >= FBW_MAX_FIELDS) {
		b->oom = 1;
		return;
	}
	pad4(b);
	uint8_t *p = front(b, 4);
	if (!p)
		return;
	memset(p, 0, 4);
	memcpy(p, v, n);
	b->f[b->nf].id = id;
	b->f[b->nf].at = (uint32_t)b->used;
	b->nf++;
}

void fbw_u8(fbw *b, int id, uint8_t v)
{
	field(b, id, &v, 1);
}

void fbw_i32(fbw *b, int id, int32_t v)
{
	uint8_t le[4];
	put32(le, (uint32_t)v);
	field(b, id, le, 4);
}

void fbw_f32(fbw *b, int id, float v)
{
	uint32_t u;
	memcpy(&u, &v, 4);
	fbw_i32(b, id, (int32_t)u);
}

void fbw_ref_field(fbw *b, int id, fbw_ref r)
{
	/* the value depends on where the field lands: the slot's distance is
	 * b->used + 4 once pushed */
	pad4(b);
	uint8_t le[4];
	put32(le, rel((uint32_t)b->used + 4, r));
	field(b, id, le, 4);
}

fbw_ref fbw_end(fbw *b)
{
	uint32_t table = push32(b, 0); /* soffset to the vtable, patched below */
	int maxid = -1;
	for (int i = 0; i < b->nf; i++)
		maxid = b->f[i].id > maxid ? b->f[i].id : maxid;
	int nslots = maxid + 1;
	uint16_t vt[2 + FBW_MAX_FIELDS];
	memset(vt, 0, sizeof vt);
	vt[0] = (uint16_t)(4 + 2 * nslots);
	/* the table's bytes: from the soffset up to the end of the first field pushed */
	uint32_t top = b->nf ? b->f[0].at - 4 : table - 4;
	vt[1] = (uint16_t)(table - top);
	for (int i = 0; i < b->nf; i++)
		vt[2 + b->f[i].id] = (uint16_t)(table - b->f[i].at);
	size_t vbytes = (size_t)vt[0];
	if (vbytes % 4) { /* keep the vtable's end 4-aligned */
		uint8_t *p = front(b, 2);
		if (p)
			memset(p, 0, 2);
	}
	uint8_t *p = front(b, vbytes);
	if (!p)
		return 0;
	for (size_t i = 0; i < vbytes / 2; i++)
		p[2 * i] = (uint8_t)vt[i], p[2 * i + 1] = (uint8_t)(vt[i] >> 8);
	uint32_t vtab = (uint32_t)b->used;
	/* soffset = table position - vtable position (the vtable sits before the table) */
	put32(b->buf + b->cap - table, (uint32_t)(int32_t)(vtab - table));
	b->nf = 0;
	return table;
}

const uint8_t *fbw_finish(fbw *b, fbw_ref root, const char *ident, size_t *len)
{
	pad4(b);
	uint8_t *id = front(b, 4);
	if (id)
		memcpy(id, ident, 4);
	uint8_t *p = front(b, 4);
	if (!p || b->oom)
		return NULL;
	put32(p, rel((uint32_t)b->used, root));
	*len = b->used;
	return b->buf + b->cap - b->used;
}
