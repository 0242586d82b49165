/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The golden model (include/vta/fsim.h): executes VTA instruction streams
 * exactly as VTA-SPEC sections 2-4 and their Project rules say.
 *
 * Structure of a run: a fetch stage dispatches instructions in program order
 * into three bounded module queues (load, compute, store); the modules take
 * their head instruction when its tokens are available, execute it, and push
 * its tokens. The loop repeats until FINISH executes. When a whole round
 * makes no progress the program can never finish, and the run stops with a
 * deadlock error naming the blocked instructions. So a run always ends.
 *
 * The hot loops (GEMM, ALU) are written as simple counted loops over
 * contiguous lanes so that gcc vectorizes them; GEMM reads inputs and weights
 * from shadow copies laid out for its kernels, an AVX2 one where the host
 * has AVX2 and a portable one (see "GEMM" below).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/fsim.h>
#include <vta/isa.h>

#if defined(__x86_64__) && defined(__GNUC__) && VTA_BLOCK_OUT % 8 == 0
#include <immintrin.h>
#define VTA_FSIM_AVX2 1
#else
#define VTA_FSIM_AVX2 0
#endif

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the golden model assumes a little-endian host (as are x86-64 and the Zynq ARM cores)"
#endif

enum {
	ACC_LANES = VTA_BATCH * VTA_BLOCK_OUT, /* int32 lanes of one ACC element */
	INP_LANES = VTA_BATCH * VTA_BLOCK_IN,
	WGT_LANES = VTA_BLOCK_OUT * VTA_BLOCK_IN,
	PAIRS = VTA_BLOCK_IN / 2, /* configgen allows even blocks only */
};

/* One instruction waiting in a module queue. */
typedef struct {
	vta_insn_t insn;
	uint32_t index;  /* position in the stream */
	uint8_t waited;  /* bit q set once it has waited for queue q */
} Slot;

typedef struct {
	Slot *slot;
	uint32_t head, count;
} InsnQueue;

struct vta_fsim {
	uint8_t *dram;
	size_t dram_size;
	vta_bases_t bases;

	uint32_t *uop;  /* VTA_UOP_BUFF_DEPTH words */
	int8_t *inp;    /* VTA_INP_BUFF_DEPTH x INP_LANES */
	int8_t *wgt;    /* VTA_WGT_BUFF_DEPTH x WGT_LANES, layout of VTA-SPEC 2.3 */
	/* GEMM's shadows of INP and WGT (see "GEMM" below), kept in step by
	 * LOAD; rebuilt at the next run once the host had a pointer to them. */
	int16_t *inp16;   /* INP widened to int16, [elem][b][k] */
	uint8_t *inp_np;  /* [elem][b]: pairs of k up to the last nonzero one */
	int8_t *wgt_pairs; /* WGT as [elem][k/2][c][k%2] */
	int shadow_stale;
	int32_t *acc;   /* VTA_ACC_BUFF_DEPTH x ACC_LANES */
	uint8_t *out_due; /* ACC rows written since OUT last got their low 8 bits */
	vta_uop_t *uops; /* scratch: the decoded micro-ops of one instruction */
	/* scratch of group_uops: [ACC row] -1 or a group; [group] counts, places */
	int32_t *row_group;
	uint32_t *group_at;
	vta_uop_t *uops_tmp;
	int8_t *out;    /* VTA_OUT_BUFF_DEPTH x ACC_LANES */

	uint32_t tokens[VTA_Q_COUNT];
	vta_counters_t ctr;
	InsnQueue queue[4]; /* indexed by vta_module_t (1..3) */
	int simd;           /* GEMM runs the AVX2 kernel */
};

static const char *queue_name[VTA_Q_COUNT] = {"l2g", "g2l", "g2s", "s2g"};
static const char *module_name[4] = {"", "load", "compute", "store"};

/* ------------------------------------------------------------------------ */

vta_fsim_t *vta_fsim_create(size_t dram_bytes, vta_error_t *err)
{
	vta_error_clear(err);
	if (dram_bytes == 0) {
		vta_error_set(err, VTA_EINVAL, -1, "DRAM size must be positive");
		return NULL;
	}
	vta_fsim_t *s = calloc(1, sizeof *s);
	if (!s)
		goto oom;
	s->dram_size = dram_bytes;
	s->dram = calloc(1, dram_bytes);
	s->uop = calloc(VTA_UOP_BUFF_DEPTH, sizeof *s->uop);
	s->inp = calloc((size_t)VTA_INP_BUFF_DEPTH * INP_LANES, 1);
	s->wgt = calloc((size_t)VTA_WGT_BUFF_DEPTH * WGT_LANES, 1);
	s->inp16 = calloc((size_t)VTA_INP_BUFF_DEPTH * INP_LANES, sizeof *s->inp16);
	s->inp_np = calloc((size_t)VTA_INP_BUFF_DEPTH * VTA_BATCH, 1);
	s->wgt_pairs = calloc((size_t)VTA_WGT_BUFF_DEPTH * WGT_LANES, sizeof *s->wgt_pairs);
	s->out_due = calloc(VTA_ACC_BUFF_DEPTH, 1);
	s->uops = calloc(VTA_UOP_BUFF_DEPTH, sizeof *s->uops);
	s->row_group = malloc(VTA_ACC_BUFF_DEPTH * sizeof *s->row_group);
	s->group_at = calloc(VTA_UOP_BUFF_DEPTH, sizeof *s->group_at);
	s->uops_tmp = calloc(VTA_UOP_BUFF_DEPTH, sizeof *s->uops_tmp);
	if (s->row_group)
		for (int r = 0; r < VTA_ACC_BUFF_DEPTH; r++)
			s->row_group[r] = -1;
	s->acc = calloc((size_t)VTA_ACC_BUFF_DEPTH * ACC_LANES, sizeof *s->acc);
	s->out = calloc((size_t)VTA_OUT_BUFF_DEPTH * ACC_LANES, 1);
	for (int m = 1; m <= 3; m++)
		s->queue[m].slot = calloc(VTA_INSN_QUEUE_DEPTH, sizeof(Slot));
	if (!s->dram || !s->uop || !s->inp || !s->wgt || !s->inp16 || !s->inp_np || !s->wgt_pairs ||
	    !s->out_due || !s->uops || !s->row_group || !s->group_at || !s->uops_tmp || !s->acc || !s->out || !s->queue[1].slot || !s->queue[2].slot ||
	    !s->queue[3].slot) {
		vta_fsim_destroy(s);
		goto oom;
	}
	vta_fsim_use_simd(s, 1);
	return s;
oom:
	vta_error_set(err, VTA_ENOMEM, -1, "cannot allocate the golden model with %zu bytes of DRAM",
		      dram_bytes);
	return NULL;
}

