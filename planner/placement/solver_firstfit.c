/* SPDX-License-Identifier: MIT */
/*
 * solver_firstfit.c - the "first-fit" strategy: items in allocation order
 * (by lower, then index), each at the lowest offset free of every item placed
 * before it, which is what a naive offset pool does at run time.  The
 * baseline every other strategy is compared with.
 */
#include "occupancy.h"
#include "solver.h"


static int firstfit_keys(const struct solver_problem *p, int which,
			 struct solver_order_key *keys)
{
	(void)which;
	for (size_t i = 0; i < p->n; i++)
		/* flip the sign bit so that signed times sort as unsigned */
		keys[i] = (struct solver_order_key){
			(uint64_t)p->items[i].lower ^ (UINT64_C(1) << 63), 0, 0,
			(uint32_t)i };
	return 0;
}

int solver_place_firstfit(const struct solver_problem *p, uint64_t *offsets,
			  uint64_t *height, const struct solver_budget *stop,
			  char *err, size_t errlen)
{
	return solver_place_orders(p, firstfit_keys, 1, SOLVER_FIT_LOWEST,
				   stop, offsets, height, err, errlen);
}
