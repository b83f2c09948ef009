/* SPDX-License-Identifier: MIT */
/*
 * simulate.c - the swap simulator (simulate.h).  The compute stream replays
 * the trace's events in order, keeping each event's duration and the idle
 * time before it; only waits push it later.  Copies are fluid: each lane
 * runs its copies in issue order, a copy first pays the link's latency,
 * then moves bytes at the lane's rate, which drops to the shared fraction
 * while the other lane also moves bytes.  Waits follow the runtime's rules:
 * the next use of a swapped buffer waits for its swap-in; the first
 * allocation that reuses swapped-out bytes waits for the swap-out, and so
 * does a swap-in into such bytes.  A swap's slacks are measured from the
 * moment the waiting event wanted to start (before any wait there), so they
 * are the swap's own even when one event waits for several copies.
 */
#include "simulate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct copy {
	uint8_t dir;
	uint8_t started, done;
	uint32_t swap;
	double ready, start, end;
	double lat_left, bytes_left;
	uint32_t dep0, ndep; /* copies that must finish first */
};

struct lane {
	uint32_t *q;
	size_t n, head;
};

struct sim {
	const struct link_model *l;
	struct copy *c;
	struct lane lane[2];
	uint32_t *deps;
	double now;
	double busy[2];
};

static int deps_done(const struct sim *s, const struct copy *c)
{
	for (uint32_t i = 0; i < c->ndep; i++)
		if (!s->c[s->deps[c->dep0 + i]].done)
			return 0;
	return 1;
}

/*
 * Runs the lanes from s->now: up to time T (stop < 0), or until copy stop
 * is done (it may then stay undone only if it can never run: the caller's
 * deadlock).
 */
static void advance(struct sim *s, double T, int64_t stop)
{
	for (;;) {
		if (stop >= 0 && s->c[stop].done)
			return;
		double tn = INFINITY;
		int act[2] = { 0, 0 }, bp[2] = { 0, 0 };
		struct copy *h[2] = { NULL, NULL };
		for (int d = 0; d < 2; d++) {
			struct lane *L = &s->lane[d];
			if (L->head >= L->n)
				continue;
			h[d] = &s->c[L->q[L->head]];
			if (!deps_done(s, h[d]))
				continue;
			if (h[d]->ready > s->now) {
				tn = fmin(tn, h[d]->ready);
				continue;
			}
			act[d] = 1;
			bp[d] = h[d]->lat_left <= 0;
		}
		double rate[2] = { 0, 0 }, fin[2] = { INFINITY, INFINITY };
		for (int d = 0; d < 2; d++) {
			if (!act[d])
				continue;
			if (!bp[d]) {
				fin[d] = s->now + h[d]->lat_left;
				tn = fmin(tn, fin[d]);
				continue;
			}
			rate[d] = link_rate(s->l, (enum link_dir)d,
					    act[!d] && bp[!d]);
			fin[d] = rate[d] > 0 ? s->now + h[d]->bytes_left / rate[d]
					     : s->now;
			tn = fmin(tn, fin[d]);
		}
		int last = 0;
		if (stop < 0 && tn > T) {
			tn = T;
			last = 1;
		}
		if (tn == INFINITY)
			return;
		if (tn < s->now)
			tn = s->now;
		double dt = tn - s->now;
		int finished = 0;
		for (int d = 0; d < 2; d++) {
			if (!act[d])
				continue;
			struct copy *c = h[d];
			if (!c->started) {
				c->started = 1;
				c->start = s->now;
			}
			s->busy[d] += dt;
			/* a phase ends when its finish time is reached, even
			 * where rounding leaves a remainder below one ulp */
			if (!bp[d]) {
				c->lat_left -= dt;
				if (c->lat_left < 1e-9 || fin[d] <= tn)
					c->lat_left = 0;
				continue;
			}
			if (rate[d] > 0)
				c->bytes_left -= rate[d] * dt;
			else
				c->bytes_left = 0;
			if (c->bytes_left < 1e-3 || fin[d] <= tn) {
				c->bytes_left = 0;
				c->done = 1;
				c->end = tn;
				s->lane[d].head++;
				finished = 1;
			}
		}
		s->now = tn;
		if (last || (stop < 0 && s->now >= T && !finished &&
			     !(act[0] && !bp[0] && h[0]->lat_left == 0) &&
			     !(act[1] && !bp[1] && h[1]->lat_left == 0)))
			return;
	}
}

