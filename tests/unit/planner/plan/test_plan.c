/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c - the plan file (runtime/plan.c) and plans of traces
 * (planner/plan/planfile.c): round trips; every corruption and truncation
 * refused; foreign files, versions, unknown sections, overflowing fields;
 * the fingerprint and checksum against values computed independently from
 * memplan-plan(5); plans of zoo traces and of a MiniMalloc instance
 * verified; broken plans caught; the verifier's sweep against
 * solver_check() on random traces with holes; the optional SWAP_TIMING
 * section (round trip, refusals, older plans without it) and the
 * simulator's figures it records (sim_attach_timing on a timed trace);
 * the optional CYCLE section and cycle plans of zoo mixes (pool, verify,
 * replay in order and out of it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cycle.h"
#include "link.h"
#include "minimalloc_csv.h"
#include "plan.h"
#include "planfile.h"
#include "replay.h"
#include "simulate.h"
#include "solver.h"
#include "synth.h"
#include "tap.h"
#include "trace.h"

static char err[1024];

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}
static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void fix_checksum(unsigned char *b, size_t len)
{
	put32(b + MP_PLAN_CHECKSUM_AT, mp_plan_checksum(b, len));
}

/* A small plan by hand: 6 requests on a clock of 11, two pass through
 * (one of them outlives the iteration), one swap. */
static void sample_plan(struct mp_plan *p)
{
	memset(p, 0, sizeof(*p));
	static const struct mp_plan_alloc a[] = {
		{ 100, 0, 0, 0, 5, 0 },
		{ 50, 128, 1, 1, 3, 0 },
		{ 70, MP_PLAN_PASS_THROUGH, 2, 2, 9, 0 },
		{ 30, 128, 3, 4, 6, 0 },
		{ 8, MP_PLAN_PASS_THROUGH, 4, 7, MP_PLAN_NO_FREE, 0 },
		{ 64, 0, 5, 8, 10, 0 },
	};
	p->allocs = malloc(sizeof(a));
	memcpy(p->allocs, a, sizeof(a));
	p->nallocs = 6;
	p->swaps = malloc(sizeof(*p->swaps));
	p->swaps[0] = (struct mp_plan_swap){ 0, 1, 3, 16, 64, 0, 0 };
	p->nswaps = 1;
	uint64_t sizes[6];
	for (int i = 0; i < 6; i++)
		sizes[i] = a[i].size;
	p->version = MP_PLAN_VERSION;
	p->pool_size = 192;
	p->pool_align = 64;
	p->device = 0;
	p->nrequests = 11;
	p->fingerprint = mp_plan_fingerprint(sizes, 6);
	p->lower_bound = 180;
	p->persistent_bytes = 4096;
	p->host_staging = 64;
	p->flags = MP_PLAN_OPTIMAL;
	strcpy(p->strategy, "auto/exact");
}

static int same_plan(const struct mp_plan *a, const struct mp_plan *b)
{
	if (a->flags != b->flags || a->pool_size != b->pool_size ||
	    a->pool_align != b->pool_align || a->device != b->device ||
	    a->nrequests != b->nrequests || a->fingerprint != b->fingerprint ||
	    a->lower_bound != b->lower_bound ||
	    a->persistent_bytes != b->persistent_bytes ||
	    a->host_staging != b->host_staging ||
	    strcmp(a->strategy, b->strategy) != 0 || a->nallocs != b->nallocs ||
	    a->nswaps != b->nswaps)
		return 0;
	for (uint32_t i = 0; i < a->nallocs; i++) {
		const struct mp_plan_alloc *x = &a->allocs[i], *y = &b->allocs[i];
		if (x->size != y->size || x->offset != y->offset ||
		    x->buffer != y->buffer || x->lower != y->lower ||
		    x->upper != y->upper || x->flags != y->flags)
			return 0;
	}
	for (uint32_t i = 0; i < a->nswaps; i++) {
		const struct mp_plan_swap *x = &a->swaps[i], *y = &b->swaps[i];
		if (x->request != y->request || x->out_at != y->out_at ||
		    x->in_at != y->in_at || x->src_offset != y->src_offset ||
		    x->bytes != y->bytes || x->staging != y->staging ||
		    x->flags != y->flags)
			return 0;
	}
	if (a->has_timing != b->has_timing)
		return 0;
	for (uint32_t i = 0; a->has_timing && i < a->nswaps; i++) {
		const struct mp_plan_swap_timing *x = &a->timing[i],
						 *y = &b->timing[i];
		if (x->d2h_slack_ns != y->d2h_slack_ns ||
		    x->h2d_slack_ns != y->h2d_slack_ns ||
		    x->predicted_stall_ns != y->predicted_stall_ns ||
		    x->flags != y->flags)
			return 0;
	}
	return 1;
}

/* The sample plan's one swap with a timing: out late, in early. */
static void sample_timing(struct mp_plan *p)
{
	p->timing = malloc(sizeof(*p->timing));
	p->timing[0] = (struct mp_plan_swap_timing){ -1500, 2500, 1500, 0 };
	p->has_timing = 1;
}

/* --- the format ---------------------------------------------------------- */

static void test_fingerprint(void)
{
	/* computed from the definition in memplan-plan(5) by a separate
	 * implementation (Python), not by this code */
	static const uint64_t s[] = { 1, 2, 3, 4096 };
	static const uint64_t r[] = { 4096, 3, 2, 1 };
	static const uint64_t big[] = { UINT64_C(1) << 40 };
	CHECK_EQ_U64(mp_plan_fingerprint(NULL, 0), UINT64_C(0x421e52954276ec25),
		     "fingerprint of no request matches the definition");
	CHECK_EQ_U64(mp_plan_fingerprint(s, 4), UINT64_C(0x2f1b7bf71228a5c4),
		     "fingerprint of 1, 2, 3, 4096 matches the definition");
	CHECK_EQ_U64(mp_plan_fingerprint(r, 4), UINT64_C(0x26f2223cec2b816c),
		     "fingerprint of 4096, 3, 2, 1 matches the definition");
	CHECK_EQ_U64(mp_plan_fingerprint(big, 1), UINT64_C(0xa0e59f809c637e2d),
		     "fingerprint of 2^40 matches the definition");

	struct mp_plan_fp fp;
	mp_plan_fp_init(&fp);
	for (int i = 0; i < 4; i++)
		mp_plan_fp_update(&fp, s[i]);
	CHECK_EQ_U64(mp_plan_fp_final(&fp), mp_plan_fingerprint(s, 4),
		     "incremental fingerprint equals the one-call fingerprint");
	CHECK(mp_plan_fingerprint(s, 4) == mp_plan_fingerprint(s, 4),
	      "the fingerprint is deterministic");

	/* sensitivity: any one size changed, order, length */
	uint64_t seq[64], base;
	for (int i = 0; i < 64; i++)
		seq[i] = 1 + below(1u << 30);
	base = mp_plan_fingerprint(seq, 64);
	int changed = 1;
	for (int i = 0; i < 64; i++)
		for (int bit = 0; bit < 64; bit++) {
			seq[i] ^= UINT64_C(1) << bit;
			changed &= mp_plan_fingerprint(seq, 64) != base;
			seq[i] ^= UINT64_C(1) << bit;
		}
	CHECK(changed, "flipping any bit of any size changes the fingerprint");
	CHECK(mp_plan_fingerprint(seq, 63) != base,
	      "dropping the last request changes the fingerprint");
	uint64_t t = seq[3];
	seq[3] = seq[4];
	seq[4] = t;
	CHECK(mp_plan_fingerprint(seq, 64) != base,
	      "swapping two requests changes the fingerprint");
	static const uint64_t z[] = { 0 };
	CHECK(mp_plan_fingerprint(z, 1) != mp_plan_fingerprint(NULL, 0),
	      "the count is part of the fingerprint");
}

static void test_checksum(void)
{
	CHECK_EQ_U64(mp_plan_crc32c(0, "123456789", 9), 0xe3069283u,
		     "CRC-32C check value of '123456789'");
	uint32_t c = mp_plan_crc32c(0, "1234", 4);
	CHECK_EQ_U64(mp_plan_crc32c(c, "56789", 5), 0xe3069283u,
		     "CRC-32C continues across calls");
}

static void test_round_trip(void)
{
	struct mp_plan p, q;
	sample_plan(&p);
	int rc = mp_plan_validate(&p, err, sizeof(err));
	CHECK(rc == 0, "the sample plan is valid");
	if (rc)
		printf("# %s\n", err);
	unsigned char *buf = NULL, *buf2 = NULL;
	size_t len = 0, len2 = 0;
	CHECK(mp_plan_encode(&p, &buf, &len, err, sizeof(err)) == 0, "encode");
	CHECK_EQ_U64(len, 64 + 3 * 32 + 96 + 6 * 48 + 56, "encoded size");
	CHECK(memcmp(buf, "\x89MPLAN\r\n", 8) == 0, "the file starts with the magic");
	CHECK_EQ_U64(get32(buf + 8), 1, "version 1 at byte 8");
	CHECK_EQ_U64(get64(buf + 16), len, "file size at byte 16");
	CHECK_EQ_U64(get64(buf + 160), 192, "META pool size first, at byte 160");
	CHECK_EQ_U64(get64(buf + 256 + 8), 0, "ALLOCS entry 0 offset at byte 264");
	CHECK_EQ_U64(get64(buf + 256 + 48 + 8), 128, "ALLOCS entry 1 offset");
	rc = mp_plan_decode(buf, len, &q, err, sizeof(err));
	CHECK(rc == 0, "decode");
	if (rc)
		printf("# %s\n", err);
	CHECK(rc == 0 && same_plan(&p, &q), "decode gives back every field");
	CHECK(rc == 0 && !q.has_timing && q.timing == NULL,
	      "a plan without SWAP_TIMING decodes without timing");
	CHECK_EQ_U64(q.version, 1, "decode reports the version");
	CHECK(mp_plan_encode(&q, &buf2, &len2, err, sizeof(err)) == 0 &&
		      len2 == len && memcmp(buf, buf2, len) == 0,
	      "encoding the decoded plan gives the same bytes");
	free(buf2);

	/* negative device survives */
	p.device = -1;
	free(buf);
	mp_plan_free(&q);
	mp_plan_encode(&p, &buf, &len, err, sizeof(err));
	CHECK(mp_plan_decode(buf, len, &q, err, sizeof(err)) == 0 &&
		      q.device == -1,
	      "device -1 (unknown) round-trips");
	mp_plan_free(&q);

	/* an empty plan */
	struct mp_plan e;
	memset(&e, 0, sizeof(e));
	e.pool_align = 1;
	e.fingerprint = mp_plan_fingerprint(NULL, 0);
	free(buf);
	CHECK(mp_plan_encode(&e, &buf, &len, err, sizeof(err)) == 0 &&
		      mp_plan_decode(buf, len, &q, err, sizeof(err)) == 0 &&
		      q.nallocs == 0 && q.allocs == NULL,
	      "an empty plan round-trips");
	mp_plan_free(&q);
	free(buf);
	mp_plan_free(&p);
	mp_plan_free(&e);
}

static void test_corruption(void)
{
	struct mp_plan p, q;
	sample_plan(&p);
	unsigned char *buf;
	size_t len;
	mp_plan_encode(&p, &buf, &len, err, sizeof(err));
	unsigned char *c = malloc(len);
	int all = 1, named = 1;
	static const unsigned char flips[] = { 0x01, 0x80, 0xff, 0x10 };
	for (size_t i = 0; i < len; i++)
		for (size_t f = 0; f < sizeof(flips); f++) {
			memcpy(c, buf, len);
			c[i] ^= flips[f];
			err[0] = '\0';
			int rc = mp_plan_decode(c, len, &q, err, sizeof(err));
			if (rc == 0) {
				all = 0;
				printf("# byte %zu ^ 0x%02x accepted\n", i, flips[f]);
				mp_plan_free(&q);
			}
			named &= err[0] != '\0';
		}
	CHECK(all, "every single-byte corruption is refused");
	CHECK(named, "every refusal has a sentence");

	all = 1;
	int says = 1;
	for (size_t n = 0; n < len; n++) {
		memcpy(c, buf, n);
		err[0] = '\0';
		if (mp_plan_decode(n ? c : NULL, n, &q, err, sizeof(err)) == 0) {
			all = 0;
			mp_plan_free(&q);
		}
		if (n >= 8 && !strstr(err, "truncated"))
			says = 0;
	}
	CHECK(all, "every truncation is refused");
	CHECK(says, "a truncation past the magic says 'truncated'");

	unsigned char *longer = calloc(1, len + 1);
	memcpy(longer, buf, len);
	CHECK(mp_plan_decode(longer, len + 1, &q, err, sizeof(err)) ==
		      MP_PLAN_EFORMAT,
	      "a trailing byte is refused");
	CHECK_STR_HAS(err, "trailing", "the error says trailing bytes");
	free(longer);

	memcpy(c, buf, len);
	c[300] ^= 1;
	mp_plan_decode(c, len, &q, err, sizeof(err));
	CHECK_STR_HAS(err, "checksum", "a flipped payload bit names the checksum");
	free(c);
	free(buf);
	mp_plan_free(&p);
}

static void test_foreign(void)
{
	struct mp_plan q;
	static const char sqlite[] = "SQLite format 3\0\x10\0\x01\x01";
	int rc = mp_plan_decode((const unsigned char *)sqlite, sizeof(sqlite),
				&q, err, sizeof(err));
	CHECK(rc == MP_PLAN_EFORMAT, "an SQLite file is refused");
	CHECK_STR_HAS(err, "not a memplan plan file", "it is called foreign");
	static const char csv[] = "id,lower,upper,size\n0,0,5,100\n";
	CHECK(mp_plan_decode((const unsigned char *)csv, sizeof(csv) - 1, &q,
			     err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "a CSV file is refused");
	CHECK(mp_plan_decode((const unsigned char *)"", 0, &q, err,
			     sizeof(err)) == MP_PLAN_EFORMAT,
	      "an empty file is refused");
	CHECK_STR_HAS(err, "empty", "it is called empty");
	/* the magic through a text-mode transfer (CR LF -> LF) */
	unsigned char *buf;
	size_t len;
	struct mp_plan p;
	sample_plan(&p);
	mp_plan_encode(&p, &buf, &len, err, sizeof(err));
	memmove(buf + 6, buf + 7, len - 7);
	CHECK(mp_plan_decode(buf, len - 1, &q, err, sizeof(err)) ==
		      MP_PLAN_EFORMAT,
	      "a plan whose CR LF became LF is refused");
	free(buf);
	mp_plan_free(&p);
}

/* --- files assembled by hand ---------------------------------------------- */

struct tsec {
	uint32_t type, flags, count, esize;
	const unsigned char *data;
	size_t len;
};

/* A file with these sections in this order (header version v, flags hf). */
static unsigned char *assemble(const struct tsec *s, size_t n, uint32_t v,
			       uint32_t hf, size_t *len)
{
	size_t at = 64 + 32 * n, total = at;
	for (size_t i = 0; i < n; i++)
		total += s[i].len;
	unsigned char *b = calloc(1, total);
	memcpy(b, MP_PLAN_MAGIC, 8);
	put32(b + 8, v);
	put32(b + 12, 64);
	put64(b + 16, total);
	put32(b + 24, (uint32_t)n);
	put32(b + 32, hf);
	for (size_t i = 0; i < n; i++) {
		unsigned char *e = b + 64 + 32 * i;
		put32(e, s[i].type);
		put32(e + 4, s[i].flags);
		put64(e + 8, at);
		put64(e + 16, s[i].len);
		put32(e + 24, s[i].count);
		put32(e + 28, s[i].esize);
		if (s[i].len)
			memcpy(b + at, s[i].data, s[i].len);
		at += s[i].len;
	}
	fix_checksum(b, total);
	*len = total;
	return b;
}

/* The sections of an encoded sample plan, pointing into buf. */
static size_t split(const unsigned char *buf, struct tsec *s)
{
	uint32_t n = get32(buf + 24);
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *e = buf + 64 + 32 * i;
		s[i] = (struct tsec){ get32(e), get32(e + 4), get32(e + 24),
				      get32(e + 28), buf + get64(e + 8),
				      (size_t)get64(e + 16) };
	}
	return n;
}

