/* SPDX-License-Identifier: MIT */
/*
 * json_read.c - the strict streaming JSON reader of json_read.h, for the
 * PyTorch execution-trace and profiler-trace importers.  Bytes come through
 * a caller's read function (plain, gzip or a tar member), 64 KiB at a time;
 * containers are walked with an explicit stack and single values are
 * materialised in a reusable arena.  Invariant: nothing the reader holds
 * grows with the file, only with the largest value asked for.
 */
#include "json_read.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUFSZ 65536
#define BLOCK ((size_t)64 << 10)
#define MAX_NUMBER 512 /* characters of one number */

struct block {
	struct block *next;
	size_t cap, used;
	/* followed by cap bytes, max_align_t aligned */
};

struct json_reader {
	json_read_fn read;
	void *ctx;
	uint8_t *buf;
	size_t pos, len;
	uint64_t base; /* file offset of buf[0] */
	int eof, failed;
	char err[256];
	/* open containers of the walk: 'o' or 'a', and whether a member was read */
	char kind[JSON_READ_MAX_DEPTH];
	uint8_t seen[JSON_READ_MAX_DEPTH];
	int depth;
	/* the arena of the materialised value */
	struct block *blocks, *cur;
	size_t arena_total;
	/* members of containers being built, as a stack */
	struct jv *scratch;
	size_t nscratch, capscratch;
	/* one string being decoded */
	char *sbuf;
	size_t slen, scap;
};

