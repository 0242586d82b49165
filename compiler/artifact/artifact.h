/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .vtam artifact and running it:
 *
 *   write.c   the file from an emitted module (compiler side)
 *   read.c    the file back into a module, every node rebuilt through the
 *             typed builder (deployment side)
 *   runner.c  a loaded artifact bound to a runtime context: the device
 *             image copied and relocated, VTA kernels on the device, the
 *             rest on the host
 *
 * The format (all integers little-endian):
 *
 *   "VTAM" u32 version  u32 config_id  str config  u32 batch block_in block_out
 *   u32 n_nodes, per node: u32 op, str name, u32 n_in, u32 in[n_in] (node
 *       ordinals), type, attrs, u8 on_vta, u64 n_data + data (plain consts)
 *   u32 n_inputs, u32 ordinals; u32 n_outputs, u32 ordinals
 *   u32 n_kernels, per kernel: u32 node, i64 insn_off insn_count uop_off
 *       n_uops macs, u32 th tco tci pingpong
 *   i64 arena_size, i64 image_len, image bytes (the device memory image:
 *       packed weights and biases, micro-ops, instruction streams)
 */
#ifndef VC_ARTIFACT_H
#define VC_ARTIFACT_H

#include "exec/exec.h"
#include "ir/kernel.h"

#define VC_VTAM_MAGIC "VTAM"
#define VC_VTAM_VERSION 2 /* 2: attrs carry the leaky shift */

int vc_artifact_write(vc_module *m, const char *path);
int vc_artifact_bytes(vc_module *m, uint8_t **bytes, size_t *len); /* malloc'd */
int vc_artifact_read(vc_module *m, const char *path);
int vc_artifact_parse(vc_module *m, const uint8_t *bytes, size_t len);

/* A loaded artifact bound to a device context. */
typedef struct vc_runner vc_runner;
vc_runner *vc_runner_open(vc_module *m, const char *target, char *err, size_t n);
void vc_runner_close(vc_runner *r);
/* Run one inference; outputs allocated (caller frees with vc_tensor_free). */
int vc_runner_run(vc_runner *r, const vc_tensor *inputs, vc_tensor *outputs);
/* Device counters over the runner's life. */
void vc_runner_stats(vc_runner *r, uint64_t *runs, uint64_t *cycles, uint64_t *gemm_uops);

/* Host-only execution of the same graph (VTA kernels by the int8 reference). */
int vc_simulate(vc_module *m, const vc_tensor *inputs, vc_tensor *outputs);

#endif /* VC_ARTIFACT_H */
