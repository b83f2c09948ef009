/* SPDX-License-Identifier: MIT */
/*
 * input.c - a planner input from either of its two formats (input.h).  The
 * format is decided by the first 16 bytes only, so a damaged trace still
 * reaches trace_load() and gets its error rather than a CSV parser's.
 */
#include "input.h"

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "detect.h"
#include "minimalloc_csv.h"
#include "tracedb.h"

enum { SQLITE = 1, CSV = 0, NEITHER = 2 };

/* room for a hint: the path and a command */
#define ERRLEN_HINT 1024

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
	/* JSON (a Kineto trace's first line has commas) is no CSV */
	size_t i = 0;
	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	if (i < n && (head[i] == '{' || head[i] == '['))
		return NEITHER;
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
	/* what the file is, when memplan knows it, else what it is not */
	if (rc == TRACE_EFORMAT && !input_explain(path, "trace", err, errlen) &&
	    kind == NEITHER) {
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

/* The plan file's first bytes (memplan-plan(5)); the trace floor cannot
 * include the runtime's plan.h, and a format's magic never changes. */
static const char plan_magic[8] = "\x89" "MPLAN\r\n";

/* 1 when the SQLite file at path has a memplan trace's tables. */
static int is_memplan_trace(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int found = 0;
	if (tracedb_open_readonly(path, &db) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
				   "AND name IN ('buffers', 'events', 'meta')",
			       -1, &st, NULL) == SQLITE_OK) {
		found = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 3;
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return found;
}

const char *input_kind(const char *path)
{
	char head[16], err[ERRLEN_HINT], why[128];
	FILE *f;
	if (trace_open_input(path, "cannot open", &f, err, sizeof(err)))
		return NULL;
	size_t n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n >= sizeof(plan_magic) && memcmp(head, plan_magic, sizeof(plan_magic)) == 0)
		return "plan";
	if (n == 16 && memcmp(head, "SQLite format 3", 16) == 0 && is_memplan_trace(path))
		return "trace";
	const char *format = NULL;
	int rc = import_detect(path, &format, why, sizeof(why), err, sizeof(err));
	if (rc == 0)
		return format;
	/* detect refuses a profiler trace alone, saying so */
	if (rc == TRACE_EFORMAT && strstr(err, "(Chrome/Kineto)"))
		return "kineto";
	return NULL;
}

static int input_hint(const char *path, const char *want, char *buf, size_t len)
{
	static const struct {
		const char *kind, *what;
	} names[] = {
		{ "nsys-sqlite", "an Nsight Systems SQLite export" },
		{ "pytorch-snapshot", "a PyTorch memory snapshot" },
		{ "pytorch-et", "a PyTorch execution trace" },
	};
	const char *kind = input_kind(path);
	buf[0] = '\0';
	if (!kind || !strcmp(kind, want))
		return 0;
	const char *then = !strcmp(want, "plan") ? ", then 'memplan-plan compile TRACE -o PLAN'" : "";
	if (!strcmp(kind, "plan"))
		snprintf(buf, len, "; it is a memplan plan, which goes where a command takes a PLAN "
				   "('memplan-plan verify PLAN TRACE')");
	else if (!strcmp(kind, "trace"))
		snprintf(buf, len, "; it is a memplan trace: make a plan of it with "
				   "'memplan-plan compile %s -o PLAN'", path);
	else if (!strcmp(kind, "kineto"))
		snprintf(buf, len, "; this looks like a profiler (Kineto) trace: import it with its "
				   "execution trace, 'memplan-trace import ET.json --kineto %s -o TRACE'%s",
			 path, then);
	else if (!strcmp(kind, "minimalloc-csv"))
		snprintf(buf, len, "; it is a MiniMalloc CSV, which goes where a command takes a TRACE%s",
			 !strcmp(want, "plan") ? " ('memplan-plan compile CSV -o PLAN' makes a plan)" : "");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(kind, names[i].kind))
			snprintf(buf, len, "; this looks like %s: 'memplan-trace import %s -o TRACE'%s",
				 names[i].what, path, then);
	return buf[0] != '\0';
}

int input_explain(const char *path, const char *want, char *err, size_t errlen)
{
	char hint[ERRLEN_HINT];
	if (!input_hint(path, want, hint, sizeof(hint)))
		return 0;
	/* the hint answers trace_load()'s question */
	static const char ask[] = "; is this a memplan trace?";
	size_t k = strlen(err), a = sizeof(ask) - 1;
	if (k >= a && !strcmp(err + k - a, ask))
		err[k -= a] = '\0';
	if (k + 1 < errlen)
		snprintf(err + k, errlen - k, "%s", hint);
	return 1;
}
