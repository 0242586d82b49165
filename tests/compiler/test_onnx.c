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
#include <unistd.h>

#include "test.h"
#include "import/import.h"
#include "onnx.pb-c.h"

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
	CHECK_STR_CONTAINS(m->diag.msg, "model.onnx: 1 op type is not supported: LSTM (1 node: Y_h); recurrent ops are not "
					"supported");
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

/* ---- models written here --------------------------------------------- */

/* A node of a model written by onnx_model: op type, name (NULL: none),
 * domain (NULL: the default one), inputs ("" leaves an optional one out)
 * and outputs. */
typedef struct onode {
	const char *op, *name, *domain;
	int nin, nout;
	const char *in[4], *out[2];
} onode;

/* The packed model (malloc'd): one float graph input "x" of dims[rank],
 * the nodes, one graph output "y", and a sparse initializer "sw" when
 * sparse is set. */
static uint8_t *onnx_model(const onode *nodes, int n, const int64_t *dims, int rank, int sparse, size_t *len)
{
	Onnx__NodeProto np[48], *npp[48];
	for (int i = 0; i < n; i++) {
		np[i] = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
		np[i].op_type = (char *)nodes[i].op;
		np[i].name = (char *)nodes[i].name;
		np[i].domain = (char *)nodes[i].domain;
		np[i].n_input = (size_t)nodes[i].nin;
		np[i].input = (char **)nodes[i].in;
		np[i].n_output = (size_t)nodes[i].nout;
		np[i].output = (char **)nodes[i].out;
		npp[i] = &np[i];
	}
	Onnx__TensorShapeProto__Dimension d[6], *dp[6];
	for (int i = 0; i < rank; i++) {
		d[i] = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
		d[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		d[i].dim_value = dims[i];
		dp[i] = &d[i];
	}
	Onnx__TensorShapeProto shape = ONNX__TENSOR_SHAPE_PROTO__INIT;
	shape.n_dim = (size_t)rank;
	shape.dim = dp;
	Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT;
	tt.has_elem_type = 1;
	tt.elem_type = 1; /* float */
	tt.shape = &shape;
	Onnx__TypeProto type = ONNX__TYPE_PROTO__INIT;
	type.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	type.tensor_type = &tt;
	Onnx__ValueInfoProto x = ONNX__VALUE_INFO_PROTO__INIT, y = ONNX__VALUE_INFO_PROTO__INIT, *xp = &x, *yp = &y;
	x.name = (char *)"x";
	x.type = &type;
	y.name = (char *)"y";
	y.type = &type;
	float one = 1.0f;
	int64_t idx = 0, sdim = 4;
	Onnx__TensorProto vals = ONNX__TENSOR_PROTO__INIT, inds = ONNX__TENSOR_PROTO__INIT;
	vals.name = (char *)"sw";
	vals.has_data_type = 1, vals.data_type = 1, vals.n_float_data = 1, vals.float_data = &one;
	inds.has_data_type = 1, inds.data_type = 7, inds.n_int64_data = 1, inds.int64_data = &idx;
	Onnx__SparseTensorProto sp = ONNX__SPARSE_TENSOR_PROTO__INIT, *spp = &sp;
	sp.values = &vals, sp.indices = &inds, sp.n_dims = 1, sp.dims = &sdim;
	Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
	g.name = (char *)"g";
	g.n_node = (size_t)n, g.node = npp;
	g.n_input = 1, g.input = &xp;
	g.n_output = 1, g.output = &yp;
	if (sparse)
		g.n_sparse_initializer = 1, g.sparse_initializer = &spp;
	Onnx__OperatorSetIdProto os = ONNX__OPERATOR_SET_ID_PROTO__INIT, *osp = &os;
	os.domain = (char *)"", os.has_version = 1, os.version = 13;
	Onnx__ModelProto mp = ONNX__MODEL_PROTO__INIT;
	mp.has_ir_version = 1, mp.ir_version = 7;
	mp.n_opset_import = 1, mp.opset_import = &osp;
	mp.graph = &g;
	*len = onnx__model_proto__get_packed_size(&mp);
	uint8_t *b = malloc(*len ? *len : 1);
	if (b)
		onnx__model_proto__pack(&mp, b);
	return b;
}

/* The diagnostic of importing the model's bytes ("" when it imports). */
static void import_msg(const onode *nodes, int n, const int64_t *dims, int rank, int sparse, char *msg, size_t cap)
{
	size_t len;
	uint8_t *b = onnx_model(nodes, n, dims, rank, sparse, &len);
	vc_module *m = vc_module_new();
	snprintf(msg, cap, "%s", vc_import_onnx_bytes(m, b, len) ? m->diag.msg : "");
	vc_module_free(m);
	free(b);
}

#define N1(op, name, a) {op, name, NULL, 1, 1, {a}, {name}}

/* Every op type the importer does not take is named in one message, with
 * its count and first nodes, before any structural check: the graph input
 * has a dimension 0, the LSTMs miss their weights and one leaves an optional
 * input out before a given one, as does the Resize. */
static void unsupported_all(void)
{
	static const int64_t bad_dims[4] = {1, 3, 0, 8}, dims[4] = {1, 3, 8, 8};
	onode nodes[20] = {
		{"LSTM", "lstm_1", NULL, 3, 2, {"x", "W", "R"}, {"", "h1"}},
		{"Relu", "r", NULL, 1, 1, {"h1"}, {"r"}},
		{"Resize", "up1", NULL, 3, 1, {"r", "", "scales"}, {"up"}},
		{"LSTM", "lstm_2", NULL, 4, 1, {"up", "", "", "B"}, {"h2"}},
	};
	int n = 4;
	static const char *const sig[12] = {"sig_0", "sig_1", "sig_2", "sig_3", "sig_4", "sig_5",
					    "sig_6", "sig_7", "sig_8", "sig_9", "sig_10", "sig_11"};
	for (int i = 0; i < 12; i++)
		nodes[n++] = (onode)N1("Sigmoid", sig[i], i ? sig[i - 1] : "h2");
	const char *want = "3 op types are not supported: LSTM (2 nodes: lstm_1, lstm_2), Resize (1 node: up1), "
			   "Sigmoid (12 nodes: sig_0, sig_1, sig_2, ...); recurrent ops are not supported";
	char msg[1024];
	import_msg(nodes, n, bad_dims, 4, 0, msg, sizeof msg);
	CHECK(!strcmp(msg, want));
	if (strcmp(msg, want))
		fprintf(stderr, "got:  %s\nwant: %s\n", msg, want);
	/* from a file, the message names it */
	char dir[] = "/tmp/vc_onnx_XXXXXX", path[64], full[1200];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/model.onnx", dir);
	size_t len;
	uint8_t *b = onnx_model(nodes, n, bad_dims, 4, 0, &len);
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(b, 1, len, f) == len);
	if (f)
		fclose(f);
	free(b);
	vc_module *m = vc_module_new();
	CHECK(vc_import_file(m, path) != 0);
	snprintf(full, sizeof full, "%s: %s", path, want);
	CHECK(!strcmp(m->diag.msg, full));
	vc_module_free(m);
	unlink(path);
	rmdir(dir);

	/* one LSTM with an odd shape: still the op, not the shape */
	import_msg(nodes, 1, bad_dims, 4, 0, msg, sizeof msg);
	CHECK(!strcmp(msg, "1 op type is not supported: LSTM (1 node: lstm_1); recurrent ops are not supported"));
	/* without it, the structural complaint is what is left */
	onode relu[1] = {N1("Relu", "y", "x")};
	import_msg(relu, 1, bad_dims, 4, 0, msg, sizeof msg);
	CHECK_STR_CONTAINS(msg, "graph input 'x' has a bad dimension 0");
	import_msg(relu, 1, dims, 4, 0, msg, sizeof msg);
	CHECK(!strcmp(msg, ""));

	/* nodes without names are named by an output, else by their index;
	 * another domain's op is named with its domain */
	onode anon[3] = {
		{"GRU", NULL, NULL, 3, 2, {"x", "W", "R"}, {"", "Y_h"}},
		{"Gelu", NULL, NULL, 1, 0, {"Y_h"}, {NULL}},
		{"FusedConv", "fc", "com.microsoft", 2, 1, {"x", "w"}, {"y"}},
	};
	import_msg(anon, 3, dims, 4, 0, msg, sizeof msg);
	CHECK(!strcmp(msg, "3 op types are not supported: GRU (1 node: Y_h), Gelu (1 node: node 1), "
			   "FusedConv of domain com.microsoft (1 node: fc); recurrent ops are not supported"));

	/* a node without an op type is no type to list: refused by its index */
	onode empty[2] = {N1("", "e", "x"), N1("Relu", "y", "e")};
	import_msg(empty, 2, dims, 4, 0, msg, sizeof msg);
	CHECK(!strcmp(msg, "node 0 has no op type or no output"));
	/* a sparse initializer, alone and with an unsupported op */
	import_msg(relu, 1, dims, 4, 1, msg, sizeof msg);
	CHECK(!strcmp(msg, "sparse tensors are not supported (1 sparse initializer: 'sw')"));
	import_msg(nodes + 2, 1, dims, 4, 1, msg, sizeof msg);
	CHECK(!strcmp(msg, "1 op type is not supported: Resize (1 node: up1); sparse tensors are not supported "
			   "(1 sparse initializer: 'sw')"));

	/* the longest type and node names an entry keeps: cut, never past the buffers */
	char lt[100], ln[3][60];
	memset(lt, 'T', sizeof lt - 1), lt[sizeof lt - 1] = 0;
	onode lng[3];
	for (int i = 0; i < 3; i++) {
		memset(ln[i], 'a' + i, sizeof ln[i] - 1), ln[i][sizeof ln[i] - 1] = 0;
		lng[i] = (onode)N1(lt, ln[i], "x");
	}
	import_msg(lng, 3, dims, 4, 0, msg, sizeof msg);
	char want_long[400];
	snprintf(want_long, sizeof want_long, "1 op type is not supported: %.71s (3 nodes: %.39s, %.39s, %.39s)", lt, ln[0],
		 ln[1], ln[2]);
	CHECK(!strcmp(msg, want_long));
	if (strcmp(msg, want_long))
		fprintf(stderr, "got:  %s\nwant: %s\n", msg, want_long);
	/* 40 types: the message stays whole and says that there are more */
	onode many[40];
	char names[40][2][16];
	for (int i = 0; i < 40; i++) {
		snprintf(names[i][0], sizeof names[i][0], "Op%02d", i);
		snprintf(names[i][1], sizeof names[i][1], "n%02d", i);
		many[i] = (onode)N1(names[i][0], names[i][1], "x");
	}
	import_msg(many, 40, dims, 4, 0, msg, sizeof msg);
	CHECK_STR_CONTAINS(msg, "more than 32 op types are not supported: Op00 (1 node: n00), Op01 (1 node: n01), ");
	size_t ml = strlen(msg);
	CHECK(ml > 12 && !strcmp(msg + ml - 12, ", and others"));
}

static const test_case_t cases[] = {
	{"conformance", conformance},
	{"malformed", malformed},
	{"unsupported", unsupported},
	{"unsupported_all", unsupported_all},
	{NULL, NULL},
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, cases);
}
