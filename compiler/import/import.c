/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The front end for a model file: TFLite when the file says so (the
 * FlatBuffers identifier "TFL3" at byte 4, or a .tflite name), ONNX
 * otherwise.
 */
#include <stdio.h>
#include <string.h>

#include "import/import.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

int vc_import_file(vc_module *m, const char *path)
{
	char head[8] = {0};
	FILE *f = fopen(path, "rb");
	if (f) {
		if (fread(head, 1, sizeof head, f) != sizeof head)
			memset(head, 0, sizeof head);
		fclose(f);
	}
	if (ends_with(path, ".tflite") || !memcmp(head + 4, "TFL3", 4))
		return vc_import_tflite_file(m, path);
	return vc_import_onnx_file(m, path);
}
