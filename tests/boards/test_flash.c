/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `vta flash` without a board: .bit parsing and .bin conversion on
 * constructed files (good and malformed), and the fpga_manager / xdevcfg
 * paths against a fake sysfs tree in a temporary directory.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vta/vta_config.h>

#include "bitgen.h"
#include "flash.h"
#include "test.h"

#define DESIGN "vta_wrapper;UserID=0X%08X;Version=2022.2"

static uint8_t *payload;
static size_t plen;

static void setup_payload(void)
{
	if (!payload)
		payload = bitgen_payload(37, &plen);
}

/* A .bit for part with the UserID of this build. */
static uint8_t *make_bit(const char *part, uint32_t user_id, size_t *len)
{
	char design[128];
	snprintf(design, sizeof design, DESIGN, (unsigned)user_id);
	setup_payload();
	return bitgen_bit(design, part, "2026/11/29", "12:34:56", payload, plen, len);
}

/* ---- .bit parsing -------------------------------------------------------- */

static void bit_fields(void)
{
	size_t n;
	uint8_t *b = make_bit("7z020clg400", 0x12345678u, &n);
	vta_bitfile_t bf;
	vta_error_t err = {0};
	CHECK_EQ(vta_bit_parse(b, n, "t.bit", &bf, &err), VTA_OK);
	CHECK_EQ(bf.has_header, 1);
	CHECK(!strcmp(bf.design, "vta_wrapper;UserID=0X12345678;Version=2022.2"));
	CHECK(!strcmp(bf.part, "7z020clg400"));
	CHECK(!strcmp(bf.date, "2026/11/29"));
	CHECK(!strcmp(bf.time, "12:34:56"));
	CHECK_EQ(bf.len, plen);
	CHECK(!memcmp(bf.data, payload, plen));
	CHECK_EQ(bf.has_user_id, 1);
	CHECK_U64(bf.user_id, 0x12345678u);
	CHECK_EQ(bf.swapped, 0);
	free(b);
}

static void bit_default_user_id(void)
{
	size_t n;
	uint8_t *b = make_bit("7z020clg400", 0xFFFFFFFFu, &n);
	vta_bitfile_t bf;
	CHECK_EQ(vta_bit_parse(b, n, "t.bit", &bf, NULL), VTA_OK);
	CHECK_EQ(bf.has_user_id, 0);
	free(b);
}

static void bit_to_bin_swaps_words(void)
{
	size_t n;
	uint8_t *b = make_bit("7z020clg400", 1, &n);
	vta_bitfile_t bf;
	CHECK_EQ(vta_bit_parse(b, n, "t.bit", &bf, NULL), VTA_OK);
	uint8_t *bin;
	size_t blen;
	CHECK_EQ(vta_bit_to_bin(&bf, &bin, &blen, NULL), VTA_OK);
	CHECK_EQ(blen, plen);
	for (size_t i = 0; i < plen; i += 4)
		CHECK(bin[i] == payload[i + 3] && bin[i + 1] == payload[i + 2] &&
		      bin[i + 2] == payload[i + 1] && bin[i + 3] == payload[i]);
	/* The sync word, word 12, reads 66 55 99 AA. */
	static const uint8_t sync[] = {0x66, 0x55, 0x99, 0xAA};
	CHECK(!memcmp(bin + 48, sync, 4));

	/* The converted image is itself a valid, already-swapped .bin. */
	vta_bitfile_t raw;
	CHECK_EQ(vta_bit_parse(bin, blen, "t.bin", &raw, NULL), VTA_OK);
	CHECK_EQ(raw.has_header, 0);
	CHECK_EQ(raw.swapped, 1);
	uint8_t *again;
	size_t alen;
	CHECK_EQ(vta_bit_to_bin(&raw, &again, &alen, NULL), VTA_OK);
	CHECK(alen == blen && !memcmp(again, bin, blen));
	free(again);
	free(bin);
	free(b);
}

