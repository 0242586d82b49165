/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quantize: calibrate on the samples the driver gives (value ranges from the
 * float reference, calibrate.c), then symmetric int8 with power-of-two
 * scales:
 *   - conv/dense become qconv/qdense -> requant. Weights get one exponent
 *     per output channel; the int8 weights are typed at the largest, and a
 *     constant vector d[c] >= 0 (the channel's extra fractional bits) goes
 *     with the requant (and a residual qadd), which shifts channel c by
 *     shift + d[c]; the bias of channel c is at its own exponent.
 *   - the output exponent knows its consumer: after a relu only posmax
 *     counts, after a clip to [0, hi] (ReLU6) min(posmax, hi).
 *   - a residual add of a just quantized conv becomes qadd on the
 *     accumulator; relu, clip, maxpool and reshape stay integer; everything
 *     else gets a dequantize.
 *   - bias correction: each channel's mean output shift from rounding its
 *     weights (calibration means of the input channels) goes to the bias.
 *   - scales=float: an activation's step is m * 2^e, m in [1, 2); the int8
 *     ops work in units of 2^e, m is folded into the weights and biases of
 *     the layers around the value and into float MULs where it enters or
 *     leaves int8.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quant/quant.h"

typedef struct qstate {
	vc_module *m;
	vc_node **fl, **q; /* per original id: float and int8 versions */
	vc_range *rng;
	int ids;
	vc_calib_opts co;
	int per_channel, wmethod, input_offset, unsigned_acts, float_scales, bias_correct;
	const char *skip;
	uint8_t *uns; /* per original id: q holds u - 128, u = round(x / (m 2^e)) in [0, 255] */
	/* per original id: the mantissa m in [1, 2) of the value's step, real =
	 * q * 2^e * m (0 read as 1; the IR's int8 types carry e only, so int8 ops
	 * work in units of 2^e and m appears in the float MULs at a quantize or
	 * dequantize and in the weights and biases of the layers around the
	 * value); force: the mantissa a value must get when it is quantized (a
	 * residual's, set by the conv it is added to); pow2: m = 1 (concats) */
	double *mant, *force;
	uint8_t *pow2;
} qstate;

static double mant_of(const qstate *s, const vc_node *n)
{
	return n->id < s->ids && s->mant[n->id] > 0 ? s->mant[n->id] : 1.0;
}

/* The mantissa value n must have when quantized, or 0 if it is free. */
static double fixed_mant(const qstate *s, const vc_node *n)
{
	if (n->id >= s->ids || !s->float_scales || s->pow2[n->id])
		return 1.0;
	if (s->q[n->id])
		return mant_of(s, n);
	return s->force[n->id];
}

/* The step of value n (statistics of original id n) as its consumer keeps
 * it: *e and the mantissa m (the fixed one, or chosen when fixed = 0);
 * power-of-two scales: m = 1 and the signed exponent of vc_choose_exp. */
static double choose(const qstate *s, const vc_node *n, int positive, double limit, int levels, double fixed, int *e)
{
	if (!s->float_scales)
		fixed = 1.0;
	double step = vc_choose_step(&s->rng[n->id], &s->co, positive, limit, levels, fixed);
	*e = ilogb(step);
	return step / ldexp(1.0, *e);
}

/* A float constant c of one element. */
static vc_node *scalar(vc_module *m, float c)
{
	int64_t one[1] = {1};
	return vc_const(m, NULL, VC_F32, 1, one, &c);
}

/* x * c in float (x itself when c = 1). */
static vc_node *scale_by(vc_module *m, vc_node *x, double c)
{
	if (!x || c == 1.0)
		return x;
	vc_node *k = scalar(m, (float)c);
	vc_node *args[2] = {x, k};
	return k ? vc_build(m, VC_OP_MUL, args, 2, NULL, NULL) : NULL;
}

/* Does n reach a graph output through reshape, flatten, softmax and
 * activations only? */
static int feeds_output(const vc_graph *g, const vc_node *n)
{
	for (int hops = 0; hops < 8; hops++) {
		for (int k = 0; k < g->n_outputs; k++)
			if (g->outputs[k] == n)
				return 1;
		if (n->n_users != 1)
			return 0;
		n = n->users[0];
		/* activations too: a clipped output would lose its largest values */
		if (n->op != VC_OP_RESHAPE && n->op != VC_OP_FLATTEN && n->op != VC_OP_SOFTMAX && n->op != VC_OP_LEAKY &&
		    n->op != VC_OP_RELU && n->op != VC_OP_CLIP)
			return 0;
	}
	return 0;
}

/* The exponent of float value n as its single consumer keeps it, with
 * mantissa *m (fixed, or chosen when *m = 0). */
static int out_exp(qstate *s, const vc_node *n, double *m)
{
	int positive = 0;
	double limit = INFINITY;
	if (n->n_users == 1) {
		const vc_node *u = n->users[0];
		if (u->op == VC_OP_RELU) {
			positive = 1;
		} else if (u->op == VC_OP_CLIP) {
			positive = u->a.lo >= 0;
			limit = positive ? u->a.hi : fmax(fabs(u->a.lo), fabs(u->a.hi));
		}
	}
	int e;
	*m = choose(s, n, positive, limit, 127, *m, &e);
	return e;
}

static vc_node *get_f(qstate *s, vc_node *n)
{
	if (n->id < s->ids && s->fl[n->id])
		return s->fl[n->id];
	if (n->id >= s->ids || !s->q[n->id])
		return n;
	vc_node *d = vc_build(s->m, VC_OP_DEQUANTIZE, &s->q[n->id], 1, NULL, NULL);
	if (d && s->uns[n->id]) { /* x = m 2^e (q + 128) */
		vc_node *c = scalar(s->m, (float)ldexp(128.0, s->q[n->id]->type.exp));
		vc_node *args[2] = {d, c};
		d = c ? vc_build(s->m, VC_OP_ADD, args, 2, NULL, NULL) : NULL;
	}
	d = scale_by(s->m, d, mant_of(s, n));
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
	double mt = choose(s, n, 0, INFINITY, 127, fixed_mant(s, n), &a.exp);
	f = scale_by(s->m, f, 1.0 / mt);
	vc_node *q = f ? vc_build(s->m, VC_OP_QUANTIZE, &f, 1, &a, NULL) : NULL;
	if (q) {
		s->q[n->id] = q;
		s->mant[n->id] = mt;
	}
	return q;
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

/* The leaky ReLU that is v's only user (folded into v's requantization). */
static vc_node *leaky_user(const vc_node *v)
{
	return v->n_users == 1 && v->users[0]->op == VC_OP_LEAKY && v->users[0]->in[0] == v ? v->users[0] : NULL;
}

/* Ops that only move int8 values: they keep their input's exponent. */
static int moves_only(vc_op op)
{
	return op == VC_OP_RELU || op == VC_OP_CLIP || op == VC_OP_MAXPOOL || op == VC_OP_RESHAPE || op == VC_OP_FLATTEN ||
	       op == VC_OP_UPSAMPLE || op == VC_OP_ALIGN || op == VC_OP_TRANSPOSE || op == VC_OP_SLICE;
}

/*
 * A concat stays int8 when its inputs share one exponent: give every
 * producer feeding it (through ops that only move values) the concat's
 * calibrated range, so that they all quantize to the concat's exponent.
 */
static void unify(vc_range *r, float v)
{
	r->absmax = r->posmax = v;
	free(r->hist);
	r->hist = NULL;
}

static void unify_concat_ranges(vc_module *m, vc_range *rng, uint8_t *pow2)
{
	vc_graph *g = m->g;
	for (int i = g->n - 1; i >= 0; i--) {
		vc_node *c = g->nodes[i];
		if (c->op != VC_OP_CONCAT)
			continue;
		float r = rng[c->id].absmax;
		for (int k = 0; k < c->n_in; k++) {
			vc_node *v = c->in[k];
			/* the same range by the max method (the histograms would differ) */
			while (moves_only(v->op) && v->n_in) {
				unify(&rng[v->id], r);
				pow2[v->id] = 1;
				v = v->in[0];
			}
			unify(&rng[v->id], r);
			pow2[v->id] = 1;
			if (v->op == VC_OP_LEAKY && v->n_in) {
				unify(&rng[v->in[0]->id], r);
				pow2[v->in[0]->id] = 1;
			}
		}
	}
}

/* Are all inputs of n integers at one exponent? */
static int all_int_same_exp(const qstate *s, const vc_node *n)
{
	for (int k = 0; k < n->n_in; k++) {
		const vc_node *v = n->in[k];
		if (!s->q[v->id] || s->fl[v->id] || s->q[v->id]->type.exp != s->q[n->in[0]->id]->type.exp ||
		    s->q[v->id]->type.dtype != VC_I8 || s->uns[v->id] || mant_of(s, v) != mant_of(s, n->in[0]))
			return 0;
	}
	return 1;
}

/* The relu or clip to [0, hi] that is n's only user, or NULL. */
static vc_node *positive_act(const vc_node *n)
{
	if (n->n_users != 1)
		return NULL;
	vc_node *u = n->users[0];
	return u->op == VC_OP_RELU || (u->op == VC_OP_CLIP && u->a.lo == 0.0 && u->a.hi > 0) ? u : NULL;
}

/* Do all users of the activation v take an unsigned (offset) value: convs
 * and denses that will be quantized, adds (a residual: the offset goes to the
 * bias), max pooling (order preserved), average pooling (in float)? */
static int takes_unsigned(const qstate *s, const vc_node *v, const char *skip)
{
	(void)s;
	if (!v->n_users)
		return 0;
	for (int i = 0; i < v->n_users; i++) {
		const vc_node *u = v->users[i];
		int layer = (u->op == VC_OP_CONV || u->op == VC_OP_DENSE) && u->in[0] == v && u->in[1]->op == VC_OP_CONST &&
			    (u->n_in < 3 || u->in[2]->op == VC_OP_CONST) && !vc_listed(skip, u) && !leaky_user(u);
		/* average pools run in float: the dequantize adds the 128 back */
		if (!layer && u->op != VC_OP_ADD && u->op != VC_OP_MAXPOOL && u->op != VC_OP_AVGPOOL && u->op != VC_OP_GAP)
			return 0;
	}
	return 1;
}

/* The exponent of an unsigned value with mantissa *m (fixed, or chosen when
 * *m = 0): power-of-two scales, 255 steps cover what 127 did; float scales,
 * the step chosen for 255 steps. */
static int unsigned_exp(const qstate *s, const vc_node *n, double limit, double *m)
{
	int e;
	if (s->float_scales) {
		*m = choose(s, n, 1, limit, 255, *m, &e);
		return e;
	}
	*m = 1.0;
	e = vc_choose_exp(&s->rng[n->id], &s->co, 1, limit) - 1;
	double top = fmin(s->rng[n->id].posmax, limit);
	while (255.0 * ldexp(1.0, e) < top && s->co.method == VC_CALIB_MAX)
		e++;
	return e;
}

/* Fold -128 << s[c] into the bias of acc's producer so the requant gives
 * u - 128 (exact: the constant is a multiple of every pre-shift); 0, or -1
 * when a shift is negative or too large to fold. */
static int fold_offset(vc_node *bias, const vc_node *d, int shift, int64_t O, int sign)
{
	for (int64_t c = 0; c < O; c++) {
		int sc = shift + (d ? ((const int32_t *)d->data)[c] : 0);
		if (sc < 0 || sc > 23)
			return -1;
	}
	for (int64_t c = 0; c < O; c++) {
		int sc = shift + (d ? ((const int32_t *)d->data)[c] : 0);
		int32_t *b = (int32_t *)bias->data + c;
		*b = (int32_t)((uint32_t)*b + (uint32_t)(sign * (128 << sc)));
	}
	return 0;
}

/* The requant of acc to exponent e (kept within the ALU's shifts given the
 * channel shifts d), named after n. */
static vc_node *requant(qstate *s, vc_node *acc, vc_node *d, int e, const vc_node *n, int leaky, int64_t lo,
			  int64_t hi)
{
	int dmax = 0;
	for (int64_t c = 0; d && c < d->type.dim[0]; c++)
		dmax = ((const int32_t *)d->data)[c] > dmax ? ((const int32_t *)d->data)[c] : dmax;
	vc_attrs ra;
	vc_attrs_init(&ra);
	ra.exp = e;
	ra.leaky = leaky;
	ra.qlo = lo;
	ra.qhi = hi;
	if (ra.exp - acc->type.exp + dmax + leaky > 31)
		ra.exp = acc->type.exp + 31 - dmax - leaky;
	if (ra.exp - acc->type.exp < -31)
		ra.exp = acc->type.exp - 31;
	char rn[64];
	snprintf(rn, sizeof rn, "%.50s.rq", n->name);
	vc_node *in[2] = {acc, d};
	return vc_build(s->m, VC_OP_REQUANT, in, d ? 2 : 1, &ra, rn);
}

/* The padding of conv n done on an offset input q (q = -128 is x = 0), so
 * that no tap reads the DMA's zero padding (which is x = 128 * 2^e). */
static vc_node *explicit_pad(qstate *s, const vc_node *n, vc_node *q)
{
	if (n->op != VC_OP_CONV || !(n->a.pad[0] | n->a.pad[1] | n->a.pad[2] | n->a.pad[3]))
		return q;
	vc_attrs pa;
	vc_attrs_init(&pa);
	memcpy(pa.pad, n->a.pad, sizeof pa.pad);
	pa.lo = ldexp(-128.0, q->type.exp);
	char nm[64];
	snprintf(nm, sizeof nm, "%.50s.pad", n->name);
	return vc_build(s->m, VC_OP_PAD, &q, 1, &pa, nm);
}

/*
 * The input of conv/dense n as int8 q = round(x / 2^e) - 128, 256 levels of a
 * value that is never negative (image pixels 0..255 are exact): float
 * x - 128 * 2^e, quantized to [-128, 127], then the conv's padding done
 * explicitly with q = -128 (x = 0). The caller adds 128 * sum(w) to the bias
 * and drops the conv's own padding.
 */
static vc_node *offset_input(qstate *s, vc_node *n, double *mt)
{
	vc_module *m = s->m;
	vc_node *x = n->in[0];
	int e;
	*mt = 1.0;
	if (s->float_scales && x->op != VC_OP_INPUT) {
		/* a computed value (an average pool before a dense): its largest
		 * value in 255 steps of m 2^e */
		vc_calib_method keep = s->co.method;
		s->co.method = VC_CALIB_MAX;
		*mt = choose(s, x, 1, INFINITY, 255, 0, &e);
		s->co.method = keep;
	} else { /* pixels: steps of 2^e (e = 0 for 0..255, exact) */
		e = vc_choose_exp(&s->rng[x->id], &s->co, 1, INFINITY) - 1;
		while (255.0 * ldexp(1.0, e) < s->rng[x->id].posmax)
			e++;
	}
	vc_node *c = scalar(m, (float)(*mt * ldexp(-128.0, e)));
	vc_node *args[2] = {x, c};
	char nm[64];
	snprintf(nm, sizeof nm, "%.50s.offset", x->name);
	vc_node *xo = scale_by(m, c ? vc_build(m, VC_OP_ADD, args, 2, NULL, nm) : NULL, 1.0 / *mt);
	vc_attrs qa;
	vc_attrs_init(&qa);
	qa.exp = e;
	qa.qlo = -128;
	vc_node *q = xo ? vc_build(m, VC_OP_QUANTIZE, &xo, 1, &qa, NULL) : NULL;
	return q ? explicit_pad(s, n, q) : NULL;
}

/* Will the relu or clip after conv/dense/add n be unsigned (u - 128)? */
static int unsigned_out(const qstate *s, const vc_node *n)
{
	const vc_node *act = positive_act(n);
	return s->unsigned_acts && act && !leaky_user(n) && !feeds_output(s->m->g, act) && takes_unsigned(s, act, s->skip);
}

static double clip_hi(const vc_node *n)
{
	const vc_node *act = positive_act(n);
	return act && act->op == VC_OP_CLIP ? act->a.hi : INFINITY;
}

/* The mantissa of conv, dense or add n's output when it is free: that of the
 * step it would be quantized with (the leaky ReLU's range when one is
 * folded in, 255 steps when unsigned, max at the network's output). */
static double free_mant(qstate *s, const vc_node *n)
{
	const vc_node *lk = leaky_user(n);
	vc_calib_method keep = s->co.method;
	if (feeds_output(s->m->g, n))
		s->co.method = VC_CALIB_MAX;
	double mt = 0;
	int e;
	if (lk)
		mt = choose(s, lk, 0, INFINITY, 127, 0, &e);
	else if (unsigned_out(s, n))
		unsigned_exp(s, n, clip_hi(n), &mt);
	else
		out_exp(s, n, &mt);
	s->co.method = keep;
	return mt;
}

/* The other operand of the residual add that conv/dense n alone feeds (same
 * shapes), or NULL. */
static vc_node *residual_partner(const vc_node *n)
{
	if ((n->op != VC_OP_CONV && n->op != VC_OP_DENSE) || n->n_users != 1)
		return NULL;
	const vc_node *a = n->users[0];
	if (a->op != VC_OP_ADD || a->n_in != 2 || a->in[0] == a->in[1])
		return NULL;
	vc_node *b = a->in[0] == n ? a->in[1] : a->in[0];
	return same_dims(&n->type, &b->type) && same_dims(&n->type, &a->type) ? b : NULL;
}

/*
 * The mantissa of conv/dense n's output. A conv added to a residual r lives
 * on the accumulator, which the residual joins by a shift: both get the
 * add's mantissa (r's when r is already quantized, else the one the add's
 * output would choose, which r is then given).
 */
static double layer_mant(qstate *s, const vc_node *n)
{
	double mo = fixed_mant(s, n);
	if (mo > 0)
		return mo;
	vc_node *b = residual_partner(n);
	if (!b)
		return free_mant(s, n);
	/* the residual's mantissa is that of the value it moves (through relu,
	 * reshape, Darknet's align, ...) */
	vc_node *src = b;
	while (!s->q[src->id] && !(fixed_mant(s, src) > 0) && moves_only(src->op) && src->n_in)
		src = src->in[0];
	mo = fixed_mant(s, src);
	if (!(mo > 0))
		mo = free_mant(s, n->users[0]);
	for (vc_node *v = b;; v = v->in[0]) { /* every value on the way gets it */
		if (!s->q[v->id] && !(s->force[v->id] > 0))
			s->force[v->id] = mo;
		if (v == src)
			break;
	}
	return mo;
}

/* The number of output positions oh (of OH) at which tap k reads inside an
 * input of H (stride st, padding before pb, dilation dl). */
static int64_t taps_inside(int64_t OH, int64_t H, int64_t st, int64_t pb, int64_t dl, int64_t k)
{
	int64_t in = 0;
	for (int64_t o = 0; o < OH; o++) {
		int64_t i = o * st - pb + k * dl;
		in += i >= 0 && i < H;
	}
	return in;
}

/*
 * Bias correction: rounding channel c's weights moves its mean output by
 * sum_j (w_j - q_j 2^e[c]) E[x_j], which the bias takes back. E[x_j] is the
 * calibration mean of the input channel that weight j reads, times the
 * fraction of output positions at which its tap reads inside the input
 * (padding reads zeros). corr[c] in the units of wd (the weights as scaled
 * for the layer), 0 where the input's channel means are unknown.
 */
static void bias_correction(const qstate *s, const vc_node *n, const float *wd, const int8_t *wq, const int *e,
			    double *corr)
{
	const vc_node *x = n->in[0], *w = n->in[1];
	const vc_range *r = &s->rng[x->id];
	int64_t O = w->type.dim[0], per = vc_type_elems(&w->type) / O;
	memset(corr, 0, (size_t)O * sizeof *corr);
	if (!r->chsum || !(r->chcount > 0))
		return;
	int conv = n->op == VC_OP_CONV && w->type.rank == 4 && x->type.rank == 4 && n->type.rank == 4;
	int64_t I = conv ? w->type.dim[1] : per, KH = conv ? w->type.dim[2] : 1, KW = conv ? w->type.dim[3] : 1;
	int64_t G = conv && n->a.group > 1 ? n->a.group : 1, Og = O / G;
	if (!conv && (n->op != VC_OP_DENSE || r->chn != per))
		return;
	if (conv && r->chn != I * G)
		return;
	double frac[64] = {0}, *fr = KH * KW <= 64 ? frac : NULL;
	if (!fr)
		return;
	for (int64_t kh = 0; kh < KH; kh++)
		for (int64_t kw = 0; kw < KW; kw++) {
			if (!conv) {
				fr[0] = 1.0;
				continue;
			}
			int64_t OH = n->type.dim[2], OW = n->type.dim[3], H = x->type.dim[2], W = x->type.dim[3];
			int64_t dh = n->a.dilation[0] > 1 ? n->a.dilation[0] : 1, dw = n->a.dilation[1] > 1 ? n->a.dilation[1] : 1;
			fr[kh * KW + kw] = (double)(taps_inside(OH, H, n->a.stride[0], n->a.pad[0], dh, kh) *
						    taps_inside(OW, W, n->a.stride[1], n->a.pad[1], dw, kw)) /
					   (double)(OH * OW);
		}
	for (int64_t c = 0; c < O; c++) {
		double step = ldexp(1.0, e[c]), sum = 0;
		for (int64_t i = 0; i < I; i++) {
			double mean = r->chsum[(c / Og) * I + i] / r->chcount;
			for (int64_t k = 0; k < KH * KW; k++) {
				int64_t j = c * per + i * KH * KW + k;
				sum += ((double)wd[j] - wq[j] * step) * mean * fr[k];
			}
		}
		corr[c] = sum;
	}
}

/*
 * conv/dense n -> qconv/qdense + requant. Channel c of the weights gets its
 * own exponent e[c] (per-channel=true), capped so that the requant's shift
 * of that channel stays within 31; the int8 weights are typed at
 * emax = max e[c], and d[c] = emax - e[c] goes to the requant.
 */
static vc_node *quantize_layer(vc_pass *p, qstate *s, vc_node *n)
{
	vc_module *m = s->m;
	vc_node *x = n->in[0];
	/* a float input that is never negative (pixels) and only feeds this
	 * layer: 256 levels instead of 128, see offset_input (not from synthetic
	 * samples: they say nothing about the sign of real inputs) */
	int offset = s->input_offset && !m->calib.synthetic && !s->q[x->id] && x->op != VC_OP_CONST && x->n_users == 1 &&
		     s->rng[x->id].negmin >= 0 && s->rng[x->id].posmax > 0 && (x->type.rank == 4 || n->op == VC_OP_DENSE);
	int in_uns = !offset && s->q[x->id] && !s->fl[x->id] && s->uns[x->id];
	double m_off = 1.0;
	vc_node *xq = offset ? offset_input(s, n, &m_off) : in_uns ? explicit_pad(s, n, s->q[x->id]) : get_q(s, x);
	if (!xq)
		return NULL;
	/* the real weights and biases in the units of the int8 values: x = m_in
	 * 2^ex q, y = m_out 2^eo q, so w * m_in / m_out and b / m_out, and the
	 * requantization stays a shift */
	double m_in = offset ? m_off : mant_of(s, x), mo = layer_mant(s, n);
	const vc_node *w = n->in[1];
	int64_t O = w->type.dim[0], per = vc_type_elems(&w->type) / O;
	int *e = malloc((size_t)O * sizeof *e);
	float *wd = malloc((size_t)(O * per) * sizeof *wd);
	if (!e || !wd) {
		free(e);
		free(wd);
		vc_error(m, n, "out of memory");
		return NULL;
	}
	for (int64_t i = 0; i < O * per; i++)
		wd[i] = (float)(((const float *)w->data)[i] * (m_in / mo));
	int emax = -1000;
	for (int64_t c = 0; c < O; c++) {
		e[c] = vc_weight_exp(wd + c * per, per, 1, s->wmethod);
		emax = e[c] > emax ? e[c] : emax;
	}
	/* a leaky ReLU after the layer (or after its residual add) is requantized
	 * with one shift for every channel (the ALU sequence of the leaky slope) */
	vc_node *lk = leaky_user(n);
	int leaky_after = lk || (n->n_users == 1 && n->users[0]->op == VC_OP_ADD && leaky_user(n->users[0]));
	if (!s->per_channel || O == 0 || leaky_after) {
		int all = vc_weight_exp(wd, O * per, 1, s->wmethod);
		for (int64_t c = 0; c < O; c++)
			e[c] = all;
		emax = all;
	}
	/* the network's output (through reshape/softmax only) is never clipped:
	 * its largest values decide the answer */
	vc_calib_method keep = s->co.method;
	if (feeds_output(m->g, n))
		s->co.method = VC_CALIB_MAX;
	double mt = mo;
	int ea = xq->type.exp + emax, eo;
	if (lk)
		choose(s, lk, 0, INFINITY, 127, mo, &eo);
	else
		eo = out_exp(s, n, &mt);
	s->co.method = keep;
	if (eo - ea > 31)
		eo = ea + 31;
	if (eo - ea < -31)
		eo = ea - 31;
	int pc = 0;
	for (int64_t c = 0; c < O; c++) {
		if (emax - e[c] > 31 - (eo - ea)) /* the channel's shift would pass 31 */
			e[c] = emax - (31 - (eo - ea));
		if (e[c] > emax)
			e[c] = emax;
		pc |= e[c] != emax;
	}
	int64_t d1[1] = {O};
	vc_node *wq = vc_const(m, NULL, VC_I8, w->type.rank, w->type.dim, NULL);
	vc_node *bq = vc_const(m, NULL, VC_I32, 1, d1, NULL);
	vc_node *dv = pc ? vc_const(m, NULL, VC_I32, 1, d1, NULL) : NULL;
	vc_node *out = NULL;
	if (!wq || !bq || (pc && !dv))
		goto done;
	wq->type.quantized = bq->type.quantized = 1;
	wq->type.exp = emax;
	bq->type.exp = ea;
	for (int64_t c = 0; c < O; c++)
		for (int64_t j = 0; j < per; j++)
			((int8_t *)wq->data)[c * per + j] = vc_quantize_value(wd[c * per + j], e[c]);
	double *corr = calloc((size_t)O, sizeof *corr);
	if (!corr) {
		vc_error(m, n, "out of memory");
		out = NULL;
		goto done;
	}
	if (s->bias_correct)
		bias_correction(s, n, wd, wq->data, e, corr);
	for (int64_t c = 0; c < O; c++) {
		double b = (n->n_in > 2 ? ((const float *)n->in[2]->data)[c] : 0.0) / mo + corr[c] / m_in;
		double v = nearbyint(ldexp(b, -(xq->type.exp + e[c])));
		((int32_t *)bq->data)[c] = (int32_t)fmax(fmin(v, 2147483647.0), -2147483647.0);
		if (dv)
			((int32_t *)dv->data)[c] = emax - e[c];
	}
	free(corr);
	vc_attrs ca = n->a;
	if (offset || in_uns) {
		/* x = 2^e (q + 128): the +128 is 128 * (sum of the channel's int8
		 * weights) in the bias; the padding is explicit (PAD with q = -128,
		 * x = 0), so every tap reads a real value */
		for (int64_t c = 0; c < O; c++) {
			int64_t sum = 0;
			for (int64_t j = 0; j < per; j++)
				sum += ((const int8_t *)wq->data)[c * per + j];
			((int32_t *)bq->data)[c] = (int32_t)((uint32_t)((int32_t *)bq->data)[c] + (uint32_t)(128 * sum));
		}
		memset(ca.pad, 0, sizeof ca.pad);
		vc_stat_add(p, "offset-inputs", 1);
	}
	/* an activation after a relu (or a clip to [0, hi]) that only convs,
	 * residual adds and max pooling take: 255 steps, q = u - 128 (the -128
	 * folded into the bias), see "Unsigned activations" in docs/compiler.md */
	vc_node *act = positive_act(n);
	int64_t qlo = -127, qhi = 127;
	int uo = unsigned_out(s, n);
	if (uo) {
		mt = mo;
		int e2 = unsigned_exp(s, n, clip_hi(n), &mt);
		uo = e2 - ea >= 0 && e2 - ea <= 31 && !fold_offset(bq, dv, e2 - ea, O, -1);
		if (uo) {
			eo = e2;
			qlo = -128;
			qhi = act->op == VC_OP_CLIP ? (int64_t)fmin(127.0, floor(ldexp(act->a.hi / mo, -eo)) - 128) : 127;
		}
	}
	vc_node *args[3] = {xq, wq, bq};
	vc_node *acc = vc_build(m, n->op == VC_OP_CONV ? VC_OP_QCONV : VC_OP_QDENSE, args, 3, &ca, n->name);
	if (acc)
		out = requant(s, acc, dv, eo, n, lk ? lk->a.leaky : 0, qlo, qhi);
	if (out && uo) { /* the relu or clip is in the requant's bounds */
		s->q[act->id] = s->q[n->id] = out;
		s->mant[act->id] = s->mant[n->id] = mo;
		s->uns[act->id] = s->uns[n->id] = 1;
		vc_stat_add(p, "unsigned-activations", 1);
	} else if (out) { /* the value of the leaky ReLU when one is folded in */
		s->q[lk ? lk->id : n->id] = out;
		s->mant[lk ? lk->id : n->id] = mo;
	}
	vc_stat_add(p, "quantized-layers", 1);
	if (pc)
		vc_stat_add(p, "per-channel-layers", 1);
done:
	free(e);
	free(wd);
	return out;
}

/*
 * A residual add y = conv(x) + r (either operand order), where the conv or
 * dense was just quantized and feeds only this add, and r has the same
 * shape: keep it integer as qadd(acc, r_q) on the int32 accumulator, the
 * residual left-shifted to the accumulator's exponent (per channel when the
 * conv has channel shifts), then one requant. 1 if done, 0 if the add stays
 * in float (shapes, or the residual's exponent is below the accumulator's:
 * that would need a rounding right shift of the residual), -1 on error.
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
		vc_node *acc = rq->in[0], *d = rq->n_in > 1 ? rq->in[1] : NULL;
		/* the residual joins the accumulator by a shift: one mantissa (the
		 * conv's output was given the residual's, see layer_mant) */
		double ma = mant_of(s, a), mb = fixed_mant(s, b);
		if (!(mb > 0))
			s->force[b->id] = mb = ma;
		if (mb != ma) {
			vc_stat_add(p, "residual-adds-float", 1);
			return 0;
		}
		int be;
		if (s->q[b->id])
			be = s->q[b->id]->type.exp;
		else
			choose(s, b, 0, INFINITY, 127, mb, &be);
		int sh = be - acc->type.exp, dmax = 0;
		for (int64_t c = 0; d && c < d->type.dim[0]; c++)
			dmax = ((const int32_t *)d->data)[c] > dmax ? ((const int32_t *)d->data)[c] : dmax;
		if (sh < 0 || sh + dmax > 24) {
			vc_stat_add(p, "residual-adds-float", 1);
			return 0;
		}
		vc_node *bias = acc->in[2];
		int64_t O = vc_type_elems(&bias->type);
		/* an unsigned residual r = u - 128: the 128 << shift it lacks goes to the bias */
		int b_uns = s->q[b->id] && !s->fl[b->id] && s->uns[b->id];
		if (b_uns && fold_offset(bias, d, sh, O, +1)) {
			vc_stat_add(p, "residual-adds-float", 1);
			return 0;
		}
		vc_node *bq = b_uns ? s->q[b->id] : get_q(s, b);
		if (!bq)
			return -1;
		vc_node *args[3] = {acc, bq, d};
		char nm[64];
		snprintf(nm, sizeof nm, "%.50s", n->name);
		vc_node *qa = vc_build(m, VC_OP_QADD, args, d ? 3 : 2, NULL, nm);
		vc_node *lk = leaky_user(n), *act = positive_act(n);
		double mt = ma;
		int eo;
		if (lk)
			choose(s, lk, 0, INFINITY, 127, ma, &eo);
		else
			eo = out_exp(s, n, &mt);
		int64_t qlo = -127, qhi = 127;
		int uo = unsigned_out(s, n);
		if (uo) {
			int e2 = unsigned_exp(s, n, clip_hi(n), &mt);
			uo = e2 - acc->type.exp >= 0 && e2 - acc->type.exp + dmax <= 31 &&
			     !fold_offset(bias, d, e2 - acc->type.exp, O, -1);
			if (uo) {
				eo = e2;
				qlo = -128;
				qhi = act->op == VC_OP_CLIP ? (int64_t)fmin(127.0, floor(ldexp(act->a.hi / ma, -eo)) - 128) : 127;
			}
		}
		vc_node *rq2 = qa ? requant(s, qa, d, eo, n, lk ? lk->a.leaky : 0, qlo, qhi) : NULL;
		if (!rq2)
			return -1;
		if (uo) {
			s->q[act->id] = s->q[n->id] = rq2;
			s->mant[act->id] = s->mant[n->id] = ma;
			s->uns[act->id] = s->uns[n->id] = 1;
			vc_stat_add(p, "unsigned-activations", 1);
		} else {
			s->q[lk ? lk->id : n->id] = rq2;
			s->mant[lk ? lk->id : n->id] = ma;
		}
		vc_stat_add(p, "residual-adds", 1);
		return 1;
	}
	return 0;
}

