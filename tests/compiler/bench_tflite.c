/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TFLite benchmarks (`make bench`):
 *   BENCH compile_r8_ms              import + compile (500 calibration images) + artifact, ResNet-8
 *                                    (wall, best of 3; _cpu_ms: CPU time of every thread)
 *   BENCH cifar_float_top1           ResNet-8 float TFLite, CIFAR-10 images 500..1999, float reference
 *   BENCH cifar_vta_top1             the same compiled for VTA (calibrated on images 0..499), fsim
 *   BENCH cifar_agreement            top-1 of VTA == top-1 of float
 *   BENCH cifar_vta_top1_int8src     from the int8 TFLite file (dequantized, requantized by us)
 *   BENCH cifar_select_<m>_top1      calibration method m (max, percentile, mse; and weights=mse):
 *                                    calibrated on 0..249, scored on 250..499 (held out from the
 *                                    scored 1,500: the default method is chosen on this)
 *   BENCH cifar_rtl_exact            a few images on the RTL simulation equal fsim (if linked)
 *   BENCH compile_mobilenet_ms       MobileNet-V2 int8 TFLite, 34 calibration images
 *   BENCH mobilenet_photos_top1      photos of ../shared/images with the expected label (of 6)
 *   BENCH mobilenet_top5_agreement   top-5 overlap VTA vs float reference, fraction of 30
 * With VC_BENCH_DW=1 (=only: nothing else; the RTL linked): the depthwise options on MobileNet-V2, device cycles
 * of the block-diagonal GEMM kernels, the host int8 kernel's time, and the ALU option's cost from
 * measured register-mode ALU cycles (docs/compiler.md, "Depthwise convolution").
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vta/runtime.h>

#include "bench.h"
#include "cli/cli.h"
#include "import/import.h"

/* A model imported and compiled; NULL with the reason printed. */
static vc_module *compile(const char *model, const vc_compile_opts *o, double *ms, double *cpu_ms)
{
	char err[1024];
	double t0 = bench_wall(), c0 = bench_cpu();
	vc_module *m = vc_module_new();
	uint8_t *bytes = NULL;
	size_t len;
	int is_float = o->pipeline && !strcmp(o->pipeline, "float");
	if (vc_import_file(m, model) || vc_compile(m, o, err, sizeof err) ||
	    (!is_float && vc_artifact_bytes(m, &bytes, &len))) {
		fprintf(stderr, "bench_tflite: %s: %s %s\n", model, err, m->diag.msg);
		vc_module_free(m);
		return NULL;
	}
	free(bytes);
	if (ms)
		*ms = 1e3 * (bench_wall() - t0);
	if (cpu_ms)
		*cpu_ms = 1e3 * (bench_cpu() - c0);
	return m;
}

/* Top-1 on CIFAR images [from, to): of the float module f and the compiled q. */
static int cifar_score(vc_module *f, vc_module *q, const vc_dataset *d, int from, int to, int *ok_f, int *ok_q,
		       int *agree, double *sq)
{
	char err[512];
	vc_runner *r = vc_runner_open(q, "fsim", err, sizeof err);
	if (!r) {
		fprintf(stderr, "bench_tflite: %s\n", err);
		return -1;
	}
	vc_tensor in;
	vc_tensor_alloc(&in, &q->g->inputs[0]->type);
	*ok_f = *ok_q = *agree = 0;
	float pf_v[10] = {0};
	if (sq)
		*sq = 0;
	for (int s = from; s < to; s++) {
		for (int i = 0; i < 3072; i++)
			((float *)in.data)[i] = d->pixels[(size_t)s * 3072 + (size_t)i];
		vc_tensor a, b;
		int pf = -1;
		if (f) {
			if (vc_interp(f, &in, &a, NULL, NULL, NULL))
				return -1;
			pf = bench_argmax(a.data, 10);
			memcpy(pf_v, a.data, sizeof pf_v);
			vc_tensor_free(&a);
		}
		if (vc_runner_run(r, &in, &b)) {
			fprintf(stderr, "bench_tflite: %s\n", q->diag.msg);
			return -1;
		}
		int pq = bench_argmax(b.data, 10);
		if (sq) { /* squared error of the log-probabilities (logits up to a constant), centred */
			double lf[10], dq[10], mf = 0, md = 0, sig = 0, err = 0;
			for (int k = 0; k < 10; k++) {
				lf[k] = log(fmax(pf_v[k], 1e-30));
				dq[k] = log(fmax(((const float *)b.data)[k], 1e-30)) - lf[k];
				mf += lf[k] / 10, md += dq[k] / 10;
			}
			for (int k = 0; k < 10; k++)
				sig += (lf[k] - mf) * (lf[k] - mf), err += (dq[k] - md) * (dq[k] - md);
			*sq += err / sig;
		}
		vc_tensor_free(&b);
		*ok_f += pf == d->labels[s];
		*ok_q += pq == d->labels[s];
		*agree += pf == pq;
	}
	vc_tensor_free(&in);
	vc_runner_close(r);
	return 0;
}

