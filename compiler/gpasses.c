/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Graph passes, in pipeline order:
 *
 *   canonicalize  conv/dense + constant add -> conv/dense with bias;
 *                 matmul by a constant -> dense
 *   fold-bn       conv -> batchnorm -> conv with scaled weights and bias
 *   fold-const    nodes whose inputs are all constants -> constants
 *   quantize      calibrate, then symmetric int8 with per-layer power-of-two
 *                 scales: conv/dense become qconv/qdense -> requant
 *   partition     mark what runs on VTA by capability checks on each op
 *   fuse          qconv/qdense + requant (+ relu) -> one qconv.rq kernel op
 *   pack          VTA ops to the blocked layout (VTA-SPEC 2.6): weights and
 *                 biases packed once, channels padded, pack/unpack on every
 *                 edge that crosses the region boundary; one kernel function
 *                 per VTA op
 *
 * Every pass walks the graph in program order and rewrites through the
 * builder, so types stay valid without a re-typing step.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vc.h"

/* A copy of the node order, so passes can insert while they walk. */
static vc_node **snapshot(vc_module *m, int *n)
{
	*n = m->g->n;
	vc_node **s = vc_alloc(m, (size_t)(*n ? *n : 1) * sizeof *s);
	if (s)
		memcpy(s, m->g->nodes, (size_t)*n * sizeof *s);
	return s;
}

static int only_user(const vc_node *v, const vc_node *u)
{
	return v->n_users == 1 && v->users[0] == u;
}

/* ---- canonicalize --------------------------------------------------- */

/* If c is a constant holding one value per channel of a [N,O,...] or [N,O]
 * result, return a 1-D copy of it. */
static vc_node *per_channel(vc_module *m, const vc_node *c, int64_t O, int out_rank)
{
	if (c->op != VC_OP_CONST || c->type.dtype != VC_F32 || vc_type_elems(&c->type) != O)
		return NULL;
	const vc_type *t = &c->type;
	int ok;
	if (out_rank == 4) /* [O,1,1] or [1,O,1,1] */
		ok = (t->rank == 3 && t->dim[0] == O) || (t->rank == 4 && t->dim[1] == O) || O == 1;
	else /* [O] or [1,O] */
		ok = (t->rank == 1) || (t->rank == 2 && t->dim[1] == O);
	if (!ok)
		return NULL;
	int64_t d[1] = {O};
	return vc_const(m, NULL, VC_F32, 1, d, c->data);
}

static int canonicalize(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	int count;
	vc_node **nodes = snapshot(m, &count);
	if (!nodes)
		return vc_error(m, NULL, "out of memory");
	for (int i = 0; i < count; i++) {
		vc_node *n = nodes[i];
		vc_set_insert_before(m, n);
		if (n->op == VC_OP_ADD) {
			for (int k = 0; k < 2; k++) {
				vc_node *c = n->in[k], *other = n->in[1 - k];
				if ((c->op != VC_OP_CONV && c->op != VC_OP_DENSE) || c->n_in != 2 || !only_user(c, n))
					continue;
				vc_node *b = per_channel(m, other, c->type.dim[1], c->type.rank);
				if (!b)
					continue;
				vc_node *args[3] = {c->in[0], c->in[1], b};
				vc_node *nc = vc_build(m, c->op, args, 3, &c->a, c->name);
				if (!nc)
					return -1;
				if (!vc_type_equal(&nc->type, &n->type))
					continue; /* the add also broadcast the result: keep it */
				vc_replace_all_uses(m, n, nc);
				vc_stat_add(p, "biases-merged", 1);
				break;
			}
		} else if (n->op == VC_OP_MATMUL && n->in[1]->op == VC_OP_CONST && n->type.rank == 2) {
			vc_node *bm = n->in[1];
			int64_t d[2] = {bm->type.dim[1], bm->type.dim[0]};
			vc_node *w = vc_const(m, NULL, VC_F32, 2, d, NULL);
			if (!w)
				return -1;
			for (int64_t r = 0; r < d[1]; r++)
				for (int64_t c = 0; c < d[0]; c++)
					((float *)w->data)[c * d[1] + r] = ((const float *)bm->data)[r * d[0] + c];
			vc_node *args[2] = {n->in[0], w};
			vc_node *nd = vc_build(m, VC_OP_DENSE, args, 2, NULL, n->name);
			if (!nd)
				return -1;
			vc_replace_all_uses(m, n, nd);
			vc_stat_add(p, "matmul-to-dense", 1);
		}
	}
	vc_set_insert_before(m, NULL);
	vc_remove_dead(m);
	return 0;
}

