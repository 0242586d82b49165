/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pass infrastructure: pipeline text (groups kept as written, named
 * pipelines composing, enum and list options, quoting), kernel groups run
 * as a pipeline on each kernel in turn (the hooks see the order), the pass
 * list, and reproducers: a deliberately failing pass (inject-fault) leaves
 * a reproducer that `vta opt REPRO` replays to the same failure, for an
 * error, a verifier failure and a crash (in a child process); a pass that
 * declares an analysis preserved but changes it fails --verify-analyses.
 * Pass tests from IR files: every tests/compiler/passes/NAME.ir holds a
 * module, a `# RUN: PIPELINE` line and the expected result as `# CHECK:`
 * (substrings of the printed module, in order), `# CHECK-NOT:` (absent
 * between the previous and the next match) or `# ERROR:` (the pipeline
 * fails with a message containing it).
 */
#include <dirent.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "artifact/artifact.h"
#include "cli/cli.h"
#include "import/import.h"
#include "same_artifact.h"

static void canonical(const char *text, const char *expect)
{
	char err[512], out[1024];
	vc_pm *pm = vc_pm_parse(text, err, sizeof err);
	if (!pm)
		printf("%s: %s\n", text, err);
	CHECK(pm != NULL);
	if (!pm)
		return;
	CHECK_EQ(vc_pm_print(pm, out, sizeof out), 0);
	if (strcmp(out, expect))
		printf("%s -> %s, expected %s\n", text, out, expect);
	CHECK(!strcmp(out, expect));
	/* the canonical text is a fixed point */
	vc_pm *again = vc_pm_parse(out, err, sizeof err);
	CHECK(again != NULL);
	char out2[1024] = "";
	if (again)
		vc_pm_print(again, out2, sizeof out2);
	CHECK(!strcmp(out, out2));
	vc_pm_free(again);
	vc_pm_free(pm);
}

static void refused(const char *text, const char *needle)
{
	char err[512] = "";
	vc_pm *pm = vc_pm_parse(text, err, sizeof err);
	CHECK(pm == NULL);
	vc_pm_free(pm);
	CHECK_STR_CONTAINS(err, needle);
}

static void pipeline_text(void)
{
	canonical("canonicalize,fold-bn", "module(graph(canonicalize,fold-bn))");
	canonical("graph(canonicalize),graph(fold-bn)", "module(graph(canonicalize),graph(fold-bn))");
	canonical("kernel(tile),kernel(lower,tokens)", "module(kernel(tile),kernel(lower,tokens))");
	canonical("float,graph(quantize)", "module(graph(canonicalize,fold-bn,fold-const),graph(quantize))");
	canonical("vta-default,stream(emit)",
		  "module(graph(canonicalize,fold-bn,fold-const,quantize,partition,fuse,pack),kernel(tile,lower,tokens),"
		  "stream(emit),stream(emit))");
	canonical("partition{cpu=\"a,b{c}\"}", "module(graph(partition{cpu=\"a,b{c}\"}))");
	canonical("partition{cpu=\"q\\\"uote\"}", "module(graph(partition{cpu=\"q\\\"uote\"}))");
	canonical("kernel(inject-fault{mode=crash,kernel=2})", "module(kernel(inject-fault{mode=crash,kernel=2}))");
	refused("kernel(inject-fault{mode=boom})", "option mode is one of error|crash|break-uops, got 'boom'");
	refused("partition{cpu=\"a", "missing '\"'");
	refused("graph(vta-default)", "in named pipeline vta-default: pipeline: module(...) cannot nest inside graph(...)");
	refused("graph(tile)", "pass tile runs on kernel units, not inside graph(...)");

	/* enum index and list items through the accessors */
	static const vc_pass_desc d = {
		.name = "t",
		.opts = {{"e", VC_OPT_ENUM, "b", "", "a|b|c"}, {"l", VC_OPT_LIST, "", "", NULL}},
	};
	vc_pass p;
	char err[256], item[16];
	CHECK_EQ(vc_pass_init(&p, &d, err, sizeof err), 0);
	CHECK_EQ(vc_opt_int(&p, "e"), 1);
	CHECK_EQ(vc_opt_list_count(&p, "l"), 0);
	CHECK_EQ(vc_pass_set_opt(&p, 0, "c", err, sizeof err), 0);
	CHECK_EQ(vc_opt_int(&p, "e"), 2);
	CHECK_EQ(vc_pass_set_opt(&p, 1, "x,yy,z", err, sizeof err), 0);
	CHECK_EQ(vc_opt_list_count(&p, "l"), 3);
	CHECK_EQ(vc_opt_list_item(&p, "l", 1, item, sizeof item), 0);
	CHECK(!strcmp(item, "yy"));
	CHECK_EQ(vc_opt_list_item(&p, "l", 3, item, sizeof item), -1);
}

