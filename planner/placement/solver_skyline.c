/* SPDX-License-Identifier: MIT */
/*
 * solver_skyline.c - the skyline search: a placement with no gap below any
 * buffer, built from the lowest point up.  auto and exact run it at the
 * lower bound before their branch and bound (solver_search_skyline()).
 * Invariant: every section (elementary stretch of time) is filled from 0
 * to its top without a gap, so a found placement is valid by construction
 * (solver_solve() still checks it).
 *
 * Why.  When the lower bound is full at every instant (the guillotine-
 * packed class), a placement at the bound has no gap anywhere, and the
 * lowest top of the skyline, section s at f, must be covered by a buffer
 * that starts at f: every top in that buffer's lifetime is f already
 * (placed buffers there sit below it, and none is below f).  So a node
 * branches on which buffer covers the lowest section, and a section with
 * none dies at once.  The canonical search of solver_exact.c branches on
 * which buffer comes next at the current offset and learns that a section
 * cannot be covered only when the offset passes it, after trying the other
 * buffers at that offset in every order that is canonical: on 300-450
 * buffers it spent 26 million nodes without an answer where this takes
 * hundreds.  Among the sections at the lowest top, the one with the fewest
 * candidates goes first (a forced one needs no branch).
 *
 * Failures are learnt three times over.  A node that fails names the
 * sections whose placed items made it fail (its conflict set, cs_*()),
 * and a node whose candidate failed for a reason that candidate does not
 * touch fails at once for that reason, instead of retrying its other
 * candidates under a dead end elsewhere in time; and the placed sets
 * that failed are kept (struct sky_memo), so that the same set stacked in
 * another order, or reached again in a later restart, ends at its first
 * node; and they are kept again by the stretch of sections their conflict
 * set spans, so that the same dead end in one stretch ends at once
 * whatever was chosen elsewhere (struct sky_local).  Without the first
 * two 11 of the 100 seeds of bench_placement's big shape took more than
 * two million nodes, without the third 5; the README has the figures.
 *
 * It is complete only for the gapless placements: on a problem whose
 * optimum needs a gap it finds nothing and proves nothing, which is why
 * the caller gives it a small share of the budget and goes on.
 */
#include "solver.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT64_MAX

struct sky {
	const struct solver_problem *p;
	size_t n, nsec;
	uint64_t cap;
	uint32_t *sa, *sb;   /* an item's sections [sa, sb) */
	size_t *sec0;        /* section s has members mem[sec0[s]..sec0[s+1]) */
	uint32_t *mem;       /* in the order candidates are tried */
	uint64_t *top, *ceil; /* per section: filled from 0 to top and from
			       * ceil to the cap */
	uint64_t *unpl;       /* per section: bytes of its unplaced members */
	uint8_t *side;        /* per placed item: 0 from the bottom, 1 top */
	uint64_t *off;       /* per item, NONE while unplaced */
	uint32_t *cross;     /* per boundary c (between c and c + 1): unplaced
			      * items that cross it */
	uint32_t *trail;     /* the items placed, in order */
	uint32_t *last;      /* per section: the trail length after the last
			      * item placed there (0: none) */
	uint32_t *prevlast;  /* per item and section of its life (from
			      * islot[item]): last[] before it was placed */
	size_t *islot;       /* per item: where its prevlast[] entries begin */
	uint64_t *fit;       /* per item and side: the node that asked
			      * fits_flat() last << 1 | its answer */
	uint32_t *twin;      /* the item before it of the same size, life and
			      * alignment (UINT32_MAX: none) */
	size_t ntrail;
	uint64_t nodes, max_nodes;
	struct solver_budget *b;
	int stop;            /* the budget ran out */
	int sides;           /* 1: from the bottom only; 2: from the cap too */
	/* The placed set's key: what each placed item adds, per item and side
	 * (two 64-bit words, so that two sets share a key with odds of about
	 * 2^-100 over a search), xored in and out as items come and go. */
	uint64_t *zob;       /* 4 per item: side 0 (two words), side 1 */
	uint64_t key[2];
	struct sky_memo *memo; /* sets known to have no completion */
	uint64_t *cstack;    /* conflict sets, two per level (cs_push()) */
	size_t cw, csp;      /* words per set; sets in use */
	uint64_t jumps;      /* nodes that failed for a child's reason (with
			      * the memo's hits and stores: for a debugger) */
	struct sky_local *loc; /* failed sets kept by their stretch of time */
};

/*
 * Sets of placed items that have no gapless completion (nogoods).  What
 * lies above a partial placement depends on nothing but which items are
 * placed from which side: each section's top and ceiling are the sums of
 * their sizes, and the rules of a node (the lowest section, the candidates,
 * identical items in index order, the parts) read nothing else.  So a set
 * whose subtree failed fails wherever else it comes back: stacked in
 * another order, reached through other parts, or in a later restart with
 * another order of candidates.  On the packed instances that defeated the
 * search the subtrees came back mostly as sums: 1-unit buffers of one
 * section stacked in every order, each with the same dead end above.
 * Open addressing over a fixed table; a full probe run overwrites (a lost
 * entry costs a subtree again, never a placement).
 */
#define MEMO_PROBE 8
#define MEMO_SLOTS ((size_t)1 << 20) /* 24-48 MiB */
#define MEMO_SET_WORDS 4

