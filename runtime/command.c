/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The instruction queue (VTA-SPEC 7.4): loads and stores, automatic
 * dependency tokens, the synchronize epilogue, the FORCE_SERIAL rewrite and
 * the instruction dump.
 *
 * Instructions are kept encoded (16 bytes each); the dependency logic only
 * flips the four flag bits, which lie at the same place in every format.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { STAGE_NONE = 0, STAGE_LOAD = 1, STAGE_COMPUTE = 2, STAGE_STORE = 3 };

#define BIT(lsb) ((uint64_t)1 << (lsb))
#define POP_PREV BIT(VTA_MEM_POP_PREV_LSB)
#define POP_NEXT BIT(VTA_MEM_POP_NEXT_LSB)
#define PUSH_PREV BIT(VTA_MEM_PUSH_PREV_LSB)
#define PUSH_NEXT BIT(VTA_MEM_PUSH_NEXT_LSB)

/* The runtime's instruction array may hold this many words. */
#define MAX_INSNS ((size_t)VTA_MAX_XFER / VTA_INS_ELEM_BYTES)

struct Cmdq {
	vta_insn_word_t *w;
	size_t n, cap;
	uint8_t pend_prev[4], pend_next[4]; /* per stage 1..3 */
	int debug;
	int poisoned;              /* an error happened while queuing */
	vta_error_t poison;        /* the first one */
	size_t insn_off, insn_len; /* DMA block for the stream */
	int have_insn_buf;
	size_t last_n;             /* instructions of the last synchronize */
	size_t *pins;              /* blocks the queued program references */
	size_t npins, cappins;
};

Cmdq *cmd_create(void) { return calloc(1, sizeof(Cmdq)); }

int cmd_debug(const vta_context_t *ctx) { return rt_cmdq(ctx)->debug; }

void cmd_poison(vta_context_t *ctx)
{
	Cmdq *q = rt_cmdq(ctx);
	if (!q->poisoned) {
		q->poisoned = 1;
		q->poison = *rt_last_error(ctx);
	}
}

int cmd_pin(vta_context_t *ctx, size_t off)
{
	Cmdq *q = rt_cmdq(ctx);
	for (size_t i = q->npins, k = 0; i > 0 && k < 4; i--, k++)
		if (q->pins[i - 1] == off)
			return VTA_OK;
	if (q->npins == q->cappins) {
		size_t cap = q->cappins ? 2 * q->cappins : 16;
		size_t *a = realloc(q->pins, cap * sizeof *a);
		if (!a)
			return VTA_ENOMEM;
		q->pins = a;
		q->cappins = cap;
	}
	q->pins[q->npins++] = off;
	mem_pin(rtdev_mem(rt_dev(ctx)), off, 1);
	return VTA_OK;
}

static void unpin_all(vta_context_t *ctx)
{
	Cmdq *q = rt_cmdq(ctx);
	if (!q->npins)
		return;
	Mem *m = rtdev_mem(rt_dev(ctx));
	mem_lock(m);
	for (size_t i = 0; i < q->npins; i++)
		mem_pin(m, q->pins[i], -1);
	mem_unlock(m);
	q->npins = 0;
}

static unsigned field(const vta_insn_word_t *w, int lsb, int width)
{
	uint64_t word = w->w[lsb / 64];
	return (unsigned)((word >> (lsb % 64)) & ((1ull << width) - 1));
}

/* Stage of an instruction for merging pushes: a LOAD with x_size 0 belongs
 * to none (by_type 0) or to the stage of its memory type (by_type 1). */
