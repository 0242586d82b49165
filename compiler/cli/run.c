/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `vta run`: a compiled model on a target (fsim, rtl, ...) through libvta's
 * model API (<vta/model.h>, what applications use), or on the host with the
 * compiler's reference (--simulate), on single inputs or a dataset
 * (accuracy: C/N = P%).
 *
 *   vta run MODEL.vtam [--target=fsim|rtl|...] [--input=FILE]... [--top=K]
 *       [--dataset=IDX-IMAGES --labels=IDX-LABELS | --dataset=CIFAR.bin] [--format=auto|idx|cifar]
 *       [--count=N] [--show=N] [--simulate]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <math.h>

#include <vta/model.h>

#include "cli/cli.h"

static void top_k(const float *v, int64_t n, int k, int *idx)
{
	for (int j = 0; j < k; j++) {
		int best = -1;
		for (int64_t i = 0; i < n; i++) {
			int taken = 0;
			for (int q = 0; q < j; q++)
				taken |= idx[q] == (int)i;
			if (!taken && (best < 0 || v[i] > v[best]))
				best = (int)i;
		}
		idx[j] = best;
	}
}

/*
 * `vta run`: the command line (options, input sources, output formats) is
 * kept apart from the execution (run_model), which only maps one input
 * tensor to the model's outputs through libvta or the host simulation.
 */

const char vta_run_usage[] =
	"usage: vta run MODEL.vtam [--target=fsim|rtl|...] INPUTS [options]\n"
	"\n"
	"inputs (one of):\n"
	"  --input=FILE...           images (any format stb_image reads: PNG, BMP, JPEG, ...; resized\n"
	"                            to the model input bilinearly with antialiasing, as PIL) or raw\n"
	"                            float32 tensors of the input's size\n"
	"  --input=random            a seeded random image (pixels 0..255; --seed=N, default 1)\n"
	"  --dataset=FILE            IDX images (+ --labels=IDX labels) or CIFAR-10 binary (*.bin);\n"
	"                            --format=auto|idx|cifar, --count=N (first N samples)\n"
	"options:\n"
	"  --labels=FILE             class names, one per line (or IDX labels of a --dataset)\n"
	"  --top=K                   classes shown per input (default 5)\n"
	"  --json                    one JSON object per input:\n"
	"                            {\"input\": ..., \"top\": [{\"index\", \"label\", \"prob\"}, ...]}\n"
	"                            (detectors: \"detections\": [{\"class\", \"label\", \"prob\", \"box\"}])\n"
	"  --scale=S --mean=M[,M..] --std=S[,S..]   pixel preprocessing: (pixel * S - mean) / std per\n"
	"                            channel (images, datasets, random; not raw tensors); default:\n"
	"                            what vta compile recorded with the same options\n"
	"  --output=DIR              every graph output of every input as DIR/INPUT.OUTPUT.npy (NumPy\n"
	"                            format 1.0, C order; DIR made if missing); with --json each\n"
	"                            object gets \"outputs\": [{\"name\", \"shape\", \"dtype\", \"file\"}]\n"
	"  --thresh=P --nms=IOU      detectors: box threshold (0.5) and suppression overlap (0.45)\n"
	"  --show=N                  print the first N dataset predictions\n"
	"  --simulate                run on the host only, by the compiler's reference (VTA kernels by\n"
	"                            its int8 model); otherwise everything runs through libvta\n"
	"  --stats                   after each input, the per-layer table: name, operator, vta or\n"
	"                            host, MACs, device cycles, MAC utilization, load / compute / store\n"
	"                            busy cycles (the device's counters), the host time of host layers,\n"
	"                            and a total line (not with --simulate); with --json\n"
	"                            one more object: {\"cycles\": N, \"layers\": [{\"name\", \"op\", \"on\", ...}]}\n"
	"With a labelled dataset it ends with 'accuracy: C/N = P%'. Progress (inputs; VTA kernels for one input) goes to a terminal only.\n"
	"\n"
	"examples:\n"
	"  vta run mnist.vtam --dataset=../shared/data/mnist-10k-images-idx3-ubyte \\\n"
	"      --labels=../shared/data/mnist-10k-labels-idx1-ubyte --count=1000\n"
	"  vta run r18.vtam --input=../shared/images/cat.bmp --labels=../shared/models/imagenet_labels.txt --top=3 --json\n"
	"  vta run yolo.vtam --input=random --target=rtl\n"
	"  vta run seg.vtam --input=photo.jpg --output=out   (out/photo.<output>.npy)\n";