struct sky_memo {
	uint64_t *k;      /* per entry: the key (two words; {0, 0}: empty),
			   * then the conflict set (cw words) or, on problems
			   * of more than MEMO_SET_WORDS * 64 sections, the
			   * sections it spans (a << 32 | b: looser, still
			   * true) */
	size_t mask, stride;
	uint64_t hits, stores;
};

static void local_add(struct sky *k, uint32_t j, int side, int sign);

static uint64_t local_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15u;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

/* A stretch's own word: the same buffers in another stretch are another
 * set (and those of a run from the bottom only, local_key()). */
static uint64_t mix_ab(uint32_t a, uint32_t b)
{
	return local_mix((uint64_t)a << 32 | b) << 2;
}

static int time_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Whether item j can lie at level v on side side now: unplaced, its
 * identical twins before it placed, aligned, and every section of its life
 * filled exactly to v from that side (bottom: its top is v and j starts
 * there; top: its ceiling is v and j ends there). */
static int fits_flat_scan(const struct sky *k, uint32_t j, uint64_t v,
			  int side)
{
	const struct solver_item *it = &k->p->items[j];
	if (k->off[j] != NONE)
		return 0;
	if (k->twin[j] != UINT32_MAX && k->off[k->twin[j]] == NONE)
		return 0; /* its identical twin first: either is the same */
	uint64_t o = side ? v - it->size : v;
	if (side && v < it->size)
		return 0;
	if (o % it->align)
		return 0;
	const uint64_t *lev = side ? k->ceil : k->top;
	/* the ends first: most members that do not fit fail there */
	if (lev[k->sa[j]] != v || lev[k->sb[j] - 1] != v)
		return 0;
	for (uint32_t z = k->sa[j]; z < k->sb[j]; z++)
		if (lev[z] != v || k->ceil[z] - k->top[z] < it->size)
			return 0;
	return 1;
}

/* fits_flat_scan() once per node: a member of many sections at the level
 * was scanned over its whole life once for each of them, most of a node's
 * time on lives of a hundred sections. */
static int fits_flat(struct sky *k, uint32_t j, uint64_t v, int side)
{
	uint64_t *e = &k->fit[2 * j + (uint32_t)side];
	if (*e >> 1 == k->nodes)
		return (int)(*e & 1);
	int r = fits_flat_scan(k, j, v, side);
	*e = k->nodes << 1 | (uint64_t)r;
	return r;
}

/* Candidates of section s at v on side side, counting no further than
 * stop. */
static size_t count_fits(struct sky *k, size_t s, uint64_t v,
			 int side, size_t stop)
{
	size_t c = 0;
	for (size_t q = k->sec0[s]; q < k->sec0[s + 1] && c < stop; q++)
		c += fits_flat(k, k->mem[q], v, side);
	return c;
}

/* Places j at offset o from side side (fits_flat() said it can) and
 * checks that its sections still hold what is left of them; 0 when they
 * do. */
static int place(struct sky *k, uint32_t j, uint64_t o, int side)
{
	uint64_t sz = k->p->items[j].size;
	int bad = 0;
	k->off[j] = o;
	k->side[j] = (uint8_t)side;
	k->trail[k->ntrail++] = j;
	k->key[0] ^= k->zob[4 * j + 2 * side];
	k->key[1] ^= k->zob[4 * j + 2 * side + 1];
	local_add(k, j, side, 1);
	for (uint32_t z = k->sa[j]; z + 1 < k->sb[j]; z++)
		k->cross[z]--;
	uint32_t *prev = k->prevlast + k->islot[j] - k->sa[j];
	for (uint32_t z = k->sa[j]; z < k->sb[j]; z++) {
		prev[z] = k->last[z];
		k->last[z] = (uint32_t)k->ntrail;
		if (side)
			k->ceil[z] = o;
		else
			k->top[z] = o + sz;
		k->unpl[z] -= sz;
		bad |= k->unpl[z] > k->ceil[z] - k->top[z];
	}
	return bad;
}

static void unplace(struct sky *k, uint32_t j)
{
	uint64_t sz = k->p->items[j].size, o = k->off[j];
	k->off[j] = NONE;
	k->key[0] ^= k->zob[4 * j + 2 * k->side[j]];
	k->key[1] ^= k->zob[4 * j + 2 * k->side[j] + 1];
	local_add(k, j, k->side[j], -1);
	for (uint32_t z = k->sa[j]; z + 1 < k->sb[j]; z++)
		k->cross[z]++;
	const uint32_t *prev = k->prevlast + k->islot[j] - k->sa[j];
	for (uint32_t z = k->sa[j]; z < k->sb[j]; z++) {
		k->last[z] = prev[z];
		if (k->side[j])
			k->ceil[z] = o + sz;
		else
			k->top[z] = o;
		k->unpl[z] += sz;
	}
}

/* Whether some unplaced member of section z could still start at its top
 * and some could still end at its ceiling: tops only rise and ceilings only
 * fall, so a member with a higher top (a lower ceiling) in its life never
 * will, and a section that cannot be covered there keeps a gap for ever. */
static int coverable(const struct sky *k, uint32_t z)
{
	uint64_t t = k->top[z], c = k->ceil[z];
	if (!k->unpl[z])
		return 1;
	int lo = 0, hi = 0;
	for (size_t q = k->sec0[z]; q < k->sec0[z + 1] && !(lo && hi); q++) {
		uint32_t j = k->mem[q];
		const struct solver_item *it = &k->p->items[j];
		if (k->off[j] != NONE)
			continue;
		if (!lo && t % it->align == 0) {
			uint32_t y = k->sa[j];
			while (y < k->sb[j] && k->top[y] <= t)
				y++;
			lo = y == k->sb[j];
		}
		if (!hi && c >= it->size && (c - it->size) % it->align == 0) {
			uint32_t y = k->sa[j];
			while (y < k->sb[j] && k->ceil[y] >= c)
				y++;
			hi = y == k->sb[j];
		}
	}
	return lo && hi;
}

