/* SPDX-License-Identifier: MIT */
/*
 * alloc_clock.c - the pool's view of a trace (alloc_clock.h): poolable
 * buffers, their lower bound, the allocator clock and the idle gaps.  A request's time is
 * its event's start, or the previous event's where the trace has none.
 */
#include "alloc_clock.h"

#include <stdlib.h>
#include <string.h>

int trace_buffer_poolable(const struct trace_buffer *b)
{
	return !trace_buffer_persistent(b) && !b->bypass &&
	       (b->kind == TRACE_KIND_DEVICE || b->kind == TRACE_KIND_ASYNC);
}

static int delta_cmp(const void *a, const void *b)
{
	const struct trace_delta *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	/* half-open: what ends at t is gone before what starts at t */
	return (x->d > y->d) - (x->d < y->d);
}

uint64_t trace_delta_peak(struct trace_delta *d, size_t n)
{
	qsort(d, n, sizeof(*d), delta_cmp);
	int64_t live = 0, best = 0;
	for (size_t i = 0; i < n; i++) {
		live += d[i].d;
		if (live > best)
			best = live;
	}
	return (uint64_t)best;
}

/* Appends the resident stretch [lo, hi) of bytes to d. */
static void add_stretch(struct trace_delta *d, size_t *n, int64_t lo,
			int64_t hi, uint64_t bytes)
{
	d[(*n)++] = (struct trace_delta){ lo, (int64_t)bytes };
	d[(*n)++] = (struct trace_delta){ hi, -(int64_t)bytes };
}

int trace_pool_lower_bound(const struct trace *t, uint64_t *bound)
{
	*bound = 0;
	size_t cap = 0;
	for (size_t i = 0; i < t->nbuffers; i++)
		if (trace_buffer_poolable(&t->buffers[i]))
			cap += 2 + 4 * (size_t)t->buffers[i].nholes;
	struct trace_delta *d = malloc((cap ? cap : 1) * sizeof(*d));
	if (!d)
		return TRACE_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		if (!trace_buffer_poolable(b))
			continue;
		int64_t lo, hi;
		trace_lifetime(t, b, &lo, &hi);
		int64_t at = lo;
		for (uint32_t j = 0; j < b->nholes; j++) {
			const struct trace_hole *h = &t->holes[b->hole0 + j];
			if (h->lower > at)
				add_stretch(d, &n, at, h->lower, b->size);
			if (h->win_lo != TRACE_NONE)
				add_stretch(d, &n, h->lower, h->upper,
					    (uint64_t)(h->win_hi - h->win_lo));
			at = h->upper;
		}
		if (hi > at)
			add_stretch(d, &n, at, hi, b->size);
	}
	*bound = trace_delta_peak(d, n);
	free(d);
	return 0;
}

static int64_t ev_start(const struct trace *t, size_t i, int64_t prev)
{
	int64_t s = t->events[i].t_start;
	return s == TRACE_TIME_NONE ? prev : s;
}

static int64_t ev_end(const struct trace *t, size_t i, int64_t prev)
{
	int64_t e = t->events[i].t_end;
	if (e == TRACE_TIME_NONE)
		return ev_start(t, i, prev);
	return e;
}

void alloc_clock_free(struct alloc_clock *k)
{
	free(k->ev);
	free(k->t);
	free(k->first_after);
	memset(k, 0, sizeof(*k));
}

size_t alloc_clock_after(const struct alloc_clock *k, int64_t ns, size_t lo,
			 size_t hi)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->t[mid] <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t alloc_clock_at(const struct alloc_clock *k, int64_t ns)
{
	size_t i = alloc_clock_after(k, ns, 0, k->n);
	return i ? i - 1 : 0;
}

