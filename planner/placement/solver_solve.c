/* SPDX-License-Identifier: MIT */
/*
 * solver_solve.c - solver_solve(), every placement strategy behind one call:
 * the heuristics of solver_heuristics.c and the searches of solver_exact.c,
 * each reached through a table by name, its answer checked by solver_check()
 * before it is returned.  The top of placement: nothing in it calls this
 * file but the callers above (the plan, the budget strategies, compare).
 */
#include "solver.h"

#include <string.h>
#include <time.h>

/* The searches, after the heuristics of solver_heuristics.c. */
static const struct search {
	const char *name, *about;
	int (*search)(const struct solver_problem *p,
		      const struct solver_options *opt, uint64_t *offsets,
		      struct solver_report *r, char *err, size_t errlen);
} searches[] = {
	{ "exact",
	  "branch and bound over canonical placements (MiniMalloc-style), anytime, proves optimality when it can",
	  solver_search_exact },
	{ "auto",
	  "the heuristics, then exact seeded with the best of them, until the lower bound or the time limit",
	  solver_search_auto },
};
#define NSEARCH (sizeof(searches) / sizeof(searches[0]))

static const struct search *search_find(const char *name)
{
	for (size_t i = 0; i < NSEARCH; i++)
		if (strcmp(searches[i].name, name) == 0)
			return &searches[i];
	return NULL;
}

const char *solver_name_at(size_t i)
{
	size_t nheur = 0;
	while (solver_strategy_at(nheur))
		nheur++;
	if (i < nheur)
		return solver_strategy_at(i)->name;
	return i - nheur < NSEARCH ? searches[i - nheur].name : NULL;
}

const char *solver_name_about(const char *name)
{
	const struct solver_strategy *s = solver_strategy_find(name);
	if (s)
		return s->about;
	const struct search *q = search_find(name);
	return q ? q->about : NULL;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

int solver_solve(const struct solver_problem *p, const char *name,
		 const struct solver_options *opt, uint64_t *offsets,
		 struct solver_report *r, char *err, size_t errlen)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(r, 0, sizeof(*r));
	r->strategy = r->winner = name;
	if (!solver_name_about(name))
		return trace_seterr(err, errlen, SOLVER_ENOTFOUND,
			    "no strategy called '%s'", name);
	int rc = solver_problem_validate(p, err, errlen);
	if (rc)
		return rc;
	struct solver_options defaults = { 0 };
	if (!opt)
		opt = &defaults;
	const struct solver_strategy *s = solver_strategy_find(name);
	uint64_t h = 0;
	if (s)
		rc = s->place(p, offsets, &h, NULL, err, errlen);
	else
		rc = search_find(name)->search(p, opt, offsets, r, err, errlen);
	if (rc)
		return rc;
	char why[256];
	rc = solver_check(p, offsets, &h, why, sizeof(why));
	if (rc == SOLVER_EINVALID)
		return trace_seterr(err, errlen, SOLVER_EINVALID,
			    "internal error: strategy %s produced an invalid placement: %s",
			    r->winner, why);
	if (rc)
		return trace_seterr(err, errlen, rc, "%s", why);
	uint64_t lb = solver_lower_bound_aligned(p);
	for (size_t i = 0; i < p->n; i++)
		if (p->items[i].size > lb)
			lb = p->items[i].size;
	if (r->lower_bound < lb)
		r->lower_bound = lb;
	if (r->lower_bound > h)
		return trace_seterr(err, errlen, SOLVER_EINVALID,
			    "internal error: strategy %s claims a lower bound of %llu above its height %llu",
			    r->winner, (unsigned long long)r->lower_bound,
			    (unsigned long long)h);
	r->height = h;
	if (h == r->lower_bound)
		r->optimal = 1;
	r->seconds = seconds_since(&t0);
	return 0;
}
