/* SPDX-License-Identifier: MIT */
/*
 * bench_runtime.c - the runtime's cost per request on its hot path (host
 * backend, an iteration that follows the plan), next to malloc/free of the
 * same sequence in the same run.  Two iterations: "window", every request
 * planned (allocs of 256 B to 16 KiB, each freed 16 allocations later), and
 * ResNet-50 at batch 32 from the zoo with its greedy-size plan (buffers that
 * outlive the iteration pass through to the real allocator, aligned malloc
 * here).  One row per figure: "name value unit".  Best of 5 runs.
 * Usage: bench_runtime [--quick].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memplan.h"
#include "planfile.h"
#include "solver.h"
#include "synth.h"

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

static double run_runtime(mp_runtime *rt, const struct seq *s, int iters)
{
	double best = 1e30;
	for (int r = 0; r < 5; r++) {
		double total = 0;
		for (int it = 0; it < iters; it++) {
			for (size_t i = 0; i < s->nbefore; i++)
				if (!ptrs[s->before[i]])
					ptrs[s->before[i]] = mp_alloc(rt, s->size[s->before[i]], NULL);
			mp_iteration_begin(rt);
			double t0 = now();
			for (size_t i = 0; i < s->n; i++) {
				long o = s->op[i];
				if (o >= 0) {
					ptrs[o] = mp_alloc(rt, s->size[o], NULL);
				} else {
					mp_free(rt, ptrs[-o - 1], NULL);
					ptrs[-o - 1] = NULL;
				}
			}
			total += now() - t0;
			mp_iteration_end(rt);
			for (size_t b = 0; b < s->nbuf; b++)
				if (ptrs[b]) {
					mp_free(rt, ptrs[b], NULL);
					ptrs[b] = NULL;
				}
		}
		if (total < best)
			best = total;
	}
	return best * 1e9 / ((double)s->n * iters);
}

static double run_malloc(const struct seq *s, int iters)
{
	double best = 1e30;
	for (int r = 0; r < 5; r++) {
		double total = 0;
		for (int it = 0; it < iters; it++) {
			for (size_t i = 0; i < s->nbefore; i++)
				if (!ptrs[s->before[i]])
					ptrs[s->before[i]] = malloc(s->size[s->before[i]]);
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
			total += now() - t0;
			for (size_t b = 0; b < s->nbuf; b++) {
				free(ptrs[b]);
				ptrs[b] = NULL;
			}
		}
		if (total < best)
			best = total;
	}
	return best * 1e9 / ((double)s->n * iters);
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

static void row(const char *name, mp_runtime *rt, const struct seq *s, int iters)
{
	ptrs = calloc(s->nbuf, sizeof(*ptrs));
	double ns_rt = run_runtime(rt, s, iters);
	struct mp_stats st;
	mp_stats_get(rt, &st);
	double ns_m = run_malloc(s, iters);
	printf("runtime_%s_ns_per_request %.1f ns (%zu requests per iteration, %.0f%% of its allocations planned)\n",
	       name, ns_rt, s->n,
	       100.0 * (double)st.planned_allocs /
		       (double)(st.planned_allocs + st.pass_through));
	printf("malloc_%s_ns_per_request %.1f ns\n", name, ns_m);
	printf("runtime_%s_over_malloc %.2f x\n", name, ns_rt / ns_m);
	free(ptrs);
}

/* Every alloc planned, each freed 16 allocations later. */
static void window(int iters)
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
		row("window", rt, &s, iters);
	mp_close(rt);
	free(s.op);
	free(s.size);
}

/* ResNet-50 at batch 32, greedy-size. */
static void zoo(int iters)
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
		row("resnet50_b32", rt, &s, iters);
	mp_close(rt);
	free(s.op);
	free(s.size);
	free(s.before);
	trace_free(t);
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && !strcmp(argv[1], "--quick");
	window(quick ? 20 : 200);
	zoo(quick ? 20 : 200);
	return 0;
}
