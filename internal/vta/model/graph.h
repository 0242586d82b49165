/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The GRAPH section of a .vtam file, decoded by libvta: the compiled graph
 * (nodes in program order, their types and attributes), the VTA kernels and
 * the device memory image. Internal to libvta; the compiler's reader
 * (compiler/artifact/read.c) rebuilds its IR from this decoding, so the
 * format is read in one place and the runtime needs nothing of the compiler.
 *
 * Layout (integers little-endian, strings u32 length + bytes):
 *
 *   "VTAM" u32 version (VTA_MGRAPH_VERSION)  u32 config_id  str config
 *   u32 batch block_in block_out
 *   u32 n_nodes, per node: u32 op, str name, u32 n_in, u32 in[n_in] (earlier
 *       node ordinals), type, attrs, u8 on_vta, u64 n_data + data (constants
 *       kept outside the device image)
 *   type:  u32 rank, u64 dim[rank], u32 dtype layout quantized exp
 *   attrs: u64 kernel stride dilation (x2, interleaved), u64 pad[4] group
 *       axis, u32 ceil_mode count_include_pad coerce2d exp, f64 lo hi eps,
 *       u32 nshape, u64 shape[6], u32 shift relu, u64 qlo qhi dev_off,
 *       u32 kernel_id leaky, (version 3) u32 resize_mode resize_coord
 *       resize_round, f64 scale[2], u32 fn axes keepdims, f64 alpha beta
 *   u32 n_inputs, u32 ordinals; u32 n_outputs, u32 ordinals
 *   u32 n_kernels, per kernel: u32 node, u64 insn_off insn_count uop_off
 *       n_uops macs, u32 th tco tci flags
 *   u64 arena_size, u64 image_len, image bytes (the rest of the image is 0)
 *
 * Op codes and dtypes are the compiler's (compiler/ir/ir.h); the decoder
 * checks only what it must to hand out bounded data: counts, ordinals,
 * ranks and sizes, and that every placement and kernel lies inside the
 * image and inside one device buffer (VTA_MGRAPH_SEGMENT bytes).
 */
#ifndef VTA_MODEL_GRAPH_H
#define VTA_MODEL_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include <vta/error.h>
#include <vta/driver.h>
#include <vta/vta_config.h>

#define VTA_MGRAPH_VERSION 3 /* 2: attrs carry the leaky shift; 3: and the resize and element functions */
#define VTA_MGRAPH_MAX_RANK 6
#define VTA_MGRAPH_MAX_IN 16  /* operands of one node */
#define VTA_MGRAPH_MAX_IO 8   /* graph inputs, graph outputs */
#define VTA_MGRAPH_MAX_NODES (1u << 20)
/* The device image: the compiler's arena is at most this (VC_MAX_ARENA). */
#define VTA_MGRAPH_MAX_IMAGE (INT64_C(1) << 30)
#define VTA_MGRAPH_NAME 64    /* node names are cut to 63 bytes */
/* The device image is cut into buffers of this size, the largest contiguous
 * transfer: no tensor, micro-op block or stream may cross a boundary. */
#define VTA_MGRAPH_SEGMENT ((int64_t)VTA_MAX_XFER)

/* Op codes (the compiler's vc_op, checked in compiler/artifact/read.c);
 * the convolutions, products and int8 layers and epilogues the compiler
 * leaves on the host run in hostgemm.c, the rest in hostops.c. */
enum {
	VTA_MOP_INPUT = 0, VTA_MOP_CONST = 1, VTA_MOP_CONV = 2, VTA_MOP_DENSE = 3, VTA_MOP_MATMUL = 4,
	VTA_MOP_ADD = 5, VTA_MOP_MUL = 6, VTA_MOP_RELU = 7, VTA_MOP_CLIP = 8, VTA_MOP_MAXPOOL = 9,
	VTA_MOP_AVGPOOL = 10, VTA_MOP_GAP = 11, VTA_MOP_RESHAPE = 12, VTA_MOP_FLATTEN = 13, VTA_MOP_SOFTMAX = 14,
	VTA_MOP_BATCHNORM = 15, VTA_MOP_CONCAT = 16, VTA_MOP_QUANTIZE = 17, VTA_MOP_DEQUANTIZE = 18,
	VTA_MOP_QCONV = 19, VTA_MOP_QDENSE = 20, VTA_MOP_REQUANT = 21, VTA_MOP_QCONV_RQ = 22, VTA_MOP_PACK = 23,
	VTA_MOP_UNPACK = 24, VTA_MOP_VTA_CONV = 25, VTA_MOP_QADD = 26, VTA_MOP_LEAKY = 27, VTA_MOP_UPSAMPLE = 28,
	VTA_MOP_ALIGN = 29, VTA_MOP_YOLO = 30, VTA_MOP_PAD = 31, VTA_MOP_SIGMOID = 32, VTA_MOP_TRANSPOSE = 33,
	VTA_MOP_SLICE = 34, VTA_MOP_RESIZE = 35, VTA_MOP_UNARY = 36, VTA_MOP_BINARY = 37, VTA_MOP_REDUCE = 38,
};
/* RESIZE's choices (ONNX Resize): interpolation, the source coordinate of an
 * output index, and how nearest rounds it. */
