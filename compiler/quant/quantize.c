/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quantize: calibrate on the samples the driver gives (value ranges from the
 * float reference), then symmetric int8 with per-layer power-of-two scales:
 * conv/dense become qconv/qdense -> requant; a residual add of a just
 * quantized conv becomes qadd on the accumulator; relu, clip, maxpool and
 * reshape stay integer; everything else gets a dequantize.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "quant/quant.h"

/* Smallest exponent e with 127 * 2^e >= r (power-of-two scale). */
static int exp_for(double r)
{
	if (!(r > 0) || !isfinite(r))
		return 0;
	int e = (int)ceil(log2(r / 127.0));
	while (127.0 * ldexp(1.0, e) < r)
		e++;
	return e;
}

typedef struct qstate {
	vc_module *m;
	vc_node **fl, **q; /* per original id: float and int8 versions */
	vc_range *rng;
	int ids;
} qstate;

static vc_node *get_f(qstate *s, vc_node *n)
{
	if (n->id < s->ids && s->fl[n->id])
		return s->fl[n->id];
	if (n->id >= s->ids || !s->q[n->id])
		return n;
	vc_node *d = vc_build(s->m, VC_OP_DEQUANTIZE, &s->q[n->id], 1, NULL, NULL);
	if (d)
		s->fl[n->id] = d;
	return d;
}

static vc_node *get_q(qstate *s, vc_node *n)
{
	if (s->q[n->id])
		return s->q[n->id];
	vc_node *f = get_f(s, n);
	if (!f)
		return NULL;
	vc_attrs a;
	vc_attrs_init(&a);
	a.exp = exp_for(s->rng[n->id].absmax);
	vc_node *q = vc_build(s->m, VC_OP_QUANTIZE, &f, 1, &a, NULL);
	if (q)
		s->q[n->id] = q;
	return q;
}

static vc_node *quantize_weights(vc_module *m, const vc_node *w, int *exp)
{
	int64_t e = vc_type_elems(&w->type);
	double mx = 0;
	for (int64_t i = 0; i < e; i++)
		mx = fmax(mx, fabs(((const float *)w->data)[i]));
	*exp = exp_for(mx);
	vc_node *q = vc_const(m, NULL, VC_I8, w->type.rank, w->type.dim, NULL);
	if (!q)
		return NULL;
	q->type.quantized = 1;
	q->type.exp = *exp;
	for (int64_t i = 0; i < e; i++)
		((int8_t *)q->data)[i] = vc_quantize_value(((const float *)w->data)[i], *exp);
	return q;
}

static int calibrate(vc_pass *p, vc_module *m, vc_range *rng)
{
	vc_graph *g = m->g;
	int want = (int)vc_opt_int(p, "calib");
	vc_samples *cs = &m->calib;
	int n = cs->count;
	float *synthetic = NULL;
	int64_t elems = vc_type_elems(&g->inputs[0]->type);
	if (n == 0) {
		/* no samples given: uniform [0,1) from a fixed seed */
		n = 4;
		synthetic = malloc((size_t)(n * elems) * sizeof(float));
		if (!synthetic)
			return vc_error(m, NULL, "out of memory");
		uint64_t st = 0x9E3779B97F4A7C15ull;
		for (int64_t i = 0; i < n * elems; i++) {
			st ^= st << 13, st ^= st >> 7, st ^= st << 17;
			synthetic[i] = (float)((st >> 11) * (1.0 / 9007199254740992.0));
		}
		vc_stat_add(p, "synthetic-samples", n);
	} else if (cs->elems != elems) {
		return vc_error(m, g->inputs[0], "calibration samples have %lld values, the input needs %lld",
				(long long)cs->elems, (long long)elems);
	}
	if (want > 0 && want < n)
		n = want;
	int rc = 0;
	for (int s = 0; s < n && !rc; s++) {
		vc_tensor in[8], out[8];
		memset(in, 0, sizeof in);
		for (int k = 0; k < g->n_inputs; k++)
			if (vc_tensor_alloc(&in[k], &g->inputs[k]->type))
				rc = vc_error(m, NULL, "out of memory");
		if (!rc)
			memcpy(in[0].data, (synthetic ? synthetic : cs->data) + (size_t)s * (size_t)elems,
			       (size_t)elems * sizeof(float));
		if (!rc)
			rc = vc_interp(m, in, out, rng, NULL, NULL);
		if (!rc && m->progress)
			m->progress(m->progress_ctx, "calibration samples", s + 1, n);
		for (int k = 0; k < g->n_inputs; k++)
			vc_tensor_free(&in[k]);
		if (!rc)
			for (int k = 0; k < g->n_outputs; k++)
				vc_tensor_free(&out[k]);
	}
	vc_stat_add(p, "samples", n);
	free(synthetic);
	return rc;
}

