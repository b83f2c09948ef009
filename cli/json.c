/* SPDX-License-Identifier: MIT */
/*
 * json.c - the streaming JSON writer of json.h.  Strings are escaped for
 * JSON (quotes, backslashes, control characters); other bytes pass through,
 * so UTF-8 labels stay readable.
 */
#include "json.h"

#include <inttypes.h>
#include <math.h>

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->used[0] = 0;
}

void json_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Comma and key before a value. */
static void lead(struct json *j, const char *key)
{
	if (j->used[j->depth])
		fputc(',', j->f);
	j->used[j->depth] = 1;
	if (key) {
		json_quote(j->f, key);
		fputc(':', j->f);
	}
}

static void open_level(struct json *j, const char *key, char c)
{
	lead(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->used[j->depth] = 0;
}

static void close_level(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_object(struct json *j, const char *key) { open_level(j, key, '{'); }
void json_object_end(struct json *j) { close_level(j, '}'); }
void json_array(struct json *j, const char *key) { open_level(j, key, '['); }
void json_array_end(struct json *j) { close_level(j, ']'); }

void json_string(struct json *j, const char *key, const char *s)
{
	lead(j, key);
	if (s)
		json_quote(j->f, s);
	else
		fputs("null", j->f);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	lead(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	lead(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_double(struct json *j, const char *key, double v)
{
	lead(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, int v)
{
	lead(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	lead(j, key);
	fputs("null", j->f);
}

void json_finish(struct json *j)
{
	fputc('\n', j->f);
}
