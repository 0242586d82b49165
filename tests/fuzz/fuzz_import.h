/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The property every model importer keeps (fuzz_onnx.c, fuzz_tflite.c): any
 * bytes are imported or refused with a diagnostic; an imported graph passes
 * the IR verifier.
 */
#ifndef VTA_TESTS_FUZZ_IMPORT_H
#define VTA_TESTS_FUZZ_IMPORT_H

#include "import/import.h"
#include "ir/ir.h"

#include "fuzz.h"

static inline void fuzz_import(int (*import)(vc_module *, const uint8_t *, size_t), const uint8_t *data,
			       size_t size)
{
	vc_module *m = vc_module_new();
	if (!m)
		abort();
	if (import(m, data, size))
		FUZZ_CHECK(m->diag.msg[0], "refused without a diagnostic");
	else
		FUZZ_CHECK(vc_verify(m) == 0, "the imported graph does not verify: %s", m->diag.msg);
	vc_module_free(m);
}

#endif
