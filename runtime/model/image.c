/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Resizing an image to a model's input (<vta/model.h>, vta_image_resize):
 * PIL's bilinear resize, the one torchvision's and Keras' preprocessing use,
 * so that a model sees the pixels it was trained on. Each output pixel is a
 * triangle-weighted mean of the source pixels around its centre, the
 * triangle widened by the scale when shrinking (antialiasing); weights
 * that would fall outside the image are left out and the rest
 * renormalized. Written here rather than taken from Debian's
 * stb_image_resize 0.97, whose downscaling asserts on common ratios (512 to
 * 224 rows from 341: "total < 1.1f").
 */
#include <math.h>
#include <stdlib.h>

#include <vta/model.h>

/* For each of out entries of an axis of in: its first source index, count
 * and weights (at most max_k each, normalized). */
static void axis_weights(int in, int out, int max_k, int *first, int *count, float *w)
{
	double scale = (double)in / out, support = scale > 1 ? scale : 1.0;
	for (int o = 0; o < out; o++) {
		double centre = (o + 0.5) * scale, sum = 0;
		int lo = (int)floor(centre - support), hi = (int)ceil(centre + support);
		lo = lo < 0 ? 0 : lo;
		hi = hi > in ? in : hi;
		hi = hi - lo > max_k ? lo + max_k : hi;
		for (int i = lo; i < hi; i++) {
			double t = 1.0 - fabs((i + 0.5 - centre) / support);
			w[o * max_k + i - lo] = (float)(t > 0 ? t : 0);
			sum += t > 0 ? t : 0;
		}
		for (int i = lo; i < hi; i++)
			w[o * max_k + i - lo] = sum > 0 ? (float)(w[o * max_k + i - lo] / sum) : 0.0f;
		first[o] = lo, count[o] = hi - lo;
	}
}

int vta_image_resize(const uint8_t *src, int w, int h, int channels, uint8_t *dst, int ow, int oh)
{
	if (!src || !dst || w < 1 || h < 1 || ow < 1 || oh < 1 || channels < 1 || channels > 4 || w > 1 << 15 ||
	    h > 1 << 15 || ow > 1 << 15 || oh > 1 << 15)
		return VTA_EINVAL;
	/* a source axis shrunk by s spans about 2 s + 2 pixels an output pixel */
	int kx = 2 * (w / ow + 1) + 2, ky = 2 * (h / oh + 1) + 2;
	int *fx = malloc((size_t)(2 * ow + 2 * oh) * sizeof *fx), *cx = fx + ow, *fy = cx + ow, *cy = fy + oh;
	float *wx = malloc((size_t)ow * (size_t)kx * sizeof *wx), *wy = malloc((size_t)oh * (size_t)ky * sizeof *wy);
	float *rows = malloc((size_t)h * (size_t)ow * (size_t)channels * sizeof *rows);
	int rc = fx && wx && wy && rows ? 0 : VTA_ENOMEM;
	if (!rc) {
		axis_weights(w, ow, kx, fx, cx, wx);
		axis_weights(h, oh, ky, fy, cy, wy);
		for (int y = 0; y < h; y++) /* columns first, in float */
			for (int x = 0; x < ow; x++)
				for (int c = 0; c < channels; c++) {
					float v = 0;
					for (int k = 0; k < cx[x]; k++)
						v += wx[x * kx + k] * src[((size_t)y * (size_t)w + (size_t)(fx[x] + k)) * (size_t)channels + (size_t)c];
					rows[((size_t)y * (size_t)ow + (size_t)x) * (size_t)channels + (size_t)c] = v;
				}
		for (int y = 0; y < oh; y++)
			for (int x = 0; x < ow; x++)
				for (int c = 0; c < channels; c++) {
					float v = 0;
					for (int k = 0; k < cy[y]; k++)
						v += wy[y * ky + k] * rows[((size_t)(fy[y] + k) * (size_t)ow + (size_t)x) * (size_t)channels + (size_t)c];
					v = roundf(v);
					dst[((size_t)y * (size_t)ow + (size_t)x) * (size_t)channels + (size_t)c] =
						(uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
				}
	}
	free(fx);
	free(wx);
	free(wy);
	free(rows);
	return rc;
}
