/* SPDX-License-Identifier: MIT */
/*
 * recompute_plan.c - the `recompute` and `hybrid` strategies (recompute.h):
 * a choice of buffers to recompute, the trace of the program that does it
 * (recomp_transform()), and on that trace a placement (recompute) or the
 * memplan swap planner (hybrid).  hybrid keeps the least predicted time
 * among swap-only, recompute-only and recomputing down to levels between
 * them then swapping the rest, so it is never predicted slower than
 * either strategy alone at the same budget.
 */
#include "recompute.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planfile.h"
#include "swapbound.h"

/* The share of the way from the lower bound down to the budget that the
 * hybrid candidates recompute before they swap, in the order tried:
 * halves, quarters, eighths, sixteenths.  The predicted time is far from
 * smooth in the share (one re-run more or less moves the swaps' stalls),
 * so the mixes sweep it: with three shares ResNet-50 b32 on pcie5 at 70%
 * of the lower bound stalled 2.15%, with ten 1.91%.  Most of them cost
 * no search: a choice tried already, or one the bound rules out. */
static const double hybrid_levels[] = {
	0.5, 0.25, 0.75, 0.125, 0.375, 0.625, 0.875, 0.0625, 0.1875, 0.3125,
	0.4375, 0.5625, 0.6875, 0.8125, 0.9375,
};
/* Events above which hybrid tries only the first mix: each costs a
 * memplan search (about 3 s on a trace of 10^5 events, far less on the
 * zoo's, where every mix is tried).  Counted, not timed, so that advise
 * and compile --swap-strategy hybrid agree on any machine (a CPU-time
 * cutoff made them differ under the sanitizers). */
#define HYBRID_EVENTS 50000

int recomp_is_strategy(const char *name)
{
	return name && (strcmp(name, "recompute") == 0 ||
			strcmp(name, "hybrid") == 0 ||
			strcmp(name, "sqrt-n") == 0 ||
			strcmp(name, "every-layer") == 0);
}

/* One candidate: a choice, its program, plan and simulation. */
struct cplan {
	uint8_t *chosen;
	struct trace *t2;
	int64_t *orig;
	struct solver_problem p2;
	struct mp_plan plan;
	struct sim_result sim;
	struct recomp_groups g; /* the re-runs (one per buffer for a chosen[]) */
	int grouped;            /* g made the program, not chosen */
	int have;
};

static void cplan_free(struct cplan *c)
{
	free(c->chosen);
	free(c->orig);
	trace_free(c->t2);
	solver_problem_free(&c->p2);
	mp_plan_free(&c->plan);
	sim_free(&c->sim);
	recomp_groups_free(&c->g);
	memset(c, 0, sizeof(*c));
}

/* The program of choice c->chosen, and its problem as compile makes it. */
static int build_program(const struct recomp_model *m, struct cplan *c,
			 uint64_t align, char *err, size_t errlen)
{
	int rc;
	if (!c->grouped) {
		recomp_groups_free(&c->g);
		if (recomp_groups_from_choice(m, c->chosen, &c->g) ||
		    recomp_groups_close(m, &c->g, NULL, err, errlen))
			return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	}
	rc = recomp_transform_groups(m, &c->g, &c->t2, &c->orig, err, errlen);
	if (rc)
		return rc;
	rc = solver_problem_from_trace(c->t2, &c->p2, err, errlen);
	if (!rc)
		solver_problem_drop_holes(&c->p2);
	if (!rc && align > 1)
		rc = solver_problem_align(&c->p2, align, err, errlen);
	return rc;
}

static int finish_placed(const struct swap_ctx *sc, struct cplan *c,
			 const uint64_t *off, const char *placer,
			 const char *what, uint64_t align, char *err,
			 size_t errlen);

/*
 * The choice for target into c: single buffers, cheapest re-run per byte
 * first (recomp_choose_units(): with units, a dropout's output and mask
 * as one re-run too); when they cannot reach it, whole layers on top
 * (recomp_choose_layers()), c->g then holding the groups.  Returns the
 * peak reached, or UINT64_MAX (out of memory, a sentence).
 */
