/* SPDX-License-Identifier: MIT */
/*
 * stalls.h - where a simulated plan waits (simulate.h's sim_result): its
 * longest stalls, and where each one is on the allocator clock, in the plan
 * and in the trace.  Used by memplan-plan simulate for its table and JSON.
 */
#ifndef MEMPLAN_STALLS_H
#define MEMPLAN_STALLS_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "simulate.h"
#include "trace.h"

/*
 * The indices into r->stalls of the (at most max) longest stalls, longest
 * first (among equal ones, the earlier first), into top[0..max); returns how
 * many.  O(nstalls * max).
 */
size_t stalls_longest(const struct sim_result *r, size_t *top, size_t max);

/*
 * Each event's position on the allocator clock: the number of alloc and free
 * events before it.  Returns a malloc'ed array of t->nevents entries (at
 * least one), or NULL when out of memory.
 */
uint64_t *stalls_clock(const struct trace *t);

/* Where a stall is: its event on the allocator clock, its swap's request
 * and that request's buffer (UINT64_MAX and -1 when out of the plan). */
struct stall_place {
	uint64_t clock, request;
	int64_t buffer;
};

/* The place of stall s of a simulation of plan on t; clock from
 * stalls_clock(t). */
struct stall_place stalls_place(const struct trace *t,
				const struct mp_plan *plan,
				const uint64_t *clock,
				const struct sim_stall *s);

#endif
