/* SPDX-License-Identifier: MIT */
/*
 * test_exact.c - the search strategies (exact, auto) and solver_solve():
 * hand-checked golden cases, a brute-force optimum on small random problems
 * (every permutation placed by gravity: the optimum is among them), holes,
 * alignment, the time limit, seeds, and the MiniMalloc instances with the
 * property that exact is never above any heuristic nor below the bound.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minimalloc_csv.h"
#include "solver.h"
#include "tap.h"
#include "trace.h"

#define ITEM(lo, hi, sz) \
	{ (sz), 1, (lo), (hi), NULL, 0, SOLVER_FREE, -1 }

static char err[512];

static uint64_t solve(const char *name, const struct solver_problem *p,
		      double limit, struct solver_report *r, uint64_t *off)
{
	struct solver_options o = { .time_limit = limit };
	int rc = solver_solve(p, name, &o, off, r, err, sizeof(err));
	if (rc) {
		printf("# %s: %s\n", name, err);
		return UINT64_MAX;
	}
	return r->height;
}

/* --- golden cases ------------------------------------------------------- */

static void test_golden(void)
{
	uint64_t off[16];
	struct solver_report r;
	/*
	 * a (4 bytes, [0,10)); b and c (3 bytes each) meet a but not each
	 * other; d (2 bytes, [4,6)) meets a and b.  Optimum 9 = live bytes at
	 * time 5 (a+b+d): a at 0, b and c at 4, d at 7.
	 */
	struct solver_item golden[] = {
		ITEM(0, 10, 4), ITEM(0, 6, 3), ITEM(6, 10, 3), ITEM(4, 6, 2),
	};
	struct solver_problem p = { golden, 4, NULL, 0 };
	CHECK_EQ_U64(solve("exact", &p, 1, &r, off), 9, "golden: exact 9");
	CHECK(r.optimal, "golden: proven optimal");
	CHECK_EQ_U64(solve("auto", &p, 1, &r, off), 9, "golden: auto 9");

	/*
	 * Lower bound not reachable: a triangle of pairwise-overlapping
	 * items whose common instant does not exist.  a [0,4) 2 bytes,
	 * b [2,6) 2 bytes, c [4,8) 2 bytes, d [0,8) 1 byte... live peak
	 * is 5 (a+b+d at 2..4), and 5 is reachable: d at 0, a 1, b 3, c 1.
	 */
	struct solver_item tri[] = {
		ITEM(0, 4, 2), ITEM(2, 6, 2), ITEM(4, 8, 2), ITEM(0, 8, 1),
	};
	struct solver_problem q = { tri, 4, NULL, 0 };
	CHECK_EQ_U64(solve("exact", &q, 1, &r, off), 5, "tri: exact 5");

	/*
	 * A known gap: three items pairwise overlapping in time in a cycle
	 * that forces one above the other two.  x [0,2) 3, y [1,4) 2,
	 * z [3,5) 3, w [1,2) and [3,4) 1 byte each via two items.  Live
	 * peak: t=1: x+y+w1 = 6; t=3: y+z+w2 = 6; optimum 6.
	 */
	struct solver_item cyc[] = {
		ITEM(0, 2, 3), ITEM(1, 4, 2), ITEM(3, 5, 3), ITEM(1, 2, 1),
		ITEM(3, 4, 1),
	};
	struct solver_problem c = { cyc, 5, NULL, 0 };
	CHECK_EQ_U64(solve("exact", &c, 1, &r, off), 6, "cycle: exact 6");
	CHECK(r.optimal, "cycle: proven optimal");

	/* Empty and single problems. */
	struct solver_problem e = { NULL, 0, NULL, 0 };
	CHECK_EQ_U64(solve("auto", &e, 1, &r, off), 0, "empty: height 0");
	CHECK(r.optimal, "empty: optimal");
	struct solver_item one[] = { ITEM(3, 3, 7) };
	struct solver_problem o1 = { one, 1, NULL, 0 };
	CHECK_EQ_U64(solve("exact", &o1, 1, &r, off), 7,
		     "zero-length item: still needs its bytes");

	/* Unknown strategy. */
	struct solver_options opt = { 0 };
	CHECK(solver_solve(&p, "nope", &opt, off, &r, err, sizeof(err)) ==
		      SOLVER_ENOTFOUND,
	      "unknown strategy: SOLVER_ENOTFOUND");
	CHECK_STR_HAS(err, "nope", "unknown strategy: named in the error");

	/* Names. */
	const char *want[] = { "first-fit", "greedy-size", "best-fit", "best-gap",
			       "best-gap-rows", "exact", "auto" };
	int names_ok = 1;
	for (size_t i = 0; i < 7; i++)
		names_ok &= solver_name_at(i) && !strcmp(solver_name_at(i), want[i]) &&
			    solver_name_about(want[i]) != NULL;
	CHECK(names_ok && solver_name_at(7) == NULL, "seven names, each with a line");
}

/* --- brute force -------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t below(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* Items meet when their lifetimes overlap (no holes here). */
static int meet(const struct solver_item *a, const struct solver_item *b)
{
	return a->lower < b->upper && b->lower < a->upper;
}

static uint64_t best_perm;

