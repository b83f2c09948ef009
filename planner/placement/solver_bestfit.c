/* SPDX-License-Identifier: MIT */
/*
 * solver_bestfit.c - the "best-fit" strategy: each item goes into the
 * smallest free gap it fits among the placed items it meets in time (the
 * lifetime-aware pool of Zhang et al. 2019), else on top.  As XLA's heap
 * simulator does, it runs two orders (size-major, duration-major) and keeps
 * the lower height; ties go to the size-major answer.  An area-major order
 * was tried: it wins only F and H of the MiniMalloc suite and costs a run.
 */
#include "occupancy.h"
#include "solver.h"


enum { ORDER_SIZE, ORDER_DURATION, ORDER_AREA };

static const int orders[] = { ORDER_SIZE, ORDER_DURATION };
#define ORDER_COUNT (int)(sizeof(orders) / sizeof(orders[0]))

/* size * duration, saturated (descending order keys are complemented). */
static uint64_t area_of(uint64_t size, uint64_t dur)
{
	if (dur && size > UINT64_MAX / dur)
		return UINT64_MAX;
	return size * dur;
}

static void make_keys(const struct solver_problem *p, int which,
		      struct solver_order_key *keys)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct solver_item *it = &p->items[i];
		uint64_t dur = (uint64_t)it->upper - (uint64_t)it->lower;
		uint64_t s = ~it->size, d = ~dur, a = ~area_of(it->size, dur);
		struct solver_order_key k = { s, d, 0, (uint32_t)i };
		if (which == ORDER_DURATION)
			k = (struct solver_order_key){ d, s, 0, (uint32_t)i };
		else if (which == ORDER_AREA)
			k = (struct solver_order_key){ a, s, d, (uint32_t)i };
		keys[i] = k;
	}
}

static int bestfit_keys(const struct solver_problem *p, int which,
			struct solver_order_key *keys)
{
	make_keys(p, orders[which], keys);
	return 0;
}

int solver_place_bestfit(const struct solver_problem *p, uint64_t *offsets,
			 uint64_t *height, const struct solver_budget *stop,
			 char *err, size_t errlen)
{
	return solver_place_orders(p, bestfit_keys, ORDER_COUNT,
				   SOLVER_FIT_BEST, stop, offsets, height, err,
				   errlen);
}
