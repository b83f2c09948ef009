/* SPDX-License-Identifier: MIT */
/*
 * allocsim.c - replays allocation requests through a model of a real device
 * allocator and measures what it would reserve.  One engine serves both
 * models: blocks tile segments obtained from the device, free blocks sit in
 * one ordered set keyed by (pool, stream, size, address), a request takes the
 * smallest free block that fits (best fit), splits it when the model says so,
 * and a freed block merges with free neighbours of its segment.
 *
 * Design note: the free set is a treap over an index-addressed block arena,
 * so every request and free costs O(log n) expected whatever the trace, and
 * priorities come from a fixed-seed generator, so results are reproducible.
 */
#include "allocsim.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

enum { POOL_SMALL = 0, POOL_LARGE = 1 };

struct blk {
	uint64_t addr, size;
	uint64_t req;       /* requested bytes while allocated */
	int64_t stream;
	uint32_t prev, next; /* neighbours in the segment; next also links the arena's free list */
	uint32_t left, right, prio; /* treap links while free */
	uint8_t pool, allocated;
};

struct allocsim {
	enum allocsim_model model;
	struct blk *b;
	size_t nb, capb;
	uint32_t spare;     /* arena free list */
	uint32_t root;      /* treap of free blocks */
	uint32_t *of_id;    /* buffer id -> block, NIL when not live */
	size_t nid;
	uint32_t rng;
	uint64_t next_addr;
	uint64_t reserved, live, allocated;
	struct allocsim_result r;
};

static const char *const model_names[ALLOCSIM_COUNT] = { "cudamalloc",
							  "pytorch" };

const char *allocsim_name(unsigned model)
{
	return model < ALLOCSIM_COUNT ? model_names[model] : NULL;
}

int allocsim_from_name(const char *name)
{
	for (unsigned i = 0; i < ALLOCSIM_COUNT; i++)
		if (name && strcmp(name, model_names[i]) == 0)
			return (int)i;
	return -1;
}

/* --- the two models ---------------------------------------------------- */

static uint64_t round_up(uint64_t n, uint64_t to)
{
	return (n + to - 1) / to * to;
}

/* Bytes a request of size occupies in a block. */
static uint64_t model_round(enum allocsim_model m, uint64_t size)
{
	if (size < ALLOCSIM_MIN_BLOCK)
		return ALLOCSIM_MIN_BLOCK;
	if (m == ALLOCSIM_CUDAMALLOC && size >= ALLOCSIM_PAGE)
		return round_up(size, ALLOCSIM_PAGE);
	return round_up(size, ALLOCSIM_MIN_BLOCK);
}

static int model_pool(enum allocsim_model m, uint64_t rounded)
{
	if (m == ALLOCSIM_CUDAMALLOC)
		return rounded < ALLOCSIM_PAGE ? POOL_SMALL : POOL_LARGE;
	return rounded <= ALLOCSIM_SMALL_SIZE ? POOL_SMALL : POOL_LARGE;
}

/* Size of the segment obtained from the device when no free block fits. */
static uint64_t model_segment(enum allocsim_model m, uint64_t rounded)
{
	if (m == ALLOCSIM_CUDAMALLOC)
		return rounded < ALLOCSIM_PAGE ? ALLOCSIM_PAGE : rounded;
	if (rounded <= ALLOCSIM_SMALL_SIZE)
		return ALLOCSIM_SMALL_BUFFER;
	if (rounded < ALLOCSIM_MIN_LARGE_ALLOC)
		return ALLOCSIM_LARGE_BUFFER;
	return round_up(rounded, ALLOCSIM_ROUND_LARGE);
}

/* Whether a free block of block_size serving rounded bytes is split. */
static int model_split(enum allocsim_model m, int pool, uint64_t block_size,
		       uint64_t rounded)
{
	uint64_t remaining = block_size - rounded;
	if (m == ALLOCSIM_PYTORCH && pool == POOL_LARGE)
		return remaining > ALLOCSIM_SMALL_SIZE;
	return remaining >= ALLOCSIM_MIN_BLOCK;
}

