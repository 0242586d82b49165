/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Backend "xrt": VTA in an xclbin, driven through Xilinx XRT's C HAL
 * (Debian's libxrt-dev; headers under /usr/include/xrt): PYNQ images with
 * XRT and zocl, or a card.
 *
 *   device     xclProbe / xclOpen (VTA_XRT_DEVICE, default 0); the xclbin of
 *              VTA_XRT_XCLBIN is checked and loaded, and an exclusive context
 *              opened on the IP VTA_XRT_IP (default "vta:{vta_1}"), so a
 *              second process is refused by XRT
 *   registers  xclRegRead / xclRegWrite on that IP, the same register map and
 *              run code as the zynq backend (driver/regs.c); the interrupt
 *              through xclOpenIPInterruptNotify
 *   memory     one cacheable buffer object (VTA_XRT_DMA_MB, default 64) is the
 *              DMA window: mapped with xclMapBO, its device address from
 *              xclGetBOProperties, and synced with xclSyncBO around every run
 *              (the runtime asks for exactly the touched ranges)
 *
 * XRT is loaded at run time (dlopen of libxrt_core), so neither libvta nor
 * its users link against it; a machine without XRT or without a device is
 * told so by `vta info`. The calls go through struct vta_xrt_hal
 * (driver/xrt_hal.h), which the tests fill with a model over the RTL.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xrt.h>
#include <experimental/xrt-next.h>

#include <vta/util.h>
#include <vta/vta_regmap.h>

#include "backend.h"
#include "regs.h"
#include "xrt_hal.h"
#include "zynq.h"

/* ---- XRT's C HAL, loaded at run time ------------------------------------- */

static const char *const LIBS[] = {"libxrt_core.so.2", "libxrt_core.so"};

typedef struct {
	void *lib;
	__typeof__(&xclProbe) probe;
	__typeof__(&xclOpen) open;
	__typeof__(&xclClose) close;
	__typeof__(&xclLoadXclBin) load;
	__typeof__(&xclOpenContext) open_ctx;
	__typeof__(&xclCloseContext) close_ctx;
	__typeof__(&xclIPName2Index) ip_index;
	__typeof__(&xclRegRead) reg_read;
	__typeof__(&xclRegWrite) reg_write;
	__typeof__(&xclAllocBO) alloc_bo;
	__typeof__(&xclFreeBO) free_bo;
	__typeof__(&xclMapBO) map_bo;
	__typeof__(&xclUnmapBO) unmap_bo;
	__typeof__(&xclSyncBO) sync_bo;
	__typeof__(&xclGetBOProperties) bo_props;
	__typeof__(&xclOpenIPInterruptNotify) open_irq;
	__typeof__(&xclCloseIPInterruptNotify) close_irq;
} Xrt;

/* Load libxrt_core and its entry points; 0, or the reason in why. */
static int xrt_load(Xrt *x, char *why, size_t n)
{
	memset(x, 0, sizeof *x);
	for (size_t i = 0; !x->lib && i < sizeof LIBS / sizeof LIBS[0]; i++)
		x->lib = dlopen(LIBS[i], RTLD_NOW | RTLD_LOCAL);
	if (!x->lib) {
		snprintf(why, n, "XRT's runtime library is not installed (libxrt_core.so.2: install "
			 "the libxrt1 package)");
		return VTA_EUNSUPPORTED;
	}
	struct {
		const char *name;
		void *slot;
	} syms[] = {
		{"xclProbe", &x->probe}, {"xclOpen", &x->open}, {"xclClose", &x->close},
		{"xclLoadXclBin", &x->load}, {"xclOpenContext", &x->open_ctx},
		{"xclCloseContext", &x->close_ctx}, {"xclIPName2Index", &x->ip_index},
		{"xclRegRead", &x->reg_read}, {"xclRegWrite", &x->reg_write},
		{"xclAllocBO", &x->alloc_bo}, {"xclFreeBO", &x->free_bo}, {"xclMapBO", &x->map_bo},
		{"xclUnmapBO", &x->unmap_bo}, {"xclSyncBO", &x->sync_bo},
		{"xclGetBOProperties", &x->bo_props},
		{"xclOpenIPInterruptNotify", &x->open_irq},
		{"xclCloseIPInterruptNotify", &x->close_irq},
	};
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *p = dlsym(x->lib, syms[i].name);
		if (!p) {
			snprintf(why, n, "XRT's library has no %s (XRT 2.13 or newer is needed)",
				 syms[i].name);
			dlclose(x->lib);
			x->lib = NULL;
			return VTA_EUNSUPPORTED;
		}
		memcpy(syms[i].slot, &p, sizeof p);
	}
	return VTA_OK;
}

