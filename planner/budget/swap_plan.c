/* SPDX-License-Identifier: MIT */
/*
 * swap_plan.c - swap_plan_ctx(): a strategy's swaps for a budget, placed with
 * lifetime holes (each swapped buffer keeps its offset), built into a plan,
 * verified independently and simulated.  The strategies aim at a resident
 * peak; placement may need more than the peak, so the target drops by the
 * excess and the strategy runs again, a bounded number of times.  memplan
 * searches its chooser's knobs by simulation first (bounded in CPU time),
 * then keeps the baselines' choices as a safety net.  Swaps only: the
 * strategies that recompute compose these plans (recompute_plan.c), and
 * budget.c offers both behind one name.
 */
#include "swap.h"

#include <math.h>
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

/* A chooser call: a strategy's, or memplan's with knobs. */
static int choose(const struct swap_ctx *c, const struct swap_strategy *st,
		  const struct swap_knobs *kn, uint64_t target,
		  struct swap_op **ops, size_t *nops, char *err, size_t errlen)
{
	if (kn)
		return swap_choose_memplan_knobs(c, target, kn, ops, nops, err,
						 errlen);
	return st->choose(c, target, ops, nops, err, errlen);
}

/* A choice whose resident peak fits the budget but whose placement does
 * not (fragments, not bytes) gets the exact placement with this much
 * counted work on problems of at most RESCUE_ITEMS buffers, before more
 * swaps are chosen for bytes the budget already has room for (AlexNet b8
 * at 90% of its lower bound over PCIe 5: two stall-free swaps, where
 * best-fit's fragments made the chooser add a third that stalls 17%).
 * Counted, so the same plan comes out on any machine. */
#define RESCUE_WORK 500
#define RESCUE_ITEMS 200

/* The exact placement of q when it may bring *height down to budget:
 * off and *height take it when lower; *rescued says so.  Returns 0 or
 * TRACE_ENOMEM (a placement error leaves the first placement). */
static int rescue_place(const struct solver_problem *q, uint64_t budget,
			uint64_t *off, uint64_t *height, int *rescued,
			char *err, size_t errlen)
{
	*rescued = 0;
	if (*height <= budget || q->n == 0 || q->n > RESCUE_ITEMS ||
	    solver_lower_bound(q) > budget)
		return 0;
	uint64_t *o2 = malloc(q->n * sizeof(*o2));
	if (!o2)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	struct solver_options ex = { .work_limit = RESCUE_WORK, .max_threads = 1 };
	struct solver_report r;
	char e[256];
	int rc = solver_solve(q, "auto", &ex, o2, &r, e, sizeof(e));
	if (rc == TRACE_ENOMEM) {
		free(o2);
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	}
	if (rc == 0 && r.height < *height) {
		memcpy(off, o2, q->n * sizeof(*off));
		*height = r.height;
		*rescued = 1;
	}
	free(o2);
	return 0;
}

/*
 * Chooses (strategy st, or memplan with knobs kn), places with placer,
 * builds, verifies and simulates, aiming first at target0 (<= budget) and
 * lower while the placement needs more than the budget.  given (ngiven
 * ops, may be NULL) is the choice at target0, known already.
 */