static int word_stage(const vta_insn_word_t *w, int by_type)
{
	unsigned op = field(w, VTA_MEM_OPCODE_LSB, VTA_MEM_OPCODE_WIDTH);
	if (op == VTA_OPCODE_STORE)
		return STAGE_STORE;
	if (op != VTA_OPCODE_LOAD)
		return STAGE_COMPUTE;
	if (!by_type && field(w, VTA_MEM_X_SIZE_LSB, VTA_MEM_X_SIZE_WIDTH) == 0)
		return STAGE_NONE;
	unsigned mt = field(w, VTA_MEM_MEMORY_TYPE_LSB, VTA_MEM_MEMORY_TYPE_WIDTH);
	return mt == VTA_MEM_ID_INP || mt == VTA_MEM_ID_WGT ? STAGE_LOAD : STAGE_COMPUTE;
}

static int append(vta_context_t *ctx, const vta_insn_word_t *w)
{
	Cmdq *q = rt_cmdq(ctx);
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 256;
		vta_insn_word_t *a = realloc(q->w, cap * sizeof *a);
		if (!a)
			return rt_fail(ctx, VTA_ENOMEM, "out of host memory for the instruction queue");
		q->w = a;
		q->cap = cap;
	}
	q->w[q->n++] = *w;
	rt_count_insns(ctx, 1);
	return VTA_OK;
}

int cmd_emit(vta_context_t *ctx, int stage, vta_insn_t *in)
{
	Cmdq *q = rt_cmdq(ctx);
	in->pop_prev = q->pend_prev[stage];
	in->pop_next = q->pend_next[stage];
	vta_insn_word_t w;
	vta_error_t err;
	if (vta_insn_encode(in, &w, &err))
		return rt_fail(ctx, err.code, "cannot encode %s: %s", vta_opcode_name(in->opcode), err.msg);
	q->pend_prev[stage] = q->pend_next[stage] = 0;
	return append(ctx, &w);
}

/* A no-op carrying only tokens: LOAD INP, LOAD UOP or STORE with x_size 0. */
static int emit_nop(vta_context_t *ctx, int stage, int push_prev, int push_next)
{
	vta_insn_t in = {0};
	in.opcode = stage == STAGE_STORE ? VTA_OPCODE_STORE : VTA_OPCODE_LOAD;
	in.memory_type = stage == STAGE_LOAD ? VTA_MEM_ID_INP : VTA_MEM_ID_UOP;
	in.push_prev = (uint32_t)push_prev;
	in.push_next = (uint32_t)push_next;
	return cmd_emit(ctx, stage, &in);
}

static int check_qids(vta_context_t *ctx, const char *fn, int from, int to)
{
	if (from < 1 || from > 3 || to < 1 || to > 3 || from == to)
		return rt_fail(ctx, VTA_EINVAL, "%s(%d, %d): queue ids are 1 (load), 2 (compute), 3 (store)"
			       " and must differ", fn, from, to);
	if ((from == 1 && to == 3) || (from == 3 && to == 1))
		return rt_fail(ctx, VTA_EINVAL, "%s(%d, %d): there is no token queue between load and store",
			       fn, from, to);
	return VTA_OK;
}

static int dep_pop(vta_context_t *ctx, int from, int to)
{
	Cmdq *q = rt_cmdq(ctx);
	uint8_t *flag = from < to ? &q->pend_prev[to] : &q->pend_next[to];
	if (*flag) {
		int rc = emit_nop(ctx, to, 0, 0);
		if (rc)
			return rc;
	}
	*flag = 1;
	return VTA_OK;
}

static int dep_push(vta_context_t *ctx, int from, int to)
{
	Cmdq *q = rt_cmdq(ctx);
	if (q->pend_prev[from] || q->pend_next[from]) {
		int rc = emit_nop(ctx, from, 0, 0);
		if (rc)
			return rc;
	}
	uint64_t flag = from < to ? PUSH_NEXT : PUSH_PREV;
	if (q->n && word_stage(&q->w[q->n - 1], 0) == from && !(q->w[q->n - 1].w[0] & flag)) {
		q->w[q->n - 1].w[0] |= flag;
		return VTA_OK;
	}
	return emit_nop(ctx, from, from > to, from < to);
}

