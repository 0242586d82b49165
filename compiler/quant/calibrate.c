/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Calibration: the float graph runs on the samples the driver gave (never
 * on made-up data: without samples the pass stops and says how to
 * calibrate), recording per node the largest |x|, the largest positive value
 * and a histogram of the values (12 bits of |x|'s float encoding: 16 bins an
 * octave over the whole float range, no second pass to find the range).
 *
 * From those, the exponent e of a power-of-two scale (real = q * 2^e, q in
 * [-127, 127]) by one of three methods:
 *   max         the smallest e with 127 * 2^e >= the largest value
 *   percentile  the same for the given percentile of |x|
 *   mse         the e among max's and the six below it that minimises the
 *               expected squared error over the histogram: rounding noise
 *               (step^2 / 12, or x^2 where x rounds to 0) plus clipping
 * Each method sees the values as the consumer will: after a relu only the
 * positive side counts, after a clip to [lo, hi] values are clipped first
 * (a ReLU6 range is min(posmax, 6)).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>

#include "quant/quant.h"

int vc_exp_for(double r)
{
	if (!(r > 0) || !isfinite(r))
		return 0;
	int e = (int)ceil(log2(r / 127.0));
	while (127.0 * ldexp(1.0, e) < r)
		e++;
	while (127.0 * ldexp(1.0, e - 1) >= r)
		e--;
	return e;
}

/* One calibration worker: samples first, first + step, ... below n. */
typedef struct cal_job {
	vc_module *m;
	int first, step, n, rc, progress;
	vc_range *rng;
} cal_job;

static void *cal_worker(void *arg)
{
	cal_job *j = arg;
	vc_module *m = j->m;
	vc_tensor in;
	int64_t e = m->calib.elems;
	if (vc_tensor_alloc(&in, &m->g->inputs[0]->type)) {
		j->rc = -1;
		return NULL;
	}
	for (int s = j->first; s < j->n && !j->rc; s += j->step) {
		vc_tensor out[8];
		memcpy(in.data, m->calib.data + (size_t)s * (size_t)e, (size_t)e * sizeof(float));
		j->rc = vc_interp(m, &in, out, j->rng, NULL, NULL);
		if (!j->rc)
			for (int k = 0; k < m->g->n_outputs; k++)
				vc_tensor_free(&out[k]);
		if (!j->rc && j->progress && m->progress) /* the first worker reports for all */
			m->progress(m->progress_ctx, "calibration samples", s + 1 < j->n ? s + 1 : j->n, j->n);
	}
	vc_tensor_free(&in);
	return NULL;
}

int vc_calibrate(vc_module *m, int want, vc_range *rng, int *used)
{
	vc_graph *g = m->g;
	vc_samples *cs = &m->calib;
	int64_t elems = vc_type_elems(&g->inputs[0]->type);
	*used = 0;
	if (cs->count == 0)
		return vc_error(m, NULL,
				"quantize: no calibration samples. Calibrate on inputs like the ones the model will see: "
				"vta compile MODEL --calib=DATA [--calib-count=N], DATA an IDX or CIFAR-10 .bin dataset, a "
				"folder of images, an image or raw float32 tensors; for a model with synthetic weights "
				"--calib=synthetic feeds seeded random inputs");
	if (cs->elems != elems)
		return vc_error(m, g->inputs[0], "calibration samples have %lld values, the input needs %lld",
				(long long)cs->elems, (long long)elems);
	if (g->n_inputs != 1)
		return vc_error(m, NULL, "quantize: calibration of models with %d inputs is not supported", g->n_inputs);
	int n = cs->count;
	if (want > 0 && want < n)
		n = want;
	/*
	 * The samples are independent: one worker a core, each with its own
	 * statistics, merged at the end. OpenBLAS runs single-threaded under
	 * them (its own threads spin in sched_yield when the cores are busy,
	 * which on a shared machine made a compile 20x slower).
	 */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int T = cpus < 1 ? 1 : cpus > 8 ? 8 : (int)cpus;
	if (T > n)
		T = n;
	openblas_set_num_threads(1);
	cal_job jobs[8];
	pthread_t tid[8];
	int started[8] = {0}, rc = 0;
	for (int t = 0; t < T; t++) {
		jobs[t] = (cal_job){.m = m, .first = t, .step = T, .n = n, .progress = t == 0, .rng = rng};
		if (t > 0) { /* statistics of its own, histograms where the caller wants them */
			jobs[t].rng = calloc((size_t)g->next_id, sizeof *rng);
			for (int i = 0; jobs[t].rng && i < g->next_id; i++)
				if ((rng[i].hist && !(jobs[t].rng[i].hist = calloc(2 * VC_HIST_BINS, sizeof(uint64_t)))) ||
				    (rng[i].chsum && !(jobs[t].rng[i].chsum = calloc((size_t)rng[i].chn, sizeof(double)))))
					rc = -1;
				else
					jobs[t].rng[i].chn = rng[i].chn;
			if (!jobs[t].rng)
				rc = -1;
		}
	}
	for (int t = 1; t < T && !rc; t++)
		if (!(started[t] = !pthread_create(&tid[t], NULL, cal_worker, &jobs[t])))
			cal_worker(&jobs[t]); /* no thread: its share runs here */
	if (!rc)
		cal_worker(&jobs[0]);
	for (int t = 1; t < T; t++)
		if (started[t])
			pthread_join(tid[t], NULL);
	for (int t = 0; t < T; t++)
		rc |= jobs[t].rc;
	for (int t = 1; t < T; t++) {
		vc_range *r = jobs[t].rng;
		for (int i = 0; r && r != rng && i < g->next_id; i++) {
			rng[i].absmax = r[i].absmax > rng[i].absmax ? r[i].absmax : rng[i].absmax;
			rng[i].posmax = r[i].posmax > rng[i].posmax ? r[i].posmax : rng[i].posmax;
			rng[i].negmin = r[i].negmin < rng[i].negmin ? r[i].negmin : rng[i].negmin;
			for (int b = 0; rng[i].hist && r[i].hist && b < 2 * VC_HIST_BINS; b++)
				rng[i].hist[b] += r[i].hist[b];
			for (int64_t c = 0; rng[i].chsum && r[i].chsum && c < rng[i].chn; c++)
				rng[i].chsum[c] += r[i].chsum[c];
			rng[i].chcount += r[i].chcount;
			free(r[i].hist);
			free(r[i].chsum);
		}
		if (r != rng)
			free(r);
	}
	if (rc && !m->diag.count)
		vc_error(m, NULL, "quantize: out of memory for the calibration workers");
	*used = n;
	return rc ? -1 : 0;
}

