/* SPDX-License-Identifier: Apache-2.0 */
/*
 * For the compiler's tests: do two modules write the same artifact bytes?
 * (Two routes through the pipeline that must meet: text round trips, kernel
 * groupings, analyses kept or recomputed.) 0 also when either does not write.
 */
#ifndef VC_TEST_SAME_ARTIFACT_H
#define VC_TEST_SAME_ARTIFACT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "artifact/artifact.h"

static inline int same_artifact(vc_module *a, vc_module *b)
{
	uint8_t *x = NULL, *y = NULL;
	size_t lx = 0, ly = 0;
	int same = !vc_artifact_bytes(a, &x, &lx) && !vc_artifact_bytes(b, &y, &ly) && lx == ly && lx > 0 &&
		   !memcmp(x, y, lx);
	free(x);
	free(y);
	return same;
}

#endif
