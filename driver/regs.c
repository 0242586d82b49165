/* SPDX-License-Identifier: Apache-2.0 */
/* Control of a VTA device through its register window (driver/regs.h). */
#include "regs.h"

#include <inttypes.h>

#include <vta/vta_regmap.h>

#include "backend.h"
#include "zynq.h"

/* Polls a soft reset may take: it waits for the bursts on the bus (at most
 * 256 beats each) and holds the internal reset 4 cycles, so it ends within a
 * few polls unless the bus never answers. */
#define SOFT_RESET_POLLS 100000u
/* Polls given to one wait for the interrupt before STATUS is read again. */
#define IRQ_WAIT_POLLS 1024u

static uint32_t rd(const struct vta_mmio *m, uint32_t off) { return m->read32(m->opaque, off); }
static void wr(const struct vta_mmio *m, uint32_t off, uint32_t v) { m->write32(m->opaque, off, v); }

static uint64_t rd64(const struct vta_mmio *m, uint32_t off)
{
	uint64_t lo = rd(m, off); /* latches the high word */
	return lo | (uint64_t)rd(m, off + 4) << 32;
}

static void pause(const struct vta_mmio *m)
{
	if (m->pause)
		m->pause(m->opaque);
}

/* Idle, no run, no reset in progress, no error flag, no token left. */
static int is_clean(const struct vta_mmio *m, uint32_t *st, uint32_t *t1, uint32_t *t2)
{
	*st = rd(m, VTA_REG_STATUS);
	*t1 = rd(m, VTA_REG_TOKENS);
	*t2 = rd(m, VTA_REG_TOKENS2);
	return (*st & (VTA_STATUS_RUNNING | VTA_STATUS_RESETTING | VTA_STATUS_ERR_MASK)) == 0 &&
	       (*st & VTA_STATUS_IDLE) && *t1 == 0 && *t2 == 0;
}

int vta_regs_soft_reset(const struct vta_mmio *m, vta_error_t *err)
{
	wr(m, VTA_REG_CONTROL, VTA_CONTROL_SOFT_RESET);
	uint32_t polls = 0;
	while (rd(m, VTA_REG_CONTROL) & VTA_CONTROL_SOFT_RESET) {
		if (++polls == SOFT_RESET_POLLS)
			return vta_error_set(err, VTA_EIO, -1,
					     "the soft reset of the device did not complete within %u polls "
					     "(an AXI burst never completed); reset the programmable logic "
					     "(docs/runtime.md, Recovery)", SOFT_RESET_POLLS);
		pause(m);
	}
	uint32_t st, t1, t2;
	if (!is_clean(m, &st, &t1, &t2) || !(st & VTA_STATUS_RESET_DONE))
		return vta_error_set(err, VTA_EIO, -1,
				     "the device is not idle after a soft reset (STATUS 0x%" PRIX32
				     ", TOKENS 0x%" PRIX32 " 0x%" PRIX32 ")", st, t1, t2);
	return VTA_OK;
}

int vta_regs_prepare(const struct vta_mmio *m, vta_error_t *err)
{
	uint32_t st, t1, t2;
	if (is_clean(m, &st, &t1, &t2))
		return VTA_OK;
	return vta_regs_soft_reset(m, err);
}

static const char *source_name(uint32_t who)
{
	switch (who) {
	case VTA_ERRSRC_FETCH: return "fetch";
	case VTA_ERRSRC_LOAD: return "load";
	case VTA_ERRSRC_COMPUTE: return "compute";
	case VTA_ERRSRC_STORE: return "store";
	case VTA_ERRSRC_TOKEN: return "token queue";
	case VTA_ERRSRC_WATCHDOG: return "watchdog";
	case VTA_ERRSRC_BUSY: return "start while busy";
	default: return "?";
	}
}

/* The error of a run that ended with an error flag in STATUS st. */
static int status_error(const struct vta_mmio *m, uint32_t st, uint64_t dma_pa, size_t dma_size,
			vta_error_t *err)
{
	const char *who = source_name(rd(m, VTA_REG_ERR_INFO));
	uint32_t at = rd(m, VTA_REG_ERR_INSN);
	long idx = at == 0xFFFFFFFFu ? -1 : (long)at;
	if (st & VTA_STATUS_ERR_BUSY)
		return vta_error_set(err, VTA_EIO, -1,
				     "the device refused the start: a run or a soft reset was in progress "
				     "(is another program using it?)");
	if (st & VTA_STATUS_ERR_ILLEGAL)
		return vta_error_set(err, VTA_EILLEGAL, idx,
				     "instruction %ld: the device reports an illegal instruction "
				     "(module %s, STATUS 0x%" PRIX32 ")", idx, who, st);
	if (st & VTA_STATUS_ERR_DRAM) {
		uint64_t a = rd64(m, VTA_REG_ERR_ADDR);
		int inside = a >= dma_pa && a - dma_pa < dma_size;
		return vta_error_set(err, inside ? VTA_EIO : VTA_ERANGE, idx,
				     "instruction %ld: AXI error response at DRAM address 0x%" PRIX64
				     " (module %s), %s the DMA window 0x%" PRIX64 "+0x%zx", idx, a, who,
				     inside ? "inside" : "outside", dma_pa, dma_size);
	}
	if (st & VTA_STATUS_ERR_RANGE)
		return vta_error_set(err, VTA_ERANGE, idx,
				     "instruction %ld: the device reports an SRAM index out of range "
				     "(module %s)", idx, who);
	if (st & VTA_STATUS_ERR_TOKEN)
		return vta_error_set(err, VTA_ETOKEN, idx,
				     "instruction %ld: the device reports a token queue overflow", idx);
	uint32_t t1 = rd(m, VTA_REG_TOKENS), t2 = rd(m, VTA_REG_TOKENS2);
	return vta_error_set(err, VTA_EDEADLOCK, idx,
			     "the device made no progress for %" PRIu32 " cycles: deadlock at "
			     "instruction %ld (tokens l2g=%" PRIu32 " g2l=%" PRIu32 " g2s=%" PRIu32
			     " s2g=%" PRIu32 ")", rd(m, VTA_REG_WATCHDOG), idx, t1 & 0x1FF,
			     (t1 >> 16) & 0x1FF, t2 & 0x1FF, (t2 >> 16) & 0x1FF);
}

