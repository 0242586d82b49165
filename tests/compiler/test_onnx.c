/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ONNX importer and the float reference kernels: the conformance tests
 * of Debian's libonnx-testdata for every op the importer accepts (a table of
 * how many pass), and malformed files (truncated, corrupt, unsupported ops)
 * that must be refused with a message, never a crash.
 */
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>

#include "test.h"
#include "import/import.h"

#define NODE_DIR "/usr/share/libonnx-testdata/data/node"

static const char *const ops[] = {"conv",    "gemm",    "matmul",  "add",     "relu",
				  "clip",    "maxpool", "averagepool", "globalaveragepool",
				  "reshape", "flatten", "softmax", "batchnorm", "concat", NULL};

/* 1: passes, 0: imported but wrong, -1: refused by the importer. */
static int run_case(const char *dir, char *why, size_t wn)
{
	char path[1200];
	vc_module *m = vc_module_new();
	if (!m)
		return 0;
	int rc = -1;
	snprintf(path, sizeof path, "%s/model.onnx", dir);
	if (vc_import_onnx_file(m, path)) {
		snprintf(why, wn, "%s", m->diag.msg);
		goto done;
	}
	rc = 0;
	vc_tensor in[8], out[8], want;
	memset(in, 0, sizeof in);
	int ok = 1;
	for (int i = 0; i < m->g->n_inputs && ok; i++) {
		snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", dir, i);
		ok = !vc_read_tensor_pb(m, path, &in[i]);
		/* shapes from the file are authoritative for dims left symbolic */
		if (ok && vc_type_elems(&in[i].t) != vc_type_elems(&m->g->inputs[i]->type))
			ok = 0;
		if (ok)
			in[i].t = m->g->inputs[i]->type;
	}
	if (!ok) {
		snprintf(why, wn, "inputs: %.900s", m->diag.msg);
		goto free_in;
	}
	if (vc_interp(m, in, out, NULL, NULL, NULL)) {
		snprintf(why, wn, "run: %.900s", m->diag.msg);
		goto free_in;
	}
	snprintf(path, sizeof path, "%s/test_data_set_0/output_0.pb", dir);
	if (!vc_read_tensor_pb(m, path, &want)) {
		int64_t n = vc_type_elems(&want.t);
		if (n == vc_type_elems(&out[0].t)) {
			rc = 1;
			for (int64_t i = 0; i < n; i++) {
				float a = ((float *)out[0].data)[i], b = ((float *)want.data)[i];
				if (fabsf(a - b) > 1e-4f + 1e-4f * fabsf(b)) {
					snprintf(why, wn, "value %lld is %g, expected %g", (long long)i, a, b);
					rc = 0;
					break;
				}
			}
		} else {
			snprintf(why, wn, "%lld values, expected %lld", (long long)vc_type_elems(&out[0].t), (long long)n);
		}
		vc_tensor_free(&want);
	}
	for (int o = 0; o < m->g->n_outputs; o++)
		vc_tensor_free(&out[o]);
free_in:
	for (int i = 0; i < 8; i++)
		vc_tensor_free(&in[i]);
done:
	vc_module_free(m);
	return rc;
}

static int starts_with_op(const char *name, const char *op)
{
	size_t k = strlen(op);
	return !strncmp(name, "test_", 5) && !strncmp(name + 5, op, k) && (name[5 + k] == '_' || name[5 + k] == 0);
}

static void conformance(void)
{
	DIR *d = opendir(NODE_DIR);
	if (!d) {
		test_fail_(__FILE__, __LINE__, "%s is missing: make deps installs libonnx-testdata", NODE_DIR);
		return;
	}
	/* sorted for a stable report */
	char *names[2048];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 2048)
		for (int i = 0; ops[i]; i++)
			if (starts_with_op(e->d_name, ops[i])) {
				names[n++] = strdup(e->d_name);
				break;
			}
	closedir(d);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (strcmp(names[i], names[j]) > 0) {
				char *t = names[i];
				names[i] = names[j];
				names[j] = t;
			}
	int total = 0, pass = 0, refused = 0, wrong = 0;
	const int verbose = getenv("VC_CONFORMANCE_VERBOSE") != NULL;
	printf("ONNX conformance (%s):\n", NODE_DIR);
	for (int k = 0; ops[k]; k++) {
		int t = 0, p = 0;
		for (int i = 0; i < n; i++) {
			if (!starts_with_op(names[i], ops[k]))
				continue;
			char dir[600], why[1024] = "";
			snprintf(dir, sizeof dir, "%s/%s", NODE_DIR, names[i]);
			int r = run_case(dir, why, sizeof why);
			t++;
			p += r == 1;
			refused += r < 0;
			wrong += r == 0;
			if (verbose && r != 1)
				printf("  %-50s %s: %s\n", names[i], r < 0 ? "refused" : "WRONG", why);
		}
		printf("  %-18s %2d of %2d pass\n", ops[k], p, t);
		total += t;
		pass += p;
	}
	printf("  total: %d of %d pass (%d refused by the importer with a message, %d wrong)\n", pass, total, refused,
	       wrong);
	for (int i = 0; i < n; i++)
		free(names[i]);
	/* every case the importer accepts must be computed right */
	CHECK_EQ(wrong, 0);
	CHECK(pass >= total / 2);
}

