/* SPDX-License-Identifier: MIT */
/*
 * slice.c - one iteration out of a long trace, for `memplan-trace slice`
 * and the period that `memplan-trace info` reports.  Period detection runs
 * the Z-function over the request sequence from both ends (warm-up at the
 * start and a cut-short step at the end are the usual non-periodic parts),
 * so it is linear in the number of requests.
 */
#include "slice.h"

#include <errno.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- period detection --------------------------------------------------- */

/* A request: its kind in the low bit, its size above. */
static uint64_t token(const struct trace *t, const struct trace_event *e)
{
	return t->buffers[e->buffer].size << 1 | (e->type == TRACE_EV_FREE);
}

/* z[i] = longest common prefix of s and s[i..]; z[0] = n. */
static void zfunction(const uint64_t *s, size_t n, size_t *z)
{
	if (!n)
		return;
	z[0] = n;
	size_t l = 0, r = 0;
	for (size_t i = 1; i < n; i++) {
		size_t k = 0;
		if (i < r)
			k = z[i - l] < r - i ? z[i - l] : r - i;
		while (i + k < n && s[k] == s[i + k])
			k++;
		z[i] = k;
		if (i + k > r) {
			l = i;
			r = i + k;
		}
	}
}

/* Best (longest run, then smallest period) over s with z; run >= 2p. */
static void best_run(const size_t *z, size_t n, size_t *period, size_t *run)
{
	*period = *run = 0;
	for (size_t p = 2; p <= n / 2; p++) {
		if (z[p] < p)
			continue;
		size_t len = p + z[p];
		if (len > *run) {
			*run = len;
			*period = p;
		}
	}
}

#define ANCHORS 16

/*
 * The longest periodic run of s (m requests): the Z-function from ANCHORS
 * points spread over s finds runs that start there; each is then extended
 * to the left.  A run of length L is found with at least L - m / ANCHORS of
 * it, and then whole, in O(ANCHORS m).
 */
static void longest_run(const uint64_t *s, size_t m, size_t *z,
			size_t *period, size_t *first, size_t *len)
{
	*period = *first = *len = 0;
	for (size_t j = 0; j < ANCHORS; j++) {
		size_t a = m * j / ANCHORS, p, run;
		if (m - a < 4)
			break;
		zfunction(s + a, m - a, z);
		best_run(z, m - a, &p, &run);
		if (!p)
			continue;
		while (a > 0 && s[a - 1] == s[a - 1 + p]) {
			a--;
			run++;
		}
		if (run > *len || (run == *len && p < *period)) {
			*period = p;
			*first = a;
			*len = run;
		}
	}
}

/*
 * The least, over the boundaries of the run's iterations, of the bytes one
 * iteration hands to the next (live at its start, freed within it), and
 * whether that is small against the iteration's own high (the most bytes
 * live in it beyond those the whole run holds).  req[b] is the request
 * that allocates buffer b (SIZE_MAX: before the trace) and fre[b] the one
 * that frees it (SIZE_MAX: never); live[k] the bytes live before request k.
 */
