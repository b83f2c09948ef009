/* SPDX-License-Identifier: MIT */
/*
 * planfile.c - builds a plan from a trace and a solver's offsets, and checks
 * any plan against any trace.  The check is deliberately a second opinion:
 * it uses neither solver_check() nor the solver's problem, but its own sweep
 * over the trace's lifetimes and holes (a Fenwick tree over byte ranks that
 * finds the resident neighbour below each new piece), so that a bug in the
 * solver or its checker cannot vouch for itself.
 */
#include "planfile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_clock.h"
#include "link.h"

static int plan_resident_peak(const struct mp_plan *plan,
			      const struct trace *t, uint64_t *peak, char *err,
			      size_t errlen);

/* --- building -------------------------------------------------------------- */

/* The trace's stream of a buffer's allocation: the buffer's, else its alloc
 * event's (TRACE_NONE when neither is known). */
static int64_t alloc_stream(const struct trace *t, const struct trace_event *e)
{
	int64_t s = t->buffers[e->buffer].stream;
	return s != TRACE_NONE ? s : e->stream;
}

/*
 * The STREAMS section of t: per alloc event in order, the ordinal of its
 * stream among the streams of the allocations before it, by first
 * appearance (MP_PLAN_STREAM_UNKNOWN where the trace does not know it).
 * out holds n entries, n the alloc events.  Returns 0 or TRACE_ENOMEM.
 */
static int trace_stream_ordinals(const struct trace *t, uint32_t *out,
				 uint32_t n, char *err, size_t errlen)
{
	/* ids seen so far, in order of appearance; few in practice */
	int64_t *ids = NULL;
	uint32_t nids = 0, cap = 0, k = 0;
	for (size_t i = 0; i < t->nevents && k < n; i++) {
		const struct trace_event *e = &t->events[i];
		if (!trace_event_request(t, e))
			continue;
		if (e->type != TRACE_EV_ALLOC)
			continue;
		int64_t s = alloc_stream(t, e);
		uint32_t o = MP_PLAN_STREAM_UNKNOWN;
		if (s != TRACE_NONE) {
			/* the last one found first: requests come in runs */
			for (o = nids; o > 0 && ids[o - 1] != s; o--)
				;
			if (o > 0) {
				o--;
			} else {
				if (nids == cap) {
					uint32_t c = cap ? 2 * cap : 16;
					int64_t *x = realloc(ids, c * sizeof(*x));
					if (!x) {
						free(ids);
						return trace_seterr(err, errlen, TRACE_ENOMEM,
								    "out of memory numbering the trace's streams");
					}
					ids = x;
					cap = c;
				}
				ids[nids] = s;
				o = nids++;
			}
		}
		out[k++] = o;
	}
	free(ids);
	return 0;
}

int planfile_build(const struct trace *t, const struct solver_problem *p,
		   const uint64_t *offsets, const struct planfile_info *info,
		   struct mp_plan *out, char *err, size_t errlen)
{
	return planfile_build_swaps(t, p, offsets, info, NULL, out, err,
				    errlen);
}