/* cudaMalloc keeps nothing: a wholly free segment goes back at once. */
static int model_releases(enum allocsim_model m)
{
	return m == ALLOCSIM_CUDAMALLOC;
}

/* Free blocks are per stream in the caching allocator only. */
static int64_t model_stream(enum allocsim_model m, int64_t stream)
{
	return m == ALLOCSIM_PYTORCH ? stream : 0;
}

/* --- block arena ------------------------------------------------------- */

static int reserve_blocks(struct allocsim *s, size_t more)
{
	size_t free_count = 0;
	for (uint32_t i = s->spare; i != NIL && free_count < more; i = s->b[i].next)
		free_count++;
	if (free_count >= more || s->nb + more - free_count <= s->capb)
		return 0;
	size_t cap = s->capb ? s->capb * 2 : 256;
	while (cap < s->nb + more)
		cap *= 2;
	if (cap >= NIL)
		return TRACE_ENOMEM;
	struct blk *p = realloc(s->b, cap * sizeof(*p));
	if (!p)
		return TRACE_ENOMEM;
	s->b = p;
	s->capb = cap;
	return 0;
}

/* A new block; reserve_blocks() must have made room. */
static uint32_t blk_new(struct allocsim *s)
{
	uint32_t i;
	if (s->spare != NIL) {
		i = s->spare;
		s->spare = s->b[i].next;
	} else {
		i = (uint32_t)s->nb++;
	}
	memset(&s->b[i], 0, sizeof(s->b[i]));
	s->b[i].prev = s->b[i].next = s->b[i].left = s->b[i].right = NIL;
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 17;
	s->rng ^= s->rng << 5;
	s->b[i].prio = s->rng;
	return i;
}

static void blk_drop(struct allocsim *s, uint32_t i)
{
	s->b[i].next = s->spare;
	s->spare = i;
}

/* --- the free set: a treap ordered by (pool, stream, size, addr) ------- */

static int key_cmp(const struct blk *x, int pool, int64_t stream,
		   uint64_t size, uint64_t addr)
{
	if (x->pool != pool)
		return x->pool < pool ? -1 : 1;
	if (x->stream != stream)
		return x->stream < stream ? -1 : 1;
	if (x->size != size)
		return x->size < size ? -1 : 1;
	if (x->addr != addr)
		return x->addr < addr ? -1 : 1;
	return 0;
}

/* Keys are unique: addresses could only repeat after 2^64 bytes of
 * segments, and the block's index breaks even that tie. */
static int blk_cmp(const struct allocsim *s, uint32_t a, uint32_t b)
{
	const struct blk *y = &s->b[b];
	int c = key_cmp(&s->b[a], y->pool, y->stream, y->size, y->addr);
	return c ? c : (a > b) - (a < b);
}

/* Splits tree t into keys below x's (*l) and the rest (*r). */
static void treap_split(struct allocsim *s, uint32_t t, uint32_t x,
			uint32_t *l, uint32_t *r)
{
	while (t != NIL) {
		if (blk_cmp(s, t, x) < 0) {
			*l = t;
			l = &s->b[t].right;
			t = s->b[t].right;
		} else {
			*r = t;
			r = &s->b[t].left;
			t = s->b[t].left;
		}
	}
	*l = *r = NIL;
}

/* Joins trees l and r, every key of l below every key of r. */
static uint32_t treap_merge(struct allocsim *s, uint32_t l, uint32_t r)
{
	uint32_t root = NIL, *link = &root;
	while (l != NIL && r != NIL) {
		if (s->b[l].prio > s->b[r].prio) {
			*link = l;
			link = &s->b[l].right;
			l = s->b[l].right;
		} else {
			*link = r;
			link = &s->b[r].left;
			r = s->b[r].left;
		}
	}
	*link = l != NIL ? l : r;
	return root;
}

static void treap_insert(struct allocsim *s, uint32_t x)
{
	uint32_t *link = &s->root;
	while (*link != NIL && s->b[*link].prio >= s->b[x].prio)
		link = blk_cmp(s, x, *link) < 0 ? &s->b[*link].left
						 : &s->b[*link].right;
	treap_split(s, *link, x, &s->b[x].left, &s->b[x].right);
	*link = x;
}

