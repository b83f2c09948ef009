/* SPDX-License-Identifier: MIT */
/*
 * bench_recompute.c - swap, recompute or both (recompute.h): per zoo model
 * (ResNet-50 and VGG-16 at batch 32 and BERT-base at 16, fp32; GPT-2 at 8,
 * bf16; the h200 roofline) on pcie5 and gh200-c2c, the frontier of
 * memplan (swap-only), recompute (recompute-only), hybrid and the
 * checkpoint baselines sqrt-n and every-layer, every 5% of the no-swap
 * lower bound (--step PCT), the largest reduction each reaches within 1,
 * 2, 5, 10 and 16% predicted overhead, hybrid's overhead against sqrt-n's
 * at sqrt-n's pool, and at how many budgets hybrid was predicted no slower
 * than every other (dominated); then, for
 * ResNet-50 and GPT-2 on pcie5, the hybrid advice at the budget of its 2%
 * figure per operator kind (the TACO paper's per-layer-type table); and
 * beside each row the proven bounds (swapbound.h) of swap, recompute and
 * hybrid plans at the same overheads.  About 155 s of CPU in all
 * (2026-11-29, this 2-core machine: Inception-v3 80 s of it).
 * Usage: bench_recompute [--step PCT] [--model NAME] [--link NAME]; the
 * last two run one row.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "budget.h"
#include "frontier.h"
#include "planfile.h"
#include "recompute.h"
#include "simulate.h"
#include "swap.h"
#include "swapbound.h"
#include "synth.h"

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double reduction(uint64_t pool, uint64_t lb)
{
	return pool && lb && pool < lb ? 100.0 * (double)(lb - pool) / (double)lb : 0.0;
}

struct row {
	const char *model;
	unsigned batch;
	enum synth_dtype dtype;
};

static const struct row rows[] = {
	{ "resnet50", 32, SYNTH_FP32 },
	{ "alexnet", 128, SYNTH_FP32 },
	{ "vgg16", 32, SYNTH_FP32 },
	{ "inception_v3", 32, SYNTH_FP16 },
	{ "bert-base", 16, SYNTH_FP32 },
	{ "gpt2", 8, SYNTH_BF16 },
};
static const char *const links[] = { "pcie5", "gh200-c2c" };
static const char *const strategies[] = { "memplan", "recompute", "hybrid",
					   "sqrt-n", "every-layer" };
#define NSTRAT (sizeof(strategies) / sizeof(*strategies))
/* the overheads the reductions are read at, percent */
static const double within[] = { 1, 2, 5, 10, 16 };
#define NWITHIN (sizeof(within) / sizeof(*within))

static int load(const struct row *r, const char *link, struct trace **t,
		struct solver_problem *p, struct link_model *l, uint64_t *align)
{
	char err[512];
	struct synth_opts so = { r->model, r->batch, r->dtype, "h200", 0, NULL, 0 };
	if (synth_build(&so, t, err, sizeof(err)) ||
	    solver_problem_from_trace(*t, p, err, sizeof(err)) ||
	    link_parse(link, *t, l, err, sizeof(err))) {
		fprintf(stderr, "bench_recompute: %s: %s\n", r->model, err);
		return -1;
	}
	solver_problem_drop_holes(p);
	*align = solver_trace_align(*t, 1);
	if (solver_problem_align(p, *align, err, sizeof(err))) {
		fprintf(stderr, "bench_recompute: %s: %s\n", r->model, err);
		return -1;
	}
	return 0;
}

