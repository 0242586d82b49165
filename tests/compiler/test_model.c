/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The model API of libvta (<vta/model.h>) on models the compiler makes:
 * every output of vta_model_run on fsim equals, bit for bit, the compiler's
 * host execution of the same compiled graph (vc_simulate: the int8
 * reference of every VTA kernel) and the compiler's own runner; inputs and
 * outputs are described as compiled; bad calls are refused with messages.
 * MNIST on every configuration; ResNet-8 (CIFAR-10) and YOLOv3-tiny (the
 * Darknet host ops: upsample, route, yolo) on the default configuration,
 * plain build only. A network of the convolutions partition leaves on the
 * host (grouped, dilated, depthwise, dense; fused or not; float or int8).
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

/* ---- host convolutions -------------------------------------------------- */

static float hrand(uint64_t *st)
{
	return (float)((double)(test_rand(st) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static vc_node *hconst(vc_module *m, uint64_t *st, int rank, const int64_t *d, float scale)
{
	vc_node *c = vc_const(m, NULL, VC_F32, rank, d, NULL);
	for (int64_t e = 0; e < vc_type_elems(&c->type); e++)
		((float *)c->data)[e] = hrand(st) * scale;
	return c;
}

/* conv(x, [o, c/group, k, k]) with bias, its stride sd, dilation dl, padding dl * (k/2). */
static vc_node *hconv(vc_module *m, uint64_t *st, vc_node *x, int64_t o, int64_t k, int64_t group, int64_t dl,
		      int64_t sd, const char *name)
{
	int64_t wd[4] = {o, x->type.dim[1] / group, k, k}, bd[1] = {o};
	vc_node *in[3] = {x, hconst(m, st, 4, wd, 0.5f), hconst(m, st, 1, bd, 0.1f)};
	vc_attrs a;
	vc_attrs_init(&a);
	a.group = group;
	a.dilation[0] = a.dilation[1] = dl;
	a.stride[0] = a.stride[1] = sd;
	for (int q = 0; q < 4; q++)
		a.pad[q] = dl * (k / 2);
	return vc_build(m, VC_OP_CONV, in, 3, &a, name);
}

static vc_node *hop(vc_module *m, vc_op op, vc_node *a, vc_node *b, const char *name)
{
	vc_node *in[2] = {a, b};
	vc_attrs at;
	vc_attrs_init(&at);
	return vc_build(m, op, in, b ? 2 : 1, &at, name);
}

/*
 * A network of the layers partition keeps off VTA: a plain 3x3 convolution
 * (VTA), a grouped one (4 groups, as RegNet's and ResNeXt's), a dilated one
 * (DeepLab's; dilation dl) with a residual add, a depthwise one, a
 * stride-2 one, global average pooling,
 * a dense layer; with bn, a batchnorm of its own after the first
 * convolution, and a second output: a batched matrix product of the pooled
 * features with themselves ([2,2,6] x [2,6,2]).
 */
static vc_module *host_net(int bn, int64_t dl)
{
	vc_module *m = vc_module_new();
	uint64_t st = 77;
	int64_t xd[4] = {1, 8, 10, 10};
	vc_node *x = vc_input(m, "x", VC_F32, 4, xd);
	vc_node *c1 = hop(m, VC_OP_RELU, hconv(m, &st, x, 16, 3, 1, 1, 1, "c1"), NULL, "r1");
	if (bn) {
		int64_t cd[1] = {16};
		vc_node *in[5] = {c1, hconst(m, &st, 1, cd, 1.0f), hconst(m, &st, 1, cd, 0.2f), hconst(m, &st, 1, cd, 0.2f),
				  hconst(m, &st, 1, cd, 0.0f)};
		for (int c = 0; c < 16; c++) /* scales around 1, variances positive */
			((float *)in[1]->data)[c] += 1.5f, ((float *)in[4]->data)[c] = 0.5f + 0.03f * (float)c;
		vc_attrs a;
		vc_attrs_init(&a);
		a.eps = 1e-5;
		c1 = vc_build(m, VC_OP_BATCHNORM, in, 5, &a, "bn");
	}
	vc_node *c2 = hop(m, VC_OP_RELU, hconv(m, &st, c1, 16, 3, 4, 1, 1, "grouped"), NULL, "r2");
	vc_node *c3 = hop(m, VC_OP_ADD, hconv(m, &st, c2, 16, 3, 1, dl, 1, "dilated"), c1, "res");
	c3 = hop(m, VC_OP_RELU, c3, NULL, "r3");
	vc_node *c4 = hop(m, VC_OP_RELU, hconv(m, &st, c3, 16, 3, 16, 1, 1, "dw"), NULL, "r4");
	vc_node *c5 = hop(m, VC_OP_RELU, hconv(m, &st, c4, 24, 3, 1, 1, 2, "s2"), NULL, "r5");
	vc_node *f = hop(m, VC_OP_GAP, c5, NULL, "gap");
	vc_attrs a;
	vc_attrs_init(&a);
	a.axis = 1;
	f = vc_build(m, VC_OP_FLATTEN, &f, 1, &a, "flat");
	int64_t wd[2] = {10, 24}, bd[1] = {10};
	vc_node *in[3] = {f, hconst(m, &st, 2, wd, 0.5f), hconst(m, &st, 1, bd, 0.1f)};
	vc_attrs_init(&a);
	m->g->outputs[m->g->n_outputs++] = vc_build(m, VC_OP_DENSE, in, 3, &a, "fc");
	if (bn) {
		vc_node *sh[2];
		for (int k = 0; k < 2; k++) {
			vc_attrs_init(&a);
			a.nshape = 3;
			a.shape[0] = 2, a.shape[1] = k ? 6 : 2, a.shape[2] = k ? 2 : 6;
			sh[k] = vc_build(m, VC_OP_RESHAPE, &f, 1, &a, k ? "mb" : "ma");
		}
		m->g->outputs[m->g->n_outputs++] = hop(m, VC_OP_MATMUL, sh[0], sh[1], "mm");
	}
	m->props |= VC_PROP_IMPORTED;
	vc_samples *cs = &m->calib; /* calibration: uniform [-1, 1] */
	cs->data = vc_alloc(m, (size_t)(4 * 800) * sizeof *cs->data);
	for (int64_t i = 0; cs->data && i < 4 * 800; i++)
		cs->data[i] = hrand(&st);
	cs->count = cs->data ? 4 : 0;
	cs->elems = 800;
	return m;
}

/* The ops of the graph in sim that run on the host, by name, counted in *n. */
static int count_op(const vc_module *sim, vc_op op)
{
	int n = 0;
	for (int i = 0; i < sim->g->n; i++)
		n += sim->g->nodes[i]->op == op && !sim->g->nodes[i]->on_vta;
	return n;
}

#define HOST_INT8 "canonicalize,fold-bn,fold-const,quantize,partition{depthwise=cpu,cpu=fc:s2},fuse,pack," \
		  "kernel(tile,lower,tokens),stream(emit)"
/* host_net with its convolutions and dense layer kept in float (its
 * batchnorm, which follows no convolution, becomes a per-channel mul and
 * add in fold-bn). */
#define HOST_FLOAT "canonicalize,fold-bn,fold-const,quantize{skip=c1:grouped:dilated:dw:s2:fc},partition,fuse," \
		   "pack,kernel(tile,lower,tokens),stream(emit)"

/* host_net compiled with pipeline (a second stage: the rest of the default
 * pipeline, after fused qconv.rq nodes are taken off VTA); NULL on failure. */
static vc_module *host_compile(int bn, int64_t dl, const char *pipeline, int unfuse)
{
	vc_module *c = host_net(bn, dl);
	vc_compile_opts o = {.pipeline = pipeline};
	char err[1024];
	int rc = vc_compile(c, &o, err, sizeof err);
	for (int i = 0; !rc && unfuse && i < c->g->n; i++)
		c->g->nodes[i]->on_vta &= c->g->nodes[i]->op != VC_OP_QCONV_RQ;
	vc_compile_opts rest = {.pipeline = HOST_INT8, .skip_done = 1};
	if (!rc && unfuse)
		rc = vc_compile(c, &rest, err, sizeof err);
	if (rc) {
		printf("%s: %s\n", pipeline, err);
		test_fail_(__FILE__, __LINE__, "host_net does not compile");
		vc_module_free(c);
		return NULL;
	}
	return c;
}

/*
 * The compiled c (freed): libvta's outputs on target against the compiler's
 * host reference of the same file, over a few random inputs: equal bit for bit
 * (tol 0), or within tol relative to the output's largest magnitude (float
 * convolutions: the reference's OpenBLAS sums in another order). The host
 * ops of ops[] must be in the file.
 */
static void same_outputs(const char *what, vc_module *c, const char *target, double tol, const vc_op *ops, int n_ops)
{
	vc_module *sim = vc_module_new();
	uint8_t *bytes = NULL;
	size_t len;
	int rc = c ? 0 : -1;
	if (!rc)
		CHECK_EQ(rc = vc_artifact_bytes(c, &bytes, &len), 0);
	if (!rc)
		CHECK_EQ(rc = vc_artifact_parse(sim, bytes, len), 0);
	vc_module_free(c);
	vta_model_t *m = NULL;
	vta_error_t e;
	if (!rc && (rc = vta_model_open_bytes(bytes, len, what, target, &m, &e)))
		printf("%s: %s\n", what, e.msg);
	CHECK_EQ(rc, 0);
	for (int k = 0; !rc && k < n_ops; k++)
		if (!count_op(sim, ops[k]))
			test_fail_(__FILE__, __LINE__, "%s: no host %s in the compiled graph", what, vc_op_name(ops[k]));
	double worst = 0;
	int exact = 1, no = rc ? 0 : vta_model_n_outputs(m);
	for (int s = 0; !rc && s < 3; s++) {
		vc_tensor x, ref[8];
		CHECK_EQ(vc_tensor_alloc(&x, &sim->g->inputs[0]->type), 0);
		uint64_t st = 100 + (uint64_t)s;
		for (int64_t i = 0; i < vc_type_elems(&x.t); i++)
			((float *)x.data)[i] = hrand(&st);
		vta_tensor_info_t oi[8];
		vta_tensor_t ti = {VTA_DTYPE_F32, 0, x.data, (size_t)vc_type_bytes(&x.t)}, to[8];
		float *y[8];
		for (int k = 0; k < no; k++) {
			CHECK_EQ(vta_model_output(m, k, &oi[k]), 0);
			y[k] = calloc((size_t)oi[k].elems, 4);
			to[k] = (vta_tensor_t){VTA_DTYPE_F32, 0, y[k], (size_t)oi[k].elems * 4};
		}
		CHECK_EQ(rc = vta_model_run(m, &ti, to, &e), 0);
		if (rc)
			printf("%s: %s\n", what, e.msg);
		CHECK_EQ(vc_simulate(sim, &x, ref), 0);
		for (int k = 0; k < no; k++) {
			const float *r = ref[k].data;
			double mag = 0, diff = 0;
			for (int64_t i = 0; i < oi[k].elems; i++) {
				mag = fmax(mag, fabs(r[i]));
				diff = fmax(diff, fabs((double)r[i] - y[k][i]));
			}
			exact &= !memcmp(r, y[k], (size_t)oi[k].elems * 4);
			worst = fmax(worst, mag > 0 ? diff / mag : diff);
			vc_tensor_free(&ref[k]);
			free(y[k]);
		}
		vc_tensor_free(&x);
	}
	if (tol == 0)
		CHECK(exact);
	else
		CHECK(worst <= tol);
	printf("%s on %s: %d VTA kernels, libvta against the host reference: %s (largest difference %.3g of the "
	       "output's magnitude)\n", what, target, sim->n_kernels, exact ? "identical" : "different", worst);
	vta_model_close(m);
	free(bytes);
	vc_module_free(sim);
}


/* int8: qconv (grouped, dilated, depthwise), qadd, requant with channel
 * shifts, qdense on the host, the plain convolution on VTA: bit-exact. */
static void host_int8(void)
{
	static const vc_op ops[] = {VC_OP_QCONV, VC_OP_QADD, VC_OP_REQUANT, VC_OP_QDENSE};
	same_outputs("host int8 convolutions", host_compile(0, 2, HOST_INT8, 0), "fsim", 0, ops, 4);
}

/* Fused qconv.rq nodes (bias, residual, channel shifts; convolution and
 * dense forms; the residual's convolution undilated, so that it fuses)
 * taken off VTA after fuse: bit-exact. */
static void host_fused(void)
{
	static const vc_op ops[] = {VC_OP_QCONV_RQ};
	same_outputs("host qconv.rq", host_compile(0, 1, "canonicalize,fold-bn,fold-const,quantize,partition,fuse", 1), "fsim",
		  0, ops, 1);
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
	vc_module *c = vc_module_new();
	int rc = vc_import_darknet_files(c, path, NULL, &o);
	CHECK_EQ(rc, 0);
	if (!rc)
		CHECK_EQ(rc = vc_compile(c, &co, err, sizeof err), 0);
	CHECK_EQ(c->g->n_outputs, 2);
	if (rc) {
		vc_module_free(c);
		return;
	}
	same_outputs("yolov3-tiny (64x64)", c, "fsim", 0, NULL, 0);
}

/* Float, left unquantized (quantize's skip=): conv, batchnorm alone, dense,
 * batched matmul. The reference's float convolution and dense layer are
 * OpenBLAS's sgemm, summing in another order: within 1e-5 of the output's
 * magnitude. */
static void host_float(void)
{
	static const vc_op ops[] = {VC_OP_CONV, VC_OP_MUL, VC_OP_DENSE, VC_OP_MATMUL};
	same_outputs("host float network",
		  host_compile(1, 2, HOST_FLOAT, 0),
		  "fsim", 1e-5, ops, 4);
}

/* n copies of a model file with bytes of its GRAPH section overwritten
 * (checksum made valid again, so the graph decoder and the node checks are
 * what stand in the way): each is refused on open or runs, with no crash or
 * out-of-bounds access (the ASan build), and no unbounded allocation. */
static void mutate_runs(const uint8_t *bytes, size_t len, const char *what, int n, uint64_t seed)
{
	vta_vtam_t v;
	vta_error_t err;
	CHECK_EQ(vta_vtam_parse(bytes, len, what, &v, &err), 0);
	size_t gn;
	const uint8_t *g = vta_vtam_section(&v, bytes, VTA_VTAM_GRAPH, &gn);
	size_t g0 = (size_t)(g - bytes), span = gn < 16384 ? gn : 16384; /* the nodes, not the image */
	int opened = 0, ran = 0;
	uint8_t *c = malloc(len);
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
		int no = vta_model_n_outputs(m), ok = in.elems <= (1 << 20);
		vta_tensor_t ti = {VTA_DTYPE_F32, 0, ok ? calloc((size_t)in.elems + 1, 4) : NULL, (size_t)in.elems * 4}, to[8];
		for (int q = 0; q < no; q++) {
			vta_model_output(m, q, &out);
			ok &= out.elems <= (1 << 20);
			to[q] = (vta_tensor_t){VTA_DTYPE_F32, 0, ok ? calloc((size_t)out.elems + 1, 4) : NULL, (size_t)out.elems * 4};
		}
		if (ok && ti.data) {
			vta_set_log_errors(NULL, 0);
			ran += vta_model_run(m, &ti, to, &err) == 0;
		}
		free(ti.data);
		for (int q = 0; q < no; q++)
			free(to[q].data);
		vta_model_close(m);
	}
	printf("mutated %s: %d files, %d opened, %d ran\n", what, n, opened, ran);
	free(c);
}

static int mutations(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return 60; /* each open maps a fresh golden-model DRAM, slow under ASan */
#endif
	return 300;
}

/* MNIST's file, mutated. */
static void mutated(void)
{
	size_t len;
	vc_module *sim = NULL;
	uint8_t *bytes = compile("mnist-8.onnx", "mnist-10k-images-idx3-ubyte", 20, &len, &sim);
	vc_module_free(sim);
	if (bytes)
		mutate_runs(bytes, len, "mnist", mutations(), 11);
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

/* The host convolution networks (int8, fused, float), mutated: the checks
 * of the host convolutions and epilogues keep their loops in bounds. */
static void mutated_host(void)
{
	vc_module *c[3] = {host_compile(0, 2, HOST_INT8, 0),
			   host_compile(0, 1, "canonicalize,fold-bn,fold-const,quantize,partition,fuse", 1),
			   host_compile(1, 2, HOST_FLOAT, 0)};
	for (int k = 0; k < 3; k++) {
		uint8_t *bytes = NULL;
		size_t len;
		if (c[k] && !vc_artifact_bytes(c[k], &bytes, &len))
			mutate_runs(bytes, len, k == 0 ? "host int8" : k == 1 ? "host qconv.rq" : "host float", mutations(),
				    20 + (uint64_t)k);
		free(bytes);
		vc_module_free(c[k]);
	}
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
		/* libvta runs batchnorm, but not on an unpack's operands: the
		 * refusal names the node and its op, never the op's number */
		CHECK(b2 && vta_model_open_bytes(b2, l2, "bn", "fsim", &m, &err) != 0);
		snprintf(want, sizeof want, "('%s', batchnorm)", host->name);
		CHECK_STR_CONTAINS(err.msg, want);
		CHECK(!strstr(err.msg, "op 15"));
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
		{"host_int8", host_int8},
		{"host_fused", host_fused},
		{"host_float", host_float},
		{"refused", refused},
		{"preproc", preproc},
		{"mutated", mutated},
		{"names", names},
		{"mutated_host", mutated_host},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
