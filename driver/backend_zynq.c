/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Backend "zynq": a VTA bitstream on a PYNQ-Z1/Z2 or Ultra96 board.
 *
 * Registers: the AXI4-Lite window of docs/registers.md (vta_regmap.h),
 * mapped through the UIO device whose name contains "vta" (or
 * $VTA_ZYNQ_UIO), else through /dev/mem at the board's base address.
 * DMA memory: one u-dma-buf region ($VTA_ZYNQ_UDMABUF, default udmabuf0),
 * physically contiguous, with explicit cache maintenance through its sysfs
 * sync_for_device / sync_for_cpu files when it is mapped cached.
 *
 * All register traffic goes through a struct vta_mmio (driver/zynq.h), so
 * tests run this exact code against the RTL simulation. Runs, the idle check,
 * the interrupt wait and the soft reset after an error are driver/regs.c.
 * Interrupts: through the UIO device (read/poll on /dev/uioN, re-enabled by
 * writing 1); with /dev/mem there is none and the run polls.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <vta/vta_boards.h>
#include <vta/vta_config.h>
#include <vta/vta_regmap.h>

#include "backend.h"
#include "regs.h"
#include "zynq.h"

typedef struct {
	struct vta_mmio board; /* used when dev->mmio is NULL */
	volatile uint32_t *regs;
	size_t regs_len;
	int uio_fd; /* the UIO device, for its interrupt; -1 with /dev/mem */
	int udma_fd;
	char udma_name[64];
	int cached;
} ZynqDev;

static const struct vta_mmio *mmio_of(vta_dev_t *dev)
{
	return dev->mmio ? dev->mmio : &((ZynqDev *)dev->priv)->board;
}

static uint32_t rd(vta_dev_t *dev, uint32_t off)
{
	const struct vta_mmio *m = mmio_of(dev);
	return m->read32(m->opaque, off);
}

/* ---- The board: UIO or /dev/mem, u-dma-buf ------------------------------ */

static uint32_t board_read32(void *opaque, uint32_t off)
{
	ZynqDev *z = opaque;
	return z->regs[off / 4];
}

static void board_write32(void *opaque, uint32_t off, uint32_t val)
{
	ZynqDev *z = opaque;
	z->regs[off / 4] = val;
}

static void board_pause(void *opaque)
{
	(void)opaque;
	struct timespec ts = {0, 1000};
	nanosleep(&ts, NULL);
}

/* The UIO interrupt: re-enable it (write 1), wait up to polls microseconds
 * (at least 1 ms) for it, and take its count. -1 when UIO cannot do it. */
static int board_wait_irq(void *opaque, uint32_t polls)
{
	ZynqDev *z = opaque;
	uint32_t one = 1, count;
	if (write(z->uio_fd, &one, sizeof one) != (ssize_t)sizeof one)
		return -1;
	struct pollfd p = {z->uio_fd, POLLIN, 0};
	int ms = polls < 1000 ? 1 : (int)(polls / 1000);
	int r = poll(&p, 1, ms);
	if (r < 0)
		return errno == EINTR ? 0 : -1;
	if (r == 0)
		return 0;
	return read(z->uio_fd, &count, sizeof count) == (ssize_t)sizeof count ? 1 : -1;
}

/* The register base of the board's block design, from the board table
 * (boards/boards.txt): the board named by VTA_BOARD, else the one for this
 * configuration's target; VTA_ZYNQ_REG_BASE overrides both. */
static int board_reg_base(uint64_t *base, vta_error_t *err)
{
	const char *s = getenv("VTA_ZYNQ_REG_BASE");
	if (s && *s) {
		*base = strtoull(s, NULL, 0);
		return VTA_OK;
	}
	const char *name = getenv("VTA_BOARD");
	const vta_board_t *b = name && *name ? vta_board_find(name) : vta_board_for_target(VTA_TARGET);
	if (!b)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "VTA_BOARD=%s is not a board of boards/boards.txt", name ? name : "");
	*base = b->reg_base;
	return VTA_OK;
}

static int read_sysfs(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t k = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[k] = 0;
	return 0;
}

