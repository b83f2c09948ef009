/* SPDX-License-Identifier: MIT */
/*
 * test_swapbound.c - the link bound (planner/budget/swapbound.h): hand-made traces
 * whose bound follows from the lane arithmetic, the swap floor on an
 * infinite link, and the property that matters: no plan the planner makes
 * on the zoo has a pool below the bound for its link and its stall.
 */
#include <math.h>
#include <stdlib.h>

#include "../../analyze/swapfloor.h"
#include "frontier.h"
#include "swap.h"
#include "swapbound.h"
#include "synth.h"
#include "tap.h"

static int64_t buf(struct trace *t, uint64_t size, const char *label)
{
	struct trace_buffer b = { .size = size, .stream = 0, .fixed_offset = TRACE_NONE,
				  .label = label };
	return trace_add_buffer(t, &b);
}

static void ev(struct trace *t, int64_t *seq, unsigned type, int64_t buffer,
	       int64_t t0, int64_t t1)
{
	struct trace_event e = { .seq = (*seq)++, .type = (uint8_t)type,
				 .buffer = buffer, .stream = 0, .t_start = t0,
				 .t_end = t1, .name = type == TRACE_EV_KERNEL ? "k" : NULL };
	trace_add_event(t, &e);
}

/* A kernel from t0 to t1 that accesses buffer x. */
static void kern(struct trace *t, int64_t *seq, int64_t x, int64_t t0, int64_t t1)
{
	ev(t, seq, TRACE_EV_KERNEL, TRACE_NONE, t0, t1);
	trace_add_access(t, x, TRACE_ACCESS_RW);
}

/*
 * A (1000 bytes) is used by kernels at 0-100 and at `back`; temps T1 (10),
 * T2 and T3 (2000 each) come and go between, so without swaps 3000 bytes
 * are resident in steps 3 (from 200) and 5 (from 300), and A may be away
 * in steps 2-5 only (out after request 1, the alloc of T1 that ends at 100;
 * back by request 6, the free of T3 at 400).  Requests: r0 alloc A (0),
 * r1 alloc T1 (100), r2 free T1 (200), r3 alloc T2 (200), r4 free T2 (300),
 * r5 alloc T3 (300), r6 free T3 (400), r7 free A.
 */
static struct trace *two_peaks(int64_t back)
{
	struct trace *t = trace_new();
	int64_t A = buf(t, 1000, "A"), T1 = buf(t, 10, "T1"),
		T2 = buf(t, 2000, "T2"), T3 = buf(t, 2000, "T3"), s = 0;
	ev(t, &s, TRACE_EV_ALLOC, A, 0, 0);
	kern(t, &s, A, 0, 100);
	ev(t, &s, TRACE_EV_ALLOC, T1, 100, 100);
	kern(t, &s, T1, 100, 200);
	ev(t, &s, TRACE_EV_FREE, T1, 200, 200);
	ev(t, &s, TRACE_EV_ALLOC, T2, 200, 200);
	kern(t, &s, T2, 200, 300);
	ev(t, &s, TRACE_EV_FREE, T2, 300, 300);
	ev(t, &s, TRACE_EV_ALLOC, T3, 300, 300);
	kern(t, &s, T3, 300, 400);
	ev(t, &s, TRACE_EV_FREE, T3, 400, 400);
	kern(t, &s, A, back, back + 100);
	ev(t, &s, TRACE_EV_FREE, A, back + 100, back + 100);
	char err[256];
	if (trace_finish(t, err, sizeof(err)) != 0) {
		printf("#   %s\n", err);
		trace_free(t);
		return NULL;
	}
	return t;
}

static uint64_t bound_of(const struct trace *t, const char *link, double stall)
{
	char err[256];
	struct link_model l;
	struct swap_bound b;
	if (link_parse(link, NULL, &l, err, sizeof(err)) ||
	    swapbound_compute(t, &l, stall, &b, err, sizeof(err)) || !b.computed) {
		printf("#   %s: %s%s\n", link, err, b.why);
		return 0;
	}
	return b.bytes;
}

/* 5 bytes/ns both ways, full duplex: 500 bytes per 100 ns. */
#define SLOW "pcie5,h2d=5,d2h=5,latency=0,duplex=full"

