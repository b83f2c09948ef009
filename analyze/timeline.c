/* SPDX-License-Identifier: MIT */
/*
 * timeline.c - turns a trace into the stacked steps of timeline.h.  Every
 * alloc, free and hole becomes a change of one group's bytes at one x; the
 * changes are sorted (what ends at x goes before what starts there, as for
 * the peak) and swept twice: once to rank the groups by the most they ever
 * hold, once to record the steps of the groups drawn.
 */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

#include "allocsim.h"
#include "report.h"
#include "slice.h"

static const char *const by_names[] = { "kind", "role", "label" };

const char *timeline_by_name(enum timeline_by by)
{
	return (unsigned)by < 3 ? by_names[by] : "?";
}

int timeline_by_from_name(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (s && strcmp(s, by_names[i]) == 0)
			return i;
	return -1;
}

enum timeline_by timeline_by_auto(const struct trace *t)
{
	int labelled = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		if (t->buffers[i].kind == TRACE_KIND_HOST)
			continue;
		if (t->buffers[i].role != TRACE_ROLE_UNKNOWN)
			return TIMELINE_BY_ROLE;
		labelled |= t->buffers[i].label != NULL;
	}
	return labelled ? TIMELINE_BY_LABEL : TIMELINE_BY_KIND;
}

void timeline_free(struct timeline *tl)
{
	for (size_t i = 0; i < tl->ngroups; i++)
		free(tl->groups[i].name);
	free(tl->groups);
	free(tl->x);
	free(tl->y);
	free(tl->buffers);
	free(tl->rx);
	free(tl->ry);
	free(tl->kernels);
	free(tl->ranges);
	free(tl->iters);
	memset(tl, 0, sizeof(*tl));
	tl->allocator = -1;
}

size_t timeline_step_at(const struct timeline *tl, int64_t x)
{
	size_t lo = 0, hi = tl->npoints;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tl->x[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

/* --- the axis ------------------------------------------------------------- */

/* Time axis only when every alloc and free has a timestamp. */
static enum timeline_axis pick_axis(const struct trace *t)
{
	if (t->clock == TRACE_CLOCK_TIME)
		return TIMELINE_AXIS_TIME;
	size_t timed = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (e->type != TRACE_EV_ALLOC && e->type != TRACE_EV_FREE)
			continue;
		if (e->t_start == TRACE_TIME_NONE)
			return TIMELINE_AXIS_SEQ;
		timed++;
	}
	return timed ? TIMELINE_AXIS_NS : TIMELINE_AXIS_SEQ;
}

static void axis_span(const struct trace *t, const struct report_digest *d,
		      struct timeline *tl)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	if (d && tl->axis == TIMELINE_AXIS_SEQ && d->nevents) {
		lo = d->seq_first;
		hi = d->seq_last;
	} else if (d && d->time_first != TRACE_TIME_NONE) {
		lo = d->time_first;
		hi = d->time_last;
	}
	for (size_t i = 0; !d && i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		int64_t a, b;
		if (tl->axis == TIMELINE_AXIS_SEQ) {
			a = b = e->seq;
		} else {
			a = e->t_start;
			b = tl->axis == TIMELINE_AXIS_NS && e->t_end != TRACE_TIME_NONE
				    ? e->t_end
				    : e->t_start;
			if (a == TRACE_TIME_NONE)
				continue;
		}
		if (a < lo)
			lo = a;
		if (b > hi)
			hi = b;
	}
	if (lo > hi)
		lo = hi = 0;
	if (hi <= lo)
		hi = lo + 1;
	tl->x_min = lo;
	tl->x_max = hi;
}

/* x of a clock value (holes): on the ns axis, the time of the first event
 * at or after it. */
static int64_t x_of_clock(const struct trace *t, const struct timeline *tl,
			  int64_t c)
{
	if (tl->axis != TIMELINE_AXIS_NS)
		return c < tl->x_min ? tl->x_min : c > tl->x_max ? tl->x_max : c;
	size_t lo = 0, hi = t->nevents;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->events[mid].seq < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->nevents || t->events[lo].t_start == TRACE_TIME_NONE)
		return tl->x_max;
	return t->events[lo].t_start;
}

