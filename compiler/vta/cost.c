/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A cycle model of the RTL (hw/) running one instruction stream: the tiler's
 * cost function and the timeline of `vta profile`.
 *
 * It is a discrete-event simulation of what the hardware does, with the
 * constants of vc_timing (docs/compiler.md, "Cycle model"):
 *   - fetch reads the stream in groups of 16 instructions, two groups in
 *     flight; an instruction reaches its queue a cycle after the one before;
 *   - load (INP, WGT), compute (UOP, ACC, ACC_8BIT loads; GEMM; ALU) and
 *     store run their queues in order; an instruction starts when its
 *     module is free and the tokens it pops have been pushed; load takes the
 *     next LOAD once the last request of the one before is out (its data
 *     still arriving) and ends them, with their pushes, in order;
 *   - a LOAD hands the read engine one request per DRAM row (one for all rows
 *     when they are contiguous), cut into bursts of 16 beats that never cross
 *     4 KiB; the engine issues one burst address a cycle, round robin
 *     between fetch, load and compute, with at most 8 bursts in flight, and
 *     returns the data in issue order, a beat a cycle, each burst no earlier
 *     than the DRAM latency after its address; the SRAM side of a LOAD
 *     writes pads one element a cycle and holds the data meanwhile, and cuts
 *     elements narrower than a beat out of it one a cycle;
 *   - GEMM and ALU issue one micro-op a cycle; an ALU micro-op that reads
 *     the row the one ahead writes takes two, and so does a register-mode
 *     one whose src row (other than the last one read) lies in dst's bank;
 *   - a GEMM runs in the GEMM unit: the ALU instructions behind it (not MUL)
 *     start beside it once its first pass over its micro-ops has shown its
 *     ACC footprint, if their rows (dst, and src in register mode) lie
 *     outside it; anything else, and an ALU with token pushes at its end,
 *     waits for the GEMM to end;
 *   - STORE streams its beats through the write engine (store's alone) and
 *     ends when the last response has come back.
 */
#include <stdlib.h>
#include <string.h>

#include <vta/device.h>

#include "vta/codegen.h"

void vc_timing_default(vc_timing *t)
{
	memset(t, 0, sizeof *t);
	t->dram_latency = VC_DRAM_LATENCY_PYNQ;
	t->wr_latency = VC_DRAM_LATENCY_PYNQ;
	t->bus_bytes = VTA_BUS_WIDTH / 8;
	t->burst_beats = 16;
	t->bursts_in_flight = 8;
	t->insn_start = 2;
	t->insn_end = 2;
	t->load_first = 3;
	t->pipe = 10;
	t->acc_banks = 4;
	t->store_extra = 5;
	t->token = 1;
	t->fetch_group = 16;
	t->fetch_in_flight = 2;
}

/* fetch, then the modules in vta_module_t's numbering */
enum { M_FETCH, M_LOAD = VTA_MODULE_LOAD, M_COMPUTE = VTA_MODULE_COMPUTE, M_STORE = VTA_MODULE_STORE, NM };

/* ---- GEMM and ALU ---------------------------------------------------- */

/* Cycles a GEMM or ALU instruction issues micro-ops: one a cycle. An ALU
 * micro-op waits a cycle when it reads the row the one just ahead writes
 * (the two-stage ALU), and in register mode when it reads a src row other
 * than the cached one (the last fresh src read) from dst's bank. The ALU is
 * followed micro-op by micro-op for the first ALU_SAMPLE micro-ops, the
 * rest at their rate (the loops repeat). */
enum { ALU_SAMPLE = 8192 };

static int64_t compute_cycles(const vc_timing *tm, const vta_insn_t *in, const uint32_t *sram)
{
	uint32_t n = in->uop_end > in->uop_bgn ? in->uop_end - in->uop_bgn : 0;
	int64_t iters = (int64_t)in->iter_out * in->iter_in;
	if (!n || !iters)
		return 0;
	int64_t total = iters * n;
	if (in->opcode != VTA_OPCODE_ALU)
		return total;
	int B = tm->acc_banks > 0 ? tm->acc_banks : 1;
	int64_t c = 0, done = 0, prev = -1, cached = -1;
	for (uint32_t o = 0; o < in->iter_out && done < ALU_SAMPLE; o++)
		for (uint32_t i = 0; i < in->iter_in && done < ALU_SAMPLE; i++)
			for (uint32_t k = 0; k < n && done < ALU_SAMPLE; k++, done++) {
				vta_uop_t u;
				vta_uop_decode(sram[(in->uop_bgn + k) % VTA_UOP_BUFF_DEPTH], &u);
				int64_t d = u.dst_idx + (int64_t)o * in->dst_factor_out + (int64_t)i * in->dst_factor_in;
				int64_t sr = u.src_idx + (int64_t)o * in->src_factor_out + (int64_t)i * in->src_factor_in;
				c++;
				if (d == prev || (!in->use_imm && sr == prev))
					c++;
				if (!in->use_imm && sr != cached) {
					if ((d - sr) % B == 0 && tm->acc_banks > 0)
						c++;
					cached = sr;
				}
				prev = d;
			}
	return done < total ? (int64_t)((double)c * (double)total / (double)done + 0.5) : c;
}

/* The rows an instruction's loops reach: [lo, hi] of dst (src: of src), from
 * the micro-op fields and the loop extents (the factors are unsigned). */
static void footprint(const vta_insn_t *in, const uint32_t *sram, int src, int64_t *lo, int64_t *hi)
{
	*lo = INT64_MAX, *hi = -1;
	for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
		vta_uop_t u;
		vta_uop_decode(sram[k % VTA_UOP_BUFF_DEPTH], &u);
		int64_t v = src ? u.src_idx : u.dst_idx;
		*lo = v < *lo ? v : *lo;
		*hi = v > *hi ? v : *hi;
	}
	*hi += (int64_t)(in->iter_out ? in->iter_out - 1 : 0) * (src ? in->src_factor_out : in->dst_factor_out) +
	       (int64_t)(in->iter_in ? in->iter_in - 1 : 0) * (src ? in->src_factor_in : in->dst_factor_in);
}

