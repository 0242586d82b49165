/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `vta compile` (the driver it runs, vc_compile, is driver.c).
 *
 *   vta compile MODEL.onnx -o MODEL.vtam [--pipeline=TEXT|NAME] [--print-pipeline]
 *       [--verify-each] [--verify-analyses] [--time-passes] [--stats] [--print-ir-before=PASS|all]
 *       [--print-ir-after=PASS|all] [--print-ir-after-change] [--reproducer=FILE] --calib=DATA|synthetic [--calib-count=N]
 *       [--calib-offset=K] [--freeze=NAME=FILE.pb]
 *   (DATA: an IDX or CIFAR .bin dataset, a folder of images, an image, raw float32 tensors)
 *   vta compile --replay=REPRODUCER -o MODEL.vtam [options]
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "import/import.h"

/* A "key: value" line of a reproducer (value up to the end of the line). */
static int repro_value(const char *text, const char *key, char *val, size_t n)
{
	size_t k = strlen(key);
	for (const char *s = text; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL) {
		if (!strncmp(s, key, k) && s[k] == ':' && s[k + 1] == ' ') {
			const char *v = s + k + 2, *e = strchr(v, '\n');
			size_t len = e ? (size_t)(e - v) : strlen(v);
			if (len >= n)
				return -1;
			memcpy(val, v, len);
			val[len] = 0;
			return 1;
		}
	}
	return 0;
}

/* The path as an absolute one when it exists (reproducers outlive the cwd). */
static void abs_path(const char *p, char *buf, size_t n)
{
	char cwd[2048];
	size_t k = 0;
	if (p[0] != '/' && getcwd(cwd, sizeof cwd) && strlen(cwd) + 2 < n) {
		k = strlen(cwd);
		memcpy(buf, cwd, k);
		buf[k++] = '/';
	}
	size_t l = strlen(p);
	if (k + l >= n)
		l = n - k - 1;
	memcpy(buf + k, p, l);
	buf[k + l] = 0;
}

const char vta_compile_usage[] =
	"usage: vta compile MODEL -o MODEL.vtam [options]\n"
	"       vta compile --replay=REPRODUCER -o MODEL.vtam [options]   (re-run a failed compile)\n"
	"\n"
	"MODEL is an ONNX file (*.onnx), a TFLite file (*.tflite) or a Darknet cfg (*.cfg).\n"
	"  -o FILE                   the artifact to write\n"
	"  --calib=DATA|synthetic    calibration data (required): an IDX or CIFAR binary (*.bin)\n"
	"                            dataset, a folder of images, an image, raw float32 tensors;\n"
	"                            'synthetic' (seeded random pixels 0..255) for synthetic weights\n"
	"  --calib-count=N           use N calibration samples (synthetic: default 8)\n"
	"  --calib-offset=K          from dataset sample K (default: the last N, the first are for\n"
	"                            evaluation)\n"
	"  --scale=S --mean=M[,M..] --std=S[,S..]   the pixel preprocessing of the model's input,\n"
	"                            applied to the calibration samples and recorded in the file's\n"
	"                            META section (vta run and vta_model_input use it)\n"
	"  --freeze=NAME=FILE.pb     ONNX: graph input NAME is the constant in FILE.pb (a TensorProto,\n"
	"                            as ONNX's test data give them); repeat for several inputs\n"
	"  --weights=FILE            Darknet: the .weights file of the cfg\n"
	"  --synthetic-weights=SEED  Darknet: deterministic random weights from SEED instead\n"
	"  --input-size=N            Darknet: input N x N instead of the cfg's width x height\n"
	"  --pipeline=TEXT|NAME      pass pipeline (default vta-default); --print-pipeline shows it\n"
	"  --verify-each --verify-analyses --time-passes --stats   instruments\n"
	"  --threads=N               kernel groups on N threads (when every pass and instrument allows)\n"
	"  --print-ir-before=PASS|all --print-ir-after=PASS|all --print-ir-after-change --reproducer=FILE\n"
	"  --emit-ir=graph|kernel|stream  stop after that level and write its textual IR to -o\n"
	"                            (continue with `vta opt FILE --passes=default -o MODEL.vtam`)\n"
	"\n"
	"examples:\n"
	"  vta compile ../shared/models/mnist-8.onnx -o mnist.vtam \\\n"
	"      --calib=../shared/data/mnist-10k-images-idx3-ubyte --calib-count=500\n"
	"  vta compile ../shared/models/resnet8-cifar10-float.tflite -o r8.vtam \\\n"
	"      --calib=../shared/data/cifar10-test-2k.bin --calib-count=500 --calib-offset=0\n"
	"  vta compile ../shared/models/yolov3-tiny.cfg --synthetic-weights=1 --calib=synthetic -o yolo.vtam\n";

