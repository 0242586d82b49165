/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Xilinx .bit and .bin files, read completely before anything is loaded.
 *
 * A .bit file is a header of tagged fields followed by the raw configuration
 * data (the .bin): a 16-bit big-endian length and that many bytes of magic,
 * a 16-bit length (1), then fields 'a' design, 'b' part, 'c' date, 'd' time,
 * each a key byte, a 16-bit big-endian length and a NUL-terminated string,
 * and 'e': a key byte, a 32-bit big-endian length and the data, which ends
 * the file.
 *
 * The data is a sequence of big-endian 32-bit words (UG470 chapter 5 for
 * Zynq-7000, UG570 chapter 9 for Zynq UltraScale+): dummy words and the
 * bus-width pattern, the sync word AA995566, then configuration packets up
 * to the DESYNC command. A type-1 header is [31:29]=001, [28:27] opcode
 * (0 NOOP, 1 read, 2 write), [26:13] register, [10:0] word count; a type-2
 * header ([31:29]=010, [26:0] word count) continues the type-1 write before
 * it. The configuration logic keeps a CRC-32C (Castagnoli, reflected) over
 * the 5-bit register address and the 32-bit word of every register write,
 * except to a few registers; the CMD RCRC resets it, and a write to the CRC
 * register is compared with it and clears it. This reader replays that over
 * the whole stream and refuses anything the device would not take, or that
 * does not look like a complete configuration.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/bytes.h>

#include "flash.h"

/* How far into the data the sync word must appear. */
#define SYNC_WINDOW 1024

/* Configuration registers (UG470 table 5-23, UG570 table 9-19). */
enum {
	REG_CRC = 0x00,
	REG_FAR = 0x01,
	REG_FDRI = 0x02,
	REG_FDRO = 0x03,
	REG_CMD = 0x04,
	REG_STAT = 0x07,
	REG_IDCODE = 0x0C,
	REG_AXSS = 0x0D,
	REG_BOOTSTS = 0x16,
};

/* CMD register codes (UG470 table 5-25). */
enum { CMD_START = 0x05, CMD_RCRC = 0x07, CMD_DESYNC = 0x0D };

#define NOOP_WORD 0x20000000u

static uint32_t swap32(uint32_t w)
{
	return (w >> 24) | (w >> 8 & 0xFF00u) | (w << 8 & 0xFF0000u) | (w << 24);
}

/* Word i of the configuration data, in the order the device reads it. */
static uint32_t word_at(const vta_bitfile_t *bf, size_t i)
{
	uint32_t w = vta_rd_be32(bf->data + 4 * i);
	return bf->swapped ? swap32(w) : w;
}

uint32_t vta_bit_crc(uint32_t crc, unsigned reg, uint32_t word)
{
	/* 37 bits, data bit 0 first, then the 5 address bits. */
	uint64_t v = (uint64_t)(reg & 0x1F) << 32 | word;
	for (int i = 0; i < 37; i++, v >>= 1) {
		uint32_t bit = (uint32_t)(v ^ crc) & 1;
		crc >>= 1;
		if (bit)
			crc ^= 0x82F63B78u;
	}
	return crc;
}

/* Whether a write to reg enters the CRC (the registers the configuration
 * logic leaves out: CRC itself and 0x0F, 0x12, 0x14, 0x15, 0x16). */
static int crc_covers(unsigned reg)
{
	return reg != REG_CRC && reg != 0x0F && reg != 0x12 && reg != 0x14 && reg != 0x15 &&
	       reg != REG_BOOTSTS;
}

static const char *reg_name(unsigned reg)
{
	static const char *names[32] = {
		"CRC", "FAR", "FDRI", "FDRO", "CMD", "CTL0", "MASK", "STAT",
		"LOUT", "COR0", "MFWR", "CBC", "IDCODE", "AXSS", "COR1", "register 0x0F",
		"WBSTAR", "TIMER", "register 0x12", "RBCRC_SW", "register 0x14", "register 0x15",
		"BOOTSTS", "register 0x17", "CTL1", "register 0x19", "register 0x1A",
		"register 0x1B", "register 0x1C", "register 0x1D", "register 0x1E", "BSPI"};
	return names[reg & 0x1F];
}

