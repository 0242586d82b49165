/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cycle model (compiler/vta/cost.c) against the RTL: the cycles it
 * predicts for hand-written programs of each instruction kind, for small
 * compiler-generated convolution kernels at two DRAM latencies, and for every
 * kernel of ResNet-18 (the Darknet cfg at 224x224, compiled as `vta compile`
 * does, run on the rtl target at the PYNQ latency) must lie within 10% of the
 * cycles the RTL takes (its CNT_CYCLES counter, per kernel). The RTL runs take
 * about 20 s of CPU (ResNet-18: 9 M device cycles), so they run on the default
 * configuration, plain build only; elsewhere the cases check that the model
 * runs.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include <vta/rtlsim.h>
#include <vta/vta_regmap.h>

#include "artifact/artifact.h"
#include "cli/cli.h"
#include "exec/exec.h"
#include "import/import.h"
#include "r18.h"
#include "test.h"
#include "vta/codegen.h"

enum { DRAM = 8 << 20, UOP_AT = 0x10000, INP_AT = 0x20000, WGT_AT = 0x40000, ACC_AT = 0x80000, OUT_AT = 0x100000 };

static int rtl_runs_here(void)
{
	return !TEST_SANITIZED && !strcmp(VTA_CONFIG_NAME, "1x16_i8w8a32_15_15_18_17");
}

static const unsigned latencies[] = {VC_DRAM_LATENCY_PYNQ, 100};
static double worst; /* the largest error seen, reported at the end */

/* |model - rtl| / rtl */
static double rel_err(int64_t model, uint64_t rtl)
{
	double e = fabs((double)model - (double)rtl) / (double)(rtl ? rtl : 1);
	worst = e > worst ? e : worst;
	return e;
}

/* ---- hand-written programs ------------------------------------------ */

typedef struct prog {
	vta_insn_t in[64];
	int n;
	uint32_t uops[1024];
	int nu;
	const char *what;
} prog;

static vta_insn_t mem(int op, int type, uint32_t sram, uint32_t dram_byte, uint32_t y, uint32_t x, uint32_t stride)
{
	vta_insn_t in;
	memset(&in, 0, sizeof in);
	in.opcode = (uint32_t)op;
	in.memory_type = (uint32_t)type;
	in.sram_base = sram;
	in.dram_base = dram_byte / vta_mem_elem_bytes((unsigned)type);
	in.y_size = y, in.x_size = x, in.x_stride = stride;
	return in;
}

static vta_insn_t compute(int op, uint32_t nu, uint32_t io, uint32_t ii, uint32_t dfo, uint32_t dfi)
{
	vta_insn_t in;
	memset(&in, 0, sizeof in);
	in.opcode = (uint32_t)op;
	in.uop_end = nu;
	in.iter_out = io, in.iter_in = ii;
	in.dst_factor_out = dfo, in.dst_factor_in = dfi;
	in.src_factor_out = dfo, in.src_factor_in = dfi;
	return in;
}

static void add(prog *p, vta_insn_t in) { p->in[p->n++] = in; }

static void finish(prog *p, int pop_prev, int pop_next)
{
	vta_insn_t in;
	memset(&in, 0, sizeof in);
	in.opcode = VTA_OPCODE_FINISH;
	in.pop_prev = (uint32_t)pop_prev, in.pop_next = (uint32_t)pop_next;
	add(p, in);
}

/* Micro-ops (dst, src, wgt) = (dst(u), u, u) with dst(u) = u or u / same. */
static void uops(prog *p, int n, int same)
{
	p->nu = n;
	for (int u = 0; u < n; u++) {
		vta_uop_t op = {(uint32_t)(same ? u / same : u), (uint32_t)u, (uint32_t)u % 64};
		vta_uop_encode(&op, &p->uops[u], NULL);
	}
	add(p, mem(VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 0, UOP_AT, 1, (uint32_t)n, (uint32_t)n));
}

