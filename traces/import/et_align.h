/* SPDX-License-Identifier: MIT */
/*
 * et_align.h - where an execution trace's allocations are in a memory
 * snapshot's history.  Neither file has a clock or an address the other
 * shares (the ET's start_ts is the steady clock in ms, the snapshot's
 * time_us the wall clock; ET storage ids are counters), so the join is by
 * order and size: the fresh outputs of the ET's operators, in entry order,
 * are found among the history's allocations, which also hold what the ET
 * does not show (workspaces, temporaries inside an operator, other steps).
 */
#ifndef MEMPLAN_ET_ALIGN_H
#define MEMPLAN_ET_ALIGN_H

#include <stddef.h>
#include <stdint.h>

struct et_align_report {
	size_t first;      /* index in want of the first output matched */
	size_t matched;    /* outputs matched */
	size_t ties;       /* other starts that scored as well: the window is
			      ambiguous (identical steps give identical joins) */
	size_t candidates; /* starts scored (at most ET_ALIGN_MAX_STARTS) */
};

#define ET_ALIGN_MAX_STARTS ((size_t)1 << 16)

/*
 * want[0..nw): bytes each fresh output's storage reaches, in entry order;
 * group[k]: its operator, non-decreasing (the outputs of one operator may
 * be allocated in any order).  have[0..nh): bytes of each allocation of
 * the history, in order (PyTorch records the size asked for).  An output
 * fits an allocation of the same bytes, or, failing one nearby, of the
 * same 512-byte block size.
 *
 * The start is the place where the first outputs fit best (a prefix of
 * the ET may lie before the history, which is a ring buffer); from it,
 * each operator's outputs are looked for in a window after the last
 * match, a window that widens while operators go unmatched.  Sets
 * match[k] to an index into have, or -1; matched indexes increase with
 * the operator.  Returns 0, or -1 when out of memory (match untouched).
 */
int et_align(const uint64_t *want, const uint32_t *group, size_t nw,
	     const uint64_t *have, size_t nh, int64_t *match,
	     struct et_align_report *r);

#endif
