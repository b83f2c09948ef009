/* SPDX-License-Identifier: MIT */
/*
 * bench_runtime.c - the runtime's cost per request on its hot path (host
 * backend, an iteration that follows the plan), next to malloc/free of the
 * same sequence in the same run.  Two iterations: "window", every request
 * planned (allocs of 256 B to 16 KiB, each freed 16 allocations later), and
 * ResNet-50 at batch 32 from the zoo with its greedy-size plan (buffers that
 * outlive the iteration pass through to the real allocator, aligned malloc
 * here).  The window again in a process that has had a second thread
 * ("window_threaded", as every CUDA program is): glibc's locks, and the
 * runtime's, skip their atomic instructions only before that.  One row per
 * figure: "name value unit".  Rounds alternate the
 * runtime and malloc, best of each: both see the same machine load.  The
 * runtime's time includes mp_iteration_begin and mp_iteration_end, so that
 * per-iteration work is counted per request too.
 *
 * Usage: bench_runtime [--quick] | --count.  --count runs each case's
 * requests (one warm-up iteration, then COUNT_ITERS) for callgrind
 * (tests/bench/instructions.sh runs it): collection is on around the
 * measured requests only, each case is dumped under its name
 * (CALLGRIND_DUMP_STATS_AT "runtime_window" ...), and the requests counted
 * are printed as "requests_window N", so that a dump's total over N is the
 * instructions per request.  Deterministic for one binary.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memplan.h"
#include "planfile.h"
#include "solver.h"
#include "synth.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define HAVE_CALLGRIND 0
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(what) ((void)(what))
#endif

#define ROUNDS 7      /* timed rounds, each the runtime then malloc */
#define COUNT_ITERS 4 /* iterations counted by --count, after one warm-up */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A request sequence: op[i] >= 0 allocates buffer op[i], op[i] < 0 frees
 * buffer -op[i] - 1. */
struct seq {
	long *op;
	size_t n;
	uint64_t *size; /* per buffer */
	size_t nbuf;
	size_t *before; /* buffers allocated before each iteration */
	size_t nbefore;
};

static void **ptrs;

/* One iteration of s on the runtime: the buffers from before it
 * (untimed), then its requests between mp_iteration_begin and
 * mp_iteration_end (timed, and counted when count), then what is still
 * live is freed (untimed).  Returns the seconds of the requests. */
static double iter_runtime(mp_runtime *rt, const struct seq *s, int count)
{
	for (size_t i = 0; i < s->nbefore; i++)
		if (!ptrs[s->before[i]])
			ptrs[s->before[i]] = mp_alloc(rt, s->size[s->before[i]], NULL);
	if (count)
		CALLGRIND_TOGGLE_COLLECT;
	double t0 = now();
	mp_iteration_begin(rt);
	for (size_t i = 0; i < s->n; i++) {
		long o = s->op[i];
		if (o >= 0) {
			ptrs[o] = mp_alloc(rt, s->size[o], NULL);
		} else {
			mp_free(rt, ptrs[-o - 1], NULL);
			ptrs[-o - 1] = NULL;
		}
	}
	mp_iteration_end(rt);
	double t = now() - t0;
	if (count)
		CALLGRIND_TOGGLE_COLLECT;
	for (size_t b = 0; b < s->nbuf; b++)
		if (ptrs[b]) {
			mp_free(rt, ptrs[b], NULL);
			ptrs[b] = NULL;
		}
	return t;
}

/* The same iteration on malloc and free. */
static double iter_malloc(const struct seq *s, int count)
{
	for (size_t i = 0; i < s->nbefore; i++)
		if (!ptrs[s->before[i]])
			ptrs[s->before[i]] = malloc(s->size[s->before[i]]);
	if (count)
		CALLGRIND_TOGGLE_COLLECT;
	double t0 = now();
	for (size_t i = 0; i < s->n; i++) {
		long o = s->op[i];
		if (o >= 0) {
			ptrs[o] = malloc(s->size[o]);
		} else {
			free(ptrs[-o - 1]);
			ptrs[-o - 1] = NULL;
		}
	}
	double t = now() - t0;
	if (count)
		CALLGRIND_TOGGLE_COLLECT;
	for (size_t b = 0; b < s->nbuf; b++) {
		free(ptrs[b]);
		ptrs[b] = NULL;
	}
	return t;
}

