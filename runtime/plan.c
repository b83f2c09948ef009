/* SPDX-License-Identifier: MIT */
/*
 * plan.c - encoding, decoding, checking and atomic writing of plan files
 * (memplan-plan(5)).  Every field is moved byte by byte in little-endian
 * order; no struct is ever copied to or from disk.  The decoder checks each
 * length, count and offset against the bytes it was given before using it,
 * so that no input, however damaged, makes it read out of bounds.
 * Depends on libc alone: libmemplan compiles this file too.
 */
#include "plan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int seterr(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int seterr(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* --- little-endian fields ------------------------------------------------ */

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* --- fingerprint ----------------------------------------------------------- */

/* MurmurHash3's 64-bit finalizer: a bijection that mixes every bit. */
static uint64_t fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64_C(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return k;
}

void mp_plan_fp_init(struct mp_plan_fp *fp)
{
	fp->h = UINT64_C(0x6d656d706c616e31); /* "memplan1" */
	fp->n = 0;
}

/* Each step is a bijection of the state, so two sequences of one length that
 * differ in a single size never share a fingerprint. */
void mp_plan_fp_update(struct mp_plan_fp *fp, uint64_t size)
{
	fp->h = fmix64(fp->h ^ size);
	fp->n++;
}

uint64_t mp_plan_fp_final(const struct mp_plan_fp *fp)
{
	return fmix64(fp->h ^ fmix64(fp->n));
}

uint64_t mp_plan_fingerprint(const uint64_t *sizes, size_t n)
{
	struct mp_plan_fp fp;
	mp_plan_fp_init(&fp);
	for (size_t i = 0; i < n; i++)
		mp_plan_fp_update(&fp, sizes[i]);
	return mp_plan_fp_final(&fp);
}

/* --- checksum -------------------------------------------------------------- */

/* CRC-32C, reflected polynomial 0x82f63b78: crc_table[b] is the CRC of byte b. */
static const uint32_t crc_table[256] = {
	0x00000000, 0xf26b8303, 0xe13b70f7, 0x1350f3f4,
	0xc79a971f, 0x35f1141c, 0x26a1e7e8, 0xd4ca64eb,
	0x8ad958cf, 0x78b2dbcc, 0x6be22838, 0x9989ab3b,
	0x4d43cfd0, 0xbf284cd3, 0xac78bf27, 0x5e133c24,
	0x105ec76f, 0xe235446c, 0xf165b798, 0x030e349b,
	0xd7c45070, 0x25afd373, 0x36ff2087, 0xc494a384,
	0x9a879fa0, 0x68ec1ca3, 0x7bbcef57, 0x89d76c54,
	0x5d1d08bf, 0xaf768bbc, 0xbc267848, 0x4e4dfb4b,
	0x20bd8ede, 0xd2d60ddd, 0xc186fe29, 0x33ed7d2a,
	0xe72719c1, 0x154c9ac2, 0x061c6936, 0xf477ea35,
	0xaa64d611, 0x580f5512, 0x4b5fa6e6, 0xb93425e5,
	0x6dfe410e, 0x9f95c20d, 0x8cc531f9, 0x7eaeb2fa,
	0x30e349b1, 0xc288cab2, 0xd1d83946, 0x23b3ba45,
	0xf779deae, 0x05125dad, 0x1642ae59, 0xe4292d5a,
	0xba3a117e, 0x4851927d, 0x5b016189, 0xa96ae28a,
	0x7da08661, 0x8fcb0562, 0x9c9bf696, 0x6ef07595,
	0x417b1dbc, 0xb3109ebf, 0xa0406d4b, 0x522bee48,
	0x86e18aa3, 0x748a09a0, 0x67dafa54, 0x95b17957,
	0xcba24573, 0x39c9c670, 0x2a993584, 0xd8f2b687,
	0x0c38d26c, 0xfe53516f, 0xed03a29b, 0x1f682198,
	0x5125dad3, 0xa34e59d0, 0xb01eaa24, 0x42752927,
	0x96bf4dcc, 0x64d4cecf, 0x77843d3b, 0x85efbe38,
	0xdbfc821c, 0x2997011f, 0x3ac7f2eb, 0xc8ac71e8,
	0x1c661503, 0xee0d9600, 0xfd5d65f4, 0x0f36e6f7,
	0x61c69362, 0x93ad1061, 0x80fde395, 0x72966096,
	0xa65c047d, 0x5437877e, 0x4767748a, 0xb50cf789,
	0xeb1fcbad, 0x197448ae, 0x0a24bb5a, 0xf84f3859,
	0x2c855cb2, 0xdeeedfb1, 0xcdbe2c45, 0x3fd5af46,
	0x7198540d, 0x83f3d70e, 0x90a324fa, 0x62c8a7f9,
	0xb602c312, 0x44694011, 0x5739b3e5, 0xa55230e6,
	0xfb410cc2, 0x092a8fc1, 0x1a7a7c35, 0xe811ff36,
	0x3cdb9bdd, 0xceb018de, 0xdde0eb2a, 0x2f8b6829,
	0x82f63b78, 0x709db87b, 0x63cd4b8f, 0x91a6c88c,
	0x456cac67, 0xb7072f64, 0xa457dc90, 0x563c5f93,
	0x082f63b7, 0xfa44e0b4, 0xe9141340, 0x1b7f9043,
	0xcfb5f4a8, 0x3dde77ab, 0x2e8e845f, 0xdce5075c,
	0x92a8fc17, 0x60c37f14, 0x73938ce0, 0x81f80fe3,
	0x55326b08, 0xa759e80b, 0xb4091bff, 0x466298fc,
	0x1871a4d8, 0xea1a27db, 0xf94ad42f, 0x0b21572c,
	0xdfeb33c7, 0x2d80b0c4, 0x3ed04330, 0xccbbc033,
	0xa24bb5a6, 0x502036a5, 0x4370c551, 0xb11b4652,
	0x65d122b9, 0x97baa1ba, 0x84ea524e, 0x7681d14d,
	0x2892ed69, 0xdaf96e6a, 0xc9a99d9e, 0x3bc21e9d,
	0xef087a76, 0x1d63f975, 0x0e330a81, 0xfc588982,
	0xb21572c9, 0x407ef1ca, 0x532e023e, 0xa145813d,
	0x758fe5d6, 0x87e466d5, 0x94b49521, 0x66df1622,
	0x38cc2a06, 0xcaa7a905, 0xd9f75af1, 0x2b9cd9f2,
	0xff56bd19, 0x0d3d3e1a, 0x1e6dcdee, 0xec064eed,
	0xc38d26c4, 0x31e6a5c7, 0x22b65633, 0xd0ddd530,
	0x0417b1db, 0xf67c32d8, 0xe52cc12c, 0x1747422f,
	0x49547e0b, 0xbb3ffd08, 0xa86f0efc, 0x5a048dff,
	0x8ecee914, 0x7ca56a17, 0x6ff599e3, 0x9d9e1ae0,
	0xd3d3e1ab, 0x21b862a8, 0x32e8915c, 0xc083125f,
	0x144976b4, 0xe622f5b7, 0xf5720643, 0x07198540,
	0x590ab964, 0xab613a67, 0xb831c993, 0x4a5a4a90,
	0x9e902e7b, 0x6cfbad78, 0x7fab5e8c, 0x8dc0dd8f,
	0xe330a81a, 0x115b2b19, 0x020bd8ed, 0xf0605bee,
	0x24aa3f05, 0xd6c1bc06, 0xc5914ff2, 0x37faccf1,
	0x69e9f0d5, 0x9b8273d6, 0x88d28022, 0x7ab90321,
	0xae7367ca, 0x5c18e4c9, 0x4f48173d, 0xbd23943e,
	0xf36e6f75, 0x0105ec76, 0x12551f82, 0xe03e9c81,
	0x34f4f86a, 0xc69f7b69, 0xd5cf889d, 0x27a40b9e,
	0x79b737ba, 0x8bdcb4b9, 0x988c474d, 0x6ae7c44e,
	0xbe2da0a5, 0x4c4623a6, 0x5f16d052, 0xad7d5351,
};