static void test_sections(void)
{
	struct mp_plan p, q;
	sample_plan(&p);
	unsigned char *buf, *b;
	size_t len, n;
	mp_plan_encode(&p, &buf, &len, err, sizeof(err));
	struct tsec s[8];
	size_t ns = split(buf, s);
	CHECK_EQ_U64(ns, 3, "the writer puts three sections");

	b = assemble(s, ns, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && same_plan(&p, &q),
	      "the test assembler makes a valid file");
	mp_plan_free(&q);
	free(b);

	/* sections in another order */
	struct tsec r[3] = { s[2], s[0], s[1] };
	b = assemble(r, 3, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && same_plan(&p, &q),
	      "sections may come in any order");
	mp_plan_free(&q);
	free(b);

	/* unknown sections */
	static const unsigned char junk[24] = "future things go here..";
	struct tsec u[4] = { s[0], s[1], s[2], { 99, 0, 3, 8, junk, 24 } };
	b = assemble(u, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && same_plan(&p, &q),
	      "an unknown optional section is skipped");
	mp_plan_free(&q);
	free(b);
	u[3].flags = MP_PLAN_SECTION_REQUIRED;
	b = assemble(u, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == MP_PLAN_EVERSION,
	      "an unknown required section is refused");
	CHECK_STR_HAS(err, "required", "the error says required");
	CHECK_STR_HAS(err, "99", "the error names the type");
	free(b);

	/* without SWAPS: no swaps; without META or ALLOCS: refused */
	b = assemble(s, 2, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && q.nswaps == 0,
	      "a file without SWAPS has no swaps");
	mp_plan_free(&q);
	free(b);
	struct tsec m[2] = { s[1], s[2] };
	b = assemble(m, 2, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "a file without META is refused");
	CHECK_STR_HAS(err, "META", "the error names META");
	free(b);
	struct tsec d[4] = { s[0], s[1], s[2], s[1] };
	b = assemble(d, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "a second ALLOCS section is refused");
	free(b);

	/* versions and header flags */
	b = assemble(s, ns, 2, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == MP_PLAN_EVERSION,
	      "version 2 is refused as newer");
	CHECK_STR_HAS(err, "version", "the error names the version");
	free(b);
	b = assemble(s, ns, 0, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "version 0 is refused");
	free(b);
	b = assemble(s, ns, 1, 0x4, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == MP_PLAN_EVERSION,
	      "an unknown required header flag is refused");
	free(b);
	b = assemble(s, ns, 1, 0x10000, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0,
	      "an unknown optional header flag is ignored");
	mp_plan_free(&q);
	free(b);

	/* larger entries from a later writer: readers use the prefix */
	size_t na = s[1].count;
	unsigned char *wide = calloc(na, 56);
	for (size_t i = 0; i < na; i++)
		memcpy(wide + 56 * i, s[1].data + 48 * i, 48);
	unsigned char meta[120] = { 0 };
	memcpy(meta, s[0].data, 96);
	struct tsec w[3] = { { 1, 1, 1, 120, meta, 120 },
			     { 2, 1, (uint32_t)na, 56, wide, 56 * na },
			     s[2] };
	b = assemble(w, 3, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && same_plan(&p, &q),
	      "entries larger than version 1's are read by their prefix");
	mp_plan_free(&q);
	free(b);
	w[1].esize = 40;
	w[1].count = (uint32_t)(56 * na / 40);
	w[1].len = 40 * (size_t)w[1].count;
	b = assemble(w, 3, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "entries smaller than version 1's are refused");
	CHECK_STR_HAS(err, "entry_size", "the error names entry_size");
	free(b);
	free(wide);
	free(buf);
	mp_plan_free(&p);
}

/* Patches one field of an encoded sample plan (and its checksum). */
static int patched(size_t at, int width, uint64_t v, const char *says,
		   const char *what)
{
	struct mp_plan p, q;
	sample_plan(&p);
	unsigned char *buf;
	size_t len;
	mp_plan_encode(&p, &buf, &len, err, sizeof(err));
	if (width == 4)
		put32(buf + at, (uint32_t)v);
	else
		put64(buf + at, v);
	fix_checksum(buf, len);
	err[0] = '\0';
	int rc = mp_plan_decode(buf, len, &q, err, sizeof(err));
	CHECK(rc != 0, what);
	if (rc == 0)
		mp_plan_free(&q);
	if (says)
		CHECK_STR_HAS(err, says, "  ... and says why");
	free(buf);
	mp_plan_free(&p);
	return rc;
}

static void test_overflow(void)
{
	/* the table: 3 entries at 64, META at 160, ALLOCS at 256, SWAPS at 544 */
	patched(24, 4, UINT32_MAX, "nsections", "section count 2^32-1");
	patched(24, 4, 100, "nsections", "section count past the file");
	patched(16, 8, UINT64_MAX, "truncated", "file size 2^64-1");
	patched(12, 4, UINT32_MAX, "header_size", "header size 2^32-1");
	patched(12, 4, 8, "header_size", "header size below 64");
	patched(64 + 32 + 8, 8, UINT64_MAX - 8, "offset", "ALLOCS offset near 2^64");
	patched(64 + 32 + 16, 8, UINT64_MAX, "offset", "ALLOCS length 2^64-1");
	patched(64 + 32 + 24, 4, UINT32_MAX, "length", "ALLOCS count 2^32-1");
	patched(64 + 32 + 28, 4, 0, "length", "ALLOCS entry size 0");
	patched(64 + 32 + 28, 4, UINT32_MAX, "length", "ALLOCS entry size 2^32-1");
	patched(64 + 32 + 8, 8, 64, "offset", "ALLOCS over the section table");
	patched(64 + 32 + 8, 8, 160, "overlaps", "ALLOCS over META");
	patched(64 + 8, 8, 0, "offset", "META at offset 0");
	patched(64 + 24, 4, 2, "length", "META count 2");
	/* contents */
	patched(160 + 8, 8, 48, "pool_align", "pool alignment not a power of two");
	patched(160 + 8, 8, 0, "pool_align", "pool alignment 0");
	patched(160, 8, 150, "pool", "a pool smaller than an entry's end");
	patched(160 + 16, 8, 5, "nrequests", "a clock shorter than the requests");
	patched(160 + 24, 8, 12345, "fingerprint", "a fingerprint of other sizes");
	patched(160 + 32, 8, 1000, "lower_bound", "a lower bound above the pool");
	patched(160 + 56, 4, (uint32_t)-7, "device", "device -7");
	patched(160 + 64, 4, 0x0a0a0a0a, "strategy", "a strategy name with control bytes");
	patched(256 + 48 + 8, 8, 129, "multiple", "a misaligned offset");
	patched(256 + 48 + 8, 8, UINT64_MAX - 63, "pool", "an offset near 2^64");
	patched(256 + 48 * 1 + 0, 8, 0, "size", "a request of 0 bytes");
	patched(256 + 48 * 1 + 24, 8, 0, "lower", "clock ordinals out of order");
	patched(256 + 48 * 1 + 32, 8, 1, "upper", "a free before its alloc");
	patched(256 + 48 * 1 + 32, 8, 99, "upper", "a free past the clock");
	patched(256 + 48 * 1 + 32, 8, 5, "upper", "two frees at one ordinal");
	patched(256 + 48 * 1 + 32, 8, 2, "lower", "a free at an alloc's ordinal");
	patched(256 + 48 * 4 + 8, 8, 0, "iteration", "an offset for a buffer never freed");
	/* the swap */
	patched(544, 8, 6, "request", "a swap of a request that does not exist");
	patched(544, 8, 2, "passes through", "a swap of a pass-through request");
	patched(544 + 8, 8, 3, "in_at", "a swap-in at its swap-out");
	patched(544 + 16, 8, 7, "in_at", "a swap-in after the free");
	patched(544 + 8, 8, UINT64_MAX, "out_at", "a swap-out at 2^64-1");
	patched(544 + 32, 8, 0, "bytes", "a swap of 0 bytes");
	patched(544 + 24, 8, 40, "bytes", "a swap past its buffer's end");
	patched(544 + 40, 8, 8, "staging", "a staging slot past the staging area");
	patched(544 + 40, 8, UINT64_MAX, "staging", "a staging slot at 2^64-1");
}

static void test_strategy_name(void)
{
	struct mp_plan p, q;
	sample_plan(&p);
	unsigned char *buf;
	size_t len;
	mp_plan_encode(&p, &buf, &len, err, sizeof(err));
	memset(buf + 160 + 64, 'A', MP_PLAN_STRATEGY_LEN);
	fix_checksum(buf, len);
	CHECK(mp_plan_decode(buf, len, &q, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "a strategy name filling its 32 bytes (no NUL) is refused");
	CHECK_STR_HAS(err, "NUL", "  ... and the error says so");
	buf[160 + 64 + 31] = '\0';
	fix_checksum(buf, len);
	CHECK(mp_plan_decode(buf, len, &q, err, sizeof(err)) == 0 &&
		      strlen(q.strategy) == 31,
	      "a strategy name of 31 bytes is read");
	mp_plan_free(&q);
	free(buf);
	mp_plan_free(&p);
}

static void test_invalid_encode(void)
{
	struct mp_plan p;
	unsigned char *buf = (unsigned char *)"x";
	size_t len = 7;
	sample_plan(&p);
	p.allocs[1].offset = 100;
	CHECK(mp_plan_encode(&p, &buf, &len, err, sizeof(err)) == MP_PLAN_EINVAL,
	      "encode refuses a misaligned offset");
	CHECK(buf == NULL && len == 0, "  ... and allocates nothing");
	CHECK_STR_HAS(err, "ALLOCS entry 1", "  ... naming the entry");
	mp_plan_free(&p);
	sample_plan(&p);
	p.swaps[0].in_at = 0;
	CHECK(mp_plan_encode(&p, &buf, &len, err, sizeof(err)) == MP_PLAN_EINVAL,
	      "encode refuses a swap-in before its swap-out");
	mp_plan_free(&p);
}

/* The loader's boundaries, each one byte or ordinal either side (issue
 * 22): a buffer's end, not only its start, inside the pool; a section's
 * end inside the file; two swaps of one request neither overlapping by one
 * ordinal nor meeting at one (the runtime would copy bytes out before they
 * are back). */
static void test_boundaries(void)
{
	struct mp_plan p, q;
	unsigned char *buf;
	size_t len;
	sample_plan(&p);
	p.allocs[0].offset = 128; /* 100 bytes from 128: past the pool's 192 */
	CHECK(mp_plan_encode(&p, &buf, &len, err, sizeof(err)) == MP_PLAN_EINVAL,
	      "a buffer that starts inside the pool and ends past it is refused");
	CHECK_STR_HAS(err, "do not fit in the pool", "  ... saying so");
	p.allocs[0].offset = 64; /* 64 + 100 = 164: inside */
	CHECK(mp_plan_encode(&p, &buf, &len, err, sizeof(err)) == 0,
	      "  ... and one that ends inside it is not");
	free(buf);
	mp_plan_free(&p);

	/* the last section (SWAPS, table entry 2) one entry of 8 more bytes:
	 * it would run 8 bytes past the end of the file */
	sample_plan(&p);
	mp_plan_encode(&p, &buf, &len, err, sizeof(err));
	mp_plan_free(&p);
	unsigned char *e = buf + MP_PLAN_HEADER_SIZE + 2 * MP_PLAN_SECTION_SIZE;
	CHECK(get32(e) == MP_PLAN_SECTION_SWAPS && get64(e + 8) + get64(e + 16) == len,
	      "the sample's last section is SWAPS and ends the file");
	put64(e + 16, get64(e + 16) + 8);
	put32(e + 28, get32(e + 28) + 8);
	fix_checksum(buf, len);
	CHECK(mp_plan_decode(buf, len, &q, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "a section running 8 bytes past the end of the file is refused");
	CHECK_STR_HAS(err, "not inside the file", "  ... saying so");
	put64(e + 16, get64(e + 16) - 8);
	put32(e + 28, get32(e + 28) - 8);
	fix_checksum(buf, len);
	CHECK(mp_plan_decode(buf, len, &q, err, sizeof(err)) == 0,
	      "  ... and the same file with the section ending at the file's end is read");
	mp_plan_free(&q);
	free(buf);

	/* clock ordinals one past their bound; request 4 passes through and
	 * is never freed, request 3 lives over [4, 6) */
	static const struct {
		int field;
		uint64_t v;
		const char *says, *what;
	} edge[] = {
		{ 0, 11, "field lower", "an alloc at ordinal nrequests is refused" },
		{ 1, 11, "field upper", "a free at ordinal nrequests is refused" },
		{ 2, 3, "field out_at", "a swap-out before its request's alloc is refused" },
		{ 3, 6, "field in_at", "a swap-in at its request's free is refused" },
	};
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		sample_plan(&p);
		p.swaps[0] = (struct mp_plan_swap){ 3, 4, 5, 0, 30, 0, 0 };
		if (edge[i].field == 0) {
			/* without entry 5, the pass-through entry 4 (never
			 * freed) is the last alloc; ordinals 8 to 10 are free */
			p.nallocs = 5;
			uint64_t sz[5];
			for (int j = 0; j < 5; j++)
				sz[j] = p.allocs[j].size;
			p.fingerprint = mp_plan_fingerprint(sz, 5);
			p.allocs[4].lower = edge[i].v;
		} else if (edge[i].field == 1) {
			p.allocs[5].upper = edge[i].v;
		} else if (edge[i].field == 2) {
			p.swaps[0].out_at = edge[i].v;
		} else {
			p.swaps[0].in_at = edge[i].v;
		}
		err[0] = '\0';
		CHECK(mp_plan_validate(&p, err, sizeof(err)) == MP_PLAN_EFORMAT, edge[i].what);
		CHECK_STR_HAS(err, edge[i].says, "  ... naming the field");
		if (edge[i].field == 0) {
			p.allocs[4].lower = 10;
			CHECK(mp_plan_validate(&p, err, sizeof(err)) == 0,
			      "  ... and one at the ordinal before is not");
		} else if (edge[i].field == 1) {
			p.allocs[5].upper = 10;
			CHECK(mp_plan_validate(&p, err, sizeof(err)) == 0,
			      "  ... and one at the ordinal before is not");
		} else if (edge[i].field == 2) {
			p.swaps[0].out_at = 4;
			CHECK(mp_plan_validate(&p, err, sizeof(err)) == 0,
			      "  ... and one at the alloc is not");
		} else {
			p.swaps[0].in_at = 5;
			CHECK(mp_plan_validate(&p, err, sizeof(err)) == 0,
			      "  ... and one at the ordinal before is not");
		}
		mp_plan_free(&p);
	}

	/* the first section starting one byte inside the section table */
	sample_plan(&p);
	mp_plan_encode(&p, &buf, &len, err, sizeof(err));
	mp_plan_free(&p);
	e = buf + MP_PLAN_HEADER_SIZE;
	size_t body = MP_PLAN_HEADER_SIZE + 3 * MP_PLAN_SECTION_SIZE;
	CHECK(get64(e + 8) == body, "the sample's first section starts right after the table");
	put64(e + 8, body - 1);
	fix_checksum(buf, len);
	CHECK(mp_plan_decode(buf, len, &q, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "a section starting inside the section table is refused");
	CHECK_STR_HAS(err, "after the section table", "  ... saying so");
	free(buf);

	/* request 0 lives over ordinals [0, 5): swaps (0, 2) and (x, 4) */
	static const struct {
		uint64_t out_at;
		int ok;
		const char *what;
	} two[] = {
		{ 1, 0, "two swaps of one request overlapping by one ordinal are refused" },
		{ 2, 0, "two swaps of one request meeting at one ordinal are refused" },
		{ 3, 1, "two swaps of one request one ordinal apart are read" },
	};
	for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++) {
		sample_plan(&p);
		free(p.swaps);
		p.swaps = calloc(2, sizeof(*p.swaps));
		p.swaps[0] = (struct mp_plan_swap){ 0, 0, 2, 16, 64, 0, 0 };
		p.swaps[1] = (struct mp_plan_swap){ 0, two[i].out_at, 4, 16, 64, 0, 0 };
		p.nswaps = 2;
		err[0] = '\0';
		int rc = mp_plan_validate(&p, err, sizeof(err));
		CHECK(two[i].ok ? rc == 0 : rc == MP_PLAN_EFORMAT, two[i].what);
		if (!two[i].ok)
			CHECK_STR_HAS(err, "SWAPS entry 1, field out_at", "  ... naming the entry");
		mp_plan_free(&p);
	}
}

static void test_files(void)
{
	char dir[] = "/tmp/memplan-test-plan.XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(0, "a scratch folder");
		return;
	}
	char path[256], bad[256];
	snprintf(path, sizeof(path), "%s/a.plan", dir);
	snprintf(bad, sizeof(bad), "%s/none/a.plan", dir);
	struct mp_plan p, q;
	sample_plan(&p);
	CHECK(mp_plan_write_file(path, &p, err, sizeof(err)) == 0, "write a plan file");
	CHECK(mp_plan_read_file(path, &q, err, sizeof(err)) == 0 && same_plan(&p, &q),
	      "read it back");
	mp_plan_free(&q);
	CHECK(mp_plan_write_file(bad, &p, err, sizeof(err)) == MP_PLAN_EIO,
	      "writing into a missing folder fails with EIO");
	CHECK_STR_HAS(err, bad, "  ... naming the file");
	CHECK(mp_plan_read_file(bad, &q, err, sizeof(err)) == MP_PLAN_EIO,
	      "reading a missing file fails with EIO");
	CHECK_STR_HAS(err, "cannot open plan", "  ... saying so");

	/* a failed write leaves the old file alone and no temporary */
	p.allocs[0].offset = 3;
	CHECK(mp_plan_write_file(path, &p, err, sizeof(err)) == MP_PLAN_EINVAL,
	      "writing an invalid plan fails");
	p.allocs[0].offset = 0;
	CHECK(mp_plan_read_file(path, &q, err, sizeof(err)) == 0 && same_plan(&p, &q),
	      "  ... and the file that was there is intact");
	mp_plan_free(&q);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "ls %s | grep -q tmp", dir);
	CHECK(system(cmd) != 0, "  ... and no temporary file is left");

	/* a corrupted file names itself */
	FILE *f = fopen(path, "r+b");
	fseek(f, 200, SEEK_SET);
	fputc('X', f);
	fclose(f);
	CHECK(mp_plan_read_file(path, &q, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "a corrupted file is refused");
	CHECK_STR_HAS(err, "plan '", "  ... naming the file");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	mp_plan_free(&p);
}