static void list_passes(void)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	vc_pass_list(f);
	fclose(f);
	CHECK(vc_pass_count() >= 12);
	for (int i = 0; i < vc_pass_count(); i++) {
		char line[96];
		snprintf(line, sizeof line, "\n  %s  [%s]", vc_pass_at(i)->name, vc_anchor_name(vc_pass_at(i)->anchor));
		CHECK_STR_CONTAINS(buf, line);
	}
	CHECK_STR_CONTAINS(buf, "    option mode: enum (error|crash|break-uops) = 'error'");
	CHECK_STR_CONTAINS(buf, "preserves    liveness geometry plan code-summary\n"
				"    threads      may run on several kernels at once (--threads=N)\n"
				"    option candidates");
	CHECK_STR_CONTAINS(buf, "\n  vta-default = module(graph(");
	free(buf);
}

/* MNIST compiled through pack (the graph level's last pass). */
static vc_module *mnist_packed(void)
{
	char model[1024], images[1024], err[1024];
	snprintf(model, sizeof model, "%s/../shared/models/mnist-8.onnx", test_root());
	snprintf(images, sizeof images, "%s/../shared/data/mnist-10k-images-idx3-ubyte", test_root());
	vc_module *m = vc_module_new();
	CHECK_EQ(vc_import_file(m, model), 0);
	vc_compile_opts co = {.pipeline = "graph(canonicalize,fold-bn,fold-const,quantize,partition,fuse,pack)",
			      .calib_path = images, .calib_count = 20};
	CHECK_EQ(vc_compile(m, &co, err, sizeof err), 0);
	return m;
}

typedef struct trace {
	char text[2048];
	size_t k;
	int events; /* 0: before only; 1: every event, named */
} trace;

static void note(trace *t, const char *event, const vc_pass_event *e)
{
	int w = snprintf(t->text + t->k, sizeof t->text - t->k, "%s%s%s", t->k ? " " : "", event,
			 e->p ? e->p->desc->name : "");
	t->k += w > 0 ? (size_t)w : 0;
	if (e->u && e->u->anchor == VC_ANCHOR_KERNEL) {
		w = snprintf(t->text + t->k, sizeof t->text - t->k, "@%d", e->u->index);
		t->k += w > 0 ? (size_t)w : 0;
	}
	if (t->k >= sizeof t->text)
		t->k = sizeof t->text - 1;
}

static void record(void *ctx, const vc_pass_event *e)
{
	trace *t = ctx;
	note(t, t->events ? "before:" : "", e);
}

static int record_after(void *ctx, const vc_pass_event *e)
{
	note(ctx, "after:", e);
	return 0;
}

static void record_failed(void *ctx, const vc_pass_event *e)
{
	note(ctx, "failed:", e);
}

static void record_done(void *ctx, const vc_pass_event *e)
{
	note(ctx, e->rc ? "done:failed" : "done:ok", e);
}

static void run_traced(vc_module *m, const char *pipeline, const char *expect)
{
	char err[512];
	vc_pm *pm = vc_pm_parse(pipeline, err, sizeof err);
	CHECK(pm != NULL);
	trace t = {.k = 0};
	vc_instrument rec = {.name = "trace", .ctx = &t, .before = record};
	vc_instr in = {.verify_each = 1, .instruments = &rec, .n_instruments = 1};
	CHECK_EQ(vc_pm_run(pm, m, &in), 0);
	if (strcmp(t.text, expect))
		printf("%s ran %s\n", pipeline, t.text);
	CHECK(!strcmp(t.text, expect));
	vc_pm_free(pm);
}