void vta_fsim_destroy(vta_fsim_t *s)
{
	if (!s)
		return;
	free(s->dram);
	free(s->uop);
	free(s->inp);
	free(s->wgt);
	free(s->inp16);
	free(s->inp_np);
	free(s->wgt_pairs);
	free(s->out_due);
	free(s->uops);
	free(s->row_group);
	free(s->group_at);
	free(s->uops_tmp);
	free(s->acc);
	free(s->out);
	for (int m = 1; m <= 3; m++)
		free(s->queue[m].slot);
	free(s);
}

uint8_t *vta_fsim_dram(vta_fsim_t *s) { return s->dram; }
size_t vta_fsim_dram_size(const vta_fsim_t *s) { return s->dram_size; }
void vta_fsim_set_bases(vta_fsim_t *s, const vta_bases_t *b) { s->bases = *b; }
const vta_counters_t *vta_fsim_counters(const vta_fsim_t *s) { return &s->ctr; }
void vta_fsim_clear_counters(vta_fsim_t *s) { memset(&s->ctr, 0, sizeof s->ctr); }
uint32_t vta_fsim_tokens(const vta_fsim_t *s, int q) { return q >= 0 && q < VTA_Q_COUNT ? s->tokens[q] : 0; }

void vta_fsim_reset(vta_fsim_t *s)
{
	memset(s->uop, 0, (size_t)VTA_UOP_BUFF_DEPTH * sizeof *s->uop);
	memset(s->inp, 0, (size_t)VTA_INP_BUFF_DEPTH * INP_LANES);
	memset(s->wgt, 0, (size_t)VTA_WGT_BUFF_DEPTH * WGT_LANES);
	memset(s->inp16, 0, (size_t)VTA_INP_BUFF_DEPTH * INP_LANES * sizeof *s->inp16);
	memset(s->inp_np, 0, (size_t)VTA_INP_BUFF_DEPTH * VTA_BATCH);
	memset(s->wgt_pairs, 0, (size_t)VTA_WGT_BUFF_DEPTH * WGT_LANES * sizeof *s->wgt_pairs);
	s->shadow_stale = 0;
	memset(s->acc, 0, (size_t)VTA_ACC_BUFF_DEPTH * ACC_LANES * sizeof *s->acc);
	memset(s->out, 0, (size_t)VTA_OUT_BUFF_DEPTH * ACC_LANES);
	memset(s->out_due, 0, VTA_ACC_BUFF_DEPTH);
	memset(s->tokens, 0, sizeof s->tokens);
	vta_fsim_clear_counters(s);
}

uint8_t *vta_fsim_sram(vta_fsim_t *s, unsigned memory_type, size_t *bytes)
{
	size_t n;
	uint8_t *p;
	switch (memory_type) {
	case VTA_MEM_ID_UOP: p = (uint8_t *)s->uop; n = (size_t)VTA_UOP_BUFF_DEPTH * 4; break;
	case VTA_MEM_ID_INP: p = (uint8_t *)s->inp; n = (size_t)VTA_INP_BUFF_DEPTH * INP_LANES; break;
	case VTA_MEM_ID_WGT: p = (uint8_t *)s->wgt; n = (size_t)VTA_WGT_BUFF_DEPTH * WGT_LANES; break;
	case VTA_MEM_ID_ACC: p = (uint8_t *)s->acc; n = (size_t)VTA_ACC_BUFF_DEPTH * ACC_LANES * 4; break;
	case VTA_MEM_ID_OUT: p = (uint8_t *)s->out; n = (size_t)VTA_OUT_BUFF_DEPTH * ACC_LANES; break;
	default: p = NULL; n = 0; break;
	}
	if (memory_type == VTA_MEM_ID_INP || memory_type == VTA_MEM_ID_WGT)
		s->shadow_stale = 1; /* the host may write through p */
	if (bytes)
		*bytes = n;
	return p;
}

/* ------------------------------------------------------------------------ */
/* Errors name the instruction by index and disassembly.                     */