int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid)
{
	vta_context_t *ctx = rt_cmd(cmd, "VTADepPush");
	if (!ctx)
		return VTA_EINVAL;
	int rc = check_qids(ctx, "VTADepPush", from_qid, to_qid);
	if (!rc)
		rc = dep_push(ctx, from_qid, to_qid);
	return rc ? rc : cmd_check_overflow(ctx);
}

int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid)
{
	vta_context_t *ctx = rt_cmd(cmd, "VTADepPop");
	if (!ctx)
		return VTA_EINVAL;
	int rc = check_qids(ctx, "VTADepPop", from_qid, to_qid);
	if (!rc)
		rc = dep_pop(ctx, from_qid, to_qid);
	return rc ? rc : cmd_check_overflow(ctx);
}

void VTASetDebugMode(VTACommandHandle cmd, int debug_flag)
{
	vta_context_t *ctx = rt_cmd(cmd, "VTASetDebugMode");
	if (ctx)
		rt_cmdq(ctx)->debug = debug_flag;
}

/* ---- Loads and stores ---------------------------------------------------- */

/* dram_base of element elem_offset of a buffer, checking that the whole
 * 2-D region lies inside the buffer and the address is element-aligned; the
 * buffer is kept until the program has run. */
static int dram_region(vta_context_t *ctx, const char *fn, const void *handle, uint32_t type,
		       uint32_t elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride,
		       uint32_t *dram_base)
{
	uint32_t eb = vta_mem_elem_bytes(type);
	if (!eb)
		return rt_fail(ctx, VTA_EINVAL, "%s: memory type %" PRIu32 " is not UOP, WGT, INP, ACC, "
			       "OUT or ACC_8BIT", fn, type);
	RtDev *d = rt_dev(ctx);
	Mem *m = rtdev_mem(d);
	MemBlock b;
	size_t size;
	mem_lock(m);
	if (mem_handle(m, handle, &b, &size) < 0) {
		mem_unlock(m);
		RtDev *other = rtdev_of_handle(handle);
		if (other) {
			const char *name = rtdev_dev(other)->be->name;
			rtdev_release(other);
			return rt_fail(ctx, VTA_EINVAL, "%s: buffer %p belongs to the %s device, not to "
				       "this context's %s device", fn, handle, name, rtdev_dev(d)->be->name);
		}
		return rt_fail(ctx, VTA_EINVAL, "%s: %p is not a live buffer handle from VTABufferAlloc "
			       "(freed?)", fn, handle);
	}
	uint64_t pa = rtdev_dev(d)->dram_pa + b.off;
	int rc = VTA_OK;
	if (pa % eb)
		rc = rt_fail(ctx, VTA_EINVAL, "%s: buffer address 0x%" PRIX64 " is not aligned to the "
			     "%" PRIu32 "-byte %s element", fn, pa, eb, vta_mem_name(type));
	uint64_t last = (uint64_t)elem_offset + (uint64_t)(y_size ? y_size - 1 : 0) * x_stride + x_size;
	if (!rc && x_size && y_size && last * eb > size)
		rc = rt_fail(ctx, VTA_ERANGE, "%s: %" PRIu32 "x%" PRIu32 " %s elements (stride %"
			     PRIu32 ") from element %" PRIu32 " need %" PRIu64 " bytes, but the "
			     "buffer has %zu", fn, y_size, x_size, vta_mem_name(type), x_stride,
			     elem_offset, last * eb, size);
	uint64_t base = pa / eb + elem_offset;
	if (!rc && base > UINT32_MAX)
		rc = rt_fail(ctx, VTA_ERANGE, "%s: DRAM element index 0x%" PRIX64 " needs more than 32 bits",
			     fn, base);
	if (!rc && cmd_pin(ctx, b.off))
		rc = rt_fail(ctx, VTA_ENOMEM, "%s: out of host memory", fn);
	mem_unlock(m);
	*dram_base = (uint32_t)base;
	return rc;
}

