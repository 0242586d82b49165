/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Encode, decode and print VTA instructions and micro-ops.
 *
 * Each format is a table of fields; a field's position and width come from
 * the generated <vta/vta_config.h>, its place in vta_insn_t from offsetof.
 * Fields never straddle the two 64-bit words (the packing rule guarantees
 * it), so every access is one shift and one mask on one word.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <vta/isa.h>

typedef struct {
	const char *name; /* as it appears in error messages */
	int lsb, width;
	size_t offset; /* of the uint32_t (or int32_t imm) in vta_insn_t */
	int is_signed;
} FieldDesc;

#define FIELD(fmt, NAME, member, sgn)                                            \
	{                                                                        \
		#member, VTA_##fmt##_##NAME##_LSB, VTA_##fmt##_##NAME##_WIDTH,   \
			offsetof(vta_insn_t, member), sgn                        \
	}

#define HEADER(fmt)                                                              \
	FIELD(fmt, OPCODE, opcode, 0), FIELD(fmt, POP_PREV, pop_prev, 0),        \
		FIELD(fmt, POP_NEXT, pop_next, 0), FIELD(fmt, PUSH_PREV, push_prev, 0), \
		FIELD(fmt, PUSH_NEXT, push_next, 0)

static const FieldDesc mem_fields[] = {
	HEADER(MEM),
	FIELD(MEM, MEMORY_TYPE, memory_type, 0),
	FIELD(MEM, SRAM_BASE, sram_base, 0),
	FIELD(MEM, DRAM_BASE, dram_base, 0),
	FIELD(MEM, Y_SIZE, y_size, 0),
	FIELD(MEM, X_SIZE, x_size, 0),
	FIELD(MEM, X_STRIDE, x_stride, 0),
	FIELD(MEM, Y_PAD_0, y_pad_0, 0),
	FIELD(MEM, Y_PAD_1, y_pad_1, 0),
	FIELD(MEM, X_PAD_0, x_pad_0, 0),
	FIELD(MEM, X_PAD_1, x_pad_1, 0),
	{NULL, 0, 0, 0, 0},
};

#define COMPUTE_COMMON(fmt)                                                      \
	HEADER(fmt), FIELD(fmt, RESET, reset, 0), FIELD(fmt, UOP_BGN, uop_bgn, 0), \
		FIELD(fmt, UOP_END, uop_end, 0), FIELD(fmt, ITER_OUT, iter_out, 0), \
		FIELD(fmt, ITER_IN, iter_in, 0),                                 \
		FIELD(fmt, DST_FACTOR_OUT, dst_factor_out, 0),                   \
		FIELD(fmt, DST_FACTOR_IN, dst_factor_in, 0),                     \
		FIELD(fmt, SRC_FACTOR_OUT, src_factor_out, 0),                   \
		FIELD(fmt, SRC_FACTOR_IN, src_factor_in, 0)

static const FieldDesc gemm_fields[] = {
	COMPUTE_COMMON(GEMM),
	FIELD(GEMM, WGT_FACTOR_OUT, wgt_factor_out, 0),
	FIELD(GEMM, WGT_FACTOR_IN, wgt_factor_in, 0),
	{NULL, 0, 0, 0, 0},
};

static const FieldDesc alu_fields[] = {
	COMPUTE_COMMON(ALU),
	FIELD(ALU, ALU_OPCODE, alu_opcode, 0),
	FIELD(ALU, USE_IMM, use_imm, 0),
	FIELD(ALU, IMM, imm, 1),
	{NULL, 0, 0, 0, 0},
};

/* FINISH and reserved opcodes: the header only (GEMM positions, all equal). */
static const FieldDesc header_fields[] = {
	HEADER(GEMM),
	{NULL, 0, 0, 0, 0},
};

static const FieldDesc *format_of(uint32_t opcode)
{
	switch (opcode) {
	case VTA_OPCODE_LOAD:
	case VTA_OPCODE_STORE: return mem_fields;
	case VTA_OPCODE_GEMM: return gemm_fields;
	case VTA_OPCODE_ALU: return alu_fields;
	default: return header_fields;
	}
}

