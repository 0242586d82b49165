/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host tensors: a type and its data.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "model/graph.h"

int vc_tensor_alloc(vc_tensor *x, const vc_type *t)
{
	x->t = *t;
	size_t bytes = vc_type_bytes(t);
	x->data = calloc(1, bytes ? bytes : 1);
	x->owned = 1;
	return x->data ? 0 : -1;
}

void vc_tensor_free(vc_tensor *x)
{
	if (x->owned)
		free(x->data);
	x->data = NULL;
	x->owned = 0;
}

double vc_tensor_get(const vc_tensor *x, int64_t i)
{
	switch (x->t.dtype) {
	case VC_F32:
		return ((const float *)x->data)[i];
	case VC_I8:
		return ((const int8_t *)x->data)[i];
	default:
		return ((const int32_t *)x->data)[i];
	}
}

void vc_to_mtype(const vc_type *t, vta_mtype_t *m)
{
	memset(m, 0, sizeof *m);
	m->rank = t->rank;
	for (int i = 0; i < t->rank; i++)
		m->dim[i] = t->dim[i];
	m->dtype = (uint32_t)t->dtype;
	m->layout = (uint32_t)t->layout;
	m->quantized = t->quantized;
	m->exp = t->exp;
}

void vc_to_mattrs(const vc_attrs *a, vta_mattrs_t *m)
{
	memset(m, 0, sizeof *m);
	for (int k = 0; k < 2; k++)
		m->kernel[k] = a->kernel[k], m->stride[k] = a->stride[k], m->dilation[k] = a->dilation[k];
	memcpy(m->pad, a->pad, sizeof m->pad);
	m->group = a->group;
	m->axis = a->axis;
	m->ceil_mode = a->ceil_mode;
	m->count_include_pad = a->count_include_pad;
	m->coerce2d = a->coerce2d;
	m->exp = a->exp;
	m->lo = a->lo, m->hi = a->hi, m->eps = a->eps;
	m->nshape = a->nshape;
	memcpy(m->shape, a->shape, sizeof m->shape);
	m->shift = a->shift;
	m->relu = a->relu;
	m->qlo = a->qlo, m->qhi = a->qhi, m->dev_off = a->dev_off;
	m->kernel_id = a->kernel_id;
	m->leaky = a->leaky;
}