static void kernel_groups(void)
{
	vc_module *a = mnist_packed(), *b = mnist_packed();
	CHECK_EQ(a->n_kernels, 3);
	run_traced(a, "kernel(tile,lower,tokens),stream(emit)",
		   "tile@0 lower@0 tokens@0 tile@1 lower@1 tokens@1 tile@2 lower@2 tokens@2 emit");
	run_traced(b, "kernel(tile),kernel(lower),kernel(tokens),stream(emit)",
		   "tile@0 tile@1 tile@2 lower@0 lower@1 lower@2 tokens@0 tokens@1 tokens@2 emit");
	CHECK(same_artifact(a, b));
	vc_module_free(a);
	vc_module_free(b);
}

/* What the pipeline's instruments (in, out set here) report when it runs
 * on packed MNIST; it must succeed. */
static char *report(const char *pipeline, vc_instr *in)
{
	char err[512], *text = NULL;
	size_t len = 0;
	vc_module *m = mnist_packed();
	vc_pm *pm = vc_pm_parse(pipeline, err, sizeof err);
	FILE *f = open_memstream(&text, &len);
	CHECK(pm != NULL && f != NULL);
	in->out = f;
	CHECK_EQ(vc_pm_run(pm, m, in), 0);
	fclose(f);
	vc_pm_free(pm);
	vc_module_free(m);
	return text;
}

/* The count of a --stats line "   N analysis - NAME computed" in text; -1 if absent. */
static long long computed(const char *text, const char *name)
{
	char key[96];
	snprintf(key, sizeof key, " analysis - %s computed\n", name);
	const char *at = strstr(text, key);
	if (!at)
		return -1;
	while (at > text && at[-1] != '\n')
		at--;
	return strtoll(at, NULL, 10);
}

/* Analyses have consumers and are cached: tile and lower take each kernel's
 * geometry and tile its plan from the analysis manager, so on MNIST's 3
 * kernels each is computed 3 times in all (once a kernel), whether the
 * passes run as one kernel group or as one group each, and however many
 * tiling candidates tile lowers; nobody asks for liveness or the code
 * summary. --verify-analyses recomputes them after every pass and finds
 * every claim of the registry true. */
static void analyses(void)
{
	static const char *const pipelines[] = {"kernel(tile,lower,tokens),stream(emit)",
						"kernel(tile),kernel(lower),kernel(tokens),stream(emit)"};
	for (int i = 0; i < 2; i++) {
		vc_instr in = {.stats = 1};
		char *text = report(pipelines[i], &in);
		CHECK_EQ(computed(text, "geometry"), 3);
		CHECK_EQ(computed(text, "plan"), 3);
		CHECK_EQ(computed(text, "liveness"), 0);
		CHECK_EQ(computed(text, "code-summary"), 0);
		free(text);
	}
	/* a report needs a stream named by the caller (the library does not pick stderr) */
	{
		vc_module *m = mnist_packed();
		char e[512];
		vc_pm *pm = vc_pm_parse("kernel(tile)", e, sizeof e);
		vc_instr in = {.stats = 1};
		CHECK(pm != NULL);
		if (pm) {
			CHECK_EQ(vc_pm_run(pm, m, &in), -1);
			CHECK_STR_CONTAINS(m->diag.msg, "--stats prints a report, and vc_instr.out");
			vc_pm_free(pm);
		}
		vc_module_free(m);
	}
	vc_module *a = mnist_packed(), *b = mnist_packed();
	char err[512];
	vc_pm *pm = vc_pm_parse("kernel(tile,lower,tokens),stream(emit)", err, sizeof err);
	vc_instr plain = {0}, verify = {.verify_analyses = 1, .verify_each = 1};
	CHECK_EQ(vc_pm_run(pm, a, &plain), 0);
	CHECK_EQ(vc_pm_run(pm, b, &verify), 0);
	CHECK(same_artifact(a, b));
	vc_pm_free(pm);
	vc_module_free(a);
	vc_module_free(b);
}

/* Instruments: a test's own sees before, after and failed in order around
 * every run (an after hook that fails turns into failed events); the
 * built-in --print-ir-after-change prints tile on each of MNIST's 3 kernels
 * (it sets the tiling) and nothing for a second tile (same tiling). */
