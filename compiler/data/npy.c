/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NumPy's .npy files (format version 1.0: the magic, a little-endian
 * header length, a Python dict literal of dtype, order and shape padded so
 * the data start on a 64-byte boundary, then the data in C order), which
 * numpy.load reads. Written to a temporary name and renamed, so a failed
 * write leaves no half file. The data are the host's (little-endian on every
 * host the project builds for: x86-64, ARMv7, AArch64).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "data/data.h"

int vc_npy_write(const char *path, const vc_type *t, const void *data, char *err, size_t n)
{
	const char *descr = t->dtype == VC_F32 ? "<f4" : t->dtype == VC_I8 ? "|i1" : "<i4";
	char hdr[256];
	int k = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
	for (int i = 0; i < t->rank; i++) /* a Python tuple: (a, b), and (a,) for one */
		k += snprintf(hdr + k, sizeof hdr - (size_t)k, "%s%lld", i ? ", " : "", (long long)t->dim[i]);
	k += snprintf(hdr + k, sizeof hdr - (size_t)k, "%s), }", t->rank == 1 ? "," : "");
	/* spaces and a newline up to the boundary: 10 bytes of preamble */
	int total = (10 + k + 1 + 63) / 64 * 64;
	while (10 + k + 1 < total)
		hdr[k++] = ' ';
	hdr[k++] = '\n';
	uint8_t pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (uint8_t)(k & 0xff), (uint8_t)(k >> 8)};
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		snprintf(err, n, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	size_t bytes = (size_t)vc_type_bytes(t);
	int ok = fwrite(pre, 1, sizeof pre, f) == sizeof pre && fwrite(hdr, 1, (size_t)k, f) == (size_t)k &&
		 fwrite(data, 1, bytes, f) == bytes;
	ok = !fclose(f) && ok;
	if (!ok || rename(tmp, path)) {
		snprintf(err, n, "cannot write %s: %s", path, strerror(errno));
		remove(tmp);
		return -1;
	}
	return 0;
}
