/* SPDX-License-Identifier: MIT */
/*
 * bench_solver.c - placement quality and speed: one row per (instance,
 * strategy) with the lower bound (proven, for the searches), the height,
 * their ratio, whether it is proven optimal, the time and the throughput, on
 * the shared MiniMalloc instances ($SHARED_DATA/placement, default
 * ../shared/data), the zoo's iterations, and generated training iterations
 * of 10^4, 10^5 and 10^6 buffers (--quick skips 10^6; the searches exact
 * and auto run up to 10^4).  --time-limit (default 1 s) bounds each search.
 * Every placement is checked by solver_solve().  --instance and --strategy
 * keep one row's worth (for profiling).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "minimalloc_csv.h"
#include "solver.h"
#include "synth.h"

static const char *instances[] = {
	"A.1048576", "B.1048576", "C.1048576", "D.1048576",
	"E.1048576", "F.1048576", "G.1048576", "H.1048576",
	"I.1048576", "J.1048576", "K.1048576", "somas-resnet50",
};

/* A shared instance through the real path: MiniMalloc import, then the
 * planner's problem extraction.  0, or -1 with the reason printed. */
static int load_instance(const char *path, struct solver_problem *p)
{
	char err[512];
	struct trace *t;
	if (mmcsv_import(path, &t, err, sizeof(err)) != 0) {
		printf("# %s\n", err);
		return -1;
	}
	int rc = solver_problem_from_trace(t, p, err, sizeof(err));
	trace_free(t);
	if (rc != 0)
		printf("# %s\n", err);
	return rc ? -1 : 0;
}

/* --- a generated training iteration ------------------------------------- */

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct gen {
	struct solver_item *items;
	size_t n, cap;
	int64_t clock;
};

static size_t gen_alloc(struct gen *g, uint64_t size)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 1024;
		g->items = realloc(g->items, g->cap * sizeof(*g->items));
		if (!g->items) {
			fprintf(stderr, "bench_solver: out of memory\n");
			exit(1);
		}
	}
	size = (size + 511) / 512 * 512;
	g->items[g->n] = (struct solver_item){ size, 1, g->clock++, 0, NULL, 0,
					       SOLVER_FREE, (int64_t)g->n };
	return g->n++;
}

static void gen_free(struct gen *g, size_t i) { g->items[i].upper = g->clock++; }

/* A few short-lived temporaries in a chain: each dies after the next is born. */
static void gen_temps(struct gen *g, uint64_t base, int count)
{
	size_t prev = (size_t)-1;
	for (int k = 0; k < count; k++) {
		size_t t = gen_alloc(g, base / (1 + rnd() % 4) + 512 * (rnd() % 8));
		if (prev != (size_t)-1)
			gen_free(g, prev);
		prev = t;
	}
	if (prev != (size_t)-1)
		gen_free(g, prev);
}

/*
 * One iteration with gradient accumulation: micro-batches run the forward
 * pass over the layers (each layer saves activations until its backward
 * step, plus a chain of temporaries) and the backward pass in reverse (the
 * gradient flowing down lives until the next layer's backward, weight
 * gradients accumulate until the end).  Peak concurrency is a few thousand.
 */
static struct solver_problem generate(size_t target, uint64_t seed)
{
	struct gen g = { 0 };
	rng = seed;
	int layers = target <= 10000 ? 300 : 1000;
	uint64_t *act = malloc((size_t)layers * sizeof(*act));
	size_t *saved = malloc((size_t)layers * 3 * sizeof(*saved));
	int *nsaved = malloc((size_t)layers * sizeof(*nsaved));
	size_t *wgrad = malloc((size_t)layers * sizeof(*wgrad));
	for (int l = 0; l < layers; l++) {
		/* activations shrink in space and grow in channels: sizes
		 * spread over 16 KiB .. 8 MiB */
		act[l] = (uint64_t)1 << (14 + rnd() % 10);
		act[l] += (rnd() % 64) * 1024;
		wgrad[l] = (size_t)-1;
	}
	while (g.n < target) {
		size_t input = gen_alloc(&g, act[0]);
		for (int l = 0; l < layers; l++) {
			nsaved[l] = 1 + (int)(rnd() % 3);
			gen_temps(&g, act[l], (int)(rnd() % 6));
			for (int s = 0; s < nsaved[l]; s++)
				saved[3 * l + s] = gen_alloc(&g, act[l] >> s);
			gen_temps(&g, act[l] / 2, (int)(rnd() % 4));
		}
		gen_free(&g, input);
		size_t grad = gen_alloc(&g, act[layers - 1]);
		for (int l = layers - 1; l >= 0; l--) {
			gen_temps(&g, act[l], (int)(rnd() % 5));
			if (wgrad[l] == (size_t)-1)
				wgrad[l] = gen_alloc(&g, act[l] / 4 + 4096);
			size_t down = gen_alloc(&g, act[l > 0 ? l - 1 : 0]);
			gen_free(&g, grad);
			for (int s = nsaved[l] - 1; s >= 0; s--)
				gen_free(&g, saved[3 * l + s]);
			grad = down;
		}
		gen_free(&g, grad);
	}
	/* optimizer step reads the accumulated gradients, then frees them */
	for (int l = 0; l < layers; l++)
		if (wgrad[l] != (size_t)-1) {
			gen_temps(&g, act[l] / 8, 1);
			gen_free(&g, wgrad[l]);
		}
	free(act);
	free(saved);
	free(nsaved);
	free(wgrad);
	struct solver_problem p = { g.items, g.n, NULL, 0 };
	return p;
}