static int insn_error(vta_error_t *err, int code, const Slot *sl, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int insn_error(vta_error_t *err, int code, const Slot *sl, const char *fmt, ...)
{
	char why[256], text[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	vta_insn_format(&sl->insn, text, sizeof text);
	return vta_error_set(err, code, (long)sl->index, "instruction %" PRIu32 " (%s): %s",
			     sl->index, text, why);
}

/* ------------------------------------------------------------------------ */
/* Static legality, checked when fetch dispatches (VTA-SPEC 3.11, 4.3).      */

static int check_legal(const Slot *sl, vta_error_t *err)
{
	const vta_insn_t *in = &sl->insn;
	switch (in->opcode) {
	case VTA_OPCODE_LOAD:
		if (in->x_size != 0 && vta_mem_elem_bytes(in->memory_type) == 0)
			return insn_error(err, VTA_EILLEGAL, sl, "memory type %" PRIu32
					  " (%s) cannot be loaded", in->memory_type,
					  vta_mem_name(in->memory_type));
		if (in->x_size != 0 && in->memory_type == VTA_MEM_ID_OUT)
			return insn_error(err, VTA_EILLEGAL, sl, "the OUT buffer cannot be loaded");
		if (vta_insn_module(in) == VTA_MODULE_LOAD && (in->pop_prev || in->push_prev))
			return insn_error(err, VTA_EILLEGAL, sl,
					  "LOAD INP/WGT has no previous stage: pop_prev and push_prev must be 0");
		return VTA_OK;
	case VTA_OPCODE_STORE:
		if (in->pop_next || in->push_next)
			return insn_error(err, VTA_EILLEGAL, sl,
					  "STORE has no next stage: pop_next and push_next must be 0");
		if (in->x_size != 0 && (in->y_pad_0 || in->y_pad_1 || in->x_pad_0 || in->x_pad_1))
			return insn_error(err, VTA_EILLEGAL, sl, "STORE cannot pad");
		return VTA_OK;
	case VTA_OPCODE_GEMM:
	case VTA_OPCODE_FINISH:
		return VTA_OK;
	case VTA_OPCODE_ALU:
		if (in->alu_opcode > VTA_ALU_OPCODE_MUL)
			return insn_error(err, VTA_EILLEGAL, sl, "ALU opcode %" PRIu32 " is reserved",
					  in->alu_opcode);
		return VTA_OK;
	default:
		return insn_error(err, VTA_EILLEGAL, sl, "opcode %" PRIu32 " is reserved", in->opcode);
	}
}

/* ------------------------------------------------------------------------ */
/* DMA: LOAD_2D (VTA-SPEC 4.4) and STORE_2D (4.6).                           */

static uint64_t base_of(const vta_fsim_t *s, unsigned memory_type)
{
	switch (memory_type) {
	case VTA_MEM_ID_UOP: return s->bases.uop;
	case VTA_MEM_ID_INP: return s->bases.inp;
	case VTA_MEM_ID_WGT: return s->bases.wgt;
	case VTA_MEM_ID_ACC:
	case VTA_MEM_ID_ACC_8BIT: return s->bases.acc;
	default: return s->bases.out;
	}
}

/* Check that rows [0, y) of x elements of E bytes, stride apart, lie inside
 * DRAM. Rows grow with y (strides are unsigned), so the last row ends last. */
static int check_dram(const vta_fsim_t *s, const Slot *sl, uint64_t base, uint32_t elem,
		      vta_error_t *err)
{
	const vta_insn_t *in = &sl->insn;
	if (in->y_size == 0)
		return VTA_OK;
	uint64_t first = base + (uint64_t)in->dram_base * elem;
	uint64_t end = base + ((uint64_t)in->dram_base + (uint64_t)(in->y_size - 1) * in->x_stride +
			       in->x_size) * elem;
	if (end > s->dram_size)
		return insn_error(err, VTA_ERANGE, sl,
				  "DRAM bytes 0x%" PRIX64 "..0x%" PRIX64 " lie outside the %zu-byte DRAM",
				  first, end - 1, s->dram_size);
	return VTA_OK;
}

/* Write the narrowed copy of ACC elements [first, first+n) to OUT. */
static void narrow_to_out(vta_fsim_t *s, uint32_t first, uint32_t n)
{
	const int32_t *a = s->acc + (size_t)first * ACC_LANES;
	int8_t *o = s->out + (size_t)first * ACC_LANES;
	for (size_t i = 0; i < (size_t)n * ACC_LANES; i++)
		o[i] = (int8_t)a[i];
}

/*
 * OUT always equals the low 8 bits of ACC (VTA-SPEC Project rule), but only
 * STORE reads it, so GEMM and ALU mark the rows they write (out_due) and OUT
 * is brought up to date here: before a STORE, for the rows it reads, and at
 * the end of every run, for all. One narrowing per row then serves a whole
 * requantize sequence.
 */
static void flush_out(vta_fsim_t *s, uint32_t first, uint32_t n)
{
	for (uint32_t r = first; r < first + n; r++)
		if (s->out_due[r]) {
			s->out_due[r] = 0;
			narrow_to_out(s, r, 1);
		}
}

/*
 * The GEMM shadows (see "GEMM" below) of n elements from the first: weights
 * as [k/2][c][k%2], inputs widened to int16 with the number of leading pairs
 * up to the last nonzero one. The AVX2 versions transpose 8 x 8 blocks of
 * byte pairs and widen 16 inputs at once; the others go lane by lane.
 */
static void shadow_weights_portable(vta_fsim_t *s, uint32_t first, uint32_t n)
{
	for (uint32_t e = first; e < first + n; e++) {
		const int8_t *w = s->wgt + (size_t)e * WGT_LANES;
		int8_t *w2 = s->wgt_pairs + (size_t)e * WGT_LANES;
		for (int c = 0; c < VTA_BLOCK_OUT; c++)
			for (int j = 0; j < PAIRS; j++) {
				w2[(j * VTA_BLOCK_OUT + c) * 2] = w[c * VTA_BLOCK_IN + 2 * j];
				w2[(j * VTA_BLOCK_OUT + c) * 2 + 1] = w[c * VTA_BLOCK_IN + 2 * j + 1];
			}
	}
}

static void shadow_inputs_portable(vta_fsim_t *s, uint32_t first, uint32_t n)
{
	for (uint32_t e = first; e < first + n; e++)
		for (int b = 0; b < VTA_BATCH; b++) {
			const int8_t *x = s->inp + (size_t)e * INP_LANES + b * VTA_BLOCK_IN;
			int16_t *x2 = s->inp16 + (size_t)e * INP_LANES + b * VTA_BLOCK_IN;
			for (int k = 0; k < VTA_BLOCK_IN; k++)
				x2[k] = x[k];
			int np = PAIRS;
			while (np > 0 && !(x[2 * np - 2] | x[2 * np - 1]))
				np--;
			s->inp_np[(size_t)e * VTA_BATCH + (size_t)b] = (uint8_t)np;
		}
}

#if VTA_FSIM_AVX2 && VTA_BLOCK_IN % 16 == 0
#define VTA_FSIM_AVX2_SHADOW 1
__attribute__((target("avx2"))) static void shadow_weights_avx2(vta_fsim_t *s, uint32_t first, uint32_t n)
{
	for (uint32_t e = first; e < first + n; e++) {
		const int8_t *w = s->wgt + (size_t)e * WGT_LANES;
		int8_t *w2 = s->wgt_pairs + (size_t)e * WGT_LANES;
		for (int c0 = 0; c0 < VTA_BLOCK_OUT; c0 += 8)
			for (int j0 = 0; j0 < PAIRS; j0 += 8) {
				/* rows c0..c0+7, pairs j0..j0+7: 16-bit units, transposed */
				__m128i a[8], b[8], t[8];
				for (int r = 0; r < 8; r++)
					a[r] = _mm_loadu_si128((const __m128i *)(const void *)(w + (c0 + r) * VTA_BLOCK_IN + 2 * j0));
				for (int r = 0; r < 8; r += 2) {
					b[r] = _mm_unpacklo_epi16(a[r], a[r + 1]);
					b[r + 1] = _mm_unpackhi_epi16(a[r], a[r + 1]);
				}
				for (int r = 0; r < 8; r += 4) {
					t[r] = _mm_unpacklo_epi32(b[r], b[r + 2]);
					t[r + 1] = _mm_unpackhi_epi32(b[r], b[r + 2]);
					t[r + 2] = _mm_unpacklo_epi32(b[r + 1], b[r + 3]);
					t[r + 3] = _mm_unpackhi_epi32(b[r + 1], b[r + 3]);
				}
				for (int r = 0; r < 4; r++) {
					a[2 * r] = _mm_unpacklo_epi64(t[r], t[r + 4]);
					a[2 * r + 1] = _mm_unpackhi_epi64(t[r], t[r + 4]);
				}
				for (int j = 0; j < 8; j++) /* a[j]: pair j0+j of rows c0..c0+7 */
					_mm_storeu_si128((__m128i *)(void *)(w2 + ((j0 + j) * VTA_BLOCK_OUT + c0) * 2), a[j]);
			}
	}
}

__attribute__((target("avx2"))) static void shadow_inputs_avx2(vta_fsim_t *s, uint32_t first, uint32_t n)
{
	for (uint32_t e = first; e < first + n; e++)
		for (int b = 0; b < VTA_BATCH; b++) {
			const int8_t *x = s->inp + (size_t)e * INP_LANES + b * VTA_BLOCK_IN;
			int16_t *x2 = s->inp16 + (size_t)e * INP_LANES + b * VTA_BLOCK_IN;
			int np = 0;
			for (int k = 0; k < VTA_BLOCK_IN; k += 16) {
				__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(x + k));
				_mm256_storeu_si256((__m256i *)(void *)(x2 + k), _mm256_cvtepi8_epi16(v));
				/* two mask bits per pair, set where the pair is zero */
				unsigned nz = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi16(v, _mm_setzero_si128())) & 0xFFFFu;
				if (nz)
					np = k / 2 + (31 - __builtin_clz(nz)) / 2 + 1;
			}
			s->inp_np[(size_t)e * VTA_BATCH + (size_t)b] = (uint8_t)np;
		}
}
#else
#define VTA_FSIM_AVX2_SHADOW 0
#endif

