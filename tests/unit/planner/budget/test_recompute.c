/* SPDX-License-Identifier: MIT */
/*
 * test_recompute.c - the recomputation model and strategies (recompute.h):
 * hand-made traces (a chain where recomputation is the only way under the
 * budget, a producer whose input is gone, a dropout re-run with its
 * generator's state restored, a layer only its segment's re-run fits),
 * the checkpoint baselines' plans on the zoo, the trace of
 * the recomputing program, and properties over the zoo at falling budgets
 * (every hybrid plan verifies against its program and fits the budget, and
 * is never predicted slower than swap-only or recompute-only).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "link.h"
#include "planfile.h"
#include "recompute.h"
#include "simulate.h"
#include "solver.h"
#include "swap.h"
#include "synth.h"
#include "tap.h"
#include "trace.h"

#define MB 1000000

struct hb {
	struct trace *t;
	int64_t now, seq;
};

static int64_t hb_buf(struct hb *h, uint64_t size, int persistent)
{
	struct trace_buffer b = { 0 };
	b.size = b.rounded = size;
	b.align = 1;
	b.fixed_offset = TRACE_NONE;
	b.stream = TRACE_NONE;
	b.role = persistent ? TRACE_ROLE_WEIGHT : TRACE_ROLE_ACTIVATION;
	return trace_add_buffer(h->t, &b);
}

/* the stream of the events hb_ev() adds */
static int64_t hb_stream = TRACE_NONE;

static void hb_ev(struct hb *h, uint8_t type, int64_t buf, const char *name,
		  int64_t dur)
{
	struct trace_event e = { 0 };
	e.type = type;
	e.buffer = buf;
	e.stream = hb_stream;
	e.seq = h->seq++;
	e.t_start = h->now;
	e.t_end = h->now + dur;
	e.name = name;
	h->now += dur;
	trace_add_event(h->t, &e);
}

static struct trace *hb_done(struct hb *h)
{
	char err[256];
	if (trace_finish(h->t, err, sizeof(err))) {
		printf("# %s\n", err);
		trace_free(h->t);
		return NULL;
	}
	return h->t;
}

/*
 * W (persistent) -> k1 (100 us) -> X (100 MB); a 100 MB temporary T for
 * 5 ms; k2 reads X.  Kind 0: as said.  Kind 1: k1 also reads Y, a 10 MB
 * buffer a host-to-device copy filled, freed right after k1 (the
 * producer's input is gone, and nothing can make it again).  Kind 2: k1 is
 * a dropout writing X and its mask M (1 MB).  Kind 3: as 1, but a kernel
 * k0 (10 us) filled Y: the re-run makes Y again first (a chain).  Kind 4:
 * as 0, every event on stream 0 but k2, which reads X on stream 1.
 */
static struct trace *chain(int kind)
{
	struct hb h = { trace_new(), 0, 0 };
	hb_stream = kind == 4 ? 0 : TRACE_NONE;
	int64_t w = hb_buf(&h, 4096, 1);
	int64_t x = hb_buf(&h, 100 * MB, 0), y = -1, m = -1;
	if (kind == 1 || kind == 3) {
		y = hb_buf(&h, 10 * MB, 0);
		hb_ev(&h, TRACE_EV_ALLOC, y, NULL, 0);
		hb_ev(&h, kind == 1 ? TRACE_EV_COPY : TRACE_EV_KERNEL, TRACE_NONE,
		      kind == 1 ? "h2d y" : "fill k0", 10000);
		trace_add_access(h.t, y, TRACE_ACCESS_WRITE);
	}
	hb_ev(&h, TRACE_EV_ALLOC, x, NULL, 0);
	if (kind == 2) {
		m = hb_buf(&h, 1 * MB, 0);
		hb_ev(&h, TRACE_EV_ALLOC, m, NULL, 0);
	}
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE,
	      kind == 2 ? "native_dropout drop" : "mul k1", 100000);
	trace_add_access(h.t, w, TRACE_ACCESS_READ);
	trace_add_access(h.t, x, TRACE_ACCESS_WRITE);
	if (y >= 0)
		trace_add_access(h.t, y, TRACE_ACCESS_READ);
	if (m >= 0)
		trace_add_access(h.t, m, TRACE_ACCESS_WRITE);
	if (y >= 0)
		hb_ev(&h, TRACE_EV_FREE, y, NULL, 0);
	int64_t tt = hb_buf(&h, 100 * MB, 0);
	hb_ev(&h, TRACE_EV_ALLOC, tt, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "big k3", 5000000);
	trace_add_access(h.t, tt, TRACE_ACCESS_WRITE);
	hb_ev(&h, TRACE_EV_FREE, tt, NULL, 0);
	if (kind == 4)
		hb_stream = 1;
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "use k2", 1000000);
	trace_add_access(h.t, x, TRACE_ACCESS_READ);
	if (kind == 4)
		hb_stream = 0;
	if (m >= 0)
		trace_add_access(h.t, m, TRACE_ACCESS_READ);
	hb_ev(&h, TRACE_EV_FREE, x, NULL, 0);
	if (m >= 0)
		hb_ev(&h, TRACE_EV_FREE, m, NULL, 0);
	return hb_done(&h);
}

