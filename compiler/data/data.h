/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Inputs from files: datasets of images with labels (dataset.c), single
 * inputs, raw float32 or images (input.c), and calibration samples from any
 * of those or a folder of images (calib.c). Readers of untrusted files: every
 * size is checked against the file and errors name the file.
 */
#ifndef VC_DATA_H
#define VC_DATA_H

#include "ir/ir.h"

/* The whole file (malloc'd), or NULL with a message naming it in err. */
uint8_t *vc_read_all(const char *path, size_t *len, char *err, size_t n);

/* Datasets of uint8 images with labels: IDX (MNIST: an idx3 image file and
 * an idx1 label file) or CIFAR binary (records of 1 label byte and then
 * channels*rows*cols pixel bytes, channel-planar, row-major: CIFAR-10 is
 * 3x32x32 = 1 + 3072 bytes a record). pixels are per image in CHW order,
 * which is the NCHW layout of a model input. */
typedef struct vc_dataset {
	int count, channels, rows, cols;
	uint8_t *pixels; /* count * channels * rows * cols */
	uint8_t *labels; /* count, or NULL */
} vc_dataset;
typedef enum vc_dataset_format {
	VC_DATASET_AUTO,  /* CIFAR for a *.bin file, IDX otherwise */
	VC_DATASET_IDX,
	VC_DATASET_CIFAR, /* CIFAR-10 binary: 3x32x32 */
} vc_dataset_format;
int vc_dataset_format_parse(const char *s, vc_dataset_format *f); /* "auto", "idx", "cifar" */
int vc_dataset_load_idx(const char *images, const char *labels, vc_dataset *d, char *err, size_t n);
/* CIFAR binary records of channels x rows x cols (3, 32, 32 for CIFAR-10);
 * the file must hold a whole number (> 0) of records. */
int vc_dataset_load_cifar(const char *path, int channels, int rows, int cols, vc_dataset *d, char *err, size_t n);
/* Either format; labels (IDX only) may be NULL. */
int vc_dataset_load(const char *images, const char *labels, vc_dataset_format f, vc_dataset *d, char *err,
		    size_t n);
void vc_dataset_free(vc_dataset *d);

/* Read one input for a model input of type t (float32 NCHW): a raw float32
 * file of exactly the tensor's size, or an image stb_image decodes (PNG, BMP,
 * JPEG, ...; gray or RGB to the model's channels, nearest-neighbour resize,
 * values 0..255). */
int vc_read_input(const char *path, const vc_type *t, float *out, char *err, size_t n);

/* npy.c: data of type t as a NumPy .npy file at path (written whole or not at all). 0,
 * or -1 with err naming the file. */
int vc_npy_write(const char *path, const vc_type *t, const void *data, char *err, size_t n);

/* calib.c: append calibration samples for m's input from path: an IDX or
 * CIFAR .bin dataset (resized to the input), a folder of images, an image, a
 * file of raw float32 tensors, or "synthetic" (seeded uniform pixels 0..255).
 * count <= 0: all (synthetic: 8); offset < 0: a dataset's last count
 * images (its first ones are left for evaluation), else from that index. */
int vc_calib_add(vc_module *m, const char *path, int count, int offset, char *err, size_t n);

#endif /* VC_DATA_H */
