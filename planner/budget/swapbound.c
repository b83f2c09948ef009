/* SPDX-License-Identifier: MIT */
/*
 * swapbound.c - the link bound of swapbound.h.  The clock, the lifetimes
 * and the resident profile come from swap_ctx_init_margin() (no order
 * margin: a bound on every plan) and swap_profile();
 * this file lists each buffer's stretches as swapfloor.c does, with the
 * earliest time a swap-out in them can start and the latest a swap-in must
 * end, then bounds the bytes away at each step by the two lanes' capacity.
 * Steps are visited from the most resident down, so most are never costed.
 */
#include "swapbound.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recompute.h"
#include "simulate.h"
#include "solver.h"
#include "swap.h"

/* Steps [lo, hi) where one buffer may be away, and its lane limits. */
struct stretch {
	uint32_t item;
	uint64_t lo, hi;
	double rel;  /* a swap-out here starts at or after this (ns) */
	double need; /* a swap-in here ends by this plus the stall; INFINITY:
			no access waits for it */
};

/* Steps [lo, hi) where one buffer may be recomputed away, and the least
 * share of re-run time that costs (swapbound.h, "Recomputation"). */
struct rwin {
	uint32_t item;
	uint64_t lo, hi;
	double cost;
};

/* A buffer that may be recomputed away at the step being costed. */
struct rcand {
	double bytes, per_byte;
};

/* One buffer away at the step being costed. */
struct cand {
	double rel, need, bytes;
	size_t id;
};

/* Scratch of one step: the candidates by release (latest first), a copy by
 * need (earliest first), and which are in the swap-out set so far. */
struct work {
	struct cand *c, *by_need;
	unsigned char *in_p;
};

/* A step and the bytes resident there without swaps. */
struct step {
	uint64_t bytes;
	size_t k;
};

double swapbound_pct(const struct swap_bound *b)
{
	if (!b->computed || b->lower_bound == 0)
		return NAN;
	return 100.0 * (double)(b->lower_bound - b->bytes) /
	       (double)b->lower_bound;
}

static void unknown(struct swap_bound *b, const char *why)
{
	snprintf(b->why, sizeof(b->why), "%s", why);
	b->computed = 0;
}

/* Appends the stretch after request out up to the request next (the first
 * at or after the use that ends it), as swapfloor.c's add_away(). */
static void add_stretch(struct stretch *s, size_t *n, uint32_t item,
			uint64_t out, uint64_t next, uint64_t lo, uint64_t hi,
			const double *emin, double need)
{
	if (next < out + 3)
		return;
	uint64_t a = out + 1 > lo ? out + 1 : lo, z = next - 1 < hi ? next - 1 : hi;
	if (z <= a)
		return;
	s[(*n)++] = (struct stretch){ item, a, z, emin[out], need };
}

static int rel_desc(const void *x, const void *y)
{
	double a = ((const struct cand *)x)->rel, b = ((const struct cand *)y)->rel;
	return (a < b) - (a > b);
}

static int need_asc(const void *x, const void *y)
{
	double a = ((const struct cand *)x)->need, b = ((const struct cand *)y)->need;
	return (a > b) - (a < b);
}

static int per_byte_asc(const void *x, const void *y)
{
	double a = ((const struct rcand *)x)->per_byte,
	       b = ((const struct rcand *)y)->per_byte;
	return (a > b) - (a < b);
}

static int step_desc(const void *x, const void *y)
{
	uint64_t a = ((const struct step *)x)->bytes, b = ((const struct step *)y)->bytes;
	return (a < b) - (a > b);
}

/* The bytes a lane can move in a window of w ns: rate 0 is infinite. */
static double lane_cap(double rate, double w, double latency)
{
	if (rate <= 0)
		return INFINITY;
	w -= latency;
	return w > 0 ? rate * w : 0;
}

/*
 * The most bytes of the m candidates that can be away at a step whose
 * swap-outs end by dl and whose swap-ins start at or after st (both with
 * the stall already added to dl and to the needs by the caller).
 */
