/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TFLite import through the bounds-checked FlatBuffers reader (flatbuf.h),
 * for the subset of TFLite's schema.fbs the models need; op_table lists
 * every operator taken and its importer (the census of unsupported types
 * reads the same table). Elementwise ops the IR lacks are the compositions
 * the ONNX importer makes too (import.h: SUB, DIV by a constant, TANH,
 * HARD_SWISH, LEAKY_RELU, PRELU); several outputs (SPLIT, SPLIT_V) are one
 * SLICE each.
 *
 * Layouts: TFLite activations are NHWC and weights OHWI (depthwise: 1HWC);
 * the graph IR is NCHW / OIHW, so every 4-D tensor is stored transposed and
 * the graph input becomes [N,C,H,W], the layout datasets and images are
 * read in. Axes (CONCATENATION, SPLIT, slices, TRANSPOSE's permutation) are
 * taken to NCHW; RESHAPE and its kin move the elements in TFLite's order:
 * a 4-D value with both channels and spatial extent is transposed to NHWC
 * before and from NHWC after (the orders agree when C == 1 or H*W == 1).
 * FLOAT16 constants (the converter's fp16 weights) are folded to float
 * where a DEQUANTIZE takes them, and taken nowhere else.
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
enum { TT_FLOAT32 = 0, TT_FLOAT16 = 1, TT_INT32 = 2, TT_UINT8 = 3, TT_INT64 = 4, TT_INT8 = 9 };

/* BuiltinOperator codes taken */
enum {
	B_ADD = 0, B_AVERAGE_POOL_2D = 1, B_CONCATENATION = 2, B_CONV_2D = 3, B_DEPTHWISE_CONV_2D = 4,
	B_DEPTH_TO_SPACE = 5, B_DEQUANTIZE = 6, B_FULLY_CONNECTED = 9, B_LOGISTIC = 14, B_MAX_POOL_2D = 17,
	B_MUL = 18, B_RELU = 19, B_RELU_N1_TO_1 = 20, B_RELU6 = 21, B_RESHAPE = 22, B_SOFTMAX = 25, B_TANH = 28,
	B_PAD = 34, B_TRANSPOSE = 39, B_MEAN = 40, B_SUB = 41, B_DIV = 42, B_SQUEEZE = 43, B_STRIDED_SLICE = 45,
	B_SPLIT = 49, B_PRELU = 54, B_MAXIMUM = 55, B_MINIMUM = 57, B_PADV2 = 60, B_SLICE = 65, B_EXPAND_DIMS = 70,
	B_RESIZE_BILINEAR = 23, B_RESIZE_NEAREST_NEIGHBOR = 97, B_LEAKY_RELU = 98, B_MIRROR_PAD = 100, B_SPLIT_V = 102, B_QUANTIZE = 114, B_HARD_SWISH = 117,
};

/* BuiltinOptions union members taken (1-based position in the union) */
enum {
	O_CONV = 1, O_DEPTHWISE = 2, O_POOL = 5, O_FC = 8, O_SOFTMAX = 9, O_CONCATENATION = 10, O_ADD = 11,
	O_RESHAPE = 17, O_MUL = 21, O_REDUCER = 27, O_SUB = 28, O_DIV = 29, O_STRIDED_SLICE = 32, O_SPLIT = 35,
	O_RESIZE_BILINEAR = 15, O_RESIZE_NEAREST = 74, O_LEAKY_RELU = 75, O_MIRROR_PAD = 77, O_SPLIT_V = 79, O_DEPTH_TO_SPACE = 94,
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

/* The operator being imported: its tensors, name (its first output's) and
 * results, one a output. */
#define MAX_OUTS 16
typedef struct opctx {
	const vc_fb_table *op;
	int code;
	int in[8], n_in;
	int out[MAX_OUTS], n_out;
	const char *nm;
	vc_node *res[MAX_OUTS]; /* filled by operators of several outputs (SPLIT) */
	int deferred;           /* PAD: remembered on its output, no node (yet) */
} opctx;

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

/* Bytes an element of a constant of the type takes (0: not taken). */
static size_t elem_size(int type)
{
	return type == TT_FLOAT32 || type == TT_INT32 ? 4 : type == TT_INT8 || type == TT_UINT8 ? 1
	       : type == TT_INT64 ? 8 : type == TT_FLOAT16 ? 2 : 0;
}

/* Tensor i as real numbers in its declared (TFLite) order; -1 on error. */
static int const_values(importer *im, int i, float *out)
{
	vc_fb *fb = &im->fb;
	tensor *t = &im->ts[i];
	size_t es = elem_size(t->type);
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
	if (custom && t->type != TT_FLOAT32 && t->type != TT_FLOAT16)
		return op_error(im, "tensor %d '%s' has quantization details (%s), which are not supported", i, t->name,
				details_name(custom));
	int quant = sc.len > 0 && t->type != TT_FLOAT32 && t->type != TT_FLOAT16;
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
		case TT_FLOAT16:
			v = vc_imp_half((uint16_t)(d[2 * k] | d[2 * k + 1] << 8));
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

/* The inputs an operator has, checked against lo..hi. */
static int n_inputs(importer *im, const opctx *cx, int lo, int hi)
{
	if (cx->n_in >= lo && cx->n_in <= hi)
		return 0;
	if (lo == hi)
		return op_error(im, "has %d inputs (%d expected)", cx->n_in, lo);
	return op_error(im, "has %d inputs (%d to %d expected)", cx->n_in, lo, hi);
}

/* NHWC data of dims s[4] in NCHW order. */
static void nhwc_to_nchw(const float *v, float *o, const int64_t *s)
{
	int64_t N = s[0], H = s[1], W = s[2], C = s[3];
	for (int64_t n = 0; n < N; n++)
		for (int64_t h = 0; h < H; h++)
			for (int64_t w = 0; w < W; w++)
				for (int64_t ch = 0; ch < C; ch++)
					o[((n * C + ch) * H + h) * W + w] = v[((n * H + h) * W + w) * C + ch];
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

/* The dimension of IR value x that holds dimension k of its TFLite tensor
 * of the same rank (4-D: NHWC there, NCHW here), and the inverse. */
static int ir_axis(int k, int rank)
{
	static const int from_nhwc[4] = {0, 2, 3, 1};
	return rank == 4 ? from_nhwc[k] : k;
}

static int tfl_axis(int i, int rank)
{
	static const int to_nhwc[4] = {0, 3, 1, 2};
	return rank == 4 ? to_nhwc[i] : i;
}

static int float_like(int type)
{
	return type == TT_FLOAT32 || type == TT_INT8 || type == TT_UINT8;
}

static vc_node *materialize_pad(importer *im, tensor *t);

/* The value of tensor i as an operand (an activation or a constant);
 * FLOAT16 constants only where half is set (DEQUANTIZE's input). */
static vc_node *value_of(importer *im, int i, int half)
{
	if (i < 0 || i >= im->nt) {
		op_error(im, "input tensor index %d is out of range (%d tensors)", i, im->nt);
		return NULL;
	}
	tensor *t = &im->ts[i];
	if (t->type == TT_FLOAT16 && !half) {
		op_error(im, "tensor %d '%s' has type FLOAT16, which is taken only as a constant feeding DEQUANTIZE", i,
			 t->name);
		return NULL;
	}
	if (t->pad_op >= 0 && !t->node)
		return materialize_pad(im, t);
	if (t->node)
		return t->node;
	if (!float_like(t->type) && t->type != TT_INT32 && t->type != TT_FLOAT16) {
		op_error(im, "tensor %d '%s' has type %s, which is not supported here", i, t->name, type_name(t->type));
		return NULL;
	}
	float *v = malloc((size_t)(elems(t) ? elems(t) : 1) * sizeof *v);
	if (!v) {
		vc_error(im->m, NULL, "out of memory");
		return NULL;
	}
	if (!tensor_data(im, i, elem_size(t->type), 0)) {
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
		if (c && t->rank == 4) /* NHWC -> NCHW */
			nhwc_to_nchw(v, c->data, t->shape);
		else if (c)
			memcpy(c->data, v, (size_t)elems(t) * sizeof *v);
	}
	free(v);
	t->node = c;
	return c;
}

static vc_node *value(importer *im, int i)
{
	return value_of(im, i, 0);
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

/* Weights in OIHW from OHWI ([O,KH,KW,I]) or, depthwise, [1,KH,KW,O]; a
 * constant already made (DEQUANTIZE of fp16 weights) holds them as NCHW of
 * those shapes: OIHW, or depthwise [1,O,KH,KW], the same bytes as [O,1,KH,KW]. */
static vc_node *weights(importer *im, int i, int depthwise)
{
	tensor *t = i >= 0 && i < im->nt ? &im->ts[i] : NULL;
	if (t && t->node && t->node->op == VC_OP_CONST && t->rank == 4) {
		const vc_node *k = t->node;
		int64_t d[4] = {k->type.dim[depthwise], depthwise ? 1 : k->type.dim[1], k->type.dim[2], k->type.dim[3]};
		return depthwise ? vc_const(im->m, k->name, VC_F32, 4, d, k->data) : t->node;
	}
	if (t && !float_like(t->type)) {
		op_error(im, "constant tensor %d '%s' has type %s, which is not supported for weights%s", i, t->name,
			 type_name(t->type), t->type == TT_FLOAT16 ? " (FLOAT16 is taken behind DEQUANTIZE)" : "");
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
		"ReducerOptions", "SubOptions", "DivOptions", "SqueezeOptions", "SequenceRNNOptions",
		"StridedSliceOptions", "ExpOptions", "TopKV2Options", "SplitOptions", "LogSoftmaxOptions", "CastOptions",
		"DequantizeOptions", "MaximumMinimumOptions", "ArgMaxOptions", "LessOptions", "NegOptions",
		"PadV2Options", "GreaterOptions", "GreaterEqualOptions", "LessEqualOptions", "SelectOptions",
		"SliceOptions", "TransposeConvOptions", "SparseToDenseOptions", "TileOptions", "ExpandDimsOptions",
		"EqualOptions", "NotEqualOptions", "ShapeOptions", "PowOptions", "ArgMinOptions", "FakeQuantOptions",
		"PackOptions", "LogicalOrOptions", "OneHotOptions", "LogicalAndOptions", "LogicalNotOptions",
		"UnpackOptions", "FloorDivOptions", "SquareOptions", "ZerosLikeOptions", "FillOptions",
		"BidirectionalSequenceLSTMOptions", "BidirectionalSequenceRNNOptions",
		"UnidirectionalSequenceLSTMOptions", "FloorModOptions", "RangeOptions", "ResizeNearestNeighborOptions",
		"LeakyReluOptions", "SquaredDifferenceOptions", "MirrorPadOptions", "AbsOptions", "SplitVOptions",
		"UniqueOptions", "ReverseV2Options", "AddNOptions", "GatherNdOptions", "CosOptions", "WhereOptions",
		"RankOptions", "ReverseSequenceOptions", "MatrixDiagOptions", "QuantizeOptions", "MatrixSetDiagOptions",
		"HardSwishOptions", "IfOptions", "WhileOptions", "DepthToSpaceOptions"};
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

/* Field field of the operator's options, expected of union member
 * member: a float, or else an int32 (default 0). */
static int one_option(importer *im, const opctx *cx, int member, int field, int is_float, double *v)
{
	int bad;
	vc_fb_table o = options(im, cx->op, member, &bad);
	if (bad)
		return -1;
	*v = is_float ? vc_fb_f32(&im->fb, &o, field, 0.0f) : vc_fb_i32(&im->fb, &o, field, 0);
	return im->fb.bad ? fb_error(im, "its options") : 0;
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

static vc_node *conv(importer *im, opctx *cx)
{
	const vc_fb_table *op = cx->op;
	const int *in = cx->in;
	int n_in = cx->n_in;
	const char *nm = cx->nm;
	int depthwise = cx->code == B_DEPTHWISE_CONV_2D;
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

static vc_node *pool(importer *im, opctx *cx)
{
	const vc_fb_table *op = cx->op;
	const int *in = cx->in;
	int n_in = cx->n_in;
	const char *nm = cx->nm;
	int is_max = cx->code == B_MAX_POOL_2D;
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
		/* the pooling's own padding differs from the PAD's zeros, which are
		 * elements: the PAD becomes a node of its own */
		if (!(x = materialize_pad(im, &im->ts[in[0]])))
			return NULL;
		memset(pad, 0, sizeof pad);
		from_pad = 0;
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

/* x permuted by perm (VC_OP_TRANSPOSE), or x itself for the identity. */
static vc_node *permute(importer *im, vc_node *x, const int64_t *perm, const char *nm)
{
	vc_attrs a;
	vc_attrs_init(&a);
	a.nshape = x->type.rank;
	int same = 1;
	for (int i = 0; i < a.nshape; i++)
		a.shape[i] = perm[i], same &= perm[i] == i;
	return same ? x : vc_build(im->m, VC_OP_TRANSPOSE, &x, 1, &a, nm);
}

/* x reshaped to rank r, dims d (x itself when they are its own). */
static vc_node *reshape_to(importer *im, vc_node *x, int r, const int64_t *d, const char *nm)
{
	int same = x->type.rank == r;
	for (int k = 0; same && k < r; k++)
		same = x->type.dim[k] == d[k];
	if (same)
		return x;
	vc_attrs a;
	vc_attrs_init(&a);
	a.nshape = r;
	memcpy(a.shape, d, (size_t)r * sizeof *d);
	return vc_build(im->m, VC_OP_RESHAPE, &x, 1, &a, nm);
}

/* The elements of x in TFLite's order: a 4-D value with both channels and
 * spatial extent transposed back to NHWC (elsewhere the orders agree). */
static vc_node *tfl_order(importer *im, vc_node *x, const char *nm)
{
	static const int64_t to_nhwc[4] = {0, 2, 3, 1};
	char tn[64];
	snprintf(tn, sizeof tn, "%.56s.nhwc", nm);
	return nhwc_order_agrees(x) ? x : permute(im, x, to_nhwc, tn);
}

/* The value of tensor out from y, whose elements are in TFLite's order:
 * reshaped to out's shape, a 4-D one through NHWC to NCHW. */
static vc_node *from_tfl_order(importer *im, vc_node *y, const tensor *out, const char *nm)
{
	int64_t d[VC_MAX_RANK];
	ir_dims(out, d);
	vc_node fake = {.type = {.rank = out->rank}};
	memcpy(fake.type.dim, d, sizeof d);
	if (out->rank != 4 || nhwc_order_agrees(&fake))
		return reshape_to(im, y, out->rank, d, nm);
	static const int64_t to_nchw[4] = {0, 3, 1, 2};
	char rn[64];
	snprintf(rn, sizeof rn, "%.56s.nhwc", nm);
	y = reshape_to(im, y, 4, out->shape, rn);
	return y ? permute(im, y, to_nchw, nm) : NULL;
}

static vc_node *fully_connected(importer *im, opctx *cx)
{
	const vc_fb_table *op = cx->op;
	const int *in = cx->in;
	int n_in = cx->n_in;
	const char *nm = cx->nm;
	const tensor *out = &im->ts[cx->out[0]];
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
		if (!(x = tfl_order(im, x, nm))) /* TFLite flattens NHWC */
			return NULL;
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

/* A constant operand c (tensor ci) of an elementwise op brought to the
 * layout of x: TFLite broadcasts a constant of lower rank onto a 4-D NHWC
 * value from the end, so its shape is taken to rank 4 and its data to
 * NCHW ([C] becomes [1,C,1,1]); then numpy broadcasting in NCHW is the same. */
static vc_node *broadcast_const(importer *im, int ci, vc_node *c, const vc_node *x)
{
	const tensor *t = &im->ts[ci];
	if (c->op != VC_OP_CONST || x->type.rank != 4 || t->rank >= 4)
		return c;
	int64_t s[4] = {1, 1, 1, 1}; /* NHWC */
	for (int k = 0; k < t->rank; k++)
		s[4 - t->rank + k] = t->shape[k];
	int64_t d[4] = {s[0], s[3], s[1], s[2]};
	vc_node *r = vc_const(im->m, c->name, VC_F32, 4, d, NULL);
	if (r)
		nhwc_to_nchw(c->data, r->data, s);
	return r;
}

/* The options member and the field of the fused activation of ADD, MUL, SUB and DIV. */
static int arith_options(int code)
{
	return code == B_ADD ? O_ADD : code == B_MUL ? O_MUL : code == B_SUB ? O_SUB : O_DIV;
}

/* ADD, MUL, SUB (a + b * -1) and DIV by a constant (times its reciprocal):
 * numpy broadcasting in TFLite's order, then the fused activation. */
static vc_node *binary(importer *im, opctx *cx)
{
	vc_fb *fb = &im->fb;
	int bad;
	vc_fb_table o = options(im, cx->op, arith_options(cx->code), &bad);
	if (bad)
		return NULL;
	int act = vc_fb_u8(fb, &o, 0, 0);
	if (fb->bad) {
		fb_error(im, "its options");
		return NULL;
	}
	if (n_inputs(im, cx, 2, 2))
		return NULL;
	vc_node *a = value(im, cx->in[0]), *b = a ? value(im, cx->in[1]) : NULL;
	if (!b || !(a = broadcast_const(im, cx->in[0], a, b)) || !(b = broadcast_const(im, cx->in[1], b, a)))
		return NULL;
	if (a->type.rank != b->type.rank && (a->type.rank == 4 || b->type.rank == 4)) {
		/* NHWC broadcasting of a computed operand is not NCHW's */
		op_error(im, "broadcasts a computed %d-D operand onto a %d-D one (only a constant of lower rank broadcasts "
			 "onto 4-D data)", a->type.rank < b->type.rank ? a->type.rank : b->type.rank,
			 a->type.rank < b->type.rank ? b->type.rank : a->type.rank);
		return NULL;
	}
	vc_node *y;
	if (cx->code == B_DIV) {
		int zero = b->op != VC_OP_CONST;
		for (int64_t k = 0; !zero && k < vc_type_elems(&b->type); k++)
			zero = ((const float *)b->data)[k] == 0.0f;
		if (zero) {
			op_error(im, "the divisor (tensor %d '%s') must be a constant without zeros", cx->in[1],
				 im->ts[cx->in[1]].name);
			return NULL;
		}
		y = vc_imp_div_const(im->m, a, b, cx->nm);
	} else if (cx->code == B_SUB) {
		y = vc_imp_sub(im->m, a, b, cx->nm);
	} else {
		vc_node *args[2] = {a, b};
		y = vc_build(im->m, cx->code == B_MUL ? VC_OP_MUL : VC_OP_ADD, args, 2, NULL, cx->nm);
	}
	return y ? activation(im, y, act) : NULL;
}

/* The NCHW axis of axis ax (negative: from the end) of a TFLite tensor of
 * the given rank (4-D tensors are NHWC there, NCHW here); -1 if outside. */
static int64_t nchw_axis(int64_t ax, int rank)
{
	if (ax < 0)
		ax += rank;
	return ax < 0 || ax >= rank ? -1 : ir_axis((int)ax, rank);
}

/* CONCATENATION along an axis of its operands (2 to 16 of them). */
static vc_node *concatenation(importer *im, opctx *cx)
{
	const vc_fb_table *op = cx->op;
	const int *in = cx->in;
	int n_in = cx->n_in;
	const char *nm = cx->nm;
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

/* The one element of a constant operand, or NAN when it is not one. */
static double const_scalar(const vc_node *c)
{
	return c && c->op == VC_OP_CONST && vc_type_elems(&c->type) == 1 ? ((const float *)c->data)[0] : NAN;
}

/* Operators of one operand: LOGISTIC, RELU, RELU6, RELU_N1_TO_1, TANH
 * (2 sigmoid(2x) - 1), HARD_SWISH and LEAKY_RELU (the compositions ONNX's
 * importer makes too, import.h); PRELU with a constant slope. */
static vc_node *unary(importer *im, opctx *cx)
{
	int code = cx->code;
	if (n_inputs(im, cx, code == B_PRELU ? 2 : 1, code == B_PRELU ? 2 : 1))
		return NULL;
	vc_node *x = value(im, cx->in[0]);
	if (!x)
		return NULL;
	vc_attrs a;
	vc_attrs_init(&a);
	switch (code) {
	case B_LOGISTIC:
		return vc_build(im->m, VC_OP_SIGMOID, &x, 1, &a, cx->nm);
	case B_RELU:
		return vc_build(im->m, VC_OP_RELU, &x, 1, &a, cx->nm);
	case B_TANH:
		return vc_imp_tanh(im->m, x, cx->nm);
	case B_HARD_SWISH:
		return vc_imp_hard_sigmoid(im->m, x, 1.0 / 6.0, 0.5, 1, cx->nm);
	case B_LEAKY_RELU: {
		double alpha;
		if (one_option(im, cx, O_LEAKY_RELU, 0, 1, &alpha))
			return NULL;
		if (!isfinite(alpha)) {
			op_error(im, "alpha %g is not finite", alpha);
			return NULL;
		}
		return vc_imp_leaky_relu(im->m, x, NULL, alpha, cx->nm);
	}
	case B_PRELU: {
		vc_node *s = value(im, cx->in[1]);
		if (s && s->op != VC_OP_CONST) {
			op_error(im, "the slope (tensor %d '%s') must be a constant", cx->in[1], im->ts[cx->in[1]].name);
			return NULL;
		}
		s = s ? broadcast_const(im, cx->in[1], s, x) : NULL;
		return s ? vc_imp_leaky_relu(im->m, x, s, 0.0, cx->nm) : NULL;
	}
	default: /* RELU6, RELU_N1_TO_1 */
		a.lo = code == B_RELU6 ? 0.0 : -1.0;
		a.hi = code == B_RELU6 ? 6.0 : 1.0;
		return vc_build(im->m, VC_OP_CLIP, &x, 1, &a, cx->nm);
	}
}

/* MAXIMUM and MINIMUM of a value and a constant scalar: a clip. */
static vc_node *min_max(importer *im, opctx *cx)
{
	if (n_inputs(im, cx, 2, 2))
		return NULL;
	vc_node *p = value(im, cx->in[0]), *q = p ? value(im, cx->in[1]) : NULL;
	if (!q)
		return NULL;
	int k = isnan(const_scalar(q)) ? 0 : 1; /* the constant's side */
	double v = const_scalar(k ? q : p);
	vc_node *x = k ? p : q;
	if (isnan(v) || x->op == VC_OP_CONST) {
		op_error(im, "%s is supported of a computed value and a constant scalar (a clip) only", im->opn);
		return NULL;
	}
	vc_attrs a;
	vc_attrs_init(&a);
	a.lo = cx->code == B_MAXIMUM ? v : -INFINITY;
	a.hi = cx->code == B_MAXIMUM ? INFINITY : v;
	return vc_build(im->m, VC_OP_CLIP, &x, 1, &a, cx->nm);
}

/*
 * RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR to a constant size, with
 * TensorFlow's coordinates: align_corners (scale (in - 1) / (out - 1),
 * nearest rounds half away from zero), half_pixel_centers ((y + 0.5) in /
 * out, less 0.5 for bilinear; nearest rounds down) or neither (y in / out,
 * down). Nearest by whole factors without align_corners is the upsample op
 * (int8 too); the rest is the float resize op on the host.
 */
static vc_node *resize(importer *im, opctx *cx)
{
	vc_fb *fb = &im->fb;
	int bilinear = cx->code == B_RESIZE_BILINEAR, bad;
	vc_fb_table o = options(im, cx->op, bilinear ? O_RESIZE_BILINEAR : O_RESIZE_NEAREST, &bad);
	if (bad)
		return NULL;
	/* ResizeBilinearOptions: new_height, new_width (deprecated), align_corners,
	 * half_pixel_centers; ResizeNearestNeighborOptions: the last two */
	int align = vc_fb_u8(fb, &o, bilinear ? 2 : 0, 0), half = vc_fb_u8(fb, &o, bilinear ? 3 : 1, 0);
	if (fb->bad) {
		fb_error(im, "its options");
		return NULL;
	}
	int64_t size[2], ns;
	vc_node *x = cx->n_in == 2 ? value(im, cx->in[0]) : NULL;
	if (cx->n_in != 2) {
		op_error(im, "has %d inputs (2 expected)", cx->n_in);
		return NULL;
	}
	if (!x || const_ints(im, cx->in[1], size, 2, &ns))
		return NULL;
	int64_t h = x->type.rank == 4 ? x->type.dim[2] : 0, w = x->type.rank == 4 ? x->type.dim[3] : 0;
	if (ns != 2 || h < 1 || w < 1 || size[0] < 1 || size[1] < 1 || size[0] > 65536 || size[1] > 65536 || (align && half)) {
		op_error(im, "%s needs a 4-D tensor, a constant size of 2 entries from 1 to 65536, and not both "
			 "align_corners and half_pixel_centers", im->opn);
		return NULL;
	}
	vc_attrs a;
	vc_attrs_init(&a);
	int64_t kh = size[0] % h == 0 ? size[0] / h : 0, kw = size[1] % w == 0 ? size[1] / w : 0;
	if (!bilinear && !align && kh >= 1 && kw >= 1 && kh <= 64 && kw <= 64) {
		if (kh == 1 && kw == 1)
			return x;
		a.stride[0] = kh, a.stride[1] = kw;
		return vc_build(im->m, VC_OP_UPSAMPLE, &x, 1, &a, cx->nm);
	}
	a.resize_mode = bilinear ? VC_RESIZE_LINEAR : VC_RESIZE_NEAREST;
	a.resize_coord = align ? VC_COORD_ALIGN_CORNERS
			 : half ? (bilinear ? VC_COORD_HALF_PIXEL : VC_COORD_TF_HALF_PIXEL_FOR_NN)
				: VC_COORD_ASYMMETRIC;
	a.resize_round = align ? VC_ROUND_PREFER_CEIL : VC_ROUND_FLOOR;
	a.scale[0] = (double)size[0] / (double)h, a.scale[1] = (double)size[1] / (double)w;
	a.nshape = 4;
	const int64_t shape[4] = {x->type.dim[0], x->type.dim[1], size[0], size[1]};
	memcpy(a.shape, shape, sizeof shape);
	return vc_build(im->m, VC_OP_RESIZE, &x, 1, &a, cx->nm);
}

static vc_node *mean(importer *im, opctx *cx)
{
	const vc_fb_table *op = cx->op;
	const int *in = cx->in;
	int n_in = cx->n_in;
	const char *nm = cx->nm;
	const tensor *out = &im->ts[cx->out[0]];
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

/* RESHAPE, SQUEEZE and EXPAND_DIMS: the declared output shape, the
 * elements kept in TFLite's (NHWC) order. */
static vc_node *reshape(importer *im, opctx *cx)
{
	const tensor *out = &im->ts[cx->out[0]];
	if (n_inputs(im, cx, 1, cx->code == B_SQUEEZE ? 1 : 2))
		return NULL;
	vc_node *x = value(im, cx->in[0]);
	if (!x)
		return NULL;
	if (!out->rank || elems(out) != vc_type_elems(&x->type)) {
		op_error(im, "reshapes %lld values into an output declared with %lld", (long long)vc_type_elems(&x->type),
			 (long long)elems(out));
		return NULL;
	}
	int64_t d[VC_MAX_RANK];
	ir_dims(out, d);
	int same = x->type.rank == out->rank;
	for (int k = 0; same && k < out->rank; k++)
		same = x->type.dim[k] == d[k];
	if (same) /* the shape it has */
		return x;
	x = tfl_order(im, x, cx->nm);
	return x ? from_tfl_order(im, x, out, cx->nm) : NULL;
}

/* TRANSPOSE by a constant permutation of TFLite's axes, taken to the IR's. */
static vc_node *transpose(importer *im, opctx *cx)
{
	int64_t p[VC_MAX_RANK], np, perm[VC_MAX_RANK];
	vc_node *x = n_inputs(im, cx, 2, 2) ? NULL : value(im, cx->in[0]);
	if (!x || const_ints(im, cx->in[1], p, VC_MAX_RANK, &np))
		return NULL;
	int r = x->type.rank, seen = 0;
	for (int k = 0; k < np && np == r; k++) {
		int64_t v = p[k] < 0 ? p[k] + r : p[k];
		if (v < 0 || v >= r || seen >> v & 1)
			break;
		seen |= 1 << v;
		p[k] = v;
	}
	if (np != r || seen != (1 << r) - 1) {
		op_error(im, "the permutation is not one of the %d axes of its input", r);
		return NULL;
	}
	for (int i = 0; i < r; i++)
		perm[i] = ir_axis((int)p[tfl_axis(i, r)], r);
	return permute(im, x, perm, cx->nm);
}

/* x without the first lo and the last hi entries of IR axis ax (x itself
 * when both are 0). */
static vc_node *crop(importer *im, vc_node *x, int ax, int64_t lo, int64_t hi, const char *nm)
{
	if (!lo && !hi)
		return x;
	vc_attrs a;
	vc_attrs_init(&a);
	a.axis = ax;
	a.pad[0] = lo, a.pad[2] = hi;
	return vc_build(im->m, VC_OP_SLICE, &x, 1, &a, nm);
}

/* Entries begin[k] <= i < end[k] of each TFLite axis k of x, one SLICE an
 * axis cut (the last named nm). */
static vc_node *slice_box(importer *im, vc_node *x, const int64_t *begin, const int64_t *end, const char *nm)
{
	int r = x->type.rank, cuts = 0;
	for (int k = 0; k < r; k++)
		cuts += begin[k] > 0 || end[k] < x->type.dim[ir_axis(k, r)];
	for (int k = 0; x && k < r; k++) {
		int ax = ir_axis(k, r);
		int64_t lo = begin[k], hi = x->type.dim[ax] - end[k];
		if (!lo && !hi)
			continue;
		char sn[64];
		snprintf(sn, sizeof sn, "%.56s.cut%c", nm, (char)('0' + k % 10));
		x = crop(im, x, ax, lo, hi, --cuts ? sn : nm);
	}
	return x;
}

/* SLICE: begin and size (-1: to the end) of every axis, constants. */
static vc_node *slice(importer *im, opctx *cx)
{
	int64_t b[VC_MAX_RANK], sz[VC_MAX_RANK], nb, ns, e[VC_MAX_RANK];
	vc_node *x = n_inputs(im, cx, 3, 3) ? NULL : value(im, cx->in[0]);
	if (!x || const_ints(im, cx->in[1], b, VC_MAX_RANK, &nb) || const_ints(im, cx->in[2], sz, VC_MAX_RANK, &ns))
		return NULL;
	int r = x->type.rank;
	if (nb != r || ns != r) {
		op_error(im, "has %lld begins and %lld sizes for %d axes", (long long)nb, (long long)ns, r);
		return NULL;
	}
	for (int k = 0; k < r; k++) {
		int64_t dim = x->type.dim[ir_axis(k, r)];
		e[k] = sz[k] == -1 ? dim : b[k] + sz[k];
		if (b[k] < 0 || sz[k] < -1 || sz[k] == 0 || e[k] > dim) {
			op_error(im, "begin %lld and size %lld do not lie inside axis %d of %lld entries", (long long)b[k],
				 (long long)sz[k], k, (long long)dim);
			return NULL;
		}
	}
	return slice_box(im, x, b, e, cx->nm);
}

/* STRIDED_SLICE with stride 1 (or a stride that takes one entry) on every
 * axis, begin_mask, end_mask and shrink_axis_mask; the ellipsis and new-axis
 * masks and offset are refused. Shrunk axes go by a reshape. */
static vc_node *strided_slice(importer *im, opctx *cx)
{
	vc_fb *fb = &im->fb;
	int bad;
	vc_fb_table o = options(im, cx->op, O_STRIDED_SLICE, &bad);
	if (bad)
		return NULL;
	int32_t bm = vc_fb_i32(fb, &o, 0, 0), em = vc_fb_i32(fb, &o, 1, 0), ell = vc_fb_i32(fb, &o, 2, 0);
	int32_t nam = vc_fb_i32(fb, &o, 3, 0), sam = vc_fb_i32(fb, &o, 4, 0);
	int offset = vc_fb_u8(fb, &o, 5, 0);
	if (fb->bad) {
		fb_error(im, "its options");
		return NULL;
	}
	if (ell || nam || offset) {
		op_error(im, "%s %d is not supported", ell ? "ellipsis_mask" : nam ? "new_axis_mask" : "offset",
			 ell ? ell : nam ? nam : offset);
		return NULL;
	}
	int64_t b[VC_MAX_RANK], e[VC_MAX_RANK], s[VC_MAX_RANK], nb, ne, ns;
	vc_node *x = n_inputs(im, cx, 4, 4) ? NULL : value(im, cx->in[0]);
	if (!x || const_ints(im, cx->in[1], b, VC_MAX_RANK, &nb) || const_ints(im, cx->in[2], e, VC_MAX_RANK, &ne) ||
	    const_ints(im, cx->in[3], s, VC_MAX_RANK, &ns))
		return NULL;
	int r = x->type.rank;
	if (nb != r || ne != r || ns != r || (bm | em | sam) >> r) {
		op_error(im, "has %lld begins, %lld ends, %lld strides and masks 0x%x/0x%x/0x%x for %d axes", (long long)nb,
			 (long long)ne, (long long)ns, (unsigned)bm, (unsigned)em, (unsigned)sam, r);
		return NULL;
	}
	for (int k = 0; k < r; k++) {
		int64_t dim = x->type.dim[ir_axis(k, r)];
		b[k] += b[k] < 0 ? dim : 0;
		e[k] += e[k] < 0 ? dim : 0;
		b[k] = bm >> k & 1 ? 0 : b[k] < 0 ? 0 : b[k] > dim ? dim : b[k];
		e[k] = sam >> k & 1 ? b[k] + 1 : em >> k & 1 ? dim : e[k] < 0 ? 0 : e[k] > dim ? dim : e[k];
		if (b[k] >= e[k] || e[k] > dim) {
			op_error(im, "axis %d: the slice [%lld, %lld) of %lld entries is empty", k, (long long)b[k],
				 (long long)e[k], (long long)dim);
			return NULL;
		}
		if (s[k] != 1 && !(s[k] > 1 && e[k] - b[k] == 1)) {
			op_error(im, "stride %lld on axis %d is not supported (only 1)", (long long)s[k], k);
			return NULL;
		}
	}
	const tensor *out = &im->ts[cx->out[0]];
	char bn[64];
	snprintf(bn, sizeof bn, "%.56s%s", cx->nm, sam ? ".box" : "");
	x = slice_box(im, x, b, e, bn);
	if (!x || !sam)
		return x;
	/* the shrunk axes have one entry: the rest in TFLite's order */
	if (elems(out) != vc_type_elems(&x->type)) {
		op_error(im, "the output is declared with %lld values, the slice has %lld", (long long)elems(out),
			 (long long)vc_type_elems(&x->type));
		return NULL;
	}
	x = tfl_order(im, x, cx->nm);
	return x ? from_tfl_order(im, x, out, cx->nm) : NULL;
}

/* SPLIT (axis, x; num_splits equal parts) and SPLIT_V (x, sizes with at
 * most one -1, axis): one SLICE an output. */
static vc_node *split(importer *im, opctx *cx)
{
	int v = cx->code == B_SPLIT_V;
	double nv;
	if (one_option(im, cx, v ? O_SPLIT_V : O_SPLIT, 0, 0, &nv))
		return NULL;
	int64_t ns = (int64_t)nv, ax, nax, sz[MAX_OUTS], nsz = 0;
	vc_node *x = n_inputs(im, cx, v ? 3 : 2, v ? 3 : 2) ? NULL : value(im, cx->in[v ? 0 : 1]);
	if (!x || const_ints(im, cx->in[v ? 2 : 0], &ax, 1, &nax) ||
	    (v && const_ints(im, cx->in[1], sz, MAX_OUTS, &nsz)))
		return NULL;
	int r = x->type.rank;
	int64_t k = nax == 1 && ax < 0 ? ax + r : ax;
	if (nax != 1 || k < 0 || k >= r) {
		op_error(im, "the axis is not one of the %d axes of its input", r);
		return NULL;
	}
	int ia = ir_axis((int)k, r);
	int64_t dim = x->type.dim[ia];
	if (ns != cx->n_out || (v && nsz != ns)) {
		op_error(im, "num_splits %lld%s does not match its %d outputs", (long long)ns, v ? " or the sizes" : "",
			 cx->n_out);
		return NULL;
	}
	if (!v) {
		if (ns < 1 || dim % ns) {
			op_error(im, "num_splits %lld does not divide axis %lld of %lld entries", (long long)ns, (long long)k,
				 (long long)dim);
			return NULL;
		}
		for (int j = 0; j < ns; j++)
			sz[j] = dim / ns;
	}
	int64_t sum = 0, infer = -1;
	for (int j = 0; j < ns; j++) {
		if (sz[j] == -1 && infer < 0)
			infer = j;
		else if (sz[j] < 1)
			infer = -2;
		else
			sum += sz[j];
	}
	if (infer == -2 || (infer >= 0 && sum >= dim) || (infer < 0 && sum != dim)) {
		op_error(im, "the sizes of the parts do not add up to axis %lld of %lld entries", (long long)k,
			 (long long)dim);
		return NULL;
	}
	if (infer >= 0)
		sz[infer] = dim - sum;
	int64_t at = 0;
	for (int j = 0; j < ns; at += sz[j++])
		if (!(cx->res[j] = crop(im, x, ia, at, dim - at - sz[j], im->ts[cx->out[j]].name)))
			return NULL;
	return cx->res[0];
}

static vc_node *softmax(importer *im, opctx *cx)
{
	const vc_fb_table *op = cx->op;
	const int *in = cx->in;
	int n_in = cx->n_in;
	const char *nm = cx->nm;
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

/* The spatial amounts (top, left, bottom, right) of a PAD's or PADV2's
 * constant paddings of the 4-D tensor x. */
static int pad_amounts(importer *im, const vc_node *x, int pi, int64_t pad[4])
{
	int64_t p[16], np;
	if (const_ints(im, pi, p, 16, &np))
		return -1;
	if (x->type.rank != 4 || np != 8)
		return op_error(im, "only %s of a 4-D tensor is supported", im->opn);
	if (p[0] || p[1] || p[6] || p[7])
		return op_error(im, "pads the batch or channel axis, which is not supported");
	for (int k = 2; k < 6; k++)
		if (p[k] < 0 || p[k] > 1024)
			return op_error(im, "pad amount %lld is negative or too large", (long long)p[k]);
	pad[0] = p[2], pad[2] = p[3], pad[1] = p[4], pad[3] = p[5];
	return 0;
}

/* PAD, and PADV2 with the value 0: remembered on the output and taken over
 * by the convolution or pooling that reads it (a node of its own for any
 * other reader, materialize_pad). PADV2 of another constant value: the pad op. */
static vc_node *pad_op(importer *im, opctx *cx)
{
	int v2 = cx->code == B_PADV2;
	vc_node *x = n_inputs(im, cx, 2, v2 ? 3 : 2) ? NULL : value(im, cx->in[0]);
	double fill = 0;
	if (x && v2 && cx->n_in == 3) {
		vc_node *c = value(im, cx->in[2]);
		if (!c)
			return NULL;
		if (isnan(fill = const_scalar(c))) {
			op_error(im, "the constant value (tensor %d) must be a constant scalar", cx->in[2]);
			return NULL;
		}
	}
	tensor *t = &im->ts[cx->out[0]];
	if (!x || pad_amounts(im, x, cx->in[1], t->pad))
		return NULL;
	if (fill != 0) {
		vc_attrs a;
		vc_attrs_init(&a);
		memcpy(a.pad, t->pad, sizeof a.pad);
		a.lo = fill;
		return vc_build(im->m, VC_OP_PAD, &x, 1, &a, cx->nm);
	}
	t->pad_op = im->op;
	t->pad_src = cx->in[0];
	cx->deferred = 1;
	return NULL;
}

/* A remembered PAD read by an operator that does not take it over: the pad op. */
static vc_node *materialize_pad(importer *im, tensor *t)
{
	vc_attrs a;
	vc_attrs_init(&a);
	memcpy(a.pad, t->pad, sizeof a.pad);
	a.lo = 0;
	vc_node *x = im->ts[t->pad_src].node;
	return t->node = vc_build(im->m, VC_OP_PAD, &x, 1, &a, t->name);
}

/* x with lo entries before and hi after along IR axis ax mirrored from
 * its edges (REFLECT leaves the edge out, SYMMETRIC repeats it): a
 * concatenation of one-entry slices around x. */
static vc_node *mirror_axis(importer *im, vc_node *x, int ax, int64_t lo, int64_t hi, int symmetric, const char *nm)
{
	int64_t n = x->type.dim[ax];
	vc_node *parts[16];
	int np = 0;
	for (int64_t k = lo; k >= 1; k--) {
		int64_t src = symmetric ? k - 1 : k;
		parts[np++] = crop(im, x, ax, src, n - src - 1, NULL);
	}
	parts[np++] = x;
	for (int64_t k = 1; k <= hi; k++) {
		int64_t src = symmetric ? n - k : n - 1 - k;
		parts[np++] = crop(im, x, ax, src, n - src - 1, NULL);
	}
	for (int k = 0; k < np; k++)
		if (!parts[k])
			return NULL;
	vc_attrs a;
	vc_attrs_init(&a);
	a.axis = ax;
	return np == 1 ? x : vc_build(im->m, VC_OP_CONCAT, parts, np, &a, nm);
}

/* MIRROR_PAD of the rows and columns of 4-D data, at most 7 entries a
 * side and less than the axis (REFLECT) or up to it (SYMMETRIC). */
static vc_node *mirror_pad(importer *im, opctx *cx)
{
	double mode;
	if (one_option(im, cx, O_MIRROR_PAD, 0, 0, &mode))
		return NULL;
	vc_node *x = n_inputs(im, cx, 2, 2) ? NULL : value(im, cx->in[0]);
	int64_t p[4]; /* top, left, bottom, right */
	if (!x || pad_amounts(im, x, cx->in[1], p))
		return NULL;
	if (mode != 0 && mode != 1) {
		op_error(im, "mode %g is neither REFLECT nor SYMMETRIC", mode);
		return NULL;
	}
	int sym = mode == 1;
	for (int k = 0; k < 4; k++) {
		int64_t dim = x->type.dim[2 + k % 2];
		if (p[k] > 7 || p[k] > dim - !sym) {
			op_error(im, "pads %lld entries of an axis of %lld (at most 7, and %s the axis)", (long long)p[k],
				 (long long)dim, sym ? "at most" : "less than");
			return NULL;
		}
	}
	char rn[64];
	snprintf(rn, sizeof rn, "%.56s.rows", cx->nm);
	x = mirror_axis(im, x, 2, p[0], p[2], sym, rn);
	return x ? mirror_axis(im, x, 3, p[1], p[3], sym, cx->nm) : NULL;
}

/* DEPTH_TO_SPACE (TensorFlow's order: output[h*b + i][w*b + j][c] is input
 * channel (i*b + j)*C' + c): [N, b, b, C', H, W], transposed to
 * [N, C', H, b, W, b], reshaped to [N, C', H*b, W*b]. */
static vc_node *depth_to_space(importer *im, opctx *cx)
{
	double bv;
	if (one_option(im, cx, O_DEPTH_TO_SPACE, 0, 0, &bv))
		return NULL;
	int64_t bs = (int64_t)bv;
	vc_node *x = n_inputs(im, cx, 1, 1) ? NULL : value(im, cx->in[0]);
	if (!x)
		return NULL;
	int64_t N = x->type.dim[0], C = x->type.dim[1], H = x->type.dim[2], W = x->type.dim[3];
	if (x->type.rank != 4 || bs < 1 || bs > 64 || C % (bs * bs)) {
		op_error(im, "block_size %lld does not divide the channels of a 4-D input into its square", (long long)bs);
		return NULL;
	}
	char n1[64], n2[64];
	snprintf(n1, sizeof n1, "%.56s.split", cx->nm);
	snprintf(n2, sizeof n2, "%.56s.move", cx->nm);
	int64_t d6[6] = {N, bs, bs, C / (bs * bs), H, W}, perm[6] = {0, 3, 4, 1, 5, 2};
	int64_t d4[4] = {N, C / (bs * bs), H * bs, W * bs};
	vc_node *y = reshape_to(im, x, 6, d6, n1);
	y = y ? permute(im, y, perm, n2) : NULL;
	return y ? reshape_to(im, y, 4, d4, cx->nm) : NULL;
}

/* QUANTIZE and DEQUANTIZE: real values pass unchanged (the compiler
 * quantizes by itself); DEQUANTIZE folds FLOAT16 constants to float. */
static vc_node *identity(importer *im, opctx *cx)
{
	return n_inputs(im, cx, 1, 1) ? NULL : value_of(im, cx->in[0], cx->code == B_DEQUANTIZE);
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

/* Every operator taken, with its importer and how many outputs it may
 * have: the one list import_op dispatches on and the census of unsupported
 * types consults, so the two cannot disagree. */
static const struct op_entry {
	int code;
	vc_node *(*fn)(importer *im, opctx *cx);
	int max_out;
} op_table[] = {
	{B_ADD, binary, 1}, {B_SUB, binary, 1}, {B_MUL, binary, 1}, {B_DIV, binary, 1},
	{B_AVERAGE_POOL_2D, pool, 1}, {B_MAX_POOL_2D, pool, 1},
	{B_CONV_2D, conv, 1}, {B_DEPTHWISE_CONV_2D, conv, 1}, {B_FULLY_CONNECTED, fully_connected, 1},
	{B_CONCATENATION, concatenation, 1},
	{B_LOGISTIC, unary, 1}, {B_RELU, unary, 1}, {B_RELU6, unary, 1}, {B_RELU_N1_TO_1, unary, 1},
	{B_TANH, unary, 1}, {B_HARD_SWISH, unary, 1}, {B_LEAKY_RELU, unary, 1}, {B_PRELU, unary, 1},
	{B_MAXIMUM, min_max, 1}, {B_MINIMUM, min_max, 1},
	{B_RESIZE_NEAREST_NEIGHBOR, resize, 1}, {B_RESIZE_BILINEAR, resize, 1}, {B_MEAN, mean, 1}, {B_SOFTMAX, softmax, 1},
	{B_RESHAPE, reshape, 1}, {B_SQUEEZE, reshape, 1}, {B_EXPAND_DIMS, reshape, 1}, {B_TRANSPOSE, transpose, 1},
	{B_SLICE, slice, 1}, {B_STRIDED_SLICE, strided_slice, 1}, {B_SPLIT, split, MAX_OUTS},
	{B_SPLIT_V, split, MAX_OUTS}, {B_PAD, pad_op, 1}, {B_PADV2, pad_op, 1},
	{B_MIRROR_PAD, mirror_pad, 1}, {B_DEPTH_TO_SPACE, depth_to_space, 1}, {B_QUANTIZE, identity, 1}, {B_DEQUANTIZE, identity, 1},
};

static const struct op_entry *op_entry(int code)
{
	for (size_t k = 0; k < sizeof op_table / sizeof op_table[0]; k++)
		if (op_table[k].code == code)
			return &op_table[k];
	return NULL;
}

/* The output tensors of the operator: in range, produced once, of a float-like type. */
static int outputs(importer *im, const vc_fb_vec *ov, opctx *cx, int max_out)
{
	if (ov->len < 1 || ov->len > (uint32_t)max_out)
		return op_error(im, "has %u outputs (%s expected)", ov->len, max_out == 1 ? "1" : "1 to 16");
	cx->n_out = (int)ov->len;
	for (int k = 0; k < cx->n_out; k++) {
		int o = cx->out[k] = vc_fb_vec_i32(&im->fb, ov, (uint32_t)k);
		if (o < 0 || o >= im->nt)
			return op_error(im, "output %d refers to tensor %d of %d", k, o, im->nt);
		tensor *t = &im->ts[o];
		if (t->node || t->producer >= 0 || t->pad_op >= 0)
			return op_error(im, "output tensor %d '%s' is produced twice", o, t->name);
		if (!float_like(t->type))
			return op_error(im, "output tensor %d '%s' has type %s, which is not supported", o, t->name,
					type_name(t->type));
	}
	return 0;
}

/* The builtin code of an operator code table (the larger of the deprecated
 * 8-bit field and the extended one). */
static int builtin_code(vc_fb *fb, const vc_fb_table *ct)
{
	int code = vc_fb_i8(fb, ct, OPCODE_DEPRECATED_BUILTIN, 0), code2 = vc_fb_i32(fb, ct, OPCODE_BUILTIN, 0);
	return code2 > code ? code2 : code;
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
	opctx cx = {.op = op, .code = builtin_code(fb, &ct)};
	char buf[64], cname[64];
	im->opn = op_name(cx.code, buf, sizeof buf);
	if (cx.code == 32) {
		vc_fb_string(fb, &ct, OPCODE_CUSTOM, cname, sizeof cname);
		return op_error(im, "custom operator '%s' is not supported", cname);
	}
	const struct op_entry *e = op_entry(cx.code);
	if (!e)
		return op_error(im, "operator %s is not supported", im->opn);
	vc_fb_vec iv = vc_fb_vector(fb, op, OP_INPUTS, 4), ov = vc_fb_vector(fb, op, OP_OUTPUTS, 4);
	if (fb->bad)
		return fb_error(im, "its tensor lists");
	if (iv.len > 8)
		return op_error(im, "has %u inputs", iv.len);
	cx.n_in = (int)iv.len;
	for (int k = 0; k < cx.n_in; k++)
		cx.in[k] = vc_fb_vec_i32(fb, &iv, (uint32_t)k);
	for (int k = 0; k < cx.n_in; k++)
		if (cx.in[k] >= im->nt || (cx.in[k] < 0 && !(k == 2 && cx.in[k] == -1)))
			return op_error(im, "input %d refers to tensor %d of %d", k, cx.in[k], im->nt);
	if (vc_fb_has(fb, op, OP_CUSTOM_OPTIONS))
		return op_error(im, "custom options are not supported");
	if (outputs(im, &ov, &cx, e->max_out))
		return -1;
	char nm[64];
	snprintf(nm, sizeof nm, "%s", im->ts[cx.out[0]].name);
	cx.nm = nm;
	cx.res[0] = e->fn(im, &cx);
	if (cx.deferred) {
		im->ts[cx.out[0]].producer = im->op;
		return 0;
	}
	for (int k = 0; k < cx.n_out; k++) {
		if (!cx.res[k]) {
			if (!im->m->diag.count)
				op_error(im, "could not be imported");
			return -1;
		}
		if (check_shape(im, cx.out[k], cx.res[k]))
			return -1;
		im->ts[cx.out[k]].node = cx.res[k];
		im->ts[cx.out[k]].producer = im->op;
	}
	return 0;
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
		int code = builtin_code(&fb, &ct);
		if (op_entry(code))
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
		if (i >= 0 && i < im.nt && !im.ts[i].node && im.ts[i].pad_op >= 0 && !materialize_pad(&im, &im.ts[i]))
			goto done;
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
