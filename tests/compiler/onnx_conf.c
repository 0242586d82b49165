/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libonnx-testdata through import, vta compile, libvta on fsim (onnx_conf.h).
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <vta/model.h>

#include "onnx_conf.h"
#include "artifact/artifact.h"
#include "cli/cli.h"
#include "import/import.h"
#include "onnx.pb-c.h"

enum { ONNX_FLOAT = 1, ONNX_INT32 = 6, ONNX_INT64 = 7, ONNX_BOOL = 9, ONNX_DOUBLE = 11 };
enum { MAX_IO = 8, MAX_FROZEN = 32, N_CALIB = 8 };

/* An expected output (or the live input): its values as doubles, read here
 * from the TensorProto, independently of the importer. */
typedef struct expect {
	int rank;
	int64_t dim[8], n;
	double *v;
} expect;

static uint64_t le(const uint8_t *p, int k)
{
	uint64_t u = 0;
	for (int i = k - 1; i >= 0; i--)
		u = u << 8 | p[i];
	return u;
}

/* 0, or -1 with why set. */
static int read_expect(const char *path, expect *e, char *why, size_t wn)
{
	size_t len;
	char err[512];
	uint8_t *b = vc_read_all(path, &len, err, sizeof err);
	if (!b) {
		snprintf(why, wn, "%s", err);
		return -1;
	}
	Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, b);
	free(b);
	if (!t || t->n_dims > 8) {
		snprintf(why, wn, "%s: not a TensorProto of rank <= 8", path);
		if (t)
			onnx__tensor_proto__free_unpacked(t, NULL);
		return -1;
	}
	e->rank = (int)t->n_dims;
	e->n = 1;
	for (size_t i = 0; i < t->n_dims; i++)
		e->n *= e->dim[i] = t->dims[i];
	int dt = t->data_type, k = dt == ONNX_FLOAT || dt == ONNX_INT32 ? 4 : dt == ONNX_INT64 || dt == ONNX_DOUBLE ? 8 : dt == ONNX_BOOL;
	size_t typed = dt == ONNX_FLOAT ? t->n_float_data : dt == ONNX_DOUBLE ? t->n_double_data
						: dt == ONNX_INT64 ? t->n_int64_data : t->n_int32_data;
	int rc = -1;
	e->v = malloc((size_t)(e->n ? e->n : 1) * sizeof *e->v);
	if (!k || !e->v || (t->has_raw_data ? t->raw_data.len != (size_t)e->n * (size_t)k : typed != (size_t)e->n)) {
		snprintf(why, wn, "%s: data type %d or its size is not one read here", path, dt);
		goto done;
	}
	for (int64_t i = 0; i < e->n; i++) {
		if (t->has_raw_data) {
			uint64_t u = le(t->raw_data.data + i * k, k);
			float f;
			double d;
			uint32_t u32 = (uint32_t)u;
			memcpy(&f, &u32, 4);
			memcpy(&d, &u, 8);
			e->v[i] = dt == ONNX_FLOAT ? f : dt == ONNX_DOUBLE ? d : dt == ONNX_INT32 ? (int32_t)u32
				: dt == ONNX_INT64 ? (double)(int64_t)u : (double)(u != 0);
		} else {
			e->v[i] = dt == ONNX_FLOAT ? t->float_data[i] : dt == ONNX_DOUBLE ? t->double_data[i]
				: dt == ONNX_INT64 ? (double)t->int64_data[i] : t->int32_data[i];
		}
	}
	rc = 0;
done:
	onnx__tensor_proto__free_unpacked(t, NULL);
	if (rc) {
		free(e->v);
		e->v = NULL;
	}
	return rc;
}

/* The census key: the op a refusal names (the first unsupported op type),
 * else the first op type of the model the message names, else its first;
 * a test without a float input to run is its own key (no op would help). */
static void census_key(const Onnx__GraphProto *g, const char *why, char *op, size_t n)
{
	const char *s = strstr(why, "not supported: ");
	if (!strncmp(why, "no float graph input", 20)) {
		snprintf(op, n, "(no float input)");
		return;
	}
	if (s) {
		s += strlen("not supported: ");
		size_t k = strcspn(s, " (,;");
		snprintf(op, n, "%.*s", (int)k, s);
		return;
	}
	snprintf(op, n, "%s", g->n_node && g->node[0]->op_type ? g->node[0]->op_type : "?");
	for (size_t i = 0; i < g->n_node; i++) {
		char pat[80];
		snprintf(pat, sizeof pat, "(%s)", g->node[i]->op_type ? g->node[i]->op_type : "");
		if (strstr(why, pat)) {
			snprintf(op, n, "%s", g->node[i]->op_type);
			return;
		}
	}
}

