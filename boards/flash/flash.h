/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Loading a VTA bitstream into a board's programmable logic: the .bit/.bin
 * reader, the Linux fpga_manager and /dev/xdevcfg paths used on the board,
 * and the JTAG engine used from a host over a USB cable. One section per
 * file; `vta flash` (flash_cmd.c) is the command line on top.
 *
 * Every function returns VTA_OK or a VTA_E* code and fills a vta_error_t
 * whose message names what was wrong (the file, the field, the sysfs path).
 */
#ifndef VTA_BOARDS_FLASH_H
#define VTA_BOARDS_FLASH_H

#include <stddef.h>
#include <stdint.h>

#include <vta/error.h>
#include <vta/util.h>
#include <vta/vta_boards.h>

/* ---- bitfile.c: Xilinx .bit and .bin files ------------------------------- */

/* The 32-bit configuration sync word (UG470 table 5-18, UG570). */
#define VTA_BIT_SYNC_WORD 0xAA995566u

/* What the configuration packet stream says (vta_bit_parse fills it). */
typedef struct vta_bitstream {
	size_t sync_word;    /* word index of the sync word */
	size_t desync_word;  /* word index of the CMD DESYNC write */
	uint32_t idcode;     /* the IDCODE written (the device checks it) */
	int has_idcode;
	uint32_t axss;       /* USR_ACCESS (AXSS register), the configuration ID */
	int has_axss;
	size_t fdri_words;   /* frame data words, in fdri_writes writes */
	size_t fdri_writes, fdri_min, fdri_max;
	unsigned crc_checks; /* CRC register writes, every one matching */
	int has_start;       /* a CMD START */
} vta_bitstream_t;

typedef struct vta_bitfile {
	int has_header;       /* 1 for .bit, 0 for a raw .bin */
	int swapped;          /* 1 if the .bin is already byte-swapped (66 55 99 AA) */
	char design[256];     /* field 'a': "top;UserID=0X...;Version=..." */
	char part[64];        /* field 'b': e.g. "7z020clg400" */
	char date[32];        /* field 'c': "2026/11/29" */
	char time[32];        /* field 'd': "12:00:00" */
	uint32_t user_id;     /* UserID=0X... of field 'a' (0xFFFFFFFF: none) */
	int has_user_id;
	const uint8_t *data;  /* configuration data (points into the parsed buffer) */
	size_t len;           /* bytes of data, a multiple of 4 */
	vta_bitstream_t stream;
} vta_bitfile_t;

/*
 * Parse a .bit (header fields a-e) or a raw .bin held in buf[0..n). what names
 * the file in messages. out->data points into buf, which must outlive out.
 * Everything is checked before anything can be loaded: the header fields (in
 * order, NUL-terminated printable text, a date and a time, one well-formed
 * UserID, a data length that ends the file), and the configuration stream
 * (dummy words and the bus-width pattern, the sync word, type-1/type-2 write
 * packets within the file, every CRC check, an IDCODE write before the frame
 * data, frame data, a START command, nothing but NOOPs after DESYNC, no
 * write after the last CRC check). Fails with VTA_EINVAL and a message
 * naming the field or the word.
 */
int vta_bit_parse(const uint8_t *buf, size_t n, const char *what, vta_bitfile_t *out,
		  vta_error_t *err);

/*
 * Whether bf may be loaded into board: its IDCODE is the board's part, its
 * frame data whole frames of the board's family, and unless force, its part
 * name is the board's and its configuration ID (the header's UserID, the
 * stream's USR_ACCESS) is want_config_id (0: not checked). what names the
 * file. Call it before touching fpga_manager or JTAG.
 */
int vta_bit_check(const vta_bitfile_t *bf, const vta_board_t *board, uint32_t want_config_id,
		  int force, const char *what, vta_error_t *err);

/* One step of the configuration CRC (CRC-32C over {reg[4:0], word}, word bit
 * 0 first), as the device computes it. */
