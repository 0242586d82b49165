/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Front ends: each builds the graph IR through the typed builder and refuses
 * anything it does not understand with a diagnostic naming the node, the op
 * and the attribute or data type.
 *
 *   onnx.c     ONNX through protobuf-c (C generated at build time from
 *              Debian's onnx.proto)
 *   onnx_freeze.c  graph inputs frozen into constants before import
 *   import.c   vc_import_file: the importer by the file's contents
 *   compose.c  the compositions of IR ops the ONNX and TFLite importers
 *              share (vc_imp_*)
 *   tflite.c   TFLite through flatbuf.c, a bounds-checked FlatBuffers
 *              reader (flatbuf.h)
 *   darknet.c  Darknet .cfg + .weights (or seeded synthetic weights); the
 *              cfg and weights readers take buffers (fuzzable)
 *   unsupported.c  the census each importer takes first: every op type it
 *              does not take, counted, in one diagnostic (unsupported.h)
 */
#ifndef VC_IMPORT_H
#define VC_IMPORT_H

#include "exec/exec.h"
#include "ir/ir.h"

/* Import an ONNX model (file or bytes). Unsupported ops, attributes and
 * dtypes are named in the diagnostic. */
int vc_import_onnx_file(vc_module *m, const char *path);
int vc_import_onnx_bytes(vc_module *m, const uint8_t *bytes, size_t len);
/* Import an ONNX model with graph inputs frozen into constants: each named
 * input becomes an initializer holding the TensorProto given by its bytes
 * (an input_k.pb of the conformance tests), so the importer takes it as it
 * takes weights (shapes, indices and slice bounds included) and folds what
 * it feeds. An unknown name or a value that does not parse is refused. */
typedef struct vc_onnx_frozen {
	const char *name;
	const uint8_t *pb;
	size_t len;
} vc_onnx_frozen;
int vc_import_onnx_frozen(vc_module *m, const uint8_t *bytes, size_t len, const vc_onnx_frozen *f, int n);
/* Read an ONNX TensorProto file (conformance tests) as a float tensor. */
int vc_read_tensor_pb(vc_module *m, const char *path, vc_tensor *out);

/* Import a TFLite model (file or bytes): float or int8 (dequantized, see
 * tflite.c); NHWC tensors become NCHW values. */
int vc_import_tflite_file(vc_module *m, const char *path);
int vc_import_tflite_bytes(vc_module *m, const uint8_t *bytes, size_t len);

/* The format of a model file, the one place it is decided: TFLite when the
 * file says so (the FlatBuffers identifier "TFL3" at byte 4) or is named
 * .tflite; a Darknet cfg when named .cfg or when its first line that is not
 * blank or a comment opens a section ("[net]"); ONNX otherwise. */
typedef enum vc_model_format { VC_FORMAT_ONNX, VC_FORMAT_TFLITE, VC_FORMAT_DARKNET } vc_model_format;
vc_model_format vc_model_format_of(const char *path);

/* An ONNX or TFLite model file (a Darknet cfg needs its weights:
 * vc_import_darknet_files). */
int vc_import_file(vc_module *m, const char *path);

/*
 * Compositions of existing IR ops that more than one importer needs: each
 * builds float nodes (named nm, the helpers' own unnamed) and returns the
 * last, or NULL with a diagnostic from the builder.
 */
/* A float constant of one element. */
vc_node *vc_imp_scalar(vc_module *m, double v);
/* x * k. */
vc_node *vc_imp_scale(vc_module *m, vc_node *x, double k, const char *nm);
/* a - b as a + b * -1. */
vc_node *vc_imp_sub(vc_module *m, vc_node *a, vc_node *b, const char *nm);
/* a / c of a float constant c as a * (1 / c). */
vc_node *vc_imp_div_const(vc_module *m, vc_node *a, const vc_node *c, const char *nm);
/* max(0, min(1, alpha x + beta)), times x when swish (HardSwish: alpha 1/6,
 * beta 1/2). */
vc_node *vc_imp_hard_sigmoid(vc_module *m, vc_node *x, double alpha, double beta, int swish, const char *nm);
/* x for x >= 0, slope * x below: a slope alpha of 2^-k (1 <= k <= 15) is
 * the VTA ALU's leaky op; any other alpha, or a slope tensor (PReLU, already
 * in a shape that broadcasts onto x), relu(x) + slope * (x - relu(x)). */
vc_node *vc_imp_leaky_relu(vc_module *m, vc_node *x, vc_node *slope, double alpha, const char *nm);
/* tanh(x) as 2 sigmoid(2x) - 1. */
vc_node *vc_imp_tanh(vc_module *m, vc_node *x, const char *nm);
/* An IEEE half-precision value as a float (fp16 weights of either format). */
float vc_imp_half(uint16_t h);
/* The nearest half-precision value of f (ties to even), as its bits. */
uint16_t vc_imp_to_half(float f);

/* Darknet import: a .cfg and its .weights, or synthetic weights drawn from a
 * seed (deterministic), optionally at another square input size. */
typedef struct vc_darknet_opts {
	int synthetic;   /* 1: no weights file, values from seed */
	uint64_t seed;
	int input_size;  /* > 0: width = height = input_size instead of [net]'s */
} vc_darknet_opts;

/* The cfg text as sections of key=value lines (fuzzable on its own). */
typedef struct vc_dn_cfg vc_dn_cfg;
/* 0, or -1 with vc_dn_cfg_error(*out) naming the file and line; free *out
 * with vc_dn_cfg_free either way. */
int vc_dn_cfg_parse(const char *name, const uint8_t *buf, size_t len, vc_dn_cfg **out);
const char *vc_dn_cfg_error(const vc_dn_cfg *c);
void vc_dn_cfg_free(vc_dn_cfg *c);
int vc_dn_cfg_sections(const vc_dn_cfg *c);
const char *vc_dn_cfg_type(const vc_dn_cfg *c, int i);
/* The size of a .weights header (16 or 20 bytes), or -1 with a message. */
int vc_dn_weights_header(const uint8_t *buf, size_t len, size_t *header, char *err, size_t n);
/* Build the float graph: input "data" [1,C,H,W] of pixels 0..255, outputs
 * every [yolo] layer, or else the last layer. weights NULL: o->synthetic. */
int vc_import_darknet(vc_module *m, vc_dn_cfg *cfg, const char *weights_name, const uint8_t *weights, size_t wlen,
		      const vc_darknet_opts *o);
int vc_import_darknet_bytes(vc_module *m, const char *cfg_name, const uint8_t *cfg, size_t cfg_len,
			    const char *weights_name, const uint8_t *weights, size_t weights_len, const vc_darknet_opts *o);
int vc_import_darknet_files(vc_module *m, const char *cfg_path, const char *weights_path, const vc_darknet_opts *o);

#endif /* VC_IMPORT_H */
