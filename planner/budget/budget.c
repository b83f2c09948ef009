/* SPDX-License-Identifier: MIT */
/*
 * budget.c - one entry for every budget strategy (budget.h): the swap
 * choosers through swap_plan_ctx(), recompute, hybrid and the checkpoint
 * baselines (sqrt-n, every-layer) through recomp_plan_ctx().  Composition runs one way: hybrid (recompute_plan.c)
 * asks swap_plan_ctx() for memplan's swaps on the program that recomputes,
 * and nothing below this file knows that the recomputing strategies exist.
 */
#include "budget.h"
#include "exact_plan.h"

#include <string.h>

static const struct swap_strategy recomputing[] = {
	{ "recompute", "recomputation only: the cheapest re-runs per byte freed, segments when single tensors cannot reach, or a checkpoint baseline if faster; no swaps", NULL },
	{ "hybrid", "per buffer keep, swap or recompute: the least predicted time of swap-only, recompute-only and mixes", NULL },
	{ "sqrt-n", "baseline: Chen et al.'s sqrt(n) checkpointing, a segment of sqrt(layers) layers re-run before its backward, no swaps", NULL },
	{ "every-layer", "baseline: a checkpoint every layer, each layer's forward re-run before its backward, no swaps", NULL },
	{ "optimal", "small traces: the least predicted time of single-buffer swaps and re-runs, by an exact search (CBC or GLPK; exact_plan.h)", NULL },
};

const struct swap_strategy *budget_strategy_find(const char *name)
{
	const struct swap_strategy *s = swap_strategy_find(name);
	if (s)
		return s;
	for (size_t i = 0; i < sizeof(recomputing) / sizeof(*recomputing); i++)
		if (strcmp(recomputing[i].name, name) == 0)
			return &recomputing[i];
	return NULL;
}

int budget_plan_ctx(const struct swap_ctx *c, const char *name,
		    uint64_t budget, const char *placer, uint64_t align,
		    struct mp_plan *plan, struct sim_result *sim,
		    struct swap_outcome *oc, char *err, size_t errlen)
{
	if (!budget_strategy_find(name)) {
		memset(plan, 0, sizeof(*plan));
		memset(sim, 0, sizeof(*sim));
		memset(oc, 0, sizeof(*oc));
		return trace_seterr(err, errlen, SOLVER_ENOTFOUND,
				    "unknown swap strategy '%s' (known: memplan, singa, vdnn, recompute, hybrid, sqrt-n, every-layer, optimal)",
				    name);
	}
	if (strcmp(name, "optimal") == 0)
		return exact_plan_strategy(c, budget, placer, align, plan, sim,
					   oc, err, errlen);
	if (recomp_is_strategy(name))
		return recomp_plan_ctx(c, name, budget, placer, align, plan,
				       sim, oc, err, errlen);
	return swap_plan_ctx(c, name, budget, placer, align, plan, sim, oc,
			     err, errlen);
}

int budget_plan(const struct trace *t, const struct solver_problem *p,
		const struct link_model *l, const char *name, uint64_t budget,
		const char *placer, uint64_t align, struct mp_plan *plan,
		struct sim_result *sim, struct swap_outcome *oc, char *err,
		size_t errlen)
{
	struct swap_ctx c;
	int rc = swap_ctx_init(&c, t, p, l, err, errlen);
	if (rc) {
		swap_ctx_free(&c);
		memset(plan, 0, sizeof(*plan));
		memset(sim, 0, sizeof(*sim));
		memset(oc, 0, sizeof(*oc));
		return rc;
	}
	rc = budget_plan_ctx(&c, name, budget, placer, align, plan, sim, oc,
			     err, errlen);
	swap_ctx_free(&c);
	return rc;
}
