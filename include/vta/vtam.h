/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .vtam container: what every compiled model file is wrapped in, so
 * that a file that is truncated, corrupted or built for another
 * configuration is refused before any of it is used.
 *
 * Layout (integers little-endian; docs/runtime.md, "Model files"):
 *
 *   0   magic "VTAM\r\n\x1a\n" (8 bytes: also catches text-mode mangling)
 *   8   u32 format version (VTA_VTAM_VERSION)
 *   12  u32 header bytes = 48 + 24 * sections
 *   16  u64 file bytes
 *   24  u32 configuration ID (VTA_CONFIG_ID of the configuration compiled for)
 *   28  u32 sections (1 .. VTA_VTAM_MAX_SECTIONS)
 *   32  u32 CRC-32C (Castagnoli, RFC 3720) of the whole file with these four
 *       bytes read as zero
 *   36  u32 flags (0), 40 u64 reserved (0)
 *   48  per section: u32 kind, u32 reserved (0), u64 offset, u64 bytes
 *
 * Sections start 8-byte aligned after the header, do not overlap, lie
 * inside the file, and each kind appears at most once; CONFIG (the
 * configuration's canonical string, as configgen writes it) and GRAPH are
 * required.
 */
#ifndef VTA_VTAM_H
#define VTA_VTAM_H

#include <stddef.h>
#include <stdint.h>

#include <vta/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define VTA_VTAM_VERSION 3
#define VTA_VTAM_MAX_SECTIONS 16
#define VTA_VTAM_HEADER_BYTES 48

enum {
	VTA_VTAM_CONFIG = 1, /* the canonical configuration string */
	VTA_VTAM_GRAPH = 2,  /* the compiled graph, kernels and device image */
	VTA_VTAM_META = 3,   /* optional "key=value" lines (preprocessing, labels) */
};

typedef struct vta_vtam_section {
	uint32_t kind;
	uint64_t offset, size;
} vta_vtam_section_t;

typedef struct vta_vtam {
	uint32_t version, config_id, n_sections;
	vta_vtam_section_t sections[VTA_VTAM_MAX_SECTIONS];
} vta_vtam_t;

/*
 * Check a whole file of len bytes: magic, version, sizes, checksum, every
 * section's bounds, then that it was compiled for this library's
 * configuration (refused naming both). 0, or a VTA_E* code with err naming
 * the field or offset that was wrong; what names the file in messages.
 */
int vta_vtam_parse(const uint8_t *bytes, size_t len, const char *what, vta_vtam_t *out,
		   vta_error_t *err);

/* Section `kind` of a parsed file, or NULL (*size 0) if it has none. */
const uint8_t *vta_vtam_section(const vta_vtam_t *v, const uint8_t *bytes, uint32_t kind,
				size_t *size);

/*
 * Build a file for this library's configuration from n sections (kinds,
 * contents, sizes; the CONFIG section is added). *out is malloc'd. 0 or a
 * VTA_E* code.
 */
int vta_vtam_build(const uint32_t *kinds, const uint8_t *const *data, const size_t *sizes,
		   int n, uint8_t **out, size_t *len, vta_error_t *err);

/* CRC-32C (Castagnoli) of n bytes, continuing from crc (0 to start). */
uint32_t vta_crc32c(uint32_t crc, const void *data, size_t n);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* VTA_VTAM_H */
