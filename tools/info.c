/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `vta info [BACKEND]`: the backends available on this machine and, for one
 * device (default: $VTA_TARGET or fsim), its configuration, version and
 * counters.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <vta/runtime.h>
#include <vta/vta_config.h>

int vta_cmd_info(int argc, char **argv);

int vta_cmd_info(int argc, char **argv)
{
	const char *target = argc > 0 ? argv[0] : NULL;
	printf("library configuration: %s (ID 0x%08X)\n", VTA_CONFIG_NAME, (unsigned)VTA_CONFIG_ID);
	printf("backends:\n");
	for (int i = 0; i < vta_backend_count(); i++) {
		char why[256];
		const char *name = vta_backend_name(i);
		int rc = vta_backend_probe(name, why, sizeof why);
		printf("  %-5s %s%s\n", name, rc ? "unavailable: " : "available", rc ? why : "");
	}
	vta_context_t *ctx;
	vta_error_t err;
	if (vta_context_open(target, &ctx, &err)) {
		fprintf(stderr, "vta info: %s\n", err.msg);
		return 1;
	}
	vta_device_info_t info;
	vta_context_info(ctx, &info);
	printf("device: %s (%s)\n", info.backend, info.description);
	printf("  configuration ID 0x%08" PRIX32 ", version %" PRIu32 ".%" PRIu32 ".%" PRIu32 "\n",
	       info.config_id, info.version >> 16, (info.version >> 8) & 0xFF, info.version & 0xFF);
	printf("  DMA memory %" PRIu64 " bytes (%" PRIu64 " free), %s\n", info.dram_bytes,
	       info.dram_free, info.coherent ? "coherent" : "needs cache maintenance");
	if (info.has_counters) {
		const vta_counters_t *c = &info.counters;
		uint64_t insns = 0;
		for (int i = 0; i < 8; i++)
			insns += c->insns[i];
		printf("  counters: runs %" PRIu64 ", instructions %" PRIu64 ", gemm uops %" PRIu64
		       ", alu uops %" PRIu64 ", cycles %" PRIu64 "\n",
		       info.runs, insns, c->gemm_uops, c->alu_uops, c->cycles);
	}
	vta_context_close(ctx);
	return 0;
}
