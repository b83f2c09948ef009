/* SPDX-License-Identifier: MIT */
/*
 * swap_strategy.c - the swap strategies behind swap_strategy_find():
 * vdnn (offload every saved activation across its longest gap, prefetch one
 * kernel ahead), singa (AutoSwap: gaps idle across the peak ranked by the
 * vote of idle time and idle time x size, greedy until the peak fits) and
 * memplan (lane-aware: each copy is booked where the link is free, the
 * swap-in as late as it can still finish; gaps ranked by stall, then by
 * fit to the excess or by excess covered per unit of link time, with the
 * stalls a simulation saw as penalties: swap_knobs; with knobs.fifo the
 * swap-outs run in issue order as in the simulator).  All work on the
 * resident profile of the allocator clock with a max/min segment tree, so
 * a step costs O(log n) plus the candidates it weighs.
 */
#include "swap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- a max segment tree with range add ------------------------------------ */

struct seg {
	size_t n;
	int64_t *mx, *mn, *add; /* mx, mn include the node's own add */
};

static void seg_build(struct seg *s, size_t node, size_t l, size_t r,
		      const uint64_t *v)
{
	if (r - l == 1) {
		s->mx[node] = s->mn[node] = s->add[node] = (int64_t)v[l];
		return;
	}
	size_t m = l + (r - l) / 2;
	seg_build(s, 2 * node, l, m, v);
	seg_build(s, 2 * node + 1, m, r, v);
	s->add[node] = 0;
	s->mx[node] = s->mx[2 * node] > s->mx[2 * node + 1] ? s->mx[2 * node]
							    : s->mx[2 * node + 1];
	s->mn[node] = s->mn[2 * node] < s->mn[2 * node + 1] ? s->mn[2 * node]
							    : s->mn[2 * node + 1];
}

static void seg_add(struct seg *s, size_t node, size_t l, size_t r, size_t ql,
		    size_t qr, int64_t v)
{
	if (qr <= l || r <= ql)
		return;
	if (ql <= l && r <= qr) {
		s->mx[node] += v;
		s->mn[node] += v;
		s->add[node] += v;
		return;
	}
	size_t m = l + (r - l) / 2;
	seg_add(s, 2 * node, l, m, ql, qr, v);
	seg_add(s, 2 * node + 1, m, r, ql, qr, v);
	int64_t a = s->mx[2 * node], b = s->mx[2 * node + 1];
	s->mx[node] = s->add[node] + (a > b ? a : b);
	a = s->mn[2 * node];
	b = s->mn[2 * node + 1];
	s->mn[node] = s->add[node] + (a < b ? a : b);
}

/* The maximum and the first index holding it. */
static int64_t seg_max(const struct seg *s, size_t *at)
{
	size_t node = 1, l = 0, r = s->n;
	int64_t want = s->mx[1];
	while (r - l > 1) {
		want -= s->add[node];
		size_t m = l + (r - l) / 2;
		if (s->mx[2 * node] == want) {
			node = 2 * node;
			r = m;
		} else {
			node = 2 * node + 1;
			l = m;
		}
	}
	*at = l;
	return s->mx[1];
}

/* The last index in [ql, qr) whose value is at most v, or SIZE_MAX; acc is
 * the sum of the adds above node. */
static size_t seg_last_le(const struct seg *s, size_t node, size_t l, size_t r,
			  size_t ql, size_t qr, int64_t v, int64_t acc)
{
	if (qr <= l || r <= ql || s->mn[node] + acc > v)
		return SIZE_MAX;
	if (r - l == 1)
		return l;
	acc += s->add[node];
	size_t m = l + (r - l) / 2;
	size_t i = seg_last_le(s, 2 * node + 1, m, r, ql, qr, v, acc);
	return i != SIZE_MAX ? i : seg_last_le(s, 2 * node, l, m, ql, qr, v, acc);
}

/* The first index in [ql, qr) whose value is at most v, or SIZE_MAX. */
static size_t seg_first_le(const struct seg *s, size_t node, size_t l,
			   size_t r, size_t ql, size_t qr, int64_t v,
			   int64_t acc)
{
	if (qr <= l || r <= ql || s->mn[node] + acc > v)
		return SIZE_MAX;
	if (r - l == 1)
		return l;
	acc += s->add[node];
	size_t m = l + (r - l) / 2;
	size_t i = seg_first_le(s, 2 * node, l, m, ql, qr, v, acc);
	return i != SIZE_MAX ? i : seg_first_le(s, 2 * node + 1, m, r, ql, qr, v, acc);
}

/* The profile of c as a tree (profile: c's resident profile without
 * swaps, swap_profile(), or NULL to compute it); 0, or TRACE_ENOMEM. */
