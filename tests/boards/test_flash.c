/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `vta flash` without a board: .bit parsing and .bin conversion on
 * constructed files (good and malformed), and the fpga_manager / xdevcfg
 * paths against a fake sysfs tree in a temporary directory.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vta/vta_config.h>

#include "bitgen.h"
#include "flash.h"
#include "test.h"

#define DESIGN "vta_wrapper;UserID=0X%08X;Version=2022.2"

static uint8_t *payload;
static size_t plen;

/* The PYNQ stream (xc7z020, two 101-word frames, no USR_ACCESS). */
static void setup_payload(void)
{
	if (!payload) {
		bitgen_t g = {BITGEN_XC7Z020, 0, 2 * BITGEN_FRAME_7SERIES, 0, 0};
		payload = bitgen_stream(&g, &plen);
	}
}

/* A stream for board b: its IDCODE, two frames of its family, usr_access. */
static uint8_t *stream_for(const vta_board_t *b, uint32_t usr_access, size_t *len)
{
	int us = strcmp(b->family, "zynq-7000") != 0;
	bitgen_t g = {b->idcode, usr_access, 2 * (us ? BITGEN_FRAME_USPLUS : BITGEN_FRAME_7SERIES), 0, 0};
	return bitgen_stream(&g, len);
}

/* A .bit around a stream, with part and UserID user_id in the header. */
static uint8_t *bit_around(const uint8_t *p, size_t n, const char *part, uint32_t user_id, size_t *len)
{
	char design[128];
	snprintf(design, sizeof design, DESIGN, (unsigned)user_id);
	return bitgen_bit(design, part, "2026/11/29", "12:34:56", p, n, len);
}

/* A .bit of the PYNQ stream for part with UserID user_id. */
static uint8_t *make_bit(const char *part, uint32_t user_id, size_t *len)
{
	setup_payload();
	return bit_around(payload, plen, part, user_id, len);
}

/* ---- .bit parsing -------------------------------------------------------- */

/* Word index of the first occurrence of the pair (a, b) in the stream, or -1. */
static long find_pair(const uint8_t *p, size_t n, uint32_t a, uint32_t b)
{
	for (size_t i = 0; i + 8 <= n; i += 4) {
		uint32_t x = (uint32_t)p[i] << 24 | (uint32_t)p[i + 1] << 16 | (uint32_t)p[i + 2] << 8 | p[i + 3];
		uint32_t y = (uint32_t)p[i + 4] << 24 | (uint32_t)p[i + 5] << 16 | (uint32_t)p[i + 6] << 8 | p[i + 7];
		if (x == a && y == b)
			return (long)(i / 4);
	}
	return -1;
}

static void bit_fields(void)
{
	size_t n;
	uint8_t *b = make_bit("7z020clg400", 0x12345678u, &n);
	vta_bitfile_t bf;
	vta_error_t err = {0};
	CHECK_EQ(vta_bit_parse(b, n, "t.bit", &bf, &err), VTA_OK);
	CHECK_EQ(bf.has_header, 1);
	CHECK(!strcmp(bf.design, "vta_wrapper;UserID=0X12345678;Version=2022.2"));
	CHECK(!strcmp(bf.part, "7z020clg400"));
	CHECK(!strcmp(bf.date, "2026/11/29"));
	CHECK(!strcmp(bf.time, "12:34:56"));
	CHECK_EQ(bf.len, plen);
	CHECK(!memcmp(bf.data, payload, plen));
	CHECK_EQ(bf.has_user_id, 1);
	CHECK_U64(bf.user_id, 0x12345678u);
	CHECK_EQ(bf.swapped, 0);
	free(b);
}

/* What the stream says, against the generator's layout (bitgen.h). */
static void bit_stream_summary(void)
{
	const vta_board_t *u = vta_board_find("ultra96v2");
	size_t n;
	uint8_t *p = stream_for(u, 0xCAFE0001u, &n);
	vta_bitfile_t bf;
	vta_error_t err = {0};
	CHECK_EQ(vta_bit_parse(p, n, "u.bin", &bf, &err), VTA_OK);
	const vta_bitstream_t *st = &bf.stream;
	CHECK_EQ(st->sync_word, 12);
	CHECK_EQ(st->desync_word, find_pair(p, n, 0x30008001u, 0x0000000Du));
	CHECK_U64(st->idcode, BITGEN_XCZU3EG);
	CHECK_EQ(st->has_axss, 1);
	CHECK_U64(st->axss, 0xCAFE0001u);
	CHECK_EQ(st->fdri_words, 2 * BITGEN_FRAME_USPLUS);
	CHECK_EQ(st->fdri_writes, 1);
	CHECK_EQ(st->crc_checks, 2);
	CHECK_EQ(st->has_start, 1);
	CHECK_EQ(vta_bit_check(&bf, u, 0xCAFE0001u, 0, "u.bin", &err), VTA_OK);
	free(p);
}

/* The device's CRC step: published vectors of the 37-bit CRC-32C (UG470's
 * algorithm as Project X-Ray tests it) and agreement with bitgen.h's
 * byte-wise implementation. */
static void bit_crc(void)
{
	CHECK_U64(vta_bit_crc(0, 0, 0), 0);
	CHECK_U64(vta_bit_crc(0, 1u << 4, 0), 0x82F63B78u);
	CHECK_U64(vta_bit_crc(0, 0x1F, 0xFFFFFFFFu), 0xBF86D4DFu);
	CHECK_U64(vta_bit_crc(0xFFFFFFFFu, 0, 0), 0xC631E365u);
	uint64_t r = 9;
	for (int i = 0; i < 1000; i++) {
		uint32_t c = (uint32_t)test_rand(&r), w = (uint32_t)test_rand(&r);
		unsigned reg = (unsigned)(test_rand(&r) & 0x1F);
		if (vta_bit_crc(c, reg, w) != bitgen_crc(c, reg, w)) {
			test_fail_(__FILE__, __LINE__, "crc(0x%08X, %u, 0x%08X) differs", (unsigned)c, reg,
				   (unsigned)w);
			break;
		}
	}
}

