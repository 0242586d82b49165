/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Command-line options shared by `vta compile` and `vta run`.
 */
#include <stdio.h>
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
