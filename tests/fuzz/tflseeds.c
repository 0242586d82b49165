/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Seeds for the TFLite fuzz target: tflseeds DIR writes a few tiny models
 * (a few hundred bytes each, written by tests/compiler/tflbuild.h) that
 * together use every operator and option the importer takes, and one of
 * operators it does not take. The ResNet-8
 * files of ../shared are 100-400 KB, and libFuzzer runs far fewer mutations
 * a second on inputs that large.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tflbuild.h"

/* BuiltinOperator and BuiltinOptions numbers of TFLite's schema.fbs */
enum { ADD = 0, AVERAGE_POOL_2D = 1, CONCATENATION = 2, CONV_2D = 3, DEPTHWISE_CONV_2D = 4, DEPTH_TO_SPACE = 5,
       DEQUANTIZE = 6, FULLY_CONNECTED = 9, MAX_POOL_2D = 17, RESHAPE = 22, RESIZE_BILINEAR = 23, SOFTMAX = 25, TANH = 28, CUSTOM = 32,
       PAD = 34, TRANSPOSE = 39, MEAN = 40, SUB = 41, DIV = 42, SQUEEZE = 43, STRIDED_SLICE = 45, EXP = 47,
       SPLIT = 49, PRELU = 54, MAXIMUM = 55, MINIMUM = 57, PADV2 = 60, SLICE = 65, EXPAND_DIMS = 70, UNPACK = 88,
       RESIZE_NEAREST_NEIGHBOR = 97, LEAKY_RELU = 98, MIRROR_PAD = 100, SPLIT_V = 102, QUANTIZE = 114, HARD_SWISH = 117 };
enum { O_CONV = 1, O_DW = 2, O_POOL = 5, O_RESIZE_BILINEAR = 15, O_RESIZE_NEAREST = 74, O_FC = 8, O_SOFTMAX = 9, O_CONCAT = 10, O_ADD = 11, O_REDUCER = 27,
       O_SUB = 28, O_DIV = 29, O_STRIDED_SLICE = 32, O_SPLIT = 35, O_LEAKY_RELU = 75, O_MIRROR_PAD = 77, O_SPLIT_V = 79,
       O_DEPTH_TO_SPACE = 94 };
enum { SAME = 0, VALID = 1, A_RELU = 1, A_RELU6 = 3 };

#define TENSOR(md, i, nm, ty, rk, ...) \
	((md)->t[i] = (tfl_tensor){.name = nm, .type = ty, .rank = rk, .shape = {__VA_ARGS__}})
#define DATA(md, i, p) ((md)->t[i].data = (p), (md)->t[i].bytes = sizeof(p))

static tfl_op *op(tfl_model *md, int code, int opt_type, int out, int nin, int i0, int i1, int i2)
{
	tfl_op *o = &md->op[md->nop++];
	*o = (tfl_op){.code = code, .opt_type = opt_type, .nin = nin, .in = {i0, i1, i2}, .out = out};
	return o;
}

static void opt(tfl_op *o, int kind, int id, int32_t i, float f)
{
	o->opt[o->nopt].id = id;
	o->opt[o->nopt].kind = kind;
	o->opt[o->nopt].i = i;
	o->opt[o->nopt].f = f;
	o->nopt++;
}

/* Padding, stride, then the window or multiplier fields, as CONV_2D,
 * DEPTHWISE_CONV_2D and the pools number them. */
static void window(tfl_op *o, int padding, int stride)
{
	opt(o, TFL_OPT_U8, 0, padding, 0);
	opt(o, TFL_OPT_I32, 1, stride, 0);
	opt(o, TFL_OPT_I32, 2, stride, 0);
}

static const float w_conv[4 * 3 * 3 * 2] = {0.5f, -0.25f, 0.125f, 1, -1, 0.5f, 0.25f, -0.5f, 1};
static const float b4[4] = {0.1f, -0.1f, 0.2f, 0};
static const float w_fc[3 * 4] = {1, -1, 0.5f, 0.25f, -0.5f, 1, 0, 0.5f, 0.25f, 1, -1, 0};
static const float b3[3] = {0, 0.5f, -0.5f};
static const int32_t axes_hw[2] = {1, 2};
static const float w_dw[1 * 3 * 3 * 4] = {0.5f, 0.25f, -0.5f, 1, 0.125f, -1, 0.5f, 0.5f};
static const int32_t pads[8] = {0, 0, 1, 1, 0, 1, 0, 0};
static const int32_t shape_1x4[2] = {1, 4};

