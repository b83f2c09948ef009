/* SPDX-License-Identifier: MIT */
/*
 * exact_plan.c - the `optimal` strategy (exact_plan.h): a program over the
 * decisions the heuristics make, solved by CBC or GLPK, each answer built and
 * simulated, cut off, until the program's bound meets the best plan.
 *
 * Design note.  The decision space: recompute buffer i alone (recompute.h,
 * RECOMP_OK: freed after last_fwd, re-run before next_use, charged its
 * cost_ns), recompute a group of buffers by one re-run charged once (a
 * random draw's outputs, recomp_buf.sib: a dropout's output and mask; the
 * segments of the checkpoint baselines, every layer and sqrt(n) layers,
 * recomp_choose_checkpoints(): each member freed after its last forward
 * use, all made again before the group's point, the cost that of the
 * group closed alone), or swap gap g of the swap context whole
 * (swap-out after the gap's first request out_min; the swap-in and the
 * first reuse placed by a fixed rule, realize() below, which also tries
 * the swap-outs re-issued in the order their holes open,
 * swap_issue_by_deadline()).  Why the program's optimum is a lower bound
 * on the simulated overhead of every plan of the space that fits:
 *   - memory: a plan's pool is at least its resident bytes at every step
 *     (the placement's lower bound).  The program counts a swap as away
 *     over its whole gap [out_min + 1, in_max) and a re-run's buffer as
 *     away for every request strictly between last_fwd and next_use, its
 *     temporaries ignored: never less away than the plan built.
 *   - time: the simulator (simulate.c) never lets an event start earlier
 *     than its trace time plus the delays before it; the trace of the
 *     program that recomputes pushes every later event back by each re-run,
 *     so the overhead is sum(cost of re-runs) + stall (d).  A swap's bytes
 *     leave after the end of request out_min's event e_out and must be back
 *     by the start s_use of the next use, through a D2H and an H2D copy of
 *     at least latency + bytes / fastest rate each, one after the other: so
 *     d >= T - (s_use - e_out) - (re-runs between them).  Each lane moves
 *     one byte at a time at most at its fastest rate: the swaps whose
 *     windows lie inside [a, b] move their bytes that way within
 *     b - a + d + (re-runs between), a row per lane and window where it
 *     can bind.
 * A plan in the space that fits thus satisfies the rows and costs no less
 * than the program says; the answers the build rejects (no fit after
 * placement, a re-run that cannot be made) are not plans of the space.
 * Re-runs and swaps that meet (a buffer swapped and recomputed, a re-run
 * reading a buffer away there, two re-runs one reading the other or
 * sharing a member) are excluded: their re-runs would cost more than
 * their costs alone (a group's reads are over-approximated by every
 * event between its first and last kernel, which only shrinks the
 * space); an answer whose groups, closed together, cost other than the
 * sum of their costs alone is not a plan of the space (build()).
 * The first incumbents: the recompute-only optimum (seed_recompute()),
 * memplan's swap plan and hybrid's plan of re-runs and swaps where each
 * maps to binaries that satisfy every row with d its overhead less the
 * re-runs' costs (seed_heuristic(), seed_hybrid()): the space is the
 * realized answers plus those plans, and the optimum is no more than
 * their overheads.  A swap whose hole ends before a re-run that reads its
 * buffer (hybrid's plans have them) is a point of the program but not
 * one realize() builds: such an answer is no plan, and is cut.
 */
#include "exact_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exact_milp.h"
#include "planfile.h"
#include "recompute.h"

/* One binary of the program. */
struct xvar {
	uint8_t swap;      /* 1: gap idx swapped; 0: buffer idx recomputed */
	uint32_t idx;
	uint64_t bytes;
	uint64_t lo, hi;   /* the clock steps [lo, hi) it is away at most */
	double cost_ns;    /* recompute: the re-run */
	int64_t at;        /* recompute: the event its re-run runs before */
	int64_t ev_lo, ev_hi;  /* swap: out_min's event, the next use */
	double w_lo, w_hi;     /* swap: e(ev_lo), s(ev_hi) on the trace */
	double t_out, t_in;    /* swap: least copy times, latency included */
	double b_out, b_in;    /* swap: bytes at the fastest rate, no latency */
	double lack;           /* swap: the least stall of this hole (ns) */
	uint32_t mem0, nmem;   /* recompute: its members, S->mem[mem0 ...];
				  more than one: a group */
	int64_t k_first, k_last; /* a group's re-run: first and last kernel */
};

/* A member of a re-run: a buffer freed after last_fwd, made again before
 * the re-run's point; away over the clock's steps [lo, hi). */
struct xmem {
	uint32_t buf;
	int64_t last_fwd;
	uint64_t bytes; /* its item's size, 0 when not in the problem */
	uint64_t lo, hi;
};

/* Work units of the exact placement an answer gets when the heuristic
 * placer leaves it above the budget (solver.h; counted, so it repeats). */
#define EXACT_PLACE_WORK 20000

/* The bound meets the best plan within this part of the iteration (the
 * hairs of make_rows() and the solvers' tolerances are far below it). */
#define EXACT_TOLERANCE 1e-4

/* Hole starts and ends tried per gap (options: their pairs). */
#define EXACT_GRID 3

struct search {
	const struct swap_ctx *c;
	struct recomp_model m;
	const struct exact_options *o;
	uint64_t budget, align;
	const char *placer;
	struct xvar *v;
	size_t nv;
	struct xmem *mem;
	size_t nmem;
	int model_lent; /* m is another search's (seed_recompute()) */
	double *ev_s, *ev_e; /* per event, as the simulator spans it */
	struct exact_lp lp;
	/* the best plan so far */
	struct mp_plan plan;
	struct sim_result sim;
	uint8_t *best_x;
	int have;
};

int exact_available(void)
{
	return exact_milp_available();
}

