/* SPDX-License-Identifier: MIT */
/*
 * plan.h - the binary plan file of memplan-plan(5): what the planner writes
 * and the runtime follows.  The runtime owns the format; the planner writes
 * it through these same definitions.  plan.c depends on libc alone, so that
 * libmemplan can compile it with hidden visibility.
 *
 * Invariant: every struct mp_plan that mp_plan_decode() returns has passed
 * mp_plan_validate(), and mp_plan_encode() never writes a plan that
 * mp_plan_decode() would refuse.
 */
#ifndef MEMPLAN_PLAN_H
#define MEMPLAN_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* The first 8 bytes of every plan file (PNG-style: a high-bit byte, a name,
 * CR LF, so that text-mode transfers and foreign files are caught). */
#define MP_PLAN_MAGIC "\x89" "MPLAN\r\n"
#define MP_PLAN_MAGIC_LEN 8
#define MP_PLAN_VERSION 1 /* the format version this code reads and writes */

/* Sizes of the fixed parts in version 1 (readers accept larger entries). */
#define MP_PLAN_HEADER_SIZE 64
#define MP_PLAN_SECTION_SIZE 32
#define MP_PLAN_META_SIZE 96
#define MP_PLAN_ALLOC_SIZE 48
#define MP_PLAN_SWAP_SIZE 56
#define MP_PLAN_SWAP_TIMING_SIZE 32
#define MP_PLAN_STREAM_SIZE 8
#define MP_PLAN_LINK_SIZE 128
#define MP_PLAN_WORKLOAD_SIZE 32
#define MP_PLAN_CHECKSUM_AT 28 /* byte offset of the header's checksum */

/* Error codes: the same values as the trace library's, so that commands map
 * them to exit statuses alike.  Every failure also fills err with a sentence. */
enum mp_plan_err {
	MP_PLAN_OK = 0,
	MP_PLAN_ENOMEM = -1,   /* out of memory */
	MP_PLAN_EIO = -2,      /* cannot open, read or write a file */
	MP_PLAN_EFORMAT = -3,  /* not a plan, truncated, corrupted or inconsistent */
	MP_PLAN_EVERSION = -4, /* a format version or feature this reader lacks */
	MP_PLAN_EINVAL = -5,   /* caller error: a plan that cannot be written */
};

/* Section types (the section table's type field). */
enum mp_plan_section {
	MP_PLAN_SECTION_META = 1,
	MP_PLAN_SECTION_ALLOCS = 2,
	MP_PLAN_SECTION_SWAPS = 3,
	MP_PLAN_SECTION_SWAP_TIMING = 4, /* optional, advisory */
	MP_PLAN_SECTION_STREAMS = 5,     /* optional: the runtime checks it */
	MP_PLAN_SECTION_LINK = 6,        /* optional, advisory */
	MP_PLAN_SECTION_CYCLE = 7,       /* optional: workloads taking turns */
};
/* Section flag: a reader that does not know the type must refuse the file;
 * with the flag clear, such a reader skips the section. */
#define MP_PLAN_SECTION_REQUIRED 0x1u

/* Header flags: bits 0-15 name features a reader must know (an unknown one
 * set refuses the file), bits 16-31 are hints readers may ignore.  Version 1
 * defines none. */
#define MP_PLAN_HEADER_FLAGS_REQUIRED 0x0000ffffu

/* META flags. */
#define MP_PLAN_OPTIMAL 0x1u /* the strategy proved no smaller pool exists */
/* Placement study: buffers were placed over the trace's own holes, which
 * the runtime does not empty (it moves only the SWAPS entries); the plan is
 * safe only where something else moves those bytes out and back.  Readers
 * that follow a plan may ignore it; checkers use it to pick the model. */
#define MP_PLAN_TRUSTS_HOLES 0x2u

/* The least pool_align the runtime follows with CUDA memory: what
 * cudaMalloc guarantees, and what kernels rely on. */
#define MP_PLAN_DEVICE_ALIGN UINT64_C(256)

/* mp_plan_alloc.offset of a request served by the real allocator. */
#define MP_PLAN_PASS_THROUGH UINT64_MAX
/* mp_plan_alloc.upper of a buffer not freed within the iteration. */
#define MP_PLAN_NO_FREE UINT64_MAX

