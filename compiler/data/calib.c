/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Calibration samples for the quantize pass, from whatever a user has:
 *   an IDX or CIFAR-10 binary dataset (as `vta run --dataset` reads them;
 *     images of another size are resized, nearest neighbour),
 *   a folder of images (every file stb_image reads, in name order),
 *   one image or a file of raw float32 tensors (one or more),
 *   "synthetic": seeded uniform pixels 0..255, the explicit choice for models
 *     with synthetic weights (nothing calibrates silently on made-up data).
 * Samples are appended to the module's (several sources may be combined),
 * as float32 values of the model input in its NCHW order: pixels 0..255.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <stb/stb_image.h>
#include <vta/bytes.h>

#include "data/data.h"

/* Room for k more samples of e values in m->calib; NULL when out of memory. */
static float *grow(vc_module *m, int k, int64_t e)
{
	vc_samples *cs = &m->calib;
	size_t have = (size_t)cs->count * (size_t)e;
	float *d = vc_alloc(m, (have + (size_t)k * (size_t)e) * sizeof *d + 1);
	if (!d)
		return NULL;
	if (have)
		memcpy(d, cs->data, have * sizeof *d);
	cs->data = d;
	cs->elems = e;
	return d + have;
}

/* Samples [first, first+count) of a dataset, resized to C x H x W. */
static int from_dataset(vc_module *m, const vc_dataset *d, const vc_type *t, int count, int offset, const char *path,
			char *err, size_t n)
{
	int64_t e = vc_type_elems(t);
	int64_t C = t->rank == 4 ? t->dim[1] : 1, H = t->rank == 4 ? t->dim[2] : 1, W = t->rank == 4 ? t->dim[3] : e;
	int same = (int64_t)d->channels * d->rows * d->cols == e;
	if (!same && (t->rank != 4 || t->dim[0] != 1 || d->channels != C)) {
		snprintf(err, n, "calibration images of %s are %dx%dx%d; the model input has %lld values (%lld channels)",
			 path, d->channels, d->rows, d->cols, (long long)e, (long long)C);
		return -1;
	}
	int cnt = count > 0 && count < d->count ? count : d->count;
	int first = offset >= 0 ? offset : d->count - cnt; /* default: the last ones, the first stay for evaluation */
	if (first + cnt > d->count) {
		snprintf(err, n, "%s: --calib-offset=%d with %d samples runs past its %d images", path, offset, cnt,
			 d->count);
		return -1;
	}
	float *out = grow(m, cnt, e);
	if (!out) {
		snprintf(err, n, "out of memory for %d calibration samples", cnt);
		return -1;
	}
	size_t img = (size_t)d->channels * (size_t)d->rows * (size_t)d->cols;
	for (int s = 0; s < cnt; s++) {
		const uint8_t *px = d->pixels + (size_t)(first + s) * img;
		float *o = out + (size_t)s * (size_t)e;
		if (same) {
			for (int64_t i = 0; i < e; i++)
				o[i] = px[i];
			continue;
		}
		for (int64_t c = 0; c < C; c++)
			for (int64_t y = 0; y < H; y++)
				for (int64_t x = 0; x < W; x++)
					o[(c * H + y) * W + x] = px[(c * d->rows + y * d->rows / H) * d->cols + x * d->cols / W];
	}
	m->calib.count += cnt;
	return 0;
}

