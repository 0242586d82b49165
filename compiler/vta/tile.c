/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tile: the tiling of each kernel, chosen by the cycle model. The plan
 * (vta/plan.c) ranks every tiling that fits the SRAMs and the ISA by a quick
 * estimate; the best few are lowered, given their tokens and run through the
 * cycle model (vta/cost.c), and the fastest is kept.
 */
#include <stdlib.h>

#include "vta/codegen.h"

/* Cycles the cycle model predicts for the kernel lowered with tl; -1 if it
 * cannot be lowered. */
static int64_t model_cycles(vc_module *m, vc_kernel *k, const vc_geom *g, const vc_tiling *tl, const vc_timing *tm)
{
	vc_kernel c = {.id = k->id, .node = k->node, .tile = *tl, .tiled = 1};
	int64_t cycles = -1, tokens;
	vc_cost cost;
	if (!vc_lower_kernel(m, &c, g, tl, 1, NULL) && !vc_kernel_tokens(m, &c, &tokens) &&
	    !vc_cost_kernel(tm, &c, &cost, NULL))
		cycles = cost.cycles;
	free(c.code);
	free(c.uops);
	return cycles;
}

static int tile(vc_pass *p, vc_module *m, vc_unit *u)
{
	vc_kernel *k = u->kernel;
	/* geometry and plan from the analysis manager: computed once a kernel
	 * (lower reuses the geometry; --verify-analyses checks both) */
	const vc_geom *gp = vc_unit_geom(m, u);
	const vc_plan *plan = vc_unit_plan(m, u);
	if (!gp || !plan)
		return vc_error(m, k->node, "tile: out of memory");
	if (!plan->ok)
		return vc_error(m, k->node, "tile: %s", plan->why);
	k->tile = plan->tiling;
	const vc_geom g = *gp;
	vc_timing tm;
	vc_timing_default(&tm);
	if (vc_opt_int(p, "latency") > 0)
		tm.dram_latency = tm.wr_latency = (int)vc_opt_int(p, "latency");
	vc_tiling want = {(int)vc_opt_int(p, "th"), (int)vc_opt_int(p, "tco"), (int)vc_opt_int(p, "tci"), 0, 0, 0};
	vc_tiling cand[VC_PLAN_KEEP];
	/* ALU passes a vector (lower.c): bias, SHR, MAX, MIN; a leaky ReLU's copy
	 * T (reset, ADD), its shift, the offset ADD and the MAX; a residual on
	 * the ALU path its SHR and ADD, on the GEMM path the SHR before it (if any) */
	int alu_ops = 4 + (g.leaky ? 5 : 0) + (g.res && !g.res_gemm ? 2 : 0) + (g.res_pre ? 1 : 0);
	int n = vc_tiling_candidates(&m->target, &g, &tm, alu_ops, &want, cand, (int)vc_opt_int(p, "candidates"));
	if (!n && (want.th || want.tco || want.tci))
		return vc_error(m, k->node, "tile: no tiling with th=%d tco=%d tci=%d fits", want.th, want.tco, want.tci);
	int64_t best = -1;
	vc_diag saved = m->diag; /* a candidate that fails to lower leaves no error behind */
	for (int i = 0; i < n; i++) {
		int64_t c = model_cycles(m, k, &g, &cand[i], &tm);
		if (c > 0 && (best < 0 || c < best)) {
			best = c;
			k->tile = cand[i];
		}
	}
	m->diag = saved;
	k->tiled = 1;
	vc_stat_add(p, "kernels", 1);
	if (!k->tile.pingpong)
		vc_stat_add(p, "single-buffered", 1);
	if (k->tile.resident)
		vc_stat_add(p, "resident", 1);
	if (best > 0)
		vc_stat_add(p, "model-cycles", best);
	return 0;
}

const vc_pass_desc vc_pass_tile = {
	.name = "tile",
	.summary = "choose the tiling (sizes, loop order, residency, ping-pong) the cycle model finds fastest",
	.anchor = VC_ANCHOR_KERNEL,
	.preserves = VC_PRESERVES_ALL, /* a kernel's tiling, which no analysis reads */
	.requires_props = VC_PROP_PACKED,
	.provides_props = VC_PROP_TILED,
	.parallel = 1,
	.opts = {{"candidates", VC_OPT_INT, "24", "tilings (best by the quick estimate) run through the cycle model", NULL},
		 {"latency", VC_OPT_INT, "0", "DRAM latency in cycles to tile for (0: the board's modelled latency)", NULL},
		 {"th", VC_OPT_INT, "0", "output rows per tile (0: the model's choice)", NULL},
		 {"tco", VC_OPT_INT, "0", "output channel blocks per tile (0: the model's choice)", NULL},
		 {"tci", VC_OPT_INT, "0", "input channel blocks per reduction step (0: the model's choice)", NULL}},
	.stats = {"kernels", "single-buffered", "resident", "model-cycles"},
	.run = tile,
};
