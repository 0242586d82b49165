/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VTA assembler and disassembler, and the binary program files
 * (include/vta/asm.h, syntax in docs/assembly.md).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/asm.h>
#include <vta/util.h>
#include <vta/bytes.h>

#define IMAGE_MAGIC "VTAPROG1"
#define MAX_LINE 4096

/* ------------------------------------------------------------------------ */
/* Growing the program.                                                      */

static int add_insn(vta_program_t *p, const vta_insn_word_t *w)
{
	if (p->n_insns == p->cap_insns) {
		size_t cap = p->cap_insns ? 2 * p->cap_insns : 64;
		vta_insn_word_t *n = realloc(p->insns, cap * sizeof *n);
		if (!n)
			return VTA_ENOMEM;
		p->insns = n;
		p->cap_insns = cap;
	}
	p->insns[p->n_insns++] = *w;
	return VTA_OK;
}

static vta_segment_t *new_segment(vta_program_t *p, uint64_t addr)
{
	vta_segment_t *n = realloc(p->segs, (p->n_segs + 1) * sizeof *n);
	if (!n)
		return NULL;
	p->segs = n;
	vta_segment_t *s = &p->segs[p->n_segs++];
	s->addr = addr;
	s->bytes = NULL;
	s->len = 0;
	return s;
}

static int append_bytes(vta_segment_t *s, const void *data, size_t len)
{
	uint8_t *n = realloc(s->bytes, s->len + len);
	if (!n && s->len + len)
		return VTA_ENOMEM;
	s->bytes = n;
	memcpy(s->bytes + s->len, data, len);
	s->len += len;
	return VTA_OK;
}

void vta_program_free(vta_program_t *p)
{
	if (!p)
		return;
	free(p->insns);
	for (size_t i = 0; i < p->n_segs; i++)
		free(p->segs[i].bytes);
	free(p->segs);
	free(p->prints);
	memset(p, 0, sizeof *p);
}

/* a + b, or UINT64_MAX when the sum does not fit. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t text_end(const vta_program_t *p)
{
	uint64_t n = p->n_insns; /* size_t may be 32 bits (armhf) */
	return n > UINT64_MAX / 16 ? UINT64_MAX : add_sat(p->text_addr, 16 * n);
}

/* rows * cols values of 1 or 4 bytes: at most 2^66, so saturate too. */
static uint64_t print_end(const vta_print_t *r)
{
	uint64_t n = (uint64_t)r->rows * r->cols;
	uint64_t bytes = r->type == VTA_PRINT_I32 ? (n > UINT64_MAX / 4 ? UINT64_MAX : 4 * n) : n;
	return add_sat(r->addr, bytes);
}

uint64_t vta_program_extent(const vta_program_t *p)
{
	uint64_t end = text_end(p);
	for (size_t i = 0; i < p->n_segs; i++) {
		uint64_t e = add_sat(p->segs[i].addr, p->segs[i].len);
		if (e > end)
			end = e;
	}
	for (size_t i = 0; i < p->n_prints; i++) {
		uint64_t e = print_end(&p->prints[i]);
		if (e > end)
			end = e;
	}
	return end;
}

/*
 * Every piece of the program inside its DRAM: .dram when given, else
 * VTA_PROGRAM_MAX_DRAM. name prefixes the message ("file.s", "file.bin").
 */
