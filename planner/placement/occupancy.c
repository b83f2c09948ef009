/* SPDX-License-Identifier: MIT */
/*
 * occupancy.c - a segment tree over compressed time whose nodes hold sets of
 * occupied byte ranges, so that the greedy strategies find a free offset for
 * a new item without visiting every placed item that overlaps it in time.
 * Invariant: sub(v) is the union of the byte ranges of every placed piece
 * whose time range meets node v's slots; own(v) those stored at v itself.
 *
 * Design note.  Time is compressed to the distinct piece start times: two
 * half-open ranges meet iff one contains the other's start, so a piece is the
 * contiguous range of starts it contains ("slots").  A placed piece is stored
 * in own() of its O(log T) canonical nodes and in sub() of those nodes and
 * all their ancestors (stopping early where the range is already covered,
 * since sub(parent) contains sub(child)).  Every placed piece meeting a query
 * range lies in sub() of a canonical node of the query or in own() of one of
 * their ancestors, so a query consults O(log T) sets, never the items.  Sets
 * are sorted arrays of disjoint, coalesced ranges: an item packed against its
 * neighbours adds no new range, which keeps them short on real traces.
 * The offset search "bumps" a candidate offset past the range that blocks it
 * in any set until every set accepts it; best fit goes on to enumerate every
 * free gap the same way.
 */
#include "occupancy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sorted disjoint ranges [v[2i], v[2i+1]). */
/* Top-level nodes span at least 2^TOP_SPAN_LOG slots (measured: 8 beats 5
 * and 11 on the generated traces). */
#define TOP_SPAN_LOG 10

struct ivset {
	uint64_t *v;
	uint32_t len, cap; /* cap: 0 or a power of two >= 2 */
};

/*
 * The range arrays of one occupancy object come from a pool: capacities are
 * powers of two, the block of a grown set goes back to its size class, and
 * everything is released at once (millions of small sets made malloc and
 * free a tenth of a run).
 */
#define SETPOOL_CHUNK ((size_t)1 << 20)
struct setpool {
	void *chunks; /* linked through each chunk's first word */
	unsigned char *bump, *end;
	void *freelist[33]; /* by log2 of the capacity in ranges */
};

struct addlog {
	uint64_t *v; /* clock, lo, hi triples in clock order */
	size_t len, cap;
};

/* A set consulted for one piece of the item being placed. */
struct probe {
	const struct ivset *s;
	uint64_t lo, hi; /* the piece's bytes relative to the offset */
	uint32_t cur;    /* ranges [0, cur) start below the piece: o only grows */
};

struct solver_occupancy {
	const struct solver_problem *p;
	struct setpool pool;
	struct solver_piece *pc;
	size_t *first;
	uint32_t *sl, *sr; /* per piece: slots [sl, sr) */
	size_t m;          /* slots (leaves) */
	struct ivset *own; /* 2m nodes, 1-based heap layout, leaves at m.. */
	struct ivset *sub; /* m internal nodes; a leaf's sub is its own */
	uint32_t *stamp;   /* per node, dedupes ancestors within a query */
	uint32_t epoch;
	/* Path unions of the top levels (depth <= top): path[v] = own(v) and
	 * own() of every ancestor of v.  Every range added to own() of a top
	 * node is also logged with a clock stamp; path[v] is brought up to
	 * date when used by adding the log entries of v and its ancestors newer
	 * than built[v] (changed[] holds each node's latest stamp). */
	unsigned top;
	size_t ntop; /* nodes 1 .. ntop - 1 have path unions */
	struct ivset *path;
	struct addlog *log;
	uint64_t *built, *changed, clock;
	struct probe *probes;
	size_t nprobes, capprobes;
};

