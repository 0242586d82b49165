/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Micro-op kernels (uopcache.h).
 *
 * A kernel is identified by the address of the caller's handle slot and the
 * signature bytes. The slot is a key only: nothing is written through it,
 * so one call site can serve several contexts and threads.
 *
 * Each newly loaded kernel is appended to a linear staging area (not
 * re-packed at synchronize), so an eviction never moves a kernel that an
 * earlier LOAD UOP of the same program points to.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uopcache.h"

/* Micro-ops staged per program before an automatic synchronize (1 MiB). */
#define STAGE_WORDS ((size_t)1 << 18)

typedef struct Kernel Kernel;

struct Kernel {
	const void *slot;
	uint8_t *sig;
	size_t nsig;
	uint64_t hash;
	Kernel *hnext;             /* hash chain */
	Kernel *lru_prev, *lru_next;

	uint32_t *uop;             /* encoded micro-ops */
	uint32_t *dst;             /* their dst indices (hazard check while recording) */
	uint32_t n, cap;
	int have_mode;
	uint32_t mode, reset, opcode, use_imm;
	int32_t imm;
	uint32_t nloop, pushed;
	uint32_t loop[2][4]; /* extent, dst, src, wgt factor */
	int failed;
	vta_error_t why;           /* of the failure */

	long sram; /* first UOP SRAM index while resident, else -1 */
};

struct Uops {
	Kernel **tab;     /* hash of recorded kernels by (slot, signature) */
	size_t ntab, nkernels;
	size_t bytes, limit; /* memory of recorded kernels, and its bound */
	Kernel *lru_head, *lru_tail; /* most recently used first */

	Kernel **res;     /* kernels resident in the UOP SRAM, placement order */
	size_t nres, capres;
	uint32_t ptr;     /* where the next kernel goes */

	uint32_t *stage;  /* micro-ops loaded in this program, in load order */
	size_t nstage, capstage;
	size_t buf_off;   /* DMA block holding them at synchronize */
	int have_buf;

	Kernel *rec;      /* being recorded by a finit callback */
};

Uops *uops_create(size_t limit_bytes)
{
	Uops *u = calloc(1, sizeof *u);
	if (u)
		u->limit = limit_bytes;
	return u;
}

int uops_recording(const Uops *u) { return !u->rec ? 0 : u->rec->failed ? -1 : 1; }

size_t uops_staged(const Uops *u, const uint32_t **words, size_t *buf_off)
{
	*words = u->stage;
	*buf_off = u->buf_off;
	return u->have_buf ? u->nstage : 0;
}

static uint64_t hash_key(const void *slot, const void *sig, size_t n)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(uintptr_t)slot;
	h *= 1099511628211ull;
	const uint8_t *p = sig;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

static size_t kernel_bytes(const Kernel *k) { return sizeof *k + k->nsig + 8 * (size_t)k->cap; }

static void kernel_free(Kernel *k)
{
	if (!k)
		return;
	free(k->sig);
	free(k->uop);
	free(k->dst);
	free(k);
}

static void lru_unlink(Uops *u, Kernel *k)
{
	if (k->lru_prev) k->lru_prev->lru_next = k->lru_next; else u->lru_head = k->lru_next;
	if (k->lru_next) k->lru_next->lru_prev = k->lru_prev; else u->lru_tail = k->lru_prev;
	k->lru_prev = k->lru_next = NULL;
}

static void lru_front(Uops *u, Kernel *k)
{
	k->lru_next = u->lru_head;
	k->lru_prev = NULL;
	if (u->lru_head) u->lru_head->lru_prev = k; else u->lru_tail = k;
	u->lru_head = k;
}

static void unmark_resident(Uops *u, Kernel *k)
{
	if (k->sram < 0)
		return;
	for (size_t i = 0; i < u->nres; i++)
		if (u->res[i] == k) {
			memmove(&u->res[i], &u->res[i + 1], (u->nres - i - 1) * sizeof *u->res);
			u->nres--;
			break;
		}
	k->sram = -1;
}

static void table_remove(Uops *u, Kernel *k)
{
	Kernel **pp = &u->tab[k->hash & (u->ntab - 1)];
	while (*pp != k)
		pp = &(*pp)->hnext;
	*pp = k->hnext;
	lru_unlink(u, k);
	unmark_resident(u, k);
	u->bytes -= kernel_bytes(k);
	u->nkernels--;
	kernel_free(k);
}

