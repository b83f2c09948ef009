/* SPDX-License-Identifier: MIT */
/*
 * report.c - computes the summary figures of one trace (report.h).  The
 * peak and the lower bound come from trace_peak(), so analyze, the planner
 * and memplan-trace info agree by construction; what is live at the peak is
 * the set of buffers whose lifetime holds the peak's clock value, and their
 * resident bytes add up to the peak exactly.
 *
 * Use points: a buffer's alloc and free count as uses besides the accesses.
 * A trace without accesses (an import) would see every buffer idle between
 * its alloc and its free, so there no buffer is called idle and the
 * swappable room is unknown; the gaps are then the buffers' lifetimes.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static unsigned ilog2(uint64_t v)
{
	unsigned k = 0;
	while (v >>= 1)
		k++;
	return k;
}

const char *report_label_group(const char *label, char *buf, size_t len)
{
	if (!label || !*label) {
		snprintf(buf, len, "(none)");
		return buf;
	}
	const char *p = label, *end = NULL, *first = NULL;
	while (*p) {
		const char *q = strchr(p, '.');
		size_t n = q ? (size_t)(q - p) : strlen(p);
		if (!first)
			first = p + n;
		int digits = n > 0;
		for (size_t i = 0; i < n; i++)
			if (p[i] < '0' || p[i] > '9')
				digits = 0;
		if (digits) {
			end = p + n;
			break;
		}
		if (!q)
			break;
		p = q + 1;
	}
	if (!end)
		end = first;
	size_t n = (size_t)(end - label);
	if (n >= len)
		n = len - 1;
	memcpy(buf, label, n);
	buf[n] = '\0';
	return buf;
}

double report_fragmentation(const struct allocsim_result *a)
{
	return a->live_at_reserved_peak
		       ? (double)a->reserved_peak / (double)a->live_at_reserved_peak
		       : NAN;
}

double report_model_error(const struct report *r)
{
	if (r->recorded_reserved <= 0 || !(r->allocators & (1u << ALLOCSIM_PYTORCH)))
		return NAN;
	return (double)r->alloc[ALLOCSIM_PYTORCH].reserved_peak /
		       (double)r->recorded_reserved - 1.0;
}

double report_reserved_over_peak(const struct allocsim_result *a)
{
	return a->live_peak ? (double)a->reserved_peak / (double)a->live_peak : NAN;
}

/* --- counts and span --------------------------------------------------- */

static void count(const struct trace *t, const struct report_digest *d,
		  struct report *r)
{
	r->clock = t->clock;
	r->nbuffers = t->nbuffers;
	r->nholes = t->nholes;
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		if (trace_buffer_persistent(b)) {
			r->npersistent++;
			r->persistent_bytes += b->size;
		} else {
			r->ntransient++;
			r->transient_bytes += b->size;
		}
		unsigned k = ilog2(b->size);
		r->hist[k].count++;
		r->hist[k].bytes += b->size;
	}
	if (d) {
		r->nevents = d->nevents;
		r->naccesses = d->naccesses;
		memcpy(r->by_type, d->by_type, sizeof(r->by_type));
		r->seq_first = d->seq_first;
		r->seq_last = d->seq_last;
		r->time_first = d->time_first;
		r->time_last = d->time_last;
		return;
	}
	r->nevents = t->nevents;
	r->naccesses = t->naccesses;
	r->time_first = INT64_MAX;
	r->time_last = INT64_MIN;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		r->by_type[e->type]++;
		if (e->t_start != TRACE_TIME_NONE && e->t_start < r->time_first)
			r->time_first = e->t_start;
		int64_t end = e->t_end != TRACE_TIME_NONE ? e->t_end : e->t_start;
		if (end != TRACE_TIME_NONE && end > r->time_last)
			r->time_last = end;
	}
	if (r->time_first > r->time_last)
		r->time_first = r->time_last = TRACE_TIME_NONE;
	r->seq_first = t->nevents ? t->events[0].seq : 0;
	r->seq_last = t->nevents ? t->events[t->nevents - 1].seq : 0;
}

/* --- the peak ------------------------------------------------------------ */