void VTALoadBuffer2D(VTACommandHandle cmd, void *src_dram_addr, uint32_t src_elem_offset,
		     uint32_t x_size, uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
		     uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
		     uint32_t dst_sram_index, uint32_t dst_memory_type)
{
	static const char fn[] = "VTALoadBuffer2D";
	vta_context_t *ctx = rt_cmd(cmd, fn);
	if (!ctx)
		return;
	vta_insn_t in = {0};
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = dst_memory_type;
	if (dst_memory_type == VTA_MEM_ID_OUT) {
		rt_fail(ctx, VTA_EINVAL, "%s: OUT cannot be loaded", fn);
		return;
	}
	if (dram_region(ctx, fn, src_dram_addr, dst_memory_type, src_elem_offset, x_size, y_size,
			x_stride, &in.dram_base))
		return;
	uint32_t depth = vta_mem_depth(dst_memory_type);
	uint64_t width = (uint64_t)x_pad_before + x_size + x_pad_after;
	uint64_t rows = (uint64_t)y_pad_before + y_size + y_pad_after;
	if (x_size && (uint64_t)dst_sram_index + width * rows > depth) {
		rt_fail(ctx, VTA_ERANGE, "%s: %" PRIu64 " %s elements at SRAM index %" PRIu32
			" (with padding) do not fit the %" PRIu32 "-element buffer", fn, width * rows,
			vta_mem_name(dst_memory_type), dst_sram_index, depth);
		return;
	}
	in.sram_base = dst_sram_index;
	in.x_size = x_size;
	in.y_size = y_size;
	in.x_stride = x_stride;
	in.x_pad_0 = x_pad_before;
	in.x_pad_1 = x_pad_after;
	in.y_pad_0 = y_pad_before;
	in.y_pad_1 = y_pad_after;
	int stage = dst_memory_type == VTA_MEM_ID_INP || dst_memory_type == VTA_MEM_ID_WGT
			    ? STAGE_LOAD
			    : STAGE_COMPUTE;
	if (!cmd_emit(ctx, stage, &in))
		cmd_check_overflow(ctx);
}

void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type,
		      void *dst_dram_addr, uint32_t dst_elem_offset, uint32_t x_size,
		      uint32_t y_size, uint32_t x_stride)
{
	static const char fn[] = "VTAStoreBuffer2D";
	vta_context_t *ctx = rt_cmd(cmd, fn);
	if (!ctx)
		return;
	if (src_memory_type != VTA_MEM_ID_OUT) {
		rt_fail(ctx, VTA_EINVAL, "%s: memory type %s cannot be stored (only out, VTA_MEM_ID_OUT)", fn,
			vta_mem_name(src_memory_type));
		return;
	}
	vta_insn_t in = {0};
	in.opcode = VTA_OPCODE_STORE;
	in.memory_type = src_memory_type;
	if (dram_region(ctx, fn, dst_dram_addr, src_memory_type, dst_elem_offset, x_size, y_size,
			x_stride, &in.dram_base))
		return;
	if ((uint64_t)src_sram_index + (uint64_t)x_size * y_size > VTA_OUT_BUFF_DEPTH) {
		rt_fail(ctx, VTA_ERANGE, "%s: %" PRIu32 "x%" PRIu32 " elements from SRAM index %" PRIu32
			" run past the %d-element OUT buffer", fn, y_size, x_size, src_sram_index,
			VTA_OUT_BUFF_DEPTH);
		return;
	}
	in.sram_base = src_sram_index;
	in.x_size = x_size;
	in.y_size = y_size;
	in.x_stride = x_stride;
	if (!cmd_emit(ctx, STAGE_STORE, &in))
		cmd_check_overflow(ctx);
}

/* ---- Synchronize --------------------------------------------------------- */

/* FORCE_SERIAL: rewrite every flag so that each instruction waits for the
 * one before it (VTA-SPEC 7.4), then the closing handshakes. */
