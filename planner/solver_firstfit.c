/* SPDX-License-Identifier: MIT */
/*
 * solver_firstfit.c - the "first-fit" strategy: items in allocation order
 * (by lower, then index), each at the lowest offset free of every item placed
 * before it, which is what a naive offset pool does at run time.  The
 * baseline every other strategy is compared with.
 */
#include "occupancy.h"
#include "solver.h"

#include <stdio.h>
#include <stdlib.h>

int solver_place_firstfit(const struct solver_problem *p, uint64_t *offsets,
			  uint64_t *height, char *err, size_t errlen)
{
	int rc = solver_problem_validate(p, err, errlen);
	if (rc)
		return rc;
	struct solver_order_key *keys = malloc((p->n ? p->n : 1) * sizeof(*keys));
	uint32_t *order = malloc((p->n ? p->n : 1) * sizeof(*order));
	struct solver_occupancy *o = keys && order ? solver_occupancy_new(p) : NULL;
	if (!o) {
		free(keys);
		free(order);
		if (err && errlen)
			snprintf(err, errlen, "out of memory placing %zu buffers",
				 p->n);
		return SOLVER_ENOMEM;
	}
	for (size_t i = 0; i < p->n; i++)
		/* flip the sign bit so that signed times sort as unsigned */
		keys[i] = (struct solver_order_key){
			(uint64_t)p->items[i].lower ^ (UINT64_C(1) << 63), 0, 0,
			(uint32_t)i };
	solver_order_sort(keys, p->n, order);
	rc = solver_occupancy_run(o, order, p->n, SOLVER_FIT_LOWEST, offsets,
				  height, err, errlen);
	solver_occupancy_free(o);
	free(keys);
	free(order);
	return rc;
}
