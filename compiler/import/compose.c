/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compositions of IR ops the ONNX and TFLite importers share (import.h,
 * vc_imp_*): an activation or arithmetic the IR has no single op for, as
 * the ops libvta and VTA run.
 */
#include <math.h>
#include <string.h>

#include "import/import.h"

vc_node *vc_imp_scalar(vc_module *m, double v)
{
	int64_t one[1] = {1};
	float f = (float)v;
	return vc_const(m, NULL, VC_F32, 1, one, &f);
}

vc_node *vc_imp_scale(vc_module *m, vc_node *x, double k, const char *nm)
{
	vc_node *args[2] = {x, vc_imp_scalar(m, k)};
	return args[1] ? vc_build(m, VC_OP_MUL, args, 2, NULL, nm) : NULL;
}

vc_node *vc_imp_sub(vc_module *m, vc_node *a, vc_node *b, const char *nm)
{
	vc_node *args[2] = {a, vc_imp_scale(m, b, -1.0, NULL)};
	return args[1] ? vc_build(m, VC_OP_ADD, args, 2, NULL, nm) : NULL;
}

vc_node *vc_imp_div_const(vc_module *m, vc_node *a, const vc_node *c, const char *nm)
{
	vc_node *r = vc_const(m, NULL, VC_F32, c->type.rank, c->type.dim, NULL);
	for (int64_t i = 0; r && i < vc_type_elems(&r->type); i++)
		((float *)r->data)[i] = 1.0f / ((const float *)c->data)[i];
	vc_node *args[2] = {a, r};
	return r ? vc_build(m, VC_OP_MUL, args, 2, NULL, nm) : NULL;
}

vc_node *vc_imp_hard_sigmoid(vc_module *m, vc_node *x, double alpha, double beta, int swish, const char *nm)
{
	vc_node *ka = vc_imp_scalar(m, alpha), *kb = vc_imp_scalar(m, beta);
	if (!ka || !kb)
		return NULL;
	vc_node *args[2] = {x, ka};
	vc_node *y = vc_build(m, VC_OP_MUL, args, 2, NULL, NULL);
	args[0] = y, args[1] = kb;
	y = y ? vc_build(m, VC_OP_ADD, args, 2, NULL, NULL) : NULL;
	vc_attrs ca;
	vc_attrs_init(&ca);
	ca.lo = 0.0;
	ca.hi = 1.0;
	y = y ? vc_build(m, VC_OP_CLIP, &y, 1, &ca, swish ? NULL : nm) : NULL;
	args[0] = x, args[1] = y;
	return y && swish ? vc_build(m, VC_OP_MUL, args, 2, NULL, nm) : y;
}

vc_node *vc_imp_leaky_relu(vc_module *m, vc_node *x, vc_node *slope, double alpha, const char *nm)
{
	int k = 0;
	if (!slope && alpha > 0 && frexp(alpha, &k) == 0.5 && k <= 0 && k >= -14) {
		vc_attrs a;
		vc_attrs_init(&a);
		a.leaky = 1 - k;
		return vc_build(m, VC_OP_LEAKY, &x, 1, &a, nm);
	}
	vc_node *r = vc_build(m, VC_OP_RELU, &x, 1, NULL, NULL);
	vc_node *args[2] = {x, r ? vc_imp_scale(m, r, -1.0, NULL) : NULL};
	vc_node *neg = args[1] ? vc_build(m, VC_OP_ADD, args, 2, NULL, NULL) : NULL; /* min(x, 0) */
	args[0] = slope ? slope : vc_imp_scalar(m, alpha), args[1] = neg;
	vc_node *s = neg && args[0] ? vc_build(m, VC_OP_MUL, args, 2, NULL, NULL) : NULL;
	args[0] = r, args[1] = s;
	return s ? vc_build(m, VC_OP_ADD, args, 2, NULL, nm) : NULL;
}

vc_node *vc_imp_tanh(vc_module *m, vc_node *x, const char *nm)
{
	vc_node *y = vc_imp_scale(m, x, 2.0, NULL);
	y = y ? vc_build(m, VC_OP_SIGMOID, &y, 1, NULL, NULL) : NULL;
	y = y ? vc_imp_scale(m, y, 2.0, NULL) : NULL;
	vc_node *args[2] = {y, vc_imp_scalar(m, -1.0)};
	return y && args[1] ? vc_build(m, VC_OP_ADD, args, 2, NULL, nm) : NULL;
}

float vc_imp_half(uint16_t h)
{
	int e = h >> 10 & 0x1f, m = h & 0x3ff;
	float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 0x400), e - 25);
	return h & 0x8000 ? -v : v;
}

uint16_t vc_imp_to_half(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t sign = x >> 16 & 0x8000, m = x & 0x7fffff;
	int32_t e = (int32_t)(x >> 23 & 0xff) - 127 + 15;
	if ((x >> 23 & 0xff) == 0xff)
		return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00);
	int shift = 13;
	if (e <= 0) { /* a subnormal half, or zero */
		if (e < -10)
			return (uint16_t)sign;
		m |= 0x800000;
		shift = 14 - e;
		e = 0;
	}
	uint32_t h = (uint32_t)e << 10 | m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
	if (rem > half || (rem == half && (h & 1))) /* to nearest, ties to even; a carry rounds up the exponent */
		h++;
	return (uint16_t)(sign | h);
}
