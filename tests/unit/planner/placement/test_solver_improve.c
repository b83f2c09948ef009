/* SPDX-License-Identifier: MIT */
/*
 * test_solver_improve.c - unit tests of solver_improve()'s moves for large
 * problems (the size order with start ties, the squeeze), on DL-shaped
 * problems of 4,200 buffers generated as bench_placement generates its
 * large instances (the generator is repeated here, so that a change there
 * cannot change these problems).  Each case was found by search: the move
 * lowers the placement within a few steps where the rounds alone, given
 * 200 steps, do not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "solver.h"
#include "tap.h"

static char err[512];

/* --- bench_placement's DL-shaped generator ------------------------------- */

struct rec {
	int64_t lower, upper;
	uint64_t size;
};

struct gen {
	struct rec *r;
	size_t n, cap;
	int64_t t; /* the clock: one tick per operator */
	uint64_t rng;
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static size_t born(struct gen *g, uint64_t size)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 4096;
		g->r = realloc(g->r, g->cap * sizeof(*g->r));
		if (!g->r) {
			fprintf(stderr, "test_solver_improve: out of memory\n");
			exit(1);
		}
	}
	g->r[g->n] = (struct rec){ g->t, -1, size ? size : 1 };
	return g->n++;
}

static void dies(struct gen *g, size_t i) { g->r[i].upper = g->t + 1; }

/* A size drawn like a training step's tensors (SOMAS ResNet-50: half the
 * tensors under 8 KiB, a tenth over 12 MiB): tiny bookkeeping buffers,
 * medium workspaces, and large activations, rounded to 512 bytes mostly. */
static uint64_t draw(struct gen *g, uint64_t large)
{
	uint64_t k = rnd(g) % 100;
	if (k < 25)
		return (uint64_t)4 << (rnd(g) % 9); /* 4 B .. 1 KiB */
	if (k < 60)
		return ((uint64_t)8192 << (rnd(g) % 7)) + 512 * (rnd(g) % 16);
	return large >> (rnd(g) % 3);
}

/* A short-lived temporary: born now, gone after 1-3 operators. */
static void temp(struct gen *g, uint64_t large)
{
	size_t i = born(g, draw(g, large));
	g->r[i].upper = g->t + 1 + (int64_t)(rnd(g) % 3);
}

/*
 * One training iteration of `layers` layers, over micro-batches until n
 * buffers: forward saves 1-3 activations per layer (plus bookkeeping) until
 * the layer's backward step, which frees them in reverse and hands a
 * gradient down; weight gradients accumulate from the first micro-batch to
 * the optimizer step, which frees them with its temporaries.  Exactly n
 * buffers, every lifetime half-open and non-empty.
 */
static struct gen generate(size_t n, int layers, uint64_t seed)
{
	struct gen g = { .rng = seed };
	uint64_t *act = calloc((size_t)layers, sizeof(*act));
	size_t *saved = calloc((size_t)layers * 4, sizeof(*saved));
	int *nsaved = calloc((size_t)layers, sizeof(*nsaved));
	size_t *wgrad = calloc((size_t)layers, sizeof(*wgrad));
	if (!act || !saved || !nsaved || !wgrad) {
		fprintf(stderr, "test_solver_improve: out of memory\n");
		exit(1);
	}
	for (int l = 0; l < layers; l++) {
		/* 256 KiB .. 32 MiB, a multiple of 512 */
		act[l] = ((uint64_t)1 << (18 + rnd(&g) % 8)) +
			 512 * (rnd(&g) % 2048);
		wgrad[l] = SIZE_MAX;
	}
	/* a micro-batch makes at most 14 buffers per layer, the optimizer 2 */
	while (g.n + (size_t)layers * 16 + 2 <= n) {
		size_t input = born(&g, act[0]);
		for (int l = 0; l < layers; l++, g.t++) {
			int k = (int)(rnd(&g) % 3);
			for (int j = 0; j < k; j++)
				temp(&g, act[l]);
			nsaved[l] = 1 + (int)(rnd(&g) % 3);
			for (int s = 0; s < nsaved[l]; s++)
				saved[4 * l + s] = born(&g, s ? draw(&g, act[l])
							      : act[l]);
			if (rnd(&g) % 2)
				saved[4 * l + nsaved[l]++] =
					born(&g, 256 << (rnd(&g) % 3));
		}
		dies(&g, input);
		g.t++;
		size_t grad = born(&g, act[layers - 1]);
		for (int l = layers - 1; l >= 0; l--, g.t++) {
			int k = (int)(rnd(&g) % 4);
			for (int j = 0; j < k; j++)
				temp(&g, act[l]);
			if (wgrad[l] == SIZE_MAX)
				wgrad[l] = born(&g, act[l] / 4 + 4096);
			size_t down = born(&g, act[l > 0 ? l - 1 : 0]);
			dies(&g, grad);
			for (int s = nsaved[l] - 1; s >= 0; s--)
				dies(&g, saved[4 * l + s]);
			grad = down;
		}
		dies(&g, grad);
		g.t++;
	}
	/* the optimizer step: per layer a temporary, then the gradient goes;
	 * then small temporaries (the optimizer's bookkeeping) up to n */
	for (int l = 0; l < layers && g.n < n; l++, g.t++) {
		temp(&g, act[l] / 8);
		if (wgrad[l] != SIZE_MAX)
			dies(&g, wgrad[l]);
	}
	for (int l = 0; l < layers; l++)
		if (wgrad[l] != SIZE_MAX && g.r[wgrad[l]].upper < 0)
			dies(&g, wgrad[l]);
	while (g.n < n) {
		temp(&g, 65536);
		g.t++;
	}
	free(act);
	free(saved);
	free(nsaved);
	free(wgrad);
	return g;
}

