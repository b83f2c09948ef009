/* SPDX-License-Identifier: MIT */
/*
 * solver_improve.c - an anytime improvement of a placement: squeaky-wheel
 * iterated greedy (Joslin and Clements 1999).  Each step re-runs the greedy
 * engine with an order in which the items that stuck out above the lower
 * bound in the last run move forward (so that they are placed earlier, when
 * the pool is emptier), with a seeded random share of the move.  Used by
 * auto with the time the exact search leaves.  Invariant: the placement
 * handed back is never higher than the one handed in, and it passed
 * solver_check().
 *
 * Design note.  A step costs one greedy run, O(P log P) for P pieces.  To
 * make steps cheap on large traces, the search works in rounds, each on a
 * window of time around one of the highest items: free, the items whose
 * lifetime lies inside the window; fixed where they are, the items that
 * cross it, cut to it; everything else stays put.  Windows hold the starts
 * of 256, 1,024, 4,096 items, then the whole problem, and grow round by
 * round; one cycle of windows moves items by blame, the next by noise
 * (sizes scaled by a random factor), and so on.  A round's first step
 * replays the incumbent in offset order with the lowest fit (gravity:
 * without windows it never rises, since every item's old offset stays
 * free), so the search starts from the incumbent rather than from scratch.
 * Steps alternate the lowest and the best fit.  Steps are counted, the
 * clock only ends the loop: the same step budget gives the same answer on
 * any machine.
 *
 * On problems of 1,024 items or more two whole-problem moves come first.
 * The size order with ties by start (one step).  Then squeezes, while they
 * gain: at the fullest instant in the life of one of the highest items,
 * the gaps between the items live then are what the height wastes there.
 * A gravity run with the items that block those gaps (not live then, in
 * them or above the highest live one) placed last packs that instant and
 * lifts the blockers on top; runs in which each blocker enters the gravity
 * order at a random fraction of its offset then look for a low place that
 * the items above it make room for.  Windowed rounds cannot do this on DL
 * traces: the highest items are small buffers that live through the whole
 * iteration, so every window is the whole problem, and blame and noise
 * scatter the size order the packing depends on.  On SOMAS PanGu-2.6B the
 * size order gives 1.0076 x the lower bound and the squeeze 1.0038, where
 * the rounds alone stayed at 1.0085.
 */
#include "occupancy.h"
#include "solver.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>


#define PRIO_SHIFT 16 /* priorities are ranks << PRIO_SHIFT */
/* A round ends after this many steps without a new best... */
#define ROUND_STALE 48
/* ...and inside one, after this many the order goes back to the best. */
#define RESTART_AFTER 16
/* Round windows hold WINDOW_MIN items, then 4x, 16x, then all of them. */
#define WINDOW_MIN 256
#define WINDOW_STEPS 4
/* A squeeze tries this many random entries of its blockers... */
#define SQUEEZE_TRIES 24
/* ...on problems of at least this many items (below, whole-problem rounds
 * are cheap, and on random problems of up to 300 items do better per step;
 * on generated DL-shaped ones of 1,100 and 3,000 the moves lowered 20 of 60
 * after 40 steps, the rounds alone one). */
#define SQUEEZE_MIN_ITEMS (WINDOW_MIN * 4)
/* A whole greedy run's time over the setup of its occupancy (measured:
 * 5 to 17 on 18k-62k buffers), as the guess before one ran. */
#define SETUP_TO_RUN 20

/* One round's subproblem and search state. */
struct improve {
	struct solver_problem q; /* the subproblem (items and holes owned) */
	uint32_t *map;           /* q's item j is p's item map[j] */
	struct solver_occupancy *o;
	struct solver_order_key *keys;
	uint32_t *order, *best_order;
	uint64_t *prio, *trial;
	uint64_t rest_top; /* the highest top of p's items outside q */
};

/* xorshift64*: a small deterministic generator. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

static double elapsed_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static uint64_t time_key(int64_t t)
{
	return (uint64_t)t ^ (UINT64_C(1) << 63);
}

static void round_free(struct improve *m)
{
	solver_occupancy_free(m->o);
	free(m->q.items);
	free(m->q.hole_store);
	free(m->map);
	free(m->keys);
	free(m->order);
	free(m->best_order);
	free(m->prio);
	free(m->trial);
	memset(m, 0, sizeof(*m));
}

/*
 * Makes *it the fixed item at offset that it is inside [a, b) (which it
 * meets), with its holes cut to that window and stored at store[*nstore].
 */