static void permute(const struct solver_item *it, size_t n, size_t *perm,
		    size_t k, uint64_t *off)
{
	if (k == n) {
		uint64_t h = 0;
		for (size_t i = 0; i < n; i++) {
			const struct solver_item *a = &it[perm[i]];
			uint64_t o = 0;
			for (size_t j = 0; j < i; j++) {
				const struct solver_item *b = &it[perm[j]];
				if (meet(a, b) && off[perm[j]] + b->size > o)
					o = off[perm[j]] + b->size;
			}
			o = (o + a->align - 1) / a->align * a->align;
			off[perm[i]] = o;
			if (o + a->size > h)
				h = o + a->size;
		}
		if (h < best_perm)
			best_perm = h;
		return;
	}
	for (size_t i = k; i < n; i++) {
		size_t t = perm[k];
		perm[k] = perm[i];
		perm[i] = t;
		permute(it, n, perm, k + 1, off);
		perm[i] = perm[k];
		perm[k] = t;
	}
}

static void test_bruteforce(void)
{
	int agree = 1, proven = 1, runs = 0, heur = 1;
	for (int round = 0; round < 300; round++) {
		struct solver_item it[7];
		size_t n = 2 + below(6);
		for (size_t i = 0; i < n; i++) {
			int64_t lo = (int64_t)below(12);
			it[i] = (struct solver_item)ITEM(lo, lo + 1 + (int64_t)below(8),
							 1 + below(9));
			if (round % 4 == 3)
				it[i].align = 1 + below(3);
		}
		struct solver_problem p = { it, n, NULL, 0 };
		size_t perm[7];
		uint64_t off[7];
		for (size_t i = 0; i < n; i++)
			perm[i] = i;
		best_perm = UINT64_MAX;
		permute(it, n, perm, 0, off);
		struct solver_report r;
		uint64_t h = solve("exact", &p, 2, &r, off);
		runs++;
		if (h != best_perm) {
			agree = 0;
			printf("# round %d: exact %" PRIu64 ", brute force %" PRIu64
			       "\n", round, h, best_perm);
		}
		if (!r.optimal)
			proven = 0;
		for (size_t s = 0; s < 3; s++) {
			struct solver_report rh;
			uint64_t hh = solve(solver_name_at(s), &p, 1, &rh, off);
			if (hh < h)
				heur = 0;
		}
	}
	CHECK(runs == 300, "brute force: 300 random problems");
	CHECK(agree, "brute force: exact equals the optimum of all orders");
	CHECK(proven, "brute force: exact proves every one optimal");
	CHECK(heur, "brute force: no heuristic below exact");
}

/* --- holes ---------------------------------------------------------------- */

static void test_holes(void)
{
	/* a is swapped out during [2, 8): b and c can use its bytes then. */
	struct solver_hole ha[] = { { 2, 8, SOLVER_NO_WINDOW, SOLVER_NO_WINDOW } };
	struct solver_item it[] = {
		{ 4, 1, 0, 10, ha, 1, SOLVER_FREE, -1 },
		ITEM(2, 5, 4),
		ITEM(5, 8, 4),
	};
	struct solver_problem p = { it, 3, NULL, 0 };
	uint64_t off[3];
	struct solver_report r;
	CHECK_EQ_U64(solve("exact", &p, 1, &r, off), 4,
		     "holes: the swapped item's bytes are reused");
	CHECK(r.optimal, "holes: proven optimal");
	/* With a window, two bytes stay: height 6 at best. */
	struct solver_hole hw[] = { { 2, 8, 0, 2 } };
	it[0].holes = hw;
	CHECK_EQ_U64(solve("auto", &p, 1, &r, off), 6,
		     "holes: a window keeps its bytes");
}

/* --- limits and seeds ------------------------------------------------------ */

static void test_limits(const char *dir)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/placement/D.1048576.csv", dir);
	struct trace *t = NULL;
	if (mmcsv_import(path, &t, err, sizeof(err))) {
		printf("# %s\n", err);
		CHECK(0, "limits: D imports");
		return;
	}
	struct solver_problem p;
	CHECK(solver_problem_from_trace(t, &p, err, sizeof(err)) == 0,
	      "limits: D extracts");
	uint64_t *off = malloc(p.n * sizeof(*off));
	uint64_t *seed = malloc(p.n * sizeof(*seed));
	struct solver_report r;
	uint64_t hs = solve("greedy-size", &p, 1, &r, seed);
	struct solver_options o = { .time_limit = 0.2, .seed = seed };
	CHECK(solver_solve(&p, "exact", &o, off, &r, err, sizeof(err)) == 0,
	      "limits: exact with a seed runs");
	CHECK(r.height <= hs, "limits: never above its seed");
	CHECK(r.seconds < 5, "limits: the time limit is honoured (loosely)");
	CHECK(r.lower_bound >= 986112 && r.lower_bound <= r.height,
	      "limits: the lower bound is at least the live peak");
	/* A broken seed is refused. */
	memset(seed, 0, p.n * sizeof(*seed));
	o.seed = seed;
	int rc = solver_solve(&p, "exact", &o, off, &r, err, sizeof(err));
	CHECK(rc == SOLVER_EINVALID, "limits: an overlapping seed is refused");
	CHECK_STR_HAS(err, "overlap", "limits: the error says what overlaps");
	free(off);
	free(seed);
	solver_problem_free(&p);
	trace_free(t);
}

int main(void)
{
	const char *dir = tap_shared_data();
	test_golden();
	test_bruteforce();
	test_holes();
	if (dir)
		test_limits(dir);
	else
		tap_skip("limits: instance D within its time limit", TAP_NO_SHARED);
	return tap_done();
}
