/* SPDX-License-Identifier: MIT */
/*
 * trace.h - the in-memory trace model: one iteration of a program as buffers,
 * events in order, and the accesses each event makes.  Everything in memplan
 * (analyze, planner, importers, the synthetic zoo) reads or builds a trace
 * through this header; tracedb.h moves a trace to and from SQLite.
 *
 * Invariant after trace_finish() succeeds: buffer ids are 0..nbuffers-1 in
 * array order, event seqs strictly increase, every alloc precedes its free,
 * every access names a buffer live at its event, and the derived fields
 * (alloc_ev, free_ev, uses, holes) are filled in.
 */
#ifndef MEMPLAN_TRACE_H
#define MEMPLAN_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Schema version of the trace model; tracedb.c stores it in meta. */
#define TRACE_SCHEMA_VERSION 1

/*
 * The one bound on bytes in memplan.  Every buffer's size, rounded size,
 * alignment and fixed offset is below it, and so is the sum of all buffers'
 * rounded sizes (trace_finish() refuses a trace otherwise), so any sum of
 * live bytes, a peak, a pool offset plus a size, fits in int64_t with room
 * to spare.  The planner's solver checks its problems against the same one.
 */
#define TRACE_BYTES_LIMIT (UINT64_C(1) << 62)

/* Library error codes: 0 on success, one of these (negative) on failure. */
enum trace_err {
	TRACE_OK = 0,
	TRACE_ENOMEM = -1,   /* out of memory */
	TRACE_EIO = -2,      /* cannot open, read or write a file */
	TRACE_EFORMAT = -3,  /* input is malformed or violates the model */
	TRACE_EVERSION = -4, /* schema version newer than this build knows */
	TRACE_EINVAL = -5,   /* caller error (bad argument) */
};

/* What kind of memory a buffer is.  Codes are stored in the file. */
enum trace_kind {
	TRACE_KIND_DEVICE = 0,  /* cudaMalloc / cuMemAlloc */
	TRACE_KIND_ASYNC = 1,   /* stream-ordered pool (cudaMallocAsync) */
	TRACE_KIND_MANAGED = 2, /* cudaMallocManaged */
	TRACE_KIND_HOST = 3,    /* pinned host (cudaMallocHost, cudaHostAlloc) */
	TRACE_KIND_VMM = 4,     /* cuMemCreate/cuMemMap (expandable segments) */
	TRACE_KIND_COUNT
};

/*
 * The alignment a buffer's allocator guarantees, recorded as its align.
 * CUDA's allocation routines, runtime and driver alike (cudaMalloc,
 * cudaMallocAsync and its pools, cudaMallocManaged, cudaMallocHost,
 * cuMemAlloc), return addresses aligned to at least 256 bytes (CUDA C++
 * Programming Guide, "Device Memory Accesses"), and kernels rely on it.
 * PyTorch's caching allocator cuts its blocks from such segments at
 * multiples of 512 bytes (kMinBlockSize).
 */
#define TRACE_ALIGN_CUDA UINT64_C(256)
#define TRACE_ALIGN_TORCH UINT64_C(512)

/* Role a framework gives a buffer; optional, used for grouping reports. */
enum trace_role {
	TRACE_ROLE_UNKNOWN = 0,
	TRACE_ROLE_WEIGHT = 1,
	TRACE_ROLE_GRADIENT = 2,
	TRACE_ROLE_OPTIMIZER = 3,  /* optimizer state (momentum, Adam moments) */
	TRACE_ROLE_ACTIVATION = 4, /* saved for backward */
	TRACE_ROLE_TEMP = 5,       /* per-op output or temporary freed soon */
	TRACE_ROLE_WORKSPACE = 6,  /* library scratch (cuDNN, cuBLAS) */
	TRACE_ROLE_INPUT = 7,      /* data batch, labels */
	TRACE_ROLE_COUNT
};

enum trace_event_type {
	TRACE_EV_ALLOC = 0,
	TRACE_EV_FREE = 1,
	TRACE_EV_KERNEL = 2,
	TRACE_EV_COPY = 3,
	TRACE_EV_MEMSET = 4,
	TRACE_EV_SYNC = 5,
	TRACE_EV_MARK = 6,
	TRACE_EV_COUNT
};

/* aux field of a COPY event */
enum trace_copy_kind {
	TRACE_COPY_UNKNOWN = 0,
	TRACE_COPY_H2D = 1,
	TRACE_COPY_D2H = 2,
	TRACE_COPY_D2D = 3,
	TRACE_COPY_H2H = 4,
	TRACE_COPY_P2P = 5,
};