static void shadow_weights(vta_fsim_t *s, uint32_t first, uint32_t n)
{
#if VTA_FSIM_AVX2_SHADOW
	if (s->simd) {
		shadow_weights_avx2(s, first, n);
		return;
	}
#endif
	shadow_weights_portable(s, first, n);
}

static void shadow_inputs(vta_fsim_t *s, uint32_t first, uint32_t n)
{
#if VTA_FSIM_AVX2_SHADOW
	if (s->simd) {
		shadow_inputs_avx2(s, first, n);
		return;
	}
#endif
	shadow_inputs_portable(s, first, n);
}

static void rebuild_shadows(vta_fsim_t *s)
{
	shadow_inputs(s, 0, VTA_INP_BUFF_DEPTH);
	shadow_weights(s, 0, VTA_WGT_BUFF_DEPTH);
	s->shadow_stale = 0;
}

/* Zero n elements of a buffer starting at element p. */
static void zero_elems(vta_fsim_t *s, unsigned type, uint32_t p, uint32_t n)
{
	switch (type) {
	case VTA_MEM_ID_UOP: memset(s->uop + p, 0, (size_t)n * 4); break;
	case VTA_MEM_ID_INP: memset(s->inp + (size_t)p * INP_LANES, 0, (size_t)n * INP_LANES); break;
	case VTA_MEM_ID_WGT: memset(s->wgt + (size_t)p * WGT_LANES, 0, (size_t)n * WGT_LANES); break;
	default: memset(s->acc + (size_t)p * ACC_LANES, 0, (size_t)n * ACC_LANES * 4); break;
	}
}

/* Copy n DRAM elements starting at src into the buffer at element p. */
static void copy_elems(vta_fsim_t *s, unsigned type, uint32_t p, const uint8_t *src, uint32_t n)
{
	switch (type) {
	case VTA_MEM_ID_UOP: memcpy(s->uop + p, src, (size_t)n * 4); break;
	case VTA_MEM_ID_INP: memcpy(s->inp + (size_t)p * INP_LANES, src, (size_t)n * INP_LANES); break;
	case VTA_MEM_ID_WGT: memcpy(s->wgt + (size_t)p * WGT_LANES, src, (size_t)n * WGT_LANES); break;
	case VTA_MEM_ID_ACC:
		memcpy(s->acc + (size_t)p * ACC_LANES, src, (size_t)n * ACC_LANES * 4);
		break;
	case VTA_MEM_ID_ACC_8BIT: {
		int32_t *a = s->acc + (size_t)p * ACC_LANES;
		for (size_t i = 0; i < (size_t)n * ACC_LANES; i++)
			a[i] = (int8_t)src[i];
		break;
	}
	}
}

static int exec_load(vta_fsim_t *s, const Slot *sl, vta_error_t *err)
{
	const vta_insn_t *in = &sl->insn;
	unsigned type = in->memory_type;
	if (in->x_size == 0)
		return VTA_OK; /* token-only no-op; pads ignored */
	uint32_t elem = vta_mem_elem_bytes(type), depth = vta_mem_depth(type);
	uint64_t width = (uint64_t)in->x_pad_0 + in->x_size + in->x_pad_1;
	uint64_t rows = (uint64_t)in->y_pad_0 + in->y_size + in->y_pad_1;
	uint64_t total = rows * width;
	if (in->sram_base + total > depth)
		return insn_error(err, VTA_ERANGE, sl,
				  "the %" PRIu64 "-element block at %s index %" PRIu32
				  " runs past the end of the %" PRIu32 "-element buffer",
				  total, vta_mem_name(type), in->sram_base, depth);
	uint64_t base = base_of(s, type);
	int rc = check_dram(s, sl, base, elem, err);
	if (rc)
		return rc;

	uint32_t p = in->sram_base;
	zero_elems(s, type, p, (uint32_t)(in->y_pad_0 * width));
	p += (uint32_t)(in->y_pad_0 * width);
	for (uint32_t y = 0; y < in->y_size; y++) {
		zero_elems(s, type, p, in->x_pad_0);
		p += in->x_pad_0;
		uint64_t addr = base + ((uint64_t)in->dram_base + (uint64_t)y * in->x_stride) * elem;
		copy_elems(s, type, p, s->dram + addr, in->x_size);
		p += in->x_size;
		zero_elems(s, type, p, in->x_pad_1);
		p += in->x_pad_1;
	}
	zero_elems(s, type, p, (uint32_t)(in->y_pad_1 * width));

	if (type == VTA_MEM_ID_ACC || type == VTA_MEM_ID_ACC_8BIT)
		narrow_to_out(s, in->sram_base, (uint32_t)total);
	if (type == VTA_MEM_ID_WGT)
		shadow_weights(s, in->sram_base, (uint32_t)total);
	if (type == VTA_MEM_ID_INP)
		shadow_inputs(s, in->sram_base, (uint32_t)total);
	s->ctr.bytes_read[type] += (uint64_t)in->x_size * in->y_size * elem;
	return VTA_OK;
}

static int exec_store(vta_fsim_t *s, const Slot *sl, vta_error_t *err)
{
	const vta_insn_t *in = &sl->insn;
	if (in->x_size == 0)
		return VTA_OK;
	uint64_t total = (uint64_t)in->x_size * in->y_size;
	if (in->sram_base + total > VTA_OUT_BUFF_DEPTH)
		return insn_error(err, VTA_ERANGE, sl,
				  "the %" PRIu64 "-element block at out index %" PRIu32
				  " runs past the end of the %d-element buffer",
				  total, in->sram_base, VTA_OUT_BUFF_DEPTH);
	int rc = check_dram(s, sl, s->bases.out, VTA_OUT_ELEM_BYTES, err);
	if (rc)
		return rc;
	flush_out(s, in->sram_base, (uint32_t)total);
	for (uint32_t y = 0; y < in->y_size; y++) {
		uint64_t addr = s->bases.out +
				((uint64_t)in->dram_base + (uint64_t)y * in->x_stride) * VTA_OUT_ELEM_BYTES;
		const int8_t *src = s->out + ((size_t)in->sram_base + (size_t)y * in->x_size) * ACC_LANES;
		memcpy(s->dram + addr, src, (size_t)in->x_size * VTA_OUT_ELEM_BYTES);
	}
	s->ctr.bytes_written += total * VTA_OUT_ELEM_BYTES;
	return VTA_OK;
}

/* ------------------------------------------------------------------------ */
/* GEMM (VTA-SPEC 4.5.4) and ALU (4.5.5).                                    */