void sim_free(struct sim_result *r)
{
	free(r->swaps);
	free(r->stalls);
	free(r->ev_start);
	free(r->ev_end);
	free(r->mem_t);
	free(r->mem_v);
	memset(r, 0, sizeof(*r));
}

double sim_overhead(const struct sim_result *r)
{
	return r->base_ns > 0 ? 100.0 * (r->iter_ns - r->base_ns) / r->base_ns : 0;
}

struct step {
	double t;
	int64_t d;
};

static int step_cmp(const void *a, const void *b)
{
	const struct step *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->d > y->d) - (x->d < y->d); /* releases first */
}

/* The peak of a step function; with keep, its points go to r->mem_*. */
static int mem_curve(struct step *st, size_t n, uint64_t *peak,
		     struct sim_result *r)
{
	qsort(st, n, sizeof(*st), step_cmp);
	int64_t run = 0;
	*peak = 0;
	if (r) {
		r->mem_t = malloc((n ? n : 1) * sizeof(*r->mem_t));
		r->mem_v = malloc((n ? n : 1) * sizeof(*r->mem_v));
		if (!r->mem_t || !r->mem_v)
			return -1;
	}
	for (size_t i = 0; i < n; i++) {
		run += st[i].d;
		if (run > (int64_t)*peak)
			*peak = (uint64_t)run;
		if (r) {
			if (r->nmem && r->mem_t[r->nmem - 1] == st[i].t)
				r->nmem--;
			r->mem_t[r->nmem] = st[i].t;
			r->mem_v[r->nmem++] = run > 0 ? (uint64_t)run : 0;
		}
	}
	return 0;
}

/* Gates: the compute event ev waits for copy c. */
struct gate {
	uint32_t ev, copy;
};

static int gate_cmp(const void *a, const void *b)
{
	const struct gate *x = a, *y = b;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return (x->copy > y->copy) - (x->copy < y->copy);
}

/* Triggers: copy c is issued right after request k. */
struct trig {
	uint64_t k;
	uint32_t copy;
};

static int trig_cmp(const void *a, const void *b)
{
	const struct trig *x = a, *y = b;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return (x->copy > y->copy) - (x->copy < y->copy);
}

