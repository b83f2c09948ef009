/* SPDX-License-Identifier: MIT */
/*
 * frontier.c - the swap frontier (frontier.h): budget_plan_ctx() for every
 * strategy at budgets falling from the lower bound without swaps, until no
 * strategy fits; then the figures read off it (smallest pool within an
 * overhead, whether one strategy dominates the others).  Budgets are
 * computed from their index, not by repeated subtraction, so a sweep at
 * 2.5% steps lands on the same budgets as `compile --budget 72.5%`.
 */
#include "frontier.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simulate.h"
#include "budget.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void frontier_free(struct frontier *f)
{
	for (size_t i = 0; f->rows && i < f->nrows; i++)
		free(f->rows[i].cells);
	free(f->rows);
	free(f->strategies);
	memset(f, 0, sizeof(*f));
}

int frontier_strategy_index(const struct frontier *f, const char *name)
{
	for (size_t s = 0; s < f->nstrategies; s++)
		if (strcmp(f->strategies[s], name) == 0)
			return (int)s;
	return -1;
}

/* The strategies of o, as the table's own names (so *f owns no string). */
static int pick_strategies(const struct frontier_options *o,
			   struct frontier *f, char *err, size_t errlen)
{
	size_t n = 0;
	if (o->strategies)
		n = o->nstrategies;
	else
		while (swap_strategy_at(n))
			n++;
	if (n == 0)
		return trace_seterr(err, errlen, SOLVER_ENOTFOUND,
				    "no swap strategy to sweep");
	f->strategies = malloc(n * sizeof(*f->strategies));
	if (!f->strategies)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const struct swap_strategy *st =
			o->strategies ? budget_strategy_find(o->strategies[i])
				      : swap_strategy_at(i);
		if (!st)
			return trace_seterr(err, errlen, SOLVER_ENOTFOUND,
					    "unknown swap strategy '%s'",
					    o->strategies[i]);
		f->strategies[f->nstrategies++] = st->name;
	}
	return 0;
}

/* One cell: rc 0 or SWAP_ENOFIT fill it; anything else is the sweep's error. */
static int plan_cell(const struct swap_ctx *sc, const char *name,
		     uint64_t budget, const char *placer, uint64_t align,
		     struct frontier_cell *c, double *base_ns, char *err,
		     size_t errlen)
{
	struct mp_plan plan;
	struct sim_result sim;
	struct swap_outcome oc;
	double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	int rc = budget_plan_ctx(sc, name, budget, placer, align, &plan, &sim,
			       &oc, err, errlen);
	c->seconds = clock_s(CLOCK_MONOTONIC) - w0;
	c->cpu_seconds = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	if (rc == SWAP_ENOFIT)
		return 0;
	if (rc)
		return rc;
	c->fits = 1;
	c->pool = plan.pool_size;
	c->overhead = sim_overhead(&sim);
	c->iter_ns = sim.iter_ns;
	c->stall_ns = sim.stall_ns;
	c->nswaps = oc.nops;
	c->swapped = oc.swapped;
	if (*base_ns == 0)
		*base_ns = sim.base_ns;
	mp_plan_free(&plan);
	sim_free(&sim);
	return 0;
}

int frontier_sweep(const struct trace *t, const struct solver_problem *p,
		   const struct link_model *l, const struct frontier_options *o,
		   struct frontier *f, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	double from = o->from > 0 ? o->from : 100.0;
	double step = o->step > 0 ? o->step : 5.0;
	const char *placer = o->placer ? o->placer : "best-fit";
	if (!(from <= 100.0) || !(o->to >= 0) || !(step <= 100.0))
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "the sweep needs 0 < from <= 100, 0 < step <= 100 and to >= 0 (percent)");
	if (!solver_name_about(placer))
		return trace_seterr(err, errlen, SOLVER_ENOTFOUND,
				    "unknown placement strategy '%s'", placer);
	struct swap_ctx sc = { 0 };
	f->link = *l;
	int rc = pick_strategies(o, f, err, errlen);
	if (rc)
		goto fail;
	/* What depends only on the trace is built once for every budget; a
	 * trace swap planning cannot use fails here, once, with the context's
	 * own sentence, before any budget is tried. */
	rc = swap_ctx_init(&sc, t, p, l, err, errlen);
	if (rc)
		goto fail;
	f->lb_noswap = solver_lower_bound(p);
	/* the number of budgets above the floor, bounded by the step */
	size_t cap = (size_t)floor((from - o->to) / step + 1e-9) + 1;
	if (from <= o->to)
		cap = 0;
	f->rows = calloc(cap ? cap : 1, sizeof(*f->rows));
	if (!f->rows) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
		goto fail;
	}
	double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	for (size_t k = 0; k < cap; k++) {
		double pct = from - (double)k * step;
		if (pct <= o->to + 1e-9 || pct <= 0)
			break;
		uint64_t budget = (uint64_t)((double)f->lb_noswap * pct / 100.0);
		/* steps finer than a byte of a tiny pool: one row per budget */
		if (f->nrows && budget >= f->rows[f->nrows - 1].budget)
			continue;
		struct frontier_row *r = &f->rows[f->nrows];
		r->percent = pct;
		r->budget = budget;
		r->cells = calloc(f->nstrategies, sizeof(*r->cells));
		if (!r->cells) {
			rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
			goto fail;
		}
		f->nrows++;
		int any = 0;
		for (size_t s = 0; s < f->nstrategies; s++) {
			rc = plan_cell(&sc, f->strategies[s], r->budget,
				       placer, o->align, &r->cells[s],
				       &f->base_ns, err, errlen);
			if (rc)
				goto fail;
			any |= r->cells[s].fits;
		}
		if (o->progress)
			o->progress(o->progress_ctx, f, f->nrows - 1);
		if (!any)
			break;
	}
	f->seconds = clock_s(CLOCK_MONOTONIC) - w0;
	f->cpu_seconds = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	swap_ctx_free(&sc);
	return 0;
fail:
	swap_ctx_free(&sc);
	frontier_free(f);
	return rc;
}

uint64_t frontier_smallest(const struct frontier *f, size_t s,
			   double max_overhead, size_t *row)
{
	uint64_t best = 0;
	for (size_t i = 0; i < f->nrows; i++) {
		const struct frontier_cell *c = &f->rows[i].cells[s];
		if (!c->fits || !(c->overhead <= max_overhead))
			continue;
		if (best == 0 || c->pool < best) {
			best = c->pool;
			if (row)
				*row = i;
		}
	}
	return best;
}

int frontier_dominates(const struct frontier *f, size_t s, size_t *compared,
		       size_t *lost, size_t *first_lost)
{
	*compared = *lost = 0;
	for (size_t i = 0; i < f->nrows; i++) {
		const struct frontier_cell *me = &f->rows[i].cells[s];
		int others = 0, worse = 0;
		for (size_t o = 0; o < f->nstrategies; o++) {
			const struct frontier_cell *c = &f->rows[i].cells[o];
			if (o == s || !c->fits)
				continue;
			others = 1;
			if (!me->fits || me->overhead > c->overhead + 1e-9)
				worse = 1;
		}
		*compared += others;
		if (worse) {
			if (*lost == 0)
				*first_lost = i;
			++*lost;
		}
	}
	return *lost == 0;
}