static int hands_little(const struct trace *t, const struct slice_period *p,
			const size_t *req, const size_t *fre,
			const int64_t *live, uint64_t *least)
{
	size_t lo = p->first, n = p->iterations, end = lo + n * p->period;
	uint64_t *hand = calloc(n, sizeof(*hand));
	if (!hand)
		return -1;
	int64_t hold = 0;
	for (size_t b = 0; b < t->nbuffers; b++) {
		size_t a = req[b], f = fre[b];
		if (a != SIZE_MAX && a >= lo)
			continue; /* allocated inside the run: not handed in */
		if (f == SIZE_MAX || f >= end) {
			hold += (int64_t)t->buffers[b].size;
			continue;
		}
		if (f < lo)
			continue;
		/* freed in iteration j, allocated before it began */
		size_t j = (f - lo) / p->period;
		if (a == SIZE_MAX || a < lo + j * p->period)
			hand[j] += t->buffers[b].size;
	}
	for (size_t b = 0; b < t->nbuffers; b++) {
		size_t a = req[b], f = fre[b];
		if (a == SIZE_MAX || a < lo || a >= end || f == SIZE_MAX || f >= end)
			continue;
		size_t ja = (a - lo) / p->period, jf = (f - lo) / p->period;
		if (jf > ja) /* born in one iteration, freed in a later one */
			hand[jf] += t->buffers[b].size;
	}
	int small = 0;
	*least = UINT64_MAX;
	for (size_t j = 0; j < n; j++) {
		int64_t high = 0;
		for (size_t k = lo + j * p->period; k <= lo + (j + 1) * p->period; k++)
			if (live[k] - hold > high)
				high = live[k] - hold;
		if (hand[j] < *least)
			*least = hand[j];
		if (hand[j] * SLICE_HANDOFF_DIV <= (uint64_t)high)
			small = 1;
	}
	free(hand);
	return small;
}

/*
 * Bytes the first iteration of the run allocates (period_bytes) and, of
 * those, the bytes still live when it ends (kept_bytes); req and fre as
 * for hands_little.
 */
static uint64_t period_bytes(const struct trace *t, const struct slice_period *p,
			     const size_t *req)
{
	uint64_t n = 0;
	for (size_t b = 0; b < t->nbuffers; b++)
		if (req[b] != SIZE_MAX && req[b] >= p->first &&
		    req[b] < p->first + p->period)
			n += t->buffers[b].size;
	return n;
}

static uint64_t kept_bytes(const struct trace *t, const struct slice_period *p,
			   const size_t *req, const size_t *fre)
{
	uint64_t n = 0;
	size_t end = p->first + p->period;
	for (size_t b = 0; b < t->nbuffers; b++)
		if (req[b] != SIZE_MAX && req[b] >= p->first && req[b] < end &&
		    (fre[b] == SIZE_MAX || fre[b] >= end))
			n += t->buffers[b].size;
	return n;
}

int slice_detect(const struct trace *t, struct slice_period *p)
{
	memset(p, 0, sizeof(*p));
	size_t m = 0;
	for (size_t i = 0; i < t->nevents; i++)
		m += t->events[i].type == TRACE_EV_ALLOC || t->events[i].type == TRACE_EV_FREE;
	p->requests = m;
	if (m < 4)
		return 0;
	uint64_t *s = malloc(m * sizeof(*s));
	size_t *z = malloc(m * sizeof(*z));
	int64_t *live = malloc((m + 1) * sizeof(*live));
	size_t nb = t->nbuffers ? t->nbuffers : 1;
	size_t *req = malloc(nb * sizeof(*req)), *fre = malloc(nb * sizeof(*fre));
	int rc = 0;
	if (!s || !z || !live || !req || !fre) {
		rc = TRACE_ENOMEM;
		goto out;
	}
	int64_t cur = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		req[i] = fre[i] = SIZE_MAX;
		if (t->buffers[i].alloc_ev == TRACE_NONE)
			cur += (int64_t)t->buffers[i].size;
	}
	size_t k = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (e->type != TRACE_EV_ALLOC && e->type != TRACE_EV_FREE)
			continue;
		live[k] = cur;
		cur += e->type == TRACE_EV_ALLOC ? (int64_t)t->buffers[e->buffer].size
						 : -(int64_t)t->buffers[e->buffer].size;
		if (e->type == TRACE_EV_ALLOC)
			req[e->buffer] = k;
		else
			fre[e->buffer] = k;
		s[k++] = token(t, e);
	}
	live[m] = cur;
	longest_run(s, m, z, &p->period, &p->run_first, &p->run_len);
	if (p->period && p->run_len >= 2 * p->period && 2 * p->run_len >= m) {
		/* iteration 1 starts where a period has the fewest live bytes */
		size_t best = p->run_first;
		for (size_t j = p->run_first; j < p->run_first + p->period; j++)
			if (live[j] < live[best])
				best = j;
		p->first = best;
		p->iterations = (p->run_first + p->run_len - best) / p->period;
		/*
		 * An iteration frees what it allocates: the live bytes come
		 * back each period.  Layers repeating inside one iteration
		 * (a transformer's blocks) grow or shrink them instead.  A run
		 * over nine tenths of the trace is taken anyway (a leak).
		 */
		int64_t net = live[best + p->period] - live[best];
		uint64_t kept = kept_bytes(t, p, req, fre);
		p->found = p->iterations >= 1 &&
			   (net == 0 || (10 * p->run_len >= 9 * m &&
					 kept * 2 <= period_bytes(t, p, req)));
		if (!p->found && p->iterations >= 1 && net > 0 &&
		    10 * p->run_len >= 9 * m) {
			/*
			 * A leak keeps a little each step; the layers of a
			 * forward pass with autograd on keep most of what
			 * they allocate (saved for the backward).
			 */
			p->block = p->period;
			p->block_repeats = p->run_len / p->period;
			p->kept = kept;
		}
		/*
		 * The layers of a forward pass do free what they allocate,
		 * but each hands its output to the next: a step hands on
		 * nothing (at most a prefetched batch).
		 */
		uint64_t least = 0;
		int little = p->found ? hands_little(t, p, req, fre, live, &least) : 1;
		if (little < 0) {
			rc = TRACE_ENOMEM;
			goto out;
		}
		if (!little) {
			p->found = 0;
			p->block = p->period;
			p->block_repeats = p->run_len / p->period;
			p->handoff = least;
		}
	}
	if (!p->found) {
		struct slice_period q = *p;
		memset(p, 0, sizeof(*p));
		p->requests = q.requests;
		p->block = q.block;
		p->block_repeats = q.block_repeats;
		p->handoff = q.handoff;
		p->kept = q.kept;
	}
