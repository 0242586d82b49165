/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The instruction queue (cmdq.h, VTA-SPEC 7.4).
 *
 * Instructions are kept encoded (16 bytes each); the dependency logic only
 * flips the four flag bits, which lie at the same place in every format.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmdq.h"

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
	uint64_t total;            /* appended since creation */
	uint8_t pend_prev[4], pend_next[4]; /* per stage 1..3 */
	int poisoned;              /* an error happened while queuing */
	vta_error_t poison;        /* the first one */
	size_t insn_off, insn_len; /* DMA block for the stream */
	int have_insn_buf;
	size_t last_n;             /* instructions of the last finish */
	size_t *pins;              /* blocks the queued program references */
	size_t npins, cappins;
};

Cmdq *cmdq_create(void) { return calloc(1, sizeof(Cmdq)); }

size_t cmdq_len(const Cmdq *q) { return q->n; }

uint64_t cmdq_total(const Cmdq *q) { return q->total; }

int cmdq_nearly_full(const Cmdq *q) { return (q->n + 6) * VTA_INS_ELEM_BYTES > (size_t)VTA_MAX_XFER; }

void cmdq_poison(Cmdq *q, const vta_error_t *e)
{
	if (!q->poisoned) {
		q->poisoned = 1;
		q->poison = *e;
	}
}

void cmdq_drop(Cmdq *q) { q->n = 0; }

const vta_error_t *cmdq_poisoned(const Cmdq *q) { return q->poisoned ? &q->poison : NULL; }

/* Keep the block at window offset off until the program has run (lock of
 * m held). */
static int pin(Cmdq *q, Mem *m, size_t off)
{
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
	mem_pin(m, off, 1);
	return VTA_OK;
}

static void unpin_all(Cmdq *q, RtDev *d)
{
	if (!q->npins)
		return;
	Mem *m = rtdev_mem(d);
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

static int append(Cmdq *q, const vta_insn_word_t *w, vta_error_t *err)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 256;
		vta_insn_word_t *a = realloc(q->w, cap * sizeof *a);
		if (!a)
			return vta_error_set(err, VTA_ENOMEM, -1,
					     "out of host memory for the instruction queue");
		q->w = a;
		q->cap = cap;
	}
	q->w[q->n++] = *w;
	q->total++;
	return VTA_OK;
}

int cmdq_emit(Cmdq *q, int stage, vta_insn_t *in, vta_error_t *err)
{
	in->pop_prev = q->pend_prev[stage];
	in->pop_next = q->pend_next[stage];
	vta_insn_word_t w;
	vta_error_t e;
	if (vta_insn_encode(in, &w, &e))
		return vta_error_set(err, e.code, -1, "cannot encode %s: %s",
				     vta_opcode_name(in->opcode), e.msg);
	q->pend_prev[stage] = q->pend_next[stage] = 0;
	return append(q, &w, err);
}

/* A no-op carrying only tokens: LOAD INP, LOAD UOP or STORE with x_size 0. */
static int emit_nop(Cmdq *q, int stage, int push_prev, int push_next, vta_error_t *err)
{
	vta_insn_t in = {0};
	in.opcode = stage == STAGE_STORE ? VTA_OPCODE_STORE : VTA_OPCODE_LOAD;
	in.memory_type = stage == STAGE_LOAD ? VTA_MEM_ID_INP : VTA_MEM_ID_UOP;
	in.push_prev = (uint32_t)push_prev;
	in.push_next = (uint32_t)push_next;
	return cmdq_emit(q, stage, &in, err);
}

static int dep_pop(Cmdq *q, int from, int to, vta_error_t *err)
{
	uint8_t *flag = from < to ? &q->pend_prev[to] : &q->pend_next[to];
	if (*flag) {
		int rc = emit_nop(q, to, 0, 0, err);
		if (rc)
			return rc;
	}
	*flag = 1;
	return VTA_OK;
}

static int dep_push(Cmdq *q, int from, int to, vta_error_t *err)
{
	if (q->pend_prev[from] || q->pend_next[from]) {
		int rc = emit_nop(q, from, 0, 0, err);
		if (rc)
			return rc;
	}
	uint64_t flag = from < to ? PUSH_NEXT : PUSH_PREV;
	if (q->n && word_stage(&q->w[q->n - 1], 0) == from && !(q->w[q->n - 1].w[0] & flag)) {
		q->w[q->n - 1].w[0] |= flag;
		return VTA_OK;
	}
	return emit_nop(q, from, from > to, from < to, err);
}