typedef struct run_opts {
	const char *model, *target, *dataset, *labels, *output;
	const char *inputs[64];
	int n_inputs, random, topk, count, show, simulate, json, stats;
	uint64_t seed;
	vc_dataset_format fmt;
	vc_preproc pre;
	float thresh, nms;
} run_opts;

/* Execution: one inference, by libvta's model API on the target (vm), or
 * on the host by the compiler's reference (vm NULL: --simulate, the oracle
 * the tests hold libvta to). out[] gets the graph's output types. */
static int run_model(vc_module *m, vta_model_t *vm, const vc_tensor *in, vc_tensor *out, char *err, size_t n)
{
	if (!vm) {
		if (vc_simulate(m, in, out)) {
			snprintf(err, n, "%s", m->diag.msg);
			return -1;
		}
		return 0;
	}
	const vc_graph *g = m->g;
	vta_tensor_t ti = {VTA_DTYPE_F32, 0, in->data, (size_t)vc_type_bytes(&in->t)}, to[8];
	for (int q = 0; q < g->n_outputs; q++) {
		if (vc_tensor_alloc(&out[q], &g->outputs[q]->type)) {
			for (int k = 0; k < q; k++)
				vc_tensor_free(&out[k]);
			snprintf(err, n, "out of memory for the outputs");
			return -1;
		}
		to[q] = (vta_tensor_t){(int)out[q].t.dtype, out[q].t.exp, out[q].data, (size_t)vc_type_bytes(&out[q].t)};
	}
	vta_error_t e;
	if (vta_model_run(vm, &ti, to, &e)) {
		for (int q = 0; q < g->n_outputs; q++)
			vc_tensor_free(&out[q]);
		snprintf(err, n, "%s", e.msg);
		return -1;
	}
	return 0;
}

int vc_eval_dataset(vc_module *m, vta_model_t *vm, const vc_dataset *d, int count, int topk, int show, FILE *out,
		    int *correct, char *err, size_t n)
{
	vc_graph *g = m->g;
	*correct = 0;
	if (g->n_inputs != 1) {
		snprintf(err, n, "models with %d inputs cannot run a dataset", g->n_inputs);
		return -1;
	}
	vc_tensor in;
	if (vc_tensor_alloc(&in, &g->inputs[0]->type)) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	int64_t elems = vc_type_elems(&in.t);
	if ((int64_t)d->channels * d->rows * d->cols != elems) {
		snprintf(err, n, "dataset images are %dx%dx%d (channels x rows x columns), the model input '%s' takes %lld values",
			 d->channels, d->rows, d->cols, g->inputs[0]->name, (long long)elems);
		vc_tensor_free(&in);
		return -1;
	}
	int total = count > 0 && count < d->count ? count : d->count, s;
	if (topk < 1)
		topk = 1;
	for (s = 0; s < total; s++) {
		float *x = in.data;
		const uint8_t *px = d->pixels + (size_t)s * (size_t)elems;
		for (int64_t i = 0; i < elems; i++)
			x[i] = px[i];
		vc_tensor o[8];
		char e[1024];
		if (run_model(m, vm, &in, o, e, sizeof e)) {
			snprintf(err, n, "sample %d: %s", s, e);
			break;
		}
		int64_t no = vc_type_elems(&o[0].t);
		int k = topk < no ? topk : (int)no, idx[64];
		if (k > 64)
			k = 64;
		if (o[0].t.dtype == VC_F32) {
			top_k(o[0].data, no, k, idx);
			if (d->labels)
				*correct += idx[0] == d->labels[s];
			if (s < show && out) {
				if (d->rows <= 64) { /* ASCII art, the mean of the channels */
					static const char shade[] = " .:-=+*#%@";
					int64_t plane = (int64_t)d->rows * d->cols;
					for (int y = 0; y < d->rows; y += 2) {
						for (int xx = 0; xx < d->cols; xx++) {
							int v = 0;
							for (int c = 0; c < d->channels; c++)
								v += px[c * plane + y * d->cols + xx];
							fputc(shade[v / d->channels * 9 / 255], out);
						}
						fputc('\n', out);
					}
				}
				fprintf(out, "sample: #%d", s);
				if (d->labels)
					fprintf(out, " label %d", d->labels[s]);
				fprintf(out, " top-%d", k);
				for (int j = 0; j < k; j++)
					fprintf(out, " %d (%.3f)", idx[j], ((float *)o[0].data)[idx[j]]);
				fprintf(out, "\n");
			}
		} else {
			snprintf(err, n, "the output '%s' is not float32", g->outputs[0]->name);
			s = -1;
		}
		for (int q = 0; q < g->n_outputs; q++)
			vc_tensor_free(&o[q]);
		if (s < 0)
			break;
	}
	vc_tensor_free(&in);
	return s == total ? total : -1;
}