int alloc_clock_build(struct alloc_clock *k, const struct trace *t,
		      char *err, size_t errlen)
{
	memset(k, 0, sizeof(*k));
	if (!t->finished)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "the trace is not finished");
	if (t->clock != TRACE_CLOCK_SEQ)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "swap planning needs a trace on the seq clock with GPU timestamps; this one keeps abstract times (an import)");
	size_t timed = 0;
	for (size_t i = 0; i < t->nevents; i++)
		timed += t->events[i].t_start != TRACE_TIME_NONE;
	if (t->nevents && timed == 0)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "swap planning needs GPU timestamps on the events; the trace has none");
	if (t->nevents >= UINT32_MAX)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "the trace has %zu events, more than swap planning handles",
				    t->nevents);
	size_t n = 0;
	for (size_t i = 0; i < t->nevents; i++)
		n += trace_event_request(t, &t->events[i]);
	k->n = n;
	k->ev = malloc((n ? n : 1) * sizeof(*k->ev));
	k->t = malloc((n ? n : 1) * sizeof(*k->t));
	k->first_after = malloc((t->nevents + 1) * sizeof(*k->first_after));
	if (!k->ev || !k->t || !k->first_after)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory planning swaps over %zu events",
				    t->nevents);
	int64_t first = TRACE_TIME_NONE;
	for (size_t i = 0; i < t->nevents && first == TRACE_TIME_NONE; i++)
		first = t->events[i].t_start;
	int64_t prev = first;
	k->t_first = first;
	size_t r = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		k->first_after[i] = (uint32_t)r;
		prev = ev_start(t, i, prev);
		if (!trace_event_request(t, e)) {
			int64_t end = ev_end(t, i, prev);
			if (end > k->t_last)
				k->t_last = end;
			continue;
		}
		k->ev[r] = (uint32_t)i;
		/* a request's time never goes back, even if timestamps do */
		k->t[r] = r && prev < k->t[r - 1] ? k->t[r - 1] : prev;
		r++;
	}
	k->first_after[t->nevents] = (uint32_t)r;
	if (k->t_last < prev)
		k->t_last = prev;
	return 0;
}

void alloc_clock_lifetimes(const struct trace *t, const struct alloc_clock *k,
			   const int64_t *ids, size_t n, uint64_t *lo,
			   uint64_t *hi)
{
	for (size_t i = 0; i < n; i++) {
		const struct trace_buffer *b = &t->buffers[ids[i]];
		/* the request of event e is the first at or after it */
		if (b->alloc_ev != TRACE_NONE)
			lo[i] = k->first_after[b->alloc_ev];
		if (b->free_ev != TRACE_NONE)
			hi[i] = k->first_after[b->free_ev];
	}
}

void trace_gap_times(const struct trace *t, const struct alloc_clock *k,
		     struct trace_gap *g)
{
	g->t_idle = ev_end(t, g->use_ev, k->t[g->out_min]);
	g->t_need = ev_start(t, g->next_ev, k->t[g->in_max]);
	if (g->t_need < g->t_idle)
		g->t_need = g->t_idle;
}

int trace_gaps(const struct trace *t, const struct alloc_clock *k,
	       const int64_t *ids, size_t n, struct trace_gap **gaps,
	       size_t *ngaps, char *err, size_t errlen)
{
	*gaps = NULL;
	*ngaps = 0;
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		const struct trace_buffer *b = &t->buffers[ids[i]];
		if (b->nuses > 1 && b->nholes == 0)
			cap += b->nuses - 1;
	}
	struct trace_gap *g = malloc((cap ? cap : 1) * sizeof(*g));
	if (!g)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory listing %zu idle gaps", cap);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct trace_buffer *b = &t->buffers[ids[i]];
		if (b->nuses < 2 || b->nholes)
			continue; /* trace holes: the trace moves it already */
		for (uint32_t u = 0; u + 1 < b->nuses; u++) {
			uint32_t a = t->uses[b->use0 + u], z = t->uses[b->use0 + u + 1];
			uint64_t out_min = k->first_after[a + 1];
			uint64_t next = k->first_after[z];
			if (next < out_min + 3)
				continue; /* needs out_at < hole_lo < in_at */
			struct trace_gap *x = &g[m++];
			x->item = (uint32_t)i;
			x->buffer = b->id;
			x->bytes = b->size;
			x->use_ev = a;
			x->next_ev = z;
			x->out_min = out_min;
			x->in_max = next - 1;
			trace_gap_times(t, k, x);
			x->role = b->role;
		}
	}
	*gaps = g;
	*ngaps = m;
	return 0;
}
