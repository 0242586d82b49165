/* SPDX-License-Identifier: Apache-2.0 */
/*
 * configgen: reads one VTA configuration (JSON) and writes the headers that
 * every other part of the stack is built from:
 *
 *   vta_config.h   C macros: parameters, derived sizes, instruction field layout
 *   vta_config.vh  the same for Verilog (`define)
 *   vta_config.mk  the few values the Makefile needs
 *
 * Usage: configgen CONFIG.json OUTDIR
 *
 * The instruction field positions are computed here with the packing rule of
 * VTA-SPEC 3.1/3.9, so the C codec, the golden model and the RTL all use the
 * same numbers and nobody writes a bit position by hand.
 *
 * Reading and checking (configgen_generate) never exits: it returns -1 with
 * the message in Gen.err, so the fuzz target (tests/fuzz/fuzz_config.c)
 * drives exactly this code; built with -DCONFIGGEN_NO_MAIN it has no main.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 32
#define MAX_STR 64

/* ------------------------------------------------------------------------ */
/* A minimal reader for flat JSON objects of integers and strings.           */

typedef struct {
	char key[MAX_STR];
	int is_str;
	long num;
	char str[MAX_STR];
	int line;
	int used;
} Entry;

typedef struct {
	const char *path;
	const char *p;
	int line;
	Entry e[MAX_KEYS];
	int n;
	char err[512]; /* the message of the first failure */
} Reader;

static int fail(Reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(Reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof r->err, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_ws(Reader *r)
{
	while (*r->p && isspace((unsigned char)*r->p)) {
		if (*r->p == '\n')
			r->line++;
		r->p++;
	}
}

static int expect(Reader *r, char c)
{
	skip_ws(r);
	if (*r->p != c)
		return fail(r, "%s:%d: expected '%c' but found '%.10s'", r->path, r->line, c,
			    *r->p ? r->p : "end of file");
	r->p++;
	return 0;
}

static int read_string(Reader *r, char *out)
{
	if (expect(r, '"'))
		return -1;
	size_t n = 0;
	while (*r->p && *r->p != '"') {
		if (*r->p == '\\' || *r->p == '\n')
			return fail(r, "%s:%d: escapes and line breaks are not allowed in strings",
				    r->path, r->line);
		if (n + 1 >= MAX_STR)
			return fail(r, "%s:%d: string longer than %d characters", r->path, r->line,
				    MAX_STR - 1);
		out[n++] = *r->p++;
	}
	if (*r->p != '"')
		return fail(r, "%s:%d: unterminated string", r->path, r->line);
	r->p++;
	out[n] = 0;
	return 0;
}

static int parse(Reader *r)
{
	if (expect(r, '{'))
		return -1;
	skip_ws(r);
	if (*r->p == '}') {
		r->p++;
	} else {
		for (;;) {
			if (r->n == MAX_KEYS)
				return fail(r, "%s:%d: more than %d keys", r->path, r->line, MAX_KEYS);
			Entry *e = &r->e[r->n];
			memset(e, 0, sizeof *e);
			skip_ws(r);
			e->line = r->line;
			if (read_string(r, e->key))
				return -1;
			for (int i = 0; i < r->n; i++)
				if (!strcmp(r->e[i].key, e->key))
					return fail(r, "%s:%d: key %s appears twice", r->path, r->line,
						    e->key);
			if (expect(r, ':'))
				return -1;
			skip_ws(r);
			if (*r->p == '"') {
				e->is_str = 1;
				if (read_string(r, e->str))
					return -1;
			} else {
				char *end;
				errno = 0;
				e->num = strtol(r->p, &end, 10);
				if (end == r->p || errno)
					return fail(r, "%s:%d: value of %s must be an integer or a string",
						    r->path, r->line, e->key);
				r->p = end;
			}
			r->n++;
			skip_ws(r);
			if (*r->p == ',') {
				r->p++;
				continue;
			}
			if (expect(r, '}'))
				return -1;
			break;
		}
	}
	skip_ws(r);
	if (*r->p)
		return fail(r, "%s:%d: unexpected text after the closing brace", r->path, r->line);
	return 0;
}

static Entry *find(Reader *r, const char *key)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->e[i].key, key)) {
			r->e[i].used = 1;
			return &r->e[i];
		}
	return NULL;
}

