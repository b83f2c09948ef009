/* SPDX-License-Identifier: MIT */
/*
 * et_align.c - an execution trace's fresh outputs found among a snapshot's
 * allocations (et_align.h).  Two passes of one greedy walk: a short walk
 * from every plausible start scores where the ET's window begins, then one
 * walk over the whole ET from the best start.  A walk never goes back
 * before an operator's last match, so it is linear in the history.
 */
#include "et_align.h"

#include <stdlib.h>
#include <string.h>

#define PREFIX 32   /* outputs a start is scored on */
#define PROBE 16    /* allocations a scored walk looks ahead */
#define WINDOW 64   /* allocations the full walk looks ahead */
#define WIDEN_MAX 6 /* an unmatched operator is looked for 2^6 windows on */
#define VERIFY 4    /* outputs that confirm a far match (all but one) */
#define HEAD 4      /* the window may start at one of the first outputs */
#define GAP 8       /* hidden allocations between two outputs, ordinarily */

struct walk {
	const uint64_t *want;
	const uint32_t *group;
	size_t nw;
	const uint64_t *have;
	size_t nh;
	uint8_t *taken;   /* per allocation: claimed by an output */
	size_t *undo;     /* what a scored walk claimed, to give back */
	size_t nundo;
};

static uint64_t block(uint64_t n)
{
	return n > UINT64_MAX - 511 ? n : (n + 511) / 512 * 512;
}

/* The first unclaimed allocation in [lo, hi) of exactly w bytes, else of
 * w's block size, else -1. */
static int64_t find(const struct walk *wk, size_t lo, size_t hi, uint64_t w)
{
	for (size_t j = lo; j < hi; j++)
		if (!wk->taken[j] && wk->have[j] == w)
			return (int64_t)j;
	uint64_t b = block(w);
	for (size_t j = lo; j < hi; j++)
		if (!wk->taken[j] && block(wk->have[j]) == b)
			return (int64_t)j;
	return -1;
}

/* Whether b fits an output of w bytes: exactly, or in the same block. */
static int fits(uint64_t b, uint64_t w)
{
	return b == w || block(b) == block(w);
}

/*
 * How many of the outputs from k1 on (at most VERIFY) fit unclaimed
 * allocations in order in [q, stop), each within window of the last:
 * whether a far match is the step resumed or a coincidence of sizes.
 */
static size_t peek(const struct walk *wk, size_t k1, size_t q, size_t window,
		   size_t stop)
{
	size_t got = 0;
	for (size_t k = k1; k < wk->nw && k < k1 + VERIFY; k++) {
		size_t hi = stop - q > window ? q + window : stop;
		for (size_t j = q; j < hi; j++)
			if (!wk->taken[j] && fits(wk->have[j], wk->want[k])) {
				got++;
				q = j + 1;
				break;
			}
	}
	return got;
}

/*
 * Walks outputs [i0, i0 + limit) from allocation a with a window of
 * window allocations; returns how many it matched, and in *skipped how
 * many allocations it passed unmatched.  With match (the full
 * walk), records them there, and an operator none of whose outputs is in
 * the window, while the outputs after it are not near either, is looked
 * for further on (up to 2^WIDEN_MAX windows), taken there when most of the
 * outputs after it follow it; without match (a scored
 * walk), keeps what it claimed in undo.
 */
static size_t walk(struct walk *wk, size_t i0, size_t a, size_t limit,
		   size_t window, int64_t *match, size_t *skipped)
{
	size_t end = limit < wk->nw - i0 ? i0 + limit : wk->nw;
	size_t p = a, got = 0;
	for (size_t i = i0; i < end;) {
		size_t ge = i;
		while (ge < end && wk->group[ge] == wk->group[i])
			ge++;
		size_t lo = p, hi = wk->nh - p > window ? p + window : wk->nh;
		size_t left = wk->nw - ge, need = left < VERIFY - 1 ? left : VERIFY - 1;
		/* not here, while what follows is: an output the history lacks */
		if (match && find(wk, lo, hi, wk->want[i]) < 0 &&
		    need > 0 && peek(wk, ge, p, window, wk->nh) < need) {
			size_t far = wk->nh - p > (window << WIDEN_MAX) ? p + (window << WIDEN_MAX)
									: wk->nh;
			for (size_t j = hi; j < far; j++)
				if (!wk->taken[j] && fits(wk->have[j], wk->want[i]) &&
				    peek(wk, ge, j + 1, window, wk->nh) >= need) {
					lo = j;
					hi = wk->nh - j > window ? j + window : wk->nh;
					break;
				}
		}
		int64_t maxj = -1;
		for (size_t k = i; k < ge; k++) {
			int64_t j = find(wk, lo, hi, wk->want[k]);
			/* a match past the outputs that come after it is in a
			 * later step: this output is not in the history */
			if (j < 0 || (match && (size_t)j - lo > GAP && need > 0 &&
				      peek(wk, ge, lo, window, (size_t)j) >= need))
				continue;
			wk->taken[j] = 1;
			if (match)
				match[k] = j;
			else
				wk->undo[wk->nundo++] = (size_t)j;
			got++;
			if (j > maxj)
				maxj = j;
		}
		if (maxj >= 0)
			p = (size_t)maxj + 1;
		i = ge;
	}
	if (skipped)
		*skipped = p - a - got;
	return got;
}

int et_align(const uint64_t *want, const uint32_t *group, size_t nw,
	     const uint64_t *have, size_t nh, int64_t *match,
	     struct et_align_report *r)
{
	memset(r, 0, sizeof(*r));
	struct walk wk = { want, group, nw, have, nh, NULL, NULL, 0 };
	if (nw && nh) {
		wk.taken = calloc(nh, 1);
		wk.undo = malloc(PREFIX * sizeof(*wk.undo));
		if (!wk.taken || !wk.undo) {
			free(wk.taken);
			free(wk.undo);
			return -1;
		}
	}
	for (size_t k = 0; k < nw; k++)
		match[k] = -1;
	/* the start: the best prefix score: four a match, less four an output
	 * before it and one an allocation passed over (another step's sizes
	 * line up with fewer gaps rarely); the earliest of equals */
	long best = 0;
	size_t bi = 0, ba = 0;
	for (size_t i0 = 0; i0 < nw && i0 < HEAD && r->candidates < ET_ALIGN_MAX_STARTS; i0++)
		for (size_t a = 0; a < nh && r->candidates < ET_ALIGN_MAX_STARTS; a++) {
			if (block(have[a]) != block(want[i0]))
				continue;
			r->candidates++;
			wk.nundo = 0;
			size_t skip;
			size_t got = walk(&wk, i0, a, PREFIX, PROBE, NULL, &skip);
			long s = 4 * ((long)got - (long)i0) - (long)skip;
			for (size_t u = 0; u < wk.nundo; u++)
				wk.taken[wk.undo[u]] = 0;
			if (s > best) {
				best = s;
				bi = i0;
				ba = a;
				r->ties = 0;
			} else if (s == best) {
				r->ties++;
			}
		}
	if (best > 0) {
		r->matched = walk(&wk, bi, ba, nw, WINDOW, match, NULL);
		r->first = bi;
		while (r->first < nw && match[r->first] < 0)
			r->first++;
	} else {
		r->ties = 0;
	}
	free(wk.taken);
	free(wk.undo);
	return 0;
}