/*
 * Quantization options compared on images 0..499 only (never the scored
 * 500..1999): two folds, calibrated on 0..249 and scored on 250..499, and
 * the reverse; top-1, agreement with the float model and the logits' signal
 * to quantization noise ratio (the log-probabilities up to a constant: mean
 * over the 500 of the noise energy relative to the float logits' spread).
 * VC_BENCH_QUANT="opts;opts;..." replaces the list (quantize options).
 */
static void cifar_select(vc_module *f, const vc_dataset *d, const char *fmodel, const char *data)
{
	int float_ok = -1;
	static const char *const dflt[] = {
		"method=max",	      "method=percentile", "method=mse",	"method=mse,weights=mse",
		"method=max,per-channel=false", "scales=pow2", "scales=pow2,method=max", "unsigned=false",
	};
	char list[2048] = "";
	const char *env = getenv("VC_BENCH_QUANT");
	if (env)
		snprintf(list, sizeof list, "%s", env);
	else
		for (size_t k = 0; k < sizeof dflt / sizeof dflt[0]; k++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ";" : "", dflt[k]);
	char *save = NULL;
	for (char *opt = strtok_r(list, ";", &save); opt; opt = strtok_r(NULL, ";", &save)) {
		char pipe[512], name[128];
		snprintf(pipe, sizeof pipe, "canonicalize,fold-bn,fold-const,quantize{%s},partition,fuse,pack,"
			 "kernel(tile,lower,tokens),stream(emit)", opt);
		int okq = 0, agree = 0, okf = 0, bad = 0;
		double sq = 0;
		for (int fold = 0; fold < 2 && !bad; fold++) {
			vc_compile_opts so = {.pipeline = pipe, .calib_path = data, .calib_count = 250,
					      .calib_offset_set = 1, .calib_offset = fold ? 250 : 0};
			vc_module *q = compile(fmodel, &so, NULL, NULL);
			int a = 0, b = 0, c = 0; /* not set when the compile fails */
			double e = 0;
			bad = !q || cifar_score(f, q, d, fold ? 0 : 250, fold ? 250 : 500, &a, &b, &c, &e);
			okf += a, okq += b, agree += c, sq += e;
			vc_module_free(q);
		}
		if (bad)
			continue;
		float_ok = okf;
		snprintf(name, sizeof name, "%s", opt);
		for (char *c = name; *c; c++)
			if (!isalnum((unsigned char)*c))
				*c = '_';
		bench_print(okq / 500.0, 4, "fraction", "cifar_select_%s_top1", name);
		bench_print(agree / 500.0, 4, "fraction", "cifar_select_%s_agreement", name);
		bench_print(-10 * log10(sq / 500.0), 2, "dB", "cifar_select_%s_logit_sqnr", name);
	}
	if (float_ok >= 0)
		bench_print(float_ok / 500.0, 4, "fraction", "cifar_select_float_top1");
}

