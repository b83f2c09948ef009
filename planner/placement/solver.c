/* SPDX-License-Identifier: MIT */
/*
 * solver.c - the placement problem shared by every strategy: extraction from
 * a trace, validation, pieces, the lower bound, the checker, and the
 * alignment of a trace's plan.  The strategies stand on it
 * (solver_heuristics.c, solver_exact.c) and solver_solve.c on them; it calls
 * none of them.  The checker is deliberately independent of the occupancy tree
 * the strategies use (a plain sweep), so a bug there cannot vouch for itself.
 */
#include "solver.h"
#include "alloc_clock.h"
#include "plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


/* --- time coordinates -------------------------------------------------- */

int solver_time_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

size_t solver_time_rank(const int64_t *v, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* --- problems ---------------------------------------------------------- */

void solver_problem_free(struct solver_problem *p)
{
	free(p->items);
	free(p->hole_store);
	memset(p, 0, sizeof(*p));
}

uint64_t solver_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

int solver_problem_align(struct solver_problem *p, uint64_t align, char *err,
			 size_t errlen)
{
	for (size_t i = 0; i < p->n; i++) {
		struct solver_item *it = &p->items[i];
		uint64_t g = solver_gcd(it->align, align);
		uint64_t m = it->align / g;
		if (m > (UINT64_C(1) << 62) / align)
			return trace_seterr(err, errlen, SOLVER_EINVAL,
					    "buffer %lld: alignment %llu and --align %llu need more than 2^62",
					    (long long)it->buffer,
					    (unsigned long long)it->align,
					    (unsigned long long)align);
		it->align = m * align;
	}
	return 0;
}

void solver_problem_drop_holes(struct solver_problem *p)
{
	for (size_t i = 0; i < p->n; i++) {
		p->items[i].holes = NULL;
		p->items[i].nholes = 0;
	}
}

static int validate_items(const struct solver_problem *p, size_t *bad,
			  char *err, size_t errlen);

/*
 * Where buffer id of t comes from, for a refusal: its label, and for a
 * MiniMalloc CSV import (not sliced since: ids are then the records in
 * file order, one a line after the header) the file and line.
 */
static void buffer_origin(const struct trace *t, int64_t id, char *buf,
			  size_t len)
{
	const struct trace_buffer *b = &t->buffers[id];
	const char *src = trace_get_meta(t, "source");
	const char *file = trace_get_meta(t, "source_file");
	if (src && strcmp(src, "minimalloc-csv") == 0 && file &&
	    !trace_get_meta(t, "slice"))
		snprintf(buf, len, " (MiniMalloc CSV '%s', line %lld, id '%s')",
			 file, (long long)id + 2, b->label ? b->label : "");
	else if (b->label)
		snprintf(buf, len, " ('%s')", b->label);
	else
		buf[0] = 0;
}

int solver_problem_from_trace(const struct trace *t, struct solver_problem *p,
			      char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	if (!t->finished)
		return trace_seterr(err, errlen, SOLVER_EINVAL,
			    "the trace is not finished (call trace_finish first)");
	size_t n = 0, nh = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		if (!trace_buffer_poolable(b))
			continue;
		n++;
		nh += b->nholes;
	}
	if (n) {
		p->items = calloc(n, sizeof(*p->items));
		if (!p->items)
			goto nomem;
	}
	if (nh) {
		p->hole_store = calloc(nh, sizeof(*p->hole_store));
		if (!p->hole_store)
			goto nomem;
	}
	size_t k = 0, kh = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		if (!trace_buffer_poolable(b))
			continue;
		struct solver_item *it = &p->items[k++];
		it->size = b->size;
		it->align = b->align ? b->align : 1;
		trace_lifetime(t, b, &it->lower, &it->upper);
		it->fixed_offset = b->fixed_offset >= 0 ? b->fixed_offset
							: SOLVER_FREE;
		it->buffer = b->id;
		it->holes = b->nholes ? &p->hole_store[kh] : NULL;
		it->nholes = b->nholes;
		for (uint32_t j = 0; j < b->nholes; j++) {
			const struct trace_hole *h = &t->holes[b->hole0 + j];
			struct solver_hole *s = &p->hole_store[kh++];
			s->lower = h->lower;
			s->upper = h->upper;
			s->win_lo = h->win_lo == TRACE_NONE ? SOLVER_NO_WINDOW
							    : h->win_lo;
			s->win_hi = h->win_hi == TRACE_NONE ? SOLVER_NO_WINDOW
							    : h->win_hi;
		}
	}
	p->n = n;
	p->nhole_store = nh;
	/* refuse values no plan can hold here, where the buffer's origin
	 * (file and row) is known */
	size_t bad;
	char why[384], where[320];
	int rc = validate_items(p, &bad, why, sizeof(why));
	if (rc) {
		buffer_origin(t, p->items[bad].buffer, where, sizeof(where));
		solver_problem_free(p);
		return trace_seterr(err, errlen, rc, "%s%s", why, where);
	}
	return 0;
