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
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/kernel.h"
#include "pass/pass.h"

/* ---- parsing --------------------------------------------------------- */

struct vc_pm {
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
	if (vc_pass_init(&pm->passes[pm->n], d, err, n))
		return -1;
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
	const vc_pass_desc *d = vc_pass_lookup(name);
	const char *named = d ? NULL : vc_pipeline_named(name);
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

vc_pm *vc_pm_parse(const char *text, char *err, size_t n)
{
	vc_pm *pm = calloc(1, sizeof *pm);
	if (!pm) {
		snprintf(err, n, "out of memory");
		return NULL;
	}
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

/* One pass on one unit, with the hooks, printing, timing and verifier. */
static int run_one(vc_pass *p, vc_module *m, vc_unit *u, const vc_instr *instr, FILE *out)
{
	const vc_pass_desc *d = p->desc;
	char where[64] = "";
	if (u->anchor == VC_ANCHOR_KERNEL)
		snprintf(where, sizeof where, " (kernel @k%d)", u->kernel->id);
	if (instr->before_pass)
		instr->before_pass(instr->hook_ctx, p, m, u);
	if (matches(instr->print_before, d->name)) {
		fprintf(out, "// -----// IR before %s%s //----- //\n", d->name, where);
		if (u->anchor == VC_ANCHOR_KERNEL)
			vc_print_kernel(out, u->kernel, VC_PRINT_ELIDE);
		else
			vc_print_graph(out, m);
	}
	if (instr->verify_analyses) /* every analysis cached, so every one is checked */
		vc_am_compute_all(u->am, m);
	double t0 = now();
	int rc = d->run(p, m, u);
	p->seconds += now() - t0;
	if (!rc && instr->verify_each &&
	    (u->anchor == VC_ANCHOR_KERNEL ? vc_verify_kernel(m, u->kernel) : vc_verify(m))) {
		char pre[128];
		snprintf(pre, sizeof pre, "verifier failed after pass %s: ", d->name);
		vc_error_prefix(m, pre);
		rc = -1;
	} else if (!rc) {
		if (instr->verify_analyses)
			rc = vc_am_verify(u->am, m, d);
		vc_am_invalidate(u->am, m, d, u->anchor == VC_ANCHOR_KERNEL ? u->index : -1);
	} else if (rc) {
		if (m->diag.count == 0)
			vc_error(m, NULL, "pass %s failed without a diagnostic", d->name);
		char pre[128];
		snprintf(pre, sizeof pre, "pass %s%s: ", d->name, where);
		vc_error_prefix(m, pre);
	}
	if (instr->after_pass)
		instr->after_pass(instr->hook_ctx, p, m, u, rc);
	if (instr->print_after && (rc || matches(instr->print_after, d->name))) {
		fprintf(out, "// -----// IR after %s%s%s //----- //\n", d->name, where, rc ? " (failed)" : "");
		if (u->anchor == VC_ANCHOR_KERNEL)
			vc_print_kernel(out, u->kernel, VC_PRINT_ELIDE);
		else
			vc_print_graph(out, m);
	}
	return rc;
}

static char *module_text(const vc_module *m)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	vc_print_module(f, m, 0);
	fclose(f);
	return buf;
}

int vc_pm_run(vc_pm *pm, vc_module *m, const vc_instr *instr)
{
	vc_instr none = {0};
	if (!instr)
		instr = &none;
	FILE *out = instr->out ? instr->out : stderr;

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
	for (int i = 0; i < pm->n; i++) {
		memset(pm->passes[i].stat, 0, sizeof pm->passes[i].stat);
		pm->passes[i].seconds = 0;
	}
	vc_am *am = vc_am_new();
	if (!am)
		return vc_error(m, NULL, "out of memory");
	double total = now();
	/* Steps: a pass on the module, graph or stream; or a kernel group, run
	 * as a pipeline on each kernel in turn. */
	for (int i = 0, j; i < pm->n; i = j) {
		int group = pm->passes[i].group_anchor == VC_ANCHOR_KERNEL && pm->passes[i].desc->anchor == VC_ANCHOR_KERNEL;
		for (j = i + 1; group && j < pm->n && pm->passes[j].group == pm->passes[i].group; j++)
			;
		char *before = instr->reproducer ? module_text(m) : NULL;
		if (before && instr->guard) {
			size_t len;
			char *crash = render_reproducer(pm, i, i, "the pass crashed (a signal while it ran)", before, instr,
							&len);
			if (crash)
				instr->guard(instr->hook_ctx, crash, len);
			free(crash);
		}
		int rc = 0, failed = i;
		if (!group) {
			vc_unit u = {.anchor = pm->passes[i].desc->anchor, .index = 0, .am = am};
			rc = run_one(&pm->passes[i], m, &u, instr, out);
		} else {
			for (int k = 0; k < m->n_kernels && !rc; k++)
				for (int q = i; q < j && !rc; q++) {
					vc_unit u = {.anchor = VC_ANCHOR_KERNEL, .kernel = m->kernels[k], .index = k, .am = am};
					rc = run_one(&pm->passes[q], m, &u, instr, out);
					failed = q;
				}
			if (!rc && instr->verify_each && vc_verify(m)) {
				char pre[128];
				snprintf(pre, sizeof pre, "verifier failed after kernel group from %s: ", pm->passes[i].desc->name);
				vc_error_prefix(m, pre);
				rc = -1;
			}
		}
		if (instr->guard)
			instr->guard(instr->hook_ctx, NULL, 0);
		if (rc) {
			if (instr->reproducer) {
				size_t len;
				char *r = render_reproducer(pm, i, failed, m->diag.msg, before, instr, &len);
				if (r)
					write_file(instr->reproducer, r, len);
				free(r);
			}
			free(before);
			vc_am_free(am);
			return -1;
		}
		free(before);
		for (int q = i; q < j; q++)
			m->props = (m->props & ~pm->passes[q].desc->invalidates_props) | pm->passes[q].desc->provides_props;
	}
	total = now() - total;
	if (instr->time_passes) {
		fprintf(out, "===-------------------------------------------------------------------------===\n");
		fprintf(out, "                         ... Pass execution timing report ...\n");
		fprintf(out, "  Total Execution Time: %.4f seconds\n\n   ---Wall Time---  --- Name ---\n", total);
		for (int i = 0; i < pm->n; i++)
			fprintf(out, "   %.4f (%5.1f%%)  %s%s\n", pm->passes[i].seconds,
				total > 0 ? 100.0 * pm->passes[i].seconds / total : 0.0,
				pm->passes[i].desc->anchor == VC_ANCHOR_KERNEL ? "  " : "", pm->passes[i].desc->name);
		fprintf(out, "   %.4f (100.0%%)  Total\n", total);
	}
	if (instr->stats) {
		fprintf(out, "===-------------------------------------------------------------------------===\n");
		fprintf(out, "                         ... Statistics Collected ...\n");
		for (int i = 0; i < pm->n; i++) {
			const vc_pass *p = &pm->passes[i];
			for (int s = 0; s < VC_MAX_STATS && p->desc->stats[s]; s++)
				fprintf(out, "%8lld %s - %s\n", (long long)p->stat[s], p->desc->name, p->desc->stats[s]);
		}
		for (int a = 0; a < VC_AN_COUNT; a++)
			fprintf(out, "%8lld analysis - %s computed\n", (long long)vc_am_computed(am, (vc_analysis_id)a),
				vc_analysis_name((vc_analysis_id)a));
	}
	vc_am_free(am);
	return 0;
}
