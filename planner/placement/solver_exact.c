/* SPDX-License-Identifier: MIT */
/*
 * solver_exact.c - the "exact" and "auto" strategies: a depth-first branch
 * and bound over canonical placements, in the spirit of MiniMalloc (Moffitt,
 * ASPLOS 2024), wrapped in an anytime search for the lowest height.
 *
 * Decision problem.  Given a capacity C, find offsets with every item below
 * C.  Every placement can be "dropped by gravity" until each item rests on
 * one it meets in time (or on 0), and the items can then be listed by
 * offset.  So the search builds placements in that order: each node places
 * one unplaced item at its minimum offset (the highest end of the placed
 * items it meets, aligned), and the sequence of (offset, preorder rank) it
 * places never decreases (canonical solutions).  Pruning:
 *  - capacity: an item whose minimum offset no longer fits kills the node;
 *  - cross sections: in every elementary time section, the unplaced bytes
 *    must fit between the section's floor and C, where the floor is the
 *    highest of: the top of the placed items there, the current offset,
 *    and the lowest minimum offset of the items still to place there
 *    (MiniMalloc's "unallocated floor": the strongest bound when C is
 *    tight);
 *  - energy: in each section, the items that cannot start below v (their
 *    minimum offset, or the current offset) must fit in [v, C), for every
 *    v: stronger than the section total when C is tight;
 *  - dominance: an item is never placed at or above the lowest height some
 *    other unplaced item could finish at (it would leave a gap below);
 *  - settled items: an unplaced item none of whose neighbours is unplaced
 *    keeps its minimum offset for ever, so once the candidate loop passes
 *    it, later candidates can never be canonical with it: stop there.
 * Independent stretches of time (no item crosses a cut) are solved apart,
 * and items that meet nobody are placed at 0; in long runs of a plain
 * preorder the parts of such a split are ranked afresh from the bytes
 * left in their sections, as MiniMalloc does.  A decision restarts with
 * node budgets growing as the Luby sequence, cycling through three static
 * preorders and then perturbed copies of them: the trees have heavy tails.
 * At the proven floor, MiniMalloc's round robin (the plain preorders with
 * doubling budgets) takes most of the nodes beside the Luby runs, see
 * sched_next().
 *
 * Minimisation.  Heights are multiples of g, the gcd of sizes and of the
 * alignments above 1.  Starting from a heuristic placement, two searches
 * run: one asks for the proven lower bound (resumed, not restarted), the
 * other climbs from below toward the best height found (see task_step()).
 * Under a time limit on two processors each has a thread (duo()); else
 * they take turns, two thirds of the nodes to the floor unless the climb
 * is the one finding heights (turn()).  An exhausted search at C proves
 * that nothing reaches C, which raises the proven lower bound; the answer
 * is optimal when the best height meets it.
 *
 * Problems without holes (every item one piece) take shortcuts that leave
 * the search node for node the same: a node scans only the sections where
 * a moved item can make it fail, raises no floors, and reads the unplaced
 * bytes from a plain array instead of the floor tree (raise_moved()).
 *
 * Exactness.  The gravity argument holds for items with holes as long as
 * a hole frees the item's whole range.  Holes that keep a window occupied
 * and fixed offsets break it: for those problems the search still runs
 * (windows) or is skipped (fixed offsets), but optimality is only claimed
 * when the height meets the lower bound.
 *
 * How to read this file.  One algorithm, in eight parts, each opening with a
 * "--- name" line, in the order a call runs them backwards (leaves first):
 *  1. building the static data: struct exact, the items' sections, the
 *     preorders (everything the nodes only read);
 *  2. the search: the undo trails every change of a node is logged on;
 *  3. section trees: the floor tree, the energy bound (raise_floor(),
 *     raise_floors(), raise_moved()) and the unplaced bytes per section;
 *  4. the node: dfs() places one item and prunes, dfs_part() and
 *     solve_parts() solve independent stretches apart (with the progress
 *     line, report_progress());
 *  5. decisions: is capacity C reachable? run_preorder() under a node
 *     budget, sched_next() (Luby restarts, MiniMalloc's round robin),
 *     decide();
 *  6. minimisation: the floor and the climb as tasks (task_step()), their
 *     two threads (exact_clone(), duo()), minimise();
 *  7. what the search may attempt, estimated from sizes before building
 *     anything (estimate(), admit(), plan()), and search() that runs it;
 *  8. the entry points: solver_search_exact(), solver_search_auto() (the
 *     heuristics, exact, then solver_improve()), and the counted variants
 *     the tests use.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getaffinity() */
#endif
#include "solver.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


#define NONE UINT64_MAX

enum { FOUND = 0, NOTFOUND = 1, ABORTED = 2 };

/* Preorders (MiniMalloc's WAT, TAW, TWA): width (duration), area, and the
 * largest section total the item is part of. */
enum { KEY_W, KEY_A, KEY_T };
static const int preorders[][3] = {
	{ KEY_W, KEY_A, KEY_T },
	{ KEY_T, KEY_A, KEY_W },
	{ KEY_T, KEY_W, KEY_A },
};
#define NPREORDER (int)(sizeof(preorders) / sizeof(preorders[0]))

struct edge {
	uint32_t to;
	uint64_t delta; /* offset[to] >= offset[from] + delta, to placed later */
};

struct cover {
	uint32_t sa, sb; /* sections [sa, sb) */
	uint64_t lo, hi; /* bytes relative to the offset */
};

struct member {
	uint32_t item, piece;
	uint64_t lo;     /* first byte of its piece in the section */
	uint64_t ebytes; /* its item's size in the energy bound, 0 when out */
};

struct energy {
	uint64_t start, bytes;
};

struct undo {
	uint32_t what; /* item whose minimum offset changed */
	uint64_t old;
};

struct comp {
	uint32_t *items; /* into x->comp_items */
	size_t n;
	uint32_t s0, s1; /* sections */
};

struct exact {
	const struct solver_problem *p;
	size_t n;
	/* static data */
	size_t *adj0;
	struct edge *adj;
	size_t *cov0;
	struct cover *cov;
	size_t nsec;
	uint64_t *sec_total0; /* initial unplaced bytes per section */
	size_t *sec0;          /* section s has members secmem[sec0[s]..] */
	struct member *secmem; /* the unplaced ones first, nun[s] of them */
	uint32_t *secitem;     /* secmem[m].item, in the same order: the
				* energy test's scan without holes */
	size_t *nun;
	uint64_t *unpl;        /* unplaced bytes per section (the tree's t) */
	int lazy;              /* no item has holes: see raise_moved() */
	uint8_t *sub;          /* section's pieces all in a neighbour's */
	size_t *mbase;         /* piece i in section s: mpos[mbase[i] + s - sa] */
	size_t *mpos;          /* where in secmem */
	uint32_t *secstamp;
	struct energy *energy; /* scratch, one section's members */
	uint32_t *movedlist;
	uint32_t *comp_items;
	struct comp *comps;
	size_t ncomps;
	uint64_t *key[3]; /* W, A, T per item */
	uint64_t *isize, *ialign; /* the items' sizes and alignments, dense */
	uint32_t *nbr;    /* adj[e].to, dense: the node's scan of neighbours */
	int flat;         /* every edge's delta is its item's size and every
			   * alignment 1: a node's neighbours all need the
			   * same offset */
	uint64_t *tnow;   /* T of the unplaced bytes left, see dfs_part() */
	int replan;       /* this run ranks parts afresh */
	/* search state */
	uint64_t cap;
	uint64_t *minoff, *off;
	uint32_t *rank, *stamp;
	uint32_t stampno;
	uint32_t *order; /* stacked node orders: n(n+1)/2 entries max */
	uint32_t *scratch; /* items whose minimum offset rose, one node */
	size_t top;        /* next free word of order */
	size_t order_cap;
	struct span { uint32_t sa, sb; } *span; /* sections an item spans */
	uint32_t *cutlist;  /* stacked cut positions of nested splits */
	size_t ncut;
	size_t *partcount;  /* stacked part counters of nested splits */
	struct fnode *ft;   /* floor tree, 4 * nsec nodes */
	struct ftrail *ftrail;
	size_t nftrail, capftrail;
	int32_t *cmin, *cadd_; /* cut tree over nsec - 1 boundaries */
	uint32_t nb;
	struct undo *log;
	size_t nlog, caplog;
	uint64_t *sol; /* last solution found, per item */
	uint64_t *floor_sol; /* components solved at the floor, see decide() */
	/* limits and accounting */
	uint64_t nodes, node_budget;
	uint64_t max_nodes, phase_nodes; /* whole search, current decision */
	uint64_t turn_end; /* no run of the floor starts from here on */
	struct timespec t0;
	double deadline, next_progress;
	uint64_t clock_mask; /* the clock is read every clock_mask + 1 nodes */
	uint64_t scanned;    /* members raise_floor() scanned since then */
	size_t trail_cap;    /* bytes each undo trail may take (log, ftrail) */
	int timed_out, nomem, memstop; /* memstop: a trail reached trail_cap */
	atomic_int *halt;    /* set by the other thread's search, or NULL */
	/* two threads: the lowest height either found and the nodes of
	 * both, for the progress reports (the floor reports) */
	_Atomic uint64_t *duo_best, *duo_nodes;
	struct solver_budget *budget; /* the call's clock and work */
	uint64_t work_end; /* nodes at which the work runs out (UINT64_MAX) */
	int work_out;      /* the last abort was the work limit's */
	const struct solver_options *opt;
	uint64_t progress_best, progress_lb;
};

static double elapsed(const struct exact *x)
{
	if (x->budget && x->budget->cancel &&
	    atomic_load_explicit(x->budget->cancel, memory_order_relaxed))
		return HUGE_VAL; /* the other search settled it */
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - x->t0.tv_sec) +
	       (double)(t.tv_nsec - x->t0.tv_nsec) / 1e9;
}

static inline uint64_t align_up(uint64_t v, uint64_t a)
{
	if (a == 1)
		return v;
	uint64_t r = v % a;
	return r ? v + (a - r) : v;
}

/* --- building the static data ----------------------------------------- */

struct pstart {
	int64_t lower;
	uint32_t piece;
};

static int pstart_cmp(const void *a, const void *b)
{
	const struct pstart *x = a, *y = b;
	if (x->lower != y->lower)
		return x->lower < y->lower ? -1 : 1;
	return (x->piece > y->piece) - (x->piece < y->piece);
}

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return (x->delta < y->delta) - (x->delta > y->delta); /* largest first */
}

/* An upper limit on conflict edges: beyond it exact declines to search. */
#define MAX_EDGES (UINT64_C(40) * 1000 * 1000)
/* The largest component searched (node orders need n(n+1)/2 words). */
#define MAX_COMPONENT 6000
#define NODE_ITEMS 512 /* items a node of counted work scans, at most */

/*
 * Builds conflict edges (both directions, one per item pair, with the
 * largest delta over the pairs of pieces that meet), section covers and
 * per-section totals.  Returns 0, SOLVER_ENOMEM, 1 when the problem is
 * too big to search, or 2 when the deadline passes meanwhile (the sizes
 * were estimated first, see plan(): neither should happen).
 */
static int build(struct exact *x)
{
	const struct solver_problem *p = x->p;
	struct solver_piece *pc = NULL;
	size_t *fi = NULL;
	int rc = SOLVER_ENOMEM;
	if (solver_problem_pieces(p, &pc, &fi))
		return SOLVER_ENOMEM;
	size_t np = fi[p->n];
	int64_t *times = malloc((2 * np + 1) * sizeof(*times));
	struct pstart *ps = malloc((np + 1) * sizeof(*ps));
	uint32_t *active = malloc((np + 1) * sizeof(*active));
	size_t *deg = calloc(p->n + 1, sizeof(*deg));
	struct edge *tmp = NULL;
	uint64_t *pairs = NULL; /* (a, b, delta_ab, delta_ba) flattened */
	size_t npairs = 0, cappairs = 0;
	if (!times || !ps || !active || !deg)
		goto out;
	for (size_t i = 0; i < np; i++) {
		times[2 * i] = pc[i].lower;
		times[2 * i + 1] = pc[i].upper;
		ps[i] = (struct pstart){ pc[i].lower, (uint32_t)i };
	}
	qsort(times, 2 * np, sizeof(*times), solver_time_cmp);
	size_t nt = 0;
	for (size_t i = 0; i < 2 * np; i++)
		if (nt == 0 || times[nt - 1] != times[i])
			times[nt++] = times[i];
	x->nsec = nt ? nt - 1 : 0;
	x->sec_total0 = calloc(x->nsec + 1, sizeof(*x->sec_total0));
	x->cov0 = malloc((p->n + 1) * sizeof(*x->cov0));
	x->cov = malloc((np + 1) * sizeof(*x->cov));
	if (!x->sec_total0 || !x->cov0 || !x->cov)
		goto out;
	for (size_t i = 0; i <= p->n; i++)
		x->cov0[i] = fi[i];
	for (size_t i = 0; i < np; i++) {
		struct cover *c = &x->cov[i];
		c->sa = (uint32_t)solver_time_rank(times, nt, pc[i].lower);
		c->sb = (uint32_t)solver_time_rank(times, nt, pc[i].upper);
		c->lo = pc[i].lo;
		c->hi = pc[i].hi;
		for (uint32_t s = c->sa; s < c->sb; s++)
			x->sec_total0[s] += c->hi - c->lo;
	}
	/* Section members (item and piece offset), for the unallocated floor. */
	x->sec0 = calloc(x->nsec + 2, sizeof(*x->sec0));
	if (!x->sec0)
		goto out;
	for (size_t i = 0; i < np; i++)
		for (uint32_t s = x->cov[i].sa; s < x->cov[i].sb; s++)
			x->sec0[s + 1]++;
	for (size_t s = 0; s < x->nsec; s++)
		x->sec0[s + 1] += x->sec0[s];
	x->secmem = malloc((x->sec0[x->nsec] + 1) * sizeof(*x->secmem));
	if (!x->secmem)
		goto out;
	for (size_t i = 0; i < np; i++)
		for (uint32_t s = x->cov[i].sa; s < x->cov[i].sb; s++)
			x->secmem[x->sec0[s]++] = (struct member){
				pc[i].item, (uint32_t)i, x->cov[i].lo,
				p->items[pc[i].item].nholes
					? 0
					: p->items[pc[i].item].size };
	for (size_t s = x->nsec; s > 0; s--)
		x->sec0[s] = x->sec0[s - 1];
	x->sec0[0] = 0;
	x->secitem = malloc((x->sec0[x->nsec] + 1) * sizeof(*x->secitem));
	if (!x->secitem)
		goto out;
	for (size_t m = 0; m < x->sec0[x->nsec]; m++)
		x->secitem[m] = x->secmem[m].item;
	x->nun = malloc((x->nsec + 1) * sizeof(*x->nun));
	x->unpl = malloc((x->nsec + 1) * sizeof(*x->unpl));
	x->lazy = !x->opt->exact_scan_all;
	for (size_t i = 0; i < p->n; i++)
		if (p->items[i].nholes)
			x->lazy = 0;
	x->mbase = malloc((np + 1) * sizeof(*x->mbase));
	x->mpos = malloc((x->sec0[x->nsec] + 1) * sizeof(*x->mpos));
	x->sub = calloc(x->nsec + 2, sizeof(*x->sub));
	if (!x->nun || !x->unpl || !x->mbase || !x->mpos || !x->sub)
		goto out;
	/* Section z's pieces are all section z + 1's when none ends at
	 * boundary z + 1, and a proper part of z - 1's when none starts at
	 * boundary z and some ends there: bit 0 marks a boundary where a
	 * piece starts, bit 1 one where a piece ends, bit 2 the verdict. */
	for (size_t i = 0; i < np; i++) {
		x->sub[x->cov[i].sa] |= 1;
		x->sub[x->cov[i].sb] |= 2;
	}
	for (size_t z = 0; z < x->nsec; z++) {
		uint8_t at = x->sub[z], next = x->sub[z + 1];
		int in_next = z + 1 < x->nsec && !(next & 2);
		int in_prev = z > 0 && !(at & 1) && (at & 2);
		x->sub[z] = (uint8_t)((at & 3) | (in_next || in_prev ? 4 : 0));
	}
	for (size_t z = 0; z <= x->nsec; z++)
		x->sub[z] = x->sub[z] >> 2;
	for (size_t i = 0, at = 0; i < np; i++) {
		x->mbase[i] = at;
		at += x->cov[i].sb - x->cov[i].sa;
	}
	for (size_t s = 0; s < x->nsec; s++)
		for (size_t m = x->sec0[s]; m < x->sec0[s + 1]; m++) {
			const struct member *me = &x->secmem[m];
			x->mpos[x->mbase[me->piece] + s - x->cov[me->piece].sa] = m;
		}
	/* Sweep piece starts; the active list holds pieces still resident. */
	qsort(ps, np, sizeof(*ps), pstart_cmp);
	size_t na = 0;
	for (size_t k = 0; k < np; k++) {
		const struct solver_piece *a = &pc[ps[k].piece];
		if ((k & 1023) == 1023 &&
		    solver_budget_elapsed(x->budget) >= x->budget->deadline) {
			rc = 2; /* out of time while preparing */
			goto out;
		}
		size_t keep = 0;
		for (size_t j = 0; j < na; j++) {
			const struct solver_piece *b = &pc[active[j]];
			if (b->upper <= a->lower)
				continue;
			active[keep++] = active[j];
			if (b->item == a->item)
				continue;
			if (npairs == cappairs) {
				if (npairs >= MAX_EDGES) {
					rc = 1;
					goto out;
				}
				size_t nc = cappairs ? 2 * cappairs : 1024;
				uint64_t *q = realloc(pairs, nc * 4 * sizeof(*q));
				if (!q)
					goto out;
				pairs = q;
				cappairs = nc;
			}
			uint64_t *e = &pairs[4 * npairs++];
			e[0] = a->item;
			e[1] = b->item;
			/* a above b needs a.off + a.lo >= b.off + b.hi */
			e[2] = b->hi > a->lo ? b->hi - a->lo : 0; /* b -> a */
			e[3] = a->hi > b->lo ? a->hi - b->lo : 0; /* a -> b */
			deg[a->item]++;
			deg[b->item]++;
		}
		na = keep;
		active[na++] = ps[k].piece;
	}
	x->adj0 = malloc((p->n + 1) * sizeof(*x->adj0));
	tmp = malloc((2 * npairs + 1) * sizeof(*tmp));
	if (!x->adj0 || !tmp)
		goto out;
	size_t acc = 0;
	for (size_t i = 0; i < p->n; i++) {
		x->adj0[i] = acc;
		acc += deg[i];
		deg[i] = x->adj0[i];
	}
	x->adj0[p->n] = acc;
	for (size_t k = 0; k < npairs; k++) {
		const uint64_t *e = &pairs[4 * k];
		tmp[deg[e[1]]++] = (struct edge){ (uint32_t)e[0], e[2] };
		tmp[deg[e[0]]++] = (struct edge){ (uint32_t)e[1], e[3] };
	}
	/* One edge per neighbour, with the largest delta. */
	size_t w = 0;
	for (size_t i = 0; i < p->n; i++) {
		size_t a = x->adj0[i], b = x->adj0[i + 1];
		qsort(tmp + a, b - a, sizeof(*tmp), edge_cmp);
		x->adj0[i] = w;
		for (size_t k = a; k < b; k++)
			if (k == a || tmp[k].to != tmp[k - 1].to)
				tmp[w++] = tmp[k];
	}
	x->adj0[p->n] = w;
	x->adj = tmp;
	tmp = NULL;
	rc = 0;
out:
	free(pc);
	free(fi);
	free(times);
	free(ps);
	free(active);
	free(deg);
	free(tmp);
	free(pairs);
	return rc;
}