static void test_hand(void)
{
	struct trace *t = two_peaks(700);
	if (!t) {
		CHECK(0, "hand trace builds");
		return;
	}
	CHECK_EQ_U64(bound_of(t, "infinite", 0), 2000,
		     "infinite link: the swap floor (A away at both peaks)");
	/* step 3: A's swap-out starts at 100 and must end by 200 */
	CHECK_EQ_U64(bound_of(t, SLOW, 0), 2500,
		     "stall-free: 500 of A's bytes can be out by the first peak");
	CHECK_EQ_U64(bound_of(t, "pcie5,h2d=5,d2h=5,duplex=full,latency=0.02", 0), 2600,
		     "stall-free: the latency comes off the window (400 bytes)");
	CHECK_EQ_U64(bound_of(t, SLOW, 50), 2250,
		     "50 ns of stall: 750 bytes by the first peak");
	CHECK_EQ_U64(bound_of(t, SLOW, 100), 2000,
		     "100 ns of stall: all of A out, the floor again");
	CHECK_EQ_U64(bound_of(t, "pcie5,h2d=5,d2h=5,latency=0,duplex=shared", 0), 2500,
		     "a shared link is bounded by each lane alone");
	trace_free(t);

	/* A needed back at 400, as T3 is freed: no time for a swap-in after
	 * step 5, so A stays at the second peak whatever goes out */
	t = two_peaks(400);
	if (!t) {
		CHECK(0, "hand trace builds");
		return;
	}
	CHECK_EQ_U64(bound_of(t, SLOW, 0), 3000,
		     "stall-free: the swap-in lane leaves no room at the second peak");
	CHECK_EQ_U64(bound_of(t, SLOW, 50), 2750,
		     "50 ns of stall: 250 bytes can come back in time");
	CHECK_EQ_U64(bound_of(t, "infinite", 0), 2000, "infinite link: the floor");
	trace_free(t);
}

static uint64_t space_of(const struct trace *t, const char *link,
			 enum swapbound_space sp, double overhead)
{
	char err[256];
	struct link_model l;
	struct swap_bound b;
	if (link_parse(link, NULL, &l, err, sizeof(err)) ||
	    swapbound_compute_space(t, &l, sp, overhead, &b, err, sizeof(err)) ||
	    !b.computed) {
		printf("#   %s: %s%s\n", link, err, b.why);
		return 0;
	}
	return b.bytes;
}

/*
 * K1 (0-100 ns) writes A and X (1000 bytes each), X is freed at once, T
 * (2000) comes and goes while A waits for its read at 300: requests r0
 * alloc A, r1 alloc X, r2 free X, r3 alloc T, r4 free T, r5 free A; the
 * peak is 3000 at r3, where A may be recomputed away.  A's share of K1 is
 * 50 ns (half the bytes K1 writes), so 25 ns of re-runs take 500 bytes.
 */
