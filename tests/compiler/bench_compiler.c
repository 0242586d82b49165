/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Compiler benchmarks:
 *   BENCH compile_mnist_ms          import + compile + artifact of mnist-8
 *   BENCH mnist_float_top1          float reference on all 10,000 digits
 *   BENCH mnist_vta_top1            int8 on VTA (golden model) on all digits
 *   BENCH mnist_agreement           fraction of digits where both agree
 *   BENCH mnist_rtl_top1            int8 on the RTL simulation (a subset), if linked
 *   BENCH r18_<layer>_fsim_exact    ResNet-18 C1..C11 bit-exact vs the int8 reference
 *   BENCH r18_<layer>_mac_util      (MACs / 256) / cycles on the RTL, if linked
 *                                   (<layer>_res: C2 and C11 with the residual add fused)
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vta/runtime.h>

#include "bench.h"
#include "cli/cli.h"
#include "import/import.h"
#include "r18.h"

static int mnist(int have_rtl)
{
	char model[1024], images[1024], labels[1024], err[1024];
	bench_shared_path(model, sizeof model, "models/mnist-8.onnx");
	bench_shared_path(images, sizeof images, "data/mnist-10k-images-idx3-ubyte");
	bench_shared_path(labels, sizeof labels, "data/mnist-10k-labels-idx1-ubyte");
	if (access(model, R_OK) || access(images, R_OK)) {
		fprintf(stderr, "bench_compiler: MNIST files missing\n");
		return 0;
	}
	double best = 1e9;
	vc_module *m = NULL;
	for (int rep = 0; rep < 3; rep++) {
		vc_module_free(m);
		m = vc_module_new();
		double t0 = bench_wall();
		vc_compile_opts o = {.calib_path = images, .calib_count = 500};
		uint8_t *bytes;
		size_t len;
		if (vc_import_onnx_file(m, model) || vc_compile(m, &o, err, sizeof err) || vc_artifact_bytes(m, &bytes, &len)) {
			fprintf(stderr, "bench_compiler: %s %s\n", err, m->diag.msg);
			return 1;
		}
		free(bytes);
		double t = bench_wall() - t0;
		best = t < best ? t : best;
	}
	bench_print(best * 1e3, 1, "ms", "compile_mnist_ms");
	vc_module *fm = vc_module_new();
	vc_import_onnx_file(fm, model);
	vc_dataset d;
	if (vc_dataset_load_idx(images, labels, &d, err, sizeof err)) {
		fprintf(stderr, "bench_compiler: %s\n", err);
		return 1;
	}
	vc_runner *r = vc_runner_open(m, "fsim", err, sizeof err);
	if (!r) {
		fprintf(stderr, "bench_compiler: %s\n", err);
		return 1;
	}
	vc_tensor in;
	vc_tensor_alloc(&in, &fm->g->inputs[0]->type);
	int ok_f = 0, ok_q = 0, agree = 0;
	int *pred = calloc((size_t)d.count, sizeof *pred);
	double tq = 0;
	for (int s = 0; s < d.count; s++) {
		for (int i = 0; i < 784; i++)
			((float *)in.data)[i] = d.pixels[(size_t)s * 784 + (size_t)i];
		vc_tensor fo, qo;
		if (vc_interp(fm, &in, &fo, NULL, NULL, NULL))
			return 1;
		double t0 = bench_wall();
		if (vc_runner_run(r, &in, &qo)) {
			fprintf(stderr, "bench_compiler: %s\n", m->diag.msg);
			return 1;
		}
		tq += bench_wall() - t0;
		int bf = bench_argmax(fo.data, 10), bq = bench_argmax(qo.data, 10);
		pred[s] = bq;
		ok_f += bf == d.labels[s];
		ok_q += bq == d.labels[s];
		agree += bf == bq;
		vc_tensor_free(&fo);
		vc_tensor_free(&qo);
	}
	vc_runner_close(r);
	bench_print((double)ok_f / d.count, 4, "fraction", "mnist_float_top1");
	bench_print((double)ok_q / d.count, 4, "fraction", "mnist_vta_top1");
	bench_print((double)agree / d.count, 4, "fraction", "mnist_agreement");
	bench_print(1e3 * tq / d.count, 3, "ms", "mnist_vta_fsim_ms_per_digit");
	if (have_rtl) {
		int n = 100, ok = 0, same = 0;
		r = vc_runner_open(m, "rtl", err, sizeof err);
		double t0 = bench_wall();
		for (int s = 0; r && s < n; s++) {
			for (int i = 0; i < 784; i++)
				((float *)in.data)[i] = d.pixels[(size_t)s * 784 + (size_t)i];
			vc_tensor qo;
			if (vc_runner_run(r, &in, &qo)) {
				fprintf(stderr, "bench_compiler: rtl: %s\n", m->diag.msg);
				break;
			}
			int b = bench_argmax(qo.data, 10);
			ok += b == d.labels[s];
			same += b == pred[s];
			vc_tensor_free(&qo);
		}
		if (r) {
			bench_print(ok / (double)n, 4, "fraction", "mnist_rtl_top1_100");
			bench_print(same / (double)n, 4, "fraction", "mnist_rtl_fsim_agreement_100");
			bench_print(1e3 * (bench_wall() - t0) / n, 1, "ms", "mnist_rtl_ms_per_digit");
		} else {
			fprintf(stderr, "bench_compiler: %s\n", err);
		}
		vc_runner_close(r);
	}
	free(pred);
	vc_tensor_free(&in);
	vc_dataset_free(&d);
	vc_module_free(fm);
	vc_module_free(m);
	return 0;
}

