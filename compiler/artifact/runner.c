/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running a loaded artifact: the device image copied into one buffer of the
 * runtime (VTAMemAlloc), the DRAM addresses of the LOAD/STORE instructions
 * relocated, each kernel run with VTADeviceRun on the context's backend and
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
	uint8_t *arena;
	vta_phy_addr_t phys;
	uint64_t runs, cycles, gemm_uops;
};

static int relocate(vc_module *m, uint8_t *arena, vta_phy_addr_t phys)
{
	for (int k = 0; k < m->n_kernels; k++) {
		vc_kernel *kn = m->kernels[k];
		for (int64_t i = 0; i < kn->insn_count; i++) {
			uint8_t *p = arena + kn->insn_off + 16 * i;
			vta_insn_word_t w;
			vta_insn_t in;
			vta_insn_load(p, &w);
			vta_insn_decode(&w, &in);
			if (in.opcode != VTA_OPCODE_LOAD && in.opcode != VTA_OPCODE_STORE)
				continue;
			uint32_t eb = vta_mem_elem_bytes(in.memory_type);
			if (!eb || phys % eb)
				return vc_error(m, kn->node, "kernel %d instruction %lld: cannot relocate", k, (long long)i);
			in.dram_base += (uint32_t)(phys / eb);
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
		if (size > VTA_MAX_XFER) {
			snprintf(err, n, "the model needs %lld bytes of device memory in one buffer (at most %d)",
				 (long long)size, VTA_MAX_XFER);
			goto fail;
		}
		r->dev = VTADeviceAlloc();
		r->arena = VTAMemAlloc((size_t)size, VTA_NOT_CACHED);
		if (!r->arena || !r->dev) {
			snprintf(err, n, "cannot allocate %lld bytes of device memory: %s", (long long)size,
				 vta_errmsg(r->ctx));
			goto fail;
		}
		r->phys = VTAMemGetPhyAddr(r->arena);
		memcpy(r->arena, m->stream->image, (size_t)size);
		if (relocate(m, r->arena, r->phys)) {
			snprintf(err, n, "%s", m->diag.msg);
			goto fail;
		}
		VTAFlushCache(r->arena, r->phys, (int)size);
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
	if (r->arena)
		VTAMemFree(r->arena);
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
	memcpy(r->arena + x->a.dev_off, in[0].data, xb);
	VTAFlushCache(r->arena + x->a.dev_off, r->phys + (vta_phy_addr_t)x->a.dev_off, (int)xb);
	if (n->n_in > 3) { /* the residual */
		const vc_node *res = n->in[3];
		size_t rb = vc_type_bytes(&res->type);
		if (res->a.dev_off < 0)
			return vc_error(m, n, "run: the residual operand was not placed in device memory");
		memcpy(r->arena + res->a.dev_off, in[3].data, rb);
		VTAFlushCache(r->arena + res->a.dev_off, r->phys + (vta_phy_addr_t)res->a.dev_off, (int)rb);
	}
	if (VTADeviceRun(r->dev, r->phys + (vta_phy_addr_t)kn->insn_off, (uint32_t)kn->insn_count, 1u << 30))
		return vc_error(m, n, "run: kernel %d failed on the device: %s", kn->id, vta_errmsg(r->ctx));
	r->runs++;
	VTAInvalidateCache(r->arena + n->a.dev_off, r->phys + (vta_phy_addr_t)n->a.dev_off, (int)yb);
	if (vc_tensor_alloc(out, &n->type))
		return vc_error(m, n, "out of memory");
	memcpy(out->data, r->arena + n->a.dev_off, yb);
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