int planfile_build_swaps(const struct trace *t, const struct solver_problem *p,
			 const uint64_t *offsets,
			 const struct planfile_info *info,
			 const struct planfile_swaps *sw, struct mp_plan *out,
			 char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!t->finished)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "the trace is not finished");
	uint64_t align = info && info->pool_align ? info->pool_align : 1;
	const char *strategy = info && info->strategy ? info->strategy : "";
	if (strlen(strategy) >= MP_PLAN_STRATEGY_LEN)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "strategy name '%s' is longer than %d bytes",
				    strategy, MP_PLAN_STRATEGY_LEN - 1);

	size_t nb = t->nbuffers ? t->nbuffers : 1;
	size_t *item = malloc(nb * sizeof(*item));
	uint64_t *alloc_at = malloc(nb * sizeof(*alloc_at));
	uint64_t *free_at = malloc(nb * sizeof(*free_at));
	int rc = 0;
	if (!item || !alloc_at || !free_at) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory planning %zu buffers", t->nbuffers);
		goto out;
	}
	for (size_t i = 0; i < t->nbuffers; i++) {
		item[i] = SIZE_MAX;
		free_at[i] = MP_PLAN_NO_FREE;
	}
	for (size_t i = 0; i < p->n; i++) {
		int64_t b = p->items[i].buffer;
		if (b < 0 || (uint64_t)b >= t->nbuffers || item[b] != SIZE_MAX ||
		    trace_buffer_persistent(&t->buffers[b])) {
			rc = trace_seterr(err, errlen, TRACE_EINVAL,
					  "item %zu of the problem names buffer %lld, which is not a transient buffer of the trace (or is named twice)",
					  i, (long long)b);
			goto out;
		}
		item[b] = i;
	}

	/* the allocator clock: every alloc and free request, in order */
	uint64_t k = 0, nallocs = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (!trace_event_request(t, e))
			continue;
		if (e->type == TRACE_EV_ALLOC) {
			alloc_at[e->buffer] = k++;
			nallocs++;
		} else if (e->type == TRACE_EV_FREE) {
			free_at[e->buffer] = k++;
		}
	}
	if (nallocs > UINT32_MAX) {
		rc = trace_seterr(err, errlen, TRACE_EINVAL,
				  "the trace has %llu allocation requests; a plan holds at most %lu",
				  (unsigned long long)nallocs, (unsigned long)UINT32_MAX);
		goto out;
	}
	out->allocs = malloc((nallocs ? nallocs : 1) * sizeof(*out->allocs));
	if (!out->allocs) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory planning %llu requests",
				  (unsigned long long)nallocs);
		goto out;
	}
	struct mp_plan_fp fp;
	mp_plan_fp_init(&fp);
	uint64_t pool = 0;
	int32_t device = -1;
	int have_device = 0;
	uint32_t n = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (!trace_event_request(t, e))
			continue;
		if (e->type != TRACE_EV_ALLOC)
			continue;
		const struct trace_buffer *b = &t->buffers[e->buffer];
		struct mp_plan_alloc *a = &out->allocs[n++];
		a->size = b->size;
		a->buffer = (uint64_t)b->id;
		a->lower = alloc_at[b->id];
		a->upper = free_at[b->id];
		a->flags = 0;
		a->offset = MP_PLAN_PASS_THROUGH;
		mp_plan_fp_update(&fp, b->size);
		if (item[b->id] == SIZE_MAX)
			continue;
		a->offset = offsets[item[b->id]];
		if (a->offset + a->size > pool)
			pool = a->offset + a->size;
		if (have_device && b->device != device) {
			rc = trace_seterr(err, errlen, TRACE_EINVAL,
					  "planned buffers live on devices %ld and %ld; a plan holds one pool on one device",
					  (long)device, (long)b->device);
			goto out;
		}
		device = b->device;
		have_device = 1;
	}
	for (size_t i = 0; i < t->nbuffers; i++)
		if (trace_buffer_persistent(&t->buffers[i]))
			out->persistent_bytes += t->buffers[i].size;
	out->nallocs = n;
	out->version = MP_PLAN_VERSION;
	out->flags = (info && info->optimal ? MP_PLAN_OPTIMAL : 0) |
		     (info && info->trust_holes ? MP_PLAN_TRUSTS_HOLES : 0);
	out->pool_size = pool;
	out->pool_align = align;
	out->device = device;
	out->nrequests = k;
	out->fingerprint = mp_plan_fp_final(&fp);
	out->lower_bound = solver_lower_bound(p);
	snprintf(out->strategy, sizeof(out->strategy), "%s", strategy);
	if (!(out->flags & MP_PLAN_TRUSTS_HOLES))
		for (size_t i = 0; i < p->n && !rc; i++)
			if (p->items[i].nholes && (!sw || !sw->nswaps))
				rc = trace_seterr(err, errlen, TRACE_EINVAL,
						  "buffer %lld has holes in the problem, and a plan without swaps cannot empty them (drop the trace's holes, or trust them)",
						  (long long)p->items[i].buffer);
	if (rc)
		goto out;
	out->streams = malloc((n ? n : 1) * sizeof(*out->streams));
	if (!out->streams) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory planning %u requests' streams", n);
		goto out;
	}
	out->has_streams = 1;
	rc = trace_stream_ordinals(t, out->streams, n, err, errlen);
	if (rc)
		goto out;
	if (sw && sw->nswaps) {
		out->swaps = malloc(sw->nswaps * sizeof(*out->swaps));
		if (!out->swaps) {
			rc = trace_seterr(err, errlen, TRACE_ENOMEM,
					  "out of memory planning %u swaps",
					  sw->nswaps);
			goto out;
		}
		memcpy(out->swaps, sw->swaps, sw->nswaps * sizeof(*out->swaps));
		out->nswaps = sw->nswaps;
		out->host_staging = sw->host_staging;
		uint64_t peak;
		rc = plan_resident_peak(out, t, &peak, err, errlen);
		if (rc)
			goto out;
		out->lower_bound = peak;
	}

	char why[384];
	rc = mp_plan_validate(out, why, sizeof(why));
	if (rc == MP_PLAN_ENOMEM)
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "%s", why);
	else if (rc)
		rc = trace_seterr(err, errlen, TRACE_EINVAL,
				  "the plan built from these offsets is not valid: %s",
				  why);