int exact_space_parse(const char *s)
{
	static const char *const names[] = { "hybrid", "swap", "recompute" };
	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

/* The least time a copy of bytes takes in dir: its latency (with) and the
 * bytes at the lane's fastest rate, alone or shared (swapbound.c's). */
static double copy_ns(const struct link_model *l, enum link_dir dir,
		      uint64_t bytes, int with_latency)
{
	if (link_is_infinite(l))
		return 0;
	double a = link_rate(l, dir, 0), b = link_rate(l, dir, 1);
	double r = a > b ? a : b;
	double t = r > 0 ? (double)bytes / r : 0;
	return with_latency ? t + l->latency_ns : t;
}

static int push_var(struct search *S, const struct xvar *x)
{
	if (S->nv % 64 == 0) {
		struct xvar *v = realloc(S->v, (S->nv + 64) * sizeof(*v));
		if (!v)
			return -1;
		S->v = v;
	}
	S->v[S->nv++] = *x;
	return 0;
}

/* The start of request k's event on the trace. */
static double req_s(const struct search *S, uint64_t k)
{
	return S->ev_s[S->c->clock.ev[k]];
}

/* Up to EXACT_GRID points of [a, b] (a <= b), a and b among them. */
static size_t grid(uint64_t a, uint64_t b, uint64_t *g)
{
	size_t n = 0;
	for (size_t i = 0; i < EXACT_GRID; i++) {
		uint64_t x = a + (b - a) * i / (EXACT_GRID - 1);
		if (!n || x != g[n - 1])
			g[n++] = x;
	}
	return n;
}

/*
 * The options of gap g: a hole [start, end) for each pair of grid points.
 * Its bytes can serve an allocation at a request j only once the swap-out
 * has ended (the runtime makes it wait), so a hole counted from start
 * stalls at least e_out + t_out - s(j) for the first j it serves; the
 * option stands for every plan whose first reuse lies before the next
 * start point, and is charged the least of them (at the request before
 * it).  Likewise the swap-in issued at end stalls at least s(end) + t_in
 * - s(use); the option stands for ends after the previous end point and
 * is charged at the first of them.  Both waits fall in disjoint stretches
 * (the reuse comes before the swap-in), so they add; the chain out then
 * in bounds them too.
 */
static int gap_options(struct search *S, uint32_t g)
{
	const struct swap_ctx *c = S->c;
	const struct trace_gap *G = &c->gaps[g];
	uint64_t lo = G->out_min + 1, hi = G->in_max;
	if (hi <= lo)
		return 0;
	struct xvar x = { 0 };
	x.swap = 1;
	x.idx = g;
	x.bytes = G->bytes;
	x.at = -1;
	x.ev_lo = c->clock.ev[G->out_min];
	x.ev_hi = G->next_ev;
	x.w_lo = S->ev_e[x.ev_lo];
	x.w_hi = S->ev_s[x.ev_hi];
	x.t_out = copy_ns(&c->link, LINK_D2H, G->bytes, 1);
	x.t_in = copy_ns(&c->link, LINK_H2D, G->bytes, 1);
	x.b_out = copy_ns(&c->link, LINK_D2H, G->bytes, 0);
	x.b_in = copy_ns(&c->link, LINK_H2D, G->bytes, 0);
	/* starts: from lo to the first request the swap-out can be over by */
	uint64_t ks = lo;
	while (ks < hi - 1 && req_s(S, ks) < x.w_lo + x.t_out)
		ks++;
	/* ends: from the last request the swap-in leaves time after, to hi */
	uint64_t ki = hi;
	while (ki > lo + 1 && req_s(S, ki) + x.t_in > x.w_hi)
		ki--;
	uint64_t st[EXACT_GRID], en[EXACT_GRID];
	size_t ns = grid(lo, ks, st), ne = grid(ki, hi, en);
	double chain = x.t_out + x.t_in - (x.w_hi - x.w_lo);
	for (size_t i = 0; i < ns; i++) {
		uint64_t next = i + 1 < ns ? st[i + 1] : hi;
		double out = x.w_lo + x.t_out - req_s(S, next - 1);
		for (size_t j = 0; j < ne; j++) {
			if (en[j] <= st[i])
				continue;
			uint64_t first = j ? en[j - 1] + 1 : lo + 1;
			double in = req_s(S, first) + x.t_in - x.w_hi;
			x.lo = st[i];
			x.hi = en[j];
			x.lack = (out > 0 ? out : 0) + (in > 0 ? in : 0);
			if (chain > x.lack)
				x.lack = chain;
			if (push_var(S, &x))
				return -1;
		}
	}
	return 0;
}

static int push_mem(struct search *S, uint32_t buf, int64_t last_fwd,
		    int64_t at)
{
	const struct alloc_clock *k = &S->c->clock;
	if (S->nmem % 64 == 0) {
		struct xmem *v = realloc(S->mem, (S->nmem + 64) * sizeof(*v));
		if (!v)
			return -1;
		S->mem = v;
	}
	const struct recomp_buf *b = &S->m.b[buf];
	struct xmem *x = &S->mem[S->nmem++];
	x->buf = buf;
	x->last_fwd = last_fwd;
	x->bytes = b->item >= 0 ? b->bytes : 0;
	x->lo = k->first_after[last_fwd + 1];
	x->hi = k->first_after[at];
	if (x->hi < x->lo)
		x->hi = x->lo;
	return 0;
}

/*
 * A group of n buffers (their last forward uses lf) made again by one
 * re-run before event at, as a binary when its re-run can be made alone
 * and takes something away; its cost that of the group closed alone.
 * Returns 0 or -1 (out of memory).
 */
static int add_group(struct search *S, const uint32_t *mem, const int64_t *lf,
		     size_t n, int64_t at)
{
	if (n < 2 || at < 0)
		return 0;
	struct recomp_groups g;
	if (recomp_groups_init(&g, S->m.n, 1))
		return -1;
	for (size_t i = 0; i < n; i++) {
		g.group[mem[i]] = 0;
		g.last_fwd[mem[i]] = lf[i];
	}
	g.at[0] = at;
	size_t dropped = 0;
	char err[64];
	int rc = recomp_groups_close(&S->m, &g, &dropped, err, sizeof(err));
	if (rc) {
		recomp_groups_free(&g);
		return -1;
	}
	if (dropped || !g.nkernels[0]) {
		recomp_groups_free(&g);
		return 0;
	}
	struct xvar x = { 0 };
	x.idx = mem[0];
	x.cost_ns = g.cost_ns[0];
	x.at = at;
	x.k_first = g.first[0];
	x.k_last = g.last[0];
	x.mem0 = (uint32_t)S->nmem;
	x.lo = UINT64_MAX;
	recomp_groups_free(&g);
	for (size_t i = 0; i < n; i++) {
		if (push_mem(S, mem[i], lf[i], at))
			return -1;
		const struct xmem *e = &S->mem[S->nmem - 1];
		if (e->bytes && e->hi > e->lo) {
			x.bytes += e->bytes;
			if (e->lo < x.lo)
				x.lo = e->lo;
			if (e->hi > x.hi)
				x.hi = e->hi;
		}
	}
	x.nmem = (uint32_t)n;
	if (!x.bytes) {
		S->nmem = x.mem0;
		return 0;
	}
	return push_var(S, &x);
}

/* Lists of buffers by key: key[i] < 0 leaves i out; the members of key
 * k in ascending order from head[k] along next[] (-1 ends). */
static void bucket(const int64_t *key, size_t n, int64_t *head, int64_t *next)
{
	for (size_t i = n; i-- > 0;) {
		if (key[i] < 0)
			continue;
		next[i] = head[key[i]];
		head[key[i]] = (int64_t)i;
	}
}

/* The group of the members listed from first, each freed after lf_of[i]
 * (NULL: its own last_fwd), made again before at or, with uses, before
 * the first next use of any member if that comes earlier. */
static int add_listed(struct search *S, int64_t first, const int64_t *next,
		      const int64_t *lf_of, int64_t at, int uses,
		      uint32_t *mem, int64_t *lf)
{
	size_t n = 0;
	for (int64_t i = first; i >= 0; i = next[i]) {
		mem[n] = (uint32_t)i;
		lf[n++] = lf_of ? lf_of[i] : S->m.b[i].last_fwd;
		if (uses && S->m.b[i].next_use < at)
			at = S->m.b[i].next_use;
	}
	return add_group(S, mem, lf, n, at);
}

/* The groups: a random draw's outputs (recomp_buf.sib), then the
 * segments of every layer and of sqrt(n) layers; linear in the buffers
 * but for the groups' own closing. */
static int make_groups(struct search *S)
{
	const struct recomp_model *m = &S->m;
	size_t n = m->n ? m->n : 1;
	uint32_t *mem = malloc(n * sizeof(*mem));
	int64_t *lf = malloc(n * sizeof(*lf));
	int64_t *key = malloc(n * sizeof(*key));
	int64_t *head = malloc(n * sizeof(*head));
	int64_t *next = malloc(n * sizeof(*next));
	int rc = mem && lf && key && head && next ? 0 : -1;
	for (size_t i = 0; i < m->n && !rc; i++) {
		const struct recomp_buf *b = &m->b[i];
		const struct recomp_buf *l = &m->b[b->sib];
		int ok = b->why == RECOMP_OK && b->item >= 0 &&
			 l->why == RECOMP_OK && l->sib == b->sib;
		key[i] = ok ? b->sib : -1;
		head[i] = -1;
	}
	if (!rc)
		bucket(key, m->n, head, next);
	for (size_t l = 0; l < m->n && !rc; l++)
		if (head[l] >= 0 && next[head[l]] >= 0) /* two or more */
			rc = add_listed(S, head[l], next, NULL,
					m->b[l].next_use, 1, mem, lf);
	for (unsigned per = 1; per <= 2 && !rc; per++) {
		struct recomp_groups g;
		size_t nseg;
		char err[128];
		/* per 2 stands for sqrt(n) (recomp_choose_checkpoints's 0) */
		int r = recomp_choose_checkpoints(m, per == 1 ? 1 : 0, &g,
						  &nseg, err, sizeof(err));
		if (r == TRACE_ENOMEM)
			rc = -1;
		if (r == 0) {
			for (size_t i = 0; i < m->n; i++) {
				key[i] = g.group[i];
				head[i] = -1;
			}
			bucket(key, m->n, head, next);
			for (size_t k = 0; k < g.ngroups && !rc; k++)
				if (head[k] >= 0)
					rc = add_listed(S, head[k], next,
							g.last_fwd, g.at[k], 0,
							mem, lf);
		}
		recomp_groups_free(&g);
	}
	free(mem);
	free(lf);
	free(key);
	free(head);
	free(next);
	return rc;
}

/* The binaries of the space: re-runs (alone, then groups), then swaps. */
static int make_vars(struct search *S)
{
	const struct swap_ctx *c = S->c;
	if (S->o->space != EXACT_SWAP) {
		for (size_t i = 0; i < S->m.n; i++) {
			const struct recomp_buf *b = &S->m.b[i];
			if (b->why != RECOMP_OK || b->item < 0)
				continue;
			struct xvar x = { 0 };
			x.idx = (uint32_t)i;
			x.bytes = b->bytes;
			x.cost_ns = b->cost_ns;
			x.at = b->next_use;
			x.mem0 = (uint32_t)S->nmem;
			x.nmem = 1;
			if (push_mem(S, (uint32_t)i, b->last_fwd, b->next_use))
				return -1;
			x.lo = S->mem[x.mem0].lo;
			x.hi = S->mem[x.mem0].hi;
			if (x.hi <= x.lo) {
				S->nmem--;
				continue;
			}
			if (push_var(S, &x))
				return -1;
		}
		/* a trace over the limits is refused (search_init()): its
		 * groups would only cost their closing */
		if (S->nv <= EXACT_MAX_BINARIES &&
		    c->clock.n <= EXACT_MAX_STEPS && make_groups(S))
			return -1;
	}
	if (S->o->space != EXACT_RECOMPUTE)
		for (size_t g = 0; g < c->ngaps; g++)
			if (gap_options(S, (uint32_t)g))
				return -1;
	return 0;
}

/* The events' spans as the simulator takes them (sim_event_span()). */
static int spans(struct search *S)
{
	const struct trace *t = S->c->t;
	size_t n = t->nevents ? t->nevents : 1;
	S->ev_s = malloc(n * sizeof(*S->ev_s));
	S->ev_e = malloc(n * sizeof(*S->ev_e));
	if (!S->ev_s || !S->ev_e)
		return -1;
	int64_t prev = t->nevents ? t->events[0].t_start : 0;
	if (prev == TRACE_TIME_NONE)
		prev = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		int64_t s0, e0;
		sim_event_span(&t->events[i], &prev, &s0, &e0);
		S->ev_s[i] = (double)s0;
		S->ev_e[i] = (double)e0;
	}
	return 0;
}

