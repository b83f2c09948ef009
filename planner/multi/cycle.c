/* SPDX-License-Identifier: MIT */
/*
 * cycle.c - workloads taking turns, planned in one pool (cycle.h): their
 * traces concatenated on one clock, the plan's CYCLE section, and the
 * check that a cycle plan names the traces it is checked against.  The
 * concatenation is an ordinary trace, so placement, swaps, verify and
 * replay need nothing of their own: a later workload reuses the bytes an
 * earlier one freed because their buffers never live at the same time.
 */
#include "cycle.h"

#include <stdlib.h>
#include <string.h>

#include "alloc_clock.h"
#include "input.h"
#include "planfile.h"

void cycle_free(struct cycle *cy)
{
	free(cy->first_request);
	free(cy->requests);
	free(cy->lower_bound);
	free(cy->persistent);
	free(cy->fingerprint);
	memset(cy, 0, sizeof(*cy));
}

/* The GPU times of t: the first start and the last end (or start), or
 * TRACE_TIME_NONE twice when no event has one. */
static void time_span(const struct trace *t, int64_t *lo, int64_t *hi)
{
	*lo = *hi = TRACE_TIME_NONE;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		int64_t a = e->t_start, b = e->t_end != TRACE_TIME_NONE ? e->t_end : a;
		if (a != TRACE_TIME_NONE && (*lo == TRACE_TIME_NONE || a < *lo))
			*lo = a;
		if (b != TRACE_TIME_NONE && (*hi == TRACE_TIME_NONE || b > *hi))
			*hi = b;
	}
}

static int64_t shifted(int64_t v, int64_t by)
{
	return v == TRACE_TIME_NONE ? v : v + by;
}

/* Appends trace u (workload w) to t, its seqs from *seq on and its GPU
 * times from *ns on; advances both past it.  0 or TRACE_ENOMEM. */
static int append(struct trace *t, const struct trace *u, size_t w,
		  int64_t *seq, int64_t *ns, struct cycle *cy)
{
	int64_t base = (int64_t)t->nbuffers;
	for (size_t i = 0; i < u->nbuffers; i++)
		if (trace_add_buffer(t, &u->buffers[i]) < 0)
			return TRACE_ENOMEM;
	int64_t lo, hi;
	time_span(u, &lo, &hi);
	int64_t dt = lo == TRACE_TIME_NONE ? 0 : *ns - lo;
	int64_t ds = u->nevents ? *seq - u->events[0].seq : 0;
	uint64_t k = 0;
	struct mp_plan_fp fp;
	mp_plan_fp_init(&fp);
	for (size_t i = 0; i < u->nevents; i++) {
		struct trace_event e = u->events[i];
		e.seq += ds;
		e.t_start = shifted(e.t_start, dt);
		e.t_end = shifted(e.t_end, dt);
		if (e.buffer != TRACE_NONE)
			e.buffer += base;
		/* the allocator clock counts requests alone (not bypass) */
		int req = trace_event_request(u, &u->events[i]);
		if (req && e.type == TRACE_EV_ALLOC)
			mp_plan_fp_update(&fp, u->buffers[u->events[i].buffer].size);
		k += req;
		if (trace_add_event(t, &e) < 0)
			return TRACE_ENOMEM;
		for (uint32_t a = 0; a < u->events[i].nacc; a++) {
			const struct trace_access *x = &u->accesses[u->events[i].acc0 + a];
			if (trace_add_access(t, x->buffer + base, x->mode))
				return TRACE_ENOMEM;
		}
	}
	for (size_t i = 0; i < u->nholes; i++) {
		struct trace_hole h = u->holes[i];
		h.buffer += base;
		h.lower += ds;
		h.upper += ds;
		if (trace_add_hole(t, &h))
			return TRACE_ENOMEM;
	}
	cy->requests[w] = k;
	cy->fingerprint[w] = mp_plan_fp_final(&fp);
	if (trace_pool_lower_bound(u, &cy->lower_bound[w]))
		return TRACE_ENOMEM;
	for (size_t i = 0; i < u->nbuffers; i++)
		if (trace_buffer_persistent(&u->buffers[i]))
			cy->persistent[w] += u->buffers[i].size;
	if (u->nevents)
		*seq = u->events[u->nevents - 1].seq + ds + 1;
	if (hi != TRACE_TIME_NONE)
		*ns = hi + dt + 1;
	return 0;
}

