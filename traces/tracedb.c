/* SPDX-License-Identifier: MIT */
/*
 * tracedb.c - the SQLite store behind memplan-trace(5): schema, writer and
 * validating loader.  The writer keeps one transaction open per batch and
 * reuses prepared statements; the loader trusts nothing in the file: every
 * field is type-checked here and the model is checked by trace_finish().
 *
 * Design note: kernel and mark names repeat (a few hundred distinct names in
 * a million events), so events reference a names table instead of holding
 * text; kinds and types are small integers with lookup tables in the file
 * for people who query it with sqlite3.
 */
#include "tracedb.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#define BATCH_ROWS 200000

static const char schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);"
	"CREATE TABLE buffers(id INTEGER PRIMARY KEY, size INTEGER NOT NULL,"
	" rounded INTEGER NOT NULL, kind INTEGER NOT NULL, role INTEGER NOT NULL,"
	" device INTEGER NOT NULL, stream INTEGER, addr INTEGER,"
	" align INTEGER NOT NULL, fixed_offset INTEGER, label TEXT);"
	"CREATE TABLE names(id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
	"CREATE TABLE buffer_stacks(buffer INTEGER PRIMARY KEY,"
	" stack INTEGER NOT NULL);"
	"CREATE TABLE buffer_sources(buffer INTEGER PRIMARY KEY,"
	" source INTEGER NOT NULL, bypass INTEGER NOT NULL);"
	"CREATE TABLE events(seq INTEGER NOT NULL, type INTEGER NOT NULL,"
	" buffer INTEGER, stream INTEGER, t_start INTEGER, t_end INTEGER,"
	" bytes INTEGER, flops INTEGER, aux INTEGER NOT NULL, name INTEGER);"
	"CREATE TABLE accesses(seq INTEGER NOT NULL, buffer INTEGER NOT NULL,"
	" mode INTEGER NOT NULL);"
	"CREATE TABLE holes(buffer INTEGER NOT NULL, lower INTEGER NOT NULL,"
	" upper INTEGER NOT NULL, win_lo INTEGER, win_hi INTEGER);"
	"CREATE TABLE event_types(code INTEGER PRIMARY KEY, name TEXT NOT NULL);"
	"CREATE TABLE buffer_kinds(code INTEGER PRIMARY KEY, name TEXT NOT NULL);"
	"CREATE TABLE buffer_roles(code INTEGER PRIMARY KEY, name TEXT NOT NULL);"
	"CREATE TABLE copy_kinds(code INTEGER PRIMARY KEY, name TEXT NOT NULL);"
	"CREATE TABLE access_modes(code INTEGER PRIMARY KEY, name TEXT NOT NULL);"
	"CREATE VIEW events_named AS SELECT e.seq, t.name AS type, e.buffer,"
	" e.stream, e.t_start, e.t_end, e.bytes, e.flops, e.aux, n.name AS name"
	" FROM events e JOIN event_types t ON t.code = e.type"
	" LEFT JOIN names n ON n.id = e.name;";

/* --- errors ------------------------------------------------------------ */


/* --- writer ------------------------------------------------------------ */

struct name_slot {
	char *name;
	int64_t id;
};

/*
 * Rows of the two big tables are inserted GROUP at a time with one
 * multi-row statement: stepping a statement costs more than binding, so
 * this about doubles the ingest rate.
 */
#define GROUP 64
#define MAXCOLS 10

struct rowbatch {
	sqlite3_stmt *one, *many;
	int ncols, nrows;
	int64_t v[GROUP * MAXCOLS];
	uint8_t null[GROUP * MAXCOLS];
};

struct trace_writer {
	sqlite3 *db;
	struct rowbatch events, accesses;
	char *path;     /* final name */
	char *tmppath;  /* where we write (== path in stream mode) */
	unsigned flags;
	sqlite3_stmt *ins_meta, *ins_buffer, *ins_hole, *ins_name, *ins_stack;
	sqlite3_stmt *ins_source;
	size_t batch; /* rows in the open transaction */
	struct name_slot *names;
	size_t nslots, nnames;
	char err[512];
};

static int werr(struct trace_writer *w, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return code;
}

static int wsql(struct trace_writer *w, int rc, const char *what)
{
	if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW)
		return 0;
	return werr(w, rc == SQLITE_NOMEM ? TRACE_ENOMEM : TRACE_EIO,
		    "cannot write trace '%s': %s: %s", w->path, what,
		    sqlite3_errmsg(w->db));
}

static int wexec(struct trace_writer *w, const char *sql)
{
	return wsql(w, sqlite3_exec(w->db, sql, NULL, NULL, NULL), sql);
}

static int rb_flush(struct trace_writer *w, struct rowbatch *rb);

/* Flushes the grouped rows, commits and opens the next transaction. */
static int wcommit(struct trace_writer *w)
{
	int rc;
	w->batch = 0;
	if ((rc = rb_flush(w, &w->events)) || (rc = rb_flush(w, &w->accesses)) ||
	    (rc = wexec(w, "COMMIT")))
		return rc;
	return wexec(w, "BEGIN");
}

/* Counts n rows into the open transaction; past BATCH_ROWS, commits, so a
 * crash leaves a consistent prefix. */
static int wcount(struct trace_writer *w, size_t n)
{
	w->batch += n;
	return w->batch < BATCH_ROWS ? 0 : wcommit(w);
}

int trace_writer_commit(struct trace_writer *w)
{
	if (w->batch == 0 && w->events.nrows == 0 && w->accesses.nrows == 0)
		return 0;
	return wcommit(w);
}

static int wstep(struct trace_writer *w, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st); /* every column is bound again on the next row */
	if (rc != SQLITE_DONE)
		return wsql(w, rc, what);
	return wcount(w, 1);
}

