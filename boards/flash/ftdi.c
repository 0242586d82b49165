/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A JTAG cable on an FTDI FT2232H/FT4232H in MPSSE mode (FTDI AN_108),
 * through libusb-1.0: the Digilent programmer of the PYNQ-Z1 and the common
 * Ultra96 JTAG pods. ADBUS0 TCK, ADBUS1 TDI, ADBUS2 TDO, ADBUS3 TMS.
 *
 * Built only where pkg-config finds libusb-1.0 (VTA_HAVE_LIBUSB); elsewhere
 * vta_ftdi_open explains what is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flash.h"

#ifndef VTA_HAVE_LIBUSB

int vta_ftdi_available(void)
{
	return 0;
}

int vta_ftdi_open(const vta_ftdi_opts_t *o, vta_jtag_cable_t *cable, vta_error_t *err)
{
	(void)o;
	memset(cable, 0, sizeof *cable);
	return vta_error_set(err, VTA_EUNSUPPORTED, -1,
			     "no USB-JTAG cable support: built without libusb-1.0");
}

#else
#include <libusb.h>

/* MPSSE opcodes (AN_108 section 3). */
enum {
	OP_BYTES_OUT = 0x19,    /* clock bytes out on -ve edge, LSB first */
	OP_BITS_OUT = 0x1B,     /* clock bits out on -ve edge, LSB first */
	OP_BYTES_INOUT = 0x39,  /* out on -ve, in on +ve, LSB first */
	OP_BITS_INOUT = 0x3B,
	OP_TMS_OUT = 0x4B,      /* TMS bits, bit 7 of the byte held on TDI */
	OP_TMS_INOUT = 0x6B,
	OP_SET_LOW = 0x80,      /* ADBUS value, direction */
	OP_SET_HIGH = 0x82,     /* ACBUS value, direction */
	OP_LOOPBACK_OFF = 0x85,
	OP_CLK_DIV = 0x86,
	OP_SEND_IMMEDIATE = 0x87,
	OP_DIV5_OFF = 0x8A,
	OP_3PHASE_OFF = 0x8D,
	OP_ADAPTIVE_OFF = 0x97,
};
/* FTDI vendor requests. */
enum { REQ_RESET = 0, REQ_SET_BITMODE = 0x0B, REQ_SET_LATENCY = 0x09 };
enum { BITMODE_RESET = 0x00, BITMODE_MPSSE = 0x02 };

#define PIN_TCK 0x01
#define PIN_TDI 0x02
#define PIN_TMS 0x08
#define TIMEOUT_MS 5000
#define WBUF 16384

typedef struct {
	libusb_context *usb;
	libusb_device_handle *h;
	int iface;
	unsigned char ep_in, ep_out;
	uint16_t max_packet;
	uint8_t low_value, low_dir;
	uint8_t wbuf[WBUF];
	size_t wlen;
	size_t pending_read;       /* bytes the queued commands will return */
} Ftdi;

static int usb_err(vta_error_t *err, const char *what, int rc)
{
	return vta_error_set(err, VTA_EIO, -1, "FTDI cable: %s: %s", what, libusb_strerror(rc));
}

static int flush_write(Ftdi *f, vta_error_t *err)
{
	size_t off = 0;
	while (off < f->wlen) {
		int done = 0;
		int rc = libusb_bulk_transfer(f->h, f->ep_out, f->wbuf + off, (int)(f->wlen - off),
					      &done, TIMEOUT_MS);
		if (rc)
			return usb_err(err, "write", rc);
		off += (size_t)done;
	}
	f->wlen = 0;
	return VTA_OK;
}

static int queue(Ftdi *f, const uint8_t *p, size_t n, vta_error_t *err)
{
	if (f->wlen + n > WBUF) {
		int rc = flush_write(f, err);
		if (rc)
			return rc;
	}
	memcpy(f->wbuf + f->wlen, p, n);
	f->wlen += n;
	return VTA_OK;
}

