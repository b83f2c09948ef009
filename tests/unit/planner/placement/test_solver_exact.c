/* SPDX-License-Identifier: MIT */
/*
 * test_solver_exact.c - how far the exact search gets on a fixed budget of
 * search nodes (solver_search_exact_nodes(), so the counts hold on any
 * machine): guillotine-packed instances, whose optimum is the lower bound,
 * and MiniMalloc's challenging suite A-K, whose heights must never be worse
 * than those the search reached before (the table below).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "guillotine.h"
#include "minimalloc_csv.h"
#include "solver.h"
#include "tap.h"
#include "trace.h"

static char err[512];

/* --- guillotine instances (guillotine.h) ---------------------------------- */

/* Fills it[] (GUIL_MAX entries) with the instance of this seed; returns n. */
static size_t guillotine(uint64_t seed, struct solver_item *it)
{
	struct guil_rect r[GUIL_MAX];
	size_t n = guil_cut(seed, r);
	for (size_t i = 0; i < n; i++)
		it[i] = (struct solver_item){ (r[i].b1 - r[i].b0) * GUIL_UNIT, 1,
					      r[i].t0, r[i].t1, NULL, 0,
					      SOLVER_FREE, (int64_t)i };
	return n;
}

/*
 * Seeds 24-35: the search before the energy bound and restarts missed 27,
 * 28 and 31 within the budget (34 of seeds 1-40 at 100,000 nodes; now 39:
 * seed 23 still ends at 1.0059x).
 */
#define GUIL_SEED0 24
#define GUIL_COUNT 12
#define GUIL_NODES 100000

static void test_guillotine(void)
{
	struct solver_item it[GUIL_MAX];
	uint64_t off[GUIL_MAX];
	char what[160];
	for (uint64_t k = 0; k < GUIL_COUNT; k++) {
		uint64_t seed = GUIL_SEED0 + k;
		struct solver_problem p = { it, guillotine(seed, it), NULL, 0 };
		uint64_t lb = solver_lower_bound(&p);
		snprintf(what, sizeof(what),
			 "guillotine %" PRIu64 " (%zu buffers): the lower bound is the rectangle",
			 seed, p.n);
		CHECK_EQ_U64(lb, (uint64_t)GUIL_W * GUIL_UNIT, what);
		struct solver_report r;
		int rc = solver_search_exact_nodes(&p, GUIL_NODES, off, &r, err,
						   sizeof(err));
		if (rc)
			printf("# %s\n", err);
		snprintf(what, sizeof(what),
			 "guillotine %" PRIu64 ": exact reaches the lower bound within %d nodes",
			 seed, GUIL_NODES);
		printf("# guillotine %" PRIu64 ": height %" PRIu64 " (%.4fx), %" PRIu64 " nodes\n",
		       seed, r.height, (double)r.height / (double)lb, r.nodes);
		CHECK(rc == 0 && r.height == lb && r.optimal, what);
	}
}

/* The pieces of this seed of shape sh as items (sizes in GUIL_UNIT
 * bytes): n, 0 when out of memory. */
static size_t guillotine_shape(uint64_t seed, const struct guil_shape *sh,
			       struct solver_item *it)
{
	struct guil_rect *r = malloc(sh->nmax * sizeof(*r));
	if (!r)
		return 0;
	size_t n = guil_cut_shape(seed, sh, r);
	for (size_t i = 0; i < n; i++)
		it[i] = (struct solver_item){ (r[i].b1 - r[i].b0) * GUIL_UNIT, 1,
					      r[i].t0, r[i].t1, NULL, 0,
					      SOLVER_FREE, (int64_t)i };
	free(r);
	return n;
}

/* Gapless problems of thousands of buffers (a square cut as the packed
 * class is), searched from a thread with 1 MiB of stack.  The guillotine
 * search nests as deep as a flow has instants plus the buffers of one:
 * it runs on a thread of its own with a large stack, so a caller's small
 * stack neither overflows (5,800-5,900 buffers needed more than 1 MiB)
 * nor stops it (when its depth was bounded to fit 1 MiB, seed 7 of 2,500-
 * 3,000 buffers ended unplaced after 4 million steps; now placed in about
 * 1 million). */
struct deep_job {
	struct solver_problem p;
	uint64_t cap, *off, steps, max_steps;
	int rc;
};

static void *deep_main(void *arg)
{
	struct deep_job *j = arg;
	struct solver_options wo = { .work_limit = UINT64_MAX };
	struct solver_budget b;
	solver_budget_init(&b, &wo);
	j->rc = solver_search_guillotine(&j->p, j->cap, j->max_steps, &b,
					 j->off, &j->steps);
	return NULL;
}

/* The search of seed's problem of shape sh on a thread with 1 MiB of
 * stack: 1 placed at the bound (and checked), 0 not placed, -1 the test
 * itself failed. */
static int deep_search(const struct guil_shape *sh, uint64_t seed,
		       uint64_t max_steps, struct deep_job *j)
{
	*j = (struct deep_job){ { malloc(sh->nmax * sizeof(struct solver_item)),
				  0, NULL, 0 },
				sh->w * GUIL_UNIT,
				malloc(sh->nmax * sizeof(uint64_t)), 0,
				max_steps, -1 };
	pthread_attr_t at;
	pthread_t th;
	int ok = j->p.items && j->off && !pthread_attr_init(&at) &&
		 !pthread_attr_setstacksize(&at, 1024 * 1024);
	if (ok) {
		j->p.n = guillotine_shape(seed, sh, j->p.items);
		ok = j->p.n && !pthread_create(&th, &at, deep_main, j) &&
		     !pthread_join(th, NULL);
		pthread_attr_destroy(&at);
	}
	uint64_t h = 0;
	int res = !ok ? -1
		  : j->rc == 0 ? 0
		  : j->rc == 1 && !solver_check(&j->p, j->off, &h, err,
						sizeof(err)) && h == j->cap
			  ? 1
			  : -1;
	printf("# guillotine search, %zu buffers from 1 MiB of stack: %s in %" PRIu64 " steps\n",
	       j->p.n, res == 1 ? "placed" : res == 0 ? "not placed" : "failed",
	       j->steps);
	free(j->p.items);
	free(j->off);
	return res;
}

static void test_guillotine_deep(void)
{
	static const struct guil_shape huge = { 5800, 5900, 65536, 65536,
						GUIL_PICK_ANY, GUIL_DIR_ALTERNATE };
	static const struct guil_shape large = { 2500, 3000, 32768, 32768,
						 GUIL_PICK_ANY, GUIL_DIR_ALTERNATE };
	struct deep_job j;
	CHECK(deep_search(&huge, 1, 3000000, &j) >= 0,
	      "guillotine search: 5,800-5,900 buffers from 1 MiB of stack, no overflow");
	CHECK(deep_search(&large, 7, 3000000, &j) == 1,
	      "guillotine search: 2,587 buffers from 1 MiB of stack, placed at the bound within 3 million steps");
}

