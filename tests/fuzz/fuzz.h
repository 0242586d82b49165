/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the fuzz targets (libFuzzer). A reader may refuse any input, but
 * what it accepts must keep the properties each target checks; a broken
 * property aborts, which libFuzzer reports like a crash and saves the input.
 */
#ifndef VTA_TESTS_FUZZ_H
#define VTA_TESTS_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/asm.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                        \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                \
			fputc('\n', stderr);                                         \
			abort();                                                     \
		}                                                                    \
	} while (0)

/* A NUL-terminated copy of the input (malloc'd). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);
	if (!t)
		abort();
	memcpy(t, data, size);
	t[size] = 0;
	return t;
}

/* Whether two programs say the same thing, field by field. */
static inline int fuzz_program_equal(const vta_program_t *a, const vta_program_t *b)
{
	if (a->n_insns != b->n_insns || a->text_addr != b->text_addr ||
	    a->dram_bytes != b->dram_bytes || memcmp(&a->bases, &b->bases, sizeof a->bases) ||
	    a->n_segs != b->n_segs || a->n_prints != b->n_prints || a->config_id != b->config_id)
		return 0;
	for (size_t i = 0; i < a->n_insns; i++)
		if (a->insns[i].w[0] != b->insns[i].w[0] || a->insns[i].w[1] != b->insns[i].w[1])
			return 0;
	for (size_t i = 0; i < a->n_segs; i++)
		if (a->segs[i].addr != b->segs[i].addr || a->segs[i].len != b->segs[i].len ||
		    (a->segs[i].len && memcmp(a->segs[i].bytes, b->segs[i].bytes, a->segs[i].len)))
			return 0;
	for (size_t i = 0; i < a->n_prints; i++) {
		const vta_print_t *x = &a->prints[i], *y = &b->prints[i];
		if (strcmp(x->name, y->name) || x->addr != y->addr || x->type != y->type ||
		    x->rows != y->rows || x->cols != y->cols)
			return 0;
	}
	return 1;
}

/*
 * The disassembly of p must assemble back to p (docs/assembly.md promises
 * it). Returns the text (malloc'd) for messages.
 */
static inline void fuzz_check_round_trip(const vta_program_t *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		abort();
	int rc = vta_disasm(p, f);
	fclose(f);
	FUZZ_CHECK(rc == VTA_OK, "vta_disasm failed");
	vta_program_t q;
	vta_error_t err = {0};
	rc = vta_asm(text, "disasm", &q, &err);
	FUZZ_CHECK(rc == VTA_OK, "the disassembly does not assemble: %s\n%s", err.msg, text);
	FUZZ_CHECK(fuzz_program_equal(p, &q), "the disassembly assembles to another program:\n%s",
		   text);
	vta_program_free(&q);
	free(text);
}

#endif