static uint64_t choose(const struct recomp_model *m, uint64_t target,
		       int units, struct cplan *c, char *err, size_t errlen)
{
	recomp_groups_free(&c->g);
	c->grouped = 0;
	uint64_t reached = recomp_choose_units(m, target, c->chosen, units);
	if (reached == UINT64_MAX) {
		trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
		return reached;
	}
	if (reached <= target)
		return reached;
	reached = recomp_choose_layers(m, target, c->chosen, &c->g, err, errlen);
	if (reached == UINT64_MAX)
		return reached;
	for (size_t i = 0; i < m->n; i++)
		c->chosen[i] = c->g.group[i] >= 0;
	c->grouped = 1;
	return reached;
}

/* Recompute only: choose for a target, place, lower the target by what
 * the placement needs above the budget, again. */
static int plan_recompute(const struct swap_ctx *sc,
			  const struct recomp_model *m, uint64_t budget,
			  const char *placer, uint64_t align, int units,
			  struct cplan *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->chosen = calloc(m->n ? m->n : 1, 1);
	uint64_t *off = NULL;
	int rc = 0;
	if (!c->chosen)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	uint64_t target = budget;
	struct solver_report r;
	for (unsigned attempt = 1;; attempt++) {
		memset(c->chosen, 0, m->n ? m->n : 1);
		uint64_t reached = choose(m, target, units, c, err, errlen);
		if (reached == UINT64_MAX) {
			rc = TRACE_ENOMEM;
			goto out;
		}
		if (reached > target) {
			rc = trace_seterr(err, errlen, SWAP_ENOFIT,
					  "recompute: with every buffer it can recompute (%zu of %zu) the resident peak stays at %llu bytes, above %llu",
					  m->ncand, m->n, (unsigned long long)reached,
					  (unsigned long long)target);
			goto out;
		}
		trace_free(c->t2);
		free(c->orig);
		solver_problem_free(&c->p2);
		c->t2 = NULL;
		c->orig = NULL;
		rc = build_program(m, c, align, err, errlen);
		if (rc)
			goto out;
		free(off);
		off = malloc((c->p2.n ? c->p2.n : 1) * sizeof(*off));
		if (!off) {
			rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
			goto out;
		}
		struct solver_options so = { .time_limit = 0.5 };
		rc = solver_solve(&c->p2, placer, &so, off, &r, err, errlen);
		if (rc)
			goto out;
		if (r.height <= budget)
			break;
		uint64_t over = r.height - budget;
		if (attempt >= SWAP_MAX_ATTEMPTS || target <= over) {
			rc = trace_seterr(err, errlen, SWAP_ENOFIT,
					  "recompute: after %u placements the pool still needs %llu bytes, above the budget of %llu",
					  attempt, (unsigned long long)r.height,
					  (unsigned long long)budget);
			goto out;
		}
		target -= over;
	}
	rc = finish_placed(sc, c, off, placer, "recompute", align, err, errlen);
out:
	free(off);
	return rc;
}

/* The plan of a placed program: built, verified, simulated. */
static int finish_placed(const struct swap_ctx *sc, struct cplan *c,
			 const uint64_t *off, const char *placer,
			 const char *what, uint64_t align, char *err,
			 size_t errlen)
{
	char stored[MP_PLAN_STRATEGY_LEN];
	snprintf(stored, sizeof(stored), "%.16s+%.11s", placer, what);
	struct planfile_info info = { align, stored, 0, 0 };
	int rc = planfile_build(c->t2, &c->p2, off, &info, &c->plan, err, errlen);
	if (rc)
		return rc;
	char why[768];
	rc = planfile_verify(&c->plan, c->t2, why, sizeof(why));
	if (rc == TRACE_ENOMEM)
		return trace_seterr(err, errlen, rc, "%s", why);
	if (rc)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "internal error: the %s plan does not verify: %s",
				    what, why);
	rc = sim_run(c->t2, &c->plan, &sc->link, &c->sim, err, errlen);
	if (!rc)
		c->have = 1;
	return rc;
}

/* The chosen[] of groups: every buffer in a group. */
static int chosen_of_groups(const struct recomp_model *m, struct cplan *c)
{
	c->chosen = calloc(m->n ? m->n : 1, 1);
	if (!c->chosen)
		return TRACE_ENOMEM;
	for (size_t i = 0; i < m->n; i++)
		c->chosen[i] = c->g.group[i] >= 0;
	c->grouped = 1;
	return 0;
}

/* A checkpoint baseline (per layers a segment, 0: sqrt): its program
 * placed as it is, no swaps; SWAP_ENOFIT when it needs more than budget. */
