/* SPDX-License-Identifier: MIT */
/*
 * test_analyze.c - the summary figures (report.c) on small traces worked out
 * by hand: peak and when, lower bound, what is live at the peak and its
 * groups, the swappable room with and without accesses, holes; and on
 * random traces against brute force (peak, lower bound, live set, idle
 * buffers and their gaps).  The swap floor (swapfloor.h) on hand-made
 * traces, against brute force over the plan format's swap rule, and
 * against every plan budget_plan() makes on zoo traces.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include <sqlite3.h>

/* the Makefile has no -Ianalyze */
#include "../../analyze/check.h"
#include "../../analyze/diff.h"
#include "../../analyze/scan.h"
#include "../../analyze/timeline.h"
#include "budget.h"
#include "tracedb.h"
#include "../../analyze/report.h"
#include "../../analyze/swapfloor.h"
#include "simulate.h"
#include "swap.h"
#include "synth.h"
#include "tap.h"

#define NO_TIME TRACE_TIME_NONE

static int64_t buf(struct trace *t, uint64_t size, unsigned role,
		   const char *label)
{
	struct trace_buffer b = { .size = size, .stream = 0, .role = (uint8_t)role,
				  .fixed_offset = TRACE_NONE, .label = label };
	return trace_add_buffer(t, &b);
}

static void ev(struct trace *t, int64_t seq, unsigned type, int64_t buffer,
	       int64_t t0, int64_t t1)
{
	struct trace_event e = { .seq = seq, .type = (uint8_t)type,
				 .buffer = buffer, .stream = 0, .t_start = t0,
				 .t_end = t1, .name = type == TRACE_EV_KERNEL ? "k" : NULL };
	trace_add_event(t, &e);
}

static void acc(struct trace *t, int64_t buffer)
{
	trace_add_access(t, buffer, TRACE_ACCESS_RW);
}

static const struct report_live *find_live(const struct report *r, int64_t id)
{
	for (size_t i = 0; i < r->nlive; i++)
		if (r->live[i].buffer == id)
			return &r->live[i];
	return NULL;
}

static uint64_t group_bytes(const struct report_group *g, size_t n,
			    const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (g[i].name && strcmp(g[i].name, name) == 0)
			return g[i].bytes;
	return 0;
}

/*
 * W (weight, persistent) and A, B, C (transient):
 *   seq 0 alloc A @0      seq 5 kernel [20,30) B C
 *   seq 1 kernel [0,10) W A   seq 6 free B @30
 *   seq 2 alloc B @10     seq 7 kernel [30,40) A C W
 *   seq 3 kernel [10,20) B    seq 8 free C @40
 *   seq 4 alloc C @20     seq 9 free A @40
 * Peak 10000 at seq 4 (allocating C); A, B and W are idle there.
 */
static void test_hand_seq(void)
{
	struct trace *t = trace_new();
	int64_t W = buf(t, 1000, TRACE_ROLE_WEIGHT, "fc.weight");
	int64_t A = buf(t, 4000, TRACE_ROLE_ACTIVATION, "layer1.0.out");
	int64_t B = buf(t, 2000, TRACE_ROLE_TEMP, "layer1.0.tmp");
	int64_t C = buf(t, 3000, TRACE_ROLE_ACTIVATION, "layer2.0.out");
	ev(t, 0, TRACE_EV_ALLOC, A, 0, 0);
	ev(t, 1, TRACE_EV_KERNEL, TRACE_NONE, 0, 10);
	acc(t, W);
	acc(t, A);
	ev(t, 2, TRACE_EV_ALLOC, B, 10, 10);
	ev(t, 3, TRACE_EV_KERNEL, TRACE_NONE, 10, 20);
	acc(t, B);
	ev(t, 4, TRACE_EV_ALLOC, C, 20, 20);
	ev(t, 5, TRACE_EV_KERNEL, TRACE_NONE, 20, 30);
	acc(t, B);
	acc(t, C);
	ev(t, 6, TRACE_EV_FREE, B, 30, 30);
	ev(t, 7, TRACE_EV_KERNEL, TRACE_NONE, 30, 40);
	acc(t, A);
	acc(t, C);
	acc(t, W);
	ev(t, 8, TRACE_EV_FREE, C, 40, 40);
	ev(t, 9, TRACE_EV_FREE, A, 40, 40);
	char err[256];
	CHECK(trace_finish(t, err, sizeof(err)) == 0, "hand trace is valid");

	struct report r;
	CHECK(report_build(t, NULL, REPORT_ALL_ALLOCATORS, &r, err, sizeof(err)) == 0,
	      "report builds");
	CHECK_EQ_U64(r.peak, 10000, "peak is every buffer at seq 4");
	CHECK(r.peak_at == 4 && r.peak_seq == 4, "peak at seq 4");
	CHECK(r.peak_time == 20, "peak at time 20");
	CHECK(r.peak_buffer == C, "peak reached allocating C");
	CHECK_EQ_U64(r.lower_bound, 9000, "lower bound: transient A+B+C");
	CHECK_EQ_U64(r.npersistent, 1, "one persistent buffer");
	CHECK_EQ_U64(r.persistent_bytes, 1000, "persistent bytes");
	CHECK_EQ_U64(r.transient_bytes, 9000, "transient bytes");
	CHECK_EQ_U64(r.hist[9].count, 1, "1000 B in [512, 1024)");
	CHECK_EQ_U64(r.hist[10].count, 1, "2000 B in [1024, 2048)");
	CHECK_EQ_U64(r.hist[11].count, 2, "3000 and 4000 B in [2048, 4096)");
	CHECK_EQ_U64(r.hist[11].bytes, 7000, "their bytes");
	CHECK_EQ_U64(r.hist[12].count, 0, "nothing in [4096, 8192)");
	CHECK(r.time_first == 0 && r.time_last == 40, "span in time");

	CHECK_EQ_U64(r.nlive, 4, "four buffers live at the peak");
	CHECK(r.nlive == 4 && r.live[0].buffer == A && r.live[3].buffer == W,
	      "live list is sorted by bytes");
	const struct report_live *la = find_live(&r, A), *lb = find_live(&r, B),
				 *lc = find_live(&r, C), *lw = find_live(&r, W);
	CHECK(la && la->idle && la->last_use == 1 && la->next_use == 7,
	      "A idle between kernel seq 1 and kernel seq 7");
	CHECK(la && la->gap == 6 && la->gap_ns == 20, "A: gap 6 seqs, 20 ns (10 to 30)");
	CHECK(lb && lb->idle && lb->gap == 2 && lb->gap_ns == 0,
	      "B idle between back-to-back kernels: gap 2 seqs, 0 ns");
	CHECK(lc && !lc->idle, "C is allocated at the peak: not idle");
	CHECK(lw && lw->idle && lw->gap == 6 && lw->gap_ns == 20, "weight W idle too");
	CHECK_EQ_U64(r.idle_bytes, 7000, "swappable room A+B+W");
	CHECK_EQ_U64(r.idle_count, 3, "three idle buffers");
	CHECK(r.gap_min == 2 && r.gap_median == 6 && r.gap_max == 6,
	      "gap stats in seqs (median by bytes)");
	CHECK(r.gap_ns_min == 0 && r.gap_ns_median == 20 && r.gap_ns_max == 20,
	      "gap stats in ns");

	CHECK_EQ_U64(r.by_kind[TRACE_KIND_DEVICE].bytes, 10000, "by kind");
	CHECK_EQ_U64(r.by_role[TRACE_ROLE_ACTIVATION].bytes, 7000, "by role: activations");
	CHECK_EQ_U64(r.by_role[TRACE_ROLE_TEMP].bytes, 2000, "by role: temp");
	CHECK_EQ_U64(group_bytes(r.by_label, r.nlabel, "layer1.0"), 6000, "by label: layer1.0");
	CHECK_EQ_U64(group_bytes(r.by_label, r.nlabel, "layer2.0"), 3000, "by label: layer2.0");
	CHECK_EQ_U64(group_bytes(r.by_label, r.nlabel, "fc"), 1000, "by label: fc");
	CHECK(r.nlabel == 3 && strcmp(r.by_label[0].name, "layer1.0") == 0,
	      "label groups sorted by bytes");

	CHECK(r.allocators == REPORT_ALL_ALLOCATORS, "both allocators ran");
	CHECK_EQ_U64(r.alloc[ALLOCSIM_PYTORCH].reserved_peak, 2u << 20,
		     "pytorch: one 2 MiB small segment");
	CHECK_EQ_U64(r.alloc[ALLOCSIM_CUDAMALLOC].reserved_peak, 2u << 20,
		     "cudamalloc: one page");
	CHECK_EQ_U64(r.alloc[ALLOCSIM_PYTORCH].live_peak, 10000, "allocator live peak");
	report_free(&r);

	CHECK(report_build(t, NULL, 1u << ALLOCSIM_PYTORCH, &r, err, sizeof(err)) == 0 &&
	      r.allocators == 1u << ALLOCSIM_PYTORCH, "one allocator on request");
	report_free(&r);
	trace_free(t);
}

