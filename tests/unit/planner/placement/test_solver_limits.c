/* SPDX-License-Identifier: MIT */
/*
 * test_solver_limits.c - the exact search keeps to its limits on thousands
 * of buffers: a node costs counted work in proportion to the buffers it
 * scans (so a work budget means about the same time on 300 buffers as on
 * 3,000), and the undo trails, which grow with depth times neighbours, stop
 * the search at their share of the memory cap (SOLVER_STOP_MEMORY, the best
 * placement kept) instead of growing to gigabytes.  Counted in nodes and
 * bytes, never in seconds.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "solver.h"
#include "tap.h"

static char err[512];

/* A DL-shaped problem: long-lived buffers (weights, optimizer state) under
 * a stream of short ones, all one component; its optimum is found by one
 * dive of n nodes. */
static size_t deep(struct solver_item *it, size_t nlong, size_t nshort,
		   int64_t span)
{
	uint64_t s = 12345;
	size_t n = 0;
	for (size_t i = 0; i < nlong + nshort; i++) {
		s = s * 6364136223846793005u + 1442695040888963407u;
		uint64_t a = s >> 33;
		int64_t lo = 0, hi = span;
		uint64_t size = (1 + a % 63) * 512;
		if (i >= nlong) {
			lo = (int64_t)(a % (uint64_t)(span - 30));
			hi = lo + 5 + (int64_t)((a >> 8) % 25);
			size = (1 + (a >> 16) % 255) * 512;
		}
		it[n++] = (struct solver_item){ .size = size, .align = 1, .lower = lo,
						.upper = hi, .fixed_offset = SOLVER_FREE,
						.buffer = (int64_t)i };
	}
	return n;
}

int main(void)
{
	enum { NL = 300, NS = 2700 };
	struct solver_item *it = calloc(NL + NS, sizeof(*it));
	uint64_t *off = calloc(NL + NS, sizeof(*off));
	if (!it || !off)
		return 1;
	struct solver_problem p = { it, deep(it, NL, NS, 3000), NULL, 0 };
	struct solver_report r;
	char what[200];

	/* work: 3,000 buffers, a node costs 3,000 / 512 = 5 units */
	int rc = solver_search_exact_limits(&p, 1000, 0, off, &r, err, sizeof(err));
	snprintf(what, sizeof(what),
		 "a work budget of 1,000 on 3,000 buffers: at most 200 nodes (%" PRIu64 ")",
		 r.nodes);
	CHECK(rc == 0 && r.nodes <= 200 && r.nodes > 0, what);
	CHECK(r.stopped_by == SOLVER_STOP_WORK, "  ... and the work is what stopped it");

	/* memory: 16 MiB, 4 MiB a trail: the dive needs more */
	rc = solver_search_exact_limits(&p, 1000000, 16u << 20, off, &r, err, sizeof(err));
	snprintf(what, sizeof(what),
		 "trails capped at 4 MiB: the search stops for memory (%s after %" PRIu64 " nodes)",
		 solver_stop_name(r.stopped_by), r.nodes);
	CHECK(rc == 0 && r.stopped_by == SOLVER_STOP_MEMORY, what);
	CHECK(rc == 0 && r.height >= r.lower_bound && r.height > 0,
	      "  ... with a checked placement, the heuristic's or better");

	/* the default cap leaves room for the whole dive */
	rc = solver_search_exact_limits(&p, 1000000, 0, off, &r, err, sizeof(err));
	snprintf(what, sizeof(what),
		 "the default cap: the dive reaches the lower bound (%s, height %" PRIu64 " of %" PRIu64 ")",
		 solver_stop_name(r.stopped_by), r.height, r.lower_bound);
	CHECK(rc == 0 && r.optimal && r.height == r.lower_bound, what);
	free(it);
	free(off);
	return tap_done();
}
