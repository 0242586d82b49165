/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Random co-simulation of the RTL against the golden model, and replay of the
 * saved reproducers in tests/rtl/repro (each one is a regression test).
 *   test_cosim [--results F --label L]   the make-test run: a fresh seed
 *     (printed), latencies 1, 8 and 100 with back-pressure; a failing program
 *     is saved as tests/rtl/repro/cosim-<config>-<seed>-lat<L>.txt (replayed
 *     by every later run) and, shrunk, as ....shrunk
 *   test_cosim -n N [--seed S] [--latency L[,L..]] [--backpressure 0|1]
 *     [--save DIR] [--verbose]   soak (make cosim); ends with
 *     "cosim: N programs, M mismatches"
 *   test_cosim --replay FILE
 */
#include "cosim_lib.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "test.h"

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

/* A seed that differs from run to run (make test prints it). */
static unsigned long long fresh_seed(void)
{
	unsigned long long s = 0;
	FILE *f = fopen("/dev/urandom", "rb");
	if (!f || fread(&s, sizeof s, 1, f) != 1)
		s = (unsigned long long)time(NULL);
	if (f)
		fclose(f);
	return s % 1000000007ull;
}

/* Programs per latency in a make-test run: the default configuration plain
 * gets the big run, the others and the sanitized builds a sample. */
static long default_count(void)
{
	if (TEST_SANITIZED)
		return 10;
	return strcmp(VTA_CONFIG_NAME, "1x16_i8w8a32_15_15_18_17") || strcmp(VTA_TARGET, "sim") ? 60
												      : 200;
}

