/* SPDX-License-Identifier: Apache-2.0 */
/* The assembler, the disassembler and program files. */
#include <stdio.h>
#include <unistd.h>

#include <vta/asm.h>
#include <vta/fsim.h>

#include "test.h"

static int assemble(const char *text, vta_program_t *p, vta_error_t *err)
{
	return vta_asm(text, "t.s", p, err);
}

/* The memory-format examples of VTA-SPEC 3.10 written as assembly. */
static void spec_examples(void)
{
	const char *text = "load uop sram=0 dram=0x400 y=1 x=5 stride=5\n"
			   "  LOAD inp sram=16 dram=0x1234 y=4 x=4 stride=16 ypad=1,1 xpad=1,1 push_next # c\n"
			   "store out sram=0 dram=0x2000 y=1 x=8 stride=8 pop_prev push_prev\n"
			   "\n# comment line\n"
			   "finish\n"
			   "load uop sram=0 dram=0 y=0 x=0 stride=0 pop_prev\n";
	static const uint64_t want[5][2] = {
		{0x0000001000000000ull, 0x0000000500050001ull},
		{0x00000048D0004140ull, 0x1111001000040004ull},
		{0x0000008000000229ull, 0x0000000800080001ull},
		{0x3, 0},
		{0x8, 0},
	};
	vta_program_t p;
	vta_error_t err;
	CHECK_EQ(assemble(text, &p, &err), VTA_OK);
	CHECK_EQ(p.n_insns, 5);
	for (size_t i = 0; i < p.n_insns && i < 5; i++) {
		CHECK_U64(p.insns[i].w[0], want[i][0]);
		CHECK_U64(p.insns[i].w[1], want[i][1]);
	}
	vta_program_free(&p);
}

static void expect_asm_error(const char *text, int code, const char *msg, int line)
{
	vta_program_t p;
	vta_error_t err;
	int rc = assemble(text, &p, &err);
	if (rc != code)
		test_fail_(__FILE__, line, "vta_asm returned %d, expected %d (%s)", rc, code, err.msg);
	else if (!strstr(err.msg, msg))
		test_fail_(__FILE__, line, "message \"%s\" lacks \"%s\"", err.msg, msg);
	CHECK(p.insns == NULL && p.n_insns == 0); /* nothing leaks on failure */
}

static void syntax_errors(void)
{
	expect_asm_error("finish\nfrobnicate\n", VTA_EINVAL, "t.s:2: unknown instruction \"frobnicate\"",
			 __LINE__);
	expect_asm_error("load sram=1\n", VTA_EINVAL, "t.s:1: load needs a memory type", __LINE__);
	expect_asm_error("alu uop=0,1\n", VTA_EINVAL, "alu needs an operation", __LINE__);
	expect_asm_error("load inp x=12z\n", VTA_EINVAL, "x: \"12z\" is not a number", __LINE__);
	expect_asm_error("load inp x=1 x=2\n", VTA_EINVAL, "operand x given twice", __LINE__);
	expect_asm_error("load inp x=70000\n", VTA_ERANGE, "t.s:1: x_size = 70000 does not fit its 16-bit field",
			 __LINE__);
	expect_asm_error("gemm uop=0\n", VTA_EINVAL, "uop needs two values", __LINE__);
	expect_asm_error("gemm imm=3\n", VTA_EINVAL, "unknown operand \"imm\" for gemm", __LINE__);
	expect_asm_error("alu add imm=40000\n", VTA_ERANGE, "imm = 40000 does not fit", __LINE__);
	expect_asm_error("finish pop_prev=1\n", VTA_EINVAL, "pop_prev is a flag", __LINE__);
	expect_asm_error(".byte 1 2\n", VTA_EINVAL, ".byte before any .org", __LINE__);
	expect_asm_error(".org 0x100\n.byte 300\n", VTA_ERANGE, ".byte = 300 is out of range", __LINE__);
	expect_asm_error("finish\n.org 0x8\n.byte 1\n", VTA_EINVAL, "overlaps the instructions", __LINE__);
	expect_asm_error(".org 0x100\n.zero 64\n.org 0x120\n.byte 1\n", VTA_EINVAL, "overlaps data", __LINE__);
	expect_asm_error(".dram 64\n.org 0x100\n.byte 1\n", VTA_ERANGE,
			 "data segment 0 (1 bytes at 0x100) does not fit in the 64 bytes of .dram", __LINE__);
	expect_asm_error(".text 0x18\n", VTA_EINVAL, "not 16-byte aligned", __LINE__);
	expect_asm_error(".base foo 0x100\n", VTA_EINVAL, "\"foo\" is not uop", __LINE__);
	expect_asm_error(".print X 0x0 f32 1 1\n", VTA_EINVAL, "not i8 or i32", __LINE__);
	expect_asm_error(".uop 0 0\n", VTA_EINVAL, ".uop needs three indices", __LINE__);
	expect_asm_error(".insn 0x1\n", VTA_EINVAL, ".insn needs two 64-bit words", __LINE__);
	expect_asm_error(".frob\n", VTA_EINVAL, "unknown directive \".frob\"", __LINE__);
}