/*
 * GEMM (VTA-SPEC 4.5.4). Per micro-op, ACC[a][b][c] += sum_k INP[s][b][k] *
 * WGT[w][c][k], accumulated modulo 2^32, and OUT gets the low 8 bits.
 *
 * A GEMM writes only ACC, and only by wrapping additions, so the order of
 * its (outer, inner, micro-op) iterations does not change the result. The
 * model therefore runs them as outer loop, micro-op, inner loop: along the
 * inner loop the weights of a micro-op stay the same when wgt_factor_in is 0
 * (as in every convolution the compiler emits), so a block of inner
 * positions shares each weight load (see GEMM_LOOPS).
 *
 * The kernels read shadows: inputs widened to int16 as [b][k], weights as
 * [k/2][c][k%2], so that one pair of inputs (k, k+1), broadcast, meets the
 * pairs of weights of consecutive output channels, sign-extended to int16 as
 * they are loaded. That is what the AVX2 instruction vpmaddwd takes: it
 * multiplies 16-bit lanes and adds adjacent products into 32-bit lanes. The
 * sum of two int8 x int8 products fits in 32 bits, so the result is exact;
 * the accumulation wraps like the hardware's. Pairs after the last nonzero
 * pair of an input vector (inp_np: channel padding, zero padding rows) add
 * nothing and are skipped.
 *
 * OUT follows later (see flush_out): the loops mark the rows they write.
 */

/* The state one GEMM instruction's loops read. */
typedef struct {
	uint32_t *acc;
	const int16_t *inp16;
	const uint8_t *inp_np;
	const int8_t *wgt_pairs;
	uint8_t *out_due;
	const vta_uop_t *uops;
	uint32_t n_uops;
	const vta_insn_t *in;
} Gemm;

/*
 * The loops, for a kernel ONE(a, x, npp, w) that does one position (ACC row
 * a, INP row x with its pair counts npp, weights w; all batch rows) and
 * GROUP(P, ...) that does P positions of the micro-ops [u, e), which all
 * write one ACC row (group_uops put them together), so that the positions'
 * accumulators are loaded and stored once for all of them. When the weights
 * stay the same along the inner loop the order is outer, group, inner in
 * blocks of NPOS positions (da/dx/dn apart) that share each weight load;
 * otherwise it is the instruction's own order, so weights stream in address
 * order.
 */
#define GEMM_LOOPS(ONE, GROUP, NPOS)                                                                \
	const vta_insn_t *in = g->in;                                                               \
	size_t da = (size_t)in->dst_factor_in * ACC_LANES, dx = (size_t)in->src_factor_in * INP_LANES; \
	size_t dn = (size_t)in->src_factor_in * VTA_BATCH;                                          \
	int shared = in->wgt_factor_in == 0 && in->dst_factor_in != 0;                              \
	for (uint32_t o = 0; o < in->iter_out; o++) {                                               \
		uint32_t d_o = o * in->dst_factor_out, s_o = o * in->src_factor_out;                \
		uint32_t w_o = o * in->wgt_factor_out;                                              \
		if (shared) {                                                                       \
			for (uint32_t u = 0, e; u < g->n_uops; u = e) {                             \
				for (e = u + 1; e < g->n_uops && g->uops[e].dst_idx == g->uops[u].dst_idx; e++) \
					;                                                           \
				uint32_t d = g->uops[u].dst_idx + d_o, k = 0;                       \
				for (uint32_t j = 0; j < in->iter_in; j++)                          \
					g->out_due[d + j * in->dst_factor_in] = 1;                  \
				for (; NPOS > 1 && k + NPOS <= in->iter_in; k += NPOS)              \
					GROUP(NPOS, d + k * in->dst_factor_in, s_o + k * in->src_factor_in, u, e); \
				for (; k < in->iter_in; k++)                                        \
					GROUP(1, d + k * in->dst_factor_in, s_o + k * in->src_factor_in, u, e); \
			}                                                                           \
			continue;                                                                   \
		}                                                                                   \
		for (uint32_t i = 0; i < in->iter_in; i++)                                          \
			for (uint32_t u = 0; u < g->n_uops; u++) {                                  \
				const vta_uop_t *op = &g->uops[u];                                  \
				uint32_t d = op->dst_idx + d_o + i * in->dst_factor_in;             \
				uint32_t xs = op->src_idx + s_o + i * in->src_factor_in;            \
				g->out_due[d] = 1;                                                  \
				ONE(g->acc + (size_t)d * ACC_LANES, g->inp16 + (size_t)xs * INP_LANES, \
				    g->inp_np + (size_t)xs * VTA_BATCH,                             \
				    g->wgt_pairs + (size_t)(op->wgt_idx + w_o + i * in->wgt_factor_in) * WGT_LANES); \
			}                                                                           \
	}

/* Portable kernel: one batch row of one position, the first np pairs. */
static inline void gemm_row(uint32_t *restrict a, const int16_t *restrict x, const int8_t *restrict w,
			    int np)
{
	for (int j = 0; j < np; j++) {
		int32_t x0 = x[2 * j], x1 = x[2 * j + 1];
		const int8_t *wj = w + j * 2 * VTA_BLOCK_OUT;
		for (int c = 0; c < VTA_BLOCK_OUT; c++)
			a[c] += (uint32_t)(x0 * wj[2 * c] + x1 * wj[2 * c + 1]);
	}
}

#define PORTABLE_ONE(a, x, npp, w)                                                                  \
	for (int b = 0; b < VTA_BATCH; b++)                                                         \
		if ((npp)[b])                                                                       \
			gemm_row((a) + b * VTA_BLOCK_OUT, (x) + b * VTA_BLOCK_IN, (w), (npp)[b]);

/* P = 1 (NPOS 1): one position of the micro-ops [u, e) at ACC row d, INP rows from xo */
#define PORTABLE_GROUP(P, d, xo, u, e)                                                              \
	for (uint32_t t = (u); t < (e); t++) {                                                      \
		const vta_uop_t *op = &g->uops[t];                                                  \
		size_t xs = (size_t)op->src_idx + (xo);                                             \
		(void)da, (void)dx, (void)dn;                                                       \
		PORTABLE_ONE(g->acc + (size_t)(d) * ACC_LANES, g->inp16 + xs * INP_LANES,          \
			     g->inp_np + xs * VTA_BATCH, g->wgt_pairs + (size_t)(op->wgt_idx + w_o) * WGT_LANES); \
	}

static void gemm_portable(const Gemm *g)
{
	GEMM_LOOPS(PORTABLE_ONE, PORTABLE_GROUP, 1)
}
#undef PORTABLE_ONE
#undef PORTABLE_GROUP

#if VTA_FSIM_AVX2
enum {
	VEC = VTA_BLOCK_OUT / 8,       /* 8 int32 lanes per register */
	POS = VEC >= 8 ? 1 : 8 / VEC,  /* positions per block: 8 accumulators */
};

/* Pairs [0, NP) of P positions of one batch row, INP row x (positions dx
 * apart), into accumulators v[p][q] for output channels 8q..8q+7 of position
 * p; each weight register serves all P positions. */
