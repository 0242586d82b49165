/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One pass type and one pass manager for every IR level (graph, kernel,
 * stream). A pass is a static descriptor (vc_pass_desc): its anchor, the
 * properties it requires, provides and invalidates, typed options and named
 * statistics. Pipelines are text:
 *
 *   pipeline := item (',' item)*
 *   item     := anchor '(' pipeline ')' | pass-name ['{' opt (',' opt)* '}']
 *   anchor   := 'module' | 'graph' | 'kernel' | 'stream'
 *   opt      := name '=' value
 *
 * and print back in a canonical form that parses to the same pipeline.
 * The manager checks requirements before anything runs, iterates kernel
 * passes over every kernel, and runs the instruments: --verify-each,
 * --time-passes, --print-ir-before/after, --stats and a reproducer file.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/kernel.h"
#include "pass/pass.h"

/* ---- parsing --------------------------------------------------------- */

struct vc_pm {
	const vc_registry *reg; /* the passes and pipelines its text names */
	int n, cap;
	vc_pass *passes;
};

typedef struct parser {
	const char *s;
	char *err;
	size_t n;
	vc_pm *pm;
	int groups;      /* group ids handed out */
	int group;       /* the explicit anchor(...) group being parsed, or -1 */
	vc_anchor group_anchor;
	int named_depth; /* named pipelines being expanded */
} parser;

static void skip_ws(parser *ps)
{
	while (isspace((unsigned char)*ps->s))
		ps->s++;
}

static int ident(parser *ps, char *out, size_t n)
{
	skip_ws(ps);
	size_t k = 0;
	while (isalnum((unsigned char)*ps->s) || *ps->s == '-' || *ps->s == '_' || *ps->s == '.') {
		if (k + 1 < n)
			out[k++] = *ps->s;
		ps->s++;
	}
	out[k] = 0;
	return k ? 0 : -1;
}

static int anchor_of(const char *name, vc_anchor *a)
{
	for (int i = 0; i <= VC_ANCHOR_STREAM; i++)
		if (!strcmp(name, vc_anchor_name((vc_anchor)i))) {
			*a = (vc_anchor)i;
			return 1;
		}
	return 0;
}

static int parse_list(parser *ps, vc_anchor scope, int depth);
static int parse_text(parser *ps, const char *text, vc_anchor scope, int depth);

int vc_pm_append(vc_pm *pm, const vc_pass_desc *d, char *err, size_t n)
{
	if (pm->n == pm->cap) {
		int nc = pm->cap ? pm->cap * 2 : 16;
		vc_pass *np = realloc(pm->passes, (size_t)nc * sizeof *np);
		if (!np) {
			snprintf(err, n, "out of memory");
			return -1;
		}
		pm->passes = np;
		pm->cap = nc;
	}
	vc_pass *p = &pm->passes[pm->n];
	if (vc_pass_init(p, d, err, n))
		return -1;
	/* a pass of the last group's level joins that group, else starts one
	 * (the parser sets the group of what it parses itself) */
	const vc_pass *q = pm->n ? p - 1 : NULL;
	int next = 0;
	for (int i = 0; i < pm->n; i++)
		if (pm->passes[i].group >= next)
			next = pm->passes[i].group + 1;
	p->group_anchor = d->anchor;
	p->group = q && q->group_anchor == d->anchor ? q->group : next;
	pm->n++;
	return 0;
}