static void test_recompute(void)
{
	struct trace *t = trace_new();
	int64_t A = buf(t, 1000, "A"), X = buf(t, 1000, "X"), T = buf(t, 2000, "T"),
		s = 0;
	ev(t, &s, TRACE_EV_ALLOC, A, 0, 0);
	ev(t, &s, TRACE_EV_ALLOC, X, 0, 0);
	ev(t, &s, TRACE_EV_KERNEL, TRACE_NONE, 0, 100);
	trace_add_access(t, A, TRACE_ACCESS_WRITE);
	trace_add_access(t, X, TRACE_ACCESS_WRITE);
	ev(t, &s, TRACE_EV_FREE, X, 100, 100);
	ev(t, &s, TRACE_EV_ALLOC, T, 100, 100);
	kern(t, &s, T, 100, 200);
	ev(t, &s, TRACE_EV_FREE, T, 200, 200);
	ev(t, &s, TRACE_EV_KERNEL, TRACE_NONE, 300, 400);
	trace_add_access(t, A, TRACE_ACCESS_READ);
	ev(t, &s, TRACE_EV_FREE, A, 400, 400);
	char err[256];
	if (trace_finish(t, err, sizeof(err)) != 0) {
		printf("#   %s\n", err);
		trace_free(t);
		CHECK(0, "hand trace builds");
		return;
	}
	CHECK_EQ_U64(space_of(t, SLOW, SWAPBOUND_RECOMPUTE, 0), 3000,
		     "recompute, no overhead: nothing away");
	CHECK_EQ_U64(space_of(t, SLOW, SWAPBOUND_RECOMPUTE, 25), 2500,
		     "recompute, 25 ns: half of A's 50 ns share, 500 bytes");
	CHECK_EQ_U64(space_of(t, SLOW, SWAPBOUND_RECOMPUTE, 50), 2000,
		     "recompute, 50 ns: all of A");
	CHECK_EQ_U64(space_of(t, SLOW, SWAPBOUND_RECOMPUTE, 5000), 2000,
		     "recompute, any overhead: never more than A (T is in use)");
	CHECK_EQ_U64(space_of(t, "infinite", SWAPBOUND_RECOMPUTE, 0), 3000,
		     "recompute: the link does not matter");
	CHECK_EQ_U64(space_of(t, "infinite", SWAPBOUND_HYBRID, 0), 2000,
		     "hybrid on the infinite link: the swap floor");
	/* A's swap-out starts at 100 (r1's end... K1's) and meets the peak at
	 * 100 + D: with D = 25, 125 bytes cross, 500 are recomputed */
	uint64_t h = space_of(t, SLOW, SWAPBOUND_HYBRID, 25),
		 w = space_of(t, SLOW, SWAPBOUND_SWAP, 25);
	CHECK(h > 0 && h < 2500 && h >= 2000 && w > 2500 &&
	      h == w - 500, "hybrid: the swap bound at the same overhead less the re-runs' bytes");
	CHECK_EQ_U64(space_of(t, SLOW, SWAPBOUND_SWAP, 25), bound_of(t, SLOW, 25),
		     "SWAPBOUND_SWAP is swapbound_compute()");
	trace_free(t);

	/* written by a copy: never recomputed */
	t = trace_new();
	A = buf(t, 1000, "A");
	T = buf(t, 2000, "T");
	s = 0;
	ev(t, &s, TRACE_EV_ALLOC, A, 0, 0);
	ev(t, &s, TRACE_EV_COPY, TRACE_NONE, 0, 100);
	trace_add_access(t, A, TRACE_ACCESS_WRITE);
	ev(t, &s, TRACE_EV_ALLOC, T, 100, 100);
	kern(t, &s, T, 100, 200);
	ev(t, &s, TRACE_EV_FREE, T, 200, 200);
	ev(t, &s, TRACE_EV_KERNEL, TRACE_NONE, 300, 400);
	trace_add_access(t, A, TRACE_ACCESS_READ);
	ev(t, &s, TRACE_EV_FREE, A, 400, 400);
	if (trace_finish(t, err, sizeof(err)) != 0) {
		printf("#   %s\n", err);
		trace_free(t);
		CHECK(0, "hand trace builds");
		return;
	}
	CHECK_EQ_U64(space_of(t, SLOW, SWAPBOUND_RECOMPUTE, 1e6), 3000,
		     "a buffer a copy made is never recomputed");
	trace_free(t);
}

static void test_unknown(void)
{
	struct trace *t = trace_new();
	int64_t s = 0;
	ev(t, &s, TRACE_EV_KERNEL, TRACE_NONE, 0, 10);
	char err[256];
	struct link_model l;
	struct swap_bound b;
	int rc = trace_finish(t, err, sizeof(err));
	link_parse("gh200-c2c", NULL, &l, err, sizeof(err));
	rc = rc ? rc : swapbound_compute(t, &l, 0, &b, err, sizeof(err));
	CHECK(rc == 0 && !b.computed && b.why[0], "no pool: not computed, with a reason");
	CHECK(isnan(swapbound_pct(&b)), "not computed: no percentage");
	trace_free(t);
}

/*
 * Every plan the planner makes on two small zoo traces at 2.5% steps, all
 * strategies, on gh200-c2c and pcie5: its pool is at least the bound for
 * a stall at least its own (the bounds for a few stalls are computed once;
 * a plan is held to the one for the least stall at or above its own).
 * Stall-free plans must exist for the check to mean anything.
 */
