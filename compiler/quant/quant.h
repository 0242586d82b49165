/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Quantization: the compiler's own int8 with power-of-two scales.
 *
 *   quantize.c  the quantize pass: calibration on the samples the driver
 *               gives, then conv/dense -> qconv/qdense + requant, residual
 *               adds on the accumulator
 */
#ifndef VC_QUANT_H
#define VC_QUANT_H

#include "pass/pass.h"

extern const vc_pass_desc vc_pass_quantize;

#endif /* VC_QUANT_H */
