/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Darknet importer: cfg and weights readers on bad input (every error
 * names the file, the section and its line), the layer semantics against a
 * Darknet forward pass written here from the format's definitions (maxpool
 * padding, shortcut of mismatched shapes, route, upsample, connected,
 * batchnorm), the leaky ReLU of the ALU, and YOLOv3-tiny end to end on fsim
 * against the int8 host reference and the float reference.
 */
#include <math.h>
#include <string.h>

#include "compile_cfg.h"
#include "test.h"
#include "cli/cli.h"
#include "import/import.h"

static int import_text(vc_module *m, const char *cfg, const uint8_t *w, size_t wl)
{
	vc_darknet_opts o = {.synthetic = w == NULL, .seed = 7};
	return vc_import_darknet_bytes(m, "t.cfg", (const uint8_t *)cfg, strlen(cfg), "t.weights", w, wl, &o);
}

/* Import must fail with a message that contains every needle. */
static void refuse(const char *cfg, const uint8_t *w, size_t wl, const char *n1, const char *n2)
{
	vc_module *m = vc_module_new();
	int rc = import_text(m, cfg, w, wl);
	if (rc != -1)
		fprintf(stderr, "imported, but expected an error containing '%s'\n", n1);
	CHECK_EQ(rc, -1);
	CHECK_STR_CONTAINS(m->diag.msg, n1);
	if (n2)
		CHECK_STR_CONTAINS(m->diag.msg, n2);
	vc_module_free(m);
}

#define NET "[net]\nwidth=8\nheight=8\nchannels=3\n"

