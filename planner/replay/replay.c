/* SPDX-License-Identifier: MIT */
/*
 * replay.c - drives a runtime with a trace's requests and checks every
 * buffer's bytes: a pattern unique to (buffer, iteration) written at the
 * alloc, checked at every use and at the free, rewritten at every write.
 * Two buffers that share bytes while both are resident, a swap that did not
 * bring a buffer back, and a runtime that stops following the plan all show
 * up, with the buffers and the event.  Data is reached directly on the host
 * backend and through the backend's copies (and a stream sync) on CUDA.
 */
#include "replay.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

#define NONE32 UINT32_MAX
#define MAX_STREAMS 64 /* the streams the runtime's binding checks, too */
#define CHUNK ((size_t)4 << 20) /* bytes moved per copy on a device backend */

/* --- patterns ---------------------------------------------------------------- */

static uint64_t word(uint32_t buf, uint32_t it, uint64_t i)
{
	return (uint64_t)0xA5 << 56 | (uint64_t)(it & 0xff) << 48 |
	       (uint64_t)(buf & 0xffffff) << 24 | (i & 0xffffff);
}

static void put_word(unsigned char *p, uint64_t w, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n == 8) {
		memcpy(p, &w, 8);
		return;
	}
#endif
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(w >> (8 * i));
}

static uint64_t get_word(const unsigned char *p, size_t n)
{
	uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n == 8) {
		memcpy(&w, p, 8);
		return w;
	}
#endif
	for (size_t i = 0; i < n; i++)
		w |= (uint64_t)p[i] << (8 * i);
	return w;
}

void replay_fill(void *p, size_t n, size_t from, uint32_t buf, uint32_t it)
{
	unsigned char *b = p;
	uint64_t i = from / 8;
	size_t at = 0;
	for (; at + 8 <= n; at += 8, i++)
		put_word(b + at, word(buf, it, i), 8);
	if (at < n)
		put_word(b + at, word(buf, it, i), n - at);
}

int replay_check(const void *p, size_t n, size_t from, uint32_t buf,
		 uint32_t it, struct replay_bad *bad)
{
	const unsigned char *b = p;
	uint64_t i = from / 8;
	for (size_t at = 0; at < n; at += 8, i++) {
		size_t len = n - at < 8 ? n - at : 8;
		uint64_t want = word(buf, it, i), got = get_word(b + at, len);
		if (len < 8)
			want &= ((uint64_t)1 << (8 * len)) - 1;
		if (got == want)
			continue;
		bad->at = from + at;
		bad->found = got;
		bad->owner = -1;
		bad->owner_it = -1;
		if (len == 8 && got >> 56 == 0xA5) {
			bad->owner = (int64_t)(got >> 24 & 0xffffff);
			bad->owner_it = (int32_t)(got >> 48 & 0xff);
		}
		return 1;
	}
	return 0;
}

/* --- the driver ------------------------------------------------------------ */

struct rp {
	const struct trace *t;
	mp_runtime *rt;
	const struct mp_backend *be;
	const struct mp_plan *plan;
	int host;
	int sample; /* opt->sample: windows of each buffer, not every byte */
	void **ptr;         /* per buffer: its memory while allocated */
	uint32_t *entry;    /* per buffer: plan entry, NONE32 if none */
	uint32_t *filled;   /* per buffer: the iteration of its pattern */
	uint32_t *swap0;    /* per entry: its swaps [swap0[r], swap0[r + 1]) */
	int64_t *kclock;    /* per request ordinal: its time on the trace clock */
	uint64_t nkclock;   /* the trace's requests (a plan may claim more) */
	void *streams[MAX_STREAMS];
	int64_t stream_ids[MAX_STREAMS];
	int nstreams;
	unsigned char *chunk;
	uint64_t k;         /* requests served in this iteration */
	uint32_t it;
	struct replay_result *res;
	unsigned max_reports;
	void (*report)(void *, const char *);
	void *ctx;
	char *pool;
	void (*progress)(void *, double);
	void *progress_ctx;
	unsigned iterations;
	const uint64_t *turns; /* where each workload's turn begins (k) */
	size_t nturns;
	uint64_t turns_own[MP_PLAN_MAX_WORKLOADS]; /* the plan's, by default */
	/* per turn: what to add to r->k for the plan's clock (the plan's
	 * workload with the turn's fingerprint starts elsewhere when the
	 * turns come in another order) */
	int64_t kshift[MP_PLAN_MAX_WORKLOADS];
	int64_t shift;      /* the current turn's */
	int all_followed;   /* every turn so far in this iteration */
};

