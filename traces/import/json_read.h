/* SPDX-License-Identifier: MIT */
/*
 * json_read.h - a strict, bounded, streaming JSON reader for outside files
 * (PyTorch execution traces and profiler traces, possibly gigabytes).  The
 * caller walks the outer containers token by token and materialises one
 * value at a time (one ET node, one profiler event) as a small tree in an
 * arena that is reset between values, so memory is bounded by the largest
 * single value, never by the file.  RFC 8259 only: no comments, no trailing
 * commas, no NaN; nesting at most JSON_READ_MAX_DEPTH; every error names the
 * byte offset where it was found.
 */
#ifndef MEMPLAN_JSON_READ_H
#define MEMPLAN_JSON_READ_H

#include <stddef.h>
#include <stdint.h>

#define JSON_READ_MAX_DEPTH 64
/* The most bytes one materialised value may take in its arena. */
#define JSON_READ_MAX_VALUE ((size_t)256 << 20)

enum jv_type {
	JV_NULL = 0,
	JV_FALSE,
	JV_TRUE,
	JV_INT,    /* an integer that fits int64_t */
	JV_NUM,    /* any other number (fraction, exponent, or beyond int64) */
	JV_STR,
	JV_ARR,
	JV_OBJ,
};

/* One value of a materialised tree; lives in the reader's arena. */
struct jv {
	uint8_t type;      /* enum jv_type */
	uint32_t len;      /* JV_STR: bytes; JV_ARR/JV_OBJ: members */
	const char *key;   /* the member's key inside an object, else NULL */
	union {
		int64_t i;
		double d;
		const char *s;     /* NUL-terminated (may hold NULs before len) */
		struct jv *kids;   /* len members */
	} u;
};

/* Reads up to n bytes into buf; returns the count (0 at end) or -1. */
typedef long (*json_read_fn)(void *ctx, uint8_t *buf, size_t n);

struct json_reader; /* opaque */

/* A reader over read(ctx); NULL when out of memory. */
struct json_reader *json_reader_new(json_read_fn read, void *ctx);
void json_reader_free(struct json_reader *r);

/* The last error: one sentence with the byte offset ("at byte N: ..."). */
const char *json_reader_error(const struct json_reader *r);
/* The byte offset of the next unread byte. */
uint64_t json_reader_offset(const struct json_reader *r);

/*
 * Walking containers.  json_enter() expects '{' (obj=1) or '[' (obj=0) as
 * the next value.  json_next() moves to the next member of the innermost
 * open container: returns 1 when there is one (for an object *key points
 * at its key, valid until the next call), 0 when the container ended
 * (it is then closed), -1 on error.  After json_next() returned 1 the
 * member's value must be consumed by exactly one of json_enter(),
 * json_value() or json_skip().
 * All return 0 (or 1) on success, -1 on error (JSON_E* in the message).
 */
int json_enter(struct json_reader *r, int obj);
/* The first byte of the next value ('{', '[', '"', a digit ...) without
 * consuming anything but whitespace; -1 at the end or on an error.  Lets a
 * caller say what a file is before refusing it. */
int json_peek(struct json_reader *r);
int json_next(struct json_reader *r, const char **key);
/* Materialises the next value in the arena (reset first); *out until the
 * next json_value() call. */
int json_value(struct json_reader *r, struct jv **out);
int json_skip(struct json_reader *r);
/* After the top value: only whitespace may follow. */
int json_end(struct json_reader *r);

/* --- looking into a materialised tree ---------------------------------- */

/* The member called key of object o, or NULL (o not an object, or absent). */
const struct jv *jv_get(const struct jv *o, const char *key);
/* Element i of array a, or NULL. */
const struct jv *jv_at(const struct jv *a, size_t i);
/* The type's name for messages: "a string", "an array", ... */
const char *jv_type_name(const struct jv *v);

#endif