static void bad_cfg(void)
{
	refuse("", NULL, 0, "t.cfg", "no sections");
	refuse("# only a comment\n\n", NULL, 0, "t.cfg:3", "no sections");
	refuse("[net\nwidth=8\n", NULL, 0, "t.cfg:1", "not of the form [name]");
	refuse("width=8\n[net]\n", NULL, 0, "t.cfg:1", "before the first section");
	refuse(NET "[maxpool]\nsize 2\n", NULL, 0, "t.cfg:6", "neither a [section] nor a key=value");
	refuse(NET "[maxpool]\nsize=2\nsize=3\n", NULL, 0, "t.cfg:7", "given twice");
	refuse("[convolutional]\nfilters=2\n" NET, NULL, 0, "section 0 is [convolutional]", "starts with [net]");
	refuse(NET "[maxpool]\n[net]\nwidth=2\n", NULL, 0, "section 2 is a second [net]", "t.cfg:6");
	refuse(NET, NULL, 0, "no layers", NULL);
	refuse("[net]\nwidth=8\nchannels=3\n[maxpool]\n", NULL, 0, "section 0 [net]", "'height' is missing");
	refuse(NET "wdith=9\n[maxpool]\n", NULL, 0, "line 5", "unknown key 'wdith'");
	refuse(NET "[convolutional]\nfilters=4\nsize=3\nactivation=mish\n", NULL, 0,
	       "t.cfg: 1 layer type is not supported: activation mish (1 section: layer 0 at line 5)", NULL);
	refuse(NET "[convolutional]\nfilters=4\n", NULL, 0, "activation logistic (1 section: layer 0 at line 5)",
	       "no activation= means Darknet's logistic");
	refuse(NET "[convolutional]\nfilters=four\nactivation=leaky\n", NULL, 0, "t.cfg:5", "filters=four is not an integer");
	refuse(NET "[convolutional]\nfilters=4\nsize=99\nactivation=leaky\n", NULL, 0, "size=99 is outside", NULL);
	refuse(NET "[convolutional]\nfilters=4\nsizee=3\nactivation=leaky\n", NULL, 0, "section 1 [convolutional]",
	       "unknown key 'sizee'");
	refuse(NET "[conv2d]\n", NULL, 0, "t.cfg: 1 layer type is not supported: [conv2d] (1 section: layer 0 at line 5)",
	       "sections supported: convolutional, maxpool,");
	refuse(NET "[maxpool]\n[route]\nlayers=1\n", NULL, 0, "section 2 [route] (layer 1)", "not an earlier layer");
	refuse(NET "[maxpool]\n[route]\nlayers=-1,\n", NULL, 0, "ends with a comma", NULL);
	refuse(NET "[maxpool]\n[shortcut]\nactivation=linear\n", NULL, 0, "section 2 [shortcut]", "'from' is missing");
	refuse(NET "[maxpool]\nsize=2\nstride=2\n[upsample]\n[route]\nlayers=-1,-2\n", NULL, 0, "routed layers must have one size",
	       NULL);
	refuse(NET "[convolutional]\nfilters=20\nactivation=linear\n[yolo]\nmask=0,1\nanchors=1,2,3,4\nnum=2\nclasses=80\n",
	       NULL, 0, "section 2 [yolo]", "20 channels");
	refuse(NET "[upsample]\nscale=2\n", NULL, 0, "scale=2", NULL);
	/* every section type and activation not taken, in one message, before any
	 * structural check: [net] has no width, the first convolution's size is
	 * out of range, the shortcut refers to nothing usable */
	refuse("[net]\nheight=8\nchannels=3\n"                                  /* lines 1-3 */
	       "[convolutional]\nfilters=4\nsize=99\nactivation=mish\n"        /* 4-7: layer 0 */
	       "[lstm]\noutput=4\n[reorg]\nstride=2\n"                         /* 8-11: layers 1, 2 */
	       "[convolutional]\nfilters=4\nactivation=mish\n"                  /* 12-14: layer 3 */
	       "[lstm]\n[lstm]\n[lstm]\n[shortcut]\nfrom=-9\nactivation=swish\n", /* 15-20: layers 4-7 */
	       NULL, 0,
	       "t.cfg: 4 layer types are not supported: activation mish (2 sections: layer 0 at line 4, layer 3 at line 12), "
	       "[lstm] (4 sections: layer 1 at line 8, layer 4 at line 15, layer 5 at line 16, ...), [reorg] (1 section: "
	       "layer 2 at line 10), activation swish (1 section: layer 7 at line 18); activations supported: linear, leaky, "
	       "relu; recurrent layers are not supported; sections supported: convolutional, maxpool, avgpool, shortcut, "
	       "route, upsample, connected, softmax, dropout, yolo",
	       NULL);
	/* every note at once, none cut: an activation, the default one, a
	 * recurrent section, an unknown one (tests/fuzz/corpus/darknet/unsupported.cfg) */
	refuse(NET "[convolutional]\nfilters=4\nactivation=mish\n[reorg]\n[lstm]\n[convolutional]\nfilters=4\n", NULL, 0,
	       "t.cfg: 4 layer types are not supported: activation mish (1 section: layer 0 at line 5), [reorg] (1 section: "
	       "layer 1 at line 8), [lstm] (1 section: layer 2 at line 9), activation logistic (1 section: layer 3 at line "
	       "10); activations supported: linear, leaky, relu; sections supported: convolutional, maxpool, avgpool, "
	       "shortcut, route, upsample, connected, softmax, dropout, yolo; recurrent layers are not supported; no "
	       "activation= means Darknet's logistic",
	       NULL);
	/* the reader alone, as a fuzzer calls it */
	vc_dn_cfg *c;
	CHECK_EQ(vc_dn_cfg_parse("x.cfg", (const uint8_t *)"[net]\n[route]\n", 14, &c), 0);
	CHECK_EQ(vc_dn_cfg_sections(c), 2);
	CHECK(!strcmp(vc_dn_cfg_type(c, 1), "route"));
	vc_dn_cfg_free(c);
	CHECK_EQ(vc_dn_cfg_parse("x.cfg", (const uint8_t *)"[net]\n\0", 7, &c), -1);
	CHECK_STR_CONTAINS(vc_dn_cfg_error(c), "x.cfg:2: NUL byte at offset 6");
	vc_dn_cfg_free(c);
}

/* ---- a small network and its Darknet forward pass written here --------- */

/* layer 0 conv 3->4 3x3 bn leaky, 1 maxpool size 2 stride 1 (padding 1),
 * 2 conv 4->6 3x3 stride 2 bn linear, 3 shortcut from 0 (8x8x4 -> 4x4x6:
 * stride 2, channels 4 of 6) leaky, 4 upsample 2, 5 route 4,0 (6+4), 6 conv
 * 10->2 1x1 linear no bn, 7 connected 5 bn leaky, 8 softmax */