static void problem(struct rp *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct rp *r, const char *fmt, ...)
{
	r->res->problems++;
	if (r->res->problems > r->max_reports || !r->report)
		return;
	char buf[1536];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->report(r->ctx, buf);
}

/* The handle of the trace's stream id: one per id (on the host, where
 * streams are handles alone, a token), so that the runtime binds the
 * plan's stream ordinals (its STREAMS section) as the trace has them. */
static void *stream_of(struct rp *r, int64_t id)
{
	if (id == TRACE_NONE)
		return NULL;
	for (int i = 0; i < r->nstreams; i++)
		if (r->stream_ids[i] == id)
			return r->streams[i];
	if (r->host && r->nstreams < MAX_STREAMS) {
		r->stream_ids[r->nstreams] = id;
		r->streams[r->nstreams] = (void *)(uintptr_t)(r->nstreams + 1);
		return r->streams[r->nstreams++];
	}
	if (r->nstreams < MAX_STREAMS &&
	    !r->be->stream_create(&r->streams[r->nstreams])) {
		r->stream_ids[r->nstreams] = id;
		return r->streams[r->nstreams++];
	}
	return r->nstreams ? r->streams[(uint64_t)id % (uint64_t)r->nstreams] : NULL;
}

/* Writes bytes [from, from + n) of buffer b's pattern of the current
 * iteration (from a multiple of 8). */
static int fill_range(struct rp *r, int64_t b, size_t from, size_t n, void *ctx)
{
	(void)ctx;
	unsigned char *p = r->ptr[b];
	if (r->host) {
		replay_fill(p + from, n, from, (uint32_t)b, r->it);
		return 0;
	}
	void *s = stream_of(r, r->t->buffers[b].stream);
	for (size_t at = from; at < from + n; at += CHUNK) {
		size_t len = from + n - at < CHUNK ? from + n - at : CHUNK;
		replay_fill(r->chunk, len, at, (uint32_t)b, r->it);
		if (r->be->copy(p + at, r->chunk, len, MP_COPY_H2D, s) ||
		    r->be->stream_sync(s))
			return -1;
	}
	return 0;
}

/* The bytes of a buffer outside the pool checked at a use: the real
 * allocator's memory is never shared with the pool, so its ends suffice
 * there (the whole buffer is checked at its free). */
#define EDGE 4096

/*
 * Sampled checks (replay_opts.sample): of a buffer larger than
 * 2 EDGE + SAMPLE, only its first and last EDGE bytes and EDGE bytes at
 * every SAMPLE-aligned address inside it are written and checked.  The
 * windows sit at addresses, not offsets, so two buffers that overlap by
 * SAMPLE + EDGE bytes or more share one; the pages between are never
 * touched, so the pool's memory is committed only where sampled.
 */
#define SAMPLE ((size_t)1 << 20)

typedef int (*window_fn)(struct rp *r, int64_t b, size_t from, size_t n, void *ctx);

/* Calls fn on each window of buffer b (the whole buffer when not
 * sampling) until one returns non-zero; returns that, or 0. */
static int each_window(struct rp *r, int64_t b, window_fn fn, void *ctx)
{
	size_t size = r->t->buffers[b].size;
	if (!r->sample || size <= 2 * EDGE + SAMPLE)
		return fn(r, b, 0, size, ctx);
	uintptr_t a = (uintptr_t)r->ptr[b];
	size_t tail = (size - EDGE) & ~(size_t)7;
	int rc = fn(r, b, 0, EDGE, ctx);
	for (uintptr_t x = (a + EDGE + SAMPLE - 1) / SAMPLE * SAMPLE;
	     !rc && x + EDGE <= a + tail; x += SAMPLE)
		rc = fn(r, b, (size_t)(x - a) & ~(size_t)7, EDGE, ctx);
	return rc ? rc : fn(r, b, tail, size - tail, ctx);
}