/*
 * Components: items that meet somebody, split where no item crosses a
 * section boundary.  Items meeting nobody are left out (placed at 0).
 */
static int split(struct exact *x)
{
	size_t n = x->n;
	x->comp_items = malloc((n + 1) * sizeof(*x->comp_items));
	x->comps = malloc((n + 1) * sizeof(*x->comps));
	struct pstart *by = malloc((n + 1) * sizeof(*by));
	if (!x->comp_items || !x->comps || !by) {
		free(by);
		return SOLVER_ENOMEM;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (x->adj0[i + 1] > x->adj0[i])
			by[m++] = (struct pstart){
				x->cov[x->cov0[i]].sa, (uint32_t)i };
	qsort(by, m, sizeof(*by), pstart_cmp);
	x->ncomps = 0;
	uint32_t reach = 0;
	for (size_t k = 0; k < m; k++) {
		uint32_t i = by[k].piece;
		uint32_t sa = x->cov[x->cov0[i]].sa;
		uint32_t sb = x->cov[x->cov0[i + 1] - 1].sb;
		if (k == 0 || sa >= reach) {
			struct comp *c = &x->comps[x->ncomps++];
			c->items = &x->comp_items[k];
			c->n = 0;
			c->s0 = sa;
			reach = sb;
		}
		struct comp *c = &x->comps[x->ncomps - 1];
		c->items[c->n++] = i;
		if (sb > reach)
			reach = sb;
		c->s1 = reach;
	}
	free(by);
	return 0;
}

/* Static keys for the preorders. */
static void make_keys(struct exact *x)
{
	for (size_t i = 0; i < x->n; i++) {
		const struct solver_item *it = &x->p->items[i];
		uint64_t total = 0;
		for (size_t k = x->cov0[i]; k < x->cov0[i + 1]; k++) {
			const struct cover *c = &x->cov[k];
			for (uint32_t s = c->sa; s < c->sb; s++)
				if (x->sec_total0[s] > total)
					total = x->sec_total0[s];
		}
		uint64_t dur = (uint64_t)(it->upper - it->lower);
		uint64_t area = dur && it->size > UINT64_MAX / dur
					? UINT64_MAX
					: it->size * dur;
		x->key[KEY_W][i] = dur;
		x->key[KEY_A][i] = area;
		x->key[KEY_T][i] = total;
	}
}

static _Thread_local const struct exact *sort_ctx; /* qsort has no context */
static _Thread_local int sort_pre;
static _Thread_local int sort_tnow; /* T from x->tnow (see dfs_part()) */

static int pre_cmp(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	for (int k = 0; k < 3; k++) {
		int kk = preorders[sort_pre][k];
		const uint64_t *key = kk == KEY_T && sort_tnow ? sort_ctx->tnow
							      : sort_ctx->key[kk];
		if (key[i] != key[j])
			return key[i] > key[j] ? -1 : 1;
	}
	if (sort_ctx->p->items[i].size != sort_ctx->p->items[j].size)
		return sort_ctx->p->items[i].size > sort_ctx->p->items[j].size
			       ? -1
			       : 1;
	return (i > j) - (i < j);
}

/* --- the search -------------------------------------------------------- */

/* The next capacity of a trail of cap entries of size bytes: twice, at
 * most limit bytes (no more than cap: full). */
static size_t trail_grow(size_t cap, size_t size, size_t limit)
{
	size_t nc = cap ? 2 * cap : 4096;
	if (nc > limit / size)
		nc = limit / size;
	return nc;
}

static int log_push(struct exact *x, uint32_t what, uint64_t old)
{
	if (x->nlog == x->caplog) {
		size_t nc = trail_grow(x->caplog, sizeof(*x->log), x->trail_cap);
		if (nc <= x->caplog) {
			x->nomem = x->memstop = 1; /* a stop, not a failure */
			return -1;
		}
		struct undo *q = realloc(x->log, nc * sizeof(*q));
		if (!q) {
			x->nomem = 1;
			return -1;
		}
		x->log = q;
		x->caplog = nc;
	}
	x->log[x->nlog++] = (struct undo){ what, old };
	return 0;
}

static void log_undo(struct exact *x, size_t mark)
{
	while (x->nlog > mark) {
		const struct undo *u = &x->log[--x->nlog];
		x->minoff[u->what] = u->old;
	}
}

static int dfs(struct exact *x, uint32_t s0, uint32_t s1, uint32_t *order,
	       size_t m, uint64_t last_off, uint32_t last_rank);

/* --- section trees ------------------------------------------------------
 *
 * Sections are updated along whole ranges at every node, so they live in
 * two segment trees instead of arrays.  The floor tree holds, per section,
 * the unplaced bytes t and the floor f (the top of the placed items there),
 * and answers max(t) and max(f + t) over ranges; placing an item assigns
 * its end to f and subtracts its bytes from t over its sections (in
 * canonical order every floor there is at most the new offset).  Undo
 * restores the nodes an update wrote from a trail.  The cut tree holds, per
 * boundary between two sections, the unplaced items that cross it, with
 * range add and range min; it is undone by adding back.
 */
struct fnode {
	uint64_t t, ft; /* max t, max f + t over the node's range */
	uint64_t v;     /* pending floor assignment (when has_a) */
	int64_t d;      /* pending add to t */
	uint32_t has_a;
};

struct ftrail {
	uint32_t at;
	struct fnode old;
};

static int ftrail_push(struct exact *x, uint32_t at)
{
	if (x->nftrail == x->capftrail) {
		size_t nc = trail_grow(x->capftrail, sizeof(*x->ftrail), x->trail_cap);
		if (nc <= x->capftrail) {
			x->nomem = x->memstop = 1;
			return -1;
		}
		struct ftrail *q = realloc(x->ftrail, nc * sizeof(*q));
		if (!q) {
			x->nomem = 1;
			return -1;
		}
		x->ftrail = q;
		x->capftrail = nc;
	}
	x->ftrail[x->nftrail++] = (struct ftrail){ at, x->ft[at] };
	return 0;
}

static void fapply(struct exact *x, uint32_t at, int64_t d, uint32_t has_a,
		   uint64_t v)
{
	struct fnode *nd = &x->ft[at];
	ftrail_push(x, at);
	nd->t = (uint64_t)((int64_t)nd->t + d);
	nd->ft = has_a ? v + nd->t : (uint64_t)((int64_t)nd->ft + d);
	nd->d += d;
	if (has_a) {
		nd->has_a = 1;
		nd->v = v;
	}
}

static void fpush(struct exact *x, uint32_t at)
{
	struct fnode *nd = &x->ft[at];
	if (!nd->d && !nd->has_a)
		return;
	fapply(x, 2 * at, nd->d, nd->has_a, nd->v);
	fapply(x, 2 * at + 1, nd->d, nd->has_a, nd->v);
	ftrail_push(x, at);
	nd->d = 0;
	nd->has_a = 0;
}

static void fupdate(struct exact *x, uint32_t at, uint32_t l, uint32_t r,
		    uint32_t ql, uint32_t qr, int64_t d, uint32_t has_a,
		    uint64_t v)
{
	if (qr <= l || r <= ql)
		return;
	if (ql <= l && r <= qr) {
		fapply(x, at, d, has_a, v);
		return;
	}
	fpush(x, at);
	uint32_t mid = l + (r - l) / 2;
	fupdate(x, 2 * at, l, mid, ql, qr, d, has_a, v);
	fupdate(x, 2 * at + 1, mid, r, ql, qr, d, has_a, v);
	ftrail_push(x, at);
	struct fnode *nd = &x->ft[at], *a = &x->ft[2 * at], *b = &x->ft[2 * at + 1];
	nd->t = a->t > b->t ? a->t : b->t;
	nd->ft = a->ft > b->ft ? a->ft : b->ft;
}

/* max t over [ql, qr) */
static uint64_t fmax_t(struct exact *x, uint32_t at, uint32_t l, uint32_t r,
		       uint32_t ql, uint32_t qr)
{
	if (qr <= l || r <= ql)
		return 0;
	if (ql <= l && r <= qr)
		return x->ft[at].t;
	fpush(x, at);
	uint32_t mid = l + (r - l) / 2;
	uint64_t a = fmax_t(x, 2 * at, l, mid, ql, qr);
	uint64_t b = fmax_t(x, 2 * at + 1, mid, r, ql, qr);
	return a > b ? a : b;
}

static void fbuild(struct exact *x, uint32_t at, uint32_t l, uint32_t r)
{
	struct fnode *nd = &x->ft[at];
	memset(nd, 0, sizeof(*nd));
	if (r - l == 1) {
		nd->t = nd->ft = x->sec_total0[l];
		return;
	}
	uint32_t mid = l + (r - l) / 2;
	fbuild(x, 2 * at, l, mid);
	fbuild(x, 2 * at + 1, mid, r);
	nd->t = x->ft[2 * at].t > x->ft[2 * at + 1].t ? x->ft[2 * at].t
						      : x->ft[2 * at + 1].t;
	nd->ft = nd->t;
}

static void ftrail_undo(struct exact *x, size_t mark)
{
	while (x->nftrail > mark) {
		const struct ftrail *e = &x->ftrail[--x->nftrail];
		x->ft[e->at] = e->old;
	}
}

/* The floor of section q (pushing pending tags down, with the trail). */
static uint64_t ffloor(struct exact *x, uint32_t q)
{
	uint32_t at = 1, l = 0, r = (uint32_t)x->nsec;
	while (r - l > 1) {
		fpush(x, at);
		uint32_t mid = l + (r - l) / 2;
		if (q < mid) {
			at = 2 * at;
			r = mid;
		} else {
			at = 2 * at + 1;
			l = mid;
		}
	}
	return x->ft[at].ft - x->ft[at].t;
}

/*
 * The energy test of raise_floor() on en[0..k), the starts above its
 * cut-off with their bytes (sum of them, vmax the highest start): fails
 * (returns 1) when the bytes starting at or above some start v do not fit
 * in [v, cap).  A start v can fail only if v > cap - (bytes starting at
 * or above v) >= cap - sum: the starts at or below cap - sum are dropped,
 * and again with the smaller sum.  Where that drops nothing, the lowest
 * start v left has every byte left at or above it, and v + sum > cap: it
 * fails, so no sort is needed to find it.  Reorders en.
 */
static int energy_fails(const struct exact *x, struct energy *en, size_t k,
			uint64_t sum, uint64_t vmax)
{
	while (k > 1 && vmax + sum > x->cap) {
		size_t w = 0;
		uint64_t keep = 0;
		for (size_t i = 0; i < k; i++)
			if (en[i].start + sum > x->cap) {
				keep += en[i].bytes;
				en[w++] = en[i];
			}
		if (w == k)
			return 1;
		k = w;
		sum = keep;
	}
	return 0;
}

static int energy_whole(struct exact *x, uint32_t q, uint64_t o);

/* dfs() reads the clock after this many members scanned by raise_floor()
 * (a few ms), whatever the nodes */
#define SCAN_CLOCK (UINT64_C(1) << 20)

/*
 * Unallocated floor: every item still to place in section q goes at or
 * above its minimum offset, so the section's floor rises to the lowest of
 * them (MiniMalloc's strongest bound at tight capacities).  Energy: for
 * every start v, the items of q that cannot start below v (minimum offset,
 * or the current offset o: offsets never decrease) must fit in [v, cap).
 * Returns -1 when that fails (the node is dead), else 0.
 */
static int raise_floor(struct exact *x, uint32_t q, uint32_t stamp,
		       uint64_t o)
{
	if (x->secstamp[q] == stamp)
		return 0;
	x->secstamp[q] = stamp;
	x->scanned += x->nun[q];
	if (x->lazy)
		return energy_whole(x, q, o);
	uint64_t mu = NONE, vmax = 0, sum = 0;
	/* starts at or below this pass with any sum (sum <= unplaced) */
	uint64_t keep_above = x->cap > x->unpl[q] ? x->cap - x->unpl[q] : 0;
	if (keep_above < o)
		keep_above = o;
	size_t k = 0;
	struct energy *en = x->energy; /* locals: the stores may alias x */
	const uint64_t *minoff = x->minoff;
	const struct member *me = x->secmem + x->sec0[q],
			    *end = me + x->nun[q];
	for (; me < end; me++) {
		uint64_t v = minoff[me->item] + me->lo;
		if (v < mu)
			mu = v;
		/* Items that may start at o weigh in at start o only, which
		 * o + the section's unplaced bytes already bounds; items of
		 * several pieces are left out, which is safe.  Starts v with
		 * v + unplaced <= cap never fail and would be dropped by
		 * the first pass below: dropped here. */
		if (v <= keep_above || !me->ebytes)
			continue;
		en[k++] = (struct energy){ v, me->ebytes };
		sum += me->ebytes;
		if (v > vmax)
			vmax = v;
	}
	if (energy_fails(x, en, k, sum, vmax))
		return -1;
	if (mu == NONE || mu <= ffloor(x, q))
		return 0;
	fupdate(x, 1, 0, (uint32_t)x->nsec, q, q + 1, 0, 1, mu);
	return 0;
}

/*
 * raise_floor()'s energy test where no item has holes (x->lazy): every
 * member is a whole item (start its minimum offset, bytes its size) and
 * no floor is raised (see raise_moved()).  The scan reads the items of
 * secitem[] (4 bytes a member, not secmem's 24) and stores nothing
 * unless the starts above the cut-off, at their highest with all their
 * bytes, could overflow: four calls in five end there on MiniMalloc's D
 * and J.  Returns -1 (the node is dead) or 0, as raise_floor().
 */
static int energy_whole(struct exact *x, uint32_t q, uint64_t o)
{
	uint64_t keep_above = x->cap > x->unpl[q] ? x->cap - x->unpl[q] : 0;
	if (keep_above < o)
		keep_above = o;
	const uint64_t *minoff = x->minoff, *isize = x->isize;
	const uint32_t *it = x->secitem + x->sec0[q], *end = it + x->nun[q];
	uint64_t vmax = 0, sum = 0;
	size_t k = 0;
	for (const uint32_t *i = it; i < end; i++) {
		uint64_t v = minoff[*i];
		if (v > keep_above && isize[*i]) {
			sum += isize[*i];
			vmax = v > vmax ? v : vmax;
			k++;
		}
	}
	if (k < 2 || vmax + sum <= x->cap)
		return 0;
	struct energy *en = x->energy;
	k = 0;
	for (const uint32_t *i = it; i < end; i++) {
		uint64_t v = minoff[*i];
		if (v > keep_above && isize[*i])
			en[k++] = (struct energy){ v, isize[*i] };
	}
	return energy_fails(x, en, k, sum, vmax);
}

/* raise_floor() over every section item i covers. */
static int raise_floors(struct exact *x, uint32_t i, uint32_t stamp,
			uint64_t o)
{
	for (size_t q = x->cov0[i]; q < x->cov0[i + 1]; q++)
		for (uint32_t z = x->cov[q].sa; z < x->cov[q].sb; z++)
			if (raise_floor(x, z, stamp, o))
				return -1;
	return 0;
}

/*
 * raise_floors() for a node of a problem without holes, visiting only the
 * sections where the node can fail: those where moved item j (its
 * minimum offset just rose) starts at v with v + the section's unplaced
 * bytes above the capacity.  The same nodes die as when every section b
 * and the moved items cover is scanned.  Every section passes the energy
 * bound at the root (all starts 0, cap >= every section total) and, by
 * induction, at the parent: for starts above the parent's offset by its
 * scan, at or below it by the parent's o + unplaced-bytes test.  Placing b
 * only takes bytes away, so a start v can newly fail only if some item's
 * start rose past it: a moved j with v <= v_j, and then v_j + unplaced
 * >= v + S(v) > cap.  A floor raised to the lowest start mu in a
 * section prunes only if mu + unplaced > cap, which (every unplaced item
 * there starting at or above mu, whole, since nothing has holes) is the
 * energy bound failing at mu, or at o when mu <= o, which the o +
 * unplaced test has caught.  A floor raised at one node matters at that
 * node only (the bytes and starts under it hold until a later node
 * touches the section, and that node raises it afresh), so skipping the
 * raises elsewhere changes no decision.  D of MiniMalloc's suite scans
 * 39% of the sections it did, J 17%.  A section whose pieces are all a
 * neighbour's (sub[], build()) is skipped too: a start failing there
 * fails in that neighbour with at least its bytes, which holds moved j
 * as well, and so on to a section that no neighbour holds (the chain
 * ends: each step keeps or grows the set, and grows it going left), so
 * the same nodes die (J: a fifth of its sections are skipped).
 */
static int raise_moved(struct exact *x, uint32_t j, uint32_t stamp,
		       uint64_t o)
{
	for (size_t q = x->cov0[j]; q < x->cov0[j + 1]; q++) {
		const struct cover *c = &x->cov[q];
		uint64_t v = x->minoff[j] + c->lo;
		for (uint32_t z = c->sa; z < c->sb; z++)
			if (!x->sub[z] && v + x->unpl[z] > x->cap &&
			    raise_floor(x, z, stamp, o))
				return -1;
	}
	return 0;
}

/*
 * The most unplaced bytes in sections [a, b).  Without holes no floor is
 * raised (see raise_moved()), so the floor tree's only other use is this:
 * a scan of the plain array costs less than its pushes and trail.
 */
static uint64_t unpl_max(const struct exact *x, uint32_t a, uint32_t b)
{
	const uint64_t *u = x->unpl;
	uint64_t m = 0;
	for (uint32_t z = a; z < b; z++)
		m = u[z] > m ? u[z] : m;
	return m;
}

/* Cut tree: min with lazy add over boundaries [0, nb). */
static void cadd(struct exact *x, uint32_t at, uint32_t l, uint32_t r,
		 uint32_t ql, uint32_t qr, int32_t d)
{
	if (qr <= l || r <= ql)
		return;
	if (ql <= l && r <= qr) {
		x->cmin[at] += d;
		x->cadd_[at] += d;
		return;
	}
	uint32_t mid = l + (r - l) / 2;
	cadd(x, 2 * at, l, mid, ql, qr, d);
	cadd(x, 2 * at + 1, mid, r, ql, qr, d);
	int32_t a = x->cmin[2 * at], b = x->cmin[2 * at + 1];
	x->cmin[at] = (a < b ? a : b) + x->cadd_[at];
}

/* Appends to out every boundary in [ql, qr) whose count is 0. */
static void czeros(struct exact *x, uint32_t at, uint32_t l, uint32_t r,
		   uint32_t ql, uint32_t qr, int32_t above, uint32_t *out,
		   size_t *n)
{
	if (qr <= l || r <= ql || x->cmin[at] + above > 0)
		return;
	if (r - l == 1) {
		out[(*n)++] = l;
		return;
	}
	uint32_t mid = l + (r - l) / 2;
	above += x->cadd_[at];
	czeros(x, 2 * at, l, mid, ql, qr, above, out, n);
	czeros(x, 2 * at + 1, mid, r, ql, qr, above, out, n);
}


static int key_less(const struct exact *x, uint32_t a, uint32_t b)
{
	if (x->minoff[a] != x->minoff[b])
		return x->minoff[a] < x->minoff[b];
	return x->rank[a] < x->rank[b];
}

static _Thread_local const struct exact *moved_ctx;

static int moved_cmp(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	if (key_less(moved_ctx, i, j))
		return -1;
	return key_less(moved_ctx, j, i);
}

/* Sorts the items whose minimum offset just rose by (offset, rank). */
static void sort_moved(const struct exact *x, uint32_t *v, size_t k)
{
	if (k > 24) {
		moved_ctx = x;
		qsort(v, k, sizeof(*v), moved_cmp);
		return;
	}
	for (size_t i = 1; i < k; i++) {
		uint32_t u = v[i];
		size_t at = i;
		while (at && key_less(x, u, v[at - 1])) {
			v[at] = v[at - 1];
			at--;
		}
		v[at] = u;
	}
}

/* The first and the last of sections [a, b) with m unplaced bytes, m
 * their most (unpl_max()). */
static void unpl_max_where(const struct exact *x, uint32_t a, uint32_t b,
			   uint64_t m, uint32_t *first, uint32_t *last)
{
	uint32_t z = a, y = b - 1;
	while (z < y && x->unpl[z] != m)
		z++;
	while (y > z && x->unpl[y] != m)
		y--;
	*first = z;
	*last = y;
}

/* --- the node ---------------------------------------------------------- */

static void report_progress(struct exact *x, double now)
{
	if (!x->opt->progress || now < x->next_progress)
		return;
	x->next_progress = now + 0.25;
	struct solver_progress pr = { x->progress_best, x->progress_lb,
				      x->nodes, now };
	if (x->duo_best) {
		uint64_t other = atomic_load(x->duo_best);
		if (other < pr.best)
			pr.best = other;
		pr.nodes += atomic_load(x->duo_nodes);
	}
	x->opt->progress(x->opt->progress_ctx, &pr);
}

/*
 * Solves a part of the time axis on its own, items[0..m) sorted by
 * (minimum offset, rank).  In a long run of a plain preorder the part's items
 * are ranked afresh, as MiniMalloc does when it splits: by the same
 * preorder with T taken from the bytes left unplaced in their sections,
 * not from the whole problem (their old ranks come back afterwards).
 * Any rank order keeps the search complete.  Where the node orders have no
 * room for the saved ranks, the old ranks stay.
 */
static int dfs_part(struct exact *x, uint32_t s0, uint32_t s1,
		    uint32_t *items, size_t m)
{
	if (!x->replan || m < 2 || x->top + 3 * m > x->order_cap)
		return dfs(x, s0, s1, items, m, 0, 0);
	uint32_t *ids = x->order + x->top, *old = ids + m, *by = old + m;
	size_t save_top = x->top;
	x->top += 3 * m;
	for (size_t k = 0; k < m; k++) {
		uint32_t i = items[k];
		ids[k] = by[k] = i;
		old[k] = x->rank[i];
		x->tnow[i] = x->lazy ? unpl_max(x, x->span[i].sa, x->span[i].sb)
				     : fmax_t(x, 1, 0, (uint32_t)x->nsec,
					      x->span[i].sa, x->span[i].sb);
	}
	sort_ctx = x;
	sort_tnow = 1;
	qsort(by, m, sizeof(*by), pre_cmp);
	sort_tnow = 0;
	for (size_t k = 0; k < m; k++)
		x->rank[by[k]] = (uint32_t)k;
	sort_moved(x, items, m);
	x->top -= m; /* by */
	int r = dfs(x, s0, s1, items, m, 0, 0);
	for (size_t k = 0; k < m; k++)
		x->rank[ids[k]] = old[k];
	x->top = save_top;
	return r;
}

/*
 * Splits child[0..m) (unplaced items, sorted) at the boundaries of
 * [s0, s1) that no unplaced item crosses any more, and solves each part on
 * its own: parts share no time, so their canonical orders restart.
 */
static int solve_parts(struct exact *x, uint32_t s0, uint32_t s1,
		       uint32_t *child, size_t m)
{
	uint32_t *cut = x->cutlist + x->ncut;
	size_t nc = 0;
	if (s1 > s0 + 1)
		czeros(x, 1, 0, x->nb, s0, s1 - 1, 0, cut, &nc);
	if (nc == 0)
		return -1;
	for (size_t i = 0; i < nc; i++)
		cut[i]++; /* boundary s splits before section s + 1 */
	size_t save = x->ncut;
	x->ncut += nc;
	/* stable counting sort of child by part, through scratch */
	uint32_t *part = x->scratch;
	size_t *count = x->partcount + 3 * save; /* nc + 2 entries */
	memset(count, 0, (nc + 2) * sizeof(*count));
	for (size_t k = 0; k < m; k++) {
		uint32_t sa = x->span[child[k]].sa;
		size_t lo = 0, hi = nc;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (cut[mid] <= sa)
				lo = mid + 1;
			else
				hi = mid;
		}
		part[k] = (uint32_t)lo;
		count[lo + 1]++;
	}
	for (size_t i = 1; i <= nc + 1; i++)
		count[i] += count[i - 1];
	if (x->top + m > x->order_cap) {
		/* the stack of node orders is full (the parts of a split
		 * node copy theirs on top of the node's): a stop, as when a
		 * trail reaches its cap, not a failure */
		x->nomem = x->memstop = 1;
		return ABORTED;
	}
	uint32_t *tmp = x->order + x->top;
	x->top += m;
	size_t *at = count;
	for (size_t k = 0; k < m; k++)
		tmp[at[part[k]]++] = child[k];
	memcpy(child, tmp, m * sizeof(*child));
	x->top -= m;
	/* at[i] now ends part i; parts start at the previous end */
	int r = FOUND;
	size_t start = 0;
	for (size_t i = 0; i <= nc && r == FOUND; i++) {
		size_t end = at[i];
		uint32_t a = i ? cut[i - 1] : s0, b = i < nc ? cut[i] : s1;
		if (end > start)
			r = dfs_part(x, a, b, child + start, end - start);
		start = end;
	}
	x->ncut = save;
	return r;
}