static const char small_cfg[] = "[net]\nwidth=8\nheight=8\nchannels=3\n"
				"[convolutional]\nbatch_normalize=1\nfilters=4\nsize=3\nstride=1\npad=1\nactivation=leaky\n"
				"[maxpool]\nsize=2\nstride=1\n"
				"[convolutional]\nbatch_normalize=1\nfilters=6\nsize=3\nstride=2\npad=1\nactivation=linear\n"
				"[shortcut]\nfrom=-3\nactivation=leaky\n"
				"[upsample]\nstride=2\n"
				"[route]\nlayers=-1,0\n"
				"[convolutional]\nfilters=2\nsize=1\nstride=1\npad=1\nactivation=linear\n"
				"[connected]\noutput=5\nbatch_normalize=1\nactivation=leaky\n"
				"[softmax]\n";

typedef struct wfile {
	uint8_t *p;
	size_t n;
	uint64_t st;
} wfile;

static float wput(wfile *w, float lo, float hi)
{
	float v = (float)(lo + (hi - lo) * (double)(test_rand(&w->st) >> 11) / 9007199254740992.0);
	memcpy(w->p + w->n, &v, 4); /* the test machines are little-endian, as the format */
	w->n += 4;
	return v;
}

typedef struct conv_p {
	int n, c, k, s, bn;
	float *b, *sc, *mu, *var, *w;
} conv_p;

static void conv_params(wfile *f, conv_p *p)
{
	int n = p->n, per = p->c * p->k * p->k;
	p->b = malloc(sizeof(float) * (size_t)n), p->sc = malloc(sizeof(float) * (size_t)n);
	p->mu = malloc(sizeof(float) * (size_t)n), p->var = malloc(sizeof(float) * (size_t)n);
	p->w = malloc(sizeof(float) * (size_t)(n * per));
	for (int i = 0; i < n; i++)
		p->b[i] = wput(f, -0.2f, 0.2f);
	for (int i = 0; p->bn && i < n; i++)
		p->sc[i] = wput(f, 0.5f, 1.5f);
	for (int i = 0; p->bn && i < n; i++)
		p->mu[i] = wput(f, -0.2f, 0.2f);
	for (int i = 0; p->bn && i < n; i++)
		p->var[i] = wput(f, 0.3f, 2.0f);
	for (int i = 0; i < n * per; i++)
		p->w[i] = wput(f, -0.5f, 0.5f);
}

static void conv_free(conv_p *p)
{
	free(p->b), free(p->sc), free(p->mu), free(p->var), free(p->w);
}

static float leaky(float v)
{
	return v > 0 ? v : v * 0.125f; /* the slope VTA realizes (VC_LEAKY_SHIFT) */
}

/* Darknet's convolution: pad = size/2, then batchnorm, bias, activation. */
static void dconv(const conv_p *p, const float *x, int H, int W, float *y, int act)
{
	int pad = p->k / 2, OH = (H + 2 * pad - p->k) / p->s + 1, OW = (W + 2 * pad - p->k) / p->s + 1;
	for (int o = 0; o < p->n; o++)
		for (int r = 0; r < OH; r++)
			for (int c = 0; c < OW; c++) {
				double s = 0;
				for (int i = 0; i < p->c; i++)
					for (int a = 0; a < p->k; a++)
						for (int b = 0; b < p->k; b++) {
							int ir = r * p->s - pad + a, ic = c * p->s - pad + b;
							if (ir >= 0 && ir < H && ic >= 0 && ic < W)
								s += (double)x[(i * H + ir) * W + ic] * p->w[((o * p->c + i) * p->k + a) * p->k + b];
						}
				if (p->bn)
					s = (s - p->mu[o]) / (sqrt(p->var[o]) + 1e-6) * p->sc[o];
				s += p->b[o];
				y[(o * OH + r) * OW + c] = act ? leaky((float)s) : (float)s;
			}
}