/* ---- malformed files ----------------------------------------------- */

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void malformed(void)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/../shared/models/mnist-8.onnx", test_root());
	size_t len;
	uint8_t *b = slurp(path, &len);
	if (!b) {
		test_fail_(__FILE__, __LINE__, "%s is missing", path);
		return;
	}
	/* the whole file imports */
	vc_module *m = vc_module_new();
	CHECK_EQ(vc_import_onnx_bytes(m, b, len), 0);
	vc_module_free(m);
	/* every truncation is refused or (if it cut only trailing fields) imported; never a crash */
	size_t cuts[] = {0, 1, 7, 64, len / 3, len / 2, len - 100, len - 1};
	int refused = 0;
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		m = vc_module_new();
		int rc = vc_import_onnx_bytes(m, b, cuts[i]);
		if (rc) {
			refused++;
			CHECK(m->diag.msg[0] != 0);
		}
		vc_module_free(m);
	}
	CHECK(refused >= 6);
	/* corrupt bytes at many places: an error message or a valid graph */
	uint64_t st = 42;
	for (int t = 0; t < 200; t++) {
		uint8_t *c = malloc(len);
		memcpy(c, b, len);
		for (int k = 0; k < 4; k++)
			c[test_rand(&st) % len] = (uint8_t)test_rand(&st);
		m = vc_module_new();
		if (vc_import_onnx_bytes(m, c, len))
			CHECK(m->diag.msg[0] != 0);
		else
			CHECK_EQ(vc_verify(m), 0);
		vc_module_free(m);
		free(c);
	}
	/* garbage */
	m = vc_module_new();
	CHECK(vc_import_onnx_bytes(m, (const uint8_t *)"hello, world", 12) != 0);
	CHECK_STR_CONTAINS(m->diag.msg, "not a valid ONNX model");
	vc_module_free(m);
	m = vc_module_new();
	CHECK(vc_import_onnx_file(m, "/nonexistent/model.onnx") != 0);
	CHECK_STR_CONTAINS(m->diag.msg, "cannot open");
	vc_module_free(m);
	free(b);
}

/* An op the importer does not know is named, with its node. */
static void unsupported(void)
{
	const char *dir = NODE_DIR "/test_lstm_defaults";
	char path[1024];
	snprintf(path, sizeof path, "%s/model.onnx", dir);
	struct stat sb;
	if (stat(path, &sb)) {
		test_fail_(__FILE__, __LINE__, "%s is missing: make deps installs libonnx-testdata", path);
		return;
	}
	vc_module *m = vc_module_new();
	CHECK(vc_import_onnx_file(m, path) != 0);
	CHECK_STR_CONTAINS(m->diag.msg, "op LSTM is not supported");
	vc_module_free(m);
	/* an unsupported data type is named */
	m = vc_module_new();
	snprintf(path, sizeof path, "%s/test_add_uint8/model.onnx", NODE_DIR);
	if (!stat(path, &sb)) {
		CHECK(vc_import_onnx_file(m, path) != 0);
		CHECK_STR_CONTAINS(m->diag.msg, "uint8");
	}
	vc_module_free(m);
	/* an unsupported attribute is named */
	m = vc_module_new();
	snprintf(path, sizeof path, "%s/test_maxpool_with_argmax_2d_precomputed_pads/model.onnx", NODE_DIR);
	if (!stat(path, &sb)) {
		CHECK(vc_import_onnx_file(m, path) != 0);
		CHECK_STR_CONTAINS(m->diag.msg, "MaxPool");
	}
	vc_module_free(m);
}

static const test_case_t cases[] = {
	{"conformance", conformance},
	{"malformed", malformed},
	{"unsupported", unsupported},
	{NULL, NULL},
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, cases);
}
