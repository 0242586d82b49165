/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `vta compile`, `vta opt`, `vta run` and `vta profile` in cross builds (CROSS=...), where the
 * compiler is left out: it needs protobuf-c and stb for the host only.
 * Compile on the host; run artifacts with a host-built vta.
 */
#include <stdio.h>

int vta_cmd_compile(int argc, char **argv);
int vta_cmd_run(int argc, char **argv);
int vta_cmd_profile(int argc, char **argv);
int vta_cmd_opt(int argc, char **argv);
extern const char vta_compile_usage[], vta_opt_usage[], vta_run_usage[], vta_profile_usage[];

#define NOT_HERE(cmd) "vta " cmd ": not part of this cross build; compile on the host and run artifacts\n" \
	"with a host-built vta, or from an application through <vta/model.h> (docs/compiler.md)\n"
const char vta_compile_usage[] = NOT_HERE("compile");
const char vta_opt_usage[] = NOT_HERE("opt");
const char vta_run_usage[] = NOT_HERE("run");
const char vta_profile_usage[] = NOT_HERE("profile");

int vta_cmd_compile(int argc, char **argv)
{
	(void)argc, (void)argv;
	/* answers --help too: there is nothing here to describe but that */
	fprintf(stderr, "vta compile: not part of this cross build; compile on the host (docs/compiler.md)\n");
	return 1;
}

int vta_cmd_run(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "vta run: not part of this cross build (docs/compiler.md)\n");
	return 1;
}

int vta_cmd_profile(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "vta profile: not part of this cross build (docs/compiler.md)\n");
	return 1;
}

int vta_cmd_opt(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "vta opt: not part of this cross build (docs/compiler.md)\n");
	return 1;
}