/* Send everything queued and read the n bytes it returns (stripping the two
 * modem-status bytes at the start of every USB packet). */
static int read_bytes(Ftdi *f, uint8_t *dst, size_t n, vta_error_t *err)
{
	uint8_t cmd = OP_SEND_IMMEDIATE;
	int rc = queue(f, &cmd, 1, err);
	if (!rc)
		rc = flush_write(f, err);
	if (rc)
		return rc;
	size_t got = 0;
	int idle = 0;
	uint8_t pkt[4096];
	while (got < n) {
		int len = 0;
		rc = libusb_bulk_transfer(f->h, f->ep_in, pkt, (int)sizeof pkt, &len, TIMEOUT_MS);
		if (rc && rc != LIBUSB_ERROR_TIMEOUT)
			return usb_err(err, "read", rc);
		int data = 0;
		for (int p = 0; p < len; p += f->max_packet) {
			int k = len - p < f->max_packet ? len - p : f->max_packet;
			for (int i = 2; i < k && got < n; i++, data++)
				dst[got++] = pkt[p + i];
		}
		if (!data && ++idle > 100)
			return vta_error_set(err, VTA_ETIMEOUT, -1,
					     "FTDI cable: got %zu of %zu bytes from the MPSSE "
					     "(is the cable in another program's hands?)", got, n);
	}
	f->pending_read = 0;
	return VTA_OK;
}

static int ftdi_tms(void *opaque, const uint8_t *tms, size_t nbits, int tdi, vta_error_t *err)
{
	Ftdi *f = opaque;
	for (size_t i = 0; i < nbits; i += 7) {
		size_t k = nbits - i < 7 ? nbits - i : 7;
		uint8_t b = tdi ? 0x80 : 0;
		for (size_t t = 0; t < k; t++)
			b |= (uint8_t)((tms[(i + t) / 8] >> ((i + t) % 8) & 1) << t);
		uint8_t cmd[3] = {OP_TMS_OUT, (uint8_t)(k - 1), b};
		int rc = queue(f, cmd, 3, err);
		if (rc)
			return rc;
	}
	return VTA_OK;
}

static int ftdi_shift(void *opaque, const uint8_t *tdi, uint8_t *tdo, size_t nbits, int exit,
		      vta_error_t *err)
{
	Ftdi *f = opaque;
	if (nbits == 0)
		return VTA_OK;
	size_t main_bits = exit ? nbits - 1 : nbits, bytes = main_bits / 8, rem = main_bits % 8;
	size_t in_len = 0;
	uint8_t *in = NULL;
	int rc = VTA_OK;
	if (tdo) {
		in = malloc(bytes + 2);
		if (!in)
			return vta_error_set(err, VTA_ENOMEM, -1, "out of memory");
	}
	for (size_t off = 0; off < bytes && !rc;) {
		size_t k = bytes - off < 65536 ? bytes - off : 65536;
		uint8_t hdr[3] = {tdo ? OP_BYTES_INOUT : OP_BYTES_OUT, (uint8_t)(k - 1),
				  (uint8_t)((k - 1) >> 8)};
		rc = queue(f, hdr, 3, err);
		for (size_t p = 0; p < k && !rc; p += 4096) {
			size_t q = k - p < 4096 ? k - p : 4096;
			rc = queue(f, tdi + off + p, q, err);
		}
		if (!rc && tdo) {
			rc = read_bytes(f, in, k, err);
			if (!rc)
				memcpy(tdo + off, in, k);
		}
		off += k;
	}
	if (!rc && rem) {
		uint8_t cmd[3] = {tdo ? OP_BITS_INOUT : OP_BITS_OUT, (uint8_t)(rem - 1), tdi[bytes]};
		rc = queue(f, cmd, 3, err);
		in_len++;
	}
	if (!rc && exit) {
		int last = tdi[(nbits - 1) / 8] >> ((nbits - 1) % 8) & 1;
		uint8_t cmd[3] = {tdo ? OP_TMS_INOUT : OP_TMS_OUT, 0, (uint8_t)(last ? 0x81 : 0x01)};
		rc = queue(f, cmd, 3, err);
		in_len++;
	}
	if (!rc && tdo && in_len) {
		uint8_t r[2];
		rc = read_bytes(f, r, in_len, err);
		size_t i = 0;
		if (!rc && rem) {
			/* The bits arrive at the top of the byte. */
			tdo[bytes] = (uint8_t)(r[i++] >> (8 - rem));
		}
		if (!rc && exit) {
			size_t b = nbits - 1;
			if (r[i] & 0x80)
				tdo[b / 8] |= (uint8_t)(1u << (b % 8));
			else
				tdo[b / 8] &= (uint8_t)~(1u << (b % 8));
		}
	}
	free(in);
	if (!rc && !tdo && f->wlen > WBUF / 2)
		rc = flush_write(f, err);
	return rc;
}

