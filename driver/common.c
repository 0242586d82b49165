/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the backends (driver/backend.h): counters, the
 * simulators' DRAM size, the board's register window, the barrier before a
 * start and the exclusive lock on a board's device files.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <vta/vta_boards.h>
#include <vta/vta_config.h>

#include "backend.h"

size_t vta_sim_dram_bytes(void)
{
	const char *s = getenv("VTA_DRAM_MB");
	long mb = s ? strtol(s, NULL, 10) : 0;
	if (mb <= 0 || mb > 4095)
		mb = 128;
	return (size_t)mb << 20;
}

void vta_counters_add(vta_counters_t *t, const vta_counters_t *c)
{
	for (int i = 0; i < 8; i++) {
		t->insns[i] += c->insns[i];
		t->bytes_read[i] += c->bytes_read[i];
	}
	t->gemm_uops += c->gemm_uops;
	t->gemm_reset_uops += c->gemm_reset_uops;
	t->alu_uops += c->alu_uops;
	t->bytes_written += c->bytes_written;
	t->insn_bytes_read += c->insn_bytes_read;
	for (int q = 0; q < VTA_Q_COUNT; q++)
		t->token_waits[q] += c->token_waits[q];
	t->cycles += c->cycles;
	for (int b = 0; b < 4; b++)
		t->busy[b] += c->busy[b];
}

int vta_board_reg_window(uint64_t *base, uint32_t *size, int *coherent, vta_error_t *err)
{
	const char *name = getenv("VTA_BOARD");
	const vta_board_t *b = name && *name ? vta_board_find(name) : vta_board_for_target(VTA_TARGET);
	if (!b)
		return vta_error_set(err, VTA_EINVAL, -1,
				     "VTA_BOARD=%s is not a board of boards/boards.txt", name ? name : "");
	*base = b->reg_base;
	*size = b->reg_size;
	if (coherent)
		*coherent = b->coherent;
	return VTA_OK;
}

void vta_io_barrier(void)
{
	/* The PS's memory port and the accelerator's start register are
	 * different paths: on ARM a DSB makes the CPU's normal-memory writes
	 * (cache maintenance included) complete before the device write. */
#if defined(__aarch64__) || (defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7)
	__asm__ volatile("dsb st" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* The process holding a lock on the file (dev, ino), from /proc/locks: its
 * pid and command name, or 0 if it cannot be found. */
static long lock_holder(dev_t dev, ino_t ino, char *comm, size_t n)
{
	FILE *f = fopen("/proc/locks", "r");
	if (!f)
		return 0;
	char line[256];
	long pid = 0;
	while (!pid && fgets(line, sizeof line, f)) {
		char type[16], kind[16], mode[16];
		long p;
		unsigned maj, min;
		unsigned long long i;
		/* "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5678 0 EOF"; waiters have "->" */
		if (strstr(line, "->"))
			continue;
		if (sscanf(line, "%*d: %15s %15s %15s %ld %x:%x:%llu", type, kind, mode, &p, &maj, &min,
			   &i) == 7 &&
		    maj == major(dev) && min == minor(dev) && i == (unsigned long long)ino)
			pid = p;
	}
	fclose(f);
	comm[0] = 0;
	if (pid) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%ld/comm", pid);
		FILE *c = fopen(path, "r");
		if (c) {
			if (fgets(comm, (int)n, c))
				comm[strcspn(comm, "\n")] = 0;
			fclose(c);
		}
	}
	return pid;
}

int vta_lock_device_file(int fd, const char *path, vta_error_t *err)
{
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return VTA_OK;
	if (errno != EWOULDBLOCK)
		return vta_error_set(err, VTA_EIO, -1, "cannot lock %s: %s", path, strerror(errno));
	struct stat st;
	char comm[64] = "";
	long pid = fstat(fd, &st) ? 0 : lock_holder(st.st_dev, st.st_ino, comm, sizeof comm);
	if (pid == (long)getpid())
		return vta_error_set(err, VTA_EIO, -1,
				     "%s is already in use by this process (pid %ld): a device is "
				     "opened once per process and shared by its threads",
				     path, pid);
	if (pid)
		return vta_error_set(err, VTA_EIO, -1, "%s is in use by process %ld (%s); stop it first",
				     path, pid, comm[0] ? comm : "?");
	return vta_error_set(err, VTA_EIO, -1,
			     "%s is in use by another process (see /proc/locks); stop it first", path);
}
