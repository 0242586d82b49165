/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host tensors: a type and its data.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include <vta/model/graph.h>

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

/* What libvta's host kernels read (pooling, convolution, requantization);
 * the artifact's reader converts back the other fields too. */
void vc_to_mattrs(const vc_attrs *a, vta_mattrs_t *m)
{
	memset(m, 0, sizeof *m);
	memcpy(m->kernel, a->kernel, sizeof m->kernel);
	memcpy(m->stride, a->stride, sizeof m->stride);
	memcpy(m->dilation, a->dilation, sizeof m->dilation);
	memcpy(m->pad, a->pad, sizeof m->pad);
	m->group = a->group;
	m->count_include_pad = a->count_include_pad;
	m->shift = a->shift, m->relu = a->relu, m->leaky = a->leaky;
	m->qlo = a->qlo, m->qhi = a->qhi;
}