/* Appends to (ind, val) minus the re-runs that run between events lo
 * (exclusive) and hi (inclusive): they widen a window by their cost. */
static size_t add_reruns(const struct search *S, int64_t lo, int64_t hi,
			 uint32_t *ind, double *val, size_t nz, double sign)
{
	for (size_t j = 0; j < S->nv; j++)
		if (!S->v[j].swap && S->v[j].at > lo && S->v[j].at <= hi &&
		    S->v[j].cost_ns > 0) {
			ind[nz] = (uint32_t)j;
			val[nz++] = sign * S->v[j].cost_ns / 1e3;
		}
	return nz;
}

/*
 * The rows: memory at every step above the budget, the stall of each
 * swap's own copies, the lanes' windows, and what cannot meet.  Times in
 * microseconds, bytes in MiB (the solvers' tolerances are relative).  Returns 0,
 * 1 when some step is above the budget with nothing to take away there
 * (nothing fits, proven), -1 out of memory.
 */
static int make_rows(struct search *S)
{
	const struct swap_ctx *c = S->c;
	size_t n = c->clock.n, nv = S->nv;
	uint64_t *prof = malloc((n ? n : 1) * sizeof(*prof));
	uint32_t *ind = malloc((nv + 1) * sizeof(*ind));
	double *val = malloc((nv + 1) * sizeof(*val));
	S->lp.n = nv;
	S->lp.cost = calloc(nv ? nv : 1, sizeof(*S->lp.cost));
	int rc = -1;
	uint64_t peak, at;
	if (!prof || !ind || !val || !S->lp.cost ||
	    swap_profile(c, NULL, 0, prof, &peak, &at))
		goto out;
	/* a hair per decision: among plans of equal bound, fewer decisions,
	 * so that the answer does not depend on the solver's order of branching */
	for (size_t j = 0; j < nv; j++)
		S->lp.cost[j] = (S->v[j].swap ? 0 : S->v[j].cost_ns / 1e3) +
				1e-6 * (double)(j + 1);
	rc = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		if (prof[k] <= S->budget)
			continue;
		size_t nz = 0;
		for (size_t j = 0; j < nv; j++) {
			const struct xvar *x = &S->v[j];
			if (x->lo > k || k >= x->hi)
				continue;
			uint64_t away = x->swap ? x->bytes : 0;
			for (uint32_t q = 0; !x->swap && q < x->nmem; q++) {
				const struct xmem *e = &S->mem[x->mem0 + q];
				if (e->lo <= k && k < e->hi)
					away += e->bytes;
			}
			if (!away)
				continue;
			ind[nz] = (uint32_t)j;
			val[nz++] = (double)away / 1048576.0;
		}
		if (!nz) {
			rc = 1;
			break;
		}
		if (exact_lp_add(&S->lp, 'G',
				 (double)(prof[k] - S->budget) / 1048576.0, 0,
				 ind, val, nz))
			rc = -1;
	}
	for (size_t j = 0; j < nv && !rc; j++) {
		const struct xvar *x = &S->v[j];
		double lack = x->swap ? x->lack : 0;
		if (lack <= 0)
			continue;
		/* d >= lack x - re-runs inside */
		ind[0] = (uint32_t)j;
		val[0] = -lack / 1e3;
		size_t nz = add_reruns(S, x->ev_lo, x->ev_hi, ind, val, 1, 1.0);
		if (exact_lp_add(&S->lp, 'G', 0, 1.0, ind, val, nz))
			rc = -1;
	}
out:
	free(prof);
	free(ind);
	free(val);
	return rc;
}

/* Is binary j the first option of a swapped gap? */
static int first_option(const struct search *S, size_t j)
{
	return S->v[j].swap &&
	       (j == 0 || !S->v[j - 1].swap || S->v[j - 1].idx != S->v[j].idx);
}

/* One option per gap at most. */
static int option_rows(struct search *S)
{
	uint32_t *ind = malloc((S->nv ? S->nv : 1) * sizeof(*ind));
	double *val = malloc((S->nv ? S->nv : 1) * sizeof(*val));
	int rc = ind && val ? 0 : -1;
	for (size_t j = 0; j < S->nv && !rc; j++) {
		if (!first_option(S, j))
			continue;
		size_t nz = 0;
		for (size_t f = j; f < S->nv && S->v[f].swap &&
				   S->v[f].idx == S->v[j].idx; f++) {
			ind[nz] = (uint32_t)f;
			val[nz++] = 1;
		}
		if (nz > 1 && exact_lp_add(&S->lp, 'L', 1, 0, ind, val, nz))
			rc = -1;
	}
	free(ind);
	free(val);
	return rc;
}

/* The lane rows: for each window [a, b] from one swap's start to
 * another's end, the bytes of the swaps inside it at the fastest rate
 * <= b - a + d + re-runs inside, where that can bind.  At most 20,000. */
static int lane_rows(struct search *S)
{
	size_t nv = S->nv, made = 0;
	uint32_t *ind = malloc((2 * nv + 1) * sizeof(*ind));
	double *val = malloc((2 * nv + 1) * sizeof(*val));
	int rc = 0;
	if (!ind || !val) {
		rc = -1;
		goto out;
	}
	for (int dir = 0; dir < 2 && !rc; dir++)
		for (size_t a = 0; a < nv && !rc; a++) {
			if (!first_option(S, a))
				continue;
			for (size_t b = 0; b < nv && !rc && made < 20000; b++) {
				const struct xvar *A = &S->v[a], *B = &S->v[b];
				if (!first_option(S, b) || B->w_hi <= A->w_lo)
					continue;
				size_t nz = 0, inside = 0;
				double sum = 0;
				for (size_t f = 0; f < nv; f++) {
					const struct xvar *F = &S->v[f];
					if (!F->swap || F->w_lo < A->w_lo ||
					    F->w_hi > B->w_hi)
						continue;
					double t = dir ? F->b_in : F->b_out;
					ind[nz] = (uint32_t)f;
					val[nz++] = t / 1e3;
					sum += t;
					inside++;
				}
				if (inside < 2 || sum <= B->w_hi - A->w_lo)
					continue;
				nz = add_reruns(S, A->ev_lo, B->ev_hi, ind, val,
						nz, -1.0);
				if (exact_lp_add(&S->lp, 'L',
						 (B->w_hi - A->w_lo) / 1e3, -1.0,
						 ind, val, nz))
					rc = -1;
				made++;
			}
		}
out:
	free(ind);
	free(val);
	return rc;
}

