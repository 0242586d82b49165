/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vta: the command-line tool of the open VTA stack. Every command is a row
 * of one table (tools/commands.c); this file dispatches and answers help.
 */
#include <stdio.h>
#include <string.h>

#include "tools.h"

static int usage(FILE *f)
{
	fprintf(f, "usage: vta COMMAND [ARGS]\n\ncommands:\n");
	for (const vta_command_t *c = vta_commands; c->name; c++) {
		/* "NAME ARGS  what it does": the arguments on the command's line */
		const char *what = strstr(c->synopsis, "  ");
		int args = what ? (int)(what - c->synopsis) : 0;
		char head[160];
		snprintf(head, sizeof head, "%s %.*s", c->name, args, c->synopsis);
		if (strlen(head) <= 25)
			fprintf(f, "  %-25s %s\n", head, what ? what + 2 : c->synopsis);
		else
			fprintf(f, "  %s\n  %-25s %s\n", head, "", what + 2);
	}
	fprintf(f, "  %-25s %s\n", "help [COMMAND]", "this text, or a command's options and an example");
	return f == stderr ? 2 : 0;
}

static int wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	const char *name = argv[1];
	argc -= 2;
	argv += 2;
	if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
		if (argc == 0)
			return usage(stdout);
		const vta_command_t *c = vta_command_find(argv[0]);
		if (c && argc == 1) {
			fputs(c->usage, stdout);
			return 0;
		}
		if (!c)
			fprintf(stderr, "vta: unknown command \"%s\"\n", argv[0]);
		return usage(stderr);
	}
	const vta_command_t *c = vta_command_find(name);
	if (!c) {
		fprintf(stderr, "vta: unknown command \"%s\"\n", name);
		return usage(stderr);
	}
	if (wants_help(argc, argv)) {
		fputs(c->usage, stdout);
		return 0;
	}
	return c->run(argc, argv);
}
