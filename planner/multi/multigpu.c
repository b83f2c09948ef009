/* SPDX-License-Identifier: MIT */
/*
 * multigpu.c - N lock-step GPUs on one link (multigpu.h).  The joint
 * simulation is simulate.c's model run for every GPU at once: each GPU's
 * compute stream replays the trace, waiting where its plan makes it wait
 * (the gates and copy dependencies sim_run() finds, taken from its result
 * on an infinitely fast link), and each GPU's two copy lanes are fluid, at
 * the rate link_rate_with() gives for the GPUs moving bytes that way at
 * that moment.  The global clock moves to the earliest next compute event
 * or copy completion, so every copy on the link is known when its rate is
 * set.  The planner is a coordinate descent over candidate plans.
 */
#include "multigpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planfile.h"
#include "simulate.h"
#include "budget.h"

struct gcopy {
	uint8_t dir, started, done;
	double ready, end, lat_left, bytes_left;
	double rate; /* bytes per ns in the current step */
	uint32_t dep0, ndep;
};

struct ggate {
	uint32_t ev, copy;
};

struct gtrig {
	uint64_t k;
	uint32_t copy;
};

struct ggpu {
	struct gcopy *c;
	uint32_t *deps;
	uint32_t *q[2];
	size_t qn[2], qh[2];
	struct ggate *gates;
	size_t ng, gi;
	struct gtrig *trigs;
	size_t ntr, ti;
	size_t i;
	uint64_t k;
	int64_t prev;
	double delay, last_end, stall;
};

static int gate_cmp(const void *a, const void *b)
{
	const struct ggate *x = a, *y = b;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return (x->copy > y->copy) - (x->copy < y->copy);
}

static int trig_cmp(const void *a, const void *b)
{
	const struct gtrig *x = a, *y = b;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return (x->copy > y->copy) - (x->copy < y->copy);
}

static int dep_cmp(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

static void gpu_free(struct ggpu *g)
{
	free(g->c);
	free(g->deps);
	free(g->q[0]);
	free(g->q[1]);
	free(g->gates);
	free(g->trigs);
}

/* sim_run() of plan on an infinitely fast link: the gates of its swaps. */
static int gates_of(const struct trace *t, const struct mp_plan *plan,
		    struct sim_result *r, char *err, size_t errlen)
{
	struct link_model inf;
	int rc = link_parse("infinite", NULL, &inf, err, errlen);
	return rc ? rc : sim_run(t, plan, &inf, r, err, errlen);
}

/* The copies, their dependencies, gates and triggers of plan on t; r is
 * gates_of(plan). */
static int gpu_init(struct ggpu *g, const struct mp_plan *plan,
		    const struct sim_result *r, int64_t t0, char *err,
		    size_t errlen)
{
	memset(g, 0, sizeof(*g));
	g->prev = t0;
	size_t ns = plan->nswaps;
	int rc = 0;
	uint32_t (*pairs)[2] = NULL;
	size_t np = 0, cap = 2 * ns + 1;
	g->c = calloc(2 * ns + 1, sizeof(*g->c));
	g->q[0] = malloc((ns + 1) * sizeof(uint32_t));
	g->q[1] = malloc((ns + 1) * sizeof(uint32_t));
	g->gates = malloc((2 * ns + 1) * sizeof(*g->gates));
	g->trigs = malloc((2 * ns + 1) * sizeof(*g->trigs));
	pairs = malloc(cap * sizeof(*pairs));
	if (!g->c || !g->q[0] || !g->q[1] || !g->gates || !g->trigs || !pairs) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t j = 0; j < ns; j++) {
		const struct mp_plan_swap *w = &plan->swaps[j];
		g->c[2 * j] = (struct gcopy){ LINK_D2H, 0, 0, 0, 0, 0,
					      (double)w->bytes, 0, 0, 0 };
		g->c[2 * j + 1] = (struct gcopy){ LINK_H2D, 0, 0, 0, 0, 0,
						  (double)w->bytes, 0, 0, 0 };
		g->trigs[g->ntr++] = (struct gtrig){ w->out_at, (uint32_t)(2 * j) };
		g->trigs[g->ntr++] = (struct gtrig){ w->in_at, (uint32_t)(2 * j + 1) };
		if (r->swaps[j].next_event >= 0)
			g->gates[g->ng++] = (struct ggate){
				(uint32_t)r->swaps[j].next_event, (uint32_t)(2 * j + 1) };
		if (r->swaps[j].reuse_event >= 0)
			g->gates[g->ng++] = (struct ggate){
				(uint32_t)r->swaps[j].reuse_event, (uint32_t)(2 * j) };
		pairs[np][0] = (uint32_t)(2 * j + 1);
		pairs[np++][1] = (uint32_t)(2 * j);
	}
	/* a swap-in writing bytes a swap-out may still read waits for it */
	for (size_t j = 0; j < ns; j++) {
		const struct mp_plan_swap *w = &plan->swaps[j];
		const struct mp_plan_alloc *a = &plan->allocs[w->request];
		uint64_t lo = a->offset + w->src_offset, hi = lo + w->bytes;
		for (size_t q = 0; q < ns; q++) {
			const struct mp_plan_swap *v = &plan->swaps[q];
			if (q == j || v->in_at <= w->out_at || v->in_at >= w->in_at)
				continue;
			const struct mp_plan_alloc *va = &plan->allocs[v->request];
			uint64_t vlo = va->offset + v->src_offset;
			if (vlo >= hi || vlo + v->bytes <= lo)
				continue;
			if (np == cap) {
				void *nw = realloc(pairs, 2 * cap * sizeof(*pairs));
				if (!nw) {
					rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
					goto out;
				}
				pairs = nw;
				cap *= 2;
			}
			pairs[np][0] = (uint32_t)(2 * q + 1);
			pairs[np++][1] = (uint32_t)(2 * j);
		}
	}
	qsort(pairs, np, sizeof(*pairs), dep_cmp);
	g->deps = malloc((np + 1) * sizeof(*g->deps));
	if (!g->deps) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t x = 0; x < np; x++) {
		struct gcopy *c = &g->c[pairs[x][0]];
		if (!c->ndep)
			c->dep0 = (uint32_t)x;
		c->ndep++;
		g->deps[x] = pairs[x][1];
	}
	qsort(g->gates, g->ng, sizeof(*g->gates), gate_cmp);
	qsort(g->trigs, g->ntr, sizeof(*g->trigs), trig_cmp);