static void bit_default_user_id(void)
{
	size_t n;
	uint8_t *b = make_bit("7z020clg400", 0xFFFFFFFFu, &n);
	vta_bitfile_t bf;
	vta_error_t err = {0};
	CHECK_EQ(vta_bit_parse(b, n, "t.bit", &bf, NULL), VTA_OK);
	CHECK_EQ(bf.has_user_id, 0);
	/* Neither a UserID nor USR_ACCESS: not ours, unless forced. */
	const vta_board_t *z1 = vta_board_find("pynq-z1");
	CHECK_EQ(vta_bit_check(&bf, z1, VTA_CONFIG_ID, 0, "t.bit", &err), VTA_EINVAL);
	CHECK_STR_CONTAINS(err.msg, "t.bit carries no VTA configuration ID");
	CHECK_EQ(vta_bit_check(&bf, z1, VTA_CONFIG_ID, 1, "t.bit", &err), VTA_OK);
	free(b);
}

static void bit_to_bin_swaps_words(void)
{
	size_t n;
	uint8_t *b = make_bit("7z020clg400", 1, &n);
	vta_bitfile_t bf;
	CHECK_EQ(vta_bit_parse(b, n, "t.bit", &bf, NULL), VTA_OK);
	uint8_t *bin;
	size_t blen;
	CHECK_EQ(vta_bit_to_bin(&bf, &bin, &blen, NULL), VTA_OK);
	CHECK_EQ(blen, plen);
	for (size_t i = 0; i < plen; i += 4)
		CHECK(bin[i] == payload[i + 3] && bin[i + 1] == payload[i + 2] &&
		      bin[i + 2] == payload[i + 1] && bin[i + 3] == payload[i]);
	/* The sync word, word 12, reads 66 55 99 AA. */
	static const uint8_t sync[] = {0x66, 0x55, 0x99, 0xAA};
	CHECK(!memcmp(bin + 48, sync, 4));

	/* The converted image is itself a valid, already-swapped .bin. */
	vta_bitfile_t raw;
	CHECK_EQ(vta_bit_parse(bin, blen, "t.bin", &raw, NULL), VTA_OK);
	CHECK_EQ(raw.has_header, 0);
	CHECK_EQ(raw.swapped, 1);
	CHECK_EQ(raw.stream.crc_checks, 2);
	uint8_t *again;
	size_t alen;
	CHECK_EQ(vta_bit_to_bin(&raw, &again, &alen, NULL), VTA_OK);
	CHECK(alen == blen && !memcmp(again, bin, blen));
	free(again);
	free(bin);
	free(b);
}

static void bin_raw(void)
{
	setup_payload();
	vta_bitfile_t bf;
	CHECK_EQ(vta_bit_parse(payload, plen, "t.bin", &bf, NULL), VTA_OK);
	CHECK_EQ(bf.has_header, 0);
	CHECK_EQ(bf.swapped, 0);
	CHECK_EQ(bf.len, plen);
}

/* Parse must fail with a message containing want. */
static void expect_bad(const uint8_t *b, size_t n, const char *want)
{
	vta_bitfile_t bf;
	vta_error_t err = {0};
	CHECK_EQ(vta_bit_parse(b, n, "bad.bit", &bf, &err), VTA_EINVAL);
	CHECK_STR_CONTAINS(err.msg, want);
	CHECK_STR_CONTAINS(err.msg, "bad.bit");
}

static void bit_truncated_data(void)
{
	size_t n;
	uint8_t *b = make_bit("7z020clg400", 1, &n);
	expect_bad(b, n - 4, "truncated");
	expect_bad(b, n / 2, "truncated");
	free(b);
}

static void bit_truncated_header(void)
{
	size_t n;
	uint8_t *b = make_bit("7z020clg400", 1, &n);
	/* Inside field 'a'; in the length of 'b' (at 61); inside 'b'; right before 'e'. */
	expect_bad(b, 20, "field 'a' of 45 bytes runs past the end");
	expect_bad(b, 62, "field 'b' truncated");
	expect_bad(b, 70, "field 'b' of 12 bytes runs past the end");
	size_t e = n - plen - 5;
	expect_bad(b, e, "before the data field");
	expect_bad(b, e + 3, "length field truncated");
	free(b);
}

/* A copy of the PYNQ stream with word i set to w, in a .bit around it. */
static uint8_t *with_word(size_t i, uint32_t w, size_t *n)
{
	setup_payload();
	uint8_t *p = malloc(plen);
	memcpy(p, payload, plen);
	p[4 * i] = (uint8_t)(w >> 24), p[4 * i + 1] = (uint8_t)(w >> 16);
	p[4 * i + 2] = (uint8_t)(w >> 8), p[4 * i + 3] = (uint8_t)w;
	uint8_t *b = bit_around(p, plen, "7z020clg400", 1, n);
	free(p);
	return b;
}

static void bit_no_sync(void)
{
	setup_payload();
	size_t n;
	uint8_t *b = with_word(12, 0, &n); /* break the sync word */
	expect_bad(b, n, "no sync word");
	/* And as a raw file it is not recognised at all. */
	vta_bitfile_t bf;
	vta_error_t err = {0};
	CHECK_EQ(vta_bit_parse(b + n - plen, plen, "junk.bin", &bf, &err), VTA_EINVAL);
	CHECK_STR_CONTAINS(err.msg, "neither a .bit file");
	free(b);
}