static void clip(struct solver_item *it, uint64_t offset, int64_t a,
		 int64_t b, struct solver_hole *store, size_t *nstore)
{
	const struct solver_hole *h = it->holes;
	uint32_t nh = it->nholes;
	it->fixed_offset = (int64_t)offset;
	it->lower = it->lower > a ? it->lower : a;
	it->upper = it->upper < b ? it->upper : b;
	it->holes = &store[*nstore];
	it->nholes = 0;
	for (uint32_t k = 0; k < nh; k++) {
		struct solver_hole c = h[k];
		c.lower = c.lower > it->lower ? c.lower : it->lower;
		c.upper = c.upper < it->upper ? c.upper : it->upper;
		if (c.lower < c.upper) {
			store[(*nstore)++] = c;
			it->nholes++;
		}
	}
}

/*
 * Builds the round's subproblem around item c (one of the highest) from the
 * placement in offsets: a window [a, b) of time holding the starts of about
 * k items around c's start, widened to c's lifetime.  Free: the free items
 * whose lifetime lies inside the window.  Fixed where they are: the other
 * items that meet the window, cut to it (their holes too).  With
 * k >= n the subproblem is p itself, every free item free.  bylower lists
 * p's items by start.  Returns 0 or SOLVER_ENOMEM.
 */
static int round_new(struct improve *m, const struct solver_problem *p,
		     const uint64_t *offsets, const uint32_t *bylower,
		     size_t c, size_t k)
{
	size_t n = p->n;
	memset(m, 0, sizeof(*m));
	int64_t a = INT64_MIN, b = INT64_MAX;
	int whole = k >= n;
	if (!whole) {
		size_t r = 0; /* c's rank by start */
		while (bylower[r] != c)
			r++;
		size_t lo = r > k / 2 ? r - k / 2 : 0;
		size_t hi = lo + k < n ? lo + k : n;
		a = p->items[bylower[lo]].lower;
		b = hi < n ? p->items[bylower[hi]].lower
			   : p->items[bylower[n - 1]].upper;
		if (p->items[c].lower < a)
			a = p->items[c].lower;
		if (p->items[c].upper > b)
			b = p->items[c].upper;
	}
	size_t q = 0, nh = 0;
	for (size_t i = 0; i < n; i++) {
		const struct solver_item *it = &p->items[i];
		if (whole || (it->lower < it->upper && it->lower < b &&
			      it->upper > a)) {
			q++;
			nh += it->nholes;
		}
	}
	m->q.items = malloc((q + 1) * sizeof(*m->q.items));
	m->map = malloc((q + 1) * sizeof(*m->map));
	m->keys = malloc((q + 1) * sizeof(*m->keys));
	m->order = malloc((q + 1) * sizeof(*m->order));
	m->best_order = malloc((q + 1) * sizeof(*m->best_order));
	m->prio = malloc((q + 1) * sizeof(*m->prio));
	m->trial = malloc((q + 1) * sizeof(*m->trial));
	m->q.hole_store = malloc((nh + 1) * sizeof(*m->q.hole_store));
	if (!m->q.hole_store || !m->q.items || !m->map || !m->keys || !m->order ||
	    !m->best_order || !m->prio || !m->trial)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		struct solver_item it = p->items[i];
		int meets = whole || (it.lower < it.upper && it.lower < b &&
				      it.upper > a);
		int inside = whole || (meets && it.lower >= a && it.upper <= b);
		if (!meets || (!inside || it.fixed_offset != SOLVER_FREE)) {
			uint64_t top = offsets[i] + it.size;
			if (top > m->rest_top)
				m->rest_top = top;
		}
		if (!meets)
			continue;
		if (!inside)
			clip(&it, offsets[i], a, b, m->q.hole_store,
			     &m->q.nhole_store);
		m->map[m->q.n] = (uint32_t)i;
		m->q.items[m->q.n++] = it;
	}
	m->o = solver_occupancy_new(&m->q);
	if (m->o)
		return 0;
