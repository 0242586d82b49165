/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The textual IR: print, parse, print gives the same bytes after every pass
 * of the default pipeline on MNIST, ResNet-8 (TFLite, float and int8) and
 * the Darknet cfgs (synthetic weights); a module parsed from the text of
 * the last graph pass compiles to the same artifact as the original; bad
 * text is refused with the line and what was wrong. Every pass runs with
 * --verify-each and --verify-analyses; MobileNet-V2 and YOLOv3-tiny run the
 * whole default pipeline with them (whole_pipeline).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "artifact/artifact.h"
#include "cli/cli.h"
#include "import/import.h"
#include "same_artifact.h"

static char *print_full(const vc_module *m, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	vc_print_module(f, m, 0);
	fclose(f);
	return buf;
}

/* The module parsed from m's text; NULL (failure recorded) if it does not
 * parse, verify, or print back to the same bytes. */
static vc_module *round_trip(const vc_module *m, const char *what)
{
	size_t len, len2;
	char *text = print_full(m, &len);
	vc_module *p = vc_module_new();
	CHECK(text != NULL && p != NULL);
	if (!text || !p || vc_parse_module(p, what, text, len)) {
		printf("%s: parse: %s\n", what, p ? p->diag.msg : "?");
		CHECK(0);
		free(text);
		vc_module_free(p);
		return NULL;
	}
	CHECK_EQ(vc_verify(p), 0);
	char *again = print_full(p, &len2);
	int same = again && len2 == len && !memcmp(again, text, len);
	if (!same) {
		size_t i = 0;
		while (again && i < len && i < len2 && again[i] == text[i])
			i++;
		printf("%s: the text differs after parsing, at byte %zu: '%.60s' vs '%.60s'\n", what, i, text + i,
		       again ? again + i : "");
	}
	CHECK(same);
	free(text);
	free(again);
	return p;
}

static const char *const passes[] = {"canonicalize", "fold-bn", "fold-const", "quantize", "partition", "fuse",
				     "pack", "tile", "lower", "tokens", "emit"};
#define N_PASSES (sizeof passes / sizeof passes[0])
#define PACK 6

static int run_text(vc_module *m, const char *pipeline)
{
	char err[512];
	vc_pm *pm = vc_pm_parse(pipeline, err, sizeof err);
	CHECK(pm != NULL);
	if (!pm)
		return -1;
	vc_instr in = {.verify_each = 1, .verify_analyses = 1};
	int rc = vc_pm_run(pm, m, &in);
	if (rc)
		printf("%s: %s\n", pipeline, m->diag.msg);
	vc_pm_free(pm);
	return rc;
}

/* Round trips after import and after each pass (every: 0, only after pack
 * and after emit, for big networks); the module parsed after pack finishes
 * the pipeline to the same artifact as the original, and so does the one
 * parsed after emit. */
static void check_model(vc_module *m, const char *what, const char *calib, int calib_count, int every)
{
	char err[1024];
	vc_compile_opts co = {.pipeline = "canonicalize", .calib_path = calib, .calib_count = calib_count,
			      .instr = {.verify_each = 1, .verify_analyses = 1}};
	if (every)
		vc_module_free(round_trip(m, what));
	CHECK_EQ(vc_compile(m, &co, err, sizeof err), 0);
	vc_module *packed = NULL, *p = NULL;
	for (size_t i = 0; i < N_PASSES; i++) {
		if (i && run_text(m, passes[i]))
			break;
		if (!every && i != PACK && i + 1 != N_PASSES)
			continue;
		char stage[128];
		snprintf(stage, sizeof stage, "%s after %s", what, passes[i]);
		p = round_trip(m, stage);
		if (!p)
			break;
		if (i == PACK) {
			packed = p;
			p = NULL;
		} else if (i + 1 != N_PASSES) {
			vc_module_free(p);
			p = NULL;
		}
	}
	CHECK(p != NULL && packed != NULL);
	if (p)
		CHECK(same_artifact(m, p));
	if (packed && !run_text(packed, "kernel(tile,lower,tokens),stream(emit)"))
		CHECK(same_artifact(m, packed));
	vc_module_free(p);
	vc_module_free(packed);
}

