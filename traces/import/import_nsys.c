/* SPDX-License-Identifier: MIT */
/*
 * import_nsys.c - an Nsight Systems SQLite export to a trace, for
 * `memplan-trace import --from nsys-sqlite`.  Tables are created lazily by
 * nsys and columns come and go between versions, so every table and column
 * is looked up before use, enumerations are joined by their names, and
 * every value is type-checked with the table, row and column in the error.
 * A buffer is labelled with the innermost NVTX range open on its thread
 * when it was allocated and the CUDA API call that made it (joined through
 * correlationId to CUPTI_ACTIVITY_KIND_RUNTIME, which knows the thread).
 * A globalPid or globalTid holds the process id in bits 24 to 47.
 */
#include "import_nsys.h"
#include "tracedb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#define MEM "CUDA_GPU_MEMORY_USAGE_EVENTS"
#define RUNTIME "CUPTI_ACTIVITY_KIND_RUNTIME"
/* The process id in a globalPid or globalTid, in SQL and in C. */
#define SQL_PID(col) "((" col ") / 16777216 % 16777216)"
#define PID_OF(g) (((g) >> 24) & 0xffffff)
#define TID_NONE INT64_MIN
#define NO_MEMORY_TABLE "the report has no CUDA memory events (table " MEM " is missing): record with 'nsys profile --cuda-memory-usage=true' and export again"

/* Classes of records at one timestamp, in the order they happen. */
enum cls { C_FREE, C_END, C_BEGIN, C_ALLOC, C_WORK, C_POINT, C_LATE };

struct rec {
	int64_t t, t_end, stream, a, b; /* a: address/bytes, b: pid/aux */
	int64_t tid;    /* NVTX, ALLOC: globalTid, TID_NONE if unknown */
	int64_t api;    /* ALLOC: StringIds id of the API call, or -1 */
	uint64_t bytes;
	int64_t name;   /* StringIds id, or -1; NVTX text in text */
	const char *text;
	uint8_t cls, type, aux, kind;
	size_t ord;
	int64_t row;
};

struct reader {
	sqlite3 *db;
	const char *name;
	char *err;
	size_t errlen;
	int device;
	struct rec *recs;
	size_t nrecs, caprecs;
	/* StringIds, sorted by id */
	int64_t *sid;
	const char **sval;
	size_t nstr;
	/* enum ids (-1 if absent) */
	int64_t op_alloc, op_free;
	int64_t kinds[16][2]; /* id -> trace kind, for memKind ids */
	size_t nkinds;
	int64_t copy_ids[16][2];
	size_t ncopy;
	int64_t nvtx_mark, nvtx_push, nvtx_startend;
	int nvtx_enum; /* ENUM_NSYS_EVENT_TYPE was read: filter NVTX rows */
	char version[64];
	char meta_table[32];  /* META_DATA_EXPORT, or 2022-2023's EXPORT_META_DATA */
	int enums_documented; /* no ENUM_ tables (the oldest exports): documented numbers */
	size_t skipped;
	int64_t pid; /* the process imported; NSYS_ANY_PID until chosen */
	int pid_known; /* memory events carry globalPid: filter the rest */
	int colerr; /* a column lookup failed: its error, whose message is set */
	struct corr *corr; /* runtime calls behind memory events, sorted */
	size_t ncorr;
	struct trace *t;
};

/* A CUDA runtime call behind a memory event. */
struct corr {
	int64_t id, tid, name; /* correlationId, globalTid, nameId */
};

static int fail(struct reader *r, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct reader *r, int code, const char *fmt, ...)
{
	if (!r->err || !r->errlen)
		return code;
	int n = snprintf(r->err, r->errlen, "cannot read nsys export '%s': ", r->name);
	if (n >= 0 && (size_t)n < r->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return code;
}

/*
 * SQLite's own error, after a call that failed.  A failed column lookup
 * came first and its message is the true one: it is kept.
 */
static int sqlfail(struct reader *r, const char *what)
{
	if (r->colerr)
		return r->colerr;
	int rc = sqlite3_errcode(r->db);
	if (rc == SQLITE_NOMEM)
		return fail(r, TRACE_ENOMEM, "%s: out of memory", what);
	return fail(r, TRACE_EFORMAT,
		    "%s: %s (is the file whole? export the report again with 'nsys export --type sqlite')",
		    what, sqlite3_errmsg(r->db));
}

/* --- schema lookups ------------------------------------------------------- */

/*
 * 1 if table is a table of the export, 0 if it is absent, < 0 (the error
 * set) when the lookup fails or the name is a view: a view can be an
 * endless recursive query, and nsys writes only tables.
 */
static int has_table(struct reader *r, const char *table)
{
	char msg[200];
	int rc = tracedb_check_table(r->db, table, msg, sizeof(msg));
	if (rc < 0)
		return fail(r, rc, "%s; export the report again with 'nsys export --type sqlite'",
			    msg);
	return rc;
}

/*
 * 1 if table (which exists) has column col, else 0.  When SQLite cannot
 * say, 0 too, with the error kept in r->colerr: the import then fails with
 * it rather than with a false "lacks column".
 */
static int has_column(struct reader *r, const char *table, const char *col)
{
	char sql[160];
	sqlite3_stmt *st;
	snprintf(sql, sizeof(sql), "SELECT name FROM pragma_table_info('%s')", table);
	int rc = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL);
	int found = 0;
	while (rc == SQLITE_OK && !found && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *n = sqlite3_column_text(st, 0);
		found = n && strcmp((const char *)n, col) == 0;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK && rc != SQLITE_DONE && !r->colerr) {
		char what[96];
		snprintf(what, sizeof(what), "the columns of table %s", table);
		r->colerr = sqlfail(r, what);
	}
	return found;
}

/*
 * 0 when table has every column of the NULL-terminated cols, else < 0
 * with the first one missing named (or the lookup's own error).
 */