/* Every part of the configuration stream is checked: one broken word each. */
static void bit_stream_errors(void)
{
	setup_payload();
	long fdri = find_pair(payload, plen, 0x30004000u, 0x50000000u | 2 * BITGEN_FRAME_7SERIES);
	long desync = find_pair(payload, plen, 0x30008001u, 0x0000000Du);
	long idcode = find_pair(payload, plen, 0x30018001u, BITGEN_XC7Z020);
	long crc2 = desync - 2;
	CHECK(fdri > 0 && desync > 0 && idcode > 0);
	static const struct {
		long at;    /* word index, relative to the anchor below */
		int anchor; /* 0: absolute, 1: FDRI, 2: DESYNC, 3: IDCODE, 4: last CRC */
		uint32_t w;
		const char *want;
	} cases[] = {
		{8, 0, 0x000000BCu, "word 8 (0x000000BC) before the sync word is neither"},
		{9, 0, 0xFFFFFFFFu, "word 9 (0xFFFFFFFF) before the sync word is neither"},
		{13, 0, 0x20000001u, "word 13: NOOP 0x20000001 with fields set"},
		{13, 0, 0x2800E001u, "a read packet of STAT"},
		{13, 0, 0x3000E001u, "a write to the read-only STAT register"},
		{13, 0, 0x38000000u, "reserved-opcode"},
		{13, 0, 0x00000000u, "is not a configuration packet (type 0)"},
		{13, 0, 0x30010000u | 0x1800u, "reserved bits set"},
		{13, 0, 0x50000001u, "does not follow a type-1 FDRI write of 0 words"},
		{13, 0, 0x30008000u, "a write of 0 words to CMD"},
		{13, 0, 0x30008002u, "a write of 2 words to CMD, which takes one"},
		{15, 0, 0x00000100u, "CMD 0x00000100 is not a command"},
		{1, 1, 0x57FFFFFFu, "but only"},
		{2, 1, 0x12345678u, "CRC check fails"},
		{3, 2, 0x00000005u, "after the DESYNC"},
		{2, 2, 0x30000001u, "after the DESYNC command is not a NOOP"},
		{1, 2, 0x0000000Cu, "no DESYNC command"},
		{1, 1, 0x20000000u, "a type-1 FDRI write of 0 words is not followed by a type-2"},
		{0, 4, 0x30002001u, "written after the last CRC check (7 words)"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		long base = cases[k].anchor == 1 ? fdri : cases[k].anchor == 2 ? desync
			    : cases[k].anchor == 3 ? idcode : cases[k].anchor == 4 ? crc2 : 0;
		size_t n;
		uint8_t *b = with_word((size_t)(base + cases[k].at), cases[k].w, &n);
		vta_bitfile_t bf;
		vta_error_t err = {0};
		if (vta_bit_parse(b, n, "bad.bit", &bf, &err) != VTA_EINVAL || !strstr(err.msg, cases[k].want))
			test_fail_(__FILE__, __LINE__, "case %zu: \"%s\", expected \"%s\"", k, err.msg,
				   cases[k].want);
		free(b);
	}
	/* No START, no IDCODE, with the CRCs right. */
	bitgen_t g = {BITGEN_XC7Z020, 0, 2 * BITGEN_FRAME_7SERIES, 1, 0};
	size_t sn, n;
	uint8_t *p = bitgen_stream(&g, &sn);
	uint8_t *b = bit_around(p, sn, "7z020clg400", 1, &n);
	expect_bad(b, n, "no START command: the device would never finish");
	free(b);
	free(p);
	g.no_start = 0;
	g.no_idcode = 1;
	p = bitgen_stream(&g, &sn);
	b = bit_around(p, sn, "7z020clg400", 1, &n);
	expect_bad(b, n, "no IDCODE write before the frame data");
	free(b);
	free(p);
	/* A command written after the last CRC check: unchecked. */
	uint8_t *q = malloc(plen + 8);
	size_t at = 4 * (size_t)desync;
	memcpy(q, payload, at);
	static const uint8_t grestore[8] = {0x30, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0x0A};
	memcpy(q + at, grestore, 8);
	memcpy(q + at + 8, payload + at, plen - at);
	b = bit_around(q, plen + 8, "7z020clg400", 1, &n);
	expect_bad(b, n, "written after the last CRC check (1 words)");
	free(b);
	free(q);
}

/* The board decides: IDCODE, frame length, part name, configuration ID. */
static void bit_board_checks(void)
{
	const vta_board_t *z1 = vta_board_find("pynq-z1"), *u = vta_board_find("ultra96v2");
	vta_error_t err = {0};
	vta_bitfile_t bf;
	size_t n;
	uint8_t *p = stream_for(z1, VTA_CONFIG_ID, &n);
	CHECK_EQ(vta_bit_parse(p, n, "z.bin", &bf, &err), VTA_OK);
	CHECK_EQ(vta_bit_check(&bf, z1, VTA_CONFIG_ID, 0, "z.bin", &err), VTA_OK);
	CHECK_EQ(vta_bit_check(&bf, u, VTA_CONFIG_ID, 1, "z.bin", &err), VTA_EINVAL);
	CHECK_STR_CONTAINS(err.msg, "z.bin: wrong part: the bitstream writes IDCODE 0x03727093, "
			   "the ultra96v2's xczu3eg-sbva484-1-e has 0x04710093");
	CHECK_EQ(vta_bit_check(&bf, z1, VTA_CONFIG_ID ^ 1, 0, "z.bin", &err), VTA_EINVAL);
	CHECK_STR_CONTAINS(err.msg, "built for VTA configuration");
	free(p);
	/* 100 words of frame data are no whole 101-word frames. */
	bitgen_t g = {BITGEN_XC7Z020, VTA_CONFIG_ID, 100, 0, 0};
	p = bitgen_stream(&g, &n);
	CHECK_EQ(vta_bit_parse(p, n, "f.bin", &bf, &err), VTA_OK);
	CHECK_EQ(vta_bit_check(&bf, z1, VTA_CONFIG_ID, 0, "f.bin", &err), VTA_EINVAL);
	CHECK_STR_CONTAINS(err.msg, "is not whole 101-word frames of a zynq-7000");
	free(p);
	/* The header's UserID and the stream's USR_ACCESS must agree. */
	p = stream_for(z1, VTA_CONFIG_ID, &n);
	size_t bn;
	uint8_t *b = bit_around(p, n, z1->part, VTA_CONFIG_ID ^ 0x100, &bn);
	CHECK_EQ(vta_bit_parse(b, bn, "t.bit", &bf, &err), VTA_OK);
	CHECK_EQ(vta_bit_check(&bf, z1, VTA_CONFIG_ID, 1, "t.bit", &err), VTA_EINVAL);
	CHECK_STR_CONTAINS(err.msg, "differs from the USR_ACCESS");
	free(b);
	free(p);
}

static void bit_odd_length(void)
{
	setup_payload();
	size_t n;
	uint8_t *b = bit_around(payload, plen - 2, "7z020clg400", 1, &n);
	expect_bad(b, n, "not a whole number of 32-bit words");
	free(b);
}

static void bit_bad_fields(void)
{
	setup_payload();
	size_t n;
	uint8_t *b = bitgen_bit("d;UserID=0X00000001", NULL, "2026/11/29", "12:34:56", payload, plen, &n);
	expect_bad(b, n, "no part field ('b')");
	free(b);
	b = bitgen_bit("d;UserID=0X00000001", "", "2026/11/29", "12:34:56", payload, plen, &n);
	expect_bad(b, n, "empty part name");
	free(b);
	b = bitgen_bit("d;UserID=0X00000001", "7z020clg400", "x", "12:34:56", payload, plen, &n);
	expect_bad(b, n, "date \"x\" or time \"12:34:56\" is not YYYY/MM/DD");
	free(b);
	b = bitgen_bit("d;Version=1", "7z020clg400", "2026/11/29", "12:34:56", payload, plen, &n);
	expect_bad(b, n, "has no UserID");
	free(b);
	b = bitgen_bit("d;UserID=0X0000001G", "7z020clg400", "2026/11/29", "12:34:56", payload, plen, &n);
	expect_bad(b, n, "malformed UserID");
	free(b);
	b = bitgen_bit("d;UserID=0X00000001", "7z020clg400", "2026/11/29", "12:34:56", payload, plen, &n);
	b[13] = 'z'; /* field 'a' becomes 'z' */
	expect_bad(b, n, "unknown .bit header field 0x7A");
	b[13] = 'a';
	b[13 + 3 + 19] = 'X'; /* remove the NUL of the design */
	expect_bad(b, n, "not NUL-terminated");
	b[13 + 3 + 19] = 0;
	b[13 + 3 + 1] = 0x01; /* a control character */
	expect_bad(b, n, "has the byte 0x01, not printable text");
	free(b);
	/* Bytes after the data the header announces. */
	b = make_bit("7z020clg400", 1, &n);
	uint8_t *longer = malloc(n + 4);
	memcpy(longer, b, n);
	memset(longer + n, 0x20, 4);
	expect_bad(longer, n + 4, "4 bytes follow the");
	free(longer);
	/* A header that is only the magic. */
	expect_bad(b, 12, "malformed after the magic");
	free(b);
}

static void bit_empty_data(void)
{
	size_t n;
	uint8_t *b = bitgen_bit("d;UserID=0X00000001", "7z020clg400", "2026/11/29", "12:34:56", NULL, 0, &n);
	expect_bad(b, n, "no configuration data");
	free(b);
}

static void part_matching(void)
{
	CHECK(vta_bit_part_matches("7z020clg400", "xc7z020clg400-1"));
	CHECK(vta_bit_part_matches("xc7z020clg400-1", "xc7z020clg400-1"));
	CHECK(!vta_bit_part_matches("7Z020CLG400", "xc7z020clg400-1")); /* Vivado writes lowercase */
	CHECK(vta_bit_part_matches("xczu3eg-sbva484-1-e", "xczu3eg-sbva484-1-e"));
	CHECK(vta_bit_part_matches("zu3egsbva484", "xczu3eg-sbva484-1-e"));
	CHECK(!vta_bit_part_matches("7z010clg400", "xc7z020clg400-1"));
	CHECK(!vta_bit_part_matches("7z020clg484", "xc7z020clg400-1"));
	CHECK(!vta_bit_part_matches("xczu3eg-sbva484-1-e", "xc7z020clg400-1"));
	CHECK(!vta_bit_part_matches("7z02", "xc7z020clg400-1"));
	CHECK(!vta_bit_part_matches("", "xc7z020clg400-1"));
}

static void read_missing_file(void)
{
	uint8_t *b;
	size_t n;
	vta_error_t err = {0};
	CHECK_EQ(vta_read_file("/nonexistent/x.bit", &b, &n, &err), VTA_EIO);
	CHECK_STR_CONTAINS(err.msg, "cannot open /nonexistent/x.bit");
}

/* The flash code reads files with the project's one vta_read_file, which
 * ends the data with a NUL byte (include/vta/util.h); a second definition
 * linked before libvta once shadowed it without the NUL. */
static void read_file_terminates(void)
{
	char path[] = "/tmp/vta-flash-read-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	static const char text[] = "abc";
	CHECK(write(fd, text, 3) == 3);
	close(fd);
	uint8_t *b;
	size_t n;
	CHECK_EQ(vta_read_file(path, &b, &n, NULL), VTA_OK);
	CHECK_EQ(n, 3);
	CHECK(b && !memcmp(b, "abc", 4));
	free(b);
	unlink(path);
}

static void board_table(void)
{
	const vta_board_t *z1 = vta_board_find("pynq-z1"), *u96 = vta_board_find("ultra96v2");
	CHECK(z1 && u96 && vta_board_find("pynq-z2") && !vta_board_find("zcu104"));
	CHECK(!strcmp(z1->part, "xc7z020clg400-1"));
	CHECK_U64(z1->reg_base, 0x43C00000u);
	CHECK_EQ(z1->bus_bits, 64);
	CHECK_EQ(z1->fclk_khz, 100000);
	CHECK(!strcmp(u96->part, "xczu3eg-sbva484-1-e"));
	CHECK_U64(u96->reg_base, 0xA0000000u);
	CHECK_EQ(u96->bus_bits, 128);
	CHECK(vta_board_for_target("ultra96") == u96);
	CHECK(!strcmp(vta_board_for_target("sim")->target, "pynq"));
	/* This build's board has the bus width the configuration was built for. */
	CHECK_EQ(vta_board_for_target(VTA_TARGET)->bus_bits, VTA_BUS_WIDTH);
}

/* ---- the fake sysfs tree ------------------------------------------------- */

static char root[256];

static void path_of(char *out, size_t cap, const char *rel)
{
	snprintf(out, cap, "%s/%s", root, rel);
}

static void mkdirs(const char *rel)
{
	char p[512];
	path_of(p, sizeof p, rel);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
	char p[512];
	path_of(p, sizeof p, rel);
	FILE *f = fopen(p, "w");
	if (!f) {
		test_fail_(__FILE__, __LINE__, "cannot create %s", p);
		return;
	}
	fputs(text, f);
	fclose(f);
}

/* The contents of a file under root (static buffer; "" if missing). */
static const char *get(const char *rel, size_t *len)
{
	static char buf[1 << 16];
	char p[512];
	path_of(p, sizeof p, rel);
	FILE *f = fopen(p, "rb");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static int has(const char *rel)
{
	char p[512];
	struct stat st;
	path_of(p, sizeof p, rel);
	return stat(p, &st) == 0;
}

/* A sparse dev/mem with id in the CONFIG_ID register of board. */
static void put_devmem(const vta_board_t *b, uint32_t id)
{
	char p[512];
	mkdirs("dev");
	path_of(p, sizeof p, "dev/mem");
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	off_t at = (off_t)(b->reg_base + 0x4000u);
	CHECK(ftruncate(fd, at + 0x1000) == 0);
	CHECK(pwrite(fd, &id, 4, at) == 4);
	close(fd);
}

static void fresh_root(void)
{
	if (root[0]) {
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf %s", root);
		if (system(cmd)) {
		}
	}
	snprintf(root, sizeof root, "/tmp/vta-flash-test-XXXXXX");
	if (!mkdtemp(root))
		test_fail_(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
}

/* A board with fpga_manager (Xilinx kernel) in state. */
static void fake_fpga_manager(const vta_board_t *b, const char *state)
{
	fresh_root();
	mkdirs("sys/class/fpga_manager/fpga0");
	put("sys/class/fpga_manager/fpga0/firmware", "");
	put("sys/class/fpga_manager/fpga0/flags", "");
	put("sys/class/fpga_manager/fpga0/state", state);
	mkdirs("lib/firmware");
	put_devmem(b, VTA_CONFIG_ID);
}

typedef struct {
	int rc;
	const char *method;
	uint32_t id;
	vta_error_t err;
} Result;

/* The stream of the last flash(), to compare the loaded image with. */
static uint8_t *last_stream;
static size_t last_len;

/* Load a .bit with part and UserID user_id around board b's stream. */
static Result flash_opts(const vta_board_t *b, const char *part, uint32_t user_id, int no_verify,
			 int force)
{
	Result r = {0};
	size_t n;
	free(last_stream);
	last_stream = stream_for(b, 0, &last_len);
	uint8_t *buf = bit_around(last_stream, last_len, part, user_id, &n);
	vta_bitfile_t bf;
	CHECK_EQ(vta_bit_parse(buf, n, "t.bit", &bf, NULL), VTA_OK);
	vta_flash_opts_t o = {.board = b, .root = root, .want_config_id = VTA_CONFIG_ID,
			      .no_verify = no_verify, .force = force};
	r.rc = vta_flash_linux(&bf, &o, &r.method, &r.id, &r.err);
	free(buf);
	return r;
}

static Result flash(const vta_board_t *b, const char *part, uint32_t user_id, int no_verify)
{
	return flash_opts(b, part, user_id, no_verify, 0);
}

static void check_swapped_image(const char *rel)
{
	size_t len;
	const uint8_t *img = (const uint8_t *)get(rel, &len);
	CHECK_EQ(len, last_len);
	int same = len == last_len;
	for (size_t i = 0; same && i < last_len; i += 4)
		same = img[i] == last_stream[i + 3] && img[i + 3] == last_stream[i];
	CHECK(same);
}

static void fm_loads(void)
{
	const vta_board_t *b = vta_board_for_target(VTA_TARGET);
	fake_fpga_manager(b, "operating\n");
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_OK);
	CHECK(r.method && !strcmp(r.method, "fpga_manager"));
	CHECK_U64(r.id, VTA_CONFIG_ID);
	char name[64], rel[128];
	snprintf(name, sizeof name, "vta-%s.bin", b->name);
	CHECK(!strcmp(get("sys/class/fpga_manager/fpga0/firmware", NULL), name));
	CHECK(!strcmp(get("sys/class/fpga_manager/fpga0/flags", NULL), "0"));
	snprintf(rel, sizeof rel, "lib/firmware/%s", name);
	check_swapped_image(rel);
	snprintf(rel, sizeof rel, "lib/firmware/.%s.tmp", name);
	CHECK(!has(rel));
}

static void fm_firmware_path_param(void)
{
	const vta_board_t *b = vta_board_find("pynq-z2");
	fake_fpga_manager(b, "operating");
	mkdirs("sys/module/firmware_class/parameters");
	put("sys/module/firmware_class/parameters/path", "/opt/fw\n");
	mkdirs("opt/fw");
	Result r = flash(b, "7z020clg400", VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_OK);
	check_swapped_image("opt/fw/vta-pynq-z2.bin");
	CHECK(!has("lib/firmware/vta-pynq-z2.bin"));
}

static void fm_wrong_part(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_fpga_manager(b, "operating");
	Result r = flash(b, "7z010clg400", VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EINVAL);
	CHECK_STR_CONTAINS(r.err.msg, "wrong part: the bitstream is for 7z010clg400, but the "
			   "pynq-z1 has a xc7z020clg400-1");
	CHECK(!has("lib/firmware/vta-pynq-z1.bin"));
	CHECK(!strcmp(get("sys/class/fpga_manager/fpga0/firmware", NULL), ""));

	/* A Zynq-7000 bitstream on the Ultra96. */
	const vta_board_t *u = vta_board_find("ultra96v2");
	fake_fpga_manager(u, "operating");
	r = flash(u, "7z020clg400", VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EINVAL);
	CHECK_STR_CONTAINS(r.err.msg, "the ultra96v2 has a xczu3eg-sbva484-1-e");
}

static void fm_wrong_configuration(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_fpga_manager(b, "operating");
	Result r = flash(b, b->part, VTA_CONFIG_ID ^ 1u, 0);
	CHECK_EQ(r.rc, VTA_EINVAL);
	CHECK_STR_CONTAINS(r.err.msg, "built for VTA configuration");
	CHECK(!has("lib/firmware/vta-pynq-z1.bin"));
}

static void fm_config_id_register(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	/* A .bit without a configuration ID is refused before anything is written. */
	fake_fpga_manager(b, "operating");
	Result r = flash(b, b->part, 0xFFFFFFFFu, 0);
	CHECK_EQ(r.rc, VTA_EINVAL);
	CHECK_STR_CONTAINS(r.err.msg, "carries no VTA configuration ID");
	CHECK(!has("lib/firmware/vta-pynq-z1.bin"));
	/* One that claims this configuration loads, but the register tells it is another. */
	put_devmem(b, 0xDEADBEEFu);
	r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EINVAL);
	CHECK_STR_CONTAINS(r.err.msg, "CONFIG_ID register reads 0xDEADBEEF");
	/* --force loads the one without an ID; --no-verify skips the register. */
	r = flash_opts(b, b->part, 0xFFFFFFFFu, 1, 1);
	CHECK_EQ(r.rc, VTA_OK);
	CHECK_U64(r.id, 0);
	/* No dev/mem: loaded, but the check fails and says so. */
	char p[512];
	path_of(p, sizeof p, "dev/mem");
	unlink(p);
	r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "CONFIG_ID check failed: cannot open");
}

