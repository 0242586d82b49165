/* SPDX-License-Identifier: Apache-2.0 */
/* The ONNX importer (vta compile MODEL.onnx), property of fuzz_import.h. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(vc_import_onnx_bytes, data, size);
	return 0;
}
