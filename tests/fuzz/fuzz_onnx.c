/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ONNX importer (vta compile): any bytes are imported or refused with a
 * diagnostic; an imported graph passes the IR verifier.
 */
#include "import/import.h"
#include "ir/ir.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vc_module *m = vc_module_new();
	if (!m)
		abort();
	if (vc_import_onnx_bytes(m, data, size)) {
		FUZZ_CHECK(m->diag.msg[0], "refused without a diagnostic");
	} else {
		FUZZ_CHECK(vc_verify(m) == 0, "the imported graph does not verify: %s", m->diag.msg);
	}
	vc_module_free(m);
	return 0;
}
