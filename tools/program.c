/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The program commands of the vta tool: assemble, disassemble, run on the
 * golden model, and the configuration this tool was built for.
 *
 *   vta asm PROG.s -o PROG.bin     assemble
 *   vta disasm PROG.bin            disassemble (the output assembles back)
 *   vta sim PROG.s|PROG.bin        run on the golden model, print results
 *   vta config                     the configuration this tool is built for
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/asm.h>
#include <vta/bytes.h>
#include <vta/fsim.h>
#include <vta/util.h>

#include "tools.h"

static int fail(const vta_error_t *e)
{
	fprintf(stderr, "vta: %s\n", e->msg[0] ? e->msg : vta_strerror(e->code));
	return 1;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static char *read_text(const char *path, vta_error_t *err)
{
	uint8_t *buf;
	size_t len;
	if (vta_read_file(path, &buf, &len, err))
		return NULL;
	if (strlen((char *)buf) != len) {
		free(buf);
		vta_error_set(err, VTA_EINVAL, -1, "%s is not a text file (it contains a NUL byte)", path);
		return NULL;
	}
	return (char *)buf;
}

/* Load a program from assembly (*.s) or a binary file. */
static int load_program(const char *path, vta_program_t *p, vta_error_t *err)
{
	if (ends_with(path, ".s") || ends_with(path, ".asm")) {
		char *text = read_text(path, err);
		if (!text)
			return err->code;
		int rc = vta_asm(text, path, p, err);
		free(text);
		return rc;
	}
	return vta_program_read(path, p, err);
}

int vta_cmd_asm(int argc, char **argv)
{
	const char *src = NULL, *out = NULL;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!src && argv[i][0] != '-')
			src = argv[i];
		else
			return vta_command_misuse("asm");
	}
	if (!src || !out)
		return vta_command_misuse("asm");
	vta_error_t err;
	char *text = read_text(src, &err);
	if (!text)
		return fail(&err);
	vta_program_t p;
	int rc = vta_asm(text, src, &p, &err);
	free(text);
	if (rc)
		return fail(&err);
	rc = vta_program_write(&p, out, &err);
	size_t n = p.n_insns, segs = p.n_segs;
	vta_program_free(&p);
	if (rc)
		return fail(&err);
	fprintf(stderr, "vta: wrote %s: %zu instructions, %zu data segments\n", out, n, segs);
	return 0;
}

int vta_cmd_disasm(int argc, char **argv)
{
	if (argc != 1)
		return vta_command_misuse("disasm");
	vta_error_t err;
	vta_program_t p;
	if (vta_program_read(argv[0], &p, &err))
		return fail(&err);
	int rc = vta_disasm(&p, stdout);
	vta_program_free(&p);
	return rc ? 1 : 0;
}

static void print_region(const uint8_t *dram, const vta_print_t *r)
{
	printf("%s (%s, %" PRIu32 " x %" PRIu32 ", at 0x%" PRIX64 "):\n", r->name,
	       r->type == VTA_PRINT_I32 ? "int32" : "int8", r->rows, r->cols, r->addr);
	for (uint32_t y = 0; y < r->rows; y++) {
		fputs(" ", stdout);
		for (uint32_t x = 0; x < r->cols; x++) {
			uint64_t i = (uint64_t)y * r->cols + x;
			if (r->type == VTA_PRINT_I32) {
				printf(" %8" PRId32, (int32_t)vta_rd_le32(dram + r->addr + 4 * i));
			} else {
				printf(" %4d", (int8_t)dram[r->addr + i]);
			}
		}
		putchar('\n');
	}
}

