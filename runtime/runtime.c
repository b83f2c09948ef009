/* SPDX-License-Identifier: MIT */
/*
 * runtime.c - the state machine that follows a plan: one pool, the
 * allocator clock, iteration boundaries (explicit or recognised from the
 * first requests' sizes), divergence, and swaps ordered by events.  Reaches
 * memory only through runtime_backend.h.  Used by every way into libmemplan
 * and by memplan-replay.
 *
 * Design.  Everything the hot path needs is derived from the plan at open
 * and never allocated again: two cursors over the entries, one in alloc
 * order and one in free order, say which request ordinal k of the
 * iteration is (an alloc or a free of plan entry r, or the free of a buffer
 * from before the iteration), so that memory is bounded by the entries the
 * file holds, never by the count of requests it claims; per entry, the swaps whose region it borrows
 * (it waits for their copy-out) and, per swap, the entries borrowing it.  A
 * request that matches costs a lock, a few compares and at most a handful of
 * backend calls when swaps or several streams are involved: O(1).
 *
 * The hot path (alloc_hot, free_hot; issue 34) serves the common request
 * with the lock, the capture check, and compares against one row made at
 * open (ha, hf: the entry's ordinal, size, offset, trace stream ordinal,
 * and whether swaps or borrowed bytes make it "cold"): the clock's next
 * entry, of its size, on the stream its ordinal is bound to, which is the
 * last request's stream, with no other stream's pool frees to wait for
 * (fence's counter), in an iteration that uses the pool.  Anything else
 * goes to the full path (alloc_full, free_full), where every check is as
 * it always was; swap triggers and the iteration's end wait for one
 * ordinal computed ahead (event_at, advance_event).  Every condition the
 * hot path tests is one the full path would decide the same way, so the
 * two serve a request identically.  bench_runtime measures the result and
 * t0308 keeps its instructions per request within 3% of a baseline.
 *
 * Invariants.  The plan's pool is used for an iteration only when no pool
 * buffer of an earlier iteration is live and no swap is out, so an iteration
 * that is followed sees exactly the plan's residency.  A pointer served from
 * the pool never goes to the real allocator.  Ordering between copies and
 * the program's streams comes from events: a copy-out waits for the owner's
 * stream; a buffer placed where a swapped-out one was waits for the
 * copy-out; a copy-in waits for the events the frees of the buffers that
 * borrowed its bytes recorded (their last uses, nothing later), and the
 * owner's stream waits for the copy-in.  Pool reuse across streams waits likewise (fence()).  Every pool
 * buffer has the slot of its stream, which is not given to another stream
 * while the buffer lives (stream_slot()); a request whose stream cannot get
 * a slot goes to the real allocator.  Once the
 * plan is no longer followed (a divergence), no swapped buffer is left to an
 * event the program's other streams do not know: a swap out is brought back
 * at once, or as soon as the last buffer borrowing its bytes is freed, and
 * the host waits for the copy stream (stream_sync) before the request that
 * found it returns, so the bytes are back whatever stream uses them next.
 * Event queries only feed the statistics (late copies); they never decide
 * an ordering.  A request on a stream that is capturing a CUDA graph gets
 * no call of the runtime's own (capture_alloc, capture_free); requests on
 * other streams are served as usual while it captures.
 *
 * Workloads taking turns (a CYCLE section) are segments of the clock
 * (seg_begin, seg_end); each turn is an iteration of its own that ends at
 * its segment's end, and since no entry lives across a segment's end, the
 * rule above (a followed iteration starts on an empty pool) covers them
 * unchanged.  A plan without a cycle is one segment, the whole clock.
 */