static int table_insert(Uops *u, Kernel *k, vta_error_t *err)
{
	if (!u->ntab || u->nkernels + 1 > u->ntab) {
		size_t ntab = u->ntab ? 2 * u->ntab : 64;
		Kernel **tab = calloc(ntab, sizeof *tab);
		if (!tab)
			return vta_error_set(err, VTA_ENOMEM, -1, "out of host memory for micro-op kernels");
		for (size_t i = 0; i < u->ntab; i++)
			for (Kernel *c = u->tab[i], *next; c; c = next) {
				next = c->hnext;
				c->hnext = tab[c->hash & (ntab - 1)];
				tab[c->hash & (ntab - 1)] = c;
			}
		free(u->tab);
		u->tab = tab;
		u->ntab = ntab;
	}
	k->hnext = u->tab[k->hash & (u->ntab - 1)];
	u->tab[k->hash & (u->ntab - 1)] = k;
	lru_front(u, k);
	u->nkernels++;
	u->bytes += kernel_bytes(k);
	/* The bound: forget the least recently used kernels (they are recorded
	 * again if needed). The newest one always stays. */
	while (u->bytes > u->limit && u->lru_tail != k)
		table_remove(u, u->lru_tail);
	return VTA_OK;
}

static Kernel *table_find(Uops *u, const void *slot, const void *sig, size_t n, uint64_t h)
{
	if (!u->ntab)
		return NULL;
	for (Kernel *k = u->tab[h & (u->ntab - 1)]; k; k = k->hnext)
		if (k->hash == h && k->slot == slot && k->nsig == n && (!n || !memcmp(k->sig, sig, n)))
			return k;
	return NULL;
}

void uops_reset_window(Uops *u)
{
	for (size_t i = 0; i < u->nres; i++)
		u->res[i]->sram = -1;
	u->nres = 0;
	u->ptr = 0;
	u->nstage = 0;
}

void uops_destroy(Uops *u, RtDev *d)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->ntab; i++)
		for (Kernel *k = u->tab[i], *next; k; k = next) {
			next = k->hnext;
			kernel_free(k);
		}
	kernel_free(u->rec);
	if (u->have_buf)
		mem_free_off(rtdev_mem(d), u->buf_off);
	free(u->tab);
	free(u->res);
	free(u->stage);
	free(u);
}

/* ---- Recording ----------------------------------------------------------- */

static int rec_fail(Kernel *k, int code, const char *fn, const char *what)
{
	k->failed = 1;
	return vta_error_set(&k->why, code, -1, "%s: %s", fn, what);
}

int uops_rec_loop(Uops *u, uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
		  uint32_t wgt_factor)
{
	Kernel *k = u->rec;
	if (!k || k->failed)
		return VTA_EINVAL;
	if (k->n)
		return rec_fail(k, VTA_EINVAL, "VTAUopLoopBegin", "loops must be declared before the "
				"first VTAUopPush");
	if (k->nloop == 2)
		return rec_fail(k, VTA_EINVAL, "VTAUopLoopBegin", "a kernel has at most two loops");
	if (extent == 0 || extent >= (1u << VTA_LOOP_ITER_WIDTH)) {
		char msg[96];
		snprintf(msg, sizeof msg, "loop extent %" PRIu32 " is outside 1..%u", extent,
			 (1u << VTA_LOOP_ITER_WIDTH) - 1);
		return rec_fail(k, VTA_ERANGE, "VTAUopLoopBegin", msg);
	}
	uint32_t *l = k->loop[k->nloop++];
	l[0] = extent;
	l[1] = dst_factor;
	l[2] = src_factor;
	l[3] = wgt_factor;
	return VTA_OK;
}

