/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Error reporting shared by every library in the stack.
 *
 * Functions return 0 on success or one of the VTA_E* codes below. Where a
 * caller passes a vta_error_t, the library also fills in a message that names
 * the thing that was wrong (a field, an instruction, a file) and, for device
 * runs, the index of the instruction concerned.
 */
#ifndef VTA_ERROR_H
#define VTA_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library exports exactly what its public headers declare. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

enum {
	VTA_OK = 0,
	VTA_EINVAL = 1,   /* a bad argument, field value or syntax */
	VTA_ERANGE = 2,   /* a value or address outside what it must fit */
	VTA_EILLEGAL = 3, /* an illegal opcode, memory type or flag in a stream */
	VTA_EDEADLOCK = 4, /* a program that can never finish */
	VTA_ETOKEN = 5,   /* a dependency-token queue overflow */
	VTA_ENOMEM = 6,   /* out of memory */
	VTA_EIO = 7,      /* a file or device could not be read or written */
	VTA_ETIMEOUT = 8, /* the device did not finish in time */
	VTA_EUNSUPPORTED = 9, /* a feature, backend or file version we do not have */
};

#define VTA_ERROR_MSG_MAX 512

typedef struct vta_error {
	int code;          /* VTA_E*; 0 when no error */
	long insn_index;   /* instruction concerned, or -1 */
	char msg[VTA_ERROR_MSG_MAX];
} vta_error_t;

/* A short phrase for a code ("illegal instruction", ...). */
const char *vta_strerror(int code);
/* The code's name as written here ("VTA_EILLEGAL"), or NULL for a value
 * that is not one of the codes above. */
const char *vta_status_name(int code);

/* Record an error in err (which may be NULL) and return code. */
int vta_error_set(vta_error_t *err, int code, long insn_index, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Clear err (which may be NULL). */
void vta_error_clear(vta_error_t *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* VTA_ERROR_H */
