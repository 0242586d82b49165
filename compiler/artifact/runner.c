/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running a loaded artifact: the device image copied into buffers of the
 * runtime (VTAMemAlloc), one per segment of the image (ir/kernel.h), the DRAM
 * addresses of the LOAD/STORE instructions relocated into them, each kernel run with VTADeviceRun on the context's backend and
 * the rest of the graph on the host.
 */
#include <stdlib.h>
#include <string.h>
#include <vta/runtime.h>

#include "artifact/artifact.h"

struct vc_runner {
	vc_module *m;
	vta_context_t *ctx;
	VTADeviceHandle dev;
	int n_seg;
	uint8_t **seg;          /* host view of each segment */
	vta_phy_addr_t *seg_pa; /* its physical address */
	uint64_t runs, cycles, gemm_uops;
};

/* Host and physical address of image offset off (placed by emit, so a
 * region starting there stays in the segment). */
static uint8_t *host_at(const vc_runner *r, int64_t off)
{
	return r->seg[off / VC_SEGMENT_BYTES] + off % VC_SEGMENT_BYTES;
}

static vta_phy_addr_t phys_at(const vc_runner *r, int64_t off)
{
	return r->seg_pa[off / VC_SEGMENT_BYTES] + (vta_phy_addr_t)(off % VC_SEGMENT_BYTES);
}

/* Copy a host tensor into the image at off and make it visible to the device. */
static void to_device(vc_runner *r, int64_t off, const void *data, size_t bytes)
{
	memcpy(host_at(r, off), data, bytes);
	VTAFlushCache(host_at(r, off), phys_at(r, off), (int)bytes);
}

static int relocate(vc_module *m, vc_runner *r)
{
	for (int k = 0; k < m->n_kernels; k++) {
		vc_kernel *kn = m->kernels[k];
		for (int64_t i = 0; i < kn->insn_count; i++) {
			uint8_t *p = host_at(r, kn->insn_off + 16 * i);
			vta_insn_word_t w;
			vta_insn_t in;
			vta_insn_load(p, &w);
			vta_insn_decode(&w, &in);
			if (in.opcode != VTA_OPCODE_LOAD && in.opcode != VTA_OPCODE_STORE)
				continue;
			uint32_t eb = vta_mem_elem_bytes(in.memory_type);
			int64_t off = (int64_t)in.dram_base * eb;
			if (!eb || off >= m->stream->size)
				return vc_error(m, kn->node, "kernel %d instruction %lld: DRAM address outside the image", k,
						(long long)i);
			vta_phy_addr_t pa = phys_at(r, off);
			if (pa % eb || pa / eb > UINT32_MAX)
				return vc_error(m, kn->node, "kernel %d instruction %lld: cannot relocate", k, (long long)i);
			in.dram_base = (uint32_t)(pa / eb);
			vta_error_t err;
			if (vta_insn_encode(&in, &w, &err))
				return vc_error(m, kn->node, "relocating kernel %d: %s", k, err.msg);
			vta_insn_store(&w, p);
		}
	}
	return 0;
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
	int64_t size = m->stream ? m->stream->size : 0;
	if (size > 0) {
		r->n_seg = (int)((size + VC_SEGMENT_BYTES - 1) / VC_SEGMENT_BYTES);
		r->seg = calloc((size_t)r->n_seg, sizeof *r->seg);
		r->seg_pa = calloc((size_t)r->n_seg, sizeof *r->seg_pa);
		r->dev = VTADeviceAlloc();
		if (!r->seg || !r->seg_pa || !r->dev) {
			snprintf(err, n, "cannot allocate a VTA device: %s", vta_errmsg(r->ctx));
			goto fail;
		}
		for (int i = 0; i < r->n_seg; i++) {
			int64_t at = (int64_t)i * VC_SEGMENT_BYTES;
			size_t bytes = (size_t)(size - at < VC_SEGMENT_BYTES ? size - at : VC_SEGMENT_BYTES);
			if (!(r->seg[i] = VTAMemAlloc(bytes, VTA_NOT_CACHED))) {
				snprintf(err, n, "cannot allocate %zu bytes of device memory (buffer %d of %d, %lld bytes in all): %s",
					 bytes, i + 1, r->n_seg, (long long)size, vta_errmsg(r->ctx));
				goto fail;
			}
			r->seg_pa[i] = VTAMemGetPhyAddr(r->seg[i]);
			memcpy(r->seg[i], m->stream->image + at, bytes);
		}
		if (relocate(m, r)) {
			snprintf(err, n, "%s", m->diag.msg);
			goto fail;
		}
		for (int i = 0; i < r->n_seg; i++) {
			int64_t at = (int64_t)i * VC_SEGMENT_BYTES;
			VTAFlushCache(r->seg[i], r->seg_pa[i], (int)(size - at < VC_SEGMENT_BYTES ? size - at : VC_SEGMENT_BYTES));
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
	for (int i = 0; r->seg && i < r->n_seg; i++)
		if (r->seg[i])
			VTAMemFree(r->seg[i]);
	free(r->seg);
	free(r->seg_pa);
	if (r->dev)
		VTADeviceFree(r->dev);
	vta_context_bind(NULL);
	vta_context_close(r->ctx);
	free(r);
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
	if (VTADeviceRun(r->dev, phys_at(r, kn->insn_off), (uint32_t)kn->insn_count, 1u << 30))
		return vc_error(m, n, "run: kernel %d failed on the device: %s", kn->id, vta_errmsg(r->ctx));
	r->runs++;
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