nomem:
	round_free(m);
	return SOLVER_ENOMEM;
}

/* One of the items whose top is at height h, picked by rng. */
static size_t highest(const struct solver_problem *p, const uint64_t *offsets,
		      uint64_t h, uint64_t *rng)
{
	size_t count = 0, pick = 0;
	for (size_t i = 0; i < p->n; i++)
		count += offsets[i] + p->items[i].size == h;
	uint64_t want = count ? next_rand(rng) % count : 0;
	for (size_t i = 0; i < p->n; i++)
		if (offsets[i] + p->items[i].size == h && want-- == 0)
			pick = i;
	return pick;
}

/* Priorities from the ranks of order. */
static void set_prio(struct improve *m)
{
	for (size_t k = 0; k < m->q.n; k++)
		m->prio[m->order[k]] = (uint64_t)k << PRIO_SHIFT;
}

/*
 * The order that replays the placement: by (offset, start, index)
 * (gravity: an item never needs to go higher than it was).
 */
static void gravity_order(struct improve *m, const uint64_t *offsets)
{
	for (size_t j = 0; j < m->q.n; j++)
		m->keys[j] = (struct solver_order_key){
			offsets[m->map[j]], time_key(m->q.items[j].lower), 0,
			(uint32_t)j };
	solver_order_sort(m->keys, m->q.n, m->order);
	set_prio(m);
}

/*
 * The squeaky wheel: every item of the last run whose top passed lb moves
 * forward by a random part of its rank, scaled by how far it passed (h is
 * the run's height); then the priorities are sorted into m->order.
 */
static void blame(struct improve *m, uint64_t lb, uint64_t h, uint64_t *rng)
{
	uint64_t span = h > lb ? h - lb : 1;
	for (size_t j = 0; j < m->q.n; j++) {
		const struct solver_item *it = &m->q.items[j];
		uint64_t top = m->trial[j] + it->size;
		if (top <= lb || it->fixed_offset != SOLVER_FREE)
			continue;
		double share = (double)(top - lb) / (double)span;
		uint64_t move = (uint64_t)((double)(next_rand(rng) %
						    (m->prio[j] + 1)) * share);
		m->prio[j] -= move;
	}
	for (size_t j = 0; j < m->q.n; j++)
		m->keys[j] = (struct solver_order_key){ m->prio[j], 0, 0,
							(uint32_t)j };
	solver_order_sort(m->keys, m->q.n, m->order);
	set_prio(m);
}

/* The limits, the steps made, and the longest step so far. */
struct budget {
	const struct solver_improve_limits *lim;
	struct timespec t0;
	uint64_t done;
	double step; /* seconds */
	double first; /* the guess for a first whole run, until one ran */
};

/*
 * Whether the step budget or the clock says stop: the clock does when the
 * longest step so far would no longer fit, so that the time limit holds.
 */
static int out_of_budget(const struct budget *b)
{
	if (b->lim->max_steps && b->done >= b->lim->max_steps)
		return 1;
	double step = b->step > b->first ? b->step : b->first;
	return b->lim->seconds > 0 &&
	       elapsed_since(&b->t0) + step >= b->lim->seconds;
}

/*
 * Noise instead of blame: sizes scaled by a random factor in [0.7, 1.3),
 * descending, then duration descending (a perturbed greedy by size).
 */
static void shake(struct improve *m, uint64_t *rng)
{
	for (size_t j = 0; j < m->q.n; j++) {
		const struct solver_item *it = &m->q.items[j];
		double f = 0.7 + 0.6 * (double)(next_rand(rng) >> 11) /
					 (double)(UINT64_C(1) << 53);
		uint64_t dur = (uint64_t)it->upper - (uint64_t)it->lower;
		m->keys[j] = (struct solver_order_key){
			~(uint64_t)((double)it->size * f), ~dur, 0, (uint32_t)j };
	}
	solver_order_sort(m->keys, m->q.n, m->order);
	set_prio(m);
}

/* The height of the subproblem's items at offsets (p's placement). */
static uint64_t sub_height(const struct improve *m, const uint64_t *offsets)
{
	uint64_t h = 0;
	for (size_t j = 0; j < m->q.n; j++)
		if (offsets[m->map[j]] + m->q.items[j].size > h)
			h = offsets[m->map[j]] + m->q.items[j].size;
	return h;
}

