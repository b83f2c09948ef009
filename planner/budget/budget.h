/* SPDX-License-Identifier: MIT */
/*
 * budget.h - every strategy that fits a trace into a budget, behind one
 * name: the swap choosers (swap.h: memplan, singa, vdnn) and the strategies
 * that recompute (recompute.h: recompute, hybrid, sqrt-n, every-layer).  The top of planner/budget/:
 * compile, frontier and the benches call it; swap_plan.c and
 * recompute_plan.c never call it (hybrid composes swap plans itself).
 */
#ifndef MEMPLAN_BUDGET_H
#define MEMPLAN_BUDGET_H

#include "recompute.h"
#include "swap.h"

/* The strategy called name: a swap chooser (swap_strategy_find()), or one
 * that recomputes (its choose is NULL); NULL for an unknown name.  Only the
 * swap choosers are listed by swap_strategy_at(): the defaults of frontier
 * and memplan's safety net stay the swap choosers. */
const struct swap_strategy *budget_strategy_find(const char *name);

/*
 * swap_plan_ctx() for the swap choosers, recomp_plan_ctx() for recompute
 * and hybrid: the plan for a pool of at most budget bytes, verified and
 * simulated, the caller's on success.  Returns what they return;
 * SOLVER_ENOTFOUND, with the five names, for an unknown strategy.
 */
int budget_plan_ctx(const struct swap_ctx *c, const char *name,
		    uint64_t budget, const char *placer, uint64_t align,
		    struct mp_plan *plan, struct sim_result *sim,
		    struct swap_outcome *oc, char *err, size_t errlen);

/* budget_plan_ctx() on a context it builds (swap_ctx_init()) and frees:
 * swap_ctx_init()'s and swap_plan_ctx()'s
 * arguments, any of the five strategies. */
int budget_plan(const struct trace *t, const struct solver_problem *p,
		const struct link_model *l, const char *name, uint64_t budget,
		const char *placer, uint64_t align, struct mp_plan *plan,
		struct sim_result *sim, struct swap_outcome *oc, char *err,
		size_t errlen);

#endif
