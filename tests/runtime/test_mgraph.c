/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libvta's decoder of the GRAPH section (internal/vta/model/graph.h), with no
 * compiler involved: a graph written here byte by byte from the format's
 * description decodes to the values written; every truncation, a trailing
 * byte, and each field edited to something impossible is refused with a
 * message naming what was wrong. (The compiler's own files are read back
 * through the same decoder in test_compiler.)
 */
#include <stdlib.h>
#include <string.h>

#include <vta/model/graph.h>

#include "../test.h"

typedef struct wb {
	uint8_t p[4096];
	size_t n;
} wb;

static size_t w32(wb *b, uint32_t v)
{
	size_t at = b->n;
	for (int i = 0; i < 4; i++)
		b->p[b->n++] = (uint8_t)(v >> (8 * i));
	return at;
}

static size_t w64(wb *b, uint64_t v)
{
	size_t at = w32(b, (uint32_t)v);
	w32(b, (uint32_t)(v >> 32));
	return at;
}

static void wstr(wb *b, const char *s)
{
	w32(b, (uint32_t)strlen(s));
	memcpy(b->p + b->n, s, strlen(s));
	b->n += strlen(s);
}

static void wtype(wb *b, int rank, const int64_t *dim, uint32_t dtype)
{
	w32(b, (uint32_t)rank);
	for (int i = 0; i < rank; i++)
		w64(b, (uint64_t)dim[i]);
	w32(b, dtype);
	w32(b, 0); /* plain */
	w32(b, 1); /* quantized */
	w32(b, (uint32_t)-3);
}

/* Attributes all zero but dev_off and kernel_id; returns dev_off's offset. */
static size_t wattrs(wb *b, int64_t dev_off, int kernel_id)
{
	for (int i = 0; i < 12; i++) /* kernel, stride, dilation x2; pad[4]; group, axis */
		w64(b, 0);
	for (int i = 0; i < 4; i++) /* ceil_mode, count_include_pad, coerce2d, exp */
		w32(b, 0);
	for (int i = 0; i < 3; i++) /* lo, hi, eps */
		w64(b, 0);
	w32(b, 0); /* nshape */
	for (int i = 0; i < 6; i++)
		w64(b, 0);
	w32(b, 7);  /* shift */
	w32(b, 1);  /* relu */
	w64(b, (uint64_t)-127);
	w64(b, 127);
	size_t at = w64(b, (uint64_t)dev_off);
	w32(b, (uint32_t)kernel_id);
	w32(b, 0); /* leaky */
	for (int i = 0; i < 3; i++) /* resize_mode, resize_coord, resize_round */
		w32(b, 0);
	w64(b, 0), w64(b, 0); /* scale[2] */
	for (int i = 0; i < 3; i++) /* fn, axes, keepdims */
		w32(b, 0);
	w64(b, 0), w64(b, 0); /* alpha, beta */
	return at;
}

/* Where the fields the mutations edit were written. */
typedef struct marks {
	size_t version, config_id, n_nodes, use, data_len, placement, input, kernel_node, insn_count, image_len;
} marks;

/* x (input, in the image at 0), w (constant in the file), b (constant in
 * the image at 8), k = vta.conv(x, w, b) with kernel 0, in the image at 16. */
static void sample(wb *b, marks *mk)
{
	static const int64_t d14[2] = {1, 4}, d4[1] = {4}, d2[1] = {2}, d12[2] = {1, 2};
	b->n = 0;
	memcpy(b->p, "VTAM", 4);
	b->n = 4;
	mk->version = w32(b, VTA_MGRAPH_VERSION);
	mk->config_id = w32(b, VTA_CONFIG_ID);
	wstr(b, "cfg");
	w32(b, 1), w32(b, 16), w32(b, 16);
	mk->n_nodes = w32(b, 4);
	/* node 0 */
	w32(b, VTA_MOP_INPUT), wstr(b, "x"), w32(b, 0);
	wtype(b, 2, d14, VTA_MDT_I8);
	wattrs(b, 0, -1);
	b->p[b->n++] = 1;
	w64(b, 0);
	/* node 1: 16 bytes of data in the file */
	w32(b, VTA_MOP_CONST), wstr(b, "w"), w32(b, 0);
	wtype(b, 1, d4, VTA_MDT_I32);
	wattrs(b, -1, -1);
	b->p[b->n++] = 0;
	mk->data_len = w64(b, 16);
	for (uint32_t v = 1; v <= 4; v++)
		w32(b, v * 1000);
	/* node 2: data in the image */
	w32(b, VTA_MOP_CONST), wstr(b, "b"), w32(b, 0);
	wtype(b, 1, d2, VTA_MDT_I8);
	mk->placement = wattrs(b, 8, -1);
	b->p[b->n++] = 1;
	w64(b, 0);
	/* node 3 */
	w32(b, VTA_MOP_VTA_CONV), wstr(b, "k"), w32(b, 3);
	w32(b, 0), w32(b, 1);
	mk->use = w32(b, 2);
	wtype(b, 2, d12, VTA_MDT_I8);
	wattrs(b, 16, 0);
	b->p[b->n++] = 1;
	w64(b, 0);
	mk->input = w32(b, 1) + 4;
	w32(b, 0);
	w32(b, 1), w32(b, 3);
	w32(b, 1); /* kernels */
	mk->kernel_node = w32(b, 3);
	w64(b, 32);
	mk->insn_count = w64(b, 2);
	w64(b, 64), w64(b, 1), w64(b, 8);
	w32(b, 1), w32(b, 2), w32(b, 3), w32(b, 1);
	w64(b, 128);
	mk->image_len = w64(b, 72);
	for (int i = 0; i < 72; i++)
		b->p[b->n++] = (uint8_t)(i + 1);
}