static int check_extent(const vta_program_t *p, const char *name, vta_error_t *err)
{
	const uint64_t max = VTA_PROGRAM_MAX_DRAM;
	if (p->dram_bytes > max)
		return vta_error_set(err, VTA_ERANGE, -1,
				     "%s: .dram %" PRIu64 " is more than the %" PRIu64
				     " bytes a program may claim", name, p->dram_bytes, max);
	const uint64_t *regs[5] = {&p->bases.uop, &p->bases.inp, &p->bases.wgt, &p->bases.acc,
				   &p->bases.out};
	static const char *names[5] = {"uop", "inp", "wgt", "acc", "out"};
	for (int i = 0; i < 5; i++)
		if (*regs[i] > max)
			return vta_error_set(err, VTA_ERANGE, -1,
					     "%s: .base %s 0x%" PRIX64 " lies beyond the %" PRIu64
					     " bytes a program may address", name, names[i], *regs[i], max);
	uint64_t limit = p->dram_bytes ? p->dram_bytes : max;
	const char *of = p->dram_bytes ? "of .dram" : "a program may claim";
	if (text_end(p) > limit)
		return vta_error_set(err, VTA_ERANGE, -1,
				     "%s: the %zu instructions at 0x%" PRIX64 " do not fit in the %" PRIu64
				     " bytes %s", name, p->n_insns, p->text_addr, limit, of);
	for (size_t i = 0; i < p->n_segs; i++)
		if (add_sat(p->segs[i].addr, p->segs[i].len) > limit)
			return vta_error_set(err, VTA_ERANGE, -1,
					     "%s: data segment %zu (%zu bytes at 0x%" PRIX64 ") does not fit "
					     "in the %" PRIu64 " bytes %s", name, i, p->segs[i].len,
					     p->segs[i].addr, limit, of);
	for (size_t i = 0; i < p->n_prints; i++)
		if (print_end(&p->prints[i]) > limit)
			return vta_error_set(err, VTA_ERANGE, -1,
					     "%s: result region %s (%" PRIu32 " x %" PRIu32 " at 0x%" PRIX64
					     ") does not fit in the %" PRIu64 " bytes %s", name,
					     p->prints[i].name, p->prints[i].rows, p->prints[i].cols,
					     p->prints[i].addr, limit, of);
	return VTA_OK;
}

int vta_program_place(const vta_program_t *p, uint8_t *dram, uint64_t size, vta_error_t *err)
{
	uint64_t need = vta_program_extent(p);
	if (need > size)
		return vta_error_set(err, VTA_ERANGE, -1,
				     "the program needs %" PRIu64 " bytes of DRAM, more than %" PRIu64,
				     need, size);
	for (size_t i = 0; i < p->n_segs; i++)
		if (p->segs[i].len)
			memcpy(dram + p->segs[i].addr, p->segs[i].bytes, p->segs[i].len);
	for (size_t i = 0; i < p->n_insns; i++)
		vta_insn_store(&p->insns[i], dram + p->text_addr + 16 * i);
	return VTA_OK;
}

/* A result-region name the assembler reads back as one token. */
static int print_name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s) || *s == '#')
			return 0;
	return 1;
}

#define PRINT_MAX_DIM (1 << 20)

/*
 * What the assembler and the reader both require of a program, so that any
 * program one accepts the other reads back from its disassembly: everything
 * inside the DRAM, result regions the assembler can write, and data segments
 * and the text apart (an image with overlaps would be ambiguous).
 */
static int check_program(const vta_program_t *p, const char *name, vta_error_t *err)
{
	int rc = check_extent(p, name, err);
	if (rc)
		return rc;
	if (p->text_addr % 16)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "%s: the instructions at 0x%" PRIX64 " are not 16-byte aligned", name,
				     p->text_addr);
	for (size_t i = 0; i < p->n_prints; i++) {
		const vta_print_t *r = &p->prints[i];
		if (!print_name_ok(r->name))
			return vta_error_set(err, VTA_EINVAL, -1,
					     "%s: result region %zu has the name \"%s\": names are "
					     "printable characters other than '#'", name, i, r->name);
		if (r->rows < 1 || r->rows > PRINT_MAX_DIM || r->cols < 1 || r->cols > PRINT_MAX_DIM)
			return vta_error_set(err, VTA_ERANGE, -1,
					     "%s: result region %s is %" PRIu32 " x %" PRIu32 ": rows and "
					     "columns are 1..%d", name, r->name, r->rows, r->cols, PRINT_MAX_DIM);
	}
	/* Inside the limit, no end below overflows. */
	size_t n = p->n_segs;
	for (size_t i = 0; i <= n; i++) {
		uint64_t lo1 = i < n ? p->segs[i].addr : p->text_addr;
		uint64_t hi1 = i < n ? lo1 + p->segs[i].len : lo1 + 16 * p->n_insns;
		for (size_t j = i + 1; j <= n; j++) {
			uint64_t lo2 = j < n ? p->segs[j].addr : p->text_addr;
			uint64_t hi2 = j < n ? lo2 + p->segs[j].len : lo2 + 16 * p->n_insns;
			if (lo1 < hi2 && lo2 < hi1)
				return vta_error_set(err, VTA_EINVAL, -1,
						     "%s: %s at 0x%" PRIX64 " overlaps %s at 0x%" PRIX64,
						     name, "data", lo1, j < n ? "data" : "the instructions",
						     lo2);
		}
	}
	return VTA_OK;
}