/* The alloc event at clock value at (the last one there), or -1. */
static int64_t alloc_at(const struct trace *t, int64_t at)
{
	if (t->clock == TRACE_CLOCK_SEQ) {
		size_t lo = 0, hi = t->nevents;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t->events[mid].seq < at)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < t->nevents && t->events[lo].seq == at &&
		    t->events[lo].type == TRACE_EV_ALLOC)
			return (int64_t)lo;
		return -1;
	}
	int64_t found = -1;
	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].type == TRACE_EV_ALLOC &&
		    t->events[i].t_start == at)
			found = (int64_t)i;
	return found;
}

/* Bytes of b resident at clock value at; 0 when not live there. */
static uint64_t resident(const struct trace *t, const struct trace_buffer *b,
			 int64_t at)
{
	int64_t lo, hi;
	if (b->kind == TRACE_KIND_HOST)
		return 0; /* not device memory: apart from the peak */
	trace_lifetime(t, b, &lo, &hi);
	if (lo >= hi || at < lo || at >= hi)
		return 0;
	for (uint32_t j = 0; j < b->nholes; j++) {
		const struct trace_hole *h = &t->holes[b->hole0 + j];
		if (at >= h->lower && at < h->upper)
			return h->win_lo != TRACE_NONE
				       ? (uint64_t)(h->win_hi - h->win_lo)
				       : 0;
	}
	return b->size;
}

static int64_t end_time(const struct trace_event *e)
{
	return e->t_end != TRACE_TIME_NONE ? e->t_end : e->t_start;
}

/* One use at event i: keeps the latest at or before at and the first after. */
static void see_use(const struct trace *t, size_t i, int64_t at,
		    struct report_live *l, int64_t *last_t, int64_t *next_t)
{
	int64_t c = trace_event_clock(t, i);
	if (t->clock == TRACE_CLOCK_TIME && c == TRACE_TIME_NONE)
		return;
	const struct trace_event *e = &t->events[i];
	if (c <= at) {
		if (c >= l->last_use) {
			l->last_use = c;
			*last_t = end_time(e);
		}
	} else if (c < l->next_use) {
		l->next_use = c;
		*next_t = e->t_start;
	}
}

/* Uses of b around at, from the trace's use points (or the digest). */
static void uses_around(const struct trace *t, const struct report_digest *d,
			const struct trace_buffer *b, int64_t at,
			struct report_live *l, int64_t *last_t, int64_t *next_t)
{
	l->last_use = INT64_MIN;
	l->next_use = INT64_MAX;
	*last_t = *next_t = TRACE_TIME_NONE;
	if (d) {
		l->last_use = d->last[b->id];
		l->next_use = d->next[b->id];
		*last_t = d->last_t[b->id];
		*next_t = d->next_t[b->id];
		return;
	}
	if (b->alloc_ev != TRACE_NONE)
		see_use(t, (size_t)b->alloc_ev, at, l, last_t, next_t);
	if (b->free_ev != TRACE_NONE)
		see_use(t, (size_t)b->free_ev, at, l, last_t, next_t);
	for (uint32_t k = 0; k < b->nuses; k++)
		see_use(t, t->uses[b->use0 + k], at, l, last_t, next_t);
}

static int live_cmp(const void *a, const void *b)
{
	const struct report_live *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return (x->buffer > y->buffer) - (x->buffer < y->buffer);
}

static int live_at_peak(const struct trace *t, const struct report_digest *d,
			struct report *r)
{
	if (r->peak == 0)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < t->nbuffers; i++)
		n += resident(t, &t->buffers[i], r->peak_at) > 0;
	r->live = calloc(n ? n : 1, sizeof(*r->live));
	if (!r->live)
		return TRACE_ENOMEM;
	int64_t cfirst = t->clock == TRACE_CLOCK_SEQ ? r->seq_first : r->time_first;
	int64_t clast = t->clock == TRACE_CLOCK_SEQ ? r->seq_last : r->time_last;
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		uint64_t bytes = resident(t, b, r->peak_at);
		if (!bytes)
			continue;
		struct report_live *l = &r->live[r->nlive++];
		l->buffer = b->id;
		l->bytes = bytes;
		int64_t last_t, next_t;
		uses_around(t, d, b, r->peak_at, l, &last_t, &next_t);
		/* a buffer that is in a hole (partly away) is not idle room:
		 * the trace already moves it; nor is one used on several
		 * streams, which no plan swaps (the swap floor's and the
		 * planner's predicate) */
		l->idle = r->idle_known && l->last_use < r->peak_at &&
			  bytes == b->size &&
			  !(d ? d->multi && d->multi[b->id]
			      : trace_buffer_streams(t, b, NULL, NULL));
		int64_t from = l->last_use == INT64_MIN ? cfirst : l->last_use;
		int64_t to = l->next_use == INT64_MAX ? clast : l->next_use;
		l->gap = to > from ? to - from : 0;
		l->gap_ns = -1;
		if (t->clock == TRACE_CLOCK_SEQ) {
			int64_t tf = l->last_use == INT64_MIN ? r->time_first : last_t;
			int64_t tt = l->next_use == INT64_MAX ? r->time_last : next_t;
			if (tf != TRACE_TIME_NONE && tt != TRACE_TIME_NONE)
				l->gap_ns = tt > tf ? tt - tf : 0;
		}
	}
	if (r->nlive)
		qsort(r->live, r->nlive, sizeof(*r->live), live_cmp);
	return 0;
}

