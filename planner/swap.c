/* SPDX-License-Identifier: MIT */
/*
 * swap.c - the parts of swap planning every strategy shares: the allocator
 * clock, the candidate gaps (consecutive accesses of a transient buffer with
 * at least one allocator request strictly inside, so that a trigger can sit
 * there), the resident profile on the clock, the placement problem with
 * swap holes, and the plan's swap entries with host staging slots.
 */
#include "swap.h"

#include <stdlib.h>
#include <string.h>

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

void swap_ctx_free(struct swap_ctx *c)
{
	free(c->clock.ev);
	free(c->clock.t);
	free(c->clock.first_after);
	free(c->gaps);
	free(c->item_lo);
	free(c->item_hi);
	memset(c, 0, sizeof(*c));
}

uint64_t swap_clock_at(const struct swap_clock *k, int64_t ns)
{
	size_t lo = 0, hi = k->n;
	while (lo < hi) { /* first request with t > ns */
		size_t mid = lo + (hi - lo) / 2;
		if (k->t[mid] <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

int swap_ctx_init(struct swap_ctx *c, const struct trace *t,
		  const struct solver_problem *p, const struct link_model *l,
		  char *err, size_t errlen)
{
	return swap_ctx_init_margin(c, t, p, l, swap_order_margin, err,
				    errlen);
}

int swap_ctx_init_margin(struct swap_ctx *c, const struct trace *t,
			 const struct solver_problem *p,
			 const struct link_model *l, unsigned margin,
			 char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->p = p;
	c->link = *l;
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
		n += t->events[i].type == TRACE_EV_ALLOC ||
		     t->events[i].type == TRACE_EV_FREE;
	c->clock.n = n;
	c->clock.ev = malloc((n ? n : 1) * sizeof(*c->clock.ev));
	c->clock.t = malloc((n ? n : 1) * sizeof(*c->clock.t));
	c->clock.first_after = malloc((t->nevents + 1) * sizeof(uint32_t));
	c->item_lo = malloc((p->n ? p->n : 1) * sizeof(uint64_t));
	c->item_hi = malloc((p->n ? p->n : 1) * sizeof(uint64_t));
	int64_t *item_of = malloc((t->nbuffers ? t->nbuffers : 1) * sizeof(*item_of));
	if (!c->clock.ev || !c->clock.t || !c->clock.first_after ||
	    !c->item_lo || !c->item_hi || !item_of) {
		free(item_of);
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory planning swaps over %zu events",
				    t->nevents);
	}
	for (size_t b = 0; b < t->nbuffers; b++)
		item_of[b] = -1;
	for (size_t i = 0; i < p->n; i++)
		item_of[p->items[i].buffer] = (int64_t)i;
	int64_t prev = TRACE_TIME_NONE, first = TRACE_TIME_NONE;
	for (size_t i = 0; i < t->nevents && first == TRACE_TIME_NONE; i++)
		first = t->events[i].t_start;
	prev = first;
	c->t_first = first;
	size_t k = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		c->clock.first_after[i] = (uint32_t)k;
		prev = ev_start(t, i, prev);
		if (e->type != TRACE_EV_ALLOC && e->type != TRACE_EV_FREE) {
			int64_t end = ev_end(t, i, prev);
			if (end > c->t_last)
				c->t_last = end;
			continue;
		}
		c->clock.ev[k] = (uint32_t)i;
		/* a request's time never goes back, even if timestamps do */
		c->clock.t[k] = k && prev < c->clock.t[k - 1] ? c->clock.t[k - 1] : prev;
		int64_t it = item_of[e->buffer];
		if (it >= 0) {
			if (e->type == TRACE_EV_ALLOC)
				c->item_lo[it] = k;
			else
				c->item_hi[it] = k;
		}
		k++;
	}
	c->clock.first_after[t->nevents] = (uint32_t)k;
	if (c->t_last < prev)
		c->t_last = prev;

	/* the gaps: consecutive uses with a request strictly inside */
	size_t cap = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct trace_buffer *b = &t->buffers[p->items[i].buffer];
		if (b->nuses > 1 && b->nholes == 0)
			cap += b->nuses - 1;
	}
	c->gaps = malloc((cap ? cap : 1) * sizeof(*c->gaps));
	if (!c->gaps) {
		free(item_of);
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory listing %zu idle gaps", cap);
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct trace_buffer *b = &t->buffers[p->items[i].buffer];
		if (b->nuses < 2 || b->nholes)
			continue; /* trace holes: the trace moves it already */
		for (uint32_t u = 0; u + 1 < b->nuses; u++) {
			uint32_t a = t->uses[b->use0 + u], z = t->uses[b->use0 + u + 1];
			/* the runtime sees requests only, and another run may
			 * put a kernel on the other side of a neighbouring
			 * request: margin requests between each use
			 * and the swap that follows or precedes it */
			uint64_t out_min = c->clock.first_after[a + 1] + margin;
			uint64_t next = c->clock.first_after[z];
			if (next < out_min + 3 + margin)
				continue; /* needs out_at < hole_lo < in_at */
			struct swap_gap *g = &c->gaps[c->ngaps++];
			g->item = (uint32_t)i;
			g->buffer = b->id;
			g->bytes = b->size;
			g->use_ev = a;
			g->next_ev = z;
			g->out_min = out_min;
			g->in_max = next - 1 - margin;
			g->t_idle = ev_end(t, a, c->clock.t[out_min]);
			g->t_need = ev_start(t, z, c->clock.t[g->in_max]);
			if (g->t_need < g->t_idle)
				g->t_need = g->t_idle;
			g->role = b->role;
		}
	}
	free(item_of);
	return 0;
}

