/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The table of every vta command. To add one, write
 * `int vta_cmd_NAME(int argc, char **argv)` in its own file, declare it in
 * tools.h and add a row here with its synopsis and usage.
 */
#include <stdio.h>
#include <string.h>

#include "tools.h"

static const char asm_usage[] = "usage: vta asm SRC.s -o OUT.bin\n\nAssemble a program (docs/assembly.md).\n\n"
				"example:\n  vta asm examples/gemm.s -o gemm.bin\n";
static const char disasm_usage[] = "usage: vta disasm PROG.bin\n\nPrint a program as assembly that assembles back.\n\n"
				   "example:\n  vta disasm gemm.bin > gemm.s\n";
static const char sim_usage[] =
	"usage: vta sim PROG.s|PROG.bin\n\nRun a program on the golden model; print its .print regions, "
	"instruction and micro-op counts, DRAM bytes and token waits.\n\nexample:\n  vta sim examples/gemm.s\n";
static const char config_usage[] = "usage: vta config\n\nThe configuration this tool was built for (GEMM tile, buffers, bus).\n\n"
				   "example:\n  vta config\n";
static const char info_usage[] = "usage: vta info [BACKEND]\n"
				 "\n"
				 "The backends this tool can open (fsim, rtl, zynq, xrt), the configuration of the\n"
				 "library and, for BACKEND, its hardware version and counters.\n"
				 "\n"
				 "examples:\n"
				 "  vta info\n"
				 "  vta info fsim\n";

const vta_command_t vta_commands[] = {
	{"asm", vta_cmd_asm, "SRC.s -o OUT.bin  assemble a program (docs/assembly.md)", asm_usage},
	{"disasm", vta_cmd_disasm, "PROG.bin  print a program as assembly", disasm_usage},
	{"sim", vta_cmd_sim, "PROG.s|PROG.bin  run a program on the golden model, print its regions and counters",
	 sim_usage},
	{"config", vta_cmd_config, "show the configuration this tool was built for", config_usage},
	{"info", vta_cmd_info, "[BACKEND]  backends on this machine; configuration, version, counters", info_usage},
	{"flash", vta_cmd_flash, "FILE.bit|FILE.bin  load a bitstream into the PL (fpga_manager; --jtag: USB-JTAG)",
	 vta_flash_usage},
	{"compile", vta_cmd_compile, "MODEL.onnx|MODEL.cfg -o MODEL.vtam  compile a network for VTA (docs/compiler.md)",
	 vta_compile_usage},
	{"opt", vta_cmd_opt, "IN.ir --passes=PIPELINE -o OUT.ir|OUT.vtam  run passes on textual IR (docs/compiler.md)",
	 vta_opt_usage},
	{"run", vta_cmd_run, "MODEL.vtam [--target=fsim|rtl] --input=F|random|--dataset=F  run a compiled network",
	 vta_run_usage},
	{"profile", vta_cmd_profile, "MODEL.vtam [--target=rtl] [-o REPORT.html]  per-layer cycles and an HTML timeline",
	 vta_profile_usage},
	{NULL, NULL, NULL, NULL},
};

const vta_command_t *vta_command_find(const char *name)
{
	for (const vta_command_t *c = vta_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int vta_command_misuse(const char *name)
{
	const vta_command_t *c = vta_command_find(name);
	if (c)
		fputs(c->usage, stderr);
	return 2;
}
