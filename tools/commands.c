/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The table of vta subcommands implemented outside tools/vta.c. To add one,
 * write `int vta_cmd_NAME(int argc, char **argv)` in its own file, declare it
 * here and add a row.
 */
#include <stdio.h>
#include <string.h>

#include "tools.h"

int vta_cmd_info(int argc, char **argv);
int vta_cmd_compile(int argc, char **argv);
int vta_cmd_run(int argc, char **argv);
int vta_cmd_profile(int argc, char **argv);
int vta_cmd_opt(int argc, char **argv);
int vta_cmd_flash(int argc, char **argv);

static const char info_usage[] = "usage: vta info [BACKEND]\n"
				 "\n"
				 "The backends this tool can open (fsim, rtl, zynq, xrt), the configuration of the\n"
				 "library and, for BACKEND, its hardware version and counters.\n"
				 "\n"
				 "examples:\n"
				 "  vta info\n"
				 "  vta info fsim\n";

static const vta_command_t commands[] = {
	{"info", vta_cmd_info, "[BACKEND]  backends on this machine; configuration, version, counters", info_usage},
	{"flash", vta_cmd_flash, "FILE.bit|FILE.bin  load a bitstream into the PL (fpga_manager; --jtag: USB-JTAG)", NULL},
	{"compile", vta_cmd_compile, "MODEL.onnx|MODEL.cfg -o MODEL.vtam  compile a network for VTA (docs/compiler.md)", NULL},
	{"opt", vta_cmd_opt, "IN.ir --passes=PIPELINE -o OUT.ir|OUT.vtam  run passes on textual IR (docs/compiler.md)", NULL},
	{"run", vta_cmd_run, "MODEL.vtam [--target=fsim|rtl] --input=F|random|--dataset=F  run a compiled network", NULL},
	{"profile", vta_cmd_profile, "MODEL.vtam [--target=rtl] [-o REPORT.html]  per-layer cycles and an HTML timeline", NULL},
	{NULL, NULL, NULL, NULL},
};

static int wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

int vta_extra_command_help(const char *name)
{
	for (const vta_command_t *c = commands; c->name; c++)
		if (!strcmp(c->name, name)) {
			if (c->usage) {
				fputs(c->usage, stdout);
				return 0;
			}
			char arg[] = "--help", *argv[] = {arg, NULL};
			return c->run(1, argv) == 0 ? 0 : 1;
		}
	return -1;
}

int vta_extra_command(const char *name, int argc, char **argv)
{
	for (const vta_command_t *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c->usage && wants_help(argc, argv) ? vta_extra_command_help(name) : c->run(argc, argv);
	return -1;
}

const char *vta_extra_commands_help(void)
{
	static char text[4096];
	size_t len = 0;
	text[0] = 0;
	for (const vta_command_t *c = commands; c->name; c++) {
		int k = snprintf(text + len, sizeof text - len, "  %-25s %s\n", c->name, c->help);
		if (k < 0 || (size_t)k >= sizeof text - len)
			break;
		len += (size_t)k;
	}
	return text;
}
