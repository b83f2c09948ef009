/* SPDX-License-Identifier: MIT */
/*
 * trace.c - building, validating and measuring an in-memory trace.
 * Used by the SQLite loader, the importers and the synthetic zoo alike, so
 * that a trace is checked by one piece of code whatever its origin.
 * Invariant: every string a trace points to lives in its string pool.
 */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- string pool ------------------------------------------------------- */

/*
 * Strings are copied into large chunks and found again through an open
 * addressing table, so a million kernel events with a few hundred distinct
 * names cost a few hundred copies.
 */
struct strchunk {
	struct strchunk *next;
	size_t used, cap;
	char data[];
};

struct trace_strpool {
	const char **slots;
	size_t nslots, count;
	struct strchunk *chunks;
};

static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static char *pool_copy(struct trace_strpool *p, const char *s, size_t n)
{
	struct strchunk *c = p->chunks;
	if (!c || c->cap - c->used < n + 1) {
		size_t cap = n + 1 > 65536 ? n + 1 : 65536;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = p->chunks;
		c->used = 0;
		c->cap = cap;
		p->chunks = c;
	}
	char *d = c->data + c->used;
	memcpy(d, s, n);
	d[n] = '\0';
	c->used += n + 1;
	return d;
}

static int pool_grow(struct trace_strpool *p)
{
	size_t n = p->nslots ? p->nslots * 2 : 256;
	const char **slots = calloc(n, sizeof(*slots));
	if (!slots)
		return TRACE_ENOMEM;
	for (size_t i = 0; i < p->nslots; i++) {
		const char *s = p->slots[i];
		if (!s)
			continue;
		size_t j = str_hash(s, strlen(s)) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = s;
	}
	free(p->slots);
	p->slots = slots;
	p->nslots = n;
	return 0;
}

const char *trace_intern(struct trace *t, const char *s)
{
	if (!s)
		return NULL;
	struct trace_strpool *p = t->strings;
	if ((p->count + 1) * 2 > p->nslots && pool_grow(p) < 0)
		return NULL;
	size_t n = strlen(s);
	size_t j = str_hash(s, n) & (p->nslots - 1);
	while (p->slots[j]) {
		if (strcmp(p->slots[j], s) == 0)
			return p->slots[j];
		j = (j + 1) & (p->nslots - 1);
	}
	char *d = pool_copy(p, s, n);
	if (!d)
		return NULL;
	p->slots[j] = d;
	p->count++;
	return d;
}

/* --- building ---------------------------------------------------------- */

struct trace *trace_new(void)
{
	struct trace *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->strings = calloc(1, sizeof(*t->strings));
	if (!t->strings) {
		free(t);
		return NULL;
	}
	return t;
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	if (t->strings) {
		struct strchunk *c = t->strings->chunks;
		while (c) {
			struct strchunk *next = c->next;
			free(c);
			c = next;
		}
		free(t->strings->slots);
		free(t->strings);
	}
	free(t->buffers);
	free(t->events);
	free(t->accesses);
	free(t->holes);
	free(t->meta);
	free(t->uses);
	free(t);
}

