/* SPDX-License-Identifier: MIT */
/*
 * swapfloor.c - the swap floor of swapfloor.h.  The allocator clock, the
 * buffers' lifetimes on it and the idle gaps between consecutive accesses
 * come from the trace (alloc_clock.h), as the planner's do but with no
 * order margin (swap.h), so the floor sees every gap the planner may use
 * and bounds its plans with or without the margin; this file adds the
 * stretches a plan may use but the planner does not offer (after the alloc,
 * before the free, buffers with trace holes), takes their union per buffer and sweeps a difference array
 * over the requests: O(n log n) in events and buffers.
 */
#include "swapfloor.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_clock.h"

void swapfloor_unknown(struct swap_floor *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
	f->computed = 0;
}

double swapfloor_ideal_pct(const struct swap_floor *f)
{
	if (!f->computed || f->lower_bound == 0)
		return NAN;
	return 100.0 * (double)(f->lower_bound - f->bytes) /
	       (double)f->lower_bound;
}

/* The pool's buffers of a trace on its allocator clock, with their gaps. */
struct pool_view {
	const struct trace *t;
	int64_t *ids;        /* the poolable buffers, in id order */
	size_t n;
	uint64_t *lo, *hi;   /* their lifetimes on the clock */
	struct alloc_clock clock;
	struct trace_gap *gaps;
	size_t ngaps;
};

static void pool_view_free(struct pool_view *c)
{
	free(c->ids);
	free(c->lo);
	free(c->hi);
	free(c->gaps);
	alloc_clock_free(&c->clock);
}

/* Steps [lo, hi) of one buffer when a plan may keep it away. */
struct away {
	uint64_t lo, hi;
};