/* ---- DMA ------------------------------------------------------------- */

/* A read burst: its beats, the cycles the client takes them in, and what it
 * belongs to. */
typedef struct burst {
	int beats, take;
	int row_first;  /* the first burst of a request */
	int last;       /* the instruction's (or fetch group's) last burst */
	int64_t pre;    /* pads the SRAM side writes before this burst's data (a request's first) */
	int64_t post;   /* pads it writes after the last burst's data */
} burst;

/* Append the bursts of `bytes` from byte address `addr`. */
static int add_bursts(const vc_timing *tm, burst *b, int nb, int64_t addr, int64_t bytes, int64_t elem, int64_t pre)
{
	int bus = tm->bus_bytes;
	int64_t a = addr - addr % bus, end = addr + bytes;
	int first = 1;
	while (a < end) {
		int64_t lim = a + (int64_t)tm->burst_beats * bus, line = (a / 4096 + 1) * 4096;
		if (lim > line)
			lim = line;
		if (lim > end)
			lim = (end + bus - 1) / bus * bus;
		burst *x = &b[nb++];
		memset(x, 0, sizeof *x);
		x->beats = (int)((lim - a) / bus);
		/* elements narrower than a beat are written one a cycle */
		int64_t lo = a > addr ? a : addr, hi = lim < end ? lim : end;
		int64_t elems = elem < bus ? (hi - lo + elem - 1) / elem : 0;
		x->take = elems > x->beats ? (int)elems : x->beats;
		x->row_first = first;
		x->pre = first ? pre : 0;
		first = 0;
		a = lim;
	}
	return nb;
}