static void shared_path(char *buf, size_t n, const char *rel)
{
	snprintf(buf, n, "%s/../shared/%s", test_root(), rel);
}

static void mnist(void)
{
	char model[1024], images[1024];
	shared_path(model, sizeof model, "models/mnist-8.onnx");
	shared_path(images, sizeof images, "data/mnist-10k-images-idx3-ubyte");
	vc_module *m = vc_module_new();
	CHECK_EQ(vc_import_file(m, model), 0);
	check_model(m, "mnist", images, 50, 1);
	vc_module_free(m);
}

static void resnet8(void)
{
	static const char *const files[] = {"models/resnet8-cifar10-float.tflite", "models/resnet8-cifar10-int8.tflite"};
	char model[1024], data[1024];
	shared_path(data, sizeof data, "data/cifar10-test-2k.bin");
	for (int i = 0; i < 2; i++) {
		shared_path(model, sizeof model, files[i]);
		vc_module *m = vc_module_new();
		int rc = vc_import_file(m, model);
		if (rc)
			printf("%s: %s\n", files[i], m->diag.msg);
		CHECK_EQ(rc, 0);
		if (!rc)
			check_model(m, files[i], data, 8, 1);
		vc_module_free(m);
	}
}

/* The slow cases run on the default configuration, plain build only. */
static int slow_cases_run_here(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return 0;
#endif
	return !strcmp(VTA_CONFIG_NAME, "1x16_i8w8a32_15_15_18_17") && !strcmp(VTA_TARGET, "sim");
}

static void darknet(void)
{
	if (!slow_cases_run_here())
		return;
	static const struct {
		const char *cfg;
		int size;
	} nets[] = {{"models/resnet18.cfg", 32}, {"models/yolov3-tiny.cfg", 64}};
	for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
		char cfg[1024];
		shared_path(cfg, sizeof cfg, nets[i].cfg);
		vc_darknet_opts o = {.synthetic = 1, .seed = 1, .input_size = nets[i].size};
		vc_module *m = vc_module_new();
		int rc = vc_import_darknet_files(m, cfg, NULL, &o);
		if (rc)
			printf("%s: %s\n", nets[i].cfg, m->diag.msg);
		CHECK_EQ(rc, 0);
		if (!rc)
			check_model(m, nets[i].cfg, "synthetic", 1, 0);
		vc_module_free(m);
	}
}

/* The models the per-pass round trips leave out, the default pipeline in one
 * run (the analyses cached from pass to pass) with --verify-each and
 * --verify-analyses, to the same artifact as without them: MobileNet-V2
 * int8 (TFLite, one calibration photo) and YOLOv3-tiny (Darknet,
 * synthetic, 64x64). */
static void whole_pipeline(void)
{
	if (!slow_cases_run_here())
		return;
	for (int i = 0; i < 2; i++) {
		vc_module *a[2] = {NULL, NULL};
		char path[1024], calib[1024], err[1024];
		for (int v = 0; v < 2; v++) {
			vc_module *m = vc_module_new();
			vc_compile_opts co = {.instr = {.verify_each = v, .verify_analyses = v}};
			int rc;
			if (i == 0) {
				shared_path(path, sizeof path, "models/mobilenet-v2-1.0-224-int8.tflite");
				shared_path(calib, sizeof calib, "images/owl.jpg");
				co.calib_path = calib;
				rc = vc_import_file(m, path);
			} else {
				shared_path(path, sizeof path, "models/yolov3-tiny.cfg");
				vc_darknet_opts o = {.synthetic = 1, .seed = 1, .input_size = 64};
				co.calib_path = "synthetic";
				co.calib_count = 1;
				rc = vc_import_darknet_files(m, path, NULL, &o);
			}
			if (!rc && (rc = vc_compile(m, &co, err, sizeof err)))
				printf("%s: %s\n", path, err);
			else if (rc)
				printf("%s: %s\n", path, m->diag.msg);
			CHECK_EQ(rc, 0);
			a[v] = m;
		}
		CHECK(same_artifact(a[0], a[1]));
		vc_module_free(a[0]);
		vc_module_free(a[1]);
	}
}

