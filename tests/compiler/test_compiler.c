/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compiler's infrastructure and passes on tiny modules built in a line
 * or two: the typed builder, the verifier, pipeline text, requirements,
 * instruments, each graph pass, the artifact, and MNIST on a few hundred
 * digits on the golden model.
 */
#include <math.h>
#include <unistd.h>

#include <vta/runtime.h>
#include <vta/vtam.h>

#include "test.h"
#include "cli/cli.h"
#include "import/import.h"

/* ---- fixtures ------------------------------------------------------ */

static uint64_t seed = 1;

static float frand(void)
{
	return (float)((double)(test_rand(&seed) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static vc_node *rconst(vc_module *m, int rank, const int64_t *d)
{
	vc_node *c = vc_const(m, NULL, VC_F32, rank, d, NULL);
	for (int64_t i = 0; c && i < vc_type_elems(&c->type); i++)
		((float *)c->data)[i] = frand();
	return c;
}

/* Calibration samples like the tests' inputs: 4 of uniform [-1, 1]. */
static void calib_frand(vc_module *m)
{
	vc_samples *cs = &m->calib;
	int64_t e = vc_type_elems(&m->g->inputs[0]->type);
	cs->data = vc_alloc(m, (size_t)(4 * e) * sizeof *cs->data);
	uint64_t st = 1234; /* its own sequence: every module of a test gets the same samples */
	for (int64_t i = 0; cs->data && i < 4 * e; i++)
		cs->data[i] = (float)((double)(test_rand(&st) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
	cs->count = cs->data ? 4 : 0;
	cs->elems = e;
}

/* x[1,C,H,W] -> conv(O,k,pad) [-> relu]: the "single conv graph". */
static vc_module *single_conv(int C, int H, int W, int O, int k, int pad, int stride, int relu)
{
	vc_module *m = vc_module_new();
	int64_t xd[4] = {1, C, H, W}, wd[4] = {O, C, k, k}, bd[1] = {O};
	vc_node *args[3] = {vc_input(m, "x", VC_F32, 4, xd), rconst(m, 4, wd), rconst(m, 1, bd)};
	vc_attrs a;
	vc_attrs_init(&a);
	for (int i = 0; i < 4; i++)
		a.pad[i] = pad;
	a.stride[0] = a.stride[1] = stride;
	vc_node *y = vc_build(m, VC_OP_CONV, args, 3, &a, "conv0");
	if (relu)
		y = vc_build(m, VC_OP_RELU, &y, 1, NULL, "relu0");
	m->g->outputs[m->g->n_outputs++] = y;
	m->props |= VC_PROP_IMPORTED; /* built here instead of imported */
	calib_frand(m);
	return m;
}

static int run_pipeline(vc_module *m, const char *text)
{
	char err[512];
	vc_pm *pm = vc_pm_parse(text, err, sizeof err);
	if (!pm) {
		printf("parse: %s\n", err);
		return -1;
	}
	vc_instr in = {.verify_each = 1};
	m->props |= VC_PROP_IMPORTED;
	if (!m->calib.count) /* modules built here: inputs like the tests', uniform [-1, 1] */
		calib_frand(m);
	int rc = vc_pm_run(pm, m, &in);
	if (rc)
		printf("run: %s\n", m->diag.msg);
	vc_pm_free(pm);
	return rc;
}

static int count_op(vc_module *m, vc_op op)
{
	int n = 0;
	for (int i = 0; i < m->g->n; i++)
		n += m->g->nodes[i]->op == op;
	return n;
}

/* ---- IR ------------------------------------------------------------ */

static void builder_types(void)
{
	vc_module *m = single_conv(3, 8, 8, 5, 3, 1, 1, 1);
	vc_node *y = m->g->outputs[0];
	CHECK_EQ(y->type.rank, 4);
	CHECK_EQ(y->type.dim[1], 5);
	CHECK_EQ(y->type.dim[2], 8);
	CHECK_EQ(vc_verify(m), 0);
	/* ill-typed: channels disagree -> refused with node and op named */
	int64_t wd[4] = {4, 2, 3, 3};
	vc_node *args[2] = {m->g->inputs[0], rconst(m, 4, wd)};
	CHECK(vc_build(m, VC_OP_CONV, args, 2, NULL, "bad_conv") == NULL);
	CHECK_STR_CONTAINS(m->diag.msg, "conv 'bad_conv'");
	CHECK_STR_CONTAINS(m->diag.msg, "input channels");
	vc_module_free(m);
}

/* Attributes and shapes come from files: the builder refuses values whose
 * shape arithmetic would overflow, and every type stays within the bounds of
 * vc_type_check (issue 9: the .vtam fuzz target found signed overflows in
 * pooling and reshape inference). */
static void builder_limits(void)
{
	vc_module *m = vc_module_new();
	int64_t xd[4] = {1, 2, 8, 8};
	vc_node *x = vc_input(m, "x", VC_F32, 4, xd);
	CHECK(x != NULL);
	vc_attrs a;
	vc_attrs_init(&a);
	a.kernel[0] = a.kernel[1] = 2;
	a.stride[0] = a.stride[1] = 1;
	a.dilation[0] = INT64_C(1) << 56; /* d * (k - 1) overflowed */
	CHECK(vc_build(m, VC_OP_MAXPOOL, &x, 1, &a, "pool") == NULL);
	CHECK_STR_CONTAINS(m->diag.msg, "pooling window larger than padded input");
	a.dilation[0] = 1;
	m->diag.count = 0;
	a.pad[0] = INT64_MAX; /* in + p0 + p1 overflowed */
	CHECK(vc_build(m, VC_OP_MAXPOOL, &x, 1, &a, "pool2") == NULL);
	vc_attrs_init(&a);
	m->diag.count = 0;
	a.nshape = 3;
	a.shape[0] = INT64_C(1) << 40;
	a.shape[1] = INT64_C(1) << 40; /* known *= d overflowed */
	a.shape[2] = -1;
	CHECK(vc_build(m, VC_OP_RESHAPE, &x, 1, &a, "r") == NULL);
	CHECK_STR_CONTAINS(m->diag.msg, "reshape dimension 0");
	/* A declared tensor beyond the bounds is refused when built. */
	m->diag.count = 0;
	int64_t big[3] = {VC_MAX_DIM, VC_MAX_DIM, 4};
	CHECK(vc_input(m, "huge", VC_F32, 3, big) == NULL);
	CHECK_STR_CONTAINS(m->diag.msg, "beyond the compiler's limits");
	int64_t neg[1] = {-1};
	CHECK(vc_const(m, "neg", VC_F32, 1, neg, NULL) == NULL);
	vc_module_free(m);
}

static void verifier_catches(void)
{
	vc_module *m = single_conv(3, 8, 8, 5, 3, 1, 1, 0);
	vc_node *y = m->g->outputs[0];
	y->type.dim[1] = 6; /* a pass that forgot the type */
	CHECK(vc_verify(m) != 0);
	CHECK_STR_CONTAINS(m->diag.msg, "differs from the inferred");
	y->type.dim[1] = 5;
	m->diag.count = 0;
	/* order broken: move the conv before its input */
	vc_node *t = m->g->nodes[0];
	m->g->nodes[0] = m->g->nodes[m->g->n - 1];
	m->g->nodes[m->g->n - 1] = t;
	CHECK(vc_verify(m) != 0);
	CHECK_STR_CONTAINS(m->diag.msg, "not defined before its use");
	vc_module_free(m);
}

/* ---- pass manager -------------------------------------------------- */

static void pipeline_roundtrip(void)
{
	char err[512], a[2048], b[2048];
	const char *texts[] = {
		"vta-default",
		"canonicalize, fold-bn ,quantize{calib=8,skip=conv0:7},partition{cpu=x},fuse,pack,tile,lower,tokens,emit",
		"module(graph(canonicalize),kernel(tile),stream(emit))",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		vc_pm *pm = vc_pm_parse(texts[i], err, sizeof err);
		CHECK(pm != NULL);
		if (!pm)
			continue;
		CHECK_EQ(vc_pm_print(pm, a, sizeof a), 0);
		vc_pm *pm2 = vc_pm_parse(a, err, sizeof err);
		CHECK(pm2 != NULL);
		if (pm2) {
			vc_pm_print(pm2, b, sizeof b);
			CHECK(!strcmp(a, b));
			vc_pm_free(pm2);
		}
		vc_pm_free(pm);
	}
	vc_pm *pm = vc_pm_parse("vta-default", err, sizeof err);
	vc_pm_print(pm, a, sizeof a);
	CHECK(!strcmp(a, vc_default_pipeline));
	vc_pm_free(pm);
	pm = vc_pm_parse("quantize{calib=8,skip=conv0:7}", err, sizeof err);
	vc_pm_print(pm, a, sizeof a);
	CHECK(!strcmp(a, "module(graph(quantize{calib=8,skip=conv0:7}))"));
	vc_pm_free(pm);
}

static void pipeline_errors(void)
{
	char err[512];
	CHECK(vc_pm_parse("canonicalize,frobnicate", err, sizeof err) == NULL);
	CHECK_STR_CONTAINS(err, "unknown pass 'frobnicate'");
	CHECK(vc_pm_parse("quantize{scale=8.0}", err, sizeof err) == NULL);
	CHECK_STR_CONTAINS(err, "pass quantize has no option 'scale'");
	CHECK(vc_pm_parse("quantize{calib=many}", err, sizeof err) == NULL);
	CHECK_STR_CONTAINS(err, "needs an integer");
	CHECK(vc_pm_parse("kernel(quantize)", err, sizeof err) == NULL);
	CHECK_STR_CONTAINS(err, "runs on graph units");
	CHECK(vc_pm_parse("graph(canonicalize", err, sizeof err) == NULL);
	/* requirements are checked before anything runs */
	vc_module *m = single_conv(3, 8, 8, 5, 3, 1, 1, 0);
	uint64_t h = vc_hash_module(m);
	CHECK(run_pipeline(m, "canonicalize,fold-bn,pack") != 0);
	CHECK_STR_CONTAINS(m->diag.msg, "pack requires property 'fused'");
	CHECK(vc_hash_module(m) == h); /* nothing ran */
	vc_module_free(m);
}

static void instruments(void)
{
	vc_module *m = single_conv(3, 8, 8, 5, 3, 1, 1, 1);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	vc_pm *pm = vc_pm_parse("vta-default", (char[256]){0}, 256);
	char repro[] = "/tmp/vc_repro_XXXXXX";
	int fd = mkstemp(repro);
	if (fd >= 0)
		close(fd);
	vc_instr in = {.verify_each = 1, .time_passes = 1, .stats = 1, .print_after = "quantize", .out = f};
	CHECK_EQ(vc_pm_run(pm, m, &in), 0);
	fclose(f);
	CHECK_STR_CONTAINS(buf, "IR after quantize");
	CHECK_STR_CONTAINS(buf, "qconv(");
	CHECK_STR_CONTAINS(buf, "Pass execution timing report");
	CHECK_STR_CONTAINS(buf, "quantize - quantized-layers");
	free(buf);
	vc_pm_free(pm);
	vc_module_free(m);
	/* a failing pass writes a reproducer and names the node */
	m = single_conv(3, 8, 8, 5, 3, 1, 1, 1);
	pm = vc_pm_parse("canonicalize,fold-bn,quantize{skip=nosuchlayer}", (char[256]){0}, 256);
	in = (vc_instr){.verify_each = 1, .reproducer = repro};
	CHECK(vc_pm_run(pm, m, &in) != 0);
	CHECK_STR_CONTAINS(m->diag.msg, "nosuchlayer");
	FILE *r = fopen(repro, "r");
	CHECK(r != NULL);
	if (r) {
		char line[512] = "";
		CHECK(fgets(line, sizeof line, r) != NULL);
		CHECK_STR_CONTAINS(line, "reproducer");
		fclose(r);
	}
	unlink(repro);
	vc_pm_free(pm);
	vc_module_free(m);
}

/* ---- graph passes -------------------------------------------------- */

static void canonicalize_bias(void)
{
	vc_module *m = vc_module_new();
	int64_t xd[4] = {1, 2, 5, 5}, wd[4] = {3, 2, 3, 3}, bd[3] = {3, 1, 1};
	vc_node *a[2] = {vc_input(m, "x", VC_F32, 4, xd), rconst(m, 4, wd)};
	vc_node *c = vc_build(m, VC_OP_CONV, a, 2, NULL, "c");
	vc_node *s[2] = {c, rconst(m, 3, bd)};
	m->g->outputs[m->g->n_outputs++] = vc_build(m, VC_OP_ADD, s, 2, NULL, "add");
	vc_tensor in, before, after;
	vc_tensor_alloc(&in, &m->g->inputs[0]->type);
	for (int i = 0; i < 50; i++)
		((float *)in.data)[i] = frand();
	CHECK_EQ(vc_interp(m, &in, &before, NULL, NULL, NULL), 0);
	CHECK_EQ(run_pipeline(m, "canonicalize"), 0);
	CHECK_EQ(count_op(m, VC_OP_ADD), 0);
	CHECK_EQ(m->g->outputs[0]->n_in, 3);
	CHECK_EQ(vc_interp(m, &in, &after, NULL, NULL, NULL), 0);
	for (int i = 0; i < 27; i++)
		CHECK(fabsf(((float *)before.data)[i] - ((float *)after.data)[i]) < 1e-5f);
	vc_tensor_free(&in);
	vc_tensor_free(&before);
	vc_tensor_free(&after);
	vc_module_free(m);
}

static void fold_bn_equivalent(void)
{
	vc_module *m = single_conv(3, 6, 6, 4, 3, 1, 1, 0);
	int64_t d[1] = {4};
	vc_node *p[5] = {m->g->outputs[0], rconst(m, 1, d), rconst(m, 1, d), rconst(m, 1, d), rconst(m, 1, d)};
	for (int i = 0; i < 4; i++)
		((float *)p[4]->data)[i] = 1.0f + fabsf(((float *)p[4]->data)[i]); /* variance > 0 */
	m->g->outputs[0] = vc_build(m, VC_OP_BATCHNORM, p, 5, NULL, "bn");
	vc_tensor in, before, after;
	vc_tensor_alloc(&in, &m->g->inputs[0]->type);
	for (int i = 0; i < 108; i++)
		((float *)in.data)[i] = frand();
	CHECK_EQ(vc_interp(m, &in, &before, NULL, NULL, NULL), 0);
	CHECK_EQ(run_pipeline(m, "fold-bn"), 0);
	CHECK_EQ(count_op(m, VC_OP_BATCHNORM), 0);
	CHECK_EQ(vc_interp(m, &in, &after, NULL, NULL, NULL), 0);
	for (int i = 0; i < 144; i++)
		CHECK(fabsf(((float *)before.data)[i] - ((float *)after.data)[i]) < 1e-4f);
	vc_tensor_free(&in);
	vc_tensor_free(&before);
	vc_tensor_free(&after);
	vc_module_free(m);
}

/* A dense layer of 4160 x 4096 (17 MB of int8 weights, over half a device
 * buffer) is split by output rows into denses that fit, concatenated: it
 * compiles to two VTA kernels and runs on fsim within a few int8 steps of
 * the float product computed here. */
static void dense_split(void)
{
	enum { I = 4096, O = 4160 };
	vc_module *m = vc_module_new();
	int64_t xd[2] = {1, I}, wd[2] = {O, I}, bd[1] = {O};
	vc_node *args[3] = {vc_input(m, "x", VC_F32, 2, xd), rconst(m, 2, wd), rconst(m, 1, bd)};
	vc_node *y = vc_build(m, VC_OP_DENSE, args, 3, NULL, "fc");
	m->g->outputs[m->g->n_outputs++] = y;
	float *w = args[1]->data, *b = args[2]->data;
	static float x[I];
	for (int i = 0; i < I; i++)
		x[i] = frand();
	m->props |= VC_PROP_IMPORTED;
	calib_frand(m);
	char err[512];
	vc_compile_opts o = {0};
	CHECK_EQ(vc_compile(m, &o, err, sizeof err), 0);
	CHECK_EQ(m->n_kernels, 2);
	uint8_t *bytes = NULL;
	size_t len = 0;
	vta_model_t *vm = NULL;
	vta_error_t e;
	CHECK_EQ(vc_artifact_bytes(m, &bytes, &len), 0);
	CHECK_EQ(vta_model_open_bytes(bytes, len, "dense_split", "fsim", &vm, &e), 0);
	static float got[O];
	vta_tensor_t ti = {VTA_DTYPE_F32, 0, x, sizeof x}, to = {VTA_DTYPE_F32, 0, got, sizeof got};
	CHECK(vm && !vta_model_run(vm, &ti, &to, &e));
	double err_max = 0, range = 0;
	for (int o2 = 0; o2 < O; o2++) {
		double v = b[o2];
		for (int i = 0; i < I; i++)
			v += (double)w[(int64_t)o2 * I + i] * x[i];
		err_max = fmax(err_max, fabs(v - got[o2]));
		range = fmax(range, fabs(v));
	}
	printf("dense 4160 x 4096 split: largest error %.3g of a range %.3g\n", err_max, range);
	CHECK(err_max <= 0.06 * range);
	vta_model_close(vm);
	free(bytes);
	vc_module_free(m);
}

static void fold_const_folds(void)
{
	vc_module *m = vc_module_new();
	int64_t d[2] = {2, 3};
	vc_node *a[2] = {rconst(m, 2, d), rconst(m, 2, d)};
	vc_node *s = vc_build(m, VC_OP_ADD, a, 2, NULL, "cadd");
	vc_node *b[2] = {vc_input(m, "x", VC_F32, 2, d), s};
	m->g->outputs[m->g->n_outputs++] = vc_build(m, VC_OP_ADD, b, 2, NULL, "out");
	CHECK_EQ(run_pipeline(m, "fold-const"), 0);
	CHECK_EQ(count_op(m, VC_OP_ADD), 1);
	vc_module_free(m);
}

static void quantize_and_skip(void)
{
	vc_module *m = single_conv(3, 8, 8, 5, 3, 1, 1, 1);
	CHECK_EQ(run_pipeline(m, "canonicalize,fold-bn,quantize"), 0);
	CHECK_EQ(count_op(m, VC_OP_QCONV), 1);
	CHECK_EQ(count_op(m, VC_OP_REQUANT), 1);
	CHECK_EQ(count_op(m, VC_OP_CONV), 0);
	vc_module_free(m);
	m = single_conv(3, 8, 8, 5, 3, 1, 1, 1);
	CHECK_EQ(run_pipeline(m, "canonicalize,fold-bn,quantize{skip=conv0}"), 0);
	CHECK_EQ(count_op(m, VC_OP_QCONV), 0);
	CHECK_EQ(count_op(m, VC_OP_CONV), 1);
	vc_module_free(m);
	/* power-of-two scales: requant is a pure shift */
	m = single_conv(3, 8, 8, 5, 3, 1, 1, 0);
	CHECK_EQ(run_pipeline(m, "canonicalize,fold-bn,quantize{bits=8}"), 0);
	for (int i = 0; i < m->g->n; i++)
		if (m->g->nodes[i]->op == VC_OP_REQUANT)
			CHECK(m->g->nodes[i]->a.shift >= -31 && m->g->nodes[i]->a.shift <= 31);
	vc_module_free(m);
	m = single_conv(3, 8, 8, 5, 3, 1, 1, 0);
	CHECK(run_pipeline(m, "canonicalize,fold-bn,quantize{bits=4}") != 0);
	CHECK_STR_CONTAINS(m->diag.msg, "only 8");
	vc_module_free(m);
}

static void partition_fuse_pack(void)
{
	const char *upto = "canonicalize,fold-bn,fold-const,quantize,partition,fuse,pack";
	vc_module *m = single_conv(3, 8, 8, 20, 3, 1, 1, 1);
	CHECK_EQ(run_pipeline(m, upto), 0);
	CHECK_EQ(count_op(m, VC_OP_VTA_CONV), 1);
	CHECK_EQ(count_op(m, VC_OP_PACK), 1);
	CHECK_EQ(count_op(m, VC_OP_UNPACK), 1);
	CHECK_EQ(count_op(m, VC_OP_RELU), 0); /* fused */
	CHECK_EQ(m->n_kernels, 1);
	vc_node *v = NULL;
	for (int i = 0; i < m->g->n; i++)
		if (m->g->nodes[i]->op == VC_OP_VTA_CONV)
			v = m->g->nodes[i];
	CHECK(v && v->a.relu == 1);
	/* channels padded: 3 -> one input block (3 x 3 with the kernel's columns
	 * folded in, when pack folds them), 20 -> two output blocks */
	int64_t ci = v && v->in[0]->a.kernel[1] > 1 ? 3 * v->in[0]->a.kernel[1] : 3;
	CHECK(v && v->in[0]->type.dim[1] == (ci + VTA_BLOCK_IN - 1) / VTA_BLOCK_IN &&
	      v->type.dim[1] == (20 + VTA_BLOCK_OUT - 1) / VTA_BLOCK_OUT);
	vc_module_free(m);
	/* stable-name override keeps it on the CPU */
	m = single_conv(3, 8, 8, 20, 3, 1, 1, 1);
	CHECK_EQ(run_pipeline(m, "canonicalize,fold-bn,fold-const,quantize,partition{cpu=conv0},fuse,pack"), 0);
	CHECK_EQ(count_op(m, VC_OP_VTA_CONV), 0);
	CHECK_EQ(m->n_kernels, 0);
	vc_module_free(m);
	/* capability, not names: a dilated conv stays on the CPU */
	m = vc_module_new();
	int64_t xd[4] = {1, 4, 9, 9}, wd[4] = {4, 4, 3, 3};
	vc_node *a[2] = {vc_input(m, "x", VC_F32, 4, xd), rconst(m, 4, wd)};
	vc_attrs at;
	vc_attrs_init(&at);
	at.dilation[0] = at.dilation[1] = 2;
	m->g->outputs[m->g->n_outputs++] = vc_build(m, VC_OP_CONV, a, 2, &at, "dilated");
	CHECK_EQ(run_pipeline(m, upto), 0);
	CHECK_EQ(m->n_kernels, 0);
	CHECK_EQ(count_op(m, VC_OP_QCONV), 1);
	vc_module_free(m);
}

/* A crafted artifact (valid checksum) whose STORE points 1 MiB past the
 * model's device memory, wraps around 32 bits, or starts at the image's last
 * element and has a second row past its end: it loads, and is refused before the device
 * runs it, by the runner's relocation or else by the runtime's stream check. */
static void crafted_store_refused(const uint8_t *bytes, size_t len)
{
	vc_module *m = vc_module_new();
	CHECK_EQ(vc_artifact_parse(m, bytes, len), 0);
	vc_kernel *kn = m->n_kernels ? m->kernels[0] : NULL;
	CHECK(kn != NULL);
	int64_t at = -1;
	vta_insn_t st;
	for (int64_t i = 0; kn && i < kn->insn_count && at < 0; i++) {
		vta_insn_word_t w;
		vta_insn_load(m->stream->image + kn->insn_off + 16 * i, &w);
		vta_insn_decode(&w, &st);
		if (st.opcode == VTA_OPCODE_STORE && st.x_size)
			at = kn->insn_off + 16 * i;
	}
	CHECK(at >= 0);
	size_t pos = len;
	for (size_t p = 0; at >= 0 && p + 16 <= len && pos == len; p++)
		if (!memcmp(bytes + p, m->stream->image + at, 16))
			pos = p;
	CHECK(pos < len);
	uint32_t elems = (uint32_t)(m->stream->size / VTA_OUT_ELEM_BYTES);
	uint32_t bases[3] = {elems + (1u << 20) / VTA_OUT_ELEM_BYTES, 0xFFFFFFFFu, elems - 1};
	for (int v = 0; pos < len && v < 3; v++) {
		uint8_t *c = malloc(len);
		memcpy(c, bytes, len);
		vta_insn_t bad = st;
		bad.dram_base = bases[v];
		bad.y_size = 2; /* the second row lies 64 KiB further: past the end */
		bad.x_stride = 4096;
		vta_insn_word_t w;
		CHECK_EQ(vta_insn_encode(&bad, &w, NULL), 0);
		vta_insn_store(&w, c + pos);
		memset(c + 32, 0, 4);
		uint32_t crc = vta_crc32c(0, c, len);
		for (int k = 0; k < 4; k++)
			c[32 + k] = (uint8_t)(crc >> (8 * k));
		vc_module *cm = vc_module_new();
		if (vc_artifact_parse(cm, c, len)) {
			/* the reader's stream verifier (compiler/ir/verify_code.c) refuses it first */
			CHECK_STR_CONTAINS(cm->diag.msg, "(store): DRAM bytes");
			vc_module_free(cm);
			free(c);
			continue;
		}
		char err[512] = "";
		vc_runner *r = vc_runner_open(cm, "fsim", err, sizeof err);
		if (!r) {
			CHECK_STR_CONTAINS(err, "outside the image");
			CHECK(v < 2); /* the last variant starts inside the image */
		} else {
			vc_tensor in, out[8];
			CHECK_EQ(vc_tensor_alloc(&in, &cm->g->inputs[0]->type), 0);
			memset(in.data, 0, vc_type_bytes(&in.t));
			vta_set_log_errors(vta_context_current(), 0);
			int rc = vc_runner_run(r, &in, out);
			CHECK(rc != 0);
			CHECK_STR_CONTAINS(cm->diag.msg, "do not lie inside one live buffer");
			for (int o = 0; !rc && o < cm->g->n_outputs; o++)
				vc_tensor_free(&out[o]);
			vc_tensor_free(&in);
			vc_runner_close(r);
		}
		vc_module_free(cm);
		free(c);
	}
	vc_module_free(m);
}

static void kernel_passes_and_determinism(void)
{
	uint8_t *bytes[2];
	size_t len[2];
	for (int r = 0; r < 2; r++) {
		seed = 7;
		vc_module *m = single_conv(5, 9, 11, 18, 3, 1, 2, 1);
		CHECK_EQ(run_pipeline(m, "vta-default"), 0);
		CHECK(m->n_kernels == 1 && m->kernels[0]->n > 4);
		CHECK(m->props & VC_PROP_EMITTED);
		CHECK_EQ(vc_artifact_bytes(m, &bytes[r], &len[r]), 0);
		vc_module_free(m);
	}
	CHECK(len[0] == len[1] && !memcmp(bytes[0], bytes[1], len[0]));
	/* the artifact reads back into the same bytes */
	vc_module *m = vc_module_new();
	CHECK_EQ(vc_artifact_parse(m, bytes[0], len[0]), 0);
	uint8_t *again;
	size_t alen;
	CHECK_EQ(vc_artifact_bytes(m, &again, &alen), 0);
	CHECK(alen == len[0] && !memcmp(again, bytes[0], alen));
	free(again);
	vc_module_free(m);
	/* truncated or corrupt artifacts are refused */
	size_t cuts[] = {0, 3, 10, len[0] / 2, len[0] - 1};
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		m = vc_module_new();
		CHECK(vc_artifact_parse(m, bytes[0], cuts[i]) != 0);
		CHECK(m->diag.msg[0] != 0);
		vc_module_free(m);
	}
	/* every corrupted artifact is refused (the container's checksum); with
	 * the checksum made valid again the reader must still not crash */
	uint64_t st = 3;
	int refused = 0;
	for (int t = 0; t < 200; t++) {
		uint8_t *c = malloc(len[0]);
		memcpy(c, bytes[0], len[0]);
		c[test_rand(&st) % len[0]] ^= (uint8_t)(1 + test_rand(&st) % 255);
		m = vc_module_new();
		refused += vc_artifact_parse(m, c, len[0]) != 0;
		vc_module_free(m);
		if (t % 2) {
			memset(c + 32, 0, 4);
			uint32_t crc = vta_crc32c(0, c, len[0]);
			for (int k = 0; k < 4; k++)
				c[32 + k] = (uint8_t)(crc >> (8 * k));
			m = vc_module_new();
			vc_artifact_parse(m, c, len[0]);
			vc_module_free(m);
		}
		free(c);
	}
	CHECK_EQ(refused, 200);
	crafted_store_refused(bytes[0], len[0]);
	free(bytes[0]);
	free(bytes[1]);
}

/* ---- MNIST on the golden model -------------------------------------- */

static void mnist_fsim(void)
{
	char model[1024], images[1024], labels[1024];
	snprintf(model, sizeof model, "%s/../shared/models/mnist-8.onnx", test_root());
	snprintf(images, sizeof images, "%s/../shared/data/mnist-10k-images-idx3-ubyte", test_root());
	snprintf(labels, sizeof labels, "%s/../shared/data/mnist-10k-labels-idx1-ubyte", test_root());
	if (access(model, R_OK) || access(images, R_OK)) {
		/* The project's real data lives beside the checkout (README). */
		test_fail_(__FILE__, __LINE__, "MNIST model or data missing: %s, %s", model, images);
		return;
	}
	vc_module *fm = vc_module_new(), *m = vc_module_new();
	CHECK_EQ(vc_import_onnx_file(fm, model), 0);
	CHECK_EQ(vc_import_onnx_file(m, model), 0);
	vc_compile_opts o = {.calib_path = images, .calib_count = 50, .instr = {.verify_each = 1}};
	char err[1024];
	CHECK_EQ(vc_compile(m, &o, err, sizeof err), 0);
	CHECK_EQ(m->n_kernels, 3);
	uint8_t *bytes;
	size_t len;
	CHECK_EQ(vc_artifact_bytes(m, &bytes, &len), 0);
	vc_module *rm = vc_module_new();
	CHECK_EQ(vc_artifact_parse(rm, bytes, len), 0);
	free(bytes);
	vc_runner *r = vc_runner_open(rm, "fsim", err, sizeof err);
	CHECK(r != NULL);
	vc_dataset d;
	CHECK_EQ(vc_dataset_load_idx(images, labels, &d, err, sizeof err), 0);
	int N = 200, ok_f = 0, ok_q = 0, agree = 0, exact = 1;
	vc_tensor in;
	vc_tensor_alloc(&in, &fm->g->inputs[0]->type);
	for (int s = 0; r && s < N; s++) {
		for (int i = 0; i < 784; i++)
			((float *)in.data)[i] = d.pixels[s * 784 + i];
		vc_tensor fo, qo, so;
		CHECK_EQ(vc_interp(fm, &in, &fo, NULL, NULL, NULL), 0);
		CHECK_EQ(vc_runner_run(r, &in, &qo), 0);
		if (s < 10) { /* the device agrees bit for bit with the host reference */
			CHECK_EQ(vc_simulate(rm, &in, &so), 0);
			exact &= !memcmp(so.data, qo.data, 40);
			vc_tensor_free(&so);
		}
		int bf = 0, bq = 0;
		for (int k = 1; k < 10; k++) {
			bf = ((float *)fo.data)[k] > ((float *)fo.data)[bf] ? k : bf;
			bq = ((float *)qo.data)[k] > ((float *)qo.data)[bq] ? k : bq;
		}
		ok_f += bf == d.labels[s];
		ok_q += bq == d.labels[s];
		agree += bf == bq;
		vc_tensor_free(&fo);
		vc_tensor_free(&qo);
	}
	printf("mnist %d digits: float %d, vta(fsim) %d, agreement %d\n", N, ok_f, ok_q, agree);
	CHECK(exact);
	CHECK(ok_q >= ok_f - 2);
	CHECK(agree >= N - 3);
	vc_tensor_free(&in);
	vc_dataset_free(&d);
	vc_runner_close(r);
	vc_module_free(rm);
	vc_module_free(m);
	vc_module_free(fm);
}

/* `vta run --output=DIR` writes the output as a NumPy file: the format 1.0
 * header as NumPy's documentation gives it, byte for byte, and the values
 * libvta's model API returns for the same input. */
static void run_output_npy(void)
{
	char model[1024], images[1024], vtam[256], raw[256], dir[256], path[600];
	snprintf(model, sizeof model, "%s/../shared/models/mnist-8.onnx", test_root());
	snprintf(images, sizeof images, "%s/../shared/data/mnist-10k-images-idx3-ubyte", test_root());
	snprintf(vtam, sizeof vtam, "/tmp/vc_npy_%ld.vtam", (long)getpid());
	snprintf(raw, sizeof raw, "/tmp/vc_npy_%ld.digit.f32", (long)getpid());
	snprintf(dir, sizeof dir, "/tmp/vc_npy_%ld.out", (long)getpid());
	char calib[1100], outopt[300], inopt[300];
	snprintf(calib, sizeof calib, "--calib=%s", images);
	char *cargv[] = {model, "-o", vtam, calib, "--calib-count=10"};
	CHECK_EQ(vta_cmd_compile(5, cargv), 0);
	vc_dataset d;
	char err[1024];
	CHECK_EQ(vc_dataset_load_idx(images, NULL, &d, err, sizeof err), 0);
	float x[784], want[10];
	for (int i = 0; i < 784; i++)
		x[i] = d.pixels[i];
	vc_dataset_free(&d);
	FILE *f = fopen(raw, "wb");
	CHECK(f && fwrite(x, sizeof x, 1, f) == 1);
	if (f)
		fclose(f);
	snprintf(inopt, sizeof inopt, "--input=%s", raw);
	snprintf(outopt, sizeof outopt, "--output=%s", dir);
	char *rargv[] = {vtam, "--target=fsim", inopt, outopt};
	CHECK_EQ(vta_cmd_run(4, rargv), 0);
	vta_model_t *vm = NULL;
	vta_error_t e;
	vta_tensor_info_t oi;
	CHECK_EQ(vta_model_open(vtam, "fsim", &vm, &e), 0);
	vta_tensor_t ti = {VTA_DTYPE_F32, 0, x, sizeof x}, to = {VTA_DTYPE_F32, 0, want, sizeof want};
	CHECK_EQ(vta_model_run(vm, &ti, &to, &e), 0);
	CHECK_EQ(vta_model_output(vm, 0, &oi), 0);
	const char *slash = strrchr(oi.name, '/');
	snprintf(path, sizeof path, "%s/vc_npy_%ld.digit.%s.npy", dir, (long)getpid(), slash ? slash + 1 : oi.name);
	vta_model_close(vm);
	uint8_t b[256];
	f = fopen(path, "rb");
	size_t n = f ? fread(b, 1, sizeof b, f) : 0;
	if (f)
		fclose(f);
	const char hdr[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 10), }";
	size_t hl = (size_t)b[8] | (size_t)b[9] << 8;
	CHECK(n == 10 + hl + 40);
	CHECK(!memcmp(b, "\x93NUMPY\x01\x00", 8));
	CHECK_EQ((10 + hl) % 64, 0);
	CHECK(n >= 10 + sizeof hdr && !memcmp(b + 10, hdr, sizeof hdr - 1));
	for (size_t i = 10 + sizeof hdr - 1; i + 1 < 10 + hl && i < n; i++)
		CHECK_EQ(b[i], ' ');
	CHECK(n > 9 + hl && b[9 + hl] == '\n');
	CHECK(n == 10 + hl + 40 && !memcmp(b + 10 + hl, want, 40));
	/* a file where the directory should be: refused, nothing written */
	snprintf(outopt, sizeof outopt, "--output=%s", raw);
	CHECK_EQ(vta_cmd_run(4, rargv), 1);
	unlink(path);
	rmdir(dir);
	unlink(raw);
	unlink(vtam);
}

/* A failing `vta compile` writes a reproducer that `--replay` re-runs: the
 * same failure from the same model, pipeline and calibration; options on
 * the command line override the recorded ones. */
static void reproducer_replay(void)
{
	char model[512], images[512], rep[64], rep2[64], out[64];
	snprintf(model, sizeof model, "%s/../shared/models/mnist-8.onnx", test_root());
	snprintf(images, sizeof images, "--calib=%s/../shared/data/mnist-10k-images-idx3-ubyte", test_root());
	snprintf(rep, sizeof rep, "/tmp/vc_rep_%ld.txt", (long)getpid());
	snprintf(rep2, sizeof rep2, "/tmp/vc_rep2_%ld.txt", (long)getpid());
	snprintf(out, sizeof out, "/tmp/vc_rep_%ld.vtam", (long)getpid());
	char *fail[] = {model, "-o", out, "--pipeline=canonicalize,fold-bn,quantize{skip=nosuchlayer}", images,
			"--calib-count=20", "--reproducer", rep};
	CHECK_EQ(vta_cmd_compile(8, fail), 1);
	char text[8192] = "";
	FILE *f = fopen(rep, "r");
	CHECK(f != NULL);
	if (f) {
		text[fread(text, 1, sizeof text - 1, f)] = 0;
		fclose(f);
	}
	CHECK_STR_CONTAINS(text, "# vta compile reproducer");
	CHECK_STR_CONTAINS(text, "\npipeline: module(graph(canonicalize,fold-bn,quantize{skip=nosuchlayer}))\n");
	CHECK_STR_CONTAINS(text, "mnist-8.onnx\n");
	CHECK_STR_CONTAINS(text, "\ncalib-count: 20\n");
	CHECK_STR_CONTAINS(text, "# failed pass: quantize");
	CHECK_STR_CONTAINS(text, "\nremaining: module(graph(quantize{skip=nosuchlayer}))\n");
	CHECK_STR_CONTAINS(text, "\ngraph @main"); /* the module before quantize, in full */
	/* replaying fails the same way and writes the same reproducer */
	char *again[] = {"--replay", rep, "-o", out, "--reproducer", rep2};
	CHECK_EQ(vta_cmd_compile(6, again), 1);
	char text2[8192] = "";
	f = fopen(rep2, "r");
	CHECK(f != NULL);
	if (f) {
		text2[fread(text2, 1, sizeof text2 - 1, f)] = 0;
		fclose(f);
	}
	CHECK_STR_CONTAINS(text2, "\npipeline: module(graph(canonicalize,fold-bn,quantize{skip=nosuchlayer}))\n");
	CHECK_STR_CONTAINS(text2, "\ncalib-count: 20\n");
	/* with the pipeline fixed on the command line it compiles */
	char *fixed[] = {"--replay", rep, "-o", out, "--pipeline=vta-default"};
	CHECK_EQ(vta_cmd_compile(5, fixed), 0);
	CHECK(access(out, R_OK) == 0);
	/* not a reproducer */
	char *bad[] = {"--replay", model, "-o", out};
	CHECK_EQ(vta_cmd_compile(4, bad), 1);
	unlink(rep);
	unlink(rep2);
	unlink(out);
}

static const test_case_t cases[] = {
	{"reproducer_replay", reproducer_replay},
	{"builder_types", builder_types},
	{"builder_limits", builder_limits},
	{"verifier_catches", verifier_catches},
	{"pipeline_roundtrip", pipeline_roundtrip},
	{"pipeline_errors", pipeline_errors},
	{"instruments", instruments},
	{"canonicalize_bias", canonicalize_bias},
	{"fold_bn_equivalent", fold_bn_equivalent},
	{"fold_const_folds", fold_const_folds},
	{"dense_split", dense_split},
	{"quantize_and_skip", quantize_and_skip},
	{"partition_fuse_pack", partition_fuse_pack},
	{"kernel_passes_and_determinism", kernel_passes_and_determinism},
	{"mnist_fsim", mnist_fsim},
	{"run_output_npy", run_output_npy},
	{NULL, NULL},
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, cases);
}
