/* SPDX-License-Identifier: MIT */
/*
 * exact_plan.h - the `optimal` strategy: how far the heuristics are from
 * the best plan, on graphs small enough to search.  A mixed-integer program
 * (CBC or GLPK, optional) over one binary per decision -- recompute a buffer
 * (recompute.h's single-buffer re-runs) or swap one of its idle gaps
 * (swap.h's gaps) -- with the resident bytes at every allocator step at
 * most the budget, minimising a lower bound on the overhead the simulator
 * will predict; each answer is built into a plan, placed, verified and
 * simulated (the very cost model that scores the heuristics), then cut off
 * (a no-good cut) until the program's bound meets the best plan simulated.
 * Used by budget_plan_ctx() ("optimal"), memplan-plan frontier and
 * tests/bench/bench_exact.c.  Invariant: er->bound_ns never exceeds the
 * simulated overhead of any plan of the decision space (exact_plan.c says
 * why), so er->proven means no plan of that space is predicted faster.
 */
#ifndef MEMPLAN_EXACT_PLAN_H
#define MEMPLAN_EXACT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "simulate.h"
#include "swap.h"

/* Refused above these: one binary per decision, one row per step. */
#define EXACT_MAX_BINARIES 2000
#define EXACT_MAX_STEPS 20000

/* What the search may decide. */
enum exact_space {
	EXACT_HYBRID = 0,    /* swap and recompute */
	EXACT_SWAP = 1,      /* swaps only */
	EXACT_RECOMPUTE = 2, /* recomputation only */
};

struct exact_options {
	enum exact_space space;
	double time_limit;   /* solver seconds per program (a safety
				net: the counted EXACT_MILP_NODES ends it
				first on any machine of today); <= 0: 60 */
	unsigned max_rounds; /* programs solved (plans simulated); 0: 40 */
};

struct exact_result {
	int found;           /* a plan within the budget was simulated */
	int proven;          /* no plan of the space is predicted faster */
	int lp_only;         /* a program hit its node or time limit: bound_ns
				is the solver's bound then (CBC's best
				bound, GLPK's LP relaxation: still a lower
				bound) */
	double bound_ns;     /* least overhead any plan of the space can have */
	double best_ns;      /* the best plan's simulated overhead (ns) */
	double base_ns;      /* the trace's iteration (ns) */
	unsigned rounds;     /* programs solved */
	unsigned simulated;  /* plans placed and simulated */
	size_t nbinaries, nrows;
	size_t nrecompute, nswap; /* in the best plan */
};

/* 1 when memplan was built with CBC or GLPK (the search exists), else 0. */
int exact_available(void);

/* The space named "hybrid", "swap" or "recompute"; -1 for another. */
int exact_space_parse(const char *s);

/*
 * The best plan of the space for a pool of at most budget bytes: context
 * c (swap_ctx_init() of a finished trace, its problem aligned, the link),
 * placed with placer.  On success *plan (of the trace as it recomputes,
 * as recompute.h's strategies return) and *sim are the caller's, *er says
 * how sure.  Returns 0; SWAP_ENOFIT (no plan of the space fits, er->proven
 * says whether that is proven); SOLVER_ENOTFOUND (built without either, or
 * the trace above EXACT_MAX_*: a sentence says which); TRACE_EINVAL,
 * TRACE_ENOMEM; each with a sentence.  Deterministic: the same trace,
 * budget and options give the same plan (the solver's answers do not
 * depend on the clock: a program stops after counted nodes on one thread,
 * its seconds are a safety net).
 */
int exact_plan_ctx(const struct swap_ctx *c, const struct exact_options *o,
		   uint64_t budget, const char *placer, uint64_t align,
		   struct mp_plan *plan, struct sim_result *sim,
		   struct exact_result *er, char *err, size_t errlen);

/* exact_plan_ctx() in swap_plan_ctx()'s shape, the hybrid space and the
 * default limits: budget_plan_ctx()'s "optimal". */
int exact_plan_strategy(const struct swap_ctx *c, uint64_t budget,
			const char *placer, uint64_t align,
			struct mp_plan *plan, struct sim_result *sim,
			struct swap_outcome *oc, char *err, size_t errlen);

#endif