/* Does the re-run of buffer j's producer read buffer b? */
static int rerun_reads(const struct search *S, size_t j, int64_t b)
{
	const struct trace *t = S->c->t;
	const struct recomp_buf *B = &S->m.b[j];
	for (unsigned r = 0; r < B->nrerun; r++) {
		const struct trace_event *e = &t->events[B->rerun[r]];
		for (uint32_t a = 0; a < e->nacc; a++)
			if (t->accesses[e->acc0 + a].buffer == b)
				return 1;
	}
	return 0;
}

/* Does recompute binary j's re-run read buffer b?  A group's: any event
 * from its first kernel to its last (more than it runs: fewer answers). */
static int var_reads(const struct search *S, size_t j, int64_t b)
{
	const struct xvar *x = &S->v[j];
	if (x->nmem < 2)
		return rerun_reads(S, x->idx, b);
	const struct trace *t = S->c->t;
	for (int64_t e = x->k_first; e >= 0 && e <= x->k_last; e++) {
		const struct trace_event *ev = &t->events[e];
		for (uint32_t a = 0; a < ev->nacc; a++)
			if (t->accesses[ev->acc0 + a].buffer == b)
				return 1;
	}
	return 0;
}

/* Is b a member of recompute binary j? */
static int var_has(const struct search *S, size_t j, int64_t b)
{
	const struct xvar *x = &S->v[j];
	for (uint32_t q = 0; q < x->nmem; q++)
		if ((int64_t)S->mem[x->mem0 + q].buf == b)
			return 1;
	return 0;
}

/* Do recompute binaries r and x meet: a shared member, or r's re-run
 * reading a member of x that is away at r's point? */
static int vars_meet(const struct search *S, size_t r, size_t x)
{
	const struct xvar *R = &S->v[r], *X = &S->v[x];
	for (uint32_t q = 0; q < X->nmem; q++) {
		const struct xmem *e = &S->mem[X->mem0 + q];
		if (var_has(S, r, e->buf))
			return 1;
		if (e->last_fwd < R->at && R->at <= X->at &&
		    var_reads(S, r, e->buf))
			return 1;
	}
	return 0;
}

/* Does re-run j read the buffer of swap option i inside its gap?  With
 * hole, only where the option's hole reaches the re-run (its swap-in is
 * issued at or after the re-run's first request). */
static int reads_swapped(const struct search *S, size_t j, size_t i, int hole)
{
	const struct xvar *R = &S->v[j], *X = &S->v[i];
	const struct trace_gap *G = &S->c->gaps[X->idx];
	if ((int64_t)G->use_ev >= R->at || R->at > (int64_t)G->next_ev)
		return 0;
	if (hole && X->hi < S->c->clock.first_after[R->at])
		return 0;
	return var_reads(S, j, G->buffer);
}

/*
 * Pairs that cannot meet, x_i + x_j <= 1: a buffer swapped and
 * recomputed, a re-run reading a swapped gap's buffer inside the hole, a
 * re-run reading a buffer recomputed and away there.  A re-run reading
 * the buffer after the hole but before the gap's end may meet the swap in
 * the program (hybrid's plans do: a swap back before the re-run that
 * reads it, seed_hybrid()) but realize() builds no plan of it: those
 * answers are not plans of the space, cut like any other.
 */
static int conflict_rows(struct search *S)
{
	const struct swap_ctx *c = S->c;
	for (size_t j = 0; j < S->nv; j++) {
		const struct xvar *R = &S->v[j];
		if (R->swap)
			continue;
		for (size_t i = 0; i < S->nv; i++) {
			const struct xvar *X = &S->v[i];
			int meet;
			if (X->swap) {
				const struct trace_gap *G = &c->gaps[X->idx];
				meet = var_has(S, j, G->buffer) ||
				       reads_swapped(S, j, i, 1);
			} else if (i > j) {
				meet = vars_meet(S, j, i) || vars_meet(S, i, j);
			} else {
				continue;
			}
			if (!meet)
				continue;
			uint32_t ind[2] = { (uint32_t)i, (uint32_t)j };
			double val[2] = { 1, 1 };
			if (exact_lp_add(&S->lp, 'L', 1, 0, ind, val, 2))
				return -1;
		}
	}
	return 0;
}

/* Cuts answer x off: sum over x=0 of x_j - sum over x=1 of x_j >= 1 - |x|. */
static int cut(struct search *S, const uint8_t *x)
{
	uint32_t *ind = malloc((S->nv ? S->nv : 1) * sizeof(*ind));
	double *val = malloc((S->nv ? S->nv : 1) * sizeof(*val));
	int rc = -1;
	if (ind && val) {
		double ones = 0;
		for (size_t j = 0; j < S->nv; j++) {
			ind[j] = (uint32_t)j;
			val[j] = x[j] ? -1.0 : 1.0;
			ones += x[j];
		}
		rc = exact_lp_add(&S->lp, 'G', 1.0 - ones, 0, ind, val, S->nv);
	}
	free(ind);
	free(val);
	return rc;
}

/* What an answer is built on: the trace as it recomputes, or c's own. */
struct built {
	struct recomp_groups g;
	struct trace *t2;
	int64_t *orig;
	struct solver_problem p2;
	struct swap_ctx c2;
	int own;
};

static void built_free(struct built *B)
{
	recomp_groups_free(&B->g);
	if (B->own) {
		swap_ctx_free(&B->c2);
		solver_problem_free(&B->p2);
	}
	trace_free(B->t2);
	free(B->orig);
	memset(B, 0, sizeof(*B));
}

/* Places ops on c2 and, if the pool fits, builds, verifies and simulates
 * the plan.  Returns 0 (*plan, *sim the caller's), 1 (no fit), or an
 * error with a sentence. */
static int place(const struct search *S, const struct swap_ctx *c2,
		 const struct swap_op *ops, size_t nops, struct mp_plan *plan,
		 struct sim_result *sim, char *err, size_t errlen)
{
	const struct solver_problem *p = c2->p;
	struct solver_problem q = { 0 };
	struct mp_plan_swap *ent = NULL;
	uint64_t *off = malloc((p->n ? p->n : 1) * sizeof(*off));
	int rc = TRACE_ENOMEM;
	memset(plan, 0, sizeof(*plan));
	memset(sim, 0, sizeof(*sim));
	if (!off || swap_problem_with_holes(c2, ops, nops, &q)) {
		trace_seterr(err, errlen, rc, "out of memory");
		goto out;
	}
	struct solver_report r;
	struct solver_options so = { .time_limit = 0.5 };
	rc = solver_solve(&q, S->placer, &so, off, &r, err, errlen);
	if (!rc && r.height > S->budget) {
		/* the heuristic placer's fragments are not the search's to
		 * judge: the exact placement, counted so it repeats */
		struct solver_options ex = { .work_limit = EXACT_PLACE_WORK,
					     .max_threads = 1 };
		rc = solver_solve(&q, "auto", &ex, off, &r, err, errlen);
	}
	if (rc)
		goto out;
	if (r.height > S->budget) {
		rc = 1;
		goto out;
	}
	uint64_t staging;
	rc = swap_plan_entries(c2, ops, nops, &ent, &staging, err, errlen);
	if (rc)
		goto out;
	char stored[MP_PLAN_STRATEGY_LEN];
	snprintf(stored, sizeof(stored), "%.20s+optimal", S->placer);
	struct planfile_info info = { S->align, stored, 0, 0 };
	struct planfile_swaps sw = { ent, (uint32_t)nops, staging };
	rc = planfile_build_swaps(c2->t, &q, off, &info, &sw, plan, err, errlen);
	if (rc)
		goto out;
	char why[768];
	rc = planfile_verify(plan, c2->t, why, sizeof(why));
	if (rc) {
		rc = rc == TRACE_ENOMEM
			     ? trace_seterr(err, errlen, rc, "%s", why)
			     : trace_seterr(err, errlen, TRACE_EINVAL,
					    "internal error: the optimal plan does not verify: %s",
					    why);
		goto out;
	}
	rc = sim_run(c2->t, plan, &c2->link, sim, err, errlen);
	if (!rc && sim_attach_timing(plan, sim)) {
		sim_free(sim);
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	}
out:
	if (rc)
		mp_plan_free(plan);
	free(ent);
	free(off);
	swap_problem_free(&q);
	return rc;
}