static int serialize(vta_context_t *ctx)
{
	Cmdq *q = rt_cmdq(ctx);
	const uint64_t flags = POP_PREV | POP_NEXT | PUSH_PREV | PUSH_NEXT;
	for (size_t i = 0; i < q->n; i++)
		q->w[i].w[0] &= ~flags;
	memset(q->pend_prev, 0, sizeof q->pend_prev);
	memset(q->pend_next, 0, sizeof q->pend_next);
	for (size_t i = 0; i + 1 < q->n; i++) {
		int a = word_stage(&q->w[i], 1), b = word_stage(&q->w[i + 1], 1);
		if ((a == STAGE_LOAD && b == STAGE_COMPUTE) || (a == STAGE_COMPUTE && b == STAGE_STORE)) {
			q->w[i].w[0] |= PUSH_NEXT;
			q->w[i + 1].w[0] |= POP_PREV;
		} else if ((a == STAGE_COMPUTE && b == STAGE_LOAD) ||
			   (a == STAGE_STORE && b == STAGE_COMPUTE)) {
			q->w[i].w[0] |= PUSH_PREV;
			q->w[i + 1].w[0] |= POP_NEXT;
		}
	}
	int rc = VTA_OK;
	if (q->n) {
		int last = word_stage(&q->w[q->n - 1], 1);
		if (last == STAGE_STORE) {
			q->w[q->n - 1].w[0] |= PUSH_PREV;
			q->pend_next[STAGE_COMPUTE] = 1;
		} else if (last == STAGE_LOAD) {
			q->w[q->n - 1].w[0] |= PUSH_NEXT;
			q->pend_prev[STAGE_COMPUTE] = 1;
		}
	}
	/* compute -> load -> compute, so FINISH follows every load. */
	if (!rc)
		rc = emit_nop(ctx, STAGE_COMPUTE, 1, 0);
	if (!rc) {
		q->pend_next[STAGE_LOAD] = 1;
		rc = emit_nop(ctx, STAGE_LOAD, 0, 1);
	}
	if (!rc)
		q->pend_prev[STAGE_COMPUTE] = 1;
	return rc;
}

static const char *insn_kind(const vta_insn_word_t *w, char *buf, size_t n)
{
	vta_insn_t in;
	vta_insn_decode(w, &in);
	switch (in.opcode) {
	case VTA_OPCODE_LOAD:
	case VTA_OPCODE_STORE:
		if (in.x_size == 0) {
			int s = word_stage(w, 1);
			snprintf(buf, n, "%s", in.opcode == VTA_OPCODE_STORE ? "NOP-STORE-STAGE"
					       : s == STAGE_LOAD ? "NOP-MEMORY-STAGE" : "NOP-COMPUTE-STAGE");
		} else if (in.opcode == VTA_OPCODE_STORE) {
			snprintf(buf, n, "STORE");
		} else {
			static const char *names[] = {"UOP", "WGT", "INP", "ACC", "OUT", "ACC_8BIT", "?", "?"};
			snprintf(buf, n, "LOAD %s", names[in.memory_type & 7]);
		}
		break;
	case VTA_OPCODE_GEMM: snprintf(buf, n, "GEMM"); break;
	case VTA_OPCODE_ALU:
		snprintf(buf, n, "ALU %s%s", vta_alu_name(in.alu_opcode), in.use_imm ? " imm" : "");
		break;
	case VTA_OPCODE_FINISH: snprintf(buf, n, "FINISH"); break;
	default: snprintf(buf, n, "opcode %u", (unsigned)in.opcode); break;
	}
	return buf;
}