int sim_run(const struct trace *t, const struct mp_plan *plan,
	    const struct link_model *l, struct sim_result *r, char *err,
	    size_t errlen)
{
	memset(r, 0, sizeof(*r));
	size_t ns = plan->nswaps, ne = t->nevents;
	if (!t->finished)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "the trace is not finished");
	int64_t t0 = TRACE_TIME_NONE;
	for (size_t i = 0; i < ne && t0 == TRACE_TIME_NONE; i++)
		t0 = t->events[i].t_start;
	if (ne && t0 == TRACE_TIME_NONE)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "the trace has no GPU timestamps to simulate");
	uint32_t *ord_ev = malloc((plan->nrequests ? plan->nrequests : 1) * sizeof(*ord_ev));
	struct copy *cp = calloc(2 * ns + 1, sizeof(*cp));
	struct gate *gates = malloc((3 * ns + 1) * sizeof(*gates));
	struct trig *trigs = malloc((2 * ns + 1) * sizeof(*trigs));
	uint32_t *deps = malloc((ns * ns + ns + 1 > 4 * ns + 1 ? 4 * ns + 1 : ns * ns + ns + 1) * sizeof(*deps));
	struct step *st = malloc((2 * (size_t)plan->nallocs + 2 * ns + 1) * sizeof(*st));
	r->swaps = calloc(ns + 1, sizeof(*r->swaps));
	r->stalls = malloc((3 * ns + 1) * sizeof(*r->stalls));
	r->ev_start = malloc((ne + 1) * sizeof(double));
	r->ev_end = malloc((ne + 1) * sizeof(double));
	struct sim s = { l, cp, { { NULL, 0, 0 }, { NULL, 0, 0 } }, deps, 0, { 0, 0 } };
	s.lane[0].q = malloc((ns + 1) * sizeof(uint32_t));
	s.lane[1].q = malloc((ns + 1) * sizeof(uint32_t));
	int rc = 0;
	size_t ndeps = 0, ndepcap = ns * ns + ns + 1 > 4 * ns + 1 ? 4 * ns + 1 : ns * ns + ns + 1;
	if (!ord_ev || !cp || !gates || !trigs || !deps || !st || !r->swaps ||
	    !r->stalls || !r->ev_start || !r->ev_end || !s.lane[0].q ||
	    !s.lane[1].q) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory simulating %zu swaps", ns);
		goto out;
	}
	r->nswaps = (uint32_t)ns;
	r->nevents = ne;
	uint64_t k = 0;
	for (size_t i = 0; i < ne; i++)
		if (trace_event_request(t, &t->events[i])) {
			if (k >= plan->nrequests) {
				k++;
				break;
			}
			ord_ev[k++] = (uint32_t)i;
		}
	if (k != plan->nrequests) {
		rc = trace_seterr(err, errlen, TRACE_EINVAL,
				  "the plan's clock has %llu requests, the trace %llu: not the plan of this trace",
				  (unsigned long long)plan->nrequests,
				  (unsigned long long)k);
		goto out;
	}

	/* copies, triggers and the waits for swap-ins */
	size_t ng = 0, ntr = 0;
	for (size_t j = 0; j < ns; j++) {
		const struct mp_plan_swap *w = &plan->swaps[j];
		struct copy *o = &cp[2 * j], *in = &cp[2 * j + 1];
		*o = (struct copy){ LINK_D2H, 0, 0, (uint32_t)j, 0, 0, 0,
				    l->latency_ns, (double)w->bytes, 0, 0 };
		*in = (struct copy){ LINK_H2D, 0, 0, (uint32_t)j, 0, 0, 0,
				     l->latency_ns, (double)w->bytes, 0, 0 };
		deps[ndeps] = (uint32_t)(2 * j);
		in->dep0 = (uint32_t)ndeps++;
		in->ndep = 1;
		trigs[ntr++] = (struct trig){ w->out_at, (uint32_t)(2 * j) };
		trigs[ntr++] = (struct trig){ w->in_at, (uint32_t)(2 * j + 1) };
		const struct trace_buffer *b = &t->buffers[plan->allocs[w->request].buffer];
		uint32_t after = ord_ev[w->in_at];
		r->swaps[j].next_event = -1;
		r->swaps[j].need = -1;
		r->swaps[j].reuse_event = -1;
		r->swaps[j].reuse = -1;
		for (uint32_t u = 0; u < b->nuses; u++)
			if (t->uses[b->use0 + u] > after) {
				r->swaps[j].next_event = t->uses[b->use0 + u];
				gates[ng++] = (struct gate){ t->uses[b->use0 + u],
							     (uint32_t)(2 * j + 1) };
				break;
			}
	}
	/* the waits for swap-outs: the first allocation in the hole that
	 * reuses the bytes, and swap-ins into them */
	for (size_t j = 0; j < ns; j++) {
		const struct mp_plan_swap *w = &plan->swaps[j];
		const struct mp_plan_alloc *a = &plan->allocs[w->request];
		uint64_t lo = a->offset + w->src_offset, hi = lo + w->bytes;
		size_t x0 = 0, x1 = plan->nallocs;
		while (x0 < x1) {
			size_t mid = x0 + (x1 - x0) / 2;
			if (plan->allocs[mid].lower <= w->out_at)
				x0 = mid + 1;
			else
				x1 = mid;
		}
		for (size_t x = x0; x < plan->nallocs && plan->allocs[x].lower < w->in_at; x++) {
			const struct mp_plan_alloc *o = &plan->allocs[x];
			if (o->offset == MP_PLAN_PASS_THROUGH ||
			    o->offset >= hi || o->offset + o->size <= lo)
				continue;
			gates[ng++] = (struct gate){ ord_ev[o->lower], (uint32_t)(2 * j) };
			r->swaps[j].reuse_event = ord_ev[o->lower];
			break;
		}
		for (size_t q = 0; q < ns && ndeps < ndepcap; q++) {
			const struct mp_plan_swap *v = &plan->swaps[q];
			if (q == j || v->in_at <= w->out_at || v->in_at >= w->in_at)
				continue;
			const struct mp_plan_alloc *va = &plan->allocs[v->request];
			uint64_t vlo = va->offset + v->src_offset;
			if (vlo >= hi || vlo + v->bytes <= lo)
				continue;
			/* swap-in q writes bytes swap-out j may still read */
			struct copy *in = &cp[2 * q + 1];
			if (in->dep0 + in->ndep != ndeps) {
				/* move q's deps to the end so they stay contiguous */
				uint32_t d0 = (uint32_t)ndeps;
				if (ndeps + in->ndep + 1 > ndepcap)
					continue;
				for (uint32_t i = 0; i < in->ndep; i++)
					deps[ndeps++] = deps[in->dep0 + i];
				in->dep0 = d0;
			}
			deps[ndeps++] = (uint32_t)(2 * j);
			in->ndep++;
		}
	}
	qsort(gates, ng, sizeof(*gates), gate_cmp);
	qsort(trigs, ntr, sizeof(*trigs), trig_cmp);

	/* the replay */
	double delay = 0, last_end = 0;
	int64_t prev = t0;
	size_t gi = 0, ti = 0;
	k = 0;
	for (size_t i = 0; i < ne; i++) {
		const struct trace_event *e = &t->events[i];
		int64_t s0, e0;
		sim_event_span(e, &prev, &s0, &e0);
		double cand = (double)(s0 - t0) + delay;
		const double want = cand; /* were no swap waited for here */
		for (; gi < ng && gates[gi].ev < i; gi++)
			;
		for (; gi < ng && gates[gi].ev == i; gi++) {
			struct copy *c = &cp[gates[gi].copy];
			if (c->dir == LINK_H2D)
				r->swaps[c->swap].need = want;
			else
				r->swaps[c->swap].reuse = want;
			if (!c->done)
				advance(&s, INFINITY, gates[gi].copy);
			if (!c->done) {
				rc = trace_seterr(err, errlen, TRACE_EINVAL,
						  "swap %u: event %zu waits for a copy that is never issued before it (the plan does not fit the trace)",
						  c->swap, i);
				goto out;
			}
			if (c->end > cand) {
				double w = c->end - cand;
				r->stalls[r->nstalls++] = (struct sim_stall){
					(uint32_t)i, c->swap, c->dir == LINK_H2D, cand, w };
				r->swaps[c->swap].stall += w;
				r->stall_ns += w;
				cand = c->end;
			}
		}
		advance(&s, cand, -1);
		delay = cand - (double)(s0 - t0);
		r->ev_start[i] = cand;
		r->ev_end[i] = cand + (double)(e0 - s0);
		if (r->ev_end[i] > last_end)
			last_end = r->ev_end[i];
		if (!trace_event_request(t, e))
			continue;
		for (; ti < ntr && trigs[ti].k == k; ti++) {
			struct copy *c = &cp[trigs[ti].copy];
			c->ready = r->ev_end[i];
			struct lane *L = &s.lane[c->dir];
			L->q[L->n++] = trigs[ti].copy;
		}
		k++;
	}
	advance(&s, INFINITY, -1);
	r->iter_ns = last_end;
	r->base_ns = (double)(prev - t0);
	/* the trace of a program that recomputes (recompute.h) is measured
	 * against the program before it: its re-runs are overhead */
	const char *b0 = trace_get_meta(t, "recompute.base_ns");
	if (b0) {
		char *end;
		double v = strtod(b0, &end);
		if (end != b0 && !*end && v > 0 && v <= r->base_ns)
			r->base_ns = v;
	}
	r->link_busy_ns[0] = s.busy[0];
	r->link_busy_ns[1] = s.busy[1];
	for (size_t j = 0; j < ns; j++) {
		struct sim_swap *w = &r->swaps[j];
		const struct copy *o = &cp[2 * j], *in = &cp[2 * j + 1];
		w->d2h_start = o->start;
		w->d2h_end = o->end;
		w->h2d_start = in->start;
		w->h2d_end = in->end;
		if (w->next_event >= 0)
			w->slack = w->need - w->h2d_end;
		if (w->reuse_event >= 0)
			w->d2h_slack = w->reuse - w->d2h_end;
		r->d2h_bytes += plan->swaps[j].bytes;
		r->h2d_bytes += plan->swaps[j].bytes;
	}

	/* resident pool bytes over time, without and with the swaps */
	size_t n = 0;
	for (uint32_t a = 0; a < plan->nallocs; a++) {
		const struct mp_plan_alloc *x = &plan->allocs[a];
		if (x->offset == MP_PLAN_PASS_THROUGH)
			continue;
		st[n++] = (struct step){ r->ev_start[ord_ev[x->lower]], (int64_t)x->size };
		if (x->upper != MP_PLAN_NO_FREE)
			st[n++] = (struct step){ r->ev_start[ord_ev[x->upper]], -(int64_t)x->size };
	}
	size_t nbase = n;
	struct step *sb = malloc((nbase ? nbase : 1) * sizeof(*sb));
	if (!sb) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory simulating");
		goto out;
	}
	memcpy(sb, st, nbase * sizeof(*sb));
	for (size_t j = 0; j < ns; j++) {
		st[n++] = (struct step){ r->swaps[j].d2h_end, -(int64_t)plan->swaps[j].bytes };
		st[n++] = (struct step){ r->swaps[j].h2d_start, (int64_t)plan->swaps[j].bytes };
	}
	int bad = mem_curve(sb, nbase, &r->base_peak, NULL) ||
		  mem_curve(st, n, &r->peak, r);
	free(sb);
	if (bad)
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory simulating");
out:
	free(ord_ev);
	free(cp);
	free(gates);
	free(trigs);
	free(deps);
	free(st);
	free(s.lane[0].q);
	free(s.lane[1].q);
	if (rc)
		sim_free(r);
	return rc;
}