/*
 * The packed class beyond the seeds above (issue 32): guillotine instances
 * of 300-450 buffers, on which the branch and bound of 2026-11-28 ended
 * 0.5-13% above the bound after 2 s (23 of seeds 1-100).  auto, under a
 * counted budget (the same on any machine), must reach the bound; before
 * the skyline search big-19 took 1.17 million nodes and big-38 did not
 * reach it in 26 million.  big-10 and big-45 defeated the skyline search
 * too (no placement in 2 million nodes; auto ended at 1.040x and 1.046x
 * here) until it learnt from its failures (conflict sets and the memo of
 * failed sets, solver_skyline.c): now 11,869 and 10,927 nodes.  big-27
 * defeated that too (3.3 million nodes; auto ended above the bound here)
 * until failed sets were kept by the stretch of time their conflict set
 * spans as well (local nogoods): now 12,840 nodes.
 */
#define BIG_WORK 400000

/* The guillotine search alone on a seed of shape sh (a tiling of the
 * GUIL_W-unit square) within max_steps, printed as "# what, big-SEED":
 * 1 when it places it, validly, at the bound. */
static int guillotine_places(const char *what, uint64_t seed,
			     const struct guil_shape *sh, uint64_t max_steps,
			     struct solver_item *it, uint64_t *off,
			     uint64_t *steps)
{
	const uint64_t cap = sh->w * GUIL_UNIT;
	struct solver_problem p = { it, guillotine_shape(seed, sh, it), NULL,
				    0 };
	struct solver_options wo = { .work_limit = UINT64_MAX };
	struct solver_budget b;
	solver_budget_init(&b, &wo);
	uint64_t h = 0;
	*steps = 0;
	int rc = solver_search_guillotine(&p, cap, max_steps, &b, off, steps);
	printf("# %s, seed %" PRIu64 " (%zu buffers): %s in %" PRIu64
	       " steps\n", what, seed, p.n, rc == 1 ? "placed" : "not placed",
	       *steps);
	return rc == 1 && !solver_check(&p, off, &h, err, sizeof(err)) &&
	       h == cap;
}

/*
 * The guillotine search (solver_guillotine.c, issue 32): big-57, 162, 269
 * and 292 defeat the skyline search within 2 million nodes (57 within 10
 * million; auto ended at 1.063x after 5 s); the guillotine search places
 * them in 1.9 million steps at most.  Every placement it returns is
 * valid, on every shape of the construction, and it returns nothing
 * where an instant is not full.
 */
static void test_guillotine_search(void)
{
	static const struct guil_shape shapes[] = {
		{ 300, 450, GUIL_W, GUIL_T, GUIL_PICK_ANY, GUIL_DIR_ALTERNATE },
		{ 150, GUIL_MAX, GUIL_W, GUIL_T, GUIL_PICK_ANY, GUIL_DIR_RANDOM },
		{ 150, GUIL_MAX, GUIL_W, GUIL_T, GUIL_PICK_LAST, GUIL_DIR_ALTERNATE },
		{ 150, GUIL_MAX, GUIL_W, GUIL_T, GUIL_PICK_BIG, GUIL_DIR_ALTERNATE },
		{ 300, 450, GUIL_W, GUIL_T, GUIL_PICK_ANY, GUIL_DIR_RANDOM },
		{ 60, 120, GUIL_W, GUIL_T, GUIL_PICK_ANY, GUIL_DIR_ALTERNATE },
	};
	static const uint64_t seeds[] = { 57, 162, 269, 292 };
	const uint64_t cap = (uint64_t)GUIL_W * GUIL_UNIT;
	struct solver_item *it = malloc(450 * sizeof(*it));
	uint64_t *off = malloc(450 * sizeof(*off));
	char what[200];
	CHECK(it && off, "guillotine search: memory");
	if (!it || !off) {
		free(it);
		free(off);
		return;
	}
	struct solver_options wo = { .work_limit = UINT64_MAX };
	for (size_t k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
		uint64_t steps;
		int ok = guillotine_places("guillotine search", seeds[k],
					   &shapes[0], 4000000, it, off,
					   &steps);
		snprintf(what, sizeof(what),
			 "guillotine search: big-%" PRIu64 " at the bound within 4 million steps",
			 seeds[k]);
		CHECK(ok, what);
	}
	/* auto, counted: the guillotine search goes first with a tenth of
	 * the work (64 steps a unit: 5.1 million steps here) */
	struct solver_problem p = { it, guillotine_shape(57, &shapes[0], it),
				    NULL, 0 };
	struct solver_options o = { .work_limit = 800000 };
	struct solver_report r;
	int rc = solver_solve(&p, "auto", &o, off, &r, err, sizeof(err));
	printf("# auto, big-57, 800,000 units: %.4fx in %.2f s\n",
	       (double)r.height / (double)cap, r.seconds);
	CHECK(rc == 0 && r.height == cap && r.optimal,
	      "guillotine search: auto places big-57 at the bound within 800,000 units of work");
	/* what it returns is valid, on every shape; nothing where an
	 * instant is not full */
	size_t found = 0, tried = 0, bad = 0, gap_bad = 0;
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
		for (uint64_t seed = 1; seed <= 15; seed++) {
			struct solver_problem q = {
				it, guillotine_shape(seed, &shapes[sh], it), NULL, 0
			};
			struct solver_budget b;
			solver_budget_init(&b, &wo);
			uint64_t steps = 0, h = 0;
			rc = solver_search_guillotine(&q, cap, 200000, &b, off,
						      &steps);
			tried++;
			if (rc == 1) {
				found++;
				bad += solver_check(&q, off, &h, err,
						    sizeof(err)) != 0 ||
				       h != cap;
			} else if (rc != 0) {
				bad++;
			}
			it[q.n / 2].upper = it[q.n / 2].lower;
			rc = solver_search_guillotine(&q, cap, 200000, &b, off,
						      &steps);
			gap_bad += rc != 0 || steps != 0;
		}
	printf("# guillotine search: %zu of %zu placed within 200,000 steps\n",
	       found, tried);
	CHECK(bad == 0 && found > tried / 2,
	      "guillotine search: every placement it returns is valid and at the bound (six shapes, 15 seeds each)");
	CHECK(gap_bad == 0,
	      "guillotine search: nothing, at once, where an instant is not full");
	free(it);
	free(off);
}

/* Seed of shape sh placed at the bound by the guillotine search within
 * 20 million steps, and within `within` of them: the check named msg. */
static void guillotine_within(const char *what, const struct guil_shape *sh,
			      uint64_t seed, uint64_t within, const char *msg)
{
	struct solver_item *it = malloc(sh->nmax * sizeof(*it));
	uint64_t *off = malloc(sh->nmax * sizeof(*off)), steps = 0;
	char oom[160];
	if (!it || !off) {
		snprintf(oom, sizeof(oom), "%s: memory", what);
		CHECK(0, oom);
	} else {
		int ok = guillotine_places(what, seed, sh, 20000000, it, off,
					   &steps);
		CHECK(ok && steps <= within, msg);
	}
	free(it);
	free(off);
}

