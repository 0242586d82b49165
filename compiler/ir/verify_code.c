/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel and stream verifiers (run with the graph verifier by
 * --verify-each, docs/passes.md "Verifiers"). One checker walks a kernel's
 * instructions in program order, as the device would, and checks:
 *
 *   - every field fits its width (the instruction encodes);
 *   - DMA: SRAM ranges inside their buffer, DRAM ranges inside the operand
 *     (kernel level) or the device image and one segment (stream level);
 *   - micro-ops: each GEMM/ALU range inside the micro-op SRAM and filled by
 *     an earlier LOAD uop; every GEMM/ALU index (dst, src, wgt) inside its
 *     buffer for every micro-op and loop iteration;
 *   - stores only after the requantize clip: the values of every ACC row are
 *     tracked as an interval through the ALU; a stored row must lie within
 *     8 bits (int8 or uint8) or the OUT buffer would hold a wrapped value;
 *   - tokens: the four dependency queues legal for each module, every pop
 *     matched by a push (the three modules are run against each other with
 *     unbounded queues: a pop no push can satisfy is a deadlock), every
 *     queue empty at the end; then with the device's depths: fetch stuck
 *     behind a full instruction queue (a deadlock) and a token queue that
 *     some order of execution fills past its depth;
 *   - one FINISH, the last instruction.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <vta/bytes.h>

#include "ir/ir.h"
#include "ir/kernel.h"

/* An ACC row's values lie in [lo, hi] (int32: the full range is "unknown"). */
typedef struct span {
	int64_t lo, hi;
} span;

static const span UNKNOWN = {INT32_MIN, INT32_MAX};

static span clamp_span(int64_t lo, int64_t hi)
{
	if (lo < INT32_MIN || hi > INT32_MAX) /* the ACC wraps: nothing is known */
		return UNKNOWN;
	return (span){lo, hi};
}

