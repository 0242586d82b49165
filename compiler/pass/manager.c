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
		if (parse_list(ps, a, depth + 1))
			return -1;
		skip_ws(ps);
		if (*ps->s != ')') {
			snprintf(ps->err, ps->n, "pipeline: missing ')' after %s(...", name);
			return -1;
		}
		ps->s++;
		return 0;
	}
	const vc_pass_desc *d = vc_pass_lookup(name);
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
		while (*ps->s && *ps->s != ',' && *ps->s != '}' && k + 1 < sizeof val)
			val[k++] = *ps->s++;
		val[k] = 0;
		while (k > 0 && isspace((unsigned char)val[k - 1]))
			val[--k] = 0;
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

vc_pm *vc_pm_parse(const char *text, char *err, size_t n)
{
	const char *named = vc_pipeline_named(text);
	if (named)
		text = named;
	vc_pm *pm = calloc(1, sizeof *pm);
	if (!pm) {
		snprintf(err, n, "out of memory");
		return NULL;
	}
	parser ps = {.s = text, .err = err, .n = n, .pm = pm};
	if (parse_list(&ps, VC_ANCHOR_MODULE, 0)) {
		vc_pm_free(pm);
		return NULL;
	}
	skip_ws(&ps);
	if (*ps.s) {
		snprintf(err, n, "pipeline: unexpected '%.20s'", ps.s);
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

/* Canonical text: module(graph(...),kernel(...),stream(...)), explicit
 * options only, numbers in a form strtod reads back exactly. */
int vc_pm_print(const vc_pm *pm, char *buf, size_t n)
{
	size_t k = 0;
#define OUT(...)                                                                  \
	do {                                                                      \
		int w_ = snprintf(buf + k, k < n ? n - k : 0, __VA_ARGS__);       \
		if (w_ > 0)                                                       \
			k += (size_t)w_;                                          \
	} while (0)
	OUT("module(");
	int open = -1;
	for (int i = 0; i < pm->n; i++) {
		const vc_pass *p = &pm->passes[i];
		int a = p->desc->anchor;
		if (a != open) {
			if (open > 0)
				OUT(")");
			if (i)
				OUT(",");
			if (a != VC_ANCHOR_MODULE)
				OUT("%s(", vc_anchor_name((vc_anchor)a));
			open = a;
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
				OUT("%s", p->o.s[o]);
				break;
			}
		}
		if (!first)
			OUT("}");
	}
	if (open > 0)
		OUT(")");
	OUT(")");
#undef OUT
	return k < n ? 0 : -1;
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
 * The reproducer: "key: value" lines that `vta compile --replay=FILE` reads
 * (pipeline, and the driver's model, calib, calib-count), then comments:
 * the failing pass, the error, and the module before that pass as printed
 * (for reading; there is no IR parser, so a replay starts from the model).
 */
static void write_reproducer(const char *path, const vc_pm *pm, int failed, const char *ir_before, vc_module *m,
			     const char *context)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	char text[4096];
	vc_pm_print(pm, text, sizeof text);
	fprintf(f, "# vta compile reproducer: re-run with `vta compile --replay=%s -o OUT.vtam`\n", path);
	fprintf(f, "pipeline: %s\n%s", text, context ? context : "");
	fprintf(f, "# failed pass: %s (#%d)\n# error: %s\n", pm->passes[failed].desc->name, failed, m->diag.msg);
	fprintf(f, "# module before the failing pass:\n");
	for (const char *s = ir_before ? ir_before : ""; *s;) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		fprintf(f, "#   %.*s\n", (int)len, s);
		s += len + (e ? 1 : 0);
	}
	fclose(f);
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
	double total = now();
	for (int i = 0; i < pm->n; i++) {
		vc_pass *p = &pm->passes[i];
		const vc_pass_desc *d = p->desc;
		memset(p->stat, 0, sizeof p->stat);
		char *before = NULL;
		size_t before_len = 0;
		if (instr->reproducer) {
			FILE *mf = open_memstream(&before, &before_len);
			if (mf) {
				vc_print_graph(mf, m);
				fclose(mf);
			}
		}
		if (matches(instr->print_before, d->name)) {
			fprintf(out, "// -----// IR before %s //----- //\n", d->name);
			vc_print_graph(out, m);
		}
		double t0 = now();
		int rc = 0;
		if (d->anchor == VC_ANCHOR_KERNEL) {
			for (int k = 0; k < m->n_kernels && !rc; k++) {
				vc_unit u = {.anchor = VC_ANCHOR_KERNEL, .kernel = m->kernels[k], .index = k};
				rc = d->run(p, m, &u);
			}
		} else {
			vc_unit u = {.anchor = d->anchor, .index = 0};
			rc = d->run(p, m, &u);
		}
		p->seconds = now() - t0;
		if (!rc && instr->verify_each && vc_verify(m)) {
			char pre[128];
			snprintf(pre, sizeof pre, "verifier failed after pass %s: ", d->name);
			vc_error_prefix(m, pre);
			rc = -1;
		}
		if (rc) {
			if (m->diag.count == 0)
				vc_error(m, NULL, "pass %s failed without a diagnostic", d->name);
			if (strncmp(m->diag.msg, "verifier", 8)) {
				char pre[128];
				snprintf(pre, sizeof pre, "pass %s: ", d->name);
				vc_error_prefix(m, pre);
			}
			if (instr->reproducer)
				write_reproducer(instr->reproducer, pm, i, before, m, instr->repro_context);
			if (instr->print_after) {
				fprintf(out, "// -----// IR after %s (failed) //----- //\n", d->name);
				vc_print_graph(out, m);
			}
			free(before);
			return -1;
		}
		free(before);
		m->props = (m->props & ~d->invalidates_props) | d->provides_props;
		if (matches(instr->print_after, d->name)) {
			fprintf(out, "// -----// IR after %s //----- //\n", d->name);
			vc_print_graph(out, m);
		}
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
	}
	return 0;
}