nomem:
	solver_problem_free(p);
	return trace_seterr(err, errlen, SOLVER_ENOMEM,
		    "out of memory extracting %zu buffers", n);
}

/* the one bound on bytes, shared with the trace model (trace.h) */
#define SOLVER_LIMIT TRACE_BYTES_LIMIT

/* Names an item in messages: its trace buffer id when it has one. */
static long long item_name(const struct solver_problem *p, size_t i)
{
	return p->items[i].buffer >= 0 ? (long long)p->items[i].buffer
				       : (long long)i;
}

int solver_problem_validate(const struct solver_problem *p, char *err,
			    size_t errlen)
{
	size_t bad;
	return validate_items(p, &bad, err, errlen);
}

/* solver_problem_validate(), and the item at fault in *bad. */
static int validate_items(const struct solver_problem *p, size_t *bad,
			  char *err, size_t errlen)
{
	*bad = 0;
	if (p->n && !p->items)
		return trace_seterr(err, errlen, SOLVER_EINVAL,
			    "the problem has %zu items but no item array", p->n);
	uint64_t total = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct solver_item *it = &p->items[i];
		long long id = item_name(p, i);
		*bad = i;
		if (it->size == 0 || it->size >= SOLVER_LIMIT)
			return trace_seterr(err, errlen, SOLVER_EINVAL,
				    "buffer %lld: size %llu is not between 1 and 2^62",
				    id, (unsigned long long)it->size);
		if (it->align == 0 || it->align >= SOLVER_LIMIT)
			return trace_seterr(err, errlen, SOLVER_EINVAL,
				    "buffer %lld: alignment %llu is not between 1 and 2^62",
				    id, (unsigned long long)it->align);
		if (it->lower > it->upper)
			return trace_seterr(err, errlen, SOLVER_EINVAL,
				    "buffer %lld: lifetime [%lld, %lld) ends before it starts",
				    id, (long long)it->lower, (long long)it->upper);
		if (it->fixed_offset != SOLVER_FREE) {
			if (it->fixed_offset < 0 ||
			    (uint64_t)it->fixed_offset >= SOLVER_LIMIT)
				return trace_seterr(err, errlen, SOLVER_EINVAL,
					    "buffer %lld: fixed offset %lld is out of range",
					    id, (long long)it->fixed_offset);
			if ((uint64_t)it->fixed_offset % it->align)
				return trace_seterr(err, errlen, SOLVER_EINVAL,
					    "buffer %lld: fixed offset %lld is not a multiple of its alignment %llu",
					    id, (long long)it->fixed_offset,
					    (unsigned long long)it->align);
			total += (uint64_t)it->fixed_offset;
		}
		total += it->size + it->align;
		if (total >= SOLVER_LIMIT)
			return trace_seterr(err, errlen, SOLVER_EINVAL,
				    "buffer %lld: the sizes, alignments and fixed offsets add up to 2^62 or more",
				    id);
		if (it->nholes && !it->holes)
			return trace_seterr(err, errlen, SOLVER_EINVAL,
				    "buffer %lld: %u holes but no hole array", id,
				    (unsigned)it->nholes);
		int64_t prev = it->lower;
		for (uint32_t j = 0; j < it->nholes; j++) {
			const struct solver_hole *h = &it->holes[j];
			if (h->lower >= h->upper || h->lower < prev ||
			    h->upper > it->upper)
				return trace_seterr(err, errlen, SOLVER_EINVAL,
					    "buffer %lld: hole [%lld, %lld) is empty, overlaps the previous hole or lies outside the lifetime [%lld, %lld)",
					    id, (long long)h->lower,
					    (long long)h->upper, (long long)it->lower,
					    (long long)it->upper);
			prev = h->upper;
			int none = h->win_lo == SOLVER_NO_WINDOW &&
				   h->win_hi == SOLVER_NO_WINDOW;
			if (!none && (h->win_lo < 0 || h->win_lo >= h->win_hi ||
				      (uint64_t)h->win_hi > it->size))
				return trace_seterr(err, errlen, SOLVER_EINVAL,
					    "buffer %lld: window [%lld, %lld) of hole [%lld, %lld) is not inside its %llu bytes",
					    id, (long long)h->win_lo,
					    (long long)h->win_hi, (long long)h->lower,
					    (long long)h->upper,
					    (unsigned long long)it->size);
		}
	}
	return 0;
}

