/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every lowered op bit-exact against the int8 reference kernels: random
 * convolutions and dense layers (channels that are not multiples of the
 * block, padding, strides, tails of every tile loop) compiled for VTA and
 * run on the golden model through the runtime, compared with the same
 * quantized graph run on the CPU. Plus one ResNet-18 workload (C10) as a
 * single-layer model; all of C2..C11 run in `make bench`.
 */
#include <unistd.h>

#include "test.h"
#include "vc.h"

static uint64_t seed = 11;

static float frand(void)
{
	return (float)((double)(test_rand(&seed) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

typedef struct shape {
	int n, c, h, w, o, k, pad, stride, relu, dense;
} shape;

/* The single-layer model of a shape, weights drawn from `s`. */
static vc_module *layer(const shape *sh, uint64_t s)
{
	seed = s;
	vc_module *m = vc_module_new();
	vc_node *x, *y;
	if (sh->dense) {
		int64_t xd[2] = {sh->n, sh->c}, wd[2] = {sh->o, sh->c}, bd[1] = {sh->o};
		x = vc_input(m, "x", VC_F32, 2, xd);
		vc_node *w = vc_const(m, "w", VC_F32, 2, wd, NULL), *b = vc_const(m, "b", VC_F32, 1, bd, NULL);
		for (int64_t i = 0; i < vc_type_elems(&w->type); i++)
			((float *)w->data)[i] = frand();
		for (int64_t i = 0; i < sh->o; i++)
			((float *)b->data)[i] = frand();
		vc_node *a[3] = {x, w, b};
		y = vc_build(m, VC_OP_DENSE, a, 3, NULL, "dense0");
	} else {
		int64_t xd[4] = {sh->n, sh->c, sh->h, sh->w}, wd[4] = {sh->o, sh->c, sh->k, sh->k}, bd[1] = {sh->o};
		x = vc_input(m, "x", VC_F32, 4, xd);
		vc_node *w = vc_const(m, "w", VC_F32, 4, wd, NULL), *b = vc_const(m, "b", VC_F32, 1, bd, NULL);
		for (int64_t i = 0; i < vc_type_elems(&w->type); i++)
			((float *)w->data)[i] = frand();
		for (int64_t i = 0; i < sh->o; i++)
			((float *)b->data)[i] = frand();
		vc_attrs at;
		vc_attrs_init(&at);
		for (int i = 0; i < 4; i++)
			at.pad[i] = sh->pad;
		at.stride[0] = at.stride[1] = sh->stride;
		vc_node *a[3] = {x, w, b};
		y = vc_build(m, VC_OP_CONV, a, 3, &at, "conv0");
	}
	if (y && sh->relu)
		y = vc_build(m, VC_OP_RELU, &y, 1, NULL, "relu0");
	m->g->outputs[m->g->n_outputs++] = y;
	m->props |= VC_PROP_IMPORTED;
	return m;
}

static int compile(vc_module *m, const char *pipeline)
{
	vc_compile_opts o = {.pipeline = pipeline, .instr = {.verify_each = 1}};
	char err[1024];
	int rc = vc_compile(m, &o, err, sizeof err);
	if (rc)
		printf("compile: %s\n", err);
	return rc;
}

/* Compile for VTA and for the CPU; run both; 1 if bit-exact, 0 if not,
 * -1 if the layer stayed on the CPU (not lowered in this configuration). */
static int check_shape(const shape *sh, uint64_t s)
{
	vc_module *v = layer(sh, s), *c = layer(sh, s);
	int rc = 0;
	if (compile(v, NULL) || compile(c, "canonicalize,fold-bn,fold-const,quantize"))
		goto done;
	if (v->n_kernels == 0) {
		rc = -1;
		goto done;
	}
	char err[512];
	vc_runner *r = vc_runner_open(v, "fsim", err, sizeof err);
	if (!r) {
		printf("runner: %s\n", err);
		goto done;
	}
	vc_tensor in, a, b;
	vc_tensor_alloc(&in, &v->g->inputs[0]->type);
	for (int64_t i = 0; i < vc_type_elems(&in.t); i++)
		((float *)in.data)[i] = frand();
	if (vc_runner_run(r, &in, &a)) {
		printf("run: %s\n", v->diag.msg);
	} else {
		if (vc_interp(c, &in, &b, NULL, NULL, NULL) == 0) {
			rc = vc_type_bytes(&a.t) == vc_type_bytes(&b.t) && !memcmp(a.data, b.data, vc_type_bytes(&a.t));
			vc_tensor_free(&b);
		}
		vc_tensor_free(&a);
	}
	vc_tensor_free(&in);
	vc_runner_close(r);
done:
	if (rc == 0)
		printf("mismatch: n=%d c=%d h=%d w=%d o=%d k=%d pad=%d stride=%d relu=%d dense=%d\n", sh->n, sh->c, sh->h,
		       sh->w, sh->o, sh->k, sh->pad, sh->stride, sh->relu, sh->dense);
	vc_module_free(v);
	vc_module_free(c);
	return rc;
}

static void fixed_shapes(void)
{
	static const shape shapes[] = {
		{1, 16, 8, 8, 16, 3, 1, 1, 1, 0},  /* one block each way */
		{1, 3, 7, 9, 5, 3, 1, 1, 0, 0},    /* channel padding on both sides */
		{1, 1, 28, 28, 8, 5, 2, 1, 1, 0},  /* MNIST conv1 */
		{1, 33, 11, 6, 40, 3, 2, 2, 1, 0}, /* stride 2, pad 2, three blocks */
		{1, 20, 5, 5, 17, 1, 0, 1, 0, 0},  /* 1x1 */
		{2, 19, 6, 6, 21, 3, 1, 1, 1, 0},  /* batch 2 */
		{1, 256, 1, 1, 10, 1, 0, 1, 0, 1}, /* MNIST dense */
		{3, 50, 1, 1, 33, 1, 0, 1, 1, 1},  /* dense, batch 3 */
	};
	int lowered = 0;
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		int r = check_shape(&shapes[i], 100 + i);
		CHECK(r != 0);
		lowered += r == 1;
	}
	printf("%d of %zu fixed shapes lowered and bit-exact\n", lowered, sizeof shapes / sizeof shapes[0]);
	CHECK(lowered >= 6);
}

static void random_shapes(void)
{
	uint64_t st = 0xC0FFEE;
	int lowered = 0, n = 10;
	for (int t = 0; t < n; t++) {
		shape sh = {1 + (int)test_rand_range(&st, 0, 1), (int)test_rand_range(&st, 1, 40),
			    (int)test_rand_range(&st, 3, 14), (int)test_rand_range(&st, 3, 14),
			    (int)test_rand_range(&st, 1, 40), 1 + 2 * (int)test_rand_range(&st, 0, 1),
			    (int)test_rand_range(&st, 0, 2), (int)test_rand_range(&st, 1, 2),
			    (int)test_rand_range(&st, 0, 1), (int)(test_rand_range(&st, 0, 4) == 0)};
		if (sh.pad >= sh.k)
			sh.pad = sh.k / 2;
		int r = check_shape(&sh, 1000 + (uint64_t)t);
		CHECK(r != 0);
		lowered += r == 1;
	}
	printf("%d of %d random shapes lowered and bit-exact\n", lowered, n);
	CHECK(lowered >= n / 2);
}

/* ResNet-18 C10 (COMPILER-NOTES 6.1): 14x14x256 -> 7x7x512, 1x1, stride 2. */
static void resnet18_c10(void)
{
	shape c10 = {1, 256, 14, 14, 512, 1, 0, 2, 1, 0};
	int r = check_shape(&c10, 10);
	CHECK(r != 0);
	if (r < 0)
		printf("C10 not lowered in this configuration (SRAMs too small)\n");
}

static const test_case_t cases[] = {
	{"fixed_shapes", fixed_shapes},
	{"random_shapes", random_shapes},
	{"resnet18_c10", resnet18_c10},
	{NULL, NULL},
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, cases);
}
