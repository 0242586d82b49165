/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TFLite import through the bounds-checked FlatBuffers reader (flatbuf.h),
 * for the subset of TFLite's schema.fbs the models need: CONV_2D,
 * DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, AVERAGE_POOL_2D, MAX_POOL_2D,
 * MEAN (over H and W), RESHAPE, SOFTMAX, PAD (folded into the convolution
 * or average pooling it feeds), QUANTIZE and DEQUANTIZE, fused RELU,
 * RELU6 and RELU_N1_TO_1, SAME and VALID padding.
 *
 * Layouts: TFLite activations are NHWC and weights OHWI (depthwise: 1HWC);
 * the graph IR is NCHW / OIHW, so every 4-D tensor is stored transposed and
 * the graph input becomes [N,C,H,W], the layout datasets and images are
 * read in. A RESHAPE is taken only where NHWC and NCHW orders agree (C == 1
 * or H*W == 1 on the 4-D side).
 *
 * Quantized models: the compiler owns quantization, so an int8 model is
 * imported as the float model its quantization parameters describe:
 * constant tensors are dequantized (real = scale[c] * (q - zero_point[c])
 * along the quantized dimension), QUANTIZE and DEQUANTIZE are identities,
 * and the scales of activations are dropped (the quantize pass calibrates
 * its own). The input's quantization says how image pixels p (0..255) map
 * to the real input: an int8 input holds q = p - 128, a uint8 input q = p,
 * and real = scale * (q - zero_point); a float input is the pixels as
 * float. That affine map is the first node of the graph.
 *
 * Anything else (an operator, a tensor type, an option value) is refused
 * with a message naming the operator index and its name.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <vta/bytes.h>

#include "import/flatbuf.h"
#include "import/import.h"
#include "import/unsupported.h"

/* Fields of the schema (tensorflow/lite/schema/schema.fbs). */
enum { MODEL_VERSION, MODEL_OPCODES, MODEL_SUBGRAPHS, MODEL_DESCRIPTION, MODEL_BUFFERS };
enum { OPCODE_DEPRECATED_BUILTIN, OPCODE_CUSTOM, OPCODE_VERSION, OPCODE_BUILTIN };
enum { SG_TENSORS, SG_INPUTS, SG_OUTPUTS, SG_OPERATORS };
enum { T_SHAPE, T_TYPE, T_BUFFER, T_NAME, T_QUANT, T_IS_VARIABLE, T_SPARSITY };
enum { Q_MIN, Q_MAX, Q_SCALE, Q_ZERO_POINT, Q_DETAILS_TYPE, Q_DETAILS, Q_DIM };
enum { OP_OPCODE, OP_INPUTS, OP_OUTPUTS, OP_OPTIONS_TYPE, OP_OPTIONS, OP_CUSTOM_OPTIONS };
enum { BUF_DATA, BUF_OFFSET, BUF_SIZE };

/* TensorType */
enum { TT_FLOAT32 = 0, TT_INT32 = 2, TT_UINT8 = 3, TT_INT64 = 4, TT_INT8 = 9 };

/* BuiltinOperator codes taken */
enum {
	B_ADD = 0, B_AVERAGE_POOL_2D = 1, B_CONCATENATION = 2, B_CONV_2D = 3, B_DEPTHWISE_CONV_2D = 4,
	B_DEQUANTIZE = 6, B_FULLY_CONNECTED = 9, B_LOGISTIC = 14, B_MAX_POOL_2D = 17, B_MUL = 18, B_RELU = 19,
	B_RELU_N1_TO_1 = 20, B_RELU6 = 21, B_RESHAPE = 22, B_SOFTMAX = 25, B_PAD = 34, B_MEAN = 40,
	B_RESIZE_NEAREST_NEIGHBOR = 97, B_QUANTIZE = 114,
};

/* BuiltinOptions union members taken (1-based position in the union) */
enum {
	O_CONV = 1, O_DEPTHWISE = 2, O_POOL = 5, O_FC = 8, O_SOFTMAX = 9, O_CONCATENATION = 10, O_ADD = 11,
	O_RESHAPE = 17, O_MUL = 21, O_REDUCER = 27, O_RESIZE_NEAREST = 74,
};

/* ActivationFunctionType and Padding */
enum { ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6, ACT_TANH, ACT_SIGN_BIT };
enum { PAD_SAME, PAD_VALID };

static const char *type_name(int t)
{
	static const char *const n[] = {"FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL", "INT16",
					"COMPLEX64", "INT8", "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE", "VARIANT",
					"UINT32", "UINT16", "INT4"};
	return t >= 0 && t < (int)(sizeof n / sizeof n[0]) ? n[t] : "unknown type";
}

/* The QuantizationDetails union has one member, CustomQuantization. */
static const char *details_name(int type)
{
	return type == 1 ? "CustomQuantization" : "a union member unknown to the schema";
}

/* Names of the builtin operators (BuiltinOperator in schema.fbs), for messages. */
static const char *op_name(int code, char *buf, size_t n)
{
	static const char *const names[] = {
		"ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE",
		"DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION",
		"L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D",
		"MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX",
		"SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL", "CUSTOM",
		"EMBEDDING_LOOKUP_SPARSE", "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND",
		"SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB", "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM",
		"STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP", "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE",
		"BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS", "NEG",
		"PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE", "SIN", "TRANSPOSE_CONV",
		"SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL", "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT",
		"SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK", "LOGICAL_OR",
		"ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY",
		"SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU",
		"SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS", "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N",
		"GATHER_ND", "COS", "WHERE", "RANK", "ELU", "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE",
		"MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF", "WHILE", "NON_MAX_SUPPRESSION_V4",
		"NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2", "DENSIFY", "SEGMENT_SUM", "BATCH_MATMUL",
		"PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D", "CONV_3D", "IMAG",
		"REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND", "HASHTABLE_IMPORT", "HASHTABLE_SIZE", "REDUCE_ALL",
		"CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "BROADCAST_ARGS",
		"RANDOM_STANDARD_NORMAL", "BUCKETIZE", "RANDOM_UNIFORM", "MULTINOMIAL", "GELU", "DYNAMIC_UPDATE_SLICE",
		"RELU_0_TO_1", "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM", "ATAN2",
		"UNSORTED_SEGMENT_MIN",
	};
	if (code >= 0 && code < (int)(sizeof names / sizeof names[0]))
		return names[code];
	/* past the schema this table follows (later codes differ between TFLite versions) */
	snprintf(buf, n, "unknown builtin code %d", code);
	return buf;
}

typedef struct tensor {
	vc_fb_table t;
	int type;
	int rank;
	int64_t shape[VC_MAX_RANK]; /* as declared (NHWC for 4-D) */
	char name[64];
	vc_node *node;              /* its value once produced (NCHW for 4-D) */
	int producer;               /* operator index, -1: graph input or constant */
	/* a PAD waiting for the convolution or pooling that takes it */
	int pad_op;                 /* -1: none */
	int pad_src;
	int64_t pad[4];             /* top, left, bottom, right */
} tensor;

typedef struct importer {
	vc_module *m;
	vc_fb fb;
	vc_fb_vec opcodes, buffers;
	int nt;
	tensor *ts;
	/* the operator being imported, for messages */
	int op;
	const char *opn;
} importer;