/*
 * Moves placed item b out of the unplaced members of its sections (swapped
 * to the end of each section's unplaced block), so that raise_floor() scans
 * only the unplaced.  members_unplace() undoes it: with undos in reverse
 * order, b is then right after the block.
 */
static void members_place(struct exact *x, uint32_t b)
{
	for (size_t q = x->cov0[b]; q < x->cov0[b + 1]; q++) {
		const struct cover *c = &x->cov[q];
		for (uint32_t z = c->sa; z < c->sb; z++) {
			size_t *pos = &x->mpos[x->mbase[q] + z - c->sa];
			size_t last = x->sec0[z] + --x->nun[z], at = *pos;
			x->unpl[z] -= c->hi - c->lo;
			struct member t = x->secmem[last];
			x->mpos[x->mbase[t.piece] + z - x->cov[t.piece].sa] = at;
			x->secmem[last] = x->secmem[at];
			x->secmem[at] = t;
			x->secitem[last] = x->secmem[last].item;
			x->secitem[at] = t.item;
			*pos = last;
		}
	}
}

static void members_unplace(struct exact *x, uint32_t b)
{
	for (size_t q = x->cov0[b]; q < x->cov0[b + 1]; q++)
		for (uint32_t z = x->cov[q].sa; z < x->cov[q].sb; z++) {
			x->nun[z]++;
			x->unpl[z] += x->cov[q].hi - x->cov[q].lo;
		}
}

/* Whether none of i's neighbours is unplaced: i then keeps its minimum
 * offset for ever (a scan that usually stops at the first neighbour). */
static int settled_item(const struct exact *x, uint32_t i)
{
	for (size_t e = x->adj0[i]; e < x->adj0[i + 1]; e++)
		if (x->off[x->adj[e].to] == NONE)
			return 0;
	return 1;
}

/*
 * Without holes (x->lazy), whether whole item b placed at o leaves the
 * floor tree's tests passing, asked before b is placed: b's sections then
 * hold b's top and their unplaced bytes less b's, at most o + their most
 * now; every other section of the part [s0, s1) keeps its bytes above
 * the floor o.  t0 is the part's most unplaced bytes now; *tlo and *thi
 * the first and last section holding it, found on first need (UINT32_MAX
 * until then).  Most candidates of MiniMalloc's D and J end here (J: 87%),
 * before their neighbours are scanned and their sections updated.
 */
static int fits_whole(const struct exact *x, uint32_t b, uint64_t o,
		      uint32_t s0, uint32_t s1, uint64_t t0, uint32_t *tlo,
		      uint32_t *thi)
{
	uint32_t sa = x->span[b].sa, sb = x->span[b].sb;
	if (o + unpl_max(x, sa, sb) > x->cap)
		return 0;
	if (o + t0 <= x->cap)
		return 1;
	/* the part's most stays t0 when a section holding it lies outside
	 * b's: no scan then */
	if (*tlo == UINT32_MAX)
		unpl_max_where(x, s0, s1, t0, tlo, thi);
	if (*tlo < sa || *thi >= sb)
		return 0;
	uint64_t a = unpl_max(x, s0, sa), c = unpl_max(x, sb, s1);
	return o + (a > c ? a : c) <= x->cap;
}

/*
 * One node: order[0..m) are the unplaced items of a part of the time axis
 * (sections [s0, s1)), sorted by (minimum offset, rank).  last_off and
 * last_rank: the key of the item placed just before in this part.
 * Returns FOUND (x->sol holds every placed item), NOTFOUND or ABORTED.
 */