static int plan_checkpoints(const struct swap_ctx *sc,
			    const struct recomp_model *m, unsigned per,
			    uint64_t budget, const char *placer,
			    uint64_t align, struct cplan *c, char *err,
			    size_t errlen)
{
	memset(c, 0, sizeof(*c));
	const char *what = per ? "every-layer" : "sqrt-n";
	size_t nseg;
	int rc = recomp_choose_checkpoints(m, per, &c->g, &nseg, err, errlen);
	if (rc)
		return rc;
	if (chosen_of_groups(m, c))
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	rc = build_program(m, c, align, err, errlen);
	if (rc)
		return rc;
	uint64_t *off = malloc((c->p2.n ? c->p2.n : 1) * sizeof(*off));
	if (!off)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	struct solver_options so = { .time_limit = 0.5 };
	struct solver_report r;
	rc = solver_solve(&c->p2, placer, &so, off, &r, err, errlen);
	if (!rc && r.height > budget)
		rc = trace_seterr(err, errlen, SWAP_ENOFIT,
				  "%s: checkpointing %zu segments needs a pool of %llu bytes, above the budget of %llu",
				  what, nseg, (unsigned long long)r.height,
				  (unsigned long long)budget);
	if (!rc)
		rc = finish_placed(sc, c, off, placer, what, align, err, errlen);
	free(off);
	return rc;
}

/* Swaps by memplan for the budget on the program of c's choice. */
static int swap_program(const struct swap_ctx *sc, const struct recomp_model *m,
			uint64_t budget, const char *placer, uint64_t align,
			const struct cplan *best, struct cplan *c, char *err,
			size_t errlen);

/* The choices of the mixes tried so far for one budget: per choice, its
 * chosen[] and its groups (-1 for single buffers), m->n of each. */
struct tried {
	uint8_t *chosen;
	int32_t *group;
	size_t n, cap;
};

static void tried_free(struct tried *d)
{
	free(d->chosen);
	free(d->group);
	memset(d, 0, sizeof(*d));
}

/* Was c's choice tried already?  1 yes, 0 no (and now it is), -1 out of
 * memory.  Two targets often give the same choice: one search is enough. */
static int tried_seen(struct tried *d, const struct recomp_model *m,
		      const struct cplan *c)
{
	size_t n = m->n ? m->n : 1;
	for (size_t k = 0; k < d->n; k++) {
		if (memcmp(d->chosen + k * n, c->chosen, n) != 0)
			continue;
		const int32_t *g = d->group + k * n;
		size_t i = 0;
		for (; i < m->n; i++)
			if (g[i] != (c->grouped ? c->g.group[i] : -1))
				break;
		if (i == m->n)
			return 1;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 8;
		uint8_t *nc = realloc(d->chosen, cap * n);
		if (!nc)
			return -1;
		d->chosen = nc;
		int32_t *ng = realloc(d->group, cap * n * sizeof(*ng));
		if (!ng)
			return -1;
		d->group = ng;
		d->cap = cap;
	}
	memcpy(d->chosen + d->n * n, c->chosen, n);
	for (size_t i = 0; i < m->n; i++)
		d->group[d->n * n + i] = c->grouped ? c->g.group[i] : -1;
	d->n++;
	return 0;
}

/* Recompute down to target, then memplan's swaps for the budget; a
 * choice in *d already (may be NULL) is SWAP_ENOFIT, no search. */
static int plan_level(const struct swap_ctx *sc, const struct recomp_model *m,
		      uint64_t target, int units, uint64_t budget,
		      const char *placer, uint64_t align,
		      const struct cplan *best, struct tried *d,
		      struct cplan *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->chosen = calloc(m->n ? m->n : 1, 1);
	if (!c->chosen)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	if (target < UINT64_MAX &&
	    choose(m, target, units, c, err, errlen) == UINT64_MAX)
		return TRACE_ENOMEM;
	int seen = d ? tried_seen(d, m, c) : 0;
	if (seen < 0)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	if (seen)
		return trace_seterr(err, errlen, SWAP_ENOFIT,
				    "hybrid: this choice was tried already");
	return swap_program(sc, m, budget, placer, align, best, c, err,
			    errlen);
}

