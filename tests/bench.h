/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every benchmark program (`make bench`) needs: its clocks, the
 * repository's shared data, and its output line `BENCH <name> <value> <unit>`
 * (read by tools: keep that format). Header only, so that a bench links
 * nothing more for it.
 */
#ifndef VTA_TEST_BENCH_H
#define VTA_TEST_BENCH_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Seconds on clock c. CLOCK_MONOTONIC: wall time. CLOCK_PROCESS_CPUTIME_ID:
 * CPU time of every thread (OpenBLAS's too), less sensitive to other jobs on a
 * shared machine. CLOCK_THREAD_CPUTIME_ID: the calling thread's only. */
static inline double bench_seconds(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline double bench_wall(void)
{
	return bench_seconds(CLOCK_MONOTONIC);
}

static inline double bench_cpu(void)
{
	return bench_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

/* The repository's root: $VTA_ROOT, or the working directory. */
static inline const char *bench_root(void)
{
	const char *r = getenv("VTA_ROOT");
	return r && *r ? r : ".";
}

/* out = the path of rel under ../shared (models/..., data/..., images/...).
 * A path longer than out would open another file: the bench stops instead. */
static inline void bench_shared_path(char *out, size_t n, const char *rel)
{
	int len = snprintf(out, n, "%s/../shared/%s", bench_root(), rel);
	if (len < 0 || (size_t)len >= n) {
		fprintf(stderr, "bench: the path of %s under $VTA_ROOT=%s is longer than %zu bytes\n", rel,
			bench_root(), n - 1);
		exit(2);
	}
}

/* Index of the largest of v[0..n) (the first of equals): a top-1 label. */
static inline int bench_argmax(const float *v, int n)
{
	int b = 0;
	for (int i = 1; i < n; i++)
		b = v[i] > v[b] ? i : b;
	return b;
}

/* Prints `BENCH <name> <value> <unit>`, the value with `decimals` digits after
 * the point (0 for counts, which a double holds exactly up to 2^53); name is a
 * printf format for the arguments after it. */
static inline void bench_print(double value, int decimals, const char *unit, const char *name, ...)
	__attribute__((format(printf, 4, 5)));
static inline void bench_print(double value, int decimals, const char *unit, const char *name, ...)
{
	va_list ap;
	va_start(ap, name);
	fputs("BENCH ", stdout);
	vprintf(name, ap);
	va_end(ap);
	printf(" %.*f %s\n", decimals, value, unit);
}

#endif