static void bin_raw(void)
{
	setup_payload();
	vta_bitfile_t bf;
	CHECK_EQ(vta_bit_parse(payload, plen, "t.bin", &bf, NULL), VTA_OK);
	CHECK_EQ(bf.has_header, 0);
	CHECK_EQ(bf.swapped, 0);
	CHECK_EQ(bf.len, plen);
}

/* Parse must fail with a message containing want. */
static void expect_bad(const uint8_t *b, size_t n, const char *want)
{
	vta_bitfile_t bf;
	vta_error_t err = {0};
	CHECK_EQ(vta_bit_parse(b, n, "bad.bit", &bf, &err), VTA_EINVAL);
	CHECK_STR_CONTAINS(err.msg, want);
	CHECK_STR_CONTAINS(err.msg, "bad.bit");
}

static void bit_truncated_data(void)
{
	size_t n;
	uint8_t *b = make_bit("7z020clg400", 1, &n);
	expect_bad(b, n - 4, "truncated");
	expect_bad(b, n / 2, "truncated");
	free(b);
}

static void bit_truncated_header(void)
{
	size_t n;
	uint8_t *b = make_bit("7z020clg400", 1, &n);
	/* Inside field 'a'; in the length of 'b' (at 61); inside 'b'; right before 'e'. */
	expect_bad(b, 20, "field 'a' of 45 bytes runs past the end");
	expect_bad(b, 62, "field 'b' truncated");
	expect_bad(b, 70, "field 'b' of 12 bytes runs past the end");
	size_t e = n - plen - 5;
	expect_bad(b, e, "before the data field");
	expect_bad(b, e + 3, "length field truncated");
	free(b);
}

static void bit_no_sync(void)
{
	setup_payload();
	uint8_t *p = malloc(plen);
	memcpy(p, payload, plen);
	p[48] = 0; /* break the sync word */
	size_t n;
	uint8_t *b = bitgen_bit("d", "7z020clg400", "x", "y", p, plen, &n);
	expect_bad(b, n, "no sync word");
	/* And as a raw file it is not recognised at all. */
	vta_bitfile_t bf;
	vta_error_t err = {0};
	CHECK_EQ(vta_bit_parse(p, plen, "junk.bin", &bf, &err), VTA_EINVAL);
	CHECK_STR_CONTAINS(err.msg, "neither a .bit file");
	free(b);
	free(p);
}

static void bit_odd_length(void)
{
	setup_payload();
	size_t n;
	uint8_t *b = bitgen_bit("d", "7z020clg400", "x", "y", payload, plen - 2, &n);
	expect_bad(b, n, "not a whole number of 32-bit words");
	free(b);
}

static void bit_bad_fields(void)
{
	setup_payload();
	size_t n;
	uint8_t *b = bitgen_bit("d", NULL, "x", "y", payload, plen, &n);
	expect_bad(b, n, "no part field ('b')");
	free(b);
	b = bitgen_bit("d", "", "x", "y", payload, plen, &n);
	expect_bad(b, n, "empty part name");
	free(b);
	b = bitgen_bit("d", "7z020clg400", "x", "y", payload, plen, &n);
	b[13] = 'z'; /* field 'a' becomes 'z' */
	expect_bad(b, n, "unknown .bit header field 0x7A");
	b[13] = 'a';
	b[13 + 3 + 1] = 'X'; /* remove the NUL of "d" */
	expect_bad(b, n, "not NUL-terminated");
	free(b);
	/* A header that is only the magic. */
	b = bitgen_bit("d", "p1234", "x", "y", payload, plen, &n);
	expect_bad(b, 12, "malformed after the magic");
	free(b);
}

static void bit_empty_data(void)
{
	size_t n;
	uint8_t *b = bitgen_bit("d", "7z020clg400", "x", "y", NULL, 0, &n);
	expect_bad(b, n, "no configuration data");
	free(b);
}

