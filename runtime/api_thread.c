/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The calling thread's context: TVM's "TLS command handle", the target the
 * next one opens on, and the errors of calls that have no context
 * (include/vta/runtime.h).
 *
 * Per thread (`tls`): the thread's current context, whether the library
 * created it (and so must close it), the target chosen for the next one,
 * and the last error of a call that had no context to record it in.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api.h"

static _Thread_local struct {
	vta_context_t *ctx;
	int owned;        /* created by api_current, closed by VTARuntimeShutdown */
	char target[16];  /* vta_set_target; "" means $VTA_TARGET or fsim */
	vta_error_t err;  /* errors with no context to go to */
} tls;

static const char *default_target(void)
{
	return tls.target[0] ? tls.target : ctx_default_target();
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

int vta_context_open(const char *target, vta_context_t **out, vta_error_t *err)
{
	return ctx_open(target ? target : default_target(), out, err);
}

void vta_context_close(vta_context_t *ctx)
{
	if (!ctx_valid(ctx))
		return;
	if (tls.ctx == ctx) {
		tls.ctx = NULL;
		tls.owned = 0;
	}
	ctx_close(ctx);
}

int vta_context_bind(vta_context_t *ctx)
{
	if (ctx && !ctx_valid(ctx))
		return vta_error_set(&tls.err, VTA_EINVAL, -1, "vta_context_bind: not a VTA context");
	if (tls.ctx == ctx)
		return VTA_OK;
	if (tls.ctx && tls.owned)
		vta_context_close(tls.ctx);
	tls.ctx = ctx;
	tls.owned = 0;
	return VTA_OK;
}

vta_context_t *api_current(void)
{
	if (tls.ctx)
		return tls.ctx;
	vta_context_t *ctx;
	if (vta_context_open(NULL, &ctx, &tls.err)) {
		if (ctx_env_log_errors())
			fprintf(stderr, "vta: error: %s\n", tls.err.msg);
		return NULL;
	}
	tls.ctx = ctx;
	tls.owned = 1;
	return ctx;
}

vta_context_t *vta_context_current(void) { return api_current(); }

VTACommandHandle vta_context_command(vta_context_t *ctx) { return ctx; }

vta_context_t *api_cmd(VTACommandHandle cmd, const char *fn)
{
	if (ctx_valid(cmd))
		return cmd;
	if (tls.ctx)
		ctx_fail(tls.ctx, VTA_EINVAL,
			 "%s: %p is not a command handle (use VTATLSCommandHandle())", fn, cmd);
	else
		vta_error_set(&tls.err, VTA_EINVAL, -1,
			      "%s: %p is not a command handle (use VTATLSCommandHandle())", fn, cmd);
	return NULL;
}

VTACommandHandle VTATLSCommandHandle(void) { return api_current(); }

void VTARuntimeShutdown(void)
{
	if (tls.ctx && tls.owned)
		vta_context_close(tls.ctx);
}

/* ---- Errors ------------------------------------------------------------ */

int api_error(int code, const char *fmt, ...)
{
	char msg[VTA_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (tls.ctx)
		return ctx_error(tls.ctx, code, "%s", msg);
	vta_error_set(&tls.err, code, -1, "%s", msg);
	if (ctx_env_log_errors())
		fprintf(stderr, "vta: error: %s\n", tls.err.msg);
	return code;
}

int api_error_from(const char *what, const vta_error_t *err)
{
	if (tls.ctx)
		return ctx_error_from(tls.ctx, what, err);
	int rc = api_error(err->code ? err->code : VTA_EIO, "%s: %s", what, err->msg);
	tls.err.insn_index = err->insn_index;
	return rc;
}

int vta_errcode(const vta_context_t *ctx)
{
	const vta_context_t *c = ctx ? ctx : tls.ctx;
	if (c && ctx_last_error(c)->code)
		return ctx_last_error(c)->code;
	return ctx ? VTA_OK : tls.err.code;
}

const char *vta_errmsg(const vta_context_t *ctx)
{
	const vta_context_t *c = ctx ? ctx : tls.ctx;
	if (c && ctx_last_error(c)->code)
		return ctx_last_error(c)->msg;
	if (!ctx && tls.err.code)
		return tls.err.msg;
	return "no error";
}

void vta_clear_error(vta_context_t *ctx)
{
	vta_context_t *c = ctx ? ctx : tls.ctx;
	if (c)
		ctx_clear_error(c);
	if (!ctx)
		vta_error_clear(&tls.err);
}
