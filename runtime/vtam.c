/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .vtam container (include/vta/vtam.h): building it, and checking every
 * field of one before anything in it is used.
 *
 * CRC-32C is written out here (RFC 3720's polynomial, reflected, a 16-entry
 * constant table): libvta runs on the boards, and Debian's checksum
 * libraries would be one more package per cross architecture for a dozen
 * lines. tests/runtime/test_vtam.c checks it against RFC 3720's vectors.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <vta/bytes.h>
#include <vta/vta_config.h>
#include <vta/vtam.h>

static const uint8_t MAGIC[8] = {'V', 'T', 'A', 'M', '\r', '\n', 0x1A, '\n'};

uint32_t vta_crc32c(uint32_t crc, const void *data, size_t n)
{
	/* Four bits at a time: the CRC of each nibble value, 0x82F63B78
	 * reflected; fast enough for files read once. */
	static const uint32_t nib[16] = {
		0x00000000, 0x105EC76F, 0x20BD8EDE, 0x30E349B1, 0x417B1DBC, 0x5125DAD3,
		0x61C69362, 0x7198540D, 0x82F63B78, 0x92A8FC17, 0xA24BB5A6, 0xB21572C9,
		0xC38D26C4, 0xD3D3E1AB, 0xE330A81A, 0xF36E6F75,
	};
	const uint8_t *p = data;
	crc = ~crc;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ nib[crc & 15];
		crc = (crc >> 4) ^ nib[crc & 15];
	}
	return ~crc;
}

/* The checksum of a file with its checksum field read as zero. */
static uint32_t file_crc(const uint8_t *b, size_t len)
{
	static const uint8_t zero[4];
	uint32_t c = vta_crc32c(0, b, 32);
	c = vta_crc32c(c, zero, 4);
	return vta_crc32c(c, b + 36, len - 36);
}

static const char *kind_name(uint32_t k)
{
	return k == VTA_VTAM_CONFIG ? "CONFIG" : k == VTA_VTAM_GRAPH ? "GRAPH" : k == VTA_VTAM_META ? "META"
												  : "?";
}