static void test_zoo(void)
{
	static const struct synth_opts zoo[] = {
		{ "resnet50", 8, SYNTH_FP32, "h200", 0, NULL, 0 },
		{ "bert-base", 4, SYNTH_FP32, "h200", 0, NULL, 0 },
	};
	static const char *const links[] = { "gh200-c2c", "pcie5" };
	static const double share[] = { 0, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25 };
	enum { NS = sizeof(share) / sizeof(share[0]) };
	for (size_t z = 0; z < sizeof(zoo) / sizeof(zoo[0]); z++) {
		char err[512], what[200];
		struct trace *t;
		struct solver_problem p;
		struct swap_floor fl;
		if (synth_build(&zoo[z], &t, err, sizeof(err)) ||
		    solver_problem_from_trace(t, &p, err, sizeof(err)) ||
		    swapfloor_compute(t, &fl, err, sizeof(err)) || !fl.computed) {
			printf("#   %s: %s\n", zoo[z].model, err);
			CHECK(0, "zoo trace builds");
			continue;
		}
		snprintf(what, sizeof(what), "%s: the bound on the infinite link is the swap floor",
			 zoo[z].model);
		CHECK_EQ_U64(bound_of(t, "infinite", 0), fl.bytes, what);
		for (size_t k = 0; k < sizeof(links) / sizeof(links[0]); k++) {
			struct link_model l;
			struct frontier f;
			struct frontier_options o = { .from = 100, .step = 2.5, .to = 0,
						      .placer = "best-fit", .align = 1 };
			if (link_parse(links[k], t, &l, err, sizeof(err)) ||
			    frontier_sweep(t, &p, &l, &o, &f, err, sizeof(err))) {
				printf("#   %s: %s\n", links[k], err);
				CHECK(0, "frontier sweep");
				continue;
			}
			uint64_t bound[NS];
			for (size_t j = 0; j < NS; j++)
				bound[j] = bound_of(t, links[k], share[j] * f.base_ns);
			/* the yes/no form stops early and answers as the bound */
			size_t wrong = 0;
			for (size_t j = 0; j < NS; j++)
				for (int d = -3; d <= 3; d++) {
					uint64_t budget = bound[j] + (uint64_t)((int64_t)d * 4096);
					budget = d < -2 ? bound[j] / 2 : d > 2 ? f.lb_noswap : budget;
					int e = swapbound_exceeds(t, &l, share[j] * f.base_ns,
								  budget, err, sizeof(err));
					wrong += e != (bound[j] > budget);
				}
			snprintf(what, sizeof(what), "%s %s: swapbound_exceeds answers as the bound, about it and far from it",
				 zoo[z].model, links[k]);
			CHECK(wrong == 0, what);
			size_t plans = 0, free_plans = 0, below = 0;
			uint64_t least_free = 0;
			for (size_t r = 0; r < f.nrows; r++)
				for (size_t s = 0; s < f.nstrategies; s++) {
					const struct frontier_cell *c = &f.rows[r].cells[s];
					if (!c->fits)
						continue;
					size_t j = 0;
					while (j < NS && share[j] * f.base_ns < c->stall_ns)
						j++;
					uint64_t b = j < NS ? bound[j] : fl.bytes;
					plans++;
					if (c->stall_ns == 0) {
						free_plans++;
						if (!least_free || c->pool < least_free)
							least_free = c->pool;
					}
					if (c->pool < b) {
						below++;
						printf("#   %s %s %s at %.1f%%: pool %llu below the bound %llu (stall %.0f ns)\n",
						       zoo[z].model, links[k], f.strategies[s],
						       f.rows[r].percent, (unsigned long long)c->pool,
						       (unsigned long long)b, c->stall_ns);
					}
				}
			printf("#   %s %s: %zu plans, %zu stall-free (least pool %.1f%% of the lower bound, bound %.1f%%)\n",
			       zoo[z].model, links[k], plans, free_plans,
			       100.0 * (double)least_free / (double)f.lb_noswap,
			       100.0 * (double)bound[0] / (double)f.lb_noswap);
			snprintf(what, sizeof(what), "%s %s: stall-free plans below 100%% exist",
				 zoo[z].model, links[k]);
			CHECK(free_plans > 0 && least_free < f.lb_noswap, what);
			snprintf(what, sizeof(what), "%s %s: no plan's pool below the bound for its stall",
				 zoo[z].model, links[k]);
			CHECK(below == 0 && plans > 0, what);
			snprintf(what, sizeof(what), "%s %s: the bound is at least the floor, at most the lower bound",
				 zoo[z].model, links[k]);
			CHECK(bound[0] >= fl.bytes && bound[0] <= f.lb_noswap &&
			      bound[NS - 1] <= bound[0], what);
			frontier_free(&f);
		}
		solver_problem_free(&p);
		trace_free(t);
	}
}

