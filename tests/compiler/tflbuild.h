/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tiny TFLite models for tests, written with fbwrite.h from a plain
 * description: tensors (shape, type, optional constant data and
 * quantization), operators (builtin code, tensor indices, options by
 * field id). Field numbers are TFLite's schema.fbs.
 */
#ifndef VC_TEST_TFLBUILD_H
#define VC_TEST_TFLBUILD_H

#include <stddef.h>
#include <stdint.h>

enum { TFL_FLOAT32 = 0, TFL_FLOAT16 = 1, TFL_INT32 = 2, TFL_UINT8 = 3, TFL_INT8 = 9 };

typedef struct tfl_tensor {
	const char *name;
	int type, rank;
	int32_t shape[6];
	const void *data; /* constant data, or NULL */
	size_t bytes;
	int nq;           /* quantization: nq scales (and zero points) along qdim */
	const float *scale;
	const int64_t *zero;
	int qdim;
	int qdetails; /* a custom quantization's details_type (0: none) */
	int sparse;   /* 1: an (empty) sparsity table: a sparse tensor */
} tfl_tensor;

enum { TFL_OPT_U8, TFL_OPT_I32, TFL_OPT_F32 };

typedef struct tfl_op {
	int code;     /* BuiltinOperator */
	int opt_type; /* BuiltinOptions union member (0: none) */
	int nin, in[4];
	int out;
	int nout;           /* outputs out, out + 1, ... (0: one) */
	const char *custom; /* code CUSTOM: its custom_code */
	int nopt;
	struct {
		int id, kind;
		int32_t i;
		float f;
	} opt[8];
} tfl_op;

typedef struct tfl_model {
	int nt;
	tfl_tensor t[16];
	int nop;
	tfl_op op[8];
	int input, output;
} tfl_model;

/* The model as a .tflite file (malloc'd), or NULL. */
uint8_t *tfl_build(const tfl_model *md, size_t *len);

#endif /* VC_TEST_TFLBUILD_H */