static int get_num(Reader *r, const char *key, int required, long dflt, long lo, long hi,
		   const char *why, long *out)
{
	Entry *e = find(r, key);
	if (!e) {
		if (required)
			return fail(r, "%s: missing key %s", r->path, key);
		*out = dflt;
		return 0;
	}
	if (e->is_str)
		return fail(r, "%s:%d: %s must be an integer, not a string", r->path, e->line, key);
	if (e->num < lo || e->num > hi)
		return fail(r, "%s:%d: %s = %ld is out of range: %s (allowed %ld..%ld)", r->path,
			    e->line, key, e->num, why, lo, hi);
	*out = e->num;
	return 0;
}

static int get_str(Reader *r, const char *key, const char *dflt, const char **out)
{
	Entry *e = find(r, key);
	if (!e) {
		*out = dflt;
		return 0;
	}
	if (!e->is_str)
		return fail(r, "%s:%d: %s must be a string", r->path, e->line, key);
	for (const char *c = e->str; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-')
			return fail(r, "%s:%d: %s may contain only letters, digits, '.', '_' and '-'",
				    r->path, e->line, key);
	*out = e->str;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Instruction field layout (VTA-SPEC 3.9).                                  */

typedef struct {
	const char *name;
	int width;
	int lsb;
} Field;

typedef struct {
	const char *name; /* MEM, GEMM, ALU, UOP */
	Field f[24];
	int n;
	int total_bits; /* 128 for instructions, 32 for the micro-op */
} Format;

static void add_field(Format *fmt, const char *name, int width)
{
	fmt->f[fmt->n].name = name;
	fmt->f[fmt->n].width = width;
	fmt->n++;
}

/* Allocate fields upward from bit 0; a field never straddles a 64-bit word. */
static int pack(Reader *r, Format *fmt, const char *params)
{
	int pos = 0;
	for (int i = 0; i < fmt->n; i++) {
		int w = fmt->f[i].width;
		if (w <= 0 || w > 64)
			return fail(r, "%s: field %s_%s has width %d", r->path, fmt->name,
				    fmt->f[i].name, w);
		if ((pos % 64) + w > 64)
			pos = (pos / 64 + 1) * 64;
		fmt->f[i].lsb = pos;
		pos += w;
	}
	if (pos > fmt->total_bits)
		return fail(r, "%s: the %s format needs %d bits but has only %d: the buffer depths "
			    "given by %s make its index fields too wide; make a buffer smaller",
			    r->path, fmt->name, pos, fmt->total_bits, params);
	return 0;
}

static void add_header(Format *fmt)
{
	add_field(fmt, "OPCODE", 3);
	add_field(fmt, "POP_PREV", 1);
	add_field(fmt, "POP_NEXT", 1);
	add_field(fmt, "PUSH_PREV", 1);
	add_field(fmt, "PUSH_NEXT", 1);
}

/* ------------------------------------------------------------------------ */

typedef struct {
	const char *target, *hw_ver;
	long log_inp_width, log_wgt_width, log_acc_width;
	long log_batch, log_block;
	long log_uop_buff, log_inp_buff, log_wgt_buff, log_acc_buff;
	long log_bus_width;
	long insn_queue_depth, token_queue_depth;
} Config;

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 16777619u;
	}
	return h;
}

/* Everything the generated headers say. */
typedef struct {
	Reader r;
	Config c;
	long log_out_width, log_out_buff;
	long log_inp_elem_bits, log_wgt_elem_bits, log_acc_elem_bits, log_out_elem_bits;
	long log_uop_depth, log_inp_depth, log_wgt_depth, log_acc_depth;
	Format mem, gemm, alu, uop;
	char name[128];
	char canon[512];
	uint32_t id;
	uint32_t hw_version; /* HW_VER as 0x00MMmmpp */
} Gen;