static void test_random_names(void)
{
	CHECK(recomp_kernel_random("native_dropout bert.dropout"), "dropout is random");
	CHECK(recomp_kernel_random("curand_normal x"), "curand is random");
	CHECK(recomp_kernel_random("bernoulli_ m"), "bernoulli is random");
	CHECK(!recomp_kernel_random("batch_norm_fwd bn1"), "a batch norm is not");
	CHECK(!recomp_kernel_random(NULL), "no name is not");
	CHECK(!recomp_kernel_random("native_dropout_bwd d"), "a dropout's backward is not (it is given the mask)");
}

/* The chain: only recomputation fits 100 MB; its program and plan. */
static void test_chain(void)
{
	struct trace *t = chain(0);
	CHECK(t != NULL, "the chain trace is valid");
	if (!t)
		return;
	char err[768];
	struct solver_problem p;
	CHECK(solver_problem_from_trace(t, &p, err, sizeof(err)) == 0, "its problem");
	CHECK_EQ_U64(solver_lower_bound(&p), 200 * MB, "lower bound 200 MB");
	struct recomp_model m;
	CHECK(recomp_model_init(&m, t, &p, err, sizeof(err)) == 0, "the model");
	CHECK(m.b[1].why == RECOMP_OK, "X is recomputable");
	CHECK(m.b[1].writer[0] == 1 && m.b[1].nwriters == 1, "  ... its producer is k1");
	CHECK(m.b[1].cost_ns == 100000, "  ... at 100 us");
	CHECK(m.b[1].last_fwd == 1 && m.b[1].next_use == 5, "  ... freed after k1, re-run before k2");
	CHECK(m.b[2].why == RECOMP_NO_GAP, "T has no later use");
	CHECK(m.b[0].why == RECOMP_NOT_PLANNED, "W is persistent");
	{
		/* issue 30: X read on a second stream is not recomputed (nor
		 * swapped): its free would be ordered after one stream */
		struct trace *t4 = chain(4);
		struct solver_problem p4;
		struct recomp_model m4;
		CHECK(t4 && solver_problem_from_trace(t4, &p4, err, sizeof(err)) == 0 &&
			      recomp_model_init(&m4, t4, &p4, err, sizeof(err)) == 0,
		      "the chain with X read on a second stream: its model");
		if (t4) {
			CHECK(m4.b[1].why == RECOMP_STREAMS,
			      "  ... X is not recomputable: used on several streams");
			CHECK(strcmp(recomp_why_name(RECOMP_STREAMS), "used on several streams") == 0,
			      "  ... which advise names");
			recomp_model_free(&m4);
			solver_problem_free(&p4);
			trace_free(t4);
		}
	}

	uint8_t chosen[3] = { 0 };
	CHECK_EQ_U64(recomp_choose(&m, 100 * MB, chosen), 100 * MB,
		     "choosing X brings the peak to 100 MB");
	CHECK(chosen[1] && !chosen[2], "  ... X chosen");
	struct trace *t2;
	int64_t *orig;
	CHECK(recomp_transform(&m, chosen, &t2, &orig, err, sizeof(err)) == 0,
	      "the recomputing program's trace finishes");
	if (t2) {
		CHECK_EQ_U64(t2->nbuffers, 4, "  ... one buffer more: X made again");
		CHECK_EQ_U64(t2->nevents, t->nevents + 3, "  ... free, alloc, re-run");
		CHECK(orig[3] == 1, "  ... standing for X");
		CHECK(t2->events[2].type == TRACE_EV_FREE && t2->events[2].buffer == 1,
		      "  ... X freed right after k1");
		CHECK(t2->events[6].type == TRACE_EV_ALLOC && t2->events[6].buffer == 3 &&
			      t2->events[7].type == TRACE_EV_KERNEL &&
			      t2->events[7].name && strcmp(t2->events[7].name, "mul k1") == 0,
		      "  ... made again and k1 re-run before k2");
		CHECK(t2->events[8].t_start == t->events[5].t_start + 100000,
		      "  ... k2 pushed back by the re-run");
		CHECK(trace_peak(t2, TRACE_TRANSIENT, NULL) == 100 * MB,
		      "  ... its peak is 100 MB");
		CHECK(trace_get_meta(t2, "recompute.base_ns") &&
			      strcmp(trace_get_meta(t2, "recompute.base_ns"), "6100000") == 0,
		      "  ... the original iteration in meta");
	}
	trace_free(t2);
	free(orig);

	struct link_model l;
	link_parse("pcie5", NULL, &l, err, sizeof(err));
	struct swap_ctx c;
	CHECK(swap_ctx_init(&c, t, &p, &l, err, sizeof(err)) == 0, "context");
	struct mp_plan plan;
	struct sim_result sim;
	struct swap_outcome oc;
	CHECK(swap_plan_ctx(&c, "memplan", 100 * MB, "best-fit", 1, &plan, &sim,
			    &oc, err, sizeof(err)) == SWAP_ENOFIT,
	      "swap-only cannot fit 100 MB (no request between k1 and T)");
	for (int s = 0; s < 2; s++) {
		const char *name = s ? "hybrid" : "recompute";
		struct recomp_advice a;
		int rc = recomp_advise(&c, name, 100 * MB, "best-fit", 1, &a, err,
				       sizeof(err));
		char what[128];
		snprintf(what, sizeof(what), "%s fits 100 MB", name);
		CHECK(rc == 0, what);
		if (rc) {
			printf("# %s\n", err);
			continue;
		}
		CHECK_EQ_U64(a.plan.pool_size, 100 * MB, "  ... pool 100 MB");
		CHECK(a.action[1] == RECOMP_RECOMPUTE && a.action[2] == RECOMP_KEEP,
		      "  ... recomputing X, keeping T");
		CHECK(planfile_verify(&a.plan, a.t2, err, sizeof(err)) == 0,
		      "  ... its plan verifies against the program's trace");
		CHECK(planfile_verify(&a.plan, t, err, sizeof(err)) != 0,
		      "  ... and not against the original (another request order)");
		CHECK(fabs(sim_overhead(&a.sim) - 100.0 * 100000 / 6100000) < 1e-6,
		      "  ... overhead: the re-run, 100 us of 6.1 ms");
		CHECK(a.sim.base_ns == 6100000, "  ... measured against the original iteration");
		recomp_advice_free(&a);
	}
	CHECK(budget_plan_ctx(&c, "hybrid", 100 * MB, "best-fit", 1, &plan,
			      &sim, &oc, err, sizeof(err)) == 0 &&
		      plan.pool_size <= 100 * MB,
	      "budget_plan_ctx() runs hybrid as a strategy");
	{
		/* composition runs one way: the swap planner knows only the
		 * swap choosers, budget.c all five */
		struct mp_plan p2;
		struct sim_result s2;
		struct swap_outcome o2;
		CHECK(swap_plan_ctx(&c, "hybrid", 100 * MB, "best-fit", 1, &p2,
				    &s2, &o2, err, sizeof(err)) == SOLVER_ENOTFOUND,
		      "swap_plan_ctx() plans swaps only (hybrid is budget.c's)");
		CHECK(!swap_strategy_find("recompute") &&
			      budget_strategy_find("recompute") &&
			      budget_strategy_find("hybrid") &&
			      budget_strategy_find("memplan") ==
				      swap_strategy_find("memplan") &&
			      !budget_strategy_find("nope"),
		      "budget_strategy_find(): the three choosers and the two that recompute");
		CHECK(budget_plan_ctx(&c, "nope", 100 * MB, "best-fit", 1, &p2,
				      &s2, &o2, err, sizeof(err)) ==
				      SOLVER_ENOTFOUND &&
			      strstr(err, "recompute, hybrid"),
		      "budget_plan_ctx(): an unknown name lists all five");
	}
	mp_plan_free(&plan);
	sim_free(&sim);
	swap_ctx_free(&c);
	recomp_model_free(&m);
	solver_problem_free(&p);
	trace_free(t);
}

