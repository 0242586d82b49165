/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bitstream reader of `vta flash`: any bytes are parsed or refused with
 * a message naming the file; what parses is checked against every board
 * (refused with a message, or accepted), converts to the image the Zynq
 * drivers load, and that image parses again to the same stream.
 */
#include <vta/vta_config.h>

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
	for (int i = 0; vta_board_at(i); i++) {
		err.msg[0] = 0;
		if (vta_bit_check(&bf, vta_board_at(i), VTA_CONFIG_ID, 0, "fuzz.bit", &err))
			FUZZ_CHECK(err.msg[0], "refused without a message");
	}
	uint8_t *bin;
	size_t n;
	FUZZ_CHECK(vta_bit_to_bin(&bf, &bin, &n, &err) == VTA_OK, "%s", err.msg);
	vta_bitfile_t raw;
	FUZZ_CHECK(vta_bit_parse(bin, n, "fuzz.bin", &raw, &err) == VTA_OK,
		   "the converted image does not parse: %s", err.msg);
	FUZZ_CHECK(raw.len == bf.len && raw.swapped && !memcmp(&raw.stream, &bf.stream, sizeof raw.stream),
		   "the converted image says something else");
	free(bin);
	return 0;
}
