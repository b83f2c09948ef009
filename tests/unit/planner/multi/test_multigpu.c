/* SPDX-License-Identifier: MIT */
/*
 * test_multigpu.c - multigpu.h: the joint simulation of one GPU is
 * sim_run()'s, N identical plans on a link shared by N contend (slower
 * than one alone, never faster), and the joint planner's plans verify,
 * carry their device and are never worse than lock step, on zoo traces.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "link.h"
#include "multigpu.h"
#include "planfile.h"
#include "replay.h"
#include "simulate.h"
#include "solver.h"
#include "swap.h"
#include "synth.h"
#include "tap.h"
#include "trace.h"

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

static void test_zoo(const char *model, unsigned batch, const char *link,
		     unsigned pct, int replay)
{
	char err[512], what[256];
	struct trace *t = zoo(model, batch);
	struct solver_problem p;
	struct link_model l;
	if (!t || solver_problem_from_trace(t, &p, err, sizeof(err)) ||
	    link_parse(link, NULL, &l, err, sizeof(err))) {
		CHECK(0, "a zoo trace and its problem");
		return;
	}
	solver_problem_drop_holes(&p);
	uint64_t align = solver_trace_align(t, 1);
	solver_problem_align(&p, align, err, sizeof(err));
	uint64_t budget = solver_lower_bound(&p) / 100 * pct;
	struct mp_plan plan;
	struct sim_result sim;
	struct swap_outcome oc;
	struct link_model one = l;
	one.gpus = 1;
	if (budget_plan(t, &p, &one, "memplan", budget, "best-fit", align, &plan,
		        &sim, &oc, err, sizeof(err))) {
		snprintf(what, sizeof(what), "%s b%u %u%%: a plan (%.160s)", model, batch, pct, err);
		CHECK(0, what);
		goto out;
	}
	struct mgpu_gpu g[8];
	const struct mp_plan *ps[8];
	for (int i = 0; i < 8; i++)
		ps[i] = &plan;
	int rc = mgpu_simulate(t, ps, 1, &l, g, err, sizeof(err));
	snprintf(what, sizeof(what), "%s b%u %u%% on %s: one GPU jointly = sim_run (%.4f%% vs %.4f%%)",
		 model, batch, pct, link, rc ? -1.0 : g[0].overhead, sim_overhead(&sim));
	CHECK(rc == 0 && fabs(g[0].iter_ns - sim.iter_ns) <= 1e-6 * sim.iter_ns + 1 &&
		      fabs(g[0].stall_ns - sim.stall_ns) <= 1e-6 * sim.iter_ns + 1 &&
		      g[0].base_ns == sim.base_ns,
	      what);
	double prev = g[0].iter_ns;
	for (unsigned n = 2; n <= 8; n *= 2) {
		rc = mgpu_simulate(t, ps, n, &l, g, err, sizeof(err));
		int same = 1;
		for (unsigned i = 1; i < n; i++)
			same &= g[i].iter_ns == g[0].iter_ns;
		snprintf(what, sizeof(what), "  ... %u identical plans: each %.2f%%, no faster than %u",
			 n, rc ? -1.0 : g[0].overhead, n / 2);
		CHECK(rc == 0 && same && g[0].iter_ns >= prev - 1e-6 * prev, what);
		prev = g[0].iter_ns;
	}
	sim_free(&sim);
	mp_plan_free(&plan);

	struct link_model l4 = l;
	l4.gpus = 4;
	struct mgpu_result r;
	rc = mgpu_plan(t, &p, &l4, budget, align, &r, err, sizeof(err));
	snprintf(what, sizeof(what), "  ... 4 GPUs planned jointly: worst %.2f%% <= lock step %.2f%%",
		 rc ? -1.0 : r.worst, rc ? -1.0 : r.lockstep);
	CHECK(rc == 0 && r.worst <= r.lockstep + 1e-9, what);
	if (rc == 0) {
		int ok = 1;
		for (unsigned i = 0; i < 4; i++) {
			ok &= planfile_verify(&r.plans[i], t, err, sizeof(err)) == 0 &&
			      r.plans[i].device == (int32_t)i &&
			      r.plans[i].pool_size <= budget;
			ps[i] = &r.plans[i];
		}
		CHECK(ok, "  ... every plan verifies within the budget, on its device");
		rc = mgpu_simulate(t, ps, 4, &l4, g, err, sizeof(err));
		double w = 0;
		for (unsigned i = 0; i < 4; i++)
			w = fmax(w, g[i].overhead);
		CHECK(rc == 0 && fabs(w - r.worst) < 1e-9,
		      "  ... the written plans simulate to the worst reported");
		/* each plan's content through the runtime (the host backend
		 * has one device: cleared); on small traces, the host pool is
		 * real memory written and checked byte by byte */
		char path[64];
		if (!replay)
			goto freed;
		snprintf(path, sizeof(path), "/tmp/test_multigpu.%ld.plan", (long)getpid());
		int replays = 1;
		for (unsigned i = 0; i < 4; i++) {
			r.plans[i].device = -1;
			struct replay_opts o = { .backend = MP_BACKEND_HOST, .iterations = 2,
						 .max_reports = 1 };
			struct replay_result res;
			replays &= mp_plan_write_file(path, &r.plans[i], err, sizeof(err)) == 0 &&
				   replay_run(t, path, &o, &res, NULL, NULL, err, sizeof(err)) == 0 &&
				   res.problems == 0 && res.followed == 2;
		}
		unlink(path);
		CHECK(replays, "  ... every plan replays with no problem, followed to the end");
freed:
		mgpu_result_free(&r);
	}
out:
	solver_problem_free(&p);
	trace_free(t);
}

int main(void)
{
	test_zoo("resnet50", 8, "pcie5", 90, 0);
	test_zoo("vgg16", 8, "pcie4", 80, 0);
	test_zoo("bert-base", 4, "pcie5", 90, 0);
	test_zoo("alexnet", 4, "pcie4", 80, 1);
	return tap_done();
}
