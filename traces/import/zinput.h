/* SPDX-License-Identifier: MIT */
/*
 * zinput.h - an outside file read as a byte stream whatever its wrapping:
 * plain, gzip, or a (gzipped) tar archive, as PyTorch's profiler traces are
 * shipped: its one file, leaving out macOS resource forks ("._x") and, beside
 * one JSON file, anything else (PyTorch 2's generated kernels' .py); of the
 * JSON files of several ranks, the one asked for.  The JSON importers read
 * through it; nothing is held in memory beyond a buffer.
 */
#ifndef MEMPLAN_ZINPUT_H
#define MEMPLAN_ZINPUT_H

#include <stddef.h>
#include <stdint.h>

struct zinput; /* opaque */

/*
 * Opens path (a regular file only) and looks through its wrapping.  what
 * names the file in messages ("execution trace": "cannot read
 * execution trace 'x': ...").  Returns 0 and *out, or
 * TRACE_EIO / TRACE_EFORMAT / TRACE_ENOMEM with one sentence in err.
 */
int zin_open(const char *path, const char *what, struct zinput **out,
	     char *err, size_t errlen);

#define ZIN_ANY_RANK (-1)

/*
 * The same, and in a tar of several ranks' JSON files (names with "rank3",
 * "rank_3", "rank-3") the one of rank rank.  Several ranks and ZIN_ANY_RANK,
 * or a rank that is not there, or a rank for a file that is no archive:
 * TRACE_EINVAL, naming the files.
 */
int zin_open_rank(const char *path, const char *what, long rank, struct zinput **out,
		  char *err, size_t errlen);

/* The archive member read ("" when the file is no archive). */
const char *zin_member(const struct zinput *z);

/* Reads up to n bytes of the content; the count (0 at its end) or -1, with
 * the reason in zin_error().  Fits json_read_fn. */
long zin_read(void *zin, uint8_t *buf, size_t n);

/* Why the last zin_read() failed. */
const char *zin_error(const struct zinput *z);

/* "gzip", "tar.gz", "tar" or "plain": the wrapping found. */
const char *zin_wrapping(const struct zinput *z);

/*
 * After the content was read to its end.  0 (the archive was checked whole
 * when it was opened), or TRACE_EFORMAT with the sentence in err.
 */
int zin_finish(struct zinput *z, char *err, size_t errlen);

void zin_close(struct zinput *z);

#endif