static void dump(vta_context_t *ctx)
{
	Cmdq *q = rt_cmdq(ctx);
	long tok[VTA_Q_COUNT] = {0};
	fprintf(stderr, "vta: %zu instructions\n", q->n);
	for (size_t i = 0; i < q->n; i++) {
		vta_insn_t in;
		vta_insn_decode(&q->w[i], &in);
		int m = vta_insn_module(&in);
		/* pops, then pushes, in the queues of the module (VTA-SPEC 4.3) */
		int pp = m == 1 ? -1 : m == 2 ? VTA_Q_L2G : VTA_Q_G2S;
		int pn = m == 1 ? VTA_Q_G2L : m == 2 ? VTA_Q_S2G : -1;
		int up = m == 1 ? -1 : m == 2 ? VTA_Q_G2L : VTA_Q_S2G;
		int un = m == 1 ? VTA_Q_L2G : m == 2 ? VTA_Q_G2S : -1;
		if (in.pop_prev && pp >= 0) tok[pp]--;
		if (in.pop_next && pn >= 0) tok[pn]--;
		if (in.push_prev && up >= 0) tok[up]++;
		if (in.push_next && un >= 0) tok[un]++;
		char kind[32], text[256];
		vta_insn_format(&in, text, sizeof text);
		fprintf(stderr, "INSTRUCTION %zu: %-18s %s\n", i, insn_kind(&q->w[i], kind, sizeof kind),
			text);
		fprintf(stderr, "\tl2g_queue = %ld, g2l_queue = %ld, s2g_queue = %ld, g2s_queue = %ld\n",
			tok[VTA_Q_L2G], tok[VTA_Q_G2L], tok[VTA_Q_S2G], tok[VTA_Q_G2S]);
	}
}

void cmd_reset(vta_context_t *ctx)
{
	Cmdq *q = rt_cmdq(ctx);
	q->n = 0;
	memset(q->pend_prev, 0, sizeof q->pend_prev);
	memset(q->pend_next, 0, sizeof q->pend_next);
	q->poisoned = 0;
	unpin_all(ctx);
	uop_reset_window(ctx);
}

void cmd_destroy(vta_context_t *ctx)
{
	Cmdq *q = rt_cmdq(ctx);
	if (!q)
		return;
	unpin_all(ctx);
	if (q->have_insn_buf)
		mem_free_off(rtdev_mem(rt_dev(ctx)), q->insn_off);
	free(q->w);
	free(q->pins);
	free(q);
}

/* Make sure the DMA block for the stream holds n instructions. */
static int insn_buffer(vta_context_t *ctx, size_t n)
{
	Cmdq *q = rt_cmdq(ctx);
	Mem *m = rtdev_mem(rt_dev(ctx));
	size_t bytes = n * VTA_INS_ELEM_BYTES;
	if (q->have_insn_buf && q->insn_len >= bytes)
		return VTA_OK;
	if (q->have_insn_buf) {
		mem_free_off(m, q->insn_off);
		q->have_insn_buf = 0;
	}
	size_t want = bytes < 65536 ? 65536 : bytes, off;
	vta_error_t err;
	if (mem_alloc(m, want, MEM_INTERNAL, "VTASynchronize", &off, &err))
		return rt_error(ctx, err.code, "%s", err.msg);
	q->insn_off = off;
	q->insn_len = (want + VTA_PAGE_BYTES - 1) / VTA_PAGE_BYTES * VTA_PAGE_BYTES;
	q->have_insn_buf = 1;
	return VTA_OK;
}

static int finish_stream(vta_context_t *ctx)
{
	Cmdq *q = rt_cmdq(ctx);
	int rc = VTA_OK;
	if (q->debug & VTA_DEBUG_FORCE_SERIAL) {
		rc = serialize(ctx);
	} else {
		rc = dep_push(ctx, STAGE_STORE, STAGE_COMPUTE);
		if (!rc)
			rc = dep_push(ctx, STAGE_LOAD, STAGE_COMPUTE);
		if (!rc)
			rc = dep_pop(ctx, STAGE_STORE, STAGE_COMPUTE);
		if (!rc)
			rc = dep_pop(ctx, STAGE_LOAD, STAGE_COMPUTE);
	}
	if (!rc && (q->pend_prev[STAGE_COMPUTE] || q->pend_next[STAGE_COMPUTE]))
		rc = emit_nop(ctx, STAGE_COMPUTE, 0, 0);
	if (!rc) {
		vta_insn_word_t fin = {{VTA_OPCODE_FINISH, 0}};
		rc = append(ctx, &fin);
	}
	return rc;
}

