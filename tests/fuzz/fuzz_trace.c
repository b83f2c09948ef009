/* SPDX-License-Identifier: MIT */
/*
 * fuzz_trace.c - fuzz target for the trace loader: the input bytes become a
 * trace file, which trace_load() must either accept as a valid trace or
 * refuse with an error sentence, never crash or leak.  Seeds are real traces.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracedb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/memplan-fuzz-%ld.trace",
			 (long)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	if (size && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return 0;
	}
	fclose(f);
	struct trace *t = NULL;
	char err[512] = "";
	int rc = trace_load(path, &t, err, sizeof(err));
	if (rc == 0) {
		/* a trace that loads must answer queries consistently */
		uint64_t all = trace_peak(t, TRACE_ALL, NULL);
		uint64_t tr = trace_peak(t, TRACE_TRANSIENT, NULL);
		if (tr > all)
			abort();
		trace_free(t);
	} else if (err[0] == '\0' || !strstr(err, "trace '")) {
		abort(); /* every refusal names the file */
	}
	unlink(path);
	return 0;
}