static int seg_init(struct seg *s, const struct swap_ctx *c,
		    const uint64_t *profile)
{
	s->n = c->clock.n ? c->clock.n : 1;
	uint64_t *v = profile ? NULL : calloc(s->n, sizeof(*v));
	s->mx = malloc(4 * s->n * sizeof(*s->mx));
	s->mn = malloc(4 * s->n * sizeof(*s->mn));
	s->add = malloc(4 * s->n * sizeof(*s->add));
	uint64_t peak, at;
	if ((!profile && !v) || !s->mx || !s->mn || !s->add ||
	    (!profile && swap_profile(c, NULL, 0, v, &peak, &at))) {
		free(v);
		free(s->mx);
		free(s->mn);
		free(s->add);
		return TRACE_ENOMEM;
	}
	seg_build(s, 1, 0, s->n, profile ? profile : v);
	free(v);
	return 0;
}

static void seg_free(struct seg *s)
{
	free(s->mx);
	free(s->mn);
	free(s->add);
}

/* --- the growing list of ops ----------------------------------------------- */

struct oplist {
	struct swap_op *v;
	size_t n, cap;
};

static int op_push(struct oplist *o, struct seg *s, const struct swap_ctx *c,
		   struct swap_op op)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 64;
		struct swap_op *v = realloc(o->v, cap * sizeof(*v));
		if (!v)
			return TRACE_ENOMEM;
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n++] = op;
	if (op.in_at > op.hole_lo)
		seg_add(s, 1, 0, s->n, op.hole_lo, op.in_at,
			-(int64_t)c->gaps[op.gap].bytes);
	return 0;
}


static uint64_t clock_from(const struct swap_prep *pp,
			   const struct swap_ctx *c, double ns, uint64_t lo);

static int nofit(const struct swap_ctx *c, const char *who, uint64_t peak,
		 uint64_t at, uint64_t target, char *err, size_t errlen)
{
	(void)c;
	return trace_seterr(err, errlen, SWAP_ENOFIT,
			    "%s finds no swap that brings the resident peak of %llu bytes (request %llu) down to %llu",
			    who, (unsigned long long)peak, (unsigned long long)at,
			    (unsigned long long)target);
}

/* --- vdnn -------------------------------------------------------------------- */

int swap_choose_vdnn(const struct swap_ctx *c, uint64_t target,
		     struct swap_op **ops, size_t *nops, char *err,
		     size_t errlen)
{
	struct seg s;
	struct oplist o = { 0 };
	*ops = NULL;
	*nops = 0;
	if (seg_init(&s, c, NULL))
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	const struct trace *t = c->t;
	int rc = 0;
	for (size_t g = 0; g < c->ngaps && !rc; g++) {
		const struct trace_gap *x = &c->gaps[g];
		if (x->role != TRACE_ROLE_ACTIVATION)
			continue;
		/* the longest gap of the buffer: forward use to backward use */
		int longest = 1;
		for (size_t h = g; h-- > 0 && c->gaps[h].item == x->item;)
			if (c->gaps[h].t_need - c->gaps[h].t_idle >= x->t_need - x->t_idle)
				longest = 0;
		for (size_t h = g + 1; h < c->ngaps && c->gaps[h].item == x->item; h++)
			if (c->gaps[h].t_need - c->gaps[h].t_idle > x->t_need - x->t_idle)
				longest = 0;
		if (!longest)
			continue;
		uint64_t in_at = x->in_max;
		for (size_t e = x->next_ev; e-- > x->use_ev + 1;)
			if (t->events[e].type == TRACE_EV_KERNEL) {
				uint64_t k = c->clock.first_after[e];
				if (k > 0 && k - 1 > x->out_min + 1)
					in_at = k - 1;
				break;
			}
		struct swap_op op = { (uint32_t)g, x->out_min, x->out_min + 1, in_at };
		rc = op_push(&o, &s, c, op);
	}
	size_t at;
	int64_t peak = seg_max(&s, &at);
	if (!rc && (uint64_t)peak > target)
		rc = nofit(c, "vdnn (every saved activation offloaded)",
			   (uint64_t)peak, at, target, err, errlen);
	else if (rc)
		trace_seterr(err, errlen, rc, "out of memory");
	seg_free(&s);
	*ops = o.v;
	*nops = o.n;
	return rc;
}

/* --- singa (AutoSwap) ---------------------------------------------------------- */

struct ranked {
	uint32_t gap;
	double idle, aoa;
	size_t r_idle, r_aoa;
};

static int by_idle(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->idle != y->idle)
		return x->idle > y->idle ? -1 : 1;
	return (x->gap > y->gap) - (x->gap < y->gap);
}

static int by_aoa(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->aoa != y->aoa)
		return x->aoa > y->aoa ? -1 : 1;
	return (x->gap > y->gap) - (x->gap < y->gap);
}