/* The real HAL: the table's calls on a loaded Xrt (opaque). A device is
 * {xrt, handle, irq fd}. */
typedef struct {
	Xrt *x;
	xclDeviceHandle h;
	int irq; /* fd, or -1 */
} RealDev;

static unsigned real_probe(void *opaque) { return ((Xrt *)opaque)->probe(); }

static void *real_open(void *opaque, unsigned index)
{
	Xrt *x = opaque;
	RealDev *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->x = x;
	d->irq = -1;
	d->h = x->open(index, NULL, XCL_QUIET);
	if (!d->h) {
		free(d);
		return NULL;
	}
	return d;
}

static void real_close(void *dev)
{
	RealDev *d = dev;
	if (d->irq >= 0)
		d->x->close_irq(d->h, d->irq);
	d->x->close(d->h);
	free(d);
}

static int real_load(void *dev, const void *axlf)
{
	RealDev *d = dev;
	return d->x->load(d->h, axlf);
}

static int real_open_context(void *dev, const unsigned char uuid[16], unsigned ip)
{
	RealDev *d = dev;
	int rc = d->x->open_ctx(d->h, uuid, ip, false);
	if (!rc) {
		int fd = d->x->open_irq(d->h, ip, 0);
		d->irq = fd >= 0 ? fd : -1;
	}
	return rc;
}

static void real_close_context(void *dev, const unsigned char uuid[16], unsigned ip)
{
	RealDev *d = dev;
	d->x->close_ctx(d->h, uuid, ip);
}

static int real_ip_index(void *dev, const char *name)
{
	RealDev *d = dev;
	return d->x->ip_index(d->h, name);
}

static int real_reg_read(void *dev, unsigned ip, uint32_t off, uint32_t *v)
{
	RealDev *d = dev;
	return d->x->reg_read(d->h, ip, off, v);
}

static int real_reg_write(void *dev, unsigned ip, uint32_t off, uint32_t v)
{
	RealDev *d = dev;
	return d->x->reg_write(d->h, ip, off, v);
}

static unsigned real_alloc_bo(void *dev, size_t size)
{
	RealDev *d = dev;
	return d->x->alloc_bo(d->h, size, 0, XCL_BO_FLAGS_CACHEABLE);
}

static void real_free_bo(void *dev, unsigned bo)
{
	RealDev *d = dev;
	d->x->free_bo(d->h, bo);
}

static void *real_map_bo(void *dev, unsigned bo)
{
	RealDev *d = dev;
	return d->x->map_bo(d->h, bo, true);
}

static void real_unmap_bo(void *dev, unsigned bo, void *addr)
{
	RealDev *d = dev;
	d->x->unmap_bo(d->h, bo, addr);
}

static int real_sync_bo(void *dev, unsigned bo, int to_device, size_t size, size_t offset)
{
	RealDev *d = dev;
	return d->x->sync_bo(d->h, bo, to_device ? XCL_BO_SYNC_BO_TO_DEVICE : XCL_BO_SYNC_BO_FROM_DEVICE,
			     size, offset);
}

static int real_bo_paddr(void *dev, unsigned bo, uint64_t *pa)
{
	RealDev *d = dev;
	struct xclBOProperties p;
	int rc = d->x->bo_props(d->h, bo, &p);
	*pa = p.paddr;
	return rc;
}

static int real_wait_irq(void *dev, unsigned ip, int timeout_ms)
{
	(void)ip;
	RealDev *d = dev;
	if (d->irq < 0)
		return -1;
	int one = 1;
	if (write(d->irq, &one, sizeof one) != (ssize_t)sizeof one) /* enable, as with UIO */
		return -1;
	struct pollfd p = {d->irq, POLLIN, 0};
	int r = poll(&p, 1, timeout_ms);
	if (r > 0) {
		int count;
		if (read(d->irq, &count, sizeof count) < 0)
			return -1;
		return 1;
	}
	return r == 0 ? 0 : -1;
}

