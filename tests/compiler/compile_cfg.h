/* SPDX-License-Identifier: Apache-2.0 */
/*
 * For the compiler's tests: a Darknet cfg text with synthetic weights,
 * compiled (pipeline NULL: the default) with one synthetic calibration
 * sample; NULL (the failure recorded) if it does not compile.
 */
#ifndef VC_TEST_COMPILE_CFG_H
#define VC_TEST_COMPILE_CFG_H

#include "cli/cli.h"
#include "import/import.h"
#include "test.h"

static inline vc_module *compile_cfg(const char *cfg, uint64_t seed, const char *pipeline)
{
	vc_darknet_opts o = {.synthetic = 1, .seed = seed};
	vc_compile_opts co = {.pipeline = pipeline, .calib_path = "synthetic", .calib_count = 1};
	char err[1024];
	vc_module *m = vc_module_new();
	int rc = vc_import_darknet_bytes(m, "t.cfg", (const uint8_t *)cfg, strlen(cfg), NULL, NULL, 0, &o);
	CHECK_EQ(rc, 0);
	if (!rc)
		CHECK_EQ(rc = vc_compile(m, &co, err, sizeof err), 0);
	if (rc) {
		vc_module_free(m);
		return NULL;
	}
	return m;
}

#endif