static int by_vote(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	size_t vx = x->r_idle + x->r_aoa, vy = y->r_idle + y->r_aoa;
	if (vx != vy)
		return vx < vy ? -1 : 1;
	return (x->gap > y->gap) - (x->gap < y->gap);
}

int swap_choose_singa(const struct swap_ctx *c, uint64_t target,
		      struct swap_op **ops, size_t *nops, char *err,
		      size_t errlen)
{
	struct seg s;
	struct oplist o = { 0 };
	*ops = NULL;
	*nops = 0;
	uint8_t *used = calloc(c->ngaps + 1, 1);
	struct ranked *cand = malloc((c->ngaps + 1) * sizeof(*cand));
	if (!used || !cand || seg_init(&s, c, NULL)) {
		free(used);
		free(cand);
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	}
	int rc = 0;
	size_t at;
	int64_t peak = seg_max(&s, &at);
	while ((uint64_t)peak > target && !rc) {
		/* candidates idle across the current peak */
		size_t n = 0;
		for (size_t g = 0; g < c->ngaps; g++) {
			const struct trace_gap *x = &c->gaps[g];
			if (used[g] || !(x->out_min < at && at < x->in_max))
				continue;
			double out_ns = link_copy_ns(&c->link, LINK_D2H, x->bytes);
			double in_ns = link_copy_ns(&c->link, LINK_H2D, x->bytes);
			/* each copy's time subtracted once */
			double idle = (double)(x->t_need - x->t_idle) - out_ns - in_ns;
			cand[n++] = (struct ranked){ (uint32_t)g, idle,
						     idle * (double)x->bytes, 0, 0 };
		}
		if (n == 0)
			break;
		qsort(cand, n, sizeof(*cand), by_idle);
		for (size_t i = 0; i < n; i++)
			cand[i].r_idle = i;
		qsort(cand, n, sizeof(*cand), by_aoa);
		for (size_t i = 0; i < n; i++)
			cand[i].r_aoa = i;
		qsort(cand, n, sizeof(*cand), by_vote);
		int added = 0;
		for (size_t i = 0; i < n && (uint64_t)peak > target; i++) {
			const struct trace_gap *x = &c->gaps[cand[i].gap];
			double out_ns = link_copy_ns(&c->link, LINK_D2H, x->bytes);
			double in_ns = link_copy_ns(&c->link, LINK_H2D, x->bytes);
			/* freed once the swap-out is done; swapped in as late
			 * as a lone copy would still finish */
			uint64_t lo = clock_from(NULL, c,
						 (double)x->t_idle + out_ns,
						 x->out_min + 1);
			uint64_t in = alloc_clock_at(&c->clock,
						    (int64_t)floor((double)x->t_need - in_ns));
			if (in > x->in_max)
				in = x->in_max;
			if (!(lo <= at && at < in))
				continue; /* not freed across the peak in time */
			used[cand[i].gap] = 1;
			rc = op_push(&o, &s, c,
				     (struct swap_op){ cand[i].gap, x->out_min, lo, in });
			if (rc)
				break;
			added = 1;
			size_t nat;
			peak = seg_max(&s, &nat);
			if (nat != at)
				break; /* the peak moved: rank again there */
		}
		if (!added)
			break;
		peak = seg_max(&s, &at);
	}
	if (rc)
		trace_seterr(err, errlen, rc, "out of memory");
	else if ((uint64_t)peak > target)
		rc = nofit(c, "singa", (uint64_t)peak, at, target, err, errlen);
	seg_free(&s);
	free(used);
	free(cand);
	*ops = o.v;
	*nops = o.n;
	return rc;
}

/* --- memplan: lane-aware ------------------------------------------------------ */

/*
 * What the memplan chooser derives from the context alone: the gaps in
 * the order it weighs them, their spans packed in that order (each step
 * scans them for the gaps across the peak: packed, a quarter of the
 * memory of the gaps' own records), both copies' link time per gap, and
 * the resident profile without swaps.  memplan's search calls the
 * chooser up to hundreds of times on one context (Inception-v3's
 * frontier over PCIe: 5,092 calls), so it builds this once.
 */
struct swap_prep {
	size_t ngaps;
	uint32_t *ord;               /* gaps, the longest idle first */
	uint64_t *span_lo, *span_hi; /* in ord order: out_min, in_max */
	double *out_ns, *in_ns;      /* per gap: each copy alone */
	uint64_t *profile;           /* per request, no swaps */
	/* the clock in nb buckets of w ns from t0: start[b] requests start
	 * before t0 + b * w (nb + 1 entries), so that finding the request
	 * at a time searches one bucket, not the whole clock */
	int64_t t0;
	uint64_t w;
	size_t nb;
	uint32_t *start;
};