/* Lifetime of b on the axis; empty when x0 >= x1. */
static void x_span(const struct trace *t, const struct timeline *tl,
		   const struct trace_buffer *b, int64_t *x0, int64_t *x1)
{
	if (tl->axis == TIMELINE_AXIS_NS) {
		*x0 = b->alloc_ev == TRACE_NONE ? tl->x_min
						: t->events[b->alloc_ev].t_start;
		*x1 = b->free_ev == TRACE_NONE ? tl->x_max
					       : t->events[b->free_ev].t_start;
		return;
	}
	int64_t lo, hi;
	trace_lifetime(t, b, &lo, &hi);
	if (lo >= hi) {
		*x0 = *x1 = 0;
		return;
	}
	*x0 = lo == INT64_MIN ? tl->x_min : lo;
	*x1 = hi == INT64_MAX ? tl->x_max : hi;
}

/* --- groups ----------------------------------------------------------------- */

struct gname {
	char *name;
	uint32_t buf;
};

static int gname_cmp(const void *a, const void *b)
{
	const struct gname *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->buf > y->buf) - (x->buf < y->buf);
}

/*
 * Gives every buffer a group (*gid) and returns the group names (*names,
 * *n).  Kinds and roles are fixed lists; label groups are sorted names.
 */
static int assign_groups(const struct trace *t, enum timeline_by by,
			 uint32_t *gid, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	if (by != TIMELINE_BY_LABEL) {
		size_t count = by == TIMELINE_BY_KIND ? TRACE_KIND_COUNT : TRACE_ROLE_COUNT;
		char **nm = calloc(count, sizeof(*nm));
		if (!nm)
			return TRACE_ENOMEM;
		for (size_t i = 0; i < count; i++)
			if (!(nm[i] = strdup(by == TIMELINE_BY_KIND ? trace_kind_name((unsigned)i)
								     : trace_role_name((unsigned)i)))) {
				*names = nm;
				*n = i;
				return TRACE_ENOMEM;
			}
		for (size_t i = 0; i < t->nbuffers; i++)
			gid[i] = by == TIMELINE_BY_KIND ? t->buffers[i].kind : t->buffers[i].role;
		*names = nm;
		*n = count;
		return 0;
	}
	struct gname *g = calloc(t->nbuffers + 1, sizeof(*g));
	char **nm = calloc(t->nbuffers + 1, sizeof(*nm));
	int rc = 0;
	if (!g || !nm)
		rc = TRACE_ENOMEM;
	for (size_t i = 0; rc == 0 && i < t->nbuffers; i++) {
		char buf[256];
		report_label_group(t->buffers[i].label, buf, sizeof(buf));
		g[i].buf = (uint32_t)i;
		if (!(g[i].name = strdup(buf)))
			rc = TRACE_ENOMEM;
	}
	size_t m = 0;
	if (rc == 0) {
		qsort(g, t->nbuffers, sizeof(*g), gname_cmp);
		for (size_t i = 0; i < t->nbuffers; i++) {
			if (m == 0 || strcmp(nm[m - 1], g[i].name) != 0)
				nm[m++] = g[i].name;
			else
				free(g[i].name);
			g[i].name = NULL;
			gid[g[i].buf] = (uint32_t)(m - 1);
		}
	}
	for (size_t i = 0; g && i < t->nbuffers; i++)
		free(g[i].name);
	free(g);
	*names = nm;
	*n = m;
	return rc;
}

/* FNV-1a of a label group's name: its colour key, the same in every chart */
static uint32_t name_key(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h == TIMELINE_KEY_OTHER ? 0 : h;
}

/*
 * Label groups take the palette slot of their name's hash, or the next free
 * one when a larger group took it, so no two drawn groups look alike while
 * there are colours left (keys become slots, below TIMELINE_LABEL_COLORS).
 */
