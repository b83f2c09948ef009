/* SPDX-License-Identifier: MIT */
/*
 * bench_swap.c - how far swapping shrinks the pool, and at what predicted
 * cost.  First the zoo (ResNet-50 and VGG-16 at batch 32 and 64, fp32;
 * BERT-base at 16 and 32, fp32; GPT-2 at 8 and 16, bf16; all on the h200
 * roofline) on two links, gh200-c2c and pcie5: per model, batch and link the
 * no-swap lower bound, the largest reduction the frontier sweep
 * (frontier.h, the code of `memplan-plan frontier`) finds with a predicted
 * overhead of at most 1% and 2%, the ideal reductions (a) the transient
 * bytes analyze finds idle across the peak (its swappable room, less the
 * weights and other buffers the pool does not hold) and (b) the smallest
 * pool any strategy reaches on the `infinite` link, the achieved share of
 * each ideal, and whether memplan dominated vdnn and singa (no more
 * predicted overhead at every budget where one of them fits).  Then the
 * time of one swap_plan() per strategy at one budget on a trace of at least
 * 10^5 events (consecutive GPT-2 iterations in one trace).
 * Budgets fall in steps of 2.5% of the lower bound (--step PCT; --quick is
 * 5%), about 1.5 minutes on 2 busy cores.  Usage: bench_swap [--quick]
 * [--step PCT]; other arguments are refused.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../analyze/report.h" /* the Makefile has no -Ianalyze */
#include "frontier.h"
#include "simulate.h"
#include "swap.h"
#include "synth.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double gib(uint64_t n) { return (double)n / (1024.0 * 1024 * 1024); }

/* A reduction in percent of the lower bound: 0 for no pool. */
static double reduction(uint64_t pool, uint64_t lb)
{
	return pool && lb && pool < lb ? 100.0 * (double)(lb - pool) / (double)lb : 0.0;
}

/*
 * The transient bytes resident and idle at the trace's peak (analyze's
 * swappable room without the persistent buffers, which pass through the
 * pool).  0 and *out, or -1 with the reason printed.
 */
static int swappable(const struct trace *t, uint64_t *out)
{
	char err[512];
	struct report r;
	if (report_build(t, NULL, 0, &r, err, sizeof(err))) {
		fprintf(stderr, "bench_swap: %s\n", err);
		return -1;
	}
	*out = 0;
	for (size_t i = 0; i < r.nlive; i++)
		if (r.live[i].idle &&
		    !trace_buffer_persistent(&t->buffers[r.live[i].buffer]))
			*out += r.live[i].bytes;
	report_free(&r);
	return 0;
}

static int sweep(const struct trace *t, const struct solver_problem *p,
		 const char *link, double step, struct frontier *f)
{
	char err[512];
	struct link_model l;
	struct frontier_options o = { .step = step, .placer = "best-fit", .align = 1 };
	if (link_parse(link, t, &l, err, sizeof(err)) ||
	    frontier_sweep(t, p, &l, &o, f, err, sizeof(err))) {
		fprintf(stderr, "bench_swap: %s: %s\n", link, err);
		return -1;
	}
	return 0;
}

struct zoo_entry {
	const char *model;
	unsigned batch;
	enum synth_dtype dtype;
};

static const struct zoo_entry zoo[] = {
	{ "resnet50", 32, SYNTH_FP32 },  { "resnet50", 64, SYNTH_FP32 },
	{ "vgg16", 32, SYNTH_FP32 },     { "vgg16", 64, SYNTH_FP32 },
	{ "bert-base", 16, SYNTH_FP32 }, { "bert-base", 32, SYNTH_FP32 },
	{ "gpt2", 8, SYNTH_BF16 },       { "gpt2", 16, SYNTH_BF16 },
};

static const char *const links[] = { "gh200-c2c", "pcie5" };

