/* SPDX-License-Identifier: MIT */
/*
 * cycle.h - workloads that take turns in one process (train then evaluate,
 * a GAN's two steps, models served in turn), planned in one pool: their
 * traces concatenated on one clock, so that the solver and the swap planner
 * see one iteration in which each workload's buffers live within its own
 * turn, and the plan's CYCLE section (memplan-plan(5)) saying where each
 * turn begins.  Used by memplan-plan compile --cycle and verify, and by
 * memplan-replay.  Invariant: no transient buffer of the concatenation
 * crosses from one workload's turn into the next (each trace holds one
 * iteration), so the pool is empty between turns.
 */
#ifndef MEMPLAN_CYCLE_H
#define MEMPLAN_CYCLE_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "trace.h"

/* The workloads of a concatenated trace, in cycle order. */
struct cycle {
	size_t n;
	uint64_t *first_request; /* its first ordinal on the cycle's clock */
	uint64_t *requests;      /* its alloc and free requests */
	uint64_t *lower_bound;   /* the least pool of its own trace */
	uint64_t *persistent;    /* bytes of its buffers outliving its turn */
	uint64_t *fingerprint;   /* of its alloc sizes (mp_plan_fingerprint) */
};

/*
 * Concatenates the n finished traces in[] (1 to MP_PLAN_MAX_WORKLOADS, on
 * the seq clock) into a new finished trace *out: buffers renumbered in
 * order, each trace's events after the previous one's (seqs and GPU times
 * shifted), accesses and holes with them, the meta of the first.  Fills
 * *cy (cycle_free() it).  Returns 0, TRACE_EFORMAT (a trace on a time
 * clock, one with no allocation request), TRACE_EINVAL (no trace, too many,
 * one not finished) or TRACE_ENOMEM with a sentence naming the trace by its
 * 0-based position; *out NULL on failure.
 */
int cycle_trace(struct trace *const *in, size_t n, struct trace **out,
		struct cycle *cy, char *err, size_t errlen);

/* cycle_trace() of the traces at paths (input_load()); errors name the
 * file.  Returns 0 or a trace_err code. */
int cycle_load(char *const *paths, size_t n, struct trace **out,
	       struct cycle *cy, char *err, size_t errlen);

void cycle_free(struct cycle *cy);

/*
 * Makes plan (built from cy's concatenated trace) a cycle plan: its CYCLE
 * section from cy, and its STREAMS ordinals numbered per workload.
 * Returns 0, TRACE_EINVAL (a plan of another trace) or TRACE_ENOMEM.
 */
int cycle_attach(struct mp_plan *plan, const struct cycle *cy, char *err,
		 size_t errlen);

/* 0 when plan's CYCLE section names cy's workloads (its first requests and
 * fingerprints); else PLANFILE_EINVALID with a sentence.  A plan without a
 * cycle matches a single trace only. */
int cycle_check(const struct mp_plan *plan, const struct cycle *cy,
		char *err, size_t errlen);

/* The bytes of the pool workload w's planned buffers reach up to (the end
 * of its highest one): its share of the cycle's pool. */
uint64_t cycle_workload_pool(const struct mp_plan *plan, uint32_t w);

#endif