/* CONV_2D SAME relu, MAX_POOL_2D VALID s2, MEAN keep_dims, FULLY_CONNECTED. */
static void conv_pool_fc(tfl_model *md)
{
	TENSOR(md, 0, "x", TFL_FLOAT32, 4, 1, 5, 5, 2);
	TENSOR(md, 1, "w", TFL_FLOAT32, 4, 4, 3, 3, 2);
	DATA(md, 1, w_conv);
	TENSOR(md, 2, "b", TFL_FLOAT32, 1, 4);
	DATA(md, 2, b4);
	TENSOR(md, 3, "c", TFL_FLOAT32, 4, 1, 5, 5, 4);
	TENSOR(md, 4, "p", TFL_FLOAT32, 4, 1, 2, 2, 4);
	TENSOR(md, 5, "axes", TFL_INT32, 1, 2);
	DATA(md, 5, axes_hw);
	TENSOR(md, 6, "m", TFL_FLOAT32, 4, 1, 1, 1, 4);
	TENSOR(md, 7, "fw", TFL_FLOAT32, 2, 3, 4);
	DATA(md, 7, w_fc);
	TENSOR(md, 8, "fb", TFL_FLOAT32, 1, 3);
	DATA(md, 8, b3);
	TENSOR(md, 9, "y", TFL_FLOAT32, 2, 1, 3);
	md->nt = 10;
	tfl_op *o = op(md, CONV_2D, O_CONV, 3, 3, 0, 1, 2);
	window(o, SAME, 1);
	opt(o, TFL_OPT_U8, 3, A_RELU, 0);
	o = op(md, MAX_POOL_2D, O_POOL, 4, 1, 3, 0, 0);
	window(o, VALID, 2);
	opt(o, TFL_OPT_I32, 3, 2, 0);
	opt(o, TFL_OPT_I32, 4, 2, 0);
	opt(op(md, MEAN, O_REDUCER, 6, 2, 4, 5, 0), TFL_OPT_U8, 0, 1, 0);
	opt(op(md, FULLY_CONNECTED, O_FC, 9, 3, 6, 7, 8), TFL_OPT_U8, 0, A_RELU, 0);
	md->input = 0, md->output = 9;
}

/* DEPTHWISE_CONV_2D relu6, a residual ADD, PAD, AVERAGE_POOL_2D, MEAN,
 * RESHAPE, SOFTMAX. */
static void dw_add_pad_softmax(tfl_model *md)
{
	TENSOR(md, 0, "x", TFL_FLOAT32, 4, 1, 4, 4, 4);
	TENSOR(md, 1, "w", TFL_FLOAT32, 4, 1, 3, 3, 4);
	DATA(md, 1, w_dw);
	TENSOR(md, 2, "b", TFL_FLOAT32, 1, 4);
	DATA(md, 2, b4);
	TENSOR(md, 3, "d", TFL_FLOAT32, 4, 1, 4, 4, 4);
	TENSOR(md, 4, "a", TFL_FLOAT32, 4, 1, 4, 4, 4);
	TENSOR(md, 5, "pads", TFL_INT32, 2, 4, 2);
	DATA(md, 5, pads);
	TENSOR(md, 6, "p", TFL_FLOAT32, 4, 1, 6, 5, 4);
	TENSOR(md, 7, "ap", TFL_FLOAT32, 4, 1, 4, 3, 4);
	TENSOR(md, 8, "axes", TFL_INT32, 1, 2);
	DATA(md, 8, axes_hw);
	TENSOR(md, 9, "m", TFL_FLOAT32, 2, 1, 4);
	TENSOR(md, 10, "shape", TFL_INT32, 1, 2);
	DATA(md, 10, shape_1x4);
	TENSOR(md, 11, "r", TFL_FLOAT32, 2, 1, 4);
	TENSOR(md, 12, "y", TFL_FLOAT32, 2, 1, 4);
	md->nt = 13;
	tfl_op *o = op(md, DEPTHWISE_CONV_2D, O_DW, 3, 3, 0, 1, 2);
	window(o, SAME, 1);
	opt(o, TFL_OPT_I32, 3, 1, 0);
	opt(o, TFL_OPT_U8, 4, A_RELU6, 0);
	opt(op(md, ADD, O_ADD, 4, 2, 3, 0, 0), TFL_OPT_U8, 0, A_RELU, 0);
	op(md, PAD, 0, 6, 2, 4, 5, 0);
	o = op(md, AVERAGE_POOL_2D, O_POOL, 7, 1, 6, 0, 0);
	window(o, VALID, 1);
	opt(o, TFL_OPT_I32, 3, 3, 0);
	opt(o, TFL_OPT_I32, 4, 3, 0);
	opt(op(md, MEAN, O_REDUCER, 9, 2, 7, 8, 0), TFL_OPT_U8, 0, 0, 0);
	op(md, RESHAPE, 0, 11, 2, 9, 10, 0);
	opt(op(md, SOFTMAX, O_SOFTMAX, 12, 1, 11, 0, 0), TFL_OPT_F32, 0, 0, 1.0f);
	md->input = 0, md->output = 12;
}