static void kernel_progress(void *ctx, int done, int total)
{
	vc_tty_progress(ctx, "VTA kernels", done, total);
}

/* Class names, one per line (a trailing empty line ignored). */
static char **read_label_names(const char *path, int *n, char *err, size_t en)
{
	size_t len;
	uint8_t *buf = vc_read_all(path, &len, err, en);
	*n = 0;
	if (!buf)
		return NULL;
	int lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	char **names = calloc((size_t)lines + 1, sizeof *names);
	char *text = realloc(buf, len + 1);
	if (!names || !text) {
		free(names);
		free(text ? text : (char *)buf);
		snprintf(err, en, "out of memory");
		return NULL;
	}
	text[len] = 0;
	names[0] = text; /* owns the text */
	for (char *s = text; s && *s;) {
		char *e = strchr(s, '\n');
		if (e)
			*e = 0;
		size_t k = strlen(s);
		if (k && s[k - 1] == '\r')
			s[k - 1] = 0;
		names[1 + (*n)++] = s;
		s = e ? e + 1 : NULL;
	}
	return names;
}

static void free_label_names(char **names)
{
	if (names)
		free(names[0]);
	free(names);
}

static int is_idx_labels(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t h[4] = {0};
	if (f) {
		if (fread(h, 1, 4, f) != 4)
			h[0] = 1;
		fclose(f);
	}
	return h[0] == 0 && h[1] == 0 && h[2] == 8 && h[3] == 1;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The node an output value comes from, through dequantize. */
static const vc_node *source_of(const vc_node *n)
{
	while (n->op == VC_OP_DEQUANTIZE && n->n_in)
		n = n->in[0];
	return n;
}

/* Probabilities of a classifier output: the model's own softmax, or a
 * softmax of its scores. */
static void probabilities(const vc_module *m, const vc_tensor *o, float *p)
{
	int64_t n = vc_type_elems(&o->t);
	const float *v = o->data;
	if (source_of(m->g->outputs[0])->op == VC_OP_SOFTMAX) {
		memcpy(p, v, (size_t)n * sizeof *p);
		return;
	}
	double mx = -INFINITY, sum = 0;
	for (int64_t i = 0; i < n; i++)
		mx = v[i] > mx ? v[i] : mx;
	for (int64_t i = 0; i < n; i++)
		sum += exp(v[i] - mx);
	for (int64_t i = 0; i < n; i++)
		p[i] = (float)(exp(v[i] - mx) / sum);
}

static const char *label_of(char **names, int n_names, int i, char *buf, size_t n)
{
	if (names && i >= 0 && i < n_names)
		return names[1 + i];
	snprintf(buf, n, "%d", i);
	return buf;
}

/* Output formatting of one input's result. */
static void print_result(const run_opts *o, const vc_module *m, const char *name, const vc_tensor *out, char **names,
			 int n_names, int label, int print, int *top1, const char *files)
{
	char lb[32];
	const vc_graph *g = m->g;
	if (source_of(g->outputs[0])->op == VC_OP_YOLO) {
		vc_box *boxes;
		int nb = vc_yolo_decode(m, out, g->n_outputs, o->thresh, o->nms, &boxes);
		*top1 = -1;
		if (!print || nb < 0) {
			free(boxes);
			return;
		}
		if (o->json) {
			printf("{\"input\": ");
			json_string(stdout, name);
			printf(", \"detections\": [");
			for (int i = 0; i < nb; i++) {
				printf("%s{\"class\": %d, \"label\": ", i ? ", " : "", boxes[i].cls);
				json_string(stdout, label_of(names, n_names, boxes[i].cls, lb, sizeof lb));
				printf(", \"prob\": %.6f, \"box\": [%.4f, %.4f, %.4f, %.4f]}", boxes[i].prob, boxes[i].x,
				       boxes[i].y, boxes[i].w, boxes[i].h);
			}
			printf("]%s}\n", files);
		} else {
			printf("%s: %d detection%s%s\n", name, nb, nb == 1 ? "" : "s",
			       nb > o->topk ? " (the best --top shown)" : "");
			for (int i = 0; i < nb && i < o->topk; i++)
				printf("  %s %.3f at x=%.3f y=%.3f w=%.3f h=%.3f\n",
				       label_of(names, n_names, boxes[i].cls, lb, sizeof lb), boxes[i].prob, boxes[i].x,
				       boxes[i].y, boxes[i].w, boxes[i].h);
		}
		free(boxes);
		return;
	}
	int64_t n = vc_type_elems(&out[0].t);
	float *p = malloc((size_t)n * sizeof *p);
	if (!p)
		return;
	probabilities(m, &out[0], p);
	int k = o->topk < n ? o->topk : (int)n, idx[64];
	if (k > 64)
		k = 64;
	top_k(p, n, k, idx);
	*top1 = idx[0];
	if (!print) {
		free(p);
		return;
	}
	if (o->json) {
		printf("{\"input\": ");
		json_string(stdout, name);
		if (label >= 0)
			printf(", \"label\": %d", label);
		printf(", \"top\": [");
		for (int j = 0; j < k; j++) {
			printf("%s{\"index\": %d, \"label\": ", j ? ", " : "", idx[j]);
			json_string(stdout, label_of(names, n_names, idx[j], lb, sizeof lb));
			printf(", \"prob\": %.6f}", p[idx[j]]);
		}
		printf("]%s}\n", files);
	} else {
		printf("%s:", name);
		if (label >= 0)
			printf(" label %d", label);
		printf(" top-%d", k);
		for (int j = 0; j < k; j++) {
			if (names)
				printf(" %d %s (%.3f)", idx[j], label_of(names, n_names, idx[j], lb, sizeof lb), p[idx[j]]);
			else
				printf(" %d (%.3f)", idx[j], p[idx[j]]);
		}
		printf("\n");
	}
	free(p);
}

/* Pixels (0..255) to model values: (pixel * scale - mean[c]) / std[c]. */
static void preprocess(const run_opts *o, vc_tensor *in)
{
	vc_preproc_apply(&o->pre, &in->t, in->data);
}

static int parse_run(int argc, char **argv, run_opts *o)
{
	memset(o, 0, sizeof *o);
	o->topk = 5;
	o->seed = 1;
	o->thresh = 0.5f;
	o->nms = 0.45f;
	for (int i = 0; i < argc; i++) {
		const char *v;
		int pp;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(vta_run_usage, stdout);
			return 1;
		} else if ((v = vc_take_opt(argc, argv, &i, "--target")))
			o->target = v;
		else if ((v = vc_take_opt(argc, argv, &i, "--input"))) {
			if (!strcmp(v, "random")) {
				o->random = 1;
				continue;
			}
			if (o->n_inputs == 64) {
				fprintf(stderr, "vta run: at most 64 --input files\n");
				return 2;
			}
			o->inputs[o->n_inputs++] = v;
		} else if ((v = vc_take_opt(argc, argv, &i, "--dataset")))
			o->dataset = v;
		else if ((v = vc_take_opt(argc, argv, &i, "--format"))) {
			if (vc_dataset_format_parse(v, &o->fmt)) {
				fprintf(stderr, "vta run: --format=%s: expected auto, idx or cifar\n", v);
				return 2;
			}
		} else if ((v = vc_take_opt(argc, argv, &i, "--labels")))
			o->labels = v;
		else if ((v = vc_take_opt(argc, argv, &i, "--output")))
			o->output = v;
		else if ((v = vc_take_opt(argc, argv, &i, "--count")))
			o->count = atoi(v);
		else if ((v = vc_take_opt(argc, argv, &i, "--top")))
			o->topk = atoi(v);
		else if ((v = vc_take_opt(argc, argv, &i, "--show")))
			o->show = atoi(v);
		else if ((v = vc_take_opt(argc, argv, &i, "--seed")))
			o->seed = strtoull(v, NULL, 0);
		else if ((v = vc_take_opt(argc, argv, &i, "--thresh")))
			o->thresh = (float)atof(v);
		else if ((v = vc_take_opt(argc, argv, &i, "--nms")))
			o->nms = (float)atof(v);
		else if ((pp = vc_preproc_opt(argc, argv, &i, &o->pre, "run")) != 0) {
			if (pp < 0)
				return 2;
		} else if (!strcmp(argv[i], "--json"))
			o->json = 1;
		else if (!strcmp(argv[i], "--stats"))
			o->stats = 1;
		else if (!strcmp(argv[i], "--simulate"))
			o->simulate = 1;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "vta run: unknown option %s (vta run --help lists them)\n", argv[i]);
			return 2;
		} else if (!o->model)
			o->model = argv[i];
		else {
			fprintf(stderr, "vta run: more than one model given\n");
			return 2;
		}
	}
	if (!o->model || (!o->n_inputs && !o->dataset && !o->random)) {
		fputs(vta_run_usage, stderr);
		return 2;
	}
	if (o->topk < 1)
		o->topk = 1;
	if (o->stats && o->simulate) {
		fprintf(stderr, "vta run: --stats reports the device's counters; it does not go with --simulate\n");
		return 2;
	}
	return 0;
}