static void test_not_recomputable(void)
{
	char err[768];
	struct trace *t = chain(1);
	CHECK(t != NULL, "the chain with a freed input is valid");
	struct solver_problem p;
	struct recomp_model m;
	if (t && solver_problem_from_trace(t, &p, err, sizeof(err)) == 0) {
		CHECK(recomp_model_init(&m, t, &p, err, sizeof(err)) == 0, "its model");
		CHECK(m.b[1].why == RECOMP_INPUT_FREED, "X: its producer's input is gone");
		CHECK(m.b[1].blocker == 2, "  ... Y, named");
		struct link_model l;
		link_parse("pcie5", NULL, &l, err, sizeof(err));
		struct swap_ctx c;
		swap_ctx_init(&c, t, &p, &l, err, sizeof(err));
		struct recomp_advice a;
		CHECK(recomp_advise(&c, "recompute", 100 * MB, "best-fit", 1, &a,
				    err, sizeof(err)) == SWAP_ENOFIT,
		      "  ... so recomputation cannot fit 100 MB");
		CHECK_STR_HAS(err, "recompute", "  ... saying so");
		swap_ctx_free(&c);
		recomp_model_free(&m);
		solver_problem_free(&p);
	}
	trace_free(t);

	t = chain(3);
	CHECK(t != NULL, "the chain whose freed input a kernel made is valid");
	if (t && solver_problem_from_trace(t, &p, err, sizeof(err)) == 0) {
		CHECK(recomp_model_init(&m, t, &p, err, sizeof(err)) == 0, "its model");
		CHECK(m.b[1].why == RECOMP_OK, "X is recomputable through Y");
		CHECK(m.b[1].nrerun == 2 && m.b[1].rerun[0] == 1 && m.b[1].rerun[1] == 3,
		      "  ... re-running k0, then k1");
		CHECK(m.b[1].cost_ns == 110000, "  ... 10 + 100 us");
		CHECK_EQ_U64(m.b[1].temp_bytes, 10 * MB, "  ... Y a temporary of the re-run");
		uint8_t chosen[4] = { 0, 1, 0, 0 };
		struct trace *t2 = NULL;
		CHECK(recomp_transform(&m, chosen, &t2, NULL, err, sizeof(err)) == 0,
		      "  ... its program's trace finishes");
		if (t2) {
			CHECK(trace_peak(t2, TRACE_TRANSIENT, NULL) == 110 * MB,
			      "  ... with Y and X made again at once: 110 MB at the re-run");
			size_t nk = 0;
			for (size_t e = 0; e < t2->nevents; e++)
				nk += t2->events[e].type == TRACE_EV_KERNEL;
			CHECK_EQ_U64(nk, 6, "  ... two kernels more");
		}
		trace_free(t2);
		recomp_model_free(&m);
		solver_problem_free(&p);
	}
	trace_free(t);

	t = chain(2);
	CHECK(t != NULL, "the dropout trace is valid");
	if (t && solver_problem_from_trace(t, &p, err, sizeof(err)) == 0) {
		CHECK(recomp_model_init(&m, t, &p, err, sizeof(err)) == 0, "its model");
		CHECK(m.b[1].why == RECOMP_OK && m.b[1].rng,
		      "the dropout output is recomputable, restoring the generator's state");
		CHECK(m.b[2].why == RECOMP_OK && m.b[2].rng, "the dropout mask too");
		struct link_model l;
		link_parse("pcie5", NULL, &l, err, sizeof(err));
		struct swap_ctx c;
		swap_ctx_init(&c, t, &p, &l, err, sizeof(err));
		struct recomp_advice a;
		int rc = recomp_advise(&c, "recompute", 101 * MB, "best-fit", 1, &a,
				       err, sizeof(err));
		CHECK(rc == 0, "recomputing the dropout fits 101 MB (the T peak)");
		if (rc == 0) {
			CHECK(a.action[1] == RECOMP_RECOMPUTE,
			      "  ... recomputing its output");
			int32_t g = a.groups.group[1];
			CHECK(g >= 0 && a.groups.rng[g],
			      "  ... its re-run restores the random generator's state");
			size_t nk = 0;
			for (size_t e = 0; e < a.t2->nevents; e++)
				nk += a.t2->events[e].type == TRACE_EV_KERNEL &&
				      a.t2->events[e].name &&
				      strcmp(a.t2->events[e].name, "native_dropout drop") == 0;
			CHECK_EQ_U64(nk, 2, "  ... the dropout kernel runs twice");
			CHECK(planfile_verify(&a.plan, a.t2, err, sizeof(err)) == 0,
			      "  ... its plan verifies against the program's trace");
		}
		recomp_advice_free(&a);
		swap_ctx_free(&c);
		recomp_model_free(&m);
		solver_problem_free(&p);
	}
	trace_free(t);
}