/* alloc_clock_at(&c->clock, ns), the same answer (the last request
 * starting at or before ns, else 0), searching one bucket of pp when
 * there is one. */
static uint64_t clock_at(const struct swap_prep *pp, const struct swap_ctx *c,
			 int64_t ns)
{
	const struct alloc_clock *k = &c->clock;
	if (!pp)
		return alloc_clock_at(k, ns);
	if (k->n == 0 || ns < k->t[0])
		return 0;
	if (ns >= k->t[k->n - 1])
		return k->n - 1;
	uint64_t b = (uint64_t)(ns - pp->t0) / pp->w;
	size_t i = alloc_clock_after(k, ns, pp->start[b], pp->start[b + 1]);
	return i ? i - 1 : 0;
}

/* The first request at or after time ns, not before lo (pp: as
 * clock_at()). */
static uint64_t clock_from(const struct swap_prep *pp,
			   const struct swap_ctx *c, double ns, uint64_t lo)
{
	uint64_t k = clock_at(pp, c, (int64_t)ceil(ns));
	while (k < c->clock.n && (double)c->clock.t[k] < ns)
		k++;
	return k < lo ? lo : k;
}

/* Busy intervals of one lane, sorted, disjoint, not touching. */
struct book {
	double *a, *b;
	size_t n, cap;
};

/* Earliest start >= from with [start, start + len) free. */
static double book_first(const struct book *k, double from, double len)
{
	size_t lo = 0, hi = k->n;
	while (lo < hi) { /* first interval ending after from */
		size_t m = lo + (hi - lo) / 2;
		if (k->b[m] <= from)
			lo = m + 1;
		else
			hi = m;
	}
	double s = from;
	for (size_t i = lo; i < k->n; i++) {
		if (k->a[i] >= s + len)
			break;
		if (k->b[i] > s)
			s = k->b[i];
	}
	return s;
}

/* Latest start with [start, start + len) free, start >= from and
 * start + len <= until; -1 if none. */
static double book_last(const struct book *k, double from, double until,
			double len)
{
	size_t lo = 0, hi = k->n;
	while (lo < hi) { /* first interval starting at or after until */
		size_t m = lo + (hi - lo) / 2;
		if (k->a[m] < until)
			lo = m + 1;
		else
			hi = m;
	}
	double e = until;
	for (size_t i = lo; i-- > 0;) {
		if (k->b[i] <= e - len)
			break;
		if (k->a[i] < e)
			e = k->a[i];
	}
	return e - len >= from ? e - len : -1;
}

static int book_add(struct book *k, double a, double b)
{
	if (b <= a)
		return 0;
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		double *na = realloc(k->a, cap * sizeof(*na));
		if (!na)
			return TRACE_ENOMEM;
		k->a = na;
		double *nb = realloc(k->b, cap * sizeof(*nb));
		if (!nb)
			return TRACE_ENOMEM;
		k->b = nb;
		k->cap = cap;
	}
	size_t i = k->n;
	while (i > 0 && k->a[i - 1] > a) {
		k->a[i] = k->a[i - 1];
		k->b[i] = k->b[i - 1];
		i--;
	}
	k->a[i] = a;
	k->b[i] = b;
	k->n++;
	/* coalesce with touching neighbours, so that a packed lane is one
	 * interval and the scans above stay short */
	if (i > 0 && k->b[i - 1] >= k->a[i]) {
		i--;
		if (k->b[i + 1] > k->b[i])
			k->b[i] = k->b[i + 1];
		memmove(&k->a[i + 1], &k->a[i + 2], (k->n - i - 2) * sizeof(*k->a));
		memmove(&k->b[i + 1], &k->b[i + 2], (k->n - i - 2) * sizeof(*k->b));
		k->n--;
	}
	size_t j = i + 1;
	while (j < k->n && k->a[j] <= k->b[i]) {
		if (k->b[j] > k->b[i])
			k->b[i] = k->b[j];
		j++;
	}
	if (j > i + 1) {
		memmove(&k->a[i + 1], &k->a[j], (k->n - j) * sizeof(*k->a));
		memmove(&k->b[i + 1], &k->b[j], (k->n - j) * sizeof(*k->b));
		k->n -= j - i - 1;
	}
	return 0;
}

/*
 * The D2H lane as the simulator runs it on a full-duplex link: copies in
 * issue order, each from its issue or the end of the one before.  A booking
 * in the first free slot is not what happens: a copy issued earlier than
 * ones already chosen runs first and pushes them later, and the reuse of
 * their bytes then waits.  pos[] holds op indexes sorted by issue time,
 * end[] each one's finish along that chain.
 */
struct fifo {
	uint32_t *pos;
	double *end;
	size_t n, cap;
};