static void distinct_colors(struct timeline_group *g, size_t n)
{
	int used[TIMELINE_LABEL_COLORS] = { 0 };
	for (size_t k = 0; k < n; k++) {
		uint32_t c = g[k].key % TIMELINE_LABEL_COLORS;
		for (int tries = 0; used[c] && tries < TIMELINE_LABEL_COLORS; tries++)
			c = (c + 1) % TIMELINE_LABEL_COLORS;
		used[c] = 1;
		g[k].key = c;
	}
}

/* --- the sweep ------------------------------------------------------------- */

struct change {
	int64_t x;
	int64_t delta;
	uint32_t group;
};

static int change_cmp(const void *a, const void *b)
{
	const struct change *p = a, *q = b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return (p->delta > q->delta) - (p->delta < q->delta);
}

struct rank {
	uint64_t at_peak, max;
	uint32_t group;
};

static int rank_cmp(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;
	if (x->at_peak != y->at_peak)
		return x->at_peak > y->at_peak ? -1 : 1;
	if (x->max != y->max)
		return x->max > y->max ? -1 : 1;
	return (x->group > y->group) - (x->group < y->group);
}

/*
 * How many of the ranked groups are drawn by name: top, all of them when
 * only one would be left for "other", and more (up to the limit) while
 * "other" would hold most of the peak: a legend whose largest entry is
 * "other" tells nothing.
 */
static size_t draw_count(const struct rank *order, size_t nused, size_t top,
			 uint64_t peak)
{
	if (nused <= top + 1)
		return nused;
	uint64_t rest = 0;
	for (size_t k = top; k < nused; k++)
		rest += order[k].at_peak;
	size_t n = top;
	while (rest > peak / 2 && n + 1 < TIMELINE_MAX_GROUPS && n < nused)
		rest -= order[n++].at_peak;
	return nused <= n + 1 ? nused : n;
}

static int buf_cmp(const void *a, const void *b)
{
	const struct timeline_buffer *p = a, *q = b;
	if (p->group != q->group)
		return p->group < q->group ? -1 : 1;
	if (p->x0 != q->x0)
		return p->x0 < q->x0 ? -1 : 1;
	return (p->id > q->id) - (p->id < q->id);
}

static int size_cmp(const void *a, const void *b)
{
	const struct timeline_buffer *p = a, *q = b;
	if (p->size != q->size)
		return p->size > q->size ? -1 : 1;
	return (p->id > q->id) - (p->id < q->id);
}

/* --- the reserved curve ------------------------------------------------------ */

struct reserved_sweep {
	const struct trace *t;
	struct timeline *tl;
	double width; /* of a column, in axis units */
	size_t cap;
	int64_t col;
};

/* One step of the allocator model: a new column starts a step, a change
 * within the column keeps its most. */
static void reserved_step(void *ctx, size_t i, uint64_t reserved)
{
	struct reserved_sweep *w = ctx;
	struct timeline *tl = w->tl;
	int64_t x = tl->x_min;
	if (i != SIZE_MAX) {
		const struct trace_event *e = &w->t->events[i];
		if (tl->axis == TIMELINE_AXIS_NS) {
			if (e->t_start == TRACE_TIME_NONE)
				return;
			x = e->t_start;
		} else {
			x = trace_event_clock(w->t, i);
		}
		x = x < tl->x_min ? tl->x_min : x > tl->x_max ? tl->x_max : x;
	}
	if (reserved > tl->reserved_peak)
		tl->reserved_peak = reserved;
	int64_t c = (int64_t)((double)(x - tl->x_min) / w->width);
	if (tl->nreserved && (c == w->col || tl->nreserved == w->cap)) {
		if (reserved > tl->ry[tl->nreserved - 1])
			tl->ry[tl->nreserved - 1] = reserved;
		return;
	}
	w->col = c;
	tl->rx[tl->nreserved] = x;
	tl->ry[tl->nreserved++] = reserved;
}

/*
 * Replays the allocator model over t into tl's reserved curve (a streamed
 * trace keeps its allocs and frees, all the model reads).  Returns 0 or a
 * negative trace_err with a sentence in err.
 */