uint32_t mp_plan_crc32c(uint32_t crc, const void *data, size_t len)
{
	const unsigned char *p = data;
	crc = ~crc;
	for (size_t i = 0; i < len; i++)
		crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

uint32_t mp_plan_checksum(const unsigned char *buf, size_t len)
{
	static const unsigned char zero[4];
	uint32_t crc = mp_plan_crc32c(0, buf, MP_PLAN_CHECKSUM_AT);
	crc = mp_plan_crc32c(crc, zero, 4);
	return mp_plan_crc32c(crc, buf + MP_PLAN_CHECKSUM_AT + 4,
			      len - MP_PLAN_CHECKSUM_AT - 4);
}

/* --- validation ------------------------------------------------------------ */

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Every clock ordinal names one request: the alloc ordinals increase (they
 * are in request order), and the free ordinals differ from each other and
 * from every alloc ordinal. */
static int check_ordinals(const struct mp_plan *p, char *err, size_t errlen)
{
	size_t nf = 0;
	for (uint32_t i = 0; i < p->nallocs; i++)
		nf += p->allocs[i].upper != MP_PLAN_NO_FREE;
	if (nf == 0)
		return 0;
	uint64_t *fr = malloc(nf * sizeof(*fr));
	if (!fr)
		return seterr(err, errlen, MP_PLAN_ENOMEM,
			      "out of memory checking %zu free ordinals", nf);
	size_t k = 0;
	for (uint32_t i = 0; i < p->nallocs; i++)
		if (p->allocs[i].upper != MP_PLAN_NO_FREE)
			fr[k++] = p->allocs[i].upper;
	qsort(fr, nf, sizeof(*fr), u64_cmp);
	int rc = 0;
	uint32_t a = 0;
	for (size_t i = 0; i < nf && !rc; i++) {
		if (i > 0 && fr[i] == fr[i - 1]) {
			rc = seterr(err, errlen, MP_PLAN_EFORMAT,
				    "ALLOCS field upper: clock ordinal %llu is the free of two requests",
				    (unsigned long long)fr[i]);
			break;
		}
		while (a < p->nallocs && p->allocs[a].lower < fr[i])
			a++;
		if (a < p->nallocs && p->allocs[a].lower == fr[i])
			rc = seterr(err, errlen, MP_PLAN_EFORMAT,
				    "ALLOCS entry %u, field lower: clock ordinal %llu is also the free of another request",
				    a, (unsigned long long)fr[i]);
	}
	free(fr);
	return rc;
}

static int check_allocs(const struct mp_plan *p, char *err, size_t errlen)
{
	if (p->nallocs && !p->allocs)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "ALLOCS: %u entries but no entry array", p->nallocs);
	if (p->nallocs > p->nrequests)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "META field nrequests: %llu requests cannot hold %u allocations",
			      (unsigned long long)p->nrequests, p->nallocs);
	struct mp_plan_fp fp;
	mp_plan_fp_init(&fp);
	for (uint32_t i = 0; i < p->nallocs; i++) {
		const struct mp_plan_alloc *a = &p->allocs[i];
		mp_plan_fp_update(&fp, a->size);
		if (a->size == 0)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "ALLOCS entry %u, field size: a request of 0 bytes", i);
		if (a->lower >= p->nrequests)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "ALLOCS entry %u, field lower: clock ordinal %llu is not below nrequests %llu",
				      i, (unsigned long long)a->lower,
				      (unsigned long long)p->nrequests);
		if (i > 0 && a->lower <= p->allocs[i - 1].lower)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "ALLOCS entry %u, field lower: clock ordinal %llu does not follow %llu (entries are in request order)",
				      i, (unsigned long long)a->lower,
				      (unsigned long long)p->allocs[i - 1].lower);
		if (a->upper != MP_PLAN_NO_FREE &&
		    (a->upper <= a->lower || a->upper >= p->nrequests))
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "ALLOCS entry %u, field upper: clock ordinal %llu is not between lower %llu and nrequests %llu",
				      i, (unsigned long long)a->upper,
				      (unsigned long long)a->lower,
				      (unsigned long long)p->nrequests);
		if (a->offset == MP_PLAN_PASS_THROUGH)
			continue;
		if (a->upper == MP_PLAN_NO_FREE)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "ALLOCS entry %u, field offset: a buffer not freed within the iteration cannot have a pool offset",
				      i);
		if (a->offset % p->pool_align)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "ALLOCS entry %u, field offset: %llu is not a multiple of the pool alignment %llu",
				      i, (unsigned long long)a->offset,
				      (unsigned long long)p->pool_align);
		if (a->size > p->pool_size || a->offset > p->pool_size - a->size)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "ALLOCS entry %u, field offset: bytes [%llu, %llu + %llu) do not fit in the pool of %llu bytes",
				      i, (unsigned long long)a->offset,
				      (unsigned long long)a->offset,
				      (unsigned long long)a->size,
				      (unsigned long long)p->pool_size);
	}
	uint64_t f = mp_plan_fp_final(&fp);
	if (f != p->fingerprint)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "META field fingerprint: 0x%016llx is not the fingerprint of the %u request sizes (0x%016llx)",
			      (unsigned long long)p->fingerprint, p->nallocs,
			      (unsigned long long)f);
	return check_ordinals(p, err, errlen);
}

