/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inject-fault: a pass that fails on purpose, for the tests of the
 * verifier, the reproducer and the crash guard (docs/passes.md).
 */
#include <stdlib.h>

#include "ir/kernel.h"
#include "pipeline/pipeline.h"

enum { FAULT_ERROR, FAULT_CRASH, FAULT_BREAK_UOPS }; /* its mode option's choices, in order */

static int inject_fault(vc_pass *p, vc_module *m, vc_unit *u)
{
	if (vc_opt_int(p, "kernel") != u->kernel->id)
		return 0;
	switch (vc_opt_int(p, "mode")) {
	case FAULT_ERROR:
		return vc_error(m, u->kernel->node, "inject-fault: the error asked for on kernel @k%d", u->kernel->id);
	case FAULT_CRASH:
		abort();
	default: /* FAULT_BREAK_UOPS: a GEMM past the micro-ops loaded for it, the verifier's to catch */
		for (int i = 0; i < u->kernel->n; i++)
			if (u->kernel->code[i].insn.opcode == VTA_OPCODE_GEMM && !u->kernel->code[i].insn.reset) {
				u->kernel->code[i].insn.uop_end += 200;
				break;
			}
		return 0;
	}
}

const vc_pass_desc vc_pass_inject_fault = {
	.name = "inject-fault",
	.summary = "testing aid: fail, crash or break a GEMM's micro-op range on one kernel",
	.anchor = VC_ANCHOR_KERNEL,
	.parallel = 1,
	.preserves = VC_PRESERVES_ALL, /* a lie for mode=break-uops: --verify-analyses catches it */
	.opts = {{"mode", VC_OPT_ENUM, "error", "what to do", "error|crash|break-uops"},
		 {"kernel", VC_OPT_INT, "0", "the kernel id to do it on", NULL}},
	.run = inject_fault,
};
