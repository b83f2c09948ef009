/* SPDX-License-Identifier: MIT */
/*
 * diff.h - two traces side by side (`memplan-analyze diff`): their report
 * figures, what is live at each peak by kind, role and label group, and
 * which buffers appeared, vanished or changed size.
 *
 * Buffers are matched by label and size where they have labels (the same
 * tensor in both runs), then by label alone (the same tensor, resized), and
 * unlabelled buffers by their order in each trace.
 */
#ifndef MEMPLAN_DIFF_H
#define MEMPLAN_DIFF_H

#include "report.h"

/* One buffer that is not the same in both traces. */
struct diff_buffer {
	int64_t a, b; /* buffer ids in A and B; TRACE_NONE where absent */
	uint64_t size_a, size_b;
};

/* One group's bytes live at each trace's peak. */
struct diff_group {
	char *name; /* owned */
	uint64_t a, b;
};

struct diff {
	size_t matched;
	struct diff_buffer *appeared, *vanished, *resized; /* most bytes first */
	size_t nappeared, nvanished, nresized;
	uint64_t appeared_bytes, vanished_bytes;
	int64_t resized_bytes; /* sum of size_b - size_a */
	/* largest change first */
	struct diff_group *by_kind, *by_role, *by_label;
	size_t nkind, nrole, nlabel;
};

/*
 * Compares trace a (report ra) with trace b (report rb) into d.  Returns 0,
 * or TRACE_ENOMEM with a sentence in err (d is then empty, safe to free).
 */
int diff_build(const struct trace *a, const struct report *ra,
	       const struct trace *b, const struct report *rb, struct diff *d,
	       char *err, size_t errlen);
void diff_free(struct diff *d);

/* Renderings (diff_print.c); top: rows per list, 0 for all. 0 or -1. */
int diff_print_text(FILE *f, const char *pa, const struct trace *a,
		    const struct report *ra, const char *pb,
		    const struct trace *b, const struct report *rb,
		    const struct diff *d, size_t top);
int diff_print_json(FILE *f, const char *pa, const struct trace *a,
		    const struct report *ra, const char *pb,
		    const struct trace *b, const struct report *rb,
		    const struct diff *d, size_t top);

#endif