static int plan_one(const struct swap_ctx *c, const struct swap_strategy *st,
		    const struct swap_knobs *kn, uint64_t target0,
		    const struct swap_op *given, size_t ngiven,
		    const char *name, uint64_t budget, const char *placer,
		    uint64_t align, struct mp_plan *plan, struct sim_result *sim,
		    struct swap_outcome *oc, char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	memset(sim, 0, sizeof(*sim));
	memset(oc, 0, sizeof(*oc));
	const struct trace *t = c->t;
	const struct solver_problem *p = c->p;
	int rc = 0;
	struct swap_op *ops = NULL;
	size_t nops = 0;
	uint64_t *off = malloc((p->n ? p->n : 1) * sizeof(*off));
	struct solver_problem q = { 0 };
	struct mp_plan_swap *ent = NULL;
	if (!off) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
		goto out;
	}
	oc->lb_noswap = solver_lower_bound(p);
	uint64_t target = target0;
	int rescued = 0;
	for (;;) {
		double t0 = now_s();
		free(ops);
		ops = NULL;
		if (given && target == target0) {
			ops = malloc((ngiven ? ngiven : 1) * sizeof(*ops));
			if (!ops) {
				rc = trace_seterr(err, errlen, TRACE_ENOMEM,
						  "out of memory");
				goto out;
			}
			if (ngiven)
				memcpy(ops, given, ngiven * sizeof(*ops));
			nops = ngiven;
		} else {
			rc = choose(c, st, kn, target, &ops, &nops, err,
				    errlen);
		}
		oc->choose_s += now_s() - t0;
		if (rc)
			goto out;
		swap_problem_free(&q);
		if (swap_problem_with_holes(c, ops, nops, &q)) {
			rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
			goto out;
		}
		t0 = now_s();
		struct solver_report r;
		struct solver_options so = { .time_limit = 0.5 };
		rc = solver_solve(&q, placer, &so, off, &r, err, errlen);
		if (!rc)
			rc = rescue_place(&q, budget, off, &r.height, &rescued,
					  err, errlen);
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
	rc = swap_plan_entries(c, ops, nops, &ent, &staging, err, errlen);
	if (rc)
		goto out;
	if (nops > UINT32_MAX) {
		rc = trace_seterr(err, errlen, TRACE_EINVAL, "too many swaps");
		goto out;
	}
	char stored[MP_PLAN_STRATEGY_LEN];
	const char *placed = rescued ? "exact" : placer;
	snprintf(stored, sizeof(stored), "%s+%.*s", placed,
		 (int)(MP_PLAN_STRATEGY_LEN - 2 - strlen(placed)), name);
	struct planfile_info info = { align, stored, 0, 0 };
	struct planfile_swaps sw = { ent, (uint32_t)nops, staging };
	rc = planfile_build_swaps(t, &q, off, &info, &sw, plan, err, errlen);
	if (rc)
		goto out;
	char why[768];
	rc = planfile_verify(plan, t, why, sizeof(why));
	if (rc == TRACE_ENOMEM) { /* not the plan's fault: the search stops */
		rc = trace_seterr(err, errlen, rc, "%s", why);
		goto out;
	}
	if (rc) {
		rc = trace_seterr(err, errlen, TRACE_EINVAL,
				  "internal error: the %s swap plan does not verify: %s",
				  name, why);
		goto out;
	}
	rc = sim_run(t, plan, &c->link, sim, err, errlen);
	if (rc)
		goto out;
	if (sim_attach_timing(plan, sim)) {
		sim_free(sim);
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory recording the swaps' predicted timing");
		goto out;
	}
	oc->nops = nops;
	oc->chooser = st->name;
	for (size_t j = 0; j < nops; j++)
		oc->swapped += c->gaps[ops[j].gap].bytes;
out:
	if (rc)
		mp_plan_free(plan);
	free(ent);
	free(ops);
	free(off);
	swap_problem_free(&q);
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

/* Keeps candidate (cp, cs, co) in (plan, sim, oc) if it is the first or
 * better, else frees it; the times add up either way. */
static void keep(struct mp_plan *plan, struct sim_result *sim,
		 struct swap_outcome *oc, int *have, struct mp_plan *cp,
		 struct sim_result *cs, struct swap_outcome *co)
{
	if (!*have || better_plan(cs, cp, sim, plan)) {
		if (*have) {
			mp_plan_free(plan);
			sim_free(sim);
		}
		double cs_s = oc->choose_s + co->choose_s,
		       pl_s = oc->place_s + co->place_s;
		*plan = *cp;
		*sim = *cs;
		*oc = *co;
		oc->choose_s = cs_s;
		oc->place_s = pl_s;
		*have = 1;
	} else {
		oc->choose_s += co->choose_s;
		oc->place_s += co->place_s;
		mp_plan_free(cp);
		sim_free(cs);
	}
}

/* --- memplan: the chooser's knobs searched by simulation ------------------- */

/*
 * The search places each candidate with best-fit (milliseconds, where the
 * caller's placer may take its whole time limit), simulates it, and feeds
 * the stall each swap caused back to the chooser as a penalty on its gap.
 * It spans the ranks of the chooser and targets from the budget down in
 * steps of SEARCH_STEP of the lower bound, on a grid fixed by the lower
 * bound: a plan that fits a budget fits a looser one, so neighbouring
 * budgets share most of their candidates and a looser budget is rarely
 * predicted slower (not never: the feedback rounds depend on the budget).
 * Only the best candidate is placed with the caller's placer (auto tries
 * best-fit among its heuristics, so it fits as well).  Its allowance is
 * counted, not timed (swap_search_work, swap.h), so that the same trace
 * and budget give the same plan on any machine and under the sanitizers:
 * Inception-v3 b32 at 70% gets 132 candidates (before, a CPU-time allowance
 * of 1.5 s cut it at 79-121, depending on the machine), the zoo's others
 * end first, and a trace of 10^5 events gets 5.
 */
#define SEARCH_TARGETS 6   /* the budget and 5 grid points below it */
#define SEARCH_STEP 40     /* grid step: the lower bound / 40 (2.5%) */
#define SEARCH_ROUNDS 4    /* simulations per (target, rank) */
#define SEARCH_FIFO_TARGETS 2 /* the targets the fifo modes try (they cost
				 twice the booked ones on GPT-2) */