static double away_most(struct work *w, size_t m, double dl, double st,
			double rd, double rh, double lat, double stall)
{
	double total = 0;
	for (size_t i = 0; i < m; i++) {
		total += w->c[i].bytes;
		w->c[i].id = i;
		w->in_p[i] = 0;
	}
	if (rd <= 0 && rh <= 0)
		return total;
	qsort(w->c, m, sizeof(*w->c), rel_desc);
	memcpy(w->by_need, w->c, m * sizeof(*w->c));
	qsort(w->by_need, m, sizeof(*w->c), need_asc);
	double best = total, in_p = 0;
	for (size_t i = 0; i <= m; i++) {
		double dcap = 0;
		if (i > 0) {
			const struct cand *x = &w->c[i - 1];
			w->in_p[x->id] = 1;
			in_p += x->bytes;
			dcap = lane_cap(rd, dl + stall - x->rel, lat);
			if (dcap == INFINITY)
				break;
		}
		double rest = total - in_p, q = 0;
		if (rest + dcap < best)
			best = rest + dcap;
		for (size_t j = 0; j < m && rh > 0; j++) {
			const struct cand *y = &w->by_need[j];
			if (w->in_p[y->id])
				continue;
			if (y->need == INFINITY)
				break;
			q += y->bytes;
			double v = rest - q + dcap +
				   lane_cap(rh, y->need + stall - st, lat);
			if (v < best)
				best = v;
		}
	}
	return best < total ? best : total;
}

/* The size a buffer counts with in the shares: its item's in the problem,
 * else its own. */
static double share_bytes(const struct trace *t, const struct solver_problem *p,
			  const int64_t *item_of, int64_t x)
{
	return item_of[x] >= 0 ? (double)p->items[item_of[x]].size
			       : (double)t->buffers[x].size;
}

/*
 * The recompute windows of every item into r[*nr]: for each pair of
 * consecutive uses u_j, u_j+1 of a buffer whose writes up to u_j were all
 * kernels (the first use one of them), the requests strictly between them,
 * costed at the sum of those writers' shares of their time.
 */
static void add_rwins(const struct trace *t, const struct solver_problem *p,
		      const struct swap_ctx *c, const int64_t *item_of,
		      struct rwin *r, size_t *nr)
{
	const uint32_t *fa = c->clock.first_after;
	for (size_t i = 0; i < p->n; i++) {
		int64_t x = (int64_t)p->items[i].buffer;
		const struct trace_buffer *tb = &t->buffers[x];
		const uint32_t *u = t->uses + tb->use0;
		uint64_t lo = c->item_lo[i], hi = c->item_hi[i];
		if (hi <= lo || tb->nuses < 2 ||
		    t->events[u[0]].type != TRACE_EV_KERNEL ||
		    !(recomp_mode_at(t, u[0], x) & TRACE_ACCESS_WRITE))
			continue;
		double cost = 0, own = share_bytes(t, p, item_of, x);
		for (uint32_t j = 0; j + 1 < tb->nuses; j++) {
			const struct trace_event *e = &t->events[u[j]];
			if (recomp_mode_at(t, u[j], x) & TRACE_ACCESS_WRITE) {
				if (e->type != TRACE_EV_KERNEL)
					break; /* a copy or memset made it */
				double all = 0;
				for (uint32_t a = 0; a < e->nacc; a++) {
					const struct trace_access *ac =
						&t->accesses[e->acc0 + a];
					if (ac->mode == TRACE_ACCESS_UNKNOWN ||
					    (ac->mode & TRACE_ACCESS_WRITE))
						all += share_bytes(t, p, item_of,
								   ac->buffer);
				}
				/* its duration as a re-run pushes later events
				 * back (recompute.c): 0 without both times */
				double d = e->t_start != TRACE_TIME_NONE &&
						   e->t_end != TRACE_TIME_NONE &&
						   e->t_end > e->t_start
					   ? (double)(e->t_end - e->t_start) : 0;
				if (all > 0 && d > 0)
					cost += d * own / all;
			}
			uint64_t a = fa[u[j] + 1] > lo ? fa[u[j] + 1] : lo,
				 z = fa[u[j + 1]] < hi ? fa[u[j + 1]] : hi;
			if (a < z)
				r[(*nr)++] = (struct rwin){ (uint32_t)i, a, z, cost };
		}
	}
}

/* The most bytes of the m candidates re-runs of at most budget ns can take
 * away: the fractional knapsack by share per byte. */
static double recomputed_most(struct rcand *rc, size_t m, double budget)
{
	qsort(rc, m, sizeof(*rc), per_byte_asc);
	double got = 0;
	for (size_t i = 0; i < m && budget > 0; i++) {
		double cost = rc[i].per_byte * rc[i].bytes;
		if (cost <= budget) {
			got += rc[i].bytes;
			budget -= cost;
		} else {
			got += budget / rc[i].per_byte;
			budget = 0;
		}
	}
	return got;
}

/*
 * Which of a set of half-open step intervals cover a step: each interval
 * is kept at the O(log n) nodes of a segment tree over the steps that
 * make it up, so the intervals covering step k are those kept on the path
 * from k's leaf to the root.  The steps are visited in an order of their
 * own (the most resident first), where a scan of every interval per step
 * cost O(intervals) each: seconds on a trace of 10^5 events.
 */