/* The parameters (VTA-SPEC 1.1) with their ranges, and HW_VER. */
static int read_params(Gen *g)
{
	Reader *r = &g->r;
	Config *c = &g->c;
	if (get_str(r, "TARGET", "sim", &c->target) || get_str(r, "HW_VER", "0.0.2", &c->hw_ver))
		return -1;
	/* HW_VER "major.minor.patch" is also the RTL's HW_VERSION register. */
	unsigned ver[3];
	char tail;
	if (sscanf(c->hw_ver, "%u.%u.%u%c", &ver[0], &ver[1], &ver[2], &tail) != 3 || ver[0] > 255 ||
	    ver[1] > 255 || ver[2] > 255)
		return fail(r, "%s: HW_VER \"%s\" is not major.minor.patch with each part 0..255",
			    r->path, c->hw_ver);
	g->hw_version = ver[0] << 16 | ver[1] << 8 | ver[2];
	const char *int8_only = "the datapath is int8 inputs and weights";
	if (get_num(r, "LOG_INP_WIDTH", 1, 0, 3, 3, int8_only, &c->log_inp_width))
		return -1;
	if (get_num(r, "LOG_WGT_WIDTH", 1, 0, 3, 3, int8_only, &c->log_wgt_width))
		return -1;
	if (get_num(r, "LOG_ACC_WIDTH", 1, 0, 5, 5, "accumulators are int32", &c->log_acc_width))
		return -1;
	if (get_num(r, "LOG_BATCH", 1, 0, 0, 4, "batch of 1 to 16 rows", &c->log_batch))
		return -1;
	if (get_num(r, "LOG_BLOCK", 1, 0, 1, 6, "block of 2 to 64 channels", &c->log_block))
		return -1;
	if (get_num(r, "LOG_UOP_BUFF_SIZE", 1, 0, 2, 24, "buffer size in log2 bytes",
		    &c->log_uop_buff))
		return -1;
	if (get_num(r, "LOG_INP_BUFF_SIZE", 1, 0, 2, 24, "buffer size in log2 bytes",
		    &c->log_inp_buff))
		return -1;
	if (get_num(r, "LOG_WGT_BUFF_SIZE", 1, 0, 2, 24, "buffer size in log2 bytes",
		    &c->log_wgt_buff))
		return -1;
	if (get_num(r, "LOG_ACC_BUFF_SIZE", 1, 0, 2, 24, "buffer size in log2 bytes",
		    &c->log_acc_buff))
		return -1;

	return 0;
}

/* The platform's parameters, then no key may be left unread and the target
 * must be known. */
static int read_platform(Gen *g)
{
	Reader *r = &g->r;
	Config *c = &g->c;
	/* the bus width follows the target (VTA-SPEC 1.3) unless given */
	long bus_default = (!strcmp(c->target, "ultra96") || !strcmp(c->target, "zcu104")) ? 7 : 6;
	if (get_num(r, "LOG_BUS_WIDTH", 0, bus_default, 5, 9, "AXI data bus of 32 to 512 bits",
		    &c->log_bus_width))
		return -1;
	if (get_num(r, "INSN_QUEUE_DEPTH", 0, 512, 2, 4096, "instructions buffered per module",
		    &c->insn_queue_depth))
		return -1;
	if (get_num(r, "TOKEN_QUEUE_DEPTH", 0, 255, 255, 1023,
		    "outstanding tokens per queue; programs may rely on 255", &c->token_queue_depth))
		return -1;
	for (int i = 0; i < r->n; i++)
		if (!r->e[i].used)
			return fail(r, "%s:%d: unknown key %s", r->path, r->e[i].line, r->e[i].key);

	static const char *targets[] = {"sim", "tsim", "pynq", "ultra96", "zcu104", "de10nano",
					"intelfocl", NULL};
	int known = 0;
	for (int i = 0; targets[i]; i++)
		known |= !strcmp(targets[i], c->target);
	if (!known)
		return fail(r, "%s: TARGET \"%s\" is not one of sim, tsim, pynq, ultra96, zcu104, de10nano, "
		    "intelfocl",
		    r->path, c->target);

	return 0;
}

