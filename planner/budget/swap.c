/* SPDX-License-Identifier: MIT */
/*
 * swap.c - the parts of swap planning every strategy shares: the context
 * (the trace's allocator clock and idle gaps, alloc_clock.h, for the problem's
 * items), the resident profile on the clock, the placement problem with
 * swap holes, and the plan's swap entries with host staging slots.
 */
#include "swap.h"

#include <stdlib.h>
#include <string.h>

void swap_ctx_free(struct swap_ctx *c)
{
	alloc_clock_free(&c->clock);
	free(c->gaps);
	free(c->item_lo);
	free(c->item_hi);
	memset(c, 0, sizeof(*c));
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
	int rc = alloc_clock_build(&c->clock, t, err, errlen);
	if (rc)
		return rc;
	c->item_lo = calloc(p->n ? p->n : 1, sizeof(uint64_t));
	c->item_hi = calloc(p->n ? p->n : 1, sizeof(uint64_t));
	int64_t *ids = malloc((p->n ? p->n : 1) * sizeof(*ids));
	if (!c->item_lo || !c->item_hi || !ids) {
		free(ids);
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory planning swaps over %zu events",
				    t->nevents);
	}
	for (size_t i = 0; i < p->n; i++)
		ids[i] = p->items[i].buffer;
	alloc_clock_lifetimes(t, &c->clock, ids, p->n, c->item_lo, c->item_hi);
	rc = trace_gaps(t, &c->clock, ids, p->n, &c->gaps, &c->ngaps, err,
			errlen);
	free(ids);
	if (rc)
		return rc;
	/* a buffer used on more than one stream stays resident: the runtime's
	 * copy-out waits for the work of the buffer's own stream alone, so a
	 * use on another stream could still be running, and its write land
	 * in the bytes of the buffer placed over it (libmemplan(3)) */
	size_t kept = 0;
	int64_t last = -1;
	int cross = 0;
	for (size_t j = 0; j < c->ngaps; j++) {
		if (c->gaps[j].buffer != last) {
			last = c->gaps[j].buffer;
			cross = trace_buffer_streams(t, &t->buffers[last], NULL,
						     NULL);
		}
		if (!cross)
			c->gaps[kept++] = c->gaps[j];
	}
	c->ngaps = kept;
	if (margin == 0)
		return 0;
	/* the runtime sees requests only, and another run may put a kernel on
	 * the other side of a neighbouring request: margin requests between
	 * each use and the swap that follows or precedes it */
	size_t m = 0;
	for (size_t j = 0; j < c->ngaps; j++) {
		struct trace_gap g = c->gaps[j];
		if (g.in_max < g.out_min + 2 + 2 * (uint64_t)margin)
			continue; /* needs out_at < hole_lo < in_at */
		g.out_min += margin;
		g.in_max -= margin;
		trace_gap_times(t, &c->clock, &g);
		c->gaps[m++] = g;
	}
	c->ngaps = m;
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
		const struct trace_gap *g = &c->gaps[ops[j].gap];
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
uint64_t swap_search_work = SWAP_SEARCH_WORK;

void swap_problem_free(struct solver_problem *q)
{
	free(q->items);
	free(q->hole_store);
	memset(q, 0, sizeof(*q));
}

int swap_issue_by_deadline(const struct swap_ctx *c, struct swap_op *ops,
			   size_t nops)
{
	size_t *ord = malloc((nops ? nops : 1) * sizeof(*ord));
	if (!ord)
		return -1;
	const int64_t *t = c->clock.t;
	for (size_t i = 0; i < nops; i++) { /* insertion sort: few swaps */
		size_t at = i;
		while (at && (t[ops[ord[at - 1]].hole_lo] > t[ops[i].hole_lo] ||
			      (t[ops[ord[at - 1]].hole_lo] == t[ops[i].hole_lo] &&
			       ops[ord[at - 1]].out_at > ops[i].out_at))) {
			ord[at] = ord[at - 1];
			at--;
		}
		ord[at] = i;
	}
	int moved = 0;
	for (size_t i = 1; i < nops; i++) {
		struct swap_op *op = &ops[ord[i]];
		uint64_t at = ops[ord[i - 1]].out_at + 1;
		if (at > op->out_at && at < op->hole_lo) {
			op->out_at = at;
			moved = 1;
		}
	}
	free(ord);
	return moved;
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
		if (t->events[i].type == TRACE_EV_ALLOC &&
		    trace_event_request(t, &t->events[i]))
			req[t->events[i].buffer] = r++;
	/* staging is a placement problem of its own: a slot is busy from the
	 * swap-out through the request of the swap-in (planfile_verify) */
	for (size_t j = 0; j < nops; j++) {
		const struct trace_gap *g = &c->gaps[ops[j].gap];
		items[j] = (struct solver_item){ g->bytes, 256,
						 (int64_t)ops[j].out_at,
						 (int64_t)ops[j].in_at + 1, NULL, 0,
						 SOLVER_FREE, g->buffer };
	}
	if (nops) {
		struct solver_problem sp = { items, nops, NULL, 0 };
		uint64_t height;
		rc = solver_place_bestfit(&sp, off, &height, NULL, err, errlen);
		if (rc)
			goto out;
		*staging = height;
	}
	for (size_t j = 0; j < nops; j++) {
		const struct trace_gap *g = &c->gaps[ops[j].gap];
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