/* Expected squared error of the values of histogram h (counts per bin of
 * |x|, values clipped to top_clip first) quantized with `step` and `levels`
 * steps on the side kept. */
static double mse(const double *h, double top_clip, double step, int levels)
{
	double top = levels * step, err = 0;
	for (int b = 0; b < VC_HIST_BINS; b++) {
		if (!h[b])
			continue;
		double lo = vc_hist_edge(b), hi = vc_hist_edge(b + 1), v = 0.5 * (lo + hi);
		if (v > top_clip)
			v = top_clip;
		double d;
		if (v > top)
			d = (v - top) * (v - top) + step * step / 12.0;
		else if (v < 0.5 * step)
			d = v * v;
		else
			d = step * step / 12.0;
		err += h[b] * d;
	}
	return err;
}

/* The step for covering r with `levels` steps: r / levels, or with a fixed
 * mantissa m the smallest m * 2^e that covers it. */
static double cover(double r, int levels, double m)
{
	if (!(m > 0))
		return r / levels;
	double step = m * ldexp(1.0, (int)ceil(log2(r / (levels * m))));
	while (levels * step < r)
		step *= 2;
	while (levels * step * 0.5 >= r)
		step *= 0.5;
	return step;
}

double vc_choose_step(const vc_range *r, const vc_calib_opts *o, int positive, double limit, int levels, double m)
{
	/* the values as the consumer keeps them */
	double vmax = fmin(positive ? r->posmax : r->absmax, limit);
	if (!(vmax > 0) || !isfinite(vmax))
		return m > 0 ? m : 1.0;
	double smax = cover(vmax, levels, m);
	if (o->method == VC_CALIB_MAX || !r->hist)
		return smax;
	double *h = calloc(VC_HIST_BINS, sizeof *h);
	if (!h)
		return smax;
	double total = 0;
	for (int b = 0; b < VC_HIST_BINS; b++) {
		h[b] = (double)r->hist[b] + (positive ? 0.0 : (double)r->hist[VC_HIST_BINS + b]);
		total += h[b];
	}
	double step = smax;
	if (total > 0 && o->method == VC_CALIB_PERCENTILE) {
		/* of the nonzero values the consumer keeps (a relu's zeros left out) */
		double keep = total * o->percentile / 100.0, seen = 0;
		for (int b = 0; b < VC_HIST_BINS; b++) {
			seen += h[b];
			if (seen >= keep) {
				step = cover(fmin(vc_hist_edge(b + 1), vmax), levels, m);
				break;
			}
		}
	} else if (total > 0) {
		/* six octaves below max's step: by factors of 2 with a fixed
		 * mantissa, of 2^(1/16) without */
		int per = m > 0 ? 1 : 16;
		double best = -1;
		for (int k = 0; k <= 6 * per; k++) {
			double c = smax * exp2(-(double)k / per), err = mse(h, vmax, c, levels);
			if (best < 0 || err < best)
				best = err, step = c;
		}
	}
	free(h);
	return step < smax ? step : smax;
}

int vc_choose_exp(const vc_range *r, const vc_calib_opts *o, int positive, double limit)
{
	return ilogb(vc_choose_step(r, o, positive, limit, 127, 1.0));
}

int vc_weight_exp(const float *w, int64_t n, int64_t stride, int method)
{
	double mx = 0;
	for (int64_t i = 0; i < n; i++)
		mx = fmax(mx, fabs(w[i * stride]));
	int emax = vc_exp_for(mx);
	if (method != VC_CALIB_MSE || !(mx > 0))
		return emax;
	int best_e = emax;
	double best = -1;
	for (int e = emax; e >= emax - 3; e--) {
		double err = 0, step = ldexp(1.0, e);
		for (int64_t i = 0; i < n; i++) {
			double v = w[i * stride], q = nearbyint(v / step);
			q = q > 127 ? 127 : q < -127 ? -127 : q;
			err += (v - q * step) * (v - q * step);
		}
		if (best < 0 || err < best)
			best = err, best_e = e;
	}
	return best_e;
}