/*
 * The swap of option x (a hole [x->lo, x->hi) of the original's gap) on
 * gap h of c2: the same requests when c2 is the original's context, else
 * the hole opened as long after the swap-out and closed as long before the
 * use as the option's.  0 when that leaves no hole.
 */
static int option_op(const struct search *S, const struct swap_ctx *c2,
		     const struct xvar *x, uint32_t h, struct swap_op *op)
{
	const struct trace_gap *G = &c2->gaps[h];
	uint64_t lo = x->lo, in_at = x->hi;
	if (c2 != S->c) {
		const int64_t *t = c2->clock.t, *t1 = S->c->clock.t;
		const struct trace_gap *G1 = &S->c->gaps[x->idx];
		int64_t after = t1[x->lo] - t1[G1->out_min];
		int64_t before = G1->t_need - t1[x->hi];
		lo = G->out_min + 1;
		while (lo < G->in_max && t[lo] - t[G->out_min] < after)
			lo++;
		in_at = G->in_max;
		while (in_at > lo && G->t_need - t[in_at] < before)
			in_at--;
	}
	*op = (struct swap_op){ h, G->out_min, lo, in_at };
	return lo < in_at;
}

/* The gap of c2 that gap g of the original stands for: the same buffer's
 * gap of the same rank; -1 when the buffer's gaps differ in number. */
static int64_t map_gap(const struct search *S, const struct built *B,
		       const struct swap_ctx *c2, uint32_t g)
{
	const struct swap_ctx *c = S->c;
	int64_t b = c->gaps[g].buffer;
	size_t rank = 0, n1 = 0, n2 = 0;
	int64_t found = -1;
	for (size_t h = 0; h < c->ngaps; h++)
		if (c->gaps[h].buffer == b) {
			if (h < g)
				rank++;
			n1++;
		}
	for (size_t h = 0; h < c2->ngaps; h++) {
		int64_t b2 = c2->gaps[h].buffer;
		if ((B->orig ? B->orig[b2] : b2) != b)
			continue;
		if (n2 == rank)
			found = (int64_t)h;
		n2++;
	}
	return n1 == n2 ? found : -1;
}

/* Keeps (plan, sim) if the first or predicted faster (then a smaller
 * pool), else frees it. */
static void keep(struct search *S, struct mp_plan *plan,
		 struct sim_result *sim, const uint8_t *x)
{
	int better = !S->have || sim->iter_ns < S->sim.iter_ns ||
		     (sim->iter_ns == S->sim.iter_ns &&
		      plan->pool_size < S->plan.pool_size);
	if (!better) {
		mp_plan_free(plan);
		sim_free(sim);
		return;
	}
	if (S->have) {
		mp_plan_free(&S->plan);
		sim_free(&S->sim);
	}
	S->plan = *plan;
	S->sim = *sim;
	memcpy(S->best_x, x, S->nv);
	S->have = 1;
}

/* The trace of answer x as it recomputes (B), or 1 when the re-runs
 * cannot be made together. */
static int build(struct search *S, const uint8_t *x, struct built *B,
		 char *err, size_t errlen)
{
	size_t nre = 0, dropped = 0;
	int rc;
	for (size_t j = 0; j < S->nv; j++)
		nre += x[j] && !S->v[j].swap;
	if (!nre)
		return 0;
	if (recomp_groups_init(&B->g, S->m.n, nre))
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	/* one group per re-run, in binary order (singles first, as
	 * recomp_groups_from_choice() numbers them), costs summed alone */
	double want = 0;
	size_t k = 0;
	for (size_t j = 0; j < S->nv; j++) {
		const struct xvar *v = &S->v[j];
		if (!x[j] || v->swap)
			continue;
		for (uint32_t q = 0; q < v->nmem; q++) {
			const struct xmem *e = &S->mem[v->mem0 + q];
			if (B->g.group[e->buf] >= 0)
				return 1; /* two re-runs of one buffer */
			B->g.group[e->buf] = (int32_t)k;
			B->g.last_fwd[e->buf] = e->last_fwd;
		}
		B->g.at[k++] = v->at;
		want += v->cost_ns;
	}
	rc = recomp_groups_close(&S->m, &B->g, &dropped, err, errlen);
	if (rc || dropped)
		return rc ? rc : 1;
	double got = 0;
	for (size_t q = 0; q < B->g.ngroups; q++)
		got += B->g.cost_ns[q];
	if (fabs(got - want) > 1e-9 * want + 1.0)
		return 1; /* re-runs that met: dearer than the program says */
	rc = recomp_transform_groups(&S->m, &B->g, &B->t2, &B->orig, err,
				     errlen);
	if (rc)
		return rc == TRACE_ENOMEM ? rc : 1;
	rc = solver_problem_from_trace(B->t2, &B->p2, err, errlen);
	if (rc)
		return rc;
	solver_problem_drop_holes(&B->p2);
	if (S->align > 1 &&
	    (rc = solver_problem_align(&B->p2, S->align, err, errlen)))
		return rc;
	B->own = 1;
	rc = swap_ctx_init(&B->c2, B->t2, &B->p2, &S->c->link, err, errlen);
	return rc == TRACE_EINVAL ? 1 : rc;
}

/*
 * Builds answer x into plans (each swap rule in turn) and keeps the best
 * that fits.  Returns 0 (something fitted), 1 (nothing of x fits: not a
 * plan of the space), or an error with a sentence.
 */
static int realize(struct search *S, const uint8_t *x, char *err,
		   size_t errlen)
{
	struct built B = { 0 };
	struct swap_op *ops = malloc((S->nv ? S->nv : 1) * sizeof(*ops));
	uint32_t *gap = malloc((S->nv ? S->nv : 1) * sizeof(*gap));
	int rc = 0, fitted = 0;
	size_t n = 0;
	if (!ops || !gap) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
		goto out;
	}
	/* a re-run reading a swapped buffer inside its gap: the program
	 * allows it after the hole (conflict_rows()), the swap rules here
	 * do not build it */
	for (size_t j = 0; j < S->nv && !rc; j++)
		for (size_t i = 0; x[j] && !S->v[j].swap && i < S->nv && !rc;
		     i++)
			if (x[i] && S->v[i].swap && reads_swapped(S, j, i, 0))
				rc = 1;
	if (!rc)
		rc = build(S, x, &B, err, errlen);
	if (rc)
		goto out;
	const struct swap_ctx *c2 = B.own ? &B.c2 : S->c;
	for (size_t j = 0; j < S->nv && !rc; j++) {
		if (!x[j] || !S->v[j].swap)
			continue;
		int64_t h = map_gap(S, &B, c2, S->v[j].idx);
		if (h < 0)
			rc = 1;
		else
			gap[n++] = (uint32_t)h;
	}
	size_t n2 = 0;
	for (size_t j = 0; j < S->nv && !rc; j++) {
		if (!x[j] || !S->v[j].swap)
			continue;
		if (!option_op(S, c2, &S->v[j], gap[n2], &ops[n2]))
			rc = 1;
		n2++;
	}
	/* the swaps as chosen, then with their swap-outs issued in the
	 * order their holes open: the lanes run copies in issue order, so
	 * one issued early but needed late no longer holds up the others
	 * (the same holes: the second fits wherever the first does) */
	for (int pass = 0; !rc && pass < 2; pass++) {
		int moved = pass && n >= 2 ? swap_issue_by_deadline(c2, ops, n) : 0;
		if (moved < 0)
			rc = trace_seterr(err, errlen, TRACE_ENOMEM,
					  "out of memory");
		if (pass && moved <= 0)
			break;
		struct mp_plan plan;
		struct sim_result sim;
		int r = place(S, c2, ops, n, &plan, &sim, err, errlen);
		if (r == 0) {
			keep(S, &plan, &sim, x);
			fitted = 1;
		} else if (r != 1 || !pass) {
			rc = r;
		}
	}
	if (!rc && !fitted)
		rc = 1;
out:
	built_free(&B);
	free(ops);
	free(gap);
	return rc;
}

static void search_free(struct search *S)
{
	if (!S->model_lent)
		recomp_model_free(&S->m);
	exact_lp_free(&S->lp);
	free(S->v);
	free(S->mem);
	free(S->ev_s);
	free(S->ev_e);
	free(S->best_x);
	if (S->have) {
		mp_plan_free(&S->plan);
		sim_free(&S->sim);
	}
}

/* The model, its binaries and rows.  Returns 0, 1 (a step above the
 * budget that nothing can empty: no plan fits, proven), or an error. */
