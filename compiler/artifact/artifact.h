/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .vtam artifact and running it:
 *
 *   write.c   the file from an emitted module (compiler side)
 *   read.c    the file back into a module, every node rebuilt through the
 *             typed builder (deployment side)
 *   runner.c  a loaded artifact bound to a runtime context: the device
 *             image copied and relocated, VTA kernels on the device, the
 *             rest on the host by the compiler's reference; the tests'
 *             independent oracle (the commands run libvta's model API)
 *
 * The GRAPH section's format is libvta's: internal/vta/model/graph.h, where
 * libvta decodes it (read.c rebuilds the IR from that decoding).
 */
#ifndef VC_ARTIFACT_H
#define VC_ARTIFACT_H

#include <vta/device.h>

#include "exec/exec.h"
#include "ir/kernel.h"
#include <vta/model/graph.h>


int vc_artifact_write(vc_module *m, const char *path);
int vc_artifact_bytes(vc_module *m, uint8_t **bytes, size_t *len); /* malloc'd */
/* The same with a META section of "key=value" lines (NULL or "": none). */
int vc_artifact_write_meta(vc_module *m, const char *path, const char *meta);
int vc_artifact_bytes_meta(vc_module *m, const char *meta, uint8_t **bytes, size_t *len);
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
/* The device's counters of kernel k's last run (cycles and busy cycles are
 * 0 on the golden model). 0, or -1 for no such kernel. */
int vc_runner_kernel_counters(vc_runner *r, int k, vta_counters_t *out);

/* Host-only execution of the same graph (VTA kernels by the int8 reference). */
int vc_simulate(vc_module *m, const vc_tensor *inputs, vc_tensor *outputs);

#endif /* VC_ARTIFACT_H */
