// SPDX-License-Identifier: Apache-2.0
//
// A C++ program written the way TVM's VTA board tests are: instructions
// built as bit-field structs through `union VTAInsn`, buffers from
// VTAMemAlloc, the registers mapped with VTAMapRegister and written directly
// (base registers set to the buffers, buffer-relative DRAM offsets), done
// polled with VTAReadMappedReg. It must compile unchanged against the
// installed headers (make check-install) and compute a GEMM block right on
// the rtl backend; and a start whose stream reaches outside the process's
// buffers must not run.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <vta/driver.h>
#include <vta/hw_spec.h>
#include <vta/pynq_driver.h>
#include <vta/runtime.h>

static VTAGenericInsn mem_insn(int opcode, int type, int dram_offset, int size, int pop_prev,
			       int pop_next, int push_prev, int push_next)
{
	union VTAInsn converter;
	VTAMemInsn insn = {};
	insn.opcode = opcode;
	insn.pop_prev_dep = pop_prev;
	insn.pop_next_dep = pop_next;
	insn.push_prev_dep = push_prev;
	insn.push_next_dep = push_next;
	insn.memory_type = type;
	insn.sram_base = 0;
	insn.dram_base = dram_offset;
	insn.y_size = 1;
	insn.x_size = size;
	insn.x_stride = size;
	converter.mem = insn;
	return converter.generic;
}

static VTAGenericInsn gemm_insn(bool reset, int pop_prev, int pop_next, int push_prev, int push_next)
{
	union VTAInsn converter;
	VTAGemInsn insn = {};
	insn.opcode = VTA_OPCODE_GEMM;
	insn.pop_prev_dep = pop_prev;
	insn.pop_next_dep = pop_next;
	insn.push_prev_dep = push_prev;
	insn.push_next_dep = push_next;
	insn.reset_reg = reset;
	insn.uop_bgn = 0;
	insn.uop_end = 1;
	insn.iter_out = 1;
	insn.iter_in = 1;
	converter.gemm = insn;
	return converter.generic;
}

static VTAGenericInsn finish_insn(bool pop_prev, bool pop_next)
{
	union VTAInsn converter;
	VTAGemInsn insn = {};
	insn.opcode = VTA_OPCODE_FINISH;
	insn.pop_prev_dep = pop_prev;
	insn.pop_next_dep = pop_next;
	converter.gemm = insn;
	return converter.generic;
}

// Start the stream the way test_lib.cc's vta() does; true when done.
static bool run(uint32_t insn_count, VTAGenericInsn *insns, VTAUop *uops, int8_t *inputs,
		int8_t *weights, int8_t *outputs)
{
	void *fetch = VTAMapRegister(VTA_FETCH_ADDR);
	void *load = VTAMapRegister(VTA_LOAD_ADDR, VTA_RANGE);
	void *compute = VTAMapRegister(VTA_COMPUTE_ADDR);
	void *store = VTAMapRegister(VTA_STORE_ADDR);
	if (!fetch || !load || !compute || !store) {
		std::fprintf(stderr, "tvm_board_test: VTAMapRegister: %s\n", vta_errmsg(NULL));
		std::exit(1);
	}
	VTAWriteMappedReg(fetch, VTA_FETCH_INSN_COUNT_OFFSET, insn_count);
	VTAWriteMappedReg(fetch, VTA_FETCH_INSN_ADDR_OFFSET, VTAMemGetPhyAddr(insns));
	VTAWriteMappedReg(load, VTA_LOAD_INP_ADDR_OFFSET, VTAMemGetPhyAddr(inputs));
	VTAWriteMappedReg(load, VTA_LOAD_WGT_ADDR_OFFSET, VTAMemGetPhyAddr(weights));
	VTAWriteMappedReg(compute, VTA_COMPUTE_UOP_ADDR_OFFSET, VTAMemGetPhyAddr(uops));
	VTAWriteMappedReg(compute, VTA_COMPUTE_BIAS_ADDR_OFFSET, 0);
	VTAWriteMappedReg(store, VTA_STORE_OUT_ADDR_OFFSET, VTAMemGetPhyAddr(outputs));
	VTAWriteMappedReg(fetch, 0x0, VTA_START);
	VTAWriteMappedReg(load, 0x0, VTA_AUTORESTART);
	VTAWriteMappedReg(compute, 0x0, VTA_AUTORESTART);
	VTAWriteMappedReg(store, 0x0, VTA_AUTORESTART);
	int t;
	for (t = 0; t < 100000; ++t)
		if (VTAReadMappedReg(compute, VTA_COMPUTE_DONE_RD_OFFSET) & VTA_DONE)
			break;
	VTAUnmapRegister(fetch);
	VTAUnmapRegister(load, VTA_RANGE);
	VTAUnmapRegister(compute);
	VTAUnmapRegister(store);
	return t < 100000;
}