int swap_profile(const struct swap_ctx *c, const struct swap_op *ops,
		 size_t nops, uint64_t *profile, uint64_t *peak,
		 uint64_t *peak_at)
{
	size_t n = c->clock.n;
	int64_t *d = calloc(n + 1, sizeof(*d));
	if (!d)
		return TRACE_ENOMEM;
	for (size_t i = 0; i < c->p->n; i++) {
		if (c->item_hi[i] <= c->item_lo[i])
			continue;
		d[c->item_lo[i]] += (int64_t)c->p->items[i].size;
		d[c->item_hi[i]] -= (int64_t)c->p->items[i].size;
	}
	for (size_t j = 0; j < nops; j++) {
		const struct swap_gap *g = &c->gaps[ops[j].gap];
		if (ops[j].in_at <= ops[j].hole_lo)
			continue;
		d[ops[j].hole_lo] -= (int64_t)g->bytes;
		d[ops[j].in_at] += (int64_t)g->bytes;
	}
	int64_t run = 0;
	*peak = 0;
	*peak_at = 0;
	for (size_t k = 0; k < n; k++) {
		run += d[k];
		if (profile)
			profile[k] = (uint64_t)run;
		if ((uint64_t)run > *peak) {
			*peak = (uint64_t)run;
			*peak_at = k;
		}
	}
	free(d);
	return 0;
}

static int op_item_cmp(const void *a, const void *b, const struct swap_ctx *c)
{
	const struct swap_op *x = a, *y = b;
	uint32_t ix = c->gaps[x->gap].item, iy = c->gaps[y->gap].item;
	if (ix != iy)
		return ix < iy ? -1 : 1;
	return (x->hole_lo > y->hole_lo) - (x->hole_lo < y->hole_lo);
}

/* qsort has no context argument in C11 */
static const struct swap_ctx *sort_ctx;
static int op_item_cmp_q(const void *a, const void *b)
{
	return op_item_cmp(a, b, sort_ctx);
}

unsigned swap_order_margin = SWAP_ORDER_MARGIN;

void swap_problem_free(struct solver_problem *q)
{
	free(q->items);
	free(q->hole_store);
	memset(q, 0, sizeof(*q));
}