/* item := anchor '(' pipeline ')' | pass ['{' opts '}'] */
static int parse_item(parser *ps, vc_anchor scope, int depth)
{
	char name[64];
	const char *at = ps->s;
	if (ident(ps, name, sizeof name)) {
		snprintf(ps->err, ps->n, "pipeline: expected a pass or anchor name at '%.20s'", at);
		return -1;
	}
	vc_anchor a;
	skip_ws(ps);
	if (anchor_of(name, &a) && *ps->s == '(') {
		if (scope != VC_ANCHOR_MODULE || (a == VC_ANCHOR_MODULE && depth > 0)) {
			snprintf(ps->err, ps->n, "pipeline: %s(...) cannot nest inside %s(...)", name, vc_anchor_name(scope));
			return -1;
		}
		ps->s++;
		int saved = ps->group;
		vc_anchor saved_a = ps->group_anchor;
		if (a != VC_ANCHOR_MODULE) {
			ps->group = ps->groups++;
			ps->group_anchor = a;
		}
		if (parse_list(ps, a, depth + 1))
			return -1;
		ps->group = saved;
		ps->group_anchor = saved_a;
		skip_ws(ps);
		if (*ps->s != ')') {
			snprintf(ps->err, ps->n, "pipeline: missing ')' after %s(...", name);
			return -1;
		}
		ps->s++;
		return 0;
	}
	const vc_pass_desc *d = vc_registry_pass(ps->pm->reg, name);
	const char *named = d ? NULL : vc_registry_pipeline(ps->pm->reg, name);
	if (named) { /* a named pipeline composes like its text */
		if (ps->named_depth > 8) {
			snprintf(ps->err, ps->n, "pipeline: named pipelines nest too deeply at '%s'", name);
			return -1;
		}
		ps->named_depth++;
		int rc = parse_text(ps, named, scope, depth);
		ps->named_depth--;
		if (rc) {
			char inner[400];
			snprintf(inner, sizeof inner, "%s", ps->err);
			snprintf(ps->err, ps->n, "in named pipeline %s: %s", name, inner);
		}
		return rc;
	}
	if (!d) {
		snprintf(ps->err, ps->n, "pipeline: unknown pass '%s'", name);
		return -1;
	}
	if (scope != VC_ANCHOR_MODULE && d->anchor != scope) {
		snprintf(ps->err, ps->n, "pipeline: pass %s runs on %s units, not inside %s(...)", name,
			 vc_anchor_name(d->anchor), vc_anchor_name(scope));
		return -1;
	}
	if (vc_pm_append(ps->pm, d, ps->err, ps->n))
		return -1;
	vc_pass *p = &ps->pm->passes[ps->pm->n - 1];
	if (ps->group >= 0) {
		p->group = ps->group;
		p->group_anchor = ps->group_anchor;
	} else { /* bare passes of one anchor in a row form one group */
		const vc_pass *q = ps->pm->n > 1 ? p - 1 : NULL;
		int same = q && q->bare && q->group_anchor == d->anchor;
		p->group = same ? q->group : ps->groups++;
		p->group_anchor = d->anchor;
		p->bare = 1;
	}
	if (*ps->s != '{')
		return 0;
	ps->s++;
	for (;;) {
		char key[64], val[256];
		if (ident(ps, key, sizeof key)) {
			snprintf(ps->err, ps->n, "pipeline: pass %s: expected an option name", name);
			return -1;
		}
		int i = vc_pass_opt_index(d, key);
		if (i < 0) {
			snprintf(ps->err, ps->n, "pipeline: pass %s has no option '%s'", name, key);
			return -1;
		}
		skip_ws(ps);
		if (*ps->s++ != '=') {
			snprintf(ps->err, ps->n, "pipeline: pass %s: expected '=' after %s", name, key);
			return -1;
		}
		size_t k = 0;
		skip_ws(ps);
		if (*ps->s == '"') { /* quoted: any text, \" and \\ escaped */
			for (ps->s++; *ps->s != '"'; ps->s++) {
				if (!*ps->s) {
					snprintf(ps->err, ps->n, "pipeline: pass %s: option %s: missing '\"'", name, key);
					return -1;
				}
				if (*ps->s == '\\' && (ps->s[1] == '"' || ps->s[1] == '\\'))
					ps->s++;
				if (k + 1 < sizeof val)
					val[k++] = *ps->s;
			}
			ps->s++;
			val[k] = 0;
		} else {
			while (*ps->s && *ps->s != ',' && *ps->s != '}' && k + 1 < sizeof val)
				val[k++] = *ps->s++;
			val[k] = 0;
			while (k > 0 && isspace((unsigned char)val[k - 1]))
				val[--k] = 0;
		}
		if (vc_pass_set_opt(p, i, val, ps->err, ps->n))
			return -1;
		p->o.set[i] = 1;
		skip_ws(ps);
		if (*ps->s == ',') {
			ps->s++;
			continue;
		}
		if (*ps->s == '}') {
			ps->s++;
			return 0;
		}
		snprintf(ps->err, ps->n, "pipeline: pass %s: missing '}'", name);
		return -1;
	}
}

static int parse_list(parser *ps, vc_anchor scope, int depth)
{
	for (;;) {
		if (parse_item(ps, scope, depth))
			return -1;
		skip_ws(ps);
		if (*ps->s != ',')
			return 0;
		ps->s++;
	}
}

/* A whole pipeline text at the current position of the pipeline. */
static int parse_text(parser *ps, const char *text, vc_anchor scope, int depth)
{
	const char *saved = ps->s;
	ps->s = text;
	if (parse_list(ps, scope, depth))
		return -1;
	skip_ws(ps);
	if (*ps->s) {
		snprintf(ps->err, ps->n, "pipeline: unexpected '%.20s'", ps->s);
		return -1;
	}
	ps->s = saved;
	return 0;
}

vc_pm *vc_pm_parse_in(const vc_registry *r, const char *text, char *err, size_t n)
{
	vc_pm *pm = calloc(1, sizeof *pm);
	if (!pm) {
		snprintf(err, n, "out of memory");
		return NULL;
	}
	pm->reg = r;
	parser ps = {.err = err, .n = n, .pm = pm, .group = -1};
	if (parse_text(&ps, text, VC_ANCHOR_MODULE, 0)) {
		vc_pm_free(pm);
		return NULL;
	}
	return pm;
}