/* An import: time clock, no accesses: alloc and free are the only uses. */
static void test_hand_time(void)
{
	struct trace *t = trace_new();
	trace_set_meta(t, "clock", "time");
	int64_t X = buf(t, 100, 0, "0"), Y = buf(t, 200, 0, "1"),
		Z = buf(t, 50, 0, "2");
	ev(t, 0, TRACE_EV_ALLOC, X, 0, 0);
	ev(t, 1, TRACE_EV_ALLOC, Y, 5, 5);
	ev(t, 2, TRACE_EV_ALLOC, Z, 5, 5);
	ev(t, 3, TRACE_EV_FREE, X, 10, 10);
	ev(t, 4, TRACE_EV_FREE, Y, 15, 15);
	ev(t, 5, TRACE_EV_FREE, Z, 20, 20);
	char err[256];
	CHECK(trace_finish(t, err, sizeof(err)) == 0, "time trace is valid");
	struct report r;
	CHECK(report_build(t, NULL, 0, &r, err, sizeof(err)) == 0, "report builds");
	CHECK_EQ_U64(r.peak, 350, "peak at time 5");
	CHECK(r.peak_at == 5 && r.peak_seq == 2 && r.peak_buffer == Z,
	      "peak reached by the last alloc at time 5");
	const struct report_live *lx = find_live(&r, X), *ly = find_live(&r, Y);
	CHECK(lx && lx->gap == 10 && lx->gap_ns == -1,
	      "X lives from its alloc at 0 to its free at 10 (clock units, no ns)");
	CHECK(lx && ly && !lx->idle && !ly->idle,
	      "no accesses: no buffer is known to be idle");
	CHECK(!r.idle_known && strstr(r.idle_why, "records no access"),
	      "the swappable room is unknown, and why");
	CHECK(r.idle_bytes == 0 && r.idle_count == 0, "no idle bytes counted");
	CHECK(r.allocators == 0, "no allocator asked for");
	report_free(&r);
	trace_free(t);
}

/* A hole keeping a window of 100 bytes: resident bytes count, not idle. */
static void test_hole(void)
{
	struct trace *t = trace_new();
	int64_t P = buf(t, 1000, 0, NULL), Q = buf(t, 950, 0, NULL);
	ev(t, 0, TRACE_EV_ALLOC, P, NO_TIME, NO_TIME);
	ev(t, 3, TRACE_EV_ALLOC, Q, NO_TIME, NO_TIME);
	ev(t, 5, TRACE_EV_FREE, Q, NO_TIME, NO_TIME);
	ev(t, 10, TRACE_EV_FREE, P, NO_TIME, NO_TIME);
	struct trace_hole h = { P, 2, 6, 0, 100 };
	trace_add_hole(t, &h);
	char err[256];
	CHECK(trace_finish(t, err, sizeof(err)) == 0, "hole trace is valid");
	struct report r;
	CHECK(report_build(t, NULL, 0, &r, err, sizeof(err)) == 0, "report builds");
	CHECK_EQ_U64(r.peak, 1050, "peak: 100 resident bytes of P plus Q");
	CHECK(r.peak_at == 3, "at seq 3");
	const struct report_live *lp = find_live(&r, P);
	CHECK(lp && lp->bytes == 100 && !lp->idle, "P counts its window, not idle room");
	CHECK_EQ_U64(group_bytes(r.by_label, r.nlabel, "(none)"), 1050, "unlabelled group");
	report_free(&r);
	trace_free(t);
}

static void test_label_group(void)
{
	char b[64];
	CHECK_STR_HAS(report_label_group("transformer.h.9.ln_2.out", b, sizeof(b)),
		      "transformer.h.9", "layer of a transformer");
	CHECK(strcmp(report_label_group("layer1.0.conv1.weight", b, sizeof(b)), "layer1.0") == 0,
	      "layer of a resnet");
	CHECK(strcmp(report_label_group("conv1.weight", b, sizeof(b)), "conv1") == 0,
	      "first component without a number");
	CHECK(strcmp(report_label_group("17", b, sizeof(b)), "17") == 0, "an import id");
	CHECK(strcmp(report_label_group(NULL, b, sizeof(b)), "(none)") == 0, "no label");
	CHECK(strcmp(report_label_group("a..3.x", b, sizeof(b)), "a..3") == 0, "empty component");
}

/* --- random traces against brute force --------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

/* whether random_trace() puts some kernels on a second stream (the swap
 * floor's brute force knows one stream only) */
static int random_streams;

static struct trace *random_trace(int time_clock)
{
	struct trace *t = trace_new();
	if (time_clock)
		trace_set_meta(t, "clock", "time");
	size_t nb = 1 + below(30);
	enum { UNBORN, LIVE, DEAD } *state = calloc(nb, sizeof(*state));
	int64_t *last_use = calloc(nb, sizeof(*last_use));
	for (size_t i = 0; i < nb; i++) {
		buf(t, 1 + below(5000), (unsigned)below(TRACE_ROLE_COUNT), below(3) ? "l.1.x" : NULL);
		if (below(4) == 0)
			state[i] = LIVE;
	}
	int64_t seq = 0, now = 0;
	for (size_t s = 0, steps = 1 + below(120); s < steps; s++) {
		size_t i = below(nb);
		int64_t t0 = time_clock || below(5) ? now : NO_TIME;
		unsigned k = (unsigned)below(3);
		if (k == 0 && state[i] == UNBORN) {
			ev(t, seq, TRACE_EV_ALLOC, (int64_t)i, t0, t0);
			state[i] = LIVE;
		} else if (k == 1 && state[i] == LIVE) {
			/* a free comes strictly after the last use on the clock */
			if (time_clock && last_use[i] >= t0)
				now = t0 = last_use[i] + 1;
			ev(t, seq, TRACE_EV_FREE, (int64_t)i, t0, t0);
			state[i] = DEAD;
		} else {
			ev(t, seq, TRACE_EV_KERNEL, TRACE_NONE, t0,
			   t0 == NO_TIME ? NO_TIME : t0 + (int64_t)below(3));
			/* now and then a kernel on a second stream: a buffer it
			 * touches besides stream 0's is never idle room */
			if (random_streams && below(6) == 0)
				t->events[t->nevents - 1].stream = 1;
			for (size_t a = below(4); a > 0; a--) {
				size_t j = below(nb);
				if (state[j] == LIVE) {
					acc(t, (int64_t)j);
					last_use[j] = t0;
				}
			}
		}
		seq += 1 + (int64_t)below(2);
		now += (int64_t)below(3);
	}
	free(state);
	free(last_use);
	char err[256];
	if (trace_finish(t, err, sizeof(err)) != 0) {
		printf("# random trace invalid: %s\n", err);
		abort();
	}
	/* holes inside some transient lifetimes (time clock only: MiniMalloc's) */
	for (size_t i = 0; time_clock && i < nb; i++) {
		int64_t lo, hi;
		trace_lifetime(t, &t->buffers[i], &lo, &hi);
		if (lo == INT64_MIN || hi == INT64_MAX || hi - lo < 3 || below(3))
			continue;
		int64_t a = lo + 1 + (int64_t)below((uint64_t)(hi - lo - 2));
		/* no access inside a hole (the model's rule) */
		const struct trace_buffer *b = &t->buffers[i];
		int used = 0;
		for (uint32_t u = 0; u < b->nuses; u++)
			used |= trace_event_clock(t, t->uses[b->use0 + u]) == a;
		if (used)
			continue;
		struct trace_hole h = { (int64_t)i, a, a + 1, TRACE_NONE, TRACE_NONE };
		if (below(2) && t->buffers[i].size > 2) {
			h.win_lo = 0;
			h.win_hi = 1;
		}
		trace_add_hole(t, &h);
	}
	if (trace_finish(t, err, sizeof(err)) != 0) {
		printf("# random trace with holes invalid: %s\n", err);
		abort();
	}
	return t;
}

/* Resident bytes of buffer i at clock c, by definition. */
static uint64_t brute_resident(const struct trace *t, size_t i, int64_t c)
{
	const struct trace_buffer *b = &t->buffers[i];
	int64_t lo, hi;
	trace_lifetime(t, b, &lo, &hi);
	if (!(lo <= c && c < hi))
		return 0;
	for (size_t k = 0; k < t->nholes; k++) {
		const struct trace_hole *h = &t->holes[k];
		if ((size_t)h->buffer == i && h->lower <= c && c < h->upper)
			return h->win_lo == TRACE_NONE ? 0 : (uint64_t)(h->win_hi - h->win_lo);
	}
	return b->size;
}

