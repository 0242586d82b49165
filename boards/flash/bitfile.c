/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Xilinx .bit and .bin files.
 *
 * A .bit file is a header of tagged fields followed by the raw configuration
 * data (the .bin): a 16-bit big-endian length and that many bytes of magic,
 * a 16-bit length (1), then fields 'a' design, 'b' part, 'c' date, 'd' time,
 * each a key byte, a 16-bit big-endian length and a NUL-terminated string,
 * and 'e': a key byte, a 32-bit big-endian length and the data. The data is
 * a sequence of big-endian 32-bit words: dummy words, a bus-width pattern,
 * the sync word AA995566, then configuration packets.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash.h"

/* How far into the data the sync word must appear. */
#define SYNC_WINDOW 1024

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Offset of the sync word in data, in the order given, or -1. */
static long find_sync(const uint8_t *data, size_t len, int swapped)
{
	size_t lim = len < SYNC_WINDOW ? len : SYNC_WINDOW;
	for (size_t i = 0; i + 4 <= lim; i += 4) {
		uint32_t w = be32(data + i);
		if (swapped)
			w = (w >> 24) | (w >> 8 & 0xFF00u) | (w << 8 & 0xFF0000u) | (w << 24);
		if (w == VTA_BIT_SYNC_WORD)
			return (long)i;
	}
	return -1;
}

/* Copy a header string field of len bytes at p into dst. */
static int copy_field(char *dst, size_t cap, const uint8_t *p, size_t len, char key,
		      const char *what, vta_error_t *err)
{
	if (len == 0) {
		dst[0] = 0;
		return VTA_OK;
	}
	if (p[len - 1] != 0)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: .bit header field '%c' is not NUL-terminated", what, key);
	if (len > cap)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: .bit header field '%c' is %zu bytes, longer than %zu",
				     what, key, len, cap);
	memcpy(dst, p, len);
	return VTA_OK;
}

/* UserID=0X........ inside the design field (Vivado's BITSTREAM.CONFIG.USERID). */
static void parse_user_id(vta_bitfile_t *bf)
{
	const char *s = strstr(bf->design, "UserID=");
	if (!s)
		return;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s + 7, &end, 16);
	if (errno || end == s + 7 || v > 0xFFFFFFFFul)
		return;
	/* 0xFFFFFFFF is Vivado's default: no ID was set. */
	if (v != 0xFFFFFFFFul) {
		bf->user_id = (uint32_t)v;
		bf->has_user_id = 1;
	}
}

static int check_data(vta_bitfile_t *bf, const char *what, vta_error_t *err)
{
	if (bf->len == 0)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: no configuration data", what);
	if (bf->len % 4)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: configuration data is %zu bytes, not a whole number of "
				     "32-bit words (truncated file?)", what, bf->len);
	if (find_sync(bf->data, bf->len, bf->swapped) < 0)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: no sync word AA995566 in the first %d bytes of the "
				     "configuration data: not a Xilinx bitstream", what, SYNC_WINDOW);
	return VTA_OK;
}

static int parse_raw(const uint8_t *buf, size_t n, const char *what, vta_bitfile_t *bf,
		     vta_error_t *err)
{
	bf->data = buf;
	bf->len = n;
	if (find_sync(buf, n, 0) >= 0)
		bf->swapped = 0;
	else if (find_sync(buf, n, 1) >= 0)
		bf->swapped = 1;
	else
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: neither a .bit file (no header) nor a .bin (no sync word "
				     "AA995566 in the first %d bytes)", what, SYNC_WINDOW);
	return check_data(bf, what, err);
}

