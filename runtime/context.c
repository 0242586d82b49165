/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Contexts and the per-thread command handle (include/vta/runtime.h).
 *
 * The only mutable state outside the contexts is `tls`, one per thread: the
 * thread's current context, whether the library created it (and so must
 * destroy it), the target chosen for the next one, and the error that
 * prevented creating it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static _Thread_local struct {
	vta_context_t *ctx;
	int owned;        /* created by rt_current, closed by VTARuntimeShutdown */
	char target[16];  /* vta_set_target; "" means $VTA_TARGET or fsim */
	vta_error_t err;  /* why the context could not be created */
} tls;

static const char *default_target(void)
{
	if (tls.target[0])
		return tls.target;
	const char *t = getenv("VTA_TARGET");
	return t && *t ? t : "fsim";
}

int vta_set_target(const char *name)
{
	if (name && strlen(name) >= sizeof tls.target)
		return vta_error_set(&tls.err, VTA_EINVAL, -1, "vta_set_target: no backend is called \"%s\"",
				     name);
	if (name && !vta_backend_find(name)) {
		char why[256];
		int rc = vta_backend_probe(name, why, sizeof why);
		if (rc == VTA_EINVAL)
			return vta_error_set(&tls.err, rc, -1, "vta_set_target: %s", why);
	}
	const char *want = name ? name : "";
	if (tls.ctx && strcmp(vta_context_backend(tls.ctx), name ? name : default_target()))
		return vta_error_set(&tls.err, VTA_EINVAL, -1,
				     "vta_set_target(\"%s\"): this thread already runs on \"%s\"; "
				     "call VTARuntimeShutdown() first",
				     name ? name : "(default)", vta_context_backend(tls.ctx));
	snprintf(tls.target, sizeof tls.target, "%s", want);
	return VTA_OK;
}

static int env_log_errors(void)
{
	const char *s = getenv("VTA_LOG_ERRORS");
	return !(s && !strcmp(s, "0"));
}

static int context_from_dev(vta_dev_t *dev, vta_context_t **out, vta_error_t *err)
{
	vta_context_t *ctx = calloc(1, sizeof *ctx);
	if (!ctx) {
		vta_dev_close(dev);
		return vta_error_set(err, VTA_ENOMEM, -1, "cannot allocate a VTA context");
	}
	ctx->magic = CTX_MAGIC;
	ctx->dev = dev;
	ctx->log_errors = env_log_errors();
	vta_error_clear(&ctx->err);
	const char *kb = getenv("VTA_UOP_CACHE_KB");
	long k = kb ? strtol(kb, NULL, 10) : 0;
	ctx->u.limit = (size_t)(k > 0 ? k : 4096) << 10;
	*out = ctx;
	return VTA_OK;
}

int vta_context_open(const char *target, vta_context_t **out, vta_error_t *err)
{
	vta_error_clear(err);
	*out = NULL;
	vta_dev_t *dev;
	int rc = vta_dev_open(target ? target : default_target(), &dev, err);
	if (rc)
		return rc;
	return context_from_dev(dev, out, err);
}

/* Used by the zynq-over-MMIO entry point (driver/zynq.h). */
int vta_context_from_dev(vta_dev_t *dev, vta_context_t **out, vta_error_t *err);
int vta_context_from_dev(vta_dev_t *dev, vta_context_t **out, vta_error_t *err)
{
	return context_from_dev(dev, out, err);
}

void vta_context_close(vta_context_t *ctx)
{
	if (!ctx)
		return;
	if (tls.ctx == ctx) {
		tls.ctx = NULL;
		tls.owned = 0;
	}
	uop_destroy(ctx);
	cmd_destroy(ctx);
	buffers_destroy(ctx);
	mem_destroy(ctx);
	vta_dev_close(ctx->dev);
	ctx->magic = 0;
	free(ctx);
}

int vta_context_bind(vta_context_t *ctx)
{
	if (ctx && ctx->magic != CTX_MAGIC)
		return vta_error_set(&tls.err, VTA_EINVAL, -1, "vta_context_bind: not a VTA context");
	if (tls.ctx == ctx)
		return VTA_OK;
	if (tls.ctx && tls.owned) {
		if (tls.ctx->mem.user_blocks)
			return rt_error(tls.ctx, VTA_EINVAL,
					"vta_context_bind: this thread's own context still has %zu buffers; "
					"free them and call VTARuntimeShutdown() first",
					tls.ctx->mem.user_blocks);
		vta_context_close(tls.ctx);
	}
	tls.ctx = ctx;
	tls.owned = 0;
	return VTA_OK;
}

vta_context_t *rt_current(void)
{
	if (tls.ctx) {
		tls.ctx->closing = 0;
		return tls.ctx;
	}
	vta_context_t *ctx;
	if (vta_context_open(NULL, &ctx, &tls.err)) {
		if (env_log_errors())
			fprintf(stderr, "vta: error: %s\n", tls.err.msg);
		return NULL;
	}
	tls.ctx = ctx;
	tls.owned = 1;
	return ctx;
}