/* One zoo trace: a row per link.  0 or -1. */
static int bench_zoo(const struct zoo_entry *z, double step)
{
	char err[512];
	struct synth_opts so = { z->model, z->batch, z->dtype, "h200", 0, NULL };
	struct trace *t = NULL;
	struct solver_problem p = { 0 };
	struct frontier ideal = { 0 };
	uint64_t idle;
	int bad = -1;
	if (synth_build(&so, &t, err, sizeof(err)) ||
	    solver_problem_from_trace(t, &p, err, sizeof(err))) {
		fprintf(stderr, "bench_swap: %s: %s\n", z->model, err);
		goto out;
	}
	if (swappable(t, &idle) || sweep(t, &p, "infinite", step, &ideal))
		goto out;
	uint64_t lb = solver_lower_bound(&p);
	uint64_t ideal_b = 0;
	for (size_t s = 0; s < ideal.nstrategies; s++) {
		uint64_t m = frontier_smallest(&ideal, s, INFINITY, NULL);
		if (m && (!ideal_b || m < ideal_b))
			ideal_b = m;
	}
	double red_a = idle < lb ? 100.0 * (double)idle / (double)lb : 100.0;
	double red_b = reduction(ideal_b, lb);
	for (size_t k = 0; k < sizeof(links) / sizeof(links[0]); k++) {
		struct frontier f;
		if (sweep(t, &p, links[k], step, &f))
			goto out;
		int m = frontier_strategy_index(&f, "memplan");
		double r1 = reduction(frontier_smallest(&f, (size_t)m, 1.0, NULL), lb);
		double r2 = reduction(frontier_smallest(&f, (size_t)m, 2.0, NULL), lb);
		size_t compared, lost, first = 0;
		frontier_dominates(&f, (size_t)m, &compared, &lost, &first);
		char dom[32];
		snprintf(dom, sizeof(dom), "%s %zu/%zu", lost ? "no" : "yes",
			 compared - lost, compared);
		printf("%-9s %5u %-9s %8.2f %7.1f%% %7.1f%% %8.1f%% %8.1f%% %6.2f %6.2f  %-12s %7.1f %7zu\n",
		       z->model, z->batch, links[k], gib(lb), r1, r2, red_a, red_b,
		       red_a > 0 ? r2 / red_a : 0.0, red_b > 0 ? r2 / red_b : 0.0,
		       dom, f.cpu_seconds, f.nrows);
		fflush(stdout);
		frontier_free(&f);
	}
	bad = 0;
out:
	frontier_free(&ideal);
	solver_problem_free(&p);
	trace_free(t);
	return bad;
}

/*
 * k consecutive iterations of z in one trace, as a capture of k training
 * steps holds them: buffers that live across the iteration (weights,
 * optimizer state) once, allocated before the first and freed after the
 * last; each iteration's transient buffers anew; times shifted by the
 * iteration's span.  0 and *out, or -1 with the reason printed.
 */
