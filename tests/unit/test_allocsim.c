/* SPDX-License-Identifier: MIT */
/*
 * test_allocsim.c - the allocator models on cases worked out by hand
 * (rounding, pools, segment sizes, splitting, merging, streams, release,
 * empty_cache, expandable segments),
 * against a naive reference (linear scans over a block list) on random
 * request sequences, and on a 10^5-buffer trace for speed.
 */
#include <stdlib.h>
#include <time.h>

#include "../../analyze/allocsim.h"
#include "tap.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)

static struct allocsim *sim(enum allocsim_model m)
{
	struct allocsim *s = NULL;
	if (allocsim_new(m, &s) != 0)
		abort();
	return s;
}

static struct allocsim_result res(const struct allocsim *s)
{
	struct allocsim_result r;
	allocsim_result(s, &r);
	return r;
}

static void test_names(void)
{
	CHECK(allocsim_from_name("pytorch") == ALLOCSIM_PYTORCH, "name pytorch");
	CHECK(allocsim_from_name("cudamalloc") == ALLOCSIM_CUDAMALLOC,
	      "name cudamalloc");
	CHECK(allocsim_from_name("tcmalloc") == -1, "unknown name");
	CHECK(allocsim_name(ALLOCSIM_COUNT) == NULL, "no name past the end");
}

static void test_pytorch_small(void)
{
	struct allocsim *s = sim(ALLOCSIM_PYTORCH);
	/* 1000 B rounds to 1024 in a 2 MiB small segment */
	CHECK(allocsim_alloc(s, 0, 1000, 0, 0) == 0, "small alloc");
	struct allocsim_result r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 2 * MiB, "small request reserves a 2 MiB segment");
	CHECK_EQ_U64(r.allocated_peak, 1024, "1000 B rounds up to 1024 B");
	CHECK_EQ_U64(r.live_peak, 1000, "live counts requested bytes");
	/* two 1 MiB requests: the first splits the segment, the second fits */
	CHECK(allocsim_alloc(s, 1, MiB, 0, 1) == 0, "1 MiB alloc");
	CHECK(allocsim_alloc(s, 2, MiB - 1024, 0, 2) == 0, "1 MiB - 1 KiB alloc");
	r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 2 * MiB, "both fit the first segment");
	CHECK_EQ_U64(r.device_allocs, 1, "one segment");
	CHECK(allocsim_alloc(s, 3, 1, 0, 3) == 0, "1 B alloc");
	r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 4 * MiB, "a full segment needs another");
	CHECK(allocsim_alloc(s, 1, 5, 0, 4) == TRACE_EINVAL, "double alloc refused");
	CHECK(allocsim_free(s, 9, 4) == TRACE_EINVAL, "free of unknown id refused");
	CHECK(allocsim_alloc(s, 7, 0, 0, 4) == TRACE_EINVAL, "zero size refused");
	allocsim_destroy(s);
}

static void test_pytorch_large(void)
{
	struct allocsim *s = sim(ALLOCSIM_PYTORCH);
	/* 1.5 MiB: large pool, 20 MiB segment, split (18.5 MiB > 1 MiB left) */
	allocsim_alloc(s, 0, 3 * MiB / 2, 0, 0);
	struct allocsim_result r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 20 * MiB, "1..10 MiB request takes a 20 MiB segment");
	CHECK_EQ_U64(r.allocated_peak, 3 * MiB / 2, "the block was split");
	/* 5 MiB fits the 18.5 MiB remainder */
	allocsim_alloc(s, 1, 5 * MiB, 0, 1);
	CHECK_EQ_U64(res(s).device_allocs, 1, "5 MiB reuses the remainder");
	/* 15 MiB: 13.5 MiB left is too small; >= 10 MiB rounds to 2 MiB: 16 MiB,
	 * 1 MiB left is not more than 1 MiB: not split */
	allocsim_alloc(s, 2, 15 * MiB, 0, 2);
	r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 36 * MiB, "15 MiB gets a 16 MiB segment");
	CHECK_EQ_U64(r.allocated_peak, 3 * MiB / 2 + 5 * MiB + 16 * MiB,
		     "an unsplit block is handed out whole");
	CHECK_EQ_U64(r.device_allocs, 2, "two segments");
	allocsim_destroy(s);

	s = sim(ALLOCSIM_PYTORCH);
	/* 19.5 MiB -> 20 MiB segment, 0.5 MiB left: whole block */
	allocsim_alloc(s, 0, 39 * MiB / 2, 0, 0);
	CHECK_EQ_U64(res(s).allocated_peak, 20 * MiB, "0.5 MiB remainder not split");
	allocsim_free(s, 0, 1);
	/* a 1.2 MiB request takes the cached 20 MiB block and splits it */
	allocsim_alloc(s, 1, 1258291, 0, 2);
	allocsim_alloc(s, 2, 18 * MiB, 0, 3);
	r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 20 * MiB, "cached block reused and split");
	CHECK_EQ_U64(r.device_allocs, 1, "no new segment");
	CHECK_EQ_U64(r.reserved_end, 20 * MiB, "nothing is released");
	allocsim_destroy(s);
}