int solver_problem_pieces(const struct solver_problem *p,
			  struct solver_piece **pieces, size_t **first)
{
	size_t np = 0;
	for (size_t i = 0; i < p->n; i++)
		np += 1 + 2 * (size_t)p->items[i].nholes;
	struct solver_piece *pc = malloc((np ? np : 1) * sizeof(*pc));
	size_t *fi = malloc((p->n + 1) * sizeof(*fi));
	if (!pc || !fi) {
		free(pc);
		free(fi);
		return SOLVER_ENOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct solver_item *it = &p->items[i];
		fi[i] = k;
		int64_t at = it->lower;
		for (uint32_t j = 0; j < it->nholes; j++) {
			const struct solver_hole *h = &it->holes[j];
			if (h->lower > at)
				pc[k++] = (struct solver_piece){
					at, h->lower, 0, it->size, (uint32_t)i };
			if (h->win_lo != SOLVER_NO_WINDOW)
				pc[k++] = (struct solver_piece){
					h->lower, h->upper, (uint64_t)h->win_lo,
					(uint64_t)h->win_hi, (uint32_t)i };
			at = h->upper;
		}
		if (it->upper > at)
			pc[k++] = (struct solver_piece){ at, it->upper, 0,
							 it->size, (uint32_t)i };
	}
	fi[p->n] = k;
	*pieces = pc;
	*first = fi;
	return 0;
}

/* --- lower bound ------------------------------------------------------- */

uint64_t solver_lower_bound(const struct solver_problem *p)
{
	struct solver_piece *pc;
	size_t *fi;
	if (p->n == 0 || solver_problem_validate(p, NULL, 0) ||
	    solver_problem_pieces(p, &pc, &fi))
		return 0;
	size_t np = fi[p->n];
	free(fi);
	struct trace_delta *d = malloc((2 * np + 1) * sizeof(*d));
	if (!d) {
		free(pc);
		return 0;
	}
	for (size_t i = 0; i < np; i++) {
		int64_t bytes = (int64_t)(pc[i].hi - pc[i].lo);
		d[2 * i] = (struct trace_delta){ pc[i].lower, bytes };
		d[2 * i + 1] = (struct trace_delta){ pc[i].upper, -bytes };
	}
	free(pc);
	uint64_t best = trace_delta_peak(d, 2 * np);
	free(d);
	return best;
}

/* A piece's start or end; at one time, ends sort before starts. */
struct lb_event {
	int64_t t;
	uint32_t piece;
	int start;
};

static int lb_event_cmp(const void *x, const void *y)
{
	const struct lb_event *a = x, *b = y;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->start != b->start)
		return a->start - b->start;
	return (a->piece > b->piece) - (a->piece < b->piece);
}

/*
 * Every offset is a multiple of a, the gcd of the alignments, so in any
 * placement the live items at one instant, listed by offset, start at
 * least a rounded-up size above each other: the height is at least the sum
 * of the live sizes rounded up to a, less the largest rounding among them
 * (the topmost one's is not needed).  Windows break this (a window's bytes
 * may start anywhere): then, and for a <= 1, it is the plain bound.
 */
