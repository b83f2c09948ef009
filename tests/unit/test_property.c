/* SPDX-License-Identifier: MIT */
/*
 * test_property.c - random traces (seeded, reproducible) on both clocks:
 * lifetimes, use points and the peaks computed by trace.c agree with a
 * brute-force computation, before and after a trip through SQLite.
 */
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "tracedb.h"

static uint64_t rng;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

/*
 * A random iteration: some buffers live at the start, then a random walk of
 * allocs, frees and kernels touching live buffers; seqs grow by 1..3; on the
 * time clock, times grow by 0..2 (ties allowed, but a free comes strictly
 * after the last use, as the model requires) and buffers get holes.
 */
static struct trace *random_trace(int time_clock)
{
	struct trace *t = trace_new();
	if (time_clock)
		trace_set_meta(t, "clock", "time");
	size_t nb = 1 + below(40);
	enum { UNBORN, LIVE, DEAD } *state = calloc(nb, sizeof(*state));
	int64_t *last_use = calloc(nb, sizeof(*last_use));
	for (size_t i = 0; i < nb; i++) {
		struct trace_buffer b = { .size = 1 + below(1u << 20),
					  .stream = TRACE_NONE,
					  .fixed_offset = TRACE_NONE };
		trace_add_buffer(t, &b);
		if (below(5) == 0)
			state[i] = LIVE; /* live at start */
	}
	int64_t seq = (int64_t)below(10), now = 0;
	size_t steps = 1 + below(200);
	for (size_t s = 0; s < steps; s++) {
		struct trace_event e = { .seq = seq, .buffer = TRACE_NONE,
					 .stream = TRACE_NONE,
					 .t_start = time_clock ? now : TRACE_TIME_NONE,
					 .t_end = time_clock ? now : TRACE_TIME_NONE };
		size_t i = below(nb);
		switch (below(3)) {
		case 0:
			if (state[i] != UNBORN)
				goto kernel;
			e.type = TRACE_EV_ALLOC;
			e.buffer = (int64_t)i;
			state[i] = LIVE;
			trace_add_event(t, &e);
			break;
		case 1:
			if (state[i] != LIVE)
				goto kernel;
			if (time_clock && last_use[i] >= now) {
				now = last_use[i] + 1;
				e.t_start = e.t_end = now;
			}
			e.type = TRACE_EV_FREE;
			e.buffer = (int64_t)i;
			state[i] = DEAD;
			trace_add_event(t, &e);
			break;
		default:
		kernel:
			e.type = TRACE_EV_KERNEL;
			e.name = "k";
			trace_add_event(t, &e);
			for (size_t k = below(4); k > 0; k--) {
				size_t j = below(nb);
				if (state[j] == LIVE) {
					trace_add_access(t, (int64_t)j, (uint8_t)below(4));
					last_use[j] = now;
				}
			}
			break;
		}
		seq += 1 + (int64_t)below(3);
		now += (int64_t)below(3);
	}
	free(state);
	free(last_use);
	return t;
}

/*
 * Adds holes inside lifetimes (time clock only), each after the alloc and
 * between two uses, as the model requires; needs a finished trace.
 */
static void add_holes(struct trace *t)
{
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		int64_t lo, hi;
		trace_lifetime(t, b, &lo, &hi);
		if (lo == INT64_MIN || hi == INT64_MAX || hi - lo < 3 || below(2))
			continue;
		/* the span between two neighbours of lo, the uses and hi */
		uint32_t k = (uint32_t)below(b->nuses + 1);
		int64_t p = k == 0 ? lo : trace_event_clock(t, t->uses[b->use0 + k - 1]);
		int64_t q = k == b->nuses ? hi : trace_event_clock(t, t->uses[b->use0 + k]);
		if (q - p < 2)
			continue;
		int64_t a = p + 1 + (int64_t)below((uint64_t)(q - p - 1));
		int64_t z = a + 1 + (int64_t)below((uint64_t)(q - a));
		struct trace_hole h = { (int64_t)i, a, z, TRACE_NONE, TRACE_NONE };
		if (below(2) && b->size > 2) {
			h.win_lo = (int64_t)below(b->size / 2);
			h.win_hi = h.win_lo + 1 + (int64_t)below(b->size / 2);
		}
		trace_add_hole(t, &h);
	}
}