#define SEARCH_ALLOW 0.006 /* the waits for swap-outs the fifo modes allow:
			      this and twice this share of the iteration */
#define SKIP_MARGIN 0.02   /* a baseline predicted this much slower by the
			      quick measure is not placed */

struct search {
	const struct trace *t;
	const struct link_model *l;
	const struct swap_ctx *c;
	uint64_t budget, align;
	uint64_t *off;
	double *pen, *got, *best_pen; /* per gap */
	struct op_key *order;          /* ops sorted by (buffer, out_at) */
	int have, best_rank, best_fifo;
	double best_allow;
	uint64_t best_target, best_pool;
	double best_iter, base;
	struct swap_op *best_ops; /* the best candidate's swaps */
	size_t best_nops;
	unsigned evals;
	uint64_t work; /* events simulated so far (SEARCH_WORK) */
	struct memo *memo; /* the candidates measured so far */
	struct swap_prep *prep; /* the chooser's, built once */
	size_t nmemo, capmemo;
};

/*
 * A candidate measured already: its swaps, the height best-fit placed
 * them in and, when that fits the budget, the simulated time, stall and
 * the stall per swap in the order the simulator reported them.  The
 * chooser often gives the same swaps again (another rank, a feedback
 * round that moved nothing, a lower target that needed no more):
 * Inception-v3 b32 over PCIe 5.0 repeats 750 of 5,092 candidates.  A
 * repeat costs its work as before (the search is counted, the plan must
 * not depend on the memo) but no placement or simulation.
 */
struct memo_got {
	uint32_t gap;
	double stall;
};

struct memo {
	uint64_t hash;
	struct swap_op *ops;
	size_t nops;
	uint64_t height;
	int simulated;     /* height fit the budget: the rest is filled */
	double iter, stall;
	struct memo_got *got;
	size_t ngot;
};

/* An op's key for finding it from a plan's swap: (buffer, out_at). */
struct op_key {
	int64_t buffer;
	uint64_t out_at;
	uint32_t gap;
};

static int op_key_cmp(const void *a, const void *b)
{
	const struct op_key *x = a, *y = b;
	if (x->buffer != y->buffer)
		return x->buffer < y->buffer ? -1 : 1;
	return (x->out_at > y->out_at) - (x->out_at < y->out_at);
}

static uint64_t ops_hash(const struct swap_op *ops, size_t nops)
{
	uint64_t h = 1469598103934665603ull ^ nops; /* FNV-1a over the fields */
	for (size_t i = 0; i < nops; i++) {
		uint64_t f[4] = { ops[i].gap, ops[i].out_at, ops[i].hole_lo,
				  ops[i].in_at };
		for (int k = 0; k < 4; k++)
			h = (h ^ f[k]) * 1099511628211ull;
	}
	return h;
}

static int ops_equal(const struct swap_op *a, const struct swap_op *b,
		     size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].gap != b[i].gap || a[i].out_at != b[i].out_at ||
		    a[i].hole_lo != b[i].hole_lo || a[i].in_at != b[i].in_at)
			return 0;
	return 1;
}

static struct memo *memo_find(const struct search *S, uint64_t h,
			      const struct swap_op *ops, size_t nops)
{
	for (size_t k = 0; k < S->nmemo; k++) {
		struct memo *e = &S->memo[k];
		if (e->hash == h && e->nops == nops && ops_equal(e->ops, ops, nops))
			return e;
	}
	return NULL;
}