static const float in_scale[1] = {1.0f / 128}, q_scale[1] = {1.0f / 128}, o_scale[1] = {0.05f};
static const float w_scale[2] = {0.004f, 0.008f}, b_scale[2] = {0.004f / 128, 0.008f / 128};
static const int64_t in_zero[1] = {128}, zeros2[2], o_zero[1] = {-3};
static const int8_t w_q[2 * 3 * 3 * 2] = {12, -7, 100, -128, 3, 0, 64, -64, 1, 2, -3, 4, 127, -5, 6, -7, 8, 9};
static const int32_t b_q[2] = {-300, 512};

/* An int8 model: uint8 pixels, QUANTIZE, CONV_2D with per-channel int8
 * weights and an int32 bias, DEQUANTIZE. */
static void int8_conv(tfl_model *md)
{
	TENSOR(md, 0, "pixels", TFL_UINT8, 4, 1, 3, 3, 2);
	md->t[0].nq = 1, md->t[0].scale = in_scale, md->t[0].zero = in_zero;
	TENSOR(md, 1, "q", TFL_INT8, 4, 1, 3, 3, 2);
	md->t[1].nq = 1, md->t[1].scale = q_scale, md->t[1].zero = zeros2;
	TENSOR(md, 2, "wq", TFL_INT8, 4, 2, 3, 3, 2);
	DATA(md, 2, w_q);
	md->t[2].nq = 2, md->t[2].scale = w_scale, md->t[2].zero = zeros2, md->t[2].qdim = 0;
	TENSOR(md, 3, "bq", TFL_INT32, 1, 2);
	DATA(md, 3, b_q);
	md->t[3].nq = 2, md->t[3].scale = b_scale, md->t[3].zero = zeros2;
	TENSOR(md, 4, "yq", TFL_INT8, 4, 1, 3, 3, 2);
	md->t[4].nq = 1, md->t[4].scale = o_scale, md->t[4].zero = o_zero;
	TENSOR(md, 5, "y", TFL_FLOAT32, 4, 1, 3, 3, 2);
	md->nt = 6;
	op(md, QUANTIZE, 0, 1, 1, 0, 0, 0);
	tfl_op *o = op(md, CONV_2D, O_CONV, 4, 3, 1, 2, 3);
	window(o, SAME, 1);
	opt(o, TFL_OPT_U8, 3, A_RELU, 0);
	op(md, DEQUANTIZE, 0, 5, 1, 4, 0, 0);
	md->input = 0, md->output = 5;
}

static const uint16_t w_half[4 * 1 * 1 * 2] = {0x3800, 0xb400, 0x3c00, 0x3000, 0xbc00, 0x3400, 0x2c00, 0xb800};
static const int32_t axis_c[1] = {3}, axis_h[1] = {1}, sizes_h[2] = {1, -1};
static const int32_t sb[4] = {0, 1, 0, 0}, se[4] = {1, 4, 4, 4}, ss1[4] = {1, 1, 1, 1};
static const int32_t perm_hw[4] = {0, 2, 1, 3}, shape_3d[3] = {1, 12, 4};
static const float slope4[4] = {0.25f, -0.5f, 0.125f, 1}, k4[4] = {0.5f, -0.25f, 1, 0}, four[1] = {4}, half[1] = {0.5f};

/* fp16 weights behind DEQUANTIZE, CONV_2D, SPLIT of the channels, SPLIT_V of
 * the rows, CONCATENATION, TRANSPOSE, RESHAPE to 3-D. */