static int dfs(struct exact *x, uint32_t s0, uint32_t s1, uint32_t *order,
	       size_t m, uint64_t last_off, uint32_t last_rank)
{
	if (m == 0)
		return FOUND;
	if (x->nomem || ++x->nodes > x->node_budget)
		return ABORTED;
	if (x->nodes >= x->phase_nodes) {
		x->timed_out = 1;
		return ABORTED;
	}
	if ((x->nodes & x->clock_mask) == 0 || x->scanned > SCAN_CLOCK) {
		x->scanned = 0;
		double now = elapsed(x);
		if (now > x->deadline ||
		    (x->halt && atomic_load_explicit(x->halt,
						     memory_order_relaxed))) {
			x->timed_out = 1;
			return ABORTED;
		}
		report_progress(x, now);
	}
	uint64_t minh = NONE;
	for (size_t k = 0; k < m; k++) {
		uint32_t u = order[k];
		uint64_t h = x->minoff[u] + x->isize[u];
		if (h < minh)
			minh = h;
	}
	if (x->top + m > x->order_cap) {
		x->nomem = x->memstop = 1; /* a stop, as above */
		return ABORTED;
	}
	size_t save_top = x->top;
	uint32_t *child = x->order + x->top;
	x->top += m;
	int result = NOTFOUND;
	/* Placing one item lowers a section's unplaced bytes by its size at
	 * most: a cheap test before the updates. */
	uint32_t tlo = UINT32_MAX, thi = 0; /* where t0 is, when needed */
	uint64_t t0 = x->lazy ? unpl_max(x, s0, s1)
			      : fmax_t(x, 1, 0, x->nsec, s0, s1);
	for (size_t k = 0; k < m; k++) {
		uint32_t b = order[k];
		uint64_t o = x->minoff[b];
		int settled = settled_item(x, b);
		if (o >= minh)
			break; /* dominance: would leave a gap (sorted by o) */
		if (o < last_off || (o == last_off && x->rank[b] < last_rank)) {
			if (settled)
				break;
			continue; /* not canonical now */
		}
		uint64_t bsize = x->isize[b];
		if (o + bsize > x->cap || (t0 > bsize && o + t0 - bsize > x->cap) ||
		    (x->lazy && !fits_whole(x, b, o, s0, s1, t0, &tlo, &thi))) {
			if (settled)
				break;
			continue;
		}
		size_t mark = x->nlog;
		int ok = 1;
		x->off[b] = o;
		members_place(x, b);
		x->sol[b] = o;
		uint32_t stamp = ++x->stampno;
		size_t nmv = 0;
		const uint32_t *nbr = x->nbr;
		for (size_t e = x->adj0[b]; e < x->adj0[b + 1]; e++) {
			uint32_t j = nbr[e];
			uint64_t need = x->flat ? o + bsize
				      : align_up(o + x->adj[e].delta,
						 x->ialign[j]);
			if (need <= x->minoff[j] || x->off[j] != NONE)
				continue;
			if (log_push(x, j, x->minoff[j])) {
				ok = 0;
				continue;
			}
			x->minoff[j] = need;
			x->stamp[j] = stamp;
			x->movedlist[nmv++] = j;
			if (need + x->isize[j] > x->cap)
				ok = 0;
		}
		size_t ftmark = x->nftrail;
		if (!x->lazy) {
			for (size_t q = x->cov0[b]; q < x->cov0[b + 1]; q++) {
				const struct cover *cv = &x->cov[q];
				fupdate(x, 1, 0, x->nsec, cv->sa, cv->sb,
					-(int64_t)(cv->hi - cv->lo), 1,
					o + cv->hi);
			}
			if (ok && (x->ft[1].ft > x->cap ||
				   o + fmax_t(x, 1, 0, (uint32_t)x->nsec, s0,
					      s1) > x->cap))
				ok = 0; /* cheap tests first */
		}
		if (ok && x->lazy) {
			for (size_t k2 = 0; ok && k2 < nmv; k2++)
				if (raise_moved(x, x->movedlist[k2], stamp, o))
					ok = 0;
		} else if (ok) {
			if (raise_floors(x, b, stamp, o))
				ok = 0;
			for (size_t k2 = 0; ok && k2 < nmv; k2++)
				if (raise_floors(x, x->movedlist[k2], stamp, o))
					ok = 0;
		}
		/* raised floors leave the unplaced bytes as they were */
		if (x->nomem || (!x->lazy && x->ft[1].ft > x->cap))
			ok = 0;
		/* b no longer crosses its boundaries: where none is crossed
		 * any more, the rest splits (only for a node that lives) */
		uint32_t ca = x->span[b].sa, cb = x->span[b].sb - 1;
		int split = 0, cut = ok && cb > ca;
		if (cut) {
			cadd(x, 1, 0, x->nb, ca, cb, -1);
			size_t nz = 0;
			czeros(x, 1, 0, x->nb, ca, cb, 0, x->cutlist + x->ncut,
			       &nz);
			split = nz > 0;
		}
		int r = NOTFOUND;
		if (ok) {
			/* Child order: unmoved items keep their order; moved
			 * ones are sorted apart and merged in from the back. */
			uint32_t *moved = x->scratch;
			size_t nk = 0, mv = 0;
			for (size_t q = 0; q < m; q++) {
				uint32_t u = order[q];
				if (u == b)
					continue;
				if (x->stamp[u] == stamp)
					moved[mv++] = u;
				else
					child[nk++] = u;
			}
			sort_moved(x, moved, mv);
			size_t i1 = nk, i2 = mv, w = nk + mv;
			while (i2) {
				if (i1 && key_less(x, moved[i2 - 1], child[i1 - 1]))
					child[--w] = child[--i1];
				else
					child[--w] = moved[--i2];
			}
			r = split ? solve_parts(x, s0, s1, child, m - 1) : -1;
			if (r < 0)
				r = dfs(x, s0, s1, child, m - 1, o, x->rank[b]);
		}
		if (cut)
			cadd(x, 1, 0, x->nb, ca, cb, 1);
		ftrail_undo(x, ftmark);
		log_undo(x, mark);
		members_unplace(x, b);
		x->off[b] = NONE;
		if (x->nomem) {
			result = ABORTED; /* no other candidate either */
			break;
		}
		if (r != NOTFOUND) {
			result = r;
			break;
		}
		if (settled)
			break;
	}
	x->top = save_top;
	return result;
}

/* --- decisions --------------------------------------------------------- */

/* Resets the search state of component c for a fresh run. */
static void reset_comp(struct exact *x, const struct comp *c)
{
	for (size_t k = 0; k < c->n; k++) {
		uint32_t i = c->items[k];
		x->minoff[i] = 0;
		x->off[i] = NONE;
	}
	fbuild(x, 1, 0, x->nsec);
	for (size_t s = 0; s < x->nsec; s++)
		x->nun[s] = x->sec0[s + 1] - x->sec0[s];
	memcpy(x->unpl, x->sec_total0, x->nsec * sizeof(*x->unpl));
	memset(x->cmin, 0, 4 * (x->nb + 1) * sizeof(*x->cmin));
	memset(x->cadd_, 0, 4 * (x->nb + 1) * sizeof(*x->cadd_));
	for (size_t k = 0; k < c->n; k++) {
		uint32_t i = c->items[k];
		if (x->span[i].sb > x->span[i].sa + 1)
			cadd(x, 1, 0, x->nb, x->span[i].sa, x->span[i].sb - 1,
			     1);
	}
	x->nlog = 0;
	x->nftrail = 0;
	x->top = 0;
	x->ncut = 0;
}

