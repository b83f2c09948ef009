/* SPDX-License-Identifier: MIT */
/*
 * input.h - what every command accepts as a trace: a memplan trace (SQLite)
 * or a MiniMalloc CSV, told apart by the SQLite header, so that the planner,
 * the analyses and memplan-trace take either where they take a TRACE.
 */
#ifndef MEMPLAN_INPUT_H
#define MEMPLAN_INPUT_H

#include <stddef.h>

#include "trace.h"

/*
 * Loads the trace at path into *t (owned by the caller, trace_free()): with
 * mmcsv_import() when its first line holds a comma (a CSV header row), else
 * with trace_load() (which says what is wrong with a file that is neither).
 * Non-regular files are refused before any read.  Returns 0, or a
 * trace_err with a sentence in err.
 */
int input_load(const char *path, struct trace **t, char *err, size_t errlen);

/*
 * 1 when path opens as a regular file, does not start with the SQLite
 * header and its first line holds a comma (a CSV header row), so that
 * input_load() reads it as a MiniMalloc CSV; else 0 (a trace, or a file
 * trace_load() refuses with its own error).
 */
int input_is_csv(const char *path);

#endif
