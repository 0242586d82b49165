/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel and stream verifiers: MNIST compiled to the kernel level (after
 * tokens) and to the stream level (after emit) verifies; then, for every
 * check, the printed IR with one instruction changed so that it violates
 * that check (or, at the stream level, the encoded image changed) must be
 * refused with the kernel, the instruction and what is wrong. A
 * deliberately broken pass is caught after it runs, with its name.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "cli/cli.h"
#include "import/import.h"
#include "ir/kernel.h"
#include "pass/pass.h"

static char *print_full(const vc_module *m)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	vc_print_module(f, m, 0);
	fclose(f);
	return buf;
}

/* MNIST through `pipeline`, as text. */
static char *mnist_text(const char *pipeline)
{
	char model[1024], images[1024], err[1024];
	snprintf(model, sizeof model, "%s/../shared/models/mnist-8.onnx", test_root());
	snprintf(images, sizeof images, "%s/../shared/data/mnist-10k-images-idx3-ubyte", test_root());
	vc_module *m = vc_module_new();
	CHECK_EQ(vc_import_file(m, model), 0);
	vc_compile_opts co = {.pipeline = pipeline, .calib_path = images, .calib_count = 20, .instr = {.verify_each = 1}};
	int rc = vc_compile(m, &co, err, sizeof err);
	if (rc)
		printf("%s\n", err);
	CHECK_EQ(rc, 0);
	char *text = rc ? NULL : print_full(m);
	vc_module_free(m);
	return text;
}

#define KERNEL_PIPELINE                                                                                      \
	"module(graph(canonicalize,fold-bn,fold-const,quantize,partition,fuse,pack),kernel(tile,lower,tokens))"

static vc_module *parse(const char *text)
{
	vc_module *m = vc_module_new();
	int rc = vc_parse_module(m, "mutated.ir", text, strlen(text));
	if (rc)
		printf("parse: %s\n", m->diag.msg);
	CHECK_EQ(rc, 0);
	return m;
}

/* text with the first `from` after `anchor` replaced by `to`. */
static char *replace(const char *text, const char *anchor, const char *from, const char *to)
{
	const char *a = strstr(text, anchor);
	const char *p = a ? strstr(a, from) : NULL;
	if (!p) {
		printf("'%s' not found after '%s'\n", from, anchor);
		CHECK(0);
		return NULL;
	}
	size_t n = strlen(text), lf = strlen(from), lt = strlen(to);
	char *out = malloc(n - lf + lt + 1);
	memcpy(out, text, (size_t)(p - text));
	memcpy(out + (p - text), to, lt);
	memcpy(out + (p - text) + lt, p + lf, n - (size_t)(p - text) - lf + 1);
	return out;
}

/* The kernel-level IR with `from` (inside kernel @k0) replaced by `to` must
 * fail verification with a message containing `needle`. */
static void refuse(const char *text, const char *from, const char *to, const char *needle)
{
	char *bad = replace(text, "kernel @k0 ", from, to);
	if (!bad)
		return;
	vc_module *m = parse(bad);
	int rc = vc_verify(m);
	if (rc != -1)
		printf("'%s' -> '%s' verified, expected '%s'\n", from, to, needle);
	CHECK_EQ(rc, -1);
	if (rc == -1 && !strstr(m->diag.msg, needle))
		printf("'%s' -> '%s': %s\n", from, to, m->diag.msg);
	CHECK_STR_CONTAINS(m->diag.msg, needle);
	vc_module_free(m);
	free(bad);
}

/* The instruction text below is that of the default configuration. */
static int default_config(void)
{
	return !strcmp(VTA_CONFIG_NAME, "1x16_i8w8a32_15_15_18_17");
}

/* The kernel @k0 of MNIST (a 5x5 conv, 28x28 output; vta configuration):
 *   0 load uop, 1 gemm reset, 2 load inp, 3 load wgt push_next, 4 load uop,
 *   5 gemm pop_prev, 6 load acc (bias), 7 load uop, 8 alu add (bias),
 *   9 alu add, 10 alu shr, 11 alu max 0, 12 alu min 127 push_next,
 *   13 store pop_prev push_prev, 14 finish pop_next */