/* --- SWAP_TIMING ------------------------------------------------------------ */

/* Decodes b (n bytes) expecting a refusal with code and a message naming
 * every needle (NULL-terminated); frees b. */
static void refused(unsigned char *b, size_t n, int code, const char *what,
		    const char *const *needles)
{
	struct mp_plan q;
	err[0] = '\0';
	int rc = mp_plan_decode(b, n, &q, err, sizeof(err));
	CHECK(rc == code, what);
	if (rc == 0)
		mp_plan_free(&q);
	if (rc != code)
		printf("#   rc %d: %s\n", rc, err);
	for (size_t i = 0; needles[i]; i++)
		CHECK_STR_HAS(err, needles[i], "  ... naming it");
	CHECK(q.timing == NULL && !q.has_timing && q.allocs == NULL,
	      "  ... and leaving nothing");
	free(b);
}

static void test_timing_format(void)
{
	struct mp_plan p, q;
	unsigned char *buf = NULL, *buf2 = NULL, *b;
	size_t len = 0, len2 = 0, n;
	sample_plan(&p);
	sample_timing(&p);
	int rc = mp_plan_encode(&p, &buf, &len, err, sizeof(err));
	CHECK(rc == 0, "encode a plan with timing");
	if (rc) {
		printf("# %s\n", err);
		mp_plan_free(&p);
		return;
	}
	CHECK_EQ_U64(len, 64 + 4 * 32 + 96 + 6 * 48 + 56 + 32,
		     "  ... one more table entry and one 32-byte entry");
	CHECK_EQ_U64(get32(buf + 24), 4, "  ... four sections");
	const unsigned char *e = buf + 64 + 3 * 32;
	CHECK(get32(e) == MP_PLAN_SECTION_SWAP_TIMING && get32(e + 4) == 0 &&
		      get64(e + 16) == 32 && get32(e + 24) == 1 &&
		      get32(e + 28) == 32,
	      "  ... the last is type 4, not required (older readers skip it), one entry of 32 bytes");
	size_t at = (size_t)get64(e + 8);
	CHECK_EQ_U64(at, 192 + 96 + 6 * 48 + 56, "  ... right after SWAPS");
	CHECK(get64(buf + at) == (uint64_t)-1500 && get64(buf + at + 8) == 2500 &&
		      get64(buf + at + 16) == 1500 && get32(buf + at + 24) == 0 &&
		      get32(buf + at + 28) == 0,
	      "  ... fields little-endian, the negative slack in two's complement");
	rc = mp_plan_decode(buf, len, &q, err, sizeof(err));
	CHECK(rc == 0 && same_plan(&p, &q) && q.has_timing &&
		      q.timing[0].d2h_slack_ns == -1500,
	      "decode gives back the timing");
	CHECK(rc == 0 && mp_plan_encode(&q, &buf2, &len2, err, sizeof(err)) == 0 &&
		      len2 == len && memcmp(buf, buf2, len) == 0,
	      "  ... and encoding it again gives the same bytes");
	free(buf2);
	mp_plan_free(&q);
	CHECK(strcmp(mp_plan_section_name(MP_PLAN_SECTION_SWAP_TIMING),
		     "SWAP_TIMING") == 0,
	      "the section's name");
	struct mp_plan_section_info rows[8];
	size_t nrows = 0;
	uint32_t crc;
	CHECK(mp_plan_layout(buf, len, rows, 8, &nrows, &crc, err, sizeof(err)) == 0 &&
		      nrows == 4 && rows[3].type == 4 && rows[3].count == 1,
	      "the layout shows it");

	/* every byte matters, every truncation is refused */
	unsigned char *c = malloc(len);
	int all = 1;
	for (size_t i = 0; i < len; i++) {
		memcpy(c, buf, len);
		c[i] ^= 0x40;
		if (mp_plan_decode(c, len, &q, err, sizeof(err)) == 0) {
			all = 0;
			mp_plan_free(&q);
		}
	}
	CHECK(all, "every single-byte corruption of a plan with timing is refused");
	all = 1;
	for (n = 0; n < len; n++)
		if (mp_plan_decode(buf, n, &q, err, sizeof(err)) == 0) {
			all = 0;
			mp_plan_free(&q);
		}
	CHECK(all, "every truncation of a plan with timing is refused");
	free(c);

	/* by hand: sections 0-2 as written, section 3 varied */
	struct tsec s[8];
	CHECK_EQ_U64(split(buf, s), 4, "split: four sections");
	b = assemble(s, 3, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && !q.has_timing &&
		      q.timing == NULL && q.nswaps == 1,
	      "the same plan without SWAP_TIMING loads, without timing");
	mp_plan_free(&q);
	free(b);
	struct tsec r[4] = { s[3], s[1], s[0], s[2] };
	b = assemble(r, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && same_plan(&p, &q),
	      "SWAP_TIMING may come first");
	mp_plan_free(&q);
	free(b);
	struct tsec t[5] = { s[0], s[1], s[2], s[3], s[3] };
	t[3].flags = MP_PLAN_SECTION_REQUIRED;
	b = assemble(t, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && same_plan(&p, &q),
	      "SWAP_TIMING marked required loads too (this reader knows it)");
	mp_plan_free(&q);
	free(b);
	t[3].flags = 0;
	b = assemble(t, 5, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT,
		"a second SWAP_TIMING section is refused",
		(const char *const[]){ "second SWAP_TIMING", NULL });

	/* the count: one entry per swap */
	unsigned char two[64];
	memcpy(two, s[3].data, 32);
	memcpy(two + 32, s[3].data, 32);
	t[3] = (struct tsec){ 4, 0, 2, 32, two, 64 };
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT,
		"two timing entries for one swap are refused",
		(const char *const[]){ "SWAP_TIMING", "count", "2 entries for 1 swaps", NULL });
	t[3] = (struct tsec){ 4, 0, 0, 32, NULL, 0 };
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT,
		"no timing entry for one swap is refused",
		(const char *const[]){ "SWAP_TIMING", "count", NULL });
	struct tsec u[3] = { s[0], s[1], s[3] };
	b = assemble(u, 3, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT,
		"a timing entry in a file without SWAPS is refused",
		(const char *const[]){ "SWAP_TIMING", "0 swaps", NULL });
	u[2] = (struct tsec){ 4, 0, 0, 32, NULL, 0 };
	b = assemble(u, 3, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && q.has_timing &&
		      q.nswaps == 0,
	      "an empty SWAP_TIMING in a file without swaps loads");
	mp_plan_free(&q);
	free(b);

	/* entry sizes and lengths */
	unsigned char one[40];
	memset(one, 0, sizeof(one));
	memcpy(one, s[3].data, 32);
	memset(one + 32, 0xee, 8);
	t[3] = (struct tsec){ 4, 0, 1, 40, one, 40 };
	b = assemble(t, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && same_plan(&p, &q),
	      "timing entries longer than 32 bytes are read by their prefix");
	mp_plan_free(&q);
	free(b);
	t[3] = (struct tsec){ 4, 0, 1, 24, one, 24 };
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT,
		"timing entries shorter than 32 bytes are refused",
		(const char *const[]){ "SWAP_TIMING", "entry_size", NULL });
	t[3] = (struct tsec){ 4, 0, 1, 32, one, 24 };
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT,
		"a truncated SWAP_TIMING section (24 of 32 bytes) is refused",
		(const char *const[]){ "SWAP_TIMING", "length", NULL });
	b = malloc(len);
	memcpy(b, buf, len);
	put64(b + 64 + 3 * 32 + 16, 64); /* its length past the end of the file */
	fix_checksum(b, len);
	refused(b, len, MP_PLAN_EFORMAT,
		"a SWAP_TIMING section running past the end of the file is refused",
		(const char *const[]){ "SWAP_TIMING", "offset", NULL });

	/* the fields */
	memcpy(one, s[3].data, 32);
	put32(one + 28, 1);
	t[3] = (struct tsec){ 4, 0, 1, 32, one, 32 };
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT,
		"a nonzero reserved field is refused",
		(const char *const[]){ "SWAP_TIMING entry 0", "reserved", NULL });
	put32(one + 28, 0);
	put32(one + 24, 0x4);
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT,
		"an undefined flag is refused",
		(const char *const[]){ "SWAP_TIMING entry 0", "flags", NULL });
	put32(one + 24, MP_PLAN_TIMING_NO_USE);
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT,
		"a slack for a swap-in with no later use is refused",
		(const char *const[]){ "SWAP_TIMING entry 0", "h2d_slack_ns", NULL });
	put32(one + 24, MP_PLAN_TIMING_NO_REUSE);
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT,
		"a slack for bytes nobody reuses is refused",
		(const char *const[]){ "SWAP_TIMING entry 0", "d2h_slack_ns", NULL });
	put64(one, 0);
	put64(one + 8, 0);
	put32(one + 24, MP_PLAN_TIMING_NO_USE | MP_PLAN_TIMING_NO_REUSE);
	put64(one + 16, UINT64_MAX);
	b = assemble(t, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 &&
		      q.timing[0].flags == 3 && q.timing[0].predicted_stall_ns == UINT64_MAX,
	      "both flags, with both slacks 0, load");
	mp_plan_free(&q);
	free(b);
	put64(one, (uint64_t)INT64_MIN);
	put64(one + 8, (uint64_t)INT64_MAX);
	put32(one + 24, 0);
	b = assemble(t, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 &&
		      q.timing[0].d2h_slack_ns == INT64_MIN &&
		      q.timing[0].h2d_slack_ns == INT64_MAX,
	      "slacks at both ends of the int64 range load");
	mp_plan_free(&q);
	free(b);

	/* the writer checks what it writes */
	unsigned char *none = (unsigned char *)"x";
	p.timing[0].flags = 0x8;
	CHECK(mp_plan_encode(&p, &none, &n, err, sizeof(err)) == MP_PLAN_EINVAL &&
		      none == NULL,
	      "encode refuses an undefined timing flag, allocating nothing");
	CHECK_STR_HAS(err, "SWAP_TIMING entry 0", "  ... naming the entry");
	p.timing[0].flags = 0;
	free(p.timing);
	p.timing = NULL;
	CHECK(mp_plan_encode(&p, &none, &n, err, sizeof(err)) == MP_PLAN_EINVAL,
	      "encode refuses has_timing with no entry array");
	CHECK_STR_HAS(err, "SWAP_TIMING", "  ... naming the section");
	p.has_timing = 0;
	CHECK(mp_plan_encode(&p, &none, &n, err, sizeof(err)) == 0 &&
		      get32(none + 24) == 3,
	      "without has_timing, three sections as before");
	free(none);

	/* files: one written before the section existed, one with it */
	rc = mp_plan_read_file("tests/fuzz/seeds/plan/swaps.plan", &q, err,
			       sizeof(err));
	CHECK(rc == 0 && q.nswaps == 2 && !q.has_timing && !q.timing,
	      "a plan file of the previous writer loads, without timing");
	if (rc)
		printf("# %s\n", err);
	mp_plan_free(&q);
	rc = mp_plan_read_file("tests/fuzz/seeds/plan/timing.plan", &q, err,
			       sizeof(err));
	CHECK(rc == 0 && q.has_timing && q.nswaps == 2 &&
		      q.timing[0].d2h_slack_ns == -1500 &&
		      q.timing[1].d2h_slack_ns == 0 && q.timing[1].h2d_slack_ns == 0 &&
		      q.timing[1].flags == (MP_PLAN_TIMING_NO_USE |
					    MP_PLAN_TIMING_NO_REUSE),
	      "the fuzz seed with SWAP_TIMING loads");
	if (rc)
		printf("# %s\n", err);
	mp_plan_free(&q);
	free(buf);
	mp_plan_free(&p);
}