int cmdq_dep(Cmdq *q, int push, int from, int to, const char *fn, vta_error_t *err)
{
	if (from < 1 || from > 3 || to < 1 || to > 3 || from == to)
		return vta_error_set(err, VTA_EINVAL, -1, "%s(%d, %d): queue ids are 1 (load), 2 "
				     "(compute), 3 (store) and must differ", fn, from, to);
	if ((from == 1 && to == 3) || (from == 3 && to == 1))
		return vta_error_set(err, VTA_EINVAL, -1, "%s(%d, %d): there is no token queue between "
				     "load and store", fn, from, to);
	return push ? dep_push(q, from, to, err) : dep_pop(q, from, to, err);
}

/* ---- Loads and stores ---------------------------------------------------- */

/* dram_base of element elem_offset of a buffer, checking that the whole
 * 2-D region lies inside the buffer and the address is element-aligned; the
 * buffer is kept until the program has run. */
static int dram_region(Cmdq *q, RtDev *d, const char *fn, const void *handle, uint32_t type,
		       uint32_t elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride,
		       uint32_t *dram_base, vta_error_t *err)
{
	uint32_t eb = vta_mem_elem_bytes(type);
	if (!eb)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: memory type %" PRIu32 " is not UOP, WGT, "
				     "INP, ACC, OUT or ACC_8BIT", fn, type);
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
			return vta_error_set(err, VTA_EINVAL, -1, "%s: buffer %p belongs to the %s device, "
					     "not to this context's %s device", fn, handle, name,
					     rtdev_dev(d)->be->name);
		}
		return vta_error_set(err, VTA_EINVAL, -1, "%s: %p is not a live buffer handle from "
				     "VTABufferAlloc (freed?)", fn, handle);
	}
	uint64_t pa = rtdev_dev(d)->dram_pa + b.off;
	int rc = VTA_OK;
	if (pa % eb)
		rc = vta_error_set(err, VTA_EINVAL, -1, "%s: buffer address 0x%" PRIX64 " is not "
				   "aligned to the %" PRIu32 "-byte %s element", fn, pa, eb,
				   vta_mem_name(type));
	uint64_t last = (uint64_t)elem_offset + (uint64_t)(y_size ? y_size - 1 : 0) * x_stride + x_size;
	if (!rc && x_size && y_size && last * eb > size)
		rc = vta_error_set(err, VTA_ERANGE, -1, "%s: %" PRIu32 "x%" PRIu32 " %s elements "
				   "(stride %" PRIu32 ") from element %" PRIu32 " need %" PRIu64
				   " bytes, but the buffer has %zu", fn, y_size, x_size,
				   vta_mem_name(type), x_stride, elem_offset, last * eb, size);
	uint64_t base = pa / eb + elem_offset;
	if (!rc && base > UINT32_MAX)
		rc = vta_error_set(err, VTA_ERANGE, -1, "%s: DRAM element index 0x%" PRIX64 " needs "
				   "more than 32 bits", fn, base);
	if (!rc && pin(q, m, b.off))
		rc = vta_error_set(err, VTA_ENOMEM, -1, "%s: out of host memory", fn);
	mem_unlock(m);
	*dram_base = (uint32_t)base;
	return rc;
}

int cmdq_load_2d(Cmdq *q, RtDev *d, const void *h, uint32_t elem_offset, uint32_t x_size,
		 uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before,
		 uint32_t x_pad_after, uint32_t y_pad_after, uint32_t sram_index, uint32_t type,
		 vta_error_t *err)
{
	static const char fn[] = "VTALoadBuffer2D";
	vta_insn_t in = {0};
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = type;
	if (type == VTA_MEM_ID_OUT)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: OUT cannot be loaded", fn);
	int rc = dram_region(q, d, fn, h, type, elem_offset, x_size, y_size, x_stride, &in.dram_base,
			     err);
	if (rc)
		return rc;
	uint32_t depth = vta_mem_depth(type);
	uint64_t width = (uint64_t)x_pad_before + x_size + x_pad_after;
	uint64_t rows = (uint64_t)y_pad_before + y_size + y_pad_after;
	if (x_size && (uint64_t)sram_index + width * rows > depth)
		return vta_error_set(err, VTA_ERANGE, -1, "%s: %" PRIu64 " %s elements at SRAM index %"
				     PRIu32 " (with padding) do not fit the %" PRIu32 "-element buffer",
				     fn, width * rows, vta_mem_name(type), sram_index, depth);
	in.sram_base = sram_index;
	in.x_size = x_size;
	in.y_size = y_size;
	in.x_stride = x_stride;
	in.x_pad_0 = x_pad_before;
	in.x_pad_1 = x_pad_after;
	in.y_pad_0 = y_pad_before;
	in.y_pad_1 = y_pad_after;
	int stage = type == VTA_MEM_ID_INP || type == VTA_MEM_ID_WGT ? STAGE_LOAD : STAGE_COMPUTE;
	return cmdq_emit(q, stage, &in, err);
}

