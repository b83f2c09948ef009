/* SPDX-License-Identifier: MIT */
/*
 * minimalloc_csv.h - MiniMalloc's public CSV format (header row, columns by
 * name: id, lower, upper, size, optional alignment, offset, gaps) to and from
 * a trace.  Import then export reproduces a canonical file byte for byte.
 */
#ifndef MEMPLAN_MINIMALLOC_CSV_H
#define MEMPLAN_MINIMALLOC_CSV_H

#include <stdio.h>

#include "trace.h"

/*
 * Parses data (len bytes; need not be NUL-terminated) read from the file
 * called name into a new finished trace on the time clock.  Errors are one
 * sentence "'name':LINE: field F: ..." in err and TRACE_EFORMAT
 * (or TRACE_ENOMEM); *out is untouched on failure.
 */
int mmcsv_parse(const char *name, const char *data, size_t len,
		struct trace **out, char *err, size_t errlen);

/* Reads and parses the file at path (TRACE_EIO if it cannot be read). */
int mmcsv_import(const char *path, struct trace **out, char *err,
		 size_t errlen);

/*
 * Writes a finished trace as MiniMalloc CSV to f.  Imported traces keep their
 * ids and times; any other trace uses buffer ids and its clock (sequence
 * numbers unless the clock is time).  Returns 0, TRACE_EIO on a write
 * error, or TRACE_EINVAL for an unfinished trace or a label that cannot be
 * a CSV id (comma, newline), with a sentence in err.
 */
int mmcsv_export(const struct trace *t, FILE *f, char *err, size_t errlen);

#endif