int vta_vtam_parse(const uint8_t *b, size_t len, const char *what, vta_vtam_t *out,
		   vta_error_t *err)
{
	if (!what)
		what = "the model file";
	memset(out, 0, sizeof *out);
	if (len < 8 || memcmp(b, MAGIC, 8)) {
		if (len >= 8 && !memcmp(b, "VTAM", 4) && vta_rd_le32(b + 4) < 3)
			return vta_error_set(err, VTA_EUNSUPPORTED, -1,
					     "%s is a .vtam of the old format %" PRIu32 " (no checksum, no "
					     "section table); compile the model again", what, vta_rd_le32(b + 4));
		return vta_error_set(err, VTA_EINVAL, -1, "%s is not a .vtam file (bad magic at offset 0)",
				     what);
	}
	if (len < VTA_VTAM_HEADER_BYTES)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: truncated: %zu bytes, the header alone "
				     "has %d", what, len, VTA_VTAM_HEADER_BYTES);
	uint32_t version = vta_rd_le32(b + 8), hdr = vta_rd_le32(b + 12), id = vta_rd_le32(b + 24), n = vta_rd_le32(b + 28);
	uint64_t total = vta_rd_le64(b + 16);
	if (version != VTA_VTAM_VERSION)
		return vta_error_set(err, VTA_EUNSUPPORTED, -1, "%s: format version %" PRIu32 " (offset 8); "
				     "this library reads version %d", what, version, VTA_VTAM_VERSION);
	if (total != len)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: the header (offset 16) says %" PRIu64
				     " bytes, the file has %zu (truncated or extended)", what, total, len);
	uint32_t crc = vta_rd_le32(b + 32), want = file_crc(b, len);
	if (crc != want)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: checksum mismatch (CRC-32C 0x%08" PRIX32
				     " at offset 32, the contents give 0x%08" PRIX32 "): the file is "
				     "corrupted", what, crc, want);
	if (n < 1 || n > VTA_VTAM_MAX_SECTIONS)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: %" PRIu32 " sections (offset 28); 1 to %d "
				     "allowed", what, n, VTA_VTAM_MAX_SECTIONS);
	if (hdr != VTA_VTAM_HEADER_BYTES + 24 * n || hdr > len)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: header size %" PRIu32 " (offset 12) is not "
				     "%d + 24 x %" PRIu32 " sections inside the file", what, hdr,
				     VTA_VTAM_HEADER_BYTES, n);
	if (vta_rd_le32(b + 36) || vta_rd_le64(b + 40))
		return vta_error_set(err, VTA_EINVAL, -1, "%s: flags or reserved bytes at offset 36 are "
				     "not zero", what);
	out->version = version;
	out->config_id = id;
	out->n_sections = n;
	uint32_t seen = 0;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *s = b + VTA_VTAM_HEADER_BYTES + 24 * i;
		size_t at = VTA_VTAM_HEADER_BYTES + 24 * (size_t)i;
		uint32_t kind = vta_rd_le32(s);
		uint64_t off = vta_rd_le64(s + 8), size = vta_rd_le64(s + 16);
		if (kind < VTA_VTAM_CONFIG || kind > VTA_VTAM_META || vta_rd_le32(s + 4))
			return vta_error_set(err, VTA_EINVAL, -1, "%s: section %" PRIu32 " (offset %zu) has "
					     "kind %" PRIu32 " (1 CONFIG, 2 GRAPH, 3 META) or nonzero "
					     "reserved bytes", what, i, at, kind);
		if (seen & (1u << kind))
			return vta_error_set(err, VTA_EINVAL, -1, "%s: section %" PRIu32 " (offset %zu) is a "
					     "second %s section", what, i, at, kind_name(kind));
		seen |= 1u << kind;
		if (off < hdr || off % 8 || off > len || size > len - off)
			return vta_error_set(err, VTA_EINVAL, -1, "%s: section %" PRIu32 " (%s, entry at "
					     "offset %zu) claims bytes %" PRIu64 "+%" PRIu64 ", not 8-byte "
					     "aligned inside the file after the header (%zu bytes)",
					     what, i, kind_name(kind), at, off, size, len);
		for (uint32_t j = 0; j < i; j++) {
			const vta_vtam_section_t *o = &out->sections[j];
			if (off < o->offset + o->size && o->offset < off + size)
				return vta_error_set(err, VTA_EINVAL, -1, "%s: sections %" PRIu32 " and %" PRIu32
						     " (%s and %s) overlap", what, j, i,
						     kind_name(o->kind), kind_name(kind));
		}
		out->sections[i] = (vta_vtam_section_t){kind, off, size};
	}
	if (!(seen & (1u << VTA_VTAM_CONFIG)) || !(seen & (1u << VTA_VTAM_GRAPH)))
		return vta_error_set(err, VTA_EINVAL, -1, "%s has no %s section", what,
				     seen & (1u << VTA_VTAM_CONFIG) ? "GRAPH" : "CONFIG");
	size_t clen;
	const uint8_t *cfg = vta_vtam_section(out, b, VTA_VTAM_CONFIG, &clen);
	for (size_t i = 0; i < clen; i++)
		if (cfg[i] < 0x20 || cfg[i] > 0x7E)
			return vta_error_set(err, VTA_EINVAL, -1, "%s: the CONFIG section holds a byte 0x%02X "
					     "at offset %zu that is not printable", what, cfg[i],
					     (size_t)(cfg - b) + i);
	if (id != VTA_CONFIG_ID || clen != strlen(VTA_CONFIG_CANONICAL) ||
	    memcmp(cfg, VTA_CONFIG_CANONICAL, clen))
		return vta_error_set(err, VTA_EUNSUPPORTED, -1,
				     "%s was compiled for VTA configuration ID 0x%08" PRIX32 " (%.*s); "
				     "this library is for 0x%08X (%s, %s)", what, id,
				     clen > 300 ? 300 : (int)clen, (const char *)cfg,
				     (unsigned)VTA_CONFIG_ID, VTA_CONFIG_NAME, VTA_CONFIG_CANONICAL);
	return VTA_OK;
}