/* After j was placed: its sections and the two beside them (whose members
 * may reach into j's) can each still be covered.  The first that cannot,
 * or -1. */
static long all_coverable(const struct sky *k, uint32_t j)
{
	uint32_t a = k->sa[j] ? k->sa[j] - 1 : 0;
	uint32_t b = k->sb[j] < k->nsec ? k->sb[j] + 1 : k->sb[j];
	for (uint32_t z = a; z < b; z++)
		if (!coverable(k, z))
			return z;
	return -1;
}

/* Undoes the placements after trail entry mark, last first. */
static void undo_to(struct sky *k, size_t mark)
{
	while (k->ntrail > mark)
		unplace(k, k->trail[--k->ntrail]);
}

/* The key of the placed set now; runs from the bottom only and from both
 * ends obey different rules, so their sets never share an entry. */
static void memo_key(const struct sky *k, uint64_t key[2])
{
	key[0] = k->key[0] ^ (k->sides == 2 ? 0x9e3779b97f4a7c15u : 0);
	key[1] = k->key[1] | 1; /* never {0, 0}, the empty slot */
}

/*
 * Conflict sets.  A node that fails says why as a set of sections: the
 * items placed in those sections, where they are, admit no gapless
 * completion, whatever else is placed.  A node whose candidate j failed
 * for a reason that j's life does not meet fails at once for that reason
 * (the other candidates leave the sections it names as they are): the
 * search jumps back over choices made elsewhere in time instead of
 * retrying them all under a dead end that none of them touches, which is
 * where the search spent its millions of nodes on the packed seeds that
 * defeated it.  The reasons are kept narrow (one section per member that
 * cannot lie where it must, cs_nofit() and cs_cover()): a set of whole
 * lifetimes spans most of the time in a part and jumped over almost
 * nothing.  A set of sections is a bitset of cw words; each level of the
 * recursion has two (what its candidates' failures add up to, and the one
 * a child fills).
 */
static uint64_t *cs_push(struct sky *k)
{
	uint64_t *c = k->cstack + k->csp * k->cw;
	k->csp++;
	memset(c, 0, k->cw * sizeof(*c));
	return c;
}

static void cs_range(uint64_t *c, uint32_t a, uint32_t b)
{
	for (uint32_t z = a; z < b;) {
		if (z % 64 == 0 && z + 64 <= b) {
			c[z / 64] = UINT64_MAX;
			z += 64;
		} else {
			c[z / 64] |= (uint64_t)1 << (z % 64);
			z++;
		}
	}
}

static int cs_meets(const uint64_t *c, uint32_t a, uint32_t b)
{
	for (uint32_t z = a; z < b;) {
		if (z % 64 == 0 && z + 64 <= b) {
			if (c[z / 64])
				return 1;
			z += 64;
		} else {
			if (c[z / 64] >> (z % 64) & 1)
				return 1;
			z++;
		}
	}
	return 0;
}

static void cs_or(const struct sky *k, uint64_t *c, const uint64_t *d)
{
	for (size_t w = 0; w < k->cw; w++)
		c[w] |= d[w];
}

/* The latest choice among the items placed in section z (its place on the
 * trail, plus one; 0: none): a reason in a section of older choices lets
 * the search jump further back. */
static size_t sec_age(const struct sky *k, uint32_t z)
{
	return k->last[z];
}

/* Why no unplaced member of section s can lie at v on side side (or why
 * those that cannot, at a node whose others were tried): for each, one
 * section of its life whose placed items leave no room for it there (s
 * itself for its level or alignment).  A member that waits for its
 * identical twin has its twin's reason. */
static void cs_nofit(struct sky *k, uint64_t *c, uint32_t s, uint64_t v,
		     int side)
{
	const uint64_t *lev = side ? k->ceil : k->top;
	cs_range(c, s, s + 1);
	for (size_t q = k->sec0[s]; q < k->sec0[s + 1]; q++) {
		uint32_t j = k->mem[q];
		const struct solver_item *it = &k->p->items[j];
		if (k->off[j] != NONE ||
		    (k->twin[j] != UINT32_MAX && k->off[k->twin[j]] == NONE))
			continue;
		if ((side && v < it->size) ||
		    (side ? v - it->size : v) % it->align)
			continue; /* s's own level: s is in already */
		uint32_t pick = UINT32_MAX;
		size_t age = SIZE_MAX;
		for (uint32_t z = k->sa[j]; z < k->sb[j]; z++) {
			if (lev[z] == v && k->ceil[z] - k->top[z] >= it->size)
				continue;
			if (cs_meets(c, z, z + 1)) {
				pick = UINT32_MAX; /* named already */
				break;
			}
			size_t a = sec_age(k, z);
			if (a < age) {
				age = a;
				pick = z;
			}
		}
		if (pick != UINT32_MAX)
			cs_range(c, pick, pick + 1);
	}
}

/* Why section z cannot be covered from its top (or its ceiling): for each
 * unplaced member, a section of its life already filled past that level. */