static mp_runtime *open_plan(struct mp_plan *p)
{
	char path[] = "/tmp/memplan-bench-runtime.XXXXXX";
	int fd = mkstemp(path);
	char err[512];
	if (fd < 0)
		return NULL;
	close(fd);
	mp_runtime *rt = NULL;
	if (mp_plan_write_file(path, p, err, sizeof(err)) == 0) {
		struct mp_options o;
		mp_options_init(&o);
		o.backend = MP_BACKEND_HOST;
		o.explicit_iterations = 1;
		rt = mp_open(path, &o, err, sizeof(err));
	}
	if (!rt)
		fprintf(stderr, "bench_runtime: %s\n", err);
	unlink(path);
	return rt;
}

/* The rows of one case: ns per request of the runtime and of malloc, best
 * of ROUNDS rounds that alternate them, and their ratio; with count, the
 * callgrind dumps of --count instead. */
static void row(const char *name, mp_runtime *rt, const struct seq *s, int iters,
		int count)
{
	ptrs = calloc(s->nbuf, sizeof(*ptrs));
	if (count) {
		char what[64];
		iter_runtime(rt, s, 0);
		CALLGRIND_ZERO_STATS;
		for (int it = 0; it < COUNT_ITERS; it++)
			iter_runtime(rt, s, 1);
		snprintf(what, sizeof(what), "runtime_%s", name);
		CALLGRIND_DUMP_STATS_AT(what);
		iter_malloc(s, 0);
		CALLGRIND_ZERO_STATS;
		for (int it = 0; it < COUNT_ITERS; it++)
			iter_malloc(s, 1);
		snprintf(what, sizeof(what), "malloc_%s", name);
		CALLGRIND_DUMP_STATS_AT(what);
		printf("requests_%s %zu\n", name, s->n * COUNT_ITERS);
		free(ptrs);
		return;
	}
	double best_rt = 1e30, best_m = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		double t = 0;
		for (int it = 0; it < iters; it++)
			t += iter_runtime(rt, s, 0);
		if (t < best_rt)
			best_rt = t;
		t = 0;
		for (int it = 0; it < iters; it++)
			t += iter_malloc(s, 0);
		if (t < best_m)
			best_m = t;
	}
	double ns_rt = best_rt * 1e9 / ((double)s->n * iters);
	double ns_m = best_m * 1e9 / ((double)s->n * iters);
	struct mp_stats st;
	mp_stats_get(rt, &st);
	printf("runtime_%s_ns_per_request %.1f ns (%zu requests per iteration, %.0f%% of its allocations planned, %llu of %llu iterations followed)\n",
	       name, ns_rt, s->n,
	       100.0 * (double)st.planned_allocs /
		       (double)(st.planned_allocs + st.pass_through),
	       (unsigned long long)st.completed,
	       (unsigned long long)st.iterations);
	printf("malloc_%s_ns_per_request %.1f ns\n", name, ns_m);
	printf("runtime_%s_over_malloc %.2f x\n", name, ns_rt / ns_m);
	free(ptrs);
}