/* ---- The backend ------------------------------------------------------------ */

#define NULL_BO 0xFFFFFFFFu

typedef struct {
	Xrt xrt;                       /* the loaded library (real HAL) */
	struct vta_xrt_hal real;
	const struct vta_xrt_hal *hal; /* real or the seam */
	void *dev;
	unsigned ip;
	int have_ctx;
	unsigned char uuid[16];
	unsigned bo;
	struct vta_mmio m;             /* the registers, for driver/regs.c */
	int reg_error;                 /* a register access failed (errno) */
	char ip_name[64];
} XrtDev;

static const char *env_or(const char *name, const char *dflt)
{
	const char *s = getenv(name);
	return s && *s ? s : dflt;
}

static void fill_real(XrtDev *z)
{
	z->real = (struct vta_xrt_hal){&z->xrt,       real_probe,    real_open,     real_close,
				       real_load,     real_open_context, real_close_context,
				       real_ip_index, real_reg_read, real_reg_write, real_alloc_bo,
				       real_free_bo,  real_map_bo,   real_unmap_bo, real_sync_bo,
				       real_bo_paddr, real_wait_irq, NULL};
}

static int xrt_probe(char *why, size_t n)
{
	Xrt x;
	int rc = xrt_load(&x, why, n);
	if (rc)
		return rc;
	unsigned count = x.probe();
	dlclose(x.lib);
	if (count == 0) {
		snprintf(why, n, "XRT is installed but found no device (xclProbe: 0 devices)");
		return VTA_EIO;
	}
	if (!getenv("VTA_XRT_XCLBIN") || !*getenv("VTA_XRT_XCLBIN")) {
		snprintf(why, n, "XRT found %u device%s; set VTA_XRT_XCLBIN to the VTA .xclbin", count,
			 count == 1 ? "" : "s");
		return VTA_EINVAL;
	}
	return VTA_OK;
}

static uint32_t x_read32(void *opaque, uint32_t off)
{
	XrtDev *z = opaque;
	uint32_t v = 0;
	int rc = z->hal->reg_read(z->dev, z->ip, off, &v);
	if (rc && !z->reg_error)
		z->reg_error = rc;
	return v;
}

static void x_write32(void *opaque, uint32_t off, uint32_t v)
{
	XrtDev *z = opaque;
	int rc = z->hal->reg_write(z->dev, z->ip, off, v);
	if (rc && !z->reg_error)
		z->reg_error = rc;
}

static void x_pause(void *opaque)
{
	(void)opaque;
	struct timespec ts = {0, 1000};
	nanosleep(&ts, NULL);
}

/* One poll interval is about 1 us: the wait is at least a millisecond. */
static int x_wait_irq(void *opaque, uint32_t polls)
{
	XrtDev *z = opaque;
	return z->hal->wait_irq ? z->hal->wait_irq(z->dev, z->ip, (int)(polls / 1000 + 1)) : -1;
}

/* Check and load the xclbin of VTA_XRT_XCLBIN; its UUID into z->uuid. */
static int load_xclbin(XrtDev *z, vta_error_t *err)
{
	const char *path = env_or("VTA_XRT_XCLBIN", NULL);
	if (!path)
		return vta_error_set(err, VTA_EINVAL, -1, "set VTA_XRT_XCLBIN to the VTA .xclbin");
	uint8_t *buf;
	size_t len;
	int rc = vta_read_file(path, &buf, &len, err);
	if (rc)
		return rc;
	const struct axlf *a = (const struct axlf *)buf;
	if (len < sizeof *a || memcmp(a->m_magic, "xclbin2", 8) || a->m_header.m_length != len)
		rc = vta_error_set(err, VTA_EINVAL, -1, "%s is not an xclbin (bad magic or length)",
				   path);
	else if ((rc = z->hal->load_xclbin(z->dev, a)) != 0)
		rc = vta_error_set(err, VTA_EIO, -1, "XRT could not load %s: %s", path, strerror(-rc));
	else
		memcpy(z->uuid, a->m_header.uuid, 16);
	free(buf);
	return rc;
}

