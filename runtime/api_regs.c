/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TVM's register mapping API (<vta/pynq_driver.h>): handles on the register
 * window of the calling thread's device, and the check of every run started
 * through them.
 *
 * On a board a handle is the CPU address of the mapped register, so code
 * that dereferences it works as with TVM; elsewhere it is an address the
 * library allocated. Either way reads and writes go through the backend,
 * which is what lets a write to the start register be checked first (a
 * refused start leaves done reading 0, so that a polling program does not
 * take the last run's done flag for its own). The live handles are a
 * process-wide list (the API gives them no owner).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>

#include <vta/pynq_driver.h>

#include "api.h"

typedef struct Map {
	void *handle;
	RtDev *dev;   /* holds a reference */
	uint32_t off; /* of the handle in the register window */
	void *cell;   /* the allocation behind handle, where there is no real mapping */
	struct Map *next;
} Map;

static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static Map *maps;

void *VTAMapRegister(uint32_t addr, ...)
{
	vta_context_t *ctx = api_current();
	if (!ctx)
		return NULL;
	RtDev *d = ctx_dev(ctx);
	vta_dev_t *dev = rtdev_dev(d);
	if (!dev->be->reg_read || !dev->reg_size) {
		ctx_error(ctx, VTA_EUNSUPPORTED, "VTAMapRegister: the %s device has no registers",
			 dev->be->name);
		return NULL;
	}
	if (addr < dev->reg_base || addr - dev->reg_base >= dev->reg_size) {
		ctx_error(ctx, VTA_ERANGE, "VTAMapRegister: 0x%08" PRIX32 " is not in the %s device's "
			 "register window 0x%08" PRIX64 "..0x%08" PRIX64, addr, dev->be->name,
			 dev->reg_base, dev->reg_base + dev->reg_size - 1);
		return NULL;
	}
	volatile uint32_t *regs = dev->be->reg_ptr ? dev->be->reg_ptr(dev) : NULL;
	Map *m = calloc(1, sizeof *m);
	void *cell = regs ? NULL : malloc(1);
	if (!m || (!regs && !cell)) {
		free(cell);
		free(m);
		ctx_error(ctx, VTA_ENOMEM, "VTAMapRegister: out of host memory");
		return NULL;
	}
	m->off = (uint32_t)(addr - dev->reg_base);
	m->cell = cell;
	m->handle = regs ? (void *)((volatile uint8_t *)regs + m->off) : cell;
	m->dev = rtdev_ref(d); /* the handle keeps the device open, as a buffer does */
	pthread_mutex_lock(&maps_lock);
	m->next = maps;
	maps = m;
	pthread_mutex_unlock(&maps_lock);
	return m->handle;
}

/* The mapping of handle h, or NULL with an error naming fn. */
static Map *find(const void *h, const char *fn)
{
	pthread_mutex_lock(&maps_lock);
	Map *m = maps;
	while (m && m->handle != h)
		m = m->next;
	pthread_mutex_unlock(&maps_lock);
	if (!m)
		api_error(VTA_EINVAL, "%s: %p is not a handle from VTAMapRegister", fn, h);
	return m;
}

void VTAUnmapRegister(void *vta, ...)
{
	pthread_mutex_lock(&maps_lock);
	Map **pp = &maps;
	while (*pp && (*pp)->handle != vta)
		pp = &(*pp)->next;
	Map *m = *pp;
	if (m)
		*pp = m->next;
	pthread_mutex_unlock(&maps_lock);
	if (!m) {
		api_error(VTA_EINVAL, "VTAUnmapRegister: %p is not a handle from VTAMapRegister",
			 vta);
		return;
	}
	rtdev_release(m->dev);
	free(m->cell);
	free(m);
}

static int in_window(const Map *m, uint32_t offset, const char *fn)
{
	const vta_dev_t *dev = rtdev_dev(m->dev);
	if (offset % 4 || offset >= dev->reg_size - m->off) {
		api_error(VTA_ERANGE, "%s: offset 0x%" PRIX32 " from 0x%08" PRIX64 " is outside the "
			 "register window or not 4-byte aligned", fn, offset, dev->reg_base + m->off);
		return 0;
	}
	return 1;
}

static uint64_t reg64(vta_dev_t *dev, uint32_t lo)
{
	return dev->be->reg_read(dev, lo) | (uint64_t)dev->be->reg_read(dev, lo + 4) << 32;
}

void VTAWriteMappedReg(void *base_addr, uint32_t offset, uint32_t val)
{
	Map *m = find(base_addr, "VTAWriteMappedReg");
	if (!m || !in_window(m, offset, "VTAWriteMappedReg"))
		return;
	vta_dev_t *dev = rtdev_dev(m->dev);
	uint32_t reg = m->off + offset;
	rtdev_lock(m->dev);
	if (reg == VTA_REG_FETCH_CTRL && (val & 1)) {
		/* A start: check the stream the registers describe, with the base
		 * registers the program wrote, and flush what it touches. */
		vta_bases_t b = {reg64(dev, VTA_REG_COMPUTE_UOP_ADDR), reg64(dev, VTA_REG_LOAD_INP_ADDR),
				 reg64(dev, VTA_REG_LOAD_WGT_ADDR), reg64(dev, VTA_REG_COMPUTE_BIAS_ADDR),
				 reg64(dev, VTA_REG_STORE_OUT_ADDR)};
		uint64_t insn = reg64(dev, VTA_REG_FETCH_INSN_ADDR);
		uint32_t n = dev->be->reg_read(dev, VTA_REG_FETCH_INSN_COUNT);
		vta_error_t err;
		vta_error_clear(&err);
		int refused = rtdev_prepare_raw(m->dev, insn, n, &b, &err) != 0;
		rtdev_start_refused(m->dev, refused);
		if (refused) {
			rtdev_unlock(m->dev);
			api_error_from("VTAWriteMappedReg: the run was not started", &err);
			return;
		}
		vta_io_barrier();
	}
	dev->be->reg_write(dev, reg, val);
	rtdev_unlock(m->dev);
}

uint32_t VTAReadMappedReg(void *base_addr, uint32_t offset)
{
	Map *m = find(base_addr, "VTAReadMappedReg");
	if (!m || !in_window(m, offset, "VTAReadMappedReg"))
		return 0;
	vta_dev_t *dev = rtdev_dev(m->dev);
	rtdev_lock(m->dev);
	uint32_t reg = m->off + offset;
	uint32_t v = dev->be->reg_read(dev, reg);
	/* A refused start did not clear the last run's done flag: do not let a
	 * program polling it believe its stream ran. */
	if (reg == VTA_REG_COMPUTE_DONE && rtdev_start_refused(m->dev, -1))
		v = 0;
	rtdev_unlock(m->dev);
	return v;
}
