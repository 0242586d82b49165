/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Constructed bitstreams for the flash tests: a small configuration stream
 * (dummy words, bus-width pattern, sync, a few packets incl. CMD START and
 * DESYNC) and a .bit header around it, with every field under test control.
 */
#ifndef VTA_TESTS_BITGEN_H
#define VTA_TESTS_BITGEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The configuration words of the test stream (nframe words of frame data). */
static inline size_t bitgen_words(uint32_t *w, size_t nframe)
{
	size_t n = 0;
	for (int i = 0; i < 8; i++)
		w[n++] = 0xFFFFFFFFu;
	w[n++] = 0x000000BBu; /* bus-width detect */
	w[n++] = 0x11220044u;
	w[n++] = 0xFFFFFFFFu;
	w[n++] = 0xFFFFFFFFu;
	w[n++] = 0xAA995566u; /* sync */
	w[n++] = 0x20000000u;
	w[n++] = 0x30008001u; /* CMD <- RCRC */
	w[n++] = 0x00000007u;
	w[n++] = 0x30004000u; /* type 1 FDRI, 0 words */
	w[n++] = 0x50000000u | (uint32_t)nframe; /* type 2, nframe words */
	for (size_t i = 0; i < nframe; i++)
		w[n++] = (uint32_t)(0x9E3779B9u * (i + 1)); /* frame data */
	w[n++] = 0x30008001u; /* CMD <- START */
	w[n++] = 0x00000005u;
	w[n++] = 0x30008001u; /* CMD <- DESYNC */
	w[n++] = 0x0000000Du;
	for (int i = 0; i < 4; i++)
		w[n++] = 0x20000000u;
	return n;
}

/* Big-endian bytes of the test stream; *len gets its size. malloc'd. */
static inline uint8_t *bitgen_payload(size_t nframe, size_t *len)
{
	uint32_t *w = malloc((nframe + 64) * 4);
	size_t n = bitgen_words(w, nframe);
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