uint32_t vta_bit_crc(uint32_t crc, unsigned reg, uint32_t word);

/*
 * The image the Zynq configuration drivers (fpga_manager, xdevcfg) load: the
 * configuration data with the bytes of every 32-bit word reversed, so the
 * sync word reads 66 55 99 AA. *out is malloc'd; the caller frees it.
 */
int vta_bit_to_bin(const vta_bitfile_t *bf, uint8_t **out, size_t *out_len, vta_error_t *err);

/*
 * Whether the part name of a .bit header ("7z020clg400", "xczu3eg-sbva484-1-e")
 * names the same device and package as a Vivado part ("xc7z020clg400-1"):
 * the "xc" prefix and dashes are ignored, and the shorter name must be a
 * prefix of the longer (the speed grade is optional).
 */
int vta_bit_part_matches(const char *bit_part, const char *vivado_part);

/* ---- fpgamgr.c: programming from Linux on the board ---------------------- */

/*
 * Paths are taken relative to the root directory $VTA_SYSFS_ROOT (default
 * "/"), so tests run this code against a fake tree:
 *   sys/class/fpga_manager/fpga0/{firmware,flags,state}
 *   sys/module/firmware_class/parameters/path   (optional firmware dir)
 *   lib/firmware/                               (default firmware dir)
 *   dev/xdevcfg, sys/class/xdevcfg/xdevcfg/device/prog_done  (fallback)
 *   dev/mem                                     (config-ID check)
 */
typedef struct vta_flash_opts {
	const vta_board_t *board; /* required */
	const char *root;         /* NULL: $VTA_SYSFS_ROOT or "/" */
	int force;                /* 1: skip the part and configuration checks */
	int no_verify;            /* 1: skip the CONFIG_ID register check */
	uint32_t want_config_id;  /* expected VTA_CONFIG_ID (0: do not check) */
	int verbose;
} vta_flash_opts_t;

/*
 * Check bf against the board (vta_bit_check, with force and want_config_id
 * of o), load it into the PL through fpga_manager, else /dev/xdevcfg, then read the
 * CONFIG_ID register through dev/mem at board->reg_base. On success *method
 * names the path used ("fpga_manager", "xdevcfg") and *config_id holds the
 * register (0 when not verified).
 */
int vta_flash_linux(const vta_bitfile_t *bf, const vta_flash_opts_t *o, const char **method,
		    uint32_t *config_id, vta_error_t *err);

/* ---- jtag.c: the JTAG engine over a cable -------------------------------- */

/*
 * A cable moves bits; the engine knows the TAP state machine and the chain.
 * Bits are packed LSB first: bit i of a vector is (v[i/8] >> (i%8)) & 1, and
 * bit 0 is clocked first.
 */
typedef struct vta_jtag_cable {
	void *opaque;
	/* Required: clock nbits TMS values, TDI held at tdi (0/1). */
	int (*tms)(void *opaque, const uint8_t *tms, size_t nbits, int tdi, vta_error_t *err);
	/*
	 * Required: in Shift-IR or Shift-DR, clock nbits TDI values with TMS 0,
	 * except TMS 1 on the last bit when exit is 1 (moving to Exit1). When tdo
	 * is not NULL it receives the nbits TDO values.
	 */
	int (*shift)(void *opaque, const uint8_t *tdi, uint8_t *tdo, size_t nbits, int exit,
		     vta_error_t *err);
	/* Optional: wait at least us microseconds (the engine also clocks TCK). */
	void (*sleep_us)(void *opaque, unsigned us);
	/* Optional: release the cable. */
	void (*close)(void *opaque);
} vta_jtag_cable_t;

/* A device found on the chain, index 0 nearest TDO. */
typedef struct vta_jtag_dev {
	uint32_t idcode;     /* 0 for a device that powered up in BYPASS */
	const char *name;    /* "xc7z020", "arm-dap", "xczu3eg", or "unknown" */
	unsigned ir_len;
	int is_pl;           /* 1 for a Xilinx configuration TAP we can load */
	int ultrascale;      /* 1: 12-bit PS/PL TAP of Zynq UltraScale+ */
} vta_jtag_dev_t;

