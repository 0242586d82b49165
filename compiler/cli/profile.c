/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The per-layer statistics table (`vta run --stats`, `vta profile`) and the
 * self-contained HTML report of `vta profile`: the table and, for every VTA
 * layer, an SVG timeline of what load, compute (GEMM, ALU, its own loads) and
 * store do, cycle by cycle, and where each waits for a token.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static double util(const vc_layer_stats *l)
{
	return l->cycles > 0 ? (double)l->macs / VC_MACS_PER_CYCLE / (double)l->cycles : 0;
}

void vc_stats_table(FILE *f, const vc_layer_stats *l, int n)
{
	fprintf(f, "%-24s %-10s %-4s %13s %11s %6s %11s %11s %11s\n", "layer", "op", "on", "MACs", "cycles", "util",
		"load", "compute", "store");
	int64_t macs = 0, cycles = 0, ld = 0, cp = 0, st = 0;
	for (int i = 0; i < n; i++) {
		if (!strcmp(l[i].on, "vta"))
			fprintf(f, "%-24.24s %-10.10s %-4s %13" PRId64 " %11" PRId64 " %6.3f %11" PRId64 " %11" PRId64
				   " %11" PRId64 "\n",
				l[i].name, l[i].op, l[i].on, l[i].macs, l[i].cycles, util(&l[i]), l[i].load_busy,
				l[i].gemm_busy + l[i].alu_busy, l[i].store_busy);
		else
			fprintf(f, "%-24.24s %-10.10s %-4s %13" PRId64 " %11s %6s %11s %11s %11s  (%.2f ms on the host)\n",
				l[i].name, l[i].op, l[i].on, l[i].macs, "-", "-", "-", "-", "-", l[i].host_ms);
		macs += l[i].macs;
		cycles += l[i].cycles;
		ld += l[i].load_busy;
		cp += l[i].gemm_busy + l[i].alu_busy;
		st += l[i].store_busy;
	}
	vc_layer_stats tot = {.macs = macs, .cycles = cycles};
	fprintf(f, "%-24s %-10s %-4s %13" PRId64 " %11" PRId64 " %6.3f %11" PRId64 " %11" PRId64 " %11" PRId64 "\n",
		"total", "", "", macs, cycles, util(&tot), ld, cp, st);
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