out:
	free(item);
	free(alloc_at);
	free(free_at);
	if (rc)
		mp_plan_free(out);
	return rc;
}

/* --- the overlap sweep ------------------------------------------------------ */

/* A piece of one request: bytes [b0, b1) resident during [t0, t1). */
struct rect {
	int64_t t0, t1;
	uint64_t b0, b1;
	uint32_t who; /* request index */
};

struct tick {
	int64_t at;
	uint32_t rect;
	uint32_t start; /* 0 end, 1 start: at one instant, ends come first */
};

static int tick_cmp(const void *a, const void *b)
{
	const struct tick *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->rect > y->rect) - (x->rect < y->rect);
}

struct ranked {
	uint64_t b0;
	uint32_t rect;
};

static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->b0 != y->b0)
		return x->b0 < y->b0 ? -1 : 1;
	return (x->rect > y->rect) - (x->rect < y->rect);
}

/* Fenwick tree of resident counts over byte ranks (1-based inside). */
static void fw_add(int32_t *fw, size_t n, size_t pos, int32_t d)
{
	for (pos++; pos <= n; pos += pos & (~pos + 1))
		fw[pos] += d;
}

static int32_t fw_prefix(const int32_t *fw, size_t pos) /* ranks [0, pos) */
{
	int32_t s = 0;
	for (; pos > 0; pos -= pos & (~pos + 1))
		s += fw[pos];
	return s;
}

/* The 0-based rank of the k-th resident (k >= 1). */
static size_t fw_kth(const int32_t *fw, size_t n, int32_t k)
{
	size_t pos = 0, step = 1;
	while (step * 2 <= n)
		step *= 2;
	for (; step; step /= 2)
		if (pos + step <= n && fw[pos + step] < k) {
			pos += step;
			k -= fw[pos];
		}
	return pos;
}

struct clash {
	uint32_t a, b; /* rect indexes */
	int64_t at;
};

/*
 * Sweeps rects in time; resident rects never share a byte (else the first
 * clash is reported in *c and 1 returned).  *peak receives the maximum of
 * resident bytes.  Returns 0, 1, or -1 when out of memory.  Among resident
 * rects, which are disjoint, a new [b0, b1) meets one iff the resident with
 * the greatest start below b1 ends above b0.
 */
static int sweep(const struct rect *r, size_t n, uint64_t *peak,
		 struct clash *c)
{
	*peak = 0;
	struct ranked *byrank = malloc((n ? n : 1) * sizeof(*byrank));
	uint32_t *rank = malloc((n ? n : 1) * sizeof(*rank));
	struct tick *tk = malloc((2 * n + 1) * sizeof(*tk));
	int32_t *fw = calloc(n + 1, sizeof(*fw));
	int rc = -1;
	if (!byrank || !rank || !tk || !fw)
		goto out;
	size_t nt = 0;
	for (size_t i = 0; i < n; i++) {
		byrank[i] = (struct ranked){ r[i].b0, (uint32_t)i };
		if (r[i].t0 >= r[i].t1)
			continue; /* never resident */
		tk[nt++] = (struct tick){ r[i].t0, (uint32_t)i, 1 };
		tk[nt++] = (struct tick){ r[i].t1, (uint32_t)i, 0 };
	}
	qsort(byrank, n, sizeof(*byrank), ranked_cmp);
	for (size_t i = 0; i < n; i++)
		rank[byrank[i].rect] = (uint32_t)i;
	qsort(tk, nt, sizeof(*tk), tick_cmp);
	uint64_t live = 0;
	rc = 0;
	for (size_t e = 0; e < nt; e++) {
		const struct rect *x = &r[tk[e].rect];
		if (!tk[e].start) {
			fw_add(fw, n, rank[tk[e].rect], -1);
			live -= x->b1 - x->b0;
			continue;
		}
		/* ranks [0, below) start before x ends */
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (byrank[mid].b0 < x->b1)
				lo = mid + 1;
			else
				hi = mid;
		}
		int32_t cnt = fw_prefix(fw, lo);
		if (cnt > 0) {
			uint32_t q = byrank[fw_kth(fw, n, cnt)].rect;
			if (r[q].b1 > x->b0) {
				*c = (struct clash){ q, tk[e].rect, tk[e].at };
				rc = 1;
				goto out;
			}
		}
		fw_add(fw, n, rank[tk[e].rect], 1);
		live += x->b1 - x->b0;
		if (live > *peak)
			*peak = live;
	}
