/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bitgen: write the synthetic bitstreams of bitgen.h into the current
 * directory, a vta-<board>.bit (header with this build's configuration ID in
 * its UserID) and a vta-<board>.bin (the ID as USR_ACCESS in the stream) for
 * every board of boards/boards.txt.
 * The fuzz seeds (tests/fuzz/seeds.sh) and the valgrind runs of `vta flash`
 * use them; they are structurally valid, not loadable designs.
 */
#include <stdio.h>

#include <vta/vta_boards.h>
#include <vta/vta_config.h>

#include "bitgen.h"

static int put(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "bitgen: cannot write %s\n", path);
		return 1;
	}
	printf("%s\n", path);
	return 0;
}

int main(void)
{
	int rc = 0;
	for (int i = 0; vta_board_at(i); i++) {
		const vta_board_t *b = vta_board_at(i);
		size_t plen, n;
		/* Two frames of the board's family, this build's ID as USR_ACCESS. */
		int us = strcmp(b->family, "zynq-7000") != 0;
		bitgen_t g = {b->idcode, VTA_CONFIG_ID,
			      2 * (us ? BITGEN_FRAME_USPLUS : BITGEN_FRAME_7SERIES), 0, 0};
		uint8_t *payload = bitgen_stream(&g, &plen);
		char design[128], path[128];
		snprintf(design, sizeof design, "vta_wrapper;UserID=0X%08X;Version=2022.2",
			 (unsigned)VTA_CONFIG_ID);
		uint8_t *bit = bitgen_bit(design, b->part, "2026/11/29", "12:34:56", payload, plen, &n);
		snprintf(path, sizeof path, "vta-%s.bit", b->name);
		rc |= put(path, bit, n);
		snprintf(path, sizeof path, "vta-%s.bin", b->name);
		rc |= put(path, payload, plen);
		free(bit);
		free(payload);
	}
	return rc;
}
