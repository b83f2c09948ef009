/* SPDX-License-Identifier: MIT */
/*
 * timeline.h - memory over one iteration, stacked by group (kind, role or
 * label group), ready to draw: `memplan-analyze timeline` writes it as SVG
 * (timeline_svg.c) or as a standalone HTML page (timeline_html.c).
 *
 * Invariant: the size of a drawing never grows with the trace.  At most
 * TIMELINE_MAX_GROUPS areas (the rest summed into "other"), at most
 * max_points steps (finer steps are merged keeping, in each column, the
 * moment of most memory, so the peak is drawn exactly), and at most
 * max_buffers buffers listed for hovering.
 */
#ifndef MEMPLAN_TIMELINE_H
#define MEMPLAN_TIMELINE_H

#include <stdio.h>

#include "trace.h"

#define TIMELINE_MAX_GROUPS 64
/* memplan-analyze timeline reads a trace of up to this many events whole,
 * for its kernel and NVTX lanes; a larger one streams, without lanes */
#define TIMELINE_WHOLE_EVENTS 4000000

enum timeline_by { TIMELINE_BY_KIND = 0, TIMELINE_BY_ROLE, TIMELINE_BY_LABEL };

enum timeline_axis {
	TIMELINE_AXIS_SEQ = 0,  /* event sequence numbers */
	TIMELINE_AXIS_NS = 1,   /* GPU timestamps, ns */
	TIMELINE_AXIS_TIME = 2, /* the trace's own time clock (imports: abstract units) */
};

#define TIMELINE_KEY_OTHER UINT32_MAX
#define TIMELINE_LABEL_COLORS 20 /* the label groups' palette */
#define TIMELINE_MAX_ITERS 1000  /* iteration starts marked, the first */

struct timeline_group {
	char *name;          /* owned */
	uint64_t max_bytes;  /* most bytes it held at once */
	uint64_t at_peak;    /* bytes it held at the total's peak */
	/* what its colour follows, the same in every chart: the kind or role
	 * code, a label group's palette slot (from a hash of its name, moved
	 * on when a larger group holds it), TIMELINE_KEY_OTHER */
	uint32_t key;
};

/* A buffer listed for hovering: one of the largest. */
struct timeline_buffer {
	int64_t id;
	uint64_t size;
	int64_t x0, x1; /* on the axis: from its alloc to its free */
	uint32_t group;
};

/*
 * A bar of a lane under the plot: kernels binned into runs of columns
 * (count kernels, name the first's), or one NVTX range (count 1) at its
 * nesting depth.  name is interned in the trace, or NULL.
 */
struct timeline_span {
	int64_t x0, x1;
	const char *name;
	uint32_t count, depth;
};

#define TIMELINE_MAX_RANGES 400 /* NVTX ranges drawn, the outermost first */
#define TIMELINE_RANGE_DEPTHS 3 /* nesting levels drawn */

struct timeline {
	enum timeline_by by;
	enum timeline_axis axis;
	int64_t x_min, x_max;
	struct timeline_group *groups; /* drawn bottom up; "other" last if any */
	size_t ngroups;
	int has_other;
	/* the steps: from x[p] to x[p+1] group g holds y[p * ngroups + g] */
	int64_t *x;
	uint64_t *y;
	size_t npoints;
	uint64_t peak;
	int64_t peak_x;
	struct timeline_buffer *buffers; /* by group, then x0 */
	size_t nbuffers;
	size_t nbuffers_total; /* every buffer with a non-empty lifetime */
	/* what the allocator model (allocator >= 0) reserves from the device:
	 * from rx[k] to rx[k+1] it holds ry[k] bytes, the most in each column */
	int allocator; /* enum allocsim_model, or -1: none drawn */
	int64_t *rx;
	uint64_t *ry;
	size_t nreserved;
	uint64_t reserved_peak;
	/* the lanes: kernels and NVTX ranges, where the trace has them */
	struct timeline_span *kernels;
	size_t nkernels;
	struct timeline_span *ranges;
	size_t nranges;
	uint32_t range_depths; /* levels present, 0..TIMELINE_RANGE_DEPTHS */
	/* where iterations 1, 2, ... start, when the requests repeat */
	int64_t *iters;
	size_t niters;
	/* pinned host memory is never drawn (the plot is the device's):
	 * its most at once, for the subtitle */
	uint64_t host_peak;
};

struct timeline_opts {
	enum timeline_by by;
	size_t top;         /* groups drawn by name (1..TIMELINE_MAX_GROUPS - 1) */
	size_t max_points;  /* steps at most (>= 16) */
	size_t max_buffers; /* listed for hovering */
	int allocator;      /* enum allocsim_model whose reserved bytes are
			     * drawn, or -1 for none */
};

struct report_digest;

/*
 * Builds the timeline of t (finished).  d is NULL for a trace held whole;
 * for a streamed one (scan.h) it gives the span of all the events, which
 * the lean trace no longer holds.  Returns 0, or a negative trace_err with
 * a sentence in err; tl is then empty and safe to free.
 */
int timeline_build(const struct trace *t, const struct report_digest *d,
		   const struct timeline_opts *o, struct timeline *tl,
		   char *err, size_t errlen);
void timeline_free(struct timeline *tl);

/* The grouping a reader gets without --by: role when some device buffer
 * has one; else label when some buffer has one (a PyTorch snapshot, an
 * Nsight export: every role unknown); else kind. */
enum timeline_by timeline_by_auto(const struct trace *t);

/* "kind", "role", "label"; and back (-1 if unknown). */
const char *timeline_by_name(enum timeline_by by);
int timeline_by_from_name(const char *s);

/* The colour of group g ("#rrggbb"): fixed per kind and per role, a hash
 * of the name for label groups, grey for "other" (timeline_svg.c). */
const char *timeline_color(const struct timeline *tl, size_t g);

/* Whether x labels count from the first event: on the ns axis, and on a
 * clock far from 0 (epoch times) (timeline_svg.c). */
int timeline_x_relative(const struct timeline *tl);

/* Axis units per x label unit, and the unit's name ("ns", "us", "ms", "s"
 * on the ns axis, chosen by the span; "" elsewhere) (timeline_svg.c). */
double timeline_x_unit(const struct timeline *tl, const char **name);

/* Index of the step holding x (the last p with x[p] <= x), 0 before all. */
size_t timeline_step_at(const struct timeline *tl, int64_t x);

/* Where the plot sits in the picture, in SVG user units (timeline_svg.c). */
struct timeline_frame {
	double width, height;             /* the whole picture */
	double left, top, plot_w, plot_h; /* the plot area */
	uint64_t y_max;                   /* bytes at the top of the plot */
	double lanes_top, lanes_h;        /* kernel and NVTX lanes (0: none) */
};
void timeline_frame(const struct timeline *tl, struct timeline_frame *fr);

/*
 * Writes the picture as one <svg> element; with prolog, as a standalone
 * SVG file (XML declaration first).  Every group is one <path class="area">.
 */
int timeline_svg(FILE *f, const struct trace *t, const struct timeline *tl,
		 const char *title, int prolog);

/*
 * The drawings.  title heads the picture (the trace's name); labels are
 * read from t.  Return 0 or -1 on a write error.
 */
int timeline_write_svg(FILE *f, const struct trace *t,
		       const struct timeline *tl, const char *title);
int timeline_write_html(FILE *f, const struct trace *t,
			const struct timeline *tl, const char *title);

#endif
