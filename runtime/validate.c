/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a stream may touch, checked before every launch on every backend:
 * the instruction fetch and every LOAD and STORE must lie inside one live
 * buffer of the calling process. On a board the accelerator's DMA reaches
 * all of the machine's memory, so without this check whoever may open the
 * device files may read and write any of it (docs/runtime.md, "Security").
 *
 * And the dependency tokens of a stream the runtime built: every pop is
 * satisfied by a push in an order the three modules can execute, and no
 * token is left over for the next run.
 *
 * Addresses are computed in 64 bits with every sum and product checked, so
 * no field value can wrap a range back into a buffer.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

void touched_init(Touched *t)
{
	t->t = t->local;
	t->n = 0;
	t->cap = sizeof t->local / sizeof t->local[0];
}

void touched_free(Touched *t)
{
	if (t->t != t->local)
		free(t->t);
	touched_init(t);
}

/* Add window bytes [lo, hi) of block b; merged per block. */
static int touch(Touched *t, const MemBlock *b, uint64_t lo, uint64_t hi, int written,
		 size_t *hint)
{
	Touch *x = *hint < t->n && t->t[*hint].off == b->off ? &t->t[*hint] : NULL;
	for (size_t i = 0; !x && i < t->n; i++)
		if (t->t[i].off == b->off) {
			x = &t->t[i];
			*hint = i;
		}
	if (x) {
		if (lo < x->lo)
			x->lo = (size_t)lo;
		if (hi > x->hi)
			x->hi = (size_t)hi;
		x->written |= written;
		return VTA_OK;
	}
	if (t->n == t->cap) {
		size_t cap = 2 * t->cap;
		Touch *a = malloc(cap * sizeof *a);
		if (!a)
			return VTA_ENOMEM;
		memcpy(a, t->t, t->n * sizeof *a);
		if (t->t != t->local)
			free(t->t);
		t->t = a;
		t->cap = cap;
	}
	*hint = t->n;
	t->t[t->n++] = (Touch){b->off, (size_t)lo, (size_t)hi, b->flags, written};
	return VTA_OK;
}

/* The two little-endian words of an instruction in DMA memory. */
static void words(const uint8_t *p, uint64_t w[2])
{
	memcpy(w, p, 16);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w[0] = __builtin_bswap64(w[0]);
	w[1] = __builtin_bswap64(w[1]);
#endif
}

/* A field of VTA-SPEC 3 (no field straddles the two words). */
static uint64_t field(const uint64_t w[2], int lsb, int width)
{
	return (w[lsb / 64] >> (lsb % 64)) & ((1ull << width) - 1);
}

static const char *what(unsigned op, unsigned mt)
{
	static const char *names[] = {"LOAD UOP", "LOAD WGT", "LOAD INP", "LOAD ACC",
				      "LOAD OUT", "LOAD ACC_8BIT", "LOAD 6", "LOAD 7"};
	return op == VTA_OPCODE_STORE ? "STORE" : names[mt & 7];
}

/* The error for device bytes [lo, lo + n) that lie in no live block. */
static int outside(const Mem *m, const vta_dev_t *dev, vta_error_t *err, const char *who,
		   uint64_t lo, uint64_t n, int overflow)
{
	char near[160] = "there is no live buffer";
	MemBlock b;
	uint64_t woff = lo >= dev->dram_pa ? lo - dev->dram_pa : 0;
	if (mem_nearest(m, woff, &b) >= 0)
		snprintf(near, sizeof near, "the nearest live buffer is 0x%" PRIX64 "..0x%" PRIX64
			 " (%zu bytes)", dev->dram_pa + b.off, dev->dram_pa + b.off + b.len - 1, b.len);
	if (overflow)
		return vta_error_set(err, VTA_ERANGE, -1,
				     "%s: its device address overflows 64 bits; the stream was not run",
				     who);
	return vta_error_set(err, VTA_ERANGE, -1,
			     "%s: device bytes 0x%" PRIX64 "..0x%" PRIX64 " do not lie inside one "
			     "live buffer of this process (%s); the stream was not run",
			     who, lo, lo + n - 1, near);
}

/* The live block holding device bytes [lo, lo + n), or -1. */
static long find(const Mem *m, const vta_dev_t *dev, uint64_t lo, uint64_t n, MemBlock *b)
{
	if (lo < dev->dram_pa)
		return -1;
	return mem_find_range(m, lo - dev->dram_pa, n, b);
}