const uint8_t *vta_vtam_section(const vta_vtam_t *v, const uint8_t *bytes, uint32_t kind,
				size_t *size)
{
	for (uint32_t i = 0; i < v->n_sections; i++)
		if (v->sections[i].kind == kind) {
			*size = (size_t)v->sections[i].size;
			return bytes + v->sections[i].offset;
		}
	*size = 0;
	return NULL;
}

int vta_vtam_build(const uint32_t *kinds, const uint8_t *const *data, const size_t *sizes,
		   int n, uint8_t **out, size_t *len, vta_error_t *err)
{
	*out = NULL;
	if (n < 0 || n + 1 > VTA_VTAM_MAX_SECTIONS)
		return vta_error_set(err, VTA_EINVAL, -1, "vta_vtam_build: %d sections", n);
	uint32_t k[VTA_VTAM_MAX_SECTIONS];
	const uint8_t *d[VTA_VTAM_MAX_SECTIONS];
	size_t sz[VTA_VTAM_MAX_SECTIONS];
	k[0] = VTA_VTAM_CONFIG;
	d[0] = (const uint8_t *)VTA_CONFIG_CANONICAL;
	sz[0] = strlen(VTA_CONFIG_CANONICAL);
	for (int i = 0; i < n; i++) {
		if (kinds[i] <= VTA_VTAM_CONFIG || kinds[i] > VTA_VTAM_META)
			return kinds[i] == VTA_VTAM_CONFIG
				       ? vta_error_set(err, VTA_EINVAL, -1, "vta_vtam_build: section %d is CONFIG, "
						       "which vta_vtam_build writes itself (give GRAPH or META)", i)
				       : vta_error_set(err, VTA_EINVAL, -1, "vta_vtam_build: section %d has kind %" PRIu32
						       ", which is not VTA_VTAM_GRAPH or VTA_VTAM_META", i, kinds[i]);
		k[i + 1] = kinds[i], d[i + 1] = data[i], sz[i + 1] = sizes[i];
	}
	uint32_t ns = (uint32_t)n + 1;
	size_t hdr = VTA_VTAM_HEADER_BYTES + 24 * (size_t)ns, total = hdr;
	uint64_t off[VTA_VTAM_MAX_SECTIONS];
	for (uint32_t i = 0; i < ns; i++) {
		total = (total + 7) / 8 * 8;
		off[i] = total;
		if (sz[i] > SIZE_MAX / 2 - total)
			return vta_error_set(err, VTA_ENOMEM, -1, "vta_vtam_build: sections too large");
		total += sz[i];
	}
	uint8_t *b = calloc(1, total ? total : 1);
	if (!b)
		return vta_error_set(err, VTA_ENOMEM, -1, "vta_vtam_build: out of memory for %zu bytes",
				     total);
	memcpy(b, MAGIC, 8);
	vta_wr_le32(b + 8, VTA_VTAM_VERSION);
	vta_wr_le32(b + 12, (uint32_t)hdr);
	vta_wr_le64(b + 16, total);
	vta_wr_le32(b + 24, VTA_CONFIG_ID);
	vta_wr_le32(b + 28, ns);
	for (uint32_t i = 0; i < ns; i++) {
		uint8_t *s = b + VTA_VTAM_HEADER_BYTES + 24 * i;
		vta_wr_le32(s, k[i]);
		vta_wr_le64(s + 8, off[i]);
		vta_wr_le64(s + 16, sz[i]);
		if (sz[i])
			memcpy(b + off[i], d[i], sz[i]);
	}
	vta_wr_le32(b + 32, file_crc(b, total));
	*out = b;
	*len = total;
	return VTA_OK;
}
