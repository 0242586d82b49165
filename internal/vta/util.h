/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers shared by the tools and libraries of the stack. */
#ifndef VTA_UTIL_H
#define VTA_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <vta/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Read a whole file. On success *data (free it with free()) holds its *len
 * bytes followed by one NUL byte, so text can be used as a C string. On
 * failure returns VTA_EIO or VTA_ENOMEM with a message naming the file.
 */
int vta_read_file(const char *path, uint8_t **data, size_t *len, vta_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* VTA_UTIL_H */
