/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of include/vta/util.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/util.h>

int vta_read_file(const char *path, uint8_t **data, size_t *len, vta_error_t *err)
{
	*data = NULL;
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return vta_error_set(err, VTA_EIO, -1, "cannot open %s: %s", path, strerror(errno));
	size_t cap = 65536, n = 0;
	uint8_t *buf = NULL;
	for (;;) {
		if (n + 1 >= cap || !buf) { /* room for the data and the NUL */
			cap = buf ? cap * 2 : cap;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return vta_error_set(err, VTA_ENOMEM, -1, "out of memory reading %s", path);
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return vta_error_set(err, VTA_EIO, -1, "cannot read %s", path);
	}
	buf[n] = 0;
	*data = buf;
	*len = n;
	return VTA_OK;
}