/* The per-operator table of the hybrid advice at budget. */
static int breakdown(const struct row *r, const char *link, uint64_t budget)
{
	struct trace *t = NULL;
	struct solver_problem p = { 0 };
	struct link_model l;
	struct swap_ctx c = { 0 };
	struct recomp_model m = { 0 };
	struct recomp_advice a = { 0 };
	uint64_t align;
	char err[768];
	int bad = -1;
	if (load(r, link, &t, &p, &l, &align))
		goto out;
	if (swap_ctx_init(&c, t, &p, &l, err, sizeof(err)) ||
	    recomp_model_init(&m, t, &p, err, sizeof(err)) ||
	    recomp_advise(&c, "hybrid", budget, "best-fit", align, &a, err,
			  sizeof(err))) {
		fprintf(stderr, "bench_recompute: %s: %s\n", r->model, err);
		goto out;
	}
	uint64_t lb = solver_lower_bound(&p);
	printf("\n%s batch %u on %s, hybrid at %.1f%% of the lower bound: pool -%.1f%%, overhead %.2f%%\n",
	       r->model, r->batch, link, 100.0 * (double)budget / (double)lb,
	       reduction(a.plan.pool_size, lb), sim_overhead(&a.sim));
	printf("%-40s %6s %9s %6s %9s %6s %9s %9s\n", "operator", "keep", "keep_MiB",
	       "swap", "swap_MiB", "recomp", "recomp_MiB", "cost_ms");
	/* one pass per distinct kind, in order of first appearance */
	char (*kinds)[96] = calloc(m.n ? m.n : 1, sizeof(*kinds));
	size_t nk = 0;
	if (!kinds)
		goto out;
	for (size_t i = 0; i < m.n; i++) {
		if (m.b[i].item < 0)
			continue;
		char k[96];
		recomp_kind(&m, i, k, sizeof(k));
		size_t j = 0;
		while (j < nk && strcmp(kinds[j], k) != 0)
			j++;
		if (j == nk)
			memcpy(kinds[nk++], k, sizeof(k));
	}
	for (size_t j = 0; j < nk; j++) {
		size_t n[3] = { 0 };
		uint64_t b[3] = { 0 };
		double cost = 0;
		for (size_t i = 0; i < m.n; i++) {
			char k[96];
			if (m.b[i].item < 0)
				continue;
			recomp_kind(&m, i, k, sizeof(k));
			if (strcmp(k, kinds[j]) != 0)
				continue;
			n[a.action[i]]++;
			b[a.action[i]] += m.b[i].bytes;
			cost += a.cost_ns[i];
		}
		if (!n[1] && !n[2] && b[0] < (64u << 20))
			continue;
		printf("%-40.40s %6zu %9.1f %6zu %9.1f %6zu %9.1f %9.3f\n", kinds[j],
		       n[0], (double)b[0] / 1048576, n[1], (double)b[1] / 1048576,
		       n[2], (double)b[2] / 1048576, cost / 1e6);
	}
	free(kinds);
	bad = 0;
out:
	recomp_advice_free(&a);
	recomp_model_free(&m);
	swap_ctx_free(&c);
	solver_problem_free(&p);
	trace_free(t);
	return bad;
}

/* One model on one link; *b2 gets hybrid's budget of its 2% figure. */
static int bench_row(const struct row *r, const char *link, double step,
		     uint64_t *b2)
{
	struct trace *t = NULL;
	struct solver_problem p = { 0 };
	struct link_model l;
	struct frontier f = { 0 };
	uint64_t align;
	char err[768];
	int bad = -1;
	*b2 = 0;
	if (load(r, link, &t, &p, &l, &align))
		goto out;
	struct frontier_options o = { 0 };
	o.strategies = strategies;
	o.nstrategies = NSTRAT;
	o.step = step;
	o.align = align;
	unsigned long searched = recomp_hybrid_searches;
	unsigned long pruned = recomp_hybrid_pruned;
	if (frontier_sweep(t, &p, &l, &o, &f, err, sizeof(err))) {
		fprintf(stderr, "bench_recompute: %s: %s\n", r->model, err);
		goto out;
	}
	searched = recomp_hybrid_searches - searched;
	pruned = recomp_hybrid_pruned - pruned;
	double hybrid_cpu = 0;
	for (size_t i = 0; i < f.nrows; i++)
		hybrid_cpu += f.rows[i].cells[2].cpu_seconds;
	size_t row2;
	if (frontier_smallest(&f, 2, 2.0, &row2))
		*b2 = f.rows[row2].budget;
	size_t compared, lost, first = 0;
	frontier_dominates(&f, 2, &compared, &lost, &first);
	/* hybrid planned for sqrt(n) checkpointing's own pool as the budget */
	size_t rowq = 0;
	uint64_t sq = frontier_smallest(&f, 3, INFINITY, &rowq);
	const char *vs = "-";
	char vsbuf[64];
	if (sq) {
		struct mp_plan hp;
		struct sim_result hs;
		struct swap_outcome ho;
		int rc = budget_plan(t, &p, &l, "hybrid", sq, "best-fit", align,
				     &hp, &hs, &ho, err, sizeof(err));
		if (rc == 0) {
			snprintf(vsbuf, sizeof(vsbuf), "%.2f%% vs %.2f%%",
				 sim_overhead(&hs), f.rows[rowq].cells[3].overhead);
			mp_plan_free(&hp);
			sim_free(&hs);
		} else {
			snprintf(vsbuf, sizeof(vsbuf), "no fit vs %.2f%%",
				 f.rows[rowq].cells[3].overhead);
		}
		vs = vsbuf;
	}
	printf("| %s | %u | `%s` | %.2f GiB |", r->model, r->batch, link,
	       (double)f.lb_noswap / (1024.0 * 1024 * 1024));
	for (size_t s = 0; s < NSTRAT; s++) {
		printf(" ");
		for (size_t k = 0; k < NWITHIN; k++)
			printf("%s%.1f", k ? "/" : "",
			       reduction(frontier_smallest(&f, s, within[k], NULL),
					 f.lb_noswap));
		printf(" |");
	}
	/* the proven bounds (swapbound.h) at the same overheads */
	static const enum swapbound_space spaces[] = {
		SWAPBOUND_SWAP, SWAPBOUND_RECOMPUTE, SWAPBOUND_HYBRID
	};
	double bound_cpu = 0;
	for (size_t s = 0; s < 3; s++) {
		printf(" ");
		for (size_t k = 0; k < NWITHIN; k++) {
			struct swap_bound sb;
			double c0 = cpu_now();
			if (swapbound_compute_space(t, &l, spaces[s],
						    within[k] / 100.0 * f.base_ns,
						    &sb, err, sizeof(err))) {
				fprintf(stderr, "bench_recompute: %s: %s\n", r->model, err);
				goto out;
			}
			bound_cpu += cpu_now() - c0;
			if (sb.computed)
				printf("%s%.1f", k ? "/" : "",
				       reduction(sb.bytes, f.lb_noswap));
			else
				printf("%s-", k ? "/" : "");
		}
		printf(" |");
	}
	printf(" %s | %zu/%zu | %.1f | %.1f | %.1f | %lu/%lu |\n", vs,
	       compared - lost, compared, f.cpu_seconds, hybrid_cpu, bound_cpu,
	       searched, pruned);
	fflush(stdout);
	bad = 0;
out:
	frontier_free(&f);
	solver_problem_free(&p);
	trace_free(t);
	return bad;
}