static void cs_cover(struct sky *k, uint64_t *c, uint32_t z)
{
	uint64_t t = k->top[z], cl = k->ceil[z];
	cs_range(c, z, z + 1);
	int lo = 0;
	for (size_t q = k->sec0[z]; q < k->sec0[z + 1] && !lo; q++) {
		uint32_t j = k->mem[q];
		if (k->off[j] == NONE && t % k->p->items[j].align == 0) {
			uint32_t y = k->sa[j];
			while (y < k->sb[j] && k->top[y] <= t)
				y++;
			lo = y == k->sb[j];
		}
	}
	for (size_t q = k->sec0[z]; q < k->sec0[z + 1]; q++) {
		uint32_t j = k->mem[q];
		if (k->off[j] != NONE)
			continue;
		uint32_t pick = UINT32_MAX;
		size_t age = SIZE_MAX;
		for (uint32_t y = k->sa[j]; y < k->sb[j]; y++) {
			if (!(lo ? k->ceil[y] < cl : k->top[y] > t))
				continue;
			if (cs_meets(c, y, y + 1)) {
				pick = UINT32_MAX;
				break;
			}
			size_t a = sec_age(k, y);
			if (a < age) {
				age = a;
				pick = y;
			}
		}
		if (pick != UINT32_MAX)
			cs_range(c, pick, pick + 1);
	}
}

/* The sections a conflict set of the memo spans (a looser set: more
 * sections only name more placed items). */
static void cs_hull(const struct sky *k, const uint64_t *c, uint32_t *a,
		    uint32_t *b)
{
	size_t lo = k->cw, hi = 0;
	for (size_t w = 0; w < k->cw; w++)
		if (c[w]) {
			if (lo == k->cw)
				lo = w;
			hi = w;
		}
	if (lo == k->cw) {
		*a = *b = 0;
		return;
	}
	*a = (uint32_t)(lo * 64 + (size_t)__builtin_ctzll(c[lo]));
	*b = (uint32_t)(hi * 64 + 64 - (size_t)__builtin_clzll(c[hi]));
}

/* The memo's slot for the placed set now, fetched while the node checks
 * its sections (a lookup misses the cache: a seventh of a node's time). */
static void memo_prefetch(const struct sky *k)
{
	uint64_t key[2];
	memo_key(k, key);
	const struct sky_memo *m = k->memo;
	__builtin_prefetch(m->k + (key[0] & m->mask) * m->stride);
}

/* Whether the placed set now is known to fail; its conflict set into why
 * (cw words) when it is. */
static int memo_has(struct sky *k, uint64_t *why)
{
	uint64_t key[2];
	memo_key(k, key);
	struct sky_memo *m = k->memo;
	for (size_t i = 0; i < MEMO_PROBE; i++) {
		uint64_t *e = m->k + ((key[0] + i) & m->mask) * m->stride;
		if (e[0] == key[0] && e[1] == key[1]) {
			m->hits++;
			if (m->stride == 3)
				cs_range(why, (uint32_t)(e[2] >> 32),
					 (uint32_t)e[2]);
			else
				memcpy(why, e + 2, k->cw * sizeof(*why));
			return 1;
		}
		if (!e[0] && !e[1])
			return 0;
	}
	return 0;
}

/*
 * Local nogoods.  A conflict set says that what is placed in its sections,
 * where it is, has no gapless completion whatever lies elsewhere; the memo
 * above keys the whole placed set, so a dead end in one stretch of time
 * came back under every other choice made elsewhere: on the seeds that
 * defeated the search, more than half of the sets it stored failed for a
 * reason it had stored already, the same buffers placed in the same
 * stretch [a, b) of sections.  So a failed set is kept a second time, by
 * the stretch its conflict set spans and the buffers placed that meet it
 * (those fix every top and ceiling there: a looser reason than the set,
 * still true), and a node looks up the stretches that meet the buffer it
 * placed.  A search keeps a few hundred distinct stretches; a stretch's
 * key is the difference of two Fenwick prefix sums (what starts before b,
 * less what ends by a), O(log sections), and a bit filter answers most
 * look-ups without a cache miss.
 */
#define LOCAL_SLOTS ((size_t)1 << 20)
#define LOCAL_STRETCHES 2048
#define LOCAL_SET 8192      /* slots of the stretches' hash set */
#define LOCAL_FILTER ((size_t)1 << 24) /* bits */

struct sky_local {
	uint64_t *fa, *fb;  /* Fenwick sums of the placed buffers' words, by
			     * first section and by last */
	uint64_t *k;        /* per slot: the key, then the conflict set (cw
			     * words; on more than MEMO_SET_WORDS * 64
			     * sections the stretch, as the memo does) */
	size_t stride;
	uint32_t *ab;       /* the stretches looked up, a and b */
	uint64_t *abw;      /* and each one's own word (mix_ab()) */
	size_t n;
	uint64_t *set;      /* (a << 32 | b) + 1 per stretch kept */
	uint64_t *filter;   /* a bit per key kept */
};

static void fw_add(uint64_t *fw, size_t n, size_t i, uint64_t d)
{
	for (i++; i <= n; i += i & -i)
		fw[i] += d;
}

static uint64_t fw_sum(const uint64_t *fw, size_t i)
{
	uint64_t r = 0;
	for (; i; i -= i & -i)
		r += fw[i];
	return r;
}

