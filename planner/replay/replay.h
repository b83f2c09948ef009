/* SPDX-License-Identifier: MIT */
/*
 * replay.h - a plan validated end to end without the application: the
 * trace's requests drive a runtime (runtime.h), every buffer gets a pattern
 * unique to it and its iteration at its alloc, and the pattern is checked at
 * every use and at the free.  Used by memplan-replay and by the tests' CUDA
 * client (the patterns).
 */
#ifndef MEMPLAN_REPLAY_H
#define MEMPLAN_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "memplan.h"
#include "trace.h"

/*
 * Patterns.  Word i (8 bytes, little-endian) of buffer b in iteration it is
 * 0xA5 << 56 | (it & 0xff) << 48 | (b & 0xffffff) << 24 | (i & 0xffffff);
 * a tail shorter than a word holds the low bytes of its word.  from is the
 * byte offset of p within the buffer (a multiple of 8), so that a buffer can
 * be written and checked in pieces.
 */
void replay_fill(void *p, size_t n, size_t from, uint32_t buf, uint32_t it);

/* What a check found in place of the pattern. */
struct replay_bad {
	size_t at;        /* byte offset within the buffer of the first wrong word */
	uint64_t found;   /* the word there */
	int64_t owner;    /* the buffer whose pattern it is, -1 if none */
	int32_t owner_it; /* and its iteration */
};

/* 0 when [p, p + n) holds the pattern; else 1 and *bad. */
int replay_check(const void *p, size_t n, size_t from, uint32_t buf,
		 uint32_t it, struct replay_bad *bad);

struct replay_opts {
	int backend;         /* enum mp_backend_kind */
	unsigned iterations; /* >= 1 */
	unsigned max_reports; /* problems described in full; the rest counted */
	/* 1: write and check windows of each large buffer (its ends and 4 KiB
	 * of every MiB of address), so that untouched pool pages are never
	 * committed: host memory bounded near 1/256 of the pool's */
	int sample;
	/* Called after every 2^16 events and at each iteration's end with the
	 * share done (0 to 1); may be NULL. */
	void (*progress)(void *ctx, double done);
	void *progress_ctx;
	/* A plan of workloads taking turns (a CYCLE section): the request
	 * ordinals of the trace where each workload's turn begins, the first
	 * 0 (cycle.h's first_request of the traces concatenated); NULL: the
	 * plan's own.  Each turn begins with mp_iteration_begin(), so the
	 * runtime follows the plan's cycle, and turns in another order than
	 * the plan's diverge. */
	const uint64_t *turns;
	size_t nturns;
};

struct replay_result {
	uint64_t iterations;  /* iterations driven */
	uint64_t followed;    /* iterations the runtime followed to the end
				 (of a cycle: in every turn) */
	uint64_t requests;    /* alloc and free requests driven */
	uint64_t checks;      /* pattern checks */
	uint64_t bytes_checked;
	uint64_t problems;    /* corruptions, lost swaps, divergences */
	struct mp_stats stats;
};

/*
 * Drives the plan at plan_path with trace t (finished) for opt->iterations
 * iterations.  Each problem is described on report (one paragraph: the
 * buffers, the plan entries, the event) up to max_reports.  Returns 0 when
 * the replay ran (valid when res->problems == 0; a plan made for another
 * trace is one problem, or a divergence), or a negative trace_err
 * code with a sentence in err: TRACE_EIO / TRACE_EFORMAT / TRACE_EVERSION
 * for a plan that cannot be read, TRACE_EINVAL when the runtime cannot be
 * opened (no CUDA, no memory for the pool), TRACE_ENOMEM.
 */
int replay_run(const struct trace *t, const char *plan_path,
	       const struct replay_opts *opt, struct replay_result *res,
	       void (*report)(void *ctx, const char *text), void *ctx,
	       char *err, size_t errlen);

#endif