/* Makes room for one more element in *arr; 0 or TRACE_ENOMEM. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 64;
	void *p = realloc(*arr, ncap * elem);
	if (!p)
		return TRACE_ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}
#define GROW(t, f) grow((void **)&(t)->f, &(t)->cap##f, (t)->n##f, sizeof(*(t)->f))

int trace_set_meta(struct trace *t, const char *key, const char *value)
{
	const char *k = trace_intern(t, key), *v = trace_intern(t, value);
	if (!k || !v)
		return key && value ? TRACE_ENOMEM : TRACE_EINVAL;
	for (size_t i = 0; i < t->nmeta; i++) {
		if (t->meta[i].key == k) {
			t->meta[i].value = v;
			return 0;
		}
	}
	if (GROW(t, meta) < 0)
		return TRACE_ENOMEM;
	t->meta[t->nmeta++] = (struct trace_meta){ k, v };
	return 0;
}

const char *trace_get_meta(const struct trace *t, const char *key)
{
	for (size_t i = 0; i < t->nmeta; i++)
		if (strcmp(t->meta[i].key, key) == 0)
			return t->meta[i].value;
	return NULL;
}

int64_t trace_add_buffer(struct trace *t, const struct trace_buffer *b)
{
	if (GROW(t, buffers) < 0)
		return TRACE_ENOMEM;
	struct trace_buffer *d = &t->buffers[t->nbuffers];
	*d = *b;
	d->id = (int64_t)t->nbuffers;
	if (d->rounded == 0)
		d->rounded = d->size;
	if (d->align == 0)
		d->align = 1;
	d->label = trace_intern(t, b->label);
	if (b->label && !d->label)
		return TRACE_ENOMEM;
	d->stack = trace_intern(t, b->stack);
	if (b->stack && !d->stack)
		return TRACE_ENOMEM;
	d->source = trace_intern(t, b->source);
	if (b->source && !d->source)
		return TRACE_ENOMEM;
	d->bypass = b->bypass ? 1 : 0;
	d->alloc_ev = d->free_ev = TRACE_NONE;
	d->use0 = d->nuses = d->hole0 = d->nholes = 0;
	t->finished = 0;
	return (int64_t)t->nbuffers++;
}

int64_t trace_add_event(struct trace *t, const struct trace_event *e)
{
	if (GROW(t, events) < 0)
		return TRACE_ENOMEM;
	struct trace_event *d = &t->events[t->nevents];
	*d = *e;
	d->name = trace_intern(t, e->name);
	if (e->name && !d->name)
		return TRACE_ENOMEM;
	d->acc0 = (uint32_t)t->naccesses;
	d->nacc = 0;
	t->finished = 0;
	return (int64_t)t->nevents++;
}

int trace_add_access(struct trace *t, int64_t buffer, uint8_t mode)
{
	if (t->nevents == 0)
		return TRACE_EINVAL;
	if (GROW(t, accesses) < 0)
		return TRACE_ENOMEM;
	t->accesses[t->naccesses++] = (struct trace_access){ buffer, mode };
	t->events[t->nevents - 1].nacc++;
	t->finished = 0;
	return 0;
}

int trace_add_hole(struct trace *t, const struct trace_hole *h)
{
	if (GROW(t, holes) < 0)
		return TRACE_ENOMEM;
	t->holes[t->nholes++] = *h;
	t->finished = 0;
	return 0;
}

int64_t trace_next_seq(const struct trace *t)
{
	return t->nevents ? t->events[t->nevents - 1].seq + 1 : 0;
}

/* --- validation -------------------------------------------------------- */