static span alu_span(unsigned op, span a, span b, int imm_mode, int32_t imm)
{
	switch (op) {
	case VTA_ALU_OPCODE_MIN:
		return (span){a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
	case VTA_ALU_OPCODE_MAX:
		return (span){a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
	case VTA_ALU_OPCODE_ADD:
		return clamp_span(a.lo + b.lo, a.hi + b.hi);
	case VTA_ALU_OPCODE_SHR:
		if (!imm_mode)
			return UNKNOWN;
		if (imm >= 0)
			return (span){a.lo >> (imm & 31), a.hi >> (imm & 31)};
		return clamp_span(a.lo * ((int64_t)1 << ((-imm) & 31)), a.hi * ((int64_t)1 << ((-imm) & 31)));
	default:
		return UNKNOWN;
	}
}

/* Queues, named from the producer: load->compute, compute->load,
 * compute->store, store->compute. */
enum { Q_L2C, Q_C2L, Q_C2S, Q_S2C, NQ };
static const char *const queue_names[NQ] = {"load->compute", "compute->load", "compute->store", "store->compute"};

/* The queue an instruction of module mo pops (pushes) with its prev/next
 * flag; -1 when that flag is illegal for the module. */
static int pop_queue(vta_module_t mo, int next)
{
	switch (mo) {
	case VTA_MODULE_LOAD: return next ? Q_C2L : -1;
	case VTA_MODULE_COMPUTE: return next ? Q_S2C : Q_L2C;
	default: return next ? -1 : Q_C2S;
	}
}

static int push_queue(vta_module_t mo, int next)
{
	switch (mo) {
	case VTA_MODULE_LOAD: return next ? Q_L2C : -1;
	case VTA_MODULE_COMPUTE: return next ? Q_C2S : Q_C2L;
	default: return next ? -1 : Q_S2C;
	}
}

typedef struct checker {
	vc_module *m;
	const vc_kernel *k;
	const char *where; /* "kernel" or "stream: kernel" */
	const vta_insn_t *code;
	int n;
	const uint32_t *uops; /* the kernel's micro-ops */
	int64_t n_uops;
	int64_t uop_base; /* DRAM element of uops[0] as LOAD uop addresses it */
	int64_t *slot;    /* micro-op SRAM: index into uops, -1 never loaded */
	span *acc;        /* what each ACC row holds */
	int i;            /* the instruction being checked */
} checker;

static int fail(checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(checker *c, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	const vta_insn_t *in = &c->code[c->i];
	const char *op = in->opcode == VTA_OPCODE_ALU ? vta_alu_name(in->alu_opcode) : vta_opcode_name(in->opcode);
	return vc_error(c->m, c->k->node, "%s @k%d insn %d (%s%s): %s", c->where, c->k->id, c->i,
			in->opcode == VTA_OPCODE_ALU ? "alu " : "", op ? op : "?", text);
}

/* The last element a 2-D DMA touches in DRAM (x_size, y_size > 0). */
static int64_t dram_last(const vta_insn_t *in)
{
	return (int64_t)in->dram_base + (int64_t)(in->y_size - 1) * in->x_stride + in->x_size - 1;
}

static int check_dma(checker *c, const vta_insn_t *in)
{
	uint32_t depth = vta_mem_depth(in->memory_type);
	const char *mem = vta_mem_name(in->memory_type);
	if (!depth || !vta_mem_elem_bytes(in->memory_type))
		return fail(c, "memory type %u is not a buffer", in->memory_type);
	if (in->opcode == VTA_OPCODE_STORE && in->memory_type != VTA_MEM_ID_OUT)
		return fail(c, "stores from %s; only the OUT buffer is stored", mem);
	if (in->opcode == VTA_OPCODE_LOAD && in->memory_type == VTA_MEM_ID_OUT)
		return fail(c, "loads into the OUT buffer");
	if (!in->x_size || !in->y_size)
		return fail(c, "empty transfer (y=%u x=%u)", in->y_size, in->x_size);
	if (in->x_stride < in->x_size)
		return fail(c, "stride %u is below the row length %u", in->x_stride, in->x_size);
	int pads = in->y_pad_0 || in->y_pad_1 || in->x_pad_0 || in->x_pad_1;
	if (pads && (in->opcode == VTA_OPCODE_STORE || in->memory_type == VTA_MEM_ID_UOP))
		return fail(c, "padding on a %s transfer", in->opcode == VTA_OPCODE_STORE ? "store" : "micro-op");
	int64_t rows = (int64_t)in->y_pad_0 + in->y_size + in->y_pad_1;
	int64_t cols = (int64_t)in->x_pad_0 + in->x_size + in->x_pad_1;
	if ((int64_t)in->sram_base + rows * cols > depth)
		return fail(c, "%s SRAM rows %u..%" PRId64 " are past the end of the buffer (%u rows)", mem, in->sram_base,
			    (int64_t)in->sram_base + rows * cols - 1, depth);
	int64_t base = in->sram_base;
	if (in->memory_type == VTA_MEM_ID_UOP) {
		int64_t first = (int64_t)in->dram_base - c->uop_base, last = dram_last(in) - c->uop_base;
		if (first < 0 || last >= c->n_uops)
			return fail(c, "micro-ops %" PRId64 "..%" PRId64 " are outside the kernel's %" PRId64, first, last,
				    c->n_uops);
		for (int64_t y = 0; y < in->y_size; y++)
			for (int64_t x = 0; x < in->x_size; x++)
				c->slot[base + y * in->x_size + x] = first + y * in->x_stride + x;
	} else if (in->opcode == VTA_OPCODE_LOAD &&
		   (in->memory_type == VTA_MEM_ID_ACC || in->memory_type == VTA_MEM_ID_ACC_8BIT)) {
		for (int64_t r = 0; r < rows * cols; r++)
			c->acc[base + r] = in->memory_type == VTA_MEM_ID_ACC ? UNKNOWN : (span){INT8_MIN, INT8_MAX};
	} else if (in->opcode == VTA_OPCODE_STORE) {
		for (int64_t r = base; r < base + rows * cols; r++) {
			span s = c->acc[r];
			if (s.lo < INT8_MIN || s.hi > UINT8_MAX || s.hi - s.lo > UINT8_MAX) {
				char vals[64];
				if (s.lo == UNKNOWN.lo && s.hi == UNKNOWN.hi)
					snprintf(vals, sizeof vals, "any int32");
				else
					snprintf(vals, sizeof vals, "[%" PRId64 ",%" PRId64 "]", s.lo, s.hi);
				return fail(c, "stores ACC row %" PRId64 " before it is clipped to 8 bits (it may hold %s)",
					    r, vals);
			}
		}
	}
	return 0;
}

/* GEMM and ALU: the micro-op range, then every index of every iteration. */
static int check_compute(checker *c, const vta_insn_t *in)
{
	uint32_t uop_depth = vta_mem_depth(VTA_MEM_ID_UOP), acc_depth = vta_mem_depth(VTA_MEM_ID_ACC);
	uint32_t inp_depth = vta_mem_depth(VTA_MEM_ID_INP), wgt_depth = vta_mem_depth(VTA_MEM_ID_WGT);
	int gemm = in->opcode == VTA_OPCODE_GEMM;
	if (in->uop_bgn >= in->uop_end || in->uop_end > uop_depth)
		return fail(c, "micro-op range %u..%u is not inside the micro-op SRAM (%u)", in->uop_bgn, in->uop_end,
			    uop_depth);
	for (uint32_t s = in->uop_bgn; s < in->uop_end; s++) {
		if (c->slot[s] < 0)
			return fail(c, "uses micro-op slot %u, which no earlier LOAD uop filled", s);
		vta_uop_t u;
		vta_uop_decode(c->uops[c->slot[s]], &u);
		for (int64_t o = 0; o < in->iter_out; o++)
			for (int64_t q = 0; q < in->iter_in; q++) {
				int64_t dst = u.dst_idx + o * in->dst_factor_out + q * in->dst_factor_in;
				int64_t src = u.src_idx + o * in->src_factor_out + q * in->src_factor_in;
				int64_t wgt = u.wgt_idx + o * in->wgt_factor_out + q * in->wgt_factor_in;
				const char *bad = NULL;
				int64_t idx = 0, depth = 0;
				if (dst >= acc_depth)
					bad = "acc (dst)", idx = dst, depth = acc_depth;
				else if (gemm && !in->reset && src >= inp_depth)
					bad = "inp (src)", idx = src, depth = inp_depth;
				else if (gemm && !in->reset && wgt >= wgt_depth)
					bad = "wgt", idx = wgt, depth = wgt_depth;
				else if (!gemm && !in->use_imm && src >= acc_depth)
					bad = "acc (src)", idx = src, depth = acc_depth;
				if (bad)
					return fail(c,
						    "%s index %" PRId64 " at micro-op %u iteration (%" PRId64 ",%" PRId64
						    ") is past the end of the buffer (%" PRId64 " rows)",
						    bad, idx, s, o, q, depth);
				if (gemm)
					c->acc[dst] = in->reset ? (span){0, 0} : UNKNOWN;
				else
					c->acc[dst] = alu_span(in->alu_opcode, c->acc[dst],
							       in->use_imm ? (span){in->imm, in->imm} : c->acc[src],
							       in->use_imm, in->imm);
			}
	}
	return 0;
}

/* The device running a kernel (VTA-SPEC 4.3; docs/rtl.md "Queue depth"):
 * fetch dispatches in program order into the three modules' instruction
 * queues and waits while the next instruction's is full, whatever the other
 * modules need; each module executes its queue in order, an instruction once
 * the tokens it pops are there. Instructions take no time here, so every state
 * this model reaches, the device reaches under some timing. Bounded: queues of
 * VTA_INSN_QUEUE_DEPTH instructions (a module's waiting one included) and
 * VTA_TOKEN_QUEUE_DEPTH tokens; unbounded: neither limit. */
typedef struct device {
	const checker *c;
	const int *order; /* per module, its instructions in program order (n each) */
	int insn_depth;
	int64_t token_depth;
	int fetched;   /* instructions dispatched */
	int queued[3]; /* per module: dispatched */
	int done[3];   /* per module: executed */
	int64_t q[NQ]; /* tokens in each queue */
	int over;      /* the first instruction that pushed past token_depth, or -1 */
	int over_q;
} device;

static device dev_new(const checker *c, const int *order, int bounded)
{
	return (device){.c = c, .order = order, .insn_depth = bounded ? VTA_INSN_QUEUE_DEPTH : INT32_MAX,
			.token_depth = bounded ? VTA_TOKEN_QUEUE_DEPTH : INT64_MAX, .over = -1};
}

/* The queue the next instruction of module mo waits for, -1 if it can run. */
static int dev_waits(const device *d, int mo)
{
	const vta_insn_t *in = &d->c->code[d->order[mo * d->c->n + d->done[mo]]];
	vta_module_t md = (vta_module_t)(mo + 1);
	int pp = in->pop_prev ? pop_queue(md, 0) : -1, pn = in->pop_next ? pop_queue(md, 1) : -1;
	return pp >= 0 && d->q[pp] == 0 ? pp : pn >= 0 && d->q[pn] == 0 ? pn : -1;
}

static int dev_step(device *d, int mo, int cap)
{
	if (d->done[mo] >= d->queued[mo] || d->done[mo] >= cap || dev_waits(d, mo) >= 0)
		return 0;
	int i = d->order[mo * d->c->n + d->done[mo]];
	const vta_insn_t *in = &d->c->code[i];
	vta_module_t md = (vta_module_t)(mo + 1);
	for (int j = 0; j < 2; j++) { /* legal queues only (check_code) */
		int k = (j ? in->pop_next : in->pop_prev) ? pop_queue(md, j) : -1;
		if (k >= 0)
			d->q[k]--;
	}
	for (int j = 0; j < 2; j++) {
		int k = (j ? in->push_next : in->push_prev) ? push_queue(md, j) : -1;
		if (k >= 0 && ++d->q[k] > d->token_depth && d->over < 0)
			d->over = i, d->over_q = k;
	}
	d->done[mo]++;
	return 1;
}

/* Run until nothing moves, module `held` executing at most `cap` instructions. */
static void dev_run(device *d, int held, int cap)
{
	for (int progress = 1; progress;) {
		progress = 0;
		while (d->fetched < d->c->n) {
			int mo = (int)vta_insn_module(&d->c->code[d->fetched]) - 1;
			if (d->queued[mo] - d->done[mo] >= d->insn_depth)
				break;
			d->queued[mo]++;
			d->fetched++;
			progress = 1;
		}
		for (int mo = 0; mo < 3; mo++)
			while (dev_step(d, mo, mo == held ? cap : INT32_MAX))
				progress = 1;
	}
}

static const char *const module_names[3] = {"load", "compute", "store"};

/* The consumer of each queue and the flag it pops with. */
static const struct {
	int mo, next;
} consumer[NQ] = {{1, 0}, {0, 1}, {2, 0}, {1, 1}};

/* With the device's depths (after the unbounded run finished). */
static int check_depths(checker *c, const int *order, const int *cnt)
{
	device d;
	/* A token queue is fullest when its consumer is slowest: per queue, hold
	 * the consumer before each of its pops in turn and let the rest run (the
	 * states only grow, so one pass per queue). */
	for (int k = 0; k < NQ; k++) {
		d = dev_new(c, order, 1);
		int mo = consumer[k].mo;
		for (int p = 0; p <= cnt[mo] && d.over < 0; p++) {
			const vta_insn_t *in = p < cnt[mo] ? &c->code[order[mo * c->n + p]] : NULL;
			if (!in || (consumer[k].next ? in->pop_next : in->pop_prev))
				dev_run(&d, mo, p);
		}
		if (d.over >= 0) {
			c->i = d.over;
			return fail(c,
				    "pushes a %s token while the queue may already hold %d (its depth): the %s module "
				    "can run that far ahead of the %s module's pops",
				    queue_names[d.over_q], VTA_TOKEN_QUEUE_DEPTH,
				    module_names[(int)vta_insn_module(&c->code[d.over]) - 1], module_names[mo]);
		}
	}
	if (d.fetched == c->n)
		return 0;
	/* Unbounded queues finish, so fetch waits on a full one. */
	c->i = d.fetched;
	int mo = (int)vta_insn_module(&c->code[d.fetched]) - 1, qq = dev_waits(&d, mo);
	return fail(c,
		    "fetch cannot dispatch it: the %s queue is full (%d instructions) and its first, insn %d, waits "
		    "for a %s token that only instructions behind this one push (deadlock on a full queue)",
		    module_names[mo], VTA_INSN_QUEUE_DEPTH, order[mo * c->n + d.done[mo]],
		    qq >= 0 ? queue_names[qq] : "?");
}

/* The three modules run against each other with unbounded queues, then with
 * the device's depths. */
static int check_tokens(checker *c)
{
	int *order = malloc((size_t)(c->n ? c->n : 1) * 3 * sizeof *order), cnt[3] = {0};
	if (!order)
		return vc_error(c->m, c->k->node, "verifier: out of memory");
	for (int i = 0; i < c->n; i++) {
		int mo = (int)vta_insn_module(&c->code[i]) - 1;
		order[mo * c->n + cnt[mo]++] = i;
	}
	device d = dev_new(c, order, 0);
	dev_run(&d, -1, 0);
	int rc = 0;
	for (int mo = 0; mo < 3 && !rc; mo++)
		if (d.done[mo] < cnt[mo]) {
			c->i = order[mo * c->n + d.done[mo]];
			int qq = dev_waits(&d, mo);
			rc = fail(c, "waits for a %s token that no instruction pushes (deadlock)",
				  qq >= 0 ? queue_names[qq] : "?");
		}
	for (int k = 0; k < NQ && !rc; k++)
		if (d.q[k]) {
			c->i = c->n - 1;
			rc = fail(c, "the kernel ends with %" PRId64 " %s token%s pushed and never popped", d.q[k],
				  queue_names[k], d.q[k] > 1 ? "s" : "");
		}
	if (!rc)
		rc = check_depths(c, order, cnt);
	free(order);
	return rc;
}

static int check_code(checker *c)
{
	for (c->i = 0; c->i < c->n; c->i++) {
		const vta_insn_t *in = &c->code[c->i];
		vta_insn_word_t w;
		vta_error_t err;
		if (vta_insn_encode(in, &w, &err))
			return fail(c, "%s", err.msg);
		vta_module_t mo = vta_insn_module(in);
		if ((in->pop_prev && pop_queue(mo, 0) < 0) || (in->pop_next && pop_queue(mo, 1) < 0) ||
		    (in->push_prev && push_queue(mo, 0) < 0) || (in->push_next && push_queue(mo, 1) < 0))
			return fail(c, "a %s-module instruction cannot use the %s%s queue",
				    mo == VTA_MODULE_LOAD ? "load" : "store", in->pop_prev || in->pop_next ? "pop_" : "push_",
				    in->pop_prev || in->push_prev ? "prev" : "next");
		if (in->opcode == VTA_OPCODE_FINISH && c->i != c->n - 1)
			return fail(c, "FINISH before the end of the kernel (%d instructions)", c->n);
		switch (in->opcode) {
		case VTA_OPCODE_LOAD:
		case VTA_OPCODE_STORE:
			if (check_dma(c, in))
				return -1;
			break;
		case VTA_OPCODE_GEMM:
		case VTA_OPCODE_ALU:
			if (check_compute(c, in))
				return -1;
			break;
		case VTA_OPCODE_FINISH:
			break;
		default:
			return fail(c, "reserved opcode %u", in->opcode);
		}
	}
	if (c->n && c->code[c->n - 1].opcode != VTA_OPCODE_FINISH) {
		c->i = c->n - 1;
		return fail(c, "the kernel does not end with FINISH");
	}
	return check_tokens(c);
}

static int run_checker(checker *c)
{
	uint32_t ud = vta_mem_depth(VTA_MEM_ID_UOP), ad = vta_mem_depth(VTA_MEM_ID_ACC);
	c->slot = malloc(ud * sizeof *c->slot);
	c->acc = malloc(ad * sizeof *c->acc);
	int rc;
	if (!c->slot || !c->acc)
		rc = vc_error(c->m, c->k->node, "verifier: out of memory");
	else {
		for (uint32_t s = 0; s < ud; s++)
			c->slot[s] = -1;
		for (uint32_t r = 0; r < ad; r++)
			c->acc[r] = UNKNOWN;
		rc = check_code(c);
	}
	free(c->slot);
	free(c->acc);
	return rc;
}

/* The operand a kernel DMA addresses (VC_ARG_*), or NULL. */
static const vc_node *operand(const vc_kernel *k, int arg)
{
	const vc_node *n = k->node;
	switch (arg) {
	case VC_ARG_INP: return n->in[0];
	case VC_ARG_WGT: return n->in[1];
	case VC_ARG_BIAS: return n->in[2];
	case VC_ARG_OUT: return n;
	case VC_ARG_RES: return n->n_in > 3 ? n->in[3] : NULL;
	default: return NULL;
	}
}

int vc_verify_kernel(vc_module *m, const vc_kernel *k)
{
	if (!k->n)
		return 0;
	vta_insn_t *code = malloc((size_t)k->n * sizeof *code);
	if (!code)
		return vc_error(m, k->node, "verifier: out of memory");
	checker c = {.m = m, .k = k, .where = "kernel", .code = code, .n = k->n, .uops = k->uops, .n_uops = k->n_uops};
	int rc = 0;
	for (c.i = 0; c.i < k->n && !rc; c.i++) {
		const vc_kinsn *ki = &k->code[c.i];
		code[c.i] = ki->insn;
		int dma = ki->insn.opcode == VTA_OPCODE_LOAD || ki->insn.opcode == VTA_OPCODE_STORE;
		if (!dma || !ki->insn.x_size || !ki->insn.y_size)
			continue; /* check_code names what is wrong */
		uint32_t eb = vta_mem_elem_bytes(ki->insn.memory_type);
		if (ki->arg == VC_ARG_UOP) {
			/* the kernel's constant words: micro-ops, or a block loaded into another
			 * buffer from them (the residual GEMM's identity weights) */
			if (ki->insn.memory_type != VTA_MEM_ID_UOP && eb &&
			    (dram_last(&ki->insn) + 1) * eb > (int64_t)k->n_uops * 4)
				rc = fail(&c, "%s elements %u..%" PRId64 " are past the kernel's %d constant words",
					  vta_mem_name(ki->insn.memory_type), ki->insn.dram_base, dram_last(&ki->insn),
					  k->n_uops);
			continue;
		}
		const vc_node *t = operand(k, ki->arg);
		if (!t) {
			rc = fail(&c, "a transfer without an operand (arg %d)", ki->arg);
			continue;
		}
		int64_t bytes = (int64_t)vc_type_bytes(&t->type);
		if (eb && (dram_last(&ki->insn) + 1) * eb > bytes)
			rc = fail(&c, "DRAM elements %u..%" PRId64 " are past the end of operand %s %%%d (%" PRId64 " bytes)",
				  ki->insn.dram_base, dram_last(&ki->insn), vc_kernel_arg_name(ki->arg), t->id, bytes);
	}
	if (!rc)
		rc = run_checker(&c);
	free(code);
	return rc;
}

int vc_verify_stream(vc_module *m)
{
	const vc_stream *s = m->stream;
	if (!s)
		return 0;
	for (int kk = 0; kk < m->n_kernels; kk++) {
		const vc_kernel *k = m->kernels[kk];
		int64_t ib = 16 * k->insn_count, ub = 4 * (int64_t)k->n_uops;
		if (k->insn_count <= 0 || k->insn_off < 0 || k->insn_off + ib > s->size || !vc_in_one_segment(k->insn_off, ib))
			return vc_error(m, k->node,
					"stream: kernel @k%d: %" PRId64 " instructions at %" PRId64
					" are not inside one segment of the %" PRId64 "-byte image",
					k->id, k->insn_count, k->insn_off, s->size);
		if (k->uop_off < 0 || k->uop_off % 4 || k->uop_off + ub > s->size || !vc_in_one_segment(k->uop_off, ub))
			return vc_error(m, k->node, "stream: kernel @k%d: %d micro-ops at %" PRId64 " are not inside one segment of the image",
					k->id, k->n_uops, k->uop_off);
		vta_insn_t *code = malloc((size_t)k->insn_count * sizeof *code);
		uint32_t *uops = malloc((size_t)(k->n_uops ? k->n_uops : 1) * 4);
		if (!code || !uops) {
			free(code);
			free(uops);
			return vc_error(m, k->node, "verifier: out of memory");
		}
		for (int i = 0; i < k->n_uops; i++) {
			const uint8_t *p = s->image + k->uop_off + 4 * i;
			uops[i] = vta_rd_le32(p);
		}
		checker c = {.m = m, .k = k, .where = "stream: kernel", .code = code, .n = (int)k->insn_count,
			     .uops = uops, .n_uops = k->n_uops, .uop_base = k->uop_off / 4};
		int rc = 0;
		for (c.i = 0; c.i < c.n && !rc; c.i++) {
			vta_insn_word_t w;
			vta_insn_load(s->image + k->insn_off + 16 * c.i, &w);
			vta_insn_decode(&w, &code[c.i]);
			const vta_insn_t *in = &code[c.i];
			uint32_t eb = vta_mem_elem_bytes(in->memory_type);
			if ((in->opcode != VTA_OPCODE_LOAD && in->opcode != VTA_OPCODE_STORE) || !eb || !in->x_size ||
			    !in->y_size || in->memory_type == VTA_MEM_ID_UOP)
				continue;
			int64_t first = (int64_t)in->dram_base * eb, end = (dram_last(in) + 1) * eb;
			if (end > s->size || !vc_in_one_segment(first, end - first))
				rc = fail(&c, "DRAM bytes %" PRId64 "..%" PRId64 " are not inside one segment of the %" PRId64
					      "-byte image", first, end - 1, s->size);
		}
		if (!rc)
			rc = run_checker(&c);
		free(code);
		free(uops);
		if (rc)
			return rc;
	}
	return 0;
}
