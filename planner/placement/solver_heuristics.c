/* SPDX-License-Identifier: MIT */
/*
 * solver_heuristics.c - the table of placement heuristics: name, one line
 * about it, and its place() function (solver_firstfit.c, solver_greedy.c,
 * solver_bestfit.c).  The searches (solver_exact.c) seed from it and
 * solver_solve() reaches every strategy through it; it calls nothing above.
 */
#include "solver.h"

#include <string.h>

static const struct solver_strategy strategies[] = {
	{ "first-fit",
	  "allocation order, lowest free offset: a naive pool, the baseline",
	  solver_place_firstfit },
	{ "greedy-size",
	  "largest first, lowest fitting gap (TFLite greedy by size)",
	  solver_place_greedy },
	{ "best-fit",
	  "smallest fitting gap, best of size and duration orders (Zhang et al. 2019, XLA heap simulator)",
	  solver_place_bestfit },
	{ "best-gap",
	  "largest first, smallest fitting gap of all (TFLite greedy by size, best gap)",
	  solver_place_bestgap },
	{ "best-gap-rows",
	  "sizes descending in interval-colouring rows, smallest fitting gap (idealloc's boxing order)",
	  solver_place_rows },
};

const struct solver_strategy *solver_strategy_at(size_t i)
{
	return i < sizeof(strategies) / sizeof(strategies[0]) ? &strategies[i]
							     : NULL;
}

const struct solver_strategy *solver_strategy_find(const char *name)
{
	for (size_t i = 0; solver_strategy_at(i); i++)
		if (strcmp(strategies[i].name, name) == 0)
			return &strategies[i];
	return NULL;
}
