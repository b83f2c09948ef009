/* SPDX-License-Identifier: MIT */
/*
 * test_runtime.c - the runtime's state machine on the host backend, through
 * the public C API: planned offsets, explicit and recognised iterations,
 * divergence (size, order, count) and the return to the plan, pools still in
 * use, pass-through and foreign frees, swaps keeping a buffer's bytes while
 * another one borrows them (also across a divergence, brought back
 * synchronously, and with two borrowers, at the last one's free), late
 * copies seen through the host backend's simulated copy delay, second frees
 * refused, two swaps meeting at an ordinal, a plan claiming 2^32 requests,
 * more streams than slots (the least recently used one's given up), the trace's streams bound at first sight and a
 * request that contradicts them (STREAMS), the ordering each swap and reuse
 * asks of the backend (a logging backend; a copy-in waits for its
 * borrowers' frees alone; record_stream's side streams), every kind of bad
 * plan file, a plan trusting the trace's holes refused unless asked for, a cycle of two workloads taking turns (explicit, named,
 * recognised, out of order, a malformed cycle refused), and many
 * threads allocating at once (--threads: that alone, longer, for `make check-threads` under
 * ThreadSanitizer).
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime_backend.h"
#include "memplan.h"
#include "plan.h"
#include "replay.h"
#include "runtime.h"
#include "tap.h"

#define KiB 1024u

static char err[1024];
static char dir[] = "/tmp/memplan-test-runtime.XXXXXX";

/*
 * The plan most tests follow: clock ordinals 0..7
 *   0 alloc A 64K @0   1 alloc C 32K @64K   [A out after 1]
 *   2 alloc B 64K @0 (borrows A's bytes)   3 free B   [A in after 3]
 *   4 alloc E 16K @96K   5 free A   6 free C   7 free E
 * With foreign = 1 a free of a buffer from before the iteration comes
 * first (every ordinal one later), and E passes through when pass = 1.
 */
static void make_plan(struct mp_plan *p, int swaps, int foreign, int pass)
{
	static const uint64_t sz[] = { 64 * KiB, 32 * KiB, 64 * KiB, 16 * KiB };
	static const uint64_t off[] = { 0, 64 * KiB, 0, 96 * KiB };
	static const uint64_t lo[] = { 0, 1, 2, 4 }, up[] = { 5, 6, 3, 7 };
	memset(p, 0, sizeof(*p));
	p->version = MP_PLAN_VERSION;
	p->pool_align = 256;
	p->pool_size = 112 * KiB;
	p->lower_bound = 112 * KiB;
	p->device = 0;
	p->nrequests = 8 + (uint64_t)foreign;
	p->nallocs = 4;
	p->allocs = calloc(4, sizeof(*p->allocs));
	for (int i = 0; i < 4; i++) {
		p->allocs[i] = (struct mp_plan_alloc){
			sz[i], off[i], (uint64_t)i, lo[i] + (uint64_t)foreign,
			up[i] + (uint64_t)foreign, 0 };
	}
	if (pass)
		p->allocs[3].offset = MP_PLAN_PASS_THROUGH;
	p->fingerprint = mp_plan_fingerprint(sz, 4);
	snprintf(p->strategy, sizeof(p->strategy), "test");
	if (swaps) {
		p->nswaps = 1;
		p->host_staging = 64 * KiB;
		p->swaps = calloc(1, sizeof(*p->swaps));
		p->swaps[0] = (struct mp_plan_swap){ 0, 1 + (uint64_t)foreign,
						     3 + (uint64_t)foreign, 0,
						     64 * KiB, 0, 0 };
	}
}

static char *write_plan(const char *name, struct mp_plan *p)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (mp_plan_write_file(path, p, err, sizeof(err)))
		printf("# write %s: %s\n", path, err);
	mp_plan_free(p);
	return path;
}

static mp_runtime *open_host(const char *path, unsigned match)
{
	struct mp_options o;
	static int said;
	mp_options_init(&o);
	if (!said++)
		CHECK(o.on_unsafe == MP_ON_UNSAFE_ABORT,
		      "mp_options_init: an unsafe state stops the program unless asked otherwise");
	o.backend = MP_BACKEND_HOST;
	o.verbose = -1;
	o.match = match;
	/* these tests follow the way back past a lent swap: asked to go on */
	o.on_unsafe = MP_ON_UNSAFE_WARN;
	mp_runtime *rt = mp_open(path, &o, err, sizeof(err));
	if (!rt)
		printf("# mp_open: %s\n", err);
	return rt;
}

static int intact(const void *p, size_t n, uint32_t buf)
{
	struct replay_bad bad;
	return p && !replay_check(p, n, 0, buf, 0, &bad);
}

/* One iteration of the plan's requests; pointers come back in ptr[4]. */
static void run_iteration(mp_runtime *rt, void *ptr[4], int check_swap)
{
	ptr[0] = mp_alloc(rt, 64 * KiB, NULL);
	replay_fill(ptr[0], 64 * KiB, 0, 0, 0);
	ptr[1] = mp_alloc(rt, 32 * KiB, NULL);
	ptr[2] = mp_alloc(rt, 64 * KiB, NULL);
	replay_fill(ptr[2], 64 * KiB, 0, 2, 0);
	mp_free(rt, ptr[2], NULL);
	ptr[3] = mp_alloc(rt, 16 * KiB, NULL);
	if (check_swap)
		CHECK(intact(ptr[0], 64 * KiB, 0),
		      "  ... A's bytes are back after B borrowed them");
	mp_free(rt, ptr[0], NULL);
	mp_free(rt, ptr[1], NULL);
	mp_free(rt, ptr[3], NULL);
}

static void test_explicit(void)
{
	struct mp_plan p;
	make_plan(&p, 1, 0, 0);
	mp_runtime *rt = open_host(write_plan("swap.plan", &p), 0);
	CHECK(rt != NULL, "open a plan with a swap on the host backend");
	if (!rt)
		return;
	size_t psize;
	char *pool = mp_pool(rt, &psize);
	CHECK_EQ_U64(psize, 112 * KiB, "  ... the pool has the plan's size");
	void *ptr[4];
	for (int it = 0; it < 3; it++) {
		mp_iteration_begin(rt);
		ptr[0] = mp_alloc(rt, 64 * KiB, NULL);
		replay_fill(ptr[0], 64 * KiB, 0, 0, 0);
		ptr[1] = mp_alloc(rt, 32 * KiB, NULL);
		ptr[2] = mp_alloc(rt, 64 * KiB, NULL);
		CHECK(ptr[0] == pool && ptr[1] == pool + 64 * KiB && ptr[2] == pool,
		      "  ... each request gets pool + its offset (B over swapped-out A)");
		replay_fill(ptr[2], 64 * KiB, 0, 2, 0);
		mp_free(rt, ptr[2], NULL);
		CHECK(intact(ptr[0], 64 * KiB, 0), "  ... A is back once B is freed");
		ptr[3] = mp_alloc(rt, 16 * KiB, NULL);
		CHECK(ptr[3] == pool + 96 * KiB, "  ... E at 96K");
		mp_free(rt, ptr[0], NULL);
		mp_free(rt, ptr[1], NULL);
		mp_free(rt, ptr[3], NULL);
		CHECK(mp_iteration_end(rt) == 1, "  ... the iteration followed the plan");
	}
	struct mp_stats s;
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.planned_allocs, 12, "  ... 12 planned allocations");
	CHECK_EQ_U64(s.completed, 3, "  ... 3 iterations completed");
	CHECK_EQ_U64(s.swaps_out, 3, "  ... 3 swap-outs");
	CHECK_EQ_U64(s.swaps_in, 3, "  ... 3 swap-ins");
	CHECK_EQ_U64(s.swap_bytes_out, 3 * 64 * KiB, "  ... 192K copied out");
	CHECK_EQ_U64(s.swap_bytes_in, 3 * 64 * KiB, "  ... and back");
	CHECK_EQ_U64(s.swapout_late + s.swapin_late + s.sync_swapins, 0,
		     "  ... copies that take no time are never late");
	CHECK_EQ_U64(s.divergences + s.fallback_allocs, 0, "  ... nothing else");
	mp_close(rt);
}

static void test_auto(void)
{
	struct mp_plan p;
	make_plan(&p, 1, 0, 0);
	mp_runtime *rt = open_host(write_plan("auto.plan", &p), 2);
	if (!rt)
		return;
	/* before: unrelated requests, one with the first size */
	void *x = mp_alloc(rt, 64 * KiB, NULL), *y = mp_alloc(rt, 4 * KiB, NULL);
	CHECK(x && !mp_owns(rt, x) && y && !mp_owns(rt, y),
	      "requests before any iteration go to the real allocator");
	mp_free(rt, y, NULL);
	mp_free(rt, x, NULL);
	void *ptr[4];
	run_iteration(rt, ptr, 0);
	CHECK(!mp_owns(rt, ptr[0]) && !mp_owns(rt, ptr[1]),
	      "  ... the first 2 allocs of a recognised iteration are real");
	CHECK(mp_owns(rt, ptr[2]) && mp_owns(rt, ptr[3]),
	      "  ... the rest come from the pool");
	run_iteration(rt, ptr, 1);
	CHECK(mp_owns(rt, ptr[0]) && mp_owns(rt, ptr[1]),
	      "  ... the next iteration follows from its first request");
	x = mp_alloc(rt, 4 * KiB, NULL);
	mp_free(rt, x, NULL);
	run_iteration(rt, ptr, 1);
	CHECK(!mp_owns(rt, ptr[0]) && !mp_owns(rt, ptr[1]) && mp_owns(rt, ptr[2]),
	      "  ... after a request between iterations, the next one is recognised anew");
	struct mp_stats s;
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.iterations, 3, "  ... 3 iterations followed");
	CHECK_EQ_U64(s.completed, 3, "  ... all to their end");
	CHECK_EQ_U64(s.planned_allocs, 8, "  ... 8 planned allocations");
	CHECK_EQ_U64(s.swaps_out, 1, "  ... the swap ran where its buffer was in the pool");
	CHECK_EQ_U64(s.divergences, 0, "  ... no divergence");
	mp_close(rt);
}