out:
	free(pairs);
	return rc;
}

struct joint {
	const struct link_model *l;
	struct ggpu *g;
	unsigned n;
	double now;
};

static int deps_done(const struct ggpu *g, const struct gcopy *c)
{
	for (uint32_t i = 0; i < c->ndep; i++)
		if (!g->c[g->deps[c->dep0 + i]].done)
			return 0;
	return 1;
}

/*
 * Runs every GPU's lanes from s->now until time T or the first copy that
 * completes, whichever comes first.  1: a copy completed (s->now is
 * then), 0: s->now reached T, or nothing can move and T is infinite.
 */
static int advance(struct joint *s, double T)
{
	for (;;) {
		double tn = INFINITY;
		unsigned k[2] = { 0, 0 };
		for (unsigned gi = 0; gi < s->n; gi++) {
			struct ggpu *g = &s->g[gi];
			for (int d = 0; d < 2; d++) {
				if (g->qh[d] >= g->qn[d])
					continue;
				struct gcopy *h = &g->c[g->q[d][g->qh[d]]];
				if (!deps_done(g, h))
					continue;
				if (h->ready > s->now) {
					tn = fmin(tn, h->ready);
					continue;
				}
				if (h->lat_left <= 0)
					k[d]++;
				else
					tn = fmin(tn, s->now + h->lat_left);
			}
		}
		int up_both = k[0] && k[1];
		/* the byte phases' finish times at this moment's rates */
		for (unsigned gi = 0; gi < s->n; gi++) {
			struct ggpu *g = &s->g[gi];
			for (int d = 0; d < 2; d++) {
				if (g->qh[d] >= g->qn[d])
					continue;
				struct gcopy *h = &g->c[g->q[d][g->qh[d]]];
				if (!deps_done(g, h) || h->ready > s->now || h->lat_left > 0)
					continue;
				double r = link_rate_with(s->l, (enum link_dir)d,
							  0, k[d], up_both);
				int own = 0;
				if (g->qh[!d] < g->qn[!d]) {
					struct gcopy *o = &g->c[g->q[!d][g->qh[!d]]];
					own = deps_done(g, o) && o->ready <= s->now &&
					      o->lat_left <= 0;
				}
				if (own)
					r = link_rate_with(s->l, (enum link_dir)d, 1,
							   k[d], up_both);
				h->rate = r;
				tn = fmin(tn, r > 0 ? s->now + h->bytes_left / r : s->now);
			}
		}
		int last = 0;
		if (tn > T) {
			tn = T;
			last = 1;
		}
		if (tn == INFINITY)
			return 0;
		if (tn < s->now)
			tn = s->now;
		double dt = tn - s->now;
		int finished = 0;
		for (unsigned gi = 0; gi < s->n; gi++) {
			struct ggpu *g = &s->g[gi];
			for (int d = 0; d < 2; d++) {
				if (g->qh[d] >= g->qn[d])
					continue;
				struct gcopy *h = &g->c[g->q[d][g->qh[d]]];
				if (!deps_done(g, h) || h->ready > s->now)
					continue;
				h->started = 1;
				if (h->lat_left > 0) {
					double fin = s->now + h->lat_left;
					h->lat_left -= dt;
					if (h->lat_left < 1e-9 || fin <= tn)
						h->lat_left = 0;
					continue;
				}
				double r = h->rate;
				double fin = r > 0 ? s->now + h->bytes_left / r : s->now;
				h->bytes_left = r > 0 ? h->bytes_left - r * dt : 0;
				if (h->bytes_left < 1e-3 || fin <= tn) {
					h->bytes_left = 0;
					h->done = 1;
					h->end = tn;
					g->qh[d]++;
					finished = 1;
				}
			}
		}
		s->now = tn;
		if (finished)
			return 1;
		if (last)
			return 0;
	}
}