void vc_pm_free(vc_pm *pm)
{
	if (!pm)
		return;
	free(pm->passes);
	free(pm);
}

/* An option value as pipeline text: quoted when it holds a character the
 * grammar uses. */
static int needs_quotes(const char *v)
{
	if (!*v)
		return 0;
	for (; *v; v++)
		if (strchr(",{}()\"\\=", *v) || isspace((unsigned char)*v))
			return 1;
	return 0;
}

/* Canonical text of passes [from, to): module(graph(...),kernel(...),...),
 * groups as parsed, explicit options only, numbers in a form strtod reads
 * back exactly. */
static int print_range(const vc_pm *pm, int from, int to, char *buf, size_t n)
{
	size_t k = 0;
#define OUT(...)                                                                  \
	do {                                                                      \
		int w_ = snprintf(buf + k, k < n ? n - k : 0, __VA_ARGS__);       \
		if (w_ > 0)                                                       \
			k += (size_t)w_;                                          \
	} while (0)
	OUT("module(");
	int open = 0;
	for (int i = from; i < to; i++) {
		const vc_pass *p = &pm->passes[i];
		if (i == from || p->group != pm->passes[i - 1].group) {
			if (open)
				OUT(")");
			if (i > from)
				OUT(",");
			open = p->group_anchor != VC_ANCHOR_MODULE;
			if (open)
				OUT("%s(", vc_anchor_name(p->group_anchor));
		} else {
			OUT(",");
		}
		OUT("%s", p->desc->name);
		int first = 1;
		for (int o = 0; o < VC_MAX_OPTS && p->desc->opts[o].name; o++) {
			if (!p->o.set[o])
				continue;
			OUT("%s%s=", first ? "{" : ",", p->desc->opts[o].name);
			first = 0;
			switch (p->desc->opts[o].kind) {
			case VC_OPT_INT:
				OUT("%lld", (long long)p->o.i[o]);
				break;
			case VC_OPT_BOOL:
				OUT("%s", p->o.i[o] ? "true" : "false");
				break;
			case VC_OPT_FLOAT:
				OUT("%.17g", p->o.f[o]);
				break;
			case VC_OPT_STRING:
			case VC_OPT_ENUM:
			case VC_OPT_LIST:
				if (!needs_quotes(p->o.s[o])) {
					OUT("%s", p->o.s[o]);
					break;
				}
				OUT("\"");
				for (const char *c = p->o.s[o]; *c; c++)
					OUT("%s%c", *c == '"' || *c == '\\' ? "\\" : "", *c);
				OUT("\"");
				break;
			}
		}
		if (!first)
			OUT("}");
	}
	if (open)
		OUT(")");
	OUT(")");
#undef OUT
	return k < n ? 0 : -1;
}

int vc_pm_print(const vc_pm *pm, char *buf, size_t n)
{
	return print_range(pm, 0, pm->n, buf, n);
}

/* Keep passes [from, to) only (clamped). */
void vc_pm_keep(vc_pm *pm, int from, int to)
{
	if (to > pm->n)
		to = pm->n;
	if (from < 0)
		from = 0;
	if (to < from)
		to = from;
	memmove(pm->passes, pm->passes + from, (size_t)(to - from) * sizeof *pm->passes);
	pm->n = to - from;
}

int vc_pm_length(const vc_pm *pm)
{
	return pm->n;
}

const vc_pass_desc *vc_pm_desc(const vc_pm *pm, int i)
{
	return i >= 0 && i < pm->n ? pm->passes[i].desc : NULL;
}

/* ---- running --------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int matches(const char *filter, const char *name)
{
	return filter && (!strcmp(filter, "all") || !strcmp(filter, name));
}

static void missing_props(uint64_t need, uint64_t have, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = 0;
	for (int b = 0; b < VC_PROP_COUNT_; b++)
		if ((need & (1ull << b)) && !(have & (1ull << b))) {
			int w = snprintf(buf + k, n - k, "%s'%s'", k ? ", " : "", vc_prop_name(b));
			if (w > 0 && (size_t)w < n - k)
				k += (size_t)w;
		}
}

/*
 * The reproducer of the step [from, ...) that failed or crashed: "key:
 * value" lines `vta compile --replay=FILE` reads (pipeline, and the
 * driver's model, calib, calib-count), `remaining:` (the pipeline from the
 * failing pass or kernel group), the failing pass and its error as
 * comments, then the module before that step in full textual IR, so that
 * `vta opt FILE` runs the remaining pipeline on it.
 */