static const struct guil_shape guil_big = { 300, 450, GUIL_W, GUIL_T,
					    GUIL_PICK_ANY, GUIL_DIR_ALTERNATE };

/*
 * The sweep (solver_guillotine.c's first pass, issue 32): big-61 and the
 * held-out big-116 and 168 have a hard block whose balanced sets the
 * growth never completes (not placed within 20 million steps, both
 * orders); swept in time order with the split-off set asked to leave an
 * instant uncrossed, each is placed within 4 million.
 */
static void test_guillotine_sweep(void)
{
	static const uint64_t seeds[] = { 61, 116, 168 };
	char what[200];
	for (size_t k = 0; k < sizeof(seeds) / sizeof(*seeds); k++) {
		snprintf(what, sizeof(what),
			 "guillotine sweep: big-%" PRIu64 " at the bound within 20 million steps (the sweep's 5 million)",
			 seeds[k]);
		guillotine_within("guillotine sweep", &guil_big, seeds[k],
				  5000000, what);
	}
}

/*
 * The second sweep (issue 32): sets of at most half the block's height,
 * x0's or not.  Where x0's strip is most of a hard block another strip
 * is thin: held-out big-222 and large-4 were not placed within 20
 * million steps when every set held x0; now each is, in the second
 * sweep (the last pass, from 16 million steps on: 18.6-18.7 million).
 */
static void test_guillotine_thin(void)
{
	/* bench_placement's "large" shape */
	static const struct guil_shape large = { 1500, 2000, 16384, 16384,
						 GUIL_PICK_ANY,
						 GUIL_DIR_ALTERNATE };
	static const struct {
		const struct guil_shape *sh;
		uint64_t seed;
	} cases[] = { { &guil_big, 222 }, { &large, 4 } };
	char what[200];
	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		snprintf(what, sizeof(what),
			 "guillotine, thin strips: seed %" PRIu64 " of %zu-%zu buffers at the bound within 20 million steps",
			 cases[k].seed, cases[k].sh->nmin, cases[k].sh->nmax);
		guillotine_within("guillotine, thin strips", cases[k].sh,
				  cases[k].seed, 20000000, what);
	}
}

/*
 * The first sweep in rounds (issue 32): x0's sets of at most a 64th of
 * the block's height, then an eighth, then all.  Seed 13 of 2,500-3,000
 * buffers (a 32 Ki square) has a thin strip of x0 in a block whose
 * layers of every set passed the sweep's bounds: not placed within 20
 * million steps before; now within the first sweep's 5 million.
 */
static void test_guillotine_rounds(void)
{
	static const struct guil_shape sq32 = { 2500, 3000, 32768, 32768,
						GUIL_PICK_ANY,
						GUIL_DIR_ALTERNATE };
	guillotine_within("guillotine, the first sweep in rounds", &sq32, 13,
			  5000000,
			  "guillotine, the first sweep in rounds: seed 13 of 2,500-3,000 buffers at the bound within 20 million steps (the first sweep's 5 million)");
}

/* The relaxed search on p at cap lb (steps, per a buffer, flags), its
 * figures printed under name: the height of its placement, or 0 when it
 * found none or the placement is not valid and of the height it
 * reports. */
/* In relaxed_within()'s flags: polish with solver_search_exact(), as
 * exact and auto do (the bit is taken off before the call). */
#define TEST_POLISH (1u << 30)

static uint64_t relaxed_within(const struct solver_problem *p, uint64_t lb,
			       uint64_t steps, uint64_t per, unsigned flags,
			       uint64_t *off, const char *name)
{
	struct solver_guillotine_relaxed g;
	uint64_t h = 0;
	int rc = solver_search_guillotine_relaxed(
		p, lb, steps, per, flags & ~TEST_POLISH,
		flags & TEST_POLISH ? solver_search_exact : NULL, NULL, off, &g);
	int valid = rc == 1 && !solver_check(p, off, &h, err, sizeof(err)) &&
		    h == g.height;
	printf("# relaxed guillotine, %s: %.4fx, %zu blocks (%zu buffers) by the heuristics (%zu polished lower), %" PRIu64 " steps\n",
	       name, rc == 1 ? (double)h / (double)lb : 0.0, g.falls, g.fell,
	       g.polished, g.steps);
	return valid ? h : 0;
}

/*
 * Propagation in the growth (issue 32): after each choice, what the
 * touched instants force is decided (an arc without which the rest of an
 * instant's undecided arcs cannot balance it is in, one with which they
 * cannot is out), so a wrong choice dies where it is made instead of
 * hundreds of levels down.  Held-out big-112 was not placed within 20
 * million steps (either order, either sweep); now within 6 million.
 * The relaxed search, seeded: 800 buffers in 2 Ki x 4 Ki cut
 * alternately, seed 101, ended 1.183x in 18.9 million steps (a block of
 * 766 buffers to the heuristics); now at the bound within 1 million, and
 * huge-9 (5,801 buffers) 1.082x -> the bound.
 */
static void test_guillotine_propagation(void)
{
	guillotine_within("guillotine, propagation", &guil_big, 112, 6000000,
			  "guillotine, propagation: big-112 at the bound within 6 million steps (was not within 20 million)");
	static const struct {
		struct guil_shape sh;
		uint64_t seed;
		const char *name;
	} cases[] = {
		{ { 800, 800, 2048, 4096, GUIL_PICK_ANY, GUIL_DIR_ALTERNATE },
		  101, "800 buffers in 2 Ki x 4 Ki, seed 101 (was 1.183x in 18.9 million)" },
		{ { 5800, 5900, 65536, 65536, GUIL_PICK_ANY, GUIL_DIR_ALTERNATE },
		  9, "huge-9 (was 1.082x in 20 million)" },
	};
	struct solver_item *it = malloc(5900 * sizeof(*it));
	uint64_t *off = malloc(5900 * sizeof(*off));
	char what[200];
	if (!it || !off) {
		CHECK(0, "guillotine, propagation: memory");
		goto out;
	}
	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		struct solver_problem p = {
			it, guillotine_shape(cases[k].seed, &cases[k].sh, it),
			NULL, 0
		};
		uint64_t lb = solver_lower_bound(&p);
		snprintf(what, sizeof(what), "seeded, %s", cases[k].name);
		uint64_t h = relaxed_within(&p, lb, 1000000, 1000,
					    SOLVER_GUILLOTINE_SEEDED, off, what);
		snprintf(what, sizeof(what),
			 "guillotine, propagation: seeded relaxed search, %s, at the bound within 1 million steps",
			 cases[k].name);
		CHECK(h == lb, what);
	}
	/* the growth by the earliest unbalanced instant (time order), the
	 * third relaxed run of auto: held-out big-393, which the fewest-
	 * undecided order leaves 1.0107x above the bound */
	{
		struct solver_problem p = {
			it, guillotine_shape(393, &guil_big, it), NULL, 0
		};
		uint64_t lb = solver_lower_bound(&p), h[2];
		for (int k = 0; k < 2; k++)
			h[k] = relaxed_within(
				&p, lb, 2000000, 1000,
				SOLVER_GUILLOTINE_SEEDED |
					SOLVER_GUILLOTINE_HEIGHT |
					(k ? SOLVER_GUILLOTINE_EARLIEST : 0),
				off,
				k ? "seeded with heights, earliest first, big-393"
				  : "seeded with heights, big-393");
		CHECK(h[1] == lb && h[0] > lb,
		      "guillotine, earliest instant first: seeded with heights, big-393 at the bound within 2 million steps (fewest undecided first: above it)");
	}
