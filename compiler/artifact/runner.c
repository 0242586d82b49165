/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running a loaded artifact: the device image copied into buffers of the
 * runtime, one per segment, the DRAM addresses of the LOAD/STORE
 * instructions relocated into them (libvta's runtime/model/segments.c, as
 * the model API does), each kernel run with VTADeviceRun on the context's
 * backend and the rest of the graph on the host by the compiler's reference.
 */
#include <stdlib.h>
#include <string.h>
#include <vta/runtime.h>

#include "artifact/artifact.h"
#include <vta/model/segments.h>

struct vc_runner {
	vc_module *m;
	vta_context_t *ctx;
	VTADeviceHandle dev;
	vta_mseg_t seg; /* libvta's: the image in device buffers */
	uint64_t runs, cycles, gemm_uops;
	vta_counters_t *kernel; /* per kernel, the device's counters of its last run */
};

static uint8_t *host_at(const vc_runner *r, int64_t off)
{
	return vta_mseg_host(&r->seg, off);
}

static vta_phy_addr_t phys_at(const vc_runner *r, int64_t off)
{
	return vta_mseg_phys(&r->seg, off);
}

/* Copy a host tensor into the image at off and make it visible to the device. */
static void to_device(vc_runner *r, int64_t off, const void *data, size_t bytes)
{
	memcpy(host_at(r, off), data, bytes);
	VTAFlushCache(host_at(r, off), phys_at(r, off), (int)bytes);
}

vc_runner *vc_runner_open(vc_module *m, const char *target, char *err, size_t n)
{
	vc_runner *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, n, "out of memory");
		return NULL;
	}
	r->m = m;
	vta_error_t e;
	vta_error_clear(&e);
	if (vta_context_open(target, &r->ctx, &e)) {
		snprintf(err, n, "cannot open VTA target '%s': %s", target ? target : "(default)", e.msg);
		free(r);
		return NULL;
	}
	if (vta_context_bind(r->ctx)) {
		snprintf(err, n, "cannot bind the VTA context: %s", vta_errmsg(NULL));
		vta_context_close(r->ctx);
		free(r);
		return NULL;
	}
	r->kernel = calloc((size_t)(m->n_kernels ? m->n_kernels : 1), sizeof *r->kernel);
	if (!r->kernel) {
		snprintf(err, n, "out of memory");
		goto fail;
	}
	int64_t size = m->stream ? m->stream->size : 0;
	if (size > 0) {
		if (!(r->dev = VTADeviceAlloc())) {
			snprintf(err, n, "cannot allocate a VTA device: %s", vta_errmsg(r->ctx));
			goto fail;
		}
		if (vta_mseg_load(&r->seg, m->stream->image, size, 0, r->ctx, &e)) {
			snprintf(err, n, "%s", e.msg);
			goto fail;
		}
		for (int k = 0; k < m->n_kernels; k++)
			if (vta_mseg_relocate(&r->seg, (uint32_t)k, m->kernels[k]->insn_off, m->kernels[k]->insn_count, &e)) {
				snprintf(err, n, "%s", e.msg);
				goto fail;
			}
		if (vta_mseg_flush(&r->seg, r->ctx, &e)) {
			snprintf(err, n, "%s", e.msg);
			goto fail;
		}
	}
	return r;
fail:
	vc_runner_close(r);
	return NULL;
}

void vc_runner_close(vc_runner *r)
{
	if (!r)
		return;
	vta_context_bind(r->ctx); /* several runners may be open: act on ours */
	vta_mseg_free(&r->seg, r->ctx);
	free(r->kernel);
	if (r->dev)
		VTADeviceFree(r->dev);
	vta_context_bind(NULL);
	vta_context_close(r->ctx);
	free(r);
}

static void counters_diff(const vta_counters_t *a, const vta_counters_t *b, vta_counters_t *d)
{
	const uint64_t *x = (const uint64_t *)(const void *)a, *y = (const uint64_t *)(const void *)b;
	uint64_t *z = (uint64_t *)(void *)d;
	for (size_t i = 0; i < sizeof *d / sizeof(uint64_t); i++)
		z[i] = x[i] - y[i];
}

static int device_hook(void *ctx, vc_module *m, const vc_node *n, const vc_tensor *in, vc_tensor *out)
{
	vc_runner *r = ctx;
	const vc_node *x = n->in[0];
	vc_kernel *kn = n->a.kernel_id >= 0 && n->a.kernel_id < m->n_kernels ? m->kernels[n->a.kernel_id] : NULL;
	if (!kn || x->a.dev_off < 0 || n->a.dev_off < 0)
		return vc_error(m, n, "run: the kernel or its operands were not placed in device memory");
	size_t xb = vc_type_bytes(&x->type), yb = vc_type_bytes(&n->type);
	if (vta_context_bind(r->ctx))
		return vc_error(m, n, "run: cannot bind the runner's VTA context");
	to_device(r, x->a.dev_off, in[0].data, xb);
	if (n->n_in > 3) { /* the residual */
		const vc_node *res = n->in[3];
		size_t rb = vc_type_bytes(&res->type);
		if (res->a.dev_off < 0)
			return vc_error(m, n, "run: the residual operand was not placed in device memory");
		to_device(r, res->a.dev_off, in[3].data, rb);
	}
	vta_device_info_t before, after;
	memset(&before, 0, sizeof before);
	vta_context_info(r->ctx, &before);
	if (VTADeviceRun(r->dev, phys_at(r, kn->insn_off), (uint32_t)kn->insn_count, 1u << 30))
		return vc_error(m, n, "run: kernel %d failed on the device: %s", kn->id, vta_errmsg(r->ctx));
	r->runs++;
	memset(&after, 0, sizeof after);
	vta_context_info(r->ctx, &after);
	if (r->kernel) /* the context's counters accumulate: this run's are the difference */
		counters_diff(&after.counters, &before.counters, &r->kernel[kn->id]);
	if (m->progress) /* a long run (rtl) shows which kernel it is at */
		m->progress(m->progress_ctx, "VTA kernels", kn->id + 1, m->n_kernels);
	VTAInvalidateCache(host_at(r, n->a.dev_off), phys_at(r, n->a.dev_off), (int)yb);
	if (vc_tensor_alloc(out, &n->type))
		return vc_error(m, n, "out of memory");
	memcpy(out->data, host_at(r, n->a.dev_off), yb);
	return 0;
}

int vc_runner_run(vc_runner *r, const vc_tensor *inputs, vc_tensor *outputs)
{
	return vc_interp(r->m, inputs, outputs, NULL, device_hook, r);
}

int vc_runner_kernel_counters(vc_runner *r, int k, vta_counters_t *out)
{
	if (!r->kernel || k < 0 || k >= r->m->n_kernels)
		return -1;
	*out = r->kernel[k];
	return 0;
}

void vc_runner_stats(vc_runner *r, uint64_t *runs, uint64_t *cycles, uint64_t *gemm_uops)
{
	vta_device_info_t info;
	memset(&info, 0, sizeof info);
	vta_context_info(r->ctx, &info);
	if (runs)
		*runs = r->runs;
	if (cycles)
		*cycles = info.counters.cycles;
	if (gemm_uops)
		*gemm_uops = info.counters.gemm_uops;
}

int vc_simulate(vc_module *m, const vc_tensor *inputs, vc_tensor *outputs)
{
	return vc_interp(m, inputs, outputs, NULL, NULL, NULL);
}