static int cifar(int have_rtl)
{
	char fmodel[1024], qmodel[1024], data[1024], err[1024];
	bench_shared_path(fmodel, sizeof fmodel, "models/resnet8-cifar10-float.tflite");
	bench_shared_path(qmodel, sizeof qmodel, "models/resnet8-cifar10-int8.tflite");
	bench_shared_path(data, sizeof data, "data/cifar10-test-2k.bin");
	if (access(fmodel, R_OK) || access(data, R_OK)) {
		fprintf(stderr, "bench_tflite: ResNet-8 or CIFAR-10 files missing\n");
		return 0;
	}
	vc_dataset d;
	if (vc_dataset_load(data, NULL, VC_DATASET_CIFAR, &d, err, sizeof err)) {
		fprintf(stderr, "bench_tflite: %s\n", err);
		return 1;
	}
	vc_compile_opts fo = {.pipeline = "float"};
	vc_compile_opts qo = {.calib_path = data, .calib_count = 500, .calib_offset_set = 1, .calib_offset = 0};
	double ms, cms, best = 1e30, best_cpu = 1e30;
	vc_module *f = compile(fmodel, &fo, NULL, NULL), *q = NULL;
	if (have_rtl < 0) { /* VC_BENCH_TFLITE=select: the held-out comparison only */
		if (f)
			cifar_select(f, &d, fmodel, data);
		vc_module_free(f);
		vc_dataset_free(&d);
		return !f;
	}
	for (int rep = 0; rep < 3 && f; rep++) {
		vc_module_free(q);
		if (!(q = compile(fmodel, &qo, &ms, &cms)))
			return 1;
		best = ms < best ? ms : best;
		best_cpu = cms < best_cpu ? cms : best_cpu;
	}
	if (!f || !q)
		return 1;
	bench_print(best, 1, "ms", "compile_r8_ms");
	bench_print(best_cpu, 1, "ms", "compile_r8_cpu_ms");
	int okf, okq, agree, n = d.count - 500;
	if (cifar_score(f, q, &d, 500, d.count, &okf, &okq, &agree, NULL))
		return 1;
	bench_print((double)okf / n, 4, "fraction", "cifar_float_top1");
	bench_print((double)okq / n, 4, "fraction", "cifar_vta_top1");
	bench_print((double)agree / n, 4, "fraction", "cifar_agreement");
	if (have_rtl) { /* the RTL simulation computes what fsim does */
		vc_runner *rf = vc_runner_open(q, "fsim", err, sizeof err), *rr = vc_runner_open(q, "rtl", err, sizeof err);
		vc_tensor in;
		vc_tensor_alloc(&in, &q->g->inputs[0]->type);
		int same = 0, N = 4;
		for (int s = 500; rf && rr && s < 500 + N; s++) {
			for (int i = 0; i < 3072; i++)
				((float *)in.data)[i] = d.pixels[(size_t)s * 3072 + (size_t)i];
			vc_tensor a, b;
			if (vc_runner_run(rf, &in, &a) || vc_runner_run(rr, &in, &b))
				break;
			same += !memcmp(a.data, b.data, vc_type_bytes(&a.t));
			vc_tensor_free(&a);
			vc_tensor_free(&b);
		}
		char unit[32];
		snprintf(unit, sizeof unit, "of %d images", N);
		bench_print(same, 0, unit, "cifar_rtl_exact");
		vc_tensor_free(&in);
		vc_runner_close(rf);
		vc_runner_close(rr);
	}
	vc_module_free(q);
	/* the int8 file, calibrated and scored the same way */
	if ((q = compile(qmodel, &qo, NULL, NULL))) {
		if (!cifar_score(f, q, &d, 500, d.count, &okf, &okq, &agree, NULL)) {
			bench_print((double)okq / n, 4, "fraction", "cifar_vta_top1_int8src");
			bench_print((double)agree / n, 4, "fraction", "cifar_agreement_int8src");
		}
		vc_module_free(q);
	}
	cifar_select(f, &d, fmodel, data);
	vc_module_free(f);
	vc_dataset_free(&d);
	return 0;
}

/* ---- MobileNet-V2 ------------------------------------------------------- */

static const struct {
	const char *file, *label;
} photos[] = {
	{"cat.bmp", "Egyptian cat"}, {"grace_hopper.bmp", "military uniform"}, {"bird.bmp", "chickadee"},
	{"parrot.jpg", "macaw"},     {"hot_dog.jpg", "hotdog"},                {"dragonfly.bmp", "dragonfly"},
};