/* A time in whole ns; NaN as 0, the infinities at the ends of the range. */
static int64_t whole_ns(double v)
{
	if (v != v)
		return 0;
	if (v >= 9.2e18)
		return INT64_MAX;
	if (v <= -9.2e18)
		return INT64_MIN;
	return (int64_t)llround(v);
}

int sim_attach_timing(struct mp_plan *plan, const struct sim_result *r)
{
	if (r->nswaps != plan->nswaps)
		return TRACE_EINVAL;
	struct mp_plan_swap_timing *tm = NULL;
	if (plan->nswaps) {
		tm = calloc(plan->nswaps, sizeof(*tm));
		if (!tm)
			return TRACE_ENOMEM;
	}
	for (uint32_t j = 0; j < plan->nswaps; j++) {
		const struct sim_swap *w = &r->swaps[j];
		struct mp_plan_swap_timing *x = &tm[j];
		if (w->next_event >= 0)
			x->h2d_slack_ns = whole_ns(w->slack);
		else
			x->flags |= MP_PLAN_TIMING_NO_USE;
		if (w->reuse_event >= 0)
			x->d2h_slack_ns = whole_ns(w->d2h_slack);
		else
			x->flags |= MP_PLAN_TIMING_NO_REUSE;
		int64_t stall = whole_ns(w->stall);
		x->predicted_stall_ns = stall > 0 ? (uint64_t)stall : 0;
	}
	free(plan->timing);
	plan->timing = tm;
	plan->has_timing = 1;
	return 0;
}
