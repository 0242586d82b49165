/* SPDX-License-Identifier: Apache-2.0 */
/* The vta tool's commands: one table (tools/commands.c) with each command's
 * entry point, its line in `vta help` and its full usage. */
#ifndef VTA_TOOLS_H
#define VTA_TOOLS_H

typedef struct vta_command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the first argument */
	const char *synopsis;              /* arguments and what it does: its line in `vta help` */
	const char *usage;                 /* `vta help NAME`, `vta NAME --help`: options and an example */
} vta_command_t;

/* Every command, in the order `vta help` lists them; ends with a NULL name. */
extern const vta_command_t vta_commands[];
/* The command called name, or NULL. */
const vta_command_t *vta_command_find(const char *name);
/* A command called with arguments it does not take: its usage on stderr;
 * returns the exit status 2. */
int vta_command_misuse(const char *name);

/* The entry points (tools/program.c, tools/info.c, boards/flash/, compiler/cli/). */
int vta_cmd_asm(int argc, char **argv);
int vta_cmd_disasm(int argc, char **argv);
int vta_cmd_sim(int argc, char **argv);
int vta_cmd_config(int argc, char **argv);
int vta_cmd_info(int argc, char **argv);
int vta_cmd_flash(int argc, char **argv);
int vta_cmd_compile(int argc, char **argv);
int vta_cmd_opt(int argc, char **argv);
int vta_cmd_run(int argc, char **argv);
int vta_cmd_profile(int argc, char **argv);

/* Their usage texts, kept beside the code that parses the options. */
extern const char vta_flash_usage[], vta_compile_usage[], vta_opt_usage[], vta_run_usage[],
	vta_profile_usage[];

#endif