uint64_t solver_lower_bound_aligned(const struct solver_problem *p)
{
	uint64_t lb = solver_lower_bound(p);
	if (lb == 0)
		return 0;
	uint64_t a = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct solver_item *it = &p->items[i];
		a = solver_gcd(a, it->align);
		for (uint32_t k = 0; k < it->nholes; k++)
			if (it->holes[k].win_lo != SOLVER_NO_WINDOW)
				return lb;
	}
	if (a <= 1 || a > 65536)
		return lb;
	struct solver_piece *pc;
	size_t *fi;
	if (solver_problem_pieces(p, &pc, &fi))
		return lb;
	size_t np = fi[p->n];
	free(fi);
	struct lb_event *e = malloc((2 * np + 1) * sizeof(*e));
	uint32_t *count = calloc((size_t)a, sizeof(*count));
	if (!e || !count) {
		free(e);
		free(count);
		free(pc);
		return lb;
	}
	for (size_t i = 0; i < np; i++) {
		e[2 * i] = (struct lb_event){ pc[i].lower, (uint32_t)i, 1 };
		e[2 * i + 1] = (struct lb_event){ pc[i].upper, (uint32_t)i, 0 };
	}
	qsort(e, 2 * np, sizeof(*e), lb_event_cmp);
	uint64_t sum = 0, best = lb;
	uint64_t maxpad = 0;
	size_t live = 0;
	for (size_t i = 0; i < 2 * np; i++) {
		const struct solver_piece *q = &pc[e[i].piece];
		uint64_t size = q->hi - q->lo;
		uint64_t pad = (a - size % a) % a;
		if (e[i].start) {
			sum += size + pad;
			count[pad]++;
			live++;
			if (pad > maxpad)
				maxpad = pad;
		} else {
			sum -= size + pad;
			count[pad]--;
			live--;
			while (maxpad > 0 && count[maxpad] == 0)
				maxpad--;
		}
		/* measure once every event at this time is in */
		if (live && (i + 1 == 2 * np || e[i + 1].t != e[i].t) &&
		    sum - maxpad > best)
			best = sum - maxpad;
	}
	free(e);
	free(count);
	free(pc);
	return best;
}

double solver_gap_percent(uint64_t pool, uint64_t lower_bound)
{
	return lower_bound ? 100.0 * ((double)pool - (double)lower_bound) /
				     (double)lower_bound
			   : 0.0;
}

/* --- checker ----------------------------------------------------------- */

/*
 * The sweep visits piece starts and ends in time order (ends first at equal
 * times).  Resident pieces live in a max segment tree indexed by the rank of
 * their absolute start byte, holding their end byte: a new piece [a, b)
 * conflicts iff some resident piece starting below a ends above a, or some
 * resident piece starts in [a, b).
 */
struct ranked {
	uint64_t start; /* absolute first byte */
	uint32_t piece;
};

static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->piece > y->piece) - (x->piece < y->piece);
}

struct sweep_ev {
	int64_t at;
	uint32_t piece;
	uint32_t start; /* 0 = end, 1 = start: ends sort first */
};

static int sweep_cmp(const void *a, const void *b)
{
	const struct sweep_ev *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->piece > y->piece) - (x->piece < y->piece);
}

/* Max end (and its piece) over tree leaves [l, r); 0 if none resident. */
static uint64_t tree_max(const uint64_t *mx, const uint32_t *who, size_t m,
			 size_t l, size_t r, uint32_t *arg)
{
	uint64_t best = 0;
	for (l += m, r += m; l < r; l >>= 1, r >>= 1) {
		if ((l & 1) && mx[l] > best) {
			best = mx[l];
			*arg = who[l];
		}
		if (l & 1)
			l++;
		if (r & 1) {
			r--;
			if (mx[r] > best) {
				best = mx[r];
				*arg = who[r];
			}
		}
	}
	return best;
}

static void tree_set(uint64_t *mx, uint32_t *who, size_t m, size_t pos,
		     uint64_t v, uint32_t w)
{
	pos += m;
	mx[pos] = v;
	who[pos] = w;
	for (pos >>= 1; pos >= 1; pos >>= 1) {
		size_t a = 2 * pos, b = a + 1;
		size_t c = mx[a] >= mx[b] ? a : b;
		mx[pos] = mx[c];
		who[pos] = who[c];
	}
}

