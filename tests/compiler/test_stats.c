/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-layer statistics (`vta run --stats`, `vta profile`): a small network
 * of two VTA convolutions around a host max pool, run on the golden model
 * (every configuration) and on the RTL (default configuration, plain build):
 * the rows, their MACs against the shapes, cycles and busy counters from
 * the device, the JSON object, and the HTML report with a timeline per VTA
 * layer whose model cycles are near the RTL's.
 */
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

static int run_stats(vc_module *m, const char *target, vc_layer_stats **l, int *n)
{
	char err[512];
	vc_runner *r = vc_runner_open(m, target, err, sizeof err);
	CHECK(r != NULL);
	if (!r)
		return -1;
	vc_tensor in, out[8];
	vc_tensor_alloc(&in, &m->g->inputs[0]->type);
	uint64_t st = 5;
	for (int64_t i = 0; i < vc_type_elems(&in.t); i++)
		((float *)in.data)[i] = (float)test_rand_range(&st, 0, 255);
	double *secs = calloc((size_t)m->g->next_id + 1, sizeof *secs);
	m->node_seconds = secs;
	int rc = vc_runner_run(r, &in, out);
	m->node_seconds = NULL;
	CHECK_EQ(rc, 0);
	if (!rc) {
		for (int q = 0; q < m->g->n_outputs; q++)
			vc_tensor_free(&out[q]);
		CHECK_EQ(rc = vc_stats_collect(m, r, secs, l, n), 0);
	}
	free(secs);
	vc_tensor_free(&in);
	vc_runner_close(r);
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
	int n, vta = 0, pool = 0;
	if (run_stats(m, "fsim", &l, &n)) {
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
	int n;
	if (run_stats(m, "rtl", &l, &n)) {
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
		CHECK_EQ(vc_stats_timeline(m, l[i].kernel, &tm, &l[i]), 0);
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
	vc_module_free(m);
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"rows", rows},
		{"rtl_report", rtl_report},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
