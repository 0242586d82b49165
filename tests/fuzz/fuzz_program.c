/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The program-file reader (vta sim, vta disasm): any bytes are read or
 * refused with a message naming the file; what is read lies inside the DRAM
 * it claims, disassembles to text that assembles back to the same program,
 * and, when small, is placed and run on the golden model as `vta sim` does
 * (the model may refuse the instructions, but never touches memory it does
 * not own).
 */
#include <vta/asm.h>
#include <vta/fsim.h>
#include <vta/isa.h>

#include "fuzz.h"

/* Golden-model runs are kept to programs of at most this many element moves
 * and micro-op iterations, so one input stays fast. */
#define MAX_WORK 20000
#define SIM_DRAM (1u << 20)

static uint64_t work_of(const vta_program_t *p)
{
	uint64_t w = 0;
	for (size_t i = 0; i < p->n_insns; i++) {
		vta_insn_t in;
		vta_insn_decode(&p->insns[i], &in);
		if (in.opcode == VTA_OPCODE_GEMM || in.opcode == VTA_OPCODE_ALU)
			w += (uint64_t)in.iter_out * in.iter_in *
			     (in.uop_end > in.uop_bgn ? in.uop_end - in.uop_bgn : 0);
		else if (in.opcode == VTA_OPCODE_LOAD || in.opcode == VTA_OPCODE_STORE)
			w += (uint64_t)(in.y_size + in.y_pad_0 + in.y_pad_1) *
			     (in.x_size + in.x_pad_0 + in.x_pad_1);
		w += 1;
	}
	return w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static vta_fsim_t *sim;
	vta_program_t p;
	vta_error_t err = {0};
	if (vta_program_parse(data, size, "fuzz.bin", &p, &err)) {
		FUZZ_CHECK(strstr(err.msg, "fuzz.bin"), "error without the file name: %s", err.msg);
		return 0;
	}
	uint64_t end = vta_program_extent(&p);
	FUZZ_CHECK(end <= (p.dram_bytes ? p.dram_bytes : VTA_PROGRAM_MAX_DRAM),
		   "the reader accepted a program reaching byte %llu", (unsigned long long)end);
	fuzz_check_round_trip(&p);

	uint64_t dram = p.dram_bytes ? p.dram_bytes : SIM_DRAM;
	if (dram <= SIM_DRAM && work_of(&p) <= MAX_WORK && p.n_insns <= UINT32_MAX) {
		if (!sim && !(sim = vta_fsim_create(SIM_DRAM, &err)))
			abort();
		vta_fsim_reset(sim);
		vta_fsim_clear_counters(sim);
		uint8_t *mem = vta_fsim_dram(sim);
		memset(mem, 0, SIM_DRAM);
		int rc = vta_program_place(&p, mem, dram, &err);
		if (end <= dram)
			FUZZ_CHECK(rc == VTA_OK, "%s", err.msg);
		if (rc == VTA_OK) {
			vta_fsim_set_bases(sim, &p.bases);
			rc = vta_fsim_run(sim, p.text_addr, (uint32_t)p.n_insns, &err);
			if (rc)
				FUZZ_CHECK(err.msg[0], "the golden model failed without a message");
		}
	}
	vta_program_free(&p);
	return 0;
}
