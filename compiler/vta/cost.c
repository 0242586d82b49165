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

/* The state of one simulation (vc_cost_run): the program's per-instruction
 * facts computed in program order, then the modules, the read engine, the
 * token queues and the GEMM unit as the clock advances. */
typedef struct sim {
	const vc_timing *tm;
	const vta_insn_t *code;
	int n;
	vc_cost *out;
	vc_cost_event *ev;
	/* program order */
	int64_t *local; /* cycles of work in its module (GEMM/ALU issue + pipe, STORE) */
	int *bfirst;    /* the first of its bursts (bfirst[n]: the fetch groups') */
	uint32_t *sram; /* the UOP SRAM as the LOADs before it leave it */
	int64_t *fp;    /* GEMM/ALU footprints: dst lo, hi, src lo, hi */
	burst *bursts;
	int groups;     /* fetch groups */
	/* the clock */
	int64_t now;
	int64_t *arrive; /* when it reaches its module's queue */
	modq q[NM];
	int64_t *push_t[VTA_Q_COUNT], *tok_mem; /* when each token of a queue was pushed */
	int pushed[VTA_Q_COUNT], popped[VTA_Q_COUNT];
	/* the read engine: clients 0 fetch, 1 load, 2 compute */
	client cl[3];
	int64_t *gdone; /* when each fetch group has returned */
	int fetch_done, fetch_started;
	int64_t r_free, ar_free;
	int64_t *inflight; /* in-order completion times of bursts in flight */
	int n_inflight, rr;
	/* the GEMM in the GEMM unit: its instruction, start, end (pushes), when its footprint is known */
	int bg;
	int64_t bg_start, bg_end, bg_safe;
	/* LOADs of the load module whose requests are out: instruction, data end, start */
	int *lp_i, lp_head, lp_tail;
	int64_t *lp_t;
	int finished;
} sim;

static void sim_free(sim *s)
{
	free(s->gdone);
	for (int m = 0; m < NM; m++)
		free(s->q[m].idx);
	free(s->inflight);
	free(s->bursts);
	free(s->fp);
	free(s->tok_mem);
	free(s->arrive);
	free(s->sram);
	free(s->bfirst);
	free(s->local);
	free(s->lp_i);
	free(s->lp_t);
}

/* Bursts that the program's LOADs and fetch groups need at most. */
static int64_t max_bursts(const vc_timing *tm, const vta_insn_t *code, int n, int groups)
{
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
	int64_t group_bursts = ((int64_t)tm->fetch_group * 16 + (int64_t)tm->burst_beats * tm->bus_bytes - 1) /
			       ((int64_t)tm->burst_beats * tm->bus_bytes);
	return nbursts + group_bursts * groups + 1;
}

static int sim_alloc(sim *s)
{
	size_t n1 = (size_t)s->n + 1;
	const vc_timing *tm = s->tm;
	s->groups = (s->n + tm->fetch_group - 1) / tm->fetch_group;
	s->local = calloc(n1, sizeof *s->local);
	s->bfirst = calloc(n1 + 1, sizeof *s->bfirst);
	s->sram = calloc(VTA_UOP_BUFF_DEPTH, sizeof *s->sram);
	s->arrive = calloc(n1, sizeof *s->arrive);
	s->tok_mem = calloc(VTA_Q_COUNT * n1, sizeof *s->tok_mem);
	s->fp = calloc(4 * n1, sizeof *s->fp);
	s->inflight = calloc((size_t)tm->bursts_in_flight + 1, sizeof *s->inflight);
	s->bursts = calloc((size_t)max_bursts(tm, s->code, s->n, s->groups), sizeof *s->bursts);
	s->gdone = calloc((size_t)s->groups + 1, sizeof *s->gdone);
	s->lp_i = calloc(n1, sizeof *s->lp_i);
	s->lp_t = calloc(2 * n1, sizeof *s->lp_t);
	int ok = s->local && s->bfirst && s->sram && s->arrive && s->tok_mem && s->fp && s->inflight && s->bursts &&
		 s->gdone && s->lp_i && s->lp_t;
	for (int m = 0; m < NM; m++)
		ok = (s->q[m].idx = calloc(n1, sizeof(int))) && ok;
	return ok ? 0 : -1;
}

/* Program order: each instruction's module queue, its bursts, its work
 * (with the UOP SRAM as the LOADs before it leave it) and its footprints;
 * then the fetch groups' bursts. */