/* --- groups and the swappable room -------------------------------------- */

struct named {
	char *name;
	uint64_t bytes;
};

static int named_cmp(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name,
		      ((const struct named *)b)->name);
}

static int group_cmp(const void *a, const void *b)
{
	const struct report_group *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int groups(const struct trace *t, struct report *r)
{
	for (unsigned k = 0; k < TRACE_KIND_COUNT; k++)
		r->by_kind[k].name = trace_kind_name(k);
	/* the importers file host tensors under the default kind */
	if (r->host_memory)
		r->by_kind[TRACE_KIND_DEVICE].name = "host (CPU)";
	for (unsigned k = 0; k < TRACE_ROLE_COUNT; k++)
		r->by_role[k].name = trace_role_name(k);
	if (r->nlive == 0)
		return 0;
	struct named *nm = calloc(r->nlive, sizeof(*nm));
	if (!nm)
		return TRACE_ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < r->nlive; i++) {
		const struct trace_buffer *b = &t->buffers[r->live[i].buffer];
		r->by_kind[b->kind].bytes += r->live[i].bytes;
		r->by_kind[b->kind].count++;
		r->by_role[b->role].bytes += r->live[i].bytes;
		r->by_role[b->role].count++;
		char buf[256];
		report_label_group(b->label, buf, sizeof(buf));
		nm[i].bytes = r->live[i].bytes;
		if (!(nm[i].name = strdup(buf)))
			rc = TRACE_ENOMEM;
	}
	if (rc == 0) {
		qsort(nm, r->nlive, sizeof(*nm), named_cmp);
		r->by_label = calloc(r->nlive, sizeof(*r->by_label));
		if (!r->by_label)
			rc = TRACE_ENOMEM;
	}
	for (size_t i = 0; i < r->nlive; i++) {
		if (rc == 0 && r->nlabel &&
		    strcmp(r->by_label[r->nlabel - 1].name, nm[i].name) == 0) {
			r->by_label[r->nlabel - 1].bytes += nm[i].bytes;
			r->by_label[r->nlabel - 1].count++;
			free(nm[i].name);
		} else if (rc == 0) {
			r->by_label[r->nlabel++] =
				(struct report_group){ nm[i].name, nm[i].bytes, 1 };
		} else {
			free(nm[i].name);
		}
	}
	free(nm);
	if (rc == 0)
		qsort(r->by_label, r->nlabel, sizeof(*r->by_label), group_cmp);
	return rc;
}

struct gapb {
	int64_t gap;
	uint64_t bytes;
};

static int gapb_cmp(const void *a, const void *b)
{
	const struct gapb *x = a, *y = b;
	return (x->gap > y->gap) - (x->gap < y->gap);
}

/* Min, bytes-weighted median and max of n gaps (sorted here). */
static void gap_stats(struct gapb *g, size_t n, int64_t *mn, int64_t *med,
		      int64_t *mx)
{
	if (n == 0)
		return;
	qsort(g, n, sizeof(*g), gapb_cmp);
	uint64_t total = 0, acc = 0;
	for (size_t i = 0; i < n; i++)
		total += g[i].bytes;
	*mn = g[0].gap;
	*mx = g[n - 1].gap;
	for (size_t i = 0; i < n; i++) {
		acc += g[i].bytes;
		if (acc * 2 >= total) {
			*med = g[i].gap;
			break;
		}
	}
}

