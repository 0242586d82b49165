/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `vta flash`: load a .bit or .bin into the PL, on the board through
 * fpga_manager (or /dev/xdevcfg), or from a host over USB-JTAG.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/vta_config.h>

#include "flash.h"

int vta_cmd_flash(int argc, char **argv);
extern const char vta_flash_usage[];

const char vta_flash_usage[] =
		"usage: vta flash [options] FILE.bit|FILE.bin\n"
		"       vta flash --info FILE.bit     print the header and stop\n"
		"       vta flash --jtag --scan       list the devices on the JTAG chain\n"
		"options:\n"
		"  --board NAME   pynq-z1, pynq-z2 or ultra96v2 (default: $VTA_BOARD, else from\n"
		"                 /proc/device-tree/compatible, else from this build's target)\n"
		"  --jtag         program over a USB-JTAG cable (FT2232H) instead of fpga_manager\n"
		"  --vid-pid V:P  the cable's USB ids (default 0403:6010)\n"
		"  --serial S     the cable's serial number\n"
		"  --khz N        TCK frequency (default 6000)\n"
		"  --interface N  FTDI interface, 0 = A (default), 1 = B\n"
		"  --root DIR     sysfs/dev root (default $VTA_SYSFS_ROOT or /)\n"
		"  --force        load even if the part or the configuration does not match\n"
		"  --no-verify    skip the CONFIG_ID register check after loading\n"
		"  -v             say what is done\n";

static void usage(FILE *f)
{
	fputs(vta_flash_usage, f);
}

static void print_header(const char *path, const vta_bitfile_t *bf)
{
	if (!bf->has_header) {
		printf("%s: raw bitstream (.bin%s), %zu bytes\n", path,
		       bf->swapped ? ", byte-swapped for the Zynq drivers" : "", bf->len);
		return;
	}
	printf("%s:\n  design: %s\n  part:   %s\n  date:   %s %s\n  data:   %zu bytes\n", path,
	       bf->design, bf->part, bf->date, bf->time, bf->len);
	if (bf->has_user_id)
		printf("  VTA configuration (UserID): 0x%08X%s\n", (unsigned)bf->user_id,
		       bf->user_id == VTA_CONFIG_ID ? " (this build)" : " (NOT this build)");
}

static void print_stream(const vta_bitfile_t *bf)
{
	const vta_bitstream_t *st = &bf->stream;
	printf("  stream: sync at word %zu, IDCODE 0x%08X, %zu words of frame data, %u CRC "
	       "check%s, DESYNC at word %zu\n", st->sync_word, (unsigned)st->idcode,
	       st->fdri_words, st->crc_checks, st->crc_checks == 1 ? "" : "s", st->desync_word);
	if (st->has_axss)
		printf("  USR_ACCESS: 0x%08X\n", (unsigned)st->axss);
}

/* The board from the device tree of the running kernel, or NULL. */
static const vta_board_t *board_from_dt(const char *root)
{
	char path[4096], buf[512];
	snprintf(path, sizeof path, "%s/proc/device-tree/compatible", root ? root : "");
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	/* A list of NUL-separated strings. */
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
		if (strstr(buf + i, "zynqmp"))
			return vta_board_find("ultra96v2");
		if (strstr(buf + i, "zynq-7000"))
			return vta_board_find("pynq-z2");
	}
	return NULL;
}

static const vta_board_t *pick_board(const char *name, const char *root, int jtag)
{
	if (!name)
		name = getenv("VTA_BOARD");
	if (name && *name) {
		const vta_board_t *b = vta_board_find(name);
		if (!b) {
			fprintf(stderr, "vta flash: unknown board \"%s\"; boards:", name);
			for (int i = 0; vta_board_at(i); i++)
				fprintf(stderr, " %s", vta_board_at(i)->name);
			fprintf(stderr, "\n");
		}
		return b;
	}
	const vta_board_t *b = jtag ? NULL : board_from_dt(root ? root : getenv("VTA_SYSFS_ROOT"));
	return b ? b : vta_board_for_target(VTA_TARGET);
}

