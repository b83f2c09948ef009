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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int solver_place_bestfit(const struct solver_problem *p, uint64_t *offsets,
			 uint64_t *height, char *err, size_t errlen)
{
	int rc = solver_problem_validate(p, err, errlen);
	if (rc)
		return rc;
	size_t n = p->n ? p->n : 1;
	struct solver_order_key *keys = malloc(n * sizeof(*keys));
	uint32_t *order = malloc(n * sizeof(*order));
	uint64_t *trial = malloc(n * sizeof(*trial));
	struct solver_occupancy *o =
		keys && order && trial ? solver_occupancy_new(p) : NULL;
	if (!o) {
		free(keys);
		free(order);
		free(trial);
		if (err && errlen)
			snprintf(err, errlen, "out of memory placing %zu buffers",
				 p->n);
		return SOLVER_ENOMEM;
	}
	uint64_t best = UINT64_MAX;
	for (int w = 0; w < ORDER_COUNT && rc == 0; w++) {
		uint64_t h = 0;
		make_keys(p, orders[w], keys);
		solver_order_sort(keys, p->n, order);
		rc = solver_occupancy_run(o, order, p->n, SOLVER_FIT_BEST, trial,
					  &h, err, errlen);
		if (rc == 0 && h < best) {
			best = h;
			memcpy(offsets, trial, p->n * sizeof(*offsets));
		}
	}
	if (rc == 0)
		*height = best == UINT64_MAX ? 0 : best;
	solver_occupancy_free(o);
	free(keys);
	free(order);
	free(trial);
	return rc;
}