/* When GPU g's next event may start (*blocked: it waits for a copy not
 * done); the event's own want time in *want. */
static double next_ready(const struct trace *t, const struct ggpu *g,
			 int64_t t0, double *want, int *blocked)
{
	int64_t prev = g->prev, s0, e0;
	sim_event_span(&t->events[g->i], &prev, &s0, &e0);
	double cand = (double)(s0 - t0) + g->delay, ready = cand;
	*want = cand;
	*blocked = 0;
	size_t gi = g->gi;
	for (; gi < g->ng && g->gates[gi].ev < g->i; gi++)
		;
	for (; gi < g->ng && g->gates[gi].ev == g->i; gi++) {
		const struct gcopy *c = &g->c[g->gates[gi].copy];
		if (!c->done)
			*blocked = 1;
		else if (c->end > ready)
			ready = c->end;
	}
	return ready;
}

/* mgpu_simulate() with each plan's gates_of() given. */
static int joint_run(const struct trace *t, const struct mp_plan *const *plans,
		     const struct sim_result *const *gates, unsigned n,
		     const struct link_model *l, struct mgpu_gpu *out,
		     char *err, size_t errlen)
{
	size_t ne = t->nevents;
	if (!t->finished)
		return trace_seterr(err, errlen, TRACE_EINVAL, "the trace is not finished");
	int64_t t0 = TRACE_TIME_NONE;
	for (size_t i = 0; i < ne && t0 == TRACE_TIME_NONE; i++)
		t0 = t->events[i].t_start;
	if (ne && t0 == TRACE_TIME_NONE)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "the trace has no GPU timestamps to simulate");
	struct joint s = { l, calloc(n ? n : 1, sizeof(struct ggpu)), n, 0 };
	if (!s.g)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	int rc = 0;
	unsigned made = 0;
	for (; made < n && !rc; made++)
		rc = gpu_init(&s.g[made], plans[made], gates[made], t0, err,
			      errlen);
	while (!rc) {
		double T = INFINITY, want = 0;
		int sel = -1, left = 0;
		for (unsigned gi = 0; gi < n; gi++) {
			struct ggpu *g = &s.g[gi];
			if (g->i >= ne)
				continue;
			left = 1;
			int blocked;
			double w, ready = next_ready(t, g, t0, &w, &blocked);
			if (!blocked && ready < T) {
				T = ready;
				want = w;
				sel = (int)gi;
			}
		}
		if (!left)
			break;
		if (advance(&s, T))
			continue;
		if (sel < 0) {
			rc = trace_seterr(err, errlen, TRACE_EINVAL,
					  "every GPU waits for a copy that is never issued (a plan does not fit the trace)");
			break;
		}
		struct ggpu *g = &s.g[sel];
		const struct trace_event *e = &t->events[g->i];
		int64_t s0, e0;
		sim_event_span(e, &g->prev, &s0, &e0);
		if (T > want)
			g->stall += T - want;
		g->delay = T - (double)(s0 - t0);
		double end = T + (double)(e0 - s0);
		if (end > g->last_end)
			g->last_end = end;
		for (; g->gi < g->ng && g->gates[g->gi].ev <= g->i; g->gi++)
			;
		if (e->type == TRACE_EV_ALLOC || e->type == TRACE_EV_FREE) {
			for (; g->ti < g->ntr && g->trigs[g->ti].k == g->k; g->ti++) {
				uint32_t c = g->trigs[g->ti].copy;
				g->c[c].ready = end;
				g->c[c].lat_left = l->latency_ns;
				if (!(g->c[c].lat_left > 0))
					g->c[c].lat_left = 0;
				int d = g->c[c].dir;
				g->q[d][g->qn[d]++] = c;
			}
			g->k++;
		}
		g->i++;
	}
	while (!rc && advance(&s, INFINITY))
		;
	for (unsigned gi = 0; gi < n && !rc; gi++) {
		struct ggpu *g = &s.g[gi];
		out[gi].base_ns = (double)(g->prev - t0);
		out[gi].iter_ns = g->last_end;
		out[gi].stall_ns = g->stall;
		out[gi].overhead = out[gi].base_ns > 0
					   ? 100.0 * (g->last_end - out[gi].base_ns) /
						     out[gi].base_ns
					   : 0;
	}
	for (unsigned gi = 0; gi < made; gi++)
		gpu_free(&s.g[gi]);
	free(s.g);
	return rc;
}