int cmdq_store_2d(Cmdq *q, RtDev *d, uint32_t sram_index, uint32_t type, const void *h,
		  uint32_t elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride,
		  vta_error_t *err)
{
	static const char fn[] = "VTAStoreBuffer2D";
	if (type != VTA_MEM_ID_OUT)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: memory type %s cannot be stored "
				     "(only out, VTA_MEM_ID_OUT)", fn, vta_mem_name(type));
	vta_insn_t in = {0};
	in.opcode = VTA_OPCODE_STORE;
	in.memory_type = type;
	int rc = dram_region(q, d, fn, h, type, elem_offset, x_size, y_size, x_stride, &in.dram_base,
			     err);
	if (rc)
		return rc;
	if ((uint64_t)sram_index + (uint64_t)x_size * y_size > VTA_OUT_BUFF_DEPTH)
		return vta_error_set(err, VTA_ERANGE, -1, "%s: %" PRIu32 "x%" PRIu32 " elements from SRAM "
				     "index %" PRIu32 " run past the %d-element OUT buffer", fn, y_size,
				     x_size, sram_index, VTA_OUT_BUFF_DEPTH);
	in.sram_base = sram_index;
	in.x_size = x_size;
	in.y_size = y_size;
	in.x_stride = x_stride;
	return cmdq_emit(q, STAGE_STORE, &in, err);
}

/* ---- Closing a program ----------------------------------------------------- */

/* FORCE_SERIAL: rewrite every flag so that each instruction waits for the
 * one before it (VTA-SPEC 7.4), then the closing handshakes. */
static int serialize(Cmdq *q, vta_error_t *err)
{
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
	int rc = emit_nop(q, STAGE_COMPUTE, 1, 0, err);
	if (!rc) {
		q->pend_next[STAGE_LOAD] = 1;
		rc = emit_nop(q, STAGE_LOAD, 0, 1, err);
	}
	if (!rc)
		q->pend_prev[STAGE_COMPUTE] = 1;
	return rc;
}

static int close_program(Cmdq *q, int serial, vta_error_t *err)
{
	int rc;
	if (serial) {
		rc = serialize(q, err);
	} else {
		rc = dep_push(q, STAGE_STORE, STAGE_COMPUTE, err);
		if (!rc)
			rc = dep_push(q, STAGE_LOAD, STAGE_COMPUTE, err);
		if (!rc)
			rc = dep_pop(q, STAGE_STORE, STAGE_COMPUTE, err);
		if (!rc)
			rc = dep_pop(q, STAGE_LOAD, STAGE_COMPUTE, err);
	}
	if (!rc && (q->pend_prev[STAGE_COMPUTE] || q->pend_next[STAGE_COMPUTE]))
		rc = emit_nop(q, STAGE_COMPUTE, 0, 0, err);
	if (!rc) {
		vta_insn_word_t fin = {{VTA_OPCODE_FINISH, 0}};
		rc = append(q, &fin, err);
	}
	return rc;
}

/* Make sure the DMA block for the stream holds n instructions. */
static int insn_buffer(Cmdq *q, Mem *m, size_t n, vta_error_t *err)
{
	size_t bytes = n * VTA_INS_ELEM_BYTES;
	if (q->have_insn_buf && q->insn_len >= bytes)
		return VTA_OK;
	if (q->have_insn_buf) {
		mem_free_off(m, q->insn_off);
		q->have_insn_buf = 0;
	}
	size_t want = bytes < 65536 ? 65536 : bytes, off;
	int rc = mem_alloc(m, want, MEM_INTERNAL, "VTASynchronize", &off, err);
	if (rc)
		return rc;
	q->insn_off = off;
	q->insn_len = (want + VTA_PAGE_BYTES - 1) / VTA_PAGE_BYTES * VTA_PAGE_BYTES;
	q->have_insn_buf = 1;
	return VTA_OK;
}