static int check_swaps(const struct mp_plan *p, char *err, size_t errlen)
{
	if (p->nswaps && !p->swaps)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "SWAPS: %u entries but no entry array", p->nswaps);
	for (uint32_t i = 0; i < p->nswaps; i++) {
		const struct mp_plan_swap *s = &p->swaps[i];
		if (s->request >= p->nallocs)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAPS entry %u, field request: %llu is not a request (there are %u)",
				      i, (unsigned long long)s->request, p->nallocs);
		const struct mp_plan_alloc *a = &p->allocs[s->request];
		if (a->offset == MP_PLAN_PASS_THROUGH)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAPS entry %u, field request: request %llu passes through and has no pool offset to come back to",
				      i, (unsigned long long)s->request);
		if (s->out_at < a->lower || s->out_at >= p->nrequests)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAPS entry %u, field out_at: clock ordinal %llu is outside the lifetime [%llu, %llu) of request %llu",
				      i, (unsigned long long)s->out_at,
				      (unsigned long long)a->lower,
				      (unsigned long long)a->upper,
				      (unsigned long long)s->request);
		if (s->in_at <= s->out_at)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAPS entry %u, field in_at: the swap-in at clock ordinal %llu does not follow the swap-out at %llu",
				      i, (unsigned long long)s->in_at,
				      (unsigned long long)s->out_at);
		if (s->in_at >= a->upper || s->in_at >= p->nrequests)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAPS entry %u, field in_at: clock ordinal %llu is outside the lifetime [%llu, %llu) of request %llu",
				      i, (unsigned long long)s->in_at,
				      (unsigned long long)a->lower,
				      (unsigned long long)a->upper,
				      (unsigned long long)s->request);
		if (s->bytes == 0 || s->bytes > a->size ||
		    s->src_offset > a->size - s->bytes)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAPS entry %u, field bytes: [%llu, %llu + %llu) is not inside the %llu bytes of request %llu",
				      i, (unsigned long long)s->src_offset,
				      (unsigned long long)s->src_offset,
				      (unsigned long long)s->bytes,
				      (unsigned long long)a->size,
				      (unsigned long long)s->request);
		if (s->bytes > p->host_staging ||
		    s->staging > p->host_staging - s->bytes)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAPS entry %u, field staging: [%llu, %llu + %llu) is not inside the host staging area of %llu bytes",
				      i, (unsigned long long)s->staging,
				      (unsigned long long)s->staging,
				      (unsigned long long)s->bytes,
				      (unsigned long long)p->host_staging);
		if (i == 0)
			continue;
		const struct mp_plan_swap *q = &p->swaps[i - 1];
		/* one request's next swap-out comes after its last swap-in,
		 * not at it: the runtime issues the triggers of one ordinal
		 * in one order, and bytes copied out before they are back
		 * would be stale */
		if (s->request < q->request ||
		    (s->request == q->request && s->out_at <= q->in_at))
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAPS entry %u, field out_at: swaps must be sorted by request and those of one request disjoint in time (a swap-out after the previous swap-in, not at it)",
				      i);
	}
	return 0;
}

/* The timing is advisory, but what a file says must still make sense. */
static int check_timing(const struct mp_plan *p, char *err, size_t errlen)
{
	if (!p->has_timing) {
		if (p->timing)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAP_TIMING: an entry array for a plan without timing (has_timing is 0)");
		return 0;
	}
	if (p->nswaps && !p->timing)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "SWAP_TIMING: %u swaps but no entry array", p->nswaps);
	for (uint32_t i = 0; i < p->nswaps; i++) {
		const struct mp_plan_swap_timing *w = &p->timing[i];
		if (w->flags & ~MP_PLAN_TIMING_FLAGS)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAP_TIMING entry %u, field flags: bits 0x%08x are not defined",
				      i, w->flags & ~MP_PLAN_TIMING_FLAGS);
		if ((w->flags & MP_PLAN_TIMING_NO_USE) && w->h2d_slack_ns)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAP_TIMING entry %u, field h2d_slack_ns: %lld for a swap-in with no later use (flags say so), not 0",
				      i, (long long)w->h2d_slack_ns);
		if ((w->flags & MP_PLAN_TIMING_NO_REUSE) && w->d2h_slack_ns)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAP_TIMING entry %u, field d2h_slack_ns: %lld for bytes no allocation reuses (flags say so), not 0",
				      i, (long long)w->d2h_slack_ns);
	}
	return 0;
}

uint32_t mp_plan_workload_at(const struct mp_plan *p, uint64_t k,
			     uint64_t *begin, uint64_t *end)
{
	uint32_t w = 0;
	while (w + 1 < p->nworkloads && p->workloads[w + 1].first_request <= k)
		w++;
	if (begin)
		*begin = p->nworkloads ? p->workloads[w].first_request : 0;
	if (end)
		*end = w + 1 < p->nworkloads ? p->workloads[w + 1].first_request
					     : p->nrequests;
	return w;
}

/* A cycle: workloads in clock order from 0, each one's entries allocated
 * and freed inside its segment (the runtime starts a workload only on an
 * empty pool, so nothing may cross), each with an allocation to be
 * recognised by, its fingerprint that of its sizes. */
static int check_cycle(const struct mp_plan *p, char *err, size_t errlen)
{
	if (!p->nworkloads) {
		if (p->workloads)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "CYCLE: an entry array for a plan without workloads (nworkloads is 0)");
		return 0;
	}
	if (!p->workloads)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "CYCLE: %u workloads but no entry array",
			      p->nworkloads);
	if (p->nworkloads > MP_PLAN_MAX_WORKLOADS)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "CYCLE: %u workloads, more than the %d a cycle may have",
			      p->nworkloads, MP_PLAN_MAX_WORKLOADS);
	uint32_t a = 0;
	for (uint32_t w = 0; w < p->nworkloads; w++) {
		const struct mp_plan_workload *x = &p->workloads[w];
		uint64_t lo = x->first_request, hi;
		if (w == 0 && lo != 0)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "CYCLE entry 0, field first_request: %llu, not 0 (the first workload starts the clock)",
				      (unsigned long long)lo);
		if (w > 0 && lo <= p->workloads[w - 1].first_request)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "CYCLE entry %u, field first_request: %llu does not follow %llu (workloads are in clock order, none empty)",
				      w, (unsigned long long)lo,
				      (unsigned long long)p->workloads[w - 1].first_request);
		if (lo >= p->nrequests)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "CYCLE entry %u, field first_request: %llu is not below nrequests %llu",
				      w, (unsigned long long)lo,
				      (unsigned long long)p->nrequests);
		if (x->flags)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "CYCLE entry %u, field flags: bits 0x%08x are not defined",
				      w, x->flags);
		hi = w + 1 < p->nworkloads ? p->workloads[w + 1].first_request
					   : p->nrequests;
		/* hi > lo: the next entry's check, or nrequests above */
		if (a >= p->nallocs || p->allocs[a].lower >= hi)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "CYCLE entry %u: its requests [%llu, %llu) hold no allocation to recognise it by",
				      w, (unsigned long long)lo,
				      (unsigned long long)hi);
		struct mp_plan_fp fp;
		mp_plan_fp_init(&fp);
		for (; a < p->nallocs && p->allocs[a].lower < hi; a++) {
			const struct mp_plan_alloc *e = &p->allocs[a];
			mp_plan_fp_update(&fp, e->size);
			if (e->upper != MP_PLAN_NO_FREE && e->upper >= hi)
				return seterr(err, errlen, MP_PLAN_EFORMAT,
					      "ALLOCS entry %u, field upper: clock ordinal %llu is past the end %llu of its workload %u (a buffer lives within its workload's turn)",
					      a, (unsigned long long)e->upper,
					      (unsigned long long)hi, w);
		}
		if (mp_plan_fp_final(&fp) != x->fingerprint)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "CYCLE entry %u, field fingerprint: 0x%016llx is not the fingerprint of its %llu request sizes (0x%016llx)",
				      w, (unsigned long long)x->fingerprint,
				      (unsigned long long)fp.n,
				      (unsigned long long)mp_plan_fp_final(&fp));
	}
	return 0;
}