static void part_matching(void)
{
	CHECK(vta_bit_part_matches("7z020clg400", "xc7z020clg400-1"));
	CHECK(vta_bit_part_matches("xc7z020clg400-1", "xc7z020clg400-1"));
	CHECK(vta_bit_part_matches("7Z020CLG400", "xc7z020clg400-1"));
	CHECK(vta_bit_part_matches("xczu3eg-sbva484-1-e", "xczu3eg-sbva484-1-e"));
	CHECK(vta_bit_part_matches("zu3egsbva484", "xczu3eg-sbva484-1-e"));
	CHECK(!vta_bit_part_matches("7z010clg400", "xc7z020clg400-1"));
	CHECK(!vta_bit_part_matches("7z020clg484", "xc7z020clg400-1"));
	CHECK(!vta_bit_part_matches("xczu3eg-sbva484-1-e", "xc7z020clg400-1"));
	CHECK(!vta_bit_part_matches("7z02", "xc7z020clg400-1"));
	CHECK(!vta_bit_part_matches("", "xc7z020clg400-1"));
}

static void read_missing_file(void)
{
	uint8_t *b;
	size_t n;
	vta_error_t err = {0};
	CHECK_EQ(vta_read_file("/nonexistent/x.bit", &b, &n, &err), VTA_EIO);
	CHECK_STR_CONTAINS(err.msg, "cannot open /nonexistent/x.bit");
}

/* The flash code reads files with the project's one vta_read_file, which
 * ends the data with a NUL byte (include/vta/util.h); a second definition
 * linked before libvta once shadowed it without the NUL. */
static void read_file_terminates(void)
{
	char path[] = "/tmp/vta-flash-read-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	static const char text[] = "abc";
	CHECK(write(fd, text, 3) == 3);
	close(fd);
	uint8_t *b;
	size_t n;
	CHECK_EQ(vta_read_file(path, &b, &n, NULL), VTA_OK);
	CHECK_EQ(n, 3);
	CHECK(b && !memcmp(b, "abc", 4));
	free(b);
	unlink(path);
}

static void board_table(void)
{
	const vta_board_t *z1 = vta_board_find("pynq-z1"), *u96 = vta_board_find("ultra96v2");
	CHECK(z1 && u96 && vta_board_find("pynq-z2") && !vta_board_find("zcu104"));
	CHECK(!strcmp(z1->part, "xc7z020clg400-1"));
	CHECK_U64(z1->reg_base, 0x43C00000u);
	CHECK_EQ(z1->bus_bits, 64);
	CHECK_EQ(z1->fclk_khz, 100000);
	CHECK(!strcmp(u96->part, "xczu3eg-sbva484-1-e"));
	CHECK_U64(u96->reg_base, 0xA0000000u);
	CHECK_EQ(u96->bus_bits, 128);
	CHECK(vta_board_for_target("ultra96") == u96);
	CHECK(!strcmp(vta_board_for_target("sim")->target, "pynq"));
	/* This build's board has the bus width the configuration was built for. */
	CHECK_EQ(vta_board_for_target(VTA_TARGET)->bus_bits, VTA_BUS_WIDTH);
}

/* ---- the fake sysfs tree ------------------------------------------------- */

static char root[256];

static void path_of(char *out, size_t cap, const char *rel)
{
	snprintf(out, cap, "%s/%s", root, rel);
}

static void mkdirs(const char *rel)
{
	char p[512];
	path_of(p, sizeof p, rel);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
	char p[512];
	path_of(p, sizeof p, rel);
	FILE *f = fopen(p, "w");
	if (!f) {
		test_fail_(__FILE__, __LINE__, "cannot create %s", p);
		return;
	}
	fputs(text, f);
	fclose(f);
}