static void ftdi_sleep(void *opaque, unsigned us)
{
	Ftdi *f = opaque;
	flush_write(f, NULL);
	struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
	nanosleep(&ts, NULL);
}

static void ftdi_close(void *opaque)
{
	Ftdi *f = opaque;
	if (!f)
		return;
	if (f->h) {
		flush_write(f, NULL);
		libusb_control_transfer(f->h, 0x40, REQ_SET_BITMODE, BITMODE_RESET << 8,
					(uint16_t)(f->iface + 1), NULL, 0, TIMEOUT_MS);
		libusb_release_interface(f->h, f->iface);
		libusb_close(f->h);
	}
	if (f->usb)
		libusb_exit(f->usb);
	free(f);
}

int vta_ftdi_available(void)
{
	return 1;
}

static int open_device(Ftdi *f, const vta_ftdi_opts_t *o, uint16_t vid, uint16_t pid,
		       vta_error_t *err)
{
	libusb_device **list;
	ssize_t n = libusb_get_device_list(f->usb, &list);
	if (n < 0)
		return usb_err(err, "listing USB devices", (int)n);
	int found = 0, denied = 0;
	for (ssize_t i = 0; i < n && !f->h; i++) {
		struct libusb_device_descriptor d;
		if (libusb_get_device_descriptor(list[i], &d) || d.idVendor != vid || d.idProduct != pid)
			continue;
		found++;
		libusb_device_handle *h;
		int rc = libusb_open(list[i], &h);
		if (rc) {
			denied += rc == LIBUSB_ERROR_ACCESS;
			continue;
		}
		if (o->serial) {
			unsigned char s[128] = {0};
			if (libusb_get_string_descriptor_ascii(h, d.iSerialNumber, s, sizeof s) < 0 ||
			    strcmp((char *)s, o->serial)) {
				libusb_close(h);
				continue;
			}
		}
		f->h = h;
	}
	libusb_free_device_list(list, 1);
	if (f->h)
		return VTA_OK;
	if (denied)
		return vta_error_set(err, VTA_EIO, -1,
				     "FTDI cable %04x:%04x found but not accessible: no permission "
				     "(add a udev rule for it, or run as root)", vid, pid);
	if (found && o->serial)
		return vta_error_set(err, VTA_EIO, -1, "no FTDI cable %04x:%04x with serial %s",
				     vid, pid, o->serial);
	return vta_error_set(err, VTA_EIO, -1,
			     "cable not found: no USB device %04x:%04x (is the board's USB-JTAG "
			     "port connected and powered? --vid-pid selects another cable)", vid, pid);
}