out:
	free(it);
	free(off);
}

/*
 * Restarts (issue 32): held-out big-926's seeded relaxed search keeps a
 * wrong first split, and two blocks under it have no split any way
 * finds (1.0625x); its restarts draw the seeds' order and the subsets'
 * (SOLVER_GUILLOTINE_RESTART), so their first splits differ: restart 2
 * ends 1.0215x.  The same restart gives the same placement twice.
 */
static void test_guillotine_restarts(void)
{
	struct solver_item *it = malloc(450 * sizeof(*it));
	uint64_t *off = malloc(450 * sizeof(*off));
	uint64_t *off2 = malloc(450 * sizeof(*off2));
	if (!it || !off || !off2) {
		CHECK(0, "guillotine restarts: memory");
		goto out;
	}
	struct solver_problem p = { it, guillotine_shape(926, &guil_big, it),
				    NULL, 0 };
	uint64_t lb = solver_lower_bound(&p);
	uint64_t h0 = relaxed_within(&p, lb, 20000000, 1000,
				     SOLVER_GUILLOTINE_SEEDED, off,
				     "seeded, big-926");
	uint64_t h2 = relaxed_within(&p, lb, 20000000, 1000,
				     SOLVER_GUILLOTINE_SEEDED |
					     SOLVER_GUILLOTINE_RESTART(2),
				     off, "seeded, restart 2, big-926");
	uint64_t h2b = relaxed_within(&p, lb, 20000000, 1000,
				      SOLVER_GUILLOTINE_SEEDED |
					      SOLVER_GUILLOTINE_RESTART(2),
				      off2, "seeded, restart 2 again, big-926");
	CHECK(h0 && h2 && h2 < h0 && (double)h2 <= 1.03 * (double)lb,
	      "guillotine restarts: big-926, restart 2 of the seeded relaxed search below the run without draws, within 3% of the bound");
	CHECK(h2b == h2 && !memcmp(off, off2, p.n * sizeof(*off)),
	      "guillotine restarts: the same restart, the same placement");
out:
	free(it);
	free(off);
	free(off2);
}

/*
 * Polish (issue 32): a block the relaxed search cannot cut, which the
 * heuristics place, searched again by the exact search (passed in, as
 * exact and auto pass it) with a part of what is left of the run.
 * big-924 (390 buffers), seeded, counted: three blocks of 331 buffers to
 * the heuristics, 1.1172x; polished, lower than that and within 7% of
 * the bound (1.0596x), the same placement on one thread (the exact search
 * counts its work there).  The old code had no polish and ended where the
 * run without it does.
 */
static void test_guillotine_polish(void)
{
	struct solver_item *it = malloc(450 * sizeof(*it));
	uint64_t *off = malloc(450 * sizeof(*off));
	uint64_t *off2 = malloc(450 * sizeof(*off2));
	if (!it || !off || !off2) {
		CHECK(0, "guillotine polish: memory");
		goto out;
	}
	struct solver_problem p = { it, guillotine_shape(924, &guil_big, it),
				    NULL, 0 };
	uint64_t lb = solver_lower_bound(&p);
	uint64_t h0 = relaxed_within(&p, lb, 20000000, 1000,
				     SOLVER_GUILLOTINE_SEEDED, off,
				     "seeded, big-924");
	uint64_t h1 = relaxed_within(&p, lb, 20000000, 1000,
				     SOLVER_GUILLOTINE_SEEDED | TEST_POLISH, off,
				     "seeded, polished, big-924");
	uint64_t h2 = relaxed_within(&p, lb, 20000000, 1000,
				     SOLVER_GUILLOTINE_SEEDED | TEST_POLISH |
					     SOLVER_GUILLOTINE_ONE_THREAD,
				     off2, "seeded, polished on one thread, big-924");
	CHECK(h0 && h1 && h1 < h0 && (double)h1 <= 1.07 * (double)lb,
	      "guillotine polish: big-924, the blocks the heuristics placed searched again, below the run without, within 7% of the bound");
	CHECK(h2 == h1 && !memcmp(off, off2, p.n * sizeof(*off)),
	      "guillotine polish: counted, the same placement on one thread as on two");
out:
	free(it);
	free(off);
	free(off2);
}

static void test_packed_big(void)
{
	static const struct guil_shape big = { 300, 450, GUIL_W, GUIL_T,
					       GUIL_PICK_ANY, GUIL_DIR_ALTERNATE };
	static const uint64_t seeds[] = { 4, 19, 38, 10, 45, 27 };
	struct solver_item *it = malloc(big.nmax * sizeof(*it));
	uint64_t *off = malloc(big.nmax * sizeof(*off));
	char what[160];
	for (size_t k = 0; it && off && k < sizeof(seeds) / sizeof(seeds[0]);
	     k++) {
		struct solver_problem p = { it, guillotine_shape(seeds[k], &big, it),
					    NULL, 0 };
		struct solver_options o = { .work_limit = BIG_WORK };
		struct solver_report r;
		int rc = solver_solve(&p, "auto", &o, off, &r, err, sizeof(err));
		printf("# packed big-%" PRIu64 " (%zu buffers): height %" PRIu64
		       " (%.4fx), %" PRIu64 " nodes\n",
		       seeds[k], p.n, r.height,
		       (double)r.height / (double)(GUIL_W * GUIL_UNIT), r.nodes);
		snprintf(what, sizeof(what),
			 "packed big-%" PRIu64 ": auto reaches the bound within %d units of work",
			 seeds[k], BIG_WORK);
		CHECK(rc == 0 && r.height == (uint64_t)GUIL_W * GUIL_UNIT &&
			      r.optimal,
		      what);
		/* the skyline search alone, on the problem with a gap */
		uint64_t nodes;
		struct solver_budget b;
		solver_budget_init(&b, &o);
		it[0].upper = it[0].lower; /* one buffer gone: an instant not full */
		rc = solver_search_skyline(&p, (uint64_t)GUIL_W * GUIL_UNIT,
					   100000, &b, off, &nodes);
		snprintf(what, sizeof(what),
			 "packed big-%" PRIu64 " less a buffer: no skyline search where an instant is not full",
			 seeds[k]);
		CHECK(rc == 0 && nodes == 0, what);
	}
	/* under a time limit on two processors the skyline has a thread
	 * beside the branch and bound: a valid answer, reported on two */
	/* (big-67: the guillotine search, which goes first, misses it; its
	 * relaxed form, polished, places it: not run here) */
	struct solver_problem p = { it, it ? guillotine_shape(67, &big, it) : 0,
				    NULL, 0 };
	struct solver_options o = { .time_limit = 10, .no_relaxed = 1 };
	struct solver_report r;
	int rc = it && off ? solver_solve(&p, "auto", &o, off, &r, err,
					  sizeof(err))
			   : -1;
	snprintf(what, sizeof(what),
		 "packed big-67, a time limit: a valid answer, the skyline on a thread of its own on %ld processors",
		 solver_cpus());
	CHECK(rc == 0 && r.height >= r.lower_bound &&
		      (solver_cpus() < 2 || r.threads == 2),
	      what);
	CHECK(it && off, "packed big: memory");
	free(it);
	free(off);
}