static void test_pytorch_merge(void)
{
	struct allocsim *s = sim(ALLOCSIM_PYTORCH);
	allocsim_alloc(s, 0, 4 * MiB, 0, 0); /* [a 4][rest 16] */
	allocsim_alloc(s, 1, 4 * MiB, 0, 1); /* [a 4][b 4][rest 12] */
	allocsim_free(s, 0, 2);
	allocsim_free(s, 1, 3); /* merges a, b and rest: one 20 MiB block */
	allocsim_alloc(s, 2, 16 * MiB, 0, 4);
	struct allocsim_result r = res(s);
	CHECK_EQ_U64(r.device_allocs, 1, "freed neighbours merge back into 20 MiB");
	CHECK_EQ_U64(r.reserved_peak, 20 * MiB, "merged block serves 16 MiB");
	allocsim_destroy(s);

	/* best fit: free holes of 3 and 5 MiB and an 8 MiB tail */
	s = sim(ALLOCSIM_PYTORCH);
	allocsim_alloc(s, 0, 3 * MiB, 0, 0);
	allocsim_alloc(s, 1, 2 * MiB, 0, 1);
	allocsim_alloc(s, 2, 5 * MiB, 0, 2);
	allocsim_alloc(s, 3, 2 * MiB, 0, 3);
	allocsim_free(s, 0, 4);
	allocsim_free(s, 2, 5);
	allocsim_alloc(s, 4, 9 * MiB / 2, 0, 6); /* best fit: the 5 MiB hole */
	allocsim_alloc(s, 5, 15 * MiB / 2, 0, 7); /* so 8 MiB is still there */
	CHECK_EQ_U64(res(s).device_allocs, 1, "best fit leaves the large hole");
	allocsim_destroy(s);
}

static void test_pytorch_streams(void)
{
	struct allocsim *s = sim(ALLOCSIM_PYTORCH);
	allocsim_alloc(s, 0, 1000, 0, 0);
	allocsim_free(s, 0, 1);
	allocsim_alloc(s, 1, 1000, 1, 2);
	CHECK_EQ_U64(res(s).reserved_peak, 4 * MiB, "another stream cannot reuse the block");
	allocsim_alloc(s, 2, 1000, 0, 3);
	CHECK_EQ_U64(res(s).reserved_peak, 4 * MiB, "the first stream reuses its own");
	allocsim_alloc(s, 3, 1000, TRACE_NONE, 4);
	CHECK_EQ_U64(res(s).reserved_peak, 6 * MiB, "unknown stream is a stream of its own");
	allocsim_destroy(s);
}

static void test_reserved_peak_live(void)
{
	struct allocsim *s = sim(ALLOCSIM_PYTORCH);
	allocsim_alloc(s, 0, 3 * MiB / 2, 0, 10);
	allocsim_alloc(s, 1, KiB, 0, 11);
	struct allocsim_result r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 22 * MiB, "large and small segment");
	CHECK(r.reserved_peak_at == 11, "reserved peak first reached at clock 11");
	allocsim_free(s, 1, 12);
	allocsim_alloc(s, 2, 5 * MiB, 0, 13);
	r = res(s);
	CHECK_EQ_U64(r.live_at_reserved_peak, 3 * MiB / 2 + 5 * MiB,
		     "live at reserved peak is the most live while at the peak");
	CHECK_EQ_U64(r.live_peak, 3 * MiB / 2 + 5 * MiB, "live peak");
	allocsim_destroy(s);
}

