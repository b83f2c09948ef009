/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pickle.c - fuzz target for the strict unpickler and the snapshot
 * importer: any input either fails with a message or gives a value tree
 * whose recorded depth and sizes are consistent, and any snapshot that
 * imports is a finished trace.  Run by tests/fuzz/driver.c or by libFuzzer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import_snapshot.h"
#include "pickle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Checks v and returns its depth; aborts on an inconsistency. */
static unsigned walk(const struct pickle_value *v, unsigned budget)
{
	if (!v || budget == 0)
		abort();
	if (v->type == PICKLE_STR || v->type == PICKLE_BYTES) {
		if (v->u.s[v->n] != '\0')
			abort();
		return 0;
	}
	if (v->type < PICKLE_LIST)
		return 0;
	size_t n = v->type == PICKLE_DICT ? 2 * v->n : v->n;
	unsigned deepest = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = walk(v->u.items[i], budget - 1);
		if (d > deepest)
			deepest = d;
	}
	if (v->depth != deepest + 1 || (n && !v->sealed && budget < 64))
		abort();
	return deepest + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct pickle_doc *doc = NULL;
	struct pickle_limits lim = { .max_depth = 32, .max_memory = 64u << 20,
				     .max_expanded = 1u << 16 };
	int rc = pickle_parse("fuzz.pickle", data, size, &lim, &doc, err, sizeof(err));
	if (rc == 0) {
		if (!doc || !pickle_root(doc))
			abort();
		walk(pickle_root(doc), 64);
		pickle_free(doc);
	} else if (doc || err[0] == '\0') {
		abort(); /* a failure says why and gives nothing */
	}
	struct trace *t = NULL;
	rc = snapshot_parse("fuzz.pickle", data, size, SNAPSHOT_ANY_DEVICE, &t, err,
			    sizeof(err));
	if (rc == 0) {
		if (!t || !t->finished)
			abort();
		trace_peak(t, TRACE_ALL, NULL);
		trace_free(t);
	} else if (t || err[0] == '\0') {
		abort();
	}
	return 0;
}