int main()
{
	const int inp_bytes = VTA_BATCH * VTA_BLOCK_IN, wgt_bytes = VTA_BLOCK_OUT * VTA_BLOCK_IN,
		  out_bytes = VTA_BATCH * VTA_BLOCK_OUT;
	VTAGenericInsn *insns =
		static_cast<VTAGenericInsn *>(VTAMemAlloc(sizeof(VTAGenericInsn) * 7, VTA_CACHED));
	VTAUop *uops = static_cast<VTAUop *>(VTAMemAlloc(sizeof(VTAUop), VTA_CACHED));
	int8_t *inputs = static_cast<int8_t *>(VTAMemAlloc(inp_bytes, VTA_CACHED));
	int8_t *weights = static_cast<int8_t *>(VTAMemAlloc(wgt_bytes, VTA_CACHED));
	int8_t *outputs = static_cast<int8_t *>(VTAMemAlloc(out_bytes, VTA_CACHED));
	if (!insns || !uops || !inputs || !weights || !outputs) {
		std::fprintf(stderr, "tvm_board_test: VTAMemAlloc: %s\n", vta_errmsg(NULL));
		return 1;
	}
	for (int i = 0; i < inp_bytes; i++)
		inputs[i] = static_cast<int8_t>(i * 3 - 7);
	for (int i = 0; i < wgt_bytes; i++)
		weights[i] = static_cast<int8_t>(i * 5 + 1);
	std::memset(outputs, 0, out_bytes);
	uops[0].dst_idx = 0;
	uops[0].src_idx = 0;
	uops[0].wgt_idx = 0;

	// load -> compute -> store, as test_lib.cc builds it
	insns[0] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 0, 1, 0, 0, 0, 0);
	insns[1] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_WGT, 0, 1, 0, 0, 0, 1);
	insns[2] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 0, 1, 1, 0, 0, 0);
	insns[3] = gemm_insn(true, 0, 0, 0, 0);
	insns[4] = gemm_insn(false, 0, 0, 0, 1);
	insns[5] = mem_insn(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, 1, 1, 0, 1, 0);
	insns[6] = finish_insn(false, true);
	VTAFlushCache(insns, VTAMemGetPhyAddr(insns), sizeof(VTAGenericInsn) * 7);
	VTAFlushCache(uops, VTAMemGetPhyAddr(uops), sizeof(VTAUop));
	VTAFlushCache(inputs, VTAMemGetPhyAddr(inputs), inp_bytes);
	VTAFlushCache(weights, VTAMemGetPhyAddr(weights), wgt_bytes);
	if (!run(7, insns, uops, inputs, weights, outputs)) {
		std::fprintf(stderr, "tvm_board_test: the run did not finish: %s\n", vta_errmsg(NULL));
		return 1;
	}
	VTAInvalidateCache(outputs, VTAMemGetPhyAddr(outputs), out_bytes);
	int bad = 0;
	for (int b = 0; b < VTA_BATCH; b++)
		for (int o = 0; o < VTA_BLOCK_OUT; o++) {
			int sum = 0;
			for (int i = 0; i < VTA_BLOCK_IN; i++)
				sum += inputs[b * VTA_BLOCK_IN + i] * weights[o * VTA_BLOCK_IN + i];
			bad += outputs[b * VTA_BLOCK_OUT + o] != static_cast<int8_t>(sum);
		}
	if (bad) {
		std::fprintf(stderr, "tvm_board_test: %d of %d outputs wrong\n", bad, out_bytes);
		return 1;
	}

	// A store 1 MiB past the output buffer: the start is refused.
	insns[5] = mem_insn(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, (1 << 20) / VTA_OUT_ELEM_BYTES, 1, 1, 0, 1,
			    0);
	vta_set_log_errors(vta_context_current(), 0);
	if (run(7, insns, uops, inputs, weights, outputs) ||
	    !std::strstr(vta_errmsg(NULL), "was not started") ||
	    !std::strstr(vta_errmsg(NULL), "instruction 5 (STORE)")) {
		std::fprintf(stderr, "tvm_board_test: a stream outside the buffers ran (%s)\n",
			     vta_errmsg(NULL));
		return 1;
	}
	VTAMemFree(insns);
	VTAMemFree(uops);
	VTAMemFree(inputs);
	VTAMemFree(weights);
	VTAMemFree(outputs);
	std::printf("tvm_board_test: %dx%d GEMM block right through mapped registers; a stream "
		    "outside the buffers was refused\n", VTA_BATCH, VTA_BLOCK_OUT);
	return 0;
}
