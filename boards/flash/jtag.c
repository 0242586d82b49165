/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JTAG engine: the IEEE 1149.1 TAP state machine, chain discovery
 * (IDCODEs after Test-Logic-Reset, total IR length), instruction and data
 * scans with the other devices in BYPASS, and the Xilinx configuration
 * sequence of UG470 (7-series, Zynq-7000) and UG570 (UltraScale+):
 * JPROGRAM, CFG_IN + bitstream, JSTART, startup clocks, STAT readback.
 *
 * Chain order: device 0 is nearest TDO (its IDCODE comes out first, and the
 * first bits shifted into IR/DR end up in it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash.h"

enum {
	TLR, RTI, SEL_DR, CAP_DR, SHIFT_DR, EXIT1_DR, PAUSE_DR, EXIT2_DR, UPD_DR,
	SEL_IR, CAP_IR, SHIFT_IR, EXIT1_IR, PAUSE_IR, EXIT2_IR, UPD_IR, NSTATES
};

/* Next state for TMS = 0 and TMS = 1 (IEEE 1149.1 figure 6-1). */
static const unsigned char next_state[NSTATES][2] = {
	[TLR] = {RTI, TLR},           [RTI] = {RTI, SEL_DR},
	[SEL_DR] = {CAP_DR, SEL_IR},  [CAP_DR] = {SHIFT_DR, EXIT1_DR},
	[SHIFT_DR] = {SHIFT_DR, EXIT1_DR}, [EXIT1_DR] = {PAUSE_DR, UPD_DR},
	[PAUSE_DR] = {PAUSE_DR, EXIT2_DR}, [EXIT2_DR] = {SHIFT_DR, UPD_DR},
	[UPD_DR] = {RTI, SEL_DR},     [SEL_IR] = {CAP_IR, TLR},
	[CAP_IR] = {SHIFT_IR, EXIT1_IR}, [SHIFT_IR] = {SHIFT_IR, EXIT1_IR},
	[EXIT1_IR] = {PAUSE_IR, UPD_IR}, [PAUSE_IR] = {PAUSE_IR, EXIT2_IR},
	[EXIT2_IR] = {SHIFT_IR, UPD_IR}, [UPD_IR] = {RTI, SEL_DR},
};

/* Parts we recognise. The version nibble (bits 31:28) is masked for FPGAs. */
static const struct {
	uint32_t id, mask;
	vta_jtag_dev_t dev;
} known[] = {
	{0x03722093u, 0x0FFFFFFFu, {0, "xc7z010", 6, 1, 0}},
	{0x03727093u, 0x0FFFFFFFu, {0, "xc7z020", 6, 1, 0}},
	{0x0372C093u, 0x0FFFFFFFu, {0, "xc7z030", 6, 1, 0}},
	{0x03731093u, 0x0FFFFFFFu, {0, "xc7z045", 6, 1, 0}},
	{0x04711093u, 0x0FFFFFFFu, {0, "xczu2", 12, 1, 1}},
	{0x04710093u, 0x0FFFFFFFu, {0, "xczu3eg", 12, 1, 1}},
	{0x04721093u, 0x0FFFFFFFu, {0, "xczu4", 12, 1, 1}},
	{0x04720093u, 0x0FFFFFFFu, {0, "xczu5", 12, 1, 1}},
	{0x04730093u, 0x0FFFFFFFu, {0, "xczu7", 12, 1, 1}},
	{0x04738093u, 0x0FFFFFFFu, {0, "xczu9", 12, 1, 1}},
	{0x4BA00477u, 0xFFFFFFFFu, {0, "arm-dap", 4, 0, 0}}, /* Zynq-7000 Cortex-A9 DAP */
	{0x5BA00477u, 0xFFFFFFFFu, {0, "arm-dap", 4, 0, 0}}, /* Zynq UltraScale+ DAP */
};

const vta_jtag_dev_t *vta_jtag_known(uint32_t idcode)
{
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if ((idcode & known[i].mask) == known[i].id)
			return &known[i].dev;
	return NULL;
}

static int get_bit(const uint8_t *v, size_t i)
{
	return v[i / 8] >> (i % 8) & 1;
}

static void set_bit(uint8_t *v, size_t i, int b)
{
	if (b)
		v[i / 8] |= (uint8_t)(1u << (i % 8));
	else
		v[i / 8] &= (uint8_t)~(1u << (i % 8));
}

/* Move the TAP to state to along the shortest TMS path (breadth-first). */
static int go(vta_jtag_t *j, int to, vta_error_t *err)
{
	if (j->state == to)
		return VTA_OK;
	int prev[NSTATES], tms_of[NSTATES], queue[NSTATES], head = 0, tail = 0;
	for (int s = 0; s < NSTATES; s++)
		prev[s] = -1;
	prev[j->state] = j->state;
	queue[tail++] = j->state;
	while (head < tail && prev[to] < 0) {
		int s = queue[head++];
		for (int t = 0; t < 2; t++) {
			int n = next_state[s][t];
			if (prev[n] < 0) {
				prev[n] = s;
				tms_of[n] = t;
				queue[tail++] = n;
			}
		}
	}
	int path[NSTATES], len = 0;
	for (int s = to; s != j->state; s = prev[s])
		path[len++] = tms_of[s];
	uint8_t tms[4] = {0};
	for (int i = 0; i < len; i++)
		set_bit(tms, (size_t)i, path[len - 1 - i]);
	int rc = j->cable->tms(j->cable->opaque, tms, (size_t)len, 1, err);
	if (!rc)
		j->state = to;
	return rc;
}

static int reset(vta_jtag_t *j, vta_error_t *err)
{
	static const uint8_t ones = 0x1F;
	int rc = j->cable->tms(j->cable->opaque, &ones, 5, 1, err);
	if (!rc)
		j->state = TLR;
	return rc;
}

/* Shift n bits in Shift-IR/DR and leave through Exit1 to Run-Test/Idle. */
static int shift(vta_jtag_t *j, int shift_state, const uint8_t *tdi, uint8_t *tdo, size_t n,
		 vta_error_t *err)
{
	int rc = go(j, shift_state, err);
	if (rc)
		return rc;
	/* Large scans go in pieces; only the last one leaves the shift state. */
	const size_t piece = (size_t)1 << 20;
	for (size_t off = 0; off < n; off += piece) {
		size_t k = n - off < piece ? n - off : piece;
		int last = off + k == n;
		rc = j->cable->shift(j->cable->opaque, tdi + off / 8, tdo ? tdo + off / 8 : NULL, k,
				     last, err);
		if (rc)
			return rc;
	}
	j->state = shift_state == SHIFT_DR ? EXIT1_DR : EXIT1_IR;
	return go(j, RTI, err);
}

int vta_jtag_idle(vta_jtag_t *j, unsigned n, vta_error_t *err)
{
	int rc = go(j, RTI, err);
	uint8_t zeros[64] = {0};
	while (!rc && n) {
		unsigned k = n < 512 ? n : 512;
		rc = j->cable->tms(j->cable->opaque, zeros, k, 1, err);
		n -= k;
	}
	return rc;
}

int vta_jtag_scan(vta_jtag_t *j, const vta_jtag_cable_t *cable, vta_error_t *err)
{
	memset(j, 0, sizeof *j);
	j->cable = cable;
	j->state = TLR;
	int rc = reset(j, err);
	if (rc)
		return rc;

	/* IDCODEs: after Test-Logic-Reset every DR holds IDCODE (first bit 1) or BYPASS (0). */
	enum { NB = 32 * (VTA_JTAG_MAX_DEVS + 1) };
	uint8_t ones[NB / 8], out[NB / 8];
	memset(ones, 0xFF, sizeof ones);
	if ((rc = shift(j, SHIFT_DR, ones, out, NB, err)))
		return rc;
	size_t pos = 0;
	for (;;) {
		if (j->ndev == VTA_JTAG_MAX_DEVS || pos + 32 > NB)
			return vta_error_set(err, VTA_EIO, -1,
					     "JTAG chain: more than %d devices, or TDO stuck low "
					     "(is the board powered?)", VTA_JTAG_MAX_DEVS);
		if (!get_bit(out, pos)) {
			j->dev[j->ndev++] = (vta_jtag_dev_t){0, "unknown", 0, 0, 0};
			pos++;
			continue;
		}
		uint32_t id = 0;
		for (int b = 0; b < 32; b++)
			id |= (uint32_t)get_bit(out, pos + (size_t)b) << b;
		if (id == 0xFFFFFFFFu)
			break;
		const vta_jtag_dev_t *k = vta_jtag_known(id);
		j->dev[j->ndev] = k ? *k : (vta_jtag_dev_t){0, "unknown", 0, 0, 0};
		j->dev[j->ndev++].idcode = id;
		pos += 32;
	}
	if (j->ndev == 0)
		return vta_error_set(err, VTA_EIO, -1,
				     "JTAG chain: no devices (TDO stuck high: is the board powered "
				     "and the cable on its JTAG header?)");

	/* Total IR length: fill every IR with 0s, then count until a 1 comes out. */
	enum { IRB = 512 };
	uint8_t tdi[IRB / 8], tdo[IRB / 8];
	memset(tdi, 0, IRB / 16);
	memset(tdi + IRB / 16, 0xFF, IRB / 16);
	if ((rc = shift(j, SHIFT_IR, tdi, tdo, IRB, err)))
		return rc;
	j->ir_total = 0;
	for (size_t i = IRB / 2; i < IRB; i++)
		if (get_bit(tdo, i)) {
			j->ir_total = (unsigned)(i - IRB / 2);
			break;
		}
	if (j->ir_total == 0)
		return vta_error_set(err, VTA_EIO, -1, "JTAG chain: cannot measure the IR length "
				     "(TDO never went high after filling the IRs with zeros)");

	/* One device of unknown IR length may take what is left. */
	unsigned sum = 0;
	int unknown = -1, nunknown = 0;
	for (int i = 0; i < j->ndev; i++) {
		sum += j->dev[i].ir_len;
		if (!j->dev[i].ir_len) {
			unknown = i;
			nunknown++;
		}
	}
	if (nunknown == 1 && sum < j->ir_total) {
		j->dev[unknown].ir_len = j->ir_total - sum;
		sum = j->ir_total;
	}
	if (nunknown > 1 || sum != j->ir_total)
		return vta_error_set(err, VTA_EIO, -1,
				     "JTAG chain: the IR is %u bits long, but the %d devices found "
				     "account for %u (%d of unknown length)", j->ir_total, j->ndev,
				     sum, nunknown);
	/* All IRs now hold ones: BYPASS. */
	return go(j, RTI, err);
}

int vta_jtag_find_pl(const vta_jtag_t *j)
{
	for (int i = 0; i < j->ndev; i++)
		if (j->dev[i].is_pl)
			return i;
	return -1;
}

int vta_jtag_ir(vta_jtag_t *j, int d, uint32_t insn, vta_error_t *err)
{
	if (d < 0 || d >= j->ndev)
		return vta_error_set(err, VTA_EINVAL, -1, "no JTAG device %d", d);
	uint8_t v[(VTA_JTAG_MAX_DEVS * 32 + 7) / 8];
	if (j->ir_total > sizeof v * 8)
		return vta_error_set(err, VTA_ERANGE, -1, "IR of %u bits is too long", j->ir_total);
	memset(v, 0xFF, sizeof v);
	size_t off = 0;
	for (int i = 0; i < d; i++)
		off += j->dev[i].ir_len;
	for (unsigned b = 0; b < j->dev[d].ir_len; b++)
		set_bit(v, off + b, (int)(insn >> b & 1));
	if (j->verbose)
		fprintf(stderr, "jtag: IR %d <- 0x%X\n", d, (unsigned)insn);
	return shift(j, SHIFT_IR, v, NULL, j->ir_total, err);
}

int vta_jtag_dr(vta_jtag_t *j, int d, const uint8_t *tdi, uint8_t *tdo, size_t nbits,
		vta_error_t *err)
{
	if (d < 0 || d >= j->ndev)
		return vta_error_set(err, VTA_EINVAL, -1, "no JTAG device %d", d);
	/* Devices nearer TDI delay what reaches d; devices nearer TDO delay what d sends. */
	size_t tdi_side = (size_t)(j->ndev - 1 - d), tdo_side = tdo ? (size_t)d : 0;
	size_t total = nbits + tdi_side + tdo_side;
	uint8_t *in = malloc(total / 8 + 1), *out = tdo ? malloc(total / 8 + 1) : NULL;
	if (!in || (tdo && !out)) {
		free(in);
		free(out);
		return vta_error_set(err, VTA_ENOMEM, -1, "out of memory for a %zu-bit scan", total);
	}
	memset(in, 0xFF, total / 8 + 1);
	if (nbits % 8 == 0)
		memcpy(in, tdi, nbits / 8);
	else
		for (size_t i = 0; i < nbits; i++)
			set_bit(in, i, get_bit(tdi, i));
	int rc = shift(j, SHIFT_DR, in, out, total, err);
	if (!rc && tdo) {
		memset(tdo, 0, (nbits + 7) / 8);
		for (size_t i = 0; i < nbits; i++)
			set_bit(tdo, i, get_bit(out, tdo_side + i));
	}
	free(in);
	free(out);
	return rc;
}

/* The instruction code of a PL instruction on device d. */
static uint32_t pl_insn(const vta_jtag_dev_t *dev, uint32_t insn)
{
	if (!dev->ultrascale)
		return insn;
	return insn == VTA_JTAG_BYPASS ? 0xFFFu : VTA_JTAG_ZU_PL(insn);
}

static uint8_t reverse8(uint8_t b)
{
	b = (uint8_t)((b & 0xF0) >> 4 | (b & 0x0F) << 4);
	b = (uint8_t)((b & 0xCC) >> 2 | (b & 0x33) << 2);
	return (uint8_t)((b & 0xAA) >> 1 | (b & 0x55) << 1);
}

/* Configuration words go MSB first into CFG_IN: reverse the bits of each byte
 * of the big-endian words (un-swapping a byte-swapped .bin first). */
static void pack_words(const uint8_t *data, size_t len, int swapped, uint8_t *out)
{
	for (size_t i = 0; i < len; i++) {
		size_t src = swapped ? (i & ~(size_t)3) + 3 - (i & 3) : i;
		out[i] = reverse8(data[src]);
	}
}

static int send_words(vta_jtag_t *j, int d, const uint32_t *w, size_t n, vta_error_t *err)
{
	uint8_t be[64], bits[64];
	for (size_t i = 0; i < n; i++) {
		be[4 * i] = (uint8_t)(w[i] >> 24);
		be[4 * i + 1] = (uint8_t)(w[i] >> 16);
		be[4 * i + 2] = (uint8_t)(w[i] >> 8);
		be[4 * i + 3] = (uint8_t)w[i];
	}
	pack_words(be, 4 * n, 0, bits);
	return vta_jtag_dr(j, d, bits, NULL, 32 * n, err);
}

/* Read STAT: CFG_IN sync + read packet, CFG_OUT 32 bits, CFG_IN desync. */
static int read_stat(vta_jtag_t *j, int d, uint32_t *stat, vta_error_t *err)
{
	static const uint32_t rd[] = {0xFFFFFFFFu, VTA_BIT_SYNC_WORD, 0x20000000u, 0x2800E001u,
				      0x20000000u, 0x20000000u};
	static const uint32_t desync[] = {0x30008001u, 0x0000000Du, 0x20000000u, 0x20000000u};
	const vta_jtag_dev_t *dev = &j->dev[d];
	uint8_t out[4];
	int rc = vta_jtag_ir(j, d, pl_insn(dev, VTA_JTAG_CFG_IN), err);
	if (!rc)
		rc = send_words(j, d, rd, sizeof rd / sizeof rd[0], err);
	if (!rc)
		rc = vta_jtag_ir(j, d, pl_insn(dev, VTA_JTAG_CFG_OUT), err);
	uint8_t zero[4] = {0};
	if (!rc)
		rc = vta_jtag_dr(j, d, zero, out, 32, err);
	if (rc)
		return rc;
	/* CFG_OUT sends the word MSB first. */
	uint32_t v = 0;
	for (int i = 0; i < 32; i++)
		v |= (uint32_t)get_bit(out, (size_t)i) << (31 - i);
	*stat = v;
	rc = vta_jtag_ir(j, d, pl_insn(dev, VTA_JTAG_CFG_IN), err);
	if (!rc)
		rc = send_words(j, d, desync, sizeof desync / sizeof desync[0], err);
	return rc;
}

/* TCK cycles in Run-Test/Idle after JPROGRAM (the PL clears its memory,
 * UG470 "Clear Configuration Memory") and after JSTART (the startup sequence). */
#define CLEAR_CLOCKS 10000u
#define CLEAR_US 20000u
#define STARTUP_CLOCKS 4000u

int vta_jtag_program(vta_jtag_t *j, int d, const vta_bitfile_t *bf, uint32_t *stat,
		     vta_error_t *err)
{
	if (d < 0 || d >= j->ndev || !j->dev[d].is_pl)
		return vta_error_set(err, VTA_EINVAL, -1, "JTAG device %d is not a Xilinx PL TAP", d);
	const vta_jtag_dev_t *dev = &j->dev[d];
	*stat = 0;
	uint8_t *bits = malloc(bf->len ? bf->len : 1);
	if (!bits)
		return vta_error_set(err, VTA_ENOMEM, -1, "out of memory for %zu bytes", bf->len);
	pack_words(bf->data, bf->len, bf->swapped, bits);

	int rc = vta_jtag_ir(j, d, pl_insn(dev, VTA_JTAG_JPROGRAM), err);
	if (!rc)
		rc = vta_jtag_idle(j, CLEAR_CLOCKS, err);
	if (!rc && j->cable->sleep_us)
		j->cable->sleep_us(j->cable->opaque, CLEAR_US);
	if (!rc)
		rc = vta_jtag_ir(j, d, pl_insn(dev, VTA_JTAG_CFG_IN), err);
	if (!rc)
		rc = vta_jtag_dr(j, d, bits, NULL, bf->len * 8, err);
	free(bits);
	if (!rc)
		rc = vta_jtag_ir(j, d, pl_insn(dev, VTA_JTAG_JSTART), err);
	if (!rc)
		rc = vta_jtag_idle(j, STARTUP_CLOCKS, err);
	if (!rc)
		rc = read_stat(j, d, stat, err);
	if (!rc)
		rc = vta_jtag_ir(j, d, pl_insn(dev, VTA_JTAG_BYPASS), err);
	if (!rc)
		rc = reset(j, err);
	if (rc)
		return rc;
	if (!(*stat & VTA_STAT_DONE))
		return vta_error_set(err, VTA_EIO, -1,
				     "configuration failed: %s STAT register 0x%08X has DONE low "
				     "after %zu bytes and JSTART (wrong or corrupt bitstream?)",
				     dev->name, (unsigned)*stat, bf->len);
	return VTA_OK;
}