static void small_reference(const float *px, wfile *f, float *out5)
{
	conv_p c0 = {.n = 4, .c = 3, .k = 3, .s = 1, .bn = 1}, c2 = {.n = 6, .c = 4, .k = 3, .s = 2, .bn = 1};
	conv_p c6 = {.n = 2, .c = 10, .k = 1, .s = 1, .bn = 0};
	conv_params(f, &c0);
	conv_params(f, &c2);
	conv_params(f, &c6);
	float x[3 * 64], l0[4 * 64], l1[4 * 64], l2[6 * 16], l4[6 * 64], l5[10 * 64], l6[2 * 64], l7[5];
	for (int i = 0; i < 3 * 64; i++)
		x[i] = px[i] / 255.0f;
	dconv(&c0, x, 8, 8, l0, 1);
	for (int k = 0; k < 4; k++) /* maxpool size 2 stride 1 padding 1: windows at -0, clipped */
		for (int r = 0; r < 8; r++)
			for (int c = 0; c < 8; c++) {
				float m = -INFINITY;
				for (int a = 0; a < 2; a++)
					for (int b = 0; b < 2; b++)
						if (r + a < 8 && c + b < 8 && l0[(k * 8 + r + a) * 8 + c + b] > m)
							m = l0[(k * 8 + r + a) * 8 + c + b];
				l1[(k * 8 + r) * 8 + c] = m;
			}
	dconv(&c2, l1, 8, 8, l2, 0);
	for (int k = 0; k < 6; k++) /* shortcut from layer 0 (8x8x4): stride 2, 4 channels */
		for (int r = 0; r < 4; r++)
			for (int c = 0; c < 4; c++) {
				float v = l2[(k * 4 + r) * 4 + c] + (k < 4 ? l0[(k * 8 + 2 * r) * 8 + 2 * c] : 0.0f);
				l2[(k * 4 + r) * 4 + c] = leaky(v);
			}
	for (int k = 0; k < 6; k++)
		for (int r = 0; r < 8; r++)
			for (int c = 0; c < 8; c++)
				l4[(k * 8 + r) * 8 + c] = l2[(k * 4 + r / 2) * 4 + c / 2];
	memcpy(l5, l4, sizeof l4);
	memcpy(l5 + 6 * 64, l0, sizeof l0);
	dconv(&c6, l5, 8, 8, l6, 0);
	/* connected 128 -> 5: biases, weights, then batchnorm arrays */
	float b7[5], w7[5 * 128], bn7[15];
	for (int i = 0; i < 5; i++)
		b7[i] = wput(f, -0.2f, 0.2f);
	for (int i = 0; i < 5 * 128; i++)
		w7[i] = wput(f, -0.2f, 0.2f);
	for (int i = 0; i < 15; i++)
		bn7[i] = i < 5 ? wput(f, 0.5f, 1.5f) : i < 10 ? wput(f, -0.2f, 0.2f) : wput(f, 0.3f, 2.0f);
	double mx = -INFINITY, sum = 0;
	for (int o = 0; o < 5; o++) {
		double s = 0;
		for (int i = 0; i < 128; i++)
			s += (double)w7[o * 128 + i] * l6[i];
		s = (s - bn7[5 + o]) / (sqrt(bn7[10 + o]) + 1e-6) * bn7[o] + b7[o];
		l7[o] = leaky((float)s);
		mx = l7[o] > mx ? l7[o] : mx;
	}
	for (int o = 0; o < 5; o++)
		sum += exp(l7[o] - mx);
	for (int o = 0; o < 5; o++)
		out5[o] = (float)(exp(l7[o] - mx) / sum);
	conv_free(&c0), conv_free(&c2), conv_free(&c6);
}