static const char *type_name(int t)
{
	static const char *const names[] = {"undefined", "float", "uint8", "int8", "uint16", "int16", "int32",
					    "int64", "string", "bool", "float16", "double", "uint32", "uint64"};
	return t >= 0 && t < (int)(sizeof names / sizeof names[0]) ? names[t] : "not a tensor";
}

static int is_initializer(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name && !strcmp(g->initializer[i]->name, name))
			return 1;
	return 0;
}

static int file_exists(const char *path)
{
	struct stat sb;
	return !stat(path, &sb);
}

/* Import the model with every graph input but the first float one frozen
 * from test_data_set_0; *live: that input's index among the inputs given.
 * 0, or -1 with c->why (the case is refused). */
static int import_frozen(const char *dir, vc_module *m, const uint8_t *model, size_t len, const Onnx__GraphProto *g,
			 int *live, conf_case *c)
{
	vc_onnx_frozen fr[MAX_FROZEN];
	uint8_t *pb[MAX_FROZEN] = {0};
	int first_type = -1;
	char path[1200], err[512];
	int n = 0, k = 0, rc = -1;
	*live = -1;
	for (size_t i = 0; i < g->n_input; i++) {
		const Onnx__ValueInfoProto *v = g->input[i];
		if (!v->name || is_initializer(g, v->name))
			continue;
		int type = v->type && v->type->tensor_type ? v->type->tensor_type->elem_type : -1;
		int fl = type == ONNX_FLOAT;
		if (first_type < 0)
			first_type = type;
		if (*live < 0 && fl) {
			*live = k++;
			continue;
		}
		snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", dir, k++);
		if (n == MAX_FROZEN || !(pb[n] = vc_read_all(path, &fr[n].len, err, sizeof err))) {
			snprintf(c->why, sizeof c->why, "input '%s' to freeze: %s", v->name, n == MAX_FROZEN ? "too many" : err);
			goto done;
		}
		fr[n].name = v->name;
		fr[n].pb = pb[n];
		n++;
	}
	if (*live < 0) {
		snprintf(c->why, sizeof c->why, "no float graph input to run (%d inputs; the first is %s)", k,
			 type_name(first_type));
		goto done;
	}
	if (vc_import_onnx_frozen(m, model, len, fr, n)) {
		snprintf(c->why, sizeof c->why, "%s", m->diag.msg);
		goto done;
	}
	rc = 0;
done:
	for (int i = 0; i < MAX_FROZEN; i++)
		free(pb[i]);
	return rc;
}

/* Calibration samples over [min, max] of the given input (its range, not
 * its values): two constant ones at min and at max (a test's input is often
 * a ramp, whose windows reach the extremes that uniform noise averages
 * away), the rest uniform. */
