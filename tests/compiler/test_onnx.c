/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ONNX importer and the float reference kernels: the conformance tests
 * of Debian's libonnx-testdata for every op the importer accepts (a table of
 * how many pass), every node and pytorch-converted test through vta compile
 * and libvta on fsim (onnx_conf.h: none wrong), malformed files (truncated, corrupt, unsupported ops)
 * that must be refused with a message, never a crash, and small models
 * written here (a 1x1 convolution and the ops PyTorch exports of
 * EfficientNet, MobileNet-V3, MNASNet, DenseNet and ShuffleNet-V2 add around
 * it, and LeakyRelu, PRelu, Tanh, Sub, Div, Resize linear, Split,
 * DepthToSpace, SpaceToDepth, ReduceMax/Sum, Squeeze, Unsqueeze,
 * ConvTranspose, unary, binary and reduce functions) compiled for VTA and run through libvta on fsim against a float
 * reference written in the test.
 */
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vta/model.h>

#include "test.h"
#include "artifact/artifact.h"
#include "cli/cli.h"
#include "import/import.h"
#include "onnx.pb-c.h"
#include "onnx_conf.h"

#define NODE_DIR "/usr/share/libonnx-testdata/data/node"

static const char *const ops[] = {"conv",    "gemm",    "matmul",  "add",     "relu",
				  "clip",    "maxpool", "averagepool", "globalaveragepool",
				  "reshape", "flatten", "softmax", "batchnorm", "concat", "sigmoid",
				  "hardsigmoid", "hardswish", "reduce_mean", "constant_pad", "transpose", "mul",
				  "slice", "globalmaxpool", "sub", "div", "leakyrelu", "prelu", "tanh", NULL};

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

/* Every test of the node and pytorch-converted sets through the VTA path
 * (onnx_conf.h): import with the extra inputs frozen, vta compile, libvta on
 * fsim, every output against the expected one. None may be wrong, and no
 * fewer pass than measured when this was written, the same in every
 * configuration (a refusal where there was a pass is a regression too). */
static void conformance_vta(void)
{
	static const struct {
		const char *set;
		int floor;
	} sets[] = {{"node", 352}, {"pytorch-converted", 67}};
	FILE *verbose = getenv("VC_CONFORMANCE_VERBOSE") ? stdout : NULL;
	for (int i = 0; i < 2; i++) {
		static conf_stats st;
		memset(&st, 0, sizeof st);
		if (conf_run_set(sets[i].set, NULL, &st, verbose)) {
			test_fail_(__FILE__, __LINE__, "%s/%s is missing: make deps installs libonnx-testdata", CONF_DATA,
				   sets[i].set);
			continue;
		}
		printf("ONNX %s through VTA on fsim: %d of %d pass, %d refused with a message, %d wrong\n", sets[i].set,
		       st.pass, st.total, st.refused, st.wrong);
		CHECK_EQ(st.wrong, 0);
		CHECK(st.pass >= sets[i].floor);
	}
}

/* vta compile --freeze=W=input_1.pb on the 3x3 all-ones convolution of
 * arange(25), calibrated on constant 0, constant 24 and noise over 0..24:
 * libvta's run on fsim within 6% of the 3x3 window sums (54 .. 162). */
static void freeze_cli(void)
{
	const char *t = NODE_DIR "/test_basic_conv_without_padding";
	char dir[] = "/tmp/vc_freeze_XXXXXX", cal[64], out[64], fz[1200], model[1200];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(cal, sizeof cal, "%s/cal.raw", dir);
	snprintf(out, sizeof out, "%s/m.vtam", dir);
	snprintf(fz, sizeof fz, "--freeze=W=%s/test_data_set_0/input_1.pb", t);
	snprintf(model, sizeof model, "%s/model.onnx", t);
	float c[3][25];
	uint64_t st = 3;
	for (int i = 0; i < 25; i++)
		c[0][i] = 0, c[1][i] = 24, c[2][i] = (float)(test_rand(&st) % 2401) / 100.0f;
	FILE *f = fopen(cal, "wb");
	CHECK(f && fwrite(c, sizeof c, 1, f) == 1);
	if (f)
		fclose(f);
	char calo[80];
	snprintf(calo, sizeof calo, "--calib=%s", cal);
	char *ok[] = {model, "-o", out, calo, fz}, *bad[] = {model, "-o", out, calo, "--freeze=W"},
	     *unknown[] = {model, "-o", out, calo, "--freeze=V=/dev/null"};
	CHECK_EQ(vta_cmd_compile(5, bad), 2);
	CHECK_EQ(vta_cmd_compile(5, unknown), 1);
	CHECK_EQ(vta_cmd_compile(5, ok), 0);
	vta_model_t *vm = NULL;
	vta_error_t e = {0};
	float x[25], y[9];
	for (int i = 0; i < 25; i++)
		x[i] = (float)i;
	vta_tensor_t ti = {VTA_DTYPE_F32, 0, x, sizeof x}, to = {VTA_DTYPE_F32, 0, y, sizeof y};
	CHECK(!vta_model_open(out, "fsim", &vm, &e) && vta_model_n_inputs(vm) == 1 && !vta_model_run(vm, &ti, &to, &e));
	for (int r = 0; r < 3 && vm; r++)
		for (int k = 0; k < 3; k++) {
			float want = 0;
			for (int i = 0; i < 9; i++)
				want += x[(r + i / 3) * 5 + k + i % 3];
			CHECK(fabsf(y[r * 3 + k] - want) <= 0.06f * 162);
		}
	vta_model_close(vm);
	unlink(cal);
	unlink(out);
	rmdir(dir);
}

/* vc_import_onnx_frozen: the weight input W of a convolution frozen from
 * its test value: one graph input left, the convolution's weights a
 * constant of the file's values; an unknown name and a value that is not a
 * TensorProto are refused by name. */
