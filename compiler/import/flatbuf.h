/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A bounds-checked reader of FlatBuffers binaries (Debian 12 packages no C
 * FlatBuffers library). Only what a schema-driven importer needs: the root
 * table, scalar fields with defaults, sub-tables, unions, strings and
 * vectors of scalars or tables. Every offset is checked against the buffer
 * before it is followed; the first violation is recorded in the reader (with
 * the byte offset and what was being read) and every later read returns the
 * default, so a caller checks the error once per object instead of per
 * field.
 *
 * The wire format (flatbuffers.dev, "FlatBuffers internals"), little-endian:
 * a uoffset (u32) at 0 to the root table; a table starts with an soffset
 * (i32) back to its vtable; a vtable is u16 vtable bytes, u16 table bytes,
 * then one u16 per field: its offset in the table, 0 when absent. A field
 * that refers to a table, vector or string holds a u32 offset relative to
 * the field's own position; vectors and strings start with a u32 count.
 */
#ifndef VC_FLATBUF_H
#define VC_FLATBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct vc_fb {
	const uint8_t *p;
	size_t n;
	int bad;        /* an error was recorded */
	char err[256];  /* the first one */
} vc_fb;

typedef struct vc_fb_table {
	uint32_t pos;     /* the table's start; 0 with fields 0: absent table */
	uint32_t vt;      /* its vtable */
	uint16_t nfields; /* entries in the vtable */
	uint16_t size;    /* inline bytes of the table */
} vc_fb_table;

typedef struct vc_fb_vec {
	uint32_t pos; /* first element */
	uint32_t len; /* elements (0 when absent) */
	uint32_t elem; /* bytes per element */
} vc_fb_vec;

/* Start reading buf. 0, or -1 if it cannot hold a root table (message in fb->err). */
int vc_fb_open(vc_fb *fb, const uint8_t *buf, size_t len);
/* The 4-byte file identifier after the root offset, or "" if the file is too short. */
void vc_fb_ident(const vc_fb *fb, char out[5]);
vc_fb_table vc_fb_root(vc_fb *fb);

/* Is field id present? */
int vc_fb_has(vc_fb *fb, const vc_fb_table *t, int id);
/* Scalar fields (def when absent). */
uint8_t vc_fb_u8(vc_fb *fb, const vc_fb_table *t, int id, uint8_t def);
int8_t vc_fb_i8(vc_fb *fb, const vc_fb_table *t, int id, int8_t def);
int32_t vc_fb_i32(vc_fb *fb, const vc_fb_table *t, int id, int32_t def);
uint32_t vc_fb_u32(vc_fb *fb, const vc_fb_table *t, int id, uint32_t def);
float vc_fb_f32(vc_fb *fb, const vc_fb_table *t, int id, float def);
/* A sub-table (union values too: the type is the field before). Absent:
 * pos 0, and reads of its fields give their defaults. */
vc_fb_table vc_fb_table_field(vc_fb *fb, const vc_fb_table *t, int id);
/* A vector of elements of elem bytes (1, 4 or 8; 4 for tables and strings). */
vc_fb_vec vc_fb_vector(vc_fb *fb, const vc_fb_table *t, int id, uint32_t elem);
/* A string field into out (NUL-terminated, truncated to n-1). */
void vc_fb_string(vc_fb *fb, const vc_fb_table *t, int id, char *out, size_t n);

/* Vector elements (i < v->len is the caller's check; out of range is an error). */
vc_fb_table vc_fb_vec_table(vc_fb *fb, const vc_fb_vec *v, uint32_t i);
int32_t vc_fb_vec_i32(vc_fb *fb, const vc_fb_vec *v, uint32_t i);
int64_t vc_fb_vec_i64(vc_fb *fb, const vc_fb_vec *v, uint32_t i);
float vc_fb_vec_f32(vc_fb *fb, const vc_fb_vec *v, uint32_t i);
uint8_t vc_fb_vec_u8(vc_fb *fb, const vc_fb_vec *v, uint32_t i);
/* The bytes of a ubyte vector (checked to lie inside the buffer). */
const uint8_t *vc_fb_vec_bytes(vc_fb *fb, const vc_fb_vec *v);

#endif /* VC_FLATBUF_H */