/* Writes buffer b's pattern of the current iteration (its windows). */
static void fill(struct rp *r, int64_t b)
{
	r->filled[b] = r->it;
	each_window(r, b, fill_range, NULL);
}

static const char *event_name(const struct trace_event *e)
{
	return e->name ? e->name : trace_event_type_name(e->type);
}

/* Where buffer b is, for people: its plan entry and pool offset. */
static void where(struct rp *r, int64_t b, char *buf, size_t len)
{
	uint32_t e = b >= 0 && (uint64_t)b < r->t->nbuffers ? r->entry[b] : NONE32;
	if (e == NONE32) {
		snprintf(buf, len, "buffer %" PRId64 " (not in the plan)", b);
		return;
	}
	const struct mp_plan_alloc *a = &r->plan->allocs[e];
	if (a->offset == MP_PLAN_PASS_THROUGH)
		snprintf(buf, len, "buffer %" PRId64 " (plan entry %u, %" PRIu64 " bytes, passed through)",
			 b, e, a->size);
	else
		snprintf(buf, len, "buffer %" PRId64 " (plan entry %u, %" PRIu64 " bytes at pool offset %" PRIu64 ")",
			 b, e, a->size, a->offset);
}

/* Checks bytes [from, from + n) of buffer b: 0 intact, 1 wrong (*bad),
 * -1 unreadable. */
static int check_range(struct rp *r, int64_t b, size_t from, size_t n,
		       struct replay_bad *bad)
{
	const unsigned char *p = r->ptr[b];
	r->res->bytes_checked += n;
	if (r->host)
		return replay_check(p + from, n, from, (uint32_t)b, r->filled[b], bad);
	void *s = stream_of(r, r->t->buffers[b].stream);
	for (size_t at = from; at < from + n; at += CHUNK) {
		size_t len = from + n - at < CHUNK ? from + n - at : CHUNK;
		if (r->be->copy(r->chunk, p + at, len, MP_COPY_D2H, s) ||
		    r->be->stream_sync(s))
			return -1;
		if (replay_check(r->chunk, len, at, (uint32_t)b, r->filled[b], bad))
			return 1;
	}
	return 0;
}

/* check_range() as a window_fn: ctx is the struct replay_bad. */
static int check_window(struct rp *r, int64_t b, size_t from, size_t n, void *ctx)
{
	return check_range(r, b, from, n, ctx);
}

/*
 * A trace hole of buffer h that meets the lifetime of buffer o and that no
 * swap of the plan empties: the usual cause of o's bytes in h (a plan made
 * over the trace's holes, which the runtime does not move).  Writes a clause
 * for the report into buf and returns 1, or returns 0.
 */
static int hole_given(struct rp *r, int64_t h, int64_t o, char *buf, size_t len)
{
	const struct trace *t = r->t;
	const struct trace_buffer *hb = &t->buffers[h];
	int64_t lo, hi;
	trace_lifetime(t, &t->buffers[o], &lo, &hi);
	uint32_t e = r->entry[h];
	for (uint32_t j = 0; j < hb->nholes; j++) {
		const struct trace_hole *x = &t->holes[hb->hole0 + j];
		if (x->upper <= lo || x->lower >= hi)
			continue;
		int covered = 0;
		for (uint32_t w = e == NONE32 ? 0 : r->swap0[e];
		     e != NONE32 && w < r->swap0[e + 1]; w++) {
			const struct mp_plan_swap *s = &r->plan->swaps[w];
			int64_t lo = s->out_at + 1 < r->nkclock
					     ? r->kclock[s->out_at + 1] : INT64_MAX;
			int64_t up = s->in_at < r->nkclock ? r->kclock[s->in_at]
							   : INT64_MAX;
			if (lo <= x->lower && up >= x->upper)
				covered = 1;
		}
		if (covered)
			continue;
		snprintf(buf, len, "; buffer %" PRId64 "'s trace hole [%" PRId64 ", %" PRId64 ") (%s clock) went to buffer %" PRId64 " without a swap, and the runtime moves only the plan's swaps%s",
			 h, x->lower, x->upper,
			 t->clock == TRACE_CLOCK_TIME ? "time" : "seq", o,
			 r->plan->flags & MP_PLAN_TRUSTS_HOLES
				 ? " (the plan trusts the trace's holes: something else must move these bytes)"
				 : "");
		return 1;
	}
	return 0;
}

