/* SPDX-License-Identifier: MIT */
/*
 * solver_greedy.c - the greedy strategies that differ only in the order they
 * place items and the gap they choose, all on the occupancy engine:
 *  - "greedy-size" (TFLite's greedy by size, first fit): items by size
 *    descending, ties by longer lifetime then index, each at the lowest offset
 *    free of every already placed item it meets in time;
 *  - "best-gap" (TFLite's greedy by size with best gap): the same order, each
 *    item in the smallest gap it fits among every gap left by the placed
 *    items it meets, else on top of them;
 *  - "best-gap-rows" (the order of idealloc's boxing, then best gap): sizes
 *    descending, and within one size the rows of an interval-graph colouring
 *    (items of a row never meet, so a row stacks like one item), then start.
 */
#include "occupancy.h"
#include "solver.h"

#include <stdlib.h>
#include <string.h>


static int greedy_keys(const struct solver_problem *p, int which,
		       struct solver_order_key *keys)
{
	(void)which;
	for (size_t i = 0; i < p->n; i++) {
		const struct solver_item *it = &p->items[i];
		uint64_t dur = (uint64_t)it->upper - (uint64_t)it->lower;
		keys[i] = (struct solver_order_key){ ~it->size, ~dur, 0,
						     (uint32_t)i };
	}
	return 0;
}

int solver_place_greedy(const struct solver_problem *p, uint64_t *offsets,
			uint64_t *height, const struct solver_budget *stop,
			char *err, size_t errlen)
{
	return solver_place_orders(p, greedy_keys, 1, SOLVER_FIT_LOWEST,
				   stop, offsets, height, err, errlen);
}

int solver_place_bestgap(const struct solver_problem *p, uint64_t *offsets,
			 uint64_t *height, const struct solver_budget *stop,
			 char *err, size_t errlen)
{
	return solver_place_orders(p, greedy_keys, 1, SOLVER_FIT_BEST_ALL,
				   stop, offsets, height, err, errlen);
}

/* --- rows: idealloc's boxing as an order -------------------------------- */

/* Flips the sign bit so that signed times sort as unsigned. */
static uint64_t time_key(int64_t t)
{
	return (uint64_t)t ^ (UINT64_C(1) << 63);
}

/* A binary min-heap of (key, value) pairs. */
struct heap {
	uint64_t *k;
	uint32_t *v;
	size_t n;
};

static void heap_push(struct heap *h, uint64_t k, uint32_t v)
{
	size_t i = h->n++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (h->k[up] < k || (h->k[up] == k && h->v[up] <= v))
			break;
		h->k[i] = h->k[up];
		h->v[i] = h->v[up];
		i = up;
	}
	h->k[i] = k;
	h->v[i] = v;
}

static void heap_pop(struct heap *h)
{
	uint64_t k = h->k[--h->n];
	uint32_t v = h->v[h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && (h->k[c + 1] < h->k[c] ||
				     (h->k[c + 1] == h->k[c] && h->v[c + 1] < h->v[c])))
			c++;
		if (k < h->k[c] || (k == h->k[c] && v <= h->v[c]))
			break;
		h->k[i] = h->k[c];
		h->v[i] = h->v[c];
		i = c;
	}
	h->k[i] = k;
	h->v[i] = v;
}

/*
 * Keys (size descending, row, start, index), where row is the colour an
 * optimal interval-graph colouring of the items of that size gives (by
 * start, each into the lowest row free at its start).  Holes are ignored:
 * the order only guides the placement.  SOLVER_ENOMEM when out of memory
 * (another order would give another plan in silence).
 */
static int rows_keys(const struct solver_problem *p, int which,
		     struct solver_order_key *keys)
{
	size_t n = p->n;
	struct heap busy = { malloc((n + 1) * sizeof(uint64_t)),
			     malloc((n + 1) * sizeof(uint32_t)), 0 };
	struct heap idle = { malloc((n + 1) * sizeof(uint64_t)),
			     malloc((n + 1) * sizeof(uint32_t)), 0 };
	uint32_t *order = malloc((n + 1) * sizeof(*order));
	int rc = 0;
	(void)which;
	if (!busy.k || !busy.v || !idle.k || !idle.v || !order) {
		rc = SOLVER_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct solver_item *it = &p->items[i];
		keys[i] = (struct solver_order_key){ ~it->size,
						     time_key(it->lower), 0,
						     (uint32_t)i };
	}
	solver_order_sort(keys, n, order);
	for (size_t a = 0, b; a < n; a = b) {
		uint64_t size = p->items[order[a]].size;
		uint32_t rows = 0;
		busy.n = idle.n = 0;
		for (b = a; b < n && p->items[order[b]].size == size; b++) {
			const struct solver_item *it = &p->items[order[b]];
			/* rows whose item ended by this start are free again */
			while (busy.n && busy.k[0] <= time_key(it->lower)) {
				heap_push(&idle, busy.v[0], busy.v[0]);
				heap_pop(&busy);
			}
			uint32_t row;
			if (idle.n) {
				row = idle.v[0];
				heap_pop(&idle);
			} else {
				row = rows++;
			}
			uint64_t end = it->upper > it->lower ? time_key(it->upper)
							     : time_key(it->lower);
			heap_push(&busy, end, row);
			keys[b] = (struct solver_order_key){
				~size, row, time_key(it->lower), order[b] };
		}
	}
out:
	free(busy.k);
	free(busy.v);
	free(idle.k);
	free(idle.v);
	free(order);
	return rc;
}

int solver_place_rows(const struct solver_problem *p, uint64_t *offsets,
		      uint64_t *height, const struct solver_budget *stop,
		      char *err, size_t errlen)
{
	return solver_place_orders(p, rows_keys, 1, SOLVER_FIT_BEST_ALL,
				   stop, offsets, height, err, errlen);
}