static char *render_reproducer(const vc_pm *pm, int from, int failed, const char *error, const char *ir,
			       const vc_instr *instr, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	char *text = malloc(65536);
	if (text) {
		vc_pm_print(pm, text, 65536);
		fprintf(f, "# vta compile reproducer: `vta opt FILE` runs the remaining pipeline on the module below;\n"
			   "# `vta compile --replay=FILE -o OUT.vtam` re-runs the whole pipeline from the model\n");
		fprintf(f, "pipeline: %s\n%s", text, instr->repro_context ? instr->repro_context : "");
		print_range(pm, from, pm->n, text, 65536);
		fprintf(f, "remaining: %s\n", text);
		if (instr->verify_each || instr->verify_analyses) /* vta opt FILE turns them on */
			fprintf(f, "instruments:%s%s\n", instr->verify_each ? " --verify-each" : "",
				instr->verify_analyses ? " --verify-analyses" : "");
	}
	fprintf(f, "# failed pass: %s (#%d)\n# error: ", pm->passes[failed].desc->name, failed);
	for (const char *e = error; *e; e++) /* one comment line */
		fputc(*e == '\n' ? ' ' : *e, f);
	fprintf(f, "\n# the module before it:\n%s", ir ? ir : "");
	fclose(f);
	free(text);
	return buf;
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fwrite(text, 1, len, f);
	fclose(f);
}

/* The text of the whole module, or of the unit's kernel (flags: VC_PRINT_ELIDE or 0). */
static char *unit_text(const vc_module *m, const vc_unit *u, unsigned flags)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	if (u && u->anchor == VC_ANCHOR_KERNEL)
		vc_print_kernel(f, u->kernel, flags);
	else
		vc_print_module(f, m, flags);
	fclose(f);
	return buf;
}

static const char *where(const vc_pass_event *e, char *buf, size_t n)
{
	buf[0] = 0;
	if (e->u && e->u->anchor == VC_ANCHOR_KERNEL)
		snprintf(buf, n, " (kernel @k%d)", e->u->kernel->id);
	return buf;
}

/* What --print-ir-before/after/after-change show: the kernel of a kernel
 * pass, else the graph; constants elided. */
static void print_ir(const vc_pass_event *e, const char *when, const char *note)
{
	char w[64];
	fprintf(e->out, "// -----// IR %s %s%s%s //----- //\n", when, e->p->desc->name, where(e, w, sizeof w), note);
	if (e->u->anchor == VC_ANCHOR_KERNEL)
		vc_print_kernel(e->out, e->u->kernel, VC_PRINT_ELIDE);
	else
		vc_print_graph(e->out, e->m);
}

/* ---- the built-in instruments (from vc_instr's flags) ----------------- */

/* --reproducer and the crash guard: the module's text before each step (a
 * pass, or a kernel group over every kernel), handed to the guard to write
 * should the step crash, and written to the file when it fails. */
typedef struct repro_state {
	char *before;
} repro_state;

static void repro_before(void *ctx, const vc_pass_event *e)
{
	repro_state *r = ctx;
	if (!e->first_run)
		return;
	free(r->before);
	r->before = unit_text(e->m, NULL, 0);
	if (r->before && e->instr->guard) {
		size_t len;
		char *crash = render_reproducer(e->pm, e->step, e->step, "the pass crashed (a signal while it ran)",
						r->before, e->instr, &len);
		if (crash)
			e->instr->guard(e->instr->hook_ctx, crash, len);
		free(crash);
	}
}

static void repro_end(repro_state *r, const vc_pass_event *e)
{
	if (e->instr->guard)
		e->instr->guard(e->instr->hook_ctx, NULL, 0);
	free(r->before);
	r->before = NULL;
}

static int repro_after(void *ctx, const vc_pass_event *e)
{
	if (e->last_run)
		repro_end(ctx, e);
	return 0;
}

static void repro_failed(void *ctx, const vc_pass_event *e)
{
	repro_state *r = ctx;
	size_t len;
	char *text = render_reproducer(e->pm, e->step, e->index, e->m->diag.msg, r->before, e->instr, &len);
	if (text)
		write_file(e->instr->reproducer, text, len);
	free(text);
	repro_end(r, e);
}

static void repro_done(void *ctx, const vc_pass_event *e)
{
	(void)e;
	repro_state *r = ctx;
	free(r->before);
	r->before = NULL;
}

/* --verify-analyses: every analysis cached before the pass, so that every
 * one it preserves is checked after it. */
static void analyses_before(void *ctx, const vc_pass_event *e)
{
	(void)ctx;
	vc_am_compute_all(e->am, e->m);
}

static int analyses_after(void *ctx, const vc_pass_event *e)
{
	(void)ctx;
	return vc_am_verify(e->am, e->m, e->p->desc);
}

/* --verify-each: the kernel after a kernel pass, the module after anything
 * else and after a kernel group's last run. */