/* Check, copy into DMA memory and run the queued program; the queue is
 * empty afterwards whatever happened. */
static int run_queue(vta_context_t *ctx, uint32_t wait_cycles)
{
	Cmdq *q = rt_cmdq(ctx);
	RtDev *d = rt_dev(ctx);
	Mem *m = rtdev_mem(d);
	vta_error_t err;
	vta_error_clear(&err);
	int rc = finish_stream(ctx);
	if (!rc && q->n > MAX_INSNS)
		rc = rt_error(ctx, VTA_ERANGE, "VTASynchronize: %zu instructions exceed VTA_MAX_XFER", q->n);
	if (!rc && rt_check_tokens(q->w, q->n, &err))
		rc = rt_error_from(ctx, "VTASynchronize", &err);
	if (!rc)
		rc = insn_buffer(ctx, q->n);
	const uint32_t *uops = NULL;
	size_t uop_off = 0, nuops = rc ? 0 : uop_staged(ctx, &uops, &uop_off);
	if (rc) {
		cmd_reset(ctx);
		return rc;
	}
	uint8_t *dst = mem_cpu(m, q->insn_off, 0);
	for (size_t i = 0; i < q->n; i++)
		vta_insn_store(&q->w[i], dst + 16 * i);
	uint8_t *u = nuops ? mem_cpu(m, uop_off, 0) : NULL;
	for (size_t i = 0; i < nuops; i++) {
		uint32_t v = uops[i];
		u[4 * i] = (uint8_t)v;
		u[4 * i + 1] = (uint8_t)(v >> 8);
		u[4 * i + 2] = (uint8_t)(v >> 16);
		u[4 * i + 3] = (uint8_t)(v >> 24);
	}
	if (q->debug & VTA_DEBUG_DUMP_INSN)
		dump(ctx);
	size_t n = q->n;
	q->last_n = n;
	/* The run keeps what it touches; the queue's pins go after it. */
	rc = rtdev_run(d, rtdev_dev(d)->dram_pa + q->insn_off, (uint32_t)n, wait_cycles, &err);
	cmd_reset(ctx);
	if (rc)
		rt_error_from(ctx, "VTASynchronize", &err);
	return rc;
}

int vta_synchronize(VTACommandHandle cmd, uint32_t wait_cycles)
{
	vta_context_t *ctx = rt_cmd(cmd, "VTASynchronize");
	if (!ctx)
		return VTA_EINVAL;
	Cmdq *q = rt_cmdq(ctx);
	if (uop_recording(ctx))
		return rt_fail(ctx, VTA_EINVAL,
			       "VTASynchronize: called from a micro-op kernel callback");
	if (q->poisoned) {
		int code = q->poison.code ? q->poison.code : VTA_EINVAL;
		rt_error(ctx, code, "VTASynchronize: the program was discarded because an earlier call "
			 "failed: %s", q->poison.msg);
		cmd_reset(ctx);
		return code;
	}
	return run_queue(ctx, wait_cycles);
}

void VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles)
{
	(void)vta_synchronize(cmd, wait_cycles);
}

int vta_context_last_stream(vta_context_t *ctx, const uint8_t **bytes, size_t *count)
{
	Cmdq *q = ctx ? rt_cmdq(ctx) : NULL;
	if (!q || !q->have_insn_buf || !q->last_n)
		return VTA_EINVAL;
	*bytes = mem_cpu(rtdev_mem(rt_dev(ctx)), q->insn_off, 0);
	*count = q->last_n;
	return VTA_OK;
}

/* A token-only instruction appended as is (its stage's pending pops stay
 * pending): the consumer (pop) or producer (push) end of queue qu. */
