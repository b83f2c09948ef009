/* SPDX-License-Identifier: MIT */
/*
 * scan.c - the streaming reader of scan.h.  One pass over the events table
 * in row order, merged with one pass over the accesses table (both are
 * written in sequence order), keeps a running sum of live bytes and the
 * clock value where it is highest so far (the peak candidate P).
 *
 * Design note: the uses around a peak that is not known until the end are
 * kept in O(1) per buffer.  P only ever moves forward, to the clock value
 * just finished, so at that moment every use seen is at or before it.  Each
 * buffer keeps its latest use u1, the use before it (saved, taken whenever
 * u1 was at or before the P of the time) and its first use after P; at the
 * end the last use at or before P is u1 if u1 <= P, else saved, and the
 * first use after P is valid if it lies after the final P.
 *
 * Buffers live at the start add a constant to every point of the running
 * sum, and which buffers they are is known only at the end (those never
 * allocated), so the sum leaves them out: the place of the maximum does
 * not depend on them.  The peak itself then comes from trace_peak() on the
 * lean trace, and report_build() checks that it falls where the stream says.
 */
#include "scan.h"
#include "tracedb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#define NO_USE_BEFORE INT64_MIN
#define NO_USE_AFTER INT64_MAX

struct hole_point {
	int64_t at, delta;
};

struct scanner {
	sqlite3 *db;
	struct trace *t;
	struct report_digest *d;
	int64_t nnames;
	const char **names; /* by name id - 1, strings interned in t */
	int bad; /* the stream met something only the full loader may judge */

	/* per buffer */
	int64_t *u1, *u1_t, *saved, *saved_t, *after, *after_t;
	int64_t *acc_first, *acc_last; /* seqs of the first and last access */
	int64_t *c_first, *c_last;     /* clock values of the first and last
					* access with one (INT64_MAX: none) */
	uint8_t *has_hole;
	int64_t *home;  /* the buffer's stream, as trace_buffer_streams() */
	uint8_t *multi; /* used on a second stream: handed to the digest */
	struct hole_use { int64_t b, seq, c; } *hu; /* accesses of buffers
						     * with holes */
	size_t nhu, caphu;

	/* the running sum */
	int64_t live, best, at;
	int64_t clock;
	int have_clock;
	struct hole_point *hp;
	size_t nhp, ihp;
};

static int hp_cmp(const void *a, const void *b)
{
	const struct hole_point *x = a, *y = b;
	return (x->at > y->at) - (x->at < y->at);
}

/* Reads column col as an integer (NULL: none) within [min, max]; else bad. */
static int64_t col(struct scanner *s, sqlite3_stmt *st, int c, int nullable,
		   int64_t none, int64_t min, int64_t max)
{
	/* one column call, then the cheap value calls: this is the inner loop
	 * of a 10^7-row scan */
	sqlite3_value *v = sqlite3_column_value(st, c);
	int type = sqlite3_value_type(v);
	if (type == SQLITE_NULL && nullable)
		return none;
	int64_t x = sqlite3_value_int64(v);
	if (type != SQLITE_INTEGER || x < min || x > max)
		s->bad = 1;
	return x;
}

static int prepare(struct scanner *s, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
		s->bad = 1;
		return -1;
	}
	return 0;
}

/* Steps st: 1 row, 0 done, -1 error (bad). */
static int step(struct scanner *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	s->bad = 1;
	return -1;
}

/* --- the running sum and the uses ------------------------------------------ */

/* Closes clock value c: the sum there is final; a new maximum moves P. */
static void close_clock(struct scanner *s, int64_t c)
{
	if (s->live > s->best) {
		s->best = s->live;
		s->at = c;
	}
}

/* Hole points before clock value c, each its own clock value. */
static void holes_before(struct scanner *s, int64_t c)
{
	while (s->ihp < s->nhp && s->hp[s->ihp].at < c) {
		int64_t at = s->hp[s->ihp].at;
		while (s->ihp < s->nhp && s->hp[s->ihp].at == at)
			s->live += s->hp[s->ihp++].delta;
		close_clock(s, at);
	}
}