out:
	free(byrank);
	free(rank);
	free(tk);
	free(fw);
	return rc;
}

/* --- verifying -------------------------------------------------------------- */

static int invalid(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int invalid(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return PLANFILE_EINVALID;
}

/* Requests, sizes and the clock of t against the plan's entries. */
static int verify_requests(const struct mp_plan *plan, const struct trace *t,
			   char *err, size_t errlen)
{
	struct mp_plan_fp fp;
	mp_plan_fp_init(&fp);
	uint64_t clock = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (!trace_event_request(t, e))
			continue;
		if (e->type == TRACE_EV_ALLOC) {
			mp_plan_fp_update(&fp, t->buffers[e->buffer].size);
			clock++;
		} else if (e->type == TRACE_EV_FREE) {
			clock++;
		}
	}
	uint64_t f = mp_plan_fp_final(&fp);
	if (fp.n != plan->nallocs || f != plan->fingerprint)
		return invalid(err, errlen,
			       "fingerprint mismatch: the plan was made for another request sequence (plan: %u requests, fingerprint 0x%016llx; trace: %llu requests, fingerprint 0x%016llx)",
			       plan->nallocs, (unsigned long long)plan->fingerprint,
			       (unsigned long long)fp.n, (unsigned long long)f);
	if (clock != plan->nrequests)
		return invalid(err, errlen,
			       "META field nrequests: the plan's clock has %llu alloc and free requests, the trace %llu",
			       (unsigned long long)plan->nrequests,
			       (unsigned long long)clock);

	/* ordinals, sizes and buffers entry by entry */
	uint64_t k = 0;
	uint32_t n = 0;
	uint64_t *ord = malloc((t->nbuffers ? t->nbuffers : 1) * sizeof(*ord));
	if (!ord)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory verifying %zu buffers",
				    t->nbuffers);
	for (size_t i = 0; i < t->nbuffers; i++)
		ord[i] = MP_PLAN_NO_FREE;
	int rc = 0;
	/* free ordinals first, in a pass of their own */
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (!trace_event_request(t, e))
			continue;
		if (e->type == TRACE_EV_FREE)
			ord[e->buffer] = k;
		if (e->type == TRACE_EV_ALLOC || e->type == TRACE_EV_FREE)
			k++;
	}
	k = 0;
	for (size_t i = 0; i < t->nevents && !rc; i++) {
		const struct trace_event *e = &t->events[i];
		if (!trace_event_request(t, e))
			continue;
		if (e->type == TRACE_EV_FREE)
			k++;
		if (e->type != TRACE_EV_ALLOC)
			continue;
		const struct trace_buffer *b = &t->buffers[e->buffer];
		const struct mp_plan_alloc *a = &plan->allocs[n];
		if (a->size != b->size)
			rc = invalid(err, errlen,
				     "request %u: the plan expects %llu bytes, the trace asks for %llu (buffer %lld)",
				     n, (unsigned long long)a->size,
				     (unsigned long long)b->size, (long long)b->id);
		else if (a->buffer != (uint64_t)b->id)
			rc = invalid(err, errlen,
				     "request %u: the plan names buffer %llu, the trace buffer %lld",
				     n, (unsigned long long)a->buffer,
				     (long long)b->id);
		else if (a->lower != k || a->upper != ord[b->id])
			rc = invalid(err, errlen,
				     "request %u (buffer %lld): the plan's clock ordinals [%llu, %llu) differ from the trace's [%llu, %llu)",
				     n, (long long)b->id, (unsigned long long)a->lower,
				     (unsigned long long)a->upper,
				     (unsigned long long)k,
				     (unsigned long long)ord[b->id]);
		else if (a->offset != MP_PLAN_PASS_THROUGH &&
			 trace_buffer_persistent(b))
			rc = invalid(err, errlen,
				     "request %u (buffer %lld): a buffer that outlives the iteration has a pool offset",
				     n, (long long)b->id);
		else if (a->offset != MP_PLAN_PASS_THROUGH &&
			 (a->offset % plan->pool_align || a->offset % b->align))
			rc = invalid(err, errlen,
				     "request %u (buffer %lld): offset %llu is not a multiple of the pool alignment %llu and the buffer's %llu",
				     n, (long long)b->id,
				     (unsigned long long)a->offset,
				     (unsigned long long)plan->pool_align,
				     (unsigned long long)b->align);
		else if (a->offset != MP_PLAN_PASS_THROUGH &&
			 (a->size > plan->pool_size ||
			  a->offset > plan->pool_size - a->size))
			rc = invalid(err, errlen,
				     "request %u (buffer %lld): bytes [%llu, %llu) are outside the pool of %llu bytes",
				     n, (long long)b->id,
				     (unsigned long long)a->offset,
				     (unsigned long long)(a->offset + a->size),
				     (unsigned long long)plan->pool_size);
		n++;
		k++;
	}
	free(ord);
	return rc;
}