/* Every alloc planned, each freed 16 allocations later. */
static void window(const char *name, int iters, int count)
{
	enum { N = 4096, W = 16, SLOTS = 32, SLOT = 16384 };
	struct seq s = { 0 };
	s.op = malloc(2 * N * sizeof(*s.op));
	s.size = malloc(N * sizeof(*s.size));
	s.nbuf = N;
	struct mp_plan p;
	memset(&p, 0, sizeof(p));
	p.allocs = calloc(N, sizeof(*p.allocs));
	uint64_t k = 0;
	for (long i = 0; i < N; i++) {
		s.size[i] = 256 * (uint64_t)(1 + i % 64);
		s.op[s.n++] = i;
		p.allocs[i] = (struct mp_plan_alloc){ s.size[i], (uint64_t)(i % SLOTS) * SLOT,
						      (uint64_t)i, k++, 0, 0 };
		if (i >= W) {
			s.op[s.n++] = -(i - W) - 1;
			p.allocs[i - W].upper = k++;
		}
	}
	for (long i = N - W; i < N; i++) {
		s.op[s.n++] = -i - 1;
		p.allocs[i].upper = k++;
	}
	p.version = MP_PLAN_VERSION;
	p.pool_align = 256;
	p.pool_size = SLOTS * SLOT;
	p.device = 0;
	p.nrequests = k;
	p.nallocs = N;
	p.fingerprint = mp_plan_fingerprint(s.size, N);
	snprintf(p.strategy, sizeof(p.strategy), "bench");
	mp_runtime *rt = open_plan(&p);
	mp_plan_free(&p);
	if (rt)
		row(name, rt, &s, iters, count);
	mp_close(rt);
	free(s.op);
	free(s.size);
}

/* ResNet-50 at batch 32, greedy-size. */
static void zoo(int iters, int count)
{
	char err[512];
	struct synth_opts o = { .model = "resnet50", .batch = 32,
				.dtype = SYNTH_FP32, .device = "h200" };
	struct trace *t;
	if (synth_build(&o, &t, err, sizeof(err))) {
		fprintf(stderr, "bench_runtime: %s\n", err);
		return;
	}
	struct solver_problem prob;
	struct solver_report rep;
	struct mp_plan plan;
	uint64_t *off = NULL;
	mp_runtime *rt = NULL;
	if (solver_problem_from_trace(t, &prob, err, sizeof(err)) == 0) {
		off = malloc((prob.n ? prob.n : 1) * sizeof(*off));
		struct planfile_info info = { .strategy = "greedy-size" };
		if (off && solver_solve(&prob, "greedy-size", NULL, off, &rep, err, sizeof(err)) == 0 &&
		    planfile_build(t, &prob, off, &info, &plan, err, sizeof(err)) == 0) {
			rt = open_plan(&plan);
			mp_plan_free(&plan);
		} else {
			fprintf(stderr, "bench_runtime: %s\n", err);
		}
		solver_problem_free(&prob);
	}
	free(off);
	struct seq s = { 0 };
	s.nbuf = t->nbuffers;
	s.op = malloc(t->nevents * sizeof(*s.op));
	s.size = malloc(t->nbuffers * sizeof(*s.size));
	s.before = malloc(t->nbuffers * sizeof(*s.before));
	for (size_t b = 0; b < t->nbuffers; b++) {
		s.size[b] = t->buffers[b].size;
		if (t->buffers[b].alloc_ev == TRACE_NONE)
			s.before[s.nbefore++] = b;
	}
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (e->type == TRACE_EV_ALLOC)
			s.op[s.n++] = (long)e->buffer;
		else if (e->type == TRACE_EV_FREE)
			s.op[s.n++] = -(long)e->buffer - 1;
	}
	if (rt)
		row("resnet50_b32", rt, &s, iters, count);
	mp_close(rt);
	free(s.op);
	free(s.size);
	free(s.before);
	trace_free(t);
}

static void *idle(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && !strcmp(argv[1], "--quick");
	int count = argc > 1 && !strcmp(argv[1], "--count");
	if (argc > 2 || (argc > 1 && !quick && !count)) {
		fprintf(stderr, "usage: bench_runtime [--quick | --count]\n");
		return 2;
	}
	if (count && !HAVE_CALLGRIND) {
		fprintf(stderr, "bench_runtime: error: built without valgrind/callgrind.h: --count cannot mark what it measures\n");
		return 3;
	}
	window("window", quick ? 20 : 200, count);
	zoo(quick ? 20 : 200, count);
	/* a process that has had a second thread (any CUDA program): locks
	 * take atomic instructions from then on, glibc's as the runtime's */
	pthread_t t;
	if (pthread_create(&t, NULL, idle, NULL) == 0 && pthread_join(t, NULL) == 0)
		window("window_threaded", quick ? 20 : 200, count);
	return 0;
}
