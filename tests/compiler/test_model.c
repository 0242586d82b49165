/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The model API of libvta (<vta/model.h>) on models the compiler makes:
 * every output of vta_model_run on fsim equals, bit for bit, the compiler's
 * host execution of the same compiled graph (vc_simulate: the int8
 * reference of every VTA kernel) and the compiler's own runner; inputs and
 * outputs are described as compiled; bad calls are refused with messages.
 * MNIST on every configuration; ResNet-8 (CIFAR-10) and YOLOv3-tiny (the
 * Darknet host ops: upsample, route, yolo) on the default configuration,
 * plain build only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vta/model.h>
#include <vta/runtime.h>
#include <vta/vtam.h>

#include "artifact/artifact.h"
#include "cli/cli.h"
#include "data/data.h"
#include "import/import.h"

#include "../test.h"

/* A compiled model as .vtam bytes, or NULL (failure recorded). */
static uint8_t *compile(const char *model, const char *calib, int count, size_t *len, vc_module **sim)
{
	char path[1024], cpath[1024], err[1024];
	snprintf(path, sizeof path, "%s/../shared/models/%s", test_root(), model);
	snprintf(cpath, sizeof cpath, "%s/../shared/data/%s", test_root(), calib);
	if (access(path, R_OK) || access(cpath, R_OK)) {
		test_fail_(__FILE__, __LINE__, "model or data missing: %s, %s (../shared, README)", path, cpath);
		return NULL;
	}
	vc_module *m = vc_module_new();
	vc_compile_opts o = {.calib_path = cpath, .calib_count = count};
	uint8_t *bytes = NULL;
	int rc = vc_import_file(m, path);
	CHECK_EQ(rc, 0);
	if (!rc)
		CHECK_EQ(rc = vc_compile(m, &o, err, sizeof err), 0);
	if (!rc)
		CHECK_EQ(rc = vc_artifact_bytes(m, &bytes, len), 0);
	vc_module_free(m);
	*sim = vc_module_new();
	if (!rc)
		CHECK_EQ(vc_artifact_parse(*sim, bytes, *len), 0);
	return rc ? NULL : bytes;
}

/* n samples of a dataset through the model on fsim and through the
 * compiler's host execution of the same file: identical outputs. */
static void same_as_host(const char *model, const char *calib, int count, const vc_dataset *d, int n)
{
	size_t len;
	vc_module *sim = NULL;
	uint8_t *bytes = compile(model, calib, count, &len, &sim);
	if (!bytes) {
		vc_module_free(sim);
		return;
	}
	vta_model_t *m;
	vta_error_t err;
	int rc = vta_model_open_bytes(bytes, len, model, "fsim", &m, &err);
	CHECK_EQ(rc, 0);
	if (rc) {
		CHECK_STR_CONTAINS(err.msg, "(opened)");
		goto done;
	}
	vta_tensor_info_t in, out;
	CHECK_EQ(vta_model_n_inputs(m), sim->g->n_inputs);
	CHECK_EQ(vta_model_input(m, 0, &in), 0);
	CHECK_EQ(vta_model_output(m, 0, &out), 0);
	CHECK(vc_type_elems(&sim->g->inputs[0]->type) == in.elems);
	CHECK(vc_type_elems(&sim->g->outputs[0]->type) == out.elems);
	CHECK(in.dtype == VTA_DTYPE_F32 && in.rank == 4);
	CHECK(!strcmp(in.name, sim->g->inputs[0]->name));
	int64_t de = (int64_t)d->channels * d->rows * d->cols;
	CHECK(in.elems == de);
	vc_tensor x, ref;
	CHECK_EQ(vc_tensor_alloc(&x, &sim->g->inputs[0]->type), 0);
	float *y = calloc((size_t)out.elems, sizeof *y);
	int exact = 1;
	for (int s = 0; s < n && in.elems == de; s++) {
		for (int64_t i = 0; i < in.elems; i++)
			((float *)x.data)[i] = d->pixels[s * de + i];
		vta_tensor_t ti = {VTA_DTYPE_F32, 0, x.data, (size_t)in.elems * 4};
		vta_tensor_t to = {VTA_DTYPE_F32, 0, y, (size_t)out.elems * 4};
		CHECK_EQ(vta_model_run(m, &ti, &to, &err), 0);
		CHECK_EQ(vc_simulate(sim, &x, &ref), 0);
		exact &= !memcmp(ref.data, y, (size_t)out.elems * 4);
		vc_tensor_free(&ref);
	}
	CHECK(exact);
	printf("%s: %d samples, %d VTA kernels, outputs of libvta and the host reference %s\n", model, n,
	       sim->n_kernels, exact ? "identical" : "DIFFERENT");
	vta_model_stats_t st;
	CHECK_EQ(vta_model_stats(m, &st), 0);
	CHECK_EQ(st.runs, n);
	int64_t macs = 0;
	int kernels = 0;
	for (int i = 0; i < st.n_layers; i++) {
		macs += st.layers[i].macs;
		kernels += st.layers[i].on_vta;
		CHECK(st.layers[i].op != NULL);
	}
	CHECK_EQ(kernels, sim->n_kernels);
	int64_t want = 0;
	for (int k = 0; k < sim->n_kernels; k++)
		want += sim->kernels[k]->macs;
	CHECK_EQ(macs, want);
	/* bad calls */
	vta_tensor_t small = {VTA_DTYPE_F32, 0, x.data, 4};
	vta_tensor_t to = {VTA_DTYPE_F32, 0, y, (size_t)out.elems * 4};
	CHECK(vta_model_run(m, &small, &to, &err) == VTA_EINVAL);
	CHECK_STR_CONTAINS(err.msg, "input 0");
	CHECK(vta_model_input(m, 1, &in) == VTA_EINVAL);
	free(y);
	vc_tensor_free(&x);
	vta_model_close(m);
done:
	free(bytes);
	vc_module_free(sim);
}