/* The leaky ReLU that is v's only user (folded into v's requantization). */
static vc_node *leaky_user(const vc_node *v)
{
	return v->n_users == 1 && v->users[0]->op == VC_OP_LEAKY && v->users[0]->in[0] == v ? v->users[0] : NULL;
}

/* Ops that only move int8 values: they keep their input's exponent. */
static int moves_only(vc_op op)
{
	return op == VC_OP_RELU || op == VC_OP_CLIP || op == VC_OP_MAXPOOL || op == VC_OP_RESHAPE || op == VC_OP_FLATTEN ||
	       op == VC_OP_UPSAMPLE || op == VC_OP_ALIGN;
}

/*
 * A concat stays int8 when its inputs share one exponent: give every
 * producer feeding it (through ops that only move values) the concat's
 * calibrated range, so that they all quantize to the concat's exponent.
 */
static void unify_concat_ranges(vc_module *m, vc_range *rng)
{
	vc_graph *g = m->g;
	for (int i = g->n - 1; i >= 0; i--) {
		vc_node *c = g->nodes[i];
		if (c->op != VC_OP_CONCAT)
			continue;
		float r = rng[c->id].absmax;
		for (int k = 0; k < c->n_in; k++) {
			vc_node *v = c->in[k];
			while (moves_only(v->op) && v->n_in) {
				rng[v->id].absmax = rng[v->id].posmax = r;
				v = v->in[0];
			}
			rng[v->id].absmax = rng[v->id].posmax = r;
			if (v->op == VC_OP_LEAKY && v->n_in)
				rng[v->in[0]->id].absmax = rng[v->in[0]->id].posmax = r;
		}
	}
}

static int same_dims(const vc_type *a, const vc_type *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dim[i] != b->dim[i])
			return 0;
	return 1;
}

/*
 * A residual add y = conv(x) + r (either operand order), where the conv or
 * dense was just quantized and feeds only this add, and r has the same
 * shape: keep it integer as qadd(acc, r_q) on the int32 accumulator, the
 * residual left-shifted to the accumulator's exponent, then one requant.
 * 1 if done, 0 if the add stays in float (shapes, or the residual's
 * exponent is below the accumulator's: that would need a rounding right
 * shift of the residual), -1 on error.
 */
