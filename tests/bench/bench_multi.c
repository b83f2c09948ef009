/* SPDX-License-Identifier: MIT */
/*
 * bench_multi.c - several workloads on one device and several GPUs on one
 * link (issue 18).  First `share` (share.h, the code of memplan-plan share)
 * against the split proportional to each job's lower bound without swaps:
 * three zoo jobs in 70% of their combined transient need, on pcie5; the
 * worst and total predicted overhead of each split ("inf": a job the split
 * leaves no plan).  Then `compile --per-gpu` (multigpu.h) against lock step
 * (N copies of the plan compile makes for MODEL,gpus=N) on 2, 4 and 8 GPUs
 * sharing one pcie4 or pcie5 link at a 90% budget: the worst overhead of
 * each in the joint simulation, the best plan all GPUs could share
 * (identical: how much of the gain is the better plan, not the stagger),
 * and one GPU alone for scale.
 * Usage: bench_multi [--quick] (share mixes only at a 10% frontier step,
 * per-GPU on resnet50 only).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "budget.h"
#include "link.h"
#include "multigpu.h"
#include "planfile.h"
#include "share.h"
#include "simulate.h"
#include "solver.h"
#include "swap.h"
#include "synth.h"

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct job {
	const char *model;
	unsigned batch;
};

static int load(const struct job *jb, struct trace **t,
		struct solver_problem *p, uint64_t *align)
{
	struct synth_opts o = { 0 };
	char err[512];
	o.model = jb->model;
	o.batch = jb->batch;
	o.device = "h100";
	if (synth_build(&o, t, err, sizeof(err)) ||
	    solver_problem_from_trace(*t, p, err, sizeof(err))) {
		fprintf(stderr, "bench_multi: %s\n", err);
		return -1;
	}
	solver_problem_drop_holes(p);
	*align = solver_trace_align(*t, 1);
	if (*align > 1 && solver_problem_align(p, *align, err, sizeof(err)))
		return -1;
	return 0;
}

static int share_row(const struct job *jobs, double step)
{
	struct trace *t[3] = { 0 };
	struct solver_problem p[3];
	struct share_job j[3];
	struct link_model l;
	char err[512];
	memset(j, 0, sizeof(j));
	memset(p, 0, sizeof(p));
	link_parse("pcie5", NULL, &l, err, sizeof(err));
	double t0 = now_s();
	uint64_t need = 0;
	int rc = 0;
	for (int i = 0; i < 3 && !rc; i++) {
		rc = load(&jobs[i], &t[i], &p[i], &j[i].align);
		j[i].t = t[i];
		j[i].p = &p[i];
		if (!rc)
			rc = share_job_init(&j[i], &l, step, err, sizeof(err));
		need += j[i].lb;
	}
	if (rc) {
		fprintf(stderr, "bench_multi: %s\n", err);
		goto out;
	}
	uint64_t avail = need / 10 * 7, prop[3];
	double poh[3], pw = 0, pt = 0, w = 0, tot = 0;
	share_proportional(j, 3, avail, prop);
	for (int i = 0; i < 3; i++) {
		share_job_add(&j[i], prop[i], &poh[i], err, sizeof(err));
		pw = fmax(pw, poh[i]);
		pt += poh[i];
	}
	size_t pick[3];
	int fit = share_split(j, 3, avail, SHARE_MAX, pick) == 0;
	for (int i = 0; fit && i < 3; i++) {
		w = fmax(w, j[i].pts[pick[i]].overhead);
		tot += j[i].pts[pick[i]].overhead;
	}
	char mix[96];
	snprintf(mix, sizeof(mix), "%s/%u+%s/%u+%s/%u", jobs[0].model, jobs[0].batch,
		 jobs[1].model, jobs[1].batch, jobs[2].model, jobs[2].batch);
	printf("%-36s %8.2f %8.2f", mix, (double)need / (1 << 30),
	       (double)avail / (1 << 30));
	if (fit)
		printf(" %9.2f %9.2f", w, tot);
	else
		printf(" %9s %9s", "nofit", "nofit");
	printf(" %9.2f %9.2f %7.1f\n", pw, pt, now_s() - t0);
out:
	for (int i = 0; i < 3; i++) {
		share_job_free(&j[i]);
		solver_problem_free(&p[i]);
		trace_free(t[i]);
	}
	return rc;
}

static int gpu_rows(const struct job *jb)
{
	struct trace *t = NULL;
	struct solver_problem p;
	uint64_t align;
	char err[512];
	memset(&p, 0, sizeof(p));
	int rc = load(jb, &t, &p, &align);
	uint64_t budget = solver_lower_bound(&p) / 100 * 90;
	static const char *const links[] = { "pcie4", "pcie5" };
	for (int li = 0; li < 2 && !rc; li++)
		for (unsigned n = 2; n <= 8 && !rc; n *= 2) {
			char spec[32];
			struct link_model l;
			snprintf(spec, sizeof(spec), "%s,gpus=%u", links[li], n);
			link_parse(spec, NULL, &l, err, sizeof(err));
			struct link_model one = l;
			one.gpus = 1;
			struct mp_plan plan;
			struct sim_result sim;
			struct swap_outcome oc;
			double alone = NAN;
			if (budget_plan(t, &p, &one, "memplan", budget, "best-fit",
				        align, &plan, &sim, &oc, err, sizeof(err)) == 0) {
				alone = sim_overhead(&sim);
				sim_free(&sim);
				mp_plan_free(&plan);
			}
			double t0 = now_s();
			struct mgpu_result r;
			rc = mgpu_plan(t, &p, &l, budget, align, &r, err, sizeof(err));
			if (rc) {
				fprintf(stderr, "bench_multi: %s %s: %s\n", jb->model, spec, err);
				break;
			}
			printf("%-10s %5u %-6s %4u %9.2f %9.2f %9.2f %9.2f %7.2f %5zu %7.1f\n",
			       jb->model, jb->batch, links[li], n, alone, r.lockstep,
			       r.identical, r.worst, r.lockstep > 0 ? r.worst / r.lockstep : 1.0,
			       r.ncandidates, now_s() - t0);
			mgpu_result_free(&r);
		}
	solver_problem_free(&p);
	trace_free(t);
	return rc;
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	if (argc > 2 || (argc == 2 && !quick)) {
		fprintf(stderr, "usage: bench_multi [--quick]\n");
		return 2;
	}
	static const struct job mixes[][3] = {
		{ { "resnet50", 8 }, { "vgg16", 8 }, { "bert-base", 4 } },
		{ { "alexnet", 64 }, { "inception_v3", 8 }, { "gpt2", 2 } },
		{ { "resnet50", 16 }, { "resnet50", 8 }, { "vgg16", 16 } },
	};
	int bad = 0;
	printf("share: three zoo jobs in 70%% of their combined transient need on pcie5, worst and total predicted overhead (%%), against the split proportional to each job's lower bound\n");
	printf("%-36s %8s %8s %9s %9s %9s %9s %7s\n", "jobs", "need_GiB",
	       "pool_GiB", "worst", "total", "prop_wst", "prop_tot", "wall_s");
	for (size_t i = 0; i < (quick ? 1 : sizeof(mixes) / sizeof(mixes[0])); i++)
		bad |= share_row(mixes[i], quick ? 10 : 5) != 0;
	printf("\nper-GPU plans against lock step: N GPUs sharing one link, 90%% budget each, worst overhead (%%) in the joint simulation\n");
	printf("%-10s %5s %-6s %4s %9s %9s %9s %9s %7s %5s %7s\n", "model", "batch",
	       "link", "gpus", "alone", "lockstep", "identical", "per-gpu", "ratio", "cands",
	       "wall_s");
	static const struct job gj[] = { { "resnet50", 8 }, { "bert-base", 4 },
					 { "vgg16", 8 } };
	for (size_t i = 0; i < (quick ? 1 : sizeof(gj) / sizeof(gj[0])); i++)
		bad |= gpu_rows(&gj[i]) != 0;
	return bad;
}
