/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small FlatBuffers writer for tests: builds buffers back to front (as the
 * format wants children after their parents), so objects are made bottom-up
 * and referred to by the handle their constructor returns. Scalars are
 * little-endian and 4-byte aligned; it writes what compiler/import/flatbuf.c
 * reads, independently of it.
 */
#ifndef VC_TEST_FBWRITE_H
#define VC_TEST_FBWRITE_H

#include <stddef.h>
#include <stdint.h>

#define FBW_MAX_FIELDS 16

typedef struct fbw {
	uint8_t *buf;
	size_t cap, used; /* bytes in use at the end of buf */
	int oom;
	/* the table being built */
	int nf;
	struct {
		int id;
		uint32_t at; /* distance from the end of the field's bytes */
	} f[FBW_MAX_FIELDS];
} fbw;

typedef uint32_t fbw_ref; /* an object: its distance from the end of the buffer */

void fbw_init(fbw *b);
void fbw_free(fbw *b);

fbw_ref fbw_string(fbw *b, const char *s);
fbw_ref fbw_bytes(fbw *b, const void *data, size_t n);               /* [ubyte] */
fbw_ref fbw_i32s(fbw *b, const int32_t *v, size_t n);                 /* [int] */
fbw_ref fbw_f32s(fbw *b, const float *v, size_t n);                   /* [float] */
fbw_ref fbw_i64s(fbw *b, const int64_t *v, size_t n);                 /* [long] */
fbw_ref fbw_refs(fbw *b, const fbw_ref *v, size_t n);                 /* [table] */

/* A table: begin, add fields (any order), end. */
void fbw_begin(fbw *b);
void fbw_u8(fbw *b, int id, uint8_t v);
void fbw_i32(fbw *b, int id, int32_t v);
void fbw_f32(fbw *b, int id, float v);
void fbw_ref_field(fbw *b, int id, fbw_ref r);
fbw_ref fbw_end(fbw *b);

/* Finish with the root table and a 4-byte identifier; *len gets the size.
 * The bytes stay owned by b. NULL when out of memory. */
const uint8_t *fbw_finish(fbw *b, fbw_ref root, const char *ident, size_t *len);

#endif /* VC_TEST_FBWRITE_H */