static void kernel_checks(void)
{
	char *text = mnist_text(KERNEL_PIPELINE);
	if (!text)
		return;
	vc_module *ok = parse(text);
	CHECK_EQ(vc_verify(ok), 0);
	vc_module_free(ok);
	if (!default_config()) {
		free(text);
		return;
	}
	/* GEMM and ALU indices for every micro-op and iteration */
	/* slot 1 holds micro-op (0,0,0): dst = 80 o + 4 q first reaches 2048 at o = 26, q = 0 */
	refuse(text, "gemm uop=1,101 iter=28,7 dst=28,4", "gemm uop=1,101 iter=28,7 dst=80,4",
	       "kernel @k0 insn 5 (gemm): acc (dst) index 2080 at micro-op 1 iteration (26,0) is past the end of the "
	       "buffer (2048 rows)");
	refuse(text, "src=32,4 wgt=0,0", "src=80,4 wgt=0,0", "kernel @k0 insn 5 (gemm): inp (src) index");
	refuse(text, "src=32,4 wgt=0,0", "src=32,4 wgt=40,0", "kernel @k0 insn 5 (gemm): wgt index");
	refuse(text, "iter=1,784 dst=784,1 src=1,0", "iter=1,784 dst=784,1 src=1,2",
	       "kernel @k0 insn 8 (alu add): acc (src) index");
	/* micro-op ranges */
	refuse(text, "gemm uop=1,101", "gemm uop=1,102", "kernel @k0 insn 5 (gemm): uses micro-op slot 101, which no earlier LOAD uop filled");
	refuse(text, "gemm uop=1,101", "gemm uop=7,7", "kernel @k0 insn 5 (gemm): micro-op range 7..7 is not inside");
	refuse(text, "load uop sram=1 dram=0x1 ", "load uop sram=1 dram=0x10 ",
	       "kernel @k0 insn 4 (load): micro-ops 16..115 are outside the kernel's 102");
	/* DMA: SRAM and DRAM ranges */
	refuse(text, "load inp sram=0 ", "load inp sram=1100 ",
	       "kernel @k0 insn 2 (load): inp SRAM rows 1100..2123 are past the end of the buffer (2048 rows)");
	refuse(text, "load inp sram=0 dram=0x0 ", "load inp sram=0 dram=0x10 ",
	       "kernel @k0 insn 2 (load): DRAM elements 16..799 are past the end of operand inp");
	refuse(text, "store out sram=0 dram=0x0 y=1 x=784", "store out sram=0 dram=0x0 y=1 x=785",
	       "kernel @k0 insn 13 (store): DRAM elements 0..784 are past the end of operand out");
	/* stores only after the requantize clip */
	refuse(text, "alu min uop=0,1 iter=28,28 dst=28,1 src=28,1 imm=127",
	       "alu min uop=0,1 iter=28,28 dst=28,1 src=28,1 imm=300",
	       "kernel @k0 insn 13 (store): stores ACC row 0 before it is clipped to 8 bits (it may hold [0,300])");
	refuse(text, "alu max uop=0,1 iter=28,28 dst=28,1 src=28,1 imm=0", "alu max uop=0,1 iter=28,28 dst=28,1 src=28,1 imm=-200",
	       "(it may hold [-200,127])");
	/* tokens */
	refuse(text, "stride=25 push_next", "stride=25", "kernel @k0 insn 5 (gemm): waits for a load->compute token that no "
	       "instruction pushes (deadlock)");
	refuse(text, "wgt=0,0 pop_prev", "wgt=0,0", "the kernel ends with 1 load->compute token pushed and never popped");
	refuse(text, "stride=25 push_next", "stride=25 push_prev",
	       "kernel @k0 insn 3 (load): a load-module instruction cannot use the push_prev queue");
	/* FINISH */
	refuse(text, "gemm reset uop=0,1 iter=28,28 dst=28,1 src=0,0 wgt=0,0", "finish",
	       "kernel @k0 insn 1 (finish): FINISH before the end of the kernel");
	refuse(text, "} finish pop_next", "} alu min uop=0,1 iter=1,1 dst=0,0 src=0,0 imm=1 pop_next",
	       "kernel @k0 insn 14 (alu min): the kernel does not end with FINISH");
	free(text);
}

