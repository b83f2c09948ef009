/* SPDX-License-Identifier: MIT */
/*
 * test_share.c - share.h: two hand-made jobs whose peaks fall at different
 * moments and whose frontiers differ (one swaps its peak away for free, the
 * other uses every byte of its peak all the time), split better than in
 * proportion to their needs; the split's exact choice on hand-made
 * frontiers; and property runs over zoo mixes in 70% of their transient
 * need (fits, every plan verifies, worst overhead at most the proportional
 * split's, the sum objective's total at most the max objective's).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "planfile.h"
#include "share.h"
#include "solver.h"
#include "synth.h"
#include "tap.h"
#include "trace.h"

#define MB 1000000ull

static struct trace_buffer buf(uint64_t size)
{
	struct trace_buffer b = { 0 };
	b.size = b.rounded = size;
	b.align = 1;
	b.fixed_offset = TRACE_NONE;
	b.stream = TRACE_NONE;
	b.role = TRACE_ROLE_TEMP;
	return b;
}

struct gen {
	struct trace *t;
	int64_t now, seq;
};

static void ev(struct gen *g, uint8_t type, int64_t b, int64_t dur)
{
	struct trace_event e = { 0 };
	e.stream = TRACE_NONE;
	e.type = type;
	e.buffer = b;
	e.seq = g->seq++;
	e.t_start = g->now;
	e.t_end = g->now + dur;
	g->now += dur;
	trace_add_event(g->t, &e);
}

static void kernel(struct gen *g, int64_t b, uint8_t how)
{
	ev(g, TRACE_EV_KERNEL, TRACE_NONE, 1000000);
	if (b >= 0)
		trace_add_access(g->t, b, how);
}

/* A temporary of size used by one kernel. */
static void temp(struct gen *g, uint64_t size)
{
	struct trace_buffer b = buf(size);
	int64_t x = trace_add_buffer(g->t, &b);
	ev(g, TRACE_EV_ALLOC, x, 0);
	kernel(g, x, TRACE_ACCESS_RW);
	ev(g, TRACE_EV_FREE, x, 0);
}

static struct trace *finish(struct gen *g)
{
	char err[256];
	if (trace_finish(g->t, err, sizeof(err))) {
		printf("# %s\n", err);
		trace_free(g->t);
		return NULL;
	}
	return g->t;
}

/*
 * Job A, its peak early: 100 MB written by the first kernel, idle across
 * 60 MB temporaries, read by the last kernel.  Need 160 MB; swapping the
 * 100 MB out across the temporaries costs nothing on PCIe 5 (2 ms each way
 * within 8 ms idle), so 110 MB does as well.
 */
static struct trace *job_a(void)
{
	struct gen g = { trace_new(), 0, 0 };
	struct trace_buffer b = buf(100 * MB);
	int64_t a = trace_add_buffer(g.t, &b);
	ev(&g, TRACE_EV_ALLOC, a, 0);
	kernel(&g, a, TRACE_ACCESS_WRITE);
	temp(&g, 1000);
	for (int i = 0; i < 8; i++)
		temp(&g, i >= 3 && i <= 4 ? 60 * MB : 10 * MB);
	kernel(&g, a, TRACE_ACCESS_READ);
	ev(&g, TRACE_EV_FREE, a, 0);
	return finish(&g);
}

/*
 * Job B, its peak late: five 20 MB buffers every kernel of the second half
 * uses (never idle), after small temporaries.  Need 100 MB, and no swap
 * brings it lower.
 */
static struct trace *job_b(void)
{
	struct gen g = { trace_new(), 0, 0 };
	for (int i = 0; i < 6; i++)
		temp(&g, 5 * MB);
	int64_t x[5];
	for (int i = 0; i < 5; i++) {
		struct trace_buffer b = buf(20 * MB);
		x[i] = trace_add_buffer(g.t, &b);
		ev(&g, TRACE_EV_ALLOC, x[i], 0);
	}
	for (int k = 0; k < 6; k++) {
		ev(&g, TRACE_EV_KERNEL, TRACE_NONE, 1000000);
		for (int i = 0; i < 5; i++)
			trace_add_access(g.t, x[i], TRACE_ACCESS_RW);
	}
	for (int i = 0; i < 5; i++)
		ev(&g, TRACE_EV_FREE, x[i], 0);
	return finish(&g);
}