int vta_ftdi_open(const vta_ftdi_opts_t *o, vta_jtag_cable_t *cable, vta_error_t *err)
{
	memset(cable, 0, sizeof *cable);
	Ftdi *f = calloc(1, sizeof *f);
	if (!f)
		return vta_error_set(err, VTA_ENOMEM, -1, "out of memory");
	int rc = libusb_init(&f->usb);
	if (rc) {
		f->usb = NULL;
		ftdi_close(f);
		return usb_err(err, "libusb_init", rc);
	}
	uint16_t vid = o->vid ? o->vid : 0x0403, pid = o->pid ? o->pid : 0x6010;
	f->iface = o->interface;
	f->ep_in = (unsigned char)(0x81 + 2 * f->iface);
	f->ep_out = (unsigned char)(0x02 + 2 * f->iface);
	f->max_packet = 512;
	if ((rc = open_device(f, o, vid, pid, err))) {
		ftdi_close(f);
		return rc;
	}
	libusb_set_auto_detach_kernel_driver(f->h, 1);
	if ((rc = libusb_claim_interface(f->h, f->iface))) {
		libusb_close(f->h);
		f->h = NULL;
		ftdi_close(f);
		return usb_err(err, "claiming the interface (is another program using the cable?)", rc);
	}
	uint16_t index = (uint16_t)(f->iface + 1);
	if ((rc = libusb_control_transfer(f->h, 0x40, REQ_RESET, 0, index, NULL, 0, TIMEOUT_MS)) < 0 ||
	    (rc = libusb_control_transfer(f->h, 0x40, REQ_SET_LATENCY, 2, index, NULL, 0, TIMEOUT_MS)) < 0 ||
	    (rc = libusb_control_transfer(f->h, 0x40, REQ_SET_BITMODE, BITMODE_RESET << 8, index,
					  NULL, 0, TIMEOUT_MS)) < 0 ||
	    (rc = libusb_control_transfer(f->h, 0x40, REQ_SET_BITMODE, BITMODE_MPSSE << 8, index,
					  NULL, 0, TIMEOUT_MS)) < 0) {
		ftdi_close(f);
		return usb_err(err, "switching to MPSSE mode", rc);
	}
	/* TCK = 60 MHz / (2 * (1 + div)) with the divide-by-5 off. */
	unsigned khz = o->khz ? o->khz : 6000;
	unsigned div = khz >= 30000 ? 0 : 30000 / khz - 1;
	if (div > 0xFFFF)
		div = 0xFFFF;
	f->low_value = (uint8_t)((o->gpio_value & 0xFF) | PIN_TMS);
	f->low_dir = (uint8_t)((o->gpio_dir & 0xFF) | PIN_TCK | PIN_TDI | PIN_TMS);
	const uint8_t init[] = {OP_LOOPBACK_OFF, OP_DIV5_OFF, OP_ADAPTIVE_OFF, OP_3PHASE_OFF,
				OP_CLK_DIV, (uint8_t)div, (uint8_t)(div >> 8),
				OP_SET_LOW, f->low_value, f->low_dir,
				OP_SET_HIGH, (uint8_t)(o->gpio_value >> 8), (uint8_t)(o->gpio_dir >> 8)};
	/* Check that the MPSSE answers: a bad opcode returns FA <opcode>. */
	uint8_t probe[] = {0xAB}, echo[2];
	if ((rc = queue(f, init, sizeof init, err)) || (rc = queue(f, probe, 1, err)) ||
	    (rc = read_bytes(f, echo, 2, err))) {
		ftdi_close(f);
		return rc;
	}
	if (echo[0] != 0xFA || echo[1] != 0xAB) {
		ftdi_close(f);
		return vta_error_set(err, VTA_EIO, -1, "FTDI cable %04x:%04x interface %d does not "
				     "answer as an MPSSE (not an FT2232H/FT4232H?)", vid, pid, f->iface);
	}
	cable->opaque = f;
	cable->tms = ftdi_tms;
	cable->shift = ftdi_shift;
	cable->sleep_us = ftdi_sleep;
	cable->close = ftdi_close;
	return VTA_OK;
}
#endif
