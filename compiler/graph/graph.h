/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Graph passes, one a file, in pipeline order:
 *
 *   canonicalize.c  conv/dense + constant add -> conv/dense with bias;
 *                   matmul by a constant -> dense
 *   fold_bn.c       conv -> batchnorm -> conv with scaled weights and bias
 *   fold_const.c    nodes whose inputs are all constants -> constants
 *   (quant/quantize.c comes here)
 *   partition.c     mark what runs on VTA by capability checks on each op
 *   fuse.c          qconv/qdense + requant (+ relu) -> one qconv.rq kernel op
 *   pack.c          VTA ops to the blocked layout (VTA-SPEC 2.6): weights and
 *                   biases packed once, channels padded, pack/unpack on every
 *                   edge that crosses the region boundary; one kernel function
 *                   per VTA op
 *
 * Every pass walks the graph in program order and rewrites through the
 * builder, so types stay valid without a re-typing step.
 */
#ifndef VC_GRAPH_H
#define VC_GRAPH_H

#include "pass/pass.h"

extern const vc_pass_desc vc_pass_canonicalize, vc_pass_fold_bn, vc_pass_fold_const, vc_pass_partition, vc_pass_fuse,
	vc_pass_pack;

#endif /* VC_GRAPH_H */