static int quantize_residual_add(vc_pass *p, qstate *s, vc_node *n)
{
	vc_module *m = s->m;
	for (int k = 0; k < 2; k++) {
		vc_node *a = n->in[k], *b = n->in[1 - k];
		if ((a->op != VC_OP_CONV && a->op != VC_OP_DENSE) || !vc_only_user(a, n) || a == b)
			continue;
		vc_node *rq = s->q[a->id];
		if (!rq || rq->op != VC_OP_REQUANT || rq->n_users || s->fl[a->id])
			continue;
		if (!same_dims(&a->type, &b->type) || !same_dims(&a->type, &n->type))
			continue;
		vc_node *acc = rq->in[0];
		int be = s->q[b->id] ? s->q[b->id]->type.exp : exp_for(s->rng[b->id].absmax);
		int sh = be - acc->type.exp;
		if (sh < 0 || sh > 24) {
			vc_stat_add(p, "residual-adds-float", 1);
			return 0;
		}
		vc_node *bq = get_q(s, b);
		if (!bq)
			return -1;
		vc_node *args[2] = {acc, bq};
		char nm[64];
		snprintf(nm, sizeof nm, "%.50s", n->name);
		vc_node *qa = vc_build(m, VC_OP_QADD, args, 2, NULL, nm);
		if (!qa)
			return -1;
		double r = s->rng[n->id].absmax;
		vc_node *lk = leaky_user(n);
		if (n->n_users == 1 && n->users[0]->op == VC_OP_RELU)
			r = s->rng[n->id].posmax;
		vc_attrs ra;
		vc_attrs_init(&ra);
		if (lk) {
			r = s->rng[lk->id].absmax;
			ra.leaky = lk->a.leaky;
		}
		ra.exp = exp_for(r);
		if (ra.exp - qa->type.exp > 31)
			ra.exp = qa->type.exp + 31;
		if (ra.exp - qa->type.exp < -31)
			ra.exp = qa->type.exp - 31;
		snprintf(nm, sizeof nm, "%.50s.rq", n->name);
		vc_node *rq2 = vc_build(m, VC_OP_REQUANT, &qa, 1, &ra, nm);
		if (!rq2)
			return -1;
		s->q[lk ? lk->id : n->id] = rq2;
		vc_stat_add(p, "residual-adds", 1);
		return 1;
	}
	return 0;
}

/* Are all inputs of n integers at one exponent? */
static int all_int_same_exp(const qstate *s, const vc_node *n)
{
	for (int k = 0; k < n->n_in; k++) {
		const vc_node *v = n->in[k];
		if (!s->q[v->id] || s->fl[v->id] || s->q[v->id]->type.exp != s->q[n->in[0]->id]->type.exp ||
		    s->q[v->id]->type.dtype != VC_I8)
			return 0;
	}
	return 1;
}