/* Checks buffer b at event index ev (when: "at a use", "at its free"). */
static void check(struct rp *r, int64_t b, size_t ev, const char *when)
{
	const struct trace_buffer *tb = &r->t->buffers[b];
	const unsigned char *p = r->ptr[b];
	if (!p)
		return;
	struct replay_bad bad;
	int wrong;
	r->res->checks++;
	if (mp_owns(r->rt, p) || tb->size <= 2 * EDGE || strcmp(when, "at a use")) {
		wrong = each_window(r, b, check_window, &bad);
	} else {
		wrong = check_range(r, b, 0, EDGE, &bad);
		if (!wrong)
			wrong = check_range(r, b, tb->size - EDGE, EDGE, &bad);
	}
	if (wrong < 0) {
		problem(r, "iteration %u: buffer %" PRId64 " could not be read back", r->it, b);
		return;
	}
	if (!wrong)
		return;
	const struct trace_event *e = &r->t->events[ev];
	char me[160], other[160], what[640], hole[320] = "";
	where(r, b, me, sizeof(me));
	if (bad.owner == b)
		snprintf(what, sizeof(what), "its own bytes of iteration %d: a write of this iteration was lost",
			 bad.owner_it);
	else if (bad.owner >= 0 && (uint64_t)bad.owner < r->t->nbuffers) {
		where(r, bad.owner, other, sizeof(other));
		if (!hole_given(r, b, bad.owner, hole, sizeof(hole)))
			hole_given(r, bad.owner, b, hole, sizeof(hole));
		snprintf(what, sizeof(what), "bytes of %s: two buffers resident at the same time overlap%s",
			 other, hole);
	} else {
		snprintf(what, sizeof(what), "0x%016" PRIx64 ", which no buffer wrote (memory nobody gave back?)",
			 bad.found);
	}
	problem(r, "iteration %u, event %zu (%s, seq %" PRId64 "), after %" PRIu64 " requests: %s %s: the word at byte %zu holds %s",
		r->it, ev, event_name(e), e->seq, r->k, me, when, bad.at, what);
	fill(r, b); /* one report per corruption */
}

/* A write to b while one of its swaps has it out: the copy-in will bring
 * back the bytes from before it.  (A read then is fine as long as nothing
 * has borrowed the bytes yet; the pattern check sees when something has.) */
static void check_resident(struct rp *r, int64_t b, size_t ev)
{
	uint32_t e = r->entry[b];
	if (e == NONE32 || !r->ptr[b] ||
	    (char *)r->ptr[b] != r->pool + r->plan->allocs[e].offset)
		return;
	for (uint32_t w = r->swap0[e]; w < r->swap0[e + 1]; w++) {
		const struct mp_plan_swap *s = &r->plan->swaps[w];
		uint64_t k = r->k + (uint64_t)r->shift; /* on the plan's clock */
		if (k > s->out_at && k <= s->in_at) {
			char me[160];
			where(r, b, me, sizeof(me));
			problem(r, "iteration %u, event %zu (%s, seq %" PRId64 "), after %" PRIu64 " requests: %s is written while swapped out (swap %u copies it out after request %" PRIu64 " and back after request %" PRIu64 "): the write will be lost",
				r->it, ev, event_name(&r->t->events[ev]),
				r->t->events[ev].seq, r->k, me, w, s->out_at, s->in_at);
		}
	}
}

/* The end of a turn (or of the iteration): did the runtime follow it? */
static void turn_end(struct rp *r, size_t turn)
{
	if (mp_iteration_end(r->rt))
		return;
	char why[400], whose[48] = "";
	if (!mp_last_problem(r->rt, why, sizeof(why)))
		snprintf(why, sizeof(why), "no reason given");
	if (r->nturns > 1)
		snprintf(whose, sizeof(whose), " (turn %zu of the cycle)", turn);
	r->all_followed = 0;
	problem(r, "iteration %u%s: the runtime did not follow the plan to its end: %s",
		r->it, whose, why);
}