/* The Luby sequence, i >= 1: 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ... */
static uint64_t luby(uint64_t i)
{
	for (;;) {
		uint64_t k = 1;
		while ((UINT64_C(1) << k) - 1 < i)
			k++;
		if ((UINT64_C(1) << k) - 1 == i)
			return UINT64_C(1) << (k - 1);
		i -= (UINT64_C(1) << (k - 1)) - 1;
	}
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* How far a perturbed preorder may move an item up (positions). */
#define SHUFFLE_WINDOW 8

/*
 * One run on component c with preorder h and at most budget nodes.  A
 * nonzero seed perturbs the preorder: each position in turn swaps with one
 * of the next SHUFFLE_WINDOW - 1, so the run starts from other first
 * choices while keeping the preorder's broad shape.  Any rank order keeps
 * the canonical search complete, so a finished run still proves.
 */
static int run_preorder(struct exact *x, const struct comp *c, int h,
			uint64_t seed, uint64_t budget)
{
	sort_ctx = x;
	sort_pre = h;
	sort_tnow = 0;
	/* parts ranked afresh only past the first unit: F and G of the
	 * suite are solved by short runs that keep the old ranks */
	x->replan = seed == 0 && budget > 2 * (uint64_t)c->n + 64;
	reset_comp(x, c);
	uint32_t *root = x->order;
	x->top = c->n;
	memcpy(root, c->items, c->n * sizeof(*root));
	qsort(root, c->n, sizeof(*root), pre_cmp);
	if (seed) {
		uint64_t s = seed * UINT64_C(0x9E3779B97F4A7C15) + 7;
		for (size_t k = 0; k + 1 < c->n; k++) {
			size_t j = k + xorshift(&s) % SHUFFLE_WINDOW;
			if (j >= c->n)
				j = c->n - 1;
			uint32_t t = root[k];
			root[k] = root[j];
			root[j] = t;
		}
	}
	for (size_t k = 0; k < c->n; k++)
		x->rank[root[k]] = (uint32_t)k;
	x->node_budget = x->nodes + budget;
	return dfs(x, c->s0, c->s1, root, c->n, 0, 0);
}

/*
 * The restarts of a decision at the proven floor: two kinds, each taking
 * the next turn while its share of the nodes spent is below its due.
 * Plain runs are MiniMalloc's round robin: the three preorders as they
 * are, the budget doubling after each round of three.  Luby runs follow
 * the Luby sequence over perturbed preorders (seeded by their number, so
 * the search stays deterministic).  Search trees here have heavy tails: a
 * bad first choice can cost more than starting again from another, which
 * the Luby runs dodge; but some instances need one plain preorder for
 * tens of thousands of nodes, which only doubling budgets reach (E of
 * MiniMalloc's suite: each of its two components is solved at the lower
 * bound by one plain preorder in about 18,000 nodes, by no perturbed run
 * seen, while B is solved by a short perturbed run).  Plain runs get four
 * fifths of the nodes: E needed 210,000 nodes then, against 306,000 and
 * 346,000 with two thirds and one half, while with eight ninths B was no
 * longer solved within 150,000.
 */
#define PLAIN_SHARE 4 /* plain nodes per Luby node */
#define PLAIN_AFTER 32 /* Luby units before the second plain round */

struct sched {
	uint64_t plain, luby;             /* runs of each kind so far */
	uint64_t plain_spent, luby_spent; /* their budgets, in units */
};

/* The next run of the schedule: its preorder, seed and budget in units. */
static void sched_next(struct sched *s, int *h, uint64_t *seed,
		       uint64_t *units)
{
	if (s->plain < NPREORDER ||
	    (s->luby_spent >= PLAIN_AFTER &&
	     s->plain_spent - NPREORDER <=
		     PLAIN_SHARE * (s->luby_spent - PLAIN_AFTER))) {
		uint64_t k = s->plain++, round = k / NPREORDER;
		*h = (int)(k % NPREORDER);
		*seed = 0;
		*units = UINT64_C(1) << (round < 40 ? round : 40);
		s->plain_spent += *units;
	} else {
		uint64_t j = ++s->luby + NPREORDER;
		*h = (int)((j - 1) % NPREORDER);
		*seed = j;
		*units = luby(j);
		s->luby_spent += *units;
	}
}

/*
 * Decides capacity cap for component c: restarts in units of 2n + 64
 * nodes until a run finishes or the deadline passes.  With floor set (the
 * decision at the proven floor, asked again and again) the runs follow
 * sched_next(); otherwise (the climb's decisions, short and at looser
 * capacities, where any preorder does) the Luby sequence over the
 * preorders, the first three as they are and later ones perturbed.  *run:
 * the run to start from (1 for a fresh decision); on return, the run that
 * ended it, so that asking the same capacity again resumes (a cut run
 * starts over, a finished one repeats its answer).  The floor's decision
 * also returns ABORTED between two runs once x->nodes reaches
 * x->turn_end, *run then the next run: its turn is over.
 */
static int decide_comp(struct exact *x, const struct comp *c, uint64_t *run,
		       int floor)
{
	uint64_t unit = 2 * (uint64_t)c->n + 64;
	struct sched s = { 0 };
	int h;
	uint64_t seed, units;
	for (uint64_t i = 1; floor && i < *run; i++)
		sched_next(&s, &h, &seed, &units);
	for (uint64_t i = *run;; i++) {
		*run = i;
		if (floor) {
			sched_next(&s, &h, &seed, &units);
		} else {
			h = (int)((i - 1) % NPREORDER);
			seed = i > NPREORDER ? i : 0;
			units = luby(i);
		}
		int r = run_preorder(x, c, h, seed, unit * units);
		if (r != ABORTED || x->timed_out || x->nomem)
			return r;
		if (floor && x->nodes >= x->turn_end) {
			*run = i + 1; /* the climb's turn */
			return ABORTED;
		}
	}
}

/*
 * Decides capacity cap for the whole problem.  FOUND: x->sol is a full
 * placement (loose items at 0).  NOTFOUND: proven impossible.  ABORTED:
 * out of time, nodes or memory.  runs: per component, where to resume
 * (see decide_comp(); all 1 for a fresh decision), or NULL; 0 once the
 * component is solved, its offsets kept in x->floor_sol, so that asking
 * the same capacity again goes on with the components left.
 */
static int decide(struct exact *x, uint64_t cap, uint64_t *runs)
{
	x->cap = cap;
	x->timed_out = 0;
	for (size_t i = 0; i < x->n; i++) {
		if (x->adj0[i + 1] == x->adj0[i]) {
			if (x->p->items[i].size > cap)
				return NOTFOUND;
			x->sol[i] = 0;
		}
	}
	for (size_t k = 0; k < x->ncomps; k++) {
		const struct comp *c = &x->comps[k];
		uint64_t fresh = 1;
		if (runs && runs[k] == 0) { /* solved before at this capacity */
			for (size_t j = 0; j < c->n; j++)
				x->sol[c->items[j]] = x->floor_sol[c->items[j]];
			continue;
		}
		int r = decide_comp(x, c, runs ? &runs[k] : &fresh,
				    runs != NULL);
		if (r != FOUND)
			return r;
		if (runs) {
			for (size_t j = 0; j < c->n; j++)
				x->floor_sol[c->items[j]] = x->sol[c->items[j]];
			runs[k] = 0;
		}
	}
	return FOUND;
}

/* --- minimisation ------------------------------------------------------ */

static uint64_t height_of(const struct solver_problem *p, const uint64_t *o)
{
	uint64_t h = 0;
	for (size_t i = 0; i < p->n; i++)
		if (o[i] + p->items[i].size > h)
			h = o[i] + p->items[i].size;
	return h;
}

/* The arrays a search changes, with their lengths (see exact_clone()). */
#define EXACT_OWN(X)                                                         \
	X(secmem, x->sec0[x->nsec] + 1) X(nun, x->nsec + 1)                  \
	X(secitem, x->sec0[x->nsec] + 1)                                     \
	X(unpl, x->nsec + 1) X(mpos, x->sec0[x->nsec] + 1)                   \
	X(secstamp, x->nsec + 1) X(energy, x->n + 1) X(movedlist, x->n + 1)  \
	X(minoff, x->n + 1) X(off, x->n + 1) X(rank, x->n + 1)               \
	X(stamp, x->n + 1) X(order, x->order_cap) X(scratch, x->n + 1)       \
	X(cutlist, x->nsec + 1) X(partcount, 3 * x->nsec + 8)                \
	X(ft, 4 * (x->nsec + 1)) X(cmin, 4 * (x->nb + 1))                    \
	X(cadd_, 4 * (x->nb + 1)) X(sol, x->n + 1) X(tnow, x->n + 1)         \
	X(floor_sol, x->n + 1)

/* Bytes of the arrays exact_clone() copies. */
static uint64_t exact_own_bytes(const struct exact *x)
{
	uint64_t n = 0;
#define SIZE_OWN(f, count) n += (uint64_t)(count) * sizeof(*x->f);
	EXACT_OWN(SIZE_OWN)
#undef SIZE_OWN
	return n;
}

static void exact_free_own(struct exact *x)
{
#define FREE_OWN(f, count) free(x->f);
	EXACT_OWN(FREE_OWN)
#undef FREE_OWN
	free(x->log);
	free(x->ftrail);
}

static void exact_free(struct exact *x)
{
	free(x->adj0);
	free(x->adj);
	free(x->cov0);
	free(x->cov);
	free(x->sec_total0);
	free(x->sec0);
	free(x->mbase);
	free(x->sub);
	free(x->comp_items);
	free(x->comps);
	for (int k = 0; k < 3; k++)
		free(x->key[k]);
	free(x->isize);
	free(x->ialign);
	free(x->nbr);
	free(x->span);
	exact_free_own(x);
}

/*
 * A second search over the same problem: the static data shared with x,
 * the arrays a search changes copied (empty undo trails).  Free it with
 * exact_free_own().  Returns 0 or -1 (out of memory, d freed).
 */
static int exact_clone(struct exact *d, const struct exact *x)
{
	*d = *x;
	d->log = NULL;
	d->nlog = d->caplog = 0;
	d->ftrail = NULL;
	d->nftrail = d->capftrail = 0;
#define CLEAR_OWN(f, count) d->f = NULL;
	EXACT_OWN(CLEAR_OWN)
#undef CLEAR_OWN
	int ok = 1;
#define COPY_OWN(f, count)                                                   \
	if (ok && (d->f = malloc((count) * sizeof(*d->f))) != NULL)          \
		memcpy(d->f, x->f, (count) * sizeof(*d->f));                 \
	else                                                                 \
		ok = 0;
	EXACT_OWN(COPY_OWN)
#undef COPY_OWN
	if (ok)
		return 0;
	exact_free_own(d);
	return -1;
}

/*
 * The two searches of minimise().  The floor asks for the proven lower
 * bound itself, again and again (resumed, not restarted: see decide()).
 * The climb starts from the floor: a quarter of the way to the best
 * height first, then steps that double, never past half way, so it ends
 * in bisection; lo rises past every capacity whose slice ran out, and
 * when it meets the best height the climb starts again from the floor
 * with twice the slice.  Whether a decision is quick or hopeless is not
 * monotone in the capacity (loose ones prune little), hence slices
 * rather than the whole time for any one capacity.  An exhausted search
 * at C proves that nothing reaches C, which raises the floor.
 */
struct shared {
	uint64_t best, proven; /* height found, floor proven */
	uint64_t *runs;        /* the floor's, per component (decide()) */
	uint64_t *offsets;     /* the placement of height best */
};

struct task {
	struct exact *x;
	int floor;                /* the floor, or else the climb */
	struct shared *sh;
	uint64_t g;               /* heights are multiples of g */
	uint64_t lo, step, slice; /* the climb */
	uint64_t give;            /* the floor's turn: nodes, then
				   * the run it is in */
	uint64_t used;            /* nodes spent */
	uint64_t paid;            /* used when it last lowered best or
				   * raised proven, 0 if never */
	uint64_t charged;         /* the turns: used, weighted (turn()) */
	int fixed;                /* counted work: the fixed shares, the floor
				   * two thirds and its slice doubled when it
				   * cuts a run (the plans --deterministic
				   * gave before the turns followed who pays) */
};

enum { STEP_ON, STEP_SKIP, STEP_OVER, STEP_NOMEM };

static uint64_t climb_step(uint64_t best, uint64_t proven, uint64_t g)
{
	uint64_t step = (best - proven) / 4 / g * g;
	return step < g ? g : step;
}

/*
 * One slice of task t: STEP_ON, STEP_SKIP (the climb has nothing to ask
 * but the floor), STEP_OVER (a trail reached its cap: keep the best) or
 * STEP_NOMEM.
 */
static int task_step(struct task *t)
{
	struct exact *x = t->x;
	struct shared *sh = t->sh;
	uint64_t g = t->g, cap, give;
	uint64_t *runs = NULL;
	if (t->floor) {
		cap = sh->proven;
		runs = sh->runs;
		give = t->give;
	} else {
		/* a round's first question still has the last round's
		 * slice (as the turns have always had it) */
		give = t->slice;
		if (t->lo < sh->proven)
			t->lo = sh->proven;
		if (t->lo >= sh->best) {
			t->lo = sh->proven;
			t->slice *= 2;
			t->step = climb_step(sh->best, sh->proven, g);
		}
		uint64_t half = (sh->best - t->lo) / g / 2 * g;
		cap = t->lo + (t->step < half ? t->step : half);
		if (cap == sh->proven)
			return STEP_SKIP;
	}
	/* the climb's questions are cut at the end of the slice; the
	 * floor's turn ends between runs, so that none is cut and started
	 * over (a turn may pass its nodes by the run it is in, which
	 * sched_next() keeps small beside what the floor has spent) */
	uint64_t end = x->max_nodes - x->nodes > give ? x->nodes + give
						      : x->max_nodes;
	x->phase_nodes = t->floor && !t->fixed ? x->max_nodes : end;
	x->turn_end = t->floor && !t->fixed ? end : UINT64_MAX;
	uint64_t before = x->nodes;
	int d = decide(x, cap, runs);
	t->used += x->nodes - before;
	if (x->duo_nodes && !t->floor)
		atomic_store(x->duo_nodes, x->nodes);
	if (x->memstop)
		return STEP_OVER;
	if (x->nomem)
		return STEP_NOMEM;
	if (d == FOUND) {
		uint64_t h = height_of(x->p, x->sol);
		if (h < sh->best) {
			t->paid = t->used;
			sh->best = h;
			memcpy(sh->offsets, x->sol, x->n * sizeof(*sh->offsets));
		}
		x->progress_best = sh->best;
		if (x->duo_best && !t->floor)
			atomic_store(x->duo_best, sh->best);
	} else if (d == NOTFOUND) {
		if (cap + g > sh->proven) {
			t->paid = t->used;
			sh->proven = cap + g;
			for (size_t k = 0; sh->runs && k < x->ncomps; k++)
				sh->runs[k] = 1;
		}
		if (sh->proven > sh->best)
			sh->proven = sh->best;
		x->progress_lb = sh->proven;
	} else if (!runs) {
		t->lo = cap + g; /* too hard for now: look higher */
		if (t->step < sh->best)
			t->step *= 2;
	} else if (t->fixed && x->nodes >= x->phase_nodes) {
		/* the slice cut a run, which starts over next turn: let the
		 * next slice finish it (the turns keep their shares, so the
		 * climb waits longer instead) */
		t->give *= 2;
	}
	return STEP_ON;
}

/*
 * Whether task t still pays: it lowered the best or raised the floor
 * within the latter half of the nodes it has spent (so an improvement
 * keeps it paying for as many nodes again as it took to reach).
 */
static int task_pays(const struct task *t)
{
	return t->paid && t->used - t->paid < t->paid;
}

/*
 * The next turn when the floor fl and the climb cl take turns on one
 * thread: the task charged less for its nodes so far, each node charged 1
 * to the favoured task and 2 to the other, so the favoured one gets two
 * thirds of the nodes from then on.  The floor is favoured (E, I and K of
 * MiniMalloc's suite are solved at the floor only), unless the climb pays
 * and the floor does not: D and J improve by the climb only, every few
 * tens of thousands of its nodes, and with a third of one core's nodes
 * they ended 1.3% and 0.9% above what two threads reach in 2 s (with two
 * thirds they reach it: planner/placement/README.md, "One core as two").
 * Charging from now on, not recounting the past, keeps a change of favour
 * from handing either a long run of turns to catch up.  The floor's turn
 * ends between two runs of its schedule (decide_comp()), so a turn never
 * cuts a run it would have to start over.
 */
static struct task *turn(struct task *fl, struct task *cl)
{
	if (fl->fixed)
		return fl->used < 2 * cl->used ? fl : cl;
	/* the climb first: its first question improves on the heuristic
	 * at once, which is all a small budget buys (the swap planner's
	 * rescue, RESCUE_WORK in swap_plan.c) */
	return fl->charged < cl->charged ? fl : cl;
}

static void turn_charge(struct task *t, struct task *fl, struct task *cl,
			uint64_t nodes)
{
	struct task *fav = task_pays(cl) && !task_pays(fl) ? cl : fl;
	t->charged += t == fav ? nodes : 2 * nodes;
}

/* Runs task t in slices until it settles, time or work runs out, or the
 * other thread's search settles; settling halts the other. */
static int task_run(struct task *t)
{
	struct exact *x = t->x;
	for (;;) {
		if (t->sh->best <= t->sh->proven) {
			atomic_store(x->halt, 1);
			return STEP_OVER;
		}
		if (atomic_load(x->halt) || elapsed(x) >= x->deadline ||
		    x->nodes >= x->max_nodes)
			return STEP_OVER;
		int st = task_step(t);
		if (st == STEP_NOMEM)
			atomic_store(x->halt, 1);
		if (st != STEP_ON)
			return st;
	}
}

struct duo_arg {
	struct task *t;
	int rc;
};

static void *duo_main(void *arg)
{
	struct duo_arg *a = arg;
	a->rc = task_run(a->t);
	return NULL;
}

long solver_cpus(void)
{
#ifdef __linux__
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
#endif
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

/*
 * The floor fl and the climb cl at once, the climb on a copy of x in a
 * second thread: on MiniMalloc's D and J the floor is out of reach and
 * takes most of the time (its tight capacity makes its nodes the dearest),
 * while E and I reach it only with most of the nodes; on two cores each
 * gets one.  The climb keeps its own best and floor (so neither waits for
 * the other); the lower height and the higher floor are kept.  Under a
 * time limit only: the threads' shares of the nodes depend on the
 * machine.  Returns 0, -1 when no thread could start (nothing done), or
 * 1 when out of memory.
 */
static int duo(struct exact *x, struct task *fl, struct task *cl,
	       struct shared *sh, const struct solver_options *opt)
{
	struct exact x2;
	if (exact_clone(&x2, x))
		return -1;
	struct solver_options o2 = *opt;
	o2.progress = NULL; /* the floor reports */
	x2.opt = &o2;
	struct shared sh2 = { sh->best, sh->proven, NULL,
			      malloc((x->n + 1) * sizeof(uint64_t)) };
	if (!sh2.offsets) {
		exact_free_own(&x2);
		return -1;
	}
	atomic_int halt = 0;
	_Atomic uint64_t dbest = sh->best, dnodes = 0;
	x->halt = x2.halt = &halt;
	x->duo_best = x2.duo_best = &dbest;
	x->duo_nodes = x2.duo_nodes = &dnodes;
	x->trail_cap = x2.trail_cap = x->trail_cap / 2; /* four trails */
	cl->x = &x2;
	cl->sh = &sh2;
	struct duo_arg a = { cl, STEP_OVER };
	pthread_t th;
	int rc = 0;
	if (pthread_create(&th, NULL, duo_main, &a) != 0) {
		rc = -1; /* the turns follow, with the floor's slices as they were */
	} else {
		fl->give = UINT64_MAX / 4; /* nothing to take turns with */
		int frc = task_run(fl);
		pthread_join(th, NULL);
		x->nodes += x2.nodes;
		x->memstop |= x2.memstop;
		if (sh2.best < sh->best) {
			sh->best = sh2.best;
			memcpy(sh->offsets, sh2.offsets,
			       x->n * sizeof(*sh->offsets));
		}
		if (sh2.proven > sh->proven)
			sh->proven = sh2.proven;
		if (sh->proven > sh->best)
			sh->proven = sh->best;
		rc = frc == STEP_NOMEM || a.rc == STEP_NOMEM;
	}
	x->halt = NULL;
	x->duo_best = x->duo_nodes = NULL;
	x->trail_cap *= 2;
	cl->x = x;
	cl->sh = sh;
	free(sh2.offsets);
	exact_free_own(&x2);
	return rc;
}

/*
 * The anytime minimisation, from the placement in offsets (height *best),
 * within budget b (its nodes are its work).  Improves offsets in place;
 * fills r->lower_bound (proven), r->optimal, r->timed_out, r->stopped_by,
 * r->nodes.  plan() has checked that p is worth searching and that its
 * structures fit the memory cap and the time and work left.  Returns 0 or a
 * negative code.
 */
static int minimise(const struct solver_problem *p,
		    const struct solver_options *opt, struct solver_budget *b,
		    uint64_t *offsets, uint64_t best, struct solver_report *r,
		    char *err, size_t errlen)
{
	struct exact x = { 0 };
	double limit = b->deadline;
	/* nodes this search may spend (set below, in units of node cost) */
	uint64_t work_total = solver_budget_work_left(b);
	x.p = p;
	x.n = p->n;
	x.opt = opt;
	x.t0 = b->t0;
	x.deadline = limit;
	x.budget = b;
	/*
	 * A node costs time in proportion to the items and sections it scans:
	 * read the clock about every 64k item-visits, not every 256 nodes, so
	 * that a deadline on thousands of buffers passes by milliseconds,
	 * not seconds (a read of the monotonic clock is tens of ns).
	 */
	x.clock_mask = 255;
	while (x.clock_mask && (x.clock_mask + 1) * p->n > 65536)
		x.clock_mask >>= 1;
	/* and after SCAN_CLOCK members of sections scanned by the floor's
	 * energy test, which a node repeats over every section its buffer
	 * crosses: on 1,807 gapless buffers 32 nodes took up to 0.3 s, past a
	 * --time-limit 5 by as much */
	/*
	 * The undo trails grow with the depth and the neighbours each level
	 * updates (n^2 in the worst case): each may take a quarter of the
	 * memory cap, beyond which the search stops as for time.
	 */
	uint64_t mem_cap = opt->memory_limit ? opt->memory_limit
					     : SOLVER_DEFAULT_MEMORY_LIMIT;
	x.trail_cap = mem_cap / 4;
	/* counted work: a node scans its items, so one on n buffers costs
	 * n / NODE_ITEMS units (at least 1), and a work budget means about
	 * the same time on 200 buffers as on 5,000 */
	uint64_t unit = p->n > NODE_ITEMS ? p->n / NODE_ITEMS : 1;
	if (work_total != UINT64_MAX)
		work_total /= unit;
	x.max_nodes = work_total;
	uint64_t lb = solver_lower_bound_aligned(p), g = 0;
	int windows = 0, fixed = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct solver_item *it = &p->items[i];
		if (it->size > lb)
			lb = it->size;
		/* gravity offsets are sums of sizes, rounded up to alignments
		 * that are not 1 */
		g = solver_gcd(g, it->align > 1 ? solver_gcd(it->size, it->align)
						: it->size);
		if (it->fixed_offset != SOLVER_FREE)
			fixed = 1;
		for (uint32_t k = 0; k < it->nholes; k++)
			if (it->holes[k].win_lo != SOLVER_NO_WINDOW)
				windows = 1;
	}
	if (!g || windows)
		g = 1; /* a window's bytes may start anywhere in its item */
	uint64_t proven = align_up(lb, g); /* no placement is lower */
	if (proven > best)
		proven = best;
	r->lower_bound = proven;
	if (best <= proven || fixed || p->n < 2) {
		r->optimal = best <= proven;
		r->stopped_by = r->optimal ? SOLVER_STOP_LOWER_BOUND
					   : SOLVER_STOP_SKIPPED;
		return 0;
	}
	int rc = build(&x);
	if (rc == 2) { /* the estimate was wrong: keep the heuristic answer */
		r->skipped_components = 1;
		r->stopped_by = SOLVER_STOP_TIME;
		r->timed_out = 1;
		snprintf(r->skipped_why, sizeof(r->skipped_why),
			 "the time limit passed while preparing the search of %zu buffers",
			 p->n);
		exact_free(&x);
		return 0;
	}
	if (rc == 1) { /* too big to search: keep the heuristic answer */
		r->skipped_components = 1;
		r->stopped_by = SOLVER_STOP_SKIPPED;
		snprintf(r->skipped_why, sizeof(r->skipped_why),
			 "the %zu buffers overlap in more than %" PRIu64
			 " pairs, the exact search's limit",
			 p->n, (uint64_t)MAX_EDGES);
		exact_free(&x);
		return 0;
	}
	if (rc)
		goto nomem;
	rc = split(&x);
	if (rc)
		goto nomem;
	size_t biggest = 0, over = 0;
	for (size_t k = 0; k < x.ncomps; k++) {
		if (x.comps[k].n > biggest)
			biggest = x.comps[k].n;
		over += x.comps[k].n > MAX_COMPONENT;
	}
	if (biggest > MAX_COMPONENT) {
		/* the node orders are sized for the biggest: none is searched */
		r->skipped_components = over;
		r->stopped_by = SOLVER_STOP_SKIPPED;
		snprintf(r->skipped_why, sizeof(r->skipped_why),
			 "%zu component%s of overlapping buffers over the exact search's limit of %d buffers (the largest has %zu)",
			 over, over == 1 ? "" : "s", MAX_COMPONENT, biggest);
		exact_free(&x);
		return 0;
	}
	size_t n = p->n;
	for (int k = 0; k < 3; k++)
		x.key[k] = malloc((n + 1) * sizeof(uint64_t));
	x.minoff = malloc((n + 1) * sizeof(*x.minoff));
	x.isize = malloc((n + 1) * sizeof(*x.isize));
	x.ialign = malloc((n + 1) * sizeof(*x.ialign));
	if (!x.isize || !x.ialign)
		goto nomem;
	x.nbr = malloc((x.adj0[n] + 1) * sizeof(*x.nbr));
	if (!x.nbr)
		goto nomem;
	x.flat = 1;
	for (size_t i = 0; i < n; i++) {
		x.isize[i] = p->items[i].size;
		x.ialign[i] = p->items[i].align;
		if (x.ialign[i] > 1)
			x.flat = 0;
		for (size_t e = x.adj0[i]; e < x.adj0[i + 1]; e++) {
			x.nbr[e] = x.adj[e].to;
			if (x.adj[e].delta != x.isize[i])
				x.flat = 0;
		}
	}
	x.off = malloc((n + 1) * sizeof(*x.off));
	x.nb = x.nsec > 1 ? (uint32_t)x.nsec - 1 : 1;
	x.ft = calloc(4 * (x.nsec + 1), sizeof(*x.ft));
	x.cmin = calloc(4 * (x.nb + 1), sizeof(*x.cmin));
	x.cadd_ = calloc(4 * (x.nb + 1), sizeof(*x.cadd_));
	x.rank = malloc((n + 1) * sizeof(*x.rank));
	x.stamp = calloc(n + 1, sizeof(*x.stamp));
	x.order_cap = (biggest + 1) * (biggest + 2) / 2 + 4 * biggest + 8;
	x.order = malloc(x.order_cap * sizeof(*x.order));
	x.sol = malloc((n + 1) * sizeof(*x.sol));
	x.tnow = malloc((n + 1) * sizeof(*x.tnow));
	x.floor_sol = malloc((n + 1) * sizeof(*x.floor_sol));
	x.scratch = malloc((n + 1) * sizeof(*x.scratch));
	x.secstamp = calloc(x.nsec + 1, sizeof(*x.secstamp));
	x.movedlist = malloc((n + 1) * sizeof(*x.movedlist));
	x.energy = malloc((n + 1) * sizeof(*x.energy));
	if (!x.secstamp || !x.movedlist || !x.energy)
		goto nomem;
	x.span = malloc((n + 1) * sizeof(*x.span));
	x.cutlist = malloc((x.nsec + 1) * sizeof(*x.cutlist));
	x.partcount = malloc((3 * x.nsec + 8) * sizeof(*x.partcount));
	if (!x.span || !x.cutlist || !x.partcount)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		x.span[i].sa = x.cov0[i + 1] > x.cov0[i] ? x.cov[x.cov0[i]].sa : 0;
		x.span[i].sb = x.cov0[i + 1] > x.cov0[i] ? x.cov[x.cov0[i + 1] - 1].sb : 0;
	}
	if (!x.scratch || !x.key[0] || !x.key[1] || !x.key[2] || !x.minoff || !x.off ||
	    !x.ft || !x.cmin || !x.cadd_ || !x.rank || !x.stamp ||
	    !x.order || !x.sol || !x.floor_sol || !x.tnow)
		goto nomem;
	make_keys(&x);
	for (size_t i = 0; i < n; i++)
		x.off[i] = NONE;
	x.progress_best = best;
	x.progress_lb = proven;

	/*
	 * Two searches: one asks for the proven floor itself (tight
	 * capacities prune best, and often the floor is the answer), the
	 * other climbs toward the best height (see task_step()).  On two
	 * cores under a time limit each has its own thread; otherwise they
	 * take turns (turn()): two thirds of the nodes to the floor, or to
	 * the climb while it is the one that finds heights.
	 */
	struct shared sh = { best, proven, NULL, offsets };
	sh.runs = malloc((x.ncomps + 1) * sizeof(*sh.runs));
	if (!sh.runs)
		goto nomem;
	for (size_t k = 0; k < x.ncomps; k++)
		sh.runs[k] = 1;
	uint64_t slice = 3 * (2 * (uint64_t)n + 64);
	struct task fl = { .x = &x, .floor = 1, .sh = &sh, .g = g,
			   .give = 2 * slice };
	struct task cl = { .x = &x, .sh = &sh, .g = g, .lo = proven,
			   .slice = slice };
	/* a search against the clock shares by who pays; counted work keeps
	 * the fixed shares (its plans as they were), unless a test asks */
	fl.fixed = cl.fixed = work_total != UINT64_MAX && !opt->paying_turns;
	cl.step = climb_step(best, proven, g);
	/* the second search copies the node orders, (n + 1)(n + 2) / 2
	 * words for the biggest component, and the section members: only
	 * while that copy is at most a quarter of the memory cap */
	int two = work_total == UINT64_MAX && opt->max_threads != 1 &&
		  exact_own_bytes(&x) <= mem_cap / 4 && solver_cpus() >= 2;
	int trc = two ? duo(&x, &fl, &cl, &sh, opt) : -1;
	r->threads = trc == 0 ? 2 : 1;
	if (trc < 0) { /* one thread: turns */
		while (sh.best > sh.proven) {
			if (elapsed(&x) >= limit || x.nodes >= x.max_nodes)
				break;
			struct task *t = turn(&fl, &cl);
			uint64_t before = t->used;
			int st = task_step(t);
			if (st == STEP_SKIP) { /* the floor's turn */
				if (fl.fixed)
					cl.used = fl.used + 1;
				else
					cl.charged = fl.charged + 1;
				continue;
			}
			turn_charge(t, &fl, &cl, t->used - before);
			if (st == STEP_NOMEM) {
				free(sh.runs);
				goto nomem;
			}
			if (st != STEP_ON)
				break;
		}
		r->nodes = x.nodes;
	} else if (trc > 0) {
		free(sh.runs);
		goto nomem;
	}
	best = sh.best;
	proven = sh.proven;
	free(sh.runs);
	if (best > proven && (elapsed(&x) >= limit || x.nodes >= x.max_nodes))
		r->timed_out = 1;
	r->nodes = x.nodes;
	solver_budget_spend(b, x.nodes > UINT64_MAX / unit ? UINT64_MAX : x.nodes * unit, 0);
	/* Exhausted searches prove bounds only where gravity is exact. */
	r->lower_bound = windows ? align_up(lb, g) : proven;
	if (r->lower_bound > best)
		r->lower_bound = best;
	r->optimal = best <= r->lower_bound;
	if (r->optimal)
		r->stopped_by = best <= align_up(lb, g) ? SOLVER_STOP_LOWER_BOUND
							: SOLVER_STOP_OPTIMAL;
	else if (x.memstop)
		r->stopped_by = SOLVER_STOP_MEMORY;
	else if (work_total != UINT64_MAX && x.nodes >= work_total)
		r->stopped_by = SOLVER_STOP_WORK;
	else
		r->stopped_by = SOLVER_STOP_TIME;
	r->timed_out = r->stopped_by == SOLVER_STOP_TIME;
	exact_free(&x);
	return 0;
nomem:
	exact_free(&x);
	return trace_seterr(err, errlen, SOLVER_ENOMEM,
		    "out of memory searching %zu buffers", p->n);
}

