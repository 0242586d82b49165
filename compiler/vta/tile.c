/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tile: the tiling plan of each kernel (vta/plan.c), kept in the kernel.
 */
#include "vta/codegen.h"

static int tile(vc_pass *p, vc_module *m, vc_unit *u)
{
	vc_kernel *k = u->kernel;
	vc_geom g;
	vc_geom_of(&m->target, k->node, &g);
	char why[256];
	if (vc_kernel_plan(&m->target, &g, &k->tile, why, sizeof why))
		return vc_error(m, k->node, "tile: %s", why);
	k->tiled = 1;
	vc_stat_add(p, "kernels", 1);
	if (!k->tile.pingpong)
		vc_stat_add(p, "single-buffered", 1);
	return 0;
}

const vc_pass_desc vc_pass_tile = {
	.name = "tile",
	.summary = "choose a tiling that fits the SRAMs with ping-pong halves",
	.anchor = VC_ANCHOR_KERNEL,
	.requires_props = VC_PROP_PACKED,
	.provides_props = VC_PROP_TILED,
	.stats = {"kernels", "single-buffered"},
	.run = tile,
};