static int verify_after(void *ctx, const vc_pass_event *e)
{
	(void)ctx;
	char pre[128];
	int kernel = e->u->anchor == VC_ANCHOR_KERNEL;
	if (kernel ? vc_verify_kernel(e->m, e->u->kernel) : vc_verify(e->m)) {
		snprintf(pre, sizeof pre, "verifier failed after pass %s: ", e->p->desc->name);
		vc_error_prefix(e->m, pre);
		return -1;
	}
	if (kernel && e->last_run && vc_verify(e->m)) {
		snprintf(pre, sizeof pre, "verifier failed after kernel group from %s: ", e->pm->passes[e->step].desc->name);
		vc_error_prefix(e->m, pre);
		return -1;
	}
	return 0;
}

/* --print-ir-before/after=PASS|all (after: also when the pass failed). */
static void print_before(void *ctx, const vc_pass_event *e)
{
	(void)ctx;
	if (matches(e->instr->print_before, e->p->desc->name))
		print_ir(e, "before", "");
}

static int print_after(void *ctx, const vc_pass_event *e)
{
	(void)ctx;
	if (matches(e->instr->print_after, e->p->desc->name))
		print_ir(e, "after", "");
	return 0;
}

static void print_failed(void *ctx, const vc_pass_event *e)
{
	(void)ctx;
	if (e->instr->print_after)
		print_ir(e, "after", " (failed)");
}

/* --print-ir-after-change: after a pass only when the unit's text (full,
 * constants included) differs from before it. */
typedef struct change_state {
	char *before;
} change_state;

static void change_before(void *ctx, const vc_pass_event *e)
{
	change_state *c = ctx;
	free(c->before);
	c->before = unit_text(e->m, e->u, 0);
}

static int change_after(void *ctx, const vc_pass_event *e)
{
	change_state *c = ctx;
	char *after = unit_text(e->m, e->u, 0);
	if (!c->before || !after || strcmp(c->before, after))
		print_ir(e, "after", "");
	free(after);
	free(c->before);
	c->before = NULL;
	return 0;
}

static void change_done(void *ctx, const vc_pass_event *e)
{
	(void)e;
	change_state *c = ctx;
	free(c->before);
	c->before = NULL;
}

/* --time-passes: wall time of each pass (summed over kernels), the report
 * at the end. Last in the list: its clock brackets the pass alone. */
typedef struct time_state {
	double t0;
} time_state;

static void time_before(void *ctx, const vc_pass_event *e)
{
	(void)e;
	((time_state *)ctx)->t0 = now();
}

static int time_after(void *ctx, const vc_pass_event *e)
{
	e->p->seconds += now() - ((time_state *)ctx)->t0;
	return 0;
}

static void time_failed(void *ctx, const vc_pass_event *e)
{
	time_after(ctx, e);
}

static void time_done(void *ctx, const vc_pass_event *e)
{
	(void)ctx;
	if (e->rc)
		return;
	const vc_pm *pm = e->pm;
	double total = e->seconds;
	FILE *out = e->out;
	fprintf(out, "===-------------------------------------------------------------------------===\n");
	fprintf(out, "                         ... Pass execution timing report ...\n");
	fprintf(out, "  Total Execution Time: %.4f seconds\n\n   ---Wall Time---  --- Name ---\n", total);
	for (int i = 0; i < pm->n; i++)
		fprintf(out, "   %.4f (%5.1f%%)  %s%s\n", pm->passes[i].seconds,
			total > 0 ? 100.0 * pm->passes[i].seconds / total : 0.0,
			pm->passes[i].desc->anchor == VC_ANCHOR_KERNEL ? "  " : "", pm->passes[i].desc->name);
	fprintf(out, "   %.4f (100.0%%)  Total\n", total);
}

/* --stats: every pass's named statistics and how often each analysis was
 * computed. */
static void stats_done(void *ctx, const vc_pass_event *e)
{
	(void)ctx;
	if (e->rc)
		return;
	FILE *out = e->out;
	fprintf(out, "===-------------------------------------------------------------------------===\n");
	fprintf(out, "                         ... Statistics Collected ...\n");
	for (int i = 0; i < e->pm->n; i++) {
		const vc_pass *p = &e->pm->passes[i];
		for (int s = 0; s < VC_MAX_STATS && p->desc->stats[s]; s++)
			fprintf(out, "%8lld %s - %s\n", (long long)p->stat[s], p->desc->name, p->desc->stats[s]);
	}
	const vc_registry *r = e->pm->reg;
	for (int a = 0; r && a < r->n_analyses; a++)
		fprintf(out, "%8lld analysis - %s computed\n", (long long)vc_am_computed(e->am, a),
			r->analyses[a].name);
}

/* The states of the built-ins for one run. */
typedef struct builtin_states {
	repro_state repro;
	change_state change;
	time_state time;
} builtin_states;

#define MAX_INSTRUMENTS 32