/*
 * A timed trace for the simulator, 50 bytes per ns each way (pcie5, no
 * latency).  A (100 MB) is written by a 1 ms kernel; the scratch S's alloc
 * at 1 ms triggers A's swap-out (1 to 3 ms); B (100 MB, over A's bytes when
 * placed there) is allocated at 2 ms and so waits 1 ms for the swap-out;
 * B's free (now at 4 ms) triggers the swap-in (4 to 6 ms); a 3 ms kernel
 * follows, and A is read (with read_a) at 6 ms, 7 ms once delayed: 1 ms
 * after the swap-in.
 */
static struct trace *timed_trace(int read_a)
{
	struct trace *t = trace_new();
	struct trace_buffer b = { .align = 1, .fixed_offset = TRACE_NONE,
				  .stream = TRACE_NONE };
	b.size = b.rounded = 100000000;
	int64_t a = trace_add_buffer(t, &b);
	b.size = b.rounded = 1000;
	int64_t w = trace_add_buffer(t, &b);
	b.size = b.rounded = 100000000;
	int64_t x = trace_add_buffer(t, &b);
	int64_t now = 0;
	struct { int type; int64_t buf, dur; int acc; int64_t who; } ev[] = {
		{ TRACE_EV_ALLOC, a, 0, -1, 0 },
		{ TRACE_EV_KERNEL, TRACE_NONE, 1000000, TRACE_ACCESS_WRITE, a },
		{ TRACE_EV_ALLOC, w, 0, -1, 0 },
		{ TRACE_EV_KERNEL, TRACE_NONE, 1000000, TRACE_ACCESS_RW, w },
		{ TRACE_EV_FREE, w, 0, -1, 0 },
		{ TRACE_EV_ALLOC, x, 0, -1, 0 },
		{ TRACE_EV_KERNEL, TRACE_NONE, 1000000, TRACE_ACCESS_WRITE, x },
		{ TRACE_EV_FREE, x, 0, -1, 0 },
		{ TRACE_EV_KERNEL, TRACE_NONE, 3000000, -1, 0 },
		{ TRACE_EV_KERNEL, TRACE_NONE, 1000000,
		  read_a ? TRACE_ACCESS_READ : -1, a },
		{ TRACE_EV_FREE, a, 0, -1, 0 },
	};
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		struct trace_event e = { .seq = trace_next_seq(t), .t_start = now,
					 .t_end = now + ev[i].dur,
					 .buffer = ev[i].buf, .stream = TRACE_NONE,
					 .type = (uint8_t)ev[i].type };
		now += ev[i].dur;
		trace_add_event(t, &e);
		if (ev[i].acc >= 0)
			trace_add_access(t, ev[i].who, (uint8_t)ev[i].acc);
	}
	if (trace_finish(t, err, sizeof(err))) {
		printf("# %s\n", err);
		trace_free(t);
		return NULL;
	}
	return t;
}

/* The plan of timed_trace with A swapped out after request 1 (S's alloc)
 * and in after request 4 (B's free); B at offset b_at. */
static int timed_plan(const struct trace *t, uint64_t b_at, struct mp_plan *out)
{
	struct solver_problem pr;
	if (solver_problem_from_trace(t, &pr, err, sizeof(err)))
		return -1;
	uint64_t off[3];
	for (size_t i = 0; i < pr.n && i < 3; i++) {
		int64_t buf = pr.items[i].buffer;
		off[i] = buf == 0 ? 0 : buf == 1 ? 100000000 : b_at;
	}
	struct mp_plan_swap sw = { 0, 1, 4, 0, 100000000, 0, 0 };
	struct planfile_swaps sws = { &sw, 1, 100000000 };
	struct planfile_info info = { 1, "timed", 0, 0 };
	int rc = pr.n == 3 ? planfile_build_swaps(t, &pr, off, &info, &sws, out,
						  err, sizeof(err))
			   : -1;
	solver_problem_free(&pr);
	if (!rc)
		rc = planfile_verify(out, t, err, sizeof(err));
	if (rc)
		printf("# %s\n", err);
	return rc;
}

static void test_timing_sim(void)
{
	struct trace *t = timed_trace(1);
	CHECK(t != NULL, "a timed trace");
	if (!t)
		return;
	struct link_model l;
	link_parse("pcie5,latency=0", NULL, &l, err, sizeof(err));
	struct mp_plan p, q;
	struct sim_result r;
	int rc = timed_plan(t, 0, &p);
	CHECK(rc == 0, "its plan, B over A's bytes, verifies");
	if (rc) {
		trace_free(t);
		return;
	}
	rc = sim_run(t, &p, &l, &r, err, sizeof(err));
	CHECK(rc == 0, "  ... and simulates");
	if (rc) {
		printf("# %s\n", err);
		mp_plan_free(&p);
		trace_free(t);
		return;
	}
	CHECK(r.swaps[0].reuse_event == 5 && r.swaps[0].reuse == 2e6 &&
		      r.swaps[0].d2h_end == 3e6 && r.swaps[0].d2h_slack == -1e6,
	      "the simulator: B's alloc wanted the bytes at 2 ms, the swap-out ends at 3 ms");
	CHECK(r.swaps[0].next_event == 9 && r.swaps[0].need == 7e6 &&
		      r.swaps[0].h2d_end == 6e6 && r.swaps[0].slack == 1e6,
	      "  ... the read wanted A at 7 ms, the swap-in ends at 6 ms");
	CHECK(r.swaps[0].stall == 1e6 && r.stall_ns == 1e6,
	      "  ... 1 ms of stall, all this swap's");
	CHECK(sim_attach_timing(&p, &r) == 0 && p.has_timing && p.timing,
	      "sim_attach_timing");
	CHECK(p.timing[0].d2h_slack_ns == -1000000 &&
		      p.timing[0].h2d_slack_ns == 1000000 &&
		      p.timing[0].predicted_stall_ns == 1000000 &&
		      p.timing[0].flags == 0,
	      "  ... records -1 ms, +1 ms, 1 ms of stall, no flag");
	CHECK(sim_attach_timing(&p, &r) == 0 && p.timing[0].flags == 0,
	      "  ... again, replacing the timing (no leak under ASan)");
	char dir[] = "/tmp/memplan-test-timing.XXXXXX", path[256];
	if (mkdtemp(dir)) {
		snprintf(path, sizeof(path), "%s/t.plan", dir);
		CHECK(mp_plan_write_file(path, &p, err, sizeof(err)) == 0 &&
			      mp_plan_read_file(path, &q, err, sizeof(err)) == 0 &&
			      same_plan(&p, &q),
		      "the plan with its timing goes through a file");
		CHECK(planfile_verify(&q, t, err, sizeof(err)) == 0,
		      "  ... and still verifies against the trace");
		mp_plan_free(&q);
		unlink(path);
		rmdir(dir);
	} else {
		CHECK(0, "a scratch folder");
	}
	struct sim_result other = r;
	other.nswaps = 2;
	CHECK(sim_attach_timing(&p, &other) == TRACE_EINVAL &&
		      p.timing[0].d2h_slack_ns == -1000000,
	      "a result with another number of swaps is refused, the plan unchanged");
	sim_free(&r);

	/* on an infinitely fast link nothing waits and both slacks are >= 0 */
	struct link_model inf;
	link_parse("infinite", NULL, &inf, err, sizeof(err));
	rc = sim_run(t, &p, &inf, &r, err, sizeof(err));
	CHECK(rc == 0 && sim_attach_timing(&p, &r) == 0 &&
		      p.timing[0].predicted_stall_ns == 0 &&
		      p.timing[0].d2h_slack_ns == 1000000 &&
		      p.timing[0].h2d_slack_ns == 3000000,
	      "infinite link: no stall, out 1 ms early, in 3 ms early");
	if (!rc)
		sim_free(&r);
	mp_plan_free(&p);
	trace_free(t);

	/* B elsewhere and A never read again: both flags */
	t = timed_trace(0);
	rc = t ? timed_plan(t, 100001000, &p) : -1;
	CHECK(rc == 0, "a plan with B beside A verifies");
	if (rc == 0) {
		rc = sim_run(t, &p, &l, &r, err, sizeof(err));
		CHECK(rc == 0 && r.swaps[0].reuse_event == -1 &&
			      r.swaps[0].next_event == -1 && r.stall_ns == 0,
		      "  ... nothing reuses A's bytes, nothing uses A after the swap-in");
		CHECK(rc == 0 && sim_attach_timing(&p, &r) == 0 &&
			      p.timing[0].flags == (MP_PLAN_TIMING_NO_USE |
						    MP_PLAN_TIMING_NO_REUSE) &&
			      p.timing[0].d2h_slack_ns == 0 &&
			      p.timing[0].h2d_slack_ns == 0 &&
			      p.timing[0].predicted_stall_ns == 0,
		      "  ... both flags, slacks 0");
		unsigned char *buf;
		size_t len;
		CHECK(mp_plan_encode(&p, &buf, &len, err, sizeof(err)) == 0 &&
			      mp_plan_decode(buf, len, &q, err, sizeof(err)) == 0 &&
			      same_plan(&p, &q),
		      "  ... and round-trip");
		if (rc == 0)
			sim_free(&r);
		free(buf);
		mp_plan_free(&q);
		mp_plan_free(&p);
	}
	trace_free(t);

	/* a plan without swaps gets an empty timing */
	t = timed_trace(1);
	struct solver_problem pr;
	uint64_t off[3] = { 0, 0, 0 };
	solver_problem_from_trace(t, &pr, err, sizeof(err));
	for (size_t i = 0; i < pr.n; i++)
		off[i] = (uint64_t)pr.items[i].buffer * 100001000;
	struct planfile_info info = { 1, "timed", 0, 0 };
	rc = planfile_build(t, &pr, off, &info, &p, err, sizeof(err));
	if (!rc)
		rc = sim_run(t, &p, &l, &r, err, sizeof(err));
	CHECK(rc == 0 && sim_attach_timing(&p, &r) == 0 && p.has_timing &&
		      p.timing == NULL,
	      "no swaps: an empty timing");
	if (rc == 0) {
		sim_free(&r);
		unsigned char *buf;
		size_t len;
		CHECK(mp_plan_encode(&p, &buf, &len, err, sizeof(err)) == 0 &&
			      get32(buf + 24) == 5 &&
			      mp_plan_decode(buf, len, &q, err, sizeof(err)) == 0 &&
			      q.has_timing && q.nswaps == 0,
		      "  ... written as a SWAP_TIMING section of 0 entries (beside STREAMS)");
		free(buf);
		mp_plan_free(&q);
	}
	mp_plan_free(&p);
	solver_problem_free(&pr);
	trace_free(t);
}

/* --- plans of traces -------------------------------------------------------- */

/* Solves t with strategy name, builds and returns the plan (0 on success). */
static int plan_of(const struct trace *t, const char *name, uint64_t align,
		   struct mp_plan *out)
{
	struct solver_problem p;
	if (solver_problem_from_trace(t, &p, err, sizeof(err)))
		return -1;
	for (size_t i = 0; i < p.n && align > 1; i++)
		if (p.items[i].align < align)
			p.items[i].align = align;
	uint64_t *off = malloc((p.n ? p.n : 1) * sizeof(*off));
	const struct solver_strategy *s = solver_strategy_find(name);
	uint64_t h;
	int rc = -1;
	if (off && s && s->place(&p, off, &h, NULL, err, sizeof(err)) == 0) {
		struct planfile_info info = { align, name, 0, 0 };
		rc = planfile_build(t, &p, off, &info, out, err, sizeof(err));
	}
	free(off);
	solver_problem_free(&p);
	return rc;
}

static size_t count_allocs(const struct trace *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nevents; i++)
		n += t->events[i].type == TRACE_EV_ALLOC;
	return n;
}

/* Two planned requests whose lifetimes meet, or -1. */
static int co_resident(const struct mp_plan *p, uint32_t *x, uint32_t *y)
{
	for (uint32_t i = 0; i < p->nallocs; i++)
		for (uint32_t j = i + 1; j < p->nallocs; j++) {
			const struct mp_plan_alloc *a = &p->allocs[i], *b = &p->allocs[j];
			if (a->offset == MP_PLAN_PASS_THROUGH ||
			    b->offset == MP_PLAN_PASS_THROUGH)
				continue;
			if (b->lower < a->upper && a->lower < b->upper) {
				*x = i;
				*y = j;
				return 0;
			}
		}
	return -1;
}

/* Verifies, then breaks the plan in the usual ways. */
static void check_plan_of(const struct trace *t, const struct trace *other,
			  const char *what)
{
	static const char *const names[] = { "first-fit", "greedy-size", "best-fit" };
	char line[256];
	for (int k = 0; k < 3; k++) {
		struct mp_plan p, q;
		int rc = plan_of(t, names[k], 1, &p);
		snprintf(line, sizeof(line), "%s: %s plan builds", what, names[k]);
		CHECK(rc == 0, line);
		if (rc) {
			printf("# %s\n", err);
			continue;
		}
		rc = planfile_verify(&p, t, err, sizeof(err));
		snprintf(line, sizeof(line), "%s: %s plan verifies", what, names[k]);
		CHECK(rc == 0, line);
		if (rc)
			printf("# %s\n", err);
		if (k)
			goto next;
		CHECK_EQ_U64(p.nallocs, count_allocs(t), "one entry per alloc event");
		CHECK_EQ_U64(p.lower_bound, trace_peak(t, TRACE_TRANSIENT, NULL),
			     "the plan's lower bound is the trace's");
		unsigned char *buf;
		size_t len;
		CHECK(mp_plan_encode(&p, &buf, &len, err, sizeof(err)) == 0 &&
			      mp_plan_decode(buf, len, &q, err, sizeof(err)) == 0 &&
			      planfile_verify(&q, t, err, sizeof(err)) == 0,
		      "it verifies after a trip through the file format");
		free(buf);
		mp_plan_free(&q);

		if (other) {
			rc = planfile_verify(&p, other, err, sizeof(err));
			CHECK(rc == PLANFILE_EINVALID, "a plan does not verify against another trace");
			CHECK_STR_HAS(err, "fingerprint", "  ... and the error says fingerprint");
		}
		uint32_t x, y;
		if (co_resident(&p, &x, &y) == 0) {
			/* both above everything else: they can meet only each other */
			uint64_t ox = p.allocs[x].offset, oy = p.allocs[y].offset;
			uint64_t pool = p.pool_size;
			p.allocs[x].offset = p.allocs[y].offset = pool;
			p.pool_size += p.allocs[x].size > p.allocs[y].size
					       ? p.allocs[x].size
					       : p.allocs[y].size;
			rc = planfile_verify(&p, t, err, sizeof(err));
			CHECK(rc == PLANFILE_EINVALID, "two co-resident buffers at one offset are caught");
			CHECK_STR_HAS(err, "overlap", "  ... as an overlap");
			snprintf(line, sizeof(line), "requests %u and %u", x, y);
			CHECK_STR_HAS(err, line, "  ... naming both requests");
			p.allocs[x].offset = ox;
			p.allocs[y].offset = oy;
			p.pool_size = pool;
		} else {
			CHECK(0, "the trace has two co-resident planned buffers");
		}
		p.lower_bound--;
		CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
		      "a lower bound that is not the trace's is caught");
		CHECK_STR_HAS(err, "lower_bound", "  ... naming the field");
		p.lower_bound++;
		p.fingerprint ^= 1;
		CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
		      "a wrong fingerprint is caught");
		CHECK_STR_HAS(err, "fingerprint", "  ... naming the fingerprint");
		p.fingerprint ^= 1;
		CHECK(planfile_verify(&p, t, err, sizeof(err)) == 0,
		      "the repaired plan verifies again");
	next:
		mp_plan_free(&p);
	}
}

