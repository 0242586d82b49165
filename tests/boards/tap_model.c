/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The software JTAG chain of tap_model.h. Written from IEEE 1149.1 and UG470
 * independently of boards/flash/jtag.c, which it checks.
 */
#include <stdlib.h>
#include <string.h>

#include "tap_model.h"

enum {
	S_TLR, S_RTI, S_SELDR, S_CAPDR, S_SHDR, S_EX1DR, S_PDR, S_EX2DR, S_UPDR,
	S_SELIR, S_CAPIR, S_SHIR, S_EX1IR, S_PIR, S_EX2IR, S_UPIR
};

static int next(int s, int tms)
{
	switch (s) {
	case S_TLR: return tms ? S_TLR : S_RTI;
	case S_RTI: return tms ? S_SELDR : S_RTI;
	case S_SELDR: return tms ? S_SELIR : S_CAPDR;
	case S_CAPDR: return tms ? S_EX1DR : S_SHDR;
	case S_SHDR: return tms ? S_EX1DR : S_SHDR;
	case S_EX1DR: return tms ? S_UPDR : S_PDR;
	case S_PDR: return tms ? S_EX2DR : S_PDR;
	case S_EX2DR: return tms ? S_UPDR : S_SHDR;
	case S_UPDR: return tms ? S_SELDR : S_RTI;
	case S_SELIR: return tms ? S_TLR : S_CAPIR;
	case S_CAPIR: return tms ? S_EX1IR : S_SHIR;
	case S_SHIR: return tms ? S_EX1IR : S_SHIR;
	case S_EX1IR: return tms ? S_UPIR : S_PIR;
	case S_PIR: return tms ? S_EX2IR : S_PIR;
	case S_EX2IR: return tms ? S_UPIR : S_SHIR;
	default: return tms ? S_SELDR : S_RTI; /* S_UPIR */
	}
}

uint32_t tap_insn(const tap_dev_t *d, uint32_t pl)
{
	if (d->kind != TAP_ZYNQMP)
		return pl;
	return pl == 0x3F ? 0xFFFu : 0x900u | pl;
}

static uint32_t ones(unsigned n)
{
	return n >= 32 ? 0xFFFFFFFFu : (1u << n) - 1;
}

void tap_add(tap_chain_t *c, int kind, unsigned ir_len, uint32_t idcode)
{
	tap_dev_t *d = &c->dev[c->n++];
	memset(d, 0, sizeof *d);
	d->kind = kind;
	d->ir_len = ir_len;
	d->idcode = idcode;
	if ((idcode & 0x0FFFFFFFu) == 0x0BA00477u)
		d->idcode_insn = 0xE; /* ARM DAP */
	else
		d->idcode_insn = tap_insn(d, 0x09);
	d->ir = idcode ? d->idcode_insn : ones(ir_len);
}

static int is(const tap_dev_t *d, uint32_t pl)
{
	return d->kind != TAP_OTHER && d->ir == tap_insn(d, pl);
}

static void reset_dev(tap_dev_t *d)
{
	/* Test-Logic-Reset selects IDCODE (or BYPASS without one). */
	d->ir = d->idcode ? d->idcode_insn : ones(d->ir_len);
}

static void capture_dr(tap_dev_t *d)
{
	int idcode = d->idcode && d->ir == d->idcode_insn;
	if (idcode) {
		d->dr = d->idcode;
		d->dr_len = 32;
	} else if (is(d, 0x04)) { /* CFG_OUT: STAT, MSB first */
		uint32_t stat = (uint32_t)d->done << 14 | 1u << 12, r = 0;
		if (!d->stat_pending)
			stat = 0;
		for (int i = 0; i < 32; i++)
			r |= (stat >> i & 1) << (31 - i);
		d->dr = r;
		d->dr_len = 32;
		d->stat_pending = 0;
	} else { /* BYPASS, CFG_IN and everything else: one bit, captured 0 */
		d->dr = 0;
		d->dr_len = 1;
	}
}

/* A bit into the configuration logic through CFG_IN. */
static void cfg_bit(tap_dev_t *d, int b)
{
	if (d->cfg_session == 1) {
		if (d->ncfg_bits == d->cfg_cap) {
			d->cfg_cap = d->cfg_cap ? d->cfg_cap * 2 : 4096;
			d->cfg_bits = realloc(d->cfg_bits, d->cfg_cap);
		}
		d->cfg_bits[d->ncfg_bits++] = (uint8_t)b;
	}
	if (d->rti_since_program < 10000)
		d->early_data = 1;
	d->word = d->word << 1 | (uint32_t)b;
	if (!d->synced) {
		if (d->word == 0xAA995566u) {
			d->synced = 1;
			d->word_bits = 0;
		}
		return;
	}
	if (++d->word_bits < 32)
		return;
	d->word_bits = 0;
	uint32_t w = d->word;
	if (d->expect_cmd) {
		d->expect_cmd = 0;
		if (w == 5)
			d->start_seen = 1;
		if (w == 0xD)
			d->synced = 0;
	} else if (w == 0x30008001u) {
		d->expect_cmd = 1;
	} else if (w == 0x2800E001u) {
		d->stat_pending = 1;
	}
}

