/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The assembler (vta asm, vta sim PROG.s): any text is assembled or refused
 * with a message naming the line; what assembles stays inside the DRAM it
 * claims, disassembles, and the disassembly assembles to the same program.
 */
#include <vta/asm.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	vta_program_t p;
	vta_error_t err = {0};
	int rc = vta_asm(text, "fuzz.s", &p, &err);
	if (rc) {
		FUZZ_CHECK(err.msg[0] && strstr(err.msg, "fuzz.s"), "error without the file name: %s",
			   err.msg);
	} else {
		uint64_t end = vta_program_extent(&p);
		FUZZ_CHECK(!p.dram_bytes || end <= p.dram_bytes, "extent %llu beyond .dram %llu",
			   (unsigned long long)end, (unsigned long long)p.dram_bytes);
		fuzz_check_round_trip(&p);
		vta_program_free(&p);
	}
	free(text);
	return 0;
}