int main(int argc, char **argv)
{
	long n = -1;
	unsigned long long seed = 0;
	int have_seed = 0, bp = -1, have_one = 0;
	unsigned long long one = 0;
	const char *save = NULL, *replay = NULL, *results_path = NULL, *lat_list = NULL;
	int verbose = 0, soak = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--results") && i + 1 < argc) results_path = argv[++i];
		else if (!strcmp(argv[i], "--label") && i + 1 < argc) label = argv[++i];
		else if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atol(argv[++i]), soak = 1;
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0), have_seed = 1;
		else if (!strcmp(argv[i], "--program") && i + 1 < argc) one = strtoull(argv[++i], NULL, 0), have_one = 1;
		else if (!strcmp(argv[i], "--latency") && i + 1 < argc) lat_list = argv[++i];
		else if (!strcmp(argv[i], "--backpressure") && i + 1 < argc) bp = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--save") && i + 1 < argc) save = argv[++i];
		else if (!strcmp(argv[i], "--replay") && i + 1 < argc) replay = argv[++i];
		else if (!strcmp(argv[i], "--verbose")) verbose = 1;
		else {
			fprintf(stderr, "usage: %s [--results F] [--label L] [-n N] [--seed S] [--latency L[,L...]] "
				"[--backpressure 0|1] [--program S] [--save DIR] [--replay FILE] [--verbose]\n", argv[0]);
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
		int r = cs_check(&c, &p, &code);
		printf("%s: %s (golden code %d)\n", replay, r ? c.why : "agree", code);
		return r != 0;
	}
	/* a make-test run: latencies 1, 8 and 100 with back-pressure, a fresh
	 * seed, failures shrunk and saved as reproducers */
	char repro[1024];
	snprintf(repro, sizeof repro, "%s/tests/rtl/repro", test_root());
	if (!soak) {
		n = default_count();
		if (!save)
			save = repro;
	}
	if (have_one) /* one program: the seed a failure names */
		n = 1, soak = 1;
	if (!lat_list)
		lat_list = soak ? "" : "1,8,100";
	if (bp < 0)
		bp = !soak;
	if (!have_seed)
		seed = fresh_seed();
	unsigned lats[16], nlat = 0;
	for (const char *q = lat_list; *q && nlat < 16;) {
		char *end;
		unsigned long v = strtoul(q, &end, 10);
		if (end == q || v < 1) {
			fprintf(stderr, "--latency %s: expected cycles, comma-separated\n", lat_list);
			return 2;
		}
		lats[nlat++] = (unsigned)v;
		q = *end == ',' ? end + 1 : end;
	}
	if (!nlat)
		lats[nlat++] = c.axi.rd_latency;
	printf("cosim: seed %llu, latencies %s, back-pressure %s, %ld programs each\n", seed,
	       *lat_list ? lat_list : "(default)", bp ? "on" : "off", n);
	fflush(stdout);

	/* regression reproducers (each at its own saved timing, or the default) */
	DIR *d = soak ? NULL : opendir(repro);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strstr(e->d_name, ".txt"))
				continue;
			char path[2048];
			snprintf(path, sizeof path, "%s/%s", repro, e->d_name);
			if (cs_load(&p, path)) {
				report(0, e->d_name, "cannot read");
				continue;
			}
			int r = cs_check(&c, &p, NULL);
			report(r == 0, e->d_name, c.why);
		}
		closedir(d);
	}
	/* random programs */
	int codes[16] = {0};
	long bad = 0, total = 0, resets = 0;
	time_t t0 = time(NULL);
	vta_rtlsim_axi_t base = c.axi;
	for (unsigned li = 0; li < nlat; li++) {
		for (long i = 0; i < n; i++) {
			unsigned long long s = have_one ? one : seed * 1000003ull + (unsigned long long)i;
			cs_gen(&p, s, -1);
			c.axi = base;
			c.axi.rd_latency = c.axi.wr_latency = lats[li];
			c.axi.backpressure = bp;
			c.axi.seed = s;
			int code = 0;
			/* one program in eight: a soft reset part-way, then the program again */
			p.reset_after = s % 8 == 3 ? 1 + s / 8 % 3000 : 0;
			resets += p.reset_after != 0;
			int r = cs_check(&c, &p, &code);
			total++;
			codes[code & 15]++;
			if (verbose)
				printf("seed %llu latency %u: %d insns, golden %d, %s\n", s, lats[li], p.n,
				       code, r ? c.why : "agree");
			if (!r)
				continue;
			bad++;
			char why[1100];
			snprintf(why, sizeof why, "seed %llu latency %u back-pressure %d: %s", s, lats[li],
				 bp, c.why);

			/* The program as generated is the regression test (.txt, replayed by
			 * every run); the shrunk one helps debugging (.shrunk, not replayed:
			 * cutting instructions can break the token chains the generator
			 * builds, so it may then fail for another reason, or race). */
			if (save && bad <= 5) {
				mkdir(save, 0777); /* may exist */
				p.has_axi = 1;
				p.axi = c.axi;
				char path[1200];
				snprintf(path, sizeof path, "%s/cosim-%s-%llu-lat%u.txt", save,
					 VTA_CONFIG_NAME, s, lats[li]);
				if (!cs_save(&p, path, why))
					printf("saved %s (%u insns)\n", path, p.n);
				cs_shrink(&c, &p);
				cs_check(&c, &p, NULL);
				snprintf(path, sizeof path, "%s/cosim-%s-%llu-lat%u.shrunk", save,
					 VTA_CONFIG_NAME, s, lats[li]);
				char cmt[2400];
				snprintf(cmt, sizeof cmt, "%s (shrunk: %s)", why, c.why);
				if (!cs_save(&p, path, cmt))
					printf("saved %s (%u insns)\n", path, p.n);
			}
			if (!soak || bad <= 20)
				report(0, "random", why);
		}
	}
	char name[160];
	snprintf(name, sizeof name, "random-%ld-programs-seed-%llu", total, seed);
	if (!bad)
		report(1, name, "");
	printf("%ld of them soft-reset part-way and run again; golden results (%lds):", resets,
	       (long)(time(NULL) - t0));
	for (int i = 0; i < 16; i++)
		if (codes[i])
			printf(" %s=%d", i ? vta_strerror(i) : "ok", codes[i]);
	printf("\ncosim: %ld programs, %ld mismatches\n", total, bad);
	cs_fini(&c);
	if (results)
		fclose(results);
	return failures ? 1 : 0;
}