out:
	free(s);
	free(z);
	free(live);
	free(req);
	free(fre);
	return rc;
}

/* Event index of request k (k < requests). */
static size_t request_event(const struct trace *t, size_t k)
{
	for (size_t i = 0; i < t->nevents; i++) {
		uint8_t ty = t->events[i].type;
		if ((ty == TRACE_EV_ALLOC || ty == TRACE_EV_FREE) && k-- == 0)
			return i;
	}
	return t->nevents;
}

/* Where an iteration that starts with request k begins, in events. */
static size_t cut_before(const struct trace *t, size_t k)
{
	size_t at = request_event(t, k);
	size_t from = k ? request_event(t, k - 1) + 1 : 0;
	/* ranges still open at the request began after the last one closed */
	for (size_t i = from; i < at; i++)
		if (t->events[i].type == TRACE_EV_MARK &&
		    t->events[i].aux == TRACE_MARK_END)
			from = i + 1;
	for (size_t i = from; i < at; i++)
		if (t->events[i].type == TRACE_EV_MARK &&
		    t->events[i].aux == TRACE_MARK_BEGIN)
			return i;
	return at;
}

int slice_iteration(const struct trace *t, const struct slice_period *p,
		    size_t n, size_t *lo, size_t *hi, char *err, size_t errlen)
{
	if (!p->found && p->block && p->kept)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "one pass; no repeated iteration found: a block of %zu allocation requests repeats %zu times inside it, each keeping %llu more bytes live, as the layers of a forward pass with autograd on do; choose the iteration with --range NAME or --from-time/--to-time",
				    p->block, p->block_repeats,
				    (unsigned long long)p->kept);
	if (!p->found && p->block)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "one pass; no repeated iteration found: a block of %zu allocation requests repeats %zu times inside it, each handing %llu bytes to the next, as a model's layers do; choose the iteration with --range NAME or --from-time/--to-time",
				    p->block, p->block_repeats,
				    (unsigned long long)p->handoff);
	if (!p->found)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "no repeating pattern in its %zu allocation requests (none repeats twice over half of them); choose the iteration with --range NAME or --from-time/--to-time",
				    p->requests);
	if (n < 1 || n > p->iterations)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "iteration %zu does not exist: the trace holds %zu complete iterations of %zu allocation requests",
				    n, p->iterations, p->period);
	size_t b = p->first + (n - 1) * p->period, e = b + p->period;
	*lo = cut_before(t, b);
	*hi = e >= p->requests ? t->nevents : cut_before(t, e);
	return 0;
}