int rt_validate(const Mem *m, const vta_dev_t *dev, uint64_t insn_pa, uint32_t n,
		const vta_bases_t *bases, Touched *out, vta_error_t *err)
{
	static const vta_bases_t zero;
	if (!bases)
		bases = &zero;
	if (insn_pa % 16)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "instruction address 0x%" PRIX64 " is not 16-byte aligned", insn_pa);
	if (n == 0)
		return vta_error_set(err, VTA_EINVAL, -1, "a run needs at least one instruction");
	/* The few buffers a stream alternates between, with their entry in
	 * *out: looked up once each. */
	struct {
		MemBlock b;
		uint64_t at; /* device address */
		size_t touch;
	} recent[4];
	int nrecent = 0;
	MemBlock fb;
	uint64_t bytes = (uint64_t)n * 16;
	char who[96];
	if (find(m, dev, insn_pa, bytes, &fb) < 0) {
		snprintf(who, sizeof who, "the fetch of %" PRIu32 " instructions", n);
		return outside(m, dev, err, who, insn_pa, bytes, 0);
	}
	size_t hint = 0;
	uint64_t woff = insn_pa - dev->dram_pa;
	if (touch(out, &fb, woff, woff + bytes, 0, &hint))
		return vta_error_set(err, VTA_ENOMEM, -1, "out of host memory checking a stream");
	const uint8_t *p = mem_cpu(m, (size_t)woff, fb.flags);
	for (uint32_t i = 0; i < n; i++, p += 16) {
		uint64_t w[2];
		words(p, w);
		unsigned op = (unsigned)field(w, VTA_MEM_OPCODE_LSB, VTA_MEM_OPCODE_WIDTH);
		if (op != VTA_OPCODE_LOAD && op != VTA_OPCODE_STORE)
			continue;
		uint64_t x = field(w, VTA_MEM_X_SIZE_LSB, VTA_MEM_X_SIZE_WIDTH);
		uint64_t y = field(w, VTA_MEM_Y_SIZE_LSB, VTA_MEM_Y_SIZE_WIDTH);
		if (x == 0 || y == 0)
			continue; /* no DRAM access */
		unsigned mt = (unsigned)field(w, VTA_MEM_MEMORY_TYPE_LSB, VTA_MEM_MEMORY_TYPE_WIDTH);
		uint64_t stride = field(w, VTA_MEM_X_STRIDE_LSB, VTA_MEM_X_STRIDE_WIDTH);
		uint64_t dram = field(w, VTA_MEM_DRAM_BASE_LSB, VTA_MEM_DRAM_BASE_WIDTH);
		uint64_t eb, base;
		if (op == VTA_OPCODE_STORE) {
			eb = VTA_OUT_ELEM_BYTES;
			base = bases->out;
		} else {
			eb = vta_mem_elem_bytes(mt);
			base = mt == VTA_MEM_ID_UOP ? bases->uop : mt == VTA_MEM_ID_WGT ? bases->wgt
				: mt == VTA_MEM_ID_INP ? bases->inp : bases->acc;
			if (!eb || mt == VTA_MEM_ID_OUT)
				return vta_error_set(err, VTA_EILLEGAL, (long)i,
						     "instruction %" PRIu32 " (%s): that memory type cannot "
						     "be loaded; the stream was not run",
						     i, what(op, mt));
		}
		/* Rows grow with y (strides are unsigned), so the last row ends
		 * last: the transfer spans (y - 1) * stride + x elements. */
		uint64_t start = 0, len = 0, elems = (y - 1) * stride + x;
		int ovf = __builtin_mul_overflow(dram, eb, &start) ||
			  __builtin_add_overflow(start, base, &start) ||
			  __builtin_mul_overflow(elems, eb, &len) || start + len < start;
		int k = 0;
		while (!ovf && k < nrecent &&
		       !(start >= recent[k].at && start - recent[k].at <= recent[k].b.len &&
			 len <= recent[k].b.len - (start - recent[k].at)))
			k++;
		MemBlock found;
		if (!ovf && k == nrecent && find(m, dev, start, len, &found) >= 0) {
			k = nrecent < 4 ? nrecent++ : 3; /* the oldest goes */
			recent[k].b = found;
			recent[k].at = dev->dram_pa + found.off;
			if (touch(out, &found, start - dev->dram_pa, start - dev->dram_pa, 0, &hint))
				return vta_error_set(err, VTA_ENOMEM, -1, "out of host memory checking a stream");
			recent[k].touch = hint;
		}
		if (ovf || k == nrecent) {
			snprintf(who, sizeof who, "instruction %" PRIu32 " (%s)", i, what(op, mt));
			int rc = outside(m, dev, err, who, start, len, ovf);
			err->insn_index = (long)i;
			return rc;
		}
		Touch *t = &out->t[recent[k].touch];
		size_t lo = (size_t)(start - dev->dram_pa), hi = lo + (size_t)len;
		if (lo < t->lo)
			t->lo = lo;
		if (hi > t->hi)
			t->hi = hi;
		t->written |= op == VTA_OPCODE_STORE;
	}
	return VTA_OK;
}

/* ---- Dependency tokens ------------------------------------------------------ */

enum { L2G = VTA_Q_L2G, G2L = VTA_Q_G2L, G2S = VTA_Q_G2S, S2G = VTA_Q_S2G };

static const char *qname(int q)
{
	static const char *n[] = {"load->compute", "compute->load", "compute->store",
				  "store->compute"};
	return n[q];
}

