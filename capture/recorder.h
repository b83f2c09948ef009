/* SPDX-License-Identifier: MIT */
/*
 * recorder.h - what a capture records, off the program's critical path.
 * Callers (the CUPTI callbacks through translate.c, tests, the bench) call
 * recorder_* from any thread; each call takes a ticket in one bounded
 * lock-free multi-producer queue of fixed-size records and returns; a writer
 * thread drains the queue in ticket order into the trace store's streaming
 * writer (WAL, batched commits, meta complete = 0 until recorder_close).
 *
 * Invariant: buffer ids and tickets are taken under the live map's lock, so
 * the ticket order is a valid trace order: every alloc precedes its frees and
 * accesses, buffer ids appear in increasing order, and any committed prefix
 * of the file is a loadable trace.
 */
#ifndef MEMPLAN_CAPTURE_RECORDER_H
#define MEMPLAN_CAPTURE_RECORDER_H

#include <stddef.h>
#include <stdint.h>

struct recorder;

struct recorder_opts {
	/* Queue length in records, a power of two >= 4096 (0: 65536). */
	size_t queue_records;
	/* How long an event with a correlation id waits in the writer for its
	 * GPU start/end times before it is written without them (0: written
	 * at once; < 0: default 2 s).  Times that come later are not lost:
	 * recorder_close() writes them into the event's row. */
	int64_t hold_ns;
	/* Most events waiting for times at once (0: 65536). */
	size_t hold_max;
	/* Nonzero: record from the start (whole run); else only between
	 * recorder_begin() and recorder_end(). */
	int record_from_start;
};

/* Counters, filled by recorder_close(). */
struct recorder_stats {
	uint64_t records;       /* records that went through the queue */
	uint64_t events;        /* events written */
	uint64_t buffers;       /* buffers written */
	uint64_t accesses;      /* accesses written */
	uint64_t timed;         /* events that got GPU times */
	uint64_t late_times;    /* GPU times that matched no event */
	uint64_t late_patched;  /* events written before their times came,
				 * given them at close */
	uint64_t late_lost;     /* such events not remembered (memory) */
	uint64_t unknown_frees; /* frees of addresses never seen allocated */
	uint64_t missed_frees;  /* allocations replaced without a free */
	uint64_t truncated;     /* argument words or accesses over the limits */
	uint64_t full_waits;    /* times a caller waited on a full queue */
	uint64_t sources;       /* allocations whose source object came */
	uint64_t bypassing;     /* of them, those that bypass the runtime */
};

/*
 * Opens a recorder writing a new trace at path in streaming mode and starts
 * its writer thread.  Returns 0 and *out, or a negative trace_err with a
 * sentence in err.
 */
int recorder_open(struct recorder **out, const char *path,
		  const struct recorder_opts *opts, char *err, size_t errlen);

/*
 * Stops taking records, drains the queue (events still waiting for GPU
 * times are written without them), closes the trace and, when committing,
 * writes the times that came after their events into their rows: commit != 0
 * finishes it (complete = 1), commit == 0 leaves it marked incomplete.
 * Fills *stats when not NULL; frees r.  Returns 0, or a negative trace_err
 * with a sentence in err (the first write error, if any happened).
 */
int recorder_close(struct recorder *r, int commit,
		   struct recorder_stats *stats, char *err, size_t errlen);

/* After fork(), in the child: the writer thread does not exist there, so
 * every later call is ignored. */
void recorder_disable(struct recorder *r);

/* Interns s; returns its id (> 0), or 0 for NULL or out of memory.  Ids
 * name kernels, marks and APIs in the calls below. */
uint32_t recorder_intern(struct recorder *r, const char *s);

/*
 * Starts recording: every allocation live now becomes a persistent buffer
 * (in address order), then a begin mark named name.  Returns 1 if this
 * started recording, 0 if it was already recording or has ended.
 */
int recorder_begin(struct recorder *r, uint32_t name);
/* An end mark named name, then recording stops for good.  1 if it stopped. */
int recorder_end(struct recorder *r, uint32_t name);
/* 0 before begin, 1 while recording, 2 after end or close. */
int recorder_state(const struct recorder *r);