/* The bursts of one LOAD; the number of bursts. */
static int load_bursts(const vc_timing *tm, const vta_insn_t *in, burst *b)
{
	int64_t e = vta_mem_elem_bytes(in->memory_type);
	int64_t width = (int64_t)in->x_pad_0 + in->x_size + in->x_pad_1;
	int contig = in->x_stride == in->x_size;
	int n = 0;
	int64_t pre = (int64_t)in->y_pad_0 * width;
	if (contig) { /* one request; the pads between its rows are written as the data passes */
		pre += in->x_pad_0 + (int64_t)(in->y_size - 1) * (in->x_pad_0 + in->x_pad_1);
		n = add_bursts(tm, b, n, (int64_t)in->dram_base * e, (int64_t)in->y_size * in->x_size * e, e, pre);
		pre = in->x_pad_1;
	} else {
		for (uint32_t y = 0; y < in->y_size; y++) {
			pre += in->x_pad_0;
			n = add_bursts(tm, b, n, ((int64_t)in->dram_base + (int64_t)y * in->x_stride) * e,
				       (int64_t)in->x_size * e, e, pre);
			pre = in->x_pad_1;
		}
	}
	if (n) {
		b[n - 1].last = 1;
		b[n - 1].post = pre + (int64_t)in->y_pad_1 * width;
	}
	return n;
}

static int64_t store_cycles(const vc_timing *tm, const vta_insn_t *in)
{
	int64_t bytes = (int64_t)in->x_size * in->y_size * VTA_OUT_ELEM_BYTES;
	int64_t beats = (bytes + tm->bus_bytes - 1) / tm->bus_bytes;
	int rows = in->x_stride == in->x_size ? 1 : (int)in->y_size;
	return beats + rows + tm->wr_latency + tm->store_extra;
}

/* ---- the simulation -------------------------------------------------- */

typedef struct modq {
	int *idx, n, pos;   /* instructions of this module, in program order */
	int busy;           /* 0 idle; 1 local work until t; 2 on the read engine */
	int64_t t, started, seen;
} modq;

static void pops_pushes(int mod, const vta_insn_t *in, int pop[2], int push[2])
{
	pop[0] = pop[1] = push[0] = push[1] = -1;
	if (mod == M_LOAD) {
		if (in->pop_next) pop[0] = VTA_Q_G2L;
		if (in->push_next) push[0] = VTA_Q_L2G;
	} else if (mod == M_COMPUTE) {
		if (in->pop_prev) pop[0] = VTA_Q_L2G;
		if (in->pop_next) pop[1] = VTA_Q_S2G;
		if (in->push_prev) push[0] = VTA_Q_G2L;
		if (in->push_next) push[1] = VTA_Q_G2S;
	} else if (mod == M_STORE) {
		if (in->pop_prev) pop[0] = VTA_Q_G2S;
		if (in->push_prev) push[0] = VTA_Q_S2G;
	}
}

typedef struct client {
	burst *b;      /* pending bursts (from the current instruction or fetch group) */
	int nb, next;
	int64_t ready; /* earliest cycle the next address may go out */
	int64_t wpos;  /* the SRAM side: free from this cycle */
} client;

