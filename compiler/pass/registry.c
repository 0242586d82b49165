/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every pass of the compiler, in the order of the default pipeline, and the
 * named pipelines. The only file that knows all passes.
 */
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "quant/quant.h"
#include "vta/codegen.h"

/* inject-fault: a pass that fails on purpose (tests of the verifier, the
 * reproducer and the crash guard; docs/passes.md). */
static int inject_fault(vc_pass *p, vc_module *m, vc_unit *u)
{
	if (vc_opt_int(p, "kernel") != u->kernel->id)
		return 0;
	switch (vc_opt_int(p, "mode")) {
	case 0:
		return vc_error(m, u->kernel->node, "inject-fault: the error asked for on kernel @k%d", u->kernel->id);
	case 1:
		abort();
	default: /* a GEMM past the micro-ops loaded for it: the verifier's to catch */
		for (int i = 0; i < u->kernel->n; i++)
			if (u->kernel->code[i].insn.opcode == VTA_OPCODE_GEMM && !u->kernel->code[i].insn.reset) {
				u->kernel->code[i].insn.uop_end += 200;
				break;
			}
		return 0;
	}
}

static const vc_pass_desc vc_pass_inject_fault = {
	.name = "inject-fault",
	.summary = "testing aid: fail, crash or break a GEMM's micro-op range on one kernel",
	.anchor = VC_ANCHOR_KERNEL,
	.parallel = 1,
	.opts = {{"mode", VC_OPT_ENUM, "error", "what to do", "error|crash|break-uops"},
		 {"kernel", VC_OPT_INT, "0", "the kernel id to do it on", NULL}},
	.run = inject_fault,
};

static const vc_pass_desc *const registry[] = {
	&vc_pass_canonicalize, &vc_pass_fold_bn, &vc_pass_fold_const, &vc_pass_quantize, &vc_pass_partition,
	&vc_pass_pack,         &vc_pass_fuse,    &vc_pass_tile,       &vc_pass_lower,    &vc_pass_tokens,
	&vc_pass_emit,         &vc_pass_inject_fault,
};
#define N_PASSES ((int)(sizeof registry / sizeof registry[0]))

const char *const vc_default_pipeline =
	"module(graph(canonicalize,fold-bn,fold-const,quantize,partition,fuse,pack),"
	"kernel(tile,lower,tokens),stream(emit))";

/* Named pipelines. */
static const struct {
	const char *name, *text;
} named[] = {
	{"vta-default", NULL}, /* vc_default_pipeline */
	{"float", "module(graph(canonicalize,fold-bn,fold-const))"},
};

int vc_pass_count(void)
{
	return N_PASSES;
}

const vc_pass_desc *vc_pass_at(int i)
{
	return i >= 0 && i < N_PASSES ? registry[i] : NULL;
}

const vc_pass_desc *vc_pass_lookup(const char *name)
{
	for (int i = 0; i < N_PASSES; i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

/* What each pass preserves, in one place to review (--verify-analyses checks
 * every claim after every pass). The graph passes that rewrite nodes
 * preserve nothing; partition only marks nodes; tile writes a kernel's
 * tiling, which no analysis reads; lower and tokens write its code (the
 * code summary); emit writes the stream only. */
#define VC_PRESERVES_NOT_CODE (VC_PRESERVES_ALL & ~VC_PRESERVES(VC_AN_CODE_SUMMARY))
static const struct {
	const char *name;
	uint32_t preserves;
} preserved[] = {
	{"partition", VC_PRESERVES_ALL},
	{"tile", VC_PRESERVES_ALL},
	{"lower", VC_PRESERVES_NOT_CODE},
	{"tokens", VC_PRESERVES_NOT_CODE},
	{"emit", VC_PRESERVES_ALL},
	{"inject-fault", VC_PRESERVES_ALL}, /* a lie for mode=break-uops: --verify-analyses catches it */
};

uint32_t vc_pass_preserves(const vc_pass_desc *d)
{
	for (size_t i = 0; i < sizeof preserved / sizeof preserved[0]; i++)
		if (vc_pass_lookup(preserved[i].name) == d)
			return preserved[i].preserves;
	return d->preserves;
}

const char *vc_pipeline_name_at(int i)
{
	return i >= 0 && (size_t)i < sizeof named / sizeof named[0] ? named[i].name : NULL;
}

const char *vc_pipeline_named(const char *name)
{
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		if (!strcmp(name, named[i].name))
			return named[i].text ? named[i].text : vc_default_pipeline;
	return NULL;
}