static int brute_check(const struct trace *t, const struct report *r)
{
	/* every clock value where anything changes */
	uint64_t best = 0, best_lb = 0;
	int64_t best_at = 0;
	for (size_t k = 0; k <= t->nevents + t->nholes * 2; k++) {
		int64_t c;
		if (k == t->nevents + t->nholes * 2)
			c = INT64_MIN; /* before the first event */
		else if (k < t->nevents)
			c = trace_event_clock(t, k);
		else if ((k - t->nevents) % 2 == 0)
			c = t->holes[(k - t->nevents) / 2].lower;
		else
			c = t->holes[(k - t->nevents) / 2].upper;
		uint64_t all = 0, tr = 0;
		for (size_t i = 0; i < t->nbuffers; i++) {
			uint64_t v = brute_resident(t, i, c);
			all += v;
			if (!trace_buffer_persistent(&t->buffers[i]))
				tr += v;
		}
		if (all > best || (all == best && all && c < best_at)) {
			best = all;
			best_at = c;
		}
		if (tr > best_lb)
			best_lb = tr;
	}
	if (t->nevents == 0) {
		/* only persistent buffers: live everywhere */
		for (size_t i = 0; i < t->nbuffers; i++)
			best += t->buffers[i].size;
		best_at = r->peak_at;
	}
	if (r->peak != best || r->lower_bound != best_lb || (best && r->peak_at != best_at)) {
		printf("#   peak %llu at %lld vs brute %llu at %lld; lb %llu vs %llu\n",
		       (unsigned long long)r->peak, (long long)r->peak_at,
		       (unsigned long long)best, (long long)best_at,
		       (unsigned long long)r->lower_bound, (unsigned long long)best_lb);
		return 0;
	}
	/* the live set and its idle buffers */
	uint64_t sum = 0;
	size_t n = 0;
	for (size_t i = 0; best && i < t->nbuffers; i++) {
		uint64_t v = brute_resident(t, i, best_at);
		if (!v)
			continue;
		n++;
		sum += v;
		const struct report_live *l = find_live(r, (int64_t)i);
		if (!l || l->bytes != v)
			return printf("#   buffer %zu missing from the live set\n", i), 0;
		/* uses: alloc, free and every access, from the raw events */
		int64_t last = INT64_MIN, next = INT64_MAX;
		int64_t first_stream = t->buffers[i].stream; /* else its alloc's, else
							     * its first access's */
		int streams = 0; /* used on a second stream: never idle room */
		for (size_t e = 0; e < t->nevents; e++) {
			const struct trace_event *x = &t->events[e];
			int used = (x->type == TRACE_EV_ALLOC || x->type == TRACE_EV_FREE) &&
				   x->buffer == (int64_t)i;
			int accessed = 0;
			for (uint32_t a = 0; a < x->nacc; a++)
				accessed |= t->accesses[x->acc0 + a].buffer == (int64_t)i;
			if ((accessed || (used && x->type == TRACE_EV_ALLOC)) &&
			    x->stream != TRACE_NONE) {
				if (first_stream == TRACE_NONE)
					first_stream = x->stream;
				else if (x->stream != first_stream)
					streams = 1;
			}
			used |= accessed;
			if (!used)
				continue;
			int64_t c = trace_event_clock(t, e);
			if (c <= best_at && c > last)
				last = c;
			if (c > best_at && c < next)
				next = c;
		}
		/* without any access nothing is known to be idle */
		int idle = t->naccesses > 0 && last < best_at &&
			   v == t->buffers[i].size && !streams;
		if (l->last_use != last || l->next_use != next || l->idle != idle)
			return printf("#   buffer %zu: uses %lld..%lld idle %d vs brute %lld..%lld idle %d\n",
				      i, (long long)l->last_use, (long long)l->next_use, l->idle,
				      (long long)last, (long long)next, idle), 0;
	}
	if (sum != r->peak || n != r->nlive)
		return printf("#   live set sums to %llu over %zu buffers\n",
			      (unsigned long long)sum, n), 0;
	return 1;
}

static void test_random(void)
{
	int bad = 0;
	random_streams = 1;
	for (int i = 0; i < 400 && !bad; i++) {
		struct trace *t = random_trace(i % 2);
		struct report r;
		char err[256];
		if (report_build(t, NULL, REPORT_ALL_ALLOCATORS, &r, err, sizeof(err)) != 0) {
			printf("#   report failed: %s\n", err);
			bad = 1;
		} else {
			bad = !brute_check(t, &r);
			if (bad)
				printf("#   random trace %d (%s clock)\n", i, i % 2 ? "time" : "seq");
			report_free(&r);
		}
		trace_free(t);
	}
	random_streams = 0;
	CHECK(!bad, "400 random traces: peak, lower bound, live set and uses match brute force");
}

static void test_check(void)
{
	double tol;
	CHECK(check_parse_tolerance("2%", &tol) == 0 && tol == 0.02, "tolerance 2%");
	CHECK(check_parse_tolerance("0.5 %", &tol) == 0 && tol == 0.005, "tolerance 0.5 %");
	CHECK(check_parse_tolerance("3", &tol) == 0 && tol == 0.03, "tolerance without its sign");
	CHECK(check_parse_tolerance("-1%", &tol) == -1, "negative tolerance refused");
	CHECK(check_parse_tolerance("2%%", &tol) == -1, "junk after the sign refused");
	CHECK(check_parse_tolerance("x", &tol) == -1, "not a number");

	struct report r = { .peak = 1000, .lower_bound = 800 };
	r.alloc[ALLOCSIM_CUDAMALLOC].reserved_peak = 4096;
	struct report base = { .peak = 981, .lower_bound = 800 };
	struct check_opts o = { .has_max_peak = 1, .max_peak = 1000,
				.has_max_reserved = 1, .max_reserved = 4000,
				.allocator = ALLOCSIM_CUDAMALLOC,
				.baseline = &base, .tolerance = 0.02 };
	struct check_result res[CHECK_KIND_COUNT];
	size_t n = check_run(&r, &o, res);
	CHECK_EQ_U64(n, 4, "four limits");
	CHECK(res[0].kind == CHECK_MAX_PEAK && res[0].passed, "peak equal to its limit passes");
	CHECK(res[1].kind == CHECK_MAX_RESERVED && !res[1].passed, "reserved over its limit fails");
	CHECK_STR_HAS(res[1].message, "exceeds --max-reserved 3.91 KiB by 96 B", "says which and by how much");
	CHECK_STR_HAS(res[1].message, "(cudamalloc model)", "names the allocator");
	CHECK(res[2].passed && res[2].limit == 1000, "peak +1.94% of 981 is within 2% (limit 1000)");
	r.peak = 1000;
	base.peak = 979;
	check_run(&r, &o, res);
	CHECK(!res[2].passed && res[2].limit == 998, "peak +2.15% of 979 is not");
	CHECK_STR_HAS(res[2].message, "grew 2.15% over the baseline's 979 B", "baseline message");
	CHECK(res[3].passed, "lower bound unchanged passes");
	struct check_opts none = { 0 };
	CHECK_EQ_U64(check_run(&r, &none, res), 0, "no limit, no result");

	/* a snapshot's recorded reserved peak is what --max-reserved checks
	 * with PyTorch's allocator; the model's only without one */
	CHECK(check_parse_tolerance("0.02", &tol) == -2, "tolerance 0.02: a fraction, refused");
	CHECK(check_parse_tolerance("0.02%", &tol) == 0 && tol == 0.0002, "tolerance 0.02%");
	uint64_t lim;
	CHECK(check_parse_limit("70", &lim) == -2, "limit 70: a unit left out");
	CHECK(check_parse_limit("3.5", &lim) == -2, "limit 3.5: a unit left out");
	CHECK(check_parse_limit("70B", &lim) == 0 && lim == 70, "limit 70B: bytes");
	CHECK(check_parse_limit("1048576", &lim) == 0 && lim == 1048576, "limit 1048576: bytes");
	CHECK(check_parse_limit("3.5GiB", &lim) == 0 && lim == 3758096384u, "limit 3.5GiB");
	struct report s = { .peak = 1000, .lower_bound = 800 };
	s.alloc[ALLOCSIM_PYTORCH].reserved_peak = 6 << 20;
	s.recorded_reserved = 5 << 20;
	struct check_opts po = { .has_max_reserved = 1, .max_reserved = 5767168,
				 .allocator = ALLOCSIM_PYTORCH };
	CHECK(check_run(&s, &po, res) == 1 && res[0].passed &&
		      res[0].value == 5u << 20,
	      "5.5 MiB passes PyTorch's recorded 5 MiB (the model says 6)");
	CHECK_STR_HAS(res[0].figure, "recorded by PyTorch", "names the recorded figure");
	s.recorded_reserved = -1;
	CHECK(check_run(&s, &po, res) == 1 && !res[0].passed &&
		      res[0].value == 6u << 20,
	      "without a recorded figure: the model's 6 MiB");
	CHECK_STR_HAS(res[0].figure, "pytorch model", "names the model");
}