static int refuse_after(void *ctx, const vc_pass_event *e)
{
	(void)ctx;
	if (!strcmp(e->p->desc->name, "lower") && e->u->index == 1)
		return vc_error(e->m, NULL, "refused by the test's instrument");
	return 0;
}

static int count(const char *text, const char *needle)
{
	int n = 0;
	for (const char *at = text; (at = strstr(at, needle)); at += strlen(needle))
		n++;
	return n;
}

/* Run pipeline on packed MNIST with a recording instrument (and extra, if
 * not NULL, after it); it must fail with msg in the message and the
 * recorder must have seen want. */
static void events(const char *pipeline, const vc_instrument *extra, const char *want, const char *msg)
{
	char err[512];
	vc_module *m = mnist_packed();
	vc_pm *pm = vc_pm_parse(pipeline, err, sizeof err);
	trace t = {.k = 0, .events = 1};
	vc_instrument list[2] = {{.name = "trace", .ctx = &t, .before = record, .after = record_after,
				  .failed = record_failed, .done = record_done}};
	if (extra)
		list[1] = *extra;
	vc_instr in = {.instruments = list, .n_instruments = extra ? 2 : 1};
	CHECK_EQ(vc_pm_run(pm, m, &in), -1);
	if (strcmp(t.text, want))
		printf("events: %s\n", t.text);
	CHECK(!strcmp(t.text, want));
	CHECK_STR_CONTAINS(m->diag.msg, msg);
	vc_pm_free(pm);
	vc_module_free(m);
}

static void instruments(void)
{
	/* an error from a pass on kernel 1 */
	events("kernel(tile,inject-fault{kernel=1})", NULL,
	       "before:tile@0 after:tile@0 before:inject-fault@0 after:inject-fault@0 before:tile@1 after:tile@1 "
	       "before:inject-fault@1 failed:inject-fault@1 done:failed",
	       "pass inject-fault (kernel @k1)");
	/* a check in an after hook: the second instrument's after runs first
	 * (reverse order), fails lower on kernel 1, and both see failed */
	vc_instrument refuse = {.name = "refuse", .after = refuse_after};
	events("kernel(tile,lower)", &refuse,
	       "before:tile@0 after:tile@0 before:lower@0 after:lower@0 before:tile@1 after:tile@1 before:lower@1 "
	       "failed:lower@1 done:failed",
	       "refused by the test's instrument");

	/* --print-ir-after-change */
	vc_instr pc = {.print_after_change = 1};
	char *text = report("kernel(tile),kernel(tile)", &pc);
	CHECK_EQ(count(text, "// -----// IR after tile (kernel @k"), 3);
	CHECK_EQ(count(text, "// -----// IR after tile (kernel @k0)"), 1);
	CHECK_EQ(count(text, "tiled=1"), 3);
	free(text);
}

/* Kernel groups on threads. A test pass that proves two kernels run at
 * once: on kernel 0 it waits (up to 5 s) until kernel 1 has started. */
static atomic_int k1_started;
static int rendezvous(vc_pass *p, vc_module *m, vc_unit *u)
{
	(void)p;
	if (u->index == 1)
		atomic_store(&k1_started, 1);
	if (u->index != 0)
		return 0;
	for (int i = 0; i < 5000 && !atomic_load(&k1_started); i++)
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	return atomic_load(&k1_started) ? 0 : vc_error(m, NULL, "rendezvous: kernel 1 did not start while kernel 0 ran");
}

static const vc_pass_desc rendezvous_pass = {
	.name = "rendezvous",
	.summary = "test: kernel 0 waits for kernel 1",
	.anchor = VC_ANCHOR_KERNEL,
	.parallel = 1,
	.run = rendezvous,
};

/* The pipeline on packed MNIST with threads; the artifact (NULL on failure),
 * what --stats printed into *report, the message into msg. */