static void test_divergence(void)
{
	struct mp_plan p;
	make_plan(&p, 1, 0, 0);
	mp_runtime *rt = open_host(write_plan("div.plan", &p), 0);
	if (!rt)
		return;
	char why[400];
	CHECK(!mp_last_problem(rt, why, sizeof(why)), "no problem before any request");
	/* a size that does not match */
	mp_iteration_begin(rt);
	void *a = mp_alloc(rt, 64 * KiB, NULL);
	void *c = mp_alloc(rt, 1000, NULL);
	CHECK(mp_owns(rt, a) && c && !mp_owns(rt, c),
	      "a size that does not match goes to the real allocator");
	void *b = mp_alloc(rt, 64 * KiB, NULL);
	CHECK(b && !mp_owns(rt, b), "  ... and so does the rest of the iteration");
	CHECK(mp_last_problem(rt, why, sizeof(why)), "  ... a problem is recorded");
	CHECK_STR_HAS(why, "request 1 of the iteration is an alloc of 1000 bytes where the plan has an alloc of 32768 bytes",
		      "  ... saying which request and what was expected");
	mp_free(rt, b, NULL);
	mp_free(rt, a, NULL);
	mp_free(rt, c, NULL);
	CHECK(mp_iteration_end(rt) == 0, "  ... the iteration did not follow the plan");
	void *ptr[4];
	mp_iteration_begin(rt);
	run_iteration(rt, ptr, 1);
	CHECK(mp_iteration_end(rt) == 1, "  ... the next one does again");

	/* order: a free where an alloc is planned, while A is out and B
	 * borrows its bytes: A comes back when B goes */
	mp_iteration_begin(rt);
	a = mp_alloc(rt, 64 * KiB, NULL);
	replay_fill(a, 64 * KiB, 0, 0, 0);
	c = mp_alloc(rt, 32 * KiB, NULL);
	b = mp_alloc(rt, 64 * KiB, NULL);
	replay_fill(b, 64 * KiB, 0, 2, 0);
	mp_free(rt, c, NULL); /* the plan has B's free here */
	CHECK(mp_last_problem(rt, why, sizeof(why)), "a free out of order diverges");
	CHECK_STR_HAS(why, "where the plan has the free of plan entry 2", "  ... saying so");
	void *d = mp_alloc(rt, 64 * KiB, NULL);
	CHECK(d && !mp_owns(rt, d), "  ... later requests are real");
	mp_free(rt, b, NULL);
	CHECK(intact(a, 64 * KiB, 0), "  ... A is swapped back once B is freed");
	mp_free(rt, a, NULL);
	mp_free(rt, d, NULL);
	mp_iteration_end(rt);

	/* count: an iteration ending early, its buffers still live */
	mp_iteration_begin(rt);
	a = mp_alloc(rt, 64 * KiB, NULL);
	CHECK(mp_iteration_end(rt) == 0, "an iteration that ends early did not follow the plan");
	mp_iteration_begin(rt);
	b = mp_alloc(rt, 64 * KiB, NULL);
	CHECK(b && b != a && !mp_owns(rt, b),
	      "  ... the next one is not followed while a pool buffer is live");
	mp_free(rt, b, NULL);
	mp_free(rt, a, NULL);
	mp_iteration_end(rt);
	mp_iteration_begin(rt);
	run_iteration(rt, ptr, 1);
	CHECK(mp_iteration_end(rt) == 1, "  ... and once it is freed, the plan is followed again");
	struct mp_stats s;
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.divergences, 4, "  ... 4 divergences counted (size, order, count, and the skipped one)");
	CHECK_EQ_U64(s.skipped, 1, "  ... 1 iteration skipped");
	CHECK_EQ_U64(s.completed, 2, "  ... 2 completed");
	mp_close(rt);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The host backend's copies take DELAY_MS each (simulated: the bytes move at
 * once, events and syncs follow the simulated time). */
#define DELAY_MS 40

/* A divergence while A is out: with B borrowing its bytes, A comes back
 * when B is freed; without a borrower, at once.  Either way the request
 * that brings it back returns only once the copy has ended. */
static void test_divergence_swapped(void)
{
	struct mp_plan p;
	make_plan(&p, 1, 0, 0);
	mp_runtime *rt = open_host(write_plan("divswap.plan", &p), 0);
	if (!rt)
		return;
	mp_backend_host_delay(DELAY_MS * 1000);
	struct mp_stats s;

	/* borrowed: B over A when the requests stop matching */
	mp_iteration_begin(rt);
	void *a = mp_alloc(rt, 64 * KiB, NULL);
	replay_fill(a, 64 * KiB, 0, 0, 0);
	void *c = mp_alloc(rt, 32 * KiB, NULL); /* A goes out */
	void *b = mp_alloc(rt, 64 * KiB, NULL);
	CHECK(b == a, "a divergence with a swap out and borrowed: B is over A");
	replay_fill(b, 64 * KiB, 0, 2, 0);
	void *x = mp_alloc(rt, 1000, NULL); /* the plan has B's free */
	CHECK(x && !mp_owns(rt, x), "  ... the request that differs is real");
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.swapout_late, 1, "  ... B came while A's copy-out still ran (swapout_late)");
	CHECK_EQ_U64(s.sync_swapins, 0, "  ... A stays out while B lives");
	double t0 = now_ms();
	mp_free(rt, b, NULL);
	double waited = now_ms() - t0;
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.sync_swapins, 1, "  ... B's free brings A back synchronously (counted)");
	CHECK(waited >= DELAY_MS / 2, "  ... the free returned once the copy had ended");
	printf("# waited %.1f ms for a copy of %d ms\n", waited, DELAY_MS);
	CHECK(intact(a, 64 * KiB, 0), "  ... A's bytes are intact");
	mp_free(rt, x, NULL);
	mp_free(rt, c, NULL);
	mp_free(rt, a, NULL);
	CHECK(mp_iteration_end(rt) == 0, "  ... the iteration did not follow the plan");

	/* not borrowed: the divergence comes before B */
	mp_iteration_begin(rt);
	a = mp_alloc(rt, 64 * KiB, NULL);
	replay_fill(a, 64 * KiB, 0, 0, 0);
	c = mp_alloc(rt, 32 * KiB, NULL); /* A goes out */
	t0 = now_ms();
	x = mp_alloc(rt, 2000, NULL); /* the plan has B, 64K */
	waited = now_ms() - t0;
	mp_stats_get(rt, &s);
	CHECK(x && !mp_owns(rt, x), "a divergence with a swap out, not borrowed: the request is real");
	CHECK_EQ_U64(s.sync_swapins, 2, "  ... A came back at once (counted)");
	CHECK(waited >= DELAY_MS / 2, "  ... and the request returned once the copy had ended");
	CHECK(intact(a, 64 * KiB, 0), "  ... A's bytes are intact");
	b = mp_alloc(rt, 64 * KiB, NULL);
	CHECK(b && !mp_owns(rt, b), "  ... later requests are real");
	replay_fill(b, 64 * KiB, 0, 2, 0);
	CHECK(intact(a, 64 * KiB, 0), "  ... and nothing is placed over A");
	mp_free(rt, b, NULL);
	mp_free(rt, x, NULL);
	mp_free(rt, c, NULL);
	mp_free(rt, a, NULL);
	mp_iteration_end(rt);

	/* the plan is followed again: slow copies are late, not wrong */
	void *ptr[4];
	mp_iteration_begin(rt);
	run_iteration(rt, ptr, 1);
	CHECK(mp_iteration_end(rt) == 1, "after them, an iteration with slow copies follows the plan");
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.swapout_late, 2, "  ... B came while A's copy-out still ran (swapout_late, again)");
	CHECK_EQ_U64(s.swapin_late, 1, "  ... E came while A's copy-in still ran (swapin_late)");
	CHECK_EQ_U64(s.divergences, 2, "  ... 2 divergences");
	CHECK_EQ_U64(s.swaps_out, 3, "  ... 3 swap-outs");
	CHECK_EQ_U64(s.swaps_in, 3, "  ... 3 swap-ins, 2 of them on a divergence");
	CHECK_EQ_U64(s.swap_bytes_in, s.swap_bytes_out, "  ... every byte out came back");
	mp_close(rt);
	mp_backend_host_delay(0);
}

/* One explicit iteration of make_plan's requests (no swap) with A, C, B, E
 * on streams sa, sc, sb, se; returns mp_iteration_end() and leaves in
 * owned how many of the four came from the pool. */
static int streamed_iteration(mp_runtime *rt, void *sa, void *sc, void *sb,
			      void *se, int *owned)
{
	mp_iteration_begin(rt);
	void *a = mp_alloc(rt, 64 * KiB, sa);
	void *c = mp_alloc(rt, 32 * KiB, sc);
	void *b = mp_alloc(rt, 64 * KiB, sb);
	mp_free(rt, b, sb);
	void *e = mp_alloc(rt, 16 * KiB, se);
	*owned = mp_owns(rt, a) + mp_owns(rt, c) + mp_owns(rt, b) + mp_owns(rt, e);
	mp_free(rt, a, sa);
	mp_free(rt, c, sc);
	mp_free(rt, e, se);
	return mp_iteration_end(rt);
}

/* The STREAMS section (issue 22): the trace's stream ordinals are bound to
 * the program's streams at first sight in each iteration, and a request
 * that contradicts the binding is a divergence served by the real
 * allocator.  A plan without the section checks nothing. */
