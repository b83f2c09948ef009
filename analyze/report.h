/* SPDX-License-Identifier: MIT */
/*
 * report.h - the figures of `memplan-analyze summary`: where the memory of
 * one iteration goes.  Peak and lower bound, persistent and transient bytes,
 * a size histogram, what is live at the peak (grouped by kind, role and
 * label), the swappable room (bytes live across the peak that sit idle
 * there), the swap floor (swapfloor.h: what any swap plan must keep
 * resident) and what real allocators would reserve (allocsim.h).
 *
 * check and diff read the same figures, so a limit and a report never
 * disagree.  report_print.c renders them as text or JSON.
 */
#ifndef MEMPLAN_REPORT_H
#define MEMPLAN_REPORT_H

#include <stdio.h>

#include "allocsim.h"
#include "swapfloor.h"
#include "trace.h"

#define REPORT_HIST_BUCKETS 64 /* bucket k: sizes in [2^k, 2^(k+1)) */

/* One buffer live at the peak. */
struct report_live {
	int64_t buffer;
	uint64_t bytes;    /* resident at the peak (size less any hole) */
	int idle;          /* not used at the peak itself; 0 unless r->idle_known */
	int64_t last_use;  /* clock of the last use at or before the peak; INT64_MIN: none */
	int64_t next_use;  /* clock of the first use after it; INT64_MAX: none */
	int64_t gap;       /* next_use - last_use on the trace clock, the
			    * iteration's first and last events standing in
			    * for a missing use */
	int64_t gap_ns;    /* from the end of the last use to the start of the
			    * next, in ns; -1 when timestamps are missing or the
			    * clock is already time */
};

struct report_group {
	const char *name; /* owned by the report for label groups */
	uint64_t bytes;
	size_t count;
};

/*
 * What a loader that streams the events instead of keeping them (scan.h)
 * gathered for the report: counts and span of the whole trace, and for each
 * buffer its uses around the clock value `at`.
 */
struct report_digest {
	size_t nevents, naccesses;
	size_t by_type[TRACE_EV_COUNT];
	int64_t seq_first, seq_last;
	int64_t time_first, time_last; /* TRACE_TIME_NONE without timestamps */
	int64_t at;
	int64_t *last, *next;     /* per buffer, as in struct report_live */
	int64_t *last_t, *next_t; /* end of the last use, start of the next; TRACE_TIME_NONE */
	uint8_t *multi; /* per buffer: used on more than one stream
			 * (trace_buffer_streams(), which needs the uses) */
};

struct report {
	enum trace_clock clock;
	size_t nbuffers, npersistent, ntransient;
	uint64_t persistent_bytes, transient_bytes;
	size_t nevents, naccesses, nholes;
	size_t by_type[TRACE_EV_COUNT];
	int64_t seq_first, seq_last;
	int64_t time_first, time_last; /* TRACE_TIME_NONE without timestamps */

	uint64_t peak;        /* most live device bytes (holes subtracted) */
	int64_t peak_at;      /* clock value where first reached */
	int64_t peak_seq;     /* the alloc event there; INT64_MIN if none */
	int64_t peak_time;    /* its timestamp, TRACE_TIME_NONE */
	int64_t peak_buffer;  /* the buffer it allocates, TRACE_NONE */
	uint64_t lower_bound; /* peak of the transient buffers alone */
	int64_t lower_bound_at;
	uint64_t host_peak;   /* peak of pinned host buffers, apart */

	struct {
		size_t count;
		uint64_t bytes;
	} hist[REPORT_HIST_BUCKETS];

	struct report_live *live; /* live at the peak, most bytes first */
	size_t nlive;
	struct report_group by_kind[TRACE_KIND_COUNT];
	struct report_group by_role[TRACE_ROLE_COUNT];
	struct report_group *by_label; /* most bytes first */
	size_t nlabel;

	/* the swappable room; known only where the trace records accesses
	 * (an import has none: alloc to free would all look idle) */
	int idle_known;
	char idle_why[160]; /* why not, when !idle_known */
	uint64_t idle_bytes;
	size_t idle_count;
	int64_t gap_min, gap_median, gap_max; /* clock units; median weighted by bytes */
	int64_t gap_ns_min, gap_ns_median, gap_ns_max; /* -1 without timestamps */

	/* the swap floor; not computed from a streamed trace (d != NULL) */
	struct swap_floor floor;

	/* a trace of host memory (meta memory=host or device cpu: the ET
	 * importer's CPU tensors): its buffers are labelled host and no CUDA
	 * allocator model is run (allocators stays 0) */
	int host_memory;
	unsigned allocators; /* bit m set: alloc[m] was computed */
	struct allocsim_result alloc[ALLOCSIM_COUNT];
	/* the reserved peak the allocator itself recorded (a PyTorch
	 * snapshot's pytorch.reserved_peak_bytes); -1 when the trace has none */
	int64_t recorded_reserved;
};

#define REPORT_ALL_ALLOCATORS ((1u << ALLOCSIM_COUNT) - 1)

/*
 * Computes every figure of t (finished) into r, running the allocator models
 * whose bits are set in allocators.  d is NULL for a trace held whole; a
 * streamed one passes what its loader gathered (d->at must be the peak's
 * clock value).  Returns 0, or a negative trace_err with a sentence in err;
 * r is then empty but may be passed to report_free().
 */
int report_build(const struct trace *t, const struct report_digest *d,
		 unsigned allocators, struct report *r, char *err,
		 size_t errlen);
void report_free(struct report *r);

/*
 * The label group of a label: up to and including its first all-digit
 * component (a layer: "transformer.h.9", "layer1.0"), else its first
 * component ("conv1"); "(none)" without a label.  Writes into buf.
 */
const char *report_label_group(const char *label, char *buf, size_t len);

/* Reserved peak over live bytes at it, and over the live peak (>= 1). */
double report_fragmentation(const struct allocsim_result *a);
double report_reserved_over_peak(const struct allocsim_result *a);
/* The PyTorch model's reserved peak over the recorded one, less 1 (+0.08:
 * the model is 8% high); NAN when either is missing. */
double report_model_error(const struct report *r);

/*
 * Renderings (report_print.c).  top: how many buffers and groups to list,
 * 0 for all.  Labels are read from t.  Return 0 or -1 on a write error.
 */
int report_print_text(FILE *f, const char *path, const struct trace *t,
		      const struct report *r, size_t top);
int report_print_json(FILE *f, const char *path, const struct trace *t,
		      const struct report *r, size_t top);

#endif