int vc_cost_run(const vc_timing *tm, const vta_insn_t *code, int n, const uint32_t *uop_dram, int64_t n_uop_dram,
		vc_cost *out, vc_cost_event *ev)
{
	memset(out, 0, sizeof *out);
	int64_t *local = calloc((size_t)n + 1, sizeof *local);
	int *bfirst = calloc((size_t)n + 2, sizeof *bfirst);
	uint32_t *sram = calloc(VTA_UOP_BUFF_DEPTH, sizeof *sram);
	int64_t *arrive = calloc((size_t)n + 1, sizeof *arrive);
	int64_t *tok_mem = calloc(VTA_Q_COUNT * ((size_t)n + 1), sizeof *tok_mem);
	int *mods = calloc((size_t)n + 1, sizeof *mods);
	int64_t *fp = calloc(4 * ((size_t)n + 1), sizeof *fp); /* dst lo, hi, src lo, hi */
	modq q[NM];
	memset(q, 0, sizeof q);
	for (int m = 0; m < NM; m++)
		q[m].idx = calloc((size_t)n + 1, sizeof(int));
	burst *bursts = NULL;
	int64_t *gdone = NULL;
	int64_t *inflight = calloc((size_t)tm->bursts_in_flight + 1, sizeof *inflight);
	int rc = -1;
	if (!local || !bfirst || !sram || !arrive || !tok_mem || !mods || !fp || !inflight || !q[0].idx || !q[1].idx ||
	    !q[2].idx || !q[3].idx)
		goto done;

	/* program order: modules, bursts, compute durations (UOP SRAM tracked) */
	int64_t nbursts = 0;
	for (int i = 0; i < n; i++) {
		const vta_insn_t *in = &code[i];
		if (in->opcode == VTA_OPCODE_LOAD && in->x_size) {
			int64_t e = vta_mem_elem_bytes(in->memory_type);
			int64_t bytes = (int64_t)in->y_size * in->x_size * e;
			nbursts += bytes / ((int64_t)tm->burst_beats * tm->bus_bytes) + 2 * (int64_t)in->y_size + 2 +
				   bytes / 4096;
		}
	}
	int groups = (n + tm->fetch_group - 1) / tm->fetch_group;
	int64_t group_bursts = ((int64_t)tm->fetch_group * 16 + (int64_t)tm->burst_beats * tm->bus_bytes - 1) /
			       ((int64_t)tm->burst_beats * tm->bus_bytes);
	bursts = calloc((size_t)(nbursts + group_bursts * groups + 1), sizeof *bursts);
	if (!bursts)
		goto done;
	int nb = 0;
	for (int i = 0; i < n; i++) {
		const vta_insn_t *in = &code[i];
		mods[i] = (int)vta_insn_module(in);
		q[mods[i]].idx[q[mods[i]].n++] = i;
		bfirst[i] = nb;
		if (in->opcode == VTA_OPCODE_LOAD && in->x_size) {
			nb += load_bursts(tm, in, bursts + nb);
			if (in->memory_type == VTA_MEM_ID_UOP) {
				int64_t width = (int64_t)in->x_pad_0 + in->x_size + in->x_pad_1;
				for (uint32_t y = 0; y < in->y_size; y++)
					for (uint32_t x = 0; x < in->x_size; x++) {
						int64_t src = (int64_t)in->dram_base + (int64_t)y * in->x_stride + x;
						int64_t dst = in->sram_base + ((int64_t)in->y_pad_0 + y) * width + in->x_pad_0 + x;
						sram[dst % VTA_UOP_BUFF_DEPTH] = src >= 0 && src < n_uop_dram ? uop_dram[src] : 0;
					}
			}
		} else if (in->opcode == VTA_OPCODE_GEMM || in->opcode == VTA_OPCODE_ALU) {
			int64_t c = compute_cycles(tm, in, sram);
			local[i] = c ? c + tm->pipe : 0;
			footprint(in, sram, 0, &fp[4 * i], &fp[4 * i + 1]);
			footprint(in, sram, 1, &fp[4 * i + 2], &fp[4 * i + 3]);
		} else if (in->opcode == VTA_OPCODE_STORE && in->x_size) {
			local[i] = store_cycles(tm, in);
		}
	}
	bfirst[n] = nb;
	int fetch_b0 = nb; /* the fetch groups' bursts follow */
	for (int g = 0; g < groups; g++) {
		nb = add_bursts(tm, bursts, nb, (int64_t)g * tm->fetch_group * 16, (int64_t)tm->fetch_group * 16, 16, 0);
		bursts[nb - 1].last = 1;
	}

	for (int i = 0; i < n; i++)
		arrive[i] = INT64_MAX;
	int64_t *push_t[VTA_Q_COUNT];
	int pushed[VTA_Q_COUNT] = {0}, popped[VTA_Q_COUNT] = {0};
	for (int j = 0; j < VTA_Q_COUNT; j++)
		push_t[j] = tok_mem + (size_t)j * ((size_t)n + 1);

	/* the read engine: clients 0 fetch, 1 load, 2 compute */
	client cl[3];
	memset(cl, 0, sizeof cl);
	cl[0].b = bursts + fetch_b0;
	cl[0].nb = nb - fetch_b0;
	gdone = calloc((size_t)groups + 1, sizeof *gdone); /* when each fetch group has returned */
	int fetch_done = 0, fetch_started = 0;
	if (!gdone)
		goto done;
	int64_t r_free = 0, ar_free = 0;
	int n_inflight = 0; /* in-order completion times of bursts in flight */
	int rr = 0;
	int64_t now = 0;
	int finished = 0;
	/* the GEMM in the GEMM unit: its instruction, start, end (pushes), when its footprint is known */
	int bg = -1;
	int64_t bg_start = 0, bg_end = 0, bg_safe = 0;
	/* LOADs of the load module whose requests are out: instruction, data end, start */
	int *lp_i = calloc((size_t)n + 1, sizeof *lp_i), lp_head = 0, lp_tail = 0;
	int64_t *lp_t = calloc(2 * ((size_t)n + 1), sizeof *lp_t);
	if (!lp_i || !lp_t) {
		free(lp_i);
		free(lp_t);
		goto done;
	}

	while (!finished) {
		int progress = 1;
		while (progress) {
			progress = 0;
			for (int m = M_LOAD; m <= M_STORE; m++) {
				modq *mq = &q[m];
				if (mq->pos >= mq->n || mq->busy == 2)
					continue;
				int i = mq->idx[mq->pos];
				const vta_insn_t *in = &code[i];
				if (mq->busy == 0) {
					if (arrive[i] > now)
						continue;
					if (m == M_COMPUTE && bg >= 0) { /* beside the GEMM, or after it */
						const int64_t *g = &fp[4 * bg], *a = &fp[4 * i];
						int rows_free = a[1] < g[0] || a[0] > g[1];
						if (!in->use_imm && !(a[3] < g[0] || a[2] > g[1]))
							rows_free = 0;
						if (in->opcode != VTA_OPCODE_ALU || in->alu_opcode >= VTA_ALU_OPCODE_MUL ||
						    now < bg_safe || !rows_free || !local[i])
							continue;
					}
					if (!mq->seen)
						mq->seen = now + 1;
					int pop[2], push[2], ok = 1;
					pops_pushes(m, in, pop, push);
					for (int j = 0; j < 2; j++)
						if (pop[j] >= 0 && (popped[pop[j]] >= pushed[pop[j]] || push_t[pop[j]][popped[pop[j]]] > now))
							ok = 0;
					if (in->opcode == VTA_OPCODE_FINISH && fetch_done < groups)
						ok = 0; /* FINISH waits for the rest of the stream */
					if (!ok)
						continue;
					out->wait[m] += now + 1 - mq->seen;
					if (ev) {
						ev[i].module = m;
						ev[i].wait_start = mq->seen - 1;
						ev[i].start = now;
					}
					mq->seen = 0;
					for (int j = 0; j < 2; j++)
						if (pop[j] >= 0)
							popped[pop[j]]++;
					mq->started = now;
					if (bfirst[i + 1] > bfirst[i]) { /* a LOAD with data: on the engine */
						client *c = &cl[m == M_LOAD ? 1 : 2];
						c->b = bursts + bfirst[i];
						c->nb = bfirst[i + 1] - bfirst[i];
						c->next = 0;
						c->ready = now + tm->insn_start + tm->load_first;
						/* (the load module's SRAM side: after the data of the LOAD before) */
						c->wpos = m == M_LOAD && c->wpos > c->ready ? c->wpos : c->ready;
						mq->busy = 2;
					} else if (in->opcode == VTA_OPCODE_GEMM && local[i]) { /* to the GEMM unit */
						bg = i;
						bg_start = now;
						bg_end = now + tm->insn_start + local[i] + tm->insn_end;
						bg_safe = now + tm->insn_start + (in->uop_end - in->uop_bgn) + 4;
						mq->pos++;
						if (mq->pos < mq->n && arrive[mq->idx[mq->pos]] < now + 2)
							arrive[mq->idx[mq->pos]] = now + 2;
					} else {
						mq->busy = 1;
						mq->t = now + tm->insn_start + local[i];
					}
					progress = 1;
					continue;
				}
				if (mq->busy == 1 && mq->t <= now) {
					int pop[2], push[2];
					pops_pushes(m, in, pop, push);
					if (bg >= 0 && (push[0] >= 0 || push[1] >= 0))
						continue; /* pushes in program order: after the GEMM's */
					int64_t end = now + tm->insn_end;
					for (int j = 0; j < 2; j++)
						if (push[j] >= 0)
							push_t[push[j]][pushed[push[j]]++] = end + tm->token;
					if (ev)
						ev[i].end = end;
					int64_t busy = end - mq->started;
					if (in->opcode == VTA_OPCODE_GEMM)
						out->gemm_busy += busy;
					else if (in->opcode == VTA_OPCODE_ALU)
						out->alu_busy += busy;
					else if (m == M_LOAD)
						out->load_busy += busy;
					else if (m == M_STORE)
						out->store_busy += busy;
					else if (in->opcode == VTA_OPCODE_LOAD)
						out->compute_load_busy += busy;
					mq->pos++;
					mq->busy = 0;
					out->insns++;
					if (in->opcode == VTA_OPCODE_FINISH) {
						finished = 1;
						out->cycles = end;
					}
					if (mq->pos < mq->n && arrive[mq->idx[mq->pos]] < end)
						arrive[mq->idx[mq->pos]] = end;
					progress = 1;
				}
			}
			while (lp_head < lp_tail && lp_t[2 * lp_head] <= now) { /* a LOAD's data is in */
				int li = lp_i[lp_head];
				int pop[2], push[2];
				pops_pushes(M_LOAD, &code[li], pop, push);
				int64_t end = lp_t[2 * lp_head] + tm->insn_end;
				for (int j = 0; j < 2; j++)
					if (push[j] >= 0)
						push_t[push[j]][pushed[push[j]]++] = end + tm->token;
				if (ev)
					ev[li].end = end;
				out->load_busy += end - lp_t[2 * lp_head + 1];
				out->insns++;
				lp_head++;
				progress = 1;
			}
			if (bg >= 0 && bg_end <= now) { /* the GEMM unit's instruction ends */
				int pop[2], push[2];
				pops_pushes(M_COMPUTE, &code[bg], pop, push);
				for (int j = 0; j < 2; j++)
					if (push[j] >= 0)
						push_t[push[j]][pushed[push[j]]++] = bg_end + tm->token;
				if (ev)
					ev[bg].end = bg_end;
				out->gemm_busy += bg_end - bg_start;
				out->insns++;
				bg = -1;
				progress = 1;
			}
			while (fetch_done < fetch_started && gdone[fetch_done] && gdone[fetch_done] <= now) {
				fetch_done++;
				progress = 1;
			}
			/* bursts that have returned */
			while (n_inflight && inflight[0] <= now) {
				memmove(inflight, inflight + 1, (size_t)(n_inflight - 1) * sizeof *inflight);
				n_inflight--;
				progress = 1;
			}
			/* the read engine issues one burst address a cycle, round robin */
			if (ar_free <= now && n_inflight < tm->bursts_in_flight) {
				for (int k = 1; k <= 3; k++) {
					int c = (rr + k) % 3;
					client *x = &cl[c];
					if (x->next >= x->nb || x->ready > now)
						continue;
					int starts_group = c == 0 && (x->next == 0 || x->b[x->next - 1].last);
					if (starts_group && fetch_started - fetch_done >= tm->fetch_in_flight)
						continue; /* the fetch buffer has no room for another group */
					burst *b = &x->b[x->next++];
					int64_t ds = now + tm->dram_latency;
					if (ds < r_free)
						ds = r_free;
					if (c && b->row_first) /* the SRAM side writes the pads before it takes data */
						x->wpos += b->pre;
					if (c && ds < x->wpos)
						ds = x->wpos;
					int64_t de = ds + b->take;
					r_free = de;
					inflight[n_inflight++] = de;
					out->dma_beats += b->beats;
					if (c)
						x->wpos = de;
					ar_free = now + 1;
					rr = c;
					if (starts_group)
						fetch_started++;
					if (c == 0 && b->last) {
						int g = fetch_started - 1;
						gdone[g] = de;
						/* the group's instructions reach their queues a cycle apart */
						for (int j = 0; j < tm->fetch_group; j++) {
							int i = g * tm->fetch_group + j;
							if (i < n && (arrive[i] == INT64_MAX || arrive[i] < de + 1 + j))
								arrive[i] = de + 1 + j;
						}
					} else if (c == 1 && b->last) { /* the next LOAD may start */
						modq *mq = &q[M_LOAD];
						lp_i[lp_tail] = mq->idx[mq->pos];
						lp_t[2 * lp_tail] = de + b->post;
						lp_t[2 * lp_tail + 1] = mq->started;
						lp_tail++;
						x->wpos = de + b->post;
						mq->pos++;
						mq->busy = 0;
						if (mq->pos < mq->n && arrive[mq->idx[mq->pos]] < now + 1)
							arrive[mq->idx[mq->pos]] = now + 1;
						x->nb = 0;
					} else if (c && b->last) {
						modq *mq = &q[M_COMPUTE];
						mq->busy = 1;
						mq->t = de + b->post;
						x->nb = 0;
					}
					progress = 1;
					break;
				}
			}
		}
		if (finished)
			break;
		/* the next event */
		int64_t next = INT64_MAX;
		for (int m = M_LOAD; m <= M_STORE; m++) {
			modq *mq = &q[m];
			if (mq->pos >= mq->n)
				continue;
			if (mq->busy == 1 && mq->t > now && mq->t < next)
				next = mq->t;
			if (mq->busy == 0 && arrive[mq->idx[mq->pos]] > now && arrive[mq->idx[mq->pos]] < next)
				next = arrive[mq->idx[mq->pos]];
		}
		if (lp_head < lp_tail && lp_t[2 * lp_head] > now && lp_t[2 * lp_head] < next)
			next = lp_t[2 * lp_head];
		if (bg >= 0 && bg_end > now && bg_end < next)
			next = bg_end;
		if (bg >= 0 && bg_safe > now && bg_safe < next)
			next = bg_safe;
		for (int j = 0; j < VTA_Q_COUNT; j++)
			if (popped[j] < pushed[j] && push_t[j][popped[j]] > now && push_t[j][popped[j]] < next)
				next = push_t[j][popped[j]];
		for (int c = 0; c < 3; c++)
			if (cl[c].next < cl[c].nb) {
				int64_t t = cl[c].ready > ar_free ? cl[c].ready : ar_free;
				if (n_inflight >= tm->bursts_in_flight && inflight[0] > t)
					t = inflight[0];
				if (t > now && t < next)
					next = t;
			}
		if (n_inflight && inflight[0] > now && inflight[0] < next)
			next = inflight[0];
		if (fetch_done < fetch_started && gdone[fetch_done] > now && gdone[fetch_done] < next)
			next = gdone[fetch_done];
		if (next == INT64_MAX) { /* nothing can happen: a deadlock */
			out->cycles = -1;
			rc = 0;
			free(lp_i);
			free(lp_t);
			goto done;
		}
		now = next;
	}
	rc = 0;
	free(lp_i);
	free(lp_t);
done:
	free(gdone);
	for (int m = 0; m < NM; m++)
		free(q[m].idx);
	free(inflight);
	free(bursts);
	free(mods);
	free(fp);
	free(tok_mem);
	free(arrive);
	free(sram);
	free(bfirst);
	free(local);
	return rc;
}

int vc_cost_kernel(const vc_timing *tm, const vc_kernel *k, vc_cost *out, vc_cost_event *ev)
{
	vta_insn_t *code = malloc(((size_t)k->n + 1) * sizeof *code);
	if (!code)
		return -1;
	for (int i = 0; i < k->n; i++)
		code[i] = k->code[i].insn;
	int rc = vc_cost_run(tm, code, k->n, k->uops, k->n_uops, out, ev);
	free(code);
	return rc;
}
