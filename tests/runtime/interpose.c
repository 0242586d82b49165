/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An application that defines functions with the names of the library's
 * internals (mem_find, mem_alloc, rt_error, cmd_emit): linked against
 * libvta.so, the library must keep using its own (they are not exported),
 * so the driver API still works. Built and run by `make check-install`.
 */
#include <stdio.h>
#include <stdlib.h>

#include <vta/driver.h>
#include <vta/runtime.h>

long mem_find(const void *ctx, const void *p);
long mem_find(const void *ctx, const void *p)
{
	(void)ctx, (void)p;
	return -1;
}

int mem_alloc(void *m, size_t size, int flags, const char *fn, size_t *off, void *err);
int mem_alloc(void *m, size_t size, int flags, const char *fn, size_t *off, void *err)
{
	(void)m, (void)size, (void)flags, (void)fn, (void)off, (void)err;
	return 6;
}

int rt_error(void *ctx, int code, const char *fmt, ...);
int rt_error(void *ctx, int code, const char *fmt, ...)
{
	(void)ctx, (void)fmt;
	return code;
}

int cmd_emit(void *ctx, int stage, void *in);
int cmd_emit(void *ctx, int stage, void *in)
{
	(void)ctx, (void)stage, (void)in;
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