#define AVX2_MAC(P, NP, v, x, w, dx)                                                                \
	do {                                                                                        \
		_Pragma("GCC unroll 8") for (int j = 0; j < (NP); j++) {                            \
			__m256i wv[VEC];                                                            \
			_Pragma("GCC unroll 8") for (int q = 0; q < VEC; q++)                       \
				wv[q] = _mm256_cvtepi8_epi16(_mm_loadu_si128(                         \
					(const __m128i *)(const void *)((w) + j * 2 * VTA_BLOCK_OUT + 16 * q))); \
			_Pragma("GCC unroll 8") for (int p = 0; p < (P); p++) {                     \
				int32_t xx;                                                         \
				memcpy(&xx, (x) + p * (dx) + 2 * j, 4);                             \
				__m256i xj = _mm256_set1_epi32(xx);                                 \
				_Pragma("GCC unroll 8") for (int q = 0; q < VEC; q++)               \
					v[p][q] = _mm256_add_epi32(v[p][q], _mm256_madd_epi16(xj, wv[q])); \
			}                                                                           \
		}                                                                                   \
	} while (0)
#define AVX2_LOAD(P, v, a, da)                                                                      \
	_Pragma("GCC unroll 8") for (int p = 0; p < (P); p++)                                       \
		_Pragma("GCC unroll 8") for (int q = 0; q < VEC; q++)                               \
			v[p][q] = _mm256_loadu_si256((const __m256i *)(const void *)((a) + p * (da) + 8 * q))
#define AVX2_STORE(P, v, a, da)                                                                     \
	_Pragma("GCC unroll 8") for (int p = 0; p < (P); p++)                                       \
		_Pragma("GCC unroll 8") for (int q = 0; q < VEC; q++)                               \
			_mm256_storeu_si256((__m256i *)(void *)((a) + p * (da) + 8 * q), v[p][q])

/* One position, all pairs when it has them: constant trip counts, unrolled. */
#define AVX2_ONE(a, x, npp, w)                                                                      \
	for (int b = 0; b < VTA_BATCH; b++) {                                                       \
		int np = (npp)[b];                                                                    \
		uint32_t *ab = (a) + b * VTA_BLOCK_OUT;                                             \
		const int16_t *xb = (x) + b * VTA_BLOCK_IN;                                         \
		__m256i v[1][VEC];                                                                  \
		if (!np)                                                                            \
			continue;                                                                   \
		AVX2_LOAD(1, v, ab, 0);                                                             \
		if (np == PAIRS)                                                                    \
			AVX2_MAC(1, PAIRS, v, xb, w, 0);                                            \
		else                                                                                \
			AVX2_MAC(1, np, v, xb, w, 0);                                               \
		AVX2_STORE(1, v, ab, 0);                                                            \
	}
/* P positions of the micro-ops [u, e) at ACC row d, INP rows from xo; per
 * micro-op the block takes the largest pair count of its positions (the
 * pairs past a position's own count are zero and add nothing). */
#define AVX2_GROUP(P, d, xo, u, e)                                                                  \
	for (int b = 0; b < VTA_BATCH; b++) {                                                       \
		uint32_t *ab = g->acc + (size_t)(d) * ACC_LANES + b * VTA_BLOCK_OUT;                \
		__m256i v[P][VEC];                                                                  \
		AVX2_LOAD(P, v, ab, da);                                                            \
		for (uint32_t t = (u); t < (e); t++) {                                              \
			const vta_uop_t *op = &g->uops[t];                                          \
			size_t xs = (size_t)op->src_idx + (xo);                                     \
			const int16_t *xb = g->inp16 + xs * INP_LANES + b * VTA_BLOCK_IN;           \
			const uint8_t *npp = g->inp_np + xs * VTA_BATCH + b;                        \
			const int8_t *w = g->wgt_pairs + (size_t)(op->wgt_idx + w_o) * WGT_LANES;   \
			int np = 0;                                                                 \
			for (int p = 0; p < (P); p++)                                               \
				np = npp[p * dn] > np ? npp[p * dn] : np;                           \
			if (np == PAIRS)                                                            \
				AVX2_MAC(P, PAIRS, v, xb, w, dx);                                   \
			else if (np)                                                                \
				AVX2_MAC(P, np, v, xb, w, dx);                                      \
		}                                                                                   \
		AVX2_STORE(P, v, ab, da);                                                           \
	}

__attribute__((target("avx2"))) static void gemm_avx2(const Gemm *g)
{
	GEMM_LOOPS(AVX2_ONE, AVX2_GROUP, POS)
}
#undef AVX2_MAC
#undef AVX2_LOAD
#undef AVX2_STORE
#undef AVX2_ONE
#undef AVX2_GROUP
#endif
#undef GEMM_LOOPS

int vta_fsim_use_simd(vta_fsim_t *s, int enable)
{
#if VTA_FSIM_AVX2
	s->simd = enable && __builtin_cpu_supports("avx2");
#else
	(void)enable;
	s->simd = 0;
#endif
	return s->simd;
}


#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define VTA_MULTIVERSION __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define VTA_MULTIVERSION
#endif

/*
 * The ALU loops of one instruction (VTA-SPEC 4.5.5), bounds already checked.
 * R = f(A, B) per lane, with A the destination and B the source element or
 * the sign-extended immediate; R goes to ACC, and its row is marked for OUT
 * (see flush_out). Unlike GEMM, the iterations run in the instruction's own
 * order: a later micro-op may read what an earlier one wrote. Destination
 * and source may be the same element: each lane is read before it is
 * written. The switch is outside the loops so that each operation's lane
 * loop is vectorized on its own.
 */
#define ALU_LOOPS(EXPR)                                                                 \
	for (uint32_t o = 0; o < in->iter_out; o++)                                     \
		for (uint32_t i = 0; i < in->iter_in; i++)                              \
			for (uint32_t u = 0; u < n_uops; u++) {                         \
				size_t d = (size_t)(uops[u].dst_idx + o * in->dst_factor_out + \
						    i * in->dst_factor_in) * ACC_LANES;         \
				const int32_t *bp = in->use_imm ? immv                          \
						: acc + (size_t)(uops[u].src_idx + o * in->src_factor_out + \
								 i * in->src_factor_in) * ACC_LANES;    \
				int32_t *ap = acc + d;                                          \
				due[d / ACC_LANES] = 1;                                         \
				for (int l = 0; l < ACC_LANES; l++) {                           \
					int32_t a = ap[l], b = bp[l];                           \
					ap[l] = (EXPR);                                         \
				}                                                               \
			}