static void test_zoo(void)
{
	struct synth_opts o = { .model = "alexnet", .batch = 2, .device = "h200" };
	struct synth_opts o2 = { .model = "alexnet", .batch = 3, .device = "h200" };
	struct trace *t = NULL, *u = NULL;
	CHECK(synth_build(&o, &t, err, sizeof(err)) == 0 &&
		      synth_build(&o2, &u, err, sizeof(err)) == 0,
	      "zoo traces build");
	if (!t || !u)
		return;
	check_plan_of(t, u, "alexnet b2");

	/* --align: stored, honoured, checked */
	struct mp_plan p;
	CHECK(plan_of(t, "greedy-size", 4096, &p) == 0, "a plan with --align 4096 builds");
	CHECK_EQ_U64(p.pool_align, 4096, "the alignment is stored");
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == 0, "  ... and verifies");
	int all = 1;
	for (uint32_t i = 0; i < p.nallocs; i++)
		if (p.allocs[i].offset != MP_PLAN_PASS_THROUGH)
			all &= p.allocs[i].offset % 4096 == 0;
	CHECK(all, "  ... every offset is a multiple of 4096");
	for (uint32_t i = 0; i < p.nallocs; i++)
		if (p.allocs[i].offset != MP_PLAN_PASS_THROUGH && p.allocs[i].offset) {
			p.allocs[i].offset -= 2048;
			break;
		}
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "a misaligned offset is caught");
	CHECK_STR_HAS(err, "multiple", "  ... as misaligned");
	mp_plan_free(&p);

	/* persistent buffers pass through */
	CHECK(plan_of(t, "first-fit", 1, &p) == 0, "first-fit plan");
	size_t pass = 0, persistent_allocs = 0;
	for (uint32_t i = 0; i < p.nallocs; i++)
		pass += p.allocs[i].offset == MP_PLAN_PASS_THROUGH;
	for (size_t i = 0; i < t->nbuffers; i++)
		persistent_allocs += t->buffers[i].alloc_ev != TRACE_NONE &&
				     t->buffers[i].free_ev == TRACE_NONE;
	CHECK_EQ_U64(pass, persistent_allocs,
		     "exactly the buffers allocated and kept pass through");
	mp_plan_free(&p);
	trace_free(t);
	trace_free(u);
}

static void test_minimalloc(void)
{
	const char *dir = tap_shared_data();
	if (!dir) {
		tap_skip("MiniMalloc instances A and B plan and verify",
			 TAP_NO_SHARED);
		return;
	}
	char path[1024];
	snprintf(path, sizeof(path), "%s/placement/A.1048576.csv", dir);
	struct trace *t = NULL, *u = NULL;
	int rc = mmcsv_import(path, &t, err, sizeof(err));
	CHECK(rc == 0, "MiniMalloc instance A imports");
	snprintf(path, sizeof(path), "%s/placement/B.1048576.csv", dir);
	if (rc == 0)
		rc = mmcsv_import(path, &u, err, sizeof(err));
	if (rc) {
		printf("# %s\n", err);
		trace_free(t);
		return;
	}
	check_plan_of(t, u, "MiniMalloc A");
	trace_free(t);
	trace_free(u);
}

/* --- a small trace by hand: alignment, holes, pass-through, devices --------- */

struct hb {
	uint64_t size, align;
	int64_t lo, hi; /* seq of alloc and free; -1 none */
};

static struct trace *hand_trace(const struct hb *b, size_t n,
				const struct trace_hole *holes, size_t nh)
{
	struct trace *t = trace_new();
	for (size_t i = 0; i < n; i++) {
		struct trace_buffer x = { .size = b[i].size, .rounded = b[i].size,
					  .align = b[i].align,
					  .fixed_offset = TRACE_NONE,
					  .stream = TRACE_NONE };
		trace_add_buffer(t, &x);
	}
	for (int64_t seq = 0; seq < 100; seq++)
		for (size_t i = 0; i < n; i++) {
			int type = b[i].lo == seq ? TRACE_EV_ALLOC
				   : b[i].hi == seq ? TRACE_EV_FREE : -1;
			if (type < 0)
				continue;
			struct trace_event e = { .seq = trace_next_seq(t),
						 .t_start = TRACE_TIME_NONE,
						 .t_end = TRACE_TIME_NONE,
						 .buffer = (int64_t)i,
						 .stream = TRACE_NONE,
						 .type = (uint8_t)type };
			trace_add_event(t, &e);
		}
	for (size_t i = 0; i < nh; i++)
		trace_add_hole(t, &holes[i]);
	if (trace_finish(t, err, sizeof(err))) {
		printf("# %s\n", err);
		trace_free(t);
		return NULL;
	}
	return t;
}

static void test_hand(void)
{
	/* seqs are event indexes here: A [0, 5), B [1, 3), C [2, 6), D kept */
	static const struct hb b[] = {
		{ 100, 8, 0, 5 }, { 50, 8, 1, 3 }, { 60, 8, 2, 6 }, { 10, 1, 4, -1 },
	};
	struct trace *t = hand_trace(b, 4, NULL, 0);
	CHECK(t != NULL, "a hand trace");
	if (!t)
		return;
	struct mp_plan p;
	CHECK(plan_of(t, "best-fit", 1, &p) == 0, "best-fit plan of the hand trace");
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == 0, "  ... verifies");
	CHECK_EQ_U64(p.nrequests, 7, "  ... the clock counts 4 allocs and 3 frees");
	CHECK(p.allocs[3].offset == MP_PLAN_PASS_THROUGH &&
		      p.allocs[3].upper == MP_PLAN_NO_FREE,
	      "  ... the kept buffer passes through, not freed");
	/* ordinals: allocs A0 B1 C2, free B3, alloc D4, free A5, free C6 */
	CHECK(p.allocs[0].lower == 0 && p.allocs[0].upper == 5 &&
		      p.allocs[1].lower == 1 && p.allocs[1].upper == 3 &&
		      p.allocs[2].lower == 2 && p.allocs[2].upper == 6 &&
		      p.allocs[3].lower == 4,
	      "  ... the clock ordinals of every request");

	/* own alignment: the pool's is 1, the buffer's 8 */
	uint64_t keep = p.allocs[1].offset;
	p.allocs[1].offset += 4;
	if (p.allocs[1].offset + 50 > p.pool_size)
		p.pool_size = p.allocs[1].offset + 50;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "an offset off the buffer's own alignment is caught");
	CHECK_STR_HAS(err, "buffer's 8", "  ... naming its alignment");
	p.allocs[1].offset = keep;

	/* a persistent buffer given an offset */
	p.allocs[3].offset = 0;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "a pool offset for a buffer never freed is caught");
	p.allocs[3].offset = MP_PLAN_PASS_THROUGH;
	mp_plan_free(&p);

	/* A and C at offset 0 overlap during [2, 5) ... */
	struct solver_problem pr;
	solver_problem_from_trace(t, &pr, err, sizeof(err));
	uint64_t off[3] = { 0, 200, 0 };
	struct planfile_info info = { 1, "hand", 0, 0 };
	CHECK(planfile_build(t, &pr, off, &info, &p, err, sizeof(err)) == 0,
	      "a plan from hand-made offsets builds (the builder does not check overlap)");
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "  ... and verify finds A and C overlapping");
	CHECK_STR_HAS(err, "requests 0 and 2", "  ... naming them");
	mp_plan_free(&p);
	solver_problem_free(&pr);
	trace_free(t);

	/* ... unless A is away during [2, 5) (a hole), or keeps only bytes
	 * [80, 100) then */
	struct trace_hole h = { 0, 2, 5, TRACE_NONE, TRACE_NONE };
	t = hand_trace(b, 4, &h, 1);
	solver_problem_from_trace(t, &pr, err, sizeof(err));
	CHECK(planfile_build(t, &pr, off, &info, &p, err, sizeof(err)) == TRACE_EINVAL,
	      "a plan without swaps is not built over trace holes it does not trust");
	CHECK_STR_HAS(err, "buffer 0 has holes", "  ... naming the buffer");
	struct planfile_info trusting = { 1, "hand", 0, 1 };
	planfile_build(t, &pr, off, &trusting, &p, err, sizeof(err));
	CHECK(p.flags & MP_PLAN_TRUSTS_HOLES, "  ... but is when told to trust them, and says so");
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == 0,
	      "trusting a hole in A's lifetime, A and C may share bytes");
	uint64_t nh = 99;
	CHECK(planfile_trusted_holes(&p, t, &nh, err, sizeof(err)) == 0 && nh == 1,
	      "  ... valid only if something else moves that 1 hole");
	p.allocs[2].offset = 300; /* C clear of A: the hole is not needed */
	CHECK(planfile_trusted_holes(&p, t, &nh, err, sizeof(err)) == 0 && nh == 0,
	      "  ... and with C clear of A, the plan needs no hole moved");
	p.allocs[2].offset = 0;
	p.flags &= ~MP_PLAN_TRUSTS_HOLES;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "  ... not in a plan that does not trust it: the runtime would not empty the hole");
	CHECK_STR_HAS(err, "requests 0 and 2", "  ... naming A and C");
	mp_plan_free(&p);
	solver_problem_free(&pr);
	trace_free(t);
	h.win_lo = 80;
	h.win_hi = 100;
	t = hand_trace(b, 4, &h, 1);
	solver_problem_from_trace(t, &pr, err, sizeof(err));
	info = trusting;
	planfile_build(t, &pr, off, &info, &p, err, sizeof(err));
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == 0,
	      "a window [80, 100) kept during the hole misses C's [0, 60)");
	nh = 99;
	CHECK(planfile_trusted_holes(&p, t, &nh, err, sizeof(err)) == 0 && nh == 1,
	      "  ... still relying on the hole (C meets A's bytes [0, 80))");
	mp_plan_free(&p);
	off[2] = 40;
	planfile_build(t, &pr, off, &info, &p, err, sizeof(err));
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "a window [80, 100) kept during the hole meets C at [40, 100)");
	mp_plan_free(&p);

	/* swaps: consistent entries pass, staging slots out together clash */
	off[2] = 0;
	planfile_build(t, &pr, off, &info, &p, err, sizeof(err));
	p.host_staging = 100;
	p.swaps = malloc(2 * sizeof(*p.swaps));
	p.swaps[0] = (struct mp_plan_swap){ 0, 1, 4, 0, 40, 0, 0 };
	p.swaps[1] = (struct mp_plan_swap){ 2, 2, 5, 0, 60, 40, 0 };
	p.nswaps = 2;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == 0,
	      "swaps with disjoint staging slots verify");
	p.swaps[1].staging = 20;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "swaps out together sharing staging bytes are caught");
	CHECK_STR_HAS(err, "staging", "  ... naming the staging area");
	p.swaps[1].out_at = 4; /* the slot is busy through ordinal 4 */
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "a slot is busy through the request of its swap-in");
	p.swaps[1].out_at = 5;
	p.swaps[1].in_at = 5;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "a swap-in at its swap-out is refused");
	mp_plan_free(&p);
	solver_problem_free(&pr);
	trace_free(t);

	/* two devices cannot share a pool */
	t = hand_trace(b, 4, NULL, 0);
	t->buffers[2].device = 1;
	solver_problem_from_trace(t, &pr, err, sizeof(err));
	CHECK(planfile_build(t, &pr, off, &info, &p, err, sizeof(err)) == TRACE_EINVAL,
	      "planned buffers on two devices are refused");
	CHECK_STR_HAS(err, "devices", "  ... saying so");
	solver_problem_free(&pr);
	trace_free(t);
}

/* --- the sweep against solver_check, on random traces with holes ----------- */

static void test_random(void)
{
	int agree = 1, ok = 0, bad = 0;
	for (int round = 0; round < 300; round++) {
		size_t n = 2 + below(9);
		int touch = round % 2; /* offsets that meet or miss by one byte */
		struct hb b[12];
		for (size_t i = 0; i < n; i++) {
			int64_t lo = (int64_t)below(20);
			b[i] = (struct hb){ 1 + below(40),
					    touch ? 1 : 1 + below(2) * 3, lo,
					    lo + 1 + (int64_t)below(20) };
		}
		struct trace *t = hand_trace(b, n, NULL, 0);
		if (!t) {
			agree = 0;
			break;
		}
		/* holes on the seq clock: seqs are event indexes */
		struct trace_hole hs[12];
		size_t nh = 0;
		for (size_t i = 0; i < n; i++) {
			int64_t lo, hi;
			trace_lifetime(t, &t->buffers[i], &lo, &hi);
			if (hi - lo < 3 || below(2))
				continue;
			int64_t a = lo + 1 + (int64_t)below((uint64_t)(hi - lo - 2));
			int64_t z = a + 1 + (int64_t)below((uint64_t)(hi - a - 1));
			hs[nh] = (struct trace_hole){ (int64_t)i, a, z, TRACE_NONE,
						      TRACE_NONE };
			if (below(2) && b[i].size > 2) {
				hs[nh].win_lo = (int64_t)below(b[i].size / 2);
				hs[nh].win_hi = hs[nh].win_lo + 1 +
						(int64_t)below(b[i].size / 2);
			}
			nh++;
		}
		for (size_t i = 0; i < nh; i++)
			trace_add_hole(t, &hs[i]);
		trace_finish(t, err, sizeof(err));
		struct solver_problem pr;
		solver_problem_from_trace(t, &pr, err, sizeof(err));
		uint64_t off[12];
		for (size_t i = 0; i < pr.n; i++) {
			off[i] = pr.items[i].align * below(12);
			if (touch && i > 0) {
				size_t j = below(i);
				off[i] = off[j] + pr.items[j].size - below(2);
			}
		}
		int want = solver_check(&pr, off, NULL, err, sizeof(err)) == 0;
		struct mp_plan p;
		struct planfile_info info = { 1, "random", 0, 1 };
		int got = planfile_build(t, &pr, off, &info, &p, err, sizeof(err)) == 0 &&
			  planfile_verify(&p, t, err, sizeof(err)) == 0;
		if (want != got) {
			agree = 0;
			printf("# round %d: solver_check %d, planfile_verify %d (%s)\n",
			       round, want, got, err);
		}
		ok += want;
		bad += !want;
		mp_plan_free(&p);
		solver_problem_free(&pr);
		trace_free(t);
	}
	CHECK(agree, "planfile_verify agrees with solver_check on 300 random plans with holes");
	CHECK(ok > 20 && bad > 20, "  ... among them valid and overlapping ones");
	if (!(ok > 20 && bad > 20))
		printf("# %d valid, %d overlapping\n", ok, bad);
}

/*
 * A random trace on the seq clock: n buffers allocated and freed in random
 * order, kernels between the requests that read or write live buffers, and
 * holes in the idle stretches between uses (as MiniMalloc's gaps or a swap
 * planner's holes would be).  NULL when the dice gave no valid trace.
 */