/* The finish of the chain's last copy issued at or before ns (0 if none). */
static double fifo_busy(const struct swap_ctx *c, const struct fifo *f,
			const struct swap_op *ops, double ns)
{
	size_t lo = 0, hi = f->n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if ((double)c->clock.t[ops[f->pos[m]].out_at] <= ns)
			lo = m + 1;
		else
			hi = m;
	}
	return lo ? f->end[lo - 1] : 0;
}

struct pick {
	int ok;
	struct swap_op op;
	double stall;
	double copy;           /* both copies' link time */
	double value;          /* rank 1, 2: excess bytes covered, weighted */
	double o0, o1, i0, i1; /* booked copies */
	int early;             /* freed before its swap-out ends (a stall
				  taken on purpose: never moved later) */
};

/* Books gap g around the peak request at; fills p (ok = 0 if it cannot
 * cover at). */
static void plan_gap(const struct swap_ctx *c, const struct swap_prep *pp,
		     const struct book *out, const struct book *in,
		     const struct fifo *ff, const struct swap_op *ops,
		     double allow, uint32_t g, uint64_t at,
		     const double *penalty, struct pick *p)
{
	const struct trace_gap *x = &c->gaps[g];
	double out_ns = pp->out_ns[g], in_ns = pp->in_ns[g];
	p->ok = 0;
	double t_out = (double)c->clock.t[x->out_min];
	double o0 = ff ? fmax(t_out, fifo_busy(c, ff, ops, t_out))
		       : book_first(out, t_out, out_ns);
	double o1 = o0 + out_ns;
	uint64_t lo = clock_from(pp, c, ff ? o1 - allow : o1, x->out_min + 1);
	double stall = 0;
	p->early = 0;
	if (lo > at) {
		/* in issue order, a reuse that waits delays every later
		 * swap-out too: the fifo mode takes none */
		if (ff)
			return;
		p->early = 1;
		/* the bytes are needed before the copy ends: reuse waits */
		lo = x->out_min + 1;
		stall += o1 - (double)c->clock.t[lo];
		if (lo > at)
			return;
	}
	double need = (double)x->t_need;
	double i0 = book_last(in, o1, need, in_ns);
	uint64_t k;
	if (i0 >= 0) {
		k = clock_at(pp, c, (int64_t)floor(i0));
	} else {
		/* no free slot in time: as early as allowed, and it stalls */
		i0 = book_first(in, o1, in_ns);
		k = at + 1;
		stall += i0 + in_ns - need;
	}
	if (k > x->in_max)
		k = x->in_max;
	if (k <= at) {
		k = at + 1;
		if (k > x->in_max)
			return;
		double late = fmax((double)c->clock.t[k], o1) + in_ns - need;
		if (late > 0)
			stall += late;
	}
	if (penalty)
		stall += penalty[g];
	p->ok = 1;
	/* Booked lanes: the swap-out is issued at the last request before
	 * its booked copy starts, not at out_min.  The simulator (and the
	 * runtime) run a lane's copies in issue order, so a copy issued at
	 * out_min but booked behind copies issued later would run first,
	 * push them past their holes' openings and stall the reuse of
	 * their bytes (GPT-2 b8 bf16 on pcie5 at 96% of the lower bound:
	 * 6.7% overhead, 0 when issued as booked). */
	uint64_t issue = x->out_min;
	if (!ff && !p->early) {
		uint64_t b = clock_at(pp, c, (int64_t)floor(o0));
		if (b > issue && b < lo)
			issue = b;
	}
	p->op = (struct swap_op){ g, issue, lo, k };
	p->stall = stall > 0 ? stall : 0;
	p->copy = out_ns + in_ns;
	p->o0 = o0;
	p->o1 = o1;
	p->i0 = fmax(i0, (double)c->clock.t[k]);
	p->i1 = p->i0 + in_ns;
}

/*
 * Enters op o->v[o->n - 1] in the chain f and moves the holes of the copies
 * it pushes later (not those in fixed[], by gap) to where their swap-out
 * ends, giving the bytes back to the profile s.  0, or TRACE_ENOMEM.
 */
