/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One model input from a file: raw float32 of exactly the tensor's size, or
 * an image through stb_image.
 */
#include <stdlib.h>
#include <string.h>
#include <stb/stb_image.h>
#include <vta/bytes.h>
#include <vta/model.h>

#include "data/data.h"

/* Read an input: raw float32 (exact size), or an image through stb_image
 * (grayscale or RGB to the model's channels, pixel values 0..255), resized
 * to the model's rows and columns by libvta's vta_image_resize: PIL's
 * bilinear resize with antialiasing, which torchvision's and Keras'
 * preprocessing use. */
int vc_read_input(const char *path, const vc_type *t, float *out, char *err, size_t n)
{
	int64_t elems = vc_type_elems(t);
	size_t len;
	uint8_t *buf = vc_read_all(path, &len, err, n);
	if (!buf)
		return -1;
	if (len == (size_t)elems * 4) {
		for (int64_t i = 0; i < elems; i++) {
			uint32_t u = vta_rd_le32(buf + 4 * i);
			memcpy(&out[i], &u, 4);
		}
		free(buf);
		return 0;
	}
	if (t->rank != 4) {
		snprintf(err, n, "%s: %zu bytes is not a raw float32 tensor of %lld values", path, len, (long long)elems);
		free(buf);
		return -1;
	}
	int C = (int)t->dim[1], H = (int)t->dim[2], W = (int)t->dim[3], w, h, ch;
	uint8_t *px = stbi_load_from_memory(buf, (int)len, &w, &h, &ch, C == 1 ? 1 : 3);
	free(buf);
	if (!px) {
		snprintf(err, n, "%s: neither a raw float32 tensor of %lld values nor an image stb_image reads (%s)", path,
			 (long long)elems, stbi_failure_reason());
		return -1;
	}
	int have = C == 1 ? 1 : 3;
	uint8_t *rs = w == W && h == H ? px : malloc((size_t)W * (size_t)H * (size_t)have);
	if (!rs || (rs != px && vta_image_resize(px, w, h, have, rs, W, H))) {
		snprintf(err, n, "%s: out of memory resizing a %dx%d image to %dx%d", path, w, h, W, H);
		if (rs != px)
			free(rs);
		stbi_image_free(px);
		return -1;
	}
	for (int c = 0; c < C; c++)
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++)
				out[(c * H + y) * W + x] = rs[(y * W + x) * have + (c < have ? c : 0)];
	if (rs != px)
		free(rs);
	stbi_image_free(px);
	return 0;
}