/* The run's instruments in order: the built-ins vc_instr's flags ask for,
 * then the caller's, then the timer. Before hooks run in this order, after
 * and failed hooks in the reverse one (the first instrument's before runs
 * first and its after last, so each brackets those after it). */
static int instrument_list(const vc_instr *in, builtin_states *st, vc_instrument *list, char *err, size_t n)
{
	int k = 0;
	if (in->n_instruments < 0 || in->n_instruments > MAX_INSTRUMENTS - 8) {
		snprintf(err, n, "%d instruments; at most %d", in->n_instruments, MAX_INSTRUMENTS - 8);
		return -1;
	}
	/* a library does not choose where reports go: the caller names the stream */
	if (!in->out && (in->print_before || in->print_after || in->print_after_change || in->stats || in->time_passes)) {
		snprintf(err, n, "%s prints a report, and vc_instr.out (where it goes) is not set",
			 in->print_before ? "--print-ir-before" : in->print_after ? "--print-ir-after" :
			 in->print_after_change ? "--print-ir-after-change" : in->stats ? "--stats" : "--time-passes");
		return -1;
	}
	if (in->reproducer)
		list[k++] = (vc_instrument){.name = "reproducer", .ctx = &st->repro, .before = repro_before,
					    .after = repro_after, .failed = repro_failed, .done = repro_done, .step_only = 1};
	if (in->verify_analyses)
		list[k++] = (vc_instrument){.name = "verify-analyses", .before = analyses_before, .after = analyses_after};
	if (in->verify_each)
		list[k++] = (vc_instrument){.name = "verify-each", .after = verify_after};
	if (in->print_before || in->print_after)
		list[k++] = (vc_instrument){
			.name = "print-ir", .before = print_before, .after = print_after, .failed = print_failed};
	if (in->print_after_change)
		list[k++] = (vc_instrument){.name = "print-ir-after-change", .ctx = &st->change, .before = change_before,
					    .after = change_after, .done = change_done};
	if (in->stats)
		list[k++] = (vc_instrument){.name = "stats", .done = stats_done, .step_only = 1};
	for (int i = 0; i < in->n_instruments; i++)
		list[k++] = in->instruments[i];
	if (in->time_passes)
		list[k++] = (vc_instrument){.name = "time-passes", .ctx = &st->time, .before = time_before,
					    .after = time_after, .failed = time_failed, .done = time_done};
	return k;
}

/* A pass returned an error: its message, prefixed with the pass and
 * where it ran; -1. */
static int pass_failed(vc_module *m, const vc_pass_desc *d, const char *where)
{
	char pre[128];
	if (m->diag.count == 0)
		vc_error(m, NULL, "pass %s failed without a diagnostic", d->name);
	snprintf(pre, sizeof pre, "pass %s%s: ", d->name, where);
	vc_error_prefix(m, pre);
	return -1;
}

/* After a run (rc: the pass's): the after hooks in reverse order while they
 * succeed, then, on a failure, every failed hook; 0 or -1. */
static int finish_run(vc_pass_event *e, const vc_instrument *list, int n, int rc)
{
	for (int i = n - 1; i >= 0 && !rc; i--)
		if (list[i].after)
			rc = list[i].after(list[i].ctx, e);
	if (!rc)
		return 0;
	for (int i = n - 1; i >= 0; i--)
		if (list[i].failed)
			list[i].failed(list[i].ctx, e);
	return -1;
}

/* One pass on one unit with the instruments; the failed hooks see the
 * final message. */
static int run_one(vc_pass_event *e, const vc_instrument *list, int n)
{
	for (int i = 0; i < n; i++)
		if (list[i].before)
			list[i].before(list[i].ctx, e);
	const vc_pass_desc *d = e->p->desc;
	char w[64];
	int rc = d->run(e->p, e->m, e->u) ? pass_failed(e->m, d, where(e, w, sizeof w)) : 0;
	if (finish_run(e, list, n, rc))
		return -1;
	vc_am_invalidate(e->am, e->m, d, e->u->anchor == VC_ANCHOR_KERNEL ? e->u->index : -1,
			 VC_AM_MODULE | VC_AM_KERNELS);
	return 0;
}

/* ---- kernel groups on threads ----------------------------------------- */

/*
 * A kernel group runs on threads when every pass in it is .parallel, every
 * instrument step_only and there are kernels for more than one thread.
 * Each thread takes the next kernel (in order) and runs the group's passes
 * on it through its own view of the module: a shallow copy with its own
 * arena and diagnostics (the graph, target and kernels are shared; a
 * parallel pass writes only its own kernel), and its own copies of the
 * pass instances (statistics). After the threads end, the views' arenas
 * join the module's and the statistics are added up. The code a pass
 * writes depends only on its kernel, so the artifact is the same as
 * sequentially; on failures the first failing kernel's error is reported
 * (threads stop taking kernels past it), the one a sequential run stops at.
 */