struct stab {
	size_t leaves;   /* a power of two >= the steps */
	uint32_t *first; /* per node, its intervals in ids[first[v], first[v + 1]) */
	uint32_t *ids;
};

static void stab_free(struct stab *t)
{
	free(t->first);
	free(t->ids);
	memset(t, 0, sizeof(*t));
}

/* Builds the tree of the n intervals [lo(i), hi(i)) over nsteps steps
 * (lo and hi read with the given stride from base); -1 out of memory. */
static int stab_build(struct stab *t, size_t nsteps, const void *base,
		      size_t stride, size_t off_lo, size_t off_hi, size_t n)
{
	memset(t, 0, sizeof(*t));
	size_t L = 1;
	while (L < nsteps)
		L <<= 1;
	t->leaves = L;
	t->first = calloc(2 * L + 1, sizeof(*t->first));
	uint32_t *fill = calloc(2 * L + 1, sizeof(*fill));
	if (!t->first || !fill || n > UINT32_MAX) {
		free(fill);
		return -1;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const char *e = (const char *)base + i * stride;
			uint64_t lo, hi;
			memcpy(&lo, e + off_lo, sizeof(lo));
			memcpy(&hi, e + off_hi, sizeof(hi));
			if (hi > nsteps)
				hi = nsteps;
			if (lo >= hi)
				continue;
			for (size_t a = lo + L, b = hi + L; a < b; a >>= 1, b >>= 1) {
				if (a & 1) {
					if (pass)
						t->ids[fill[a]++] = (uint32_t)i;
					else
						t->first[a + 1]++;
					a++;
				}
				if (b & 1) {
					b--;
					if (pass)
						t->ids[fill[b]++] = (uint32_t)i;
					else
						t->first[b + 1]++;
				}
			}
		}
		if (pass == 0) {
			for (size_t v = 0; v < 2 * L; v++)
				t->first[v + 1] += t->first[v];
			memcpy(fill, t->first, 2 * L * sizeof(*fill));
			t->ids = malloc((t->first[2 * L] ? t->first[2 * L] : 1) *
					sizeof(*t->ids));
			if (!t->ids) {
				free(fill);
				return -1;
			}
		}
	}
	free(fill);
	return 0;
}

