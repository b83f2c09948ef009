/* SPDX-License-Identifier: MIT */
/*
 * input.c - a planner input from either of its two formats (input.h).  The
 * format is decided by the first 16 bytes only, so a damaged trace still
 * reaches trace_load() and gets its error rather than a CSV parser's.
 */
#include "input.h"

#include <stdio.h>
#include <string.h>

#include "minimalloc_csv.h"
#include "tracedb.h"

int input_load(const char *path, struct trace **t, char *err, size_t errlen)
{
	char head[16] = { 0 };
	FILE *f;
	/* a FIFO, a directory or /dev/zero is refused here, not read */
	int rc = trace_open_input(path, "cannot open trace", &f, err, errlen);
	if (rc)
		return rc;
	size_t n = fread(head, 1, sizeof(head), f);
	fclose(f);
	int sqlite = n == sizeof(head) &&
		     memcmp(head, "SQLite format 3", 16) == 0;
	return sqlite ? trace_load(path, t, err, errlen)
		      : mmcsv_import(path, t, err, errlen);
}