/*
 * The kind the climb solves (issue 33): a guillotine instance with every
 * buffer grown by 0-3 units at random, so that the rectangle's height is
 * seldom reachable and the floor never settles, while the climb finds
 * lower heights every few thousand nodes.  Searched on one thread with
 * the turns of a search against the clock (solver_search_exact_paying():
 * counted, so that the nodes can be checked), within the nodes one core
 * runs on MiniMalloc's D and J in 2 s, these heights must be reached: the
 * floor took two thirds of the nodes whoever paid, and ended at 1,091,584
 * and 1,073,152 (of seeds 1-30 these two and 27 ended higher then, none
 * lower).
 */
#define CLIMB_NODES 135000

static size_t guillotine_grown(uint64_t seed, struct solver_item *it)
{
	size_t n = guillotine(seed, it);
	uint64_t s = seed * UINT64_C(0x9E3779B97F4A7C15) + 2;
	for (size_t i = 0; i < n; i++)
		it[i].size += guil_rand(&s) % 4 * GUIL_UNIT;
	return n;
}

static void test_climb(void)
{
	static const struct {
		uint64_t seed, height;
	} grown[] = { { 7, 1081344 }, { 17, 1071104 } };
	struct solver_item it[GUIL_MAX];
	uint64_t off[GUIL_MAX];
	char what[160];
	for (size_t k = 0; k < sizeof(grown) / sizeof(grown[0]); k++) {
		struct solver_problem p = { it, guillotine_grown(grown[k].seed, it),
					    NULL, 0 };
		struct solver_report r;
		int rc = solver_search_exact_paying(&p, CLIMB_NODES, off, &r,
						    err, sizeof(err));
		if (rc)
			printf("# %s\n", err);
		printf("# grown %" PRIu64 " (%zu buffers): height %" PRIu64
		       ", lower bound %" PRIu64 ", %" PRIu64 " nodes\n",
		       grown[k].seed, p.n, r.height, r.lower_bound, r.nodes);
		snprintf(what, sizeof(what),
			 "grown guillotine %" PRIu64 ": the climb's turns reach %" PRIu64 " within %d nodes",
			 grown[k].seed, grown[k].height, CLIMB_NODES);
		CHECK(rc == 0 && r.height <= grown[k].height &&
			      r.height >= r.lower_bound,
		      what);
	}
}

/* --- MiniMalloc's challenging suite ------------------------------------- */

/*
 * Heights the search reached within SUITE_NODES nodes before the search
 * core was reworked (commit "exact: a node budget for tests"); the search
 * must never end higher (counted work: the fixed shares of the turns).
 */
#define SUITE_NODES 20000
static const struct {
	const char *name;
	uint64_t before;
} suite[] = {
	{ "A", 1169408 }, { "B", 1134592 }, { "C", 1039360 },
	{ "D", 1061888 }, { "E", 1234944 }, { "F", 1048576 },
	{ "G", 1048576 }, { "H", 1136640 }, { "I", 1231872 },
	{ "J", 1062912 }, { "K", 1048576 },
};

/* Loads instance name of the suite into *t and *p; 0 or -1 (said). */
static int load_suite(const char *dir, const char *name, struct trace **t,
		      struct solver_problem *p)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/placement/%s.1048576.csv", dir, name);
	*t = NULL;
	if (mmcsv_import(path, t, err, sizeof(err)) ||
	    solver_problem_from_trace(*t, p, err, sizeof(err))) {
		printf("# %s\n", err);
		trace_free(*t);
		*t = NULL;
		return -1;
	}
	return 0;
}

static void test_suite(const char *dir)
{
	char what[160];
	for (size_t k = 0; k < sizeof(suite) / sizeof(suite[0]); k++) {
		struct trace *t;
		struct solver_problem p;
		if (load_suite(dir, suite[k].name, &t, &p)) {
			CHECK(0, "suite: the instance loads");
			continue;
		}
		uint64_t *off = malloc(p.n * sizeof(*off));
		struct solver_report r;
		int rc = solver_search_exact_nodes(&p, SUITE_NODES, off, &r, err,
						   sizeof(err));
		if (rc)
			printf("# %s\n", err);
		printf("# %s: height %" PRIu64 " (before: %" PRIu64 "), lower bound %" PRIu64 ", %" PRIu64 " nodes\n",
		       suite[k].name, r.height, suite[k].before, r.lower_bound,
		       r.nodes);
		snprintf(what, sizeof(what),
			 "suite %s: within %d nodes, no higher than before",
			 suite[k].name, SUITE_NODES);
		CHECK(rc == 0 && r.height <= suite[k].before &&
			      r.height >= r.lower_bound,
		      what);
		free(off);
		solver_problem_free(&p);
		trace_free(t);
	}
}

/*
 * Instances of the suite whose optimum is the lower bound and which the
 * search reaches only with long runs of one plain preorder (E: each of its
 * two components is solved at the bound by one preorder as it is, in
 * about 18,000 nodes, by no perturbed run seen; I: only with the parts of
 * a split ranked afresh): within these node budgets they must end at the
 * bound.  Before, neither was found in runs of millions of nodes.  With
 * the turns of a search against the clock (shares by who pays) they take
 * more: E 261,000 nodes, I 101,000, K 31,000 (212,000, 66,000 and 18,800
 * with the fixed shares); paying below holds them to that.
 */
static const struct {
	const char *name;
	uint64_t nodes;
} at_bound[] = {
	{ "E", 250000 },
	{ "I", 100000 },
};
/* ... and with the paying turns (E left out: 275,000 nodes more) */
static const struct {
	const char *name;
	uint64_t nodes;
} at_bound_paying[] = {
	{ "I", 125000 },
	{ "K", 40000 },
};

static void at_bound_one(const char *dir, const char *name, uint64_t nodes,
			 int paying)
{
	char what[160];
	struct trace *t;
	struct solver_problem p;
	if (load_suite(dir, name, &t, &p)) {
		CHECK(0, "at the bound: the instance loads");
		return;
	}
	uint64_t *off = malloc(p.n * sizeof(*off));
	struct solver_report r;
	int rc = paying ? solver_search_exact_paying(&p, nodes, off, &r, err,
						     sizeof(err))
			: solver_search_exact_nodes(&p, nodes, off, &r, err,
						    sizeof(err));
	if (rc)
		printf("# %s\n", err);
	printf("# %s%s: height %" PRIu64 ", lower bound %" PRIu64 ", %" PRIu64 " nodes\n",
	       name, paying ? " (paying turns)" : "", r.height, r.lower_bound,
	       r.nodes);
	snprintf(what, sizeof(what),
		 "suite %s: at the lower bound within %" PRIu64 " nodes%s",
		 name, nodes, paying ? " (paying turns)" : "");
	CHECK(rc == 0 && r.height == r.lower_bound && r.optimal, what);
	free(off);
	solver_problem_free(&p);
	trace_free(t);
}