/* aux field of a MARK event */
enum trace_mark_kind {
	TRACE_MARK_POINT = 0,
	TRACE_MARK_BEGIN = 1, /* range begin (NVTX push/start, iteration begin) */
	TRACE_MARK_END = 2,
};

/* aux field of a SYNC event (memplan-capture); bytes holds the CUDA event's
 * number for RECORD and WAIT */
enum trace_sync_kind {
	TRACE_SYNC_HOST = 0,   /* the host waits (device, stream, event sync) */
	TRACE_SYNC_RECORD = 1, /* the stream records a CUDA event */
	TRACE_SYNC_WAIT = 2,   /* the stream waits for a CUDA event's record */
};

/* aux bits of a KERNEL event (memplan-capture) */
enum trace_kernel_flags {
	TRACE_KERNEL_GRAPH = 1u << 0,    /* a CUDA graph launch: its work, unseen */
	TRACE_KERNEL_CAPTURED = 1u << 1, /* made during stream capture: not run */
};

enum trace_access_mode {
	TRACE_ACCESS_UNKNOWN = 0,
	TRACE_ACCESS_READ = 1,
	TRACE_ACCESS_WRITE = 2,
	TRACE_ACCESS_RW = 3,
};

#define TRACE_NONE (-1)         /* absent event index, offset, stream */
#define TRACE_TIME_NONE INT64_MIN /* unknown timestamp */

struct trace_buffer {
	int64_t id;           /* 0..nbuffers-1, equal to its array index */
	uint64_t size;        /* bytes requested, > 0 */
	uint64_t rounded;     /* bytes the allocator gave, >= size */
	uint64_t addr;        /* address at capture, 0 if unknown */
	uint64_t align;       /* required offset alignment, 1 if none; the
				 allocator's guarantee (TRACE_ALIGN_*) where known */
	int64_t fixed_offset; /* pinned pool offset (imports), TRACE_NONE if free */
	int64_t stream;       /* stream id, TRACE_NONE if unknown */
	int32_t device;
	uint8_t kind;         /* enum trace_kind */
	uint8_t role;         /* enum trace_role */
	const char *label;    /* NULL or interned in the trace */
	const char *stack;    /* call stack at the allocation, one frame a line,
				 innermost first; NULL or interned */
	const char *source;   /* the shared object that asked for it (CUPTI's
				 allocation source); NULL or interned */
	uint8_t bypass;       /* 1: its requests never reach memplan's runtime
				 (a library with its own static cudart, or
				 the driver API): not poolable, and off the
				 runtime's request clock (alloc_clock.h) */

	/* Derived by trace_finish(); not stored. */
	int64_t alloc_ev;   /* event index of the alloc, TRACE_NONE: live at start */
	int64_t free_ev;    /* event index of the free, TRACE_NONE: live at end */
	uint32_t use0, nuses;   /* range in trace.uses: event indexes, ascending */
	uint32_t hole0, nholes; /* range in trace.holes, sorted by lower */
};

struct trace_event {
	int64_t seq;      /* logical time, strictly increasing */
	int64_t t_start;  /* ns (or abstract units, see clock), TRACE_TIME_NONE */
	int64_t t_end;
	int64_t buffer;   /* ALLOC/FREE: the buffer id; otherwise TRACE_NONE */
	int64_t stream;   /* TRACE_NONE if unknown */
	uint64_t bytes;   /* COPY/MEMSET: bytes moved; KERNEL: bytes touched est. */
	uint64_t flops;   /* KERNEL: floating point ops if known, else 0 */
	uint8_t type;     /* enum trace_event_type */
	uint8_t aux;      /* COPY: trace_copy_kind; MARK: trace_mark_kind;
			   * SYNC: trace_sync_kind; KERNEL: trace_kernel_flags */
	const char *name; /* kernel, copy or mark name; NULL or interned */

	/* Set by trace_add_access() as accesses are appended. */
	uint32_t acc0, nacc; /* range in trace.accesses */
};

struct trace_access {
	int64_t buffer;
	uint8_t mode; /* enum trace_access_mode */
};

/*
 * A hole: an interval inside a buffer's lifetime when it is not resident
 * (MiniMalloc's "gaps").  lower/upper are on the trace clock, half-open.
 * When win_lo/win_hi are not TRACE_NONE only [win_lo, win_hi) of the
 * buffer's bytes stay resident during the hole.
 */