/* ------------------------------------------------------------------------ */
/* Assembler.                                                                */

typedef struct {
	const char *name;
	int line;
	vta_error_t *err;
	vta_program_t *prog;
	vta_segment_t *seg; /* where data directives append, or NULL */
} Asm;

static int asm_error(Asm *a, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int asm_error(Asm *a, int code, const char *fmt, ...)
{
	char why[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return vta_error_set(a->err, code, -1, "%s:%d: %s", a->name, a->line, why);
}

/* Parse an integer (decimal, 0x hex, optional sign) that is the whole token. */
static int parse_int(Asm *a, const char *tok, const char *what, long long lo, long long hi,
		     long long *out)
{
	char *end;
	errno = 0;
	long long v;
	if (*tok == '-')
		v = strtoll(tok, &end, 0);
	else
		v = (long long)strtoull(tok, &end, 0);
	if (end == tok || *end || errno)
		return asm_error(a, VTA_EINVAL, "%s: \"%s\" is not a number", what, tok);
	if (v < lo || v > hi)
		return asm_error(a, VTA_ERANGE, "%s = %s is out of range (%lld..%lld)", what, tok, lo, hi);
	*out = v;
	return VTA_OK;
}

/* Parse "a,b" into two unsigned 32-bit values. */
static int parse_pair(Asm *a, const char *key, const char *val, uint32_t *x, uint32_t *y)
{
	char buf[128];
	const char *comma = strchr(val, ',');
	if (!comma || strlen(val) >= sizeof buf)
		return asm_error(a, VTA_EINVAL, "%s needs two values written as %s=A,B", key, key);
	memcpy(buf, val, (size_t)(comma - val));
	buf[comma - val] = 0;
	long long v1, v2;
	int rc = parse_int(a, buf, key, 0, UINT32_MAX, &v1);
	if (!rc)
		rc = parse_int(a, comma + 1, key, 0, UINT32_MAX, &v2);
	if (rc)
		return rc;
	*x = (uint32_t)v1;
	*y = (uint32_t)v2;
	return VTA_OK;
}

static int lookup(const char *(*namer)(unsigned), const char *tok)
{
	for (unsigned i = 0; i < 8; i++)
		if (!strcmp(namer(i), tok))
			return (int)i;
	return -1;
}

/* One instruction line: tokens tok[0..n). */
static int asm_insn(Asm *a, char **tok, int n)
{
	vta_insn_t in;
	memset(&in, 0, sizeof in);
	int op = lookup(vta_opcode_name, tok[0]);
	if (op < 0 || op > VTA_OPCODE_ALU)
		return asm_error(a, VTA_EINVAL, "unknown instruction \"%s\"", tok[0]);
	in.opcode = (uint32_t)op;
	int i = 1;
	if (op == VTA_OPCODE_LOAD || op == VTA_OPCODE_STORE) {
		int t = i < n ? lookup(vta_mem_name, tok[i]) : -1;
		if (t < 0)
			return asm_error(a, VTA_EINVAL, "%s needs a memory type (uop, wgt, inp, acc, out, acc8)",
					 tok[0]);
		in.memory_type = (uint32_t)t;
		i++;
	} else if (op == VTA_OPCODE_ALU) {
		int t = i < n ? lookup(vta_alu_name, tok[i]) : -1;
		if (t < 0)
			return asm_error(a, VTA_EINVAL, "alu needs an operation (min, max, add, shr, mul)");
		in.alu_opcode = (uint32_t)t;
		i++;
	}
	int is_mem = op == VTA_OPCODE_LOAD || op == VTA_OPCODE_STORE;
	int is_compute = op == VTA_OPCODE_GEMM || op == VTA_OPCODE_ALU;
	char seen[32][16];
	int n_seen = 0;
	for (; i < n; i++) {
		char key[16];
		const char *eq = strchr(tok[i], '=');
		size_t klen = eq ? (size_t)(eq - tok[i]) : strlen(tok[i]);
		if (klen >= sizeof key)
			return asm_error(a, VTA_EINVAL, "unknown operand \"%s\"", tok[i]);
		memcpy(key, tok[i], klen);
		key[klen] = 0;
		for (int j = 0; j < n_seen; j++)
			if (!strcmp(seen[j], key))
				return asm_error(a, VTA_EINVAL, "operand %s given twice", key);
		if (n_seen < 32)
			strcpy(seen[n_seen++], key);
		const char *val = eq ? eq + 1 : NULL;
		long long v;
		int rc = VTA_OK;
		uint32_t *flag = !strcmp(key, "pop_prev")    ? &in.pop_prev
				 : !strcmp(key, "pop_next")  ? &in.pop_next
				 : !strcmp(key, "push_prev") ? &in.push_prev
				 : !strcmp(key, "push_next") ? &in.push_next
				 : (!strcmp(key, "reset") && is_compute) ? &in.reset
									  : NULL;
		if (flag) {
			if (val)
				return asm_error(a, VTA_EINVAL, "%s is a flag and takes no value", key);
			*flag = 1;
			continue;
		}
		if (!val)
			return asm_error(a, VTA_EINVAL, "unknown operand \"%s\" for %s", key, tok[0]);
		if (is_mem && !strcmp(key, "sram")) {
			rc = parse_int(a, val, key, 0, UINT32_MAX, &v);
			in.sram_base = (uint32_t)v;
		} else if (is_mem && !strcmp(key, "dram")) {
			rc = parse_int(a, val, key, 0, UINT32_MAX, &v);
			in.dram_base = (uint32_t)v;
		} else if (is_mem && !strcmp(key, "y")) {
			rc = parse_int(a, val, key, 0, UINT32_MAX, &v);
			in.y_size = (uint32_t)v;
		} else if (is_mem && !strcmp(key, "x")) {
			rc = parse_int(a, val, key, 0, UINT32_MAX, &v);
			in.x_size = (uint32_t)v;
		} else if (is_mem && !strcmp(key, "stride")) {
			rc = parse_int(a, val, key, 0, UINT32_MAX, &v);
			in.x_stride = (uint32_t)v;
		} else if (is_mem && !strcmp(key, "ypad")) {
			rc = parse_pair(a, key, val, &in.y_pad_0, &in.y_pad_1);
		} else if (is_mem && !strcmp(key, "xpad")) {
			rc = parse_pair(a, key, val, &in.x_pad_0, &in.x_pad_1);
		} else if (is_compute && !strcmp(key, "uop")) {
			rc = parse_pair(a, key, val, &in.uop_bgn, &in.uop_end);
		} else if (is_compute && !strcmp(key, "iter")) {
			rc = parse_pair(a, key, val, &in.iter_out, &in.iter_in);
		} else if (is_compute && !strcmp(key, "dst")) {
			rc = parse_pair(a, key, val, &in.dst_factor_out, &in.dst_factor_in);
		} else if (is_compute && !strcmp(key, "src")) {
			rc = parse_pair(a, key, val, &in.src_factor_out, &in.src_factor_in);
		} else if (op == VTA_OPCODE_GEMM && !strcmp(key, "wgt")) {
			rc = parse_pair(a, key, val, &in.wgt_factor_out, &in.wgt_factor_in);
		} else if (op == VTA_OPCODE_ALU && !strcmp(key, "imm")) {
			rc = parse_int(a, val, key, INT32_MIN, INT32_MAX, &v);
			in.imm = (int32_t)v;
			in.use_imm = 1;
		} else {
			return asm_error(a, VTA_EINVAL, "unknown operand \"%s\" for %s", key, tok[0]);
		}
		if (rc)
			return rc;
	}
	vta_insn_word_t w;
	vta_error_t e;
	int rc = vta_insn_encode(&in, &w, &e);
	if (rc)
		return asm_error(a, rc, "%s", e.msg);
	if (add_insn(a->prog, &w))
		return asm_error(a, VTA_ENOMEM, "out of memory");
	return VTA_OK;
}

static int need_args(Asm *a, const char *dir, int n, int want, const char *usage)
{
	if (n - 1 < want)
		return asm_error(a, VTA_EINVAL, "%s needs %s", dir, usage);
	return VTA_OK;
}

static int data(Asm *a, const char *dir, const void *bytes, size_t len)
{
	if (!a->seg)
		return asm_error(a, VTA_EINVAL, "%s before any .org: say where the data goes", dir);
	if (append_bytes(a->seg, bytes, len))
		return asm_error(a, VTA_ENOMEM, "out of memory");
	return VTA_OK;
}

static int asm_directive(Asm *a, char **tok, int n)
{
	const char *d = tok[0];
	vta_program_t *p = a->prog;
	long long v;
	int rc;
	if (!strcmp(d, ".text") || !strcmp(d, ".dram") || !strcmp(d, ".org")) {
		if ((rc = need_args(a, d, n, 1, "a byte address")) ||
		    (rc = parse_int(a, tok[1], d, 0, (long long)VTA_PROGRAM_MAX_DRAM, &v)))
			return rc;
		if (!strcmp(d, ".text")) {
			if (p->n_insns)
				return asm_error(a, VTA_EINVAL, ".text must come before the first instruction");
			if (v % 16)
				return asm_error(a, VTA_EINVAL, ".text 0x%llx is not 16-byte aligned", v);
			p->text_addr = (uint64_t)v;
		} else if (!strcmp(d, ".dram")) {
			p->dram_bytes = (uint64_t)v;
		} else if (!(a->seg = new_segment(p, (uint64_t)v))) {
			return asm_error(a, VTA_ENOMEM, "out of memory");
		}
		return VTA_OK;
	}
	if (!strcmp(d, ".byte") || !strcmp(d, ".i32")) {
		int is32 = d[1] == 'i';
		for (int i = 1; i < n; i++) {
			if ((rc = parse_int(a, tok[i], d, is32 ? INT32_MIN : -128, is32 ? UINT32_MAX : 255, &v)))
				return rc;
			uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
			if ((rc = data(a, d, b, is32 ? 4 : 1)))
				return rc;
		}
		return VTA_OK;
	}
	if (!strcmp(d, ".zero")) {
		if ((rc = need_args(a, d, n, 1, "a byte count")) ||
		    (rc = parse_int(a, tok[1], d, 0, 1 << 30, &v)))
			return rc;
		uint8_t *z = calloc(1, (size_t)v + 1);
		if (!z)
			return asm_error(a, VTA_ENOMEM, "out of memory");
		rc = data(a, d, z, (size_t)v);
		free(z);
		return rc;
	}
	if (!strcmp(d, ".uop")) {
		long long f[3];
		if ((rc = need_args(a, d, n, 3, "three indices: DST SRC WGT")))
			return rc;
		for (int i = 0; i < 3; i++)
			if ((rc = parse_int(a, tok[i + 1], ".uop", 0, UINT32_MAX, &f[i])))
				return rc;
		vta_uop_t u = {(uint32_t)f[0], (uint32_t)f[1], (uint32_t)f[2]};
		uint32_t word;
		vta_error_t e;
		if ((rc = vta_uop_encode(&u, &word, &e)))
			return asm_error(a, rc, "%s", e.msg);
		uint8_t b[4] = {(uint8_t)word, (uint8_t)(word >> 8), (uint8_t)(word >> 16),
				(uint8_t)(word >> 24)};
		return data(a, d, b, 4);
	}
	if (!strcmp(d, ".insn")) {
		long long w0, w1;
		if ((rc = need_args(a, d, n, 2, "two 64-bit words")))
			return rc;
		errno = 0;
		char *e0, *e1;
		w0 = (long long)strtoull(tok[1], &e0, 0);
		w1 = (long long)strtoull(tok[2], &e1, 0);
		if (*e0 || *e1 || errno)
			return asm_error(a, VTA_EINVAL, ".insn needs two 64-bit numbers");
		vta_insn_word_t w = {{(uint64_t)w0, (uint64_t)w1}};
		if (add_insn(p, &w))
			return asm_error(a, VTA_ENOMEM, "out of memory");
		return VTA_OK;
	}
	if (!strcmp(d, ".base")) {
		if ((rc = need_args(a, d, n, 2, "a memory type and a byte address")) ||
		    (rc = parse_int(a, tok[2], d, 0, (long long)VTA_PROGRAM_MAX_DRAM, &v)))
			return rc;
		uint64_t *reg = !strcmp(tok[1], "uop")   ? &p->bases.uop
				: !strcmp(tok[1], "inp") ? &p->bases.inp
				: !strcmp(tok[1], "wgt") ? &p->bases.wgt
				: !strcmp(tok[1], "acc") ? &p->bases.acc
				: !strcmp(tok[1], "out") ? &p->bases.out
							 : NULL;
		if (!reg)
			return asm_error(a, VTA_EINVAL, ".base register \"%s\" is not uop, inp, wgt, acc or out",
					 tok[1]);
		*reg = (uint64_t)v;
		return VTA_OK;
	}
	if (!strcmp(d, ".print")) {
		if ((rc = need_args(a, d, n, 5, "NAME ADDR i8|i32 ROWS COLS")))
			return rc;
		vta_print_t r;
		memset(&r, 0, sizeof r);
		if (strlen(tok[1]) >= sizeof r.name)
			return asm_error(a, VTA_EINVAL, ".print name \"%s\" is longer than %zu characters",
					 tok[1], sizeof r.name - 1);
		strcpy(r.name, tok[1]);
		long long rows, cols;
		if (!print_name_ok(r.name))
			return asm_error(a, VTA_EINVAL, ".print name \"%s\" is not printable characters",
					 r.name);
		if ((rc = parse_int(a, tok[2], "address", 0, (long long)VTA_PROGRAM_MAX_DRAM, &v)) ||
		    (rc = parse_int(a, tok[4], "rows", 1, PRINT_MAX_DIM, &rows)) ||
		    (rc = parse_int(a, tok[5], "columns", 1, PRINT_MAX_DIM, &cols)))
			return rc;
		if (strcmp(tok[3], "i8") && strcmp(tok[3], "i32"))
			return asm_error(a, VTA_EINVAL, ".print type \"%s\" is not i8 or i32", tok[3]);
		r.addr = (uint64_t)v;
		r.type = strcmp(tok[3], "i8") ? VTA_PRINT_I32 : VTA_PRINT_I8;
		r.rows = (uint32_t)rows;
		r.cols = (uint32_t)cols;
		vta_print_t *np = realloc(p->prints, (p->n_prints + 1) * sizeof *np);
		if (!np)
			return asm_error(a, VTA_ENOMEM, "out of memory");
		p->prints = np;
		p->prints[p->n_prints++] = r;
		return VTA_OK;
	}
	return asm_error(a, VTA_EINVAL, "unknown directive \"%s\"", d);
}

int vta_asm(const char *text, const char *name, vta_program_t *prog, vta_error_t *err)
{
	memset(prog, 0, sizeof *prog);
	prog->config_id = VTA_CONFIG_ID;
	vta_error_clear(err);
	Asm a = {.name = name, .err = err, .prog = prog};
	const char *p = text;
	while (*p) {
		a.line++;
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[MAX_LINE];
		if (len >= sizeof line) {
			asm_error(&a, VTA_EINVAL, "line longer than %d characters", MAX_LINE - 1);
			goto fail;
		}
		memcpy(line, p, len);
		line[len] = 0;
		p += len + (nl ? 1 : 0);
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *tok[256];
		int n = 0;
		for (char *t = strtok(line, " \t\r"); t; t = strtok(NULL, " \t\r")) {
			if (n == 256) {
				asm_error(&a, VTA_EINVAL, "more than 256 operands");
				goto fail;
			}
			tok[n++] = t;
		}
		if (!n)
			continue;
		for (char *c = tok[0]; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		int rc = tok[0][0] == '.' ? asm_directive(&a, tok, n) : asm_insn(&a, tok, n);
		if (rc)
			goto fail;
	}
	if (check_program(prog, name, err))
		goto fail;
	return VTA_OK;
fail:
	vta_program_free(prog);
	return err ? err->code : VTA_EINVAL;
}

/* ------------------------------------------------------------------------ */
/* Disassembler.                                                             */

int vta_disasm(const vta_program_t *p, FILE *out)
{
	fprintf(out, "# VTA program, configuration %s (id 0x%08" PRIX32 ")\n", VTA_CONFIG_NAME,
		p->config_id);
	if (p->text_addr)
		fprintf(out, ".text 0x%" PRIX64 "\n", p->text_addr);
	if (p->dram_bytes)
		fprintf(out, ".dram %" PRIu64 "\n", p->dram_bytes);
	const uint64_t *regs[5] = {&p->bases.uop, &p->bases.inp, &p->bases.wgt, &p->bases.acc,
				   &p->bases.out};
	const char *names[5] = {"uop", "inp", "wgt", "acc", "out"};
	for (int i = 0; i < 5; i++)
		if (*regs[i])
			fprintf(out, ".base %s 0x%" PRIX64 "\n", names[i], *regs[i]);
	for (size_t i = 0; i < p->n_insns; i++) {
		char line[256];
		vta_insn_word_format(&p->insns[i], line, sizeof line);
		fprintf(out, "%-72s # %zu\n", line, i);
	}
	for (size_t i = 0; i < p->n_segs; i++) {
		const vta_segment_t *s = &p->segs[i];
		fprintf(out, ".org 0x%" PRIX64 "\n", s->addr);
		for (size_t j = 0; j < s->len; j += 16) {
			fputs(".byte", out);
			for (size_t k = j; k < j + 16 && k < s->len; k++)
				fprintf(out, " 0x%02X", s->bytes[k]);
			fputc('\n', out);
		}
	}
	for (size_t i = 0; i < p->n_prints; i++) {
		const vta_print_t *r = &p->prints[i];
		fprintf(out, ".print %s 0x%" PRIX64 " %s %" PRIu32 " %" PRIu32 "\n", r->name, r->addr,
			r->type == VTA_PRINT_I32 ? "i32" : "i8", r->rows, r->cols);
	}
	return ferror(out) ? VTA_EIO : VTA_OK;
}

/* ------------------------------------------------------------------------ */
/* Binary files.                                                             */

static int is_raw(const vta_program_t *p)
{
	return !p->n_segs && !p->n_prints && !p->text_addr && !p->dram_bytes && !p->bases.uop &&
	       !p->bases.inp && !p->bases.wgt && !p->bases.acc && !p->bases.out;
}

int vta_program_write(const vta_program_t *p, const char *path, vta_error_t *err)
{
	vta_buf b = {0};
	if (!is_raw(p)) {
		vta_buf_put(&b, IMAGE_MAGIC, 8);
		vta_buf_put_le32(&b, p->config_id);
		vta_buf_put_le32(&b, (uint32_t)p->n_insns);
		vta_buf_put_le64(&b, p->text_addr);
		vta_buf_put_le64(&b, p->dram_bytes);
		vta_buf_put_le64(&b, p->bases.uop);
		vta_buf_put_le64(&b, p->bases.inp);
		vta_buf_put_le64(&b, p->bases.wgt);
		vta_buf_put_le64(&b, p->bases.acc);
		vta_buf_put_le64(&b, p->bases.out);
		vta_buf_put_le32(&b, (uint32_t)p->n_segs);
		vta_buf_put_le32(&b, (uint32_t)p->n_prints);
		for (size_t i = 0; i < p->n_segs; i++) {
			vta_buf_put_le64(&b, p->segs[i].addr);
			vta_buf_put_le64(&b, p->segs[i].len);
			vta_buf_put(&b, p->segs[i].bytes, p->segs[i].len);
		}
		for (size_t i = 0; i < p->n_prints; i++) {
			vta_buf_put(&b, p->prints[i].name, sizeof p->prints[i].name);
			vta_buf_put_le64(&b, p->prints[i].addr);
			vta_buf_put_le32(&b, p->prints[i].type);
			vta_buf_put_le32(&b, p->prints[i].rows);
			vta_buf_put_le32(&b, p->prints[i].cols);
		}
	}
	for (size_t i = 0; i < p->n_insns; i++) {
		uint8_t bytes[16];
		vta_insn_store(&p->insns[i], bytes);
		vta_buf_put(&b, bytes, 16);
	}
	if (b.oom) {
		free(b.p);
		return vta_error_set(err, VTA_ENOMEM, -1, "out of memory writing %s", path);
	}
	FILE *f = fopen(path, "wb");
	if (!f) {
		free(b.p);
		return vta_error_set(err, VTA_EIO, -1, "cannot create %s: %s", path, strerror(errno));
	}
	size_t wrote = b.n ? fwrite(b.p, 1, b.n, f) : 0;
	int bad = wrote != b.n;
	bad |= fclose(f) != 0;
	free(b.p);
	if (bad) {
		remove(path);
		return vta_error_set(err, VTA_EIO, -1, "cannot write %s", path);
	}
	return VTA_OK;
}

typedef struct {
	const uint8_t *p;
	size_t left;
	int short_read;
} Reader;

static const uint8_t *take(Reader *r, size_t n)
{
	if (r->short_read || n > r->left) {
		r->short_read = 1;
		return NULL;
	}
	const uint8_t *p = r->p;
	r->p += n;
	r->left -= n;
	return p;
}

static uint64_t get_le(Reader *r, int bytes)
{
	const uint8_t *p = take(r, (size_t)bytes);
	uint64_t v = 0;
	for (int i = 0; p && i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

int vta_program_parse(const uint8_t *data, size_t len, const char *name, vta_program_t *p,
		      vta_error_t *err)
{
	memset(p, 0, sizeof *p);
	p->config_id = VTA_CONFIG_ID;
	Reader r = {data, len, 0};
	if (len >= 8 && !memcmp(data, IMAGE_MAGIC, 8)) {
		take(&r, 8);
		p->config_id = (uint32_t)get_le(&r, 4);
		uint32_t n_insns = (uint32_t)get_le(&r, 4);
		p->text_addr = get_le(&r, 8);
		p->dram_bytes = get_le(&r, 8);
		p->bases.uop = get_le(&r, 8);
		p->bases.inp = get_le(&r, 8);
		p->bases.wgt = get_le(&r, 8);
		p->bases.acc = get_le(&r, 8);
		p->bases.out = get_le(&r, 8);
		uint32_t n_segs = (uint32_t)get_le(&r, 4);
		uint32_t n_prints = (uint32_t)get_le(&r, 4);
		if (r.short_read)
			goto truncated;
		if (p->config_id != VTA_CONFIG_ID) {
			vta_error_set(err, VTA_EUNSUPPORTED, -1,
				      "%s was assembled for configuration id 0x%08" PRIX32
				      ", but this tool is built for %s (id 0x%08X)",
				      name, p->config_id, VTA_CONFIG_NAME, VTA_CONFIG_ID);
			goto fail;
		}
		/* Counts are bounded by what the file can hold before allocating. */
		if (n_segs > len / 16 || n_prints > len / 52 || (uint64_t)n_insns * 16 > len)
			goto truncated;
		for (uint32_t i = 0; i < n_segs; i++) {
			uint64_t addr = get_le(&r, 8), n = get_le(&r, 8);
			const uint8_t *bytes = take(&r, r.short_read || n > r.left ? SIZE_MAX : (size_t)n);
			if (!bytes)
				goto truncated;
			vta_segment_t *s = new_segment(p, addr);
			if (!s || append_bytes(s, bytes, (size_t)n))
				goto oom;
		}
		p->prints = n_prints ? calloc(n_prints, sizeof *p->prints) : NULL;
		if (n_prints && !p->prints)
			goto oom;
		for (uint32_t i = 0; i < n_prints; i++) {
			vta_print_t *pr = &p->prints[i];
			const uint8_t *nm = take(&r, sizeof pr->name);
			if (!nm)
				goto truncated;
			memcpy(pr->name, nm, sizeof pr->name);
			pr->name[sizeof pr->name - 1] = 0;
			pr->addr = get_le(&r, 8);
			pr->type = (uint32_t)get_le(&r, 4);
			pr->rows = (uint32_t)get_le(&r, 4);
			pr->cols = (uint32_t)get_le(&r, 4);
			p->n_prints++;
			if (!r.short_read && pr->type > VTA_PRINT_I32) {
				vta_error_set(err, VTA_EINVAL, -1, "%s: result region %u has unknown type %" PRIu32,
					      name, i, pr->type);
				goto fail;
			}
		}
		if (r.short_read)
			goto truncated;
		if (r.left != (size_t)n_insns * 16) {
			vta_error_set(err, VTA_EINVAL, -1,
				      "%s: the image announces %" PRIu32 " instructions but holds %zu bytes for them",
				      name, n_insns, r.left);
			goto fail;
		}
	} else if (len % 16) {
		vta_error_set(err, VTA_EINVAL, -1,
			      "%s is neither a program image nor an instruction stream: its %zu bytes are "
			      "not a multiple of 16",
			      name, len);
		goto fail;
	}
	size_t n = r.left / 16;
	p->insns = n ? malloc(n * sizeof *p->insns) : NULL;
	if (n && !p->insns)
		goto oom;
	p->n_insns = p->cap_insns = n;
	for (size_t i = 0; i < n; i++)
		vta_insn_load(take(&r, 16), &p->insns[i]);
	if (check_program(p, name, err))
		goto fail;
	return VTA_OK;
truncated:
	vta_error_set(err, VTA_EINVAL, -1, "%s: the program image is truncated or corrupt", name);
	goto fail;
oom:
	vta_error_set(err, VTA_ENOMEM, -1, "out of memory reading %s", name);
fail:
	vta_program_free(p);
	return err ? err->code : VTA_EINVAL;
}

int vta_program_read(const char *path, vta_program_t *p, vta_error_t *err)
{
	memset(p, 0, sizeof *p);
	uint8_t *buf;
	size_t len;
	int rc = vta_read_file(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = vta_program_parse(buf, len, path, p, err);
	free(buf);
	return rc;
}