/* Before request r->k (of the cycle): a new workload's turn begins there. */
static void next_turn(struct rp *r, size_t *turn)
{
	while (*turn + 1 < r->nturns && r->turns[*turn + 1] == r->k) {
		turn_end(r, *turn);
		++*turn;
		r->shift = r->kshift[*turn];
		mp_iteration_begin(r->rt);
	}
}

static void do_alloc(struct rp *r, int64_t b, int in_iteration)
{
	const struct trace_buffer *tb = &r->t->buffers[b];
	void *p = mp_alloc(r->rt, tb->size, stream_of(r, tb->stream));
	if (in_iteration)
		r->k++;
	r->res->requests += in_iteration;
	if (!p) {
		problem(r, "iteration %u: the allocation of buffer %" PRId64 " (%" PRIu64 " bytes) failed",
			r->it, b, tb->size);
		return;
	}
	r->ptr[b] = p;
	uint32_t e = r->entry[b];
	/* a turn out of the plan's order may follow the entries of the
	 * workload the runtime has next: its own are not the ones to check */
	if (in_iteration && e != NONE32 && r->shift == 0 && mp_owns(r->rt, p) &&
	    (char *)p != r->pool + r->plan->allocs[e].offset) {
		char me[160];
		where(r, b, me, sizeof(me));
		problem(r, "iteration %u: %s was served at pool offset %td", r->it,
			me, (char *)p - r->pool);
	}
	fill(r, b);
}

static void do_free(struct rp *r, int64_t b, size_t ev, int in_iteration)
{
	if (!r->ptr[b])
		return;
	check(r, b, ev, "at its free");
	mp_free(r->rt, r->ptr[b], stream_of(r, r->t->buffers[b].stream));
	r->ptr[b] = NULL;
	if (in_iteration) {
		r->k++;
		r->res->requests++;
	}
}

static void iteration(struct rp *r)
{
	const struct trace *t = r->t;
	/* buffers live at the start exist before it (again, if it freed them) */
	for (size_t b = 0; b < t->nbuffers; b++)
		if (t->buffers[b].alloc_ev == TRACE_NONE && !r->ptr[b] &&
		    !t->buffers[b].bypass)
			do_alloc(r, (int64_t)b, 0);
	r->k = 0;
	r->shift = r->kshift[0];
	r->all_followed = 1;
	size_t turn = 0;
	mp_iteration_begin(r->rt);
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (r->progress && (i & 0xffff) == 0xffff)
			r->progress(r->progress_ctx,
				    (r->it + (double)i / (double)t->nevents) / r->iterations);
		if ((e->type == TRACE_EV_ALLOC || e->type == TRACE_EV_FREE) &&
		    !trace_event_request(t, e))
			continue; /* its library's own allocator serves it */
		if (e->type == TRACE_EV_ALLOC || e->type == TRACE_EV_FREE)
			next_turn(r, &turn);
		if (e->type == TRACE_EV_ALLOC) {
			do_alloc(r, e->buffer, 1);
			continue;
		}
		if (e->type == TRACE_EV_FREE) {
			do_free(r, e->buffer, i, 1);
			continue;
		}
		for (uint32_t a = 0; a < e->nacc; a++) {
			const struct trace_access *x = &t->accesses[e->acc0 + a];
			if (x->mode != TRACE_ACCESS_READ)
				check_resident(r, x->buffer, i);
			check(r, x->buffer, i, "at a use");
			/* a write to pool memory writes the pattern again, so
			 * that a buffer sharing its bytes finds it; the real
			 * allocator's memory shares nothing */
			if (x->mode & TRACE_ACCESS_WRITE && r->ptr[x->buffer] &&
			    mp_owns(r->rt, r->ptr[x->buffer]))
				fill(r, x->buffer);
		}
	}
	turn_end(r, turn);
	r->res->followed += r->all_followed;
	/* buffers the iteration leaves live go, outside it */
	for (size_t b = 0; b < t->nbuffers; b++)
		if (t->buffers[b].free_ev == TRACE_NONE &&
		    t->buffers[b].alloc_ev != TRACE_NONE)
			do_free(r, (int64_t)b, t->nevents ? t->nevents - 1 : 0, 0);
	r->res->iterations++;
	if (r->progress)
		r->progress(r->progress_ctx, (double)(r->it + 1) / r->iterations);
}