static uint8_t *compile_threads(const char *pipeline, int threads, const vc_pass_desc *extra, char **report,
				size_t *len, char *msg, size_t n)
{
	char err[512];
	vc_module *m = mnist_packed();
	vc_pm *pm = vc_pm_parse(pipeline, err, sizeof err);
	CHECK(pm != NULL);
	if (extra)
		CHECK_EQ(vc_pm_append(pm, extra, err, sizeof err), 0);
	size_t rl = 0;
	FILE *f = open_memstream(report, &rl);
	vc_instr in = {.stats = 1, .out = f, .threads = threads};
	int rc = vc_pm_run(pm, m, &in);
	fclose(f);
	snprintf(msg, n, "%s", rc ? m->diag.msg : "");
	uint8_t *bytes = NULL;
	if (!rc && vc_artifact_bytes(m, &bytes, len))
		bytes = NULL;
	vc_pm_free(pm);
	vc_module_free(m);
	return bytes;
}

/* kernel(tile,lower,tokens) on 2 threads gives the artifact and the
 * statistics of a sequential run; a failure on kernel 1 gives the same
 * message; the rendezvous pass shows the kernels ran at once. */
static void threads(void)
{
	char *r1 = NULL, *r2 = NULL, m1[1024], m2[1024];
	size_t l1 = 0, l2 = 0;
	const char *pipe = "kernel(tile,lower,tokens),stream(emit)";
	uint8_t *a = compile_threads(pipe, 1, NULL, &r1, &l1, m1, sizeof m1);
	uint8_t *b = compile_threads(pipe, 2, NULL, &r2, &l2, m2, sizeof m2);
	CHECK(a && b && l1 == l2 && !memcmp(a, b, l1));
	CHECK(r1 && r2 && !strcmp(r1, r2));
	free(a), free(b), free(r1), free(r2);
	const char *bad = "kernel(tile,lower,inject-fault{kernel=1},tokens)";
	r1 = r2 = NULL;
	CHECK(compile_threads(bad, 1, NULL, &r1, &l1, m1, sizeof m1) == NULL);
	CHECK(compile_threads(bad, 2, NULL, &r2, &l2, m2, sizeof m2) == NULL);
	CHECK_STR_CONTAINS(m1, "pass inject-fault (kernel @k1)");
	CHECK(!strcmp(m1, m2));
	free(r1), free(r2);
	r1 = NULL;
	atomic_store(&k1_started, 0);
	a = compile_threads("kernel(tile,lower,tokens)", 2, &rendezvous_pass, &r1, &l1, m1, sizeof m1);
	if (m1[0])
		printf("rendezvous: %s\n", m1);
	CHECK_EQ(m1[0], 0);
	free(a), free(r1);
}

static char *slurp(const char *path)
{
	size_t len;
	char err[256];
	uint8_t *b = vc_read_all(path, &len, err, sizeof err);
	if (!b)
		return NULL;
	char *s = realloc(b, len + 1);
	s[len] = 0;
	return s;
}

/* The first line of text that starts with prefix. */
static void line_of(const char *text, const char *prefix, char *out, size_t n)
{
	out[0] = 0;
	const char *s = text ? strstr(text, prefix) : NULL;
	if (!s)
		return;
	size_t k = strcspn(s, "\n");
	snprintf(out, n, "%.*s", (int)k, s);
}

static int opt(int argc, char **argv)
{
	fflush(stdout);
	return vta_cmd_opt(argc, argv);
}

/* Run vta opt in a child; its exit status as waitpid gives it. */
static int opt_child(int argc, char **argv)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0)
		_exit(vta_cmd_opt(argc, argv));
	int st = 0;
	waitpid(pid, &st, 0);
	return st;
}