/* Buffers live for the whole iteration, one per (label, size). */
static struct trace *labelled(const char *const *labels, const uint64_t *sizes,
			      size_t n)
{
	struct trace *t = trace_new();
	for (size_t i = 0; i < n; i++)
		buf(t, sizes[i], TRACE_ROLE_WEIGHT, labels[i]);
	char err[256];
	if (trace_finish(t, err, sizeof(err)))
		abort();
	return t;
}

static void test_diff(void)
{
	static const char *const la[] = { "x", "y", "y", "z", NULL, NULL };
	static const uint64_t sa[] = { 100, 200, 200, 50, 10, 20 };
	static const char *const lb[] = { "x", "y", "y", "w", NULL, NULL, NULL };
	static const uint64_t sb[] = { 100, 300, 200, 70, 10, 25, 5 };
	struct trace *a = labelled(la, sa, 6), *b = labelled(lb, sb, 7);
	struct report ra, rb;
	struct diff d;
	char err[256];
	CHECK(report_build(a, NULL, 0, &ra, err, sizeof(err)) == 0 &&
	      report_build(b, NULL, 0, &rb, err, sizeof(err)) == 0, "reports of both");
	CHECK(diff_build(a, &ra, b, &rb, &d, err, sizeof(err)) == 0, "diff builds");
	CHECK_EQ_U64(d.matched, 3, "x, one y of 200 and the first unlabelled buffer are the same");
	CHECK_EQ_U64(d.nresized, 2, "the other y and the second unlabelled buffer resized");
	CHECK(d.nresized == 2 && d.resized[0].size_a == 200 && d.resized[0].size_b == 300 &&
	      d.resized[0].a == 2 && d.resized[0].b == 1,
	      "y: 200 -> 300, matched by label (the y of A and of B left over)");
	CHECK(d.nresized == 2 && d.resized[1].size_a == 20 && d.resized[1].size_b == 25,
	      "unlabelled: 20 -> 25, matched by order");
	CHECK(d.nvanished == 1 && d.vanished[0].a == 3 && d.vanished_bytes == 50, "z vanished");
	CHECK(d.nappeared == 2 && d.appeared[0].b == 3 && d.appeared[1].b == 6 &&
	      d.appeared_bytes == 75, "w and the third unlabelled buffer appeared");
	CHECK(d.resized_bytes == 105, "resized bytes +100 +5");
	CHECK(d.nrole == 1 && d.by_role[0].a == 580 && d.by_role[0].b == 710,
	      "live at peak by role");
	CHECK(d.nlabel == 5 && strcmp(d.by_label[0].name, "y") == 0 &&
	      d.by_label[0].a == 400 && d.by_label[0].b == 500,
	      "label groups, largest change first");
	diff_free(&d);
	report_free(&ra);
	report_free(&rb);
	trace_free(a);
	trace_free(b);
}

/*
 * Many unmatched buffers (the case that was quadratic): A holds labels
 * a0..a(n-1) and n unlabelled buffers, B labels b0..b(n-1) and 2n
 * unlabelled ones; sizes i + 1.  Every labelled buffer vanishes or
 * appears, the unlabelled ones pair in order (n of them, the same size),
 * and the second n unlabelled buffers of B appear; most bytes first.
 */
static void test_diff_many(void)
{
	enum { N = 20000 };
	struct trace *a = trace_new(), *b = trace_new();
	char label[32];
	for (size_t i = 0; i < N; i++) {
		snprintf(label, sizeof(label), "a%zu", i);
		buf(a, i + 1, TRACE_ROLE_TEMP, label);
		snprintf(label, sizeof(label), "b%zu", i);
		buf(b, i + 1, TRACE_ROLE_TEMP, label);
	}
	for (size_t i = 0; i < N; i++)
		buf(a, i + 1, TRACE_ROLE_TEMP, NULL);
	for (size_t i = 0; i < 2 * N; i++)
		buf(b, i % N + 1, TRACE_ROLE_TEMP, NULL);
	char err[256];
	struct report ra, rb;
	struct diff d;
	CHECK(trace_finish(a, err, sizeof(err)) == 0 &&
		      trace_finish(b, err, sizeof(err)) == 0 &&
		      report_build(a, NULL, 0, &ra, err, sizeof(err)) == 0 &&
		      report_build(b, NULL, 0, &rb, err, sizeof(err)) == 0,
	      "many unmatched: reports of both");
	CHECK(diff_build(a, &ra, b, &rb, &d, err, sizeof(err)) == 0,
	      "many unmatched: diff builds");
	uint64_t tri = (uint64_t)N * (N + 1) / 2;
	CHECK_EQ_U64(d.matched, N, "many unmatched: the unlabelled pair in order");
	CHECK_EQ_U64(d.nresized, 0, "many unmatched: nothing resized");
	CHECK(d.nvanished == N && d.vanished_bytes == tri &&
		      d.vanished[0].a == N - 1 && d.vanished[0].size_a == N &&
		      d.vanished[N - 1].a == 0,
	      "many unmatched: every label of A vanished, largest first");
	int order = d.nappeared == 2 * N && d.appeared_bytes == 2 * tri;
	for (size_t i = 1; order && i < d.nappeared; i++)
		order = d.appeared[i - 1].size_b > d.appeared[i].size_b ||
			(d.appeared[i - 1].size_b == d.appeared[i].size_b &&
			 d.appeared[i - 1].b < d.appeared[i].b);
	CHECK(order && d.appeared[0].b == N - 1 && d.appeared[1].b == 3 * N - 1,
	      "many unmatched: labels of B and the extra unlabelled appeared, largest first");
	diff_free(&d);
	report_free(&ra);
	report_free(&rb);
	trace_free(a);
	trace_free(b);
}

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/*
 * W weight 100 [0, 7), A activation 400 [1, 5), B temp 200 [2, 3),
 * C activation 300 [4, 6): totals 100 500 700 500 800 400 100 0.
 */
