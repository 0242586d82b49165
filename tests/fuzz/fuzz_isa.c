/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The instruction decoder and printer: every 16-byte word decodes, prints as
 * one line of assembly in any buffer size, and that line assembles back to
 * exactly the same word; every micro-op word decodes and encodes back to its
 * meaningful bits.
 */
#include <vta/asm.h>
#include <vta/isa.h>

#include "fuzz.h"

static void one_word(const uint8_t bytes[16], size_t small)
{
	vta_insn_word_t w;
	vta_insn_load(bytes, &w);
	uint8_t back[16];
	vta_insn_store(&w, back);
	FUZZ_CHECK(!memcmp(back, bytes, 16), "load/store of the word differ");

	char line[512];
	int n = vta_insn_word_format(&w, line, sizeof line);
	FUZZ_CHECK(n > 0 && (size_t)n < sizeof line, "format returned %d", n);
	FUZZ_CHECK(strlen(line) == (size_t)n, "format length %d, string %zu", n, strlen(line));
	/* A short buffer gets a prefix of the same line, NUL-terminated. */
	char shorter[64];
	memset(shorter, 'x', sizeof shorter);
	int k = vta_insn_word_format(&w, shorter, small);
	FUZZ_CHECK(k == n, "format gave %d into %zu bytes, %d into 512", k, small, n);
	if (small)
		FUZZ_CHECK(strlen(shorter) == (small - 1 < (size_t)n ? small - 1 : (size_t)n) &&
				   !strncmp(shorter, line, strlen(shorter)),
			   "truncated format \"%s\" of \"%s\"", shorter, line);
	for (size_t i = small; i < sizeof shorter; i++)
		FUZZ_CHECK(shorter[i] == 'x', "format wrote past %zu bytes", small);

	vta_program_t p;
	vta_error_t err = {0};
	int rc = vta_asm(line, "line", &p, &err);
	FUZZ_CHECK(rc == VTA_OK, "\"%s\" does not assemble: %s", line, err.msg);
	FUZZ_CHECK(p.n_insns == 1 && p.insns[0].w[0] == w.w[0] && p.insns[0].w[1] == w.w[1],
		   "\"%s\" assembles to %zu words, not %016llX %016llX", line, p.n_insns,
		   (unsigned long long)w.w[0], (unsigned long long)w.w[1]);
	vta_program_free(&p);

	/* Decoding keeps only the format's fields: encoding them cannot fail. */
	vta_insn_t in;
	vta_insn_decode(&w, &in);
	vta_insn_word_t again;
	rc = vta_insn_encode(&in, &again, &err);
	FUZZ_CHECK(rc == VTA_OK, "decoded fields do not encode: %s", err.msg);
	vta_insn_t in2;
	vta_insn_decode(&again, &in2);
	FUZZ_CHECK(!memcmp(&in, &in2, sizeof in), "decode(encode(decode(w))) != decode(w)");
}

static void one_uop(const uint8_t b[4])
{
	uint32_t word = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	vta_uop_t u;
	vta_uop_decode(word, &u);
	uint32_t again;
	vta_error_t err = {0};
	FUZZ_CHECK(vta_uop_encode(&u, &again, &err) == VTA_OK, "%s", err.msg);
	vta_uop_t u2;
	vta_uop_decode(again, &u2);
	FUZZ_CHECK(u.dst_idx == u2.dst_idx && u.src_idx == u2.src_idx && u.wgt_idx == u2.wgt_idx,
		   "micro-op 0x%08X does not round-trip", word);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The first byte picks the short buffer size; then up to 8 16-byte words
	 * (words are independent: more per input only slow each run). */
	if (size < 1)
		return 0;
	size_t small = data[0] % 64;
	data++, size--;
	for (size_t off = 0; off + 16 <= size && off < 16 * 8; off += 16) {
		one_word(data + off, small);
		for (int i = 0; i < 16; i += 4)
			one_uop(data + off + i);
	}
	return 0;
}
