/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reference kernels, float and int8, one per op the importer accepts. They
 * are the CPU fallback of a compiled model and the oracle every lowered op
 * is checked against, so they are written for clarity, not speed (except
 * that the convolution loops keep the innermost index contiguous). This file
 * holds the dispatch and the layout ops every dtype shares (relu/clip,
 * pooling, reshape, concat); the integer ops are in ref_int8.c, the float
 * ones in ref_float.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include <vta/model/hostops.h>

/* libvta's pooling, as deployed. */
static void pool(const vc_node *n, const vc_tensor *x, vc_tensor *y)
{
	vta_mtype_t xt, yt;
	vc_to_mtype(&x->t, &xt);
	vc_to_mtype(&y->t, &yt);
	vta_mattrs_t a;
	vc_to_mattrs(&n->a, &a);
	vta_pool(n->op == VC_OP_MAXPOOL, &a, &xt, x->data, &yt, y->data);
}

/* libvta's concatenation, as deployed. -1: out of memory. */
static int concat(const vc_node *n, const vc_tensor *in, vc_tensor *y)
{
	size_t k = (size_t)n->n_in;
	vta_mtype_t t, *mt = malloc(k * sizeof *mt);
	const vta_mtype_t **ts = malloc(k * sizeof *ts);
	const void **xs = malloc(k * sizeof *xs);
	int rc = mt && ts && xs ? 0 : -1;
	if (!rc) {
		vc_to_mtype(&y->t, &t);
		for (int i = 0; i < n->n_in; i++) {
			vc_to_mtype(&in[i].t, &mt[i]);
			ts[i] = &mt[i], xs[i] = in[i].data;
		}
		vta_concat(&t, n->a.axis, n->n_in, ts, xs, y->data);
	}
	free(mt);
	free(ts);
	free(xs);
	return rc;
}

/* Darknet's upsample and shortcut alignment: libvta's (runtime/model/hostops.c).
 * ALIGN, per spatial axis: stride = max(1, in / out), sample = max(1, out /
 * in); out[k][j*sample][i*sample] = in[k][j*stride][i*stride] for k <
 * min(C), j < min(H), i < min(W); zero elsewhere (so the add leaves those
 * positions of the other operand as they are). */
static void resample(const vc_node *n, const vc_tensor *x, vc_tensor *y)
{
	vta_mtype_t it, ot;
	vc_to_mtype(&x->t, &it);
	vc_to_mtype(&y->t, &ot);
	vta_resample(n->op == VC_OP_ALIGN, &it, x->data, &ot, y->data, n->a.stride);
}

int vc_ref_run(vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out)
{
	if (vc_tensor_alloc(out, &n->type))
		return vc_error(m, n, "out of memory for the result");
	int64_t e = vc_type_elems(&n->type);
	const vc_tensor *x = &in[0];
	int rc;
	switch (n->op) {
	case VC_OP_CONST:
		memcpy(out->data, n->data, vc_type_bytes(&n->type));
		return 0;
	case VC_OP_RELU:
	case VC_OP_CLIP: {
		double lo = n->op == VC_OP_RELU ? 0.0 : n->a.lo, hi = n->op == VC_OP_RELU ? INFINITY : n->a.hi;
		if (x->t.quantized) { /* bounds in real units, applied to the integers */
			lo = n->op == VC_OP_RELU ? 0.0 : ceil(ldexp(lo, -x->t.exp));
			hi = n->op == VC_OP_RELU ? INFINITY : floor(ldexp(hi, -x->t.exp));
		}
		for (int64_t i = 0; i < e; i++) {
			double v = vc_tensor_get(x, i);
			v = v < lo ? lo : v > hi ? hi : v;
			if (x->t.dtype == VC_F32)
				((float *)out->data)[i] = (float)v;
			else if (x->t.dtype == VC_I8)
				((int8_t *)out->data)[i] = (int8_t)v;
			else
				((int32_t *)out->data)[i] = (int32_t)v;
		}
		return 0;
	}
	case VC_OP_MAXPOOL:
	case VC_OP_AVGPOOL:
		pool(n, x, out);
		return 0;
	case VC_OP_RESHAPE:
	case VC_OP_FLATTEN:
		memcpy(out->data, x->data, vc_type_bytes(&n->type));
		return 0;
	case VC_OP_UPSAMPLE:
	case VC_OP_ALIGN:
		resample(n, x, out);
		return 0;
	case VC_OP_CONCAT:
		if (concat(n, in, out)) {
			vc_tensor_free(out);
			return vc_error(m, n, "out of memory");
		}
		return 0;
	case VC_OP_PAD:
	case VC_OP_TRANSPOSE:
	case VC_OP_SLICE: { /* libvta's, as deployed */
		vta_mtype_t xt, yt;
		vc_to_mtype(&x->t, &xt);
		vc_to_mtype(&n->type, &yt);
		if (n->op == VC_OP_PAD)
			vta_pad(&xt, x->data, &yt, out->data, n->a.pad, n->a.lo);
		else if (n->op == VC_OP_TRANSPOSE)
			vta_transpose(&xt, x->data, &yt, out->data, n->a.shape);
		else
			vta_slice(&xt, x->data, &yt, out->data, n->a.axis, n->a.pad[0]);
		return 0;
	}
	default:
		break;
	}
	if ((rc = vc_ref_run_int8(m, n, in, out)) == 1 && (rc = vc_ref_run_float(m, n, in, out)) == 1) {
		vc_tensor_free(out);
		return vc_error(m, n, "no reference kernel");
	}
	if (rc)
		vc_tensor_free(out);
	return rc;
}
