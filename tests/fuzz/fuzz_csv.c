/* SPDX-License-Identifier: MIT */
/*
 * fuzz_csv.c - fuzz target for the MiniMalloc CSV reader: any input either
 * fails cleanly or imports, exports and re-imports to a trace with the same
 * buffer count and peak, whose export is the same text (a fixed point).
 * Run by tests/fuzz/driver.c or by libFuzzer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minimalloc_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The export of t in a malloc'd buffer; aborts if it fails. */
static char *export(const struct trace *t, size_t *len)
{
	char err[512], *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		abort();
	int rc = mmcsv_export(t, f, err, sizeof(err));
	if (fclose(f) != 0 || rc != 0)
		abort(); /* an imported trace must always export */
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct trace *t = NULL, *u = NULL;
	if (mmcsv_parse("fuzz.csv", (const char *)data, size, &t, err,
			sizeof(err)) != 0)
		return 0;

	size_t len = 0, len2 = 0;
	char *buf = export(t, &len);
	if (mmcsv_parse("fuzz-export.csv", buf, len, &u, err, sizeof(err)) != 0)
		abort(); /* and its export must import again */
	if (u->nbuffers != t->nbuffers || u->nholes != t->nholes ||
	    trace_peak(u, TRACE_ALL, NULL) != trace_peak(t, TRACE_ALL, NULL))
		abort();
	char *buf2 = export(u, &len2);
	if (len2 != len || memcmp(buf, buf2, len) != 0)
		abort();

	free(buf2);
	free(buf);
	trace_free(u);
	trace_free(t);
	return 0;
}