static void small_network(void)
{
	wfile f = {.p = calloc(1, 1 << 16), .n = 20, .st = 99};
	f.p[4] = 2; /* version 0.2.0: 64-bit seen count */
	float px[3 * 64], ref[5];
	uint64_t st = 5;
	for (int i = 0; i < 3 * 64; i++)
		px[i] = (float)test_rand_range(&st, 0, 255);
	small_reference(px, &f, ref);
	vc_module *m = vc_module_new();
	CHECK_EQ(import_text(m, small_cfg, f.p, f.n), 0);
	CHECK_EQ(vc_verify(m), 0);
	vc_tensor in, out[8];
	CHECK_EQ(vc_tensor_alloc(&in, &m->g->inputs[0]->type), 0);
	memcpy(in.data, px, sizeof px);
	CHECK_EQ(vc_interp(m, &in, out, NULL, NULL, NULL), 0);
	CHECK_EQ(vc_type_elems(&out[0].t), 5);
	for (int i = 0; i < 5; i++)
		if (fabsf(((float *)out[0].data)[i] - ref[i]) > 1e-4f)
			CHECK_EQ(i, -1); /* the importer's graph disagrees with Darknet's forward pass */
	vc_tensor_free(&out[0]);
	vc_module_free(m);

	/* the weights file against the cfg */
	refuse(small_cfg, f.p, f.n - 4, "section 8 [connected] (layer 7)", "truncated");
	refuse(small_cfg, f.p, 19, "too short for a version 0.2 header", NULL);
	refuse(small_cfg, f.p, 10, "too short for a Darknet weights header", NULL);
	memset(f.p + f.n, 0, 8);
	refuse(small_cfg, f.p, f.n + 8, "8 bytes are left over", "does not belong to t.cfg");
	uint32_t nan = 0x7fc00000;
	uint8_t *g = malloc(f.n);
	memcpy(g, f.p, f.n);
	memcpy(g + 20 + 4 * 10, &nan, 4);
	refuse(small_cfg, g, f.n, "section 1 [convolutional] (layer 0)", "not finite");
	memcpy(g, f.p, f.n);
	uint32_t neg = 0xbf800000; /* -1.0: a negative variance of layer 0 */
	memcpy(g + 20 + 4 * 12, &neg, 4);
	refuse(small_cfg, g, f.n, "variance", "negative");
	memcpy(g, f.p, f.n);
	g[3] = 0x80;
	refuse(small_cfg, g, f.n, "not a Darknet weights file", NULL);
	/* version 0.1: a 32-bit seen count, 16 bytes of header */
	memcpy(g, f.p, 20);
	g[4] = 1;
	memmove(g + 16, f.p + 20, f.n - 20);
	m = vc_module_new();
	CHECK_EQ(import_text(m, small_cfg, g, f.n - 4), 0);
	vc_module_free(m);
	free(g);

	/* compiled for VTA: the device equals the int8 host reference, and the
	 * int8 model stays near the float one */
	m = vc_module_new();
	CHECK_EQ(import_text(m, small_cfg, f.p, f.n), 0);
	vc_compile_opts co = {.calib_path = "synthetic", .calib_count = 4};
	char err[1024];
	int rc = vc_compile(m, &co, err, sizeof err);
	CHECK_EQ(rc, 0);
	if (!rc) {
		vc_runner *r = vc_runner_open(m, "fsim", err, sizeof err);
		CHECK(r != NULL);
		vc_tensor o1[8], o2[8];
		if (r && !vc_runner_run(r, &in, o1)) {
			CHECK_EQ(vc_simulate(m, &in, o2), 0);
			CHECK_EQ(memcmp(o1[0].data, o2[0].data, 5 * 4), 0);
			for (int i = 0; i < 5; i++)
				if (fabsf(((float *)o1[0].data)[i] - ref[i]) > 0.1f)
					CHECK_EQ(i, -1);
			vc_tensor_free(&o1[0]);
			vc_tensor_free(&o2[0]);
		}
		vc_runner_close(r);
	}
	vc_module_free(m);
	vc_tensor_free(&in);
	free(f.p);
}

/* The leaky requantization, values derived by hand. */
static void leaky_values(void)
{
	/* acc -80, shift 3: (-80+4)>>3 = -10; shift 6: (-80+32)>>6 = -1 */
	CHECK_EQ(vc_requant_leaky(-80, 3, 3, -127, 127), -1);
	CHECK_EQ(vc_requant_leaky(80, 3, 3, -127, 127), 10);
	CHECK_EQ(vc_requant_leaky(-8000, 3, 3, -127, 127), -125);
	CHECK_EQ(vc_requant_leaky(-9000, 3, 3, -127, 127), -127); /* clipped after the slope */
	CHECK_EQ(vc_requant_leaky(-8, -2, 3, -127, 127), -4);     /* left shift 2, then 2^-1 */
	CHECK_EQ(vc_requant_leaky(-80, 3, 0, -127, 127), -10);    /* no leaky */
}