static void test_timeline(void)
{
	struct trace *t = trace_new();
	int64_t W = buf(t, 100, TRACE_ROLE_WEIGHT, "w");
	int64_t A = buf(t, 400, TRACE_ROLE_ACTIVATION, "a</script><b>");
	int64_t B = buf(t, 200, TRACE_ROLE_TEMP, "b");
	int64_t C = buf(t, 300, TRACE_ROLE_ACTIVATION, "c & d");
	(void)W;
	ev(t, 0, TRACE_EV_KERNEL, TRACE_NONE, NO_TIME, NO_TIME);
	ev(t, 1, TRACE_EV_ALLOC, A, NO_TIME, NO_TIME);
	ev(t, 2, TRACE_EV_ALLOC, B, NO_TIME, NO_TIME);
	ev(t, 3, TRACE_EV_FREE, B, NO_TIME, NO_TIME);
	ev(t, 4, TRACE_EV_ALLOC, C, NO_TIME, NO_TIME);
	ev(t, 5, TRACE_EV_FREE, A, NO_TIME, NO_TIME);
	ev(t, 6, TRACE_EV_FREE, C, NO_TIME, NO_TIME);
	ev(t, 7, TRACE_EV_KERNEL, TRACE_NONE, NO_TIME, NO_TIME);
	char err[256];
	CHECK(trace_finish(t, err, sizeof(err)) == 0, "timeline trace is valid");
	struct timeline tl;
	struct timeline_opts o = { TIMELINE_BY_ROLE, 1, 2000, 2, -1 };
	CHECK(timeline_build(t, NULL, &o, &tl, err, sizeof(err)) == 0, "timeline builds");
	CHECK(tl.axis == TIMELINE_AXIS_SEQ && tl.x_min == 0 && tl.x_max == 7,
	      "sequence axis from 0 to 7 without timestamps");
	CHECK(tl.peak == 800 && tl.peak_x == 4, "peak 800 at seq 4, as trace_peak");
	CHECK(tl.ngroups == 2 && tl.has_other && strcmp(tl.groups[0].name, "activation") == 0 &&
	      strcmp(tl.groups[1].name, "other") == 0,
	      "top 1 group by most held, the rest in other");
	CHECK(tl.groups[0].max_bytes == 700 && tl.groups[1].max_bytes == 300,
	      "most held: activations 700, other 300 (temp and weight at seq 2)");
	CHECK(tl.groups[0].at_peak == 700 && tl.groups[1].at_peak == 100, "bytes at the peak");
	CHECK_EQ_U64(tl.npoints, 8, "one step per distinct x");
	size_t p = timeline_step_at(&tl, 4);
	CHECK(tl.x[p] == 4 && tl.y[p * 2] == 700 && tl.y[p * 2 + 1] == 100, "the step at seq 4");
	p = timeline_step_at(&tl, 2);
	CHECK(tl.y[p * 2] == 400 && tl.y[p * 2 + 1] == 300, "the step at seq 2");
	CHECK(tl.nbuffers == 2 && tl.buffers[0].id == A && tl.buffers[1].id == C &&
	      tl.buffers[0].x0 == 1 && tl.buffers[0].x1 == 5 && tl.nbuffers_total == 4,
	      "the two largest buffers listed, in allocation order");

	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	CHECK(timeline_write_svg(m, t, &tl, "x<y.trace") == 0, "SVG written");
	fclose(m);
	CHECK_EQ_U64(count_of(text, "<path class=\"area\""), 2, "one area per group");
	CHECK_STR_HAS(text, "memplan timeline: x&lt;y.trace", "title escaped");
	CHECK_STR_HAS(text, "peak 800 B", "peak marked");
	CHECK_STR_HAS(text, ">800 B<", "y axis in human sizes");
	free(text);
	m = open_memstream(&text, &len);
	CHECK(timeline_write_html(m, t, &tl, "t") == 0, "HTML written");
	fclose(m);
	CHECK_EQ_U64(count_of(text, "</script>"), 2, "a label cannot close the data script");
	CHECK_STR_HAS(text, "a\\u003c/script>\\u003cb>", "the label is kept, escaped for the script");
	CHECK(!strstr(text, "http://") || count_of(text, "http://") == count_of(text, "http://www.w3.org/2000/svg"),
	      "nothing fetched: the only URL is the SVG namespace");
	free(text);
	timeline_free(&tl);

	/* bounded: many steps merge into at most max_points, the peak kept */
	struct trace *big = trace_new();
	int64_t seq = 0;
	for (int i = 0; i < 3000; i++)
		buf(big, 1 + (uint64_t)(i * 7919 % 1000), (unsigned)(i % 5), NULL);
	for (int i = 0; i < 3000; i++) {
		ev(big, seq, TRACE_EV_ALLOC, i, seq * 10, seq * 10);
		seq++;
		if (i >= 50) {
			ev(big, seq, TRACE_EV_FREE, i - 50, seq * 10, seq * 10);
			seq++;
		}
	}
	CHECK(trace_finish(big, err, sizeof(err)) == 0, "big trace is valid");
	struct timeline_opts ob = { TIMELINE_BY_ROLE, 8, 100, 10, ALLOCSIM_PYTORCH };
	CHECK(timeline_build(big, NULL, &ob, &tl, err, sizeof(err)) == 0, "big timeline builds");
	uint64_t most = 0;
	for (size_t q = 0; q < tl.npoints; q++) {
		uint64_t sum = 0;
		for (size_t g = 0; g < tl.ngroups; g++)
			sum += tl.y[q * tl.ngroups + g];
		most = sum > most ? sum : most;
	}
	CHECK(tl.axis == TIMELINE_AXIS_NS, "time axis when every alloc and free has a time");
	CHECK(tl.npoints <= 101 && tl.nbuffers == 10, "steps and listed buffers bounded");
	CHECK(most == tl.peak && tl.peak == trace_peak(big, TRACE_ALL, NULL),
	      "merged steps keep the peak");
	struct allocsim_result ar;
	CHECK(allocsim_run(big, ALLOCSIM_PYTORCH, &ar, err, sizeof(err)) == 0, "the model runs");
	uint64_t rmost = 0;
	for (size_t q = 0; q < tl.nreserved; q++)
		rmost = tl.ry[q] > rmost ? tl.ry[q] : rmost;
	CHECK(tl.allocator == ALLOCSIM_PYTORCH && tl.nreserved >= 2 && tl.nreserved <= 101 &&
	      rmost == ar.reserved_peak && tl.reserved_peak == ar.reserved_peak,
	      "the reserved curve: bounded steps that keep the model's peak");
	CHECK(tl.nkernels == 0 && tl.nranges == 0, "no kernels, no marks: no lanes");
	timeline_free(&tl);
	trace_free(big);

	o.by = TIMELINE_BY_LABEL;
	o.top = 8;
	CHECK(timeline_build(t, NULL, &o, &tl, err, sizeof(err)) == 0 && tl.ngroups == 4 && !tl.has_other,
	      "by label: four groups, none other");
	timeline_free(&tl);
	trace_free(t);
}

/*
 * What a PyTorch user reads: pinned host memory is not stacked on the
 * device's (H, 1000 host bytes, over the whole span), the grouping without
 * --by is label when no role is known, and "other" never holds most of the
 * peak: with --top 1 over ten label groups of 100 bytes and one of 150,
 * more groups are named until other holds at most half.
 */
static void test_timeline_device_only(void)
{
	struct trace *t = trace_new();
	struct trace_buffer h = { .size = 1000, .stream = 0, .kind = TRACE_KIND_HOST,
				  .fixed_offset = TRACE_NONE, .label = "staging" };
	int64_t H = trace_add_buffer(t, &h);
	int64_t big = buf(t, 150, TRACE_ROLE_UNKNOWN, "big");
	static const char *const names[] = { "l0", "l1", "l2", "l3", "l4",
					     "l5", "l6", "l7", "l8", "l9" };
	int64_t b[10];
	for (int i = 0; i < 10; i++)
		b[i] = buf(t, 100, TRACE_ROLE_UNKNOWN, names[i]);
	int64_t seq = 0;
	ev(t, seq++, TRACE_EV_ALLOC, H, NO_TIME, NO_TIME);
	ev(t, seq++, TRACE_EV_ALLOC, big, NO_TIME, NO_TIME);
	for (int i = 0; i < 10; i++)
		ev(t, seq++, TRACE_EV_ALLOC, b[i], NO_TIME, NO_TIME);
	for (int i = 0; i < 10; i++)
		ev(t, seq++, TRACE_EV_FREE, b[i], NO_TIME, NO_TIME);
	ev(t, seq++, TRACE_EV_FREE, big, NO_TIME, NO_TIME);
	ev(t, seq++, TRACE_EV_FREE, H, NO_TIME, NO_TIME);
	char err[256];
	CHECK(trace_finish(t, err, sizeof(err)) == 0, "device-only trace is valid");
	CHECK(timeline_by_auto(t) == TIMELINE_BY_LABEL, "no role known: by label");
	struct timeline tl;
	struct timeline_opts o = { TIMELINE_BY_LABEL, 1, 2000, 20, -1 };
	CHECK(timeline_build(t, NULL, &o, &tl, err, sizeof(err)) == 0, "timeline builds");
	CHECK_EQ_U64(tl.peak, 1150, "the peak is the device's: 150 + 10 x 100, no host bytes");
	CHECK_EQ_U64(tl.host_peak, 1000, "the host bytes kept for the subtitle");
	int host_group = 0;
	for (size_t g = 0; g < tl.ngroups; g++)
		host_group |= strcmp(tl.groups[g].name, "staging") == 0;
	CHECK(!host_group, "no group of pinned host memory");
	CHECK(strcmp(tl.groups[0].name, "big") == 0, "the largest at the peak first");
	uint64_t other = tl.has_other ? tl.groups[tl.ngroups - 1].at_peak : 0;
	CHECK(2 * other <= tl.peak && tl.ngroups >= 6,
	      "other holds at most half the peak: more groups named than --top");
	timeline_free(&tl);
	trace_free(t);
}