/* --- measuring ----------------------------------------------------------- */

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
/* The strategies run on this one thread: its CPU time is the "one core"
 * figure, steady when other work shares the machine. */
static double cpu_s(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }

static double time_limit = 1.0;
static const char *only_instance, *only_strategy; /* filters, or NULL */

/*
 * One row per strategy through solver_solve() (which checks every answer).
 * Searches run only where asked: on huge problems auto would only repeat
 * the heuristics.
 */
static int bench(const char *name, const struct solver_problem *p,
		 int searches)
{
	int bad = 0;
	if (only_instance && strcmp(only_instance, name) != 0)
		return 0;
	char err[512];
	uint64_t *off = malloc((p->n ? p->n : 1) * sizeof(*off));
	if (!off)
		return 1;
	for (size_t i = 0; solver_name_at(i); i++) {
		const char *sn = solver_name_at(i);
		if (!searches && !solver_strategy_find(sn))
			continue;
		if (only_strategy && strcmp(only_strategy, sn) != 0)
			continue;
		struct solver_options o = { .time_limit = time_limit };
		struct solver_report r;
		double t0 = now_s(), c0 = cpu_s();
		int rc = solver_solve(p, sn, &o, off, &r, err, sizeof(err));
		double dt = now_s() - t0, dc = cpu_s() - c0;
		if (rc) {
			fprintf(stderr, "bench_solver: %s %s: %s\n", name, sn, err);
			bad = 1;
			continue;
		}
		printf("%-22s %9zu %14" PRIu64 " %-12s %14" PRIu64 " %7.4f %-7s %10.1f %10.1f %12.0f\n",
		       name, p->n, r.lower_bound, sn, r.height,
		       r.lower_bound ? (double)r.height / (double)r.lower_bound : 1.0,
		       r.optimal ? "yes" : "no", dt * 1e3, dc * 1e3,
		       dc > 0 ? (double)p->n / dc : 0.0);
		fflush(stdout);
	}
	free(off);
	return bad;
}

/* The zoo's iterations, as in traces/archive.list. */
static const struct synth_opts zoo[] = {
	{ "resnet50", 32, SYNTH_FP32, "h200", 0, NULL, 0 },
	{ "alexnet", 128, SYNTH_FP32, "h200", 0, NULL, 0 },
	{ "vgg16", 32, SYNTH_FP32, "a100", 0, NULL, 0 },
	{ "inception_v3", 32, SYNTH_FP16, "h100", 0, NULL, 0 },
	{ "bert-base", 32, SYNTH_FP32, "a100", 0, NULL, 0 },
	{ "gpt2", 8, SYNTH_BF16, "h200", 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	int quick = 0, bad = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			quick = 1;
		} else if (strcmp(argv[i], "--time-limit") == 0 && i + 1 < argc) {
			char *end;
			time_limit = strtod(argv[++i], &end);
			if (*end || !(time_limit > 0 && time_limit <= 3600)) {
				fprintf(stderr, "bench_solver: error: --time-limit wants seconds in (0, 3600], not '%s'\n",
					argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--instance") == 0 && i + 1 < argc) {
			only_instance = argv[++i];
		} else if (strcmp(argv[i], "--strategy") == 0 && i + 1 < argc) {
			only_strategy = argv[++i];
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: bench_solver [--quick] [--time-limit SECONDS] [--instance NAME] [--strategy NAME]\n");
			return 0;
		} else {
			fprintf(stderr, "bench_solver: error: unknown option '%s'\n",
				argv[i]);
			return 2;
		}
	}
	const char *dir = getenv("SHARED_DATA");
	if (!dir || !*dir)
		dir = "../shared/data";
	printf("%-22s %9s %14s %-12s %14s %7s %-7s %10s %10s %12s\n", "instance",
	       "buffers", "lower_bound", "strategy", "height", "ratio", "optimal",
	       "time_ms", "cpu_ms", "buffers_per_s");
	for (size_t k = 0; k < sizeof(instances) / sizeof(instances[0]); k++) {
		char path[1024];
		struct solver_problem p;
		if (only_instance && strcmp(only_instance, instances[k]) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/placement/%s.csv", dir,
			 instances[k]);
		if (load_instance(path, &p) != 0) {
			fprintf(stderr, "bench_solver: warning: cannot read '%s'\n",
				path);
			continue;
		}
		bad |= bench(instances[k], &p, 1);
		solver_problem_free(&p);
	}
	for (size_t k = 0; k < sizeof(zoo) / sizeof(zoo[0]); k++) {
		char err[512], name[64];
		struct trace *t;
		struct solver_problem p;
		if (synth_build(&zoo[k], &t, err, sizeof(err)) ||
		    solver_problem_from_trace(t, &p, err, sizeof(err))) {
			fprintf(stderr, "bench_solver: %s: %s\n", zoo[k].model, err);
			bad = 1;
			continue;
		}
		snprintf(name, sizeof(name), "%s-b%u", zoo[k].model, zoo[k].batch);
		bad |= bench(name, &p, 1);
		solver_problem_free(&p);
		trace_free(t);
	}
	static const size_t sizes[] = { 10000, 100000, 1000000 };
	for (size_t k = 0; k < 3; k++) {
		if (quick && sizes[k] > 100000)
			continue;
		char name[32];
		snprintf(name, sizeof(name), "train-%zu", sizes[k]);
		if (only_instance && strcmp(only_instance, name) != 0)
			continue;
		struct solver_problem p = generate(sizes[k], 0x5eed + k);
		bad |= bench(name, &p, sizes[k] <= 10000);
		free(p.items);
	}
	return bad;
}