/* j placed on side side (sign 1) or taken back (-1). */
static void local_add(struct sky *k, uint32_t j, int side, int sign)
{
	uint64_t d = k->zob[4 * j + 2 * side];
	if (sign < 0)
		d = -d;
	fw_add(k->loc->fa, k->nsec, k->sa[j], d);
	fw_add(k->loc->fb, k->nsec, k->sb[j] - 1, d);
}

/* The key of what is placed in sections [a, b) now: the buffers that
 * start before b less those that end by a (a subset of them). */
static uint64_t local_key(const struct sky *k, uint32_t a, uint32_t b,
			  uint64_t w)
{
	uint64_t h = fw_sum(k->loc->fa, b) - fw_sum(k->loc->fb, a);
	return local_mix(h ^ w ^ (uint64_t)k->sides) | 1;
}

static void local_stretch(struct sky_local *l, uint32_t a, uint32_t b)
{
	uint64_t v = (uint64_t)a << 32 | b, h = local_mix(v);
	for (size_t i = 0; i < LOCAL_SET; i++) {
		uint64_t *e = &l->set[(h + i) & (LOCAL_SET - 1)];
		if (*e == v + 1)
			return;
		if (!*e) {
			if (l->n >= LOCAL_STRETCHES)
				return; /* not looked up: lost, never wrong */
			*e = v + 1;
			l->ab[2 * l->n] = a;
			l->ab[2 * l->n + 1] = b;
			l->abw[l->n] = mix_ab(a, b);
			l->n++;
			return;
		}
	}
}

/* Keeps what is placed in the stretch that why spans as failed. */
static void local_put(struct sky *k, const uint64_t *why)
{
	struct sky_local *l = k->loc;
	uint32_t a, b;
	cs_hull(k, why, &a, &b);
	if (b <= a)
		return;
	local_stretch(l, a, b);
	uint64_t key = local_key(k, a, b, mix_ab(a, b));
	uint64_t f = (key >> 32) % LOCAL_FILTER;
	uint64_t *e = l->k + (key & (LOCAL_SLOTS - 1)) * l->stride;
	e[0] = key;
	l->filter[f / 64] |= (uint64_t)1 << f % 64;
	if (l->stride == 2)
		e[1] = (uint64_t)a << 32 | b;
	else
		memcpy(e + 1, why, k->cw * sizeof(*why));
}

/* Whether what is placed in a stretch kept that meets sections [a, b)
 * is known to fail; its conflict set into why when it is. */
static int local_has(struct sky *k, uint32_t a, uint32_t b, uint64_t *why)
{
	const struct sky_local *l = k->loc;
	for (size_t i = 0; i < l->n; i++) {
		uint32_t sa = l->ab[2 * i], sb = l->ab[2 * i + 1];
		if (sa >= b || sb <= a)
			continue;
		uint64_t key = local_key(k, sa, sb, l->abw[i]);
		uint64_t f = (key >> 32) % LOCAL_FILTER;
		if (!(l->filter[f / 64] >> f % 64 & 1))
			continue;
		const uint64_t *e = l->k + (key & (LOCAL_SLOTS - 1)) * l->stride;
		if (e[0] != key)
			continue;
		if (l->stride == 2)
			cs_range(why, (uint32_t)(e[1] >> 32), (uint32_t)e[1]);
		else
			memcpy(why, e + 1, k->cw * sizeof(*why));
		k->memo->hits++;
		return 1;
	}
	return 0;
}

/* Keeps the placed set now as failed, for the reason why. */
static void memo_put(struct sky *k, const uint64_t *why)
{
	local_put(k, why);
	uint64_t key[2];
	memo_key(k, key);
	struct sky_memo *m = k->memo;
	uint64_t *e = m->k + (key[0] & m->mask) * m->stride;
	for (size_t i = 0; i < MEMO_PROBE; i++) {
		uint64_t *x = m->k + ((key[0] + i) & m->mask) * m->stride;
		if (!x[0] && !x[1]) {
			e = x;
			break;
		}
	}
	e[0] = key[0];
	e[1] = key[1];
	if (m->stride == 3) {
		uint32_t lo, hi;
		cs_hull(k, why, &lo, &hi);
		e[2] = (uint64_t)lo << 32 | hi;
	} else {
		memcpy(e + 2, why, k->cw * sizeof(*why));
	}
	m->stores++;
}

static int sky_dfs(struct sky *k, uint32_t s0, uint32_t s1, uint64_t *why);

/*
 * Solves the parts of [s0, s1) between the boundaries no unplaced item
 * crosses any more, one after the other: they share no buffer, so when
 * one has no placement the others' choices cannot help, and no other
 * choice of theirs is tried.  -2 when nothing splits.  why: as sky_dfs().
 */
static int sky_parts(struct sky *k, uint32_t s0, uint32_t s1, uint64_t *why)
{
	uint32_t a = s0;
	int split = 0;
	size_t mark = k->ntrail;
	for (uint32_t c = s0; c + 1 < s1; c++) {
		if (k->cross[c])
			continue;
		split = 1;
		int r = sky_dfs(k, a, c + 1, why);
		if (r != 1) {
			undo_to(k, mark);
			return r;
		}
		a = c + 1;
	}
	if (!split)
		return -2;
	int r = sky_dfs(k, a, s1, why);
	if (r != 1)
		undo_to(k, mark);
	return r;
}

/* Within sections [s0, s1), crossed by no unplaced item from outside:
 * 1: every item there placed (k->off; kept), 0: not below this node, with
 * the conflict set in why (cw words, filled here), -1: out of budget (both
 * leave the state as it was).  Two items of one life stacked in either
 * order leave one placed set: the memo ends the second order at its first
 * node. */
