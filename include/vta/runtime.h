/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VTA runtime: the TVM-compatible API of <vta/runtime/runtime.h> and
 * <vta/driver.h>, plus the native functions that TVM's API has no room for:
 * choosing the backend at run time, reading errors, explicit contexts and
 * device information.
 *
 * A context (vta_context_t) is one open device, the allocator of its DMA
 * memory and one command queue. Each thread has a current context, the
 * "TLS command handle" of TVM's API: it is created on first use from
 * vta_set_target() or $VTA_TARGET, and every VTA* function without a handle
 * argument acts on it. That per-thread pointer is the library's only mutable
 * state outside the contexts themselves.
 */
#ifndef VTA_RUNTIME_H
#define VTA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include <vta/device.h>
#include <vta/driver.h>
#include <vta/error.h>
#include <vta/runtime/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library exports exactly what its public headers declare. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Version of this API: bumped on every addition. 1: first release.
 * 2: vta_context_last_run, busy counters, cache sync counts. */
#define VTA_RUNTIME_API_VERSION 2

typedef struct vta_context vta_context_t;

/* ---- Backends ---------------------------------------------------------- */

/* Number of backends compiled into this library, and their names ("fsim",
 * "rtl", "zynq", "xrt"; a backend not compiled in is still listed). */
int vta_backend_count(void);
const char *vta_backend_name(int i);

/*
 * 0 if backend `name` can be opened on this machine; otherwise VTA_E* with
 * the reason (not compiled in, no device node, ...) in why[0..n).
 */
int vta_backend_probe(const char *name, char *why, size_t n);

/*
 * Choose the backend of the calling thread's next context (name NULL: back
 * to $VTA_TARGET, else "fsim"). Fails with VTA_EINVAL if the thread already
 * has a context on another backend: call VTARuntimeShutdown() first.
 */
int vta_set_target(const char *name);

/* ---- Contexts ---------------------------------------------------------- */

/*
 * Constructor. Open backend `target` (NULL: as vta_set_target would choose),
 * check that the device was built for this library's configuration
 * (VTA_CONFIG_ID) and create a context on it. On failure returns the code
 * and fills err. The context is not current in any thread.
 */
int vta_context_open(const char *target, vta_context_t **out, vta_error_t *err);

/* Destructor. Frees everything, including buffers still allocated. The
 * context must not be current in any thread. NULL is a no-op. */
void vta_context_close(vta_context_t *ctx);

/*
 * Make ctx the calling thread's current context (NULL: none). The thread's
 * previous context, if the library created it, is shut down as by
 * VTARuntimeShutdown. A context must be used by one thread at a time.
 */
int vta_context_bind(vta_context_t *ctx);

/* The calling thread's current context, opened on first use; NULL if it
 * cannot be opened (vta_errmsg(NULL) says why). */
vta_context_t *vta_context_current(void);

/* The command handle of a context (what VTATLSCommandHandle returns). */
VTACommandHandle vta_context_command(vta_context_t *ctx);

/* Name of the backend a context runs on. */
const char *vta_context_backend(const vta_context_t *ctx);

/*
 * The last error recorded in ctx (NULL: the calling thread's context, or the
 * error that prevented creating it): a VTA_E* code and a message naming what
 * was wrong. Successful calls do not clear it; vta_clear_error does.
 */
int vta_errcode(const vta_context_t *ctx);
const char *vta_errmsg(const vta_context_t *ctx);
void vta_clear_error(vta_context_t *ctx);

/* Print errors to stderr as they are recorded (default: on unless the
 * environment has VTA_LOG_ERRORS=0). */
void vta_set_log_errors(vta_context_t *ctx, int on);

/* VTASynchronize that returns the result: 0, or a VTA_E* code (VTA_ETIMEOUT
 * for a timeout, VTA_EDEADLOCK for a program that cannot finish, ...). */
int vta_synchronize(VTACommandHandle cmd, uint32_t wait_cycles);

/* The instruction stream of the last synchronize, as the device read it
 * (16 little-endian bytes per instruction); valid until the next one. */
int vta_context_last_stream(vta_context_t *ctx, const uint8_t **bytes, size_t *count);

/* ---- Device information ------------------------------------------------ */

typedef struct vta_device_info {
	char backend[16];     /* "fsim", "rtl", ... */
	char description[96]; /* e.g. "golden model, 128 MiB DRAM" */
	uint32_t config_id;   /* VTA_CONFIG_ID the device was built for */
	uint32_t version;     /* hardware version register (0 for fsim) */
	uint64_t dram_bytes;  /* size of the DMA window */
	uint64_t dram_free;   /* bytes not allocated */
	int coherent;         /* 1 if no cache maintenance is needed */
	int has_counters;     /* counters below are meaningful */
	vta_counters_t counters; /* since the context was opened */
	uint64_t runs;        /* device runs so far */
	uint64_t insns_queued; /* instructions queued by this context so far */
	uint64_t cache_syncs; /* cache flushes and invalidations (non-coherent devices) */
	uint64_t cache_sync_bytes; /* bytes they covered */
} vta_device_info_t;

int vta_context_info(vta_context_t *ctx, vta_device_info_t *info);

/*
 * The device counters of the last run of ctx's device (of whichever thread
 * made it): cycles, per-module busy cycles, instructions, micro-ops, DMA
 * bytes. Per-kernel statistics read it after each run. 0, or VTA_EINVAL.
 */
int vta_context_last_run(vta_context_t *ctx, vta_counters_t *out);

/* ---- Options ------------------------------------------------------------ */

/*
 * Environment read when a context opens:
 *   VTA_TARGET          fsim | rtl | zynq | xrt
 *   VTA_DRAM_MB         DRAM of the simulators (default 128)
 *   VTA_LOG_ERRORS      0 to keep errors off stderr
 *   VTA_UOP_CACHE_KB    bound on recorded micro-op kernels (default 4096)
 *   VTA_ZYNQ_UDMABUF    u-dma-buf device name (default udmabuf0)
 *   VTA_ZYNQ_UIO        /dev/uioN of the VTA registers (default: search)
 */

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* VTA_RUNTIME_H */
