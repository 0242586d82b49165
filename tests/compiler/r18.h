/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ResNet-18 convolution layers (COMPILER-NOTES 6.1) as one-layer modules with
 * synthetic weights, shared by bench_compiler and the cycle-budget test.
 */
#ifndef VTA_TESTS_R18_H
#define VTA_TESTS_R18_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

typedef struct r18_layer {
	const char *name;
	int hw, ic, oc, k, pad, stride;
	int res; /* a basic block's second conv: relu(conv(x) + x), the add fused */
} r18_layer;

extern const r18_layer r18_layers[];
extern const size_t r18_n_layers;

/* The layer called name, or NULL. */
const r18_layer *r18_find(const char *name);

/* Uniform in [-1, 1) from *st (xorshift): the sequence the recorded figures use. */
float r18_frand(uint64_t *st);

/* relu(conv(x)) (+ x for res) with weights and bias from *st, which it sets to 5
 * first; the input the figures use continues from *st. */
vc_module *r18_module(const r18_layer *w, uint64_t *st);

/* Multiply-accumulates of the layer. */
double r18_macs(const r18_layer *w);

#endif