/*
 * One round on the subproblem m: greedy runs from the order that replays
 * the incumbent, each next order from the last run by blame (or by shake
 * when noisy), back to the best order every RESTART_AFTER runs without a
 * new best, until ROUND_STALE of them or the budget.  A run whose full
 * placement (m's items moved, the rest kept) passes solver_check() below
 * *best replaces offsets and *best.  cand is scratch for n offsets.
 * Returns 0 or SOLVER_ENOMEM (offsets and *best stay valid).
 */
static int round_search(struct improve *m, const struct solver_problem *p,
			uint64_t *offsets, uint64_t *best, uint64_t lb,
			int noisy, uint64_t *cand, uint64_t *rng,
			struct budget *b)
{
	/* blame against the window's own bound: a quiet window has no item
	 * above the global one */
	uint64_t qlb = solver_lower_bound(&m->q);
	gravity_order(m, offsets);
	memcpy(m->best_order, m->order, m->q.n * sizeof(*m->order));
	for (uint64_t stale = 0, run = 0; stale < ROUND_STALE && *best > lb &&
	     !out_of_budget(b); run++) {
		enum solver_fit fit = run % 2 ? SOLVER_FIT_BEST
					      : SOLVER_FIT_LOWEST;
		uint64_t h;
		double t = elapsed_since(&b->t0);
		b->done++;
		if (solver_occupancy_run(m->o, m->order, m->q.n, fit, m->trial,
					 &h, NULL, 0))
			return SOLVER_ENOMEM;
		t = elapsed_since(&b->t0) - t;
		if (t > b->step)
			b->step = t;
		uint64_t full = h > m->rest_top ? h : m->rest_top;
		int better = full < *best;
		if (better) {
			memcpy(cand, offsets, p->n * sizeof(*cand));
			for (size_t j = 0; j < m->q.n; j++)
				cand[m->map[j]] = m->trial[j];
			better = solver_check(p, cand, &full, NULL, 0) == 0 &&
				 full < *best;
		}
		if (better) {
			*best = full;
			memcpy(offsets, cand, p->n * sizeof(*offsets));
			memcpy(m->best_order, m->order,
			       m->q.n * sizeof(*m->order));
			stale = 0;
		} else if (++stale % RESTART_AFTER == 0) {
			memcpy(m->order, m->best_order,
			       m->q.n * sizeof(*m->order));
			for (size_t j = 0; j < m->q.n; j++)
				m->trial[j] = offsets[m->map[j]];
			set_prio(m);
			h = sub_height(m, offsets);
		}
		if (noisy)
			shake(m, rng);
		else
			blame(m, qlb, h, rng);
	}
	return 0;
}


/* --- the squeeze -------------------------------------------------------- */

/* A time range's start (+size) or end (-size); ends sort first. */
struct sq_event {
	int64_t t;
	int64_t d;
};

static int sq_event_cmp(const void *a, const void *b)
{
	const struct sq_event *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->d > y->d) - (x->d < y->d);
}

/* The events of every item's lifetime, sorted, in *ev (malloc'ed) and *nev.
 * Returns 0 or SOLVER_ENOMEM. */
static int sq_events(const struct solver_problem *p, struct sq_event **ev,
		     size_t *nev)
{
	struct sq_event *e = malloc((2 * p->n + 1) * sizeof(*e));
	if (!e)
		return SOLVER_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct solver_item *it = &p->items[i];
		if (it->lower >= it->upper)
			continue;
		e[k++] = (struct sq_event){ it->lower, (int64_t)it->size };
		e[k++] = (struct sq_event){ it->upper, -(int64_t)it->size };
	}
	qsort(e, k, sizeof(*e), sq_event_cmp);
	*ev = e;
	*nev = k;
	return 0;
}

/* The first instant of [a, b) at which the most bytes are live (holes
 * ignored: it only guides the move), or a when none starts there. */
static int64_t peak_in(const struct sq_event *e, size_t k, int64_t a,
		       int64_t b)
{
	int64_t cur = 0, most = -1, at = a;
	for (size_t i = 0; i < k && e[i].t < b; i++) {
		cur += e[i].d;
		if (e[i].t >= a && cur > most) {
			most = cur;
			at = e[i].t;
		}
	}
	return at;
}