int mgpu_simulate(const struct trace *t, const struct mp_plan *const *plans,
		  unsigned n, const struct link_model *l, struct mgpu_gpu *out,
		  char *err, size_t errlen)
{
	struct sim_result *r = calloc(n ? n : 1, sizeof(*r));
	const struct sim_result **rp = calloc(n ? n : 1, sizeof(*rp));
	int rc = 0;
	if (!r || !rp)
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	for (unsigned g = 0; g < n && !rc; g++) {
		rc = gates_of(t, plans[g], &r[g], err, errlen);
		rp[g] = &r[g];
	}
	if (!rc)
		rc = joint_run(t, plans, rp, n, l, out, err, errlen);
	for (unsigned g = 0; r && g < n; g++)
		sim_free(&r[g]);
	free(r);
	free(rp);
	return rc;
}

/* --- the joint planner ---------------------------------------------------- */

struct cand {
	struct mp_plan plan;
	struct sim_result gates;
	char about[48];
};

static void cand_free(struct cand *c)
{
	mp_plan_free(&c->plan);
	sim_free(&c->gates);
}

/* The same offsets and swaps (the timing, made for another view of the
 * link, may differ). */
static int same_plan(const struct mp_plan *a, const struct mp_plan *b)
{
	if (a->nallocs != b->nallocs || a->nswaps != b->nswaps ||
	    a->pool_size != b->pool_size)
		return 0;
	for (uint32_t i = 0; i < a->nallocs; i++)
		if (a->allocs[i].offset != b->allocs[i].offset)
			return 0;
	for (uint32_t j = 0; j < a->nswaps; j++) {
		const struct mp_plan_swap *x = &a->swaps[j], *y = &b->swaps[j];
		if (x->request != y->request || x->out_at != y->out_at ||
		    x->in_at != y->in_at || x->src_offset != y->src_offset ||
		    x->bytes != y->bytes)
			return 0;
	}
	return 1;
}

/* A copy of a plan (through its encoding). */
static int plan_clone(const struct mp_plan *a, struct mp_plan *b)
{
	unsigned char *buf;
	size_t len;
	char why[256];
	memset(b, 0, sizeof(*b));
	if (mp_plan_encode(a, &buf, &len, why, sizeof(why)))
		return TRACE_ENOMEM;
	int rc = mp_plan_decode(buf, len, b, why, sizeof(why));
	free(buf);
	return rc ? TRACE_ENOMEM : 0;
}

