/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `vta opt IN.ir --passes=PIPELINE -o OUT`: a module read from its textual
 * IR (any level), a pipeline run on it with the instruments, and the result
 * written as IR, or as an artifact when OUT ends in .vtam.
 *
 *   --passes=            nothing runs: OUT is IN byte for byte
 *   --passes=default     the rest of vta-default from IN's level (passes
 *                        whose properties IN has already are left out), so
 *                        `vta compile M --emit-ir=graph -o g.ir` then
 *                        `vta opt g.ir --passes=default -o b.vtam` gives the
 *                        artifact `vta compile M -o a.vtam` gives
 *   vta opt REPRO        a reproducer (--reproducer=FILE of vta compile or
 *                        vta opt): its `remaining:` pipeline on its module
 *   --list-passes        every pass, its level, properties and options
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

const char vta_opt_usage[] =
	"usage: vta opt IN.ir --passes=PIPELINE -o OUT.ir|OUT.vtam [options]\n"
	"       vta opt REPRODUCER [-o OUT]     (re-run the failing pass of a reproducer)\n"
	"       vta opt --list-passes\n"
	"\n"
	"Reads a module in textual IR (vta compile --emit-ir=graph|kernel|stream), runs the pipeline\n"
	"and writes the IR, or the artifact when OUT ends in .vtam.\n"
	"  --passes=TEXT|NAME        pipeline text or a named pipeline; empty: nothing runs;\n"
	"                            'default': the rest of vta-default from the file's level\n"
	"  --calib=FILE|synthetic --calib-count=N   calibration samples (for quantize)\n"
	"  --verify-each --verify-analyses --time-passes --stats   instruments\n"
	"  --threads=N               kernel groups on N threads (when every pass and instrument allows)\n"
	"  --reproducer=FILE         on a failure or crash, the module before the failing pass and\n"
	"                            the rest of the pipeline, for `vta opt FILE`\n"
	"  --print-ir-before=PASS|all --print-ir-after=PASS|all --print-ir-after-change\n"
	"\n"
	"examples:\n"
	"  vta compile ../shared/models/mnist-8.onnx --calib=../shared/data/mnist-10k-images-idx3-ubyte \\\n"
	"      --emit-ir=graph -o mnist.ir\n"
	"  vta opt mnist.ir --passes='kernel(tile)' --print-ir-after=tile -o mnist-tiled.ir\n"
	"  vta opt mnist.ir --passes=default -o mnist.vtam\n";

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

int vta_cmd_opt(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *passes = NULL;
	vc_compile_opts o;
	memset(&o, 0, sizeof o);
	for (int i = 0; i < argc; i++) {
		const char *v;
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(vta_opt_usage, stdout);
			return 0;
		} else if ((v = vc_take_opt(argc, argv, &i, "--passes")))
			passes = v;
		else if (!strcmp(argv[i], "--list-passes")) {
			vc_pass_list(stdout);
			return 0;
		} else if (vc_instr_opt(argc, argv, &i, &o.instr))
			;
		else if ((v = vc_take_opt(argc, argv, &i, "--calib")))
			o.calib_path = v;
		else if ((v = vc_take_opt(argc, argv, &i, "--calib-count")))
			o.calib_count = atoi(v);
		else if (argv[i][0] == '-') {
			fprintf(stderr, "vta opt: unknown option %s\n", argv[i]);
			return 2;
		} else if (!in)
			in = argv[i];
		else {
			fprintf(stderr, "vta opt: more than one input given\n");
			return 2;
		}
	}
	if (!in) {
		fputs(vta_opt_usage, stderr);
		return 2;
	}
	char err[1024];
	size_t len;
	uint8_t *text = vc_read_all(in, &len, err, sizeof err);
	if (!text) {
		fprintf(stderr, "vta opt: %s\n", err);
		return 1;
	}
	/* A reproducer: its remaining pipeline, on the module after its header. */
	const char *ir = (const char *)text, *rem;
	char remaining[8192];
	if (!strncmp(ir, "# vta compile reproducer", 24) && (rem = strstr(ir, "\nremaining: ")) &&
	    (ir = strstr(rem, "\nmodule {"))) {
		rem += 12;
		size_t k = (size_t)(strchr(rem, '\n') - rem);
		if (!passes && k < sizeof remaining) {
			memcpy(remaining, rem, k);
			remaining[k] = 0;
			passes = remaining;
			const char *ins = strstr(text ? (const char *)text : "", "\ninstruments: ");
			if (ins && ins < ir) {
				char line[128];
				snprintf(line, sizeof line, "%.*s", (int)strcspn(ins + 1, "\n"), ins + 1);
				o.instr.verify_each |= strstr(line, "--verify-each") != NULL;
				o.instr.verify_analyses |= strstr(line, "--verify-analyses") != NULL;
			}
			fprintf(stderr, "vta opt: replaying %s: --passes='%s'%s%s\n", in, passes,
				o.instr.verify_each ? " --verify-each" : "", o.instr.verify_analyses ? " --verify-analyses" : "");
		}
		ir++;
	} else
		ir = (const char *)text;
	if (!passes || (!out && passes != remaining)) {
		fputs(vta_opt_usage, stderr);
		free(text);
		return 2;
	}
	vc_module *m = vc_module_new();
	int rc = 1;
	if (!m)
		goto done;
	if (vc_parse_module(m, in, ir, len - (size_t)(ir - (const char *)text))) {
		fprintf(stderr, "vta opt: %s\n", m->diag.msg);
		goto done;
	}
	o.instr.out = stderr; /* the reports of --print-ir-*, --stats, --time-passes */
	vc_guard_install(&o.instr);
	if (*passes) {
		o.pipeline = strcmp(passes, "default") ? passes : "vta-default";
		o.skip_done = !strcmp(passes, "default");
		if (vc_compile(m, &o, err, sizeof err)) {
			fprintf(stderr, "vta opt: %s\n", err);
			if (o.instr.reproducer)
				fprintf(stderr, "vta opt: reproducer written to %s\n", o.instr.reproducer);
			goto done;
		}
	}
	if (!out) {
		rc = 0;
		goto done;
	}
	if (ends_with(out, ".vtam")) {
		if (!m->stream) {
			fprintf(stderr, "vta opt: %s: the module has no device image yet (run through emit first)\n", out);
			goto done;
		}
		if (vc_artifact_write(m, out)) {
			fprintf(stderr, "vta opt: %s\n", m->diag.msg);
			goto done;
		}
	} else if (vc_write_ir(m, out, err, sizeof err)) {
		fprintf(stderr, "vta opt: %s\n", err);
		goto done;
	}
	rc = 0;
done:
	free(text);
	vc_module_free(m);
	return rc;
}