/*
 * The plan entry of each buffer when the trace's turns are the plan's
 * workloads in another order: each turn's allocations, in order, are the
 * entries of the plan's workload with the turn's fingerprint (none: not in
 * the plan), and the turn's requests sit that much elsewhere on the plan's
 * clock (kshift).  Keeps the reports and the checks of swapped buffers
 * about the right entries.
 */
static void map_turns(struct rp *r)
{
	const struct mp_plan *p = r->plan;
	const struct trace *t = r->t;
	struct mp_plan_fp fp[MP_PLAN_MAX_WORKLOADS];
	for (size_t j = 0; j < r->nturns; j++)
		mp_plan_fp_init(&fp[j]);
	uint64_t k = 0;
	size_t j = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (!trace_event_request(t, e))
			continue;
		while (j + 1 < r->nturns && r->turns[j + 1] <= k)
			j++;
		if (e->type == TRACE_EV_ALLOC)
			mp_plan_fp_update(&fp[j], t->buffers[e->buffer].size);
		k++;
	}
	for (size_t b = 0; b < t->nbuffers; b++)
		r->entry[b] = NONE32;
	uint32_t a = 0, aend = 0; /* the turn's entries left: [a, aend) */
	k = 0;
	j = 0;
	int first = 1;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (!trace_event_request(t, e))
			continue;
		int turn = first;
		while (j + 1 < r->nturns && r->turns[j + 1] <= k) {
			j++;
			turn = 1;
		}
		first = 0;
		if (turn) { /* the plan's workload with this turn's fingerprint */
			uint64_t f = mp_plan_fp_final(&fp[j]), lo, hi;
			a = aend = 0;
			r->kshift[j] = 0;
			for (uint32_t w = 0; w < p->nworkloads; w++) {
				if (p->workloads[w].fingerprint != f)
					continue;
				mp_plan_workload_at(p, p->workloads[w].first_request, &lo, &hi);
				while (a < p->nallocs && p->allocs[a].lower < lo)
					a++;
				for (aend = a; aend < p->nallocs && p->allocs[aend].lower < hi; aend++)
					;
				r->kshift[j] = (int64_t)lo - (int64_t)r->turns[j];
				break;
			}
		}
		if (e->type == TRACE_EV_ALLOC && a < aend)
			r->entry[e->buffer] = a++;
		k++;
	}
}