#define MP_PLAN_STRATEGY_LEN 32 /* bytes of the strategy name, NUL included */
/* Bytes of the LINK section's spec, NUL included: its one entry's size. */
#define MP_PLAN_LINK_LEN MP_PLAN_LINK_SIZE

/*
 * One allocation request of the iteration, in request order.  lower and upper
 * are on the allocator clock: the 0-based ordinal of a request (alloc or
 * free) among all alloc and free requests of the iteration.
 */
struct mp_plan_alloc {
	uint64_t size;   /* bytes requested; the runtime matches it, > 0 */
	uint64_t offset; /* offset in the pool, or MP_PLAN_PASS_THROUGH */
	uint64_t buffer; /* the trace's buffer id (for people and tools) */
	uint64_t lower;  /* clock ordinal of this alloc request */
	uint64_t upper;  /* clock ordinal of its free, or MP_PLAN_NO_FREE */
	uint32_t flags;  /* none defined in version 1; written as 0 */
};

/*
 * One swap: bytes [src_offset, src_offset + bytes) of the buffer of request
 * go to host staging bytes [staging, staging + bytes) right after clock
 * ordinal out_at has been served, and come back (to the same pool offset)
 * right after ordinal in_at.  lower <= out_at < in_at < upper of the request.
 * Swaps are sorted by (request, out_at) and those of one request are
 * disjoint in time: each out_at is above the previous swap's in_at.
 */
struct mp_plan_swap {
	uint64_t request;    /* index into allocs; a planned request */
	uint64_t out_at;     /* swap-out trigger, clock ordinal */
	uint64_t in_at;      /* swap-in trigger, clock ordinal, > out_at */
	uint64_t src_offset; /* first byte swapped, within the buffer */
	uint64_t bytes;      /* bytes swapped, > 0 */
	uint64_t staging;    /* offset in the host staging area */
	uint32_t flags;      /* none defined in version 1; written as 0 */
};

/* mp_plan_swap_timing.flags.  NO_USE: the buffer has no use after the
 * swap-in, so h2d_slack_ns is 0.  NO_REUSE: no allocation takes the bytes
 * while they are out, so d2h_slack_ns is 0.  Other bits are refused. */
#define MP_PLAN_TIMING_NO_USE 0x1u
#define MP_PLAN_TIMING_NO_REUSE 0x2u
#define MP_PLAN_TIMING_FLAGS (MP_PLAN_TIMING_NO_USE | MP_PLAN_TIMING_NO_REUSE)

/*
 * What the planner's simulator predicted for one swap: the SWAP_TIMING
 * section, one entry per swap, in the order of swaps.  Advisory: the runtime
 * follows a plan without it; people and tools read it.  Times are ns of the
 * simulated iteration.  A slack is how long before the moment it is wanted
 * a copy is done; negative, the compute stream waits.  The swap-out is
 * wanted by the first allocation placed over its bytes before the swap-in
 * (the runtime waits there), the swap-in by the buffer's next use; "wanted"
 * is when that event would start if it waited for no swap.
 */
struct mp_plan_swap_timing {
	int64_t d2h_slack_ns;        /* reuse wanted - swap-out end */
	int64_t h2d_slack_ns;        /* next use wanted - swap-in end */
	uint64_t predicted_stall_ns; /* compute time lost waiting for this swap */
	uint32_t flags;              /* MP_PLAN_TIMING_NO_USE, _NO_REUSE */
};

/* mp_plan.streams[i] of a request whose stream the trace does not know
 * (cudaMalloc, an import): the runtime checks nothing for it. */
#define MP_PLAN_STREAM_UNKNOWN UINT32_MAX

/* The most workloads a CYCLE section may name (the runtime scans them when
 * it recognises the start of a workload's iteration). */
#define MP_PLAN_MAX_WORKLOADS 64

/*
 * One workload of a cycle (the CYCLE section): jobs that take turns in one
 * process (train then evaluate, a GAN's two steps, models served in turn),
 * planned in one pool over the cycle.  Workload w's requests are the clock
 * ordinals [first_request, the next workload's first_request, or
 * nrequests); every ALLOCS entry of its segment is allocated, and freed,
 * within it, so that the pool is empty between two workloads.
 */