static int away_cmp(const void *a, const void *b)
{
	const struct away *x = a, *y = b;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The stretch between a use whose swap-out may be triggered by request out
 * and a use at or before which the swap-in must be issued (request next is
 * the first at or after it): [out + 1, next - 1), as the planner bounds a hole
 * (out_at < hole_lo <= in_at <= in_max).  Appended when not empty. */
static void add_away(struct away *w, size_t *n, uint64_t out, uint64_t next)
{
	if (next >= out + 3)
		w[(*n)++] = (struct away){ out + 1, next - 1 };
}

/* The last request whose clock value is at or before v (0 if none). */
static uint64_t step_of(const int64_t *kc, size_t n, int64_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (kc[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

/* The steps every trace hole of b touches, appended to w. */
static void add_holes(const struct pool_view *c, const struct trace_buffer *b,
		      const int64_t *kc, struct away *w, size_t *n)
{
	for (uint32_t k = 0; k < b->nholes; k++) {
		const struct trace_hole *h = &c->t->holes[b->hole0 + k];
		uint64_t s = step_of(kc, c->clock.n, h->lower);
		uint64_t e = step_of(kc, c->clock.n, h->upper - 1) + 1;
		if (e > s)
			w[(*n)++] = (struct away){ s, e };
	}
}

/*
 * Adds to d the bytes of b over its lifetime [lo, hi) less the union of
 * its n away stretches w (sorted here).
 */
static void keep_resident(const struct trace_buffer *b, uint64_t lo, uint64_t hi,
			  struct away *w, size_t n, int64_t *d)
{
	qsort(w, n, sizeof(*w), away_cmp);
	d[lo] += (int64_t)b->size;
	d[hi] -= (int64_t)b->size;
	uint64_t from = 0, to = 0; /* the union so far, [from, to) */
	for (size_t k = 0; k <= n; k++) {
		if (k < n && w[k].lo <= to && to > from) {
			if (w[k].hi > to)
				to = w[k].hi;
			continue;
		}
		if (to > from) {
			uint64_t a = from < lo ? lo : from, z = to > hi ? hi : to;
			if (z > a) {
				d[a] -= (int64_t)b->size;
				d[z] += (int64_t)b->size;
			}
		}
		if (k < n) {
			from = w[k].lo;
			to = w[k].hi;
		}
	}
}

/*
 * Adds to d (over the requests) the bytes buffer item i must keep resident:
 * its lifetime less the union of its away stretches.  g: the context's next
 * unread gap (gaps come item by item, in use order).  w: scratch for the
 * stretches of the buffer.
 */
static void add_item(const struct pool_view *c, size_t i, size_t *g,
		     const int64_t *kc, struct away *w, int64_t *d)
{
	const struct trace *t = c->t;
	const struct trace_buffer *b = &t->buffers[c->ids[i]];
	const uint32_t *fa = c->clock.first_after;
	uint64_t lo = c->lo[i], hi = c->hi[i];
	while (*g < c->ngaps && c->gaps[*g].item < i)
		(*g)++;
	if (hi <= lo)
		return;
	size_t n = 0;
	const uint32_t *u = t->uses + b->use0;
	if (trace_buffer_streams(t, b, NULL, NULL)) {
		/* used on more than one stream: the planner never swaps nor
		 * recomputes it (the same predicate, planner/budget/swap.c),
		 * so it stays but where the trace itself moves it */
		add_holes(c, b, kc, w, &n);
		keep_resident(b, lo, hi, w, n, d);
		return;
	}
	/* after the alloc: the swap-out may follow the alloc's own request */
	add_away(w, &n, lo, b->nuses ? fa[u[0]] : hi);
	if (b->nholes == 0) {
		/* between accesses: the planner's own gaps */
		for (; *g < c->ngaps && c->gaps[*g].item == i; (*g)++)
			add_away(w, &n, c->gaps[*g].out_min,
				 c->gaps[*g].in_max + 1);
	} else {
		/* trace_gaps() offers no gap here (the trace moves the buffer
		 * already), but a plan may swap it all the same */
		for (uint32_t k = 0; k + 1 < b->nuses; k++)
			add_away(w, &n, fa[u[k] + 1], fa[u[k + 1]]);
		add_holes(c, b, kc, w, &n);
	}
	/* before the free: the swap-in may come as late as request hi - 1 */
	if (b->nuses)
		add_away(w, &n, fa[u[b->nuses - 1] + 1], hi);
	keep_resident(b, lo, hi, w, n, d);
}

int swapfloor_profile(const struct trace *t, struct swap_floor *f,
		      uint64_t *profile, size_t nprofile, size_t *nreq,
		      char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->time = TRACE_TIME_NONE;
	f->seq = 0;
	if (nreq)
		*nreq = 0;
	if (!t->finished) {
		swapfloor_unknown(f, "the trace is not finished");
		return 0;
	}
	struct pool_view c = { .t = t };
	c.ids = malloc((t->nbuffers ? t->nbuffers : 1) * sizeof(*c.ids));
	if (!c.ids)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory extracting %zu buffers",
				    t->nbuffers);
	for (size_t i = 0; i < t->nbuffers; i++)
		if (trace_buffer_poolable(&t->buffers[i]))
			c.ids[c.n++] = t->buffers[i].id;
	f->nbuffers = c.n;
	for (size_t i = 0; i < c.n; i++)
		f->unaccessed += t->buffers[c.ids[i]].nuses == 0;
	int rc = 0;
	if (trace_pool_lower_bound(t, &f->lower_bound)) {
		pool_view_free(&c);
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory finding the pool's lower bound");
	}
	int64_t *d = NULL, *kc = NULL;
	struct away *w = NULL;
	if (c.n == 0) {
		swapfloor_unknown(f, "the pool holds no buffer");
		goto out;
	}
	if (f->unaccessed * 2 > c.n) {
		if (f->unaccessed == c.n)
			swapfloor_unknown(f, "the trace records no access to the pool's buffers, so each would look idle from its alloc to its free");
		else
			swapfloor_unknown(f, "only %zu of the pool's %zu buffers have accesses; the others would look idle from alloc to free",
					  c.n - f->unaccessed, c.n);
		goto out;
	}
	char why[sizeof(f->why)];
	rc = alloc_clock_build(&c.clock, t, why, sizeof(why));
	if (rc == TRACE_ENOMEM) {
		rc = trace_seterr(err, errlen, rc, "%s", why);
		goto out;
	}
	if (rc) {
		swapfloor_unknown(f, "%s", why);
		rc = 0;
		goto out;
	}
	c.lo = calloc(c.n, sizeof(*c.lo));
	c.hi = calloc(c.n, sizeof(*c.hi));
	if (!c.lo || !c.hi) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory computing the swap floor of %zu buffers",
				  c.n);
		goto out;
	}
	alloc_clock_lifetimes(t, &c.clock, c.ids, c.n, c.lo, c.hi);
	rc = trace_gaps(t, &c.clock, c.ids, c.n, &c.gaps, &c.ngaps, err, errlen);
	if (rc)
		goto out;
	size_t n = c.clock.n, wmax = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct trace_buffer *b = &t->buffers[c.ids[i]];
		size_t m = (size_t)b->nuses + b->nholes + 2;
		if (m > wmax)
			wmax = m;
	}
	d = calloc(n + 1, sizeof(*d));
	kc = malloc((n ? n : 1) * sizeof(*kc));
	w = malloc(wmax * sizeof(*w));
	if (!d || !kc || !w) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory computing the swap floor over %zu requests",
				  n);
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		kc[k] = trace_event_clock(t, c.clock.ev[k]);
	size_t g = 0;
	for (size_t i = 0; i < c.n; i++)
		add_item(&c, i, &g, kc, w, d);
	int64_t run = 0;
	for (size_t k = 0; k < n; k++) {
		run += d[k];
		if (profile && k < nprofile)
			profile[k] = (uint64_t)run;
		if ((uint64_t)run > f->bytes) {
			f->bytes = (uint64_t)run;
			f->request = k;
		}
	}
	if (n) {
		const struct trace_event *e = &t->events[c.clock.ev[f->request]];
		f->seq = e->seq;
		f->time = e->t_start;
	}
	if (nreq)
		*nreq = n;
	f->computed = 1;
out:
	free(d);
	free(kc);
	free(w);
	pool_view_free(&c);
	return rc;
}

int swapfloor_compute(const struct trace *t, struct swap_floor *f, char *err,
		      size_t errlen)
{
	return swapfloor_profile(t, f, NULL, 0, NULL, err, errlen);
}