/* --- ranges and times ----------------------------------------------------- */

static int is_mark(const struct trace_event *e, const char *name, uint8_t aux)
{
	return e->type == TRACE_EV_MARK && e->aux == aux && e->name &&
	       strcmp(e->name, name) == 0;
}

/* Scans ranges named name; stops at the n-th (1-based) when n > 0. */
static size_t ranges(const struct trace *t, const char *name, size_t n,
		     size_t *lo, size_t *hi)
{
	size_t count = 0, depth = 0, begin = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (is_mark(e, name, TRACE_MARK_BEGIN)) {
			if (depth++ == 0)
				begin = i;
		} else if (depth && is_mark(e, name, TRACE_MARK_END)) {
			if (--depth == 0 && ++count == n) {
				*lo = begin;
				*hi = i + 1;
				return count;
			}
		}
	}
	return count;
}

size_t slice_count_ranges(const struct trace *t, const char *name)
{
	size_t lo, hi;
	return ranges(t, name, 0, &lo, &hi);
}

int slice_range(const struct trace *t, const char *name, size_t n,
		size_t *lo, size_t *hi, char *err, size_t errlen)
{
	size_t count = ranges(t, name, n, lo, hi);
	if (n >= 1 && count == n)
		return 0;
	return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "range '%s' number %zu does not exist: the trace holds %zu complete ranges of that name",
			    name, n, count);
}

int slice_time(const struct trace *t, int64_t from, int64_t to, size_t *lo,
	       size_t *hi, char *err, size_t errlen)
{
	int64_t last = TRACE_TIME_NONE;
	size_t a = t->nevents, b = t->nevents;
	int any = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		if (t->events[i].t_start != TRACE_TIME_NONE) {
			last = t->events[i].t_start;
			any = 1;
		}
		if (last == TRACE_TIME_NONE)
			continue;
		if (a == t->nevents && last >= from)
			a = i;
		if (b == t->nevents && last >= to)
			b = i;
	}
	if (!any)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "the trace has no timestamps; choose the iteration with --iteration or --range");
	if (b > t->nevents || a >= b)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "no event starts between time %lld and %lld",
				    (long long)from, (long long)to);
	*lo = a;
	*hi = b;
	return 0;
}

int slice_parse_time(const char *s, int64_t *v, int *relative)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char *end;
	errno = 0;
	long long whole = strtoll(s, &end, 10);
	if (end != s && !*end && !errno) {
		*v = whole;
		*relative = 0;
		return 0;
	}
	double d = strtod(s, &end);
	if (end == s || !(d >= 0))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit) && d * units[i].ns < 9e18) {
			*v = (int64_t)(d * units[i].ns + 0.5);
			*relative = 1;
			return 0;
		}
	return -1;
}

const char *slice_time_kind(const struct trace *t)
{
	const char *src = trace_get_meta(t, "source");
	if (t->clock == TRACE_CLOCK_TIME)
		return "abstract time units";
	if (!src)
		return "time of unknown kind";
	if (!strcmp(src, "pytorch-snapshot"))
		return "wall-clock time";
	if (!strcmp(src, "synthetic"))
		return "modelled GPU time";
	/* CUPTI's, nsys's and Kineto's timestamps are the GPU's */
	if (!strcmp(src, "memplan-capture") || !strcmp(src, "nsys-sqlite") ||
	    !strncmp(src, "pytorch-et", 10))
		return "GPU time";
	return "time of unknown kind";
}