/* ---- ResNet-18 conv workloads (COMPILER-NOTES 6.1) ------------------- */

static void resnet18(int have_rtl)
{
	const char *only = getenv("VC_BENCH_R18");
	for (size_t i = 0; i < r18_n_layers; i++) {
		const r18_layer *w = &r18_layers[i];
		if (only && !strstr(only, w->name))
			continue;
		uint64_t st;
		vc_module *v = r18_module(w, &st), *c = r18_module(w, &st);
		char err[1024];
		vc_compile_opts o = {.calib_path = "synthetic"};
		vc_compile_opts oc = {.pipeline = "canonicalize,fold-bn,fold-const,quantize", .calib_path = "synthetic"};
		double t0 = bench_wall();
		if (vc_compile(v, &o, err, sizeof err) || vc_compile(c, &oc, err, sizeof err)) {
			fprintf(stderr, "bench_compiler: %s: %s\n", w->name, err);
			goto next;
		}
		bench_print(1e3 * (bench_wall() - t0), 1, "ms", "r18_%s_compile_ms", w->name);
		if (v->n_kernels != 1) {
			fprintf(stderr, "bench_compiler: %s was not lowered to VTA in this configuration\n", w->name);
			goto next;
		}
		vc_tensor in, a, b;
		vc_tensor_alloc(&in, &v->g->inputs[0]->type);
		for (int64_t k = 0; k < vc_type_elems(&in.t); k++)
			((float *)in.data)[k] = r18_frand(&st);
		vc_runner *r = vc_runner_open(v, "fsim", err, sizeof err);
		if (r && !vc_runner_run(r, &in, &a)) {
			if (!vc_interp(c, &in, &b, NULL, NULL, NULL)) {
				bench_print((double)!memcmp(a.data, b.data, vc_type_bytes(&a.t)),
					    0, "bool", "r18_%s_fsim_exact", w->name);
				vc_tensor_free(&b);
			}
			if (have_rtl) {
				vc_runner *rr = vc_runner_open(v, "rtl", err, sizeof err);
				vc_tensor t;
				uint64_t cycles = 0;
				if (rr && !vc_runner_run(rr, &in, &t)) {
					vc_runner_stats(rr, NULL, &cycles, NULL);
					double macs = r18_macs(w);
					bench_print((double)!memcmp(a.data, t.data, vc_type_bytes(&a.t)),
						    0, "bool", "r18_%s_rtl_exact", w->name);
					if (cycles)
						bench_print(macs / (VTA_BATCH * VTA_BLOCK_IN * VTA_BLOCK_OUT) / (double)cycles,
							    4, "fraction", "r18_%s_mac_util", w->name);
					vc_tensor_free(&t);
				} else {
					fprintf(stderr, "bench_compiler: %s on rtl: %s %s\n", w->name, rr ? v->diag.msg : err, "");
				}
				vc_runner_close(rr);
			}
			vc_tensor_free(&a);
		} else {
			fprintf(stderr, "bench_compiler: %s: %s\n", w->name, r ? v->diag.msg : err);
		}
		vc_runner_close(r);
		vc_tensor_free(&in);
	next:
		vc_module_free(v);
		vc_module_free(c);
	}
}

int main(void)
{
	int have_rtl = vta_backend_probe("rtl", (char[256]){0}, 256) == 0;
	if (mnist(have_rtl))
		return 1;
	resnet18(have_rtl);
	return 0;
}
