/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Datasets of uint8 images: IDX (MNIST: an idx3 image file, an idx1 label
 * file) and CIFAR binary (records of 1 label byte + channel-planar pixels).
 */
#include <stdlib.h>
#include <string.h>

#include <vta/bytes.h>

#include "data/data.h"

uint8_t *vc_read_all(const char *path, size_t *len, char *err, size_t n)
{
	uint8_t *buf;
	vta_error_t e;
	if (vta_read_file(path, &buf, len, &e)) {
		snprintf(err, n, "%s", e.msg);
		return NULL;
	}
	return buf;
}

int vc_dataset_load_idx(const char *images, const char *labels, vc_dataset *d, char *err, size_t n)
{
	memset(d, 0, sizeof *d);
	size_t len;
	uint8_t *buf = vc_read_all(images, &len, err, n);
	if (!buf)
		return -1;
	if (len < 16 || vta_rd_be32(buf) != 0x803 || (uint64_t)vta_rd_be32(buf + 4) * vta_rd_be32(buf + 8) * vta_rd_be32(buf + 12) != len - 16) {
		snprintf(err, n, "%s is not an IDX3 ubyte image file", images);
		free(buf);
		return -1;
	}
	d->count = (int)vta_rd_be32(buf + 4), d->rows = (int)vta_rd_be32(buf + 8), d->cols = (int)vta_rd_be32(buf + 12);
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
	buf = vc_read_all(labels, &len, err, n);
	if (!buf) {
		vc_dataset_free(d);
		return -1;
	}
	if (len < 8 || vta_rd_be32(buf) != 0x801 || vta_rd_be32(buf + 4) != (uint32_t)d->count || len != 8 + (size_t)d->count) {
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
	uint8_t *buf = vc_read_all(path, &len, err, n);
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
