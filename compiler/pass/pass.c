/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pass type: anchor names, and pass instances (their
 * options, parsed and validated, and their statistics): what pass code calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass/pass.h"

const char *vc_anchor_name(vc_anchor a)
{
	static const char *const names[] = {"module", "graph", "kernel", "stream"};
	return names[a];
}

/* ---- options --------------------------------------------------------- */

int vc_pass_opt_index(const vc_pass_desc *d, const char *name)
{
	for (int i = 0; i < VC_MAX_OPTS && d->opts[i].name; i++)
		if (!strcmp(d->opts[i].name, name))
			return i;
	return -1;
}

static int vc_pass_set_opt_text(vc_pass *p, int i, const char *text, char *err, size_t n)
{
	if (strlen(text) >= sizeof p->o.s[i]) {
		snprintf(err, n, "pass %s: option %s is too long", p->desc->name, p->desc->opts[i].name);
		return -1;
	}
	snprintf(p->o.s[i], sizeof p->o.s[i], "%s", text);
	return 0;
}

/* Parse text as option i of pass p; message in err on failure. */
int vc_pass_set_opt(vc_pass *p, int i, const char *text, char *err, size_t n)
{
	const vc_opt_decl *o = &p->desc->opts[i];
	char *end;
	errno = 0;
	switch (o->kind) {
	case VC_OPT_INT:
		p->o.i[i] = strtoll(text, &end, 0);
		if (!*text || *end || errno) {
			snprintf(err, n, "pass %s: option %s needs an integer, got '%s'", p->desc->name, o->name, text);
			return -1;
		}
		break;
	case VC_OPT_FLOAT:
		p->o.f[i] = strtod(text, &end);
		if (!*text || *end || errno) {
			snprintf(err, n, "pass %s: option %s needs a number, got '%s'", p->desc->name, o->name, text);
			return -1;
		}
		break;
	case VC_OPT_BOOL:
		if (!strcmp(text, "true") || !strcmp(text, "1"))
			p->o.i[i] = 1;
		else if (!strcmp(text, "false") || !strcmp(text, "0"))
			p->o.i[i] = 0;
		else {
			snprintf(err, n, "pass %s: option %s needs true or false, got '%s'", p->desc->name, o->name, text);
			return -1;
		}
		break;
	case VC_OPT_ENUM: {
		const char *c = o->choices ? o->choices : "";
		size_t len = strlen(text);
		int64_t idx = 0;
		for (;;) {
			const char *e = strchr(c, '|');
			size_t cl = e ? (size_t)(e - c) : strlen(c);
			if (len && cl == len && !strncmp(c, text, len))
				break;
			if (!e) {
				snprintf(err, n, "pass %s: option %s is one of %s, got '%s'", p->desc->name, o->name,
					 o->choices ? o->choices : "(none)", text);
				return -1;
			}
			c = e + 1;
			idx++;
		}
		p->o.i[i] = idx;
		return vc_pass_set_opt_text(p, i, text, err, n); /* the text is kept too */
	}
	case VC_OPT_STRING:
	case VC_OPT_LIST:
		return vc_pass_set_opt_text(p, i, text, err, n);
	}
	return 0;
}

int vc_pass_init(vc_pass *p, const vc_pass_desc *d, char *err, size_t n)
{
	memset(p, 0, sizeof *p);
	p->desc = d;
	for (int i = 0; i < VC_MAX_OPTS && d->opts[i].name; i++)
		if (vc_pass_set_opt(p, i, d->opts[i].def, err, n))
			return -1;
	return 0;
}

static int find_opt(const vc_pass *p, const char *name)
{
	int i = vc_pass_opt_index(p->desc, name);
	return i; /* callers use declared names only; -1 reads slot 0 safely below */
}

int64_t vc_opt_int(const vc_pass *p, const char *name)
{
	int i = find_opt(p, name);
	return i < 0 ? 0 : p->o.i[i];
}

double vc_opt_float(const vc_pass *p, const char *name)
{
	int i = find_opt(p, name);
	return i < 0 ? 0 : p->o.f[i];
}