static void test_streams(void)
{
	void *s0 = (void *)0x100, *s1 = (void *)0x200, *s2 = (void *)0x300;
	static const uint32_t ord[4] = { 0, 1, 0, 1 }; /* A C B E */
	struct mp_plan p;
	make_plan(&p, 0, 0, 0);
	p.streams = malloc(sizeof(ord));
	memcpy(p.streams, ord, sizeof(ord));
	p.has_streams = 1;
	mp_runtime *rt = open_host(write_plan("streams.plan", &p), 0);
	if (!rt)
		return;
	struct mp_stats s;
	char why[320];
	int owned;
	CHECK(streamed_iteration(rt, s0, s1, s0, s1, &owned) == 1 && owned == 4,
	      "streams as the trace has them: followed, from the pool");
	CHECK(streamed_iteration(rt, s1, s2, s1, s2, &owned) == 1 && owned == 4,
	      "  ... and on other streams, one for each of the trace's (bound anew each iteration)");
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.divergences, 0, "  ... no divergence");

	CHECK(streamed_iteration(rt, s0, s1, s1, s0, &owned) == 0 && owned == 2,
	      "the same requests with B and E on swapped streams: a divergence at B, the rest real");
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.divergences, 1, "  ... counted");
	CHECK(mp_last_problem(rt, why, sizeof(why)), "  ... and said");
	CHECK_STR_HAS(why, "request 2 of the iteration is an alloc of 65536 bytes on stream 0x200 where the plan has it on the trace's stream 0, which this iteration runs on stream 0x100",
		      "  ... naming the request, its stream, the ordinal and the stream bound to it");
	CHECK(streamed_iteration(rt, s0, s1, s2, s1, &owned) == 0 && owned == 2,
	      "B on a third stream where the trace has A's: a divergence");
	mp_last_problem(rt, why, sizeof(why));
	CHECK_STR_HAS(why, "on stream 0x300 where the plan has it on the trace's stream 0, which this iteration runs on stream 0x100",
		      "  ... naming the stream the ordinal is bound to");
	CHECK(streamed_iteration(rt, s0, s0, s0, s0, &owned) == 0 && owned == 1,
	      "C on A's stream where the trace has two: a divergence at C");
	mp_last_problem(rt, why, sizeof(why));
	CHECK_STR_HAS(why, "request 1 of the iteration is an alloc of 32768 bytes on stream 0x100, which this iteration runs the trace's stream 0 on, where the plan has it on the trace's stream 1",
		      "  ... naming the ordinal its stream is bound to");
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.divergences, 3, "  ... 3 divergences");
	CHECK_EQ_U64(s.pool_frees, s.planned_allocs, "  ... every pool buffer freed to the pool");
	CHECK(streamed_iteration(rt, s0, s1, s0, s1, &owned) == 1 && owned == 4,
	      "the next iteration as traced is followed again");
	mp_close(rt);

	/* recognised iterations: a candidate on the wrong streams is not one */
	make_plan(&p, 0, 0, 0);
	p.streams = malloc(sizeof(ord));
	memcpy(p.streams, ord, sizeof(ord));
	p.has_streams = 1;
	rt = open_host(write_plan("streams-auto.plan", &p), 2);
	if (!rt)
		return;
	for (int it = 0; it < 3; it++) {
		void *a = mp_alloc(rt, 64 * KiB, s0);
		void *c = mp_alloc(rt, 32 * KiB, it == 0 ? s0 : s1);
		void *b = mp_alloc(rt, 64 * KiB, s0);
		mp_free(rt, b, s0);
		void *e = mp_alloc(rt, 16 * KiB, s1);
		mp_free(rt, a, s0);
		mp_free(rt, c, s1);
		mp_free(rt, e, s1);
	}
	mp_stats_get(rt, &s);
	CHECK(s.completed == 2 && s.divergences == 0 && s.planned_allocs == 4 + 2,
	      "recognised: a first iteration with C on A's stream is not recognised, quietly; the others are");
	mp_close(rt);
	/* a candidate that restarts at the request that failed it binds that
	 * request's stream: C on it then fails the new candidate too */
	make_plan(&p, 0, 0, 0);
	p.streams = malloc(sizeof(ord));
	memcpy(p.streams, ord, sizeof(ord));
	p.has_streams = 1;
	rt = open_host(write_plan("streams-restart.plan", &p), 2);
	if (!rt)
		return;
	void *r1 = mp_alloc(rt, 64 * KiB, s0); /* a candidate: A */
	void *r2 = mp_alloc(rt, 64 * KiB, s1); /* not C: a new candidate, A on s1 */
	void *r3 = mp_alloc(rt, 32 * KiB, s1); /* C on A's stream: not one either */
	void *r4 = mp_alloc(rt, 64 * KiB, s1); /* a third candidate */
	mp_stats_get(rt, &s);
	CHECK(s.divergences == 0 && s.planned_allocs == 0,
	      "a candidate restarted at the request that failed the last one binds its stream");
	mp_free(rt, r1, s0);
	mp_free(rt, r2, s1);
	mp_free(rt, r3, s1);
	mp_free(rt, r4, s1);
	mp_close(rt);

	/* without the section (an older plan): nothing to check */
	make_plan(&p, 0, 0, 0);
	rt = open_host(write_plan("nostreams.plan", &p), 0);
	if (!rt)
		return;
	CHECK(streamed_iteration(rt, s0, s1, s1, s0, &owned) == 1 && owned == 4,
	      "a plan without STREAMS follows B and E on swapped streams");
	mp_close(rt);
	/* unknown ordinals: nothing to check either */
	make_plan(&p, 0, 0, 0);
	p.streams = malloc(sizeof(ord));
	for (int i = 0; i < 4; i++)
		p.streams[i] = MP_PLAN_STREAM_UNKNOWN;
	p.has_streams = 1;
	rt = open_host(write_plan("unknown-streams.plan", &p), 0);
	if (!rt)
		return;
	CHECK(streamed_iteration(rt, s0, s1, s1, s0, &owned) == 1 && owned == 4,
	      "a plan whose streams are unknown follows any streams");
	mp_close(rt);

	/* 70 requests on 70 trace streams: the first 64 are checked, the
	 * rest are not (and take no room) */
	enum { N = 70 };
	memset(&p, 0, sizeof(p));
	p.version = MP_PLAN_VERSION;
	p.pool_align = 256;
	p.pool_size = N * 256;
	p.device = 0;
	p.nrequests = 2 * N;
	p.nallocs = N;
	p.allocs = calloc(N, sizeof(*p.allocs));
	p.streams = calloc(N, sizeof(*p.streams));
	uint64_t sz[N];
	for (uint32_t i = 0; i < N; i++) {
		sz[i] = 256;
		p.allocs[i] = (struct mp_plan_alloc){ 256, 256 * i, i, i, 2 * N - 1 - i, 0 };
		p.streams[i] = i;
	}
	p.has_streams = 1;
	p.fingerprint = mp_plan_fingerprint(sz, N);
	snprintf(p.strategy, sizeof(p.strategy), "test");
	rt = open_host(write_plan("70streams.plan", &p), 0);
	if (!rt)
		return;
	for (int round = 0; round < 3; round++) {
		void *ptr[N];
		mp_iteration_begin(rt);
		for (uintptr_t i = 0; i < N; i++) {
			/* round 1: the 70th on the 1st's stream; round 2: the
			 * 64th on the 1st's */
			uintptr_t h = 0x1000 + i;
			if ((round == 1 && i == N - 1) || (round == 2 && i == 63))
				h = 0x1000;
			ptr[i] = mp_alloc(rt, 256, (void *)h);
		}
		for (int i = N - 1; i >= 0; i--)
			mp_free(rt, ptr[i], (void *)(0x1000 + (uintptr_t)i));
		int done = mp_iteration_end(rt);
		CHECK(done == (round < 2),
		      round == 0 ? "70 trace streams on 70 streams: followed" :
		      round == 1 ? "  ... the 70th on the first one's stream: not checked, followed" :
				   "  ... the 64th on the first one's stream: a divergence");
	}
	mp_close(rt);
}

/* A second free of B, placed at A's address while A is swapped out, must not
 * release A (issue 22): it is refused as the real cudaFree refuses a
 * pointer it did not hand out, and so is a free of an address where nothing
 * live starts.  A's swap-in comes after alloc E here, so that A is still
 * out when the second free arrives. */
static void test_double_free(void)
{
	struct mp_plan p;
	make_plan(&p, 1, 0, 0);
	p.swaps[0].in_at = 4;
	mp_runtime *rt = open_host(write_plan("dfree.plan", &p), 0);
	if (!rt)
		return;
	mp_iteration_begin(rt);
	void *a = mp_alloc(rt, 64 * KiB, NULL);
	replay_fill(a, 64 * KiB, 0, 0, 0);
	void *c = mp_alloc(rt, 32 * KiB, NULL); /* A goes out */
	void *b = mp_alloc(rt, 64 * KiB, NULL);
	replay_fill(b, 64 * KiB, 0, 2, 0);
	CHECK(b == a, "B is placed at A's address while A is out");
	CHECK(runtime_free(rt, b, NULL, MP_MEM_RUNTIME) == 0, "  ... B's free as planned succeeds");
	CHECK(runtime_free(rt, b, NULL, MP_MEM_RUNTIME) == RUNTIME_EINVAL,
	      "  ... a second free of B is refused (cudaErrorInvalidValue)");
	struct mp_stats s;
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.pool_frees, 1, "  ... and released nothing");
	CHECK(intact(a, 64 * KiB, 0), "  ... A's bytes came back with the divergence");
	CHECK(runtime_free(rt, (char *)c + 256, NULL, MP_MEM_RUNTIME) == RUNTIME_EINVAL,
	      "a free of an address inside a live pool buffer is refused");
	CHECK(runtime_free(rt, a, NULL, MP_MEM_RUNTIME) == 0,
	      "A's own free, its bytes back, releases it");
	CHECK(runtime_free(rt, a, NULL, MP_MEM_RUNTIME) == RUNTIME_EINVAL,
	      "  ... and a second free of it is refused");
	CHECK(runtime_free(rt, c, NULL, MP_MEM_RUNTIME) == 0, "C's free succeeds");
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.pool_frees, 3, "  ... 3 pool buffers released, once each");
	mp_iteration_end(rt);
	void *ptr[4];
	mp_iteration_begin(rt);
	run_iteration(rt, ptr, 1);
	CHECK(mp_iteration_end(rt) == 1, "  ... and the next iteration follows the plan");
	mp_close(rt);
}