int trace_seterr(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

int trace_open_input(const char *path, const char *what, FILE **out,
		     char *err, size_t errlen)
{
	*out = NULL;
	/* O_NONBLOCK: opening a FIFO with no writer must not wait for one */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return trace_seterr(err, errlen, TRACE_EIO, "%s '%s': %s", what,
				    path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return trace_seterr(err, errlen, TRACE_EIO, "%s '%s': %s", what,
				    path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return trace_seterr(err, errlen, TRACE_EIO,
				    "%s '%s': not a regular file (%s)", what, path,
				    S_ISDIR(st.st_mode)    ? "a directory"
				    : S_ISFIFO(st.st_mode) ? "a FIFO"
				    : S_ISCHR(st.st_mode)  ? "a character device"
				    : S_ISBLK(st.st_mode)  ? "a block device"
				    : S_ISSOCK(st.st_mode) ? "a socket"
							   : "a special file");
	}
	/* reads of a regular file never block; clear the flag all the same */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		int e = errno;
		close(fd);
		return trace_seterr(err, errlen, e == ENOMEM ? TRACE_ENOMEM : TRACE_EIO,
				    "%s '%s': %s", what, path, strerror(e));
	}
	*out = f;
	return 0;
}

static int hole_cmp(const void *a, const void *b)
{
	const struct trace_hole *x = a, *y = b;
	if (x->buffer != y->buffer)
		return x->buffer < y->buffer ? -1 : 1;
	if (x->lower != y->lower)
		return x->lower < y->lower ? -1 : 1;
	return 0;
}

int64_t trace_event_clock(const struct trace *t, size_t i)
{
	return t->clock == TRACE_CLOCK_TIME ? t->events[i].t_start
					    : t->events[i].seq;
}

void trace_lifetime(const struct trace *t, const struct trace_buffer *b,
		    int64_t *lo, int64_t *hi)
{
	*lo = b->alloc_ev == TRACE_NONE ? INT64_MIN
					: trace_event_clock(t, (size_t)b->alloc_ev);
	*hi = b->free_ev == TRACE_NONE ? INT64_MAX
				       : trace_event_clock(t, (size_t)b->free_ev);
}

int trace_buffer_streams(const struct trace *t, const struct trace_buffer *b,
			 int64_t s[2], int64_t *ev)
{
	int64_t home = b->stream;
	if (home == TRACE_NONE && b->alloc_ev != TRACE_NONE)
		home = t->events[b->alloc_ev].stream;
	for (uint32_t u = 0; u < b->nuses; u++) {
		uint32_t i = t->uses[b->use0 + u];
		int64_t x = t->events[i].stream;
		if (x == TRACE_NONE || x == home)
			continue;
		if (home == TRACE_NONE) { /* the first stream known */
			home = x;
			continue;
		}
		if (s) {
			s[0] = home;
			s[1] = x;
		}
		if (ev)
			*ev = (int64_t)i;
		return 1;
	}
	return 0;
}

int trace_check_buffer(const struct trace_buffer *b, size_t row,
		       uint64_t *total, char *err, size_t errlen)
{
	if (b->size == 0)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table buffers, row %zu, field size: size must be greater than 0",
			    row);
	if (b->rounded < b->size)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table buffers, row %zu, field rounded: %llu is smaller than size %llu",
			    row, (unsigned long long)b->rounded,
			    (unsigned long long)b->size);
	if (b->align == 0)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table buffers, row %zu, field align: must be at least 1",
			    row);
	if (b->kind >= TRACE_KIND_COUNT)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table buffers, row %zu, field kind: unknown kind %u",
			    row, (unsigned)b->kind);
	if (b->role >= TRACE_ROLE_COUNT)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table buffers, row %zu, field role: unknown role %u",
			    row, (unsigned)b->role);
	if (b->fixed_offset < TRACE_NONE)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table buffers, row %zu, field offset: %lld is negative",
			    row, (long long)b->fixed_offset);
	/* rounded >= size: bounding rounded bounds both */
	const char *field = b->rounded >= TRACE_BYTES_LIMIT ? "rounded"
			    : b->align >= TRACE_BYTES_LIMIT ? "align"
			    : b->fixed_offset >= 0 &&
					    (uint64_t)b->fixed_offset >= TRACE_BYTES_LIMIT
				    ? "offset"
				    : NULL;
	if (b->size >= TRACE_BYTES_LIMIT)
		field = "size";
	if (field)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table buffers, row %zu, field %s: %llu is not below 2^62, the largest size memplan handles",
			    row, field,
			    (unsigned long long)(field[0] == 's' ? b->size
						 : field[0] == 'r' ? b->rounded
						 : field[0] == 'a' ? b->align
						 : (uint64_t)b->fixed_offset));
	/* every sum of live bytes downstream is at most this total */
	*total += b->rounded;
	if (*total >= TRACE_BYTES_LIMIT)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table buffers, row %zu, field size: the buffers' sizes add up to 2^62 bytes or more, more than memplan handles",
			    row);
	return 0;
}

static int check_buffers(struct trace *t, char *err, size_t errlen)
{
	uint64_t total = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		struct trace_buffer *b = &t->buffers[i];
		int rc = trace_check_buffer(b, i + 1, &total, err, errlen);
		if (rc)
			return rc;
		b->alloc_ev = b->free_ev = TRACE_NONE;
		b->use0 = b->nuses = b->hole0 = b->nholes = 0;
	}
	return 0;
}