static void xrt_close(vta_dev_t *dev)
{
	XrtDev *z = dev->priv;
	if (!z->dev)
		return;
	if (dev->dram_va)
		z->hal->unmap_bo(z->dev, z->bo, dev->dram_va);
	if (z->bo != NULL_BO)
		z->hal->free_bo(z->dev, z->bo);
	if (z->have_ctx)
		z->hal->close_context(z->dev, z->uuid, z->ip);
	z->hal->close(z->dev);
	z->dev = NULL;
	if (z->xrt.lib)
		dlclose(z->xrt.lib);
}

static int xrt_open(vta_dev_t *dev, vta_error_t *err)
{
	XrtDev *z = dev->priv;
	z->bo = NULL_BO;
	char why[256];
	int rc;
	if (dev->seam) {
		z->hal = dev->seam;
	} else {
		if ((rc = xrt_load(&z->xrt, why, sizeof why)))
			return vta_error_set(err, rc, -1, "%s", why);
		fill_real(z);
		z->hal = &z->real;
	}
	unsigned index = (unsigned)strtoul(env_or("VTA_XRT_DEVICE", "0"), NULL, 10);
	unsigned count = z->hal->probe(z->hal->opaque);
	if (index >= count) {
		rc = vta_error_set(err, VTA_EIO, -1, "XRT has %u device%s; VTA_XRT_DEVICE=%u", count,
				   count == 1 ? "" : "s", index);
		goto fail;
	}
	if (!(z->dev = z->hal->open(z->hal->opaque, index))) {
		rc = vta_error_set(err, VTA_EIO, -1, "XRT could not open device %u", index);
		goto fail;
	}
	if (z->hal->load_xclbin) {
		if ((rc = load_xclbin(z, err)))
			goto fail;
	} else {
		memcpy(z->uuid, z->hal->uuid, 16);
	}
	snprintf(z->ip_name, sizeof z->ip_name, "%s", env_or("VTA_XRT_IP", "vta:{vta_1}"));
	int ip = z->hal->ip_index(z->dev, z->ip_name);
	if (ip < 0) {
		rc = vta_error_set(err, VTA_EIO, -1, "the loaded xclbin has no IP \"%s\" (VTA_XRT_IP)",
				   z->ip_name);
		goto fail;
	}
	z->ip = (unsigned)ip;
	if ((rc = z->hal->open_context(z->dev, z->uuid, z->ip))) {
		rc = vta_error_set(err, VTA_EIO, -1, "XRT refused an exclusive context on IP \"%s\" (%s): "
				   "another process holds it", z->ip_name, strerror(rc < 0 ? -rc : rc));
		goto fail;
	}
	z->have_ctx = 1;
	size_t size = (size_t)strtoul(env_or("VTA_XRT_DMA_MB", "64"), NULL, 10) << 20;
	if (size < (1u << 20) || size > ((size_t)1 << 31))
		size = (size_t)64 << 20;
	uint64_t pa = 0;
	if ((z->bo = z->hal->alloc_bo(z->dev, size)) == NULL_BO ||
	    !(dev->dram_va = z->hal->map_bo(z->dev, z->bo)) || z->hal->bo_paddr(z->dev, z->bo, &pa)) {
		rc = vta_error_set(err, VTA_ENOMEM, -1, "XRT could not allocate and map a %zu MiB buffer "
				   "object for the DMA window (VTA_XRT_DMA_MB)", size >> 20);
		goto fail;
	}
	dev->dram_pa = pa;
	dev->dram_size = size;
	dev->dram_first = pa ? 0 : 4096;
	dev->coherent = 0; /* buffer objects are synced explicitly */
	dev->reg_base = 0; /* XRT addresses registers by IP, from 0 */
	dev->reg_size = VTA_REG_WINDOW_BYTES;
	z->m = (struct vta_mmio){.opaque = z, .read32 = x_read32, .write32 = x_write32,
				 .pause = x_pause, .wait_irq = x_wait_irq, .dma_va = dev->dram_va,
				 .dma_pa = pa, .dma_size = size};
	return VTA_OK;
fail:
	xrt_close(dev);
	return rc;
}

