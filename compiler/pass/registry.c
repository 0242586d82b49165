/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every pass of the compiler, in the order of the default pipeline, and the
 * named pipelines. The only file that knows all passes.
 */
#include <string.h>

#include "graph/graph.h"
#include "quant/quant.h"
#include "vta/codegen.h"

static const vc_pass_desc *const registry[] = {
	&vc_pass_canonicalize, &vc_pass_fold_bn, &vc_pass_fold_const, &vc_pass_quantize, &vc_pass_partition,
	&vc_pass_pack,         &vc_pass_fuse,    &vc_pass_tile,       &vc_pass_lower,    &vc_pass_tokens,
	&vc_pass_emit,
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

const char *vc_pipeline_named(const char *name)
{
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		if (!strcmp(name, named[i].name))
			return named[i].text ? named[i].text : vc_default_pipeline;
	return NULL;
}