static int search_init(struct search *S, char *err, size_t errlen)
{
	const struct swap_ctx *c = S->c;
	int rc = S->model_lent ? 0
			       : recomp_model_init(&S->m, c->t, c->p, err, errlen);
	if (rc)
		return rc;
	if (spans(S) || make_vars(S))
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	if (S->nv > EXACT_MAX_BINARIES || c->clock.n > EXACT_MAX_STEPS)
		return trace_seterr(err, errlen, SOLVER_ENOTFOUND,
				    "the trace is too large for the exact search: %zu decisions (at most %d) over %zu requests (at most %d); the heuristics (hybrid) plan it",
				    S->nv, EXACT_MAX_BINARIES, c->clock.n,
				    EXACT_MAX_STEPS);
	S->best_x = malloc(S->nv ? S->nv : 1);
	if (!S->best_x)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	rc = make_rows(S);
	if (rc == 0 && (option_rows(S) || lane_rows(S) || conflict_rows(S)))
		rc = -1;
	if (rc < 0)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	return rc;
}

/* The program's optimum less the hairs of make_rows(), in ns: a lower
 * bound of the program without them.  Never below 0: the simulator only
 * delays events, so no plan is predicted faster than the trace (without
 * that, the hairs of 700 binaries, 0.26 us, kept a free plan on a 2 ms
 * iteration from being proven, and the search spent its rounds on it). */
static double bound_of(const struct search *S, double obj)
{
	double hair = 0;
	for (size_t j = 0; j < S->nv; j++)
		hair += 1e-6 * (double)(j + 1);
	double b = (obj - hair) * 1e3;
	return b > 0 ? b : 0;
}

/* Solves, builds and cuts until the bound meets the best plan, the
 * program is infeasible, a time limit ends one, or the rounds run out. */
static int search_run(struct search *S, struct exact_result *er, char *err,
		      size_t errlen)
{
	unsigned rounds = S->o->max_rounds ? S->o->max_rounds : 40;
	double tl = S->o->time_limit > 0 ? S->o->time_limit : 60;
	uint8_t *x = malloc(S->nv ? S->nv : 1);
	int rc = 0;
	if (!x)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	er->bound_ns = 0;
	while (er->rounds < rounds) {
		double obj;
		int ans = exact_milp_solve(&S->lp, tl, x, &obj, err, errlen);
		er->rounds++;
		if (ans < 0) {
			rc = TRACE_EINVAL;
			break;
		}
		double best = S->have ? S->sim.iter_ns - S->sim.base_ns : INFINITY;
		if (ans == EXACT_MILP_INFEASIBLE) {
			er->bound_ns = best;
			er->proven = 1;
			break;
		}
		double b = bound_of(S, obj);
		if (ans == EXACT_MILP_LIMIT) {
			er->lp_only = 1;
			er->bound_ns = b < best ? b : best;
			break;
		}
		er->bound_ns = b < best ? b : best;
		if (b >= best - EXACT_TOLERANCE * S->m.base_ns) {
			er->proven = 1;
			break;
		}
		rc = realize(S, x, err, errlen);
		if (rc < 0)
			break;
		if (rc == 0)
			er->simulated++;
		rc = 0;
		if (cut(S, x)) {
			rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
			break;
		}
	}
	free(x);
	return rc;
}

/*
 * The hybrid space holds the recompute-only one, whose binaries are its
 * first ones (make_vars()) and whose program is small and tight (no
 * copies to bound): its best plan is S's first incumbent, so the hybrid
 * answer is never worse than the recompute-only one, however loose the
 * swaps' part of the program.  Returns 0 or an error (out of memory).
 */
static int seed_recompute(struct search *S, char *err, size_t errlen)
{
	struct exact_options o2 = *S->o;
	o2.space = EXACT_RECOMPUTE;
	struct search R = { 0 };
	R.m = S->m; /* the same trace's model, S's to free */
	R.model_lent = 1;
	R.c = S->c;
	R.o = &o2;
	R.budget = S->budget;
	R.align = S->align;
	R.placer = S->placer;
	struct exact_result er = { 0 };
	int rc = search_init(&R, err, errlen);
	if (rc == 0)
		rc = search_run(&R, &er, err, errlen);
	if (rc == 0 && R.have && R.nv <= S->nv) {
		S->plan = R.plan;
		S->sim = R.sim;
		S->have = 1;
		R.have = 0;
		memset(S->best_x, 0, S->nv);
		memcpy(S->best_x, R.best_x, R.nv);
	}
	search_free(&R);
	return rc == TRACE_ENOMEM ? rc : 0;
}

/* The rows x with stall d (us) leaves unsatisfied, counted. */
static size_t violations(const struct search *S, const uint8_t *x, double d)
{
	size_t bad = 0;
	for (size_t r = 0; r < S->lp.nrows; r++) {
		const struct exact_row *w = &S->lp.rows[r];
		double lhs = w->dcoef * d, mag = fabs(w->rhs) + fabs(lhs);
		for (size_t q = 0; q < w->nz; q++) {
			double t = w->val[q] * x[w->ind[q]];
			lhs += t;
			mag += fabs(t);
		}
		double tol = 1e-9 * mag + 1e-9;
		bad += w->sense == 'G' ? lhs < w->rhs - tol : lhs > w->rhs + tol;
	}
	return bad;
}

/* Do binaries x with stall d (us) satisfy every row of the program? */
static int satisfies(const struct search *S, const uint8_t *x, double d)
{
	return violations(S, x, d) == 0;
}

/*
 * Moves x's swaps to other options of their gaps while that leaves fewer
 * rows unsatisfied (with stall d): a plan's swap-in issued between two of
 * the options' grid points (or on a recomputing trace, between two of c's
 * requests) maps to the later one, which may ask for more stall than the
 * plan has, where the earlier one takes away enough bytes.  A guess like
 * the mappings: only the rows left decide.  Returns the rows x leaves
 * unmet (0: it satisfies every row, as satisfies() says).
 */
static size_t repair(const struct search *S, uint8_t *x, double d)
{
	size_t bad = violations(S, x, d);
	for (int moved = 1; bad && moved;) {
		moved = 0;
		for (size_t j = 0; j < S->nv && bad; j++) {
			if (!x[j] || !S->v[j].swap)
				continue;
			size_t best = j, least = bad;
			for (size_t f = 0; f < S->nv; f++) {
				if (f == j || !S->v[f].swap ||
				    S->v[f].idx != S->v[j].idx)
					continue;
				x[j] = 0;
				x[f] = 1;
				size_t b = violations(S, x, d);
				x[f] = 0;
				x[j] = 1;
				if (b < least) {
					least = b;
					best = f;
				}
			}
			if (best != j) {
				x[j] = 0;
				x[best] = 1;
				bad = least;
				moved = 1;
			}
		}
	}
	return bad;
}

/*
 * The binaries of swap plan (plan, sim) of c's own trace, if it lies in
 * the space: each swap a whole gap's, issued no earlier than the gap's
 * out_min, mapped to the option of least lack whose hole opens no later
 * than the first allocation that reuses the bytes (sim.reuse_event; none:
 * the swap-in's request) and closes no earlier than the swap-in is issued.
 * The bytes are then never less away in the option than in the plan (the
 * bytes nothing reuses count as away: the pool holds them apart from the
 * others either way).  A guess, not a proof: seed_heuristic() keeps x
 * only if it satisfies every row.  Returns 1 with x filled, 0 when it
 * does not map.
 */
static int map_swaps(const struct search *S, const struct mp_plan *plan,
		     const struct sim_result *sim, uint8_t *x)
{
	const struct swap_ctx *c = S->c;
	memset(x, 0, S->nv);
	if (sim->nswaps != plan->nswaps)
		return 0;
	for (uint32_t i = 0; i < plan->nswaps; i++) {
		const struct mp_plan_swap *w = &plan->swaps[i];
		if (w->request >= plan->nallocs || w->src_offset)
			return 0;
		int64_t b = (int64_t)plan->allocs[w->request].buffer;
		int64_t g = -1;
		for (size_t h = 0; h < c->ngaps && g < 0; h++)
			if (c->gaps[h].buffer == b &&
			    c->gaps[h].out_min <= w->out_at &&
			    w->in_at <= c->gaps[h].in_max &&
			    c->gaps[h].bytes == w->bytes)
				g = (int64_t)h;
		if (g < 0)
			return 0;
		uint64_t reuse = w->in_at;
		int64_t re = sim->swaps[i].reuse_event;
		if (re >= 0 && (size_t)re < c->t->nevents)
			reuse = c->clock.first_after[re];
		size_t pick = SIZE_MAX;
		for (size_t j = 0; j < S->nv; j++) {
			const struct xvar *v = &S->v[j];
			if (!v->swap || v->idx != (uint32_t)g || v->lo > reuse ||
			    v->hi < w->in_at)
				continue;
			if (pick == SIZE_MAX || v->lack < S->v[pick].lack)
				pick = j;
		}
		if (pick == SIZE_MAX || x[pick])
			return 0;
		x[pick] = 1;
	}
	return 1;
}

