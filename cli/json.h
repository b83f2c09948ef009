/* SPDX-License-Identifier: MIT */
/*
 * json.h - a small streaming JSON writer for the commands' machine-readable
 * output (memplan-analyze's reports; json_quote() for the others).  It keeps the commas and nesting straight; the
 * shapes themselves are documented in memplan-analyze(1).  Sizes are exact
 * integers, never rounded floats.
 */
#ifndef MEMPLAN_JSON_H
#define MEMPLAN_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	unsigned char used[JSON_MAX_DEPTH]; /* a value was written at this level */
};

void json_init(struct json *j, FILE *f);

/*
 * Every writer takes the key of the value inside an object, or NULL inside
 * an array and at the top.
 */
void json_object(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_string(struct json *j, const char *key, const char *s); /* NULL: null */
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_double(struct json *j, const char *key, double v); /* not finite: null */
void json_bool(struct json *j, const char *key, int v);
void json_null(struct json *j, const char *key);
/* Ends the document with a newline. */
void json_finish(struct json *j);

/* Writes s as a JSON string literal (quotes included) to f; NULL as "". */
void json_quote(FILE *f, const char *s);

#endif