/* The derived quantities (VTA-SPEC 1.1, 1.5) and what they must fit. */
static int derive_sizes(Gen *g)
{
	Reader *r = &g->r;
	Config *c = &g->c;
	g->log_out_width = c->log_inp_width;
	g->log_out_buff = c->log_acc_buff + g->log_out_width - c->log_acc_width;
	g->log_inp_elem_bits = c->log_inp_width + c->log_batch + c->log_block;
	g->log_wgt_elem_bits = c->log_wgt_width + c->log_block + c->log_block;
	g->log_acc_elem_bits = c->log_acc_width + c->log_batch + c->log_block;
	g->log_out_elem_bits = g->log_out_width + c->log_batch + c->log_block;
	g->log_uop_depth = c->log_uop_buff - 5 + 3;
	g->log_inp_depth = c->log_inp_buff - g->log_inp_elem_bits + 3;
	g->log_wgt_depth = c->log_wgt_buff - g->log_wgt_elem_bits + 3;
	g->log_acc_depth = c->log_acc_buff - g->log_acc_elem_bits + 3;
	struct {
		const char *key;
		long log_depth;
		long log_elem_bytes;
	} bufs[] = {
		{"LOG_UOP_BUFF_SIZE", g->log_uop_depth, 2},
		{"LOG_INP_BUFF_SIZE", g->log_inp_depth, g->log_inp_elem_bits - 3},
		{"LOG_WGT_BUFF_SIZE", g->log_wgt_depth, g->log_wgt_elem_bits - 3},
		{"LOG_ACC_BUFF_SIZE", g->log_acc_depth, g->log_acc_elem_bits - 3},
	};
	for (int i = 0; i < 4; i++) {
		if (bufs[i].log_depth < 1)
			return fail(r, "%s: %s is too small: it must hold at least two elements of %ld bytes",
			    r->path, bufs[i].key, 1L << bufs[i].log_elem_bytes);
		/* sram_base of LOAD/STORE is 16 bits wide. */
		if (bufs[i].log_depth > 16)
			return fail(r, "%s: %s gives a depth of 2^%ld elements, which does not fit the 16-bit "
			    "sram_base field",
			    r->path, bufs[i].key, bufs[i].log_depth);
		if (bufs[i].log_elem_bytes > 12)
			return fail(r, "%s: %s: elements of %ld bytes exceed the 4096-byte page", r->path,
			    bufs[i].key, 1L << bufs[i].log_elem_bytes);
	}
	if (c->log_batch + c->log_block > 10)
		return fail(r, "%s: LOG_BATCH + LOG_BLOCK = %ld is too large (at most 10)", r->path,
		    c->log_batch + c->log_block);

	return 0;
}