/* What `vta compile` was asked. */
typedef struct compile_args {
	const char *in, *out, *replay, *weights;
	vc_compile_opts o;
	vc_darknet_opts dk;
	const char *freeze[8]; /* --freeze=NAME=FILE.pb */
	int n_freeze;
	int print_pipeline, calib_count_set;
	/* the reproducer's values (--replay) and the reproducer's context lines */
	char r_model[4096], r_pipe[4096], r_calib[4096], r_count[32];
	char context[3 * 4096 + 128];
} compile_args;

/* The Darknet options; 1 taken, 0 not one of them, 2 a bad value (printed). */
static int darknet_opt(int argc, char **argv, int *i, compile_args *c)
{
	const char *v;
	if ((v = vc_take_opt(argc, argv, i, "--weights"))) {
		c->weights = v;
	} else if ((v = vc_take_opt(argc, argv, i, "--synthetic-weights"))) {
		char *end;
		c->dk.seed = strtoull(v, &end, 0);
		if (!*v || *end) {
			fprintf(stderr, "vta compile: --synthetic-weights=%s: expected an integer seed\n", v);
			return 2;
		}
		c->dk.synthetic = 1;
	} else if ((v = vc_take_opt(argc, argv, i, "--input-size"))) {
		c->dk.input_size = atoi(v);
		if (c->dk.input_size < 1 || c->dk.input_size > 8192) {
			fprintf(stderr, "vta compile: --input-size=%s: expected 1..8192\n", v);
			return 2;
		}
	} else {
		return 0;
	}
	return 1;
}

/* The command line into c: -1 go on, else the exit status. */
static int parse_args(int argc, char **argv, compile_args *c)
{
	vc_compile_opts *o = &c->o;
	for (int i = 0; i < argc; i++) {
		const char *v;
		int pp, dn;
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			c->out = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(vta_compile_usage, stdout);
			return 0;
		} else if ((dn = darknet_opt(argc, argv, &i, c)) != 0) {
			if (dn == 2)
				return 2;
		} else if ((v = vc_take_opt(argc, argv, &i, "--freeze"))) {
			if (!strchr(v, '=') || c->n_freeze == 8) {
				fprintf(stderr, "vta compile: --freeze=%s: expected NAME=FILE.pb (at most 8)\n", v);
				return 2;
			}
			c->freeze[c->n_freeze++] = v;
		} else if ((v = vc_take_opt(argc, argv, &i, "--replay")))
			c->replay = v;
		else if ((v = vc_take_opt(argc, argv, &i, "--pipeline")))
			o->pipeline = v;
		else if (!strcmp(argv[i], "--print-pipeline"))
			c->print_pipeline = 1;
		else if (vc_instr_opt(argc, argv, &i, &o->instr))
			;
		else if ((v = vc_take_opt(argc, argv, &i, "--calib")))
			o->calib_path = v;
		else if ((v = vc_take_opt(argc, argv, &i, "--calib-count")))
			o->calib_count = atoi(v), c->calib_count_set = 1;
		else if ((v = vc_take_opt(argc, argv, &i, "--calib-offset")))
			o->calib_offset = atoi(v), o->calib_offset_set = 1;
		else if ((pp = vc_preproc_opt(argc, argv, &i, &o->pre, "compile")) != 0) {
			if (pp < 0)
				return 2;
		} else if ((v = vc_take_opt(argc, argv, &i, "--emit-ir"))) {
			if (!(o->stop_level = vc_emit_level(v))) {
				fprintf(stderr, "vta compile: --emit-ir=%s: expected graph, kernel or stream\n", v);
				return 2;
			}
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "vta compile: unknown option %s\n", argv[i]);
			return 2;
		} else if (!c->in)
			c->in = argv[i];
		else {
			fprintf(stderr, "vta compile: more than one model given\n");
			return 2;
		}
	}
	return -1;
}

/* --replay: the model, pipeline and calibration of a reproducer; the command
 * line wins. 0, or 1 (printed). */