/* --- the cases ------------------------------------------------------------ */

/*
 * Problem number seed of the search (4,200 buffers, 40 layers), placed by
 * greedy-size, then solver_improve() with a budget of steps.  Returns 0
 * with the lower bound and both heights, or -1 (err says why).
 */
static int improve_case_lim(long seed,
			    const struct solver_improve_limits *lim,
			    uint64_t *lb, uint64_t *start, uint64_t *end,
			    uint64_t *made)
{
	uint64_t steps = lim->max_steps;
	struct gen g = generate(4200, 40, (uint64_t)seed * 7919 + 3);
	struct solver_item *it = calloc(g.n, sizeof(*it));
	uint64_t *off = calloc(g.n, sizeof(*off));
	int rc = -1;
	if (!it || !off)
		goto out;
	for (size_t i = 0; i < g.n; i++)
		it[i] = (struct solver_item){ g.r[i].size, 1, g.r[i].lower,
					      g.r[i].upper, NULL, 0,
					      SOLVER_FREE, -1 };
	struct solver_problem p = { it, g.n, NULL, 0 };
	uint64_t done = 0, hc = 0;
	*lb = solver_lower_bound(&p);
	if (solver_place_greedy(&p, off, start, NULL, err, sizeof(err)) ||
	    solver_improve(&p, off, end, lim, &done, err, sizeof(err)) ||
	    solver_check(&p, off, &hc, err, sizeof(err)))
		goto out;
	if (made)
		*made = done;
	rc = hc == *end && (!steps || done <= steps) ? 0 : -1;
	if (rc)
		snprintf(err, sizeof(err), "height %llu, checked %llu, %llu steps",
			 (unsigned long long)*end, (unsigned long long)hc,
			 (unsigned long long)done);
out:
	free(it);
	free(off);
	free(g.r);
	return rc;
}

static int improve_case(long seed, uint64_t steps, uint64_t *lb,
			uint64_t *start, uint64_t *end)
{
	struct solver_improve_limits lim = { 0, steps, 0, 0 };
	return improve_case_lim(seed, &lim, lb, start, end, NULL);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * The caller's measure of a greedy run (run_seconds, issue 33): on a
 * machine where a run took longer than the time left nothing starts (the
 * improvement's setup was outside every estimate, so auto passed its time
 * limit); where runs are quick the guess changes no step.
 */
static void test_run_seconds(void)
{
	uint64_t lb, start, end, made = 1;
	struct solver_improve_limits slow = { 0.2, 0, 0, 10.0 };
	double t = now_s();
	int rc = improve_case_lim(3, &slow, &lb, &start, &end, &made);
	t = now_s() - t;
	CHECK(rc == 0 && made == 0 && end == start,
	      "run_seconds: a run of 10 s does not start in 0.2 s");
	CHECK(t < 1.0, "run_seconds: ... and the call ends at once (under 1 s with generating)");
	uint64_t plain, quick;
	struct solver_improve_limits fast = { 600, 10, 0, 1e-9 };
	CHECK(improve_case(3, 10, &lb, &start, &plain) == 0 &&
		      improve_case_lim(3, &fast, &lb, &start, &quick,
				       &made) == 0 &&
		      quick == plain && made == 10,
	      "run_seconds: a quick run's guess makes the same ten steps");
}

static void test_size_start(void)
{
	uint64_t lb, start, end;
	/* one step: the size order with ties by start, at the lowest fit
	 * (the rounds' first step only replays the placement) */
	int rc = improve_case(24, 1, &lb, &start, &end);
	if (rc)
		printf("# %s\n", err);
	CHECK(rc == 0 && lb == 865010028 && start == 882763072,
	      "size-start: the problem and greedy-size's height");
	CHECK(rc == 0 && end == 877087552,
	      "size-start: one step lowers greedy-size by 0.64%");
}

static void test_squeeze(void)
{
	uint64_t lb, start, end;
	/* the size order does not help here; the squeeze does within ten
	 * steps; the rounds alone stay at 599,732,232 after 200 */
	int rc = improve_case(3, 10, &lb, &start, &end);
	if (rc)
		printf("# %s\n", err);
	CHECK(rc == 0 && lb == 594273912 && start == 599732232,
	      "squeeze: the problem and greedy-size's height");
	CHECK(rc == 0 && end <= 596173324,
	      "squeeze: ten steps lower greedy-size by 0.59%");
	uint64_t again, one;
	CHECK(improve_case(3, 10, &lb, &start, &again) == 0 && again == end,
	      "squeeze: the same steps give the same height");
	CHECK(improve_case(3, 1, &lb, &start, &one) == 0 && one == start,
	      "squeeze: the size order's step alone does not lower it");
}

int main(void)
{
	test_size_start();
	test_squeeze();
	test_run_seconds();
	return tap_done();
}
