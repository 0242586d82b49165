/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The format of a model file (import.h, vc_model_format_of) and the front
 * end for an ONNX or TFLite file.
 */
#include <stdio.h>
#include <string.h>

#include "import/import.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* The first character of the text that is not white space or in a '#' or
 * ';' comment line (Darknet's), or 0. */
static int first_text_char(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '#' || p[i] == ';') {
			while (i < n && p[i] != '\n')
				i++;
			continue;
		}
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
			return (unsigned char)p[i];
	}
	return 0;
}

vc_model_format vc_model_format_of(const char *path)
{
	char head[512] = {0};
	size_t got = 0;
	FILE *f = fopen(path, "rb");
	if (f) {
		got = fread(head, 1, sizeof head, f);
		fclose(f);
	}
	if (ends_with(path, ".tflite") || (got >= 8 && !memcmp(head + 4, "TFL3", 4)))
		return VC_FORMAT_TFLITE;
	if (ends_with(path, ".cfg") || first_text_char(head, got) == '[')
		return VC_FORMAT_DARKNET;
	return VC_FORMAT_ONNX;
}

int vc_import_file(vc_module *m, const char *path)
{
	switch (vc_model_format_of(path)) {
	case VC_FORMAT_TFLITE:
		return vc_import_tflite_file(m, path);
	case VC_FORMAT_DARKNET:
		return vc_error(m, NULL, "%s is a Darknet cfg: import it with its weights (vta compile --weights=FILE "
				"or --synthetic-weights=SEED)", path);
	default:
		return vc_import_onnx_file(m, path);
	}
}