static void top5(const float *v, int n, int *idx)
{
	for (int j = 0; j < 5; j++) {
		int b = -1;
		for (int i = 0; i < n; i++) {
			int taken = 0;
			for (int q = 0; q < j; q++)
				taken |= idx[q] == i;
			if (!taken && (b < 0 || v[i] > v[b]))
				b = i;
		}
		idx[j] = b;
	}
}

/* The label of class i (lines of the labels file, which start with the name). */
static int label_is(const char *labels, int i, const char *want)
{
	const char *s = labels;
	for (int k = 0; k < i && s; k++)
		s = strchr(s, '\n'), s = s ? s + 1 : NULL;
	return s && !strncmp(s, want, strlen(want));
}

/* MobileNet compiled with calibration on the two photos that are not
 * scored (owl, sunflower) and 32 CIFAR-10 images upscaled to 224. */
static vc_module *mobilenet(const char *pipeline, double *ms, double *cpu_ms)
{
	char model[1024], a[1024], b[1024], c[1024], err[1024];
	bench_shared_path(model, sizeof model, "models/mobilenet-v2-1.0-224-int8.tflite");
	bench_shared_path(a, sizeof a, "images/owl.jpg");
	bench_shared_path(b, sizeof b, "images/sunflower.bmp");
	bench_shared_path(c, sizeof c, "data/cifar10-test-2k.bin");
	double t0 = bench_wall(), c0 = bench_cpu();
	vc_module *m = vc_module_new();
	if (vc_import_file(m, model) || vc_calib_add(m, a, 0, -1, err, sizeof err) ||
	    vc_calib_add(m, b, 0, -1, err, sizeof err) || vc_calib_add(m, c, 32, 0, err, sizeof err)) {
		fprintf(stderr, "bench_tflite: MobileNet: %s %s\n", m->diag.msg, err);
		vc_module_free(m);
		return NULL;
	}
	vc_compile_opts o = {.pipeline = pipeline};
	uint8_t *bytes;
	size_t len;
	if (vc_compile(m, &o, err, sizeof err) || vc_artifact_bytes(m, &bytes, &len)) {
		fprintf(stderr, "bench_tflite: MobileNet: %s\n", err);
		vc_module_free(m);
		return NULL;
	}
	free(bytes);
	*ms = 1e3 * (bench_wall() - t0);
	if (cpu_ms)
		*cpu_ms = 1e3 * (bench_cpu() - c0);
	return m;
}

static int mobilenet_photos(void)
{
	char model[1024], lpath[1024], err[1024];
	bench_shared_path(model, sizeof model, "models/mobilenet-v2-1.0-224-int8.tflite");
	bench_shared_path(lpath, sizeof lpath, "models/imagenet_labels.txt");
	uint8_t *lb;
	size_t llen;
	vta_error_t e;
	if (access(model, R_OK) || vta_read_file(lpath, &lb, &llen, &e)) {
		fprintf(stderr, "bench_tflite: MobileNet files missing\n");
		return 0;
	}
	char *labels = realloc(lb, llen + 1);
	labels[llen] = 0;
	double ms, cms;
	vc_compile_opts fo = {.pipeline = "float"};
	vc_module *f = compile(model, &fo, NULL, NULL), *q = mobilenet(NULL, &ms, &cms);
	if (!f || !q)
		return 1;
	bench_print(ms, 1, "ms", "compile_mobilenet_ms");
	bench_print(cms, 1, "ms", "compile_mobilenet_cpu_ms");
	vc_runner *r = vc_runner_open(q, "fsim", err, sizeof err);
	vc_tensor in;
	vc_tensor_alloc(&in, &q->g->inputs[0]->type);
	int right = 0, overlap = 0, right_f = 0;
	for (size_t p = 0; r && p < sizeof photos / sizeof photos[0]; p++) {
		char ip[1024], rel[256];
		snprintf(rel, sizeof rel, "images/%s", photos[p].file);
		bench_shared_path(ip, sizeof ip, rel);
		vc_tensor a, b;
		if (vc_read_input(ip, &in.t, in.data, err, sizeof err) || vc_interp(f, &in, &a, NULL, NULL, NULL) ||
		    vc_runner_run(r, &in, &b)) {
			fprintf(stderr, "bench_tflite: %s: %s %s\n", photos[p].file, err, q->diag.msg);
			return 1;
		}
		int ia[5], ib[5];
		top5(a.data, 1001, ia);
		top5(b.data, 1001, ib);
		for (int i = 0; i < 5; i++)
			for (int j = 0; j < 5; j++)
				overlap += ia[i] == ib[j];
		right += label_is(labels, ib[0], photos[p].label);
		right_f += label_is(labels, ia[0], photos[p].label);
		vc_tensor_free(&a);
		vc_tensor_free(&b);
	}
	bench_print((double)right, 0, "of 6", "mobilenet_photos_top1");
	bench_print((double)right_f, 0, "of 6", "mobilenet_photos_top1_float");
	bench_print(overlap / 30.0, 4, "fraction", "mobilenet_top5_agreement");
	vc_tensor_free(&in);
	vc_runner_close(r);
	vc_module_free(q);
	vc_module_free(f);
	free(labels);
	return 0;
}

