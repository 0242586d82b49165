/* SPDX-License-Identifier: Apache-2.0 */
/* The TFLite importer (vta compile MODEL.tflite), property of fuzz_import.h. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(vc_import_tflite_bytes, data, size);
	return 0;
}
