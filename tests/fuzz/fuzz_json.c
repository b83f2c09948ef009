/* SPDX-License-Identifier: MIT */
/*
 * fuzz_json.c - fuzz target for the streaming JSON reader and the
 * execution-trace importer: any input either fails with a message that
 * names a byte offset or a node, or gives a tree whose strings end where
 * their lengths say and whose depth is within the limit; an execution
 * trace that imports is a finished trace.  The input is read in chunks
 * whose size comes from its first byte, so refills land everywhere.
 * Run by tests/fuzz/driver.c or by libFuzzer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import_et.h"
#include "json_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct src {
	const uint8_t *p;
	size_t len, pos, chunk;
};

static long src_read(void *ctx, uint8_t *buf, size_t n)
{
	struct src *s = ctx;
	if (n > s->chunk)
		n = s->chunk;
	if (n > s->len - s->pos)
		n = s->len - s->pos;
	memcpy(buf, s->p + s->pos, n);
	s->pos += n;
	return (long)n;
}

static unsigned walk(const struct jv *v, unsigned depth)
{
	if (depth > JSON_READ_MAX_DEPTH + 1)
		abort();
	if (v->type == JV_STR && v->u.s[v->len] != '\0')
		abort();
	unsigned deepest = depth;
	if (v->type == JV_ARR || v->type == JV_OBJ)
		for (uint32_t i = 0; i < v->len; i++) {
			if ((v->type == JV_OBJ) != (v->u.kids[i].key != NULL))
				abort();
			unsigned d = walk(&v->u.kids[i], depth + 1);
			if (d > deepest)
				deepest = d;
		}
	return deepest;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t chunk = size ? (size_t)data[0] % 61 + 1 : 1;
	struct src s = { data, size, 0, chunk };
	struct json_reader *r = json_reader_new(src_read, &s);
	if (!r)
		return 0;
	struct jv *v;
	if (json_value(r, &v) == 0 && json_end(r) == 0)
		walk(v, 1);
	else if (strncmp(json_reader_error(r), "at byte ", 8) != 0)
		abort();
	json_reader_free(r);

	/* the same bytes as an execution trace, alone and as its own profiler trace */
	char err[512];
	struct trace *t = NULL;
	s = (struct src){ data, size, 0, chunk };
	int rc = et_import_streams("fuzz.json", src_read, &s, NULL, NULL, NULL,
				   NULL, ET_ANY_DEVICE, &t, err, sizeof(err));
	if (rc == 0) {
		if (!t || !t->finished)
			abort();
		trace_free(t);
	} else if (!err[0] || t) {
		abort();
	}
	struct src k = { data, size, 0, chunk };
	s = (struct src){ data, size, 0, chunk };
	t = NULL;
	rc = et_import_streams("fuzz.json", src_read, &s, "fuzz-k.json", src_read, &k,
			       NULL, ET_ANY_DEVICE, &t, err, sizeof(err));
	if (rc == 0) {
		if (!t || !t->finished)
			abort();
		trace_free(t);
	}
	return 0;
}
