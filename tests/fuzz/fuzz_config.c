/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The configuration reader (config/configgen.c): any text is read into a
 * configuration or refused with a message naming the file; an accepted one
 * packs every instruction format into its word.
 */
#define CONFIGGEN_NO_MAIN
#include "config/configgen.c"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	static Gen g;
	if (configgen_generate(text, "fuzz.json", &g)) {
		FUZZ_CHECK(strstr(g.r.err, "fuzz.json"), "error without the file name: %s", g.r.err);
	} else {
		const Format *f[4] = {&g.mem, &g.gemm, &g.alu, &g.uop};
		for (int i = 0; i < 4; i++)
			for (int k = 0; k < f[i]->n; k++)
				FUZZ_CHECK(f[i]->f[k].lsb + f[i]->f[k].width <= f[i]->total_bits &&
						   f[i]->f[k].lsb / 64 == (f[i]->f[k].lsb + f[i]->f[k].width - 1) / 64,
					   "%s_%s at %d, %d bits", f[i]->name, f[i]->f[k].name,
					   f[i]->f[k].lsb, f[i]->f[k].width);
		FUZZ_CHECK(strlen(g.name) < sizeof g.name - 1, "name truncated: %s", g.name);
		FUZZ_CHECK(strlen(g.canon) < sizeof g.canon - 1, "canonical form truncated");
	}
	free(text);
	return 0;
}
