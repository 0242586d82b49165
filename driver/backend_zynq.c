/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Backend "zynq": a VTA bitstream on a PYNQ-Z1/Z2 or Ultra96 board.
 *
 * Registers: the AXI4-Lite window of docs/registers.md (vta_regmap.h),
 * mapped through the UIO device whose name contains "vta" (or
 * $VTA_ZYNQ_UIO), else through /dev/mem at the board's base address.
 * DMA memory: one u-dma-buf region ($VTA_ZYNQ_UDMABUF, default udmabuf0),
 * physically contiguous, mapped cached and uncached (O_SYNC); the memory
 * port of the board's block design decides coherence (boards/boards.txt),
 * and on the non-coherent HP ports the runtime has the cached view flushed
 * and invalidated through the region's sysfs sync files around every run.
 * The region (and the UIO device) are locked for the process with flock.
 *
 * All register traffic goes through a struct vta_mmio (driver/zynq.h), so
 * tests run this exact code against the RTL simulation, and with a u-dma-buf
 * tree under a test directory also the board's memory code. Runs, the idle
 * check, the interrupt wait and the soft reset after an error are
 * driver/regs.c. Interrupts: through the UIO device (read/poll on /dev/uioN,
 * re-enabled by writing 1); with /dev/mem there is none and the run polls.
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

#include <vta/driver.h>
#include <vta/vta_config.h>
#include <vta/vta_regmap.h>

#include "backend.h"
#include "regs.h"
#include "zynq.h"

typedef struct {
	struct vta_mmio board; /* used when dev->seam is NULL */
	const struct vta_mmio *seam;
	volatile uint32_t *regs;
	size_t regs_len;
	int uio_fd;            /* UIO: its interrupt and the device lock; -1 with /dev/mem */
	int udma_fd, udma_uc_fd;
	char root[256];        /* prefix of /dev and /sys ("" on a board) */
	char udma_name[64];
	uint8_t *uc_map;       /* the O_SYNC mapping we made (not the seam's) */
} ZynqDev;