/* A new entry for ops (copied), or NULL when out of memory. */
static struct memo *memo_add(struct search *S, uint64_t h,
			     const struct swap_op *ops, size_t nops)
{
	if (S->nmemo == S->capmemo) {
		size_t cap = S->capmemo ? 2 * S->capmemo : 64;
		struct memo *v = realloc(S->memo, cap * sizeof(*v));
		if (!v)
			return NULL;
		S->memo = v;
		S->capmemo = cap;
	}
	struct memo *e = &S->memo[S->nmemo];
	memset(e, 0, sizeof(*e));
	e->ops = malloc((nops ? nops : 1) * sizeof(*ops));
	if (!e->ops)
		return NULL;
	if (nops)
		memcpy(e->ops, ops, nops * sizeof(*ops));
	e->nops = nops;
	e->hash = h;
	S->nmemo++;
	return e;
}

/* Forgets the entry memo_add() made last (it measured nothing). */
static void memo_drop_last(struct search *S)
{
	free(S->memo[--S->nmemo].ops);
}

/* The measures of e into the caller's: the stall per gap added in the
 * order the simulation reported it, so that got[] is the same to the bit. */
static void memo_give(const struct memo *e, double *iter, uint64_t *height,
		      double *stall, double *got)
{
	*height = e->height;
	if (!e->simulated)
		return;
	*iter = e->iter;
	*stall = e->stall;
	if (got)
		for (size_t j = 0; j < e->ngot; j++)
			got[e->got[j].gap] += e->got[j].stall;
}

/*
 * Places ops with best-fit and, when that fits the budget, builds and
 * simulates the plan: *height, then *iter (ns) and *stall; with got,
 * got[g] += the stall the swap of gap g caused.  A placement above the
 * budget is not simulated (every caller drops it: a lower target, or
 * no fit), and *iter, *stall and got are left as they are.  Returns 0,
 * or TRACE_ENOMEM / a placement or build error with a sentence.
 */
static int quick_eval(struct search *S, const struct swap_op *ops, size_t nops,
		      double *iter, uint64_t *height, double *stall, double *got,
		      char *err, size_t errlen)
{
	uint64_t h = ops_hash(ops, nops);
	const struct memo *seen = memo_find(S, h, ops, nops);
	if (seen) {
		memo_give(seen, iter, height, stall, got);
		return 0;
	}
	struct solver_problem q;
	struct mp_plan_swap *ent = NULL;
	struct mp_plan plan;
	struct sim_result sim;
	memset(&plan, 0, sizeof(plan));
	memset(&sim, 0, sizeof(sim));
	int rc = 0;
	if (swap_problem_with_holes(S->c, ops, nops, &q))
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	rc = solver_place_bestfit(&q, S->off, height, NULL, err, errlen);
	int rescued = 0;
	if (!rc)
		rc = rescue_place(&q, S->budget, S->off, height, &rescued, err,
				  errlen);
	if (rc)
		goto out;
	struct memo *e = memo_add(S, h, ops, nops);
	if (!e) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
		goto out;
	}
	e->height = *height;
	if (*height > S->budget)
		goto out;
	uint64_t staging;
	rc = swap_plan_entries(S->c, ops, nops, &ent, &staging, err, errlen);
	if (!rc && nops > UINT32_MAX)
		rc = trace_seterr(err, errlen, TRACE_EINVAL, "too many swaps");
	if (!rc) {
		struct planfile_info info = { S->align, rescued ? "exact+memplan"
							     : "best-fit+memplan", 0, 0 };
		struct planfile_swaps sw = { ent, (uint32_t)nops, staging };
		rc = planfile_build_swaps(S->t, &q, S->off, &info, &sw, &plan,
					  err, errlen);
	}
	if (!rc)
		rc = sim_run(S->t, &plan, S->l, &sim, err, errlen);
	if (rc) {
		memo_drop_last(S); /* an error is not remembered */
		goto out;
	}
	S->base = sim.base_ns;
	if (sim.stall_ns > 0) {
		e->got = malloc((sim.nswaps ? sim.nswaps : 1) * sizeof(*e->got));
		if (!e->got) {
			memo_drop_last(S);
			rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
			goto out;
		}
		for (size_t j = 0; j < nops; j++)
			S->order[j] = (struct op_key){ S->c->gaps[ops[j].gap].buffer,
						       ops[j].out_at, ops[j].gap };
		qsort(S->order, nops, sizeof(*S->order), op_key_cmp);
		for (uint32_t j = 0; j < sim.nswaps; j++) {
			if (sim.swaps[j].stall <= 0)
				continue;
			const struct mp_plan_swap *w = &plan.swaps[j];
			struct op_key k = { (int64_t)plan.allocs[w->request].buffer,
					    w->out_at, 0 };
			const struct op_key *f = bsearch(&k, S->order, nops,
							 sizeof(*S->order),
							 op_key_cmp);
			if (f)
				e->got[e->ngot++] = (struct memo_got){
					f->gap, sim.swaps[j].stall };
		}
	}
	e->simulated = 1;
	e->iter = sim.iter_ns;
	e->stall = sim.stall_ns;
	memo_give(e, iter, height, stall, got);
