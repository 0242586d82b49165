/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vc: the VTA compiler. One internal header, one banner per source file, in
 * the order the compiler runs:
 *
 *   ir.c        graph IR: types computed at construction, ordered SSA with
 *               use lists, printer, verifier, diagnostics
 *   ref.c       reference kernels (float and int8): the CPU fallback and the
 *               oracle for every lowered op
 *   interp.c    runs a graph on the CPU with the reference kernels
 *   onnx.c      ONNX import (protobuf-c)
 *   pass.c      the pass type, registry, pipeline text, pass manager and
 *               instruments (every IR level)
 *   gpasses.c   graph passes: canonicalize, fold-bn, fold-const, quantize,
 *               partition, pack, fuse
 *   kpasses.c   kernel and stream passes: tile, lower, tokens, emit
 *   artifact.c  the .vtam file and running it through the runtime
 *   cli.c       `vta compile` and `vta run`
 *
 * Memory: every IR object belongs to its module and is allocated from the
 * module's arena (vc_alloc); vc_module_free releases all of it at once.
 * Errors: functions return 0 or -1 and record a diagnostic naming the node,
 * op and source name; nothing here asserts or exits.
 */
#ifndef VC_H
#define VC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <vta/isa.h>
#include <vta/util.h>
#include <vta/vta_config.h>

/* ------------------------------------------------------------------ ir.c */

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
	VC_OP_QUANTIZE,   /* float -> int8 at type.exp (round half away, clip +-127) */
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
} vc_attrs;

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
} vc_module;

vc_module *vc_module_new(void);
void vc_module_free(vc_module *m);
void *vc_alloc(vc_module *m, size_t bytes); /* zeroed; NULL when out of memory */
char *vc_strdup(vc_module *m, const char *s);
vc_target vc_target_default(void);

