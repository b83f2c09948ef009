/* SPDX-License-Identifier: MIT */
/*
 * multigpu.h - N data-parallel GPUs running the same iteration in lock step
 * with their swaps on one shared link: the joint simulation of their copy
 * schedules (each GPU's compute stream and copy lanes as simulate.h runs
 * them, the copies' rates from link_rate_with() for however many GPUs
 * move bytes that way at that moment), and the joint planner that gives
 * the GPUs different plans so that the link is busy evenly.  Used by
 * memplan-plan compile --per-gpu and tests/bench/bench_multigpu.c.
 * Invariant: with one GPU the joint simulation is sim_run()'s.
 */
#ifndef MEMPLAN_MULTIGPU_H
#define MEMPLAN_MULTIGPU_H

#include <stddef.h>
#include <stdint.h>

#include "link.h"
#include "plan.h"
#include "solver.h"
#include "trace.h"

/* What one GPU of a joint simulation did. */
struct mgpu_gpu {
	double base_ns, iter_ns, stall_ns;
	double overhead; /* percent: 100 * (iter - base) / base */
};

/*
 * Simulates n GPUs, GPU g following plans[g] (each verified against t),
 * all starting the iteration together, their copies sharing link l (its
 * uplink shared by the n of them; l->gpus is not read).  out[g] gets each
 * GPU's figures.  Returns 0, or TRACE_EINVAL (no timestamps, a plan not
 * of t) or TRACE_ENOMEM with a sentence.
 */
int mgpu_simulate(const struct trace *t, const struct mp_plan *const *plans,
		  unsigned n, const struct link_model *l, struct mgpu_gpu *out,
		  char *err, size_t errlen);

/* The joint plan of l->gpus GPUs. */
struct mgpu_result {
	unsigned n;                /* GPUs (l->gpus) */
	struct mp_plan *plans;     /* [n]: plans[g] for device g */
	struct mgpu_gpu *gpus;     /* [n]: each one's figures, jointly */
	double worst, lockstep;    /* worst overhead of the plans, and of n
				      copies of the lock-step plan, percent */
	double identical;          /* the least worst overhead of n copies of
				      any one candidate (staggering's share
				      of the gain is identical - worst) */
	struct mgpu_gpu *lock;     /* [n]: the lock-step run's GPUs */
	size_t ncandidates;        /* plans tried per GPU */
	unsigned *choice;          /* [n]: the candidate each GPU follows */
	char (*about)[48];         /* [ncandidates]: how each was made */
};

/*
 * Plans trace t (problem p, alignment align raised already) for l->gpus
 * GPUs at budget bytes each.  The lock-step plan is the one budget_plan()
 * makes for l as it is (every GPU assumed to copy all the time, 1/N of the
 * uplink); the candidates are swap plans made for views of the link with
 * 1, 2, 4, ... N GPUs sharing it, with each swap strategy, and memplan's
 * at shifted moments (plan_shift(): swap-ins earlier, swap-outs later, as
 * far as the bytes allow).  Starting from the best candidate all GPUs
 * could share, each GPU in turn takes the candidate that lowers the worst
 * joint overhead (then the total), until a round changes nothing.
 * Never worse than lock step.  Every plan passed planfile_verify() and
 * carries its device (g) and the timing of its own simulation.  Returns 0
 * and *r (free with mgpu_result_free); SWAP_ENOFIT when no plan fits the
 * budget; TRACE_EINVAL, TRACE_ENOMEM; each with a sentence.
 */
int mgpu_plan(const struct trace *t, const struct solver_problem *p,
	      const struct link_model *l, uint64_t budget, uint64_t align,
	      struct mgpu_result *r, char *err, size_t errlen);
void mgpu_result_free(struct mgpu_result *r);

#endif