/* Brute force: the live bytes at clock value c. */
static int64_t live_at(const struct trace *t, int64_t c, enum trace_filter f)
{
	int64_t sum = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		int persistent = 1, seen_alloc = 0, seen_free = 0;
		int64_t lo = INT64_MIN, hi = INT64_MAX;
		for (size_t e = 0; e < t->nevents; e++) {
			const struct trace_event *ev = &t->events[e];
			int64_t clock = t->clock == TRACE_CLOCK_TIME ? ev->t_start : ev->seq;
			if (ev->buffer != (int64_t)i)
				continue;
			if (ev->type == TRACE_EV_ALLOC) {
				lo = clock;
				seen_alloc = 1;
			} else if (ev->type == TRACE_EV_FREE) {
				hi = clock;
				seen_free = 1;
			}
		}
		persistent = !(seen_alloc && seen_free);
		if ((f == TRACE_TRANSIENT && persistent) ||
		    (f == TRACE_PERSISTENT && !persistent))
			continue;
		if (!(lo <= c && c < hi))
			continue;
		int64_t here = (int64_t)b->size;
		for (size_t h = 0; h < t->nholes; h++) {
			const struct trace_hole *x = &t->holes[h];
			if (x->buffer == (int64_t)i && x->lower <= c && c < x->upper)
				here = x->win_lo == TRACE_NONE ? 0 : x->win_hi - x->win_lo;
		}
		sum += here;
	}
	return sum;
}

static uint64_t brute_peak(const struct trace *t, enum trace_filter f)
{
	int64_t best = 0;
	for (size_t e = 0; e < t->nevents; e++) {
		int64_t c = trace_event_clock(t, e);
		int64_t v = live_at(t, c, f);
		if (v > best)
			best = v;
	}
	for (size_t h = 0; h < t->nholes; h++) { /* a hole's end is a point too */
		int64_t v = live_at(t, t->holes[h].upper, f);
		if (v > best)
			best = v;
	}
	/* before the first event, what is live at the start is live */
	int64_t v = live_at(t, INT64_MIN, f);
	if (v > best)
		best = v;
	return (uint64_t)best;
}

/* The trace's uses/lifetimes agree with a scan of its events. */
static int check_derived(const struct trace *t)
{
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		int64_t alloc = TRACE_NONE, freed = TRACE_NONE;
		size_t nuse = 0;
		int64_t last = -1;
		for (size_t e = 0; e < t->nevents; e++) {
			const struct trace_event *ev = &t->events[e];
			if (ev->buffer == (int64_t)i && ev->type == TRACE_EV_ALLOC)
				alloc = (int64_t)e;
			if (ev->buffer == (int64_t)i && ev->type == TRACE_EV_FREE)
				freed = (int64_t)e;
			for (uint32_t k = 0; k < ev->nacc; k++) {
				if (t->accesses[ev->acc0 + k].buffer != (int64_t)i ||
				    last == (int64_t)e)
					continue;
				if (nuse >= b->nuses || t->uses[b->use0 + nuse] != e)
					return 0;
				nuse++;
				last = (int64_t)e;
			}
		}
		if (nuse != b->nuses || alloc != b->alloc_ev || freed != b->free_ev)
			return 0;
	}
	return 1;
}

int main(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/memplan-prop-%ld.trace", (long)getpid());
	int derived_ok = 0, peak_ok = 0, reload_ok = 0, rounds = 0;
	uint64_t bad_seed = 0;
	for (uint64_t seed = 1; seed <= 300; seed++) {
		rng = seed * 0x9E3779B97F4A7C15ull;
		int time_clock = seed % 2 == 0;
		struct trace *t = random_trace(time_clock);
		char err[512];
		if (trace_finish(t, err, sizeof(err)) != 0) {
			printf("# seed %llu: %s\n", (unsigned long long)seed, err);
			bad_seed = seed;
			trace_free(t);
			continue;
		}
		if (time_clock) {
			add_holes(t);
			if (trace_finish(t, err, sizeof(err)) != 0) {
				printf("# seed %llu holes: %s\n", (unsigned long long)seed, err);
				bad_seed = seed;
				trace_free(t);
				continue;
			}
		}
		rounds++;
		derived_ok += check_derived(t);
		int same = 1;
		for (int f = TRACE_ALL; f <= TRACE_PERSISTENT; f++)
			if (trace_peak(t, (enum trace_filter)f, NULL) !=
			    brute_peak(t, (enum trace_filter)f)) {
				same = 0;
				bad_seed = seed;
			}
		peak_ok += same;
		struct trace *u = NULL;
		if (trace_save(t, path, err, sizeof(err)) == 0 &&
		    trace_load(path, &u, err, sizeof(err)) == 0 &&
		    check_derived(u) &&
		    trace_peak(u, TRACE_ALL, NULL) == trace_peak(t, TRACE_ALL, NULL) &&
		    trace_peak(u, TRACE_TRANSIENT, NULL) ==
			    trace_peak(t, TRACE_TRANSIENT, NULL) &&
		    u->nholes == t->nholes && u->naccesses == t->naccesses)
			reload_ok++;
		else
			printf("# seed %llu reload: %s\n", (unsigned long long)seed, err);
		trace_free(u);
		trace_free(t);
	}
	unlink(path);
	CHECK(rounds == 300, "all 300 random traces are valid");
	CHECK(derived_ok == rounds, "alloc/free events and use points match a scan");
	CHECK(peak_ok == rounds, "peaks (all, transient, persistent) match brute force");
	CHECK(reload_ok == rounds, "save and load keep uses, peaks, holes and accesses");
	if (bad_seed)
		printf("# first failing seed: %llu\n", (unsigned long long)bad_seed);
	return tap_done();
}