static void test_at_bound(const char *dir)
{
	for (size_t k = 0; k < sizeof(at_bound) / sizeof(at_bound[0]); k++)
		at_bound_one(dir, at_bound[k].name, at_bound[k].nodes, 0);
	for (size_t k = 0;
	     k < sizeof(at_bound_paying) / sizeof(at_bound_paying[0]); k++)
		at_bound_one(dir, at_bound_paying[k].name,
			     at_bound_paying[k].nodes, 1);
}

/* --- the shortcuts of problems without holes -------------------------- */

/*
 * Without holes a node scans only the sections where it can fail and
 * keeps no floor tree (raise_moved(), unpl_max()); exact_scan_all turns
 * that off.  The same nodes must die: the same count, the same offsets.
 */
static void same_search(const struct solver_problem *p, uint64_t work,
			const char *name)
{
	uint64_t *a = malloc(p->n * sizeof(*a)), *b = malloc(p->n * sizeof(*b));
	struct solver_options oa = { .work_limit = work, .no_skyline = 1 };
	struct solver_options ob = { .work_limit = work, .exact_scan_all = 1,
				     .no_skyline = 1 };
	struct solver_report ra, rb;
	char what[160];
	memset(&ra, 0, sizeof(ra));
	memset(&rb, 0, sizeof(rb));
	int rca = solver_search_exact(p, &oa, a, &ra, err, sizeof(err));
	int rcb = solver_search_exact(p, &ob, b, &rb, err, sizeof(err));
	snprintf(what, sizeof(what),
		 "%s: the same search with every section scanned (%" PRIu64
		 " and %" PRIu64 " nodes)",
		 name, ra.nodes, rb.nodes);
	CHECK(rca == 0 && rcb == 0 && ra.nodes == rb.nodes && ra.nodes > 0 &&
		      ra.height == rb.height &&
		      !memcmp(a, b, p->n * sizeof(*a)),
	      what);
	free(a);
	free(b);
}

static void test_scan_all(const char *dir)
{
	struct solver_item it[GUIL_MAX];
	char name[64];
	for (uint64_t seed = 20; seed < 28; seed++) {
		struct solver_problem p = { it, guillotine(seed, it), NULL, 0 };
		snprintf(name, sizeof(name), "guillotine %" PRIu64, seed);
		same_search(&p, 20000, name);
	}
	if (!dir)
		return;
	for (size_t k = 0; k < sizeof(suite) / sizeof(suite[0]); k++) {
		struct trace *t;
		struct solver_problem p;
		if (load_suite(dir, suite[k].name, &t, &p)) {
			CHECK(0, "scan all: the instance loads");
			continue;
		}
		snprintf(name, sizeof(name), "suite %s", suite[k].name);
		same_search(&p, 15000, name);
		solver_problem_free(&p);
		trace_free(t);
	}
}

/* --- two threads under a time limit -------------------------------------- */

/*
 * On two processors a time-limited search runs the floor and the climb in
 * threads of their own; a counted one stays on one thread (its answer
 * must not depend on the machine).  Whichever thread ends it, the answer
 * is a valid placement no higher than the seed, and optimal is claimed
 * only at the proven bound.
 */
static void check_threads(const struct solver_problem *p, double seconds,
			  const char *name, int at_bound)
{
	uint64_t *off = malloc(p->n * sizeof(*off)), seed_h = 0, h = 0;
	struct solver_options o = { .time_limit = seconds, .no_skyline = 1 };
	struct solver_report r;
	char what[200];
	memset(&r, 0, sizeof(r));
	int rc = solver_search_exact(p, &o, off, &r, err, sizeof(err));
	if (rc)
		printf("# %s\n", err);
	int threads = solver_cpus() >= 2 ? 2 : 1;
	snprintf(what, sizeof(what), "%s: a %.1f s search runs on %d thread%s",
		 name, seconds, threads, threads == 1 ? "" : "s");
	CHECK(rc == 0 && r.threads == threads, what);
	rc = solver_check(p, off, &h, err, sizeof(err));
	uint64_t *g = malloc(p->n * sizeof(*g));
	struct solver_report rg;
	if (solver_solve(p, "greedy-size", NULL, g, &rg, err, sizeof(err)) == 0)
		seed_h = rg.height;
	snprintf(what, sizeof(what),
		 "%s: valid, no higher than greedy-size (%" PRIu64 " <= %" PRIu64
		 "), bound %" PRIu64 " below it",
		 name, h, seed_h, r.lower_bound);
	CHECK(rc == 0 && h <= seed_h && r.lower_bound <= h &&
		      r.optimal == (h == r.lower_bound),
	      what);
	if (at_bound) {
		snprintf(what, sizeof(what), "%s: at the lower bound", name);
		CHECK(r.optimal && h == solver_lower_bound(p), what);
	}
	struct solver_options one = { .time_limit = 0.05, .max_threads = 1,
				     .no_skyline = 1 };
	memset(&r, 0, sizeof(r));
	rc = solver_search_exact(p, &one, off, &r, err, sizeof(err));
	snprintf(what, sizeof(what),
		 "%s: max_threads 1 keeps a timed search to one thread", name);
	CHECK(rc == 0 && r.threads == 1, what);
	/* the second thread copies the search's state: not when that copy
	 * would pass a quarter of the memory cap, as it does at the lowest
	 * cap that lets the search run at all */
	uint64_t cap = 1 << 16;
	for (; cap < (UINT64_C(1) << 30); cap += cap / 8) {
		struct solver_options tight = { .time_limit = 0.05, .no_skyline = 1,
						.memory_limit = cap };
		memset(&r, 0, sizeof(r));
		rc = solver_search_exact(p, &tight, off, &r, err, sizeof(err));
		if (rc || r.threads)
			break;
	}
	printf("# %s: the search runs from a cap of %" PRIu64 " bytes, on %d thread(s)\n",
	       name, cap, r.threads);
	snprintf(what, sizeof(what),
		 "%s: no second thread at the lowest memory cap the search runs under",
		 name);
	CHECK(rc == 0 && r.threads == 1, what);
	struct solver_options w = { .work_limit = 5000, .no_skyline = 1 };
	memset(&r, 0, sizeof(r));
	rc = solver_search_exact(p, &w, off, &r, err, sizeof(err));
	snprintf(what, sizeof(what), "%s: a counted search runs on one thread",
		 name);
	CHECK(rc == 0 && r.threads == 1, what);
	free(off);
	free(g);
}

