/* SPDX-License-Identifier: MIT */
/*
 * test_solver.c - unit tests of the placement solvers: small problems with a
 * known optimum, alignment, fixed offsets, holes and windows, the checker
 * against a brute-force oracle, random problems, and the shared MiniMalloc
 * instances (read from $SHARED_DATA/placement, default ../shared/data).
 */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc_clock.h"
#include "minimalloc_csv.h"
#include "solver.h"
#include "tap.h"
#include "trace.h"

#define NSTRAT 5
#define ITEM(lo, hi, sz) \
	{ (sz), 1, (lo), (hi), NULL, 0, SOLVER_FREE, -1 }

static char err[512];

static struct solver_problem mkprob(struct solver_item *items, size_t n)
{
	struct solver_problem p = { items, n, NULL, 0 };
	return p;
}

/* Runs strategy name on p, checks the answer, returns the height. */
static uint64_t run(const char *name, const struct solver_problem *p,
		    uint64_t *offsets)
{
	const struct solver_strategy *s = solver_strategy_find(name);
	uint64_t h = 0, hc = 0;
	if (!s)
		return UINT64_MAX;
	err[0] = '\0';
	int rc = s->place(p, offsets, &h, NULL, err, sizeof(err));
	if (rc) {
		printf("# %s: %s\n", name, err);
		return UINT64_MAX;
	}
	rc = solver_check(p, offsets, &hc, err, sizeof(err));
	if (rc || hc != h) {
		printf("# %s: check says %d (%s), heights %" PRIu64 " vs %" PRIu64
		       "\n", name, rc, err, h, hc);
		return UINT64_MAX;
	}
	return h;
}

static const char *names[NSTRAT] = { "first-fit", "greedy-size", "best-fit",
				     "best-gap", "best-gap-rows" };

static void test_table(void)
{
	size_t n = 0;
	while (solver_strategy_at(n))
		n++;
	CHECK_EQ_U64(n, NSTRAT, "five strategies in the table");
	for (int i = 0; i < NSTRAT; i++)
		CHECK(solver_strategy_find(names[i]) == solver_strategy_at((size_t)i),
		      "strategies are found by name, in table order");
	CHECK(solver_strategy_find("nope") == NULL, "unknown strategy is NULL");
}

static void test_small(void)
{
	uint64_t off[8];
	/* a long buffer and two short ones after each other: optimum 6 */
	struct solver_item a[] = { ITEM(0, 10, 4), ITEM(0, 5, 2), ITEM(5, 10, 2) };
	struct solver_problem p = mkprob(a, 3);
	CHECK_EQ_U64(solver_lower_bound(&p), 6, "stack: lower bound");
	for (int i = 0; i < NSTRAT; i++)
		CHECK_EQ_U64(run(names[i], &p, off), 6, "stack: optimum");

	/* first fit is fooled by allocation order, size order is not */
	struct solver_item b[] = { ITEM(0, 2, 1), ITEM(0, 4, 1), ITEM(2, 4, 2) };
	p = mkprob(b, 3);
	CHECK_EQ_U64(solver_lower_bound(&p), 3, "order: lower bound");
	CHECK_EQ_U64(run("first-fit", &p, off), 4, "order: first-fit 4");
	CHECK_EQ_U64(run("greedy-size", &p, off), 3, "order: greedy optimum");
	CHECK_EQ_U64(run("best-fit", &p, off), 3, "order: best-fit optimum");

	/* three fixed walls leave gaps [2,4) and [5,6): best fit takes the
	 * tight one, lowest fit the low one */
	struct solver_item c[] = {
		{ 2, 1, 0, 10, NULL, 0, 0, -1 },
		{ 1, 1, 0, 10, NULL, 0, 4, -1 },
		{ 3, 1, 0, 10, NULL, 0, 6, -1 },
		ITEM(0, 10, 1),
	};
	p = mkprob(c, 4);
	CHECK_EQ_U64(run("greedy-size", &p, off), 9, "gaps: greedy height");
	CHECK_EQ_U64(off[3], 2, "gaps: greedy takes the lowest gap");
	CHECK_EQ_U64(run("best-fit", &p, off), 9, "gaps: best-fit height");
	CHECK_EQ_U64(off[3], 5, "gaps: best-fit takes the tightest gap");
	CHECK(off[0] == 0 && off[1] == 4 && off[2] == 6, "fixed items stay");

	/* add a 2-byte item allocated later: first fit has to go on top */
	struct solver_item d[] = {
		c[0], c[1], c[2], ITEM(0, 10, 1), ITEM(1, 10, 2),
	};
	p = mkprob(d, 5);
	CHECK_EQ_U64(run("first-fit", &p, off), 11, "gaps: first-fit 11");
	CHECK_EQ_U64(run("greedy-size", &p, off), 9, "gaps: greedy 9");
	CHECK_EQ_U64(run("best-fit", &p, off), 9, "gaps: best-fit 9");

	/* empty problem and an item with an empty lifetime */
	p = mkprob(NULL, 0);
	for (int i = 0; i < NSTRAT; i++)
		CHECK_EQ_U64(run(names[i], &p, off), 0, "empty problem");
	struct solver_item e[] = { ITEM(3, 3, 7), ITEM(0, 5, 2) };
	p = mkprob(e, 2);
	for (int i = 0; i < NSTRAT; i++)
		CHECK_EQ_U64(run(names[i], &p, off), 7,
			     "empty lifetime still needs room");
}