/* What one `vta run` holds between its steps. */
typedef struct run_state {
	run_opts o;
	vc_module *m;      /* the compiler's reading of the model: types, names, the --simulate reference */
	vta_model_t *vm;   /* libvta's, on the target (NULL with --simulate) */
	vc_dataset d;
	vc_tensor in;
	char **names;      /* --labels: class names */
	int n_names, tty;
} run_state;

/* Labels, the model (both readings), the dataset and the preprocessing;
 * 0, or 1 with the reason printed. */
static int run_open(run_state *st)
{
	run_opts *o = &st->o;
	char err[1024];
	const char *ds_labels = NULL;
	if (o->labels) {
		if (o->dataset && is_idx_labels(o->labels))
			ds_labels = o->labels;
		else if (!(st->names = read_label_names(o->labels, &st->n_names, err, sizeof err))) {
			fprintf(stderr, "vta run: --labels: %s\n", err);
			return 1;
		}
	}
	if (vc_artifact_read(st->m, o->model)) {
		fprintf(stderr, "vta run: %s: %s\n", o->model, st->m->diag.msg);
		return 1;
	}
	int kernel_tty = st->tty && !o->dataset && o->n_inputs + o->random == 1; /* one input; several show inputs */
	if (kernel_tty)
		st->m->progress = vc_tty_progress;
	vc_graph *g = st->m->g;
	if (g->n_inputs != 1) {
		fprintf(stderr, "vta run: models with %d inputs are not supported by this command\n", g->n_inputs);
		return 1;
	}
	if (o->dataset && vc_dataset_load(o->dataset, ds_labels, o->fmt, &st->d, err, sizeof err)) {
		fprintf(stderr, "vta run: %s\n", err);
		return 1;
	}
	/* no --scale/--mean/--std given: the preprocessing vta compile recorded */
	if (!o->pre.scale && !o->pre.n_mean && !o->pre.n_std && vc_preproc_recorded(o->model, &o->pre, err, sizeof err) < 0) {
		fprintf(stderr, "vta run: %s\n", err);
		return 1;
	}
	struct stat sb;
	int derr = !o->output ? 0 : stat(o->output, &sb) ? (mkdir(o->output, 0777) ? errno : 0) : S_ISDIR(sb.st_mode) ? 0 : ENOTDIR;
	if (derr) {
		fprintf(stderr, "vta run: --output=%s: %s\n", o->output, strerror(derr));
		return 1;
	}
	vta_error_t verr;
	if (!o->simulate && vta_model_open(o->model, o->target, &st->vm, &verr)) {
		fprintf(stderr, "vta run: %s\n", verr.msg);
		return 1;
	}
	if (st->vm && kernel_tty)
		vta_model_set_progress(st->vm, kernel_progress, NULL);
	if (vc_tensor_alloc(&st->in, &g->inputs[0]->type)) {
		fprintf(stderr, "vta run: out of memory\n");
		return 1;
	}
	int64_t elems = vc_type_elems(&st->in.t);
	if (o->dataset && (int64_t)st->d.channels * st->d.rows * st->d.cols != elems) {
		fprintf(stderr, "vta run: %s: images are %dx%dx%d (channels x rows x columns), the model input '%s' takes %lld values\n",
			o->dataset, st->d.channels, st->d.rows, st->d.cols, g->inputs[0]->name, (long long)elems);
		return 1;
	}
	return 0;
}

