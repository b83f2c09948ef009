/* SPDX-License-Identifier: MIT */
/*
 * bench_exact.c - how far the heuristic (hybrid) is from the optimum
 * (exact_plan.h) on traces small enough to search: per budget, each
 * space's best simulated overhead and the program's bound beside
 * hybrid's; then per overhead level the largest cut (reduction of the
 * lower bound) the optimum and hybrid reach, and the gap in points.
 * Figures, not assertions; skipped without CBC and GLPK.
 *
 * Usage: bench_exact [--model NAME [--depth N]] [--batch N] [--link NAME]
 *        [--step PCT] [--time-limit S] [--rounds N]; defaults: the rows
 *        below (AlexNet b8 and cut-down versions of the large models:
 *        memplan-trace synth --depth), both links, every 10%, 10 programs
 *        a budget.  --model runs any zoo model (batch 8 unless --batch).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "exact_milp.h"
#include "exact_plan.h"
#include "simulate.h"
#include "swap.h"
#include "synth.h"

struct row {
	const char *model;
	unsigned batch;
	enum synth_dtype dtype;
	unsigned depth; /* synth_opts.depth: 0 the whole model */
};

/* The zoo's small model, the graph the search ends on (194 decisions;
 * ResNet-50 b8 has 2,263, above EXACT_MAX_BINARIES), and cut-down
 * versions of the large ones small enough for the program (ResNet-50 at
 * one block a stage has 716 decisions, and the program finds no plan of
 * them within 20 s a budget: left out). */
static const struct row rows[] = {
	{ "alexnet", 8, SYNTH_FP32, 0 },
	{ "bert-base", 4, SYNTH_FP32, 1 },
	{ "gpt2", 1, SYNTH_FP32, 1 },
};
static const char *const links[] = { "pcie5", "gh200-c2c" };
static const double levels[] = { 0, 1, 2, 5 };
#define NLEVELS (sizeof(levels) / sizeof(*levels))
#define MAXB 64

struct cell {
	int fits;
	double over;  /* percent */
	uint64_t pool;
};

struct sweep {
	size_t n;
	double pct[MAXB];
	struct cell heur[MAXB], opt[3][MAXB];
	double bound[3][MAXB];
	int proven[3][MAXB];
};

static int load(const struct row *r, const char *link, struct trace **t,
		struct solver_problem *p, struct link_model *l, uint64_t *align)
{
	char err[512];
	struct synth_opts so = { r->model, r->batch, r->dtype, "h200", 0, NULL,
				 r->depth };
	if (synth_build(&so, t, err, sizeof(err)) ||
	    solver_problem_from_trace(*t, p, err, sizeof(err)) ||
	    link_parse(link, *t, l, err, sizeof(err))) {
		fprintf(stderr, "bench_exact: %s: %s\n", r->model, err);
		return -1;
	}
	solver_problem_drop_holes(p);
	*align = solver_trace_align(*t, 1);
	if (solver_problem_align(p, *align, err, sizeof(err))) {
		fprintf(stderr, "bench_exact: %s: %s\n", r->model, err);
		return -1;
	}
	return 0;
}

static double reduction(double pct)
{
	return 100.0 - pct;
}

/* The largest cut whose overhead is at most level, 0 if none. */
static double cut_at(const struct sweep *s, const struct cell *c, double level)
{
	double best = 0;
	for (size_t i = 0; i < s->n; i++)
		if (c[i].fits && c[i].over <= level + 1e-9 &&
		    reduction(s->pct[i]) > best)
			best = reduction(s->pct[i]);
	return best;
}

static void one_budget(const struct swap_ctx *c, uint64_t budget,
		       uint64_t align, const struct exact_options *base,
		       struct sweep *s, size_t i)
{
	char err[768];
	struct mp_plan plan;
	struct sim_result sim;
	struct swap_outcome oc;
	int rc = budget_plan_ctx(c, "hybrid", budget, "best-fit", align,
				 &plan, &sim, &oc, err, sizeof(err));
	s->heur[i].fits = rc == 0;
	if (!rc) {
		s->heur[i].over = sim_overhead(&sim);
		s->heur[i].pool = plan.pool_size;
		mp_plan_free(&plan);
		sim_free(&sim);
	}
	for (int sp = 0; sp < 3; sp++) {
		struct exact_options o = *base;
		struct exact_result er;
		o.space = (enum exact_space)sp;
		rc = exact_plan_ctx(c, &o, budget, "best-fit", align, &plan,
				    &sim, &er, err, sizeof(err));
		s->opt[sp][i].fits = rc == 0;
		s->bound[sp][i] = er.base_ns > 0 ? 100.0 * er.bound_ns / er.base_ns
						 : NAN;
		s->proven[sp][i] = er.proven;
		if (!rc) {
			s->opt[sp][i].over = sim_overhead(&sim);
			s->opt[sp][i].pool = plan.pool_size;
			mp_plan_free(&plan);
			sim_free(&sim);
		} else if (rc != SWAP_ENOFIT) {
			fprintf(stderr, "bench_exact: %s\n", err);
		}
		printf("  %5.1f%% %-9s %s %8.3f%% bound %8.3f%% %s rounds %u simulated %u recompute %zu swap %zu (%zu binaries, %zu rows)\n",
		       s->pct[i], sp == 0 ? "hybrid" : sp == 1 ? "swap" : "recompute",
		       rc ? "no fit " : "fits   ", rc ? NAN : s->opt[sp][i].over,
		       s->bound[sp][i], er.proven ? "proven" : "open  ",
		       er.rounds, er.simulated, er.nrecompute, er.nswap,
		       er.nbinaries, er.nrows);
	}
	printf("  %5.1f%% heuristic hybrid %s %8.3f%%\n", s->pct[i],
	       s->heur[i].fits ? "fits   " : "no fit ",
	       s->heur[i].fits ? s->heur[i].over : NAN);
	fflush(stdout);
}