/* Decode from an exactly sized copy, so ASan sees any read past the end. */
static int decode(const uint8_t *p, size_t n, vta_mgraph_t *g, vta_error_t *err)
{
	uint8_t *c = malloc(n ? n : 1);
	memcpy(c, p, n);
	int rc = vta_mgraph_decode(c, n, "sample", g, err);
	vta_mgraph_free(g);
	free(c);
	return rc;
}

static void test_decode(void)
{
	wb b;
	marks mk;
	sample(&b, &mk);
	vta_mgraph_t g;
	vta_error_t err;
	if (vta_mgraph_decode(b.p, b.n, "sample", &g, &err)) {
		CHECK_STR_CONTAINS(err.msg, "(decoded)");
		return;
	}
	CHECK_EQ(g.n_nodes, 4);
	CHECK(!strcmp(g.nodes[3].name, "k") && !strcmp(g.config, "cfg"));
	CHECK_EQ(g.block_in, 16);
	CHECK_EQ(g.nodes[3].n_in, 3);
	CHECK_EQ(g.nodes[3].in[2], 2);
	CHECK_EQ(g.nodes[0].type.dim[1], 4);
	CHECK_EQ(g.nodes[0].type.exp, -3);
	CHECK_EQ(g.nodes[0].a.qlo, -127);
	CHECK_EQ(g.nodes[0].a.shift, 7);
	CHECK_EQ(g.nodes[2].on_vta, 1);
	CHECK_EQ(vta_mtype_bytes(&g.nodes[1].type), 16);
	CHECK(g.nodes[1].data && g.nodes[1].data[4] == (1000 * 2 & 0xFF));
	CHECK(g.nodes[2].data == g.image + 8 && g.nodes[2].data[0] == 9 && g.nodes[2].data[1] == 10);
	CHECK(g.nodes[0].data == NULL);
	CHECK_EQ(g.n_inputs, 1);
	CHECK_EQ(g.outputs[0], 3);
	CHECK_EQ(g.n_kernels, 1);
	CHECK_EQ(g.kernels[0].insn_off, 32);
	CHECK_EQ(g.kernels[0].macs, 8);
	CHECK_EQ(g.kernels[0].tci, 3);
	CHECK_EQ(g.image_size, 128);
	CHECK_EQ(g.image[71], 72);
	CHECK_EQ(g.image[127], 0);
	vta_mgraph_free(&g);
}

static void test_truncated(void)
{
	wb b;
	marks mk;
	sample(&b, &mk);
	vta_mgraph_t g;
	vta_error_t err;
	for (size_t n = 0; n < b.n; n++)
		if (!decode(b.p, n, &g, &err))
			CHECK(!"a truncated graph decoded");
	b.p[b.n++] = 0;
	CHECK(decode(b.p, b.n, &g, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "trailing bytes");
	CHECK(vta_mgraph_decode(NULL, 0, "none", &g, &err) != 0);
	vta_mgraph_free(&g);
}

static void test_fields(void)
{
	static const struct {
		int field; /* index into marks, in order */
		int wide;
		uint64_t value;
		const char *text;
	} cases[] = {
		{0, 0, 1, "graph version 1"},
		{1, 0, 0x12345678, "compiled for VTA configuration 0x12345678"},
		{2, 0, 5, "node 4"}, /* reads kernels as a fifth node */
		{2, 0, 0xFFFFFFFFu, "node count"},
		{3, 0, 3, "uses node 3, which is not before it"},
		{4, 1, 12, "carries 12 bytes of data for a constant of 16 bytes"},
		{5, 1, 127, "device placement at 127 (2 bytes) outside the 128-byte image"},
		{5, 1, (uint64_t)1 << 62, "outside the 128-byte image"},
		{6, 0, 2, "graph input 0 is node 2, not an input node"},
		{7, 0, 1, "kernel 0 does not belong to a vta.conv node"},
		{8, 1, (uint64_t)1 << 60, "kernel 0 lies outside the image"},
		{8, 1, 0, "kernel 0 lies outside the image"},
		{9, 1, 129, "image of 129 bytes stored for 128"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		wb b;
		marks mk;
		sample(&b, &mk);
		size_t at = ((const size_t *)&mk)[cases[c].field];
		if (cases[c].wide)
			for (int i = 0; i < 8; i++)
				b.p[at + i] = (uint8_t)(cases[c].value >> (8 * i));
		else
			for (int i = 0; i < 4; i++)
				b.p[at + i] = (uint8_t)(cases[c].value >> (8 * i));
		vta_mgraph_t g;
		vta_error_t err;
		err.msg[0] = 0;
		CHECK(decode(b.p, b.n, &g, &err) != 0);
		CHECK_STR_CONTAINS(err.msg, cases[c].text);
	}
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"decode", test_decode},
		{"truncated", test_truncated},
		{"fields", test_fields},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
