/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Programming the PL from Linux on the board: the kernel's fpga_manager
 * (Xilinx kernels: write the image into the firmware search path, "0" to
 * flags for a full bitstream, its file name to firmware, then read state),
 * else the older Zynq-7000 /dev/xdevcfg; then the CONFIG_ID register.
 *
 * Every path is under a root directory ($VTA_SYSFS_ROOT, default "/"), so
 * the tests run exactly this code against a fake tree.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vta/vta_regmap.h>

#include "flash.h"

#define MGR_DIR "sys/class/fpga_manager/fpga0"
#define FW_PATH_PARAM "sys/module/firmware_class/parameters/path"
#define XDEVCFG_DEV "dev/xdevcfg"
#define XDEVCFG_SYS "sys/class/xdevcfg/xdevcfg/device"

typedef struct {
	const vta_flash_opts_t *o;
	const char *root;
} Ctx;

static void join(const Ctx *c, const char *rel, char *out, size_t cap)
{
	size_t n = strlen(c->root);
	int slash = n > 0 && c->root[n - 1] == '/';
	while (*rel == '/')
		rel++;
	snprintf(out, cap, "%s%s%s", c->root, slash ? "" : "/", rel);
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static int io_error(vta_error_t *err, const char *verb, const char *path, int e)
{
	if (e == EACCES || e == EPERM)
		return vta_error_set(err, VTA_EIO, -1,
				     "no permission to %s %s (run vta flash as root)", verb, path);
	return vta_error_set(err, VTA_EIO, -1, "cannot %s %s: %s", verb, path, strerror(e));
}

/* Read a small text file, without the trailing newline. */
static int read_text(const char *path, char *buf, size_t cap, vta_error_t *err)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return io_error(err, "read", path, errno);
	ssize_t k = read(fd, buf, cap - 1);
	int e = errno;
	close(fd);
	if (k < 0)
		return io_error(err, "read", path, e);
	buf[k] = 0;
	while (k > 0 && (buf[k - 1] == '\n' || buf[k - 1] == ' '))
		buf[--k] = 0;
	return VTA_OK;
}

/* Write all of data to fd; a short write is an error. */
static int write_all(int fd, const void *data, size_t len, const char *path, vta_error_t *err)
{
	const uint8_t *p = data;
	size_t done = 0;
	while (done < len) {
		ssize_t k = write(fd, p + done, len - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = k < 0 ? errno : EIO;
			return vta_error_set(err, VTA_EIO, -1,
					     "write to %s stopped after %zu of %zu bytes: %s", path,
					     done, len, strerror(e));
		}
		done += (size_t)k;
	}
	return VTA_OK;
}

/* A sysfs attribute write: the kernel reports failure from write or close. */
static int write_attr(const char *path, const char *val, vta_error_t *err)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return io_error(err, "write", path, errno);
	int rc = write_all(fd, val, strlen(val), path, err);
	if (close(fd) && !rc)
		rc = io_error(err, "write", path, errno);
	return rc;
}

/* Write the image as dir/name through a temporary file, so that a partial
 * file never carries the name the kernel loads. */
static int write_firmware(const char *dir, const char *name, const uint8_t *img, size_t len,
			  vta_error_t *err)
{
	char tmp[4200], dst[4200];
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
	snprintf(dst, sizeof dst, "%s/%s", dir, name);
	if (!exists(dir))
		return vta_error_set(err, VTA_EIO, -1,
				     "the firmware directory %s does not exist (create it, or set "
				     "the firmware_class.path kernel parameter)", dir);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return io_error(err, "create", tmp, errno);
	int rc = write_all(fd, img, len, tmp, err);
	if (!rc && fsync(fd))
		rc = io_error(err, "sync", tmp, errno);
	if (close(fd) && !rc)
		rc = io_error(err, "write", tmp, errno);
	if (!rc && rename(tmp, dst))
		rc = io_error(err, "rename to", dst, errno);
	if (rc)
		unlink(tmp);
	return rc;
}

/* The directory the kernel's firmware loader searches first. */
static void firmware_dir(const Ctx *c, char *out, size_t cap)
{
	char param[4096], buf[4096];
	join(c, FW_PATH_PARAM, param, sizeof param);
	if (exists(param) && !read_text(param, buf, sizeof buf, NULL) && buf[0]) {
		join(c, buf, out, cap);
		return;
	}
	join(c, "lib/firmware", out, cap);
}

static int via_fpga_manager(const Ctx *c, const uint8_t *img, size_t len, vta_error_t *err)
{
	char mgr[4096], path[4200], dir[4096], state[128];
	join(c, MGR_DIR, mgr, sizeof mgr);
	snprintf(path, sizeof path, "%s/firmware", mgr);
	if (!exists(path))
		return vta_error_set(err, VTA_EUNSUPPORTED, -1,
				     "%s has no 'firmware' attribute: this kernel loads bitstreams "
				     "only through device-tree overlays (use a PYNQ or linux-xlnx "
				     "kernel, or apply an overlay with firmware-name)", mgr);
	firmware_dir(c, dir, sizeof dir);
	char name[96];
	snprintf(name, sizeof name, "vta-%s.bin", c->o->board->name);
	int rc = write_firmware(dir, name, img, len, err);
	if (rc)
		return rc;
	if (c->o->verbose)
		fprintf(stderr, "vta flash: wrote %zu bytes to %s/%s\n", len, dir, name);

	char flags[4200];
	snprintf(flags, sizeof flags, "%s/flags", mgr);
	if (exists(flags) && (rc = write_attr(flags, "0", err)))
		return rc;
	rc = write_attr(path, name, err);
	snprintf(path, sizeof path, "%s/state", mgr);
	int have_state = !read_text(path, state, sizeof state, NULL);
	if (rc) {
		char why[VTA_ERROR_MSG_MAX];
		snprintf(why, sizeof why, "%s", err ? err->msg : "write failed");
		return vta_error_set(err, VTA_EIO, -1, "fpga_manager did not load %s/%s: %s "
				     "(state: %s)", dir, name, why, have_state ? state : "unknown");
	}
	if (!have_state)
		return vta_error_set(err, VTA_EIO, -1, "cannot read %s after loading", path);
	if (strcmp(state, "operating"))
		return vta_error_set(err, VTA_EIO, -1,
				     "fpga_manager reports state \"%s\" after loading %s, not "
				     "\"operating\": the PL is not configured", state, name);
	return VTA_OK;
}