static int rb_prepare(struct trace_writer *w, struct rowbatch *rb,
		      const char *table, int ncols)
{
	char sql[GROUP * (MAXCOLS * 2 + 4) + 64];
	int n = snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES", table);
	for (int r = 0; r < GROUP; r++) {
		n += snprintf(sql + n, sizeof(sql) - (size_t)n, "%s(", r ? "," : "");
		for (int c = 0; c < ncols; c++)
			n += snprintf(sql + n, sizeof(sql) - (size_t)n, "%s?",
				      c ? "," : "");
		n += snprintf(sql + n, sizeof(sql) - (size_t)n, ")");
		if (r == 0) {
			int rc = wsql(w, sqlite3_prepare_v2(w->db, sql, -1, &rb->one, NULL),
				      sql);
			if (rc)
				return rc;
		}
	}
	rb->ncols = ncols;
	return wsql(w, sqlite3_prepare_v2(w->db, sql, -1, &rb->many, NULL), table);
}

static void rb_bind(sqlite3_stmt *st, int col, int64_t v, uint8_t null)
{
	if (null)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, v);
}

static int rb_flush(struct trace_writer *w, struct rowbatch *rb)
{
	int rc = 0;
	if (rb->nrows == GROUP) {
		for (int i = 0; i < GROUP * rb->ncols; i++)
			rb_bind(rb->many, i + 1, rb->v[i], rb->null[i]);
		rc = sqlite3_step(rb->many);
		sqlite3_reset(rb->many);
	} else {
		for (int r = 0; r < rb->nrows && rc != SQLITE_ERROR; r++) {
			for (int c = 0; c < rb->ncols; c++)
				rb_bind(rb->one, c + 1, rb->v[r * rb->ncols + c],
					rb->null[r * rb->ncols + c]);
			rc = sqlite3_step(rb->one);
			sqlite3_reset(rb->one);
			if (rc != SQLITE_DONE)
				break;
		}
	}
	int n = rb->nrows;
	rb->nrows = 0;
	if (n && rc != SQLITE_DONE)
		return wsql(w, rc, "insert");
	return 0;
}

/* Queues one row (vals/nulls of ncols); flushes a full group. */
static int rb_add(struct trace_writer *w, struct rowbatch *rb,
		  const int64_t *vals, const uint8_t *nulls)
{
	memcpy(&rb->v[rb->nrows * rb->ncols], vals, (size_t)rb->ncols * sizeof(*vals));
	memcpy(&rb->null[rb->nrows * rb->ncols], nulls, (size_t)rb->ncols);
	if (++rb->nrows == GROUP) {
		int rc = rb_flush(w, rb);
		if (rc)
			return rc;
	}
	return wcount(w, 1);
}

static void bind_opt(sqlite3_stmt *st, int col, int64_t v, int64_t none)
{
	if (v == none)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, v);
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The names-table id of s, inserting it on first sight; < 0 on error. */
static int64_t name_id(struct trace_writer *w, const char *s)
{
	if ((w->nnames + 1) * 2 > w->nslots) {
		size_t n = w->nslots ? w->nslots * 2 : 1024;
		struct name_slot *slots = calloc(n, sizeof(*slots));
		if (!slots)
			return werr(w, TRACE_ENOMEM, "out of memory");
		for (size_t i = 0; i < w->nslots; i++) {
			if (!w->names[i].name)
				continue;
			size_t j = name_hash(w->names[i].name) & (n - 1);
			while (slots[j].name)
				j = (j + 1) & (n - 1);
			slots[j] = w->names[i];
		}
		free(w->names);
		w->names = slots;
		w->nslots = n;
	}
	size_t j = name_hash(s) & (w->nslots - 1);
	while (w->names[j].name) {
		if (strcmp(w->names[j].name, s) == 0)
			return w->names[j].id;
		j = (j + 1) & (w->nslots - 1);
	}
	char *copy = strdup(s);
	if (!copy)
		return werr(w, TRACE_ENOMEM, "out of memory");
	int64_t id = (int64_t)w->nnames + 1;
	sqlite3_bind_int64(w->ins_name, 1, id);
	sqlite3_bind_text(w->ins_name, 2, s, -1, SQLITE_STATIC);
	int rc = wstep(w, w->ins_name, "insert into names");
	if (rc < 0) {
		free(copy);
		return rc;
	}
	w->names[j] = (struct name_slot){ copy, id };
	w->nnames++;
	return id;
}