/* --- what the search may attempt: estimated from sizes, before building --- */

/*
 * The cost of build() and of the search's arrays, per unit of what plan()
 * counts: a conflict pair is swept into a 32-byte record, then two 16-byte
 * edges; a section member is 24 bytes and its position 8; a piece costs its cover, times and
 * sweep records, and up to two sections of trees and stamps; an item its
 * keys, offsets and stamps.  BUILD_NS is what one pair or member costs to
 * build on one core (measured on the DL-shaped instances of bench_placement,
 * rounded up): plan() refuses what would take more than half the time left.
 */
#define BYTES_PER_PAIR 64
#define BYTES_PER_MEMBER 32
#define BYTES_PER_PIECE 600
#define BYTES_PER_ITEM 160
#define BUILD_NS 40.0

struct est_comp {
	size_t first, n;     /* items est.items[first .. first + n) */
	uint64_t pairs;      /* pairs of pieces that meet in time */
	uint64_t members;    /* (piece, section) entries */
	uint64_t pieces;
	uint64_t height;     /* of the seed placement */
};

struct est {
	uint32_t *items;     /* item indices, grouped by component */
	struct est_comp *comps;
	size_t ncomps;
};

struct tstart {
	int64_t at;
	uint32_t piece;
};

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int tstart_cmp(const void *a, const void *b)
{
	const struct tstart *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->piece > y->piece) - (x->piece < y->piece);
}

/*
 * Components of p (items whose time spans chain together; an item with
 * an empty lifetime is left out) with what build() would make of each,
 * counted without making it: O(P log P) for P pieces.  0 or SOLVER_ENOMEM.
 */
static int estimate(const struct solver_problem *p, const uint64_t *offsets,
		    struct est *e)
{
	struct solver_piece *pc = NULL;
	size_t *fi = NULL;
	memset(e, 0, sizeof(*e));
	if (solver_problem_pieces(p, &pc, &fi))
		return SOLVER_ENOMEM;
	size_t np = fi[p->n];
	struct tstart *by = malloc((p->n + np + 1) * sizeof(*by));
	int64_t *ends = malloc((np + 1) * sizeof(*ends));
	int64_t *times = malloc((2 * np + 1) * sizeof(*times));
	uint32_t *comp = malloc((p->n + 1) * sizeof(*comp));
	e->items = malloc((p->n + 1) * sizeof(*e->items));
	e->comps = calloc(p->n + 1, sizeof(*e->comps));
	int rc = SOLVER_ENOMEM;
	if (!by || !ends || !times || !comp || !e->items || !e->comps)
		goto out;
	/* components: items by the start of their first piece */
	size_t m = 0;
	for (size_t i = 0; i < p->n; i++)
		if (fi[i + 1] > fi[i])
			by[m++] = (struct tstart){ pc[fi[i]].lower, (uint32_t)i };
	qsort(by, m, sizeof(*by), tstart_cmp);
	int64_t reach = 0;
	for (size_t k = 0; k < m; k++) {
		uint32_t i = by[k].piece;
		int64_t up = pc[fi[i + 1] - 1].upper;
		if (k == 0 || by[k].at >= reach) {
			e->comps[e->ncomps++] = (struct est_comp){ k, 0, 0, 0, 0, 0 };
			reach = up;
		}
		struct est_comp *c = &e->comps[e->ncomps - 1];
		e->items[k] = i;
		c->n++;
		comp[i] = (uint32_t)(e->ncomps - 1);
		if (up > reach)
			reach = up;
		uint64_t h = offsets[i] + p->items[i].size;
		if (h > c->height)
			c->height = h;
		c->pieces += fi[i + 1] - fi[i];
	}
	/* a component's items in index order, as the search numbers them */
	for (size_t k = 0; k < e->ncomps; k++) {
		struct est_comp *c = &e->comps[k];
		qsort(e->items + c->first, c->n, sizeof(*e->items), u32_cmp);
	}
	/* pairs: the pieces a piece meets when it starts (ends come first) */
	for (size_t i = 0; i < np; i++) {
		by[i] = (struct tstart){ pc[i].lower, (uint32_t)i };
		ends[i] = pc[i].upper;
		times[2 * i] = pc[i].lower;
		times[2 * i + 1] = pc[i].upper;
	}
	qsort(by, np, sizeof(*by), tstart_cmp);
	qsort(ends, np, sizeof(*ends), solver_time_cmp);
	qsort(times, 2 * np, sizeof(*times), solver_time_cmp);
	size_t nt = 0;
	for (size_t i = 0; i < 2 * np; i++)
		if (nt == 0 || times[nt - 1] != times[i])
			times[nt++] = times[i];
	for (size_t k = 0; k < np; k++) {
		const struct solver_piece *a = &pc[by[k].piece];
		size_t gone = solver_time_rank(ends, np, a->lower + 1);
		struct est_comp *c = &e->comps[comp[a->item]];
		c->pairs += k - gone;
		c->members += solver_time_rank(times, nt, a->upper) -
			      solver_time_rank(times, nt, a->lower);
	}
	rc = 0;
out:
	free(pc);
	free(fi);
	free(by);
	free(ends);
	free(times);
	free(comp);
	if (rc) {
		free(e->items);
		free(e->comps);
		memset(e, 0, sizeof(*e));
	}
	return rc;
}

/* Bytes the search of a component set needs: n items, P pieces, the given
 * pairs and members, and node orders for a largest component of big. */
static uint64_t est_bytes(uint64_t n, uint64_t pieces, uint64_t pairs,
			  uint64_t members, uint64_t big)
{
	return n * BYTES_PER_ITEM + pieces * BYTES_PER_PIECE +
	       pairs * BYTES_PER_PAIR + members * BYTES_PER_MEMBER +
	       ((big + 1) * (big + 2) / 2 + 4 * big) * sizeof(uint32_t);
}

static uint64_t mib(uint64_t bytes) { return (bytes + (1 << 20) - 1) >> 20; }

/* What the components chosen so far need, summed. */
struct need {
	uint64_t n, pieces, pairs, members, big;
};

static _Thread_local const struct est *height_ctx;