static void treap_erase(struct allocsim *s, uint32_t x)
{
	uint32_t *link = &s->root;
	while (*link != x) {
		if (*link == NIL)
			return; /* not in the set: cannot happen */
		link = blk_cmp(s, x, *link) < 0 ? &s->b[*link].left
						 : &s->b[*link].right;
	}
	*link = treap_merge(s, s->b[x].left, s->b[x].right);
	s->b[x].left = s->b[x].right = NIL;
}

/* The smallest free block of pool and stream with at least size bytes. */
static uint32_t treap_best_fit(const struct allocsim *s, int pool,
			       int64_t stream, uint64_t size)
{
	uint32_t t = s->root, best = NIL;
	while (t != NIL) {
		if (key_cmp(&s->b[t], pool, stream, size, 0) >= 0) {
			best = t;
			t = s->b[t].left;
		} else {
			t = s->b[t].right;
		}
	}
	if (best != NIL && (s->b[best].pool != pool || s->b[best].stream != stream))
		return NIL;
	return best;
}

/* --- requests ---------------------------------------------------------- */

int allocsim_new(enum allocsim_model model, struct allocsim **out)
{
	if ((unsigned)model >= ALLOCSIM_COUNT)
		return TRACE_EINVAL;
	struct allocsim *s = calloc(1, sizeof(*s));
	if (!s)
		return TRACE_ENOMEM;
	s->model = model;
	s->spare = s->root = NIL;
	s->rng = 2463534242u;
	s->next_addr = 1ull << 32; /* device addresses never start at 0 */
	s->r.reserved_peak_at = INT64_MIN;
	*out = s;
	return 0;
}

void allocsim_destroy(struct allocsim *s)
{
	if (!s)
		return;
	free(s->b);
	free(s->of_id);
	free(s);
}

static int reserve_ids(struct allocsim *s, uint64_t id)
{
	if (id < s->nid)
		return 0;
	size_t n = s->nid ? s->nid : 1024;
	while (n <= id)
		n *= 2;
	uint32_t *p = realloc(s->of_id, n * sizeof(*p));
	if (!p)
		return TRACE_ENOMEM;
	for (size_t i = s->nid; i < n; i++)
		p[i] = NIL;
	s->of_id = p;
	s->nid = n;
	return 0;
}

int allocsim_alloc(struct allocsim *s, int64_t id, uint64_t size,
		   int64_t stream, int64_t at)
{
	if (id < 0 || (uint64_t)id >= NIL - 1 || size == 0 || size > (uint64_t)INT64_MAX)
		return TRACE_EINVAL;
	int rc;
	if ((rc = reserve_ids(s, (uint64_t)id)) < 0)
		return rc;
	if (s->of_id[id] != NIL)
		return TRACE_EINVAL;
	if ((rc = reserve_blocks(s, 2)) < 0)
		return rc;

	enum allocsim_model m = s->model;
	uint64_t rounded = model_round(m, size);
	int pool = model_pool(m, rounded);
	int64_t st = model_stream(m, stream);
	uint32_t x = treap_best_fit(s, pool, st, rounded);
	if (x != NIL) {
		treap_erase(s, x);
	} else {
		uint64_t seg = model_segment(m, rounded);
		x = blk_new(s);
		s->b[x].addr = s->next_addr;
		s->b[x].size = seg;
		s->b[x].pool = (uint8_t)pool;
		s->b[x].stream = st;
		s->next_addr += round_up(seg, ALLOCSIM_PAGE);
		s->reserved += seg;
		s->r.device_allocs++;
	}
	struct blk *b = &s->b[x];
	if (model_split(m, pool, b->size, rounded)) {
		uint32_t y = blk_new(s);
		b = &s->b[x]; /* blk_new never moves the arena, but be plain */
		struct blk *rest = &s->b[y];
		rest->addr = b->addr + rounded;
		rest->size = b->size - rounded;
		rest->pool = b->pool;
		rest->stream = b->stream;
		rest->prev = x;
		rest->next = b->next;
		if (b->next != NIL)
			s->b[b->next].prev = y;
		b->next = y;
		b->size = rounded;
		treap_insert(s, y);
	}
	b->allocated = 1;
	b->req = size;
	s->of_id[id] = x;
	s->live += size;
	s->allocated += b->size;
	s->r.requests++;
	if (s->live > s->r.live_peak)
		s->r.live_peak = s->live;
	if (s->allocated > s->r.allocated_peak)
		s->r.allocated_peak = s->allocated;
	if (s->reserved > s->r.reserved_peak) {
		s->r.reserved_peak = s->reserved;
		s->r.reserved_peak_at = at;
		s->r.live_at_reserved_peak = s->live;
	} else if (s->reserved == s->r.reserved_peak &&
		   s->live > s->r.live_at_reserved_peak) {
		s->r.live_at_reserved_peak = s->live;
	}
	return 0;
}