/* A second free of a buffer whose address the plan has since given to a
 * buffer placed over a swapped-out one (issue 30): the runtime cannot tell
 * it from an early free of that borrower, and releasing the borrower would
 * bring the swapped-out buffer back over it while the program still uses
 * it.  So the free is refused, the borrower keeps its bytes, and the
 * swapped-out buffer comes back at the borrower's own free.  Clock:
 *   0 alloc X 64K @0   1 free X   2 alloc A 64K @0   3 alloc C 32K @64K
 *   [A out after 3]   4 alloc B 64K @0 (A's bytes)   5 alloc E 16K @96K
 *   6 free B [A in after 6]   7 free A   8 free C   9 free E
 * with a second free of X between 4 and 5 in the first iteration. */
static void test_stale_free(void)
{
	static const uint64_t sz[] = { 64 * KiB, 64 * KiB, 32 * KiB, 64 * KiB, 16 * KiB };
	static const uint64_t off[] = { 0, 0, 64 * KiB, 0, 96 * KiB };
	static const uint64_t lo[] = { 0, 2, 3, 4, 5 }, up[] = { 1, 7, 8, 6, 9 };
	struct mp_plan p;
	memset(&p, 0, sizeof(p));
	p.version = MP_PLAN_VERSION;
	p.pool_align = 256;
	p.pool_size = p.lower_bound = 112 * KiB;
	p.nrequests = 10;
	p.nallocs = 5;
	p.allocs = calloc(5, sizeof(*p.allocs));
	for (int i = 0; i < 5; i++)
		p.allocs[i] = (struct mp_plan_alloc){ sz[i], off[i], (uint64_t)i,
						      lo[i], up[i], 0 };
	p.fingerprint = mp_plan_fingerprint(sz, 5);
	snprintf(p.strategy, sizeof(p.strategy), "test");
	p.nswaps = 1;
	p.host_staging = 64 * KiB;
	p.swaps = calloc(1, sizeof(*p.swaps));
	p.swaps[0] = (struct mp_plan_swap){ 1, 3, 6, 0, 64 * KiB, 0, 0 };
	mp_runtime *rt = open_host(write_plan("stale.plan", &p), 0);
	if (!rt)
		return;
	for (int it = 0; it < 2; it++) {
		mp_iteration_begin(rt);
		void *x = mp_alloc(rt, 64 * KiB, NULL);
		mp_free(rt, x, NULL);
		void *a = mp_alloc(rt, 64 * KiB, NULL);
		replay_fill(a, 64 * KiB, 0, 1, 0);
		void *c = mp_alloc(rt, 32 * KiB, NULL); /* A goes out */
		void *b = mp_alloc(rt, 64 * KiB, NULL);
		replay_fill(b, 64 * KiB, 0, 3, 0);
		if (it == 0) {
			CHECK(x == a && b == a, "X, A and B share one address, B over A's swapped-out bytes");
			CHECK(runtime_free(rt, x, NULL, MP_MEM_RUNTIME) == RUNTIME_EINVAL,
			      "  ... a second free of X, now B's address, is refused");
			CHECK(intact(b, 64 * KiB, 3),
			      "  ... B keeps its bytes (A is not brought back over it)");
			struct mp_stats s;
			mp_stats_get(rt, &s);
			CHECK_EQ_U64(s.divergences, 1, "  ... a divergence");
		}
		void *e = mp_alloc(rt, 16 * KiB, NULL);
		CHECK(runtime_free(rt, b, NULL, MP_MEM_RUNTIME) == 0, "  ... B's own free succeeds");
		CHECK(intact(a, 64 * KiB, 1), "  ... and A's bytes are back after it");
		CHECK(runtime_free(rt, a, NULL, MP_MEM_RUNTIME) == 0 &&
		      runtime_free(rt, c, NULL, MP_MEM_RUNTIME) == 0 &&
		      runtime_free(rt, e, NULL, MP_MEM_RUNTIME) == 0,
		      "  ... every other free succeeds");
		int done = mp_iteration_end(rt);
		CHECK(done == (it == 1), it == 0 ? "  ... the iteration diverged" :
			      "the next iteration, without the second free, is followed");
	}
	struct mp_stats s;
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.pool_frees, s.planned_allocs, "  ... every pool buffer released once");
	mp_close(rt);
}

/* Two buffers borrow A's bytes when the iteration diverges: A stays out
 * until the last of them is freed, not the first (the other one still holds
 * half of A's bytes).  Clock: 0 alloc A 64K @0, 1 alloc C 32K @64K [A out],
 * 2 alloc B1 32K @0, 3 alloc B2 32K @32K, 4 free B1, 5 free B2 [A in],
 * 6 free A, 7 free C. */
static void test_two_borrowers(void)
{
	static const uint64_t sz[] = { 64 * KiB, 32 * KiB, 32 * KiB, 32 * KiB };
	static const uint64_t off[] = { 0, 64 * KiB, 0, 32 * KiB };
	static const uint64_t lo[] = { 0, 1, 2, 3 }, up[] = { 6, 7, 4, 5 };
	struct mp_plan p;
	memset(&p, 0, sizeof(p));
	p.version = MP_PLAN_VERSION;
	p.pool_align = 256;
	p.pool_size = p.lower_bound = 96 * KiB;
	p.nrequests = 8;
	p.nallocs = 4;
	p.allocs = calloc(4, sizeof(*p.allocs));
	for (int i = 0; i < 4; i++)
		p.allocs[i] = (struct mp_plan_alloc){ sz[i], off[i], (uint64_t)i,
						      lo[i], up[i], 0 };
	p.fingerprint = mp_plan_fingerprint(sz, 4);
	snprintf(p.strategy, sizeof(p.strategy), "test");
	p.nswaps = 1;
	p.host_staging = 64 * KiB;
	p.swaps = calloc(1, sizeof(*p.swaps));
	p.swaps[0] = (struct mp_plan_swap){ 0, 1, 5, 0, 64 * KiB, 0, 0 };
	mp_runtime *rt = open_host(write_plan("two.plan", &p), 0);
	if (!rt)
		return;
	for (int round = 0; round < 2; round++) {
		mp_iteration_begin(rt);
		void *a = mp_alloc(rt, 64 * KiB, NULL);
		replay_fill(a, 64 * KiB, 0, 0, 0);
		void *c = mp_alloc(rt, 32 * KiB, NULL);
		void *b1 = mp_alloc(rt, 32 * KiB, NULL);
		void *b2 = mp_alloc(rt, 32 * KiB, NULL);
		replay_fill(b1, 32 * KiB, 0, 1, 0);
		replay_fill(b2, 32 * KiB, 0, 2, 0);
		if (round == 0) {
			CHECK(b1 == a && (char *)b2 == (char *)a + 32 * KiB,
			      "two borrowers over A's bytes");
			mp_free(rt, b1, NULL);
			mp_free(rt, b2, NULL);
			CHECK(intact(a, 64 * KiB, 0), "  ... A is back after both, as planned");
			mp_free(rt, a, NULL);
			mp_free(rt, c, NULL);
			CHECK(mp_iteration_end(rt) == 1, "  ... followed");
			continue;
		}
		void *x = mp_alloc(rt, 1000, NULL); /* the plan has B1's free */
		struct mp_stats s;
		mp_stats_get(rt, &s);
		CHECK_EQ_U64(s.divergences, 1, "a divergence while both borrowers are live");
		mp_free(rt, b1, NULL);
		CHECK(intact(b2, 32 * KiB, 2),
		      "  ... the first borrower's free leaves the second one's bytes alone");
		CHECK(runtime_free(rt, b1, NULL, MP_MEM_RUNTIME) == RUNTIME_EINVAL,
		      "  ... a second free of it, at A's address while A is out, is refused");
		mp_stats_get(rt, &s);
		CHECK_EQ_U64(s.sync_swapins, 0, "  ... A stays out");
		mp_free(rt, b2, NULL);
		mp_stats_get(rt, &s);
		CHECK_EQ_U64(s.sync_swapins, 1, "  ... the last borrower's free brings A back");
		CHECK(intact(a, 64 * KiB, 0), "  ... A's bytes are intact");
		mp_free(rt, x, NULL);
		mp_free(rt, a, NULL);
		mp_free(rt, c, NULL);
		mp_iteration_end(rt);
	}
	mp_close(rt);
}

/* Two swaps of A meeting at one ordinal, which files cannot carry any more
 * (the loader refuses them), given to the runtime directly: at the ordinal
 * where the first comes back and the second goes out, the swap-in goes
 * first, so that the second copies A's bytes out, not B's. */
static void test_swaps_meeting(void)
{
	struct mp_plan p;
	make_plan(&p, 1, 0, 0);
	p.swaps = realloc(p.swaps, 2 * sizeof(*p.swaps));
	p.nswaps = 2;
	p.host_staging = 128 * KiB;
	p.swaps[0] = (struct mp_plan_swap){ 0, 1, 3, 0, 64 * KiB, 0, 0 };
	p.swaps[1] = (struct mp_plan_swap){ 0, 3, 4, 0, 64 * KiB, 64 * KiB, 0 };
	CHECK(mp_plan_validate(&p, err, sizeof(err)) != 0,
	      "two swaps of one request meeting at an ordinal fail validation");
	struct mp_options o;
	mp_options_init(&o);
	o.backend = MP_BACKEND_HOST;
	o.verbose = -1;
	mp_runtime *rt = runtime_open_plan(&p, mp_backend_host(), &o, err, sizeof(err));
	CHECK(rt != NULL, "  ... the runtime follows such a plan given directly");
	if (!rt) {
		mp_plan_free(&p);
		return;
	}
	void *ptr[4];
	mp_iteration_begin(rt);
	run_iteration(rt, ptr, 1);
	CHECK(mp_iteration_end(rt) == 1, "  ... to its end");
	mp_close(rt);
}

/* A plan of a few entries claiming 2^32 - 2 requests: the runtime's memory
 * follows the entries the file holds, not the count it claims. */