/* Input s into st->in (a dataset sample, a file, or random pixels),
 * preprocessed; its name and label. 0, or 1 with the reason printed. */
static int run_input(run_state *st, int s, char *name, size_t nn, int *label)
{
	const run_opts *o = &st->o;
	int64_t elems = vc_type_elems(&st->in.t);
	float *x = st->in.data;
	char err[1024];
	*label = -1;
	if (o->dataset) {
		const uint8_t *px = st->d.pixels + (size_t)s * (size_t)elems;
		for (int64_t i = 0; i < elems; i++)
			x[i] = px[i];
		*label = st->d.labels ? st->d.labels[s] : -1;
		snprintf(name, nn, "#%d", s);
	} else if (s < o->n_inputs) {
		if (vc_read_input(o->inputs[s], &st->in.t, x, err, sizeof err)) {
			fprintf(stderr, "vta run: %s\n", err);
			return 1;
		}
		size_t len;
		uint8_t *b = vc_read_all(o->inputs[s], &len, err, sizeof err);
		int raw = b && len == (size_t)elems * 4; /* a raw tensor is taken as it is */
		free(b);
		snprintf(name, nn, "%s", o->inputs[s]);
		if (raw)
			return 0;
	} else {
		uint64_t r = o->seed * 0x9E3779B97F4A7C15ull + 1;
		for (int64_t i = 0; i < elems; i++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			x[i] = (float)(r >> 56);
		}
		snprintf(name, nn, "random(seed=%llu)", (unsigned long long)o->seed);
	}
	preprocess(o, &st->in);
	return 0;
}

