/* SPDX-License-Identifier: MIT */
/*
 * test_json_read.c - the strict streaming JSON reader: values and walks
 * come out the same whatever size the reads come in (one byte at a time
 * included), strings decode escapes and UTF-8, numbers keep integers exact,
 * and every violation of RFC 8259 or of the bounds fails with the byte
 * offset.  Also the schema shapes the execution-trace importer relies on.
 */
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "tap.h"

struct src {
	const char *s;
	size_t len, pos, chunk;
};

static long src_read(void *ctx, uint8_t *buf, size_t n)
{
	struct src *s = ctx;
	if (n > s->chunk)
		n = s->chunk;
	if (n > s->len - s->pos)
		n = s->len - s->pos;
	memcpy(buf, s->s + s->pos, n);
	s->pos += n;
	return (long)n;
}

/* Parses text as one value with reads of chunk bytes; NULL on error. */
static struct json_reader *rd;
static struct src src;
static const struct jv *value(const char *text, size_t chunk)
{
	json_reader_free(rd);
	src = (struct src){ text, strlen(text), 0, chunk };
	rd = json_reader_new(src_read, &src);
	struct jv *v;
	if (json_value(rd, &v) || json_end(rd))
		return NULL;
	return v;
}

static void refused(const char *text, const char *why, const char *what)
{
	CHECK(value(text, 4096) == NULL, what);
	CHECK_STR_HAS(json_reader_error(rd), why, what);
}

int main(void)
{
	/* every chunk size gives the same tree: strings across refills */
	const char *doc = "{\"name\": \"aten::mm\", \"value\": [1, -2, 3.5, 1e3, true, false, null,"
			  " \"a\\u00e9\\n\\ud83d\\ude00\", {\"k\": []}], \"big\": 18446744073709551616}";
	for (size_t chunk = 1; chunk <= 4096; chunk *= 4) {
		const struct jv *v = value(doc, chunk);
		CHECK(v && v->type == JV_OBJ && v->len == 3, "an object of three members, any read size");
		const struct jv *a = jv_get(v, "value");
		CHECK(a && a->type == JV_ARR && a->len == 9, "the array is whole");
		CHECK(jv_get(v, "name") && strcmp(jv_get(v, "name")->u.s, "aten::mm") == 0,
		      "a key and a string split across reads are whole");
		CHECK(jv_at(a, 0)->type == JV_INT && jv_at(a, 0)->u.i == 1 &&
		      jv_at(a, 1)->u.i == -2, "integers are exact");
		CHECK(jv_at(a, 2)->type == JV_NUM && jv_at(a, 2)->u.d == 3.5 &&
		      jv_at(a, 3)->type == JV_NUM && jv_at(a, 3)->u.d == 1000.0,
		      "fractions and exponents are numbers");
		CHECK(jv_at(a, 4)->type == JV_TRUE && jv_at(a, 5)->type == JV_FALSE &&
		      jv_at(a, 6)->type == JV_NULL, "literals");
		CHECK(strcmp(jv_at(a, 7)->u.s, "a\xc3\xa9\n\xf0\x9f\x98\x80") == 0 &&
		      jv_at(a, 7)->len == 8, "escapes, \\u and surrogate pairs decode to UTF-8");
		CHECK(jv_get(v, "big")->type == JV_NUM, "an integer beyond int64 is a number, not wrapped");
	}

	/* walking: members one at a time, with keys */
	src = (struct src){ "{\"a\": 1, \"nodes\": [{\"id\": 1}, {\"id\": 2}, 7], \"z\": {\"x\": [1]}}",
			    0, 0, 3 };
	src.len = strlen(src.s);
	json_reader_free(rd);
	rd = json_reader_new(src_read, &src);
	const char *key;
	int n = 0, ids = 0, rc;
	CHECK(json_enter(rd, 1) == 0, "enter the top object");
	while ((rc = json_next(rd, &key)) == 1) {
		n++;
		if (strcmp(key, "nodes") == 0) {
			CHECK(json_enter(rd, 0) == 0, "enter the nodes");
			struct jv *v;
			while (json_next(rd, NULL) == 1 && json_value(rd, &v) == 0)
				ids += jv_get(v, "id") ? (int)jv_get(v, "id")->u.i : 100;
		} else {
			CHECK(json_skip(rd) == 0, "skip a member");
		}
	}
	CHECK(rc == 0 && n == 3 && ids == 103 && json_end(rd) == 0,
	      "three members, each node materialised alone");

	/* violations */
	refused("[1,]", "']' where a value was expected", "a trailing comma");
	refused("{\"a\" 1}", "where ':' was expected", "a missing colon");
	refused("[01]", "where ',' or ']' was expected", "a leading zero");
	refused("[NaN]", "'N' where a value was expected", "NaN");
	refused("[1e999]", "the number 1e999 is out of range", "a number beyond the double range");
	refused("[-]", "where a digit was expected", "a lone minus");
	refused("\"a\tb\"", "a control character (0x09) inside a string", "a raw tab");
	refused("\"\\x\"", "an escape", "an unknown escape");
	refused("\"\\ud800\"", "without its pair", "a lone high surrogate");
	refused("\"\\udc00\"", "a lone low surrogate", "a lone low surrogate");
	refused("\"\xc3\x28\"", "invalid UTF-8", "a bad continuation byte");
	refused("\"\xc0\xaf\"", "invalid UTF-8", "an overlong encoding");
	refused("\"\xed\xa0\x80\"", "invalid UTF-8", "a UTF-8 surrogate");
	refused("[1] 2", "'2' where the end of the input was expected", "two values");
	refused("[1", "the input ends where ',' or ']' was expected", "a truncated array");
	refused("", "at byte 0: the input ends where a value was expected", "empty input");
	refused("tru", "not a JSON value (expected 'true')", "a cut literal");
	char deep[200];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 99);
	deep[199] = 0;
	refused(deep, "at byte 64: nesting deeper than 64 levels", "nesting past the limit, with its offset");
	char num[700];
	memset(num, '1', 699);
	num[699] = 0;
	refused(num, "a number longer than 512 characters", "a number too long to be one");
	json_reader_free(rd);
	return tap_done();
}
