/* SPDX-License-Identifier: MIT */
/*
 * swapfloor.h - the swap floor: the fewest pool bytes that must stay
 * resident at once under any swap plan, even over an infinitely fast link,
 * when swaps start and stop only on the allocator clock.  A true lower bound
 * on the resident peak (hence on the pool) of every plan memplan-plan can
 * write, where the swappable room (report.h) is only a one-moment estimate.
 * Used by memplan-analyze summary and the swap benchmark.
 *
 * Definition.  The buffers are the pool's (trace_buffer_poolable():
 * transient device memory).  Step k is the time between allocator request k
 * and request k + 1 (alloc_clock.h; a buffer allocated at request lo and
 * freed at hi is live in steps lo .. hi-1).  A buffer's uses are its alloc,
 * every access and its free.  Between two consecutive uses, a plan may keep
 * it out over the steps [out + 1, next - 1), where
 *   - after an access a: out = the first request after a, next = the first
 *     request at or after the next use (a trace_gap's out_min and in_max + 1:
 *     the swap-out is issued after request out, the bytes are free from
 *     request out + 1, the swap-in is issued at in_max = next - 1 at the
 *     latest);
 *   - after the alloc: out = the alloc's own request (a plan's swap-out may
 *     be triggered by it, memplan-plan(5): lower <= out_at), which is one request
 *     earlier than the rule after an access would give.
 * A buffer with holes in the trace counts as away over every step one of
 * its holes touches (a lower bound: the trace moves part of it there).
 * A buffer used on more than one stream (trace_buffer_streams()) has no
 * other stretch: the planner never swaps nor recomputes it.
 * The floor is the maximum over steps of the bytes of the buffers live
 * there and in none of those stretches.
 */
#ifndef MEMPLAN_SWAPFLOOR_H
#define MEMPLAN_SWAPFLOOR_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

struct swap_floor {
	int computed;         /* 1: the figures below hold; 0: see why */
	int streamed;         /* not computed: the events were streamed (scan.h)
				 and only a whole trace has every access */
	char why[200];        /* why not computable (a clause, no full stop) */
	uint64_t bytes;       /* the floor */
	uint64_t lower_bound; /* the planner's lower bound without swaps */
	uint64_t request;     /* the floor binds right after this request */
	int64_t seq, time;    /* that request's event; time TRACE_TIME_NONE */
	size_t nbuffers;      /* buffers the pool holds */
	size_t unaccessed;    /* of them, buffers without any access */
};

/*
 * Computes the floor of finished trace t into f.  A trace it cannot judge
 * (no GPU timestamps or an abstract clock, as the allocator clock needs; no buffer for
 * the pool; accesses on fewer than half of the pool's buffers, which would
 * make every other one look idle from alloc to free) gives f->computed = 0
 * with the reason in f->why, and returns 0.  Returns TRACE_ENOMEM with a
 * sentence in err when out of memory.  O(n log n) in events and buffers.
 */
int swapfloor_compute(const struct trace *t, struct swap_floor *f, char *err,
		      size_t errlen);

/*
 * Like swapfloor_compute(), and also fills profile[k] (when not NULL,
 * nprofile >= the number of requests) with the bytes that must stay
 * resident in step k; *nreq gets the number of requests.
 */
int swapfloor_profile(const struct trace *t, struct swap_floor *f,
		      uint64_t *profile, size_t nprofile, size_t *nreq,
		      char *err, size_t errlen);

/* The ideal reduction 100 * (1 - bytes / lower_bound), in percent; NAN when
 * not computed or the lower bound is 0. */
double swapfloor_ideal_pct(const struct swap_floor *f);

/* Marks f not computed, with the reason (printf-style). */
void swapfloor_unknown(struct swap_floor *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
