/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The per-layer statistics table (`vta run --stats`, `vta profile`) and the
 * self-contained HTML report of `vta profile`: the table and, for every VTA
 * layer, an SVG timeline of what load, compute (GEMM, ALU, its own loads) and
 * store do, cycle by cycle, and where each waits for a token.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/device.h>
#include <vta/model.h>

#include "cli/cli.h"

static double util(const vc_layer_stats *l)
{
	return l->cycles > 0 ? (double)l->macs / VC_MACS_PER_CYCLE / (double)l->cycles : 0;
}

void vc_stats_table(FILE *f, const vc_layer_stats *l, int n)
{
	/* GEMM and ALU busy apart: the GEMM unit runs beside the ALU, so their sum can exceed the cycles */
	fprintf(f, "%-24s %-10s %-4s %13s %11s %6s %11s %11s %11s %11s\n", "layer", "op", "on", "MACs", "cycles", "util",
		"load", "gemm", "alu", "store");
	int64_t macs = 0, cycles = 0, ld = 0, gm = 0, al = 0, st = 0;
	for (int i = 0; i < n; i++) {
		if (!strcmp(l[i].on, "vta"))
			fprintf(f, "%-24.24s %-10.10s %-4s %13" PRId64 " %11" PRId64 " %6.3f %11" PRId64 " %11" PRId64
				   " %11" PRId64 " %11" PRId64 "\n",
				l[i].name, l[i].op, l[i].on, l[i].macs, l[i].cycles, util(&l[i]), l[i].load_busy,
				l[i].gemm_busy, l[i].alu_busy, l[i].store_busy);
		else
			fprintf(f, "%-24.24s %-10.10s %-4s %13" PRId64 " %11s %6s %11s %11s %11s %11s  (%.2f ms on the host)\n",
				l[i].name, l[i].op, l[i].on, l[i].macs, "-", "-", "-", "-", "-", "-", l[i].host_ms);
		macs += l[i].macs;
		cycles += l[i].cycles;
		ld += l[i].load_busy;
		gm += l[i].gemm_busy;
		al += l[i].alu_busy;
		st += l[i].store_busy;
	}
	vc_layer_stats tot = {.macs = macs, .cycles = cycles};
	fprintf(f, "%-24s %-10s %-4s %13" PRId64 " %11" PRId64 " %6.3f %11" PRId64 " %11" PRId64 " %11" PRId64
		   " %11" PRId64 "\n",
		"total", "", "", macs, cycles, util(&tot), ld, gm, al, st);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void vc_stats_json(FILE *f, const vc_layer_stats *l, int n)
{
	int64_t cycles = 0;
	for (int i = 0; i < n; i++)
		cycles += l[i].cycles;
	fprintf(f, "{\"cycles\": %" PRId64 ", \"layers\": [", cycles);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s{\"name\": ", i ? ", " : "");
		json_str(f, l[i].name);
		fprintf(f, ", \"op\": ");
		json_str(f, l[i].op);
		fprintf(f, ", \"on\": ");
		json_str(f, l[i].on);
		fprintf(f, ", \"macs\": %" PRId64 ", \"cycles\": %" PRId64 ", \"mac_util\": %.4f, \"load_busy\": %" PRId64
			   ", \"compute_busy\": %" PRId64 ", \"gemm_busy\": %" PRId64 ", \"alu_busy\": %" PRId64
			   ", \"store_busy\": %" PRId64 ", \"host_ms\": %.3f}",
			l[i].macs, l[i].cycles, util(&l[i]), l[i].load_busy, l[i].gemm_busy + l[i].alu_busy, l[i].gemm_busy,
			l[i].alu_busy, l[i].store_busy, l[i].host_ms);
	}
	fprintf(f, "]}\n");
}

/* ---- HTML ------------------------------------------------------------ */

