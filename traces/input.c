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

/* 1: SQLite, 0: not, or a trace_err (the file cannot be read) */
static int sniff(const char *path, char *err, size_t errlen)
{
	char head[16] = { 0 };
	FILE *f;
	/* a FIFO, a directory or /dev/zero is refused here, not read */
	int rc = trace_open_input(path, "cannot open trace", &f, err, errlen);
	if (rc)
		return rc;
	size_t n = fread(head, 1, sizeof(head), f);
	fclose(f);
	return n == sizeof(head) && memcmp(head, "SQLite format 3", 16) == 0;
}

int input_load(const char *path, struct trace **t, char *err, size_t errlen)
{
	int rc = sniff(path, err, errlen);
	if (rc < 0)
		return rc;
	return rc ? trace_load(path, t, err, errlen)
		  : mmcsv_import(path, t, err, errlen);
}

int input_is_csv(const char *path)
{
	char err[8];
	return sniff(path, err, sizeof(err)) == 0;
}