static void update_ir(tap_dev_t *d)
{
	d->ir = d->ir_shift & ones(d->ir_len);
	if (d->ninsn < TAP_LOG)
		d->insn_log[d->ninsn++] = d->ir;
	if (d->kind == TAP_OTHER)
		return;
	if (d->cfg_session == 1)
		d->cfg_session = 2;
	if (is(d, 0x0B)) { /* JPROGRAM */
		d->program_count++;
		d->done = d->start_seen = d->synced = d->jstart = 0;
		d->rti_since_program = 0;
		d->cfg_session = 0;
		d->ncfg_bits = 0;
	} else if (is(d, 0x05) && d->cfg_session == 0 && d->program_count) {
		d->cfg_session = 1;
	} else if (is(d, 0x0C)) { /* JSTART */
		d->jstart = 1;
		d->rti_since_jstart = 0;
	}
}

/* One TCK: returns TDO. */
static int clock(tap_chain_t *c, int tms, int tdi)
{
	c->clocks++;
	int in = tdi;
	if (c->state == S_SHIR || c->state == S_SHDR) {
		for (int i = c->n - 1; i >= 0; i--) {
			tap_dev_t *d = &c->dev[i];
			int out;
			if (c->state == S_SHIR) {
				out = d->ir_shift & 1;
				d->ir_shift = d->ir_shift >> 1 | (uint32_t)in << (d->ir_len - 1);
			} else {
				if (is(d, 0x05))
					cfg_bit(d, in);
				out = (int)(d->dr & 1);
				d->dr = d->dr >> 1 | (uint64_t)in << (d->dr_len - 1);
			}
			in = out;
		}
	}
	int tdo = c->tdo_stuck_low ? 0 : in;
	if (c->state == S_RTI && !tms)
		for (int i = 0; i < c->n; i++) {
			tap_dev_t *d = &c->dev[i];
			d->rti_since_program++;
			if (d->jstart && ++d->rti_since_jstart >= 2000 && d->start_seen)
				d->done = 1;
		}
	c->state = next(c->state, tms);
	for (int i = 0; i < c->n; i++) {
		tap_dev_t *d = &c->dev[i];
		switch (c->state) {
		case S_TLR: reset_dev(d); break;
		case S_CAPIR: d->ir_shift = 0x1 | (uint32_t)d->done << 5; break; /* xx...01 */
		case S_UPIR: update_ir(d); break;
		case S_CAPDR: capture_dr(d); break;
		default: break;
		}
	}
	return tdo;
}

static int model_tms(void *opaque, const uint8_t *tms, size_t nbits, int tdi, vta_error_t *err)
{
	(void)err;
	for (size_t i = 0; i < nbits; i++)
		clock(opaque, tms[i / 8] >> (i % 8) & 1, tdi);
	return VTA_OK;
}

static int model_shift(void *opaque, const uint8_t *tdi, uint8_t *tdo, size_t nbits, int exit,
		       vta_error_t *err)
{
	tap_chain_t *c = opaque;
	if (c->state != S_SHIR && c->state != S_SHDR)
		return vta_error_set(err, VTA_EIO, -1, "model: shift outside Shift-IR/DR (state %d)",
				     c->state);
	for (size_t i = 0; i < nbits; i++) {
		int o = clock(c, exit && i == nbits - 1, tdi[i / 8] >> (i % 8) & 1);
		if (tdo) {
			if (o)
				tdo[i / 8] |= (uint8_t)(1u << (i % 8));
			else
				tdo[i / 8] &= (uint8_t)~(1u << (i % 8));
		}
	}
	return VTA_OK;
}

vta_jtag_cable_t tap_cable(tap_chain_t *c)
{
	vta_jtag_cable_t cable = {c, model_tms, model_shift, NULL, NULL};
	return cable;
}

void tap_free(tap_chain_t *c)
{
	for (int i = 0; i < c->n; i++) {
		free(c->dev[i].cfg_bits);
		c->dev[i].cfg_bits = NULL;
	}
}