static int fifo_add(const struct swap_ctx *c, const struct swap_prep *pp,
		    struct fifo *f, struct oplist *o, struct seg *s,
		    const uint8_t *fixed, double allow)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		uint32_t *np = realloc(f->pos, cap * sizeof(*np));
		if (!np)
			return TRACE_ENOMEM;
		f->pos = np;
		double *ne = realloc(f->end, cap * sizeof(*ne));
		if (!ne)
			return TRACE_ENOMEM;
		f->end = ne;
		f->cap = cap;
	}
	uint32_t j = (uint32_t)(o->n - 1);
	double tj = (double)c->clock.t[o->v[j].out_at];
	size_t lo = 0, hi = f->n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if ((double)c->clock.t[o->v[f->pos[m]].out_at] <= tj)
			lo = m + 1;
		else
			hi = m;
	}
	memmove(&f->pos[lo + 1], &f->pos[lo], (f->n - lo) * sizeof(*f->pos));
	memmove(&f->end[lo + 1], &f->end[lo], (f->n - lo) * sizeof(*f->end));
	f->pos[lo] = j;
	f->n++;
	double prev = lo ? f->end[lo - 1] : 0;
	for (size_t q = lo; q < f->n; q++) {
		struct swap_op *op = &o->v[f->pos[q]];
		const struct trace_gap *x = &c->gaps[op->gap];
		double t0 = (double)c->clock.t[op->out_at];
		double e = fmax(t0, prev) + pp->out_ns[op->gap];
		if (q > lo && e == f->end[q])
			break; /* the rest of the chain is as it was */
		f->end[q] = prev = e;
		if (fixed[op->gap] || op->hole_lo >= op->in_at)
			continue;
		uint64_t k = clock_from(pp, c, e - allow, x->out_min + 1);
		if (k <= op->hole_lo)
			continue;
		if (k > op->in_at)
			k = op->in_at;
		seg_add(s, 1, 0, s->n, op->hole_lo, k, (int64_t)x->bytes);
		op->hole_lo = k;
	}
	return 0;
}

/* Is a better than b for an excess of ex bytes?  Rank 0: stall-free
 * first, then the least stall per byte, then the smallest that covers the
 * excess.  Rank 1: stall-free first, then the most covered excess per unit
 * of link time.  Rank 2: the most covered excess per unit of link time and
 * stall, a stall counted four times. */
static int better(const struct swap_ctx *c, const struct pick *a,
		  const struct pick *b, uint64_t ex, int rank)
{
	if (!b->ok)
		return 1;
	int fa = a->stall == 0, fb = b->stall == 0;
	if (rank <= 1 && fa != fb)
		return fa;
	uint64_t xa = c->gaps[a->op.gap].bytes, xb = c->gaps[b->op.gap].bytes;
	if (rank >= 1) {
		double w = rank == 1 ? 0 : 4;
		if (rank == 3)
			w = 1;
		double sa = a->value / (a->copy + w * a->stall + 1),
		       sb = b->value / (b->copy + w * b->stall + 1);
		if (rank == 1 && !fa) { /* both stall: least stall per byte */
			sa = (double)xa / (a->stall + 1);
			sb = (double)xb / (b->stall + 1);
		}
		if (sa != sb)
			return sa > sb;
		return a->op.gap < b->op.gap;
	}
	if (!fa) {
		double ra = a->stall / (double)xa, rb = b->stall / (double)xb;
		if (ra != rb)
			return ra < rb;
	}
	/* the smallest that covers the excess, else the largest */
	int ca = xa >= ex, cb = xb >= ex;
	if (ca != cb)
		return ca;
	if (xa != xb)
		return ca ? xa < xb : xa > xb;
	return a->op.gap < b->op.gap;
}

static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Each step weighs at most this many gaps across the peak, the longest
 * idle first: the zoo's traces have fewer, a 10^5-event trace thousands. */
#define MEMPLAN_CANDIDATES 512

/* A gap's sort key, carried along: qsort has no context argument in C11,
 * and a static one would not be thread-safe. */
struct idle_key {
	int64_t idle;
	uint64_t bytes;
	uint32_t gap;
};

static int by_idle_len(const void *a, const void *b)
{
	const struct idle_key *x = a, *y = b;
	if (x->idle != y->idle)
		return x->idle > y->idle ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return (x->gap > y->gap) - (x->gap < y->gap);
}

void swap_prep_free(struct swap_prep *pp)
{
	if (!pp)
		return;
	free(pp->ord);
	free(pp->span_lo);
	free(pp->span_hi);
	free(pp->out_ns);
	free(pp->in_ns);
	free(pp->profile);
	free(pp->start);
	free(pp);
}

