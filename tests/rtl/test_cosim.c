/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Random co-simulation of the RTL against the golden model, and replay of the
 * saved reproducers in tests/rtl/repro (each one is a regression test).
 *   test_cosim [--results F --label L]  default counts (fewer under ASan)
 *   test_cosim -n N --seed S [--save DIR] [--verbose]   soak; failures are
 *   shrunk and saved as DIR/cosim-<config>-<seed>.txt
 *   test_cosim --replay FILE
 */
#include "cosim_lib.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static FILE *results;
static const char *label = "";
static int failures, passes;

static void report(int ok, const char *name, const char *why)
{
	char line[1400];
	if (ok)
		snprintf(line, sizeof line, "PASS %s%stest_cosim/%s", label, *label ? " " : "", name);
	else
		snprintf(line, sizeof line, "FAIL %s%stest_cosim/%s: %s", label, *label ? " " : "",
			 name, why);
	puts(line);
	if (results)
		fprintf(results, "%s\n", line);
	ok ? passes++ : failures++;
}

int main(int argc, char **argv)
{
	long n = SANITIZED ? 25 : 600;
	unsigned long long seed = 1;
	const char *save = NULL, *replay = NULL, *results_path = NULL;
	int verbose = 0, soak = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--results") && i + 1 < argc) results_path = argv[++i];
		else if (!strcmp(argv[i], "--label") && i + 1 < argc) label = argv[++i];
		else if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atol(argv[++i]), soak = 1;
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--save") && i + 1 < argc) save = argv[++i];
		else if (!strcmp(argv[i], "--replay") && i + 1 < argc) replay = argv[++i];
		else if (!strcmp(argv[i], "--verbose")) verbose = 1;
		else {
			fprintf(stderr, "usage: %s [--results F] [--label L] [-n N] [--seed S] [--save DIR] [--replay FILE] [--verbose]\n", argv[0]);
			return 2;
		}
	}
	if (results_path && !(results = fopen(results_path, "a"))) {
		perror(results_path);
		return 2;
	}
	static cs_ctx_t c;
	if (cs_init(&c)) {
		report(0, "init", c.why);
		return 1;
	}
	static cs_prog_t p;
	if (replay) {
		if (cs_load(&p, replay)) {
			fprintf(stderr, "%s: cannot read\n", replay);
			return 2;
		}
		int code = 0;
		int r = cs_run(&c, &p, &code);
		printf("%s: %s (golden code %d)\n", replay, r ? c.why : "agree", code);
		return r != 0;
	}
	/* regression reproducers */
	char dirpath[1024];
	snprintf(dirpath, sizeof dirpath, "%s/tests/rtl/repro", test_root());
	DIR *d = soak ? NULL : opendir(dirpath);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strstr(e->d_name, ".txt"))
				continue;
			char path[2048];
			snprintf(path, sizeof path, "%s/%s", dirpath, e->d_name);
			if (cs_load(&p, path)) {
				report(0, e->d_name, "cannot read");
				continue;
			}
			int r = cs_run(&c, &p, NULL);
			report(r == 0, e->d_name, c.why);
		}
		closedir(d);
	}
	/* random programs */
	int codes[16] = {0};
	long bad = 0;
	time_t t0 = time(NULL);
	for (long i = 0; i < n; i++) {
		unsigned long long s = seed * 1000003ull + (unsigned long long)i;
		cs_gen(&p, s, -1);
		int code = 0;
		int r = cs_run(&c, &p, &code);
		codes[code & 15]++;
		if (verbose)
			printf("seed %llu: %d insns, golden %d, %s\n", s, p.n, code, r ? c.why : "agree");
		if (r) {
			bad++;
			char why[1100];
			snprintf(why, sizeof why, "seed %llu: %s", s, c.why);
			if (save) {
				cs_shrink(&c, &p);
				cs_run(&c, &p, NULL);
				char path[1200];
				snprintf(path, sizeof path, "%s/cosim-%s-%llu.txt", save, VTA_CONFIG_NAME, s);
				char cmt[2400];
				snprintf(cmt, sizeof cmt, "%s (shrunk: %s)", why, c.why);
				if (!cs_save(&p, path, cmt))
					printf("saved %s (%u insns)\n", path, p.n);
			}
			if (!soak || bad <= 20)
				report(0, "random", why);
		}
	}
	char name[128];
	snprintf(name, sizeof name, "random-%ld-programs", n);
	if (!bad)
		report(1, name, "");
	printf("cosim: %ld programs (seed %llu), %ld mismatches, %lds; golden results:", n, seed,
	       bad, (long)(time(NULL) - t0));
	for (int i = 0; i < 16; i++)
		if (codes[i])
			printf(" %s=%d", i ? vta_strerror(i) : "ok", codes[i]);
	printf("\n");
	cs_fini(&c);
	if (results)
		fclose(results);
	return failures ? 1 : 0;
}
