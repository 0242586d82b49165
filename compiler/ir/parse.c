/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The textual IR read back (the grammar is what print.c writes; see
 * docs/passes.md, "Textual IR"). Every node goes through the typed builder,
 * so a parsed module is as well typed as a built one: the printed type of
 * each computed node must be the type the builder infers. Input and
 * constant nodes take the printed type (they are typed by their makers).
 * Errors name the file, line and column.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <vta/asm.h>

#include "ir/ir.h"
#include "ir/kernel.h"

typedef struct lexer {
	vc_module *m;
	const char *name, *p, *end, *line_start;
	int line;
	vc_node **by_id; /* id -> node */
	int n_ids;
} lexer;

#define MAX_IDS (1 << 24)

static int fail(lexer *lx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(lexer *lx, const char *fmt, ...)
{
	char text[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return vc_error(lx->m, NULL, "%s:%d:%d: %s", lx->name, lx->line, (int)(lx->p - lx->line_start) + 1, text);
}

static void skip_ws(lexer *lx)
{
	while (lx->p < lx->end) {
		char c = *lx->p;
		if (c == '#') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else if (c == '\n') {
			lx->p++;
			lx->line++;
			lx->line_start = lx->p;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			lx->p++;
		} else {
			break;
		}
	}
}

static int peek(lexer *lx, const char *s)
{
	skip_ws(lx);
	size_t n = strlen(s);
	return (size_t)(lx->end - lx->p) >= n && !memcmp(lx->p, s, n);
}

static int accept(lexer *lx, const char *s)
{
	if (!peek(lx, s))
		return 0;
	lx->p += strlen(s);
	return 1;
}

static int expect(lexer *lx, const char *s)
{
	if (accept(lx, s))
		return 0;
	return fail(lx, "expected '%s'", s);
}

/* Identifiers: letters, digits, '_', '-', '.' */
static int ident(lexer *lx, char *out, size_t n)
{
	skip_ws(lx);
	size_t k = 0;
	while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_' || *lx->p == '-' || *lx->p == '.')) {
		if (k + 1 >= n)
			return fail(lx, "identifier too long");
		out[k++] = *lx->p++;
	}
	out[k] = 0;
	return k ? 0 : fail(lx, "expected an identifier");
}

/* allow_hex = 0 inside AxB lists, where "0x5" is 0 by 5, not five. */
static int integer_ex(lexer *lx, int64_t *v, int allow_hex)
{
	skip_ws(lx);
	/* strtoll needs a terminated string: copy the digits */
	char buf[32];
	size_t k = 0;
	const char *q = lx->p;
	if (q < lx->end && (*q == '-' || *q == '+'))
		buf[k++] = *q++;
	int hex = allow_hex && lx->end - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X');
	if (hex) {
		buf[k++] = *q++;
		buf[k++] = *q++;
	}
	while (q < lx->end && (hex ? isxdigit((unsigned char)*q) : isdigit((unsigned char)*q)) && k + 1 < sizeof buf)
		buf[k++] = *q++;
	buf[k] = 0;
	if (!k || !isxdigit((unsigned char)buf[k - 1]))
		return fail(lx, "expected an integer");
	errno = 0;
	char *e;
	long long x = strtoll(buf, &e, hex ? 16 : 10);
	if (errno || *e)
		return fail(lx, "integer '%s' out of range", buf);
	*v = x;
	lx->p = q;
	return 0;
}

static int integer(lexer *lx, int64_t *v) { return integer_ex(lx, v, 1); }

static int int_in(lexer *lx, int64_t lo, int64_t hi, int *v)
{
	int64_t x;
	if (integer(lx, &x))
		return -1;
	if (x < lo || x > hi)
		return fail(lx, "%" PRId64 " is outside [%" PRId64 ",%" PRId64 "]", x, lo, hi);
	*v = (int)x;
	return 0;
}

static int real(lexer *lx, double *v)
{
	skip_ws(lx);
	char buf[64];
	size_t k = 0;
	while (lx->p + k < lx->end && k + 1 < sizeof buf && strchr("0123456789+-.eEinfatyINFATY", lx->p[k]))
		k++;
	memcpy(buf, lx->p, k);
	buf[k] = 0;
	char *e;
	*v = strtod(buf, &e);
	if (e == buf)
		return fail(lx, "expected a number");
	lx->p += e - buf;
	return 0;
}

static int quoted(lexer *lx, char *out, size_t n)
{
	if (expect(lx, "\""))
		return -1;
	size_t k = 0;
	while (lx->p < lx->end && *lx->p != '"') {
		int c = (unsigned char)*lx->p++;
		if (c == '\n')
			return fail(lx, "newline inside a string");
		if (c == '\\') {
			unsigned x;
			if (lx->end - lx->p < 3 || lx->p[0] != 'x' || sscanf(lx->p + 1, "%2x", &x) != 1 ||
			    !isxdigit((unsigned char)lx->p[1]) || !isxdigit((unsigned char)lx->p[2]))
				return fail(lx, "bad escape in a string (only \\xHH)");
			c = (int)x;
			lx->p += 3;
		}
		if (k + 1 >= n)
			return fail(lx, "string longer than %zu bytes", n - 1);
		out[k++] = (char)c;
	}
	out[k] = 0;
	return expect(lx, "\"");
}

/* AxB or a,b,c,d: count integers separated by sep. */
static int int_list(lexer *lx, char sep, int count, int64_t *v)
{
	for (int i = 0; i < count; i++) {
		if (i && !(lx->p < lx->end && *lx->p == sep))
			return fail(lx, "expected '%c' (%d values)", sep, count);
		if (i)
			lx->p++;
		if (integer_ex(lx, &v[i], sep != 'x'))
			return -1;
	}
	return 0;
}

static int value_ref(lexer *lx, vc_node **out)
{
	if (expect(lx, "%"))
		return -1;
	int64_t id;
	if (integer(lx, &id))
		return -1;
	if (id < 0 || id >= lx->n_ids || !lx->by_id[id])
		return fail(lx, "%%%" PRId64 " is used before it is defined", id);
	*out = lx->by_id[id];
	return 0;
}

static int parse_type(lexer *lx, vc_type *t)
{
	memset(t, 0, sizeof *t);
	if (accept(lx, "packed"))
		t->layout = VC_PACKED;
	if (accept(lx, "f32["))
		t->dtype = VC_F32;
	else if (accept(lx, "i8["))
		t->dtype = VC_I8;
	else if (accept(lx, "i32["))
		t->dtype = VC_I32;
	else
		return fail(lx, "expected a type (f32[..], i8[..], i32[..])");
	while (!accept(lx, "]")) {
		if (t->rank && expect(lx, ","))
			return -1;
		if (t->rank >= VC_MAX_RANK)
			return fail(lx, "rank above %d", VC_MAX_RANK);
		if (integer(lx, &t->dim[t->rank]))
			return -1;
		if (t->dim[t->rank] < 0 || t->dim[t->rank] > (1 << 30))
			return fail(lx, "dimension %" PRId64 " out of range", t->dim[t->rank]);
		t->rank++;
	}
	if (accept(lx, "q2^")) {
		t->quantized = 1;
		if (int_in(lx, -1000, 1000, &t->exp))
			return -1;
	}
	return 0;
}

static int parse_attr(lexer *lx, vc_attrs *a)
{
	char key[32];
	if (ident(lx, key, sizeof key) || expect(lx, "="))
		return -1;
	skip_ws(lx);
	if (!strcmp(key, "window"))
		return int_list(lx, 'x', 2, a->kernel);
	if (!strcmp(key, "stride"))
		return int_list(lx, 'x', 2, a->stride);
	if (!strcmp(key, "dilation"))
		return int_list(lx, 'x', 2, a->dilation);
	if (!strcmp(key, "pad"))
		return int_list(lx, ',', 4, a->pad);
	if (!strcmp(key, "group"))
		return integer(lx, &a->group);
	if (!strcmp(key, "axis"))
		return integer(lx, &a->axis);
	if (!strcmp(key, "ceil"))
		return int_in(lx, 0, 1, &a->ceil_mode);
	if (!strcmp(key, "count-include-pad"))
		return int_in(lx, 0, 1, &a->count_include_pad);
	if (!strcmp(key, "coerce2d"))
		return int_in(lx, 0, 1, &a->coerce2d);
	if (!strcmp(key, "exp"))
		return int_in(lx, -1000, 1000, &a->exp);
	if (!strcmp(key, "lo"))
		return real(lx, &a->lo);
	if (!strcmp(key, "hi"))
		return real(lx, &a->hi);
	if (!strcmp(key, "eps"))
		return real(lx, &a->eps);
	if (!strcmp(key, "shape")) {
		a->nshape = 0;
		do {
			if (a->nshape >= VC_MAX_RANK)
				return fail(lx, "shape of rank above %d", VC_MAX_RANK);
			if (integer(lx, &a->shape[a->nshape++]))
				return -1;
		} while (lx->p < lx->end && *lx->p == ',' && lx->p++);
		return 0;
	}
	if (!strcmp(key, "shift"))
		return int_in(lx, -64, 64, &a->shift);
	if (!strcmp(key, "relu"))
		return int_in(lx, 0, 1, &a->relu);
	if (!strcmp(key, "clip")) {
		if (integer(lx, &a->qlo) || expect(lx, ".."))
			return -1;
		return integer(lx, &a->qhi);
	}
	if (!strcmp(key, "residual-shift"))
		return int_in(lx, -64, 64, &a->res_shift);
	if (!strcmp(key, "leaky"))
		return int_in(lx, 0, 64, &a->leaky);
	if (!strcmp(key, "kernel"))
		return expect(lx, "@k") || int_in(lx, 0, 1 << 20, &a->kernel_id) ? -1 : 0;
	if (!strcmp(key, "resize")) /* mode, coordinate mapping, rounding: checked by the type rule */
		return int_in(lx, 0, 9, &a->resize_mode) || expect(lx, ",") || int_in(lx, 0, 9, &a->resize_coord) ||
			       expect(lx, ",") || int_in(lx, 0, 9, &a->resize_round)
			       ? -1
			       : 0;
	if (!strcmp(key, "fn"))
		return int_in(lx, 0, 1023, &a->fn);
	if (!strcmp(key, "axes"))
		return int_in(lx, 0, (1 << VC_MAX_RANK) - 1, &a->axes);
	if (!strcmp(key, "keepdims"))
		return int_in(lx, 0, 1, &a->keepdims);
	if (!strcmp(key, "alpha"))
		return real(lx, &a->alpha);
	if (!strcmp(key, "beta"))
		return real(lx, &a->beta);
	if (!strcmp(key, "scale"))
		return real(lx, &a->scale[0]) || expect(lx, "x") || real(lx, &a->scale[1]) ? -1 : 0;
	if (!strcmp(key, "dev-off"))
		return integer(lx, &a->dev_off);
	return fail(lx, "unknown attribute '%s'", key);
}

static int parse_hex_into(lexer *lx, uint8_t *d, size_t bytes);

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int parse_header(lexer *lx)
{
	vc_module *m = lx->m;
	if (expect(lx, "module") || expect(lx, "{"))
		return -1;
	while (!accept(lx, "}")) {
		char key[32];
		if (ident(lx, key, sizeof key) || expect(lx, "="))
			return -1;
		int64_t v;
		if (!strcmp(key, "props")) {
			m->props = 0;
			if (accept(lx, "none"))
				continue;
			do {
				char prop[32];
				if (ident(lx, prop, sizeof prop))
					return -1;
				int b = 0;
				while (b < VC_PROP_COUNT_ && strcmp(vc_prop_name(b), prop))
					b++;
				if (b == VC_PROP_COUNT_)
					return fail(lx, "unknown property '%s'", prop);
				m->props |= 1ull << b;
			} while (accept(lx, ","));
			continue;
		}
		if (integer(lx, &v))
			return -1;
		const vc_target *t = &m->target;
		int64_t have = !strcmp(key, "config")      ? (int64_t)t->config_id
			       : !strcmp(key, "batch")     ? t->batch
			       : !strcmp(key, "block-in")  ? t->block_in
			       : !strcmp(key, "block-out") ? t->block_out
							   : -1;
		if (!strcmp(key, "next-id")) {
			if (v < 0 || v > MAX_IDS)
				return fail(lx, "next-id %" PRId64 " out of range", v);
			m->g->next_id = (int)v;
			continue;
		}
		if (have < 0)
			return fail(lx, "unknown module field '%s'", key);
		if (v != have)
			return fail(lx, "the IR is for %s=0x%" PRIx64 ", this build's VTA has 0x%" PRIx64, key, v, have);
	}
	return 0;
}

static int parse_node(lexer *lx)
{
	vc_module *m = lx->m;
	int64_t id;
	if (expect(lx, "%") || integer(lx, &id) || expect(lx, "="))
		return -1;
	if (id < 0 || id >= lx->n_ids)
		return fail(lx, "node id %" PRId64 " is not below next-id %d", id, lx->n_ids);
	if (lx->by_id[id])
		return fail(lx, "%%%" PRId64 " is defined twice", id);
	char opname[32];
	if (ident(lx, opname, sizeof opname))
		return -1;
	int op = 0;
	while (op < VC_OP_COUNT && strcmp(vc_op_name((vc_op)op), opname))
		op++;
	if (op == VC_OP_COUNT)
		return fail(lx, "unknown op '%s'", opname);
	if (expect(lx, "("))
		return -1;
	vc_node *in[64];
	int n_in = 0;
	while (!accept(lx, ")")) {
		if (n_in && expect(lx, ","))
			return -1;
		if (n_in >= 64)
			return fail(lx, "more than 64 operands");
		if (value_ref(lx, &in[n_in++]))
			return -1;
	}
	vc_attrs a;
	vc_attrs_init(&a);
	if (accept(lx, "{"))
		while (!accept(lx, "}"))
			if (parse_attr(lx, &a))
				return -1;
	vc_type t;
	char name[sizeof ((vc_node *)0)->name];
	if (expect(lx, ":") || parse_type(lx, &t))
		return -1;
	int on_vta = accept(lx, "@vta");
	if (quoted(lx, name, sizeof name))
		return -1;
	const char *where = lx->p;
	vc_node *n;
	if (op == VC_OP_INPUT || op == VC_OP_CONST) {
		if (n_in)
			return fail(lx, "%s takes no operands", opname);
		n = op == VC_OP_INPUT ? vc_input(m, name, t.dtype, t.rank, t.dim) : vc_const(m, name, t.dtype, t.rank, t.dim, NULL);
		if (!n)
			return -1;
		n->type = t;
		n->a = a;
		if (op == VC_OP_CONST && parse_hex_into(lx, n->data, vc_type_bytes(&n->type)))
			return -1;
	} else {
		n = vc_build(m, (vc_op)op, in, n_in, &a, name);
		if (!n) {
			char pre[256];
			snprintf(pre, sizeof pre, "%s:%d: ", lx->name, lx->line);
			vc_error_prefix(m, pre);
			return -1;
		}
		if (!vc_type_equal(&n->type, &t)) {
			char want[160], got[160];
			vc_type_str(&t, want, sizeof want);
			vc_type_str(&n->type, got, sizeof got);
			lx->p = where;
			return fail(lx, "%%%" PRId64 " is printed as %s but its operands and attributes give %s", id, want, got);
		}
	}
	n->id = (int)id;
	n->on_vta = on_vta;
	lx->by_id[id] = n;
	return 0;
}

static int parse_graph(lexer *lx)
{
	vc_module *m = lx->m;
	vc_graph *g = m->g;
	lx->n_ids = g->next_id;
	lx->by_id = calloc((size_t)(lx->n_ids ? lx->n_ids : 1), sizeof *lx->by_id);
	if (!lx->by_id)
		return fail(lx, "out of memory");
	int64_t inputs[8];
	int n_inputs = 0;
	if (expect(lx, "graph") || expect(lx, "@main") || expect(lx, "("))
		return -1;
	while (!accept(lx, ")")) {
		if (n_inputs && expect(lx, ","))
			return -1;
		if (n_inputs >= 8)
			return fail(lx, "more than 8 graph inputs");
		if (expect(lx, "%") || integer(lx, &inputs[n_inputs++]))
			return -1;
	}
	if (expect(lx, "{"))
		return -1;
	while (!peek(lx, "return"))
		if (parse_node(lx))
			return -1;
	lx->p += strlen("return");
	while (peek(lx, "%")) {
		if (g->n_outputs >= 8)
			return fail(lx, "more than 8 graph outputs");
		if (value_ref(lx, &g->outputs[g->n_outputs++]))
			return -1;
		if (!accept(lx, ","))
			break;
	}
	if (expect(lx, "}"))
		return -1;
	if (n_inputs != g->n_inputs)
		return fail(lx, "the graph lists %d inputs, it has %d input nodes", n_inputs, g->n_inputs);
	for (int i = 0; i < n_inputs; i++) {
		vc_node *n = inputs[i] >= 0 && inputs[i] < lx->n_ids ? lx->by_id[inputs[i]] : NULL;
		if (!n || n->op != VC_OP_INPUT)
			return fail(lx, "graph input %%%" PRId64 " is not an input node", inputs[i]);
		g->inputs[i] = n;
	}
	return 0;
}

/* reads=inp0+wgt1 or reads=- */
static int parse_res(lexer *lx, const char *key, uint32_t *mask)
{
	if (expect(lx, key) || expect(lx, "="))
		return -1;
	*mask = 0;
	if (accept(lx, "-"))
		return 0;
	do {
		char name[16];
		if (ident(lx, name, sizeof name))
			return -1;
		int r = 0;
		while (r < VC_NRES && strcmp(vc_kernel_res_name(r), name))
			r++;
		if (r == VC_NRES)
			return fail(lx, "unknown SRAM region '%s'", name);
		*mask |= 1u << r;
	} while (accept(lx, "+"));
	return 0;
}

static int parse_hex_into(lexer *lx, uint8_t *d, size_t bytes)
{
	size_t k = 0;
	if (expect(lx, "=") || expect(lx, "["))
		return -1;
	if (peek(lx, "..."))
		return fail(lx, "data elided (printed for reading, not parsing: print without VC_PRINT_ELIDE)");
	for (;;) {
		skip_ws(lx);
		if (lx->p >= lx->end)
			return fail(lx, "data not closed");
		if (*lx->p == ']')
			break;
		do {
			int h = lx->end - lx->p >= 2 ? hexval(lx->p[0]) : -1, l = h >= 0 ? hexval(lx->p[1]) : -1;
			if (l < 0)
				return fail(lx, "expected hex bytes");
			if (k >= bytes)
				return fail(lx, "more than %zu bytes of data", bytes);
			d[k++] = (uint8_t)(h * 16 + l);
			lx->p += 2;
		} while (lx->p < lx->end && hexval(*lx->p) >= 0);
	}
	lx->p++;
	if (k != bytes)
		return fail(lx, "%zu bytes of data, %zu expected", k, bytes);
	return 0;
}

/* One instruction: the rest of the line in the assembler's syntax. */
static int parse_insn(lexer *lx, vta_insn_t *out)
{
	skip_ws(lx);
	const char *e = lx->p;
	while (e < lx->end && *e != '\n')
		e++;
	char line[512], name[64];
	if ((size_t)(e - lx->p) >= sizeof line)
		return fail(lx, "instruction line too long");
	memcpy(line, lx->p, (size_t)(e - lx->p));
	line[e - lx->p] = 0;
	snprintf(name, sizeof name, "%s:%d", lx->name, lx->line);
	vta_program_t prog;
	vta_error_t err;
	memset(&prog, 0, sizeof prog);
	if (vta_asm(line, name, &prog, &err))
		return fail(lx, "%s", err.msg);
	int one = prog.n_insns == 1 && prog.n_segs == 0;
	if (one)
		vta_insn_decode(&prog.insns[0], out);
	vta_program_free(&prog);
	if (!one)
		return fail(lx, "expected one instruction");
	lx->p = e;
	return 0;
}

static int parse_kernel(lexer *lx)
{
	vc_module *m = lx->m;
	int id = -1;
	vc_node *node = NULL;
	if (expect(lx, "kernel") || expect(lx, "@k") || int_in(lx, 0, 1 << 20, &id) || expect(lx, "for") ||
	    value_ref(lx, &node) || expect(lx, "{"))
		return -1;
	if (id != m->n_kernels)
		return fail(lx, "kernel @k%d where @k%d comes next", id, m->n_kernels);
	if (node->op != VC_OP_VTA_CONV || node->a.kernel_id != id)
		return fail(lx, "kernel @k%d is for %%%d, which is not a vta.conv with kernel=@k%d", id, node->id, id);
	vc_kernel *k = vc_alloc(m, sizeof *k);
	vc_kernel **nk = vc_alloc(m, (size_t)(m->n_kernels + 1) * sizeof *nk);
	if (!k || !nk)
		return fail(lx, "out of memory");
	if (m->n_kernels)
		memcpy(nk, m->kernels, (size_t)m->n_kernels * sizeof *nk);
	k->id = id;
	k->node = node;
	while (!accept(lx, "}")) {
		char key[32];
		int64_t v;
		if (ident(lx, key, sizeof key) || expect(lx, "=") || integer(lx, &v))
			return -1;
		int *i32 = !strcmp(key, "th") ? &k->tile.th : !strcmp(key, "tco") ? &k->tile.tco : !strcmp(key, "tci") ? &k->tile.tci
			 : !strcmp(key, "pingpong") ? &k->tile.pingpong : !strcmp(key, "tiled") ? &k->tiled
			 : !strcmp(key, "rows-outer") ? &k->tile.rows_outer : !strcmp(key, "resident") ? &k->tile.resident : NULL;
		int64_t *i64 = !strcmp(key, "insn-off") ? &k->insn_off : !strcmp(key, "insn-count") ? &k->insn_count
			     : !strcmp(key, "uop-off") ? &k->uop_off : !strcmp(key, "macs") ? &k->macs : NULL;
		if (i32) {
			if (v < -(1ll << 30) || v > (1ll << 30))
				return fail(lx, "%s=%" PRId64 " out of range", key, v);
			*i32 = (int)v;
		} else if (i64) {
			*i64 = v;
		} else {
			return fail(lx, "unknown kernel field '%s'", key);
		}
	}
	if (expect(lx, "{"))
		return -1;
	if (accept(lx, "uops")) {
		if (expect(lx, "["))
			return -1;
		while (!accept(lx, "]")) {
			if (k->n_uops == k->cap_uops) {
				int nc = k->cap_uops ? 2 * k->cap_uops : 1024;
				uint32_t *nu = nc <= (1 << 24) ? vc_alloc(m, (size_t)nc * 4) : NULL;
				if (!nu)
					return fail(lx, "too many micro-ops");
				if (k->n_uops)
					memcpy(nu, k->uops, (size_t)k->n_uops * 4);
				k->uops = nu;
				k->cap_uops = nc;
			}
			uint32_t *w = &k->uops[k->n_uops++];
			int64_t f[3];
			if (accept(lx, "=")) {
				if (integer(lx, &f[0]))
					return -1;
				if (f[0] < 0 || f[0] > UINT32_MAX)
					return fail(lx, "micro-op word out of range");
				*w = (uint32_t)f[0];
				continue;
			}
			if (int_list(lx, ',', 3, f))
				return -1;
			if (f[0] < 0 || f[1] < 0 || f[2] < 0 || f[0] > UINT32_MAX || f[1] > UINT32_MAX || f[2] > UINT32_MAX)
				return fail(lx, "micro-op field out of range");
			vta_uop_t u = {(uint32_t)f[0], (uint32_t)f[1], (uint32_t)f[2]};
			vta_error_t err;
			if (vta_uop_encode(&u, w, &err))
				return fail(lx, "%s", err.msg);
		}
	}
	while (!accept(lx, "}")) {
		if (k->n == k->cap) {
			int nc = k->cap ? 2 * k->cap : 256;
			vc_kinsn *ni = nc <= (1 << 24) ? vc_alloc(m, (size_t)nc * sizeof *ni) : NULL;
			if (!ni)
				return fail(lx, "too many instructions");
			if (k->n)
				memcpy(ni, k->code, (size_t)k->n * sizeof *ni);
			k->code = ni;
			k->cap = nc;
		}
		vc_kinsn *ki = &k->code[k->n++];
		char arg[16];
		if (expect(lx, "{") || expect(lx, "arg") || expect(lx, "="))
			return -1;
		ki->arg = -1;
		if (!accept(lx, "-")) {
			if (ident(lx, arg, sizeof arg))
				return -1;
			while (++ki->arg < VC_NARGS && strcmp(vc_kernel_arg_name(ki->arg), arg))
				;
			if (ki->arg == VC_NARGS)
				return fail(lx, "unknown kernel operand '%s'", arg);
		}
		if (parse_res(lx, "reads", &ki->reads) || parse_res(lx, "writes", &ki->writes) || expect(lx, "}") ||
		    parse_insn(lx, &ki->insn))
			return -1;
	}
	nk[m->n_kernels++] = k;
	m->kernels = nk;
	return 0;
}

static int parse_stream(lexer *lx)
{
	vc_module *m = lx->m;
	int64_t size, used;
	if (expect(lx, "stream") || expect(lx, "{") || expect(lx, "size") || expect(lx, "=") || integer(lx, &size) ||
	    expect(lx, "used") || expect(lx, "=") || integer(lx, &used) || expect(lx, "}"))
		return -1;
	if (size < 0 || size > (1ll << 36))
		return fail(lx, "stream size %" PRId64 " out of range", size);
	vc_stream *s = vc_alloc(m, sizeof *s);
	uint8_t *img = s ? vc_alloc(m, (size_t)(size ? size : 1)) : NULL;
	if (!img)
		return fail(lx, "out of memory for a %" PRId64 "-byte image", size);
	s->image = img;
	s->size = size;
	s->used = used;
	if (parse_hex_into(lx, img, (size_t)size))
		return -1;
	m->stream = s;
	return 0;
}

int vc_parse_module(vc_module *m, const char *name, const char *text, size_t len)
{
	lexer lx = {.m = m, .name = name, .p = text, .end = text + len, .line_start = text, .line = 1};
	int rc = parse_header(&lx) || parse_graph(&lx) ? -1 : 0;
	while (!rc && peek(&lx, "kernel"))
		rc = parse_kernel(&lx);
	if (!rc && peek(&lx, "stream"))
		rc = parse_stream(&lx);
	if (!rc) {
		skip_ws(&lx);
		if (lx.p < lx.end)
			rc = fail(&lx, "unexpected text after the module");
	}
	if (!rc)
		m->g->next_id = lx.n_ids;
	free(lx.by_id);
	return rc;
}