struct solver_occupancy *solver_occupancy_new(const struct solver_problem *p)
{
	struct solver_occupancy *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->p = p;
	if (solver_problem_pieces(p, &o->pc, &o->first)) {
		free(o);
		return NULL;
	}
	size_t np = o->first[p->n];
	int64_t *starts = malloc((np ? np : 1) * sizeof(*starts));
	o->sl = malloc((np ? np : 1) * sizeof(*o->sl));
	o->sr = malloc((np ? np : 1) * sizeof(*o->sr));
	if (!starts || !o->sl || !o->sr)
		goto nomem;
	for (size_t i = 0; i < np; i++)
		starts[i] = o->pc[i].lower;
	qsort(starts, np, sizeof(*starts), solver_time_cmp);
	size_t m = 0;
	for (size_t i = 0; i < np; i++)
		if (m == 0 || starts[m - 1] != starts[i])
			starts[m++] = starts[i];
	for (size_t i = 0; i < np; i++) {
		o->sl[i] = (uint32_t)solver_time_rank(starts, m, o->pc[i].lower);
		o->sr[i] = (uint32_t)solver_time_rank(starts, m, o->pc[i].upper);
	}
	free(starts);
	starts = NULL;
	o->m = m ? m : 1;
	o->own = calloc(2 * o->m, sizeof(*o->own));
	o->sub = calloc(o->m, sizeof(*o->sub));
	o->stamp = calloc(2 * o->m, sizeof(*o->stamp));
	unsigned depth = 0;
	while (((size_t)2 << depth) <= 2 * o->m - 1)
		depth++;
	o->top = depth > TOP_SPAN_LOG ? depth - TOP_SPAN_LOG : 0;
	o->ntop = (size_t)2 << o->top;
	if (o->ntop > 2 * o->m)
		o->ntop = 2 * o->m;
	o->path = calloc(o->ntop, sizeof(*o->path));
	o->log = calloc(o->ntop, sizeof(*o->log));
	o->built = calloc(o->ntop, sizeof(*o->built));
	o->changed = calloc(o->ntop, sizeof(*o->changed));
	if (!o->own || !o->sub || !o->stamp || !o->path || !o->log ||
	    !o->built || !o->changed)
		goto nomem;
	return o;
nomem:
	free(starts);
	solver_occupancy_free(o);
	return NULL;
}

void solver_occupancy_free(struct solver_occupancy *o)
{
	if (!o)
		return;
	for (void *c = o->pool.chunks, *next; c; c = next) {
		memcpy(&next, c, sizeof(next));
		free(c);
	}
	if (o->log)
		for (size_t i = 0; i < o->ntop; i++)
			free(o->log[i].v);
	free(o->path);
	free(o->log);
	free(o->built);
	free(o->changed);
	free(o->own);
	free(o->sub);
	free(o->stamp);
	free(o->probes);
	free(o->pc);
	free(o->first);
	free(o->sl);
	free(o->sr);
	free(o);
}

/* --- range sets -------------------------------------------------------- */

/*
 * Number of ranges of s starting below x, knowing that the first `from`
 * ranges do.  Steps linearly first: the searches of one placement move up
 * a little at a time.
 */
