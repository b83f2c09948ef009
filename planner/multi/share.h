/* SPDX-License-Identifier: MIT */
/*
 * share.h - several workloads on one device: each job's frontier (pool
 * against predicted overhead, every point a verified and simulated swap
 * plan), and the split of the device's memory that keeps the sum of pools
 * and persistent bytes within it at the least worst overhead (or the least
 * total).  Used by memplan-plan share and tests/bench/bench_share.c.
 * Invariant: a chosen split's pools plus persistent bytes fit the device,
 * and each chosen plan's pool is within its budget.
 */
#ifndef MEMPLAN_SHARE_H
#define MEMPLAN_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include "link.h"
#include "plan.h"
#include "solver.h"
#include "trace.h"

struct swap_ctx;

/* share_split(): no choice of points fits the memory given. */
#define SHARE_ENOFIT (-9)

/* One budget of a job: the plan swap_plan_ctx() made for it. */
struct share_point {
	uint64_t budget, pool;
	double overhead;     /* predicted, percent (sim_overhead) */
	double iter_ns, base_ns;
	struct mp_plan plan; /* verified, with its simulated timing */
	uint64_t swapped;    /* bytes its swaps move out (0: no swap) */
	size_t nswaps;
};

/* One workload.  The caller fills t, p (solver_problem_from_trace, holes
 * dropped, alignment raised) and align; share_job_init() the rest. */
struct share_job {
	const struct trace *t;
	const struct solver_problem *p;
	uint64_t align;
	uint64_t persistent;   /* device bytes outside the pool: buffers live
				  across iterations (share_persistent()) */
	uint64_t lb;           /* the pool's lower bound without swaps */
	struct share_point *pts; /* pools rising, overheads falling (or, at
				    the same overhead, swapped bytes) */
	size_t npts;
	struct swap_ctx *ctx;  /* the swap context of t, p and the link */
	int no_swaps;          /* set by the caller: a trace without accesses,
				  planned only at budgets needing no swap */
};

/* Device bytes of t's persistent buffers (weights, optimiser state: not
 * pinned host memory), rounded as the allocator gave them. */
uint64_t share_persistent(const struct trace *t);

/*
 * The frontier of job j over link l: swap plans (memplan's chooser,
 * best-fit placement) at 110% of the lower bound without swaps, then from
 * 100% down by step percent until a budget fits nothing or 5% is passed.
 * A point no better than one with a smaller pool (less or equal overhead
 * and swapped bytes) is dropped.  With j->no_swaps, only the budgets at or
 * above the lower bound are planned (and added).  Returns 0
 * (npts may be 0: no budget fits), TRACE_EINVAL (a trace without GPU
 * timestamps) or TRACE_ENOMEM, with a sentence; free with share_job_free()
 * either way.
 */
int share_job_init(struct share_job *j, const struct link_model *l,
		   double step, char *err, size_t errlen);
/* One more point at budget (the proportional split's, so that the split
 * can always do as well); *overhead gets its predicted overhead, INFINITY
 * when nothing fits the budget.  0 whether or not it fits; TRACE_ENOMEM. */
int share_job_add(struct share_job *j, uint64_t budget, double *overhead,
		  char *err, size_t errlen);
void share_job_free(struct share_job *j);

enum share_objective { SHARE_MAX = 0, SHARE_SUM = 1 };

/*
 * The split: for each of the n jobs a point pick[i] with the sum of pools at
 * most avail bytes, at the least worst overhead, then the least total
 * (SHARE_MAX), or at the least total, then the least worst (SHARE_SUM).
 * Overheads equal, the split moving fewer bytes wins: a device with room
 * to spare gets plans without needless swaps.
 * Exact over the points (a branch and bound; past 4 million nodes the best
 * found, which is never worse than a greedy split).  Returns 0, or
 * SHARE_ENOFIT when even the smallest pools do not fit (pick unchanged).
 */
int share_split(const struct share_job *jobs, size_t n, uint64_t avail,
		enum share_objective obj, size_t *pick);

/* The proportional split of avail among the jobs: each gets the share of
 * its lower bound without swaps (budget[i]). */
void share_proportional(const struct share_job *jobs, size_t n,
			uint64_t avail, uint64_t *budget);

#endif
