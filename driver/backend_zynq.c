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
 * tests run this exact code against the RTL simulation.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include "zynq.h"

typedef struct {
	struct vta_mmio board; /* used when dev->mmio is NULL */
	volatile uint32_t *regs;
	size_t regs_len;
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

static void wr(vta_dev_t *dev, uint32_t off, uint32_t v)
{
	const struct vta_mmio *m = mmio_of(dev);
	m->write32(m->opaque, off, v);
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
	close(fd);
	if (p == MAP_FAILED)
		return vta_error_set(err, VTA_EIO, -1, "cannot map %zu bytes of VTA registers from %s: %s",
				     z->regs_len, what, strerror(errno));
	z->regs = p;
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
}

static int zynq_open(vta_dev_t *dev, vta_error_t *err)
{
	ZynqDev *z = dev->priv;
	if (dev->mmio) {
		dev->dram_va = dev->mmio->dma_va;
		dev->dram_pa = dev->mmio->dma_pa;
		dev->dram_size = dev->mmio->dma_size;
	} else {
		z->board = (struct vta_mmio){z, board_read32, board_write32, board_pause, NULL,
					     NULL, 0, 0};
		int rc = map_registers(z, err);
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

static int status_error(vta_dev_t *dev, uint32_t st, vta_error_t *err)
{
	static const char *module[] = {"?", "fetch", "load", "compute", "store", "token queue",
				       "watchdog"};
	uint32_t who = rd(dev, VTA_REG_ERR_INFO);
	const char *m = who < 7 ? module[who] : "?";
	if (st & VTA_STATUS_ERR_ILLEGAL)
		return vta_error_set(err, VTA_EILLEGAL, -1, "the device reports an illegal instruction "
				     "(module %s, STATUS 0x%" PRIX32 ")", m, st);
	if (st & (VTA_STATUS_ERR_RANGE | VTA_STATUS_ERR_DRAM))
		return vta_error_set(err, VTA_ERANGE, -1, "the device reports an out-of-range %s access "
				     "(module %s, STATUS 0x%" PRIX32 ")",
				     st & VTA_STATUS_ERR_DRAM ? "DRAM" : "SRAM", m, st);
	if (st & VTA_STATUS_ERR_TOKEN)
		return vta_error_set(err, VTA_ETOKEN, -1, "the device reports a token queue overflow "
				     "(STATUS 0x%" PRIX32 ")", st);
	uint32_t t1 = rd(dev, VTA_REG_TOKENS), t2 = rd(dev, VTA_REG_TOKENS2);
	return vta_error_set(err, VTA_EDEADLOCK, -1, "the device made no progress for %" PRIu32
			     " cycles: deadlock (tokens l2g=%" PRIu32 " g2l=%" PRIu32 " g2s=%" PRIu32
			     " s2g=%" PRIu32 ")", rd(dev, VTA_REG_WATCHDOG), t1 & 0x1FF,
			     (t1 >> 16) & 0x1FF, t2 & 0x1FF, (t2 >> 16) & 0x1FF);
}

static int zynq_run(vta_dev_t *dev, uint64_t insn_pa, uint32_t n, uint32_t wait_cycles,
		    vta_error_t *err)
{
	const struct vta_mmio *m = mmio_of(dev);
	const uint32_t errors = VTA_STATUS_ERR_ILLEGAL | VTA_STATUS_ERR_RANGE | VTA_STATUS_ERR_DRAM |
				VTA_STATUS_ERR_TOKEN | VTA_STATUS_ERR_WATCHDOG;
	/* VTA-SPEC 5.1, run sequence of the PYNQ driver. */
	wr(dev, VTA_REG_FETCH_INSN_COUNT, n);
	wr(dev, VTA_REG_FETCH_INSN_ADDR, (uint32_t)insn_pa);
	wr(dev, VTA_REG_FETCH_INSN_ADDR_HI, (uint32_t)(insn_pa >> 32));
	static const uint32_t bases[] = {VTA_REG_LOAD_INP_ADDR, VTA_REG_LOAD_WGT_ADDR,
					 VTA_REG_COMPUTE_UOP_ADDR, VTA_REG_COMPUTE_BIAS_ADDR,
					 VTA_REG_STORE_OUT_ADDR};
	for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
		wr(dev, bases[i], 0);
		wr(dev, bases[i] + 4, 0);
	}
	wr(dev, VTA_REG_FETCH_CTRL, 0x1);
	wr(dev, VTA_REG_LOAD_CTRL, 0x81);
	wr(dev, VTA_REG_COMPUTE_CTRL, 0x81);
	wr(dev, VTA_REG_STORE_CTRL, 0x81);
	for (uint32_t polls = 0;; polls++) {
		if (rd(dev, VTA_REG_COMPUTE_DONE) == 1)
			return VTA_OK;
		uint32_t st = rd(dev, VTA_REG_STATUS);
		if (st & errors)
			return status_error(dev, st, err);
		if (polls >= wait_cycles)
			return vta_error_set(err, VTA_ETIMEOUT, -1, "the device did not finish %" PRIu32
					     " instructions within %" PRIu32 " polls", n, wait_cycles);
		if (m->pause)
			m->pause(m->opaque);
	}
}

static void zynq_recover(vta_dev_t *dev)
{
	const struct vta_mmio *m = mmio_of(dev);
	if (m->reset)
		m->reset(m->opaque);
	wr(dev, VTA_REG_STATUS, 0xFFFFFFF0u); /* clear the sticky error bits */
}

static uint64_t rd64(vta_dev_t *dev, uint32_t off)
{
	uint64_t lo = rd(dev, off);
	return lo | (uint64_t)rd(dev, off + 4) << 32;
}

static void zynq_counters(vta_dev_t *dev, vta_counters_t *c)
{
	c->cycles += rd64(dev, VTA_REG_CNT_CYCLES);
	c->gemm_uops += rd64(dev, VTA_REG_CNT_GEMM_UOPS);
	c->gemm_reset_uops += rd64(dev, VTA_REG_CNT_RESET_UOPS);
	c->alu_uops += rd64(dev, VTA_REG_CNT_ALU_UOPS);
	c->bytes_written += rd64(dev, VTA_REG_CNT_DMA_WR_BYTES);
	c->insn_bytes_read += 16 * rd64(dev, VTA_REG_CNT_INSNS);
}

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