struct span {
	uint64_t lo, hi;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Scratch of the squeeze, for n items. */
struct squeeze {
	struct solver_occupancy *o;
	struct solver_order_key *keys;
	uint32_t *order;
	uint64_t *trial;
	struct span *live, *gaps;
	unsigned char *moved;
	struct sq_event *ev; /* every lifetime's start and end, sorted */
	size_t nev;
	int64_t peak; /* the instant the squeeze packs */
};

static void squeeze_free(struct squeeze *s)
{
	solver_occupancy_free(s->o);
	free(s->keys);
	free(s->order);
	free(s->trial);
	free(s->live);
	free(s->gaps);
	free(s->moved);
	free(s->ev);
	memset(s, 0, sizeof(*s));
}

static int squeeze_new(struct squeeze *s, const struct solver_problem *p)
{
	size_t n = p->n + 1;
	memset(s, 0, sizeof(*s));
	s->keys = malloc(n * sizeof(*s->keys));
	s->order = malloc(n * sizeof(*s->order));
	s->trial = malloc(n * sizeof(*s->trial));
	s->live = malloc(n * sizeof(*s->live));
	s->gaps = malloc((n + 1) * sizeof(*s->gaps));
	s->moved = malloc(n);
	if (s->keys && s->order && s->trial && s->live && s->gaps &&
	    s->moved && sq_events(p, &s->ev, &s->nev) == 0 &&
	    (s->o = solver_occupancy_new(p)))
		return 0;
	squeeze_free(s);
	return SOLVER_ENOMEM;
}

static int live_at(const struct solver_item *it, int64_t t)
{
	return it->lower <= t && t < it->upper;
}

/*
 * One greedy run over every item in the order of s->keys at the lowest
 * fit (one step of b).  Kept in offsets and *best when lower, or when no
 * higher if sideways.  Returns 1 when *best went down, 0 when not, or
 * SOLVER_ENOMEM.
 */
static int whole_run(struct squeeze *s, const struct solver_problem *p,
		     uint64_t *offsets, uint64_t *best, int sideways,
		     struct budget *b)
{
	uint64_t h;
	double t = elapsed_since(&b->t0);
	b->done++;
	solver_order_sort(s->keys, p->n, s->order);
	if (solver_occupancy_run(s->o, s->order, p->n, SOLVER_FIT_LOWEST,
				 s->trial, &h, NULL, 0))
		return SOLVER_ENOMEM;
	int kept = (sideways ? h <= *best : h < *best) &&
		   solver_check(p, s->trial, &h, NULL, 0) == 0 &&
		   (sideways ? h <= *best : h < *best);
	t = elapsed_since(&b->t0) - t; /* the check is part of the step */
	if (t > b->step)
		b->step = t;
	b->first = 0;
	if (kept) {
		int lower = h < *best;
		*best = h;
		memcpy(offsets, s->trial, p->n * sizeof(*offsets));
		return lower;
	}
	return 0;
}

/*
 * Marks in s->moved the free items that keep the peak instant from being
 * packed: those not live then whose bytes meet a gap between the items
 * live then, or that stand above the highest of them.  Returns how many.
 */
static size_t mark_blockers(struct squeeze *s, const struct solver_problem *p,
			    const uint64_t *offsets)
{
	size_t nl = 0, ng = 0, nb = 0;
	for (size_t i = 0; i < p->n; i++)
		if (live_at(&p->items[i], s->peak))
			s->live[nl++] = (struct span){
				offsets[i], offsets[i] + p->items[i].size };
	qsort(s->live, nl, sizeof(*s->live), span_cmp);
	uint64_t top = 0;
	for (size_t k = 0; k < nl; k++) {
		if (s->live[k].lo > top)
			s->gaps[ng++] = (struct span){ top, s->live[k].lo };
		if (s->live[k].hi > top)
			top = s->live[k].hi;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct solver_item *it = &p->items[i];
		uint64_t a = offsets[i], z = offsets[i] + it->size;
		int blk = 0;
		if (it->fixed_offset == SOLVER_FREE && !live_at(it, s->peak)) {
			/* the first gap ending above a */
			size_t lo = 0, hi = ng;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (s->gaps[mid].hi <= a)
					lo = mid + 1;
				else
					hi = mid;
			}
			blk = z > top || (lo < ng && s->gaps[lo].lo < z);
		}
		s->moved[i] = (unsigned char)blk;
		nb += (size_t)blk;
	}
	return nb;
}