static void fm_ultra96_high_address(void)
{
	const vta_board_t *u = vta_board_find("ultra96v2");
	fake_fpga_manager(u, "operating");
	Result r = flash(u, "xczu3eg-sbva484-1-e", VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_OK);
	CHECK_U64(r.id, VTA_CONFIG_ID);
}

static void fm_state_error(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_fpga_manager(b, "write error\n");
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "state \"write error\"");
	CHECK(r.id == 0);
}

static void fm_missing(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fresh_root();
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EUNSUPPORTED);
	CHECK_STR_CONTAINS(r.err.msg, "no fpga_manager");
	CHECK_STR_CONTAINS(r.err.msg, "dev/xdevcfg");

	/* fpga_manager without the Xilinx 'firmware' attribute. */
	mkdirs("sys/class/fpga_manager/fpga0");
	put("sys/class/fpga_manager/fpga0/state", "operating");
	r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EUNSUPPORTED);
	CHECK_STR_CONTAINS(r.err.msg, "device-tree overlays");
}

static void fm_no_firmware_dir(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_fpga_manager(b, "operating");
	char p[512];
	path_of(p, sizeof p, "lib/firmware");
	rmdir(p);
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "lib/firmware does not exist");
}

static void fm_partial_write(void)
{
	/* The temporary image is a link to /dev/full: the write fails part-way,
	 * nothing is loaded and the firmware name is never written. */
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_fpga_manager(b, "operating");
	char p[512];
	path_of(p, sizeof p, "lib/firmware/.vta-pynq-z1.bin.tmp");
	CHECK(symlink("/dev/full", p) == 0);
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "stopped after 0 of");
	CHECK(!has("lib/firmware/vta-pynq-z1.bin"));
	CHECK(!strcmp(get("sys/class/fpga_manager/fpga0/firmware", NULL), ""));
}