out:
	sim_free(&sim);
	mp_plan_free(&plan);
	free(ent);
	swap_problem_free(&q);
	return rc;
}

/* One (target, rank): the chooser, then rounds of simulated stalls fed
 * back as penalties.  Returns 0 (found or not) or TRACE_ENOMEM. */
static int search_one(struct search *S, uint64_t target, int rank, int fifo,
		      double allow, char *err, size_t errlen)
{
	size_t ng = S->c->ngaps;
	memset(S->pen, 0, (ng ? ng : 1) * sizeof(*S->pen));
	for (int round = 0; round < SEARCH_ROUNDS; round++) {
		/* out of work: stop, unless nothing fits yet (then take as
		 * much again) */
		if (S->evals && S->work > swap_search_work &&
		    (S->have || S->work > 2 * swap_search_work))
			return 0;
		struct swap_knobs kn = { S->pen, rank, fifo, allow, 0, S->prep };
		struct swap_op *ops = NULL;
		size_t nops = 0;
		uint64_t tg = target, height = 0;
		double iter = 0, stall = 0;
		int rc = 0;
		memset(S->got, 0, (ng ? ng : 1) * sizeof(*S->got));
		for (int attempt = 0; attempt < 3; attempt++) {
			free(ops);
			ops = NULL;
			rc = swap_choose_memplan_knobs(S->c, tg, &kn, &ops, &nops,
						       err, errlen);
			if (rc)
				break;
			rc = quick_eval(S, ops, nops, &iter, &height, &stall,
					S->got, err, errlen);
			S->evals++;
			S->work += S->t->nevents;
			if (rc || height <= S->budget)
				break;
			uint64_t over = height - S->budget;
			if (tg <= over) {
				rc = SWAP_ENOFIT;
				break;
			}
			tg -= over;
			memset(S->got, 0, (ng ? ng : 1) * sizeof(*S->got));
		}
		if (rc == TRACE_ENOMEM || rc || height > S->budget) {
			free(ops);
			/* else this target and rank find nothing */
			return rc == TRACE_ENOMEM ? rc : 0;
		}
		if (!S->have || iter < S->best_iter ||
		    (iter == S->best_iter && height < S->best_pool)) {
			free(S->best_ops);
			S->best_ops = ops;
			S->best_nops = nops;
			ops = NULL;
			S->have = 1;
			S->best_iter = iter;
			S->best_pool = height;
			S->best_rank = rank;
			S->best_fifo = fifo;
			S->best_allow = allow;
			S->best_target = tg;
			memcpy(S->best_pen, S->pen, (ng ? ng : 1) * sizeof(*S->pen));
		}
		free(ops);
		if (stall <= 0)
			return 0;
		int fed = 0;
		for (size_t g = 0; g < ng; g++)
			if (S->got[g] > 0) {
				S->pen[g] += S->got[g];
				fed = 1;
			}
		if (!fed)
			return 0;
	}
	return 0;
}

static void search_free(struct search *S)
{
	for (size_t k = 0; k < S->nmemo; k++) {
		free(S->memo[k].ops);
		free(S->memo[k].got);
	}
	free(S->memo);
	swap_prep_free(S->prep);
	free(S->off);
	free(S->pen);
	free(S->got);
	free(S->best_pen);
	free(S->order);
	free(S->best_ops);
}

