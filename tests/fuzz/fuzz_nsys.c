/* SPDX-License-Identifier: MIT */
/*
 * fuzz_nsys.c - fuzz target for the Nsight Systems export reader: the input
 * is opened as an SQLite database in memory (read-only); it either fails
 * with a message or imports to a finished trace that slices by its ranges.
 * Run by tests/fuzz/driver.c or by libFuzzer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "import_nsys.h"
#include "slice.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sqlite3 *db;
	if (size == 0 || sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		return 0;
	unsigned char *copy = sqlite3_malloc64(size);
	if (!copy) {
		sqlite3_close(db);
		return 0;
	}
	memcpy(copy, data, size);
	if (sqlite3_deserialize(db, "main", copy, (sqlite3_int64)size, (sqlite3_int64)size,
				SQLITE_DESERIALIZE_READONLY | SQLITE_DESERIALIZE_FREEONCLOSE) != SQLITE_OK) {
		sqlite3_close(db);
		return 0;
	}
	char err[512] = "";
	struct trace *t = NULL;
	int rc = nsys_import_db(db, "fuzz.sqlite", NSYS_ANY_DEVICE, &t, err, sizeof(err));
	if (rc == 0) {
		if (!t || !t->finished)
			abort();
		size_t lo, hi;
		struct trace *s = NULL;
		if (slice_range(t, "iteration", 1, &lo, &hi, err, sizeof(err)) == 0 &&
		    slice_cut(t, lo, hi, NULL, &s, err, sizeof(err)) != 0)
			abort(); /* a range of a valid trace always cuts */
		trace_free(s);
		trace_free(t);
	} else if (t || err[0] == '\0') {
		abort();
	}
	sqlite3_close(db);
	return 0;
}