static uint8_t *slurp(const char *path, size_t *len)
{
	char err[256];
	uint8_t *b = vc_read_all(path, len, err, sizeof err);
	if (!b)
		printf("%s\n", err);
	return b;
}

static int same_file(const char *a, const char *b)
{
	size_t la = 0, lb = 0;
	uint8_t *x = slurp(a, &la), *y = slurp(b, &lb);
	int same = x && y && la == lb && !memcmp(x, y, la);
	free(x);
	free(y);
	return same;
}

/* The commands: vta compile M -o a.vtam equals vta compile M --emit-ir=L -o
 * L.ir then vta opt L.ir --passes=default -o L.vtam, for every level, and
 * vta opt --passes= writes the file it read. */
/* vta compile M == vta compile M --emit-ir=LEVEL then vta opt --passes=default,
 * byte for byte, at every level; --passes= writes the file it read. args:
 * the model and its options (calibration, ...). */
static void commands_for(char **args, int nargs)
{
	char dir[] = "/tmp/test_ir_XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char a[128], ir[128], rt[128], b[128], emit[64];
	char *c[16];
	CHECK(nargs <= 12);
	snprintf(a, sizeof a, "%s/a.vtam", dir);
	memcpy(c, args, (size_t)nargs * sizeof *c);
	c[nargs] = "-o", c[nargs + 1] = a;
	CHECK_EQ(vta_cmd_compile(nargs + 2, c), 0);
	static const char *const levels[] = {"graph", "kernel", "stream"};
	for (int i = 0; i < 3; i++) {
		snprintf(emit, sizeof emit, "--emit-ir=%s", levels[i]);
		snprintf(ir, sizeof ir, "%s/%s.ir", dir, levels[i]);
		snprintf(rt, sizeof rt, "%s/%s.rt.ir", dir, levels[i]);
		snprintf(b, sizeof b, "%s/%s.vtam", dir, levels[i]);
		c[nargs] = emit, c[nargs + 1] = "-o", c[nargs + 2] = ir;
		CHECK_EQ(vta_cmd_compile(nargs + 3, c), 0);
		char *o1[] = {ir, "--passes=", "-o", rt};
		CHECK_EQ(vta_cmd_opt(4, o1), 0);
		CHECK(same_file(ir, rt));
		char *o2[] = {ir, "--passes=default", "--verify-each", "--verify-analyses", "-o", b};
		CHECK_EQ(vta_cmd_opt(6, o2), 0);
		CHECK(same_file(a, b));
		unlink(ir);
		unlink(rt);
		unlink(b);
	}
	unlink(a);
	rmdir(dir);
}

static void commands(void)
{
	char model[1024], calib[1100];
	shared_path(model, sizeof model, "models/mnist-8.onnx");
	snprintf(calib, sizeof calib, "--calib=%s/../shared/data/mnist-10k-images-idx3-ubyte", test_root());
	char *mnist[] = {model, calib, "--calib-count=20"};
	commands_for(mnist, 3);
	if (!slow_cases_run_here())
		return;
	/* the real networks: ResNet-8 (TFLite int8), ResNet-18 (Darknet, synthetic) */
	snprintf(calib, sizeof calib, "--calib=%s/../shared/data/cifar10-test-2k.bin", test_root());
	shared_path(model, sizeof model, "models/resnet8-cifar10-int8.tflite");
	char *r8[] = {model, calib, "--calib-count=8"};
	commands_for(r8, 3);
	shared_path(model, sizeof model, "models/resnet18.cfg");
	char *r18[] = {model, "--synthetic-weights=1", "--input-size=32", "--calib=synthetic", "--calib-count=1"};
	commands_for(r18, 5);
}

/* Text that must be refused, and a piece of the message. */
static void refuse(const char *text, const char *needle)
{
	vc_module *m = vc_module_new();
	int rc = vc_parse_module(m, "bad.ir", text, strlen(text));
	if (rc != -1)
		printf("parsed, but expected an error containing '%s'\n", needle);
	CHECK_EQ(rc, -1);
	CHECK_STR_CONTAINS(m->diag.msg, needle);
	vc_module_free(m);
}