/* Offset of the sync word in data, in the order given, or -1. */
static long find_sync(const uint8_t *data, size_t len, int swapped)
{
	size_t lim = len < SYNC_WINDOW ? len : SYNC_WINDOW;
	for (size_t i = 0; i + 4 <= lim; i += 4) {
		uint32_t w = vta_rd_be32(data + i);
		if ((swapped ? swap32(w) : w) == VTA_BIT_SYNC_WORD)
			return (long)i;
	}
	return -1;
}

/* Everything before the sync word (word s) is dummy words and one
 * bus-width pattern. */
static int check_preamble(const vta_bitfile_t *bf, size_t s, const char *what, vta_error_t *err)
{
	int bus = 0; /* 0: none yet, 1: 000000BB seen, 2: the pattern is complete */
	for (size_t i = 0; i < s; i++) {
		uint32_t w = word_at(bf, i);
		if (w == 0xFFFFFFFFu && bus != 1)
			continue;
		if (w == 0x000000BBu && bus == 0)
			bus = 1;
		else if (w == 0x11220044u && bus == 1)
			bus = 2;
		else
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: word %zu (0x%08X) before the sync word is neither a "
					     "dummy word nor the bus-width pattern 000000BB 11220044",
					     what, i, (unsigned)w);
	}
	if (bus != 2)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: no bus-width pattern 000000BB 11220044 before the sync word",
				     what);
	return VTA_OK;
}

/* Walking the packets after the sync word. */
typedef struct packets {
	vta_bitfile_t *bf;
	const char *what;
	vta_error_t *err;
	size_t n;             /* words in the file */
	uint32_t crc;
	int last_reg;         /* register of a type-1 write of 0 words, for a type 2 */
	size_t unchecked;     /* CRC-covered words since the last CRC check */
	int fdri_before_idcode;
} packets;

enum { PKT_WRITE, PKT_SKIP }; /* packet_header's answers besides an error (< 0) */

/* The header at word i: a write of *count words to *reg (PKT_WRITE), a NOOP
 * or the first half of an FDRI write (PKT_SKIP), or -1 with err set. */
static int packet_header(packets *p, size_t i, unsigned *reg, size_t *count)
{
	const char *what = p->what;
	vta_error_t *err = p->err;
	uint32_t h = word_at(p->bf, i);
	unsigned type = h >> 29, op = (h >> 27) & 3;
	if (p->last_reg == REG_FDRI && type != 2)
		return -vta_error_set(err, VTA_EINVAL, -1, "%s: word %zu: a type-1 FDRI write of 0 words is not "
				      "followed by a type-2 packet", what, i - 1);
	if (type == 1) {
		if (op == 0) {
			if (h != NOOP_WORD)
				return -vta_error_set(err, VTA_EINVAL, -1, "%s: word %zu: NOOP 0x%08X with fields set",
						      what, i, (unsigned)h);
			p->last_reg = -1;
			return PKT_SKIP;
		}
		*reg = (h >> 13) & 0x3FFF;
		*count = h & 0x7FF;
		if (*reg > 0x1F || (h & 0x1800))
			return -vta_error_set(err, VTA_EINVAL, -1, "%s: word %zu: packet 0x%08X has reserved bits set",
					      what, i, (unsigned)h);
	} else if (type == 2) {
		if (p->last_reg != REG_FDRI)
			return -vta_error_set(err, VTA_EINVAL, -1, "%s: word %zu: a type-2 packet that does not follow "
					      "a type-1 FDRI write of 0 words", what, i);
		*reg = REG_FDRI;
		*count = h & 0x07FFFFFF;
	} else {
		return -vta_error_set(err, VTA_EINVAL, -1, "%s: word %zu (0x%08X) is not a configuration packet "
				      "(type %u)", what, i, (unsigned)h, type);
	}
	p->last_reg = -1;
	if (op != 2)
		return -vta_error_set(err, VTA_EINVAL, -1, "%s: word %zu: a %s packet of %s; a configuration "
				      "bitstream only writes", what, i, op == 1 ? "read" : "reserved-opcode",
				      reg_name(*reg));
	if (*reg == REG_FDRO || *reg == REG_STAT || *reg == REG_BOOTSTS)
		return -vta_error_set(err, VTA_EINVAL, -1, "%s: word %zu: a write to the read-only %s register", what,
				      i, reg_name(*reg));
	if (*count > p->n - i - 1)
		return -vta_error_set(err, VTA_EINVAL, -1, "%s: word %zu: a write of %zu words to %s, but only %zu "
				      "words follow in the file", what, i, *count, reg_name(*reg), p->n - i - 1);
	if (*count == 0) {
		if (type == 1 && *reg == REG_FDRI) {
			p->last_reg = REG_FDRI;
			return PKT_SKIP;
		}
		return -vta_error_set(err, VTA_EINVAL, -1, "%s: word %zu: a write of 0 words to %s", what, i,
				      reg_name(*reg));
	}
	if ((*reg == REG_CMD || *reg == REG_CRC || *reg == REG_IDCODE || *reg == REG_AXSS) && *count != 1)
		return -vta_error_set(err, VTA_EINVAL, -1, "%s: word %zu: a write of %zu words to %s, which takes one",
				      what, i, *count, reg_name(*reg));
	return PKT_WRITE;
}

