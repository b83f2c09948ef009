/* SPDX-License-Identifier: MIT */
/*
 * simulate.h - replays a trace's GPU timeline with a plan's swaps on a link
 * model: the compute stream in trace order, a D2H and an H2D copy lane,
 * and the waits the runtime must insert (a use waits for its swap-in, a
 * reuse of swapped-out bytes waits for the swap-out).  Used by
 * memplan-plan compile (every swap plan is simulated before it is written,
 * and its prediction recorded in the plan).  Invariant: with an infinitely
 * fast link the simulated iteration equals the trace's, with no stall.
 */
#ifndef MEMPLAN_SIMULATE_H
#define MEMPLAN_SIMULATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "link.h"
#include "plan.h"
#include "trace.h"

/*
 * What happened to one swap of the plan (times in ns from iteration start).
 * An event "wants" to start when it would if it waited for no swap (after
 * the delays inherited from earlier waits).  The swap-out is wanted by the
 * first allocation placed over its bytes before the swap-in (the runtime
 * makes that allocation wait), the swap-in by the buffer's next use.
 */
struct sim_swap {
	double d2h_start, d2h_end;
	double h2d_start, h2d_end;
	double need;    /* when the next use wanted to start; -1: no later use */
	double slack;   /* need - h2d_end: > 0 early, < 0 the use stalled */
	double stall;   /* compute time lost waiting for this swap (both ways) */
	int64_t next_event; /* event index of the next use, or -1 */
	double reuse;   /* when the first reusing allocation wanted to start; -1: none */
	double d2h_slack; /* reuse - d2h_end: > 0 early, < 0 the reuse stalled */
	int64_t reuse_event; /* event index of that allocation, or -1 */
};

/* One wait of the compute stream. */
struct sim_stall {
	uint32_t event; /* the event that waited */
	uint32_t swap;  /* the swap it waited for */
	uint8_t in;     /* 1: for a swap-in; 0: for a swap-out (reuse) */
	double at, ns;  /* when it waited, for how long */
};

struct sim_result {
	double base_ns;   /* the trace's iteration (first start to last end) */
	double iter_ns;   /* the simulated iteration */
	double stall_ns;  /* the sum of the waits */
	uint64_t peak;       /* most pool bytes resident at once (simulated) */
	uint64_t base_peak;  /* the same without swaps */
	uint64_t d2h_bytes, h2d_bytes;
	double link_busy_ns[2]; /* time each lane spent copying */
	struct sim_swap *swaps; /* one per plan swap */
	uint32_t nswaps;
	struct sim_stall *stalls;
	size_t nstalls;
	double *ev_start, *ev_end; /* per trace event, simulated */
	size_t nevents;
	/* resident pool bytes over time: a step function */
	double *mem_t;
	uint64_t *mem_v;
	size_t nmem;
};

/*
 * The span of event e as the replay takes it: a missing start is the
 * previous event's end (*prev), a missing end or one before the start is
 * the start.  *prev becomes the end.  Shared with the link bound
 * (swapbound.c), which must see the same timeline.
 */
static inline void sim_event_span(const struct trace_event *e, int64_t *prev,
				  int64_t *start, int64_t *end)
{
	int64_t s0 = e->t_start == TRACE_TIME_NONE ? *prev : e->t_start;
	int64_t e0 = e->t_end == TRACE_TIME_NONE || e->t_end < s0 ? s0 : e->t_end;
	*start = s0;
	*end = e0;
	*prev = e0;
}

/*
 * Simulates plan on finished trace t (the plan must pass planfile_verify
 * against t) over link l.  Returns 0 and *r (free with sim_free), or
 * TRACE_EINVAL (no timestamps, a plan that does not match) or TRACE_ENOMEM
 * with a sentence in err; *r is empty on failure.
 */
int sim_run(const struct trace *t, const struct mp_plan *plan,
	    const struct link_model *l, struct sim_result *r, char *err,
	    size_t errlen);
void sim_free(struct sim_result *r);

/*
 * Records r's prediction in plan's SWAP_TIMING (mp_plan_swap_timing): per
 * swap, both slacks and the stall, rounded to whole ns, and the flags for a
 * swap-in with no later use and bytes no allocation reuses.  r must come
 * from sim_run() on plan.  Replaces any timing plan had.  Returns 0;
 * TRACE_ENOMEM (-1), plan unchanged; or TRACE_EINVAL when r has another
 * number of swaps than plan, plan unchanged.
 */
int sim_attach_timing(struct mp_plan *plan, const struct sim_result *r);

/* Predicted overhead in percent: 100 * (iter - base) / base. */
double sim_overhead(const struct sim_result *r);

/*
 * Draws r (from sim_run on t and plan) as one SVG document on f: three
 * lanes over time (compute with its stalls, D2H, H2D) and the resident
 * pool bytes below, with the plan's pool and the peak without swaps
 * marked.  The element count is bounded by the picture's width, whatever
 * the trace's size.  title is escaped.  names, when not NULL, holds the
 * name of each swap's tensor (in plan->swaps order) for the tooltips.
 * Returns 0, or -1 when f reports a
 * write error (simulate_svg.c).
 */
int sim_write_svg(FILE *f, const struct mp_plan *plan,
		  const struct sim_result *r, const char *title,
		  const char *const *names);

#endif