/* The contents of a file under root (static buffer; "" if missing). */
static const char *get(const char *rel, size_t *len)
{
	static char buf[1 << 16];
	char p[512];
	path_of(p, sizeof p, rel);
	FILE *f = fopen(p, "rb");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static int has(const char *rel)
{
	char p[512];
	struct stat st;
	path_of(p, sizeof p, rel);
	return stat(p, &st) == 0;
}

/* A sparse dev/mem with id in the CONFIG_ID register of board. */
static void put_devmem(const vta_board_t *b, uint32_t id)
{
	char p[512];
	mkdirs("dev");
	path_of(p, sizeof p, "dev/mem");
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	off_t at = (off_t)(b->reg_base + 0x4000u);
	CHECK(ftruncate(fd, at + 0x1000) == 0);
	CHECK(pwrite(fd, &id, 4, at) == 4);
	close(fd);
}

static void fresh_root(void)
{
	if (root[0]) {
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf %s", root);
		if (system(cmd)) {
		}
	}
	snprintf(root, sizeof root, "/tmp/vta-flash-test-XXXXXX");
	if (!mkdtemp(root))
		test_fail_(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
}

/* A board with fpga_manager (Xilinx kernel) in state. */
static void fake_fpga_manager(const vta_board_t *b, const char *state)
{
	fresh_root();
	mkdirs("sys/class/fpga_manager/fpga0");
	put("sys/class/fpga_manager/fpga0/firmware", "");
	put("sys/class/fpga_manager/fpga0/flags", "");
	put("sys/class/fpga_manager/fpga0/state", state);
	mkdirs("lib/firmware");
	put_devmem(b, VTA_CONFIG_ID);
}

typedef struct {
	int rc;
	const char *method;
	uint32_t id;
	vta_error_t err;
} Result;

static Result flash(const vta_board_t *b, const char *part, uint32_t user_id, int no_verify)
{
	Result r = {0};
	size_t n;
	uint8_t *buf = make_bit(part, user_id, &n);
	vta_bitfile_t bf;
	CHECK_EQ(vta_bit_parse(buf, n, "t.bit", &bf, NULL), VTA_OK);
	vta_flash_opts_t o = {.board = b, .root = root, .want_config_id = VTA_CONFIG_ID,
			      .no_verify = no_verify};
	r.rc = vta_flash_linux(&bf, &o, &r.method, &r.id, &r.err);
	free(buf);
	return r;
}

static void check_swapped_image(const char *rel)
{
	size_t len;
	const uint8_t *img = (const uint8_t *)get(rel, &len);
	CHECK_EQ(len, plen);
	int same = len == plen;
	for (size_t i = 0; same && i < plen; i += 4)
		same = img[i] == payload[i + 3] && img[i + 3] == payload[i];
	CHECK(same);
}

static void fm_loads(void)
{
	const vta_board_t *b = vta_board_for_target(VTA_TARGET);
	fake_fpga_manager(b, "operating\n");
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_OK);
	CHECK(r.method && !strcmp(r.method, "fpga_manager"));
	CHECK_U64(r.id, VTA_CONFIG_ID);
	char name[64], rel[128];
	snprintf(name, sizeof name, "vta-%s.bin", b->name);
	CHECK(!strcmp(get("sys/class/fpga_manager/fpga0/firmware", NULL), name));
	CHECK(!strcmp(get("sys/class/fpga_manager/fpga0/flags", NULL), "0"));
	snprintf(rel, sizeof rel, "lib/firmware/%s", name);
	check_swapped_image(rel);
	snprintf(rel, sizeof rel, "lib/firmware/.%s.tmp", name);
	CHECK(!has(rel));
}

static void fm_firmware_path_param(void)
{
	const vta_board_t *b = vta_board_find("pynq-z2");
	fake_fpga_manager(b, "operating");
	mkdirs("sys/module/firmware_class/parameters");
	put("sys/module/firmware_class/parameters/path", "/opt/fw\n");
	mkdirs("opt/fw");
	Result r = flash(b, "7z020clg400", VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_OK);
	check_swapped_image("opt/fw/vta-pynq-z2.bin");
	CHECK(!has("lib/firmware/vta-pynq-z2.bin"));
}

static void fm_wrong_part(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_fpga_manager(b, "operating");
	Result r = flash(b, "7z010clg400", VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EINVAL);
	CHECK_STR_CONTAINS(r.err.msg, "wrong part: the bitstream is for 7z010clg400, but the "
			   "pynq-z1 has a xc7z020clg400-1");
	CHECK(!has("lib/firmware/vta-pynq-z1.bin"));
	CHECK(!strcmp(get("sys/class/fpga_manager/fpga0/firmware", NULL), ""));

	/* A Zynq-7000 bitstream on the Ultra96. */
	const vta_board_t *u = vta_board_find("ultra96v2");
	fake_fpga_manager(u, "operating");
	r = flash(u, "7z020clg400", VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EINVAL);
	CHECK_STR_CONTAINS(r.err.msg, "the ultra96v2 has a xczu3eg-sbva484-1-e");
}

static void fm_wrong_configuration(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_fpga_manager(b, "operating");
	Result r = flash(b, b->part, VTA_CONFIG_ID ^ 1u, 0);
	CHECK_EQ(r.rc, VTA_EINVAL);
	CHECK_STR_CONTAINS(r.err.msg, "built for VTA configuration");
	CHECK(!has("lib/firmware/vta-pynq-z1.bin"));
}

static void fm_config_id_register(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	/* A .bit without UserID loads, but the register tells it is another configuration. */
	fake_fpga_manager(b, "operating");
	put_devmem(b, 0xDEADBEEFu);
	Result r = flash(b, b->part, 0xFFFFFFFFu, 0);
	CHECK_EQ(r.rc, VTA_EINVAL);
	CHECK_STR_CONTAINS(r.err.msg, "CONFIG_ID register reads 0xDEADBEEF");
	/* --no-verify skips the register. */
	r = flash(b, b->part, 0xFFFFFFFFu, 1);
	CHECK_EQ(r.rc, VTA_OK);
	CHECK_U64(r.id, 0);
	/* No dev/mem: loaded, but the check fails and says so. */
	char p[512];
	path_of(p, sizeof p, "dev/mem");
	unlink(p);
	r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "CONFIG_ID check failed: cannot open");
}