typedef struct group_run {
	pthread_mutex_t mu;
	vc_module *m;
	vc_am *am;
	const vc_pm *pm;
	int from, to; /* the group's passes */
	int next;     /* the next kernel to take */
	int stop;     /* the first failing kernel so far (n_kernels: none) */
} group_run;

typedef struct worker {
	group_run *g;
	pthread_t thread;
	vc_module view;
	vc_pass *passes; /* copies of the group's pass instances */
	int fail_kernel, fail_pass;
} worker;

static void *worker_main(void *arg)
{
	worker *w = arg;
	group_run *g = w->g;
	for (;;) {
		pthread_mutex_lock(&g->mu);
		int k = g->next < g->stop ? g->next++ : g->m->n_kernels;
		pthread_mutex_unlock(&g->mu);
		if (k >= g->m->n_kernels)
			return NULL;
		for (int q = g->from; q < g->to; q++) {
			vc_pass *p = &w->passes[q - g->from];
			vc_unit u = {.anchor = VC_ANCHOR_KERNEL, .kernel = g->m->kernels[k], .index = k, .am = g->am};
			if (p->desc->run(p, &w->view, &u)) {
				char where[64];
				snprintf(where, sizeof where, " (kernel @k%d)", u.kernel->id);
				pass_failed(&w->view, p->desc, where);
				w->fail_kernel = k;
				w->fail_pass = q;
				pthread_mutex_lock(&g->mu);
				if (k < g->stop)
					g->stop = k;
				pthread_mutex_unlock(&g->mu);
				return NULL;
			}
			vc_am_invalidate(g->am, &w->view, p->desc, k, VC_AM_KERNELS);
		}
	}
}

static int can_thread(const vc_pm *pm, int from, int to, const vc_module *m, const vc_instrument *list, int n,
		      const vc_instr *instr)
{
	if (instr->threads < 2 || m->n_kernels < 2)
		return 0;
	for (int q = from; q < to; q++)
		if (!pm->passes[q].desc->parallel)
			return 0;
	for (int i = 0; i < n; i++)
		if (!list[i].step_only)
			return 0;
	return 1;
}

enum { MAX_THREADS = 16 };

/* The kernel group [from, to) on threads, with the step_only instruments'
 * hooks: before for the first run, after for the last, failed. */
static int run_threaded(vc_pass_event *e, int from, int to, const vc_instrument *list, int n)
{
	vc_module *m = e->m;
	vc_pm *pm = (vc_pm *)e->pm;
	int nt = e->instr->threads < MAX_THREADS ? e->instr->threads : MAX_THREADS;
	if (nt > m->n_kernels)
		nt = m->n_kernels;
	vc_unit first = {.anchor = VC_ANCHOR_KERNEL, .kernel = m->kernels[0], .index = 0, .am = e->am};
	e->index = from, e->p = &pm->passes[from], e->u = &first, e->first_run = 1, e->last_run = 0;
	for (int i = 0; i < n; i++)
		if (list[i].before)
			list[i].before(list[i].ctx, e);
	if (vc_am_prepare(e->am, m)) { /* the before hooks ran: the failed hooks see the message */
		e->last_run = 1;
		return finish_run(e, list, n, vc_error(m, NULL, "out of memory preparing the analyses of kernel group %s",
						       pm->passes[from].desc->name));
	}
	group_run g = {.m = m, .am = e->am, .pm = pm, .from = from, .to = to, .stop = m->n_kernels};
	worker w[MAX_THREADS];
	memset(w, 0, sizeof w);
	int started = 0, rc = 0;
	pthread_mutex_init(&g.mu, NULL);
	for (int t = 0; t < nt; t++) {
		w[t].g = &g;
		w[t].view = *m;
		w[t].view.arena = NULL;
		memset(&w[t].view.diag, 0, sizeof w[t].view.diag);
		w[t].fail_kernel = -1;
		w[t].passes = malloc((size_t)(to - from) * sizeof *w[t].passes);
		if (!w[t].passes)
			break;
		for (int q = from; q < to; q++) {
			w[t].passes[q - from] = pm->passes[q];
			memset(w[t].passes[q - from].stat, 0, sizeof w[t].passes[q - from].stat);
		}
		if (pthread_create(&w[t].thread, NULL, worker_main, &w[t])) {
			free(w[t].passes);
			break;
		}
		started++;
	}
	if (!started) /* no thread: this one does the work */
		rc = vc_error(m, NULL, "kernel group from %s: no thread could start", pm->passes[from].desc->name);
	int fail = -1;
	for (int t = 0; t < started; t++) {
		pthread_join(w[t].thread, NULL);
		vc_arena_adopt(m, &w[t].view);
		for (int q = from; q < to; q++)
			for (int s = 0; s < VC_MAX_STATS; s++)
				pm->passes[q].stat[s] += w[t].passes[q - from].stat[s];
		if (w[t].fail_kernel >= 0 && (fail < 0 || w[t].fail_kernel < w[fail].fail_kernel))
			fail = t;
	}
	pthread_mutex_destroy(&g.mu);
	vc_unit last = {.anchor = VC_ANCHOR_KERNEL, .index = 0, .am = e->am};
	if (fail >= 0) {
		m->diag = w[fail].view.diag;
		last.kernel = m->kernels[w[fail].fail_kernel];
		last.index = w[fail].fail_kernel;
		e->index = w[fail].fail_pass;
		rc = -1;
	} else {
		last.kernel = m->kernels[m->n_kernels - 1];
		last.index = m->n_kernels - 1;
		e->index = to - 1;
	}
	for (int t = 0; t < started; t++)
		free(w[t].passes);
	e->p = &pm->passes[e->index], e->u = &last, e->first_run = 0, e->last_run = 1;
	if (finish_run(e, list, n, rc))
		return -1;
	for (int q = from; q < to; q++) /* the module analyses, now that the threads are done */
		vc_am_invalidate(e->am, m, pm->passes[q].desc, -1, VC_AM_MODULE);
	return 0;
}