/* A swap's hole on the trace clock: [clock(request out_at + 1),
 * clock(request in_at)), with the bytes it leaves resident. */
struct shole {
	int64_t lower, upper;
	uint64_t win_lo, win_hi; /* relative to the buffer; lo == hi: none */
};

/*
 * The resident pieces of every planned request: lifetime minus holes (of
 * the plan's swaps, and of the trace when the plan trusts them: the runtime
 * empties nothing but its swaps), with the window a hole keeps.  A
 * swap leaves what it does not copy resident: the bytes after it when it
 * starts at 0, the bytes before it when it runs to the end, else all.
 * Where a swap and a trace hole overlap, the bytes both leave stay.
 * Returns 0, TRACE_ENOMEM, or PLANFILE_EINVALID with a sentence (triggers
 * out of order, swaps of one request that overlap).
 */
static int planned_rects(const struct mp_plan *plan, const struct trace *t,
			 struct rect **out, size_t *nout, char *err,
			 size_t errlen)
{
	int trust = (plan->flags & MP_PLAN_TRUSTS_HOLES) != 0;
	size_t n = 0;
	for (uint32_t i = 0; i < plan->nallocs; i++)
		if (plan->allocs[i].offset != MP_PLAN_PASS_THROUGH)
			n += 1 + 2 * (size_t)(trust ? t->buffers[plan->allocs[i].buffer].nholes : 0);
	n += 2 * (size_t)plan->nswaps;
	if (n > UINT32_MAX)
		return TRACE_ENOMEM;
	size_t maxh = 0;
	for (size_t i = 0; i < t->nbuffers; i++)
		if (t->buffers[i].nholes > maxh)
			maxh = t->buffers[i].nholes;
	struct rect *r = malloc((n ? n : 1) * sizeof(*r));
	int64_t *kclock = malloc((plan->nrequests + 1) * sizeof(*kclock));
	struct shole *sh = malloc((plan->nswaps + 1) * sizeof(*sh));
	int64_t *bt = malloc((2 * (maxh + plan->nswaps) + 2) * sizeof(*bt));
	if (!r || !kclock || !sh || !bt) {
		free(r);
		free(kclock);
		free(sh);
		free(bt);
		return TRACE_ENOMEM;
	}
	uint64_t k = 0;
	for (size_t i = 0; i < t->nevents && k < plan->nrequests; i++)
		if (trace_event_request(t, &t->events[i]))
			kclock[k++] = trace_event_clock(t, i);
	int rc = 0;
	size_t nk = 0, sj = 0;
	for (uint32_t i = 0; i < plan->nallocs && !rc; i++) {
		const struct mp_plan_alloc *a = &plan->allocs[i];
		/* this request's swaps: sorted by (request, out_at) */
		size_t s0 = sj, ns = 0;
		while (sj < plan->nswaps && plan->swaps[sj].request == i) {
			const struct mp_plan_swap *w = &plan->swaps[sj];
			uint64_t b0 = w->src_offset, b1 = b0 + w->bytes;
			if (w->out_at >= w->in_at || w->in_at >= plan->nrequests) {
				rc = invalid(err, errlen,
					     "swap %zu: triggers %llu and %llu are not increasing requests of the clock",
					     sj, (unsigned long long)w->out_at,
					     (unsigned long long)w->in_at);
				break;
			}
			struct shole *h = &sh[ns++];
			h->lower = kclock[w->out_at + 1];
			h->upper = kclock[w->in_at];
			h->win_lo = h->win_hi = 0;
			if (b0 == 0 && b1 < a->size) {
				h->win_lo = b1;
				h->win_hi = a->size;
			} else if (b0 > 0 && b1 == a->size) {
				h->win_hi = b0;
			} else if (b0 > 0) {
				h->win_hi = a->size; /* a middle part: all stays */
			}
			if (ns > 1 && h->lower < sh[ns - 2].upper)
				rc = invalid(err, errlen,
					     "swaps %zu and %zu of request %u overlap in time",
					     sj - 1, sj, i);
			sj++;
		}
		(void)s0;
		if (a->offset == MP_PLAN_PASS_THROUGH || rc)
			continue;
		const struct trace_buffer *b = &t->buffers[a->buffer];
		uint32_t nth = trust ? b->nholes : 0; /* trace holes counted */
		int64_t lo, hi;
		trace_lifetime(t, b, &lo, &hi);
		/* every boundary of a trace hole or a swap hole, then per
		 * segment the bytes both leave resident */
		size_t nb = 0;
		bt[nb++] = lo;
		bt[nb++] = hi;
		for (uint32_t j = 0; j < nth; j++) {
			bt[nb++] = t->holes[b->hole0 + j].lower;
			bt[nb++] = t->holes[b->hole0 + j].upper;
		}
		for (size_t j = 0; j < ns; j++) {
			bt[nb++] = sh[j].lower;
			bt[nb++] = sh[j].upper;
		}
		qsort(bt, nb, sizeof(*bt), solver_time_cmp);
		uint32_t th = 0;
		size_t sj2 = 0;
		for (size_t x = 0; x + 1 < nb; x++) {
			int64_t s0 = bt[x], s1 = bt[x + 1];
			if (s0 == s1 || s0 < lo || s1 > hi)
				continue;
			uint64_t r0 = 0, r1 = a->size;
			while (th < nth && t->holes[b->hole0 + th].upper <= s0)
				th++;
			if (th < nth && t->holes[b->hole0 + th].lower <= s0) {
				const struct trace_hole *h = &t->holes[b->hole0 + th];
				if (h->win_lo == TRACE_NONE) {
					r1 = r0;
				} else {
					r0 = (uint64_t)h->win_lo;
					r1 = (uint64_t)h->win_hi;
				}
			}
			while (sj2 < ns && sh[sj2].upper <= s0)
				sj2++;
			if (sj2 < ns && sh[sj2].lower <= s0) {
				if (sh[sj2].win_lo > r0)
					r0 = sh[sj2].win_lo;
				if (sh[sj2].win_hi < r1)
					r1 = sh[sj2].win_hi;
			}
			if (r1 > r0)
				r[nk++] = (struct rect){ s0, s1, a->offset + r0,
							 a->offset + r1, i };
		}
	}
	free(kclock);
	free(sh);
	free(bt);
	if (rc) {
		free(r);
		return rc;
	}
	*out = r;
	*nout = nk;
	return 0;
}

