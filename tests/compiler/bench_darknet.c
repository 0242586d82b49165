/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Darknet network benchmarks (synthetic seeded weights, the cfg files of
 * ../shared/models), what `vta compile` + `vta run --input=random` do:
 *   BENCH compile_r18_ms          ResNet-18 at 224, 32 synthetic calibration
 *                                 samples: import + compile + .vtam bytes
 *   BENCH r18_fsim_ms             one ResNet-18 inference on the golden model
 *                                 (best of 3 in the process's CPU time, so that
 *                                 others' load counts less; the .vtam read back first)
 *   BENCH r18_vta_insns           VTA instructions per inference (load-independent)
 *   BENCH r18_fsim_exact          1 if the golden model equals the host int8 reference
 *   BENCH compile_r50_ms, r50_fsim_ms, r50_fsim_exact, r50_vta_insns
 *                                 ResNet-50 at 224 (4 samples; two device buffers)
 *   BENCH compile_yolov3_tiny_ms  YOLOv3-tiny at 416, 4 calibration samples
 *   BENCH yolov3_tiny_fsim_ms     one YOLOv3-tiny inference on the golden model
 *   BENCH yolov3_tiny_vta_insns
 * VC_BENCH_DARKNET=r18, =r50 or =yolo runs only those.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "test.h"
#include "artifact/artifact.h"
#include "cli/cli.h"
#include "import/import.h"

/* Compile a cfg to .vtam bytes and read them back into a fresh module, as
 * `vta compile` then `vta run` would. */
static vc_module *compile(const char *cfg, int size, int calib, double *ms)
{
	char path[1024], err[1024];
	snprintf(path, sizeof path, "%s/../shared/models/%s", bench_root(), cfg);
	if (access(path, R_OK)) {
		fprintf(stderr, "bench_darknet: %s missing\n", path);
		return NULL;
	}
	vc_darknet_opts dk = {.synthetic = 1, .seed = 1, .input_size = size};
	vc_compile_opts o = {.calib_path = "synthetic", .calib_count = calib};
	vc_module *m = vc_module_new(), *a = NULL;
	uint8_t *bytes = NULL;
	size_t len;
	double t0 = bench_wall();
	if (vc_import_darknet_files(m, path, NULL, &dk) || vc_compile(m, &o, err, sizeof err) ||
	    vc_artifact_bytes(m, &bytes, &len)) {
		fprintf(stderr, "bench_darknet: %s: %s %s\n", cfg, err, m->diag.msg);
		goto done;
	}
	*ms = 1e3 * (bench_wall() - t0);
	a = vc_module_new();
	if (vc_artifact_parse(a, bytes, len)) {
		fprintf(stderr, "bench_darknet: %s: %s\n", cfg, a->diag.msg);
		vc_module_free(a);
		a = NULL;
	}
done:
	free(bytes);
	vc_module_free(m);
	return a;
}

/* One inference of a seeded random image (pixels 0..255, as --input=random). */
static int run(vc_module *m, const char *name)
{
	char err[1024];
	vc_runner *r = vc_runner_open(m, "fsim", err, sizeof err);
	if (!r) {
		fprintf(stderr, "bench_darknet: %s: %s\n", name, err);
		return 1;
	}
	vc_tensor in;
	vc_tensor_alloc(&in, &m->g->inputs[0]->type);
	uint64_t st = 0x9E3779B97F4A7C15ull + 1;
	for (int64_t i = 0; i < vc_type_elems(&in.t); i++) {
		st ^= st << 13, st ^= st >> 7, st ^= st << 17;
		((float *)in.data)[i] = (float)(st >> 56);
	}
	double best = 1e9;
	int rc = 0;
	for (int rep = 0; rep < 3 && !rc; rep++) {
		vc_tensor out[8];
		double t0 = bench_cpu();
		if (vc_runner_run(r, &in, out)) {
			fprintf(stderr, "bench_darknet: %s: %s\n", name, m->diag.msg);
			rc = 1;
			break;
		}
		double t = bench_cpu() - t0;
		best = t < best ? t : best;
		for (int q = 0; q < m->g->n_outputs; q++)
			vc_tensor_free(&out[q]);
	}
	vc_tensor dev[8], host[8];
	if (!rc && !vc_runner_run(r, &in, dev)) { /* the golden model against the host int8 reference */
		int sim = vc_simulate(m, &in, host), same = !sim;
		for (int q = 0; q < m->g->n_outputs; q++) {
			if (!sim) {
				same = same && !memcmp(dev[q].data, host[q].data, vc_type_bytes(&dev[q].t));
				vc_tensor_free(&host[q]);
			}
			vc_tensor_free(&dev[q]);
		}
		bench_print((double)same, 0, "bool", "%s_fsim_exact", name);
	}
	if (!rc) {
		int64_t insns = 0;
		for (int k = 0; k < m->n_kernels; k++)
			insns += m->kernels[k]->insn_count;
		bench_print(best * 1e3, 1, "ms", "%s_fsim_ms", name);
		bench_print((double)insns, 0, "instructions", "%s_vta_insns", name);
	}
	vc_tensor_free(&in);
	vc_runner_close(r);
	return rc;
}

int main(void)
{
	const char *only = getenv("VC_BENCH_DARKNET");
	double ms = 0;
	int rc = 0;
	if (!only || strstr(only, "r18")) {
		vc_module *m = compile("resnet18.cfg", 224, 32, &ms);
		if (m) {
			bench_print(ms, 1, "ms", "compile_r18_ms");
			rc |= run(m, "r18");
		}
		vc_module_free(m);
	}
	if (!only || strstr(only, "r50")) {
		vc_module *m = compile("resnet50.cfg", 224, 4, &ms);
		if (m) {
			bench_print(ms, 1, "ms", "compile_r50_ms");
			rc |= run(m, "r50");
		}
		vc_module_free(m);
	}
	if (!only || strstr(only, "yolo")) {
		vc_module *m = compile("yolov3-tiny.cfg", 416, 4, &ms);
		if (m) {
			bench_print(ms, 1, "ms", "compile_yolov3_tiny_ms");
			rc |= run(m, "yolov3_tiny");
		}
		vc_module_free(m);
	}
	return rc;
}
