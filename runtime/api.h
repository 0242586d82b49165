/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Floor 7 of the runtime: TVM's C API (<vta/driver.h>,
 * <vta/runtime/runtime.h>, <vta/pynq_driver.h>) and the native thread API
 * of <vta/runtime.h>, over contexts. This header is what its files share:
 * the calling thread's context (api_thread.c) and where errors go when a
 * call has no context to record them in.
 */
#ifndef VTA_RUNTIME_API_H
#define VTA_RUNTIME_API_H

#include "context.h"

/* The thread's current context, created if needed (NULL on failure). */
vta_context_t *api_current(void);
/* The context of a command handle, or NULL (error recorded naming fn). */
vta_context_t *api_cmd(VTACommandHandle cmd, const char *fn);
/* Record an error in the thread's current context, or in the thread's own
 * record if it has none; returns code. */
int api_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with a prefix: "what: message". */
int api_error_from(const char *what, const vta_error_t *err);

#endif /* VTA_RUNTIME_API_H */