/* Module of an encoded instruction: 0 load, 1 compute, 2 store (the ISA's
 * rule, vta_insn_module, on the two fields it reads). */
static int module_of(const vta_insn_word_t *w)
{
	vta_insn_t in = {0};
	in.opcode = (uint32_t)(w->w[0] & 7);
	in.memory_type = (uint32_t)((w->w[0] >> VTA_MEM_MEMORY_TYPE_LSB) & 7);
	return (int)vta_insn_module(&in) - VTA_MODULE_LOAD;
}

/* The queues an instruction of module m pops and pushes (-1: none). */
static void queues(int m, int pop[2], int push[2])
{
	static const int pops[3][2] = {{-1, G2L}, {L2G, S2G}, {G2S, -1}};
	static const int pushes[3][2] = {{-1, L2G}, {G2L, G2S}, {S2G, -1}};
	memcpy(pop, pops[m], sizeof pops[m]);
	memcpy(push, pushes[m], sizeof pushes[m]);
}

static int flag(const vta_insn_word_t *w, int lsb) { return (int)((w->w[0] >> lsb) & 1); }

void rt_token_balance(const vta_insn_word_t *w, size_t n, long bal[VTA_Q_COUNT])
{
	memset(bal, 0, VTA_Q_COUNT * sizeof *bal);
	for (size_t i = 0; i < n; i++) {
		int pop[2], push[2];
		queues(module_of(&w[i]), pop, push);
		if (flag(&w[i], VTA_MEM_POP_PREV_LSB) && pop[0] >= 0)
			bal[pop[0]]--;
		if (flag(&w[i], VTA_MEM_POP_NEXT_LSB) && pop[1] >= 0)
			bal[pop[1]]--;
		if (flag(&w[i], VTA_MEM_PUSH_PREV_LSB) && push[0] >= 0)
			bal[push[0]]++;
		if (flag(&w[i], VTA_MEM_PUSH_NEXT_LSB) && push[1] >= 0)
			bal[push[1]]++;
	}
}

int rt_check_tokens(const vta_insn_word_t *w, size_t n, vta_error_t *err)
{
	/* Each queue has one consumer, so running any module as far as its
	 * tokens allow never hurts another: if this greedy schedule stops, no
	 * schedule finishes. */
	size_t pos[3] = {0, 0, 0};
	long tok[VTA_Q_COUNT] = {0};
	size_t last_push[VTA_Q_COUNT] = {0};
	for (int m = 0; m < 3; m++)
		while (pos[m] < n && module_of(&w[pos[m]]) != m)
			pos[m]++;
	for (int progress = 1; progress;) {
		progress = 0;
		for (int m = 0; m < 3; m++) {
			int pop[2], push[2];
			queues(m, pop, push);
			while (pos[m] < n) {
				const vta_insn_word_t *x = &w[pos[m]];
				int pp = flag(x, VTA_MEM_POP_PREV_LSB) && pop[0] >= 0;
				int pn = flag(x, VTA_MEM_POP_NEXT_LSB) && pop[1] >= 0;
				if ((pp && tok[pop[0]] == 0) || (pn && tok[pop[1]] == 0))
					break;
				if (pp)
					tok[pop[0]]--;
				if (pn)
					tok[pop[1]]--;
				if (flag(x, VTA_MEM_PUSH_PREV_LSB) && push[0] >= 0)
					tok[push[0]]++, last_push[push[0]] = pos[m];
				if (flag(x, VTA_MEM_PUSH_NEXT_LSB) && push[1] >= 0)
					tok[push[1]]++, last_push[push[1]] = pos[m];
				do
					pos[m]++;
				while (pos[m] < n && module_of(&w[pos[m]]) != m);
				progress = 1;
			}
		}
	}
	size_t first = n;
	int fm = -1;
	for (int m = 0; m < 3; m++)
		if (pos[m] < first)
			first = pos[m], fm = m;
	if (fm >= 0) {
		int pop[2], push[2];
		queues(fm, pop, push);
		int q = flag(&w[first], VTA_MEM_POP_PREV_LSB) && pop[0] >= 0 && tok[pop[0]] == 0 ? pop[0]
											      : pop[1];
		return vta_error_set(err, VTA_EDEADLOCK, (long)first,
				     "instruction %zu waits for a %s token that no instruction left to "
				     "run can push: the program would deadlock; it was not run",
				     first, qname(q));
	}
	for (int q = 0; q < VTA_Q_COUNT; q++)
		if (tok[q])
			return vta_error_set(err, VTA_ETOKEN, (long)last_push[q],
					     "%ld %s token%s pushed (the last by instruction %zu) but "
					     "never popped: unbalanced VTADepPush/VTADepPop; the program "
					     "was not run",
					     tok[q], qname(q), tok[q] == 1 ? " is" : "s are", last_push[q]);
	return VTA_OK;
}