static void test_align_fixed(void)
{
	uint64_t off[8];
	struct solver_item a[] = {
		ITEM(0, 10, 100),
		{ 10, 128, 0, 10, NULL, 0, SOLVER_FREE, -1 },
		{ 16, 64, 5, 20, NULL, 0, SOLVER_FREE, -1 },
	};
	struct solver_problem p = mkprob(a, 3);
	for (int i = 0; i < NSTRAT; i++) {
		uint64_t h = run(names[i], &p, off);
		CHECK(h != UINT64_MAX && off[1] % 128 == 0 && off[2] % 64 == 0,
		      "alignment honoured");
	}
	/* greedy: 100 bytes at 0, 16 at 128 (not 100), 10 at 256 (not 128,
	 * which the 16 bytes hold from time 5) */
	CHECK_EQ_U64(run("greedy-size", &p, off), 266, "align: greedy 266");
	CHECK(off[0] == 0 && off[1] == 256 && off[2] == 128,
	      "align: offsets rounded up past the blocking items");
	a[2].lower = 10;
	CHECK_EQ_U64(run("greedy-size", &p, off), 138, "align: greedy 138");
	CHECK_EQ_U64(off[1], 128, "align: 10 bytes at 128, not 100");

	struct solver_item b[] = {
		{ 8, 8, 0, 10, NULL, 0, 1000, 7 },
		ITEM(0, 10, 50),
		ITEM(2, 4, 2000),
	};
	p = mkprob(b, 3);
	for (int i = 0; i < NSTRAT; i++) {
		uint64_t h = run(names[i], &p, off);
		CHECK(h != UINT64_MAX && off[0] == 1000, "fixed offset kept");
	}
	CHECK_EQ_U64(run("first-fit", &p, off), 3008,
		     "fixed: the big item goes above the fixed one");

	/* fixed items that collide are refused */
	struct solver_item c[] = {
		{ 8, 1, 0, 10, NULL, 0, 0, 3 },
		{ 8, 1, 5, 15, NULL, 0, 4, 4 },
	};
	p = mkprob(c, 2);
	for (int i = 0; i < NSTRAT; i++) {
		uint64_t h = 0;
		int rc = solver_strategy_find(names[i])->place(&p, off, &h,
							       NULL, err,
							       sizeof(err));
		CHECK(rc == SOLVER_EINVAL, "conflicting fixed offsets refused");
		CHECK_STR_HAS(err, "fixed", "the message says why");
	}
	/* a misaligned fixed offset is a malformed problem */
	c[0].align = 16;
	c[0].fixed_offset = 8;
	CHECK(solver_problem_validate(&p, err, sizeof(err)) == SOLVER_EINVAL,
	      "misaligned fixed offset refused");
	CHECK_STR_HAS(err, "buffer 3", "names the buffer");
}

static void test_holes(void)
{
	uint64_t off[4];
	struct solver_hole h[] = { { 2, 8, SOLVER_NO_WINDOW, SOLVER_NO_WINDOW } };
	struct solver_item a[] = {
		{ 8, 1, 0, 10, h, 1, SOLVER_FREE, -1 },
		ITEM(3, 7, 8),
	};
	struct solver_problem p = mkprob(a, 2);
	CHECK_EQ_U64(solver_lower_bound(&p), 8, "hole: lower bound 8");
	for (int i = 0; i < NSTRAT; i++)
		CHECK_EQ_U64(run(names[i], &p, off), 8,
			     "hole: two items share the bytes");
	CHECK(off[0] == off[1], "hole: same offset");

	struct solver_hole w[] = { { 2, 8, 0, 2 } };
	a[0].holes = w;
	CHECK_EQ_U64(solver_lower_bound(&p), 10, "window: lower bound 10");
	for (int i = 0; i < NSTRAT; i++)
		CHECK_EQ_U64(run(names[i], &p, off), 10,
			     "window: the window stays occupied");

	/* an item that starts while the other is still resident cannot share */
	a[0].holes = h;
	a[1].lower = 1;
	for (int i = 0; i < NSTRAT; i++)
		CHECK_EQ_U64(run(names[i], &p, off), 16,
			     "hole: no sharing across resident time");

	/* the hole keeps the offset: the item comes back where it was */
	struct solver_hole h2[] = { { 2, 6, SOLVER_NO_WINDOW, SOLVER_NO_WINDOW } };
	struct solver_item b[] = {
		{ 4, 1, 0, 10, h2, 1, SOLVER_FREE, -1 },
		ITEM(3, 5, 4),
		ITEM(4, 8, 4),
	};
	p = mkprob(b, 3);
	for (int i = 0; i < NSTRAT; i++) {
		uint64_t hh = run(names[i], &p, off);
		CHECK(hh != UINT64_MAX && off[2] != off[0],
		      "hole: an item outliving the hole does not take its bytes");
	}
}