static void fm_no_permission(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	if (geteuid() == 0) {
		/* root ignores file modes, but not a read-only sysfs attribute. */
		static const char ro[] = "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size";
		if (access(ro, F_OK))
			return;
		fake_fpga_manager(b, "operating");
		char p[512];
		path_of(p, sizeof p, "sys/class/fpga_manager/fpga0/flags");
		unlink(p);
		CHECK(symlink(ro, p) == 0);
		Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
		CHECK_EQ(r.rc, VTA_EIO);
		CHECK_STR_CONTAINS(r.err.msg, "no permission to write");
		CHECK_STR_CONTAINS(r.err.msg, "fpga0/flags");
		CHECK(!strcmp(get("sys/class/fpga_manager/fpga0/firmware", NULL), ""));
		return;
	}
	fake_fpga_manager(b, "operating");
	char p[512];
	path_of(p, sizeof p, "lib/firmware");
	chmod(p, 0555);
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	chmod(p, 0755);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "no permission to create");
}

static void fake_xdevcfg(const char *done)
{
	fresh_root();
	mkdirs("sys/class/xdevcfg/xdevcfg/device");
	put("sys/class/xdevcfg/xdevcfg/device/prog_done", done);
	put("sys/class/xdevcfg/xdevcfg/device/is_partial_bitstream", "1");
	put_devmem(vta_board_find("pynq-z1"), VTA_CONFIG_ID);
	put("dev/xdevcfg", "");
}