/* Moves the sweep to clock value c (events arrive in clock order). */
static void advance(struct scanner *s, int64_t c)
{
	if (s->have_clock && c == s->clock)
		return;
	if (s->have_clock)
		close_clock(s, s->clock);
	holes_before(s, c);
	while (s->ihp < s->nhp && s->hp[s->ihp].at == c)
		s->live += s->hp[s->ihp++].delta;
	s->clock = c;
	s->have_clock = 1;
}

static void use(struct scanner *s, int64_t b, int64_t c, int64_t t_end,
		int64_t t_start)
{
	if (s->u1[b] <= s->at) {
		s->saved[b] = s->u1[b];
		s->saved_t[b] = s->u1_t[b];
	}
	s->u1[b] = c;
	s->u1_t[b] = t_end;
	if (c > s->at && (s->after[b] == NO_USE_AFTER || s->after[b] <= s->at)) {
		s->after[b] = c;
		s->after_t[b] = t_start;
	}
}

/* --- the events and accesses, merged ------------------------------------------ */

/* Buffer b used on stream st: trace_buffer_streams()'s rule, in event
 * order (the alloc event names the stream first). */
static void see_stream(struct scanner *s, int64_t b, int64_t st)
{
	if (st == TRACE_NONE || st == s->home[b])
		return;
	if (s->home[b] == TRACE_NONE)
		s->home[b] = st;
	else
		s->multi[b] = 1;
}