static uint64_t mask_of(int width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

static int64_t field_value(const vta_insn_t *in, const FieldDesc *f)
{
	const char *base = (const char *)in + f->offset;
	if (f->is_signed) {
		int32_t v;
		memcpy(&v, base, sizeof v);
		return v;
	}
	uint32_t v;
	memcpy(&v, base, sizeof v);
	return v;
}

static void set_field_value(vta_insn_t *out, const FieldDesc *f, uint64_t raw)
{
	char *base = (char *)out + f->offset;
	if (f->is_signed) {
		/* Sign-extend the field. */
		uint64_t sign = 1ull << (f->width - 1);
		int32_t v = (int32_t)(int64_t)((raw ^ sign) - sign);
		memcpy(base, &v, sizeof v);
	} else {
		uint32_t v = (uint32_t)raw;
		memcpy(base, &v, sizeof v);
	}
}

static int field_in_list(const FieldDesc *list, const FieldDesc *f)
{
	for (; list->name; list++)
		if (list->offset == f->offset)
			return 1;
	return 0;
}

int vta_insn_encode(const vta_insn_t *in, vta_insn_word_t *out, vta_error_t *err)
{
	out->w[0] = out->w[1] = 0;
	if (in->opcode > 7)
		return vta_error_set(err, VTA_ERANGE, -1, "opcode = %" PRIu32 " does not fit its 3-bit field",
				     in->opcode);
	const FieldDesc *fmt = format_of(in->opcode);
	/* Fields of vta_insn_t that this format does not carry must be zero. */
	static const FieldDesc *const formats[] = {mem_fields, gemm_fields, alu_fields};
	for (int i = 0; i < 3; i++)
		for (const FieldDesc *f = formats[i]; f->name; f++)
			if (!field_in_list(fmt, f) && field_value(in, f) != 0)
				return vta_error_set(err, VTA_EINVAL, -1,
						     "%s = %lld is not a field of %s instructions",
						     f->name, (long long)field_value(in, f),
						     vta_opcode_name(in->opcode));
	for (const FieldDesc *f = fmt; f->name; f++) {
		int64_t v = field_value(in, f);
		if (f->is_signed) {
			int64_t lo = -(1ll << (f->width - 1)), hi = (1ll << (f->width - 1)) - 1;
			if (v < lo || v > hi)
				return vta_error_set(err, VTA_ERANGE, -1,
						     "%s = %lld does not fit its signed %d-bit field "
						     "(%lld..%lld)",
						     f->name, (long long)v, f->width, (long long)lo,
						     (long long)hi);
		} else if ((uint64_t)v > mask_of(f->width)) {
			return vta_error_set(err, VTA_ERANGE, -1,
					     "%s = %lld does not fit its %d-bit field (at most %llu)",
					     f->name, (long long)v, f->width,
					     (unsigned long long)mask_of(f->width));
		}
		out->w[f->lsb / 64] |= ((uint64_t)v & mask_of(f->width)) << (f->lsb % 64);
	}
	return VTA_OK;
}

void vta_insn_decode(const vta_insn_word_t *w, vta_insn_t *out)
{
	memset(out, 0, sizeof *out);
	uint32_t opcode = (uint32_t)((w->w[0] >> VTA_MEM_OPCODE_LSB) & 7);
	for (const FieldDesc *f = format_of(opcode); f->name; f++)
		set_field_value(out, f, (w->w[f->lsb / 64] >> (f->lsb % 64)) & mask_of(f->width));
}

int vta_uop_encode(const vta_uop_t *in, uint32_t *out, vta_error_t *err)
{
	static const struct {
		const char *name;
		int lsb, width;
	} f[3] = {
		{"dst_idx", VTA_UOP_DST_IDX_LSB, VTA_UOP_DST_IDX_WIDTH},
		{"src_idx", VTA_UOP_SRC_IDX_LSB, VTA_UOP_SRC_IDX_WIDTH},
		{"wgt_idx", VTA_UOP_WGT_IDX_LSB, VTA_UOP_WGT_IDX_WIDTH},
	};
	uint32_t v[3] = {in->dst_idx, in->src_idx, in->wgt_idx};
	uint32_t word = 0;
	for (int i = 0; i < 3; i++) {
		if (v[i] > mask_of(f[i].width))
			return vta_error_set(err, VTA_ERANGE, -1,
					     "micro-op %s = %" PRIu32 " does not fit its %d-bit field",
					     f[i].name, v[i], f[i].width);
		word |= v[i] << f[i].lsb;
	}
	*out = word;
	return VTA_OK;
}

void vta_uop_decode(uint32_t word, vta_uop_t *out)
{
	out->dst_idx = (uint32_t)((word >> VTA_UOP_DST_IDX_LSB) & mask_of(VTA_UOP_DST_IDX_WIDTH));
	out->src_idx = (uint32_t)((word >> VTA_UOP_SRC_IDX_LSB) & mask_of(VTA_UOP_SRC_IDX_WIDTH));
	out->wgt_idx = (uint32_t)((word >> VTA_UOP_WGT_IDX_LSB) & mask_of(VTA_UOP_WGT_IDX_WIDTH));
}

void vta_insn_store(const vta_insn_word_t *w, uint8_t bytes[16])
{
	for (int i = 0; i < 16; i++)
		bytes[i] = (uint8_t)(w->w[i / 8] >> (8 * (i % 8)));
}

void vta_insn_load(const uint8_t bytes[16], vta_insn_word_t *w)
{
	w->w[0] = w->w[1] = 0;
	for (int i = 0; i < 16; i++)
		w->w[i / 8] |= (uint64_t)bytes[i] << (8 * (i % 8));
}

vta_module_t vta_insn_module(const vta_insn_t *in)
{
	if (in->opcode == VTA_OPCODE_LOAD &&
	    (in->memory_type == VTA_MEM_ID_INP || in->memory_type == VTA_MEM_ID_WGT))
		return VTA_MODULE_LOAD;
	if (in->opcode == VTA_OPCODE_STORE)
		return VTA_MODULE_STORE;
	return VTA_MODULE_COMPUTE;
}

uint32_t vta_mem_elem_bytes(unsigned memory_type)
{
	switch (memory_type) {
	case VTA_MEM_ID_UOP: return VTA_UOP_ELEM_BYTES;
	case VTA_MEM_ID_WGT: return VTA_WGT_ELEM_BYTES;
	case VTA_MEM_ID_INP: return VTA_INP_ELEM_BYTES;
	case VTA_MEM_ID_ACC: return VTA_ACC_ELEM_BYTES;
	case VTA_MEM_ID_OUT: return VTA_OUT_ELEM_BYTES;
	case VTA_MEM_ID_ACC_8BIT: return VTA_ACC8_ELEM_BYTES;
	default: return 0;
	}
}

uint32_t vta_mem_depth(unsigned memory_type)
{
	switch (memory_type) {
	case VTA_MEM_ID_UOP: return VTA_UOP_BUFF_DEPTH;
	case VTA_MEM_ID_WGT: return VTA_WGT_BUFF_DEPTH;
	case VTA_MEM_ID_INP: return VTA_INP_BUFF_DEPTH;
	case VTA_MEM_ID_ACC:
	case VTA_MEM_ID_ACC_8BIT: return VTA_ACC_BUFF_DEPTH;
	case VTA_MEM_ID_OUT: return VTA_OUT_BUFF_DEPTH;
	default: return 0;
	}
}

const char *vta_opcode_name(unsigned opcode)
{
	static const char *names[8] = {"load", "store", "gemm", "finish",
				       "alu", "opcode5", "opcode6", "opcode7"};
	return opcode < 8 ? names[opcode] : "opcode?";
}

const char *vta_mem_name(unsigned memory_type)
{
	static const char *names[8] = {"uop", "wgt", "inp", "acc", "out", "acc8", "mem6", "mem7"};
	return memory_type < 8 ? names[memory_type] : "mem?";
}

const char *vta_alu_name(unsigned alu_opcode)
{
	static const char *names[8] = {"min", "max", "add", "shr", "mul", "alu5", "alu6", "alu7"};
	return alu_opcode < 8 ? names[alu_opcode] : "alu?";
}

/* ------------------------------------------------------------------------ */
/* Printing (the syntax is read back by isa/asm.c; see docs/assembly.md).     */

typedef struct {
	char *buf;
	size_t n, len;
} Printer;

static void put(Printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Printer *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = p->len < p->n ? p->n - p->len : 0;
	int k = vsnprintf(p->buf + (room ? p->len : 0), room, fmt, ap);
	va_end(ap);
	if (k > 0)
		p->len += (size_t)k;
}

int vta_insn_format(const vta_insn_t *in, char *buf, size_t n)
{
	Printer p = {buf, n, 0};
	if (n)
		buf[0] = 0;
	switch (in->opcode) {
	case VTA_OPCODE_LOAD:
	case VTA_OPCODE_STORE:
		put(&p, "%s %s sram=%" PRIu32 " dram=0x%" PRIX32 " y=%" PRIu32 " x=%" PRIu32
			" stride=%" PRIu32,
		    vta_opcode_name(in->opcode), vta_mem_name(in->memory_type), in->sram_base,
		    in->dram_base, in->y_size, in->x_size, in->x_stride);
		if (in->y_pad_0 || in->y_pad_1)
			put(&p, " ypad=%" PRIu32 ",%" PRIu32, in->y_pad_0, in->y_pad_1);
		if (in->x_pad_0 || in->x_pad_1)
			put(&p, " xpad=%" PRIu32 ",%" PRIu32, in->x_pad_0, in->x_pad_1);
		break;
	case VTA_OPCODE_GEMM:
	case VTA_OPCODE_ALU:
		put(&p, "%s", vta_opcode_name(in->opcode));
		if (in->opcode == VTA_OPCODE_ALU)
			put(&p, " %s", vta_alu_name(in->alu_opcode));
		if (in->reset)
			put(&p, " reset");
		put(&p,
		    " uop=%" PRIu32 ",%" PRIu32 " iter=%" PRIu32 ",%" PRIu32 " dst=%" PRIu32
		    ",%" PRIu32 " src=%" PRIu32 ",%" PRIu32,
		    in->uop_bgn, in->uop_end, in->iter_out, in->iter_in, in->dst_factor_out,
		    in->dst_factor_in, in->src_factor_out, in->src_factor_in);
		if (in->opcode == VTA_OPCODE_GEMM)
			put(&p, " wgt=%" PRIu32 ",%" PRIu32, in->wgt_factor_out, in->wgt_factor_in);
		else if (in->use_imm)
			put(&p, " imm=%" PRId32, in->imm);
		break;
	default:
		put(&p, "%s", vta_opcode_name(in->opcode));
		break;
	}
	if (in->pop_prev)
		put(&p, " pop_prev");
	if (in->pop_next)
		put(&p, " pop_next");
	if (in->push_prev)
		put(&p, " push_prev");
	if (in->push_next)
		put(&p, " push_next");
	return (int)p.len;
}

int vta_insn_word_format(const vta_insn_word_t *w, char *buf, size_t n)
{
	vta_insn_t in;
	vta_insn_word_t again;
	vta_insn_decode(w, &in);
	int canonical = in.opcode != 5 && in.opcode != 6 && in.opcode != 7 &&
			!(in.opcode == VTA_OPCODE_ALU && !in.use_imm && in.imm != 0) &&
			vta_insn_encode(&in, &again, NULL) == VTA_OK && again.w[0] == w->w[0] &&
			again.w[1] == w->w[1];
	if (canonical)
		return vta_insn_format(&in, buf, n);
	Printer p = {buf, n, 0};
	char decoded[256];
	vta_insn_format(&in, decoded, sizeof decoded);
	put(&p, ".insn 0x%016" PRIX64 " 0x%016" PRIX64 "  # %s", w->w[0], w->w[1], decoded);
	return (int)p.len;
}
