/* SPDX-License-Identifier: Apache-2.0 */
/* XRT's C HAL over the RTL simulation (xrt_model.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xrt_model.h"

static const unsigned char UUID[16] = {0x56, 0x54, 0x41, 0x2d, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

static unsigned m_probe(void *opaque)
{
	(void)opaque;
	return 1;
}

static void *m_open(void *opaque, unsigned index) { return index == 0 ? opaque : NULL; }

static void m_close(void *dev) { (void)dev; }

static int m_open_context(void *dev, const unsigned char uuid[16], unsigned ip)
{
	XrtModel *x = dev;
	if (ip != 0 || memcmp(uuid, UUID, 16))
		return -EINVAL;
	if (x->contexts)
		return -EBUSY; /* exclusive */
	x->contexts++;
	return 0;
}

static void m_close_context(void *dev, const unsigned char uuid[16], unsigned ip)
{
	(void)uuid, (void)ip;
	((XrtModel *)dev)->contexts--;
}

static int m_ip_index(void *dev, const char *name)
{
	(void)dev;
	return strcmp(name, "vta:{vta_1}") ? -ENOENT : 0;
}

static int m_reg_read(void *dev, unsigned ip, uint32_t off, uint32_t *v)
{
	XrtModel *x = dev;
	if (ip != 0 || off % 4)
		return -EINVAL;
	*v = x->rtl.read32(x->rtl.opaque, off);
	return 0;
}

static int m_reg_write(void *dev, unsigned ip, uint32_t off, uint32_t v)
{
	XrtModel *x = dev;
	if (ip != 0 || off % 4)
		return -EINVAL;
	x->rtl.write32(x->rtl.opaque, off, v);
	return 0;
}

static unsigned m_alloc_bo(void *dev, size_t size)
{
	XrtModel *x = dev;
	if (x->bo_live || size > vta_rtlsim_dram_size(x->sim) || !(x->host = calloc(1, size)))
		return 0xFFFFFFFFu;
	x->bo_live = 1;
	x->bo_size = size;
	return 7;
}

static void m_free_bo(void *dev, unsigned bo)
{
	XrtModel *x = dev;
	if (bo == 7 && x->bo_live) {
		free(x->host);
		x->host = NULL;
		x->bo_live = 0;
	}
}

static void *m_map_bo(void *dev, unsigned bo)
{
	XrtModel *x = dev;
	return bo == 7 ? x->host : NULL;
}

static void m_unmap_bo(void *dev, unsigned bo, void *addr) { (void)dev, (void)bo, (void)addr; }

static int m_sync_bo(void *dev, unsigned bo, int to_device, size_t size, size_t off)
{
	XrtModel *x = dev;
	if (x->fail_sync) {
		int e = x->fail_sync;
		x->fail_sync = 0;
		return -e;
	}
	if (bo != 7 || off > x->bo_size || size > x->bo_size - off)
		return -EINVAL;
	uint8_t *dram = vta_rtlsim_dram(x->sim) + off; /* the buffer object is at device address 0 */
	if (to_device)
		memcpy(dram, x->host + off, size), x->syncs_to++;
	else
		memcpy(x->host + off, dram, size), x->syncs_from++;
	return 0;
}

static int m_bo_paddr(void *dev, unsigned bo, uint64_t *pa)
{
	(void)dev;
	*pa = 0;
	return bo == 7 ? 0 : -EINVAL;
}

static int m_wait_irq(void *dev, unsigned ip, int timeout_ms)
{
	XrtModel *x = dev;
	(void)ip;
	return x->rtl.wait_irq(x->rtl.opaque, (uint32_t)timeout_ms * 16);
}

int xrt_model_init(XrtModel *x, size_t dram_bytes)
{
	memset(x, 0, sizeof *x);
	vta_error_t err;
	x->sim = vta_rtlsim_create(dram_bytes, &err);
	if (!x->sim) {
		fprintf(stderr, "xrt model: %s\n", err.msg);
		return -1;
	}
	vta_rtl_mmio(x->sim, &x->rtl);
	x->hal = (struct vta_xrt_hal){
		.opaque = x, .probe = m_probe, .open = m_open, .close = m_close,
		.open_context = m_open_context, .close_context = m_close_context,
		.ip_index = m_ip_index, .reg_read = m_reg_read, .reg_write = m_reg_write,
		.alloc_bo = m_alloc_bo, .free_bo = m_free_bo, .map_bo = m_map_bo,
		.unmap_bo = m_unmap_bo, .sync_bo = m_sync_bo, .bo_paddr = m_bo_paddr,
		.wait_irq = m_wait_irq, .uuid = UUID,
	};
	return 0;
}

void xrt_model_free(XrtModel *x)
{
	free(x->host);
	vta_rtlsim_destroy(x->sim);
	memset(x, 0, sizeof *x);
}
