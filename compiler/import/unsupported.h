/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The op types of a model that an importer does not take, gathered over the
 * whole model before anything is built. One diagnostic then names all of
 * them, each with its count and first nodes: a user sees everything to
 * change at once, and no structural check of an op that would be refused
 * anyway speaks first (an LSTM's shapes, a SPLIT's outputs).
 */
#ifndef VC_IMPORT_UNSUPPORTED_H
#define VC_IMPORT_UNSUPPORTED_H

#include "ir/ir.h"

#define VC_UNSUP_TYPES 32 /* types kept; more are only counted */
#define VC_UNSUP_NAMES 3  /* node names kept per type */

typedef struct vc_unsup {
	const char *what; /* the things counted per type: "node", "operator", "section" */
	int n;            /* types kept */
	int more;         /* 1: further types did not fit */
	struct {
		char type[72];
		int count;
		char names[VC_UNSUP_NAMES][40];
	} t[VC_UNSUP_TYPES];
	char notes[320];  /* "; "-separated sentences after the list */
} vc_unsup;

void vc_unsup_init(vc_unsup *u, const char *what);
/* One more node of an unsupported type (name: the node's, for the message). */
void vc_unsup_add(vc_unsup *u, const char *type, const char *name);
/* A sentence said after the list, once however often it is given. */
void vc_unsup_note(vc_unsup *u, const char *note);
/* 0 when nothing was found; else -1 with one diagnostic:
 * "3 op types are not supported: LSTM (2 nodes: a, b), ...; NOTE". */
int vc_unsup_report(vc_module *m, const vc_unsup *u, const char *kind);

#endif /* VC_IMPORT_UNSUPPORTED_H */
