/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Code generation for VTA: the kernel and stream passes and what they share.
 *
 *   plan.c    the geometry of a convolution in blocks of the target and the
 *             choice of a tiling that fits the SRAMs and ISA fields (also the
 *             capability check of partition)
 *   tile.c    tile: a tiling per kernel
 *   lower.c   lower: the tile loop nest as VTA instructions and micro-ops
 *   tokens.c  tokens: dependency tokens between load, compute and store
 *   emit.c    emit: one device memory image, instructions encoded
 *
 * The structure the hardware needs (DMA shapes, loop factors, ALU opcodes)
 * is constructed directly from the tile plan; nothing is pattern matched
 * back out of loops.
 */
#ifndef VC_CODEGEN_H
#define VC_CODEGEN_H

#include <string.h>

#include "ir/kernel.h"
#include "pass/pass.h"

/* The shape of a convolution as the VTA sees it (blocks of the target). */
typedef struct vc_geom {
	int64_t nb, cib, h, w;  /* input: batch blocks, channel blocks, rows, columns */
	int64_t cob, kh, kw;    /* output channel blocks, kernel */
	int64_t oh, ow, sh, sw; /* output size, strides */
	int64_t pt, pl, pb, pr; /* padding */
	int res;                /* a residual is added (its tile takes ACC space) */
	int leaky;              /* a leaky ReLU: one more ACC region, shared with the residual's */
	int kb;                 /* ACC rows of bias a block: 1, or per-channel 2 (+1 with a residual) */
	int dw;                 /* depthwise: output block b reads input block b only, through
				 * diagonal weight blocks (cib == cob, one weight block a tap) */
	int res_gemm;           /* the residual added by a GEMM with weights res_weight = 2^(shift -
				 * res_pre) times the identity, the residual loaded into INP (no
				 * ACC region), after the accumulators are shifted right by
				 * res_pre (exact: the requantization's shift is res_pre less) */
	int res_weight, res_pre;
} vc_geom;
/* Geometry of a QCONV, QDENSE, QCONV_RQ or VTA_CONV node (for QCONV/QDENSE
 * the caller sets res and kb: they belong to the requant after it). */
int vc_geom_of(const vc_target *t, const vc_node *n, vc_geom *g);
/* Micro-ops apart that two writing one ACC row must be for the second not to
 * wait for the first (the GEMM pipeline's depth behind S1). */
#define VC_HAZARD_SPAN 3
/* Output columns per GEMM micro-op group: the least divisor of ow that, with
 * tco output blocks (th*ow rows apart), puts VC_HAZARD_SPAN micro-ops between
 * writes of a row and whose micro-ops write all four ACC banks (row % 4), so
 * an ALU instruction running beside the GEMM finds a free bank every cycle. */
int64_t vc_column_group(int64_t tco, int64_t th, int64_t ow);
/* A 1x1 kernel with a row stride and no row padding: the rows between
 * output rows are never read, so a tile loads only the rows it reads. */
int vc_skips_rows(const vc_geom *g);
/* The plan analysis (VC_AN_PLAN): vc_kernel_plan's answer for a kernel. */
typedef struct vc_plan {
	int ok;
	vc_tiling tiling; /* ok: the best fitting tiling by the quick estimate */
	char why[200];    /* !ok: why none fits */
} vc_plan;
/* analyses.c: the compiler's analyses, registered with the pass manager
 * through vc_vta_analyses (their ids are the indices). */
enum {
	VC_AN_LIVENESS,     /* module: last user of every node in program order */
	VC_AN_GEOMETRY,     /* per kernel: its vc_geom */
	VC_AN_PLAN,         /* per kernel: vc_plan, the tiling that fits, best by the quick estimate */
	VC_AN_CODE_SUMMARY, /* per kernel: instructions by opcode, micro-ops, tokens, micro-op executions */
	VC_AN_COUNT
};
extern const vc_analysis_desc vc_vta_analyses[VC_AN_COUNT];
/* Every analysis but the code summary (passes that write a kernel's code). */
#define VC_PRESERVES_NOT_CODE (VC_PRESERVES_ALL & ~VC_PRESERVES(VC_AN_CODE_SUMMARY))
/* A kernel pass's geometry and plan of its kernel from the run's analysis
 * manager (cached; computed now when not); NULL when out of memory. */
const vc_geom *vc_unit_geom(vc_module *m, const vc_unit *u);
const vc_plan *vc_unit_plan(vc_module *m, const vc_unit *u);
/* Does the tiling fit every SRAM (ping-pong halves, residency) and ISA field? */
int vc_tiling_fits(const vc_target *t, const vc_geom *g, const vc_tiling *tl);
/* The best tiling by vc_tiling_estimate; -1 with the reason in why when no
 * tiling fits. */