/* The instruction and micro-op field layouts. */
static int lay_out_fields(Gen *g)
{
	Reader *r = &g->r;
	Format *mem = &g->mem, *gemm = &g->gemm, *alu = &g->alu, *uop = &g->uop;
	*mem = (Format){.name = "MEM", .total_bits = 128};
	add_header(mem);
	add_field(mem, "MEMORY_TYPE", 3);
	add_field(mem, "SRAM_BASE", 16);
	add_field(mem, "DRAM_BASE", 32);
	add_field(mem, "Y_SIZE", 16);
	add_field(mem, "X_SIZE", 16);
	add_field(mem, "X_STRIDE", 16);
	add_field(mem, "Y_PAD_0", 4);
	add_field(mem, "Y_PAD_1", 4);
	add_field(mem, "X_PAD_0", 4);
	add_field(mem, "X_PAD_1", 4);
	if (pack(r, mem, "no parameter"))
		return -1;

	*gemm = (Format){.name = "GEMM", .total_bits = 128};
	*alu = (Format){.name = "ALU", .total_bits = 128};
	Format *cf[2] = {gemm, alu};
	for (int i = 0; i < 2; i++) {
		add_header(cf[i]);
		add_field(cf[i], "RESET", 1);
		add_field(cf[i], "UOP_BGN", (int)g->log_uop_depth);
		add_field(cf[i], "UOP_END", (int)g->log_uop_depth + 1);
		add_field(cf[i], "ITER_OUT", 14);
		add_field(cf[i], "ITER_IN", 14);
		add_field(cf[i], "DST_FACTOR_OUT", (int)g->log_acc_depth);
		add_field(cf[i], "DST_FACTOR_IN", (int)g->log_acc_depth);
	}
	add_field(gemm, "SRC_FACTOR_OUT", (int)g->log_inp_depth);
	add_field(gemm, "SRC_FACTOR_IN", (int)g->log_inp_depth);
	add_field(gemm, "WGT_FACTOR_OUT", (int)g->log_wgt_depth);
	add_field(gemm, "WGT_FACTOR_IN", (int)g->log_wgt_depth);
	add_field(alu, "SRC_FACTOR_OUT", (int)g->log_acc_depth);
	add_field(alu, "SRC_FACTOR_IN", (int)g->log_acc_depth);
	add_field(alu, "ALU_OPCODE", 3);
	add_field(alu, "USE_IMM", 1);
	add_field(alu, "IMM", 16);
	if (pack(r, gemm, "LOG_UOP_BUFF_SIZE, LOG_ACC_BUFF_SIZE, LOG_INP_BUFF_SIZE and "
		 "LOG_WGT_BUFF_SIZE") ||
	    pack(r, alu, "LOG_UOP_BUFF_SIZE and LOG_ACC_BUFF_SIZE"))
		return -1;

	long log_src_idx = g->log_acc_depth > g->log_inp_depth ? g->log_acc_depth : g->log_inp_depth;
	*uop = (Format){.name = "UOP", .total_bits = 32};
	add_field(uop, "DST_IDX", (int)g->log_acc_depth);
	add_field(uop, "SRC_IDX", (int)log_src_idx);
	add_field(uop, "WGT_IDX", (int)g->log_wgt_depth);
	if (pack(r, uop, "LOG_ACC_BUFF_SIZE, LOG_INP_BUFF_SIZE and LOG_WGT_BUFF_SIZE"))
		return -1;

	return 0;
}

/* The name and identifier (VTA-SPEC 1.7, plus our 32-bit hash). */
static void name_config(Gen *g)
{
	Config *c = &g->c;
	snprintf(g->name, sizeof g->name, "%ldx%ld_i%ldw%lda%ld_%ld_%ld_%ld_%ld", 1L << c->log_batch,
		 1L << c->log_block, 1L << c->log_inp_width, 1L << c->log_wgt_width,
		 1L << c->log_acc_width, c->log_uop_buff, c->log_inp_buff, c->log_wgt_buff,
		 c->log_acc_buff);
	snprintf(g->canon, sizeof g->canon,
		 "vta-config-v1;INP=%ld;WGT=%ld;ACC=%ld;BATCH=%ld;BLOCK=%ld;UOP_BUFF=%ld;"
		 "INP_BUFF=%ld;WGT_BUFF=%ld;ACC_BUFF=%ld;BUS=%ld;INSNQ=%ld;TOKENQ=%ld",
		 c->log_inp_width, c->log_wgt_width, c->log_acc_width, c->log_batch, c->log_block,
		 c->log_uop_buff, c->log_inp_buff, c->log_wgt_buff, c->log_acc_buff, c->log_bus_width,
		 c->insn_queue_depth, c->token_queue_depth);
	g->id = fnv1a(g->canon);
}


/* The parameters, their checks and the derived quantities (VTA-SPEC 1.1, 1.5). */
static int derive(Gen *g)
{
	if (read_params(g) || read_platform(g) || derive_sizes(g) || lay_out_fields(g))
		return -1;
	name_config(g);
	return 0;
}

/* Read and check the configuration text and compute everything the headers
 * say. Returns 0, or -1 with the message in g->r.err. */
