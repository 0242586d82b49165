/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ONNX conformance through the VTA path (`make bench`): every test of
 * Debian's libonnx-testdata `node` and `pytorch-converted` sets imported
 * (extra inputs frozen), compiled, run by libvta on fsim and compared with
 * the expected outputs (onnx_conf.h for the tolerance):
 *   BENCH onnx_node_pass|refused|wrong <n> tests
 *   BENCH onnx_pytorch_pass|refused|wrong <n> tests
 * and, after each set, the refusals by op type (top 30), so that the next
 * op to implement is the first line. `bench_onnx SET...` runs other sets of
 * the data (simple, pytorch-operator) instead. VC_CONFORMANCE_VERBOSE=1 lists every
 * case: refused with its message, passing with its largest error.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "onnx_conf.h"

static int run_set(const char *set, const char *label)
{
	static conf_stats st;
	memset(&st, 0, sizeof st);
	double t0 = bench_wall();
	FILE *verbose = getenv("VC_CONFORMANCE_VERBOSE") ? stdout : NULL;
	if (conf_run_set(set, NULL, &st, verbose)) {
		fprintf(stderr, "bench_onnx: %s/%s is missing: make deps installs libonnx-testdata\n", CONF_DATA, set);
		return 1;
	}
	printf("ONNX %s: %d tests, %.1f s; refusals by op type:\n", set, st.total, bench_wall() - t0);
	conf_print_census(stdout, &st, 30);
	printf("BENCH onnx_%s_pass %d tests\n", label, st.pass);
	printf("BENCH onnx_%s_refused %d tests\n", label, st.refused);
	printf("BENCH onnx_%s_wrong %d tests\n", label, st.wrong);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1) { /* other sets of the data (simple, pytorch-operator, ...), by hand */
		int rc = 0;
		for (int i = 1; i < argc; i++)
			rc |= run_set(argv[i], argv[i]);
		return rc;
	}
	int rc = run_set("node", "node");
	rc |= run_set("pytorch-converted", "pytorch");
	return rc;
}