static int fill_lookup(struct trace_writer *w, const char *table,
		       const char *(*name)(unsigned), unsigned count)
{
	char sql[128];
	snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES(?1, ?2)", table);
	sqlite3_stmt *st;
	int rc = wsql(w, sqlite3_prepare_v2(w->db, sql, -1, &st, NULL), sql);
	for (unsigned i = 0; rc == 0 && i < count; i++) {
		sqlite3_bind_int(st, 1, (int)i);
		sqlite3_bind_text(st, 2, name(i), -1, SQLITE_STATIC);
		rc = wsql(w, sqlite3_step(st), sql);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int prepare_all(struct trace_writer *w)
{
	static const struct {
		size_t off;
		const char *sql;
	} stmts[] = {
		{ offsetof(struct trace_writer, ins_meta),
		  "INSERT OR REPLACE INTO meta VALUES(?1, ?2)" },
		{ offsetof(struct trace_writer, ins_buffer),
		  "INSERT INTO buffers VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)" },
		{ offsetof(struct trace_writer, ins_hole),
		  "INSERT INTO holes VALUES(?1,?2,?3,?4,?5)" },
		{ offsetof(struct trace_writer, ins_name),
		  "INSERT INTO names VALUES(?1,?2)" },
		{ offsetof(struct trace_writer, ins_stack),
		  "INSERT INTO buffer_stacks VALUES(?1,?2)" },
		{ offsetof(struct trace_writer, ins_source),
		  "INSERT OR REPLACE INTO buffer_sources VALUES(?1,?2,?3)" },
	};
	for (size_t i = 0; i < sizeof(stmts) / sizeof(stmts[0]); i++) {
		sqlite3_stmt **st = (sqlite3_stmt **)((char *)w + stmts[i].off);
		int rc = wsql(w, sqlite3_prepare_v2(w->db, stmts[i].sql, -1, st, NULL),
			      stmts[i].sql);
		if (rc)
			return rc;
	}
	int rc = rb_prepare(w, &w->events, "events", 10);
	return rc ? rc : rb_prepare(w, &w->accesses, "accesses", 3);
}

static void finalize_all(struct trace_writer *w)
{
	sqlite3_stmt **all[] = { &w->ins_meta,	   &w->ins_buffer,
				 &w->ins_hole,	   &w->ins_name,
				 &w->ins_stack,	   &w->ins_source,
				 &w->events.one,   &w->events.many,
				 &w->accesses.one, &w->accesses.many };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		sqlite3_finalize(*all[i]);
		*all[i] = NULL;
	}
}

static void writer_destroy(struct trace_writer *w)
{
	finalize_all(w);
	sqlite3_close(w->db);
	for (size_t i = 0; i < w->nslots; i++)
		free(w->names[i].name);
	free(w->names);
	free(w->path);
	free(w->tmppath);
	free(w);
}

int trace_writer_open(struct trace_writer **out, const char *path,
		      unsigned flags, char *err, size_t errlen)
{
	struct trace_writer *w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path)))
		return free(w), trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	w->flags = flags;
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a trace is an SQLite file: a device or pipe cannot hold one,
		 * and a rename (or the capture's unlink) would replace it */
		writer_destroy(w);
		return trace_seterr(err, errlen, TRACE_EIO,
			       "cannot write trace '%s': not a regular file",
			       path);
	}
	size_t n = strlen(path) + 32;
	if (!(w->tmppath = malloc(n))) {
		writer_destroy(w);
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	}
	if (flags & TRACE_WRITE_STREAM) {
		snprintf(w->tmppath, n, "%s", path);
		/* a fresh capture replaces what was there */
		if (unlink(path) < 0 && errno != ENOENT) {
			int e = errno;
			writer_destroy(w);
			return trace_seterr(err, errlen, TRACE_EIO,
				       "cannot write trace '%s': %s", path,
				       strerror(e));
		}
		char side[4096];
		snprintf(side, sizeof(side), "%s-wal", path);
		unlink(side);
		snprintf(side, sizeof(side), "%s-shm", path);
		unlink(side);
	} else {
		snprintf(w->tmppath, n, "%s.tmp-%ld", path, (long)getpid());
		unlink(w->tmppath);
	}
	int rc = sqlite3_open_v2(w->tmppath, &w->db,
				 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
					 SQLITE_OPEN_EXCLUSIVE | SQLITE_OPEN_NOMUTEX,
				 NULL);
	if (rc != SQLITE_OK) {
		trace_seterr(err, errlen, TRACE_EIO, "cannot create trace '%s': %s",
			path, w->db ? sqlite3_errmsg(w->db) : sqlite3_errstr(rc));
		writer_destroy(w);
		return TRACE_EIO;
	}
	const char *pragmas =
		(flags & TRACE_WRITE_STREAM)
			? "PRAGMA journal_mode=WAL;"
			  "PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536;"
			: "PRAGMA journal_mode=OFF;"
			  "PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
			  "PRAGMA cache_size=-131072;";
	char ver[64];
	snprintf(ver, sizeof(ver), "%d", TRACE_SCHEMA_VERSION);
	if ((rc = wexec(w, pragmas)) || (rc = wexec(w, "PRAGMA application_id=1297108046")) ||
	    (rc = wexec(w, "BEGIN")) || (rc = wexec(w, schema_sql)) ||
	    (rc = prepare_all(w)) ||
	    (rc = fill_lookup(w, "event_types", trace_event_type_name, TRACE_EV_COUNT)) ||
	    (rc = fill_lookup(w, "buffer_kinds", trace_kind_name, TRACE_KIND_COUNT)) ||
	    (rc = fill_lookup(w, "buffer_roles", trace_role_name, TRACE_ROLE_COUNT)) ||
	    (rc = fill_lookup(w, "copy_kinds", trace_copy_kind_name, TRACE_COPY_P2P + 1)) ||
	    (rc = fill_lookup(w, "access_modes", trace_access_mode_name, TRACE_ACCESS_RW + 1)) ||
	    (rc = trace_writer_meta(w, "schema_version", ver)) ||
	    (rc = trace_writer_meta(w, "complete", "0")) ||
	    ((flags & TRACE_WRITE_STREAM) &&
	     ((rc = wexec(w, "COMMIT")) || (rc = wexec(w, "BEGIN"))))) {
		trace_seterr(err, errlen, rc, "%s", w->err);
		unlink(w->tmppath);
		writer_destroy(w);
		return rc;
	}
	*out = w;
	return 0;
}

int trace_writer_meta(struct trace_writer *w, const char *key,
		      const char *value)
{
	sqlite3_bind_text(w->ins_meta, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->ins_meta, 2, value, -1, SQLITE_STATIC);
	return wstep(w, w->ins_meta, "insert into meta");
}

int trace_writer_buffer(struct trace_writer *w, const struct trace_buffer *b)
{
	sqlite3_stmt *st = w->ins_buffer;
	sqlite3_bind_int64(st, 1, b->id);
	sqlite3_bind_int64(st, 2, (int64_t)b->size);
	sqlite3_bind_int64(st, 3, (int64_t)(b->rounded ? b->rounded : b->size));
	sqlite3_bind_int(st, 4, b->kind);
	sqlite3_bind_int(st, 5, b->role);
	sqlite3_bind_int(st, 6, b->device);
	bind_opt(st, 7, b->stream, TRACE_NONE);
	bind_opt(st, 8, (int64_t)b->addr, 0);
	sqlite3_bind_int64(st, 9, (int64_t)(b->align ? b->align : 1));
	bind_opt(st, 10, b->fixed_offset, TRACE_NONE);
	if (b->label)
		sqlite3_bind_text(st, 11, b->label, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 11);
	int rc = wstep(w, st, "insert into buffers");
	if (!rc && b->source)
		rc = trace_writer_buffer_source(w, b->id, b->source, b->bypass);
	if (rc || !b->stack)
		return rc;
	/* stacks repeat across buffers: stored once, in names */
	int64_t id = name_id(w, b->stack);
	if (id < 0)
		return (int)id;
	sqlite3_bind_int64(w->ins_stack, 1, b->id);
	sqlite3_bind_int64(w->ins_stack, 2, id);
	return wstep(w, w->ins_stack, "insert into buffer_stacks");
}

