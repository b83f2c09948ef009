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
 * pool any strategy reaches on the `infinite` link and (c) the swap floor
 * (swapfloor.h: what any swap plan must keep resident, a true bound, so
 * (b) never beats it), the achieved share of each ideal, (d) the link
 * bound (swapbound.h: the largest reduction any stall-free plan can reach
 * on that link, and (d)2% the same for plans with at most 2% overhead),
 * red<=1% over (d), and whether memplan dominated vdnn and singa (no more
 * predicted overhead at every budget where one of them fits).  Then the
 * time of one budget_plan() per strategy at one budget on a trace of at least
 * 10^5 events (consecutive GPT-2 iterations in one trace), recompute and
 * hybrid (recompute.h) included.
 * Budgets: the whole range every 5% of the lower bound (all strategies, for
 * the dominance), then every 1.25% (--step PCT; --quick 2.5%, the coarse
 * step four times the fine one) within 5% of the lowest coarse budget where
 * memplan stays within 1% and within 2%, where the figures are decided:
 * finer everywhere would cost minutes when the memplan search is slow.
 * In all about 80 s of CPU on this 2-core machine (2026-11-22, commit
 * 8750fd0: memplan's search is most of it).
 * Usage: bench_swap [--quick] [--step PCT] [--large: the timing alone];
 * other arguments are refused.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../analyze/report.h"
#include "../../analyze/swapfloor.h"
#include "budget.h"
#include "frontier.h"
#include "planfile.h"
#include "simulate.h"
#include "swap.h"
#include "swapbound.h"
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
		 const char *link, double from, double step, double to,
		 struct frontier *f)
{
	char err[512];
	struct link_model l;
	struct frontier_options o = { .from = from, .step = step, .to = to,
				      .placer = "best-fit",
				      /* the zoo's 512: p carries it already */
				      .align = solver_trace_align(t, 1) };
	if (link_parse(link, t, &l, err, sizeof(err)) ||
	    frontier_sweep(t, p, &l, &o, f, err, sizeof(err))) {
		fprintf(stderr, "bench_swap: %s: %s\n", link, err);
		return -1;
	}
	return 0;
}

/* The lowest budget (percent) of f where memplan (column m) predicts at
 * most lim percent of overhead; 0 if none. */
static double lowest_within(const struct frontier *f, size_t m, double lim)
{
	double low = 0;
	for (size_t i = 0; i < f->nrows; i++) {
		const struct frontier_cell *c = &f->rows[i].cells[m];
		if (c->fits && c->overhead <= lim)
			low = f->rows[i].percent;
	}
	return low;
}

/* The trace's iteration: its first event's start to its last end (at least
 * the simulator's base, so a share of it bounds the stall of a plan with
 * that much overhead from above). */
static double iteration_ns(const struct trace *t)
{
	int64_t t0 = TRACE_TIME_NONE, t1 = INT64_MIN;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (t0 == TRACE_TIME_NONE)
			t0 = e->t_start;
		if (e->t_end != TRACE_TIME_NONE && e->t_end > t1)
			t1 = e->t_end;
		if (e->t_start != TRACE_TIME_NONE && e->t_start > t1)
			t1 = e->t_start;
	}
	return t0 != TRACE_TIME_NONE && t1 > t0 ? (double)(t1 - t0) : 0;
}

/* The link bound's reduction (percent) for plans stalling at most stall
 * ns; 0 and *pct, or -1 with the reason printed. */
static int link_bound(const struct trace *t, const char *link, double stall,
		      double *pct)
{
	char err[512];
	struct link_model l;
	struct swap_bound b;
	if (link_parse(link, t, &l, err, sizeof(err)) ||
	    swapbound_compute(t, &l, stall, &b, err, sizeof(err))) {
		fprintf(stderr, "bench_swap: %s: %s\n", link, err);
		return -1;
	}
	if (!b.computed) {
		fprintf(stderr, "bench_swap: %s: no link bound: %s\n", link, b.why);
		return -1;
	}
	*pct = swapbound_pct(&b);
	return 0;
}

/* What one link's sweeps found for memplan. */
struct link_result {
	uint64_t pool1, pool2;  /* smallest pool within 1% and 2%; 0 none */
	size_t compared, lost;  /* dominance over every budget swept */
	size_t budgets;
	double cpu_s;
};

static void take(const struct frontier *f, struct link_result *r)
{
	int m = frontier_strategy_index(f, "memplan");
	uint64_t a = frontier_smallest(f, (size_t)m, 1.0, NULL),
		 b = frontier_smallest(f, (size_t)m, 2.0, NULL);
	if (a && (!r->pool1 || a < r->pool1))
		r->pool1 = a;
	if (b && (!r->pool2 || b < r->pool2))
		r->pool2 = b;
	size_t compared, lost, first = 0;
	frontier_dominates(f, (size_t)m, &compared, &lost, &first);
	r->compared += compared;
	r->lost += lost;
	r->budgets += f->nrows;
	r->cpu_s += f->cpu_seconds;
}

