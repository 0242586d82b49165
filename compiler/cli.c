/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compiler driver and the `vta compile` / `vta run` commands.
 *
 *   vta compile MODEL.onnx -o MODEL.vtam [--pipeline=TEXT|NAME] [--print-pipeline]
 *       [--verify-each] [--time-passes] [--stats] [--print-ir-before=PASS|all]
 *       [--print-ir-after=PASS|all] [--reproducer=FILE] [--calib=IDX-IMAGES|CIFAR.bin] [--calib-count=N]
 *   vta compile --replay=REPRODUCER -o MODEL.vtam [options]
 *   vta run MODEL.vtam [--target=fsim|rtl|...] [--input=FILE]... [--top=K]
 *       [--dataset=IDX-IMAGES --labels=IDX-LABELS | --dataset=CIFAR.bin] [--format=auto|idx|cifar]
 *       [--count=N] [--show=N] [--simulate]
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <stb/stb_image.h>

#include "vc.h"

/* ---- datasets -------------------------------------------------------- */

static uint8_t *read_all(const char *path, size_t *len, char *err, size_t n)
{
	uint8_t *buf;
	vta_error_t e;
	if (vta_read_file(path, &buf, len, &e)) {
		snprintf(err, n, "%s", e.msg);
		return NULL;
	}
	return buf;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int vc_dataset_load_idx(const char *images, const char *labels, vc_dataset *d, char *err, size_t n)
{
	memset(d, 0, sizeof *d);
	size_t len;
	uint8_t *buf = read_all(images, &len, err, n);
	if (!buf)
		return -1;
	if (len < 16 || be32(buf) != 0x803 || (uint64_t)be32(buf + 4) * be32(buf + 8) * be32(buf + 12) != len - 16) {
		snprintf(err, n, "%s is not an IDX3 ubyte image file", images);
		free(buf);
		return -1;
	}
	d->count = (int)be32(buf + 4), d->rows = (int)be32(buf + 8), d->cols = (int)be32(buf + 12);
	d->channels = 1;
	d->pixels = malloc(len - 16 ? len - 16 : 1);
	if (!d->pixels) {
		free(buf);
		snprintf(err, n, "out of memory");
		return -1;
	}
	memcpy(d->pixels, buf + 16, len - 16);
	free(buf);
	if (!labels)
		return 0;
	buf = read_all(labels, &len, err, n);
	if (!buf) {
		vc_dataset_free(d);
		return -1;
	}
	if (len < 8 || be32(buf) != 0x801 || be32(buf + 4) != (uint32_t)d->count || len != 8 + (size_t)d->count) {
		snprintf(err, n, "%s is not an IDX1 label file for %d images", labels, d->count);
		free(buf);
		vc_dataset_free(d);
		return -1;
	}
	d->labels = malloc((size_t)d->count + 1);
	if (d->labels)
		memcpy(d->labels, buf + 8, (size_t)d->count);
	free(buf);
	return d->labels ? 0 : -1;
}

int vc_dataset_load_cifar(const char *path, int channels, int rows, int cols, vc_dataset *d, char *err, size_t n)
{
	memset(d, 0, sizeof *d);
	if (channels < 1 || rows < 1 || cols < 1 || (int64_t)channels * rows * cols > (1 << 26)) {
		snprintf(err, n, "%s: bad CIFAR record shape %dx%dx%d", path, channels, rows, cols);
		return -1;
	}
	size_t len, img = (size_t)channels * (size_t)rows * (size_t)cols, rec = img + 1;
	uint8_t *buf = read_all(path, &len, err, n);
	if (!buf)
		return -1;
	if (len == 0 || len % rec) {
		snprintf(err, n,
			 "%s is not a CIFAR binary file: %zu bytes is not a whole number of %zu-byte records "
			 "(1 label byte + %dx%dx%d pixels)%s",
			 path, len, rec, channels, rows, cols, len ? "" : "; the file is empty");
		free(buf);
		return -1;
	}
	if (len / rec > 0x7fffffff) {
		snprintf(err, n, "%s: too many records", path);
		free(buf);
		return -1;
	}
	d->count = (int)(len / rec), d->channels = channels, d->rows = rows, d->cols = cols;
	d->pixels = malloc((size_t)d->count * img);
	d->labels = malloc((size_t)d->count);
	if (!d->pixels || !d->labels) {
		free(buf);
		vc_dataset_free(d);
		snprintf(err, n, "out of memory reading %s", path);
		return -1;
	}
	for (int i = 0; i < d->count; i++) {
		d->labels[i] = buf[(size_t)i * rec];
		memcpy(d->pixels + (size_t)i * img, buf + (size_t)i * rec + 1, img);
	}
	free(buf);
	return 0;
}

int vc_dataset_format_parse(const char *s, vc_dataset_format *f)
{
	if (!strcmp(s, "auto"))
		*f = VC_DATASET_AUTO;
	else if (!strcmp(s, "idx"))
		*f = VC_DATASET_IDX;
	else if (!strcmp(s, "cifar"))
		*f = VC_DATASET_CIFAR;
	else
		return -1;
	return 0;
}

int vc_dataset_load(const char *images, const char *labels, vc_dataset_format f, vc_dataset *d, char *err, size_t n)
{
	if (f == VC_DATASET_AUTO) {
		size_t k = strlen(images);
		f = k >= 4 && !strcmp(images + k - 4, ".bin") ? VC_DATASET_CIFAR : VC_DATASET_IDX;
	}
	if (f == VC_DATASET_IDX)
		return vc_dataset_load_idx(images, labels, d, err, n);
	if (labels) {
		memset(d, 0, sizeof *d);
		snprintf(err, n, "%s: a CIFAR binary file carries its labels; --labels=%s is for IDX datasets", images,
			 labels);
		return -1;
	}
	return vc_dataset_load_cifar(images, 3, 32, 32, d, err, n);
}

void vc_dataset_free(vc_dataset *d)
{
	free(d->pixels);
	free(d->labels);
	memset(d, 0, sizeof *d);
}

/* ---- compile --------------------------------------------------------- */

int vc_compile(vc_module *m, const vc_compile_opts *o, char *err, size_t n)
{
	if (o->calib_path) {
		vc_dataset d;
		if (vc_dataset_load(o->calib_path, NULL, VC_DATASET_AUTO, &d, err, n))
			return -1;
		int64_t elems = vc_type_elems(&m->g->inputs[0]->type);
		if ((int64_t)d.channels * d.rows * d.cols != elems) {
			snprintf(err, n, "calibration images of %s are %dx%dx%d; the model input has %lld values",
				 o->calib_path, d.channels, d.rows, d.cols, (long long)elems);
			vc_dataset_free(&d);
			return -1;
		}
		/* the last images of the file: keep the first ones for evaluation */
		int cnt = o->calib_count > 0 && o->calib_count < d.count ? o->calib_count : d.count;
		m->calib.data = vc_alloc(m, (size_t)(cnt * elems) * sizeof(float));
		if (!m->calib.data) {
			vc_dataset_free(&d);
			snprintf(err, n, "out of memory");
			return -1;
		}
		for (int64_t i = 0; i < cnt * elems; i++)
			m->calib.data[i] = d.pixels[(size_t)(d.count - cnt) * (size_t)elems + (size_t)i];
		m->calib.count = cnt;
		m->calib.elems = elems;
		vc_dataset_free(&d);
	}
	vc_pm *pm = vc_pm_parse(o->pipeline ? o->pipeline : "vta-default", err, n);
	if (!pm)
		return -1;
	int rc = vc_pm_run(pm, m, &o->instr);
	vc_pm_free(pm);
	if (rc)
		snprintf(err, n, "%s", m->diag.msg);
	return rc;
}

static const char *opt_val(const char *arg, const char *name)
{
	size_t k = strlen(name);
	if (!strncmp(arg, name, k) && arg[k] == '=')
		return arg + k + 1;
	return NULL;
}

/* Accept --opt=value and --opt value. */
static const char *take_opt(int argc, char **argv, int *i, const char *name)
{
	const char *v = opt_val(argv[*i], name);
	if (v)
		return v;
	if (!strcmp(argv[*i], name) && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

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

int vta_cmd_compile(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *replay = NULL;
	vc_compile_opts o;
	memset(&o, 0, sizeof o);
	int print_pipeline = 0, calib_count_set = 0;
	static char r_model[4096], r_pipe[4096], r_calib[4096], r_count[32];
	for (int i = 0; i < argc; i++) {
		const char *v;
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if ((v = take_opt(argc, argv, &i, "--replay")))
			replay = v;
		else if ((v = take_opt(argc, argv, &i, "--pipeline")))
			o.pipeline = v;
		else if (!strcmp(argv[i], "--print-pipeline"))
			print_pipeline = 1;
		else if (!strcmp(argv[i], "--verify-each"))
			o.instr.verify_each = 1;
		else if (!strcmp(argv[i], "--time-passes"))
			o.instr.time_passes = 1;
		else if (!strcmp(argv[i], "--stats"))
			o.instr.stats = 1;
		else if ((v = take_opt(argc, argv, &i, "--print-ir-before")))
			o.instr.print_before = v;
		else if ((v = take_opt(argc, argv, &i, "--print-ir-after")))
			o.instr.print_after = v;
		else if ((v = take_opt(argc, argv, &i, "--reproducer")))
			o.instr.reproducer = v;
		else if ((v = take_opt(argc, argv, &i, "--calib")))
			o.calib_path = v;
		else if ((v = take_opt(argc, argv, &i, "--calib-count")))
			o.calib_count = atoi(v), calib_count_set = 1;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "vta compile: unknown option %s\n", argv[i]);
			return 2;
		} else if (!in)
			in = argv[i];
		else {
			fprintf(stderr, "vta compile: more than one model given\n");
			return 2;
		}
	}
	char err[1024];
	if (replay) { /* the model, pipeline and calibration of a reproducer; the command line wins */
		size_t len;
		uint8_t *text = read_all(replay, &len, err, sizeof err);
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
		int ok = strstr(t, "# vta compile reproducer") == t && repro_value(t, "pipeline", r_pipe, sizeof r_pipe) == 1 &&
			 repro_value(t, "model", r_model, sizeof r_model) == 1;
		int hc = repro_value(t, "calib", r_calib, sizeof r_calib) == 1;
		int hn = repro_value(t, "calib-count", r_count, sizeof r_count) == 1;
		free(t);
		if (!ok) {
			fprintf(stderr, "vta compile: --replay: %s is not a reproducer with 'model:' and 'pipeline:' lines\n",
				replay);
			return 1;
		}
		if (!in)
			in = r_model;
		if (!o.pipeline)
			o.pipeline = r_pipe;
		if (!o.calib_path && hc)
			o.calib_path = r_calib;
		if (!calib_count_set && hn)
			o.calib_count = atoi(r_count);
		fprintf(stderr, "vta compile: replaying %s: %s --pipeline='%s'%s%s\n", replay, in, o.pipeline,
			o.calib_path ? " --calib=" : "", o.calib_path ? o.calib_path : "");
	}
	char context[3 * 4096 + 128] = "";
	if (o.instr.reproducer && in) {
		char a[4096], c[4096];
		abs_path(in, a, sizeof a);
		int k = snprintf(context, sizeof context, "model: %s\n", a);
		if (o.calib_path) {
			abs_path(o.calib_path, c, sizeof c);
			k += snprintf(context + k, sizeof context - (size_t)k, "calib: %s\n", c);
		}
		if (o.calib_count)
			snprintf(context + k, sizeof context - (size_t)k, "calib-count: %d\n", o.calib_count);
		o.instr.repro_context = context;
	}
	if (print_pipeline) {
		vc_pm *pm = vc_pm_parse(o.pipeline ? o.pipeline : "vta-default", err, sizeof err);
		if (!pm) {
			fprintf(stderr, "vta compile: %s\n", err);
			return 1;
		}
		char text[4096];
		vc_pm_print(pm, text, sizeof text);
		printf("%s\n", text);
		vc_pm_free(pm);
		if (!in)
			return 0;
	}
	if (!in || !out) {
		fprintf(stderr, "usage: vta compile MODEL.onnx -o MODEL.vtam [--pipeline=TEXT] [--print-pipeline]\n"
				"         [--verify-each] [--time-passes] [--stats] [--print-ir-before=PASS]\n"
				"         [--print-ir-after=PASS] [--reproducer=FILE] [--calib=IDX|CIFAR.bin] [--calib-count=N]\n"
				"       vta compile --replay=REPRODUCER -o MODEL.vtam [options]   (re-run a failed compile)\n");
		return 2;
	}
	vc_module *m = vc_module_new();
	if (!m)
		return 1;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = 1;
	if (vc_import_onnx_file(m, in)) {
		fprintf(stderr, "vta compile: %s\n", m->diag.msg);
		goto done;
	}
	if (vc_compile(m, &o, err, sizeof err)) {
		fprintf(stderr, "vta compile: %s\n", err);
		if (o.instr.reproducer)
			fprintf(stderr, "vta compile: reproducer written to %s\n", o.instr.reproducer);
		goto done;
	}
	if (vc_artifact_write(m, out)) {
		fprintf(stderr, "vta compile: %s\n", m->diag.msg);
		goto done;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int64_t macs = 0, insns = 0;
	for (int k = 0; k < m->n_kernels; k++)
		macs += m->kernels[k]->macs, insns += m->kernels[k]->insn_count;
	fprintf(stderr, "vta compile: %s -> %s: %d VTA kernels, %lld instructions, %lld MACs on VTA, %.1f ms\n", in, out,
		m->n_kernels, (long long)insns, (long long)macs,
		1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec));
	rc = 0;
done:
	vc_module_free(m);
	return rc;
}

/* ---- run ------------------------------------------------------------- */

/* Read an input: raw float32 (exact size), or an image through stb_image
 * (grayscale or RGB to the model's channels, nearest-neighbour resize,
 * pixel values 0..255). */
int vc_read_input(const char *path, const vc_type *t, float *out, char *err, size_t n)
{
	int64_t elems = vc_type_elems(t);
	size_t len;
	uint8_t *buf = read_all(path, &len, err, n);
	if (!buf)
		return -1;
	if (len == (size_t)elems * 4) {
		for (int64_t i = 0; i < elems; i++) {
			uint32_t u = (uint32_t)buf[4 * i] | (uint32_t)buf[4 * i + 1] << 8 | (uint32_t)buf[4 * i + 2] << 16 |
				     (uint32_t)buf[4 * i + 3] << 24;
			memcpy(&out[i], &u, 4);
		}
		free(buf);
		return 0;
	}
	if (t->rank != 4) {
		snprintf(err, n, "%s: %zu bytes is not a raw float32 tensor of %lld values", path, len, (long long)elems);
		free(buf);
		return -1;
	}
	int C = (int)t->dim[1], H = (int)t->dim[2], W = (int)t->dim[3], w, h, ch;
	uint8_t *px = stbi_load_from_memory(buf, (int)len, &w, &h, &ch, C == 1 ? 1 : 3);
	free(buf);
	if (!px) {
		snprintf(err, n, "%s: neither a raw float32 tensor of %lld values nor an image stb_image reads (%s)", path,
			 (long long)elems, stbi_failure_reason());
		return -1;
	}
	int have = C == 1 ? 1 : 3;
	for (int c = 0; c < C; c++)
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++)
				out[(c * H + y) * W + x] = px[((y * h / H) * w + x * w / W) * have + (c < have ? c : 0)];
	stbi_image_free(px);
	return 0;
}

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