static void test_threads(const char *dir)
{
	struct solver_item it[GUIL_MAX];
	struct solver_problem p = { it, guillotine(24, it), NULL, 0 };
	check_threads(&p, 10.0, "guillotine 24", 1);
	if (!dir)
		return;
	static const char *const names[] = { "D", "E", "J" };
	for (size_t k = 0; k < 3; k++) {
		struct trace *t;
		struct solver_problem q;
		if (load_suite(dir, names[k], &t, &q)) {
			CHECK(0, "threads: the instance loads");
			continue;
		}
		char name[32];
		snprintf(name, sizeof(name), "suite %s", names[k]);
		check_threads(&q, 0.3, name, 0);
		solver_problem_free(&q);
		trace_free(t);
	}
}

/* The packed class cut from a 16 Ki square: 1,500-2,000 buffers
 * (bench_placement's "large" shape). */
static const struct guil_shape large_shape = { 1500, 2000, 16384, 16384,
					       GUIL_PICK_ANY, GUIL_DIR_ALTERNATE };

/*
 * On more than 1,000 gapless buffers the guillotine search gets a third of
 * the budget, not a tenth (the skyline search and the branch and bound
 * seldom reach the bound there): seed 5 of 1,500-2,000 buffers is placed
 * in 1.1 million steps of the growth's second order, which starts at 60%
 * of the search's steps: 400,000 counted units buy that at a third and
 * not at a tenth (auto then ended 1.095x above the bound at --time-limit
 * 1).  (200,000 did, before the growth's second order gave its last fifth
 * to the second sweep.)
 */
static void test_guillotine_share(void)
{
	struct solver_item *it = malloc(large_shape.nmax * sizeof(*it));
	uint64_t *off = malloc(large_shape.nmax * sizeof(*off)), h = 0;
	struct solver_problem p = { it, it ? guillotine_shape(5, &large_shape, it) : 0,
				    NULL, 0 };
	if (!p.n || !off) {
		CHECK(0, "guillotine share: memory");
		goto out;
	}
	struct solver_options o = { .work_limit = 400000 };
	struct solver_report rep;
	memset(&rep, 0, sizeof(rep));
	int rc = solver_search_auto(&p, &o, off, &rep, err, sizeof(err));
	rc = rc ? rc : solver_check(&p, off, &h, err, sizeof(err));
	printf("# guillotine share: %zu gapless buffers, 400,000 units: %.4fx\n",
	       p.n, rc ? 0.0 : (double)h / (double)solver_lower_bound(&p));
	CHECK(rc == 0 && h == solver_lower_bound(&p),
	      "guillotine share: auto places 1,622 gapless buffers at the bound within 400,000 units");
out:
	free(it);
	free(off);
}

/*
 * The time limit is kept on thousands of gapless buffers: the branch and
 * bound read the clock every few nodes, but a node's floor test scans
 * every section its buffer crosses, and on seed 2 of 1,500-2,000 buffers
 * (a 16 Ki square cut as the packed class is) 32 nodes took up to 0.3 s:
 * auto under a 1 s limit returned after 1.06-1.11 s (compile's "seconds",
 * 6 runs of 6).  Now the clock is read after a bounded scan too.
 */
static void test_deadline(void)
{
	struct solver_item *it = malloc(large_shape.nmax * sizeof(*it));
	uint64_t *off = malloc(large_shape.nmax * sizeof(*off)), h = 0;
	char what[120];
	struct solver_problem p = { it, it ? guillotine_shape(2, &large_shape, it) : 0,
				    NULL, 0 };
	if (!p.n || !off) {
		CHECK(0, "deadline: memory");
		goto out;
	}
	struct solver_options o = { .time_limit = 1.0 };
	struct solver_report rep;
	memset(&rep, 0, sizeof(rep));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = solver_search_auto(&p, &o, off, &rep, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) +
		   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CHECK(rc == 0 && !solver_check(&p, off, &h, err, sizeof(err)),
	      "deadline: auto on 1,807 gapless buffers, valid");
	printf("# deadline: %zu gapless buffers, auto under 1 s: %.3f s, %.4fx\n",
	       p.n, s, (double)h / (double)solver_lower_bound(&p));
	/* a sanitizer's build spends outside the search's estimates (1.03-
	 * 1.04 s here idle, the same before the sweep; 1.10 s in CI's
	 * sanitizer run beside another test job): 25% there, 3% in the
	 * product, where the old clock overran (1.04-1.10 s) */
#ifdef __SANITIZE_ADDRESS__
	double slack = 0.25;
#else
	double slack = 0.03;
#endif
	snprintf(what, sizeof(what),
		 "deadline: auto on 1,807 gapless buffers within its 1 s and %.0f%%",
		 100 * slack);
	CHECK(s <= 1 + slack, what);
out:
	free(it);
	free(off);
}

/*
 * The relaxed guillotine search (solver_guillotine.c): where the strict
 * search fails deep down, in a block of a few hundred buffers, the cuts
 * above it are kept and that block alone is placed by the heuristics.
 * Seed 2 of 1,500-2,000 buffers: its strict search fails in a block 4.4%
 * of the height deep in the tree (auto ended 1.160x above the bound at
 * 5 s); relaxed, 1.0004x in 7.7 million steps.  Seed 8: a narrow block
 * of 213 buffers at 97.6% of the height, cut in about 4 million steps
 * (the least cap of a block's split is 5 million), and the three small
 * blocks under it that it cannot cut placed by the heuristics and
 * improved; auto at 500,000 counted units ended 1.229x before, now
 * 1.0010x.  Whatever it is given, every placement it returns is valid
 * and of the height it says, out of steps too (every block left then
 * goes to the heuristics), and it returns nothing where an instant is
 * not full.
 */
/* The relaxed search on p at cap lb (8 million steps, 20 million with
 * SOLVER_GUILLOTINE_HEIGHT, per a buffer, flags): relaxed_within(). */
static uint64_t relaxed_height(const struct solver_problem *p, uint64_t lb,
			       uint64_t per, unsigned flags, uint64_t *off,
			       const char *name)
{
	uint64_t steps = flags & SOLVER_GUILLOTINE_HEIGHT ? 20000000 : 8000000;
	return relaxed_within(p, lb, steps, per, flags, off, name);
}

/* auto on p with work units of counted work, its ratio to lb printed
 * under name: the height it placed at, or 0 when it failed. */
static uint64_t auto_height(const struct solver_problem *p, uint64_t lb,
			    uint64_t work, uint64_t *off, const char *name)
{
	struct solver_options o = { .work_limit = work };
	struct solver_report r;
	int rc = solver_solve(p, "auto", &o, off, &r, err, sizeof(err));
	printf("# auto, %s, %" PRIu64 " units: %.4fx\n", name, work,
	       (double)r.height / (double)lb);
	return rc == 0 ? r.height : 0;
}

