/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One pass type and one pass manager for every IR level (graph, kernel,
 * stream):
 *
 *   pass.c      anchor names, pass instances: options and
 *               statistics (what pass code calls)
 *   manager.c   pipeline text (parse, canonical print), the pass manager and
 *               its instruments
 *   registry.c  every pass of the compiler and the named pipelines
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

typedef enum vc_opt_kind { VC_OPT_INT, VC_OPT_FLOAT, VC_OPT_BOOL, VC_OPT_STRING } vc_opt_kind;

typedef struct vc_opt_decl {
	const char *name;
	vc_opt_kind kind;
	const char *def; /* default, as text */
	const char *help;
} vc_opt_decl;

#define VC_MAX_OPTS 12
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
/* The passes of a pipeline in order, and keeping only passes [from, to)
 * (the driver's --emit-ir and `vta opt --passes=default`). */
int vc_pm_length(const vc_pm *pm);
const vc_pass_desc *vc_pm_desc(const vc_pm *pm, int i);
void vc_pm_keep(vc_pm *pm, int from, int to);
/* Append an instance of a pass that need not be registered (its defaults;
 * tests use it for deliberately broken passes). */
int vc_pm_append(vc_pm *pm, const vc_pass_desc *d, char *err, size_t n);
/* Option accessors for pass code (by declared name). */
int64_t vc_opt_int(const vc_pass *p, const char *name);
double vc_opt_float(const vc_pass *p, const char *name);
const char *vc_opt_str(const vc_pass *p, const char *name);
void vc_stat_add(vc_pass *p, const char *name, int64_t v);

extern const char *const vc_default_pipeline;

/* pass.c: a pass instance with its declared defaults; one option from text
 * (message in err on failure). */
int vc_pass_init(vc_pass *p, const vc_pass_desc *d, char *err, size_t n);
int vc_pass_set_opt(vc_pass *p, int i, const char *text, char *err, size_t n);
int vc_pass_opt_index(const vc_pass_desc *d, const char *name);

/* registry.c */
const vc_pass_desc *vc_pass_lookup(const char *name);
int vc_pass_count(void);
const vc_pass_desc *vc_pass_at(int i);
/* The text of a named pipeline ("vta-default", "float"), or NULL. */
const char *vc_pipeline_named(const char *name);

#endif /* VC_PASS_H */