static int stream_events(struct scanner *s, void (*progress)(double))
{
	sqlite3_stmt *ev, *ac, *mx;
	int64_t total = 1;
	if (prepare(s, "SELECT max(rowid) FROM events", &mx) == 0) {
		if (step(s, mx) > 0 && sqlite3_column_type(mx, 0) == SQLITE_INTEGER)
			total = sqlite3_column_int64(mx, 0);
		sqlite3_finalize(mx);
	}
	if (prepare(s, "SELECT seq, type, buffer, stream, t_start, t_end, bytes, flops,"
		       " aux, name FROM events ORDER BY rowid", &ev))
		return 0;
	if (prepare(s, "SELECT seq, buffer, mode FROM accesses ORDER BY rowid", &ac)) {
		sqlite3_finalize(ev);
		return 0;
	}
	struct trace *t = s->t;
	struct report_digest *d = s->d;
	int time_clock = t->clock == TRACE_CLOCK_TIME;
	int have_acc = step(s, ac) > 0, rc = 0;
	int64_t acc_seq = have_acc ? col(s, ac, 0, 0, 0, INT64_MIN, INT64_MAX) : 0;
	int64_t prev_acc_seq = INT64_MIN, prev_seq = INT64_MIN;
	d->time_first = INT64_MAX;
	d->time_last = INT64_MIN;
	while (!s->bad && step(s, ev) > 0) {
		int64_t seq = col(s, ev, 0, 0, 0, INT64_MIN, INT64_MAX);
		int type = (int)col(s, ev, 1, 0, 0, 0, TRACE_EV_COUNT - 1);
		int64_t b = col(s, ev, 2, 1, TRACE_NONE, 0, INT64_MAX);
		int64_t st = col(s, ev, 3, 1, TRACE_NONE, 0, INT64_MAX);
		int64_t t0 = col(s, ev, 4, 1, TRACE_TIME_NONE, INT64_MIN + 1, INT64_MAX);
		int64_t t1 = col(s, ev, 5, 1, TRACE_TIME_NONE, INT64_MIN + 1, INT64_MAX);
		col(s, ev, 6, 1, 0, 0, INT64_MAX);
		col(s, ev, 7, 1, 0, 0, INT64_MAX);
		col(s, ev, 8, 0, 0, 0, 255);
		int64_t nid = col(s, ev, 9, 1, 0, 1, s->nnames);
		if (d->nevents && seq <= prev_seq)
			s->bad = 1;
		if (t0 != TRACE_TIME_NONE && t1 != TRACE_TIME_NONE && t1 < t0)
			s->bad = 1;
		int alloc_free = type == TRACE_EV_ALLOC || type == TRACE_EV_FREE;
		if (alloc_free && (b == TRACE_NONE || (uint64_t)b >= t->nbuffers ||
				   (time_clock && t0 == TRACE_TIME_NONE)))
			s->bad = 1;
		if (s->bad)
			break;
		prev_seq = seq;
		if (d->nevents == 0)
			d->seq_first = seq;
		d->seq_last = seq;
		d->nevents++;
		d->by_type[type]++;
		if (t0 != TRACE_TIME_NONE && t0 < d->time_first)
			d->time_first = t0;
		int64_t tend = t1 != TRACE_TIME_NONE ? t1 : t0;
		if (tend != TRACE_TIME_NONE && tend > d->time_last)
			d->time_last = tend;

		/* the event's clock value; a time-clock event without a time
		 * has none and moves nothing */
		int clocked = !time_clock || t0 != TRACE_TIME_NONE;
		int64_t c = time_clock ? t0 : seq;
		if (clocked) {
			if (s->have_clock && c < s->clock) {
				s->bad = 1; /* not in clock order: load it whole */
				break;
			}
			advance(s, c);
		}
		if (alloc_free) {
			struct trace_event e = { .seq = seq, .type = (uint8_t)type, .buffer = b,
						 .stream = TRACE_NONE, .t_start = t0, .t_end = t1 };
			if (trace_add_event(t, &e) < 0) {
				rc = TRACE_ENOMEM;
				break;
			}
			/* host memory is not in the device peak (trace_peak) */
			int64_t size = t->buffers[b].kind == TRACE_KIND_HOST
					       ? 0 : (int64_t)t->buffers[b].size;
			s->live += type == TRACE_EV_ALLOC ? size : -size;
			use(s, b, c, tend, t0);
			if (type == TRACE_EV_ALLOC && s->home[b] == TRACE_NONE)
				s->home[b] = st;
		}
		/* marks where the caching allocator gave memory back: its
		 * model gives back there too */
		if (type == TRACE_EV_MARK && nid > 0 && !s->bad &&
		    allocsim_is_release_mark(s->names[nid - 1])) {
			struct trace_event e = { .seq = seq, .type = (uint8_t)type,
						 .buffer = TRACE_NONE, .stream = TRACE_NONE,
						 .t_start = t0, .t_end = t1,
						 .name = s->names[nid - 1] };
			if (trace_add_event(t, &e) < 0) {
				rc = TRACE_ENOMEM;
				break;
			}
		}
		/* this event's accesses */
		while (have_acc && !s->bad) {
			if (acc_seq < prev_acc_seq) {
				s->bad = 1; /* accesses not in event order: load it whole */
				break;
			}
			if (acc_seq > seq)
				break;
			if (acc_seq < seq) {
				s->bad = 1; /* an access of no event */
				break;
			}
			int64_t ab = col(s, ac, 1, 0, 0, 0, (int64_t)t->nbuffers - 1);
			col(s, ac, 2, 0, 0, 0, TRACE_ACCESS_RW);
			if (s->bad)
				break;
			d->naccesses++;
			see_stream(s, ab, st);
			if (s->acc_first[ab] == INT64_MAX)
				s->acc_first[ab] = seq;
			s->acc_last[ab] = seq;
			if (clocked) {
				use(s, ab, c, tend, t0);
				if (s->c_first[ab] == INT64_MAX)
					s->c_first[ab] = c;
				s->c_last[ab] = c;
			}
			if (clocked && s->has_hole[ab]) {
				if (s->nhu == s->caphu) {
					size_t cap = s->caphu ? 2 * s->caphu : 256;
					void *p = realloc(s->hu, cap * sizeof(*s->hu));
					if (!p) {
						rc = TRACE_ENOMEM;
						break;
					}
					s->hu = p;
					s->caphu = cap;
				}
				s->hu[s->nhu++] = (struct hole_use){ ab, seq, c };
			}
			prev_acc_seq = acc_seq;
			have_acc = step(s, ac) > 0;
			if (have_acc)
				acc_seq = col(s, ac, 0, 0, 0, INT64_MIN, INT64_MAX);
		}
		if (rc)
			break;
		if (progress && (d->nevents & 0x3ffff) == 0)
			progress((double)d->nevents / (double)(total > 0 ? total : 1));
	}
	if (have_acc)
		s->bad = 1; /* accesses after the last event */
	if (!s->bad && s->have_clock)
		close_clock(s, s->clock);
	holes_before(s, INT64_MAX);
	/* a hole point at INT64_MAX itself cannot start anything: ignore */
	sqlite3_finalize(ev);
	sqlite3_finalize(ac);
	if (d->time_first > d->time_last)
		d->time_first = d->time_last = TRACE_TIME_NONE;
	return rc;
}