/* An error about the current operator. */
static int op_error(importer *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int op_error(importer *im, const char *fmt, ...)
{
	char text[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return vc_error(im->m, NULL, "operator %d (%s): %s", im->op, im->opn, text);
}

/* The reader's first error, with where it happened. */
static int fb_error(importer *im, const char *what)
{
	if (im->op >= 0)
		return op_error(im, "%s: %s", what, im->fb.err);
	return vc_error(im->m, NULL, "%s: %s (truncated or corrupt file)", what, im->fb.err);
}

static int64_t elems(const tensor *t)
{
	int64_t e = 1;
	for (int i = 0; i < t->rank; i++)
		e *= t->shape[i];
	return e;
}

/* The node name of a tensor: its name up to the first ';' (TFLite joins the
 * names of fused TF ops), ':' replaced (it separates pass option lists). */
static void node_name(const char *tname, int idx, char *out, size_t n)
{
	size_t k = 0;
	for (const char *s = tname; *s && *s != ';' && k + 1 < n; s++)
		out[k++] = *s == ':' ? '_' : *s;
	out[k] = 0;
	if (!k)
		snprintf(out, n, "tensor%d", idx);
}

static int read_tensors(importer *im, const vc_fb_table *sg)
{
	vc_fb *fb = &im->fb;
	vc_fb_vec tv = vc_fb_vector(fb, sg, SG_TENSORS, 4);
	if (fb->bad)
		return fb_error(im, "the tensor list");
	if (tv.len > (1u << 20))
		return vc_error(im->m, NULL, "the subgraph declares %u tensors", tv.len);
	im->nt = (int)tv.len;
	im->ts = calloc(tv.len ? tv.len : 1, sizeof *im->ts);
	if (!im->ts)
		return vc_error(im->m, NULL, "out of memory");
	for (uint32_t i = 0; i < tv.len; i++) {
		tensor *t = &im->ts[i];
		t->t = vc_fb_vec_table(fb, &tv, i);
		t->type = vc_fb_i8(fb, &t->t, T_TYPE, 0);
		char full[256];
		vc_fb_string(fb, &t->t, T_NAME, full, sizeof full);
		node_name(full, (int)i, t->name, sizeof t->name);
		vc_fb_vec sh = vc_fb_vector(fb, &t->t, T_SHAPE, 4);
		if (fb->bad) {
			char what[64];
			snprintf(what, sizeof what, "tensor %u", i);
			return fb_error(im, what);
		}
		if (sh.len > VC_MAX_RANK)
			return vc_error(im->m, NULL, "tensor %u '%s' has rank %u (at most %d supported)", i, t->name, sh.len,
					VC_MAX_RANK);
		t->rank = (int)sh.len;
		int64_t e = 1;
		for (int k = 0; k < t->rank; k++) {
			t->shape[k] = vc_fb_vec_i32(fb, &sh, (uint32_t)k);
			if (t->shape[k] < 1 || t->shape[k] > (1 << 24) || (e *= t->shape[k]) > (1ll << 28))
				return vc_error(im->m, NULL, "tensor %u '%s' has a bad dimension %lld", i, t->name,
						(long long)t->shape[k]);
		}
		if (vc_fb_has(fb, &t->t, T_SPARSITY))
			return vc_error(im->m, NULL, "tensor %u '%s' is sparse, which is not supported", i, t->name);
		t->producer = -1;
		t->pad_op = -1;
	}
	return 0;
}

/* The constant data of tensor i: checked to hold exactly its shape's bytes. */
static const uint8_t *tensor_data(importer *im, int i, size_t esize, int need)
{
	vc_fb *fb = &im->fb;
	tensor *t = &im->ts[i];
	uint32_t b = vc_fb_u32(fb, &t->t, T_BUFFER, 0);
	if (b >= im->buffers.len) {
		op_error(im, "tensor %d '%s' refers to buffer %u of %u", i, t->name, b, im->buffers.len);
		return NULL;
	}
	vc_fb_table bt = vc_fb_vec_table(fb, &im->buffers, b);
	vc_fb_vec d = vc_fb_vector(fb, &bt, BUF_DATA, 1);
	/* the offset and size fields are read before the check: a corrupt one
	 * marks the reader bad */
	uint32_t ext_off = vc_fb_u32(fb, &bt, BUF_OFFSET, 0), ext_size = vc_fb_u32(fb, &bt, BUF_SIZE, 0);
	if (fb->bad) {
		fb_error(im, "a constant buffer");
		return NULL;
	}
	if (ext_off || ext_size) {
		op_error(im, "tensor %d '%s' keeps its data outside the FlatBuffer (buffer offset), not supported", i,
			 t->name);
		return NULL;
	}
	if (!d.len) {
		if (need)
			op_error(im, "tensor %d '%s' must be a constant, but it has no data", i, t->name);
		return NULL;
	}
	if ((uint64_t)d.len != (uint64_t)elems(t) * esize) {
		char sh[96] = "";
		for (int k = 0, w = 0; k < t->rank && w < (int)sizeof sh; k++)
			w += snprintf(sh + w, sizeof sh - (size_t)w, "%s%lld", k ? "," : "", (long long)t->shape[k]);
		op_error(im, "tensor %d '%s' holds %u bytes, but its shape [%s] of %s needs %lld", i, t->name, d.len, sh,
			 type_name(t->type), (long long)(elems(t) * (int64_t)esize));
		return NULL;
	}
	return vc_fb_vec_bytes(fb, &d);
}

/* Tensor i as real numbers in its declared (TFLite) order; -1 on error. */
static int const_values(importer *im, int i, float *out)
{
	vc_fb *fb = &im->fb;
	tensor *t = &im->ts[i];
	size_t es = t->type == TT_FLOAT32 || t->type == TT_INT32 ? 4 : t->type == TT_INT8 || t->type == TT_UINT8 ? 1
			      : t->type == TT_INT64 ? 8 : 0;
	if (!es)
		return op_error(im, "constant tensor %d '%s' has type %s, which is not supported", i, t->name,
				type_name(t->type));
	const uint8_t *d = tensor_data(im, i, es, 1);
	if (!d)
		return -1;
	int64_t n = elems(t);
	vc_fb_table q = vc_fb_table_field(fb, &t->t, T_QUANT);
	vc_fb_vec sc = vc_fb_vector(fb, &q, Q_SCALE, 4), zp = vc_fb_vector(fb, &q, Q_ZERO_POINT, 8);
	int qd = vc_fb_i32(fb, &q, Q_DIM, 0), custom = vc_fb_u8(fb, &q, Q_DETAILS_TYPE, 0);
	if (fb->bad)
		return fb_error(im, "quantization parameters");
	if (custom && t->type != TT_FLOAT32)
		return op_error(im, "tensor %d '%s' has quantization details (%s), which are not supported", i, t->name,
				details_name(custom));
	int quant = sc.len > 0 && t->type != TT_FLOAT32;
	if (quant && (qd < 0 || qd >= (t->rank ? t->rank : 1) ||
		      (sc.len != 1 && (int64_t)sc.len != (t->rank ? t->shape[qd] : 1)) || (zp.len > 1 && zp.len != sc.len)))
		return op_error(im, "tensor %d '%s': %u scales along dimension %d do not fit its shape", i, t->name, sc.len,
				qd);
	int64_t inner = 1; /* the quantized dimension is checked only for quantized data */
	for (int k = qd + 1; quant && k < t->rank; k++)
		inner *= t->shape[k];
	for (int64_t k = 0; k < n; k++) {
		double v;
		switch (t->type) {
		case TT_FLOAT32: {
			uint32_t u = vta_rd_le32(d + 4 * k);
			float f;
			memcpy(&f, &u, 4);
			v = f;
			break;
		}
		case TT_INT32:
			v = (int32_t)vta_rd_le32(d + 4 * k);
			break;
		case TT_INT64:
			v = (double)(int64_t)((uint64_t)vta_rd_le32(d + 8 * k) | (uint64_t)vta_rd_le32(d + 8 * k + 4) << 32);
			break;
		case TT_INT8:
			v = (int8_t)d[k];
			break;
		default:
			v = d[k];
			break;
		}
		if (quant) {
			uint32_t c = sc.len == 1 ? 0 : (uint32_t)((k / inner) % t->shape[qd]);
			double s = vc_fb_vec_f32(fb, &sc, c);
			int64_t z = zp.len ? vc_fb_vec_i64(fb, &zp, zp.len == 1 ? 0 : c) : 0;
			v = s * (v - (double)z);
		}
		out[k] = (float)v;
	}
	if (fb->bad)
		return fb_error(im, "quantization parameters");
	for (int64_t k = 0; k < n; k++)
		if (!isfinite(out[k]))
			return op_error(im, "constant tensor %d '%s' holds a value that is not finite (index %lld)", i, t->name,
					(long long)k);
	return 0;
}

/* The IR dims of a declared shape: NHWC -> NCHW for rank 4. */
static void ir_dims(const tensor *t, int64_t *d)
{
	if (t->rank == 4) {
		d[0] = t->shape[0], d[1] = t->shape[3], d[2] = t->shape[1], d[3] = t->shape[2];
		return;
	}
	for (int i = 0; i < t->rank; i++)
		d[i] = t->shape[i];
}

static int float_like(int type)
{
	return type == TT_FLOAT32 || type == TT_INT8 || type == TT_UINT8;
}

/* The value of tensor i as an operand (an activation or a constant). */
static vc_node *value(importer *im, int i)
{
	if (i < 0 || i >= im->nt) {
		op_error(im, "input tensor index %d is out of range (%d tensors)", i, im->nt);
		return NULL;
	}
	tensor *t = &im->ts[i];
	if (t->pad_op >= 0) {
		op_error(im, "takes tensor %d '%s' from PAD (operator %d); a PAD is supported only before a convolution "
			     "or an average pooling",
			 i, t->name, t->pad_op);
		return NULL;
	}
	if (t->node)
		return t->node;
	if (!float_like(t->type) && t->type != TT_INT32) {
		op_error(im, "tensor %d '%s' has type %s, which is not supported here", i, t->name, type_name(t->type));
		return NULL;
	}
	float *v = malloc((size_t)(elems(t) ? elems(t) : 1) * sizeof *v);
	if (!v) {
		vc_error(im->m, NULL, "out of memory");
		return NULL;
	}
	if (!tensor_data(im, i, t->type == TT_FLOAT32 || t->type == TT_INT32 ? 4 : 1, 0)) {
		free(v);
		if (!im->m->diag.count)
			op_error(im, "tensor %d '%s' is used before any operator produces it", i, t->name);
		return NULL;
	}
	vc_node *c = NULL;
	if (!const_values(im, i, v)) {
		int64_t d[VC_MAX_RANK];
		ir_dims(t, d);
		c = vc_const(im->m, t->name, VC_F32, t->rank, d, NULL);
		if (c && t->rank == 4) { /* NHWC -> NCHW */
			int64_t N = t->shape[0], H = t->shape[1], W = t->shape[2], C = t->shape[3];
			float *o = c->data;
			for (int64_t n = 0; n < N; n++)
				for (int64_t h = 0; h < H; h++)
					for (int64_t w = 0; w < W; w++)
						for (int64_t ch = 0; ch < C; ch++)
							o[((n * C + ch) * H + h) * W + w] = v[((n * H + h) * W + w) * C + ch];
		} else if (c) {
			memcpy(c->data, v, (size_t)elems(t) * sizeof *v);
		}
	}
	free(v);
	t->node = c;
	return c;
}

/* A constant int32 vector (shapes, axes, paddings). */
static int const_ints(importer *im, int i, int64_t *out, int64_t max, int64_t *count)
{
	if (i < 0 || i >= im->nt)
		return op_error(im, "input tensor index %d is out of range", i);
	tensor *t = &im->ts[i];
	if ((t->type != TT_INT32 && t->type != TT_INT64) || elems(t) > max)
		return op_error(im, "tensor %d '%s' must be a small constant INT32 tensor (is %s, %lld values)", i,
				t->name, type_name(t->type), (long long)elems(t));
	float v[64];
	if (const_values(im, i, v))
		return -1;
	*count = elems(t);
	for (int64_t k = 0; k < *count; k++)
		out[k] = (int64_t)v[k];
	return 0;
}

/* Weights in OIHW from OHWI ([O,KH,KW,I]) or, depthwise, [1,KH,KW,O]. */
static vc_node *weights(importer *im, int i, int depthwise)
{
	tensor *t = i >= 0 && i < im->nt ? &im->ts[i] : NULL;
	if (t && !float_like(t->type)) {
		op_error(im, "constant tensor %d '%s' has type %s, which is not supported for weights", i, t->name,
			 type_name(t->type));
		return NULL;
	}
	if (!t || t->rank != 4 || t->node) {
		op_error(im, "the weights (tensor %d) must be a constant 4-D tensor", i);
		return NULL;
	}
	int64_t n = elems(t);
	float *v = malloc((size_t)n * sizeof *v);
	if (!v) {
		vc_error(im->m, NULL, "out of memory");
		return NULL;
	}
	vc_node *c = NULL;
	if (!const_values(im, i, v)) {
		int64_t A = t->shape[0], KH = t->shape[1], KW = t->shape[2], B = t->shape[3];
		int64_t O = depthwise ? B : A, I = depthwise ? 1 : B;
		int64_t d[4] = {O, I, KH, KW};
		c = vc_const(im->m, t->name, VC_F32, 4, d, NULL);
		if (c) {
			float *o = c->data;
			for (int64_t oc = 0; oc < O; oc++)
				for (int64_t ic = 0; ic < I; ic++)
					for (int64_t h = 0; h < KH; h++)
						for (int64_t w = 0; w < KW; w++)
							o[((oc * I + ic) * KH + h) * KW + w] =
								depthwise ? v[(h * KW + w) * B + oc] : v[((oc * KH + h) * KW + w) * B + ic];
		}
	}
	free(v);
	return c;
}

/* The fused activation after n. */
static vc_node *activation(importer *im, vc_node *n, int act)
{
	vc_attrs a;
	vc_attrs_init(&a);
	char nm[64];
	switch (act) {
	case ACT_NONE:
		return n;
	case ACT_RELU:
		snprintf(nm, sizeof nm, "%.58s.relu", n->name);
		return vc_build(im->m, VC_OP_RELU, &n, 1, &a, nm);
	case ACT_RELU6:
	case ACT_RELU_N1_TO_1:
		a.lo = act == ACT_RELU6 ? 0.0 : -1.0;
		a.hi = act == ACT_RELU6 ? 6.0 : 1.0;
		snprintf(nm, sizeof nm, "%.57s.%s", n->name, act == ACT_RELU6 ? "relu6" : "clip1");
		return vc_build(im->m, VC_OP_CLIP, &n, 1, &a, nm);
	default:
		if (act == ACT_TANH || act == ACT_SIGN_BIT)
			op_error(im, "fused activation %s is not supported", act == ACT_TANH ? "TANH" : "SIGN_BIT");
		else
			op_error(im, "fused activation %d is not a TFLite activation", act);
		return NULL;
	}
}

/* SAME padding as TensorFlow computes it: the output is ceil(in / stride);
 * the extra row or column goes to the bottom or right. */
static void same_pad(int64_t in, int64_t k, int64_t s, int64_t d, int64_t *lo, int64_t *hi)
{
	int64_t out = (in + s - 1) / s;
	int64_t total = (out - 1) * s + (k - 1) * d + 1 - in;
	if (total < 0)
		total = 0;
	*lo = total / 2;
	*hi = total - *lo;
}

/* Spatial options shared by convolutions and pools; x is the NCHW input of
 * H x W (after any PAD taken over). */
static int spatial(importer *im, vc_attrs *a, int padding, int64_t sh, int64_t sw, int64_t kh, int64_t kw, int64_t dh,
		   int64_t dw, int64_t H, int64_t W)
{
	if (sh < 1 || sw < 1 || kh < 1 || kw < 1 || dh < 1 || dw < 1 || sh > 64 || sw > 64 || dh > 64 || dw > 64)
		return op_error(im, "stride %lldx%lld, window %lldx%lld or dilation %lldx%lld is not positive or too large",
				(long long)sh, (long long)sw, (long long)kh, (long long)kw, (long long)dh, (long long)dw);
	if (padding != PAD_SAME && padding != PAD_VALID)
		return op_error(im, "padding %d is neither SAME nor VALID", padding);
	a->stride[0] = sh, a->stride[1] = sw;
	a->dilation[0] = dh, a->dilation[1] = dw;
	a->kernel[0] = kh, a->kernel[1] = kw;
	if (padding == PAD_SAME) {
		same_pad(H, kh, sh, dh, &a->pad[0], &a->pad[2]);
		same_pad(W, kw, sw, dw, &a->pad[1], &a->pad[3]);
	}
	return 0;
}

/* The name of a BuiltinOptions union member (schema.fbs), for messages. */
static const char *options_name(int type, char *buf, size_t n)
{
	static const char *const names[] = {
		"no options", "Conv2DOptions", "DepthwiseConv2DOptions", "ConcatEmbeddingsOptions",
		"LSHProjectionOptions", "Pool2DOptions", "SVDFOptions", "RNNOptions", "FullyConnectedOptions",
		"SoftmaxOptions", "ConcatenationOptions", "AddOptions", "L2NormOptions",
		"LocalResponseNormalizationOptions", "LSTMOptions", "ResizeBilinearOptions", "CallOptions",
		"ReshapeOptions", "SkipGramOptions", "SpaceToDepthOptions", "EmbeddingLookupSparseOptions", "MulOptions",
		"PadOptions", "GatherOptions", "BatchToSpaceNDOptions", "SpaceToBatchNDOptions", "TransposeOptions",
		"ReducerOptions", "SubOptions", "DivOptions", "SqueezeOptions", "SequenceRNNOptions"};
	if (type >= 0 && type < (int)(sizeof names / sizeof names[0]))
		return names[type];
	snprintf(buf, n, "options of union member %d", type);
	return buf;
}

/* The options table of the operator, checked to be of the expected union member. */
static vc_fb_table options(importer *im, const vc_fb_table *op, int want, int *bad)
{
	vc_fb *fb = &im->fb;
	int type = vc_fb_u8(fb, op, OP_OPTIONS_TYPE, 0);
	vc_fb_table t = vc_fb_table_field(fb, op, OP_OPTIONS);
	*bad = 0;
	if (fb->bad) {
		fb_error(im, "its options");
		*bad = 1;
	} else if (type != want && (type != 0 || t.pos)) {
		char b1[48], b2[48];
		op_error(im, "carries %s where %s was expected", options_name(type, b1, sizeof b1),
			 options_name(want, b2, sizeof b2));
		*bad = 1;
	}
	return t;
}

/* The NCHW input of a convolution or pooling, taking over a PAD before it;
 * pad[] receives the PAD's amounts. */
static vc_node *spatial_input(importer *im, int i, int64_t pad[4], int *from_pad)
{
	memset(pad, 0, 4 * sizeof *pad);
	*from_pad = 0;
	if (i >= 0 && i < im->nt && im->ts[i].pad_op >= 0) {
		tensor *t = &im->ts[i];
		memcpy(pad, t->pad, 4 * sizeof *pad);
		*from_pad = 1;
		return im->ts[t->pad_src].node;
	}
	vc_node *x = value(im, i);
	if (x && x->type.rank != 4) {
		op_error(im, "needs a 4-D input, tensor %d '%s' has rank %d", i, im->ts[i].name, x->type.rank);
		return NULL;
	}
	return x;
}

static int out_index(importer *im, const vc_fb_vec *outs)
{
	int o = outs->len ? vc_fb_vec_i32(&im->fb, outs, 0) : -1;
	if (outs->len != 1 || o < 0 || o >= im->nt) {
		op_error(im, "needs exactly one output tensor in range");
		return -1;
	}
	if (im->ts[o].node || im->ts[o].producer >= 0 || im->ts[o].pad_op >= 0) {
		op_error(im, "output tensor %d '%s' is produced twice", o, im->ts[o].name);
		return -1;
	}
	return o;
}

static vc_node *conv(importer *im, const vc_fb_table *op, const int *in, int n_in, const char *nm, int depthwise)
{
	vc_fb *fb = &im->fb;
	int bad;
	vc_fb_table o = options(im, op, depthwise ? O_DEPTHWISE : O_CONV, &bad);
	if (bad)
		return NULL;
	if (n_in < 2 || n_in > 3) {
		op_error(im, "has %d inputs (2 or 3 expected)", n_in);
		return NULL;
	}
	int padding = vc_fb_u8(fb, &o, 0, 0);
	int64_t sw = vc_fb_i32(fb, &o, 1, 0), sh = vc_fb_i32(fb, &o, 2, 0);
	int64_t mult = depthwise ? vc_fb_i32(fb, &o, 3, 0) : 1;
	int act = vc_fb_u8(fb, &o, depthwise ? 4 : 3, 0);
	int64_t dw = vc_fb_i32(fb, &o, depthwise ? 5 : 4, 1), dh = vc_fb_i32(fb, &o, depthwise ? 6 : 5, 1);
	if (fb->bad) {
		fb_error(im, "its options");
		return NULL;
	}
	int64_t pad[4];
	int from_pad;
	vc_node *x = spatial_input(im, in[0], pad, &from_pad);
	vc_node *w = x ? weights(im, in[1], depthwise) : NULL;
	if (!w)
		return NULL;
	int64_t C = x->type.dim[1], O = w->type.dim[0], I = w->type.dim[1];
	vc_attrs a;
	vc_attrs_init(&a);
	if (depthwise) {
		if (mult < 1 || O != C * mult) {
			op_error(im, "depthwise weights have %lld channels for %lld inputs with depth multiplier %lld",
				 (long long)O, (long long)C, (long long)mult);
			return NULL;
		}
		a.group = C;
	} else {
		if (I < 1 || C % I) {
			op_error(im, "weights take %lld input channels, the input has %lld", (long long)I, (long long)C);
			return NULL;
		}
		a.group = C / I;
	}
	int64_t H = x->type.dim[2] + pad[0] + pad[2], W = x->type.dim[3] + pad[1] + pad[3];
	if (spatial(im, &a, padding, sh, sw, w->type.dim[2], w->type.dim[3], dh, dw, H, W))
		return NULL;
	for (int k = 0; k < 4; k++)
		a.pad[k] += pad[k];
	vc_node *args[3] = {x, w, NULL};
	int na = 2;
	if (n_in == 3 && in[2] >= 0) {
		vc_node *b = value(im, in[2]);
		if (!b)
			return NULL;
		if (b->op != VC_OP_CONST || vc_type_elems(&b->type) != O || b->type.rank != 1) {
			op_error(im, "the bias (tensor %d) must be a constant of %lld values", in[2], (long long)O);
			return NULL;
		}
		args[na++] = b;
	}
	vc_node *c = vc_build(im->m, VC_OP_CONV, args, na, &a, nm);
	return c ? activation(im, c, act) : NULL;
}

static vc_node *pool(importer *im, const vc_fb_table *op, const int *in, int n_in, const char *nm, int is_max)
{
	vc_fb *fb = &im->fb;
	int bad;
	vc_fb_table o = options(im, op, O_POOL, &bad);
	if (bad)
		return NULL;
	if (n_in != 1) {
		op_error(im, "has %d inputs (1 expected)", n_in);
		return NULL;
	}
	int padding = vc_fb_u8(fb, &o, 0, 0);
	int64_t sw = vc_fb_i32(fb, &o, 1, 0), sh = vc_fb_i32(fb, &o, 2, 0);
	int64_t fw = vc_fb_i32(fb, &o, 3, 0), fh = vc_fb_i32(fb, &o, 4, 0);
	int act = vc_fb_u8(fb, &o, 5, 0);
	if (fb->bad) {
		fb_error(im, "its options");
		return NULL;
	}
	int64_t pad[4];
	int from_pad;
	vc_node *x = spatial_input(im, in[0], pad, &from_pad);
	if (!x)
		return NULL;
	if (from_pad && (is_max || padding != PAD_VALID)) {
		op_error(im, "a PAD before %s pooling is not supported (only before VALID average pooling)",
			 is_max ? "max" : "SAME average");
		return NULL;
	}
	vc_attrs a;
	vc_attrs_init(&a);
	int64_t H = x->type.dim[2] + pad[0] + pad[2], W = x->type.dim[3] + pad[1] + pad[3];
	if (spatial(im, &a, padding, sh, sw, fh, fw, 1, 1, H, W))
		return NULL;
	for (int k = 0; k < 4; k++)
		a.pad[k] += pad[k];
	/* TFLite averages over the window inside the input (SAME padding is not
	 * counted); zeros of an explicit PAD are real elements and are counted */
	a.count_include_pad = from_pad;
	vc_node *p = vc_build(im->m, is_max ? VC_OP_MAXPOOL : VC_OP_AVGPOOL, &x, 1, &a, nm);
	return p ? activation(im, p, act) : NULL;
}

/* A 4-D value flattened to [N, rest] (for FULLY_CONNECTED and RESHAPE): the
 * NCHW order equals NHWC only when C == 1 or H*W == 1. */
static int nhwc_order_agrees(const vc_node *x)
{
	return x->type.rank != 4 || x->type.dim[1] == 1 || x->type.dim[2] * x->type.dim[3] == 1;
}

static vc_node *fully_connected(importer *im, const vc_fb_table *op, const int *in, int n_in, const char *nm,
				const tensor *out)
{
	vc_fb *fb = &im->fb;
	int bad;
	vc_fb_table o = options(im, op, O_FC, &bad);
	if (bad)
		return NULL;
	int act = vc_fb_u8(fb, &o, 0, 0), fmt = vc_fb_u8(fb, &o, 1, 0), keep = vc_fb_u8(fb, &o, 2, 0);
	if (fb->bad) {
		fb_error(im, "its options");
		return NULL;
	}
	if (fmt != 0) {
		op_error(im, "weights format %s is not supported (only DEFAULT)",
			 fmt == 1 ? "SHUFFLED4x16INT8" : "unknown to the schema");
		return NULL;
	}
	if (n_in < 2 || n_in > 3) {
		op_error(im, "has %d inputs (2 or 3 expected)", n_in);
		return NULL;
	}
	vc_node *x = value(im, in[0]), *w = x ? value(im, in[1]) : NULL;
	if (!w)
		return NULL;
	if (w->op != VC_OP_CONST || w->type.rank != 2) {
		op_error(im, "the weights (tensor %d) must be a constant 2-D tensor", in[1]);
		return NULL;
	}
	int64_t O = w->type.dim[0], I = w->type.dim[1], e = vc_type_elems(&x->type);
	if (e % I) {
		op_error(im, "an input of %lld values does not split into rows of %lld", (long long)e, (long long)I);
		return NULL;
	}
	if (keep && out->rank != 2) {
		op_error(im, "keep_num_dims with an output of rank %d is not supported", out->rank);
		return NULL;
	}
	if (x->type.rank != 2 || x->type.dim[1] != I) {
		if (!nhwc_order_agrees(x)) {
			op_error(im, "flattening a 4-D input with both channels and spatial extent is not supported");
			return NULL;
		}
		vc_attrs ra;
		vc_attrs_init(&ra);
		ra.nshape = 2;
		ra.shape[0] = e / I, ra.shape[1] = I;
		char rn[64];
		snprintf(rn, sizeof rn, "%.55s.flatten", nm);
		if (!(x = vc_build(im->m, VC_OP_RESHAPE, &x, 1, &ra, rn)))
			return NULL;
	}
	vc_node *args[3] = {x, w, NULL};
	int na = 2;
	if (n_in == 3 && in[2] >= 0) {
		vc_node *b = value(im, in[2]);
		if (!b)
			return NULL;
		if (b->op != VC_OP_CONST || vc_type_elems(&b->type) != O) {
			op_error(im, "the bias (tensor %d) must be a constant of %lld values", in[2], (long long)O);
			return NULL;
		}
		if (b->type.rank != 1) {
			int64_t d1[1] = {O};
			if (!(b = vc_const(im->m, b->name, VC_F32, 1, d1, b->data)))
				return NULL;
		}
		args[na++] = b;
	}
	vc_node *d = vc_build(im->m, VC_OP_DENSE, args, na, NULL, nm);
	return d ? activation(im, d, act) : NULL;
}

/* ADD and MUL (mul set): same shapes, or a per-channel constant
 * broadcast onto a 4-D value; then the fused activation. */
static vc_node *add(importer *im, const vc_fb_table *op, const int *in, int n_in, const char *nm, int mul)
{
	vc_fb *fb = &im->fb;
	int bad;
	vc_fb_table o = options(im, op, mul ? O_MUL : O_ADD, &bad);
	if (bad)
		return NULL;
	int act = vc_fb_u8(fb, &o, 0, 0);
	if (fb->bad) {
		fb_error(im, "its options");
		return NULL;
	}
	if (n_in != 2) {
		op_error(im, "has %d inputs (2 expected)", n_in);
		return NULL;
	}
	vc_node *args[2] = {value(im, in[0]), NULL};
	if (args[0])
		args[1] = value(im, in[1]);
	if (!args[1])
		return NULL;
	const tensor *ta = &im->ts[in[0]], *tb = &im->ts[in[1]];
	int same = ta->rank == tb->rank;
	for (int k = 0; same && k < ta->rank; k++)
		same = ta->shape[k] == tb->shape[k];
	if (!same) {
		/* broadcasting is taken for a per-channel constant ([C] or [1,1,1,C]) added to a 4-D value */
		int k = args[0]->op == VC_OP_CONST ? 0 : 1;
		const vc_node *c = args[k], *x = args[1 - k];
		if (c->op != VC_OP_CONST || x->type.rank != 4 || vc_type_elems(&c->type) != x->type.dim[1] ||
		    (c->type.rank != 1 && c->type.rank != 4)) {
			op_error(im, "%s tensors of different shapes; only a per-channel constant broadcasts",
				 mul ? "multiplies" : "adds");
			return NULL;
		}
		int64_t d[3] = {x->type.dim[1], 1, 1};
		if (!(args[k] = vc_const(im->m, c->name, VC_F32, 3, d, c->data)))
			return NULL;
	}
	vc_node *s = vc_build(im->m, mul ? VC_OP_MUL : VC_OP_ADD, args, 2, NULL, nm);
	return s ? activation(im, s, act) : NULL;
}

/* The NCHW axis of axis ax (negative: from the end) of a TFLite tensor of
 * the given rank (4-D tensors are NHWC there, NCHW here); -1 if outside. */
static int64_t nchw_axis(int64_t ax, int rank)
{
	if (ax < 0)
		ax += rank;
	if (ax < 0 || ax >= rank)
		return -1;
	static const int64_t from_nhwc[4] = {0, 2, 3, 1};
	return rank == 4 ? from_nhwc[ax] : ax;
}

/* CONCATENATION along an axis of its operands (2 to 16 of them). */
static vc_node *concatenation(importer *im, const vc_fb_table *op, const int *in, int n_in, const char *nm)
{
	vc_fb *fb = &im->fb;
	int bad;
	vc_fb_table o = options(im, op, O_CONCATENATION, &bad);
	if (bad)
		return NULL;
	int64_t ax = vc_fb_i32(fb, &o, 0, 0);
	int act = vc_fb_u8(fb, &o, 1, 0);
	if (fb->bad) {
		fb_error(im, "its options");
		return NULL;
	}
	if (n_in < 1 || n_in > 8) {
		op_error(im, "has %d inputs (1 to 8 taken)", n_in);
		return NULL;
	}
	vc_node *args[8];
	for (int k = 0; k < n_in; k++)
		if (!(args[k] = value(im, in[k])))
			return NULL;
	vc_attrs a;
	vc_attrs_init(&a);
	if ((a.axis = nchw_axis(ax, im->ts[in[0]].rank)) < 0) {
		op_error(im, "axis %lld is outside its %d-D operands", (long long)ax, im->ts[in[0]].rank);
		return NULL;
	}
	vc_node *c = vc_build(im->m, VC_OP_CONCAT, args, n_in, &a, nm);
	return c ? activation(im, c, act) : NULL;
}

/* LOGISTIC and the standalone RELU, RELU_N1_TO_1 and RELU6: one operand. */
static vc_node *unary(importer *im, int code, const int *in, int n_in, const char *nm)
{
	if (n_in != 1) {
		op_error(im, "has %d inputs (1 expected)", n_in);
		return NULL;
	}
	vc_node *x = value(im, in[0]);
	if (!x)
		return NULL;
	vc_attrs a;
	vc_attrs_init(&a);
	switch (code) {
	case B_LOGISTIC:
		return vc_build(im->m, VC_OP_SIGMOID, &x, 1, &a, nm);
	case B_RELU:
		return vc_build(im->m, VC_OP_RELU, &x, 1, &a, nm);
	default: /* RELU6, RELU_N1_TO_1 */
		a.lo = code == B_RELU6 ? 0.0 : -1.0;
		a.hi = code == B_RELU6 ? 6.0 : 1.0;
		return vc_build(im->m, VC_OP_CLIP, &x, 1, &a, nm);
	}
}

/* RESIZE_NEAREST_NEIGHBOR to a constant size, whole factors of the rows and
 * columns of NHWC data: the upsample op. Without align_corners the source
 * row of output row y is y / k rounded down whether or not half_pixel_centers
 * is set (the fraction (r + 0.5) / k stays below one). */
static vc_node *resize_nearest(importer *im, const vc_fb_table *op, const int *in, int n_in, const char *nm)
{
	vc_fb *fb = &im->fb;
	int bad;
	vc_fb_table o = options(im, op, O_RESIZE_NEAREST, &bad);
	if (bad)
		return NULL;
	int align = vc_fb_u8(fb, &o, 0, 0);
	if (fb->bad) {
		fb_error(im, "its options");
		return NULL;
	}
	int64_t size[2], ns;
	vc_node *x = n_in == 2 ? value(im, in[0]) : NULL;
	if (n_in != 2) {
		op_error(im, "has %d inputs (2 expected)", n_in);
		return NULL;
	}
	if (!x || const_ints(im, in[1], size, 2, &ns))
		return NULL;
	int64_t h = x->type.rank == 4 ? x->type.dim[2] : 0, w = x->type.rank == 4 ? x->type.dim[3] : 0;
	int64_t kh = ns == 2 && h > 0 && size[0] % h == 0 ? size[0] / h : 0;
	int64_t kw = ns == 2 && w > 0 && size[1] % w == 0 ? size[1] / w : 0;
	if (align || kh < 1 || kw < 1 || kh > 64 || kw > 64) {
		op_error(im, "RESIZE_NEAREST_NEIGHBOR is supported by whole factors of 1 to 64 of a 4-D tensor's rows "
			 "and columns without align_corners");
		return NULL;
	}
	if (kh == 1 && kw == 1)
		return x;
	vc_attrs a;
	vc_attrs_init(&a);
	a.stride[0] = kh, a.stride[1] = kw;
	return vc_build(im->m, VC_OP_UPSAMPLE, &x, 1, &a, nm);
}

static vc_node *mean(importer *im, const vc_fb_table *op, const int *in, int n_in, const char *nm, const tensor *out)
{
	vc_fb *fb = &im->fb;
	int bad;
	vc_fb_table o = options(im, op, O_REDUCER, &bad);
	if (bad)
		return NULL;
	int keep = vc_fb_u8(fb, &o, 0, 0);
	if (n_in != 2) {
		op_error(im, "has %d inputs (2 expected)", n_in);
		return NULL;
	}
	int64_t ax[8], na;
	vc_node *x = value(im, in[0]);
	if (!x || const_ints(im, in[1], ax, 8, &na))
		return NULL;
	int hw = x->type.rank == 4 && na == 2;
	for (int k = 0; hw && k < 2; k++)
		hw = ax[k] == 1 || ax[k] == 2 || ax[k] == -3 || ax[k] == -2;
	if (!hw || (ax[0] % 4 + 4) % 4 == (ax[1] % 4 + 4) % 4) {
		op_error(im, "MEAN is supported over the two spatial axes (1, 2) of a 4-D tensor only");
		return NULL;
	}
	char gn[64];
	snprintf(gn, sizeof gn, "%.58s%s", nm, keep ? "" : ".gap");
	vc_node *g = vc_build(im->m, VC_OP_GAP, &x, 1, NULL, gn);
	if (!g || keep)
		return g;
	if (out->rank != 2) {
		op_error(im, "MEAN without keep_dims must give a 2-D output");
		return NULL;
	}
	vc_attrs ra;
	vc_attrs_init(&ra);
	ra.nshape = 2;
	ra.shape[0] = x->type.dim[0], ra.shape[1] = x->type.dim[1];
	return vc_build(im->m, VC_OP_RESHAPE, &g, 1, &ra, nm);
}

static vc_node *reshape(importer *im, const int *in, int n_in, const char *nm, const tensor *out)
{
	if (n_in < 1 || n_in > 2) {
		op_error(im, "has %d inputs (1 or 2 expected)", n_in);
		return NULL;
	}
	vc_node *x = value(im, in[0]);
	if (!x)
		return NULL;
	vc_attrs a;
	vc_attrs_init(&a);
	a.nshape = out->rank;
	ir_dims(out, a.shape);
	int64_t e = 1;
	for (int k = 0; k < out->rank; k++)
		e *= a.shape[k];
	if (!out->rank || e != vc_type_elems(&x->type)) {
		op_error(im, "reshapes %lld values into an output declared with %lld", (long long)vc_type_elems(&x->type),
			 (long long)e);
		return NULL;
	}
	vc_type probe = x->type;
	probe.rank = a.nshape;
	memcpy(probe.dim, a.shape, sizeof probe.dim);
	vc_node fake = {.type = probe};
	if (!nhwc_order_agrees(x) || !nhwc_order_agrees(&fake)) {
		op_error(im, "a reshape between NHWC layouts with both channels and spatial extent is not supported");
		return NULL;
	}
	return vc_build(im->m, VC_OP_RESHAPE, &x, 1, &a, nm);
}

static vc_node *softmax(importer *im, const vc_fb_table *op, const int *in, int n_in, const char *nm)
{
	vc_fb *fb = &im->fb;
	int bad;
	vc_fb_table o = options(im, op, O_SOFTMAX, &bad);
	if (bad)
		return NULL;
	float beta = vc_fb_f32(fb, &o, 0, 0.0f);
	if (fb->bad) {
		fb_error(im, "its options");
		return NULL;
	}
	if (beta != 1.0f) {
		op_error(im, "beta %g is not supported (only 1)", beta);
		return NULL;
	}
	if (n_in != 1) {
		op_error(im, "has %d inputs (1 expected)", n_in);
		return NULL;
	}
	vc_node *x = value(im, in[0]);
	if (!x)
		return NULL;
	vc_attrs a;
	vc_attrs_init(&a);
	a.axis = x->type.rank == 4 ? 1 : x->type.rank - 1; /* TFLite: the last (channel) axis */
	return vc_build(im->m, VC_OP_SOFTMAX, &x, 1, &a, nm);
}

/* PAD: remembered on its output, applied by the convolution or pooling that takes it. */
static int pad_op(importer *im, const int *in, int n_in, int o)
{
	int64_t p[16], np;
	if (n_in != 2)
		return op_error(im, "has %d inputs (2 expected)", n_in);
	vc_node *x = value(im, in[0]);
	if (!x || const_ints(im, in[1], p, 16, &np))
		return -1;
	if (x->type.rank != 4 || np != 8)
		return op_error(im, "only PAD of a 4-D tensor is supported");
	if (p[0] || p[1] || p[6] || p[7])
		return op_error(im, "pads the batch or channel axis, which is not supported");
	for (int k = 2; k < 6; k++)
		if (p[k] < 0 || p[k] > 1024)
			return op_error(im, "pad amount %lld is negative or too large", (long long)p[k]);
	tensor *t = &im->ts[o];
	t->pad_op = im->op;
	t->pad_src = in[0];
	t->pad[0] = p[2], t->pad[2] = p[3], t->pad[1] = p[4], t->pad[3] = p[5];
	if (im->ts[in[0]].pad_op >= 0)
		return op_error(im, "PAD of a PAD is not supported");
	return 0;
}

/* The declared output shape must be what the operator computes. */
static int check_shape(importer *im, int o, const vc_node *n)
{
	const tensor *t = &im->ts[o];
	int64_t d[VC_MAX_RANK];
	ir_dims(t, d);
	int ok = n->type.rank == t->rank;
	for (int k = 0; ok && k < t->rank; k++)
		ok = n->type.dim[k] == d[k];
	if (ok)
		return 0;
	char have[128];
	vc_type_str(&n->type, have, sizeof have);
	char want[128] = "";
	int k = 0;
	for (int i = 0; i < t->rank; i++)
		k += snprintf(want + k, sizeof want - (size_t)k, "%s%lld", i ? "," : "", (long long)t->shape[i]);
	return op_error(im, "output tensor %d '%s' is declared [%s]%s, but the operator computes %s%s", o, t->name, want,
			t->rank == 4 ? " (NHWC)" : "", have, n->type.rank == 4 ? " (NCHW)" : "");
}

static int import_op(importer *im, const vc_fb_table *op)
{
	vc_fb *fb = &im->fb;
	uint32_t oc = vc_fb_u32(fb, op, OP_OPCODE, 0);
	if (fb->bad)
		return fb_error(im, "the operator");
	if (oc >= im->opcodes.len)
		return vc_error(im->m, NULL, "operator %d: opcode index %u is out of range (%u opcodes)", im->op, oc,
				im->opcodes.len);
	vc_fb_table ct = vc_fb_vec_table(fb, &im->opcodes, oc);
	int code = vc_fb_i8(fb, &ct, OPCODE_DEPRECATED_BUILTIN, 0);
	int code2 = vc_fb_i32(fb, &ct, OPCODE_BUILTIN, 0);
	if (code2 > code)
		code = code2;
	char buf[64], cname[64];
	im->opn = op_name(code, buf, sizeof buf);
	if (code == 32) {
		vc_fb_string(fb, &ct, OPCODE_CUSTOM, cname, sizeof cname);
		return op_error(im, "custom operator '%s' is not supported", cname);
	}
	vc_fb_vec iv = vc_fb_vector(fb, op, OP_INPUTS, 4), ov = vc_fb_vector(fb, op, OP_OUTPUTS, 4);
	if (fb->bad)
		return fb_error(im, "its tensor lists");
	if (iv.len > 8)
		return op_error(im, "has %u inputs", iv.len);
	int in[8], n_in = (int)iv.len;
	for (int k = 0; k < n_in; k++)
		in[k] = vc_fb_vec_i32(fb, &iv, (uint32_t)k);
	for (int k = 0; k < n_in; k++)
		if (in[k] >= im->nt || (in[k] < 0 && !(k == 2 && in[k] == -1)))
			return op_error(im, "input %d refers to tensor %d of %d", k, in[k], im->nt);
	if (vc_fb_has(fb, op, OP_CUSTOM_OPTIONS))
		return op_error(im, "custom options are not supported");
	int o = out_index(im, &ov);
	if (o < 0)
		return -1;
	tensor *out = &im->ts[o];
	if (!float_like(out->type))
		return op_error(im, "output tensor %d '%s' has type %s, which is not supported", o, out->name,
				type_name(out->type));
	char nm[64];
	snprintf(nm, sizeof nm, "%s", out->name);
	vc_node *n = NULL;
	switch (code) {
	case B_CONV_2D:
	case B_DEPTHWISE_CONV_2D:
		n = conv(im, op, in, n_in, nm, code == B_DEPTHWISE_CONV_2D);
		break;
	case B_AVERAGE_POOL_2D:
	case B_MAX_POOL_2D:
		n = pool(im, op, in, n_in, nm, code == B_MAX_POOL_2D);
		break;
	case B_FULLY_CONNECTED:
		n = fully_connected(im, op, in, n_in, nm, out);
		break;
	case B_ADD:
	case B_MUL:
		n = add(im, op, in, n_in, nm, code == B_MUL);
		break;
	case B_CONCATENATION:
		n = concatenation(im, op, in, n_in, nm);
		break;
	case B_LOGISTIC:
	case B_RELU:
	case B_RELU6:
	case B_RELU_N1_TO_1:
		n = unary(im, code, in, n_in, nm);
		break;
	case B_RESIZE_NEAREST_NEIGHBOR:
		n = resize_nearest(im, op, in, n_in, nm);
		break;
	case B_MEAN:
		n = mean(im, op, in, n_in, nm, out);
		break;
	case B_RESHAPE:
		n = reshape(im, in, n_in, nm, out);
		break;
	case B_SOFTMAX:
		n = softmax(im, op, in, n_in, nm);
		break;
	case B_QUANTIZE:
	case B_DEQUANTIZE:
		/* real values pass unchanged: the compiler quantizes by itself */
		if (n_in != 1)
			return op_error(im, "has %d inputs (1 expected)", n_in);
		n = value(im, in[0]);
		break;
	case B_PAD:
		if (pad_op(im, in, n_in, o))
			return -1;
		out->producer = im->op;
		return 0;
	default:
		return op_error(im, "operator %s is not supported", im->opn);
	}
	if (!n) {
		if (!im->m->diag.count)
			op_error(im, "could not be imported");
		return -1;
	}
	if (check_shape(im, o, n))
		return -1;
	out->node = n;
	out->producer = im->op;
	return 0;
}

static int supported_code(int code)
{
	switch (code) {
	case B_ADD: case B_AVERAGE_POOL_2D: case B_CONV_2D: case B_DEPTHWISE_CONV_2D: case B_DEQUANTIZE:
	case B_FULLY_CONNECTED: case B_MAX_POOL_2D: case B_RESHAPE: case B_SOFTMAX: case B_PAD: case B_MEAN:
	case B_QUANTIZE: case B_MUL: case B_CONCATENATION: case B_LOGISTIC: case B_RELU: case B_RELU6:
	case B_RELU_N1_TO_1: case B_RESIZE_NEAREST_NEIGHBOR:
		return 1;
	default:
		return 0;
	}
}

/* Every operator import_op does not take, and sparse tensors, in one
 * diagnostic before any tensor or operator is checked. It reads through a
 * copy of the reader: a corrupt table ends the census without a word, and
 * the checks that follow report it where they meet it. */
static int unsupported_ops(importer *im, const vc_fb_table *sg)
{
	vc_fb fb = im->fb;
	vc_fb_vec ops = vc_fb_vector(&fb, sg, SG_OPERATORS, 4), tv = vc_fb_vector(&fb, sg, SG_TENSORS, 4);
	vc_unsup u;
	vc_unsup_init(&u, "operator");
	char sparse[160] = "";
	int nsparse = 0;
	for (uint32_t k = 0; k < ops.len && !fb.bad; k++) {
		vc_fb_table op = vc_fb_vec_table(&fb, &ops, k);
		uint32_t oc = vc_fb_u32(&fb, &op, OP_OPCODE, 0);
		if (fb.bad || oc >= im->opcodes.len)
			break;
		vc_fb_table ct = vc_fb_vec_table(&fb, &im->opcodes, oc);
		int code = vc_fb_i8(&fb, &ct, OPCODE_DEPRECATED_BUILTIN, 0), code2 = vc_fb_i32(&fb, &ct, OPCODE_BUILTIN, 0);
		if (code2 > code)
			code = code2;
		if (supported_code(code))
			continue;
		/* an operator has no name of its own: its first output's */
		char full[256] = "", nm[64], type[72], buf[64];
		vc_fb_vec ov = vc_fb_vector(&fb, &op, OP_OUTPUTS, 4);
		int32_t o = ov.len ? vc_fb_vec_i32(&fb, &ov, 0) : -1;
		if (o >= 0 && (uint32_t)o < tv.len) {
			vc_fb_table t = vc_fb_vec_table(&fb, &tv, (uint32_t)o);
			vc_fb_string(&fb, &t, T_NAME, full, sizeof full);
		}
		if (full[0])
			node_name(full, o, nm, sizeof nm);
		else
			snprintf(nm, sizeof nm, "operator %u", k);
		if (code == 32) {
			char cname[48];
			vc_fb_string(&fb, &ct, OPCODE_CUSTOM, cname, sizeof cname);
			snprintf(type, sizeof type, "CUSTOM op '%s'", cname);
			vc_unsup_note(&u, "CUSTOM ops are not supported");
		} else {
			snprintf(type, sizeof type, "%s", op_name(code, buf, sizeof buf));
			if (strstr(type, "LSTM") || strstr(type, "RNN"))
				vc_unsup_note(&u, "recurrent ops are not supported");
		}
		vc_unsup_add(&u, type, nm);
	}
	for (uint32_t i = 0; i < tv.len && !fb.bad; i++) {
		vc_fb_table t = vc_fb_vec_table(&fb, &tv, i);
		if (!vc_fb_has(&fb, &t, T_SPARSITY))
			continue;
		char full[256] = "", nm[40];
		vc_fb_string(&fb, &t, T_NAME, full, sizeof full);
		node_name(full, (int)i, nm, sizeof nm);
		size_t k = strlen(sparse);
		if (nsparse++ < VC_UNSUP_NAMES)
			snprintf(sparse + k, sizeof sparse - k, "%s'%s'", k ? ", " : "", nm);
	}
	if (fb.bad)
		return 0;
	if (nsparse) {
		char note[240];
		snprintf(note, sizeof note, "sparse tensors are not supported (%d tensor%s: %s%s)", nsparse,
			 nsparse == 1 ? "" : "s", sparse, nsparse > VC_UNSUP_NAMES ? ", ..." : "");
		vc_unsup_note(&u, note);
	}
	return vc_unsup_report(im->m, &u, "op");
}

/* A graph input: [N,C,H,W] pixels for 4-D, then the input quantization's
 * affine map from pixels to real values. */
static int graph_input(importer *im, int i)
{
	tensor *t = &im->ts[i];
	if (t->node)
		return 0;
	if (!float_like(t->type))
		return vc_error(im->m, NULL, "graph input %d '%s' has type %s (FLOAT32, INT8 or UINT8 expected)", i,
				t->name, type_name(t->type));
	int64_t d[VC_MAX_RANK];
	ir_dims(t, d);
	vc_node *x = vc_input(im->m, t->name, VC_F32, t->rank, d);
	if (!x)
		return -1;
	if (t->type != TT_FLOAT32) {
		vc_fb *fb = &im->fb;
		vc_fb_table q = vc_fb_table_field(fb, &t->t, T_QUANT);
		vc_fb_vec sc = vc_fb_vector(fb, &q, Q_SCALE, 4), zp = vc_fb_vector(fb, &q, Q_ZERO_POINT, 8);
		float s = sc.len == 1 ? vc_fb_vec_f32(fb, &sc, 0) : 0.0f;
		int64_t z = zp.len == 1 ? vc_fb_vec_i64(fb, &zp, 0) : 0;
		int custom = vc_fb_u8(fb, &q, Q_DETAILS_TYPE, 0);
		if (fb->bad)
			return fb_error(im, "the input's quantization");
		if (custom)
			return vc_error(im->m, NULL, "graph input %d '%s' has quantization details (%s), which are not "
					"supported", i, t->name, details_name(custom));
		if (!(s > 0) || !isfinite(s) || zp.len > 1)
			return vc_error(im->m, NULL, "graph input %d '%s' is %s without one positive scale", i, t->name,
					type_name(t->type));
		/* real = s * (q - z), q = p - 128 (int8) or p (uint8) */
		float off = (float)(-(double)z - (t->type == TT_INT8 ? 128.0 : 0.0)), sv = s;
		int64_t one[1] = {1};
		vc_node *co = vc_const(im->m, "input.offset", VC_F32, 1, one, &off);
		vc_node *cs = vc_const(im->m, "input.scale", VC_F32, 1, one, &sv);
		vc_node *aa[2] = {x, co};
		vc_node *xa = co && cs ? vc_build(im->m, VC_OP_ADD, aa, 2, NULL, "input.shift") : NULL;
		vc_node *ma[2] = {xa, cs};
		if (!xa || !(x = vc_build(im->m, VC_OP_MUL, ma, 2, NULL, "input.real")))
			return -1;
	}
	t->node = x;
	return 0;
}

int vc_import_tflite_bytes(vc_module *m, const uint8_t *bytes, size_t len)
{
	importer im = {.m = m, .op = -1, .opn = ""};
	vc_fb *fb = &im.fb;
	int rc = -1;
	if (vc_fb_open(fb, bytes, len))
		return vc_error(m, NULL, "not a TFLite model: %s", fb->err);
	char ident[5];
	vc_fb_ident(fb, ident);
	if (strcmp(ident, "TFL3"))
		return vc_error(m, NULL, "not a TFLite model: the file identifier is not TFL3");
	vc_fb_table model = vc_fb_root(fb);
	uint32_t version = vc_fb_u32(fb, &model, MODEL_VERSION, 0);
	im.opcodes = vc_fb_vector(fb, &model, MODEL_OPCODES, 4);
	im.buffers = vc_fb_vector(fb, &model, MODEL_BUFFERS, 4);
	vc_fb_vec sgs = vc_fb_vector(fb, &model, MODEL_SUBGRAPHS, 4);
	if (fb->bad)
		return fb_error(&im, "the model table");
	if (version != 3)
		return vc_error(m, NULL, "TFLite schema version %u; version 3 is supported", version);
	if (sgs.len != 1)
		return vc_error(m, NULL, "the model has %u subgraphs (exactly 1 supported)", sgs.len);
	vc_fb_table sg = vc_fb_vec_table(fb, &sgs, 0);
	vc_fb_vec ins = vc_fb_vector(fb, &sg, SG_INPUTS, 4), outs = vc_fb_vector(fb, &sg, SG_OUTPUTS, 4);
	vc_fb_vec ops = vc_fb_vector(fb, &sg, SG_OPERATORS, 4);
	if (fb->bad)
		return fb_error(&im, "the subgraph");
	if (unsupported_ops(&im, &sg))
		return -1;
	if (read_tensors(&im, &sg))
		goto done;
	if (ins.len < 1 || ins.len > 8 || outs.len < 1 || outs.len > 8) {
		vc_error(m, NULL, "the subgraph has %u inputs and %u outputs (1..8 each supported)", ins.len, outs.len);
		goto done;
	}
	for (uint32_t k = 0; k < ins.len; k++) {
		int i = vc_fb_vec_i32(fb, &ins, k);
		if (i < 0 || i >= im.nt) {
			vc_error(m, NULL, "graph input %u refers to tensor %d of %d", k, i, im.nt);
			goto done;
		}
		if (graph_input(&im, i))
			goto done;
	}
	for (uint32_t k = 0; k < ops.len; k++) {
		im.op = (int)k;
		im.opn = "?";
		vc_fb_table op = vc_fb_vec_table(fb, &ops, k);
		if (fb->bad) {
			fb_error(&im, "the operator table");
			goto done;
		}
		if (import_op(&im, &op))
			goto done;
	}
	im.op = -1;
	for (uint32_t k = 0; k < outs.len; k++) {
		int i = vc_fb_vec_i32(fb, &outs, k);
		if (i < 0 || i >= im.nt || !im.ts[i].node) {
			vc_error(m, NULL, "graph output %u (tensor %d) is not produced by any operator", k, i);
			goto done;
		}
		m->g->outputs[m->g->n_outputs++] = im.ts[i].node;
	}
	if (fb->bad) {
		fb_error(&im, "the graph lists");
		goto done;
	}
	vc_remove_dead(m);
	m->props |= VC_PROP_IMPORTED;
	rc = 0;
done:
	free(im.ts);
	return rc;
}

int vc_import_tflite_file(vc_module *m, const char *path)
{
	uint8_t *buf;
	size_t len;
	vta_error_t e;
	if (vta_read_file(path, &buf, &len, &e))
		return vc_error(m, NULL, "%s", e.msg);
	int rc = vc_import_tflite_bytes(m, buf, len);
	free(buf);
	if (rc && !strstr(m->diag.msg, path)) {
		char pre[512];
		snprintf(pre, sizeof pre, "%.500s: ", path);
		vc_error_prefix(m, pre);
	}
	return rc;
}