static const struct vta_mmio *mmio_of(vta_dev_t *dev)
{
	ZynqDev *z = dev->priv;
	return z->seam ? z->seam : &z->board;
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

/* The root of the device tree the backend reads: "" on a board,
 * $VTA_SYSFS_ROOT (as `vta flash` uses), or the seam's test tree. */
static void set_root(ZynqDev *z, const char *root)
{
	if (!root)
		root = getenv("VTA_SYSFS_ROOT");
	snprintf(z->root, sizeof z->root, "%s", root && strcmp(root, "/") ? root : "");
	size_t n = strlen(z->root);
	if (n && z->root[n - 1] == '/')
		z->root[n - 1] = 0;
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

/* Find /dev/uioN for the VTA registers: $VTA_ZYNQ_UIO or a name with "vta". */
static int find_uio(const char *root, char *dev, size_t n)
{
	const char *env = getenv("VTA_ZYNQ_UIO");
	if (env && *env) {
		snprintf(dev, n, "%s", env);
		return 0;
	}
	char dir[300];
	snprintf(dir, sizeof dir, "%s/sys/class/uio", root);
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	int found = -1;
	while ((e = readdir(d)) && found) {
		char path[600], name[64];
		snprintf(path, sizeof path, "%s/%s/name", dir, e->d_name);
		if (e->d_name[0] != '.' && !read_sysfs(path, name, sizeof name) && strstr(name, "vta")) {
			snprintf(dev, n, "%s/dev/%.32s", root, e->d_name);
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

/* Path of attribute attr of the u-dma-buf region (newer drivers use the
 * class u-dma-buf, older ones udmabuf). */
static void udma_attr(const ZynqDev *z, const char *attr, char *path, size_t n)
{
	snprintf(path, n, "%s/sys/class/udmabuf/%s/%s", z->root, z->udma_name, attr);
	if (access(path, F_OK))
		snprintf(path, n, "%s/sys/class/u-dma-buf/%s/%s", z->root, z->udma_name, attr);
}

static int zynq_probe(char *why, size_t n)
{
	ZynqDev z = {.udma_fd = -1};
	set_root(&z, NULL);
	snprintf(z.udma_name, sizeof z.udma_name, "%s", udma_name());
	char path[400], buf[64], uio[300];
	udma_attr(&z, "phys_addr", path, sizeof path);
	if (read_sysfs(path, buf, sizeof buf)) {
		snprintf(why, n, "no u-dma-buf region %s (%s is missing; load the u-dma-buf module "
			 "with a udmabuf0 of at least 64 MiB)", z.udma_name, path);
		return VTA_EIO;
	}
	if (find_uio(z.root, uio, sizeof uio) && access("/dev/mem", R_OK | W_OK)) {
		snprintf(why, n, "no UIO device named \"vta\" and /dev/mem is not accessible "
			 "(run as root or set VTA_ZYNQ_UIO)");
		return VTA_EIO;
	}
	return VTA_OK;
}

static int map_registers(ZynqDev *z, uint64_t base, vta_error_t *err)
{
	char uio[300];
	int fd;
	off_t off = 0;
	const char *what;
	if (!find_uio(z->root, uio, sizeof uio)) {
		what = uio;
		fd = open(uio, O_RDWR | O_SYNC);
		if (fd >= 0) {
			int rc = vta_lock_device_file(fd, uio, err);
			if (rc) {
				close(fd);
				return rc;
			}
		}
	} else {
		what = "/dev/mem";
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

static int map_view(const char *path, int flags, size_t size, int *fd, uint8_t **va,
		    vta_error_t *err)
{
	*fd = open(path, O_RDWR | flags);
	if (*fd < 0)
		return vta_error_set(err, VTA_EIO, -1, "cannot open %s: %s", path, strerror(errno));
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED) {
		int e = errno;
		close(*fd);
		*fd = -1;
		return vta_error_set(err, VTA_EIO, -1, "cannot map %zu bytes of %s%s: %s", size, path,
				     flags ? " uncached" : "", strerror(e));
	}
	*va = p;
	return VTA_OK;
}

/* The u-dma-buf region: its physical address and size from sysfs, locked,
 * mapped cached and (on a board) uncached with O_SYNC; a seam with a tree
 * provides the uncached view, i.e. the device's memory, itself. */
static int map_udmabuf(vta_dev_t *dev, ZynqDev *z, vta_error_t *err)
{
	char path[400], buf[64];
	snprintf(z->udma_name, sizeof z->udma_name, "%s", udma_name());
	udma_attr(z, "phys_addr", path, sizeof path);
	if (read_sysfs(path, buf, sizeof buf))
		return vta_error_set(err, VTA_EIO, -1, "cannot read %s", path);
	uint64_t pa = strtoull(buf, NULL, 0);
	udma_attr(z, "size", path, sizeof path);
	if (read_sysfs(path, buf, sizeof buf))
		return vta_error_set(err, VTA_EIO, -1, "cannot read %s", path);
	size_t size = (size_t)strtoull(buf, NULL, 0);
	if (size < 2 * (size_t)VTA_PAGE_BYTES)
		return vta_error_set(err, VTA_EIO, -1, "%s says the region has %zu bytes: too small",
				     path, size);
	if (z->seam && (z->seam->dma_pa != pa || z->seam->dma_size < size))
		return vta_error_set(err, VTA_EINVAL, -1,
				     "the test tree's u-dma-buf (0x%" PRIX64 ", %zu bytes) is not the "
				     "seam's memory (0x%" PRIX64 ", %zu bytes)",
				     pa, size, z->seam->dma_pa, z->seam->dma_size);
	snprintf(path, sizeof path, "%s/dev/%s", z->root, z->udma_name);
	int rc = map_view(path, 0, size, &z->udma_fd, &dev->dram_va, err);
	if (rc)
		return rc;
	dev->dram_size = size; /* so that close unmaps what we mapped */
	rc = vta_lock_device_file(z->udma_fd, path, err);
	if (rc)
		return rc;
	if (z->seam) {
		dev->dram_va_uc = z->seam->dma_va;
	} else {
		rc = map_view(path, O_SYNC, size, &z->udma_uc_fd, &z->uc_map, err);
		if (rc)
			return rc;
		dev->dram_va_uc = z->uc_map;
	}
	dev->dram_pa = pa;
	return VTA_OK;
}

/* One attribute write; a sysfs attribute reports failure from write or
 * close. The seam's kernel acts after each write. */
static int write_attr(vta_dev_t *dev, const char *attr, const char *val, vta_error_t *err)
{
	ZynqDev *z = dev->priv;
	char path[400];
	udma_attr(z, attr, path, sizeof path);
	int fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return vta_error_set(err, VTA_EIO, -1, "cache maintenance failed: cannot open %s: %s",
				     path, strerror(errno));
	size_t n = strlen(val);
	ssize_t k = write(fd, val, n);
	int e = errno;
	if (close(fd) && k == (ssize_t)n) {
		k = -1;
		e = errno;
	}
	if (k != (ssize_t)n)
		return vta_error_set(err, VTA_EIO, -1, "cache maintenance failed: writing \"%s\" to %s: %s",
				     val, path, k < 0 ? strerror(e) : "short write");
	if (z->seam && z->seam->sysfs_written)
		z->seam->sysfs_written(z->seam->opaque, path);
	return VTA_OK;
}

/* u-dma-buf manual cache maintenance (its README): the range, the
 * direction (0 bidirectional, 1 to device, 2 from device), then the owner. */
static int udma_sync(vta_dev_t *dev, size_t off, size_t n, int direction, int for_device,
		     vta_error_t *err)
{
	char v[32];
	snprintf(v, sizeof v, "%zu", off);
	int rc = write_attr(dev, "sync_offset", v, err);
	snprintf(v, sizeof v, "%zu", n);
	if (!rc)
		rc = write_attr(dev, "sync_size", v, err);
	snprintf(v, sizeof v, "%d", direction);
	if (!rc)
		rc = write_attr(dev, "sync_direction", v, err);
	if (!rc)
		rc = write_attr(dev, for_device ? "sync_for_device" : "sync_for_cpu", "1", err);
	return rc;
}

static int zynq_flush(vta_dev_t *dev, size_t off, size_t n, int written_by_device,
		      vta_error_t *err)
{
	/* Bytes the device will also write are cleaned and invalidated, so that
	 * no dirty line is evicted over the device's data later. */
	return udma_sync(dev, off, n, written_by_device ? 0 : 1, 1, err);
}

static int zynq_invalidate(vta_dev_t *dev, size_t off, size_t n, vta_error_t *err)
{
	return udma_sync(dev, off, n, 2, 0, err);
}

/* ---- The backend -------------------------------------------------------- */

static void zynq_close(vta_dev_t *dev)
{
	ZynqDev *z = dev->priv;
	if (z->regs)
		munmap((void *)z->regs, z->regs_len);
	if (z->uio_fd >= 0)
		close(z->uio_fd);
	if (z->udma_fd >= 0) {
		munmap(dev->dram_va, dev->dram_size);
		close(z->udma_fd);
	}
	if (z->uc_map)
		munmap(z->uc_map, dev->dram_size);
	if (z->udma_uc_fd >= 0)
		close(z->udma_uc_fd);
}

static int zynq_open(vta_dev_t *dev, vta_error_t *err)
{
	ZynqDev *z = dev->priv;
	z->seam = dev->seam;
	z->uio_fd = z->udma_fd = z->udma_uc_fd = -1;
	uint64_t base;
	uint32_t size;
	int coherent;
	int rc = vta_board_reg_window(&base, &size, &coherent, err);
	if (rc)
		return rc;
	const char *s = getenv("VTA_ZYNQ_REG_BASE");
	if (s && *s)
		base = strtoull(s, NULL, 0);
	dev->reg_base = base;
	dev->reg_size = size;
	if (z->seam && !z->seam->root) {
		/* Registers and coherent memory from the seam. */
		dev->dram_va = z->seam->dma_va;
		dev->dram_pa = z->seam->dma_pa;
		dev->dram_size = z->seam->dma_size;
		dev->coherent = 1;
	} else {
		if (z->seam) {
			set_root(z, z->seam->root);
		} else {
			set_root(z, NULL);
			rc = map_registers(z, base, err);
			z->board = (struct vta_mmio){z, board_read32, board_write32, board_pause,
						     z->uio_fd >= 0 ? board_wait_irq : NULL, NULL, 0, 0,
						     NULL, NULL, NULL};
		}
		if (!rc)
			rc = map_udmabuf(dev, z, err);
		if (rc) {
			zynq_close(dev);
			return rc;
		}
		/* The board's memory port (boards/boards.txt): HP ports do not
		 * snoop the CPU caches, so the runtime syncs around every run. */
		dev->coherent = coherent;
	}
	dev->dram_first = dev->dram_pa ? 0 : 4096;
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
	if (rc)
		return rc;
	/* The stream and its data (flushed by the runtime) reach memory before
	 * the device is told where they are and started. */
	vta_io_barrier();
	if (m->barrier)
		m->barrier(m->opaque);
	return vta_regs_run(m, insn_pa, n, wait_cycles, dev->dram_pa, dev->dram_size, err);
}

static int zynq_recover(vta_dev_t *dev, vta_error_t *err)
{
	return vta_regs_soft_reset(mmio_of(dev), err);
}

static void zynq_counters(vta_dev_t *dev, vta_counters_t *c) { vta_regs_counters(mmio_of(dev), c); }

static void zynq_describe(vta_dev_t *dev, char *buf, size_t n)
{
	ZynqDev *z = dev->priv;
	const char *mem = dev->coherent ? "coherent" : "cached, synced around every run";
	if (z->seam && !z->seam->root)
		snprintf(buf, n, "registers through a test MMIO port, %zu MiB DMA window",
			 dev->dram_size >> 20);
	else
		snprintf(buf, n, "%s registers, u-dma-buf %s (%zu MiB at 0x%" PRIX64 ", %s)",
			 z->seam ? "test MMIO" : "board", z->udma_name, dev->dram_size >> 20,
			 dev->dram_pa, mem);
}

static uint32_t zynq_reg_read(vta_dev_t *dev, uint32_t off) { return rd(dev, off); }

static void zynq_reg_write(vta_dev_t *dev, uint32_t off, uint32_t val)
{
	const struct vta_mmio *m = mmio_of(dev);
	m->write32(m->opaque, off, val);
}

static volatile uint32_t *zynq_reg_ptr(vta_dev_t *dev)
{
	ZynqDev *z = dev->priv;
	return z->seam ? NULL : z->regs;
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
	.reg_read = zynq_reg_read,
	.reg_write = zynq_reg_write,
	.reg_ptr = zynq_reg_ptr,
};