/* First rank whose absolute start byte is >= v. */
static size_t rank_of(const struct ranked *r, size_t np, uint64_t v)
{
	size_t lo = 0, hi = np;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].start < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int solver_check(const struct solver_problem *p, const uint64_t *offsets,
		 uint64_t *height, char *err, size_t errlen)
{
	int rc = solver_problem_validate(p, err, errlen);
	if (rc)
		return rc;
	uint64_t top = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct solver_item *it = &p->items[i];
		long long id = item_name(p, i);
		if (offsets[i] >= SOLVER_LIMIT)
			return trace_seterr(err, errlen, SOLVER_EINVALID,
				    "buffer %lld: offset %llu is out of range", id,
				    (unsigned long long)offsets[i]);
		if (offsets[i] % it->align)
			return trace_seterr(err, errlen, SOLVER_EINVALID,
				    "buffer %lld: offset %llu is not a multiple of its alignment %llu",
				    id, (unsigned long long)offsets[i],
				    (unsigned long long)it->align);
		if (it->fixed_offset != SOLVER_FREE &&
		    offsets[i] != (uint64_t)it->fixed_offset)
			return trace_seterr(err, errlen, SOLVER_EINVALID,
				    "buffer %lld: offset %llu differs from its fixed offset %lld",
				    id, (unsigned long long)offsets[i],
				    (long long)it->fixed_offset);
		if (offsets[i] + it->size > top)
			top = offsets[i] + it->size;
	}

	struct solver_piece *pc = NULL;
	size_t *fi = NULL;
	if (solver_problem_pieces(p, &pc, &fi))
		return trace_seterr(err, errlen, SOLVER_ENOMEM,
			    "out of memory checking %zu buffers", p->n);
	size_t np = fi[p->n];
	free(fi);
	size_t m = np ? np : 1;
	struct ranked *byrank = malloc(m * sizeof(*byrank));
	uint32_t *rank = malloc(m * sizeof(*rank));
	struct sweep_ev *ev = malloc(2 * m * sizeof(*ev));
	uint64_t *mx = calloc(2 * m, sizeof(*mx));
	uint32_t *who = calloc(2 * m, sizeof(*who));
	rc = 0;
	if (!byrank || !rank || !ev || !mx || !who) {
		rc = trace_seterr(err, errlen, SOLVER_ENOMEM,
			  "out of memory checking %zu buffers", p->n);
		goto out;
	}
	for (size_t i = 0; i < np; i++)
		byrank[i] = (struct ranked){ offsets[pc[i].item] + pc[i].lo,
					     (uint32_t)i };
	qsort(byrank, np, sizeof(*byrank), ranked_cmp);
	for (size_t i = 0; i < np; i++) {
		rank[byrank[i].piece] = (uint32_t)i;
		ev[2 * i] = (struct sweep_ev){ pc[i].lower, (uint32_t)i, 1 };
		ev[2 * i + 1] = (struct sweep_ev){ pc[i].upper, (uint32_t)i, 0 };
	}
	qsort(ev, 2 * np, sizeof(*ev), sweep_cmp);
	for (size_t e = 0; e < 2 * np; e++) {
		uint32_t i = ev[e].piece;
		if (!ev[e].start) {
			tree_set(mx, who, m, rank[i], 0, 0);
			continue;
		}
		uint64_t a = offsets[pc[i].item] + pc[i].lo;
		uint64_t b = offsets[pc[i].item] + pc[i].hi;
		size_t ra = rank_of(byrank, np, a), rb = rank_of(byrank, np, b);
		uint32_t other = 0;
		int clash = tree_max(mx, who, m, 0, ra, &other) > a ||
			    tree_max(mx, who, m, ra, rb, &other) > 0;
		if (clash) {
			const struct solver_piece *q = &pc[other];
			uint64_t qa = offsets[q->item] + q->lo;
			uint64_t qb = offsets[q->item] + q->hi;
			rc = trace_seterr(err, errlen, SOLVER_EINVALID,
				  "buffers %lld and %lld overlap: bytes [%llu, %llu) and [%llu, %llu) are both resident at time %lld",
				  item_name(p, q->item), item_name(p, pc[i].item),
				  (unsigned long long)qa, (unsigned long long)qb,
				  (unsigned long long)a, (unsigned long long)b,
				  (long long)ev[e].at);
			goto out;
		}
		tree_set(mx, who, m, rank[i], b, i);
	}
	if (height)
		*height = top;
out:
	free(pc);
	free(byrank);
	free(rank);
	free(ev);
	free(mx);
	free(who);
	return rc;
}

uint64_t solver_trace_align(const struct trace *t, uint64_t asked)
{
	const char *src = trace_get_meta(t, "source");
	if (src && !strcmp(src, "minimalloc-csv"))
		return asked;
	uint64_t a = asked > MP_PLAN_DEVICE_ALIGN ? asked : MP_PLAN_DEVICE_ALIGN;
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		if (trace_buffer_poolable(b) && b->align > a &&
		    !(b->align & (b->align - 1)))
			a = b->align;
	}
	return a;
}