/* Disassembly of any 128-bit word assembles back to the same word. */
static void disasm_round_trip(void)
{
	uint64_t s = 5;
	vta_program_t p;
	memset(&p, 0, sizeof p);
	p.config_id = VTA_CONFIG_ID;
	enum { N = 3000 };
	int n_canonical = 0; /* words that must print as mnemonics */
	p.insns = calloc(N, sizeof *p.insns);
	p.n_insns = p.cap_insns = N;
	for (int i = 0; i < N; i++) {
		if (i % 3 == 0) { /* arbitrary bits */
			p.insns[i].w[0] = test_rand(&s);
			p.insns[i].w[1] = test_rand(&s);
		} else { /* canonical: decode then encode a random word */
			vta_insn_word_t w = {{test_rand(&s), test_rand(&s)}};
			vta_insn_t in;
			vta_insn_decode(&w, &in);
			if (in.opcode == VTA_OPCODE_ALU && !in.use_imm)
				in.imm = 0;
			n_canonical += in.opcode <= VTA_OPCODE_ALU;
			CHECK_EQ(vta_insn_encode(&in, &p.insns[i], NULL), VTA_OK);
		}
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK_EQ(vta_disasm(&p, f), VTA_OK);
	fclose(f);
	vta_program_t q;
	vta_error_t err;
	CHECK_EQ(assemble(text, &q, &err), VTA_OK);
	if (test_failed_)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_EQ(q.n_insns, N);
	int canonical_lines = 0;
	for (int i = 0; i < N && i < (int)q.n_insns; i++) {
		CHECK_U64(q.insns[i].w[0], p.insns[i].w[0]);
		CHECK_U64(q.insns[i].w[1], p.insns[i].w[1]);
	}
	for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		canonical_lines += strncmp(l, ".insn", 5) != 0 && *l != '#';
	CHECK(canonical_lines >= n_canonical);
	CHECK(n_canonical > N / 3);
	free(text);
	vta_program_free(&p);
	vta_program_free(&q);
}

static char *tmp_path(const char *name)
{
	static char path[256];
	snprintf(path, sizeof path, "/tmp/vta-test-%d-%s", (int)getpid(), name);
	return path;
}

static void file_round_trip(void)
{
	const char *text = ".text 0x100\n.base inp 0x4000\n"
			   "load inp sram=0 dram=0 y=1 x=1 stride=1\nfinish\n"
			   ".org 0x4000\n.byte -1 2 3\n.i32 -5\n.uop 1 2 3\n.zero 3\n"
			   ".print R 0x4000 i8 1 3\n";
	vta_program_t p, q;
	vta_error_t err;
	CHECK_EQ(assemble(text, &p, &err), VTA_OK);
	CHECK_EQ(p.n_segs, 1);
	CHECK_EQ(p.segs[0].len, 3 + 4 + 4 + 3);
	CHECK_EQ(p.segs[0].bytes[0], 0xFF);
	CHECK_EQ(p.segs[0].bytes[3], 0xFB); /* -5 little-endian */
	CHECK_EQ(p.segs[0].bytes[6], 0xFF);
	const char *path = tmp_path("img.bin");
	CHECK_EQ(vta_program_write(&p, path, &err), VTA_OK);
	CHECK_EQ(vta_program_read(path, &q, &err), VTA_OK);
	CHECK_EQ(q.n_insns, 2);
	CHECK_U64(q.insns[1].w[0], 3);
	CHECK_EQ(q.text_addr, 0x100);
	CHECK_EQ(q.bases.inp, 0x4000);
	CHECK_EQ(q.n_segs, 1);
	CHECK(q.n_segs == 1 && q.segs[0].len == p.segs[0].len &&
	      !memcmp(q.segs[0].bytes, p.segs[0].bytes, p.segs[0].len));
	CHECK_EQ(q.n_prints, 1);
	CHECK(q.n_prints == 1 && !strcmp(q.prints[0].name, "R") && q.prints[0].cols == 3);

	/* Every truncation of the image is refused with a message. */
	FILE *f = fopen(path, "rb");
	uint8_t buf[1024];
	size_t len = fread(buf, 1, sizeof buf, f);
	fclose(f);
	for (size_t cut = 8; cut < len; cut++) {
		vta_program_t r;
		int rc = vta_program_parse(buf, cut, "img", &r, &err);
		if (rc == VTA_OK) {
			test_fail_(__FILE__, __LINE__, "a %zu-byte prefix of %zu parsed", cut, len);
			vta_program_free(&r);
			break;
		}
	}
	/* Another configuration's image is refused, naming both. */
	buf[8] ^= 0xFF;
	vta_program_t other;
	CHECK_EQ(vta_program_parse(buf, len, "img", &other, &err), VTA_EUNSUPPORTED);
	CHECK_STR_CONTAINS(err.msg, "was assembled for configuration id");
	CHECK_STR_CONTAINS(err.msg, VTA_CONFIG_NAME);
	vta_program_free(&q);

	/* A program of only instructions at 0 is written as a raw stream. */
	vta_program_t raw;
	CHECK_EQ(assemble("finish\n", &raw, &err), VTA_OK);
	CHECK_EQ(vta_program_write(&raw, path, &err), VTA_OK);
	f = fopen(path, "rb");
	len = fread(buf, 1, sizeof buf, f);
	fclose(f);
	CHECK_EQ(len, 16);
	CHECK_EQ(buf[0], 3);
	vta_program_free(&raw);
	CHECK_EQ(vta_program_parse(buf, 15, "odd", &raw, &err), VTA_EINVAL);
	CHECK_STR_CONTAINS(err.msg, "not a multiple of 16");
	CHECK_EQ(vta_program_read("/nonexistent/x.bin", &raw, &err), VTA_EIO);
	CHECK_STR_CONTAINS(err.msg, "/nonexistent/x.bin");
	remove(path);
	vta_program_free(&p);
}

/* A program image written field by field (the layout of isa/asm.c). */
typedef struct {
	uint8_t b[512];
	size_t n;
} Img;

static void img_put(Img *m, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		m->b[m->n++] = (uint8_t)(v >> (8 * i));
}

/* One FINISH at text, dram, base out, one segment of seg_len bytes at seg_addr
 * (none if seg_len is 0), one i32 print of rows x cols at print_addr (none
 * if rows is 0). */
static Img image(uint64_t text, uint64_t dram, uint64_t base_out, uint64_t seg_addr, uint64_t seg_len,
		 uint64_t print_addr, uint32_t rows, uint32_t cols)
{
	Img m = {.n = 0};
	memcpy(m.b, "VTAPROG1", 8);
	m.n = 8;
	img_put(&m, VTA_CONFIG_ID, 4);
	img_put(&m, 1, 4);
	img_put(&m, text, 8);
	img_put(&m, dram, 8);
	for (int i = 0; i < 4; i++)
		img_put(&m, 0, 8);
	img_put(&m, base_out, 8);
	img_put(&m, seg_len ? 1 : 0, 4);
	img_put(&m, rows ? 1 : 0, 4);
	if (seg_len) {
		img_put(&m, seg_addr, 8);
		img_put(&m, seg_len, 8);
		for (uint64_t i = 0; i < seg_len; i++)
			m.b[m.n++] = (uint8_t)i;
	}
	if (rows) {
		memset(m.b + m.n, 0, 32);
		m.b[m.n] = 'P';
		m.n += 32;
		img_put(&m, print_addr, 8);
		img_put(&m, VTA_PRINT_I32, 4);
		img_put(&m, rows, 4);
		img_put(&m, cols, 4);
	}
	m.b[m.n++] = VTA_OPCODE_FINISH;
	memset(m.b + m.n, 0, 15);
	m.n += 15;
	return m;
}

static void expect_image_error(Img m, int code, const char *msg, int line)
{
	vta_program_t p;
	vta_error_t err = {0};
	int rc = vta_program_parse(m.b, m.n, "img", &p, &err);
	if (rc == VTA_OK) {
		test_fail_(__FILE__, line, "the image was read");
		vta_program_free(&p);
	} else if (rc != code || !strstr(err.msg, msg)) {
		test_fail_(__FILE__, line, "got %d \"%s\", expected %d \"%s\"", rc, err.msg, code, msg);
	}
}

/*
 * Issue 9: every piece of a program lies inside at most VTA_PROGRAM_MAX_DRAM
 * (4 GiB), computed without overflow, in the assembler and the reader alike,
 * so `vta sim` never writes outside the DRAM it allocates nor allocates
 * without bound, and every accepted value (.base included) round-trips.
 */
static void dram_bounds(void)
{
	Img ok = image(0x100, 0, 0x2000, 0x1000, 16, 0x3000, 2, 2);
	vta_program_t p;
	vta_error_t err = {0};
	CHECK_EQ(vta_program_parse(ok.b, ok.n, "img", &p, &err), VTA_OK);
	CHECK_EQ(vta_program_extent(&p), 0x3000 + 16);
	uint8_t *dram = calloc(1, 0x3010);
	CHECK_EQ(vta_program_place(&p, dram, 0x3010, &err), VTA_OK);
	CHECK_EQ(dram[0x100], VTA_OPCODE_FINISH);
	CHECK_EQ(dram[0x1000 + 15], 15);
	CHECK_EQ(vta_program_place(&p, dram, 0x300F, &err), VTA_ERANGE);
	CHECK_STR_CONTAINS(err.msg, "needs 12304 bytes of DRAM, more than 12303");
	free(dram);
	vta_program_free(&p);

	uint64_t top = UINT64_MAX - 15;
	expect_image_error(image(0, 0, 0, top, 32, 0, 0, 0), VTA_ERANGE,
			   "img: data segment 0 (32 bytes at 0xFFFFFFFFFFFFFFF0) does not fit in the "
			   "4294967296 bytes a program may claim", __LINE__);
	expect_image_error(image(top, 0, 0, 0, 0, 0, 0, 0), VTA_ERANGE,
			   "the 1 instructions at 0xFFFFFFFFFFFFFFF0 do not fit", __LINE__);
	expect_image_error(image(0, 0, 0, 0, 0, UINT64_MAX - 7, 4, 4), VTA_ERANGE,
			   "result region P (4 x 4 at 0xFFFFFFFFFFFFFFF8) does not fit", __LINE__);
	expect_image_error(image(0, 1ull << 40, 0, 0, 0, 0, 0, 0), VTA_ERANGE,
			   ".dram 1099511627776 is more than the 4294967296 bytes", __LINE__);
	expect_image_error(image(0, 0x1000, 0, 0xFF0, 32, 0, 0, 0), VTA_ERANGE,
			   "does not fit in the 4096 bytes of .dram", __LINE__);
	expect_image_error(image(0, 0, (1ull << 63) + 16, 0, 0, 0, 0, 0), VTA_ERANGE,
			   ".base out 0x8000000000000010 lies beyond the 4294967296 bytes", __LINE__);
}

static void dram_bounds_asm(void)
{
	expect_asm_error(".dram 0x100000001\n", VTA_ERANGE, ".dram = 0x100000001 is out of range", __LINE__);
	expect_asm_error(".base out 0x8000000000000010\n", VTA_ERANGE, "is out of range", __LINE__);
	expect_asm_error(".org 0xFFFFFFF0\n.zero 32\n", VTA_ERANGE,
			 "data segment 0 (32 bytes at 0xFFFFFFF0) does not fit in the 4294967296 bytes",
			 __LINE__);
	expect_asm_error(".print P 0xFFFFFFF0 i32 4 4\n", VTA_ERANGE, "result region P", __LINE__);
	expect_asm_error(".print P# 0x0 i8 1 1\n", VTA_EINVAL, "needs NAME ADDR", __LINE__);
	/* The largest base assembles, disassembles and assembles back. */
	vta_program_t p, q;
	vta_error_t err = {0};
	CHECK_EQ(assemble(".base out 0x100000000\nfinish\n", &p, &err), VTA_OK);
	CHECK_U64(p.bases.out, VTA_PROGRAM_MAX_DRAM);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK_EQ(vta_disasm(&p, f), VTA_OK);
	fclose(f);
	CHECK_EQ(assemble(text, &q, &err), VTA_OK);
	CHECK_U64(q.bases.out, VTA_PROGRAM_MAX_DRAM);
	free(text);
	vta_program_free(&p);
	vta_program_free(&q);
}

/* examples/gemm.s on the golden model equals a plain C computation of
 * clip((X . W^T) >> 2) from the data in the program itself. */
static void demo_program(void)
{
#if VTA_BATCH == 1 && VTA_BLOCK_IN == 16
	char path[512];
	snprintf(path, sizeof path, "%s/examples/gemm.s", test_root());
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	static char text[65536];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = 0;
	vta_program_t p;
	vta_error_t err;
	CHECK_EQ(vta_asm(text, path, &p, &err), VTA_OK);
	vta_fsim_t *sim = vta_fsim_create(1 << 20, &err);
	uint8_t *dram = vta_fsim_dram(sim);
	for (size_t i = 0; i < p.n_segs; i++)
		memcpy(dram + p.segs[i].addr, p.segs[i].bytes, p.segs[i].len);
	for (size_t i = 0; i < p.n_insns; i++)
		vta_insn_store(&p.insns[i], dram + p.text_addr + 16 * i);
	CHECK_EQ(vta_fsim_run(sim, p.text_addr, (uint32_t)p.n_insns, &err), VTA_OK);
	const int8_t *X = (const int8_t *)dram + 0x2000, *W = (const int8_t *)dram + 0x3000;
	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 16; c++) {
			int sum = 0;
			for (int k = 0; k < 16; k++)
				sum += X[r * 16 + k] * W[c * 16 + k];
			int v = sum >> 2;
			v = v < -128 ? -128 : v > 127 ? 127 : v;
			CHECK_EQ((int8_t)dram[0x4000 + r * 16 + c], v);
		}
	vta_fsim_destroy(sim);
	vta_program_free(&p);
#endif
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"spec_examples", spec_examples},
		{"syntax_errors", syntax_errors},
		{"disasm_round_trip", disasm_round_trip},
		{"file_round_trip", file_round_trip},
		{"dram_bounds", dram_bounds},
		{"dram_bounds_asm", dram_bounds_asm},
		{"demo_program", demo_program},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