VTA_MULTIVERSION
static void alu_loops(int32_t *restrict acc, uint8_t *restrict due, const vta_uop_t *restrict uops,
		      uint32_t n_uops, const vta_insn_t *in)
{
	int32_t immv[ACC_LANES];
	for (int l = 0; l < ACC_LANES; l++)
		immv[l] = in->imm; /* already sign-extended by decode */
	switch (in->alu_opcode) {
	case VTA_ALU_OPCODE_MIN:
		ALU_LOOPS(a < b ? a : b);
		break;
	case VTA_ALU_OPCODE_MAX:
		ALU_LOOPS(a < b ? b : a);
		break;
	case VTA_ALU_OPCODE_ADD: /* wraps modulo 2^32 */
		ALU_LOOPS((int32_t)((uint32_t)a + (uint32_t)b));
		break;
	case VTA_ALU_OPCODE_SHR: /* b >= 0: arithmetic right by b & 31; else left by -b & 31 */
		ALU_LOOPS(b >= 0 ? (a < 0 ? ~(~a >> (b & 31)) : a >> (b & 31))
				 : (int32_t)((uint32_t)a << ((0u - (uint32_t)b) & 31)));
		break;
	default: /* MUL: the low 32 bits of the product */
		ALU_LOOPS((int32_t)((uint32_t)a * (uint32_t)b));
		break;
	}
}
#undef ALU_LOOPS

/* Largest index a field reaches over the loops: factors are unsigned. */
static uint64_t max_index(uint32_t uop_field_max, uint32_t iter_out, uint32_t f_out,
			  uint32_t iter_in, uint32_t f_in)
{
	return (uint64_t)uop_field_max + (uint64_t)(iter_out - 1) * f_out +
	       (uint64_t)(iter_in - 1) * f_in;
}

static int check_index(const Slot *sl, const char *what, uint64_t idx, uint32_t depth,
		       vta_error_t *err)
{
	if (idx < depth)
		return VTA_OK;
	return insn_error(err, VTA_ERANGE, sl,
			  "%s index reaches %" PRIu64 ", outside the %" PRIu32 "-element buffer",
			  what, idx, depth);
}

/*
 * GEMM micro-ops reordered so that those writing one ACC row are adjacent
 * (groups in order of first appearance, each in its own order): GEMM only
 * adds into ACC, so its order does not matter (wrapping additions commute),
 * and a group's accumulators then stay in registers across its taps.
 */
static void group_uops(vta_fsim_t *s, uint32_t n)
{
	uint32_t ng = 0;
	for (uint32_t u = 0; u < n; u++) {
		int32_t *rg = &s->row_group[s->uops[u].dst_idx];
		if (*rg < 0) {
			*rg = (int32_t)ng;
			s->group_at[ng++] = 0;
		}
		s->group_at[*rg]++;
	}
	if (ng < n) {
		for (uint32_t q = 0, at = 0; q < ng; q++) {
			uint32_t c = s->group_at[q];
			s->group_at[q] = at;
			at += c;
		}
		for (uint32_t u = 0; u < n; u++)
			s->uops_tmp[s->group_at[s->row_group[s->uops[u].dst_idx]]++] = s->uops[u];
		memcpy(s->uops, s->uops_tmp, n * sizeof *s->uops);
	}
	for (uint32_t u = 0; u < n; u++)
		s->row_group[s->uops[u].dst_idx] = -1;
}

static int exec_compute(vta_fsim_t *s, const Slot *sl, vta_error_t *err)
{
	const vta_insn_t *in = &sl->insn;
	int is_gemm = in->opcode == VTA_OPCODE_GEMM;
	if (in->iter_out == 0 || in->iter_in == 0 || in->uop_end <= in->uop_bgn)
		return VTA_OK; /* zero iterations */
	int rc = check_index(sl, "micro-op", in->uop_end - 1, VTA_UOP_BUFF_DEPTH, err);
	if (rc)
		return rc;

	/* Bounds of every index the loops will reach, checked before anything
	 * is written, so a failing instruction changes nothing. */
	uint32_t n_uops = in->uop_end - in->uop_bgn;
	uint32_t max_dst = 0, max_src = 0, max_wgt = 0;
	for (uint32_t u = 0; u < n_uops; u++) {
		vta_uop_t *op = &s->uops[u];
		vta_uop_decode(s->uop[in->uop_bgn + u], op);
		if (op->dst_idx > max_dst) max_dst = op->dst_idx;
		if (op->src_idx > max_src) max_src = op->src_idx;
		if (op->wgt_idx > max_wgt) max_wgt = op->wgt_idx;
	}
	uint64_t top_dst = max_index(max_dst, in->iter_out, in->dst_factor_out, in->iter_in,
				     in->dst_factor_in);
	rc = check_index(sl, "ACC", top_dst, VTA_ACC_BUFF_DEPTH, err);
	if (rc)
		return rc;
	if (is_gemm && !in->reset) {
		rc = check_index(sl, "INP", max_index(max_src, in->iter_out, in->src_factor_out,
						      in->iter_in, in->src_factor_in),
				 VTA_INP_BUFF_DEPTH, err);
		if (!rc)
			rc = check_index(sl, "WGT", max_index(max_wgt, in->iter_out, in->wgt_factor_out,
							      in->iter_in, in->wgt_factor_in),
					 VTA_WGT_BUFF_DEPTH, err);
	} else if (!is_gemm) {
		rc = check_index(sl, "source ACC", max_index(max_src, in->iter_out, in->src_factor_out,
							     in->iter_in, in->src_factor_in),
				 VTA_ACC_BUFF_DEPTH, err);
	}
	if (rc)
		return rc;

	uint64_t total = (uint64_t)in->iter_out * in->iter_in * n_uops;
	if (is_gemm && !in->reset) {
		group_uops(s, n_uops);
		Gemm g = {(uint32_t *)s->acc, s->inp16, s->inp_np, s->wgt_pairs, s->out_due, s->uops, n_uops, in};
#if VTA_FSIM_AVX2
		if (s->simd)
			gemm_avx2(&g);
		else
#endif
			gemm_portable(&g);
		s->ctr.gemm_uops += total;
		return VTA_OK;
	}
	if (is_gemm) { /* reset: zero ACC and OUT at every destination */
		for (uint32_t o = 0; o < in->iter_out; o++)
			for (uint32_t i = 0; i < in->iter_in; i++)
				for (uint32_t u = 0; u < n_uops; u++) {
					size_t d = (size_t)(s->uops[u].dst_idx + o * in->dst_factor_out +
							    i * in->dst_factor_in) * ACC_LANES;
					memset(s->acc + d, 0, ACC_LANES * sizeof *s->acc);
					memset(s->out + d, 0, ACC_LANES);
				}
	} else {
		alu_loops(s->acc, s->out_due, s->uops, n_uops, in);
	}
	if (is_gemm)
		s->ctr.gemm_reset_uops += total;
	else
		s->ctr.alu_uops += total;
	return VTA_OK;
}

/* ------------------------------------------------------------------------ */
/* Token queues (VTA-SPEC 4.3, 4.10).                                        */