static void freeze(void)
{
	size_t len, wlen;
	char path[1024], err[512];
	snprintf(path, sizeof path, "%s/test_basic_conv_without_padding/model.onnx", NODE_DIR);
	uint8_t *model = vc_read_all(path, &len, err, sizeof err);
	snprintf(path, sizeof path, "%s/test_basic_conv_without_padding/test_data_set_0/input_1.pb", NODE_DIR);
	uint8_t *w = vc_read_all(path, &wlen, err, sizeof err);
	if (!model || !w) {
		test_fail_(__FILE__, __LINE__, "%s", err);
		free(model);
		return;
	}
	vc_onnx_frozen f = {"W", w, wlen};
	vc_module *m = vc_module_new();
	CHECK_EQ(vc_import_onnx_frozen(m, model, len, &f, 1), 0);
	CHECK_EQ(m->g->n_inputs, 1);
	int convs = 0;
	for (int i = 0; i < m->g->n; i++) {
		const vc_node *n = m->g->nodes[i];
		if (n->op != VC_OP_CONV)
			continue;
		convs++;
		CHECK(n->in[1]->op == VC_OP_CONST && vc_type_elems(&n->in[1]->type) == 9);
		/* the test's weights are all ones */
		for (int k = 0; k < 9 && n->in[1]->op == VC_OP_CONST; k++)
			CHECK(((const float *)n->in[1]->data)[k] == 1.0f);
	}
	CHECK_EQ(convs, 1);
	vc_module_free(m);
	f.name = "V";
	m = vc_module_new();
	CHECK(vc_import_onnx_frozen(m, model, len, &f, 1) != 0);
	CHECK_STR_CONTAINS(m->diag.msg, "cannot freeze 'V': the model has no graph input of that name");
	vc_module_free(m);
	f = (vc_onnx_frozen){"W", model, len};
	m = vc_module_new();
	CHECK(vc_import_onnx_frozen(m, model, len, &f, 1) != 0);
	CHECK_STR_CONTAINS(m->diag.msg, "the value of 'W' is not a TensorProto");
	vc_module_free(m);
	free(model);
	free(w);
	freeze_cli();
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
 * input out before a given one, as does the RoiAlign. */
static void unsupported_all(void)
{
	static const int64_t bad_dims[4] = {1, 3, 0, 8}, dims[4] = {1, 3, 8, 8};
	onode nodes[20] = {
		{"LSTM", "lstm_1", NULL, 3, 2, {"x", "W", "R"}, {"", "h1"}},
		{"Relu", "r", NULL, 1, 1, {"h1"}, {"r"}},
		{"RoiAlign", "up1", NULL, 3, 1, {"r", "", "scales"}, {"up"}},
		{"LSTM", "lstm_2", NULL, 4, 1, {"up", "", "", "B"}, {"h2"}},
	};
	int n = 4;
	static const char *const sig[12] = {"sig_0", "sig_1", "sig_2", "sig_3", "sig_4", "sig_5",
					    "sig_6", "sig_7", "sig_8", "sig_9", "sig_10", "sig_11"};
	for (int i = 0; i < 12; i++)
		nodes[n++] = (onode)N1("Hardmax", sig[i], i ? sig[i - 1] : "h2");
	const char *want = "3 op types are not supported: LSTM (2 nodes: lstm_1, lstm_2), RoiAlign (1 node: up1), "
			   "Hardmax (12 nodes: sig_0, sig_1, sig_2, ...); recurrent ops are not supported";
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
	CHECK(!strcmp(msg, "1 op type is not supported: RoiAlign (1 node: up1); sparse tensors are not supported "
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


/* ---- models written here ----------------------------------------------- */

/* An ONNX model in protobuf-c's structs, no heap: one graph of at most 24
 * nodes with one float input and one output. */
enum { OB_NODES = 24, OB_ATTRS = 32, OB_INITS = 16, OB_IN = 24, OB_DATA = 4096 };
typedef struct ob {
	Onnx__ModelProto model;
	Onnx__GraphProto graph;
	Onnx__OperatorSetIdProto opset, *opsets[1];
	Onnx__NodeProto nodes[OB_NODES], *node_p[OB_NODES];
	const char *node_in[OB_NODES][OB_IN];
	const char *node_out[OB_NODES][2];
	Onnx__AttributeProto attrs[OB_ATTRS], *attr_p[OB_ATTRS];
	int64_t ints[OB_ATTRS][8];
	Onnx__TensorProto inits[OB_INITS], *init_p[OB_INITS];
	int64_t init_dims[OB_INITS][4];
	Onnx__ValueInfoProto vin, vout, *vin_p[1], *vout_p[1];
	Onnx__TypeProto tin, tout;
	Onnx__TypeProto__Tensor ttin, ttout;
	Onnx__TensorShapeProto shape;
	Onnx__TensorShapeProto__Dimension dims[4], *dim_p[4];
	float data[OB_DATA];
	int64_t idata[64];
	int n_data, n_idata, n_attrs;
} ob;

static void ob_init(ob *b, int64_t opset, const int64_t *xdim, const char *out)
{
	memset(b, 0, sizeof *b);
	b->model = (Onnx__ModelProto)ONNX__MODEL_PROTO__INIT;
	b->graph = (Onnx__GraphProto)ONNX__GRAPH_PROTO__INIT;
	b->opset = (Onnx__OperatorSetIdProto)ONNX__OPERATOR_SET_ID_PROTO__INIT;
	b->opset.domain = "";
	b->opset.has_version = 1;
	b->opset.version = opset;
	b->opsets[0] = &b->opset;
	b->model.has_ir_version = 1;
	b->model.ir_version = 7;
	b->model.n_opset_import = 1;
	b->model.opset_import = b->opsets;
	b->model.graph = &b->graph;
	b->graph.name = "g";
	b->graph.node = b->node_p;
	b->graph.initializer = b->init_p;
	b->vin = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
	b->vout = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
	b->tin = b->tout = (Onnx__TypeProto)ONNX__TYPE_PROTO__INIT;
	b->ttin = b->ttout = (Onnx__TypeProto__Tensor)ONNX__TYPE_PROTO__TENSOR__INIT;
	b->shape = (Onnx__TensorShapeProto)ONNX__TENSOR_SHAPE_PROTO__INIT;
	for (int i = 0; i < 4; i++) {
		b->dims[i] = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
		b->dims[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		b->dims[i].dim_value = xdim[i];
		b->dim_p[i] = &b->dims[i];
	}
	b->shape.n_dim = 4;
	b->shape.dim = b->dim_p;
	b->ttin.has_elem_type = b->ttout.has_elem_type = 1;
	b->ttin.elem_type = b->ttout.elem_type = 1; /* float */
	b->ttin.shape = &b->shape;
	b->tin.value_case = b->tout.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	b->tin.tensor_type = &b->ttin;
	b->tout.tensor_type = &b->ttout;
	b->vin.name = "x";
	b->vin.type = &b->tin;
	b->vout.name = (char *)out;
	b->vout.type = &b->tout;
	b->vin_p[0] = &b->vin;
	b->vout_p[0] = &b->vout;
	b->graph.n_input = b->graph.n_output = 1;
	b->graph.input = b->vin_p;
	b->graph.output = b->vout_p;
}

/* A node op(ins...) -> out; attributes follow with ob_attr. */
static void ob_node(ob *b, const char *op, const char *out, int nin, const char *const *ins)
{
	size_t k = b->graph.n_node++;
	Onnx__NodeProto *n = &b->nodes[k];
	*n = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
	n->op_type = (char *)op;
	n->name = (char *)out;
	memcpy(b->node_in[k], ins, (size_t)nin * sizeof *ins);
	b->node_out[k][0] = out;
	n->n_input = (size_t)nin;
	n->input = (char **)b->node_in[k];
	n->n_output = 1;
	n->output = (char **)b->node_out[k];
	n->attribute = &b->attr_p[b->n_attrs]; /* the attributes added next */
	b->node_p[k] = n;
}

/* A second output of the last node (Split). */
static void ob_out2(ob *b, const char *out)
{
	size_t k = b->graph.n_node - 1;
	b->node_out[k][1] = out;
	b->nodes[k].n_output = 2;
}

/* An attribute of the last node: nints values (ints), or one int (nints
 * 0, is_float 0) or float. */
static void ob_attr(ob *b, const char *name, int is_float, double v, int nints, const int64_t *ints)
{
	int k = b->n_attrs++;
	Onnx__AttributeProto *a = &b->attrs[k];
	*a = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
	a->name = (char *)name;
	a->has_type = 1;
	if (nints) {
		a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
		memcpy(b->ints[k], ints, (size_t)nints * sizeof *ints);
		a->n_ints = (size_t)nints;
		a->ints = b->ints[k];
	} else if (is_float) {
		a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
		a->has_f = 1;
		a->f = (float)v;
	} else {
		a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
		a->has_i = 1;
		a->i = (int64_t)v;
	}
	b->attr_p[k] = a;
	b->nodes[b->graph.n_node - 1].n_attribute++;
}

/* A string attribute of the last node. */
static void ob_attr_s(ob *b, const char *name, const char *value)
{
	ob_attr(b, name, 0, 0, 0, NULL);
	Onnx__AttributeProto *a = &b->attrs[b->n_attrs - 1];
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
	a->has_i = 0;
	a->has_s = 1;
	a->s = (ProtobufCBinaryData){strlen(value), (uint8_t *)value};
}

/* An initializer: float (f) or int64 (i) values. */
static void ob_const(ob *b, const char *name, int rank, const int64_t *dim, const float *f, const int64_t *i)
{
	size_t k = b->graph.n_initializer++;
	Onnx__TensorProto *t = &b->inits[k];
	*t = (Onnx__TensorProto)ONNX__TENSOR_PROTO__INIT;
	int64_t n = 1;
	for (int d = 0; d < rank; d++)
		n *= b->init_dims[k][d] = dim[d];
	t->name = (char *)name;
	t->n_dims = (size_t)rank;
	t->dims = b->init_dims[k];
	t->has_data_type = 1;
	if (f) {
		t->data_type = 1;
		memcpy(b->data + b->n_data, f, (size_t)n * sizeof *f);
		t->n_float_data = (size_t)n;
		t->float_data = b->data + b->n_data;
		b->n_data += (int)n;
	} else {
		t->data_type = 7;
		memcpy(b->idata + b->n_idata, i, (size_t)n * sizeof *i);
		t->n_int64_data = (size_t)n;
		t->int64_data = b->idata + b->n_idata;
		b->n_idata += (int)n;
	}
	b->init_p[k] = t;
}

/* An INT8 initializer (as ONNX stores it: int32_data), for quantized
 * weights; q values as int32. */
static void ob_const_i8(ob *b, const char *name, int rank, const int64_t *dim, const int32_t *q)
{
	ob_const(b, name, rank, dim, (const float *)q, NULL); /* shape and slot; the values follow */
	Onnx__TensorProto *t = &b->inits[b->graph.n_initializer - 1];
	t->data_type = 3;
	t->n_int32_data = t->n_float_data;
	t->int32_data = (int32_t *)t->float_data;
	t->n_float_data = 0;
	t->float_data = NULL;
}

static uint8_t *ob_pack(ob *b, size_t *len)
{
	*len = onnx__model_proto__get_packed_size(&b->model);
	uint8_t *p = malloc(*len);
	if (p)
		onnx__model_proto__pack(&b->model, p);
	return p;
}

/* The models: x [1,8,6,6] -> a 1x1 convolution y (16 channels, on VTA) ->
 * the ops under test. ref_* compute the expected output from y and x in
 * double, from the ONNX definitions. */
enum { C_IN = 8, C_OUT = 16, HW = 6, P = HW * HW };
static float conv_w[C_OUT * C_IN], conv_b[C_OUT];

static void conv_ref(const float *x, double *y)
{
	for (int o = 0; o < C_OUT; o++)
		for (int p = 0; p < P; p++) {
			double v = conv_b[o];
			for (int c = 0; c < C_IN; c++)
				v += (double)conv_w[o * C_IN + c] * x[c * P + p];
			y[o * P + p] = v;
		}
}

static double sigm(double v) { return 1.0 / (1.0 + exp(-v)); }
static double hsig(double v, double alpha, double beta) { return fmax(0.0, fmin(1.0, alpha * v + beta)); }

/* SiLU and squeeze-excitation (EfficientNet): z = y * sigmoid(y), out = z *
 * sigmoid(mean of z over each channel), [1,16,1,1] broadcast onto [1,16,6,6]. */
static void build_silu_se(ob *b)
{
	ob_node(b, "Sigmoid", "s", 1, (const char *[]){"y"});
	ob_node(b, "Mul", "z", 2, (const char *[]){"y", "s"});
	ob_node(b, "GlobalAveragePool", "g", 1, (const char *[]){"z"});
	ob_node(b, "Sigmoid", "e", 1, (const char *[]){"g"});
	ob_node(b, "Mul", "out", 2, (const char *[]){"e", "z"}); /* the broadcast operand first */
}
static int64_t ref_silu_se(const float *x, const double *y, double *out)
{
	(void)x;
	for (int o = 0; o < C_OUT; o++) {
		double m = 0;
		for (int p = 0; p < P; p++)
			m += y[o * P + p] * sigm(y[o * P + p]) / P;
		for (int p = 0; p < P; p++)
			out[o * P + p] = y[o * P + p] * sigm(y[o * P + p]) * sigm(m);
	}
	return C_OUT * P;
}

/* HardSigmoid (alpha 0.3, beta 0.4) times HardSwish (opset 14; PyTorch's
 * opset 13 export writes HardSigmoid and Mul). */
static void build_hard(ob *b)
{
	ob_node(b, "HardSigmoid", "h", 1, (const char *[]){"y"});
	ob_attr(b, "alpha", 1, 0.3, 0, NULL);
	ob_attr(b, "beta", 1, 0.4, 0, NULL);
	ob_node(b, "HardSwish", "w", 1, (const char *[]){"y"});
	ob_node(b, "Mul", "out", 2, (const char *[]){"h", "w"});
}
static int64_t ref_hard(const float *x, const double *y, double *out)
{
	(void)x;
	for (int i = 0; i < C_OUT * P; i++)
		out[i] = hsig(y[i], 0.3, 0.4) * y[i] * hsig(y[i], 1.0 / 6, 0.5);
	return C_OUT * P;
}

/* ReduceMean over the spatial axes (negative, MNASNet's is [2,3]) without
 * keepdims: [1,16]. */
static void build_reduce_mean(ob *b)
{
	ob_node(b, "Relu", "r", 1, (const char *[]){"y"});
	ob_node(b, "ReduceMean", "out", 1, (const char *[]){"r"});
	ob_attr(b, "axes", 0, 0, 2, (const int64_t[]){-1, -2});
	ob_attr(b, "keepdims", 0, 0, 0, NULL);
}
static int64_t ref_reduce_mean(const float *x, const double *y, double *out)
{
	(void)x;
	for (int o = 0; o < C_OUT; o++) {
		out[o] = 0;
		for (int p = 0; p < P; p++)
			out[o] += fmax(y[o * P + p], 0.0) / P;
	}
	return C_OUT;
}

/* Pad (opset 11 and later: pads and the value as inputs) of rows 1 above,
 * 2 below and columns 2 left, 1 right with 0.25. */
static void build_pad(ob *b)
{
	ob_const(b, "pads", 1, (const int64_t[]){8}, NULL, (const int64_t[]){0, 0, 1, 2, 0, 0, 2, 1});
	ob_const(b, "value", 0, NULL, (const float[]){0.25f}, NULL);
	ob_node(b, "Pad", "out", 3, (const char *[]){"y", "pads", "value"});
	ob_attr_s(b, "mode", "constant");
}
static int64_t ref_pad(const float *x, const double *y, double *out)
{
	(void)x;
	enum { OH = HW + 3, OW = HW + 3 };
	for (int o = 0; o < C_OUT; o++)
		for (int h = 0; h < OH; h++)
			for (int w = 0; w < OW; w++) {
				int ih = h - 1, iw = w - 2;
				out[(o * OH + h) * OW + w] = ih >= 0 && ih < HW && iw >= 0 && iw < HW ? y[o * P + ih * HW + iw] : 0.25;
			}
	return C_OUT * OH * OW;
}

/* A batchnorm that follows no convolution (DenseNet's, after a concat of y
 * and x), then a relu. */
static float bn_p[4][C_OUT + C_IN];
static void build_bn(ob *b)
{
	static const char *const pn[4] = {"scale", "bias", "mean", "var"};
	for (int k = 0; k < 4; k++)
		ob_const(b, pn[k], 1, (const int64_t[]){C_OUT + C_IN}, bn_p[k], NULL);
	ob_node(b, "Concat", "c", 2, (const char *[]){"y", "x"});
	ob_attr(b, "axis", 0, 1, 0, NULL);
	ob_node(b, "BatchNormalization", "n", 5, (const char *[]){"c", "scale", "bias", "mean", "var"});
	ob_attr(b, "epsilon", 1, 1e-3, 0, NULL);
	ob_node(b, "Relu", "out", 1, (const char *[]){"n"});
}
static int64_t ref_bn(const float *x, const double *y, double *out)
{
	for (int c = 0; c < C_OUT + C_IN; c++) {
		double k = bn_p[0][c] / sqrt((double)bn_p[3][c] + (double)1e-3f);
		for (int p = 0; p < P; p++) {
			double v = c < C_OUT ? y[c * P + p] : x[(c - C_OUT) * P + p];
			out[c * P + p] = fmax((v - bn_p[2][c]) * k + bn_p[1][c], 0.0);
		}
	}
	return (C_OUT + C_IN) * P;
}

/* A concat of 20 operands (DenseNet-121's widest has 25; a node of the
 * compiled graph takes at most 16): y and x alternating. */
static void build_concat20(ob *b)
{
	const char *ins[20];
	for (int k = 0; k < 20; k++)
		ins[k] = k % 2 ? "x" : "y";
	ob_node(b, "Concat", "out", 20, ins);
	ob_attr(b, "axis", 0, 1, 0, NULL);
}
static int64_t ref_concat20(const float *x, const double *y, double *out)
{
	int64_t at = 0;
	for (int k = 0; k < 20; k++)
		for (int i = 0; i < (k % 2 ? C_IN : C_OUT) * P; i++)
			out[at++] = k % 2 ? x[i] : y[i];
	return at;
}

/* ShuffleNet-V2's channel shuffle and split as PyTorch exports them:
 * Reshape to [1,2,8,6,6], Transpose 1 and 2, Reshape back, then the split
 * points computed from Shape (Gather, Add, Div, Mul, Sub on int64, where
 * the division truncates: (16 + 1) / 2 = 8) and two Slices of the
 * channels, concatenated the other way round: t[8:14], t[0:8]. */
static void build_shuffle(ob *b)
{
	static const int64_t one[1] = {1}, i1[1] = {1}, i2[1] = {2}, i0[1] = {0};
	ob_const(b, "s5", 1, (const int64_t[]){5}, NULL, (const int64_t[]){1, 2, C_OUT / 2, HW, HW});
	ob_const(b, "s4", 1, (const int64_t[]){4}, NULL, (const int64_t[]){1, -1, HW, HW});
	ob_const(b, "i0", 1, one, NULL, i0);
	ob_const(b, "i1", 1, one, NULL, i1);
	ob_const(b, "i2", 1, one, NULL, i2);
	ob_node(b, "Reshape", "r5", 2, (const char *[]){"y", "s5"});
	ob_node(b, "Transpose", "tr", 1, (const char *[]){"r5"});
	ob_attr(b, "perm", 0, 0, 5, (const int64_t[]){0, 2, 1, 3, 4});
	ob_node(b, "Reshape", "t", 2, (const char *[]){"tr", "s4"});
	ob_node(b, "Shape", "sh", 1, (const char *[]){"t"});
	ob_node(b, "Gather", "c", 2, (const char *[]){"sh", "i1"});
	ob_attr(b, "axis", 0, 0, 0, NULL);
	ob_node(b, "Add", "c1", 2, (const char *[]){"c", "i1"});
	ob_node(b, "Div", "h", 2, (const char *[]){"c1", "i2"});
	ob_node(b, "Mul", "h2", 2, (const char *[]){"h", "i2"});
	ob_node(b, "Sub", "e2", 2, (const char *[]){"h2", "i2"});
	ob_node(b, "Slice", "lo", 4, (const char *[]){"t", "i0", "h", "i1"});
	ob_node(b, "Slice", "hi", 4, (const char *[]){"t", "h", "e2", "i1"});
	ob_node(b, "Concat", "out", 2, (const char *[]){"hi", "lo"});
	ob_attr(b, "axis", 0, 1, 0, NULL);
}
static int64_t ref_shuffle(const float *x, const double *y, double *out)
{
	(void)x;
	int64_t at = 0;
	for (int k = 0; k < 14; k++) {
		int j = k < 6 ? 8 + k : k - 6; /* channel j of t is channel (j % 2) * 8 + j / 2 of y */
		for (int p = 0; p < P; p++)
			out[at++] = y[((j % 2) * (C_OUT / 2) + j / 2) * P + p];
	}
	return at;
}

/* A grouped 3x3 convolution (RegNet's, 4 channels a group): not VTA's, so
 * an int8 qconv and requant on the host, which libvta runs. */
enum { GROUPS = 4, GC = C_OUT / GROUPS };
static float gconv_w[C_OUT * GC * 9];
static void build_grouped(ob *b)
{
	ob_const(b, "gw", 4, (const int64_t[]){C_OUT, GC, 3, 3}, gconv_w, NULL);
	ob_node(b, "Conv", "out", 2, (const char *[]){"y", "gw"});
	ob_attr(b, "group", 0, GROUPS, 0, NULL);
	ob_attr(b, "pads", 0, 0, 4, (const int64_t[]){1, 1, 1, 1});
}
static int64_t ref_grouped(const float *x, const double *y, double *out)
{
	(void)x;
	for (int o = 0; o < C_OUT; o++)
		for (int h = 0; h < HW; h++)
			for (int w = 0; w < HW; w++) {
				double v = 0;
				for (int c = 0; c < GC; c++)
					for (int kh = 0; kh < 3; kh++)
						for (int kw = 0; kw < 3; kw++) {
							int ih = h + kh - 1, iw = w + kw - 1;
							if (ih >= 0 && ih < HW && iw >= 0 && iw < HW)
								v += (double)gconv_w[((o * GC + c) * 3 + kh) * 3 + kw] *
								     y[((o / GC) * GC + c) * P + ih * HW + iw];
						}
				out[o * P + h * HW + w] = v;
			}
	return C_OUT * P;
}

/* Resize (opset 13) nearest by 2 rows and 3 columns, the default
 * half_pixel coordinates: output pixel (h, w) is y's (h / 2, w / 3). The
 * roi input is left out before the scales. */
static void build_resize(ob *b)
{
	ob_const(b, "scales", 1, (const int64_t[]){4}, (const float[]){1, 1, 2, 3}, NULL);
	ob_node(b, "Resize", "out", 3, (const char *[]){"y", "", "scales"});
	ob_attr_s(b, "mode", "nearest");
}
static int64_t ref_resize(const float *x, const double *y, double *out)
{
	(void)x;
	for (int o = 0; o < C_OUT; o++)
		for (int h = 0; h < 2 * HW; h++)
			for (int w = 0; w < 3 * HW; w++)
				out[(o * 2 * HW + h) * 3 * HW + w] = y[o * P + (h / 2) * HW + w / 3];
	return C_OUT * 6 * P;
}

/* Resize to sizes by 4, as PyTorch's nn.Upsample(scale_factor=4) exports
 * it (asymmetric coordinates, nearest_mode floor). */
static void build_resize_sizes(ob *b)
{
	ob_const(b, "sizes", 1, (const int64_t[]){4}, NULL, (const int64_t[]){1, C_OUT, 4 * HW, 4 * HW});
	ob_node(b, "Resize", "out", 4, (const char *[]){"y", "", "", "sizes"});
	ob_attr_s(b, "mode", "nearest");
	ob_attr_s(b, "coordinate_transformation_mode", "asymmetric");
	ob_attr_s(b, "nearest_mode", "floor");
}
static int64_t ref_resize_sizes(const float *x, const double *y, double *out)
{
	(void)x;
	for (int o = 0; o < C_OUT; o++)
		for (int h = 0; h < 4 * HW; h++)
			for (int w = 0; w < 4 * HW; w++)
				out[(o * 4 * HW + h) * 4 * HW + w] = y[o * P + (h / 4) * HW + w / 4];
	return C_OUT * 16 * P;
}

/* Upsample (opset 9: the scales an input) nearest by 2. */
static void build_upsample(ob *b)
{
	ob_const(b, "scales", 1, (const int64_t[]){4}, (const float[]){1, 1, 2, 2}, NULL);
	ob_node(b, "Upsample", "out", 2, (const char *[]){"y", "scales"});
	ob_attr_s(b, "mode", "nearest");
}
static int64_t ref_upsample(const float *x, const double *y, double *out)
{
	(void)x;
	for (int o = 0; o < C_OUT; o++)
		for (int h = 0; h < 2 * HW; h++)
			for (int w = 0; w < 2 * HW; w++)
				out[(o * 2 * HW + h) * 2 * HW + w] = y[o * P + (h / 2) * HW + w / 2];
	return C_OUT * 4 * P;
}

/* Linear interpolation of y's rows and columns to oh x ow from the ONNX
 * definition: source x = (o + 0.5) * in / out - 0.5 (half_pixel) or o *
 * (in - 1) / (out - 1) (align_corners), clamped to the input, then the two
 * neighbours weighted by distance. */
static double lin_src(int64_t o, int64_t in, int64_t out, int align)
{
	double x = align ? (out > 1 ? (double)o * (double)(in - 1) / (double)(out - 1) : 0.0)
			 : ((double)o + 0.5) * (double)in / (double)out - 0.5;
	return x < 0 ? 0 : x > (double)(in - 1) ? (double)(in - 1) : x;
}
static int64_t ref_linear(const double *y, double *out, int64_t oh, int64_t ow, int align)
{
	for (int o = 0; o < C_OUT; o++)
		for (int64_t h = 0; h < oh; h++)
			for (int64_t w = 0; w < ow; w++) {
				double sh = lin_src(h, HW, oh, align), sw = lin_src(w, HW, ow, align);
				int h0 = (int)sh, w0 = (int)sw, h1 = h0 + 1 < HW ? h0 + 1 : h0, w1 = w0 + 1 < HW ? w0 + 1 : w0;
				double fh = sh - h0, fw = sw - w0;
				const double *p = y + o * P;
				double top = p[h0 * HW + w0] * (1 - fw) + p[h0 * HW + w1] * fw;
				double bot = p[h1 * HW + w0] * (1 - fw) + p[h1 * HW + w1] * fw;
				out[(o * oh + h) * ow + w] = top * (1 - fh) + bot * fh;
			}
	return C_OUT * oh * ow;
}

/* Resize linear to sizes 9 x 4 (rows up, columns down), half_pixel: a
 * segmenter's bilinear head. */
static void build_resize_linear(ob *b)
{
	ob_const(b, "sizes", 1, (const int64_t[]){4}, NULL, (const int64_t[]){1, C_OUT, 9, 4});
	ob_node(b, "Resize", "out", 4, (const char *[]){"y", "", "", "sizes"});
	ob_attr_s(b, "mode", "linear");
}
static int64_t ref_resize_linear(const float *x, const double *y, double *out)
{
	(void)x;
	return ref_linear(y, out, 9, 4, 0);
}

/* Resize linear by 2 with align_corners (F.interpolate(align_corners=True)). */
static void build_resize_align(ob *b)
{
	ob_const(b, "scales", 1, (const int64_t[]){4}, (const float[]){1, 1, 2, 2}, NULL);
	ob_node(b, "Resize", "out", 3, (const char *[]){"y", "", "scales"});
	ob_attr_s(b, "mode", "linear");
	ob_attr_s(b, "coordinate_transformation_mode", "align_corners");
}
static int64_t ref_resize_align(const float *x, const double *y, double *out)
{
	(void)x;
	return ref_linear(y, out, 2 * HW, 2 * HW, 1);
}

/* Split y's channels 4 | 12; the 12 through DepthToSpace (CRD) by 2 to
 * [1,3,12,12] and SpaceToDepth by 2 back to [1,12,6,6]; concatenated
 * after the 4 again. From the definitions: DepthToSpace CRD out[c][2h+i][2w+j]
 * = in[4c + 2i + j][h][w]; SpaceToDepth out[(2i + j) C + c][h][w] =
 * in[c][2h+i][2w+j]. */
static void build_split_d2s(ob *b)
{
	ob_const(b, "parts", 1, (const int64_t[]){2}, NULL, (const int64_t[]){4, 12});
	ob_node(b, "Split", "a", 2, (const char *[]){"y", "parts"});
	ob_attr(b, "axis", 0, 1, 0, NULL);
	ob_out2(b, "b");
	ob_node(b, "DepthToSpace", "d", 1, (const char *[]){"b"});
	ob_attr(b, "blocksize", 0, 2, 0, NULL);
	ob_attr_s(b, "mode", "CRD");
	ob_node(b, "SpaceToDepth", "s", 1, (const char *[]){"d"});
	ob_attr(b, "blocksize", 0, 2, 0, NULL);
	ob_node(b, "Concat", "out", 2, (const char *[]){"a", "s"});
	ob_attr(b, "axis", 0, 1, 0, NULL);
}
static int64_t ref_split_d2s(const float *x, const double *y, double *out)
{
	(void)x;
	static double d[3][2 * HW][2 * HW];
	for (int c = 0; c < 3; c++)
		for (int h = 0; h < 2 * HW; h++)
			for (int w = 0; w < 2 * HW; w++)
				d[c][h][w] = y[(4 + 4 * c + 2 * (h % 2) + w % 2) * P + (h / 2) * HW + w / 2];
	memcpy(out, y, 4 * P * sizeof *out);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			for (int c = 0; c < 3; c++)
				for (int h = 0; h < HW; h++)
					for (int w = 0; w < HW; w++)
						out[(4 + (2 * i + j) * 3 + c) * P + h * HW + w] = d[c][2 * h + i][2 * w + j];
	return C_OUT * P;
}

/* ReduceMax (axes an attribute) squeezed to [1,16] and unsqueezed back,
 * plus ReduceSum (axes an input, opset 13) over the rows and columns. */
static void build_reduce_squeeze(ob *b)
{
	ob_node(b, "ReduceMax", "m", 1, (const char *[]){"y"});
	ob_attr(b, "axes", 0, 0, 2, (const int64_t[]){2, 3});
	ob_const(b, "ax", 1, (const int64_t[]){2}, NULL, (const int64_t[]){2, 3});
	ob_node(b, "Squeeze", "q", 2, (const char *[]){"m", "ax"});
	ob_node(b, "Unsqueeze", "u", 2, (const char *[]){"q", "ax"});
	ob_node(b, "ReduceSum", "r", 2, (const char *[]){"y", "ax"});
	ob_node(b, "Add", "out", 2, (const char *[]){"u", "r"});
}
static int64_t ref_reduce_squeeze(const float *x, const double *y, double *out)
{
	(void)x;
	for (int o = 0; o < C_OUT; o++) {
		double mx = y[o * P], sum = 0;
		for (int p = 0; p < P; p++)
			mx = fmax(mx, y[o * P + p]), sum += y[o * P + p];
		out[o] = mx + sum;
	}
	return C_OUT;
}

/* ConvTranspose of y by stride 2 to 8 channels: 3x3 with pads 1 and
 * output_padding 1 ([1,8,12,12]), or 4x4 in 2 groups with pads 1
 * ([1,8,12,12]). From the definition: each input pixel (h, w) adds
 * x[c][h][w] * w[c][o][i][j] to output (2h - pad + i, 2w - pad + j). */
enum { DC_M = 8 };
static float deconv_w[C_OUT * DC_M * 9], deconv_gw[C_OUT * (DC_M / 2) * 16], deconv_b[DC_M];
static void build_deconv(ob *b)
{
	ob_const(b, "dw", 4, (const int64_t[]){C_OUT, DC_M, 3, 3}, deconv_w, NULL);
	ob_const(b, "db", 1, (const int64_t[]){DC_M}, deconv_b, NULL);
	ob_node(b, "ConvTranspose", "out", 3, (const char *[]){"y", "dw", "db"});
	ob_attr(b, "strides", 0, 0, 2, (const int64_t[]){2, 2});
	ob_attr(b, "pads", 0, 0, 4, (const int64_t[]){1, 1, 1, 1});
	ob_attr(b, "output_padding", 0, 0, 2, (const int64_t[]){1, 1});
}
static void build_deconv_group(ob *b)
{
	ob_const(b, "dw", 4, (const int64_t[]){C_OUT, DC_M / 2, 4, 4}, deconv_gw, NULL);
	ob_node(b, "ConvTranspose", "out", 2, (const char *[]){"y", "dw"});
	ob_attr(b, "strides", 0, 0, 2, (const int64_t[]){2, 2});
	ob_attr(b, "pads", 0, 0, 4, (const int64_t[]){1, 1, 1, 1});
	ob_attr(b, "group", 0, 2, 0, NULL);
}
static int64_t ref_deconv_k(const double *y, double *out, int k, int groups, const float *w, const float *bias)
{
	enum { OH = 2 * HW };
	int cg = C_OUT / groups, mg = DC_M / groups;
	for (int o = 0; o < DC_M * OH * OH; o++)
		out[o] = bias ? bias[o / (OH * OH)] : 0.0;
	for (int c = 0; c < C_OUT; c++)
		for (int h = 0; h < HW; h++)
			for (int x = 0; x < HW; x++)
				for (int m = 0; m < mg; m++)
					for (int i = 0; i < k; i++)
						for (int j = 0; j < k; j++) {
							int oh = 2 * h - 1 + i, ow = 2 * x - 1 + j, o = (c / cg) * mg + m;
							if (oh >= 0 && oh < OH && ow >= 0 && ow < OH)
								out[(o * OH + oh) * OH + ow] +=
									y[c * P + h * HW + x] * w[((c * mg + m) * k + i) * k + j];
						}
	return DC_M * OH * OH;
}
static int64_t ref_deconv(const float *x, const double *y, double *out)
{
	(void)x;
	return ref_deconv_k(y, out, 3, 1, deconv_w, deconv_b);
}
static int64_t ref_deconv_group(const float *x, const double *y, double *out)
{
	(void)x;
	return ref_deconv_k(y, out, 4, 2, deconv_gw, NULL);
}

/* Unary, binary and reduce functions on the host: d = Elu(y, 0.5) /
 * (|y| + 1) (a tensor divisor), m = Max(d, -y, Softplus(y)), out =
 * Pow(ReduceLogSumExp(m over the channels, kept), 2). */
static void build_elementwise(ob *b)
{
	ob_node(b, "Elu", "e", 1, (const char *[]){"y"});
	ob_attr(b, "alpha", 1, 0.5, 0, NULL);
	ob_node(b, "Abs", "a", 1, (const char *[]){"y"});
	ob_const(b, "one", 1, (const int64_t[]){1}, (const float[]){1.0f}, NULL);
	ob_node(b, "Add", "a1", 2, (const char *[]){"a", "one"});
	ob_node(b, "Div", "d", 2, (const char *[]){"e", "a1"});
	ob_node(b, "Neg", "n", 1, (const char *[]){"y"});
	ob_node(b, "Softplus", "sp", 1, (const char *[]){"y"});
	ob_node(b, "Max", "m", 3, (const char *[]){"d", "n", "sp"});
	ob_node(b, "ReduceLogSumExp", "r", 1, (const char *[]){"m"});
	ob_attr(b, "axes", 0, 0, 1, (const int64_t[]){1});
	ob_const(b, "two", 1, (const int64_t[]){1}, (const float[]){2.0f}, NULL);
	ob_node(b, "Pow", "out", 2, (const char *[]){"r", "two"});
}
static int64_t ref_elementwise(const float *x, const double *y, double *out)
{
	(void)x;
	for (int p = 0; p < P; p++) {
		double s = 0;
		for (int o = 0; o < C_OUT; o++) {
			double v = y[o * P + p], e = v > 0 ? v : 0.5 * (exp(v) - 1);
			s += exp(fmax(fmax(e / (fabs(v) + 1), -v), log1p(exp(v))));
		}
		out[p] = log(s) * log(s);
	}
	return P;
}

/* LogSoftmax over the channels plus ReduceMin over the rows (kept,
 * broadcast back), and the Mean of that with Atan(y) (Floor would jump
 * with int8 rounding of y; the conformance run checks it). */
static void build_log_softmax(ob *b)
{
	ob_node(b, "LogSoftmax", "l", 1, (const char *[]){"y"});
	ob_attr(b, "axis", 0, 1, 0, NULL);
	ob_node(b, "ReduceMin", "r", 1, (const char *[]){"y"});
	ob_attr(b, "axes", 0, 0, 1, (const int64_t[]){2});
	ob_node(b, "Add", "s", 2, (const char *[]){"l", "r"});
	ob_node(b, "Atan", "f", 1, (const char *[]){"y"});
	ob_node(b, "Mean", "out", 2, (const char *[]){"s", "f"});
}
static int64_t ref_log_softmax(const float *x, const double *y, double *out)
{
	(void)x;
	for (int p = 0; p < P; p++) {
		double mx = -INFINITY, z = 0;
		for (int o = 0; o < C_OUT; o++)
			mx = fmax(mx, y[o * P + p]);
		for (int o = 0; o < C_OUT; o++)
			z += exp(y[o * P + p] - mx);
		for (int o = 0; o < C_OUT; o++) {
			double mn = INFINITY;
			for (int h = 0; h < HW; h++)
				mn = fmin(mn, y[o * P + h * HW + p % HW]);
			double v = y[o * P + p];
			out[o * P + p] = (v - mx - log(z) + mn + atan(v)) / 2;
		}
	}
	return C_OUT * P;
}

/* tf2onnx's layout: the graph input NHWC [1,6,6,8], a Transpose to NCHW
 * before the convolution. The compiled model takes NCHW (the input the
 * transpose made, as images are read), so x fed as NCHW gives y. */
static void build_nhwc_input(ob *b)
{
	b->dims[1].dim_value = HW, b->dims[2].dim_value = HW, b->dims[3].dim_value = C_IN;
	ob_node(b, "Transpose", "xt", 1, (const char *[]){"x"});
	ob_attr(b, "perm", 0, 0, 4, (const int64_t[]){0, 3, 1, 2});
	size_t last = b->graph.n_node - 1; /* the transpose first, the convolution reads it */
	Onnx__NodeProto *t = b->node_p[last];
	memmove(&b->node_p[1], &b->node_p[0], last * sizeof *b->node_p);
	b->node_p[0] = t;
	b->node_in[0][0] = "xt";
	ob_node(b, "Relu", "out", 1, (const char *[]){"y"});
}
static int64_t ref_nhwc_input(const float *x, const double *y, double *out)
{
	(void)x;
	for (int i = 0; i < C_OUT * P; i++)
		out[i] = fmax(y[i], 0.0);
	return C_OUT * P;
}

/* A transformer's head: y as 36 tokens of 16 ([1,36,16]: Reshape,
 * Transpose), MatMul by a constant [16,8] (a dense layer on VTA), the
 * Expand of a per-column scale onto [1,36,8] times it, Gather of token 3. */
static float mm_w[16 * 8], mm_s[8];
static void build_tokens(ob *b)
{
	ob_const(b, "shp", 1, (const int64_t[]){3}, NULL, (const int64_t[]){1, C_OUT, P});
	ob_node(b, "Reshape", "r", 2, (const char *[]){"y", "shp"});
	ob_node(b, "Transpose", "t", 1, (const char *[]){"r"});
	ob_attr(b, "perm", 0, 0, 3, (const int64_t[]){0, 2, 1});
	ob_const(b, "W", 2, (const int64_t[]){C_OUT, 8}, mm_w, NULL);
	ob_node(b, "MatMul", "mm", 2, (const char *[]){"t", "W"});
	ob_const(b, "s", 1, (const int64_t[]){8}, mm_s, NULL);
	ob_const(b, "eshape", 1, (const int64_t[]){3}, NULL, (const int64_t[]){1, P, 8});
	ob_node(b, "Expand", "e", 2, (const char *[]){"s", "eshape"});
	ob_node(b, "Mul", "m", 2, (const char *[]){"mm", "e"});
	ob_const(b, "idx", 0, (const int64_t[]){1}, NULL, (const int64_t[]){3});
	ob_node(b, "Gather", "out", 2, (const char *[]){"m", "idx"});
	ob_attr(b, "axis", 0, 1, 0, NULL);
}
static int64_t ref_tokens(const float *x, const double *y, double *out)
{
	(void)x;
	for (int j = 0; j < 8; j++) {
		double v = 0;
		for (int c = 0; c < C_OUT; c++)
			v += y[c * P + 3] * mm_w[c * 8 + j];
		out[j] = v * mm_s[j];
	}
	return 8;
}

/* A QDQ model as quantization tools write it: y through QuantizeLinear
 * and DequantizeLinear (scale 1/32), then a 3x3 convolution whose int8
 * weights are dequantized per output channel (axis 0), with a float bias.
 * Reference: the ONNX definitions, y's rounding to 1/32 included; the
 * importer takes the pair as the identity (the compiler quantizes at its
 * own scales), so the float graph is held to 2% of the range. */
enum { QO = 8 };
static int32_t qw[QO * C_OUT * 9];
static float qws[QO], qb[QO];
static double fq(double v, double s) /* QuantizeLinear (int8, zero point 0), DequantizeLinear */
{
	double q = nearbyint(v / s);
	return (q < -128 ? -128 : q > 127 ? 127 : q) * s;
}
static void build_qdq(ob *b)
{
	ob_const(b, "ys", 0, (const int64_t[]){1}, (const float[]){1.0f / 32}, NULL);
	ob_const_i8(b, "yz", 0, (const int64_t[]){1}, (const int32_t[]){0});
	ob_node(b, "QuantizeLinear", "yq", 3, (const char *[]){"y", "ys", "yz"});
	ob_node(b, "DequantizeLinear", "yd", 3, (const char *[]){"yq", "ys", "yz"});
	ob_const_i8(b, "wq", 4, (const int64_t[]){QO, C_OUT, 3, 3}, qw);
	ob_const(b, "ws", 1, (const int64_t[]){QO}, qws, NULL);
	ob_node(b, "DequantizeLinear", "wd", 2, (const char *[]){"wq", "ws"});
	ob_attr(b, "axis", 0, 0, 0, NULL);
	ob_const(b, "qb", 1, (const int64_t[]){QO}, qb, NULL);
	ob_node(b, "Conv", "out", 3, (const char *[]){"yd", "wd", "qb"});
	ob_attr(b, "pads", 0, 0, 4, (const int64_t[]){1, 1, 1, 1});
}
static int64_t ref_qdq(const float *x, const double *y, double *out)
{
	(void)x;
	for (int o = 0; o < QO; o++)
		for (int h = 0; h < HW; h++)
			for (int w = 0; w < HW; w++) {
				double v = qb[o];
				for (int c = 0; c < C_OUT; c++)
					for (int i = 0; i < 3; i++)
						for (int j = 0; j < 3; j++) {
							int hh = h + i - 1, ww = w + j - 1;
							if (hh >= 0 && hh < HW && ww >= 0 && ww < HW)
								v += fq(y[c * P + hh * HW + ww], 1.0 / 32) *
								     qw[((o * C_OUT + c) * 3 + i) * 3 + j] * qws[o];
						}
				out[o * P + h * HW + w] = v;
			}
	return QO * P;
}

/* QOperator: y through QuantizeLinear (scale 1/32) into QLinearConv (the
 * weights of build_qdq, an int32 bias at x_scale w_scale, output scale
 * 1/16: no value saturates) and DequantizeLinear. Reference: the definitions, both roundings
 * included (the float graph, which rounds neither, held to 3%). */
static int32_t qbias[QO];
static void build_qlinear(ob *b)
{
	ob_const(b, "ys", 0, (const int64_t[]){1}, (const float[]){1.0f / 32}, NULL);
	ob_const_i8(b, "yz", 0, (const int64_t[]){1}, (const int32_t[]){0});
	ob_node(b, "QuantizeLinear", "yq", 3, (const char *[]){"y", "ys", "yz"});
	ob_const_i8(b, "wq", 4, (const int64_t[]){QO, C_OUT, 3, 3}, qw);
	ob_const(b, "ws", 1, (const int64_t[]){QO}, qws, NULL);
	ob_const_i8(b, "wz", 1, (const int64_t[]){QO}, (const int32_t[QO]){0});
	ob_const(b, "os", 0, (const int64_t[]){1}, (const float[]){1.0f / 16}, NULL);
	ob_const_i8(b, "qbias", 1, (const int64_t[]){QO}, qbias);
	b->inits[b->graph.n_initializer - 1].data_type = 6; /* INT32 */
	ob_node(b, "QLinearConv", "cq", 9, (const char *[]){"yq", "ys", "yz", "wq", "ws", "wz", "os", "yz", "qbias"});
	ob_attr(b, "pads", 0, 0, 4, (const int64_t[]){1, 1, 1, 1});
	ob_node(b, "DequantizeLinear", "out", 3, (const char *[]){"cq", "os", "yz"});
}
static int64_t ref_qlinear(const float *x, const double *y, double *out)
{
	for (int o = 0; o < QO; o++)
		qb[o] = (float)(qbias[o] * (1.0 / 32) * qws[o]); /* the bias build_qdq's reference adds */
	int64_t n = ref_qdq(x, y, out);
	for (int64_t i = 0; i < n; i++)
		out[i] = fq(out[i], 1.0 / 16);
	return n;
}

/* LayerNormalization (opset 17) over the columns (axis -1), a scale and a
 * bias a column: (y - mean) / sqrt(var + 1e-5) * g + b. */
static const float ln_g[HW] = {0.5f, 1.0f, 1.5f, -0.5f, 2.0f, 0.25f}, ln_b[HW] = {0.1f, -0.2f, 0.3f, 0.0f, 0.5f, -1.0f};
static void build_layer_norm(ob *b)
{
	ob_const(b, "g", 1, (const int64_t[]){HW}, ln_g, NULL);
	ob_const(b, "lb", 1, (const int64_t[]){HW}, ln_b, NULL);
	ob_node(b, "LayerNormalization", "out", 3, (const char *[]){"y", "g", "lb"});
}
static int64_t ref_layer_norm(const float *x, const double *y, double *out)
{
	(void)x;
	for (int row = 0; row < C_OUT * HW; row++) {
		double mean = 0, var = 0;
		for (int w = 0; w < HW; w++)
			mean += y[row * HW + w] / HW;
		for (int w = 0; w < HW; w++)
			var += (y[row * HW + w] - mean) * (y[row * HW + w] - mean) / HW;
		for (int w = 0; w < HW; w++)
			out[row * HW + w] = (y[row * HW + w] - mean) / sqrt(var + 1e-5) * ln_g[w] + ln_b[w];
	}
	return C_OUT * P;
}

/* Slices with steps (Swin's patch merging, x[:, :, 1::2, 0:5:3]): rows
 * 1, 3, 5 (the last group of two short) and columns 0, 3. */
static void build_strided(ob *b)
{
	ob_const(b, "s1", 1, (const int64_t[]){1}, NULL, (const int64_t[]){1});
	ob_const(b, "e1", 1, (const int64_t[]){1}, NULL, (const int64_t[]){HW});
	ob_const(b, "a1", 1, (const int64_t[]){1}, NULL, (const int64_t[]){2});
	ob_const(b, "p1", 1, (const int64_t[]){1}, NULL, (const int64_t[]){2});
	ob_node(b, "Slice", "r", 5, (const char *[]){"y", "s1", "e1", "a1", "p1"});
	ob_const(b, "s2", 1, (const int64_t[]){1}, NULL, (const int64_t[]){0});
	ob_const(b, "e2", 1, (const int64_t[]){1}, NULL, (const int64_t[]){5});
	ob_const(b, "a2", 1, (const int64_t[]){1}, NULL, (const int64_t[]){3});
	ob_const(b, "p2", 1, (const int64_t[]){1}, NULL, (const int64_t[]){3});
	ob_node(b, "Slice", "out", 5, (const char *[]){"r", "s2", "e2", "a2", "p2"});
}
static int64_t ref_strided(const float *x, const double *y, double *out)
{
	(void)x;
	for (int o = 0; o < C_OUT; o++)
		for (int h = 0; h < 3; h++)
			for (int w = 0; w < 2; w++)
				out[(o * 3 + h) * 2 + w] = y[o * P + (1 + 2 * h) * HW + 3 * w];
	return C_OUT * 6;
}

/* Pad of the channels and the last column (Swin pads NHWC's rows and
 * columns): 1 channel before and 2 after, 1 column after, all 0.5. */
static void build_pad_channels(ob *b)
{
	ob_const(b, "pads", 1, (const int64_t[]){8}, NULL, (const int64_t[]){0, 1, 0, 0, 0, 2, 0, 1});
	ob_const(b, "half", 0, (const int64_t[]){1}, (const float[]){0.5f}, NULL);
	ob_node(b, "Pad", "out", 3, (const char *[]){"y", "pads", "half"});
}
static int64_t ref_pad_channels(const float *x, const double *y, double *out)
{
	(void)x;
	for (int o = 0; o < C_OUT + 3; o++)
		for (int h = 0; h < HW; h++)
			for (int w = 0; w < HW + 1; w++)
				out[(o * HW + h) * (HW + 1) + w] = o >= 1 && o <= C_OUT && w < HW ? y[(o - 1) * P + h * HW + w] : 0.5;
	return (C_OUT + 3) * HW * (HW + 1);
}

/* GlobalMaxPool: [1,16,1,1], each channel's largest value. */
static void build_gmp(ob *b)
{
	ob_node(b, "GlobalMaxPool", "out", 1, (const char *[]){"y"});
}
static int64_t ref_gmp(const float *x, const double *y, double *out)
{
	(void)x;
	for (int o = 0; o < C_OUT; o++) {
		out[o] = y[o * P];
		for (int p = 1; p < P; p++)
			out[o] = fmax(out[o], y[o * P + p]);
	}
	return C_OUT;
}

/* LeakyRelu (PyTorch's 0.01), PRelu with a slope a channel, Tanh:
 * out = leaky(y) * tanh(y) + prelu(y), all on the host in float. */
static float prelu_s[C_OUT];
static void build_leaky_prelu_tanh(ob *b)
{
	ob_node(b, "LeakyRelu", "l", 1, (const char *[]){"y"});
	ob_node(b, "Tanh", "t", 1, (const char *[]){"y"});
	ob_node(b, "Mul", "lt", 2, (const char *[]){"l", "t"});
	ob_const(b, "s", 3, (const int64_t[]){C_OUT, 1, 1}, prelu_s, NULL);
	ob_node(b, "PRelu", "p", 2, (const char *[]){"y", "s"});
	ob_node(b, "Add", "out", 2, (const char *[]){"lt", "p"});
}
static int64_t ref_leaky_prelu_tanh(const float *x, const double *y, double *out)
{
	(void)x;
	for (int o = 0; o < C_OUT; o++)
		for (int p = 0; p < P; p++) {
			double v = y[o * P + p];
			out[o * P + p] = (v < 0 ? 0.01 * v : v) * tanh(v) + (v < 0 ? prelu_s[o] * v : v);
		}
	return C_OUT * P;
}

/* LeakyRelu of slope 1/8 (VTA's, fused into the convolution's
 * requantization), then Sub and Div by constants: (leaky(y) - 0.5) / 4. */
static void build_leaky_sub_div(ob *b)
{
	ob_node(b, "LeakyRelu", "l", 1, (const char *[]){"y"});
	ob_attr(b, "alpha", 1, 0.125, 0, NULL);
	ob_const(b, "half", 1, (const int64_t[]){1}, (const float[]){0.5f}, NULL);
	ob_const(b, "four", 1, (const int64_t[]){1}, (const float[]){4.0f}, NULL);
	ob_node(b, "Sub", "d", 2, (const char *[]){"l", "half"});
	ob_node(b, "Div", "out", 2, (const char *[]){"d", "four"});
}
static int64_t ref_leaky_sub_div(const float *x, const double *y, double *out)
{
	(void)x;
	for (int i = 0; i < C_OUT * P; i++)
		out[i] = ((y[i] < 0 ? y[i] / 8 : y[i]) - 0.5) / 4;
	return C_OUT * P;
}

/* PRelu of opset 6 with a slope of C_OUT values: one a channel (PRelu 1
 * and 6), not numpy-broadcast against the columns. */
static void build_prelu_channels(ob *b)
{
	ob_const(b, "s", 1, (const int64_t[]){C_OUT}, prelu_s, NULL);
	ob_node(b, "PRelu", "out", 2, (const char *[]){"y", "s"});
}
static int64_t ref_prelu_channels(const float *x, const double *y, double *out)
{
	(void)x;
	for (int i = 0; i < C_OUT * P; i++)
		out[i] = y[i] < 0 ? prelu_s[i / P] * y[i] : y[i];
	return C_OUT * P;
}

/* Pad of mode reflect and of mode edge (rows 2 above, 1 below; columns 1
 * left, 3 right), concatenated on the channels: [1,32,9,10]. From the
 * definitions (numpy.pad): reflect mirrors about the border row without
 * repeating it, edge repeats the border row. */
static void build_pad_modes(ob *b)
{
	ob_const(b, "pads", 1, (const int64_t[]){8}, NULL, (const int64_t[]){0, 0, 2, 1, 0, 0, 1, 3});
	ob_node(b, "Pad", "r", 2, (const char *[]){"y", "pads"});
	ob_attr_s(b, "mode", "reflect");
	ob_node(b, "Pad", "e", 2, (const char *[]){"y", "pads"});
	ob_attr_s(b, "mode", "edge");
	ob_node(b, "Concat", "out", 2, (const char *[]){"r", "e"});
	ob_attr(b, "axis", 0, 1, 0, NULL);
}
static int pad_src(int i, int n, int reflect)
{
	return i < 0 ? (reflect ? -i : 0) : i >= n ? (reflect ? 2 * (n - 1) - i : n - 1) : i;
}
static int64_t ref_pad_modes(const float *x, const double *y, double *out)
{
	(void)x;
	enum { OH = HW + 3, OW = HW + 4 };
	for (int k = 0; k < 2; k++)
		for (int o = 0; o < C_OUT; o++)
			for (int h = 0; h < OH; h++)
				for (int w = 0; w < OW; w++)
					out[((k * C_OUT + o) * OH + h) * OW + w] =
						y[o * P + pad_src(h - 2, HW, !k) * HW + pad_src(w - 1, HW, !k)];
	return 2 * C_OUT * OH * OW;
}

/* 1-D models (host_cases_1d): x [1,8,36] -> a 1-D 1x1 convolution y
 * [1,16,36] (the values of conv_ref, a row of P columns a channel). */
enum { L1 = P, CV_M = 8, CV_G = 2 };
static float conv1d_w[CV_M * (C_OUT / CV_G) * 3], deconv1d_w[C_OUT * DC_M * 3];

/* Conv 1-D (kernel 3, stride 2, dilation 2, pads 1 and 2, 2 groups) to
 * [1,8,18], then MaxPool 1-D (3, stride 2, pads 1) to [1,8,9]. */
static void build_conv1d_pool(ob *b)
{
	ob_const(b, "cw", 3, (const int64_t[]){CV_M, C_OUT / CV_G, 3}, conv1d_w, NULL);
	ob_node(b, "Conv", "c", 2, (const char *[]){"y", "cw"});
	ob_attr(b, "kernel_shape", 0, 0, 1, (const int64_t[]){3});
	ob_attr(b, "strides", 0, 0, 1, (const int64_t[]){2});
	ob_attr(b, "dilations", 0, 0, 1, (const int64_t[]){2});
	ob_attr(b, "pads", 0, 0, 2, (const int64_t[]){1, 2});
	ob_attr(b, "group", 0, CV_G, 0, NULL);
	ob_node(b, "MaxPool", "out", 1, (const char *[]){"c"});
	ob_attr(b, "kernel_shape", 0, 0, 1, (const int64_t[]){3});
	ob_attr(b, "strides", 0, 0, 1, (const int64_t[]){2});
	ob_attr(b, "pads", 0, 0, 2, (const int64_t[]){1, 1});
}
static int64_t ref_conv1d_pool(const float *x, const double *y, double *out)
{
	(void)x;
	enum { LC = 18, LP = 9, CG = C_OUT / CV_G };
	static double c[CV_M][LC];
	for (int m = 0; m < CV_M; m++)
		for (int l = 0; l < LC; l++) {
			c[m][l] = 0;
			for (int i = 0; i < CG; i++)
				for (int j = 0; j < 3; j++) {
					int at = 2 * l - 1 + 2 * j, ch = m / (CV_M / CV_G) * CG + i;
					if (at >= 0 && at < L1)
						c[m][l] += conv1d_w[(m * CG + i) * 3 + j] * y[ch * L1 + at];
				}
		}
	for (int m = 0; m < CV_M; m++)
		for (int l = 0; l < LP; l++) {
			double v = -INFINITY;
			for (int j = 0; j < 3; j++)
				if (2 * l - 1 + j >= 0 && 2 * l - 1 + j < LC)
					v = fmax(v, c[m][2 * l - 1 + j]);
			out[m * LP + l] = v;
		}
	return CV_M * LP;
}

/* ConvTranspose 1-D (kernel 3, stride 2, pads 1, output_padding 1) to
 * [1,8,72], then AveragePool 1-D (3, stride 3, pads 1, the pads not
 * counted) to [1,8,24]. */
static void build_deconv1d_avg(ob *b)
{
	ob_const(b, "dw", 3, (const int64_t[]){C_OUT, DC_M, 3}, deconv1d_w, NULL);
	ob_node(b, "ConvTranspose", "d", 2, (const char *[]){"y", "dw"});
	ob_attr(b, "strides", 0, 0, 1, (const int64_t[]){2});
	ob_attr(b, "pads", 0, 0, 2, (const int64_t[]){1, 1});
	ob_attr(b, "output_padding", 0, 0, 1, (const int64_t[]){1});
	ob_node(b, "AveragePool", "out", 1, (const char *[]){"d"});
	ob_attr(b, "kernel_shape", 0, 0, 1, (const int64_t[]){3});
	ob_attr(b, "strides", 0, 0, 1, (const int64_t[]){3});
	ob_attr(b, "pads", 0, 0, 2, (const int64_t[]){1, 1});
}
static int64_t ref_deconv1d_avg(const float *x, const double *y, double *out)
{
	(void)x;
	enum { LD = 2 * L1, LA = 24 };
	static double d[DC_M][LD];
	memset(d, 0, sizeof d);
	for (int c = 0; c < C_OUT; c++)
		for (int l = 0; l < L1; l++)
			for (int o = 0; o < DC_M; o++)
				for (int j = 0; j < 3; j++)
					if (2 * l - 1 + j >= 0 && 2 * l - 1 + j < LD)
						d[o][2 * l - 1 + j] += y[c * L1 + l] * deconv1d_w[(c * DC_M + o) * 3 + j];
	for (int o = 0; o < DC_M; o++)
		for (int l = 0; l < LA; l++) {
			double sum = 0;
			int n = 0;
			for (int j = 0; j < 3; j++)
				if (3 * l - 1 + j >= 0 && 3 * l - 1 + j < LD)
					sum += d[o][3 * l - 1 + j], n++;
			out[o * LA + l] = sum / n;
		}
	return DC_M * LA;
}

static const struct host_case {
	const char *name;
	int64_t opset;
	void (*build)(ob *b);
	int64_t (*ref)(const float *x, const double *y, double *out);
} host_cases[] = {
	{"Sigmoid, Mul (SiLU, squeeze-excitation)", 13, build_silu_se, ref_silu_se},
	{"HardSigmoid, HardSwish", 14, build_hard, ref_hard},
	{"ReduceMean (spatial, keepdims=0)", 13, build_reduce_mean, ref_reduce_mean},
	{"Pad (constant 0.25)", 13, build_pad, ref_pad},
	{"BatchNormalization after Concat", 13, build_bn, ref_bn},
	{"Concat of 20", 13, build_concat20, ref_concat20},
	{"Reshape, Transpose, Shape..Slice (shuffle)", 13, build_shuffle, ref_shuffle},
	{"Conv with 4 groups (int8 on the host)", 13, build_grouped, ref_grouped},
	{"Resize nearest x2,x3 (half_pixel, roi left out)", 13, build_resize, ref_resize},
	{"Resize nearest to sizes x4 (asymmetric, floor)", 13, build_resize_sizes, ref_resize_sizes},
	{"Upsample nearest x2 (opset 9)", 9, build_upsample, ref_upsample},
	{"Resize linear to 9x4 (half_pixel)", 13, build_resize_linear, ref_resize_linear},
	{"Resize linear x2 (align_corners)", 13, build_resize_align, ref_resize_align},
	{"GlobalMaxPool", 13, build_gmp, ref_gmp},
	{"Split, DepthToSpace (CRD), SpaceToDepth", 13, build_split_d2s, ref_split_d2s},
	{"ReduceMax, Squeeze, Unsqueeze, ReduceSum", 13, build_reduce_squeeze, ref_reduce_squeeze},
	{"ConvTranspose 3x3 /2, pads 1, output_padding 1", 13, build_deconv, ref_deconv},
	{"Elu, Abs, Div, Neg, Softplus, Max, ReduceLogSumExp, Pow", 13, build_elementwise, ref_elementwise},
	{"NHWC input, Transpose (tf2onnx)", 13, build_nhwc_input, ref_nhwc_input},
	{"MatMul [1,36,16] by a constant, Expand, Gather", 13, build_tokens, ref_tokens},
	{"QDQ: QuantizeLinear, DequantizeLinear, int8 conv", 13, build_qdq, ref_qdq},
	{"LayerNormalization over the columns (opset 17)", 17, build_layer_norm, ref_layer_norm},
	{"Slice with steps (rows 1::2, columns 0:5:3)", 13, build_strided, ref_strided},
	{"Pad of the channels and a column (0.5)", 13, build_pad_channels, ref_pad_channels},
	{"QOperator: QuantizeLinear, QLinearConv, DequantizeLinear", 13, build_qlinear, ref_qlinear},
	{"LogSoftmax, ReduceMin, Atan, Mean", 13, build_log_softmax, ref_log_softmax},
	{"ConvTranspose 4x4 /2 in 2 groups, pads 1", 13, build_deconv_group, ref_deconv_group},
	{"LeakyRelu 0.01, PRelu, Tanh", 13, build_leaky_prelu_tanh, ref_leaky_prelu_tanh},
	{"LeakyRelu 1/8 (fused), Sub, Div", 13, build_leaky_sub_div, ref_leaky_sub_div},
	{"PRelu, slope [C] a channel (opset 6)", 6, build_prelu_channels, ref_prelu_channels},
	{"Pad reflect, Pad edge", 13, build_pad_modes, ref_pad_modes},
};

/* On 1-D data [1,8,36] (the 1x1 convolution 1-D too). */
static const struct host_case host_cases_1d[] = {
	{"Conv 1-D k3 /2 dil 2, 2 groups; MaxPool 1-D", 13, build_conv1d_pool, ref_conv1d_pool},
	{"ConvTranspose 1-D k3 /2; AveragePool 1-D", 13, build_deconv1d_avg, ref_deconv1d_avg},
	{"PRelu 1-D, slope [C] a channel (opset 6)", 6, build_prelu_channels, ref_prelu_channels},
};

/* Largest |got - want| and |want| over n values. */
static void error_range(const float *got, const double *want, int64_t n, double *err, double *range)
{
	*err = 0, *range = 0;
	for (int64_t i = 0; i < n; i++) {
		*err = fmax(*err, fabs(got[i] - want[i]));
		*range = fmax(*range, fabs(want[i]));
	}
}

/* One model: its float graph (the compiler's reference) within float
 * rounding of the reference here; compiled to int8 with the convolution
 * on VTA, opened by libvta (which runs every node, or refuses the model)
 * and run on fsim within a few int8 steps of the output's range, bit for
 * bit as the compiler's host execution of the same file. */
static int host_case(const struct host_case *hc, const float *x, const float *calib, int n_calib, int one_d)
{
	static ob b;
	static double y[C_OUT * P], want[20 * C_OUT * P];
	ob_init(&b, hc->opset, (const int64_t[]){1, C_IN, HW, HW}, "out");
	if (one_d) /* x [1,8,36]: y holds the same values as [1,16,36] */
		b.shape.n_dim = 3, b.dims[2].dim_value = P;
	ob_const(&b, "w", one_d ? 3 : 4, (const int64_t[]){C_OUT, C_IN, 1, 1}, conv_w, NULL);
	ob_const(&b, "b", 1, (const int64_t[]){C_OUT}, conv_b, NULL);
	ob_node(&b, "Conv", "y", 3, (const char *[]){"x", "w", "b"});
	hc->build(&b);
	conv_ref(x, y);
	int64_t n = hc->ref(x, y, want);
	size_t len;
	uint8_t *bytes = ob_pack(&b, &len);
	vc_module *f = vc_module_new(), *q = vc_module_new();
	double ferr = -1, qerr = -1, range = 0, r2;
	int kernels = 0, same = 0;
	char err[1024] = "";
	vc_tensor in, out;
	vc_compile_opts fo = {.pipeline = "float"}, qo = {0};
	if (!bytes || vc_import_onnx_bytes(f, bytes, len) || vc_import_onnx_bytes(q, bytes, len) ||
	    vc_compile(f, &fo, err, sizeof err) || vc_tensor_alloc(&in, &f->g->inputs[0]->type)) {
		printf("  %-42s import or float compile failed: %s %s\n", hc->name, f->diag.msg, err);
		goto done;
	}
	memcpy(in.data, x, C_IN * P * sizeof *x);
	if (!vc_interp(f, &in, &out, NULL, NULL, NULL)) {
		if (vc_type_elems(&out.t) == n)
			error_range(out.data, want, n, &ferr, &range);
		vc_tensor_free(&out);
	}
	vc_tensor_free(&in);
	q->calib = (vc_samples){.count = n_calib, .elems = C_IN * P, .data = (float *)calib};
	uint8_t *art = NULL;
	size_t alen;
	vta_model_t *vm = NULL;
	vta_error_t e = {0};
	if (vc_compile(q, &qo, err, sizeof err) || vc_artifact_bytes(q, &art, &alen) ||
	    vta_model_open_bytes(art, alen, hc->name, "fsim", &vm, &e)) {
		printf("  %-42s int8: %s%s%s\n", hc->name, err, q->diag.msg, e.msg);
	} else {
		float *got = calloc((size_t)n, sizeof *got);
		vta_tensor_t ti = {VTA_DTYPE_F32, 0, (void *)x, C_IN * P * sizeof *x};
		vta_tensor_t to = {VTA_DTYPE_F32, 0, got, (size_t)n * sizeof *got};
		if (got && !vta_model_run(vm, &ti, &to, &e))
			error_range(got, want, n, &qerr, &r2);
		else
			printf("  %-42s libvta: %s\n", hc->name, e.msg);
		/* the compiler's host execution of the same file (its reference
		 * of every node, the int8 one of the VTA kernel): the same bits */
		vc_module *sim = vc_module_new();
		vc_tensor sx = {0}, sy = {0};
		same = got && sim && !vc_artifact_parse(sim, art, alen) && !vc_tensor_alloc(&sx, &sim->g->inputs[0]->type);
		if (same) {
			memcpy(sx.data, x, C_IN * P * sizeof *x);
			same = !vc_simulate(sim, &sx, &sy) && vc_type_elems(&sy.t) == n && !memcmp(sy.data, got, (size_t)n * sizeof *got);
		}
		vc_tensor_free(&sx);
		vc_tensor_free(&sy);
		vc_module_free(sim);
		free(got);
		kernels = q->n_kernels;
	}
	vta_model_close(vm);
	free(art);
done:
	free(bytes);
	vc_module_free(f);
	q->calib.data = NULL;
	vc_module_free(q);
	/* int8: a few steps of the output's 2^e <= range / 63.5 (the host ops
	 * between the convolution and the output see the int8 rounding of y) */
	/* the float graph within float rounding of the definition; a QDQ
	 * model's within 2% (its activations are not rounded: see build_qdq) */
	double ftol = hc->build == build_qdq ? 0.02 * range : hc->build == build_qlinear ? 0.03 * range : 1e-4 * (1 + range);
	int good = ferr >= 0 && ferr <= ftol && qerr >= 0 && qerr <= 0.06 * range && kernels > 0 && same;
	printf("  %-42s float err %8.2g  int8 err/range %5.2f%%  %d VTA kernel%s, %s host reference%s\n", hc->name,
	       ferr, 100 * qerr / (range > 0 ? range : 1), kernels, kernels == 1 ? "" : "s",
	       same ? "as the" : "NOT as the", good ? "" : "   <-- FAIL");
	return good;
}

static void host_ops(void)
{
	uint64_t st = 7;
	for (int i = 0; i < C_OUT * C_IN; i++)
		conv_w[i] = (float)(test_rand(&st) % 2001) / 1000.0f - 1.0f;
	for (int i = 0; i < C_OUT; i++)
		conv_b[i] = (float)(test_rand(&st) % 2001) / 2000.0f - 0.5f;
	for (int i = 0; i < C_OUT * GC * 9; i++)
		gconv_w[i] = (float)(test_rand(&st) % 2001) / 4000.0f - 0.25f;
	for (int c = 0; c < C_OUT + C_IN; c++) {
		bn_p[0][c] = 0.5f + (float)(test_rand(&st) % 1001) / 1000.0f;
		bn_p[1][c] = (float)(test_rand(&st) % 1001) / 1000.0f - 0.5f;
		bn_p[2][c] = (float)(test_rand(&st) % 1001) / 1000.0f - 0.5f;
		bn_p[3][c] = 0.5f + (float)(test_rand(&st) % 1001) / 1000.0f;
	}
	enum { N_CALIB = 32 };
	static float x[C_IN * P], calib[N_CALIB * C_IN * P];
	for (int i = 0; i < C_IN * P; i++)
		x[i] = (float)(test_rand(&st) % 2001) / 1000.0f - 1.0f;
	for (int i = 0; i < N_CALIB * C_IN * P; i++)
		calib[i] = (float)(test_rand(&st) % 2001) / 1000.0f - 1.0f;
	for (int i = 0; i < C_OUT; i++)
		prelu_s[i] = (float)(test_rand(&st) % 1001) / 2000.0f;
	for (size_t i = 0; i < sizeof deconv_w / sizeof deconv_w[0]; i++)
		deconv_w[i] = (float)(test_rand(&st) % 2001) / 4000.0f - 0.25f;
	for (size_t i = 0; i < sizeof deconv_gw / sizeof deconv_gw[0]; i++)
		deconv_gw[i] = (float)(test_rand(&st) % 2001) / 4000.0f - 0.25f;
	for (int i = 0; i < DC_M; i++)
		deconv_b[i] = (float)(test_rand(&st) % 2001) / 2000.0f - 0.5f;
	for (int i = 0; i < 16 * 8; i++)
		mm_w[i] = (float)(test_rand(&st) % 2001) / 2000.0f - 0.5f;
	for (int i = 0; i < 8; i++)
		mm_s[i] = 0.5f + (float)(test_rand(&st) % 1001) / 1000.0f;
	for (int i = 0; i < QO * C_OUT * 9; i++)
		qw[i] = (int32_t)(test_rand(&st) % 255) - 127;
	for (int i = 0; i < QO; i++)
		qws[i] = (1.0f + (float)(test_rand(&st) % 100) / 100.0f) / 1024, qb[i] = (float)(test_rand(&st) % 101) / 100.0f;
	for (int i = 0; i < QO; i++)
		qbias[i] = (int32_t)(test_rand(&st) % 20001) - 10000;
	for (size_t i = 0; i < sizeof conv1d_w / sizeof conv1d_w[0]; i++)
		conv1d_w[i] = (float)(test_rand(&st) % 2001) / 4000.0f - 0.25f;
	for (size_t i = 0; i < sizeof deconv1d_w / sizeof deconv1d_w[0]; i++)
		deconv1d_w[i] = (float)(test_rand(&st) % 2001) / 4000.0f - 0.25f;
	int ok = 0, n = (int)(sizeof host_cases / sizeof host_cases[0]);
	int n1 = (int)(sizeof host_cases_1d / sizeof host_cases_1d[0]);
	for (int i = 0; i < n; i++)
		ok += host_case(&host_cases[i], x, calib, N_CALIB, 0);
	for (int i = 0; i < n1; i++)
		ok += host_case(&host_cases_1d[i], x, calib, N_CALIB, 1);
	printf("%d of %d models match the float reference\n", ok, n + n1);
	CHECK_EQ(ok, n + n1);
	/* a PRelu slope that does not broadcast onto the input: the message
	 * names the PRelu node, not an op it becomes */
	static ob b;
	ob_init(&b, 13, (const int64_t[]){1, C_IN, HW, HW}, "out");
	ob_const(&b, "s", 1, (const int64_t[]){4}, prelu_s, NULL);
	ob_node(&b, "PRelu", "out", 2, (const char *[]){"x", "s"});
	size_t len;
	uint8_t *bytes = ob_pack(&b, &len);
	vc_module *m = vc_module_new();
	CHECK(bytes && m && vc_import_onnx_bytes(m, bytes, len) != 0);
	if (m)
		CHECK_STR_CONTAINS(m->diag.msg, "node 'out' (PRelu): a slope of 1 dimensions does not broadcast");
	vc_module_free(m);
	free(bytes);
}
/* The import message of the model in b: it must contain want. */
static void import_refused(ob *b, const char *want)
{
	size_t len;
	uint8_t *bytes = ob_pack(b, &len);
	vc_module *m = vc_module_new();
	CHECK(bytes && m && vc_import_onnx_bytes(m, bytes, len) != 0);
	if (m)
		CHECK_STR_CONTAINS(m->diag.msg, want);
	vc_module_free(m);
	free(bytes);
}

/* Messages of refused nodes: an unnamed node by its first output, a
 * Dropout's mask output, 1-D attributes of the wrong length. */
static void node_messages(void)
{
	static ob b;
	ob_init(&b, 13, (const int64_t[]){1, C_IN, HW, HW}, "out");
	ob_node(&b, "Relu", "out", 1, (const char *[]){"x"});
	ob_attr(&b, "alpha", 1, 0.5, 0, NULL);
	b.nodes[0].name = "";
	import_refused(&b, "node 'out' (Relu): attribute 'alpha' is not supported");
	ob_init(&b, 13, (const int64_t[]){1, C_IN, HW, HW}, "z");
	ob_node(&b, "Dropout", "y", 1, (const char *[]){"x"});
	ob_out2(&b, "z");
	import_refused(&b, "graph output 'z' is output 2 of node 'y' (Dropout): the mask output is not supported");
	ob_init(&b, 13, (const int64_t[]){1, C_IN, HW, HW}, "out");
	b.shape.n_dim = 3;
	ob_const(&b, "w", 3, (const int64_t[]){C_OUT, C_IN, 1}, conv_w, NULL);
	ob_node(&b, "Conv", "out", 2, (const char *[]){"x", "w"});
	ob_attr(&b, "pads", 0, 0, 4, (const int64_t[]){0, 1, 0, 1});
	import_refused(&b, "node 'out' (Conv): pads needs 2 entries for 1-D data");
}

static const test_case_t cases[] = {
	{"conformance", conformance},
	{"conformance_vta", conformance_vta},
	{"freeze", freeze},
	{"malformed", malformed},
	{"unsupported", unsupported},
	{"unsupported_all", unsupported_all},
	{"host_ops", host_ops},
	{"node_messages", node_messages},
	{NULL, NULL},
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, cases);
}
