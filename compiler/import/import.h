/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Front ends: each builds the graph IR through the typed builder and refuses
 * anything it does not understand with a diagnostic naming the node, the op
 * and the attribute or data type.
 *
 *   onnx.c     ONNX through protobuf-c (C generated at build time from
 *              Debian's onnx.proto)
 *   import.c   vc_import_file: the importer by the file's contents
 *   tflite.c   TFLite through flatbuf.c, a bounds-checked FlatBuffers
 *              reader (flatbuf.h)
 */
#ifndef VC_IMPORT_H
#define VC_IMPORT_H

#include "exec/exec.h"
#include "ir/ir.h"

/* Import an ONNX model (file or bytes). Unsupported ops, attributes and
 * dtypes are named in the diagnostic. */
int vc_import_onnx_file(vc_module *m, const char *path);
int vc_import_onnx_bytes(vc_module *m, const uint8_t *bytes, size_t len);
/* Read an ONNX TensorProto file (conformance tests) as a float tensor. */
int vc_read_tensor_pb(vc_module *m, const char *path, vc_tensor *out);

/* Import a TFLite model (file or bytes): float or int8 (dequantized, see
 * tflite.c); NHWC tensors become NCHW values. */
int vc_import_tflite_file(vc_module *m, const char *path);
int vc_import_tflite_bytes(vc_module *m, const uint8_t *bytes, size_t len);

/* A model file of any supported format. */
int vc_import_file(vc_module *m, const char *path);

#endif /* VC_IMPORT_H */