/* Components by seed height, highest first (then in time order). */
static int height_cmp(const void *a, const void *b)
{
	const struct est_comp *x = &height_ctx->comps[*(const uint32_t *)a];
	const struct est_comp *y = &height_ctx->comps[*(const uint32_t *)b];
	if (x->height != y->height)
		return x->height > y->height ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

/*
 * Whether the search may also take component c on top of *nd, within the
 * memory cap, half the work left and half the time left.  0 (and *nd grown),
 * or the enum solver_stop that refuses it with a sentence in why.
 */
static int admit(const struct est_comp *c, struct need *nd, uint64_t cap,
		 struct solver_budget *b, char *why, size_t len)
{
	struct need t = *nd;
	t.n += c->n;
	t.pieces += c->pieces;
	t.pairs += c->pairs;
	t.members += c->members;
	if (c->n > t.big)
		t.big = c->n;
	uint64_t bytes = est_bytes(t.n, t.pieces, t.pairs, t.members, t.big);
	uint64_t units = (t.pairs + t.members + SOLVER_UNIT_PAIRS - 1) /
			 SOLVER_UNIT_PAIRS;
	uint64_t work_left = solver_budget_work_left(b);
	double need = (double)(t.pairs + t.members) * BUILD_NS * 1e-9;
	double left = b->deadline - solver_budget_elapsed(b);
	if (c->n > MAX_COMPONENT) {
		snprintf(why, len, "a component of %zu overlapping buffers, over the exact search's limit of %d",
			 c->n, MAX_COMPONENT);
		return SOLVER_STOP_SKIPPED;
	}
	if (c->pairs > MAX_EDGES) {
		snprintf(why, len, "a component of %zu buffers overlapping in %" PRIu64
			 " pairs, over the exact search's limit of %" PRIu64,
			 c->n, c->pairs, (uint64_t)MAX_EDGES);
		return SOLVER_STOP_SKIPPED;
	}
	if (bytes > cap) {
		snprintf(why, len, "searching %" PRIu64 " buffers would need about %" PRIu64
			 " MiB, over the cap of %" PRIu64 " MiB",
			 t.n, mib(bytes), mib(cap));
		return SOLVER_STOP_MEMORY;
	}
	if (b->work_limit && units > work_left / 2) {
		snprintf(why, len, "preparing the search of %" PRIu64 " buffers would cost %" PRIu64
			 " work units, more than half the %" PRIu64 " left",
			 t.n, units, work_left);
		return SOLVER_STOP_WORK;
	}
	if (need > left / 2) {
		snprintf(why, len, "preparing the search of %" PRIu64 " buffers would take about %.2f s, more than half the %.2f s left",
			 t.n, need, left > 0 ? left : 0.0);
		return SOLVER_STOP_TIME;
	}
	*nd = t;
	return 0;
}

/*
 * Decides what the exact search attempts from offsets, before building
 * anything.  The height is the highest component's, and only components
 * whose seed height is above floor (the lower bound) can lower it: those
 * are the candidates, taken highest first while they fit (admit()).  The
 * first that does not caps what the search can reach at its own height, so
 * the search takes the ones above it; if that is the highest, nothing is
 * searched and r says why.  Fills keep[] (item indices, *nkeep of them, in
 * index order) and *units (the work of building them).  Returns 0 or
 * SOLVER_ENOMEM.
 */
static int plan(const struct solver_problem *p, const struct solver_options *opt,
		struct solver_budget *b, const uint64_t *offsets,
		uint64_t floor, uint32_t *keep, size_t *nkeep,
		uint64_t *units, struct solver_report *r)
{
	struct est e;
	*nkeep = 0;
	if (estimate(p, offsets, &e))
		return SOLVER_ENOMEM;
	uint32_t *cand = malloc((e.ncomps + 1) * sizeof(*cand));
	if (!cand) {
		free(e.items);
		free(e.comps);
		return SOLVER_ENOMEM;
	}
	size_t nc = 0;
	for (size_t k = 0; k < e.ncomps; k++)
		if (e.comps[k].height > floor)
			cand[nc++] = (uint32_t)k;
	height_ctx = &e;
	qsort(cand, nc, sizeof(*cand), height_cmp);
	uint64_t cap = opt->memory_limit ? opt->memory_limit
					 : SOLVER_DEFAULT_MEMORY_LIMIT;
	struct need nd = { 0 };
	size_t taken = 0;
	int stop = 0;
	char why[sizeof(r->skipped_why)] = "";
	for (; taken < nc; taken++) {
		stop = admit(&e.comps[cand[taken]], &nd, cap, b, why,
			     sizeof(why));
		if (stop)
			break;
	}
	if (stop && e.comps[cand[taken]].n > MAX_COMPONENT) {
		size_t over = 0, largest = 0;
		for (size_t k = 0; k < nc; k++) {
			size_t m = e.comps[cand[k]].n;
			over += m > MAX_COMPONENT;
			largest = m > largest ? m : largest;
		}
		snprintf(why, sizeof(why),
			 "%zu component%s of overlapping buffers over the exact search's limit of %d buffers (the largest has %zu)",
			 over, over == 1 ? "" : "s", MAX_COMPONENT, largest);
	}
	/* those as high as the first refused cannot lower the height */
	while (taken && taken < nc &&
	       e.comps[cand[taken - 1]].height <= e.comps[cand[taken]].height)
		taken--;
	r->skipped_components = nc - taken;
	r->searched_components = taken;
	if (stop)
		snprintf(r->skipped_why, sizeof(r->skipped_why), "%s", why);
	if (taken == 0) {
		/* no candidate at all: an item of an empty lifetime sits high */
		r->stopped_by = stop ? stop : SOLVER_STOP_SKIPPED;
	} else {
		for (size_t k = 0; k < taken; k++) {
			const struct est_comp *c = &e.comps[cand[k]];
			memcpy(keep + *nkeep, e.items + c->first,
			       c->n * sizeof(*keep));
			*nkeep += c->n;
		}
		qsort(keep, *nkeep, sizeof(*keep), u32_cmp);
		/* what admit() counted for them, recounted without the
		 * refused one */
		uint64_t pm = 0;
		for (size_t k = 0; k < taken; k++)
			pm += e.comps[cand[k]].pairs + e.comps[cand[k]].members;
		*units = (pm + SOLVER_UNIT_PAIRS - 1) / SOLVER_UNIT_PAIRS;
	}
	free(cand);
	free(e.items);
	free(e.comps);
	return 0;
}

/*
 * The skyline search's share of what a search may spend before the branch
 * and bound, on problems full at every instant at the lower bound (the
 * packed class; on any other it returns at once).  The two searches fail
 * on different instances of the class: of the 300-450-buffer guillotine
 * instances the branch and bound left above the bound, the skyline solved
 * most in thousands of nodes, while a few it misses the branch and bound
 * solves in seconds.  Half each.
 */
#define SKYLINE_SHARE 0.5
#define SKYLINE_MAX_ITEMS 6000

/*
 * Runs the skyline search (solver_skyline.c) at floor, the lower bound,
 * with SKYLINE_SHARE of the time or work left.  1: offsets now meet the
 * bound (r says so), 0: nothing found (offsets as they were), -1: out of
 * memory.
 */
static int skyline_first(const struct solver_problem *p,
			 const struct solver_options *opt,
			 struct solver_budget *b, uint64_t *offsets,
			 uint64_t floor, struct solver_report *r)
{
	if (p->n > SKYLINE_MAX_ITEMS || opt->no_skyline)
		return 0;
	struct solver_budget sb = *b;
	uint64_t unit = p->n > NODE_ITEMS ? p->n / NODE_ITEMS : 1;
	uint64_t nodes_max = UINT64_MAX;
	if (b->work_limit)
		nodes_max = (uint64_t)(SKYLINE_SHARE *
				       (double)solver_budget_work_left(b)) / unit;
	if (!isinf(b->deadline)) {
		double now = solver_budget_elapsed(b);
		sb.deadline = now + SKYLINE_SHARE * (b->deadline - now);
	}
	uint64_t *o = malloc((p->n + 1) * sizeof(*o)), nodes = 0;
	if (!o)
		return -1;
	int rc = solver_search_skyline(p, floor, nodes_max, &sb, o, &nodes);
	solver_budget_spend(b, nodes > UINT64_MAX / unit ? UINT64_MAX
							 : nodes * unit, 0);
	if (rc == 1) {
		memcpy(offsets, o, p->n * sizeof(*o));
		r->lower_bound = floor;
		r->optimal = 1;
		r->nodes += nodes;
		r->stopped_by = SOLVER_STOP_LOWER_BOUND;
	}
	free(o);
	return rc < 0 ? -1 : rc;
}

/*
 * The guillotine search's share (solver_guillotine.c), before the skyline
 * search: a tenth of the time or work left, at most GUILLOTINE_STEPS
 * steps (0.6 CPU s here), a work unit being GUILLOTINE_STEPS_PER_UNIT of
 * its steps (a step costs about 30 ns here, a skyline node 1-3 us).  On
 * the big guillotine shape it reaches the bound on seeds the skyline
 * search misses within millions of nodes (README, "The guillotine
 * search"), and on the others it mostly ends in milliseconds.
 */
#define GUILLOTINE_SHARE 0.1
/* Above GUILLOTINE_LARGE buffers the share is GUILLOTINE_SHARE_LARGE: there
 * the skyline search and the branch and bound seldom reach the bound
 * (large 1-10: 6 at --time-limit 5, the skyline one of them), and a third
 * of a 1 s limit places large-5 (0.25 s), which a tenth misses. */
#define GUILLOTINE_LARGE 1000
#define GUILLOTINE_SHARE_LARGE 0.3
#define GUILLOTINE_STEPS 20000000u
#define GUILLOTINE_STEPS_PER_UNIT 64

/* The steps a guillotine search may take, share of b's work left (at
 * most steps_max, 64 steps a unit), and in *gb b with share of the time
 * left. */
static uint64_t guillotine_budget(const struct solver_budget *b,
				  double share, uint64_t steps_max,
				  struct solver_budget *gb)
{
	*gb = *b;
	if (b->work_limit) {
		uint64_t left = (uint64_t)(share *
					   (double)solver_budget_work_left(b));
		if (left < steps_max / GUILLOTINE_STEPS_PER_UNIT)
			steps_max = left * GUILLOTINE_STEPS_PER_UNIT;
	}
	if (!isinf(b->deadline)) {
		double now = solver_budget_elapsed(b);
		gb->deadline = now + share * (b->deadline - now);
	}
	return steps_max;
}

/* 1: offsets meet the bound, 0: nothing found, -1: out of memory. */
static int guillotine_first(const struct solver_problem *p,
			    struct solver_budget *b, uint64_t *offsets,
			    uint64_t floor, struct solver_report *r)
{
	struct solver_budget gb;
	double share = p->n > GUILLOTINE_LARGE ? GUILLOTINE_SHARE_LARGE
					       : GUILLOTINE_SHARE;
	uint64_t steps_max = guillotine_budget(b, share, GUILLOTINE_STEPS, &gb);
	if (!steps_max)
		return 0;
	uint64_t *o = malloc((p->n + 1) * sizeof(*o)), steps = 0;
	if (!o)
		return -1;
	int rc = solver_search_guillotine(p, floor, steps_max, &gb, o, &steps);
	solver_budget_spend(b, (steps + GUILLOTINE_STEPS_PER_UNIT - 1) /
				       GUILLOTINE_STEPS_PER_UNIT, 0);
	if (rc == 1) {
		memcpy(offsets, o, p->n * sizeof(*o));
		r->lower_bound = floor;
		r->optimal = 1;
		r->stopped_by = SOLVER_STOP_LOWER_BOUND;
	}
	free(o);
	return rc < 0 ? -1 : rc;
}

/*
 * Where the strict search found nothing on a problem of more than
 * GUILLOTINE_RELAX_MIN buffers, its relaxed form (solver_guillotine.c): the
 * first cuts it finds kept, the blocks it cannot cut placed by best-fit
 * or greedy-size and improved, near the bound where such blocks are small
 * or thin (compile --time-limit 5: large-2 1.160x -> 1.0004x, large-8
 * 1.159x -> 1.0010x, huge-9 1.329x -> 1.082x; README, "Blocks the search
 * cannot cut").  It runs seeded first (each block's cut instants tried
 * first: large-1 1.147x -> the bound, huge-1 1.263x -> the bound; README,
 * "Seeds at the cut instants"), then, where that did not reach the
 * floor, unseeded (a seed can split a block wrongly near the top: huge-2
 * seeded 1.366x, unseeded 1.199x), then seeded with the strips' heights
 * (SOLVER_GUILLOTINE_HEIGHT: dense 1000-random 1 8.2% -> 0.56% at
 * --time-limit 5; third, since before the others it took their steps and
 * its wrong strips come sooner; README, "Seeds with the strip's
 * height"), its growth by the earliest unbalanced instant
 * (SOLVER_GUILLOTINE_EARLIEST: with propagation the heights alone ended
 * where the seeded run did; huge-2 1.8% -> the bound, huge-10 28.7% ->
 * 11.9% at --time-limit 5; README, "The earliest instant first"), then
 * seeded with time run backwards
 * (SOLVER_GUILLOTINE_REVERSED: the construction is the same both ways,
 * but the blocks grown from their last instant are other blocks; huge-6
 * 10.4% -> 0.01%, large-8 0.10% -> the bound at --time-limit 5; README,
 * "Time run backwards"); the lowest is kept.  The four runs together have
 * what three runs of GUILLOTINE_RELAX_SHARE of the time or work left had
 * (below GUILLOTINE_LARGE, GUILLOTINE_RELAX_SHARE_MID): the first two
 * as much as before, the last two halves of the rest, so the searches
 * after them lose nothing (with a fourth such share, a 1,200-buffer
 * seed the branch and bound left 14.4% above the bound ended 21.7%
 * above it).  Each run at most
 * GUILLOTINE_RELAX_STEPS steps, a block's split GUILLOTINE_RELAX_PER
 * steps a buffer.  Its placement is kept apart and taken at the end where
 * it is lower than what the searches after it found from the heuristics'
 * (as their incumbent it cost large-5 under --time-limit 1 1.136x ->
 * 1.211x: the branch and bound's climb found less from it).  Up to
 * GUILLOTINE_RELAX_MIN buffers it is not run: there the skyline search
 * and the branch and bound place what the strict search misses.  Above,
 * up to GUILLOTINE_LARGE, its share is GUILLOTINE_RELAX_SHARE_MID: in a
 * 4 Ki square cut 500 to 1,000 times (README, "Denser squares") it
 * places instances the skyline search and the branch and bound leave
 * 1-15% above the bound, and with that share it takes nothing measurable
 * from them (with 30%, a 600-buffer seed the skyline search placed in 2 s
 * ended 0.8% above the bound, a 1,000-buffer one 10.4% instead of 5.7%).
 */
#define GUILLOTINE_RELAX_MIN 300
#define GUILLOTINE_RELAX_SHARE_MID 0.15
#define GUILLOTINE_RELAX_SHARE 0.3
#define GUILLOTINE_RELAX_STEPS 20000000u
#define GUILLOTINE_RELAX_PER 1000u

/*
 * Restarts of the relaxed search (SOLVER_GUILLOTINE_RESTART): where its
 * four runs ended above the floor before their share of the time or work
 * (problems of up to GUILLOTINE_LARGE buffers, where a run takes a few
 * hundredths of a second), what is left of it goes to the seeded run with
 * the seeds' order and the subsets' drawn, at most GUILLOTINE_RESTARTS
 * times: a wrong first split made by the four's fixed orders is another
 * split there (README, "Restarts").
 */
#define GUILLOTINE_RESTARTS 1000u

/* 1 while b has time and work left (0 without either limit: restarts
 * only fill a limit). */
static int phase_left(const struct solver_budget *b)
{
	if (!b->work_limit && isinf(b->deadline))
		return 0;
	if (b->work_limit && !solver_budget_work_left(b))
		return 0;
	return isinf(b->deadline) || solver_budget_elapsed(b) < b->deadline;
}

/* 1: a placement in *ro (malloc'd, height *rh), 0: none, -1: out of
 * memory. */
static int guillotine_relaxed(const struct solver_problem *p,
			      struct solver_budget *b, double share,
			      uint64_t floor, unsigned flags, uint64_t **ro,
			      uint64_t *rh)
{
	struct solver_budget gb;
	uint64_t steps_max = guillotine_budget(b, share,
					       GUILLOTINE_RELAX_STEPS, &gb);
	*ro = NULL;
	if (!steps_max)
		return 0;
	uint64_t *o = malloc((p->n + 1) * sizeof(*o));
	if (!o)
		return -1;
	struct solver_guillotine_relaxed out;
	int rc = solver_search_guillotine_relaxed(p, floor, steps_max,
						  GUILLOTINE_RELAX_PER, flags,
						  solver_search_exact, &gb, o,
						  &out);
	solver_budget_spend(b, (out.steps + GUILLOTINE_STEPS_PER_UNIT - 1) /
				       GUILLOTINE_STEPS_PER_UNIT, 0);
	if (rc == 1) {
		*ro = o;
		*rh = out.height;
		return 1;
	}
	free(o);
	return rc < 0 ? -1 : 0;
}

/*
 * The search behind exact and auto, from offsets (height best): plan()
 * picks the components worth searching, minimise() searches them (as a
 * problem of their own when they are not all of p), and their answer goes
 * back into offsets.  Fills r.  Returns 0 or a negative code.
 */
static int search_bb(const struct solver_problem *p,
		  const struct solver_options *opt, struct solver_budget *b,
		  uint64_t *offsets, uint64_t best, struct solver_report *r,
		  char *err, size_t errlen)
{
	uint64_t lb = solver_lower_bound(p), g = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (p->items[i].size > lb)
			lb = p->items[i].size;
		g = solver_gcd(g, solver_gcd(p->items[i].size,
					     p->items[i].align));
	}
	uint64_t floor = align_up(lb, g ? g : 1);
	r->lower_bound = floor < best ? floor : best;
	int fixed = 0;
	for (size_t i = 0; i < p->n && !fixed; i++)
		fixed = p->items[i].fixed_offset != SOLVER_FREE;
	if (best <= floor || fixed || p->n < 2) {
		r->optimal = best <= floor;
		r->stopped_by = r->optimal ? SOLVER_STOP_LOWER_BOUND
					   : SOLVER_STOP_SKIPPED;
		if (fixed && !r->optimal)
			snprintf(r->skipped_why, sizeof(r->skipped_why),
				 "fixed offsets: the exact search places free buffers only");
		return 0;
	}
	uint32_t *keep = malloc((p->n + 1) * sizeof(*keep));
	if (!keep)
		goto nomem;
	size_t nkeep;
	uint64_t units = 0;
	if (plan(p, opt, b, offsets, floor, keep, &nkeep, &units, r)) {
		free(keep);
		goto nomem;
	}
	if (nkeep == 0) {
		free(keep);
		r->timed_out = r->stopped_by == SOLVER_STOP_TIME;
		return 0;
	}
	solver_budget_spend(b, units, 0);
	size_t skipped = r->skipped_components;
	int rc;
	if (nkeep == p->n) {
		rc = minimise(p, opt, b, offsets, best, r, err, errlen);
	} else {
		/* the components worth searching, as a problem of their own
		 * (items keep pointing into p's holes) */
		struct solver_problem sub = { 0 };
		sub.items = malloc(nkeep * sizeof(*sub.items));
		uint64_t *so = malloc(nkeep * sizeof(*so));
		if (!sub.items || !so) {
			free(sub.items);
			free(so);
			free(keep);
			goto nomem;
		}
		sub.n = nkeep;
		uint64_t sbest = 0;
		for (size_t k = 0; k < nkeep; k++) {
			sub.items[k] = p->items[keep[k]];
			so[k] = offsets[keep[k]];
			if (so[k] + sub.items[k].size > sbest)
				sbest = so[k] + sub.items[k].size;
		}
		rc = minimise(&sub, opt, b, so, sbest, r, err, errlen);
		for (size_t k = 0; !rc && k < nkeep; k++)
			offsets[keep[k]] = so[k];
		free(sub.items);
		free(so);
	}
	free(keep);
	if (rc)
		return rc;
	if (r->skipped_components == 0)
		r->skipped_components = skipped;
	uint64_t h = height_of(p, offsets);
	if (r->lower_bound < floor)
		r->lower_bound = floor;
	if (r->lower_bound > h)
		r->lower_bound = h;
	r->optimal = h <= r->lower_bound;
	if (!r->optimal && (r->stopped_by == SOLVER_STOP_OPTIMAL ||
			    r->stopped_by == SOLVER_STOP_LOWER_BOUND))
		r->stopped_by = SOLVER_STOP_SKIPPED; /* the rest was too big */
	return 0;
nomem:
	return trace_seterr(err, errlen, SOLVER_ENOMEM,
		    "out of memory searching %zu buffers", p->n);
}

static int search_sky(const struct solver_problem *p,
		      const struct solver_options *opt,
		      struct solver_budget *b, uint64_t *offsets,
		      uint64_t best, uint64_t floor, struct solver_report *r,
		      char *err, size_t errlen);

/* The skyline search on a thread of its own, beside the branch and bound:
 * what it found, and the flags each sets to end the other. */
