/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bounds-checked FlatBuffers reader (format notes in flatbuf.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <vta/bytes.h>

#include "import/flatbuf.h"

static void fail(vc_fb *fb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(vc_fb *fb, const char *fmt, ...)
{
	if (fb->bad)
		return;
	fb->bad = 1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fb->err, sizeof fb->err, fmt, ap);
	va_end(ap);
}

/* Are bytes [at, at+len) inside the buffer? */
static int inside(const vc_fb *fb, uint64_t at, uint64_t len)
{
	return at <= fb->n && len <= fb->n - at;
}

static uint32_t rd32(const vc_fb *fb, uint32_t at) { return vta_rd_le32(fb->p + at); }

static uint16_t rd16(const vc_fb *fb, uint32_t at) { return vta_rd_le16(fb->p + at); }

/* The table at pos: its vtable checked to lie inside the buffer. */
static vc_fb_table table_at(vc_fb *fb, uint64_t pos)
{
	vc_fb_table t = {0, 0, 0, 0};
	if (fb->bad)
		return t;
	if (!inside(fb, pos, 4)) {
		fail(fb, "a table at offset %llu lies outside the %zu-byte file", (unsigned long long)pos, fb->n);
		return t;
	}
	int64_t vt = (int64_t)pos - (int32_t)rd32(fb, (uint32_t)pos);
	if (vt < 0 || !inside(fb, (uint64_t)vt, 4)) {
		fail(fb, "the vtable of the table at offset %llu lies outside the file", (unsigned long long)pos);
		return t;
	}
	uint16_t vlen = rd16(fb, (uint32_t)vt), tlen = rd16(fb, (uint32_t)vt + 2);
	if (vlen < 4 || (vlen & 1) || !inside(fb, (uint64_t)vt, vlen) || !inside(fb, pos, tlen < 4 ? 4 : tlen)) {
		fail(fb, "the table at offset %llu has a malformed vtable (%u vtable bytes, %u table bytes)",
		     (unsigned long long)pos, vlen, tlen);
		return t;
	}
	t.pos = (uint32_t)pos;
	t.vt = (uint32_t)vt;
	t.nfields = (uint16_t)((vlen - 4) / 2);
	t.size = tlen;
	return t;
}

int vc_fb_open(vc_fb *fb, const uint8_t *buf, size_t len)
{
	memset(fb, 0, sizeof *fb);
	fb->p = buf;
	fb->n = len;
	if (len < 8 || len > 0x7fffffffu) {
		fail(fb, "%zu bytes cannot hold a FlatBuffers root table", len);
		return -1;
	}
	return 0;
}

void vc_fb_ident(const vc_fb *fb, char out[5])
{
	out[0] = 0;
	if (fb->n >= 8) {
		memcpy(out, fb->p + 4, 4);
		out[4] = 0;
	}
}

vc_fb_table vc_fb_root(vc_fb *fb)
{
	vc_fb_table t = {0, 0, 0, 0};
	if (fb->bad || !inside(fb, 0, 4))
		return t;
	return table_at(fb, rd32(fb, 0));
}

/* Absolute position of field id of t, with room for bytes; 0 if absent. */
static uint32_t field(vc_fb *fb, const vc_fb_table *t, int id, uint32_t bytes)
{
	if (fb->bad || !t->pos || id < 0 || id >= t->nfields)
		return 0;
	uint16_t off = rd16(fb, t->vt + 4 + 2 * (uint32_t)id);
	if (!off)
		return 0;
	if ((uint32_t)off + bytes > t->size || !inside(fb, (uint64_t)t->pos + off, bytes)) {
		fail(fb, "field %d of the table at offset %u lies outside the table", id, t->pos);
		return 0;
	}
	return t->pos + off;
}

int vc_fb_has(vc_fb *fb, const vc_fb_table *t, int id)
{
	return field(fb, t, id, 1) != 0;
}

uint8_t vc_fb_u8(vc_fb *fb, const vc_fb_table *t, int id, uint8_t def)
{
	uint32_t f = field(fb, t, id, 1);
	return f ? fb->p[f] : def;
}

int8_t vc_fb_i8(vc_fb *fb, const vc_fb_table *t, int id, int8_t def)
{
	uint32_t f = field(fb, t, id, 1);
	return f ? (int8_t)fb->p[f] : def;
}

uint32_t vc_fb_u32(vc_fb *fb, const vc_fb_table *t, int id, uint32_t def)
{
	uint32_t f = field(fb, t, id, 4);
	return f ? rd32(fb, f) : def;
}

int32_t vc_fb_i32(vc_fb *fb, const vc_fb_table *t, int id, int32_t def)
{
	uint32_t f = field(fb, t, id, 4);
	return f ? (int32_t)rd32(fb, f) : def;
}

float vc_fb_f32(vc_fb *fb, const vc_fb_table *t, int id, float def)
{
	uint32_t f = field(fb, t, id, 4);
	if (!f)
		return def;
	uint32_t u = rd32(fb, f);
	float v;
	memcpy(&v, &u, 4);
	return v;
}

/* Follow the uoffset stored at pos; 0 (with an error) if it leaves the file. */
static uint32_t follow(vc_fb *fb, uint32_t pos, const char *what)
{
	uint64_t to = (uint64_t)pos + rd32(fb, pos);
	if (!inside(fb, to, 4)) {
		fail(fb, "the %s referenced at offset %u lies outside the %zu-byte file", what, pos, fb->n);
		return 0;
	}
	return (uint32_t)to;
}

vc_fb_table vc_fb_table_field(vc_fb *fb, const vc_fb_table *t, int id)
{
	vc_fb_table none = {0, 0, 0, 0};
	uint32_t f = field(fb, t, id, 4);
	if (!f)
		return none;
	uint32_t to = follow(fb, f, "table");
	return to ? table_at(fb, to) : none;
}

/* The vector whose uoffset is stored at pos. */
static vc_fb_vec vector_at(vc_fb *fb, uint32_t pos, uint32_t elem)
{
	vc_fb_vec v = {0, 0, elem};
	uint32_t to = follow(fb, pos, "vector");
	if (!to)
		return v;
	uint32_t len = rd32(fb, to);
	if (!inside(fb, (uint64_t)to + 4, (uint64_t)len * elem)) {
		fail(fb, "a vector of %u elements of %u bytes at offset %u runs past the end of the %zu-byte file", len,
		     elem, to, fb->n);
		return v;
	}
	v.pos = to + 4;
	v.len = len;
	return v;
}

vc_fb_vec vc_fb_vector(vc_fb *fb, const vc_fb_table *t, int id, uint32_t elem)
{
	vc_fb_vec none = {0, 0, elem};
	uint32_t f = field(fb, t, id, 4);
	return f ? vector_at(fb, f, elem) : none;
}

void vc_fb_string(vc_fb *fb, const vc_fb_table *t, int id, char *out, size_t n)
{
	out[0] = 0;
	vc_fb_vec v = vc_fb_vector(fb, t, id, 1);
	if (!v.len || fb->bad)
		return;
	size_t k = v.len < n - 1 ? v.len : n - 1;
	memcpy(out, fb->p + v.pos, k);
	out[k] = 0;
	for (size_t i = 0; i < k; i++) /* names go into messages: printable only */
		if (out[i] < 0x20 || out[i] > 0x7e)
			out[i] = '?';
}

static int elem_ok(vc_fb *fb, const vc_fb_vec *v, uint32_t i, uint32_t elem)
{
	if (fb->bad)
		return 0;
	if (v->len && v->elem != elem) {
		fail(fb, "a vector of %u-byte elements read as %u-byte ones", v->elem, elem);
		return 0;
	}
	if (i >= v->len) {
		fail(fb, "element %u of a %u-element vector", i, v->len);
		return 0;
	}
	return 1;
}

vc_fb_table vc_fb_vec_table(vc_fb *fb, const vc_fb_vec *v, uint32_t i)
{
	vc_fb_table none = {0, 0, 0, 0};
	if (!elem_ok(fb, v, i, 4))
		return none;
	uint32_t to = follow(fb, v->pos + 4 * i, "table");
	return to ? table_at(fb, to) : none;
}

int32_t vc_fb_vec_i32(vc_fb *fb, const vc_fb_vec *v, uint32_t i)
{
	return elem_ok(fb, v, i, 4) ? (int32_t)rd32(fb, v->pos + 4 * i) : 0;
}

int64_t vc_fb_vec_i64(vc_fb *fb, const vc_fb_vec *v, uint32_t i)
{
	if (!elem_ok(fb, v, i, 8))
		return 0;
	uint64_t lo = rd32(fb, v->pos + 8 * i), hi = rd32(fb, v->pos + 8 * i + 4);
	return (int64_t)(hi << 32 | lo);
}

float vc_fb_vec_f32(vc_fb *fb, const vc_fb_vec *v, uint32_t i)
{
	if (!elem_ok(fb, v, i, 4))
		return 0.0f;
	uint32_t u = rd32(fb, v->pos + 4 * i);
	float f;
	memcpy(&f, &u, 4);
	return f;
}

uint8_t vc_fb_vec_u8(vc_fb *fb, const vc_fb_vec *v, uint32_t i)
{
	return elem_ok(fb, v, i, 1) ? fb->p[v->pos + i] : 0;
}

const uint8_t *vc_fb_vec_bytes(vc_fb *fb, const vc_fb_vec *v)
{
	return fb->bad || !v->len ? NULL : fb->p + v->pos;
}