/* Record a diagnostic (first one wins the message, all are counted). */
int vc_error(vc_module *m, const vc_node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Put prefix in front of the recorded diagnostic. */
void vc_error_prefix(vc_module *m, const char *prefix);

const char *vc_op_name(vc_op op);
const char *vc_dtype_name(vc_dtype t);
int64_t vc_type_elems(const vc_type *t);
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

void vc_print_graph(FILE *f, const vc_module *m);
int vc_verify(vc_module *m); /* 0 if the module is well formed */
uint64_t vc_hash_module(const vc_module *m);

/* ----------------------------------------------------------------- ref.c */

/* A tensor on the host: a type and its data. */
typedef struct vc_tensor {
	vc_type t;
	void *data;
	int owned;
} vc_tensor;

int vc_tensor_alloc(vc_tensor *x, const vc_type *t);
void vc_tensor_free(vc_tensor *x);

/*
 * Run one op on host tensors: out is allocated with the node's type. in[] are
 * the input tensors in node order. Returns 0, or -1 with m's diagnostic set.
 */
int vc_ref_run(vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out);

/* Rounding of quantize and requantize (shared with the lowering). */
int8_t vc_quantize_value(float x, int exp);
int32_t vc_requant_value(int32_t acc, int shift, int64_t lo, int64_t hi);

/* -------------------------------------------------------------- interp.c */

/* A hook that runs VTA_CONV nodes somewhere else (the device). */
typedef int (*vc_vta_hook)(void *ctx, vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out);

/* Run the entry graph: inputs in graph-input order, outputs allocated. If
 * stats is non-NULL it receives, per node id, the largest |value| seen and
 * the largest positive value (calibration). */
typedef struct vc_range {
	float absmax, posmax;
} vc_range;
int vc_interp(vc_module *m, const vc_tensor *inputs, vc_tensor *outputs, vc_range *stats, vc_vta_hook hook,
	      void *hook_ctx);

/* ---------------------------------------------------------------- onnx.c */

/* Import an ONNX model (file or bytes). Unsupported ops, attributes and
 * dtypes are named in the diagnostic. */
int vc_import_onnx_file(vc_module *m, const char *path);
int vc_import_onnx_bytes(vc_module *m, const uint8_t *bytes, size_t len);
/* Read an ONNX TensorProto file (conformance tests) as a float tensor. */
int vc_read_tensor_pb(vc_module *m, const char *path, vc_tensor *out);

/* ---------------------------------------------------------------- pass.c */

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

typedef enum vc_anchor {
	VC_ANCHOR_MODULE, /* the whole module */
	VC_ANCHOR_GRAPH,  /* the entry graph function */
	VC_ANCHOR_KERNEL, /* each kernel function in turn */
	VC_ANCHOR_STREAM, /* the instruction-stream unit */
} vc_anchor;
const char *vc_anchor_name(vc_anchor a);

typedef enum vc_opt_kind { VC_OPT_INT, VC_OPT_FLOAT, VC_OPT_BOOL, VC_OPT_STRING } vc_opt_kind;

typedef struct vc_opt_decl {
	const char *name;
	vc_opt_kind kind;
	const char *def; /* default, as text */
	const char *help;
} vc_opt_decl;

#define VC_MAX_OPTS 8
#define VC_MAX_STATS 8

/* Option values of one pass instance (parsed and validated). */
typedef struct vc_opts {
	int set[VC_MAX_OPTS]; /* given explicitly in the pipeline text */
	int64_t i[VC_MAX_OPTS];
	double f[VC_MAX_OPTS];
	char s[VC_MAX_OPTS][256];
} vc_opts;

typedef struct vc_pass vc_pass;

/* The unit a pass runs on: the module plus, for kernel passes, one kernel. */
typedef struct vc_unit {
	vc_anchor anchor;
	vc_kernel *kernel; /* VC_ANCHOR_KERNEL */
	int index;
} vc_unit;

/* The one pass type: a static descriptor. */
typedef struct vc_pass_desc {
	const char *name, *summary;
	vc_anchor anchor;
	uint64_t requires_props, provides_props, invalidates_props;
	vc_opt_decl opts[VC_MAX_OPTS];
	const char *stats[VC_MAX_STATS];
	/* 0 on success; -1 with a diagnostic in m->diag. */
	int (*run)(vc_pass *p, vc_module *m, vc_unit *u);
} vc_pass_desc;

/* An instance in a pipeline: its options and statistics. */
struct vc_pass {
	const vc_pass_desc *desc;
	vc_opts o;
	int64_t stat[VC_MAX_STATS];
	double seconds;
};

const vc_pass_desc *vc_pass_lookup(const char *name);
int vc_pass_count(void);
const vc_pass_desc *vc_pass_at(int i);

typedef struct vc_pm vc_pm;

/* Instruments (all optional). */
typedef struct vc_instr {
	int verify_each;
	int time_passes;
	int stats;
	const char *print_before; /* pass name, or "all" */
	const char *print_after;
	const char *reproducer;   /* file written when a pass fails */
	const char *repro_context; /* "key: value" lines the driver adds to it
				    * (model, calib, calib-count) so that
				    * `vta compile --replay=FILE` re-runs it */
	FILE *out;                /* where reports go (stderr if NULL) */
} vc_instr;

/* Parse pipeline text; NULL with a message in err on failure. Names of
 * registered pipelines ("vta-default") expand to their text. */
vc_pm *vc_pm_parse(const char *text, char *err, size_t n);
void vc_pm_free(vc_pm *pm);
/* The canonical text of a pipeline (round-trips through vc_pm_parse). */
int vc_pm_print(const vc_pm *pm, char *buf, size_t n);
int vc_pm_run(vc_pm *pm, vc_module *m, const vc_instr *instr);
/* Option accessors for pass code (by declared name). */
int64_t vc_opt_int(const vc_pass *p, const char *name);
double vc_opt_float(const vc_pass *p, const char *name);
const char *vc_opt_str(const vc_pass *p, const char *name);
void vc_stat_add(vc_pass *p, const char *name, int64_t v);

extern const char *const vc_default_pipeline;

/* ------------------------------------------------------------ kpasses.c */

/* Kernel IR: a fused VTA kernel, its tiling, and its instructions. */
enum { VC_ARG_INP, VC_ARG_WGT, VC_ARG_BIAS, VC_ARG_OUT, VC_ARG_UOP, VC_ARG_RES, VC_NARGS };

/* SRAM resources tracked by the token pass (buffer halves for ping-pong). */
enum { VC_RES_INP0, VC_RES_INP1, VC_RES_WGT0, VC_RES_WGT1, VC_RES_ACC0, VC_RES_ACC1, VC_RES_UOP, VC_NRES };

typedef struct vc_kinsn {
	vta_insn_t insn;  /* dram_base is relative to arg `arg` (elements) */
	int arg;          /* VC_ARG_* for LOAD/STORE, -1 otherwise */
	uint32_t reads, writes; /* masks of VC_RES_* */
} vc_kinsn;

typedef struct vc_tiling {
	int th;    /* output rows per tile */
	int tco;   /* output-channel blocks per tile */
	int tci;   /* input-channel blocks per reduction step */
	int pingpong; /* 1: two halves per buffer */
} vc_tiling;

struct vc_kernel {
	int id;
	vc_node *node;  /* the VTA_CONV node it implements */
	vc_tiling tile;
	int tiled;
	int n, cap;
	vc_kinsn *code;
	int n_uops, cap_uops;
	uint32_t *uops; /* the kernel's micro-ops, as loaded from DRAM */
	/* emitted placement */
	int64_t insn_off;  /* byte offset of the instruction stream in the arena */
	int64_t insn_count;
	int64_t uop_off;
	int64_t macs;
};

/* The stream unit: the device memory image. */
struct vc_stream {
	uint8_t *image;   /* device arena contents (weights, uops, instructions) */
	int64_t size;     /* bytes of the arena (>= image data) */
	int64_t used;
};

/* The shape of a convolution as the VTA sees it (blocks of the target). */
typedef struct vc_geom {
	int64_t nb, cib, h, w;  /* input: batch blocks, channel blocks, rows, columns */
	int64_t cob, kh, kw;    /* output channel blocks, kernel */
	int64_t oh, ow, sh, sw; /* output size, strides */
	int64_t pt, pl, pb, pr; /* padding */
	int res;                /* a residual is added (its tile takes ACC space) */
} vc_geom;
/* Geometry of a QCONV, QDENSE, QCONV_RQ or VTA_CONV node. */
int vc_geom_of(const vc_target *t, const vc_node *n, vc_geom *g);
/* Choose a tiling that fits every SRAM (with ping-pong halves) and the ISA
 * field widths; -1 with the reason in why when none exists. */
int vc_kernel_plan(const vc_target *t, const vc_geom *g, vc_tiling *out, char *why, size_t whyn);

/* ----------------------------------------------------------- artifact.c */

#define VC_VTAM_MAGIC "VTAM"
#define VC_VTAM_VERSION 1

int vc_artifact_write(vc_module *m, const char *path);
int vc_artifact_bytes(vc_module *m, uint8_t **bytes, size_t *len); /* malloc'd */
int vc_artifact_read(vc_module *m, const char *path);
int vc_artifact_parse(vc_module *m, const uint8_t *bytes, size_t len);

/* A loaded artifact bound to a device context. */
typedef struct vc_runner vc_runner;
vc_runner *vc_runner_open(vc_module *m, const char *target, char *err, size_t n);
void vc_runner_close(vc_runner *r);
/* Run one inference; outputs allocated (caller frees with vc_tensor_free). */
int vc_runner_run(vc_runner *r, const vc_tensor *inputs, vc_tensor *outputs);
/* Device counters over the runner's life. */
void vc_runner_stats(vc_runner *r, uint64_t *runs, uint64_t *cycles, uint64_t *gemm_uops);

/* Host-only execution of the same graph (VTA kernels by the int8 reference). */
int vc_simulate(vc_module *m, const vc_tensor *inputs, vc_tensor *outputs);

/* ---------------------------------------------------------------- cli.c */

/* Compile a module already imported: run the pipeline with instruments. */
typedef struct vc_compile_opts {
	const char *pipeline; /* NULL: vta-default */
	vc_instr instr;
	const char *calib_path; /* IDX images or raw float32 */
	int calib_count;
} vc_compile_opts;
int vc_compile(vc_module *m, const vc_compile_opts *o, char *err, size_t n);

/* Datasets of uint8 images with labels: IDX (MNIST: an idx3 image file and
 * an idx1 label file) or CIFAR binary (records of 1 label byte and then
 * channels*rows*cols pixel bytes, channel-planar, row-major: CIFAR-10 is
 * 3x32x32 = 1 + 3072 bytes a record). pixels are per image in CHW order,
 * which is the NCHW layout of a model input. */
typedef struct vc_dataset {
	int count, channels, rows, cols;
	uint8_t *pixels; /* count * channels * rows * cols */
	uint8_t *labels; /* count, or NULL */
} vc_dataset;
typedef enum vc_dataset_format {
	VC_DATASET_AUTO,  /* CIFAR for a *.bin file, IDX otherwise */
	VC_DATASET_IDX,
	VC_DATASET_CIFAR, /* CIFAR-10 binary: 3x32x32 */
} vc_dataset_format;
int vc_dataset_format_parse(const char *s, vc_dataset_format *f); /* "auto", "idx", "cifar" */
int vc_dataset_load_idx(const char *images, const char *labels, vc_dataset *d, char *err, size_t n);
/* CIFAR binary records of channels x rows x cols (3, 32, 32 for CIFAR-10);
 * the file must hold a whole number (> 0) of records. */
int vc_dataset_load_cifar(const char *path, int channels, int rows, int cols, vc_dataset *d, char *err, size_t n);
/* Either format; labels (IDX only) may be NULL. */
int vc_dataset_load(const char *images, const char *labels, vc_dataset_format f, vc_dataset *d, char *err,
		    size_t n);
void vc_dataset_free(vc_dataset *d);

/* Read one input for a model input of type t (float32 NCHW): a raw float32
 * file of exactly the tensor's size, or an image stb_image decodes (PNG, BMP,
 * JPEG, ...; gray or RGB to the model's channels, nearest-neighbour resize,
 * values 0..255). */
int vc_read_input(const char *path, const vc_type *t, float *out, char *err, size_t n);

/* Run the first `count` samples (all if <= 0) of a dataset through a model:
 * through the runner r, or on the host when r is NULL. *correct counts top-1
 * hits when the dataset has labels. show > 0 prints that many predictions
 * (top-k) to out. Returns the samples run, or -1 with the message in err. */
int vc_eval_dataset(vc_module *m, vc_runner *r, const vc_dataset *d, int count, int topk, int show, FILE *out,
		    int *correct, char *err, size_t n);

int vta_cmd_compile(int argc, char **argv);
int vta_cmd_run(int argc, char **argv);

#endif /* VC_H */