/*
 * The squeeze, a move for the instant where the most bytes are live: the
 * gaps there are what the height wastes.  First a gravity run (items in
 * offset order at the lowest fit, so none rises) with the blockers of
 * those gaps (items not live then, in them) placed last: the peak packs,
 * and the blockers stand on top (kept when no higher: a sideways move).
 * Then runs in which each blocker enters the gravity order at a random
 * fraction of its offset, so it takes a place low down that the items
 * above it make room for, until one is lower than *best or tries run out.
 * Returns 1 when *best went down (offsets then hold the new placement), 0
 * when not, or SOLVER_ENOMEM; offsets always stay valid and no higher.
 */
static int squeeze(struct squeeze *sq, const struct solver_problem *p,
		   uint64_t *offsets, uint64_t *best, uint64_t lb,
		   unsigned tries, uint64_t *rng, struct budget *b)
{
	size_t n = p->n;
	int improved = 0;
	/* the fullest instant in the life of one of the highest items: the
	 * gaps there keep it up */
	const struct solver_item *c = &p->items[highest(p, offsets, *best, rng)];
	sq->peak = c->lower < c->upper
			   ? peak_in(sq->ev, sq->nev, c->lower, c->upper)
			   : peak_in(sq->ev, sq->nev, INT64_MIN, INT64_MAX);
	if (mark_blockers(sq, p, offsets) == 0)
		return 0;
	for (unsigned step = 0; step <= tries && *best > lb && !improved &&
	     !out_of_budget(b); step++) {
		for (size_t i = 0; i < n; i++) {
			const struct solver_item *it = &p->items[i];
			uint64_t k1 = 0, k2 = offsets[i];
			if (sq->moved[i] && step == 0) {
				k1 = 1;
				k2 = ~it->size;
			} else if (sq->moved[i]) {
				double u = (double)(next_rand(rng) >> 11) /
					   (double)(UINT64_C(1) << 53);
				k2 = (uint64_t)((double)k2 * u);
			}
			sq->keys[i] = (struct solver_order_key){
				k1, k2, time_key(it->lower), (uint32_t)i };
		}
		int rc = whole_run(sq, p, offsets, best, step == 0, b);
		if (rc < 0)
			return rc;
		improved = rc > 0;
	}
	return improved;
}

/*
 * Greedy by size with ties by earlier start (the trace's order, which
 * TFLite's sort leaves equal sizes in) at the lowest fit: one step, kept
 * when lower.  On SOMAS PanGu-2.6B it is 1.0076 x the lower bound where
 * every heuristic of the table stays at 1.0085 or above, and a better
 * start for the squeeze.  Returns like whole_run().
 */
static int size_start_order(struct squeeze *s, const struct solver_problem *p,
			    uint64_t *offsets, uint64_t *best,
			    struct budget *b)
{
	for (size_t i = 0; i < p->n; i++)
		s->keys[i] = (struct solver_order_key){
			~p->items[i].size, time_key(p->items[i].lower), 0,
			(uint32_t)i };
	return whole_run(s, p, offsets, best, 0, b);
}