int vta_cmd_sim(int argc, char **argv)
{
	if (argc != 1)
		return vta_command_misuse("sim");
	vta_error_t err;
	vta_program_t p;
	if (load_program(argv[0], &p, &err))
		return fail(&err);
	/* The assembler and the reader keep every program within VTA_PROGRAM_MAX_DRAM. */
	uint64_t need = vta_program_extent(&p);
	uint64_t dram = p.dram_bytes ? p.dram_bytes : (need < (1u << 20) ? (1u << 20) : need);
	int rc = 1;
	vta_fsim_t *sim = vta_fsim_create((size_t)dram, &err);
	if (!sim)
		goto out;
	uint8_t *mem = vta_fsim_dram(sim);
	if (vta_program_place(&p, mem, dram, &err))
		goto out;
	vta_fsim_set_bases(sim, &p.bases);
	if (vta_fsim_run(sim, p.text_addr, (uint32_t)p.n_insns, &err))
		goto out;
	for (size_t i = 0; i < p.n_prints; i++)
		print_region(mem, &p.prints[i]);
	const vta_counters_t *c = vta_fsim_counters(sim);
	printf("finished: %" PRIu64 " instructions (load %" PRIu64 ", store %" PRIu64 ", gemm %" PRIu64
	       ", alu %" PRIu64 ", finish %" PRIu64 ")\n",
	       c->insns[0] + c->insns[1] + c->insns[2] + c->insns[3] + c->insns[4], c->insns[0],
	       c->insns[1], c->insns[2], c->insns[4], c->insns[3]);
	printf("micro-ops: gemm %" PRIu64 " (%" PRIu64 " MACs), gemm reset %" PRIu64 ", alu %" PRIu64 "\n",
	       c->gemm_uops, c->gemm_uops * VTA_BATCH * VTA_BLOCK_IN * VTA_BLOCK_OUT,
	       c->gemm_reset_uops, c->alu_uops);
	printf("DRAM bytes: read uop %" PRIu64 ", wgt %" PRIu64 ", inp %" PRIu64 ", acc %" PRIu64
	       ", acc8 %" PRIu64 ", instructions %" PRIu64 "; written %" PRIu64 "\n",
	       c->bytes_read[VTA_MEM_ID_UOP], c->bytes_read[VTA_MEM_ID_WGT], c->bytes_read[VTA_MEM_ID_INP],
	       c->bytes_read[VTA_MEM_ID_ACC], c->bytes_read[VTA_MEM_ID_ACC_8BIT], c->insn_bytes_read,
	       c->bytes_written);
	printf("token waits: l2g %" PRIu64 ", g2l %" PRIu64 ", g2s %" PRIu64 ", s2g %" PRIu64 "\n",
	       c->token_waits[VTA_Q_L2G], c->token_waits[VTA_Q_G2L], c->token_waits[VTA_Q_G2S],
	       c->token_waits[VTA_Q_S2G]);
	rc = 0;
out:
	if (rc)
		fail(&err);
	vta_fsim_destroy(sim);
	vta_program_free(&p);
	return rc;
}

int vta_cmd_config(int argc, char **argv)
{
	(void)argv;
	if (argc)
		return vta_command_misuse("config");
	printf("configuration %s (id 0x%08X), target %s, hardware version %s\n", VTA_CONFIG_NAME,
	       VTA_CONFIG_ID, VTA_TARGET, VTA_HW_VER);
	printf("GEMM tile: %d x %d x %d int8 (%d MACs per micro-op), int32 accumulators\n", VTA_BATCH,
	       VTA_BLOCK_IN, VTA_BLOCK_OUT, VTA_BATCH * VTA_BLOCK_IN * VTA_BLOCK_OUT);
	printf("buffers: uop %d x 4 B, inp %d x %d B, wgt %d x %d B, acc %d x %d B, out %d x %d B\n",
	       VTA_UOP_BUFF_DEPTH, VTA_INP_BUFF_DEPTH, VTA_INP_ELEM_BYTES, VTA_WGT_BUFF_DEPTH,
	       VTA_WGT_ELEM_BYTES, VTA_ACC_BUFF_DEPTH, VTA_ACC_ELEM_BYTES, VTA_OUT_BUFF_DEPTH,
	       VTA_OUT_ELEM_BYTES);
	printf("AXI data bus: %d bits; queues: %d instructions per module, %d tokens\n", VTA_BUS_WIDTH,
	       VTA_INSN_QUEUE_DEPTH, VTA_TOKEN_QUEUE_DEPTH);
	return 0;
}
