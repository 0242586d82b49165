/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-layer statistics (`vta run --stats`, `vta profile`): a small network
 * of two VTA convolutions around a host max pool, run on the golden model
 * (every configuration) and on the RTL (default configuration, plain build):
 * the rows, their MACs against the shapes, cycles and busy counters from
 * the device, the JSON object, and the HTML report with a timeline per VTA
 * layer whose model cycles are near the RTL's. A network with a host
 * (grouped) convolution through `vta run --stats` and `vta profile`, and on
 * the RTL against the compiler's reference.
 */
#include <fcntl.h>
#include <unistd.h>

#include <vta/runtime.h>

#include "compile_cfg.h"

static int rtl_here(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return 0;
#else
	char err[256];
	return !strcmp(VTA_CONFIG_NAME, "1x16_i8w8a32_15_15_18_17") && !vta_backend_probe("rtl", err, sizeof err);
#endif
}

/* conv 3x3 32->32 on 16x16, relu, maxpool 2, conv 3x3 32->32, relu */
static vc_module *network(void)
{
	static const char cfg[] = "[net]\nwidth=16\nheight=16\nchannels=32\n"
				  "[convolutional]\nbatch_normalize=1\nfilters=32\nsize=3\nstride=1\npad=1\nactivation=relu\n"
				  "[maxpool]\nsize=2\nstride=2\n"
				  "[convolutional]\nbatch_normalize=1\nfilters=32\nsize=3\nstride=1\npad=1\nactivation=relu\n";
	return compile_cfg(cfg, 3, NULL);
}

/* A run of m through libvta on target and its layers; *vm (whose names
 * the layers use) and *sim (the compiler's reading of the file, for the
 * timelines) stay open for the caller. */
static int run_stats(vc_module *m, const char *target, vta_model_t **vm, vc_module **sim, vc_layer_stats **l, int *n)
{
	uint8_t *bytes = NULL;
	size_t len;
	vta_error_t e;
	*vm = NULL;
	*sim = vc_module_new();
	int rc = vc_artifact_bytes(m, &bytes, &len);
	CHECK_EQ(rc, 0);
	if (!rc)
		CHECK_EQ(rc = vc_artifact_parse(*sim, bytes, len), 0);
	if (!rc && (rc = vta_model_open_bytes(bytes, len, "stats", target, vm, &e)))
		printf("%s\n", e.msg);
	free(bytes);
	CHECK_EQ(rc, 0);
	if (rc)
		return rc;
	vta_tensor_info_t ii, oi;
	vta_model_input(*vm, 0, &ii);
	vta_model_output(*vm, 0, &oi);
	float *x = calloc((size_t)ii.elems, 4), *y = calloc((size_t)oi.elems, 4);
	uint64_t st = 5;
	for (int64_t i = 0; i < ii.elems; i++)
		x[i] = (float)test_rand_range(&st, 0, 255);
	vta_tensor_t ti = {VTA_DTYPE_F32, 0, x, (size_t)ii.elems * 4}, to = {VTA_DTYPE_F32, 0, y, (size_t)oi.elems * 4};
	CHECK_EQ(rc = vta_model_run(*vm, &ti, &to, &e), 0);
	vta_model_stats_t ms;
	if (!rc)
		CHECK_EQ(rc = vta_model_stats(*vm, &ms), 0);
	if (!rc)
		CHECK_EQ(rc = vc_stats_collect(*sim, &ms, l, n), 0);
	free(x);
	free(y);
	return rc;
}

/* The rows: two VTA convolutions with 16x16x32x32x9 MACs each (channels a
 * multiple of the block; the device computes VTA_BATCH images, so the MACs
 * it performs count the padded batch), the max pool on the host. */
static void rows(void)
{
	vc_module *m = network();
	if (!m)
		return;
	vc_layer_stats *l;
	vta_model_t *vm;
	vc_module *sim;
	int n, vta = 0, pool = 0;
	if (run_stats(m, "fsim", &vm, &sim, &l, &n)) {
		vta_model_close(vm);
		vc_module_free(sim);
		vc_module_free(m);
		return;
	}
	for (int i = 0; i < n; i++) {
		if (!strcmp(l[i].on, "vta")) {
			vta++;
			CHECK_EQ(l[i].macs, (int64_t)VTA_BATCH * (vta == 1 ? 16 * 16 : 8 * 8) * 32 * 32 * 9);
			CHECK_EQ(l[i].cycles, 0); /* the golden model has no clock */
		} else {
			CHECK_STR_CONTAINS(l[i].on, "host");
			pool += !strcmp(l[i].op, "maxpool");
			CHECK(l[i].host_ms >= 0);
		}
	}
	CHECK_EQ(vta, 2);
	CHECK_EQ(pool, 1);
	vc_stats_free(l, n);
	vta_model_close(vm);
	vc_module_free(sim);
	vc_module_free(m);
}