int solver_improve(const struct solver_problem *p, uint64_t *offsets,
		   uint64_t *height, const struct solver_improve_limits *lim,
		   uint64_t *steps, char *err, size_t errlen)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (steps)
		*steps = 0;
	uint64_t best;
	int rc = solver_check(p, offsets, &best, err, errlen);
	if (rc)
		return rc;
	*height = best;
	uint64_t lb = solver_lower_bound(p);
	for (size_t i = 0; i < p->n; i++)
		if (p->items[i].size > lb)
			lb = p->items[i].size;
	if (best <= lb || p->n < 2 ||
	    (lim->max_steps == 0 && lim->seconds <= 0))
		return 0;
	uint64_t *cand = malloc(p->n * sizeof(*cand));
	if (!cand)
		return trace_seterr(err, errlen, SOLVER_ENOMEM,
			    "out of memory improving %zu buffers", p->n);
	uint32_t *bylower = malloc(p->n * sizeof(*bylower));
	struct solver_order_key *keys = malloc(p->n * sizeof(*keys));
	if (!bylower || !keys) {
		free(cand);
		free(bylower);
		free(keys);
		return trace_seterr(err, errlen, SOLVER_ENOMEM,
			    "out of memory improving %zu buffers", p->n);
	}
	for (size_t i = 0; i < p->n; i++)
		keys[i] = (struct solver_order_key){
			time_key(p->items[i].lower), 0, 0, (uint32_t)i };
	solver_order_sort(keys, p->n, bylower);
	free(keys);
	uint64_t rng = lim->seed ? lim->seed : UINT64_C(0x9e3779b97f4a7c15);
	struct budget bud = { lim, t0, 0, 0, lim->run_seconds };
	/* the size order with start ties, squeezes while they gain, then
	 * the rounds */
	struct squeeze sq = { 0 };
	double t = elapsed_since(&t0);
	rc = p->n >= SQUEEZE_MIN_ITEMS && !out_of_budget(&bud)
		     ? squeeze_new(&sq, p) : 1;
	t = elapsed_since(&t0) - t; /* setup counts as a step */
	if (t > bud.step)
		bud.step = t;
	/* a whole run took 5 to 17 times this setup on 18k-62k buffers: the
	 * first one starts only when that much time is left (or the time a
	 * run took the caller, measured at this machine's current speed) */
	bud.first = lim->run_seconds > 0 ? lim->run_seconds : SETUP_TO_RUN * t;
	if (rc == 0 && !out_of_budget(&bud))
		rc = size_start_order(&sq, p, offsets, &best, &bud);
	while (rc >= 0 && sq.o && best > lb && !out_of_budget(&bud) &&
	       (rc = squeeze(&sq, p, offsets, &best, lb, SQUEEZE_TRIES, &rng,
			     &bud)) > 0)
		;
	squeeze_free(&sq);
	bud.first = 0; /* the rounds guess from their own steps */
	if (rc > 0)
		rc = 0; /* the last squeeze gained, and the budget or bound ended them */
	if (rc < 0) {
		free(cand);
		free(bylower);
		*height = best;
		if (steps)
			*steps = bud.done;
		return trace_seterr(err, errlen, SOLVER_ENOMEM,
			    "out of memory improving %zu buffers", p->n);
	}
	for (unsigned round = 0; best > lb && !out_of_budget(&bud); round++) {
		struct improve m;
		/* windows of WINDOW_MIN, 4x, 16x ... items, then everything */
		size_t k = WINDOW_MIN;
		for (unsigned g = 0; g < round % WINDOW_STEPS && k < p->n; g++)
			k *= 4;
		if (round % WINDOW_STEPS == WINDOW_STEPS - 1)
			k = p->n;
		/* a window's setup and first run cost about two runs of its
		 * share of a whole one: a window that would not fit shrinks to
		 * the smallest, and when that would not either the rounds end */
		if (lim->run_seconds > 0 && lim->seconds > 0) {
			double now = elapsed_since(&t0);
			if (now + 2 * lim->run_seconds * (double)k / (double)p->n >=
			    lim->seconds)
				k = WINDOW_MIN;
			if (now + 2 * lim->run_seconds * (double)k / (double)p->n >=
			    lim->seconds)
				break;
		}
		size_t c = highest(p, offsets, best, &rng);
		double t = elapsed_since(&t0);
		rc = round_new(&m, p, offsets, bylower, c, k);
		t = elapsed_since(&t0) - t; /* a round's setup counts as a step */
		if (t > bud.step)
			bud.step = t;
		if (rc == 0)
			rc = round_search(&m, p, offsets, &best, lb,
					  round / WINDOW_STEPS % 2, cand, &rng,
					  &bud);
		else
			rc = SOLVER_ENOMEM;
		round_free(&m);
		if (rc) {
			rc = trace_seterr(err, errlen, SOLVER_ENOMEM,
				  "out of memory improving %zu buffers", p->n);
			break;
		}
	}
	free(cand);
	free(bylower);
	if (steps)
		*steps = bud.done;
	*height = best;
	return rc;
}