/* The choices of the weights and scales options, in their order. */
enum { WEIGHTS_MAX, WEIGHTS_MSE };
enum { SCALES_FLOAT, SCALES_POW2 };

static int quantize(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)u;
	if (vc_opt_int(p, "bits") != 8)
		return vc_error(m, NULL, "quantize: bits=%lld; only 8 is supported", (long long)vc_opt_int(p, "bits"));
	qstate s = {.m = m, .ids = m->g->next_id};
	/* the method option's choices are vc_calib_method's names, in its order */
	s.co.method = (vc_calib_method)vc_opt_int(p, "method");
	s.wmethod = vc_opt_int(p, "weights") == WEIGHTS_MAX ? VC_CALIB_MAX : VC_CALIB_MSE;
	s.co.percentile = vc_opt_float(p, "percentile");
	if (!(s.co.percentile > 50.0 && s.co.percentile <= 100.0))
		return vc_error(m, NULL, "quantize: percentile=%g is not in (50, 100]", s.co.percentile);
	s.per_channel = (int)vc_opt_int(p, "per-channel");
	s.input_offset = s.unsigned_acts = (int)vc_opt_int(p, "unsigned");
	s.float_scales = vc_opt_int(p, "scales") == SCALES_FLOAT;
	s.bias_correct = (int)vc_opt_int(p, "bias-correct");
	const char *skip = vc_opt_str(p, "skip");
	int count;
	vc_node **nodes = vc_snapshot(m, &count);
	if (!nodes || vc_check_list(m, "quantize", "skip", skip, nodes, count))
		return -1;
	s.fl = vc_alloc(m, (size_t)s.ids * sizeof *s.fl);
	s.q = vc_alloc(m, (size_t)s.ids * sizeof *s.q);
	s.uns = vc_alloc(m, (size_t)s.ids);
	s.pow2 = vc_alloc(m, (size_t)s.ids);
	s.mant = vc_alloc(m, (size_t)s.ids * sizeof *s.mant);
	s.force = vc_alloc(m, (size_t)s.ids * sizeof *s.force);
	s.skip = skip;
	s.rng = calloc((size_t)s.ids, sizeof *s.rng);
	int rc = -1, hit, used;
	if (!s.fl || !s.q || !s.rng || !s.uns || !s.pow2 || !s.mant || !s.force) {
		vc_error(m, NULL, "out of memory");
		goto done;
	}
	if (s.co.method != VC_CALIB_MAX)
		for (int i = 0; i < count; i++)
			if (nodes[i]->type.dtype == VC_F32 && nodes[i]->op != VC_OP_CONST &&
			    !(s.rng[nodes[i]->id].hist = calloc(2 * VC_HIST_BINS, sizeof(uint64_t)))) {
				vc_error(m, NULL, "out of memory for the calibration histograms");
				goto done;
			}
	/* the channel means of every layer's input, for the bias correction */
	for (int i = 0; s.bias_correct && i < count; i++) {
		vc_node *n = nodes[i];
		if ((n->op != VC_OP_CONV && n->op != VC_OP_DENSE) || n->in[0]->type.rank < 2)
			continue;
		vc_range *r = &s.rng[n->in[0]->id];
		if (!r->chsum && !(r->chsum = calloc((size_t)n->in[0]->type.dim[1], sizeof(double)))) {
			vc_error(m, NULL, "out of memory for the calibration means");
			goto done;
		}
		r->chn = n->in[0]->type.dim[1];
	}
	if (vc_calibrate(m, (int)vc_opt_int(p, "calib"), s.rng, &used))
		goto done;
	unify_concat_ranges(m, s.rng, s.pow2);
	vc_stat_add(p, "samples", used);
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
			if (!quantize_layer(p, &s, n))
				goto done;
		} else if (n->op == VC_OP_ADD && (hit = quantize_residual_add(p, &s, n)) != 0) {
			if (hit < 0)
				goto done;
		} else if (int_in && s.uns[x->id] && n->op == VC_OP_RELU) {
			s.q[n->id] = s.q[x->id]; /* u >= 0 already */
			s.mant[n->id] = s.mant[x->id];
			s.uns[n->id] = 1;
		} else if (int_in && moves_only(n->op) && !(s.uns[x->id] && n->op == VC_OP_CLIP)) {
			vc_attrs a = n->a;
			if (n->op == VC_OP_CLIP) { /* its bounds in units of 2^e */
				a.lo /= mant_of(&s, x);
				a.hi /= mant_of(&s, x);
			}
			vc_node *qn = vc_build(m, n->op, &s.q[x->id], 1, &a, n->name);
			if (!qn)
				goto done;
			s.q[n->id] = qn;
			s.mant[n->id] = s.mant[x->id];
			s.uns[n->id] = s.uns[x->id]; /* they move values: the offset stays */
		} else if (n->op == VC_OP_CONCAT && n->n_in <= 16 && all_int_same_exp(&s, n)) {
			vc_node *qin[16];
			for (int k = 0; k < n->n_in; k++)
				qin[k] = s.q[n->in[k]->id];
			vc_node *qn = vc_build(m, VC_OP_CONCAT, qin, n->n_in, &n->a, n->name);
			if (!qn)
				goto done;
			s.q[n->id] = qn;
			s.mant[n->id] = s.mant[n->in[0]->id];
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
	if (s.rng)
		for (int i = 0; i < s.ids; i++) {
			free(s.rng[i].hist);
			free(s.rng[i].chsum);
		}
	free(s.rng);
	return rc;
}

