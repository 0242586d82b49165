/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VTA compiler's pipeline: the registry that hands the generic pass
 * manager (pass/) every pass of the compiler, its analyses and its named
 * pipelines (registry.c, the only file that knows all passes), and the
 * testing pass inject-fault (inject_fault.c).
 */
#ifndef VC_PIPELINE_H
#define VC_PIPELINE_H

#include <stdio.h>

#include "pass/pass.h"

extern const vc_registry vc_registry_vta;
extern const char *const vc_default_pipeline;
extern const vc_pass_desc vc_pass_inject_fault;

/* The pass manager's calls against vc_registry_vta. */
vc_pm *vc_pm_parse(const char *text, char *err, size_t n);
void vc_pass_list(FILE *f);
const vc_pass_desc *vc_pass_lookup(const char *name);
int vc_pass_count(void);
const vc_pass_desc *vc_pass_at(int i);
/* The text of a named pipeline ("vta-default", "float"), or NULL. */
const char *vc_pipeline_named(const char *name);

#endif /* VC_PIPELINE_H */
