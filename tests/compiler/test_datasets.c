/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Inputs of `vta run`: CIFAR-binary datasets (constructed files, malformed
 * files, the real ../shared/data/cifar10-test-2k.bin), accuracy through a
 * small 3x32x32 model compiled for VTA and run on fsim, calibration from a
 * CIFAR file, and image inputs through stb_image (a BMP written here).
 */
#include <unistd.h>

#include "test.h"
#include "cli/cli.h"

#define REC (1 + 3 * 32 * 32)

static void tmp_path(char *buf, size_t n, const char *what)
{
	snprintf(buf, n, "/tmp/vc_ds_%ld_%s", (long)getpid(), what);
}

static int write_file(const char *path, const uint8_t *p, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t k = fwrite(p, 1, len, f);
	return fclose(f) || k != len ? -1 : 0;
}

/* n CIFAR records: record i has label i % 3 and that channel brightest. */
static uint8_t *cifar_records(int n)
{
	uint8_t *b = malloc((size_t)n * REC);
	uint64_t st = 77;
	for (int i = 0; b && i < n; i++) {
		uint8_t *r = b + (size_t)i * REC;
		r[0] = (uint8_t)(i % 3);
		for (int c = 0; c < 3; c++)
			for (int p = 0; p < 1024; p++)
				r[1 + c * 1024 + p] = (uint8_t)(c == i % 3 ? 150 + test_rand_range(&st, 0, 100)
									  : test_rand_range(&st, 0, 100));
	}
	return b;
}

static void cifar_constructed(void)
{
	char path[128], err[512];
	tmp_path(path, sizeof path, "c.bin");
	uint8_t *b = cifar_records(5);
	CHECK(b != NULL);
	if (!b)
		return;
	CHECK_EQ(write_file(path, b, 5 * REC), 0);
	vc_dataset d;
	CHECK_EQ(vc_dataset_load(path, NULL, VC_DATASET_AUTO, &d, err, sizeof err), 0);
	CHECK_EQ(d.count, 5);
	CHECK_EQ(d.channels, 3);
	CHECK_EQ(d.rows, 32);
	CHECK_EQ(d.cols, 32);
	for (int i = 0; i < d.count && d.labels; i++) {
		CHECK_EQ(d.labels[i], i % 3);
		CHECK(!memcmp(d.pixels + (size_t)i * 3072, b + (size_t)i * REC + 1, 3072));
	}
	vc_dataset_free(&d);
	/* labels belong to IDX datasets */
	CHECK_EQ(vc_dataset_load(path, "labels.idx", VC_DATASET_AUTO, &d, err, sizeof err), -1);
	CHECK_STR_CONTAINS(err, "carries its labels");
	/* the IDX reader refuses it (auto-detection is by name; --format=idx forces) */
	CHECK_EQ(vc_dataset_load(path, NULL, VC_DATASET_IDX, &d, err, sizeof err), -1);
	CHECK_STR_CONTAINS(err, "not an IDX3");
	/* not a whole number of records */
	CHECK_EQ(write_file(path, b, 2 * REC + 100), 0);
	CHECK_EQ(vc_dataset_load(path, NULL, VC_DATASET_CIFAR, &d, err, sizeof err), -1);
	CHECK_STR_CONTAINS(err, "not a whole number of 3073-byte records");
	CHECK_STR_CONTAINS(err, path);
	CHECK(d.pixels == NULL && d.labels == NULL);
	/* empty */
	CHECK_EQ(write_file(path, b, 0), 0);
	CHECK_EQ(vc_dataset_load(path, NULL, VC_DATASET_CIFAR, &d, err, sizeof err), -1);
	CHECK_STR_CONTAINS(err, "empty");
	/* missing */
	CHECK_EQ(vc_dataset_load("/nonexistent/x.bin", NULL, VC_DATASET_AUTO, &d, err, sizeof err), -1);
	CHECK_STR_CONTAINS(err, "cannot open /nonexistent/x.bin");
	/* the format option */
	vc_dataset_format f;
	CHECK_EQ(vc_dataset_format_parse("cifar", &f), 0);
	CHECK_EQ(f, VC_DATASET_CIFAR);
	CHECK_EQ(vc_dataset_format_parse("idx", &f), 0);
	CHECK_EQ(f, VC_DATASET_IDX);
	CHECK_EQ(vc_dataset_format_parse("jpeg", &f), -1);
	unlink(path);
	free(b);
}

/* 3x32x32 -> conv 1x1 (identity, on VTA) -> relu -> global average pool ->
 * flatten: the predicted class is the brightest channel. */