/* The figures of two reports of one trace agree; 1 or 0 with a note. */
static int same_report(const struct report *a, const struct report *b)
{
#define SAME(f)                                                               \
	if (a->f != b->f) {                                                   \
		printf("#   %s: %lld vs %lld\n", #f, (long long)a->f, (long long)b->f); \
		return 0;                                                     \
	}
	SAME(peak) SAME(peak_at) SAME(peak_seq) SAME(peak_time) SAME(peak_buffer)
	SAME(lower_bound) SAME(lower_bound_at) SAME(nevents) SAME(naccesses)
	SAME(seq_first) SAME(seq_last) SAME(time_first) SAME(time_last)
	SAME(npersistent) SAME(persistent_bytes) SAME(nlive) SAME(idle_bytes)
	SAME(idle_count) SAME(idle_known) SAME(gap_min) SAME(gap_median) SAME(gap_max)
	SAME(gap_ns_min) SAME(gap_ns_median) SAME(gap_ns_max)
	for (unsigned k = 0; k < TRACE_EV_COUNT; k++)
		SAME(by_type[k])
	for (size_t i = 0; i < a->nlive; i++) {
		SAME(live[i].buffer) SAME(live[i].bytes) SAME(live[i].idle)
		SAME(live[i].last_use) SAME(live[i].next_use) SAME(live[i].gap)
		SAME(live[i].gap_ns)
	}
	for (unsigned m = 0; m < ALLOCSIM_COUNT; m++) {
		SAME(alloc[m].reserved_peak) SAME(alloc[m].live_at_reserved_peak)
		SAME(alloc[m].allocated_peak) SAME(alloc[m].device_allocs)
	}
#undef SAME
	return 1;
}

static int sql(const char *path, const char *stmt)
{
	sqlite3 *db;
	int rc = sqlite3_open(path, &db) != SQLITE_OK ||
		 sqlite3_exec(db, stmt, NULL, NULL, NULL) != SQLITE_OK;
	sqlite3_close(db);
	return rc;
}

/* The streamed report equals the whole one, on random traces saved to disk;
 * what the stream cannot take, it hands to the full loader. */
static void test_scan(void)
{
	char path[64], err[256];
	snprintf(path, sizeof(path), "/tmp/memplan-test-scan-%ld.trace", (long)getpid());
	int bad = 0, streamed = 0;
	random_streams = 1; /* the digest's streams, as the whole trace's */
	for (int i = 0; i < 300 && !bad; i++) {
		struct trace *t = random_trace(i % 2), *lean, *whole;
		struct report_digest d;
		struct report ra, rb;
		if (trace_save(t, path, err, sizeof(err)) != 0) {
			printf("#   save: %s\n", err);
			bad = 1;
		} else if (trace_load(path, &whole, err, sizeof(err)) != 0) {
			printf("#   load: %s\n", err);
			bad = 1;
		} else {
			int rc = scan_trace(path, &lean, &d, NULL, err, sizeof(err));
			if (rc == 0) {
				streamed++;
				bad = report_build(lean, &d, REPORT_ALL_ALLOCATORS, &ra, err, sizeof(err)) ||
				      report_build(whole, NULL, REPORT_ALL_ALLOCATORS, &rb, err, sizeof(err)) ||
				      !same_report(&ra, &rb);
				if (bad)
					printf("#   random trace %d (%s clock): %s\n", i,
					       i % 2 ? "time" : "seq", err);
				report_free(&ra);
				report_free(&rb);
				scan_digest_free(&d);
				trace_free(lean);
			} else {
				printf("#   random trace %d was not streamed (%d)\n", i, rc);
				bad = 1;
			}
			trace_free(whole);
		}
		trace_free(t);
	}
	random_streams = 0;
	CHECK(!bad && streamed == 300,
	      "300 random traces: streamed and whole reports agree figure for figure");

	/* what the stream must refuse: the full loader then says why */
	struct trace *t = random_trace(0), *x;
	struct report_digest d;
	while (t->naccesses < 3 || t->nevents < 3) {
		trace_free(t);
		t = random_trace(0);
	}
	static const struct {
		const char *sql, *what;
		int loads; /* the full loader still takes it */
	} cases[] = {
		{ "UPDATE accesses SET rowid = -rowid", "accesses out of order", 1 },
		{ "UPDATE events SET aux = 300 WHERE rowid = 2", "an aux out of range", 0 },
		{ "UPDATE events SET bytes = 'x' WHERE rowid = 1", "a text where a number goes", 0 },
		{ "UPDATE events SET t_end = -5 WHERE rowid = 1", "an end before a start", 0 },
		{ "UPDATE meta SET value = '9' WHERE key = 'schema_version'", "a newer schema", 0 },
		{ "UPDATE accesses SET seq = 1000000 WHERE rowid = (SELECT max(rowid) FROM accesses)",
		  "an access of no event", 0 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char what[128];
		trace_save(t, path, err, sizeof(err));
		if (sql(path, cases[k].sql)) {
			snprintf(what, sizeof(what), "corrupt the trace: %s", cases[k].what);
			CHECK(0, what);
			continue;
		}
		snprintf(what, sizeof(what), "%s: handed to the full loader", cases[k].what);
		CHECK(scan_trace(path, &x, &d, NULL, err, sizeof(err)) == SCAN_LOAD_WHOLE, what);
		int rc = trace_load(path, &x, err, sizeof(err));
		snprintf(what, sizeof(what), "%s: the full loader %s", cases[k].what,
			 cases[k].loads ? "takes it" : "refuses it");
		CHECK(cases[k].loads ? rc == 0 : rc < 0, what);
		if (rc == 0)
			trace_free(x);
	}
	/* an access of a buffer that is not live, in order: the stream sees it */
	trace_save(t, path, err, sizeof(err));
	int64_t dead = -1;
	for (size_t i = 0; i < t->nbuffers && dead < 0; i++)
		if (t->buffers[i].alloc_ev != TRACE_NONE && t->buffers[i].alloc_ev > 0)
			dead = (int64_t)i;
	if (dead >= 0) {
		char q[160];
		snprintf(q, sizeof(q), "UPDATE accesses SET buffer = %lld WHERE rowid = (SELECT min(rowid) FROM accesses)",
			 (long long)dead);
		sql(path, q);
		int rs = scan_trace(path, &x, &d, NULL, err, sizeof(err));
		if (rs == 0) {
			trace_free(x);
			scan_digest_free(&d);
		}
		int rl = trace_load(path, &x, err, sizeof(err));
		if (rl == 0)
			trace_free(x);
		CHECK((rs == 0) == (rl == 0), "an access of a dead buffer: stream and loader agree");
	}
	CHECK(scan_trace("/nonexistent/x.trace", &x, &d, NULL, err, sizeof(err)) == SCAN_LOAD_WHOLE,
	      "a missing file goes to the full loader for its message");
	trace_free(t);
	unlink(path);
}

/* --- the swap floor ---------------------------------------------------- */

/* Every event at time seq * 10, kernels lasting 10; r: the requests. */
static void fev(struct trace *t, int64_t *seq, unsigned type, int64_t buffer)
{
	ev(t, *seq, type, buffer, *seq * 10, *seq * 10 + (type == TRACE_EV_KERNEL ? 10 : 0));
	(*seq)++;
}

static int floor_of(struct trace *t, struct swap_floor *f, uint64_t *prof,
		    size_t n)
{
	char err[256];
	size_t nreq = 0;
	if (trace_finish(t, err, sizeof(err)) != 0) {
		printf("#   %s\n", err);
		return -1;
	}
	if (swapfloor_profile(t, f, prof, n, &nreq, err, sizeof(err)) != 0) {
		printf("#   %s\n", err);
		return -1;
	}
	return (int)nreq;
}

/*
 * A (1000) used at e2 and e16 with requests 2 to 9 between: away in steps
 * 3..8 (out after request 2, the first after e2; back by request 9, the
 * last before e16).  H (2000) used at every kernel: never away; its gap
 * e2 -> e4 spans a long kernel but no request, so it cannot be used.
 * X (5) used only at its alloc and free: away from the step after its
 * alloc to the step before its free.  Temps T1..T3 (10, 20, 40) live one
 * step each.  Requests: r0 alloc A, r1 alloc H, r2 alloc X, r3 alloc T1,
 * r4 free T1, r5 alloc T2, r6 free T2, r7 alloc T3, r8 free T3, r9 free X,
 * r10 free H, r11 free A.
 */
static void test_floor_hand(void)
{
	struct trace *t = trace_new();
	int64_t A = buf(t, 1000, 0, "A"), H = buf(t, 2000, 0, "H"),
		X = buf(t, 5, 0, "X"), T1 = buf(t, 10, 0, "T1"),
		T2 = buf(t, 20, 0, "T2"), T3 = buf(t, 40, 0, "T3");
	int64_t s = 0;
	fev(t, &s, TRACE_EV_ALLOC, A);
	fev(t, &s, TRACE_EV_ALLOC, H);
	fev(t, &s, TRACE_EV_KERNEL, TRACE_NONE);
	acc(t, A);
	acc(t, H);
	ev(t, s, TRACE_EV_KERNEL, TRACE_NONE, s * 10, s * 10 + 5000); /* long, no request */
	s++;
	fev(t, &s, TRACE_EV_KERNEL, TRACE_NONE);
	acc(t, H);
	fev(t, &s, TRACE_EV_ALLOC, X);
	int64_t tmp[3] = { T1, T2, T3 };
	for (int i = 0; i < 3; i++) {
		fev(t, &s, TRACE_EV_ALLOC, tmp[i]);
		fev(t, &s, TRACE_EV_KERNEL, TRACE_NONE);
		acc(t, tmp[i]);
		acc(t, H);
		fev(t, &s, TRACE_EV_FREE, tmp[i]);
	}
	fev(t, &s, TRACE_EV_FREE, X);
	fev(t, &s, TRACE_EV_KERNEL, TRACE_NONE);
	acc(t, A);
	acc(t, H);
	fev(t, &s, TRACE_EV_FREE, H);
	fev(t, &s, TRACE_EV_FREE, A);
	struct swap_floor f;
	uint64_t prof[16] = { 0 };
	int n = floor_of(t, &f, prof, 16);
	CHECK(n == 12 && f.computed, "hand trace: floor computed over 12 requests");
	static const uint64_t want[12] = {
		1000,             /* A */
		3000,             /* A H */
		3005,             /* A H X: X's own alloc step */
		2010,             /* H T1; A away from here, X too */
		2000, 2020, 2000, /* H, H T2, H */
		2040,             /* H T3 */
		2005,             /* H X: X back for the step before its free */
		3000,             /* A back: request 9 is the last before e16 */
		1000, 0
	};
	int same = n == 12;
	for (int k = 0; k < 12 && same; k++)
		if (prof[k] != want[k]) {
			printf("#   step %d: %llu, expected %llu\n", k,
			       (unsigned long long)prof[k], (unsigned long long)want[k]);
			same = 0;
		}
	CHECK(same, "hand trace: the bytes each step must keep resident");
	CHECK_EQ_U64(f.bytes, 3005, "hand trace: the floor binds at X's alloc");
	CHECK(f.request == 2 && f.seq == 5, "hand trace: at request 2 (alloc X, seq 5)");
	CHECK_EQ_U64(f.lower_bound, 3045, "hand trace: lower bound A H X T3");
	CHECK(fabs(swapfloor_ideal_pct(&f) - 100.0 * 40 / 3045) < 1e-9,
	      "hand trace: ideal reduction is T3 and X");
	CHECK(f.unaccessed == 1 && f.nbuffers == 6, "hand trace: X is the one buffer without accesses");

	struct report r;
	char err[256];
	CHECK(report_build(t, NULL, 0, &r, err, sizeof(err)) == 0 && r.floor.computed &&
	      r.floor.bytes == 3005, "report_build carries the floor");
	char *text = NULL, *json = NULL;
	size_t tl = 0, jl = 0;
	FILE *o = open_memstream(&text, &tl);
	report_print_text(o, "hand", t, &r, 0);
	fclose(o);
	o = open_memstream(&json, &jl);
	report_print_json(o, "hand", t, &r, 0);
	fclose(o);
	CHECK_STR_HAS(text, "swap floor:     2.93 KiB (1.3% below the lower bound) after request 2 (seq 5)",
		      "text: the floor line");
	CHECK_STR_HAS(json, "\"swap_floor_bytes\":3005", "json: swap_floor_bytes");
	CHECK_STR_HAS(json, "\"swap_floor_at\":2", "json: swap_floor_at");
	CHECK_STR_HAS(json, "\"swap_floor_why_not\":null", "json: no reason when computed");
	free(text);
	free(json);
	report_free(&r);
	trace_free(t);
}

/*
 * P (1000) idle between e2 and e10, Q (100) idle between e7 and e19: their
 * stretches (P steps 3..5, Q steps 6..11) do not overlap, so at request 2
 * and request 12 both are resident and the floor is the lower bound.
 */
static void test_floor_disjoint(void)
{
	struct trace *t = trace_new();
	int64_t P = buf(t, 1000, 0, "P"), Q = buf(t, 100, 0, "Q");
	int64_t sb[6];
	for (int i = 0; i < 6; i++)
		sb[i] = buf(t, 10, 0, "s");
	int64_t s = 0;
	fev(t, &s, TRACE_EV_ALLOC, P);
	fev(t, &s, TRACE_EV_ALLOC, Q);
	fev(t, &s, TRACE_EV_KERNEL, TRACE_NONE);
	acc(t, P);
	acc(t, Q);
	for (int i = 0; i < 6; i++) {
		fev(t, &s, TRACE_EV_ALLOC, sb[i]);
		fev(t, &s, TRACE_EV_KERNEL, TRACE_NONE);
		acc(t, sb[i]);
		acc(t, i < 2 ? Q : P);
		if (i == 5)
			acc(t, Q);
		fev(t, &s, TRACE_EV_FREE, sb[i]);
	}
	fev(t, &s, TRACE_EV_FREE, Q);
	fev(t, &s, TRACE_EV_FREE, P);
	struct swap_floor f;
	uint64_t prof[16] = { 0 };
	int n = floor_of(t, &f, prof, 16);
	CHECK(n == 16 && f.computed, "disjoint gaps: computed over 16 requests");
	CHECK(prof[3] == 100 && prof[4] == 110 && prof[5] == 100,
	      "disjoint gaps: P away in steps 3..5");
	CHECK(prof[6] == 1010 && prof[7] == 1000 && prof[11] == 1000,
	      "disjoint gaps: Q away in steps 6..11");
	CHECK(prof[2] == 1110 && prof[12] == 1110, "disjoint gaps: both resident at requests 2 and 12");
	CHECK(f.bytes == 1110 && f.request == 2 && f.lower_bound == 1110,
	      "disjoint gaps: the floor is the lower bound");
	CHECK(swapfloor_ideal_pct(&f) == 0.0, "disjoint gaps: no ideal reduction");
	trace_free(t);
}

/*
 * A (1000) and B (1000) used by a kernel after request 1 and again by one
 * after request 7, with T1 (10), T2 (10), T3 (3000) living one step each
 * between: both idle over steps 3..6.  A's second use is on stream 1: the
 * planner never swaps a buffer used on two streams (trace_buffer_streams()),
 * so the floor keeps A resident there and lets B go.  Requests: r0 alloc A,
 * r1 alloc B, r2/r3 T1, r4/r5 T2, r6/r7 T3, r8 free B, r9 free A.
 */
static void test_floor_streams(void)
{
	for (int cross = 0; cross < 2; cross++) {
		struct trace *t = trace_new();
		int64_t A = buf(t, 1000, 0, "A"), B = buf(t, 1000, 0, "B");
		int64_t tmp[3] = { buf(t, 10, 0, "T1"), buf(t, 10, 0, "T2"),
				   buf(t, 3000, 0, "T3") };
		int64_t s = 0;
		fev(t, &s, TRACE_EV_ALLOC, A);
		fev(t, &s, TRACE_EV_ALLOC, B);
		fev(t, &s, TRACE_EV_KERNEL, TRACE_NONE);
		acc(t, A);
		acc(t, B);
		for (int i = 0; i < 3; i++) {
			fev(t, &s, TRACE_EV_ALLOC, tmp[i]);
			fev(t, &s, TRACE_EV_KERNEL, TRACE_NONE);
			acc(t, tmp[i]);
			fev(t, &s, TRACE_EV_FREE, tmp[i]);
		}
		struct trace_event e = { .seq = s, .type = TRACE_EV_KERNEL,
					 .buffer = TRACE_NONE, .stream = cross,
					 .t_start = s * 10, .t_end = s * 10 + 10,
					 .name = "k" };
		trace_add_event(t, &e);
		s++;
		acc(t, A);
		fev(t, &s, TRACE_EV_KERNEL, TRACE_NONE);
		acc(t, B);
		fev(t, &s, TRACE_EV_FREE, B);
		fev(t, &s, TRACE_EV_FREE, A);
		struct swap_floor f;
		uint64_t prof[16] = { 0 };
		int n = floor_of(t, &f, prof, 16);
		CHECK(n == 10 && f.computed, "streams: floor computed over 10 requests");
		CHECK(trace_buffer_streams(t, &t->buffers[A], NULL, NULL) == cross,
		      "streams: A is used on two streams in the second trace only");
		uint64_t a = cross ? 1000 : 0;
		char what[128];
		snprintf(what, sizeof(what), "streams (%s): steps 3..6 hold %s T",
			 cross ? "A on two" : "one stream", cross ? "A and" : "only");
		CHECK(prof[3] == a && prof[4] == a + 10 && prof[5] == a &&
			      prof[6] == a + 3000, what);
		snprintf(what, sizeof(what), "streams (%s): the floor is %s",
			 cross ? "A on two" : "one stream", cross ? "A and T3, 4000" : "T3's 3000");
		CHECK(f.bytes == 3000 + a && f.request == 6, what);
		trace_free(t);
	}
}

/* What the floor cannot judge: no accesses, too few, no timestamps. */
static void test_floor_unknown(void)
{
	struct swap_floor f;
	for (int variant = 0; variant < 3; variant++) {
		struct trace *t = trace_new();
		int64_t a = buf(t, 100, 0, NULL), b = buf(t, 100, 0, NULL),
			c = buf(t, 100, 0, NULL);
		int64_t s = 0;
		fev(t, &s, TRACE_EV_ALLOC, a);
		fev(t, &s, TRACE_EV_ALLOC, b);
		fev(t, &s, TRACE_EV_ALLOC, c);
		fev(t, &s, TRACE_EV_KERNEL, TRACE_NONE);
		if (variant >= 1)
			acc(t, a);
		if (variant == 2)
			acc(t, b);
		fev(t, &s, TRACE_EV_FREE, a);
		fev(t, &s, TRACE_EV_FREE, b);
		fev(t, &s, TRACE_EV_FREE, c);
		if (variant == 2) /* every time gone: the clock the planner needs */
			for (size_t i = 0; i < t->nevents; i++)
				t->events[i].t_start = t->events[i].t_end = NO_TIME;
		int rc = floor_of(t, &f, NULL, 0);
		if (variant == 0)
			CHECK(rc == 0 && !f.computed && strstr(f.why, "no access"),
			      "no accesses: not computable");
		else if (variant == 1)
			CHECK(!f.computed && strstr(f.why, "only 1 of the pool's 3"),
			      "accesses on one buffer of three: not computable");
		else
			CHECK(!f.computed && strstr(f.why, "timestamps"),
			      "no timestamps: not computable, swap planning's reason");
		CHECK(isnan(swapfloor_ideal_pct(&f)), "not computable: no ideal");
		trace_free(t);
	}
}

/*
 * Random traces against the plan format's rule itself (plan.h: a swap of a
 * buffer allocated at request lo and freed at hi has lo <= out_at < in_at <
 * hi, and no use between the events of its two triggers): step k can be
 * away iff lo <= k - 1, k + 1 < hi and no access lies strictly between the
 * events of requests k - 1 and k + 1.
 */
static void test_floor_random(void)
{
	int bad = 0, computed = 0;
	for (int i = 0; i < 400 && !bad; i++) {
		struct trace *t = random_trace(0);
		struct swap_floor f;
		char err[256];
		size_t nreq = 0;
		uint64_t *prof = calloc(t->nevents + 1, sizeof(*prof));
		if (swapfloor_profile(t, &f, prof, t->nevents + 1, &nreq, err, sizeof(err))) {
			printf("#   %s\n", err);
			bad = 1;
		}
		size_t *ev_of = calloc(t->nevents + 1, sizeof(*ev_of));
		size_t n = 0;
		for (size_t e = 0; e < t->nevents; e++)
			if (t->events[e].type <= TRACE_EV_FREE)
				ev_of[n++] = e;
		uint64_t best = 0, at = 0;
		for (size_t k = 0; !bad && f.computed && k < n; k++) {
			uint64_t sum = 0;
			for (size_t b = 0; b < t->nbuffers; b++) {
				const struct trace_buffer *tb = &t->buffers[b];
				if (trace_buffer_persistent(tb))
					continue;
				size_t lo = 0, hi = 0;
				for (size_t j = 0; j < n; j++) {
					if (ev_of[j] == (size_t)tb->alloc_ev)
						lo = j;
					if (ev_of[j] == (size_t)tb->free_ev)
						hi = j;
				}
				if (k < lo || k >= hi)
					continue;
				int away = k >= lo + 1 && k + 1 < hi;
				for (uint32_t u = 0; away && u < tb->nuses; u++) {
					size_t e = t->uses[tb->use0 + u];
					if (e > ev_of[k - 1] && e < ev_of[k + 1])
						away = 0;
				}
				if (!away)
					sum += tb->size;
			}
			if (sum != prof[k]) {
				printf("#   trace %d, step %zu: %llu, brute force %llu\n", i, k,
				       (unsigned long long)prof[k], (unsigned long long)sum);
				bad = 1;
			}
			if (sum > best) {
				best = sum;
				at = k;
			}
		}
		if (!bad && f.computed) {
			computed++;
			if (nreq != n || f.bytes != best || (best && f.request != at) ||
			    f.bytes > f.lower_bound ||
			    f.lower_bound != trace_peak(t, TRACE_TRANSIENT, NULL)) {
				printf("#   trace %d: floor %llu at %llu, brute force %llu at %llu, lower bound %llu\n",
				       i, (unsigned long long)f.bytes, (unsigned long long)f.request,
				       (unsigned long long)best, (unsigned long long)at,
				       (unsigned long long)f.lower_bound);
				bad = 1;
			}
		}
		free(prof);
		free(ev_of);
		trace_free(t);
	}
	CHECK(!bad && computed >= 100, "random traces: the floor matches the plan format's swap rule, <= the lower bound");
	printf("#   %d of 400 computable\n", computed);
}

/*
 * The floor bounds what the planner reaches: on zoo traces, every plan
 * budget_plan() makes on the infinite link, at budgets from 90% of the lower
 * bound down to the floor itself, simulates a resident peak and a pool of
 * at least the floor; and the planner does get below the lower bound.
 */
static void test_floor_zoo(void)
{
	static const struct synth_opts zoo[] = {
		{ "resnet50", 8, SYNTH_FP32, "h200", 0, NULL, 0 },
		{ "bert-base", 4, SYNTH_FP32, "h200", 0, NULL, 0 },
	};
	static const double pct[] = { 90, 70, 50, 0 };
	int bad = 0, plans = 0;
	for (size_t z = 0; z < sizeof(zoo) / sizeof(zoo[0]) && !bad; z++) {
		char err[512];
		struct trace *t;
		struct solver_problem p;
		struct link_model l;
		struct swap_floor f;
		if (synth_build(&zoo[z], &t, err, sizeof(err)) ||
		    solver_problem_from_trace(t, &p, err, sizeof(err)) ||
		    link_parse("infinite", t, &l, err, sizeof(err)) ||
		    swapfloor_compute(t, &f, err, sizeof(err)) || !f.computed) {
			printf("#   %s: %s %s\n", zoo[z].model, err, f.why);
			bad = 1;
			break;
		}
		uint64_t lb = solver_lower_bound(&p), least = lb;
		if (f.bytes > lb || f.lower_bound != lb) {
			printf("#   %s: floor %llu over lower bound %llu\n", zoo[z].model,
			       (unsigned long long)f.bytes, (unsigned long long)lb);
			bad = 1;
		}
		for (size_t s = 0; swap_strategy_at(s) && !bad; s++) {
			for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]) && !bad; k++) {
				uint64_t budget = pct[k] > 0 ? (uint64_t)((double)lb * pct[k] / 100)
							     : f.bytes;
				struct mp_plan plan;
				struct sim_result sim;
				struct swap_outcome oc;
				int rc = budget_plan(t, &p, &l, swap_strategy_at(s)->name, budget,
						     "best-fit", 1, &plan, &sim, &oc, err, sizeof(err));
				if (rc == SWAP_ENOFIT)
					continue;
				if (rc) {
					printf("#   %s: %s\n", zoo[z].model, err);
					bad = 1;
					break;
				}
				plans++;
				if (sim.peak < f.bytes || plan.pool_size < f.bytes) {
					printf("#   %s, %s at %.0f%%: resident peak %llu, pool %llu, below the floor %llu\n",
					       zoo[z].model, swap_strategy_at(s)->name, pct[k],
					       (unsigned long long)sim.peak,
					       (unsigned long long)plan.pool_size,
					       (unsigned long long)f.bytes);
					bad = 1;
				}
				if (sim.peak < least)
					least = sim.peak;
				mp_plan_free(&plan);
				sim_free(&sim);
			}
		}
		printf("#   %s: lower bound %llu, floor %llu (%.1f%% below), least resident peak planned %llu\n",
		       zoo[z].model, (unsigned long long)lb, (unsigned long long)f.bytes,
		       swapfloor_ideal_pct(&f), (unsigned long long)least);
		if (least >= lb) {
			printf("#   %s: no plan got below the lower bound\n", zoo[z].model);
			bad = 1;
		}
		solver_problem_free(&p);
		trace_free(t);
	}
	CHECK(!bad && plans >= 6, "zoo: every swap plan on the infinite link keeps at least the floor resident");
}

int main(void)
{
	test_hand_seq();
	test_hand_time();
	test_hole();
	test_label_group();
	test_random();
	test_check();
	test_diff();
	test_diff_many();
	test_timeline();
	test_timeline_device_only();
	test_scan();
	test_floor_hand();
	test_floor_streams();
	test_floor_disjoint();
	test_floor_unknown();
	test_floor_random();
	test_floor_zoo();
	return tap_done();
}