struct mp_plan_workload {
	uint64_t first_request;    /* clock ordinal of its first request */
	uint64_t fingerprint;      /* mp_plan_fingerprint() of its alloc sizes */
	uint64_t persistent_bytes; /* its bytes outliving its turn (information) */
	uint32_t flags;            /* none defined; written as 0 */
};

/*
 * A plan in memory.  allocs, swaps, timing, streams and workloads are malloc'ed and owned by the
 * plan (mp_plan_free releases them); a plan built by hand must follow the same
 * rule to be passed to mp_plan_free.
 */
struct mp_plan {
	uint32_t version;          /* decode: the file's; encode writes MP_PLAN_VERSION */
	uint32_t flags;            /* MP_PLAN_OPTIMAL */
	uint64_t pool_size;        /* bytes of the pool, >= every offset + size */
	uint64_t pool_align;       /* every planned offset is a multiple; power of 2 */
	int32_t device;            /* CUDA device ordinal of the pool, -1 unknown */
	uint64_t nrequests;        /* length of the allocator clock (allocs + frees) */
	uint64_t fingerprint;      /* mp_plan_fingerprint() of the alloc sizes */
	uint64_t lower_bound;      /* the trace's lower bound for this pool */
	uint64_t persistent_bytes; /* bytes outliving the iteration (information) */
	uint64_t host_staging;     /* bytes of host staging the swaps need */
	char strategy[MP_PLAN_STRATEGY_LEN]; /* NUL-terminated, printable ASCII */
	struct mp_plan_alloc *allocs;
	uint32_t nallocs;
	struct mp_plan_swap *swaps;
	uint32_t nswaps;
	/* the SWAP_TIMING section: with has_timing, nswaps entries (NULL when
	 * there are no swaps); without it, NULL: the plan has no timing */
	struct mp_plan_swap_timing *timing;
	uint32_t has_timing;
	/* the STREAMS section: with has_streams, nallocs entries (NULL when
	 * there are no allocations): per ALLOCS entry, the ordinal of its
	 * stream among the trace's streams in the order of their first
	 * allocation request (0 the first, each new one the next), or
	 * MP_PLAN_STREAM_UNKNOWN; without it, NULL: nothing to check */
	uint32_t *streams;
	uint32_t has_streams;
	/* the LINK section: with has_link, the link spec the swaps were
	 * planned for, as memplan-plan compile --link takes it (1 to
	 * MP_PLAN_LINK_LEN - 1 printable ASCII bytes, NUL-terminated, zeros
	 * after); the planner parses it, the runtime only shows it; without
	 * it, link[0] is 0: the plan does not say */
	char link[MP_PLAN_LINK_LEN];
	uint32_t has_link;
	/* the CYCLE section: nworkloads entries (1 to MP_PLAN_MAX_WORKLOADS)
	 * in clock order; none (NULL, 0): the plan is one workload's.  With a
	 * cycle, STREAMS numbers each workload's streams from 0. */
	struct mp_plan_workload *workloads;
	uint32_t nworkloads;
};

/*
 * The fingerprint of a request sequence: the count and every requested size
 * in order, folded as memplan-plan(5) defines it, so the runtime can compute
 * it on the fly (init, one update per alloc request, final) and another
 * implementation can recompute it.
 */
struct mp_plan_fp {
	uint64_t h; /* running state */
	uint64_t n; /* sizes folded in so far */
};
void mp_plan_fp_init(struct mp_plan_fp *fp);
void mp_plan_fp_update(struct mp_plan_fp *fp, uint64_t size);
uint64_t mp_plan_fp_final(const struct mp_plan_fp *fp);
/* The three above over sizes[0..n). */
uint64_t mp_plan_fingerprint(const uint64_t *sizes, size_t n);

/* CRC-32C (Castagnoli) of len bytes, continuing from crc (start with 0). */
uint32_t mp_plan_crc32c(uint32_t crc, const void *data, size_t len);
/*
 * The checksum a file of len bytes must carry: CRC-32C of the whole file
 * with the 4 checksum bytes taken as zero.  len must be at least
 * MP_PLAN_HEADER_SIZE.
 */
uint32_t mp_plan_checksum(const unsigned char *buf, size_t len);

