/* SPDX-License-Identifier: MIT */
/*
 * alloc_clock.h - a trace as a memory pool sees it: which buffers a pool
 * holds, the allocator clock (the ordinal of alloc and free requests, which
 * capture and the runtime observe alike), the buffers' lifetimes on that
 * clock, the idle gaps between their uses, and the pool's lower bound.  These are facts
 * of the trace, not of a plan: the planner builds swaps on them, and analyze
 * derives the swap floor from the very same gaps.
 * Invariant: a gap [out_min, in_max] has at least one request strictly
 * inside, so that a swap-out, a hole and a swap-in can all sit in it.
 */
#ifndef MEMPLAN_ALLOC_CLOCK_H
#define MEMPLAN_ALLOC_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* 1 when a pool holds b: transient device memory (device or stream-ordered
 * pool); managed, host and mapped memory stay with their allocators. */
int trace_buffer_poolable(const struct trace_buffer *b);

/*
 * The lower bound of any pool for t's poolable buffers: the most bytes
 * resident at once on the trace clock, lifetimes half-open, holes taking
 * out all but their window.  Equals the planner's solver_lower_bound() of
 * the problem made from t.  Into *bound: 0, or TRACE_ENOMEM.
 */
int trace_pool_lower_bound(const struct trace *t, uint64_t *bound);

/* One change of resident bytes at a time, and the peak of a set of them:
 * sorted by time, what ends at t gone before what starts at t.  Sorts d. */
struct trace_delta {
	int64_t at;
	int64_t d;
};
uint64_t trace_delta_peak(struct trace_delta *d, size_t n);

/* The allocator clock of a finished trace: request k (alloc or free) is
 * event ev[k]; t[k] is its time (ns) on the trace's GPU timeline, never
 * going back. */
struct alloc_clock {
	uint32_t *ev;
	int64_t *t;
	size_t n;
	uint32_t *first_after;   /* per event index i: first k with ev[k] >= i
				    (nevents + 1 entries) */
	int64_t t_first, t_last; /* the iteration's span (ns) */
};

/*
 * Builds the clock of finished trace t.  Needs the seq clock and GPU
 * timestamps on the events (captured and synthetic traces have them;
 * imports may not).  Returns 0, or TRACE_EINVAL (with the reason as a
 * sentence) or TRACE_ENOMEM; free with alloc_clock_free() either way.
 */
int alloc_clock_build(struct alloc_clock *k, const struct trace *t,
		      char *err, size_t errlen);
void alloc_clock_free(struct alloc_clock *k);

/* The last request at or before time ns (0 if none). */
uint64_t alloc_clock_at(const struct alloc_clock *k, int64_t ns);
/* The first request of [lo, hi) starting after time ns, hi if none: the
 * search alloc_clock_at() makes over the whole clock, for a caller that
 * knows a narrower stretch holding the answer. */
size_t alloc_clock_after(const struct alloc_clock *k, int64_t ns, size_t lo,
			 size_t hi);

/* The lifetimes on the clock of buffers ids[0..n): lo[i] is the request of
 * the alloc, hi[i] that of the free (left as they are when the buffer has
 * no such event). */
void alloc_clock_lifetimes(const struct trace *t, const struct alloc_clock *k,
			   const int64_t *ids, size_t n, uint64_t *lo,
			   uint64_t *hi);

/* An idle gap: the stretch of a buffer between two consecutive uses. */
struct trace_gap {
	uint32_t item;            /* index in the caller's list of buffers */
	int64_t buffer;
	uint64_t bytes;
	uint32_t use_ev, next_ev; /* event indexes of the two uses */
	uint64_t out_min;         /* first request after the use */
	uint64_t in_max;          /* last request before the next use */
	int64_t t_idle, t_need;   /* end of the use, start of the next (ns) */
	uint8_t role;             /* the buffer's trace_role */
};

/* Fills g's t_idle and t_need from its uses, or where they have no time
 * from its out_min and in_max requests (a caller that narrows a gap calls
 * it again). */
void trace_gap_times(const struct trace *t, const struct alloc_clock *k,
		     struct trace_gap *g);

/*
 * The gaps of buffers ids[0..n) (each with at least one request strictly
 * inside; none for a buffer with holes in the trace, which the trace moves
 * already), item by item in list order, each item's in use order.  *gaps is
 * malloc'ed (the caller frees).  Returns 0 or TRACE_ENOMEM with a sentence.
 */
int trace_gaps(const struct trace *t, const struct alloc_clock *k,
	       const int64_t *ids, size_t n, struct trace_gap **gaps,
	       size_t *ngaps, char *err, size_t errlen);

#endif