static struct trace *random_trace(size_t n)
{
	struct trace *t = trace_new();
	for (size_t i = 0; i < n; i++) {
		uint64_t sz = 8 * (1 + below(8));
		struct trace_buffer x = { .size = sz, .rounded = sz, .align = 8,
					  .fixed_offset = TRACE_NONE,
					  .stream = TRACE_NONE };
		trace_add_buffer(t, &x);
	}
	/* requests: each buffer's alloc before its free, shuffled */
	int64_t req[32];
	size_t nr = 0, left[16], na = 0;
	int live[16] = { 0 };
	for (size_t i = 0; i < n; i++)
		left[na++] = i;
	int freed[16] = { 0 };
	while (nr < 2 * n) {
		size_t nl = 0;
		int64_t cand[32];
		for (size_t i = 0; i < na; i++)
			cand[nl++] = (int64_t)left[i];
		for (size_t i = 0; i < n; i++)
			if (live[i] && !freed[i])
				cand[nl++] = -(int64_t)i - 1;
		int64_t c = cand[below(nl)];
		req[nr++] = c;
		if (c >= 0) {
			live[c] = 1;
			for (size_t i = 0; i < na; i++)
				if (left[i] == (size_t)c) {
					left[i] = left[--na];
					break;
				}
		} else {
			freed[-c - 1] = 1;
		}
	}
	memset(live, 0, sizeof(live));
	for (size_t k = 0; k < nr; k++) {
		int64_t c = req[k];
		int64_t b = c >= 0 ? c : -c - 1;
		struct trace_event e = { .seq = trace_next_seq(t),
					 .t_start = TRACE_TIME_NONE,
					 .t_end = TRACE_TIME_NONE, .buffer = b,
					 .stream = TRACE_NONE,
					 .type = c >= 0 ? TRACE_EV_ALLOC : TRACE_EV_FREE };
		trace_add_event(t, &e);
		live[b] = c >= 0;
		/* a kernel or two touching live buffers */
		for (uint64_t j = below(3); j > 0; j--) {
			struct trace_event kx = { .seq = trace_next_seq(t),
						  .t_start = TRACE_TIME_NONE,
						  .t_end = TRACE_TIME_NONE,
						  .buffer = TRACE_NONE,
						  .stream = TRACE_NONE,
						  .type = TRACE_EV_KERNEL };
			trace_add_event(t, &kx);
			for (size_t i = 0; i < n; i++)
				if (live[i] && below(3) == 0)
					trace_add_access(t, (int64_t)i,
							 below(2) ? TRACE_ACCESS_READ
								  : TRACE_ACCESS_WRITE);
		}
	}
	if (trace_finish(t, err, sizeof(err))) {
		trace_free(t);
		return NULL;
	}
	/* a hole in some idle stretch of each buffer, between two uses (or
	 * the alloc and the first use, the last use and the free) */
	struct trace_hole hs[16];
	size_t nh = 0;
	for (size_t i = 0; i < n; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		if (below(3) == 0)
			continue;
		int64_t pts[64];
		size_t np = 0;
		pts[np++] = t->events[b->alloc_ev].seq;
		for (uint32_t u = 0; u < b->nuses && np < 62; u++)
			pts[np++] = t->events[t->uses[b->use0 + u]].seq;
		pts[np++] = t->events[b->free_ev].seq;
		size_t j = below(np - 1);
		int64_t lo = pts[j] + 1, hi = pts[j + 1];
		if (hi - lo < 1)
			continue;
		int64_t a = lo + (int64_t)below((uint64_t)(hi - lo));
		int64_t z = a + 1 + (int64_t)below((uint64_t)(hi - a));
		hs[nh++] = (struct trace_hole){ (int64_t)i, a, z, TRACE_NONE,
						TRACE_NONE };
	}
	struct trace *u = trace_new();
	for (size_t i = 0; i < t->nbuffers; i++) {
		struct trace_buffer x = t->buffers[i];
		trace_add_buffer(u, &x);
	}
	for (size_t i = 0; i < t->nevents; i++) {
		struct trace_event e = t->events[i];
		trace_add_event(u, &e);
		for (uint32_t a = 0; a < e.nacc; a++)
			trace_add_access(u, t->accesses[e.acc0 + a].buffer,
					 t->accesses[e.acc0 + a].mode);
	}
	for (size_t i = 0; i < nh; i++)
		trace_add_hole(u, &hs[i]);
	trace_free(t);
	if (trace_finish(u, err, sizeof(err))) {
		printf("# random trace: %s\n", err);
		trace_free(u);
		return NULL;
	}
	return u;
}

/*
 * verify and the runtime agree: random traces with holes, random plans
 * (offsets at random, or a placement made over the trace's holes as if the
 * runtime emptied them): planfile_verify accepts a plan exactly when
 * replaying it on the host backend loses no byte.
 */
static void test_replay_agrees(void)
{
	/* tmpfs when there is one: every plan file is synced to disk */
	char shm[] = "/dev/shm/memplan-test-agree.XXXXXX";
	char tmp[] = "/tmp/memplan-test-agree.XXXXXX", path[256];
	const char *dir = mkdtemp(shm);
	if (!dir)
		dir = mkdtemp(tmp);
	if (!dir) {
		CHECK(0, "a temporary folder");
		return;
	}
	snprintf(path, sizeof(path), "%s/p.plan", dir);
	int agree = 1, rounds = 0, ok = 0, bad = 0, holed = 0;
	for (int round = 0; round < 400 && agree; round++) {
		struct trace *t = random_trace(2 + below(7));
		if (!t)
			continue;
		struct solver_problem pr;
		if (solver_problem_from_trace(t, &pr, err, sizeof(err))) {
			trace_free(t);
			continue;
		}
		uint64_t off[16];
		int over_holes = (int)below(2);
		if (over_holes) {
			struct solver_report r;
			if (solver_solve(&pr, "best-fit", NULL, off, &r, err,
					 sizeof(err))) {
				solver_problem_free(&pr);
				trace_free(t);
				continue;
			}
		} else {
			for (size_t i = 0; i < pr.n; i++)
				off[i] = 8 * below(10);
		}
		holed += t->nholes > 0;
		solver_problem_drop_holes(&pr);
		struct mp_plan p;
		struct planfile_info info = { 1, "random", 0, 0 };
		int rc = planfile_build(t, &pr, off, &info, &p, err, sizeof(err));
		if (rc == 0)
			rc = mp_plan_write_file(path, &p, err, sizeof(err));
		if (rc == TRACE_EINVAL) {
			/* no such plan file can exist (a pool below the
			 * lower bound): nothing to compare */
		} else if (rc) {
			agree = 0;
			printf("# round %d: %s\n", round, err);
		} else {
			int verified = planfile_verify(&p, t, err, sizeof(err)) == 0;
			struct replay_opts o = { .backend = MP_BACKEND_HOST, .iterations = 1 };
			struct replay_result res;
			char why[512];
			int rr = replay_run(t, path, &o, &res, NULL, NULL, why,
					    sizeof(why));
			int clean = rr == 0 && res.problems == 0;
			if (verified != clean) {
				agree = 0;
				printf("# round %d: verify %s (%s), replay %d problems (rc %d)\n",
				       round, verified ? "accepts" : "refuses",
				       verified ? "" : err, (int)res.problems, rr);
			}
			ok += verified;
			bad += !verified;
			rounds++;
		}
		mp_plan_free(&p);
		solver_problem_free(&pr);
		trace_free(t);
	}
	unlink(path);
	rmdir(dir);
	CHECK(agree, "verify accepts a plan exactly when replay loses nothing (random traces with holes, random plans)");
	printf("# %d rounds (%d traces with holes): %d accepted, %d refused\n",
	       rounds, holed, ok, bad);
	CHECK(rounds > 200 && ok > 30 && bad > 30 && holed > 100,
	      "  ... over traces with holes, plans accepted and refused");
}

/* The optional STREAMS section: written when the plan has streams, read
 * back, every count and ordinal bounded by what the file holds, older plans
 * without it loading as before. */
static void test_streams_format(void)
{
	struct mp_plan p, q;
	unsigned char *buf = NULL, *buf2 = NULL, *b;
	size_t len = 0, len2 = 0, n;
	sample_plan(&p);
	static const uint32_t ord[6] = { 0, 1, 0, MP_PLAN_STREAM_UNKNOWN, 2, 1 };
	p.streams = malloc(sizeof(ord));
	memcpy(p.streams, ord, sizeof(ord));
	p.has_streams = 1;
	CHECK_EQ_U64(mp_plan_stream_count(&p), 3, "three trace streams");
	int rc = mp_plan_encode(&p, &buf, &len, err, sizeof(err));
	CHECK(rc == 0, "encode a plan with streams");
	if (rc) {
		printf("# %s\n", err);
		mp_plan_free(&p);
		return;
	}
	CHECK_EQ_U64(len, 64 + 4 * 32 + 96 + 6 * 48 + 56 + 6 * 8,
		     "  ... one more table entry and one 8-byte entry per allocation");
	const unsigned char *e = buf + 64 + 3 * 32;
	CHECK(get32(e) == MP_PLAN_SECTION_STREAMS && get32(e + 4) == 0 &&
		      get64(e + 16) == 48 && get32(e + 24) == 6 && get32(e + 28) == 8,
	      "  ... type 5, not required (older readers skip it), 6 entries of 8 bytes");
	size_t at = (size_t)get64(e + 8);
	CHECK(get32(buf + at + 8) == 1 && get32(buf + at + 12) == 0 &&
		      get32(buf + at + 24) == UINT32_MAX,
	      "  ... an ordinal and a zero per entry, unknown as 0xffffffff");
	rc = mp_plan_decode(buf, len, &q, err, sizeof(err));
	CHECK(rc == 0 && same_plan(&p, &q) && q.has_streams &&
		      memcmp(q.streams, ord, sizeof(ord)) == 0,
	      "decode gives back the ordinals");
	CHECK(rc == 0 && mp_plan_encode(&q, &buf2, &len2, err, sizeof(err)) == 0 &&
		      len2 == len && memcmp(buf, buf2, len) == 0,
	      "  ... and encoding it again gives the same bytes");
	free(buf2);
	mp_plan_free(&q);
	CHECK(strcmp(mp_plan_section_name(MP_PLAN_SECTION_STREAMS), "STREAMS") == 0,
	      "the section's name");

	unsigned char *c = malloc(len);
	int all = 1;
	for (size_t i = 0; i < len; i++) {
		memcpy(c, buf, len);
		c[i] ^= 0x40;
		if (mp_plan_decode(c, len, &q, err, sizeof(err)) == 0) {
			all = 0;
			mp_plan_free(&q);
		}
	}
	CHECK(all, "every single-byte corruption of a plan with streams is refused");
	all = 1;
	for (n = 0; n < len; n++)
		if (mp_plan_decode(buf, n, &q, err, sizeof(err)) == 0) {
			all = 0;
			mp_plan_free(&q);
		}
	CHECK(all, "every truncation of a plan with streams is refused");
	free(c);

	struct tsec s[8];
	CHECK_EQ_U64(split(buf, s), 4, "split: four sections");
	b = assemble(s, 3, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && !q.has_streams &&
		      q.streams == NULL && q.nallocs == 6,
	      "the same plan without STREAMS (an older plan) loads, without streams");
	mp_plan_free(&q);
	free(b);
	struct tsec r[4] = { s[3], s[1], s[0], s[2] };
	b = assemble(r, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && q.has_streams,
	      "STREAMS may come first");
	mp_plan_free(&q);
	free(b);
	struct tsec t[5] = { s[0], s[1], s[2], s[3], s[3] };
	b = assemble(t, 5, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "a second STREAMS section is refused",
		(const char *const[]){ "second STREAMS", NULL });

	/* counts: one entry per allocation, and never past the file */
	unsigned char d[7 * 8];
	memcpy(d, s[3].data, 48);
	memset(d + 48, 0, 8);
	t[3] = (struct tsec){ 5, 0, 7, 8, d, 56 };
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "seven stream entries for six allocations are refused",
		(const char *const[]){ "STREAMS", "count", "7 entries for 6 allocations", NULL });
	t[3] = (struct tsec){ 5, 0, 5, 8, d, 40 };
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "five stream entries for six allocations are refused",
		(const char *const[]){ "STREAMS", "count", NULL });
	t[3] = (struct tsec){ 5, 0, 6, 8, d, 48 };
	b = assemble(t, 4, 1, 0, &n);
	put32(b + 64 + 3 * 32 + 24, 0x10000000u); /* the count, alone */
	put64(b + 64 + 3 * 32 + 16, (uint64_t)0x10000000u * 8); /* and the length */
	fix_checksum(b, n);
	refused(b, n, MP_PLAN_EFORMAT, "a count of 2^28 entries, running past the file, is refused",
		(const char *const[]){ "section 3 (STREAMS)", "not inside the file", NULL });
	b = assemble(t, 4, 1, 0, &n);
	put32(b + 64 + 3 * 32 + 24, 0x10000000u); /* the count, not the length */
	fix_checksum(b, n);
	refused(b, n, MP_PLAN_EFORMAT, "a count the section's length does not hold is refused",
		(const char *const[]){ "section 3 (STREAMS)", "length", NULL });
	t[3] = (struct tsec){ 5, 0, 6, 4, d, 24 };
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "entries shorter than 8 bytes are refused",
		(const char *const[]){ "STREAMS", "entry_size", NULL });

	/* ordinals: a new stream takes the next one */
	put32(d + 8, 2);
	t[3] = (struct tsec){ 5, 0, 6, 8, d, 48 };
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "an ordinal past the streams seen before it is refused",
		(const char *const[]){ "STREAMS entry 1", "ordinal 2", "next ordinal, 1", NULL });
	put32(d + 8, 1);
	put32(d, 0xfffffffeu);
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "an ordinal of 2^32 - 2 is refused",
		(const char *const[]){ "STREAMS entry 0", "ordinal 4294967294", NULL });
	put32(d, 0);
	put32(d + 4, 1);
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "a reserved field not 0 is refused",
		(const char *const[]){ "STREAMS entry 0", "reserved", NULL });
	put32(d + 4, 0);
	for (int i = 0; i < 6; i++)
		put32(d + 8 * i, MP_PLAN_STREAM_UNKNOWN);
	b = assemble(t, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && q.has_streams &&
		      mp_plan_stream_count(&q) == 0,
	      "a section of unknown streams only loads (nothing to check)");
	mp_plan_free(&q);
	free(b);
	t[3].flags = MP_PLAN_SECTION_REQUIRED;
	b = assemble(t, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && q.has_streams,
	      "STREAMS marked required loads too (this reader knows it)");
	mp_plan_free(&q);
	free(b);

	/* no swaps: the writer's empty SWAPS starts where STREAMS does, and
	 * either may come first in the table */
	struct mp_plan z;
	sample_plan(&z);
	free(z.swaps);
	z.swaps = NULL;
	z.nswaps = 0;
	z.host_staging = 0;
	z.streams = malloc(sizeof(ord));
	memcpy(z.streams, ord, sizeof(ord));
	z.has_streams = 1;
	unsigned char *zb;
	size_t zn;
	CHECK(mp_plan_encode(&z, &zb, &zn, err, sizeof(err)) == 0 &&
		      get64(zb + 64 + 2 * 32 + 8) == get64(zb + 64 + 3 * 32 + 8) &&
		      get64(zb + 64 + 2 * 32 + 16) == 0,
	      "without swaps, the empty SWAPS starts where STREAMS does");
	unsigned char row[32];
	memcpy(row, zb + 64 + 2 * 32, 32);
	memmove(zb + 64 + 2 * 32, zb + 64 + 3 * 32, 32);
	memcpy(zb + 64 + 3 * 32, row, 32);
	fix_checksum(zb, zn);
	CHECK(mp_plan_decode(zb, zn, &q, err, sizeof(err)) == 0 && q.has_streams &&
		      q.nswaps == 0,
	      "  ... and STREAMS before it in the table loads (an empty section overlaps nothing)");
	mp_plan_free(&q);
	free(zb);
	mp_plan_free(&z);

	/* in memory */
	free(p.streams);
	p.streams = NULL;
	CHECK(mp_plan_validate(&p, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "a plan with streams and no ordinals is invalid");
	p.has_streams = 0;
	p.streams = malloc(sizeof(ord));
	CHECK(mp_plan_validate(&p, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "  ... and so is ordinals without has_streams");
	free(buf);
	mp_plan_free(&p);
}

/* planfile: the ordinals of a trace's streams, and verify holding a plan's
 * section to them. */
static void test_streams_trace(void)
{
	/* A [0, 5), B [1, 3), C [2, 6), D [4, 7): streams 7, 9, 7, and D's
	 * known only from its alloc event (9) */
	static const struct hb b[] = {
		{ 100, 8, 0, 5 }, { 50, 8, 1, 3 }, { 60, 8, 2, 6 }, { 10, 8, 4, 7 },
	};
	struct trace *t = hand_trace(b, 4, NULL, 0);
	if (!t)
		return;
	t->buffers[0].stream = 7;
	t->buffers[1].stream = 9;
	t->buffers[2].stream = 7;
	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].type == TRACE_EV_ALLOC && t->events[i].buffer == 3)
			t->events[i].stream = 9;
	struct mp_plan p;
	CHECK(plan_of(t, "best-fit", 1, &p) == 0 && p.has_streams,
	      "a plan of a trace with streams has a STREAMS section");
	CHECK(p.streams && p.streams[0] == 0 && p.streams[1] == 1 &&
		      p.streams[2] == 0 && p.streams[3] == 1,
	      "  ... ordinals by first appearance: 0 1 0 1 (the alloc event's stream where the buffer has none)");
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == 0, "  ... it verifies");
	p.streams[2] = 1;
	p.streams[3] = 0;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "the same requests with two streams swapped do not verify");
	CHECK_STR_HAS(err, "request 2 (buffer 2)", "  ... naming the first request");
	CHECK_STR_HAS(err, "stream ordinal 1, the trace's streams give 0", "  ... and both ordinals");
	/* every other entry right: only the unknown one can be refused (a
	 * verify that let an unknown ordinal pass survived while entry 3 was
	 * wrong too) */
	p.streams[3] = 1;
	p.streams[2] = MP_PLAN_STREAM_UNKNOWN;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "an unknown stream where the trace knows it does not verify (the runtime would check nothing there)");
	CHECK_STR_HAS(err, "request 2 (buffer 2): the plan's STREAMS section says stream ordinal unknown, the trace's streams give 0",
		      "  ... naming the request and both ordinals");
	p.streams[2] = 0;
	p.streams[3] = MP_PLAN_STREAM_UNKNOWN;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "  ... nor does the last entry's (the only wrong one)");
	CHECK_STR_HAS(err, "request 3 (buffer 3)", "  ... naming it");
	p.streams[3] = 1;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == 0, "  ... put back, it verifies");
	size_t dal = 0; /* D's alloc event: without its stream, D's is unknown */
	while (dal < t->nevents && !(t->events[dal].type == TRACE_EV_ALLOC &&
				     t->events[dal].buffer == 3))
		dal++;
	t->events[dal].stream = TRACE_NONE;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "a known stream where the trace knows none does not verify");
	CHECK_STR_HAS(err, "says stream ordinal 1, the trace's streams give unknown",
		      "  ... saying so");
	t->events[dal].stream = 9;
	free(p.streams);
	p.streams = NULL;
	p.has_streams = 0;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == 0,
	      "a plan without the section (an older plan) verifies");
	mp_plan_free(&p);
	t->buffers[1].stream = TRACE_NONE;
	t->buffers[0].stream = TRACE_NONE;
	t->buffers[2].stream = TRACE_NONE;
	for (size_t i = 0; i < t->nevents; i++)
		t->events[i].stream = TRACE_NONE;
	CHECK(plan_of(t, "best-fit", 1, &p) == 0 && p.has_streams &&
		      mp_plan_stream_count(&p) == 0 &&
		      p.streams[0] == MP_PLAN_STREAM_UNKNOWN,
	      "a trace without streams gives unknown ordinals");
	mp_plan_free(&p);
	trace_free(t);
}