/* The file name part of input name: the base name without its extension
 * (a file), "sample<N>" (a dataset's "#N") or "random" (--input=random);
 * other than letters, digits, '-', '_' and '.' made '_'. */
static void file_part(const char *name, char *out, size_t n)
{
	const char *b = strrchr(name, '/');
	b = b ? b + 1 : name;
	if (name[0] == '#')
		snprintf(out, n, "sample%s", name + 1);
	else if (!strncmp(name, "random(", 7))
		snprintf(out, n, "random");
	else
		snprintf(out, n, "%s", b);
	char *dot = name[0] == '#' ? NULL : strrchr(out, '.');
	if (dot && dot != out)
		*dot = 0;
	for (char *c = out; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("-_.", *c)))
			*c = '_';
}

/* --output=DIR: every graph output of this input as DIR/<input>.<output>.npy;
 * a line per file (json NULL), or to json the "outputs" member of the
 * input's JSON object (name, shape, dtype, file). 0, or 1 with the reason
 * printed. */
static int write_outputs(const run_state *st, const char *name, const vc_tensor *out, FILE *json)
{
	const vc_graph *g = st->m->g;
	char base[512], oname[128], path[4200], err[4400];
	file_part(name, base, sizeof base);
	if (json)
		fputs(", \"outputs\": [", json);
	for (int q = 0; q < g->n_outputs; q++) {
		file_part(g->outputs[q]->name, oname, sizeof oname);
		snprintf(path, sizeof path, "%s/%s.%s.npy", st->o.output, base, oname);
		if (vc_npy_write(path, &out[q].t, out[q].data, err, sizeof err)) {
			fprintf(stderr, "vta run: --output: %s\n", err);
			return 1;
		}
		const vc_type *t = &out[q].t;
		const char *dt = t->dtype == VC_F32 ? "float32" : t->dtype == VC_I8 ? "int8" : "int32";
		char shape[160] = "";
		for (int i = 0, m = 0; i < t->rank; i++)
			m += snprintf(shape + m, sizeof shape - (size_t)m, "%s%lld", i ? ", " : "", (long long)t->dim[i]);
		if (!json) {
			printf("  output '%s' [%s] %s -> %s\n", g->outputs[q]->name, shape, dt, path);
			continue;
		}
		fprintf(json, "%s{\"name\": ", q ? ", " : "");
		json_string(json, g->outputs[q]->name);
		fprintf(json, ", \"shape\": [%s], \"dtype\": \"%s\", \"file\": ", shape, dt);
		json_string(json, path);
		fputc('}', json);
	}
	if (json)
		fputc(']', json);
	return 0;
}

