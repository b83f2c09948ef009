/* SPDX-License-Identifier: MIT */
/*
 * planfile.h - from a trace and a placement to a plan (runtime/plan.h), and
 * back: the independent check that a plan fits a trace.  Used by
 * memplan-plan's compile (which verifies every plan before writing it) and
 * verify.  The check trusts neither the solver nor the plan's own figures:
 * it recomputes the fingerprint, the clock and the lower bound from the
 * trace and sweeps the planned buffers for overlaps itself.
 */
#ifndef MEMPLAN_PLANFILE_H
#define MEMPLAN_PLANFILE_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "solver.h"
#include "trace.h"

/* planfile_verify: the plan does not fit the trace (same value as
 * SOLVER_EINVALID).  Other failures use the trace_err codes. */
#define PLANFILE_EINVALID (-6)

/* What a plan records besides the offsets. */
struct planfile_info {
	uint64_t pool_align;  /* every offset is a multiple (power of 2); 0 = 1 */
	const char *strategy; /* stored in META, at most 31 printable bytes */
	int optimal;          /* the strategy proved its pool minimal */
	/* 0: the problem's items carry no trace holes (the runtime empties
	 * only the swaps' holes); 1: they may, and the plan says so
	 * (MP_PLAN_TRUSTS_HOLES, a placement study) */
	int trust_holes;
};


/* The swaps a plan carries (swap_plan_entries()): sorted by (request,
 * out_at), staging slots assigned; copied into the plan. */
struct planfile_swaps {
	const struct mp_plan_swap *swaps;
	uint32_t nswaps;
	uint64_t host_staging; /* bytes of host staging the swaps need */
};

/*
 * Builds the plan of finished trace t: one entry per alloc event in order,
 * with the offset offsets[i] when the buffer is item i of p (p as made by
 * solver_problem_from_trace(t), offsets checked by the solver), pass-through
 * otherwise; the allocator clock, fingerprint, lower bound of p, persistent
 * bytes, the device of the planned buffers, and the STREAMS section (per
 * request, the ordinal of its buffer's stream, else its alloc event's, by
 * first appearance).  *out is then owned by the
 * caller (mp_plan_free).  Returns 0, TRACE_EINVAL (a problem that does not
 * belong to t, planned buffers on several devices, more than 2^32 - 1
 * requests) or TRACE_ENOMEM with a sentence in err; *out is empty on failure.
 */
int planfile_build(const struct trace *t, const struct solver_problem *p,
		   const uint64_t *offsets, const struct planfile_info *info,
		   struct mp_plan *out, char *err, size_t errlen);

/* planfile_build() with the swaps of sw (may be NULL): p is then the
 * problem with the swaps' holes, as placed. */
int planfile_build_swaps(const struct trace *t, const struct solver_problem *p,
			 const uint64_t *offsets,
			 const struct planfile_info *info,
			 const struct planfile_swaps *sw, struct mp_plan *out,
			 char *err, size_t errlen);

/*
 * Checks plan against finished trace t, independently of the solver: the
 * plan's own consistency; the request count and fingerprint recomputed from
 * t's alloc events; every entry's size, buffer and clock ordinals; the
 * STREAMS section, when there is one, recomputed from t; the LINK
 * section's spec, when there is one, parsed against t (link_parse); every
 * planned buffer transient, its offset a multiple of the pool's and its own
 * alignment, and inside the pool; no two planned buffers resident at the same
 * time (lifetimes, and the swaps' holes: a swapped buffer leaves its bytes
 * from request out_at + 1 until request in_at; the holes of t only when the
 * plan has MP_PLAN_TRUSTS_HOLES, since the runtime moves nothing else)
 * sharing a byte; no use of a swapped buffer between its swap-out and swap-in
 * triggers, and no swap of a buffer used on more than one stream
 * (trace_buffer_streams()); the lower bound recomputed and not above the pool; host staging
 * slots of swaps out at the same time disjoint.  Returns 0, PLANFILE_EINVALID with a sentence naming the
 * request(s), buffer(s) or field, TRACE_EINVAL for an unfinished trace, or
 * TRACE_ENOMEM.
 */
int planfile_verify(const struct mp_plan *plan, const struct trace *t,
		    char *err, size_t errlen);

/*
 * The trace holes a plan that planfile_verify() accepted relies on: 0 when
 * the plan does not trust the trace's holes (MP_PLAN_TRUSTS_HOLES), or
 * verifies without trusting them (its buffers are placed as if the holes
 * were resident); else the number of holes of t in the lifetimes of the
 * plan's pool buffers, which something other than the runtime must empty
 * for the plan to lose no byte.  Returns 0 and *nholes, or TRACE_ENOMEM.
 */
int planfile_trusted_holes(const struct mp_plan *plan, const struct trace *t,
			   uint64_t *nholes, char *err, size_t errlen);

/*
 * With a cycle (plan->nworkloads), renumbers the stream ordinals ord[] of
 * plan's nallocs entries per workload, each from 0 by first appearance in
 * its turn: the runtime binds each workload's streams anew, as two traces'
 * stream ids say nothing about each other.  Returns 0 or TRACE_ENOMEM.
 */
int planfile_streams_by_workload(const struct mp_plan *plan, uint32_t *ord,
				 char *err, size_t errlen);

#endif