/* --- the checker ---------------------------------------------------------- */

static void test_check(void)
{
	struct solver_item a[] = { ITEM(0, 5, 4), ITEM(5, 10, 4), ITEM(3, 6, 2) };
	struct solver_problem p = mkprob(a, 3);
	uint64_t off[3] = { 0, 0, 4 }, h = 0;
	CHECK(solver_check(&p, off, &h, err, sizeof(err)) == 0,
	      "check: touching lifetimes and bytes are fine");
	CHECK_EQ_U64(h, 6, "check: height");
	off[2] = 3;
	CHECK(solver_check(&p, off, &h, err, sizeof(err)) == SOLVER_EINVALID,
	      "check: an overlap is caught");
	CHECK_STR_HAS(err, "overlap", "check: message says overlap");
	off[2] = 1;
	CHECK(solver_check(&p, off, &h, err, sizeof(err)) == SOLVER_EINVALID,
	      "check: an item inside another is caught");
	a[2].align = 4;
	off[2] = 6;
	CHECK(solver_check(&p, off, &h, err, sizeof(err)) == SOLVER_EINVALID,
	      "check: misalignment is caught");
	CHECK_STR_HAS(err, "alignment", "check: message says alignment");
	off[2] = 4;
	a[0].fixed_offset = 8;
	CHECK(solver_check(&p, off, &h, err, sizeof(err)) == SOLVER_EINVALID,
	      "check: a moved fixed item is caught");

	struct solver_hole w[] = { { 2, 8, 2, 4 } };
	struct solver_item b[] = {
		{ 8, 1, 0, 10, w, 1, SOLVER_FREE, -1 },
		ITEM(3, 7, 2),
	};
	p = mkprob(b, 2);
	uint64_t o2[2] = { 0, 0 };
	CHECK(solver_check(&p, o2, &h, err, sizeof(err)) == 0,
	      "check: under the window is free");
	o2[1] = 3;
	CHECK(solver_check(&p, o2, &h, err, sizeof(err)) == SOLVER_EINVALID,
	      "check: the window is occupied");
}

/* --- random problems ------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static uint64_t below(uint64_t n) { return rnd() % n; }

struct rproblem {
	struct solver_problem p;
	struct solver_item *items;
	struct solver_hole *holes;
};

/* A random problem: lifetimes in [0, span), sizes, alignments, holes. */
static void random_problem(struct rproblem *r, size_t n, int64_t span,
			   int fixed)
{
	r->items = calloc(n, sizeof(*r->items));
	r->holes = calloc(4 * n, sizeof(*r->holes));
	size_t nh = 0;
	for (size_t i = 0; i < n; i++) {
		struct solver_item *it = &r->items[i];
		int64_t lo = (int64_t)below((uint64_t)span);
		int64_t len = 1 + (int64_t)below(below(4) ? 10 : (uint64_t)span / 2);
		it->lower = lo - span / 3; /* negative times too */
		it->upper = it->lower + len;
		it->size = 1 + below(below(3) ? 64 : 4096);
		static const uint64_t al[] = { 1, 1, 1, 2, 8, 64, 3 };
		it->align = al[below(7)];
		it->fixed_offset = SOLVER_FREE;
		it->buffer = (int64_t)i;
		it->holes = &r->holes[nh];
		int64_t at = it->lower;
		while (len > 4 && below(3) == 0 && it->nholes < 4) {
			int64_t hl = at + 1 + (int64_t)below((uint64_t)(it->upper - at));
			if (hl >= it->upper)
				break;
			int64_t hu = hl + 1 + (int64_t)below((uint64_t)(it->upper - hl));
			if (hu > it->upper)
				hu = it->upper;
			struct solver_hole *h = &r->holes[nh++];
			h->lower = hl;
			h->upper = hu;
			h->win_lo = h->win_hi = SOLVER_NO_WINDOW;
			if (below(2) && it->size > 1) {
				h->win_lo = (int64_t)below(it->size - 1);
				h->win_hi = h->win_lo + 1 +
					    (int64_t)below(it->size - (uint64_t)h->win_lo);
			}
			it->nholes++;
			at = hu;
			if (at >= it->upper)
				break;
		}
	}
	/* a few fixed items high up, in bytes of their own */
	for (int f = 0; f < fixed && (size_t)f < n; f++) {
		struct solver_item *it = &r->items[(size_t)f * 7 % n];
		it->fixed_offset = (int64_t)((1u << 20) * (unsigned)(f + 1));
		it->align = 1;
	}
	r->p = mkprob(r->items, n);
}