static int check_events(struct trace *t, char *err, size_t errlen)
{
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		size_t row = i + 1;
		if (i > 0 && e->seq <= t->events[i - 1].seq)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table events, row %zu, field seq: %lld does not follow %lld (sequence numbers must strictly increase)",
				    row, (long long)e->seq,
				    (long long)t->events[i - 1].seq);
		if (e->type >= TRACE_EV_COUNT)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table events, row %zu, field type: unknown event type %u",
				    row, (unsigned)e->type);
		if (e->t_start != TRACE_TIME_NONE && e->t_end != TRACE_TIME_NONE &&
		    e->t_end < e->t_start)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table events, row %zu, field t_end: %lld is before t_start %lld",
				    row, (long long)e->t_end, (long long)e->t_start);
		if (e->type != TRACE_EV_ALLOC && e->type != TRACE_EV_FREE)
			continue;
		const char *what = e->type == TRACE_EV_ALLOC ? "alloc" : "free";
		if (e->buffer < 0 || (uint64_t)e->buffer >= t->nbuffers)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table events, row %zu, field buffer: %s of buffer %lld, which does not exist",
				    row, what, (long long)e->buffer);
		if (t->clock == TRACE_CLOCK_TIME && e->t_start == TRACE_TIME_NONE)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table events, row %zu, field t_start: the trace's clock is time but this %s has no time",
				    row, what);
		struct trace_buffer *b = &t->buffers[e->buffer];
		if (e->type == TRACE_EV_ALLOC) {
			if (b->alloc_ev != TRACE_NONE)
				return trace_seterr(err, errlen, TRACE_EFORMAT,
					    "table events, row %zu, field buffer: buffer %lld is allocated twice (first at row %lld)",
					    row, (long long)e->buffer,
					    (long long)b->alloc_ev + 1);
			if (b->free_ev != TRACE_NONE)
				return trace_seterr(err, errlen, TRACE_EFORMAT,
					    "table events, row %zu, field buffer: buffer %lld is allocated after its free at row %lld (free before its alloc)",
					    row, (long long)e->buffer,
					    (long long)b->free_ev + 1);
			b->alloc_ev = (int64_t)i;
		} else {
			if (b->free_ev != TRACE_NONE)
				return trace_seterr(err, errlen, TRACE_EFORMAT,
					    "table events, row %zu, field buffer: buffer %lld is freed twice (first at row %lld)",
					    row, (long long)e->buffer,
					    (long long)b->free_ev + 1);
			b->free_ev = (int64_t)i;
		}
	}
	if (t->clock == TRACE_CLOCK_TIME) {
		for (size_t i = 0; i < t->nbuffers; i++) {
			const struct trace_buffer *b = &t->buffers[i];
			if (b->alloc_ev == TRACE_NONE || b->free_ev == TRACE_NONE)
				continue;
			if (t->events[b->free_ev].t_start <
			    t->events[b->alloc_ev].t_start)
				return trace_seterr(err, errlen, TRACE_EFORMAT,
					    "table events, row %lld, field t_start: buffer %zu is freed at time %lld, before its alloc at %lld",
					    (long long)b->free_ev + 1, i,
					    (long long)t->events[b->free_ev].t_start,
					    (long long)t->events[b->alloc_ev].t_start);
		}
	}
	return 0;
}

