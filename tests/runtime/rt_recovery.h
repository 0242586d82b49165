/* SPDX-License-Identifier: Apache-2.0 */
/* Recovery cases for devices with registers (rt_recovery.c). */
#ifndef VTA_TESTS_RT_RECOVERY_H
#define VTA_TESTS_RT_RECOVERY_H

#include <stdint.h>

/* Set by the test program: make the device answer every DRAM access to
 * [addr, addr + bytes) with SLVERR (bytes = 0: no more). */
extern void (*rt_inject_fault)(uint64_t addr, uint64_t bytes);
/* Optional: called after the program that leaves a token behind. */
extern void (*rt_after_leftover)(void);

extern const struct test_case rt_recovery_cases[];

#endif
