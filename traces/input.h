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

/*
 * What a file given in the wrong place is, from its first bytes (64 KiB at
 * most): "plan" (a memplan plan), "trace" (a memplan trace), "nsys-sqlite",
 * "pytorch-snapshot", "pytorch-et", "kineto" (a profiler trace alone),
 * "minimalloc-csv", or NULL when none of these or unreadable.
 */
const char *input_kind(const char *path);

/*
 * For a file that could not be read where a command wanted a TRACE (want
 * "trace") or a PLAN (want "plan"), err holding why: appends "; this looks
 * like ...: <the command that makes the right file>" to err (errlen bytes)
 * when input_kind() knows the file and it is not what was wanted, and
 * returns 1; else leaves err as it is and returns 0.
 */
int input_explain(const char *path, const char *want, char *err, size_t errlen);

#endif