vta_context_t *vta_context_current(void) { return rt_current(); }

VTACommandHandle vta_context_command(vta_context_t *ctx) { return ctx; }

const char *vta_context_backend(const vta_context_t *ctx) { return ctx->dev->be->name; }

vta_context_t *rt_cmd(VTACommandHandle cmd, const char *fn)
{
	vta_context_t *ctx = cmd;
	if (ctx && ctx->magic == CTX_MAGIC)
		return ctx;
	vta_context_t *cur = tls.ctx;
	if (cur)
		rt_fail(cur, VTA_EINVAL, "%s: %p is not a command handle (use VTATLSCommandHandle())", fn,
			cmd);
	else
		vta_error_set(&tls.err, VTA_EINVAL, -1,
			      "%s: %p is not a command handle (use VTATLSCommandHandle())", fn, cmd);
	return NULL;
}

VTACommandHandle VTATLSCommandHandle(void) { return rt_current(); }

void rt_maybe_close(vta_context_t *ctx)
{
	if (ctx->closing && ctx->mem.user_blocks == 0 && tls.ctx == ctx && tls.owned)
		vta_context_close(ctx);
}

void VTARuntimeShutdown(void)
{
	vta_context_t *ctx = tls.ctx;
	if (!ctx || !tls.owned)
		return;
	if (ctx->mem.user_blocks == 0) {
		vta_context_close(ctx);
		return;
	}
	/* Buffers are still in use: keep the device (and so their memory)
	 * until the last one is freed, but drop everything else now. */
	uop_destroy(ctx);
	cmd_destroy(ctx);
	ctx->closing = 1;
}

/* ---- Errors ------------------------------------------------------------ */

static int record(vta_context_t *ctx, int code, const char *fmt, va_list ap)
{
	ctx->err.code = code;
	ctx->err.insn_index = -1;
	vsnprintf(ctx->err.msg, sizeof ctx->err.msg, fmt, ap);
	if (ctx->log_errors)
		fprintf(stderr, "vta: error: %s\n", ctx->err.msg);
	return code;
}

int rt_error(vta_context_t *ctx, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	record(ctx, code, fmt, ap);
	va_end(ap);
	return code;
}

int rt_fail(vta_context_t *ctx, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	record(ctx, code, fmt, ap);
	va_end(ap);
	if (!ctx->q.poisoned) {
		ctx->q.poisoned = 1;
		ctx->q.poison = ctx->err;
	}
	return code;
}

int rt_error_from(vta_context_t *ctx, const char *what, const vta_error_t *err)
{
	return rt_error(ctx, err->code ? err->code : VTA_EIO, "%s: %s", what, err->msg);
}

static const vta_context_t *err_ctx(const vta_context_t *ctx) { return ctx ? ctx : tls.ctx; }

int vta_errcode(const vta_context_t *ctx)
{
	const vta_context_t *c = err_ctx(ctx);
	if (c && c->err.code)
		return c->err.code;
	return ctx ? VTA_OK : tls.err.code;
}

const char *vta_errmsg(const vta_context_t *ctx)
{
	const vta_context_t *c = err_ctx(ctx);
	if (c && c->err.code)
		return c->err.msg;
	if (!ctx && tls.err.code)
		return tls.err.msg;
	return "no error";
}

void vta_clear_error(vta_context_t *ctx)
{
	vta_context_t *c = ctx ? ctx : tls.ctx;
	if (c)
		vta_error_clear(&c->err);
	if (!ctx)
		vta_error_clear(&tls.err);
}

void vta_set_log_errors(vta_context_t *ctx, int on)
{
	if (ctx)
		ctx->log_errors = on;
}

int vta_context_info(vta_context_t *ctx, vta_device_info_t *info)
{
	memset(info, 0, sizeof *info);
	if (!ctx || ctx->magic != CTX_MAGIC)
		return VTA_EINVAL;
	vta_dev_t *d = ctx->dev;
	snprintf(info->backend, sizeof info->backend, "%s", d->be->name);
	if (d->be->describe)
		d->be->describe(d, info->description, sizeof info->description);
	info->config_id = d->config_id;
	info->version = d->version;
	info->dram_bytes = d->dram_size - d->dram_first;
	size_t used = 0;
	for (size_t i = 0; i < ctx->mem.n; i++)
		used += ctx->mem.b[i].len;
	info->dram_free = info->dram_bytes - used;
	info->coherent = d->coherent;
	info->has_counters = d->has_counters;
	info->counters = d->total;
	info->runs = d->runs;
	info->insns_queued = ctx->insns_queued;
	return VTA_OK;
}