/* The context and the arrays of a search; 0, or an error with a sentence
 * (free with search_free() either way). */
static int search_init(struct search *S, const struct swap_ctx *c,
		       uint64_t budget, uint64_t align, char *err,
		       size_t errlen)
{
	memset(S, 0, sizeof(*S));
	const struct solver_problem *p = c->p;
	S->t = c->t;
	S->l = &c->link;
	S->c = c;
	S->budget = budget;
	S->align = align;
	size_t ng = S->c->ngaps ? S->c->ngaps : 1;
	S->off = malloc((p->n ? p->n : 1) * sizeof(*S->off));
	S->pen = calloc(ng, sizeof(*S->pen));
	S->got = calloc(ng, sizeof(*S->got));
	S->best_pen = calloc(ng, sizeof(*S->best_pen));
	S->order = malloc(ng * sizeof(*S->order));
	S->prep = swap_prep_new(c);
	if (!S->off || !S->pen || !S->got || !S->best_pen || !S->order ||
	    !S->prep)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	S->work = 0;
	return 0;
}

/*
 * The memplan search: afterwards S->have says whether a candidate fits,
 * and S->best_rank, S->best_pen and S->best_target reproduce the best.
 * Returns 0 or TRACE_ENOMEM.
 */
static int memplan_search(struct search *S, uint64_t lb, char *err,
			  size_t errlen)
{
	uint64_t budget = S->budget, step = lb / SEARCH_STEP;
	if (step == 0)
		step = 1;
	uint64_t grid = budget / step * step;
	if (grid == budget && grid >= step)
		grid -= step;
	/* the booked ranks first, the unbooked one second (first where the
	 * link is shared: there the booked holes are narrow); on a
	 * full-duplex link, at the first SEARCH_FIFO_TARGETS targets, ranks
	 * 0 and 2 with the swap-outs in issue order (rank + 4:
	 * swap_knobs.fifo), rank 2 so letting the compute wait SEARCH_ALLOW
	 * of the iteration (+ 8), both twice that (+ 12): where the D2H lane
	 * is full through the forward pass, a little waiting buys lane time
	 * for every later swap-out */
	static const int duplex[] = { 0, 3, 2, 1, 4, 6, 10, 12, 14 },
			 shared[] = { 3, 0, 2, 1 };
	int shr = S->c->link.shared < 1.0;
	const int *ranks = shr ? shared : duplex;
	int nranks = shr ? (int)(sizeof(shared) / sizeof(*shared))
			 : (int)(sizeof(duplex) / sizeof(*duplex));
	int rc = 0;
	for (int i = 0; i < SEARCH_TARGETS && !rc; i++) {
		uint64_t tg = budget;
		if (i > 0) {
			if (grid < step * (uint64_t)(i - 1) + 1)
				break;
			tg = grid - step * (uint64_t)(i - 1);
		}
		for (int r = 0; r < nranks && !rc; r++) {
			int mode = ranks[r] / 4;
			if (mode > 0 && i >= SEARCH_FIFO_TARGETS)
				continue;
			double allow = mode > 1 ? SEARCH_ALLOW * (mode - 1) *
							  (double)(S->c->clock.t_last - S->c->clock.t_first)
						: 0;
			rc = search_one(S, tg, ranks[r] % 4, mode > 0, allow,
					err, errlen);
		}
		/* nothing beats no overhead */
		if (S->have && S->best_iter <= S->base)
			break;
	}
	return rc;
}

/*
 * A baseline's choice at the budget, placed with best-fit and simulated:
 * *iter; INFINITY when the baseline finds no choice at the budget (so
 * neither would swap_plan_ctx()'s first try); -1 when the choice does not fit
 * with best-fit (the caller's placer and retries might still make it fit).
 * Returns 0 or TRACE_ENOMEM.
 */
static int baseline_probe(struct search *S, const struct swap_strategy *st,
			  double *iter, char *err, size_t errlen)
{
	struct swap_op *ops = NULL;
	size_t nops = 0;
	uint64_t height = 0;
	double stall;
	*iter = INFINITY;
	int rc = st->choose(S->c, S->budget, &ops, &nops, err, errlen);
	if (!rc) {
		rc = quick_eval(S, ops, nops, iter, &height, &stall, NULL, err,
				errlen);
		if (rc || height > S->budget)
			*iter = -1;
	}
	free(ops);
	return rc == TRACE_ENOMEM ? rc : 0;
}