/* The queues an instruction of module m pops and pushes: -1 for none. */
static void token_queues(vta_module_t m, const vta_insn_t *in, int pop[2], int push[2])
{
	pop[0] = pop[1] = push[0] = push[1] = -1;
	switch (m) {
	case VTA_MODULE_LOAD:
		if (in->pop_next) pop[0] = VTA_Q_G2L;
		if (in->push_next) push[0] = VTA_Q_L2G;
		break;
	case VTA_MODULE_COMPUTE:
		if (in->pop_prev) pop[0] = VTA_Q_L2G;
		if (in->pop_next) pop[1] = VTA_Q_S2G;
		if (in->push_prev) push[0] = VTA_Q_G2L;
		if (in->push_next) push[1] = VTA_Q_G2S;
		break;
	case VTA_MODULE_STORE:
		if (in->pop_prev) pop[0] = VTA_Q_G2S;
		if (in->push_prev) push[0] = VTA_Q_S2G;
		break;
	}
}

static int execute(vta_fsim_t *s, const Slot *sl, vta_error_t *err)
{
	const vta_insn_t *in = &sl->insn;
	s->ctr.insns[in->opcode & 7]++;
	switch (in->opcode) {
	case VTA_OPCODE_LOAD: return exec_load(s, sl, err);
	case VTA_OPCODE_STORE: return exec_store(s, sl, err);
	case VTA_OPCODE_GEMM:
	case VTA_OPCODE_ALU: return exec_compute(s, sl, err);
	default: return VTA_OK; /* FINISH */
	}
}

/* Describe every blocked head instruction for a deadlock message. */
static int deadlock_error(vta_fsim_t *s, uint32_t fetched, uint32_t count, vta_error_t *err)
{
	char msg[VTA_ERROR_MSG_MAX];
	size_t len = 0;
	long first = -1;
	for (int m = 1; m <= 3; m++) {
		InsnQueue *q = &s->queue[m];
		if (!q->count)
			continue;
		const Slot *sl = &q->slot[q->head];
		int pop[2], push[2];
		token_queues((vta_module_t)m, &sl->insn, pop, push);
		char text[160];
		vta_insn_format(&sl->insn, text, sizeof text);
		int k = snprintf(msg + len, sizeof msg - len, "%s%s waits at instruction %" PRIu32 " (%s) for",
				 len ? "; " : "", module_name[m], sl->index, text);
		if (k > 0 && (size_t)k < sizeof msg - len)
			len += (size_t)k;
		for (int j = 0; j < 2; j++)
			if (pop[j] >= 0 && s->tokens[pop[j]] == 0) {
				k = snprintf(msg + len, sizeof msg - len, " a %s token", queue_name[pop[j]]);
				if (k > 0 && (size_t)k < sizeof msg - len)
					len += (size_t)k;
			}
		if (first < 0 || sl->index < (uint32_t)first)
			first = sl->index;
	}
	if (first < 0)
		return vta_error_set(err, VTA_EDEADLOCK, count ? (long)count - 1 : -1,
				     "the stream of %" PRIu32 " instructions ended without FINISH", count);
	return vta_error_set(err, VTA_EDEADLOCK, first, "deadlock after fetching %" PRIu32 " of %" PRIu32
			     " instructions: %s", fetched, count, msg);
}

static int run(vta_fsim_t *s, uint64_t insn_addr, uint32_t insn_count, vta_error_t *err);

int vta_fsim_run(vta_fsim_t *s, uint64_t insn_addr, uint32_t insn_count, vta_error_t *err)
{
	int rc = run(s, insn_addr, insn_count, err);
	flush_out(s, 0, VTA_ACC_BUFF_DEPTH); /* the host sees OUT as the hardware leaves it */
	return rc;
}

static int run(vta_fsim_t *s, uint64_t insn_addr, uint32_t insn_count, vta_error_t *err)
{
	vta_error_clear(err);
	if (insn_addr % 16)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "instruction address 0x%" PRIX64 " is not 16-byte aligned", insn_addr);
	if (insn_addr > s->dram_size || (uint64_t)insn_count * 16 > s->dram_size - insn_addr)
		return vta_error_set(err, VTA_ERANGE, -1,
				     "%" PRIu32 " instructions at 0x%" PRIX64
				     " do not lie inside the %zu-byte DRAM",
				     insn_count, insn_addr, s->dram_size);
	for (int m = 1; m <= 3; m++)
		s->queue[m].head = s->queue[m].count = 0;
	if (s->shadow_stale)
		rebuild_shadows(s);

	uint32_t fetched = 0;
	for (;;) {
		int progress = 0;
		/* Fetch: dispatch in program order; a full queue blocks everything. */
		while (fetched < insn_count) {
			Slot sl = {.index = fetched};
			vta_insn_word_t w;
			vta_insn_load(s->dram + insn_addr + 16 * (uint64_t)fetched, &w);
			vta_insn_decode(&w, &sl.insn);
			InsnQueue *q = &s->queue[vta_insn_module(&sl.insn)];
			if (q->count == VTA_INSN_QUEUE_DEPTH)
				break;
			int rc = check_legal(&sl, err);
			if (rc)
				return rc;
			q->slot[(q->head + q->count) % VTA_INSN_QUEUE_DEPTH] = sl;
			q->count++;
			fetched++;
			s->ctr.insn_bytes_read += 16;
			progress = 1;
		}
		/* Each module runs its head instructions while their tokens are there. */
		for (int m = 1; m <= 3; m++) {
			InsnQueue *q = &s->queue[m];
			while (q->count) {
				Slot *sl = &q->slot[q->head];
				int pop[2], push[2], ready = 1;
				token_queues((vta_module_t)m, &sl->insn, pop, push);
				for (int j = 0; j < 2; j++)
					if (pop[j] >= 0 && s->tokens[pop[j]] == 0) {
						if (!(sl->waited & (1u << pop[j])))
							s->ctr.token_waits[pop[j]]++;
						sl->waited |= (uint8_t)(1u << pop[j]);
						ready = 0;
					}
				if (!ready)
					break;
				for (int j = 0; j < 2; j++)
					if (pop[j] >= 0)
						s->tokens[pop[j]]--;
				int rc = execute(s, sl, err);
				if (rc)
					return rc;
				for (int j = 0; j < 2; j++) {
					if (push[j] < 0)
						continue;
					if (s->tokens[push[j]] == VTA_TOKEN_QUEUE_DEPTH)
						return insn_error(err, VTA_ETOKEN, sl,
								  "token queue %s already holds %d tokens",
								  queue_name[push[j]], VTA_TOKEN_QUEUE_DEPTH);
					s->tokens[push[j]]++;
				}
				int finished = sl->insn.opcode == VTA_OPCODE_FINISH;
				q->head = (q->head + 1) % VTA_INSN_QUEUE_DEPTH;
				q->count--;
				progress = 1;
				if (finished)
					return VTA_OK; /* instructions still queued are dropped */
			}
		}
		if (!progress)
			return deadlock_error(s, fetched, insn_count, err);
	}
}