/*
 * Every access must touch a buffer live at its event and outside its holes:
 * the full loader's rule, by the same function.  Events stream in seq and
 * clock order, so the first and last access of a buffer are the ones that
 * can fall before its alloc or after its free; inside a hole, any can.
 */
static void check_accesses(struct scanner *s)
{
	const struct trace *t = s->t;
	for (size_t i = 0; i < t->nbuffers && !s->bad; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		if (s->acc_first[i] == INT64_MAX)
			continue;
		int clocked = s->c_first[i] != INT64_MAX;
		if (trace_check_access(t, b, 0, s->acc_first[i], s->c_first[i],
				       clocked, NULL, 0) ||
		    trace_check_access(t, b, 0, s->acc_last[i], s->c_last[i],
				       clocked, NULL, 0))
			s->bad = 1;
	}
	for (size_t i = 0; i < s->nhu && !s->bad; i++)
		if (trace_check_access(t, &t->buffers[s->hu[i].b], 0, s->hu[i].seq,
				       s->hu[i].c, 1, NULL, 0))
			s->bad = 1;
}

static int64_t *array(size_t n, int64_t fill)
{
	int64_t *p = malloc((n ? n : 1) * sizeof(*p));
	for (size_t i = 0; p && i < n; i++)
		p[i] = fill;
	return p;
}

void scan_digest_free(struct report_digest *d)
{
	free(d->last);
	free(d->next);
	free(d->last_t);
	free(d->next_t);
	free(d->multi);
	memset(d, 0, sizeof(*d));
}

static void scanner_free(struct scanner *s)
{
	free(s->u1);
	free(s->u1_t);
	free(s->saved);
	free(s->saved_t);
	free(s->after);
	free(s->after_t);
	free(s->acc_first);
	free(s->acc_last);
	free(s->c_first);
	free(s->c_last);
	free(s->has_hole);
	free(s->home);
	free(s->multi);
	free(s->hu);
	free(s->hp);
	free(s->names);
	if (s->db)
		sqlite3_close(s->db);
}