int trace_writer_buffer_source(struct trace_writer *w, int64_t buffer,
			       const char *source, int bypass)
{
	/* a few shared objects allocate everything: stored once, in names */
	int64_t id = name_id(w, source);
	if (id < 0)
		return (int)id;
	sqlite3_bind_int64(w->ins_source, 1, buffer);
	sqlite3_bind_int64(w->ins_source, 2, id);
	sqlite3_bind_int(w->ins_source, 3, bypass ? 1 : 0);
	return wstep(w, w->ins_source, "insert into buffer_sources");
}

int trace_writer_event(struct trace_writer *w, const struct trace_event *e)
{
	int64_t name = 0;
	if (e->name && (name = name_id(w, e->name)) < 0)
		return (int)name;
	const int64_t v[10] = { e->seq,	 e->type,   e->buffer,
				e->stream, e->t_start, e->t_end,
				(int64_t)e->bytes, (int64_t)e->flops,
				e->aux,	 name };
	const uint8_t null[10] = { 0,
				   0,
				   e->buffer == TRACE_NONE,
				   e->stream == TRACE_NONE,
				   e->t_start == TRACE_TIME_NONE,
				   e->t_end == TRACE_TIME_NONE,
				   e->bytes == 0,
				   e->flops == 0,
				   0,
				   name == 0 };
	return rb_add(w, &w->events, v, null);
}

int trace_writer_access(struct trace_writer *w, int64_t seq, int64_t buffer,
			unsigned mode)
{
	const int64_t v[3] = { seq, buffer, (int64_t)mode };
	static const uint8_t null[3] = { 0, 0, 0 };
	return rb_add(w, &w->accesses, v, null);
}

int trace_writer_hole(struct trace_writer *w, const struct trace_hole *h)
{
	sqlite3_stmt *st = w->ins_hole;
	sqlite3_bind_int64(st, 1, h->buffer);
	sqlite3_bind_int64(st, 2, h->lower);
	sqlite3_bind_int64(st, 3, h->upper);
	bind_opt(st, 4, h->win_lo, TRACE_NONE);
	bind_opt(st, 5, h->win_hi, TRACE_NONE);
	return wstep(w, st, "insert into holes");
}

const char *trace_writer_error(const struct trace_writer *w)
{
	return w->err;
}

int trace_writer_close(struct trace_writer *w, int commit, char *err,
		       size_t errlen)
{
	int rc = 0;
	if (commit) {
		if ((rc = rb_flush(w, &w->events)) == 0 &&
		    (rc = rb_flush(w, &w->accesses)) == 0 &&
		    (rc = trace_writer_meta(w, "complete", "1")) == 0 &&
		    (rc = wexec(w, "COMMIT")) == 0)
			rc = wexec(w, "PRAGMA journal_mode=DELETE");
		if (rc)
			trace_seterr(err, errlen, rc, "%s", w->err);
	} else {
		sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
	}
	finalize_all(w);
	if (sqlite3_close(w->db) != SQLITE_OK && commit && rc == 0)
		rc = trace_seterr(err, errlen, TRACE_EIO,
			     "cannot write trace '%s': %s", w->path,
			     sqlite3_errmsg(w->db));
	w->db = NULL;
	if (!(w->flags & TRACE_WRITE_STREAM)) {
		if (commit && rc == 0 && rename(w->tmppath, w->path) < 0)
			rc = trace_seterr(err, errlen, TRACE_EIO,
				     "cannot write trace '%s': %s", w->path,
				     strerror(errno));
		if (!commit || rc)
			unlink(w->tmppath);
	}
	writer_destroy(w);
	return rc;
}

int trace_save(const struct trace *t, const char *path, char *err,
	       size_t errlen)
{
	struct trace_writer *w;
	int rc = trace_writer_open(&w, path, TRACE_WRITE_ATOMIC, err, errlen);
	if (rc)
		return rc;
	for (size_t i = 0; rc == 0 && i < t->nmeta; i++) {
		const char *k = t->meta[i].key;
		if (strcmp(k, "schema_version") && strcmp(k, "complete"))
			rc = trace_writer_meta(w, k, t->meta[i].value);
	}
	for (size_t i = 0; rc == 0 && i < t->nbuffers; i++)
		rc = trace_writer_buffer(w, &t->buffers[i]);
	for (size_t i = 0; rc == 0 && i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		rc = trace_writer_event(w, e);
		for (uint32_t k = 0; rc == 0 && k < e->nacc; k++) {
			const struct trace_access *a = &t->accesses[e->acc0 + k];
			rc = trace_writer_access(w, e->seq, a->buffer, a->mode);
		}
	}
	for (size_t i = 0; rc == 0 && i < t->nholes; i++)
		rc = trace_writer_hole(w, &t->holes[i]);
	if (rc) {
		trace_seterr(err, errlen, rc, "%s", w->err);
		trace_writer_close(w, 0, NULL, 0);
		return rc;
	}
	return trace_writer_close(w, 1, err, errlen);
}

/* --- reading ----------------------------------------------------------- */

int tracedb_open_readonly(const char *path, struct sqlite3 **db)
{
	*db = NULL;
	size_t n = strlen(path);
	char *side = malloc(n + 8);
	/* a URI: "file:" and the path with %, ? and # escaped, then the flag */
	char *uri = malloc(3 * n + 32);
	if (!side || !uri) {
		free(side);
		free(uri);
		return SQLITE_NOMEM;
	}
	snprintf(side, n + 8, "%s-wal", path);
	struct stat st;
	int has_wal = stat(side, &st) == 0;
	free(side);
	int rc;
	if (has_wal) {
		rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
				     NULL);
	} else {
		/* "file:///abs" or "file:rel": a path starting "//" must not
		 * read as an authority */
		size_t k = (size_t)sprintf(uri, "file:%s", path[0] == '/' ? "//" : "");
		for (const char *p = path; *p; p++) {
			unsigned char c = (unsigned char)*p;
			if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f)
				k += (size_t)sprintf(uri + k, "%%%02X", c);
			else
				uri[k++] = (char)c;
		}
		strcpy(uri + k, "?immutable=1");
		rc = sqlite3_open_v2(uri, db,
				     SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
				     NULL);
	}
	free(uri);
	return rc;
}