const vc_pass_desc vc_pass_quantize = {
	.name = "quantize",
	.summary = "calibrate and quantize conv/dense to int8: shift requantization, per-channel weights, bias correction",
	.anchor = VC_ANCHOR_GRAPH,
	.requires_props = VC_PROP_CANONICAL | VC_PROP_BN_FOLDED,
	.provides_props = VC_PROP_QUANTIZED,
	.opts = {{"calib", VC_OPT_INT, "0", "calibration samples to use (0: all given)", NULL},
		 {"skip", VC_OPT_STRING, "", "layers kept in float: names or node ids separated by ':'", NULL},
		 {"bits", VC_OPT_INT, "8", "activation and weight bits (8)", NULL},
		 {"method", VC_OPT_ENUM, "mse", "activation ranges: mse (measured best), percentile or max",
		  "max|percentile|mse"},
		 {"percentile", VC_OPT_FLOAT, "99.99", "the percentile of method=percentile", NULL},
		 {"weights", VC_OPT_ENUM, "mse", "weight exponents: mse (measured best) or max", "max|mse"},
		 {"per-channel", VC_OPT_BOOL, "true", "one weight exponent per output channel", NULL},
		 {"scales", VC_OPT_ENUM, "float", "activation steps: float (m * 2^e, m folded into the weights) or pow2",
		  "float|pow2"},
		 {"bias-correct", VC_OPT_BOOL, "true", "take the mean shift of each channel's weight rounding back in its bias", NULL},
		 {"unsigned", VC_OPT_BOOL, "true",
		  "never-negative inputs (pixels) and activations after relu as q - 128: 256 levels", NULL}},
	.stats = {"samples", "quantized-layers", "per-channel-layers", "offset-inputs", "unsigned-activations",
		  "residual-adds", "residual-adds-float", "int8-concats"},
	.run = quantize,
};