/*
 * A dropout's output and mask made again by one re-run (issue 32): W ->
 * "native_dropout drop" (100 us) writes X (100 MB) and its mask M (50 MB);
 * a temporary T (200 MB) for 5 ms; k2 reads X; "native_dropout_bwd" reads
 * M (GPT-2's attention: the output read by the context's backward, the
 * mask by the dropout's, just after).  The peak is 350 MB at T; 200 MB
 * needs both X and M away there.  Alone they block each other (X's
 * re-run writes M, which must then be present), so the single buffers'
 * choice stopped at 250 MB with X, and only the segments found the pair;
 * as one candidate, both from one re-run of the dropout before k2, they
 * are the cheapest (0.67 us/MB, X alone 1), and 150 MB at the re-run is
 * under the budget.
 */
static struct trace *dropout_pair(void)
{
	struct hb h = { trace_new(), 0, 0 };
	hb_stream = TRACE_NONE;
	int64_t w = hb_buf(&h, 4096, 1);
	int64_t x = hb_buf(&h, 100 * MB, 0), mk = hb_buf(&h, 50 * MB, 0);
	hb_ev(&h, TRACE_EV_ALLOC, x, NULL, 0);
	hb_ev(&h, TRACE_EV_ALLOC, mk, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "native_dropout drop", 100000);
	trace_add_access(h.t, w, TRACE_ACCESS_READ);
	trace_add_access(h.t, x, TRACE_ACCESS_WRITE);
	trace_add_access(h.t, mk, TRACE_ACCESS_WRITE);
	int64_t tt = hb_buf(&h, 200 * MB, 0);
	hb_ev(&h, TRACE_EV_ALLOC, tt, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "big k3", 5000000);
	trace_add_access(h.t, tt, TRACE_ACCESS_WRITE);
	hb_ev(&h, TRACE_EV_FREE, tt, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "use k2", 1000000);
	trace_add_access(h.t, x, TRACE_ACCESS_READ);
	hb_ev(&h, TRACE_EV_FREE, x, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "native_dropout_bwd drop", 100000);
	trace_add_access(h.t, mk, TRACE_ACCESS_READ);
	hb_ev(&h, TRACE_EV_FREE, mk, NULL, 0);
	return hb_done(&h);
}