static int u32_asc(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

/* The intervals covering step k into out (room for all of them), in
 * index order; their count. */
static size_t stab_at(const struct stab *t, size_t k, uint32_t *out)
{
	size_t m = 0;
	for (size_t v = k + t->leaves; v >= 1; v >>= 1)
		for (uint32_t j = t->first[v]; j < t->first[v + 1]; j++)
			out[m++] = t->ids[j];
	qsort(out, m, sizeof(*out), u32_asc);
	return m;
}

/*
 * The bound, or with stop below UINT64_MAX only whether it passes stop:
 * the steps are visited from the most resident down and each one's figure
 * is at most its resident bytes, so the visit ends at the first step whose
 * figure passes stop or whose resident bytes do not (b->bytes is then the
 * true bound whenever either is above stop, and at most stop otherwise).
 */
static int bound_run(const struct trace *t, const struct link_model *l,
		     int swaps, double stall_ns, double rec_ns, uint64_t stop,
		     struct swap_bound *b, char *err, size_t errlen)
{
	memset(b, 0, sizeof(*b));
	b->stall_ns = stall_ns;
	if (!t->finished) {
		unknown(b, "the trace is not finished");
		return 0;
	}
	if (!(stall_ns >= 0) || !(rec_ns >= 0 || rec_ns == -1)) {
		unknown(b, "the stall allowed is not a number of ns >= 0");
		return 0;
	}
	struct solver_problem p;
	int rc = solver_problem_from_trace(t, &p, err, errlen);
	if (rc)
		return rc == SOLVER_ENOMEM ? TRACE_ENOMEM : rc;
	b->lower_bound = solver_lower_bound(&p);
	for (size_t i = 0; i < p.n; i++)
		if (t->buffers[p.items[i].buffer].nholes) {
			unknown(b, "the trace moves some of the pool's buffers itself (holes)");
			solver_problem_free(&p);
			return 0;
		}
	if (p.n == 0) {
		unknown(b, "the pool holds no buffer");
		solver_problem_free(&p);
		return 0;
	}
	struct swap_ctx c;
	char why[sizeof(b->why)];
	rc = swap_ctx_init_margin(&c, t, &p, l, 0, why, sizeof(why));
	if (rc) {
		swap_ctx_free(&c);
		solver_problem_free(&p);
		if (rc == TRACE_ENOMEM)
			return trace_seterr(err, errlen, rc, "%s", why);
		unknown(b, why);
		return 0;
	}
	size_t n = c.clock.n, ne = t->nevents, ns = 0, cap = 0;
	for (size_t i = 0; i < p.n; i++)
		cap += (size_t)t->buffers[p.items[i].buffer].nuses + 1;
	double *es = malloc((ne ? ne : 1) * sizeof(*es)),
	       *ee = malloc((ne ? ne : 1) * sizeof(*ee)),
	       *emin = malloc((n + 1) * sizeof(*emin)),
	       *smax = malloc((n ? n : 1) * sizeof(*smax));
	uint64_t *prof = malloc((n ? n : 1) * sizeof(*prof));
	struct step *order = malloc((n ? n : 1) * sizeof(*order));
	struct stretch *s = malloc((cap ? cap : 1) * sizeof(*s));
	struct work w = { malloc(p.n * sizeof(struct cand)),
			  malloc(p.n * sizeof(struct cand)), malloc(p.n) };
	int recomp = rec_ns >= 0;
	struct stab ts = { 0 }, tr = { 0 };
	uint32_t *hit = NULL;
	size_t nb = t->nbuffers, nr = 0;
	struct rwin *r = recomp ? malloc((cap ? cap : 1) * sizeof(*r)) : NULL;
	struct rcand *rcs = recomp ? malloc(p.n * sizeof(*rcs)) : NULL;
	int64_t *item_of = recomp ? malloc((nb ? nb : 1) * sizeof(*item_of)) : NULL;
	uint64_t *seen = recomp ? calloc(p.n, sizeof(*seen)) : NULL;
	rc = 0;
	if (!es || !ee || !emin || !smax || !prof || !order || !s || !w.c ||
	    !w.by_need || !w.in_p ||
	    (recomp && (!r || !rcs || !item_of || !seen))) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory bounding swaps over %zu events", ne);
		goto out;
	}
	/* event times as simulate.c replays them */
	int64_t prev = c.clock.t_first;
	for (size_t i = 0; i < ne; i++) {
		int64_t s0, e0;
		sim_event_span(&t->events[i], &prev, &s0, &e0);
		es[i] = (double)s0;
		ee[i] = (double)e0;
	}
	emin[n] = INFINITY;
	for (size_t k = n; k-- > 0;)
		emin[k] = fmin(emin[k + 1], ee[c.clock.ev[k]]);
	for (size_t k = 0; k < n; k++)
		smax[k] = k ? fmax(smax[k - 1], es[c.clock.ev[k]]) : es[c.clock.ev[k]];
	const uint32_t *fa = c.clock.first_after;
	for (size_t i = 0; i < p.n; i++) {
		const struct trace_buffer *tb = &t->buffers[p.items[i].buffer];
		uint64_t lo = c.item_lo[i], hi = c.item_hi[i];
		const uint32_t *u = t->uses + tb->use0;
		/* a buffer used on several streams is never swapped (swap.c) */
		if (hi <= lo || trace_buffer_streams(t, tb, NULL, NULL))
			continue;
		add_stretch(s, &ns, (uint32_t)i, lo, tb->nuses ? fa[u[0]] : hi, lo, hi,
			    emin, tb->nuses ? es[u[0]] : INFINITY);
		for (uint32_t k = 0; k + 1 < tb->nuses; k++)
			add_stretch(s, &ns, (uint32_t)i, fa[u[k] + 1], fa[u[k + 1]],
				    lo, hi, emin, es[u[k + 1]]);
		if (tb->nuses)
			add_stretch(s, &ns, (uint32_t)i, fa[u[tb->nuses - 1] + 1], hi,
				    lo, hi, emin, INFINITY);
	}
	if (recomp) {
		for (size_t x = 0; x < nb; x++)
			item_of[x] = -1;
		for (size_t i = 0; i < p.n; i++)
			item_of[p.items[i].buffer] = (int64_t)i;
		add_rwins(t, &p, &c, item_of, r, &nr);
	}
	hit = malloc((ns > nr ? ns : nr ? nr : 1) * sizeof(*hit));
	if (!hit ||
	    stab_build(&ts, n, s, sizeof(*s), offsetof(struct stretch, lo),
		       offsetof(struct stretch, hi), ns) ||
	    (recomp && stab_build(&tr, n, r, sizeof(*r), offsetof(struct rwin, lo),
				  offsetof(struct rwin, hi), nr))) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory bounding swaps over %zu events", ne);
		goto out;
	}
	uint64_t peak, peak_at;
	if ((rc = swap_profile(&c, NULL, 0, prof, &peak, &peak_at)) != 0) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory bounding swaps over %zu events", ne);
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		order[k] = (struct step){ prof[k], k };
	qsort(order, n, sizeof(*order), step_desc);
	double rd = fmax(link_rate(l, LINK_D2H, 0), link_rate(l, LINK_D2H, 1)),
	       rh = fmax(link_rate(l, LINK_H2D, 0), link_rate(l, LINK_H2D, 1));
	if (link_rate(l, LINK_D2H, 0) <= 0 || link_rate(l, LINK_D2H, 1) <= 0)
		rd = 0;
	if (link_rate(l, LINK_H2D, 0) <= 0 || link_rate(l, LINK_H2D, 1) <= 0)
		rh = 0;
	uint64_t best = 0, at = 0, res = 0;
	for (size_t o = 0; o < n; o++) {
		size_t k = order[o].k;
		if ((prof[k] <= best && o > 0) || (stop != UINT64_MAX && prof[k] <= stop))
			break;
		size_t m = 0, hs = stab_at(&ts, k, hit);
		for (size_t h = 0; h < hs; h++) {
			size_t j = hit[h];
			struct cand *x = &w.c[m];
			if (m && h && hit[h - 1] == j - 1 && s[j - 1].item == s[j].item) {
				/* one buffer in two stretches: its weakest limits */
				x = &w.c[m - 1];
				x->rel = fmin(x->rel, s[j].rel);
				x->need = fmax(x->need, s[j].need);
				continue;
			}
			*x = (struct cand){ s[j].rel, s[j].need,
					    (double)p.items[s[j].item].size, 0 };
			m++;
		}
		double st = k + 1 < n ? emin[k + 1] : INFINITY, away = 0;
		if (swaps)
			away = away_most(&w, m, smax[k], st, rd, rh,
					 l->latency_ns, stall_ns);
		if (recomp) {
			/* the two ways together take at most every buffer
			 * not used here once */
			double any = 0;
			size_t mr = 0;
			for (size_t i = 0; i < m; i++)
				any += w.c[i].bytes;
			for (size_t h = 0; h < hs; h++)
				seen[s[hit[h]].item] = k + 1;
			size_t hr = stab_at(&tr, k, hit);
			for (size_t h = 0; h < hr; h++) {
				size_t j = hit[h];
				double by = (double)p.items[r[j].item].size;
				rcs[mr++] = (struct rcand){ by, by > 0 ? r[j].cost / by : 0 };
				if (seen[r[j].item] != k + 1)
					any += by;
			}
			away += recomputed_most(rcs, mr, rec_ns);
			if (away > any)
				away = any;
		}
		double keep = (double)prof[k] - ceil(away);
		uint64_t v = keep > 0 ? (uint64_t)keep : 0;
		if (o == 0 || v > best) {
			best = v;
			at = k;
			res = prof[k];
		}
		if (best > stop)
			break;
	}
	b->computed = 1;
	b->bytes = best;
	b->request = at;
	b->resident = res;