/*
 * The same property for the plans of the program that recomputes: every
 * plan of recompute, hybrid and the checkpoint baselines on two zoo traces
 * (pcie5, budgets every 10%) has a pool at least the bound of its space at its own predicted
 * overhead.
 */
static void test_zoo_recompute(void)
{
	static const struct synth_opts zoo[] = {
		{ "resnet50", 8, SYNTH_FP32, "h200", 0, NULL, 0 },
		{ "bert-base", 4, SYNTH_FP32, "h200", 0, NULL, 0 },
	};
	static const char *const strat[] = { "recompute", "hybrid", "sqrt-n",
					     "every-layer" };
	for (size_t z = 0; z < sizeof(zoo) / sizeof(zoo[0]); z++) {
		char err[512], what[200];
		struct trace *t;
		struct solver_problem p;
		struct link_model l;
		struct frontier f;
		struct frontier_options o = { .strategies = strat, .nstrategies = 4,
					      .from = 100, .step = 10, .to = 0,
					      .placer = "best-fit", .align = 1 };
		if (synth_build(&zoo[z], &t, err, sizeof(err)) ||
		    solver_problem_from_trace(t, &p, err, sizeof(err)) ||
		    link_parse("pcie5", t, &l, err, sizeof(err)) ||
		    frontier_sweep(t, &p, &l, &o, &f, err, sizeof(err))) {
			printf("#   %s: %s\n", zoo[z].model, err);
			CHECK(0, "zoo trace and its frontier");
			continue;
		}
		size_t plans = 0, below = 0, reduced = 0;
		for (size_t r = 0; r < f.nrows; r++)
			for (size_t k = 0; k < f.nstrategies; k++) {
				const struct frontier_cell *c = &f.rows[r].cells[k];
				if (!c->fits)
					continue;
				struct swap_bound b;
				double on = c->overhead / 100.0 * f.base_ns;
				if (swapbound_compute_space(t, &l, k == 1 ? SWAPBOUND_HYBRID
									  : SWAPBOUND_RECOMPUTE,
							    (on > 0 ? on : 0) * (1 + 1e-9) + 1,
							    &b, err, sizeof(err)) ||
				    !b.computed) {
					printf("#   %s: %s%s\n", strat[k], err, b.why);
					below++;
					continue;
				}
				plans++;
				reduced += c->pool < f.lb_noswap;
				if (c->pool < b.bytes) {
					below++;
					printf("#   %s %s at %.1f%%: pool %llu below the bound %llu (overhead %.3f%%)\n",
					       zoo[z].model, strat[k], f.rows[r].percent,
					       (unsigned long long)c->pool,
					       (unsigned long long)b.bytes, c->overhead);
				}
			}
		printf("#   %s: %zu plans, %zu below the lower bound without recomputing\n",
		       zoo[z].model, plans, reduced);
		snprintf(what, sizeof(what), "%s: no recompute or hybrid plan's pool below the bound for its overhead",
			 zoo[z].model);
		CHECK(below == 0 && reduced > 5, what);
		frontier_free(&f);
		solver_problem_free(&p);
		trace_free(t);
	}
}

int main(void)
{
	test_hand();
	test_recompute();
	test_unknown();
	test_zoo_recompute();
	test_zoo();
	return tap_done();
}