/* The slow cases run on the default configuration, plain build only. */
static int slow_cases_run_here(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return 0;
#endif
	return !strcmp(VTA_CONFIG_NAME, "1x16_i8w8a32_15_15_18_17") && !strcmp(VTA_TARGET, "sim");
}

/* run's first output on fsim for a seeded random image equals the host
 * int8 reference of ref. */
static void fsim_equals_host(vc_module *run, vc_module *ref, uint64_t seed)
{
	char err[1024];
	vc_tensor in, o1[8], o2[8];
	CHECK_EQ(vc_tensor_alloc(&in, &ref->g->inputs[0]->type), 0);
	for (int64_t i = 0; i < vc_type_elems(&in.t); i++)
		((float *)in.data)[i] = (float)test_rand_range(&seed, 0, 255);
	vc_runner *r = vc_runner_open(run, "fsim", err, sizeof err);
	CHECK(r != NULL);
	if (r && !vc_runner_run(r, &in, o1)) {
		CHECK_EQ(vc_simulate(ref, &in, o2), 0);
		CHECK_EQ(memcmp(o1[0].data, o2[0].data, vc_type_bytes(&o1[0].t)), 0);
		vc_tensor_free(&o1[0]);
		vc_tensor_free(&o2[0]);
	} else {
		CHECK(0);
	}
	vc_runner_close(r);
	vc_tensor_free(&in);
}

/* ResNet-18 (shared cfg, synthetic weights) at 32x32: all 8 shortcuts are
 * fused into their VTA conv kernels (a residual operand that reaches the
 * add through a relu or an align keeps the conv's step; the float scales
 * once sent 3 of them to the CPU). Compile only; default configuration,
 * plain build. */
static void resnet18_residuals(void)
{
	if (!slow_cases_run_here())
		return;
	char path[1024], err[1024];
	snprintf(path, sizeof path, "%s/../shared/models/resnet18.cfg", test_root());
	vc_darknet_opts o = {.synthetic = 1, .seed = 1, .input_size = 32};
	vc_module *m = vc_module_new();
	CHECK_EQ(vc_import_darknet_files(m, path, NULL, &o), 0);
	vc_compile_opts co = {.calib_path = "synthetic", .calib_count = 2};
	CHECK_EQ(vc_compile(m, &co, err, sizeof err), 0);
	int fused = 0;
	for (int k = 0; k < m->n_kernels; k++)
		fused += m->kernels[k]->node->n_in == 4;
	printf("resnet18 at 32x32: %d VTA kernels, %d with the residual fused\n", m->n_kernels, fused);
	CHECK_EQ(fused, 8);
	vc_module_free(m);
}

/* YOLOv3-tiny (shared cfg, synthetic weights) at a small input on fsim:
 * bit-exact with the host int8 reference, detections decoded. Default
 * configuration, plain build only (it is the slow case). */