/* On the RTL: cycles and busy cycles from the device; the JSON object sums
 * the cycles; the HTML report has a timeline per VTA layer whose model
 * cycles lie within 10% of the device's. */
static void rtl_report(void)
{
	if (!rtl_here())
		return;
	vc_module *m = network();
	if (!m)
		return;
	vc_layer_stats *l;
	vta_model_t *vm;
	vc_module *sim;
	int n;
	if (run_stats(m, "rtl", &vm, &sim, &l, &n)) {
		vta_model_close(vm);
		vc_module_free(sim);
		vc_module_free(m);
		return;
	}
	int64_t total = 0;
	vc_timing tm;
	vc_timing_default(&tm);
	for (int i = 0; i < n; i++) {
		if (strcmp(l[i].on, "vta"))
			continue;
		CHECK(l[i].cycles > 0);
#if VTA_RUNTIME_API_VERSION >= 2 /* busy counters */
		CHECK(l[i].gemm_busy > 0 && l[i].gemm_busy <= l[i].cycles);
		CHECK(l[i].load_busy > 0 && l[i].store_busy > 0);
#endif
		total += l[i].cycles;
		CHECK_EQ(vc_stats_timeline(sim, l[i].kernel, &tm, &l[i]), 0);
		CHECK(l[i].model_cycles > 0);
		double e = (double)(l[i].model_cycles - l[i].cycles) / (double)l[i].cycles;
		if (e > 0.10 || e < -0.10)
			test_fail_(__FILE__, __LINE__, "%s: model %lld cycles, RTL %lld", l[i].name, (long long)l[i].model_cycles,
				   (long long)l[i].cycles);
	}
	char path[64];
	snprintf(path, sizeof path, "/tmp/vc_stats_%d.json", (int)getpid());
	FILE *f = fopen(path, "w+");
	CHECK(f != NULL);
	if (f) {
		vc_stats_json(f, l, n);
		rewind(f);
		char buf[8192] = "";
		size_t got = fread(buf, 1, sizeof buf - 1, f);
		buf[got] = 0;
		fclose(f);
		long long cycles = -1;
		CHECK_EQ(sscanf(buf, "{\"cycles\": %lld, \"layers\": [", &cycles), 1);
		CHECK_EQ(cycles, total);
		CHECK_STR_CONTAINS(buf, "\"on\": \"vta\"");
		CHECK_STR_CONTAINS(buf, "\"op\": \"maxpool\"");
		CHECK(buf[got - 1] == '\n' && buf[got - 2] == '}');
		unlink(path);
	}
	snprintf(path, sizeof path, "/tmp/vc_stats_%d.html", (int)getpid());
	f = fopen(path, "w+");
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(vc_profile_html(f, "test <&>", "rtl", l, n), 0);
		rewind(f);
		static char html[1 << 20];
		size_t got = fread(html, 1, sizeof html - 1, f);
		html[got] = 0;
		fclose(f);
		CHECK_STR_CONTAINS(html, "<title>test &lt;&amp;&gt;</title>");
		int svgs = 0;
		for (const char *p = html; (p = strstr(p, "<svg")); p++)
			svgs++;
		CHECK_EQ(svgs, 2);
		CHECK_STR_CONTAINS(html, "</html>");
		unlink(path);
	}
	vc_stats_free(l, n);
	vta_model_close(vm);
	vc_module_free(sim);
	vc_module_free(m);
}

/* conv 3x3 32->32 in 4 groups (partition leaves it on the host), relu,
 * conv 3x3 32->32 (VTA), relu */
static vc_module *host_network(void)
{
	static const char cfg[] = "[net]\nwidth=16\nheight=16\nchannels=32\n"
				  "[convolutional]\nbatch_normalize=1\nfilters=32\nsize=3\nstride=1\npad=1\ngroups=4\nactivation=relu\n"
				  "[convolutional]\nbatch_normalize=1\nfilters=32\nsize=3\nstride=1\npad=1\nactivation=relu\n";
	return compile_cfg(cfg, 4, NULL);
}

/* What fn(argc, argv) prints on stdout, into buf (n bytes). */
static void captured(int (*fn)(int, char **), int argc, char **argv, int want_rc, char *buf, size_t n)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/vc_stats_out_%d.txt", (int)getpid());
	fflush(stdout);
	int saved = dup(1), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(saved >= 0 && fd >= 0);
	dup2(fd, 1);
	int rc = fn(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(fd);
	CHECK_EQ(rc, want_rc);
	FILE *f = fopen(path, "r");
	size_t got = f ? fread(buf, 1, n - 1, f) : 0;
	buf[got] = 0;
	if (f)
		fclose(f);
	unlink(path);
}