const vc_pass_desc vc_pass_canonicalize = {
	.name = "canonicalize",
	.summary = "merge constant adds into conv/dense biases; matmul by a constant becomes dense",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_IMPORTED,
	.provides_props = VC_PROP_CANONICAL,
	.stats = {"biases-merged", "matmul-to-dense"},
	.run = canonicalize,
};

/* ---- fold-bn -------------------------------------------------------- */

static int fold_bn(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	int count;
	vc_node **nodes = snapshot(m, &count);
	if (!nodes)
		return vc_error(m, NULL, "out of memory");
	for (int i = 0; i < count; i++) {
		vc_node *bn = nodes[i];
		if (bn->op != VC_OP_BATCHNORM)
			continue;
		vc_node *c = bn->in[0];
		int consts = 1;
		for (int k = 1; k < 5; k++)
			consts &= bn->in[k]->op == VC_OP_CONST;
		if (c->op != VC_OP_CONV || !only_user(c, bn) || !consts || c->in[1]->op != VC_OP_CONST ||
		    (c->n_in > 2 && c->in[2]->op != VC_OP_CONST))
			continue;
		vc_set_insert_before(m, bn);
		const vc_node *wc = c->in[1];
		int64_t O = wc->type.dim[0], per = vc_type_elems(&wc->type) / O;
		vc_node *w = vc_const(m, NULL, VC_F32, 4, wc->type.dim, wc->data);
		int64_t d1[1] = {O};
		vc_node *b = vc_const(m, NULL, VC_F32, 1, d1, NULL);
		if (!w || !b)
			return -1;
		const float *sc = bn->in[1]->data, *be = bn->in[2]->data, *mu = bn->in[3]->data, *var = bn->in[4]->data;
		for (int64_t o = 0; o < O; o++) {
			double k = sc[o] / sqrt((double)var[o] + bn->a.eps);
			for (int64_t j = 0; j < per; j++)
				((float *)w->data)[o * per + j] = (float)(((float *)w->data)[o * per + j] * k);
			double b0 = c->n_in > 2 ? ((const float *)c->in[2]->data)[o] : 0.0;
			((float *)b->data)[o] = (float)((b0 - mu[o]) * k + be[o]);
		}
		vc_node *args[3] = {c->in[0], w, b};
		vc_node *nc = vc_build(m, VC_OP_CONV, args, 3, &c->a, c->name);
		if (!nc)
			return -1;
		vc_replace_all_uses(m, bn, nc);
		vc_stat_add(p, "folded", 1);
	}
	vc_set_insert_before(m, NULL);
	vc_remove_dead(m);
	return 0;
}

const vc_pass_desc vc_pass_fold_bn = {
	.name = "fold-bn",
	.summary = "fold batch normalization into the preceding convolution",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_IMPORTED,
	.provides_props = VC_PROP_BN_FOLDED,
	.stats = {"folded"},
	.run = fold_bn,
};

/* ---- fold-const ----------------------------------------------------- */

