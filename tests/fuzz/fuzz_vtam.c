/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .vtam loader (vta run): any bytes are loaded or refused with a
 * diagnostic; a loaded artifact writes back to bytes that load again and
 * write back identically. The file size and CRC-32C of the header are set
 * to match the input first (when it is long enough for a header), so that
 * mutations reach the section and graph decoders instead of stopping at the
 * checksum (test_mgraph checks the checksum itself).
 */
#include <vta/vtam.h>

#include "artifact/artifact.h"
#include "ir/ir.h"

#include "fuzz.h"

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size)
{
	uint8_t *data = malloc(size ? size : 1);
	if (!data)
		abort();
	memcpy(data, input, size);
	if (size >= 48) {
		put_le(data + 16, size, 8);
		put_le(data + 32, 0, 4);
		put_le(data + 32, vta_crc32c(0, data, size), 4);
	}
	vc_module *m = vc_module_new();
	if (!m)
		abort();
	if (vc_artifact_parse(m, data, size)) {
		FUZZ_CHECK(m->diag.msg[0], "refused without a diagnostic");
		vc_module_free(m);
		free(data);
		return 0;
	}
	uint8_t *b1, *b2;
	size_t n1, n2;
	FUZZ_CHECK(vc_artifact_bytes(m, &b1, &n1) == 0, "a loaded artifact does not write: %s",
		   m->diag.msg);
	vc_module *m2 = vc_module_new();
	if (!m2)
		abort();
	FUZZ_CHECK(vc_artifact_parse(m2, b1, n1) == 0, "a written artifact does not load: %s",
		   m2->diag.msg);
	FUZZ_CHECK(vc_artifact_bytes(m2, &b2, &n2) == 0, "%s", m2->diag.msg);
	FUZZ_CHECK(n1 == n2 && !memcmp(b1, b2, n1), "load/write is not stable (%zu, %zu bytes)", n1,
		   n2);
	free(b1);
	free(b2);
	vc_module_free(m2);
	vc_module_free(m);
	free(data);
	return 0;
}