static void test_huge_count(void)
{
	struct mp_plan p;
	make_plan(&p, 1, 0, 0);
	p.nrequests = UINT32_MAX - 1;
	char *path = write_plan("huge-count.plan", &p);
	struct rusage r0, r1;
	getrusage(RUSAGE_SELF, &r0);
	mp_runtime *rt = open_host(path, 0);
	getrusage(RUSAGE_SELF, &r1);
	CHECK(rt != NULL, "a plan claiming 2^32 - 2 requests opens");
	printf("# peak resident set %ld KiB before, %ld KiB after\n", r0.ru_maxrss,
	       r1.ru_maxrss);
	CHECK(r1.ru_maxrss - r0.ru_maxrss < 64 * 1024,
	      "  ... without taking memory for the requests it claims");
	if (!rt)
		return;
	mp_iteration_begin(rt);
	void *a = mp_alloc(rt, 64 * KiB, NULL);
	CHECK(a && mp_owns(rt, a), "  ... and follows its entries");
	mp_free(rt, a, NULL);
	mp_iteration_end(rt);
	mp_close(rt);
}

/* --- the ordering the runtime asks of the backend ---------------------------- */

/* The host backend with its event records, stream waits, copies and syncs
 * logged, so that a test can check which stream waits for which: the host
 * backend's copies run at once, so wrong ordering never shows in bytes. */
enum { OP_RECORD, OP_WAIT, OP_COPY, OP_SYNC, OP_DEVSYNC };
struct logged {
	int op;
	void *a, *b; /* record: event, stream; wait: stream, event; copy: stream */
};
static struct logged oplog[4096];
static size_t nlog;
static struct mp_backend tracing;

static void log_op(int op, void *a, void *b)
{
	if (nlog < sizeof(oplog) / sizeof(oplog[0]))
		oplog[nlog++] = (struct logged){ op, a, b };
}

static int t_record(void *e, void *s)
{
	log_op(OP_RECORD, e, s);
	return mp_backend_host()->event_record(e, s);
}

static int t_wait(void *s, void *e)
{
	log_op(OP_WAIT, s, e);
	return mp_backend_host()->stream_wait(s, e);
}

static int t_copy(void *dst, const void *src, size_t n, int dir, void *s)
{
	log_op(OP_COPY, s, (void *)(uintptr_t)dir);
	return mp_backend_host()->copy(dst, src, n, dir, s);
}

static void *dead_stream; /* a stream the program destroyed: syncs fail */

static int t_sync(void *s)
{
	log_op(OP_SYNC, s, NULL);
	if (s == dead_stream && s)
		return 1;
	return mp_backend_host()->stream_sync(s);
}

static int t_device_sync(void)
{
	log_op(OP_DEVSYNC, NULL, NULL);
	return mp_backend_host()->device_sync();
}

static void *copy_stream;

static int t_stream_create(void **s)
{
	int rc = mp_backend_host()->stream_create(s);
	copy_stream = *s;
	return rc;
}

static void init_tracing(void)
{
	tracing = *mp_backend_host();
	tracing.event_record = t_record;
	tracing.stream_wait = t_wait;
	tracing.copy = t_copy;
	tracing.stream_sync = t_sync;
	tracing.device_sync = t_device_sync;
	tracing.stream_create = t_stream_create;
}

/* Does stream t, after log entry from, wait for the work stream s had
 * enqueued at some record in [from, nlog)?  (An event recorded on s, then
 * waited for by t before it is recorded again.) */
static int waits_for(void *t, void *s, size_t from)
{
	for (size_t i = from; i < nlog; i++) {
		if (oplog[i].op != OP_RECORD || oplog[i].b != s)
			continue;
		for (size_t j = i + 1; j < nlog; j++) {
			if (oplog[j].op == OP_RECORD && oplog[j].a == oplog[i].a)
				break;
			if (oplog[j].op == OP_WAIT && oplog[j].a == t &&
			    oplog[j].b == oplog[i].a)
				return 1;
		}
	}
	return 0;
}

static size_t first_copy(int dir, size_t from)
{
	for (size_t i = from; i < nlog; i++)
		if (oplog[i].op == OP_COPY && oplog[i].b == (void *)(uintptr_t)dir)
			return i;
	return nlog;
}

/* The swap plan with A on stream S0, C and E on S1, B on S2, in the first
 * iteration followed (no pool free before B: no fence hides a missing
 * wait).  Each ordering of the runtime's design, one by one. */
static void test_ordering(void)
{
	void *S0 = (void *)0x100, *S1 = (void *)0x101, *S2 = (void *)0x102;
	init_tracing();
	struct mp_plan p;
	make_plan(&p, 1, 0, 0);
	struct mp_options o;
	mp_options_init(&o);
	o.backend = MP_BACKEND_HOST;
	o.verbose = -1;
	mp_runtime *rt = runtime_open_plan(&p, &tracing, &o, err, sizeof(err));
	CHECK(rt != NULL, "a runtime on a backend that logs what it is asked");
	if (!rt) {
		mp_plan_free(&p);
		return;
	}
	for (int round = 0; round < 2; round++) {
		nlog = 0;
		mp_iteration_begin(rt);
		void *a = mp_alloc(rt, 64 * KiB, S0);
		size_t at_c = nlog;
		void *c = mp_alloc(rt, 32 * KiB, S1); /* A goes out */
		size_t out = first_copy(MP_COPY_D2H, at_c);
		size_t at_b = nlog;
		void *b = mp_alloc(rt, 64 * KiB, S2);
		size_t at_free = nlog;
		mp_free(rt, b, S2); /* A comes back */
		size_t in = first_copy(MP_COPY_H2D, at_free);
		size_t at_e = nlog;
		void *e = mp_alloc(rt, 16 * KiB, S1);
		if (round == 0) {
			CHECK(out < at_b && waits_for(copy_stream, S0, at_c) &&
			      oplog[out].a == copy_stream,
			      "the copy-out, on the copy stream, waits for the owner's stream");
			CHECK(waits_for(S2, copy_stream, at_c), "B's stream waits for the copy-out");
			CHECK(waits_for(S2, S0, at_b),
			      "  ... and for the owner's stream as it is when B is served (its reads after the trigger)");
			CHECK(in < at_e && waits_for(copy_stream, S2, at_free),
			      "the copy-in waits for the stream that freed B");
			CHECK(waits_for(S0, copy_stream, in), "the owner's stream waits for the copy-in");
		} else {
			CHECK(waits_for(S1, S2, at_e),
			      "in the next iteration, E on S1 waits for S2, which freed pool memory");
			/* S0 and S1 freed pool memory in the iteration
			 * before: the old fence had the copy-in wait for
			 * all they had queued at its trigger (issue 14) */
			CHECK(in < at_e && waits_for(copy_stream, S2, at_free) &&
			      !waits_for(copy_stream, S0, at_free) &&
			      !waits_for(copy_stream, S1, at_free),
			      "  ... and the copy-in waits for B's free alone, not for S0 and S1, which freed other pool buffers before");
		}
		mp_free(rt, a, S0);
		mp_free(rt, c, S1);
		mp_free(rt, e, S1);
		CHECK(mp_iteration_end(rt) == 1, "  ... the iteration followed the plan");
	}

	/* a divergence while A is out and not borrowed: A comes back at once
	 * and the host waits for the copy stream */
	nlog = 0;
	mp_iteration_begin(rt);
	void *a = mp_alloc(rt, 64 * KiB, S0);
	void *c = mp_alloc(rt, 32 * KiB, S1);
	size_t at_x = nlog;
	void *x = mp_alloc(rt, 1000, S1);
	size_t in = first_copy(MP_COPY_H2D, at_x), sync = nlog;
	for (size_t i = in; i < nlog; i++)
		if (oplog[i].op == OP_SYNC && oplog[i].a == copy_stream) {
			sync = i;
			break;
		}
	CHECK(in < nlog && sync < nlog,
	      "a divergence with A out: the copy-in, then the host waits for the copy stream");
	CHECK(waits_for(copy_stream, S0, at_x) &&
	      first_copy(MP_COPY_H2D, at_x) == in,
	      "  ... the copy-in, with no borrower to wait for, waits for the owner's stream (its reads after the swap-out)");
	mp_free(rt, x, S1);
	mp_free(rt, a, S0);
	mp_free(rt, c, S1);
	mp_iteration_end(rt);
	mp_close(rt);
}

/* Tensor.record_stream through runtime_record_stream (mp_torch_record_stream):
 * A, on S0, is read on S1 too; B, placed over A's swapped bytes on S2, is
 * read on S3 too.  Every user of those bytes after them waits for the side
 * streams: the copy-out and B for S1, the copy-in for S3 at B's free, and
 * the next iteration's A, on S0 again, for S1. */