static void rproblem_free(struct rproblem *r)
{
	free(r->items);
	free(r->holes);
}

/* O(P^2) oracle: does any pair of pieces of different items collide? */
static int brute_conflict(const struct solver_problem *p, const uint64_t *off)
{
	struct solver_piece *pc;
	size_t *fi;
	if (solver_problem_pieces(p, &pc, &fi))
		return -1;
	size_t np = fi[p->n];
	int bad = 0;
	for (size_t i = 0; i < np && !bad; i++)
		for (size_t j = i + 1; j < np && !bad; j++) {
			const struct solver_piece *x = &pc[i], *y = &pc[j];
			if (x->item == y->item)
				continue;
			uint64_t xa = off[x->item] + x->lo, xb = off[x->item] + x->hi;
			uint64_t ya = off[y->item] + y->lo, yb = off[y->item] + y->hi;
			bad = x->lower < y->upper && y->lower < x->upper &&
			      xa < yb && ya < xb;
		}
	free(pc);
	free(fi);
	return bad;
}

static void test_random(void)
{
	rng_state = 0x9e3779b97f4a7c15ull;
	int agree = 1, valid = 1, above = 1, ran = 0;
	for (int round = 0; round < 60; round++) {
		struct rproblem r;
		size_t n = 5 + below(round < 40 ? 40 : 400);
		random_problem(&r, n, 50 + (int64_t)below(500), round % 3);
		if (solver_problem_validate(&r.p, err, sizeof(err))) {
			printf("# generator made a bad problem: %s\n", err);
			valid = 0;
			rproblem_free(&r);
			continue;
		}
		uint64_t lb = solver_lower_bound(&r.p);
		uint64_t alb = solver_lower_bound_aligned(&r.p);
		if (alb < lb)
			above = 0;
		uint64_t *off = calloc(n, sizeof(*off));
		for (int s = 0; s < NSTRAT; s++) {
			uint64_t h = run(names[s], &r.p, off);
			ran++;
			if (h == UINT64_MAX) {
				valid = 0;
				continue;
			}
			if (h < lb || h < alb)
				above = 0;
			if (brute_conflict(&r.p, off))
				valid = 0;
		}
		/* random offsets: the checker must agree with the oracle */
		for (int k = 0; k < 5; k++) {
			for (size_t i = 0; i < n; i++) {
				const struct solver_item *it = &r.items[i];
				off[i] = it->fixed_offset != SOLVER_FREE
						 ? (uint64_t)it->fixed_offset
						 : below(4 * 4096 * (uint64_t)(k + 1)) /
							   it->align * it->align;
			}
			int rc = solver_check(&r.p, off, NULL, err, sizeof(err));
			int bf = brute_conflict(&r.p, off);
			if ((rc == SOLVER_EINVALID) != (bf == 1) ||
			    (rc != 0 && rc != SOLVER_EINVALID)) {
				printf("# checker %d vs oracle %d: %s\n", rc, bf, err);
				agree = 0;
			}
		}
		free(off);
		rproblem_free(&r);
	}
	CHECK(ran == 60 * NSTRAT, "random: every strategy ran on every problem");
	CHECK(valid, "random: every placement valid (checker and oracle)");
	CHECK(above, "random: every height >= the aligned lower bound >= the lower bound");
	CHECK(agree, "random: checker agrees with the O(n^2) oracle");
}

/* --- traces ------------------------------------------------------------------ */

static int64_t ev(struct trace *t, uint8_t type, int64_t buf)
{
	struct trace_event e = { 0 };
	e.seq = trace_next_seq(t);
	e.t_start = e.t_end = TRACE_TIME_NONE;
	e.buffer = buf;
	e.stream = TRACE_NONE;
	e.type = type;
	return trace_add_event(t, &e);
}

static int64_t buf(struct trace *t, uint64_t size, uint64_t align)
{
	struct trace_buffer b = { 0 };
	b.size = size;
	b.rounded = size;
	b.align = align;
	b.fixed_offset = TRACE_NONE;
	b.stream = TRACE_NONE;
	return trace_add_buffer(t, &b);
}