static int load_replay(compile_args *c)
{
	char err[1024];
	size_t len;
	uint8_t *text = vc_read_all(c->replay, &len, err, sizeof err);
	if (!text) {
		fprintf(stderr, "vta compile: --replay: %s\n", err);
		return 1;
	}
	char *t = realloc(text, len + 1);
	if (!t) {
		free(text);
		return 1;
	}
	t[len] = 0;
	int ok = strstr(t, "# vta compile reproducer") == t &&
		 repro_value(t, "pipeline", c->r_pipe, sizeof c->r_pipe) == 1 &&
		 repro_value(t, "model", c->r_model, sizeof c->r_model) == 1;
	int hc = repro_value(t, "calib", c->r_calib, sizeof c->r_calib) == 1;
	int hn = repro_value(t, "calib-count", c->r_count, sizeof c->r_count) == 1;
	free(t);
	if (!ok) {
		fprintf(stderr, "vta compile: --replay: %s is not a reproducer with 'model:' and 'pipeline:' lines\n",
			c->replay);
		return 1;
	}
	vc_compile_opts *o = &c->o;
	if (!c->in)
		c->in = c->r_model;
	if (!o->pipeline)
		o->pipeline = c->r_pipe;
	if (!o->calib_path && hc)
		o->calib_path = c->r_calib;
	if (!c->calib_count_set && hn)
		o->calib_count = atoi(c->r_count);
	fprintf(stderr, "vta compile: replaying %s: %s --pipeline='%s'%s%s\n", c->replay, c->in, o->pipeline,
		o->calib_path ? " --calib=" : "", o->calib_path ? o->calib_path : "");
	return 0;
}

/* With --reproducer, the lines that let `vta compile --replay` run it again. */
static void reproducer_context(compile_args *c)
{
	vc_compile_opts *o = &c->o;
	if (!o->instr.reproducer || !c->in)
		return;
	char a[4096], cal[4096];
	abs_path(c->in, a, sizeof a);
	int k = snprintf(c->context, sizeof c->context, "model: %s\n", a);
	if (o->calib_path) {
		if (!strcmp(o->calib_path, "synthetic"))
			snprintf(cal, sizeof cal, "synthetic");
		else
			abs_path(o->calib_path, cal, sizeof cal);
		k += snprintf(c->context + k, sizeof c->context - (size_t)k, "calib: %s\n", cal);
	}
	if (o->calib_count)
		snprintf(c->context + k, sizeof c->context - (size_t)k, "calib-count: %d\n", o->calib_count);
	o->instr.repro_context = c->context;
}

/* --print-pipeline: 0, or 1 (printed). */
static int print_pipeline(const compile_args *c)
{
	char err[1024], text[4096];
	vc_pm *pm = vc_pm_parse(c->o.pipeline ? c->o.pipeline : "vta-default", err, sizeof err);
	if (!pm) {
		fprintf(stderr, "vta compile: %s\n", err);
		return 1;
	}
	vc_pm_print(pm, text, sizeof text);
	printf("%s\n", text);
	vc_pm_free(pm);
	return 0;
}

/* The last line of a compile: what runs where. Nodes that compute (not
 * inputs and constants) on VTA and on the host, and their MACs. */
static void report(const vc_module *m, const compile_args *c, double ms)
{
	int64_t insns = 0, vta_macs = 0, host_macs = 0;
	int vta_nodes = 0, host_nodes = 0;
	for (int k = 0; k < m->n_kernels; k++)
		insns += m->kernels[k]->insn_count;
	for (int i = 0; i < m->g->n; i++) {
		const vc_node *n = m->g->nodes[i];
		if (n->op == VC_OP_INPUT || n->op == VC_OP_CONST)
			continue;
		int64_t macs = vc_node_macs(m, n);
		if (n->op == VC_OP_VTA_CONV)
			vta_nodes++, vta_macs += macs;
		else
			host_nodes++, host_macs += macs;
	}
	double share = vta_macs + host_macs ? 100.0 * (double)vta_macs / (double)(vta_macs + host_macs) : 0;
	fprintf(stderr, "vta compile: %s -> %s: %d VTA kernels, %lld instructions, %lld MACs on VTA, %.1f ms\n", c->in,
		c->out, m->n_kernels, (long long)insns, (long long)vta_macs, ms);
	fprintf(stderr, "vta compile: split: VTA %d nodes, %lld MACs (%.1f%%); host %d nodes, %lld MACs\n", vta_nodes,
		(long long)vta_macs, share, host_nodes, (long long)host_macs);
	/* the layout the compiled model takes (a model's NHWC input is NCHW here) */
	for (int i = 0; i < m->g->n_inputs; i++) {
		const vc_type *t = &m->g->inputs[i]->type;
		fprintf(stderr, "vta compile: input '%s' [", m->g->inputs[i]->name);
		for (int d = 0; d < t->rank; d++)
			fprintf(stderr, "%s%lld", d ? ", " : "", (long long)t->dim[d]);
		fprintf(stderr, "]%s\n", t->rank == 4 ? " (N, C, H, W: images and datasets are read so)" : "");
	}
}