int cmdq_finish(Cmdq *q, RtDev *d, int serial, const uint32_t *uops, size_t n_uops,
		size_t uop_off, uint64_t *pa, uint32_t *n, vta_error_t *err)
{
	Mem *m = rtdev_mem(d);
	vta_error_t e;
	vta_error_clear(&e);
	int rc = close_program(q, serial, err);
	if (!rc && q->n > MAX_INSNS)
		rc = vta_error_set(err, VTA_ERANGE, -1, "VTASynchronize: %zu instructions exceed "
				   "VTA_MAX_XFER", q->n);
	if (!rc && rt_check_tokens(q->w, q->n, &e)) {
		rc = vta_error_set(err, e.code ? e.code : VTA_EIO, e.insn_index, "VTASynchronize: %s",
				   e.msg);
	}
	if (!rc)
		rc = insn_buffer(q, m, q->n, err);
	if (rc)
		return rc;
	uint8_t *dst = mem_cpu(m, q->insn_off, 0);
	for (size_t i = 0; i < q->n; i++)
		vta_insn_store(&q->w[i], dst + 16 * i);
	uint8_t *u = n_uops ? mem_cpu(m, uop_off, 0) : NULL;
	for (size_t i = 0; i < n_uops; i++) {
		uint32_t v = uops[i];
		u[4 * i] = (uint8_t)v;
		u[4 * i + 1] = (uint8_t)(v >> 8);
		u[4 * i + 2] = (uint8_t)(v >> 16);
		u[4 * i + 3] = (uint8_t)(v >> 24);
	}
	q->last_n = q->n;
	*pa = rtdev_dev(d)->dram_pa + q->insn_off;
	*n = (uint32_t)q->n;
	return VTA_OK;
}

int cmdq_last_stream(const Cmdq *q, RtDev *d, const uint8_t **bytes, size_t *count)
{
	if (!q->have_insn_buf || !q->last_n)
		return VTA_EINVAL;
	*bytes = mem_cpu(rtdev_mem(d), q->insn_off, 0);
	*count = q->last_n;
	return VTA_OK;
}

void cmdq_reset(Cmdq *q, RtDev *d)
{
	q->n = 0;
	memset(q->pend_prev, 0, sizeof q->pend_prev);
	memset(q->pend_next, 0, sizeof q->pend_next);
	q->poisoned = 0;
	unpin_all(q, d);
}

void cmdq_destroy(Cmdq *q, RtDev *d)
{
	if (!q)
		return;
	unpin_all(q, d);
	if (q->have_insn_buf)
		mem_free_off(rtdev_mem(d), q->insn_off);
	free(q->w);
	free(q->pins);
	free(q);
}

/* ---- The instruction dump ------------------------------------------------- */

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

void cmdq_dump(const Cmdq *q, FILE *f)
{
	long tok[VTA_Q_COUNT] = {0};
	fprintf(f, "vta: %zu instructions\n", q->n);
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
		fprintf(f, "INSTRUCTION %zu: %-18s %s\n", i, insn_kind(&q->w[i], kind, sizeof kind), text);
		fprintf(f, "\tl2g_queue = %ld, g2l_queue = %ld, s2g_queue = %ld, g2s_queue = %ld\n",
			tok[VTA_Q_L2G], tok[VTA_Q_G2L], tok[VTA_Q_S2G], tok[VTA_Q_G2S]);
	}
}

/* ---- Splitting a full queue ------------------------------------------------ */

/* A token-only instruction appended as is (its stage's pending pops stay
 * pending): the consumer (pop) or producer (push) end of queue qu. */
static int raw_token(Cmdq *q, int qu, int push, vta_error_t *err)
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
		return vta_error_set(err, VTA_EINVAL, -1, "cannot encode a token no-op");
	w.w[0] |= BIT(e[1]);
	return append(q, &w, err);
}

int cmdq_split_begin(Cmdq *q, CmdqSplit *s, vta_error_t *err)
{
	rt_token_balance(q->w, q->n, s->bal);
	for (int k = 0; k < VTA_Q_COUNT; k++)
		if (s->bal[k] < 0)
			return vta_error_set(err, VTA_ETOKEN, -1, "automatic synchronize after %zu "
					     "instructions: the program pops a token before the "
					     "instruction that pushes it, so it cannot be split here; "
					     "synchronize more often", q->n);
	memcpy(s->prev, q->pend_prev, sizeof s->prev);
	memcpy(s->next, q->pend_next, sizeof s->next);
	memset(q->pend_prev, 0, sizeof q->pend_prev);
	memset(q->pend_next, 0, sizeof q->pend_next);
	int rc = VTA_OK;
	for (int k = 0; k < VTA_Q_COUNT && !rc; k++)
		for (long t = 0; t < s->bal[k] && !rc; t++)
			rc = raw_token(q, k, 0, err);
	return rc;
}

int cmdq_split_end(Cmdq *q, const CmdqSplit *s, vta_error_t *err)
{
	memcpy(q->pend_prev, s->prev, sizeof s->prev);
	memcpy(q->pend_next, s->next, sizeof s->next);
	int rc = VTA_OK;
	for (int k = 0; k < VTA_Q_COUNT && !rc; k++)
		for (long t = 0; t < s->bal[k] && !rc; t++)
			rc = raw_token(q, k, 1, err);
	return rc;
}