static void xdevcfg_loads(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_xdevcfg("1\n");
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_OK);
	CHECK(r.method && !strcmp(r.method, "xdevcfg"));
	check_swapped_image("dev/xdevcfg");
	CHECK(!strcmp(get("sys/class/xdevcfg/xdevcfg/device/is_partial_bitstream", NULL), "0"));
}

static void xdevcfg_failures(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_xdevcfg("0\n");
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "did not finish configuration");

	/* A write that stops part-way is an error, even with prog_done 1. */
	fake_xdevcfg("1\n");
	char p[512];
	path_of(p, sizeof p, "dev/xdevcfg");
	unlink(p);
	CHECK(symlink("/dev/full", p) == 0);
	r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "stopped after 0 of");

	/* xdevcfg exists only on Zynq-7000. */
	fake_xdevcfg("1\n");
	const vta_board_t *u = vta_board_find("ultra96v2");
	r = flash(u, u->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EUNSUPPORTED);
	CHECK_STR_CONTAINS(r.err.msg, "no fpga_manager");
}

/*
 * Issue 9: `vta flash` refuses every mutation of a structurally valid
 * bitstream. For each board, the synthetic .bit and .bin (bitgen.h, this
 * build's configuration ID) are mutated by bit flips, byte overwrites, byte
 * insertions and deletions, truncations, and word deletions and
 * duplications; each mutant must fail vta_bit_parse or vta_bit_check, and
 * vta_flash_linux must write nothing. Left out, because the result means the
 * same to the device and to us: overwrites of the free text of the header
 * (design name, the Version entry, the digits of date and time), truncating or
 * removing NOOP and dummy words of a .bin outside the packets, and removing
 * or duplicating a NOOP word between packets.
 */
