/* SPDX-License-Identifier: MIT */
/*
 * fuzz_runtime.c - fuzz target for the runtime on any plan that loads: the
 * tables derived at open, then requests that follow the plan, stray from it
 * where the input says (another size, a skipped free, an early end, another
 * stream than the plan's STREAMS section binds), and a
 * recognised iteration after explicit ones.  Every pool pointer is written
 * in full (AddressSanitizer sees a byte outside the pool or the staging),
 * every allocation is freed once, and the statistics must add up.  Inputs
 * are plan files, repaired (size, checksum) to reach the runtime.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "plan_repair.h"
#include "runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_POOL ((uint64_t)1 << 22)
#define MAX_REQUESTS 4096

static void drive(mp_runtime *rt, const struct mp_plan *p, uint64_t twist,
		  int explicit_iteration)
{
	void **ptr = calloc(p->nallocs ? p->nallocs : 1, sizeof(*ptr));
	uint32_t *by_clock = malloc((size_t)p->nrequests * sizeof(*by_clock) + 1);
	if (!ptr || !by_clock) {
		free(ptr);
		free(by_clock);
		return;
	}
	for (uint64_t k = 0; k < p->nrequests; k++)
		by_clock[k] = UINT32_MAX;
	for (uint32_t r = 0; r < p->nallocs; r++) {
		by_clock[p->allocs[r].lower] = r << 1;
		if (p->allocs[r].upper != MP_PLAN_NO_FREE)
			by_clock[p->allocs[r].upper] = r << 1 | 1;
	}
	uint64_t stray = p->nrequests ? twist % (p->nrequests + 1) : 0;
	int how = (int)(twist >> 32 & 3);
	if (explicit_iteration)
		mp_iteration_begin(rt);
	for (uint64_t k = 0; k < p->nrequests; k++) {
		uint32_t c = by_clock[k];
		if (c == UINT32_MAX)
			continue; /* the free of a buffer from before the iteration */
		uint32_t r = c >> 1;
		if (k == stray && how == 3)
			break; /* an early end */
		if (!(c & 1)) {
			size_t n = (size_t)p->allocs[r].size;
			if (k == stray && how == 1)
				n += 8; /* another size */
			/* the trace's streams as handles 1, 2, ...; the stray
			 * request on another one where the input says */
			uintptr_t s = p->streams && p->streams[r] != MP_PLAN_STREAM_UNKNOWN
					      ? (uintptr_t)p->streams[r] + 1 : 0;
			if (k == stray && (twist >> 40 & 1))
				s = (s + 1) % 3;
			ptr[r] = mp_alloc(rt, n, (void *)s);
			if (ptr[r] && mp_owns(rt, ptr[r]))
				memset(ptr[r], 0x5a, n);
		} else if (!(k == stray && how == 2)) { /* a skipped free */
			mp_free(rt, ptr[r], NULL);
			ptr[r] = NULL;
		}
	}
	if (explicit_iteration)
		mp_iteration_end(rt);
	for (uint32_t r = 0; r < p->nallocs; r++)
		mp_free(rt, ptr[r], NULL);
	free(ptr);
	free(by_clock);
}

static void one(const unsigned char *buf, size_t len, uint64_t twist)
{
	char err[512];
	struct mp_plan p;
	if (mp_plan_decode(buf, len, &p, err, sizeof(err)))
		return;
	if (p.pool_size > MAX_POOL || p.host_staging > MAX_POOL ||
	    p.nrequests > MAX_REQUESTS || p.pool_align > MAX_POOL) {
		mp_plan_free(&p);
		return;
	}
	struct mp_plan copy = p;
	copy.timing = NULL; /* the runtime's plan keeps its own */
	copy.has_timing = 0;
	copy.workloads = NULL; /* and its CYCLE: drive() walks the clock whole */
	copy.nworkloads = 0;
	copy.allocs = malloc((p.nallocs ? p.nallocs : 1) * sizeof(*copy.allocs));
	copy.swaps = malloc((p.nswaps ? p.nswaps : 1) * sizeof(*copy.swaps));
	copy.streams = p.has_streams ? malloc((p.nallocs ? p.nallocs : 1) *
					      sizeof(*copy.streams)) : NULL;
	if (!copy.allocs || !copy.swaps || (p.has_streams && !copy.streams)) {
		free(copy.allocs);
		free(copy.swaps);
		free(copy.streams);
		mp_plan_free(&p);
		return;
	}
	if (p.nallocs)
		memcpy(copy.allocs, p.allocs, p.nallocs * sizeof(*copy.allocs));
	if (p.nswaps)
		memcpy(copy.swaps, p.swaps, p.nswaps * sizeof(*copy.swaps));
	if (p.has_streams && p.nallocs)
		memcpy(copy.streams, p.streams, p.nallocs * sizeof(*copy.streams));
	struct mp_options o;
	mp_options_init(&o);
	o.backend = MP_BACKEND_HOST;
	o.verbose = -1;
	/* the inputs stray on purpose: an unsafe state is an expected outcome
	 * here, to go on from, not a finding (the default stops the process) */
	o.on_unsafe = MP_ON_UNSAFE_WARN;
	o.match = 1 + (unsigned)(twist % 3);
	p.device = p.device > 0 ? 0 : p.device; /* the host has device 0 */
	mp_runtime *rt = runtime_open_plan(&p, mp_backend_host(), &o, err, sizeof(err));
	if (!rt) {
		mp_plan_free(&p);
		mp_plan_free(&copy);
		return;
	}
	drive(rt, &copy, 0, 0);             /* recognised */
	drive(rt, &copy, twist, 0);         /* recognised, maybe straying */
	drive(rt, &copy, 0, 1);             /* explicit from here on */
	drive(rt, &copy, twist * 7 + 1, 1);
	drive(rt, &copy, 0, 1);
	struct mp_stats s;
	mp_stats_get(rt, &s);
	/* a free the runtime refuses as a stale second free over swapped-out
	 * bytes (libmemplan(3)) leaves its buffer to the close: straying
	 * inputs make such frees, so fewer pool frees than allocations */
	if (s.pool_frees > s.planned_allocs ||
	    s.pass_through + s.fallback_allocs != s.real_frees ||
	    s.swaps_in > s.swaps_out || s.completed > s.iterations)
		abort();
	mp_close(rt);
	mp_plan_free(&copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t twist = 0;
	for (size_t i = 0; i < size; i++)
		twist = twist * 0x100000001b3ull ^ data[i];
	one(data, size, twist);
	unsigned char *copy = fuzz_plan_repaired(data, size);
	if (copy)
		one(copy, size, twist);
	free(copy);
	return 0;
}
