/* SPDX-License-Identifier: MIT */
/*
 * solver_guillotine.c - the guillotine search: a placement with no gap
 * at all, built from the top down as a guillotine packing is cut.  exact
 * and auto run it at the lower bound before the skyline search, with a
 * small counted budget (solver_search_guillotine()).
 *
 * Why.  A problem full at every instant at the bound (the packed class)
 * whose instances were made by cutting a rectangle recursively has a
 * gapless placement that is a guillotine packing, and a guillotine packing
 * of a block [a, b) x h (a set of buffers whose live bytes are h at every
 * instant of [a, b)) is found by three rules:
 *   - a buffer live over all of [a, b) can lie at the block's bottom: in
 *     any gapless placement everything else is wholly below or above it,
 *     and the two sets stacked, the buffer on top, are a placement too;
 *   - an instant inside (a, b) that no buffer crosses cuts the block into
 *     two blocks of height h, placed independently;
 *   - otherwise the packing's first cut is across bytes: the block is two
 *     blocks [a, b) x c and [a, b) x (h - c), stacked.  Their sets are the
 *     flows of the block: seen as arcs from their first instant to their
 *     end, buffers of one block balance at every instant inside (a, b)
 *     (the bytes that end there are the bytes that start there).  The
 *     search picks the block of one buffer x0 that starts at a, and grows
 *     it one instant at a time: at the unbalanced instant with the fewest
 *     undecided buffers it tries each subset of them that balances it
 *     (identical buffers taken in index order), until every instant is
 *     balanced; then both blocks are searched, the one of x0 first.
 *     After each choice what it forces is decided (propagate(): an
 *     instant whose undecided buffers cannot balance it without one
 *     takes it, or with one leaves it out), so a wrong choice dies where
 *     it is made and not hundreds of levels down (README, "Propagation").
 * Sets that failed are kept by a commutative hash of their buffers'
 * (start, end, size), so identical buffers swapped or the same set met
 * under another choice end at once.  The growth is not complete (it
 * takes the first balanced set a choice completes, never a larger one),
 * and on some blocks of hundreds of buffers it never completes one; so
 * the sets are also found by a sweep (flow_sweep(), below: every
 * balanced set that leaves an instant uncrossed, as the strip of a
 * guillotine packing does).  Four passes: the sweep of x0's sets (a
 * quarter of the steps), the growth with each order of the subsets (to
 * 60%, then to 80%), then the sweep of the sets of at most half the
 * block's height, x0's or not.  Nothing here proves
 * anything: which is why it runs with a small share and the skyline
 * search after it.
 *
 * What it adds: on bench_placement's big shape (300-450 buffers), the
 * seeds the skyline search misses within millions of nodes are not the
 * ones this misses (README, "The guillotine search").
 *
 * Relaxed (solver_search_guillotine_relaxed()): where the strict search
 * fails, it fails inside a block it cannot cut, often deep under cuts
 * that were right.  The relaxed search keeps the first split of each
 * block, places a block it cannot cut within its cap by heuristics
 * (fall_back()) and moves what is stacked on it up by what that takes
 * above the block's height (g->over), so no block is searched twice and
 * the answer is near the bound where the uncut blocks are small or thin
 * (README, "Blocks the search cannot cut").  Seeded
 * (SOLVER_GUILLOTINE_SEEDED), a block's split is looked for first from
 * the instants a strip of it may be cut at (flow_seeded()), which cuts
 * blocks of thousands of buffers the other ways never cut (README,
 * "Seeds at the cut instants").  Reversed (SOLVER_GUILLOTINE_REVERSED),
 * the search runs on the problem with time backwards: each block's
 * strip is grown from its last instant, so the blocks it cannot cut are
 * others (README, "Time run backwards").  A restart
 * (SOLVER_GUILLOTINE_RESTART(k)) draws from k the seeds' order and flips
 * one subset order in four, so its first splits are others again
 * (README, "Restarts").
 */
#include "solver.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define GM_BITS 16 /* the table of failed sets: 2^16 keys */

struct gsearch {
	const struct solver_problem *p;
	uint64_t *off;        /* the answer, written as blocks succeed */
	uint64_t steps, max_steps;
	uint64_t lim;         /* the step the current try ends at (relax: a
			       * block's split has its own) */
	struct solver_budget *b;
	int stop;             /* out of steps or clock */
	int clock;            /* out of clock (or cancelled) */
	unsigned depth;       /* frames of block, flow_dfs and flow_sub */
	unsigned max_depth;
	int order;            /* 0: a subset without the largest first */
	int sweep;            /* flows by the sweep, not the growth */
	int anchor;           /* the sweep's sets hold x0 */
	size_t sw_states, sw_ents; /* what the live sweeps hold, in all */
	uint64_t *hkey;       /* per item: its hash */
	uint64_t (*memo)[2];  /* failed sets: (key, check), 0 empty */
	int oom;
	/* relax (solver_search_guillotine_relaxed()): a block whose split
	 * is not found within relax_cap steps a buffer is placed by the
	 * heuristics, above its height by over */
	int relax;
	int seeded;           /* relax: a block's cut instants tried first
			       * (flow_seeded()) */
	int height;           /* seeded: a seed fixes the strip's height */
	unsigned restart;     /* k of SOLVER_GUILLOTINE_RESTART(k), 0 none:
			       * the seeds' order and one subset order in
			       * four drawn (from rng) */
	uint64_t rng;
	int earliest;         /* the growth balances the earliest unbalanced
			       * instant first, not the one with the fewest
			       * undecided arcs */
	int spent;            /* relax: out of steps or clock: every block
			       * left goes to the heuristics */
	uint64_t relax_cap;
	uint64_t over;        /* relax: what the block just placed took above
			       * its height */
	size_t falls, fell;   /* relax: blocks and buffers the heuristics
			       * placed */
	solver_exact_fn *polish; /* relax: the search a block the
				  * heuristics placed gets, or NULL */
	int one_thread;       /* SOLVER_GUILLOTINE_ONE_THREAD */
	size_t polished;      /* blocks the polish lowered */
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9u;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebu;
	x ^= x >> 31;
	return x;
}

/* A restart's next draw (splitmix64). */
static uint64_t draw(struct gsearch *g)
{
	g->rng += 0x9e3779b97f4a7c15u;
	return mix64(g->rng);
}

/* Counts a step; nonzero when the search must end. */
static int tick(struct gsearch *g)
{
	if (g->stop)
		return 1;
	if (++g->steps >= g->lim) {
		g->stop = 1;
		return 1;
	}
	if ((g->steps & 4095) == 0 && g->b &&
	    solver_budget_spend(g->b, 0, 1))
		g->stop = g->clock = 1;
	return g->stop;
}

/*
 * The recursion's depth is bounded (a search of thousands of buffers
 * nests as deep as its flows have instants plus the buffers of one):
 * past g->max_depth frames the search ends, as out of steps.  The search
 * runs on a thread of its own with GUIL_STACK bytes of stack (only what
 * it touches is ever mapped in), GUIL_FRAME_BYTES a frame at most (a
 * sanitizer's frames included); where no such thread can be made it runs
 * on the caller's, GUIL_MAX_DEPTH frames deep (1 MiB of stack is enough).
 */
#define GUIL_MAX_DEPTH 3000u
#define GUIL_STACK ((size_t)64 << 20)
#define GUIL_FRAME_BYTES 1024u

static int deeper(struct gsearch *g)
{
	if (++g->depth > g->max_depth)
		g->stop = 1;
	return g->stop;
}

static int up(struct gsearch *g, int r)
{
	g->depth--;
	return r;
}

static void set_key(const struct gsearch *g, const uint32_t *s, size_t n,
		    uint64_t k[2])
{
	k[0] = 0;
	k[1] = n;
	for (size_t i = 0; i < n; i++) {
		k[0] += g->hkey[s[i]];
		k[1] += mix64(g->hkey[s[i]] ^ 0x5851f42d4c957f2du);
	}
	if (!k[0])
		k[0] = 1;
}

static int memo_has(const struct gsearch *g, const uint64_t k[2])
{
	size_t m = (size_t)1 << GM_BITS;
	for (size_t i = k[0] & (m - 1), tries = 0; tries < 8;
	     i = (i + 1) & (m - 1), tries++) {
		if (!g->memo[i][0])
			return 0;
		if (g->memo[i][0] == k[0] && g->memo[i][1] == k[1])
			return 1;
	}
	return 0;
}

static void memo_put(struct gsearch *g, const uint64_t k[2])
{
	size_t m = (size_t)1 << GM_BITS;
	size_t home = k[0] & (m - 1), i = home;
	for (size_t tries = 0; g->memo[i][0]; tries++) {
		if (tries == 7) { /* full near here: the home slot goes */
			i = home;
			break;
		}
		i = (i + 1) & (m - 1);
	}
	g->memo[i][0] = k[0];
	g->memo[i][1] = k[1];
}

/* Sorting without a global (compare's workers search side by side). */
struct skey {
	int64_t k0, k1, k2, k3;
	uint32_t i;
};