/*
 * b: a copy of a with each swap's triggers moved within what its bytes
 * allow: the swap-in earlier by in_f of the way to the first request after
 * which no other buffer holds them, the swap-out later by out_f of the way
 * to the last request before one takes them (the same bytes and tensors,
 * at shifted moments).  A swap whose request has other swaps stays.  0 when
 * b differs from a and verifies against t (b is the caller's); 1 when
 * nothing moved or it does not verify (b empty); <0 out of memory.
 */
static int plan_shift(const struct trace *t, const struct mp_plan *a,
		      double in_f, double out_f, struct mp_plan *b)
{
	if (plan_clone(a, b))
		return TRACE_ENOMEM;
	int moved = 0;
	for (uint32_t j = 0; j < b->nswaps; j++) {
		struct mp_plan_swap *w = &b->swaps[j];
		if ((j && b->swaps[j - 1].request == w->request) ||
		    (j + 1 < b->nswaps && b->swaps[j + 1].request == w->request))
			continue;
		const struct mp_plan_alloc *me = &b->allocs[w->request];
		uint64_t lo = me->offset + w->src_offset, hi = lo + w->bytes;
		uint64_t last_free = w->out_at + 1, first_reuse = w->in_at;
		int stuck_in = 0, stuck_out = 0;
		for (uint32_t x = 0; x < b->nallocs; x++) {
			const struct mp_plan_alloc *o = &b->allocs[x];
			if (x == w->request || o->offset == MP_PLAN_PASS_THROUGH ||
			    o->offset >= hi || o->offset + o->size <= lo)
				continue;
			uint64_t xu = o->upper == MP_PLAN_NO_FREE ? UINT64_MAX : o->upper;
			if (xu <= w->out_at || o->lower >= w->in_at)
				continue;
			/* o holds the bytes inside the hole */
			if (o->lower <= w->out_at)
				stuck_out = 1;
			else if (o->lower < first_reuse)
				first_reuse = o->lower;
			if (xu > w->in_at)
				stuck_in = 1;
			else if (xu > last_free)
				last_free = xu;
		}
		uint64_t in = w->in_at, out = w->out_at;
		if (!stuck_in && last_free < w->in_at)
			in = w->in_at - (uint64_t)(in_f * (double)(w->in_at - last_free));
		if (!stuck_out && first_reuse > w->out_at + 1)
			out = w->out_at + (uint64_t)(out_f * (double)(first_reuse - 1 - w->out_at));
		if (out >= in || (in == w->in_at && out == w->out_at))
			continue;
		w->in_at = in;
		w->out_at = out;
		moved = 1;
	}
	char why[256];
	int rc = moved ? planfile_verify(b, t, why, sizeof(why)) : 1;
	if (rc) {
		mp_plan_free(b);
		memset(b, 0, sizeof(*b));
		return rc == TRACE_ENOMEM ? rc : 1;
	}
	return 0;
}

struct eval {
	const struct trace *t;
	const struct link_model *l;
	struct cand *c;
	unsigned n;
	const struct mp_plan **plans;
	const struct sim_result **gates;
	struct mgpu_gpu *out;
};

/* The joint run of choice: its worst and total overhead. */
static int evaluate(struct eval *e, const unsigned *choice, double *worst,
		    double *total, char *err, size_t errlen)
{
	for (unsigned g = 0; g < e->n; g++) {
		e->plans[g] = &e->c[choice[g]].plan;
		e->gates[g] = &e->c[choice[g]].gates;
	}
	int rc = joint_run(e->t, e->plans, e->gates, e->n, e->l, e->out, err,
			   errlen);
	*worst = 0;
	*total = 0;
	for (unsigned g = 0; !rc && g < e->n; g++) {
		*worst = fmax(*worst, e->out[g].overhead);
		*total += e->out[g].overhead;
	}
	return rc;
}

void mgpu_result_free(struct mgpu_result *r)
{
	for (unsigned g = 0; r->plans && g < r->n; g++)
		mp_plan_free(&r->plans[g]);
	free(r->plans);
	free(r->gpus);
	free(r->lock);
	free(r->choice);
	free(r->about);
	memset(r, 0, sizeof(*r));
}

#define MGPU_ROUNDS 4