static void test_record_stream(void)
{
	void *S0 = (void *)0x200, *S1 = (void *)0x201, *S2 = (void *)0x202,
	     *S3 = (void *)0x203;
	init_tracing();
	struct mp_plan p;
	make_plan(&p, 1, 0, 0);
	struct mp_options o;
	mp_options_init(&o);
	o.backend = MP_BACKEND_HOST;
	o.verbose = -1;
	mp_runtime *rt = runtime_open_plan(&p, &tracing, &o, err, sizeof(err));
	CHECK(rt != NULL, "record_stream: a runtime on the logging backend");
	if (!rt) {
		mp_plan_free(&p);
		return;
	}
	nlog = 0;
	mp_iteration_begin(rt);
	void *a = mp_alloc(rt, 64 * KiB, S0);
	runtime_record_stream(rt, a, S1);
	size_t at_c = nlog;
	void *c = mp_alloc(rt, 32 * KiB, S0); /* A goes out */
	CHECK(waits_for(copy_stream, S1, at_c),
	      "record_stream: A's copy-out waits for S1, where A is read too");
	size_t at_b = nlog;
	void *b = mp_alloc(rt, 64 * KiB, S2);
	CHECK(waits_for(S2, S1, at_b),
	      "  ... B, over A's bytes, waits for S1 as it is when B is served");
	runtime_record_stream(rt, b, S3);
	size_t at_free = nlog;
	mp_free(rt, b, S2); /* A comes back */
	CHECK(waits_for(copy_stream, S3, at_free),
	      "  ... A's copy-in waits for S3, where B was read, as at B's free");
	void *e = mp_alloc(rt, 16 * KiB, S0);
	mp_free(rt, a, S0);
	mp_free(rt, c, S0);
	mp_free(rt, e, S0);
	CHECK(mp_iteration_end(rt) == 1, "  ... the iteration followed the plan");
	mp_iteration_begin(rt);
	size_t at_a = nlog;
	a = mp_alloc(rt, 64 * KiB, S0);
	CHECK(mp_owns(rt, a) && waits_for(S0, S1, at_a),
	      "  ... the next A, on S0, waits for S1, where the last one was read");
	/* ignored: a pointer inside a buffer, one outside the pool */
	runtime_record_stream(rt, (char *)a + 256, S3);
	runtime_record_stream(rt, &nlog, S3);
	at_c = nlog;
	c = mp_alloc(rt, 32 * KiB, S0); /* A goes out */
	CHECK(!waits_for(copy_stream, S3, at_c),
	      "  ... a pointer inside a buffer or outside the pool is ignored");
	b = mp_alloc(rt, 64 * KiB, S2);
	mp_free(rt, b, S2);
	e = mp_alloc(rt, 16 * KiB, S0);
	mp_free(rt, a, S0);
	mp_free(rt, c, S0);
	mp_free(rt, e, S0);
	CHECK(mp_iteration_end(rt) == 1, "  ... the iteration followed the plan");
	mp_close(rt);
}

/* More streams than the runtime's 32 slots (issue 22).  One iteration with
 * 40 buffers live at once, each allocated on a stream of its own: the
 * first 32 come from the pool, the rest, on streams the runtime cannot
 * track while every slot holds a live buffer, from the real allocator (never
 * a pool buffer without its stream).  Then iterations on new streams each
 * time: the slots of streams that hold nothing are taken over, and every
 * buffer comes from the pool. */
static void test_many_streams(void)
{
	enum { N = 40, SLOTS = 32 };
	struct mp_plan p;
	uint64_t sz[N];
	memset(&p, 0, sizeof(p));
	p.version = MP_PLAN_VERSION;
	p.pool_align = 256;
	p.pool_size = p.lower_bound = N * 4 * KiB;
	p.nrequests = 2 * N;
	p.nallocs = N;
	p.allocs = calloc(N, sizeof(*p.allocs));
	for (int i = 0; i < N; i++) {
		sz[i] = 4 * KiB;
		p.allocs[i] = (struct mp_plan_alloc){ 4 * KiB, (uint64_t)i * 4 * KiB,
						      (uint64_t)i, (uint64_t)i,
						      (uint64_t)(N + i), 0 };
	}
	p.fingerprint = mp_plan_fingerprint(sz, N);
	snprintf(p.strategy, sizeof(p.strategy), "test");
	struct mp_options o;
	mp_options_init(&o);
	o.backend = MP_BACKEND_HOST;
	o.verbose = -1;
	init_tracing();
	mp_runtime *rt = runtime_open_plan(&p, &tracing, &o, err, sizeof(err));
	CHECK(rt != NULL, "a plan of 40 buffers live at once");
	if (!rt) {
		mp_plan_free(&p);
		return;
	}
	void *ptr[N];
	int pooled = 0, first = 1;
	mp_iteration_begin(rt);
	for (int i = 0; i < N; i++) {
		ptr[i] = mp_alloc(rt, 4 * KiB, (void *)(uintptr_t)(0x1000 + i));
		pooled += mp_owns(rt, ptr[i]);
		if (i < SLOTS && !mp_owns(rt, ptr[i]))
			first = 0;
	}
	CHECK(first && pooled == SLOTS,
	      "40 buffers live on 40 streams: the first 32 from the pool");
	printf("# %d of %d from the pool\n", pooled, N);
	for (int i = 0; i < N; i++)
		mp_free(rt, ptr[i], (void *)(uintptr_t)(0x1000 + i));
	CHECK(mp_iteration_end(rt) == 1, "  ... the rest from the real allocator, the plan still followed");
	pooled = 0;
	nlog = 0;
	dead_stream = (void *)0x1000; /* destroyed by now: its sync fails */
	for (int it = 0; it < 3; it++) {
		mp_iteration_begin(rt);
		void *st = (void *)(uintptr_t)(0x2000 + it); /* a new stream each time */
		for (int i = 0; i < N; i++) {
			ptr[i] = mp_alloc(rt, 4 * KiB, st);
			pooled += mp_owns(rt, ptr[i]);
		}
		for (int i = 0; i < N; i++)
			mp_free(rt, ptr[i], st);
		mp_iteration_end(rt);
	}
	CHECK(pooled == 3 * N, "  ... iterations on new streams once the table is full: all from the pool");
	int synced = 0;
	for (size_t i = 0; i < nlog; i++)
		synced |= oplog[i].op == OP_SYNC && oplog[i].a == (void *)0x1000;
	CHECK(synced, "  ... the stream whose slot went first, which freed pool memory, was synchronised");
	int devsync = 0;
	for (size_t i = 0; i < nlog; i++)
		devsync |= oplog[i].op == OP_DEVSYNC;
	CHECK(devsync, "  ... and, that stream being gone, the device");
	dead_stream = NULL;
	struct mp_stats s;
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.pass_through, N - SLOTS, "  ... 8 requests passed through");
	CHECK_EQ_U64(s.completed, 4, "  ... 4 iterations followed");
	mp_close(rt);

	/* a slot taken over starts afresh for the streams that saw its old
	 * stream: Y waited for X's 40 frees; X's slot goes to N, which frees
	 * 40 times too; Y must still wait for N */
	memset(&p, 0, sizeof(p));
	p.version = MP_PLAN_VERSION;
	p.pool_align = 256;
	p.pool_size = p.lower_bound = N * 4 * KiB;
	p.nrequests = 2 * N;
	p.nallocs = N;
	p.allocs = calloc(N, sizeof(*p.allocs));
	for (int i = 0; i < N; i++)
		p.allocs[i] = (struct mp_plan_alloc){ 4 * KiB, (uint64_t)i * 4 * KiB,
						      (uint64_t)i, (uint64_t)i,
						      (uint64_t)(N + i), 0 };
	p.fingerprint = mp_plan_fingerprint(sz, N);
	snprintf(p.strategy, sizeof(p.strategy), "test");
	rt = runtime_open_plan(&p, &tracing, &o, err, sizeof(err));
	if (!rt) {
		mp_plan_free(&p);
		return;
	}
	void *X = (void *)0x3000, *Y = (void *)0x3001, *NS = (void *)0x3002;
	for (int it = 0; it < 3 + SLOTS - 2; it++) {
		/* X, then Y, then 30 others, one stream per iteration;
		 * then N, which takes X's slot */
		void *st = it == 0 ? X : it == 1 ? Y : it == SLOTS ? NS :
			   (void *)(uintptr_t)(0x4000 + it);
		mp_iteration_begin(rt);
		for (int i = 0; i < N; i++)
			ptr[i] = mp_alloc(rt, 4 * KiB, st);
		for (int i = 0; i < N; i++)
			mp_free(rt, ptr[i], st);
		mp_iteration_end(rt);
	}
	nlog = 0;
	mp_iteration_begin(rt);
	for (int i = 0; i < N; i++)
		ptr[i] = mp_alloc(rt, 4 * KiB, Y);
	CHECK(waits_for(Y, NS, 0),
	      "a stream that waited for the frees of a slot's old stream waits for its new one's");
	for (int i = 0; i < N; i++)
		mp_free(rt, ptr[i], Y);
	mp_iteration_end(rt);
	mp_close(rt);
}

/* The slot a new stream takes from a full table is the least recently
 * used stream's (issue 34: streams are stamped when the program leaves
 * them, not at every request).  32 streams each allocate and free a buffer
 * in turn, then the first one again, then a new stream comes: the second
 * stream's slot goes (synchronised, as it freed pool memory), not the
 * first's, though the first took its slot first. */
static void test_stream_lru(void)
{
	enum { SLOTS = 32, N = SLOTS + 2 };
	struct mp_plan p;
	uint64_t sz[N];
	memset(&p, 0, sizeof(p));
	p.version = MP_PLAN_VERSION;
	p.pool_align = 256;
	p.pool_size = p.lower_bound = 4 * KiB;
	p.nrequests = 2 * N;
	p.nallocs = N;
	p.allocs = calloc(N, sizeof(*p.allocs));
	for (int i = 0; i < N; i++) {
		sz[i] = 4 * KiB;
		p.allocs[i] = (struct mp_plan_alloc){ 4 * KiB, 0, (uint64_t)i,
						      (uint64_t)(2 * i),
						      (uint64_t)(2 * i + 1), 0 };
	}
	p.fingerprint = mp_plan_fingerprint(sz, N);
	snprintf(p.strategy, sizeof(p.strategy), "test");
	struct mp_options o;
	mp_options_init(&o);
	o.backend = MP_BACKEND_HOST;
	o.verbose = -1;
	init_tracing();
	mp_runtime *rt = runtime_open_plan(&p, &tracing, &o, err, sizeof(err));
	CHECK(rt != NULL, "a plan of 34 buffers, one after another");
	if (!rt) {
		mp_plan_free(&p);
		return;
	}
	int pooled = 0;
	nlog = 0;
	mp_iteration_begin(rt);
	for (int i = 0; i < N; i++) {
		void *st = (void *)(uintptr_t)(0x5000 + (i == SLOTS ? 0 : i));
		void *b = mp_alloc(rt, 4 * KiB, st);
		pooled += mp_owns(rt, b);
		mp_free(rt, b, st);
	}
	CHECK(mp_iteration_end(rt) == 1 && pooled == N,
	      "33 streams, the first twice: every buffer from the pool");
	int second = 0, first = 0;
	for (size_t i = 0; i < nlog; i++) {
		second |= oplog[i].op == OP_SYNC && oplog[i].a == (void *)0x5001;
		first |= oplog[i].op == OP_SYNC && oplog[i].a == (void *)0x5000;
	}
	CHECK(second && !first,
	      "  ... the new stream took the least recently used slot (the second stream's, synchronised), not the first's");
	mp_close(rt);
}