int vc_kernel_plan(const vc_target *t, const vc_geom *g, vc_tiling *out, char *why, size_t whyn);

/*
 * cost.c: a cycle model of the RTL running an instruction stream (the
 * tiler's cost function, the timeline of `vta profile`). The constants are
 * those of the RTL in hw/ at a DRAM latency (docs/compiler.md, "Cycle model").
 */
typedef struct vc_timing {
	int dram_latency;     /* cycles from a read burst's address to its first beat */
	int wr_latency;       /* cycles from a write burst's last beat to its response */
	int bus_bytes;        /* bytes per beat */
	int burst_beats;      /* beats per burst at most (bursts never cross 4 KiB) */
	int bursts_in_flight; /* read bursts the engine keeps outstanding */
	int insn_start;       /* cycles from an instruction's tokens to its work */
	int insn_end;         /* cycles from its work to its tokens pushed */
	int load_first;       /* cycles from a LOAD's start to its first burst address */
	int pipe;             /* GEMM/ALU pipeline fill and drain */
	int acc_banks;        /* register-mode ALU operands in one bank take two cycles */
	int store_extra;      /* cycles of a STORE besides its beats, rows and write latency */
	int token;            /* cycles from a push to a pop seeing it */
	int fetch_group;      /* instructions per fetch request */
	int fetch_in_flight;  /* fetch requests outstanding */
} vc_timing;
/* The DRAM latency the RTL harness models for the configuration's board
 * (docs/rtl.md, "DRAM model": PYNQ 24 cycles, Ultra96 48). */
#define VC_DRAM_LATENCY_PYNQ (strcmp(VTA_TARGET, "ultra96") ? 24 : 48)
void vc_timing_default(vc_timing *t);

typedef struct vc_cost {
	int64_t cycles; /* to FINISH; -1: the stream deadlocks */
	int64_t load_busy, gemm_busy, alu_busy, store_busy; /* working, token waits excluded */
	int64_t compute_load_busy; /* compute's UOP, ACC and ACC_8BIT loads */
	int64_t wait[4];   /* token-wait cycles of load, compute, store (indices 1..3) */
	int64_t dma_beats; /* beats read by fetch, load and compute */
	int insns;
} vc_cost;

/* One instruction in the timeline: its module (1 load, 2 compute, 3 store),
 * when it reached the head of its queue, started and pushed its tokens. */
typedef struct vc_cost_event {
	int module;
	int64_t wait_start, start, end;
} vc_cost_event;

/* Model n instructions; micro-op loads read uop_dram (n_uop_dram words,
 * indexed by the LOAD's dram_base). ev: NULL or n entries. 0 on success. */
int vc_cost_run(const vc_timing *tm, const vta_insn_t *code, int n, const uint32_t *uop_dram, int64_t n_uop_dram,
		vc_cost *out, vc_cost_event *ev);
/* The same for a lowered kernel with its tokens. */
int vc_cost_kernel(const vc_timing *tm, const vc_kernel *k, vc_cost *out, vc_cost_event *ev);

/* plan.c: a quick estimate of a tiling's cycles (compute and DMA overlapped
 * by the ping-pong halves; alu_ops ALU instructions a tile), and the `keep`
 * best tilings by it (with want's nonzero th, tco, tci when want is not
 * NULL), best first; their number. */
int64_t vc_tiling_estimate(const vc_target *t, const vc_geom *g, const vc_tiling *tl, const vc_timing *tm, int alu_ops);
#define VC_PLAN_KEEP 32
int vc_tiling_candidates(const vc_target *t, const vc_geom *g, const vc_timing *tm, int alu_ops, const vc_tiling *want,
			 vc_tiling *out, int keep);

/* lower.c: lower the kernel of geometry g with tiling tl (its code and micro-ops on the
 * heap when scratch, for the caller to free; else in the module); st (or
 * NULL) receives what it made. */
typedef struct vc_lower_stats {
	int64_t tiles, residual_tiles, leaky_tiles;
} vc_lower_stats;
int vc_lower_kernel(vc_module *m, vc_kernel *k, const vc_geom *g, const vc_tiling *tl, int scratch,
		    vc_lower_stats *st);
/* tokens.c: set the dependency flags of a lowered kernel; count receives their number. */
int vc_kernel_tokens(vc_module *m, vc_kernel *k, int64_t *count);

/* emit.c: alignment of every object in the device image (bytes). */
int64_t vc_arena_align(void);

extern const vc_pass_desc vc_pass_tile, vc_pass_lower, vc_pass_tokens, vc_pass_emit;

#endif /* VC_CODEGEN_H */
