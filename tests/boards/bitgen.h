/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Constructed bitstreams for the flash tests: a configuration stream laid
 * out as UG470/UG570 describe a full-device one (dummy words, bus-width
 * pattern, sync, RCRC, COR0, IDCODE, USR_ACCESS, FAR, WCFG, frame data as a
 * type-2 FDRI write, CRC, GRESTORE, DGHIGH, START, CTL0, CRC, DESYNC, NOOPs),
 * with its own CRC computation, and a .bit header around it, with every
 * field under test control. Not a loadable design: the frame data is a
 * pattern.
 */
#ifndef VTA_TESTS_BITGEN_H
#define VTA_TESTS_BITGEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* IDCODEs of the boards' parts (version nibble 0) and frame lengths in words. */
#define BITGEN_XC7Z020 0x03727093u
#define BITGEN_XCZU3EG 0x04710093u
#define BITGEN_FRAME_7SERIES 101
#define BITGEN_FRAME_USPLUS 93

typedef struct bitgen {
	uint32_t idcode;     /* written to IDCODE */
	uint32_t usr_access; /* written to AXSS; 0: no write */
	size_t nwords;       /* frame data words */
	int no_start;        /* 1: leave out CMD START */
	int no_idcode;       /* 1: leave out the IDCODE write */
} bitgen_t;

/*
 * The configuration CRC computed byte-wise with the reflected CRC-32C table
 * (the 32 data bits are its 4 little-endian bytes), then the 5 address bits
 * one by one: a second implementation next to boards/flash/bitfile.c's
 * bit-serial one.
 */
static inline uint32_t bitgen_crc(uint32_t crc, unsigned reg, uint32_t word)
{
	static uint32_t table[256];
	if (!table[1])
		for (uint32_t b = 0; b < 256; b++) {
			uint32_t c = b;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
			table[b] = c;
		}
	for (int i = 0; i < 4; i++)
		crc = (crc >> 8) ^ table[(crc ^ (word >> (8 * i))) & 0xFF];
	for (int i = 0; i < 5; i++) {
		uint32_t bit = (crc ^ (reg >> i)) & 1;
		crc = (crc >> 1) ^ (bit ? 0x82F63B78u : 0);
	}
	return crc;
}

typedef struct {
	uint32_t *w;
	size_t n;
	uint32_t crc;
} bitgen_buf;

static inline void bitgen_put(bitgen_buf *b, uint32_t w)
{
	b->w[b->n++] = w;
}

/* A type-1 write of one word to reg, entered into the CRC. */
static inline void bitgen_write(bitgen_buf *b, unsigned reg, uint32_t v)
{
	bitgen_put(b, 0x30000001u | (uint32_t)reg << 13);
	bitgen_put(b, v);
	b->crc = bitgen_crc(b->crc, reg, v);
}

static inline void bitgen_cmd(bitgen_buf *b, uint32_t cmd)
{
	bitgen_write(b, 0x04, cmd);
	if (cmd == 0x07) /* RCRC */
		b->crc = 0;
}

static inline void bitgen_check_crc(bitgen_buf *b)
{
	bitgen_put(b, 0x30000001u);
	bitgen_put(b, b->crc);
	b->crc = 0;
}