/* `vta run --stats` and `vta profile` on a model with a host convolution:
 * through libvta, the grouped convolution a host qconv row with its MACs
 * (16x16x32 outputs, 8 x 3x3 taps each) and time, the other a vta.conv row. */
static void host_conv_cli(void)
{
	vc_module *m = host_network();
	if (!m)
		return;
	char model[64], html[64];
	snprintf(model, sizeof model, "/tmp/vc_stats_%d.vtam", (int)getpid());
	snprintf(html, sizeof html, "/tmp/vc_stats_%d.html", (int)getpid());
	CHECK_EQ(vc_artifact_write(m, model), 0);
	vc_module_free(m);
	static char out[1 << 16];
	char *run[] = {model, "--target=fsim", "--input=random", "--stats"};
	captured(vta_cmd_run, 4, run, 0, out, sizeof out);
	CHECK_STR_CONTAINS(out, "random(seed=1)");
	CHECK_STR_CONTAINS(out, "qconv      host");
	CHECK_STR_CONTAINS(out, "vta.conv   vta");
	CHECK_STR_CONTAINS(out, "ms on the host");
	CHECK_STR_CONTAINS(out, "\ntotal");
	char macs[64];
	snprintf(macs, sizeof macs, " %d ", 16 * 16 * 32 * 8 * 9);
	CHECK_STR_CONTAINS(out, macs);
	char *json[] = {model, "--target=fsim", "--input=random", "--stats", "--json"};
	captured(vta_cmd_run, 5, json, 0, out, sizeof out);
	CHECK_STR_CONTAINS(out, "\"op\": \"qconv\", \"on\": \"host\"");
	char *sim[] = {model, "--simulate", "--input=random", "--stats"};
	captured(vta_cmd_run, 4, sim, 2, out, sizeof out);
	char *prof[] = {model, "--target=fsim", "-o", html};
	captured(vta_cmd_profile, 4, prof, 0, out, sizeof out);
	CHECK_STR_CONTAINS(out, "qconv      host");
	CHECK_STR_CONTAINS(out, "report: ");
	FILE *f = fopen(html, "r");
	CHECK(f != NULL);
	if (f) {
		size_t got = fread(out, 1, sizeof out - 1, f);
		out[got] = 0;
		fclose(f);
		CHECK_STR_CONTAINS(out, "<td>qconv</td><td>host</td>");
		CHECK_STR_CONTAINS(out, "<svg");
	}
	unlink(html);
	unlink(model);
}

/* The host convolution network on the RTL: libvta's output equals the
 * compiler's host reference bit for bit. */
static void host_conv_rtl(void)
{
	if (!rtl_here())
		return;
	vc_module *m = host_network();
	if (!m)
		return;
	vc_layer_stats *l;
	vta_model_t *vm;
	vc_module *sim;
	int n, host = 0;
	if (!run_stats(m, "rtl", &vm, &sim, &l, &n)) {
		for (int i = 0; i < n; i++)
			host += !strcmp(l[i].op, "qconv") && !strcmp(l[i].on, "host");
		CHECK_EQ(host, 1);
		vc_stats_free(l, n);
		/* the same input again, against the reference */
		vta_tensor_info_t oi;
		vta_model_output(vm, 0, &oi);
		vc_tensor x, ref[8];
		CHECK_EQ(vc_tensor_alloc(&x, &sim->g->inputs[0]->type), 0);
		uint64_t st = 9;
		for (int64_t i = 0; i < vc_type_elems(&x.t); i++)
			((float *)x.data)[i] = (float)test_rand_range(&st, 0, 255);
		float *y = calloc((size_t)oi.elems, 4);
		vta_tensor_t ti = {VTA_DTYPE_F32, 0, x.data, (size_t)vc_type_bytes(&x.t)};
		vta_tensor_t to = {VTA_DTYPE_F32, 0, y, (size_t)oi.elems * 4};
		vta_error_t e;
		CHECK_EQ(vta_model_run(vm, &ti, &to, &e), 0);
		CHECK_EQ(vc_simulate(sim, &x, ref), 0);
		CHECK(!memcmp(ref[0].data, y, (size_t)oi.elems * 4));
		for (int q = 0; q < sim->g->n_outputs; q++)
			vc_tensor_free(&ref[q]);
		vc_tensor_free(&x);
		free(y);
	}
	vta_model_close(vm);
	vc_module_free(sim);
	vc_module_free(m);
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"rows", rows},
		{"rtl_report", rtl_report},
		{"host_conv_cli", host_conv_cli},
		{"host_conv_rtl", host_conv_rtl},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