static int sky_dfs(struct sky *k, uint32_t s0, uint32_t s1, uint64_t *why)
{
	if (++k->nodes > k->max_nodes)
		return -1;
	/* a node scans sections and members: up to tens of microseconds on
	 * hundreds of buffers, so the clock (and the other search's word) is
	 * read every 256 */
	if ((k->nodes & 255) == 0 && solver_budget_spend(k->b, 0, 1)) {
		k->stop = 1;
		return -1;
	}
	uint64_t f = NONE, F = 0;
	for (size_t s = s0; s < s1; s++) {
		if (!k->unpl[s])
			continue;
		if (k->top[s] < f)
			f = k->top[s];
		if (k->ceil[s] > F)
			F = k->ceil[s];
	}
	if (f == NONE)
		return 1;
	/* the lowest top or highest ceiling with the fewest candidates */
	size_t best = SIZE_MAX, bestc = SIZE_MAX;
	int bside = 0;
	for (size_t s = s0; s < s1 && bestc > 1; s++) {
		if (!k->unpl[s])
			continue;
		for (int side = 0; side < k->sides && bestc > 1; side++) {
			uint64_t v = side ? F : f;
			if ((side ? k->ceil[s] : k->top[s]) != v)
				continue;
			size_t c = count_fits(k, s, v, side, bestc);
			if (c == 0) {
				memset(why, 0, k->cw * sizeof(*why));
				cs_nofit(k, why, (uint32_t)s, v, side);
				return 0;
			}
			if (c < bestc) {
				bestc = c;
				best = s;
				bside = side;
			}
		}
	}
	uint64_t v = bside ? F : f;
	uint64_t *acc = cs_push(k), *ch = cs_push(k);
	int ret = 0;
	for (size_t q = k->sec0[best]; q < k->sec0[best + 1]; q++) {
		uint32_t j = k->mem[q];
		/* not fits_flat(): children have run since, and the last of
		 * them left its answers under the node count now */
		if (!fits_flat_scan(k, j, v, bside))
			continue;
		size_t mark = k->ntrail;
		int r = 0;
		long z;
		uint64_t o = bside ? v - k->p->items[j].size : v;
		memset(ch, 0, k->cw * sizeof(*ch));
		if (place(k, j, o, bside)) {
			cs_range(ch, k->sa[j], k->sb[j]);
		} else {
			memo_prefetch(k);
			if ((z = all_coverable(k, j)) >= 0) {
				cs_cover(k, ch, (uint32_t)z);
			} else if (!local_has(k, k->sa[j], k->sb[j], ch) &&
				   !memo_has(k, ch)) { /* else why: theirs */
				r = sky_parts(k, s0, s1, ch);
				if (r == -2)
					r = sky_dfs(k, s0, s1, ch);
				if (r == 0)
					memo_put(k, ch);
			}
		}
		if (r == 1) {
			ret = 1;
			break;
		}
		undo_to(k, mark);
		if (r < 0) {
			ret = -1;
			break;
		}
		if (!cs_meets(ch, k->sa[j], k->sb[j])) {
			/* j had no part in it: neither has any other */
			memcpy(why, ch, k->cw * sizeof(*why));
			k->jumps++;
			k->csp -= 2;
			return 0;
		}
		cs_or(k, acc, ch);
	}
	if (ret == 0) {
		cs_nofit(k, acc, (uint32_t)best, v, bside);
		memcpy(why, acc, k->cw * sizeof(*why));
	}
	k->csp -= 2;
	return ret;
}

static void sky_free(struct sky *k)
{
	free(k->sa);
	free(k->sb);
	free(k->sec0);
	free(k->mem);
	free(k->top);
	free(k->unpl);
	free(k->off);
	free(k->cross);
	free(k->trail);
	free(k->twin);
	free(k->ceil);
	free(k->side);
	free(k->zob);
	free(k->cstack);
	free(k->last);
	free(k->prevlast);
	free(k->islot);
	free(k->fit);
	if (k->loc) {
		free(k->loc->fa);
		free(k->loc->fb);
		free(k->loc->k);
		free(k->loc->ab);
		free(k->loc->abw);
		free(k->loc->set);
		free(k->loc->filter);
	}
	free(k->loc);
	if (k->memo)
		free(k->memo->k);
	free(k->memo);
}

static _Thread_local const struct solver_problem *twin_p;
static int twin_cmp(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct solver_item *x = &twin_p->items[i], *y = &twin_p->items[j];
	if (x->lower != y->lower)
		return x->lower < y->lower ? -1 : 1;
	if (x->upper != y->upper)
		return x->upper < y->upper ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	if (x->align != y->align)
		return x->align < y->align ? -1 : 1;
	return (i > j) - (i < j);
}

/* Identical items (size, life, alignment) are interchangeable: placing
 * them in index order only leaves out relabellings of one placement. */
static void find_twins(struct sky *k)
{
	uint32_t *v = k->trail; /* scratch until a run starts */
	for (size_t i = 0; i < k->n; i++) {
		v[i] = (uint32_t)i;
		k->twin[i] = UINT32_MAX;
	}
	twin_p = k->p;
	qsort(v, k->n, sizeof(*v), twin_cmp);
	for (size_t i = 1; i < k->n; i++) {
		uint32_t a = v[i - 1], b = v[i];
		const struct solver_item *x = &k->p->items[a],
					 *y = &k->p->items[b];
		if (x->lower == y->lower && x->upper == y->upper &&
		    x->size == y->size && x->align == y->align)
			k->twin[b] = a;
	}
}