/*
 * The swap heuristic's plan (memplan's chooser, swap_plan_ctx()) as an
 * incumbent, when it lies in the space: mapped to binaries x (map_swaps())
 * that satisfy every row with d its simulated overhead.  Then (x, d) is a
 * point of the program whose objective is that overhead (plus the hairs
 * bound_of() takes off), so the program's optimum, and with it
 * bound_of(), is no more than it: the bound stays a lower bound of every
 * plan of the space with this one added, checked numerically, whatever
 * the mapping guessed.  x is not cut: its own plan (realize()) is built
 * when the program answers it, so cutting stays sound.  The plan keeps
 * memplan's name in the file.  Costs one swap_plan_ctx() (counted:
 * swap_search_work).  Returns 0 (seeded or not) or TRACE_ENOMEM with a
 * sentence.
 */
static int seed_heuristic(struct search *S, char *err, size_t errlen)
{
	if (S->o->space == EXACT_RECOMPUTE || !S->nv)
		return 0;
	struct mp_plan plan;
	struct sim_result sim;
	struct swap_outcome oc;
	char e2[512];
	int rc = swap_plan_ctx(S->c, "memplan", S->budget, S->placer, S->align,
			       &plan, &sim, &oc, e2, sizeof(e2));
	if (rc == TRACE_ENOMEM)
		return trace_seterr(err, errlen, rc, "%s", e2);
	if (rc)
		return 0; /* nothing to seed with */
	uint8_t *x = malloc(S->nv);
	if (!x) {
		mp_plan_free(&plan);
		sim_free(&sim);
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	}
	double d = (sim.iter_ns - sim.base_ns) / 1e3;
	if (plan.pool_size <= S->budget && map_swaps(S, &plan, &sim, x) &&
	    satisfies(S, x, d)) {
		keep(S, &plan, &sim, x);
	} else {
		mp_plan_free(&plan);
		sim_free(&sim);
	}
	free(x);
	return 0;
}

/* The recompute binary that stands for group k of g exactly: the same
 * members, each freed after the same event, made again before the same
 * event; -1 when none. */
static int64_t map_group(const struct search *S, const struct recomp_groups *g,
			 int32_t k, uint32_t members)
{
	for (size_t j = 0; j < S->nv; j++) {
		const struct xvar *v = &S->v[j];
		if (v->swap || v->nmem != members || v->at != g->at[k])
			continue;
		uint32_t q = 0;
		for (; q < v->nmem; q++) {
			const struct xmem *e = &S->mem[v->mem0 + q];
			if (g->group[e->buf] != k ||
			    g->last_fwd[e->buf] != e->last_fwd)
				break;
		}
		if (q == v->nmem)
			return (int64_t)j;
	}
	return -1;
}

/*
 * The requests of c's clock that the requests of t2 (a recomputing trace
 * of c's, orig[] its buffers' originals, clock k2) stand for.  A buffer
 * of c is one or more of t2 (recomp_transform()): a recomputed one
 * (group g) is allocated where c allocates it and its last copy made
 * again is freed where c frees it; any other is allocated and freed where
 * c does by its own buffer of t2 (the same index: recomp_transform() adds
 * the copies after c's buffers), the temporaries its re-runs make again
 * being other buffers.  Those requests are c's; the others (early frees, the re-runs')
 * lie between two of them.  lo[r]: the first request of c after the last
 * that stands for itself at or before r (r itself when r does), hi[r]:
 * the first at or after r (c's end when none), lo[r] <= hi[r].  Returns
 * 1, 0 when the requests that stand for c's are not in c's order (nothing
 * maps), -1 out of memory.
 */
static int map_requests(const struct search *S, const struct trace *t2,
			const int64_t *orig, const struct recomp_groups *g,
			const struct alloc_clock *k2, uint64_t *lo, uint64_t *hi)
{
	const struct swap_ctx *c = S->c;
	const struct trace *t = c->t;
	size_t nb = t->nbuffers ? t->nbuffers : 1;
	uint64_t *req = malloc(2 * nb * sizeof(*req)); /* alloc, free */
	/* per buffer of c: its buffers in t2, their frees seen */
	uint32_t *copies = calloc(2 * nb, sizeof(*copies));
	int rc = -1;
	if (!req || !copies)
		goto out;
	for (size_t i = 0; i < 2 * nb; i++)
		req[i] = UINT64_MAX;
	for (size_t r = 0; r < c->clock.n; r++) {
		const struct trace_event *e = &t->events[c->clock.ev[r]];
		if (e->buffer >= 0 && (size_t)e->buffer < t->nbuffers)
			req[2 * (size_t)e->buffer + (e->type == TRACE_EV_FREE)] = r;
	}
	for (size_t b = 0; b < t2->nbuffers; b++)
		if (orig[b] >= 0 && (size_t)orig[b] < t->nbuffers)
			copies[orig[b]]++;
	uint32_t *frees = copies + nb;
	uint64_t last = 0;
	int any = 0;
	rc = 1;
	for (size_t r = 0; r < k2->n && rc == 1; r++) {
		const struct trace_event *e = &t2->events[k2->ev[r]];
		int64_t o = e->buffer >= 0 && (size_t)e->buffer < t2->nbuffers
				    ? orig[e->buffer] : -1;
		uint64_t q = UINT64_MAX;
		if (o >= 0 && (size_t)o < t->nbuffers) {
			int re = (size_t)o < S->m.n && g->group[o] >= 0;
			int fr = e->type == TRACE_EV_FREE;
			int own = e->buffer == o;
			if (fr && re ? ++frees[o] == copies[o] : own)
				q = req[2 * (size_t)o + fr];
		}
		hi[r] = q;
		if (q == UINT64_MAX) {
			lo[r] = any ? last + 1 : 0; /* capped below */
			continue;
		}
		if (any && q <= last)
			rc = 0;
		lo[r] = last = q;
		any = 1;
	}
	uint64_t next = c->clock.n;
	for (size_t r = k2->n; rc == 1 && r-- > 0;) {
		if (hi[r] == UINT64_MAX)
			hi[r] = next;
		else
			next = hi[r];
		if (lo[r] > hi[r])
			lo[r] = hi[r];
	}
out:
	free(req);
	free(copies);
	return rc;
}

/*
 * The binaries of hybrid's plan a (recomp_advise()): each re-run the
 * binary of exactly its group (map_group()), each swap, of a buffer of c
 * not recomputed and in its own buffer of t2 (not a copy a re-run makes
 * again), inside one of c's gaps of that buffer, mapped as map_swaps()
 * does with its requests in c's terms (map_requests(): reused after the
 * last of c's requests before it, swapped in by the first after), then
 * moved among its gap's options while that satisfies more rows
 * (repair()).  A guess, not a proof, as
 * map_swaps(): seed_hybrid() keeps x only if it satisfies every row.
 * Returns 1 with x filled, 0 when it does not map, -1 out of memory.
 */