/*
 * vdnn and singa are their own choosers.  memplan is its lane-aware
 * chooser, its knobs (ranking, stall penalties per gap, target) searched
 * by simulation; the best candidate is placed with the caller's placer.
 * The baselines' choices stay as a safety net: each is placed and
 * simulated too and the least predicted time wins, so memplan is never
 * worse than the baselines at any budget; oc->chooser says whose swaps won.
 */
int swap_plan_ctx(const struct swap_ctx *c, const char *name,
		  uint64_t budget, const char *placer, uint64_t align,
		  struct mp_plan *plan, struct sim_result *sim,
		  struct swap_outcome *oc, char *err, size_t errlen)
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
		return plan_one(c, st, NULL, budget, NULL, 0, name,
				budget, placer, align, plan, sim, oc, err,
				errlen);
	double t0 = now_s();
	struct search S;
	int have = 0, rc, first_rc = 0;
	char first_err[512] = "";
	rc = search_init(&S, c, budget, align, err, errlen);
	if (!rc)
		rc = memplan_search(&S, solver_lower_bound(c->p), err, errlen);
	double search_s = now_s() - t0;
	if (rc) {
		search_free(&S);
		return rc;
	}
	struct swap_knobs kn = { S.best_pen, S.best_rank, S.best_fifo,
				 S.best_allow, 0, S.prep };
	for (size_t i = 0; swap_strategy_at(i); i++) {
		const struct swap_strategy *si = swap_strategy_at(i);
		int own = strcmp(si->name, "memplan") == 0;
		struct mp_plan cp;
		struct sim_result cs;
		struct swap_outcome co;
		char e[512];
		if (have && !own) {
			/* a baseline clearly slower by the quick measure is
			 * not worth its placement */
			double q;
			t0 = now_s();
			rc = baseline_probe(&S, si, &q, e, sizeof(e));
			search_s += now_s() - t0;
			if (rc) {
				mp_plan_free(plan);
				sim_free(sim);
				search_free(&S);
				return trace_seterr(err, errlen, rc, "%s", e);
			}
			if (q > sim->iter_ns * (1 + SKIP_MARGIN))
				continue;
		}
		if (own && S.have)
			rc = plan_one(c, si, &kn, S.best_target,
				      S.best_ops, S.best_nops, "memplan",
				      budget, placer, align, &cp, &cs, &co, e,
				      sizeof(e));
		else
			rc = plan_one(c, si, NULL, budget, NULL, 0, "memplan",
				      budget, placer, align, &cp, &cs, &co, e,
				      sizeof(e));
		if (rc == TRACE_ENOMEM) {
			if (have) {
				mp_plan_free(plan);
				sim_free(sim);
			}
			search_free(&S);
			return trace_seterr(err, errlen, rc, "%s", e);
		}
		if (rc) {
			if (!first_rc) {
				first_rc = rc;
				snprintf(first_err, sizeof(first_err), "%s", e);
			}
			continue;
		}
		keep(plan, sim, oc, &have, &cp, &cs, &co);
		if (own && S.have && strcmp(placer, "best-fit") != 0 &&
		    sim->iter_ns > S.best_iter) {
			/* the search measured this choice placed by best-fit;
			 * the placer's layout lets a reuse wait longer: the
			 * best-fit layout is a candidate too (the plan names
			 * it) */
			rc = plan_one(c, si, &kn, S.best_target,
				      S.best_ops, S.best_nops, "memplan",
				      budget, "best-fit", align, &cp, &cs, &co,
				      e, sizeof(e));
			if (rc == TRACE_ENOMEM) {
				mp_plan_free(plan);
				sim_free(sim);
				search_free(&S);
				return trace_seterr(err, errlen, rc, "%s", e);
			}
			if (!rc)
				keep(plan, sim, oc, &have, &cp, &cs, &co);
		}
	}
	search_free(&S);
	oc->choose_s += search_s;
	oc->candidates = S.evals;
	oc->search_work = S.work;
	if (!have)
		return trace_seterr(err, errlen, first_rc ? first_rc : SWAP_ENOFIT,
				    "%s", first_err);
	return 0;
}
