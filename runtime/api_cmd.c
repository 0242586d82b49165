/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TVM's command API (<vta/runtime/runtime.h>, VTA-SPEC 7.4 and 7.5) on the
 * context of a command handle: dependencies, loads and stores, micro-op
 * kernels and synchronize. The VTAUop* calls name no handle: they act on
 * the calling thread's context while one of its kernel callbacks runs.
 */
#include "api.h"

int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid)
{
	vta_context_t *ctx = api_cmd(cmd, "VTADepPush");
	return ctx ? ctx_dep(ctx, 1, from_qid, to_qid) : VTA_EINVAL;
}

int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid)
{
	vta_context_t *ctx = api_cmd(cmd, "VTADepPop");
	return ctx ? ctx_dep(ctx, 0, from_qid, to_qid) : VTA_EINVAL;
}

void VTASetDebugMode(VTACommandHandle cmd, int debug_flag)
{
	vta_context_t *ctx = api_cmd(cmd, "VTASetDebugMode");
	if (ctx)
		ctx_set_debug(ctx, debug_flag);
}

void VTALoadBuffer2D(VTACommandHandle cmd, void *src_dram_addr, uint32_t src_elem_offset,
		     uint32_t x_size, uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
		     uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
		     uint32_t dst_sram_index, uint32_t dst_memory_type)
{
	vta_context_t *ctx = api_cmd(cmd, "VTALoadBuffer2D");
	if (ctx)
		ctx_load_2d(ctx, src_dram_addr, src_elem_offset, x_size, y_size, x_stride,
			    x_pad_before, y_pad_before, x_pad_after, y_pad_after, dst_sram_index,
			    dst_memory_type);
}

void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type,
		      void *dst_dram_addr, uint32_t dst_elem_offset, uint32_t x_size,
		      uint32_t y_size, uint32_t x_stride)
{
	vta_context_t *ctx = api_cmd(cmd, "VTAStoreBuffer2D");
	if (ctx)
		ctx_store_2d(ctx, src_sram_index, src_memory_type, dst_dram_addr, dst_elem_offset,
			     x_size, y_size, x_stride);
}

int vta_synchronize(VTACommandHandle cmd, uint32_t wait_cycles)
{
	vta_context_t *ctx = api_cmd(cmd, "VTASynchronize");
	return ctx ? ctx_synchronize(ctx, wait_cycles) : VTA_EINVAL;
}

void VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles)
{
	(void)vta_synchronize(cmd, wait_cycles);
}

/* ---- Micro-op kernels -------------------------------------------------------- */

int VTAPushGEMMOp(void **uop_handle, int (*finit)(void *), void *signature, int nbytes)
{
	vta_context_t *ctx = api_current();
	return ctx ? ctx_push_op(ctx, 0, uop_handle, finit, signature, nbytes) : VTA_EINVAL;
}

int VTAPushALUOp(void **uop_handle, int (*finit)(void *), void *signature, int nbytes)
{
	vta_context_t *ctx = api_current();
	return ctx ? ctx_push_op(ctx, 1, uop_handle, finit, signature, nbytes) : VTA_EINVAL;
}

/* The micro-op cache of the thread's context if one of its kernel callbacks
 * is running (and has not failed), else NULL (an error recorded if none
 * runs). */
static Uops *recorder(const char *fn)
{
	vta_context_t *ctx = api_current();
	if (!ctx)
		return NULL;
	Uops *u = ctx_uops(ctx);
	int rec = uops_recording(u);
	if (!rec)
		ctx_fail(ctx, VTA_EINVAL, "%s: called outside a micro-op kernel callback (finit of "
			 "VTAPushGEMMOp/VTAPushALUOp)", fn);
	return rec > 0 ? u : NULL;
}

void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor, uint32_t wgt_factor)
{
	Uops *u = recorder("VTAUopLoopBegin");
	if (u)
		uops_rec_loop(u, extent, dst_factor, src_factor, wgt_factor);
}

void VTAUopLoopEnd(void) { (void)recorder("VTAUopLoopEnd"); }

void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index,
		uint32_t wgt_index, uint32_t opcode, uint32_t use_imm, int32_t imm_val)
{
	Uops *u = recorder("VTAUopPush");
	if (u)
		uops_rec_push(u, mode, reset_out, dst_index, src_index, wgt_index, opcode, use_imm,
			      imm_val, ctx_debug(api_current()) & VTA_DEBUG_DUMP_UOP);
}