static int quantize(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	if (vc_opt_int(p, "bits") != 8)
		return vc_error(m, NULL, "quantize: bits=%lld; only 8 is supported", (long long)vc_opt_int(p, "bits"));
	const char *skip = vc_opt_str(p, "skip");
	int count;
	vc_node **nodes = vc_snapshot(m, &count);
	if (!nodes || vc_check_list(m, "quantize", "skip", skip, nodes, count))
		return -1;
	qstate s = {.m = m, .ids = m->g->next_id};
	s.fl = vc_alloc(m, (size_t)s.ids * sizeof *s.fl);
	s.q = vc_alloc(m, (size_t)s.ids * sizeof *s.q);
	s.rng = calloc((size_t)s.ids, sizeof *s.rng);
	if (!s.fl || !s.q || !s.rng) {
		free(s.rng);
		return vc_error(m, NULL, "out of memory");
	}
	if (calibrate(p, m, s.rng)) {
		free(s.rng);
		return -1;
	}
	unify_concat_ranges(m, s.rng);
	int rc = -1, hit;
	for (int i = 0; i < count; i++) {
		vc_node *n = nodes[i];
		vc_set_insert_before(m, n);
		vc_node *x = n->n_in ? n->in[0] : NULL;
		int int_in = x && s.q[x->id] && !s.fl[x->id]; /* input lives as integers */
		if (s.q[n->id]) {
			/* a leaky ReLU already folded into its producer's requant */
		} else if (n->op == VC_OP_INPUT || n->op == VC_OP_CONST) {
			s.fl[n->id] = n;
		} else if ((n->op == VC_OP_CONV || n->op == VC_OP_DENSE) && n->in[1]->op == VC_OP_CONST &&
			   (n->n_in < 3 || n->in[2]->op == VC_OP_CONST) && !vc_listed(skip, n)) {
			vc_node *xq = get_q(&s, x);
			int we;
			vc_node *wq = quantize_weights(m, n->in[1], &we);
			if (!xq || !wq)
				goto done;
			int be = xq->type.exp + we;
			int64_t O = n->in[1]->type.dim[0], d1[1] = {O};
			vc_node *bq = vc_const(m, NULL, VC_I32, 1, d1, NULL);
			if (!bq)
				goto done;
			bq->type.quantized = 1;
			bq->type.exp = be;
			for (int64_t o = 0; o < O; o++) {
				double b = n->n_in > 2 ? ((const float *)n->in[2]->data)[o] : 0.0;
				double v = nearbyint(ldexp(b, -be));
				((int32_t *)bq->data)[o] = (int32_t)fmax(fmin(v, 2147483647.0), -2147483647.0);
			}
			vc_node *args[3] = {xq, wq, bq};
			vc_node *acc = vc_build(m, n->op == VC_OP_CONV ? VC_OP_QCONV : VC_OP_QDENSE, args, 3, &n->a, n->name);
			if (!acc)
				goto done;
			/* a relu consumer only keeps the positive range; a leaky
			 * one is folded into the requantization */
			double r = s.rng[n->id].absmax;
			vc_node *lk = leaky_user(n);
			if (n->n_users == 1 && n->users[0]->op == VC_OP_RELU)
				r = s.rng[n->id].posmax;
			vc_attrs ra;
			vc_attrs_init(&ra);
			if (lk) {
				r = s.rng[lk->id].absmax;
				ra.leaky = lk->a.leaky;
			}
			ra.exp = exp_for(r);
			if (ra.exp - acc->type.exp > 31)
				ra.exp = acc->type.exp + 31;
			if (ra.exp - acc->type.exp < -31)
				ra.exp = acc->type.exp - 31;
			char rn[64];
			snprintf(rn, sizeof rn, "%.50s.rq", n->name);
			vc_node *rq = vc_build(m, VC_OP_REQUANT, &acc, 1, &ra, rn);
			if (!rq)
				goto done;
			s.q[lk ? lk->id : n->id] = rq;
			vc_stat_add(p, "quantized-layers", 1);
		} else if (n->op == VC_OP_ADD && (hit = quantize_residual_add(p, &s, n)) != 0) {
			if (hit < 0)
				goto done;
		} else if (int_in && moves_only(n->op)) {
			vc_node *qn = vc_build(m, n->op, &s.q[x->id], 1, &n->a, n->name);
			if (!qn)
				goto done;
			s.q[n->id] = qn;
		} else if (n->op == VC_OP_CONCAT && n->n_in <= 16 && all_int_same_exp(&s, n)) {
			vc_node *qin[16];
			for (int k = 0; k < n->n_in; k++)
				qin[k] = s.q[n->in[k]->id];
			vc_node *qn = vc_build(m, VC_OP_CONCAT, qin, n->n_in, &n->a, n->name);
			if (!qn)
				goto done;
			s.q[n->id] = qn;
			vc_stat_add(p, "int8-concats", 1);
		} else {
			for (int k = 0; k < n->n_in; k++) {
				vc_node *f = get_f(&s, n->in[k]);
				if (!f)
					goto done;
				if (f != n->in[k])
					vc_set_input(m, n, k, f);
			}
			s.fl[n->id] = n;
			if (n->op == VC_OP_CONV || n->op == VC_OP_DENSE)
				vc_stat_add(p, "float-layers", 1);
		}
	}
	vc_set_insert_before(m, NULL);
	for (int k = 0; k < m->g->n_outputs; k++) {
		vc_node *f = get_f(&s, m->g->outputs[k]);
		if (!f)
			goto done;
		m->g->outputs[k] = f;
	}
	vc_remove_dead(m);
	rc = 0;
done:
	vc_set_insert_before(m, NULL);
	free(s.rng);
	return rc;
}

const vc_pass_desc vc_pass_quantize = {
	.name = "quantize",
	.summary = "calibrate and quantize conv/dense to int8 with per-layer power-of-two scales",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_CANONICAL | VC_PROP_BN_FOLDED,
	.provides_props = VC_PROP_QUANTIZED,
	.opts = {{"calib", VC_OPT_INT, "0", "calibration samples to use (0: all given)"},
		 {"skip", VC_OPT_STRING, "", "layers kept in float: names or node ids separated by ':'"},
		 {"bits", VC_OPT_INT, "8", "activation and weight bits (8)"}},
	.stats = {"samples", "synthetic-samples", "quantized-layers", "float-layers", "residual-adds", "residual-adds-float",
		  "int8-concats"},
	.run = quantize,
};
