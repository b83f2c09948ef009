/* SPDX-License-Identifier: MIT */
/*
 * swap_plan.c - swap_plan(): a strategy's swaps for a budget, placed with
 * lifetime holes (each swapped buffer keeps its offset), built into a plan,
 * verified independently and simulated.  The strategies aim at a resident
 * peak; placement may need more than the peak, so the target drops by the
 * excess and the strategy runs again, a bounded number of times.
 */
#include "swap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planfile.h"
#include "simulate.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int plan_one(const struct trace *t, const struct solver_problem *p,
		    const struct link_model *l, const struct swap_strategy *st,
		    const char *name, uint64_t budget, const char *placer,
		    uint64_t align, struct mp_plan *plan, struct sim_result *sim,
		    struct swap_outcome *oc, char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	memset(sim, 0, sizeof(*sim));
	memset(oc, 0, sizeof(*oc));
	struct swap_ctx c;
	int rc = swap_ctx_init(&c, t, p, l, err, errlen);
	struct swap_op *ops = NULL;
	size_t nops = 0;
	uint64_t *off = malloc((p->n ? p->n : 1) * sizeof(*off));
	struct solver_problem q = { 0 };
	struct mp_plan_swap *ent = NULL;
	if (!rc && !off)
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	if (rc)
		goto out;
	oc->lb_noswap = solver_lower_bound(p);
	uint64_t target = budget;
	for (;;) {
		double t0 = now_s();
		free(ops);
		ops = NULL;
		rc = st->choose(&c, target, &ops, &nops, err, errlen);
		(void)0;
		oc->choose_s += now_s() - t0;
		if (rc)
			goto out;
		swap_problem_free(&q);
		if (swap_problem_with_holes(&c, ops, nops, &q)) {
			rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
			goto out;
		}
		t0 = now_s();
		struct solver_report r;
		struct solver_options so = { .time_limit = 0.5 };
		rc = solver_solve(&q, placer, &so, off, &r, err, errlen);
		oc->place_s += now_s() - t0;
		oc->attempts++;
		oc->target = target;
		if (rc)
			goto out;
		if (r.height <= budget)
			break;
		if (oc->attempts >= SWAP_MAX_ATTEMPTS || target == 0) {
			rc = trace_seterr(err, errlen, SWAP_ENOFIT,
					  "%s: after %u placements the pool still needs %llu bytes, above the budget of %llu",
					  name, oc->attempts,
					  (unsigned long long)r.height,
					  (unsigned long long)budget);
			goto out;
		}
		uint64_t over = r.height - budget;
		target = target > over ? target - over : 0;
	}
	uint64_t staging;
	rc = swap_plan_entries(&c, ops, nops, &ent, &staging, err, errlen);
	if (rc)
		goto out;
	if (nops > UINT32_MAX) {
		rc = trace_seterr(err, errlen, TRACE_EINVAL, "too many swaps");
		goto out;
	}
	char stored[MP_PLAN_STRATEGY_LEN];
	snprintf(stored, sizeof(stored), "%s+%.*s", placer,
		 (int)(MP_PLAN_STRATEGY_LEN - 2 - strlen(placer)), name);
	struct planfile_info info = { align, stored, 0 };
	struct planfile_swaps sw = { ent, (uint32_t)nops, staging };
	rc = planfile_build_swaps(t, &q, off, &info, &sw, plan, err, errlen);
	if (rc)
		goto out;
	char why[768];
	rc = planfile_verify(plan, t, why, sizeof(why));
	if (rc) {
		rc = trace_seterr(err, errlen, TRACE_EINVAL,
				  "internal error: the %s swap plan does not verify: %s",
				  name, why);
		goto out;
	}
	rc = sim_run(t, plan, l, sim, err, errlen);
	if (rc)
		goto out;
	oc->nops = nops;
	for (size_t j = 0; j < nops; j++)
		oc->swapped += c.gaps[ops[j].gap].bytes;
out:
	if (rc)
		mp_plan_free(plan);
	free(ent);
	free(ops);
	free(off);
	swap_problem_free(&q);
	swap_ctx_free(&c);
	return rc;
}

/* Is (a, pa) a better answer than (b, pb)?  Less predicted time, then a
 * smaller pool. */
static int better_plan(const struct sim_result *a, const struct mp_plan *pa,
		       const struct sim_result *b, const struct mp_plan *pb)
{
	if (a->iter_ns != b->iter_ns)
		return a->iter_ns < b->iter_ns;
	return pa->pool_size < pb->pool_size;
}

/*
 * vdnn and singa are their own choosers.  memplan is a search: its
 * lane-aware chooser and, as further candidates, the choices of the others,
 * each placed and simulated; the least predicted time wins.  So memplan is
 * never worse than the baselines at any budget, and its own chooser wins
 * where it does better.
 */
int swap_plan(const struct trace *t, const struct solver_problem *p,
	      const struct link_model *l, const char *name, uint64_t budget,
	      const char *placer, uint64_t align, struct mp_plan *plan,
	      struct sim_result *sim, struct swap_outcome *oc, char *err,
	      size_t errlen)
{
	const struct swap_strategy *st = swap_strategy_find(name);
	memset(plan, 0, sizeof(*plan));
	memset(sim, 0, sizeof(*sim));
	memset(oc, 0, sizeof(*oc));
	if (!st)
		return trace_seterr(err, errlen, SOLVER_ENOTFOUND,
				    "unknown swap strategy '%s' (known: memplan, singa, vdnn)",
				    name);
	if (strcmp(name, "memplan") != 0)
		return plan_one(t, p, l, st, name, budget, placer, align, plan,
				sim, oc, err, errlen);
	int have = 0, rc = 0, first_rc = 0;
	char first_err[512] = "";
	for (size_t i = 0; swap_strategy_at(i); i++) {
		struct mp_plan cp;
		struct sim_result cs;
		struct swap_outcome co;
		char e[512];
		rc = plan_one(t, p, l, swap_strategy_at(i), "memplan", budget,
			      placer, align, &cp, &cs, &co, e, sizeof(e));
		if (rc == TRACE_ENOMEM) {
			if (have) {
				mp_plan_free(plan);
				sim_free(sim);
			}
			return trace_seterr(err, errlen, rc, "%s", e);
		}
		if (rc) {
			if (i == 0) {
				first_rc = rc;
				snprintf(first_err, sizeof(first_err), "%s", e);
			}
			continue;
		}
		if (!have || better_plan(&cs, &cp, sim, plan)) {
			if (have) {
				mp_plan_free(plan);
				sim_free(sim);
			}
			double cs_s = oc->choose_s + co.choose_s, pl_s = oc->place_s + co.place_s;
			*plan = cp;
			*sim = cs;
			*oc = co;
			oc->choose_s = cs_s;
			oc->place_s = pl_s;
			have = 1;
		} else {
			oc->choose_s += co.choose_s;
			oc->place_s += co.place_s;
			mp_plan_free(&cp);
			sim_free(&cs);
		}
	}
	if (!have)
		return trace_seterr(err, errlen, first_rc ? first_rc : SWAP_ENOFIT,
				    "%s", first_err);
	return 0;
}