static int raw_token(vta_context_t *ctx, int qu, int push)
{
	/* consumer stage, its pop flag; producer stage, its push flag */
	static const int cons[4][2] = {{STAGE_COMPUTE, VTA_MEM_POP_PREV_LSB},
				       {STAGE_LOAD, VTA_MEM_POP_NEXT_LSB},
				       {STAGE_STORE, VTA_MEM_POP_PREV_LSB},
				       {STAGE_COMPUTE, VTA_MEM_POP_NEXT_LSB}};
	static const int prod[4][2] = {{STAGE_LOAD, VTA_MEM_PUSH_NEXT_LSB},
				       {STAGE_COMPUTE, VTA_MEM_PUSH_PREV_LSB},
				       {STAGE_COMPUTE, VTA_MEM_PUSH_NEXT_LSB},
				       {STAGE_STORE, VTA_MEM_PUSH_PREV_LSB}};
	const int *e = push ? prod[qu] : cons[qu];
	vta_insn_t in = {0};
	in.opcode = e[0] == STAGE_STORE ? VTA_OPCODE_STORE : VTA_OPCODE_LOAD;
	in.memory_type = e[0] == STAGE_LOAD ? VTA_MEM_ID_INP : VTA_MEM_ID_UOP;
	vta_insn_word_t w;
	if (vta_insn_encode(&in, &w, NULL))
		return rt_fail(ctx, VTA_EINVAL, "cannot encode a token no-op");
	w.w[0] |= BIT(e[1]);
	return append(ctx, &w);
}

/* The queue is full: run what is queued now. Tokens pushed but not yet
 * popped are popped at the end of this part and pushed again at the start
 * of the next (the whole first part has finished by then, so the
 * dependency holds); pending pops stay pending. A program that pops a token
 * before the instruction that pushes it cannot be split there. A failure
 * poisons the program, so that its final VTASynchronize reports it. */
static int auto_sync(vta_context_t *ctx)
{
	Cmdq *q = rt_cmdq(ctx);
	if (q->poisoned) { /* it will be discarded: just make room */
		q->n = 0;
		return q->poison.code ? q->poison.code : VTA_EINVAL;
	}
	long bal[VTA_Q_COUNT];
	rt_token_balance(q->w, q->n, bal);
	for (int k = 0; k < VTA_Q_COUNT; k++)
		if (bal[k] < 0)
			return rt_fail(ctx, VTA_ETOKEN, "automatic synchronize after %zu instructions: the "
				       "program pops a token before the instruction that pushes it, so "
				       "it cannot be split here; synchronize more often", q->n);
	uint8_t prev[4], next[4];
	memcpy(prev, q->pend_prev, sizeof prev);
	memcpy(next, q->pend_next, sizeof next);
	memset(q->pend_prev, 0, sizeof q->pend_prev);
	memset(q->pend_next, 0, sizeof q->pend_next);
	int rc = VTA_OK;
	for (int k = 0; k < VTA_Q_COUNT && !rc; k++)
		for (long t = 0; t < bal[k] && !rc; t++)
			rc = raw_token(ctx, k, 0);
	if (!rc)
		rc = run_queue(ctx, 1u << 31);
	memcpy(q->pend_prev, prev, sizeof prev);
	memcpy(q->pend_next, next, sizeof next);
	for (int k = 0; k < VTA_Q_COUNT && !rc; k++)
		for (long t = 0; t < bal[k] && !rc; t++)
			rc = raw_token(ctx, k, 1);
	if (rc) {
		char why[VTA_ERROR_MSG_MAX];
		snprintf(why, sizeof why, "%s", rt_last_error(ctx)->msg);
		rt_error(ctx, rc, "automatic synchronize (the queue was full): %s", why);
		cmd_poison(ctx);
	}
	return rc;
}

int cmd_check_overflow(vta_context_t *ctx)
{
	if ((rt_cmdq(ctx)->n + 6) * VTA_INS_ELEM_BYTES > (size_t)VTA_MAX_XFER)
		return auto_sync(ctx);
	return VTA_OK;
}

int cmd_sync_for_room(vta_context_t *ctx) { return auto_sync(ctx); }