/* A checkpoint baseline's segments, then memplan's swaps for the budget. */
static int plan_segments(const struct swap_ctx *sc,
			 const struct recomp_model *m, unsigned per,
			 uint64_t budget, const char *placer, uint64_t align,
			 const struct cplan *best, struct cplan *c, char *err,
			 size_t errlen)
{
	memset(c, 0, sizeof(*c));
	size_t nseg;
	int rc = recomp_choose_checkpoints(m, per, &c->g, &nseg, err, errlen);
	if (rc)
		return rc;
	if (chosen_of_groups(m, c))
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	return swap_program(sc, m, budget, placer, align, best, c, err,
			    errlen);
}

/*
 * Can no swap plan of program t for budget be predicted faster than
 * best_ns?  The simulator delays events, never advances them, and one
 * wait delays every later event (simulate.c): a plan's iteration ends no
 * earlier than any event of t, and no earlier than t's last event plus
 * all of its stalls.  So a plan faster than best_ns stalls less than
 * best_ns - (last end), and the link bound (swapbound.h) says whether any
 * plan stalling that little fits.  1: none can (skip its search); 0: one
 * might; -1: out of memory.  Counted by hybrid_searches/hybrid_pruned.
 */
static int swaps_hopeless(const struct trace *t, const struct link_model *l,
			  uint64_t budget, double best_ns)
{
	int64_t t0 = TRACE_TIME_NONE, prev, s0, e0 = 0;
	for (size_t i = 0; i < t->nevents && t0 == TRACE_TIME_NONE; i++)
		t0 = t->events[i].t_start;
	if (t0 == TRACE_TIME_NONE)
		return 0;
	prev = t0;
	double floor_ns = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		sim_event_span(&t->events[i], &prev, &s0, &e0);
		if ((double)(e0 - t0) > floor_ns)
			floor_ns = (double)(e0 - t0);
	}
	if (floor_ns > best_ns)
		return 1;
	double slack = best_ns - (double)(e0 - t0);
	char e[256];
	return swapbound_exceeds(t, l, slack, budget, e, sizeof(e));
}

unsigned long recomp_hybrid_searches, recomp_hybrid_pruned;
int recomp_hybrid_prune = 1;

static int swap_program(const struct swap_ctx *sc, const struct recomp_model *m,
			uint64_t budget, const char *placer, uint64_t align,
			const struct cplan *best, struct cplan *c, char *err,
			size_t errlen)
{
	int rc = build_program(m, c, align, err, errlen);
	if (rc)
		return rc;
	if (recomp_hybrid_prune && best && best->have) {
		int h = swaps_hopeless(c->t2, &sc->link, budget,
				       best->sim.iter_ns);
		if (h < 0)
			return trace_seterr(err, errlen, TRACE_ENOMEM,
					    "out of memory");
		if (h) {
			recomp_hybrid_pruned++;
			return trace_seterr(err, errlen, SWAP_ENOFIT,
					    "hybrid: no swap plan of this program can beat the best so far");
		}
	}
	recomp_hybrid_searches++;
	struct swap_ctx c2;
	rc = swap_ctx_init(&c2, c->t2, &c->p2, &sc->link, err, errlen);
	struct swap_outcome oc;
	if (!rc)
		rc = swap_plan_ctx(&c2, "memplan", budget, placer, align,
				   &c->plan, &c->sim, &oc, err, errlen);
	swap_ctx_free(&c2);
	if (!rc) {
		c->plan.strategy[0] = '\0';
		snprintf(c->plan.strategy, sizeof(c->plan.strategy),
			 "%.20s+hybrid", placer);
		c->have = 1;
	}
	return rc;
}

/* Is a better than b: less predicted time, then a smaller pool. */
static int better(const struct cplan *a, const struct cplan *b)
{
	if (!b->have)
		return 1;
	if (a->sim.iter_ns != b->sim.iter_ns)
		return a->sim.iter_ns < b->sim.iter_ns;
	return a->plan.pool_size < b->plan.pool_size;
}

/* Keeps cand in best if better; frees the loser. */
static void keep(struct cplan *best, struct cplan *cand)
{
	if (cand->have && better(cand, best)) {
		cplan_free(best);
		*best = *cand;
		memset(cand, 0, sizeof(*cand));
	} else {
		cplan_free(cand);
	}
}