/* Sections from the distinct ends of the lifetimes, members per section.
 * 0, 1 when the problem is not of this search's kind, or SOLVER_ENOMEM. */
static int sky_build(struct sky *k, const struct solver_problem *p,
		     uint64_t cap)
{
	size_t n = p->n;
	int64_t *t = malloc((2 * n + 1) * sizeof(*t));
	k->sa = malloc((n + 1) * sizeof(*k->sa));
	k->sb = malloc((n + 1) * sizeof(*k->sb));
	k->off = malloc((n + 1) * sizeof(*k->off));
	if (!t || !k->sa || !k->sb || !k->off) {
		free(t);
		return SOLVER_ENOMEM;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct solver_item *it = &p->items[i];
		if (it->nholes || it->fixed_offset != SOLVER_FREE) {
			free(t);
			return 1;
		}
		t[m++] = it->lower;
		t[m++] = it->upper;
	}
	qsort(t, m, sizeof(*t), time_cmp);
	size_t u = 0;
	for (size_t i = 0; i < m; i++)
		if (u == 0 || t[i] != t[u - 1])
			t[u++] = t[i];
	k->nsec = u ? u - 1 : 0;
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		k->sa[i] = (uint32_t)solver_time_rank(t, u, p->items[i].lower);
		k->sb[i] = (uint32_t)solver_time_rank(t, u, p->items[i].upper);
		total += k->sb[i] - k->sa[i];
	}
	free(t);
	/* Only where every instant is full at cap: there every placement
	 * below cap is gapless, so the search is complete; elsewhere it
	 * would spend the budget on placements that need a gap.  Checked
	 * on a difference array before any member list is built. */
	k->unpl = calloc(k->nsec + 1, sizeof(*k->unpl));
	if (!k->unpl)
		return SOLVER_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		k->unpl[k->sa[i]] += p->items[i].size;
		k->unpl[k->sb[i]] -= p->items[i].size; /* wraps, then back */
	}
	uint64_t live = 0;
	for (size_t s = 0; s < k->nsec; s++) {
		live += k->unpl[s];
		if (live != cap && live != 0)
			return 1;
	}
	/* members per section: n * sections at worst; keep it bounded */
	if (total > (size_t)1 << 24)
		return 1;
	k->sec0 = calloc(k->nsec + 2, sizeof(*k->sec0));
	k->mem = malloc((total + 1) * sizeof(*k->mem));
	k->top = calloc(k->nsec + 1, sizeof(*k->top));
	k->cross = calloc(k->nsec + 1, sizeof(*k->cross));
	k->trail = malloc((n + 1) * sizeof(*k->trail));
	k->twin = malloc((n + 1) * sizeof(*k->twin));
	k->ceil = calloc(k->nsec + 1, sizeof(*k->ceil));
	k->side = calloc(n + 1, sizeof(*k->side));
	if (!k->sec0 || !k->mem || !k->top || !k->unpl || !k->cross ||
	    !k->trail || !k->twin || !k->ceil || !k->side)
		return SOLVER_ENOMEM;
	find_twins(k);
	for (size_t i = 0; i < n; i++)
		for (uint32_t z = k->sa[i]; z < k->sb[i]; z++)
			k->sec0[z + 1]++;
	for (size_t s = 0; s < k->nsec; s++)
		k->sec0[s + 1] += k->sec0[s];
	return 0;
}

/* The order candidates are tried in: a run's own, over every section. */
static _Thread_local const struct sky *sort_k;
static _Thread_local int sort_by;
static int mem_cmp(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct solver_item *x = &sort_k->p->items[i],
				 *y = &sort_k->p->items[j];
	uint64_t kx = sort_by ? (uint64_t)(x->upper - x->lower) : x->size;
	uint64_t ky = sort_by ? (uint64_t)(y->upper - y->lower) : y->size;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return (i > j) - (i < j);
}