static void fm_ultra96_high_address(void)
{
	const vta_board_t *u = vta_board_find("ultra96v2");
	fake_fpga_manager(u, "operating");
	Result r = flash(u, "xczu3eg-sbva484-1-e", VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_OK);
	CHECK_U64(r.id, VTA_CONFIG_ID);
}

static void fm_state_error(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_fpga_manager(b, "write error\n");
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "state \"write error\"");
	CHECK(r.id == 0);
}

static void fm_missing(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fresh_root();
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EUNSUPPORTED);
	CHECK_STR_CONTAINS(r.err.msg, "no fpga_manager");
	CHECK_STR_CONTAINS(r.err.msg, "dev/xdevcfg");

	/* fpga_manager without the Xilinx 'firmware' attribute. */
	mkdirs("sys/class/fpga_manager/fpga0");
	put("sys/class/fpga_manager/fpga0/state", "operating");
	r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EUNSUPPORTED);
	CHECK_STR_CONTAINS(r.err.msg, "device-tree overlays");
}

static void fm_no_firmware_dir(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_fpga_manager(b, "operating");
	char p[512];
	path_of(p, sizeof p, "lib/firmware");
	rmdir(p);
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "lib/firmware does not exist");
}

static void fm_partial_write(void)
{
	/* The temporary image is a link to /dev/full: the write fails part-way,
	 * nothing is loaded and the firmware name is never written. */
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_fpga_manager(b, "operating");
	char p[512];
	path_of(p, sizeof p, "lib/firmware/.vta-pynq-z1.bin.tmp");
	CHECK(symlink("/dev/full", p) == 0);
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "stopped after 0 of");
	CHECK(!has("lib/firmware/vta-pynq-z1.bin"));
	CHECK(!strcmp(get("sys/class/fpga_manager/fpga0/firmware", NULL), ""));
}