static void test_guillotine_relaxed(void)
{
	struct solver_item *it = malloc(large_shape.nmax * sizeof(*it));
	uint64_t *off = malloc(large_shape.nmax * sizeof(*off)), h = 0;
	char what[200];
	if (!it || !off) {
		CHECK(0, "relaxed guillotine: memory");
		goto out;
	}
	struct solver_problem p = { it, guillotine_shape(2, &large_shape, it),
				    NULL, 0 };
	uint64_t lb = solver_lower_bound(&p);
	h = relaxed_height(&p, lb, 3000, 0, off, "large-2");
	CHECK(h && 1000 * h <= 1001 * lb,
	      "relaxed guillotine: large-2 within 0.1% of the bound in 8 million steps");
	/* seeded (each block's cut instants first): large-1's first block,
	 * which the other ways never cut */
	p.n = guillotine_shape(1, &large_shape, it);
	lb = solver_lower_bound(&p);
	h = relaxed_height(&p, lb, 1000, SOLVER_GUILLOTINE_SEEDED, off,
			   "seeded, large-1");
	CHECK(h && 1000 * h <= 1001 * lb,
	      "relaxed guillotine: seeded, large-1 within 0.1% of the bound in 8 million steps (unseeded 1.147x)");
	/* seeded backwards (each block grown from its last instant): large-8,
	 * whose narrow blocks the forward search leaves to the heuristics */
	p.n = guillotine_shape(8, &large_shape, it);
	lb = solver_lower_bound(&p);
	h = relaxed_height(&p, lb, 1000, SOLVER_GUILLOTINE_SEEDED, off,
			   "seeded, large-8");
	uint64_t hb = relaxed_height(&p, lb, 1000,
				     SOLVER_GUILLOTINE_SEEDED |
					     SOLVER_GUILLOTINE_REVERSED,
				     off, "seeded backwards, large-8");
	CHECK(hb == lb && h > lb,
	      "relaxed guillotine: seeded backwards, large-8 at the bound in 8 million steps (forwards above it)");
	/* auto, counted: the relaxed search after the strict one */
	p.n = guillotine_shape(8, &large_shape, it);
	lb = solver_lower_bound(&p);
	h = auto_height(&p, lb, 500000, off, "large-8");
	CHECK(h && 1000 * h <= 1002 * lb,
	      "relaxed guillotine: auto places large-8 within 0.2% of the bound at 500,000 units (was 23%)");
	p.n = guillotine_shape(1, &large_shape, it);
	lb = solver_lower_bound(&p);
	h = auto_height(&p, lb, 500000, off, "large-1");
	CHECK(h && 1000 * h <= 1001 * lb,
	      "relaxed guillotine: auto places large-1 within 0.1% of the bound at 500,000 units (was 14.7%)");
	/* auto, counted, 1,000 buffers (a 4 Ki square cut in random
	 * directions): the relaxed search runs from 300 buffers on */
	static const struct guil_shape dense = { 1000, 1000, 4096, 4096,
						  GUIL_PICK_ANY,
						  GUIL_DIR_RANDOM };
	for (uint64_t seed = 5; seed <= 8; seed += 3) {
		p.n = guillotine_shape(seed, &dense, it);
		lb = solver_lower_bound(&p);
		snprintf(what, sizeof(what), "1,000 buffers in 4 Ki, seed %" PRIu64,
			 seed);
		h = auto_height(&p, lb, 400000, off, what);
		snprintf(what, sizeof(what),
			 "relaxed guillotine: auto places the 1,000-buffer dense seed %" PRIu64
			 " at the bound at 400,000 units",
			 seed);
		CHECK(h == lb, what);
	}
	/* seeded with the strip's height (the bytes ending at the seed's
	 * instant, fixed at the block's ends): the dense seed 1's first
	 * blocks, which the seeds alone leave to the heuristics */
	p.n = guillotine_shape(1, &dense, it);
	lb = solver_lower_bound(&p);
	h = relaxed_height(&p, lb, 1000,
			   SOLVER_GUILLOTINE_SEEDED | SOLVER_GUILLOTINE_HEIGHT,
			   off, "seeded with heights, 1,000 buffers in 4 Ki, seed 1");
	CHECK(h && 100 * h <= 101 * lb,
	      "relaxed guillotine: seeded with the strips' heights, the dense seed 1 within 1% of the bound in 20 million steps (seeded alone: 1.165x in as many)");
	/* valid whatever the steps, on every shape; nothing where an
	 * instant is not full */
	static const struct guil_shape shapes[] = {
		{ 1500, 2000, 16384, 16384, GUIL_PICK_ANY, GUIL_DIR_ALTERNATE },
		{ 1200, 1600, 4096, 4096, GUIL_PICK_ANY, GUIL_DIR_RANDOM },
		{ 1200, 1600, 4096, 4096, GUIL_PICK_LAST, GUIL_DIR_ALTERNATE },
		{ 1200, 1600, 4096, 4096, GUIL_PICK_BIG, GUIL_DIR_RANDOM },
	};
	static const uint64_t steps[] = { 1, 1000, 100000, 1000000 };
	struct solver_guillotine_relaxed g;
	size_t tried = 0, bad = 0, none = 0;
	int rc;
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
		for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
			p.n = guillotine_shape(20 + sh * 4 + k, &shapes[sh], it);
			lb = solver_lower_bound(&p);
			rc = solver_search_guillotine_relaxed(
				&p, lb, steps[k], 300,
				k % 2 ? SOLVER_GUILLOTINE_SEEDED |
						(sh % 2 ? SOLVER_GUILLOTINE_HEIGHT : 0) |
						(k == 3 ? SOLVER_GUILLOTINE_REVERSED : 0) |
						(sh == 2 ? SOLVER_GUILLOTINE_EARLIEST : 0)
				      : 0,
				k % 2 ? solver_search_exact : NULL, NULL,
				off, &g);
			tried++;
			if (rc != 1)
				none++;
			else if (solver_check(&p, off, &h, err, sizeof(err)) ||
				 h != g.height || h < lb)
				bad++;
		}
	snprintf(what, sizeof(what),
		 "relaxed guillotine: %zu placements valid, of the height said (%zu without one)",
		 tried - none - bad, none);
	CHECK(bad == 0 && none == 0, what);
	/* one buffer a unit shorter: an instant not full */
	p.n = guillotine_shape(3, &shapes[1], it);
	lb = solver_lower_bound(&p);
	it[0].upper--;
	rc = solver_search_guillotine_relaxed(&p, lb, 100000, 300, 0,
					      solver_search_exact, NULL, off,
					      &g);
	CHECK(rc == 0, "relaxed guillotine: nothing where an instant is not full");
out:
	free(it);
	free(off);
}

int main(void)
{
	const char *dir = tap_shared_data();
	test_guillotine();
	test_packed_big();
	test_guillotine_search();
	test_guillotine_sweep();
	test_guillotine_thin();
	test_guillotine_rounds();
	test_guillotine_propagation();
	test_guillotine_restarts();
	test_guillotine_polish();
	test_guillotine_deep();
	test_deadline();
	test_guillotine_share();
	test_guillotine_relaxed();
	test_climb();
	test_scan_all(dir);
	test_threads(dir);
	if (dir) {
		test_suite(dir);
		test_at_bound(dir);
	} else
		tap_skip("suite: MiniMalloc A-K within a node budget",
			 TAP_NO_SHARED);
	return tap_done();
}
