/* SPDX-License-Identifier: MIT */
/*
 * stalls.c - the longest stalls of a simulation and where they are
 * (stalls.h).  The selection keeps a short sorted list rather than sorting
 * every stall: a plan can wait thousands of times, and a report shows ten.
 */
#include "stalls.h"

#include <stdlib.h>

/* > 0 when stall a is shorter than stall b (longest first). */
static int stall_cmp(const void *a, const void *b, const struct sim_stall *s)
{
	double x = s[*(const size_t *)a].ns, y = s[*(const size_t *)b].ns;
	return x < y ? 1 : x > y ? -1 : 0;
}

size_t stalls_longest(const struct sim_result *r, size_t *top, size_t max)
{
	size_t n = 0;
	if (max == 0)
		return 0;
	for (size_t i = 0; i < r->nstalls; i++) {
		size_t at = n < max ? n++ : max;
		if (at == max) {
			/* full: only a longer one than the last gets in */
			if (!(r->stalls[i].ns > r->stalls[top[n - 1]].ns))
				continue;
			at = n - 1;
		}
		top[at] = i;
		/* insertion: keep top sorted, longest first */
		while (at > 0 && stall_cmp(&top[at - 1], &top[at], r->stalls) > 0) {
			size_t x = top[at];
			top[at] = top[at - 1];
			top[at - 1] = x;
			at--;
		}
	}
	return n;
}

uint64_t *stalls_clock(const struct trace *t)
{
	uint64_t *clock = malloc((t->nevents ? t->nevents : 1) * sizeof(*clock));
	if (!clock)
		return NULL;
	uint64_t k = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		clock[i] = k;
		k += trace_event_request(t, &t->events[i]);
	}
	return clock;
}

struct stall_place stalls_place(const struct trace *t,
				const struct mp_plan *plan,
				const uint64_t *clock,
				const struct sim_stall *s)
{
	struct stall_place p = { 0, UINT64_MAX, -1 };
	if (s->event < t->nevents)
		p.clock = clock[s->event];
	if (s->swap < plan->nswaps) {
		p.request = plan->swaps[s->swap].request;
		if (p.request < plan->nallocs)
			p.buffer = (int64_t)plan->allocs[p.request].buffer;
	}
	return p;
}
