/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Contexts and the per-thread command handle (include/vta/runtime.h).
 *
 * A context is one thread's view of a device: its instruction queue, its
 * micro-op kernels and its last error. The device itself (and so every
 * buffer) is the process's, shared by all contexts on it (devices.c).
 *
 * Per thread (`tls`): the thread's current context, whether the library
 * created it (and so must destroy it), the target chosen for the next one,
 * and the last error of a call that had no context to record it in.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../driver/zynq.h"
#include "internal.h"
#include "seams.h"

#define CTX_MAGIC 0x56544143u /* "VTAC" */

struct vta_context {
	uint32_t magic;
	RtDev *dev;
	int log_errors;
	vta_error_t err;
	Cmdq *q;
	Uops *u;
	uint64_t insns_queued;
};

static _Thread_local struct {
	vta_context_t *ctx;
	int owned;        /* created by rt_current, closed by VTARuntimeShutdown */
	char target[16];  /* vta_set_target; "" means $VTA_TARGET or fsim */
	vta_error_t err;  /* errors with no context to go to */
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

static int context_on(RtDev *dev, vta_context_t **out, vta_error_t *err)
{
	vta_context_t *ctx = calloc(1, sizeof *ctx);
	if (ctx) {
		ctx->q = cmd_create();
		ctx->u = uop_create();
	}
	if (!ctx || !ctx->q || !ctx->u) {
		if (ctx) {
			free(ctx->q);
			free(ctx->u);
		}
		free(ctx);
		rtdev_release(dev);
		return vta_error_set(err, VTA_ENOMEM, -1, "cannot allocate a VTA context");
	}
	ctx->magic = CTX_MAGIC;
	ctx->dev = dev;
	ctx->log_errors = env_log_errors();
	vta_error_clear(&ctx->err);
	*out = ctx;
	return VTA_OK;
}

int vta_context_open(const char *target, vta_context_t **out, vta_error_t *err)
{
	vta_error_clear(err);
	*out = NULL;
	RtDev *dev;
	int rc = rtdev_acquire(target ? target : default_target(), &dev, err);
	return rc ? rc : context_on(dev, out, err);
}

int vta_context_open_seam(const char *backend, const void *seam, vta_context_t **out,
			  vta_error_t *err)
{
	vta_error_clear(err);
	*out = NULL;
	RtDev *dev;
	int rc = rtdev_acquire_seam(backend, seam, &dev, err);
	return rc ? rc : context_on(dev, out, err);
}

int vta_zynq_open_mmio(const struct vta_mmio *mmio, vta_context_t **out, vta_error_t *err)
{
	if (!mmio || !mmio->read32 || !mmio->write32 || !mmio->dma_va || !mmio->dma_size) {
		*out = NULL;
		return vta_error_set(err, VTA_EINVAL, -1, "vta_zynq_open_mmio: incomplete MMIO description");
	}
	return vta_context_open_seam("zynq", mmio, out, err);
}

void vta_context_close(vta_context_t *ctx)
{
	if (!ctx || ctx->magic != CTX_MAGIC)
		return;
	if (tls.ctx == ctx) {
		tls.ctx = NULL;
		tls.owned = 0;
	}
	uop_destroy(ctx);
	cmd_destroy(ctx);
	rtdev_release(ctx->dev);
	ctx->magic = 0;
	free(ctx);
}

int vta_context_bind(vta_context_t *ctx)
{
	if (ctx && ctx->magic != CTX_MAGIC)
		return vta_error_set(&tls.err, VTA_EINVAL, -1, "vta_context_bind: not a VTA context");
	if (tls.ctx == ctx)
		return VTA_OK;
	if (tls.ctx && tls.owned)
		vta_context_close(tls.ctx);
	tls.ctx = ctx;
	tls.owned = 0;
	return VTA_OK;
}

vta_context_t *rt_current(void)
{
	if (tls.ctx)
		return tls.ctx;
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

vta_context_t *rt_current_if_any(void) { return tls.ctx; }

vta_context_t *vta_context_current(void) { return rt_current(); }

VTACommandHandle vta_context_command(vta_context_t *ctx) { return ctx; }

const char *vta_context_backend(const vta_context_t *ctx) { return rtdev_dev(ctx->dev)->be->name; }

RtDev *rt_dev(const vta_context_t *ctx) { return ctx->dev; }

Cmdq *rt_cmdq(const vta_context_t *ctx) { return ctx->q; }

Uops *rt_uops(const vta_context_t *ctx) { return ctx->u; }

void rt_count_insns(vta_context_t *ctx, uint64_t n) { ctx->insns_queued += n; }

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

void VTARuntimeShutdown(void)
{
	if (tls.ctx && tls.owned)
		vta_context_close(tls.ctx);
}

/* ---- Errors ------------------------------------------------------------ */

static int record(vta_context_t *ctx, int code, const char *fmt, va_list ap)
{
	vta_error_t *e = ctx ? &ctx->err : &tls.err;
	e->code = code;
	e->insn_index = -1;
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	if (ctx ? ctx->log_errors : env_log_errors())
		fprintf(stderr, "vta: error: %s\n", e->msg);
	return code;
}

int rt_error(vta_context_t *ctx, int code, const char *fmt, ...)
{
	if (!ctx)
		ctx = tls.ctx;
	va_list ap;
	va_start(ap, fmt);
	record(ctx, code, fmt, ap);
	va_end(ap);
	return code;
}

int rt_fail(vta_context_t *ctx, int code, const char *fmt, ...)
{
	if (!ctx)
		ctx = tls.ctx;
	va_list ap;
	va_start(ap, fmt);
	record(ctx, code, fmt, ap);
	va_end(ap);
	if (ctx)
		cmd_poison(ctx);
	return code;
}

int rt_error_from(vta_context_t *ctx, const char *what, const vta_error_t *err)
{
	int rc = rt_error(ctx, err->code ? err->code : VTA_EIO, "%s: %s", what, err->msg);
	vta_context_t *c = ctx ? ctx : tls.ctx;
	(c ? &c->err : &tls.err)->insn_index = err->insn_index;
	return rc;
}

const vta_error_t *rt_last_error(const vta_context_t *ctx) { return ctx ? &ctx->err : &tls.err; }

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

int vta_context_last_run(vta_context_t *ctx, vta_counters_t *out)
{
	memset(out, 0, sizeof *out);
	if (!ctx || ctx->magic != CTX_MAGIC)
		return VTA_EINVAL;
	rtdev_lock(ctx->dev);
	*out = rtdev_dev(ctx->dev)->last;
	rtdev_unlock(ctx->dev);
	return VTA_OK;
}

int vta_context_info(vta_context_t *ctx, vta_device_info_t *info)
{
	memset(info, 0, sizeof *info);
	if (!ctx || ctx->magic != CTX_MAGIC)
		return VTA_EINVAL;
	vta_dev_t *d = rtdev_dev(ctx->dev);
	snprintf(info->backend, sizeof info->backend, "%s", d->be->name);
	if (d->be->describe)
		d->be->describe(d, info->description, sizeof info->description);
	info->config_id = d->config_id;
	info->version = d->version;
	info->dram_bytes = d->dram_size - d->dram_first;
	info->dram_free = info->dram_bytes - mem_bytes_used(rtdev_mem(ctx->dev));
	info->coherent = d->coherent;
	info->has_counters = d->has_counters;
	rtdev_lock(ctx->dev);
	info->counters = d->total;
	info->runs = d->runs;
	info->cache_syncs = d->syncs;
	info->cache_sync_bytes = d->sync_bytes;
	rtdev_unlock(ctx->dev);
	info->insns_queued = ctx->insns_queued;
	return VTA_OK;
}