static void fm_no_permission(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	if (geteuid() == 0) {
		/* root ignores file modes, but not a read-only sysfs attribute. */
		static const char ro[] = "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size";
		if (access(ro, F_OK))
			return;
		fake_fpga_manager(b, "operating");
		char p[512];
		path_of(p, sizeof p, "sys/class/fpga_manager/fpga0/flags");
		unlink(p);
		CHECK(symlink(ro, p) == 0);
		Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
		CHECK_EQ(r.rc, VTA_EIO);
		CHECK_STR_CONTAINS(r.err.msg, "no permission to write");
		CHECK_STR_CONTAINS(r.err.msg, "fpga0/flags");
		CHECK(!strcmp(get("sys/class/fpga_manager/fpga0/firmware", NULL), ""));
		return;
	}
	fake_fpga_manager(b, "operating");
	char p[512];
	path_of(p, sizeof p, "lib/firmware");
	chmod(p, 0555);
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	chmod(p, 0755);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "no permission to create");
}

static void fake_xdevcfg(const char *done)
{
	fresh_root();
	mkdirs("sys/class/xdevcfg/xdevcfg/device");
	put("sys/class/xdevcfg/xdevcfg/device/prog_done", done);
	put("sys/class/xdevcfg/xdevcfg/device/is_partial_bitstream", "1");
	put_devmem(vta_board_find("pynq-z1"), VTA_CONFIG_ID);
	put("dev/xdevcfg", "");
}

static void xdevcfg_loads(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_xdevcfg("1\n");
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_OK);
	CHECK(r.method && !strcmp(r.method, "xdevcfg"));
	check_swapped_image("dev/xdevcfg");
	CHECK(!strcmp(get("sys/class/xdevcfg/xdevcfg/device/is_partial_bitstream", NULL), "0"));
}

static void xdevcfg_failures(void)
{
	const vta_board_t *b = vta_board_find("pynq-z1");
	fake_xdevcfg("0\n");
	Result r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "did not finish configuration");

	/* A write that stops part-way is an error, even with prog_done 1. */
	fake_xdevcfg("1\n");
	char p[512];
	path_of(p, sizeof p, "dev/xdevcfg");
	unlink(p);
	CHECK(symlink("/dev/full", p) == 0);
	r = flash(b, b->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EIO);
	CHECK_STR_CONTAINS(r.err.msg, "stopped after 0 of");

	/* xdevcfg exists only on Zynq-7000. */
	fake_xdevcfg("1\n");
	const vta_board_t *u = vta_board_find("ultra96v2");
	r = flash(u, u->part, VTA_CONFIG_ID, 0);
	CHECK_EQ(r.rc, VTA_EUNSUPPORTED);
	CHECK_STR_CONTAINS(r.err.msg, "no fpga_manager");
}

static void cleanup(void)
{
	fresh_root();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	if (system(cmd)) {
	}
	free(payload);
	payload = NULL;
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"bit.fields", bit_fields},
		{"bit.default_user_id", bit_default_user_id},
		{"bit.to_bin_swaps_words", bit_to_bin_swaps_words},
		{"bit.raw_bin", bin_raw},
		{"bit.truncated_data", bit_truncated_data},
		{"bit.truncated_header", bit_truncated_header},
		{"bit.no_sync", bit_no_sync},
		{"bit.odd_length", bit_odd_length},
		{"bit.bad_fields", bit_bad_fields},
		{"bit.empty_data", bit_empty_data},
		{"bit.part_matching", part_matching},
		{"bit.missing_file", read_missing_file},
		{"bit.read_file_terminates", read_file_terminates},
		{"boards.table", board_table},
		{"fpgamgr.loads", fm_loads},
		{"fpgamgr.firmware_path_param", fm_firmware_path_param},
		{"fpgamgr.wrong_part", fm_wrong_part},
		{"fpgamgr.wrong_configuration", fm_wrong_configuration},
		{"fpgamgr.config_id_register", fm_config_id_register},
		{"fpgamgr.ultra96_high_address", fm_ultra96_high_address},
		{"fpgamgr.state_error", fm_state_error},
		{"fpgamgr.missing", fm_missing},
		{"fpgamgr.no_firmware_dir", fm_no_firmware_dir},
		{"fpgamgr.partial_write", fm_partial_write},
		{"fpgamgr.no_permission", fm_no_permission},
		{"xdevcfg.loads", xdevcfg_loads},
		{"xdevcfg.failures", xdevcfg_failures},
		{"cleanup", cleanup},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