#define VTA_JTAG_MAX_DEVS 16

typedef struct vta_jtag {
	const vta_jtag_cable_t *cable;
	int state;                  /* TAP state (jtag.c enum) */
	int ndev;
	vta_jtag_dev_t dev[VTA_JTAG_MAX_DEVS];
	unsigned ir_total;          /* measured total IR length */
	int verbose;
} vta_jtag_t;

/* Instructions of the 7-series PL TAP (UG470 table 6-3; 6-bit IR). */
enum {
	VTA_JTAG_CFG_OUT = 0x04,
	VTA_JTAG_CFG_IN = 0x05,
	VTA_JTAG_IDCODE = 0x09,
	VTA_JTAG_JPROGRAM = 0x0B,
	VTA_JTAG_JSTART = 0x0C,
	VTA_JTAG_BYPASS = 0x3F,
};
/* Zynq UltraScale+ PS TAP: the PL instructions behind the 0x24 prefix (12-bit IR). */
#define VTA_JTAG_ZU_PL(insn) (0x900u | (insn))

/* The IDCODE of a known part, or NULL (version nibble ignored). */
const vta_jtag_dev_t *vta_jtag_known(uint32_t idcode);

/* Reset the TAPs, read the IDCODEs, measure and check the IR lengths. */
int vta_jtag_scan(vta_jtag_t *j, const vta_jtag_cable_t *cable, vta_error_t *err);

/* Load instruction insn into device d, every other device in BYPASS. */
int vta_jtag_ir(vta_jtag_t *j, int d, uint32_t insn, vta_error_t *err);

/*
 * Shift nbits through device d's data register with the others in BYPASS; tdo
 * (may be NULL) gets d's nbits. Ends in Run-Test/Idle.
 */
int vta_jtag_dr(vta_jtag_t *j, int d, const uint8_t *tdi, uint8_t *tdo, size_t nbits,
		vta_error_t *err);

/* Clock n TCK cycles in Run-Test/Idle. */
int vta_jtag_idle(vta_jtag_t *j, unsigned n, vta_error_t *err);

/*
 * Configure device d (a PL TAP) with bf: JPROGRAM, wait for the clear,
 * CFG_IN + the data MSB first per word, JSTART, startup clocks, then read the
 * STAT register through CFG_IN/CFG_OUT and require DONE. *stat gets STAT.
 */
int vta_jtag_program(vta_jtag_t *j, int d, const vta_bitfile_t *bf, uint32_t *stat,
		     vta_error_t *err);

/* The first device that is a loadable PL TAP, or -1. */
int vta_jtag_find_pl(const vta_jtag_t *j);

/* STAT register (UG470 table 5-25): DONE is bit 14. */
#define VTA_STAT_DONE (1u << 14)

/* ---- ftdi.c: an FT2232H/FT4232H in MPSSE mode, through libusb-1.0 --------- */

typedef struct vta_ftdi_opts {
	uint16_t vid, pid;   /* 0: 0x0403 / 0x6010 (FT2232H) */
	int interface;       /* 0 = A (default), 1 = B */
	unsigned khz;        /* TCK; 0: 6000 */
	uint16_t gpio_value; /* ADBUS/ACBUS initial values (low byte ADBUS) */
	uint16_t gpio_dir;   /* directions; TCK/TDI/TMS are forced outputs */
	const char *serial;  /* NULL: the first matching device */
} vta_ftdi_opts_t;

/* 1 if this build has the libusb cable. */
int vta_ftdi_available(void);

/* Open the cable; on success *cable is ready for vta_jtag_scan. */
int vta_ftdi_open(const vta_ftdi_opts_t *o, vta_jtag_cable_t *cable, vta_error_t *err);

#endif /* VTA_BOARDS_FLASH_H */