/* Absorbs free neighbour n of block x (n before or after x) into x. */
static void absorb(struct allocsim *s, uint32_t x, uint32_t n)
{
	struct blk *b = &s->b[x], *o = &s->b[n];
	treap_erase(s, n);
	if (b->prev == n) {
		b->addr = o->addr;
		b->prev = o->prev;
		if (b->prev != NIL)
			s->b[b->prev].next = x;
	} else {
		b->next = o->next;
		if (b->next != NIL)
			s->b[b->next].prev = x;
	}
	b->size += o->size;
	blk_drop(s, n);
}

int allocsim_free(struct allocsim *s, int64_t id, int64_t at)
{
	(void)at;
	if (id < 0 || (uint64_t)id >= s->nid || s->of_id[id] == NIL)
		return TRACE_EINVAL;
	uint32_t x = s->of_id[id];
	s->of_id[id] = NIL;
	struct blk *b = &s->b[x];
	s->live -= b->req;
	s->allocated -= b->size;
	b->allocated = 0;
	b->req = 0;
	if (b->prev != NIL && !s->b[b->prev].allocated)
		absorb(s, x, b->prev);
	if (b->next != NIL && !s->b[b->next].allocated)
		absorb(s, x, b->next);
	if (model_releases(s->model) && b->prev == NIL && b->next == NIL) {
		s->reserved -= b->size;
		s->r.device_frees++;
		blk_drop(s, x);
		return 0;
	}
	treap_insert(s, x);
	return 0;
}

void allocsim_result(const struct allocsim *s, struct allocsim_result *r)
{
	*r = s->r;
	r->reserved_end = s->reserved;
}

int allocsim_run(const struct trace *t, enum allocsim_model model,
		 struct allocsim_result *r, char *err, size_t errlen)
{
	struct allocsim *s;
	int rc = allocsim_new(model, &s);
	if (rc)
		return trace_seterr(err, errlen, rc, rc == TRACE_ENOMEM
						     ? "out of memory"
						     : "unknown allocator model %d",
				    (int)model);
	uint64_t skipped = 0;
	int64_t start = t->nevents ? trace_event_clock(t, 0) : 0;
	for (size_t i = 0; rc == 0 && i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		if (!allocsim_simulates(b->kind)) {
			skipped++;
			continue;
		}
		if (b->alloc_ev == TRACE_NONE)
			rc = allocsim_alloc(s, b->id, b->size, b->stream, start);
	}
	for (size_t i = 0; rc == 0 && i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (e->type != TRACE_EV_ALLOC && e->type != TRACE_EV_FREE)
			continue;
		const struct trace_buffer *b = &t->buffers[e->buffer];
		if (!allocsim_simulates(b->kind))
			continue;
		int64_t at = trace_event_clock(t, i);
		rc = e->type == TRACE_EV_ALLOC
			     ? allocsim_alloc(s, b->id, b->size, b->stream, at)
			     : allocsim_free(s, b->id, at);
	}
	if (rc) {
		allocsim_destroy(s);
		return trace_seterr(err, errlen, rc, rc == TRACE_ENOMEM
						     ? "out of memory simulating the %s allocator"
						     : "the trace is not finished (simulating the %s allocator)",
				    model_names[model]);
	}
	allocsim_result(s, r);
	r->skipped = skipped;
	allocsim_destroy(s);
	return 0;
}
