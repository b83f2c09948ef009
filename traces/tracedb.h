/* SPDX-License-Identifier: MIT */
/*
 * tracedb.h - the SQLite trace store: the schema of memplan-trace(5), a
 * streaming writer (prepared statements, batched transactions) and a loader
 * that validates everything it reads into a struct trace.
 *
 * A file the writer produces in atomic mode appears under its final name only
 * when trace_writer_close() commits it; until then it is a temporary sibling.
 */
#ifndef MEMPLAN_TRACEDB_H
#define MEMPLAN_TRACEDB_H

#include "trace.h"

struct trace_writer;

enum trace_writer_flags {
	/*
	 * Write to a temporary sibling of path and rename it over path on a
	 * successful close: a failed or abandoned write never leaves a
	 * half-written file where the output was to be.
	 */
	TRACE_WRITE_ATOMIC = 1u << 0,
	/*
	 * Write path itself in WAL mode, committing every batch, so that what
	 * was recorded is readable if the writer's process dies (capture).  The
	 * file is marked incomplete (meta complete = 0) until close.
	 */
	TRACE_WRITE_STREAM = 1u << 1,
};

/*
 * Creates a new trace file at path (replacing one that is there only when it
 * is committed, in atomic mode).  Writes the schema and the schema version.
 * Returns 0 and *out, or a negative trace_err with a sentence in err.
 */
int trace_writer_open(struct trace_writer **out, const char *path,
		      unsigned flags, char *err, size_t errlen);

/* Each append returns 0 or a negative trace_err (sentence in the writer). */
int trace_writer_meta(struct trace_writer *w, const char *key,
		      const char *value);
int trace_writer_buffer(struct trace_writer *w, const struct trace_buffer *b);
/* Records (again, replacing) the allocation source of buffer (trace.h's
 * source and bypass), for writers that learn it after the buffer. */
int trace_writer_buffer_source(struct trace_writer *w, int64_t buffer,
			       const char *source, int bypass);
int trace_writer_event(struct trace_writer *w, const struct trace_event *e);
int trace_writer_access(struct trace_writer *w, int64_t seq, int64_t buffer,
			unsigned mode);
int trace_writer_hole(struct trace_writer *w, const struct trace_hole *h);

/*
 * Commits what was appended so far (it becomes readable by others, and
 * survives the writer's process dying, in stream mode) and opens the next
 * transaction; the writer otherwise commits every few hundred thousand
 * rows.  Cheap when nothing is pending.  Returns 0 or a negative trace_err.
 */
int trace_writer_commit(struct trace_writer *w);

/* The last error sentence of w. */
const char *trace_writer_error(const struct trace_writer *w);

/*
 * commit != 0: finishes the file (meta complete = 1, final transaction,
 * rename in atomic mode).  commit == 0: abandons it (the temporary file is
 * removed in atomic mode).  Frees w either way.  Returns 0 or a negative
 * trace_err with the sentence in err.
 */
int trace_writer_close(struct trace_writer *w, int commit, char *err,
		       size_t errlen);

/* Writes a whole (finished) trace to path atomically. */
int trace_save(const struct trace *t, const char *path, char *err,
	       size_t errlen);

/*
 * Opens path read-only, checks the schema version (an older one is migrated
 * in memory, a newer one refused with TRACE_EVERSION), reads every table and
 * validates it with trace_finish().  Errors name the file, and the table, row
 * and field where there is one.  On success *out is a finished trace the
 * caller frees with trace_free().
 */
int trace_load(const char *path, struct trace **out, char *err, size_t errlen);

/*
 * Whether name is an ordinary table of the SQLite database db: 1 if it is,
 * 0 if there is no such name, and TRACE_EFORMAT (or TRACE_ENOMEM) with a
 * sentence in err when the lookup fails or the name is a view or a virtual
 * table.  Every reader of an SQLite file asks this before it reads a table:
 * a view can be an endless recursive query, and reading it would hang.
 */
struct sqlite3;

/*
 * The part of trace_load() that analyze's streaming reader (analyze/scan.c)
 * shares, so that both judge a file by the same checks: reads the tables
 * meta (its schema version into *version, a newer one refused), buffers,
 * names (into *names, ids 1..*nnames; the caller frees the array, the
 * strings are t's) and holes of db, the open file path, into t.  Returns 0
 * or a negative trace_err with the loader's sentence in err.
 */
int tracedb_load_head(struct sqlite3 *db, const char *path, struct trace *t,
		      int *version, const char ***names, size_t *nnames,
		      char *err, size_t errlen);

/*
 * Opens the SQLite file path read-only for reading a trace or an export,
 * *db as sqlite3_open_v2() gives it (close it even on failure).  A file in
 * WAL mode without a -wal file beside it (a finished capture copied, or one
 * whose writer checkpointed) is opened immutable, so that reading it leaves
 * no -wal or -shm file behind; with one (a capture that died, or one being
 * written), normally, since its last batches live there.  Returns an SQLite
 * result code.
 */
int tracedb_open_readonly(const char *path, struct sqlite3 **db);

int tracedb_check_table(struct sqlite3 *db, const char *name, char *err,
			size_t errlen);

#endif