struct recorder_alloc {
	uint64_t addr, size;
	int64_t stream; /* -1 if none */
	uint32_t corr;  /* CUPTI correlation id, 0 if none */
	int32_t device;
	uint8_t kind;   /* enum trace_kind */
	/* The entry point it came through, as allocsource.h's bits: 0 counts
	 * as any one memplan's runtime interposes, RECORDER_NOT_INTERPOSED
	 * is one it never sees (pinned host, managed, pitch, from-pool,
	 * per-thread-stream and driver async, VMM mappings): such a buffer
	 * bypasses the runtime whatever its source, named by api then. */
	uint8_t via;
	uint32_t api;   /* the call's name (recorder_intern), 0 if none */
	uint32_t alias; /* the nested driver call's correlation id, 0 if none */
};
#define RECORDER_NOT_INTERPOSED 0x80

/* An allocation (tracked always, recorded while recording).  One that
 * overlaps live allocations replaces them (their frees were missed). */
void recorder_alloc(struct recorder *r, const struct recorder_alloc *a);
/* A free of the allocation starting at addr; -1 if none is known. */
int recorder_free(struct recorder *r, uint64_t addr, int64_t stream,
		  uint32_t corr);
/* Frees every allocation inside [addr, addr + size) (cuMemUnmap); returns
 * how many. */
int recorder_unmap(struct recorder *r, uint64_t addr, uint64_t size,
		   uint32_t corr);

/*
 * A kernel launch: words are candidate pointer values from its parameters
 * (argscan.h); those that fall inside live allocations become accesses
 * (each buffer once, mode unknown).  truncated counts words the caller
 * could not pass.
 */
void recorder_kernel(struct recorder *r, uint32_t name, int64_t stream,
		     uint32_t corr, const uint64_t *words, size_t nwords,
		     size_t truncated);
/* A copy of bytes from src to dst; kind is an enum trace_copy_kind, and
 * TRACE_COPY_UNKNOWN is worked out from what src and dst point into. */
void recorder_copy(struct recorder *r, uint32_t name, unsigned kind,
		   uint64_t dst, uint64_t src, uint64_t bytes, int64_t stream,
		   uint32_t corr);
void recorder_memset(struct recorder *r, uint32_t name, uint64_t dst,
		     uint64_t bytes, int64_t stream, uint32_t corr);
/* recorder_kernel with aux flags (enum trace_kernel_flags). */
void recorder_launch(struct recorder *r, uint32_t name, int64_t stream,
		     uint32_t corr, unsigned aux, const uint64_t *words,
		     size_t nwords, size_t truncated);
void recorder_sync(struct recorder *r, uint32_t name, int64_t stream);
/* Cross-stream order (enum trace_sync_kind in aux): stream records, or
 * waits for, the CUDA event numbered event (> 0, one number per event). */
void recorder_order(struct recorder *r, uint32_t name, int64_t stream,
		    unsigned aux, uint64_t event);
/* The event recorded with correlation id corr may get its GPU times under
 * alias too (the driver call nested in a runtime call: memset and some
 * copy and kernel records carry the driver's id). */
void recorder_alias(struct recorder *r, uint32_t corr, uint32_t alias);
/* A mark (enum trace_mark_kind) that does not change the recording state. */
void recorder_mark(struct recorder *r, uint32_t name, unsigned aux);
/* GPU start/end (ns) of the event with correlation id corr. */
void recorder_gpu_time(struct recorder *r, uint32_t corr, int64_t start,
		       int64_t end);
/* A meta key/value for the trace (copied). */
/*
 * The shared object that asked for the allocation at addr with correlation
 * id corr (CUPTI's allocation source), and the interposed entry points it
 * names (allocsource_entry_points: bits, -1 unknown).  Joined by address
 * with the live allocation there when corr is its call's or the nested
 * driver call's id (records come late: the address may have been freed and
 * handed out again), else by corr; the buffer bypasses the
 * runtime unless its entry point is one the object names.  May come
 * before the range (kept with the live allocation) or after the
 * allocation is written.
 */
void recorder_source(struct recorder *r, uint32_t corr, uint64_t addr,
		     const char *source, int entry_points);
void recorder_meta(struct recorder *r, const char *key, const char *value);

/*
 * Makes a trace left by a process that died while recording into one
 * self-contained file: checkpoints its WAL into it and leaves rollback
 * journal mode, so it can be renamed and copied alone.  It stays marked
 * incomplete.  Returns 0 or a negative trace_err with a sentence in err.
 */
int recorder_seal(const char *path, char *err, size_t errlen);

#endif