/* No use of a swapped buffer between its swap-out and swap-in requests:
 * the copy back is issued after in_at, so a use before it would read
 * bytes that are not there.  No swap of a buffer used on more than one
 * stream: the copy-out waits for the buffer's own stream, the copy-in
 * makes it alone wait, and a use on another one would race with both. */
static int verify_swap_uses(const struct mp_plan *plan, const struct trace *t,
			    char *err, size_t errlen)
{
	if (!plan->nswaps)
		return 0;
	uint32_t *ev = malloc((plan->nrequests + 1) * sizeof(*ev));
	if (!ev)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory verifying %u swaps",
				    plan->nswaps);
	uint64_t k = 0;
	for (size_t i = 0; i < t->nevents && k < plan->nrequests; i++)
		if (trace_event_request(t, &t->events[i]))
			ev[k++] = (uint32_t)i;
	int rc = 0;
	for (uint32_t j = 0; j < plan->nswaps && !rc; j++) {
		const struct mp_plan_swap *w = &plan->swaps[j];
		const struct mp_plan_alloc *a = &plan->allocs[w->request];
		if (a->offset == MP_PLAN_PASS_THROUGH) {
			rc = invalid(err, errlen,
				     "swap %u: request %llu is not planned in the pool",
				     j, (unsigned long long)w->request);
			break;
		}
		const struct trace_buffer *b = &t->buffers[a->buffer];
		int64_t st[2], sev;
		if (trace_buffer_streams(t, b, st, &sev)) {
			rc = invalid(err, errlen,
				     "swap %u: buffer %lld is used on streams %lld and %lld (seq %lld), and the runtime orders a swap after the work of one stream only: a buffer used on several streams must stay resident",
				     j, (long long)b->id, (long long)st[0],
				     (long long)st[1],
				     (long long)t->events[sev].seq);
			break;
		}
		for (uint32_t u = 0; u < b->nuses; u++) {
			uint32_t e = t->uses[b->use0 + u];
			if (e > ev[w->out_at] && e < ev[w->in_at]) {
				rc = invalid(err, errlen,
					     "swap %u: buffer %lld is used at seq %lld, between its swap-out (request %llu) and its swap-in (request %llu)",
					     j, (long long)b->id,
					     (long long)t->events[e].seq,
					     (unsigned long long)w->out_at,
					     (unsigned long long)w->in_at);
				break;
			}
		}
	}
	free(ev);
	return rc;
}

