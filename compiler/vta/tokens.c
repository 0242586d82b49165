/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tokens: dependency tokens between the load, compute and store modules from
 * the SRAM regions (buffer halves) each instruction reads and writes (a
 * static CoProcSync).
 */
#include "vta/codegen.h"

enum { MOD_LOAD, MOD_COMPUTE, MOD_STORE, NMOD };

static int module_of(const vta_insn_t *in)
{
	switch (in->opcode) {
	case VTA_OPCODE_LOAD:
		return in->memory_type == VTA_MEM_ID_INP || in->memory_type == VTA_MEM_ID_WGT ? MOD_LOAD : MOD_COMPUTE;
	case VTA_OPCODE_STORE:
		return MOD_STORE;
	default:
		return MOD_COMPUTE;
	}
}

/*
 * For every instruction, the latest instruction of each other module it
 * must wait for (RAW on what it reads, WAR/WAW on what it writes). Per
 * queue, waits are made monotone: a wait already covered by an earlier,
 * later-producing token needs none. The k-th pop then always matches the
 * k-th push, and every push precedes its pop in program order.
 */
int vc_kernel_tokens(vc_module *m, vc_kernel *k, int64_t *count)
{
	*count = 0;
	int last_r[VC_NRES][NMOD], last_w[VC_NRES][NMOD];
	int covered[NMOD][NMOD]; /* [from][to]: latest producer already waited for */
	for (int r = 0; r < VC_NRES; r++)
		for (int mo = 0; mo < NMOD; mo++)
			last_r[r][mo] = last_w[r][mo] = -1;
	for (int a = 0; a < NMOD; a++)
		for (int b = 0; b < NMOD; b++)
			covered[a][b] = -1;
	for (int i = 0; i < k->n; i++) {
		vc_kinsn *ki = &k->code[i];
		vta_insn_t *in = &ki->insn;
		in->pop_prev = in->pop_next = in->push_prev = in->push_next = 0;
	}
	for (int i = 0; i < k->n; i++) {
		vc_kinsn *ki = &k->code[i];
		int me = module_of(&ki->insn);
		int need[NMOD] = {-1, -1, -1};
		for (int r = 0; r < VC_NRES; r++) {
			for (int o = 0; o < NMOD; o++) {
				if (o == me)
					continue;
				if ((ki->reads | ki->writes) >> r & 1)
					need[o] = last_w[r][o] > need[o] ? last_w[r][o] : need[o];
				if (ki->writes >> r & 1)
					need[o] = last_r[r][o] > need[o] ? last_r[r][o] : need[o];
			}
		}
		for (int o = 0; o < NMOD; o++) {
			if (need[o] < 0 || need[o] <= covered[o][me])
				continue;
			if ((o == MOD_LOAD && me == MOD_STORE) || (o == MOD_STORE && me == MOD_LOAD))
				return vc_error(m, k->node, "tokens: instruction %d needs a load<->store dependency", i);
			vta_insn_t *prod = &k->code[need[o]].insn, *cons = &ki->insn;
			/* queue direction: towards the store end is "next" */
			if (o < me) {
				prod->push_next = 1;
				cons->pop_prev = 1;
			} else {
				prod->push_prev = 1;
				cons->pop_next = 1;
			}
			covered[o][me] = need[o];
			++*count;
		}
		for (int r = 0; r < VC_NRES; r++) {
			if (ki->reads >> r & 1)
				last_r[r][me] = i;
			if (ki->writes >> r & 1)
				last_w[r][me] = i;
		}
	}
	return 0;
}

static int tokens(vc_pass *p, vc_module *m, vc_unit *u)
{
	int64_t count;
	if (vc_kernel_tokens(m, u->kernel, &count))
		return -1;
	vc_stat_add(p, "tokens", count);
	return 0;
}

const vc_pass_desc vc_pass_tokens = {
	.name = "tokens",
	.summary = "insert dependency tokens between the load, compute and store modules",
	.anchor = VC_ANCHOR_KERNEL,
	.preserves = VC_PRESERVES_NOT_CODE, /* writes the kernel's code */
	.parallel = 1,
	.requires_props = VC_PROP_LOWERED,
	.provides_props = VC_PROP_TOKENS,
	.stats = {"tokens"},
	.run = tokens,
};