/* Ordinals number the streams by their first request: each is at most the
 * number of ordinals seen before it (in its workload, with a cycle), which
 * bounds them by nallocs. */
static int check_streams(const struct mp_plan *p, char *err, size_t errlen)
{
	if (!p->has_streams) {
		if (p->streams)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "STREAMS: an entry array for a plan without streams (has_streams is 0)");
		return 0;
	}
	if (p->nallocs && !p->streams)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "STREAMS: %u allocations but no entry array",
			      p->nallocs);
	uint32_t next = 0; /* ordinals seen so far */
	uint32_t w = 0;    /* the workload of entry i (a checked cycle) */
	for (uint32_t i = 0; i < p->nallocs; i++) {
		uint32_t o = p->streams[i];
		if (w + 1 < p->nworkloads &&
		    p->allocs[i].lower >= p->workloads[w + 1].first_request) {
			while (w + 1 < p->nworkloads &&
			       p->allocs[i].lower >= p->workloads[w + 1].first_request)
				w++;
			next = 0; /* each workload numbers its own streams */
		}
		if (o == MP_PLAN_STREAM_UNKNOWN)
			continue;
		if (o > next)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "STREAMS entry %u, field stream: ordinal %u where the entries before it name %u stream%s (a new stream takes the next ordinal, %u)",
				      i, o, next, next == 1 ? "" : "s", next);
		if (o == next)
			next++;
	}
	return 0;
}

/* The link spec: named by the planner's link model, which the runtime
 * does not parse; what any reader may rely on is its form. */
static int check_link(const struct mp_plan *p, char *err, size_t errlen)
{
	if (!p->has_link) {
		if (p->link[0])
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "LINK: a spec for a plan without a link (has_link is 0)");
		return 0;
	}
	size_t n = strnlen(p->link, MP_PLAN_LINK_LEN);
	if (n == MP_PLAN_LINK_LEN)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "LINK field spec: no terminating NUL within %d bytes",
			      MP_PLAN_LINK_LEN);
	if (n == 0)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "LINK field spec: empty (a plan without a link has no LINK section)");
	for (size_t i = 0; i < n; i++)
		if (p->link[i] < 0x20 || p->link[i] > 0x7e)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "LINK field spec: byte %zu is not printable ASCII",
				      i);
	return 0;
}

uint32_t mp_plan_stream_count(const struct mp_plan *p)
{
	uint32_t n = 0;
	for (uint32_t i = 0; p->has_streams && p->streams && i < p->nallocs; i++)
		if (p->streams[i] != MP_PLAN_STREAM_UNKNOWN && p->streams[i] >= n)
			n = p->streams[i] + 1;
	return n;
}

int mp_plan_validate(const struct mp_plan *p, char *err, size_t errlen)
{
	if (p->pool_align == 0 || (p->pool_align & (p->pool_align - 1)))
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "META field pool_align: %llu is not a power of two",
			      (unsigned long long)p->pool_align);
	if (p->lower_bound > p->pool_size)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "META field lower_bound: %llu is above the pool size %llu",
			      (unsigned long long)p->lower_bound,
			      (unsigned long long)p->pool_size);
	if (p->device < -1)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "META field device: %ld is not a device ordinal or -1",
			      (long)p->device);
	size_t n = strnlen(p->strategy, MP_PLAN_STRATEGY_LEN);
	if (n == MP_PLAN_STRATEGY_LEN)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "META field strategy: the name has no terminating NUL within %d bytes",
			      MP_PLAN_STRATEGY_LEN);
	for (size_t i = 0; i < n; i++)
		if (p->strategy[i] < 0x20 || p->strategy[i] > 0x7e)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "META field strategy: byte %zu of the name is not printable ASCII",
				      i);
	int rc = check_allocs(p, err, errlen);
	if (!rc)
		rc = check_swaps(p, err, errlen);
	if (!rc)
		rc = check_timing(p, err, errlen);
	if (!rc)
		rc = check_cycle(p, err, errlen);
	if (!rc)
		rc = check_streams(p, err, errlen);
	return rc ? rc : check_link(p, err, errlen);
}

/* --- encoding -------------------------------------------------------------- */

/* Where the writer puts things; every section starts on 8 bytes. */
#define PAD8(x) (((x) + 7) & ~(size_t)7)