static int swappable(struct report *r)
{
	r->gap_min = r->gap_median = r->gap_max = 0;
	r->gap_ns_min = r->gap_ns_median = r->gap_ns_max = -1;
	struct gapb *g = malloc((r->nlive ? r->nlive : 1) * sizeof(*g));
	struct gapb *gn = malloc((r->nlive ? r->nlive : 1) * sizeof(*gn));
	if (!g || !gn) {
		free(g);
		free(gn);
		return TRACE_ENOMEM;
	}
	size_t n = 0, nn = 0;
	for (size_t i = 0; i < r->nlive; i++) {
		const struct report_live *l = &r->live[i];
		if (!l->idle)
			continue;
		r->idle_bytes += l->bytes;
		r->idle_count++;
		g[n++] = (struct gapb){ l->gap, l->bytes };
		if (l->gap_ns >= 0)
			gn[nn++] = (struct gapb){ l->gap_ns, l->bytes };
	}
	gap_stats(g, n, &r->gap_min, &r->gap_median, &r->gap_max);
	gap_stats(gn, nn, &r->gap_ns_min, &r->gap_ns_median, &r->gap_ns_max);
	free(g);
	free(gn);
	return 0;
}

/* --- the whole report ---------------------------------------------------- */

void report_free(struct report *r)
{
	if (!r)
		return;
	free(r->live);
	for (size_t i = 0; i < r->nlabel; i++)
		free((char *)r->by_label[i].name);
	free(r->by_label);
	r->live = NULL;
	r->by_label = NULL;
	r->nlive = r->nlabel = 0;
}

int report_build(const struct trace *t, const struct report_digest *d,
		 unsigned allocators, struct report *r, char *err,
		 size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->peak_seq = INT64_MIN;
	r->peak_time = TRACE_TIME_NONE;
	r->peak_buffer = TRACE_NONE;
	r->recorded_reserved = -1;
	if (!t->finished)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "the trace is not finished");
	count(t, d, r);
	const char *mem = trace_get_meta(t, "memory"), *dev = trace_get_meta(t, "device");
	r->host_memory = (mem && strcmp(mem, "host") == 0) || (dev && strcmp(dev, "cpu") == 0);
	r->idle_known = r->naccesses > 0;
	if (!r->idle_known)
		snprintf(r->idle_why, sizeof(r->idle_why),
			 "the trace records no access, so no buffer is known to be idle at the peak");
	int rc = trace_peak_checked(t, TRACE_ALL, &r->peak, &r->peak_at, err,
				    errlen);
	if (!rc)
		rc = trace_peak_checked(t, TRACE_TRANSIENT, &r->lower_bound,
					&r->lower_bound_at, err, errlen);
	if (!rc)
		rc = trace_peak_checked(t, TRACE_HOST, &r->host_peak, NULL, err,
					errlen);
	if (rc)
		return rc;
	if (d && r->peak && d->at != r->peak_at)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "internal error: uses gathered around clock %lld, but the peak is at %lld",
				    (long long)d->at, (long long)r->peak_at);
	if (r->peak) {
		int64_t ev = alloc_at(t, r->peak_at);
		if (ev >= 0) {
			r->peak_seq = t->events[ev].seq;
			r->peak_time = t->events[ev].t_start;
			r->peak_buffer = t->events[ev].buffer;
		}
	}
	if ((rc = live_at_peak(t, d, r)) < 0 || (rc = groups(t, r)) < 0 ||
	    (rc = swappable(r)) < 0) {
		report_free(r);
		return trace_seterr(err, errlen, rc, "out of memory");
	}
	if (d) {
		swapfloor_unknown(&r->floor, "the trace was streamed; the floor needs every access, held whole");
		r->floor.streamed = 1;
	} else if ((rc = swapfloor_compute(t, &r->floor, err, errlen)) < 0) {
		report_free(r);
		return rc;
	}
	const char *rec = trace_get_meta(t, "pytorch.reserved_peak_bytes");
	if (rec) {
		char *end;
		long long v = strtoll(rec, &end, 10);
		if (end != rec && *end == '\0' && v >= 0)
			r->recorded_reserved = v;
	}
	for (unsigned m = 0; m < ALLOCSIM_COUNT && !r->host_memory; m++) {
		if (!(allocators & (1u << m)))
			continue;
		if ((rc = allocsim_run(t, (enum allocsim_model)m, &r->alloc[m],
				       err, errlen)) < 0) {
			report_free(r);
			return rc;
		}
		r->allocators |= 1u << m;
	}
	return 0;
}
