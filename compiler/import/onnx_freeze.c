/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Graph inputs frozen into constants: each named input becomes an
 * initializer of that name holding the given TensorProto, and the model is
 * imported as usual. Frozen before import rather than after, so that the
 * importer sees them as the constants it needs for shapes, indices and
 * slice bounds (int64 inputs included), and folds what they feed.
 */
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "import/import.h"

/* The graph input of that name that is not already an initializer. */
static int graph_input(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name && !strcmp(g->initializer[i]->name, name))
			return 0;
	for (size_t i = 0; i < g->n_input; i++)
		if (g->input[i]->name && !strcmp(g->input[i]->name, name))
			return 1;
	return 0;
}

/* The model with the frozen tensors appended to its initializers, packed
 * into *out (malloc'd). The unpacked messages are restored before they are
 * freed (protobuf-c frees what it allocated, nothing else). */
static int freeze_pack(vc_module *m, Onnx__ModelProto *mp, const vc_onnx_frozen *f, int n, uint8_t **out,
		       size_t *out_len)
{
	Onnx__GraphProto *g = mp->graph;
	Onnx__TensorProto **t = calloc((size_t)n, sizeof *t);
	Onnx__TensorProto **all = calloc(g->n_initializer + (size_t)n, sizeof *all);
	char **names = calloc((size_t)n, sizeof *names);
	int rc = -1, k = 0;
	if (!t || !all || !names) {
		vc_error(m, NULL, "out of memory");
		goto done;
	}
	for (; k < n; k++) {
		if (!graph_input(g, f[k].name)) {
			vc_error(m, NULL, "cannot freeze '%s': the model has no graph input of that name", f[k].name);
			goto done;
		}
		t[k] = onnx__tensor_proto__unpack(NULL, f[k].len, f[k].pb);
		if (!t[k]) {
			vc_error(m, NULL, "the value of '%s' is not a TensorProto", f[k].name);
			goto done;
		}
		names[k] = t[k]->name;
		t[k]->name = (char *)f[k].name;
	}
	if (g->n_initializer)
		memcpy(all, g->initializer, g->n_initializer * sizeof *all);
	memcpy(all + g->n_initializer, t, (size_t)n * sizeof *t);
	Onnx__TensorProto **had = g->initializer;
	size_t n_had = g->n_initializer;
	g->initializer = all;
	g->n_initializer = n_had + (size_t)n;
	*out_len = onnx__model_proto__get_packed_size(mp);
	*out = malloc(*out_len ? *out_len : 1);
	if (*out) {
		onnx__model_proto__pack(mp, *out);
		rc = 0;
	} else {
		vc_error(m, NULL, "out of memory");
	}
	g->initializer = had;
	g->n_initializer = n_had;
done:
	for (int i = 0; i < k && t; i++) {
		t[i]->name = names[i];
		onnx__tensor_proto__free_unpacked(t[i], NULL);
	}
	free(t);
	free(all);
	free(names);
	return rc;
}

int vc_import_onnx_frozen(vc_module *m, const uint8_t *bytes, size_t len, const vc_onnx_frozen *f, int n)
{
	if (n <= 0)
		return vc_import_onnx_bytes(m, bytes, len);
	Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, bytes);
	if (!mp)
		return vc_error(m, NULL, "not a valid ONNX model (the protobuf does not parse: truncated or corrupt)");
	uint8_t *packed = NULL;
	size_t plen = 0;
	int rc = -1;
	if (!mp->graph)
		vc_error(m, NULL, "the model has no graph");
	else if (!freeze_pack(m, mp, f, n, &packed, &plen))
		rc = vc_import_onnx_bytes(m, packed, plen);
	onnx__model_proto__free_unpacked(mp, NULL);
	free(packed);
	return rc;
}