static int configgen_generate(const char *text, const char *path, Gen *g)
{
	memset(g, 0, sizeof *g);
	Reader *r = &g->r;
	r->path = path;
	r->p = text;
	r->line = 1;
	return parse(r) || derive(g) ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* Output: the program around configgen_generate.                            */

#ifndef CONFIGGEN_NO_MAIN
static void io_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void io_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("configgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

typedef struct {
	FILE *h, *vh, *mk;
} Out;

static void def(Out *o, const char *name, long value)
{
	fprintf(o->h, "#define VTA_%s %ld\n", name, value);
	fprintf(o->vh, "`define VTA_%s %ld\n", name, value);
}

static void def_hex(Out *o, const char *name, uint32_t value)
{
	fprintf(o->h, "#define VTA_%s 0x%08Xu\n", name, value);
	fprintf(o->vh, "`define VTA_%s 32'h%08X\n", name, value);
}

static void def_str(Out *o, const char *name, const char *value)
{
	fprintf(o->h, "#define VTA_%s \"%s\"\n", name, value);
	fprintf(o->vh, "`define VTA_%s \"%s\"\n", name, value);
}

static void comment(Out *o, const char *text)
{
	fprintf(o->h, "\n/* %s */\n", text);
	fprintf(o->vh, "\n// %s\n", text);
}

static void emit_format(Out *o, const Format *fmt)
{
	char name[96];
	for (int i = 0; i < fmt->n; i++) {
		snprintf(name, sizeof name, "%s_%s_LSB", fmt->name, fmt->f[i].name);
		def(o, name, fmt->f[i].lsb);
		snprintf(name, sizeof name, "%s_%s_WIDTH", fmt->name, fmt->f[i].name);
		def(o, name, fmt->f[i].width);
	}
}

static FILE *open_out(const char *dir, const char *file)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "w");
	if (!f)
		io_die("cannot write %s: %s", path, strerror(errno));
	return f;
}