/* empty_cache(): wholly free segments go back; a split one stays. */
static void test_pytorch_release(void)
{
	struct allocsim *s = sim(ALLOCSIM_PYTORCH);
	CHECK(allocsim_alloc(s, 0, 12 * MiB, 0, 0) == 0 &&
		      allocsim_alloc(s, 1, 4 * MiB, 0, 1) == 0 &&
		      allocsim_alloc(s, 2, 5 * MiB, 0, 2) == 0,
	      "12 MiB (own segment), 4 MiB and 5 MiB (a 20 MiB segment, split)");
	CHECK(allocsim_free(s, 0, 3) == 0 && allocsim_free(s, 1, 4) == 0, "free two");
	CHECK(allocsim_release(s, 5) == 0, "release");
	struct allocsim_result r = res(s);
	CHECK_EQ_U64(r.reserved_end, 20 * MiB,
		     "the free 12 MiB segment went back, the 20 MiB one in use stayed");
	CHECK_EQ_U64(r.device_frees, 1, "one segment freed");
	CHECK_EQ_U64(r.releases, 1, "one release");
	CHECK(allocsim_alloc(s, 3, 24 * MiB, 0, 6) == 0, "24 MiB after it");
	r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 44 * MiB,
		     "the peak is 20 + 24 MiB, not 12 + 20 + 24 MiB without the release");
	allocsim_destroy(s);
	s = sim(ALLOCSIM_CUDAMALLOC);
	CHECK(allocsim_release(s, 0) == 0 && res(s).releases == 0,
	      "cudaMalloc keeps nothing to release");
	allocsim_destroy(s);
	CHECK(allocsim_is_release_mark("segment_free") &&
		      allocsim_is_release_mark("segment_unmap") &&
		      !allocsim_is_release_mark("segment_alloc") &&
		      !allocsim_is_release_mark(NULL),
	      "release marks are the importer's segment_free and segment_unmap");
}

/* expandable_segments:True: one segment per pool and stream, mapped in
 * pages of 20 MiB (large) and 2 MiB (small). */
static void test_pytorch_expandable(void)
{
	struct allocsim *s = sim(ALLOCSIM_PYTORCH);
	CHECK(allocsim_set_expandable(s, 1) == 0, "expandable before any request");
	CHECK(allocsim_alloc(s, 0, 12 * MiB, 0, 0) == 0, "12 MiB");
	struct allocsim_result r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 20 * MiB, "maps one 20 MiB page");
	CHECK(allocsim_alloc(s, 1, 12 * MiB, 0, 1) == 0, "another 12 MiB");
	r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 40 * MiB,
		     "the free 8 MiB and a second page hold it: 40 MiB, where fixed segments take 24");
	CHECK(allocsim_alloc(s, 2, 16 * MiB, 0, 2) == 0, "16 MiB");
	r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 40 * MiB, "fits the 16 MiB left mapped");
	CHECK(allocsim_alloc(s, 3, 100 * KiB, 0, 3) == 0, "100 KiB");
	r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 42 * MiB, "the small pool maps a 2 MiB page");
	CHECK(allocsim_free(s, 0, 4) == 0 && allocsim_free(s, 1, 5) == 0,
	      "free both 12 MiB blocks");
	CHECK(allocsim_alloc(s, 4, 24 * MiB, 0, 6) == 0, "24 MiB");
	r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 42 * MiB,
		     "the freed blocks merged: 24 MiB fits where they were");
	CHECK(allocsim_free(s, 4, 7) == 0 && allocsim_free(s, 2, 8) == 0 &&
		      allocsim_free(s, 3, 9) == 0, "free everything");
	CHECK(allocsim_release(s, 10) == 0, "release");
	r = res(s);
	CHECK_EQ_U64(r.reserved_end, 0, "every page is unmapped");
	CHECK(allocsim_alloc(s, 5, 30 * MiB, 0, 11) == 0, "30 MiB");
	r = res(s);
	CHECK_EQ_U64(r.reserved_end, 40 * MiB, "maps two pages again from the start");
	CHECK(allocsim_alloc(s, 6, 1, 0, 12) == 0 && allocsim_free(s, 6, 13) == 0,
	      "a small block comes and goes");
	CHECK(allocsim_alloc(s, 7, 2 * MiB, 0, 14) == 0 && allocsim_free(s, 5, 15) == 0,
	      "2 MiB after the 30, then the 30 freed");
	CHECK(allocsim_release(s, 16) == 0, "release around a block in use");
	r = res(s);
	CHECK_EQ_U64(r.reserved_end, 20 * MiB,
		     "only the 20 MiB page holding the 2 MiB block stays mapped");
	allocsim_destroy(s);
	s = sim(ALLOCSIM_CUDAMALLOC);
	CHECK(allocsim_set_expandable(s, 1) == TRACE_EINVAL,
	      "expandable segments are PyTorch's only");
	allocsim_destroy(s);
}

