/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every pass of the compiler, in the order of the default pipeline, its
 * analyses and the named pipelines: the registry the generic pass manager
 * is handed. The only file that knows all passes.
 */
#include <string.h>

#include "graph/graph.h"
#include "pipeline/pipeline.h"
#include "quant/quant.h"
#include "vta/codegen.h"

static const vc_pass_desc *const passes[] = {
	&vc_pass_canonicalize, &vc_pass_fold_bn, &vc_pass_fold_const, &vc_pass_quantize, &vc_pass_partition,
	&vc_pass_pack,         &vc_pass_fuse,    &vc_pass_tile,       &vc_pass_lower,    &vc_pass_tokens,
	&vc_pass_emit,         &vc_pass_inject_fault,
};
#define N_PASSES ((int)(sizeof passes / sizeof passes[0]))

#define DEFAULT_PIPELINE                                                                             \
	"module(graph(canonicalize,fold-bn,fold-const,quantize,partition,fuse,pack),"                 \
	"kernel(tile,lower,tokens),stream(emit))"
const char *const vc_default_pipeline = DEFAULT_PIPELINE;

static const vc_pipeline_name named[] = {
	{"vta-default", DEFAULT_PIPELINE},
	{"float", "module(graph(canonicalize,fold-bn,fold-const))"},
};

const vc_registry vc_registry_vta = {
	.passes = passes,
	.n_passes = N_PASSES,
	.analyses = vc_vta_analyses,
	.n_analyses = VC_AN_COUNT,
	.pipelines = named,
	.n_pipelines = (int)(sizeof named / sizeof named[0]),
};

vc_pm *vc_pm_parse(const char *text, char *err, size_t n)
{
	return vc_pm_parse_in(&vc_registry_vta, text, err, n);
}

void vc_pass_list(FILE *f)
{
	vc_pass_list_in(&vc_registry_vta, f);
}

const vc_pass_desc *vc_pass_lookup(const char *name)
{
	return vc_registry_pass(&vc_registry_vta, name);
}

int vc_pass_count(void)
{
	return N_PASSES;
}

const vc_pass_desc *vc_pass_at(int i)
{
	return i >= 0 && i < N_PASSES ? passes[i] : NULL;
}

const char *vc_pipeline_named(const char *name)
{
	return vc_registry_pipeline(&vc_registry_vta, name);
}
