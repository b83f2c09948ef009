/* SPDX-License-Identifier: MIT */
/*
 * live.h - the live-allocation map of a capture: address ranges -> buffer,
 * for finding which allocation a pointer (a kernel argument, a copy's source)
 * points into in O(log n).  Used by the recorder under its lock.
 * Invariant: entries are sorted by address and never overlap.
 */
#ifndef MEMPLAN_CAPTURE_LIVE_H
#define MEMPLAN_CAPTURE_LIVE_H

#include <stddef.h>
#include <stdint.h>

struct live_entry {
	uint64_t addr, size; /* [addr, addr + size), size > 0 */
	int64_t id;          /* trace buffer id, -1 while not recorded yet */
	int64_t stream;      /* stream id at allocation, -1 if none */
	int32_t device;
	uint8_t kind;        /* enum trace_kind */
	/* what reaches memplan's runtime (recorder.c): the call's entry
	 * points (allocsource.h bits; 0 none), the verdict so far, and the
	 * allocation call's correlation id, API name and source (interned
	 * name ids, 0 none) */
	uint8_t reach, bypass;
	uint32_t corr, alias, api, source;
};

/*
 * A sorted array: lookups (one per pointer-sized word of every kernel
 * argument) vastly outnumber inserts and removes (one per allocation), and
 * caching allocators keep few allocations live, so binary search over
 * contiguous memory beats a tree here.
 */
struct live_map {
	struct live_entry *v;
	size_t n, cap;
};

void live_init(struct live_map *m);
void live_clear(struct live_map *m); /* frees the array, leaves m empty */

/*
 * Inserts e, which must not overlap a live entry (check with
 * live_overlap() first).  Returns 0, or -1 when out of memory or when e is
 * empty or overlaps (m unchanged then).
 */
int live_insert(struct live_map *m, const struct live_entry *e);

/* The entry containing address p, or NULL.  The pointer is valid until the
 * next insert or remove. */
struct live_entry *live_find(const struct live_map *m, uint64_t p);

/* Index of the first entry overlapping [addr, addr + size), or -1. */
long live_overlap(const struct live_map *m, uint64_t addr, uint64_t size);

/* Removes the entry at index i (from live_overlap) into *out (may be NULL). */
void live_remove_at(struct live_map *m, size_t i, struct live_entry *out);

/* Removes the entry that starts exactly at addr into *out; 0, or -1 if none. */
int live_remove(struct live_map *m, uint64_t addr, struct live_entry *out);

#endif
