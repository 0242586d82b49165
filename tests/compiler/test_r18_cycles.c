/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device cycles of compiler-generated ResNet-18 kernels on the RTL against
 * recorded budgets, so that a performance regression of the RTL (DMA,
 * pipeline) or of the compiler fails a test. Each layer is compiled the way
 * bench_compiler does it, run on the rtl backend at the modelled PYNQ DRAM
 * latency and at 100 cycles (no back-pressure: the cycle count is then
 * deterministic), checked bit-exact against the golden model, and its device
 * cycles must not exceed the budget.
 *
 * The budgets were recorded with the DMA of docs/rtl.md and carry about 10%
 * headroom. When a change makes a kernel faster, tighten them; when a change
 * is meant to trade cycles, say so in its commit. To update: run
 *   build/bin/tests/compiler/test_r18_cycles --print
 * which prints the measured cycles and a budget line (measured + 10%) for
 * every entry, and paste those lines into the table below.
 *
 * Budgets hold for the default configuration (config/vta.json); other
 * configurations and the sanitized build skip the measurement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/rtlsim.h>
#include <vta/runtime.h>

#include "artifact/artifact.h"
#include "cli/cli.h"
#include "r18.h"
#include "test.h"

typedef struct budget {
	const char *layer;
	unsigned latency; /* DRAM read/write latency in cycles */
	uint64_t cycles;  /* at most this many device cycles */
} budget_t;

/* measured + 10% (see above to update) */
static const budget_t budgets[] = {
	{"c4", VTA_RTL_LATENCY_PYNQ, 66000},
	{"c4", 100, 67000},
	{"c7", VTA_RTL_LATENCY_PYNQ, 48000},
	{"c7", 100, 51000},
	{"c10", VTA_RTL_LATENCY_PYNQ, 42000},
	{"c10", 100, 44000},
	{"c11", VTA_RTL_LATENCY_PYNQ, 510000},
	{"c11", 100, 511000},
	{"c2", VTA_RTL_LATENCY_PYNQ, 524000},
};

static int print_mode;

static int default_config(void)
{
	return !strcmp(VTA_CONFIG_NAME, "1x16_i8w8a32_15_15_18_17") && !strcmp(VTA_TARGET, "sim");
}

/* Compile layer w, run it on fsim and on rtl at latency lat; 0 and *cycles on success. */
static int measure(const r18_layer *w, unsigned lat, uint64_t *cycles)
{
	uint64_t st;
	vc_module *v = r18_module(w, &st);
	char err[1024];
	vc_compile_opts o = {.calib_path = "synthetic"}; /* as bench_compiler */
	int rc = -1;
	vc_tensor in, a, t;
	vc_runner *f = NULL, *r = NULL;
	if (vc_compile(v, &o, err, sizeof err)) {
		test_fail_(__FILE__, __LINE__, "%s: compile: %s", w->name, err);
		vc_module_free(v);
		return -1;
	}
	vc_tensor_alloc(&in, &v->g->inputs[0]->type);
	for (int64_t k = 0; k < vc_type_elems(&in.t); k++)
		((float *)in.data)[k] = r18_frand(&st);
	char l[32];
	snprintf(l, sizeof l, "%u", lat);
	setenv("VTA_RTL_DRAM_LATENCY", l, 1);
	unsetenv("VTA_RTL_BACKPRESSURE");
	if (!(f = vc_runner_open(v, "fsim", err, sizeof err)) || vc_runner_run(f, &in, &a)) {
		test_fail_(__FILE__, __LINE__, "%s on fsim: %s", w->name, f ? v->diag.msg : err);
		goto out;
	}
	if (!(r = vc_runner_open(v, "rtl", err, sizeof err)) || vc_runner_run(r, &in, &t)) {
		test_fail_(__FILE__, __LINE__, "%s on rtl: %s", w->name, r ? v->diag.msg : err);
		vc_tensor_free(&a);
		goto out;
	}
	if (memcmp(a.data, t.data, vc_type_bytes(&a.t)))
		test_fail_(__FILE__, __LINE__, "%s: rtl output differs from the golden model", w->name);
	else
		rc = 0;
	vc_runner_stats(r, NULL, cycles, NULL);
	vc_tensor_free(&a);
	vc_tensor_free(&t);
out:
	vc_runner_close(f);
	vc_runner_close(r);
	vc_tensor_free(&in);
	vc_module_free(v);
	return rc;
}

static void check_layer(const char *name)
{
	if (!default_config() || TEST_SANITIZED)
		return;
	const r18_layer *w = r18_find(name);
	CHECK(w != NULL);
	if (!w)
		return;
	for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
		const budget_t *b = &budgets[i];
		if (strcmp(b->layer, name))
			continue;
		uint64_t cycles = 0;
		if (measure(w, b->latency, &cycles))
			return;
		printf("%s latency %u: %llu cycles (budget %llu), mac_util %.4f\n", name, b->latency,
		       (unsigned long long)cycles, (unsigned long long)b->cycles,
		       r18_macs(w) / (VTA_BATCH * VTA_BLOCK_IN * VTA_BLOCK_OUT) / (double)cycles);
		if (print_mode)
			printf("\t{\"%s\", %s, %llu},\n", name,
			       b->latency == VTA_RTL_LATENCY_PYNQ ? "VTA_RTL_LATENCY_PYNQ" : "100",
			       (unsigned long long)(cycles + cycles / 10 + 999) / 1000 * 1000);
		else if (cycles > b->cycles)
			test_fail_(__FILE__, __LINE__, "%s at DRAM latency %u: %llu device cycles, over the "
				   "budget of %llu (a performance regression, or update the budget: see the "
				   "top of this file)", name, b->latency, (unsigned long long)cycles,
				   (unsigned long long)b->cycles);
	}
}

static void t_c4(void) { check_layer("c4"); }
static void t_c7(void) { check_layer("c7"); }
static void t_c10(void) { check_layer("c10"); }
static void t_c11(void) { check_layer("c11"); }
static void t_c2(void) { check_layer("c2"); }

int main(int argc, char **argv)
{
	int k = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--print"))
			print_mode = 1;
		else
			argv[k++] = argv[i];
	}
	static const test_case_t cases[] = {
		{"c4", t_c4},
		{"c7", t_c7},
		{"c10", t_c10},
		{"c11", t_c11},
		{"c2", t_c2},
		{NULL, NULL},
	};
	return test_main(k, argv, cases);
}