struct swap_prep *swap_prep_new(const struct swap_ctx *c)
{
	struct swap_prep *pp = calloc(1, sizeof(*pp));
	if (!pp)
		return NULL;
	size_t ng = c->ngaps + 1, n = c->clock.n ? c->clock.n : 1;
	uint64_t peak, at;
	pp->ngaps = c->ngaps;
	pp->ord = malloc(ng * sizeof(*pp->ord));
	pp->span_lo = malloc(ng * sizeof(*pp->span_lo));
	pp->span_hi = malloc(ng * sizeof(*pp->span_hi));
	pp->out_ns = malloc(ng * sizeof(*pp->out_ns));
	pp->in_ns = malloc(ng * sizeof(*pp->in_ns));
	pp->profile = calloc(n, sizeof(*pp->profile));
	struct idle_key *keys = malloc(ng * sizeof(*keys));
	if (!pp->ord || !pp->span_lo || !pp->span_hi || !pp->out_ns ||
	    !pp->in_ns || !pp->profile || !keys ||
	    swap_profile(c, NULL, 0, pp->profile, &peak, &at)) {
		free(keys);
		swap_prep_free(pp);
		return NULL;
	}
	for (size_t g = 0; g < c->ngaps; g++) {
		const struct trace_gap *x = &c->gaps[g];
		keys[g] = (struct idle_key){ x->t_need - x->t_idle, x->bytes,
					     (uint32_t)g };
		pp->out_ns[g] = link_copy_ns(&c->link, LINK_D2H, x->bytes);
		pp->in_ns[g] = link_copy_ns(&c->link, LINK_H2D, x->bytes);
	}
	qsort(keys, c->ngaps, sizeof(*keys), by_idle_len);
	for (size_t k = 0; k < c->ngaps; k++) {
		const struct trace_gap *x = &c->gaps[keys[k].gap];
		pp->ord[k] = keys[k].gap;
		pp->span_lo[k] = x->out_min;
		pp->span_hi[k] = x->in_max;
	}
	free(keys);
	/* the buckets: about one request each */
	const struct alloc_clock *k = &c->clock;
	pp->nb = k->n ? k->n : 1;
	pp->t0 = k->n ? k->t[0] : 0;
	pp->w = (k->n ? (uint64_t)(k->t[k->n - 1] - pp->t0) : 0) / pp->nb + 1;
	pp->start = calloc(pp->nb + 1, sizeof(*pp->start));
	if (!pp->start) {
		swap_prep_free(pp);
		return NULL;
	}
	for (size_t i = 0; i < k->n; i++)
		pp->start[(uint64_t)(k->t[i] - pp->t0) / pp->w + 1]++;
	for (size_t b = 0; b < pp->nb; b++)
		pp->start[b + 1] += pp->start[b];
	return pp;
}

int swap_choose_memplan(const struct swap_ctx *c, uint64_t target,
			struct swap_op **ops, size_t *nops, char *err,
			size_t errlen)
{
	return swap_choose_memplan_knobs(c, target, NULL, ops, nops, err,
					 errlen);
}