static int via_xdevcfg(const Ctx *c, const uint8_t *img, size_t len, vta_error_t *err)
{
	char dev[4096], path[4096], done[16];
	join(c, XDEVCFG_SYS "/is_partial_bitstream", path, sizeof path);
	int rc;
	if (exists(path) && (rc = write_attr(path, "0", err)))
		return rc;
	join(c, XDEVCFG_DEV, dev, sizeof dev);
	int fd = open(dev, O_WRONLY);
	if (fd < 0)
		return io_error(err, "open", dev, errno);
	rc = write_all(fd, img, len, dev, err);
	if (close(fd) && !rc)
		rc = io_error(err, "write", dev, errno);
	if (rc)
		return rc;
	join(c, XDEVCFG_SYS "/prog_done", path, sizeof path);
	if ((rc = read_text(path, done, sizeof done, err)))
		return rc;
	if (strcmp(done, "1"))
		return vta_error_set(err, VTA_EIO, -1,
				     "xdevcfg: %s reads \"%s\" after writing %zu bytes: the PL "
				     "did not finish configuration", path, done, len);
	return VTA_OK;
}

/* Read the 32-bit register at reg_base + off through dev/mem. */
static int read_reg(const Ctx *c, uint32_t off, uint32_t *val, vta_error_t *err)
{
	char mem[4096];
	join(c, "dev/mem", mem, sizeof mem);
	int fd = open(mem, O_RDONLY | O_SYNC);
	if (fd < 0)
		return io_error(err, "open", mem, errno);
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t addr = c->o->board->reg_base + off;
	uint64_t base = addr & ~(uint64_t)(pg - 1);
	void *p = mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED, fd, (off_t)base);
	int e = errno;
	close(fd);
	if (p == MAP_FAILED)
		return vta_error_set(err, VTA_EIO, -1, "cannot map %s at 0x%llX: %s", mem,
				     (unsigned long long)base, strerror(e));
	*val = *(volatile uint32_t *)((uint8_t *)p + (addr - base));
	munmap(p, (size_t)pg);
	return VTA_OK;
}

int vta_flash_linux(const vta_bitfile_t *bf, const vta_flash_opts_t *o, const char **method,
		    uint32_t *config_id, vta_error_t *err)
{
	Ctx c = {o, o->root};
	if (!c.root)
		c.root = getenv("VTA_SYSFS_ROOT");
	if (!c.root || !*c.root)
		c.root = "/";
	*method = NULL;
	*config_id = 0;

	int rc = vta_bit_check(bf, o->board, o->want_config_id, o->force, "the bitstream", err);
	if (rc)
		return rc;

	uint8_t *img;
	size_t len;
	rc = vta_bit_to_bin(bf, &img, &len, err);
	if (rc)
		return rc;
	char mgr[4096], xdev[4096];
	join(&c, MGR_DIR, mgr, sizeof mgr);
	join(&c, XDEVCFG_DEV, xdev, sizeof xdev);
	if (exists(mgr)) {
		*method = "fpga_manager";
		rc = via_fpga_manager(&c, img, len, err);
	} else if (exists(xdev) && !strcmp(o->board->family, "zynq-7000")) {
		*method = "xdevcfg";
		rc = via_xdevcfg(&c, img, len, err);
	} else {
		rc = vta_error_set(err, VTA_EUNSUPPORTED, -1,
				   "no fpga_manager (%s does not exist) and no %s: this kernel "
				   "cannot load a bitstream (it needs CONFIG_FPGA_MGR_ZYNQ_FPGA or "
				   "CONFIG_FPGA_MGR_ZYNQMP_FPGA)", mgr,
				   strcmp(o->board->family, "zynq-7000") ? "other method" : xdev);
	}
	free(img);
	if (rc || o->no_verify)
		return rc;

	uint32_t id = 0;
	if ((rc = read_reg(&c, VTA_REG_CONFIG_ID, &id, err))) {
		char why[VTA_ERROR_MSG_MAX];
		snprintf(why, sizeof why, "%s", err ? err->msg : "");
		return vta_error_set(err, rc, -1, "the PL is configured, but the CONFIG_ID check "
				     "failed: %s (--no-verify skips it)", why);
	}
	*config_id = id;
	if (o->want_config_id && id != o->want_config_id && !o->force)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "the PL is configured, but its CONFIG_ID register reads 0x%08X "
				     "and this vta was built for configuration 0x%08X: the bitstream "
				     "is not a VTA of this configuration", (unsigned)id,
				     (unsigned)o->want_config_id);
	return VTA_OK;
}