static int repeat_trace(const struct trace *z, unsigned k, struct trace **out)
{
	char err[512];
	struct trace *t = trace_new();
	int64_t *map = malloc((z->nbuffers ? z->nbuffers : 1) * sizeof(*map));
	int rc = !t || !map;
	for (size_t i = 0; !rc && i < z->nmeta; i++)
		rc = trace_set_meta(t, z->meta[i].key, z->meta[i].value);
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	for (size_t i = 0; i < z->nevents; i++) {
		const struct trace_event *e = &z->events[i];
		if (e->t_start != TRACE_TIME_NONE && e->t_start < t0)
			t0 = e->t_start;
		if (e->t_end != TRACE_TIME_NONE && e->t_end > t1)
			t1 = e->t_end;
	}
	int64_t span = t1 > t0 ? t1 - t0 + 1000 : 1000, seq = 0;
	for (size_t i = 0; !rc && i < z->nbuffers; i++)
		if (trace_buffer_persistent(&z->buffers[i]) &&
		    (map[i] = trace_add_buffer(t, &z->buffers[i])) < 0)
			rc = 1;
	for (unsigned r = 0; !rc && r < k; r++) {
		for (size_t i = 0; !rc && i < z->nbuffers; i++)
			if (!trace_buffer_persistent(&z->buffers[i]) &&
			    (map[i] = trace_add_buffer(t, &z->buffers[i])) < 0)
				rc = 1;
		for (size_t i = 0; !rc && i < z->nevents; i++) {
			struct trace_event e = z->events[i];
			if (e.type == TRACE_EV_ALLOC || e.type == TRACE_EV_FREE) {
				const struct trace_buffer *b = &z->buffers[e.buffer];
				/* a persistent buffer's own alloc or free happens once */
				if (trace_buffer_persistent(b) &&
				    (e.type == TRACE_EV_ALLOC ? r != 0 : r != k - 1))
					continue;
				e.buffer = map[e.buffer];
			}
			e.seq = seq++;
			if (e.t_start != TRACE_TIME_NONE)
				e.t_start += (int64_t)r * span;
			if (e.t_end != TRACE_TIME_NONE)
				e.t_end += (int64_t)r * span;
			rc = trace_add_event(t, &e) < 0;
			for (uint32_t a = 0; !rc && a < z->events[i].nacc; a++) {
				const struct trace_access *ac = &z->accesses[z->events[i].acc0 + a];
				rc = trace_add_access(t, map[ac->buffer], ac->mode) != 0;
			}
		}
	}
	free(map);
	if (!rc && z->nholes) {
		fprintf(stderr, "bench_swap: the repeated trace has holes; not supported\n");
		rc = 1;
	} else if (!rc && trace_finish(t, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_swap: repeating the iteration: %s\n", err);
		rc = 1;
	} else if (rc) {
		fprintf(stderr, "bench_swap: out of memory repeating the iteration\n");
	}
	if (rc) {
		trace_free(t);
		return -1;
	}
	*out = t;
	return 0;
}

/* swap_plan() once per strategy at 80% of the lower bound on a trace of at
 * least 10^5 events.  0 or -1. */
static int bench_large(void)
{
	char err[512];
	struct synth_opts so = { "gpt2", 8, SYNTH_BF16, "h200", 0, NULL };
	struct trace *z = NULL, *t = NULL;
	struct solver_problem p = { 0 };
	struct link_model l;
	int bad = -1;
	if (synth_build(&so, &z, err, sizeof(err))) {
		fprintf(stderr, "bench_swap: gpt2: %s\n", err);
		return -1;
	}
	/* each iteration after the first adds the events but the persistent
	 * buffers' allocs and frees */
	size_t once = 0;
	for (size_t i = 0; i < z->nevents; i++) {
		const struct trace_event *e = &z->events[i];
		once += (e->type == TRACE_EV_ALLOC || e->type == TRACE_EV_FREE) &&
			trace_buffer_persistent(&z->buffers[e->buffer]);
	}
	size_t each = z->nevents - once;
	unsigned k = each ? (unsigned)((100000 - once + each - 1) / each) : 1;
	if (repeat_trace(z, k, &t))
		goto out;
	if (solver_problem_from_trace(t, &p, err, sizeof(err)) ||
	    link_parse("gh200-c2c", t, &l, err, sizeof(err))) {
		fprintf(stderr, "bench_swap: %s\n", err);
		goto out;
	}
	uint64_t lb = solver_lower_bound(&p),
		 budget = (uint64_t)((double)lb * 80 / 100.0);
	printf("trace: gpt2 batch 8 bf16, %u iterations: %zu events, %zu buffers (%zu planned), lower bound %.2f GiB; budget 80%% on gh200-c2c\n",
	       k, t->nevents, t->nbuffers, p.n, gib(lb));
	printf("%-9s %5s %10s %8s %8s %8s %8s %8s %10s %7s\n", "strategy", "fits",
	       "pool_GiB", "swaps", "overhd%", "cpu_s", "wall_s", "choose_s",
	       "place_s", "target");
	bad = 0;
	for (size_t s = 0; swap_strategy_at(s); s++) {
		const char *name = swap_strategy_at(s)->name;
		struct mp_plan plan;
		struct sim_result sim;
		struct swap_outcome oc;
		double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		int rc = swap_plan(t, &p, &l, name, budget, "best-fit", 1, &plan,
				   &sim, &oc, err, sizeof(err));
		double w = clock_s(CLOCK_MONOTONIC) - w0,
		       c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (rc && rc != SWAP_ENOFIT) {
			fprintf(stderr, "bench_swap: %s: %s\n", name, err);
			bad = -1;
			continue;
		}
		if (rc)
			printf("%-9s %5s %10s %8s %8s %8.2f %8.2f %8.2f %10.2f %7s\n", name,
			       "no", "-", "-", "-", c, w, oc.choose_s, oc.place_s, "-");
		else
			printf("%-9s %5s %10.2f %8zu %8.2f %8.2f %8.2f %8.2f %10.2f %6.1f%%\n",
			       name, "yes", gib(plan.pool_size), oc.nops, sim_overhead(&sim),
			       c, w, oc.choose_s, oc.place_s,
			       100.0 * (double)oc.target / (double)lb);
		fflush(stdout);
		if (!rc) {
			mp_plan_free(&plan);
			sim_free(&sim);
		}
	}
	printf("(target: < 5 s CPU per strategy; cpu_s is CLOCK_PROCESS_CPUTIME_ID, wall_s on a shared machine; "
	       "choose_s and place_s are swap_plan's own wall-clock split; target: the resident peak aimed at last)\n");
out:
	solver_problem_free(&p);
	trace_free(t);
	trace_free(z);
	return bad;
}

int main(int argc, char **argv)
{
	double step = 2.5;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			step = 5;
		} else if (strcmp(argv[i], "--step") == 0 && i + 1 < argc) {
			char *end;
			step = strtod(argv[++i], &end);
			if (*end || !(step >= 0.1 && step <= 50)) {
				fprintf(stderr, "bench_swap: error: --step wants a percentage in [0.1, 50], not '%s'\n",
					argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: bench_swap [--quick] [--step PCT]\n");
			return 0;
		} else {
			fprintf(stderr, "bench_swap: error: unknown option '%s'\n", argv[i]);
			return 2;
		}
	}
	int bad = 0;
	double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
	printf("zoo swap frontier, budgets in %.4g%% steps of the lower bound, placement best-fit, memplan strategy\n",
	       step);
	printf("%-9s %5s %-9s %8s %8s %8s %9s %9s %6s %6s  %-12s %7s %7s\n", "model",
	       "batch", "link", "lb_GiB", "red<=1%", "red<=2%", "ideal(a)",
	       "ideal(b)", "2%/(a)", "2%/(b)", "dominated", "cpu_s", "budgets");
	for (size_t i = 0; i < sizeof(zoo) / sizeof(zoo[0]); i++)
		bad |= bench_zoo(&zoo[i], step) != 0;
	printf("(red<=N%%: the largest pool reduction, in %% of the lower bound, memplan reaches with a predicted overhead of at most N%%;\n"
	       " ideal (a): transient bytes idle across the peak (analyze's swappable room without persistent buffers), (b): the smallest pool\n"
	       " any strategy reaches on the infinite link; 2%%/(x): red<=2%% over that ideal; dominated: budgets where memplan had no more\n"
	       " overhead than vdnn and singa / budgets where one of them fits; cpu_s: the sweep on that link; budgets: its rows)\n");
	printf("\nplanning time, one budget, a trace of >= 10^5 events\n");
	bad |= bench_large() != 0;
	printf("(bench_swap: %.1f s CPU, %.1f s wall)\n",
	       clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0, clock_s(CLOCK_MONOTONIC) - w0);
	return bad;
}