int mp_plan_encode(const struct mp_plan *p, unsigned char **buf, size_t *len,
		   char *err, size_t errlen)
{
	*buf = NULL;
	*len = 0;
	char why[256];
	int rc = mp_plan_validate(p, why, sizeof(why));
	if (rc == MP_PLAN_ENOMEM)
		return seterr(err, errlen, rc, "%s", why);
	if (rc)
		return seterr(err, errlen, MP_PLAN_EINVAL,
			      "refusing to write an invalid plan: %s", why);
	/* META, ALLOCS, SWAPS; SWAP_TIMING when the plan has timing, STREAMS
	 * when it has streams, LINK when it has a link, CYCLE when it has
	 * workloads (all optional: older readers skip them) */
	enum { MAXSEC = 7 };
	uint32_t type[MAXSEC], sflags[MAXSEC], count[MAXSEC], esize[MAXSEC];
	size_t length[MAXSEC], at[MAXSEC];
	uint32_t nsec = 0;
#define PLAN_SECTION(t, f, c, e)                                   \
	do {                                                       \
		type[nsec] = (t);                                  \
		sflags[nsec] = (f);                                \
		count[nsec] = (c);                                 \
		esize[nsec] = (e);                                 \
		length[nsec] = (size_t)(c) * (e);                  \
		nsec++;                                            \
	} while (0)
	PLAN_SECTION(MP_PLAN_SECTION_META, MP_PLAN_SECTION_REQUIRED, 1,
		     MP_PLAN_META_SIZE);
	PLAN_SECTION(MP_PLAN_SECTION_ALLOCS, MP_PLAN_SECTION_REQUIRED,
		     p->nallocs, MP_PLAN_ALLOC_SIZE);
	PLAN_SECTION(MP_PLAN_SECTION_SWAPS, MP_PLAN_SECTION_REQUIRED,
		     p->nswaps, MP_PLAN_SWAP_SIZE);
	if (p->has_timing)
		PLAN_SECTION(MP_PLAN_SECTION_SWAP_TIMING, 0, p->nswaps,
			     MP_PLAN_SWAP_TIMING_SIZE);
	if (p->has_streams)
		PLAN_SECTION(MP_PLAN_SECTION_STREAMS, 0, p->nallocs,
			     MP_PLAN_STREAM_SIZE);
	if (p->has_link)
		PLAN_SECTION(MP_PLAN_SECTION_LINK, 0, 1, MP_PLAN_LINK_SIZE);
	if (p->nworkloads) /* an older reader follows the whole cycle as
			      * one iteration */
		PLAN_SECTION(MP_PLAN_SECTION_CYCLE, 0, p->nworkloads,
			     MP_PLAN_WORKLOAD_SIZE);
#undef PLAN_SECTION
	size_t total = MP_PLAN_HEADER_SIZE + nsec * MP_PLAN_SECTION_SIZE;
	for (uint32_t i = 0; i < nsec; i++) {
		at[i] = PAD8(total);
		total = at[i] + length[i];
	}
	size_t meta_at = at[0], allocs_at = at[1], swaps_at = at[2];
	size_t timing_at = 0, streams_at = 0, link_at = 0, cycle_at = 0;
	for (uint32_t i = 3; i < nsec; i++) {
		if (type[i] == MP_PLAN_SECTION_SWAP_TIMING)
			timing_at = at[i];
		else if (type[i] == MP_PLAN_SECTION_STREAMS)
			streams_at = at[i];
		else if (type[i] == MP_PLAN_SECTION_LINK)
			link_at = at[i];
		else if (type[i] == MP_PLAN_SECTION_CYCLE)
			cycle_at = at[i];
	}
	unsigned char *b = calloc(1, total);
	if (!b)
		return seterr(err, errlen, MP_PLAN_ENOMEM,
			      "out of memory encoding a plan of %zu bytes", total);

	memcpy(b, MP_PLAN_MAGIC, MP_PLAN_MAGIC_LEN);
	put32(b + 8, MP_PLAN_VERSION);
	put32(b + 12, MP_PLAN_HEADER_SIZE);
	put64(b + 16, total);
	put32(b + 24, nsec);
	put32(b + 32, 0); /* header flags */
	for (uint32_t i = 0; i < nsec; i++) {
		unsigned char *s = b + MP_PLAN_HEADER_SIZE + i * MP_PLAN_SECTION_SIZE;
		put32(s, type[i]);
		put32(s + 4, sflags[i]);
		put64(s + 8, at[i]);
		put64(s + 16, length[i]);
		put32(s + 24, count[i]);
		put32(s + 28, esize[i]);
	}

	unsigned char *m = b + meta_at;
	put64(m, p->pool_size);
	put64(m + 8, p->pool_align);
	put64(m + 16, p->nrequests);
	put64(m + 24, p->fingerprint);
	put64(m + 32, p->lower_bound);
	put64(m + 40, p->persistent_bytes);
	put64(m + 48, p->host_staging);
	put32(m + 56, (uint32_t)p->device);
	put32(m + 60, p->flags);
	memcpy(m + 64, p->strategy, strlen(p->strategy));

	for (uint32_t i = 0; i < p->nallocs; i++) {
		const struct mp_plan_alloc *a = &p->allocs[i];
		unsigned char *e = b + allocs_at + (size_t)i * MP_PLAN_ALLOC_SIZE;
		put64(e, a->size);
		put64(e + 8, a->offset);
		put64(e + 16, a->buffer);
		put64(e + 24, a->lower);
		put64(e + 32, a->upper);
		put32(e + 40, a->flags);
	}
	for (uint32_t i = 0; i < p->nswaps; i++) {
		const struct mp_plan_swap *s = &p->swaps[i];
		unsigned char *e = b + swaps_at + (size_t)i * MP_PLAN_SWAP_SIZE;
		put64(e, s->request);
		put64(e + 8, s->out_at);
		put64(e + 16, s->in_at);
		put64(e + 24, s->src_offset);
		put64(e + 32, s->bytes);
		put64(e + 40, s->staging);
		put32(e + 48, s->flags);
	}
	for (uint32_t i = 0; p->has_timing && i < p->nswaps; i++) {
		const struct mp_plan_swap_timing *w = &p->timing[i];
		unsigned char *e = b + timing_at +
				   (size_t)i * MP_PLAN_SWAP_TIMING_SIZE;
		put64(e, (uint64_t)w->d2h_slack_ns);
		put64(e + 8, (uint64_t)w->h2d_slack_ns);
		put64(e + 16, w->predicted_stall_ns);
		put32(e + 24, w->flags);
		put32(e + 28, 0); /* reserved */
	}
	for (uint32_t i = 0; p->has_streams && i < p->nallocs; i++) {
		unsigned char *e = b + streams_at + (size_t)i * MP_PLAN_STREAM_SIZE;
		put32(e, p->streams[i]);
		put32(e + 4, 0); /* reserved */
	}
	if (p->has_link) /* the spec, then zeros (calloc) */
		memcpy(b + link_at, p->link, strlen(p->link));
	for (uint32_t w = 0; w < p->nworkloads; w++) {
		const struct mp_plan_workload *x = &p->workloads[w];
		unsigned char *e = b + cycle_at + (size_t)w * MP_PLAN_WORKLOAD_SIZE;
		put64(e, x->first_request);
		put64(e + 8, x->fingerprint);
		put64(e + 16, x->persistent_bytes);
		put32(e + 24, x->flags);
		put32(e + 28, 0); /* reserved */
	}
	put32(b + MP_PLAN_CHECKSUM_AT, mp_plan_checksum(b, total));
	*buf = b;
	*len = total;
	return 0;
}

/* --- decoding -------------------------------------------------------------- */

struct section {
	uint32_t type, flags, count, esize;
	uint64_t offset, length;
	uint32_t index; /* position in the table, for messages */
};

/* By offset, an empty section before a full one at the same offset (the
 * writer puts an empty SWAPS where STREAMS starts): empty sections overlap
 * nothing they start with. */
static int section_cmp(const void *a, const void *b)
{
	const struct section *x = a, *y = b;
	if (x->offset != y->offset)
		return (x->offset > y->offset) - (x->offset < y->offset);
	return (x->length > y->length) - (x->length < y->length);
}

const char *mp_plan_section_name(uint32_t type)
{
	switch (type) {
	case MP_PLAN_SECTION_META:
		return "META";
	case MP_PLAN_SECTION_ALLOCS:
		return "ALLOCS";
	case MP_PLAN_SECTION_SWAPS:
		return "SWAPS";
	case MP_PLAN_SECTION_SWAP_TIMING:
		return "SWAP_TIMING";
	case MP_PLAN_SECTION_STREAMS:
		return "STREAMS";
	case MP_PLAN_SECTION_LINK:
		return "LINK";
	case MP_PLAN_SECTION_CYCLE:
		return "CYCLE";
	default:
		return "unknown";
	}
}