static void mnist(void)
{
	char images[1024], labels[1024], err[1024];
	snprintf(images, sizeof images, "%s/../shared/data/mnist-10k-images-idx3-ubyte", test_root());
	snprintf(labels, sizeof labels, "%s/../shared/data/mnist-10k-labels-idx1-ubyte", test_root());
	vc_dataset d;
	if (vc_dataset_load_idx(images, labels, &d, err, sizeof err)) {
		test_fail_(__FILE__, __LINE__, "%s", err);
		return;
	}
	same_as_host("mnist-8.onnx", "mnist-10k-images-idx3-ubyte", 50, &d, 20);
	vc_dataset_free(&d);
}

static int slow_cases_run_here(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return 0;
#endif
	return !strcmp(VTA_CONFIG_NAME, "1x16_i8w8a32_15_15_18_17") && !strcmp(VTA_TARGET, "sim");
}

static void resnet8(void)
{
	if (!slow_cases_run_here())
		return;
	char path[1024], err[1024];
	snprintf(path, sizeof path, "%s/../shared/data/cifar10-test-2k.bin", test_root());
	vc_dataset d;
	if (vc_dataset_load_cifar(path, 3, 32, 32, &d, err, sizeof err)) {
		test_fail_(__FILE__, __LINE__, "%s", err);
		return;
	}
	same_as_host("resnet8-cifar10-float.tflite", "cifar10-test-2k.bin", 20, &d, 5);
	vc_dataset_free(&d);
}

/* YOLOv3-tiny (shared cfg, synthetic weights, 64x64 input): both yolo
 * outputs of libvta on fsim bit-identical with the host reference. */
static void yolov3_tiny(void)
{
	if (!slow_cases_run_here())
		return;
	char path[1024], err[1024];
	snprintf(path, sizeof path, "%s/../shared/models/yolov3-tiny.cfg", test_root());
	vc_darknet_opts o = {.synthetic = 1, .seed = 1, .input_size = 64};
	vc_compile_opts co = {.calib_path = "synthetic", .calib_count = 2};
	vc_module *c = vc_module_new(), *sim = vc_module_new();
	uint8_t *bytes = NULL;
	size_t len;
	int rc = vc_import_darknet_files(c, path, NULL, &o);
	CHECK_EQ(rc, 0);
	if (!rc)
		CHECK_EQ(rc = vc_compile(c, &co, err, sizeof err), 0);
	if (!rc)
		CHECK_EQ(rc = vc_artifact_bytes(c, &bytes, &len), 0);
	if (!rc)
		CHECK_EQ(rc = vc_artifact_parse(sim, bytes, len), 0);
	vc_module_free(c);
	vta_model_t *m = NULL;
	vta_error_t e;
	if (!rc)
		CHECK_EQ(rc = vta_model_open_bytes(bytes, len, "yolov3-tiny", "fsim", &m, &e), 0);
	if (!rc && vta_model_n_outputs(m) == 2 && sim->g->n_outputs == 2) {
		vc_tensor x, ref[8];
		CHECK_EQ(vc_tensor_alloc(&x, &sim->g->inputs[0]->type), 0);
		uint64_t st = 3;
		int64_t ne = vc_type_elems(&x.t);
		for (int64_t i = 0; i < ne; i++)
			((float *)x.data)[i] = (float)test_rand_range(&st, 0, 255);
		vta_tensor_info_t oi[2];
		float *y[2];
		vta_tensor_t ti = {VTA_DTYPE_F32, 0, x.data, (size_t)ne * 4}, to[2];
		for (int k = 0; k < 2; k++) {
			CHECK_EQ(vta_model_output(m, k, &oi[k]), 0);
			y[k] = calloc((size_t)oi[k].elems, 4);
			to[k] = (vta_tensor_t){VTA_DTYPE_F32, 0, y[k], (size_t)oi[k].elems * 4};
		}
		CHECK_EQ(vta_model_run(m, &ti, to, &e), 0);
		CHECK_EQ(vc_simulate(sim, &x, ref), 0);
		int exact = 1;
		for (int k = 0; k < 2; k++) {
			exact &= vc_type_elems(&ref[k].t) == oi[k].elems && !memcmp(ref[k].data, y[k], (size_t)oi[k].elems * 4);
			vc_tensor_free(&ref[k]);
			free(y[k]);
		}
		CHECK(exact);
		printf("yolov3-tiny (64x64): %d VTA kernels, both outputs of libvta and the host reference %s\n",
		       sim->n_kernels, exact ? "identical" : "DIFFERENT");
		vc_tensor_free(&x);
	} else if (!rc) {
		CHECK(0);
	}
	vta_model_close(m);
	free(bytes);
	vc_module_free(sim);
}