static int reserved_curve(const struct trace *t, int model, size_t max_points,
			  struct timeline *tl, char *err, size_t errlen)
{
	tl->allocator = -1;
	if (model < 0 || !t->nevents)
		return 0;
	struct reserved_sweep w = { t, tl, 0, max_points + 1, -1 };
	w.width = (double)(tl->x_max - tl->x_min) / (double)max_points;
	if (!(tl->rx = malloc(w.cap * sizeof(*tl->rx))) ||
	    !(tl->ry = malloc(w.cap * sizeof(*tl->ry))))
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory building the timeline");
	struct allocsim_result r;
	int rc = allocsim_run_each(t, (enum allocsim_model)model, &r, reserved_step, &w, err, errlen);
	if (rc)
		return rc;
	tl->allocator = model;
	return 0;
}

/* --- the lanes ------------------------------------------------------------------ */

/* Where event i starts and ends on the axis; 0 when it has no place. */
static int event_x(const struct trace *t, const struct timeline *tl, size_t i,
		   int64_t *x0, int64_t *x1)
{
	const struct trace_event *e = &t->events[i];
	if (tl->axis == TIMELINE_AXIS_NS) {
		if (e->t_start == TRACE_TIME_NONE)
			return 0;
		*x0 = e->t_start;
		*x1 = e->t_end == TRACE_TIME_NONE || e->t_end < e->t_start ? e->t_start : e->t_end;
	} else {
		*x0 = *x1 = trace_event_clock(t, i);
	}
	*x0 = *x0 < tl->x_min ? tl->x_min : *x0 > tl->x_max ? tl->x_max : *x0;
	*x1 = *x1 < *x0 ? *x0 : *x1 > tl->x_max ? tl->x_max : *x1;
	return 1;
}

static int span_order(const void *a, const void *b)
{
	const struct timeline_span *p = a, *q = b;
	if (p->depth != q->depth)
		return p->depth < q->depth ? -1 : 1;
	int64_t lp = p->x1 - p->x0, lq = q->x1 - q->x0;
	if (lp != lq)
		return lp > lq ? -1 : 1;
	return (p->x0 > q->x0) - (p->x0 < q->x0);
}

/*
 * The kernel lane (kernels merged when they touch the same or the next of
 * max_points columns, so at most max_points bars) and the NVTX lanes
 * (BEGIN and END marks paired last in, first out; the outermost and then
 * longest TIMELINE_MAX_RANGES of the first TIMELINE_RANGE_DEPTHS levels).
 * A streamed trace holds no kernels or marks: no lanes.  0 or TRACE_ENOMEM.
 */
static int lanes(const struct trace *t, size_t max_points, struct timeline *tl)
{
	size_t nk = 0, nm = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		nk += t->events[i].type == TRACE_EV_KERNEL;
		nm += t->events[i].type == TRACE_EV_MARK;
	}
	double width = (double)(tl->x_max - tl->x_min) / (double)max_points;
	if (nk && !(tl->kernels = malloc((max_points + 2) * sizeof(*tl->kernels))))
		return TRACE_ENOMEM;
	int64_t last_col = -2;
	for (size_t i = 0; nk && i < t->nevents; i++) {
		int64_t x0, x1;
		if (t->events[i].type != TRACE_EV_KERNEL || !event_x(t, tl, i, &x0, &x1))
			continue;
		int64_t c0 = (int64_t)((double)(x0 - tl->x_min) / width);
		int64_t c1 = (int64_t)((double)(x1 - tl->x_min) / width);
		struct timeline_span *k = tl->nkernels ? &tl->kernels[tl->nkernels - 1] : NULL;
		if (k && (c0 <= last_col + 1 || tl->nkernels == max_points + 2)) {
			if (x1 > k->x1)
				k->x1 = x1;
			k->count++;
		} else {
			tl->kernels[tl->nkernels++] =
				(struct timeline_span){ x0, x1, t->events[i].name, 1, 0 };
		}
		if (c1 > last_col)
			last_col = c1;
	}
	if (!nm)
		return 0;
	struct timeline_span *open = malloc(nm * sizeof(*open));
	struct timeline_span *all = malloc(nm * sizeof(*all));
	if (!open || !all) {
		free(open);
		free(all);
		return TRACE_ENOMEM;
	}
	size_t nopen = 0, nall = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		int64_t x0, x1;
		if (e->type != TRACE_EV_MARK || !event_x(t, tl, i, &x0, &x1))
			continue;
		if (e->aux == TRACE_MARK_BEGIN) {
			open[nopen] = (struct timeline_span){ x0, x0, e->name, 1, (uint32_t)nopen };
			nopen++;
		} else if (e->aux == TRACE_MARK_END && nopen) {
			struct timeline_span r = open[--nopen];
			r.x1 = x1;
			if (r.depth < TIMELINE_RANGE_DEPTHS && r.x1 > r.x0)
				all[nall++] = r;
		}
	}
	free(open);
	qsort(all, nall, sizeof(*all), span_order);
	tl->ranges = all;
	tl->nranges = nall < TIMELINE_MAX_RANGES ? nall : TIMELINE_MAX_RANGES;
	for (size_t i = 0; i < tl->nranges; i++)
		if (all[i].depth + 1 > tl->range_depths)
			tl->range_depths = all[i].depth + 1;
	return 0;
}