void recomp_advice_free(struct recomp_advice *a)
{
	trace_free(a->t2);
	solver_problem_free(&a->p2);
	mp_plan_free(&a->plan);
	sim_free(&a->sim);
	free(a->action);
	free(a->cost_ns);
	free(a->orig);
	recomp_groups_free(&a->groups);
	memset(a, 0, sizeof(*a));
}

/* The decisions of best, per original buffer. */
static int fill_advice(const struct recomp_model *m, struct cplan *best,
		       struct recomp_advice *a, char *err, size_t errlen)
{
	a->nbuf = m->n;
	a->action = calloc(m->n ? m->n : 1, sizeof(*a->action));
	a->cost_ns = calloc(m->n ? m->n : 1, sizeof(*a->cost_ns));
	if (!a->action || !a->cost_ns)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	/* a re-run is charged once: its cost shared by its group by bytes */
	uint64_t *gbytes = calloc(best->g.ngroups ? best->g.ngroups : 1,
				  sizeof(*gbytes));
	if (!gbytes)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	for (size_t i = 0; i < m->n; i++)
		if (best->g.group[i] >= 0)
			gbytes[best->g.group[i]] += m->b[i].bytes;
	for (size_t i = 0; i < m->n; i++) {
		int32_t g = best->g.group[i];
		if (g < 0)
			continue;
		a->action[i] = RECOMP_RECOMPUTE;
		a->cost_ns[i] = gbytes[g] ? best->g.cost_ns[g] *
						    (double)m->b[i].bytes /
						    (double)gbytes[g]
					  : 0;
		a->nrecompute++;
		a->recomputed += m->b[i].bytes;
	}
	free(gbytes);
	for (uint32_t j = 0; j < best->plan.nswaps; j++) {
		const struct mp_plan_swap *w = &best->plan.swaps[j];
		uint64_t id = best->plan.allocs[w->request].buffer;
		if (id >= best->t2->nbuffers)
			continue;
		int64_t o = best->orig[id];
		if (o < 0 || (size_t)o >= m->n)
			continue;
		if (a->action[o] != RECOMP_SWAP) {
			a->nswap++;
			a->swapped += best->t2->buffers[id].size;
		}
		a->action[o] = RECOMP_SWAP;
		if (j < best->sim.nswaps)
			a->cost_ns[o] += best->sim.swaps[j].stall;
	}
	a->groups = best->g;
	memset(&best->g, 0, sizeof(best->g));
	a->t2 = best->t2;
	a->orig = best->orig;
	best->orig = NULL;
	a->p2 = best->p2;
	a->plan = best->plan;
	a->sim = best->sim;
	best->t2 = NULL;
	memset(&best->p2, 0, sizeof(best->p2));
	memset(&best->plan, 0, sizeof(best->plan));
	memset(&best->sim, 0, sizeof(best->sim));
	return 0;
}