/*
 * A swap's triggers against the uses around it, event by event.  A (100
 * bytes, request 0) is written by a kernel, swapped out after request 2 (B's
 * free) and in after request 5 (D's alloc); kernels sit right before and
 * right after each trigger, and use A or not (bits of uses: 1 the kernel
 * before request 2, 2 the one right after it, 4 the one right before
 * request 5, 8 the one right after it).  A use from the event after the
 * swap-out's request to the event before the swap-in's is refused; one
 * just outside is not (a verify that moved either end by one event
 * survived make check).
 *
 *   ev  0 alloc A (r0)  1 k writes A  2 alloc B (r1)  3 k[1]  4 free B (r2)
 *       5 k[2]  6 alloc C (r3)  7 free C (r4)  8 k[4]  9 alloc D (r5)
 *      10 k[8] 11 free D (r6) 12 k reads A  13 free A (r7)
 */
static struct trace *swap_edge_trace(unsigned uses)
{
	struct trace *t = trace_new();
	for (int i = 0; i < 4; i++) {
		struct trace_buffer x = { .size = 100, .rounded = 100, .align = 1,
					  .fixed_offset = TRACE_NONE,
					  .stream = 0 };
		trace_add_buffer(t, &x);
	}
	static const struct { int type, buf, bit; } ev[] = {
		{ TRACE_EV_ALLOC, 0, 0 }, { TRACE_EV_KERNEL, -1, 0x10 },
		{ TRACE_EV_ALLOC, 1, 0 }, { TRACE_EV_KERNEL, -1, 1 },
		{ TRACE_EV_FREE, 1, 0 },  { TRACE_EV_KERNEL, -1, 2 },
		{ TRACE_EV_ALLOC, 2, 0 }, { TRACE_EV_FREE, 2, 0 },
		{ TRACE_EV_KERNEL, -1, 4 }, { TRACE_EV_ALLOC, 3, 0 },
		{ TRACE_EV_KERNEL, -1, 8 }, { TRACE_EV_FREE, 3, 0 },
		{ TRACE_EV_KERNEL, -1, 0x10 }, { TRACE_EV_FREE, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(ev) / sizeof(*ev); i++) {
		struct trace_event e = { .seq = (int64_t)i,
					 .t_start = TRACE_TIME_NONE,
					 .t_end = TRACE_TIME_NONE,
					 .buffer = ev[i].buf, .stream = 0,
					 .type = (uint8_t)ev[i].type };
		trace_add_event(t, &e);
		if (ev[i].bit & (uses | 0x10))
			trace_add_access(t, 0, TRACE_ACCESS_RW);
	}
	if (trace_finish(t, err, sizeof(err))) {
		printf("# %s\n", err);
		trace_free(t);
		return NULL;
	}
	return t;
}

static void test_swap_edges(void)
{
	static const struct {
		unsigned uses;
		int refused;
		const char *what;
	} cases[] = {
		{ 0, 0, "a swap of A between its write and its read verifies" },
		{ 1, 0, "  ... with a use right before the swap-out's request" },
		{ 2, 1, "  ... not with a use right after the swap-out's request (the copy-out does not wait for it)" },
		{ 4, 1, "  ... not with a use right before the swap-in's request (its bytes are out)" },
		{ 8, 0, "  ... with a use right after the swap-in's request (its stream waits for the copy-in)" },
		{ 9, 0, "  ... with both uses just outside the swap" },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		struct trace *t = swap_edge_trace(cases[c].uses);
		CHECK(t != NULL, "  ... (the trace of the case)");
		if (!t)
			continue;
		struct solver_problem pr;
		solver_problem_from_trace(t, &pr, err, sizeof(err));
		uint64_t off[4] = { 0, 100, 200, 300 };
		struct mp_plan_swap w = { 0, 2, 5, 0, 100, 0, 0 };
		struct planfile_swaps sw = { &w, 1, 100 };
		struct planfile_info info = { 1, "edges", 0, 0 };
		struct mp_plan p;
		int rc = planfile_build_swaps(t, &pr, off, &info, &sw, &p, err,
					      sizeof(err));
		if (rc == 0) {
			rc = planfile_verify(&p, t, err, sizeof(err));
			mp_plan_free(&p);
		}
		CHECK(cases[c].refused ? rc == PLANFILE_EINVALID : rc == 0,
		      cases[c].what);
		if (cases[c].refused)
			CHECK_STR_HAS(err, "buffer 0 is used at seq", "  ... naming the buffer and the use");
		else if (rc)
			printf("# %s\n", err);
		solver_problem_free(&pr);
		trace_free(t);
	}
}

/* The optional LINK section: the link spec a swap plan was made for,
 * written when the plan has one, read back byte for byte, every malformed
 * form refused, older plans without it loading as before. */
static void test_link_format(void)
{
	struct mp_plan p, q;
	unsigned char *buf = NULL, *buf2 = NULL, *b;
	size_t len = 0, len2 = 0, n;
	sample_plan(&p);
	static const char spec[] = "gh200-c2c,gpus=2";
	strcpy(p.link, spec);
	p.has_link = 1;
	int rc = mp_plan_encode(&p, &buf, &len, err, sizeof(err));
	CHECK(rc == 0, "encode a plan with a link");
	if (rc) {
		printf("# %s\n", err);
		mp_plan_free(&p);
		return;
	}
	CHECK_EQ_U64(len, 64 + 4 * 32 + 96 + 6 * 48 + 56 + 128,
		     "  ... one more table entry and one 128-byte entry");
	const unsigned char *e = buf + 64 + 3 * 32;
	CHECK(get32(e) == MP_PLAN_SECTION_LINK && get32(e + 4) == 0 &&
		      get64(e + 16) == 128 && get32(e + 24) == 1 && get32(e + 28) == 128,
	      "  ... type 6, not required (older readers skip it), one entry of 128 bytes");
	size_t at = (size_t)get64(e + 8);
	int zeros = 1;
	for (size_t i = sizeof(spec) - 1; i < 128; i++)
		zeros &= buf[at + i] == 0;
	CHECK(memcmp(buf + at, spec, sizeof(spec) - 1) == 0 && zeros,
	      "  ... the spec's bytes, then zeros");
	rc = mp_plan_decode(buf, len, &q, err, sizeof(err));
	CHECK(rc == 0 && same_plan(&p, &q) && q.has_link &&
		      strcmp(q.link, spec) == 0 && !q.has_streams,
	      "decode gives back the spec");
	CHECK(rc == 0 && mp_plan_encode(&q, &buf2, &len2, err, sizeof(err)) == 0 &&
		      len2 == len && memcmp(buf, buf2, len) == 0,
	      "  ... and encoding it again gives the same bytes");
	free(buf2);
	if (rc == 0)
		mp_plan_free(&q);
	CHECK(strcmp(mp_plan_section_name(MP_PLAN_SECTION_LINK), "LINK") == 0,
	      "the section's name");

	unsigned char *c = malloc(len);
	int all = 1;
	for (size_t i = 0; i < len; i++) {
		memcpy(c, buf, len);
		c[i] ^= 0x40;
		if (mp_plan_decode(c, len, &q, err, sizeof(err)) == 0) {
			all = 0;
			mp_plan_free(&q);
		}
	}
	CHECK(all, "every single-byte corruption of a plan with a link is refused");
	all = 1;
	for (n = 0; n < len; n++)
		if (mp_plan_decode(buf, n, &q, err, sizeof(err)) == 0) {
			all = 0;
			mp_plan_free(&q);
		}
	CHECK(all, "every truncation of a plan with a link is refused");
	free(c);

	struct tsec s[8];
	CHECK_EQ_U64(split(buf, s), 4, "split: four sections");
	b = assemble(s, 3, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && !q.has_link &&
		      q.link[0] == '\0' && q.nallocs == 6,
	      "the same plan without LINK (an older plan) loads, without a link");
	mp_plan_free(&q);
	free(b);
	struct tsec r[4] = { s[3], s[1], s[0], s[2] };
	b = assemble(r, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && q.has_link,
	      "LINK may come first");
	mp_plan_free(&q);
	free(b);
	struct tsec t[5] = { s[0], s[1], s[2], s[3], s[3] };
	b = assemble(t, 5, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "a second LINK section is refused",
		(const char *const[]){ "second LINK", NULL });
	t[3].flags = MP_PLAN_SECTION_REQUIRED;
	b = assemble(t, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && q.has_link,
	      "LINK marked required loads too (this reader knows it)");
	mp_plan_free(&q);
	free(b);
	t[3].flags = 0;

	/* every malformed form */
	unsigned char d[3 * 160];
	memset(d, 0, sizeof(d));
	memcpy(d, spec, sizeof(spec) - 1);
	t[3] = (struct tsec){ 6, 0, 2, 128, d, 256 };
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "two LINK entries are refused",
		(const char *const[]){ "section 3 (LINK)", "count", "one entry", NULL });
	t[3] = (struct tsec){ 6, 0, 0, 128, d, 0 };
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "no LINK entry is refused",
		(const char *const[]){ "section 3 (LINK)", "count", NULL });
	t[3] = (struct tsec){ 6, 0, 1, 64, d, 64 };
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "an entry shorter than 128 bytes is refused",
		(const char *const[]){ "LINK", "at least 128 bytes", NULL });
	t[3] = (struct tsec){ 6, 0, 1, 160, d, 160 };
	d[150] = 7; /* a later version's field */
	b = assemble(t, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && q.has_link &&
		      strcmp(q.link, spec) == 0,
	      "a longer entry (a later version's) loads: the spec is its first 128 bytes");
	mp_plan_free(&q);
	free(b);
	d[150] = 0;
	t[3] = (struct tsec){ 6, 0, 1, 128, d, 128 };
	d[100] = 'x';
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "a byte after the spec's NUL that is not 0 is refused",
		(const char *const[]){ "LINK field spec", "byte 100", "not 0", NULL });
	d[100] = 0;
	memset(d, 'a', 128);
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "a spec of 128 bytes without a NUL is refused",
		(const char *const[]){ "LINK field spec", "no terminating NUL", NULL });
	memset(d, 0, 128);
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "an empty spec is refused",
		(const char *const[]){ "LINK field spec", "empty", NULL });
	memcpy(d, "pcie5\n", 6);
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "a spec with a control byte is refused",
		(const char *const[]){ "LINK field spec", "byte 5", "printable", NULL });
	d[5] = (unsigned char)0xe9;
	b = assemble(t, 4, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "a spec with a byte above 0x7e is refused",
		(const char *const[]){ "LINK field spec", "byte 5", NULL });
	memset(d, 'a', 127);
	d[127] = 0;
	b = assemble(t, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 &&
		      strlen(q.link) == 127,
	      "a spec of 127 bytes (the most) loads");
	mp_plan_free(&q);
	free(b);

	/* in memory */
	p.link[0] = '\0';
	CHECK(mp_plan_validate(&p, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "a plan with has_link and an empty spec is invalid");
	p.has_link = 0;
	strcpy(p.link, "pcie5");
	CHECK(mp_plan_validate(&p, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "  ... and so is a spec without has_link");
	memset(p.link, 'b', sizeof(p.link));
	p.has_link = 1;
	CHECK(mp_plan_encode(&p, &buf2, &len2, err, sizeof(err)) == MP_PLAN_EINVAL &&
		      buf2 == NULL,
	      "  ... and a spec without a NUL is not written");
	free(buf);
	mp_plan_free(&p);
}

/* planfile: verify parses a plan's link against its trace. */
static void test_link_trace(void)
{
	static const struct hb b[] = {
		{ 100, 8, 0, 5 }, { 50, 8, 1, 3 }, { 60, 8, 2, 6 },
	};
	struct trace *t = hand_trace(b, 3, NULL, 0);
	if (!t)
		return;
	struct mp_plan p;
	CHECK(plan_of(t, "best-fit", 1, &p) == 0 && !p.has_link,
	      "a plan without swaps has no LINK section");
	strcpy(p.link, "gh200-c2c,gpus=2");
	p.has_link = 1;
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == 0,
	      "a plan with a link the model knows verifies");
	strcpy(p.link, "nvlink9");
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "a link the model does not know does not verify");
	CHECK_STR_HAS(err, "LINK section 'nvlink9'", "  ... naming the section and the spec");
	strcpy(p.link, "measured");
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == PLANFILE_EINVALID,
	      "'measured' against a trace that measured nothing does not verify");
	CHECK_STR_HAS(err, "bandwidth_h2d", "  ... naming the meta key");
	mp_plan_free(&p);
	trace_free(t);
}