static void reproducers(void)
{
	char dir[] = "/tmp/test_passes_XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char ir[128], out[128], r1[128], r2[128], r1opt[160], r2opt[160];
	snprintf(ir, sizeof ir, "%s/packed.ir", dir);
	snprintf(out, sizeof out, "%s/out.ir", dir);
	snprintf(r1, sizeof r1, "%s/r1.txt", dir);
	snprintf(r2, sizeof r2, "%s/r2.txt", dir);
	snprintf(r1opt, sizeof r1opt, "--reproducer=%s", r1);
	snprintf(r2opt, sizeof r2opt, "--reproducer=%s", r2);
	vc_module *m = mnist_packed();
	char err[512];
	CHECK_EQ(vc_write_ir(m, ir, err, sizeof err), 0);
	vc_module_free(m);

	static const struct {
		const char *passes, *error;
	} cases[] = {
		{"--passes=kernel(tile,lower,inject-fault{kernel=1})",
		 "# error: pass inject-fault (kernel @k1): node %"},
		{"--passes=kernel(tile,lower,inject-fault{mode=break-uops,kernel=2},tokens)",
		 "# error: verifier failed after pass inject-fault: node %"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *a1[] = {ir, (char *)cases[i].passes, "--verify-each", r1opt, "-o", out};
		CHECK_EQ(opt(6, a1), 1);
		char *t1 = slurp(r1);
		CHECK(t1 != NULL);
		CHECK_STR_CONTAINS(t1, "# vta compile reproducer");
		CHECK_STR_CONTAINS(t1, cases[i].error);
		/* the module before the kernel group, so the whole group re-runs */
		CHECK_STR_CONTAINS(t1, "\nremaining: module(kernel(tile,lower,inject-fault");
		CHECK_STR_CONTAINS(t1, "\nmodule {config=");
		CHECK_STR_CONTAINS(t1, " props=imported,canonical,bn_folded,const_folded,quantized,partitioned,packed,fused ");
		/* replaying fails the same way (with the instruments it records) */
		CHECK_STR_CONTAINS(t1, "\ninstruments: --verify-each\n");
		char *a2[] = {r1, r2opt};
		CHECK_EQ(opt(2, a2), 1);
		char *t2 = slurp(r2);
		char e1[512], e2[512];
		line_of(t1, "# error: ", e1, sizeof e1);
		line_of(t2, "# error: ", e2, sizeof e2);
		CHECK(e1[0] && !strcmp(e1, e2));
		free(t1);
		free(t2);
		unlink(r1);
		unlink(r2);
	}

	/* a pass that declares code-summary preserved but changes the code */
	char *st1[] = {ir, "--passes=kernel(tile,lower,inject-fault{mode=break-uops,kernel=0})", "--verify-analyses",
		       r1opt, "-o", out};
	CHECK_EQ(opt(6, st1), 1);
	char *ts = slurp(r1);
	CHECK_STR_CONTAINS(ts, "--verify-analyses: analysis code-summary of kernel @k0 is stale after pass "
			       "inject-fault, which declares it preserved");
	free(ts);
	unlink(r1);
	char *st2[] = {ir, "--passes=default", "--verify-analyses", "--verify-each", "-o", out};
	CHECK_EQ(opt(6, st2), 0);

	/* a crash: the guard writes the reproducer from the signal handler */
	char *c1[] = {ir, "--passes=kernel(tile,inject-fault{mode=crash,kernel=1}),kernel(lower)", r1opt, "-o", out};
	int st = opt_child(5, c1);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	char *t1 = slurp(r1);
	CHECK(t1 != NULL);
	CHECK_STR_CONTAINS(t1, "# error: the pass crashed");
	CHECK_STR_CONTAINS(t1, "\nremaining: module(kernel(tile,inject-fault{mode=crash,kernel=1}),kernel(lower))\n");
	char *c2[] = {r1, r2opt};
	st = opt_child(2, c2);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	char *t2 = slurp(r2);
	CHECK(t2 != NULL && t1 != NULL && !strcmp(strstr(t1, "\nremaining:"), strstr(t2, "\nremaining:")));
	free(t1);
	free(t2);
	/* the same pipeline without the fault compiles */
	char *ok[] = {ir, "--passes=kernel(tile,lower,tokens),stream(emit)", "--verify-each", "-o", out};
	CHECK_EQ(opt(5, ok), 0);
	unlink(ir);
	unlink(out);
	unlink(r1);
	unlink(r2);
	rmdir(dir);
}

/* The text after "# KEY: " on each line, in order, as directives. */
typedef struct directive {
	char kind; /* 'C' check, 'N' check-not, 'E' error, 'R' run */
	char text[512];
} directive;

static int directives(const char *file, directive *d, int max)
{
	static const struct {
		const char *key;
		char kind;
	} keys[] = {{"# CHECK: ", 'C'}, {"# CHECK-NOT: ", 'N'}, {"# ERROR: ", 'E'}, {"# RUN: ", 'R'}};
	int n = 0;
	for (const char *s = file; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL)
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			size_t kl = strlen(keys[k].key);
			if (!strncmp(s, keys[k].key, kl) && n < max) {
				d[n].kind = keys[k].kind;
				snprintf(d[n].text, sizeof d[n].text, "%.*s", (int)strcspn(s + kl, "\n"), s + kl);
				n++;
			}
		}
	return n;
}