/* --stats: the per-layer table (or JSON object) of the last run, the
 * device's counters as libvta reports them. */
static void run_stats(const run_state *st)
{
	vta_model_stats_t ms;
	vc_layer_stats *l;
	int nl;
	if (!st->vm || vta_model_stats(st->vm, &ms) || vc_stats_collect(st->m, &ms, &l, &nl))
		return;
	if (st->o.json)
		vc_stats_json(stdout, l, nl);
	else
		vc_stats_table(stdout, l, nl);
	vc_stats_free(l, nl);
}

/* Every input through the model, its result printed; the top-1 hits of a
 * labelled dataset in *correct. 0, or 1 with the reason printed. */
static int run_all(run_state *st, int total, int *correct)
{
	const vc_graph *g = st->m->g;
	for (int s = 0; s < total; s++) {
		char name[4200], err[1024];
		int label;
		if (run_input(st, s, name, sizeof name, &label))
			return 1;
		vc_tensor out[8];
		if (run_model(st->m, st->vm, &st->in, out, err, sizeof err)) {
			fprintf(stderr, "vta run: %s: %s\n", name, err);
			return 1;
		}
		int top1 = -1, print = !st->o.dataset || st->o.json || s < st->o.show, bad = out[0].t.dtype != VC_F32;
		if (bad)
			fprintf(stderr, "vta run: the output '%s' is not float32\n", g->outputs[0]->name);
		if (!bad && print && st->tty && total > 1)
			fprintf(stderr, "\r%*s\r", 40, "");
		/* with --json the files' member goes inside the input's object */
		char *files = NULL;
		size_t flen = 0;
		FILE *fj = !bad && st->o.output && st->o.json ? open_memstream(&files, &flen) : NULL;
		if (fj) {
			bad = write_outputs(st, name, out, fj);
			bad |= fclose(fj) != 0;
		} else if (!bad && st->o.output && st->o.json) {
			fprintf(stderr, "vta run: out of memory\n");
			bad = 1;
		}
		if (!bad)
			print_result(&st->o, st->m, name, out, st->names, st->n_names, label, print, &top1, files ? files : "");
		free(files);
		if (!bad && st->o.output && !st->o.json)
			bad = write_outputs(st, name, out, NULL);
		if (!bad && st->o.stats)
			run_stats(st);
		fflush(stdout);
		*correct += label >= 0 && top1 == label;
		for (int q = 0; q < g->n_outputs; q++)
			vc_tensor_free(&out[q]);
		if (bad)
			return 1;
		if (st->tty && total > 1)
			vc_tty_progress(NULL, "vta run: inputs", s + 1, total);
	}
	return 0;
}

int vta_cmd_run(int argc, char **argv)
{
	run_state st = {.tty = isatty(2)};
	int prc = parse_run(argc, argv, &st.o);
	if (prc)
		return prc == 1 ? 0 : prc;
	if (!(st.m = vc_module_new()))
		return 1;
	const run_opts *o = &st.o;
	int rc = run_open(&st), correct = 0;
	int total = o->dataset ? (o->count > 0 && o->count < st.d.count ? o->count : st.d.count) : o->n_inputs + o->random;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!rc)
		rc = run_all(&st, total, &correct);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	if (!rc && o->dataset && st.d.labels)
		printf("accuracy: %d/%d = %.2f%% (top-1, %s, %.2f ms per sample)\n", correct, total,
		       100.0 * correct / (total ? total : 1), o->simulate ? "host simulation" : o->target ? o->target : "default target",
		       1e3 * secs / (total ? total : 1));
	free_label_names(st.names);
	vc_tensor_free(&st.in);
	vc_dataset_free(&st.d);
	vta_model_close(st.vm);
	vc_module_free(st.m);
	return rc;
}
