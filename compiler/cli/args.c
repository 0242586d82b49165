/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Command-line options shared by `vta compile` and `vta run`.
 */
#include <stdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

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
