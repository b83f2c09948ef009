/* SPDX-License-Identifier: MIT */
/*
 * minimalloc_csv.c - MiniMalloc CSV (google/minimalloc src/converter.cc) to
 * and from a trace on the time clock, for the CLI importers and the planner
 * benchmarks.  Stricter than the reference: every bad value is an error that
 * names the file, line and column.  Canonical files round-trip byte for byte.
 */
#include "minimalloc_csv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The columns memplan understands; any other column is read and ignored. */
enum col { C_ID, C_LOWER, C_UPPER, C_SIZE, C_ALIGN, C_OFFSET, C_GAPS, C_COUNT };

static const char *const col_names[C_COUNT] = {
	"id", "lower", "upper", "size", "alignment", "offset", "gaps",
};

struct span {
	const char *p;
	size_t n;
};

struct gap {
	int64_t lower, upper, win_lo, win_hi;
	struct span text; /* the item as written, for messages */
};

/* Sort key of one ALLOC or FREE: time, then FREE before ALLOC, then record. */
struct evkey {
	int64_t t;
	uint64_t ord; /* bit 63: 1 for ALLOC; low bits: record index */
};

#define KEY_ALLOC (UINT64_C(1) << 63)

struct parser {
	const char *name;
	char *err;
	size_t errlen;
	size_t line;

	struct span *hdr;     /* header names as written */
	struct span *fields;  /* the current record, ncols entries */
	size_t ncols;
	int col[C_COUNT];     /* header index of each known column, or -1 */
	int64_t addend;       /* 1 when upper comes from an inclusive 'end' */

	char *scratch;        /* NUL-terminated copy of one field */
	size_t scratchcap;
	struct gap *gaps;     /* the gaps of the current record */
	size_t ngaps, capgaps;
	struct evkey *keys;
	size_t nkeys, capkeys;
	int64_t total;        /* sum of sizes so far */

	struct trace *t;
};

/* --- messages ---------------------------------------------------------- */

/*
 * Copies s into buf for a message: at most 40 bytes, control characters as
 * '?', and "..." when cut.
 */
