/* SPDX-License-Identifier: MIT */
/*
 * solver_greedy.c - the "greedy-size" strategy (TFLite's greedy by size):
 * items by size descending, ties by longer lifetime then index, each at the
 * lowest offset free of every already placed item it meets in time.
 */
#include "occupancy.h"
#include "solver.h"


static void greedy_keys(const struct solver_problem *p, int which,
			struct solver_order_key *keys)
{
	(void)which;
	for (size_t i = 0; i < p->n; i++) {
		const struct solver_item *it = &p->items[i];
		uint64_t dur = (uint64_t)it->upper - (uint64_t)it->lower;
		keys[i] = (struct solver_order_key){ ~it->size, ~dur, 0,
						     (uint32_t)i };
	}
}

int solver_place_greedy(const struct solver_problem *p, uint64_t *offsets,
			uint64_t *height, char *err, size_t errlen)
{
	return solver_place_orders(p, greedy_keys, 1, SOLVER_FIT_LOWEST,
				   offsets, height, err, errlen);
}