/* Words [first, last] of a write enter the CRC. */
static void crc_add(packets *p, unsigned reg, size_t first, size_t last)
{
	for (size_t k = first; k <= last; k++) {
		p->crc = vta_bit_crc(p->crc, reg, word_at(p->bf, k));
		p->unchecked++;
	}
}

enum { WR_NEXT, WR_DESYNC }; /* packet_write's answers besides an error (< 0) */

/* The write of words [first, last] to reg: frame data, a CRC check, a
 * command, the part's IDCODE or AXSS. */
static int packet_write(packets *p, unsigned reg, size_t first, size_t last)
{
	vta_bitstream_t *st = &p->bf->stream;
	const char *what = p->what;
	if (reg == REG_FDRI) {
		size_t count = last - first + 1;
		if (!st->has_idcode)
			p->fdri_before_idcode = 1;
		st->fdri_words += count;
		st->fdri_writes++;
		if (count > st->fdri_max)
			st->fdri_max = count;
		if (st->fdri_min == 0 || count < st->fdri_min)
			st->fdri_min = count;
		crc_add(p, REG_FDRI, first, last);
		return WR_NEXT;
	}
	uint32_t v = word_at(p->bf, first);
	if (reg == REG_CRC) {
		if (v != p->crc)
			return -vta_error_set(p->err, VTA_EINVAL, -1, "%s: word %zu: CRC check fails: the stream says "
					      "0x%08X, its data gives 0x%08X", what, first, (unsigned)v,
					      (unsigned)p->crc);
		st->crc_checks++;
		p->crc = 0;
		p->unchecked = 0;
		return WR_NEXT;
	}
	if (reg == REG_CMD) {
		if (v > 0x1F)
			return -vta_error_set(p->err, VTA_EINVAL, -1, "%s: word %zu: CMD 0x%08X is not a command",
					      what, first, (unsigned)v);
		if (v == CMD_RCRC) {
			p->crc = 0;
			p->unchecked = 0;
			return WR_NEXT;
		}
		if (v == CMD_DESYNC) {
			st->desync_word = last - 1;
			return WR_DESYNC;
		}
		if (v == CMD_START)
			st->has_start = 1;
	} else if (reg == REG_IDCODE) {
		if (st->has_idcode && v != st->idcode)
			return -vta_error_set(p->err, VTA_EINVAL, -1, "%s: word %zu: IDCODE 0x%08X written after 0x%08X",
					      what, first, (unsigned)v, (unsigned)st->idcode);
		st->idcode = v;
		st->has_idcode = 1;
	} else if (reg == REG_AXSS) {
		st->axss = v;
		st->has_axss = 1;
	}
	if (crc_covers(reg))
		crc_add(p, reg, first, last);
	return WR_NEXT;
}

/* After the DESYNC at word i: only NOOPs, and what a device needs was
 * there (its IDCODE before the frames, frames, START, the last CRC). */
