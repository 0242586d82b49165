/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Darknet import: the .cfg text format (sections of key=value lines) and the
 * .weights binary format (a header, then per layer float32 arrays in file
 * order), into the graph IR.
 *
 * Facts of the formats followed here:
 * - cfg lines lose every whitespace character; lines starting with '#' or ';'
 *   and empty lines are skipped; "[type]" opens a section; the first section
 *   is [net] (or [network]) and holds the input size; every later section is
 *   one layer, numbered from 0, and [route]/[shortcut] refer to layers by that
 *   number (negative: relative to the referring layer).
 * - .weights: int32 major, minor, revision, then the images seen: uint64 when
 *   major*10+minor >= 2 (and both < 1000), int32 otherwise. Then, per layer
 *   in order, convolutional: biases[n], if batch_normalize scales[n],
 *   rolling means[n], rolling variances[n], then weights[n][c/groups][k][k];
 *   connected: biases[n], weights[n][inputs], then the three batchnorm arrays.
 * - batch normalization at inference: (x - mean) / (sqrt(var) + 1e-6) *
 *   scale + bias; it is folded into the layer's weights here.
 * - [maxpool]: size (default: stride), stride (default 1), padding (default
 *   size-1); out = (in + padding - size) / stride + 1, windows start at
 *   -padding/2 and skip positions outside the input (so a padded maxpool
 *   pads with -inf).
 * - [shortcut] out = prev + from, where prev (the layer before) fixes the
 *   shape; from is read with a spatial stride of w_from/w_prev (if >= 1) and
 *   added at a spacing of w_prev/w_from (if >= 1), over min(c) channels and
 *   min(h), min(w) positions; the rest of prev passes unchanged.
 * - [yolo]: logistic on x, y, objectness and the class scores of each masked
 *   anchor; boxes are decoded on the host (vc_yolo_decode).
 *
 * Anything else (unknown sections, keys, activations, options we do not
 * model) is refused with the file, the section index, its line and the
 * reason. The readers take buffers so that they can be fuzzed.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <vta/bytes.h>

#include "import/import.h"
#include "import/unsupported.h"

/* ---- cfg text ---------------------------------------------------------- */

typedef struct dn_kv {
	char *key, *val;
	int line, used;
} dn_kv;

typedef struct dn_sec {
	char *type;
	int line, nkv;
	dn_kv *kv;
} dn_sec;

struct vc_dn_cfg {
	char name[256];
	char *text; /* the stripped lines, NUL separated; keys and values point into it */
	int n, cap;
	dn_sec *s;
	char err[1024];
};

#define DN_MAX_SECTIONS 4096
#define DN_MAX_KEYS 256