/* A plan whose swaps are all borrowed by all of its buffers: nswaps x
 * nborrowers (entry, swap) pairs, which the runtime's tables would hold.
 * 400 owners over [0, 256) swapped out together, 400 buffers placed there
 * one after another: 160000 pairs for 1200 entries and swaps, past what the
 * runtime takes (32 per entry); with 100 owners, 40000 pairs are taken. */
static void test_many_borrows(void)
{
	for (int round = 0; round < 2; round++) {
		uint32_t no = round == 0 ? 400 : 100, nb = 400, n = no + nb;
		struct mp_plan p;
		memset(&p, 0, sizeof(p));
		p.version = MP_PLAN_VERSION;
		p.pool_align = 256;
		p.pool_size = p.lower_bound = 256;
		p.nrequests = 2 * (uint64_t)n;
		p.nallocs = n;
		p.allocs = calloc(n, sizeof(*p.allocs));
		uint64_t *sz = calloc(n, sizeof(*sz));
		uint64_t end = no + 2 * (uint64_t)nb; /* ordinals of the owners' frees */
		for (uint32_t i = 0; i < no; i++)
			p.allocs[i] = (struct mp_plan_alloc){ 256, 0, i, i, end + i, 0 };
		for (uint32_t j = 0; j < nb; j++)
			p.allocs[no + j] = (struct mp_plan_alloc){ 256, 0, no + j,
								   no + 2 * (uint64_t)j,
								   no + 2 * (uint64_t)j + 1, 0 };
		for (uint32_t i = 0; i < n; i++)
			sz[i] = 256;
		p.fingerprint = mp_plan_fingerprint(sz, n);
		free(sz);
		snprintf(p.strategy, sizeof(p.strategy), "test");
		p.nswaps = no;
		p.host_staging = 256;
		p.swaps = calloc(no, sizeof(*p.swaps));
		for (uint32_t i = 0; i < no; i++)
			p.swaps[i] = (struct mp_plan_swap){ i, no - 1, end - 1, 0, 256, 0, 0 };
		struct mp_options o;
		mp_options_init(&o);
		o.backend = MP_BACKEND_HOST;
		o.verbose = -1;
		mp_runtime *rt = mp_open(write_plan("borrows.plan", &p), &o, err, sizeof(err));
		if (round == 0) {
			CHECK(rt == NULL, "a plan whose 400 swaps are each borrowed by 400 buffers is refused");
			CHECK_STR_HAS(err, "borrowed more than 32 times per entry", "  ... saying so");
		} else {
			CHECK(rt != NULL, "  ... with 100 swaps, it is followed");
			if (!rt)
				printf("# %s\n", err);
		}
		mp_close(rt);
	}
}

static void test_pass_and_foreign(void)
{
	struct mp_plan p;
	make_plan(&p, 0, 1, 1);
	mp_runtime *rt = open_host(write_plan("pass.plan", &p), 0);
	if (!rt)
		return;
	void *old = mp_alloc(rt, 100, NULL);
	CHECK(old && !mp_owns(rt, old), "a buffer from before the iteration is real");
	mp_iteration_begin(rt);
	mp_free(rt, old, NULL); /* ordinal 0: a free the plan expects */
	void *ptr[4];
	run_iteration(rt, ptr, 0);
	CHECK(mp_owns(rt, ptr[0]) && !mp_owns(rt, ptr[3]),
	      "  ... a pass-through entry goes to the real allocator");
	CHECK(mp_iteration_end(rt) == 1, "  ... and the iteration follows the plan");
	struct mp_stats s;
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.pass_through, 1, "  ... 1 pass-through");
	CHECK_EQ_U64(s.real_frees, 2, "  ... 2 real frees");
	mp_close(rt);
}

/* A plan compiled with --trust-holes is valid only if something else
 * moves the trace's holes: mp_open refuses it unless asked to go on
 * (MEMPLAN_ON_UNSAFE=warn), and then follows it. */
static void test_trust_holes(void)
{
	struct mp_plan p;
	make_plan(&p, 0, 0, 0);
	p.flags |= MP_PLAN_TRUSTS_HOLES;
	char *path = write_plan("holes.plan", &p);
	struct mp_options o;
	mp_options_init(&o);
	o.backend = MP_BACKEND_HOST;
	o.verbose = -1;
	err[0] = 0;
	mp_runtime *rt = mp_open(path, &o, err, sizeof(err));
	CHECK(!rt, "a plan that trusts the trace's holes: refused by default");
	CHECK_STR_HAS(err, "--trust-holes", "  ... saying it was compiled with --trust-holes");
	CHECK_STR_HAS(err, "MEMPLAN_ON_UNSAFE=warn", "  ... and how to follow it anyway");
	mp_close(rt);
	o.on_unsafe = MP_ON_UNSAFE_WARN;
	rt = mp_open(path, &o, err, sizeof(err));
	CHECK(rt != NULL, "  ... followed when asked to go on (warn)");
	if (rt) {
		void *ptr[4];
		mp_iteration_begin(rt);
		run_iteration(rt, ptr, 0);
		CHECK(mp_iteration_end(rt) == 1, "  ... to the iteration's end");
	}
	mp_close(rt);
}

static void test_bad_input(void)
{
	char path[300];
	struct mp_options o;
	mp_options_init(&o);
	o.backend = MP_BACKEND_HOST;
	snprintf(path, sizeof(path), "%s/missing.plan", dir);
	CHECK(!mp_open(path, &o, err, sizeof(err)), "a missing plan is refused");
	CHECK_STR_HAS(err, "missing.plan", "  ... naming it");

	snprintf(path, sizeof(path), "%s/foreign.plan", dir);
	FILE *f = fopen(path, "w");
	fputs("this is not a plan, but it is long enough to have a header of 64 bytes or more\n", f);
	fclose(f);
	CHECK(!mp_open(path, &o, err, sizeof(err)), "a foreign file is refused");
	printf("# %s\n", err);

	struct mp_plan p;
	make_plan(&p, 1, 0, 0);
	char *good = write_plan("good.plan", &p);
	snprintf(path, sizeof(path), "%s/corrupt.plan", dir);
	unsigned char buf[4096];
	f = fopen(good, "rb");
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	buf[n / 2] ^= 0x10;
	f = fopen(path, "wb");
	fwrite(buf, 1, n, f);
	fclose(f);
	CHECK(!mp_open(path, &o, err, sizeof(err)), "a corrupted plan is refused");
	CHECK_STR_HAS(err, "checksum", "  ... by its checksum");

	make_plan(&p, 0, 0, 0);
	p.device = 3;
	CHECK(!mp_open(write_plan("dev3.plan", &p), &o, err, sizeof(err)),
	      "a plan for a device this machine lacks is refused");
	CHECK_STR_HAS(err, "the plan is for device 3, and this machine has 1 device",
		      "  ... saying so");

	make_plan(&p, 0, 0, 0);
	p.pool_size = (uint64_t)1 << 62;
	CHECK(!mp_open(write_plan("huge.plan", &p), &o, err, sizeof(err)),
	      "a pool that cannot be taken is refused");
	CHECK_STR_HAS(err, "cannot take the pool", "  ... saying so");
}

/* --- a cycle: two workloads taking turns in one pool --------------------------- */

/*
 * Workload 0 is make_plan()'s iteration without its swap (ordinals 0..7,
 * C above A and B); workload 1 (ordinals 8..11): X 96K @0, Y 16K @96K,
 * free X, free Y: it fits in the bytes workload 0 freed, so the pool of
 * the cycle is workload 0's.
 */
static void make_cycle(struct mp_plan *p)
{
	make_plan(p, 0, 0, 0);
	p->allocs[2].offset = 112 * KiB; /* no swap: B above everything */
	p->pool_size = 176 * KiB;
	p->lower_bound = 160 * KiB;
	p->allocs = realloc(p->allocs, 6 * sizeof(*p->allocs));
	p->allocs[4] = (struct mp_plan_alloc){ 96 * KiB, 0, 4, 8, 10, 0 };
	p->allocs[5] = (struct mp_plan_alloc){ 16 * KiB, 96 * KiB, 5, 9, 11, 0 };
	p->nallocs = 6;
	p->nrequests = 12;
	static const uint64_t sz[] = { 64 * KiB, 32 * KiB, 64 * KiB, 16 * KiB,
				       96 * KiB, 16 * KiB };
	p->fingerprint = mp_plan_fingerprint(sz, 6);
	p->nworkloads = 2;
	p->workloads = calloc(2, sizeof(*p->workloads));
	p->workloads[0] = (struct mp_plan_workload){ 0, mp_plan_fingerprint(sz, 4), 0, 0 };
	p->workloads[1] = (struct mp_plan_workload){ 8, mp_plan_fingerprint(sz + 4, 2), 0, 0 };
}

/* Workload 1's requests; 1 when both came from the pool at their offsets
 * and X kept its bytes. */
static int run_second(mp_runtime *rt, int *intact_out)
{
	char *pool = mp_pool(rt, NULL);
	void *x = mp_alloc(rt, 96 * KiB, NULL);
	replay_fill(x, 96 * KiB, 0, 4, 0);
	void *y = mp_alloc(rt, 16 * KiB, NULL);
	replay_fill(y, 16 * KiB, 0, 5, 0);
	*intact_out = intact(x, 96 * KiB, 4) && intact(y, 16 * KiB, 5);
	int planned = x == pool && (char *)y == pool + 96 * KiB;
	mp_free(rt, x, NULL);
	mp_free(rt, y, NULL);
	return planned;
}