int cycle_trace(struct trace *const *in, size_t n, struct trace **out,
		struct cycle *cy, char *err, size_t errlen)
{
	*out = NULL;
	memset(cy, 0, sizeof(*cy));
	if (n == 0 || n > MP_PLAN_MAX_WORKLOADS)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "a cycle has 1 to %d workloads, not %zu",
				    MP_PLAN_MAX_WORKLOADS, n);
	for (size_t w = 0; w < n; w++) {
		const struct trace *u = in[w];
		size_t allocs = 0;
		for (size_t i = 0; i < u->nevents; i++)
			allocs += u->events[i].type == TRACE_EV_ALLOC &&
				  trace_event_request(u, &u->events[i]);
		if (!u->finished)
			return trace_seterr(err, errlen, TRACE_EINVAL,
					    "workload %zu: the trace is not finished", w);
		/* what a trace cannot be to take a turn: the input's fault */
		if (u->clock != TRACE_CLOCK_SEQ)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
					    "workload %zu: the trace's lifetimes are on a time clock (a placement problem, not a program's requests): a cycle needs the requests in order",
					    w);
		if (!allocs)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
					    "workload %zu: the trace has no allocation request, so the runtime could not recognise its turn",
					    w);
	}
	cy->n = n;
	cy->first_request = calloc(n, sizeof(uint64_t));
	cy->requests = calloc(n, sizeof(uint64_t));
	cy->lower_bound = calloc(n, sizeof(uint64_t));
	cy->persistent = calloc(n, sizeof(uint64_t));
	cy->fingerprint = calloc(n, sizeof(uint64_t));
	struct trace *t = trace_new();
	int rc = 0;
	if (!t || !cy->first_request || !cy->requests || !cy->lower_bound ||
	    !cy->persistent || !cy->fingerprint)
		rc = TRACE_ENOMEM;
	for (size_t i = 0; !rc && i < in[0]->nmeta; i++)
		rc = trace_set_meta(t, in[0]->meta[i].key, in[0]->meta[i].value);
	int64_t seq = in[0]->nevents ? in[0]->events[0].seq : 0, ns = 0;
	int64_t lo, hi;
	time_span(in[0], &lo, &hi);
	if (lo != TRACE_TIME_NONE)
		ns = lo; /* the first workload keeps its times */
	uint64_t k = 0;
	for (size_t w = 0; w < n && !rc; w++) {
		cy->first_request[w] = k;
		rc = append(t, in[w], w, &seq, &ns, cy);
		k += cy->requests[w];
	}
	if (rc == TRACE_ENOMEM) {
		trace_seterr(err, errlen, rc,
			     "out of memory concatenating %zu traces", n);
	} else if (!rc) {
		char why[512];
		rc = trace_finish(t, why, sizeof(why));
		if (rc)
			trace_seterr(err, errlen, rc == TRACE_ENOMEM ? rc : TRACE_EFORMAT,
				     "the traces of the cycle do not make one trace: %s",
				     why);
		if (rc && rc != TRACE_ENOMEM)
			rc = TRACE_EFORMAT;
	}
	if (rc) {
		trace_free(t);
		cycle_free(cy);
		return rc;
	}
	*out = t;
	return 0;
}