static int xrt_identify(vta_dev_t *dev, uint32_t *config_id, uint32_t *version, vta_error_t *err)
{
	XrtDev *z = dev->priv;
	*config_id = x_read32(z, VTA_REG_CONFIG_ID);
	*version = x_read32(z, VTA_REG_HW_VERSION);
	if (z->reg_error)
		return vta_error_set(err, VTA_EIO, -1, "XRT could not read the registers of IP \"%s\": %s",
				     z->ip_name, strerror(z->reg_error < 0 ? -z->reg_error : z->reg_error));
	return VTA_OK;
}

static int reg_failure(XrtDev *z, vta_error_t *err)
{
	int e = z->reg_error;
	z->reg_error = 0;
	return vta_error_set(err, VTA_EIO, -1, "an XRT register access to IP \"%s\" failed: %s",
			     z->ip_name, strerror(e < 0 ? -e : e));
}

static int xrt_run(vta_dev_t *dev, uint64_t insn_pa, uint32_t n, uint32_t wait_cycles,
		   vta_error_t *err)
{
	XrtDev *z = dev->priv;
	int rc = vta_regs_prepare(&z->m, err);
	if (!rc) {
		vta_io_barrier();
		rc = vta_regs_run(&z->m, insn_pa, n, wait_cycles, dev->dram_pa, dev->dram_size, err);
	}
	return !rc && z->reg_error ? reg_failure(z, err) : rc;
}

static int xrt_recover(vta_dev_t *dev, vta_error_t *err)
{
	XrtDev *z = dev->priv;
	int rc = vta_regs_soft_reset(&z->m, err);
	return !rc && z->reg_error ? reg_failure(z, err) : rc;
}

static int sync_bo(vta_dev_t *dev, size_t off, size_t n, int to_device, vta_error_t *err)
{
	XrtDev *z = dev->priv;
	int rc = z->hal->sync_bo(z->dev, z->bo, to_device, n, off);
	if (rc)
		return vta_error_set(err, VTA_EIO, -1, "xclSyncBO %s of bytes %zu+%zu failed: %s",
				     to_device ? "to the device" : "from the device", off, n,
				     strerror(rc < 0 ? -rc : rc));
	return VTA_OK;
}

static int xrt_flush(vta_dev_t *dev, size_t off, size_t n, int written_by_device, vta_error_t *err)
{
	(void)written_by_device; /* XRT's sync to the device writes back and invalidates */
	return sync_bo(dev, off, n, 1, err);
}

static int xrt_invalidate(vta_dev_t *dev, size_t off, size_t n, vta_error_t *err)
{
	return sync_bo(dev, off, n, 0, err);
}

static void xrt_counters(vta_dev_t *dev, vta_counters_t *c)
{
	XrtDev *z = dev->priv;
	vta_regs_counters(&z->m, c);
}

static void xrt_describe(vta_dev_t *dev, char *buf, size_t n)
{
	XrtDev *z = dev->priv;
	snprintf(buf, n, "XRT%s IP \"%s\", buffer object of %zu MiB at 0x%" PRIX64 ", synced around "
		 "every run", dev->seam ? " (test seam)" : "", z->ip_name, dev->dram_size >> 20,
		 dev->dram_pa);
}

static uint32_t xrt_reg_read(vta_dev_t *dev, uint32_t off) { return x_read32(dev->priv, off); }

static void xrt_reg_write(vta_dev_t *dev, uint32_t off, uint32_t val) { x_write32(dev->priv, off, val); }

const vta_backend_t vta_backend_xrt = {
	.name = "xrt",
	.summary = "VTA in an xclbin through Xilinx XRT (libxrt_core at run time)",
	.priv_size = sizeof(XrtDev),
	.probe = xrt_probe,
	.open = xrt_open,
	.close = xrt_close,
	.identify = xrt_identify,
	.run = xrt_run,
	.recover = xrt_recover,
	.flush = xrt_flush,
	.invalidate = xrt_invalidate,
	.counters = xrt_counters,
	.describe = xrt_describe,
	.reg_read = xrt_reg_read,
	.reg_write = xrt_reg_write,
};