static int calibrate_like(vc_module *m, const expect *x)
{
	double lo = INFINITY, hi = -INFINITY;
	for (int64_t i = 0; i < x->n; i++)
		lo = fmin(lo, x->v[i]), hi = fmax(hi, x->v[i]);
	if (!(lo <= hi))
		lo = hi = 0;
	float *d = vc_alloc(m, (size_t)N_CALIB * (size_t)x->n * sizeof *d + 1);
	if (!d)
		return -1;
	uint64_t st = 0x9e3779b97f4a7c15ull ^ (uint64_t)x->n;
	for (int64_t i = 0; i < N_CALIB * x->n; i++) {
		st ^= st >> 12, st ^= st << 25, st ^= st >> 27;
		double u = (double)((st * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
		d[i] = (float)(i < x->n ? lo : i < 2 * x->n ? hi : lo + (hi - lo) * u);
	}
	m->calib = (vc_samples){.count = N_CALIB, .elems = x->n, .data = d};
	return 0;
}

/* Does any value of the compiled graph hold integers (int8 anywhere)? */
static int has_int(const vc_module *m)
{
	for (int i = 0; i < m->g->n; i++)
		if (m->g->nodes[i]->op != VC_OP_CONST && m->g->nodes[i]->type.dtype != VC_F32)
			return 1;
	return 0;
}

/* Output o of the run against output_o.pb: 0 within tolerance. */
static int compare(const char *dir, int o, const float *got, const vta_tensor_info_t *info, conf_case *c)
{
	char path[1200];
	expect e = {0};
	snprintf(path, sizeof path, "%s/test_data_set_0/output_%d.pb", dir, o);
	if (read_expect(path, &e, c->why, sizeof c->why))
		return -1;
	int rc = -1;
	if (e.n != info->elems) {
		snprintf(c->why, sizeof c->why, "output %d has %lld values, expected %lld", o, (long long)info->elems,
			 (long long)e.n);
		goto done;
	}
	int same = e.rank == info->rank;
	for (int d = 0; same && d < e.rank; d++)
		same = e.dim[d] == info->dim[d];
	if (!same) {
		char a[96] = "", b[96] = "";
		for (int d = 0; d < info->rank && d < VTA_MODEL_MAX_RANK; d++)
			snprintf(a + strlen(a), sizeof a - strlen(a), "%s%lld", d ? "," : "", (long long)info->dim[d]);
		for (int d = 0; d < e.rank; d++)
			snprintf(b + strlen(b), sizeof b - strlen(b), "%s%lld", d ? "," : "", (long long)e.dim[d]);
		snprintf(c->why, sizeof c->why, "output %d has shape [%s], expected [%s]", o, a, b);
		goto done;
	}
	double range = 0, err = 0;
	int64_t at = -1;
	for (int64_t i = 0; i < e.n; i++)
		if (isfinite(e.v[i]))
			range = fmax(range, fabs(e.v[i]));
	for (int64_t i = 0; i < e.n; i++) {
		double w = e.v[i], g = got[i], d = fabs(g - w);
		int bad;
		if (!isfinite(w))
			bad = isnan(w) ? !isnan(g) : g != w;
		else
			bad = !(c->int8 ? d <= 0.06 * range : d <= 1e-4 * (1 + fabs(w)));
		if (isfinite(w) && d > err)
			err = d;
		if (bad && at < 0)
			at = i;
	}
	c->err = fmax(c->err, err);
	c->range = fmax(c->range, range);
	if (at >= 0) {
		snprintf(c->why, sizeof c->why, "%s output %d: value %lld is %g, expected %g (largest error %.3g, range %.3g)",
			 c->int8 ? "int8" : "float", o, (long long)at, got[at], e.v[at], err, range);
		goto done;
	}
	rc = 0;
done:
	free(e.v);
	return rc;
}

/* The compiled module m through libvta on fsim, input x, every output
 * compared. CONF_PASS or CONF_WRONG (with why). */
static int run_compare(const char *dir, vc_module *m, const expect *x, conf_case *c)
{
	uint8_t *art = NULL;
	size_t alen;
	vta_model_t *vm = NULL;
	vta_error_t e = {0};
	float *in = NULL, *out[MAX_IO] = {0};
	vta_tensor_t ti, to[MAX_IO];
	int rc = CONF_WRONG, n_out = 0;
	if (vc_artifact_bytes(m, &art, &alen)) {
		snprintf(c->why, sizeof c->why, "artifact: %.900s", m->diag.msg);
		return CONF_REFUSED;
	}
	if (vta_model_open_bytes(art, alen, "model.vtam", "fsim", &vm, &e)) {
		snprintf(c->why, sizeof c->why, "libvta refuses the compiled model: %s", e.msg);
		goto done;
	}
	n_out = vta_model_n_outputs(vm);
	char path[1200];
	snprintf(path, sizeof path, "%s/test_data_set_0/output_%d.pb", dir, n_out);
	if (n_out < 1 || n_out > MAX_IO || file_exists(path)) {
		snprintf(c->why, sizeof c->why, "the model has %d outputs, the test more", n_out);
		goto done;
	}
	in = malloc((size_t)x->n * sizeof *in + 1);
	for (int64_t i = 0; in && i < x->n; i++)
		in[i] = (float)x->v[i];
	ti = (vta_tensor_t){VTA_DTYPE_F32, 0, in, (size_t)x->n * sizeof *in};
	vta_tensor_info_t info[MAX_IO];
	for (int o = 0; o < n_out; o++) {
		vta_model_output(vm, o, &info[o]);
		out[o] = calloc((size_t)info[o].elems + 1, sizeof *out[o]);
		to[o] = (vta_tensor_t){VTA_DTYPE_F32, 0, out[o], (size_t)info[o].elems * sizeof *out[o]};
	}
	if (!in || vta_model_run(vm, &ti, to, &e)) {
		snprintf(c->why, sizeof c->why, "run: %s", e.msg);
		goto done;
	}
	for (int o = 0; o < n_out; o++)
		if (compare(dir, o, out[o], &info[o], c))
			goto done;
	rc = CONF_PASS;
done:
	vta_model_close(vm);
	free(art);
	free(in);
	for (int o = 0; o < n_out && o < MAX_IO; o++)
		free(out[o]);
	return rc;
}

void conf_run_case(const char *dir, conf_case *c)
{
	memset(c, 0, sizeof *c);
	c->result = CONF_REFUSED;
	snprintf(c->op, sizeof c->op, "?");
	char path[1200], err[512];
	size_t len;
	snprintf(path, sizeof path, "%s/model.onnx", dir);
	uint8_t *model = vc_read_all(path, &len, err, sizeof err);
	Onnx__ModelProto *mp = model ? onnx__model_proto__unpack(NULL, len, model) : NULL;
	if (!mp || !mp->graph) {
		snprintf(c->why, sizeof c->why, "%s", model ? "model.onnx does not parse" : err);
		c->result = CONF_WRONG;
		if (mp)
			onnx__model_proto__free_unpacked(mp, NULL);
		free(model);
		return;
	}
	vc_module *m = vc_module_new();
	expect x = {0};
	int live;
	vc_compile_opts o = {0};
	if (import_frozen(dir, m, model, len, mp->graph, &live, c))
		goto done;
	snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", dir, live);
	if (read_expect(path, &x, c->why, sizeof c->why))
		goto done;
	if (m->g->n_inputs != 1 || x.n != vc_type_elems(&m->g->inputs[0]->type)) {
		char t[128] = "";
		if (m->g->n_inputs)
			vc_type_str(&m->g->inputs[0]->type, t, sizeof t);
		snprintf(c->why, sizeof c->why, "graph input %s of %lld values is not the test's %lld (symbolic dimensions)",
			 t, m->g->n_inputs ? (long long)vc_type_elems(&m->g->inputs[0]->type) : 0LL, (long long)x.n);
		goto done;
	}
	if (calibrate_like(m, &x) || vc_compile(m, &o, c->why, sizeof c->why))
		goto done;
	c->int8 = has_int(m);
	c->result = run_compare(dir, m, &x, c);
done:
	if (c->result != CONF_PASS)
		census_key(mp->graph, c->why, c->op, sizeof c->op);
	free(x.v);
	vc_module_free(m);
	onnx__model_proto__free_unpacked(mp, NULL);
	free(model);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void census_add(conf_stats *st, const conf_case *c)
{
	int i = 0;
	while (i < st->n_ops && strcmp(st->ops[i].op, c->op))
		i++;
	if (i == st->n_ops) {
		if (st->n_ops == (int)(sizeof st->ops / sizeof st->ops[0]))
			return;
		st->n_ops++;
		snprintf(st->ops[i].op, sizeof st->ops[i].op, "%s", c->op);
		snprintf(st->ops[i].example, sizeof st->ops[i].example, "%.159s", c->why);
	}
	st->ops[i].count++;
}

int conf_run_set(const char *set, const char *const *only, conf_stats *st, FILE *verbose)
{
	char root[512];
	snprintf(root, sizeof root, "%s/%s", CONF_DATA, set);
	DIR *d = opendir(root);
	if (!d)
		return -1;
	char **names = NULL;
	int n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		int want = e->d_name[0] != '.' && !only;
		for (int i = 0; only && e->d_name[0] != '.' && only[i]; i++)
			want |= !strcmp(e->d_name, only[i]);
		if (!want)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			char **p = realloc(names, (size_t)cap * sizeof *p);
			if (!p)
				break;
			names = p;
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, by_name);
	for (int i = 0; i < n; i++) {
		char dir[1024];
		conf_case c;
		snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
		conf_run_case(dir, &c);
		st->total++;
		st->pass += c.result == CONF_PASS;
		st->refused += c.result == CONF_REFUSED;
		st->wrong += c.result == CONF_WRONG;
		if (c.result == CONF_REFUSED)
			census_add(st, &c);
		if (c.result == CONF_WRONG || (verbose && c.result != CONF_PASS))
			fprintf(verbose ? verbose : stdout, "  %-48s %s [%s]: %s\n", names[i],
				c.result == CONF_WRONG ? "WRONG" : "refused", c.op, c.why);
		else if (verbose)
			fprintf(verbose, "  %-48s pass, %s, largest error %.3g of range %.3g\n", names[i],
				c.int8 ? "int8" : "float", c.err, c.range);
		free(names[i]);
	}
	free(names);
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct conf_op *x = a, *y = b;
	return x->count != y->count ? y->count - x->count : strcmp(x->op, y->op);
}

void conf_print_census(FILE *f, const conf_stats *st, int top)
{
	struct conf_op ops[256];
	memcpy(ops, st->ops, (size_t)st->n_ops * sizeof *ops);
	qsort(ops, (size_t)st->n_ops, sizeof *ops, by_count);
	for (int i = 0; i < st->n_ops && i < top; i++)
		fprintf(f, "  %-24s %4d  e.g. %s\n", ops[i].op, ops[i].count, ops[i].example);
}
