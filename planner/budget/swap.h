/* SPDX-License-Identifier: MIT */
/*
 * swap.h - choosing which buffers wait in host memory, and when, so that the
 * pool fits a budget: the idle gaps between uses (the candidates, on the
 * trace's allocator clock, alloc_clock.h), the swap strategies (vdnn,
 * singa, memplan), and swap_plan_ctx() that chooses, places with lifetime holes, simulates and builds
 * the plan.  Used by memplan-plan compile --budget and frontier.
 * Invariant: a swap's hole [hole_lo, in_at) lies strictly between the last
 * use before it and the next use after it, and out_at < hole_lo <= in_at.
 */
#ifndef MEMPLAN_SWAP_H
#define MEMPLAN_SWAP_H

#include <stddef.h>
#include <stdint.h>

#include "alloc_clock.h"
#include "link.h"
#include "plan.h"
#include "solver.h"
#include "trace.h"

/* swap_plan_ctx(): no set of swaps the strategy finds fits the budget. */
#define SWAP_ENOFIT (-8)

/*
 * Requests kept between a use and a swap around it.  The runtime sees the
 * allocation requests only; which kernels run between two of them may
 * differ from the trace (another run, another library version), so a
 * swap-out is triggered no earlier than SWAP_ORDER_MARGIN requests after
 * the first request following the buffer's last use, and a swap-in no later
 * than SWAP_ORDER_MARGIN requests before the last request preceding its
 * next use: a use may move across that many requests without meeting
 * borrowed bytes.  1 costs a little pool (memplan-plan(1), "Order between
 * requests"); 0 trusts the trace's order exactly.
 */
#define SWAP_ORDER_MARGIN 1
/* The margin swap_ctx_init() uses: SWAP_ORDER_MARGIN unless a program (a
 * benchmark or test measuring what the margin costs) sets it first. */
extern unsigned swap_order_margin;

/*
 * memplan's search of its chooser's knobs is counted, not timed: each
 * simulated candidate costs the trace's events, and the search stops once
 * SWAP_SEARCH_WORK of them are spent (twice that while nothing fits yet),
 * so a trace and budget give the same plan on any machine.  500,000 is
 * about 1.5 CPU seconds here (2-6 us an event).  swap_search_work is what
 * swap_plan_ctx() uses: SWAP_SEARCH_WORK unless a test sets it first.
 */
#define SWAP_SEARCH_WORK 500000
extern uint64_t swap_search_work;

/* A chosen swap, on the allocator clock. */
struct swap_op {
	uint32_t gap;     /* index into the context's gaps */
	uint64_t out_at;  /* swap-out issued right after this request */
	uint64_t hole_lo; /* others may use the bytes from this request on */
	uint64_t in_at;   /* swap-in issued right after this request */
};

/* Everything the strategies share about one trace and one link.  The
 * clock and the candidates (the idle gaps, whose item is the index in the
 * problem) are the trace's own (alloc_clock.h), less the gaps of buffers
 * used on more than one stream (trace_buffer_streams()), which stay
 * resident: the runtime orders a swap after the buffer's own stream alone. */
struct swap_ctx {
	const struct trace *t;
	const struct solver_problem *p; /* the trace's problem, no swap holes */
	struct link_model link;
	struct alloc_clock clock;
	struct trace_gap *gaps;
	size_t ngaps;
	uint64_t *item_lo, *item_hi; /* lifetimes of items on the clock */
};

/*
 * Builds the context of finished trace t and problem p (from
 * solver_problem_from_trace(t)).  Needs the seq clock and GPU timestamps on
 * the events (alloc_clock_build()).  Returns 0 or TRACE_EINVAL /
 * TRACE_ENOMEM with a sentence; free with swap_ctx_free() either way.
 */
int swap_ctx_init(struct swap_ctx *c, const struct trace *t,
		  const struct solver_problem *p, const struct link_model *l,
		  char *err, size_t errlen);
void swap_ctx_free(struct swap_ctx *c);
/* swap_ctx_init() with the order margin given: the bounds (swapfloor.c,
 * swapbound.c) use 0, so that they bound every plan, with or without it. */
int swap_ctx_init_margin(struct swap_ctx *c, const struct trace *t,
			 const struct solver_problem *p,
			 const struct link_model *l, unsigned margin,
			 char *err, size_t errlen);

/*
 * The resident bytes of the problem's items after each request (profile[k]
 * for k < clock.n) with the holes of ops taken out; *peak and *peak_at get
 * the maximum and its first request.  profile may be NULL.
 */
int swap_profile(const struct swap_ctx *c, const struct swap_op *ops,
		 size_t nops, uint64_t *profile, uint64_t *peak,
		 uint64_t *peak_at);

/* A strategy: chooses ops until the resident peak on the clock is at most
 * target.  *ops is malloc'ed (caller frees).  Returns 0, SWAP_ENOFIT (with
 * the ops it found, and a sentence), or TRACE_ENOMEM. */
struct swap_strategy {
	const char *name, *about;
	int (*choose)(const struct swap_ctx *c, uint64_t target,
		      struct swap_op **ops, size_t *nops, char *err,
		      size_t errlen);
};

const struct swap_strategy *swap_strategy_find(const char *name);
const struct swap_strategy *swap_strategy_at(size_t i);

int swap_choose_vdnn(const struct swap_ctx *c, uint64_t target,
		     struct swap_op **ops, size_t *nops, char *err,
		     size_t errlen);
int swap_choose_singa(const struct swap_ctx *c, uint64_t target,
		      struct swap_op **ops, size_t *nops, char *err,
		      size_t errlen);
int swap_choose_memplan(const struct swap_ctx *c, uint64_t target,
			struct swap_op **ops, size_t *nops, char *err,
			size_t errlen);