static void sim_prepare(sim *s, const uint32_t *uop_dram, int64_t n_uop_dram)
{
	const vc_timing *tm = s->tm;
	int nb = 0;
	for (int i = 0; i < s->n; i++) {
		const vta_insn_t *in = &s->code[i];
		int mod = (int)vta_insn_module(in);
		s->q[mod].idx[s->q[mod].n++] = i;
		s->bfirst[i] = nb;
		if (in->opcode == VTA_OPCODE_LOAD && in->x_size) {
			nb += load_bursts(tm, in, s->bursts + nb);
			if (in->memory_type == VTA_MEM_ID_UOP) {
				int64_t width = (int64_t)in->x_pad_0 + in->x_size + in->x_pad_1;
				for (uint32_t y = 0; y < in->y_size; y++)
					for (uint32_t x = 0; x < in->x_size; x++) {
						int64_t src = (int64_t)in->dram_base + (int64_t)y * in->x_stride + x;
						int64_t dst = in->sram_base + ((int64_t)in->y_pad_0 + y) * width + in->x_pad_0 + x;
						s->sram[dst % VTA_UOP_BUFF_DEPTH] = src >= 0 && src < n_uop_dram ? uop_dram[src] : 0;
					}
			}
		} else if (in->opcode == VTA_OPCODE_GEMM || in->opcode == VTA_OPCODE_ALU) {
			int64_t c = compute_cycles(tm, in, s->sram);
			s->local[i] = c ? c + tm->pipe : 0;
			footprint(in, s->sram, 0, &s->fp[4 * i], &s->fp[4 * i + 1]);
			footprint(in, s->sram, 1, &s->fp[4 * i + 2], &s->fp[4 * i + 3]);
		} else if (in->opcode == VTA_OPCODE_STORE && in->x_size) {
			s->local[i] = store_cycles(tm, in);
		}
	}
	s->bfirst[s->n] = nb;
	int fetch_b0 = nb; /* the fetch groups' bursts follow */
	for (int g = 0; g < s->groups; g++) {
		nb = add_bursts(tm, s->bursts, nb, (int64_t)g * tm->fetch_group * 16, (int64_t)tm->fetch_group * 16, 16, 0);
		s->bursts[nb - 1].last = 1;
	}
	for (int i = 0; i < s->n; i++)
		s->arrive[i] = INT64_MAX;
	for (int j = 0; j < VTA_Q_COUNT; j++)
		s->push_t[j] = s->tok_mem + (size_t)j * ((size_t)s->n + 1);
	s->cl[0].b = s->bursts + fetch_b0;
	s->cl[0].nb = nb - fetch_b0;
	s->bg = -1;
}

/* Instruction i of module mod retires at cycle end: its tokens are pushed
 * (visible a token delay later) and it is counted. */
static void retire(sim *s, int mod, int i, int64_t end)
{
	int pop[2], push[2];
	pops_pushes(mod, &s->code[i], pop, push);
	for (int j = 0; j < 2; j++)
		if (push[j] >= 0)
			s->push_t[push[j]][s->pushed[push[j]]++] = end + s->tm->token;
	if (s->ev)
		s->ev[i].end = end;
	s->out->insns++;
}

/* The next instruction of the module's queue arrives no earlier than t. */
static void next_arrives(sim *s, modq *mq, int64_t t)
{
	if (mq->pos < mq->n && s->arrive[mq->idx[mq->pos]] < t)
		s->arrive[mq->idx[mq->pos]] = t;
}

/* An ALU instruction may start beside the GEMM in the GEMM unit: not MUL,
 * the GEMM's footprint known, its rows outside it, and work to do. */
static int beside_gemm(const sim *s, int i)
{
	const vta_insn_t *in = &s->code[i];
	const int64_t *g = &s->fp[4 * s->bg], *a = &s->fp[4 * i];
	int rows_free = a[1] < g[0] || a[0] > g[1];
	if (!in->use_imm && !(a[3] < g[0] || a[2] > g[1]))
		rows_free = 0;
	return in->opcode == VTA_OPCODE_ALU && in->alu_opcode < VTA_ALU_OPCODE_MUL && s->now >= s->bg_safe &&
	       rows_free && s->local[i];
}

/* An idle module starts its next instruction if it has arrived and its
 * tokens are in: onto the read engine (a LOAD with data), into the GEMM
 * unit (a GEMM), or as local work. 1 if it started. */
