/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `vta run`: a compiled model on a target (fsim, rtl, ...) or on the host
 * (--simulate), on single inputs or a dataset (accuracy: C/N = P%).
 *
 *   vta run MODEL.vtam [--target=fsim|rtl|...] [--input=FILE]... [--top=K]
 *       [--dataset=IDX-IMAGES --labels=IDX-LABELS | --dataset=CIFAR.bin] [--format=auto|idx|cifar]
 *       [--count=N] [--show=N] [--simulate]
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
		if ((v = vc_take_opt(argc, argv, &i, "--target")))
			target = v;
		else if ((v = vc_take_opt(argc, argv, &i, "--input"))) {
			if (n_inputs == 8) {
				fprintf(stderr, "vta run: at most 8 --input files\n");
				return 2;
			}
			inputs[n_inputs++] = v;
		} else if ((v = vc_take_opt(argc, argv, &i, "--dataset")))
			images = v;
		else if ((v = vc_take_opt(argc, argv, &i, "--format"))) {
			if (vc_dataset_format_parse(v, &fmt)) {
				fprintf(stderr, "vta run: --format=%s: expected auto, idx or cifar\n", v);
				return 2;
			}
		} else if ((v = vc_take_opt(argc, argv, &i, "--labels")))
			labels = v;
		else if ((v = vc_take_opt(argc, argv, &i, "--count")))
			count = atoi(v);
		else if ((v = vc_take_opt(argc, argv, &i, "--top")))
			topk = atoi(v);
		else if ((v = vc_take_opt(argc, argv, &i, "--show")))
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