int scan_trace(const char *path, struct trace **out, struct report_digest *d,
	       void (*progress)(double done), char *err, size_t errlen)
{
	struct scanner s = { 0 };
	memset(d, 0, sizeof(*d));
	s.d = d;
	s.best = 0;
	s.at = INT64_MIN;
	FILE *f;
	char magic[16];
	/* the loader names what is wrong with the file */
	if (trace_open_input(path, "cannot open trace", &f, NULL, 0))
		return SCAN_LOAD_WHOLE;
	size_t n = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	if (n < sizeof(magic) || memcmp(magic, "SQLite format 3", 16) != 0)
		return SCAN_LOAD_WHOLE;
	if (tracedb_open_readonly(path, &s.db) != SQLITE_OK) {
		sqlite3_close(s.db);
		return SCAN_LOAD_WHOLE;
	}
	int rc = 0;
	char msg[256];
	/* only real tables: a view may never end (the loader says which) */
	static const char *const tables[] = { "meta", "buffers", "names",
					      "events", "accesses", "holes" };
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		if (tracedb_check_table(s.db, tables[i], NULL, 0) != 1) {
			sqlite3_close(s.db);
			return SCAN_LOAD_WHOLE;
		}
	}
	if (!(s.t = trace_new()))
		rc = TRACE_ENOMEM;
	/* meta, buffers, names and holes: the loader's own readers and checks */
	if (rc == 0) {
		int version = 0;
		const char **names = NULL;
		size_t nnames = 0;
		int hrc = tracedb_load_head(s.db, path, s.t, &version, &names,
					    &nnames, NULL, 0);
		s.names = names;
		s.nnames = (int64_t)nnames;
		if (hrc == TRACE_ENOMEM)
			rc = TRACE_ENOMEM;
		/* only the version this build writes streams; the loader
		 * migrates older ones */
		else if (hrc || version != TRACE_SCHEMA_VERSION)
			s.bad = 1;
	}
	/* the clock, and the holes as points of the running sum */
	if (rc == 0 && !s.bad) {
		const char *clock = trace_get_meta(s.t, "clock");
		if (clock && strcmp(clock, "time") == 0)
			s.t->clock = TRACE_CLOCK_TIME;
		else if (clock && strcmp(clock, "seq") != 0)
			s.bad = 1;
		size_t nb = s.t->nbuffers;
		if (!(s.u1 = array(nb, NO_USE_BEFORE)) || !(s.u1_t = array(nb, TRACE_TIME_NONE)) ||
		    !(s.saved = array(nb, NO_USE_BEFORE)) ||
		    !(s.saved_t = array(nb, TRACE_TIME_NONE)) ||
		    !(s.after = array(nb, NO_USE_AFTER)) ||
		    !(s.after_t = array(nb, TRACE_TIME_NONE)) ||
		    !(s.acc_first = array(nb, INT64_MAX)) || !(s.acc_last = array(nb, INT64_MIN)) ||
		    !(s.c_first = array(nb, INT64_MAX)) || !(s.c_last = array(nb, INT64_MAX)) ||
		    !(s.has_hole = calloc(nb ? nb : 1, 1)) ||
		    !(s.home = array(nb, TRACE_NONE)) || !(s.multi = calloc(nb ? nb : 1, 1)) ||
		    !(s.hp = malloc((2 * s.t->nholes + 1) * sizeof(*s.hp))))
			rc = TRACE_ENOMEM;
		for (size_t i = 0; rc == 0 && i < nb; i++)
			s.home[i] = s.t->buffers[i].stream;
		for (size_t i = 0; rc == 0 && !s.bad && i < s.t->nholes; i++) {
			const struct trace_hole *h = &s.t->holes[i];
			if (h->buffer < 0 || (uint64_t)h->buffer >= nb) {
				s.bad = 1;
				break;
			}
			s.has_hole[h->buffer] = 1;
			if (s.t->buffers[h->buffer].kind == TRACE_KIND_HOST)
				continue; /* not in the device peak */
			int64_t away = (int64_t)s.t->buffers[h->buffer].size;
			if (h->win_lo != TRACE_NONE && h->win_hi != TRACE_NONE)
				away -= h->win_hi - h->win_lo;
			s.hp[s.nhp++] = (struct hole_point){ h->lower, -away };
			s.hp[s.nhp++] = (struct hole_point){ h->upper, away };
		}
		if (!s.bad && s.nhp)
			qsort(s.hp, s.nhp, sizeof(*s.hp), hp_cmp);
	}
	if (rc == 0 && !s.bad)
		rc = stream_events(&s, progress);
	sqlite3_close(s.db);
	s.db = NULL;
	/* the model's rules, as the full loader applies them */
	if (rc == 0 && !s.bad && trace_finish(s.t, msg, sizeof(msg)) != 0)
		s.bad = 1;
	if (rc == 0 && !s.bad)
		check_accesses(&s);
	if (rc == 0 && !s.bad) {
		size_t nb = s.t->nbuffers;
		if (!(d->last = array(nb, 0)) || !(d->next = array(nb, 0)) ||
		    !(d->last_t = array(nb, 0)) || !(d->next_t = array(nb, 0)))
			rc = TRACE_ENOMEM;
		for (size_t i = 0; rc == 0 && i < nb; i++) {
			int before = s.u1[i] <= s.at;
			d->last[i] = before ? s.u1[i] : s.saved[i];
			d->last_t[i] = before ? s.u1_t[i] : s.saved_t[i];
			int after = s.after[i] != NO_USE_AFTER && s.after[i] > s.at;
			d->next[i] = after ? s.after[i] : NO_USE_AFTER;
			d->next_t[i] = after ? s.after_t[i] : TRACE_TIME_NONE;
		}
		d->at = s.at;
		d->multi = s.multi;
		s.multi = NULL;
	}
	scanner_free(&s);
	if (rc || s.bad) {
		trace_free(s.t);
		scan_digest_free(d);
		if (rc)
			return trace_seterr(err, errlen, rc, "out of memory reading trace '%s'",
					    path);
		return SCAN_LOAD_WHOLE;
	}
	*out = s.t;
	return 0;
}