int trace_check_access(const struct trace *t, const struct trace_buffer *b,
		       size_t row, int64_t seq, int64_t c, int clocked,
		       char *err, size_t errlen)
{
	/* events are in seq order, so seqs order an access against the alloc
	 * and the free whatever the clock */
	if ((b->alloc_ev != TRACE_NONE && seq <= t->events[b->alloc_ev].seq) ||
	    (b->free_ev != TRACE_NONE && seq >= t->events[b->free_ev].seq))
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table accesses, row %zu, field buffer: buffer %lld is not live at seq %lld",
			    row, (long long)b->id, (long long)seq);
	if (!clocked)
		return 0;
	int64_t lo, hi;
	trace_lifetime(t, b, &lo, &hi);
	if (c < lo || c >= hi)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table accesses, row %zu, field seq: the event at seq %lld (clock %lld) lies outside the lifetime [%lld, %lld) of buffer %lld",
			    row, (long long)seq, (long long)c, (long long)lo,
			    (long long)hi, (long long)b->id);
	/* the holes of b are sorted and disjoint: the last one starting at or
	 * before c is the only one that can hold it.  None: t->holes may be
	 * NULL, and NULL + 0 is undefined in C. */
	if (b->nholes == 0)
		return 0;
	size_t n = b->nholes, first = 0;
	const struct trace_hole *h = t->holes + b->hole0;
	while (n > 0) {
		size_t half = n / 2;
		if (h[first + half].lower <= c) {
			first += half + 1;
			n -= half + 1;
		} else {
			n = half;
		}
	}
	if (first > 0 && c < h[first - 1].upper)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table accesses, row %zu, field buffer: buffer %lld is used at seq %lld (clock %lld), inside its hole [%lld, %lld), when it is not resident",
			    row, (long long)b->id, (long long)seq, (long long)c,
			    (long long)h[first - 1].lower,
			    (long long)h[first - 1].upper);
	return 0;
}

static int check_accesses(struct trace *t, char *err, size_t errlen)
{
	size_t total = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (e->acc0 != total || (size_t)e->acc0 + e->nacc > t->naccesses)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table accesses: internal ranges of event row %zu are inconsistent",
				    i + 1);
		total += e->nacc;
		/* a time-clock event without a time has no place on the clock */
		int clocked = t->clock != TRACE_CLOCK_TIME ||
			      e->t_start != TRACE_TIME_NONE;
		for (uint32_t k = 0; k < e->nacc; k++) {
			const struct trace_access *a = &t->accesses[e->acc0 + k];
			size_t row = (size_t)e->acc0 + k + 1;
			if (a->mode > TRACE_ACCESS_RW)
				return trace_seterr(err, errlen, TRACE_EFORMAT,
					    "table accesses, row %zu, field mode: unknown mode %u",
					    row, (unsigned)a->mode);
			if (a->buffer < 0 || (uint64_t)a->buffer >= t->nbuffers)
				return trace_seterr(err, errlen, TRACE_EFORMAT,
					    "table accesses, row %zu, field buffer: buffer %lld does not exist",
					    row, (long long)a->buffer);
			int rc = trace_check_access(t, &t->buffers[a->buffer], row,
						    e->seq, trace_event_clock(t, i),
						    clocked, err, errlen);
			if (rc)
				return rc;
		}
	}
	if (total != t->naccesses)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table accesses: %zu accesses belong to no event",
			    t->naccesses - total);
	return 0;
}

