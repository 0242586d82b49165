/* SPDX-License-Identifier: Apache-2.0 */
/* TFLite models from a description (tflbuild.h). */
#include <stdlib.h>
#include <string.h>

#include "fbwrite.h"
#include "tflbuild.h"

/* Field ids of schema.fbs. */
enum { M_VERSION, M_OPCODES, M_SUBGRAPHS, M_DESCRIPTION, M_BUFFERS };
enum { OC_DEPRECATED, OC_CUSTOM, OC_VERSION, OC_BUILTIN };
enum { SG_TENSORS, SG_INPUTS, SG_OUTPUTS, SG_OPERATORS, SG_NAME };
enum { T_SHAPE, T_TYPE, T_BUFFER, T_NAME, T_QUANT, T_IS_VARIABLE, T_SPARSITY };
enum { Q_SCALE = 2, Q_ZERO = 3, Q_DETAILS_TYPE = 4, Q_DIM = 6 };
enum { OP_OPCODE, OP_INPUTS, OP_OUTPUTS, OP_OPTIONS_TYPE, OP_OPTIONS };

uint8_t *tfl_build(const tfl_model *md, size_t *len)
{
	fbw b;
	fbw_init(&b);
	/* buffers: 0 is the empty sentinel, then one per constant tensor */
	fbw_ref bufs[17], tens[16], ops[8], codes[8];
	int nb = 0, bufidx[16];
	fbw_begin(&b);
	bufs[nb++] = fbw_end(&b);
	for (int i = 0; i < md->nt; i++) {
		bufidx[i] = 0;
		if (!md->t[i].data)
			continue;
		fbw_ref d = fbw_bytes(&b, md->t[i].data, md->t[i].bytes);
		fbw_begin(&b);
		fbw_ref_field(&b, 0, d);
		bufidx[i] = nb;
		bufs[nb++] = fbw_end(&b);
	}
	for (int i = 0; i < md->nt; i++) {
		const tfl_tensor *t = &md->t[i];
		fbw_ref shape = fbw_i32s(&b, t->shape, (size_t)t->rank), name = fbw_string(&b, t->name), q = 0, sp = 0;
		if (t->sparse) {
			fbw_begin(&b);
			sp = fbw_end(&b);
		}
		if (t->nq) {
			fbw_ref sc = fbw_f32s(&b, t->scale, (size_t)t->nq), zp = fbw_i64s(&b, t->zero, (size_t)t->nq);
			fbw_begin(&b);
			fbw_ref_field(&b, Q_SCALE, sc);
			fbw_ref_field(&b, Q_ZERO, zp);
			fbw_i32(&b, Q_DIM, t->qdim);
			if (t->qdetails)
				fbw_u8(&b, Q_DETAILS_TYPE, (uint8_t)t->qdetails);
			q = fbw_end(&b);
		}
		fbw_begin(&b);
		fbw_ref_field(&b, T_SHAPE, shape);
		fbw_u8(&b, T_TYPE, (uint8_t)t->type);
		fbw_i32(&b, T_BUFFER, bufidx[i]);
		fbw_ref_field(&b, T_NAME, name);
		if (t->nq)
			fbw_ref_field(&b, T_QUANT, q);
		if (t->sparse)
			fbw_ref_field(&b, T_SPARSITY, sp);
		tens[i] = fbw_end(&b);
	}
	/* one operator code per operator (duplicates are allowed by the format) */
	for (int k = 0; k < md->nop; k++) {
		const tfl_op *o = &md->op[k];
		fbw_ref cc = o->custom ? fbw_string(&b, o->custom) : 0;
		fbw_begin(&b);
		fbw_u8(&b, OC_DEPRECATED, (uint8_t)(o->code < 127 ? o->code : 127));
		if (o->custom)
			fbw_ref_field(&b, OC_CUSTOM, cc);
		fbw_i32(&b, OC_VERSION, 1);
		fbw_i32(&b, OC_BUILTIN, o->code);
		codes[k] = fbw_end(&b);
		int32_t outs[4];
		int nout = o->nout > 1 ? o->nout : 1;
		for (int j = 0; j < nout && j < 4; j++)
			outs[j] = o->out + j;
		fbw_ref in = fbw_i32s(&b, o->in, (size_t)o->nin), out = fbw_i32s(&b, outs, (size_t)(nout < 4 ? nout : 4)), opt = 0;
		if (o->opt_type) {
			fbw_begin(&b);
			for (int f = 0; f < o->nopt; f++) {
				if (o->opt[f].kind == TFL_OPT_U8)
					fbw_u8(&b, o->opt[f].id, (uint8_t)o->opt[f].i);
				else if (o->opt[f].kind == TFL_OPT_I32)
					fbw_i32(&b, o->opt[f].id, o->opt[f].i);
				else
					fbw_f32(&b, o->opt[f].id, o->opt[f].f);
			}
			opt = fbw_end(&b);
		}
		fbw_begin(&b);
		fbw_i32(&b, OP_OPCODE, k);
		fbw_ref_field(&b, OP_INPUTS, in);
		fbw_ref_field(&b, OP_OUTPUTS, out);
		if (o->opt_type) {
			fbw_u8(&b, OP_OPTIONS_TYPE, (uint8_t)o->opt_type);
			fbw_ref_field(&b, OP_OPTIONS, opt);
		}
		ops[k] = fbw_end(&b);
	}
	fbw_ref tv = fbw_refs(&b, tens, (size_t)md->nt), iv = fbw_i32s(&b, &md->input, 1),
		ov = fbw_i32s(&b, &md->output, 1), opv = fbw_refs(&b, ops, (size_t)md->nop), sgname = fbw_string(&b, "main");
	fbw_begin(&b);
	fbw_ref_field(&b, SG_TENSORS, tv);
	fbw_ref_field(&b, SG_INPUTS, iv);
	fbw_ref_field(&b, SG_OUTPUTS, ov);
	fbw_ref_field(&b, SG_OPERATORS, opv);
	fbw_ref_field(&b, SG_NAME, sgname);
	fbw_ref sg = fbw_end(&b);
	fbw_ref sgv = fbw_refs(&b, &sg, 1), cv = fbw_refs(&b, codes, (size_t)md->nop), bv = fbw_refs(&b, bufs, (size_t)nb),
		desc = fbw_string(&b, "vta test model");
	fbw_begin(&b);
	fbw_i32(&b, M_VERSION, 3);
	fbw_ref_field(&b, M_OPCODES, cv);
	fbw_ref_field(&b, M_SUBGRAPHS, sgv);
	fbw_ref_field(&b, M_DESCRIPTION, desc);
	fbw_ref_field(&b, M_BUFFERS, bv);
	fbw_ref root = fbw_end(&b);
	const uint8_t *bytes = fbw_finish(&b, root, "TFL3", len);
	uint8_t *out = bytes ? malloc(*len) : NULL;
	if (out)
		memcpy(out, bytes, *len);
	fbw_free(&b);
	return out;
}