#include "runtime.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* glibc says whether the process has ever had a second thread: a lock
 * needs no atomic instruction until it has (as glibc's own mutexes) */
#if defined(__has_include)
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define ONE_THREAD() (__libc_single_threaded != 0)
#endif
#endif
#ifndef ONE_THREAD
#define ONE_THREAD() 0
#endif

#define NONE32 UINT32_MAX
#define CLOCK_FOREIGN UINT32_MAX /* the free of a buffer the plan lacks */
#define RT_STREAMS 32             /* streams tracked at once (slots) */
#define DEFAULT_MATCH 8
#define RT_BORROWS_PER_ENTRY 32 /* (entry, swap) pairs a plan may have, per entry */
#define RT_STREAM_ORDS 64       /* trace stream ordinals checked (STREAMS) */

enum phase { PH_IDLE, PH_FOLLOW };
enum live { LIVE_NO = 0, LIVE_POOL = 1 };
enum swap_state { SW_IDLE = 0, SW_OUT, SW_PENDING, SW_IN };
/* kinds of warning, each printed once unless verbose */
enum warn_kind { W_DIVERGE, W_SKIP, W_BADFREE, W_SWAP, W_STREAMS, W_LENT,
		 W_CAPTURE, W_NKINDS };

/* A pool instance of an entry can outlive its iteration (after a
 * divergence) while the next iteration serves the same entry from the real
 * allocator, so the two are kept apart. */
struct rt_req {
	void *ptr;      /* its pool address while live in the pool */
	void *real;     /* what the real allocator gave it this iteration */
	uint32_t below; /* the live pool request under it at the same offset */
	uint8_t live;   /* enum live */
	uint8_t covered; /* a buffer placed over it at its address was freed */
	int8_t stream;  /* stream slot of its alloc (pool buffers: always one) */
	uint8_t fev;    /* its free recorded ev_free[r] since its alloc */
	uint8_t side_lost; /* used on a stream without a slot: sync at free */
	uint32_t side;  /* slots of other streams it is used on (record_stream) */
	uint32_t side_freed; /* those slots, after its free recorded ev_side */
};

/* A slot is taken by a stream at its first request and given to another
 * stream only when no live pool buffer was allocated on it (refs == 0): a
 * swap's owner stream, and the stream its borrowers wait for, are always
 * known.  The least recently used such slot goes; a stream leaving with
 * pool frees is synchronised first, so that no later reuse needs to wait
 * for it. */
struct rt_stream {
	void *handle;
	uint32_t free_gen;          /* pool frees on this stream so far */
	uint32_t refs;              /* live pool buffers allocated on it */
	/* when another stream took the last request over from it (the current
	 * stream, last_stream, is the most recent of all): the order of the
	 * streams' last requests, stamped only when the stream changes */
	uint64_t used;
	uint64_t frees;             /* free_gen, never wrapping */
	/* rt->frees_total - frees at its last complete fence(): while that
	 * difference stays the same, no other stream freed pool memory since,
	 * and fence() has nothing to do */
	uint64_t others_seen;
	uint32_t seen[RT_STREAMS];  /* free_gen of each stream last waited for */
};

/* What the hot path reads of plan entry r, in alloc order, made at open;
 * one more entry, the sentinel, has an ordinal no request has. */
struct rt_hot_alloc {
	uint64_t lower;  /* the clock ordinal of its alloc */
	uint64_t size;
	uint64_t offset; /* pool offset, or MP_PLAN_PASS_THROUGH */
	uint32_t ord;    /* its trace stream ordinal (STREAMS); >=
			    RT_STREAM_ORDS: not checked */
	uint32_t cold;   /* it borrows swapped bytes: the full path */
};

/* The frees of the plan's entries in clock order, made at open; one more
 * entry, the sentinel, has an ordinal no request has. */
struct rt_hot_free {
	uint64_t at;     /* the clock ordinal of the free */
	uint32_t r;      /* the entry */
	uint32_t cold;   /* it owns swaps, or its free records an event */
};

/* The runtime's lock: one word, taken with a compare-and-swap when free
 * (0), and otherwise waited for under a mutex and condition variable that
 * only threads finding it taken touch.  word is 1 while held, 2 while held
 * with a thread that may be waiting. */
struct rt_lock {
	int word;
	pthread_mutex_t wait_mutex;
	pthread_cond_t wait_cond;
};

struct mp_runtime {
	struct rt_lock lock;
	const struct mp_backend *be;
	struct mp_plan plan;
	int device;
	int verbose;
	unsigned match;
	int on_unsafe;        /* enum mp_on_unsafe */

	char *pool;           /* first byte of the pool (aligned) */
	void *pool_mem;       /* what the real allocator returned */
	uint64_t pool_size;
	char *staging;
	void *copy_stream, *scratch;
	void **ev_out;        /* per swap: its copy-out done */
	void **ev_in;         /* per swap: its copy-in done */
	uint32_t nev;         /* entries of ev_out and ev_in */
	void **ev_free;       /* per entry borrowing a swap's bytes: its free */
	uint32_t nfev;        /* entries of ev_free */
	void *ev_side[RT_STREAMS]; /* per slot: the latest free of a buffer
				      used on it besides its own stream */

	/* derived from the plan; read-only after open */
	struct rt_hot_alloc *ha; /* per entry, and the sentinel */
	struct rt_hot_free *hf;  /* the nfrees frees, and the sentinel */
	uint32_t nfrees;
	uint64_t *offs;       /* distinct planned offsets, sorted */
	uint32_t noffs;
	uint32_t *slot;       /* per entry: index in offs */
	uint32_t *wait0, *waits; /* per entry: swaps whose region it borrows */
	uint32_t *borrow0, *borrowers; /* per swap: entries borrowing its region */
	uint32_t *own0;       /* per entry: its swaps are [own0[r], own0[r+1]) */
	uint32_t *outs, *ins; /* swaps by out_at, by in_at */
	/* per entry: the latest alloc ordinal of another entry at its offset
	 * freed before it is allocated (UINT64_MAX: none), so that a stale
	 * pointer of that one is this one's address (free_target) */
	uint64_t *prev_lower;

	/* state, under lock */
	struct rt_req *req;
	uint32_t *slot_top;   /* per offset: the live request on top */
	uint8_t *swap_state;
	struct rt_stream streams[RT_STREAMS];
	int nstreams, last_stream, copy_slot;
	uint64_t ticks;       /* changes of the stream requests are on */
	uint64_t frees_total; /* pool frees on every stream (streams' frees) */
	int phase, explicit_mode, chained, last_complete, use_pool;
	unsigned confirm_left;
	uint64_t k;           /* next clock ordinal of the followed iteration */
	uint64_t pool_from;   /* k when the pool's iteration began using it */
	uint32_t ca, cf;      /* first entry (by alloc, by free) at k or later */
	/* the next ordinal after whose request advance_event() has work: a
	 * swap trigger (while the pool is used) or the iteration's last */
	uint64_t event_at;
	uint32_t next_out, next_in;
	uint64_t live_pool;   /* pool buffers live, any iteration */
	uint32_t nout;        /* swaps out or pending */
	uint32_t npending;
	uint32_t *watch;      /* swap-ins issued since the last request */
	uint32_t nwatch;
	/* the iteration's binding of the plan's trace stream ordinals (its
	 * STREAMS section) to the program's streams, made at first sight */
	void *bound[RT_STREAM_ORDS]; /* per ordinal: its stream */
	uint64_t bound_mask;         /* ordinals bound so far */
	/* the plan's workloads (its CYCLE section; one, the whole clock,
	 * without): per workload its clock ordinals [seg_begin, seg_end) and
	 * its first entry; read-only after open */
	uint32_t nseg;
	uint64_t seg_begin[MP_PLAN_MAX_WORKLOADS], seg_end[MP_PLAN_MAX_WORKLOADS];
	uint32_t seg_a0[MP_PLAN_MAX_WORKLOADS];
	/* under lock: the workload followed (or tried) last, the one the
	 * cycle has next, and the one it had next when seg began */
	uint32_t seg, seg_next, seg_expected;
	uint64_t end;         /* seg_end[seg]: where its iteration ends */
	struct mp_stats st;
	unsigned char warned[W_NKINDS];
	char problem[320];
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* --- the lock ------------------------------------------------------------- */

/* The lock is taken: spin a little (the holder's work is short), then
 * sleep until the holder's rt_unlock() wakes the waiters.  A waiter leaves
 * the word at 2, so that the next unlock wakes the others. */
static __attribute__((noinline, cold)) void lock_wait(struct rt_lock *l)
{
	for (int i = 0; i < 64; i++) {
		int free_word = 0;
		if (__atomic_load_n(&l->word, __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&l->word, &free_word, 1, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
	pthread_mutex_lock(&l->wait_mutex);
	/* the word goes to 2 under the mutex, so a holder that finds 2 at its
	 * unlock broadcasts only once this thread waits on the condition */
	while (__atomic_exchange_n(&l->word, 2, __ATOMIC_ACQUIRE) != 0)
		pthread_cond_wait(&l->wait_cond, &l->wait_mutex);
	pthread_mutex_unlock(&l->wait_mutex);
}

static __attribute__((noinline, cold)) void lock_wake(struct rt_lock *l)
{
	pthread_mutex_lock(&l->wait_mutex);
	pthread_cond_broadcast(&l->wait_cond);
	pthread_mutex_unlock(&l->wait_mutex);
}

/* Every change of a runtime's state is made holding its lock.  Uncontended
 * it is one atomic instruction to take and one to give back; none while
 * the process has only ever had one thread (no other thread can take it
 * then, nor wait for it: one taken so stays taken for a thread created
 * while it is held, which waits and is woken as usual). */
static inline __attribute__((always_inline)) void rt_lock(struct rt_lock *l)
{
	int free_word = 0;
	if (ONE_THREAD() && l->word == 0)
		l->word = 1;
	else if (!__atomic_compare_exchange_n(&l->word, &free_word, 1, 0,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		lock_wait(l);
}

static inline __attribute__((always_inline)) void rt_unlock(struct rt_lock *l)
{
	if (ONE_THREAD())
		l->word = 0;
	else if (__atomic_exchange_n(&l->word, 0, __ATOMIC_RELEASE) == 2)
		lock_wake(l);
}

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
}

/* --- options and statistics ---------------------------------------------- */

void mp_options_init(struct mp_options *o)
{
	memset(o, 0, sizeof(*o));
	o->backend = MP_BACKEND_CUDA;
	o->device = -1;
	o->match = 0;
	o->verbose = 0;
	o->on_unsafe = MP_ON_UNSAFE_ABORT;
}

void mp_stats_merge(struct mp_stats *a, const struct mp_stats *b)
{
#define MP_STATS_ADD(name, desc) a->name += b->name;
	MP_STATS(MP_STATS_ADD)
#undef MP_STATS_ADD
}

void mp_stats_print(const struct mp_stats *s, FILE *f, int json)
{
	const char *sep = "{";
	if (json) {
#define MP_STATS_JSON(name, desc)                                         \
	fprintf(f, "%s\"%s\": %llu", sep, #name, (unsigned long long)s->name); \
	sep = ", ";
		MP_STATS(MP_STATS_JSON)
#undef MP_STATS_JSON
		fprintf(f, "}\n");
		return;
	}
	(void)sep;
#define MP_STATS_TEXT(name, desc)                                          \
	fprintf(f, "%-16s %14llu  # %s\n", #name, (unsigned long long)s->name, desc);
	MP_STATS(MP_STATS_TEXT)
#undef MP_STATS_TEXT
}

/* --- warnings ------------------------------------------------------------ */

static void warn(mp_runtime *rt, int kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Keeps the sentence as the last problem; prints it once per kind (every
 * time when verbose, never when silent). */
static void warn(mp_runtime *rt, int kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rt->problem, sizeof(rt->problem), fmt, ap);
	va_end(ap);
	if (rt->verbose < 0 || (rt->warned[kind] && rt->verbose < 1))
		return;
	fprintf(stderr, "memplan: warning: %s%s\n", rt->problem,
		rt->warned[kind] || rt->verbose >= 1 ? "" :
		" (said once; MEMPLAN_VERBOSE=1 says it every time)");
	rt->warned[kind] = 1;
}

/* --- derived tables ------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Swap indexes sorted by a trigger ordinal. */
struct keyed {
	uint64_t key;
	uint32_t idx;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int sort_triggers(const struct mp_plan *p, uint32_t *out, int in)
{
	uint32_t ns = p->nswaps;
	struct keyed *k = malloc((ns ? ns : 1) * sizeof(*k));
	if (!k)
		return -1;
	for (uint32_t s = 0; s < ns; s++)
		k[s] = (struct keyed){ in ? p->swaps[s].in_at : p->swaps[s].out_at, s };
	qsort(k, ns, sizeof(*k), cmp_keyed);
	for (uint32_t s = 0; s < ns; s++)
		out[s] = k[s].idx;
	free(k);
	return 0;
}

static uint32_t offset_slot(const mp_runtime *rt, uint64_t off)
{
	uint32_t lo = 0, hi = rt->noffs;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (rt->offs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rt->noffs && rt->offs[lo] == off ? lo : NONE32;
}

/* Does planned entry r's byte range meet the swapped bytes of swap s? */
static int borrows(const struct mp_plan *p, uint32_t r,
		   const struct mp_plan_swap *s)
{
	const struct mp_plan_alloc *a = &p->allocs[r];
	const struct mp_plan_alloc *o = &p->allocs[s->request];
	if (a->offset == MP_PLAN_PASS_THROUGH || r == s->request)
		return 0;
	uint64_t b0 = o->offset + s->src_offset, b1 = b0 + s->bytes;
	return a->offset < b1 && b0 < a->offset + a->size;
}

/* The first entry whose alloc ordinal is >= at (entries are in order). */
static uint32_t first_alloc_at(const struct mp_plan *p, uint64_t at)
{
	uint32_t lo = 0, hi = p->nallocs;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->allocs[mid].lower < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first free (index into hf) whose ordinal is >= at. */
static uint32_t first_free_at(const mp_runtime *rt, uint64_t at)
{
	uint32_t lo = 0, hi = rt->nfrees;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (rt->hf[mid].at < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* What request ordinal k is: r << 1 for the alloc of entry r, r << 1 | 1
 * for its free, CLOCK_FOREIGN for neither (the free of a buffer from before
 * the iteration, or past the plan's end).  O(1): the cursors. */
static uint32_t clock_now(const mp_runtime *rt)
{
	if (rt->ha[rt->ca].lower == rt->k)
		return rt->ca << 1;
	if (rt->hf[rt->cf].at == rt->k)
		return rt->hf[rt->cf].r << 1 | 1;
	return CLOCK_FOREIGN;
}

/* The workloads' segments: the CYCLE section's, or the whole clock. */
static void derive_segments(mp_runtime *rt)
{
	const struct mp_plan *p = &rt->plan;
	rt->nseg = p->nworkloads ? p->nworkloads : 1;
	for (uint32_t w = 0; w < rt->nseg; w++) {
		mp_plan_workload_at(p, p->nworkloads ? p->workloads[w].first_request : 0,
				    &rt->seg_begin[w], &rt->seg_end[w]);
		rt->seg_a0[w] = first_alloc_at(p, rt->seg_begin[w]);
	}
	rt->end = rt->seg_end[0];
}

/* The hot path's tables (ha, hf: taken, hf's frees sorted) from the
 * others: what each entry asks beyond a compare of its size, ordinal and
 * stream is said once here, as cold, and left to the full path. */
static void derive_hot(mp_runtime *rt)
{
	const struct mp_plan *p = &rt->plan;
	uint32_t n = p->nallocs;
	for (uint32_t r = 0; r < n; r++) {
		const struct mp_plan_alloc *a = &p->allocs[r];
		rt->ha[r] = (struct rt_hot_alloc){
			a->lower, a->size, a->offset,
			p->streams ? p->streams[r] : MP_PLAN_STREAM_UNKNOWN,
			rt->wait0[r + 1] > rt->wait0[r]
		};
	}
	rt->ha[n] = (struct rt_hot_alloc){ UINT64_MAX, 0, MP_PLAN_PASS_THROUGH,
					   MP_PLAN_STREAM_UNKNOWN, 1 };
	for (uint32_t i = 0; i < rt->nfrees; i++) {
		uint32_t r = rt->hf[i].r;
		rt->hf[i].cold = rt->own0[r + 1] > rt->own0[r] ||
				 rt->wait0[r + 1] > rt->wait0[r];
	}
}

/* prev_lower: the entries at each offset in alloc order, each one's latest
 * predecessor there freed before its alloc (buffers nested over a swapped
 * one are skipped: they are live then).  0, or -1 when out of memory. */
static int derive_prev(mp_runtime *rt)
{
	const struct mp_plan *p = &rt->plan;
	uint32_t n = p->nallocs, m = 0;
	rt->prev_lower = malloc((n ? n : 1) * sizeof(*rt->prev_lower));
	struct keyed *k = malloc((n ? n : 1) * sizeof(*k));
	if (!rt->prev_lower || !k) {
		free(k);
		return -1;
	}
	for (uint32_t r = 0; r < n; r++) {
		rt->prev_lower[r] = UINT64_MAX;
		if (rt->slot[r] != NONE32) /* lower < 2^32: one key */
			k[m++] = (struct keyed){ (uint64_t)rt->slot[r] << 32 |
							 p->allocs[r].lower, r };
	}
	qsort(k, m, sizeof(*k), cmp_keyed);
	for (uint32_t i = 0; i < m; i++) {
		const struct mp_plan_alloc *a = &p->allocs[k[i].idx];
		for (uint32_t j = i; j-- > 0 && k[j].key >> 32 == k[i].key >> 32;) {
			const struct mp_plan_alloc *b = &p->allocs[k[j].idx];
			if (b->upper < a->lower) {
				rt->prev_lower[k[i].idx] = b->lower;
				break;
			}
		}
	}
	free(k);
	return 0;
}

/* Fills the read-only tables.  0, -1 when out of memory, or -2 when the
 * swaps are borrowed more than RT_BORROWS_PER_ENTRY times per entry. */
static int derive(mp_runtime *rt)
{
	const struct mp_plan *p = &rt->plan;
	uint32_t n = p->nallocs, ns = p->nswaps;
	derive_segments(rt);
	rt->ha = malloc(((size_t)n + 1) * sizeof(*rt->ha));
	rt->hf = malloc(((size_t)n + 1) * sizeof(*rt->hf));
	rt->req = calloc(n ? n : 1, sizeof(*rt->req));
	rt->slot = malloc((n ? n : 1) * sizeof(*rt->slot));
	rt->offs = malloc((n ? n : 1) * sizeof(*rt->offs));
	rt->own0 = calloc((size_t)n + 1, sizeof(*rt->own0));
	rt->wait0 = calloc((size_t)n + 1, sizeof(*rt->wait0));
	rt->borrow0 = calloc((size_t)ns + 1, sizeof(*rt->borrow0));
	rt->outs = malloc((ns ? ns : 1) * sizeof(*rt->outs));
	rt->ins = malloc((ns ? ns : 1) * sizeof(*rt->ins));
	rt->swap_state = calloc(ns ? ns : 1, 1);
	rt->watch = malloc((ns ? ns : 1) * sizeof(*rt->watch));
	if (!rt->ha || !rt->hf || !rt->req || !rt->slot || !rt->offs || !rt->own0 ||
	    !rt->wait0 || !rt->borrow0 || !rt->outs || !rt->ins ||
	    !rt->swap_state || !rt->watch)
		return -1;

	struct keyed *fk = malloc((n ? n : 1) * sizeof(*fk));
	if (!fk)
		return -1;
	uint32_t nf = 0;
	for (uint32_t r = 0; r < n; r++)
		if (p->allocs[r].upper != MP_PLAN_NO_FREE)
			fk[nf++] = (struct keyed){ p->allocs[r].upper, r };
	qsort(fk, nf, sizeof(*fk), cmp_keyed);
	for (uint32_t i = 0; i < nf; i++)
		rt->hf[i] = (struct rt_hot_free){ fk[i].key, fk[i].idx, 0 };
	rt->hf[nf] = (struct rt_hot_free){ UINT64_MAX, NONE32, 1 };
	rt->nfrees = nf;
	free(fk);
	uint32_t no = 0;
	for (uint32_t r = 0; r < n; r++) {
		const struct mp_plan_alloc *a = &p->allocs[r];
		if (a->offset != MP_PLAN_PASS_THROUGH)
			rt->offs[no++] = a->offset;
		rt->req[r].below = NONE32;
	}
	qsort(rt->offs, no, sizeof(*rt->offs), cmp_u64);
	uint32_t u = 0;
	for (uint32_t i = 0; i < no; i++)
		if (u == 0 || rt->offs[u - 1] != rt->offs[i])
			rt->offs[u++] = rt->offs[i];
	rt->noffs = u;
	rt->slot_top = malloc((u ? u : 1) * sizeof(*rt->slot_top));
	if (!rt->slot_top)
		return -1;
	for (uint32_t i = 0; i < u; i++)
		rt->slot_top[i] = NONE32;
	for (uint32_t r = 0; r < n; r++)
		rt->slot[r] = p->allocs[r].offset == MP_PLAN_PASS_THROUGH ?
				      NONE32 :
				      offset_slot(rt, p->allocs[r].offset);

	/* swaps: each one's own entry, then the entries borrowing its bytes
	 * (allocated after the swap-out, up to the swap-in) and, the other
	 * way round, the swaps each entry borrows from */
	for (uint32_t s = 0; s < ns; s++)
		rt->own0[p->swaps[s].request + 1]++;
	for (uint32_t r = 0; r < n; r++)
		rt->own0[r + 1] += rt->own0[r];
	/* (entry, swap) pairs: a valid plan has about one per entry placed
	 * over swapped bytes (more where swapped buffers nest); a file that
	 * claims many more is refused before the tables take its memory */
	uint64_t pairs = 0, most = RT_BORROWS_PER_ENTRY * ((uint64_t)n + ns) + 65536;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t s = 0; s < ns; s++) {
			const struct mp_plan_swap *w = &p->swaps[s];
			for (uint32_t r = first_alloc_at(p, w->out_at + 1);
			     r < n && p->allocs[r].lower <= w->in_at; r++) {
				if (!borrows(p, r, w))
					continue;
				if (pass == 0) {
					if (++pairs > most)
						return -2;
					rt->borrow0[s + 1]++;
					rt->wait0[r + 1]++;
				} else {
					rt->borrowers[rt->borrow0[s]++] = r;
					rt->waits[rt->wait0[r]++] = s;
				}
			}
		}
		if (pass == 0) {
			/* counts to starts */
			for (uint32_t s = 0; s < ns; s++)
				rt->borrow0[s + 1] += rt->borrow0[s];
			for (uint32_t r = 0; r < n; r++)
				rt->wait0[r + 1] += rt->wait0[r];
			size_t nt = rt->borrow0[ns];
			rt->borrowers = malloc((nt ? nt : 1) * sizeof(*rt->borrowers));
			rt->waits = malloc((nt ? nt : 1) * sizeof(*rt->waits));
			if (!rt->borrowers || !rt->waits)
				return -1;
		}
	}
	/* the fill moved every start to the next one's: shift back */
	for (uint32_t s = ns; s > 0; s--)
		rt->borrow0[s] = rt->borrow0[s - 1];
	rt->borrow0[0] = 0;
	for (uint32_t r = n; r > 0; r--)
		rt->wait0[r] = rt->wait0[r - 1];
	rt->wait0[0] = 0;
	if (sort_triggers(p, rt->outs, 0) || sort_triggers(p, rt->ins, 1) ||
	    derive_prev(rt))
		return -1;
	derive_hot(rt);
	return 0;
}

/* --- streams and fences ---------------------------------------------------- */

/* A slot to give to a new stream when the table is full: the least
 * recently used one with no live pool buffer allocated on it (never the
 * copy stream's), its stream synchronised when it freed pool memory (its
 * frees are then behind every later reuse, whatever stream; the device
 * when the stream is gone).  -1 when none can go. */
static int stream_evict(mp_runtime *rt)
{
	int v = -1;
	/* every stream's used is stamped (stream_slot), the last one's too */
	for (int i = 0; i < rt->nstreams; i++)
		if (i != rt->copy_slot && rt->streams[i].refs == 0 &&
		    (v < 0 || rt->streams[i].used < rt->streams[v].used))
			v = i;
	/* a stream the program destroyed fails the sync: the device then */
	if (v >= 0 && rt->streams[v].free_gen &&
	    rt->be->stream_sync(rt->streams[v].handle) && rt->be->device_sync())
		return -1;
	return v;
}

/* stream_slot() for a stream other than the last one: the stream left
 * gets its stamp of last use, then s its slot, taken when new.  Not
 * inlined: the hot path keeps to the last stream. */
static __attribute__((noinline)) int stream_switch(mp_runtime *rt, void *s)
{
	int i;
	if (rt->nstreams)
		rt->streams[rt->last_stream].used = ++rt->ticks;
	for (i = 0; i < rt->nstreams; i++)
		if (rt->streams[i].handle == s)
			break;
	if (i == rt->nstreams) {
		if (rt->nstreams < RT_STREAMS)
			rt->nstreams++;
		else if ((i = stream_evict(rt)) < 0)
			return -1;
		struct rt_stream *e = &rt->streams[i];
		memset(e, 0, sizeof(*e));
		e->handle = s;
		/* a new stream has seen nothing: it waits for every earlier
		 * free (its first fence looks at every stream); and nobody
		 * has seen its frees */
		e->others_seen = UINT64_MAX;
		for (int j = 0; j < rt->nstreams; j++)
			rt->streams[j].seen[i] = 0;
	}
	rt->last_stream = i;
	return i;
}

/* The slot of stream s, taken when new (from the least recently used
 * stream that holds no live pool buffer when the table is full); -1 when
 * every slot holds some.  A compare when s is the last stream. */
static inline int stream_slot(mp_runtime *rt, void *s)
{
	if (rt->nstreams && rt->streams[rt->last_stream].handle == s)
		return rt->last_stream;
	return stream_switch(rt, s);
}

/* A pool free on the stream of slot sl, for fence(). */
static inline void count_free(mp_runtime *rt, int sl)
{
	rt->streams[sl].free_gen++;
	rt->streams[sl].frees++;
	rt->frees_total++;
}

/* Makes stream (slot j, or untracked when j < 0) wait for all work
 * enqueued so far on every stream that freed pool memory since j last
 * waited for it.  Returns 0, or -1 when the backend refused. */
static int fence(mp_runtime *rt, int j, void *stream)
{
	if (j >= 0 && rt->streams[j].others_seen ==
			      rt->frees_total - rt->streams[j].frees)
		return 0; /* no other stream freed since its last fence */
	for (int i = 0; i < rt->nstreams; i++) {
		struct rt_stream *e = &rt->streams[i];
		if (i == j || e->free_gen == (j >= 0 ? rt->streams[j].seen[i] : 0))
			continue;
		if (rt->be->event_record(rt->scratch, e->handle) ||
		    rt->be->stream_wait(stream, rt->scratch))
			return -1;
		rt->st.stream_waits++;
		if (j >= 0)
			rt->streams[j].seen[i] = e->free_gen;
	}
	if (j >= 0)
		rt->streams[j].others_seen = rt->frees_total - rt->streams[j].frees;
	return 0;
}

/* --- swaps ------------------------------------------------------------------ */

static char *swap_pool_bytes(mp_runtime *rt, const struct mp_plan_swap *s)
{
	return rt->pool + rt->plan.allocs[s->request].offset + s->src_offset;
}

/* Makes stream (slot sl) wait for what the other streams pool request o is
 * used on (record_stream) have enqueued so far.  0, or -1. */
static int wait_side(mp_runtime *rt, const struct rt_req *o, int sl,
		     void *stream)
{
	for (uint32_t m = o->side; m; m &= m - 1) {
		int i = __builtin_ctz(m);
		if (i == sl)
			continue;
		if (rt->be->event_record(rt->scratch, rt->streams[i].handle) ||
		    rt->be->stream_wait(stream, rt->scratch))
			return -1;
		rt->st.stream_waits++;
	}
	if (o->side_lost && rt->be->device_sync())
		return -1;
	return 0;
}

/* Copy-out of swap w, after the work enqueued on its owner's stream and on
 * the other streams it is used on (record_stream: their reads must end
 * before a borrower, which waits for the copy-out, writes).  On failure the
 * buffer stays resident and -1 is returned (the caller stops following the
 * plan, so nothing is placed over it). */
static int swap_out(mp_runtime *rt, uint32_t w)
{
	const struct mp_plan_swap *s = &rt->plan.swaps[w];
	struct rt_req *o = &rt->req[s->request];
	if (o->live != LIVE_POOL)
		return 0; /* served by the real allocator: nothing shares it */
	void *owner = rt->streams[o->stream].handle;
	const struct mp_backend *be = rt->be;
	if (wait_side(rt, o, rt->copy_slot, rt->copy_stream) ||
	    be->event_record(rt->scratch, owner) ||
	    be->stream_wait(rt->copy_stream, rt->scratch) ||
	    be->copy(rt->staging + s->staging, swap_pool_bytes(rt, s), s->bytes,
		     MP_COPY_D2H, rt->copy_stream) ||
	    be->event_record(rt->ev_out[w], rt->copy_stream))
		return -1;
	rt->st.stream_waits++;
	/* only the borrowers' frees from now on order the copy-in */
	for (uint32_t i = rt->borrow0[w]; i < rt->borrow0[w + 1]; i++)
		rt->req[rt->borrowers[i]].fev = 0;
	rt->swap_state[w] = SW_OUT;
	rt->nout++;
	rt->st.swaps_out++;
	rt->st.swap_bytes_out += s->bytes;
	return 0;
}

static int wait_side(mp_runtime *rt, const struct rt_req *o, int sl,
		     void *stream);

/* Makes the copy stream wait for the frees of the buffers that borrowed
 * swap w's bytes, each at the event its free recorded (release_pool): the
 * last uses of those bytes, and nothing the same streams enqueued later
 * (each borrower waited for the owner's stream when it was served).  A
 * borrower still live or not served from the pool this time has nothing
 * to wait for; when none had, the copy stream waits for the owner's
 * streams instead, whose reads issued after the swap-out may still run
 * (after a divergence, or where nothing borrowed the bytes).  0, or -1
 * when the backend refused. */
static int wait_borrowers(mp_runtime *rt, uint32_t w)
{
	uint64_t waits = rt->st.stream_waits;
	for (uint32_t i = rt->borrow0[w]; i < rt->borrow0[w + 1]; i++) {
		uint32_t b = rt->borrowers[i];
		if (!rt->req[b].fev || rt->req[b].live == LIVE_POOL)
			continue;
		if (rt->be->stream_wait(rt->copy_stream, rt->ev_free[b]))
			return -1;
		rt->st.stream_waits++;
		/* its uses on other streams (record_stream), as at its free
		 * or later */
		for (uint32_t m = rt->req[b].side_freed; m; m &= m - 1) {
			if (rt->be->stream_wait(rt->copy_stream,
						rt->ev_side[__builtin_ctz(m)]))
				return -1;
			rt->st.stream_waits++;
		}
	}
	if (rt->st.stream_waits != waits)
		return 0;
	const struct rt_req *o = &rt->req[rt->plan.swaps[w].request];
	if (rt->be->event_record(rt->scratch, rt->streams[o->stream].handle) ||
	    rt->be->stream_wait(rt->copy_stream, rt->scratch))
		return -1;
	rt->st.stream_waits++;
	return wait_side(rt, o, rt->copy_slot, rt->copy_stream);
}

/* Copy-in of swap w, after the borrowers' frees (wait_borrowers); the
 * owner's stream then waits for it.  Returns 0, or -1 when the backend
 * refused (said once; the buffer counts as back). */
static int swap_in(mp_runtime *rt, uint32_t w)
{
	const struct mp_plan_swap *s = &rt->plan.swaps[w];
	struct rt_req *o = &rt->req[s->request];
	void *owner = rt->streams[o->stream].handle;
	const struct mp_backend *be = rt->be;
	if (rt->swap_state[w] == SW_PENDING)
		rt->npending--;
	rt->swap_state[w] = SW_IN;
	rt->nout--;
	int bad = wait_borrowers(rt, w) ||
		  be->copy(swap_pool_bytes(rt, s), rt->staging + s->staging,
			   s->bytes, MP_COPY_H2D, rt->copy_stream) ||
		  be->event_record(rt->ev_in[w], rt->copy_stream);
#ifndef MP_FAULT_NO_SWAPIN_WAIT /* a test build leaves this wait out */
	bad = bad || be->stream_wait(owner, rt->ev_in[w]);
#else
	(void)owner;
#endif
	if (bad) {
		warn(rt, W_SWAP,
		     "the swap-in of plan entry %llu failed: its bytes [%llu, %llu) may not be back",
		     (unsigned long long)s->request,
		     (unsigned long long)s->src_offset,
		     (unsigned long long)(s->src_offset + s->bytes));
		return -1;
	}
	rt->st.stream_waits++;
	rt->st.swaps_in++;
	rt->st.swap_bytes_in += s->bytes;
	return 0;
}

/* Counts the swap-ins issued at the last trigger whose copy still runs now,
 * at the next request: the plan triggers a swap-in at the last request
 * before the buffer's next use at the latest, so the owner's stream may be
 * waiting for it already.  An event query, which orders nothing. */
static void watch_swapins(mp_runtime *rt)
{
	for (uint32_t i = 0; i < rt->nwatch; i++)
		if (!rt->be->event_query(rt->ev_in[rt->watch[i]]))
			rt->st.swapin_late++;
	rt->nwatch = 0;
}

/* Swap w comes back now and the host waits for it: after a divergence the
 * program's streams no longer wait for the runtime's events. */
static void swap_in_sync(mp_runtime *rt, uint32_t w)
{
	if (!swap_in(rt, w))
		rt->st.sync_swapins++;
	if (rt->be->stream_sync(rt->copy_stream))
		warn(rt, W_SWAP,
		     "waiting for the swap-in of plan entry %llu failed: its bytes may not be back",
		     (unsigned long long)rt->plan.swaps[w].request);
}

static int borrowers_gone(const mp_runtime *rt, uint32_t w)
{
	for (uint32_t i = rt->borrow0[w]; i < rt->borrow0[w + 1]; i++)
		if (rt->req[rt->borrowers[i]].live == LIVE_POOL)
			return 0;
	return 1;
}

/* Says which buffer holds swap w's bytes when a divergence leaves it out:
 * the bytes cannot come back while that one is live (both have their
 * addresses), and a use of the owner before its free reads wrong bytes.
 * With MP_ON_UNSAFE_ABORT, says so whatever the verbosity and aborts the
 * process here, before the program can use the owner. */
static void warn_lent(mp_runtime *rt, uint32_t w)
{
	uint32_t b = NONE32;
	for (uint32_t i = rt->borrow0[w]; i < rt->borrow0[w + 1] && b == NONE32; i++)
		if (rt->req[rt->borrowers[i]].live == LIVE_POOL)
			b = rt->borrowers[i];
	unsigned long long owner = (unsigned long long)rt->plan.swaps[w].request;
	if (rt->on_unsafe == MP_ON_UNSAFE_ABORT) {
		fprintf(stderr,
			"memplan: error: %s; plan entry %llu is swapped out and plan entry %u, placed over its bytes, is live, so a use of entry %llu before that free would read wrong bytes: aborting (MEMPLAN_ON_UNSAFE=abort)\n",
			rt->problem, owner, b, owner);
		abort();
	}
	char why[sizeof(rt->problem)]; /* the divergence stays the last problem */
	memcpy(why, rt->problem, sizeof(why));
	warn(rt, W_LENT,
	     "plan entry %llu stays swapped out until plan entry %u, placed over its bytes, is freed: a use of it before that free reads wrong bytes (MEMPLAN_ON_UNSAFE=warn asked to go on; without it the program stops here)",
	     owner, b);
	memcpy(rt->problem, why, sizeof(why));
}

/* --- iterations ------------------------------------------------------------- */

static int pool_idle(const mp_runtime *rt)
{
	return rt->live_pool == 0 && rt->nout == 0;
}

/* Stops following: swaps back what is out and waits for it (or, when a
 * buffer placed over it is still live, does so as soon as the last such
 * buffer is freed, in release_pool()); copies in still running are waited
 * for too. */
static void diverge(mp_runtime *rt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void diverge(mp_runtime *rt, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rt->st.divergences++;
	warn(rt, W_DIVERGE,
	     "%s: the rest of this iteration goes to the real allocator, and the plan is followed again from the next iteration that matches",
	     why);
	if (rt->use_pool && rt->plan.nswaps) {
		int copying = 0;
		if (rt->nwatch)
			watch_swapins(rt);
		for (uint32_t w = 0; w < rt->plan.nswaps; w++) {
			if (rt->swap_state[w] == SW_IN)
				copying = 1;
			if (rt->swap_state[w] != SW_OUT)
				continue;
			if (borrowers_gone(rt, w)) {
				if (!swap_in(rt, w))
					rt->st.sync_swapins++;
				copying = 1;
			} else {
				rt->swap_state[w] = SW_PENDING;
				rt->npending++;
				warn_lent(rt, w);
			}
		}
		if (copying && rt->be->stream_sync(rt->copy_stream))
			warn(rt, W_SWAP,
			     "waiting for the copy stream after a divergence failed: swapped buffers may not be back");
	}
	rt->phase = PH_IDLE;
	rt->use_pool = 0;
	rt->chained = 0;
	rt->last_complete = 0;
}

/* The next ordinal, k or later, after whose request advance_event() has
 * work: the next swap trigger while the pool is used, the iteration's
 * last request in any case. */
static void next_event(mp_runtime *rt)
{
	uint64_t e = rt->end - 1;
	if (rt->use_pool) {
		const struct mp_plan *p = &rt->plan;
		if (rt->next_in < p->nswaps && p->swaps[rt->ins[rt->next_in]].in_at < e)
			e = p->swaps[rt->ins[rt->next_in]].in_at;
		if (rt->next_out < p->nswaps && p->swaps[rt->outs[rt->next_out]].out_at < e)
			e = p->swaps[rt->outs[rt->next_out]].out_at;
	}
	rt->event_at = e;
}

/* The pool is taken for the rest of the iteration, from ordinal k on. */
static void use_pool(mp_runtime *rt)
{
	if (!pool_idle(rt)) {
		rt->st.skipped++;
		warn(rt, W_SKIP,
		     "an iteration matching the plan began while %llu pool buffers of an earlier one are live: it goes to the real allocator",
		     (unsigned long long)rt->live_pool);
		return;
	}
	rt->use_pool = 1;
	rt->pool_from = rt->k;
	rt->st.iterations++;
	if (rt->seg != rt->seg_expected)
		rt->st.out_of_order++;
	memset(rt->swap_state, SW_IDLE, rt->plan.nswaps);
	uint32_t ns = rt->plan.nswaps;
	rt->next_out = rt->next_in = 0;
	while (rt->next_out < ns &&
	       rt->plan.swaps[rt->outs[rt->next_out]].out_at < rt->k)
		rt->next_out++;
	while (rt->next_in < ns &&
	       rt->plan.swaps[rt->ins[rt->next_in]].in_at < rt->k)
		rt->next_in++;
	next_event(rt);
}

/* Starts following workload w (its iteration; the plan's, without a
 * cycle) at clock ordinal k of its segment.  trusted: the boundary is known
 * (explicit, or right after a complete iteration), so the pool is used from
 * the first request; else the first `match` allocs must match first. */
static void start(mp_runtime *rt, uint32_t w, uint64_t k, int trusted)
{
	rt->phase = PH_FOLLOW;
	rt->seg = w;
	rt->seg_expected = rt->seg_next;
	rt->seg_next = w + 1 < rt->nseg ? w + 1 : 0;
	rt->end = rt->seg_end[w];
	rt->k = k;
	rt->bound_mask = 0; /* each iteration binds its own streams */
	rt->ca = first_alloc_at(&rt->plan, k);
	rt->cf = first_free_at(rt, k);
	rt->chained = 0;
	rt->last_complete = 0;
	rt->use_pool = 0;
	uint32_t na = (w + 1 < rt->nseg ? rt->seg_a0[w + 1] : rt->plan.nallocs) -
		      rt->seg_a0[w]; /* the workload's allocations */
	rt->confirm_left = trusted ? 0 : rt->match < na ? rt->match : na;
	next_event(rt);
	if (trusted)
		use_pool(rt);
}

/* After request ordinal `served` (the one event_at named): its swap
 * triggers, the end, and the next event.  Not inlined: most requests
 * have none. */
static __attribute__((noinline)) void advance_event(mp_runtime *rt,
						    uint64_t served)
{
	if (rt->use_pool) {
		uint32_t ns = rt->plan.nswaps;
		/* swap-ins first: where a swap of a buffer ends at the ordinal
		 * where another one of it starts (plans refuse it, but), the
		 * bytes must be back before they are copied out again */
		while (rt->next_in < ns &&
		       rt->plan.swaps[rt->ins[rt->next_in]].in_at == served) {
			uint32_t w = rt->ins[rt->next_in++];
			if (rt->swap_state[w] == SW_OUT && !swap_in(rt, w))
				rt->watch[rt->nwatch++] = w;
		}
		while (rt->next_out < ns &&
		       rt->plan.swaps[rt->outs[rt->next_out]].out_at == served) {
			uint32_t w = rt->outs[rt->next_out++];
			if (swap_out(rt, w)) {
				diverge(rt, "the swap-out of plan entry %llu could not be issued",
					(unsigned long long)rt->plan.swaps[w].request);
				return;
			}
		}
	}
	if (rt->k == rt->end) {
		if (rt->use_pool) {
			rt->st.completed++;
			if (rt->verbose >= 2)
				fprintf(stderr, "memplan: iteration %llu followed to its end\n",
					(unsigned long long)rt->st.completed);
		}
		rt->last_complete = rt->use_pool;
		rt->phase = PH_IDLE;
		rt->use_pool = 0;
		rt->chained = !rt->explicit_mode;
		return;
	}
	next_event(rt);
}

/* After request ordinal k - 1 was served: the cursors past it, and its
 * event when it has one (advance_event). */
static inline __attribute__((always_inline)) void advance(mp_runtime *rt)
{
	uint64_t served = rt->k++;
	if (rt->ha[rt->ca].lower == served)
		rt->ca++;
	else if (rt->hf[rt->cf].at == served)
		rt->cf++;
	if (served == rt->event_at)
		advance_event(rt, served);
}

/* A request that does not match while following. */
static void mismatch(mp_runtime *rt, const char *what)
{
	if (rt->confirm_left) { /* not an iteration after all: quietly */
		rt->phase = PH_IDLE;
		return;
	}
	const struct mp_plan *p = &rt->plan;
	char want[96];
	uint32_t c = clock_now(rt);
	if (rt->k >= rt->end)
		snprintf(want, sizeof(want), "the end of the iteration");
	else if (c == CLOCK_FOREIGN)
		snprintf(want, sizeof(want), "a free of a buffer from before the iteration");
	else if (c & 1)
		snprintf(want, sizeof(want), "the free of plan entry %u", c >> 1);
	else
		snprintf(want, sizeof(want), "an alloc of %llu bytes",
			 (unsigned long long)p->allocs[c >> 1].size);
	diverge(rt, "request %llu of the iteration is %s where the plan has %s",
		(unsigned long long)rt->k, what, want);
}

/* Binds plan entry r's trace stream ordinal to stream at its first request
 * in the iteration, so that the binding is a bijection: one stream per
 * ordinal, one ordinal per stream.  Returns 0 (bound, or nothing to check:
 * no STREAMS section, a stream the trace did not know, an ordinal past
 * RT_STREAM_ORDS), or 1 when stream contradicts the binding; *held is then
 * the ordinal that holds stream, or the plan's own when stream is not its.
 * A compare when the ordinal is bound; a scan of the bound ones at first
 * sight. */
static int stream_bind(mp_runtime *rt, uint32_t r, void *stream, uint32_t *held)
{
	const uint32_t *ord = rt->plan.streams;
	uint32_t o = ord ? ord[r] : MP_PLAN_STREAM_UNKNOWN;
	if (o >= RT_STREAM_ORDS)
		return 0;
	*held = o;
	if (rt->bound_mask >> o & 1)
		return rt->bound[o] != stream;
	for (uint64_t m = rt->bound_mask; m; m &= m - 1) {
		uint32_t i = (uint32_t)__builtin_ctzll(m);
		if (rt->bound[i] == stream) {
			*held = i;
			return 1;
		}
	}
	rt->bound[o] = stream;
	rt->bound_mask |= (uint64_t)1 << o;
	return 0;
}

/* Alloc request r on stream contradicts the iteration's stream binding
 * (held as stream_bind() left it): a divergence, as mismatch(). */
static void stream_mismatch(mp_runtime *rt, uint32_t r, void *stream,
			    uint32_t held)
{
	if (rt->confirm_left) { /* not an iteration after all: quietly */
		rt->phase = PH_IDLE;
		return;
	}
	uint32_t o = rt->plan.streams[r];
	unsigned long long k = (unsigned long long)rt->k;
	unsigned long long n = (unsigned long long)rt->plan.allocs[r].size;
	if (held == o)
		diverge(rt, "request %llu of the iteration is an alloc of %llu bytes on stream %p where the plan has it on the trace's stream %u, which this iteration runs on stream %p",
			k, n, stream, o, rt->bound[o]);
	else
		diverge(rt, "request %llu of the iteration is an alloc of %llu bytes on stream %p, which this iteration runs the trace's stream %u on, where the plan has it on the trace's stream %u",
			k, n, stream, held, o);
}

/* --- pool bookkeeping -------------------------------------------------------- */

static int in_pool(const mp_runtime *rt, const void *p)
{
	return rt->pool && (const char *)p >= rt->pool &&
	       (uint64_t)((const char *)p - rt->pool) < rt->pool_size;
}

static inline __attribute__((always_inline)) void push_live(mp_runtime *rt, uint32_t r,
							    void *ptr, int slot)
{
	struct rt_req *q = &rt->req[r];
	uint32_t *top = &rt->slot_top[rt->slot[r]];
	q->ptr = ptr;
	q->live = LIVE_POOL;
	q->covered = 0;
	q->fev = 0;
	q->side = 0;
	q->side_freed = 0;
	q->side_lost = 0;
	q->stream = (int8_t)slot;
	rt->streams[slot].refs++;
	q->below = *top;
	*top = r;
	rt->live_pool++;
}

/* The live pool request at ptr (the most recent one there), or NONE32. */
static uint32_t find_live(const mp_runtime *rt, const void *ptr)
{
	uint32_t sl = offset_slot(rt, (uint64_t)((const char *)ptr - rt->pool));
	return sl == NONE32 ? NONE32 : rt->slot_top[sl];
}

/* Are some of pool request r's bytes swapped out now? */
static int swapped_out(const mp_runtime *rt, uint32_t r)
{
	for (uint32_t w = rt->own0[r]; w < rt->own0[r + 1]; w++)
		if (rt->swap_state[w] == SW_OUT || rt->swap_state[w] == SW_PENDING)
			return 1;
	return 0;
}

/* Does pool request r borrow bytes of a swap that is out now? */
static int borrows_out(const mp_runtime *rt, uint32_t r)
{
	for (uint32_t i = rt->wait0[r]; i < rt->wait0[r + 1]; i++) {
		uint8_t st = rt->swap_state[rt->waits[i]];
		if (st == SW_OUT || st == SW_PENDING)
			return 1;
	}
	return 0;
}

/* Was another pool buffer of this iteration placed at pool request r's
 * address, and freed, before r was allocated?  Then a free of that
 * address, where the plan has none, names two frees: an early one of r, or
 * a second one of that buffer (a stale pointer). */
static int stale_there(const mp_runtime *rt, uint32_t r)
{
	uint64_t pl = rt->prev_lower[r];
	return pl != UINT64_MAX && pl >= rt->pool_from;
}

/* The live pool request that a free of pool address ptr, which the plan
 * does not expect, may release; NONE32 when it must be refused:
 *  - nothing live starts there (a second free, or an address inside a
 *    buffer);
 *  - what is live there is swapped out and a buffer placed over it at the
 *    same address was freed already (a second free of that one is then
 *    the likelier reading, and releasing the swapped-out one would lose
 *    it);
 *  - following (the free that makes the iteration diverge), another
 *    buffer was freed at that address earlier in the iteration
 *    (stale_there), and what is live there borrows a swapped-out buffer's
 *    bytes or is swapped out: released, the swapped-out one would come
 *    back over a buffer the program may still use, or its own swap would
 *    be forgotten (issue 30).  The second free is the reading that loses
 *    nothing: it is refused, the buffer stays live, and an early free of it
 *    stops at the divergence as any lent state does (warn_lent).  Its own
 *    free later, after the divergence, releases it. */
static uint32_t free_target(const mp_runtime *rt, const void *ptr,
			    int following)
{
	uint32_t r = find_live(rt, ptr);
	if (r == NONE32 || rt->req[r].ptr != ptr || rt->req[r].live != LIVE_POOL)
		return NONE32;
	int out = swapped_out(rt, r);
	if (rt->req[r].covered && out)
		return NONE32;
	if (following && stale_there(rt, r) && (out || borrows_out(rt, r)))
		return NONE32;
	return r;
}

/* What the release of pool request r (freed on stream, slot sl) leaves
 * for the next users of its bytes: the event of its free, which a swap-in
 * of bytes it borrowed waits for (wait_borrowers), and, for each other
 * stream it was used on (record_stream), an event there (ev_side, which
 * that swap-in waits for too) and a pool free on that stream, so that the
 * next pool user on any other stream waits for it (fence()).  A failed
 * record is replaced by the host waiting for the stream. */
static void release_marks(mp_runtime *rt, uint32_t r, void *stream, int sl)
{
	struct rt_req *q = &rt->req[r];
	if (sl >= 0 && r < rt->nfev && rt->ev_free[r]) {
		if (rt->be->event_record(rt->ev_free[r], stream))
			rt->be->stream_sync(stream);
		else
			q->fev = 1;
	}
	for (uint32_t m = q->side; m; m &= m - 1) {
		int i = __builtin_ctz(m);
		struct rt_stream *e = &rt->streams[i];
		if (rt->be->event_record(rt->ev_side[i], e->handle))
			rt->be->stream_sync(e->handle);
		else
			q->side_freed |= 1u << i;
		e->refs--;
		count_free(rt, i);
	}
	q->side = 0;
	if (q->side_lost) /* a stream without a slot: nothing can wait for it */
		rt->be->device_sync();
	q->side_lost = 0;
}

/* Releases pool request r, freed on stream. */
static void release_pool(mp_runtime *rt, uint32_t r, void *stream)
{
	struct rt_req *q = &rt->req[r];
	uint32_t *at = &rt->slot_top[rt->slot[r]];
	while (*at != r && *at != NONE32)
		at = &rt->req[*at].below;
	if (*at == r) {
		*at = q->below;
		if (q->below != NONE32) /* its address now names two frees */
			rt->req[q->below].covered = 1;
	}
	q->below = NONE32;
	q->live = LIVE_NO;
	q->ptr = NULL;
	rt->streams[q->stream].refs--;
	rt->live_pool--;
	rt->st.pool_frees++;
	int sl = stream_slot(rt, stream);
	if (sl >= 0)
		count_free(rt, sl);
	else
		rt->be->stream_sync(stream); /* untracked: done before reuse */
	release_marks(rt, r, stream, sl);
	/* its own swaps end with it */
	for (uint32_t w = rt->own0[r]; w < rt->own0[r + 1]; w++) {
		if (rt->swap_state[w] == SW_OUT || rt->swap_state[w] == SW_PENDING) {
			if (rt->swap_state[w] == SW_PENDING)
				rt->npending--;
			rt->nout--;
		}
		rt->swap_state[w] = SW_IDLE;
	}
	/* after a divergence: a swap waiting for this borrower comes back,
	 * and the host waits for it */
	if (rt->npending)
		for (uint32_t i = rt->wait0[r]; i < rt->wait0[r + 1]; i++) {
			uint32_t w = rt->waits[i];
			if (rt->swap_state[w] == SW_PENDING && borrowers_gone(rt, w))
				swap_in_sync(rt, w);
		}
}

/* --- requests ---------------------------------------------------------------- */

/* The real allocator failed (code rc) for the request at k, an entry
 * that passes through. */
static __attribute__((noinline, cold)) void real_failed(mp_runtime *rt,
							 size_t size, int rc)
{
	diverge(rt, "the real allocator failed for request %llu (%llu bytes): %s",
		(unsigned long long)rt->k, (unsigned long long)size,
		rt->be->error_string(rc));
}

/* Serves plan entry r (matched at ordinal k) under the lock.  Returns the
 * pointer; NULL with *rc set when the real allocator failed. */
static void *serve(mp_runtime *rt, uint32_t r, size_t size, void *stream,
		   int mem, int *rc)
{
	const struct mp_plan_alloc *a = &rt->plan.allocs[r];
	void *p = NULL;
	int sl = rt->use_pool && a->offset != MP_PLAN_PASS_THROUGH ?
			 stream_slot(rt, stream) : -1;
	if (rt->use_pool && a->offset != MP_PLAN_PASS_THROUGH && sl < 0)
		warn(rt, W_STREAMS,
		     "request %llu of the iteration is on a stream the runtime cannot track (each of its %d stream slots holds a live pool buffer): the real allocator serves it",
		     (unsigned long long)rt->k, RT_STREAMS);
	if (sl >= 0) {
		p = rt->pool + a->offset;
		int bad = rt->nstreams > 1 ? fence(rt, sl, stream) : 0;
		/* borrowing a swapped-out buffer's bytes: after its copy-out,
		 * and after what its own stream still does with them (reads
		 * enqueued after the swap-out was issued) */
		for (uint32_t i = rt->wait0[r]; i < rt->wait0[r + 1] && !bad; i++) {
			uint32_t w = rt->waits[i];
			if (rt->swap_state[w] != SW_OUT)
				continue;
			const struct rt_req *o = &rt->req[rt->plan.swaps[w].request];
			if (!rt->be->event_query(rt->ev_out[w]))
				rt->st.swapout_late++; /* this stream will wait */
#ifndef MP_FAULT_NO_SWAPOUT_WAIT /* a test build leaves these waits out */
			bad = rt->be->stream_wait(stream, rt->ev_out[w]);
			rt->st.stream_waits++;
			if (!bad && o->stream != sl) {
				void *os = rt->streams[o->stream].handle;
				bad = rt->be->event_record(rt->scratch, os) ||
				      rt->be->stream_wait(stream, rt->scratch);
				rt->st.stream_waits++;
			}
			if (!bad)
				bad = wait_side(rt, o, sl, stream);
#else
			(void)o;
#endif
		}
		if (bad) {
			diverge(rt, "request %llu of the iteration could not be ordered after the pool's earlier users",
				(unsigned long long)rt->k);
			goto real;
		}
		push_live(rt, r, p, sl);
		rt->req[r].real = NULL;
		rt->st.planned_allocs++;
		rt->st.planned_bytes += size;
		advance(rt);
		return p;
	}
	*rc = rt->be->alloc(&p, size, mem, stream);
	if (*rc) {
		real_failed(rt, size, *rc);
		return NULL;
	}
	rt->req[r].real = p;
	if (rt->use_pool)
		rt->st.pass_through++;
	else
		rt->st.fallback_allocs++;
	rt->st.real_bytes += size;
	if (!rt->use_pool && rt->confirm_left && --rt->confirm_left == 0) {
		advance(rt);
		if (rt->phase == PH_FOLLOW)
			use_pool(rt);
		return p;
	}
	advance(rt);
	return p;
real:
	*rc = rt->be->alloc(&p, size, mem, stream);
	if (!*rc) {
		rt->st.fallback_allocs++;
		rt->st.real_bytes += size;
	}
	return p;
}

/* --- stream capture ------------------------------------------------------- */

/*
 * While the request's stream captures (be->stream_capturing), a call of
 * the runtime's own on it (an event record or wait, a query, a copy, a
 * sync) would be captured into the program's graph, join another stream
 * to it, or fail and invalidate it.  So such a request goes to the
 * real allocator untouched, off the clock (a graph replays without
 * requests), and the runtime's state waits for the next request on a
 * stream that does not capture, which finds the iteration as it was (one
 * missing the captured requests diverges there, as any other).  A free cannot give pool
 * bytes back: the graph may use them whenever it is launched, so they stay
 * taken, as does what the PyTorch way in (MP_MEM_RELAXED) frees then: a
 * cudaFree would be refused in a capture.
 */
static void *capture_alloc(mp_runtime *rt, size_t size, void *stream,
			   int mem, int *rcp)
{
	void *p = NULL;
	rt_lock(&rt->lock);
	rt->st.captured++;
	rt->st.real_bytes += size;
	rt_unlock(&rt->lock);
	*rcp = rt->be->alloc(&p, size, mem, stream);
	return *rcp ? NULL : p;
}

static int capture_free(mp_runtime *rt, void *ptr, void *stream, int mem)
{
	int keep = in_pool(rt, ptr) || (mem & MP_MEM_RELAXED);
	rt_lock(&rt->lock);
	rt->st.captured++;
	if (keep) {
		rt->st.capture_kept++;
		char why[sizeof(rt->problem)]; /* not the last problem */
		memcpy(why, rt->problem, sizeof(why));
		warn(rt, W_CAPTURE,
		     "a buffer was freed during a CUDA stream capture: its memory stays taken, since the graph may use it at every launch");
		memcpy(rt->problem, why, sizeof(why));
	} else {
		rt->st.real_frees++;
	}
	rt_unlock(&rt->lock);
	return keep ? 0 : rt->be->free(ptr, mem, stream);
}

/* The workload whose iteration an alloc of size may begin: the one the
 * cycle has next when its first request has that size, else the first
 * such one after it in the cycle (every workload is one without a
 * cycle), NONE32 when none.  At most MP_PLAN_MAX_WORKLOADS compares. */
static uint32_t recognise(const mp_runtime *rt, size_t size)
{
	for (uint32_t i = 0, w = rt->seg_next; i < rt->nseg; i++) {
		if (rt->plan.allocs[rt->seg_a0[w]].size == size)
			return w;
		w = w + 1 < rt->nseg ? w + 1 : 0;
	}
	return NONE32;
}

/*
 * The hot path.  The common request, in an iteration that uses the pool,
 * is the one the clock has next (the entry at cursor ca for an alloc, the
 * free at cursor cf), of the planned size, on its trace stream's bound
 * stream, which is also the stream of the request before, and with no
 * other stream's pool frees to wait for: it is served here with a few
 * compares and the entry's row of ha or hf.  Everything else (swaps,
 * first sight of a stream or an ordinal, divergence, recognition, entries
 * with swaps or borrowed bytes, the real allocator's failure) goes to the
 * full path, alloc_full and free_full, with every check as before.
 */

/* Is stream the one trace stream ordinal o is bound to in this iteration
 * (or o unchecked)?  0 also at first sight: the full path binds. */
static inline int bound_to(const mp_runtime *rt, uint32_t o, void *stream)
{
	return o >= RT_STREAM_ORDS ||
	       ((rt->bound_mask >> o & 1) && rt->bound[o] == stream);
}

/* The common case's condition: an iteration using the pool, no swap-in
 * to watch, and not past its end. */
static inline int hot(const mp_runtime *rt)
{
	return rt->use_pool && rt->phase == PH_FOLLOW && !rt->nwatch &&
	       rt->k < rt->end;
}

/* The rest of an alloc, under the lock, after the hot path declined it:
 * recognition, the clock, the stream binding, serve(), divergence.
 * Unlocks. */
static __attribute__((noinline)) void *alloc_full(mp_runtime *rt, size_t size,
						  void *stream, int mem, int *rcp)
{
	void *p = NULL;
	if (rt->nwatch)
		watch_swapins(rt);
	const struct mp_plan *pl = &rt->plan;
	uint32_t w;
	if (rt->phase == PH_IDLE && !rt->explicit_mode && pl->nallocs) {
		/* right after a complete iteration, the next one (of the
		 * cycle) starts with the very next alloc, or it is
		 * recognised anew */
		if ((w = recognise(rt, size)) != NONE32)
			start(rt, w, pl->allocs[rt->seg_a0[w]].lower,
			      rt->chained && w == rt->seg_next);
		rt->chained = 0;
	}
	if (rt->phase == PH_FOLLOW) {
		uint32_t c = rt->k < rt->end ? clock_now(rt) : CLOCK_FOREIGN;
		uint32_t held = 0;
		if (rt->k < rt->end && c != CLOCK_FOREIGN && !(c & 1) &&
		    pl->allocs[c >> 1].size == size) {
			if (!stream_bind(rt, c >> 1, stream, &held)) {
				p = serve(rt, c >> 1, size, stream, mem, rcp);
				rt_unlock(&rt->lock);
				return p;
			}
			stream_mismatch(rt, c >> 1, stream, held);
		} else {
			char what[64];
			snprintf(what, sizeof(what), "an alloc of %llu bytes",
				 (unsigned long long)size);
			mismatch(rt, what);
		}
		/* a candidate that failed may restart right here (its
		 * binding starts anew, so this request binds) */
		if (rt->phase == PH_IDLE && !rt->explicit_mode &&
		    (w = recognise(rt, size)) != NONE32) {
			uint32_t a0 = rt->seg_a0[w];
			start(rt, w, pl->allocs[a0].lower, 0);
			stream_bind(rt, a0, stream, &held);
			p = serve(rt, a0, size, stream, mem, rcp);
			rt_unlock(&rt->lock);
			return p;
		}
	}
	rt->st.fallback_allocs++;
	rt->st.real_bytes += size;
	rt_unlock(&rt->lock);
	*rcp = rt->be->alloc(&p, size, mem, stream);
	return *rcp ? NULL : p;
}

/* runtime_alloc() with rcp given; inlined into both ways in. */
static inline __attribute__((always_inline)) void *
alloc_hot(mp_runtime *rt, size_t size, void *stream, int mem, int *rcp)
{
	void *p = NULL;
	*rcp = 0;
#ifdef MP_FAULT_SLOW_HOT_PATH /* a test build: a few instructions more */
	for (volatile int i = 0; i < MP_FAULT_SLOW_HOT_PATH; i++)
		;
#endif
	if (size == 0) { /* not a request the plan can hold */
		*rcp = rt->be->alloc(&p, size, mem, stream);
		return *rcp ? NULL : p;
	}
	if (rt->be->stream_capturing(stream))
		return capture_alloc(rt, size, stream, mem, rcp);
	rt_lock(&rt->lock);
	uint32_t r = rt->ca;
	const struct rt_hot_alloc *h = &rt->ha[r];
	if (hot(rt) && h->lower == rt->k && h->size == size && !h->cold &&
	    bound_to(rt, h->ord, stream)) {
		int sl = rt->last_stream;
		if (h->offset == MP_PLAN_PASS_THROUGH) {
			/* serve()'s pass-through, as the full path would */
			*rcp = rt->be->alloc(&p, size, mem, stream);
			if (*rcp) {
				real_failed(rt, size, *rcp);
				p = NULL;
			} else {
				rt->req[r].real = p;
				rt->st.pass_through++;
				rt->st.real_bytes += size;
				advance(rt);
			}
			rt_unlock(&rt->lock);
			return p;
		}
		if (rt->nstreams && rt->streams[sl].handle == stream &&
		    (rt->nstreams == 1 || rt->streams[sl].others_seen ==
						  rt->frees_total - rt->streams[sl].frees)) {
			p = rt->pool + h->offset;
			push_live(rt, r, p, sl);
			rt->req[r].real = NULL;
			rt->st.planned_allocs++;
			rt->st.planned_bytes += size;
			advance(rt);
			rt_unlock(&rt->lock);
			return p;
		}
	}
	return alloc_full(rt, size, stream, mem, rcp);
}

void *runtime_alloc(mp_runtime *rt, size_t size, void *stream, int mem,
		    int *rcp)
{
	int rc;
	return alloc_hot(rt, size, stream, mem, rcp ? rcp : &rc);
}

/* The rest of a free, under the lock, after the hot path declined it.
 * Unlocks. */
static __attribute__((noinline)) int free_full(mp_runtime *rt, void *ptr,
					       void *stream, int mem)
{
	int pooled = in_pool(rt, ptr);
	uint32_t target = NONE32;
	if (rt->nwatch)
		watch_swapins(rt);
	if (rt->phase == PH_FOLLOW) {
		uint32_t r = NONE32;
		int match = 0;
		if (rt->k < rt->end) {
			uint32_t c = clock_now(rt);
			if (c == CLOCK_FOREIGN) {
				match = !pooled;
			} else if (c & 1) {
				r = c >> 1;
				match = rt->req[r].real == ptr ||
					(rt->req[r].live == LIVE_POOL &&
					 rt->req[r].ptr == ptr);
			}
		}
		if (match) {
			int real = r == NONE32 || rt->req[r].real == ptr;
			if (r != NONE32 && real)
				rt->req[r].real = NULL;
			else if (r != NONE32)
				release_pool(rt, r, stream);
			advance(rt);
			if (real)
				rt->st.real_frees++;
			rt_unlock(&rt->lock);
			return real ? rt->be->free(ptr, mem, stream) : 0;
		}
		char what[64];
		snprintf(what, sizeof(what), "a free of %s",
			 pooled ? "a pool buffer" : "a buffer of the real allocator");
		/* what the free may release is decided before the divergence
		 * brings swapped bytes back */
		if (pooled)
			target = free_target(rt, ptr, rt->use_pool);
		mismatch(rt, what);
	} else if (pooled) {
		target = free_target(rt, ptr, 0);
	}
	if (pooled) {
		int rc = 0;
		if (target == NONE32) {
			warn(rt, W_BADFREE,
			     "a free of pool address %p, which holds no live buffer the runtime can release, was refused (invalid value)",
			     ptr);
			rc = RUNTIME_EINVAL;
		} else {
			release_pool(rt, target, stream);
		}
		rt_unlock(&rt->lock);
		return rc;
	}
	rt->st.real_frees++;
	rt_unlock(&rt->lock);
	return rt->be->free(ptr, mem, stream);
}

/* runtime_free(); inlined into both ways in. */
static inline __attribute__((always_inline)) int
free_hot(mp_runtime *rt, void *ptr, void *stream, int mem)
{
	if (!ptr)
		return 0;
	if (rt->be->stream_capturing(stream))
		return capture_free(rt, ptr, stream, mem);
	rt_lock(&rt->lock);
	const struct rt_hot_free *f = &rt->hf[rt->cf];
	if (hot(rt) && f->at == rt->k) {
		uint32_t r = f->r;
		struct rt_req *q = &rt->req[r];
		int sl = rt->last_stream;
		if (q->real == ptr) { /* passed through: back to its allocator */
			q->real = NULL;
			rt->st.real_frees++;
			advance(rt);
			rt_unlock(&rt->lock);
			return rt->be->free(ptr, mem, stream);
		}
		/* release_pool() of a buffer on top at its offset, without
		 * swaps, borrowed bytes or other streams' uses, freed on the
		 * last stream */
		uint32_t *top = &rt->slot_top[rt->slot[r]];
		if (q->ptr == ptr && q->live == LIVE_POOL && !f->cold &&
		    *top == r && !(q->side | q->side_lost) && !rt->npending &&
		    rt->streams[sl].handle == stream) {
			*top = q->below;
			if (q->below != NONE32) /* its address now names two frees */
				rt->req[q->below].covered = 1;
			q->below = NONE32;
			q->live = LIVE_NO;
			q->ptr = NULL;
			rt->streams[q->stream].refs--;
			rt->live_pool--;
			rt->st.pool_frees++;
			count_free(rt, sl);
			advance(rt);
			rt_unlock(&rt->lock);
			return 0;
		}
	}
	return free_full(rt, ptr, stream, mem);
}

int runtime_free(mp_runtime *rt, void *ptr, void *stream, int mem)
{
	return free_hot(rt, ptr, stream, mem);
}

/* --- the C API ------------------------------------------------------------- */

void runtime_record_stream(mp_runtime *rt, void *ptr, void *stream)
{
	if (!in_pool(rt, ptr) || rt->be->stream_capturing(stream))
		return;
	rt_lock(&rt->lock);
	uint32_t r = find_live(rt, ptr);
	if (r != NONE32 && rt->req[r].live == LIVE_POOL && rt->req[r].ptr == ptr) {
		struct rt_req *q = &rt->req[r];
		int sl = stream_slot(rt, stream);
		if (sl >= 0 && !rt->ev_side[sl] &&
		    rt->be->event_create(&rt->ev_side[sl]))
			rt->ev_side[sl] = NULL;
		if (sl < 0 || !rt->ev_side[sl]) {
			q->side_lost = 1;
		} else if (sl != q->stream && !(q->side >> sl & 1)) {
			q->side |= 1u << sl;
			rt->streams[sl].refs++; /* the slot stays this stream's */
		}
	}
	rt_unlock(&rt->lock);
}

/* An iteration left before its end (what: how): a divergence that says
 * how far it got in the plan, or in its workload of a cycle. */
static void diverge_early(mp_runtime *rt, const char *what)
{
	char whose[48] = "the plan's";
	if (rt->nseg > 1)
		snprintf(whose, sizeof(whose), "workload %u's", rt->seg);
	diverge(rt, "%s after %llu of %s %llu requests", what,
		(unsigned long long)(rt->k - rt->seg_begin[rt->seg]), whose,
		(unsigned long long)(rt->end - rt->seg_begin[rt->seg]));
}

/* An explicit begin of workload w's iteration, under the lock; w past the
 * plan's workloads leaves the runtime idle (the real allocator serves
 * everything until the next begin). */
static void begin(mp_runtime *rt, uint32_t w)
{
	rt->explicit_mode = 1;
	if (rt->phase == PH_FOLLOW)
		diverge_early(rt, "a new iteration began");
	rt->last_complete = 0;
	if (w < rt->nseg && rt->plan.nrequests)
		start(rt, w, rt->seg_begin[w], 1);
}

void mp_iteration_begin(mp_runtime *rt)
{
	rt_lock(&rt->lock);
	begin(rt, rt->seg_next);
	rt_unlock(&rt->lock);
}

int mp_workload_begin(mp_runtime *rt, unsigned workload)
{
	rt_lock(&rt->lock);
	int bad = workload >= rt->nseg;
	if (bad)
		warn(rt, W_DIVERGE,
		     "mp_workload_begin(%u): the plan has %u workload%s: the real allocator serves this iteration",
		     workload, rt->nseg, rt->nseg == 1 ? "" : "s");
	begin(rt, workload);
	rt_unlock(&rt->lock);
	return bad ? -1 : 0;
}

unsigned mp_workload_count(const mp_runtime *rt)
{
	return rt->nseg; /* read-only after open */
}

int mp_iteration_end(mp_runtime *rt)
{
	rt_lock(&rt->lock);
	rt->explicit_mode = 1;
	if (rt->phase == PH_FOLLOW)
		diverge_early(rt, "the iteration ended");
	int ok = rt->last_complete;
	rt->last_complete = 0;
	rt_unlock(&rt->lock);
	return ok;
}

void *mp_alloc(mp_runtime *rt, size_t size, void *stream)
{
	int rc;
	return alloc_hot(rt, size, stream, MP_MEM_RUNTIME, &rc);
}

void mp_free(mp_runtime *rt, void *ptr, void *stream)
{
	free_hot(rt, ptr, stream, MP_MEM_RUNTIME);
}

int mp_owns(const mp_runtime *rt, const void *ptr)
{
	return rt && in_pool(rt, ptr);
}

void *mp_pool(const mp_runtime *rt, size_t *size)
{
	if (size)
		*size = rt->pool ? (size_t)rt->pool_size : 0;
	return rt->pool;
}

void mp_stats_get(mp_runtime *rt, struct mp_stats *out)
{
	rt_lock(&rt->lock);
	*out = rt->st;
	rt_unlock(&rt->lock);
}

int mp_last_problem(mp_runtime *rt, char *buf, size_t len)
{
	rt_lock(&rt->lock);
	int have = rt->problem[0] != 0;
	if (buf && len)
		snprintf(buf, len, "%s", rt->problem);
	rt_unlock(&rt->lock);
	return have;
}

const struct mp_backend *runtime_backend(const mp_runtime *rt)
{
	return rt->be;
}

const struct mp_plan *runtime_plan(const mp_runtime *rt)
{
	return &rt->plan;
}

int runtime_device(const mp_runtime *rt)
{
	return rt->device;
}

/* --- open and close ---------------------------------------------------------- */

static void release(mp_runtime *rt)
{
	const struct mp_backend *be = rt->be;
	if (rt->copy_stream) {
		be->stream_sync(rt->copy_stream);
		be->stream_destroy(rt->copy_stream);
	}
	/* nev, not the plan's count: a runtime that failed to open has
	 * given its plan back already */
	for (uint32_t w = 0; w < rt->nev; w++) {
		if (rt->ev_out && rt->ev_out[w])
			be->event_destroy(rt->ev_out[w]);
		if (rt->ev_in && rt->ev_in[w])
			be->event_destroy(rt->ev_in[w]);
	}
	free(rt->ev_out);
	free(rt->ev_in);
	for (uint32_t r = 0; r < rt->nfev; r++)
		if (rt->ev_free[r])
			be->event_destroy(rt->ev_free[r]);
	free(rt->ev_free);
	for (int i = 0; i < RT_STREAMS; i++)
		if (rt->ev_side[i])
			be->event_destroy(rt->ev_side[i]);
	if (rt->scratch)
		be->event_destroy(rt->scratch);
	if (rt->staging)
		be->host_free(rt->staging);
	if (rt->pool_mem)
		be->free(rt->pool_mem, MP_MEM_RUNTIME | MP_MEM_OWN, NULL);
	free(rt->ha);
	free(rt->hf);
	free(rt->req);
	free(rt->slot);
	free(rt->offs);
	free(rt->slot_top);
	free(rt->own0);
	free(rt->wait0);
	free(rt->waits);
	free(rt->borrow0);
	free(rt->borrowers);
	free(rt->outs);
	free(rt->ins);
	free(rt->prev_lower);
	free(rt->swap_state);
	free(rt->watch);
	mp_plan_free(&rt->plan);
	pthread_cond_destroy(&rt->lock.wait_cond);
	pthread_mutex_destroy(&rt->lock.wait_mutex);
	free(rt);
}

/* An event for each entry that borrows a swap's bytes, which its frees
 * record (release_marks).  0, -1 out of memory, or the backend's code. */
static int take_free_events(mp_runtime *rt)
{
	uint32_t n = rt->plan.nallocs;
	if (!(rt->ev_free = calloc(n ? n : 1, sizeof(*rt->ev_free))))
		return -1;
	rt->nfev = n;
	for (uint32_t r = 0; r < n; r++) {
		int rc;
		if (rt->wait0[r + 1] > rt->wait0[r] &&
		    (rc = rt->be->event_create(&rt->ev_free[r]))) {
			rt->ev_free[r] = NULL;
			return rc;
		}
	}
	return 0;
}

/* Takes the pool, staging, copy stream and events on the runtime's device
 * (made current for the while).  0 or -1 with err. */
static int take_resources(mp_runtime *rt, char *err, size_t errlen)
{
	const struct mp_backend *be = rt->be;
	const struct mp_plan *p = &rt->plan;
	int prev = 0, rc;
	if ((rc = be->get_device(&prev)) ||
	    (prev != rt->device && (rc = be->set_device(rt->device)))) {
		seterr(err, errlen, "cannot make device %d current: %s",
		       rt->device, be->error_string(rc));
		return -1;
	}
	int bad = 0;
	if (p->pool_size) {
		/* a base aligned to the plan's alignment, so that every planned
		 * offset is aligned in memory too */
		uint64_t extra = p->pool_align > 256 ? p->pool_align - 1 : 0;
		if (p->pool_size > SIZE_MAX - extra) {
			seterr(err, errlen, "the pool of %llu bytes is larger than this machine can address",
			       (unsigned long long)p->pool_size);
			bad = 1;
		} else if ((rc = be->alloc(&rt->pool_mem, (size_t)(p->pool_size + extra),
					   MP_MEM_RUNTIME | MP_MEM_OWN, NULL))) {
			rt->pool_mem = NULL;
			seterr(err, errlen, "cannot take the pool of %llu bytes on device %d: %s",
			       (unsigned long long)p->pool_size, rt->device,
			       be->error_string(rc));
			bad = 1;
		} else {
			uintptr_t b = (uintptr_t)rt->pool_mem;
			b = (b + (uintptr_t)extra) & ~(uintptr_t)extra;
			rt->pool = (char *)b;
			rt->pool_size = p->pool_size;
			rt->st.pool_bytes = p->pool_size;
		}
	}
	if (!bad && (rc = be->event_create(&rt->scratch))) {
		rt->scratch = NULL;
		seterr(err, errlen, "cannot create an event: %s", be->error_string(rc));
		bad = 1;
	}
	if (!bad && p->nswaps) {
		if ((rc = be->stream_create(&rt->copy_stream))) {
			rt->copy_stream = NULL;
			seterr(err, errlen, "cannot create the copy stream: %s",
			       be->error_string(rc));
			bad = 1;
		} else if (p->host_staging > SIZE_MAX ||
			   (rc = be->host_alloc((void **)&rt->staging,
						(size_t)p->host_staging))) {
			rt->staging = NULL;
			seterr(err, errlen, "cannot take %llu bytes of pinned host staging: %s",
			       (unsigned long long)p->host_staging,
			       rc ? be->error_string(rc) : "too large");
			bad = 1;
		} else if (!(rt->ev_out = calloc(p->nswaps, sizeof(*rt->ev_out))) ||
			   !(rt->ev_in = calloc(p->nswaps, sizeof(*rt->ev_in)))) {
			seterr(err, errlen, "out of memory for %u swap events", p->nswaps);
			bad = 1;
		} else {
			rt->nev = p->nswaps;
			for (uint32_t w = 0; w < p->nswaps && !bad; w++) {
				if ((rc = be->event_create(&rt->ev_out[w])))
					rt->ev_out[w] = NULL;
				else if ((rc = be->event_create(&rt->ev_in[w])))
					rt->ev_in[w] = NULL;
				if (rc) {
					seterr(err, errlen, "cannot create swap events: %s",
					       be->error_string(rc));
					bad = 1;
				}
			}
		}
		if (!bad && (bad = take_free_events(rt)))
			seterr(err, errlen, "cannot create the events of the swaps' borrowers: %s",
			       bad < 0 ? "out of memory" : be->error_string(bad));
		if (!bad) {
			rt->copy_slot = stream_slot(rt, rt->copy_stream);
		}
	}
	if (prev != rt->device)
		be->set_device(prev);
	return bad ? -1 : 0;
}

mp_runtime *runtime_open_plan(struct mp_plan *plan, const struct mp_backend *be,
			      const struct mp_options *opt, char *err,
			      size_t errlen)
{
	struct mp_options defaults;
	if (!opt) {
		mp_options_init(&defaults);
		opt = &defaults;
	}
	if (plan->nrequests >= UINT32_MAX || plan->nallocs >= UINT32_MAX / 2) {
		seterr(err, errlen, "the plan has %llu requests; the runtime follows at most %lu",
		       (unsigned long long)plan->nrequests,
		       (unsigned long)(UINT32_MAX / 2 - 1));
		return NULL;
	}
	/* CUDA memory: kernels rely on cudaMalloc's 256 bytes; the host
	 * backend (tests, replay) follows any alignment */
	if (!strcmp(be->name, "cuda") && plan->pool_align < MP_PLAN_DEVICE_ALIGN) {
		seterr(err, errlen, "the plan's alignment is %llu, below the %llu bytes CUDA allocations guarantee (compile it again, with --align %llu for a MiniMalloc CSV)",
		       (unsigned long long)plan->pool_align,
		       (unsigned long long)MP_PLAN_DEVICE_ALIGN,
		       (unsigned long long)MP_PLAN_DEVICE_ALIGN);
		return NULL;
	}
	int ndev = 0, rc;
	if ((rc = be->device_count(&ndev))) {
		seterr(err, errlen, "cannot count devices: %s", be->error_string(rc));
		return NULL;
	}
	int dev = opt->device >= 0 ? opt->device : plan->device;
	if (dev < 0 && (rc = be->get_device(&dev))) {
		seterr(err, errlen, "cannot get the current device: %s",
		       be->error_string(rc));
		return NULL;
	}
	if (dev >= ndev) {
		seterr(err, errlen, "the plan is for device %d, and this machine has %d device%s",
		       dev, ndev, ndev == 1 ? "" : "s");
		return NULL;
	}
	mp_runtime *rt = calloc(1, sizeof(*rt));
	if (!rt) {
		seterr(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&rt->lock.wait_mutex, NULL);
	pthread_cond_init(&rt->lock.wait_cond, NULL);
	rt->be = be;
	rt->plan = *plan;
	memset(plan, 0, sizeof(*plan));
	rt->device = dev;
	rt->verbose = opt->verbose;
	rt->match = opt->match ? opt->match : DEFAULT_MATCH;
	rt->on_unsafe = opt->on_unsafe;
	rt->copy_slot = -1;
	rt->explicit_mode = opt->explicit_iterations != 0;
	if ((rc = derive(rt))) {
		if (rc == -2)
			seterr(err, errlen, "the plan's %u swaps are borrowed more than %d times per entry: not a plan memplan-plan writes",
			       rt->plan.nswaps, RT_BORROWS_PER_ENTRY);
		else
			seterr(err, errlen, "out of memory following a plan of %u requests",
			       rt->plan.nallocs);
		goto fail;
	}
	if (take_resources(rt, err, errlen))
		goto fail;
	return rt;
fail:
	/* the caller keeps its plan */
	*plan = rt->plan;
	memset(&rt->plan, 0, sizeof(rt->plan));
	release(rt);
	return NULL;
}

int runtime_plan_admit(const struct mp_plan *plan, const struct mp_options *opt,
		       char *err, size_t errlen)
{
	struct mp_options defaults;
	if (!opt) {
		mp_options_init(&defaults);
		opt = &defaults;
	}
	if (!(plan->flags & MP_PLAN_TRUSTS_HOLES))
		return 0;
	if (opt->on_unsafe == MP_ON_UNSAFE_ABORT) {
		seterr(err, errlen, "the plan was compiled with --trust-holes: it is valid only if something else moves the trace's holes, which the runtime does not (not followed; MEMPLAN_ON_UNSAFE=warn follows it)");
		return -1;
	}
	if (opt->verbose >= 0)
		fprintf(stderr, "memplan: warning: the plan was compiled with --trust-holes: it is valid only if something else moves the trace's holes, which the runtime does not (followed, since MEMPLAN_ON_UNSAFE=warn asked for it)\n");
	return 0;
}

mp_runtime *mp_open(const char *path, const struct mp_options *opt, char *err,
		    size_t errlen)
{
	struct mp_plan plan;
	const struct mp_backend *be;
	if (opt && opt->backend == MP_BACKEND_HOST)
		be = mp_backend_host();
	else if (!(be = mp_backend_cuda(err, errlen)))
		return NULL;
	if (mp_plan_read_file(path, &plan, err, errlen))
		return NULL;
	if (runtime_plan_admit(&plan, opt, err, errlen)) {
		mp_plan_free(&plan);
		return NULL;
	}
	mp_runtime *rt = runtime_open_plan(&plan, be, opt, err, errlen);
	mp_plan_free(&plan);
	return rt;
}

void mp_close(mp_runtime *rt)
{
	if (rt)
		release(rt);
}