static vc_module *rgb_model(void)
{
	vc_module *m = vc_module_new();
	int64_t xd[4] = {1, 3, 32, 32}, wd[4] = {3, 3, 1, 1}, bd[1] = {3};
	vc_node *x = vc_input(m, "image", VC_F32, 4, xd);
	vc_node *w = vc_const(m, "w", VC_F32, 4, wd, NULL), *bias = vc_const(m, "b", VC_F32, 1, bd, NULL);
	for (int o = 0; o < 3; o++) {
		for (int i = 0; i < 3; i++)
			((float *)w->data)[o * 3 + i] = o == i ? 0.5f : 0.0f;
		((float *)bias->data)[o] = 0;
	}
	vc_node *a[3] = {x, w, bias};
	vc_node *y = vc_build(m, VC_OP_CONV, a, 3, NULL, "conv");
	y = y ? vc_build(m, VC_OP_RELU, &y, 1, NULL, "relu") : NULL;
	y = y ? vc_build(m, VC_OP_GAP, &y, 1, NULL, "gap") : NULL;
	vc_attrs fa;
	vc_attrs_init(&fa);
	fa.axis = 1;
	y = y ? vc_build(m, VC_OP_FLATTEN, &y, 1, &fa, "flatten") : NULL;
	m->g->outputs[m->g->n_outputs++] = y;
	m->props |= VC_PROP_IMPORTED;
	return m;
}

static void cifar_accuracy_fsim(void)
{
	char path[128], model[128], bad[128], err[1024];
	tmp_path(path, sizeof path, "acc.bin");
	tmp_path(bad, sizeof bad, "bad.bin");
	tmp_path(model, sizeof model, "rgb.vtam");
	uint8_t *b = cifar_records(12);
	CHECK(b != NULL);
	if (!b)
		return;
	CHECK_EQ(write_file(path, b, 12 * REC), 0);
	CHECK_EQ(write_file(bad, b, 12 * REC - 1), 0);
	vc_module *m = rgb_model();
	vc_compile_opts o = {.calib_path = path, .instr = {.verify_each = 1}};
	int rc = vc_compile(m, &o, err, sizeof err);
	if (rc)
		printf("compile: %s\n", err);
	CHECK_EQ(rc, 0);
	CHECK_EQ(m->n_kernels, 1);
	CHECK_EQ(m->calib.count, 12);
	CHECK_EQ(vc_artifact_write(m, model), 0);
	vc_dataset d;
	CHECK_EQ(vc_dataset_load(path, NULL, VC_DATASET_AUTO, &d, err, sizeof err), 0);
	vta_model_t *vm = NULL;
	vta_error_t e;
	CHECK_EQ(vta_model_open(model, "fsim", &vm, &e), 0);
	int correct = -1, hc = -1;
	if (vm) {
		int total = vc_eval_dataset(m, vm, &d, 0, 3, 2, stdout, &correct, err, sizeof err);
		if (total < 0)
			printf("eval: %s\n", err);
		CHECK_EQ(total, 12);
		CHECK_EQ(correct, 12);
		vta_model_close(vm);
	}
	CHECK_EQ(vc_eval_dataset(m, NULL, &d, 5, 1, 0, NULL, &hc, err, sizeof err), 5);
	CHECK_EQ(hc, 5);
	vc_dataset_free(&d);
	/* an IDX-shaped dataset (1x28x28) does not fit the model */
	vc_dataset g = {.count = 1, .channels = 1, .rows = 28, .cols = 28};
	uint8_t px[784] = {0};
	g.pixels = px;
	CHECK_EQ(vc_eval_dataset(m, NULL, &g, 0, 1, 0, NULL, &hc, err, sizeof err), -1);
	CHECK_STR_CONTAINS(err, "1x28x28");
	vc_module_free(m);

	/* the command line */
	char *ok[] = {model, "--target=fsim", "--dataset", path, "--count=4", "--top=2"};
	CHECK_EQ(vta_cmd_run(6, ok), 0);
	char *fmt[] = {model, "--simulate", "--dataset", path, "--format=cifar", "--count=2"};
	CHECK_EQ(vta_cmd_run(6, fmt), 0);
	char *trunc[] = {model, "--simulate", "--dataset", bad};
	CHECK_EQ(vta_cmd_run(4, trunc), 1);
	char *badfmt[] = {model, "--dataset", path, "--format=png"};
	CHECK_EQ(vta_cmd_run(4, badfmt), 2);
	unlink(path);
	unlink(bad);
	unlink(model);
	free(b);
}