/*
 * The knobs of the memplan chooser that swap_plan_ctx() searches over.  penalty
 * (per gap, may be NULL): stall in ns to expect from the gap beyond what the
 * lane booking predicts, as a simulation saw it.  rank: 0, stall-free gaps
 * first, then the one that just covers the excess at the peak; 1, stall-free
 * first, then the most excess covered (over the stretch above the target
 * around the peak) per unit of link time; 2, the most excess covered per
 * unit of link time and stall (a stall counted four times); 3, as 2 with a
 * stall counted once and no lane booking (each copy as if alone: wide
 * holes, few bytes, for slow links).  swap_choose_memplan() is rank 0
 * without penalties or deadline.  When no gap can cover the peak, a chosen
 * swap whose gap spans it is widened over the stretch above the target.
 */
struct swap_knobs {
	const double *penalty;
	int rank;
	int fifo;        /* on a full-duplex link, with a booked rank: the
			    swap-outs as the simulator runs them, in issue
			    order, each chosen one pushing the holes of the
			    later ones back (fewer reuse stalls in the
			    forward pass, more bytes moved) */
	double allow;    /* with fifo: ns of compute the chooser lets wait for
			    the swap-outs (a hole opens this long before its
			    copy ends); once the stream has waited, every
			    later copy has that much more time, so the waits
			    add up to about this, not once per swap */
	double deadline; /* > 0: give up with SWAP_ENOFIT once this thread's
			    CPU time (CLOCK_THREAD_CPUTIME_ID, s) is past it */
	const struct swap_prep *prep; /* swap_prep_new() of the context, or
					 NULL: the chooser builds its own */
};
#define SWAP_RANKS 4
/* What the memplan chooser derives from a context alone (the gaps'
 * order, spans and copy times, the profile without swaps), for a caller
 * that calls it many times on one context; the same choices either way.
 * NULL when out of memory; swap_prep_free(NULL) does nothing. */
struct swap_prep;
struct swap_prep *swap_prep_new(const struct swap_ctx *c);
void swap_prep_free(struct swap_prep *pp);
int swap_choose_memplan_knobs(const struct swap_ctx *c, uint64_t target,
			      const struct swap_knobs *k,
			      struct swap_op **ops, size_t *nops, char *err,
			      size_t errlen);

/*
 * Re-issues the swap-outs of ops in the order their holes open (earliest
 * deadline first, ties by issue): each moved to one request after the
 * one before it in that order where that is later than its own and before
 * its hole_lo, else left where it was.  The lanes run copies in issue order, so a copy issued early but
 * needed late no longer holds up one needed sooner.  For a set of swaps
 * chosen without lane bookings (the exact search's, exact_plan.c).
 * Returns 1 when an issue moved, 0 when none did, -1 out of memory.
 */
int swap_issue_by_deadline(const struct swap_ctx *c, struct swap_op *ops,
			   size_t nops);

/*
 * A copy of c->p with the holes of ops added (on the trace clock), for the
 * placement solvers.  *q is hand-built: release it with swap_problem_free().
 */
int swap_problem_with_holes(const struct swap_ctx *c, const struct swap_op *ops,
			    size_t nops, struct solver_problem *q);
void swap_problem_free(struct solver_problem *q);

/*
 * The plan's swap entries for ops placed at offsets (of the problem's
 * items), with host staging slots assigned (no two swaps out at the same
 * time share a staging byte).  *out is malloc'ed, sorted by (request,
 * out_at) as the format requires; *staging gets the staging bytes needed.
 */
int swap_plan_entries(const struct swap_ctx *c, const struct swap_op *ops,
		      size_t nops, struct mp_plan_swap **out,
		      uint64_t *staging, char *err, size_t errlen);


/* --- the whole: choose, place, build, verify, simulate ---------------------- */

struct sim_result;

struct swap_outcome {
	size_t nops;          /* swaps in the plan */
	uint64_t swapped;     /* bytes swapped out (each swap once) */
	uint64_t target;      /* the resident peak the strategy aimed at last */
	uint64_t lb_noswap;   /* the trace's lower bound without swaps */
	unsigned attempts;    /* placements tried */
	double choose_s, place_s; /* seconds */
	unsigned candidates;  /* memplan: candidates its search simulated */
	uint64_t search_work; /* memplan: their events (swap_search_work) */
	const char *chooser;  /* the chooser whose swaps the plan holds (static
				 string: a strategy's name) */
};

/*
 * Plans the trace of context c (swap_ctx_init() of the trace, its problem,
 * alignment raised already, and the link; only read, so one context serves
 * many budgets and strategies) for a pool of at most budget bytes with swap
 * chooser name (memplan, singa or vdnn), placing with solver strategy
 * placer; verifies the plan and simulates it.  On success *plan and *sim
 * are the caller's (mp_plan_free, sim_free).  Returns 0; SWAP_ENOFIT when
 * the strategy finds no swaps that fit; SOLVER_ENOTFOUND for an unknown
 * strategy; TRACE_EINVAL, TRACE_ENOMEM; each with a sentence.  memplan
 * searches its chooser's knobs by simulation (counted: see
 * swap_search_work; far less on most of the zoo's traces), then places and
 * simulates the baselines' choices too unless a quick measure finds them
 * clearly slower; the least predicted time wins and oc->chooser names
 * whose swaps it holds.  budget_plan() (budget.h) builds the context and
 * offers the strategies that recompute as well.
 */
#define SWAP_MAX_ATTEMPTS 12
int swap_plan_ctx(const struct swap_ctx *c, const char *name,
		  uint64_t budget, const char *placer, uint64_t align,
		  struct mp_plan *plan, struct sim_result *sim,
		  struct swap_outcome *oc, char *err, size_t errlen);

#endif