static uint32_t ivset_bsearch(const struct ivset *s, uint32_t lo, uint64_t x)
{
	uint32_t hi = s->len;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->v[2 * mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t ivset_count_below(const struct ivset *s, uint32_t from,
				  uint64_t x)
{
	uint32_t lo = from;
	for (uint32_t k = 0; k < 4; k++) {
		if (lo == s->len || s->v[2 * lo] >= x)
			return lo;
		lo++;
	}
	return ivset_bsearch(s, lo, x);
}

/* A block for 2^c ranges, or NULL when out of memory. */
static uint64_t *setpool_get(struct setpool *sp, unsigned c)
{
	void *b = sp->freelist[c];
	if (b) {
		memcpy(&sp->freelist[c], b, sizeof(void *));
		return b;
	}
	size_t bytes = ((size_t)2 << c) * sizeof(uint64_t);
	size_t head = 2 * sizeof(uint64_t); /* keeps blocks 16-byte aligned */
	if (bytes > SETPOOL_CHUNK / 8 || (size_t)(sp->end - sp->bump) < bytes) {
		size_t size = bytes > SETPOOL_CHUNK / 8 ? head + bytes
							 : SETPOOL_CHUNK;
		unsigned char *chunk = malloc(size);
		if (!chunk)
			return NULL;
		memcpy(chunk, &sp->chunks, sizeof(void *));
		sp->chunks = chunk;
		if (size != SETPOOL_CHUNK)
			return (uint64_t *)(void *)(chunk + head);
		sp->bump = chunk + head;
		sp->end = chunk + size;
	}
	b = sp->bump;
	sp->bump += bytes;
	return b;
}

static unsigned log2_of(uint32_t pow2)
{
	unsigned c = 0;
	while (((uint32_t)1 << c) < pow2)
		c++;
	return c;
}

static int ivset_reserve(struct setpool *sp, struct ivset *s, uint32_t len)
{
	if (len <= s->cap)
		return 0;
	uint32_t cap = s->cap ? s->cap : 2;
	while (cap < len)
		cap *= 2;
	uint64_t *v = setpool_get(sp, log2_of(cap));
	if (!v)
		return SOLVER_ENOMEM;
	if (s->v) {
		memcpy(v, s->v, (size_t)s->len * 2 * sizeof(*v));
		void **slot = &sp->freelist[log2_of(s->cap)];
		memcpy(s->v, slot, sizeof(void *));
		*slot = s->v;
	}
	s->v = v;
	s->cap = cap;
	return 0;
}

/* d = a ∪ b, coalesced; d is neither a nor b. */
static int ivset_union(struct setpool *sp, struct ivset *d,
		       const struct ivset *a, const struct ivset *b)
{
	if (ivset_reserve(sp, d, a->len + b->len))
		return SOLVER_ENOMEM;
	uint32_t i = 0, j = 0, n = 0;
	while (i < a->len || j < b->len) {
		const uint64_t *x;
		if (j == b->len || (i < a->len && a->v[2 * i] <= b->v[2 * j]))
			x = &a->v[2 * i++];
		else
			x = &b->v[2 * j++];
		if (n && d->v[2 * n - 1] >= x[0]) {
			if (x[1] > d->v[2 * n - 1])
				d->v[2 * n - 1] = x[1];
		} else {
			d->v[2 * n] = x[0];
			d->v[2 * n + 1] = x[1];
			n++;
		}
	}
	d->len = n;
	return 0;
}

/*
 * Adds [lo, hi), merging it with every range it meets or touches.  Returns
 * 1 if the set changed, 0 if [lo, hi) was already inside, or SOLVER_ENOMEM.
 */
static int ivset_add(struct setpool *sp, struct ivset *s, uint64_t lo,
		     uint64_t hi)
{
	/* ranges [a, b) with b >= lo and a <= hi merge with it */
	uint32_t first = 0, r = s->len;
	while (first < r) {
		uint32_t mid = first + (r - first) / 2;
		if (s->v[2 * mid + 1] < lo)
			first = mid + 1;
		else
			r = mid;
	}
	if (first < s->len && s->v[2 * first] <= lo &&
	    s->v[2 * first + 1] >= hi)
		return 0;
	uint32_t last = first; /* exclusive */
	while (last < s->len && s->v[2 * last] <= hi)
		last++;
	if (last > first) {
		if (s->v[2 * first] < lo)
			lo = s->v[2 * first];
		if (s->v[2 * last - 1] > hi)
			hi = s->v[2 * last - 1];
		s->v[2 * first] = lo;
		s->v[2 * first + 1] = hi;
		if (last - first > 1) {
			memmove(&s->v[2 * (first + 1)], &s->v[2 * last],
				(size_t)(s->len - last) * 2 * sizeof(uint64_t));
			s->len -= last - first - 1;
		}
		return 1;
	}
	if (ivset_reserve(sp, s, s->len + 1))
		return SOLVER_ENOMEM;
	memmove(&s->v[2 * (first + 1)], &s->v[2 * first],
		(size_t)(s->len - first) * 2 * sizeof(uint64_t));
	s->v[2 * first] = lo;
	s->v[2 * first + 1] = hi;
	s->len++;
	return 1;
}

/* --- the tree ---------------------------------------------------------- */

static struct ivset *sub_of(struct solver_occupancy *o, size_t v)
{
	return v >= o->m ? &o->own[v] : &o->sub[v];
}

static int add_probe(struct solver_occupancy *o, const struct ivset *s,
		     const struct solver_piece *pc)
{
	if (s->len == 0)
		return 0;
	if (o->nprobes == o->capprobes) {
		size_t cap = o->capprobes ? 2 * o->capprobes : 64;
		struct probe *pr = realloc(o->probes, cap * sizeof(*pr));
		if (!pr)
			return SOLVER_ENOMEM;
		o->probes = pr;
		o->capprobes = cap;
	}
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(s->v); /* the offset search starts there */
#endif
	o->probes[o->nprobes++] = (struct probe){ s, pc->lo, pc->hi, 0 };
	return 0;
}

static int log_add(struct addlog *l, uint64_t clock, uint64_t lo, uint64_t hi)
{
	if (l->len == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4;
		uint64_t *v = realloc(l->v, cap * 3 * sizeof(*v));
		if (!v)
			return SOLVER_ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[3 * l->len] = clock;
	l->v[3 * l->len + 1] = lo;
	l->v[3 * l->len + 2] = hi;
	l->len++;
	return 0;
}

/* Index of the first entry of l stamped after since. */
static size_t log_after(const struct addlog *l, uint64_t since)
{
	size_t lo = 0, hi = l->len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->v[3 * mid] <= since)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Brings path[u] up to date (u is a top-level node).  A few new ranges on
 * the path are added one by one; many (or a first use) rebuild it as the
 * union of the parent's up-to-date path and own(u), a linear merge.
 */
static int path_fresh(struct solver_occupancy *o, size_t u)
{
	uint64_t since = o->built[u];
	size_t pending = 0, limit = 8 + o->path[u].len / 16;
	for (size_t a = u; a >= 1 && pending <= limit; a >>= 1)
		if (o->changed[a] > since)
			pending += o->log[a].len - log_after(&o->log[a], since);
	if (pending == 0) {
		o->built[u] = o->clock;
		return 0;
	}
	if (pending > limit || since == 0) {
		if (u == 1) {
			if (ivset_union(&o->pool, &o->path[1], &o->own[0], &o->own[1]))
				return SOLVER_ENOMEM;
		} else if (path_fresh(o, u >> 1) ||
			   ivset_union(&o->pool, &o->path[u], &o->path[u >> 1],
				       &o->own[u])) {
			return SOLVER_ENOMEM;
		}
		o->built[u] = o->clock;
		return 0;
	}
	for (size_t a = u; a >= 1; a >>= 1) {
		if (o->changed[a] <= since)
			continue;
		const struct addlog *l = &o->log[a];
		for (size_t k = log_after(l, since); k < l->len; k++)
			if (ivset_add(&o->pool, &o->path[u], l->v[3 * k + 1],
				      l->v[3 * k + 2]) < 0)
				return SOLVER_ENOMEM;
	}
	o->built[u] = o->clock;
	return 0;
}

/*
 * Collects the sets that hold every placed piece meeting item i's pieces:
 * for each canonical node c of a piece, sub(c), own() of its ancestors
 * below the top levels, and the path union of its nearest top-level
 * ancestor (each ancestor once per piece).
 */
static int collect(struct solver_occupancy *o, size_t i)
{
	o->nprobes = 0;
	for (size_t k = o->first[i]; k < o->first[i + 1]; k++) {
		const struct solver_piece *pc = &o->pc[k];
		if (++o->epoch == 0) {
			memset(o->stamp, 0, 2 * o->m * sizeof(*o->stamp));
			o->epoch = 1;
		}
		size_t l = o->sl[k] + o->m, r = o->sr[k] + o->m;
		for (; l < r; l >>= 1, r >>= 1) {
			size_t c[2], nc = 0;
			if (l & 1)
				c[nc++] = l++;
			if (r & 1)
				c[nc++] = --r;
			for (size_t j = 0; j < nc; j++) {
				if (add_probe(o, sub_of(o, c[j]), pc))
					return SOLVER_ENOMEM;
				size_t a = c[j] >> 1;
				for (; a >= o->ntop && o->stamp[a] != o->epoch;
				     a >>= 1) {
					o->stamp[a] = o->epoch;
					if (add_probe(o, &o->own[a], pc))
						return SOLVER_ENOMEM;
				}
				if (a >= 1 && a < o->ntop &&
				    o->stamp[a] != o->epoch) {
					o->stamp[a] = o->epoch;
					if (path_fresh(o, a) ||
					    add_probe(o, &o->path[a], pc))
						return SOLVER_ENOMEM;
				}
			}
		}
	}
	return 0;
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return a == 1 ? x : (x + a - 1) / a * a;
}

/*
 * The lowest aligned offset >= from where the item meets no range of any
 * probe.  Each probe's cursor advances as the candidate grows.
 */
static uint64_t lowest_from(struct solver_occupancy *o, uint64_t from,
			    uint64_t align)
{
	uint64_t at = align_up(from, align);
	size_t k = o->nprobes, ok = 0, i = 0;
	while (ok < k) {
		struct probe *pr = &o->probes[i];
		const uint64_t *v = pr->s->v;
		uint32_t c = ivset_count_below(pr->s, pr->cur, at + pr->hi);
		if (c > 0 && v[2 * c - 1] > at + pr->lo) {
			/* slide up this set's gaps until the piece fits */
			do {
				at = align_up(v[2 * c - 1] - pr->lo, align);
				c = ivset_count_below(pr->s, c, at + pr->hi);
			} while (v[2 * c - 1] > at + pr->lo);
			pr->cur = c;
			/* Move to front: the bumper goes first and the previous
			 * bumper is checked next, since sets that disagree tend
			 * to take turns. */
			if (i > 0) {
				struct probe t = o->probes[i];
				if (i > 1)
					o->probes[i] = o->probes[1];
				o->probes[1] = o->probes[0];
				o->probes[0] = t;
			}
			ok = 1;
			i = k > 1 ? 1 : 0;
			continue;
		}
		pr->cur = c;
		ok++;
		if (++i == k)
			i = 0;
	}
	return at;
}

/*
 * The largest offset such that every offset in [at, it] is free, given that
 * at is (lowest_from() just returned it); UINT64_MAX when unbounded.
 */
static uint64_t free_until(const struct solver_occupancy *o, uint64_t at)
{
	uint64_t lim = UINT64_MAX;
	for (size_t i = 0; i < o->nprobes; i++) {
		const struct probe *pr = &o->probes[i];
		(void)at;
		if (pr->cur < pr->s->len) {
			uint64_t next = pr->s->v[2 * pr->cur];
			uint64_t l = next - pr->hi; /* next >= at + hi */
			if (l < lim)
				lim = l;
		}
	}
	return lim;
}

static uint64_t fit_offset(struct solver_occupancy *o, size_t i,
			   enum solver_fit fit)
{
	const struct solver_item *it = &o->p->items[i];
	uint64_t at = lowest_from(o, 0, it->align);
	if (fit == SOLVER_FIT_LOWEST)
		return at;
	uint64_t best = 0, best_len = UINT64_MAX;
	for (unsigned gaps = 0;; gaps++) {
		uint64_t until = free_until(o, at);
		if (until == UINT64_MAX)
			return best_len == UINT64_MAX ? at : best;
		uint64_t len = until - at; /* slack beyond a perfect fit */
		if (len < best_len) {
			best_len = len;
			best = at;
			if (len < it->align)
				return best; /* nothing fits more tightly */
		}
		if (fit == SOLVER_FIT_BEST && gaps + 1 >= SOLVER_BEST_GAPS)
			return best;
		at = lowest_from(o, until + 1, it->align);
	}
}

/*
 * The walk up the ancestors is a chain of cache misses (each set's header,
 * then the middle of its ranges); asking for the next two steps early lets
 * them overlap with the current one.
 */
static void prefetch_ahead(const struct solver_occupancy *o, size_t v)
{
#if defined(__GNUC__) || defined(__clang__)
	if (v >= 4)
		__builtin_prefetch(&o->sub[v >> 2]);
	if (v >= 2) {
		const struct ivset *s = &o->sub[v >> 1];
		if (s->len)
			__builtin_prefetch(&s->v[s->len & ~(uint32_t)1]);
	}
#else
	(void)o;
	(void)v;
#endif
}

/* Records item i at offset at in every node its pieces reach. */
static int insert(struct solver_occupancy *o, size_t i, uint64_t at)
{
	for (size_t k = o->first[i]; k < o->first[i + 1]; k++) {
		const struct solver_piece *pc = &o->pc[k];
		uint64_t lo = at + pc->lo, hi = at + pc->hi;
		size_t l = o->sl[k] + o->m, r = o->sr[k] + o->m;
		for (; l < r; l >>= 1, r >>= 1) {
			size_t c[2], nc = 0;
			if (l & 1)
				c[nc++] = l++;
			if (r & 1)
				c[nc++] = --r;
			for (size_t j = 0; j < nc; j++) {
				size_t v = c[j];
				int rc = ivset_add(&o->pool, &o->own[v], lo, hi);
				if (rc < 0)
					return rc;
				if (rc && v < o->ntop) {
					o->changed[v] = ++o->clock;
					if (log_add(&o->log[v], o->clock, lo, hi))
						return SOLVER_ENOMEM;
				}
				if (v < o->m) {
					rc = ivset_add(&o->pool, &o->sub[v], lo, hi);
					if (rc < 0)
						return rc;
					if (rc == 0)
						continue; /* ancestors cover it too */
				}
				for (v >>= 1; v >= 1; v >>= 1) {
					prefetch_ahead(o, v);
					rc = ivset_add(&o->pool, &o->sub[v], lo, hi);
					if (rc < 0)
						return rc;
					if (rc == 0)
						break;
				}
			}
		}
	}
	return 0;
}

static void reset(struct solver_occupancy *o)
{
	for (size_t i = 0; i < 2 * o->m; i++)
		o->own[i].len = 0;
	for (size_t i = 0; i < o->m; i++)
		o->sub[i].len = 0;
	for (size_t i = 0; i < o->ntop; i++) {
		o->path[i].len = 0;
		o->log[i].len = 0;
		o->built[i] = o->changed[i] = 0;
	}
	o->clock = 0;
}

int solver_occupancy_run(struct solver_occupancy *o, const uint32_t *order,
			 size_t norder, enum solver_fit fit, uint64_t *offsets,
			 uint64_t *height, char *err, size_t errlen)
{
	return solver_occupancy_run_until(o, order, norder, fit, NULL, offsets,
					  height, err, errlen);
}

int solver_occupancy_run_until(struct solver_occupancy *o,
			       const uint32_t *order, size_t norder,
			       enum solver_fit fit,
			       const struct solver_budget *stop,
			       uint64_t *offsets, uint64_t *height, char *err,
			       size_t errlen)
{
	const struct solver_problem *p = o->p;
	uint64_t top = 0;
	reset(o);
	for (size_t i = 0; i < p->n; i++) {
		const struct solver_item *it = &p->items[i];
		if (it->fixed_offset == SOLVER_FREE)
			continue;
		uint64_t at = (uint64_t)it->fixed_offset;
		if (collect(o, i))
			goto nomem;
		if (lowest_from(o, at, 1) != at) {
			if (err && errlen)
				snprintf(err, errlen,
					 "buffer %lld: its fixed offset %llu overlaps another fixed buffer while both are resident",
					 (long long)(it->buffer >= 0 ? it->buffer
								     : (int64_t)i),
					 (unsigned long long)at);
			return SOLVER_EINVAL;
		}
		if (insert(o, i, at))
			goto nomem;
		offsets[i] = at;
		if (at + it->size > top)
			top = at + it->size;
	}
	for (size_t k = 0; k < norder; k++) {
		size_t i = order[k];
		const struct solver_item *it = &p->items[i];
		if (it->fixed_offset != SOLVER_FREE)
			continue;
		if (stop && k % SOLVER_STOP_EVERY == SOLVER_STOP_EVERY - 1 &&
		    solver_budget_elapsed(stop) >= stop->deadline) {
			if (err && errlen)
				snprintf(err, errlen,
					 "the time limit passed after %zu of %zu buffers",
					 k, norder);
			return SOLVER_ESTOPPED;
		}
		if (collect(o, i))
			goto nomem;
		uint64_t at = fit_offset(o, i, fit);
		if (insert(o, i, at))
			goto nomem;
		offsets[i] = at;
		if (at + it->size > top)
			top = at + it->size;
	}
	*height = top;
	return 0;
nomem:
	if (err && errlen)
		snprintf(err, errlen, "out of memory placing %zu buffers",
			 p->n);
	return SOLVER_ENOMEM;
}

/* --- orders ------------------------------------------------------------ */

static int key_cmp(const void *a, const void *b)
{
	const struct solver_order_key *x = a, *y = b;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	if (x->k3 != y->k3)
		return x->k3 < y->k3 ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

void solver_order_sort(struct solver_order_key *keys, size_t n,
		       uint32_t *order)
{
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (size_t i = 0; i < n; i++)
		order[i] = keys[i].index;
}

int solver_place_orders(const struct solver_problem *p,
			solver_keys_fn *make_keys, int norders,
			enum solver_fit fit, const struct solver_budget *stop,
			uint64_t *offsets, uint64_t *height, char *err,
			size_t errlen)
{
	int rc = solver_problem_validate(p, err, errlen);
	if (rc)
		return rc;
	size_t n = p->n ? p->n : 1;
	struct solver_order_key *keys = malloc(n * sizeof(*keys));
	uint32_t *order = malloc(n * sizeof(*order));
	uint64_t *trial = norders > 1 ? malloc(n * sizeof(*trial)) : offsets;
	struct solver_occupancy *o =
		keys && order && trial ? solver_occupancy_new(p) : NULL;
	if (!o) {
		rc = trace_seterr(err, errlen, SOLVER_ENOMEM,
				  "out of memory placing %zu buffers", p->n);
		goto out;
	}
	uint64_t best = UINT64_MAX;
	for (int w = 0; w < norders && rc == 0; w++) {
		uint64_t h = 0;
		if (make_keys(p, w, keys)) {
			rc = trace_seterr(err, errlen, SOLVER_ENOMEM,
					  "out of memory ordering %zu buffers",
					  p->n);
			break;
		}
		solver_order_sort(keys, p->n, order);
		rc = solver_occupancy_run_until(o, order, p->n, fit, stop,
						trial, &h, err, errlen);
		if (rc == 0 && h < best) {
			best = h;
			if (trial != offsets)
				memcpy(offsets, trial, p->n * sizeof(*offsets));
		}
	}
	if (rc == 0)
		*height = best == UINT64_MAX ? 0 : best;
out:
	solver_occupancy_free(o);
	free(keys);
	free(order);
	if (trial != offsets)
		free(trial);
	return rc;
}