static void run_ir_file(const char *path)
{
	char *file = slurp(path);
	CHECK(file != NULL);
	if (!file)
		return;
	directive d[64];
	int nd = directives(file, d, 64);
	const char *run = NULL;
	for (int i = 0; i < nd; i++)
		if (d[i].kind == 'R')
			run = d[i].text;
	CHECK(run != NULL);
	vc_module *m = vc_module_new();
	int rc = vc_parse_module(m, path, file, strlen(file));
	if (rc)
		printf("%s: %s\n", path, m->diag.msg);
	CHECK_EQ(rc, 0);
	char err[512];
	vc_pm *pm = run && !rc ? vc_pm_parse(run, err, sizeof err) : NULL;
	CHECK(rc || pm != NULL);
	if (pm) {
		vc_instr in = {.verify_each = 1, .verify_analyses = 1};
		int prc = vc_pm_run(pm, m, &in);
		char *out = NULL;
		size_t len;
		FILE *f = open_memstream(&out, &len);
		vc_print_module(f, m, 0);
		fclose(f);
		const char *at = out;
		for (int i = 0; i < nd; i++) {
			if (d[i].kind == 'E') {
				if (!prc || !strstr(m->diag.msg, d[i].text))
					printf("%s: expected the error '%s', got '%s'\n", path, d[i].text,
					       prc ? m->diag.msg : "(none)");
				CHECK(prc && strstr(m->diag.msg, d[i].text));
			} else if (d[i].kind == 'C') {
				if (prc)
					printf("%s: %s\n", path, m->diag.msg);
				const char *hit = prc ? NULL : strstr(at, d[i].text);
				if (!hit && !prc)
					printf("%s: CHECK '%s' not found after byte %zu\n", path, d[i].text, (size_t)(at - out));
				CHECK(hit != NULL);
				if (hit)
					at = hit + strlen(d[i].text);
			} else if (d[i].kind == 'N') {
				/* absent up to the next CHECK's match (or the end) */
				const char *end = NULL;
				for (int j = i + 1; j < nd && !end; j++)
					if (d[j].kind == 'C')
						end = strstr(at, d[j].text);
				const char *bad = strstr(at, d[i].text);
				int found = bad && (!end || bad < end);
				if (found)
					printf("%s: CHECK-NOT '%s' found at byte %zu\n", path, d[i].text, (size_t)(bad - out));
				CHECK(!found);
			}
		}
		free(out);
		vc_pm_free(pm);
	}
	vc_module_free(m);
	free(file);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void ir_files(void)
{
	/* the files are written for the default configuration (their headers
	 * carry its ID; ultra96 has the same shapes but another ID) */
	if (VTA_CONFIG_ID != 0xB2575CCDu)
		return;
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/tests/compiler/passes", test_root());
	DIR *dp = opendir(dir);
	CHECK(dp != NULL);
	if (!dp)
		return;
	char *names[128];
	int n = 0;
	for (struct dirent *e; (e = readdir(dp)) && n < 128;) {
		size_t l = strlen(e->d_name);
		if (l > 3 && !strcmp(e->d_name + l - 3, ".ir"))
			names[n++] = strdup(e->d_name);
	}
	closedir(dp);
	qsort(names, (size_t)n, sizeof names[0], by_name);
	CHECK(n >= 7);
	for (int i = 0; i < n; i++) {
		char path[1400];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		run_ir_file(path);
		free(names[i]);
	}
}

int main(int argc, char **argv)
{
	static const test_case_t cases[] = {
		{"pipeline_text", pipeline_text},
		{"list_passes", list_passes},
		{"kernel_groups", kernel_groups},
		{"analyses", analyses},
		{"instruments", instruments},
		{"threads", threads},
		{"reproducers", reproducers},
		{"ir_files", ir_files},
		{NULL, NULL},
	};
	return test_main(argc, argv, cases);
}