static int bench_row(const struct row *r, const char *link, double step,
		     const struct exact_options *o)
{
	struct trace *t = NULL;
	struct solver_problem p = { 0 };
	struct link_model l;
	struct swap_ctx c = { 0 };
	uint64_t align;
	char err[768];
	int bad = -1;
	struct sweep *s = calloc(1, sizeof(*s));
	if (!s || load(r, link, &t, &p, &l, &align))
		goto out;
	if (swap_ctx_init(&c, t, &p, &l, err, sizeof(err))) {
		fprintf(stderr, "bench_exact: %s\n", err);
		goto out;
	}
	uint64_t lb = solver_lower_bound(&p);
	char name[64];
	if (r->depth)
		snprintf(name, sizeof(name), "%s depth %u", r->model, r->depth);
	else
		snprintf(name, sizeof(name), "%s", r->model);
	printf("\n%s batch %d on %s: lower bound %.2f MiB\n", name,
	       (int)r->batch, link, (double)lb / 1048576.0);
	for (double pct = 100; pct > 0 && s->n < MAXB; pct -= step) {
		size_t i = s->n++;
		s->pct[i] = pct;
		one_budget(&c, (uint64_t)((double)lb * pct / 100.0), align, o,
			   s, i);
		if (!s->heur[i].fits && !s->opt[0][i].fits &&
		    s->proven[0][i])
			break;
	}
	printf("\n| model | batch | link | overhead <= | optimal hybrid cut | swap-only | recompute-only | heuristic hybrid cut | gap (points) | proven budgets |\n");
	printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	size_t proven = 0;
	for (size_t i = 0; i < s->n; i++)
		proven += s->proven[0][i];
	for (size_t k = 0; k < NLEVELS; k++) {
		double oh = cut_at(s, s->opt[0], levels[k]);
		double h = cut_at(s, s->heur, levels[k]);
		printf("| %s | %u | `%s` | %g%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %+.1f | %zu/%zu |\n",
		       name, r->batch, link, levels[k], oh,
		       cut_at(s, s->opt[1], levels[k]),
		       cut_at(s, s->opt[2], levels[k]), h, oh - h, proven,
		       s->n);
	}
	bad = 0;
out:
	swap_ctx_free(&c);
	solver_problem_free(&p);
	trace_free(t);
	free(s);
	return bad;
}

int main(int argc, char **argv)
{
	const char *model = NULL, *link = NULL;
	unsigned batch = 0, depth = 0;
	double step = 10;
	/* 10 programs a budget: `make bench` ends in minutes (README) */
	struct exact_options o = { EXACT_HYBRID, 60, 10 };
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--model") == 0)
			model = argv[i + 1];
		else if (strcmp(argv[i], "--depth") == 0)
			depth = (unsigned)atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--batch") == 0)
			batch = (unsigned)atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--link") == 0)
			link = argv[i + 1];
		else if (strcmp(argv[i], "--step") == 0)
			step = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--time-limit") == 0)
			o.time_limit = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--rounds") == 0)
			o.max_rounds = (unsigned)atoi(argv[i + 1]);
	}
	if (!exact_available()) {
		printf("bench_exact: built without CBC or GLPK (coinor-libcbc-dev, libglpk-dev): skipped\n");
		return 0;
	}
	printf("bench_exact: programs solved by %s\n", exact_milp_solver());
	if (step <= 0 || step >= 100)
		step = 5;
	int bad = 0;
	struct row given = { model, batch ? batch : 8, SYNTH_FP32, depth };
	size_t nrows = model ? 1 : sizeof(rows) / sizeof(*rows);
	for (size_t r = 0; r < nrows; r++) {
		struct row one = model ? given : rows[r];
		if (batch)
			one.batch = batch;
		for (size_t k = 0; k < sizeof(links) / sizeof(*links); k++)
			if (!link || strcmp(link, links[k]) == 0)
				bad |= bench_row(&one, links[k], step, &o);
	}
	return bad ? 1 : 0;
}
