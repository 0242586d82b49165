/* SPDX-License-Identifier: Apache-2.0 */
/* ResNet-18 layers for the benches and the cycle-budget test (r18.h). */
#include "r18.h"

#include <string.h>

const r18_layer r18_layers[] = {
	{"c1", 224, 3, 64, 7, 3, 2, 0}, /* input channels padded 3 -> block: at most 3/BLOCK_IN of the array busy */
	{"c2", 56, 64, 64, 3, 1, 1, 0},    {"c3", 56, 64, 128, 3, 1, 2, 0},   {"c4", 56, 64, 128, 1, 0, 2, 0},
	{"c5", 28, 128, 128, 3, 1, 1, 0},  {"c6", 28, 128, 256, 3, 1, 2, 0},  {"c7", 28, 128, 256, 1, 0, 2, 0},
	{"c8", 14, 256, 256, 3, 1, 1, 0},  {"c9", 14, 256, 512, 3, 1, 2, 0},  {"c10", 14, 256, 512, 1, 0, 2, 0},
	{"c11", 7, 512, 512, 3, 1, 1, 0},
	{"c2_res", 56, 64, 64, 3, 1, 1, 1}, {"c11_res", 7, 512, 512, 3, 1, 1, 1},
};
const size_t r18_n_layers = sizeof r18_layers / sizeof r18_layers[0];

const r18_layer *r18_find(const char *name)
{
	for (size_t i = 0; i < r18_n_layers; i++)
		if (!strcmp(r18_layers[i].name, name))
			return &r18_layers[i];
	return NULL;
}

float r18_frand(uint64_t *st)
{
	*st ^= *st << 13, *st ^= *st >> 7, *st ^= *st << 17;
	return (float)((double)(*st >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

vc_module *r18_module(const r18_layer *w, uint64_t *st)
{
	*st = 5;
	vc_module *m = vc_module_new();
	int64_t xd[4] = {1, w->ic, w->hw, w->hw}, wd[4] = {w->oc, w->ic, w->k, w->k}, bd[1] = {w->oc};
	vc_node *x = vc_input(m, "x", VC_F32, 4, xd);
	vc_node *wt = vc_const(m, "w", VC_F32, 4, wd, NULL), *b = vc_const(m, "b", VC_F32, 1, bd, NULL);
	for (int64_t i = 0; i < vc_type_elems(&wt->type); i++)
		((float *)wt->data)[i] = r18_frand(st);
	for (int i = 0; i < w->oc; i++)
		((float *)b->data)[i] = r18_frand(st);
	vc_attrs a;
	vc_attrs_init(&a);
	for (int i = 0; i < 4; i++)
		a.pad[i] = w->pad;
	a.stride[0] = a.stride[1] = w->stride;
	vc_node *args[3] = {x, wt, b};
	vc_node *y = vc_build(m, VC_OP_CONV, args, 3, &a, w->name);
	if (w->res) {
		vc_node *s[2] = {y, x};
		y = vc_build(m, VC_OP_ADD, s, 2, NULL, "add");
	}
	y = vc_build(m, VC_OP_RELU, &y, 1, NULL, "relu");
	m->g->outputs[m->g->n_outputs++] = y;
	m->props |= VC_PROP_IMPORTED;
	return m;
}

double r18_macs(const r18_layer *w)
{
	int out = (w->hw + 2 * w->pad - w->k) / w->stride + 1;
	return (double)w->oc * w->ic * w->k * w->k * (double)out * (double)out;
}