/* Workload 0's requests, checking every buffer's bytes at its free. */
static int run_first(mp_runtime *rt, int *intact_out)
{
	void *ptr[4];
	static const size_t sz[] = { 64 * KiB, 32 * KiB, 64 * KiB, 16 * KiB };
	ptr[0] = mp_alloc(rt, sz[0], NULL);
	ptr[1] = mp_alloc(rt, sz[1], NULL);
	ptr[2] = mp_alloc(rt, sz[2], NULL);
	for (int i = 0; i < 3; i++)
		replay_fill(ptr[i], sz[i], 0, (uint32_t)i, 0);
	int ok = intact(ptr[2], sz[2], 2);
	mp_free(rt, ptr[2], NULL);
	ptr[3] = mp_alloc(rt, sz[3], NULL);
	replay_fill(ptr[3], sz[3], 0, 3, 0);
	ok = ok && intact(ptr[0], sz[0], 0) && intact(ptr[1], sz[1], 1) &&
	     intact(ptr[3], sz[3], 3);
	*intact_out = ok;
	int pooled = mp_owns(rt, ptr[0]) + mp_owns(rt, ptr[1]) + mp_owns(rt, ptr[3]);
	mp_free(rt, ptr[0], NULL);
	mp_free(rt, ptr[1], NULL);
	mp_free(rt, ptr[3], NULL);
	return pooled;
}

static void test_cycle(void)
{
	struct mp_plan p;
	make_cycle(&p);
	char path[300];
	snprintf(path, sizeof(path), "%s", write_plan("cycle.plan", &p));
	mp_runtime *rt = open_host(path, 0);
	CHECK(rt != NULL, "a plan of two workloads taking turns opens");
	if (!rt)
		return;
	CHECK_EQ_U64(mp_workload_count(rt), 2, "  ... two workloads");
	int ok, all = 1;
	/* explicit: the cycle's order, then each named */
	mp_iteration_begin(rt);
	CHECK(run_first(rt, &ok) == 3 && ok, "  ... workload 0 follows its part (explicit begin)");
	CHECK(mp_iteration_end(rt) == 1, "  ... to its end");
	mp_iteration_begin(rt);
	CHECK(run_second(rt, &ok) && ok, "  ... then workload 1, over the bytes workload 0 freed");
	CHECK(mp_iteration_end(rt) == 1, "  ... to its end");
	CHECK(mp_workload_begin(rt, 1) == 0, "mp_workload_begin names workload 1 out of turn");
	CHECK(run_second(rt, &ok) && ok && mp_iteration_end(rt) == 1, "  ... and it is followed");
	struct mp_stats s;
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.out_of_order, 1, "  ... counted out of order");
	/* the cycle has workload 0 next; the program runs workload 1 */
	mp_iteration_begin(rt);
	int planned = run_second(rt, &ok);
	CHECK(!planned && ok, "an iteration of another workload than the cycle's next: real allocator, bytes intact");
	CHECK(mp_iteration_end(rt) == 0, "  ... and it did not follow the plan");
	char why[400];
	CHECK(mp_last_problem(rt, why, sizeof(why)), "  ... a problem is recorded");
	CHECK_STR_HAS(why, "where the plan has an alloc of 65536 bytes", "  ... naming the expected request");
	CHECK(mp_workload_begin(rt, 0) == 0 && run_first(rt, &ok) == 3 && ok &&
		      mp_iteration_end(rt) == 1,
	      "  ... the next iteration in turn is followed again");
	CHECK(mp_workload_begin(rt, 2) == -1, "mp_workload_begin of a workload the plan lacks: -1");
	planned = run_second(rt, &ok);
	CHECK(!planned && ok && mp_iteration_end(rt) == 0, "  ... its iteration goes to the real allocator");
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.pool_frees + s.real_frees,
		     s.planned_allocs + s.pass_through + s.fallback_allocs,
		     "  ... every allocation freed once");
	mp_close(rt);

	/* recognised: 0, 1, 1, 0 by their first requests (match 1) */
	rt = open_host(path, 1);
	if (!rt)
		return;
	int pooled = run_first(rt, &ok);
	all &= ok;
	CHECK(pooled == 2, "recognised: workload 0's first request confirms it, the rest from the pool");
	CHECK(run_second(rt, &ok) && ok, "  ... workload 1 right after it follows from its first request");
	all &= ok;
	void *x = mp_alloc(rt, 96 * KiB, NULL);
	void *y = mp_alloc(rt, 16 * KiB, NULL);
	CHECK(!mp_owns(rt, x) && mp_owns(rt, y), "  ... workload 1 again, out of turn: recognised by its first request");
	mp_free(rt, x, NULL);
	mp_free(rt, y, NULL);
	pooled = run_first(rt, &ok);
	all &= ok;
	CHECK(pooled == 3, "  ... then workload 0, the cycle's next, from its first request");
	CHECK(all, "  ... every buffer kept its bytes");
	mp_stats_get(rt, &s);
	CHECK_EQ_U64(s.iterations, 4, "  ... 4 iterations followed");
	CHECK_EQ_U64(s.completed, 4, "  ... to their ends");
	CHECK_EQ_U64(s.out_of_order, 1, "  ... one out of the cycle's order");
	CHECK_EQ_U64(s.divergences, 0, "  ... no divergence");
	mp_close(rt);

	/* the loader refuses a malformed cycle, whatever the way in */
	make_cycle(&p);
	unsigned char *b;
	size_t n;
	CHECK(mp_plan_encode(&p, &b, &n, err, sizeof(err)) == 0, "encode the cycle plan");
	mp_plan_free(&p);
	/* the CYCLE section is the last: its second entry's first_request */
	unsigned char *e = b + n - MP_PLAN_WORKLOAD_SIZE;
	e[0] = 7; /* workload 1 from ordinal 7: E (freed at 7) would cross */
	uint32_t crc = mp_plan_checksum(b, n);
	for (int i = 0; i < 4; i++)
		b[MP_PLAN_CHECKSUM_AT + i] = (unsigned char)(crc >> (8 * i));
	snprintf(path, sizeof(path), "%s/badcycle.plan", dir);
	FILE *f = fopen(path, "wb");
	fwrite(b, 1, n, f);
	fclose(f);
	free(b);
	struct mp_options o;
	mp_options_init(&o);
	o.backend = MP_BACKEND_HOST;
	CHECK(!mp_open(path, &o, err, sizeof(err)), "a cycle whose workload's buffer crosses into the next is refused");
	CHECK_STR_HAS(err, "ALLOCS entry 3, field upper: clock ordinal 7 is past the end 7 of its workload 0",
		      "  ... naming the entry and its workload");
	printf("# %s\n", err);
}

/* --- threads ---------------------------------------------------------------- */

struct worker {
	mp_runtime *rt;
	int id, rounds, bad, cycle;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	static const size_t sizes[] = { 64 * KiB, 32 * KiB, 64 * KiB, 16 * KiB,
					4000, 96 * KiB };
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);
	for (int i = 0; i < w->rounds; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (w->id == 0 && x % 7 == 0) {
			if (w->cycle && x % 3 == 0)
				mp_workload_begin(w->rt, (unsigned)(x >> 8) % 3);
			else
				mp_iteration_begin(w->rt);
			continue;
		}
		size_t n = sizes[x % (w->cycle ? 6 : 5)];
		void *p = mp_alloc(w->rt, n, NULL);
		if (!p) {
			w->bad++;
			continue;
		}
		replay_fill(p, n, 0, (uint32_t)w->id, (uint32_t)i);
		sched_yield();
		struct replay_bad bad;
		if (replay_check(p, n, 0, (uint32_t)w->id, (uint32_t)i, &bad))
			w->bad++;
		mp_free(w->rt, p, NULL);
	}
	return NULL;
}

/* Without swaps: a program whose threads' requests happen to match the plan
 * gets planned offsets, and frees in planned order, so no two live buffers
 * can share bytes.  (A swap assumes the trace's uses as well, which threads
 * using their buffers at will do not follow.) */
static void test_threads(int rounds, int cycle)
{
	struct mp_plan p;
	if (cycle) { /* two workloads: turns begun, named and recognised */
		make_cycle(&p);
	} else {
		make_plan(&p, 0, 0, 0);
		/* without its swap, C cannot sit over A (both live at request
		 * 2): it goes above everything, so the plan is one
		 * planfile_verify would pass (A+B+C = 160K at request 2) */
		p.allocs[2].offset = 112 * KiB;
		p.pool_size = 176 * KiB;
		p.lower_bound = 160 * KiB;
	}
	mp_runtime *rt = open_host(write_plan("threads.plan", &p), 1);
	if (!rt)
		return;
	enum { N = 8 };
	pthread_t th[N];
	struct worker w[N];
	for (int i = 0; i < N; i++) {
		w[i] = (struct worker){ rt, i, rounds, 0, cycle };
		pthread_create(&th[i], NULL, work, &w[i]);
	}
	int bad = 0;
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		bad += w[i].bad;
	}
	CHECK(bad == 0, cycle ? "8 threads allocating at once over a cycle plan: no buffer lost its bytes"
			      : "8 threads allocating at once: no buffer lost its bytes");
	struct mp_stats s;
	mp_stats_get(rt, &s);
	printf("# %llu planned, %llu real, %llu divergences, %llu iterations\n",
	       (unsigned long long)s.planned_allocs,
	       (unsigned long long)s.fallback_allocs,
	       (unsigned long long)s.divergences,
	       (unsigned long long)s.iterations);
	CHECK_EQ_U64(s.planned_allocs + s.pass_through + s.fallback_allocs,
		     s.pool_frees + s.real_frees,
		     "  ... every allocation was freed once");
	mp_close(rt);
}

int main(int argc, char **argv)
{
	int threads_only = argc > 1 && !strcmp(argv[1], "--threads");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	if (!threads_only) {
		test_explicit();
		test_auto();
		test_divergence();
		test_divergence_swapped();
		test_pass_and_foreign();
		test_streams();
		test_double_free();
		test_stale_free();
		test_two_borrowers();
		test_swaps_meeting();
		test_huge_count();
		test_many_borrows();
		test_many_streams();
		test_stream_lru();
		test_ordering();
		test_record_stream();
		test_bad_input();
		test_trust_holes();
		test_cycle();
	}
	test_threads(threads_only ? 5000 : 20000, 0);
	test_threads(threads_only ? 5000 : 20000, 1);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