static const char *show(char *buf, size_t cap, struct span s)
{
	size_t max = cap - 4 < 40 ? cap - 4 : 40, k = 0;
	for (size_t i = 0; i < s.n && k < max; i++) {
		unsigned char c = (unsigned char)s.p[i];
		buf[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (s.n > max) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = '\0';
	return buf;
}

static void put(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * Writes "'name':LINE: field F: <fmt>" (no field part when col < 0) and
 * returns TRACE_EFORMAT.
 */
static int bad(struct parser *p, int col, const char *fmt, ...)
{
	char fb[48];
	if (!p->err || !p->errlen)
		return TRACE_EFORMAT;
	int n;
	if (col >= 0)
		n = snprintf(p->err, p->errlen, "'%s':%zu: field %s: ", p->name,
			     p->line, show(fb, sizeof(fb), p->hdr[col]));
	else
		n = snprintf(p->err, p->errlen, "'%s':%zu: ", p->name, p->line);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return TRACE_EFORMAT;
}

static int nomem(struct parser *p)
{
	put(p->err, p->errlen, "'%s': out of memory", p->name);
	return TRACE_ENOMEM;
}

/* --- small helpers ----------------------------------------------------- */

static int span_is(struct span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && memcmp(s.p, lit, n) == 0;
}

static int all_digits(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* Makes *arr hold at least need elements; 0 or TRACE_ENOMEM. */
static int reserve(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	if (ncap > SIZE_MAX / elem)
		return TRACE_ENOMEM;
	void *q = realloc(*arr, ncap * elem);
	if (!q)
		return TRACE_ENOMEM;
	*arr = q;
	*cap = ncap;
	return 0;
}

/* A NUL-terminated copy of s in the scratch buffer, or NULL. */
static const char *cstr(struct parser *p, struct span s)
{
	if (reserve((void **)&p->scratch, &p->scratchcap, s.n + 1, 1) < 0)
		return NULL;
	memcpy(p->scratch, s.p, s.n);
	p->scratch[s.n] = '\0';
	return p->scratch;
}

enum num { NUM_OK, NUM_NOTINT, NUM_NEG, NUM_RANGE, NUM_NOMEM };

#define TIME_NEG_LIMIT (INT64_C(1) << 62)

/* Parses s as digits only (a leading '-' is recognised to say "negative"). */
static enum num parse_num(struct parser *p, struct span s, int64_t *v)
{
	if (s.n > 0 && s.p[0] == '-')
		return all_digits(s.p + 1, s.n - 1) ? NUM_NEG : NUM_NOTINT;
	if (!all_digits(s.p, s.n))
		return NUM_NOTINT;
	const char *c = cstr(p, s);
	if (!c)
		return NUM_NOMEM;
	char *end;
	errno = 0;
	long long x = strtoll(c, &end, 10);
	if (errno == ERANGE)
		return NUM_RANGE;
	if (*end != '\0' || x < 0)
		return NUM_NOTINT;
	*v = (int64_t)x;
	return NUM_OK;
}

/* Reads column c of the current record; positive: reject 0 too. */
static int field_int(struct parser *p, enum col c, int positive, int64_t *v)
{
	int col = p->col[c];
	struct span s = p->fields[col];
	char vb[48];
	switch (parse_num(p, s, v)) {
	case NUM_OK:
		if (positive && *v == 0)
			return bad(p, col, "'%s' is not a positive integer",
				   show(vb, sizeof(vb), s));
		return 0;
	case NUM_NOTINT:
		return bad(p, col, "'%s' is not an integer",
			   show(vb, sizeof(vb), s));
	case NUM_NEG:
		return bad(p, col,
			   positive ? "'%s' is not a positive integer"
				    : "'%s' is negative",
			   show(vb, sizeof(vb), s));
	case NUM_RANGE:
		return bad(p, col,
			   "'%s' is out of range (the largest allowed is %" PRId64 ")",
			   show(vb, sizeof(vb), s), INT64_MAX);
	default:
		return nomem(p);
	}
}

/*
 * Reads a time (lower, upper): an integer that may be negative, as in
 * MiniMalloc (idealloc's SOMAS traces start some buffers at -1), down to
 * -2^62; the importer shifts the times so that the trace's are >= 0.
 */
static int field_time(struct parser *p, enum col c, int64_t *v)
{
	int col = p->col[c];
	struct span s = p->fields[col];
	if (s.n < 2 || s.p[0] != '-')
		return field_int(p, c, 0, v);
	char vb[48];
	struct span d = { s.p + 1, s.n - 1 };
	int64_t m;
	switch (parse_num(p, d, &m)) {
	case NUM_OK:
		if (m > TIME_NEG_LIMIT)
			return bad(p, col, "'%s' is below -2^62, the earliest time memplan handles",
				   show(vb, sizeof(vb), s));
		*v = -m;
		return 0;
	case NUM_NOMEM:
		return nomem(p);
	case NUM_RANGE:
		return bad(p, col, "'%s' is below -2^62, the earliest time memplan handles",
			   show(vb, sizeof(vb), s));
	default:
		return bad(p, col, "'%s' is not an integer", show(vb, sizeof(vb), s));
	}
}

/* --- header ------------------------------------------------------------ */

/* The canonical name of a header name (aliases resolved). */
static struct span canonical(struct span s, int *inclusive)
{
	static const char *const alias[][2] = {
		{ "begin", "lower" }, { "start", "lower" }, { "buffer", "id" },
		{ "buffer_id", "id" }, { "end", "upper" },
	};
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++) {
		if (span_is(s, alias[i][0])) {
			if (strcmp(alias[i][0], "end") == 0)
				*inclusive = 1;
			return (struct span){ alias[i][1], strlen(alias[i][1]) };
		}
	}
	return s;
}

struct named {
	struct span name; /* canonical */
	size_t idx;
};

static int span_cmp(struct span x, struct span y)
{
	size_t n = x.n < y.n ? x.n : y.n;
	int c = n ? memcmp(x.p, y.p, n) : 0;
	if (c)
		return c;
	return (x.n > y.n) - (x.n < y.n);
}

/* By name, then by position, so a duplicate is reported at its second use. */
static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = span_cmp(x->name, y->name);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static size_t split(struct span line, struct span *out, size_t cap)
{
	size_t k = 0;
	const char *s = line.p, *end = line.p + line.n;
	for (;;) {
		const char *c = memchr(s, ',', (size_t)(end - s));
		const char *fe = c ? c : end;
		if (k < cap)
			out[k] = (struct span){ s, (size_t)(fe - s) };
		k++;
		if (!c)
			return k;
		s = c + 1;
	}
}

static int read_header(struct parser *p, struct span line)
{
	size_t n = 1;
	for (size_t i = 0; i < line.n; i++)
		n += line.p[i] == ',';
	p->ncols = n;
	p->hdr = malloc(n * sizeof(*p->hdr));
	p->fields = malloc(n * sizeof(*p->fields));
	struct named *nm = malloc(n * sizeof(*nm));
	if (!p->hdr || !p->fields || !nm) {
		free(nm);
		return nomem(p);
	}
	split(line, p->hdr, n);
	int inclusive = 0;
	for (size_t i = 0; i < n; i++)
		nm[i] = (struct named){ canonical(p->hdr[i], &inclusive), i };
	/* sorting keeps this O(n log n) for a header of any width */
	qsort(nm, n, sizeof(*nm), named_cmp);
	size_t dup = 0; /* position in nm of the earliest second use, or 0 */
	for (size_t i = 1; i < n; i++)
		if (span_cmp(nm[i - 1].name, nm[i].name) == 0 &&
		    (!dup || nm[i].idx < nm[dup].idx))
			dup = i;
	if (dup) {
		char a[48], b[48], c[48];
		size_t first = nm[dup - 1].idx, second = nm[dup].idx;
		int rc = bad(p, (int)second,
			     "duplicate column: columns %zu ('%s') and %zu ('%s') both name '%s'",
			     first + 1, show(a, sizeof(a), p->hdr[first]),
			     second + 1, show(b, sizeof(b), p->hdr[second]),
			     show(c, sizeof(c), nm[dup].name));
		free(nm);
		return rc;
	}
	for (int c = 0; c < C_COUNT; c++)
		p->col[c] = -1;
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < C_COUNT; c++)
			if (span_is(nm[i].name, col_names[c]))
				p->col[c] = (int)nm[i].idx;
	free(nm);
	p->addend = inclusive;
	for (int c = C_ID; c <= C_SIZE; c++) {
		if (p->col[c] < 0) {
			put(p->err, p->errlen,
			    "'%s':1: field %s: required column '%s' is missing from the header",
			    p->name, col_names[c], col_names[c]);
			return TRACE_EFORMAT;
		}
	}
	return 0;
}

/* --- records ----------------------------------------------------------- */

static int gap_cmp(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;
	return (x->lower > y->lower) - (x->lower < y->lower);
}

/* Digits at *s (before end) into v; 0 if none or out of range. */
static int gap_num(struct parser *p, const char **s, const char *end,
		   int64_t *v)
{
	const char *q = *s;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	if (q == *s || parse_num(p, (struct span){ *s, (size_t)(q - *s) }, v) !=
			       NUM_OK)
		return 0;
	*s = q;
	return 1;
}

/*
 * A gap's time at *s: digits with an optional leading '-', as the times
 * of lower and upper may be (down to -2^62); 0 if none or out of range.
 */
static int gap_time(struct parser *p, const char **s, const char *end,
		    int64_t *v)
{
	const char *q = *s;
	int neg = q < end && *q == '-';
	if (neg)
		q++;
	if (!gap_num(p, &q, end, v) || (neg && *v > TIME_NEG_LIMIT))
		return 0;
	if (neg)
		*v = -*v;
	*s = q;
	return 1;
}

/*
 * Parses one gap item "L-U" or "L-U@lo:hi" (syntax only).  Times may be
 * negative like lower and upper ("-5--2" is [-5, -2)), which memplan's
 * export writes for a file whose times were: MiniMalloc's own reader
 * splits at every '-' and has no negative gaps.
 */
static int gap_item(struct parser *p, struct span it, struct gap *g)
{
	const char *s = it.p, *end = it.p + it.n;
	g->text = it;
	g->win_lo = g->win_hi = TRACE_NONE;
	if (!gap_time(p, &s, end, &g->lower) || s == end || *s++ != '-' ||
	    !gap_time(p, &s, end, &g->upper))
		return 0;
	if (s == end)
		return 1;
	if (*s++ != '@' || !gap_num(p, &s, end, &g->win_lo) || s == end ||
	    *s++ != ':' || !gap_num(p, &s, end, &g->win_hi) || s != end)
		return 0;
	return 1;
}

static int read_gaps(struct parser *p, int64_t lower, int64_t upper,
		     int64_t size)
{
	int col = p->col[C_GAPS];
	struct span f = p->fields[col];
	const char *s = f.p, *end = f.p + f.n;
	char a[48], b[48];
	p->ngaps = 0;
	while (s < end) {
		if (*s == ' ') {
			s++;
			continue;
		}
		const char *e = memchr(s, ' ', (size_t)(end - s));
		if (!e)
			e = end;
		struct span it = { s, (size_t)(e - s) };
		s = e;
		if (reserve((void **)&p->gaps, &p->capgaps, p->ngaps + 1,
			    sizeof(*p->gaps)) < 0)
			return nomem(p);
		struct gap *g = &p->gaps[p->ngaps];
		if (!gap_item(p, it, g))
			return bad(p, col,
				   "'%s' is not a gap (expected L-U or L-U@lo:hi: times L and U integers as lower and upper are, down to -2^62, e.g. 3-5 or -4--2; lo and hi byte offsets)",
				   show(a, sizeof(a), it));
		if (p->addend) {
			if (g->upper == INT64_MAX)
				return bad(p, col, "gap '%s' ends out of range",
					   show(a, sizeof(a), it));
			g->upper++;
		}
		if (g->lower >= g->upper)
			return bad(p, col,
				   "gap '%s' is empty (it must start before it ends)",
				   show(a, sizeof(a), it));
		if (g->lower < lower || g->upper > upper)
			return bad(p, col,
				   "gap '%s' lies outside the lifetime [%" PRId64 ", %" PRId64 ")",
				   show(a, sizeof(a), it), lower, upper);
		if (g->win_lo != TRACE_NONE &&
		    (g->win_lo >= g->win_hi || g->win_hi > size))
			return bad(p, col,
				   "gap '%s': window [%" PRId64 ", %" PRId64 ") is not a non-empty range inside the buffer's %" PRId64 " bytes",
				   show(a, sizeof(a), it), g->win_lo, g->win_hi,
				   size);
		p->ngaps++;
	}
	if (p->ngaps > 1)
		qsort(p->gaps, p->ngaps, sizeof(*p->gaps), gap_cmp);
	for (size_t i = 1; i < p->ngaps; i++)
		if (p->gaps[i - 1].upper > p->gaps[i].lower)
			return bad(p, col, "gaps '%s' and '%s' overlap",
				   show(a, sizeof(a), p->gaps[i - 1].text),
				   show(b, sizeof(b), p->gaps[i].text));
	return 0;
}

static int read_record(struct parser *p, struct span line)
{
	size_t n = split(line, p->fields, p->ncols);
	if (n != p->ncols)
		return bad(p, -1, "%zu fields, but the header has %zu columns",
			   n, p->ncols);
	int rc;
	int64_t lower, upper, size, align = 1, offset = TRACE_NONE;
	if ((rc = field_time(p, C_LOWER, &lower)) < 0 ||
	    (rc = field_time(p, C_UPPER, &upper)) < 0 ||
	    (rc = field_int(p, C_SIZE, 1, &size)) < 0)
		return rc;
	if (p->addend) {
		if (upper == INT64_MAX)
			return bad(p, p->col[C_UPPER],
				   "inclusive end %" PRId64 " is out of range",
				   upper);
		upper++;
	}
	if (lower >= upper)
		return bad(p, p->col[C_UPPER],
			   "empty lifetime [%" PRId64 ", %" PRId64 ") (upper must be greater than lower)",
			   lower, upper);
	/* the trace's bound, here where the line is known */
	if ((uint64_t)size >= TRACE_BYTES_LIMIT)
		return bad(p, p->col[C_SIZE],
			   "size %" PRId64 " is 2^62 or more, the largest memplan handles",
			   size);
	if ((uint64_t)p->total >= TRACE_BYTES_LIMIT - (uint64_t)size)
		return bad(p, p->col[C_SIZE],
			   "the sizes add up to 2^62 bytes or more, more than memplan handles");
	p->total += size;
	if (p->col[C_ALIGN] >= 0 &&
	    (rc = field_int(p, C_ALIGN, 1, &align)) < 0)
		return rc;
	/* an empty offset means "not pinned", so mixed traces round-trip */
	if (p->col[C_OFFSET] >= 0 && p->fields[p->col[C_OFFSET]].n > 0) {
		if ((rc = field_int(p, C_OFFSET, 0, &offset)) < 0)
			return rc;
		if (offset > INT64_MAX - size)
			return bad(p, p->col[C_OFFSET],
				   "offset %" PRId64 " plus size %" PRId64 " is out of range",
				   offset, size);
	}
	p->ngaps = 0;
	if (p->col[C_GAPS] >= 0 && (rc = read_gaps(p, lower, upper, size)) < 0)
		return rc;

	const char *label = cstr(p, p->fields[p->col[C_ID]]);
	if (!label)
		return nomem(p);
	struct trace_buffer b = {
		.size = (uint64_t)size,
		.rounded = (uint64_t)size,
		.align = (uint64_t)align,
		.fixed_offset = offset,
		.stream = TRACE_NONE,
		.kind = TRACE_KIND_DEVICE,
		.role = TRACE_ROLE_UNKNOWN,
		.label = label,
	};
	int64_t id = trace_add_buffer(p->t, &b);
	if (id < 0)
		return nomem(p);
	for (size_t i = 0; i < p->ngaps; i++) {
		const struct gap *g = &p->gaps[i];
		struct trace_hole h = { id, g->lower, g->upper, g->win_lo,
					g->win_hi };
		if (trace_add_hole(p->t, &h) < 0)
			return nomem(p);
	}
	if (reserve((void **)&p->keys, &p->capkeys, p->nkeys + 2,
		    sizeof(*p->keys)) < 0)
		return nomem(p);
	p->keys[p->nkeys++] = (struct evkey){ lower, KEY_ALLOC | (uint64_t)id };
	p->keys[p->nkeys++] = (struct evkey){ upper, (uint64_t)id };
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	const struct evkey *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->ord > y->ord) - (x->ord < y->ord);
}

/*
 * Times before 0 move the whole clock later by the earliest one's
 * distance from 0 (buffers, gaps alike), recorded in meta
 * minimalloc.time_shift so that an export gives the times back; a file
 * whose times then pass 2^63 - 1 is refused.
 */
static int shift_times(struct parser *p)
{
	int64_t lo = 0, hi = 0;
	for (size_t i = 0; i < p->nkeys; i++) {
		if (p->keys[i].t < lo)
			lo = p->keys[i].t;
		if (p->keys[i].t > hi)
			hi = p->keys[i].t;
	}
	if (lo >= 0)
		return 0;
	int64_t shift = -lo;
	if (hi > INT64_MAX - shift) {
		put(p->err, p->errlen,
		    "'%s': its times run from %" PRId64 " to %" PRId64 ", a span over 2^63 - 1",
		    p->name, lo, hi);
		return TRACE_EFORMAT;
	}
	for (size_t i = 0; i < p->nkeys; i++)
		p->keys[i].t += shift;
	for (size_t i = 0; i < p->t->nholes; i++) {
		p->t->holes[i].lower += shift;
		p->t->holes[i].upper += shift;
	}
	char v[32];
	snprintf(v, sizeof(v), "%" PRId64, shift);
	return trace_set_meta(p->t, "minimalloc.time_shift", v) < 0 ? nomem(p) : 0;
}

static int add_events(struct parser *p)
{
	int rc = shift_times(p);
	if (rc < 0)
		return rc;
	if (p->nkeys > 1)
		qsort(p->keys, p->nkeys, sizeof(*p->keys), key_cmp);
	for (size_t i = 0; i < p->nkeys; i++) {
		const struct evkey *k = &p->keys[i];
		struct trace_event e = {
			.seq = (int64_t)i,
			.t_start = k->t,
			.t_end = k->t,
			.buffer = (int64_t)(k->ord & ~KEY_ALLOC),
			.stream = TRACE_NONE,
			.type = k->ord & KEY_ALLOC ? TRACE_EV_ALLOC
						   : TRACE_EV_FREE,
		};
		if (trace_add_event(p->t, &e) < 0)
			return nomem(p);
	}
	return 0;
}

static int set_meta(struct parser *p)
{
	const char *base = strrchr(p->name, '/');
	base = base ? base + 1 : p->name;
	if (trace_set_meta(p->t, "clock", "time") < 0 ||
	    trace_set_meta(p->t, "source", "minimalloc-csv") < 0 ||
	    trace_set_meta(p->t, "source_file", base) < 0 ||
	    trace_set_meta(p->t, "minimalloc.ids", "label") < 0)
		return nomem(p);
	return 0;
}

static int parse(struct parser *p, const char *data, size_t len)
{
	int rc;
	if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
		data += 3;
		len -= 3;
	}
	const char *nul = memchr(data, '\0', len);
	if (nul) {
		p->line = 1;
		for (const char *q = data; q < nul; q++)
			p->line += *q == '\n';
		return bad(p, -1, "the line contains a NUL byte (this is not a CSV text file)");
	}
	if ((rc = set_meta(p)) < 0)
		return rc;
	const char *s = data, *end = data + len;
	int have_header = 0;
	for (p->line = 1; s < end; p->line++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		struct span line = { s, (size_t)((nl ? nl : end) - s) };
		s = nl ? nl + 1 : end;
		if (line.n > 0 && line.p[line.n - 1] == '\r')
			line.n--;
		if (line.n == 0) /* MiniMalloc stops at the first empty line */
			break;
		rc = have_header ? read_record(p, line) : read_header(p, line);
		if (rc < 0)
			return rc;
		have_header = 1;
	}
	if (!have_header) {
		p->line = 1;
		return bad(p, -1, "no header line (expected columns such as 'id,lower,upper,size')");
	}
	if ((rc = add_events(p)) < 0)
		return rc;
	char msg[512];
	rc = trace_finish(p->t, msg, sizeof(msg));
	if (rc == TRACE_ENOMEM)
		return nomem(p);
	if (rc < 0) {
		put(p->err, p->errlen, "'%s': the imported trace is invalid: %s",
		    p->name, msg);
		return rc;
	}
	return 0;
}