static int map_hybrid(const struct search *S, const struct recomp_advice *a,
		      uint8_t *x)
{
	const struct swap_ctx *c = S->c;
	const struct recomp_groups *g = &a->groups;
	const struct mp_plan *plan = &a->plan;
	const struct sim_result *sim = &a->sim;
	memset(x, 0, S->nv);
	if (!a->orig || sim->nswaps != plan->nswaps)
		return 0;
	size_t ng = g->ngroups ? g->ngroups : 1;
	uint32_t *count = calloc(ng, sizeof(*count));
	if (!count)
		return -1;
	for (size_t i = 0; i < S->m.n && g->group; i++)
		if (g->group[i] >= 0 && (size_t)g->group[i] < g->ngroups)
			count[g->group[i]]++;
	int ok = 1;
	for (size_t k = 0; k < g->ngroups && ok; k++) {
		if (!count[k])
			continue;
		int64_t j = map_group(S, g, (int32_t)k, count[k]);
		ok = j >= 0 && !x[j];
		if (ok)
			x[j] = 1;
	}
	free(count);
	if (!ok || !plan->nswaps)
		return ok;
	struct alloc_clock k2;
	char e2[256];
	if (alloc_clock_build(&k2, a->t2, e2, sizeof(e2))) {
		alloc_clock_free(&k2);
		return 0;
	}
	uint64_t *lo = malloc((k2.n ? k2.n : 1) * sizeof(*lo));
	uint64_t *hi = malloc((k2.n ? k2.n : 1) * sizeof(*hi));
	int rc = lo && hi ? map_requests(S, a->t2, a->orig, g, &k2, lo, hi)
			  : -1;
	for (uint32_t i = 0; i < plan->nswaps && rc == 1; i++) {
		const struct mp_plan_swap *w = &plan->swaps[i];
		rc = 0;
		if (w->request >= plan->nallocs || w->src_offset ||
		    w->out_at >= k2.n || w->in_at >= k2.n)
			break;
		uint64_t b2 = plan->allocs[w->request].buffer;
		if (b2 >= a->t2->nbuffers)
			break;
		int64_t b = a->orig[b2];
		if (b != (int64_t)b2 || ((size_t)b < S->m.n && g->group[b] >= 0))
			break; /* a copy made again, or a recomputed buffer */
		/* the margins of the gaps (swap_order_margin) are counted in
		 * requests, and t2 has more of them: its swap-out may stand
		 * as far before c's out_min, its swap-in after c's in_max */
		uint64_t out = lo[w->out_at], in = hi[w->in_at];
		uint64_t mg = swap_order_margin;
		int64_t gap = -1;
		for (size_t h = 0; h < c->ngaps && gap < 0; h++) {
			const struct trace_gap *G = &c->gaps[h];
			if (G->buffer == b && G->bytes == w->bytes &&
			    G->out_min <= out + mg && in <= G->in_max + mg &&
			    out < G->in_max)
				gap = (int64_t)h;
		}
		if (gap < 0)
			break;
		if (in > c->gaps[gap].in_max)
			in = c->gaps[gap].in_max;
		uint64_t reuse = lo[w->in_at];
		int64_t re = sim->swaps[i].reuse_event;
		if (re >= 0 && (size_t)re < a->t2->nevents &&
		    k2.first_after[re] < k2.n)
			reuse = lo[k2.first_after[re]];
		size_t pick = SIZE_MAX;
		for (size_t j = 0; j < S->nv; j++) {
			const struct xvar *v = &S->v[j];
			if (!v->swap || v->idx != (uint32_t)gap ||
			    v->lo > reuse || v->hi < in)
				continue;
			if (pick == SIZE_MAX || v->lack < S->v[pick].lack)
				pick = j;
		}
		if (pick == SIZE_MAX || x[pick])
			break;
		x[pick] = 1;
		rc = 1;
	}
	free(lo);
	free(hi);
	alloc_clock_free(&k2);
	return rc;
}

/*
 * The heuristic hybrid's plan (recomp_advise(): re-runs, then memplan's
 * swaps on the recomputing trace) as an incumbent of the hybrid space,
 * when it lies in it: mapped to binaries x (map_hybrid()) that satisfy
 * every row with d its simulated overhead less the costs the program
 * charges x's re-runs (their groups closed alone), so that the program's
 * objective at (x, d) is that overhead (plus the hairs).  d must be at
 * least 0 (the program's d is); then, as for seed_heuristic(), the
 * program's optimum and bound_of() are no more than the plan's overhead
 * whatever the mapping guessed, checked numerically, and x is not cut.
 * The plan keeps hybrid's name in the file.  Costs one recomp_advise()
 * (hybrid's own search).  Returns 0 (seeded or not) or TRACE_ENOMEM with
 * a sentence.
 */
static int seed_hybrid(struct search *S, char *err, size_t errlen)
{
	if (S->o->space != EXACT_HYBRID || !S->nv)
		return 0;
	struct recomp_advice a;
	char e2[512];
	int rc = recomp_advise(S->c, "hybrid", S->budget, S->placer, S->align,
			       &a, e2, sizeof(e2));
	if (rc == TRACE_ENOMEM)
		return trace_seterr(err, errlen, rc, "%s", e2);
	if (rc)
		return 0; /* nothing to seed with */
	uint8_t *x = malloc(S->nv);
	int m = x && a.plan.pool_size <= S->budget ? map_hybrid(S, &a, x) : 0;
	if (!x || m < 0) {
		free(x);
		recomp_advice_free(&a);
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	}
	double d = (a.sim.iter_ns - a.sim.base_ns) / 1e3;
	for (size_t j = 0; m && j < S->nv; j++)
		if (x[j] && !S->v[j].swap)
			d -= S->v[j].cost_ns / 1e3;
	if (m && d >= 0 && repair(S, x, d) == 0) {
		keep(S, &a.plan, &a.sim, x);
		memset(&a.plan, 0, sizeof(a.plan));
		memset(&a.sim, 0, sizeof(a.sim));
	}
	free(x);
	recomp_advice_free(&a);
	return 0;
}

int exact_plan_ctx(const struct swap_ctx *c, const struct exact_options *o,
		   uint64_t budget, const char *placer, uint64_t align,
		   struct mp_plan *plan, struct sim_result *sim,
		   struct exact_result *er, char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	memset(sim, 0, sizeof(*sim));
	memset(er, 0, sizeof(*er));
	if (!exact_available())
		return trace_seterr(err, errlen, SOLVER_ENOTFOUND,
				    "memplan was built without an integer-programming library (CBC or GLPK; Debian: coinor-libcbc-dev or libglpk-dev), so the optimal strategy is not available");
	struct search S = { 0 };
	S.c = c;
	S.o = o;
	S.budget = budget;
	S.align = align;
	S.placer = placer ? placer : "best-fit";
	int rc = search_init(&S, err, errlen);
	er->nbinaries = S.nv;
	er->nrows = S.lp.nrows;
	er->base_ns = S.m.base_ns;
	if (rc == 1) {
		er->proven = 1;
		er->bound_ns = INFINITY;
		rc = trace_seterr(err, errlen, SWAP_ENOFIT,
				  "optimal: a request stays above the budget of %llu bytes whatever is swapped or recomputed",
				  (unsigned long long)budget);
	}
	if (!rc && o->space == EXACT_HYBRID)
		rc = seed_recompute(&S, err, errlen);
	if (!rc)
		rc = seed_heuristic(&S, err, errlen);
	if (!rc)
		rc = seed_hybrid(&S, err, errlen);
	if (!rc)
		rc = search_run(&S, er, err, errlen);
	er->best_ns = INFINITY;
	if (!rc && !S.have)
		rc = trace_seterr(err, errlen, SWAP_ENOFIT,
				  "optimal: no plan of %zu decisions fits the budget of %llu bytes (%s, %u programs)",
				  S.nv, (unsigned long long)budget,
				  er->proven ? "proven" : "not proven", er->rounds);
	if (!rc) {
		*plan = S.plan;
		*sim = S.sim;
		S.have = 0;
		er->found = 1;
		er->best_ns = sim->iter_ns - sim->base_ns;
		er->base_ns = sim->base_ns;
		for (size_t j = 0; j < S.nv; j++)
			if (S.best_x[j]) {
				if (S.v[j].swap)
					er->nswap++;
				else
					er->nrecompute++;
			}
	}
	search_free(&S);
	return rc;
}

int exact_plan_strategy(const struct swap_ctx *c, uint64_t budget,
			const char *placer, uint64_t align,
			struct mp_plan *plan, struct sim_result *sim,
			struct swap_outcome *oc, char *err, size_t errlen)
{
	struct exact_options o = { EXACT_HYBRID, 0, 0 };
	struct exact_result er;
	memset(oc, 0, sizeof(*oc));
	oc->lb_noswap = solver_lower_bound(c->p);
	int rc = exact_plan_ctx(c, &o, budget, placer, align, plan, sim, &er,
				err, errlen);
	if (rc)
		return rc;
	oc->nops = plan->nswaps;
	for (uint32_t i = 0; i < plan->nswaps; i++)
		oc->swapped += plan->swaps[i].bytes;
	oc->chooser = "optimal";
	oc->attempts = er.simulated;
	return 0;
}