/* MNIST's file with bytes of its GRAPH section overwritten (checksum made
 * valid again, so the graph decoder and the node checks are what stand in
 * the way): each is refused on open or runs, with no crash or out-of-bounds
 * access (the ASan build), and no unbounded allocation. */
static void mutated(void)
{
	size_t len;
	vc_module *sim = NULL;
	uint8_t *bytes = compile("mnist-8.onnx", "mnist-10k-images-idx3-ubyte", 20, &len, &sim);
	vc_module_free(sim);
	if (!bytes)
		return;
	vta_vtam_t v;
	vta_error_t err;
	CHECK_EQ(vta_vtam_parse(bytes, len, "mnist", &v, &err), 0);
	size_t gn;
	const uint8_t *g = vta_vtam_section(&v, bytes, VTA_VTAM_GRAPH, &gn);
	size_t g0 = (size_t)(g - bytes), span = gn < 16384 ? gn : 16384; /* the nodes, not the image */
	uint64_t seed = 11;
	int opened = 0, ran = 0, n = 300;
#if defined(__SANITIZE_ADDRESS__)
	n = 60; /* each open maps a fresh golden-model DRAM, slow under ASan */
#endif
	uint8_t *c = malloc(len);
	float x[784] = {0}, y[10];
	for (int t = 0; t < n; t++) {
		memcpy(c, bytes, len);
		for (int k = 0; k < 1 + t % 3; k++) {
			size_t at = g0 + (size_t)test_rand_range(&seed, 0, (int64_t)span - 1);
			c[at] = t % 2 ? (uint8_t)test_rand(&seed) : (uint8_t)(c[at] ^ (1u << (t / 2 % 8)));
		}
		memset(c + 32, 0, 4);
		uint32_t crc = vta_crc32c(0, c, len);
		for (int k = 0; k < 4; k++)
			c[32 + k] = (uint8_t)(crc >> (8 * k));
		vta_model_t *m;
		if (vta_model_open_bytes(c, len, "mutated", "fsim", &m, &err)) {
			CHECK(err.msg[0] != 0);
			continue;
		}
		opened++;
		vta_tensor_info_t in, out;
		vta_model_input(m, 0, &in);
		vta_model_output(m, 0, &out);
		if (in.elems == 784 && in.dtype == VTA_DTYPE_F32 && out.elems == 10 && out.dtype == VTA_DTYPE_F32) {
			vta_tensor_t ti = {VTA_DTYPE_F32, 0, x, sizeof x}, to = {VTA_DTYPE_F32, 0, y, sizeof y};
			vta_set_log_errors(NULL, 0);
			ran += vta_model_run(m, &ti, &to, &err) == 0;
		}
		vta_model_close(m);
	}
	printf("mutated mnist: %d files, %d opened, %d ran\n", n, opened, ran);
	free(c);
	free(bytes);
}

/* MNIST calibrated on 10 digits, as compile() gives it; NULL: nothing to free. */
static uint8_t *mnist10(size_t *len, vc_module **sim)
{
	*sim = NULL;
	uint8_t *bytes = compile("mnist-8.onnx", "mnist-10k-images-idx3-ubyte", 10, len, sim);
	if (!bytes) {
		vc_module_free(*sim);
		*sim = NULL;
	}
	return bytes;
}

/* The preprocessing vta compile records (--scale/--mean/--std as META lines)
 * is what vta_model_input reports, to the last bit. */
