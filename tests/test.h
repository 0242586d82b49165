/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A very small test harness. A test program lists its cases in a table and
 * calls test_main(); each case is a function that uses CHECK*() and returns.
 * Every case prints one line, "PASS <label>/<case>" or "FAIL <label>/<case>:
 * file:line: what", and appends it to the results file given by --results
 * (the Makefile collects those into the closing "N passed, N failed" line).
 */
#ifndef VTA_TEST_H
#define VTA_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TEST_SANITIZED: 1 in the AddressSanitizer builds (SAN=1), where long
 * randomized runs are scaled down. */
#if defined(__SANITIZE_ADDRESS__)
#define TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_SANITIZED 1
#endif
#endif
#ifndef TEST_SANITIZED
#define TEST_SANITIZED 0
#endif

typedef struct test_case {
	const char *name;
	void (*fn)(void);
} test_case_t;

/* State of the case being run; tests are single-threaded programs. */
/* Per thread, so that a case may run checks on several threads. */
extern _Thread_local int test_failed_;
extern _Thread_local char test_why_[1024];

void test_fail_(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond))                                                     \
			test_fail_(__FILE__, __LINE__, "CHECK(%s)", #cond);      \
	} while (0)

#define CHECK_EQ(a, b)                                                                \
	do {                                                                          \
		long long a_ = (long long)(a), b_ = (long long)(b);                   \
		if (a_ != b_)                                                         \
			test_fail_(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", \
				   #a, a_, #b, b_);                                   \
	} while (0)

#define CHECK_U64(a, b)                                                                   \
	do {                                                                              \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                          \
		if (a_ != b_)                                                             \
			test_fail_(__FILE__, __LINE__, "%s == 0x%016" PRIX64 ", expected 0x%016" PRIX64, \
				   #a, a_, b_);                                           \
	} while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                 \
	do {                                                                            \
		const char *h_ = (hay), *n_ = (needle);                                 \
		if (!h_ || !strstr(h_, n_))                                             \
			test_fail_(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", \
				   h_ ? h_ : "(null)", n_);                             \
	} while (0)

/* Run the cases; options --results FILE --label LABEL [--only NAME]. Returns
 * the process exit status (1 if any case failed). */
int test_main(int argc, char **argv, const test_case_t *cases);

/* Deterministic pseudo-random numbers for tests (xorshift64*). */
uint64_t test_rand(uint64_t *state);
/* Uniform in [lo, hi]. */
int64_t test_rand_range(uint64_t *state, int64_t lo, int64_t hi);

/* One ALU lane as VTA-SPEC 4.5.5 defines it (opcode VTA_ALU_OPCODE_*, A the
 * destination, B the source or immediate): the reference tests compare with. */
int32_t test_ref_alu(unsigned op, int32_t a, int32_t b);
/* The --label of this run ("vta" is the default configuration's plain
 * build), for cases that run in one configuration only. */
const char *test_label(void);

/* Directory of the project checkout (VTA_ROOT, else "."). */
const char *test_root(void);

#endif /* VTA_TEST_H */
