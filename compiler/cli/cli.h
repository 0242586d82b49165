/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compiler driver and the commands:
 *
 *   driver.c   vc_compile (calibration samples + pipeline), shared by both
 *              commands below, vc_write_ir, vc_emit_level
 *   guard.c    the crash guard of both (--reproducer)
 *   compile.c  `vta compile`
 *   opt.c      `vta opt`: textual IR in, a pipeline, IR or an artifact out
 *   run.c      evaluation of a dataset and `vta run`
 *   args.c     option parsing shared by the commands
 *   nocompiler.c  the two commands in cross builds, where the compiler is left out
 */
#ifndef VC_CLI_H
#define VC_CLI_H

#include <vta/model.h>

#include "artifact/artifact.h"
#include "data/data.h"
#include "pass/pass.h"
#include "pipeline/pipeline.h"
#include "vta/codegen.h"

/* Pixel preprocessing of `vta run` and of calibration in `vta compile`:
 * (pixel * scale - mean[c]) / std[c] (one value, or one a channel). */
typedef struct vc_preproc {
	double scale; /* 0: 1 */
	double mean[4], std[4];
	int n_mean, n_std;
} vc_preproc;
/* --scale, --mean, --std at argv[*i]: 1 taken, 0 not one of them, -1 bad value (printed). */
int vc_preproc_opt(int argc, char **argv, int *i, vc_preproc *p, const char *cmd);
/* x (values of a tensor of type t, NCHW) in place. */
void vc_preproc_apply(const vc_preproc *p, const vc_type *t, float *x);
/* As META lines (scale=, mean=, std=) into buf; "" when p is the identity.
 * 0, or -1 if n is too small. */
int vc_preproc_meta(const vc_preproc *p, char *buf, size_t n);
/* The preprocessing recorded in the .vtam at path (libvta's reading of its
 * META section): 1 found, 0 none, -1 error (err). */
int vc_preproc_recorded(const char *path, vc_preproc *p, char *err, size_t n);

/* Compile a module already imported: run the pipeline with instruments. */
typedef struct vc_compile_opts {
	const char *pipeline; /* NULL: vta-default */
	vc_instr instr;
	const char *calib_path; /* see vc_calib_add; NULL: samples already in m->calib */
	int calib_count;
	int calib_offset_set;   /* 0: a dataset's last calib_count samples (the first are for evaluation) */
	int calib_offset;       /* else: the first sample taken */
	vc_preproc pre;         /* applied to the calibration samples (as `vta run` does to inputs) */
	/* 1: leave out the leading passes whose properties the module has
	 * already (the rest of the pipeline from a parsed module's level) */
	int skip_done;
	/* > 0: stop after the last pass of anchor stop_level - 1 (VC_ANCHOR_*),
	 * for --emit-ir */
	int stop_level;
} vc_compile_opts;
int vc_compile(vc_module *m, const vc_compile_opts *o, char *err, size_t n);

/* Run the first `count` samples (all if <= 0) of a dataset through a model:
 * through libvta's model vm, or on the host by the compiler's reference when
 * vm is NULL (m: the compiler's reading of the same file). *correct counts top-1
 * hits when the dataset has labels. show > 0 prints that many predictions
 * (top-k) to out. Returns the samples run, or -1 with the message in err. */
int vc_eval_dataset(vc_module *m, vta_model_t *vm, const vc_dataset *d, int count, int topk, int show, FILE *out,
		    int *correct, char *err, size_t n);

int vta_cmd_compile(int argc, char **argv);
int vta_cmd_opt(int argc, char **argv);
/* guard.c: with in->reproducer set, the crash guard: a crash in a pass
 * writes the reproducer (signal handlers; for tools only). */
void vc_guard_install(vc_instr *in);
/* The module's full text (parseable) into path; -1 with a message. */
int vc_write_ir(const vc_module *m, const char *path, char *err, size_t n);
/* --emit-ir=graph|kernel|stream as a stop_level (0 and a message if unknown). */
int vc_emit_level(const char *name);
int vta_cmd_run(int argc, char **argv);

/* profile.c: per-layer statistics of a run: the table of `vta run --stats`,
 * its JSON object, and the HTML report of `vta profile` (the table and an
 * SVG timeline per VTA layer from the cycle model's events). */
#define VC_MACS_PER_CYCLE (VTA_BATCH * VTA_BLOCK_IN * VTA_BLOCK_OUT)
typedef struct vc_layer_stats {
	const char *name, *op, *on; /* on: "vta" or "host" */
	int64_t macs;               /* of the layer as the network defines it */
	int64_t cycles;             /* device cycles of its kernel (0 on the host) */
	int64_t load_busy, gemm_busy, alu_busy, store_busy; /* the device's counters */
	double host_ms;             /* host layers: wall time */
	/* the timeline (vta profile): the kernel's instructions and the cycle model's events */
	const vta_insn_t *insns;
	const vc_cost_event *events;
	int n_insns;
	int64_t model_cycles;
	int kernel; /* its kernel, or -1 */
} vc_layer_stats;
/* The layers of a run as libvta reports them (vta_model_stats; names point
 * into its model, which must stay open); m, the compiler's reading of the
 * same file, gives each VTA layer its kernel. Free with vc_stats_free. */
int vc_stats_collect(const vc_module *m, const vta_model_stats_t *st, vc_layer_stats **out, int *n);
/* The cycle model's timeline of kernel k into s (insns, events, model_cycles). */
int vc_stats_timeline(const vc_module *m, int k, const vc_timing *tm, vc_layer_stats *s);
void vc_stats_free(vc_layer_stats *l, int n);
void vc_stats_table(FILE *f, const vc_layer_stats *l, int n);
void vc_stats_json(FILE *f, const vc_layer_stats *l, int n);
int vc_profile_html(FILE *f, const char *title, const char *target, const vc_layer_stats *l, int n);
int vta_cmd_profile(int argc, char **argv);

/* args.c: --opt=value or --opt value; NULL if argv[*i] is not that option. */
const char *vc_take_opt(int argc, char **argv, int *i, const char *name);
/* --verify-each --verify-analyses --time-passes --stats --print-ir-before/after
 * --reproducer into in; 1 if argv[*i] was one of them. */
int vc_instr_opt(int argc, char **argv, int *i, vc_instr *in);
/* Progress for vc_module.progress: "\rwhat: done/total" on stderr (the
 * commands install it only when stderr is a terminal). */
void vc_tty_progress(void *ctx, const char *what, int done, int total);

/* The --help text of each command (options and an example). */
extern const char vta_compile_usage[], vta_run_usage[], vta_opt_usage[];

#endif /* VC_CLI_H */
