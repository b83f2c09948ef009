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

enum { SQLITE = 1, CSV = 0, NEITHER = 2 };

/*
 * SQLITE, CSV (the first line, within 4 KiB, holds a comma: a header row),
 * NEITHER, or a trace_err (the file cannot be read).
 */
static int sniff(const char *path, char *err, size_t errlen)
{
	char head[4096];
	FILE *f;
	/* a FIFO, a directory or /dev/zero is refused here, not read */
	int rc = trace_open_input(path, "cannot open trace", &f, err, errlen);
	if (rc)
		return rc;
	size_t n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n >= 16 && memcmp(head, "SQLite format 3", 16) == 0)
		return SQLITE;
	const char *nl = memchr(head, '\n', n);
	size_t line = nl ? (size_t)(nl - head) : n;
	return memchr(head, ',', line) ? CSV : NEITHER;
}

int input_load(const char *path, struct trace **t, char *err, size_t errlen)
{
	int rc = sniff(path, err, errlen);
	if (rc < 0)
		return rc;
	if (rc == CSV)
		return mmcsv_import(path, t, err, errlen);
	/* SQLite, or neither: the trace reader says what is wrong */
	int kind = rc;
	rc = trace_load(path, t, err, errlen);
	if (rc == TRACE_EFORMAT && kind == NEITHER) {
		size_t k = strlen(err);
		if (k + 1 < errlen)
			snprintf(err + k, errlen - k, " (nor a MiniMalloc CSV: its first line has no comma)");
	}
	return rc;
}

int input_is_csv(const char *path)
{
	char err[8];
	return sniff(path, err, sizeof(err)) == CSV;
}