int slice_time_span(const struct trace *t, int64_t *first, int64_t *last)
{
	int any = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		int64_t ts = t->events[i].t_start;
		if (ts == TRACE_TIME_NONE)
			continue;
		if (!any || ts < *first)
			*first = ts;
		if (!any || ts > *last)
			*last = ts;
		any = 1;
	}
	return any;
}

const char *slice_format_ns(int64_t ns, char *buf, size_t len)
{
	double a = (double)(ns < 0 ? -ns : ns);
	if (a >= 1e9)
		snprintf(buf, len, "%.3fs", (double)ns / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.3fms", (double)ns / 1e6);
	else if (a >= 1e3)
		snprintf(buf, len, "%.3fus", (double)ns / 1e3);
	else
		snprintf(buf, len, "%lldns", (long long)ns);
	return buf;
}

/* --- cutting -------------------------------------------------------------- */

int slice_cut(const struct trace *t, size_t lo, size_t hi, const char *note,
	      struct trace **out, char *err, size_t errlen)
{
	if (lo >= hi || hi > t->nevents)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "events %zu..%zu are not a window of the trace's %zu events",
				    lo, hi, t->nevents);
	struct trace *s = trace_new();
	int64_t *map = malloc((t->nbuffers + 1) * sizeof(*map));
	if (!s || !map) {
		trace_free(s);
		free(map);
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	}
	int rc = 0;
	for (size_t i = 0; i < t->nmeta && rc == 0; i++)
		rc = trace_set_meta(s, t->meta[i].key, t->meta[i].value);
	if (rc == 0 && note)
		rc = trace_set_meta(s, "slice", note);
	for (size_t i = 0; i < t->nbuffers && rc == 0; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		map[i] = TRACE_NONE;
		if ((b->alloc_ev != TRACE_NONE && (size_t)b->alloc_ev >= hi) ||
		    (b->free_ev != TRACE_NONE && (size_t)b->free_ev < lo))
			continue; /* not live in the window */
		int64_t id = trace_add_buffer(s, b);
		if (id < 0)
			rc = (int)id;
		map[i] = id;
	}
	int64_t base = t->events[lo].seq;
	for (size_t i = lo; i < hi && rc == 0; i++) {
		struct trace_event e = t->events[i];
		e.seq -= base;
		if (e.type == TRACE_EV_ALLOC || e.type == TRACE_EV_FREE)
			e.buffer = map[e.buffer];
		if (trace_add_event(s, &e) < 0) {
			rc = TRACE_ENOMEM;
			break;
		}
		for (uint32_t k = 0; k < t->events[i].nacc && rc == 0; k++) {
			const struct trace_access *a = &t->accesses[t->events[i].acc0 + k];
			rc = trace_add_access(s, map[a->buffer], a->mode);
		}
	}
	/* holes: clipped to the window on the clock */
	int64_t wlo = trace_event_clock(t, lo), whi = trace_event_clock(t, hi - 1) + 1;
	int64_t shift = t->clock == TRACE_CLOCK_SEQ ? base : 0;
	for (size_t i = 0; i < t->nholes && rc == 0; i++) {
		struct trace_hole h = t->holes[i];
		if (map[h.buffer] == TRACE_NONE)
			continue;
		if (h.lower < wlo)
			h.lower = wlo;
		if (h.upper > whi)
			h.upper = whi;
		if (h.lower >= h.upper)
			continue;
		h.buffer = map[h.buffer];
		h.lower -= shift;
		h.upper -= shift;
		rc = trace_add_hole(s, &h);
	}
	free(map);
	if (rc == 0) {
		char msg[400];
		rc = trace_finish(s, msg, sizeof(msg));
		if (rc)
			trace_seterr(err, errlen, rc, "the slice is not a valid trace: %s", msg);
	} else {
		trace_seterr(err, errlen, rc, "out of memory");
	}
	if (rc) {
		trace_free(s);
		return rc;
	}
	*out = s;
	return 0;
}