static int fold_const(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	int count;
	vc_node **nodes = snapshot(m, &count);
	if (!nodes)
		return vc_error(m, NULL, "out of memory");
	for (int i = 0; i < count; i++) {
		vc_node *n = nodes[i];
		if (n->op == VC_OP_INPUT || n->op == VC_OP_CONST || n->n_in == 0)
			continue;
		int all = 1;
		for (int k = 0; k < n->n_in; k++)
			all &= n->in[k]->op == VC_OP_CONST;
		if (!all)
			continue;
		vc_tensor in[16], out;
		if (n->n_in > 16)
			continue;
		for (int k = 0; k < n->n_in; k++) {
			in[k].t = n->in[k]->type;
			in[k].data = n->in[k]->data;
			in[k].owned = 0;
		}
		if (vc_ref_run(m, n, in, &out))
			return -1;
		vc_set_insert_before(m, n);
		vc_node *c = vc_const(m, n->name, n->type.dtype, n->type.rank, n->type.dim, out.data);
		vc_tensor_free(&out);
		if (!c)
			return -1;
		c->type = n->type;
		vc_replace_all_uses(m, n, c);
		vc_stat_add(p, "folded", 1);
	}
	vc_set_insert_before(m, NULL);
	vc_remove_dead(m);
	return 0;
}

const vc_pass_desc vc_pass_fold_const = {
	.name = "fold-const",
	.summary = "evaluate nodes whose inputs are all constants",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_IMPORTED,
	.provides_props = VC_PROP_CONST_FOLDED,
	.stats = {"folded"},
	.run = fold_const,
};

/* ---- quantize ------------------------------------------------------- */

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

/* Is n named in the ':'-separated list (names or node ids)? */
static int listed(const char *list, const vc_node *n)
{
	char id[16];
	snprintf(id, sizeof id, "%d", n->id);
	for (const char *s = list; *s;) {
		const char *e = strchr(s, ':');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if ((len == strlen(n->name) && !strncmp(s, n->name, len)) || (len == strlen(id) && !strncmp(s, id, len)))
			return 1;
		s += len + (e ? 1 : 0);
	}
	return 0;
}

/* Check that every name in a ':' list names a node (R9: typos are errors). */
static int check_list(vc_module *m, const char *pass, const char *opt, const char *list, vc_node **nodes, int count)
{
	for (const char *s = list; *s;) {
		const char *e = strchr(s, ':');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		int found = 0;
		for (int i = 0; i < count && !found; i++) {
			char id[16];
			snprintf(id, sizeof id, "%d", nodes[i]->id);
			found = (len == strlen(nodes[i]->name) && !strncmp(s, nodes[i]->name, len)) ||
				(len == strlen(id) && !strncmp(s, id, len));
		}
		if (!found && len)
			return vc_error(m, NULL, "%s: option %s names '%.*s', which is no node of the graph", pass, opt, (int)len,
					s);
		s += len + (e ? 1 : 0);
	}
	return 0;
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
		if ((a->op != VC_OP_CONV && a->op != VC_OP_DENSE) || !only_user(a, n) || a == b)
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
		if (n->n_users == 1 && n->users[0]->op == VC_OP_RELU)
			r = s->rng[n->id].posmax;
		vc_attrs ra;
		vc_attrs_init(&ra);
		ra.exp = exp_for(r);
		if (ra.exp - qa->type.exp > 31)
			ra.exp = qa->type.exp + 31;
		if (ra.exp - qa->type.exp < -31)
			ra.exp = qa->type.exp - 31;
		snprintf(nm, sizeof nm, "%.50s.rq", n->name);
		vc_node *rq2 = vc_build(m, VC_OP_REQUANT, &qa, 1, &ra, nm);
		if (!rq2)
			return -1;
		s->q[n->id] = rq2;
		vc_stat_add(p, "residual-adds", 1);
		return 1;
	}
	return 0;
}

