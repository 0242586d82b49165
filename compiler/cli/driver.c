/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compiler driver, shared by `vta compile` and `vta opt`: calibration
 * samples and the pipeline on an imported module (vc_compile), the module
 * written as textual IR, and the --emit-ir levels.
 */
#include <string.h>

#include "cli/cli.h"

int vc_compile(vc_module *m, const vc_compile_opts *o, char *err, size_t n)
{
	if (o->calib_path) {
		int had = m->calib.count;
		if (vc_calib_add(m, o->calib_path, o->calib_count, o->calib_offset_set ? o->calib_offset : -1, err, n))
			return -1;
		/* the preprocessing `vta run` will apply to inputs (not to synthetic samples) */
		if ((o->pre.scale || o->pre.n_mean || o->pre.n_std) && strcmp(o->calib_path, "synthetic"))
			for (int s = had; s < m->calib.count; s++)
				vc_preproc_apply(&o->pre, &m->g->inputs[0]->type, m->calib.data + (size_t)s * (size_t)m->calib.elems);
	}
	vc_pm *pm = vc_pm_parse(o->pipeline ? o->pipeline : "vta-default", err, n);
	if (!pm)
		return -1;
	if (o->skip_done) {
		int from = 0;
		while (from < vc_pm_length(pm) && !(vc_pm_desc(pm, from)->provides_props & ~m->props))
			from++;
		vc_pm_keep(pm, from, vc_pm_length(pm));
	}
	if (o->stop_level > 0) {
		int to = 0;
		for (int i = 0; i < vc_pm_length(pm); i++)
			if ((int)vc_pm_desc(pm, i)->anchor <= o->stop_level - 1)
				to = i + 1;
		vc_pm_keep(pm, 0, to);
	}
	int rc = vc_pm_run(pm, m, &o->instr);
	vc_pm_free(pm);
	if (rc)
		snprintf(err, n, "%s", m->diag.msg);
	return rc;
}

int vc_write_ir(const vc_module *m, const char *path, char *err, size_t n)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, n, "%s: cannot write", path);
		return -1;
	}
	vc_print_module(f, m, 0);
	if (fclose(f)) {
		snprintf(err, n, "%s: write failed", path);
		return -1;
	}
	return 0;
}

int vc_emit_level(const char *name)
{
	return !strcmp(name, "graph") ? VC_ANCHOR_GRAPH + 1 : !strcmp(name, "kernel") ? VC_ANCHOR_KERNEL + 1
							  : !strcmp(name, "stream") ? VC_ANCHOR_STREAM + 1 : 0;
}