int mgpu_plan(const struct trace *t, const struct solver_problem *p,
	      const struct link_model *l, uint64_t budget, uint64_t align,
	      struct mgpu_result *r, char *err, size_t errlen)
{
	static const char *const strategies[] = { "memplan", "singa", "vdnn" };
	unsigned n = l->gpus ? l->gpus : 1;
	memset(r, 0, sizeof(*r));
	r->n = n;
	size_t cap = 3 * 12, nc = 0;
	struct cand *c = calloc(cap, sizeof(*c));
	struct eval e = { t, l, c, n, calloc(n, sizeof(*e.plans)),
			  calloc(n, sizeof(*e.gates)),
			  calloc(n, sizeof(*e.out)) };
	unsigned *cur = calloc(n, sizeof(*cur));
	r->plans = calloc(n, sizeof(*r->plans));
	r->gpus = calloc(n, sizeof(*r->gpus));
	r->lock = calloc(n, sizeof(*r->lock));
	r->choice = calloc(n, sizeof(*r->choice));
	int rc = 0;
	size_t lockstep = SIZE_MAX;
	char e1[512] = "";
	if (!c || !e.plans || !e.gates || !e.out || !cur || !r->plans ||
	    !r->gpus || !r->lock || !r->choice) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
		goto out;
	}
	/* views of the link: 1, 2, 4, ... GPUs copying, and all n; the
	 * lock-step plan (all n, memplan) first */
	unsigned views[12], nv = 0;
	views[nv++] = n;
	for (unsigned v = 1; v < n && nv < 12; v *= 2)
		views[nv++] = v;
	for (unsigned vi = 0; vi < nv && !rc; vi++)
		for (size_t si = 0; si < 3 && !rc; si++) {
			struct link_model lv = *l;
			lv.gpus = views[vi];
			struct cand *x = &c[nc];
			memset(x, 0, sizeof(*x));
			struct sim_result sim;
			struct swap_outcome oc;
			char e2[512];
			int pr = budget_plan(t, p, &lv, strategies[si], budget,
					     "best-fit", align, &x->plan, &sim, &oc,
					     e2, sizeof(e2));
			if (pr == SWAP_ENOFIT) {
				if (!*e1)
					snprintf(e1, sizeof(e1), "%s", e2);
				continue;
			}
			if (pr) {
				rc = trace_seterr(err, errlen, pr, "%s", e2);
				break;
			}
			sim_free(&sim);
			size_t dup = SIZE_MAX;
			for (size_t k = 0; k < nc; k++)
				if (same_plan(&c[k].plan, &x->plan))
					dup = k;
			if (vi == 0 && si == 0)
				lockstep = dup != SIZE_MAX ? dup : nc;
			if (dup != SIZE_MAX) {
				cand_free(x);
				memset(x, 0, sizeof(*x));
				continue;
			}
			snprintf(x->about, sizeof(x->about), "%s for %u of %u GPUs copying",
				 strategies[si], views[vi], n);
			rc = gates_of(t, &x->plan, &x->gates, err, errlen);
			if (rc) {
				cand_free(x);
				break;
			}
			size_t base = nc++;
			/* the same swaps at shifted moments */
			static const double shift[][2] = { { 1, 0 }, { 0.5, 0 },
							   { 0, 1 }, { 1, 1 } };
			static const char *const shift_name[] = {
				"in early", "in earlier", "out late", "in early, out late" };
			for (size_t v = 0; v < 4 && !rc && si == 0; v++) {
				if (nc == cap) {
					struct cand *nw = realloc(c, 2 * cap * sizeof(*c));
					if (!nw) {
						rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
						break;
					}
					c = e.c = nw;
					cap *= 2;
				}
				struct cand *y = &c[nc];
				memset(y, 0, sizeof(*y));
				int sr = plan_shift(t, &c[base].plan, shift[v][0],
						    shift[v][1], &y->plan);
				if (sr < 0) {
					rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
					break;
				}
				if (sr)
					continue;
				int dup = 0;
				for (size_t k = 0; k < nc && !dup; k++)
					dup = same_plan(&c[k].plan, &y->plan);
				if (dup) {
					mp_plan_free(&y->plan);
					continue;
				}
				snprintf(y->about, sizeof(y->about), "%s for %u of %u, %s",
					 strategies[si], views[vi], n, shift_name[v]);
				/* its own prediction, on the view it was made for */
				struct sim_result ys;
				rc = sim_run(t, &y->plan, &lv, &ys, err, errlen);
				if (!rc && sim_attach_timing(&y->plan, &ys))
					rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
				if (!rc)
					sim_free(&ys);
				if (!rc)
					rc = gates_of(t, &y->plan, &y->gates, err, errlen);
				if (rc) {
					cand_free(y);
					break;
				}
				nc++;
			}
			if (nc + 3 >= cap) {
				struct cand *nw = realloc(c, 2 * cap * sizeof(*c));
				if (!nw) {
					rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
					break;
				}
				c = e.c = nw;
				cap *= 2;
			}
		}
	if (rc)
		goto out;
	if (lockstep == SIZE_MAX) {
		rc = trace_seterr(err, errlen, SWAP_ENOFIT, "%s",
				  *e1 ? e1 : "no swap plan fits the budget");
		goto out;
	}
	r->ncandidates = nc;
	r->about = calloc(nc, sizeof(*r->about));
	if (!r->about) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < nc; k++)
		memcpy(r->about[k], c[k].about, sizeof(r->about[k]));
	for (unsigned g = 0; g < n; g++)
		cur[g] = (unsigned)lockstep;
	double worst, total;
	rc = evaluate(&e, cur, &worst, &total, err, errlen);
	if (rc)
		goto out;
	r->lockstep = worst;
	memcpy(r->lock, e.out, n * sizeof(*e.out));
	memcpy(r->gpus, e.out, n * sizeof(*e.out));
	/* the best plan all GPUs could share, where the descent starts */
	r->identical = worst;
	unsigned start = (unsigned)lockstep;
	for (size_t k = 0; k < nc && !rc; k++) {
		if (k == lockstep)
			continue;
		for (unsigned g = 0; g < n; g++)
			cur[g] = (unsigned)k;
		double w, s;
		rc = evaluate(&e, cur, &w, &s, err, errlen);
		if (!rc && (w < worst - 1e-9 ||
			    (w <= worst + 1e-9 && s < total - 1e-9))) {
			worst = w;
			total = s;
			start = (unsigned)k;
			memcpy(r->gpus, e.out, n * sizeof(*e.out));
		}
	}
	if (rc)
		goto out;
	r->identical = worst;
	for (unsigned g = 0; g < n; g++)
		cur[g] = start;
	/* each GPU in turn takes the candidate that lowers (worst, total) */
	for (int round = 0; round < MGPU_ROUNDS; round++) {
		int changed = 0;
		for (unsigned g = 0; g < n && !rc; g++) {
			unsigned keep = cur[g];
			for (size_t k = 0; k < nc && !rc; k++) {
				if (k == keep)
					continue;
				cur[g] = (unsigned)k;
				double w, s;
				rc = evaluate(&e, cur, &w, &s, err, errlen);
				if (!rc && (w < worst - 1e-9 ||
					    (w <= worst + 1e-9 && s < total - 1e-9))) {
					worst = w;
					total = s;
					keep = (unsigned)k;
					changed = 1;
					memcpy(r->gpus, e.out, n * sizeof(*e.out));
				}
			}
			cur[g] = keep;
		}
		if (rc || !changed)
			break;
	}
	if (rc)
		goto out;
	r->worst = worst;
	for (unsigned g = 0; g < n; g++) {
		r->choice[g] = cur[g];
		if (plan_clone(&c[cur[g]].plan, &r->plans[g])) {
			rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
			goto out;
		}
		r->plans[g].device = (int32_t)g;
		if ((rc = planfile_verify(&r->plans[g], t, e1, sizeof(e1))) ==
		    TRACE_ENOMEM) {
			rc = trace_seterr(err, errlen, rc, "%s", e1);
			goto out;
		}
		if (rc) {
			rc = trace_seterr(err, errlen, TRACE_EINVAL,
					  "internal error: the plan of GPU %u does not verify: %s",
					  g, e1);
			goto out;
		}
	}
out:
	for (size_t k = 0; c && k < nc; k++)
		cand_free(&c[k]);
	free(c);
	free(e.plans);
	free(e.gates);
	free(e.out);
	free(cur);
	if (rc)
		mgpu_result_free(r);
	return rc;
}