static int check_end(const packets *p, size_t i)
{
	const vta_bitstream_t *st = &p->bf->stream;
	const char *what = p->what;
	vta_error_t *err = p->err;
	for (size_t k = i + 1; k < p->n; k++)
		if (word_at(p->bf, k) != NOOP_WORD)
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: word %zu (0x%08X) after the DESYNC command is not a "
					     "NOOP", what, k, (unsigned)word_at(p->bf, k));
	if (!st->has_idcode || p->fdri_before_idcode)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: no IDCODE write before the frame data: the device would "
				     "not check its part", what);
	if (!st->fdri_words)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: no frame data (FDRI writes)", what);
	if (!st->has_start)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: no START command: the device would never finish "
				     "configuration", what);
	if (st->crc_checks && p->unchecked)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: the stream has words written after the last CRC check (%zu "
				     "words)", what, p->unchecked);
	return VTA_OK;
}

/*
 * The packet stream: the preamble (check_preamble), then well-formed write
 * packets whose CRC checks all hold, up to a DESYNC after which only NOOPs
 * follow. Fills bf->stream.
 */
static int parse_stream(vta_bitfile_t *bf, const char *what, vta_error_t *err)
{
	vta_bitstream_t *st = &bf->stream;
	memset(st, 0, sizeof *st);
	size_t n = bf->len / 4;
	long sync = find_sync(bf->data, bf->len, bf->swapped);
	if (sync < 0)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: no sync word AA995566 in the first %d bytes of the "
				     "configuration data: not a Xilinx bitstream", what, SYNC_WINDOW);
	size_t s = (size_t)sync / 4;
	int rc = check_preamble(bf, s, what, err);
	if (rc)
		return rc;
	st->sync_word = s;
	packets p = {bf, what, err, n, 0, -1, 0, 0};
	size_t i = s + 1;
	for (; i < n; i++) {
		unsigned reg = 0;
		size_t count = 0;
		int h = packet_header(&p, i, &reg, &count);
		if (h < 0)
			return -h;
		if (h == PKT_SKIP)
			continue;
		const size_t first = i + 1;
		i += count; /* the loop's i++ steps over the last data word */
		int w = packet_write(&p, reg, first, i);
		if (w < 0)
			return -w;
		if (w == WR_DESYNC)
			break;
	}
	if (i >= n)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: no DESYNC command: the configuration stream is truncated "
				     "(%zu words)", what, n);
	return check_end(&p, i);
}

/* Copy a NUL-terminated header string field of len bytes at p into dst. */
static int copy_field(char *dst, size_t cap, const uint8_t *p, size_t len, char key,
		      const char *what, vta_error_t *err)
{
	if (len == 0 || p[len - 1] != 0)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: .bit header field '%c' is not NUL-terminated", what, key);
	if (len > cap)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: .bit header field '%c' is %zu bytes, longer than %zu",
				     what, key, len, cap);
	for (size_t i = 0; i + 1 < len; i++)
		if (p[i] < 0x20 || p[i] > 0x7E)
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: .bit header field '%c' has the byte 0x%02X, not "
					     "printable text", what, key, p[i]);
	memcpy(dst, p, len);
	return VTA_OK;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* s has the shape of pattern: '9' a digit, anything else itself. */
static int has_shape(const char *s, const char *pattern)
{
	for (; *pattern; s++, pattern++)
		if (*pattern == '9' ? !is_digit(*s) : *s != *pattern)
			return 0;
	return *s == 0;
}

/*
 * The design field: "name;KEY=VALUE;..." as Vivado writes it, with exactly
 * one "UserID=0X" and eight upper-case hex digits (BITSTREAM.CONFIG.USERID;
 * 0xFFFFFFFF is Vivado's default, no ID).
 */