static int plan_resident_peak(const struct mp_plan *plan,
			      const struct trace *t, uint64_t *peak, char *err,
			      size_t errlen)
{
	struct rect *r;
	size_t n;
	int rc = planned_rects(plan, t, &r, &n, err, errlen);
	if (rc == TRACE_ENOMEM)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory planning %u requests",
				    plan->nallocs);
	if (rc)
		return TRACE_EINVAL;
	struct clash c;
	int s = sweep(r, n, peak, &c);
	uint32_t wa = s > 0 ? r[c.a].who : 0, wb = s > 0 ? r[c.b].who : 0;
	free(r);
	if (s < 0)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory planning %u requests",
				    plan->nallocs);
	if (s > 0)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "requests %u and %u overlap in the pool once the swaps are taken into account",
				    wa, wb);
	return 0;
}

static int verify_pool(const struct mp_plan *plan, const struct trace *t,
		       char *err, size_t errlen)
{
	struct rect *r;
	size_t n;
	int prc = planned_rects(plan, t, &r, &n, err, errlen);
	if (prc == TRACE_ENOMEM)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory verifying %u requests",
				    plan->nallocs);
	if (prc)
		return prc;
	uint64_t peak;
	struct clash c;
	int s = sweep(r, n, &peak, &c);
	int rc = 0;
	if (s < 0) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory verifying %u requests",
				  plan->nallocs);
	} else if (s > 0) {
		const struct rect *x = &r[c.a], *y = &r[c.b];
		rc = invalid(err, errlen,
			     "requests %u and %u (buffers %llu and %llu) overlap: pool bytes [%llu, %llu) and [%llu, %llu) are both resident at %s %lld",
			     x->who, y->who,
			     (unsigned long long)plan->allocs[x->who].buffer,
			     (unsigned long long)plan->allocs[y->who].buffer,
			     (unsigned long long)x->b0, (unsigned long long)x->b1,
			     (unsigned long long)y->b0, (unsigned long long)y->b1,
			     t->clock == TRACE_CLOCK_TIME ? "time" : "seq",
			     (long long)c.at);
	} else if (peak != plan->lower_bound) {
		rc = invalid(err, errlen,
			     "META field lower_bound: the plan says %llu bytes, the trace's planned buffers need %llu at their peak",
			     (unsigned long long)plan->lower_bound,
			     (unsigned long long)peak);
	} else if (plan->pool_size < peak) {
		rc = invalid(err, errlen,
			     "META field pool_size: %llu bytes is below the lower bound %llu",
			     (unsigned long long)plan->pool_size,
			     (unsigned long long)peak);
	}
	free(r);
	return rc;
}

/* Host staging slots of swaps out at the same time must not share a byte.
 * A slot is busy from its swap-out through the request of its swap-in,
 * whose copy back reads it. */
static int verify_staging(const struct mp_plan *plan, char *err, size_t errlen)
{
	if (plan->nswaps == 0)
		return 0;
	struct rect *r = malloc(plan->nswaps * sizeof(*r));
	if (!r)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory verifying %u swaps",
				    plan->nswaps);
	for (uint32_t i = 0; i < plan->nswaps; i++) {
		const struct mp_plan_swap *s = &plan->swaps[i];
		r[i] = (struct rect){ (int64_t)s->out_at, (int64_t)s->in_at + 1,
				      s->staging, s->staging + s->bytes, i };
	}
	uint64_t peak;
	struct clash c;
	int s = sweep(r, plan->nswaps, &peak, &c);
	int rc = 0;
	if (s < 0)
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory verifying %u swaps",
				  plan->nswaps);
	else if (s > 0)
		rc = invalid(err, errlen,
			     "swaps %u and %u share host staging bytes while both are out (clock ordinal %lld)",
			     r[c.a].who, r[c.b].who, (long long)c.at);
	free(r);
	return rc;
}

int planfile_streams_by_workload(const struct mp_plan *plan, uint32_t *ord,
				 char *err, size_t errlen)
{
	if (!plan->nworkloads || !plan->nallocs)
		return 0;
	uint32_t *seen = malloc(plan->nallocs * sizeof(*seen));
	if (!seen)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory numbering %u requests' streams",
				    plan->nallocs);
	uint32_t nseen = 0;
	uint64_t end = 0;
	for (uint32_t i = 0; i < plan->nallocs; i++) {
		if (plan->allocs[i].lower >= end) { /* a new workload's turn */
			mp_plan_workload_at(plan, plan->allocs[i].lower, NULL, &end);
			nseen = 0;
		}
		if (ord[i] == MP_PLAN_STREAM_UNKNOWN)
			continue;
		uint32_t o = nseen;
		while (o > 0 && seen[o - 1] != ord[i])
			o--;
		if (o == 0) { /* a stream new to this turn */
			seen[nseen++] = ord[i];
			o = nseen;
		}
		ord[i] = o - 1;
	}
	free(seen);
	return 0;
}