static void html_str(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

/* Lanes of a timeline and what draws in them. */
enum { LANE_LOAD, LANE_GEMM, LANE_ALU, LANE_STORE, LANES };
static const char *lane_name[LANES] = {"load", "compute: GEMM", "compute: ALU, loads", "store"};

static int lane_of(const vta_insn_t *in, const char **kind, const char **color)
{
	switch (in->opcode) {
	case VTA_OPCODE_LOAD:
		if (in->memory_type == VTA_MEM_ID_INP) {
			*kind = "LOAD INP", *color = "#4e79a7";
			return LANE_LOAD;
		}
		if (in->memory_type == VTA_MEM_ID_WGT) {
			*kind = "LOAD WGT", *color = "#f28e2b";
			return LANE_LOAD;
		}
		*kind = in->memory_type == VTA_MEM_ID_UOP ? "LOAD UOP" : "LOAD ACC";
		*color = "#9c755f";
		return LANE_ALU;
	case VTA_OPCODE_STORE:
		*kind = "STORE", *color = "#e15759";
		return LANE_STORE;
	case VTA_OPCODE_GEMM:
		*kind = in->reset ? "GEMM reset" : "GEMM", *color = in->reset ? "#8cd17d" : "#59a14f";
		return in->reset ? LANE_ALU : LANE_GEMM;
	case VTA_OPCODE_ALU:
		*kind = "ALU", *color = "#b07aa1";
		return LANE_ALU;
	default:
		*kind = "FINISH", *color = "#999999";
		return LANE_ALU;
	}
}

enum { SVG_W = 1100, LANE_H = 18, LABEL_W = 150 };

/* One layer's timeline: a lane per module, a rectangle per instruction (the
 * cycles it works) and a pale one while it waits for a token; rectangles
 * narrower than a pixel are merged with their neighbours of the same kind. */
static void svg_timeline(FILE *f, const vc_layer_stats *l)
{
	double span = (double)(l->model_cycles > 0 ? l->model_cycles : 1);
	double scale = (SVG_W - LABEL_W - 10) / span;
	int h = LANES * (LANE_H + 4) + 24;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
		   "font-size=\"11\">\n", SVG_W, h);
	for (int k = 0; k < LANES; k++) {
		int y = k * (LANE_H + 4) + 2;
		fprintf(f, "<text x=\"2\" y=\"%d\">%s</text>\n", y + 13, lane_name[k]);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/>\n", LABEL_W, y,
			SVG_W - LABEL_W - 10, LANE_H);
	}
	/* per lane, the run of thin rectangles being merged */
	double rx0[LANES], rx1[LANES];
	const char *rcol[LANES] = {0};
	for (int pass = 0; pass < 2; pass++) { /* token waits first, work on top */
		for (int i = 0; i < l->n_insns; i++) {
			const char *kind = "", *color = "";
			int lane = lane_of(&l->insns[i], &kind, &color);
			const vc_cost_event *e = &l->events[i];
			int64_t t0 = pass ? e->start : e->wait_start, t1 = pass ? e->end : e->start;
			double x0 = LABEL_W + (double)t0 * scale, x1 = LABEL_W + (double)t1 * scale;
			if (!pass)
				color = "#dddddd", kind = "token wait";
			if (x1 <= x0)
				continue;
			int y = lane * (LANE_H + 4) + 2;
			if (rcol[lane] && (rcol[lane] != color || x0 > rx1[lane] + 1.0 || x1 - x0 >= 3.0)) {
				fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>\n", rx0[lane], y,
					rx1[lane] - rx0[lane] < 0.3 ? 0.3 : rx1[lane] - rx0[lane], LANE_H, rcol[lane]);
				rcol[lane] = NULL;
			}
			if (x1 - x0 >= 3.0) { /* wide enough to say what it is */
				fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%d %s: "
					   "cycles %" PRId64 "-%" PRId64 "</title></rect>\n",
					x0, y, x1 - x0, LANE_H, color, i, kind, t0, t1);
			} else if (rcol[lane]) {
				rx1[lane] = x1 > rx1[lane] ? x1 : rx1[lane];
			} else {
				rx0[lane] = x0, rx1[lane] = x1, rcol[lane] = color;
			}
		}
		for (int k = 0; k < LANES; k++)
			if (rcol[k]) {
				fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>\n", rx0[k],
					k * (LANE_H + 4) + 2, rx1[k] - rx0[k] < 0.3 ? 0.3 : rx1[k] - rx0[k], LANE_H, rcol[k]);
				rcol[k] = NULL;
			}
	}
	/* cycle axis */
	int y = LANES * (LANE_H + 4) + 14;
	for (int t = 0; t <= 4; t++) {
		double x = LABEL_W + (SVG_W - LABEL_W - 10) * t / 4.0;
		fprintf(f, "<text x=\"%.0f\" y=\"%d\" text-anchor=\"%s\">%.0f</text>\n", x, y,
			t == 0 ? "start" : t == 4 ? "end" : "middle", span * t / 4);
	}
	fprintf(f, "</svg>\n");
}