int vc_pm_run(vc_pm *pm, vc_module *m, const vc_instr *instr)
{
	vc_instr none = {0};
	if (!instr)
		instr = &none;

	/* Requirements are checked for the whole pipeline before anything runs. */
	uint64_t props = m->props;
	for (int i = 0; i < pm->n; i++) {
		const vc_pass_desc *d = pm->passes[i].desc;
		if ((d->requires_props & props) != d->requires_props) {
			char miss[256];
			missing_props(d->requires_props, props, miss, sizeof miss);
			return vc_error(m, NULL, "%s requires property %s; the pipeline has no provider before it", d->name,
					miss);
		}
		props = (props & ~d->invalidates_props) | d->provides_props;
	}

	if (instr->verify_each && vc_verify(m)) {
		vc_error_prefix(m, "verifier failed on the input module: ");
		return -1;
	}
	builtin_states st;
	memset(&st, 0, sizeof st);
	vc_instrument list[MAX_INSTRUMENTS];
	char err[128];
	int n = instrument_list(instr, &st, list, err, sizeof err);
	if (n < 0)
		return vc_error(m, NULL, "pass manager: %s", err);
	for (int i = 0; i < pm->n; i++) {
		memset(pm->passes[i].stat, 0, sizeof pm->passes[i].stat);
		pm->passes[i].seconds = 0;
	}
	vc_am *am = vc_am_new(pm->reg);
	if (!am)
		return vc_error(m, NULL, "out of memory");
	vc_pass_event e = {.pm = pm, .m = m, .am = am, .instr = instr, .out = instr->out};
	double total = now();
	int rc = 0;
	/* Steps: a pass on the module, graph or stream; or a kernel group, run
	 * as a pipeline on each kernel in turn. */
	for (int i = 0, j; i < pm->n && !rc; i = j) {
		int group = pm->passes[i].group_anchor == VC_ANCHOR_KERNEL && pm->passes[i].desc->anchor == VC_ANCHOR_KERNEL;
		for (j = i + 1; group && j < pm->n && pm->passes[j].group == pm->passes[i].group; j++)
			;
		e.step = i;
		if (!group) {
			vc_unit u = {.anchor = pm->passes[i].desc->anchor, .index = 0, .am = am};
			e.index = i, e.p = &pm->passes[i], e.u = &u, e.first_run = e.last_run = 1;
			rc = run_one(&e, list, n);
		} else if (can_thread(pm, i, j, m, list, n, instr)) {
			rc = run_threaded(&e, i, j, list, n);
		} else {
			for (int k = 0; k < m->n_kernels && !rc; k++)
				for (int q = i; q < j && !rc; q++) {
					vc_unit u = {.anchor = VC_ANCHOR_KERNEL, .kernel = m->kernels[k], .index = k, .am = am};
					e.index = q, e.p = &pm->passes[q], e.u = &u;
					e.first_run = k == 0 && q == i;
					e.last_run = k + 1 == m->n_kernels && q + 1 == j;
					rc = run_one(&e, list, n);
				}
		}
		if (!rc)
			for (int q = i; q < j; q++)
				m->props = (m->props & ~pm->passes[q].desc->invalidates_props) | pm->passes[q].desc->provides_props;
	}
	e.seconds = now() - total;
	e.rc = rc ? -1 : 0;
	e.index = -1, e.p = NULL, e.u = NULL;
	for (int i = 0; i < n; i++)
		if (list[i].done)
			list[i].done(list[i].ctx, &e);
	vc_am_free(am);
	return rc ? -1 : 0;
}
