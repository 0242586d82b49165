/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pass type: anchor names, and pass instances (their
 * options, parsed and validated, and their statistics): what pass code calls.
 */
#include <errno.h>
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
	case VC_OPT_STRING:
		if (strlen(text) >= sizeof p->o.s[i]) {
			snprintf(err, n, "pass %s: option %s is too long", p->desc->name, o->name);
			return -1;
		}
		snprintf(p->o.s[i], sizeof p->o.s[i], "%s", text);
		break;
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