static int build(prog *p, int which)
{
	memset(p, 0, sizeof *p);
	vta_insn_t in;
	switch (which) {
	case 0: /* padded, strided input rows and weight rows, then compute */
		p->what = "LOAD INP/WGT";
		in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 0, INP_AT, 8, 56, 60);
		in.x_pad_0 = in.x_pad_1 = in.y_pad_0 = in.y_pad_1 = 1;
		add(p, in);
		in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 600, INP_AT, 16, 32, 32);
		add(p, in);
		in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_WGT, 0, WGT_AT, 4, 36, 72);
		in.push_next = 1;
		add(p, in);
		finish(p, 1, 0);
		return 1;
	case 1: /* micro-op and accumulator loads, GEMM without and with hazards */
		p->what = "GEMM";
		uops(p, 256, 0);
		add(p, mem(VTA_OPCODE_LOAD, VTA_MEM_ID_ACC, 0, ACC_AT, 2, 64, 64));
		add(p, mem(VTA_OPCODE_LOAD, VTA_MEM_ID_ACC_8BIT, 128, ACC_AT, 1, 64, 64));
		add(p, compute(VTA_OPCODE_GEMM, 256, 4, 8, 256, 1));
		uops(p, 64, 2); /* pairs writing one row: every second micro-op waits */
		add(p, compute(VTA_OPCODE_GEMM, 64, 4, 8, 32, 0));
		uops(p, 96, 3);
		add(p, compute(VTA_OPCODE_GEMM, 96, 2, 16, 32, 1));
		finish(p, 0, 0);
		return 1;
	case 2: /* ALU with an immediate and in register mode */
		p->what = "ALU";
		uops(p, 1, 0);
		in = compute(VTA_OPCODE_ALU, 1, 8, 64, 64, 1);
		in.alu_opcode = VTA_ALU_OPCODE_SHR, in.use_imm = 1, in.imm = 3;
		add(p, in);
		in = compute(VTA_OPCODE_ALU, 1, 8, 64, 64, 1);
		in.alu_opcode = VTA_ALU_OPCODE_ADD, in.src_factor_out = 1, in.src_factor_in = 0;
		add(p, in);
		finish(p, 0, 0);
		return 1;
	case 3: /* stores, contiguous and row by row */
		p->what = "STORE";
		in = mem(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, OUT_AT, 8, 64, 64);
		add(p, in);
		in = mem(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, OUT_AT, 16, 28, 56);
		in.push_prev = 1;
		add(p, in);
		finish(p, 0, 1);
		return 1;
	case 4: /* three tiles through load, compute and store with ping-pong tokens */
		p->what = "pipeline";
		uops(p, 128, 0);
		for (int t = 0; t < 3; t++) {
			in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, (uint32_t)(t % 2) * 512, INP_AT, 4, 96, 96);
			in.pop_next = t >= 2;
			add(p, in);
			in = mem(VTA_OPCODE_LOAD, VTA_MEM_ID_WGT, (uint32_t)(t % 2) * 128, WGT_AT, 1, 64, 64);
			in.push_next = 1;
			add(p, in);
			in = compute(VTA_OPCODE_GEMM, 128, 2, 16, 128, 1);
			in.pop_prev = 1;
			in.pop_next = t >= 1;
			in.push_prev = t < 1;
			in.push_next = 1;
			add(p, in);
			in = mem(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, OUT_AT, 4, 128, 128);
			in.pop_prev = 1, in.push_prev = 1;
			add(p, in);
		}
		finish(p, 0, 1);
		return 1;
	default:
		return 0;
	}
}

static uint64_t rtl_cycles(vta_rtlsim_t *r, const prog *p)
{
	uint8_t *d = vta_rtlsim_dram(r);
	for (int i = 0; i < p->n; i++) {
		vta_insn_word_t w;
		vta_error_t err;
		if (vta_insn_encode(&p->in[i], &w, &err)) {
			test_fail_(__FILE__, __LINE__, "%s: instruction %d: %s", p->what, i, err.msg);
			return 0;
		}
		vta_insn_store(&w, d + 16 * (size_t)i);
	}
	memcpy(d + UOP_AT, p->uops, 4 * (size_t)p->nu);
	vta_error_t err;
	if (vta_rtlsim_run(r, 0, (uint32_t)p->n, &err)) {
		test_fail_(__FILE__, __LINE__, "%s on the RTL: %s", p->what, err.msg);
		return 0;
	}
	return vta_rtlsim_counter(r, VTA_REG_CNT_CYCLES);
}