static int need_columns(struct reader *r, const char *table, const char *const *cols)
{
	for (; *cols; cols++)
		if (!has_column(r, table, *cols))
			return r->colerr ? r->colerr
					 : fail(r, TRACE_EFORMAT,
						"table %s lacks column %s, which every export of schema 2.x and 3.x has; export the report again with 'nsys export --type sqlite'",
						table, *cols);
	return 0;
}

/* An integer column value; NULL allowed when optional (gives def). */
static int col_int(struct reader *r, sqlite3_stmt *st, int col, const char *table,
		   int64_t row, int optional, int64_t def, int64_t *out)
{
	int ty = sqlite3_column_type(st, col);
	if (ty == SQLITE_INTEGER) {
		*out = sqlite3_column_int64(st, col);
		return 0;
	}
	if (ty == SQLITE_NULL && optional) {
		*out = def;
		return 0;
	}
	static const char *const names[] = { "?", "integer", "real", "text", "blob", "NULL" };
	return fail(r, TRACE_EFORMAT,
		    "table %s, row %" PRId64 ", column %s: expected an integer, found %s",
		    table, row, sqlite3_column_name(st, col), names[ty < 6 ? ty : 0]);
}

/* --- strings and enumerations --------------------------------------------- */

static int load_strings(struct reader *r)
{
	int h = has_table(r, "StringIds");
	if (h <= 0)
		return h;
	static const char *const need[] = { "id", "value", NULL };
	if ((h = need_columns(r, "StringIds", need)) < 0)
		return h;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, "SELECT id, value FROM StringIds ORDER BY id", -1,
			       &st, NULL) != SQLITE_OK)
		return sqlfail(r, "table StringIds");
	size_t cap = 0;
	int rc = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id;
		if (col_int(r, st, 0, "StringIds", (int64_t)r->nstr + 1, 0, 0, &id)) {
			sqlite3_finalize(st);
			return TRACE_EFORMAT;
		}
		const unsigned char *v = sqlite3_column_text(st, 1);
		if (r->nstr == cap) {
			cap = cap ? cap * 2 : 256;
			int64_t *a = realloc(r->sid, cap * sizeof(*a));
			if (a)
				r->sid = a;
			const char **b = a ? realloc(r->sval, cap * sizeof(*b)) : NULL;
			if (!a || !b) {
				sqlite3_finalize(st);
				return fail(r, TRACE_ENOMEM, "out of memory");
			}
			r->sval = b;
		}
		const char *s = trace_intern(r->t, v ? (const char *)v : "");
		if (!s) {
			sqlite3_finalize(st);
			return fail(r, TRACE_ENOMEM, "out of memory");
		}
		r->sid[r->nstr] = id;
		r->sval[r->nstr++] = s;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sqlfail(r, "table StringIds");
}