enum { VTA_RESIZE_NEAREST, VTA_RESIZE_LINEAR };
enum { VTA_COORD_HALF_PIXEL, VTA_COORD_PYTORCH_HALF_PIXEL, VTA_COORD_ALIGN_CORNERS, VTA_COORD_ASYMMETRIC,
       VTA_COORD_TF_HALF_PIXEL_FOR_NN };
enum { VTA_ROUND_PREFER_FLOOR, VTA_ROUND_PREFER_CEIL, VTA_ROUND_FLOOR, VTA_ROUND_CEIL };
/* Element types: float, int8, int32. */
enum { VTA_MDT_F32 = 0, VTA_MDT_I8 = 1, VTA_MDT_I32 = 2 };

typedef struct vta_mtype {
	int rank;
	int64_t dim[VTA_MGRAPH_MAX_RANK];
	uint32_t dtype, layout; /* layout 0 plain, 1 packed (VTA-SPEC 2.6) */
	int quantized, exp;
} vta_mtype_t;

typedef struct vta_mattrs {
	int64_t kernel[2], stride[2], dilation[2], pad[4], group, axis;
	int ceil_mode, count_include_pad, coerce2d, exp;
	double lo, hi, eps;
	int nshape;
	int64_t shape[VTA_MGRAPH_MAX_RANK];
	int shift, relu;
	int64_t qlo, qhi, dev_off; /* dev_off: offset in the image, or -1 */
	int kernel_id, leaky;
	int resize_mode, resize_coord, resize_round;
	double scale[2];
	int fn, axes, keepdims; /* <vta/model/fn.h> */
	double alpha, beta;
} vta_mattrs_t;

typedef struct vta_mnode {
	uint32_t op;
	char name[VTA_MGRAPH_NAME];
	int n_in;
	uint32_t in[VTA_MGRAPH_MAX_IN]; /* ordinals of earlier nodes */
	vta_mtype_t type;
	vta_mattrs_t a;
	int on_vta;
	/* constants: their bytes (type-sized), in the file or in the image; else NULL */
	const uint8_t *data;
} vta_mnode_t;

typedef struct vta_mkernel {
	uint32_t node; /* a VTA_MOP_VTA_CONV node whose kernel_id is this index */
	int64_t insn_off, insn_count, uop_off, n_uops, macs;
	uint32_t th, tco, tci, flags;
} vta_mkernel_t;

typedef struct vta_mgraph {
	uint32_t config_id, batch, block_in, block_out;
	char config[512];
	uint32_t n_nodes;
	vta_mnode_t *nodes;
	int n_inputs, n_outputs;
	uint32_t inputs[VTA_MGRAPH_MAX_IO], outputs[VTA_MGRAPH_MAX_IO];
	uint32_t n_kernels;
	vta_mkernel_t *kernels;
	int64_t image_size; /* device memory the model needs */
	uint8_t *image;     /* image_size bytes (malloc'd, zero past the stored part) */
} vta_mgraph_t;

/* Bytes of one element of dtype (0 for an unknown dtype) and of a tensor. */
size_t vta_mdtype_size(uint32_t dtype);
int64_t vta_mtype_elems(const vta_mtype_t *t);
int64_t vta_mtype_bytes(const vta_mtype_t *t);
/* a and b have the same rank and dimensions. */
int vta_mtype_same_dims(const vta_mtype_t *a, const vta_mtype_t *b);

/*
 * Decode a GRAPH section of len bytes into g (freed with vta_mgraph_free,
 * also after an error). Constant data point into bytes or g->image, so
 * bytes must outlive g. 0, or a VTA_E* code with err naming the node,
 * kernel or field that was wrong; what names the file in messages.
 */
int vta_mgraph_decode(const uint8_t *bytes, size_t len, const char *what, vta_mgraph_t *g,
		      vta_error_t *err);
void vta_mgraph_free(vta_mgraph_t *g);

/* The META section's preprocessing lines ("scale=S", "mean=M[,M..]",
 * "std=S[,S..]", unknown keys skipped) into t's has_preproc, scale, mean,
 * std (model.c; the compiler's `vta run --simulate` reads them too). */
struct vta_tensor_info;
int vta_meta_preproc(const uint8_t *p, size_t n, const char *what, struct vta_tensor_info *t, vta_error_t *err);

#endif /* VTA_MODEL_GRAPH_H */
