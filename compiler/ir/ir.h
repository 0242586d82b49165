/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The graph IR of the VTA compiler: types computed at construction, ordered
 * SSA nodes with use lists, the module that owns every IR object (graph,
 * kernels, stream) and the diagnostics.
 *
 *   ir.c      arena, diagnostics, names and sizes, type rules, the builder
 *             and the rewiring helpers
 *   print.c   the textual form of a module and its hash
 *   parse.c   the textual form read back (print, parse, print: same bytes)
 *   verify.c  the verifier (--verify-each)
 *   util.c    helpers graph passes share (program-order snapshot, name lists)
 *
 * Memory: every IR object belongs to its module and is allocated from the
 * module's arena (vc_alloc); vc_module_free releases all of it at once.
 * Errors: functions return 0 or -1 and record a diagnostic naming the node,
 * op and source name; nothing here asserts or exits.
 */
#ifndef VC_IR_H
#define VC_IR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <vta/isa.h>
#include <vta/model/fn.h> /* the element functions of UNARY, BINARY, REDUCE */
#include <vta/util.h>
#include <vta/vta_config.h>

typedef enum vc_dtype {
	VC_F32, /* float */
	VC_I8,  /* int8, usually quantized: real = q * 2^exp */
	VC_I32, /* int32 accumulator: real = q * 2^exp */
} vc_dtype;

typedef enum vc_layout {
	VC_PLAIN,  /* row-major in the order of the shape (NCHW for images) */
	VC_PACKED, /* VTA blocked layout [N/B][C/BL][H][W][B][BL] (VTA-SPEC 2.6) */
} vc_layout;

#define VC_MAX_RANK 6

/*
 * Bounds on every value's type, checked when a node is built (inputs,
 * constants, inferred results) and when a type is read from a file: a
 * dimension is at most VC_MAX_DIM, a tensor has at most VC_MAX_ELEMS
 * elements (counting only its non-zero dimensions), a quantization exponent
 * lies within +-VC_MAX_EXP. Inside them the shape and exponent arithmetic
 * of type inference cannot overflow.
 */
#define VC_MAX_DIM (INT64_C(1) << 30)
#define VC_MAX_ELEMS (INT64_C(1) << 31)
#define VC_MAX_EXP 1024
/* The most device memory a compiled network may take (its arena): more
 * than any supported board gives one buffer. */
#define VC_MAX_ARENA (INT64_C(1) << 30)

/* The type of a value, computed once when its node is built. */
typedef struct vc_type {
	int rank;
	int64_t dim[VC_MAX_RANK];
	vc_dtype dtype;
	vc_layout layout;
	int quantized; /* 1: integer with a power-of-two scale */
	int exp;       /* real = q * 2^exp when quantized */
} vc_type;