static int load(struct trace *t, struct solver_problem *p,
		struct share_job *j)
{
	char err[512];
	memset(j, 0, sizeof(*j));
	if (solver_problem_from_trace(t, p, err, sizeof(err))) {
		printf("# %s\n", err);
		return -1;
	}
	solver_problem_drop_holes(p);
	uint64_t align = solver_trace_align(t, 1);
	if (align > 1 && solver_problem_align(p, align, err, sizeof(err)))
		return -1;
	j->t = t;
	j->p = p;
	j->align = align;
	return 0;
}

static void test_hand(void)
{
	struct trace *t[2] = { job_a(), job_b() };
	CHECK(t[0] && t[1], "the hand-made jobs are valid");
	if (!t[0] || !t[1])
		return;
	struct link_model l;
	char err[512];
	link_parse("pcie5", NULL, &l, err, sizeof(err));
	struct solver_problem p[2];
	struct share_job j[2];
	for (int i = 0; i < 2; i++) {
		CHECK(load(t[i], &p[i], &j[i]) == 0 &&
			      share_job_init(&j[i], &l, 5, err, sizeof(err)) == 0,
		      "a job's frontier");
	}
	CHECK_EQ_U64(j[0].lb, 160 * MB, "A needs 160 MB without swaps");
	CHECK_EQ_U64(j[1].lb, 100 * MB, "B needs 100 MB without swaps");
	CHECK(j[0].npts >= 1 && j[0].pts[0].pool <= 110 * MB + 4096 &&
		      j[0].pts[0].overhead < 1e-6,
	      "A's frontier reaches 110 MB at no overhead");
	CHECK(j[1].npts >= 1 && j[1].pts[0].pool >= 100 * MB,
	      "B's frontier stays at its need");
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < j[i].npts; k++) {
			const struct share_point *q = &j[i].pts[k];
			if (planfile_verify(&q->plan, t[i], err, sizeof(err)) ||
			    q->pool > q->budget || !q->plan.has_timing ||
			    (k && !(q->pool > j[i].pts[k - 1].pool &&
				    (q->overhead < j[i].pts[k - 1].overhead ||
				     (q->overhead <= j[i].pts[k - 1].overhead &&
				      q->swapped < j[i].pts[k - 1].swapped))))) {
				CHECK(0, "a frontier point verifies, fits its budget, has timing, and pools rise as overheads fall (or swapped bytes, at the same overhead)");
				printf("# job %d point %zu: %s\n", i, k, err);
			}
		}
	CHECK(1, "every frontier point verifies, fits, has timing and is on the frontier");

	/* 215 MB: the proportional split gives B 82.7 MB (it cannot fit);
	 * the frontiers give A 110 and B 100 */
	uint64_t avail = 215 * MB, prop[2];
	double poh[2];
	share_proportional(j, 2, avail, prop);
	CHECK(prop[1] < 100 * MB, "the proportional split starves B");
	for (int i = 0; i < 2; i++)
		share_job_add(&j[i], prop[i], &poh[i], err, sizeof(err));
	CHECK(isinf(poh[1]), "  ... which no plan fits");
	size_t pick[2];
	CHECK(share_split(j, 2, avail, SHARE_MAX, pick) == 0, "the split fits");
	CHECK(j[0].pts[pick[0]].pool + j[1].pts[pick[1]].pool <= avail,
	      "  ... within the memory");
	CHECK(fmax(j[0].pts[pick[0]].overhead, j[1].pts[pick[1]].overhead) < 1e-6,
	      "  ... at no overhead: A swaps, B keeps its peak");
	CHECK(share_split(j, 2, 150 * MB, SHARE_MAX, pick) == SHARE_ENOFIT,
	      "150 MB fits no split");
	for (int i = 0; i < 2; i++) {
		share_job_free(&j[i]);
		solver_problem_free(&p[i]);
		trace_free(t[i]);
	}
}