int mmcsv_parse(const char *name, const char *data, size_t len,
		struct trace **out, char *err, size_t errlen)
{
	struct parser p = { .name = name ? name : "<input>", .err = err,
			    .errlen = errlen };
	p.t = trace_new();
	if (!p.t)
		return nomem(&p);
	int rc = parse(&p, data ? data : "", data ? len : 0);
	free(p.hdr);
	free(p.fields);
	free(p.scratch);
	free(p.gaps);
	free(p.keys);
	if (rc < 0) {
		trace_free(p.t);
		return rc;
	}
	*out = p.t;
	return 0;
}

int mmcsv_import(const char *path, struct trace **out, char *err,
		 size_t errlen)
{
	FILE *f;
	int orc = trace_open_input(path, "cannot open", &f, err, errlen);
	if (orc)
		return orc;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (reserve((void **)&buf, &cap, n + 65536, 1) < 0) {
			free(buf);
			fclose(f);
			put(err, errlen, "'%s': out of memory", path);
			return TRACE_ENOMEM;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;
		free(buf);
		fclose(f);
		put(err, errlen, "cannot read '%s': %s", path, strerror(e));
		return TRACE_EIO;
	}
	fclose(f);
	int rc = mmcsv_parse(path, buf, n, out, err, errlen);
	free(buf);
	return rc;
}