typedef enum vc_op {
	VC_OP_INPUT,     /* graph input */
	VC_OP_CONST,     /* constant tensor (weights, shapes, ...) */
	VC_OP_CONV,      /* x, w[, b]: float convolution, NCHW / OIHW */
	VC_OP_DENSE,     /* x[N,I], w[O,I][, b[O]]: y = x w^T + b */
	VC_OP_MATMUL,    /* a, b: plain matrix product (rank 2) */
	VC_OP_ADD,       /* a + b with numpy broadcasting */
	VC_OP_MUL,       /* a * b with numpy broadcasting */
	VC_OP_RELU,
	VC_OP_CLIP,      /* attrs lo, hi */
	VC_OP_MAXPOOL,
	VC_OP_AVGPOOL,
	VC_OP_GAP,       /* global average pool */
	VC_OP_RESHAPE,   /* attrs shape */
	VC_OP_FLATTEN,   /* attr axis */
	VC_OP_SOFTMAX,   /* attr axis */
	VC_OP_BATCHNORM, /* x, scale, bias, mean, var; attr eps */
	VC_OP_CONCAT,    /* attr axis */
	VC_OP_QUANTIZE,   /* float -> int8 at type.exp (round half away, clip to attrs qlo..qhi) */
	VC_OP_DEQUANTIZE, /* int -> float */
	VC_OP_QCONV,      /* int8 x, int8 w, int32 b -> int32 */
	VC_OP_QDENSE,     /* int8 x, int8 w, int32 b -> int32 */
	VC_OP_REQUANT,    /* int32 -> int8: ADD round, SHR shift, MAX lo, MIN hi */
	VC_OP_QCONV_RQ,   /* fused qconv/qdense + bias [+ residual] + requant (+ relu), int8 -> int8;
			   * optional 4th input: the int8 residual, added at the accumulator
			   * exponent (left shift res_shift) before the requantization */
	VC_OP_PACK,       /* plain int8 NCHW (or NC) -> packed */
	VC_OP_UNPACK,     /* packed -> plain int8 of shape attrs.shape */
	VC_OP_VTA_CONV,   /* fused VTA kernel: packed x, packed w, packed bias[, packed int8 residual] */
	VC_OP_QADD,       /* int32 acc + (int8 residual << res_shift) -> int32 at acc's exponent */
	VC_OP_LEAKY,      /* x >= 0 ? x : x * 2^-leaky: the slope the VTA ALU realizes (VC_LEAKY_SHIFT) */
	VC_OP_UPSAMPLE,   /* nearest neighbour by stride[0] x stride[1]; plain NCHW, f32 or int8 */
	VC_OP_ALIGN,      /* Darknet's shortcut operand: the input brought to shape attrs.shape (see darknet.c) */
	VC_OP_YOLO,       /* x, anchors[n,2]: logistic on x, y, objectness and classes (axis = classes) */
	VC_OP_PAD,        /* 4-D plain: pad rows/columns (attrs pad) with the real value attrs lo */
	VC_OP_SIGMOID,    /* 1 / (1 + e^-x), plain f32 (host) */
	VC_OP_TRANSPOSE,  /* plain, any rank: dimension i of the result is attrs shape[i] of x */
	VC_OP_SLICE,      /* plain, any rank: x along attrs axis without attrs pad[0] elements at
			   * the start and pad[2] at the end (a crop, the inverse of a pad) */
	VC_OP_RESIZE,     /* plain 4-D f32 (host): rows and columns resampled to attrs shape by
			   * attrs resize_mode, resize_coord, resize_round and scale (ONNX Resize) */
	VC_OP_UNARY,      /* plain f32 (host): attrs fn (VTA_FN_EXP ..., <vta/model/fn.h>) of each element */
	VC_OP_BINARY,     /* plain f32 (host): a fn b (VTA_FN_DIV ...) with numpy broadcasting */
	VC_OP_REDUCE,     /* plain f32 (host): fn (VTA_FN_SUM ...) over the axes of the mask attrs
			   * axes, kept as 1s with attrs keepdims */
	VC_OP_COUNT
} vc_op;

/* Attributes: one wide struct, each op reads the fields it needs. */
typedef struct vc_attrs {
	int64_t kernel[2], stride[2], dilation[2];
	int64_t pad[4]; /* top, left, bottom, right */
	int64_t group;
	int64_t axis;
	int ceil_mode, count_include_pad;
	int coerce2d;   /* SOFTMAX before opset 13: flatten to 2-D at axis */
	int exp;        /* QUANTIZE, REQUANT, VTA_CONV: exponent of the result */
	double lo, hi, eps;
	int nshape;
	int64_t shape[VC_MAX_RANK];
	/* requantization (REQUANT, VTA_CONV) */
	int shift;     /* arithmetic right shift (negative: left) */
	int relu;      /* lower bound 0 instead of lo */
	int64_t qlo, qhi;
	/* QADD, and QCONV_RQ / VTA_CONV with a residual: left shift that brings
	 * the int8 residual to the accumulator exponent; computed from the
	 * operand types when the node is built (never stored) */
	int res_shift;
	/* where the value lives in device memory, once emit has placed it */
	int64_t dev_off;
	int kernel_id; /* VTA_CONV: index of its kernel function */
	/* LEAKY, and REQUANT / QCONV_RQ / VTA_CONV with a fused leaky ReLU: the
	 * negative slope is 2^-leaky (0: no leaky ReLU) */
	int leaky;
	/* RESIZE: interpolation, coordinate mapping and nearest rounding
	 * (VC_RESIZE_*, VC_COORD_*, VC_ROUND_*), and the scale of rows and
	 * columns the mapping divides by (out / in unless the model gave one) */
	int resize_mode, resize_coord, resize_round;
	double scale[2];
	/* UNARY, BINARY, REDUCE: the function, its parameters (ELU's alpha ...),
	 * REDUCE's axes (bit d: dimension d) and whether they stay as 1s */
	int fn, axes, keepdims;
	double alpha, beta;
} vc_attrs;