static void model_matches_rtl_programs(void)
{
	vta_error_t err;
	vta_rtlsim_t *r = rtl_runs_here() ? vta_rtlsim_create(DRAM, &err) : NULL;
	CHECK(!rtl_runs_here() || r);
	static prog p;
	for (int which = 0; build(&p, which); which++)
		for (size_t l = 0; l < sizeof latencies / sizeof latencies[0]; l++) {
			vc_timing tm;
			vc_timing_default(&tm);
			tm.dram_latency = (int)latencies[l];
			/* the micro-op table: the DRAM words from UOP_AT, as the loads read them */
			static uint32_t table[UOP_AT / 4 + 1024];
			memcpy(table + UOP_AT / 4, p.uops, 4 * (size_t)p.nu);
			vc_cost c;
			CHECK_EQ(vc_cost_run(&tm, p.in, p.n, table, UOP_AT / 4 + p.nu, &c, NULL), 0);
			CHECK(c.cycles > 0);
			if (!r)
				continue;
			vta_rtlsim_set_latency(r, latencies[l]);
			uint64_t cyc = rtl_cycles(r, &p);
			if (rel_err(c.cycles, cyc) > 0.10)
				test_fail_(__FILE__, __LINE__, "%s at latency %u: model %lld cycles, RTL %llu", p.what,
					   latencies[l], (long long)c.cycles, (unsigned long long)cyc);
		}
	vta_rtlsim_destroy(r);
}

/* ---- compiler kernels ------------------------------------------------ */

/* Small convolutions of the shapes ResNet-18 has, scaled down so the RTL
 * runs them in a fraction of a second each. */
static const r18_layer layers[] = {
	{"3x3", 14, 64, 64, 3, 1, 1, 0},
	{"3x3-s2", 14, 32, 64, 3, 1, 2, 0},
	{"1x1-s2", 28, 32, 64, 1, 0, 2, 0},
	{"3x3-res", 7, 128, 128, 3, 1, 1, 1},
};

static uint64_t seed;

typedef struct run_ctx {
	vta_rtlsim_t *r;
	unsigned latency;
	uint64_t cycles;
} run_ctx;

/* The interpreter's hook: the kernel on the RTL, its operands from the host. */
static int on_rtl(void *ctx, vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out)
{
	run_ctx *rc = ctx;
	const vc_kernel *k = m->kernels[n->a.kernel_id];
	uint8_t *d = vta_rtlsim_dram(rc->r);
	memcpy(d, m->stream->image, (size_t)m->stream->size);
	for (int i = 0; i < n->n_in; i++)
		if (i == 0 || i == 3)
			memcpy(d + n->in[i]->a.dev_off, in[i].data, vc_type_bytes(&n->in[i]->type));
	vta_rtlsim_set_latency(rc->r, rc->latency);
	vta_error_t err;
	if (vta_rtlsim_run(rc->r, (uint64_t)k->insn_off, (uint32_t)k->insn_count, &err))
		return vc_error(m, n, "RTL: %s", err.msg);
	rc->cycles = vta_rtlsim_counter(rc->r, VTA_REG_CNT_CYCLES);
	if (vc_tensor_alloc(out, &n->type))
		return -1;
	memcpy(out->data, d + n->a.dev_off, vc_type_bytes(&n->type));
	return 0;
}

static void model_matches_rtl_kernels(void)
{
	vta_error_t err;
	vta_rtlsim_t *r = rtl_runs_here() ? vta_rtlsim_create(DRAM, &err) : NULL;
	CHECK(!rtl_runs_here() || r);
	for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
		vc_module *m = r18_module(&layers[i], &seed);
		char why[512];
		vc_compile_opts o = {.calib_path = "synthetic", .calib_count = 1};
		if (vc_compile(m, &o, why, sizeof why) || m->n_kernels != 1 || (size_t)m->stream->size > DRAM) {
			test_fail_(__FILE__, __LINE__, "%s: %s", layers[i].name, why);
			vc_module_free(m);
			continue;
		}
		vc_tensor x;
		vc_tensor_alloc(&x, &m->g->inputs[0]->type);
		for (int64_t e = 0; e < vc_type_elems(&x.t); e++)
			((float *)x.data)[e] = (float)test_rand_range(&seed, 0, 1000) / 1000.0f;
		for (size_t l = 0; l < sizeof latencies / sizeof latencies[0]; l++) {
			vc_timing tm;
			vc_timing_default(&tm);
			tm.dram_latency = (int)latencies[l];
			vc_cost c;
			CHECK_EQ(vc_cost_kernel(&tm, m->kernels[0], &c, NULL), 0);
			CHECK(c.cycles > 0);
			if (!r)
				continue;
			run_ctx rc = {r, latencies[l], 0};
			vc_tensor y;
			if (vc_interp(m, &x, &y, NULL, on_rtl, &rc)) {
				test_fail_(__FILE__, __LINE__, "%s: %s", layers[i].name, m->diag.msg);
				continue;
			}
			vc_tensor_free(&y);
			if (rel_err(c.cycles, rc.cycles) > 0.10)
				test_fail_(__FILE__, __LINE__, "%s at latency %u: model %lld cycles, RTL %llu", layers[i].name,
					   latencies[l], (long long)c.cycles, (unsigned long long)rc.cycles);
		}
		vc_tensor_free(&x);
		vc_module_free(m);
	}
	vta_rtlsim_destroy(r);
}

