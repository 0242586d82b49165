/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated board of board_model.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vta/vta_regmap.h>

#include "../../runtime/seams.h"
#include "board_model.h"

static void event(Board *b, int e)
{
	if (b->nevents < sizeof b->events / sizeof b->events[0])
		b->events[b->nevents++] = e;
}

static uint32_t z_read(void *opaque, uint32_t off)
{
	Board *b = opaque;
	return b->rtl.read32(b->rtl.opaque, off);
}

static void z_write(void *opaque, uint32_t off, uint32_t v)
{
	Board *b = opaque;
	if (off == VTA_REG_FETCH_CTRL && (v & 1))
		event(b, EV_START);
	b->rtl.write32(b->rtl.opaque, off, v);
}

static void z_pause(void *opaque)
{
	Board *b = opaque;
	b->rtl.pause(b->rtl.opaque);
}

static int z_wait_irq(void *opaque, uint32_t polls)
{
	Board *b = opaque;
	return b->rtl.wait_irq(b->rtl.opaque, polls);
}
static void z_barrier(void *opaque)
{
	Board *b = opaque;
	event(b, EV_BARRIER);
	if (b->on_barrier)
		b->on_barrier(b->on_barrier_arg);
}

static long read_attr(const Board *b, const char *name)
{
	char path[400], buf[64] = "";
	snprintf(path, sizeof path, "%s/%s", b->attr, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof buf, f))
		buf[0] = 0;
	fclose(f);
	return strtol(buf, NULL, 0);
}

/* The kernel side of u-dma-buf's manual cache maintenance: the cached view
 * (the device file) and the device's memory (the model's DRAM) meet only
 * here. Directions: 0 bidirectional, 1 to device, 2 from device. */
static void z_sysfs(void *opaque, const char *path)
{
	Board *b = opaque;
	const char *name = strrchr(path, '/') + 1;
	int dev = !strcmp(name, "sync_for_device"), cpu = !strcmp(name, "sync_for_cpu");
	if (!dev && !cpu)
		return;
	long off = read_attr(b, "sync_offset"), n = read_attr(b, "sync_size");
	long dir = read_attr(b, "sync_direction");
	if (off < 0 || n <= 0 || (size_t)(off + n) > BOARD_DRAM_BYTES) {
		b->bad_sync = 1;
		return;
	}
	uint8_t *dram = vta_rtlsim_dram(b->sim) + off;
	if (dev) {
		event(b, EV_SYNC_DEV);
		b->bad_sync |= !(dir == 0 || dir == 1) || pread(b->fd, dram, (size_t)n, off) != n;
		b->synced_dev += (uint64_t)n;
	} else {
		event(b, EV_SYNC_CPU);
		b->bad_sync |= !(dir == 0 || dir == 2) || pwrite(b->fd, dram, (size_t)n, off) != n;
		b->synced_cpu += (uint64_t)n;
	}
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void mkdirs(const char *path)
{
	char p[400];
	snprintf(p, sizeof p, "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

/* A u-dma-buf tree as on a board: dev/udmabuf0 and its sysfs attributes. */
static int make_tree(Board *b)
{
	const char *base = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	snprintf(b->root, sizeof b->root, "%s/vta-board-XXXXXX", base);
	if (!mkdtemp(b->root))
		return -1;
	snprintf(b->attr, sizeof b->attr, "%s/sys/class/u-dma-buf/udmabuf0", b->root);
	mkdirs(b->attr);
	snprintf(b->dev, sizeof b->dev, "%s/dev", b->root);
	mkdirs(b->dev);
	snprintf(b->dev, sizeof b->dev, "%s/dev/udmabuf0", b->root);
	static const char *attrs[] = {"sync_offset", "sync_size", "sync_direction", "sync_for_cpu",
				      "sync_for_device"};
	char path[400], size[32];
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", b->attr, attrs[i]);
		write_file(path, "");
	}
	snprintf(path, sizeof path, "%s/phys_addr", b->attr);
	write_file(path, "0x0\n");
	snprintf(path, sizeof path, "%s/size", b->attr);
	snprintf(size, sizeof size, "%zu\n", BOARD_DRAM_BYTES);
	write_file(path, size);
	b->fd = open(b->dev, O_RDWR | O_CREAT, 0644);
	return b->fd < 0 || ftruncate(b->fd, (off_t)BOARD_DRAM_BYTES) ? -1 : 0;
}

void board_remove_tree(Board *b)
{
	if (!b->root[0])
		return;
	if (b->fd >= 0)
		close(b->fd);
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", b->root);
	if (system(cmd))
		fprintf(stderr, "test_runtime_rtl: could not remove %s\n", b->root);
}

int board_open(Board *b, int with_tree)
{
	vta_error_t err;
	b->fd = -1;
	b->sim = vta_rtlsim_create(BOARD_DRAM_BYTES, &err);
	if (!b->sim) {
		fprintf(stderr, "board model: %s\n", err.msg);
		return -1;
	}
	vta_rtl_mmio(b->sim, &b->rtl);
	b->mmio = (struct vta_mmio){.opaque = b, .read32 = z_read, .write32 = z_write,
				    .pause = z_pause, .wait_irq = z_wait_irq,
				    .dma_va = vta_rtlsim_dram(b->sim), .dma_size = BOARD_DRAM_BYTES,
				    .barrier = z_barrier};
	if (with_tree) {
		if (make_tree(b)) {
			fprintf(stderr, "board model: cannot make a u-dma-buf tree in %s\n", b->root);
			return -1;
		}
		b->mmio.root = b->root;
		b->mmio.sysfs_written = z_sysfs;
	}
	if (vta_zynq_open_mmio(&b->mmio, &b->ctx, &err)) {
		fprintf(stderr, "board model: %s\n", err.msg);
		return -1;
	}
	return 0;
}

void board_close(Board *b)
{
	vta_context_close(b->ctx);
	b->ctx = NULL;
	vta_rtlsim_destroy(b->sim);
	b->sim = NULL;
	board_remove_tree(b);
}

