/* SPDX-License-Identifier: MIT */
/*
 * guillotine.h - hard placement instances whose optimum is known: a W x T
 * rectangle cut recursively at random points until there are n pieces;
 * each piece is a buffer.  Every instant is full, so the optimum is W, the
 * lower bound (issue 16's "packed class").  guil_cut() is the shape of the
 * seeds test_solver_exact and bench_placement name (150-225 pieces, each
 * cut across the last one); guil_cut_shape() varies the construction
 * (more pieces, cuts in random directions, deep or shallow recursion), as
 * held-out instances of the class do.  xorshift64 keeps the instances the
 * same everywhere.  Shared by test_solver_exact and bench_placement.
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

/* How a shape picks the piece to cut next and the direction of a cut. */
enum {
	GUIL_PICK_ANY = 0,  /* any piece, uniformly */
	GUIL_PICK_LAST = 1, /* one of the four newest: deep recursion */
	GUIL_PICK_BIG = 2,  /* the largest of four drawn: shallow, balanced */
};
enum {
	GUIL_DIR_ALTERNATE = 0, /* across the cut that made the piece */
	GUIL_DIR_RANDOM = 1,    /* either way, at random */
};

struct guil_shape {
	size_t nmin, nmax; /* pieces, drawn in [nmin, nmax] */
	uint64_t w;        /* units */
	int64_t t;         /* time steps */
	int pick, dir;
};

static inline uint64_t guil_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline uint64_t guil_area(const struct guil_rect *a)
{
	return (a->b1 - a->b0) * (uint64_t)(a->t1 - a->t0);
}

/*
 * Fills r[] (sh->nmax entries) with the pieces of this seed and shape;
 * returns n.  A piece that cannot be cut the way drawn (one unit or one
 * step wide) is drawn again; a shape too small for nmin pieces stops
 * early (every piece then one unit by one step).
 */
static inline size_t guil_cut_shape(uint64_t seed,
				    const struct guil_shape *sh,
				    struct guil_rect *r)
{
	uint64_t s = seed * UINT64_C(0x9E3779B97F4A7C15) + 1;
	size_t n = sh->nmin + guil_rand(&s) % (sh->nmax - sh->nmin + 1);
	size_t m = 1, tries = 0;
	r[0] = (struct guil_rect){ 0, sh->t, 0, sh->w, 0 };
	while (m < n && tries < 64 * n) {
		struct guil_rect *a;
		if (sh->pick == GUIL_PICK_LAST) {
			size_t back = guil_rand(&s) % (m < 4 ? m : 4);
			a = &r[m - 1 - back];
		} else if (sh->pick == GUIL_PICK_BIG) {
			a = &r[guil_rand(&s) % m];
			for (int k = 0; k < 3; k++) {
				struct guil_rect *c = &r[guil_rand(&s) % m];
				if (guil_area(c) > guil_area(a))
					a = c;
			}
		} else {
			a = &r[guil_rand(&s) % m];
		}
		if (sh->dir == GUIL_DIR_RANDOM)
			a->bytes = (int)(guil_rand(&s) % 2);
		int64_t len = a->bytes ? (int64_t)(a->b1 - a->b0) : a->t1 - a->t0;
		if (len < 2) {
			tries++;
			continue;
		}
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
	return m;
}

/* Fills r[] (GUIL_MAX entries) with the pieces of this seed; returns n:
 * the seeds of the tests and of bench_placement's packed-* rows. */
static inline size_t guil_cut(uint64_t seed, struct guil_rect *r)
{
	static const struct guil_shape sh = { 150, GUIL_MAX, GUIL_W, GUIL_T,
					      GUIL_PICK_ANY, GUIL_DIR_ALTERNATE };
	return guil_cut_shape(seed, &sh, r);
}

#endif