static int fail(struct json_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct json_reader *r, const char *fmt, ...)
{
	if (r->failed)
		return -1;
	r->failed = 1;
	int n = snprintf(r->err, sizeof(r->err), "at byte %" PRIu64 ": ",
			 r->base + r->pos);
	if (n > 0 && (size_t)n < sizeof(r->err)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

struct json_reader *json_reader_new(json_read_fn read, void *ctx)
{
	struct json_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->buf = malloc(BUFSZ);
	if (!r->buf) {
		free(r);
		return NULL;
	}
	r->read = read;
	r->ctx = ctx;
	return r;
}

void json_reader_free(struct json_reader *r)
{
	if (!r)
		return;
	for (struct block *b = r->blocks, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	free(r->scratch);
	free(r->sbuf);
	free(r->buf);
	free(r);
}

const char *json_reader_error(const struct json_reader *r)
{
	return r->failed ? r->err : "no error";
}

uint64_t json_reader_offset(const struct json_reader *r)
{
	return r->base + r->pos;
}

/* --- bytes --------------------------------------------------------------- */

/* The next byte without consuming it, or -1 at the end (or on a read error,
 * which sets failed). */
static int peek(struct json_reader *r)
{
	if (r->pos < r->len)
		return r->buf[r->pos];
	if (r->eof || r->failed)
		return -1;
	r->base += r->len;
	r->pos = r->len = 0;
	long n = r->read(r->ctx, r->buf, BUFSZ);
	if (n < 0) {
		fail(r, "cannot read the input");
		return -1;
	}
	if (n == 0) {
		r->eof = 1;
		return -1;
	}
	r->len = (size_t)n;
	return r->buf[0];
}

static int getb(struct json_reader *r)
{
	int c = peek(r);
	if (c >= 0)
		r->pos++;
	return c;
}

static int skip_ws(struct json_reader *r)
{
	int c;
	while ((c = peek(r)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		r->pos++;
	return c;
}

static int unexpected(struct json_reader *r, int c, const char *want)
{
	if (c < 0)
		return r->failed ? -1 : fail(r, "the input ends where %s was expected", want);
	if (c >= 0x20 && c < 0x7f)
		return fail(r, "'%c' where %s was expected", c, want);
	return fail(r, "byte 0x%02x where %s was expected", c, want);
}

/* --- arena --------------------------------------------------------------- */

static void arena_reset(struct json_reader *r)
{
	for (struct block *b = r->blocks; b; b = b->next)
		b->used = 0;
	r->cur = r->blocks;
	r->arena_total = 0;
}

static void *arena_alloc(struct json_reader *r, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n > JSON_READ_MAX_VALUE || r->arena_total + n > JSON_READ_MAX_VALUE) {
		fail(r, "a value larger than %zu MiB", JSON_READ_MAX_VALUE >> 20);
		return NULL;
	}
	while (r->cur && r->cur->cap - r->cur->used < n)
		r->cur = r->cur->next;
	if (!r->cur) {
		size_t cap = n > BLOCK ? n : BLOCK;
		struct block *b = malloc(sizeof(struct block) + 16 + cap);
		if (!b) {
			fail(r, "out of memory");
			return NULL;
		}
		b->cap = cap;
		b->used = 0;
		b->next = r->blocks;
		r->blocks = b;
		r->cur = b;
	}
	uint8_t *data = (uint8_t *)(r->cur + 1);
	data += (16 - ((uintptr_t)data & 15)) & 15;
	void *p = data + r->cur->used;
	r->cur->used += n;
	r->arena_total += n;
	return p;
}

/* --- strings ------------------------------------------------------------- */

static int sput(struct json_reader *r, const char *p, size_t n)
{
	if (r->slen + n + 1 > r->scap) {
		if (r->slen + n + 1 > JSON_READ_MAX_VALUE)
			return fail(r, "a string longer than %zu MiB", JSON_READ_MAX_VALUE >> 20);
		size_t cap = r->scap ? r->scap : 256;
		while (cap < r->slen + n + 1)
			cap *= 2;
		char *s = realloc(r->sbuf, cap);
		if (!s)
			return fail(r, "out of memory");
		r->sbuf = s;
		r->scap = cap;
	}
	memcpy(r->sbuf + r->slen, p, n);
	r->slen += n;
	r->sbuf[r->slen] = 0;
	return 0;
}

static int hex4(struct json_reader *r, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int c = getb(r);
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return unexpected(r, c, "a hex digit of \\u");
	}
	*out = v;
	return 0;
}

static int put_utf8(struct json_reader *r, unsigned cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return sput(r, b, n);
}

/* One UTF-8 sequence whose lead byte c was consumed: checked and copied. */
static int utf8_seq(struct json_reader *r, int c)
{
	char b[4];
	int n;
	unsigned cp, min;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = (unsigned)c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = (unsigned)c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = (unsigned)c & 0x07;
		min = 0x10000;
	} else {
		r->pos--;
		return fail(r, "invalid UTF-8 in a string");
	}
	b[0] = (char)c;
	for (int i = 1; i < n; i++) {
		int d = peek(r);
		if (d < 0x80 || d > 0xbf)
			return fail(r, "invalid UTF-8 in a string");
		r->pos++;
		b[i] = (char)d;
		cp = (cp << 6) | ((unsigned)d & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return fail(r, "invalid UTF-8 in a string");
	return sput(r, b, (size_t)n);
}

/* Decodes a string (the opening quote is next) into sbuf. */
static int read_string(struct json_reader *r)
{
	if (getb(r) != '"')
		return fail(r, "a string was expected");
	r->slen = 0;
	if (sput(r, "", 0))
		return -1;
	for (;;) {
		/* copy the plain run inside the buffer at once */
		size_t s = r->pos;
		while (r->pos < r->len) {
			uint8_t c = r->buf[r->pos];
			if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
				break;
			r->pos++;
		}
		if (r->pos > s && sput(r, (const char *)r->buf + s, r->pos - s))
			return -1;
		int c = getb(r);
		if (c < 0)
			return unexpected(r, c, "the end of a string");
		if (c == '"')
			return 0;
		if (c < 0x20) {
			r->pos--;
			return fail(r, "a control character (0x%02x) inside a string", c);
		}
		if (c >= 0x80) {
			if (utf8_seq(r, c))
				return -1;
			continue;
		}
		if (c != '\\') {
			/* a plain byte that came with a refill of the buffer */
			if (sput(r, (const char[]){ (char)c }, 1))
				return -1;
			continue;
		}
		c = getb(r);
		unsigned cp;
		switch (c) {
		case '"': case '\\': case '/':
			if (sput(r, (const char[]){ (char)c }, 1))
				return -1;
			break;
		case 'b': if (sput(r, "\b", 1)) return -1; break;
		case 'f': if (sput(r, "\f", 1)) return -1; break;
		case 'n': if (sput(r, "\n", 1)) return -1; break;
		case 'r': if (sput(r, "\r", 1)) return -1; break;
		case 't': if (sput(r, "\t", 1)) return -1; break;
		case 'u':
			if (hex4(r, &cp))
				return -1;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return fail(r, "a lone low surrogate \\u%04x", cp);
			if (cp >= 0xd800 && cp <= 0xdbff) {
				unsigned lo;
				if (getb(r) != '\\' || getb(r) != 'u')
					return fail(r, "a high surrogate \\u%04x without its pair", cp);
				if (hex4(r, &lo))
					return -1;
				if (lo < 0xdc00 || lo > 0xdfff)
					return fail(r, "a high surrogate \\u%04x without its pair", cp);
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			if (put_utf8(r, cp))
				return -1;
			break;
		default:
			return unexpected(r, c, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
		}
	}
}

/* --- numbers ------------------------------------------------------------- */

static int read_number(struct json_reader *r, struct jv *out)
{
	char s[MAX_NUMBER + 1];
	size_t n = 0;
	int integer = 1, c;
#define TAKE()                                                             \
	do {                                                               \
		if (n == MAX_NUMBER)                                       \
			return fail(r, "a number longer than %d characters", MAX_NUMBER); \
		s[n++] = (char)getb(r);                                    \
	} while (0)
	if (peek(r) == '-')
		TAKE();
	c = peek(r);
	if (c == '0') {
		TAKE();
	} else if (c >= '1' && c <= '9') {
		while ((c = peek(r)) >= '0' && c <= '9')
			TAKE();
	} else {
		return unexpected(r, c, "a digit");
	}
	if (peek(r) == '.') {
		integer = 0;
		TAKE();
		if ((c = peek(r)) < '0' || c > '9')
			return unexpected(r, c, "a digit after '.'");
		while ((c = peek(r)) >= '0' && c <= '9')
			TAKE();
	}
	if ((c = peek(r)) == 'e' || c == 'E') {
		integer = 0;
		TAKE();
		if ((c = peek(r)) == '+' || c == '-')
			TAKE();
		if ((c = peek(r)) < '0' || c > '9')
			return unexpected(r, c, "a digit of the exponent");
		while ((c = peek(r)) >= '0' && c <= '9')
			TAKE();
	}
#undef TAKE
	s[n] = 0;
	if (r->failed)
		return -1;
	if (integer) {
		errno = 0;
		long long v = strtoll(s, NULL, 10);
		if (errno == 0) {
			if (out) {
				out->type = JV_INT;
				out->u.i = v;
			}
			return 0;
		}
	}
	errno = 0;
	double d = strtod(s, NULL);
	if (!isfinite(d))
		return fail(r, "the number %.40s%s is out of range", s, n > 40 ? "..." : "");
	if (out) {
		out->type = JV_NUM;
		out->u.d = d;
	}
	return 0;
}

/* --- values -------------------------------------------------------------- */

static int push_scratch(struct json_reader *r, const struct jv *v)
{
	if (r->nscratch == r->capscratch) {
		size_t cap = r->capscratch ? r->capscratch * 2 : 64;
		if (cap * sizeof(struct jv) > JSON_READ_MAX_VALUE)
			return fail(r, "a value with too many members");
		struct jv *s = realloc(r->scratch, cap * sizeof(*s));
		if (!s)
			return fail(r, "out of memory");
		r->scratch = s;
		r->capscratch = cap;
	}
	r->scratch[r->nscratch++] = *v;
	return 0;
}

static int literal(struct json_reader *r, const char *word)
{
	for (const char *p = word; *p; p++)
		if (getb(r) != *p) {
			r->pos = r->pos ? r->pos - 1 : 0;
			return fail(r, "not a JSON value (expected '%s')", word);
		}
	return 0;
}

static const char *arena_string(struct json_reader *r)
{
	char *s = arena_alloc(r, r->slen + 1);
	if (s)
		memcpy(s, r->sbuf, r->slen + 1);
	return s;
}

/*
 * Reads one value at nesting depth depth.  out NULL: checked and dropped
 * (json_skip); else stored, its strings and members in the arena.
 */
static int parse_value(struct json_reader *r, struct jv *out, int depth)
{
	int c = skip_ws(r);
	if (out)
		memset(out, 0, sizeof(*out));
	switch (c) {
	case '{':
	case '[': {
		int obj = c == '{';
		if (depth >= JSON_READ_MAX_DEPTH)
			return fail(r, "nesting deeper than %d levels", JSON_READ_MAX_DEPTH);
		r->pos++;
		size_t base = r->nscratch, count = 0;
		c = skip_ws(r);
		if (c == (obj ? '}' : ']')) {
			r->pos++;
		} else {
			for (;;) {
				struct jv v;
				const char *key = NULL;
				if (obj) {
					if (skip_ws(r) != '"')
						return unexpected(r, peek(r), "a key string");
					if (read_string(r))
						return -1;
					if (out && !(key = arena_string(r)))
						return -1;
					if ((c = skip_ws(r)) != ':')
						return unexpected(r, c, "':'");
					r->pos++;
				}
				if (parse_value(r, out ? &v : NULL, depth + 1))
					return -1;
				if (out) {
					v.key = key;
					if (push_scratch(r, &v))
						return -1;
				}
				if (++count > UINT32_MAX)
					return fail(r, "a container with more than 2^32 members");
				c = skip_ws(r);
				if (c == ',') {
					r->pos++;
					continue;
				}
				if (c == (obj ? '}' : ']')) {
					r->pos++;
					break;
				}
				return unexpected(r, c, obj ? "',' or '}'" : "',' or ']'");
			}
		}
		if (out) {
			out->type = obj ? JV_OBJ : JV_ARR;
			out->len = (uint32_t)count;
			if (count) {
				out->u.kids = arena_alloc(r, count * sizeof(struct jv));
				if (!out->u.kids)
					return -1;
				memcpy(out->u.kids, r->scratch + base, count * sizeof(struct jv));
			}
			r->nscratch = base;
		}
		return 0;
	}
	case '"':
		if (read_string(r))
			return -1;
		if (out) {
			if (r->slen > UINT32_MAX)
				return fail(r, "a string longer than 4 GiB");
			out->type = JV_STR;
			out->len = (uint32_t)r->slen;
			if (!(out->u.s = arena_string(r)))
				return -1;
		}
		return 0;
	case 't':
		if (out)
			out->type = JV_TRUE;
		return literal(r, "true");
	case 'f':
		if (out)
			out->type = JV_FALSE;
		return literal(r, "false");
	case 'n':
		if (out)
			out->type = JV_NULL;
		return literal(r, "null");
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return read_number(r, out);
		return unexpected(r, c, "a value");
	}
}

/* --- walking ------------------------------------------------------------- */

int json_peek(struct json_reader *r)
{
	return r->failed ? -1 : skip_ws(r);
}

int json_enter(struct json_reader *r, int obj)
{
	if (r->failed)
		return -1;
	if (r->depth >= JSON_READ_MAX_DEPTH)
		return fail(r, "nesting deeper than %d levels", JSON_READ_MAX_DEPTH);
	int c = skip_ws(r);
	if (c != (obj ? '{' : '['))
		return unexpected(r, c, obj ? "an object" : "an array");
	r->pos++;
	r->kind[r->depth] = obj ? 'o' : 'a';
	r->seen[r->depth] = 0;
	r->depth++;
	return 0;
}

int json_next(struct json_reader *r, const char **key)
{
	if (r->failed)
		return -1;
	if (r->depth == 0)
		return fail(r, "json_next outside a container");
	int d = r->depth - 1, obj = r->kind[d] == 'o';
	int c = skip_ws(r);
	if (c == (obj ? '}' : ']')) {
		r->pos++;
		r->depth--;
		return 0;
	}
	if (r->seen[d]) {
		if (c != ',')
			return unexpected(r, c, obj ? "',' or '}'" : "',' or ']'");
		r->pos++;
		c = skip_ws(r);
	}
	r->seen[d] = 1;
	if (obj) {
		if (c != '"')
			return unexpected(r, c, "a key string");
		if (read_string(r))
			return -1;
		if ((c = skip_ws(r)) != ':')
			return unexpected(r, c, "':'");
		r->pos++;
		if (key)
			*key = r->sbuf;
	} else if (key) {
		*key = NULL;
	}
	return 1;
}

int json_value(struct json_reader *r, struct jv **out)
{
	if (r->failed)
		return -1;
	arena_reset(r);
	r->nscratch = 0;
	struct jv *v = arena_alloc(r, sizeof(*v));
	if (!v || parse_value(r, v, r->depth))
		return -1;
	*out = v;
	return 0;
}

int json_skip(struct json_reader *r)
{
	if (r->failed)
		return -1;
	return parse_value(r, NULL, r->depth);
}

int json_end(struct json_reader *r)
{
	if (r->failed)
		return -1;
	int c = skip_ws(r);
	if (r->failed)
		return -1;
	if (c >= 0)
		return unexpected(r, c, "the end of the input");
	return 0;
}

/* --- trees --------------------------------------------------------------- */

const struct jv *jv_get(const struct jv *o, const char *key)
{
	if (!o || o->type != JV_OBJ)
		return NULL;
	for (uint32_t i = 0; i < o->len; i++)
		if (strcmp(o->u.kids[i].key, key) == 0)
			return &o->u.kids[i];
	return NULL;
}

const struct jv *jv_at(const struct jv *a, size_t i)
{
	if (!a || a->type != JV_ARR || i >= a->len)
		return NULL;
	return &a->u.kids[i];
}

const char *jv_type_name(const struct jv *v)
{
	if (!v)
		return "absent";
	switch (v->type) {
	case JV_NULL: return "null";
	case JV_FALSE:
	case JV_TRUE: return "a boolean";
	case JV_INT: return "an integer";
	case JV_NUM: return "a number";
	case JV_STR: return "a string";
	case JV_ARR: return "an array";
	default: return "an object";
	}
}