/* Reads the header; fills *nsec and *table (the table's offset). */
static int decode_header(const unsigned char *buf, size_t len, uint32_t *nsec,
			 size_t *table, char *err, size_t errlen)
{
	if (len == 0)
		return seterr(err, errlen, MP_PLAN_EFORMAT, "the file is empty");
	size_t m = len < MP_PLAN_MAGIC_LEN ? len : MP_PLAN_MAGIC_LEN;
	if (memcmp(buf, MP_PLAN_MAGIC, m) != 0)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "not a memplan plan file (the first bytes are not the plan magic)");
	if (len < MP_PLAN_HEADER_SIZE)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "the file is truncated: %zu bytes, shorter than the %d-byte header",
			      len, MP_PLAN_HEADER_SIZE);
	uint32_t version = get32(buf + 8);
	if (version == 0)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "header field version: 0 is not a format version");
	if (version > MP_PLAN_VERSION)
		return seterr(err, errlen, MP_PLAN_EVERSION,
			      "header field version: format version %u is newer than this reader's %d; use a newer memplan",
			      version, MP_PLAN_VERSION);
	uint32_t hsize = get32(buf + 12);
	if (hsize < MP_PLAN_HEADER_SIZE || hsize > len)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "header field header_size: %u is not between %d and the file's %zu bytes",
			      hsize, MP_PLAN_HEADER_SIZE, len);
	uint64_t fsize = get64(buf + 16);
	if (fsize > len)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "the file is truncated: %zu bytes, the header field file_size says %llu",
			      len, (unsigned long long)fsize);
	if (fsize < len)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "header field file_size: %llu, but the file has %zu bytes (trailing bytes)",
			      (unsigned long long)fsize, len);
	uint32_t stored = get32(buf + MP_PLAN_CHECKSUM_AT);
	uint32_t crc = mp_plan_checksum(buf, len);
	if (stored != crc)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "header field checksum: 0x%08x does not match the contents (CRC-32C 0x%08x): the file is corrupted",
			      stored, crc);
	uint32_t flags = get32(buf + 32);
	if (flags & MP_PLAN_HEADER_FLAGS_REQUIRED)
		return seterr(err, errlen, MP_PLAN_EVERSION,
			      "header field flags: 0x%08x asks for features this reader does not know",
			      flags & MP_PLAN_HEADER_FLAGS_REQUIRED);
	*nsec = get32(buf + 24);
	*table = hsize;
	if (*nsec > (len - hsize) / MP_PLAN_SECTION_SIZE)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "header field nsections: %u section table entries do not fit in the file",
			      *nsec);
	return 0;
}

static int decode_table(const unsigned char *buf, size_t len, uint32_t nsec,
			size_t table, struct section *sec, char *err,
			size_t errlen)
{
	size_t body = table + (size_t)nsec * MP_PLAN_SECTION_SIZE;
	for (uint32_t i = 0; i < nsec; i++) {
		const unsigned char *s = buf + table + (size_t)i * MP_PLAN_SECTION_SIZE;
		struct section *x = &sec[i];
		x->type = get32(s);
		x->flags = get32(s + 4);
		x->offset = get64(s + 8);
		x->length = get64(s + 16);
		x->count = get32(s + 24);
		x->esize = get32(s + 28);
		x->index = i;
		if (x->offset < body || x->offset > len ||
		    x->length > len - x->offset)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "section %u (%s), field offset: bytes [%llu, %llu + %llu) are not inside the file's %zu bytes after the section table",
				      i, mp_plan_section_name(x->type),
				      (unsigned long long)x->offset,
				      (unsigned long long)x->offset,
				      (unsigned long long)x->length, len);
		int ok = x->count == 0 ? x->length == 0
				       : x->esize != 0 &&
						 x->length % x->esize == 0 &&
						 x->length / x->esize == x->count;
		if (!ok)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "section %u (%s), field length: %llu bytes are not %u entries of %u bytes",
				      i, mp_plan_section_name(x->type),
				      (unsigned long long)x->length, x->count,
				      x->esize);
	}
	struct section *sorted = malloc((nsec ? nsec : 1) * sizeof(*sorted));
	if (!sorted)
		return seterr(err, errlen, MP_PLAN_ENOMEM,
			      "out of memory reading %u sections", nsec);
	memcpy(sorted, sec, nsec * sizeof(*sorted));
	qsort(sorted, nsec, sizeof(*sorted), section_cmp);
	int rc = 0;
	for (uint32_t i = 1; i < nsec; i++)
		if (sorted[i - 1].length &&
		    sorted[i].offset < sorted[i - 1].offset + sorted[i - 1].length) {
			rc = seterr(err, errlen, MP_PLAN_EFORMAT,
				    "section %u (%s), field offset: it overlaps section %u (%s)",
				    sorted[i].index, mp_plan_section_name(sorted[i].type),
				    sorted[i - 1].index,
				    mp_plan_section_name(sorted[i - 1].type));
			break;
		}
	free(sorted);
	return rc;
}

static int decode_meta(const unsigned char *buf, const struct section *s,
		       struct mp_plan *p, char *err, size_t errlen)
{
	if (s->count != 1 || s->esize < MP_PLAN_META_SIZE)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "section %u (META), field count: expected one entry of at least %d bytes, found %u of %u",
			      s->index, MP_PLAN_META_SIZE, s->count, s->esize);
	const unsigned char *m = buf + s->offset;
	p->pool_size = get64(m);
	p->pool_align = get64(m + 8);
	p->nrequests = get64(m + 16);
	p->fingerprint = get64(m + 24);
	p->lower_bound = get64(m + 32);
	p->persistent_bytes = get64(m + 40);
	p->host_staging = get64(m + 48);
	uint32_t dev = get32(m + 56);
	p->device = dev <= INT32_MAX ? (int32_t)dev
				     : -(int32_t)(~dev) - 1; /* two's complement */
	p->flags = get32(m + 60);
	const unsigned char *name = m + 64;
	size_t n = 0;
	while (n < MP_PLAN_STRATEGY_LEN && name[n])
		n++;
	if (n == MP_PLAN_STRATEGY_LEN)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "META field strategy: the name has no terminating NUL within %d bytes",
			      MP_PLAN_STRATEGY_LEN);
	memset(p->strategy, 0, sizeof(p->strategy));
	memcpy(p->strategy, name, n);
	return 0;
}

/* The entries of section s (name, at least esize bytes each) as an array
 * of s->count elements of elem bytes in *out (NULL when empty). */
static int section_array(const struct section *s, const char *name, int esize,
			 size_t elem, const char *what, void **out, char *err,
			 size_t errlen)
{
	*out = NULL;
	if (s->count && s->esize < (uint32_t)esize)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "section %u (%s), field entry_size: %u bytes, at least %d expected",
			      s->index, name, s->esize, esize);
	if (s->count && !(*out = malloc((size_t)s->count * elem)))
		return seterr(err, errlen, MP_PLAN_ENOMEM,
			      "out of memory reading %u %s entries", s->count,
			      what);
	return 0;
}

static int decode_allocs(const unsigned char *buf, const struct section *s,
			 struct mp_plan *p, char *err, size_t errlen)
{
	void *a;
	int rc = section_array(s, "ALLOCS", MP_PLAN_ALLOC_SIZE,
			       sizeof(*p->allocs), "allocation", &a, err, errlen);
	if (rc)
		return rc;
	p->allocs = a;
	p->nallocs = s->count;
	for (uint32_t i = 0; i < s->count; i++) {
		const unsigned char *e = buf + s->offset + (size_t)i * s->esize;
		struct mp_plan_alloc *a = &p->allocs[i];
		a->size = get64(e);
		a->offset = get64(e + 8);
		a->buffer = get64(e + 16);
		a->lower = get64(e + 24);
		a->upper = get64(e + 32);
		a->flags = get32(e + 40);
	}
	return 0;
}

static int decode_swaps(const unsigned char *buf, const struct section *s,
			struct mp_plan *p, char *err, size_t errlen)
{
	void *a;
	int rc = section_array(s, "SWAPS", MP_PLAN_SWAP_SIZE, sizeof(*p->swaps),
			       "swap", &a, err, errlen);
	if (rc)
		return rc;
	p->swaps = a;
	p->nswaps = s->count;
	for (uint32_t i = 0; i < s->count; i++) {
		const unsigned char *e = buf + s->offset + (size_t)i * s->esize;
		struct mp_plan_swap *w = &p->swaps[i];
		w->request = get64(e);
		w->out_at = get64(e + 8);
		w->in_at = get64(e + 16);
		w->src_offset = get64(e + 24);
		w->bytes = get64(e + 32);
		w->staging = get64(e + 40);
		w->flags = get32(e + 48);
	}
	return 0;
}

