/* SPDX-License-Identifier: MIT */
/*
 * frontier.h - the swap frontier of one trace on one link: budgets swept
 * from the lower bound without swaps downward, each swap strategy planned
 * and simulated at each budget (budget_plan_ctx()), and what each plan costs.
 * Used by memplan-plan frontier and tests/bench/bench_swap.c, so the
 * command and the bench measure the same thing.  Invariant: rows hold
 * strictly decreasing budgets, and a cell that fits has pool <= budget.
 */
#ifndef MEMPLAN_FRONTIER_H
#define MEMPLAN_FRONTIER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "link.h"
#include "solver.h"
#include "trace.h"

/* One strategy at one budget. */
struct frontier_cell {
	int fits;          /* 1: budget_plan_ctx() found a plan within the budget */
	uint64_t pool;     /* the plan's pool (0 when it does not fit) */
	double overhead;   /* predicted overhead, percent (sim_overhead) */
	double iter_ns, stall_ns;
	size_t nswaps;
	uint64_t swapped;  /* bytes swapped out, each swap once */
	double seconds, cpu_seconds; /* the whole budget_plan_ctx() call: wall, CPU */
};

/* One budget: percent of the lower bound without swaps, and in bytes. */
struct frontier_row {
	double percent;
	uint64_t budget;
	struct frontier_cell *cells; /* one per strategy, in frontier order */
};

/* Called after each budget (row) is done, e.g. to show progress. */
struct frontier;
typedef void frontier_progress_fn(void *ctx, const struct frontier *f,
				  size_t row);

struct frontier_options {
	const char *const *strategies; /* swap strategy names; NULL: all */
	size_t nstrategies;
	double from;        /* first budget, percent (0, 100]; 0 means 100 */
	double step;        /* percent between budgets (> 0); 0 means 5 */
	double to;          /* stop at or below this percent (>= 0) */
	const char *placer; /* placement strategy; NULL means best-fit */
	uint64_t align;     /* the alignment already raised in the problem */
	frontier_progress_fn *progress; /* NULL: quiet */
	void *progress_ctx;
};

struct frontier {
	uint64_t lb_noswap;      /* the problem's lower bound without swaps */
	double base_ns;          /* the trace's iteration (0 if never simulated) */
	struct link_model link;
	const char **strategies; /* static names (the strategy table's) */
	size_t nstrategies;
	struct frontier_row *rows;
	size_t nrows;
	double seconds, cpu_seconds; /* the whole sweep */
};

/*
 * Sweeps trace t (finished, with GPU timestamps) and its problem p
 * (solver_problem_from_trace, alignment raised) over link l: budgets from
 * o->from percent of the lower bound down by o->step while above o->to,
 * ending after the first budget where no strategy fits (that row is kept).
 * Every strategy is planned at every budget, whether or not it fitted at
 * the one before.  Returns 0 and *f (free with frontier_free); or
 * TRACE_EINVAL (a trace swap planning cannot use: no timestamps, abstract
 * times), SOLVER_ENOTFOUND (an unknown strategy or placer), TRACE_ENOMEM,
 * each with a sentence in err; *f is then empty.
 */
int frontier_sweep(const struct trace *t, const struct solver_problem *p,
		   const struct link_model *l, const struct frontier_options *o,
		   struct frontier *f, char *err, size_t errlen);
void frontier_free(struct frontier *f);

/* The index of strategy name in f, or -1. */
int frontier_strategy_index(const struct frontier *f, const char *name);

/*
 * The smallest pool strategy s reaches with a predicted overhead of at
 * most max_overhead percent (INFINITY: any), and in *row the row (may be
 * NULL); 0 when no budget qualifies.
 */
uint64_t frontier_smallest(const struct frontier *f, size_t s,
			   double max_overhead, size_t *row);

/*
 * Does strategy s dominate the others?  *compared counts the budgets where
 * at least one other strategy fits; *lost those of them where s does not
 * fit, or predicts more overhead than another that fits (beyond 1e-9
 * percent); *first_lost gets the first such row (unchanged if none).
 * Returns *lost == 0 (1: dominated at every budget compared).
 */
int frontier_dominates(const struct frontier *f, size_t s, size_t *compared,
		       size_t *lost, size_t *first_lost);

/* A proven bound drawn under the frontier (swapbound.h): no plan of kind
 * with a predicted overhead of at most pct[i] percent has a pool below
 * bytes[i]; pct ascending, bytes 0 where it was not computed. */
struct frontier_bound_curve {
	const char *kind; /* "swap", "recompute" or "hybrid" */
	size_t n;
	const double *pct;
	const uint64_t *bytes;
};

/*
 * Draws f as one SVG document on out: predicted overhead (y, percent) over
 * the pool (x, bytes), a polyline with markers per strategy, the 1% and 2%
 * overhead levels and the no-swap lower bound marked, axes with ticks and a
 * legend; with bc (may be NULL), the region no plan of its kind can reach
 * shaded left of its staircase.  title is escaped.  Returns 0, or -1 when
 * out reports a write error or memory runs out (frontier_svg.c).
 */
int frontier_write_svg(FILE *out, const struct frontier *f, const char *title,
		       const struct frontier_bound_curve *bc);

#endif
