/* SPDX-License-Identifier: MIT */
/*
 * fuzz_scan.c - fuzz target for memplan-analyze's streaming reader
 * (analyze/scan.c): the input bytes become a trace file.  Whatever the scan
 * accepts, the full loader must accept too, and the reports of both must
 * agree on the peak, the lower bound, the live set, the swappable room and
 * the allocator models; anything else the scan must hand to the loader.
 * Never a crash or a leak.  Seeds are real traces.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../analyze/report.h"
#include "../../analyze/scan.h"
#include "tracedb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const struct report *a, const struct report *b)
{
	if (a->peak != b->peak || a->peak_at != b->peak_at ||
	    a->lower_bound != b->lower_bound || a->nlive != b->nlive ||
	    a->idle_bytes != b->idle_bytes || a->gap_ns_median != b->gap_ns_median ||
	    a->nevents != b->nevents || a->naccesses != b->naccesses)
		abort();
	for (unsigned m = 0; m < ALLOCSIM_COUNT; m++)
		if (a->alloc[m].reserved_peak != b->alloc[m].reserved_peak)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/memplan-fuzz-scan-%ld.trace",
			 (long)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	if (size && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return 0;
	}
	fclose(f);
	struct trace *lean = NULL, *whole = NULL;
	struct report_digest d;
	char err[512] = "";
	int rc = scan_trace(path, &lean, &d, NULL, err, sizeof(err));
	if (rc == 0) {
		if (trace_load(path, &whole, err, sizeof(err)) != 0)
			abort(); /* the stream took what the loader refuses */
		struct report a, b;
		int ra = report_build(lean, &d, REPORT_ALL_ALLOCATORS, &a, err, sizeof(err));
		int rb = report_build(whole, NULL, REPORT_ALL_ALLOCATORS, &b, err, sizeof(err));
		if (ra == 0 && rb == 0)
			same(&a, &b);
		else if ((ra == 0) != (rb == 0) && ra != TRACE_EINVAL)
			abort();
		if (ra == 0)
			report_free(&a);
		if (rb == 0)
			report_free(&b);
		trace_free(whole);
		trace_free(lean);
		scan_digest_free(&d);
	} else if (rc != SCAN_LOAD_WHOLE && rc != TRACE_ENOMEM) {
		abort();
	}
	unlink(path);
	return 0;
}
