/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Command-line options shared by `vta compile` and `vta run`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/model.h>
#include <vta/vtam.h>

#include "cli/cli.h"
#include <vta/model/graph.h>

static const char *opt_val(const char *arg, const char *name)
{
	size_t k = strlen(name);
	if (!strncmp(arg, name, k) && arg[k] == '=')
		return arg + k + 1;
	return NULL;
}

const char *vc_take_opt(int argc, char **argv, int *i, const char *name)
{
	const char *v = opt_val(argv[*i], name);
	if (v)
		return v;
	if (!strcmp(argv[*i], name) && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

void vc_tty_progress(void *ctx, const char *what, int done, int total)
{
	(void)ctx;
	fprintf(stderr, "\r%s: %d/%d ", what, done, total);
	if (done >= total)
		fprintf(stderr, "\r%*s\r", (int)strlen(what) + 24, "");
	fflush(stderr);
}

static int parse_list(const char *v, double *out, int max)
{
	int n = 0;
	for (const char *p = v; *p && n < max;) {
		char *end;
		out[n++] = strtod(p, &end);
		if (end == p || (*end && *end != ','))
			return -1;
		p = *end ? end + 1 : end;
	}
	return n;
}

int vc_preproc_opt(int argc, char **argv, int *i, vc_preproc *p, const char *cmd)
{
	const char *v;
	if ((v = vc_take_opt(argc, argv, i, "--scale"))) {
		p->scale = atof(v);
		return 1;
	}
	int is_mean = (v = vc_take_opt(argc, argv, i, "--mean")) != NULL;
	if (!is_mean && !(v = vc_take_opt(argc, argv, i, "--std")))
		return 0;
	int k = parse_list(v, is_mean ? p->mean : p->std, 4);
	if (k < 1) {
		fprintf(stderr, "vta %s: %s=%s: expected one number or a comma list per channel\n", cmd,
			is_mean ? "--mean" : "--std", v);
		return -1;
	}
	for (int j = 0; !is_mean && j < k; j++)
		if (p->std[j] == 0) {
			fprintf(stderr, "vta %s: --std=%s: a standard deviation of 0\n", cmd, v);
			return -1;
		}
	*(is_mean ? &p->n_mean : &p->n_std) = k;
	return 1;
}

void vc_preproc_apply(const vc_preproc *p, const vc_type *t, float *x)
{
	int64_t C = t->rank >= 2 ? t->dim[1] : 1, plane = vc_type_elems(t) / (t->dim[0] * C);
	double scale = p->scale ? p->scale : 1.0;
	for (int64_t i = 0; i < vc_type_elems(t); i++) {
		int64_t c = (i / plane) % C;
		double mu = p->n_mean ? p->mean[p->n_mean == 1 ? 0 : c % p->n_mean] : 0;
		double sd = p->n_std ? p->std[p->n_std == 1 ? 0 : c % p->n_std] : 1;
		x[i] = (float)((x[i] * scale - mu) / sd);
	}
}

int vc_preproc_meta(const vc_preproc *p, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = 0;
	if (!p->scale && !p->n_mean && !p->n_std)
		return 0;
	k += (size_t)snprintf(buf + k, n - k, "scale=%.17g\n", p->scale ? p->scale : 1.0);
	for (int s = 0; s < 2; s++) {
		int c = s ? p->n_std : p->n_mean;
		const double *v = s ? p->std : p->mean;
		for (int j = 0; j < c && k < n; j++)
			k += (size_t)snprintf(buf + k, n - k, "%s%.17g", j ? "," : s ? "std=" : "mean=", v[j]);
		if (c && k < n)
			k += (size_t)snprintf(buf + k, n - k, "\n");
	}
	return k < n ? 0 : -1;
}

int vc_preproc_recorded(const char *path, vc_preproc *p, char *err, size_t n)
{
	size_t len;
	uint8_t *b = vc_read_all(path, &len, err, n);
	if (!b)
		return -1;
	vta_vtam_t v;
	vta_error_t e;
	vta_tensor_info_t t;
	memset(&t, 0, sizeof t);
	size_t mn = 0;
	int rc = vta_vtam_parse(b, len, path, &v, &e);
	const uint8_t *ms = rc ? NULL : vta_vtam_section(&v, b, VTA_VTAM_META, &mn);
	if (!rc && ms)
		rc = vta_meta_preproc(ms, mn, path, &t, &e);
	free(b);
	if (rc) {
		snprintf(err, n, "%s", e.msg);
		return -1;
	}
	memset(p, 0, sizeof *p);
	if (!t.has_preproc)
		return 0;
	p->scale = t.scale;
	p->n_mean = t.n_mean;
	p->n_std = t.n_std;
	memcpy(p->mean, t.mean, sizeof p->mean);
	memcpy(p->std, t.std, sizeof p->std);
	return 1;
}

/* The instrument flags vta compile and vta opt share: 1 if argv[*i] was one. */
int vc_instr_opt(int argc, char **argv, int *i, vc_instr *in)
{
	const char *v;
	if (!strcmp(argv[*i], "--verify-each"))
		in->verify_each = 1;
	else if (!strcmp(argv[*i], "--verify-analyses"))
		in->verify_analyses = 1;
	else if (!strcmp(argv[*i], "--time-passes"))
		in->time_passes = 1;
	else if (!strcmp(argv[*i], "--stats"))
		in->stats = 1;
	else if (!strcmp(argv[*i], "--print-ir-after-change"))
		in->print_after_change = 1;
	else if ((v = vc_take_opt(argc, argv, i, "--print-ir-before")))
		in->print_before = v;
	else if ((v = vc_take_opt(argc, argv, i, "--print-ir-after")))
		in->print_after = v;
	else if ((v = vc_take_opt(argc, argv, i, "--reproducer")))
		in->reproducer = v;
	else if ((v = vc_take_opt(argc, argv, i, "--threads")))
		in->threads = atoi(v);
	else
		return 0;
	return 1;
}