static void test_cudamalloc(void)
{
	struct allocsim *s = sim(ALLOCSIM_CUDAMALLOC);
	allocsim_alloc(s, 0, 3 * MiB, 0, 0);
	struct allocsim_result r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 4 * MiB, "3 MiB takes two 2 MiB pages");
	allocsim_free(s, 0, 1);
	r = res(s);
	CHECK_EQ_U64(r.reserved_end, 0, "cudaFree gives the pages back");
	CHECK_EQ_U64(r.device_frees, 1, "one release");
	allocsim_destroy(s);

	s = sim(ALLOCSIM_CUDAMALLOC);
	allocsim_alloc(s, 1, 100, 0, 2);
	allocsim_alloc(s, 2, 100, 1, 3);
	allocsim_alloc(s, 3, 700, 0, 4);
	r = res(s);
	CHECK_EQ_U64(r.reserved_peak, 2 * MiB, "small requests share a page, streams or not");
	CHECK_EQ_U64(r.allocated_peak, 512 + 512 + 1024, "512-byte granularity");
	allocsim_free(s, 1, 5);
	allocsim_free(s, 2, 6);
	CHECK_EQ_U64(res(s).reserved_end, 2 * MiB, "a page with a live block stays");
	allocsim_free(s, 3, 7);
	CHECK_EQ_U64(res(s).reserved_end, 0, "an empty page goes back");

	allocsim_alloc(s, 4, 3 * MiB / 2, 0, 8);
	allocsim_alloc(s, 5, MiB, 0, 9);
	CHECK_EQ_U64(res(s).reserved_end, 4 * MiB, "1 MiB does not fit the 0.5 MiB left");
	allocsim_destroy(s);
}

static void test_run_trace(void)
{
	struct trace *t = trace_new();
	struct trace_buffer w = { .size = 3 * MiB / 2, .stream = 0,
				  .fixed_offset = TRACE_NONE };
	trace_add_buffer(t, &w); /* 0: persistent, allocated first */
	struct trace_buffer a = { .size = 5 * MiB, .stream = 0,
				  .fixed_offset = TRACE_NONE };
	trace_add_buffer(t, &a); /* 1 */
	struct trace_buffer h = { .size = 64 * MiB, .stream = 0,
				  .kind = TRACE_KIND_HOST,
				  .fixed_offset = TRACE_NONE };
	trace_add_buffer(t, &h); /* 2: pinned host, not simulated */
	struct trace_event e = { .seq = 0, .type = TRACE_EV_ALLOC, .buffer = 1,
				 .t_start = TRACE_TIME_NONE,
				 .t_end = TRACE_TIME_NONE, .stream = 0 };
	trace_add_event(t, &e);
	e.seq = 1;
	e.buffer = 2;
	trace_add_event(t, &e);
	e.seq = 2;
	e.type = TRACE_EV_FREE;
	e.buffer = 1;
	trace_add_event(t, &e);
	char err[256];
	CHECK(trace_finish(t, err, sizeof(err)) == 0, "hand trace is valid");
	struct allocsim_result r;
	CHECK(allocsim_run(t, ALLOCSIM_PYTORCH, &r, err, sizeof(err)) == 0, "run pytorch");
	CHECK_EQ_U64(r.reserved_peak, 20 * MiB, "persistent first, then 5 MiB in the same segment");
	CHECK_EQ_U64(r.skipped, 1, "host buffer skipped");
	CHECK_EQ_U64(r.requests, 2, "two requests replayed");
	CHECK(allocsim_run(t, ALLOCSIM_CUDAMALLOC, &r, err, sizeof(err)) == 0, "run cudamalloc");
	CHECK_EQ_U64(r.reserved_peak, 8 * MiB, "2 MiB + 6 MiB under cudaMalloc");
	CHECK_EQ_U64(r.reserved_end, 2 * MiB, "the weight stays");
	trace_free(t);
}

/* --- a naive reference: a list of blocks, linear scans ----------------- */

struct nblk {
	uint64_t addr, size, req;
	int64_t stream;
	int pool, used, live;
	int64_t id;
	size_t seg;
};

