/* SPDX-License-Identifier: MIT */
/*
 * occupancy.h - the pool's occupancy over time, for the greedy strategies
 * (internal to planner/).  Items are placed one at a time in a caller-chosen
 * order, each at the lowest or the best-fitting offset that conflicts with no
 * item placed before it.  Holes and windows are honoured exactly.
 */
#ifndef MEMPLAN_OCCUPANCY_H
#define MEMPLAN_OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>

#include "solver.h"

/* Which free gap a new item goes into. */
enum solver_fit {
	SOLVER_FIT_LOWEST = 0, /* the lowest offset where it fits (first fit) */
	SOLVER_FIT_BEST = 1,   /* the tightest of the lowest SOLVER_BEST_GAPS
				  gaps where it fits, else the top */
	SOLVER_FIT_BEST_ALL = 2, /* the tightest of every gap where it fits,
				    else the top (TFLite's best gap) */
};

/*
 * Best fit looks at this many fitting gaps, lowest first, and takes the
 * tightest (a perfect fit stops the search).  Unbounded, one item costs a
 * scan of every free gap up to the top; on the MiniMalloc suite and the
 * generated traces 8 already gives the same heights as unbounded.
 */
#define SOLVER_BEST_GAPS 8

struct solver_occupancy;

/*
 * Prepares p (which must be valid) for one or more runs: cuts items into
 * pieces and compresses time.  Returns NULL when out of memory.
 */
struct solver_occupancy *solver_occupancy_new(const struct solver_problem *p);
void solver_occupancy_free(struct solver_occupancy *o);

/*
 * One greedy run: fixed items first (in index order, at their offsets), then
 * the items of order[0..norder) that are not fixed, each at the offset fit
 * chooses.  order must list every free item once.  Fills offsets[0..n) and
 * *height.  Returns 0, SOLVER_EINVAL when two fixed items conflict, or
 * SOLVER_ENOMEM, with a sentence in err.  Runs may be repeated with other
 * orders on the same object.
 */
int solver_occupancy_run(struct solver_occupancy *o, const uint32_t *order,
			 size_t norder, enum solver_fit fit, uint64_t *offsets,
			 uint64_t *height, char *err, size_t errlen);
/* The same, giving up with SOLVER_ESTOPPED once stop's deadline (or its
 * cancel flag) has passed, read every SOLVER_STOP_EVERY items; stop NULL:
 * solver_occupancy_run(). */
#define SOLVER_STOP_EVERY 256
int solver_occupancy_run_until(struct solver_occupancy *o,
			       const uint32_t *order, size_t norder,
			       enum solver_fit fit,
			       const struct solver_budget *stop,
			       uint64_t *offsets, uint64_t *height, char *err,
			       size_t errlen);

/* Sorting help for the strategies: ascending by (k1, k2, k3, index). */
struct solver_order_key {
	uint64_t k1, k2, k3;
	uint32_t index;
};

/* Sorts keys[0..n) and writes their indexes to order[0..n). */
void solver_order_sort(struct solver_order_key *keys, size_t n,
		       uint32_t *order);

/* Fills keys[0..p->n) for the which-th order of a strategy.  Returns 0, or
 * SOLVER_ENOMEM (an order needing memory of its own: never replaced by
 * another order, so that a problem's plan does not depend on the memory
 * the machine has left). */
typedef int solver_keys_fn(const struct solver_problem *p, int which,
			    struct solver_order_key *keys);

/*
 * The body of every greedy strategy: validates p, then for each of norders
 * orders (keys from make_keys, sorted) runs the occupancy engine with fit and
 * keeps the lowest placement in offsets and *height.  Returns 0 or a
 * negative SOLVER_* code with a sentence in err; SOLVER_ESTOPPED when stop
 * (NULL: none) ran out first (struct solver_strategy).
 */
int solver_place_orders(const struct solver_problem *p,
			solver_keys_fn *make_keys, int norders,
			enum solver_fit fit, const struct solver_budget *stop,
			uint64_t *offsets, uint64_t *height, char *err,
			size_t errlen);

#endif