int main(int argc, char **argv)
{
	double step = 5;
	const char *only_model = NULL, *only_link = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--step") == 0 && i + 1 < argc) {
			char *end;
			step = strtod(argv[++i], &end);
			if (*end || !(step >= 0.1 && step <= 25)) {
				fprintf(stderr, "bench_recompute: error: --step wants a percentage in [0.1, 25], not '%s'\n",
					argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc) {
			only_model = argv[++i];
		} else if (strcmp(argv[i], "--link") == 0 && i + 1 < argc) {
			only_link = argv[++i];
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: bench_recompute [--step PCT] [--model NAME] [--link NAME]\n");
			return 0;
		} else {
			fprintf(stderr, "bench_recompute: error: unknown argument '%s'\n",
				argv[i]);
			return 2;
		}
	}
	printf("largest reduction (%% of the no-swap lower bound) within 1/2/5/10/16%% predicted overhead, budgets every %.2f%%\n",
	       step);
	printf("| model | batch | link | lower bound | swap | recompute | hybrid | sqrt-n | every-layer | bound: swap | bound: recompute | bound: hybrid | hybrid vs sqrt-n, budget sqrt-n's pool | hybrid dominated | cpu s | hybrid cpu s | bounds cpu s | hybrid searches run/skipped |\n"
	       "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	int bad = 0;
	uint64_t b2[sizeof(rows) / sizeof(*rows)] = { 0 };
	for (size_t li = 0; li < 2; li++) {
		if (only_link && strcmp(only_link, links[li]) != 0)
			continue;
		for (size_t r = 0; r < sizeof(rows) / sizeof(*rows); r++) {
			if (only_model && strcmp(only_model, rows[r].model) != 0)
				continue;
			uint64_t b;
			bad |= bench_row(&rows[r], links[li], step, &b);
			if (li == 0)
				b2[r] = b;
		}
	}
	for (size_t r = 0; r < sizeof(rows) / sizeof(*rows); r++) {
		if (!b2[r] || (strcmp(rows[r].model, "resnet50") != 0 &&
			       strcmp(rows[r].model, "gpt2") != 0))
			continue;
		bad |= breakdown(&rows[r], "pcie5", b2[r]);
	}
	printf("\n(the seed paper, TACO 2018 Layup: transfers win for convolution and fully connected layers, recomputation for the cheap ones; MONeT: 3x less memory at +9-16%% compute)\n");
	return bad ? 1 : 0;
}
