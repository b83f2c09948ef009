/* SPDX-License-Identifier: MIT */
/*
 * test_et_align.c - finding an execution trace's fresh outputs among a
 * snapshot's allocations: the ET's step in the middle of a history of
 * other allocations, allocations the ET does not show (workspaces) between
 * its own, one operator's outputs allocated in another order, the start
 * of the ET cut off by the history's ring buffer, a long run of hidden
 * allocations, block-size matches, identical steps (ambiguous, the
 * earliest taken), and two files that have nothing in common.
 */
#include <stdio.h>
#include <string.h>

#include "et_align.h"
#include "tap.h"

#define N 64
#define H 4096

static uint64_t want[N];
static uint32_t group[N];
static uint64_t have[H];
static int64_t match[N];
static size_t nw, nh;
static struct et_align_report rep;

/* a step of n operators, one output each, sizes that do not repeat */
static void step(size_t n)
{
	nw = n;
	for (size_t k = 0; k < n; k++) {
		want[k] = 4096 * (1 + k % 37) + 512 * (k % 5);
		group[k] = (uint32_t)k;
	}
}

static void put(uint64_t bytes) { have[nh++] = bytes; }

static void put_step(size_t from)
{
	for (size_t k = from; k < nw; k++)
		put(want[k]);
}

static int run(void)
{
	return et_align(want, group, nw, have, nh, match, &rep);
}

/* every output k matched to have[base + k + shift(k)] */
static int all_at(size_t base)
{
	for (size_t k = 0; k < nw; k++)
		if (match[k] != (int64_t)(base + k))
			return 0;
	return 1;
}

int main(void)
{
	char what[160];

	step(40);
	nh = 0;
	put_step(0);
	CHECK(run() == 0 && rep.matched == 40 && all_at(0) && rep.ties == 0,
	      "the history is the step: every output, in order");

	nh = 0;
	for (int i = 0; i < 100; i++)
		put(1000 + (uint64_t)i * 3);
	put_step(0);
	for (int i = 0; i < 50; i++)
		put(777);
	run();
	CHECK(rep.matched == 40 && all_at(100), "the step found after 100 other allocations");

	/* a workspace after every third output */
	nh = 0;
	size_t pos[N];
	for (size_t k = 0; k < nw; k++) {
		pos[k] = nh;
		put(want[k]);
		if (k % 3 == 0)
			put(999);
	}
	run();
	int ok = rep.matched == nw;
	for (size_t k = 0; k < nw; k++)
		ok &= match[k] == (int64_t)pos[k];
	CHECK(ok, "allocations the ET does not show are stepped over");

	/* operator 5 makes outputs 5 and 6, allocated 6 first */
	step(40);
	group[6] = 5;
	nh = 0;
	put_step(0);
	uint64_t t = have[5];
	have[5] = have[6];
	have[6] = t;
	run();
	CHECK(rep.matched == 40 && match[5] == 6 && match[6] == 5,
	      "one operator's outputs in another order");

	/* the ring buffer lost the ET's first two allocations */
	step(40);
	nh = 0;
	put_step(2);
	run();
	CHECK(rep.matched == 38 && rep.first == 2 && match[0] == -1 && match[1] == -1 &&
		      match[2] == 0,
	      "the ET's start before the history: matched from the third output");

	/* 900 hidden allocations in the middle (a data loader, a cache) */
	nh = 0;
	for (size_t k = 0; k < 20; k++)
		put(want[k]);
	for (int i = 0; i < 900; i++)
		put(333);
	for (size_t k = 20; k < nw; k++)
		put(want[k]);
	run();
	snprintf(what, sizeof(what),
		 "900 hidden allocations mid-step: the window widens (%zu of 40 matched)",
		 rep.matched);
	CHECK(rep.matched == 40 && match[20] == 920 && match[39] == 939, what);

	/* sizes asked for and sizes the ET's views reach differ within a block */
	step(8);
	nh = 0;
	for (size_t k = 0; k < nw; k++) {
		put(want[k]);
		want[k] -= 100;
	}
	run();
	CHECK(rep.matched == 8 && all_at(0), "a match of the same 512-byte block size");
	nh = 0;
	for (size_t k = 0; k < nw; k++)
		put(want[k] + 700);
	run();
	CHECK(rep.matched == 0 && match[0] == -1, "no match across block sizes");

	/* three identical steps: every start scores alike, the first is taken */
	step(40);
	nh = 0;
	put_step(0);
	put_step(0);
	put_step(0);
	run();
	CHECK(rep.matched == 40 && all_at(0) && rep.ties >= 2,
	      "identical steps: ambiguous, said so, the earliest taken");

	/* an output the first step lacks (not from the caching allocator),
	 * past the scored prefix, so the first step is taken: the walk stays
	 * in that step rather than jump to the next one, which has it */
	nh = 0;
	for (size_t k = 0; k < nw; k++)
		if (k != 35)
			put(want[k]);
	put_step(0);
	put_step(0);
	run();
	ok = rep.matched == 39 && match[35] == -1 && match[34] == 34 && match[36] == 35 &&
	     match[39] == 38;
	CHECK(ok, "an output missing from the history: the walk does not jump to the next step");

	/* nothing in common */
	nh = 0;
	for (int i = 0; i < 200; i++)
		put(100000 + (uint64_t)i);
	run();
	CHECK(rep.matched == 0 && rep.candidates == 0, "two files with nothing in common: no match");

	/* empty inputs */
	nh = 0;
	CHECK(run() == 0 && rep.matched == 0, "an empty history");
	nw = 0;
	put(4096);
	CHECK(run() == 0 && rep.matched == 0, "an ET without outputs");

	/* a history of one size only: starts are capped, the answer found */
	step(10);
	for (size_t k = 0; k < nw; k++)
		want[k] = 512;
	nh = 0;
	for (int i = 0; i < H; i++)
		put(512);
	run();
	CHECK(rep.matched == 10 && all_at(0) && rep.candidates <= ET_ALIGN_MAX_STARTS,
	      "a history of one size: bounded starts, the first place");
	return tap_done();
}