static void bad_text(void)
{
	char hdr[256];
	vc_target t = vc_target_default();
	snprintf(hdr, sizeof hdr, "module {config=0x%08x batch=%d block-in=%d block-out=%d props=imported next-id=4}\n",
		 t.config_id, t.batch, t.block_in, t.block_out);
	char text[2048];
#define BAD(body, needle)                                         \
	do {                                                      \
		snprintf(text, sizeof text, "%s%s", hdr, body);    \
		refuse(text, needle);                             \
	} while (0)
	refuse("module {config=0x1 props=none next-id=0}\ngraph @main() {\n  return\n}\n", "this build's VTA");
	BAD("graph @main(%0) {\n  %0 = input() : f32[1,4] \"x\"\n  %1 = relu(%2) : f32[1,4] \"r\"\n  return %1\n}\n",
	    "bad.ir:4:");
	BAD("graph @main(%0) {\n  %0 = input() : f32[1,4] \"x\"\n  %1 = relu(%2) : f32[1,4] \"r\"\n  return %1\n}\n",
	    "%2 is used before it is defined");
	BAD("graph @main(%0) {\n  %0 = input() : f32[1,4] \"x\"\n  %1 = relu(%0) : f32[1,5] \"r\"\n  return %1\n}\n",
	    "printed as f32[1,5] but its operands and attributes give f32[1,4]");
	BAD("graph @main(%0) {\n  %0 = input() : f32[1,4] \"x\"\n  %0 = relu(%0) : f32[1,4] \"r\"\n  return %0\n}\n",
	    "%0 is defined twice");
	BAD("graph @main(%0) {\n  %0 = input() : f32[1,4] \"x\"\n  %1 = frob(%0) : f32[1,4] \"r\"\n  return %1\n}\n",
	    "unknown op 'frob'");
	BAD("graph @main(%0) {\n  %0 = input() : f32[1,4] \"x\"\n  %1 = relu(%0) {wobble=1} : f32[1,4] \"r\"\n  return %1\n}\n",
	    "unknown attribute 'wobble'");
	BAD("graph @main(%0) {\n  %0 = input() : f32[1,4] \"x\"\n  %1 = const() : i8[3] \"c\" = [0102]\n  return %0\n}\n",
	    "2 bytes of data, 3 expected");
	BAD("graph @main(%0) {\n  %0 = input() : f32[1,4] \"x\"\n  %1 = const() : i8[300] \"c\" = [... 300 bytes]\n  return %0\n}\n",
	    "data elided");
	BAD("graph @main(%0) {\n  %0 = input() : f32[1,4] \"x\"\n  %1 = add(%0, %0) : f32[1,4] \"r\n  return %1\n}\n",
	    "newline inside a string");
	BAD("graph @main(%0) {\n  %7 = input() : f32[1,4] \"x\"\n  return %7\n}\n", "not below next-id 4");
	BAD("graph @main(%0) {\n  %0 = input() : f32[1,4] \"x\"\n  return %0\n}\nkernel @k0 for %0 {}\n",
	    "kernel @k0 is for %0, which is not a vta.conv with kernel=@k0");
	BAD("graph @main(%0) {\n  %0 = input() : f32[1,4] \"x\"\n  return %0\n}\nwhat\n", "unexpected text after the module");
#undef BAD
}

/* Names with quotes, backslashes and bytes outside ASCII survive. */
static void quoting(void)
{
	vc_module *m = vc_module_new();
	int64_t d[2] = {1, 4};
	vc_node *x = vc_input(m, "in \"put\"\\\x01\xc3\xa9", VC_F32, 2, d);
	vc_node *y = vc_build(m, VC_OP_RELU, &x, 1, NULL, "r#1 ");
	m->g->outputs[m->g->n_outputs++] = y;
	vc_module *p = round_trip(m, "quoting");
	if (p) {
		CHECK(!strcmp(p->g->nodes[0]->name, x->name));
		CHECK(!strcmp(p->g->nodes[1]->name, "r#1 "));
	}
	vc_module_free(p);
	vc_module_free(m);
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"bad_text", bad_text},
		{"quoting", quoting},
		{"mnist", mnist},
		{"commands", commands},
		{"resnet8", resnet8},
		{"darknet", darknet},
		{"whole_pipeline", whole_pipeline},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