int vta_regs_run(const struct vta_mmio *m, uint64_t insn_pa, uint32_t n, uint32_t max_polls,
		 uint64_t dma_pa, size_t dma_size, vta_error_t *err)
{
	/* VTA-SPEC 5.1, the run sequence of the PYNQ driver, with the interrupt */
	wr(m, VTA_REG_FETCH_INSN_COUNT, n);
	wr(m, VTA_REG_FETCH_INSN_ADDR, (uint32_t)insn_pa);
	wr(m, VTA_REG_FETCH_INSN_ADDR_HI, (uint32_t)(insn_pa >> 32));
	static const uint32_t bases[] = {VTA_REG_LOAD_INP_ADDR, VTA_REG_LOAD_WGT_ADDR,
					 VTA_REG_COMPUTE_UOP_ADDR, VTA_REG_COMPUTE_BIAS_ADDR,
					 VTA_REG_STORE_OUT_ADDR};
	for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
		wr(m, bases[i], 0);
		wr(m, bases[i] + 4, 0);
	}
	int irq = m->wait_irq != NULL;
	wr(m, VTA_REG_FETCH_ISR, VTA_IRQ_DONE | VTA_IRQ_ERROR);
	wr(m, VTA_REG_FETCH_IER, VTA_IRQ_DONE | VTA_IRQ_ERROR);
	wr(m, VTA_REG_FETCH_GIE, irq ? VTA_GIE_ENABLE : 0);
	wr(m, VTA_REG_FETCH_CTRL, 0x1);
	wr(m, VTA_REG_LOAD_CTRL, 0x81);
	wr(m, VTA_REG_COMPUTE_CTRL, 0x81);
	wr(m, VTA_REG_STORE_CTRL, 0x81);
	uint32_t left = max_polls, st;
	int rc = VTA_OK;
	for (;;) {
		st = rd(m, VTA_REG_STATUS);
		if (st & VTA_STATUS_ERR_MASK) {
			rc = status_error(m, st, dma_pa, dma_size, err);
			break;
		}
		if (st & VTA_STATUS_DONE)
			break;
		if (!left) {
			rc = vta_error_set(err, VTA_ETIMEOUT, -1,
					   "the device did not finish %" PRIu32 " instructions within %" PRIu32
					   " polls", n, max_polls);
			break;
		}
		if (irq) {
			uint32_t k = left < IRQ_WAIT_POLLS ? left : IRQ_WAIT_POLLS;
			int r = m->wait_irq(m->opaque, k);
			if (r < 0)
				irq = 0; /* no interrupt here: poll */
			else
				left -= r ? 1 : k;
		} else {
			left--;
			pause(m);
		}
	}
	wr(m, VTA_REG_FETCH_ISR, VTA_IRQ_DONE | VTA_IRQ_ERROR); /* irq low again */
	return rc;
}

void vta_regs_counters(const struct vta_mmio *m, vta_counters_t *c)
{
	vta_counters_t r = {0};
	r.cycles = rd64(m, VTA_REG_CNT_CYCLES);
	r.gemm_uops = rd64(m, VTA_REG_CNT_GEMM_UOPS);
	r.gemm_reset_uops = rd64(m, VTA_REG_CNT_RESET_UOPS);
	r.alu_uops = rd64(m, VTA_REG_CNT_ALU_UOPS);
	r.bytes_written = rd64(m, VTA_REG_CNT_DMA_WR_BYTES);
	for (unsigned k = 0; k < 8; k++) {
		r.insns[k] = rd64(m, VTA_REG_CNT_INSNS_LOAD + 8 * k);
		r.bytes_read[k] = rd64(m, VTA_REG_CNT_RD_UOP + 8 * k);
	}
	r.insn_bytes_read = 16 * rd64(m, VTA_REG_CNT_INSNS);
	/* cycles each module waited for a token (the golden model counts waiting
	 * instructions instead) */
	r.token_waits[VTA_Q_G2L] = rd64(m, VTA_REG_CNT_LOAD_WAIT);
	r.token_waits[VTA_Q_L2G] = rd64(m, VTA_REG_CNT_COMPUTE_WAIT);
	r.token_waits[VTA_Q_G2S] = rd64(m, VTA_REG_CNT_STORE_WAIT);
	r.busy[VTA_BUSY_LOAD] = rd64(m, VTA_REG_CNT_LOAD_BUSY);
	r.busy[VTA_BUSY_GEMM] = rd64(m, VTA_REG_CNT_GEMM_BUSY);
	r.busy[VTA_BUSY_ALU] = rd64(m, VTA_REG_CNT_ALU_BUSY);
	r.busy[VTA_BUSY_STORE] = rd64(m, VTA_REG_CNT_STORE_BUSY);
	vta_counters_add(c, &r);
}
