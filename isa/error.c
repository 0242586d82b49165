/* SPDX-License-Identifier: Apache-2.0 */
/* Error codes and messages (include/vta/error.h). */
#include <stdarg.h>
#include <stdio.h>

#include <vta/error.h>

const char *vta_strerror(int code)
{
	switch (code) {
	case VTA_OK: return "success";
	case VTA_EINVAL: return "invalid argument";
	case VTA_ERANGE: return "value or address out of range";
	case VTA_EILLEGAL: return "illegal instruction";
	case VTA_EDEADLOCK: return "deadlock";
	case VTA_ETOKEN: return "dependency-token queue overflow";
	case VTA_ENOMEM: return "out of memory";
	case VTA_EIO: return "input/output error";
	case VTA_ETIMEOUT: return "timeout";
	case VTA_EUNSUPPORTED: return "not supported";
	default: return "unknown error";
	}
}

const char *vta_status_name(int code)
{
	switch (code) {
	case VTA_OK: return "VTA_OK";
	case VTA_EINVAL: return "VTA_EINVAL";
	case VTA_ERANGE: return "VTA_ERANGE";
	case VTA_EILLEGAL: return "VTA_EILLEGAL";
	case VTA_EDEADLOCK: return "VTA_EDEADLOCK";
	case VTA_ETOKEN: return "VTA_ETOKEN";
	case VTA_ENOMEM: return "VTA_ENOMEM";
	case VTA_EIO: return "VTA_EIO";
	case VTA_ETIMEOUT: return "VTA_ETIMEOUT";
	case VTA_EUNSUPPORTED: return "VTA_EUNSUPPORTED";
	default: return NULL;
	}
}

int vta_error_set(vta_error_t *err, int code, long insn_index, const char *fmt, ...)
{
	if (err) {
		err->code = code;
		err->insn_index = insn_index;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return code;
}

void vta_error_clear(vta_error_t *err)
{
	if (err) {
		err->code = VTA_OK;
		err->insn_index = -1;
		err->msg[0] = 0;
	}
}