/* Stream level: the encoded instructions of kernel @k0 changed in the image. */
static void set_insn(vc_module *m, int i, void (*change)(vta_insn_t *))
{
	vc_kernel *k = m->kernels[0];
	uint8_t *p = m->stream->image + k->insn_off + 16 * i;
	vta_insn_word_t w;
	vta_insn_t in;
	vta_error_t err;
	vta_insn_load(p, &w);
	vta_insn_decode(&w, &in);
	change(&in);
	CHECK_EQ(vta_insn_encode(&in, &w, &err), 0);
	vta_insn_store(&w, p);
}

static void far_dram(vta_insn_t *in)
{
	in->dram_base = 0x3fffff;
}

static void high_sram(vta_insn_t *in)
{
	in->sram_base = 1100;
}

static void no_push(vta_insn_t *in)
{
	in->push_next = 0;
}

static void stream_refuse(const char *text, int insn, void (*change)(vta_insn_t *), int64_t insn_off,
			  const char *needle)
{
	vc_module *m = parse(text);
	CHECK(m->stream != NULL);
	if (!m->stream)
		return;
	if (change)
		set_insn(m, insn, change);
	if (insn_off >= 0)
		m->kernels[0]->insn_off = insn_off;
	int rc = vc_verify(m);
	if (rc == -1 && !strstr(m->diag.msg, needle))
		printf("%s\n", m->diag.msg);
	CHECK_EQ(rc, -1);
	CHECK_STR_CONTAINS(m->diag.msg, needle);
	vc_module_free(m);
}

static void stream_checks(void)
{
	char *text = mnist_text(NULL);
	if (!text)
		return;
	vc_module *ok = parse(text);
	CHECK_EQ(vc_verify(ok), 0);
	int64_t size = ok->stream->size;
	vc_module_free(ok);
	if (!default_config()) {
		free(text);
		return;
	}
	stream_refuse(text, 2, far_dram, -1, "stream: kernel @k0 insn 2 (load): DRAM bytes");
	stream_refuse(text, 2, high_sram, -1, "stream: kernel @k0 insn 2 (load): inp SRAM rows 1100..2123 are past the end");
	stream_refuse(text, 3, no_push, -1, "stream: kernel @k0 insn 5 (gemm): waits for a load->compute token");
	stream_refuse(text, 0, NULL, size - 16, "stream: kernel @k0: 15 instructions at");
	free(text);
}

/* A kernel pass that points a GEMM at micro-ops nobody loaded. */
static int break_gemm(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)p;
	(void)m;
	for (int i = 0; i < u->kernel->n; i++)
		if (u->kernel->code[i].insn.opcode == VTA_OPCODE_GEMM && !u->kernel->code[i].insn.reset) {
			u->kernel->code[i].insn.uop_end += 200;
			break;
		}
	return 0;
}

static const vc_pass_desc broken = {
	.name = "break-gemm",
	.summary = "test: a GEMM past its micro-ops",
	.anchor = VC_ANCHOR_KERNEL,
	.run = break_gemm,
};

static void broken_pass(void)
{
	char *text = mnist_text(KERNEL_PIPELINE);
	if (!text)
		return;
	if (!default_config()) {
		free(text);
		return;
	}
	vc_module *m = parse(text);
	char err[512];
	vc_pm *pm = vc_pm_parse("kernel(tokens)", err, sizeof err);
	CHECK(pm != NULL);
	CHECK_EQ(vc_pm_append(pm, &broken, err, sizeof err), 0);
	vc_instr in = {.verify_each = 1};
	CHECK_EQ(vc_pm_run(pm, m, &in), -1);
	CHECK_STR_CONTAINS(m->diag.msg, "verifier failed after pass break-gemm: node %");
	CHECK_STR_CONTAINS(m->diag.msg, "kernel @k0 insn 5 (gemm): uses micro-op slot 101, which no earlier LOAD uop filled");
	vc_pm_free(pm);
	vc_module_free(m);
	free(text);
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"kernel_checks", kernel_checks},
		{"stream_checks", stream_checks},
		{"broken_pass", broken_pass},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