int swap_problem_with_holes(const struct swap_ctx *c, const struct swap_op *ops,
			    size_t nops, struct solver_problem *q)
{
	memset(q, 0, sizeof(*q));
	const struct solver_problem *p = c->p;
	struct swap_op *s = malloc((nops ? nops : 1) * sizeof(*s));
	q->items = malloc((p->n ? p->n : 1) * sizeof(*q->items));
	q->hole_store = malloc((nops ? nops : 1) * sizeof(*q->hole_store));
	if (!s || !q->items || !q->hole_store) {
		free(s);
		swap_problem_free(q);
		return TRACE_ENOMEM;
	}
	memcpy(q->items, p->items, p->n * sizeof(*q->items));
	q->n = p->n;
	if (nops)
		memcpy(s, ops, nops * sizeof(*s));
	sort_ctx = c;
	qsort(s, nops, sizeof(*s), op_item_cmp_q);
	const struct trace *t = c->t;
	size_t h = 0;
	for (size_t j = 0; j < nops; j++) {
		uint32_t it = c->gaps[s[j].gap].item;
		if (s[j].in_at <= s[j].hole_lo)
			continue;
		int64_t lo = trace_event_clock(t, c->clock.ev[s[j].hole_lo]);
		int64_t hi = trace_event_clock(t, c->clock.ev[s[j].in_at]);
		if (h && q->hole_store[h - 1].upper > lo &&
		    c->gaps[s[j - 1].gap].item == it)
			continue; /* overlapping swaps of one buffer: keep the first */
		q->hole_store[h++] = (struct solver_hole){ lo, hi, SOLVER_NO_WINDOW,
							   SOLVER_NO_WINDOW };
		if (q->items[it].nholes == 0)
			q->items[it].holes = &q->hole_store[h - 1];
		q->items[it].nholes++;
	}
	q->nhole_store = h;
	free(s);
	return 0;
}

static int swap_entry_cmp(const void *a, const void *b)
{
	const struct mp_plan_swap *x = a, *y = b;
	if (x->request != y->request)
		return x->request < y->request ? -1 : 1;
	return (x->out_at > y->out_at) - (x->out_at < y->out_at);
}

int swap_plan_entries(const struct swap_ctx *c, const struct swap_op *ops,
		      size_t nops, struct mp_plan_swap **out,
		      uint64_t *staging, char *err, size_t errlen)
{
	*out = NULL;
	*staging = 0;
	const struct trace *t = c->t;
	uint64_t *req = malloc((t->nbuffers ? t->nbuffers : 1) * sizeof(*req));
	struct mp_plan_swap *s = malloc((nops ? nops : 1) * sizeof(*s));
	uint64_t *off = malloc((nops ? nops : 1) * sizeof(*off));
	struct solver_item *items = malloc((nops ? nops : 1) * sizeof(*items));
	int rc = 0;
	if (!req || !s || !off || !items) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory writing %zu swaps", nops);
		goto out;
	}
	uint64_t r = 0;
	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].type == TRACE_EV_ALLOC)
			req[t->events[i].buffer] = r++;
	/* staging is a placement problem of its own: a slot is busy from the
	 * swap-out through the request of the swap-in (planfile_verify) */
	for (size_t j = 0; j < nops; j++) {
		const struct swap_gap *g = &c->gaps[ops[j].gap];
		items[j] = (struct solver_item){ g->bytes, 256,
						 (int64_t)ops[j].out_at,
						 (int64_t)ops[j].in_at + 1, NULL, 0,
						 SOLVER_FREE, g->buffer };
	}
	if (nops) {
		struct solver_problem sp = { items, nops, NULL, 0 };
		uint64_t height;
		rc = solver_place_bestfit(&sp, off, &height, err, errlen);
		if (rc)
			goto out;
		*staging = height;
	}
	for (size_t j = 0; j < nops; j++) {
		const struct swap_gap *g = &c->gaps[ops[j].gap];
		s[j] = (struct mp_plan_swap){ req[g->buffer], ops[j].out_at,
					      ops[j].in_at, 0, g->bytes, off[j], 0 };
	}
	qsort(s, nops, sizeof(*s), swap_entry_cmp);
	*out = s;
	s = NULL;
out:
	free(req);
	free(s);
	free(off);
	free(items);
	return rc;
}