/* Two's complement, without an implementation-defined conversion. */
static int64_t get64s(const unsigned char *p)
{
	uint64_t u = get64(p);
	return u <= INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}

/* After SWAPS (p->nswaps is known): one entry per swap, reserved zero. */
static int decode_timing(const unsigned char *buf, const struct section *s,
			 struct mp_plan *p, char *err, size_t errlen)
{
	if (s->count != p->nswaps)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "section %u (SWAP_TIMING), field count: %u entries for %u swaps (one entry per swap)",
			      s->index, s->count, p->nswaps);
	void *a;
	int rc = section_array(s, "SWAP_TIMING", MP_PLAN_SWAP_TIMING_SIZE,
			       sizeof(*p->timing), "swap timing", &a, err, errlen);
	if (rc)
		return rc;
	p->timing = a;
	p->has_timing = 1;
	for (uint32_t i = 0; i < s->count; i++) {
		const unsigned char *e = buf + s->offset + (size_t)i * s->esize;
		struct mp_plan_swap_timing *w = &p->timing[i];
		w->d2h_slack_ns = get64s(e);
		w->h2d_slack_ns = get64s(e + 8);
		w->predicted_stall_ns = get64(e + 16);
		w->flags = get32(e + 24);
		uint32_t reserved = get32(e + 28);
		if (reserved)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "SWAP_TIMING entry %u, field reserved: 0x%08x, not 0",
				      i, reserved);
	}
	return 0;
}

/* After ALLOCS (p->nallocs is known): one entry per allocation, reserved
 * zero; the ordinals are checked by mp_plan_validate. */
static int decode_streams(const unsigned char *buf, const struct section *s,
			  struct mp_plan *p, char *err, size_t errlen)
{
	if (s->count != p->nallocs)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "section %u (STREAMS), field count: %u entries for %u allocations (one entry per ALLOCS entry)",
			      s->index, s->count, p->nallocs);
	void *a;
	int rc = section_array(s, "STREAMS", MP_PLAN_STREAM_SIZE,
			       sizeof(*p->streams), "stream", &a, err, errlen);
	if (rc)
		return rc;
	p->streams = a;
	p->has_streams = 1;
	for (uint32_t i = 0; i < s->count; i++) {
		const unsigned char *e = buf + s->offset + (size_t)i * s->esize;
		p->streams[i] = get32(e);
		uint32_t reserved = get32(e + 4);
		if (reserved)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "STREAMS entry %u, field reserved: 0x%08x, not 0",
				      i, reserved);
	}
	return 0;
}

/* One entry of at least MP_PLAN_LINK_SIZE bytes: the spec, its NUL, zeros
 * to the end of the first MP_PLAN_LINK_SIZE (a longer entry's later bytes
 * are a later version's fields); the spec's bytes are checked by
 * mp_plan_validate. */
static int decode_link(const unsigned char *buf, const struct section *s,
		       struct mp_plan *p, char *err, size_t errlen)
{
	if (s->count != 1 || s->esize < MP_PLAN_LINK_SIZE)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "section %u (LINK), field count: expected one entry of at least %d bytes, found %u of %u",
			      s->index, MP_PLAN_LINK_SIZE, s->count, s->esize);
	const unsigned char *e = buf + s->offset;
	size_t n = 0;
	while (n < MP_PLAN_LINK_SIZE && e[n])
		n++;
	if (n == MP_PLAN_LINK_SIZE)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "LINK field spec: no terminating NUL within %d bytes",
			      MP_PLAN_LINK_SIZE);
	for (size_t i = n; i < MP_PLAN_LINK_SIZE; i++)
		if (e[i])
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "LINK field spec: byte %zu, after the spec's NUL, is 0x%02x, not 0",
				      i, e[i]);
	memcpy(p->link, e, n);
	p->has_link = 1;
	return 0;
}

/* The workloads (bounded by MP_PLAN_MAX_WORKLOADS before any memory is
 * taken), reserved zero; the rest is checked by mp_plan_validate. */
static int decode_cycle(const unsigned char *buf, const struct section *s,
			struct mp_plan *p, char *err, size_t errlen)
{
	if (s->count == 0 || s->count > MP_PLAN_MAX_WORKLOADS)
		return seterr(err, errlen, MP_PLAN_EFORMAT,
			      "section %u (CYCLE), field count: %u workloads, not 1 to %d",
			      s->index, s->count, MP_PLAN_MAX_WORKLOADS);
	void *a;
	int rc = section_array(s, "CYCLE", MP_PLAN_WORKLOAD_SIZE,
			       sizeof(*p->workloads), "workload", &a, err,
			       errlen);
	if (rc)
		return rc;
	p->workloads = a;
	p->nworkloads = s->count;
	for (uint32_t i = 0; i < s->count; i++) {
		const unsigned char *e = buf + s->offset + (size_t)i * s->esize;
		struct mp_plan_workload *x = &p->workloads[i];
		x->first_request = get64(e);
		x->fingerprint = get64(e + 8);
		x->persistent_bytes = get64(e + 16);
		x->flags = get32(e + 24);
		uint32_t reserved = get32(e + 28);
		if (reserved)
			return seterr(err, errlen, MP_PLAN_EFORMAT,
				      "CYCLE entry %u, field reserved: 0x%08x, not 0",
				      i, reserved);
	}
	return 0;
}