struct trace_hole {
	int64_t buffer;
	int64_t lower, upper;
	int64_t win_lo, win_hi;
};

struct trace_meta {
	const char *key, *value; /* interned */
};

/*
 * The clock lifetimes are measured on.  TRACE_CLOCK_SEQ: an alloc at seq a
 * and free at seq f give the half-open lifetime [a, f).  TRACE_CLOCK_TIME:
 * alloc and free events carry t_start, and the lifetime is
 * [t_start(alloc), t_start(free)) (MiniMalloc imports use this to keep their
 * abstract times).  Stored in meta as "clock" = "seq" | "time".
 */
enum trace_clock { TRACE_CLOCK_SEQ = 0, TRACE_CLOCK_TIME = 1 };

struct trace_strpool; /* interning table, private to trace.c */

struct trace {
	struct trace_buffer *buffers;
	size_t nbuffers, capbuffers;
	struct trace_event *events;
	size_t nevents, capevents;
	struct trace_access *accesses;
	size_t naccesses, capaccesses;
	struct trace_hole *holes;
	size_t nholes, capholes;
	struct trace_meta *meta;
	size_t nmeta, capmeta;

	enum trace_clock clock;
	int finished;

	/* Derived by trace_finish(). */
	uint32_t *uses; /* per buffer, event indexes where it is used */
	size_t nuses;

	struct trace_strpool *strings;
};

/*
 * The one way library code reports an error: writes the sentence into err
 * (when err is not NULL and errlen > 0) and returns code.
 */