static int is_image(const char *path)
{
	int w, h, c;
	return stbi_info(path, &w, &h, &c) == 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int from_folder(vc_module *m, const char *dir, const vc_type *t, int count, char *err, size_t n)
{
	DIR *dp = opendir(dir);
	if (!dp) {
		snprintf(err, n, "%s: cannot read the folder", dir);
		return -1;
	}
	char **names = NULL;
	int k = 0, cap = 0, rc = -1, oom = 0;
	for (struct dirent *de; (de = readdir(dp));) {
		if (de->d_name[0] == '.')
			continue;
		char *p = malloc(strlen(dir) + strlen(de->d_name) + 2);
		if (!p) {
			oom = 1;
			break;
		}
		sprintf(p, "%s/%s", dir, de->d_name);
		if (!is_image(p)) {
			free(p);
			continue;
		}
		if (k == cap) {
			cap = cap ? 2 * cap : 64;
			char **nn = realloc(names, (size_t)cap * sizeof *nn);
			if (!nn) {
				free(p);
				oom = 1;
				break;
			}
			names = nn;
		}
		names[k++] = p;
	}
	closedir(dp);
	/* a partial list would calibrate on fewer images than asked, silently */
	if (oom) {
		snprintf(err, n, "%s: out of memory listing the folder's images", dir);
		goto done;
	}
	if (k == 0) {
		snprintf(err, n, "%s: no image stb_image reads in the folder", dir);
		goto done;
	}
	qsort(names, (size_t)k, sizeof *names, by_name);
	int cnt = count > 0 && count < k ? count : k;
	int64_t e = vc_type_elems(t);
	float *out = grow(m, cnt, e);
	if (!out) {
		snprintf(err, n, "out of memory for %d calibration images", cnt);
		goto done;
	}
	for (int s = 0; s < cnt; s++)
		if (vc_read_input(names[s], t, out + (size_t)s * (size_t)e, err, n))
			goto done;
	m->calib.count += cnt;
	rc = 0;
done:
	for (int i = 0; i < k; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* One image, or raw float32 tensors of the input's size back to back. */
static int from_file(vc_module *m, const char *path, const vc_type *t, int count, char *err, size_t n)
{
	int64_t e = vc_type_elems(t);
	size_t len;
	uint8_t *buf = vc_read_all(path, &len, err, n);
	if (!buf)
		return -1;
	int tensors = len > 0 && len % ((size_t)e * 4) == 0 ? (int)(len / ((size_t)e * 4)) : 0;
	if (tensors > 1) {
		int cnt = count > 0 && count < tensors ? count : tensors;
		float *out = grow(m, cnt, e);
		if (!out) {
			free(buf);
			snprintf(err, n, "out of memory for %d calibration tensors", cnt);
			return -1;
		}
		for (int64_t i = 0; i < cnt * e; i++) {
			uint32_t u = vta_rd_le32(buf + 4 * i);
			memcpy(&out[i], &u, 4);
		}
		free(buf);
		m->calib.count += cnt;
		return 0;
	}
	free(buf);
	float *out = grow(m, 1, e);
	if (!out) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	if (vc_read_input(path, t, out, err, n))
		return -1;
	m->calib.count++;
	return 0;
}

int vc_calib_add(vc_module *m, const char *path, int count, int offset, char *err, size_t n)
{
	if (m->g->n_inputs != 1) {
		snprintf(err, n, "calibration of models with %d inputs is not supported", m->g->n_inputs);
		return -1;
	}
	const vc_type *t = &m->g->inputs[0]->type;
	int64_t e = vc_type_elems(t);
	if (m->calib.count && m->calib.elems != e) {
		snprintf(err, n, "calibration samples of different sizes");
		return -1;
	}
	if (!strcmp(path, "synthetic")) { /* uniform pixels 0..255 from a fixed seed: compiles are reproducible */
		int cnt = count > 0 ? count : 8;
		if (cnt > 100000 || e * cnt > (1ll << 30)) {
			snprintf(err, n, "--calib=synthetic: %d samples of %lld values are too many", cnt, (long long)e);
			return -1;
		}
		float *out = grow(m, cnt, e);
		if (!out) {
			snprintf(err, n, "out of memory");
			return -1;
		}
		uint64_t st = 0x243F6A8885A308D3ull;
		for (int64_t i = 0; i < cnt * e; i++) {
			st ^= st << 13, st ^= st >> 7, st ^= st << 17;
			out[i] = (float)(st >> 56);
		}
		m->calib.count += cnt;
		m->calib.synthetic = 1;
		return 0;
	}
	struct stat sb;
	if (stat(path, &sb)) {
		snprintf(err, n, "%s: no such file or folder", path);
		return -1;
	}
	if (S_ISDIR(sb.st_mode))
		return from_folder(m, path, t, count, err, n);
	size_t k = strlen(path);
	int cifar = k >= 4 && !strcmp(path + k - 4, ".bin");
	uint8_t head[4] = {0};
	FILE *f = fopen(path, "rb");
	if (f) {
		if (fread(head, 1, 4, f) != 4)
			memset(head, 0, 4);
		fclose(f);
	}
	int idx = head[0] == 0 && head[1] == 0 && head[2] == 8 && head[3] == 3;
	if (cifar || idx) {
		vc_dataset d;
		if (vc_dataset_load(path, NULL, cifar ? VC_DATASET_CIFAR : VC_DATASET_IDX, &d, err, n))
			return -1;
		int rc = from_dataset(m, &d, t, count, offset, path, err, n);
		vc_dataset_free(&d);
		return rc;
	}
	return from_file(m, path, t, count, err, n);
}