static void preproc(void)
{
	size_t len;
	vc_module *sim;
	uint8_t *bytes = mnist10(&len, &sim);
	if (!bytes)
		return;
	vc_preproc p = {.scale = 1.0 / 255, .mean = {0.1307}, .std = {0.3081, 0.5, 2}, .n_mean = 1, .n_std = 3};
	char meta[512];
	CHECK_EQ(vc_preproc_meta(&p, meta, sizeof meta), 0);
	uint8_t *b2 = NULL;
	size_t l2;
	CHECK_EQ(vc_artifact_bytes_meta(sim, meta, &b2, &l2), 0);
	vta_model_t *m = NULL;
	vta_error_t err;
	vta_tensor_info_t in;
	if (b2 && !vta_model_open_bytes(b2, l2, "preproc", "fsim", &m, &err) && !vta_model_input(m, 0, &in)) {
		CHECK(in.has_preproc && in.scale == p.scale && in.n_mean == 1 && in.n_std == 3);
		CHECK(in.mean[0] == p.mean[0] && in.std[0] == p.std[0] && in.std[1] == 0.5 && in.std[2] == 2);
	} else {
		CHECK(0);
	}
	vta_model_close(m);
	free(b2);
	/* none given: no META section, nothing reported */
	vc_preproc none = {0};
	CHECK_EQ(vc_preproc_meta(&none, meta, sizeof meta), 0);
	CHECK_EQ(meta[0], 0);
	if (!vta_model_open_bytes(bytes, len, "plain", "fsim", &m, &err)) {
		CHECK_EQ(vta_model_input(m, 0, &in), 0);
		CHECK_EQ(in.has_preproc, 0);
		vta_model_close(m);
	}
	free(bytes);
	vc_module_free(sim);
}

/* Files that are no model are refused with a message naming them. */
static void refused(void)
{
	vta_model_t *m = (vta_model_t *)1;
	vta_error_t err;
	CHECK(vta_model_open("/nonexistent/x.vtam", "fsim", &m, &err) != 0);
	CHECK(m == NULL);
	CHECK_STR_CONTAINS(err.msg, "/nonexistent/x.vtam");
	static const uint8_t junk[64] = "not a model";
	CHECK(vta_model_open_bytes(junk, sizeof junk, "junk", "fsim", &m, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "junk");
	vta_model_close(NULL);
}

/* Messages name ops and dtypes, never their numbers: a graph that holds a
 * compiler op libvta does not run (MNIST's file with a host node's op made
 * batchnorm), and tensors of the wrong size or of no dtype. */
static void names(void)
{
	size_t len;
	vc_module *sim;
	uint8_t *bytes = mnist10(&len, &sim);
	if (!bytes)
		return;
	vc_node *host = NULL;
	for (int i = 0; i < sim->g->n && !host; i++)
		if (sim->g->nodes[i]->op == VC_OP_UNPACK)
			host = sim->g->nodes[i];
	CHECK(host != NULL);
	vta_model_t *m = NULL;
	vta_error_t err;
	uint8_t *b2 = NULL;
	size_t l2;
	char want[256];
	if (host) {
		host->op = VC_OP_BATCHNORM;
		CHECK_EQ(vc_artifact_bytes(sim, &b2, &l2), 0);
		CHECK(b2 && vta_model_open_bytes(b2, l2, "bn", "fsim", &m, &err) != 0);
		snprintf(want, sizeof want, "('%s'): op batchnorm is not one libvta runs on the host", host->name);
		CHECK_STR_CONTAINS(err.msg, want);
		free(b2);
		b2 = NULL;
		host->op = VC_OP_UNPACK;
	}
	/* the wrong number of bytes, and a dtype that is none */
	float x[784] = {0}, y[10];
	CHECK_EQ(vta_model_open_bytes(bytes, len, "mnist", "fsim", &m, &err), 0);
	if (m) {
		vta_tensor_info_t in;
		CHECK_EQ(vta_model_input(m, 0, &in), 0);
		vta_tensor_t ti = {VTA_DTYPE_F32, 0, x, 4}, to = {VTA_DTYPE_F32, 0, y, sizeof y};
		CHECK(vta_model_run(m, &ti, &to, &err) == VTA_EINVAL);
		snprintf(want, sizeof want, "input 0 ('%s'): 4 bytes of VTA_DTYPE_F32 given for 784 elements", in.name);
		CHECK_STR_CONTAINS(err.msg, want);
		ti.bytes = sizeof x;
		to.dtype = 7;
		CHECK(vta_model_run(m, &ti, &to, &err) == VTA_EINVAL);
		CHECK_STR_CONTAINS(err.msg, "bytes of dtype 7 (no VTA_DTYPE_*) given for 10 elements");
		vta_model_close(m);
	}
	free(bytes);
	vc_module_free(sim);
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"mnist", mnist},
		{"resnet8", resnet8},
		{"yolov3_tiny", yolov3_tiny},
		{"refused", refused},
		{"preproc", preproc},
		{"mutated", mutated},
		{"names", names},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