/* The real file (DATA-SOURCES.md): 2,000 records, 200 per class. */
static void cifar_real_file(void)
{
	char path[512], err[1024];
	snprintf(path, sizeof path, "%s/../shared/data/cifar10-test-2k.bin", test_root());
	vc_dataset d;
	int rc = vc_dataset_load(path, NULL, VC_DATASET_AUTO, &d, err, sizeof err);
	if (rc)
		printf("%s\n", err);
	CHECK_EQ(rc, 0); /* missing data fails the test */
	if (rc)
		return;
	CHECK_EQ(d.count, 2000);
	CHECK_EQ(d.channels * d.rows * d.cols, 3072);
	int per[256] = {0};
	for (int i = 0; i < d.count; i++)
		per[d.labels[i]]++;
	for (int c = 0; c < 10; c++)
		CHECK_EQ(per[c], 200);
	/* images are not blank: some spread in each plane of the first record */
	for (int c = 0; c < 3; c++) {
		int lo = 255, hi = 0;
		for (int p = 0; p < 1024; p++) {
			int v = d.pixels[c * 1024 + p];
			lo = v < lo ? v : lo, hi = v > hi ? v : hi;
		}
		CHECK(hi - lo > 16);
	}
	/* a few records through a model on fsim and on the host agree */
	vc_module *m = rgb_model();
	vc_compile_opts o = {.calib_path = path, .calib_count = 50};
	CHECK_EQ(vc_compile(m, &o, err, sizeof err), 0);
	uint8_t *bytes = NULL;
	size_t len;
	vta_model_t *vm = NULL;
	vta_error_t e;
	CHECK_EQ(vc_artifact_bytes(m, &bytes, &len), 0);
	if (bytes)
		CHECK_EQ(vta_model_open_bytes(bytes, len, "rgb", "fsim", &vm, &e), 0);
	free(bytes);
	int cf = -1, ch = -2;
	if (vm) {
		CHECK_EQ(vc_eval_dataset(m, vm, &d, 6, 1, 0, NULL, &cf, err, sizeof err), 6);
		vta_model_close(vm);
	}
	CHECK_EQ(vc_eval_dataset(m, NULL, &d, 6, 1, 0, NULL, &ch, err, sizeof err), 6);
	CHECK_EQ(cf, ch);
	vc_module_free(m);
	vc_dataset_free(&d);
}

/* A w x h 24-bit BMP of pixel (r, g, b) = f(x, y). */
static size_t bmp(uint8_t *out, int w, int h)
{
	int stride = (w * 3 + 3) & ~3;
	size_t size = 54 + (size_t)stride * (size_t)h;
	memset(out, 0, size);
	out[0] = 'B', out[1] = 'M';
	out[2] = (uint8_t)size, out[3] = (uint8_t)(size >> 8);
	out[10] = 54, out[14] = 40;
	out[18] = (uint8_t)w, out[22] = (uint8_t)h;
	out[26] = 1, out[28] = 24;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			uint8_t *p = out + 54 + (size_t)(h - 1 - y) * (size_t)stride + (size_t)x * 3;
			p[2] = (uint8_t)(10 * x + 1), p[1] = (uint8_t)(20 * y + 2), p[0] = 200; /* R, G, B */
		}
	return size;
}

static void image_inputs(void)
{
	char path[128], err[512];
	tmp_path(path, sizeof path, "img.bmp");
	uint8_t buf[54 + 16 * 8];
	CHECK_EQ(write_file(path, buf, bmp(buf, 4, 3)), 0);
	vc_module *m = vc_module_new();
	int64_t rgb[4] = {1, 3, 3, 4}, half[4] = {1, 3, 3, 2}, gray[4] = {1, 1, 3, 4}, flat[2] = {1, 12};
	vc_node *a = vc_input(m, "a", VC_F32, 4, rgb), *h = vc_input(m, "h", VC_F32, 4, half);
	vc_node *g = vc_input(m, "g", VC_F32, 4, gray), *f = vc_input(m, "f", VC_F32, 2, flat);
	float out[36];
	CHECK_EQ(vc_read_input(path, &a->type, out, err, sizeof err), 0);
	for (int y = 0; y < 3; y++)
		for (int x = 0; x < 4; x++) {
			CHECK_EQ(out[(0 * 3 + y) * 4 + x], 10 * x + 1);
			CHECK_EQ(out[(1 * 3 + y) * 4 + x], 20 * y + 2);
			CHECK_EQ(out[(2 * 3 + y) * 4 + x], 200);
		}
	/* half the width: the triangle of half-width 2 centred on column 3
	 * weighs columns 1, 2, 3 by 1/4, 3/4, 3/4 (column 4 is outside the
	 * image: left out, as PIL does): (11 + 63 + 93) / 7 = 23.86, rounded */
	CHECK_EQ(vc_read_input(path, &h->type, out, err, sizeof err), 0);
	CHECK_EQ(out[1], 24);
	/* gray: stb_image's luminance, between the channels */
	CHECK_EQ(vc_read_input(path, &g->type, out, err, sizeof err), 0);
	CHECK(out[0] > 1 && out[0] < 200);
	/* a rank-2 input only takes raw float32 */
	CHECK_EQ(vc_read_input(path, &f->type, out, err, sizeof err), -1);
	CHECK_STR_CONTAINS(err, "not a raw float32 tensor of 12 values");
	/* raw float32 of the exact size */
	float raw[12];
	for (int i = 0; i < 12; i++)
		raw[i] = (float)i - 5.5f;
	CHECK_EQ(write_file(path, (const uint8_t *)raw, sizeof raw), 0);
	CHECK_EQ(vc_read_input(path, &f->type, out, err, sizeof err), 0);
	CHECK(!memcmp(out, raw, sizeof raw));
	/* neither */
	CHECK_EQ(write_file(path, (const uint8_t *)"garbage", 7), 0);
	CHECK_EQ(vc_read_input(path, &a->type, out, err, sizeof err), -1);
	CHECK_STR_CONTAINS(err, "nor an image");
	unlink(path);
	vc_module_free(m);
}