/* Room to spare: at the same zero overhead, the split takes the points
 * that swap nothing, not the smallest pools (which swap). */
static void test_split_no_needless_swaps(void)
{
	struct share_point a[2] = { { 0, 10, 0, 0, 0, { 0 }, 500, 3 },
				    { 0, 30, 0, 0, 0, { 0 }, 0, 0 } };
	struct share_point b[2] = { { 0, 12, 0, 0, 0, { 0 }, 700, 4 },
				    { 0, 40, 0, 0, 0, { 0 }, 0, 0 } };
	struct share_job j[2];
	memset(j, 0, sizeof(j));
	j[0].pts = a;
	j[0].npts = 2;
	j[1].pts = b;
	j[1].npts = 2;
	size_t pick[2];
	CHECK(share_split(j, 2, 1000, SHARE_MAX, pick) == 0 && pick[0] == 1 &&
		      pick[1] == 1,
	      "room to spare: no swap where none is needed (max)");
	CHECK(share_split(j, 2, 1000, SHARE_SUM, pick) == 0 && pick[0] == 1 &&
		      pick[1] == 1,
	      "room to spare: no swap where none is needed (sum)");
	/* 45 bytes: 30+12 moves 700, 10+12 moves 1200, the rest do not fit */
	CHECK(share_split(j, 2, 45, SHARE_MAX, pick) == 0 && pick[0] == 1 &&
		      pick[1] == 0,
	      "45 bytes: the split that fits and moves the fewest bytes");
}

/* Frontiers by hand: pool, overhead. */
static void test_split_exact(void)
{
	struct share_point a[3] = { { 0, 10, 9, 0, 0, { 0 }, 0, 0 },
				    { 0, 20, 4, 0, 0, { 0 }, 0, 0 },
				    { 0, 30, 0, 0, 0, { 0 }, 0, 0 } };
	struct share_point b[3] = { { 0, 10, 5, 0, 0, { 0 }, 0, 0 },
				    { 0, 15, 3, 0, 0, { 0 }, 0, 0 },
				    { 0, 40, 0, 0, 0, { 0 }, 0, 0 } };
	struct share_job j[2];
	memset(j, 0, sizeof(j));
	j[0].pts = a;
	j[0].npts = 3;
	j[1].pts = b;
	j[1].npts = 3;
	size_t pick[2];
	/* 35 bytes: (20,4)+(15,3) worst 4; (30,0)+... needs 40; (10,9)+(15,3)
	 * worst 9; max picks 20+15 */
	CHECK(share_split(j, 2, 35, SHARE_MAX, pick) == 0 && pick[0] == 1 &&
		      pick[1] == 1,
	      "max: the least worst overhead");
	/* 40 bytes: sum: (30,0)+(10,5) total 5, worst 5; (20,4)+(15,3) total 7
	 * worst 4; max: worst 4 (20+15, total 7; 30+10 has worst 5) */
	CHECK(share_split(j, 2, 40, SHARE_SUM, pick) == 0 && pick[0] == 2 &&
		      pick[1] == 0,
	      "sum: the least total");
	CHECK(share_split(j, 2, 40, SHARE_MAX, pick) == 0 && pick[0] == 1 &&
		      pick[1] == 1,
	      "max: the least worst even at a larger total");
	CHECK(share_split(j, 2, 70, SHARE_MAX, pick) == 0 && pick[0] == 2 &&
		      pick[1] == 2,
	      "room for both full pools: no overhead");
	CHECK(share_split(j, 2, 19, SHARE_MAX, pick) == SHARE_ENOFIT,
	      "less than the least pools: no split");
}

