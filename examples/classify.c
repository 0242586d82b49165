/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Classify images with a compiled model, using libvta alone:
 *
 *   cc classify.c $(pkg-config --cflags --libs vta) -o classify
 *   VTA_TARGET=fsim ./classify model.vtam [--labels=FILE] IMAGE...
 *
 * Images are PGM/PPM, PNG, JPEG or BMP (decoded by stb_image, compiled in
 * here from Debian's libstb-dev header), turned to the model's channels
 * (gray or RGB) and size (libvta's vta_image_resize: PIL's bilinear with
 * antialiasing, as vta run), pixels 0..255, then
 * preprocessed as the model says (vta_tensor_info_t.has_preproc). For each
 * image it prints "FILE: top-1 INDEX LABEL PROB" and the top 5; PROB is the
 * model's output if that is a probability distribution, its softmax if not.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/model.h>

/* The decoder only; none of stb's writing or file helpers. */
#define STBI_ONLY_JPEG
#define STBI_ONLY_PNG
#define STBI_ONLY_BMP
#define STBI_ONLY_PNM
#define STBI_NO_STDIO_WRITE
#define STB_IMAGE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include <stb/stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#define TOP 5

/* Labels: one per line; NULL entries where the file has none. */
static char **read_labels(const char *path, int n)
{
	char **l = calloc((size_t)n, sizeof *l), line[512];
	FILE *f = path ? fopen(path, "r") : NULL;
	if (path && !f)
		fprintf(stderr, "classify: cannot read labels %s\n", path);
	for (int i = 0; f && l && i < n && fgets(line, sizeof line, f); i++) {
		line[strcspn(line, "\r\n")] = 0;
		l[i] = strdup(line);
	}
	if (f)
		fclose(f);
	return l;
}

/* The image at path as the model's input x (C x H x W floats). */
static int load_image(const char *path, const vta_tensor_info_t *in, float *x)
{
	int C = (int)in->dim[1], H = (int)in->dim[2], W = (int)in->dim[3], w, h, ch;
	int have = C == 1 ? 1 : 3;
	uint8_t *px = stbi_load(path, &w, &h, &ch, have);
	if (!px) {
		fprintf(stderr, "classify: %s: not an image stb_image reads (%s)\n", path, stbi_failure_reason());
		return -1;
	}
	/* libvta's resize: PIL's bilinear with antialiasing, as vta run's */
	uint8_t *rs = malloc((size_t)W * (size_t)H * (size_t)have);
	if (!rs || vta_image_resize(px, w, h, have, rs, W, H)) {
		fprintf(stderr, "classify: %s: out of memory resizing it\n", path);
		free(rs);
		stbi_image_free(px);
		return -1;
	}
	for (int c = 0; c < C; c++)
		for (int y = 0; y < H; y++)
			for (int xx = 0; xx < W; xx++) {
				double v = rs[(y * W + xx) * have + (c < have ? c : 0)];
				if (in->has_preproc) {
					double mu = in->n_mean ? in->mean[in->n_mean == 1 ? 0 : c % in->n_mean] : 0;
					double sd = in->n_std ? in->std[in->n_std == 1 ? 0 : c % in->n_std] : 1;
					v = (v * in->scale - mu) / sd;
				}
				x[(c * H + y) * W + xx] = (float)v;
			}
	free(rs);
	stbi_image_free(px);
	return 0;
}

/* Scores to probabilities, unless they already are. */
static void to_probs(float *p, int64_t n)
{
	double sum = 0, mx = -INFINITY;
	int probs = 1;
	for (int64_t i = 0; i < n; i++) {
		sum += p[i];
		probs &= p[i] >= 0 && p[i] <= 1;
		mx = p[i] > mx ? p[i] : mx;
	}
	if (probs && fabs(sum - 1) < 0.01)
		return;
	sum = 0;
	for (int64_t i = 0; i < n; i++)
		sum += exp(p[i] - mx);
	for (int64_t i = 0; i < n; i++)
		p[i] = (float)(exp(p[i] - mx) / sum);
}

int main(int argc, char **argv)
{
	const char *model = NULL, *labels = NULL;
	int first = 0;
	for (int i = 1; i < argc && !first; i++) {
		if (!strncmp(argv[i], "--labels=", 9))
			labels = argv[i] + 9;
		else if (!model)
			model = argv[i];
		else
			first = i;
	}
	if (!model || !first) {
		fprintf(stderr, "usage: classify MODEL.vtam [--labels=FILE] IMAGE...\n");
		return 2;
	}
	vta_model_t *m;
	vta_error_t err;
	if (vta_model_open(model, NULL, &m, &err)) {
		fprintf(stderr, "classify: %s\n", err.msg);
		return 1;
	}
	vta_tensor_info_t in, out;
	vta_model_input(m, 0, &in);
	vta_model_output(m, 0, &out);
	if (vta_model_n_inputs(m) != 1 || in.rank != 4 || in.dim[0] != 1 || in.dtype != VTA_DTYPE_F32) {
		fprintf(stderr, "classify: %s: expected one float image input of shape 1xCxHxW\n", model);
		vta_model_close(m);
		return 1;
	}
	float *x = malloc((size_t)in.elems * sizeof *x), *p = malloc((size_t)out.elems * sizeof *p);
	char **names = read_labels(labels, (int)out.elems);
	int status = 0;
	for (int i = first; i < argc && x && p; i++) {
		if (!strncmp(argv[i], "--labels=", 9))
			continue;
		if (load_image(argv[i], &in, x)) {
			status = 1;
			continue;
		}
		vta_tensor_t tx = {VTA_DTYPE_F32, 0, x, (size_t)in.elems * sizeof *x};
		vta_tensor_t tp = {VTA_DTYPE_F32, 0, p, (size_t)out.elems * sizeof *p};
		if (vta_model_run(m, &tx, &tp, &err)) {
			fprintf(stderr, "classify: %s: %s\n", argv[i], err.msg);
			status = 1;
			continue;
		}
		to_probs(p, out.elems);
		int top[TOP], k = 0;
		for (; k < TOP && k < out.elems; k++) {
			int best = -1;
			for (int c = 0; c < out.elems; c++) {
				int taken = 0;
				for (int j = 0; j < k; j++)
					taken |= top[j] == c;
				if (!taken && (best < 0 || p[c] > p[best]))
					best = c;
			}
			top[k] = best;
		}
		const char *l0 = names && names[top[0]] ? names[top[0]] : "-";
		printf("%s: top-1 %d %s %.4f\n", argv[i], top[0], l0, p[top[0]]);
		for (int j = 0; j < k; j++)
			printf("  %d. %d %s %.4f\n", j + 1, top[j], names && names[top[j]] ? names[top[j]] : "-",
			       p[top[j]]);
	}
	for (int c = 0; names && c < out.elems; c++)
		free(names[c]);
	free(names);
	free(x);
	free(p);
	vta_model_close(m);
	return status;
}