static int quantize(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	if (vc_opt_int(p, "bits") != 8)
		return vc_error(m, NULL, "quantize: bits=%lld; only 8 is supported", (long long)vc_opt_int(p, "bits"));
	const char *skip = vc_opt_str(p, "skip");
	int count;
	vc_node **nodes = snapshot(m, &count);
	if (!nodes || check_list(m, "quantize", "skip", skip, nodes, count))
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
	int rc = -1, hit;
	for (int i = 0; i < count; i++) {
		vc_node *n = nodes[i];
		vc_set_insert_before(m, n);
		vc_node *x = n->n_in ? n->in[0] : NULL;
		int int_in = x && s.q[x->id] && !s.fl[x->id]; /* input lives as integers */
		if (n->op == VC_OP_INPUT || n->op == VC_OP_CONST) {
			s.fl[n->id] = n;
		} else if ((n->op == VC_OP_CONV || n->op == VC_OP_DENSE) && n->in[1]->op == VC_OP_CONST &&
			   (n->n_in < 3 || n->in[2]->op == VC_OP_CONST) && !listed(skip, n)) {
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
			/* a relu consumer only keeps the positive range */
			double r = s.rng[n->id].absmax;
			if (n->n_users == 1 && n->users[0]->op == VC_OP_RELU)
				r = s.rng[n->id].posmax;
			vc_attrs ra;
			vc_attrs_init(&ra);
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
			s.q[n->id] = rq;
			vc_stat_add(p, "quantized-layers", 1);
		} else if (n->op == VC_OP_ADD && (hit = quantize_residual_add(p, &s, n)) != 0) {
			if (hit < 0)
				goto done;
		} else if (int_in && (n->op == VC_OP_RELU || n->op == VC_OP_CLIP || n->op == VC_OP_MAXPOOL ||
				      n->op == VC_OP_RESHAPE || n->op == VC_OP_FLATTEN)) {
			vc_node *qn = vc_build(m, n->op, &s.q[x->id], 1, &n->a, n->name);
			if (!qn)
				goto done;
			s.q[n->id] = qn;
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
	.stats = {"samples", "synthetic-samples", "quantized-layers", "float-layers", "residual-adds", "residual-adds-float"},
	.run = quantize,
};

/* ---- partition ------------------------------------------------------ */

int vc_geom_of(const vc_target *t, const vc_node *n, vc_geom *g)
{
	memset(g, 0, sizeof *g);
	const vc_type *x = &n->in[0]->type, *w = &n->in[1]->type;
	if (n->op == VC_OP_VTA_CONV) {
		g->nb = x->dim[0], g->cib = x->dim[1], g->h = x->dim[2], g->w = x->dim[3];
		g->cob = w->dim[0], g->kh = w->dim[2], g->kw = w->dim[3];
		g->oh = n->type.dim[2], g->ow = n->type.dim[3];
	} else if (x->rank == 4) {
		g->nb = (x->dim[0] + t->batch - 1) / t->batch, g->cib = (x->dim[1] + t->block_in - 1) / t->block_in;
		g->h = x->dim[2], g->w = x->dim[3];
		g->cob = (w->dim[0] + t->block_out - 1) / t->block_out, g->kh = w->dim[2], g->kw = w->dim[3];
		g->oh = n->type.dim[2], g->ow = n->type.dim[3];
	} else {
		g->nb = (x->dim[0] + t->batch - 1) / t->batch, g->cib = (x->dim[1] + t->block_in - 1) / t->block_in;
		g->h = g->w = g->kh = g->kw = g->oh = g->ow = 1;
		g->cob = (w->dim[0] + t->block_out - 1) / t->block_out;
	}
	g->res = (n->op == VC_OP_VTA_CONV || n->op == VC_OP_QCONV_RQ) && n->n_in > 3;
	int conv = x->rank == 4 || n->op == VC_OP_VTA_CONV;
	g->sh = conv ? n->a.stride[0] : 1, g->sw = conv ? n->a.stride[1] : 1;
	g->pt = conv ? n->a.pad[0] : 0, g->pl = conv ? n->a.pad[1] : 0;
	g->pb = conv ? n->a.pad[2] : 0, g->pr = conv ? n->a.pad[3] : 0;
	return 0;
}

/* Can VTA run this qconv/qdense? why names the first reason it cannot. */
static int vta_legal(const vc_target *t, const vc_node *n, int res, char *why, size_t wn)
{
	if (n->op != VC_OP_QCONV && n->op != VC_OP_QDENSE)
		return snprintf(why, wn, "%s has no VTA lowering", vc_op_name(n->op)), 0;
	if (n->a.group != 1 || n->a.dilation[0] != 1 || n->a.dilation[1] != 1)
		return snprintf(why, wn, "grouped or dilated convolution"), 0;
	for (int i = 0; i < 4; i++)
		if (n->a.pad[i] > 15)
			return snprintf(why, wn, "padding %lld exceeds the 4-bit DMA pad field", (long long)n->a.pad[i]), 0;
	if (n->in[1]->op != VC_OP_CONST || n->in[2]->op != VC_OP_CONST)
		return snprintf(why, wn, "weights or bias are not constant"), 0;
	vc_geom g;
	vc_tiling tl;
	vc_geom_of(t, n, &g);
	g.res = res;
	if (res && t->block_in != t->block_out)
		return snprintf(why, wn, "residual add with BLOCK_IN != BLOCK_OUT"), 0;
	if (vc_kernel_plan(t, &g, &tl, why, wn))
		return 0;
	return 1;
}

static int partition(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	const char *cpu = vc_opt_str(p, "cpu");
	int count;
	vc_node **nodes = snapshot(m, &count);
	if (!nodes || check_list(m, "partition", "cpu", cpu, nodes, count))
		return -1;
	for (int i = 0; i < count; i++)
		nodes[i]->on_vta = 0;
	for (int i = 0; i < count; i++) {
		vc_node *r = nodes[i];
		if (r->op != VC_OP_REQUANT)
			continue;
		vc_node *c = r->in[0], *qa = NULL;
		if (c->op == VC_OP_QADD) { /* conv + residual add: one kernel, or all on the CPU */
			qa = c;
			c = qa->in[0];
		}
		char why[256] = "";
		if (!only_user(qa ? qa : c, r) || (qa && !only_user(c, qa)) || listed(cpu, c) ||
		    !vta_legal(&m->target, c, qa != NULL, why, sizeof why)) {
			if (why[0] && vc_opt_int(p, "verbose"))
				fprintf(stderr, "partition: %s '%s'%s stays on the CPU: %s\n", vc_op_name(c->op), c->name,
					qa ? " with its residual add" : "", why);
			vc_stat_add(p, "on-cpu", 1);
			continue;
		}
		c->on_vta = r->on_vta = 1;
		if (qa)
			qa->on_vta = 1;
		if (r->n_users == 1 && r->users[0]->op == VC_OP_RELU && r->users[0]->type.dtype == VC_I8)
			r->users[0]->on_vta = 1;
		vc_stat_add(p, "on-vta", 1);
	}
	return 0;
}

const vc_pass_desc vc_pass_partition = {
	.name = "partition",
	.summary = "decide by capability checks which ops run on VTA",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_QUANTIZED,
	.provides_props = VC_PROP_PARTITIONED,
	.opts = {{"cpu", VC_OPT_STRING, "", "ops forced onto the CPU: names or node ids separated by ':'"},
		 {"verbose", VC_OPT_BOOL, "false", "say why each op stays on the CPU"}},
	.stats = {"on-vta", "on-cpu"},
	.run = partition,
};

/* ---- fuse ----------------------------------------------------------- */

static int fuse(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	int count;
	vc_node **nodes = snapshot(m, &count);
	if (!nodes)
		return vc_error(m, NULL, "out of memory");
	for (int i = 0; i < count; i++) {
		vc_node *r = nodes[i];
		if (r->op != VC_OP_REQUANT || !r->on_vta)
			continue;
		vc_node *c = r->in[0], *last = r, *res = NULL;
		if (c->op == VC_OP_QADD) {
			res = c->in[1];
			c = c->in[0];
		}
		vc_attrs a = c->a;
		a.exp = r->a.exp;
		a.relu = r->a.relu;
		a.qlo = r->a.qlo;
		a.qhi = r->a.qhi;
		if (r->n_users == 1 && r->users[0]->op == VC_OP_RELU && r->users[0]->on_vta) {
			a.relu = 1;
			last = r->users[0];
		}
		vc_set_insert_before(m, r);
		vc_node *fin[4] = {c->in[0], c->in[1], c->in[2], res};
		vc_node *f = vc_build(m, VC_OP_QCONV_RQ, fin, res ? 4 : 3, &a, c->name);
		if (!f)
			return -1;
		f->on_vta = 1;
		vc_replace_all_uses(m, last, f);
		vc_stat_add(p, "fused", 1);
		if (res)
			vc_stat_add(p, "residual-fused", 1);
		if (last != r)
			vc_stat_add(p, "relu-fused", 1);
	}
	vc_set_insert_before(m, NULL);
	vc_remove_dead(m);
	return 0;
}

const vc_pass_desc vc_pass_fuse = {
	.name = "fuse",
	.summary = "fuse qconv/qdense, bias, residual add, requantize and relu into one kernel op",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_PARTITIONED,
	.provides_props = VC_PROP_FUSED,
	.stats = {"fused", "relu-fused", "residual-fused"},
	.run = fuse,
};

/* ---- pack ----------------------------------------------------------- */

static vc_node *pack_weights(vc_module *m, const vc_node *w, const vc_target *t)
{
	const vc_type *wt = &w->type;
	int64_t O = wt->dim[0], I = wt->dim[1], KH = wt->rank == 4 ? wt->dim[2] : 1, KW = wt->rank == 4 ? wt->dim[3] : 1;
	int64_t BO = t->block_out, BI = t->block_in;
	int64_t d[6] = {(O + BO - 1) / BO, (I + BI - 1) / BI, KH, KW, BO, BI};
	vc_node *p = vc_const(m, NULL, VC_I8, 6, d, NULL);
	if (!p)
		return NULL;
	p->type.layout = VC_PACKED;
	p->type.quantized = 1;
	p->type.exp = wt->exp;
	const int8_t *src = w->data;
	int8_t *dst = p->data;
	for (int64_t o = 0; o < O; o++)
		for (int64_t i = 0; i < I; i++)
			for (int64_t kh = 0; kh < KH; kh++)
				for (int64_t kw = 0; kw < KW; kw++)
					dst[((((o / BO) * d[1] + i / BI) * KH + kh) * KW + kw) * BO * BI + (o % BO) * BI + i % BI] =
						src[((o * I + i) * KH + kh) * KW + kw];
	return p;
}

static vc_node *pack_bias(vc_module *m, const vc_node *b, const vc_target *t)
{
	int64_t O = vc_type_elems(&b->type), BO = t->block_out, B = t->batch;
	int64_t d[3] = {(O + BO - 1) / BO, B, BO};
	vc_node *p = vc_const(m, NULL, VC_I32, 3, d, NULL);
	if (!p)
		return NULL;
	p->type.layout = VC_PACKED;
	p->type.quantized = 1;
	p->type.exp = b->type.exp;
	int32_t *dst = p->data;
	for (int64_t o = 0; o < O; o++)
		for (int64_t bb = 0; bb < B; bb++)
			dst[((o / BO) * B + bb) * BO + o % BO] = ((const int32_t *)b->data)[o];
	return p;
}

static int add_kernel(vc_module *m, vc_node *n)
{
	vc_kernel **nk = vc_alloc(m, (size_t)(m->n_kernels + 1) * sizeof *nk);
	vc_kernel *k = vc_alloc(m, sizeof *k);
	if (!nk || !k)
		return vc_error(m, n, "out of memory");
	if (m->n_kernels)
		memcpy(nk, m->kernels, (size_t)m->n_kernels * sizeof *nk);
	k->id = m->n_kernels;
	k->node = n;
	n->a.kernel_id = k->id;
	nk[m->n_kernels++] = k;
	m->kernels = nk;
	return 0;
}

/* The packed form of a plain int8 value: reuse the VTA result it was
 * unpacked from when that has the layout, else a new pack. */
static vc_node *packed_form(vc_pass *p, vc_module *m, vc_node *x)
{
	const vc_target *t = &m->target;
	if (x->op == VC_OP_UNPACK) {
		const vc_type *pt = &x->in[0]->type;
		int64_t C = x->type.dim[1], H = x->type.rank == 4 ? x->type.dim[2] : 1,
			W = x->type.rank == 4 ? x->type.dim[3] : 1;
		if (pt->dim[1] == (C + t->block_in - 1) / t->block_in && pt->dim[5] == t->block_in && pt->dim[2] == H &&
		    pt->dim[3] == W) {
			vc_stat_add(p, "unpack-pack-elided", 1);
			return x->in[0];
		}
	}
	vc_node *xp = vc_build(m, VC_OP_PACK, &x, 1, NULL, NULL);
	if (xp && x->type.dim[1] % t->block_in)
		vc_stat_add(p, "channels-padded", 1);
	return xp;
}

static int pack(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	const vc_target *t = &m->target;
	int count;
	vc_node **nodes = snapshot(m, &count);
	if (!nodes)
		return vc_error(m, NULL, "out of memory");
	for (int i = 0; i < count; i++) {
		vc_node *n = nodes[i];
		if (n->op != VC_OP_QCONV_RQ || !n->on_vta)
			continue;
		vc_set_insert_before(m, n);
		vc_node *xp = packed_form(p, m, n->in[0]);
		vc_node *rp = n->n_in > 3 && xp ? packed_form(p, m, n->in[3]) : NULL;
		if (!xp || (n->n_in > 3 && !rp))
			return -1;
		vc_node *wp = pack_weights(m, n->in[1], t);
		vc_node *bp = wp ? pack_bias(m, n->in[2], t) : NULL;
		if (!bp)
			return -1;
		vc_attrs a = n->a;
		if (n->type.rank == 2) { /* dense: a 1x1 convolution on 1x1 images */
			a.stride[0] = a.stride[1] = 1;
			memset(a.pad, 0, sizeof a.pad);
		}
		vc_node *args[4] = {xp, wp, bp, rp};
		vc_node *v = vc_build(m, VC_OP_VTA_CONV, args, rp ? 4 : 3, &a, n->name);
		if (!v)
			return -1;
		v->on_vta = 1;
		vc_attrs ua;
		vc_attrs_init(&ua);
		ua.nshape = n->type.rank;
		memcpy(ua.shape, n->type.dim, sizeof ua.shape);
		char un[64];
		snprintf(un, sizeof un, "%.50s.unpack", n->name);
		vc_node *up = vc_build(m, VC_OP_UNPACK, &v, 1, &ua, un);
		if (!up)
			return -1;
		if (n->type.dim[1] % t->block_out)
			vc_stat_add(p, "channels-padded", 1);
		vc_replace_all_uses(m, n, up);
		if (add_kernel(m, v))
			return -1;
		vc_stat_add(p, "kernels", 1);
	}
	vc_set_insert_before(m, NULL);
	vc_remove_dead(m);
	/* kernels whose node died (elided chains) are not possible: every VTA
	 * op has at least its unpack user */
	return 0;
}

const vc_pass_desc vc_pass_pack = {
	.name = "pack",
	.summary = "blocked layout for VTA ops: pack weights, pad channels, pack/unpack at region edges",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_FUSED,
	.provides_props = VC_PROP_PACKED,
	.stats = {"kernels", "channels-padded", "unpack-pack-elided"},
	.run = pack,
};