static const char *string_of(const struct reader *r, int64_t id)
{
	size_t lo = 0, hi = r->nstr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->sid[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nstr && r->sid[lo] == id ? r->sval[lo] : NULL;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/*
 * Calls fn(r, id, name) for each row of an ENUM_ table; 1 if the table is
 * absent and optional, 0 after reading it.
 */
static int read_enum(struct reader *r, const char *table, int optional,
		     void (*fn)(struct reader *, int64_t, const char *))
{
	int h = has_table(r, table);
	if (h < 0)
		return h;
	if (!h) {
		if (optional)
			return 1;
		return fail(r, TRACE_EFORMAT,
			    "table %s is missing (memplan joins enumerations by name, and reads the documented numbers only when every ENUM_ table is missing); export the report again with 'nsys export --type sqlite'",
			    table);
	}
	static const char *const need[] = { "id", "name", NULL };
	if ((h = need_columns(r, table, need)) < 0)
		return h;
	char sql[128];
	sqlite3_stmt *st;
	snprintf(sql, sizeof(sql), "SELECT id, name FROM %s", table);
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlfail(r, table);
	int rc;
	int64_t row = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id;
		row++;
		if (col_int(r, st, 0, table, row, 0, 0, &id)) {
			sqlite3_finalize(st);
			return TRACE_EFORMAT;
		}
		const unsigned char *n = sqlite3_column_text(st, 1);
		if (n)
			fn(r, id, (const char *)n);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sqlfail(r, table);
}

static void on_oper(struct reader *r, int64_t id, const char *name)
{
	if (ends_with(name, "DEALLOCATION"))
		r->op_free = id;
	else if (ends_with(name, "ALLOCATION"))
		r->op_alloc = id;
}

static void on_kind(struct reader *r, int64_t id, const char *name)
{
	int kind = -1;
	if (ends_with(name, "_DEVICE") || ends_with(name, "_ARRAY"))
		kind = TRACE_KIND_DEVICE;
	else if (ends_with(name, "_MANAGED"))
		kind = TRACE_KIND_MANAGED;
	else if (ends_with(name, "_PINNED"))
		kind = TRACE_KIND_HOST;
	if (kind >= 0 && r->nkinds < 16) {
		r->kinds[r->nkinds][0] = id;
		r->kinds[r->nkinds++][1] = kind;
	}
}

static void on_copy(struct reader *r, int64_t id, const char *name)
{
	static const struct {
		const char *suffix;
		int kind;
	} m[] = { { "_HTOD", TRACE_COPY_H2D }, { "_DTOH", TRACE_COPY_D2H },
		  { "_DTOD", TRACE_COPY_D2D }, { "_HTOH", TRACE_COPY_H2H },
		  { "_PTOP", TRACE_COPY_P2P } };
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (ends_with(name, m[i].suffix) && r->ncopy < 16) {
			r->copy_ids[r->ncopy][0] = id;
			r->copy_ids[r->ncopy++][1] = m[i].kind;
		}
}

static void on_nvtx(struct reader *r, int64_t id, const char *name)
{
	if (strcmp(name, "NvtxMark") == 0)
		r->nvtx_mark = id;
	else if (strcmp(name, "NvtxPushPopRange") == 0)
		r->nvtx_push = id;
	else if (strcmp(name, "NvtxStartEndRange") == 0)
		r->nvtx_startend = id;
}

static int lookup(int64_t (*tab)[2], size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (tab[i][0] == id)
			return (int)tab[i][1];
	return -1;
}

/*
 * The oldest exports have no ENUM_ tables: their enumerations are the
 * numbers the export schema documents (CUDA_DEV_MEM_EVENT_OPR_ALLOCATION 0,
 * DEALLOCATION 1; CUDA_MEMOPR_MEMORY_KIND_ PAGEABLE 0, PINNED 1, DEVICE 2,
 * ARRAY 3, MANAGED 4, DEVICE_STATIC 5, MANAGED_STATIC 6; CUDA_MEMCPY_KIND_
 * HTOD 1, DTOH 2, DTOD 8, HTOH 9, PTOP 10; NvtxMark 34, NvtxPushPopRange 59,
 * NvtxStartEndRange 60).  Returns 1.
 */
static int documented_enums(struct reader *r)
{
	static const char *const kinds[] = { "_PAGEABLE", "_PINNED", "_DEVICE", "_ARRAY",
					     "_MANAGED", "_DEVICE_STATIC", "_MANAGED_STATIC" };
	static const struct { int id; const char *name; } copies[] = {
		{ 1, "_HTOD" }, { 2, "_DTOH" }, { 8, "_DTOD" }, { 9, "_HTOH" }, { 10, "_PTOP" } };
	r->op_alloc = 0;
	r->op_free = 1;
	for (int i = 0; i < (int)(sizeof(kinds) / sizeof(kinds[0])); i++)
		on_kind(r, i, kinds[i]);
	for (size_t i = 0; i < sizeof(copies) / sizeof(copies[0]); i++)
		on_copy(r, copies[i].id, copies[i].name);
	on_nvtx(r, 34, "NvtxMark");
	on_nvtx(r, 59, "NvtxPushPopRange");
	on_nvtx(r, 60, "NvtxStartEndRange");
	r->enums_documented = 1;
	return 1;
}

/* --- version -------------------------------------------------------------- */

/*
 * The export's schema version, from its metadata table: META_DATA_EXPORT
 * (Nsight Systems 2023.3 on) or EXPORT_META_DATA (2022.1 to 2023.2).
 */
static int check_version(struct reader *r)
{
	const char *meta = "META_DATA_EXPORT";
	int h = has_table(r, meta);
	if (h == 0) {
		meta = "EXPORT_META_DATA";
		h = has_table(r, meta);
	}
	if (h < 0)
		return h;
	if (!h && has_table(r, "StringIds") > 0)
		return fail(r, TRACE_EFORMAT,
			    "table META_DATA_EXPORT is missing (EXPORT_META_DATA too), so its export schema version is unknown (memplan knows " NSYS_KNOWN_VERSIONS "); export it again with a recent 'nsys export --type sqlite'");
	if (!h)
		return fail(r, TRACE_EFORMAT,
			    "not an Nsight Systems export (no META_DATA_EXPORT or StringIds table); make one with 'nsys export --type sqlite REPORT.nsys-rep'");
	snprintf(r->meta_table, sizeof(r->meta_table), "%s", meta);
	static const char *const need[] = { "name", "value", NULL };
	if ((h = need_columns(r, meta, need)) < 0)
		return h;
	sqlite3_stmt *st;
	char sql[128];
	snprintf(sql, sizeof(sql), "SELECT value FROM %s WHERE name = 'EXPORT_SCHEMA_VERSION'", meta);
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlfail(r, meta);
	int rc = sqlite3_step(st);
	const unsigned char *v = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
	snprintf(r->version, sizeof(r->version), "%s", v ? (const char *)v : "");
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sqlfail(r, meta);
	if (!r->version[0])
		return fail(r, TRACE_EFORMAT,
			    "table %s has no EXPORT_SCHEMA_VERSION (memplan knows " NSYS_KNOWN_VERSIONS ")",
			    meta);
	for (char *p = r->version; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = '?';
	char *end;
	errno = 0;
	long major = strtol(r->version, &end, 10);
	if (errno || end == r->version || (*end && *end != '.'))
		return fail(r, TRACE_EFORMAT,
			    "table %s, EXPORT_SCHEMA_VERSION '%s' is not a version (memplan knows " NSYS_KNOWN_VERSIONS ")",
			    meta, r->version);
	if (major != 2 && major != 3)
		return fail(r, TRACE_EFORMAT,
			    "export schema version %s is not one memplan knows (" NSYS_KNOWN_VERSIONS ")",
			    r->version);
	return 0;
}

/* --- rows ----------------------------------------------------------------- */

static struct rec *new_rec(struct reader *r)
{
	if (r->nrecs == r->caprecs) {
		size_t n = r->caprecs ? r->caprecs * 2 : 1024;
		struct rec *p = realloc(r->recs, n * sizeof(*p));
		if (!p)
			return NULL;
		r->recs = p;
		r->caprecs = n;
	}
	struct rec *c = &r->recs[r->nrecs];
	memset(c, 0, sizeof(*c));
	c->ord = r->nrecs++;
	c->name = -1;
	c->api = -1;
	c->tid = TID_NONE;
	c->t_end = TRACE_TIME_NONE;
	c->stream = TRACE_NONE;
	return c;
}

/* Distinct devices with memory events of kept kinds, into list (text). */
static int choose_device(struct reader *r, const char *kindcol)
{
	char sql[200];
	sqlite3_stmt *st;
	snprintf(sql, sizeof(sql), "SELECT DISTINCT deviceId, %s FROM " MEM, kindcol);
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlfail(r, "table " MEM);
	int64_t devs[64];
	int devmem[64]; /* the device has memory other than pinned host */
	size_t n = 0, ndev = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER)
			continue; /* reported row by row later */
		int64_t d = sqlite3_column_int64(st, 0);
		int k = lookup(r->kinds, r->nkinds, sqlite3_column_int64(st, 1));
		if (k < 0)
			continue;
		size_t i = 0;
		while (i < n && devs[i] != d)
			i++;
		if (i == n && n < 64) {
			devs[n] = d;
			devmem[n++] = 0;
		}
		if (i < n && k != TRACE_KIND_HOST && !devmem[i]) {
			devmem[i] = 1;
			ndev++;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlfail(r, "table " MEM);
	/* pinned host memory is listed under some device id too: when other
	 * devices have device memory, that device alone is not a choice */
	if (ndev) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (devmem[i] || devs[i] == r->device)
				devs[m++] = devs[i];
		n = m;
	}
	char list[256] = "";
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int m = snprintf(list + k, sizeof(list) - k, "%s%" PRId64, i ? ", " : "", devs[i]);
		if (m > 0 && (size_t)m < sizeof(list) - k)
			k += (size_t)m;
	}
	if (n == 0) {
		sqlite3_stmt *c = NULL;
		int64_t rows = -1;
		if (sqlite3_prepare_v2(r->db, "SELECT count(*) FROM " MEM, -1, &c, NULL) == SQLITE_OK &&
		    sqlite3_step(c) == SQLITE_ROW)
			rows = sqlite3_column_int64(c, 0);
		sqlite3_finalize(c);
		if (rows < 0)
			return sqlfail(r, "table " MEM);
		if (rows == 0)
			return fail(r, TRACE_EFORMAT,
				    "table " MEM " is empty: the report was recorded without 'nsys profile --cuda-memory-usage=true'; record it with that option and export again");
		return fail(r, TRACE_EFORMAT,
			    "table " MEM " holds no device, managed or pinned memory events; record them with 'nsys profile --cuda-memory-usage=true'");
	}
	if (r->device == NSYS_ANY_DEVICE) {
		if (n > 1)
			return trace_seterr(r->err, r->errlen, TRACE_EINVAL,
					    "nsys export '%s' holds memory events of devices %s: choose one with --device",
					    r->name, list);
		r->device = (int)devs[0];
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (devs[i] == r->device)
			return 0;
	return trace_seterr(r->err, r->errlen, TRACE_EINVAL,
			    "nsys export '%s' holds no memory events of device %d (devices with events: %s)",
			    r->name, r->device, list);
}

/*
 * The process to import: memory events of several processes on one device
 * (a launcher and its workers, two jobs) are never merged.  Without a
 * globalPid column (schema 2.x) every event is taken.
 */
static int choose_process(struct reader *r)
{
	if (!has_column(r, MEM, "globalPid")) {
		if (r->pid != NSYS_ANY_PID)
			return trace_seterr(r->err, r->errlen, TRACE_EINVAL,
					    "nsys export '%s' has no process ids (table " MEM " lacks column globalPid): --pid does not apply",
					    r->name);
		return 0;
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT DISTINCT " SQL_PID("globalPid") ", memKind FROM " MEM
			       " WHERE deviceId = ? AND typeof(globalPid) = 'integer'"
			       " ORDER BY 1",
			       -1, &st, NULL) != SQLITE_OK)
		return sqlfail(r, "table " MEM);
	sqlite3_bind_int64(st, 1, r->device);
	int64_t pids[64];
	size_t n = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t p = sqlite3_column_int64(st, 0);
		if (lookup(r->kinds, r->nkinds, sqlite3_column_int64(st, 1)) < 0)
			continue;
		size_t i = 0;
		while (i < n && pids[i] != p)
			i++;
		if (i == n && n < 64)
			pids[n++] = p;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlfail(r, "table " MEM);
	char list[256] = "";
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int m = snprintf(list + k, sizeof(list) - k, "%s%" PRId64, i ? ", " : "", pids[i]);
		if (m > 0 && (size_t)m < sizeof(list) - k)
			k += (size_t)m;
	}
	if (n == 0) {
		if (r->pid != NSYS_ANY_PID)
			return trace_seterr(r->err, r->errlen, TRACE_EINVAL,
					    "nsys export '%s' has no process ids on device %d: --pid does not apply",
					    r->name, r->device);
		return 0; /* globalPid is NULL throughout */
	}
	r->pid_known = 1;
	if (r->pid == NSYS_ANY_PID) {
		if (n > 1)
			return trace_seterr(r->err, r->errlen, TRACE_EINVAL,
					    "nsys export '%s' holds memory events of processes %s on device %d: choose one with --pid",
					    r->name, list, r->device);
		r->pid = pids[0];
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (pids[i] == r->pid)
			return 0;
	return trace_seterr(r->err, r->errlen, TRACE_EINVAL,
			    "nsys export '%s' holds no memory events of process %" PRId64 " on device %d (processes with events: %s)",
			    r->name, r->pid, r->device, list);
}

static int corr_cmp(const void *a, const void *b)
{
	const struct corr *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/*
 * The CUDA runtime calls that made the memory events (their thread and
 * name), by correlationId.  Optional: an export without API tracing has
 * none, and buffers then go without a thread.
 */
static int read_runtime(struct reader *r)
{
	int h = has_table(r, RUNTIME);
	if (h <= 0)
		return h;
	if (!has_column(r, RUNTIME, "correlationId") || !has_column(r, RUNTIME, "globalTid") ||
	    !has_column(r, RUNTIME, "nameId") || !has_column(r, MEM, "correlationId"))
		return 0;
	char sql[600];
	snprintf(sql, sizeof(sql),
		 "SELECT rowid, correlationId, globalTid, nameId FROM " RUNTIME
		 " WHERE %s correlationId IN (SELECT correlationId FROM " MEM
		 " WHERE deviceId = ?1 %s)",
		 r->pid_known ? SQL_PID("globalTid") " = ?2 AND" : "",
		 r->pid_known ? "AND " SQL_PID("globalPid") " = ?2" : "");
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlfail(r, "table " RUNTIME);
	sqlite3_bind_int64(st, 1, r->device);
	sqlite3_bind_int64(st, 2, r->pid);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t row = sqlite3_column_int64(st, 0), id, tid, name;
		if (col_int(r, st, 1, RUNTIME, row, 0, 0, &id) ||
		    col_int(r, st, 2, RUNTIME, row, 1, TID_NONE, &tid) ||
		    col_int(r, st, 3, RUNTIME, row, 1, -1, &name)) {
			sqlite3_finalize(st);
			return TRACE_EFORMAT;
		}
		if (r->ncorr == cap) {
			cap = cap ? cap * 2 : 1024;
			struct corr *p = realloc(r->corr, cap * sizeof(*p));
			if (!p) {
				sqlite3_finalize(st);
				return fail(r, TRACE_ENOMEM, "out of memory");
			}
			r->corr = p;
		}
		r->corr[r->ncorr++] = (struct corr){ id, tid, name };
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlfail(r, "table " RUNTIME);
	if (r->ncorr)
		qsort(r->corr, r->ncorr, sizeof(*r->corr), corr_cmp);
	return 0;
}

static const struct corr *corr_of(const struct reader *r, int64_t id)
{
	size_t lo = 0, hi = r->ncorr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->corr[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->ncorr && r->corr[lo].id == id ? &r->corr[lo] : NULL;
}

static int read_memory(struct reader *r)
{
	int h = has_table(r, MEM);
	if (h < 0)
		return h;
	if (!h)
		return fail(r, TRACE_EFORMAT, NO_MEMORY_TABLE);
	static const char *const need[] = { "start", "deviceId", "address", "bytes",
					    "memKind", "memoryOperationType", NULL };
	int rc = need_columns(r, MEM, need);
	if (rc || (rc = choose_device(r, "memKind")) || (rc = choose_process(r)) || (rc = read_runtime(r)))
		return rc;
	char sql[600];
	snprintf(sql, sizeof(sql),
		 "SELECT rowid, start, address, bytes, memKind, memoryOperationType, %s, %s, %s"
		 " FROM " MEM " WHERE deviceId = ?1%s",
		 has_column(r, MEM, "globalPid") ? "globalPid" : "0",
		 has_column(r, MEM, "localMemoryPoolAddress") ? "localMemoryPoolAddress" : "NULL",
		 has_column(r, MEM, "correlationId") ? "correlationId" : "NULL",
		 r->pid_known ? " AND " SQL_PID("globalPid") " = ?2" : "");
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlfail(r, "table " MEM);
	sqlite3_bind_int64(st, 1, r->device);
	if (r->pid_known)
		sqlite3_bind_int64(st, 2, r->pid);
	size_t n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t row = sqlite3_column_int64(st, 0), t, addr, bytes, kind, op, pid, pool, cid;
		if (col_int(r, st, 1, MEM, row, 0, 0, &t) ||
		    col_int(r, st, 2, MEM, row, 0, 0, &addr) ||
		    col_int(r, st, 3, MEM, row, 0, 0, &bytes) ||
		    col_int(r, st, 4, MEM, row, 0, 0, &kind) ||
		    col_int(r, st, 5, MEM, row, 0, 0, &op) ||
		    col_int(r, st, 6, MEM, row, 1, 0, &pid) ||
		    col_int(r, st, 7, MEM, row, 1, 0, &pool) ||
		    col_int(r, st, 8, MEM, row, 1, -1, &cid)) {
			sqlite3_finalize(st);
			return TRACE_EFORMAT;
		}
		int tk = lookup(r->kinds, r->nkinds, kind);
		if (tk < 0) {
			r->skipped++; /* pageable host, static memory */
			continue;
		}
		if (op != r->op_alloc && op != r->op_free) {
			sqlite3_finalize(st);
			return fail(r, TRACE_EFORMAT,
				    "table " MEM ", row %" PRId64 ", column memoryOperationType: %" PRId64 " is not in ENUM_CUDA_DEV_MEM_EVENT_OPER",
				    row, op);
		}
		if (bytes <= 0 || t < 0) {
			sqlite3_finalize(st);
			return fail(r, TRACE_EFORMAT,
				    "table " MEM ", row %" PRId64 ", column %s: %" PRId64 " is not positive",
				    row, bytes <= 0 ? "bytes" : "start", bytes <= 0 ? bytes : t);
		}
		struct rec *c = new_rec(r);
		if (!c) {
			sqlite3_finalize(st);
			return fail(r, TRACE_ENOMEM, "out of memory");
		}
		c->t = t;
		c->cls = op == r->op_free ? C_FREE : C_ALLOC;
		c->type = op == r->op_free ? TRACE_EV_FREE : TRACE_EV_ALLOC;
		c->a = addr;
		c->b = pid;
		c->bytes = (uint64_t)bytes;
		c->kind = (uint8_t)(pool && tk == TRACE_KIND_DEVICE ? TRACE_KIND_ASYNC : tk);
		c->row = row;
		const struct corr *k = cid >= 0 ? corr_of(r, cid) : NULL;
		if (k) {
			c->tid = k->tid;
			c->api = k->name;
		}
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlfail(r, "table " MEM);
	return 0;
}

/* Kernels, copies and memsets of the device. */
static int read_work(struct reader *r, const char *table, uint8_t type)
{
	int h = has_table(r, table);
	if (h <= 0)
		return h;
	static const char *const need[] = { "start", "end", "deviceId", NULL };
	if ((h = need_columns(r, table, need)) < 0)
		return h;
	const char *namecol = type != TRACE_EV_KERNEL ? "NULL"
			      : has_column(r, table, "shortName") ? "shortName"
			      : has_column(r, table, "demangledName") ? "demangledName" : "NULL";
	const char *bytes = type != TRACE_EV_KERNEL && has_column(r, table, "bytes") ? "bytes" : "NULL";
	const char *kind = type == TRACE_EV_COPY && has_column(r, table, "copyKind") ? "copyKind" : "NULL";
	const char *stream = has_column(r, table, "streamId") ? "streamId" : "NULL";
	int by_pid = r->pid_known && has_column(r, table, "globalPid");
	char sql[400];
	snprintf(sql, sizeof(sql),
		 "SELECT rowid, start, \"end\", %s, %s, %s, %s FROM %s WHERE deviceId = ?1%s",
		 stream, namecol, bytes, kind, table,
		 by_pid ? " AND " SQL_PID("globalPid") " = ?2" : "");
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlfail(r, table);
	sqlite3_bind_int64(st, 1, r->device);
	if (by_pid)
		sqlite3_bind_int64(st, 2, r->pid);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t row = sqlite3_column_int64(st, 0), t, e, s, name, b, k;
		if (col_int(r, st, 1, table, row, 0, 0, &t) ||
		    col_int(r, st, 2, table, row, 0, 0, &e) ||
		    col_int(r, st, 3, table, row, 1, TRACE_NONE, &s) ||
		    col_int(r, st, 4, table, row, 1, -1, &name) ||
		    col_int(r, st, 5, table, row, 1, 0, &b) ||
		    col_int(r, st, 6, table, row, 1, -1, &k)) {
			sqlite3_finalize(st);
			return TRACE_EFORMAT;
		}
		if (e < t || b < 0) {
			sqlite3_finalize(st);
			return fail(r, TRACE_EFORMAT,
				    "table %s, row %" PRId64 ", column %s: %" PRId64 " is %s",
				    table, row, e < t ? "end" : "bytes", e < t ? e : b,
				    e < t ? "before start" : "negative");
		}
		struct rec *c = new_rec(r);
		if (!c) {
			sqlite3_finalize(st);
			return fail(r, TRACE_ENOMEM, "out of memory");
		}
		c->t = t;
		c->t_end = e;
		c->stream = s;
		c->name = name;
		c->bytes = (uint64_t)b;
		c->cls = C_WORK;
		c->type = type;
		int ck = lookup(r->copy_ids, r->ncopy, k);
		c->aux = (uint8_t)(ck < 0 ? TRACE_COPY_UNKNOWN : ck);
		c->row = row;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sqlfail(r, table);
}

static int read_nvtx(struct reader *r)
{
	const char *table = "NVTX_EVENTS";
	int h = has_table(r, table);
	if (h <= 0)
		return h;
	static const char *const need[] = { "start", "end", NULL };
	if ((h = need_columns(r, table, need)) < 0)
		return h;
	int has_tid = has_column(r, table, "globalTid");
	int by_pid = r->pid_known && has_tid;
	char sql[400];
	snprintf(sql, sizeof(sql),
		 "SELECT rowid, start, \"end\", %s, %s, %s, %s FROM NVTX_EVENTS%s",
		 has_column(r, table, "text") ? "text" : "NULL",
		 has_column(r, table, "textId") ? "textId" : "NULL",
		 has_column(r, table, "eventType") ? "eventType" : "NULL",
		 has_tid ? "globalTid" : "NULL",
		 by_pid ? " WHERE globalTid IS NULL OR " SQL_PID("globalTid") " = ?1" : "");
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlfail(r, table);
	if (by_pid)
		sqlite3_bind_int64(st, 1, r->pid);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t row = sqlite3_column_int64(st, 0), t, e, tid, ty, thread;
		if (col_int(r, st, 1, table, row, 0, 0, &t) ||
		    col_int(r, st, 2, table, row, 1, TRACE_TIME_NONE, &e) ||
		    col_int(r, st, 4, table, row, 1, -1, &tid) ||
		    col_int(r, st, 5, table, row, 1, -1, &ty) ||
		    col_int(r, st, 6, table, row, 1, TID_NONE, &thread)) {
			sqlite3_finalize(st);
			return TRACE_EFORMAT;
		}
		int known = ty == r->nvtx_mark || ty == r->nvtx_push || ty == r->nvtx_startend;
		if (r->nvtx_enum && !known)
			continue; /* domains, categories, thread names */
		const unsigned char *txt = sqlite3_column_text(st, 3);
		const char *text = txt ? trace_intern(r->t, (const char *)txt) : string_of(r, tid);
		int range = r->nvtx_enum && ty == r->nvtx_mark ? 0 : e != TRACE_TIME_NONE;
		if (range && e < t) {
			sqlite3_finalize(st);
			return fail(r, TRACE_EFORMAT,
				    "table NVTX_EVENTS, row %" PRId64 ", column end: %" PRId64 " is before start",
				    row, e);
		}
		for (int k = 0; k < 1 + range; k++) {
			struct rec *c = new_rec(r);
			if (!c) {
				sqlite3_finalize(st);
				return fail(r, TRACE_ENOMEM, "out of memory");
			}
			c->t = k ? e : t;
			c->cls = !range ? C_POINT : !k ? C_BEGIN : e > t ? C_END : C_LATE;
			c->type = TRACE_EV_MARK;
			c->aux = !range ? TRACE_MARK_POINT : k ? TRACE_MARK_END : TRACE_MARK_BEGIN;
			c->text = text;
			c->row = row;
			c->tid = thread;
			c->a = range && e == t; /* an empty range holds nothing */
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sqlfail(r, table);
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return (x->ord > y->ord) - (x->ord < y->ord);
}

/* --- building ------------------------------------------------------------- */

struct open_buf {
	int64_t pid, addr, id;
};

/* An NVTX range open at the point the build has reached. */
struct open_range {
	int64_t tid, row;
	const char *text;
};

/*
 * "range (api)" for an allocation on thread tid: the innermost NVTX range
 * open on that thread (the latest opened; any thread's when the thread is
 * unknown) and the runtime call without its version suffix
 * ("cudaMalloc_v3020" is "cudaMalloc").  NULL when neither is known.
 */
static const char *alloc_label(const struct reader *r, const struct open_range *open,
			       size_t nopen, int64_t tid, int64_t api, char *buf,
			       size_t len)
{
	const char *range = NULL;
	for (size_t i = nopen; i-- > 0;)
		if (open[i].text && (tid == TID_NONE || open[i].tid == tid)) {
			range = open[i].text;
			break;
		}
	const char *call = api >= 0 ? string_of(r, api) : NULL;
	size_t n = call ? strlen(call) : 0;
	if (call) {
		size_t k = n;
		while (k > 0 && call[k - 1] >= '0' && call[k - 1] <= '9')
			k--;
		if (k < n && k >= 2 && call[k - 1] == 'v' && call[k - 2] == '_')
			n = k - 2;
	}
	if (range && call)
		snprintf(buf, len, "%s (%.*s)", range, (int)n, call);
	else if (range)
		snprintf(buf, len, "%s", range);
	else if (call && n)
		snprintf(buf, len, "%.*s", (int)n, call);
	else
		return NULL;
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return buf;
}

static int build(struct reader *r)
{
	qsort(r->recs, r->nrecs, sizeof(*r->recs), rec_cmp);
	/* open buffers by (pid, address): a small open-addressing table */
	size_t nslots = 1024;
	while (nslots < 2 * r->nrecs)
		nslots *= 2;
	struct open_buf *slots = malloc(nslots * sizeof(*slots));
	if (!slots)
		return fail(r, TRACE_ENOMEM, "out of memory");
	for (size_t i = 0; i < nslots; i++)
		slots[i].id = TRACE_NONE;
	int rc = 0;
	int64_t seq = 0;
	struct open_range *open = NULL;
	size_t nopen = 0, capopen = 0;
	for (size_t i = 0; i < r->nrecs && rc == 0; i++) {
		const struct rec *c = &r->recs[i];
		if (c->type == TRACE_EV_MARK && c->aux == TRACE_MARK_BEGIN && !c->a) {
			if (nopen == capopen) {
				size_t n = capopen ? capopen * 2 : 64;
				struct open_range *p = realloc(open, n * sizeof(*p));
				if (!p) {
					rc = fail(r, TRACE_ENOMEM, "out of memory");
					break;
				}
				open = p;
				capopen = n;
			}
			open[nopen++] = (struct open_range){ c->tid, c->row, c->text };
		} else if (c->type == TRACE_EV_MARK && c->aux == TRACE_MARK_END) {
			for (size_t k = nopen; k-- > 0;)
				if (open[k].row == c->row) {
					memmove(&open[k], &open[k + 1], (nopen - k - 1) * sizeof(*open));
					nopen--;
					break;
				}
		}
		struct trace_event e = { .seq = seq++, .t_start = c->t,
					 .t_end = c->t_end == TRACE_TIME_NONE ? c->t : c->t_end,
					 .buffer = TRACE_NONE, .stream = c->stream,
					 .bytes = c->bytes, .type = c->type, .aux = c->aux,
					 .name = c->text ? c->text : c->name >= 0 ? string_of(r, c->name) : NULL };
		if (c->type == TRACE_EV_ALLOC || c->type == TRACE_EV_FREE) {
			uint64_t h = (uint64_t)c->a * 0x9E3779B97F4A7C15ull ^ (uint64_t)c->b;
			size_t j = (size_t)(h >> 20) & (nslots - 1);
			/* deleted slots keep their key with id TRACE_NONE - 1 */
			while (slots[j].id != TRACE_NONE &&
			       !(slots[j].addr == c->a && slots[j].pid == c->b))
				j = (j + 1) & (nslots - 1);
			int is_open = slots[j].id >= 0;
			if (c->type == TRACE_EV_ALLOC && is_open) {
				rc = fail(r, TRACE_EFORMAT,
					  "table " MEM ", row %" PRId64 ": allocation at 0x%" PRIx64 ", which is still allocated",
					  c->row, c->a);
				break;
			}
			if (c->type == TRACE_EV_FREE && is_open &&
			    r->t->buffers[slots[j].id].size != c->bytes) {
				rc = fail(r, TRACE_EFORMAT,
					  "table " MEM ", row %" PRId64 ", column bytes: %" PRIu64 " bytes freed at 0x%" PRIx64 ", which holds %" PRIu64,
					  c->row, c->bytes, c->a, r->t->buffers[slots[j].id].size);
				break;
			}
			if (!is_open) {
				/* an alloc, or a free of memory allocated before
				 * the recording: live at start */
				char lbuf[512];
				/* every kind comes from CUDA's allocation
				 * routines: 256-byte aligned (trace.h) */
				struct trace_buffer b = { .size = c->bytes, .addr = (uint64_t)c->a,
							  .align = TRACE_ALIGN_CUDA,
							  .fixed_offset = TRACE_NONE,
							  .stream = TRACE_NONE, .device = r->device,
							  .kind = c->kind };
				if (c->type == TRACE_EV_ALLOC)
					b.label = alloc_label(r, open, nopen, c->tid, c->api,
							      lbuf, sizeof(lbuf));
				int64_t id = trace_add_buffer(r->t, &b);
				if (id < 0) {
					rc = fail(r, TRACE_ENOMEM, "out of memory");
					break;
				}
				slots[j] = (struct open_buf){ c->b, c->a, id };
			}
			e.buffer = slots[j].id;
			e.bytes = 0;
			if (c->type == TRACE_EV_FREE)
				slots[j].id = TRACE_NONE - 1;
		}
		if (trace_add_event(r->t, &e) < 0)
			rc = fail(r, TRACE_ENOMEM, "out of memory");
	}
	free(slots);
	free(open);
	return rc;
}

int nsys_import_db(struct sqlite3 *db, const char *name, int device,
		   struct trace **out, char *err, size_t errlen)
{
	return nsys_import_db_process(db, name, device, NSYS_ANY_PID, out, err,
				      errlen);
}

int nsys_import_db_process(struct sqlite3 *db, const char *name, int device,
			   int64_t pid, struct trace **out, char *err,
			   size_t errlen)
{
	struct reader r = { .db = db, .name = name, .err = err, .errlen = errlen,
			    .device = device, .pid = pid, .op_alloc = -1, .op_free = -1,
			    .nvtx_mark = -1, .nvtx_push = -1, .nvtx_startend = -1 };
	if (!(r.t = trace_new()))
		return fail(&r, TRACE_ENOMEM, "out of memory");
	int rc;
	/* has_table() has set the message when it returns < 0 */
	if ((rc = check_version(&r)) == 0 && (rc = has_table(&r, MEM)) == 0)
		rc = fail(&r, TRACE_EFORMAT, NO_MEMORY_TABLE);
	else if (rc > 0)
		rc = 0;
	int documented = 0;
	if (rc == 0) {
		int a = has_table(&r, "ENUM_CUDA_DEV_MEM_EVENT_OPER"), b = 0;
		if (a < 0)
			rc = a;
		else if ((b = has_table(&r, "ENUM_CUDA_MEM_KIND")) < 0)
			rc = b;
		else if (!a && !b)
			documented = documented_enums(&r);
	}
	if (rc == 0 && (rc = load_strings(&r)) == 0 &&
	    (documented ||
	     ((rc = read_enum(&r, "ENUM_CUDA_DEV_MEM_EVENT_OPER", 0, on_oper)) == 0 &&
	      (rc = read_enum(&r, "ENUM_CUDA_MEM_KIND", 0, on_kind)) == 0 &&
	      (rc = read_enum(&r, "ENUM_CUDA_MEMCPY_OPER", 1, on_copy)) >= 0 &&
	      (rc = read_enum(&r, "ENUM_NSYS_EVENT_TYPE", 1, on_nvtx)) >= 0))) {
		r.nvtx_enum = documented || rc == 0;
		rc = 0;
		if (r.op_alloc < 0 || r.op_free < 0)
			rc = fail(&r, TRACE_EFORMAT,
				  "table ENUM_CUDA_DEV_MEM_EVENT_OPER names no ALLOCATION and DEALLOCATION");
	}
	if (rc == 0)
		rc = read_memory(&r);
	if (rc == 0 && (rc = read_work(&r, "CUPTI_ACTIVITY_KIND_KERNEL", TRACE_EV_KERNEL)) == 0 &&
	    (rc = read_work(&r, "CUPTI_ACTIVITY_KIND_MEMCPY", TRACE_EV_COPY)) == 0 &&
	    (rc = read_work(&r, "CUPTI_ACTIVITY_KIND_MEMSET", TRACE_EV_MEMSET)) == 0)
		rc = read_nvtx(&r);
	if (rc == 0 && r.colerr)
		rc = r.colerr; /* a column lookup failed where absence was allowed */
	if (rc == 0)
		rc = build(&r);
	if (rc == 0) {
		char dev[32], skipped[32];
		const char *base = strrchr(name, '/');
		snprintf(dev, sizeof(dev), "cuda:%d", r.device);
		snprintf(skipped, sizeof(skipped), "%zu", r.skipped);
		if ((documented &&
		     trace_set_meta(r.t, "nsys.enums", "documented numbers (no ENUM_ tables)") < 0) ||
		    trace_set_meta(r.t, "nsys.metadata_table", r.meta_table) < 0 ||
		    trace_set_meta(r.t, "source", "nsys-sqlite") < 0 ||
		    trace_set_meta(r.t, "source_file", base ? base + 1 : name) < 0 ||
		    trace_set_meta(r.t, "device", dev) < 0 ||
		    trace_set_meta(r.t, "nsys.export_schema_version", r.version) < 0 ||
		    trace_set_meta(r.t, "nsys.skipped_memory_events", skipped) < 0)
			rc = fail(&r, TRACE_ENOMEM, "out of memory");
		char pid[32];
		snprintf(pid, sizeof(pid), "%" PRId64, r.pid);
		if (rc == 0 && r.pid_known && trace_set_meta(r.t, "nsys.pid", pid) < 0)
			rc = fail(&r, TRACE_ENOMEM, "out of memory");
	}
	if (rc == 0) {
		char msg[400];
		if ((rc = trace_finish(r.t, msg, sizeof(msg))))
			fail(&r, rc, "%s", msg);
	}
	free(r.recs);
	free(r.corr);
	free(r.sid);
	free(r.sval);
	if (rc) {
		trace_free(r.t);
		return rc;
	}
	*out = r.t;
	return 0;
}

int nsys_import(const char *path, int device, struct trace **out, char *err,
		size_t errlen)
{
	return nsys_import_process(path, device, NSYS_ANY_PID, out, err, errlen);
}

int nsys_import_process(const char *path, int device, int64_t pid,
			struct trace **out, char *err, size_t errlen)
{
	FILE *f;
	int orc = trace_open_input(path, "cannot read nsys export", &f, err, errlen);
	if (orc)
		return orc;
	char magic[16];
	size_t n = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	if (n < sizeof(magic) || memcmp(magic, "SQLite format 3", 16) != 0)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "cannot read nsys export '%s': not an SQLite file (export the report with 'nsys export --type sqlite')",
				    path);
	sqlite3 *db;
	if (tracedb_open_readonly(path, &db) != SQLITE_OK) {
		int rc = trace_seterr(err, errlen, TRACE_EIO, "cannot read nsys export '%s': %s",
				      path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return rc;
	}
	int rc = nsys_import_db_process(db, path, device, pid, out, err, errlen);
	sqlite3_close(db);
	return rc;
}