static void test_trace(void)
{
	int same = 1, n_ok = 1, finished = 1, pool_lb = 1;
	rng_state = 12345;
	for (int round = 0; round < 30; round++) {
		struct trace *t = trace_new();
		int nb = 10 + (int)below(60);
		int64_t *id = calloc((size_t)nb, sizeof(*id));
		int *state = calloc((size_t)nb, sizeof(*state)); /* 0 new 1 live 2 freed */
		int *atstart = calloc((size_t)nb, sizeof(*atstart));
		for (int i = 0; i < nb; i++)
			id[i] = buf(t, 1 + below(1000), 1 + below(3) * 4);
		/* some buffers live at start: free without alloc */
		for (int i = 0; i < nb; i++)
			if (below(8) == 0) {
				state[i] = 1;
				atstart[i] = 1;
			}
		for (int step = 0; step < 4 * nb; step++) {
			int i = (int)below((uint64_t)nb);
			if (state[i] == 0) {
				ev(t, TRACE_EV_ALLOC, id[i]);
				state[i] = 1;
			} else if (state[i] == 1 && below(3) == 0) {
				ev(t, TRACE_EV_FREE, id[i]);
				state[i] = 2;
			} else {
				struct trace_event k = { 0 };
				k.seq = trace_next_seq(t);
				k.t_start = k.t_end = TRACE_TIME_NONE;
				k.buffer = TRACE_NONE;
				k.stream = TRACE_NONE;
				k.type = TRACE_EV_KERNEL;
				trace_add_event(t, &k);
			}
		}
		int ntrans = 0;
		for (int i = 0; i < nb; i++)
			if (state[i] == 2 && !atstart[i])
				ntrans++;
		/* buffers never allocated stay unused: allocate them now
		 * (they outlive the iteration: persistent) */
		for (int i = 0; i < nb; i++)
			if (state[i] == 0)
				ev(t, TRACE_EV_ALLOC, id[i]);
		if (trace_finish(t, err, sizeof(err))) {
			printf("# trace_finish: %s\n", err);
			finished = 0;
		} else {
			/* a hole in the middle of each transient buffer */
			for (int i = 0; i < nb; i++) {
				const struct trace_buffer *b = &t->buffers[id[i]];
				if (trace_buffer_persistent(b))
					continue;
				int64_t lo, hi;
				trace_lifetime(t, b, &lo, &hi);
				if (hi - lo > 3 && below(2)) {
					struct trace_hole h = { id[i], lo + 1, hi - 1,
								TRACE_NONE, TRACE_NONE };
					if (below(2) && b->size > 2) {
						h.win_lo = 1;
						h.win_hi = 2;
					}
					trace_add_hole(t, &h);
				}
			}
			if (trace_finish(t, err, sizeof(err))) {
				printf("# trace_finish with holes: %s\n", err);
				finished = 0;
			}
		}
		struct solver_problem p;
		if (finished && solver_problem_from_trace(t, &p, err, sizeof(err)) == 0) {
			if (p.n != (size_t)ntrans)
				n_ok = 0;
			if (solver_lower_bound(&p) != trace_peak(t, TRACE_TRANSIENT, NULL))
				same = 0;
			uint64_t tlb = 0;
			if (trace_pool_lower_bound(t, &tlb) ||
			    solver_lower_bound(&p) != tlb)
				pool_lb = 0;
			uint64_t *off = calloc(p.n + 1, sizeof(*off));
			for (int s = 0; s < NSTRAT; s++)
				if (run(names[s], &p, off) == UINT64_MAX)
					same = 0;
			free(off);
			solver_problem_free(&p);
		} else {
			n_ok = 0;
		}
		free(id);
		free(state);
		free(atstart);
		trace_free(t);
	}
	CHECK(finished, "trace: random traces finish");
	CHECK(n_ok, "trace: only transient buffers become items");
	CHECK(same, "trace: lower bound equals trace_peak(TRACE_TRANSIENT) and strategies run");
	CHECK(pool_lb, "trace: the trace's own pool lower bound (alloc_clock.h) equals the problem's, holes and windows included");
}

/* --- the shared MiniMalloc instances ---------------------------------------- */

struct instance {
	const char *name;
	uint64_t lower;  /* data/README.md */
	uint64_t greedy; /* "greedy by size, first fit" column */
};

static const struct instance instances[] = {
	{ "A.1048576", 1048576, 1352704 },   { "B.1048576", 1048576, 1412096 },
	{ "C.1048576", 1039360, 1417216 },   { "D.1048576", 986112, 1291264 },
	{ "E.1048576", 1048576, 1435648 },   { "F.1048576", 1048576, 1433600 },
	{ "G.1048576", 1048576, 1428480 },   { "H.1048576", 1048576, 1426432 },
	{ "I.1048576", 1048576, 1478656 },   { "J.1048576", 989184, 1298432 },
	{ "K.1048576", 1048576, 1339392 },
	{ "somas-resnet50", 1515472556ull, 1525214892ull },
};

/* A shared instance through the real path: MiniMalloc import, then the
 * planner's problem extraction.  0, or -1 with the reason printed. */
static int load_instance(const char *path, struct solver_problem *p)
{
	char err[512];
	struct trace *t;
	if (mmcsv_import(path, &t, err, sizeof(err)) != 0) {
		printf("# %s\n", err);
		return -1;
	}
	int rc = solver_problem_from_trace(t, p, err, sizeof(err));
	trace_free(t);
	if (rc != 0)
		printf("# %s\n", err);
	return rc ? -1 : 0;
}