struct naive {
	enum allocsim_model m;
	struct nblk *b;
	size_t n;
	uint64_t *segsize, *segbase;
	size_t nseg;
	uint64_t next, reserved, live, allocated;
	struct allocsim_result r;
};

static uint64_t rup(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

static void naive_alloc(struct naive *s, int64_t id, uint64_t size,
			int64_t stream, int64_t at)
{
	int cuda = s->m == ALLOCSIM_CUDAMALLOC;
	uint64_t r = size < 512 ? 512 : (cuda && size >= 2 * MiB) ? rup(size, 2 * MiB) : rup(size, 512);
	int pool = cuda ? r >= 2 * MiB : r > MiB;
	int64_t st = cuda ? 0 : stream;
	size_t best = s->n;
	for (size_t i = 0; i < s->n; i++) {
		struct nblk *b = &s->b[i];
		if (!b->live || b->used || b->pool != pool || b->stream != st || b->size < r)
			continue;
		if (best == s->n || b->size < s->b[best].size ||
		    (b->size == s->b[best].size && b->addr < s->b[best].addr))
			best = i;
	}
	s->b = realloc(s->b, (s->n + 2) * sizeof(*s->b));
	if (best == s->n) {
		uint64_t seg = cuda ? (r < 2 * MiB ? 2 * MiB : r)
				    : r <= MiB ? 2 * MiB : r < 10 * MiB ? 20 * MiB : rup(r, 2 * MiB);
		s->segsize = realloc(s->segsize, (s->nseg + 1) * sizeof(*s->segsize));
		s->segbase = realloc(s->segbase, (s->nseg + 1) * sizeof(*s->segbase));
		s->segsize[s->nseg] = seg;
		s->segbase[s->nseg] = s->next;
		s->b[s->n] = (struct nblk){ s->next, seg, 0, st, pool, 0, 1, -1, s->nseg++ };
		best = s->n++;
		s->next += rup(seg, 2 * MiB);
		s->reserved += seg;
		s->r.device_allocs++;
	}
	struct nblk *b = &s->b[best];
	uint64_t rem = b->size - r;
	if ((!cuda && pool) ? rem > MiB : rem >= 512) {
		s->b[s->n++] = (struct nblk){ b->addr + r, rem, 0, b->stream, b->pool, 0, 1, -1, b->seg };
		b->size = r;
	}
	b->used = 1;
	b->req = size;
	b->id = id;
	s->live += size;
	s->allocated += b->size;
	if (s->live > s->r.live_peak)
		s->r.live_peak = s->live;
	if (s->allocated > s->r.allocated_peak)
		s->r.allocated_peak = s->allocated;
	if (s->reserved > s->r.reserved_peak) {
		s->r.reserved_peak = s->reserved;
		s->r.reserved_peak_at = at;
		s->r.live_at_reserved_peak = s->live;
	} else if (s->reserved == s->r.reserved_peak && s->live > s->r.live_at_reserved_peak) {
		s->r.live_at_reserved_peak = s->live;
	}
}

static void naive_free(struct naive *s, int64_t id)
{
	size_t k = 0;
	while (!(s->b[k].live && s->b[k].used && s->b[k].id == id))
		k++;
	struct nblk *b = &s->b[k];
	b->used = 0;
	s->live -= b->req;
	s->allocated -= b->size;
	/* merge with the free blocks of its segment that touch it */
	for (int again = 1; again;) {
		again = 0;
		for (size_t i = 0; i < s->n; i++) {
			struct nblk *o = &s->b[i];
			if (i == k || !o->live || o->used || o->seg != b->seg)
				continue;
			if (o->addr + o->size == b->addr || b->addr + b->size == o->addr) {
				if (o->addr < b->addr)
					b->addr = o->addr;
				b->size += o->size;
				o->live = 0;
				again = 1;
			}
		}
	}
	if (s->m == ALLOCSIM_CUDAMALLOC && b->addr == s->segbase[b->seg] &&
	    b->size == s->segsize[b->seg]) {
		s->reserved -= b->size;
		b->live = 0;
	}
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t rand_size(void)
{
	switch (rnd() % 4) {
	case 0: return 1 + rnd() % 4096;
	case 1: return 1 + rnd() % (2 * MiB);
	case 2: return MiB + rnd() % (12 * MiB);
	default: return 1 + rnd() % (40 * MiB);
	}
}

static void test_against_naive(void)
{
	int bad = 0;
	for (int round = 0; round < 300 && !bad; round++) {
		enum allocsim_model m = round % 2 ? ALLOCSIM_PYTORCH : ALLOCSIM_CUDAMALLOC;
		struct allocsim *s = sim(m);
		struct naive nv = { .m = m, .next = 1ull << 32 };
		nv.r.reserved_peak_at = INT64_MIN;
		int64_t live[64];
		size_t nlive = 0;
		int64_t next_id = 0;
		for (int step = 0; step < 200; step++) {
			if (nlive && (nlive == 64 || rnd() % 2)) {
				size_t k = rnd() % nlive;
				allocsim_free(s, live[k], step);
				naive_free(&nv, live[k]);
				live[k] = live[--nlive];
			} else {
				uint64_t sz = rand_size();
				int64_t st = (int64_t)(rnd() % 3);
				allocsim_alloc(s, next_id, sz, st, step);
				naive_alloc(&nv, next_id, sz, st, step);
				live[nlive++] = next_id++;
			}
		}
		struct allocsim_result a = res(s), b = nv.r;
		if (a.reserved_peak != b.reserved_peak || a.live_peak != b.live_peak ||
		    a.allocated_peak != b.allocated_peak ||
		    a.live_at_reserved_peak != b.live_at_reserved_peak ||
		    a.reserved_peak_at != b.reserved_peak_at ||
		    a.device_allocs != b.device_allocs) {
			bad = 1;
			printf("#   round %d (%s): reserved %llu vs %llu, allocated %llu vs %llu, segments %llu vs %llu\n",
			       round, allocsim_name(m),
			       (unsigned long long)a.reserved_peak, (unsigned long long)b.reserved_peak,
			       (unsigned long long)a.allocated_peak, (unsigned long long)b.allocated_peak,
			       (unsigned long long)a.device_allocs, (unsigned long long)b.device_allocs);
		}
		allocsim_destroy(s);
		free(nv.b);
		free(nv.segsize);
		free(nv.segbase);
	}
	CHECK(!bad, "tree allocator matches the naive reference on 300 random sequences");
}

static void test_large_random(void)
{
	/* 10^5 buffers with random lifetimes: allocs and frees interleaved */
	enum { N = 100000 };
	int64_t *order = malloc(2 * N * sizeof(*order));
	for (int64_t i = 0; i < N; i++) {
		order[2 * i] = i;
		order[2 * i + 1] = -i - 1;
	}
	/* shuffle frees forward only: a free must stay after its alloc, so
	 * build the sequence by a random walk over a live set instead */
	int64_t *live = malloc(N * sizeof(*live));
	size_t nlive = 0, n = 0;
	int64_t next = 0;
	while (next < N || nlive) {
		if (nlive && (next == N || rnd() % 100 < 48)) {
			size_t k = rnd() % nlive;
			order[n++] = -live[k] - 1;
			live[k] = live[--nlive];
		} else {
			live[nlive++] = next;
			order[n++] = next++;
		}
	}
	for (int m = 0; m < ALLOCSIM_COUNT; m++) {
		struct allocsim *s = sim((enum allocsim_model)m);
		clock_t c0 = clock();
		int rc = 0;
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = order[i] >= 0 ? allocsim_alloc(s, order[i], rand_size() / 8 + 1,
							    order[i] % 4, (int64_t)i)
					   : allocsim_free(s, -order[i] - 1, (int64_t)i);
		double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
		struct allocsim_result r = res(s);
		char what[128];
		snprintf(what, sizeof(what), "%s: 10^5 buffers replayed in %.3f s",
			 allocsim_name((unsigned)m), secs);
		CHECK(rc == 0 && secs < 10, what);
		CHECK(r.reserved_peak >= r.allocated_peak && r.allocated_peak >= r.live_peak,
		      "reserved >= allocated >= live");
		if (m == ALLOCSIM_CUDAMALLOC)
			CHECK_EQ_U64(r.reserved_end, 0, "cudaMalloc holds nothing at the end");
		allocsim_destroy(s);
	}
	free(order);
	free(live);
}

int main(void)
{
	test_names();
	test_pytorch_small();
	test_pytorch_large();
	test_pytorch_merge();
	test_pytorch_streams();
	test_reserved_peak_live();
	test_pytorch_release();
	test_pytorch_expandable();
	test_cudamalloc();
	test_run_trace();
	test_against_naive();
	test_large_random();
	return tap_done();
}