/* Write the three headers into dir through temporaries. Exits on I/O errors. */
static void emit(const Gen *g, const char *path, const char *dir)
{
	const Config c = g->c;
	long log_out_width = g->log_out_width, log_out_buff = g->log_out_buff;
	long log_inp_elem_bits = g->log_inp_elem_bits, log_wgt_elem_bits = g->log_wgt_elem_bits;
	long log_acc_elem_bits = g->log_acc_elem_bits, log_out_elem_bits = g->log_out_elem_bits;
	long log_uop_depth = g->log_uop_depth, log_inp_depth = g->log_inp_depth;
	long log_wgt_depth = g->log_wgt_depth, log_acc_depth = g->log_acc_depth;
	const char *name = g->name, *canon = g->canon;
	uint32_t id = g->id;
	Out o = {open_out(dir, "vta_config.h.tmp"), open_out(dir, "vta_config.vh.tmp"),
		 open_out(dir, "vta_config.mk.tmp")};
	fprintf(o.h, "/* Generated by config/configgen from %s. Do not edit. */\n", path);
	fprintf(o.h, "#ifndef VTA_CONFIG_H\n#define VTA_CONFIG_H\n");
	fprintf(o.vh, "// Generated by config/configgen from %s. Do not edit.\n", path);
	fprintf(o.vh, "`ifndef VTA_CONFIG_VH\n`define VTA_CONFIG_VH\n");

	comment(&o, "Identity");
	def_str(&o, "CONFIG_NAME", name);
	def_hex(&o, "CONFIG_ID", id);
	def_str(&o, "TARGET", c.target);
	def_str(&o, "HW_VER", c.hw_ver);
	def_hex(&o, "HW_VERSION", g->hw_version);
	fprintf(o.h, "#define VTA_CONFIG_CANONICAL \"%s\"\n", canon);

	comment(&o, "Primary parameters");
	def(&o, "LOG_INP_WIDTH", c.log_inp_width);
	def(&o, "LOG_WGT_WIDTH", c.log_wgt_width);
	def(&o, "LOG_ACC_WIDTH", c.log_acc_width);
	def(&o, "LOG_OUT_WIDTH", log_out_width);
	def(&o, "LOG_BATCH", c.log_batch);
	def(&o, "LOG_BLOCK", c.log_block);
	def(&o, "LOG_BLOCK_IN", c.log_block);
	def(&o, "LOG_BLOCK_OUT", c.log_block);
	def(&o, "LOG_UOP_BUFF_SIZE", c.log_uop_buff);
	def(&o, "LOG_INP_BUFF_SIZE", c.log_inp_buff);
	def(&o, "LOG_WGT_BUFF_SIZE", c.log_wgt_buff);
	def(&o, "LOG_ACC_BUFF_SIZE", c.log_acc_buff);
	def(&o, "LOG_OUT_BUFF_SIZE", log_out_buff);
	def(&o, "LOG_BUS_WIDTH", c.log_bus_width);
	def(&o, "INSN_QUEUE_DEPTH", c.insn_queue_depth);
	def(&o, "TOKEN_QUEUE_DEPTH", c.token_queue_depth);

	comment(&o, "Scalar widths and tile shape");
	def(&o, "INP_WIDTH", 1L << c.log_inp_width);
	def(&o, "WGT_WIDTH", 1L << c.log_wgt_width);
	def(&o, "ACC_WIDTH", 1L << c.log_acc_width);
	def(&o, "OUT_WIDTH", 1L << log_out_width);
	def(&o, "BATCH", 1L << c.log_batch);
	def(&o, "BLOCK_IN", 1L << c.log_block);
	def(&o, "BLOCK_OUT", 1L << c.log_block);
	def(&o, "BUS_WIDTH", 1L << c.log_bus_width);

	comment(&o, "Buffers: bytes, element bits and bytes, depth");
	def(&o, "UOP_BUFF_SIZE", 1L << c.log_uop_buff);
	def(&o, "INP_BUFF_SIZE", 1L << c.log_inp_buff);
	def(&o, "WGT_BUFF_SIZE", 1L << c.log_wgt_buff);
	def(&o, "ACC_BUFF_SIZE", 1L << c.log_acc_buff);
	def(&o, "OUT_BUFF_SIZE", 1L << log_out_buff);
	def(&o, "INS_ELEM_BYTES", 16);
	def(&o, "UOP_ELEM_BYTES", 4);
	def(&o, "INP_MATRIX_WIDTH", 1L << log_inp_elem_bits);
	def(&o, "WGT_MATRIX_WIDTH", 1L << log_wgt_elem_bits);
	def(&o, "ACC_MATRIX_WIDTH", 1L << log_acc_elem_bits);
	def(&o, "OUT_MATRIX_WIDTH", 1L << log_out_elem_bits);
	def(&o, "INP_ELEM_BYTES", 1L << (log_inp_elem_bits - 3));
	def(&o, "WGT_ELEM_BYTES", 1L << (log_wgt_elem_bits - 3));
	def(&o, "ACC_ELEM_BYTES", 1L << (log_acc_elem_bits - 3));
	def(&o, "OUT_ELEM_BYTES", 1L << (log_out_elem_bits - 3));
	def(&o, "ACC8_ELEM_BYTES", 1L << (log_out_elem_bits - 3));
	def(&o, "LOG_UOP_BUFF_DEPTH", log_uop_depth);
	def(&o, "LOG_INP_BUFF_DEPTH", log_inp_depth);
	def(&o, "LOG_WGT_BUFF_DEPTH", log_wgt_depth);
	def(&o, "LOG_ACC_BUFF_DEPTH", log_acc_depth);
	def(&o, "LOG_OUT_BUFF_DEPTH", log_acc_depth);
	def(&o, "UOP_BUFF_DEPTH", 1L << log_uop_depth);
	def(&o, "INP_BUFF_DEPTH", 1L << log_inp_depth);
	def(&o, "WGT_BUFF_DEPTH", 1L << log_wgt_depth);
	def(&o, "ACC_BUFF_DEPTH", 1L << log_acc_depth);
	def(&o, "OUT_BUFF_DEPTH", 1L << log_acc_depth);
	long bus = 1L << c.log_bus_width;
	def(&o, "INP_MAT_AXI_RATIO", (1L << log_inp_elem_bits) / bus);
	def(&o, "WGT_MAT_AXI_RATIO", (1L << log_wgt_elem_bits) / bus);
	def(&o, "ACC_MAT_AXI_RATIO", (1L << log_acc_elem_bits) / bus);
	def(&o, "OUT_MAT_AXI_RATIO", (1L << log_out_elem_bits) / bus);

	comment(&o, "Fixed ISA constants (VTA-SPEC 1.4, 2.2, 3.2, 3.6)");
	def(&o, "LOG_INS_WIDTH", 7);
	def(&o, "INS_WIDTH", 128);
	def(&o, "LOG_UOP_WIDTH", 5);
	def(&o, "UOP_WIDTH", 32);
	def(&o, "OPCODE_BIT_WIDTH", 3);
	def(&o, "ALU_OPCODE_BIT_WIDTH", 3);
	def(&o, "MEMOP_ID_BIT_WIDTH", 3);
	def(&o, "MEMOP_SRAM_ADDR_BIT_WIDTH", 16);
	def(&o, "MEMOP_DRAM_ADDR_BIT_WIDTH", 32);
	def(&o, "MEMOP_SIZE_BIT_WIDTH", 16);
	def(&o, "MEMOP_STRIDE_BIT_WIDTH", 16);
	def(&o, "MEMOP_PAD_BIT_WIDTH", 4);
	def(&o, "LOOP_ITER_WIDTH", 14);
	def(&o, "ALUOP_IMM_BIT_WIDTH", 16);
	def(&o, "SHR_ARG_BIT_WIDTH", c.log_acc_width);
	def(&o, "OPCODE_LOAD", 0);
	def(&o, "OPCODE_STORE", 1);
	def(&o, "OPCODE_GEMM", 2);
	def(&o, "OPCODE_FINISH", 3);
	def(&o, "OPCODE_ALU", 4);
	def(&o, "MEM_ID_UOP", 0);
	def(&o, "MEM_ID_WGT", 1);
	def(&o, "MEM_ID_INP", 2);
	def(&o, "MEM_ID_ACC", 3);
	def(&o, "MEM_ID_OUT", 4);
	def(&o, "MEM_ID_ACC_8BIT", 5);
	def(&o, "ALU_OPCODE_MIN", 0);
	def(&o, "ALU_OPCODE_MAX", 1);
	def(&o, "ALU_OPCODE_ADD", 2);
	def(&o, "ALU_OPCODE_SHR", 3);
	def(&o, "ALU_OPCODE_MUL", 4);

	comment(&o, "Instruction field layout: <FORMAT>_<FIELD>_LSB and _WIDTH (VTA-SPEC 3.9)");
	emit_format(&o, &g->mem);
	emit_format(&o, &g->gemm);
	emit_format(&o, &g->alu);
	emit_format(&o, &g->uop);

	fprintf(o.h, "\n#endif /* VTA_CONFIG_H */\n");
	fprintf(o.vh, "\n`endif // VTA_CONFIG_VH\n");
	fprintf(o.mk, "# Generated by config/configgen from %s. Do not edit.\n", path);
	fprintf(o.mk, "VTA_CONFIG_NAME := %s\nVTA_CONFIG_ID := 0x%08X\nVTA_TARGET := %s\n", name, id,
		c.target);
	fprintf(o.mk, "VTA_LOG_BUS_WIDTH := %ld\n", c.log_bus_width);

	/* Write to temporaries and rename, so an interrupted run leaves no half header. */
	const char *files[] = {"vta_config.h", "vta_config.vh", "vta_config.mk"};
	FILE *fs[] = {o.h, o.vh, o.mk};
	for (int i = 0; i < 3; i++) {
		if (ferror(fs[i]) || fclose(fs[i]))
			io_die("write error in %s/%s", dir, files[i]);
		char tmp[4096], dst[4096];
		snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, files[i]);
		snprintf(dst, sizeof dst, "%s/%s", dir, files[i]);
		if (rename(tmp, dst))
			io_die("cannot rename %s: %s", tmp, strerror(errno));
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: configgen CONFIG.json OUTDIR\n");
		return 2;
	}
	const char *path = argv[1];
	FILE *in = fopen(path, "rb");
	if (!in)
		io_die("cannot open %s: %s", path, strerror(errno));
	static char text[65536];
	size_t len = fread(text, 1, sizeof text - 1, in);
	int big = !feof(in);
	fclose(in);
	if (big)
		io_die("%s is larger than %zu bytes", path, sizeof text - 1);
	text[len] = 0;
	if (strlen(text) != len)
		io_die("%s contains a NUL byte", path);
	static Gen g;
	if (configgen_generate(text, path, &g)) {
		fprintf(stderr, "configgen: %s\n", g.r.err);
		return 1;
	}
	emit(&g, path, argv[2]);
	return 0;
}
#endif