/* --- export ------------------------------------------------------------ */

/* Smallest and largest clock value of any event that has one. */
static void clock_range(const struct trace *t, int64_t *min, int64_t *max)
{
	int any = 0;
	*min = *max = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		if (t->clock == TRACE_CLOCK_TIME &&
		    t->events[i].t_start == TRACE_TIME_NONE)
			continue;
		int64_t c = trace_event_clock(t, i);
		if (!any || c < *min)
			*min = c;
		if (!any || c > *max)
			*max = c;
		any = 1;
	}
}

/*
 * Also returns TRACE_EINVAL for an unfinished trace or a label that cannot be
 * a MiniMalloc id (it holds a comma or a line break).
 */
int mmcsv_export(const struct trace *t, FILE *f, char *err, size_t errlen)
{
	if (!t->finished) {
		put(err, errlen, "cannot export the trace as MiniMalloc CSV: it is not finished");
		return TRACE_EINVAL;
	}
	const char *ids = trace_get_meta(t, "minimalloc.ids");
	int labels = ids && strcmp(ids, "label") == 0;
	/* times the importer moved later (a file with negative times) */
	const char *ts = trace_get_meta(t, "minimalloc.time_shift");
	int64_t back = 0;
	if (ts) {
		char *e;
		errno = 0;
		long long v = strtoll(ts, &e, 10);
		if (!errno && *e == 0 && v > 0 && v <= TIME_NEG_LIMIT)
			back = (int64_t)v;
	}
	int has_align = 0, has_gaps = 0, has_offset = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		has_align |= b->align != 1;
		has_gaps |= b->nholes > 0;
		has_offset |= b->fixed_offset != TRACE_NONE;
		if (labels && b->label && strpbrk(b->label, ",\n")) {
			put(err, errlen,
			    "cannot export buffer %zu as MiniMalloc CSV: its label contains a comma or a line break",
			    i);
			return TRACE_EINVAL;
		}
	}
	int64_t cmin, cmax;
	clock_range(t, &cmin, &cmax);
	int64_t after = cmax == INT64_MAX ? cmax : cmax + 1;
	/*
	 * A buffer live at the start is given the first time, so every other
	 * time moves one later: one freed at the first event then still has a
	 * non-empty lifetime.  Imports have no such buffer and keep their times.
	 */
	int64_t shift = 0;
	for (size_t i = 0; i < t->nbuffers && !shift; i++)
		shift = t->buffers[i].alloc_ev == TRACE_NONE &&
			cmax < INT64_MAX - 1;
	after += shift;

	fputs("id,lower,upper,size", f);
	if (has_align)
		fputs(",alignment", f);
	if (has_gaps)
		fputs(",gaps", f);
	if (has_offset)
		fputs(",offset", f);
	fputc('\n', f);
	for (size_t i = 0; i < t->nbuffers && !ferror(f); i++) {
		const struct trace_buffer *b = &t->buffers[i];
		int64_t lo, hi;
		trace_lifetime(t, b, &lo, &hi);
		lo = lo == INT64_MIN ? cmin : lo + shift;
		hi = hi == INT64_MAX ? after : hi + shift;
		if (labels && b->label)
			fputs(b->label, f);
		else
			fprintf(f, "%" PRId64, b->id);
		fprintf(f, ",%" PRId64 ",%" PRId64 ",%" PRIu64, lo - back, hi - back, b->size);
		if (has_align)
			fprintf(f, ",%" PRIu64, b->align);
		if (has_gaps) {
			fputc(',', f);
			for (uint32_t j = 0; j < b->nholes; j++) {
				const struct trace_hole *h =
					&t->holes[b->hole0 + j];
				fprintf(f, "%s%" PRId64 "-%" PRId64, j ? " " : "",
					h->lower + shift - back, h->upper + shift - back);
				if (h->win_lo != TRACE_NONE)
					fprintf(f, "@%" PRId64 ":%" PRId64,
						h->win_lo, h->win_hi);
			}
		}
		if (has_offset) {
			fputc(',', f);
			if (b->fixed_offset != TRACE_NONE)
				fprintf(f, "%" PRId64, b->fixed_offset);
		}
		fputc('\n', f);
	}
	if (ferror(f) || fflush(f) == EOF) {
		put(err, errlen, "cannot write the MiniMalloc CSV: %s",
		    strerror(errno));
		return TRACE_EIO;
	}
	return 0;
}
