/* SPDX-License-Identifier: MIT */
/*
 * guillotine.h - hard placement instances whose optimum is known: a W x T
 * rectangle cut recursively, each piece alternately along time and along
 * bytes, at random points, until there are 150-225 pieces; each piece is a
 * buffer.  Every instant is full, so the optimum is W, the lower bound
 * (issue 16's "packed class").  xorshift64 keeps the instances the same
 * everywhere.  Shared by test_solver_exact and bench_placement.
 */
#ifndef MEMPLAN_TESTS_GUILLOTINE_H
#define MEMPLAN_TESTS_GUILLOTINE_H

#include <stddef.h>
#include <stdint.h>

struct guil_rect {
	int64_t t0, t1;
	uint64_t b0, b1; /* units of GUIL_UNIT bytes */
	int bytes;       /* the next cut is along bytes */
};

#define GUIL_MAX 225
#define GUIL_W 1024 /* units */
#define GUIL_UNIT 1024 /* bytes */
#define GUIL_T 4096

static inline uint64_t guil_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Fills r[] (GUIL_MAX entries) with the pieces of this seed; returns n. */
static inline size_t guil_cut(uint64_t seed, struct guil_rect *r)
{
	uint64_t s = seed * UINT64_C(0x9E3779B97F4A7C15) + 1;
	size_t n = 150 + guil_rand(&s) % (GUIL_MAX - 150 + 1);
	size_t m = 1;
	r[0] = (struct guil_rect){ 0, GUIL_T, 0, GUIL_W, 0 };
	while (m < n) {
		struct guil_rect *a = &r[guil_rand(&s) % m];
		int64_t len = a->bytes ? (int64_t)(a->b1 - a->b0) : a->t1 - a->t0;
		if (len < 2)
			continue;
		int64_t cut = 1 + (int64_t)(guil_rand(&s) % (uint64_t)(len - 1));
		struct guil_rect b = *a;
		if (a->bytes) {
			a->b1 = a->b0 + (uint64_t)cut;
			b.b0 = a->b1;
		} else {
			a->t1 = a->t0 + cut;
			b.t0 = a->t1;
		}
		a->bytes = !a->bytes;
		b.bytes = a->bytes;
		r[m++] = b;
	}
	return n;
}

#endif
