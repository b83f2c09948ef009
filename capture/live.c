/* SPDX-License-Identifier: MIT */
/*
 * live.c - the live-allocation interval map (see live.h): a sorted array of
 * non-overlapping [addr, addr + size) ranges searched by bisection.
 */
#include "live.h"

#include <stdlib.h>
#include <string.h>

void live_init(struct live_map *m)
{
	m->v = NULL;
	m->n = m->cap = 0;
}

void live_clear(struct live_map *m)
{
	free(m->v);
	live_init(m);
}

/* Index of the first entry whose end lies above p (the only candidate that
 * can contain p, or the insertion point of p). */
static size_t first_ending_after(const struct live_map *m, uint64_t p)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct live_entry *e = &m->v[mid];
		if (e->addr + e->size <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct live_entry *live_find(const struct live_map *m, uint64_t p)
{
	if (m->n == 0 || p < m->v[0].addr)
		return NULL;
	size_t i = first_ending_after(m, p);
	if (i < m->n && m->v[i].addr <= p)
		return &m->v[i];
	return NULL;
}

long live_overlap(const struct live_map *m, uint64_t addr, uint64_t size)
{
	if (size == 0)
		return -1;
	/* entry i ends above addr; it overlaps when it starts below the end */
	size_t i = first_ending_after(m, addr);
	if (i < m->n && (m->v[i].addr <= addr || m->v[i].addr - addr < size))
		return (long)i;
	return -1;
}

int live_insert(struct live_map *m, const struct live_entry *e)
{
	if (e->size == 0 || e->addr + e->size < e->addr ||
	    live_overlap(m, e->addr, e->size) >= 0)
		return -1;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct live_entry *v = realloc(m->v, cap * sizeof(*v));
		if (!v)
			return -1;
		m->v = v;
		m->cap = cap;
	}
	size_t i = first_ending_after(m, e->addr);
	memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof(*m->v));
	m->v[i] = *e;
	m->n++;
	return 0;
}

void live_remove_at(struct live_map *m, size_t i, struct live_entry *out)
{
	if (out)
		*out = m->v[i];
	memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof(*m->v));
	m->n--;
}

int live_remove(struct live_map *m, uint64_t addr, struct live_entry *out)
{
	struct live_entry *e = live_find(m, addr);
	if (!e || e->addr != addr)
		return -1;
	live_remove_at(m, (size_t)(e - m->v), out);
	return 0;
}
