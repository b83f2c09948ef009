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
 *
 * The caching allocator also gives memory back where the program asked it
 * to (torch.cuda.empty_cache(), or the release-and-retry after a failed
 * cudaMalloc): allocsim_release().  With expandable segments
 * (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True) each pool and stream
 * has one segment of address space that is mapped in pages (2 MiB in the
 * small pool, 20 MiB in the large one) as it grows; its unmapped ranges are
 * blocks too, kept out of the free set in a list per segment, in address
 * order.  Only mapped bytes count as reserved.
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
	uint32_t seg;       /* expandable segment, NIL: a segment of its own */
	uint8_t pool, allocated;
	uint8_t mapped;     /* 0 only for unmapped ranges of expandable segments */
};

/* An expandable segment: its unmapped blocks, lowest address first. */
struct xseg {
	uint8_t pool;
	int64_t stream;
	uint64_t base;
	uint32_t head; /* the block at base */
	uint32_t *unm;
	size_t nunm, capunm;
};

/* Address space of one expandable segment: a multiple of both page sizes. */
#define XSPACE ((uint64_t)ALLOCSIM_LARGE_BUFFER << 16)

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
	int expandable;
	struct xseg *xs;
	size_t nxs;
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
static int model_split(enum allocsim_model m, int expandable, int pool,
		       uint64_t block_size, uint64_t rounded)
{
	uint64_t remaining = block_size - rounded;
	if (m == ALLOCSIM_PYTORCH && pool == POOL_LARGE && !expandable)
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
	s->b[i].seg = NIL;
	s->b[i].mapped = 1;
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

/* The free block after x in the set's order, if of the same pool and stream. */
static uint32_t treap_next(const struct allocsim *s, uint32_t x)
{
	uint32_t t = s->root, best = NIL;
	while (t != NIL) {
		if (blk_cmp(s, t, x) > 0) {
			best = t;
			t = s->b[t].left;
		} else {
			t = s->b[t].right;
		}
	}
	if (best != NIL && (s->b[best].pool != s->b[x].pool ||
			    s->b[best].stream != s->b[x].stream))
		return NIL;
	return best;
}

/* --- expandable segments ------------------------------------------------ */

static uint64_t xpage(int pool)
{
	return pool == POOL_SMALL ? ALLOCSIM_SMALL_BUFFER : ALLOCSIM_LARGE_BUFFER;
}

/* A block's size for best fit: with the unmapped range after it, which it
 * can grow into (c10's get_free_block prefers blocks that cannot). */
static uint64_t grow_size(const struct allocsim *s, uint32_t x)
{
	uint32_t n = s->b[x].next;
	return s->b[x].size + (n != NIL && !s->b[n].mapped ? s->b[n].size : 0);
}

static int unm_push(struct xseg *g, uint32_t x)
{
	if (g->nunm == g->capunm) {
		size_t cap = g->capunm ? 2 * g->capunm : 8;
		uint32_t *p = realloc(g->unm, cap * sizeof(*p));
		if (!p)
			return TRACE_ENOMEM;
		g->unm = p;
		g->capunm = cap;
	}
	g->unm[g->nunm++] = x;
	return 0;
}

static void unm_remove(struct xseg *g, uint32_t x)
{
	for (size_t i = 0; i < g->nunm; i++)
		if (g->unm[i] == x) {
			memmove(g->unm + i, g->unm + i + 1, (g->nunm - i - 1) * sizeof(*g->unm));
			g->nunm--;
			return;
		}
}

/* The expandable segment of pool and stream, made (all unmapped) if new. */
static int xseg_get(struct allocsim *s, int pool, int64_t stream, size_t *out)
{
	for (size_t i = 0; i < s->nxs; i++)
		if (s->xs[i].pool == pool && s->xs[i].stream == stream) {
			*out = i;
			return 0;
		}
	struct xseg *p = realloc(s->xs, (s->nxs + 1) * sizeof(*p));
	if (!p)
		return TRACE_ENOMEM;
	s->xs = p;
	int rc = reserve_blocks(s, 1);
	if (rc)
		return rc;
	struct xseg *g = &s->xs[s->nxs];
	memset(g, 0, sizeof(*g));
	uint32_t x = blk_new(s);
	s->b[x].addr = g->base = s->next_addr;
	s->b[x].size = XSPACE;
	s->b[x].pool = (uint8_t)pool;
	s->b[x].stream = stream;
	s->b[x].mapped = 0;
	s->b[x].seg = (uint32_t)s->nxs;
	g->pool = (uint8_t)pool;
	g->stream = stream;
	g->head = x;
	if ((rc = unm_push(g, x)) < 0) {
		blk_drop(s, x);
		return rc;
	}
	s->next_addr += XSPACE;
	*out = s->nxs++;
	return 0;
}

static void absorb(struct allocsim *s, uint32_t x, uint32_t n);

/*
 * Maps the first size bytes (rounded up to pages) of unmapped block u and
 * returns the mapped block, merged with free mapped neighbours and out of
 * the free set.  The caller has reserved a block.
 */
static uint32_t map_block(struct allocsim *s, uint32_t u, uint64_t size)
{
	struct xseg *g = &s->xs[s->b[u].seg];
	uint64_t m = round_up(size, xpage(s->b[u].pool));
	uint32_t y = u;
	if (m < s->b[u].size) {
		y = blk_new(s);
		s->b[y] = s->b[u];
		s->b[y].left = s->b[y].right = NIL;
		s->b[y].size = m;
		s->b[y].next = u;
		if (s->b[u].prev != NIL)
			s->b[s->b[u].prev].next = y;
		else
			g->head = y;
		s->b[u].prev = y;
		s->b[u].addr += m;
		s->b[u].size -= m;
	} else {
		m = s->b[u].size;
		unm_remove(g, u);
	}
	s->b[y].mapped = 1;
	s->reserved += m;
	s->r.device_allocs++;
	uint32_t p = s->b[y].prev, n = s->b[y].next;
	if (p != NIL && !s->b[p].allocated && s->b[p].mapped)
		absorb(s, y, p);
	if (n != NIL && !s->b[n].allocated && s->b[n].mapped)
		absorb(s, y, n);
	return y;
}

/*
 * A mapped free block of at least size bytes, out of the free set, from the
 * lowest unmapped range of the segment of pool and stream that has room
 * (with the free block before it): what c10's try_allocate_expandable_block
 * does.  Returns the block, or NIL with *rc set.
 */
static uint32_t expand(struct allocsim *s, int pool, int64_t stream,
		       uint64_t size, int *rc)
{
	size_t i = 0;
	if ((*rc = xseg_get(s, pool, stream, &i)) < 0)
		return NIL;
	struct xseg *g = &s->xs[i];
	uint32_t c = NIL;
	for (size_t k = 0; k < g->nunm && c == NIL; k++) {
		uint32_t start = g->unm[k], p = s->b[start].prev;
		if (p != NIL && !s->b[p].allocated && s->b[p].mapped)
			start = p;
		uint64_t bytes = 0;
		for (uint32_t y = start; y != NIL && bytes < size && !s->b[y].allocated;
		     y = s->b[y].next)
			bytes += s->b[y].size;
		if (bytes >= size)
			c = start;
	}
	if (c == NIL) {
		*rc = TRACE_ENOMEM; /* past the segment's address space */
		return NIL;
	}
	/* each mapping may add a block, the final split another */
	if ((*rc = reserve_blocks(s, 4)) < 0)
		return NIL;
	if (!s->b[c].mapped) {
		uint64_t want = size < s->b[c].size ? size : s->b[c].size;
		c = map_block(s, c, want);
	} else {
		treap_erase(s, c);
	}
	while (s->b[c].size < size) {
		uint32_t n = s->b[c].next; /* unmapped: free neighbours are merged */
		uint64_t rest = size - s->b[c].size;
		if ((*rc = reserve_blocks(s, 4)) < 0)
			return NIL;
		c = map_block(s, n, rest < s->b[n].size ? rest : s->b[n].size);
	}
	return c;
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
	for (size_t i = 0; i < s->nxs; i++)
		free(s->xs[i].unm);
	free(s->xs);
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
	/* in an expandable segment, a block that could grow into the
	 * unmapped range after it goes last */
	while (s->expandable && x != NIL) {
		uint32_t n = treap_next(s, x);
		if (n == NIL || grow_size(s, n) >= grow_size(s, x))
			break;
		x = n;
	}
	if (x != NIL) {
		treap_erase(s, x);
	} else if (s->expandable) {
		x = expand(s, pool, st, rounded, &rc);
		if (x == NIL)
			return rc;
		if ((rc = reserve_blocks(s, 1)) < 0)
			return rc;
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
	if (model_split(m, s->expandable, pool, b->size, rounded)) {
		uint32_t y = blk_new(s);
		b = &s->b[x]; /* blk_new never moves the arena, but be plain */
		struct blk *rest = &s->b[y];
		rest->addr = b->addr + rounded;
		rest->size = b->size - rounded;
		rest->pool = b->pool;
		rest->stream = b->stream;
		rest->seg = b->seg;
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
		else if (b->seg != NIL)
			s->xs[b->seg].head = x;
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
	if (b->prev != NIL && !s->b[b->prev].allocated && s->b[b->prev].mapped)
		absorb(s, x, b->prev);
	if (b->next != NIL && !s->b[b->next].allocated && s->b[b->next].mapped)
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

int allocsim_set_expandable(struct allocsim *s, int on)
{
	if (s->model != ALLOCSIM_PYTORCH || s->r.requests || s->nb)
		return TRACE_EINVAL;
	s->expandable = on != 0;
	return 0;
}

/* Every free block, in key order, into a new array (*out, *n). */
static int free_blocks(const struct allocsim *s, uint32_t **out, size_t *n)
{
	size_t cap = 64, k = 0, depth = 0;
	uint32_t *v = malloc(cap * sizeof(*v)), *stack = malloc(64 * sizeof(*stack));
	size_t capst = 64;
	if (!v || !stack)
		goto nomem;
	for (uint32_t t = s->root; t != NIL || depth;) {
		if (t != NIL) {
			if (depth == capst) {
				uint32_t *p = realloc(stack, 2 * capst * sizeof(*p));
				if (!p)
					goto nomem;
				stack = p;
				capst *= 2;
			}
			stack[depth++] = t;
			t = s->b[t].left;
			continue;
		}
		t = stack[--depth];
		if (k == cap) {
			uint32_t *p = realloc(v, 2 * cap * sizeof(*p));
			if (!p)
				goto nomem;
			v = p;
			cap *= 2;
		}
		v[k++] = t;
		t = s->b[t].right;
	}
	free(stack);
	*out = v;
	*n = k;
	return 0;
nomem:
	free(v);
	free(stack);
	return TRACE_ENOMEM;
}

/* Unmaps the whole pages inside free block x of an expandable segment. */
static void unmap_block(struct allocsim *s, uint32_t x)
{
	struct blk *b = &s->b[x];
	struct xseg *g = &s->xs[b->seg];
	uint64_t page = xpage(b->pool), rel = b->addr - g->base;
	uint64_t lo = round_up(rel, page), hi = (rel + b->size) / page * page;
	if (hi <= lo)
		return;
	treap_erase(s, x);
	uint64_t before = g->base + lo - b->addr, after = rel + b->size - hi;
	if (before) {
		uint32_t y = blk_new(s);
		s->b[y] = s->b[x];
		s->b[y].left = s->b[y].right = NIL;
		s->b[y].size = before;
		s->b[y].next = x;
		if (s->b[x].prev != NIL)
			s->b[s->b[x].prev].next = y;
		else
			g->head = y;
		s->b[x].prev = y;
		s->b[x].addr += before;
		s->b[x].size -= before;
		treap_insert(s, y);
	}
	if (after) {
		uint32_t z = blk_new(s);
		s->b[z] = s->b[x];
		s->b[z].left = s->b[z].right = NIL;
		s->b[z].addr = s->b[x].addr + s->b[x].size - after;
		s->b[z].size = after;
		s->b[z].prev = x;
		if (s->b[x].next != NIL)
			s->b[s->b[x].next].prev = z;
		s->b[x].next = z;
		s->b[x].size -= after;
		treap_insert(s, z);
	}
	s->b[x].mapped = 0;
	s->reserved -= s->b[x].size;
	s->r.device_frees++;
	uint32_t p = s->b[x].prev, n = s->b[x].next;
	if (p != NIL && !s->b[p].mapped)
		absorb(s, x, p);
	if (n != NIL && !s->b[n].mapped)
		absorb(s, x, n);
}

int allocsim_release(struct allocsim *s, int64_t at)
{
	(void)at;
	if (s->model != ALLOCSIM_PYTORCH)
		return 0; /* cudaMalloc keeps nothing to release */
	uint32_t *v;
	size_t n;
	int rc = free_blocks(s, &v, &n);
	if (rc)
		return rc;
	if (s->expandable && (rc = reserve_blocks(s, 2 * n)) < 0) {
		free(v);
		return rc;
	}
	s->r.releases++;
	for (size_t i = 0; i < n; i++) {
		uint32_t x = v[i];
		if (s->b[x].seg != NIL) {
			unmap_block(s, x);
		} else if (s->b[x].prev == NIL && s->b[x].next == NIL) {
			treap_erase(s, x);
			s->reserved -= s->b[x].size;
			s->r.device_frees++;
			blk_drop(s, x);
		}
	}
	free(v);
	/* the unmapped ranges, in address order again */
	for (size_t i = 0; i < s->nxs; i++) {
		struct xseg *g = &s->xs[i];
		g->nunm = 0;
		for (uint32_t y = g->head; y != NIL; y = s->b[y].next)
			if (!s->b[y].mapped && (rc = unm_push(g, y)) < 0)
				return rc;
	}
	return 0;
}

int allocsim_is_release_mark(const char *name)
{
	return name && (strcmp(name, "segment_free") == 0 ||
			strcmp(name, "segment_unmap") == 0);
}

void allocsim_result(const struct allocsim *s, struct allocsim_result *r)
{
	*r = s->r;
	r->reserved_end = s->reserved;
}

int allocsim_run(const struct trace *t, enum allocsim_model model,
		 struct allocsim_result *r, char *err, size_t errlen)
{
	return allocsim_run_each(t, model, r, NULL, NULL, err, errlen);
}

int allocsim_run_each(const struct trace *t, enum allocsim_model model,
		      struct allocsim_result *r, allocsim_step_fn *step,
		      void *ctx, char *err, size_t errlen)
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
	const char *xs = trace_get_meta(t, "pytorch.expandable_segments");
	if (model == ALLOCSIM_PYTORCH && xs && strcmp(xs, "1") == 0)
		allocsim_set_expandable(s, 1);
	for (size_t i = 0; rc == 0 && i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		if (!allocsim_simulates(b->kind)) {
			skipped++;
			continue;
		}
		if (b->alloc_ev == TRACE_NONE)
			rc = allocsim_alloc(s, b->id, b->size, b->stream, start);
	}
	if (rc == 0 && step)
		step(ctx, SIZE_MAX, s->reserved);
	for (size_t i = 0; rc == 0 && i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (e->type == TRACE_EV_MARK && allocsim_is_release_mark(e->name)) {
			rc = allocsim_release(s, trace_event_clock(t, i));
			if (rc == 0 && step)
				step(ctx, i, s->reserved);
			continue;
		}
		if (e->type != TRACE_EV_ALLOC && e->type != TRACE_EV_FREE)
			continue;
		const struct trace_buffer *b = &t->buffers[e->buffer];
		if (!allocsim_simulates(b->kind))
			continue;
		int64_t at = trace_event_clock(t, i);
		rc = e->type == TRACE_EV_ALLOC
			     ? allocsim_alloc(s, b->id, b->size, b->stream, at)
			     : allocsim_free(s, b->id, at);
		if (rc == 0 && step)
			step(ctx, i, s->reserved);
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
