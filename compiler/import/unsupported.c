/* SPDX-License-Identifier: Apache-2.0 */
/* The census of unsupported op types (unsupported.h). */
#include <stdio.h>
#include <string.h>

#include "import/unsupported.h"

/* vc_error keeps 767 bytes of text: the head (about 50), the list and its
 * end ("and N more", 15), "; " and the notes (at most 319) fit in that, so
 * the message is never cut. */
#define LIST_BUDGET 380

void vc_unsup_init(vc_unsup *u, const char *what)
{
	memset(u, 0, sizeof *u);
	u->what = what;
}

void vc_unsup_add(vc_unsup *u, const char *type, const char *name)
{
	char kept[sizeof u->t[0].type]; /* compared as kept, or a long type would never match itself */
	snprintf(kept, sizeof kept, "%s", type);
	int i = 0;
	while (i < u->n && strcmp(u->t[i].type, kept))
		i++;
	if (i == u->n) {
		if (u->n == VC_UNSUP_TYPES) {
			u->more = 1; /* the list says "and others" */
			return;
		}
		memcpy(u->t[i].type, kept, sizeof kept);
		u->n++;
	}
	if (u->t[i].count < VC_UNSUP_NAMES)
		snprintf(u->t[i].names[u->t[i].count], sizeof u->t[i].names[0], "%s", name);
	u->t[i].count++;
}

void vc_unsup_note(vc_unsup *u, const char *note)
{
	if (strstr(u->notes, note))
		return;
	size_t k = strlen(u->notes);
	snprintf(u->notes + k, sizeof u->notes - k, "%s%s", k ? "; " : "", note);
}

int vc_unsup_report(vc_module *m, const vc_unsup *u, const char *kind)
{
	if (!u->n && !u->notes[0])
		return 0;
	char list[LIST_BUDGET + 160];
	int k = 0, shown = 0;
	list[0] = 0;
	for (; shown < u->n; shown++) {
		/* at most 2 + 71 + 23 + what + 3 x (2 + 39) + 6 bytes: e holds an entry whole */
		char e[256];
		int c = u->t[shown].count, w = snprintf(e, sizeof e, "%s%s (%d %s%s: ", shown ? ", " : "", u->t[shown].type,
							    c, u->what, c == 1 ? "" : "s");
		for (int j = 0; j < c && j < VC_UNSUP_NAMES && w < (int)sizeof e; j++)
			w += snprintf(e + w, sizeof e - (size_t)w, "%s%s", j ? ", " : "", u->t[shown].names[j]);
		if (w < (int)sizeof e)
			snprintf(e + w, sizeof e - (size_t)w, "%s)", c > VC_UNSUP_NAMES ? ", ..." : "");
		if (k + strlen(e) > LIST_BUDGET)
			break;
		k += snprintf(list + k, sizeof list - (size_t)k, "%s", e);
	}
	if (u->more) /* how many is not known */
		snprintf(list + k, sizeof list - (size_t)k, ", and others");
	else if (shown < u->n)
		snprintf(list + k, sizeof list - (size_t)k, ", and %d more", u->n - shown);
	if (!u->n)
		return vc_error(m, NULL, "%s", u->notes);
	return vc_error(m, NULL, "%s%d %s type%s %s not supported: %s%s%s", u->more ? "more than " : "", u->n, kind,
			u->n == 1 && !u->more ? "" : "s", u->n == 1 && !u->more ? "is" : "are", list,
			u->notes[0] ? "; " : "", u->notes);
}
