/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One pass type and one pass manager for every IR level (graph, kernel,
 * stream):
 *
 *   pass.c      anchor names, pass instances: options and
 *               statistics (what pass code calls), the pass list
 *   manager.c   pipeline text (parse, canonical print), the pass manager and
 *               its instruments
 *   analysis.c  the analysis manager
 *
 * The manager knows no pass and no analysis: a registry (vc_registry) hands
 * it the passes, the analyses and the named pipelines of a compiler
 * (compiler/pipeline/ for VTA's).
 */
#ifndef VC_PASS_H
#define VC_PASS_H

#include "ir/ir.h"

typedef enum vc_anchor {
	VC_ANCHOR_MODULE, /* the whole module */
	VC_ANCHOR_GRAPH,  /* the entry graph function */
	VC_ANCHOR_KERNEL, /* each kernel function in turn */
	VC_ANCHOR_STREAM, /* the instruction-stream unit */
} vc_anchor;
const char *vc_anchor_name(vc_anchor a);

/* Option kinds. ENUM: one of the decl's choices ("a|b|c"); LIST: items
 * separated by ',' (quote the value in pipeline text: cpu="a,b"). */
typedef enum vc_opt_kind { VC_OPT_INT, VC_OPT_FLOAT, VC_OPT_BOOL, VC_OPT_STRING, VC_OPT_ENUM, VC_OPT_LIST } vc_opt_kind;

typedef struct vc_opt_decl {
	const char *name;
	vc_opt_kind kind;
	const char *def; /* default, as text */
	const char *help;
	const char *choices; /* VC_OPT_ENUM: "a|b|c" */
} vc_opt_decl;

#define VC_MAX_OPTS 16
#define VC_MAX_STATS 8

/* Option values of one pass instance (parsed and validated). */
typedef struct vc_opts {
	int set[VC_MAX_OPTS]; /* given explicitly in the pipeline text */
	int64_t i[VC_MAX_OPTS];
	double f[VC_MAX_OPTS];
	char s[VC_MAX_OPTS][256];
} vc_opts;

typedef struct vc_pass vc_pass;

/* Analyses (analysis.c), cached for one pipeline run: an analysis is an
 * index into its registry's table (at most VC_MAX_ANALYSES). */
#define VC_MAX_ANALYSES 32
#define VC_PRESERVES(a) (1u << (a))
#define VC_PRESERVES_ALL 0xffffffffu
typedef struct vc_am vc_am;

typedef struct vc_analysis_desc {
	const char *name;
	int per_kernel; /* computed per kernel (cached per kernel), else once for the module */
	/* The result as a flat byte array (two computations compare with
	 * memcmp), for kernel m->kernels[kernel] or the module (kernel -1);
	 * NULL when out of memory. */
	void *(*compute)(vc_module *m, int kernel, size_t *bytes);
} vc_analysis_desc;

/* The unit a pass runs on: the module plus, for kernel passes, one kernel. */
typedef struct vc_unit {
	vc_anchor anchor;
	vc_kernel *kernel; /* VC_ANCHOR_KERNEL */
	int index;
	vc_am *am; /* the run's analyses: vc_analysis_get(u->am, m, id, u->index, &bytes) */
} vc_unit;

/* The one pass type: a static descriptor. */
typedef struct vc_pass_desc {
	const char *name, *summary;
	vc_anchor anchor;
	uint64_t requires_props, provides_props, invalidates_props;
	uint32_t preserves; /* VC_PRESERVES bits of the analyses it leaves valid (default: none) */
	/* Safe to run on several kernels at once: it reads the module (graph,
	 * target, other kernels), writes only its unit's kernel, allocates and
	 * reports only through the module it is given (vc_alloc, vc_error),
	 * and asks only for kernel analyses of its own kernel. */
	int parallel;
	vc_opt_decl opts[VC_MAX_OPTS];
	const char *stats[VC_MAX_STATS];
	/* 0 on success; -1 with a diagnostic in m->diag. */
	int (*run)(vc_pass *p, vc_module *m, vc_unit *u);
} vc_pass_desc;

/* An instance in a pipeline: its options and statistics. Consecutive
 * passes with the same group form one anchor(...) group of the text; the
 * passes of a kernel group run as a pipeline on each kernel in turn. */
struct vc_pass {
	const vc_pass_desc *desc;
	vc_opts o;
	int64_t stat[VC_MAX_STATS];
	double seconds;
	int group;
	vc_anchor group_anchor;
	int bare; /* not written inside an anchor(...) */
};


typedef struct vc_pm vc_pm;
typedef struct vc_instr vc_instr;

/* What an instrument's hooks see: one run of a pass on a unit (done: the
 * end of the pipeline, p and u NULL). */
typedef struct vc_pass_event {
	const vc_pm *pm;
	int index;               /* the pass's position in pm */
	int step;                /* the first pass of its step: its kernel group, or the pass itself */
	int first_run, last_run; /* the step's first / last run (a kernel group: over every kernel) */
	vc_pass *p;
	vc_module *m;
	vc_unit *u;
	vc_am *am;
	const vc_instr *instr;
	FILE *out; /* where reports go */
	int rc;    /* done: 0, or -1 when the pipeline failed */
	double seconds; /* done: the pipeline's wall time */
} vc_pass_event;

/* An instrument: hooks around every run of a pass on a unit (all optional).
 * before runs before the pass; after when it returned 0, and may fail it
 * (-1 with a message in e->m: a check); failed when the pass or an after
 * hook failed (the message is in e->m->diag); done once at the end. The
 * manager calls the instruments in a list (the built-ins, then the
 * caller's, then the timer): before in list order, after and failed in the
 * reverse order. */
typedef struct vc_instrument {
	const char *name;
	void *ctx;
	void (*before)(void *ctx, const vc_pass_event *e);
	int (*after)(void *ctx, const vc_pass_event *e);
	void (*failed)(void *ctx, const vc_pass_event *e);
	void (*done)(void *ctx, const vc_pass_event *e);
	/* Needs only the step's first before, last after, failed and done (the
	 * reproducer, statistics): kernel groups may then run on threads, these
	 * hooks called from the calling thread. Any other instrument keeps
	 * kernel groups sequential. */
	int step_only;
} vc_instrument;

/* The instruments of a run: built-in ones by flag (all optional; manager.c)
 * and the caller's own. */
struct vc_instr {
	int verify_each;
	int verify_analyses; /* recompute every cached analysis after each pass; a stale one fails */
	int time_passes;
	int stats;
	const char *print_before; /* pass name, or "all" */
	const char *print_after;
	int print_after_change;   /* print the unit after a pass only when its IR text changed */
	const char *reproducer;   /* file written when a pass fails */
	const char *repro_context; /* "key: value" lines the driver adds to it
				    * (model, calib, calib-count) so that
				    * `vta compile --replay=FILE` re-runs it */
	FILE *out;                /* where reports go (required by print, stats, time) */
	const vc_instrument *instruments; /* the caller's, after the built-ins */
	int n_instruments;
	/* Kernel groups whose passes are all .parallel run on this many threads
	 * (0, 1: one after the other) when every instrument is step_only. */
	int threads;
	/* The crash guard (with a reproducer): called before each step (a pass
	 * or a kernel group) with the reproducer text to write should it crash,
	 * and with NULL after it (cli/opt.c writes it from a signal handler). */
	void *hook_ctx;
	void (*guard)(void *ctx, const char *repro, size_t len);
};

/* What a compiler hands the manager: its passes, its analyses (the
 * index in the table is the analysis id) and its named pipelines. */
typedef struct vc_pipeline_name {
	const char *name, *text;
} vc_pipeline_name;
typedef struct vc_registry {
	const vc_pass_desc *const *passes;
	int n_passes;
	const vc_analysis_desc *analyses;
	int n_analyses;
	const vc_pipeline_name *pipelines;
	int n_pipelines;
} vc_registry;
const vc_pass_desc *vc_registry_pass(const vc_registry *r, const char *name);
/* The text of a named pipeline of r, or NULL. */
const char *vc_registry_pipeline(const vc_registry *r, const char *name);

/* Parse pipeline text against registry r; NULL with a message in err on
 * failure. Names of r's pipelines expand to their text. */
vc_pm *vc_pm_parse_in(const vc_registry *r, const char *text, char *err, size_t n);
void vc_pm_free(vc_pm *pm);
/* The canonical text of a pipeline (round-trips through vc_pm_parse). */
int vc_pm_print(const vc_pm *pm, char *buf, size_t n);
int vc_pm_run(vc_pm *pm, vc_module *m, const vc_instr *instr);
/* The passes of a pipeline in order, and keeping only passes [from, to)
 * (the driver's --emit-ir and `vta opt --passes=default`). */
int vc_pm_length(const vc_pm *pm);
const vc_pass_desc *vc_pm_desc(const vc_pm *pm, int i);
void vc_pm_keep(vc_pm *pm, int from, int to);
/* Append an instance of a pass that need not be registered (its defaults;
 * tests use it for deliberately broken passes). */
int vc_pm_append(vc_pm *pm, const vc_pass_desc *d, char *err, size_t n);
/* Option accessors for pass code (by declared name). */
int64_t vc_opt_int(const vc_pass *p, const char *name); /* also ENUM: the choice's index */
double vc_opt_float(const vc_pass *p, const char *name);
const char *vc_opt_str(const vc_pass *p, const char *name);
void vc_stat_add(vc_pass *p, const char *name, int64_t v);
/* VC_OPT_LIST: the number of items, and item i into buf (0, or -1 if absent). */
int vc_opt_list_count(const vc_pass *p, const char *name);
int vc_opt_list_item(const vc_pass *p, const char *name, int i, char *buf, size_t n);
/* `vta opt --list-passes`: every pass of r (level, properties, options,
 * statistics) and its named pipelines. */
void vc_pass_list_in(const vc_registry *r, FILE *f);

/* pass.c: a pass instance with its declared defaults; one option from text
 * (message in err on failure). */
int vc_pass_init(vc_pass *p, const vc_pass_desc *d, char *err, size_t n);
int vc_pass_set_opt(vc_pass *p, int i, const char *text, char *err, size_t n);
int vc_pass_opt_index(const vc_pass_desc *d, const char *name);

/* analysis.c: the result of an analysis, computed now unless cached: a
 * module analysis (kernel ignored) or that of kernel m->kernels[kernel];
 * NULL when out of memory or out of range. */
const void *vc_analysis_get(vc_am *am, vc_module *m, int id, int kernel, size_t *bytes);
/* The manager's side: the analyses of registry r. */
vc_am *vc_am_new(const vc_registry *r);
void vc_am_free(vc_am *am);
void vc_am_compute_all(vc_am *am, vc_module *m);
/* After pass d ran (on kernel index `kernel`, or on the module: -1): drop
 * what it does not preserve: the module analyses (VC_AM_MODULE) and the
 * kernel analyses (VC_AM_KERNELS) of that kernel only, or of every kernel. */
#define VC_AM_MODULE 1u
#define VC_AM_KERNELS 2u
void vc_am_invalidate(vc_am *am, vc_module *m, const vc_pass_desc *d, int kernel, unsigned what);
/* The per-kernel slots made before kernel passes run on threads (each
 * thread then touches only its kernels' slots); -1 when out of memory. */
int vc_am_prepare(vc_am *am, vc_module *m);
/* Recompute every cached analysis d preserves; -1 (message in m) on a stale one. */
int vc_am_verify(vc_am *am, vc_module *m, const vc_pass_desc *d);
/* Cache misses of an analysis so far (--stats). */
int64_t vc_am_computed(const vc_am *am, int id);

#endif /* VC_PASS_H */