int uops_rec_push(Uops *u, uint32_t mode, uint32_t reset_out, uint32_t dst_index,
		  uint32_t src_index, uint32_t wgt_index, uint32_t opcode, uint32_t use_imm,
		  int32_t imm_val, int dump)
{
	static const char fn[] = "VTAUopPush";
	Kernel *k = u->rec;
	if (!k || k->failed)
		return VTA_EINVAL;
	char msg[160];
	if (mode > 1)
		return rec_fail(k, VTA_EINVAL, fn, "mode must be 0 (GEMM) or 1 (ALU)");
	if (mode == 1 && opcode > VTA_ALU_OPCODE_MUL) {
		snprintf(msg, sizeof msg, "ALU opcode %" PRIu32 " is not MIN, MAX, ADD, SHR or MUL", opcode);
		return rec_fail(k, VTA_EINVAL, fn, msg);
	}
	if (imm_val < -32768 || imm_val > 32767) {
		snprintf(msg, sizeof msg, "immediate %" PRId32 " does not fit 16 bits", imm_val);
		return rec_fail(k, VTA_ERANGE, fn, msg);
	}
	if (!k->have_mode) {
		k->have_mode = 1;
		k->mode = mode;
		k->reset = reset_out ? 1 : 0;
		k->opcode = opcode;
		k->use_imm = use_imm ? 1 : 0;
		k->imm = imm_val;
	} else if (k->mode != mode || k->reset != (reset_out ? 1u : 0u) ||
		   (mode == 1 && (k->opcode != opcode || k->use_imm != (use_imm ? 1u : 0u) ||
				  k->imm != imm_val))) {
		return rec_fail(k, VTA_EINVAL, fn, "every micro-op of a kernel must have the same "
				"mode, reset flag and (ALU) opcode and immediate");
	}
	/* VTA-SPEC 4.8: the HLS pipeline does not forward to the next two. */
	for (uint32_t j = k->n >= 2 ? k->n - 2 : 0; j < k->n; j++)
		if (k->dst[j] == dst_index) {
			snprintf(msg, sizeof msg, "micro-op %" PRIu32 " writes accumulator %" PRIu32
				 " like micro-op %" PRIu32 " just before it (read-after-write hazard)",
				 k->n, dst_index, j);
			return rec_fail(k, VTA_EINVAL, fn, msg);
		}
	if (k->n == VTA_UOP_BUFF_DEPTH) {
		snprintf(msg, sizeof msg, "a kernel has at most %d micro-ops (the UOP buffer)",
			 VTA_UOP_BUFF_DEPTH);
		return rec_fail(k, VTA_ERANGE, fn, msg);
	}
	vta_uop_t uop = {dst_index, src_index, mode == 1 ? 0 : wgt_index};
	uint32_t word;
	vta_error_t err;
	if (vta_uop_encode(&uop, &word, &err))
		return rec_fail(k, err.code, fn, err.msg);
	if (k->n == k->cap) {
		uint32_t cap = k->cap ? 2 * k->cap : 16;
		uint32_t *a = realloc(k->uop, cap * sizeof *a);
		if (a)
			k->uop = a;
		uint32_t *d = realloc(k->dst, cap * sizeof *d);
		if (d)
			k->dst = d;
		if (!a || !d)
			return rec_fail(k, VTA_ENOMEM, fn, "out of host memory");
		k->cap = cap;
	}
	k->uop[k->n] = word;
	k->dst[k->n++] = dst_index;
	if (dump)
		fprintf(stderr, "vta: uop %" PRIu32 ": acc=%" PRIu32 ", inp=%" PRIu32 ", wgt=%" PRIu32 "\n",
			k->n - 1, dst_index, src_index, uop.wgt_idx);
	return VTA_OK;
}

static Kernel *record(Uops *u, const char *fn, void **slot, int (*finit)(void *), void *sig,
		      size_t nsig, uint64_t h, vta_error_t *err)
{
	Kernel *k = calloc(1, sizeof *k);
	if (!k || (nsig && !(k->sig = malloc(nsig)))) {
		free(k);
		vta_error_set(err, VTA_ENOMEM, -1, "%s: out of host memory", fn);
		return NULL;
	}
	if (nsig)
		memcpy(k->sig, sig, nsig);
	k->slot = slot;
	k->nsig = nsig;
	k->hash = h;
	k->sram = -1;
	u->rec = k;
	int rc = finit(sig);
	u->rec = NULL;
	if (k->failed) {
		if (err)
			*err = k->why;
		kernel_free(k);
		return NULL;
	}
	if (rc) {
		vta_error_set(err, VTA_EINVAL, -1, "%s: the kernel callback returned %d", fn, rc);
		kernel_free(k);
		return NULL;
	}
	if (k->n == 0) {
		vta_error_set(err, VTA_EINVAL, -1, "%s: the kernel callback pushed no micro-ops", fn);
		kernel_free(k);
		return NULL;
	}
	free(k->dst); /* only needed while recording */
	k->dst = NULL;
	if (table_insert(u, k, err)) {
		kernel_free(k);
		return NULL;
	}
	return k;
}

/* ---- Residency and emission ---------------------------------------------- */