int mp_plan_decode(const unsigned char *buf, size_t len, struct mp_plan *out,
		   char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	uint32_t nsec = 0;
	size_t table = 0;
	int rc = decode_header(buf, len, &nsec, &table, err, errlen);
	if (rc)
		return rc;
	struct section *sec = malloc((nsec ? nsec : 1) * sizeof(*sec));
	if (!sec)
		return seterr(err, errlen, MP_PLAN_ENOMEM,
			      "out of memory reading %u sections", nsec);
	rc = decode_table(buf, len, nsec, table, sec, err, errlen);
	const struct section *known[MP_PLAN_SECTION_LINK + 1] = { NULL };
	const struct section *cycle = NULL;
	for (uint32_t i = 0; i < nsec && !rc; i++) {
		uint32_t t = sec[i].type;
		if (t == MP_PLAN_SECTION_CYCLE) {
			if (cycle)
				rc = seterr(err, errlen, MP_PLAN_EFORMAT,
					    "section %u: a second CYCLE section (the first is section %u)",
					    i, cycle->index);
			cycle = &sec[i];
		} else if (t >= MP_PLAN_SECTION_META && t <= MP_PLAN_SECTION_LINK) {
			if (known[t])
				rc = seterr(err, errlen, MP_PLAN_EFORMAT,
					    "section %u: a second %s section (the first is section %u)",
					    i, mp_plan_section_name(t), known[t]->index);
			known[t] = &sec[i];
		} else if (sec[i].flags & MP_PLAN_SECTION_REQUIRED) {
			rc = seterr(err, errlen, MP_PLAN_EVERSION,
				    "section %u, field type: type %u is required but unknown to this reader (format version %d); use a newer memplan",
				    i, t, MP_PLAN_VERSION);
		}
		/* unknown optional sections are skipped */
	}
	if (!rc && !known[MP_PLAN_SECTION_META])
		rc = seterr(err, errlen, MP_PLAN_EFORMAT,
			    "the section table has no META section");
	if (!rc && !known[MP_PLAN_SECTION_ALLOCS])
		rc = seterr(err, errlen, MP_PLAN_EFORMAT,
			    "the section table has no ALLOCS section");
	if (!rc)
		rc = decode_meta(buf, known[MP_PLAN_SECTION_META], out, err, errlen);
	if (!rc)
		rc = decode_allocs(buf, known[MP_PLAN_SECTION_ALLOCS], out, err,
				   errlen);
	if (!rc && known[MP_PLAN_SECTION_SWAPS])
		rc = decode_swaps(buf, known[MP_PLAN_SECTION_SWAPS], out, err,
				  errlen);
	if (!rc && known[MP_PLAN_SECTION_SWAP_TIMING])
		rc = decode_timing(buf, known[MP_PLAN_SECTION_SWAP_TIMING], out,
				   err, errlen);
	if (!rc && known[MP_PLAN_SECTION_STREAMS])
		rc = decode_streams(buf, known[MP_PLAN_SECTION_STREAMS], out,
				    err, errlen);
	if (!rc && known[MP_PLAN_SECTION_LINK])
		rc = decode_link(buf, known[MP_PLAN_SECTION_LINK], out, err,
				 errlen);
	if (!rc && cycle)
		rc = decode_cycle(buf, cycle, out, err, errlen);
	free(sec);
	if (!rc) {
		out->version = get32(buf + 8);
		rc = mp_plan_validate(out, err, errlen);
	}
	if (rc)
		mp_plan_free(out);
	return rc;
}

void mp_plan_free(struct mp_plan *p)
{
	free(p->allocs);
	free(p->swaps);
	free(p->timing);
	free(p->streams);
	free(p->workloads);
	memset(p, 0, sizeof(*p));
}

/* --- files ----------------------------------------------------------------- */

int mp_plan_layout(const unsigned char *buf, size_t len,
		   struct mp_plan_section_info *rows, size_t max, size_t *nsec,
		   uint32_t *checksum, char *err, size_t errlen)
{
	uint32_t n = 0;
	size_t table = 0;
	*nsec = 0;
	int rc = decode_header(buf, len, &n, &table, err, errlen);
	if (rc)
		return rc;
	struct section *sec = malloc((n ? n : 1) * sizeof(*sec));
	if (!sec)
		return seterr(err, errlen, MP_PLAN_ENOMEM,
			      "out of memory reading %u sections", n);
	rc = decode_table(buf, len, n, table, sec, err, errlen);
	if (!rc) {
		for (uint32_t i = 0; i < n && i < max; i++)
			rows[i] = (struct mp_plan_section_info){
				sec[i].type,   sec[i].flags, sec[i].offset,
				sec[i].length, sec[i].count, sec[i].esize };
		*nsec = n;
		*checksum = get32(buf + MP_PLAN_CHECKSUM_AT);
	}
	free(sec);
	return rc;
}

int mp_plan_read_bytes(const char *path, unsigned char **out, size_t *outlen,
		       char *err, size_t errlen)
{
	*out = NULL;
	*outlen = 0;
	/* only a regular file: a FIFO would block, /dev/zero never ends */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return seterr(err, errlen, MP_PLAN_EIO, "cannot open plan '%s': %s",
			      path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return seterr(err, errlen, MP_PLAN_EIO,
			      "cannot open plan '%s': not a regular file", path);
	}
	size_t cap = 1 << 16, len = 0;
	unsigned char *buf = malloc(cap);
	int rc = 0;
	while (buf) {
		if (len == cap) {
			unsigned char *b = cap > SIZE_MAX / 2 ? NULL
							      : realloc(buf, cap * 2);
			if (!b) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = seterr(err, errlen, MP_PLAN_EIO,
				    "cannot read plan '%s': %s", path, strerror(errno));
			break;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (!buf)
		return seterr(err, errlen, MP_PLAN_ENOMEM,
			      "out of memory reading plan '%s'", path);
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

int mp_plan_read_file(const char *path, struct mp_plan *out, char *err,
		      size_t errlen)
{
	memset(out, 0, sizeof(*out));
	unsigned char *buf;
	size_t len;
	int rc = mp_plan_read_bytes(path, &buf, &len, err, errlen);
	if (rc)
		return rc;
	char why[384];
	rc = mp_plan_decode(buf, len, out, why, sizeof(why));
	if (rc)
		seterr(err, errlen, rc, "plan '%s': %s", path, why);
	free(buf);
	return rc;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Makes the rename durable; failures only weaken durability, never data. */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		return;
	int fd = open(dir, O_RDONLY);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int mp_plan_write_file(const char *path, const struct mp_plan *p, char *err,
		       size_t errlen)
{
	unsigned char *buf;
	size_t len;
	int rc = mp_plan_encode(p, &buf, &len, err, errlen);
	if (rc)
		return rc;
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device or a pipe (/dev/null, a FIFO): written in place, since
		 * a rename would replace it with a regular file */
		int fd = open(path, O_WRONLY);
		if (fd < 0 || write_all(fd, buf, len) < 0)
			rc = seterr(err, errlen, MP_PLAN_EIO,
				    "cannot write plan '%s': %s", path,
				    strerror(errno));
		if (fd >= 0 && close(fd) < 0 && !rc)
			rc = seterr(err, errlen, MP_PLAN_EIO,
				    "cannot write plan '%s': %s", path,
				    strerror(errno));
		free(buf);
		return rc;
	}
	size_t n = strlen(path) + 48;
	char *tmp = malloc(n);
	if (!tmp) {
		free(buf);
		return seterr(err, errlen, MP_PLAN_ENOMEM, "out of memory");
	}
	/* a sibling, so that rename() stays within one file system */
	static unsigned counter;
	int fd = -1;
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		snprintf(tmp, n, "%s.tmp-%ld-%u", path, (long)getpid(), counter++);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rc = seterr(err, errlen, MP_PLAN_EIO, "cannot write plan '%s': %s",
			    path, strerror(errno));
		free(tmp);
		free(buf);
		return rc;
	}
	if (write_all(fd, buf, len) < 0 || fsync(fd) < 0) {
		rc = seterr(err, errlen, MP_PLAN_EIO, "cannot write plan '%s': %s",
			    path, strerror(errno));
		close(fd);
	} else if (close(fd) < 0) {
		rc = seterr(err, errlen, MP_PLAN_EIO, "cannot write plan '%s': %s",
			    path, strerror(errno));
	} else if (rename(tmp, path) < 0) {
		rc = seterr(err, errlen, MP_PLAN_EIO, "cannot write plan '%s': %s",
			    path, strerror(errno));
	}
	if (rc)
		unlink(tmp);
	else
		sync_dir(path);
	free(tmp);
	free(buf);
	return rc;
}
