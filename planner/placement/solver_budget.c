/* SPDX-License-Identifier: MIT */
/*
 * solver_budget.c - the budget a search spends (solver.h): the clock and
 * the counted work of compile --deterministic, shared by every phase of
 * auto, and the names of the reasons a search ends.  In work mode nothing
 * here reads the clock unless a time limit was also given.
 */
#include "solver.h"

#include <math.h>

const char *solver_stop_name(int stop)
{
	static const char *const names[] = {
		[SOLVER_STOP_HEURISTIC] = "heuristic",
		[SOLVER_STOP_LOWER_BOUND] = "lower_bound",
		[SOLVER_STOP_OPTIMAL] = "optimal",
		[SOLVER_STOP_TIME] = "time",
		[SOLVER_STOP_WORK] = "work",
		[SOLVER_STOP_MEMORY] = "memory",
		[SOLVER_STOP_SKIPPED] = "skipped",
	};
	if (stop < 0 || (size_t)stop >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[stop];
}

void solver_budget_init(struct solver_budget *b,
			const struct solver_options *opt)
{
	clock_gettime(CLOCK_MONOTONIC, &b->t0);
	b->work = 0;
	b->work_limit = opt->work_limit;
	b->stop = 0;
	b->cancel = NULL;
	if (opt->time_limit > 0)
		b->deadline = opt->time_limit;
	else if (opt->work_limit)
		b->deadline = HUGE_VAL; /* deterministic: work only */
	else
		b->deadline = SOLVER_DEFAULT_TIME_LIMIT;
}

double solver_budget_elapsed(const struct solver_budget *b)
{
	if (b->cancel && atomic_load_explicit(b->cancel, memory_order_relaxed))
		return HUGE_VAL; /* every deadline has passed */
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - b->t0.tv_sec) +
	       (double)(t.tv_nsec - b->t0.tv_nsec) / 1e9;
}

int solver_budget_spend(struct solver_budget *b, uint64_t units,
			int check_clock)
{
	b->work = units > UINT64_MAX - b->work ? UINT64_MAX : b->work + units;
	if (b->stop)
		return 1;
	if (b->work_limit && b->work > b->work_limit)
		b->stop = SOLVER_STOP_WORK;
	else if (check_clock && b->deadline != HUGE_VAL &&
		 solver_budget_elapsed(b) >= b->deadline)
		b->stop = SOLVER_STOP_TIME;
	return b->stop != 0;
}

uint64_t solver_budget_work_left(const struct solver_budget *b)
{
	if (!b->work_limit)
		return UINT64_MAX;
	return b->work < b->work_limit ? b->work_limit - b->work : 0;
}
