/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ResNet-18 on the RTL (issue 13): the Darknet cfg at 224x224 with synthetic
 * seeded weights, compiled as `vta compile` does, one inference of a random
 * image through the rtl target at the modelled PYNQ DRAM latency, and again
 * at 100 cycles. Per kernel the device's counters and the cycle model's
 * prediction at the latency of the run.
 *
 *   BENCH r18_rtl_cycles           device cycles of all kernels (PYNQ latency)
 *   BENCH r18_bound_ratio          cycles of every kernel but the first convolution /
 *                                  (their MACs, channels padded to the block, / 256)
 *   BENCH r18_bound_ratio_lat100   the same at 100 cycles of DRAM latency
 *   BENCH r18_c<N>_mac_util        per ResNet-18 convolution shape (COMPILER-NOTES 6.1):
 *                                  MACs / 256 / cycles over all kernels of that shape
 *   BENCH r18_cost_model_max_err   largest |model - RTL| / RTL over the kernels and both latencies
 *   BENCH rtl_sim_cycles_per_sec_r18  device cycles / CPU seconds of the rtl runs
 *   BENCH r18_rtl_wall_s           one inference on the rtl target, wall clock (PYNQ latency)
 * VC_BENCH_R18_LAT100=0 skips the second run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vta/runtime.h>

#include "bench.h"
#include "test.h"
#include "artifact/artifact.h"
#include "cli/cli.h"
#include "import/import.h"

/* ResNet-18's convolution shapes (input size, channels in and out, kernel,
 * stride), named as in COMPILER-NOTES 6.1. */