int cycle_load(char *const *paths, size_t n, struct trace **out,
	       struct cycle *cy, char *err, size_t errlen)
{
	*out = NULL;
	memset(cy, 0, sizeof(*cy));
	if (n == 0 || n > MP_PLAN_MAX_WORKLOADS)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "a cycle has 1 to %d workloads, not %zu",
				    MP_PLAN_MAX_WORKLOADS, n);
	struct trace **in = calloc(n, sizeof(*in));
	if (!in)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	int rc = 0;
	for (size_t w = 0; w < n && !rc; w++)
		rc = input_load(paths[w], &in[w], err, errlen);
	char why[768];
	if (!rc && (rc = cycle_trace(in, n, out, cy, why, sizeof(why)))) {
		/* name the file rather than the position */
		const char *p = why;
		size_t w = 0;
		if (!strncmp(why, "workload ", 9)) {
			w = strtoul(why + 9, NULL, 10);
			p = strchr(why, ':') ? strchr(why, ':') + 2 : why;
		}
		if (p != why && w < n)
			trace_seterr(err, errlen, rc, "trace '%s' (workload %zu of the cycle): %s",
				     paths[w], w, p);
		else
			trace_seterr(err, errlen, rc, "%s", why);
	}
	for (size_t w = 0; w < n; w++)
		trace_free(in[w]);
	free(in);
	return rc;
}

int cycle_attach(struct mp_plan *plan, const struct cycle *cy, char *err,
		 size_t errlen)
{
	uint64_t k = 0;
	for (size_t w = 0; w < cy->n; w++)
		k += cy->requests[w];
	if (k != plan->nrequests || cy->n == 0 || cy->n > MP_PLAN_MAX_WORKLOADS)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "the plan's %llu requests are not the cycle's %llu",
				    (unsigned long long)plan->nrequests,
				    (unsigned long long)k);
	struct mp_plan_workload *x = calloc(cy->n, sizeof(*x));
	if (!x)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	for (size_t w = 0; w < cy->n; w++)
		x[w] = (struct mp_plan_workload){ cy->first_request[w],
						  cy->fingerprint[w],
						  cy->persistent[w], 0 };
	free(plan->workloads);
	plan->workloads = x;
	plan->nworkloads = (uint32_t)cy->n;
	int rc = 0;
	if (plan->has_streams)
		rc = planfile_streams_by_workload(plan, plan->streams, err, errlen);
	char why[384];
	if (!rc && (rc = mp_plan_validate(plan, why, sizeof(why))))
		rc = trace_seterr(err, errlen,
				  rc == MP_PLAN_ENOMEM ? TRACE_ENOMEM : TRACE_EINVAL,
				  "the cycle plan is not valid: %s", why);
	return rc;
}

int cycle_check(const struct mp_plan *plan, const struct cycle *cy,
		char *err, size_t errlen)
{
	size_t n = plan->nworkloads ? plan->nworkloads : 1;
	if (n != cy->n)
		return trace_seterr(err, errlen, PLANFILE_EINVALID,
				    "the plan has %zu workload%s, and %zu trace%s given",
				    n, n == 1 ? "" : "s", cy->n,
				    cy->n == 1 ? " was" : "s were");
	for (size_t w = 0; plan->nworkloads && w < n; w++) {
		const struct mp_plan_workload *x = &plan->workloads[w];
		if (x->first_request != cy->first_request[w] ||
		    x->fingerprint != cy->fingerprint[w])
			return trace_seterr(err, errlen, PLANFILE_EINVALID,
					    "CYCLE entry %zu: the plan's workload starts at request %llu with fingerprint 0x%016llx, trace %zu at %llu with 0x%016llx (traces in another order?)",
					    w, (unsigned long long)x->first_request,
					    (unsigned long long)x->fingerprint, w,
					    (unsigned long long)cy->first_request[w],
					    (unsigned long long)cy->fingerprint[w]);
	}
	return 0;
}

uint64_t cycle_workload_pool(const struct mp_plan *plan, uint32_t w)
{
	uint64_t lo = 0, hi = plan->nrequests, top = 0;
	if (plan->nworkloads) {
		if (w >= plan->nworkloads)
			return 0;
		mp_plan_workload_at(plan, plan->workloads[w].first_request, &lo, &hi);
	}
	for (uint32_t i = 0; i < plan->nallocs; i++) {
		const struct mp_plan_alloc *a = &plan->allocs[i];
		if (a->lower < lo || a->lower >= hi ||
		    a->offset == MP_PLAN_PASS_THROUGH)
			continue;
		if (a->offset + a->size > top)
			top = a->offset + a->size;
	}
	return top;
}