int vta_bit_parse(const uint8_t *buf, size_t n, const char *what, vta_bitfile_t *bf,
		  vta_error_t *err)
{
	static const uint8_t magic[] = {0x00, 0x09, 0x0F, 0xF0, 0x0F, 0xF0, 0x0F, 0xF0, 0x0F, 0xF0, 0x00};
	memset(bf, 0, sizeof *bf);
	if (n < sizeof magic || memcmp(buf, magic, sizeof magic))
		return parse_raw(buf, n, what, bf, err);

	bf->has_header = 1;
	size_t pos = sizeof magic;
	if (pos + 2 > n || (buf[pos] << 8 | buf[pos + 1]) != 1)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: .bit header truncated or malformed after the magic bytes", what);
	pos += 2;
	int seen[4] = {0, 0, 0, 0};
	for (;;) {
		if (pos >= n)
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: .bit header ends at byte %zu before the data field 'e'",
					     what, pos);
		char key = (char)buf[pos++];
		if (key == 'e') {
			if (pos + 4 > n)
				return vta_error_set(err, VTA_EINVAL, -1,
						     "%s: .bit data length field truncated", what);
			size_t len = be32(buf + pos);
			pos += 4;
			if (len > n - pos)
				return vta_error_set(err, VTA_EINVAL, -1,
						     "%s: truncated: the header announces %zu bytes of "
						     "configuration data but only %zu follow", what, len, n - pos);
			bf->data = buf + pos;
			bf->len = len;
			break;
		}
		if (key < 'a' || key > 'd')
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: unknown .bit header field 0x%02X at byte %zu", what,
					     (unsigned char)key, pos - 1);
		if (pos + 2 > n)
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: .bit header field '%c' truncated", what, key);
		size_t len = (size_t)buf[pos] << 8 | buf[pos + 1];
		pos += 2;
		if (len > n - pos)
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: .bit header field '%c' of %zu bytes runs past the end "
					     "of the file", what, key, len);
		static const size_t caps[4] = {sizeof bf->design, sizeof bf->part, sizeof bf->date,
					       sizeof bf->time};
		char *dst[4] = {bf->design, bf->part, bf->date, bf->time};
		int k = key - 'a';
		int rc = copy_field(dst[k], caps[k], buf + pos, len, key, what, err);
		if (rc)
			return rc;
		seen[k] = 1;
		pos += len;
	}
	if (!seen[0] || !seen[1])
		return vta_error_set(err, VTA_EINVAL, -1, "%s: .bit header has no %s field ('%c')",
				     what, seen[0] ? "part" : "design name", seen[0] ? 'b' : 'a');
	if (!bf->part[0])
		return vta_error_set(err, VTA_EINVAL, -1, "%s: .bit header has an empty part name", what);
	parse_user_id(bf);
	return check_data(bf, what, err);
}

int vta_bit_to_bin(const vta_bitfile_t *bf, uint8_t **out, size_t *out_len, vta_error_t *err)
{
	*out = NULL;
	*out_len = 0;
	if (bf->len % 4)
		return vta_error_set(err, VTA_EINVAL, -1, "bitstream of %zu bytes is not whole words",
				     bf->len);
	uint8_t *b = malloc(bf->len ? bf->len : 1);
	if (!b)
		return vta_error_set(err, VTA_ENOMEM, -1, "out of memory for a %zu-byte bitstream",
				     bf->len);
	if (bf->swapped) {
		memcpy(b, bf->data, bf->len);
	} else {
		for (size_t i = 0; i < bf->len; i += 4) {
			b[i] = bf->data[i + 3];
			b[i + 1] = bf->data[i + 2];
			b[i + 2] = bf->data[i + 1];
			b[i + 3] = bf->data[i];
		}
	}
	*out = b;
	*out_len = bf->len;
	return VTA_OK;
}

/* Lowercase, without a leading "xc" and without dashes. */
static void normalize_part(const char *in, char *out, size_t cap)
{
	size_t k = 0;
	if ((in[0] == 'x' || in[0] == 'X') && (in[1] == 'c' || in[1] == 'C'))
		in += 2;
	for (; *in && k + 1 < cap; in++) {
		char c = *in;
		if (c == '-')
			continue;
		out[k++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	out[k] = 0;
}

int vta_bit_part_matches(const char *bit_part, const char *vivado_part)
{
	char a[64], b[64];
	normalize_part(bit_part, a, sizeof a);
	normalize_part(vivado_part, b, sizeof b);
	size_t la = strlen(a), lb = strlen(b);
	/* At least the device name ("7z020", "zu3eg"). */
	if (la < 5 || lb < 5)
		return 0;
	return la <= lb ? !strncmp(a, b, la) : !strncmp(a, b, lb);
}