/* Images are resized as PIL's bilinear filter with antialiasing does (a
 * triangle filter, widened when scaling down), which reproduces a ramp;
 * and a 512 x 341 photo to 224 x 224 (a ratio Debian's stb_image_resize
 * 0.97 asserts on) resizes:
 * a gray ramp 4x over 64 columns, halved, is 8x' + 2 (the ramp at the
 * centre 2x' + 0.5 of each output pixel's source); 8 columns of it doubled
 * are 2x - 1 (the ramp at (x + 0.5) / 2 - 0.5). Nearest neighbour gives
 * 8x' and 4 (x / 2). The border pixels meet the clamped edge: left out. */
static void image_resize(void)
{
	char path[128], err[512];
	tmp_path(path, sizeof path, "ramp.pgm");
	uint8_t pgm[32 + 64 * 8];
	int k = snprintf((char *)pgm, 32, "P5\n64 8\n255\n");
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 64; x++)
			pgm[k + y * 64 + x] = (uint8_t)(4 * x);
	CHECK_EQ(write_file(path, pgm, (size_t)k + 64 * 8), 0);
	vc_module *m = vc_module_new();
	int64_t down[4] = {1, 1, 4, 32};
	vc_node *d = vc_input(m, "d", VC_F32, 4, down);
	float out[4 * 32];
	CHECK_EQ(vc_read_input(path, &d->type, out, err, sizeof err), 0);
	for (int y = 0; y < 4; y++)
		for (int x = 1; x < 31; x++)
			CHECK_EQ(out[y * 32 + x], 8 * x + 2);
	k = snprintf((char *)pgm, 32, "P5\n8 8\n255\n");
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 8; x++)
			pgm[k + y * 8 + x] = (uint8_t)(4 * x);
	CHECK_EQ(write_file(path, pgm, (size_t)k + 64), 0);
	int64_t up[4] = {1, 1, 8, 16};
	vc_node *u = vc_input(m, "u", VC_F32, 4, up);
	CHECK_EQ(vc_read_input(path, &u->type, out, err, sizeof err), 0);
	for (int y = 0; y < 8; y++)
		for (int x = 1; x < 15; x++)
			CHECK_EQ(out[y * 16 + x], 2 * x - 1);
	/* a flat 512 x 341 image to 224 x 224: every pixel its value */
	static uint8_t big[32 + 512 * 341];
	k = snprintf((char *)big, 32, "P5\n512 341\n255\n");
	memset(big + k, 200, 512 * 341);
	CHECK_EQ(write_file(path, big, (size_t)k + 512 * 341), 0);
	int64_t sq[4] = {1, 1, 224, 224};
	vc_node *q = vc_input(m, "q", VC_F32, 4, sq);
	static float o2[224 * 224];
	CHECK_EQ(vc_read_input(path, &q->type, o2, err, sizeof err), 0);
	int flat = 1;
	for (int i = 0; i < 224 * 224; i++)
		flat &= o2[i] == 200;
	CHECK(flat);
	unlink(path);
	vc_module_free(m);
}

static const test_case_t cases[] = {
	{"cifar_constructed", cifar_constructed},
	{"cifar_accuracy_fsim", cifar_accuracy_fsim},
	{"cifar_real_file", cifar_real_file},
	{"image_inputs", image_inputs},
	{"image_resize", image_resize},
	{NULL, NULL},
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, cases);
}