/* The STREAMS section, when the plan has one, against t's streams: the
 * runtime binds each ordinal to the stream the program uses for it, so an
 * ordinal that is not the trace's would make a program that runs as traced
 * diverge, or one that does not go unnoticed. */
static int verify_streams(const struct mp_plan *plan, const struct trace *t,
			  char *err, size_t errlen)
{
	if (!plan->has_streams || !plan->nallocs)
		return 0;
	uint32_t *want = malloc(plan->nallocs * sizeof(*want));
	if (!want)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory verifying %u requests' streams",
				    plan->nallocs);
	int rc = trace_stream_ordinals(t, want, plan->nallocs, err, errlen);
	if (!rc) /* a cycle numbers each workload's streams */
		rc = planfile_streams_by_workload(plan, want, err, errlen);
	for (uint32_t i = 0; i < plan->nallocs && !rc; i++) {
		if (plan->streams[i] == want[i])
			continue;
		char a[16], b[16];
		snprintf(a, sizeof(a), "%u", plan->streams[i]);
		snprintf(b, sizeof(b), "%u", want[i]);
		rc = invalid(err, errlen,
			     "request %u (buffer %llu): the plan's STREAMS section says stream ordinal %s, the trace's streams give %s",
			     i, (unsigned long long)plan->allocs[i].buffer,
			     plan->streams[i] == MP_PLAN_STREAM_UNKNOWN ? "unknown" : a,
			     want[i] == MP_PLAN_STREAM_UNKNOWN ? "unknown" : b);
	}
	free(want);
	return rc;
}

/* The LINK section, when the plan has one: a spec the link model parses
 * against t ("measured" reads t's meta), as simulate will parse it. */
static int verify_link(const struct mp_plan *plan, const struct trace *t,
		       char *err, size_t errlen)
{
	if (!plan->has_link)
		return 0;
	struct link_model l;
	char why[384];
	if (link_parse(plan->link, t, &l, why, sizeof(why)) == 0)
		return 0;
	return invalid(err, errlen,
		       "the plan's LINK section '%s' is not a link of this trace: %s",
		       plan->link, why);
}

int planfile_trusted_holes(const struct mp_plan *plan, const struct trace *t,
			   uint64_t *nholes, char *err, size_t errlen)
{
	*nholes = 0;
	if (!(plan->flags & MP_PLAN_TRUSTS_HOLES))
		return 0;
	uint64_t n = 0;
	for (uint32_t i = 0; i < plan->nallocs; i++)
		if (plan->allocs[i].offset != MP_PLAN_PASS_THROUGH &&
		    plan->allocs[i].buffer < t->nbuffers)
			n += t->buffers[plan->allocs[i].buffer].nholes;
	if (n == 0)
		return 0;
	/* the same plan with the holes resident: do two buffers meet? */
	struct mp_plan q = *plan;
	q.flags &= ~MP_PLAN_TRUSTS_HOLES;
	struct rect *r;
	size_t nr;
	int rc = planned_rects(&q, t, &r, &nr, err, errlen);
	if (rc && rc != TRACE_ENOMEM)
		return rc; /* a plan planfile_verify() refuses */
	int s = -1;
	uint64_t peak;
	struct clash c;
	if (rc == 0) {
		s = sweep(r, nr, &peak, &c);
		free(r);
	}
	if (s < 0)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory verifying %u requests",
				    plan->nallocs);
	*nholes = s ? n : 0;
	return 0;
}

int planfile_verify(const struct mp_plan *plan, const struct trace *t,
		    char *err, size_t errlen)
{
	if (!t->finished)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "the trace is not finished");
	char why[384];
	int rc = mp_plan_validate(plan, why, sizeof(why));
	if (rc == MP_PLAN_ENOMEM)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "%s", why);
	if (rc)
		return invalid(err, errlen, "the plan is inconsistent: %s", why);
	rc = verify_requests(plan, t, err, errlen);
	if (!rc)
		rc = verify_streams(plan, t, err, errlen);
	if (!rc)
		rc = verify_link(plan, t, err, errlen);
	if (!rc)
		rc = verify_swap_uses(plan, t, err, errlen);
	if (!rc)
		rc = verify_pool(plan, t, err, errlen);
	if (!rc)
		rc = verify_staging(plan, err, errlen);
	return rc;
}