static void test_instances(void)
{
	const char *dir = tap_shared_data();
	if (!dir) {
		tap_skip("instances: the 12 shared instances", TAP_NO_SHARED);
		return;
	}
	int near = 1, valid = 1, above = 1, lbs = 1, found = 1;
	for (size_t k = 0; k < sizeof(instances) / sizeof(instances[0]); k++) {
		const struct instance *in = &instances[k];
		char path[1024];
		snprintf(path, sizeof(path), "%s/placement/%s.csv", dir, in->name);
		struct solver_problem p;
		if (load_instance(path, &p) != 0 || p.n == 0) {
			printf("# cannot read '%s'\n", path);
			found = 0;
			continue;
		}
		size_t n = p.n;
		uint64_t lb = solver_lower_bound(&p);
		if (lb != in->lower)
			lbs = 0;
		uint64_t *off = calloc(n, sizeof(*off));
		printf("# %-15s lb %10" PRIu64, in->name, lb);
		for (int s = 0; s < NSTRAT; s++) {
			uint64_t h = run(names[s], &p, off);
			if (h == UINT64_MAX) {
				valid = 0;
				continue;
			}
			above &= h >= lb;
			printf("  %s %10" PRIu64, names[s], h);
			if (s == 1)
				near &= h == in->greedy;
		}
		printf("  (reference greedy %" PRIu64 ")\n", in->greedy);
		free(off);
		solver_problem_free(&p);
	}
	CHECK(found, "instances: all 12 shared instances read");
	CHECK(lbs, "instances: lower bounds match data/README.md");
	CHECK(valid, "instances: every strategy valid on every instance");
	CHECK(above, "instances: every height >= lower bound");
	CHECK(near, "instances: greedy-size equals the reference greedy column");
}

/* solver_problem_align: the least common multiple, and its limit */
static void test_problem_align(void)
{
	struct solver_item items[3] = {
		{ 100, 1, 0, 10, NULL, 0, SOLVER_FREE, 0 },
		{ 100, 512, 0, 10, NULL, 0, SOLVER_FREE, 1 },
		{ 100, 24, 0, 10, NULL, 0, SOLVER_FREE, 2 },
	};
	struct solver_problem p = mkprob(items, 3);
	CHECK(solver_problem_align(&p, 256, err, sizeof(err)) == 0,
	      "align 256 raises every item");
	CHECK_EQ_U64(items[0].align, 256, "  ... 1 to 256");
	CHECK_EQ_U64(items[1].align, 512, "  ... 512 stays");
	CHECK_EQ_U64(items[2].align, 768, "  ... 24 to 768, the least common multiple");
	items[2].align = UINT64_C(5000000001); /* odd: nothing in common */
	CHECK(solver_problem_align(&p, UINT64_C(1) << 30, err, sizeof(err)) ==
		      SOLVER_EINVAL,
	      "an alignment past 2^62 is refused");
	CHECK_STR_HAS(err, "buffer 2:", "  ... naming the buffer");
	CHECK(solver_gap_percent(150, 100) == 50.0 &&
		      solver_gap_percent(100, 0) == 0.0,
	      "gap: percent above the bound, 0 without one");
}


/* Three 100-byte buffers live together, 512-aligned: no placement is below
 * 512 + 512 + 100, which the aligned bound knows and the plain one (300)
 * does not; so exact proves its answer optimal at once. */
static void test_aligned_bound(void)
{
	struct solver_item items[4] = {
		{ 100, 512, 0, 10, NULL, 0, SOLVER_FREE, 0 },
		{ 100, 512, 0, 10, NULL, 0, SOLVER_FREE, 1 },
		{ 100, 512, 0, 10, NULL, 0, SOLVER_FREE, 2 },
		{ 1000, 512, 10, 20, NULL, 0, SOLVER_FREE, 3 },
	};
	struct solver_problem p = mkprob(items, 4);
	CHECK_EQ_U64(solver_lower_bound(&p), 1000, "plain bound: the largest instant");
	CHECK_EQ_U64(solver_lower_bound_aligned(&p), 1124,
		     "aligned bound: two rounded to 512, the top one as it is");
	uint64_t off[4];
	struct solver_report r;
	struct solver_options o = { .time_limit = 5 };
	CHECK(solver_solve(&p, "exact", &o, off, &r, err, sizeof(err)) == 0 &&
		      r.height == 1124 && r.optimal && r.lower_bound == 1124,
	      "exact proves 1124 optimal against it");
	items[1].align = 1;
	CHECK_EQ_U64(solver_lower_bound_aligned(&p), 1000,
		     "an alignment of 1 among them: the plain bound");
	items[1].align = 512;
	struct solver_hole h = { 2, 4, 0, 50 };
	items[0].holes = &h;
	items[0].nholes = 1;
	CHECK_EQ_U64(solver_lower_bound_aligned(&p), 1000,
		     "a window: the plain bound");
}