static void fp16_split_slice(tfl_model *md)
{
	TENSOR(md, 0, "x", TFL_FLOAT32, 4, 1, 4, 4, 2);
	TENSOR(md, 1, "wh", TFL_FLOAT16, 4, 4, 1, 1, 2);
	DATA(md, 1, w_half);
	TENSOR(md, 2, "w", TFL_FLOAT32, 4, 4, 1, 1, 2);
	TENSOR(md, 3, "c", TFL_FLOAT32, 4, 1, 4, 4, 4);
	TENSOR(md, 4, "axis", TFL_INT32, 0);
	DATA(md, 4, axis_c);
	TENSOR(md, 5, "s0", TFL_FLOAT32, 4, 1, 4, 4, 2);
	TENSOR(md, 6, "s1", TFL_FLOAT32, 4, 1, 4, 4, 2);
	TENSOR(md, 7, "sizes", TFL_INT32, 1, 2);
	DATA(md, 7, sizes_h);
	TENSOR(md, 8, "axis_h", TFL_INT32, 0);
	DATA(md, 8, axis_h);
	TENSOR(md, 9, "v0", TFL_FLOAT32, 4, 1, 1, 4, 2);
	TENSOR(md, 10, "v1", TFL_FLOAT32, 4, 1, 3, 4, 2);
	TENSOR(md, 11, "r", TFL_FLOAT32, 4, 1, 3, 4, 4);
	TENSOR(md, 12, "tr", TFL_FLOAT32, 4, 1, 4, 3, 4);
	TENSOR(md, 13, "perm", TFL_INT32, 1, 4);
	DATA(md, 13, perm_hw);
	TENSOR(md, 14, "shape", TFL_INT32, 1, 3);
	DATA(md, 14, shape_3d);
	TENSOR(md, 15, "y", TFL_FLOAT32, 3, 1, 12, 4);
	md->nt = 16;
	op(md, DEQUANTIZE, 0, 2, 1, 1, 0, 0);
	window(op(md, CONV_2D, O_CONV, 3, 2, 0, 2, 0), SAME, 1);
	tfl_op *o = op(md, SPLIT, O_SPLIT, 5, 2, 4, 3, 0);
	o->nout = 2;
	opt(o, TFL_OPT_I32, 0, 2, 0);
	o = op(md, SPLIT_V, O_SPLIT_V, 9, 3, 6, 7, 8);
	o->nout = 2;
	opt(o, TFL_OPT_I32, 0, 2, 0);
	opt(op(md, CONCATENATION, O_CONCAT, 11, 2, 10, 10, 0), TFL_OPT_I32, 0, 3, 0);
	op(md, TRANSPOSE, 0, 12, 2, 11, 13, 0);
	op(md, RESHAPE, 0, 15, 2, 12, 14, 0);
	md->input = 0, md->output = 15;
}

/* SUB, DIV, TANH, HARD_SWISH, LEAKY_RELU, PRELU, MAXIMUM, MINIMUM. */
static void elementwise(tfl_model *md)
{
	TENSOR(md, 0, "x", TFL_FLOAT32, 4, 1, 3, 3, 4);
	TENSOR(md, 1, "k", TFL_FLOAT32, 1, 4);
	DATA(md, 1, k4);
	TENSOR(md, 2, "four", TFL_FLOAT32, 0);
	DATA(md, 2, four);
	TENSOR(md, 3, "slope", TFL_FLOAT32, 3, 1, 1, 4);
	DATA(md, 3, slope4);
	TENSOR(md, 4, "half", TFL_FLOAT32, 0);
	DATA(md, 4, half);
	for (int i = 5; i < 13; i++)
		TENSOR(md, i, "t", TFL_FLOAT32, 4, 1, 3, 3, 4);
	md->nt = 13;
	opt(op(md, SUB, O_SUB, 5, 2, 0, 1, 0), TFL_OPT_U8, 0, A_RELU, 0);
	op(md, DIV, O_DIV, 6, 2, 5, 2, 0);
	op(md, TANH, 0, 7, 1, 6, 0, 0);
	op(md, HARD_SWISH, 0, 8, 1, 7, 0, 0);
	opt(op(md, LEAKY_RELU, O_LEAKY_RELU, 9, 1, 8, 0, 0), TFL_OPT_F32, 0, 0, 0.2f);
	op(md, PRELU, 0, 10, 2, 9, 3, 0);
	op(md, MAXIMUM, 0, 11, 2, 10, 4, 0);
	op(md, MINIMUM, 0, 12, 2, 4, 11, 0);
	md->input = 0, md->output = 12;
}