/* ---- ResNet-18 ------------------------------------------------------- */

/* Every kernel of ResNet-18 on the rtl target: the model's prediction for the
 * kernel against the device's cycle counter for it. */
static void model_matches_rtl_resnet18(void)
{
	if (!rtl_runs_here())
		return;
	char path[1024], err[1024];
	snprintf(path, sizeof path, "%s/../shared/models/resnet18.cfg", test_root());
	CHECK(access(path, R_OK) == 0);
	if (access(path, R_OK))
		return;
	vc_darknet_opts dk = {.synthetic = 1, .seed = 1, .input_size = 224};
	vc_compile_opts o = {.calib_path = "synthetic", .calib_count = 1};
	vc_module *m = vc_module_new();
	if (vc_import_darknet_files(m, path, NULL, &dk) || vc_compile(m, &o, err, sizeof err)) {
		test_fail_(__FILE__, __LINE__, "resnet18.cfg: %s %s", err, m->diag.msg);
		vc_module_free(m);
		return;
	}
	char lat[32];
	snprintf(lat, sizeof lat, "%u", (unsigned)VC_DRAM_LATENCY_PYNQ);
	setenv("VTA_RTL_DRAM_LATENCY", lat, 1);
	unsetenv("VTA_RTL_BACKPRESSURE");
	vc_runner *r = vc_runner_open(m, "rtl", err, sizeof err);
	CHECK(r != NULL);
	vc_tensor in, out[8];
	vc_tensor_alloc(&in, &m->g->inputs[0]->type);
	uint64_t st = 7;
	for (int64_t i = 0; i < vc_type_elems(&in.t); i++)
		((float *)in.data)[i] = (float)test_rand_range(&st, 0, 255);
	if (r && vc_runner_run(r, &in, out)) {
		test_fail_(__FILE__, __LINE__, "ResNet-18 on the RTL: %s", m->diag.msg);
	} else if (r) {
		for (int q = 0; q < m->g->n_outputs; q++)
			vc_tensor_free(&out[q]);
		vc_timing tm;
		vc_timing_default(&tm);
		tm.dram_latency = tm.wr_latency = VC_DRAM_LATENCY_PYNQ;
		CHECK(m->n_kernels >= 18); /* its 17 convolutions and the dense layer at least */
		for (int k = 0; k < m->n_kernels; k++) {
			const vc_kernel *kn = m->kernels[k];
			vta_counters_t c;
			vc_cost mc;
			CHECK_EQ(vc_runner_kernel_counters(r, k, &c), 0);
			CHECK_EQ(vc_cost_kernel(&tm, kn, &mc, NULL), 0);
			CHECK(c.cycles > 0);
			if (rel_err(mc.cycles, c.cycles) > 0.10)
				test_fail_(__FILE__, __LINE__, "ResNet-18 kernel %d (%s): model %lld cycles, RTL %llu", k,
					   kn->node->name, (long long)mc.cycles, (unsigned long long)c.cycles);
		}
	}
	vc_tensor_free(&in);
	vc_runner_close(r);
	vc_module_free(m);
}

/* A stream whose tokens can never all be popped is reported, not hung. */
static void model_reports_deadlock(void)
{
	vta_insn_t in[2];
	memset(in, 0, sizeof in);
	in[0].opcode = VTA_OPCODE_GEMM;
	in[0].pop_prev = 1; /* no load ever pushes */
	in[1].opcode = VTA_OPCODE_FINISH;
	vc_timing tm;
	vc_timing_default(&tm);
	vc_cost c;
	CHECK_EQ(vc_cost_run(&tm, in, 2, NULL, 0, &c, NULL), 0);
	CHECK_EQ(c.cycles, -1);
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"model_matches_rtl_programs", model_matches_rtl_programs},
		{"model_matches_rtl_kernels", model_matches_rtl_kernels},
		{"model_matches_rtl_resnet18", model_matches_rtl_resnet18},
		{"model_reports_deadlock", model_reports_deadlock},
		{NULL, NULL},
	};
	int rc = test_main(argc, argv, cases);
	if (rtl_runs_here())
		printf("cycle model: largest |model - RTL| / RTL %.1f%%\n", 100 * worst);
	return rc;
}