static int parse_design(vta_bitfile_t *bf, const char *what, vta_error_t *err)
{
	int seen = 0;
	for (const char *p = strchr(bf->design, ';'); p; p = strchr(p + 1, ';')) {
		if (strncmp(p + 1, "UserID=", 7))
			continue;
		const char *h = p + 8;
		uint32_t v = 0;
		int ok = h[0] == '0' && h[1] == 'X'; /* Vivado writes "0X" and capitals */
		for (int k = 0; ok && k < 8; k++) {
			char c = h[2 + k];
			int d = is_digit(c) ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			ok = d >= 0;
			v = v << 4 | (uint32_t)(d < 0 ? 0 : d);
		}
		if (!ok || (h[10] != ';' && h[10] != 0) || seen++)
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: .bit header field 'a' has a malformed UserID: \"%s\"",
					     what, bf->design);
		if (v != 0xFFFFFFFFu) {
			bf->user_id = v;
			bf->has_user_id = 1;
		}
	}
	if (!seen)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: .bit header field 'a' has no UserID: \"%s\"", what, bf->design);
	return VTA_OK;
}

static int parse_raw(const uint8_t *buf, size_t n, const char *what, vta_bitfile_t *bf,
		     vta_error_t *err)
{
	bf->data = buf;
	bf->len = n;
	/* The sync word comes right after the preamble, so the order in which
	 * it appears first is the file's (a later word may read as a sync word
	 * in the other order). */
	long plain = find_sync(buf, n, 0), swapped = find_sync(buf, n, 1);
	if (plain >= 0 && (swapped < 0 || plain <= swapped))
		bf->swapped = 0;
	else if (swapped >= 0)
		bf->swapped = 1;
	else
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: neither a .bit file (no header) nor a .bin (no sync word "
				     "AA995566 in the first %d bytes)", what, SYNC_WINDOW);
	return VTA_OK;
}

static int parse_header(const uint8_t *buf, size_t n, const char *what, vta_bitfile_t *bf,
			vta_error_t *err)
{
	static const uint8_t magic[] = {0x00, 0x09, 0x0F, 0xF0, 0x0F, 0xF0, 0x0F, 0xF0, 0x0F, 0xF0, 0x00};
	bf->has_header = 1;
	size_t pos = sizeof magic;
	if (pos + 2 > n || (buf[pos] << 8 | buf[pos + 1]) != 1)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: .bit header truncated or malformed after the magic bytes", what);
	pos += 2;
	static const size_t caps[4] = {sizeof bf->design, sizeof bf->part, sizeof bf->date,
				       sizeof bf->time};
	char *dst[4] = {bf->design, bf->part, bf->date, bf->time};
	static const char *names[4] = {"design", "part", "date", "time"};
	for (int k = 0; k < 4; k++) {
		char want = (char)('a' + k);
		if (pos >= n)
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: .bit header ends at byte %zu before the data field 'e'",
					     what, pos);
		char key = (char)buf[pos++];
		if (key != want) {
			if (key == 'e' || (key >= 'a' && key <= 'd'))
				return vta_error_set(err, VTA_EINVAL, -1,
						     "%s: .bit header has no %s field ('%c'): field "
						     "'%c' at byte %zu", what, names[k], want, key, pos - 1);
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: unknown .bit header field 0x%02X at byte %zu", what,
					     (unsigned char)key, pos - 1);
		}
		if (pos + 2 > n)
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: .bit header field '%c' truncated", what, key);
		size_t len = (size_t)buf[pos] << 8 | buf[pos + 1];
		pos += 2;
		if (len > n - pos)
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: .bit header field '%c' of %zu bytes runs past the end "
					     "of the file", what, key, len);
		int rc = copy_field(dst[k], caps[k], buf + pos, len, key, what, err);
		if (rc)
			return rc;
		pos += len;
	}
	if (pos >= n || buf[pos] != 'e')
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: .bit header ends at byte %zu before the data field 'e'", what,
				     pos);
	pos++;
	if (pos + 4 > n)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: .bit data length field truncated", what);
	size_t len = vta_rd_be32(buf + pos);
	pos += 4;
	if (len > n - pos)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: truncated: the header announces %zu bytes of "
				     "configuration data but only %zu follow", what, len, n - pos);
	if (len < n - pos)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: %zu bytes follow the %zu bytes of configuration data the "
				     "header announces", what, n - pos - len, len);
	bf->data = buf + pos;
	bf->len = len;
	if (!bf->part[0])
		return vta_error_set(err, VTA_EINVAL, -1, "%s: .bit header has an empty part name", what);
	if (!has_shape(bf->date, "9999/99/99") || !has_shape(bf->time, "99:99:99"))
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: .bit header date \"%s\" or time \"%s\" is not YYYY/MM/DD "
				     "and HH:MM:SS", what, bf->date, bf->time);
	return parse_design(bf, what, err);
}

