/* SPDX-License-Identifier: MIT */
/*
 * detect.c - an outside file's format from its first bytes (import_detect):
 * SQLite's header (then its tables: an nsys export, or a memplan trace),
 * a pickle's PROTO opcode, a JSON object's keys (through zinput.h, so gzip
 * and tar are looked into), a MiniMalloc CSV header.  Never reads more than
 * 64 KiB of content; the importer chosen reads the file again, whole.
 */
#include "detect.h"

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "trace.h"
#include "tracedb.h"
#include "zinput.h"

#define HEAD 65536

static int sqlite_has(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* An SQLite file: an nsys export, or something else said by its tables. */
static int detect_sqlite(const char *path, const char **format, char *why, size_t whylen,
			 char *err, size_t errlen)
{
	sqlite3 *db;
	if (tracedb_open_readonly(path, &db) != SQLITE_OK) {
		int rc = trace_seterr(err, errlen, TRACE_EIO, "cannot read '%s': %s", path,
				      db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return rc;
	}
	int nsys = sqlite_has(db, "StringIds") || sqlite_has(db, "META_DATA_EXPORT") ||
		   sqlite_has(db, "EXPORT_META_DATA");
	int trace = sqlite_has(db, "buffers") && sqlite_has(db, "events");
	sqlite3_close(db);
	if (nsys) {
		*format = "nsys-sqlite";
		snprintf(why, whylen, "an SQLite file with Nsight Systems' export tables");
		return 0;
	}
	if (trace)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "'%s' is already a memplan trace: it needs no import", path);
	return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "'%s' is an SQLite file without Nsight Systems' export tables (StringIds, "
			    "META_DATA_EXPORT): not a format memplan-trace imports",
			    path);
}

/* The JSON object's head: an execution trace, or what else it is. */
static int detect_json(const char *path, const char *s, const char **format, char *why,
		       size_t whylen, char *err, size_t errlen)
{
	if (*s == '[')
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "'%s' is a JSON array, as export_chrome_trace() writes without Kineto: "
				    "a profiler trace, not an execution trace; import the execution trace "
				    "(--from pytorch-et ET.json), giving a Kineto trace with --kineto",
				    path);
	if (strstr(s, "\"nodes\"") && (strstr(s, "\"schema\"") || strstr(s, "\"pid\""))) {
		*format = "pytorch-et";
		snprintf(why, whylen, "JSON with 'schema' and 'nodes': a PyTorch execution trace");
		return 0;
	}
	if (strstr(s, "\"traceEvents\""))
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "'%s' is a profiler (Chrome/Kineto) trace: it goes with --kineto beside "
				    "its execution trace (--from pytorch-et ET.json --kineto '%s')",
				    path, path);
	return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "'%s' is JSON without 'nodes' or 'traceEvents' in its first 64 KiB: not a "
			    "format memplan-trace imports; give --from",
			    path);
}

int import_detect(const char *path, const char **format, char *why, size_t whylen,
		  char *err, size_t errlen)
{
	FILE *f;
	int rc = trace_open_input(path, "cannot read", &f, err, errlen);
	if (rc)
		return rc;
	unsigned char magic[16];
	size_t n = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	if (n == 16 && memcmp(magic, "SQLite format 3", 16) == 0)
		return detect_sqlite(path, format, why, whylen, err, errlen);
	if (n >= 2 && magic[0] == 0x80 && magic[1] >= 2 && magic[1] <= 5) {
		*format = "pytorch-snapshot";
		snprintf(why, whylen, "a pickle (protocol %d): a PyTorch memory snapshot", magic[1]);
		return 0;
	}
	struct zinput *z;
	if ((rc = zin_open(path, "input", &z, err, errlen)) != 0)
		return rc;
	static char head[HEAD + 1];
	size_t have = 0;
	long k;
	while (have < HEAD && (k = zin_read(z, (uint8_t *)head + have, HEAD - have)) > 0)
		have += (size_t)k;
	head[have] = 0;
	char wrap[32];
	snprintf(wrap, sizeof(wrap), "%s", zin_wrapping(z));
	zin_close(z);
	const char *s = head;
	if (have >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s == '{' || *s == '[') {
		rc = detect_json(path, s, format, why, whylen, err, errlen);
		if (rc == 0 && strcmp(wrap, "plain") != 0) {
			size_t l = strlen(why);
			snprintf(why + l, whylen - l, " (%s)", wrap);
		}
		return rc;
	}
	/* a CSV header naming MiniMalloc's columns */
	const char *nl = strchr(s, '\n');
	size_t line = nl ? (size_t)(nl - s) : strlen(s);
	char first[512];
	snprintf(first, sizeof(first), "%.*s", (int)(line < sizeof(first) - 1 ? line : sizeof(first) - 1), s);
	if (strchr(first, ',') && (strstr(first, "lower") || strstr(first, "begin") ||
				   strstr(first, "start")) &&
	    (strstr(first, "upper") || strstr(first, "end")) && strstr(first, "size")) {
		*format = "minimalloc-csv";
		snprintf(why, whylen, "a CSV whose header names lower, upper and size: MiniMalloc's");
		return 0;
	}
	return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "cannot tell what '%s' is (not an nsys SQLite export, a snapshot pickle, an "
			    "execution trace or a MiniMalloc CSV): give --from",
			    path);
}