typedef struct {
	uint8_t *buf;
	size_t n;
} Mutant;

static int in_ranges(size_t at, const size_t (*r)[2], int nr)
{
	for (int i = 0; i < nr; i++)
		if (at >= r[i][0] && at < r[i][1])
			return 1;
	return 0;
}

static size_t find_str(const uint8_t *b, size_t n, const char *s)
{
	size_t k = strlen(s);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(b + i, s, k))
			return i;
	return n;
}

static uint32_t be_word(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One mutant of f (n bytes; data_at: where the stream starts; for a .bin,
 * pkt_lo/pkt_hi: byte range of the packets, sync word to DESYNC data). */
static Mutant mutate(const uint8_t *f, size_t n, int is_bit, size_t data_at, size_t pkt_lo,
		     size_t pkt_hi, const size_t (*skip)[2], int nskip, uint64_t *r, int *kind)
{
	Mutant m = {malloc(n + 8), n};
	memcpy(m.buf, f, n);
	for (;;) {
		int op = (int)(test_rand(r) % 7);
		size_t at = (size_t)(test_rand(r) % n);
		*kind = op;
		if ((op == 0 || op == 1) && is_bit && in_ranges(at, skip, nskip))
			continue;
		if (op == 0) { /* flip a bit */
			m.buf[at] ^= (uint8_t)(1u << (test_rand(r) % 8));
		} else if (op == 1) { /* overwrite a byte */
			uint8_t v = (uint8_t)test_rand(r);
			if (v == m.buf[at])
				continue;
			m.buf[at] = v;
		} else if (op == 2) { /* insert a byte */
			memmove(m.buf + at + 1, m.buf + at, n - at);
			m.buf[at] = (uint8_t)test_rand(r);
			m.n = n + 1;
		} else if (op == 3) { /* delete a byte */
			memmove(m.buf + at, m.buf + at + 1, n - at - 1);
			m.n = n - 1;
		} else if (op == 4) { /* truncate */
			if (!is_bit && at >= pkt_hi)
				continue;
			m.n = at;
		} else { /* delete (5) or duplicate (6) a whole word */
			size_t w = data_at + 4 * ((at - data_at) / 4);
			if (at < data_at || w + 4 > n)
				continue;
			if (!is_bit && (w < pkt_lo || w >= pkt_hi))
				continue;
			if (be_word(f + w) == 0x20000000u)
				continue;
			if (op == 5) {
				memmove(m.buf + w, m.buf + w + 4, n - w - 4);
				m.n = n - 4;
			} else {
				memmove(m.buf + w + 4, m.buf + w, n - w);
				m.n = n + 4;
			}
		}
		return m;
	}
}

static void bit_mutations_refused(void)
{
	static const char *op_names[7] = {"bit flip", "byte overwrite", "byte insertion",
					  "byte deletion", "truncation", "word deletion",
					  "word duplication"};
	enum { PER_FILE = 1200 };
	uint64_t r = 2026;
	int total = 0, refused = 0;
	fake_fpga_manager(vta_board_find("pynq-z1"), "operating");
	for (int bi = 0; vta_board_at(bi); bi++) {
		const vta_board_t *b = vta_board_at(bi);
		size_t sn, bn;
		uint8_t *bin = stream_for(b, VTA_CONFIG_ID, &sn);
		uint8_t *bit = bit_around(bin, sn, b->part, VTA_CONFIG_ID, &bn);
		vta_bitfile_t bf;
		vta_error_t err = {0};
		CHECK_EQ(vta_bit_parse(bin, sn, "orig.bin", &bf, &err), VTA_OK);
		CHECK_EQ(vta_bit_check(&bf, b, VTA_CONFIG_ID, 0, "orig.bin", &err), VTA_OK);
		size_t pkt_lo = 4 * bf.stream.sync_word, pkt_hi = 4 * (bf.stream.desync_word + 2);
		CHECK_EQ(vta_bit_parse(bit, bn, "orig.bit", &bf, &err), VTA_OK);
		CHECK_EQ(vta_bit_check(&bf, b, VTA_CONFIG_ID, 0, "orig.bit", &err), VTA_OK);
		/* The header's free text: design name, version, date and time digits. */
		size_t skip[24][2];
		int nskip = 0;
		size_t d = find_str(bit, bn, "vta_wrapper");
		skip[nskip][0] = d, skip[nskip][1] = d + 11, nskip++;
		size_t v = find_str(bit, bn, "Version=");
		skip[nskip][0] = v, skip[nskip][1] = v + 14, nskip++;
		size_t dt = find_str(bit, bn, "2026/11/29"), tm = find_str(bit, bn, "12:34:56");
		for (size_t k = 0; k < 10; k++)
			if (k != 4 && k != 7)
				skip[nskip][0] = dt + k, skip[nskip][1] = dt + k + 1, nskip++;
		for (size_t k = 0; k < 8; k++)
			if (k != 2 && k != 5)
				skip[nskip][0] = tm + k, skip[nskip][1] = tm + k + 1, nskip++;
		for (int file = 0; file < 2; file++) {
			const uint8_t *f = file ? bin : bit;
			size_t n = file ? sn : bn;
			for (int i = 0; i < PER_FILE; i++) {
				int kind;
				Mutant m = mutate(f, n, !file, file ? 0 : bn - sn, pkt_lo, pkt_hi, skip, nskip, &r,
						  &kind);
				total++;
				vta_bitfile_t mf;
				vta_error_t e = {0};
				int parsed = vta_bit_parse(m.buf, m.n, "mutant", &mf, &e) == VTA_OK;
				int ok = parsed && vta_bit_check(&mf, b, VTA_CONFIG_ID, 0, "mutant", &e) == VTA_OK;
				if (parsed && !ok) {
					/* What parses goes through the loading path, which refuses it too. */
					const char *method;
					uint32_t id;
					vta_error_t le = {0};
					vta_flash_opts_t o = {.board = b, .root = root, .want_config_id = VTA_CONFIG_ID};
					if (vta_flash_linux(&mf, &o, &method, &id, &le) == VTA_OK)
						test_fail_(__FILE__, __LINE__, "vta_flash_linux loaded a refused mutant");
				}
				if (!ok) {
					refused++;
					if (!e.msg[0])
						test_fail_(__FILE__, __LINE__, "a mutant refused without a message");
				} else {
					size_t at = 0;
					while (at < n && at < m.n && f[at] == m.buf[at])
						at++;
					test_fail_(__FILE__, __LINE__, "%s: %s mutant %d (%s at byte %zu) accepted",
						   b->name, file ? ".bin" : ".bit", i, op_names[kind], at);
				}
				free(m.buf);
			}
		}
		free(bit);
		free(bin);
	}
	for (int bi = 0; vta_board_at(bi); bi++) {
		char rel[128];
		snprintf(rel, sizeof rel, "lib/firmware/vta-%s.bin", vta_board_at(bi)->name);
		CHECK(!has(rel));
	}
	CHECK(!strcmp(get("sys/class/fpga_manager/fpga0/firmware", NULL), ""));
	printf("bitstream mutations: %d of %d refused (%d per file, .bit and .bin of %d boards)\n",
	       refused, total, PER_FILE, VTA_BOARD_COUNT);
}

static void cleanup(void)
{
	fresh_root();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	if (system(cmd)) {
	}
	free(payload);
	payload = NULL;
	free(last_stream);
	last_stream = NULL;
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"bit.fields", bit_fields},
		{"bit.default_user_id", bit_default_user_id},
		{"bit.to_bin_swaps_words", bit_to_bin_swaps_words},
		{"bit.raw_bin", bin_raw},
		{"bit.truncated_data", bit_truncated_data},
		{"bit.truncated_header", bit_truncated_header},
		{"bit.no_sync", bit_no_sync},
		{"bit.odd_length", bit_odd_length},
		{"bit.bad_fields", bit_bad_fields},
		{"bit.empty_data", bit_empty_data},
		{"bit.part_matching", part_matching},
		{"bit.stream_summary", bit_stream_summary},
		{"bit.crc", bit_crc},
		{"bit.stream_errors", bit_stream_errors},
		{"bit.board_checks", bit_board_checks},
		{"bit.missing_file", read_missing_file},
		{"bit.read_file_terminates", read_file_terminates},
		{"boards.table", board_table},
		{"fpgamgr.loads", fm_loads},
		{"fpgamgr.firmware_path_param", fm_firmware_path_param},
		{"fpgamgr.wrong_part", fm_wrong_part},
		{"fpgamgr.wrong_configuration", fm_wrong_configuration},
		{"fpgamgr.config_id_register", fm_config_id_register},
		{"fpgamgr.ultra96_high_address", fm_ultra96_high_address},
		{"fpgamgr.state_error", fm_state_error},
		{"fpgamgr.missing", fm_missing},
		{"fpgamgr.no_firmware_dir", fm_no_firmware_dir},
		{"fpgamgr.partial_write", fm_partial_write},
		{"fpgamgr.no_permission", fm_no_permission},
		{"xdevcfg.loads", xdevcfg_loads},
		{"xdevcfg.failures", xdevcfg_failures},
		{"bit.mutations_refused", bit_mutations_refused},
		{"cleanup", cleanup},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