/* The ONNX model with the --freeze inputs made constants. 0, or -1 with
 * the message in m. */
static int import_frozen(vc_module *m, const compile_args *c)
{
	vc_onnx_frozen f[8];
	uint8_t *pb[8] = {0}, *model = NULL;
	char name[8][256], err[1024];
	size_t len;
	int rc = -1;
	for (int k = 0; k < c->n_freeze; k++) {
		const char *eq = strchr(c->freeze[k], '=');
		snprintf(name[k], sizeof name[k], "%.*s", (int)(eq - c->freeze[k]), c->freeze[k]);
		if (!(pb[k] = vc_read_all(eq + 1, &f[k].len, err, sizeof err))) {
			vc_error(m, NULL, "--freeze=%s: %s", c->freeze[k], err);
			goto done;
		}
		f[k].name = name[k];
		f[k].pb = pb[k];
	}
	if (!(model = vc_read_all(c->in, &len, err, sizeof err))) {
		vc_error(m, NULL, "%s", err);
	} else if ((rc = vc_import_onnx_frozen(m, model, len, f, c->n_freeze)) != 0) {
		char pre[512];
		snprintf(pre, sizeof pre, "%.500s: ", c->in);
		vc_error_prefix(m, pre);
	}
done:
	for (int i = 0; i < 8; i++)
		free(pb[i]);
	free(model);
	return rc;
}

/* Import, compile and write. 0, or 1 (printed). */
static int compile_model(compile_args *c, int darknet)
{
	char err[1024], meta[512];
	vc_compile_opts *o = &c->o;
	vc_module *m = vc_module_new();
	if (!m)
		return 1;
	if (isatty(2))
		m->progress = vc_tty_progress;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = 1;
	if (darknet ? vc_import_darknet_files(m, c->in, c->weights, &c->dk)
		    : c->n_freeze ? import_frozen(m, c) : vc_import_file(m, c->in)) {
		fprintf(stderr, "vta compile: %s\n", m->diag.msg);
	} else if (vc_compile(m, o, err, sizeof err)) {
		fprintf(stderr, "vta compile: %s\n", err);
		if (o->instr.reproducer)
			fprintf(stderr, "vta compile: reproducer written to %s\n", o->instr.reproducer);
	} else if (vc_preproc_meta(&o->pre, meta, sizeof meta)) {
		fprintf(stderr, "vta compile: the preprocessing does not fit the META section\n");
	} else if (o->stop_level && vc_write_ir(m, c->out, err, sizeof err)) {
		fprintf(stderr, "vta compile: %s\n", err);
	} else if (!o->stop_level && vc_artifact_write_meta(m, c->out, meta)) {
		fprintf(stderr, "vta compile: %s\n", m->diag.msg);
	} else {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		report(m, c, 1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec));
		rc = 0;
	}
	vc_module_free(m);
	return rc;
}

static int run(int argc, char **argv, compile_args *c)
{
	int rc = parse_args(argc, argv, c);
	if (rc >= 0)
		return rc;
	if (c->replay && load_replay(c))
		return 1;
	reproducer_context(c);
	c->o.instr.out = stderr; /* the reports of --print-ir-*, --stats, --time-passes */
	vc_guard_install(&c->o.instr);
	if (c->print_pipeline) {
		if (print_pipeline(c))
			return 1;
		if (!c->in)
			return 0;
	}
	if (!c->in || !c->out) {
		fputs(vta_compile_usage, stderr);
		return 2;
	}
	int darknet = vc_model_format_of(c->in) == VC_FORMAT_DARKNET;
	if (!darknet && (c->weights || c->dk.synthetic || c->dk.input_size)) {
		fprintf(stderr, "vta compile: --weights, --synthetic-weights and --input-size are for Darknet cfg models\n");
		return 2;
	}
	if (c->n_freeze && vc_model_format_of(c->in) != VC_FORMAT_ONNX) {
		fprintf(stderr, "vta compile: --freeze is for ONNX models\n");
		return 2;
	}
	if (darknet && !!c->weights == !!c->dk.synthetic) {
		fprintf(stderr, "vta compile: %s: give exactly one of --weights=FILE and --synthetic-weights=SEED\n", c->in);
		return 2;
	}
	return compile_model(c, darknet);
}

int vta_cmd_compile(int argc, char **argv)
{
	compile_args *c = calloc(1, sizeof *c);
	if (!c)
		return 1;
	int rc = run(argc, argv, c);
	free(c);
	return rc;
}
