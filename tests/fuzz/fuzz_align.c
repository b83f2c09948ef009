/* SPDX-License-Identifier: MIT */
/*
 * fuzz_align.c - fuzz target for et_align(), the join of an execution
 * trace's outputs with a snapshot's allocations: for any sizes and
 * operator groups, every match fits (the same bytes or 512-byte block), no
 * allocation is matched twice, an operator's matches all come after the
 * operators' before it, and the report counts what match holds.  The input
 * is the two sequences: a byte of lengths, then two bytes a size (a few
 * sizes, so that they repeat as layers do) and a bit for a new operator.
 * Run by tests/fuzz/driver.c or by libFuzzer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "et_align.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXN 512

static uint64_t block(uint64_t n) { return (n + 511) / 512 * 512; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t want[MAXN], have[MAXN];
	static uint32_t group[MAXN];
	static int64_t match[MAXN];
	static uint8_t used[MAXN];
	if (size < 1)
		return 0;
	size_t split = data[0] % 8 + 1; /* share of the pairs that are outputs, /9 */
	size_t pairs = (size - 1) / 2;
	if (pairs > 2 * MAXN)
		pairs = 2 * MAXN;
	size_t nw = 0, nh = 0;
	uint32_t g = 0;
	for (size_t i = 0; i < pairs; i++) {
		unsigned v = (unsigned)data[1 + 2 * i] << 8 | data[2 + 2 * i];
		uint64_t bytes = (uint64_t)(v & 0x1f) * 4096 + (v >> 5 & 0x3) * 100 + 4;
		if (i * 9 < pairs * split && nw < MAXN) {
			if (v & 0x8000)
				g++;
			want[nw] = bytes;
			group[nw++] = g;
		} else if (nh < MAXN) {
			have[nh++] = bytes;
		}
	}
	struct et_align_report r;
	if (et_align(want, group, nw, have, nh, match, &r))
		return 0;
	memset(used, 0, sizeof(used));
	size_t matched = 0, first = nw;
	int64_t prev_max = -1, cur_max = -1;
	for (size_t k = 0; k < nw; k++) {
		if (k > 0 && group[k] != group[k - 1]) {
			if (cur_max > prev_max)
				prev_max = cur_max;
		}
		int64_t j = match[k];
		if (j < 0)
			continue;
		if ((size_t)j >= nh || used[j] || block(have[j]) != block(want[k]) || j <= prev_max)
			abort();
		used[j] = 1;
		if (j > cur_max)
			cur_max = j;
		matched++;
		if (first == nw)
			first = k;
	}
	if (matched != r.matched || (matched && first != r.first) ||
	    r.candidates > ET_ALIGN_MAX_STARTS)
		abort();
	return 0;
}