/*
 * Checks a plan's own consistency (what any reader may rely on): alignment a
 * power of two; sizes > 0; every planned offset aligned and inside the pool;
 * the clock ordinals increasing, distinct and below nrequests; the
 * fingerprint equal to the sizes'; the lower bound not above the pool; the
 * strategy name; every swap inside its request's lifetime, its buffer and the
 * host staging area; with timing, known flags and the slacks they void at 0;
 * with streams, each ordinal at most one above those before it (in its
 * workload); with a cycle, workloads in clock order from ordinal 0, each
 * with an allocation, its entries' lifetimes inside it, its fingerprint; with a link, its spec printable ASCII,
 * NUL-terminated, zeros after.
 * Returns 0 or MP_PLAN_EFORMAT (or MP_PLAN_ENOMEM) with
 * a sentence naming the field and entry in err.
 */
int mp_plan_validate(const struct mp_plan *p, char *err, size_t errlen);

/*
 * Encodes p into a new malloc'ed buffer (*buf, *len; the caller frees it).
 * Returns 0, MP_PLAN_EINVAL if p fails mp_plan_validate() (nothing
 * allocated), or MP_PLAN_ENOMEM.
 */
int mp_plan_encode(const struct mp_plan *p, unsigned char **buf, size_t *len,
		   char *err, size_t errlen);

/*
 * Decodes len bytes.  Every length, count and offset is checked against len
 * before it is used, then the checksum, then the contents
 * (mp_plan_validate).  Returns 0 and a plan in *out that the caller releases
 * with mp_plan_free(); or MP_PLAN_EFORMAT (foreign, truncated, corrupted,
 * inconsistent), MP_PLAN_EVERSION (a newer format, an unknown required
 * section or feature) or MP_PLAN_ENOMEM, with *out left empty.
 */
int mp_plan_decode(const unsigned char *buf, size_t len, struct mp_plan *out,
		   char *err, size_t errlen);

/* Reads and decodes the file at path; errors name it ("plan 'path': ..."). */
int mp_plan_read_file(const char *path, struct mp_plan *out, char *err,
		      size_t errlen);

/* Reads the whole file at path into a new malloc'ed buffer, unchecked.
 * Returns 0, MP_PLAN_EIO or MP_PLAN_ENOMEM (*buf NULL on failure). */
int mp_plan_read_bytes(const char *path, unsigned char **buf, size_t *len,
		       char *err, size_t errlen);

/* One row of a file's section table (for tools that show the layout). */
struct mp_plan_section_info {
	uint32_t type, flags;
	uint64_t offset, length;
	uint32_t count, entry_size;
};

/* "META", "ALLOCS", "SWAPS", "SWAP_TIMING", "STREAMS", "LINK", "CYCLE",
 * or "unknown": a section type's name. */
const char *mp_plan_section_name(uint32_t type);

/*
 * The header fields and section table of the len bytes in buf, checked as
 * mp_plan_decode() checks them (not the sections' contents): *nsec rows, of
 * which the first max go to rows; *checksum gets the header's checksum.
 * Returns 0, MP_PLAN_EFORMAT or MP_PLAN_EVERSION.
 */
int mp_plan_layout(const unsigned char *buf, size_t len,
		   struct mp_plan_section_info *rows, size_t max, size_t *nsec,
		   uint32_t *checksum, char *err, size_t errlen);

/*
 * Encodes p and writes it to a temporary file beside path, fsyncs it and
 * renames it over path: a failure never leaves part of a file at path, nor
 * damages the file that was there.  Returns 0, MP_PLAN_EINVAL, MP_PLAN_EIO
 * or MP_PLAN_ENOMEM.
 */
int mp_plan_write_file(const char *path, const struct mp_plan *p, char *err,
		       size_t errlen);

/* The number of distinct stream ordinals of p's STREAMS section (the
 * highest one plus one; 0 without the section or with none known). */
uint32_t mp_plan_stream_count(const struct mp_plan *p);

/* The workload of p whose segment holds clock ordinal k (0 without a
 * cycle), and the ordinals [*begin, *end) of its segment (may be NULL). */
uint32_t mp_plan_workload_at(const struct mp_plan *p, uint64_t k,
			     uint64_t *begin, uint64_t *end);

/* Frees what p owns and leaves it empty (zeroed); p may be empty already. */
void mp_plan_free(struct mp_plan *p);

#endif