int vta_bit_parse(const uint8_t *buf, size_t n, const char *what, vta_bitfile_t *bf,
		  vta_error_t *err)
{
	static const uint8_t magic[] = {0x00, 0x09, 0x0F, 0xF0, 0x0F, 0xF0, 0x0F, 0xF0, 0x0F, 0xF0, 0x00};
	memset(bf, 0, sizeof *bf);
	int rc = n >= sizeof magic && !memcmp(buf, magic, sizeof magic)
			 ? parse_header(buf, n, what, bf, err)
			 : parse_raw(buf, n, what, bf, err);
	if (rc)
		return rc;
	if (bf->len == 0)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: no configuration data", what);
	if (bf->len % 4)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: configuration data is %zu bytes, not a whole number of "
				     "32-bit words (truncated file?)", what, bf->len);
	return parse_stream(bf, what, err);
}

/* Frame length in words (UG470: 101 for 7-series; UG570: 93 for UltraScale+). */
static size_t frame_words(const vta_board_t *b)
{
	return strcmp(b->family, "zynq-7000") ? 93 : 101;
}

int vta_bit_check(const vta_bitfile_t *bf, const vta_board_t *board, uint32_t want_config_id,
		  int force, const char *what, vta_error_t *err)
{
	const vta_bitstream_t *st = &bf->stream;
	if ((st->idcode & 0x0FFFFFFFu) != (board->idcode & 0x0FFFFFFFu))
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: wrong part: the bitstream writes IDCODE 0x%08X, the %s's %s "
				     "has 0x%08X", what, (unsigned)st->idcode, board->name, board->part,
				     (unsigned)board->idcode);
	size_t fw = frame_words(board);
	if (st->fdri_min % fw || st->fdri_max % fw || st->fdri_words % fw)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: frame data of %zu words (writes of %zu to %zu) is not whole "
				     "%zu-word frames of a %s", what, st->fdri_words, st->fdri_min,
				     st->fdri_max, fw, board->family);
	if (bf->has_header && !force && !vta_bit_part_matches(bf->part, board->part))
		return vta_error_set(err, VTA_EINVAL, -1,
				     "wrong part: the bitstream is for %s, but the %s has a %s "
				     "(--force to load it anyway)", bf->part, board->name, board->part);
	/* The configuration ID: the header's UserID and the stream's USR_ACCESS
	 * (AXSS); where both are given they agree, and one must be. */
	int has_axss = st->has_axss && st->axss != 0xFFFFFFFFu;
	if (bf->has_user_id && has_axss && bf->user_id != st->axss)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: the header's UserID 0x%08X differs from the USR_ACCESS "
				     "0x%08X in the stream", what, (unsigned)bf->user_id,
				     (unsigned)st->axss);
	if (!want_config_id || force)
		return VTA_OK;
	if (!bf->has_user_id && !has_axss)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s carries no VTA configuration ID (UserID or USR_ACCESS): it was "
				     "not built by make bitstream (--force to load it anyway)", what);
	uint32_t id = bf->has_user_id ? bf->user_id : st->axss;
	if (id != want_config_id)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "the bitstream was built for VTA configuration 0x%08X, but this "
				     "vta was built for 0x%08X: rebuild one of them (--force to load "
				     "it anyway)", (unsigned)id, (unsigned)want_config_id);
	return VTA_OK;
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

/* Without a leading "xc" and without dashes (part names are lower case in
 * both Vivado and the .bit header, so case is not folded). */
static void normalize_part(const char *in, char *out, size_t cap)
{
	size_t k = 0;
	if (in[0] == 'x' && in[1] == 'c')
		in += 2;
	for (; *in && k + 1 < cap; in++)
		if (*in != '-')
			out[k++] = *in;
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