/* --- the anchors' orders and gaps, and the improvement -------------------- */

static void test_bestgap(void)
{
	uint64_t off[16];
	/* found by search: the tightest gap leaves room that first fit
	 * wastes (TFLite's best gap against its greedy by size) */
	struct solver_item a[] = { ITEM(1, 4, 2), ITEM(3, 6, 2), ITEM(4, 9, 4),
				   ITEM(0, 5, 4), ITEM(2, 8, 3), ITEM(1, 7, 3),
				   ITEM(1, 2, 3), ITEM(5, 6, 1) };
	struct solver_problem p = mkprob(a, 8);
	CHECK_EQ_U64(solver_lower_bound(&p), 16, "best gap: lower bound 16");
	CHECK_EQ_U64(run("greedy-size", &p, off), 18, "best gap: greedy-size 18");
	CHECK_EQ_U64(run("best-gap", &p, off), 16, "best gap: reaches 16");
	/* auto keeps its time limit: a limit already spent runs the first
	 * heuristic only (on large problems the others take seconds) */
	{
		struct solver_report r;
		struct solver_options o = { .time_limit = 1e-9 };
		CHECK(solver_solve(&p, "auto", &o, off, &r, err, sizeof(err)) == 0 &&
			      !strcmp(r.winner, "greedy-size") && r.height == 18,
		      "auto, no time left: greedy-size's answer alone");
		o.time_limit = 5;
		CHECK(solver_solve(&p, "auto", &o, off, &r, err, sizeof(err)) == 0 &&
			      r.height == 16,
		      "auto with time: the lower bound");
	}

	/* nine gaps of 4 bytes below one of exactly 3 (fixed walls of 1 byte
	 * between them): best-fit weighs only the lowest 8 fitting gaps,
	 * best-gap every one */
	struct solver_item b[11];
	for (int g = 0; g < 10; g++) {
		uint64_t wall = g < 9 ? 5 * (uint64_t)g + 4 : 48;
		b[g] = (struct solver_item)ITEM(0, 10, 1);
		b[g].fixed_offset = (int64_t)wall;
	}
	b[10] = (struct solver_item)ITEM(0, 10, 3);
	p = mkprob(b, 11);
	run("best-fit", &p, off);
	CHECK(off[10] < 45, "best gap: best-fit takes a 4-byte gap");
	CHECK_EQ_U64(run("best-gap", &p, off), 49, "best gap: height");
	CHECK_EQ_U64(off[10], 45, "best gap: the exact gap, the tenth");
}

static void test_rows(void)
{
	uint64_t off[8];
	/* found by search: only the colouring order reaches the bound */
	struct solver_item a[] = { ITEM(1, 2, 2), ITEM(4, 6, 4), ITEM(3, 7, 1),
				   ITEM(0, 1, 4), ITEM(1, 4, 4), ITEM(3, 5, 4),
				   ITEM(5, 9, 4) };
	struct solver_problem p = mkprob(a, 7);
	CHECK_EQ_U64(solver_lower_bound(&p), 9, "rows: lower bound 9");
	CHECK_EQ_U64(run("best-gap-rows", &p, off), 9, "rows: reach it");
	int others = 1;
	for (int s = 0; s < 4; s++)
		others &= run(names[s], &p, off) > 9;
	CHECK(others, "rows: the other heuristics do not");
	struct solver_report r;
	struct solver_options opt = { .time_limit = 0.5 };
	CHECK(solver_solve(&p, "auto", &opt, off, &r, err, sizeof(err)) == 0 &&
		      r.height == 9 && strcmp(r.winner, "best-gap-rows") == 0,
	      "rows: auto tries it and says it won");
}

/* solver_improve() from first-fit with a step budget on p: 0 or -1 on
 * error; *start and *end the heights, off the result. */
static int improve_from_firstfit(const struct solver_problem *p,
				 uint64_t *off, uint64_t steps,
				 uint64_t *start, uint64_t *end)
{
	struct solver_improve_limits lim = { 0, steps, 0, 0 };
	uint64_t done = 0;
	if (run("first-fit", p, off) == UINT64_MAX)
		return -1;
	solver_check(p, off, start, NULL, 0);
	if (solver_improve(p, off, end, &lim, &done, err, sizeof(err)))
		return -1;
	return done <= steps ? 0 : -1;
}