static int write_sysfs(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int ok = fputs(val, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* Find /dev/uioN for the VTA registers: $VTA_ZYNQ_UIO or a name with "vta". */
static int find_uio(char *dev, size_t n)
{
	const char *env = getenv("VTA_ZYNQ_UIO");
	if (env && *env) {
		snprintf(dev, n, "%s", env);
		return 0;
	}
	DIR *d = opendir("/sys/class/uio");
	if (!d)
		return -1;
	struct dirent *e;
	int found = -1;
	while ((e = readdir(d)) && found) {
		char path[320], name[64];
		snprintf(path, sizeof path, "/sys/class/uio/%s/name", e->d_name);
		if (e->d_name[0] != '.' && !read_sysfs(path, name, sizeof name) && strstr(name, "vta")) {
			snprintf(dev, n, "/dev/%.32s", e->d_name);
			found = 0;
		}
	}
	closedir(d);
	return found;
}

static const char *udma_name(void)
{
	const char *s = getenv("VTA_ZYNQ_UDMABUF");
	return s && *s ? s : "udmabuf0";
}

static int zynq_probe(char *why, size_t n)
{
	char path[128], buf[64], uio[64];
	snprintf(path, sizeof path, "/sys/class/u-dma-buf/%s/phys_addr", udma_name());
	if (read_sysfs(path, buf, sizeof buf)) {
		snprintf(why, n, "no u-dma-buf region %s (%s is missing; load the u-dma-buf module "
			 "with a udmabuf0 of at least 64 MiB)", udma_name(), path);
		return VTA_EIO;
	}
	if (find_uio(uio, sizeof uio) && access("/dev/mem", R_OK | W_OK)) {
		snprintf(why, n, "no UIO device named \"vta\" and /dev/mem is not accessible "
			 "(run as root or set VTA_ZYNQ_UIO)");
		return VTA_EIO;
	}
	return VTA_OK;
}

static int map_registers(ZynqDev *z, vta_error_t *err)
{
	char uio[64];
	int fd;
	off_t off = 0;
	const char *what;
	if (!find_uio(uio, sizeof uio)) {
		what = uio;
		fd = open(uio, O_RDWR | O_SYNC);
	} else {
		what = "/dev/mem";
		uint64_t base = 0;
		int rc = board_reg_base(&base, err);
		if (rc)
			return rc;
		fd = open("/dev/mem", O_RDWR | O_SYNC);
		off = (off_t)base;
	}
	if (fd < 0)
		return vta_error_set(err, VTA_EIO, -1, "cannot open %s: %s", what, strerror(errno));
	z->regs_len = (VTA_REG_WINDOW_BYTES + 0xFFFu) & ~(size_t)0xFFF;
	void *p = mmap(NULL, z->regs_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (p == MAP_FAILED) {
		int e = errno;
		close(fd);
		return vta_error_set(err, VTA_EIO, -1, "cannot map %zu bytes of VTA registers from %s: %s",
				     z->regs_len, what, strerror(e));
	}
	z->regs = p;
	if (what == uio)
		z->uio_fd = fd; /* kept for the interrupt */
	else
		close(fd);
	return VTA_OK;
}

static int map_udmabuf(vta_dev_t *dev, ZynqDev *z, vta_error_t *err)
{
	char path[160], buf[64];
	snprintf(z->udma_name, sizeof z->udma_name, "%s", udma_name());
	snprintf(path, sizeof path, "/sys/class/u-dma-buf/%s/phys_addr", z->udma_name);
	if (read_sysfs(path, buf, sizeof buf))
		return vta_error_set(err, VTA_EIO, -1, "cannot read %s", path);
	uint64_t pa = strtoull(buf, NULL, 0);
	snprintf(path, sizeof path, "/sys/class/u-dma-buf/%s/size", z->udma_name);
	if (read_sysfs(path, buf, sizeof buf))
		return vta_error_set(err, VTA_EIO, -1, "cannot read %s", path);
	size_t size = (size_t)strtoull(buf, NULL, 0);
	/* Coherent port (VTA-SPEC 1.3): map cached; else uncached via O_SYNC. */
	z->cached = VTA_CACHED;
	snprintf(path, sizeof path, "/dev/%s", z->udma_name);
	z->udma_fd = open(path, O_RDWR);
	if (z->udma_fd < 0)
		return vta_error_set(err, VTA_EIO, -1, "cannot open %s: %s", path, strerror(errno));
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, z->udma_fd, 0);
	if (p == MAP_FAILED) {
		close(z->udma_fd);
		return vta_error_set(err, VTA_EIO, -1, "cannot map %s: %s", path, strerror(errno));
	}
	dev->dram_va = p;
	dev->dram_pa = pa;
	dev->dram_size = size;
	return VTA_OK;
}

/* u-dma-buf cache maintenance: direction 1 = to device, 2 = from device. */
static void udma_sync(vta_dev_t *dev, size_t off, size_t n, int to_device)
{
	ZynqDev *z = dev->priv;
	char path[160], val[32];
	snprintf(path, sizeof path, "/sys/class/u-dma-buf/%s/sync_offset", z->udma_name);
	snprintf(val, sizeof val, "%zu", off);
	write_sysfs(path, val);
	snprintf(path, sizeof path, "/sys/class/u-dma-buf/%s/sync_size", z->udma_name);
	snprintf(val, sizeof val, "%zu", n);
	write_sysfs(path, val);
	snprintf(path, sizeof path, "/sys/class/u-dma-buf/%s/sync_direction", z->udma_name);
	write_sysfs(path, to_device ? "1" : "2");
	snprintf(path, sizeof path, "/sys/class/u-dma-buf/%s/%s", z->udma_name,
		 to_device ? "sync_for_device" : "sync_for_cpu");
	write_sysfs(path, "1");
}

static void zynq_flush(vta_dev_t *dev, size_t off, size_t n)
{
	if (!dev->mmio)
		udma_sync(dev, off, n, 1);
}

static void zynq_invalidate(vta_dev_t *dev, size_t off, size_t n)
{
	if (!dev->mmio)
		udma_sync(dev, off, n, 0);
}

/* ---- The backend -------------------------------------------------------- */

static void zynq_close(vta_dev_t *dev)
{
	ZynqDev *z = dev->priv;
	if (dev->mmio)
		return;
	if (z->regs)
		munmap((void *)z->regs, z->regs_len);
	if (dev->dram_va)
		munmap(dev->dram_va, dev->dram_size);
	if (z->udma_fd > 0)
		close(z->udma_fd);
	if (z->uio_fd >= 0)
		close(z->uio_fd);
}

static int zynq_open(vta_dev_t *dev, vta_error_t *err)
{
	ZynqDev *z = dev->priv;
	if (dev->mmio) {
		dev->dram_va = dev->mmio->dma_va;
		dev->dram_pa = dev->mmio->dma_pa;
		dev->dram_size = dev->mmio->dma_size;
	} else {
		z->uio_fd = -1;
		int rc = map_registers(z, err);
		z->board = (struct vta_mmio){z, board_read32, board_write32, board_pause,
					     z->uio_fd >= 0 ? board_wait_irq : NULL, NULL, 0, 0};
		if (!rc)
			rc = map_udmabuf(dev, z, err);
		if (rc) {
			zynq_close(dev);
			return rc;
		}
	}
	dev->dram_first = dev->dram_pa ? 0 : 4096;
	/* VTA_COHERENT_ACCESSES: the shipped block designs use ACP/HPC0. */
	dev->coherent = 1;
	return VTA_OK;
}

static int zynq_identify(vta_dev_t *dev, uint32_t *config_id, uint32_t *version, vta_error_t *err)
{
	(void)err;
	*config_id = rd(dev, VTA_REG_CONFIG_ID);
	*version = rd(dev, VTA_REG_HW_VERSION);
	return VTA_OK;
}

static int zynq_run(vta_dev_t *dev, uint64_t insn_pa, uint32_t n, uint32_t wait_cycles,
		    vta_error_t *err)
{
	const struct vta_mmio *m = mmio_of(dev);
	int rc = vta_regs_prepare(m, err);
	return rc ? rc : vta_regs_run(m, insn_pa, n, wait_cycles, dev->dram_pa, dev->dram_size, err);
}

static int zynq_recover(vta_dev_t *dev, vta_error_t *err)
{
	return vta_regs_soft_reset(mmio_of(dev), err);
}

static void zynq_counters(vta_dev_t *dev, vta_counters_t *c) { vta_regs_counters(mmio_of(dev), c); }

static void zynq_describe(vta_dev_t *dev, char *buf, size_t n)
{
	ZynqDev *z = dev->priv;
	if (dev->mmio)
		snprintf(buf, n, "registers through a test MMIO port, %zu MiB DMA window",
			 dev->dram_size >> 20);
	else
		snprintf(buf, n, "board registers, u-dma-buf %s (%zu MiB at 0x%" PRIX64 ")", z->udma_name,
			 dev->dram_size >> 20, dev->dram_pa);
}

const vta_backend_t vta_backend_zynq = {
	.name = "zynq",
	.summary = "a VTA bitstream on a PYNQ-Z1/Z2 or Ultra96 (UIO or /dev/mem, u-dma-buf)",
	.priv_size = sizeof(ZynqDev),
	.probe = zynq_probe,
	.open = zynq_open,
	.close = zynq_close,
	.identify = zynq_identify,
	.run = zynq_run,
	.recover = zynq_recover,
	.flush = zynq_flush,
	.invalidate = zynq_invalidate,
	.counters = zynq_counters,
	.describe = zynq_describe,
};

/* ---- Test entry point (driver/zynq.h) ---------------------------------- */

int vta_dev_open_with_mmio(const vta_backend_t *be, const vta_mmio_t *mmio, vta_dev_t **out,
			   vta_error_t *err);
int vta_context_from_dev(vta_dev_t *dev, vta_context_t **out, vta_error_t *err);

int vta_zynq_open_mmio(const struct vta_mmio *mmio, vta_context_t **out, vta_error_t *err)
{
	vta_error_clear(err);
	*out = NULL;
	if (!mmio || !mmio->read32 || !mmio->write32 || !mmio->dma_va || !mmio->dma_size)
		return vta_error_set(err, VTA_EINVAL, -1, "vta_zynq_open_mmio: incomplete MMIO description");
	vta_dev_t *dev;
	int rc = vta_dev_open_with_mmio(&vta_backend_zynq, mmio, &dev, err);
	return rc ? rc : vta_context_from_dev(dev, out, err);
}
