/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .vtam container (include/vta/vtam.h): CRC-32C against RFC 3720's test
 * vectors, a file built and read back, and a mutation corpus: every
 * corrupted file is refused, and so is every file whose header fields were
 * edited with the checksum made valid again, each with a message naming
 * the field.
 */
#include <stdlib.h>
#include <string.h>

#include <vta/vta_config.h>
#include <vta/vtam.h>

#include "../test.h"

static void test_crc_vectors(void)
{
	/* RFC 3720, B.4, and the "123456789" check value of CRC-32C */
	uint8_t z[32] = {0}, f[32], inc[32], dec[32];
	for (int i = 0; i < 32; i++)
		f[i] = 0xFF, inc[i] = (uint8_t)i, dec[i] = (uint8_t)(31 - i);
	CHECK_U64(vta_crc32c(0, z, 32), 0x8A9136AAu);
	CHECK_U64(vta_crc32c(0, f, 32), 0x62A8AB43u);
	CHECK_U64(vta_crc32c(0, inc, 32), 0x46DD794Eu);
	CHECK_U64(vta_crc32c(0, dec, 32), 0x113FDB5Cu);
	CHECK_U64(vta_crc32c(0, "123456789", 9), 0xE3069283u);
	CHECK_U64(vta_crc32c(vta_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
}

static uint8_t *sample(size_t *len)
{
	static uint8_t graph[1000], meta[] = "input.scale=0.0039\n";
	for (size_t i = 0; i < sizeof graph; i++)
		graph[i] = (uint8_t)(i * 7 + 3);
	uint32_t kinds[2] = {VTA_VTAM_GRAPH, VTA_VTAM_META};
	const uint8_t *data[2] = {graph, meta};
	size_t sizes[2] = {sizeof graph, sizeof meta - 1};
	uint8_t *b;
	vta_error_t err;
	CHECK_EQ(vta_vtam_build(kinds, data, sizes, 2, &b, len, &err), 0);
	return b;
}

/* A section of the wrong kind is named, not numbered. */
static void test_build_kinds(void)
{
	static const uint8_t graph[4];
	uint32_t kinds[2] = {VTA_VTAM_GRAPH, VTA_VTAM_CONFIG};
	const uint8_t *data[2] = {graph, graph};
	size_t sizes[2] = {4, 4}, len;
	uint8_t *b = NULL;
	vta_error_t err;
	CHECK(vta_vtam_build(kinds, data, sizes, 2, &b, &len, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "section 1 is CONFIG, which vta_vtam_build writes itself");
	kinds[1] = 9;
	CHECK(vta_vtam_build(kinds, data, sizes, 2, &b, &len, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "section 1 has kind 9, which is not VTA_VTAM_GRAPH or VTA_VTAM_META");
}

static void test_roundtrip(void)
{
	size_t len, n;
	uint8_t *b = sample(&len);
	vta_vtam_t v;
	vta_error_t err;
	CHECK_EQ(vta_vtam_parse(b, len, "sample", &v, &err), 0);
	CHECK_EQ(v.n_sections, 3);
	const uint8_t *g = vta_vtam_section(&v, b, VTA_VTAM_GRAPH, &n);
	CHECK(g != NULL);
	CHECK_EQ(n, 1000);
	CHECK_EQ(g[999], (uint8_t)(999 * 7 + 3));
	const uint8_t *c = vta_vtam_section(&v, b, VTA_VTAM_CONFIG, &n);
	CHECK(c && n == strlen(VTA_CONFIG_CANONICAL) && !memcmp(c, VTA_CONFIG_CANONICAL, n));
	free(b);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* Make the checksum valid again after an edit. */
static void reseal(uint8_t *b, size_t len)
{
	put32(b + 32, 0);
	put32(b + 32, vta_crc32c(0, b, len));
}

static void expect_refused(const uint8_t *b, size_t len, const char *text)
{
	vta_vtam_t v;
	vta_error_t err;
	vta_error_clear(&err);
	int rc = vta_vtam_parse(b, len, "m.vtam", &v, &err);
	CHECK(rc != 0);
	if (rc && text)
		CHECK_STR_CONTAINS(err.msg, text);
}

/* Random corruption: bit flips, byte overwrites, truncation, extension. */
static void test_corruption(void)
{
	size_t len;
	uint8_t *b = sample(&len), *m = malloc(len + 64);
	uint64_t s = 7;
	int refused = 0, total = 0;
	for (size_t bit = 0; bit < 8 * len; bit += 7, total++) { /* one flip every 7 bits */
		memcpy(m, b, len);
		m[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		vta_vtam_t v;
		vta_error_t err;
		refused += vta_vtam_parse(m, len, "m.vtam", &v, &err) != 0;
	}
	for (int t = 0; t < 200; t++, total++) {
		memcpy(m, b, len);
		int k = (int)test_rand_range(&s, 1, 8);
		for (int j = 0; j < k; j++)
			m[test_rand_range(&s, 0, (int64_t)len - 1)] = (uint8_t)test_rand(&s);
		if (!memcmp(m, b, len)) { /* the overwrite happened to change nothing */
			total--;
			continue;
		}
		vta_vtam_t v;
		vta_error_t err;
		refused += vta_vtam_parse(m, len, "m.vtam", &v, &err) != 0;
	}
	for (size_t cut = 0; cut < len; cut += 13, total++) {
		vta_vtam_t v;
		vta_error_t err;
		refused += vta_vtam_parse(b, cut, "m.vtam", &v, &err) != 0;
	}
	memcpy(m, b, len);
	m[len] = 0;
	expect_refused(m, len + 1, "truncated or extended");
	CHECK_EQ(refused, total);
	free(m);
	free(b);
}

/* Header fields edited and the checksum made valid: each is refused for
 * what it is. */
static void test_fields(void)
{
	size_t len;
	uint8_t *b = sample(&len), *m = malloc(len);
	const size_t s0 = 48, s1 = 48 + 24, s2 = 48 + 48; /* CONFIG, GRAPH, META entries */
	struct {
		size_t at;
		int width; /* 4 or 8 */
		uint64_t value;
		const char *text;
	} edits[] = {
		{8, 4, 2, "format version 2"},
		{8, 4, 4, "format version 4"},
		{12, 4, 47, "header size"},
		{28, 4, 0, "0 sections"},
		{28, 4, 17, "17 sections"},
		{28, 4, 2, "header size"},
		{36, 4, 1, "reserved"},
		{40, 8, 1, "reserved"},
		{s1, 4, 9, "has kind 9"},
		{s1, 4, VTA_VTAM_CONFIG, "second CONFIG"},
		{s1 + 4, 4, 1, "reserved"},
		{s1 + 8, 8, 8, "not 8-byte aligned inside the file"},
		{s1 + 8, 8, 3 + 8 * 20, "not 8-byte aligned"},
		{s1 + 8, 8, UINT64_MAX - 7, "not 8-byte aligned"},
		{s1 + 16, 8, UINT64_MAX, "inside the file"},
		{s1 + 16, 8, 100000, "inside the file"},
		{s2 + 8, 8, 160, "overlap"},
		{s0 + 16, 8, 3, "compiled for VTA configuration"},
		{24, 4, 0x12345678, "0x12345678"},
	};
	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
		memcpy(m, b, len);
		if (edits[i].width == 4)
			put32(m + edits[i].at, (uint32_t)edits[i].value);
		else
			put64(m + edits[i].at, edits[i].value);
		reseal(m, len);
		expect_refused(m, len, edits[i].text);
	}
	/* A model for another configuration names both. */
	memcpy(m, b, len);
	put32(m + 24, VTA_CONFIG_ID ^ 1);
	reseal(m, len);
	char mine[16];
	snprintf(mine, sizeof mine, "0x%08X", (unsigned)VTA_CONFIG_ID);
	expect_refused(m, len, mine);
	expect_refused(m, len, VTA_CONFIG_NAME);
	/* A GRAPH-less file; a non-printable configuration. */
	memcpy(m, b, len);
	put32(m + s1, VTA_VTAM_META);
	put32(m + s2, VTA_VTAM_META);
	reseal(m, len);
	expect_refused(m, len, "second META");
	memcpy(m, b, len);
	m[48 + 24 * 3 + 8] = 0x01; /* inside the CONFIG text */
	reseal(m, len);
	expect_refused(m, len, "not printable");
	/* The old format without a checksum. */
	memcpy(m, "VTAM\2\0\0\0", 8);
	expect_refused(m, len, "old format 2");
	free(m);
	free(b);
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"crc32c-vectors", test_crc_vectors},
		{"roundtrip", test_roundtrip},
		{"build_kinds", test_build_kinds},
		{"corruption", test_corruption},
		{"fields", test_fields},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
