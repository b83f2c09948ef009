/* SPDX-License-Identifier: MIT */
/*
 * detect.h - what an outside file is, for `memplan-trace import` without
 * --from: an nsys SQLite export, a PyTorch snapshot pickle, a PyTorch
 * execution trace (JSON, plain, gzipped or in a tar) or a MiniMalloc CSV,
 * told by its first bytes and, for SQLite, its tables.  Reads at most 64 KiB.
 */
#ifndef MEMPLAN_DETECT_H
#define MEMPLAN_DETECT_H

#include <stddef.h>

/*
 * Sets *format to "nsys-sqlite", "pytorch-snapshot", "pytorch-et" or
 * "minimalloc-csv" and why to the phrase that says what was seen; returns
 * 0.  A file that is none of them (a memplan trace, a profiler trace alone,
 * a Chrome array, anything else): TRACE_EFORMAT, with a sentence that says
 * what it looks like and what to give instead; TRACE_EIO when it cannot be
 * read.  err holds the sentence.
 */
int import_detect(const char *path, const char **format, char *why, size_t whylen,
		  char *err, size_t errlen);

#endif