static int check_holes(struct trace *t, char *err, size_t errlen)
{
	if (t->nholes)
		qsort(t->holes, t->nholes, sizeof(*t->holes), hole_cmp);
	for (size_t i = 0; i < t->nholes; i++) {
		const struct trace_hole *h = &t->holes[i];
		size_t row = i + 1;
		if (h->buffer < 0 || (uint64_t)h->buffer >= t->nbuffers)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table holes, row %zu, field buffer: buffer %lld does not exist",
				    row, (long long)h->buffer);
		struct trace_buffer *b = &t->buffers[h->buffer];
		int64_t lo, hi;
		trace_lifetime(t, b, &lo, &hi);
		if (h->lower >= h->upper)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table holes, row %zu, field upper: hole [%lld, %lld) of buffer %lld is empty",
				    row, (long long)h->lower, (long long)h->upper,
				    (long long)h->buffer);
		if (h->lower < lo || h->upper > hi)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table holes, row %zu, field lower: hole [%lld, %lld) lies outside the lifetime of buffer %lld",
				    row, (long long)h->lower, (long long)h->upper,
				    (long long)h->buffer);
		/* a buffer is resident from its alloc: a hole there would give
		 * its bytes to another buffer before it was ever out */
		if (h->lower == lo)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table holes, row %zu, field lower: hole [%lld, %lld) starts at the alloc of buffer %lld (a buffer is resident when it is allocated)",
				    row, (long long)h->lower, (long long)h->upper,
				    (long long)h->buffer);
		if ((h->win_lo == TRACE_NONE) != (h->win_hi == TRACE_NONE) ||
		    (h->win_lo != TRACE_NONE &&
		     (h->win_lo < 0 || h->win_lo >= h->win_hi ||
		      (uint64_t)h->win_hi > b->size)))
			return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table holes, row %zu, field win_lo: window [%lld, %lld) is not inside buffer %lld of %llu bytes",
				    row, (long long)h->win_lo, (long long)h->win_hi,
				    (long long)h->buffer, (unsigned long long)b->size);
		if (i > 0 && t->holes[i - 1].buffer == h->buffer &&
		    t->holes[i - 1].upper > h->lower)
			return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "table holes, row %zu, field lower: holes of buffer %lld overlap",
				    row, (long long)h->buffer);
		if (b->nholes == 0)
			b->hole0 = (uint32_t)i;
		b->nholes++;
	}
	return 0;
}

/* Per buffer, the ascending list of event indexes that access it. */
static int index_uses(struct trace *t)
{
	free(t->uses);
	t->uses = NULL;
	t->nuses = 0;
	/* never NULL, even without accesses: readers take t->uses + use0,
	 * and NULL + 0 is undefined in C */
	t->uses = malloc((t->naccesses ? t->naccesses : 1) * sizeof(*t->uses));
	if (!t->uses)
		return TRACE_ENOMEM;
	if (t->naccesses == 0)
		return 0;
	for (size_t i = 0; i < t->naccesses; i++)
		t->buffers[t->accesses[i].buffer].nuses++;
	uint32_t off = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		t->buffers[i].use0 = off;
		off += t->buffers[i].nuses;
		t->buffers[i].nuses = 0;
	}
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		for (uint32_t k = 0; k < e->nacc; k++) {
			struct trace_buffer *b =
				&t->buffers[t->accesses[e->acc0 + k].buffer];
			/* an event touching a buffer twice is one use */
			if (b->nuses && t->uses[b->use0 + b->nuses - 1] == i)
				continue;
			t->uses[b->use0 + b->nuses++] = (uint32_t)i;
		}
	}
	t->nuses = t->naccesses;
	return 0;
}

int trace_finish(struct trace *t, char *err, size_t errlen)
{
	int rc;
	const char *clock = trace_get_meta(t, "clock");
	if (!clock || strcmp(clock, "seq") == 0)
		t->clock = TRACE_CLOCK_SEQ;
	else if (strcmp(clock, "time") == 0)
		t->clock = TRACE_CLOCK_TIME;
	else
		return trace_seterr(err, errlen, TRACE_EFORMAT,
			    "table meta, key clock: unknown clock '%s' (expected 'seq' or 'time')",
			    clock);
	if (t->nevents > UINT32_MAX || t->naccesses > UINT32_MAX ||
	    t->nholes > UINT32_MAX)
		return trace_seterr(err, errlen, TRACE_EFORMAT, "trace has more than 2^32 events, accesses or holes");
	t->finished = 0;
	if ((rc = check_buffers(t, err, errlen)) < 0 ||
	    (rc = check_events(t, err, errlen)) < 0 ||
	    (rc = check_holes(t, err, errlen)) < 0 ||
	    (rc = check_accesses(t, err, errlen)) < 0)
		return rc;
	if (index_uses(t) < 0)
		return trace_seterr(err, errlen, TRACE_EFORMAT, "out of memory indexing use points"),
		       TRACE_ENOMEM;
	t->finished = 1;
	return 0;
}

/* --- measuring --------------------------------------------------------- */

struct point {
	int64_t at;
	int64_t delta;
};