int vc_profile_html(FILE *f, const char *title, const char *target, const vc_layer_stats *l, int n)
{
	int64_t cycles = 0, macs = 0;
	for (int i = 0; i < n; i++)
		cycles += l[i].cycles, macs += l[i].macs;
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
	html_str(f, title);
	fprintf(f, "</title>\n<style>body{font-family:sans-serif;margin:20px}table{border-collapse:collapse}"
		   "td,th{padding:2px 8px;text-align:right;border-bottom:1px solid #ddd}td:nth-child(-n+3),"
		   "th:nth-child(-n+3){text-align:left}.key span{display:inline-block;width:12px;height:12px;"
		   "margin:0 4px 0 12px;vertical-align:middle}</style></head><body>\n<h1>");
	html_str(f, title);
	fprintf(f, "</h1>\n<p>Target <b>");
	html_str(f, target);
	fprintf(f, "</b>: %" PRId64 " device cycles, %" PRId64 " MACs, MAC utilization %.3f (MACs / %d per cycle).</p>\n",
		cycles, macs, cycles ? (double)macs / VC_MACS_PER_CYCLE / (double)cycles : 0, VC_MACS_PER_CYCLE);
	fprintf(f, "<table><tr><th>layer</th><th>op</th><th>on</th><th>MACs</th><th>cycles</th><th>MAC util</th>"
		   "<th>load busy</th><th>GEMM busy</th><th>ALU busy</th><th>store busy</th><th>model cycles</th></tr>\n");
	for (int i = 0; i < n; i++) {
		fprintf(f, "<tr><td><a href=\"#l%d\">", i);
		html_str(f, l[i].name);
		fprintf(f, "</a></td><td>");
		html_str(f, l[i].op);
		fprintf(f, "</td><td>%s</td><td>%" PRId64 "</td>", l[i].on, l[i].macs);
		if (!strcmp(l[i].on, "vta"))
			fprintf(f, "<td>%" PRId64 "</td><td>%.3f</td><td>%" PRId64 "</td><td>%" PRId64 "</td><td>%" PRId64
				   "</td><td>%" PRId64 "</td><td>%" PRId64 "</td></tr>\n",
				l[i].cycles, util(&l[i]), l[i].load_busy, l[i].gemm_busy, l[i].alu_busy, l[i].store_busy,
				l[i].model_cycles);
		else
			fprintf(f, "<td colspan=\"7\">%.2f ms on the host</td></tr>\n", l[i].host_ms);
	}
	fprintf(f, "</table>\n<p class=\"key\">Timelines (cycle model, docs/compiler.md \"Cycle model\"):"
		   "<span style=\"background:#4e79a7\"></span>LOAD INP<span style=\"background:#f28e2b\"></span>LOAD WGT"
		   "<span style=\"background:#59a14f\"></span>GEMM<span style=\"background:#b07aa1\"></span>ALU"
		   "<span style=\"background:#8cd17d\"></span>GEMM reset<span style=\"background:#9c755f\"></span>"
		   "LOAD UOP/ACC<span style=\"background:#e15759\"></span>STORE<span style=\"background:#dddddd\"></span>"
		   "waiting for a token</p>\n");
	for (int i = 0; i < n; i++) {
		if (strcmp(l[i].on, "vta") || !l[i].events)
			continue;
		fprintf(f, "<h3 id=\"l%d\">", i);
		html_str(f, l[i].name);
		fprintf(f, " &mdash; %" PRId64 " cycles", l[i].cycles);
		if (l[i].cycles && l[i].model_cycles)
			fprintf(f, " (model %" PRId64 ", %+.1f%%)", l[i].model_cycles,
				100.0 * ((double)l[i].model_cycles - (double)l[i].cycles) / (double)l[i].cycles);
		fprintf(f, "</h3>\n");
		svg_timeline(f, &l[i]);
	}
	fprintf(f, "</body></html>\n");
	return ferror(f) ? -1 : 0;
}

/* ---- collecting a run's statistics ------------------------------------ */

