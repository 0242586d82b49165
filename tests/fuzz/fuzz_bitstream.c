/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bitstream reader of `vta flash`: any bytes are parsed or refused with
 * a message naming the file; a parsed one converts to the image the Zynq
 * drivers load, which parses again to the same configuration data.
 */
#include "flash.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vta_bitfile_t bf;
	vta_error_t err = {0};
	if (vta_bit_parse(data, size, "fuzz.bit", &bf, &err)) {
		FUZZ_CHECK(strstr(err.msg, "fuzz.bit"), "error without the file name: %s", err.msg);
		return 0;
	}
	uint8_t *bin;
	size_t n;
	FUZZ_CHECK(vta_bit_to_bin(&bf, &bin, &n, &err) == VTA_OK, "%s", err.msg);
	vta_bitfile_t raw;
	FUZZ_CHECK(vta_bit_parse(bin, n, "fuzz.bin", &raw, &err) == VTA_OK,
		   "the converted image does not parse: %s", err.msg);
	FUZZ_CHECK(raw.len == bf.len && raw.swapped, "the converted image differs");
	free(bin);
	return 0;
}