static int try_start(sim *s, int m)
{
	const vc_timing *tm = s->tm;
	modq *mq = &s->q[m];
	int i = mq->idx[mq->pos];
	const vta_insn_t *in = &s->code[i];
	int64_t now = s->now;
	if (s->arrive[i] > now)
		return 0;
	if (m == M_COMPUTE && s->bg >= 0 && !beside_gemm(s, i)) /* beside the GEMM, or after it */
		return 0;
	if (!mq->seen)
		mq->seen = now + 1;
	int pop[2], push[2], ok = 1;
	pops_pushes(m, in, pop, push);
	for (int j = 0; j < 2; j++)
		if (pop[j] >= 0 && (s->popped[pop[j]] >= s->pushed[pop[j]] || s->push_t[pop[j]][s->popped[pop[j]]] > now))
			ok = 0;
	if (in->opcode == VTA_OPCODE_FINISH && s->fetch_done < s->groups)
		ok = 0; /* FINISH waits for the rest of the stream */
	if (!ok)
		return 0;
	s->out->wait[m] += now + 1 - mq->seen;
	if (s->ev) {
		s->ev[i].module = m;
		s->ev[i].wait_start = mq->seen - 1;
		s->ev[i].start = now;
	}
	mq->seen = 0;
	for (int j = 0; j < 2; j++)
		if (pop[j] >= 0)
			s->popped[pop[j]]++;
	mq->started = now;
	if (s->bfirst[i + 1] > s->bfirst[i]) { /* a LOAD with data: on the engine */
		client *c = &s->cl[m == M_LOAD ? 1 : 2];
		c->b = s->bursts + s->bfirst[i];
		c->nb = s->bfirst[i + 1] - s->bfirst[i];
		c->next = 0;
		c->ready = now + tm->insn_start + tm->load_first;
		/* (the load module's SRAM side: after the data of the LOAD before) */
		c->wpos = m == M_LOAD && c->wpos > c->ready ? c->wpos : c->ready;
		mq->busy = 2;
	} else if (in->opcode == VTA_OPCODE_GEMM && s->local[i]) { /* to the GEMM unit */
		s->bg = i;
		s->bg_start = now;
		s->bg_end = now + tm->insn_start + s->local[i] + tm->insn_end;
		s->bg_safe = now + tm->insn_start + (in->uop_end - in->uop_bgn) + 4;
		mq->pos++;
		next_arrives(s, mq, now + 2);
	} else {
		mq->busy = 1;
		mq->t = now + tm->insn_start + s->local[i];
	}
	return 1;
}

/* A module whose local work is done ends its instruction (its pushes in
 * program order: after those of the GEMM in the GEMM unit). 1 if it did. */
static int try_finish(sim *s, int m)
{
	modq *mq = &s->q[m];
	int i = mq->idx[mq->pos];
	const vta_insn_t *in = &s->code[i];
	if (mq->t > s->now)
		return 0;
	int pop[2], push[2];
	pops_pushes(m, in, pop, push);
	if (s->bg >= 0 && (push[0] >= 0 || push[1] >= 0))
		return 0;
	int64_t end = s->now + s->tm->insn_end;
	retire(s, m, i, end);
	int64_t busy = end - mq->started;
	vc_cost *out = s->out;
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
	if (in->opcode == VTA_OPCODE_FINISH) {
		s->finished = 1;
		out->cycles = end;
	}
	next_arrives(s, mq, end);
	return 1;
}

/* The last burst of a client's request has been issued (data end de). */
static void request_issued(sim *s, int c, const burst *b, int64_t de)
{
	client *x = &s->cl[c];
	if (c == 0) {
		int g = s->fetch_started - 1;
		s->gdone[g] = de;
		/* the group's instructions reach their queues a cycle apart */
		for (int j = 0; j < s->tm->fetch_group; j++) {
			int i = g * s->tm->fetch_group + j;
			if (i < s->n && (s->arrive[i] == INT64_MAX || s->arrive[i] < de + 1 + j))
				s->arrive[i] = de + 1 + j;
		}
	} else if (c == 1) { /* the next LOAD may start */
		modq *mq = &s->q[M_LOAD];
		s->lp_i[s->lp_tail] = mq->idx[mq->pos];
		s->lp_t[2 * s->lp_tail] = de + b->post;
		s->lp_t[2 * s->lp_tail + 1] = mq->started;
		s->lp_tail++;
		x->wpos = de + b->post;
		mq->pos++;
		mq->busy = 0;
		next_arrives(s, mq, s->now + 1);
		x->nb = 0;
	} else {
		modq *mq = &s->q[M_COMPUTE];
		mq->busy = 1;
		mq->t = de + b->post;
		x->nb = 0;
	}
}

/* The read engine issues one burst address a cycle, round robin between
 * its clients. 1 if it issued one. */
static int engine_issue(sim *s)
{
	const vc_timing *tm = s->tm;
	int64_t now = s->now;
	if (s->ar_free > now || s->n_inflight >= tm->bursts_in_flight)
		return 0;
	for (int k = 1; k <= 3; k++) {
		int c = (s->rr + k) % 3;
		client *x = &s->cl[c];
		if (x->next >= x->nb || x->ready > now)
			continue;
		int starts_group = c == 0 && (x->next == 0 || x->b[x->next - 1].last);
		if (starts_group && s->fetch_started - s->fetch_done >= tm->fetch_in_flight)
			continue; /* the fetch buffer has no room for another group */
		burst *b = &x->b[x->next++];
		int64_t ds = now + tm->dram_latency;
		if (ds < s->r_free)
			ds = s->r_free;
		if (c && b->row_first) /* the SRAM side writes the pads before it takes data */
			x->wpos += b->pre;
		if (c && ds < x->wpos)
			ds = x->wpos;
		int64_t de = ds + b->take;
		s->r_free = de;
		s->inflight[s->n_inflight++] = de;
		s->out->dma_beats += b->beats;
		if (c)
			x->wpos = de;
		s->ar_free = now + 1;
		s->rr = c;
		if (starts_group)
			s->fetch_started++;
		if (b->last)
			request_issued(s, c, b, de);
		return 1;
	}
	return 0;
}