int tracedb_check_table(struct sqlite3 *db, const char *name, char *err,
			size_t errlen)
{
	sqlite3_stmt *st;
	/* SQLite resolves names without case: so must the lookup */
	int rc = sqlite3_prepare_v2(db,
				    "SELECT type, sql LIKE 'CREATE VIRTUAL%' FROM sqlite_master"
				    " WHERE name = ?1 COLLATE NOCASE",
				    -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	int found = 0;
	char what[32] = "";
	if (rc == SQLITE_ROW) {
		const unsigned char *type = sqlite3_column_text(st, 0);
		found = 1;
		if (!type || strcmp((const char *)type, "table") != 0)
			snprintf(what, sizeof(what), "a %s",
				 type ? (const char *)type : "nameless object");
		else if (sqlite3_column_int(st, 1))
			snprintf(what, sizeof(what), "a virtual table");
		rc = SQLITE_DONE;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return trace_seterr(err, errlen,
				    rc == SQLITE_NOMEM ? TRACE_ENOMEM : TRACE_EFORMAT,
				    "cannot read the list of tables: %s (truncated or damaged file?)",
				    sqlite3_errstr(rc));
	if (what[0])
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table %s is %s, not a table (memplan reads only tables: a view can be an endless query)",
				    name, what);
	return found;
}

/* --- loader ------------------------------------------------------------ */

struct loader {
	sqlite3 *db;
	const char *path;
	char *err;
	size_t errlen;
	const char *table; /* being read, for messages */
	size_t row;
};

static int lerr(struct loader *l, int code, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return trace_seterr(l->err, l->errlen, code, "trace '%s': %s", l->path, msg);
}

static int lsql(struct loader *l, int rc)
{
	const char *msg = sqlite3_errmsg(l->db);
	if (rc == SQLITE_NOMEM)
		return lerr(l, TRACE_ENOMEM, "out of memory");
	if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
		return lerr(l, TRACE_EFORMAT,
			    "cannot read table %s: %s (truncated or damaged file?)",
			    l->table, msg);
	return lerr(l, TRACE_EFORMAT, "cannot read table %s: %s", l->table,
		    msg);
}

static const char *type_name(int type)
{
	switch (type) {
	case SQLITE_INTEGER: return "an integer";
	case SQLITE_FLOAT: return "a real";
	case SQLITE_TEXT: return "text";
	case SQLITE_BLOB: return "a blob";
	default: return "NULL";
	}
}

/*
 * Reads column col as an integer into *v.  NULL gives none_value when
 * nullable, else an error; any other type is an error naming the field.
 */
static int col_int(struct loader *l, sqlite3_stmt *st, int col,
		   int nullable, int64_t none_value, int64_t min, int64_t *v)
{
	int type = sqlite3_column_type(st, col);
	if (type == SQLITE_NULL && nullable) {
		*v = none_value;
		return 0;
	}
	if (type != SQLITE_INTEGER)
		return lerr(l, TRACE_EFORMAT,
			    "table %s, row %zu, field %s: expected an integer, found %s",
			    l->table, l->row, sqlite3_column_name(st, col),
			    type_name(type));
	*v = sqlite3_column_int64(st, col);
	if (*v < min)
		return lerr(l, TRACE_EFORMAT,
			    "table %s, row %zu, field %s: %lld is below the smallest allowed value %lld",
			    l->table, l->row, sqlite3_column_name(st, col),
			    (long long)*v, (long long)min);
	return 0;
}

static int col_text(struct loader *l, sqlite3_stmt *st, int col,
		    int nullable, const char **v)
{
	int type = sqlite3_column_type(st, col);
	if (type == SQLITE_NULL && nullable) {
		*v = NULL;
		return 0;
	}
	if (type != SQLITE_TEXT)
		return lerr(l, TRACE_EFORMAT,
			    "table %s, row %zu, field %s: expected text, found %s",
			    l->table, l->row, sqlite3_column_name(st, col),
			    type_name(type));
	*v = (const char *)sqlite3_column_text(st, col);
	return 0;
}

static int lprepare(struct loader *l, const char *table, const char *sql,
		    sqlite3_stmt **st)
{
	l->table = table;
	l->row = 0;
	*st = NULL;
	char msg[300];
	int rc = tracedb_check_table(l->db, table, msg, sizeof(msg));
	if (rc < 0)
		return lerr(l, rc, "%s", msg);
	rc = sqlite3_prepare_v2(l->db, sql, -1, st, NULL);
	if (rc != SQLITE_OK) {
		if (rc == SQLITE_ERROR)
			return lerr(l, TRACE_EFORMAT,
				    "table %s is missing or has the wrong columns (%s); is this a memplan trace?",
				    table, sqlite3_errmsg(l->db));
		return lsql(l, rc);
	}
	return 0;
}

/* Steps st: 1 for a row (l->row advanced), 0 at the end, < 0 on error. */
static int lstep(struct loader *l, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		l->row++;
		return 1;
	}
	if (rc == SQLITE_DONE)
		return 0;
	return lsql(l, rc);
}