static const struct shape {
	const char *name;
	int hw, ic, oc, k, stride;
} shapes[] = {
	{"c1", 224, 3, 64, 7, 2},    {"c2", 56, 64, 64, 3, 1},    {"c3", 56, 64, 128, 3, 2},   {"c4", 56, 64, 128, 1, 2},
	{"c5", 28, 128, 128, 3, 1},  {"c6", 28, 128, 256, 3, 2},  {"c7", 28, 128, 256, 1, 2},  {"c8", 14, 256, 256, 3, 1},
	{"c9", 14, 256, 512, 3, 2},  {"c10", 14, 256, 512, 1, 2}, {"c11", 7, 512, 512, 3, 1},
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

static int shape_of(const vc_node *n)
{
	const vc_type *x = &n->in[0]->type, *w = &n->in[1]->type;
	int64_t hw = x->dim[2], ic = x->dim[1] * x->dim[5], oc = w->dim[0] * w->dim[4];
	for (int s = 0; s < NSHAPES; s++)
		if (shapes[s].hw == hw && (shapes[s].ic + 15) / 16 * 16 == (ic + 15) / 16 * 16 && shapes[s].oc == oc &&
		    shapes[s].k == w->dim[2] && shapes[s].stride == n->a.stride[0])
			return s;
	return -1;
}

typedef struct run_result {
	uint64_t cycles, bound_cycles, macs_bound; /* all kernels; all but the first conv; its padded MACs */
	uint64_t shape_cycles[NSHAPES], shape_macs[NSHAPES];
	double model_err, cpu_s, wall_s;
	int ok;
} run_result;

static void run(vc_module *m, unsigned latency, run_result *res)
{
	memset(res, 0, sizeof *res);
	char err[1024], lat[32];
	snprintf(lat, sizeof lat, "%u", latency);
	setenv("VTA_RTL_DRAM_LATENCY", lat, 1);
	vc_runner *r = vc_runner_open(m, "rtl", err, sizeof err);
	if (!r) {
		fprintf(stderr, "bench_r18: %s\n", err);
		return;
	}
	vc_tensor in;
	vc_tensor_alloc(&in, &m->g->inputs[0]->type);
	uint64_t st = 7;
	for (int64_t i = 0; i < vc_type_elems(&in.t); i++)
		((float *)in.data)[i] = (float)test_rand_range(&st, 0, 255);
	vc_tensor out[8];
	double w0 = bench_seconds(CLOCK_MONOTONIC), c0 = bench_seconds(CLOCK_PROCESS_CPUTIME_ID);
	if (vc_runner_run(r, &in, out)) {
		fprintf(stderr, "bench_r18: rtl: %s\n", m->diag.msg);
		goto done;
	}
	res->wall_s = bench_seconds(CLOCK_MONOTONIC) - w0;
	res->cpu_s = bench_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
	for (int q = 0; q < m->g->n_outputs; q++)
		vc_tensor_free(&out[q]);
	vc_timing tm;
	vc_timing_default(&tm);
	tm.dram_latency = tm.wr_latency = (int)latency;
	for (int k = 0; k < m->n_kernels; k++) {
		const vc_kernel *kn = m->kernels[k];
		vta_counters_t c;
		if (vc_runner_kernel_counters(r, k, &c))
			goto done;
		res->cycles += c.cycles;
		int s = shape_of(kn->node);
		if (k > 0) {
			res->bound_cycles += c.cycles;
			res->macs_bound += (uint64_t)kn->macs;
		}
		if (s >= 0) {
			res->shape_cycles[s] += c.cycles;
			res->shape_macs[s] += (uint64_t)kn->macs;
		}
		vc_cost mc;
		if (!vc_cost_kernel(&tm, kn, &mc, NULL) && c.cycles) {
			double e = fabs((double)mc.cycles - (double)c.cycles) / (double)c.cycles;
			res->model_err = e > res->model_err ? e : res->model_err;
		}
	}
	res->ok = 1;
done:
	vc_tensor_free(&in);
	vc_runner_close(r);
}

int main(void)
{
	char path[1024], err[1024];
	bench_shared_path(path, sizeof path, "models/resnet18.cfg");
	if (access(path, R_OK)) {
		fprintf(stderr, "bench_r18: %s missing\n", path);
		return 0;
	}
	if (vta_backend_probe("rtl", err, sizeof err)) {
		fprintf(stderr, "bench_r18: no rtl backend: %s\n", err);
		return 0;
	}
	vc_darknet_opts dk = {.synthetic = 1, .seed = 1, .input_size = 224};
	vc_compile_opts o = {.calib_path = "synthetic", .calib_count = 8};
	vc_module *m = vc_module_new();
	if (vc_import_darknet_files(m, path, NULL, &dk) || vc_compile(m, &o, err, sizeof err)) {
		fprintf(stderr, "bench_r18: %s %s\n", err, m->diag.msg);
		vc_module_free(m);
		return 1;
	}
	run_result a, b;
	run(m, VC_DRAM_LATENCY_PYNQ, &a);
	if (!a.ok) {
		vc_module_free(m);
		return 1;
	}
	const char *l100 = getenv("VC_BENCH_R18_LAT100");
	if (!l100 || strcmp(l100, "0"))
		run(m, 100, &b);
	else
		b.ok = 0;
	bench_print((double)a.cycles, 0, "cycles", "r18_rtl_cycles");
	bench_print((double)a.bound_cycles / ((double)a.macs_bound / VC_MACS_PER_CYCLE), 4, "ratio", "r18_bound_ratio");
	if (b.ok)
		bench_print((double)b.bound_cycles / ((double)b.macs_bound / VC_MACS_PER_CYCLE),
			    4, "ratio", "r18_bound_ratio_lat100");
	for (int s = 0; s < NSHAPES; s++)
		if (a.shape_cycles[s])
			bench_print((double)a.shape_macs[s] / VC_MACS_PER_CYCLE / (double)a.shape_cycles[s],
				    4, "fraction", "r18_%s_mac_util", shapes[s].name);
	double err_max = b.ok && b.model_err > a.model_err ? b.model_err : a.model_err;
	bench_print(err_max, 4, "fraction", "r18_cost_model_max_err");
	bench_print((double)a.cycles / a.cpu_s, 0, "cycles/s", "rtl_sim_cycles_per_sec_r18");
	bench_print(a.wall_s, 1, "s", "r18_rtl_wall_s");
	vc_module_free(m);
	return 0;
}
