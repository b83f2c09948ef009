/* SPDX-License-Identifier: MIT */
/*
 * slice.h - cutting one iteration out of a trace of many: by named ranges
 * (marks), by a time window, or by the period of the allocation pattern,
 * detected automatically (training repeats the same requests every step).
 * Buffers live across a cut become persistent in the slice.
 */
#ifndef MEMPLAN_SLICE_H
#define MEMPLAN_SLICE_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/*
 * The repeating pattern of a trace's allocation requests (allocs and frees,
 * in order: the allocator clock), found by slice_detect().
 */
struct slice_period {
	int found;          /* 0: no iteration pattern (see slice_detect) */
	size_t requests;    /* allocs and frees in the trace */
	size_t period;      /* requests in one iteration */
	size_t run_first;   /* the periodic run: first request ... */
	size_t run_len;     /* ... and its length, >= 2 periods */
	size_t first;       /* request that starts iteration 1 (the point of a
			       period where the fewest bytes are live) */
	size_t iterations;  /* complete iterations from first */
	/*
	 * When found is 0 but a block of requests repeats inside one pass (a
	 * model's layers): its length, how often it repeats, and either the
	 * bytes each repetition hands to the next (its output, freed by the
	 * next) or, where kept is not 0, the bytes of its own allocations it
	 * leaves live (activations saved for a backward not in the trace).
	 */
	size_t block, block_repeats;
	uint64_t handoff, kept;
};

/*
 * Finds the smallest period p of the longest periodic run of requests (a
 * request is its kind and size) that repeats at least twice, covers at
 * least half of the requests, leaves the live bytes where they were after
 * each period (or covers nine tenths of the requests and frees within a
 * period at least half of the bytes it allocates: a leak keeps a little
 * each step, a forward pass's layers with autograd on keep most of what
 * they allocate for the backward, p->kept says how much), and hands almost
 * nothing from one period to the next: at some boundary, the bytes live
 * there and freed within the next period are at most 1/SLICE_HANDOFF_DIV
 * of that period's high (above what the whole run holds).  A training step
 * ends with only weights, gradients and optimizer state live; a layer
 * hands its output to the next layer, so the layers of one pass are not
 * taken for steps (p->block says so).  Returns 0 (p->found says whether
 * one was found) or TRACE_ENOMEM.  t must be finished.
 */
#define SLICE_HANDOFF_DIV 64
int slice_detect(const struct trace *t, struct slice_period *p);

/*
 * The events [*lo, *hi) of iteration n (1-based) of the detected period.
 * Events between the last request of one iteration and the first of the
 * next go to the earlier one, unless ranges begin among them after the
 * last one that ends there (then the next iteration starts at the first).  TRACE_EFORMAT with a sentence when
 * there is no pattern or no iteration n.
 */
int slice_iteration(const struct trace *t, const struct slice_period *p,
		    size_t n, size_t *lo, size_t *hi, char *err, size_t errlen);

/* Events of the n-th (1-based) range named name: its begin mark to its end
 * mark, inclusive.  TRACE_EFORMAT when there are fewer. */
int slice_range(const struct trace *t, const char *name, size_t n,
		size_t *lo, size_t *hi, char *err, size_t errlen);

/* How many complete ranges are named name. */
size_t slice_count_ranges(const struct trace *t, const char *name);

/* Events whose start time lies in [from, to) (an event without a time takes
 * the last time before it).  TRACE_EFORMAT if the trace has no time or the
 * window holds no event. */
int slice_time(const struct trace *t, int64_t from, int64_t to, size_t *lo,
	       size_t *hi, char *err, size_t errlen);

/*
 * A time a person types for --from-time/--to-time: a number with a unit
 * (ns, us, ms, s; "1ms", "250us", "2.5s"), an offset from the trace's first
 * timestamp, *relative set; or a bare integer, a timestamp of the trace's
 * own clock (ns), *relative clear.  Returns 0 and *v (ns), or -1.
 */
int slice_parse_time(const char *s, int64_t *v, int *relative);

/* What the trace's timestamps measure, for people: "GPU time", "wall-clock
 * time" (a snapshot's host timestamps), "modelled GPU time" (synth),
 * "abstract time units" (a MiniMalloc CSV), or "time of unknown kind". */
const char *slice_time_kind(const struct trace *t);

/* The first and last event start times; 0 when the trace has none. */
int slice_time_span(const struct trace *t, int64_t *first, int64_t *last);

/* ns as "12.345ms" (ns, us, ms or s, whichever reads best; as
 * --from-time takes it) into buf. */
const char *slice_format_ns(int64_t ns, char *buf, size_t len);

/*
 * A new finished trace of events [lo, hi) of t (sequence numbers start at
 * 0), with every buffer live during them: one allocated before lo becomes
 * live at start, one freed after hi live at end.  Accesses and holes inside
 * the window are kept; meta is copied and "slice" set to note.  Returns 0
 * and *out, or a negative trace_err with a sentence in err.
 */
int slice_cut(const struct trace *t, size_t lo, size_t hi, const char *note,
	      struct trace **out, char *err, size_t errlen);

#endif
