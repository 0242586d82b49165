/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Detections from the outputs of Darknet [yolo] layers (the yolo op has
 * already applied the logistic): box centre (col + x) / W, (row + y) / H,
 * size exp(w) * anchor / input size, probability objectness x class score;
 * best first, then per-class non-maximum suppression.
 */
#include <math.h>
#include <stdlib.h>

#include "exec/exec.h"

static float iou(const vc_box *a, const vc_box *b)
{
	float l = fmaxf(a->x - a->w / 2, b->x - b->w / 2), r = fminf(a->x + a->w / 2, b->x + b->w / 2);
	float t = fmaxf(a->y - a->h / 2, b->y - b->h / 2), bo = fminf(a->y + a->h / 2, b->y + b->h / 2);
	float in = (r > l && bo > t) ? (r - l) * (bo - t) : 0;
	float un = a->w * a->h + b->w * b->h - in;
	return un > 0 ? in / un : 0;
}

static int by_prob(const void *a, const void *b)
{
	const vc_box *x = a, *y = b;
	return x->prob < y->prob ? 1 : x->prob > y->prob ? -1 : (x->cls > y->cls) - (x->cls < y->cls);
}

int vc_yolo_decode(const vc_module *m, const vc_tensor *outs, int n_outs, float thresh, float nms, vc_box **out)
{
	const vc_graph *g = m->g;
	const vc_type *it = &g->inputs[0]->type;
	float netw = (float)it->dim[3], neth = (float)it->dim[2];
	int nb = 0, cap = 0;
	vc_box *boxes = NULL;
	*out = NULL;
	for (int o = 0; o < n_outs && o < g->n_outputs; o++) {
		const vc_node *y = g->outputs[o];
		while (y->op == VC_OP_DEQUANTIZE && y->n_in)
			y = y->in[0];
		if (y->op != VC_OP_YOLO || outs[o].t.dtype != VC_F32 || outs[o].t.rank != 4)
			continue;
		const float *an = y->in[1]->data, *p = outs[o].data;
		int64_t classes = y->a.axis, na = y->in[1]->type.dim[0];
		int64_t H = outs[o].t.dim[2], W = outs[o].t.dim[3], plane = H * W;
		for (int64_t a = 0; a < na; a++)
			for (int64_t r = 0; r < H; r++)
				for (int64_t c = 0; c < W; c++) {
					const float *e = p + a * (classes + 5) * plane + r * W + c;
					float obj = e[4 * plane];
					if (obj <= thresh)
						continue;
					for (int64_t k = 0; k < classes; k++) {
						float prob = obj * e[(5 + k) * plane];
						if (prob <= thresh)
							continue;
						if (nb == cap) {
							int nc = cap ? 2 * cap : 256;
							vc_box *nbx = realloc(boxes, (size_t)nc * sizeof *nbx);
							if (!nbx) {
								free(boxes);
								return -1;
							}
							boxes = nbx;
							cap = nc;
						}
						vc_box *b = &boxes[nb++];
						b->x = ((float)c + e[0]) / (float)W;
						b->y = ((float)r + e[plane]) / (float)H;
						b->w = expf(e[2 * plane]) * an[2 * a] / netw;
						b->h = expf(e[3 * plane]) * an[2 * a + 1] / neth;
						b->prob = prob;
						b->cls = (int)k;
					}
				}
	}
	if (nb)
		qsort(boxes, (size_t)nb, sizeof *boxes, by_prob);
	int kept = 0;
	for (int i = 0; i < nb; i++) {
		int keep = 1;
		for (int j = 0; j < kept && keep; j++)
			keep = !(boxes[j].cls == boxes[i].cls && iou(&boxes[j], &boxes[i]) > nms);
		if (keep)
			boxes[kept++] = boxes[i];
	}
	*out = boxes;
	return kept;
}
