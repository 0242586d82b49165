/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the vta tool that live in their own files (tools/commands.c). */
#ifndef VTA_TOOLS_H
#define VTA_TOOLS_H

typedef struct vta_command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the first argument */
	const char *help;                  /* one line for `vta help` */
	const char *usage;                 /* `vta help NAME` / `NAME --help`; NULL: the command answers --help */
} vta_command_t;

/* Run command name; returns its exit status, or -1 if there is no such command. */
int vta_extra_command(const char *name, int argc, char **argv);
/* The full help of an extra command (options and an example): 0 if printed,
 * -1 if there is no such command. */
int vta_extra_command_help(const char *name);
/* Help lines of the extra commands, in the format of `vta help`. */
const char *vta_extra_commands_help(void);

#endif