/* ---- depthwise options (VC_BENCH_DW=1) ----------------------------------- */

/* Device cycles of one MobileNet inference on target. */
static uint64_t device_cycles(vc_module *m, const char *target, const vc_tensor *in)
{
	char err[512];
	vc_runner *r = vc_runner_open(m, target, err, sizeof err);
	vc_tensor o;
	uint64_t c = 0;
	if (r && !vc_runner_run(r, in, &o)) {
		vc_runner_stats(r, NULL, &c, NULL);
		vc_tensor_free(&o);
	} else {
		fprintf(stderr, "bench_tflite: %s %s\n", err, m->diag.msg);
	}
	vc_runner_close(r);
	return c;
}

/* Cycles per register-mode and immediate ALU micro-op on target: one long
 * ALU loop over an 8-entry micro-op kernel. */
static double alu_cycles_per_op(const char *target, int use_imm)
{
	vta_context_t *ctx;
	vta_error_t e;
	if (vta_context_open(target, &ctx, &e) || vta_context_bind(ctx))
		return -1;
	enum { NU = 8, IO = 200, II = 8 };
	uint8_t *buf = VTAMemAlloc(4096, VTA_NOT_CACHED);
	vta_phy_addr_t phys = VTAMemGetPhyAddr(buf);
	memset(buf, 0, 4096);
	for (uint32_t k = 0; k < NU; k++) {
		vta_uop_t u = {k, 64 + k, 0};
		uint32_t w;
		vta_uop_encode(&u, &w, NULL);
		memcpy(buf + 1024 + 4 * k, &w, 4);
	}
	vta_insn_t p[3];
	memset(p, 0, sizeof p);
	p[0].opcode = VTA_OPCODE_LOAD, p[0].memory_type = VTA_MEM_ID_UOP;
	p[0].dram_base = (uint32_t)((phys + 1024) / 4), p[0].y_size = 1, p[0].x_size = p[0].x_stride = NU;
	p[1].opcode = VTA_OPCODE_ALU, p[1].alu_opcode = VTA_ALU_OPCODE_MUL, p[1].use_imm = (uint32_t)use_imm, p[1].imm = 1;
	p[1].uop_end = NU, p[1].iter_out = IO, p[1].iter_in = II;
	p[1].dst_factor_out = 0, p[1].dst_factor_in = 0, p[1].src_factor_out = 0, p[1].src_factor_in = 0;
	p[2].opcode = VTA_OPCODE_FINISH;
	for (int i = 0; i < 3; i++) {
		vta_insn_word_t w;
		vta_insn_encode(&p[i], &w, NULL);
		vta_insn_store(&w, buf + 16 * i);
	}
	VTAFlushCache(buf, phys, 4096);
	VTADeviceHandle dev = VTADeviceAlloc();
	vta_device_info_t i0, i1;
	vta_context_info(ctx, &i0);
	int rc = VTADeviceRun(dev, phys, 3, 1u << 30);
	vta_context_info(ctx, &i1);
	VTADeviceFree(dev);
	VTAMemFree(buf);
	vta_context_bind(NULL);
	vta_context_close(ctx);
	return rc ? -1 : (double)(i1.counters.cycles - i0.counters.cycles) / (NU * IO * II);
}

