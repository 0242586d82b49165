/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel and stream verifiers: MNIST compiled to the kernel level (after
 * tokens) and to the stream level (after emit) verifies (every kernel check
 * has its failing IR file, tests/compiler/passes/verify-*.ir, run by
 * test_passes); the stream checks on the emitted 1x1 convolution of
 * tests/compiler/passes/emit.ir with its encoded image changed; a
 * deliberately broken pass is caught after it runs, with its name.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "cli/cli.h"
#include "import/import.h"
#include "ir/kernel.h"
#include "pass/pass.h"
#include "pipeline/pipeline.h"

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

/* The test modules of tests/compiler/passes are for the default configuration
 * (their headers carry its ID; ultra96 has the same shapes but another ID). */
static int default_config(void)
{
	return VTA_CONFIG_ID == 0xB2575CCDu;
}

/* A module of tests/compiler/passes (its # comments are skipped). */
static vc_module *pass_file(const char *name)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/tests/compiler/passes/%s", test_root(), name);
	size_t len;
	char err[256];
	uint8_t *text = vc_read_all(path, &len, err, sizeof err);
	CHECK(text != NULL);
	if (!text)
		return NULL;
	vc_module *m = vc_module_new();
	int rc = vc_parse_module(m, path, (const char *)text, len);
	if (rc)
		printf("%s: %s\n", path, m->diag.msg);
	CHECK_EQ(rc, 0);
	free(text);
	return m;
}

/* MNIST verifies at the kernel and the stream level (every check of each
 * has a failing IR file in tests/compiler/passes/verify-*.ir). */
static void mnist_verifies(void)
{
	char *k = mnist_text(KERNEL_PIPELINE), *s = mnist_text(NULL);
	if (k && s) {
		vc_module *a = parse(k), *b = parse(s);
		CHECK_EQ(vc_verify(a), 0);
		CHECK_EQ(vc_verify(b), 0);
		CHECK(b->stream != NULL);
		vc_module_free(a);
		vc_module_free(b);
	}
	free(k);
	free(s);
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
	in->sram_base = 2040;
}

static void no_push(vta_insn_t *in)
{
	in->push_next = 0;
}

/* The 1x1 convolution of tests/compiler/passes/emit.ir after emit, with
 * one encoded instruction of kernel @k0 changed (or its placement). Its
 * instructions: 0 load uop, 1 gemm reset, 2 load inp, 3 load wgt push_next,
 * 4 load uop, 5 gemm pop_prev, ...; the image is 1536 bytes, the
 * instructions at 1280. */
static void stream_refuse(int insn, void (*change)(vta_insn_t *), int64_t insn_off, const char *needle)
{
	vc_module *m = pass_file("emit.ir");
	if (!m)
		return;
	char err[256];
	vc_pm *pm = vc_pm_parse("stream(emit)", err, sizeof err);
	CHECK_EQ(vc_pm_run(pm, m, NULL), 0);
	vc_pm_free(pm);
	CHECK_EQ(vc_verify(m), 0);
	CHECK(m->stream != NULL);
	if (!m->stream) {
		vc_module_free(m);
		return;
	}
	if (change)
		set_insn(m, insn, change);
	if (insn_off >= 0)
		m->kernels[0]->insn_off = insn_off;
	int rc = vc_verify(m);
	if (rc != -1 || !strstr(m->diag.msg, needle))
		printf("insn %d: %s\n", insn, rc ? m->diag.msg : "verified");
	CHECK_EQ(rc, -1);
	CHECK_STR_CONTAINS(m->diag.msg, needle);
	vc_module_free(m);
}

static void stream_checks(void)
{
	if (!default_config())
		return;
	/* 0x3fffff input elements of 16 bytes: far past the 1536-byte image */
	stream_refuse(2, far_dram, -1, "stream: kernel @k0 insn 2 (load): DRAM bytes 67108848..67109103 are not inside one segment of the 1536-byte image");
	stream_refuse(2, high_sram, -1, "stream: kernel @k0 insn 2 (load): inp SRAM rows 2040..2055 are past the end of the buffer (2048 rows)");
	stream_refuse(3, no_push, -1, "stream: kernel @k0 insn 5 (gemm): waits for a load->compute token");
	stream_refuse(0, NULL, 1536 - 16, "stream: kernel @k0: 15 instructions at 1520 are not inside one segment of the 1536-byte image");
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
	if (!default_config())
		return;
	vc_module *m = pass_file("tokens.ir"); /* lowered: the GEMM is insn 5, micro-ops 1..4 loaded */
	if (!m)
		return;
	char err[512];
	vc_pm *pm = vc_pm_parse("kernel(tokens)", err, sizeof err);
	CHECK(pm != NULL);
	CHECK_EQ(vc_pm_append(pm, &broken, err, sizeof err), 0);
	vc_instr in = {.verify_each = 1};
	CHECK_EQ(vc_pm_run(pm, m, &in), -1);
	CHECK_STR_CONTAINS(m->diag.msg, "verifier failed after pass break-gemm: node %5 (vta.conv 'conv'): "
					"kernel @k0 insn 5 (gemm): uses micro-op slot 5, which no earlier LOAD uop filled");
	vc_pm_free(pm);
	vc_module_free(m);
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"mnist_verifies", mnist_verifies},
		{"stream_checks", stream_checks},
		{"broken_pass", broken_pass},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
