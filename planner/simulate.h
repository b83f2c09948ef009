/* SPDX-License-Identifier: MIT */
/*
 * simulate.h - replays a trace's GPU timeline with a plan's swaps on a link
 * model: the compute stream in trace order, a D2H and an H2D copy lane,
 * and the waits the runtime must insert (a use waits for its swap-in, a
 * reuse of swapped-out bytes waits for the swap-out).  Used by
 * memplan-plan compile (every swap plan is simulated before it is written).  Invariant: with an infinitely fast link the
 * simulated iteration equals the trace's, with no stall.
 */
#ifndef MEMPLAN_SIMULATE_H
#define MEMPLAN_SIMULATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "link.h"
#include "plan.h"
#include "trace.h"

/* What happened to one swap of the plan (times in ns from iteration start). */
struct sim_swap {
	double d2h_start, d2h_end;
	double h2d_start, h2d_end;
	double need;    /* when the next use wanted to start; -1: no later use */
	double slack;   /* need - h2d_end: > 0 early, < 0 the use stalled */
	double stall;   /* compute time lost waiting for this swap */
	int64_t next_event; /* event index of the next use, or -1 */
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
 * Simulates plan on finished trace t (the plan must pass planfile_verify
 * against t) over link l.  Returns 0 and *r (free with sim_free), or
 * TRACE_EINVAL (no timestamps, a plan that does not match) or TRACE_ENOMEM
 * with a sentence in err; *r is empty on failure.
 */
int sim_run(const struct trace *t, const struct mp_plan *plan,
	    const struct link_model *l, struct sim_result *r, char *err,
	    size_t errlen);
void sim_free(struct sim_result *r);

/* Predicted overhead in percent: 100 * (iter - base) / base. */
double sim_overhead(const struct sim_result *r);

/*
 * Draws r (from sim_run on t and plan) as one SVG document on f: three
 * lanes over time (compute with its stalls, D2H, H2D) and the resident
 * pool bytes below, with the plan's pool and the peak without swaps
 * marked.  The element count is bounded by the picture's width, whatever
 * the trace's size.  title is escaped.  Returns 0, or -1 when f reports a
 * write error (simulate_svg.c).
 */
int sim_write_svg(FILE *f, const struct mp_plan *plan,
		  const struct sim_result *r, const char *title);

#endif