/* The resize choices of ONNX Resize (libvta's VTA_RESIZE_* in graph.h). */
enum { VC_RESIZE_NEAREST, VC_RESIZE_LINEAR };
enum { VC_COORD_HALF_PIXEL, VC_COORD_PYTORCH_HALF_PIXEL, VC_COORD_ALIGN_CORNERS, VC_COORD_ASYMMETRIC,
       VC_COORD_TF_HALF_PIXEL_FOR_NN };
enum { VC_ROUND_PREFER_FLOOR, VC_ROUND_PREFER_CEIL, VC_ROUND_FLOOR, VC_ROUND_CEIL };

/* Darknet's leaky slope 0.1 as the ALU realizes it: one arithmetic shift,
 * slope 2^-3 = 0.125 (docs/compiler.md, "Leaky ReLU"). */
#define VC_LEAKY_SHIFT 3

typedef struct vc_node vc_node;
struct vc_node {
	int id;           /* stable ordinal, in creation order */
	vc_op op;
	char name[64];    /* importer name: the stable identity of the node */
	int n_in;
	vc_node **in;
	int n_users, cap_users;
	vc_node **users;
	vc_type type;
	vc_attrs a;
	void *data;       /* CONST: payload in type.dtype; bytes = vc_type_bytes */
	int on_vta;       /* set by partition */
	int dead;
};

typedef struct vc_graph {
	int n, cap;
	vc_node **nodes;  /* topological program order */
	int n_inputs, n_outputs;
	vc_node *inputs[8], *outputs[8];
	int next_id;
} vc_graph;

/* Diagnostics: collected in the module, printed by the driver. */
typedef struct vc_diag {
	char msg[1024];
	int count;
} vc_diag;

/* The hardware configuration: fixed by the build (vta_config.h). */
typedef struct vc_target {
	int batch, block_in, block_out;
	int inp_depth, wgt_depth, acc_depth, uop_depth;
	uint32_t config_id;
} vc_target;

typedef struct vc_kernel vc_kernel;
typedef struct vc_stream vc_stream;

/* Calibration samples handed to quantize by the driver. */
typedef struct vc_samples {
	int count;
	int64_t elems; /* per sample */
	float *data;
	int synthetic; /* made-up inputs, asked for with --calib=synthetic */
} vc_samples;

typedef struct vc_arena_blk vc_arena_blk;

typedef struct vc_module {
	vc_arena_blk *arena;
	vc_graph *g;        /* the entry graph function */
	vc_node *ip;        /* builder insertion point (NULL: at the end) */
	vc_target target;
	uint64_t props;     /* VC_PROP_* that hold */
	int n_kernels;
	vc_kernel **kernels;
	vc_stream *stream;
	vc_samples calib;
	vc_diag diag;
	/* Optional: told about long steps (calibration samples, layers of a
	 * run); the library never prints, the tool decides whether to. */
	void (*progress)(void *ctx, const char *what, int done, int total);
	void *progress_ctx;
	/* when set (g->next_id entries), vc_interp adds each node's wall seconds
	 * at its id (`vta run --stats`, `vta profile`) */
	double *node_seconds;
} vc_module;

/* IR properties that passes require and provide. */
enum {
	VC_PROP_IMPORTED = 1u << 0,
	VC_PROP_CANONICAL = 1u << 1,
	VC_PROP_BN_FOLDED = 1u << 2,
	VC_PROP_CONST_FOLDED = 1u << 3,
	VC_PROP_QUANTIZED = 1u << 4,
	VC_PROP_PARTITIONED = 1u << 5,
	VC_PROP_PACKED = 1u << 6,
	VC_PROP_FUSED = 1u << 7,
	VC_PROP_TILED = 1u << 8,
	VC_PROP_LOWERED = 1u << 9,
	VC_PROP_TOKENS = 1u << 10,
	VC_PROP_EMITTED = 1u << 11,
	VC_PROP_COUNT_ = 12
};
const char *vc_prop_name(int bit);