static void yolov3_tiny(void)
{
	if (!slow_cases_run_here())
		return;
	char path[1024], err[1024];
	snprintf(path, sizeof path, "%s/../shared/models/yolov3-tiny.cfg", test_root());
	vc_darknet_opts o = {.synthetic = 1, .seed = 1, .input_size = 64};
	vc_module *m = vc_module_new(), *fm = vc_module_new();
	CHECK_EQ(vc_import_darknet_files(m, path, NULL, &o), 0);
	CHECK_EQ(vc_import_darknet_files(fm, path, NULL, &o), 0);
	CHECK_EQ(m->g->n_outputs, 2);
	vc_compile_opts co = {.calib_path = "synthetic", .calib_count = 2};
	int rc = vc_compile(m, &co, err, sizeof err);
	CHECK_EQ(rc, 0);
	CHECK_EQ(m->n_kernels, 13); /* every convolution on VTA, leaky fused */
	vc_tensor in;
	CHECK_EQ(vc_tensor_alloc(&in, &m->g->inputs[0]->type), 0);
	uint64_t st = 3;
	for (int64_t i = 0; i < vc_type_elems(&in.t); i++)
		((float *)in.data)[i] = (float)test_rand_range(&st, 0, 255);
	vc_runner *r = rc ? NULL : vc_runner_open(m, "fsim", err, sizeof err);
	vc_tensor o1[8], o2[8], of[8];
	if (r && !vc_runner_run(r, &in, o1)) {
		CHECK_EQ(vc_simulate(m, &in, o2), 0);
		CHECK_EQ(vc_interp(fm, &in, of, NULL, NULL, NULL), 0);
		for (int k = 0; k < 2; k++) {
			int64_t e = vc_type_elems(&o1[k].t);
			CHECK_EQ(e, 255 * (k ? 4 : 2) * (k ? 4 : 2));
			CHECK_EQ(memcmp(o1[k].data, o2[k].data, (size_t)e * 4), 0);
			/* objectness and class scores (after the logistic) near the float model */
			double err_sum = 0;
			for (int64_t i = 0; i < e; i++)
				err_sum += fabs(((float *)o1[k].data)[i] - ((float *)of[k].data)[i]);
			if (!(err_sum / (double)e < 0.1))
				CHECK_EQ((int)(1000 * err_sum / (double)e), 0);
		}
		vc_box *b;
		int nb = vc_yolo_decode(m, o1, 2, 0.5f, 0.45f, &b);
		CHECK(nb >= 0);
		for (int i = 1; i < nb; i++)
			CHECK(b[i].prob <= b[i - 1].prob);
		free(b);
		for (int k = 0; k < 2; k++)
			vc_tensor_free(&o1[k]), vc_tensor_free(&o2[k]), vc_tensor_free(&of[k]);
	} else {
		CHECK(0);
	}
	vc_runner_close(r);
	vc_tensor_free(&in);
	vc_module_free(m);
	vc_module_free(fm);
}

/* A network whose device image is larger than one device buffer (32 MiB):
 * sixteen 3x3 convolutions to 512 channels (2.25 MiB of int8 weights each
 * after the first) at 1x1. emit keeps every region inside one buffer, the
 * runner allocates one per segment, and the device result read back from
 * the .vtam equals the host int8 reference (it moves ~200 MB). */
static void image_over_one_buffer(void)
{
	if (!slow_cases_run_here())
		return;
	char cfg[4096];
	int k = snprintf(cfg, sizeof cfg, "[net]\nwidth=1\nheight=1\nchannels=16\n");
	for (int i = 0; i < 16; i++)
		k += snprintf(cfg + k, sizeof cfg - (size_t)k,
			      "[convolutional]\nbatch_normalize=1\nfilters=512\nsize=3\nstride=1\npad=1\nactivation=leaky\n");
	vc_module *m = compile_cfg(cfg, 2, NULL);
	if (!m)
		return;
	CHECK_EQ(m->n_kernels, 16);
	CHECK(m->stream->size > VC_SEGMENT_BYTES);
	int crossing = 0;
	for (int i = 0; i < m->g->n; i++) {
		const vc_node *n = m->g->nodes[i];
		crossing += n->a.dev_off >= 0 && !vc_in_one_segment(n->a.dev_off, (int64_t)vc_type_bytes(&n->type));
	}
	CHECK_EQ(crossing, 0);
	uint8_t *bytes;
	size_t len;
	vc_module *a = vc_module_new();
	CHECK_EQ(vc_artifact_bytes(m, &bytes, &len), 0);
	CHECK_EQ(vc_artifact_parse(a, bytes, len), 0);
	free(bytes);
	fsim_equals_host(a, m, 9);
	vc_module_free(a);
	vc_module_free(m);
}

/* Feature maps of 64 Ki elements and more (here 128x512): the channel-block
 * stride of the output (oh*ow) does not fit a STORE's 16-bit x_stride, so
 * the stores and the residual loads go one channel block at a time; both 1x1
 * convolutions (32 channels: two blocks per tile) still run on VTA,
 * bit-exact with the host int8 reference. */
