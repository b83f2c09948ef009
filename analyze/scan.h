/* SPDX-License-Identifier: MIT */
/*
 * scan.h - reads a trace for the reports without holding its events: the
 * buffers, holes and allocs and frees go into a lean struct trace (what the
 * peak, the allocator models and diff need), while kernels, copies and
 * accesses stream past once and leave only a digest (report.h): counts,
 * span, and each buffer's uses around the peak.  Memory grows with the
 * buffers, not with the events: a 10^7-event trace is summarised in a
 * fraction of what loading it would take.
 *
 * The full loader (tracedb.h) stays the one judge of validity: whenever the
 * stream meets anything it does not expect (a field of the wrong type, an
 * order it cannot stream, an invalid trace), the scan gives up and asks its
 * caller to load the trace whole, which then reports the exact error.
 */
#ifndef MEMPLAN_SCAN_H
#define MEMPLAN_SCAN_H

#include "report.h"

/* scan_trace()'s answer when the trace must be loaded whole instead. */
#define SCAN_LOAD_WHOLE 1

/*
 * Reads path into a lean trace (*out, finished, freed with trace_free())
 * and fills d (freed with scan_digest_free()).  Returns 0; SCAN_LOAD_WHOLE
 * when the trace cannot be streamed or is not valid (nothing is allocated
 * then); or TRACE_ENOMEM with a sentence in err.  progress, when not NULL, is
 * called now and then with the fraction done (0 to 1).
 */
int scan_trace(const char *path, struct trace **out, struct report_digest *d,
	       void (*progress)(double done), char *err, size_t errlen);
void scan_digest_free(struct report_digest *d);

#endif
