/* SPDX-License-Identifier: Apache-2.0 */
/* The test harness of tests/test.h. */
#include "test.h"

#include <stdarg.h>

#include <vta/isa.h>

_Thread_local int test_failed_;
_Thread_local char test_why_[1024];
static const char *label_ = "";

const char *test_label(void)
{
	return label_;
}

void test_fail_(const char *file, int line, const char *fmt, ...)
{
	if (test_failed_++)
		return; /* keep the first reason; it is usually the cause */
	int n = snprintf(test_why_, sizeof test_why_, "%s:%d: ", file, line);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(test_why_ + n, sizeof test_why_ - (size_t)n, fmt, ap);
	va_end(ap);
}

int test_main(int argc, char **argv, const test_case_t *cases)
{
	const char *results = NULL, *label = "", *only = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--results") && i + 1 < argc)
			results = argv[++i];
		else if (!strcmp(argv[i], "--label") && i + 1 < argc)
			label = argv[++i];
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--results FILE] [--label LABEL] [--only CASE]\n",
				argv[0]);
			return 2;
		}
	}
	label_ = label;
	FILE *out = results ? fopen(results, "a") : NULL;
	if (results && !out) {
		perror(results);
		return 2;
	}
	const char *prog = strrchr(argv[0], '/');
	prog = prog ? prog + 1 : argv[0];
	int failures = 0;
	for (const test_case_t *c = cases; c->name; c++) {
		if (only && strcmp(only, c->name))
			continue;
		test_failed_ = 0;
		test_why_[0] = 0;
		c->fn();
		char line[1400];
		if (test_failed_) {
			failures++;
			snprintf(line, sizeof line, "FAIL %s%s%s/%s: %s", label, *label ? " " : "",
				 prog, c->name, test_why_);
		} else {
			snprintf(line, sizeof line, "PASS %s%s%s/%s", label, *label ? " " : "", prog,
				 c->name);
		}
		puts(line);
		fflush(stdout);
		if (out) {
			fprintf(out, "%s\n", line);
			fflush(out);
		}
	}
	if (out)
		fclose(out);
	return failures ? 1 : 0;
}

uint64_t test_rand(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

int64_t test_rand_range(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(test_rand(s) % (uint64_t)(hi - lo + 1));
}

const char *test_root(void)
{
	const char *r = getenv("VTA_ROOT");
	return r && *r ? r : ".";
}

int32_t test_ref_alu(unsigned op, int32_t a, int32_t b)
{
	switch (op) {
	case VTA_ALU_OPCODE_MIN: return a < b ? a : b;
	case VTA_ALU_OPCODE_MAX: return a > b ? a : b;
	case VTA_ALU_OPCODE_ADD: return (int32_t)((uint32_t)a + (uint32_t)b);
	case VTA_ALU_OPCODE_SHR:
		if (b >= 0)
			return a >> (b & 31); /* arithmetic on gcc and clang */
		return (int32_t)((uint32_t)a << ((0u - (uint32_t)b) & 31));
	default: return (int32_t)((uint32_t)a * (uint32_t)b);
	}
}
