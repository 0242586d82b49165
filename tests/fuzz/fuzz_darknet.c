/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Darknet importer (vta compile MODEL.cfg [--weights W]): the input is a
 * .cfg, optionally followed by a NUL byte and a .weights file (without it,
 * seeded synthetic weights). The cfg parser refuses bad text naming the
 * line; the importer takes what parses or refuses it with a diagnostic; an
 * imported graph passes the IR verifier.
 */
#include "import/import.h"
#include "ir/ir.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t cfg_len = nul ? (size_t)(nul - data) : size;
	const uint8_t *weights = nul ? nul + 1 : NULL;
	size_t wlen = nul ? size - cfg_len - 1 : 0;

	vc_dn_cfg *cfg = NULL;
	if (vc_dn_cfg_parse("fuzz.cfg", data, cfg_len, &cfg)) {
		FUZZ_CHECK(cfg && strstr(vc_dn_cfg_error(cfg), "fuzz.cfg"), "cfg error without the file name");
		vc_dn_cfg_free(cfg);
		return 0;
	}
	vc_dn_cfg_free(cfg);

	vc_module *m = vc_module_new();
	if (!m)
		abort();
	vc_darknet_opts o = {.synthetic = weights == NULL, .seed = 1, .input_size = 0};
	if (vc_import_darknet_bytes(m, "fuzz.cfg", data, cfg_len, weights ? "fuzz.weights" : NULL, weights,
				    wlen, &o))
		FUZZ_CHECK(m->diag.msg[0], "refused without a diagnostic");
	else
		FUZZ_CHECK(vc_verify(m) == 0, "the imported graph does not verify: %s", m->diag.msg);
	vc_module_free(m);
	return 0;
}