const char *vc_opt_str(const vc_pass *p, const char *name)
{
	int i = find_opt(p, name);
	return i < 0 ? "" : p->o.s[i];
}

void vc_stat_add(vc_pass *p, const char *name, int64_t v)
{
	for (int i = 0; i < VC_MAX_STATS && p->desc->stats[i]; i++)
		if (!strcmp(p->desc->stats[i], name)) {
			p->stat[i] += v;
			return;
		}
}

int vc_opt_list_count(const vc_pass *p, const char *name)
{
	const char *s = vc_opt_str(p, name);
	if (!*s)
		return 0;
	int k = 1;
	for (; *s; s++)
		k += *s == ',';
	return k;
}

int vc_opt_list_item(const vc_pass *p, const char *name, int i, char *buf, size_t n)
{
	const char *s = vc_opt_str(p, name);
	if (i < 0 || i >= vc_opt_list_count(p, name))
		return -1;
	for (; i > 0; i--)
		s = strchr(s, ',') + 1;
	const char *e = strchr(s, ',');
	size_t len = e ? (size_t)(e - s) : strlen(s);
	if (len >= n)
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	return 0;
}

static void list_props(FILE *f, const char *what, uint64_t props)
{
	if (!props)
		return;
	fprintf(f, "    %-12s", what);
	for (int b = 0; b < VC_PROP_COUNT_; b++)
		if (props >> b & 1)
			fprintf(f, " %s", vc_prop_name(b));
	fputc('\n', f);
}

const vc_pass_desc *vc_registry_pass(const vc_registry *r, const char *name)
{
	for (int i = 0; r && i < r->n_passes; i++)
		if (!strcmp(r->passes[i]->name, name))
			return r->passes[i];
	return NULL;
}

const char *vc_registry_pipeline(const vc_registry *r, const char *name)
{
	for (int i = 0; r && i < r->n_pipelines; i++)
		if (!strcmp(r->pipelines[i].name, name))
			return r->pipelines[i].text;
	return NULL;
}

void vc_pass_list_in(const vc_registry *r, FILE *f)
{
	static const char *const kinds[] = {"int", "float", "bool", "string", "enum", "list"};
	fprintf(f, "passes (name, level: what it does):\n");
	for (int i = 0; i < r->n_passes; i++) {
		const vc_pass_desc *d = r->passes[i];
		fprintf(f, "  %s  [%s]  %s\n", d->name, vc_anchor_name(d->anchor), d->summary);
		list_props(f, "requires", d->requires_props);
		list_props(f, "provides", d->provides_props);
		list_props(f, "invalidates", d->invalidates_props);
		int kept = 0;
		fprintf(f, "    preserves   ");
		for (int a = 0; a < r->n_analyses; a++)
			if (d->preserves >> a & 1)
				fprintf(f, " %s", r->analyses[a].name), kept++;
		fprintf(f, "%s\n", kept ? "" : " (no analysis)");
		if (d->parallel)
			fprintf(f, "    threads      may run on several kernels at once (--threads=N)\n");
		for (int o = 0; o < VC_MAX_OPTS && d->opts[o].name; o++) {
			const vc_opt_decl *od = &d->opts[o];
			fprintf(f, "    option %s: %s", od->name, kinds[od->kind]);
			if (od->kind == VC_OPT_ENUM)
				fprintf(f, " (%s)", od->choices ? od->choices : "");
			fprintf(f, " = '%s'  %s\n", od->def, od->help ? od->help : "");
		}
		for (int s = 0; s < VC_MAX_STATS && d->stats[s]; s++)
			fprintf(f, "%s%s", s ? ", " : "    statistics: ", d->stats[s]);
		if (d->stats[0])
			fputc('\n', f);
	}
	fprintf(f, "named pipelines:\n");
	for (int i = 0; i < r->n_pipelines; i++)
		fprintf(f, "  %s = %s\n", r->pipelines[i].name, r->pipelines[i].text);
}