/* PADV2 (0.5), DEPTH_TO_SPACE, STRIDED_SLICE with shrink_axis_mask, SLICE. */
static void pad_d2s_slice(tfl_model *md)
{
	static const int32_t pads[8] = {0, 0, 1, 0, 0, 1, 0, 0}, sl_b[3] = {0, 0, 0}, sl_s[3] = {1, -1, 2};
	TENSOR(md, 0, "x", TFL_FLOAT32, 4, 1, 2, 2, 8);
	TENSOR(md, 1, "pads", TFL_INT32, 2, 4, 2);
	DATA(md, 1, pads);
	TENSOR(md, 2, "half", TFL_FLOAT32, 0);
	DATA(md, 2, half);
	TENSOR(md, 3, "p", TFL_FLOAT32, 4, 1, 3, 3, 8);
	TENSOR(md, 4, "d", TFL_FLOAT32, 4, 1, 6, 6, 2);
	TENSOR(md, 5, "b", TFL_INT32, 1, 4);
	DATA(md, 5, sb);
	TENSOR(md, 6, "e", TFL_INT32, 1, 4);
	DATA(md, 6, se);
	TENSOR(md, 7, "s", TFL_INT32, 1, 4);
	DATA(md, 7, ss1);
	TENSOR(md, 8, "row", TFL_FLOAT32, 3, 1, 4, 2);
	TENSOR(md, 9, "slb", TFL_INT32, 1, 3);
	DATA(md, 9, sl_b);
	TENSOR(md, 10, "sls", TFL_INT32, 1, 3);
	DATA(md, 10, sl_s);
	TENSOR(md, 11, "y", TFL_FLOAT32, 3, 1, 4, 2);
	md->nt = 12;
	op(md, PADV2, 0, 3, 3, 0, 1, 2);
	opt(op(md, DEPTH_TO_SPACE, O_DEPTH_TO_SPACE, 4, 1, 3, 0, 0), TFL_OPT_I32, 0, 2, 0);
	tfl_op *o = op(md, STRIDED_SLICE, O_STRIDED_SLICE, 8, 4, 4, 5, 6);
	o->in[3] = 7;
	opt(o, TFL_OPT_I32, 4, 2, 0);
	op(md, SLICE, 0, 11, 3, 8, 9, 10);
	md->input = 0, md->output = 11;
}

/* PAD of zeros before MAX_POOL_2D (a pad node), MEAN, SQUEEZE, EXPAND_DIMS. */
static void pad_pool_squeeze(tfl_model *md)
{
	static const int32_t ax1[1] = {1};
	TENSOR(md, 0, "x", TFL_FLOAT32, 4, 1, 2, 2, 4);
	TENSOR(md, 1, "pads", TFL_INT32, 2, 4, 2);
	DATA(md, 1, pads);
	TENSOR(md, 2, "p", TFL_FLOAT32, 4, 1, 4, 3, 4);
	TENSOR(md, 3, "mp", TFL_FLOAT32, 4, 1, 2, 1, 4);
	TENSOR(md, 4, "axes", TFL_INT32, 1, 2);
	DATA(md, 4, axes_hw);
	TENSOR(md, 5, "m", TFL_FLOAT32, 4, 1, 1, 1, 4);
	TENSOR(md, 6, "sq", TFL_FLOAT32, 2, 1, 4);
	TENSOR(md, 7, "ax", TFL_INT32, 0);
	DATA(md, 7, ax1);
	TENSOR(md, 8, "y", TFL_FLOAT32, 3, 1, 1, 4);
	md->nt = 9;
	op(md, PAD, 0, 2, 2, 0, 1, 0);
	tfl_op *o = op(md, MAX_POOL_2D, O_POOL, 3, 1, 2, 0, 0);
	window(o, VALID, 2);
	opt(o, TFL_OPT_I32, 3, 2, 0);
	opt(o, TFL_OPT_I32, 4, 2, 0);
	opt(op(md, MEAN, O_REDUCER, 5, 2, 3, 4, 0), TFL_OPT_U8, 0, 1, 0);
	op(md, SQUEEZE, 0, 6, 1, 5, 0, 0);
	op(md, EXPAND_DIMS, 0, 8, 2, 6, 7, 0);
	md->input = 0, md->output = 8;
}

