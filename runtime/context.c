/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Contexts (context.h): a device, its instruction queue and micro-op cache,
 * the debug flags and the last error; queuing with automatic splitting of
 * programs that fill the queue, synchronizing and running.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../driver/zynq.h"
#include "context.h"
#include "seams.h"

#define CTX_MAGIC 0x56544143u /* "VTAC" */

struct vta_context {
	uint32_t magic;
	RtDev *dev;
	int log_errors;
	int debug;        /* VTA_DEBUG_* of VTASetDebugMode */
	vta_error_t err;
	Cmdq *q;
	Uops *u;
};

const char *ctx_default_target(void)
{
	const char *t = getenv("VTA_TARGET");
	return t && *t ? t : "fsim";
}

int ctx_env_log_errors(void)
{
	const char *s = getenv("VTA_LOG_ERRORS");
	return !(s && !strcmp(s, "0"));
}

/* $VTA_UOP_CACHE_KB, default 4 MiB. */
static size_t uop_cache_limit(void)
{
	const char *kb = getenv("VTA_UOP_CACHE_KB");
	long k = kb ? strtol(kb, NULL, 10) : 0;
	return (size_t)(k > 0 ? k : 4096) << 10;
}

static int context_on(RtDev *dev, vta_context_t **out, vta_error_t *err)
{
	vta_context_t *ctx = calloc(1, sizeof *ctx);
	if (ctx) {
		ctx->q = cmdq_create();
		ctx->u = uops_create(uop_cache_limit());
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
	ctx->log_errors = ctx_env_log_errors();
	vta_error_clear(&ctx->err);
	*out = ctx;
	return VTA_OK;
}

int ctx_open(const char *target, vta_context_t **out, vta_error_t *err)
{
	vta_error_clear(err);
	*out = NULL;
	RtDev *dev;
	int rc = rtdev_acquire(target, &dev, err);
	return rc ? rc : context_on(dev, out, err);
}

int ctx_open_seam(const char *backend, const void *seam, vta_context_t **out, vta_error_t *err)
{
	vta_error_clear(err);
	*out = NULL;
	RtDev *dev;
	int rc = rtdev_acquire_seam(backend, seam, &dev, err);
	return rc ? rc : context_on(dev, out, err);
}

int vta_context_open_seam(const char *backend, const void *seam, vta_context_t **out,
			  vta_error_t *err)
{
	return ctx_open_seam(backend, seam, out, err);
}

int vta_zynq_open_mmio(const struct vta_mmio *mmio, vta_context_t **out, vta_error_t *err)
{
	if (!mmio || !mmio->read32 || !mmio->write32 || !mmio->dma_va || !mmio->dma_size) {
		*out = NULL;
		return vta_error_set(err, VTA_EINVAL, -1, "vta_zynq_open_mmio: incomplete MMIO description");
	}
	return ctx_open_seam("zynq", mmio, out, err);
}

void ctx_close(vta_context_t *ctx)
{
	if (!ctx_valid(ctx))
		return;
	uops_destroy(ctx->u, ctx->dev);
	cmdq_destroy(ctx->q, ctx->dev);
	rtdev_release(ctx->dev);
	ctx->magic = 0;
	free(ctx);
}

int ctx_valid(const void *p) { return p && ((const vta_context_t *)p)->magic == CTX_MAGIC; }

RtDev *ctx_dev(const vta_context_t *ctx) { return ctx->dev; }

Uops *ctx_uops(const vta_context_t *ctx) { return ctx->u; }

int ctx_debug(const vta_context_t *ctx) { return ctx->debug; }

void ctx_set_debug(vta_context_t *ctx, int flags) { ctx->debug = flags; }

const char *vta_context_backend(const vta_context_t *ctx) { return rtdev_dev(ctx->dev)->be->name; }

void vta_set_log_errors(vta_context_t *ctx, int on)
{
	if (ctx)
		ctx->log_errors = on;
}

/* ---- Errors ------------------------------------------------------------ */

static void log_error(const vta_context_t *ctx)
{
	if (ctx->log_errors)
		fprintf(stderr, "vta: error: %s\n", ctx->err.msg);
}

static int record(vta_context_t *ctx, int code, const char *fmt, va_list ap)
{
	ctx->err.code = code;
	ctx->err.insn_index = -1;
	vsnprintf(ctx->err.msg, sizeof ctx->err.msg, fmt, ap);
	log_error(ctx);
	return code;
}

int ctx_error(vta_context_t *ctx, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	record(ctx, code, fmt, ap);
	va_end(ap);
	return code;
}

int ctx_fail(vta_context_t *ctx, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	record(ctx, code, fmt, ap);
	va_end(ap);
	cmdq_poison(ctx->q, &ctx->err);
	return code;
}

int ctx_fail_with(vta_context_t *ctx, const vta_error_t *err, int poison)
{
	ctx->err = *err;
	if (!ctx->err.code)
		ctx->err.code = VTA_EINVAL;
	log_error(ctx);
	if (poison)
		cmdq_poison(ctx->q, &ctx->err);
	return ctx->err.code;
}

int ctx_error_from(vta_context_t *ctx, const char *what, const vta_error_t *err)
{
	int rc = ctx_error(ctx, err->code ? err->code : VTA_EIO, "%s: %s", what, err->msg);
	ctx->err.insn_index = err->insn_index;
	return rc;
}

const vta_error_t *ctx_last_error(const vta_context_t *ctx) { return &ctx->err; }

void ctx_clear_error(vta_context_t *ctx) { vta_error_clear(&ctx->err); }

/* ---- Running ---------------------------------------------------------------- */

/* Close, check, write and run the queued program; the queue is empty
 * afterwards whatever happened. */
static int run_queued(vta_context_t *ctx, uint32_t wait_cycles)
{
	const uint32_t *uops = NULL;
	size_t uop_off = 0, nuops = uops_staged(ctx->u, &uops, &uop_off);
	uint64_t pa;
	uint32_t n;
	vta_error_t err;
	vta_error_clear(&err);
	int rc = cmdq_finish(ctx->q, ctx->dev, ctx->debug & VTA_DEBUG_FORCE_SERIAL, uops, nuops,
			     uop_off, &pa, &n, &err);
	if (rc) {
		ctx_fail_with(ctx, &err, 0);
	} else {
		if (ctx->debug & VTA_DEBUG_DUMP_INSN)
			cmdq_dump(ctx->q, stderr);
		/* The run keeps what it touches; the queue's pins go after it. */
		rc = rtdev_run(ctx->dev, pa, n, wait_cycles, &err);
		if (rc)
			ctx_error_from(ctx, "VTASynchronize", &err);
	}
	cmdq_reset(ctx->q, ctx->dev);
	uops_reset_window(ctx->u);
	return rc;
}

/* The queue is full: run what is queued now (cmdq_split_begin). A program
 * that pops a token before the instruction that pushes it cannot be split
 * there. A failure poisons the program, so that its final VTASynchronize
 * reports it. */
static int split_run(vta_context_t *ctx)
{
	const vta_error_t *poison = cmdq_poisoned(ctx->q);
	if (poison) { /* it will be discarded: just make room */
		cmdq_drop(ctx->q);
		return poison->code ? poison->code : VTA_EINVAL;
	}
	CmdqSplit s;
	vta_error_t err;
	vta_error_clear(&err);
	int rc = cmdq_split_begin(ctx->q, &s, &err);
	if (rc == VTA_ETOKEN)
		return ctx_fail_with(ctx, &err, 1);
	if (rc)
		ctx_fail_with(ctx, &err, 0);
	if (!rc)
		rc = run_queued(ctx, 1u << 31);
	if (!rc && (rc = cmdq_split_end(ctx->q, &s, &err)))
		ctx_fail_with(ctx, &err, 0);
	if (rc) {
		char why[VTA_ERROR_MSG_MAX];
		snprintf(why, sizeof why, "%s", ctx->err.msg);
		ctx_fail(ctx, rc, "automatic synchronize (the queue was full): %s", why);
	}
	return rc;
}

/* After a call that appended: run what is queued if the queue is nearly
 * full. */
static int make_room(vta_context_t *ctx)
{
	return cmdq_nearly_full(ctx->q) ? split_run(ctx) : VTA_OK;
}

/* The end of a call that queued: err recorded (and the program poisoned)
 * on failure, else room made. */
static int queued(vta_context_t *ctx, int rc, const vta_error_t *err)
{
	return rc ? ctx_fail_with(ctx, err, 1) : make_room(ctx);
}

int ctx_dep(vta_context_t *ctx, int push, int from, int to)
{
	vta_error_t err;
	int rc = cmdq_dep(ctx->q, push, from, to, push ? "VTADepPush" : "VTADepPop", &err);
	return queued(ctx, rc, &err);
}

int ctx_load_2d(vta_context_t *ctx, const void *h, uint32_t elem_offset, uint32_t x_size,
		uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before,
		uint32_t x_pad_after, uint32_t y_pad_after, uint32_t sram_index, uint32_t type)
{
	vta_error_t err;
	int rc = cmdq_load_2d(ctx->q, ctx->dev, h, elem_offset, x_size, y_size, x_stride,
			      x_pad_before, y_pad_before, x_pad_after, y_pad_after, sram_index, type,
			      &err);
	return queued(ctx, rc, &err);
}

int ctx_store_2d(vta_context_t *ctx, uint32_t sram_index, uint32_t type, const void *h,
		 uint32_t elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride)
{
	vta_error_t err;
	int rc = cmdq_store_2d(ctx->q, ctx->dev, sram_index, type, h, elem_offset, x_size, y_size,
			       x_stride, &err);
	return queued(ctx, rc, &err);
}

int ctx_push_op(vta_context_t *ctx, int mode, void **slot, int (*finit)(void *), void *sig,
		int nbytes)
{
	vta_error_t err;
	vta_error_clear(&err);
	int rc = uops_push_op(ctx->u, ctx->q, ctx->dev, mode, slot, finit, sig, nbytes, &err);
	if (rc == UOPS_STAGING_FULL) {
		/* This program has staged 1 MiB of micro-ops: run what is queued. */
		if ((rc = split_run(ctx)))
			return rc;
		rc = uops_push_op(ctx->u, ctx->q, ctx->dev, mode, slot, finit, sig, nbytes, &err);
	}
	return queued(ctx, rc, &err);
}

int ctx_synchronize(vta_context_t *ctx, uint32_t wait_cycles)
{
	if (uops_recording(ctx->u))
		return ctx_fail(ctx, VTA_EINVAL, "VTASynchronize: called from a micro-op kernel callback");
	const vta_error_t *poison = cmdq_poisoned(ctx->q);
	if (poison) {
		int code = poison->code ? poison->code : VTA_EINVAL;
		ctx_error(ctx, code, "VTASynchronize: the program was discarded because an earlier call "
			  "failed: %s", poison->msg);
		cmdq_reset(ctx->q, ctx->dev);
		uops_reset_window(ctx->u);
		return code;
	}
	return run_queued(ctx, wait_cycles);
}

int ctx_run(vta_context_t *ctx, uint64_t insn_pa, uint32_t n, uint32_t wait_cycles,
	    vta_error_t *err)
{
	return rtdev_run(ctx->dev, insn_pa, n, wait_cycles, err);
}

int vta_context_last_stream(vta_context_t *ctx, const uint8_t **bytes, size_t *count)
{
	if (!ctx_valid(ctx))
		return VTA_EINVAL;
	return cmdq_last_stream(ctx->q, ctx->dev, bytes, count);
}

/* ---- Device memory --------------------------------------------------------- */

void *ctx_mem_alloc(vta_context_t *ctx, size_t size, int cached, uint64_t *pa, vta_error_t *err)
{
	Mem *m = rtdev_mem(ctx->dev);
	int flags = cached ? 0 : MEM_UNCACHED;
	size_t off;
	if (mem_alloc(m, size, flags, "VTAMemAlloc", &off, err))
		return NULL;
	if (pa)
		*pa = rtdev_dev(ctx->dev)->dram_pa + off;
	return mem_cpu(m, off, flags);
}

void ctx_mem_free(vta_context_t *ctx, void *p)
{
	Mem *m = rtdev_mem(ctx->dev);
	int64_t off = mem_window_off(m, p);
	if (off >= 0)
		mem_free_user(m, (size_t)off);
}

int ctx_mem_sync(vta_context_t *ctx, int flush, const void *p, size_t n, vta_error_t *err)
{
	Mem *m = rtdev_mem(ctx->dev);
	int64_t off = mem_window_off(m, p);
	MemBlock b;
	mem_lock(m);
	long i = off < 0 ? -1 : mem_find_range(m, (uint64_t)off, n, &b);
	mem_unlock(m);
	if (i < 0)
		return vta_error_set(err, VTA_EINVAL, -1, "%zu bytes at %p are not in one live buffer "
				     "of the %s device", n, p, rtdev_dev(ctx->dev)->be->name);
	if (!n || (b.flags & MEM_UNCACHED))
		return VTA_OK;
	return rtdev_sync(ctx->dev, flush, (size_t)off, n, err);
}

/* ---- Information ---------------------------------------------------------- */

int vta_context_last_run(vta_context_t *ctx, vta_counters_t *out)
{
	memset(out, 0, sizeof *out);
	if (!ctx_valid(ctx))
		return VTA_EINVAL;
	rtdev_lock(ctx->dev);
	*out = rtdev_dev(ctx->dev)->last;
	rtdev_unlock(ctx->dev);
	return VTA_OK;
}

int vta_context_info(vta_context_t *ctx, vta_device_info_t *info)
{
	memset(info, 0, sizeof *info);
	if (!ctx_valid(ctx))
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
	info->insns_queued = cmdq_total(ctx->q);
	return VTA_OK;
}
