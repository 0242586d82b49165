/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Debian's libonnx-testdata through the whole VTA path, shared by test_onnx
 * (a subset, or all) and bench_onnx (all, with the census of refusals):
 * each test's model is imported with its extra inputs frozen into
 * constants, compiled as `vta compile` compiles (calibrated on samples
 * drawn over the range of the given input, never on it), opened by libvta
 * on fsim and run on the given input; every output is compared with the
 * expected one shipped with the test.
 *
 * Every output must have the expected shape. Tolerance: a network that
 * runs in float on the host end to end is within |got - want| <= 1e-4 *
 * (1 + |want|) of every value; one with int8 anywhere within 6% of the
 * output's range (max |want|) everywhere: a few int8 steps, as a step is
 * at most 2/127 of the calibrated range.
 */
#ifndef VTA_TEST_ONNX_CONF_H
#define VTA_TEST_ONNX_CONF_H

#include <stdio.h>

#define CONF_DATA "/usr/share/libonnx-testdata/data"

enum { CONF_PASS, CONF_REFUSED, CONF_WRONG };

typedef struct conf_case {
	int result;      /* CONF_* */
	int int8;        /* 1: some value of the compiled graph is an integer */
	char op[48];     /* the op type the case is about (the census key) */
	char why[1024];  /* refused or wrong: the message */
	double err, range;
} conf_case;

/* One test directory (model.onnx, test_data_set_0/). */
void conf_run_case(const char *dir, conf_case *c);

typedef struct conf_stats {
	int total, pass, refused, wrong;
	/* census of refusals by op type */
	int n_ops;
	struct conf_op {
		char op[48];
		int count;
		char example[160];
	} ops[256];
} conf_stats;

/* Every test under CONF_DATA/set (or only the names listed, NULL-ended),
 * sorted by name. verbose: every case not passing is printed to it (NULL:
 * only wrong ones, to stdout). 0, or -1 if the directory is missing. */
int conf_run_set(const char *set, const char *const *only, conf_stats *st, FILE *verbose);
/* The census, most frequent first, up to top op types. */
void conf_print_census(FILE *f, const conf_stats *st, int top);

#endif /* VTA_TEST_ONNX_CONF_H */