static int point_cmp(const void *a, const void *b)
{
	const struct point *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	/* half-open lifetimes: what ends at c is gone before what starts at c */
	return (x->delta > y->delta) - (x->delta < y->delta);
}

static int passes(const struct trace_buffer *b, enum trace_filter f)
{
	/* host memory is not the device's: it has a peak of its own */
	if ((b->kind == TRACE_KIND_HOST) != (f == TRACE_HOST))
		return 0;
	switch (f) {
	case TRACE_TRANSIENT:
		return !trace_buffer_persistent(b);
	case TRACE_PERSISTENT:
		return trace_buffer_persistent(b);
	default:
		return 1;
	}
}

uint64_t trace_peak(const struct trace *t, enum trace_filter filter,
		    int64_t *at)
{
	uint64_t peak = 0;
	if (trace_peak_checked(t, filter, &peak, at, NULL, 0))
		return 0;
	return peak;
}

int trace_peak_checked(const struct trace *t, enum trace_filter filter,
		       uint64_t *peak, int64_t *at, char *err, size_t errlen)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nbuffers; i++)
		if (passes(&t->buffers[i], filter))
			n += 2 + 2 * (size_t)t->buffers[i].nholes;
	if (at)
		*at = 0;
	*peak = 0;
	if (n == 0)
		return 0;
	struct point *p = malloc(n * sizeof(*p));
	if (!p)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory finding the peak of %zu buffers",
				    t->nbuffers);
	size_t k = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		if (!passes(b, filter))
			continue;
		int64_t lo, hi;
		trace_lifetime(t, b, &lo, &hi);
		if (lo >= hi)
			continue; /* an empty lifetime is never live */
		p[k++] = (struct point){ lo, (int64_t)b->size };
		p[k++] = (struct point){ hi, -(int64_t)b->size };
		for (uint32_t j = 0; j < b->nholes; j++) {
			const struct trace_hole *h = &t->holes[b->hole0 + j];
			int64_t away = (int64_t)b->size;
			if (h->win_lo != TRACE_NONE)
				away -= h->win_hi - h->win_lo;
			p[k++] = (struct point){ h->lower, -away };
			p[k++] = (struct point){ h->upper, away };
		}
	}
	qsort(p, k, sizeof(*p), point_cmp);
	int64_t live = 0, best = 0, best_at = 0;
	for (size_t i = 0; i < k; i++) {
		live += p[i].delta;
		if (live > best) {
			best = live;
			best_at = p[i].at;
		}
	}
	free(p);
	if (at)
		*at = best_at;
	*peak = (uint64_t)best;
	return 0;
}

/* --- names ------------------------------------------------------------- */

static const char *const kind_names[] = { "device", "async", "managed",
					  "host", "vmm" };
static const char *const role_names[] = { "unknown",    "weight",
					  "gradient",   "optimizer",
					  "activation", "temp",
					  "workspace",  "input" };
static const char *const event_names[] = { "alloc",  "free", "kernel",
					   "copy",   "memset", "sync",
					   "mark" };
static const char *const copy_names[] = { "unknown", "h2d", "d2h",
					  "d2d",     "h2h", "p2p" };
static const char *const mode_names[] = { "unknown", "read", "write", "rw" };

#define NAME_OF(table, i) \
	((i) < sizeof(table) / sizeof(table[0]) ? table[i] : "?")

const char *trace_kind_name(unsigned kind) { return NAME_OF(kind_names, kind); }
const char *trace_role_name(unsigned role) { return NAME_OF(role_names, role); }
const char *trace_event_type_name(unsigned type)
{
	return NAME_OF(event_names, type);
}
const char *trace_copy_kind_name(unsigned aux) { return NAME_OF(copy_names, aux); }
const char *trace_access_mode_name(unsigned mode)
{
	return NAME_OF(mode_names, mode);
}

int trace_role_from_name(const char *name)
{
	for (unsigned i = 0; i < TRACE_ROLE_COUNT; i++)
		if (strcmp(role_names[i], name) == 0)
			return (int)i;
	return -1;
}