int replay_run(const struct trace *t, const char *plan_path,
	       const struct replay_opts *opt, struct replay_result *res,
	       void (*report)(void *ctx, const char *text), void *ctx,
	       char *err, size_t errlen)
{
	memset(res, 0, sizeof(*res));
	if (!t->finished)
		return trace_seterr(err, errlen, TRACE_EINVAL, "the trace is not finished");
	struct mp_plan plan;
	int rc = mp_plan_read_file(plan_path, &plan, err, errlen);
	if (rc)
		return rc == MP_PLAN_ENOMEM ? TRACE_ENOMEM :
		       rc == MP_PLAN_EVERSION ? TRACE_EVERSION :
		       rc == MP_PLAN_EIO ? TRACE_EIO : TRACE_EFORMAT;
	for (uint32_t i = 0; i < plan.nallocs; i++)
		if (plan.allocs[i].buffer >= t->nbuffers) {
			res->problems = 1;
			if (report && opt->max_reports) {
				char buf[256];
				snprintf(buf, sizeof(buf),
					 "plan entry %u names buffer %" PRIu64 ", and the trace has %zu buffers: the plan is not for this trace",
					 i, plan.allocs[i].buffer, t->nbuffers);
				report(ctx, buf);
			}
			mp_plan_free(&plan);
			return 0;
		}
	const struct mp_backend *be = opt->backend == MP_BACKEND_HOST ?
					      mp_backend_host() :
					      mp_backend_cuda(err, errlen);
	if (!be) {
		mp_plan_free(&plan);
		return TRACE_EINVAL;
	}
	struct mp_options o;
	mp_options_init(&o);
	o.backend = opt->backend;
	o.verbose = -1;
	o.explicit_iterations = 1;
	mp_runtime *rt = runtime_open_plan(&plan, be, &o, err, errlen);
	mp_plan_free(&plan);
	if (!rt)
		return TRACE_EINVAL;

	struct rp r = { .t = t, .rt = rt, .be = be, .plan = runtime_plan(rt),
			.host = opt->backend == MP_BACKEND_HOST, .res = res,
			.max_reports = opt->max_reports, .report = report, .ctx = ctx,
			.progress = opt->progress, .progress_ctx = opt->progress_ctx,
			.iterations = opt->iterations, .sample = opt->sample };
	r.pool = mp_pool(rt, NULL);
	/* the workloads' turns: the caller's, or the plan's own */
	r.turns = opt->turns;
	r.nturns = opt->turns ? opt->nturns : r.plan->nworkloads;
	if (!opt->turns)
		for (uint32_t w = 0; w < r.plan->nworkloads; w++)
			r.turns_own[w] = r.plan->workloads[w].first_request;
	if (!opt->turns)
		r.turns = r.turns_own;
	size_t nb = t->nbuffers ? t->nbuffers : 1;
	r.ptr = calloc(nb, sizeof(*r.ptr));
	r.entry = malloc(nb * sizeof(*r.entry));
	r.filled = calloc(nb, sizeof(*r.filled));
	r.swap0 = calloc((size_t)r.plan->nallocs + 1, sizeof(*r.swap0));
	for (size_t i = 0; i < t->nevents; i++)
		r.nkclock += trace_event_request(t, &t->events[i]);
	r.kclock = malloc(((size_t)r.nkclock + 1) * sizeof(*r.kclock));
	r.chunk = r.host ? NULL : malloc(CHUNK);
	rc = 0;
	if (!r.ptr || !r.entry || !r.filled || !r.swap0 || !r.kclock ||
	    (!r.host && !r.chunk)) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory replaying %zu buffers", t->nbuffers);
		goto out;
	}
	/* request ordinals on the trace clock (a plan for another trace may
	 * claim more requests: those lie past the end) */
	uint64_t nk = 0;
	for (size_t i = 0; i < t->nevents; i++)
		if (trace_event_request(t, &t->events[i]))
			r.kclock[nk++] = trace_event_clock(t, i);
	for (size_t b = 0; b < t->nbuffers; b++)
		r.entry[b] = NONE32;
	for (uint32_t i = 0; i < r.plan->nallocs; i++)
		r.entry[r.plan->allocs[i].buffer] = i;
	if (opt->turns && r.plan->nworkloads && r.nturns)
		map_turns(&r);
	for (uint32_t w = 0; w < r.plan->nswaps; w++)
		r.swap0[r.plan->swaps[w].request + 1]++;
	for (uint32_t i = 0; i < r.plan->nallocs; i++)
		r.swap0[i + 1] += r.swap0[i];
	/* the host backend copies at once, so a race between a swap and a
	 * use on another stream cannot show up below: judged from the trace */
	for (uint32_t w = 0; w < r.plan->nswaps; w++) {
		int64_t b = (int64_t)r.plan->allocs[r.plan->swaps[w].request].buffer;
		int64_t st[2], sev;
		if (trace_buffer_streams(t, &t->buffers[b], st, &sev))
			problem(&r, "swap %u: buffer %" PRId64 " is used on streams %" PRId64 " and %" PRId64 " (seq %" PRId64 "), and the runtime orders its copies after stream %" PRId64 " alone: a write on the other may be lost",
				w, b, st[0], st[1], t->events[sev].seq, st[0]);
	}

	for (unsigned i = 0; i < opt->iterations; i++) {
		r.it = i;
		iteration(&r);
	}
	for (size_t b = 0; b < t->nbuffers; b++)
		do_free(&r, (int64_t)b, t->nevents ? t->nevents - 1 : 0, 0);
	for (int i = 0; i < r.nstreams && !r.host; i++) { /* host: tokens */
		be->stream_sync(r.streams[i]);
		be->stream_destroy(r.streams[i]);
	}
	mp_stats_get(rt, &res->stats);
out:
	free(r.ptr);
	free(r.entry);
	free(r.filled);
	free(r.swap0);
	free(r.kclock);
	free(r.chunk);
	mp_close(rt);
	return rc;
}
