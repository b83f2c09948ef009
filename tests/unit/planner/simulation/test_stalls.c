/* SPDX-License-Identifier: MIT */
/*
 * test_stalls.c - stalls.h on hand-made simulations: the longest stalls
 * longest first (ties in event order, at most max), each event's place on
 * the allocator clock, and a stall's request and buffer from the plan.
 */
#include <stdlib.h>

#include "stalls.h"
#include "tap.h"

int main(void)
{
	/* ns: 5 1 9 5 7 3 9 */
	struct sim_stall st[7] = {
		{ 0, 0, 1, 0, 5 }, { 1, 0, 1, 0, 1 }, { 2, 0, 1, 0, 9 },
		{ 3, 0, 1, 0, 5 }, { 4, 0, 1, 0, 7 }, { 5, 0, 1, 0, 3 },
		{ 6, 0, 1, 0, 9 },
	};
	struct sim_result r = { 0 };
	r.stalls = st;
	r.nstalls = 7;
	size_t top[8];
	size_t n = stalls_longest(&r, top, 4);
	CHECK_EQ_U64(n, 4, "at most max stalls");
	CHECK(top[0] == 2 && top[1] == 6 && top[2] == 4 && top[3] == 0,
	      "  ... longest first, the earlier of equal ones first");
	n = stalls_longest(&r, top, 8);
	CHECK_EQ_U64(n, 7, "all of them when fewer than max");
	CHECK(top[0] == 2 && top[1] == 6 && top[2] == 4 && top[3] == 0 &&
		      top[4] == 3 && top[5] == 5 && top[6] == 1,
	      "  ... all in order");
	CHECK_EQ_U64(stalls_longest(&r, top, 0), 0, "max 0: none");

	/* alloc kernel alloc free kernel free */
	struct trace_event ev[6] = { 0 };
	uint8_t types[6] = { TRACE_EV_ALLOC, TRACE_EV_KERNEL, TRACE_EV_ALLOC,
			     TRACE_EV_FREE, TRACE_EV_KERNEL, TRACE_EV_FREE };
	for (int i = 0; i < 6; i++)
		ev[i].type = types[i];
	struct trace t = { 0 };
	t.events = ev;
	t.nevents = 6;
	uint64_t *clock = stalls_clock(&t);
	CHECK(clock != NULL, "a clock");
	if (clock)
		CHECK(clock[0] == 0 && clock[1] == 1 && clock[2] == 1 &&
			      clock[3] == 2 && clock[4] == 3 && clock[5] == 3,
		      "  ... counts the allocs and frees before each event");

	struct mp_plan_alloc allocs[2] = { 0 };
	allocs[1].buffer = 42;
	struct mp_plan_swap swaps[1] = { 0 };
	swaps[0].request = 1;
	struct mp_plan plan = { 0 };
	plan.allocs = allocs;
	plan.nallocs = 2;
	plan.swaps = swaps;
	plan.nswaps = 1;
	struct sim_stall s = { 4, 0, 1, 0, 1 };
	struct stall_place p = clock ? stalls_place(&t, &plan, clock, &s)
				     : (struct stall_place){ 0, 0, 0 };
	CHECK(p.clock == 3 && p.request == 1 && p.buffer == 42,
	      "a stall's clock, request and buffer");
	s.swap = 5;
	s.event = 99;
	p = clock ? stalls_place(&t, &plan, clock, &s)
		  : (struct stall_place){ 0, 0, 0 };
	CHECK(p.clock == 0 && p.request == UINT64_MAX && p.buffer == -1,
	      "  ... and the markers when they are out of range");
	free(clock);
	return tap_done();
}