static void test_dropout_pair(void)
{
	char err[768];
	struct trace *t = dropout_pair();
	struct solver_problem p;
	struct recomp_model m;
	CHECK(t != NULL, "the dropout pair's trace is valid");
	if (!t || solver_problem_from_trace(t, &p, err, sizeof(err)) != 0) {
		trace_free(t);
		return;
	}
	CHECK(recomp_model_init(&m, t, &p, err, sizeof(err)) == 0, "its model");
	CHECK(m.b[1].why == RECOMP_OK && m.b[2].why == RECOMP_OK,
	      "output and mask recomputable, each alone");
	CHECK(m.b[1].sib == 1 && m.b[2].sib == 1,
	      "  ... and as one re-run: the mask's sib is the output");
	uint8_t chosen[4] = { 0 };
	CHECK(recomp_choose(&m, 200 * MB, chosen) <= 200 * MB,
	      "choosing for 200 MB reaches it");
	CHECK(chosen[1] == 1 && chosen[2] == 2,
	      "  ... the output re-run, the mask made by the same re-run");
	struct link_model l;
	link_parse("pcie5", NULL, &l, err, sizeof(err));
	struct swap_ctx c;
	swap_ctx_init(&c, t, &p, &l, err, sizeof(err));
	struct recomp_advice a;
	int rc = recomp_advise(&c, "recompute", 200 * MB, "best-fit", 1, &a,
			       err, sizeof(err));
	CHECK(rc == 0, "recompute fits 200 MB");
	if (rc == 0) {
		size_t nk = 0;
		for (size_t e = 0; e < a.t2->nevents; e++)
			nk += a.t2->events[e].type == TRACE_EV_KERNEL &&
			      a.t2->events[e].name &&
			      strcmp(a.t2->events[e].name, "native_dropout drop") == 0;
		CHECK_EQ_U64(nk, 2, "  ... the dropout runs twice, not three times");
		CHECK(a.groups.group[1] >= 0 &&
			      a.groups.group[1] == a.groups.group[2],
		      "  ... output and mask in one group");
		CHECK(fabs(a.sim.iter_ns - m.base_ns - 100000) < 1,
		      "  ... 100 us slower: one re-run");
		CHECK(planfile_verify(&a.plan, a.t2, err, sizeof(err)) == 0,
		      "  ... its plan verifies against the program's trace");
	}
	recomp_advice_free(&a);
	swap_ctx_free(&c);
	recomp_model_free(&m);
	solver_problem_free(&p);
	trace_free(t);
}

/*
 * A layer of two kernels between checkpoints (a residual block): k0 makes
 * X (10 MB, kept for the backward); k1 reads X, makes A; k2 reads A, makes
 * B; k3 reads B and X, makes Y (10 MB, the layer's output); big reads Y
 * and makes T (200 MB) for 5 ms; the backward reads B and X (bwd2), then A
 * (bwd1), then X (bwd0).  At T, 420 MB; within 250 MB both A and B must
 * be away, but B's re-run needs A, which is away then: one buffer at a
 * time cannot (the old model, two choices never meet); the layer's
 * segment, k1 and k2 re-run once from the checkpoint X, can.
 */
static struct trace *layer_chain(void)
{
	struct hb h = { trace_new(), 0, 0 };
	int64_t w = hb_buf(&h, 4096, 1);
	int64_t x = hb_buf(&h, 10 * MB, 0), a = hb_buf(&h, 100 * MB, 0),
		b = hb_buf(&h, 100 * MB, 0), y = hb_buf(&h, 10 * MB, 0),
		tt = hb_buf(&h, 200 * MB, 0);
	hb_ev(&h, TRACE_EV_ALLOC, x, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "embed k0", 10000);
	trace_add_access(h.t, w, TRACE_ACCESS_READ);
	trace_add_access(h.t, x, TRACE_ACCESS_WRITE);
	hb_ev(&h, TRACE_EV_ALLOC, a, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "mul k1", 100000);
	trace_add_access(h.t, x, TRACE_ACCESS_READ);
	trace_add_access(h.t, a, TRACE_ACCESS_WRITE);
	hb_ev(&h, TRACE_EV_ALLOC, b, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "relu k2", 100000);
	trace_add_access(h.t, a, TRACE_ACCESS_READ);
	trace_add_access(h.t, b, TRACE_ACCESS_WRITE);
	hb_ev(&h, TRACE_EV_ALLOC, y, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "add k3", 10000);
	trace_add_access(h.t, b, TRACE_ACCESS_READ);
	trace_add_access(h.t, x, TRACE_ACCESS_READ);
	trace_add_access(h.t, y, TRACE_ACCESS_WRITE);
	hb_ev(&h, TRACE_EV_ALLOC, tt, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "big k4", 5000000);
	trace_add_access(h.t, y, TRACE_ACCESS_READ);
	trace_add_access(h.t, tt, TRACE_ACCESS_WRITE);
	hb_ev(&h, TRACE_EV_FREE, y, NULL, 0);
	hb_ev(&h, TRACE_EV_FREE, tt, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "relu_bwd bwd2", 1000000);
	trace_add_access(h.t, b, TRACE_ACCESS_READ);
	trace_add_access(h.t, x, TRACE_ACCESS_READ);
	hb_ev(&h, TRACE_EV_FREE, b, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "mul_bwd bwd1", 1000000);
	trace_add_access(h.t, a, TRACE_ACCESS_READ);
	hb_ev(&h, TRACE_EV_FREE, a, NULL, 0);
	hb_ev(&h, TRACE_EV_KERNEL, TRACE_NONE, "embed_bwd bwd0", 1000000);
	trace_add_access(h.t, x, TRACE_ACCESS_READ);
	hb_ev(&h, TRACE_EV_FREE, x, NULL, 0);
	return hb_done(&h);
}