static void test_improve(void)
{
	rng_state = 0x2545f4914f6cdd1dull;
	int valid = 1, never_worse = 1, same = 1, improved = 0, above = 0;
	for (int round = 0; round < 60; round++) {
		struct rproblem r;
		size_t n = 5 + below(round < 40 ? 40 : 300);
		random_problem(&r, n, 50 + (int64_t)below(500), round % 3);
		uint64_t *off = calloc(n, sizeof(*off));
		uint64_t *again = calloc(n, sizeof(*again));
		uint64_t start, end, start2, end2, hc = 0;
		if (improve_from_firstfit(&r.p, off, 40, &start, &end) ||
		    solver_check(&r.p, off, &hc, err, sizeof(err)) ||
		    brute_conflict(&r.p, off) || hc != end) {
			printf("# round %d: %s\n", round, err);
			valid = 0;
		}
		if (end > start)
			never_worse = 0;
		/* fixed items high up set the height of the other rounds */
		if (round % 3 == 0) {
			improved += end < start;
			above += start > solver_lower_bound(&r.p);
		}
		/* the same step budget gives the same placement */
		if (improve_from_firstfit(&r.p, again, 40, &start2, &end2) ||
		    memcmp(off, again, n * sizeof(*off)) != 0)
			same = 0;
		free(off);
		free(again);
		rproblem_free(&r);
	}
	CHECK(valid, "improve: every answer valid (checker and oracle)");
	CHECK(never_worse, "improve: never higher than its start");
	CHECK(same, "improve: deterministic for a step budget");
	printf("# improve: %d of the %d first-fit placements above the bound lowered\n",
	       improved, above);
	CHECK(2 * improved > above, "improve: lowers most first-fit placements");

	/* no limit at all: nothing to do, nothing changed */
	struct solver_item a[] = { ITEM(0, 2, 1), ITEM(0, 4, 1), ITEM(2, 4, 2) };
	struct solver_problem p = mkprob(a, 3);
	uint64_t off[3] = { 0, 1, 2 }, h = 0; /* height 4, optimum 3 */
	struct solver_improve_limits none = { 0, 0, 0, 0 }, some = { 0, 10, 0, 0 };
	CHECK(solver_improve(&p, off, &h, &none, NULL, err, sizeof(err)) == 0 &&
		      h == 4 && off[2] == 2,
	      "improve: no budget, no change");
	CHECK(solver_improve(&p, off, &h, &some, NULL, err, sizeof(err)) == 0 &&
		      h == 3,
	      "improve: 10 steps find the optimum of a small case");
	uint64_t bad[3] = { 0, 0, 0 };
	CHECK(solver_improve(&p, bad, &h, &some, NULL, err, sizeof(err)) ==
		      SOLVER_EINVALID,
	      "improve: an invalid start is refused");
}

/*
 * place() with a stop budget (struct solver_strategy): a run that passes the
 * deadline gives up, SOLVER_ESTOPPED, so that auto's optional heuristics
 * keep the time limit (CI's sanitizer pass saw best-fit take 3 times
 * greedy-size's time on 30,000 buffers and compile --time-limit 2 end at
 * 2.26 s); with time to spare, or without one, the answer is the same.
 */
static void test_stop(void)
{
	rng_state = 0x5851f42d4c957f2dull;
	struct rproblem r;
	size_t n = 2000;
	random_problem(&r, n, 4000, 0);
	uint64_t *a = calloc(n, sizeof(*a)), *b = calloc(n, sizeof(*b));
	int same = 1, stopped = 1, said = 1, cancelled = 1;
	atomic_int flag = 1;
	for (int s = 0; s < NSTRAT; s++) {
		const struct solver_strategy *st = solver_strategy_find(names[s]);
		uint64_t ha = 0, hb = 0;
		struct solver_budget later = { .deadline = HUGE_VAL };
		clock_gettime(CLOCK_MONOTONIC, &later.t0);
		struct solver_budget past = later, cancel = later;
		past.deadline = 0;
		cancel.cancel = &flag;
		if (st->place(&r.p, a, &ha, NULL, err, sizeof(err)) ||
		    st->place(&r.p, b, &hb, &later, err, sizeof(err)) ||
		    ha != hb || memcmp(a, b, n * sizeof(*a)) != 0)
			same = 0;
		err[0] = '\0';
		if (st->place(&r.p, b, &hb, &past, err, sizeof(err)) !=
		    SOLVER_ESTOPPED)
			stopped = 0;
		if (!strstr(err, "time limit"))
			said = 0;
		if (st->place(&r.p, b, &hb, &cancel, err, sizeof(err)) !=
		    SOLVER_ESTOPPED)
			cancelled = 0;
	}
	CHECK(same, "stop: a deadline not reached changes no strategy's answer");
	CHECK(stopped, "stop: every strategy gives up once the deadline has passed");
	CHECK(said, "stop: ... saying the time limit passed");
	CHECK(cancelled, "stop: ... and once the budget is cancelled");
	free(a);
	free(b);
	rproblem_free(&r);
}

int main(void)
{
	test_table();
	test_problem_align();
	test_aligned_bound();
	test_small();
	test_align_fixed();
	test_holes();
	test_check();
	test_random();
	test_bestgap();
	test_rows();
	test_improve();
	test_stop();
	test_trace();
	test_instances();
	return tap_done();
}