static int make_resident(Uops *u, Cmdq *q, RtDev *d, Kernel *k, vta_error_t *err)
{
	if (!u->have_buf) {
		int rc = mem_alloc(rtdev_mem(d), STAGE_WORDS * 4, MEM_INTERNAL, "VTAPushGEMMOp",
				   &u->buf_off, err);
		if (rc)
			return rc;
		u->have_buf = 1;
	}
	if (!u->stage) {
		u->stage = malloc(STAGE_WORDS * sizeof *u->stage);
		if (!u->stage)
			return vta_error_set(err, VTA_ENOMEM, -1, "out of host memory for micro-ops");
		u->capstage = STAGE_WORDS;
	}
	if (u->nstage + k->n > u->capstage) /* this program has loaded 1 MiB of micro-ops */
		return UOPS_STAGING_FULL;
	if (u->ptr + k->n > VTA_UOP_BUFF_DEPTH)
		u->ptr = 0;
	long lo = u->ptr, hi = lo + (long)k->n;
	for (size_t i = 0; i < u->nres;) {
		Kernel *r = u->res[i];
		if (r->sram < hi && r->sram + (long)r->n > lo)
			unmark_resident(u, r);
		else
			i++;
	}
	if (u->nres == u->capres) {
		size_t cap = u->capres ? 2 * u->capres : 16;
		Kernel **a = realloc(u->res, cap * sizeof *a);
		if (!a)
			return vta_error_set(err, VTA_ENOMEM, -1, "out of host memory for micro-ops");
		u->res = a;
		u->capres = cap;
	}
	u->res[u->nres++] = k;
	k->sram = lo;
	u->ptr = (uint32_t)hi;

	size_t at = u->nstage;
	memcpy(u->stage + at, k->uop, k->n * sizeof *k->uop);
	u->nstage += k->n;
	vta_insn_t in = {0};
	in.opcode = VTA_OPCODE_LOAD;
	in.memory_type = VTA_MEM_ID_UOP;
	in.sram_base = (uint32_t)lo;
	in.dram_base = (uint32_t)((rtdev_dev(d)->dram_pa + u->buf_off) / 4 + at);
	in.y_size = 1;
	in.x_size = k->n;
	in.x_stride = k->n;
	return cmdq_emit(q, STAGE_COMPUTE, &in, err);
}

int uops_push_op(Uops *u, Cmdq *q, RtDev *d, int mode, void **slot, int (*finit)(void *),
		 void *sig, int nbytes, vta_error_t *err)
{
	const char *fn = mode ? "VTAPushALUOp" : "VTAPushGEMMOp";
	if (u->rec)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: called from inside a kernel callback", fn);
	if (!slot || !finit)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: the handle slot and the callback must "
				     "not be NULL", fn);
	if (nbytes < 0 || (nbytes && !sig))
		return vta_error_set(err, VTA_EINVAL, -1, "%s: signature of %d bytes at %p", fn, nbytes,
				     sig);
	uint64_t h = hash_key(slot, sig, (size_t)nbytes);
	Kernel *k = table_find(u, slot, sig, (size_t)nbytes, h);
	if (!k) {
		vta_error_t e;
		vta_error_clear(&e);
		k = record(u, fn, slot, finit, sig, (size_t)nbytes, h, &e);
		if (!k) {
			if (err)
				*err = e;
			return e.code ? e.code : VTA_EINVAL;
		}
	}
	lru_unlink(u, k);
	lru_front(u, k);
	if (k->mode != (uint32_t)mode)
		return vta_error_set(err, VTA_EINVAL, -1, "%s: the kernel's micro-ops were pushed in %s "
				     "mode", fn, k->mode ? "ALU" : "GEMM");
	if (k->sram < 0) {
		int rc = make_resident(u, q, d, k, err);
		if (rc)
			return rc;
	}
	vta_insn_t in = {0};
	in.opcode = mode ? VTA_OPCODE_ALU : VTA_OPCODE_GEMM;
	in.reset = k->reset;
	in.uop_bgn = (uint32_t)k->sram;
	in.uop_end = (uint32_t)k->sram + k->n;
	const uint32_t none[4] = {1, 0, 0, 0};
	const uint32_t *outer, *inner;
	if (mode == 0) {
		outer = k->nloop > 0 ? k->loop[0] : none;
		inner = k->nloop > 1 ? k->loop[1] : none;
	} else { /* ALU: a single loop is the inner one */
		outer = k->nloop > 1 ? k->loop[0] : none;
		inner = k->nloop > 1 ? k->loop[1] : k->nloop ? k->loop[0] : none;
	}
	in.iter_out = outer[0];
	in.dst_factor_out = outer[1];
	in.src_factor_out = outer[2];
	in.iter_in = inner[0];
	in.dst_factor_in = inner[1];
	in.src_factor_in = inner[2];
	if (mode == 0) {
		in.wgt_factor_out = outer[3];
		in.wgt_factor_in = inner[3];
	} else {
		in.alu_opcode = k->opcode;
		in.use_imm = k->use_imm;
		in.imm = k->imm;
	}
	return cmdq_emit(q, STAGE_COMPUTE, &in, err);
}