static void test_segment(void)
{
	char err[768];
	struct trace *t = layer_chain();
	CHECK(t != NULL, "the layer chain is valid");
	if (!t)
		return;
	struct solver_problem p;
	struct recomp_model m;
	CHECK(solver_problem_from_trace(t, &p, err, sizeof(err)) == 0, "its problem");
	CHECK_EQ_U64(solver_lower_bound(&p), 420 * MB, "  ... lower bound 420 MB");
	CHECK(recomp_model_init(&m, t, &p, err, sizeof(err)) == 0, "its model");
	struct recomp_units u;
	CHECK(recomp_units_find(&m, &u, err, sizeof(err)) == 0, "its layers");
	CHECK(u.n == 3 && u.end[0] == 1 && u.end[1] == 7 && u.end[2] == 9,
	      "  ... [k0] [k1 k2 k3] [big]: cut where X or Y alone crosses");
	recomp_units_free(&u);
	uint8_t chosen[6] = { 0 };
	CHECK(recomp_choose(&m, 250 * MB, chosen) > 250 * MB,
	      "one buffer at a time cannot reach 250 MB");
	struct link_model l;
	link_parse("pcie5", NULL, &l, err, sizeof(err));
	struct swap_ctx c;
	CHECK(swap_ctx_init(&c, t, &p, &l, err, sizeof(err)) == 0, "context");
	struct recomp_advice a;
	int rc = recomp_advise(&c, "recompute", 250 * MB, "best-fit", 1, &a, err,
			       sizeof(err));
	CHECK(rc == 0, "recompute fits 250 MB with the layer's segment");
	if (rc == 0) {
		CHECK(a.plan.pool_size <= 250 * MB, "  ... within the budget");
		CHECK(a.action[2] == RECOMP_RECOMPUTE && a.action[3] == RECOMP_RECOMPUTE &&
			      a.groups.group[2] == a.groups.group[3],
		      "  ... A and B made again by one re-run");
		int32_t g = a.groups.group[2];
		CHECK(g >= 0 && a.groups.nkernels[g] == 2 &&
			      a.groups.cost_ns[g] == 200000 && a.groups.ckpt[g] == 1,
		      "  ... k1 and k2 from the checkpoint X, 200 us charged once");
		size_t nk = 0;
		for (size_t e = 0; e < a.t2->nevents; e++)
			nk += a.t2->events[e].type == TRACE_EV_KERNEL;
		CHECK_EQ_U64(nk, 10, "  ... two kernels more in the program");
		CHECK(planfile_verify(&a.plan, a.t2, err, sizeof(err)) == 0,
		      "  ... its plan verifies against the program's trace");
		CHECK(fabs(sim_overhead(&a.sim) - 100.0 * 200000 / a.sim.base_ns) < 1e-6,
		      "  ... overhead: the one re-run");
	} else {
		printf("# %s\n", err);
	}
	recomp_advice_free(&a);
	swap_ctx_free(&c);
	recomp_model_free(&m);
	solver_problem_free(&p);
	trace_free(t);
}

/* The checkpoint baselines on the zoo: valid plans of their programs,
 * below the lower bound, and hybrid no slower at their pool. */