vc_module *vc_module_new(void);
void vc_module_free(vc_module *m);
void *vc_alloc(vc_module *m, size_t bytes); /* zeroed; NULL when out of memory */
/* Move from's arena blocks into m's (from: a thread's view of m, see
 * compiler/pass/manager.c). */
void vc_arena_adopt(vc_module *m, vc_module *from);
char *vc_strdup(vc_module *m, const char *s);
vc_target vc_target_default(void);

/* Record a diagnostic (first one wins the message, all are counted). */
int vc_error(vc_module *m, const vc_node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Put prefix in front of the recorded diagnostic. */
void vc_error_prefix(vc_module *m, const char *prefix);

const char *vc_op_name(vc_op op);
const char *vc_dtype_name(vc_dtype t);
int64_t vc_type_elems(const vc_type *t);
/* Multiply-accumulates of a node as the network defines it (channels not
 * padded; a VTA kernel's as lowered); 0 for nodes that do none (util.c). */
int64_t vc_node_macs(const vc_module *m, const vc_node *n);
int vc_type_check(const vc_type *t); /* 0 if t is inside the bounds above */
size_t vc_type_bytes(const vc_type *t);
size_t vc_dtype_size(vc_dtype t);
int vc_type_equal(const vc_type *a, const vc_type *b);
int vc_type_str(const vc_type *t, char *buf, size_t n);

/*
 * The builder: create a node and compute its type from its inputs and
 * attributes. An ill-typed node is refused: NULL plus a diagnostic. The node
 * is inserted before g's insertion point (vc_set_insert_before), or at the end.
 */
vc_node *vc_build(vc_module *m, vc_op op, vc_node *const *in, int n_in, const vc_attrs *a, const char *name);
vc_node *vc_input(vc_module *m, const char *name, vc_dtype dt, int rank, const int64_t *dim);
vc_node *vc_const(vc_module *m, const char *name, vc_dtype dt, int rank, const int64_t *dim, const void *data);
void vc_set_insert_before(vc_module *m, vc_node *before); /* NULL: at the end */
void vc_attrs_init(vc_attrs *a);

/* Rewiring that keeps the use lists right. */
void vc_replace_all_uses(vc_module *m, vc_node *old, vc_node *with);
void vc_set_input(vc_module *m, vc_node *n, int i, vc_node *v);
void vc_remove_dead(vc_module *m); /* drop nodes without users (outputs kept) */
int vc_retype(vc_module *m, vc_node *n); /* recompute a node's type after its inputs changed */

/* print.c: the module as text (docs/passes.md, "Textual IR"). Full text
 * parses back (vc_parse_module); VC_PRINT_ELIDE shows constants of more
 * than 32 bytes by their size only (for reading, not parseable). */
enum { VC_PRINT_ELIDE = 1 };
void vc_print_module(FILE *f, const vc_module *m, unsigned flags);
void vc_print_graph(FILE *f, const vc_module *m); /* elided */
void vc_print_quoted(FILE *f, const char *s);
uint64_t vc_hash_module(const vc_module *m);

/* parse.c: text printed by vc_print_module into m, a module fresh from
 * vc_module_new. -1 with a diagnostic "NAME:LINE:COL: what" on bad input
 * (name: the file, for messages). */
int vc_parse_module(vc_module *m, const char *name, const char *text, size_t len);

/* verify.c */
int vc_verify(vc_module *m); /* 0 if the module is well formed */

/* util.c: helpers for passes that rewrite the graph. */
/* A copy of the node order (arena-allocated), so a pass can insert while it walks. */
vc_node **vc_snapshot(vc_module *m, int *n);
/* v's only user is u. */
int vc_only_user(const vc_node *v, const vc_node *u);
/* Is n named in the ':'-separated list (names or node ids)? */
int vc_listed(const char *list, const vc_node *n);
/* Every name in a ':' list names a node (typos are errors), else -1 with a
 * diagnostic naming the pass and the option. */
int vc_check_list(vc_module *m, const char *pass, const char *opt, const char *list, vc_node **nodes, int count);

#endif /* VC_IR_H */