/*
 * One link: the whole range at the coarse step (every strategy, so the
 * dominance covers it), then the fine step in a window of one coarse step
 * either side of the lowest coarse budget within 1% and within 2%, where
 * the figures of the table are decided.  0 or -1.
 */
static int bench_link(const struct trace *t, const struct solver_problem *p,
		      const char *link, double coarse, double fine,
		      struct link_result *r)
{
	struct frontier f;
	memset(r, 0, sizeof(*r));
	if (sweep(t, p, link, 100, coarse, 0, &f))
		return -1;
	take(&f, r);
	int m = frontier_strategy_index(&f, "memplan");
	double at[2] = { lowest_within(&f, (size_t)m, 1.0),
			 lowest_within(&f, (size_t)m, 2.0) };
	frontier_free(&f);
	for (int k = 0; k < 2; k++) {
		if (at[k] == 0 || (k == 1 && at[1] == at[0]))
			continue;
		double from = at[k] + coarse - fine, to = at[k] - coarse;
		if (from > 100 - fine)
			from = 100 - fine;
		if (to < 0)
			to = 0;
		if (from <= to)
			continue;
		if (sweep(t, p, link, from, fine, to, &f))
			return -1;
		take(&f, r);
		frontier_free(&f);
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
static int bench_zoo(const struct zoo_entry *z, double coarse, double fine)
{
	char err[512];
	struct synth_opts so = { z->model, z->batch, z->dtype, "h200", 0, NULL, 0 };
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
	if (swappable(t, &idle) || sweep(t, &p, "infinite", 100, fine, 0, &ideal))
		goto out;
	uint64_t lb = solver_lower_bound(&p);
	uint64_t ideal_b = 0;
	for (size_t s = 0; s < ideal.nstrategies; s++) {
		uint64_t m = frontier_smallest(&ideal, s, INFINITY, NULL);
		if (m && (!ideal_b || m < ideal_b))
			ideal_b = m;
	}
	struct swap_floor fl;
	if (swapfloor_compute(t, &fl, err, sizeof(err)) || !fl.computed) {
		fprintf(stderr, "bench_swap: %s: no swap floor: %s\n", z->model,
			fl.computed ? err : fl.why);
		goto out;
	}
	double red_a = idle < lb ? 100.0 * (double)idle / (double)lb : 100.0;
	double red_b = reduction(ideal_b, lb);
	double red_c = swapfloor_ideal_pct(&fl);
	if (ideal_b && ideal_b < fl.bytes) {
		fprintf(stderr, "bench_swap: %s: a pool of %" PRIu64 " bytes on the infinite link is below the swap floor %" PRIu64 "\n",
			z->model, ideal_b, fl.bytes);
		goto out;
	}
	for (size_t k = 0; k < sizeof(links) / sizeof(links[0]); k++) {
		struct link_result r;
		if (bench_link(t, &p, links[k], coarse, fine, &r))
			goto out;
		double r1 = reduction(r.pool1, lb), r2 = reduction(r.pool2, lb), red_d, red_d2;
		if (link_bound(t, links[k], 0, &red_d) ||
		    link_bound(t, links[k], 0.02 * iteration_ns(t), &red_d2))
			goto out;
		if (red_d > red_c + 1e-9 || red_d2 < red_d - 1e-9 || red_d2 > red_c + 1e-9) {
			fprintf(stderr, "bench_swap: %s %s: the link bound (%.2f%%, %.2f%% at 2%%) beats the swap floor (%.2f%%)\n",
				z->model, links[k], red_d, red_d2, red_c);
			goto out;
		}
		if (r2 > red_d2 + 1e-9) {
			fprintf(stderr, "bench_swap: %s %s: memplan reaches %.2f%% within 2%%, beyond the link bound %.2f%%\n",
				z->model, links[k], r2, red_d2);
			goto out;
		}
		char dom[32];
		snprintf(dom, sizeof(dom), "%s %zu/%zu", r.lost ? "no" : "yes",
			 r.compared - r.lost, r.compared);
		printf("%-9s %5u %-9s %8.2f %7.1f%% %7.1f%% %8.1f%% %8.1f%% %8.1f%% %8.1f%% %8.1f%% %6.2f %6.2f %6.2f %6.2f  %-12s %7.1f %7zu\n",
		       z->model, z->batch, links[k], gib(lb), r1, r2, red_a, red_b, red_c,
		       red_d, red_d2,
		       red_a > 0 ? r2 / red_a : 0.0, red_b > 0 ? r2 / red_b : 0.0,
		       red_c > 0 ? r2 / red_c : 0.0, red_d > 0 ? r1 / red_d : 0.0, dom,
		       r.cpu_s, r.budgets);
		fflush(stdout);
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

/* budget_plan() once per strategy at 80% of the lower bound on a trace of at
 * least 10^5 events.  0 or -1. */
static int bench_large(void)
{
	char err[512];
	struct synth_opts so = { "gpt2", 8, SYNTH_BF16, "h200", 0, NULL, 0 };
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
	/* the strategies that recompute (recompute.h) after the swap ones */
	static const char *const more[] = { "recompute", "hybrid" };
	size_t nswap = 0;
	while (swap_strategy_at(nswap))
		nswap++;
	for (size_t s = 0; s < nswap + 2; s++) {
		const char *name = s < nswap ? swap_strategy_at(s)->name
					     : more[s - nswap];
		struct mp_plan plan;
		struct sim_result sim;
		struct swap_outcome oc;
		double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		int rc = budget_plan(t, &p, &l, name, budget, "best-fit", 1,
				     &plan, &sim, &oc, err, sizeof(err));
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
	       "choose_s and place_s are the planner's own wall-clock split; target: the resident peak aimed at last)\n");
	/* the proven bounds frontier and advise print, at 2% */
	static const char *const kinds[] = { "swap", "recompute", "hybrid" };
	for (int k = SWAPBOUND_SWAP; k <= SWAPBOUND_HYBRID; k++) {
		struct swap_bound b;
		double base = (double)(t->events[t->nevents - 1].t_end - t->events[0].t_start);
		double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		int rc = swapbound_compute_space(t, &l, (enum swapbound_space)k, 0.02 * base,
						 &b, err, sizeof(err));
		double c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (rc) {
			fprintf(stderr, "bench_swap: bound: %s\n", err);
			bad = -1;
			continue;
		}
		printf("bound %-9s within 2%%: %s, %.2f s CPU\n", kinds[k],
		       b.computed ? "computed" : b.why, c);
	}
out:
	solver_problem_free(&p);
	trace_free(t);
	trace_free(z);
	return bad;
}

int main(int argc, char **argv)
{
	double fine = 1.25;
	int large_only = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			fine = 2.5;
		} else if (strcmp(argv[i], "--large") == 0) {
			large_only = 1;
		} else if (strcmp(argv[i], "--step") == 0 && i + 1 < argc) {
			char *end;
			fine = strtod(argv[++i], &end);
			if (*end || !(fine >= 0.1 && fine <= 25)) {
				fprintf(stderr, "bench_swap: error: --step wants a percentage in [0.1, 25], not '%s'\n",
					argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: bench_swap [--quick] [--step PCT] [--large]\n");
			return 0;
		} else {
			fprintf(stderr, "bench_swap: error: unknown option '%s'\n", argv[i]);
			return 2;
		}
	}
	double coarse = 4 * fine;
	int bad = 0;
	if (large_only) /* the 10^5-event timing alone */
		return bench_large() != 0;
	double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
	printf("zoo swap frontier: budgets every %.4g%% of the lower bound, every %.4g%% around where memplan's overhead passes 1%% and 2%%; best-fit placement\n",
	       coarse, fine);
	printf("%-9s %5s %-9s %8s %8s %8s %9s %9s %9s %9s %9s %6s %6s %6s %6s  %-12s %7s %7s\n", "model",
	       "batch", "link", "lb_GiB", "red<=1%", "red<=2%", "ideal(a)",
	       "ideal(b)", "ideal(c)", "link(d)", "(d)2%", "2%/(a)", "2%/(b)", "2%/(c)",
	       "1%/(d)", "dominated", "cpu_s", "budgets");
	for (size_t i = 0; i < sizeof(zoo) / sizeof(zoo[0]); i++)
		bad |= bench_zoo(&zoo[i], coarse, fine) != 0;
	printf("(red<=N%%: the largest pool reduction, in %% of the lower bound, memplan reaches with a predicted overhead of at most N%%;\n"
	       " ideal (a): transient bytes idle across the peak (analyze's swappable room without persistent buffers), (b): the smallest pool\n"
	       " any strategy reaches on the infinite link, (c): the swap floor, 1 - floor / lower bound (memplan-analyze summary: what any swap\n"
	       " plan must keep resident whatever the link; a true bound, (b) <= (c)); link (d): the largest reduction any stall-free plan can\n"
	       " reach on that link (swapbound.h: the bytes away at each step must have crossed each lane in time), (d)2%%: the same for a stall\n"
	       " of at most 2%% of the iteration (any plan with at most 2%% overhead); (d) <= (d)2%% <= (c), red<=2%% <= (d)2%%; 2%%/(x): red<=2%% over that ideal,\n"
	       " 1%%/(d): red<=1%% over (d) (above 1 only by stalling); dominated: budgets where memplan had no more\n"
	       " overhead than vdnn and singa / budgets where one of them fits; cpu_s: the sweeps on that link; budgets: their rows)\n");
	printf("\nplanning time, one budget, a trace of >= 10^5 events\n");
	bad |= bench_large() != 0;
	printf("(bench_swap: %.1f s CPU, %.1f s wall)\n",
	       clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0, clock_s(CLOCK_MONOTONIC) - w0);
	return bad;
}