static int skey_cmp(const void *x, const void *y)
{
	const struct skey *a = x, *b = y;
	if (a->k0 != b->k0)
		return a->k0 < b->k0 ? -1 : 1;
	if (a->k1 != b->k1)
		return a->k1 < b->k1 ? -1 : 1;
	if (a->k2 != b->k2)
		return a->k2 < b->k2 ? -1 : 1;
	if (a->k3 != b->k3)
		return a->k3 < b->k3 ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int block(struct gsearch *g, uint32_t *s, size_t n, int64_t a,
		 int64_t b, uint64_t h, uint64_t base);

/* The search of one flow: the arcs (buffers) of a block that no instant
 * cuts, its instants (distinct ends, sorted) and per arc its decision. */
struct flow {
	struct gsearch *g;
	const uint32_t *s;
	size_t n, nt;
	int64_t a, b;
	uint64_t h, base;
	int64_t *t;          /* instants */
	uint32_t *t0, *t1;   /* per arc: its instants' indices */
	size_t *in0, *out0;  /* arcs ending / starting at instant k:
			      * inl[in0[k] .. in0[k + 1]) */
	uint32_t *inl, *outl;
	int8_t *st;          /* per arc: -1 undecided, 0 out, 1 in */
	int64_t *imb;        /* per instant: bytes in that end - start */
	uint32_t *ul;        /* the interior instants whose imb is not 0 */
	int32_t *upos;       /* per instant: its place in ul, or -1 */
	size_t nu;
	uint32_t *und;       /* per instant: undecided arcs */
	int ends;            /* the first and last instants are in ul too
			      * (flow_seeded() with a height) */
	/* Each level of flow_dfs() takes the undecided arcs of one instant,
	 * which deeper levels never see again: per arc (arcs, sg, pick) the
	 * levels take at most n entries, per arc and level (posr, negr) at
	 * most 2n; top and ptop are what the levels above took. */
	struct skey *ks;     /* scratch: sorting one instant's arcs */
	uint32_t *arcs;
	int32_t *sg;         /* 1: ends at the instant, -1: starts there */
	uint8_t *pick;
	int64_t *posr, *negr; /* what arcs[k..] can add, and take away */
	size_t top, ptop;
	/* propagation: per instant the bytes of its undecided arcs that end
	 * (uend) and start (ustart) there; the arcs propagation decided
	 * (trail, ntrail) and the instants to look at (q, inq) */
	int64_t *uend, *ustart;
	uint32_t *trail, *q;
	uint8_t *inq;
	size_t ntrail, nq;
};

/* Keeps ul (the unbalanced instants) right after imb[k] changed. */
static void unbalanced(struct flow *f, uint32_t k)
{
	if ((k == 0 || k + 1 >= f->nt) && !f->ends)
		return;
	if (f->imb[k] && f->upos[k] < 0) {
		f->upos[k] = (int32_t)f->nu;
		f->ul[f->nu++] = k;
	} else if (!f->imb[k] && f->upos[k] >= 0) {
		uint32_t last = f->ul[--f->nu];
		f->ul[f->upos[k]] = last;
		f->upos[last] = f->upos[k];
		f->upos[k] = -1;
	}
}

static void decide(struct flow *f, uint32_t j, int8_t v)
{
	int64_t sz = (int64_t)f->g->p->items[f->s[j]].size;
	f->st[j] = v;
	f->und[f->t0[j]]--;
	f->und[f->t1[j]]--;
	f->uend[f->t1[j]] -= sz;
	f->ustart[f->t0[j]] -= sz;
	if (v) {
		f->imb[f->t0[j]] -= sz;
		f->imb[f->t1[j]] += sz;
		unbalanced(f, f->t0[j]);
		unbalanced(f, f->t1[j]);
	}
}

static void undecide(struct flow *f, uint32_t j)
{
	int64_t sz = (int64_t)f->g->p->items[f->s[j]].size;
	if (f->st[j] == 1) {
		f->imb[f->t0[j]] += sz;
		f->imb[f->t1[j]] -= sz;
		unbalanced(f, f->t0[j]);
		unbalanced(f, f->t1[j]);
	}
	f->st[j] = -1;
	f->und[f->t0[j]]++;
	f->und[f->t1[j]]++;
	f->uend[f->t1[j]] += sz;
	f->ustart[f->t0[j]] += sz;
}

/* Queues instant k for propagate() (interior ones, or all with ends). */
static void prop_push(struct flow *f, uint32_t k)
{
	if (f->inq[k] || ((k == 0 || k + 1 >= f->nt) && !f->ends))
		return;
	f->inq[k] = 1;
	f->q[f->nq++] = k;
}

/* A choice: arc j decided v, both its instants queued for propagate(). */
static void choose(struct flow *f, uint32_t j, int8_t v)
{
	decide(f, j, v);
	prop_push(f, f->t0[j]);
	prop_push(f, f->t1[j]);
}

/*
 * Decides what the queued instants force, to a fixpoint: an instant's
 * undecided arcs must add -imb (enders add their bytes, starters take
 * theirs), so an arc without which the rest cannot reach it is in, and
 * one with which they cannot is out.  Decided arcs go on the trail (undo
 * with prop_undo()).  0 when an instant cannot balance.
 */
static int propagate(struct flow *f)
{
	while (f->nq) {
		uint32_t k = f->q[--f->nq];
		f->inq[k] = 0;
		f->g->steps++; /* an instant looked at: about a step's work */
		int64_t need = -f->imb[k], pos = f->uend[k], neg = f->ustart[k];
		if (need > pos || need < -neg) {
			while (f->nq)
				f->inq[f->q[--f->nq]] = 0;
			return 0;
		}
		if (!pos && !neg)
			continue;
		size_t nt0 = f->ntrail;
		for (int side = 0; side < 2; side++) {
			const size_t *at = side ? f->out0 : f->in0;
			const uint32_t *l = side ? f->outl : f->inl;
			for (size_t i = at[k]; i < at[k + 1]; i++) {
				uint32_t j = l[i];
				if (f->st[j] != -1)
					continue;
				int64_t w = (int64_t)f->g->p->items[f->s[j]].size;
				int8_t v;
				/* an ender adds w, a starter takes it */
				if (need > pos - w)
					v = (int8_t)!side;
				else if (need < w - neg)
					v = (int8_t)side;
				else
					continue;
				decide(f, j, v);
				f->trail[f->ntrail++] = j;
				need = -f->imb[k];
				pos = f->uend[k];
				neg = f->ustart[k];
				prop_push(f, side ? f->t1[j] : f->t0[j]);
			}
		}
		if (f->ntrail > nt0)
			prop_push(f, k);
	}
	return 1;
}

static void prop_undo(struct flow *f, size_t mark)
{
	while (f->ntrail > mark)
		undecide(f, f->trail[--f->ntrail]);
}

static int flow_dfs(struct flow *f);

/* Both blocks of a balanced set: 1 placed, 0 not. */
static int flow_split(struct flow *f)
{
	struct gsearch *g = f->g;
	uint64_t c = 0;
	size_t n1 = 0;
	for (size_t j = 0; j < f->n; j++)
		if (f->st[j] == 1) {
			n1++;
			if (f->t0[j] == 0)
				c += g->p->items[f->s[j]].size;
		}
	if (!c || c >= f->h || n1 == f->n)
		return 0;
	uint32_t *s = malloc(f->n * sizeof(*s));
	if (!s) {
		g->oom = g->stop = 1;
		return 0;
	}
	size_t k1 = 0, k2 = n1;
	for (size_t j = 0; j < f->n; j++) {
		if (f->st[j] == 1)
			s[k1++] = f->s[j];
		else
			s[k2++] = f->s[j];
	}
	int ok;
	if (g->relax) {
		/* the first split found is kept: its blocks, each placed
		 * (above its height where the heuristics placed some), one
		 * on the other, with the search's own steps again */
		uint64_t capped = g->lim;
		g->lim = g->max_steps;
		ok = block(g, s, n1, f->a, f->b, c, f->base);
		uint64_t o1 = g->over;
		ok = ok && block(g, s + n1, f->n - n1, f->a, f->b, f->h - c,
				 f->base + c + o1);
		g->over += o1;
		if (!ok)
			g->lim = capped; /* the walk goes on within its cap */
	} else {
		ok = block(g, s, n1, f->a, f->b, c, f->base) &&
		     block(g, s + n1, f->n - n1, f->a, f->b, f->h - c,
			   f->base + c);
	}
	free(s);
	return ok;
}

/* The subsets of the undecided arcs arcs[k..m) of instant at that bring
 * its imbalance to 0 (need: what they must add). */
static int flow_sub(struct flow *f, const uint32_t *arcs, const int32_t *sg,
		    const int64_t *posr, const int64_t *negr, size_t k,
		    size_t m, int64_t need, uint8_t *pick);

static int flow_sub_r(struct flow *f, const uint32_t *arcs, const int32_t *sg,
		      const int64_t *posr, const int64_t *negr, size_t k,
		      size_t m, int64_t need, uint8_t *pick)
{
	if (tick(f->g))
		return 0;
	if (k == m) {
		if (need)
			return 0;
		size_t mark = f->ntrail;
		for (size_t i = 0; i < m; i++)
			choose(f, arcs[i], (int8_t)pick[i]);
		int ok = propagate(f) && flow_dfs(f);
		prop_undo(f, mark);
		for (size_t i = m; i-- > 0;)
			undecide(f, arcs[i]);
		return ok;
	}
	if (need > posr[k] || -need > negr[k])
		return 0;
	const struct solver_problem *p = f->g->p;
	const struct solver_item *x = &p->items[f->s[arcs[k]]];
	int64_t sz = (int64_t)x->size * sg[k];
	/* identical arcs: taken in index order, so skipping one skips the
	 * rest */
	size_t k2 = k + 1;
	while (k2 < m && sg[k2] == sg[k]) {
		const struct solver_item *y = &p->items[f->s[arcs[k2]]];
		if (y->size != x->size || y->lower != x->lower ||
		    y->upper != x->upper)
			break;
		k2++;
	}
	int order = f->g->order;
	if (f->g->restart && draw(f->g) % 4 == 0)
		order = !order;
	for (int pass = 0; pass < 2; pass++) {
		int take = order ? !pass : pass;
		if (take) {
			pick[k] = 1;
			if (flow_sub(f, arcs, sg, posr, negr, k + 1, m,
				     need - sz, pick))
				return 1;
		} else {
			for (size_t i = k; i < k2; i++)
				pick[i] = 0;
			if (flow_sub(f, arcs, sg, posr, negr, k2, m, need,
				     pick))
				return 1;
		}
	}
	return 0;
}

static int flow_sub(struct flow *f, const uint32_t *arcs, const int32_t *sg,
		    const int64_t *posr, const int64_t *negr, size_t k,
		    size_t m, int64_t need, uint8_t *pick)
{
	if (deeper(f->g))
		return up(f->g, 0);
	return up(f->g, flow_sub_r(f, arcs, sg, posr, negr, k, m, need, pick));
}

static int flow_dfs_r(struct flow *f)
{
	if (tick(f->g))
		return 0;
	/* the unbalanced instant with the fewest undecided arcs, the
	 * earliest of equals (or, with g->earliest, the earliest) */
	size_t best = SIZE_MAX;
	if (f->g->earliest) {
		for (size_t i = 0; i < f->nu; i++)
			if (f->ul[i] < best)
				best = f->ul[i];
	} else {
		for (size_t i = 0; i < f->nu; i++) {
			size_t k = f->ul[i];
			if (best == SIZE_MAX || f->und[k] < f->und[best] ||
			    (f->und[k] == f->und[best] && k < best))
				best = k;
		}
	}
	if (best == SIZE_MAX)
		return flow_split(f);
	/* by size, largest first; of one size the buffers that start here
	 * (outs) first, then by lifetime: identical ones side by side */
	size_t m = 0;
	for (int side = 0; side < 2; side++) {
		const size_t *at = side ? f->out0 : f->in0;
		const uint32_t *l = side ? f->outl : f->inl;
		for (size_t i = at[best]; i < at[best + 1]; i++) {
			if (f->st[l[i]] != -1)
				continue;
			const struct solver_item *x = &f->g->p->items[f->s[l[i]]];
			f->ks[m++] = (struct skey){ -(int64_t)x->size,
						    side ? -1 : 1, x->lower,
						    x->upper, l[i] };
		}
	}
	if (!m)
		return 0;
	qsort(f->ks, m, sizeof(*f->ks), skey_cmp);
	uint32_t *arcs = f->arcs + f->top;
	int32_t *sg = f->sg + f->top;
	int64_t *posr = f->posr + f->ptop, *negr = f->negr + f->ptop;
	for (size_t i = 0; i < m; i++) {
		arcs[i] = f->ks[i].i;
		sg[i] = (int32_t)f->ks[i].k1;
	}
	posr[m] = negr[m] = 0;
	for (size_t k = m; k-- > 0;) {
		int64_t sz = (int64_t)f->g->p->items[f->s[arcs[k]]].size;
		posr[k] = posr[k + 1] + (sg[k] > 0 ? sz : 0);
		negr[k] = negr[k + 1] + (sg[k] < 0 ? sz : 0);
	}
	f->top += m;
	f->ptop += m + 1;
	int ok = flow_sub(f, arcs, sg, posr, negr, 0, m, -f->imb[best],
			  f->pick + f->top - m);
	f->top -= m;
	f->ptop -= m + 1;
	return ok;
}

static int flow_dfs(struct flow *f)
{
	if (deeper(f->g))
		return up(f->g, 0);
	return up(f->g, flow_dfs_r(f));
}

/*
 * The sweep (the first and last passes): every balanced set of a flow
 * block that holds x0 (the first), or is at most half the block's height
 * (the last), and leaves an instant inside (a, b) uncrossed, in time
 * order.
 *
 * Why such sets.  Take a guillotine packing of a block no instant cuts
 * and merge its cuts across bytes into strips (a strip is not cut across
 * bytes again): the strip of x0 is a balanced set, and since it is not
 * one buffer (those over all of [a, b) went to the bottom) it is cut in
 * time, at an instant none of its buffers crosses.  So the set split off
 * may be asked to have one, and few sets have.  Any strip will do as
 * well as x0's, and the thinnest is at most half the block's height: so
 * the last pass asks for that instead of x0 (where x0's strip is most
 * of the block, another one is thin).
 *
 * How.  In time order a set is made at each instant by what it takes
 * there: of the buffers that start there, some whose bytes are those its
 * buffers end there.  So after an instant what matters is the bytes of
 * its buffers still live by the instant they end, whether an uncrossed
 * instant was met, and whether the set is still empty: equal states are
 * one.  The buffers that start at a (but x0, in the first pass) are
 * decided where they end (before, they weigh nothing on any balance), so
 * the starting column is never enumerated.  A pass forward makes the layers
 * of states, one back marks those that complete a set (at b, an uncrossed
 * instant met) with the fewest buffers they still take, and a walk from
 * the start yields the sets, those of fewest buffers first; each is split
 * as the growth's are.  x0's sets are swept in rounds of height (at most
 * a 64th of the block's, an eighth, then all), so a thin strip of x0 is
 * found before the layers of every set are made.  The block is swept
 * from the side with fewer buffers at its edge.  The states and entries
 * of all live sweeps (a walk keeps its tables while the blocks it splits
 * off sweep in turn) are bounded together (SW_MAX_STATES, SW_MAX_ENT:
 * 96 MiB of states and entries, at most twice that with the arrays'
 * spare room): past them a sweep gives its block up (no proof), as it
 * does where more than SW_MAX_EDGE buffers of the column end at one
 * instant (their subsets are enumerated there).
 */
#define SW_MAX_STATES (1u << 20)
#define SW_MAX_ENT (1u << 23)
#define SW_MAX_EDGE 16 /* column buffers ending at one instant */
#define SW_SIZE_BITS 40
#define SW_SIZE_MASK ((1ull << SW_SIZE_BITS) - 1)

struct swst {
	uint64_t hash;
	uint32_t off, len; /* entries ent[off .. off + len), sorted */
	uint32_t layer;
	int32_t val;       /* buffers still to take to complete; -1: none */
	uint8_t flag;      /* 1: an uncrossed instant met; 2: not empty */
};

struct swopt {
	uint32_t state;
	int32_t cost;
	uint32_t pk0, npk; /* its picks, in the list's pks */
};

/* What a step does with each successor, and what it needs for that. */
enum { SW_ADD, SW_VAL, SW_LIST };

struct swctx {
	int mode;
	uint32_t layer;    /* of the successors */
	int flag;
	int32_t best;      /* SW_VAL */
	struct swopt *opt; /* SW_LIST */
	size_t nopt, copt;
	uint32_t *pks;
	size_t npks, cpks;
};

struct sweep {
	struct flow *f;
	uint32_t nt;
	uint32_t *u0, *u1;     /* per arc: first and last instant, as swept */
	uint32_t *sl, *sl0;    /* arcs starting at k: sl[sl0[k] .. sl0[k + 1]) */
	uint64_t *suf;         /* per sl entry: its size and those after it */
	uint32_t *bl, *bl0;    /* the column's arcs (x0 not) ending at k */
	uint32_t lastb;        /* the column's last end (0: none) */
	uint64_t *ent;
	size_t nent, cent;
	struct swst *st;
	size_t nst, cst;
	uint32_t *tab;         /* the states by hash: index + 1 */
	size_t tmask;
	uint64_t *keep, *out;  /* one step's scratch */
	size_t nkeep;
	uint32_t *pk;
	size_t npk;
	uint32_t *path;        /* the walk's set */
	size_t npath;
	uint64_t emits;        /* successors made (sw_clock()) */
	uint64_t cmax;         /* the sets' live bytes: at most this */
	int pruned;            /* a state was past cmax */
	int anchor;            /* x0 in every set */
};

static uint64_t sw_size(const struct sweep *w, uint32_t j)
{
	return w->f->g->p->items[w->f->s[j]].size;
}

static uint64_t sw_hash(const uint64_t *e, size_t n, uint32_t layer,
			int flag)
{
	uint64_t h = mix64((uint64_t)layer << 1 | (uint64_t)flag);
	for (size_t i = 0; i < n; i++)
		h = mix64(h ^ e[i]);
	return h;
}

/* The state's index, or -1 - (the empty slot it would take). */
static int64_t sw_find(const struct sweep *w, const uint64_t *e, size_t n,
		       uint32_t layer, int flag, uint64_t h)
{
	for (size_t i = h & w->tmask;; i = (i + 1) & w->tmask) {
		uint32_t x = w->tab[i];
		if (!x)
			return -1 - (int64_t)i;
		const struct swst *s = &w->st[x - 1];
		if (s->hash == h && s->layer == layer && s->flag == flag &&
		    s->len == n &&
		    (!n || !memcmp(w->ent + s->off, e, n * sizeof(*e))))
			return x - 1;
	}
}

static int sw_grow_tab(struct sweep *w)
{
	size_t m = (w->tmask + 1) * 2;
	uint32_t *t = calloc(m, sizeof(*t));
	if (!t)
		return -1;
	for (size_t i = 0; i < w->nst; i++) {
		size_t k = w->st[i].hash & (m - 1);
		while (t[k])
			k = (k + 1) & (m - 1);
		t[k] = (uint32_t)i + 1;
	}
	free(w->tab);
	w->tab = t;
	w->tmask = m - 1;
	return 0;
}

/* Gives the sweep up (a bound passed, or out of memory): -1. */
static int sw_giveup(struct sweep *w, int oom)
{
	if (oom)
		w->f->g->oom = w->f->g->stop = 1;
	return -1;
}

/* Adds the state (e, n, flag) to layer, once.  0, or -1: give up. */
static int sw_add(struct sweep *w, const uint64_t *e, size_t n,
		  uint32_t layer, int flag)
{
	uint64_t h = sw_hash(e, n, layer, flag);
	int64_t at = sw_find(w, e, n, layer, flag, h);
	if (at >= 0)
		return 0;
	struct gsearch *g = w->f->g;
	if (g->sw_states >= SW_MAX_STATES || g->sw_ents + n > SW_MAX_ENT)
		return sw_giveup(w, 0);
	if (w->nst == w->cst) {
		size_t c = w->cst ? 2 * w->cst : 1024;
		struct swst *s = realloc(w->st, c * sizeof(*s));
		if (!s)
			return sw_giveup(w, 1);
		w->st = s;
		w->cst = c;
	}
	if (w->nent + n > w->cent) {
		size_t c = w->cent ? 2 * w->cent : 4096;
		while (c < w->nent + n)
			c *= 2;
		uint64_t *x = realloc(w->ent, c * sizeof(*x));
		if (!x)
			return sw_giveup(w, 1);
		w->ent = x;
		w->cent = c;
	}
	if (n) /* the empty set's first state has no entry */
		memcpy(w->ent + w->nent, e, n * sizeof(*e));
	w->st[w->nst] = (struct swst){ .hash = h, .off = (uint32_t)w->nent,
				       .len = (uint32_t)n, .layer = layer,
				       .val = -1, .flag = (uint8_t)flag };
	w->tab[-1 - at] = (uint32_t)w->nst + 1;
	w->nent += n;
	w->nst++;
	g->sw_states++;
	g->sw_ents += n;
	if (2 * w->nst > w->tmask && sw_grow_tab(w))
		return sw_giveup(w, 1);
	return tick(w->f->g) ? -1 : 0;
}

static int u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

static int sw_push(struct swctx *c, const struct sweep *w, uint32_t at,
		   int32_t cost)
{
	if (c->nopt == c->copt) {
		size_t m = c->copt ? 2 * c->copt : 16;
		struct swopt *o = realloc(c->opt, m * sizeof(*o));
		if (!o)
			return -1;
		c->opt = o;
		c->copt = m;
	}
	if (c->npks + w->npk > c->cpks) {
		size_t m = c->cpks ? 2 * c->cpks : 64;
		while (m < c->npks + w->npk)
			m *= 2;
		uint32_t *p = realloc(c->pks, m * sizeof(*p));
		if (!p)
			return -1;
		c->pks = p;
		c->cpks = m;
	}
	if (w->npk)
		memcpy(c->pks + c->npks, w->pk, w->npk * sizeof(*w->pk));
	c->opt[c->nopt++] = (struct swopt){ at, cost, (uint32_t)c->npks,
					    (uint32_t)w->npk };
	c->npks += w->npk;
	return 0;
}

/* Reads the clock every SW_CLOCK successors: a successor costs many
 * steps' time (a sort, a hash, a look-up), so the steps' own reading
 * (every 4,096) lets tens of milliseconds pass under a sanitizer. */
#define SW_CLOCK 256

static int sw_clock(struct sweep *w)
{
	struct gsearch *g = w->f->g;
	if (++w->emits % SW_CLOCK || !g->b)
		return 0;
	if (solver_budget_spend(g->b, 0, 1)) {
		g->stop = g->clock = 1;
		return -1;
	}
	return 0;
}

/* The successor: what stays live and what the picks start. */
static int sw_emit(struct sweep *w, struct swctx *c, uint32_t k)
{
	if (sw_clock(w))
		return -1;
	size_t n = w->nkeep;
	memcpy(w->out, w->keep, n * sizeof(*w->out));
	for (size_t i = 0; i < w->npk; i++)
		if (w->u0[w->pk[i]] == k) /* a starter (the column's end here) */
			w->out[n++] = (uint64_t)w->u1[w->pk[i]]
					      << SW_SIZE_BITS |
				      sw_size(w, w->pk[i]);
	qsort(w->out, n, sizeof(*w->out), u64_cmp);
	/* only the bytes ending at each instant weigh on a balance: the
	 * entries of one end are one, their sizes summed (at most h) */
	size_t m = 0;
	uint64_t live = 0;
	for (size_t i = 0; i < n; i++) {
		live += w->out[i] & SW_SIZE_MASK;
		if (m && w->out[m - 1] >> SW_SIZE_BITS ==
				 w->out[i] >> SW_SIZE_BITS)
			w->out[m - 1] += w->out[i] & SW_SIZE_MASK;
		else
			w->out[m++] = w->out[i];
	}
	n = m;
	if (live > w->cmax) {
		w->pruned = 1;
		return 0;
	}
	if (c->mode == SW_ADD)
		return sw_add(w, w->out, n, c->layer, c->flag);
	uint64_t h = sw_hash(w->out, n, c->layer, c->flag);
	int64_t at = sw_find(w, w->out, n, c->layer, c->flag, h);
	if (at < 0 || w->st[at].val < 0)
		return 0;
	int32_t cost = w->st[at].val + (int32_t)w->npk;
	if (c->mode == SW_VAL) {
		if (c->best < 0 || cost < c->best)
			c->best = cost;
		return 0;
	}
	return sw_push(c, w, (uint32_t)at, cost) ? sw_giveup(w, 1) : 0;
}

static int sw_sub(struct sweep *w, struct swctx *c, uint32_t k, size_t i,
		  uint64_t need);

/* The subsets of the arcs starting at k, from sl[i] on, that add need
 * (identical arcs taken in order). */
static int sw_sub_r(struct sweep *w, struct swctx *c, uint32_t k, size_t i,
		    uint64_t need)
{
	if (tick(w->f->g))
		return -1;
	if (!need)
		return sw_emit(w, c, k);
	size_t e = w->sl0[k + 1];
	if (i == e || w->suf[i] < need)
		return 0;
	uint32_t j = w->sl[i];
	uint64_t sz = sw_size(w, j);
	if (sz <= need) {
		w->pk[w->npk++] = j;
		int r = sw_sub(w, c, k, i + 1, need - sz);
		w->npk--;
		if (r)
			return r;
	}
	size_t i2 = i + 1;
	while (i2 < e && sw_size(w, w->sl[i2]) == sz &&
	       w->u1[w->sl[i2]] == w->u1[j])
		i2++;
	return sw_sub(w, c, k, i2, need);
}

/* Its frames are counted as the search's others are (deeper()). */
static int sw_sub(struct sweep *w, struct swctx *c, uint32_t k, size_t i,
		  uint64_t need)
{
	if (deeper(w->f->g))
		return up(w->f->g, -1);
	return up(w->f->g, sw_sub_r(w, c, k, i, need));
}

/* Every successor of state si over instant k, each to sw_emit(). */
static int sw_step(struct sweep *w, struct swctx *c, uint32_t si, uint32_t k)
{
	const struct swst *s = &w->st[si];
	uint64_t e0 = 0;
	w->nkeep = 0;
	for (uint32_t i = 0; i < s->len; i++) {
		uint64_t x = w->ent[s->off + i];
		if ((uint32_t)(x >> SW_SIZE_BITS) == k)
			e0 += x & SW_SIZE_MASK;
		else
			w->keep[w->nkeep++] = x;
	}
	int flag = s->flag & 1, ne = s->flag >> 1;
	/* the column's arcs ending here (none once an uncrossed instant
	 * was met): every subset, of equal sizes the first ones (sorted by
	 * size, so a group is a run; d[i] counts what run i takes) */
	uint32_t b0 = w->bl0[k], nb = flag ? 0 : w->bl0[k + 1] - b0;
	uint32_t g0[SW_MAX_EDGE], gn[SW_MAX_EDGE], d[SW_MAX_EDGE], ng = 0;
	for (uint32_t i = 0; i < nb; i++) {
		if (!ng || sw_size(w, w->bl[b0 + i]) !=
				   sw_size(w, w->bl[b0 + g0[ng - 1]])) {
			g0[ng] = i;
			gn[ng] = 0;
			d[ng++] = 0;
		}
		gn[ng - 1]++;
	}
	for (;;) {
		uint64_t add = 0;
		w->npk = 0;
		for (uint32_t q = 0; q < ng; q++)
			for (uint32_t i = 0; i < d[q]; i++) {
				uint32_t j = w->bl[b0 + g0[q] + i];
				add += sw_size(w, j);
				w->pk[w->npk++] = j;
			}
		size_t nd = w->npk;
		int f2lo = flag, f2hi = flag;
		if (!w->nkeep && !flag) {
			/* uncrossed here unless a column arc ending later
			 * is taken: either may be so */
			f2hi = 1;
			if (k >= w->lastb)
				f2lo = 1;
		}
		int ne2 = ne || nd;
		for (int f2 = f2lo; f2 <= f2hi; f2++) {
			if (f2 && !ne2)
				continue; /* it would stay empty */
			c->flag = f2 | ne2 << 1;
			w->npk = nd;
			int r = 0;
			if (!e0 && !add) {
				if (w->nkeep || !f2)
					r = sw_emit(w, c, k);
			} else {
				r = sw_sub(w, c, k, w->sl0[k], e0 + add);
			}
			if (r)
				return r;
		}
		uint32_t q = 0;
		while (q < ng && d[q] == gn[q])
			d[q++] = 0;
		if (q == ng)
			return 0;
		d[q]++;
	}
}

static void swctx_free(struct swctx *c)
{
	free(c->opt);
	free(c->pks);
}

static int swopt_cmp(const void *x, const void *y)
{
	const struct swopt *a = x, *b = y;
	if (a->cost != b->cost)
		return a->cost < b->cost ? -1 : 1;
	return a->pk0 < b->pk0 ? -1 : a->pk0 > b->pk0;
}

static int sw_walk(struct sweep *w, uint32_t si, uint32_t k);

/* The sets from state si on (its layer: instant k - 1 done): 1 one was
 * placed, 0 none, -1 give up. */
static int sw_walk_r(struct sweep *w, uint32_t si, uint32_t k)
{
	struct flow *f = w->f;
	if (tick(f->g))
		return -1;
	if (k + 1 >= w->nt) {
		for (size_t j = 0; j < f->n; j++)
			f->st[j] = 0;
		for (size_t i = 0; i < w->npath; i++)
			f->st[w->path[i]] = 1;
		int r = flow_split(f);
		/* undecided again: the relaxed search's next way (the growth)
		 * works on the same flow, and its counts never saw these */
		for (size_t j = 0; j < f->n; j++)
			f->st[j] = -1;
		return r;
	}
	struct swctx c = { .mode = SW_LIST, .layer = k };
	int r = sw_step(w, &c, si, k);
	if (!r) {
		qsort(c.opt, c.nopt, sizeof(*c.opt), swopt_cmp);
		for (size_t o = 0; o < c.nopt && !r; o++) {
			size_t np = w->npath;
			if (c.opt[o].npk)
				memcpy(w->path + np, c.pks + c.opt[o].pk0,
				       c.opt[o].npk * sizeof(*w->path));
			w->npath += c.opt[o].npk;
			r = sw_walk(w, c.opt[o].state, k + 1);
			w->npath = np;
		}
	}
	swctx_free(&c);
	return r;
}

static int sw_walk(struct sweep *w, uint32_t si, uint32_t k)
{
	if (deeper(w->f->g))
		return up(w->f->g, -1);
	return up(w->f->g, sw_walk_r(w, si, k));
}

/* One round of the sweep: the layers of the sets whose live bytes are
 * at most w->cmax, what completes them, then the walk (*ok: a set was
 * placed).  0, or -1: given up. */
static int sw_round(struct sweep *w, struct swctx *c, uint32_t x0, int *ok)
{
	/* forward: layer L is the states after instant L */
	uint32_t nt = w->nt;
	uint64_t e0 = (uint64_t)w->u1[x0] << SW_SIZE_BITS | sw_size(w, x0);
	if (sw_add(w, &e0, (size_t)w->anchor, 0, w->anchor ? 2 : 0))
		return -1;
	uint32_t *lay0 = calloc(nt + 1, sizeof(*lay0));
	if (!lay0)
		return sw_giveup(w, 1);
	lay0[1] = (uint32_t)w->nst;
	int r = 0;
	for (uint32_t k = 1; k + 1 < nt && !r; k++) {
		c->mode = SW_ADD;
		c->layer = k;
		for (uint32_t si = lay0[k - 1]; si < lay0[k] && !r; si++)
			r = sw_step(w, c, si, k);
		lay0[k + 1] = (uint32_t)w->nst;
		if (lay0[k + 1] == lay0[k])
			r = 1; /* no set gets through */
	}
	/* back: what completes a set */
	for (uint32_t si = lay0[nt - 2]; si < lay0[nt - 1] && !r; si++) {
		const struct swst *s = &w->st[si];
		int done = s->flag & 1;
		for (uint32_t i = 0; i < s->len && done; i++)
			done = (uint32_t)(w->ent[s->off + i] >> SW_SIZE_BITS) ==
			       nt - 1;
		w->st[si].val = done ? 0 : -1;
	}
	for (uint32_t k = nt - 2; k-- > 0 && !r;) {
		/* layer k's states step over instant k + 1 */
		c->mode = SW_VAL;
		c->layer = k + 1;
		for (uint32_t si = lay0[k]; si < lay0[k + 1] && !r; si++) {
			c->best = -1;
			r = sw_step(w, c, si, k + 1);
			w->st[si].val = c->best;
		}
	}
	free(lay0);
	if (r)
		return r < 0 ? -1 : 0;
	if (w->st[0].val < 0)
		return 0;
	w->path[0] = x0;
	w->npath = (size_t)w->anchor;
	r = sw_walk(w, 0, 1);
	*ok = r == 1;
	return r < 0 ? -1 : 0;
}

/* The sweep of flow block f: 1 placed, 0 not (nothing proven). */
static int flow_sweep(struct flow *f)
{
	struct gsearch *g = f->g;
	size_t n = f->n;
	uint32_t nt = (uint32_t)f->nt;
	struct sweep w = { .f = f, .nt = nt };
	int ok = 0;
	if (nt < 3 || nt >= (1u << (64 - SW_SIZE_BITS)) ||
	    f->h >= (1ull << SW_SIZE_BITS))
		return 0;
	w.u0 = malloc(n * sizeof(*w.u0));
	w.u1 = malloc(n * sizeof(*w.u1));
	w.sl = malloc(n * sizeof(*w.sl));
	w.suf = malloc(n * sizeof(*w.suf));
	w.sl0 = calloc(nt + 1, sizeof(*w.sl0));
	w.bl = malloc(n * sizeof(*w.bl));
	w.bl0 = calloc(nt + 1, sizeof(*w.bl0));
	w.keep = malloc((2 * n + 1) * sizeof(*w.keep));
	w.out = malloc((2 * n + 1) * sizeof(*w.out));
	w.pk = malloc((n + 1) * sizeof(*w.pk));
	w.path = malloc((n + 1) * sizeof(*w.path));
	w.tab = calloc(1024, sizeof(*w.tab));
	w.tmask = 1023;
	struct skey *ks = malloc((n + 1) * sizeof(*ks));
	struct swctx c = { 0 };
	if (!w.u0 || !w.u1 || !w.sl || !w.suf || !w.sl0 || !w.bl ||
	    !w.bl0 || !w.keep || !w.out || !w.pk || !w.path || !w.tab || !ks) {
		g->oom = g->stop = 1;
		goto out;
	}
	/* the side with fewer buffers at its edge first */
	size_t na = 0, nb = 0;
	for (size_t j = 0; j < n; j++) {
		na += f->t0[j] == 0;
		nb += f->t1[j] == nt - 1;
	}
	int mirror = nb < na;
	for (size_t j = 0; j < n; j++) {
		w.u0[j] = mirror ? nt - 1 - f->t1[j] : f->t0[j];
		w.u1[j] = mirror ? nt - 1 - f->t0[j] : f->t1[j];
	}
	/* x0: of the column, the longest-lived, then the largest */
	size_t x0 = SIZE_MAX;
	for (size_t j = 0; j < n; j++)
		if (w.u0[j] == 0 &&
		    (x0 == SIZE_MAX || w.u1[j] > w.u1[x0] ||
		     (w.u1[j] == w.u1[x0] &&
		      sw_size(&w, (uint32_t)j) > sw_size(&w, (uint32_t)x0))))
			x0 = j;
	if (x0 == SIZE_MAX)
		goto out;
	/* the starters of each instant by size down (identical ones side
	 * by side), the column's arcs by their end, then size down */
	size_t m = 0, mb = 0;
	for (size_t j = 0; j < n; j++) {
		uint64_t sz = sw_size(&w, (uint32_t)j);
		if (w.u0[j])
			ks[m++] = (struct skey){ w.u0[j], -(int64_t)sz, w.u1[j],
						 0, (uint32_t)j };
	}
	qsort(ks, m, sizeof(*ks), skey_cmp);
	for (size_t i = 0; i < m; i++) {
		w.sl[i] = ks[i].i;
		w.sl0[w.u0[ks[i].i] + 1]++;
	}
	for (size_t i = m; i-- > 0;)
		w.suf[i] = sw_size(&w, w.sl[i]) +
			   (i + 1 < m && w.u0[w.sl[i + 1]] == w.u0[w.sl[i]]
				    ? w.suf[i + 1]
				    : 0);
	w.anchor = g->anchor;
	w.cmax = w.anchor ? UINT64_MAX : f->h / 2;
	for (size_t j = 0; j < n; j++)
		if (!w.u0[j] && (j != x0 || !w.anchor))
			ks[mb++] = (struct skey){ w.u1[j],
						  -(int64_t)sw_size(&w, (uint32_t)j),
						  0, 0, (uint32_t)j };
	qsort(ks, mb, sizeof(*ks), skey_cmp);
	w.lastb = 0;
	for (size_t i = 0; i < mb; i++) {
		w.bl[i] = ks[i].i;
		w.bl0[w.u1[ks[i].i] + 1]++;
		if (w.u1[ks[i].i] > w.lastb)
			w.lastb = w.u1[ks[i].i];
	}
	for (uint32_t k = 0; k < nt; k++) {
		w.sl0[k + 1] += w.sl0[k];
		w.bl0[k + 1] += w.bl0[k];
		if (w.bl0[k + 1] - w.bl0[k] > SW_MAX_EDGE)
			goto out;
	}
	/* x0's sets in rounds: those of at most a 64th of the block's
	 * height, then an eighth, then all; a thin strip of x0 is found
	 * before the layers of every set are made (the last pass, whose sets
	 * are thin already, sweeps once) */
	uint64_t cmax = w.cmax;
	for (int q = w.anchor ? 0 : 2; q < 3 && !ok; q++) {
		w.cmax = q == 2 ? cmax : f->h >> (q ? 3 : 6);
		w.pruned = 0;
		g->sw_states -= w.nst;
		g->sw_ents -= w.nent;
		w.nst = w.nent = 0;
		memset(w.tab, 0, (w.tmask + 1) * sizeof(*w.tab));
		int r = sw_round(&w, &c, (uint32_t)x0, &ok);
		if (r < 0 || !w.pruned)
			break; /* given up, or no set was left out */
	}
out:
	g->sw_states -= w.nst;
	g->sw_ents -= w.nent;
	free(w.u0);
	free(w.u1);
	free(w.sl);
	free(w.suf);
	free(w.sl0);
	free(w.bl);
	free(w.bl0);
	free(w.keep);
	free(w.out);
	free(w.pk);
	free(w.path);
	free(w.tab);
	free(w.ent);
	free(w.st);
	free(ks);
	swctx_free(&c);
	return ok;
}

/*
 * relax, seeded: a strip of a guillotine packing cut in time at instant
 * t holds every buffer that ends or starts at t and none that crosses it,
 * and where no other strip of the block has an event at t its height is
 * what ends there.  So each instant inside the block whose bytes ending
 * there are below the block's height seeds the growth: those buffers in,
 * the ones crossing it out, then flow_dfs() balances the rest (the most
 * bytes first: a block's first strips are its tall ones; in rounds of
 * SEED_STEPS_FIRST steps a seed, four times as many for those that ran
 * out, up to SEED_STEPS, since with propagation a right seed mostly
 * needs few).  Where the strips' cut instants are not shared
 * (most of them in a random packing) one seed is right and needs few
 * steps: large-1's first block, which no other way cuts, in 0.08 s.  The
 * set a wrong seed completes is balanced, so it is split as any other
 * (README, "Seeds at the cut instants").  With g->height the seed's
 * bytes are also the strip's height at the block's first and last
 * instants (seed_height()), and an instant whose starting bytes differ
 * from its ending ones is skipped: big-461's true seed, over 50 million
 * steps without, is settled at once (README, "Seeds with the strip's
 * height").  1 placed, 0 not.
 */
#define SEED_STEPS 200000u
#define SEED_STEPS_FIRST 12500u
/* Adds h to what must start at the block's first instant and end at its
 * last, before any arc is decided; -h takes it back once all are
 * undecided again (both instants then balanced, out of ul). */
static void seed_height(struct flow *f, int64_t h)
{
	f->ends = 1;
	f->imb[0] += h;
	f->imb[f->nt - 1] -= h;
	unbalanced(f, 0);
	unbalanced(f, (uint32_t)(f->nt - 1));
	f->ends = h > 0;
}

/*
 * One seed, instant t of height h: the buffers that end or start at t
 * in, those crossing it out, what that forces decided (propagate()),
 * then the growth balances the rest within cap steps (or what is left
 * before end).  dec: scratch of f->n entries.
 */
static int seed_try(struct flow *f, uint32_t t, int64_t h, uint64_t cap,
		    uint64_t end, uint32_t *dec)
{
	struct gsearch *g = f->g;
	size_t nd = 0, tm = f->ntrail;
	if (g->height) /* what starts at a and ends at b: h */
		seed_height(f, h);
	g->lim = end - g->steps > cap ? g->steps + cap : end;
	for (size_t j = 0; j < f->n; j++) {
		int8_t v;
		if (f->t0[j] == t || f->t1[j] == t)
			v = 1;
		else if (f->t0[j] < t && f->t1[j] > t)
			v = 0;
		else
			continue;
		choose(f, (uint32_t)j, v);
		dec[nd++] = (uint32_t)j;
	}
	if (g->height) {
		prop_push(f, 0);
		prop_push(f, (uint32_t)(f->nt - 1));
	}
	int ok = propagate(f) && flow_dfs(f);
	prop_undo(f, tm);
	while (nd)
		undecide(f, dec[--nd]);
	if (g->height)
		seed_height(f, -h);
	return ok;
}

static int flow_seeded(struct flow *f)
{
	struct gsearch *g = f->g;
	size_t nt = f->nt, n = f->n, nc = 0;
	uint64_t end = g->lim;
	/* e[t]: the bytes ending at instant t; e[nt + t]: starting there */
	int64_t *e = calloc(2 * nt, sizeof(*e));
	struct skey *c = malloc(nt * sizeof(*c));
	uint32_t *dec = malloc(n * sizeof(*dec));
	uint8_t *done = calloc(nt, 1);
	int ok = 0;
	if (!e || !c || !dec || !done) {
		g->oom = g->stop = 1;
		goto out;
	}
	for (size_t j = 0; j < n; j++) {
		e[f->t1[j]] += (int64_t)g->p->items[f->s[j]].size;
		e[nt + f->t0[j]] += (int64_t)g->p->items[f->s[j]].size;
	}
	/* with heights, an instant whose starting bytes differ from its
	 * ending ones is no seed: no strip's load changes at its cut */
	for (size_t t = 1; t + 1 < nt; t++)
		if (e[t] > 0 && (uint64_t)e[t] < f->h &&
		    (!g->height || e[nt + t] == e[t]))
			c[nc++] = (struct skey){ -e[t], (int64_t)t, 0, 0, 0 };
	qsort(c, nc, sizeof(*c), skey_cmp);
	if (g->restart) /* the seeds in an order of its own */
		for (size_t i = nc; i > 1; i--) {
			size_t k = (size_t)(draw(g) % i);
			struct skey tmp = c[i - 1];
			c[i - 1] = c[k];
			c[k] = tmp;
		}
	/* in rounds: every seed with SEED_STEPS_FIRST steps, then those
	 * that ran out with four times as many, up to SEED_STEPS */
	for (uint64_t cap = SEED_STEPS_FIRST; !ok && g->steps < end;
	     cap *= 4) {
		int more = 0;
		for (size_t ci = 0; ci < nc && !ok && g->steps < end; ci++) {
			uint32_t t = (uint32_t)c[ci].k1;
			if (done[t])
				continue;
			ok = seed_try(f, t, e[t], cap, end, dec);
			if (ok || g->oom)
				break;
			done[t] = 1;
			if (g->stop) { /* this seed's steps, or all of them */
				if (g->clock || g->steps >= end)
					break;
				g->stop = 0;
				done[t] = 0;
				more = 1;
			}
		}
		if (!more || cap >= SEED_STEPS || g->oom || g->stop)
			break;
	}
	g->lim = end;
out:
	free(e);
	free(c);
	free(dec);
	free(done);
	return ok;
}

/*
 * relax: the first split of flow block f that each way finds within
 * g->relax_cap steps a buffer, and at least RELAX_MIN_CAP (the sweep of
 * x0's sets, the growth, the sweep of the thin sets), its blocks placed
 * (flow_split()): 1, or 0 when none was found (f's block then goes to
 * the heuristics).  A way stopped by its own cap leaves the search going;
 * out of the search's steps or clock, the search is spent.  The least
 * cap (measured before fall_back() improved its blocks): large-8's
 * narrow block (213 buffers over 23 instants) is cut in about 4 million
 * steps, so with 1,000 steps a buffer alone it went to the heuristics
 * (1.084x); with 5 million at least, 1.057x, and large-2 and 10 at
 * 1.0007x and the bound, where 1,000 a buffer left them at 1.160x and
 * 1.238x (20 million steps; huge 1-10 the same or lower).
 */
#define RELAX_MIN_CAP 5000000u
static int relax_split(struct flow *f, uint32_t x0)
{
	static const struct {
		int seeds, sweep, anchor;
	} way[] = { { 1, 0, 0 }, { 0, 1, 1 }, { 0, 0, 1 }, { 0, 1, 0 } };
	struct gsearch *g = f->g;
	int ok = 0;
	for (size_t q = g->seeded ? 0 : 1;
	     q < sizeof(way) / sizeof(way[0]) && !ok; q++) {
		if (g->steps >= g->max_steps) {
			g->spent = 1;
			break;
		}
		uint64_t cap = g->relax_cap * f->n;
		if (cap < RELAX_MIN_CAP)
			cap = RELAX_MIN_CAP;
		g->lim = cap < g->max_steps - g->steps ? g->steps + cap
						       : g->max_steps;
		g->sweep = way[q].sweep;
		g->anchor = way[q].anchor;
		g->order = 0;
		if (way[q].seeds) {
			ok = flow_seeded(f);
		} else if (g->sweep) {
			ok = flow_sweep(f);
		} else {
			size_t mark = f->ntrail;
			choose(f, x0, 1);
			ok = propagate(f) && flow_dfs(f);
			prop_undo(f, mark);
			undecide(f, x0);
		}
		g->lim = g->max_steps;
		if (ok || g->oom)
			break;
		if (g->stop) {
			g->stop = 0;
			if (g->clock || g->steps >= g->max_steps) {
				g->spent = 1;
				break;
			}
		}
	}
	return ok;
}

/*
 * relax, polish: a block the heuristics placed (fall_back()) searched
 * again by the exact search (g->polish: solver_search_exact(), passed in
 * by exact and auto), from their placement, the relaxed phase off, with
 * n / (2n + RELAX_POLISH_K) of what is left of the run's time, or under
 * counted work of its steps (RELAX_POLISH_STEPS a unit of the exact
 * search's work, as the exact search counts the guillotine searches'
 * steps).  The
 * growth cannot cut such a block, but the exact search places a problem
 * of its size far lower than the heuristics: huge-5, seeded, its three
 * such blocks 1.2230x, 1.1489x and 1.0650x their height by the
 * heuristics, 1.1570x, 1.0358x and the bound with half a second each
 * (README, "Blocks the exact search places").  Up to RELAX_POLISH_MAX
 * buffers (on 1,427 it gained nothing in half a second).  Polished as it
 * falls, not after the run: a run that spends its time on splits it does
 * not find would leave nothing to polish with (held-out huge-11 at
 * --time-limit 5: 12.3% above the bound polished after, 4.6% as it falls).
 */
#define RELAX_POLISH_MAX 1000
#define RELAX_POLISH_K 200
#define RELAX_POLISH_STEPS 64u
#define RELAX_POLISH_MIN_SECONDS 0.005
#define RELAX_POLISH_MIN_UNITS 500u

/*
 * sub (the block's buffers) at o[0..n) from its base, *hb high over its
 * own h: searched with fraction f of what is left; o and *hb updated
 * where it found lower.  0, or 1 out of memory.
 */
static int polish(struct gsearch *g, const struct solver_problem *sub,
		  uint64_t *o, uint64_t h, uint64_t *hb, double f)
{
	size_t n = sub->n;
	if (*hb <= h || n < 2 || g->clock)
		return 0;
	struct solver_options so = { .seed = o, .no_relaxed = 1,
				     .max_threads = g->one_thread };
	int timed = g->b && !g->b->work_limit && !isinf(g->b->deadline);
	if (timed) {
		double left = g->b->deadline - solver_budget_elapsed(g->b);
		so.time_limit = left * f;
		if (so.time_limit < RELAX_POLISH_MIN_SECONDS)
			return 0;
	} else {
		uint64_t left = g->steps < g->max_steps
					? g->max_steps - g->steps : 0;
		so.work_limit = (uint64_t)((double)(left / RELAX_POLISH_STEPS) *
					   f);
		if (so.work_limit < RELAX_POLISH_MIN_UNITS)
			return 0;
		if (g->b && !isinf(g->b->deadline)) { /* the safety net */
			so.time_limit = g->b->deadline -
					solver_budget_elapsed(g->b);
			if (so.time_limit <= 0)
				return 0;
		}
	}
	uint64_t *o2 = malloc((n + 1) * sizeof(*o2));
	if (!o2)
		return 1;
	struct solver_report rep = { 0 };
	char err[160];
	int rc = g->polish(sub, &so, o2, &rep, err, sizeof(err));
	if (!timed)
		g->steps += rep.work * RELAX_POLISH_STEPS;
	if (!rc) {
		uint64_t h2 = 0;
		for (size_t i = 0; i < n; i++)
			if (o2[i] + sub->items[i].size > h2)
				h2 = o2[i] + sub->items[i].size;
		if (h2 < *hb) {
			memcpy(o, o2, n * sizeof(*o));
			*hb = h2;
			g->polished++;
		}
	}
	free(o2);
	if (timed && solver_budget_elapsed(g->b) >= g->b->deadline)
		g->clock = 1;
	return rc == SOLVER_ENOMEM;
}

/*
 * relax: s[0..n) placed from base by the lower of best-fit and
 * greedy-size, then, on at most RELAX_IMPROVE_MAX buffers, improved by
 * solver_improve() for RELAX_IMPROVE_RUNS greedy runs (each counted as
 * RELAX_RUN_STEPS steps a buffer, out of the steps and time left):
 * large-8's uncut blocks (75 buffers) 1.057x -> 1.0010x of the whole
 * height, huge-9's 1.091x -> 1.087x; on the first blocks of thousands of
 * buffers a run costs too much for what it gains.  g->over: what they
 * take above h.  1, or 0 out of memory.
 */
#define RELAX_IMPROVE_MAX 1000
#define RELAX_IMPROVE_RUNS 200u
#define RELAX_RUN_STEPS 16u

static int fall_back(struct gsearch *g, const uint32_t *s, size_t n,
		     uint64_t h, uint64_t base)
{
	struct solver_item *it = malloc((n + 1) * sizeof(*it));
	uint64_t *o = malloc((2 * n + 1) * sizeof(*o)), hb = 0, hg = 0;
	char err[160];
	int ok = it && o;
	struct solver_problem sub = { .items = it, .n = n };
	if (ok) {
		for (size_t i = 0; i < n; i++)
			it[i] = g->p->items[s[i]];
		ok = !solver_place_bestfit(&sub, o, &hb, NULL, err, sizeof(err)) &&
		     !solver_place_greedy(&sub, o + n, &hg, NULL, err, sizeof(err));
	}
	if (ok && hg < hb) {
		memcpy(o, o + n, n * sizeof(*o));
		hb = hg;
	}
	uint64_t left = g->steps < g->max_steps ? g->max_steps - g->steps : 0;
	uint64_t runs = left / ((uint64_t)RELAX_RUN_STEPS * n + 1);
	if (runs > RELAX_IMPROVE_RUNS)
		runs = RELAX_IMPROVE_RUNS;
	double secs = 0;
	if (g->b && !isinf(g->b->deadline))
		secs = g->b->deadline - solver_budget_elapsed(g->b);
	if (ok && hb > h && n <= RELAX_IMPROVE_MAX && runs && !g->clock &&
	    (!g->b || isinf(g->b->deadline) || secs > 0)) {
		struct solver_improve_limits il = { secs > 0 ? secs : 0, runs,
						    0, 0 };
		uint64_t h2 = hb, done = 0;
		if (!solver_improve(&sub, o, &h2, &il, &done, err,
				    sizeof(err)))
			hb = h2;
		g->steps += done * RELAX_RUN_STEPS * n;
	}
	if (ok && g->polish && n <= RELAX_POLISH_MAX &&
	    polish(g, &sub, o, h, &hb,
		   (double)n / (double)(2 * n + RELAX_POLISH_K)))
		ok = 0;
	if (ok) {
		for (size_t i = 0; i < n; i++)
			g->off[s[i]] = base + o[i];
		g->over = hb > h ? hb - h : 0;
		g->falls++;
		g->fell += n;
	} else {
		g->oom = g->stop = 1;
	}
	free(it);
	free(o);
	return ok;
}

/* A block no instant cuts and no buffer spans: two stacked blocks. */
static int flow_block(struct gsearch *g, const uint32_t *s, size_t n,
		      int64_t a, int64_t b, uint64_t h, uint64_t base)
{
	struct flow f = { .g = g, .s = s, .n = n, .a = a, .b = b, .h = h,
			  .base = base };
	f.t = malloc(2 * n * sizeof(*f.t));
	f.t0 = malloc(n * sizeof(*f.t0));
	f.t1 = malloc(n * sizeof(*f.t1));
	f.st = malloc(n * sizeof(*f.st));
	f.ks = malloc(n * sizeof(*f.ks));
	f.arcs = malloc(n * sizeof(*f.arcs));
	f.sg = malloc(n * sizeof(*f.sg));
	f.pick = malloc(n);
	f.posr = malloc(2 * n * sizeof(*f.posr));
	f.negr = malloc(2 * n * sizeof(*f.negr));
	f.inl = malloc(n * sizeof(*f.inl));
	f.outl = malloc(n * sizeof(*f.outl));
	f.in0 = calloc(2 * n + 2, sizeof(*f.in0));
	f.out0 = calloc(2 * n + 2, sizeof(*f.out0));
	f.imb = calloc(2 * n + 1, sizeof(*f.imb));
	f.und = calloc(2 * n + 1, sizeof(*f.und));
	f.ul = malloc((2 * n + 1) * sizeof(*f.ul));
	f.upos = malloc((2 * n + 1) * sizeof(*f.upos));
	f.uend = calloc(2 * n + 1, sizeof(*f.uend));
	f.ustart = calloc(2 * n + 1, sizeof(*f.ustart));
	f.trail = malloc((n + 1) * sizeof(*f.trail));
	f.q = malloc((2 * n + 1) * sizeof(*f.q));
	f.inq = calloc(2 * n + 1, 1);
	int ok = 0;
	if (!f.t || !f.t0 || !f.t1 || !f.st || !f.ks || !f.arcs || !f.sg ||
	    !f.pick || !f.posr || !f.negr || !f.inl || !f.outl || !f.in0 ||
	    !f.out0 || !f.imb || !f.und || !f.ul || !f.upos || !f.uend ||
	    !f.ustart || !f.trail || !f.q || !f.inq) {
		g->oom = g->stop = 1;
		goto out;
	}
	for (size_t j = 0; j < n; j++) {
		f.t[2 * j] = g->p->items[s[j]].lower;
		f.t[2 * j + 1] = g->p->items[s[j]].upper;
	}
	qsort(f.t, 2 * n, sizeof(*f.t), solver_time_cmp);
	for (size_t j = 0; j < 2 * n; j++)
		if (!f.nt || f.t[f.nt - 1] != f.t[j])
			f.t[f.nt++] = f.t[j];
	for (size_t j = 0; j < n; j++) {
		f.t0[j] = (uint32_t)solver_time_rank(f.t, f.nt,
						     g->p->items[s[j]].lower);
		f.t1[j] = (uint32_t)solver_time_rank(f.t, f.nt,
						     g->p->items[s[j]].upper);
		f.in0[f.t1[j] + 1]++;
		f.out0[f.t0[j] + 1]++;
		f.und[f.t0[j]]++;
		f.und[f.t1[j]]++;
		f.uend[f.t1[j]] += (int64_t)g->p->items[s[j]].size;
		f.ustart[f.t0[j]] += (int64_t)g->p->items[s[j]].size;
		f.st[j] = -1;
	}
	for (size_t k = 0; k < f.nt; k++) {
		f.upos[k] = -1;
		f.in0[k + 1] += f.in0[k];
		f.out0[k + 1] += f.out0[k];
	}
	{
		/* the lists, filled at running cursors */
		size_t *ci = malloc(2 * f.nt * sizeof(*ci)), *co = ci + f.nt;
		if (!ci) {
			g->oom = g->stop = 1;
			goto out;
		}
		for (size_t k = 0; k < f.nt; k++)
			ci[k] = f.in0[k], co[k] = f.out0[k];
		for (size_t j = 0; j < n; j++) {
			f.inl[ci[f.t1[j]]++] = (uint32_t)j;
			f.outl[co[f.t0[j]]++] = (uint32_t)j;
		}
		free(ci);
	}
	/* x0: of the buffers starting at a, the one living longest (then the
	 * largest) */
	size_t x0 = SIZE_MAX;
	for (size_t j = 0; j < n; j++) {
		if (f.t0[j] != 0)
			continue;
		const struct solver_item *x = &g->p->items[s[j]];
		if (x0 == SIZE_MAX || x->upper > g->p->items[s[x0]].upper ||
		    (x->upper == g->p->items[s[x0]].upper &&
		     x->size > g->p->items[s[x0]].size))
			x0 = j;
	}
	if (x0 == SIZE_MAX)
		goto out;
	if (g->relax) {
		ok = relax_split(&f, (uint32_t)x0);
	} else if (g->sweep) {
		ok = flow_sweep(&f);
	} else {
		choose(&f, (uint32_t)x0, 1);
		ok = propagate(&f) && flow_dfs(&f);
	}
out:
	free(f.t);
	free(f.t0);
	free(f.t1);
	free(f.st);
	free(f.ks);
	free(f.arcs);
	free(f.sg);
	free(f.pick);
	free(f.posr);
	free(f.negr);
	free(f.inl);
	free(f.outl);
	free(f.in0);
	free(f.out0);
	free(f.imb);
	free(f.und);
	free(f.ul);
	free(f.upos);
	free(f.uend);
	free(f.ustart);
	free(f.trail);
	free(f.q);
	free(f.inq);
	return ok;
}

/*
 * Places the buffers s[0..n) (reordered) as a gapless block [a, b) x h
 * from base up: 1 done (g->off holds their offsets), 0 not.
 */
static int block_r(struct gsearch *g, uint32_t *s, size_t n, int64_t a,
		   int64_t b, uint64_t h, uint64_t base)
{
	g->over = 0;
	if (g->relax && !g->oom && (g->spent || tick(g))) {
		g->spent = 1;
		g->stop = 0;
		return fall_back(g, s, n, h, base);
	}
	if (tick(g))
		return 0;
	if (!n)
		return h == 0;
	uint64_t key[2];
	set_key(g, s, n, key);
	if (!g->relax && memo_has(g, key))
		return 0;
	uint64_t tover = 0; /* relax: the most a piece took above h */
	/* buffers over all of [a, b) at the bottom */
	size_t r = 0;
	uint64_t at = base;
	for (size_t i = 0; i < n; i++) {
		const struct solver_item *x = &g->p->items[s[i]];
		if (x->lower <= a && x->upper >= b) {
			if (x->size > h - (at - base))
				goto fail;
			g->off[s[i]] = at;
			at += x->size;
		} else {
			s[r++] = s[i];
		}
	}
	uint64_t h2 = h - (at - base);
	if (!r) {
		if (h2)
			goto fail;
		return 1;
	}
	if (!h2)
		goto fail;
	/* instants no buffer crosses */
	{
		struct skey *ks = malloc(r * sizeof(*ks));
		if (!ks) {
			g->oom = g->stop = 1;
			return 0;
		}
		for (size_t i = 0; i < r; i++)
			ks[i] = (struct skey){ g->p->items[s[i]].lower,
					       g->p->items[s[i]].upper, 0, 0,
					       s[i] };
		qsort(ks, r, sizeof(*ks), skey_cmp);
		for (size_t i = 0; i < r; i++)
			s[i] = ks[i].i;
		free(ks);
	}
	if (g->p->items[s[0]].lower > a)
		goto fail;
	size_t p0 = 0;
	int64_t end = g->p->items[s[0]].upper, start = a;
	for (size_t i = 1; i <= r; i++) {
		if (i < r && g->p->items[s[i]].lower < end) {
			if (g->p->items[s[i]].upper > end)
				end = g->p->items[s[i]].upper;
			continue;
		}
		if (i < r && g->p->items[s[i]].lower > end)
			goto fail; /* an empty stretch in a full block */
		if (i == r && end < b)
			goto fail;
		if (p0 == 0 && i == r)
			break; /* no cut */
		if (!block(g, s + p0, i - p0, start, end, h2, at))
			goto fail;
		if (g->over > tover)
			tover = g->over;
		if (i < r) {
			start = end;
			p0 = i;
			end = g->p->items[s[i]].upper;
		} else {
			g->over = tover;
			return 1;
		}
	}
	if (flow_block(g, s, r, a, b, h2, at))
		return 1;
	if (g->relax && !g->oom)
		return fall_back(g, s, r, h2, at);
fail:
	if (!g->stop && !g->relax)
		memo_put(g, key);
	return 0;
}

static int block(struct gsearch *g, uint32_t *s, size_t n, int64_t a,
		 int64_t b, uint64_t h, uint64_t base)
{
	if (g->relax && g->depth + 1 >= g->max_depth) {
		g->over = 0;
		return g->oom ? 0 : fall_back(g, s, n, h, base);
	}
	if (deeper(g))
		return up(g, 0);
	return up(g, block_r(g, s, n, a, b, h, base));
}

/* Sets g up for p (the keys of the memo of failed sets); 0 or
 * SOLVER_ENOMEM. */
static int gsearch_init(struct gsearch *g, const struct solver_problem *p,
			struct solver_budget *b, int64_t *a, int64_t *e)
{
	*g = (struct gsearch){ .p = p, .b = b, .max_depth = GUIL_MAX_DEPTH };
	g->off = malloc(p->n * sizeof(*g->off));
	g->hkey = malloc(p->n * sizeof(*g->hkey));
	g->memo = calloc((size_t)1 << GM_BITS, sizeof(*g->memo));
	if (!g->off || !g->hkey || !g->memo)
		return SOLVER_ENOMEM;
	*a = p->items[0].lower;
	*e = p->items[0].upper;
	for (size_t i = 0; i < p->n; i++) {
		const struct solver_item *x = &p->items[i];
		if (x->lower < *a)
			*a = x->lower;
		if (x->upper > *e)
			*e = x->upper;
		g->hkey[i] = mix64(mix64(mix64((uint64_t)x->lower) ^
					 (uint64_t)x->upper) ^ x->size);
	}
	return 0;
}

static void gsearch_free(struct gsearch *g)
{
	free(g->off);
	free(g->hkey);
	free(g->memo);
}

/* One search, run on a thread of its own (run_deep()). */
struct gjob {
	const struct solver_problem *p;
	uint64_t cap, max_steps;
	struct solver_budget *b;
	uint64_t *offsets, *steps;
	unsigned max_depth;
	uint64_t relax_cap;   /* 0: the strict search */
	struct solver_guillotine_relaxed *out; /* relax: what it found */
	int seeded;           /* relax: SOLVER_GUILLOTINE_SEEDED */
	int height;           /* SOLVER_GUILLOTINE_HEIGHT */
	int earliest;         /* SOLVER_GUILLOTINE_EARLIEST */
	unsigned restart;     /* SOLVER_GUILLOTINE_RESTART(k): k */
	solver_exact_fn *polish; /* relax: the polish, or NULL */
	int one_thread;       /* SOLVER_GUILLOTINE_ONE_THREAD */
	int rc;
};

static int search_strict(struct gjob *j);
static int search_relaxed(struct gjob *j);

static void *gjob_main(void *arg)
{
	struct gjob *j = arg;
	j->rc = j->relax_cap ? search_relaxed(j) : search_strict(j);
	return NULL;
}

static int run_deep(struct gjob *j)
{
	pthread_attr_t at;
	pthread_t th;
	if (!pthread_attr_init(&at)) {
		/* set before the thread starts: it reads it at once */
		j->max_depth = (unsigned)(GUIL_STACK / GUIL_FRAME_BYTES);
		int ok = !pthread_attr_setstacksize(&at, GUIL_STACK) &&
			 !pthread_create(&th, &at, gjob_main, j);
		pthread_attr_destroy(&at);
		if (ok) {
			pthread_join(th, NULL);
			return j->rc;
		}
	}
	j->max_depth = GUIL_MAX_DEPTH;
	gjob_main(j);
	return j->rc;
}

int solver_search_guillotine(const struct solver_problem *p, uint64_t cap,
			     uint64_t max_steps, struct solver_budget *b,
			     uint64_t *offsets, uint64_t *steps)
{
	*steps = 0;
	if (!p->n || !solver_skyline_applies(p, cap))
		return 0;
	struct gjob j = { .p = p, .cap = cap, .max_steps = max_steps, .b = b,
			  .offsets = offsets, .steps = steps };
	return run_deep(&j);
}

/* g for job j, and *s the job's buffers to order (0, or SOLVER_ENOMEM:
 * g and *s are still to be freed). */
static int job_init(struct gjob *j, struct gsearch *g, uint32_t **s,
		    int64_t *a, int64_t *e)
{
	*s = malloc(j->p->n * sizeof(**s));
	int rc = gsearch_init(g, j->p, j->b, a, e);
	g->max_depth = j->max_depth;
	return rc || !*s ? SOLVER_ENOMEM : 0;
}

static int search_strict(struct gjob *j)
{
	const struct solver_problem *p = j->p;
	uint64_t cap = j->cap, max_steps = j->max_steps, *offsets = j->offsets;
	struct gsearch g;
	int64_t a, e;
	uint32_t *s;
	int found = 0, rc = job_init(j, &g, &s, &a, &e);
	if (rc)
		goto out;
	/* the passes: the sweep of x0's sets, the growth with the subsets
	 * that take the largest arc first, then without, the sweep of the
	 * thin sets; each ends at its part of max_steps (what one leaves
	 * the next one takes).  The first growth ends at 60%: the 2,587
	 * buffers of test_solver_exact need it within 3 million steps. */
	static const struct {
		int sweep, anchor, order;
		double end;
	} pass[] = { { 1, 1, 0, 0.25 }, { 0, 1, 1, 0.6 }, { 0, 1, 0, 0.8 },
		     { 1, 0, 0, 1 } };
	const int npass = (int)(sizeof(pass) / sizeof(pass[0]));
	for (int q = 0; q < npass && !found && !g.clock && !g.oom; q++) {
		g.sweep = pass[q].sweep;
		g.anchor = pass[q].anchor;
		g.order = pass[q].order;
		g.max_steps = q == npass - 1 ? max_steps
				     : (uint64_t)((double)max_steps * pass[q].end);
		if (g.steps >= g.max_steps)
			continue;
		g.lim = g.max_steps;
		g.stop = 0;
		memset(g.memo, 0, ((size_t)1 << GM_BITS) * sizeof(*g.memo));
		for (size_t i = 0; i < p->n; i++)
			s[i] = (uint32_t)i;
		found = block(&g, s, p->n, a, e, cap, 0);
	}
	if (g.oom)
		rc = SOLVER_ENOMEM;
	if (found && !rc) {
		for (size_t i = 0; i < p->n && found; i++)
			if (g.off[i] % p->items[i].align ||
			    g.off[i] + p->items[i].size > cap)
				found = 0;
		if (found)
			memcpy(offsets, g.off, p->n * sizeof(*offsets));
	}
out:
	*j->steps = g.steps;
	gsearch_free(&g);
	free(s);
	return rc ? rc : found;
}

int solver_search_guillotine_relaxed(const struct solver_problem *p,
				     uint64_t cap, uint64_t max_steps,
				     uint64_t per_buffer, unsigned flags,
				     solver_exact_fn *polish,
				     struct solver_budget *b, uint64_t *offsets,
				     struct solver_guillotine_relaxed *out)
{
	memset(out, 0, sizeof(*out));
	if (!p->n || !per_buffer || !solver_skyline_applies(p, cap))
		return 0;
	struct gjob j = { .p = p, .cap = cap, .max_steps = max_steps, .b = b,
			  .offsets = offsets, .steps = &out->steps,
			  .relax_cap = per_buffer, .out = out,
			  .seeded = !!(flags & SOLVER_GUILLOTINE_SEEDED),
			  .height = !!(flags & SOLVER_GUILLOTINE_HEIGHT),
			  .earliest = !!(flags & SOLVER_GUILLOTINE_EARLIEST),
			  .polish = polish,
			  .one_thread = !!(flags & SOLVER_GUILLOTINE_ONE_THREAD),
			  .restart = flags >> 8 };
	if (!(flags & SOLVER_GUILLOTINE_REVERSED))
		return run_deep(&j);
	/* time run backwards: [lower, upper) as [-upper, -lower), the same
	 * lengths and overlaps, so the same placements */
	struct solver_item *it = malloc(p->n * sizeof(*it));
	if (!it)
		return SOLVER_ENOMEM;
	for (size_t i = 0; i < p->n; i++) {
		it[i] = p->items[i];
		if (it[i].lower == INT64_MIN) { /* upper >= lower: negates */
			free(it);
			return 0;
		}
		it[i].lower = -p->items[i].upper;
		it[i].upper = -p->items[i].lower;
	}
	struct solver_problem q = *p;
	q.items = it;
	j.p = &q;
	int rc = run_deep(&j);
	free(it);
	return rc;
}

static int search_relaxed(struct gjob *j)
{
	const struct solver_problem *p = j->p;
	struct gsearch g;
	int64_t a, e;
	uint32_t *s;
	int found = 0, rc = job_init(j, &g, &s, &a, &e);
	if (rc)
		goto out;
	g.relax = 1;
	g.seeded = j->seeded;
	g.height = j->height;
	g.earliest = j->earliest;
	g.restart = j->restart;
	g.polish = j->polish;
	g.one_thread = j->one_thread;
	g.rng = mix64(j->restart);
	g.relax_cap = j->relax_cap;
	g.max_steps = g.lim = j->max_steps ? j->max_steps : 1;
	for (size_t i = 0; i < p->n; i++)
		s[i] = (uint32_t)i;
	found = block(&g, s, p->n, a, e, j->cap, 0) == 1;
	if (g.oom)
		rc = SOLVER_ENOMEM;
	if (found && !rc) {
		/* what is returned is checked as any answer is */
		uint64_t top = 0;
		if (solver_check(p, g.off, &top, NULL, 0)) {
			found = 0;
		} else {
			memcpy(j->offsets, g.off, p->n * sizeof(*j->offsets));
			j->out->height = top;
			j->out->falls = g.falls;
			j->out->fell = g.fell;
			j->out->polished = g.polished;
		}
	}
out:
	*j->steps = g.steps;
	gsearch_free(&g);
	free(s);
	return rc ? rc : found;
}