static struct trace *zoo(const char *model, unsigned batch)
{
	struct synth_opts o = { 0 };
	o.model = model;
	o.batch = batch;
	o.device = "h100";
	struct trace *t;
	char err[512];
	if (synth_build(&o, &t, err, sizeof(err))) {
		printf("# %s\n", err);
		return NULL;
	}
	return t;
}

static void test_zoo_mix(const char *const *models, const unsigned *batch,
			 size_t n, const char *link)
{
	struct trace *t[4];
	struct solver_problem p[4];
	struct share_job j[4];
	struct link_model l;
	char err[512], what[256];
	link_parse(link, NULL, &l, err, sizeof(err));
	uint64_t need = 0;
	int ok = 1;
	for (size_t i = 0; i < n; i++) {
		t[i] = zoo(models[i], batch[i]);
		ok = ok && t[i] && load(t[i], &p[i], &j[i]) == 0 &&
		     share_job_init(&j[i], &l, 10, err, sizeof(err)) == 0;
		if (!ok)
			break;
		need += j[i].lb;
	}
	snprintf(what, sizeof(what), "%s+%s%s%s on %s: the frontiers", models[0],
		 models[1], n > 2 ? "+" : "", n > 2 ? models[2] : "", link);
	CHECK(ok, what);
	if (!ok)
		return;
	uint64_t avail = need / 10 * 7, prop[4];
	double poh[4], pworst = 0;
	share_proportional(j, n, avail, prop);
	for (size_t i = 0; i < n; i++) {
		share_job_add(&j[i], prop[i], &poh[i], err, sizeof(err));
		pworst = fmax(pworst, poh[i]);
	}
	size_t pick[4], spick[4];
	int rc = share_split(j, n, avail, SHARE_MAX, pick);
	snprintf(what, sizeof(what), "  ... in 70%% of their need: %s",
		 rc ? "no split (allowed only when the proportional one fails too)"
		    : "a split");
	CHECK(rc == 0 || isinf(pworst), what);
	if (rc == 0) {
		uint64_t sum = 0;
		double worst = 0, total = 0, stotal = 0;
		int verifies = 1;
		for (size_t i = 0; i < n; i++) {
			const struct share_point *q = &j[i].pts[pick[i]];
			sum += q->pool;
			worst = fmax(worst, q->overhead);
			total += q->overhead;
			verifies &= planfile_verify(&q->plan, t[i], err, sizeof(err)) == 0 &&
				    q->pool <= q->budget;
		}
		CHECK(sum <= avail, "  ... the pools fit");
		CHECK(verifies, "  ... every plan verifies within its budget");
		snprintf(what, sizeof(what), "  ... worst overhead %.2f%% <= the proportional split's %.2f%%",
			 worst, pworst);
		CHECK(worst <= pworst + 1e-9, what);
		CHECK(share_split(j, n, avail, SHARE_SUM, spick) == 0, "  ... the sum objective fits");
		for (size_t i = 0; i < n; i++)
			stotal += j[i].pts[spick[i]].overhead;
		snprintf(what, sizeof(what), "  ... its total %.2f%% <= the max objective's %.2f%%",
			 stotal, total);
		CHECK(stotal <= total + 1e-9, what);
	}
	for (size_t i = 0; i < n; i++) {
		share_job_free(&j[i]);
		solver_problem_free(&p[i]);
		trace_free(t[i]);
	}
}

int main(void)
{
	test_split_exact();
	test_split_no_needless_swaps();
	test_hand();
	static const char *const m1[] = { "alexnet", "vgg16", "resnet50" };
	static const unsigned b1[] = { 32, 4, 4 };
	test_zoo_mix(m1, b1, 3, "pcie5");
	static const char *const m2[] = { "bert-base", "gpt2", "vgg16" };
	static const unsigned b2[] = { 2, 1, 4 };
	test_zoo_mix(m2, b2, 3, "pcie4");
	return tap_done();
}