static void large_plane(void)
{
	if (!slow_cases_run_here())
		return;
	vc_module *m = compile_cfg("[net]\nwidth=128\nheight=512\nchannels=3\n"
				   "[convolutional]\nbatch_normalize=1\nfilters=32\nsize=1\nstride=1\npad=0\nactivation=leaky\n"
				   "[convolutional]\nbatch_normalize=1\nfilters=32\nsize=1\nstride=1\npad=0\nactivation=linear\n"
				   "[shortcut]\nfrom=-2\nactivation=leaky\n",
				   4, "module(graph(canonicalize,fold-bn,fold-const,quantize,partition,fuse,pack),"
				      "kernel(tile{tco=2},lower,tokens),stream(emit))");
	if (!m)
		return;
	CHECK_EQ(m->n_kernels, 2);
	CHECK(m->kernels[0]->tile.tco > 1 && m->kernels[1]->tile.tco > 1); /* the split stores more than one block */
	fsim_equals_host(m, m, 5);
	vc_module_free(m);
}

/* A route of whole channel blocks (32 + 16 channels) into a convolution:
 * the concat runs on the packed blocks (no unpack/pack of its inputs), and
 * the device result equals the int8 reference of the graph before packing. */
static void concat_by_layout(void)
{
	static const char cfg[] = "[net]\nwidth=8\nheight=8\nchannels=3\n"
				  "[convolutional]\nbatch_normalize=1\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky\n"
				  "[convolutional]\nbatch_normalize=1\nfilters=32\nsize=3\nstride=1\npad=1\nactivation=leaky\n"
				  "[route]\nlayers=-1,-2\n"
				  "[convolutional]\nbatch_normalize=1\nfilters=16\nsize=1\nstride=1\npad=0\nactivation=leaky\n";
	vc_module *m = compile_cfg(cfg, 6, NULL);
	vc_module *q = compile_cfg(cfg, 6, "canonicalize,fold-bn,fold-const,quantize");
	if (m && q) {
		CHECK_EQ(m->n_kernels, 3);
		int packed_concat = 0, unpacks = 0;
		for (int i = 0; i < m->g->n; i++) {
			packed_concat += m->g->nodes[i]->op == VC_OP_CONCAT && m->g->nodes[i]->type.layout == VC_PACKED;
			unpacks += m->g->nodes[i]->op == VC_OP_UNPACK;
		}
		CHECK_EQ(packed_concat, 1);
		CHECK_EQ(unpacks, 1); /* only the output's */
		fsim_equals_host(m, q, 8);
	}
	vc_module_free(m);
	vc_module_free(q);
}

/* A shortcut whose residual shift exceeds 6 (the residual's exponent far
 * above the accumulator's, as in ResNet-18): the kernel shifts its
 * accumulators right by shift - 6 and adds the residual on the GEMM times
 * 2^6 (no LOAD ACC_8BIT), bit-exact with the host int8 reference of the
 * quantized graph. */
static void residual_preshift(void)
{
	static const char cfg[] = "[net]\nwidth=12\nheight=12\nchannels=32\n"
				  "[convolutional]\nbatch_normalize=1\nfilters=32\nsize=3\nstride=1\npad=1\nactivation=leaky\n"
				  "[convolutional]\nbatch_normalize=1\nfilters=32\nsize=3\nstride=1\npad=1\nactivation=linear\n"
				  "[shortcut]\nfrom=-2\nactivation=leaky\n";
	vc_module *m = compile_cfg(cfg, 7, NULL);
	vc_module *q = compile_cfg(cfg, 7, "canonicalize,fold-bn,fold-const,quantize");
	if (m && q) {
		int pre = 0;
		for (int k = 0; k < m->n_kernels; k++) {
			const vc_kernel *kn = m->kernels[k];
			if (kn->node->n_in < 4)
				continue;
			pre += kn->node->a.res_shift > 6;
			for (int i = 0; i < kn->n; i++)
				CHECK(!(kn->code[i].insn.opcode == VTA_OPCODE_LOAD &&
					kn->code[i].insn.memory_type == VTA_MEM_ID_ACC_8BIT));
		}
		CHECK_EQ(pre, 1);
		fsim_equals_host(m, q, 9);
	}
	vc_module_free(m);
	vc_module_free(q);
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"bad_cfg", bad_cfg},
		{"small_network", small_network},
		{"leaky_values", leaky_values},
		{"yolov3_tiny", yolov3_tiny},
	{"resnet18_residuals", resnet18_residuals},
		{"image_over_one_buffer", image_over_one_buffer},
		{"large_plane", large_plane},
		{"concat_by_layout", concat_by_layout},
		{"residual_preshift", residual_preshift},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
