/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running a compiled model (.vtam, from `vta compile`) with libvta alone:
 * open it on a target, ask for its inputs and outputs, run it, read the
 * statistics of the last run, close it. The VTA kernels run on the device;
 * the rest of the graph (quantize, pack, pooling, softmax, and the
 * convolutions, dense layers and matrix products left off VTA) runs on the
 * host in libvta. docs/runtime.md, "Running a model".
 *
 *   vta_model_t *m;
 *   vta_error_t err;
 *   if (vta_model_open("mnist.vtam", "fsim", &m, &err)) { puts(err.msg); ... }
 *   vta_tensor_info_t in, out;
 *   vta_model_input(m, 0, &in);
 *   vta_model_output(m, 0, &out);
 *   float x[...], y[...];
 *   vta_tensor_t xi = {VTA_DTYPE_F32, 0, x, sizeof x}, yo = {VTA_DTYPE_F32, 0, y, sizeof y};
 *   vta_model_run(m, &xi, &yo, &err);
 *   vta_model_close(m);
 *
 * A model is used by one thread at a time; several models may be open.
 * Errors are returned as VTA_E* codes with err naming the file, node,
 * kernel or tensor that was wrong.
 */
#ifndef VTA_MODEL_H
#define VTA_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <vta/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef struct vta_model vta_model_t;

enum { VTA_DTYPE_F32 = 0, VTA_DTYPE_I8 = 1, VTA_DTYPE_I32 = 2 };

#define VTA_MODEL_MAX_RANK 6
#define VTA_MODEL_NAME_MAX 64

/* An input or output of a model. */
typedef struct vta_tensor_info {
	char name[VTA_MODEL_NAME_MAX];
	int rank;
	int64_t dim[VTA_MODEL_MAX_RANK]; /* NCHW for images */
	int64_t elems;
	int dtype;     /* VTA_DTYPE_* the graph has there */
	int quantized; /* int8/int32: real value = q * 2^exp */
	int exp;
	/* The preprocessing the compiler recorded for an image input, if any
	 * (has_preproc): x = (pixel * scale - mean[c]) / std[c], with pixels
	 * 0..255 and one mean/std per channel (a single one for all). */
	int has_preproc;
	double scale;
	int n_mean, n_std;
	double mean[4], std[4];
} vta_tensor_info_t;

/* Data handed to or taken from a run. For inputs the data are converted to
 * the graph's dtype (float from int8: q * 2^exp; int8 from float: rounded
 * at the input's exponent), for outputs from it; bytes must be elems times
 * the element size. */
typedef struct vta_tensor {
	int dtype; /* VTA_DTYPE_* */
	int exp;   /* int8/int32 data: real value = q * 2^exp */
	void *data;
	size_t bytes;
} vta_tensor_t;

/* One node of the last run. */
typedef struct vta_layer_stats {
	const char *name;
	const char *op;        /* "vta.conv", "quantize", "maxpool", ... */
	int on_vta;            /* 1: a VTA kernel on the device */
	int64_t macs;          /* multiply-accumulates of a VTA kernel, or of a host
				* convolution, dense layer or matrix product */
	uint64_t cycles;       /* device cycles of its run (0 on the golden model) */
	uint64_t busy[4];      /* VTA_BUSY_* cycles (<vta/device.h>) */
	uint64_t gemm_uops;
	uint64_t host_ns;      /* host time of a host node (and of copying, for a kernel) */
} vta_layer_stats_t;

typedef struct vta_model_stats {
	uint64_t runs;         /* runs since the model was opened */
	uint64_t cycles;       /* device cycles of the last run, all kernels */
	uint64_t host_ns;      /* wall time of the last run */
	int n_layers;
	const vta_layer_stats_t *layers; /* the model's; valid until the next run or close */
} vta_model_stats_t;

/*
 * Open the model file at path on target ("fsim", "rtl", "zynq", "xrt"; NULL:
 * VTA_TARGET or the default). The file is checked (container, checksum,
 * configuration, graph), its device image copied into device memory and
 * relocated, and every node checked to be one libvta can run.
 */
int vta_model_open(const char *path, const char *target, vta_model_t **out, vta_error_t *err);
/* The same from len bytes in memory (copied; what names them in messages). */
int vta_model_open_bytes(const uint8_t *bytes, size_t len, const char *what, const char *target,
			 vta_model_t **out, vta_error_t *err);
void vta_model_close(vta_model_t *m);

int vta_model_n_inputs(const vta_model_t *m);
int vta_model_n_outputs(const vta_model_t *m);
/* Input or output i: 0, or VTA_EINVAL for an index out of range. */
int vta_model_input(const vta_model_t *m, int i, vta_tensor_info_t *out);
int vta_model_output(const vta_model_t *m, int i, vta_tensor_info_t *out);

/* One inference: inputs[] and outputs[] in the model's order. */
int vta_model_run(vta_model_t *m, const vta_tensor_t *inputs, const vta_tensor_t *outputs,
		  vta_error_t *err);

/* Called after each VTA kernel of a run with the kernels done and their
 * total (a long run on a slow target can show where it is); fn NULL: none. */
typedef void (*vta_model_progress_fn)(void *ctx, int done, int total);
void vta_model_set_progress(vta_model_t *m, vta_model_progress_fn fn, void *ctx);

/* Statistics of the last run. */
int vta_model_stats(const vta_model_t *m, vta_model_stats_t *out);

/* An 8-bit image of w x h pixels of channels interleaved values resized to
 * ow x oh (dst holds ow * oh * channels bytes) as PIL's bilinear resize
 * does (antialiased when shrinking): what vta run and the calibration do
 * to an image before a model sees it. 0, VTA_EINVAL or VTA_ENOMEM. */
int vta_image_resize(const uint8_t *src, int w, int h, int channels, uint8_t *dst, int ow, int oh);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* VTA_MODEL_H */