struct sky_thread {
	const struct solver_problem *p;
	uint64_t floor, nodes, *o;
	struct solver_budget sb; /* the call's clock; cancel: &stop */
	atomic_int stop;          /* set when the branch and bound is done */
	atomic_int *found;        /* set when this found a placement */
	int rc;
};

static void *sky_main(void *arg)
{
	struct sky_thread *t = arg;
	t->rc = solver_search_skyline(t->p, t->floor, UINT64_MAX, &t->sb, t->o,
				      &t->nodes);
	if (t->rc == 1)
		atomic_store(t->found, 1);
	return NULL;
}

/*
 * The search of exact and auto: the branch and bound (search_bb()) and,
 * on problems full at every instant at the lower bound, the skyline
 * search (solver_skyline.c), which is complete for them where the branch
 * and bound has heavy tails.  Under a time limit on two processors the two
 * run at once, the branch and bound on one thread, and the first to reach
 * the bound ends the other; otherwise (counted work, one processor) the
 * skyline goes first with SKYLINE_SHARE of the budget.
 */
static int search(const struct solver_problem *p,
		  const struct solver_options *opt, struct solver_budget *b,
		  uint64_t *offsets, uint64_t best, struct solver_report *r,
		  char *err, size_t errlen)
{
	uint64_t lb = solver_lower_bound(p), g = 0;
	int fixed = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (p->items[i].size > lb)
			lb = p->items[i].size;
		g = solver_gcd(g, solver_gcd(p->items[i].size,
					     p->items[i].align));
		fixed |= p->items[i].fixed_offset != SOLVER_FREE;
	}
	uint64_t floor = align_up(lb, g ? g : 1);
	if (best <= floor || fixed || p->n < 2 || p->n > SKYLINE_MAX_ITEMS ||
	    opt->no_skyline || !solver_skyline_applies(p, floor))
		return search_bb(p, opt, b, offsets, best, r, err, errlen);
	int gu = guillotine_first(p, b, offsets, floor, r);
	if (gu < 0)
		return trace_seterr(err, errlen, SOLVER_ENOMEM,
				    "out of memory searching %zu buffers", p->n);
	if (gu > 0)
		return 0;
	/* relaxed: seeded, unseeded, seeded with heights earliest first,
	 * seeded backwards, then restarts in what they left of the phase,
	 * each while none reached the floor; the lowest is kept */
	uint64_t *ro = NULL, rh = 0;
	static const unsigned relax_ways[] = {
		SOLVER_GUILLOTINE_SEEDED, 0,
		SOLVER_GUILLOTINE_SEEDED | SOLVER_GUILLOTINE_HEIGHT |
			SOLVER_GUILLOTINE_EARLIEST,
		SOLVER_GUILLOTINE_SEEDED | SOLVER_GUILLOTINE_REVERSED
	};
	const size_t nways = sizeof(relax_ways) / sizeof(relax_ways[0]);
	struct solver_budget pb; /* the runs' share, together */
	double first = p->n > GUILLOTINE_LARGE ? GUILLOTINE_RELAX_SHARE
					       : GUILLOTINE_RELAX_SHARE_MID;
	double phase = 1 - (1 - first) * (1 - first) * (1 - first);
	/* of the phase left: the first two runs as much as before */
	double share[2] = { first / phase,
			    first * (1 - first) / (phase - first) };
	(void)guillotine_budget(b, phase, 0, &pb);
	if (b->work_limit)
		pb.work_limit = b->work + (uint64_t)(phase *
			(double)solver_budget_work_left(b));
	/* every run polishes (guillotine_relaxed()): a block it cannot cut,
	 * placed by the heuristics, then searched by the exact search with
	 * a part of the run's time (solver_guillotine.c, polish(): the 51
	 * above the bound at --time-limit 5 1.0198 -> 1.0169, held out
	 * 1.0106 -> 1.0050) */
	unsigned also = opt->max_threads == 1 ? SOLVER_GUILLOTINE_ONE_THREAD
					      : 0;
	for (size_t w = 0; p->n > GUILLOTINE_RELAX_MIN && !opt->no_relaxed &&
			   (!ro || rh > floor);
	     w++) {
		unsigned flags;
		if (w < nways) {
			flags = relax_ways[w];
		} else if (ro && p->n <= GUILLOTINE_LARGE &&
			   w - nways < GUILLOTINE_RESTARTS && phase_left(&pb)) {
			flags = SOLVER_GUILLOTINE_SEEDED |
				SOLVER_GUILLOTINE_RESTART(w - nways + 1);
		} else {
			break;
		}
		uint64_t *r2 = NULL, h2 = 0;
		double sh = 1.0; /* the fourth run and the restarts: the rest */
		if (w < 2)
			sh = share[w];
		else if (w < nways)
			sh = 1.0 / (double)(nways - w);
		int grc = guillotine_relaxed(p, &pb, sh, floor, flags | also,
					     &r2, &h2);
		if (grc < 0) {
			free(ro);
			return trace_seterr(err, errlen, SOLVER_ENOMEM,
					    "out of memory searching %zu buffers",
					    p->n);
		}
		if (r2 && (!ro || h2 < rh)) {
			free(ro);
			ro = r2;
			rh = h2;
		} else {
			free(r2);
		}
	}
	solver_budget_spend(b, pb.work - b->work, 0); /* pb began as b */
	if (ro && rh <= floor) {
		memcpy(offsets, ro, p->n * sizeof(*offsets));
		free(ro);
		r->lower_bound = floor;
		r->optimal = 1;
		r->stopped_by = SOLVER_STOP_LOWER_BOUND;
		return 0;
	}
	int rc = search_sky(p, opt, b, offsets, best, floor, r, err, errlen);
	if (!rc && ro && rh < height_of(p, offsets))
		memcpy(offsets, ro, p->n * sizeof(*offsets));
	free(ro);
	return rc;
}

/* search()'s skyline search and branch and bound, from offsets (height
 * best) at the bound floor. */
static int search_sky(const struct solver_problem *p,
		      const struct solver_options *opt,
		      struct solver_budget *b, uint64_t *offsets,
		      uint64_t best, uint64_t floor, struct solver_report *r,
		      char *err, size_t errlen)
{
	int two = !b->work_limit && !isinf(b->deadline) &&
		  opt->max_threads != 1 && solver_cpus() >= 2;
	struct sky_thread *t = two ? calloc(1, sizeof(*t)) : NULL;
	pthread_t th;
	atomic_int found = 0;
	if (t) {
		t->p = p;
		t->floor = floor;
		t->sb = *b;
		t->sb.cancel = &t->stop;
		t->found = &found;
		t->o = malloc((p->n + 1) * sizeof(*t->o));
		if (!t->o || pthread_create(&th, NULL, sky_main, t) != 0) {
			free(t->o);
			free(t);
			t = NULL;
		}
	}
	if (!t) { /* one thread: the skyline first, with its share */
		int sky = skyline_first(p, opt, b, offsets, floor, r);
		if (sky < 0)
			return trace_seterr(err, errlen, SOLVER_ENOMEM,
				    "out of memory searching %zu buffers", p->n);
		if (sky > 0)
			return 0;
		return search_bb(p, opt, b, offsets, best, r, err, errlen);
	}
	struct solver_options one = *opt;
	one.max_threads = 1; /* the skyline has the other processor */
	atomic_int *cancel = b->cancel;
	b->cancel = &found;
	int rc = search_bb(p, &one, b, offsets, best, r, err, errlen);
	b->cancel = cancel;
	atomic_store(&t->stop, 1);
	pthread_join(th, NULL);
	if (t->rc < 0 && !rc)
		rc = trace_seterr(err, errlen, SOLVER_ENOMEM,
			    "out of memory searching %zu buffers", p->n);
	if (!rc && t->rc == 1) {
		memcpy(offsets, t->o, p->n * sizeof(*offsets));
		r->lower_bound = floor;
		r->optimal = 1;
		r->timed_out = 0;
		r->stopped_by = SOLVER_STOP_LOWER_BOUND;
		r->skipped_components = 0;
		r->skipped_why[0] = 0;
	}
	r->nodes += t->nodes;
	r->threads = 2;
	free(t->o);
	free(t);
	return rc;
}

/* --- the entry points -------------------------------------------------- */

/* What a heuristic costs against greedy-size's time (measured on 18k-62k
 * buffer instances: the best-gap rules walk every gap). */
static double heuristic_weight(const char *name)
{
	return !strcmp(name, "best-gap") || !strcmp(name, "best-gap-rows") ? 3.5
	       : !strcmp(name, "best-fit")				      ? 1.5
									      : 1.0;
}

/*
 * Runs the heuristics names[0..k) and keeps the lowest placement (the first
 * of equals).  With a budget b
 * that has a deadline, the first always runs and each later one only when
 * its expected time fits before 80% of the deadline: its weight times the
 * wall time per unit of weight of the ones that ran (on a loaded machine
 * that scales with the share of a core this run gets).  The weight is a
 * guess (best-fit took 1.5 to 3 times greedy-size's time on 30,000 random
 * buffers, more under sanitizers), so a later one also gives up at the
 * deadline itself (struct solver_strategy's stop), and none runs after it:
 * the time limit is kept whatever a heuristic costs here.  The work of
 * --deterministic never skips or stops one.  *unit (may be NULL) gets the
 * wall seconds of one unit of weight (greedy-size's time) on this run.
 */
static int best_heuristic(const struct solver_problem *p,
			  const char *const *names, size_t k,
			  const struct solver_budget *b,
			  uint64_t *offsets, uint64_t *height,
			  const char **winner, double *unit, char *err,
			  size_t errlen)
{
	uint64_t *tmp = malloc((p->n + 1) * sizeof(*tmp));
	if (!tmp)
		return trace_seterr(err, errlen, SOLVER_ENOMEM,
			    "out of memory placing %zu buffers", p->n);
	*height = NONE;
	int timed = b && !isinf(b->deadline);
	double wall = 0, weight = 0;
	for (size_t i = 0; i < k; i++) {
		uint64_t h;
		double t = timed ? solver_budget_elapsed(b) : 0;
		if (i > 0 && timed &&
		    t + wall / weight * heuristic_weight(names[i]) >
			    0.8 * b->deadline)
			continue;
		int rc = solver_strategy_find(names[i])->place(
			p, tmp, &h, i > 0 && timed ? b : NULL, err, errlen);
		if (rc == SOLVER_ESTOPPED)
			break; /* the deadline has passed: the best so far */
		if (rc) {
			free(tmp);
			return rc;
		}
		if (timed) {
			wall += solver_budget_elapsed(b) - t;
			weight += heuristic_weight(names[i]);
		}
		if (h < *height) {
			*height = h;
			*winner = names[i];
			memcpy(offsets, tmp, p->n * sizeof(*offsets));
		}
	}
	if (unit)
		*unit = weight > 0 ? wall / weight : 0;
	free(tmp);
	return 0;
}

int solver_search_exact(const struct solver_problem *p,
			const struct solver_options *opt, uint64_t *offsets,
			struct solver_report *r, char *err, size_t errlen)
{
	struct solver_budget b;
	solver_budget_init(&b, opt);
	uint64_t best;
	if (opt->seed) {
		int rc = solver_check(p, opt->seed, &best, err, errlen);
		if (rc)
			return rc;
		memcpy(offsets, opt->seed, p->n * sizeof(*offsets));
	} else {
		static const char *const seed[] = { "greedy-size" };
		const char *w;
		int rc = best_heuristic(p, seed, 1, &b, offsets, &best,
					&w, NULL, err, errlen);
		if (rc)
			return rc;
		solver_budget_spend(&b, solver_work_buffers(p->n), 0);
	}
	r->winner = "exact";
	int rc = search(p, opt, &b, offsets, best, r, err, errlen);
	r->work = b.work;
	return rc;
}

int solver_search_auto(const struct solver_problem *p,
		       const struct solver_options *opt, uint64_t *offsets,
		       struct solver_report *r, char *err, size_t errlen)
{
	struct solver_budget b;
	solver_budget_init(&b, opt);
	static const char *const all[] = { "greedy-size", "best-fit",
					   "first-fit", "best-gap-rows",
					   "best-gap" };
	uint64_t best;
	const char *w = all[0];
	/* the first heuristic always runs, whatever the limits, so an answer
	 * is there even when nothing is left; the others while the time
	 * allows (best_heuristic).  greedy-size first: the cheapest but
	 * first-fit, and the one that keeps a time limit on a loaded machine.
	 * (best-fit first was tried: it is the lowest on two of the three
	 * large DL-shaped instances, by 0.03% at most, but on a random
	 * 30,000-buffer one it took 2.2 times greedy-size's time and ended 4%
	 * higher, and under load alone it passed a 1 s limit.) */
	double unit = 0;
	int rc = best_heuristic(p, all, sizeof(all) / sizeof(all[0]), &b,
				offsets, &best, &w, &unit, err, errlen);
	if (rc)
		return rc;
	solver_budget_spend(&b, sizeof(all) / sizeof(all[0]) *
				    solver_work_buffers(p->n), 0);
	rc = search(p, opt, &b, offsets, best, r, err, errlen);
	r->work = b.work;
	if (rc)
		return rc;
	uint64_t h = height_of(p, offsets);
	r->winner = h < best ? "exact" : w;
	/* the time or work the exact search left goes to the improvement:
	 * one step is one greedy run over every buffer */
	uint64_t per = solver_work_buffers(p->n), wl = solver_budget_work_left(&b);
	double left = isinf(b.deadline) ? 0 : b.deadline - solver_budget_elapsed(&b);
	struct solver_improve_limits il = {
		left > 0 ? left : 0,
		wl == UINT64_MAX ? 0 : wl / (per ? per : 1), 0, unit };
	/* its setup (a check and a sort of every buffer) costs about half a
	 * greedy run: not started when that would pass the deadline */
	if (unit > 0 && il.seconds < 0.5 * unit)
		il.seconds = 0;
	uint64_t hi = h, steps = 0;
	size_t nfree = 0; /* a file of pinned offsets (a solution) has none */
	for (size_t i = 0; i < p->n && !nfree; i++)
		nfree = p->items[i].fixed_offset == SOLVER_FREE;
	if (h > r->lower_bound && nfree && wl > 0 && (il.seconds > 0 || il.max_steps > 0)) {
		rc = solver_improve(p, offsets, &hi, &il, &steps, err, errlen);
		solver_budget_spend(&b, steps * per, 0);
		r->work = b.work;
		if (rc)
			return rc;
		if (hi < h)
			r->winner = "improve";
	}
	return 0;
}

int solver_search_exact_nodes(const struct solver_problem *p,
			      uint64_t max_nodes, uint64_t *offsets,
			      struct solver_report *r, char *err,
			      size_t errlen)
{
	return solver_search_exact_limits(p, max_nodes, 0, offsets, r, err,
					  errlen);
}

static int exact_counted(const struct solver_problem *p, uint64_t max_nodes,
			 const struct solver_options *opt, uint64_t *offsets,
			 struct solver_report *r, char *err, size_t errlen);

int solver_search_exact_limits(const struct solver_problem *p,
			       uint64_t max_nodes, uint64_t memory_limit,
			       uint64_t *offsets, struct solver_report *r,
			       char *err, size_t errlen)
{
	const struct solver_options opt = { .memory_limit = memory_limit };
	return exact_counted(p, max_nodes, &opt, offsets, r, err, errlen);
}

int solver_search_exact_paying(const struct solver_problem *p,
			       uint64_t max_nodes, uint64_t *offsets,
			       struct solver_report *r, char *err,
			       size_t errlen)
{
	const struct solver_options opt = { .paying_turns = 1 };
	return exact_counted(p, max_nodes, &opt, offsets, r, err, errlen);
}

static int exact_counted(const struct solver_problem *p, uint64_t max_nodes,
			 const struct solver_options *opt, uint64_t *offsets,
			 struct solver_report *r, char *err, size_t errlen)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = solver_problem_validate(p, err, errlen);
	if (rc)
		return rc;
	memset(r, 0, sizeof(*r));
	static const char *const seed[] = { "greedy-size" };
	const char *w;
	uint64_t best;
	rc = best_heuristic(p, seed, 1, NULL, offsets, &best, &w, NULL,
			    err, errlen);
	if (rc)
		return rc;
	r->strategy = r->winner = "exact";
	struct solver_budget b = { .t0 = t0, .deadline = HUGE_VAL,
				   .work_limit = max_nodes ? max_nodes : 1 };
	rc = minimise(p, opt, &b, offsets, best, r, err, errlen);
	if (rc)
		return rc;
	r->height = height_of(p, offsets);
	return solver_check(p, offsets, &r->height, err, errlen);
}