/* Everything that can happen at the current cycle, once; 1 if anything did. */
static int step(sim *s)
{
	int progress = 0;
	for (int m = M_LOAD; m <= M_STORE; m++) {
		modq *mq = &s->q[m];
		if (mq->pos >= mq->n || mq->busy == 2)
			continue;
		if (mq->busy == 0)
			progress |= try_start(s, m);
		else if (mq->busy == 1)
			progress |= try_finish(s, m);
	}
	while (s->lp_head < s->lp_tail && s->lp_t[2 * s->lp_head] <= s->now) { /* a LOAD's data is in */
		int64_t end = s->lp_t[2 * s->lp_head] + s->tm->insn_end;
		retire(s, M_LOAD, s->lp_i[s->lp_head], end);
		s->out->load_busy += end - s->lp_t[2 * s->lp_head + 1];
		s->lp_head++;
		progress = 1;
	}
	if (s->bg >= 0 && s->bg_end <= s->now) { /* the GEMM unit's instruction ends */
		retire(s, M_COMPUTE, s->bg, s->bg_end);
		s->out->gemm_busy += s->bg_end - s->bg_start;
		s->bg = -1;
		progress = 1;
	}
	while (s->fetch_done < s->fetch_started && s->gdone[s->fetch_done] && s->gdone[s->fetch_done] <= s->now) {
		s->fetch_done++;
		progress = 1;
	}
	while (s->n_inflight && s->inflight[0] <= s->now) { /* bursts that have returned */
		memmove(s->inflight, s->inflight + 1, (size_t)(s->n_inflight - 1) * sizeof *s->inflight);
		s->n_inflight--;
		progress = 1;
	}
	return engine_issue(s) | progress;
}

static void earliest(int64_t t, int64_t now, int64_t *next)
{
	if (t > now && t < *next)
		*next = t;
}

/* The next cycle at which something can happen; INT64_MAX: none (a deadlock). */
static int64_t next_event(const sim *s)
{
	int64_t now = s->now, next = INT64_MAX;
	for (int m = M_LOAD; m <= M_STORE; m++) {
		const modq *mq = &s->q[m];
		if (mq->pos >= mq->n)
			continue;
		if (mq->busy == 1)
			earliest(mq->t, now, &next);
		if (mq->busy == 0)
			earliest(s->arrive[mq->idx[mq->pos]], now, &next);
	}
	if (s->lp_head < s->lp_tail)
		earliest(s->lp_t[2 * s->lp_head], now, &next);
	if (s->bg >= 0) {
		earliest(s->bg_end, now, &next);
		earliest(s->bg_safe, now, &next);
	}
	for (int j = 0; j < VTA_Q_COUNT; j++)
		if (s->popped[j] < s->pushed[j])
			earliest(s->push_t[j][s->popped[j]], now, &next);
	for (int c = 0; c < 3; c++)
		if (s->cl[c].next < s->cl[c].nb) {
			int64_t t = s->cl[c].ready > s->ar_free ? s->cl[c].ready : s->ar_free;
			if (s->n_inflight >= s->tm->bursts_in_flight && s->inflight[0] > t)
				t = s->inflight[0];
			earliest(t, now, &next);
		}
	if (s->n_inflight)
		earliest(s->inflight[0], now, &next);
	if (s->fetch_done < s->fetch_started)
		earliest(s->gdone[s->fetch_done], now, &next);
	return next;
}

int vc_cost_run(const vc_timing *tm, const vta_insn_t *code, int n, const uint32_t *uop_dram, int64_t n_uop_dram,
		vc_cost *out, vc_cost_event *ev)
{
	memset(out, 0, sizeof *out);
	sim s;
	memset(&s, 0, sizeof s);
	s.tm = tm;
	s.code = code;
	s.n = n;
	s.out = out;
	s.ev = ev;
	if (sim_alloc(&s)) {
		sim_free(&s);
		return -1;
	}
	sim_prepare(&s, uop_dram, n_uop_dram);
	for (;;) {
		while (step(&s))
			;
		if (s.finished)
			break;
		int64_t next = next_event(&s);
		if (next == INT64_MAX) { /* nothing can happen: a deadlock */
			out->cycles = -1;
			break;
		}
		s.now = next;
	}
	sim_free(&s);
	return 0;
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