static int cfg_fail(vc_dn_cfg *c, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int cfg_fail(vc_dn_cfg *c, int line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(c->err, sizeof c->err, "%s:%d: %s", c->name, line, msg);
	return -1;
}

void vc_dn_cfg_free(vc_dn_cfg *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		free(c->s[i].kv);
	free(c->s);
	free(c->text);
	free(c);
}

const char *vc_dn_cfg_error(const vc_dn_cfg *c)
{
	return c ? c->err : "out of memory";
}

int vc_dn_cfg_sections(const vc_dn_cfg *c)
{
	return c->n;
}

const char *vc_dn_cfg_type(const vc_dn_cfg *c, int i)
{
	return i >= 0 && i < c->n ? c->s[i].type : NULL;
}

int vc_dn_cfg_parse(const char *name, const uint8_t *buf, size_t len, vc_dn_cfg **out)
{
	vc_dn_cfg *c = calloc(1, sizeof *c);
	*out = c;
	if (!c)
		return -1;
	snprintf(c->name, sizeof c->name, "%s", name ? name : "cfg");
	c->text = malloc(len + 1);
	if (!c->text)
		return cfg_fail(c, 0, "out of memory for %zu bytes", len);
	size_t w = 0;
	int line = 1;
	for (size_t i = 0; i < len;) {
		/* one line, without its whitespace */
		size_t start = w;
		int this_line = line;
		for (; i < len && buf[i] != '\n'; i++) {
			uint8_t ch = buf[i];
			if (ch == 0)
				return cfg_fail(c, line, "NUL byte at offset %zu: not a text cfg file", i);
			if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v')
				continue;
			c->text[w++] = (char)ch;
		}
		if (i < len)
			i++, line++;
		c->text[w] = 0;
		char *s = c->text + start;
		if (w == start || s[0] == '#' || s[0] == ';') {
			w = start;
			continue;
		}
		w++;
		if (s[0] == '[') {
			size_t k = strlen(s);
			if (k < 3 || s[k - 1] != ']')
				return cfg_fail(c, this_line, "section header '%.60s' is not of the form [name]", s);
			s[k - 1] = 0;
			if (c->n == DN_MAX_SECTIONS)
				return cfg_fail(c, this_line, "more than %d sections", DN_MAX_SECTIONS);
			if (c->n == c->cap) {
				int nc = c->cap ? 2 * c->cap : 64;
				dn_sec *ns = realloc(c->s, (size_t)nc * sizeof *ns);
				if (!ns)
					return cfg_fail(c, this_line, "out of memory");
				c->s = ns;
				c->cap = nc;
			}
			dn_sec *sec = &c->s[c->n++];
			memset(sec, 0, sizeof *sec);
			sec->type = s + 1;
			sec->line = this_line;
			continue;
		}
		char *eq = strchr(s, '=');
		if (!eq || eq == s)
			return cfg_fail(c, this_line, "'%.60s' is neither a [section] nor a key=value line", s);
		if (!c->n)
			return cfg_fail(c, this_line, "option '%.60s' before the first section", s);
		*eq = 0;
		dn_sec *sec = &c->s[c->n - 1];
		for (int k = 0; k < sec->nkv; k++)
			if (!strcmp(sec->kv[k].key, s))
				return cfg_fail(c, this_line, "key '%s' given twice in section [%s] (lines %d and %d)", s,
						sec->type, sec->kv[k].line, this_line);
		if (sec->nkv == DN_MAX_KEYS)
			return cfg_fail(c, this_line, "more than %d keys in section [%s]", DN_MAX_KEYS, sec->type);
		if (!(sec->nkv & (sec->nkv - 1)) || sec->nkv == 0) { /* grow at powers of two */
			int nc = sec->nkv ? 2 * sec->nkv : 8;
			dn_kv *nk = realloc(sec->kv, (size_t)nc * sizeof *nk);
			if (!nk)
				return cfg_fail(c, this_line, "out of memory");
			sec->kv = nk;
		}
		dn_kv *kv = &sec->kv[sec->nkv++];
		kv->key = s;
		kv->val = eq + 1;
		kv->line = this_line;
		kv->used = 0;
	}
	if (!c->n)
		return cfg_fail(c, line, "no sections: not a Darknet cfg file");
	return 0;
}

/* ---- importer state ---------------------------------------------------- */

typedef struct dn_layer {
	vc_node *out; /* float value; NULL for layers without one */
	int64_t c, h, w;
	int yolo;
} dn_layer;

typedef struct dn {
	vc_module *m;
	vc_dn_cfg *cfg;
	const char *wname;
	const uint8_t *wbuf;
	size_t wlen, wat;
	int synthetic;
	uint64_t seed;
	int64_t total; /* parameters so far */
	int sec;     /* current section */
	dn_layer *L; /* per layer */
	int64_t net_w, net_h, net_c;
} dn;

/* Error naming the file, the section, its line and layer. */
static int dn_fail(dn *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int dn_fail(dn *d, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const dn_sec *s = &d->cfg->s[d->sec];
	if (d->sec == 0)
		return vc_error(d->m, NULL, "%s:%d: section 0 [%s]: %s", d->cfg->name, s->line, s->type, msg);
	return vc_error(d->m, NULL, "%s:%d: section %d [%s] (layer %d): %s", d->cfg->name, s->line, d->sec, s->type,
			d->sec - 1, msg);
}

static dn_kv *find(dn *d, const char *key)
{
	dn_sec *s = &d->cfg->s[d->sec];
	for (int k = 0; k < s->nkv; k++)
		if (!strcmp(s->kv[k].key, key)) {
			s->kv[k].used = 1;
			return &s->kv[k];
		}
	return NULL;
}

/* An integer option in [lo, hi]; def when absent (def < lo: required). */
static int get_int(dn *d, const char *key, int64_t def, int64_t lo, int64_t hi, int64_t *out)
{
	dn_kv *kv = find(d, key);
	if (!kv) {
		if (def < lo)
			return dn_fail(d, "the required key '%s' is missing", key);
		*out = def;
		return 0;
	}
	char *end;
	errno = 0;
	long long v = strtoll(kv->val, &end, 10);
	if (end == kv->val || *end || errno)
		return dn_fail(d, "line %d: %s=%.40s is not an integer", kv->line, key, kv->val);
	if (v < lo || v > hi)
		return dn_fail(d, "line %d: %s=%lld is outside [%lld, %lld]", kv->line, key, v, (long long)lo, (long long)hi);
	*out = v;
	return 0;
}

static int get_float(dn *d, const char *key, double def, double *out)
{
	dn_kv *kv = find(d, key);
	if (!kv) {
		*out = def;
		return 0;
	}
	char *end;
	errno = 0;
	double v = strtod(kv->val, &end);
	if (end == kv->val || *end || errno || !isfinite(v))
		return dn_fail(d, "line %d: %s=%.40s is not a number", kv->line, key, kv->val);
	*out = v;
	return 0;
}

/* A comma-separated integer list (at most max entries). */
static int get_list(dn *d, const char *key, int64_t *v, int max, int *n, int required)
{
	dn_kv *kv = find(d, key);
	*n = 0;
	if (!kv)
		return required ? dn_fail(d, "the required key '%s' is missing", key) : 0;
	const char *p = kv->val;
	while (*p) {
		char *end;
		errno = 0;
		long long x = strtoll(p, &end, 10);
		if (end == p || (*end && *end != ',') || errno || x < -(1ll << 30) || x > (1ll << 30))
			return dn_fail(d, "line %d: %s=%.40s is not a list of integers", kv->line, key, kv->val);
		if (*n == max)
			return dn_fail(d, "line %d: %s has more than %d entries", kv->line, key, max);
		v[(*n)++] = x;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return dn_fail(d, "line %d: %s=%.40s ends with a comma", kv->line, key, kv->val);
	}
	if (!*n)
		return dn_fail(d, "line %d: %s is empty", kv->line, key);
	return 0;
}

/* Keys that are read elsewhere or only matter for training: accepted and
 * ignored. Every other key left unused is an error. */
static int check_keys(dn *d, const char *const *ignored)
{
	dn_sec *s = &d->cfg->s[d->sec];
	for (int k = 0; k < s->nkv; k++) {
		if (s->kv[k].used)
			continue;
		int ok = 0;
		for (int i = 0; ignored && ignored[i] && !ok; i++)
			ok = !strcmp(ignored[i], s->kv[k].key);
		if (!ok)
			return dn_fail(d, "line %d: unknown key '%s'", s->kv[k].line, s->kv[k].key);
	}
	return 0;
}

/* ---- weights ---------------------------------------------------------- */

enum { DN_BIAS, DN_BN, DN_WEIGHTS };
#define DN_MAX_PARAMS (1ll << 27)  /* floats: 512 MiB; YOLOv3 has 62 M */
#define DN_MAX_VALUES (1ll << 27)  /* values of one layer's output */

static uint64_t mix(uint64_t *s);
static float unif(uint64_t *s, float lo, float hi);

/* The next n float32 values of the weights file (little-endian), checked;
 * with synthetic weights, n values drawn from the seed instead: biases in
 * [-0.1, 0.1], batchnorm scales and variances in [0.5, 1.5] and means in
 * [-0.1, 0.1] (kind DN_BN: n = 3 x filters), weights He-uniform for fan_in. */
static int take_floats(dn *d, const char *what, int kind, int64_t n, int64_t fan_in, float *out)
{
	d->total += n;
	if (d->total > DN_MAX_PARAMS)
		return dn_fail(d, "%s: more than %lld parameters in the network", what, (long long)DN_MAX_PARAMS);
	if (d->synthetic) {
		uint64_t st = d->seed ^ (0x5851F42D4C957F2Dull * (uint64_t)(d->sec * 4 + kind + 1));
		float a = (float)sqrt(6.0 / (double)(fan_in > 0 ? fan_in : 1));
		for (int64_t i = 0; i < n; i++) {
			if (kind == DN_BIAS)
				out[i] = unif(&st, -0.1f, 0.1f);
			else if (kind == DN_BN)
				out[i] = i / (n / 3) == 1 ? unif(&st, -0.1f, 0.1f) : unif(&st, 0.5f, 1.5f);
			else
				out[i] = unif(&st, -a, a);
		}
		d->wat += (size_t)n * 4;
		return 0;
	}
	size_t bytes = (size_t)n * 4;
	if (d->wat > d->wlen || bytes > d->wlen - d->wat)
		return dn_fail(d, "%s: the weights file %s ends at byte %zu, %lld float32 values (%zu bytes) are needed at "
				  "offset %zu (truncated, or the cfg does not match the weights)",
			       what, d->wname, d->wlen, (long long)n, bytes, d->wat);
	const uint8_t *p = d->wbuf + d->wat;
	for (int64_t i = 0; i < n; i++) {
		uint32_t u = vta_rd_le32(p + 4 * i);
		memcpy(&out[i], &u, 4);
		if (!isfinite(out[i]))
			return dn_fail(d, "%s: value %lld at offset %zu of %s is not finite (corrupt weights)", what,
				       (long long)i, d->wat + 4 * (size_t)i, d->wname);
	}
	d->wat += bytes;
	return 0;
}

int vc_dn_weights_header(const uint8_t *buf, size_t len, size_t *header, char *err, size_t n)
{
	if (len < 16) {
		snprintf(err, n, "%zu bytes: too short for a Darknet weights header (16 or 20 bytes)", len);
		return -1;
	}
	int32_t major = (int32_t)vta_rd_le32(buf), minor = (int32_t)vta_rd_le32(buf + 4);
	if (major < 0 || minor < 0 || major >= 1000 || minor >= 1000) {
		snprintf(err, n, "version %d.%d in the header: not a Darknet weights file", major, minor);
		return -1;
	}
	*header = major * 10 + minor >= 2 ? 20 : 16;
	if (len < *header) {
		snprintf(err, n, "%zu bytes: too short for a version %d.%d header (%zu bytes)", len, major, minor, *header);
		return -1;
	}
	return 0;
}

/* splitmix64: the synthetic weights are a function of the seed only. */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static float unif(uint64_t *s, float lo, float hi)
{
	return lo + (hi - lo) * (float)((double)(mix(s) >> 40) * (1.0 / 16777216.0));
}

/* ---- graph helpers ------------------------------------------------------ */

static vc_node *as4d(dn *d, vc_node *x, const dn_layer *l, const char *name)
{
	if (x->type.rank == 4)
		return x;
	vc_attrs a;
	vc_attrs_init(&a);
	a.nshape = 4;
	a.shape[0] = 1, a.shape[1] = l->c, a.shape[2] = l->h, a.shape[3] = l->w;
	return vc_build(d->m, VC_OP_RESHAPE, &x, 1, &a, name);
}

static vc_node *flat(dn *d, vc_node *x, const char *name)
{
	if (x->type.rank == 2)
		return x;
	vc_attrs a;
	vc_attrs_init(&a);
	a.axis = 1;
	return vc_build(d->m, VC_OP_FLATTEN, &x, 1, &a, name);
}

/* The activation of a conv/connected/shortcut section. */
static int activation(dn *d, const char *def, vc_node **x, int layer)
{
	dn_kv *kv = find(d, "activation");
	const char *act = kv ? kv->val : def;
	char nm[64];
	if (!strcmp(act, "linear"))
		return 0;
	vc_attrs a;
	vc_attrs_init(&a);
	if (!strcmp(act, "leaky")) {
		a.leaky = VC_LEAKY_SHIFT;
		snprintf(nm, sizeof nm, "L%d.leaky", layer);
		*x = vc_build(d->m, VC_OP_LEAKY, x, 1, &a, nm);
	} else if (!strcmp(act, "relu")) {
		snprintf(nm, sizeof nm, "L%d.relu", layer);
		*x = vc_build(d->m, VC_OP_RELU, x, 1, &a, nm);
	} else {
		return dn_fail(d, "%sactivation '%s' is not supported (linear, leaky and relu are)",
			       kv ? "" : "no activation= given, so Darknet's default ", act);
	}
	return *x ? 0 : -1;
}

static int layer_ref(dn *d, int64_t v, int layer, const char *key, int *out)
{
	int64_t r = v < 0 ? layer + v : v;
	if (r < 0 || r >= layer)
		return dn_fail(d, "%s=%lld refers to layer %lld, which is not an earlier layer (this is layer %d)", key,
			       (long long)v, (long long)r, layer);
	if (!d->L[r].out)
		return dn_fail(d, "%s=%lld refers to layer %lld [%s], which has no output to use", key, (long long)v,
			       (long long)r, d->cfg->s[r + 1].type);
	*out = (int)r;
	return 0;
}

static const char *const conv_ignored[] = {"flipped", "dot", NULL};

/* Darknet's batchnorm (x - mean) / (sqrt(var) + 1e-6) * scale + bias folded
 * into n outputs of `per` weights each; bn3 holds scales, means, variances. */
static int fold_batchnorm(dn *d, const float *bn3, int64_t n, int64_t per, float *wt, float *bias)
{
	for (int64_t f = 0; f < n; f++) {
		if (bn3[2 * n + f] < 0)
			return dn_fail(d, "batchnorm variance %lld is negative (%g): corrupt weights", (long long)f,
				       bn3[2 * n + f]);
		double k = bn3[f] / (sqrt((double)bn3[2 * n + f]) + 1e-6);
		for (int64_t j = 0; j < per; j++)
			wt[f * per + j] = (float)(wt[f * per + j] * k);
		bias[f] = (float)(bias[f] - bn3[n + f] * k);
	}
	return 0;
}

static int conv_layer(dn *d, int layer, dn_layer *in, dn_layer *o)
{
	vc_module *m = d->m;
	int64_t filters, size, stride, pad, padding, groups, bn, binary, xnor;
	if (get_int(d, "filters", 1, 1, 1 << 16, &filters) || get_int(d, "size", 1, 1, 31, &size) ||
	    get_int(d, "stride", 1, 1, 64, &stride) || get_int(d, "pad", 0, 0, 1, &pad) ||
	    get_int(d, "padding", 0, 0, 63, &padding) || get_int(d, "groups", 1, 1, 1 << 16, &groups) ||
	    get_int(d, "batch_normalize", 0, 0, 1, &bn) || get_int(d, "binary", 0, 0, 0, &binary) ||
	    get_int(d, "xnor", 0, 0, 0, &xnor))
		return -1;
	if (pad)
		padding = size / 2;
	if (in->c % groups || filters % groups)
		return dn_fail(d, "groups=%lld does not divide the %lld input channels and %lld filters", (long long)groups,
			       (long long)in->c, (long long)filters);
	int64_t oh = (in->h + 2 * padding - size) / stride + 1, ow = (in->w + 2 * padding - size) / stride + 1;
	if (in->h + 2 * padding < size || in->w + 2 * padding < size)
		return dn_fail(d, "a %lldx%lld kernel does not fit the %lldx%lld input (padding %lld)", (long long)size,
			       (long long)size, (long long)in->h, (long long)in->w, (long long)padding);
	int64_t per = in->c / groups * size * size;
	if (filters * per > (1ll << 28))
		return dn_fail(d, "%lld weights: too many", (long long)(filters * per));
	int64_t wd[4] = {filters, in->c / groups, size, size}, bd[1] = {filters};
	char nm[64];
	snprintf(nm, sizeof nm, "L%d.weights", layer);
	vc_node *w = vc_const(m, nm, VC_F32, 4, wd, NULL);
	snprintf(nm, sizeof nm, "L%d.bias", layer);
	vc_node *b = w ? vc_const(m, nm, VC_F32, 1, bd, NULL) : NULL;
	float *bn3 = malloc((size_t)(3 * filters) * sizeof(float));
	if (!b || !bn3) {
		free(bn3);
		return vc_error(m, NULL, "out of memory");
	}
	float *bias = b->data, *wt = w->data;
	int rc = take_floats(d, "biases", DN_BIAS, filters, 0, bias);
	if (!rc && bn)
		rc = take_floats(d, "batchnorm scales, means and variances", DN_BN, 3 * filters, 0, bn3);
	if (!rc)
		rc = take_floats(d, "weights", DN_WEIGHTS, filters * per, per, wt);
	if (!rc && bn)
		rc = fold_batchnorm(d, bn3, filters, per, wt, bias);
	free(bn3);
	if (rc)
		return -1;
	vc_attrs a;
	vc_attrs_init(&a);
	a.stride[0] = a.stride[1] = stride;
	a.pad[0] = a.pad[1] = a.pad[2] = a.pad[3] = padding;
	a.group = groups;
	vc_node *x = as4d(d, in->out, in, NULL);
	snprintf(nm, sizeof nm, "L%d.conv", layer);
	vc_node *args[3] = {x, w, b};
	vc_node *y = x ? vc_build(m, VC_OP_CONV, args, 3, &a, nm) : NULL;
	if (!y || activation(d, "logistic", &y, layer))
		return -1;
	o->out = y;
	o->c = filters, o->h = oh, o->w = ow;
	return check_keys(d, conv_ignored);
}

static int connected_layer(dn *d, int layer, dn_layer *in, dn_layer *o)
{
	vc_module *m = d->m;
	int64_t outputs, bn;
	if (get_int(d, "output", 1, 1, 1 << 20, &outputs) || get_int(d, "batch_normalize", 0, 0, 1, &bn))
		return -1;
	int64_t inputs = in->c * in->h * in->w;
	if (inputs * outputs > (1ll << 28))
		return dn_fail(d, "%lld weights: too many", (long long)(inputs * outputs));
	int64_t wd[2] = {outputs, inputs}, bd[1] = {outputs};
	char nm[64];
	snprintf(nm, sizeof nm, "L%d.weights", layer);
	vc_node *w = vc_const(m, nm, VC_F32, 2, wd, NULL);
	snprintf(nm, sizeof nm, "L%d.bias", layer);
	vc_node *b = w ? vc_const(m, nm, VC_F32, 1, bd, NULL) : NULL;
	float *bn3 = malloc((size_t)(3 * outputs) * sizeof(float));
	if (!b || !bn3) {
		free(bn3);
		return vc_error(m, NULL, "out of memory");
	}
	float *bias = b->data, *wt = w->data;
	int rc = take_floats(d, "biases", DN_BIAS, outputs, 0, bias);
	if (!rc)
		rc = take_floats(d, "weights", DN_WEIGHTS, outputs * inputs, inputs, wt);
	if (!rc && bn)
		rc = take_floats(d, "batchnorm scales, means and variances", DN_BN, 3 * outputs, 0, bn3);
	if (!rc && bn)
		rc = fold_batchnorm(d, bn3, outputs, inputs, wt, bias);
	free(bn3);
	if (rc)
		return -1;
	snprintf(nm, sizeof nm, "L%d.flatten", layer);
	vc_node *x = flat(d, in->out, nm);
	snprintf(nm, sizeof nm, "L%d.dense", layer);
	vc_node *args[3] = {x, w, b};
	vc_node *y = x ? vc_build(m, VC_OP_DENSE, args, 3, NULL, nm) : NULL;
	if (!y || activation(d, "logistic", &y, layer))
		return -1;
	o->out = y;
	o->c = outputs, o->h = o->w = 1;
	return check_keys(d, NULL);
}

static int maxpool_layer(dn *d, int layer, dn_layer *in, dn_layer *o)
{
	int64_t stride, size, padding;
	if (get_int(d, "stride", 1, 1, 64, &stride) || get_int(d, "size", stride, 1, 64, &size) ||
	    get_int(d, "padding", size - 1, 0, 63, &padding))
		return -1;
	if (in->h + padding < size || in->w + padding < size)
		return dn_fail(d, "a %lldx%lld window does not fit the %lldx%lld input", (long long)size, (long long)size,
			       (long long)in->h, (long long)in->w);
	vc_attrs a;
	vc_attrs_init(&a);
	a.kernel[0] = a.kernel[1] = size;
	a.stride[0] = a.stride[1] = stride;
	a.pad[0] = a.pad[1] = padding / 2;
	a.pad[2] = a.pad[3] = padding - padding / 2;
	char nm[64];
	snprintf(nm, sizeof nm, "L%d.maxpool", layer);
	vc_node *x = as4d(d, in->out, in, NULL);
	o->out = x ? vc_build(d->m, VC_OP_MAXPOOL, &x, 1, &a, nm) : NULL;
	if (!o->out)
		return -1;
	o->c = in->c;
	o->h = (in->h + padding - size) / stride + 1;
	o->w = (in->w + padding - size) / stride + 1;
	if (o->out->type.dim[2] != o->h || o->out->type.dim[3] != o->w)
		return dn_fail(d, "internal: maxpool output %lldx%lld, Darknet's %lldx%lld", (long long)o->out->type.dim[2],
			       (long long)o->out->type.dim[3], (long long)o->h, (long long)o->w);
	return check_keys(d, NULL);
}

static int shortcut_layer(dn *d, int layer, dn_layer *prev, dn_layer *o)
{
	int64_t from;
	double alpha, beta;
	int r;
	if (get_int(d, "from", -(1ll << 30) - 1, -(1ll << 30), 1 << 30, &from) || layer_ref(d, from, layer, "from", &r) ||
	    get_float(d, "alpha", 1, &alpha) || get_float(d, "beta", 1, &beta))
		return -1;
	if (alpha != 1 || beta != 1)
		return dn_fail(d, "alpha=%g beta=%g: only the plain sum (alpha=beta=1) is supported", alpha, beta);
	dn_layer *f = &d->L[r];
	int64_t stride = f->w / prev->w, sample = prev->w / f->w;
	if (f->h / prev->h != stride || prev->h / f->h != sample)
		return dn_fail(d, "from=%lld: layer %d is %lldx%lld, this one %lldx%lld; the width and height ratios differ",
			       (long long)from, r, (long long)f->h, (long long)f->w, (long long)prev->h, (long long)prev->w);
	char nm[64];
	vc_node *x = as4d(d, prev->out, prev, NULL), *y = as4d(d, f->out, f, NULL);
	if (!x || !y)
		return -1;
	if (f->c != prev->c || f->h != prev->h || f->w != prev->w) {
		vc_attrs a;
		vc_attrs_init(&a);
		a.nshape = 4;
		memcpy(a.shape, x->type.dim, 4 * sizeof a.shape[0]);
		snprintf(nm, sizeof nm, "L%d.align", layer);
		y = vc_build(d->m, VC_OP_ALIGN, &y, 1, &a, nm);
		if (!y)
			return -1;
	}
	snprintf(nm, sizeof nm, "L%d.add", layer);
	vc_node *args[2] = {x, y};
	vc_node *s = vc_build(d->m, VC_OP_ADD, args, 2, NULL, nm);
	if (!s || activation(d, "linear", &s, layer))
		return -1;
	o->out = s;
	o->c = prev->c, o->h = prev->h, o->w = prev->w;
	return check_keys(d, NULL);
}

static int route_layer(dn *d, int layer, dn_layer *o)
{
	int64_t v[16];
	int n;
	if (get_list(d, "layers", v, 16, &n, 1))
		return -1;
	vc_node *in[16];
	o->c = 0;
	for (int i = 0; i < n; i++) {
		int r;
		if (layer_ref(d, v[i], layer, "layers", &r))
			return -1;
		dn_layer *l = &d->L[r];
		if (i && (l->h != o->h || l->w != o->w))
			return dn_fail(d, "layers: layer %d is %lldx%lld, layer %lld is %lldx%lld; routed layers must have one size",
				       r, (long long)l->h, (long long)l->w, (long long)(v[0] < 0 ? layer + v[0] : v[0]),
				       (long long)o->h, (long long)o->w);
		o->h = l->h, o->w = l->w, o->c += l->c;
		if (!(in[i] = as4d(d, l->out, l, NULL)))
			return -1;
	}
	if (n == 1) {
		o->out = in[0];
	} else {
		vc_attrs a;
		vc_attrs_init(&a);
		a.axis = 1;
		char nm[64];
		snprintf(nm, sizeof nm, "L%d.concat", layer);
		if (!(o->out = vc_build(d->m, VC_OP_CONCAT, in, n, &a, nm)))
			return -1;
	}
	return check_keys(d, NULL);
}

static int upsample_layer(dn *d, int layer, dn_layer *in, dn_layer *o)
{
	int64_t stride;
	double scale;
	if (get_int(d, "stride", 2, 1, 32, &stride) || get_float(d, "scale", 1, &scale))
		return -1;
	if (scale != 1)
		return dn_fail(d, "scale=%g: only scale=1 is supported", scale);
	if (in->h * stride > 65536 || in->w * stride > 65536)
		return dn_fail(d, "the upsampled size is too large");
	vc_attrs a;
	vc_attrs_init(&a);
	a.stride[0] = a.stride[1] = stride;
	char nm[64];
	snprintf(nm, sizeof nm, "L%d.upsample", layer);
	vc_node *x = as4d(d, in->out, in, NULL);
	if (!x || !(o->out = vc_build(d->m, VC_OP_UPSAMPLE, &x, 1, &a, nm)))
		return -1;
	o->c = in->c, o->h = in->h * stride, o->w = in->w * stride;
	return check_keys(d, NULL);
}

static const char *const yolo_ignored[] = {"jitter", "ignore_thresh", "truth_thresh", "random", "max", "counters_per_class",
					   "label_smooth_eps", "scale_x_y", "iou_normalizer", "iou_loss", "cls_normalizer",
					   "resize", NULL};

static int yolo_layer(dn *d, int layer, dn_layer *in, dn_layer *o)
{
	int64_t classes, num, mask[64], anchors[128];
	int nmask, nanch;
	if (get_int(d, "classes", 20, 1, 100000, &classes) || get_int(d, "num", 1, 1, 64, &num) ||
	    get_list(d, "mask", mask, 64, &nmask, 0) || get_list(d, "anchors", anchors, 128, &nanch, 0))
		return -1;
	if (!nmask) { /* Darknet: no mask means every anchor */
		for (int i = 0; i < num; i++)
			mask[i] = i;
		nmask = (int)num;
	}
	if (nanch != 2 * num)
		return dn_fail(d, "anchors has %d values, num=%lld needs %lld", nanch, (long long)num, (long long)(2 * num));
	for (int i = 0; i < nmask; i++)
		if (mask[i] < 0 || mask[i] >= num)
			return dn_fail(d, "mask entry %lld is not an anchor index below num=%lld", (long long)mask[i],
				       (long long)num);
	if (in->c != nmask * (classes + 5))
		return dn_fail(d, "the input has %lld channels; %d anchors x (%lld classes + 5) = %lld are needed",
			       (long long)in->c, nmask, (long long)classes, (long long)(nmask * (classes + 5)));
	int64_t ad[2] = {nmask, 2};
	char nm[64];
	snprintf(nm, sizeof nm, "L%d.anchors", layer);
	vc_node *an = vc_const(d->m, nm, VC_F32, 2, ad, NULL);
	if (!an)
		return -1;
	for (int i = 0; i < nmask; i++) {
		((float *)an->data)[2 * i] = (float)anchors[2 * mask[i]];
		((float *)an->data)[2 * i + 1] = (float)anchors[2 * mask[i] + 1];
	}
	vc_attrs a;
	vc_attrs_init(&a);
	a.axis = classes;
	snprintf(nm, sizeof nm, "L%d.yolo", layer);
	vc_node *args[2] = {as4d(d, in->out, in, NULL), an};
	if (!args[0] || !(o->out = vc_build(d->m, VC_OP_YOLO, args, 2, &a, nm)))
		return -1;
	o->c = in->c, o->h = in->h, o->w = in->w;
	o->yolo = 1;
	return check_keys(d, yolo_ignored);
}

static const char *const net_ignored[] = {
	"batch", "subdivisions", "momentum", "decay", "angle", "saturation", "exposure", "hue", "learning_rate", "burn_in",
	"max_batches", "policy", "steps", "scales", "step", "scale", "gamma", "power", "min_crop", "max_crop", "aspect",
	"random", "adam", "B1", "B2", "eps", "max_chart_loss", "flip", "mosaic", "letter_box", "time_steps", "notruth",
	"center", "clip", "burn_in_power", "mixup", "cutmix", "blur", "track", "augment_speed", "sequential_subdivisions",
	"try_fix_nan", "label_smooth_eps", "resize_step", "inputs", NULL};

static const char *const dn_types[] = {"convolutional", "conv", "connected", "maxpool", "avgpool", "shortcut", "route",
				       "upsample", "softmax", "dropout", "yolo", "net", "network", NULL};

static int listed(const char *const *list, const char *s)
{
	while (*list && strcmp(*list, s))
		list++;
	return *list != NULL;
}

/* Every section type and activation the importer does not take, in one
 * diagnostic before any section is checked. */
static int unsupported_layers(vc_module *m, const vc_dn_cfg *cfg)
{
	static const char *const acts[] = {"linear", "leaky", "relu", NULL};
	static const char *const recurrent[] = {"rnn", "lstm", "gru", "crnn", "conv_lstm", NULL};
	vc_unsup u;
	vc_unsup_init(&u, "section");
	for (int i = 1; i < cfg->n; i++) {
		const dn_sec *s = &cfg->s[i];
		char type[72], nm[40];
		snprintf(nm, sizeof nm, "layer %d at line %d", i - 1, s->line);
		if (!listed(dn_types, s->type)) {
			snprintf(type, sizeof type, "[%.60s]", s->type);
			vc_unsup_add(&u, type, nm);
			vc_unsup_note(&u, listed(recurrent, s->type) ? "recurrent layers are not supported"
								     : "sections supported: convolutional, maxpool, avgpool, "
								       "shortcut, route, upsample, connected, softmax, "
								       "dropout, yolo");
			continue;
		}
		/* Darknet's default activation: logistic for these two, linear for a shortcut */
		int weighted = !strcmp(s->type, "convolutional") || !strcmp(s->type, "conv") || !strcmp(s->type, "connected");
		if (!weighted && strcmp(s->type, "shortcut"))
			continue;
		const char *act = NULL;
		for (int k = 0; k < s->nkv; k++)
			if (!strcmp(s->kv[k].key, "activation"))
				act = s->kv[k].val;
		if (listed(acts, act ? act : weighted ? "logistic" : "linear"))
			continue;
		snprintf(type, sizeof type, "activation %.50s", act ? act : "logistic");
		vc_unsup_add(&u, type, nm);
		vc_unsup_note(&u, "activations supported: linear, leaky, relu");
		if (!act)
			vc_unsup_note(&u, "no activation= means Darknet's logistic");
	}
	if (!vc_unsup_report(m, &u, "layer"))
		return 0;
	char pre[300];
	snprintf(pre, sizeof pre, "%.256s: ", cfg->name);
	vc_error_prefix(m, pre);
	return -1;
}

int vc_import_darknet(vc_module *m, vc_dn_cfg *cfg, const char *wname, const uint8_t *weights, size_t wlen,
		      const vc_darknet_opts *o)
{
	dn d = {.m = m, .cfg = cfg, .wname = wname ? wname : "weights", .wbuf = weights, .wlen = wlen};
	int rc = -1;
	if (unsupported_layers(m, cfg))
		return -1;
	if (strcmp(cfg->s[0].type, "net") && strcmp(cfg->s[0].type, "network"))
		return vc_error(m, NULL, "%s:%d: section 0 is [%s]; a Darknet cfg starts with [net]", cfg->name,
				cfg->s[0].line, cfg->s[0].type);
	for (int i = 1; i < cfg->n; i++)
		if (!strcmp(cfg->s[i].type, "net") || !strcmp(cfg->s[i].type, "network"))
			return vc_error(m, NULL, "%s:%d: section %d is a second [%s]; it may only come first", cfg->name,
					cfg->s[i].line, i, cfg->s[i].type);
	if (cfg->n < 2)
		return vc_error(m, NULL, "%s: the cfg has no layers after [net]", cfg->name);
	if (!weights && !(o && o->synthetic))
		return vc_error(m, NULL, "%s: no weights: give a .weights file or synthetic weights", cfg->name);
	if (!weights) {
		d.synthetic = 1;
		d.seed = o->seed;
		d.wname = "synthetic weights";
	}
	d.L = calloc((size_t)cfg->n, sizeof *d.L);
	if (!d.L)
		return vc_error(m, NULL, "out of memory");

	/* [net] */
	d.sec = 0;
	int64_t h, w, c;
	if (get_int(&d, "height", 0, 1, 8192, &h) || get_int(&d, "width", 0, 1, 8192, &w) ||
	    get_int(&d, "channels", 0, 1, 4096, &c) || check_keys(&d, net_ignored))
		goto done;
	if (o && o->input_size > 0)
		h = w = o->input_size;
	d.net_w = w, d.net_h = h, d.net_c = c;

	char herr[256];
	if (!d.synthetic && vc_dn_weights_header(d.wbuf, d.wlen, &d.wat, herr, sizeof herr)) {
		vc_error(m, NULL, "%s: %s", d.wname, herr);
		goto done;
	}

	int64_t dim[4] = {1, c, h, w};
	vc_node *x = vc_input(m, "data", VC_F32, 4, dim);
	int64_t one[1] = {1};
	vc_node *k = x ? vc_const(m, "pixel_scale", VC_F32, 1, one, NULL) : NULL;
	if (!k)
		goto done;
	((float *)k->data)[0] = 1.0f / 255.0f; /* Darknet takes pixels in [0,1]; our inputs are 0..255 */
	vc_node *args[2] = {x, k};
	dn_layer in0 = {.c = c, .h = h, .w = w};
	if (!(in0.out = vc_build(m, VC_OP_MUL, args, 2, NULL, "data.scaled")))
		goto done;
	for (int i = 1; i < cfg->n; i++) {
		int layer = i - 1;
		d.sec = i;
		dn_layer *prev = layer ? &d.L[layer - 1] : &in0, *ol = &d.L[layer];
		if (!prev->out) {
			dn_fail(&d, "the layer before, [%s], has no output to read", cfg->s[i - 1].type);
			goto done;
		}
		const char *t = cfg->s[i].type;
		int r;
		if (!strcmp(t, "convolutional") || !strcmp(t, "conv")) {
			r = conv_layer(&d, layer, prev, ol);
		} else if (!strcmp(t, "connected")) {
			r = connected_layer(&d, layer, prev, ol);
		} else if (!strcmp(t, "maxpool")) {
			r = maxpool_layer(&d, layer, prev, ol);
		} else if (!strcmp(t, "avgpool")) {
			char nm[64];
			snprintf(nm, sizeof nm, "L%d.avgpool", layer);
			vc_node *xx = as4d(&d, prev->out, prev, NULL);
			r = !xx || !(ol->out = vc_build(m, VC_OP_GAP, &xx, 1, NULL, nm)) ? -1 : check_keys(&d, NULL);
			ol->c = prev->c, ol->h = ol->w = 1;
		} else if (!strcmp(t, "shortcut")) {
			r = shortcut_layer(&d, layer, prev, ol);
		} else if (!strcmp(t, "route")) {
			r = route_layer(&d, layer, ol);
		} else if (!strcmp(t, "upsample")) {
			r = upsample_layer(&d, layer, prev, ol);
		} else if (!strcmp(t, "softmax")) {
			int64_t groups;
			double temp;
			r = get_int(&d, "groups", 1, 1, 1 << 20, &groups) || get_float(&d, "temperature", 1, &temp) ? -1 : 0;
			if (!r && (groups != 1 || temp != 1))
				r = dn_fail(&d, "groups=%lld temperature=%g: only groups=1 and temperature=1 are supported",
					    (long long)groups, temp);
			char nm[64];
			snprintf(nm, sizeof nm, "L%d.flatten", layer);
			vc_node *xx = r ? NULL : flat(&d, prev->out, nm);
			vc_attrs a;
			vc_attrs_init(&a);
			a.axis = 1;
			snprintf(nm, sizeof nm, "L%d.softmax", layer);
			if (!r)
				r = !xx || !(ol->out = vc_build(m, VC_OP_SOFTMAX, &xx, 1, &a, nm)) ? -1 : check_keys(&d, NULL);
			ol->c = prev->c * prev->h * prev->w, ol->h = ol->w = 1;
		} else if (!strcmp(t, "dropout")) { /* identity at inference */
			double p;
			r = get_float(&d, "probability", 0.5, &p) || check_keys(&d, NULL) ? -1 : 0;
			*ol = *prev;
			ol->yolo = 0;
		} else if (!strcmp(t, "yolo")) {
			r = yolo_layer(&d, layer, prev, ol);
		} else {
			r = dn_fail(&d, "unknown section type [%s] (supported: net, convolutional, maxpool, avgpool, shortcut, "
					"route, upsample, connected, softmax, dropout, yolo)",
				    t);
		}
		if (r)
			goto done;
		if (ol->out && ol->c * ol->h * ol->w > DN_MAX_VALUES) {
			dn_fail(&d, "the output has %lldx%lldx%lld values, more than %lld", (long long)ol->c, (long long)ol->h,
				(long long)ol->w, (long long)DN_MAX_VALUES);
			goto done;
		}
	}
	d.sec = cfg->n - 1;
	if (!d.synthetic && d.wat != d.wlen) {
		vc_error(m, NULL, "%s: %zu bytes are left over after the last layer: the weights file (%zu bytes) does not "
				  "belong to %s (it needs %zu bytes)",
			 d.wname, d.wlen - d.wat, d.wlen, cfg->name, d.wat);
		goto done;
	}
	/* outputs: every yolo head, else the last layer */
	vc_graph *g = m->g;
	for (int i = 0; i < cfg->n - 1; i++)
		if (d.L[i].yolo) {
			if (g->n_outputs == 8) {
				vc_error(m, NULL, "%s: more than 8 yolo layers", cfg->name);
				goto done;
			}
			g->outputs[g->n_outputs++] = d.L[i].out;
		}
	if (!g->n_outputs)
		g->outputs[g->n_outputs++] = d.L[cfg->n - 2].out;
	vc_remove_dead(m);
	m->props |= VC_PROP_IMPORTED;
	rc = 0;
done:
	free(d.L);
	return rc;
}

int vc_import_darknet_bytes(vc_module *m, const char *cfg_name, const uint8_t *cfg, size_t cfg_len,
			    const char *weights_name, const uint8_t *weights, size_t weights_len, const vc_darknet_opts *o)
{
	vc_dn_cfg *c;
	if (vc_dn_cfg_parse(cfg_name, cfg, cfg_len, &c)) {
		vc_error(m, NULL, "%s", vc_dn_cfg_error(c));
		vc_dn_cfg_free(c);
		return -1;
	}
	int rc = vc_import_darknet(m, c, weights_name, weights, weights_len, o);
	vc_dn_cfg_free(c);
	return rc;
}

int vc_import_darknet_files(vc_module *m, const char *cfg_path, const char *weights_path, const vc_darknet_opts *o)
{
	uint8_t *cb = NULL, *wb = NULL;
	size_t cl = 0, wl = 0;
	vta_error_t e;
	if (vta_read_file(cfg_path, &cb, &cl, &e))
		return vc_error(m, NULL, "%s", e.msg);
	if (weights_path && vta_read_file(weights_path, &wb, &wl, &e)) {
		free(cb);
		return vc_error(m, NULL, "%s", e.msg);
	}
	int rc = vc_import_darknet_bytes(m, cfg_path, cb, cl, weights_path, wb, wl, o);
	free(cb);
	free(wb);
	return rc;
}