int trace_seterr(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Opens path for reading as every reader of an outside file must: only a
 * regular file is accepted (a FIFO would block the open or the read,
 * /dev/zero never ends, a directory reads as nothing), checked with fstat
 * on the descriptor opened without blocking.  Returns 0 and *out (fclose()
 * it), or TRACE_EIO with "<what> '<path>': <why>" in err, e.g. what
 * "cannot open trace".
 */
int trace_open_input(const char *path, const char *what, FILE **out,
		     char *err, size_t errlen);

/* --- building ---------------------------------------------------------- */

/* A new empty trace, or NULL when out of memory.  Free with trace_free(). */
struct trace *trace_new(void);
void trace_free(struct trace *t);

/* Interns s (copied) in t; returns the stable copy, or NULL if out of memory.
 * NULL in gives NULL out. */
const char *trace_intern(struct trace *t, const char *s);

/* Sets (or replaces) a meta key.  Key and value are copied. */
int trace_set_meta(struct trace *t, const char *key, const char *value);
/* The value of key, or NULL. */
const char *trace_get_meta(const struct trace *t, const char *key);

/*
 * Appends a buffer.  b->id is ignored and set to the new index; b->label is
 * interned; derived fields are reset.  Returns the id (>= 0) or TRACE_ENOMEM.
 */
int64_t trace_add_buffer(struct trace *t, const struct trace_buffer *b);

/*
 * Appends an event; e->name is interned and acc0/nacc reset.  Returns the
 * event index (>= 0) or TRACE_ENOMEM.  Order is not checked here: that is
 * trace_finish()'s job, so that importers get one complete error.
 */
int64_t trace_add_event(struct trace *t, const struct trace_event *e);

/* Appends an access to the LAST event added.  TRACE_EINVAL if none. */
int trace_add_access(struct trace *t, int64_t buffer, uint8_t mode);

/* Appends a hole to buffer.  Checked by trace_finish(). */
int trace_add_hole(struct trace *t, const struct trace_hole *h);

/*
 * The checks of one buffer (row: its 1-based row, for the message): size
 * and codes, and the bound TRACE_BYTES_LIMIT on its sizes and on *total,
 * the sum of the rounded sizes of the buffers so far, which it advances.
 * Returns 0 or TRACE_EFORMAT with a sentence naming table, row and field.
 * trace_finish() applies it to every buffer; the loader, shared with
 * analyze's streaming reader, as it reads each row, so that no running sum
 * of sizes can overflow before trace_finish() runs.
 */
int trace_check_buffer(const struct trace_buffer *b, size_t row,
		       uint64_t *total, char *err, size_t errlen);

/*
 * Whether the event with sequence number seq and clock value c may access
 * buffer b of the finished-or-finishing t (alloc_ev, free_ev and the holes
 * of b derived): after its alloc, before its free, and, when clocked is
 * true, with c inside its lifetime and outside its holes.  Returns 0, or
 * TRACE_EFORMAT with a sentence naming table accesses, row and field.  The
 * loader (through trace_finish()) and analyze's streaming reader both judge
 * accesses with it.
 */
int trace_check_access(const struct trace *t, const struct trace_buffer *b,
		       size_t row, int64_t seq, int64_t c, int clocked,
		       char *err, size_t errlen);

/* Convenience for generators: alloc/free/kernel with the next seq. */
int64_t trace_next_seq(const struct trace *t);

/*
 * Validates t and computes the derived fields.  On failure returns
 * TRACE_EFORMAT (or TRACE_ENOMEM) and writes one sentence naming the table,
 * row and field into err (row = 1-based position in that table); t is left
 * unfinished but may be freed.  Calling it twice is harmless.
 */
int trace_finish(struct trace *t, char *err, size_t errlen);

/* --- reading (t must be finished) -------------------------------------- */

/* True if the buffer is persistent: live at iteration start or end. */
static inline int trace_buffer_persistent(const struct trace_buffer *b)
{
	return b->alloc_ev == TRACE_NONE || b->free_ev == TRACE_NONE;
}

/*
 * True if event e of t is a request on the allocator clock, the one the
 * runtime counts: an alloc or a free of a buffer whose requests reach it
 * (not bypass).  Plans, verify, replay, the simulator and the swap planner
 * all count requests with it.
 */
static inline int trace_event_request(const struct trace *t,
				      const struct trace_event *e)
{
	return (e->type == TRACE_EV_ALLOC || e->type == TRACE_EV_FREE) &&
	       !(e->buffer >= 0 && (uint64_t)e->buffer < t->nbuffers &&
		 t->buffers[e->buffer].bypass);
}

/*
 * The lifetime of buffer b on the trace clock, half-open [*lo, *hi).
 * Live-at-start gives INT64_MIN, live-at-end INT64_MAX.
 */
void trace_lifetime(const struct trace *t, const struct trace_buffer *b,
		    int64_t *lo, int64_t *hi);

/*
 * Whether buffer b of finished t is used on more than one stream, of those
 * the trace knows: the stream of its allocation (the buffer's, else its
 * alloc event's) and the streams of the events that access it.  Returns 1
 * with the first stream in s[0], the first other one in s[1] and the index
 * of the first event that uses b on it in *ev (s and ev may be NULL), or 0.
 * The runtime orders a swap of b after b's own stream alone, so the
 * planner never swaps or recomputes such a buffer (memplan-plan(1)).
 */
int trace_buffer_streams(const struct trace *t, const struct trace_buffer *b,
			 int64_t s[2], int64_t *ev);

/* Clock value of event index i (its seq, or its t_start on a time clock). */
int64_t trace_event_clock(const struct trace *t, size_t i);

enum trace_filter {
	TRACE_ALL = 0,       /* every buffer */
	TRACE_TRANSIENT = 1, /* born and freed inside the iteration */
	TRACE_PERSISTENT = 2,
	TRACE_HOST = 3,      /* pinned host buffers only */
};

/*
 * Maximum over the clock of the sum of live bytes (requested sizes, holes
 * subtracted) of the buffers that pass filter.  The peak is of device
 * memory: pinned host buffers (TRACE_KIND_HOST) pass only TRACE_HOST, whose
 * peak is the host memory's own.  With filter TRACE_TRANSIENT
 * this is the lower bound of any single-pool placement.  *at receives a
 * clock value where the maximum is first reached (may be NULL).
 * Runs in O(n log n).  Returns 0 for an empty trace, and 0 when out of
 * memory too: a shorthand for tests; the tools call trace_peak_checked().
 */
uint64_t trace_peak(const struct trace *t, enum trace_filter filter,
		    int64_t *at);
/* trace_peak() into *peak: 0, or TRACE_ENOMEM with a sentence in err. */
int trace_peak_checked(const struct trace *t, enum trace_filter filter,
		       uint64_t *peak, int64_t *at, char *err, size_t errlen);

/* Names for codes, for reports and the schema's lookup tables. */
const char *trace_kind_name(unsigned kind);
const char *trace_role_name(unsigned role);
const char *trace_event_type_name(unsigned type);
const char *trace_copy_kind_name(unsigned aux);
const char *trace_access_mode_name(unsigned mode);
/* Inverse of trace_role_name; -1 if unknown. */
int trace_role_from_name(const char *name);

#endif