static int load_meta(struct loader *l, struct trace *t, int *version)
{
	sqlite3_stmt *st;
	int rc = lprepare(l, "meta", "SELECT key, value FROM meta", &st);
	if (rc)
		return rc;
	while ((rc = lstep(l, st)) > 0) {
		const char *k, *v;
		if ((rc = col_text(l, st, 0, 0, &k)) || (rc = col_text(l, st, 1, 0, &v)))
			break;
		if ((rc = trace_set_meta(t, k, v)) < 0) {
			rc = lerr(l, rc, "out of memory");
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	const char *ver = trace_get_meta(t, "schema_version");
	if (!ver)
		return lerr(l, TRACE_EFORMAT,
			    "table meta: key schema_version is missing; is this a memplan trace?");
	char *end;
	errno = 0;
	long v = strtol(ver, &end, 10);
	if (errno || *end || end == ver || v < 1)
		return lerr(l, TRACE_EFORMAT,
			    "table meta, key schema_version: '%s' is not a schema version",
			    ver);
	if (v > TRACE_SCHEMA_VERSION)
		return lerr(l, TRACE_EVERSION,
			    "schema version %ld is newer than this memplan reads (up to %d); upgrade memplan",
			    v, TRACE_SCHEMA_VERSION);
	*version = (int)v;
	return 0;
}

static int load_buffers(struct loader *l, struct trace *t)
{
	sqlite3_stmt *st;
	int rc = lprepare(l, "buffers",
			  "SELECT id, size, rounded, kind, role, device, stream,"
			  " addr, align, fixed_offset, label FROM buffers ORDER BY id",
			  &st);
	if (rc)
		return rc;
	uint64_t total = 0;
	while ((rc = lstep(l, st)) > 0) {
		int64_t v[10];
		struct trace_buffer b = { 0 };
		if ((rc = col_int(l, st, 0, 0, 0, 0, &v[0])) ||
		    (rc = col_int(l, st, 1, 0, 0, 1, &v[1])) ||
		    (rc = col_int(l, st, 2, 0, 0, 1, &v[2])) ||
		    (rc = col_int(l, st, 3, 0, 0, 0, &v[3])) ||
		    (rc = col_int(l, st, 4, 0, 0, 0, &v[4])) ||
		    (rc = col_int(l, st, 5, 0, 0, 0, &v[5])) ||
		    (rc = col_int(l, st, 6, 1, TRACE_NONE, 0, &v[6])) ||
		    (rc = col_int(l, st, 7, 1, 0, INT64_MIN, &v[7])) ||
		    (rc = col_int(l, st, 8, 0, 0, 1, &v[8])) ||
		    (rc = col_int(l, st, 9, 1, TRACE_NONE, 0, &v[9])) ||
		    (rc = col_text(l, st, 10, 1, &b.label)))
			break;
		if ((uint64_t)v[0] != l->row - 1) {
			rc = lerr(l, TRACE_EFORMAT,
				  "table buffers, row %zu, field id: expected %zu (ids number the buffers 0, 1, 2, ...), found %lld",
				  l->row, l->row - 1, (long long)v[0]);
			break;
		}
		if (v[3] >= TRACE_KIND_COUNT || v[4] >= TRACE_ROLE_COUNT ||
		    v[5] > INT32_MAX) {
			int f = v[3] >= TRACE_KIND_COUNT ? 3 : v[4] >= TRACE_ROLE_COUNT ? 4 : 5;
			rc = lerr(l, TRACE_EFORMAT,
				  "table buffers, row %zu, field %s: %lld is out of range",
				  l->row, sqlite3_column_name(st, f),
				  (long long)v[f]);
			break;
		}
		b.size = (uint64_t)v[1];
		b.rounded = (uint64_t)v[2];
		b.kind = (uint8_t)v[3];
		b.role = (uint8_t)v[4];
		b.device = (int32_t)v[5];
		b.stream = v[6];
		b.addr = (uint64_t)v[7];
		b.align = (uint64_t)v[8];
		b.fixed_offset = v[9];
		if (trace_add_buffer(t, &b) < 0) {
			rc = lerr(l, TRACE_ENOMEM, "out of memory");
			break;
		}
		/* the model's checks now, before anyone sums the sizes */
		char msg[300];
		if ((rc = trace_check_buffer(&t->buffers[t->nbuffers - 1], l->row,
					     &total, msg, sizeof(msg)))) {
			rc = lerr(l, rc, "%s", msg);
			break;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* Names: id -> interned string, ids 1..n. */
static int load_names(struct loader *l, struct trace *t, const char ***names,
		      size_t *nnames)
{
	sqlite3_stmt *st;
	int rc = lprepare(l, "names", "SELECT id, name FROM names ORDER BY id", &st);
	if (rc)
		return rc;
	size_t cap = 0;
	*names = NULL;
	*nnames = 0;
	while ((rc = lstep(l, st)) > 0) {
		int64_t id;
		const char *s;
		if ((rc = col_int(l, st, 0, 0, 0, 1, &id)) ||
		    (rc = col_text(l, st, 1, 0, &s)))
			break;
		if ((uint64_t)id != l->row) {
			rc = lerr(l, TRACE_EFORMAT,
				  "table names, row %zu, field id: expected %zu (names are numbered 1, 2, 3, ...), found %lld",
				  l->row, l->row, (long long)id);
			break;
		}
		if (*nnames == cap) {
			cap = cap ? cap * 2 : 256;
			const char **p = realloc(*names, cap * sizeof(*p));
			if (!p) {
				rc = lerr(l, TRACE_ENOMEM, "out of memory");
				break;
			}
			*names = p;
		}
		if (!((*names)[(*nnames)++] = trace_intern(t, s))) {
			rc = lerr(l, TRACE_ENOMEM, "out of memory");
			break;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* 1 if the file has table name, 0 if not, or a TRACE_E* code. */
static int has_table(struct loader *l, const char *name)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(l->db,
				    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
				    -1, &st, NULL);
	if (rc != SQLITE_OK)
		return lsql(l, rc);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return lsql(l, rc);
	return 1;
}

/*
 * The optional table buffer_stacks (added within schema version 1: a file
 * without it has no stacks, and readers that do not know it ignore it).
 */
static int load_stacks(struct loader *l, struct trace *t, const char **names,
		       size_t nnames)
{
	sqlite3_stmt *st;
	int rc = has_table(l, "buffer_stacks");
	if (rc <= 0)
		return rc;
	if ((rc = lprepare(l, "buffer_stacks",
			   "SELECT buffer, stack FROM buffer_stacks ORDER BY rowid", &st)))
		return rc;
	while ((rc = lstep(l, st)) > 0) {
		int64_t b, s;
		if ((rc = col_int(l, st, 0, 0, 0, 0, &b)) ||
		    (rc = col_int(l, st, 1, 0, 0, 1, &s)))
			break;
		if ((uint64_t)b >= t->nbuffers || (uint64_t)s > nnames) {
			rc = lerr(l, TRACE_EFORMAT,
				  (uint64_t)b >= t->nbuffers
					  ? "table buffer_stacks, row %zu, field buffer: buffer %lld does not exist"
					  : "table buffer_stacks, row %zu, field stack: no name has id %lld",
				  l->row, (long long)((uint64_t)b >= t->nbuffers ? b : s));
			break;
		}
		t->buffers[b].stack = names[s - 1];
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * The optional table buffer_sources (within schema version 1, as
 * buffer_stacks): the shared object that asked for each buffer, and whether
 * its requests bypass memplan's runtime (trace.h).
 */
static int load_sources(struct loader *l, struct trace *t, const char **names,
			size_t nnames)
{
	sqlite3_stmt *st;
	int rc = has_table(l, "buffer_sources");
	if (rc <= 0)
		return rc;
	if ((rc = lprepare(l, "buffer_sources",
			   "SELECT buffer, source, bypass FROM buffer_sources ORDER BY rowid",
			   &st)))
		return rc;
	while ((rc = lstep(l, st)) > 0) {
		int64_t b, s, y;
		if ((rc = col_int(l, st, 0, 0, 0, 0, &b)) ||
		    (rc = col_int(l, st, 1, 0, 0, 1, &s)) ||
		    (rc = col_int(l, st, 2, 0, 0, 0, &y)))
			break;
		if ((uint64_t)b >= t->nbuffers || (uint64_t)s > nnames ||
		    y > 1) {
			int f = (uint64_t)b >= t->nbuffers ? 0
				: (uint64_t)s > nnames	   ? 1
							   : 2;
			static const char *const what[] = {
				"is not a buffer of the trace",
				"is not the id of a name", "is neither 0 nor 1"
			};
			rc = lerr(l, TRACE_EFORMAT,
				  "table buffer_sources, row %zu, field %s: %lld %s",
				  l->row, sqlite3_column_name(st, f),
				  (long long)(f == 0 ? b : f == 1 ? s : y),
				  what[f]);
			break;
		}
		t->buffers[b].source = names[s - 1];
		t->buffers[b].bypass = (uint8_t)y;
	}
	sqlite3_finalize(st);
	return rc;
}

static int load_events(struct loader *l, struct trace *t, const char **names,
		       size_t nnames)
{
	sqlite3_stmt *st;
	int rc = lprepare(l, "events",
			  "SELECT seq, type, buffer, stream, t_start, t_end, bytes,"
			  " flops, aux, name FROM events ORDER BY rowid",
			  &st);
	if (rc)
		return rc;
	while ((rc = lstep(l, st)) > 0) {
		int64_t v[10];
		if ((rc = col_int(l, st, 0, 0, 0, INT64_MIN, &v[0])) ||
		    (rc = col_int(l, st, 1, 0, 0, 0, &v[1])) ||
		    (rc = col_int(l, st, 2, 1, TRACE_NONE, 0, &v[2])) ||
		    (rc = col_int(l, st, 3, 1, TRACE_NONE, 0, &v[3])) ||
		    (rc = col_int(l, st, 4, 1, TRACE_TIME_NONE, INT64_MIN + 1, &v[4])) ||
		    (rc = col_int(l, st, 5, 1, TRACE_TIME_NONE, INT64_MIN + 1, &v[5])) ||
		    (rc = col_int(l, st, 6, 1, 0, 0, &v[6])) ||
		    (rc = col_int(l, st, 7, 1, 0, 0, &v[7])) ||
		    (rc = col_int(l, st, 8, 0, 0, 0, &v[8])) ||
		    (rc = col_int(l, st, 9, 1, 0, 1, &v[9])))
			break;
		if (v[1] >= TRACE_EV_COUNT || v[8] > 255) {
			int f = v[1] >= TRACE_EV_COUNT ? 1 : 8;
			rc = lerr(l, TRACE_EFORMAT,
				  "table events, row %zu, field %s: %lld is out of range",
				  l->row, sqlite3_column_name(st, f),
				  (long long)v[f]);
			break;
		}
		if ((uint64_t)v[9] > nnames) {
			rc = lerr(l, TRACE_EFORMAT,
				  "table events, row %zu, field name: no name has id %lld",
				  l->row, (long long)v[9]);
			break;
		}
		struct trace_event e = {
			.seq = v[0], .type = (uint8_t)v[1], .buffer = v[2],
			.stream = v[3], .t_start = v[4], .t_end = v[5],
			.bytes = (uint64_t)v[6], .flops = (uint64_t)v[7],
			.aux = (uint8_t)v[8],
		};
		if ((e.type == TRACE_EV_ALLOC || e.type == TRACE_EV_FREE) &&
		    e.buffer == TRACE_NONE) {
			rc = lerr(l, TRACE_EFORMAT,
				  "table events, row %zu, field buffer: an %s event must name its buffer",
				  l->row, trace_event_type_name(e.type));
			break;
		}
		if (t->nevents && e.seq <= t->events[t->nevents - 1].seq) {
			rc = lerr(l, TRACE_EFORMAT,
				  "table events, row %zu, field seq: %lld does not follow %lld (sequence numbers must strictly increase)",
				  l->row, (long long)e.seq,
				  (long long)t->events[t->nevents - 1].seq);
			break;
		}
		if (trace_add_event(t, &e) < 0) {
			rc = lerr(l, TRACE_ENOMEM, "out of memory");
			break;
		}
		/* names are already interned: point at them directly */
		t->events[t->nevents - 1].name = v[9] ? names[v[9] - 1] : NULL;
	}
	sqlite3_finalize(st);
	return rc;
}

struct raw_access {
	uint32_t ev;
	uint32_t row;
	int64_t buffer;
	uint8_t mode;
};

static int raw_access_cmp(const void *a, const void *b)
{
	const struct raw_access *x = a, *y = b;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

static int64_t find_seq(const struct trace *t, int64_t seq)
{
	size_t lo = 0, hi = t->nevents;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->events[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nevents && t->events[lo].seq == seq ? (int64_t)lo : -1;
}

static int load_accesses(struct loader *l, struct trace *t)
{
	sqlite3_stmt *st;
	int rc = lprepare(l, "accesses",
			  "SELECT seq, buffer, mode FROM accesses ORDER BY rowid", &st);
	if (rc)
		return rc;
	struct raw_access *raw = NULL;
	size_t n = 0, cap = 0;
	int sorted = 1;
	while ((rc = lstep(l, st)) > 0) {
		int64_t seq, buf, mode;
		if ((rc = col_int(l, st, 0, 0, 0, INT64_MIN, &seq)) ||
		    (rc = col_int(l, st, 1, 0, 0, INT64_MIN, &buf)) ||
		    (rc = col_int(l, st, 2, 0, 0, 0, &mode)))
			break;
		int64_t ev = find_seq(t, seq);
		if (ev < 0) {
			rc = lerr(l, TRACE_EFORMAT,
				  "table accesses, row %zu, field seq: no event has seq %lld",
				  l->row, (long long)seq);
			break;
		}
		if (mode > TRACE_ACCESS_RW || buf < 0 || (uint64_t)buf >= t->nbuffers) {
			rc = lerr(l, TRACE_EFORMAT,
				  mode > TRACE_ACCESS_RW
					  ? "table accesses, row %zu, field mode: %lld is not a mode"
					  : "table accesses, row %zu, field buffer: buffer %lld does not exist",
				  l->row, (long long)(mode > TRACE_ACCESS_RW ? mode : buf));
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			struct raw_access *p = realloc(raw, cap * sizeof(*p));
			if (!p) {
				rc = lerr(l, TRACE_ENOMEM, "out of memory");
				break;
			}
			raw = p;
		}
		if (n && raw[n - 1].ev > (uint32_t)ev)
			sorted = 0;
		raw[n++] = (struct raw_access){ (uint32_t)ev, (uint32_t)l->row,
						buf, (uint8_t)mode };
	}
	sqlite3_finalize(st);
	if (rc == 0 && n) {
		if (!sorted)
			qsort(raw, n, sizeof(*raw), raw_access_cmp);
		t->accesses = malloc(n * sizeof(*t->accesses));
		if (!t->accesses) {
			free(raw);
			return lerr(l, TRACE_ENOMEM, "out of memory");
		}
		t->capaccesses = t->naccesses = n;
		for (size_t i = 0; i < t->nevents; i++)
			t->events[i].acc0 = t->events[i].nacc = 0;
		for (size_t i = 0; i < n; i++) {
			struct trace_event *e = &t->events[raw[i].ev];
			if (e->nacc == 0)
				e->acc0 = (uint32_t)i;
			e->nacc++;
			t->accesses[i] = (struct trace_access){ raw[i].buffer,
								raw[i].mode };
		}
		/* events without accesses sit at the right place in the ranges */
		uint32_t next = 0;
		for (size_t i = 0; i < t->nevents; i++) {
			if (t->events[i].nacc == 0)
				t->events[i].acc0 = next;
			next = t->events[i].acc0 + t->events[i].nacc;
		}
	}
	free(raw);
	return rc;
}

static int load_holes(struct loader *l, struct trace *t)
{
	sqlite3_stmt *st;
	int rc = lprepare(l, "holes",
			  "SELECT buffer, lower, upper, win_lo, win_hi FROM holes ORDER BY rowid",
			  &st);
	if (rc)
		return rc;
	while ((rc = lstep(l, st)) > 0) {
		struct trace_hole h;
		if ((rc = col_int(l, st, 0, 0, 0, 0, &h.buffer)) ||
		    (rc = col_int(l, st, 1, 0, 0, INT64_MIN, &h.lower)) ||
		    (rc = col_int(l, st, 2, 0, 0, INT64_MIN, &h.upper)) ||
		    (rc = col_int(l, st, 3, 1, TRACE_NONE, 0, &h.win_lo)) ||
		    (rc = col_int(l, st, 4, 1, TRACE_NONE, 0, &h.win_hi)))
			break;
		if (trace_add_hole(t, &h) < 0) {
			rc = lerr(l, TRACE_ENOMEM, "out of memory");
			break;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

int tracedb_load_head(struct sqlite3 *db, const char *path, struct trace *t,
		      int *version, const char ***names, size_t *nnames,
		      char *err, size_t errlen)
{
	struct loader l = { .db = db, .path = path, .err = err, .errlen = errlen,
			    .table = "meta" };
	*names = NULL;
	*nnames = 0;
	int rc;
	if ((rc = load_meta(&l, t, version)) == 0 &&
	    (rc = load_buffers(&l, t)) == 0 &&
	    (rc = load_names(&l, t, names, nnames)) == 0 &&
	    (rc = load_stacks(&l, t, *names, *nnames)) == 0 &&
	    (rc = load_sources(&l, t, *names, *nnames)) == 0)
		rc = load_holes(&l, t);
	if (rc) {
		free(*names);
		*names = NULL;
		*nnames = 0;
	}
	return rc;
}

/* Checks that path is readable and starts like an SQLite database. */
static int check_file(const char *path, char *err, size_t errlen)
{
	FILE *f;
	int rc = trace_open_input(path, "cannot open trace", &f, err, errlen);
	if (rc)
		return rc;
	char magic[16];
	size_t n = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	if (n == 0)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			       "cannot open trace '%s': the file is empty", path);
	if (n < sizeof(magic) || memcmp(magic, "SQLite format 3", 16) != 0)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			       "cannot open trace '%s': file is not a SQLite database",
			       path);
	return 0;
}

int trace_load(const char *path, struct trace **out, char *err, size_t errlen)
{
	int rc = check_file(path, err, errlen);
	if (rc)
		return rc;
	struct loader l = { .path = path, .err = err, .errlen = errlen,
			    .table = "meta" };
	struct trace *t = trace_new();
	if (!t)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	rc = tracedb_open_readonly(path, &l.db);
	if (rc != SQLITE_OK) {
		trace_seterr(err, errlen, TRACE_EIO, "cannot open trace '%s': %s", path,
			l.db ? sqlite3_errmsg(l.db) : sqlite3_errstr(rc));
		sqlite3_close(l.db);
		trace_free(t);
		return TRACE_EIO;
	}
	const char **names = NULL;
	size_t nnames = 0;
	int version = 0;
	if ((rc = tracedb_load_head(l.db, path, t, &version, &names, &nnames,
				    err, errlen)) == 0 &&
	    (rc = load_events(&l, t, names, nnames)) == 0)
		rc = load_accesses(&l, t);
	free(names);
	sqlite3_close(l.db);
	/*
	 * Migrations from older schema versions go here, in memory, one step
	 * per version.  Version 1 is the first; there is nothing older yet.
	 */
	(void)version;
	if (rc == 0) {
		char msg[400];
		rc = trace_finish(t, msg, sizeof(msg));
		if (rc)
			trace_seterr(err, errlen, rc, "trace '%s': %s", path, msg);
	}
	if (rc) {
		trace_free(t);
		return rc;
	}
	*out = t;
	return 0;
}