/* The words of the stream g describes; w has room for g->nwords + 128. */
static inline size_t bitgen_words_of(const bitgen_t *g, uint32_t *w)
{
	bitgen_buf b = {w, 0, 0};
	for (int i = 0; i < 8; i++)
		bitgen_put(&b, 0xFFFFFFFFu);
	bitgen_put(&b, 0x000000BBu); /* bus-width detect */
	bitgen_put(&b, 0x11220044u);
	bitgen_put(&b, 0xFFFFFFFFu);
	bitgen_put(&b, 0xFFFFFFFFu);
	bitgen_put(&b, 0xAA995566u); /* sync */
	bitgen_put(&b, 0x20000000u); /* NOOP */
	bitgen_cmd(&b, 0x07);        /* RCRC */
	bitgen_put(&b, 0x20000000u);
	bitgen_put(&b, 0x20000000u);
	bitgen_write(&b, 0x09, 0x02003FE5u); /* COR0 */
	if (!g->no_idcode)
		bitgen_write(&b, 0x0C, g->idcode); /* IDCODE */
	if (g->usr_access)
		bitgen_write(&b, 0x0D, g->usr_access); /* AXSS = USR_ACCESS */
	bitgen_cmd(&b, 0x09);                /* SWITCH */
	bitgen_put(&b, 0x20000000u);
	bitgen_write(&b, 0x06, 0x00000001u); /* MASK */
	bitgen_write(&b, 0x05, 0x00000101u); /* CTL0 */
	bitgen_write(&b, 0x01, 0x00000000u); /* FAR */
	bitgen_cmd(&b, 0x01);                /* WCFG */
	bitgen_put(&b, 0x20000000u);
	bitgen_put(&b, 0x30004000u);         /* FDRI, type 1, 0 words */
	bitgen_put(&b, 0x50000000u | (uint32_t)g->nwords); /* type 2 */
	for (size_t i = 0; i < g->nwords; i++) {
		uint32_t v = (uint32_t)(0x9E3779B9u * (i + 1)); /* frame data */
		bitgen_put(&b, v);
		b.crc = bitgen_crc(b.crc, 0x02, v);
	}
	bitgen_check_crc(&b);
	bitgen_cmd(&b, 0x0A); /* GRESTORE */
	bitgen_put(&b, 0x20000000u);
	bitgen_cmd(&b, 0x03); /* DGHIGH */
	for (int i = 0; i < 4; i++)
		bitgen_put(&b, 0x20000000u);
	if (!g->no_start)
		bitgen_cmd(&b, 0x05); /* START */
	bitgen_put(&b, 0x20000000u);
	bitgen_write(&b, 0x01, 0x03BE0000u); /* FAR */
	bitgen_write(&b, 0x06, 0x00000101u); /* MASK */
	bitgen_write(&b, 0x05, 0x00000101u); /* CTL0 */
	bitgen_check_crc(&b);
	bitgen_cmd(&b, 0x0D); /* DESYNC */
	for (int i = 0; i < 16; i++)
		bitgen_put(&b, 0x20000000u);
	return b.n;
}

/* Big-endian bytes of the stream g describes; *len gets its size. malloc'd. */
static inline uint8_t *bitgen_stream(const bitgen_t *g, size_t *len)
{
	uint32_t *w = malloc((g->nwords + 128) * 4);
	size_t n = bitgen_words_of(g, w);
	uint8_t *p = malloc(n * 4);
	for (size_t i = 0; i < n; i++) {
		p[4 * i] = (uint8_t)(w[i] >> 24);
		p[4 * i + 1] = (uint8_t)(w[i] >> 16);
		p[4 * i + 2] = (uint8_t)(w[i] >> 8);
		p[4 * i + 3] = (uint8_t)w[i];
	}
	free(w);
	*len = n * 4;
	return p;
}

/* A Zynq-7000 (xc7z020) stream with nframe words of frame data and no
 * USR_ACCESS: what the JTAG engine tests shift. */
static inline uint8_t *bitgen_payload(size_t nframe, size_t *len)
{
	bitgen_t g = {BITGEN_XC7Z020, 0, nframe, 0, 0};
	return bitgen_stream(&g, len);
}

static inline size_t bitgen_field(uint8_t *o, char key, const char *s)
{
	size_t n = strlen(s) + 1;
	o[0] = (uint8_t)key;
	o[1] = (uint8_t)(n >> 8);
	o[2] = (uint8_t)n;
	memcpy(o + 3, s, n);
	return 3 + n;
}

/* A .bit file around payload. A NULL field is left out. malloc'd. */
static inline uint8_t *bitgen_bit(const char *design, const char *part, const char *date,
				  const char *time, const uint8_t *payload, size_t plen,
				  size_t *len)
{
	static const uint8_t head[] = {0x00, 0x09, 0x0F, 0xF0, 0x0F, 0xF0, 0x0F, 0xF0,
				       0x0F, 0xF0, 0x00, 0x00, 0x01};
	uint8_t *o = malloc(sizeof head + 4 * 260 + 5 + plen);
	size_t n = sizeof head;
	memcpy(o, head, n);
	if (design)
		n += bitgen_field(o + n, 'a', design);
	if (part)
		n += bitgen_field(o + n, 'b', part);
	if (date)
		n += bitgen_field(o + n, 'c', date);
	if (time)
		n += bitgen_field(o + n, 'd', time);
	o[n++] = 'e';
	o[n++] = (uint8_t)(plen >> 24);
	o[n++] = (uint8_t)(plen >> 16);
	o[n++] = (uint8_t)(plen >> 8);
	o[n++] = (uint8_t)plen;
	if (plen)
		memcpy(o + n, payload, plen);
	*len = n + plen;
	return o;
}

#endif