int vc_stats_collect(const vc_module *m, const vta_model_stats_t *st, vc_layer_stats **out, int *n_out)
{
	vc_layer_stats *l = calloc((size_t)(st->n_layers > 0 ? st->n_layers : 1), sizeof *l);
	if (!l)
		return -1;
	int n = 0;
	for (int i = 0; i < st->n_layers; i++) {
		const vta_layer_stats_t *ls = &st->layers[i];
		if (!strcmp(ls->op, "input") || !strcmp(ls->op, "const"))
			continue;
		vc_layer_stats *s = &l[n++];
		s->name = ls->name;
		s->op = ls->op;
		s->on = ls->on_vta ? "vta" : "host";
		s->macs = ls->macs;
		s->cycles = (int64_t)ls->cycles;
		s->load_busy = (int64_t)ls->busy[VTA_BUSY_LOAD];
		s->gemm_busy = (int64_t)ls->busy[VTA_BUSY_GEMM];
		s->alu_busy = (int64_t)ls->busy[VTA_BUSY_ALU];
		s->store_busy = (int64_t)ls->busy[VTA_BUSY_STORE];
		s->host_ms = 1e-6 * (double)ls->host_ns;
		/* libvta's layers are the file's nodes in order, as the compiler reads them */
		const vc_node *nd = m && i < m->g->n ? m->g->nodes[i] : NULL;
		s->kernel = ls->on_vta && nd && nd->op == VC_OP_VTA_CONV && !strncmp(nd->name, ls->name, strlen(ls->name))
				    ? nd->a.kernel_id
				    : -1;
	}
	*out = l;
	*n_out = n;
	return 0;
}

/* The cycle model's timeline of kernel k as the image holds it (emitted,
 * relocated to image offsets): its instructions and events. */
int vc_stats_timeline(const vc_module *m, int k, const vc_timing *tm, vc_layer_stats *s)
{
	const vc_kernel *kn = m->kernels[k];
	const uint8_t *img = m->stream->image;
	vta_insn_t *code = calloc((size_t)kn->insn_count + 1, sizeof *code);
	vc_cost_event *ev = calloc((size_t)kn->insn_count + 1, sizeof *ev);
	if (!code || !ev) {
		free(code);
		free(ev);
		return -1;
	}
	for (int64_t i = 0; i < kn->insn_count; i++) {
		vta_insn_word_t w;
		vta_insn_load(img + kn->insn_off + 16 * i, &w);
		vta_insn_decode(&w, &code[i]);
	}
	vc_cost c;
	if (vc_cost_run(tm, code, (int)kn->insn_count, (const uint32_t *)(const void *)img, m->stream->size / 4, &c, ev) ||
	    c.cycles < 0) {
		free(code);
		free(ev);
		return -1;
	}
	s->insns = code;
	s->events = ev;
	s->n_insns = (int)kn->insn_count;
	s->model_cycles = c.cycles;
	return 0;
}

void vc_stats_free(vc_layer_stats *l, int n)
{
	for (int i = 0; l && i < n; i++) {
		free((void *)l[i].insns);
		free((void *)l[i].events);
	}
	free(l);
}

/* ---- vta profile ------------------------------------------------------ */

const char vta_profile_usage[] =
	"usage: vta profile MODEL.vtam [--target=rtl|fsim|...] [--input=FILE|random] [-o REPORT.html]\n"
	"\n"
	"Runs one inference through libvta (default --input=random) and prints the per-layer table: name,\n"
	"operator, where it runs (vta or host), MACs, device cycles, MAC utilization, load,\n"
	"compute (GEMM + ALU) and store busy cycles from the device's counters, and a total line.\n"
	"Writes a self-contained HTML report (default MODEL.html): the table and, for every VTA\n"
	"layer, an SVG timeline of load, compute and store (the cycle model, docs/compiler.md,\n"
	"\"Cycle model\", at --latency=N cycles of DRAM latency, default the board's).\n"
	"\n"
	"examples:\n"
	"  vta profile r18.vtam --target=rtl -o r18.html\n"
	"  vta profile mnist.vtam --target=rtl --input=../shared/images/digit7.png\n";

/* The profiled input: random pixels (as vta run --input=random --seed=1) or a file. */
static int profile_input(const char *input, vc_tensor *in, char *err, size_t n)
{
	float *x = in->data;
	if (strcmp(input, "random"))
		return vc_read_input(input, &in->t, x, err, n);
	uint64_t st = 0x9E3779B97F4A7C15ull + 1;
	for (int64_t i = 0; i < vc_type_elems(&in->t); i++) {
		st ^= st << 13, st ^= st >> 7, st ^= st << 17;
		x[i] = (float)(st >> 56);
	}
	return 0;
}

