/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime-level test programs shared by every backend: each builds a VTA
 * program through the TVM-compatible API, runs it on the calling thread's
 * context and compares the result with a plain C reference.
 */
#ifndef VTA_TESTS_RT_COMMON_H
#define VTA_TESTS_RT_COMMON_H

#include <vta/runtime.h>

extern const struct test_case rt_cases[];

/* A program split by an automatic synchronize (2^18 micro-ops: run on the
 * golden model only, where device time is cheap). */
void rt_test_auto_sync_split(void);

#endif
