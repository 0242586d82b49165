/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VTA runtime API, source-compatible with TVM's <vta/runtime/runtime.h>
 * (VTA-SPEC section 7): device buffers behind opaque handles, an instruction
 * queue with automatic dependency tokens, micro-op kernels recorded by
 * callbacks and cached on the device, and VTASynchronize to run it all.
 *
 * Thread model. Each thread has its own command handle (one VTA context: a
 * device, its memory and an instruction queue), created on first use. The
 * functions without a handle argument (VTABufferAlloc, VTAUopPush, ...) act
 * on the calling thread's context; VTARuntimeShutdown destroys it.
 *
 * Errors never abort the process. A call that fails records a message
 * (vta_errmsg() in <vta/runtime.h>) and returns nonzero where it returns an
 * int. A failure while a program is being queued also poisons that program:
 * the next VTASynchronize discards it without running it and reports the
 * first error; the queue is then empty and ready for the next program.
 */
#ifndef VTA_RUNTIME_RUNTIME_H
#define VTA_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include <vta/driver.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library exports exactly what its public headers declare. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* VTABufferCopy kind_mask values. */
#define VTA_MEMCPY_H2D 1
#define VTA_MEMCPY_D2H 2
#define VTA_MEMCPY_D2D 3

/* VTASetDebugMode flags. */
#define VTA_DEBUG_DUMP_INSN (1 << 1)          /* print the stream at each synchronize */
#define VTA_DEBUG_DUMP_UOP (1 << 2)           /* print micro-op kernels when recorded */
#define VTA_DEBUG_SKIP_READ_BARRIER (1 << 3)  /* VTAReadBarrier does nothing */
#define VTA_DEBUG_SKIP_WRITE_BARRIER (1 << 4) /* VTAWriteBarrier does nothing */
#define VTA_DEBUG_FORCE_SERIAL (1 << 5)       /* run every instruction in order */

/* Alignment of host-side staging arrays. */
#define ALLOC_ALIGNMENT 64

/* The calling thread's command queue. */
typedef void *VTACommandHandle;

/* Constructor. A device buffer of size bytes; returns an opaque handle (not
 * the data address: see VTABufferCPUPtr), NULL on failure. */
void *VTABufferAlloc(size_t size);

/* Destructor. NULL is a no-op; an unknown or freed handle is an error. */
void VTABufferFree(void *buffer);

/*
 * Copy size bytes. Bit 0 of kind_mask (VTA_MEMCPY_H2D) says `to` is a buffer
 * handle, bit 1 (VTA_MEMCPY_D2H) says `from` is; plain pointers otherwise.
 * Offsets are in bytes. Device ranges must lie inside their buffer.
 */
void VTABufferCopy(const void *from, size_t from_offset, void *to, size_t to_offset, size_t size,
		   int kind_mask);

/* The calling thread's command handle, created (with its device) on first
 * use; NULL if the device cannot be opened. */
VTACommandHandle VTATLSCommandHandle(void);

/* Destroy the calling thread's context: queue, kernels and, once every
 * buffer is freed, the device. The next VTA call starts a new one. */
void VTARuntimeShutdown(void);

/* The CPU address of a buffer handle, or `buffer` itself if it is not one. */
void *VTABufferCPUPtr(VTACommandHandle cmd, void *buffer);

/* Cache maintenance for elements [start, start + extent) of elem_bits each:
 * WriteBarrier makes device writes visible to the CPU, ReadBarrier makes CPU
 * writes visible to the device. */
void VTAWriteBarrier(VTACommandHandle cmd, void *buffer, uint32_t elem_bits, uint32_t start,
		     uint32_t extent);
void VTAReadBarrier(VTACommandHandle cmd, void *buffer, uint32_t elem_bits, uint32_t start,
		    uint32_t extent);

/* Set the VTA_DEBUG_* flags. */
void VTASetDebugMode(VTACommandHandle cmd, int debug_flag);

/*
 * Queue a 2-D load of dst_memory_type (VTA_MEM_ID_*) elements from buffer
 * handle src_dram_addr, starting src_elem_offset elements in, into SRAM
 * index dst_sram_index, with zero padding around it. Sizes, pads, indices
 * and the DRAM range are checked against the configuration and the buffer.
 */
void VTALoadBuffer2D(VTACommandHandle cmd, void *src_dram_addr, uint32_t src_elem_offset,
		     uint32_t x_size, uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
		     uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
		     uint32_t dst_sram_index, uint32_t dst_memory_type);

/* Queue a 2-D store of OUT elements from SRAM into a buffer handle. */
void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type,
		      void *dst_dram_addr, uint32_t dst_elem_offset, uint32_t x_size,
		      uint32_t y_size, uint32_t x_stride);

/*
 * Micro-op kernel recording, valid only inside the finit callback of
 * VTAPushGEMMOp / VTAPushALUOp. mode 0 = GEMM, 1 = ALU. Up to two loops,
 * declared (outer first) before the first push.
 */
void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index,
		uint32_t wgt_index, uint32_t opcode, uint32_t use_imm, int32_t imm_val);
void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
		     uint32_t wgt_factor);
void VTAUopLoopEnd(void);

/*
 * Queue a GEMM (ALU) instruction running the micro-op kernel identified by
 * the call-site slot uop_handle and the signature bytes. The first time a
 * (slot, signature) pair is seen, finit(signature) records the kernel. The
 * slot is used only as a key: the runtime never writes through it. Returns
 * 0, or nonzero on error.
 */
int VTAPushGEMMOp(void **uop_handle, int (*finit)(void *), void *signature, int nbytes);
int VTAPushALUOp(void **uop_handle, int (*finit)(void *), void *signature, int nbytes);

/* Dependency tokens between queues 1 (load), 2 (compute), 3 (store).
 * Returns 0, or nonzero for a pair of queues that has no token queue. */
int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid);
int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid);

/* Run the queued program and wait (wait_cycles as in VTADeviceRun). On
 * failure (a timeout included) the error is recorded, the program dropped
 * and the device reset; the queue is ready for the next program. */
void VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* VTA_RUNTIME_RUNTIME_H */