int swap_choose_memplan_knobs(const struct swap_ctx *c, uint64_t target,
			      const struct swap_knobs *kn,
			      struct swap_op **ops, size_t *nops, char *err,
			      size_t errlen)
{
	const double *penalty = kn ? kn->penalty : NULL;
	int rank = kn ? kn->rank : 0;
	double deadline = kn ? kn->deadline : 0;
	struct seg s;
	struct oplist o = { 0 };
	struct book bk[2] = { { 0 }, { 0 } };
	*ops = NULL;
	*nops = 0;
	/* a shared link: book both directions on one lane, so they never
	 * run at the same time and halve each other */
	int one = c->link.shared < 1.0;
	struct book *bo = &bk[0], *bi = one ? &bk[0] : &bk[1];
	/* rank 3 books nothing: each copy as if alone on the link, so holes
	 * stay wide and few bytes move, where the link is too slow to keep
	 * every copy off the critical path anyway */
	int book = rank != 3;
	/* with kn->fifo on a full-duplex link, the swap-outs run in issue
	 * order (struct fifo); else in the first free slot */
	struct fifo ff = { 0 };
	struct fifo *fp = book && !one && kn && kn->fifo ? &ff : NULL;
	double allow = fp && kn->allow > 0 ? kn->allow : 0;
	struct swap_prep *own = kn && kn->prep ? NULL : swap_prep_new(c);
	const struct swap_prep *pp = own ? own : kn ? kn->prep : NULL;
	uint8_t *used = pp ? calloc(c->ngaps + 1, 2) : NULL;
	if (!used || seg_init(&s, c, pp->profile)) {
		free(used);
		swap_prep_free(own);
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	}
	const uint32_t *ord = pp->ord;
	const uint64_t *span_lo = pp->span_lo, *span_hi = pp->span_hi;
	uint8_t *fixed = used + c->ngaps + 1; /* holes fifo_add keeps */
	int rc = 0;
	size_t at;
	int64_t peak = seg_max(&s, &at);
	for (size_t step = 0; (uint64_t)peak > target; step++) {
		if (deadline > 0 && step % 64 == 63 && thread_cpu_s() > deadline) {
			rc = trace_seterr(err, errlen, SWAP_ENOFIT,
					  "memplan ran out of its time");
			break;
		}
		struct pick best = { 0 }, p;
		uint64_t ex = (uint64_t)peak - target;
		/* the stretch around the peak that is over the target */
		size_t L, R;
		size_t i = at ? seg_last_le(&s, 1, 0, s.n, 0, at,
					    (int64_t)target, 0)
			      : SIZE_MAX;
		L = i == SIZE_MAX ? 0 : i + 1;
		i = seg_first_le(&s, 1, 0, s.n, at + 1, s.n, (int64_t)target, 0);
		R = i == SIZE_MAX ? s.n : i;
		size_t seen = 0;
		for (i = 0; i < c->ngaps && seen < MEMPLAN_CANDIDATES; i++) {
			if (!(span_lo[i] < at && at < span_hi[i]))
				continue;
			uint32_t g = ord[i];
			if (used[g])
				continue;
			const struct trace_gap *x = &c->gaps[g];
			seen++;
			plan_gap(c, pp, bo, bi, fp, o.v, allow, g, at, penalty,
				 &p);
			if (!p.ok)
				continue;
			if (rank) {
				uint64_t a = p.op.hole_lo > L ? p.op.hole_lo : L;
				uint64_t b = p.op.in_at < R ? p.op.in_at : R;
				double cov = b > a ? (double)(b - a) / (double)(R - L) : 0;
				double use = (double)(x->bytes < ex ? x->bytes : ex);
				p.value = use * cov;
			}
			if (better(c, &p, &best, ex, rank))
				best = p;
		}
		if (!best.ok) {
			/* widen the largest chosen swap whose gap spans the
			 * peak: it may stall, the simulation will tell */
			size_t w = SIZE_MAX;
			for (size_t j = 0; j < o.n; j++) {
				const struct swap_op *op = &o.v[j];
				const struct trace_gap *x = &c->gaps[op->gap];
				if (op->hole_lo <= at && at < op->in_at)
					continue;
				if (!(x->out_min < at && at < x->in_max))
					continue;
				if (w == SIZE_MAX || x->bytes > c->gaps[o.v[w].gap].bytes)
					w = j;
			}
			if (w == SIZE_MAX) {
				rc = nofit(c, "memplan", (uint64_t)peak, at, target,
					   err, errlen);
				break;
			}
			/* over the whole stretch above the target, so that
			 * the next peaks beside this one need no step each */
			struct swap_op *op = &o.v[w];
			const struct trace_gap *x = &c->gaps[op->gap];
			int64_t bytes = (int64_t)x->bytes;
			if (op->in_at > op->hole_lo)
				seg_add(&s, 1, 0, s.n, op->hole_lo, op->in_at, bytes);
			uint64_t lo = L > x->out_min + 1 ? L : x->out_min + 1;
			uint64_t hi = R < x->in_max ? R : x->in_max;
			if (lo < op->hole_lo)
				op->hole_lo = lo;
			if (op->out_at >= op->hole_lo) /* issued as booked */
				op->out_at = op->hole_lo - 1;
			if (op->in_at < hi)
				op->in_at = hi;
			fixed[op->gap] = 1;
			seg_add(&s, 1, 0, s.n, op->hole_lo, op->in_at, -bytes);
			peak = seg_max(&s, &at);
			continue;
		}
		used[best.op.gap] = 1;
		fixed[best.op.gap] = (uint8_t)best.early;
		if ((rc = op_push(&o, &s, c, best.op)) != 0 ||
		    (fp && (rc = fifo_add(c, pp, fp, &o, &s, fixed, allow)) != 0) ||
		    (book && !fp && (rc = book_add(bo, best.o0, best.o1)) != 0) ||
		    (book && (rc = book_add(bi, best.i0, best.i1)) != 0)) {
			trace_seterr(err, errlen, rc, "out of memory");
			break;
		}
		peak = seg_max(&s, &at);
	}
	seg_free(&s);
	free(used);
	swap_prep_free(own);
	free(bk[0].a);
	free(bk[0].b);
	free(bk[1].a);
	free(bk[1].b);
	free(ff.pos);
	free(ff.end);
	*ops = o.v;
	*nops = o.n;
	return rc;
}

/* --- the table ------------------------------------------------------------------ */

static const struct swap_strategy strategies[] = {
	{ "memplan", "lane-aware: copies booked where the link is free, swap-ins as late as safe, stall-free gaps first",
	  swap_choose_memplan },
	{ "singa", "AutoSwap: gaps idle across the peak, by the vote of idle time and idle time x size",
	  swap_choose_singa },
	{ "vdnn", "every saved activation offloaded after its forward use, prefetched one kernel ahead",
	  swap_choose_vdnn },
};

const struct swap_strategy *swap_strategy_at(size_t i)
{
	return i < sizeof(strategies) / sizeof(strategies[0]) ? &strategies[i]
							      : NULL;
}

const struct swap_strategy *swap_strategy_find(const char *name)
{
	for (size_t i = 0; swap_strategy_at(i); i++)
		if (strcmp(strategies[i].name, name) == 0)
			return &strategies[i];
	return NULL;
}