out:
	free(es);
	free(ee);
	free(emin);
	free(smax);
	free(prof);
	free(order);
	free(s);
	free(w.c);
	free(w.by_need);
	free(w.in_p);
	free(r);
	free(rcs);
	free(hit);
	stab_free(&ts);
	stab_free(&tr);
	free(item_of);
	free(seen);
	swap_ctx_free(&c);
	solver_problem_free(&p);
	return rc;
}

int swapbound_compute(const struct trace *t, const struct link_model *l,
		      double stall_ns, struct swap_bound *b, char *err,
		      size_t errlen)
{
	return bound_run(t, l, 1, stall_ns, -1, UINT64_MAX, b, err, errlen);
}

int swapbound_compute_space(const struct trace *t, const struct link_model *l,
			    enum swapbound_space sp, double overhead_ns,
			    struct swap_bound *b, char *err, size_t errlen)
{
	if (sp == SWAPBOUND_SWAP)
		return swapbound_compute(t, l, overhead_ns, b, err, errlen);
	return bound_run(t, l, sp == SWAPBOUND_HYBRID, overhead_ns,
			 overhead_ns, UINT64_MAX, b,
			 err, errlen);
}

int swapbound_exceeds(const struct trace *t, const struct link_model *l,
		      double stall_ns, uint64_t budget, char *err,
		      size_t errlen)
{
	struct swap_bound b;
	int rc = bound_run(t, l, 1, stall_ns, -1, budget, &b, err, errlen);
	if (rc)
		return -1;
	return b.computed && b.bytes > budget;
}