/*
 * Where each iteration starts, when the allocation requests repeat (a
 * snapshot of several training steps, slice.h): iteration n + 1 starts at
 * iters[n].  A trace read whole only (a streamed one keeps no order of
 * events to cut).  0 or TRACE_ENOMEM.
 */
static int iterations(const struct trace *t, struct timeline *tl)
{
	struct slice_period p;
	if (slice_detect(t, &p))
		return TRACE_ENOMEM;
	if (!p.found || p.iterations < 2)
		return 0;
	size_t n = p.iterations < TIMELINE_MAX_ITERS ? p.iterations : TIMELINE_MAX_ITERS;
	if (!(tl->iters = malloc(n * sizeof(*tl->iters))))
		return TRACE_ENOMEM;
	for (size_t k = 0; k < n; k++) {
		size_t lo, hi;
		int64_t x0, x1;
		char err[256];
		if (slice_iteration(t, &p, k + 1, &lo, &hi, err, sizeof(err)) ||
		    lo >= t->nevents || !event_x(t, tl, lo, &x0, &x1))
			break;
		tl->iters[tl->niters++] = x0;
	}
	return 0;
}

int timeline_build(const struct trace *t, const struct report_digest *d,
		   const struct timeline_opts *o, struct timeline *tl,
		   char *err, size_t errlen)
{
	memset(tl, 0, sizeof(*tl));
	tl->allocator = -1;
	if (!t->finished)
		return trace_seterr(err, errlen, TRACE_EINVAL, "the trace is not finished");
	tl->by = o->by;
	tl->axis = pick_axis(t);
	axis_span(t, d, tl);
	size_t top = o->top < 1 ? 1 : o->top >= TIMELINE_MAX_GROUPS ? TIMELINE_MAX_GROUPS - 1 : o->top;
	size_t max_points = o->max_points < 16 ? 16 : o->max_points;

	int rc = 0;
	uint32_t *gid = malloc((t->nbuffers + 1) * sizeof(*gid));
	struct change *ch = malloc((2 * t->nbuffers + 2 * t->nholes + 1) * sizeof(*ch));
	char **names = NULL;
	size_t nnames = 0;
	uint64_t *cur = NULL, *gmax = NULL;
	struct rank *order = NULL;
	uint32_t *drawn = NULL;
	if (!gid || !ch)
		rc = TRACE_ENOMEM;
	if (rc == 0)
		rc = assign_groups(t, o->by, gid, &names, &nnames);
	if (rc == 0 && (!(cur = calloc(nnames + 1, sizeof(*cur))) ||
			!(gmax = calloc(nnames + 1, sizeof(*gmax))) ||
			!(order = malloc((nnames + 1) * sizeof(*order))) ||
			!(drawn = malloc((nnames + 1) * sizeof(*drawn)))))
		rc = TRACE_ENOMEM;

	/* the changes */
	size_t nch = 0;
	for (size_t i = 0; rc == 0 && i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		int64_t x0, x1;
		if (b->kind == TRACE_KIND_HOST)
			continue; /* pinned host memory is not the device's */
		x_span(t, tl, b, &x0, &x1);
		if (x0 >= x1)
			continue;
		tl->nbuffers_total++;
		ch[nch++] = (struct change){ x0, (int64_t)b->size, gid[i] };
		ch[nch++] = (struct change){ x1, -(int64_t)b->size, gid[i] };
		for (uint32_t k = 0; k < b->nholes; k++) {
			const struct trace_hole *h = &t->holes[b->hole0 + k];
			int64_t h0 = x_of_clock(t, tl, h->lower), h1 = x_of_clock(t, tl, h->upper);
			if (h0 < x0)
				h0 = x0;
			if (h1 > x1)
				h1 = x1;
			if (h0 >= h1)
				continue;
			int64_t away = (int64_t)b->size;
			if (h->win_lo != TRACE_NONE)
				away -= h->win_hi - h->win_lo;
			ch[nch++] = (struct change){ h0, -away, gid[i] };
			ch[nch++] = (struct change){ h1, away, gid[i] };
		}
	}
	if (rc == 0)
		qsort(ch, nch, sizeof(*ch), change_cmp);

	/* pass 1: the most each group holds, the peak, distinct x values */
	size_t distinct = 0;
	uint64_t total = 0;
	for (size_t i = 0; rc == 0 && i < nch;) {
		size_t j = i;
		while (j < nch && ch[j].x == ch[i].x) {
			cur[ch[j].group] += (uint64_t)ch[j].delta;
			total += (uint64_t)ch[j].delta;
			if (cur[ch[j].group] > gmax[ch[j].group])
				gmax[ch[j].group] = cur[ch[j].group];
			j++;
		}
		distinct++;
		if (total > tl->peak) {
			tl->peak = total;
			tl->peak_x = ch[i].x;
		}
		i = j;
	}
	if (tl->peak == 0)
		tl->peak_x = tl->x_min;

	/* each group's bytes at the peak: the changes up to it, again */
	if (rc == 0)
		memset(cur, 0, (nnames + 1) * sizeof(*cur));
	for (size_t i = 0; rc == 0 && i < nch && ch[i].x <= tl->peak_x; i++)
		cur[ch[i].group] += (uint64_t)ch[i].delta;

	/* the groups drawn: those that ever hold bytes, the largest at the
	 * peak first (the legend's figures), then by the most they hold */
	size_t nused = 0;
	for (size_t g = 0; rc == 0 && g < nnames; g++)
		if (gmax[g])
			order[nused++] = (struct rank){ cur[g], gmax[g], (uint32_t)g };
	if (rc == 0)
		qsort(order, nused, sizeof(*order), rank_cmp);
	size_t ndraw = draw_count(order, nused, top, tl->peak);
	tl->has_other = nused > ndraw;
	tl->ngroups = ndraw + (size_t)tl->has_other;
	if (rc == 0 && !(tl->groups = calloc(tl->ngroups + 1, sizeof(*tl->groups))))
		rc = TRACE_ENOMEM;
	for (size_t g = 0; rc == 0 && g < nnames; g++)
		drawn[g] = (uint32_t)ndraw; /* "other" unless ranked */
	for (size_t k = 0; rc == 0 && k < ndraw; k++) {
		drawn[order[k].group] = (uint32_t)k;
		tl->groups[k].name = names[order[k].group];
		tl->groups[k].max_bytes = order[k].max;
		tl->groups[k].key = o->by == TIMELINE_BY_LABEL ? name_key(names[order[k].group])
							       : order[k].group;
		names[order[k].group] = NULL;
	}
	if (rc == 0 && o->by == TIMELINE_BY_LABEL)
		distinct_colors(tl->groups, ndraw);
	if (rc == 0 && tl->has_other && !(tl->groups[ndraw].name = strdup("other")))
		rc = TRACE_ENOMEM;
	if (rc == 0 && tl->has_other)
		tl->groups[ndraw].key = TIMELINE_KEY_OTHER;

	/* pass 2: the steps of the drawn groups */
	size_t G = tl->ngroups, cap = (distinct < max_points ? distinct : max_points) + 1;
	uint64_t *gcur = NULL;
	if (rc == 0 && (!(tl->x = malloc(cap * sizeof(*tl->x))) ||
			!(tl->y = calloc(cap * (G ? G : 1), sizeof(*tl->y))) ||
			!(gcur = calloc(G + 1, sizeof(*gcur)))))
		rc = TRACE_ENOMEM;
	double width = (double)(tl->x_max - tl->x_min) / (double)max_points;
	int64_t col = -1;
	uint64_t best = 0;
	total = 0;
	for (size_t i = 0; rc == 0 && i < nch;) {
		size_t j = i;
		while (j < nch && ch[j].x == ch[i].x) {
			uint32_t g = drawn[ch[j].group];
			gcur[g] += (uint64_t)ch[j].delta;
			total += (uint64_t)ch[j].delta;
			j++;
		}
		int64_t c = distinct <= max_points
				    ? (int64_t)tl->npoints
				    : (int64_t)((double)(ch[i].x - tl->x_min) / width);
		if (c != col && tl->npoints < cap) {
			col = c;
			tl->x[tl->npoints] = ch[i].x;
			memcpy(&tl->y[tl->npoints * G], gcur, G * sizeof(*gcur));
			tl->npoints++;
			best = total;
		} else if (total > best) {
			memcpy(&tl->y[(tl->npoints - 1) * G], gcur, G * sizeof(*gcur));
			best = total;
		}
		if (ch[i].x == tl->peak_x)
			for (size_t g = 0; g < G; g++)
				tl->groups[g].at_peak = gcur[g];
		i = j;
	}
	if (rc == 0 && tl->has_other) {
		/* the most "other" ever holds, from the steps */
		uint64_t m = 0;
		for (size_t p = 0; p < tl->npoints; p++)
			if (tl->y[p * G + ndraw] > m)
				m = tl->y[p * G + ndraw];
		tl->groups[ndraw].max_bytes = m;
	}

	/* the largest buffers, listed for hovering (never one with holes:
	 * its band would not be one rectangle of the stack) */
	size_t nlist = 0;
	if (rc == 0 && o->max_buffers &&
	    !(tl->buffers = malloc((tl->nbuffers_total + 1) * sizeof(*tl->buffers))))
		rc = TRACE_ENOMEM;
	for (size_t i = 0; rc == 0 && o->max_buffers && i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		int64_t x0, x1;
		x_span(t, tl, b, &x0, &x1);
		if (x0 >= x1 || b->nholes || b->kind == TRACE_KIND_HOST)
			continue;
		tl->buffers[nlist++] = (struct timeline_buffer){ b->id, b->size, x0, x1,
								  drawn[gid[i]] };
	}
	if (rc == 0 && nlist) {
		qsort(tl->buffers, nlist, sizeof(*tl->buffers), size_cmp);
		tl->nbuffers = nlist < o->max_buffers ? nlist : o->max_buffers;
		qsort(tl->buffers, tl->nbuffers, sizeof(*tl->buffers), buf_cmp);
	}

	if (rc == 0)
		rc = lanes(t, max_points, tl);
	if (rc == 0 && !d && !tl->nranges)
		rc = iterations(t, tl); /* NVTX ranges name the steps themselves */
	if (rc == 0)
		rc = trace_peak_checked(t, TRACE_HOST, &tl->host_peak, NULL, err,
					errlen);
	int rrc = rc == 0 ? reserved_curve(t, o->allocator, max_points, tl, err, errlen) : 0;
	for (size_t g = 0; names && g < nnames; g++)
		free(names[g]);
	free(names);
	free(gid);
	free(ch);
	free(cur);
	free(gmax);
	free(order);
	free(drawn);
	free(gcur);
	if (rc) {
		timeline_free(tl);
		return trace_seterr(err, errlen, rc, "out of memory building the timeline");
	}
	if (rrc) {
		timeline_free(tl);
		return rrc;
	}
	return 0;
}
