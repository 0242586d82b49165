/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An application that defines functions with the names of the library's
 * internals (mem_find_range, mem_alloc, ctx_error, cmdq_emit): linked against
 * libvta.so, the library must keep using its own (they are not exported),
 * so the driver API still works. Built and run by `make check-install`.
 */
#include <stdio.h>
#include <stdlib.h>

#include <vta/driver.h>
#include <vta/runtime.h>

long mem_find_range(const void *m, unsigned long off, unsigned long n, void *b);
long mem_find_range(const void *m, unsigned long off, unsigned long n, void *b)
{
	(void)m, (void)off, (void)n, (void)b;
	return -1;
}

int mem_alloc(void *m, size_t size, int flags, const char *fn, size_t *off, void *err);
int mem_alloc(void *m, size_t size, int flags, const char *fn, size_t *off, void *err)
{
	(void)m, (void)size, (void)flags, (void)fn, (void)off, (void)err;
	return 6;
}

int ctx_error(void *ctx, int code, const char *fmt, ...);
int ctx_error(void *ctx, int code, const char *fmt, ...)
{
	(void)ctx, (void)fmt;
	return code;
}

int cmdq_emit(void *q, int stage, void *in, void *err);
int cmdq_emit(void *q, int stage, void *in, void *err)
{
	(void)q, (void)stage, (void)in, (void)err;
	return 1;
}

int main(void)
{
	char *p = VTAMemAlloc(8192, VTA_CACHED);
	if (!p || VTAMemGetPhyAddr(p + 100) == 0 || VTAMemGetPhyAddr(p + 100) != VTAMemGetPhyAddr(p) + 100) {
		fprintf(stderr, "interpose: the library used the application's functions: %s\n",
			vta_errmsg(NULL));
		return 1;
	}
	VTAMemFree(p);
	printf("interpose: the library's internals are its own\n");
	return vta_errcode(NULL) != 0;
}