/* Members of every section in rank_order; at: nsec scratch entries. */
static void fill_members(struct sky *k, const uint32_t *rank_order,
			 size_t *at)
{
	memcpy(at, k->sec0, k->nsec * sizeof(*at));
	for (size_t r = 0; r < k->n; r++) {
		uint32_t i = rank_order[r];
		for (uint32_t z = k->sa[i]; z < k->sb[i]; z++)
			k->mem[at[z]++] = i;
	}
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int solver_skyline_applies(const struct solver_problem *p, uint64_t cap)
{
	struct sky k = { .p = p, .n = p->n, .cap = cap };
	int rc = sky_build(&k, p, cap);
	sky_free(&k);
	return rc == 0;
}

int solver_search_skyline(const struct solver_problem *p, uint64_t cap,
			  uint64_t max_nodes, struct solver_budget *b,
			  uint64_t *offsets, uint64_t *nodes)
{
	struct sky k = { .p = p, .n = p->n, .cap = cap, .b = b };
	*nodes = 0;
	int rc = sky_build(&k, p, cap);
	uint32_t *order = rc ? NULL : malloc((p->n + 1) * sizeof(*order));
	size_t *at = rc ? NULL : malloc((k.nsec + 1) * sizeof(*at));
	if (!rc) {
		k.zob = malloc(4 * (p->n + 1) * sizeof(*k.zob));
		k.memo = calloc(1, sizeof(*k.memo));
		k.cw = (k.nsec + 64) / 64;
		if (k.memo) {
			k.memo->mask = MEMO_SLOTS - 1;
			k.memo->stride = k.cw <= MEMO_SET_WORDS ? 2 + k.cw : 3;
			k.memo->k = calloc(MEMO_SLOTS * k.memo->stride,
					   sizeof(*k.memo->k));
		}
		/* two per level, a level per placed item, one for the top */
		k.cstack = malloc((2 * p->n + 4) * k.cw * sizeof(*k.cstack));
		k.last = calloc(k.nsec + 1, sizeof(*k.last));
		k.islot = malloc((p->n + 1) * sizeof(*k.islot));
		size_t tot = 0;
		for (size_t i = 0; k.islot && i < p->n; i++) {
			k.islot[i] = tot;
			tot += k.sb[i] - k.sa[i];
		}
		k.prevlast = malloc((tot + 1) * sizeof(*k.prevlast));
		k.fit = calloc(2 * p->n + 2, sizeof(*k.fit));
		k.loc = calloc(1, sizeof(*k.loc));
		if (k.loc) {
			struct sky_local *l = k.loc;
			l->stride = k.cw <= MEMO_SET_WORDS ? 1 + k.cw : 2;
			l->fa = calloc(k.nsec + 2, sizeof(*l->fa));
			l->fb = calloc(k.nsec + 2, sizeof(*l->fb));
			l->k = calloc(LOCAL_SLOTS * l->stride, sizeof(*l->k));
			l->ab = malloc(2 * LOCAL_STRETCHES * sizeof(*l->ab));
			l->abw = malloc(LOCAL_STRETCHES * sizeof(*l->abw));
			l->set = calloc(LOCAL_SET, sizeof(*l->set));
			l->filter = calloc(LOCAL_FILTER / 64,
					   sizeof(*l->filter));
		}
		if (!order || !at || !k.zob || !k.memo || !k.memo->k ||
		    !k.cstack || !k.last || !k.islot || !k.prevlast ||
		    !k.fit || !k.loc || !k.loc->fa || !k.loc->fb ||
		    !k.loc->k || !k.loc->ab || !k.loc->abw || !k.loc->set ||
		    !k.loc->filter)
			rc = SOLVER_ENOMEM;
	}
	if (!rc) {
		uint64_t z = 0x2545f4914f6cdd1du;
		for (size_t i = 0; i < 4 * p->n; i++)
			k.zob[i] = rng_next(&z);
	}
	if (rc) {
		free(order);
		free(at);
		sky_free(&k);
		return rc > 0 ? 0 : rc;
	}
	/* Restarts: budgets doubling from 4n nodes, the candidates by size,
	 * then by lifetime, then in shuffles of those (the trees have heavy
	 * tails, as the exact search's do). */
	uint64_t seed = 0x5ca1ab1e, unit = 4 * (uint64_t)p->n + 64;
	int found = 0;
	for (uint64_t run = 0; !found && !k.stop && k.nodes < max_nodes; run++) {
		for (size_t i = 0; i < p->n; i++)
			order[i] = (uint32_t)i;
		sort_k = &k;
		sort_by = (int)(run / 2 % 2);
		k.sides = 1 + (int)(run % 2);
		qsort(order, p->n, sizeof(*order), mem_cmp);
		for (size_t i = 0; run >= 4 && i + 1 < p->n; i++) {
			size_t j = i + rng_next(&seed) % 8;
			if (j >= p->n)
				j = p->n - 1;
			uint32_t t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		fill_members(&k, order, at);
		for (size_t s = 0; s < k.nsec; s++) {
			k.top[s] = k.unpl[s] = k.cross[s] = 0;
			k.last[s] = 0;
		}
		for (size_t s = 0; s < k.nsec; s++)
			k.ceil[s] = cap;
		k.ntrail = 0;
		for (size_t i = 0; i < p->n; i++) {
			k.off[i] = NONE;
			for (uint32_t z = k.sa[i]; z < k.sb[i]; z++)
				k.unpl[z] += p->items[i].size;
			for (uint32_t z = k.sa[i]; z + 1 < k.sb[i]; z++)
				k.cross[z]++;
		}
		uint64_t budget = unit << (run / 2 < 20 ? run / 2 : 20);
		uint64_t end = k.nodes + budget;
		k.max_nodes = end < max_nodes ? end : max_nodes;
		k.key[0] = k.key[1] = 0;
		memset(k.loc->fa, 0, (k.nsec + 2) * sizeof(*k.loc->fa));
		memset(k.loc->fb, 0, (k.nsec + 2) * sizeof(*k.loc->fb));
		k.csp = 0;
		uint64_t *why = cs_push(&k);
		int r = k.nsec ? sky_parts(&k, 0, (uint32_t)k.nsec, why) : 1;
		if (r == -2)
			r = sky_dfs(&k, 0, (uint32_t)k.nsec, why);
		if (r == 1)
			found = 1;
		else if (r == 0)
			break; /* exhausted: no gapless placement at all */
	}
	if (found) {
		/* items that meet nobody's section have none: place them at 0 */
		for (size_t i = 0; i < p->n; i++)
			offsets[i] = k.off[i] == NONE ? 0 : k.off[i];
	}
	*nodes = k.nodes;
	free(order);
	free(at);
	sky_free(&k);
	return found;
}