/* --- a cycle: workloads taking turns in one pool ----------------------------- */

static struct trace *zoo_trace(const char *model, unsigned batch)
{
	struct synth_opts o = { .model = model, .batch = batch, .device = "h200" };
	struct trace *t = NULL;
	if (synth_build(&o, &t, err, sizeof(err)))
		printf("# %s %u: %s\n", model, batch, err);
	return t;
}

/* A cycle plan of in[0..n) by strategy name; 0 on success. */
static int cycle_plan_of(struct trace *const *in, size_t n, const char *name,
			 struct trace **t, struct cycle *cy, struct mp_plan *p)
{
	memset(p, 0, sizeof(*p));
	if (cycle_trace(in, n, t, cy, err, sizeof(err)))
		return -1;
	if (plan_of(*t, name, 1, p))
		return -1;
	return cycle_attach(p, cy, err, sizeof(err));
}

/* The CYCLE section: written, read back, every malformed field refused. */
static void test_cycle_format(void)
{
	struct trace *in[2] = { zoo_trace("alexnet", 1), zoo_trace("alexnet", 2) };
	struct trace *t = NULL;
	struct cycle cy;
	struct mp_plan p, q;
	CHECK(in[0] && in[1] && cycle_plan_of(in, 2, "greedy-size", &t, &cy, &p) == 0,
	      "a cycle plan of two zoo traces builds");
	if (!t) {
		printf("# %s\n", err);
		return;
	}
	CHECK_EQ_U64(p.nworkloads, 2, "  ... two workloads");
	CHECK(p.workloads[0].first_request == 0 &&
		      p.workloads[1].first_request == cy.requests[0],
	      "  ... the second starts after the first one's requests");
	CHECK(planfile_verify(&p, t, err, sizeof(err)) == 0, "  ... and verifies against the concatenation");
	unsigned char *buf = NULL, *b;
	size_t len = 0, n;
	CHECK(mp_plan_encode(&p, &buf, &len, err, sizeof(err)) == 0, "encode a cycle plan");
	struct tsec s[8];
	size_t ns = split(buf, s);
	CHECK(ns == 5 && s[4].type == MP_PLAN_SECTION_CYCLE && s[4].flags == 0 &&
		      s[4].count == 2 && s[4].esize == 32,
	      "  ... a CYCLE section: type 7, optional (an older reader follows the cycle as one iteration), 2 entries of 32 bytes");
	CHECK(strcmp(mp_plan_section_name(MP_PLAN_SECTION_CYCLE), "CYCLE") == 0, "  ... named CYCLE");
	int rc = mp_plan_decode(buf, len, &q, err, sizeof(err));
	int same = rc == 0 && q.nworkloads == 2; /* fields: not the padding */
	for (uint32_t w = 0; same && w < 2; w++)
		same = q.workloads[w].first_request == p.workloads[w].first_request &&
		       q.workloads[w].fingerprint == p.workloads[w].fingerprint &&
		       q.workloads[w].persistent_bytes == p.workloads[w].persistent_bytes &&
		       q.workloads[w].flags == p.workloads[w].flags;
	CHECK(same, "decode gives the workloads back");
	if (!rc)
		mp_plan_free(&q);
	b = assemble(s, 4, 1, 0, &n);
	CHECK(mp_plan_decode(b, n, &q, err, sizeof(err)) == 0 && q.nworkloads == 0 &&
		      q.workloads == NULL,
	      "without CYCLE (as an older writer) it loads as one iteration");
	mp_plan_free(&q);
	free(b);
	int all = 1;
	unsigned char *c = malloc(len);
	for (size_t i = (size_t)(s[4].data - buf); i < len; i++) {
		if ((i - (size_t)(s[4].data - buf)) % 32 / 8 == 2)
			continue; /* persistent_bytes: information, any value */
		memcpy(c, buf, len);
		c[i] ^= 0x01;
		fix_checksum(c, len);
		if (mp_plan_decode(c, len, &q, err, sizeof(err)) == 0) {
			all = 0;
			printf("#   byte %zu of CYCLE flipped: loads\n", i - (size_t)(s[4].data - buf));
			mp_plan_free(&q);
		}
	}
	free(c);
	CHECK(all, "every bit 0 flipped in CYCLE but its information (checksum fixed) is refused");
	struct tsec t6[6] = { s[0], s[1], s[2], s[3], s[4], s[4] };
	b = assemble(t6, 6, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "a second CYCLE section is refused",
		(const char *const[]){ "second CYCLE", NULL });
	unsigned char d[32 * 65];
	memset(d, 0, sizeof(d));
	t6[4] = (struct tsec){ 7, 0, 0, 32, d, 0 };
	b = assemble(t6, 5, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "a CYCLE of no workload is refused",
		(const char *const[]){ "CYCLE", "0 workloads", NULL });
	t6[4] = (struct tsec){ 7, 0, 65, 32, d, sizeof(d) };
	b = assemble(t6, 5, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "a CYCLE of 65 workloads is refused before any is read",
		(const char *const[]){ "CYCLE", "65 workloads, not 1 to 64", NULL });
	memcpy(d, s[4].data, 64);
	put32(d + 32 + 28, 1);
	t6[4] = (struct tsec){ 7, 0, 2, 32, d, 64 };
	b = assemble(t6, 5, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "a reserved field not 0 is refused",
		(const char *const[]){ "CYCLE entry 1, field reserved", NULL });
	t6[4] = (struct tsec){ 7, 0, 2, 16, d, 32 };
	b = assemble(t6, 5, 1, 0, &n);
	refused(b, n, MP_PLAN_EFORMAT, "entries shorter than 32 bytes are refused",
		(const char *const[]){ "CYCLE", "entry_size", NULL });

	/* validation, field by field */
	struct mp_plan_workload keep[2];
	memcpy(keep, p.workloads, sizeof(keep));
	static const struct {
		int w, field;
		uint64_t delta;
		const char *says;
	} bad[] = {
		{ 0, 0, 1, "CYCLE entry 0, field first_request: 1, not 0" },
		{ 1, 0, (uint64_t)-1, "past the end" },
		{ 1, 0, 1, "field upper" },
		{ 1, 1, 1, "CYCLE entry 1, field fingerprint" },
		{ 1, 3, 4, "CYCLE entry 1, field flags" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(p.workloads, keep, sizeof(keep));
		struct mp_plan_workload *x = &p.workloads[bad[i].w];
		if (bad[i].field == 0)
			x->first_request += bad[i].delta;
		else if (bad[i].field == 1)
			x->fingerprint += bad[i].delta;
		else
			x->flags += (uint32_t)bad[i].delta;
		char what[160];
		snprintf(what, sizeof(what), "an invalid cycle is refused (%s)", bad[i].says);
		CHECK(mp_plan_validate(&p, err, sizeof(err)) == MP_PLAN_EFORMAT, what);
		CHECK_STR_HAS(err, bad[i].says, "  ... naming the field");
	}
	memcpy(p.workloads, keep, sizeof(keep));
	p.workloads[1].first_request = p.workloads[0].first_request;
	CHECK(mp_plan_validate(&p, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "two workloads from one ordinal are refused");
	CHECK_STR_HAS(err, "hold no allocation", "  ... none empty");
	p.workloads[1].first_request = p.nrequests;
	CHECK(mp_plan_validate(&p, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "a workload past the clock is refused");
	memcpy(p.workloads, keep, sizeof(keep));
	p.nworkloads = MP_PLAN_MAX_WORKLOADS + 1;
	CHECK(mp_plan_validate(&p, err, sizeof(err)) == MP_PLAN_EFORMAT,
	      "more than 64 workloads are refused");
	p.nworkloads = 2;
	/* streams: each workload numbers its own from 0 */
	CHECK(p.has_streams && p.streams[p.nallocs - 1] == 0 &&
		      mp_plan_validate(&p, err, sizeof(err)) == 0,
	      "STREAMS numbers the second workload's streams from 0");
	CHECK(cycle_check(&p, &cy, err, sizeof(err)) == 0, "cycle_check: the plan names these traces");
	struct trace *rin[2] = { in[1], in[0] }, *rt2 = NULL;
	struct cycle rcy;
	CHECK(cycle_trace(rin, 2, &rt2, &rcy, err, sizeof(err)) == 0 &&
		      cycle_check(&p, &rcy, err, sizeof(err)) == PLANFILE_EINVALID,
	      "  ... and not the same traces in the other order");
	CHECK_STR_HAS(err, "another order", "  ... saying so");
	CHECK(planfile_verify(&p, rt2, err, sizeof(err)) == PLANFILE_EINVALID,
	      "  ... which verify refuses too");
	trace_free(rt2);
	cycle_free(&rcy);
	free(buf);
	mp_plan_free(&p);
	cycle_free(&cy);
	trace_free(t);
	trace_free(in[0]);
	trace_free(in[1]);
}

static size_t corrupt_reports;
static void count_corruption(void *ctx, const char *text)
{
	(void)ctx;
	if (!strstr(text, "did not follow the plan")) {
		corrupt_reports++;
		printf("#   %s\n", text);
	}
}

/* Properties over zoo mixes: a cycle's pool is the largest of the
 * workloads' own pools (greedy-size places each turn as it would alone)
 * and below their sum; every cycle plan verifies and replays; in another
 * order it diverges and corrupts nothing. */
static void test_cycle_zoo(void)
{
	static const struct {
		const char *m[3];
		unsigned b[3];
		size_t n;
	} mix[] = {
		{ { "alexnet", "resnet50" }, { 2, 1 }, 2 },
		{ { "resnet50", "resnet50", "alexnet" }, { 2, 1, 1 }, 3 },
	};
	char path[256];
	snprintf(path, sizeof(path), "/tmp/memplan-test-cycle-%ld.plan", (long)getpid());
	for (size_t k = 0; k < sizeof(mix) / sizeof(mix[0]); k++) {
		struct trace *in[3] = { NULL }, *rin[3], *t = NULL, *rt = NULL;
		uint64_t most = 0, sum = 0;
		int ok = 1;
		for (size_t i = 0; i < mix[k].n; i++) {
			struct mp_plan q;
			in[i] = zoo_trace(mix[k].m[i], mix[k].b[i]);
			rin[mix[k].n - 1 - i] = in[i];
			if (!in[i] || plan_of(in[i], "greedy-size", 1, &q)) {
				ok = 0;
				continue;
			}
			most = q.pool_size > most ? q.pool_size : most;
			sum += q.pool_size;
			mp_plan_free(&q);
		}
		char what[200];
		snprintf(what, sizeof(what), "mix %zu (%s, %s%s%s): %zu workloads plan alone",
			 k, mix[k].m[0], mix[k].m[1], mix[k].n > 2 ? ", " : "",
			 mix[k].n > 2 ? mix[k].m[2] : "", mix[k].n);
		CHECK(ok, what);
		struct cycle cy = { 0 }, rcy = { 0 };
		struct mp_plan p;
		int rc = ok ? cycle_plan_of(in, mix[k].n, "greedy-size", &t, &cy, &p) : -1;
		CHECK(rc == 0, "  ... and as a cycle");
		if (rc) {
			printf("# %s\n", err);
			goto next;
		}
		printf("# pools alone: largest %llu, sum %llu; cycle %llu\n",
		       (unsigned long long)most, (unsigned long long)sum,
		       (unsigned long long)p.pool_size);
		CHECK_EQ_U64(p.pool_size, most, "  ... the cycle's pool is the largest pool alone");
		CHECK(p.pool_size < sum, "  ... below the sum of the pools alone");
		CHECK(planfile_verify(&p, t, err, sizeof(err)) == 0, "  ... it verifies");
		CHECK(mp_plan_write_file(path, &p, err, sizeof(err)) == 0, "  ... is written");
		struct replay_opts o = { .backend = MP_BACKEND_HOST, .iterations = 2,
					 .max_reports = 5, .turns = cy.first_request,
					 .nturns = cy.n };
		struct replay_result res;
		corrupt_reports = 0;
		rc = replay_run(t, path, &o, &res, count_corruption, NULL, err, sizeof(err));
		CHECK(rc == 0 && res.problems == 0 && res.followed == 2 &&
			      res.stats.completed == 2 * mix[k].n &&
			      res.stats.planned_allocs > 0,
		      "  ... and replays valid, every turn followed");
		/* the same workloads in the other order */
		rc = cycle_trace(rin, mix[k].n, &rt, &rcy, err, sizeof(err));
		struct replay_opts ro = o;
		ro.turns = rcy.first_request;
		rc = rc ? rc : replay_run(rt, path, &ro, &res, count_corruption, NULL,
					  err, sizeof(err));
		printf("# other order: rc %d, %llu problems, %zu not divergences, %llu divergences\n",
		       rc, (unsigned long long)res.problems, corrupt_reports,
		       (unsigned long long)res.stats.divergences);
		CHECK(rc == 0 && res.problems > 0 && res.followed == 0 &&
			      corrupt_reports == 0 && res.stats.divergences > 0,
		      "  ... in the other order: every turn diverges, no byte is lost");
		mp_plan_free(&p);
	next:
		cycle_free(&cy);
		cycle_free(&rcy);
		trace_free(t);
		trace_free(rt);
		for (size_t i = 0; i < mix[k].n; i++)
			trace_free(in[i]);
	}
	unlink(path);
}

int main(void)
{
	test_fingerprint();
	test_checksum();
	test_round_trip();
	test_corruption();
	test_foreign();
	test_sections();
	test_overflow();
	test_strategy_name();
	test_invalid_encode();
	test_boundaries();
	test_files();
	test_timing_format();
	test_timing_sim();
	test_zoo();
	test_minimalloc();
	test_hand();
	test_streams_format();
	test_streams_trace();
	test_swap_edges();
	test_link_format();
	test_link_trace();
	test_random();
	test_replay_agrees();
	test_cycle_format();
	test_cycle_zoo();
	return tap_done();
}