int vc_eval_dataset(vc_module *m, vc_runner *r, const vc_dataset *d, int count, int topk, int show, FILE *out,
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
		if (r ? vc_runner_run(r, &in, o) : vc_simulate(m, &in, o)) {
			snprintf(err, n, "sample %d: %s", s, m->diag.msg);
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

int vta_cmd_run(int argc, char **argv)
{
	const char *model = NULL, *target = NULL, *images = NULL, *labels = NULL;
	const char *inputs[8];
	vc_dataset_format fmt = VC_DATASET_AUTO;
	int n_inputs = 0, topk = 5, count = 0, simulate = 0, show = 0;
	for (int i = 0; i < argc; i++) {
		const char *v;
		if ((v = take_opt(argc, argv, &i, "--target")))
			target = v;
		else if ((v = take_opt(argc, argv, &i, "--input"))) {
			if (n_inputs == 8) {
				fprintf(stderr, "vta run: at most 8 --input files\n");
				return 2;
			}
			inputs[n_inputs++] = v;
		} else if ((v = take_opt(argc, argv, &i, "--dataset")))
			images = v;
		else if ((v = take_opt(argc, argv, &i, "--format"))) {
			if (vc_dataset_format_parse(v, &fmt)) {
				fprintf(stderr, "vta run: --format=%s: expected auto, idx or cifar\n", v);
				return 2;
			}
		} else if ((v = take_opt(argc, argv, &i, "--labels")))
			labels = v;
		else if ((v = take_opt(argc, argv, &i, "--count")))
			count = atoi(v);
		else if ((v = take_opt(argc, argv, &i, "--top")))
			topk = atoi(v);
		else if ((v = take_opt(argc, argv, &i, "--show")))
			show = atoi(v);
		else if (!strcmp(argv[i], "--simulate"))
			simulate = 1;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "vta run: unknown option %s\n", argv[i]);
			return 2;
		} else if (!model)
			model = argv[i];
		else {
			fprintf(stderr, "vta run: more than one model given\n");
			return 2;
		}
	}
	if (!model || (!n_inputs && !images)) {
		fprintf(stderr, "usage: vta run MODEL.vtam [--target=fsim|rtl] (--input=FILE... | --dataset=FILE "
				"[--format=auto|idx|cifar] [--labels=IDX] [--count=N] [--show=N]) [--top=K] [--simulate]\n"
				"  datasets: IDX images (+ IDX labels), or CIFAR-10 binary (auto: a *.bin file)\n");
		return 2;
	}
	if (topk < 1)
		topk = 1;
	vc_module *m = vc_module_new();
	if (!m)
		return 1;
	int rc = 1;
	char err[1024];
	vc_runner *r = NULL;
	vc_dataset d = {0};
	vc_tensor in = {0};
	if (vc_artifact_read(m, model)) {
		fprintf(stderr, "vta run: %s: %s\n", model, m->diag.msg);
		goto done;
	}
	vc_graph *g = m->g;
	if (g->n_inputs != 1) {
		fprintf(stderr, "vta run: models with %d inputs are not supported by this command\n", g->n_inputs);
		goto done;
	}
	if (images && vc_dataset_load(images, labels, fmt, &d, err, sizeof err)) {
		fprintf(stderr, "vta run: %s\n", err);
		goto done;
	}
	if (!simulate && !(r = vc_runner_open(m, target, err, sizeof err))) {
		fprintf(stderr, "vta run: %s\n", err);
		goto done;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (images) {
		int correct = 0;
		int total = vc_eval_dataset(m, r, &d, count, topk, show, stdout, &correct, err, sizeof err);
		if (total < 0) {
			fprintf(stderr, "vta run: %s: %s\n", images, err);
			goto done;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
		if (d.labels)
			printf("accuracy: %d/%d = %.2f%% (top-1, %s, %.2f ms per sample)\n", correct, total,
			       100.0 * correct / (total ? total : 1),
			       simulate ? "host simulation" : target ? target : "default target", 1e3 * secs / (total ? total : 1));
		rc = 0;
		goto done;
	}
	if (vc_tensor_alloc(&in, &g->inputs[0]->type))
		goto done;
	for (int s = 0; s < n_inputs; s++) {
		if (vc_read_input(inputs[s], &in.t, in.data, err, sizeof err)) {
			fprintf(stderr, "vta run: %s\n", err);
			goto done;
		}
		vc_tensor out[8];
		if (simulate ? vc_simulate(m, &in, out) : vc_runner_run(r, &in, out)) {
			fprintf(stderr, "vta run: %s: %s\n", inputs[s], m->diag.msg);
			goto done;
		}
		int64_t n = vc_type_elems(&out[0].t);
		int k = topk < n ? topk : (int)n, idx[64];
		if (k > 64)
			k = 64;
		top_k(out[0].data, n, k, idx);
		printf("%s: top-%d", inputs[s], k);
		for (int j = 0; j < k; j++)
			printf(" %d (%.3f)", idx[j], ((float *)out[0].data)[idx[j]]);
		printf("\n");
		for (int o = 0; o < g->n_outputs; o++)
			vc_tensor_free(&out[o]);
	}
	rc = 0;
done:
	vc_tensor_free(&in);
	vc_dataset_free(&d);
	vc_runner_close(r);
	vc_module_free(m);
	return rc;
}