/* One inference through libvta, the outputs in the model's own dtypes (discarded). */
static int profile_run(vta_model_t *vm, const vc_tensor *in, vta_error_t *e)
{
	int no = vta_model_n_outputs(vm), rc = 0;
	vta_tensor_t ti = {VTA_DTYPE_F32, 0, in->data, (size_t)vc_type_bytes(&in->t)}, to[8];
	for (int q = 0; q < no; q++) {
		vta_tensor_info_t oi;
		vta_model_output(vm, q, &oi);
		size_t es = oi.dtype == VTA_DTYPE_I8 ? 1 : 4;
		to[q] = (vta_tensor_t){oi.dtype, oi.exp, calloc((size_t)oi.elems + 1, es), (size_t)oi.elems * es};
		if (!to[q].data)
			rc = vta_error_set(e, VTA_ENOMEM, -1, "out of memory for output %d", q);
	}
	if (!rc)
		rc = vta_model_run(vm, &ti, to, e);
	for (int q = 0; q < no; q++)
		free(to[q].data);
	return rc;
}

int vta_cmd_profile(int argc, char **argv)
{
	const char *model = NULL, *target = "rtl", *input = "random", *html = NULL, *v;
	int latency = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(vta_profile_usage, stdout);
			return 0;
		} else if ((v = vc_take_opt(argc, argv, &i, "--target")))
			target = v;
		else if ((v = vc_take_opt(argc, argv, &i, "--input")))
			input = v;
		else if ((v = vc_take_opt(argc, argv, &i, "--latency")))
			latency = atoi(v);
		else if ((v = vc_take_opt(argc, argv, &i, "-o")))
			html = v;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "vta profile: unknown option %s (vta profile --help lists them)\n", argv[i]);
			return 2;
		} else if (!model)
			model = argv[i];
		else {
			fprintf(stderr, "vta profile: more than one model given\n");
			return 2;
		}
	}
	if (!model) {
		fputs(vta_profile_usage, stderr);
		return 2;
	}
	char path[4096], err[1024];
	if (!html) {
		const char *dot = strrchr(model, '.');
		snprintf(path, sizeof path, "%.*s.html", (int)(dot ? dot - model : (long)strlen(model)), model);
		html = path;
	}
	int rc = 1, nl = 0;
	vc_layer_stats *l = NULL;
	vta_model_t *vm = NULL;
	vc_tensor in = {0};
	vc_module *m = vc_module_new();
	if (!m)
		return 1;
	if (vc_artifact_read(m, model)) { /* the compiler's reading: the kernels' instructions for the timelines */
		fprintf(stderr, "vta profile: %s: %s\n", model, m->diag.msg);
		goto done;
	}
	if (m->g->n_inputs != 1 || vc_tensor_alloc(&in, &m->g->inputs[0]->type)) {
		fprintf(stderr, "vta profile: %s: one input expected\n", model);
		goto done;
	}
	if (profile_input(input, &in, err, sizeof err)) {
		fprintf(stderr, "vta profile: %s\n", err);
		goto done;
	}
	vta_error_t e;
	if (vta_model_open(model, target, &vm, &e) || profile_run(vm, &in, &e)) {
		fprintf(stderr, "vta profile: %s\n", e.msg);
		goto done;
	}
	vta_model_stats_t ms;
	if (vta_model_stats(vm, &ms) || vc_stats_collect(m, &ms, &l, &nl))
		goto done;
	vc_timing tm;
	vc_timing_default(&tm);
	if (latency > 0)
		tm.dram_latency = tm.wr_latency = latency;
	for (int i = 0; i < nl; i++)
		if (l[i].kernel >= 0 && vc_stats_timeline(m, l[i].kernel, &tm, &l[i]))
			fprintf(stderr, "vta profile: no timeline for %s\n", l[i].name);
	vc_stats_table(stdout, l, nl);
	FILE *f = fopen(html, "w");
	if (!f) {
		fprintf(stderr, "vta profile: cannot write %s\n", html);
		goto done;
	}
	char title[4200];
	snprintf(title, sizeof title, "vta profile %s", model);
	int hrc = vc_profile_html(f, title, target, l, nl);
	if (fclose(f) || hrc) {
		fprintf(stderr, "vta profile: writing %s failed\n", html);
		goto done;
	}
	printf("report: %s\n", html);
	rc = 0;
done:
	vc_stats_free(l, nl);
	vta_model_close(vm);
	vc_tensor_free(&in);
	vc_module_free(m);
	return rc;
}