/* MIRROR_PAD REFLECT, then SYMMETRIC. */
static void mirror_pad(tfl_model *md)
{
	static const int32_t p1[8] = {0, 0, 1, 1, 1, 0, 0, 0}, p2[8] = {0, 0, 0, 2, 1, 1, 0, 0};
	TENSOR(md, 0, "x", TFL_FLOAT32, 4, 1, 3, 3, 2);
	TENSOR(md, 1, "p1", TFL_INT32, 2, 4, 2);
	DATA(md, 1, p1);
	TENSOR(md, 2, "r", TFL_FLOAT32, 4, 1, 5, 4, 2);
	TENSOR(md, 3, "p2", TFL_INT32, 2, 4, 2);
	DATA(md, 3, p2);
	TENSOR(md, 4, "y", TFL_FLOAT32, 4, 1, 7, 6, 2);
	md->nt = 5;
	opt(op(md, MIRROR_PAD, O_MIRROR_PAD, 2, 2, 0, 1, 0), TFL_OPT_U8, 0, 0, 0);
	opt(op(md, MIRROR_PAD, O_MIRROR_PAD, 4, 2, 2, 3, 0), TFL_OPT_U8, 0, 1, 0);
	md->input = 0, md->output = 4;
}

/* RESIZE_BILINEAR with half_pixel_centers, RESIZE_NEAREST_NEIGHBOR with
 * align_corners. */
static void resize(tfl_model *md)
{
	static const int32_t s1[2] = {5, 3}, s2[2] = {4, 7};
	TENSOR(md, 0, "x", TFL_FLOAT32, 4, 1, 3, 3, 2);
	TENSOR(md, 1, "s1", TFL_INT32, 1, 2);
	DATA(md, 1, s1);
	TENSOR(md, 2, "b", TFL_FLOAT32, 4, 1, 5, 3, 2);
	TENSOR(md, 3, "s2", TFL_INT32, 1, 2);
	DATA(md, 3, s2);
	TENSOR(md, 4, "y", TFL_FLOAT32, 4, 1, 4, 7, 2);
	md->nt = 5;
	opt(op(md, RESIZE_BILINEAR, O_RESIZE_BILINEAR, 2, 2, 0, 1, 0), TFL_OPT_U8, 3, 1, 0);
	opt(op(md, RESIZE_NEAREST_NEIGHBOR, O_RESIZE_NEAREST, 4, 2, 2, 3, 0), TFL_OPT_U8, 0, 1, 0);
	md->input = 0, md->output = 4;
}

/* Operators the importer does not take (the census of unsupported types
 * that runs before any check): EXP twice, a CUSTOM op, an UNPACK with two
 * outputs, then a convolution. */
static void unsupported(tfl_model *md)
{
	TENSOR(md, 0, "x", TFL_FLOAT32, 4, 1, 4, 4, 2);
	TENSOR(md, 1, "t1", TFL_FLOAT32, 4, 1, 4, 4, 2);
	TENSOR(md, 2, "t2", TFL_FLOAT32, 4, 1, 4, 4, 2);
	TENSOR(md, 3, "det", TFL_FLOAT32, 4, 1, 4, 4, 2);
	TENSOR(md, 4, "s0", TFL_FLOAT32, 4, 1, 4, 4, 1);
	TENSOR(md, 5, "s1", TFL_FLOAT32, 4, 1, 4, 4, 1);
	md->nt = 6;
	op(md, EXP, 0, 1, 1, 0, 0, 0);
	op(md, EXP, 0, 2, 1, 1, 0, 0);
	op(md, CUSTOM, 0, 3, 1, 2, 0, 0)->custom = "TFLite_Detection_PostProcess";
	op(md, UNPACK, 0, 4, 1, 3, 0, 0)->nout = 2;
	md->input = 0, md->output = 4;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: tflseeds DIR\n");
		return 2;
	}
	static const struct {
		const char *name;
		void (*build)(tfl_model *);
	} models[] = {
		{"conv-pool-fc", conv_pool_fc},
		{"dw-add-pad-softmax", dw_add_pad_softmax},
		{"int8-conv", int8_conv},
		{"fp16-split-slice", fp16_split_slice},
		{"elementwise", elementwise},
		{"pad-d2s-slice", pad_d2s_slice},
		{"pad-pool-squeeze", pad_pool_squeeze},
		{"mirror-pad", mirror_pad},
		{"resize", resize},
		{"unsupported", unsupported},
	};
	int rc = 0;
	for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
		tfl_model md = {0};
		models[i].build(&md);
		size_t len;
		uint8_t *bytes = tfl_build(&md, &len);
		char path[4096];
		snprintf(path, sizeof path, "%s/%s.tflite", argv[1], models[i].name);
		FILE *f = bytes ? fopen(path, "wb") : NULL;
		if (!f || fwrite(bytes, 1, len, f) != len || fclose(f)) {
			fprintf(stderr, "tflseeds: cannot write %s\n", path);
			rc = 1;
		}
		free(bytes);
	}
	return rc;
}