static int do_jtag(const vta_ftdi_opts_t *fo, const vta_bitfile_t *bf, const vta_board_t *board,
		   int scan_only, int force, int verbose)
{
	vta_error_t err = {0};
	vta_jtag_cable_t cable;
	if (!vta_ftdi_available()) {
		fprintf(stderr, "vta flash: this vta was built without libusb-1.0, so it has no "
				"USB-JTAG cable (install libusb-1.0-0-dev and rebuild)\n");
		return 1;
	}
	if (vta_ftdi_open(fo, &cable, &err)) {
		fprintf(stderr, "vta flash: %s\n", err.msg);
		return 1;
	}
	vta_jtag_t j;
	int rc = vta_jtag_scan(&j, &cable, &err);
	j.verbose = verbose;
	if (!rc) {
		printf("JTAG chain (%d device%s, TDO first, IR %u bits):\n", j.ndev,
		       j.ndev == 1 ? "" : "s", j.ir_total);
		for (int i = 0; i < j.ndev; i++)
			printf("  %d: IDCODE 0x%08X  %-10s IR %u%s\n", i, (unsigned)j.dev[i].idcode,
			       j.dev[i].name, j.dev[i].ir_len, j.dev[i].is_pl ? "  (PL)" : "");
	}
	if (!rc && !scan_only) {
		int d = vta_jtag_find_pl(&j);
		uint32_t stat = 0;
		if (d < 0) {
			rc = vta_error_set(&err, VTA_EIO, -1, "no Zynq-7000 or Zynq UltraScale+ "
					   "configuration TAP on the chain");
		} else if (!force && (j.dev[d].idcode & 0x0FFFFFFFu) != (board->idcode & 0x0FFFFFFFu)) {
			rc = vta_error_set(&err, VTA_EINVAL, -1,
					   "wrong part: the chain has a %s (IDCODE 0x%08X), the %s a %s",
					   j.dev[d].name, (unsigned)j.dev[d].idcode, board->name, board->part);
		} else if (!force && bf->has_header && !vta_bit_part_matches(bf->part, board->part)) {
			rc = vta_error_set(&err, VTA_EINVAL, -1, "wrong part: the bitstream is for "
					   "%s, the %s has a %s", bf->part, board->name, board->part);
		} else if (!(rc = vta_jtag_program(&j, d, bf, &stat, &err))) {
			printf("configured device %d (%s): DONE, STAT 0x%08X\n", d, j.dev[d].name,
			       (unsigned)stat);
		}
	}
	if (cable.close)
		cable.close(cable.opaque);
	if (rc) {
		fprintf(stderr, "vta flash: %s\n", err.msg);
		return 1;
	}
	return 0;
}

int vta_cmd_flash(int argc, char **argv)
{
	const char *file = NULL, *board_name = NULL, *root = NULL;
	int info = 0, jtag = 0, scan = 0, verbose = 0;
	vta_flash_opts_t o = {0};
	vta_ftdi_opts_t fo = {0};
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		if (!strcmp(a, "--board") && more)
			board_name = argv[++i];
		else if (!strcmp(a, "--root") && more)
			root = argv[++i];
		else if (!strcmp(a, "--info"))
			info = 1;
		else if (!strcmp(a, "--jtag"))
			jtag = 1;
		else if (!strcmp(a, "--scan"))
			scan = 1;
		else if (!strcmp(a, "--force"))
			o.force = 1;
		else if (!strcmp(a, "--no-verify"))
			o.no_verify = 1;
		else if (!strcmp(a, "-v"))
			verbose = 1;
		else if (!strcmp(a, "--vid-pid") && more) {
			unsigned v, p;
			if (sscanf(argv[++i], "%x:%x", &v, &p) != 2 || v > 0xFFFF || p > 0xFFFF) {
				fprintf(stderr, "vta flash: --vid-pid wants VID:PID in hex, not \"%s\"\n",
					argv[i]);
				return 2;
			}
			fo.vid = (uint16_t)v;
			fo.pid = (uint16_t)p;
		} else if (!strcmp(a, "--serial") && more)
			fo.serial = argv[++i];
		else if (!strcmp(a, "--khz") && more)
			fo.khz = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(a, "--interface") && more)
			fo.interface = atoi(argv[++i]);
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "vta flash: unknown option %s\n", a);
			usage(stderr);
			return 2;
		} else if (!file)
			file = a;
		else {
			fprintf(stderr, "vta flash: more than one file (%s, %s)\n", file, a);
			return 2;
		}
	}
	const vta_board_t *board = pick_board(board_name, root, jtag);
	if (!board)
		return 2;
	if (scan && jtag)
		return do_jtag(&fo, NULL, board, 1, o.force, verbose);
	if (!file) {
		usage(stderr);
		return 2;
	}

	vta_error_t err = {0};
	uint8_t *buf;
	size_t n;
	vta_bitfile_t bf;
	if (vta_read_file(file, &buf, &n, &err) || vta_bit_parse(buf, n, file, &bf, &err)) {
		fprintf(stderr, "vta flash: %s\n", err.msg);
		free(buf);
		return 1;
	}
	int rc = 0;
	if (info || verbose) {
		print_header(file, &bf);
		print_stream(&bf);
	}
	if (info) {
		free(buf);
		return 0;
	}
	/* Everything about the file is checked before fpga_manager or the cable is touched. */
	if (vta_bit_check(&bf, board, VTA_CONFIG_ID, o.force, file, &err)) {
		fprintf(stderr, "vta flash: %s\n", err.msg);
		free(buf);
		return 1;
	}
	if (jtag) {
		rc = do_jtag(&fo, &bf, board, 0, o.force, verbose);
	} else {
		const char *method;
		uint32_t id;
		o.board = board;
		o.root = root;
		o.verbose = verbose;
		o.want_config_id = VTA_CONFIG_ID;
		if (vta_flash_linux(&bf, &o, &method, &id, &err)) {
			fprintf(stderr, "vta flash: %s\n", err.msg);
			rc = 1;
		} else if (o.no_verify) {
			printf("%s: loaded into the %s through %s (CONFIG_ID not checked)\n", file,
			       board->name, method);
		} else {
			printf("%s: loaded into the %s through %s; CONFIG_ID 0x%08X = configuration "
			       "%s\n", file, board->name, method, (unsigned)id,
			       id == VTA_CONFIG_ID ? VTA_CONFIG_NAME : "(forced, not this build)");
		}
	}
	free(buf);
	return rc;
}