static int depthwise_options(void)
{
	char err[1024], ip[1024];
	double ms;
	static const char *const on_cpu = "canonicalize,fold-bn,fold-const,quantize,partition{depthwise=cpu},fuse,pack,"
					  "kernel(tile,lower,tokens),stream(emit)";
	vc_module *v = mobilenet(NULL, &ms, NULL), *c = mobilenet(on_cpu, &ms, NULL);
	if (!v || !c)
		return 1;
	bench_shared_path(ip, sizeof ip, "images/cat.bmp");
	vc_tensor in;
	vc_tensor_alloc(&in, &v->g->inputs[0]->type);
	if (vc_read_input(ip, &in.t, in.data, err, sizeof err))
		return 1;
	/* the host int8 kernel on the depthwise layers of c, as they run there */
	double host = 0;
	int64_t dw_macs = 0, ovec = 0;
	vc_graph *g = c->g;
	vc_tensor *val = calloc((size_t)g->next_id, sizeof *val);
	for (int i = 0; i < g->n; i++) { /* a host run keeping every value */
		vc_node *n = g->nodes[i];
		if (n->op == VC_OP_INPUT) {
			val[n->id] = in;
			val[n->id].owned = 0;
			continue;
		}
		vc_tensor args[8];
		for (int k = 0; k < n->n_in && k < 8; k++)
			args[k] = val[n->in[k]->id];
		double t0 = bench_wall();
		if (vc_ref_run(c, n, args, &val[n->id]))
			return 1;
		if (n->op == VC_OP_QCONV && n->a.group > 1) {
			host += bench_wall() - t0;
			int64_t K = n->in[1]->type.dim[2] * n->in[1]->type.dim[3];
			dw_macs += vc_type_elems(&n->type) * K;
			ovec += vc_type_elems(&n->type) / 16 * K;
		}
	}
	for (int i = 0; i < g->next_id; i++)
		vc_tensor_free(&val[i]);
	free(val);
	bench_print((double)dw_macs, 0, "MACs", "mobilenet_dw_macs");
	bench_print(1e3 * host, 2, "ms", "mobilenet_dw_host_int8_ms");
	uint64_t cv = device_cycles(v, "rtl", &in), cc = device_cycles(c, "rtl", &in);
	bench_print((double)cv, 0, "cycles", "mobilenet_rtl_cycles_dw_vta");
	bench_print((double)cc, 0, "cycles", "mobilenet_rtl_cycles_dw_cpu");
	bench_print((double)cv - (double)cc, 0, "cycles", "mobilenet_rtl_dw_gemm_cycles");
	double reg = alu_cycles_per_op("rtl", 0), imm = alu_cycles_per_op("rtl", 1);
	bench_print(reg, 3, "cycles", "rtl_alu_register_cycles_per_op");
	bench_print(imm, 3, "cycles", "rtl_alu_imm_cycles_per_op");
	/* the ALU option: per output vector and tap, a zeroing (immediate), a copy
	 * of the input (register ADD), MUL by the tap's weights and ADD into the
	 * sum (register): 1 immediate + 3 register ops */
	bench_print((double)ovec * (imm + 3 * reg), 0, "cycles", "mobilenet_dw_alu_estimate_cycles");
	vc_tensor_free(&in);
	vc_module_free(v);
	vc_module_free(c);
	return 0;
}

int main(void)
{
	char err[256];
	vc_runner *probe = NULL;
	vc_module *pm = vc_module_new();
	int have_rtl = (probe = vc_runner_open(pm, "rtl", err, sizeof err)) != NULL;
	vc_runner_close(probe);
	vc_module_free(pm);
	const char *dw = getenv("VC_BENCH_DW");
	const char *only = getenv("VC_BENCH_TFLITE");
	if (only && !strcmp(only, "select"))
		return cifar(-1);
	int rc = dw && !strcmp(dw, "only") ? 0 : cifar(have_rtl) | mobilenet_photos();
	if (dw && (!strcmp(dw, "1") || !strcmp(dw, "only"))) {
		if (have_rtl)
			rc |= depthwise_options();
		else
			fprintf(stderr, "bench_tflite: VC_BENCH_DW needs the RTL simulation linked\n");
	}
	return rc;
}