static void test_baselines(const char *model, unsigned batch)
{
	struct synth_opts o = { 0 };
	o.model = model;
	o.batch = batch;
	o.device = "h200";
	struct trace *t;
	char err[768], what[160];
	if (synth_build(&o, &t, err, sizeof(err))) {
		CHECK(0, err);
		return;
	}
	struct solver_problem p;
	struct link_model l;
	struct swap_ctx c;
	solver_problem_from_trace(t, &p, err, sizeof(err));
	solver_problem_drop_holes(&p);
	link_parse("pcie5", NULL, &l, err, sizeof(err));
	swap_ctx_init(&c, t, &p, &l, err, sizeof(err));
	uint64_t lb = solver_lower_bound(&p);
	static const char *const names[] = { "sqrt-n", "every-layer" };
	for (size_t s = 0; s < 2; s++) {
		struct recomp_advice a;
		int rc = recomp_advise(&c, names[s], lb, "best-fit", 1, &a, err,
				       sizeof(err));
		snprintf(what, sizeof(what), "%s b%u: %s plans", model, batch, names[s]);
		CHECK(rc == 0, what);
		if (rc) {
			printf("# %s\n", err);
			continue;
		}
		CHECK(a.nrecompute > 0 && a.nswap == 0, "  ... recomputing, no swaps");
		CHECK(a.plan.pool_size < lb, "  ... below the lower bound");
		CHECK(planfile_verify(&a.plan, a.t2, err, sizeof(err)) == 0,
		      "  ... its plan verifies against its program");
		CHECK(sim_overhead(&a.sim) > 0, "  ... at a predicted overhead");
		struct mp_plan hp;
		struct sim_result hs;
		struct swap_outcome ho;
		rc = budget_plan_ctx(&c, "hybrid", a.plan.pool_size, "best-fit", 1,
				     &hp, &hs, &ho, err, sizeof(err));
		CHECK(rc == 0 && hp.pool_size <= a.plan.pool_size &&
			      hs.iter_ns <= a.sim.iter_ns + 1e-6,
		      "  ... hybrid at its pool no slower");
		if (rc == 0) {
			mp_plan_free(&hp);
			sim_free(&hs);
		}
		recomp_advice_free(&a);
	}
	swap_ctx_free(&c);
	solver_problem_free(&p);
	trace_free(t);
}

/* The zoo: in-place chains and dropout (its generator state restored) are recomputable. */
static void test_zoo_model(void)
{
	struct synth_opts o = { 0 };
	o.model = "bert-base";
	o.batch = 2;
	o.device = "h200";
	struct trace *t;
	char err[768];
	if (synth_build(&o, &t, err, sizeof(err))) {
		CHECK(0, err);
		return;
	}
	struct solver_problem p;
	struct recomp_model m;
	solver_problem_from_trace(t, &p, err, sizeof(err));
	CHECK(recomp_model_init(&m, t, &p, err, sizeof(err)) == 0, "bert-base's model");
	size_t drop = 0, good = 0, ok = 0;
	for (size_t i = 0; i < m.n; i++) {
		const char *lab = t->buffers[i].label;
		if (m.b[i].item < 0 || !lab || !strstr(lab, "dropout"))
			continue;
		if (strstr(lab, "grad"))
			continue;
		drop++;
		good += m.b[i].why == RECOMP_OK && m.b[i].rng;
	}
	for (size_t i = 0; i < m.n; i++)
		ok += m.b[i].why == RECOMP_OK;
	CHECK(drop > 0 && good > 0,
	      "dropout outputs are recomputable, restoring the generator's state");
	CHECK(ok > 0 && ok == m.ncand, "some buffers are");
	recomp_model_free(&m);
	solver_problem_free(&p);
	trace_free(t);
}

/* Every budget from 95% down in 10% steps until nothing fits. */
static void test_zoo(const char *model, unsigned batch, const char *link)
{
	struct synth_opts o = { 0 };
	o.model = model;
	o.batch = batch;
	o.device = "h200";
	struct trace *t;
	char err[768];
	if (synth_build(&o, &t, err, sizeof(err))) {
		CHECK(0, err);
		return;
	}
	struct solver_problem p;
	struct link_model l;
	struct swap_ctx c;
	uint64_t align = solver_trace_align(t, 1);
	solver_problem_from_trace(t, &p, err, sizeof(err));
	solver_problem_drop_holes(&p);
	solver_problem_align(&p, align, err, sizeof(err));
	link_parse(link, NULL, &l, err, sizeof(err));
	if (swap_ctx_init(&c, t, &p, &l, err, sizeof(err))) {
		CHECK(0, err);
		return;
	}
	uint64_t lb = solver_lower_bound(&p);
	size_t budgets = 0, fits = 0, verified = 0, within = 0, dominated = 0,
	       compared = 0;
	for (int pct = 95; pct > 0; pct -= 10) {
		uint64_t budget = lb / 100 * (uint64_t)pct;
		double over[2] = { INFINITY, INFINITY };
		const char *names[2] = { "memplan", "recompute" };
		for (int s = 0; s < 2; s++) {
			struct mp_plan plan;
			struct sim_result sim;
			struct swap_outcome oc;
			if (budget_plan_ctx(&c, names[s], budget, "best-fit",
					    align, &plan, &sim, &oc, err,
					    sizeof(err)) == 0) {
				over[s] = sim_overhead(&sim);
				mp_plan_free(&plan);
				sim_free(&sim);
			}
		}
		struct recomp_advice a;
		int rc = recomp_advise(&c, "hybrid", budget, "best-fit", align, &a,
				       err, sizeof(err));
		budgets++;
		if (isfinite(over[0]) || isfinite(over[1]))
			compared++;
		if (rc) {
			if (!isfinite(over[0]) && !isfinite(over[1]))
				break;
			printf("# %s at %d%%: hybrid does not fit: %s\n", model, pct, err);
			continue;
		}
		fits++;
		verified += planfile_verify(&a.plan, a.t2, err, sizeof(err)) == 0;
		within += a.plan.pool_size <= budget;
		double best = fmin(over[0], over[1]);
		if (sim_overhead(&a.sim) <= best + 1e-9)
			dominated++;
		else
			printf("# %s %s at %d%%: hybrid %.4f%%, swap %.4f%%, recompute %.4f%%\n",
			       model, link, pct, sim_overhead(&a.sim), over[0], over[1]);
		recomp_advice_free(&a);
	}
	char what[160];
	snprintf(what, sizeof(what), "%s b%u %s: hybrid fits wherever swap-only or recompute-only does (%zu of %zu)",
		 model, batch, link, fits, compared);
	CHECK(fits == compared && fits > 0, what);
	CHECK(verified == fits, "  ... every hybrid plan verifies against its program");
	CHECK(within == fits, "  ... every pool within its budget");
	CHECK(dominated == fits, "  ... never predicted slower than the better of swap-only and recompute-only");
	(void)budgets;
	swap_ctx_free(&c);
	solver_problem_free(&p);
	trace_free(t);
}