int recomp_advise(const struct swap_ctx *sc, const char *name, uint64_t budget,
		  const char *placer, uint64_t align, struct recomp_advice *a,
		  char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	if (!recomp_is_strategy(name))
		return trace_seterr(err, errlen, SOLVER_ENOTFOUND,
				    "unknown recomputation strategy '%s' (known: recompute, hybrid, sqrt-n, every-layer)",
				    name);
	static const char *const names[] = { "recompute", "hybrid", "sqrt-n",
					     "every-layer" };
	for (size_t k = 0; k < sizeof(names) / sizeof(*names); k++)
		if (strcmp(name, names[k]) == 0)
			a->strategy = names[k];
	struct recomp_model m;
	struct cplan best = { 0 }, cand;
	int rc = recomp_model_init(&m, sc->t, sc->p, err, errlen);
	int first_rc = 0;
	char first_err[512] = "";
	if (rc)
		goto out;
	if (strcmp(a->strategy, "sqrt-n") == 0 ||
	    strcmp(a->strategy, "every-layer") == 0) {
		rc = plan_checkpoints(sc, &m, a->strategy[0] == 's' ? 0 : 1,
				      budget, placer, align, &cand, err, errlen);
		if (rc)
			goto fail_cand;
		keep(&best, &cand);
		rc = fill_advice(&m, &best, a, err, errlen);
		goto out;
	}
	/* single buffers alone, then with units (a dropout's output and
	 * mask, recomp_buf.sib), where there are any: neither always leads
	 * to the better plan */
	int nvariants = 1;
	for (size_t i = 0; i < m.n && nvariants == 1; i++)
		if (m.b[i].sib != (int64_t)i)
			nvariants = 2;
	for (int units = 0; units < nvariants; units++) {
		rc = plan_recompute(sc, &m, budget, placer, align, units, &cand,
				    err, errlen);
		if (rc == TRACE_ENOMEM)
			goto fail_cand;
		if (rc && !first_rc) {
			first_rc = rc;
			snprintf(first_err, sizeof(first_err), "%s", err);
		}
		keep(&best, &cand);
	}
	/* the checkpoint baselines, placed as they are: recompute-only is
	 * never predicted slower than checkpointing by hand where that fits */
	for (unsigned per = 0; per < 2; per++) {
		rc = plan_checkpoints(sc, &m, per, budget, placer, align, &cand,
				      err, errlen);
		if (rc == TRACE_ENOMEM)
			goto fail_cand;
		keep(&best, &cand);
	}
	if (a->strategy[0] == 'h') {
		uint64_t lb = solver_lower_bound(sc->p);
		/* swap-only first: recomputing nothing */
		rc = plan_level(sc, &m, UINT64_MAX, 0, budget, placer, align,
				&best, NULL, &cand, err, errlen);
		if (rc == TRACE_ENOMEM)
			goto fail_cand;
		if (rc && !first_rc) {
			first_rc = rc;
			snprintf(first_err, sizeof(first_err), "%s", err);
		}
		keep(&best, &cand);
		struct tried tried = { 0 };
		size_t levels = sc->t->nevents > HYBRID_EVENTS
					? 1 : sizeof(hybrid_levels) / sizeof(*hybrid_levels);
		/* every share with single buffers, then with units (the
		 * same choice is searched once); a large trace's one mix
		 * without: a second search would pass its 5 s */
		size_t nmix = levels > 1 ? (size_t)nvariants * levels : levels;
		for (size_t k = 0; lb > budget && k < nmix; k++) {
			size_t lv = k % levels;
			uint64_t tg = budget + (uint64_t)((double)(lb - budget) *
							  (1.0 - hybrid_levels[lv]));
			rc = plan_level(sc, &m, tg, k >= levels, budget, placer,
					align, &best, &tried, &cand, err, errlen);
			if (rc == TRACE_ENOMEM) {
				tried_free(&tried);
				goto fail_cand;
			}
			keep(&best, &cand);
		}
		tried_free(&tried);
		/* the checkpoint baselines' segments, memplan swapping the rest:
		 * never slower than checkpointing by hand */
		for (unsigned per = 0; lb > budget && per < 2; per++) {
			rc = plan_segments(sc, &m, per, budget, placer, align,
					   &best, &cand, err, errlen);
			if (rc == TRACE_ENOMEM)
				goto fail_cand;
			keep(&best, &cand);
		}
	}
	if (!best.have) {
		rc = trace_seterr(err, errlen, first_rc ? first_rc : SWAP_ENOFIT,
				  "%s", first_err);
		goto out;
	}
	rc = fill_advice(&m, &best, a, err, errlen);
	goto out;
fail_cand:
	cplan_free(&cand);
out:
	cplan_free(&best);
	recomp_model_free(&m);
	if (rc) {
		const char *s = a->strategy;
		recomp_advice_free(a);
		a->strategy = s;
	}
	return rc;
}

int recomp_plan_ctx(const struct swap_ctx *c, const char *name,
		    uint64_t budget, const char *placer, uint64_t align,
		    struct mp_plan *plan, struct sim_result *sim,
		    struct swap_outcome *oc, char *err, size_t errlen)
{
	struct recomp_advice a;
	memset(plan, 0, sizeof(*plan));
	memset(sim, 0, sizeof(*sim));
	memset(oc, 0, sizeof(*oc));
	int rc = recomp_advise(c, name, budget, placer, align, &a, err, errlen);
	if (rc)
		return rc;
	*plan = a.plan;
	*sim = a.sim;
	memset(&a.plan, 0, sizeof(a.plan));
	memset(&a.sim, 0, sizeof(a.sim));
	oc->nops = plan->nswaps;
	oc->swapped = a.swapped;
	oc->target = budget;
	oc->lb_noswap = solver_lower_bound(c->p);
	oc->attempts = 1;
	oc->chooser = a.strategy;
	recomp_advice_free(&a);
	return 0;
}