/* hybrid skips a candidate's swap search only when the bound says it
 * cannot win: the advice is the one of running every search, and on a
 * trace where swapping over PCIe stalls (GPT-2) most searches are skipped. */
static void test_hybrid_prune(const char *model, unsigned batch,
			      const char *link)
{
	struct synth_opts o = { 0 };
	o.model = model;
	o.batch = batch;
	o.device = "h200";
	struct trace *t;
	char err[768];
	if (synth_build(&o, &t, err, sizeof(err))) {
		CHECK(0, err);
		return;
	}
	struct solver_problem p;
	struct link_model l;
	struct swap_ctx c;
	uint64_t align = solver_trace_align(t, 1);
	solver_problem_from_trace(t, &p, err, sizeof(err));
	solver_problem_drop_holes(&p);
	solver_problem_align(&p, align, err, sizeof(err));
	link_parse(link, NULL, &l, err, sizeof(err));
	if (swap_ctx_init(&c, t, &p, &l, err, sizeof(err))) {
		CHECK(0, err);
		return;
	}
	uint64_t lb = solver_lower_bound(&p);
	size_t same = 0, budgets = 0;
	unsigned long pruned = recomp_hybrid_pruned;
	unsigned long searched = recomp_hybrid_searches;
	for (int pct = 90; pct >= 50; pct -= 20) {
		uint64_t budget = lb / 100 * (uint64_t)pct;
		struct recomp_advice a[2];
		int rc[2];
		for (int k = 0; k < 2; k++) {
			recomp_hybrid_prune = !k;
			rc[k] = recomp_advise(&c, "hybrid", budget, "best-fit",
					      align, &a[k], err, sizeof(err));
		}
		recomp_hybrid_prune = 1;
		budgets++;
		if (rc[0] == rc[1] &&
		    (rc[0] || (a[0].plan.pool_size == a[1].plan.pool_size &&
			       a[0].sim.iter_ns == a[1].sim.iter_ns)))
			same++;
		else
			printf("# %s %s at %d%%: pruned %d %.4f%%, all %d %.4f%%\n",
			       model, link, pct, rc[0], sim_overhead(&a[0].sim),
			       rc[1], sim_overhead(&a[1].sim));
		recomp_advice_free(&a[0]);
		recomp_advice_free(&a[1]);
	}
	char what[160];
	snprintf(what, sizeof(what), "%s b%u %s: hybrid's advice is the same with the searches the bound skips (%zu of %zu budgets)",
		 model, batch, link, same, budgets);
	CHECK(same == budgets, what);
	/* searches run with pruning: the counters moved in the pruned runs
	 * and the unpruned ones alike, so compare the skipped with the run */
	snprintf(what, sizeof(what), "  ... %lu searches skipped, %lu run",
		 recomp_hybrid_pruned - pruned, recomp_hybrid_searches - searched);
	CHECK(recomp_hybrid_pruned > pruned, what);
	swap_ctx_free(&c);
	solver_problem_free(&p);
	trace_free(t);
}

int main(void)
{
	test_random_names();
	test_chain();
	test_not_recomputable();
	test_dropout_pair();
	test_zoo_model();
	test_segment();
	test_baselines("resnet50", 4);
	test_baselines("vgg16", 4);
	test_zoo("resnet50", 4, "pcie5");
	test_zoo("vgg16", 4, "pcie5");
	test_zoo("bert-base", 2, "gh200-c2c");
	test_zoo("gpt2", 1, "pcie5");
	test_hybrid_prune("gpt2", 1, "pcie5");
	test_hybrid_prune("resnet50", 4, "pcie5");
	return tap_done();
}
