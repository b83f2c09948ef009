/* SPDX-License-Identifier: MIT */
/*
 * recorder.c - the capture's queue and writer thread (see recorder.h).
 *
 * Design note.  The queue is a bounded array of fixed-size records with one
 * turn counter per slot (Vyukov's bounded MPMC scheme, used here with one
 * consumer): a producer takes tickets with one fetch-add (several at once
 * for a kernel and its accesses), waits only if the writer is a whole queue
 * behind, fills its slots and publishes each with a release store.  The
 * writer takes slots strictly in ticket order.  Events that will get GPU
 * times from CUPTI activity records wait in a ring (with a correlation-id
 * index) until the times arrive or they are old; everything behind them
 * waits too, so the file stays in ticket order.
 */
#define _GNU_SOURCE /* pthread_rwlock, nanosleep under -std=c11 */
#include "recorder.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "allocsource.h"
#include "live.h"
#include "trace.h"
#include "tracedb.h"

enum rec_type {
	R_BUFFER = 1, /* persistent buffer (live at begin) */
	R_ALLOC,
	R_FREE,
	R_KERNEL,
	R_COPY,
	R_MEMSET,
	R_SYNC,
	R_MARK,
	R_ACCESS, /* belongs to the event record before it */
	R_TIME,
	R_META,
	R_ALIAS, /* corr: an event's id, c: a second id its GPU record may carry */
	R_SOURCE, /* id: its buffer (-1: join by corr), corr: the allocation's
		   * id, name: its source, aux: bypass */
};

struct rec {
	_Atomic uint64_t turn;
	uint8_t type, aux, kind, mode;
	int32_t device;
	uint32_t corr, name;
	int64_t stream;
	int64_t id;
	uint64_t a, b; /* addr/size, bytes/naccesses, t_start/t_end */
	uint32_t c;    /* R_META: value name */
	uint32_t pad;
};

/* --- interned names: chunked, so the writer reads ids without a lock ---- */

#define NAME_CHUNK 4096
#define NAME_CHUNKS 4096

struct names {
	pthread_mutex_t mu;
	char **chunk[NAME_CHUNKS];
	uint32_t n;      /* names stored; ids are 1..n */
	uint32_t *slots; /* hash -> id, 0 empty */
	size_t nslots;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static const char *name_of(const struct names *nm, uint32_t id)
{
	if (id == 0)
		return NULL;
	id--;
	return nm->chunk[id / NAME_CHUNK][id % NAME_CHUNK];
}

static uint32_t names_intern(struct names *nm, const char *s)
{
	if (!s)
		return 0;
	uint64_t h = str_hash(s);
	uint32_t id = 0;
	pthread_mutex_lock(&nm->mu);
	if ((size_t)(nm->n + 1) * 2 > nm->nslots) {
		size_t n = nm->nslots ? nm->nslots * 2 : 1024;
		uint32_t *slots = calloc(n, sizeof(*slots));
		if (!slots)
			goto out;
		for (size_t i = 0; i < nm->nslots; i++) {
			uint32_t k = nm->slots[i];
			if (!k)
				continue;
			size_t j = str_hash(name_of(nm, k)) & (n - 1);
			while (slots[j])
				j = (j + 1) & (n - 1);
			slots[j] = k;
		}
		free(nm->slots);
		nm->slots = slots;
		nm->nslots = n;
	}
	size_t j = h & (nm->nslots - 1);
	while (nm->slots[j]) {
		if (strcmp(name_of(nm, nm->slots[j]), s) == 0) {
			id = nm->slots[j];
			goto out;
		}
		j = (j + 1) & (nm->nslots - 1);
	}
	uint32_t k = nm->n;
	if (k / NAME_CHUNK >= NAME_CHUNKS)
		goto out;
	char ***c = &nm->chunk[k / NAME_CHUNK];
	if (!*c && !(*c = calloc(NAME_CHUNK, sizeof(**c))))
		goto out;
	char *copy = strdup(s);
	if (!copy)
		goto out;
	(*c)[k % NAME_CHUNK] = copy;
	nm->n++;
	id = nm->n;
	nm->slots[j] = id;
out:
	pthread_mutex_unlock(&nm->mu);
	return id;
}

static void names_free(struct names *nm)
{
	for (uint32_t i = 0; i < nm->n; i++)
		free(nm->chunk[i / NAME_CHUNK][i % NAME_CHUNK]);
	for (size_t c = 0; c < NAME_CHUNKS; c++)
		free(nm->chunk[c]);
	free(nm->slots);
	pthread_mutex_destroy(&nm->mu);
}

/* --- events waiting for their GPU times -------------------------------- */

struct pacc {
	int64_t id;
	uint8_t mode;
};

struct pev {
	struct trace_event e;
	struct trace_buffer b;
	uint8_t has_event, has_buf, timed;
	uint8_t reach; /* an allocation's entry points (recorder_alloc) */
	uint32_t corr;
	uint32_t alias; /* the nested driver call's correlation id, 0 if none */
	uint64_t expect_acc; /* accesses still to come from the queue */
	int64_t born_ns;
	uint32_t nacc, capacc;
	struct pacc *acc;
};

struct corr_slot {
	uint32_t corr; /* 0: empty */
	uint64_t pos;  /* absolute ring position */
};

/* An event written before its GPU times came: the times, when they come
 * late, are written into its row when the recorder closes. */
struct late_slot {
	uint32_t corr; /* 0: empty */
	uint8_t timed;
	uint8_t reach; /* as struct pev's */
	int64_t seq;
	int64_t buffer; /* an allocation's buffer, else TRACE_NONE */
	int64_t start, end;
};

/* Most events remembered for late times (16 Mi: 512 MiB of slots). */
#define LATE_MAX (1u << 24)

/* --- the recorder ------------------------------------------------------ */

enum { ST_IDLE = 0, ST_RECORDING = 1, ST_DONE = 2 };

/* Most distinct buffers one kernel records; more count as truncated. */
#define MAX_KERNEL_BUFFERS 1024

struct recorder {
	/* producer side */
	struct rec *q;
	size_t cap;
	_Atomic uint64_t tail;
	_Atomic int state;
	_Atomic int disabled;
	pthread_rwlock_t lock; /* live map, next_id, ticket order */
	struct live_map live;
	int64_t next_id;
	struct names names;
	_Atomic uint64_t unknown_frees, missed_frees, truncated, full_waits;

	/* writer side */
	pthread_t thread;
	_Atomic int closing;
	uint64_t head;
	struct trace_writer *w;
	int werr;        /* first write error (negative trace_err) */
	char errmsg[512];
	int64_t hold_ns;
	struct pev *ring; /* hold_max entries */
	size_t hold_max;
	uint64_t rhead, rtail; /* absolute positions */
	struct corr_slot *ctab;
	size_t nctab, ctab_used;
	char *path;
	struct late_slot *late; /* open addressing by corr */
	size_t nlate, late_used;
	int64_t seq;
	struct recorder_stats st;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Takes n consecutive tickets; the caller fills each with put(). */
static uint64_t reserve(struct recorder *r, size_t n)
{
	return atomic_fetch_add_explicit(&r->tail, n, memory_order_relaxed);
}

/* Waits until slot t is free, copies *x into it and publishes it. */
static void put(struct recorder *r, uint64_t t, const struct rec *x)
{
	struct rec *s = &r->q[t & (r->cap - 1)];
	unsigned spins = 0;
	int waited = 0;
	while (atomic_load_explicit(&s->turn, memory_order_acquire) != t) {
		if (!waited) {
			waited = 1;
			atomic_fetch_add_explicit(&r->full_waits, 1,
						  memory_order_relaxed);
		}
		if (++spins > 64)
			sched_yield();
	}
	s->type = x->type;
	s->aux = x->aux;
	s->kind = x->kind;
	s->mode = x->mode;
	s->device = x->device;
	s->corr = x->corr;
	s->name = x->name;
	s->stream = x->stream;
	s->id = x->id;
	s->a = x->a;
	s->b = x->b;
	s->c = x->c;
	atomic_store_explicit(&s->turn, t + 1, memory_order_release);
}

static int live_state(struct recorder *r)
{
	if (atomic_load_explicit(&r->disabled, memory_order_relaxed))
		return ST_DONE;
	return atomic_load_explicit(&r->state, memory_order_acquire);
}

/*
 * For the hooks that read the live map: 1 with the read lock held when the
 * recorder is recording (checked again under the lock, since a selection may
 * end it meanwhile), else 0 without it.
 */
static int lock_recording(struct recorder *r)
{
	if (live_state(r) != ST_RECORDING)
		return 0;
	pthread_rwlock_rdlock(&r->lock);
	if (atomic_load(&r->state) != ST_RECORDING) {
		pthread_rwlock_unlock(&r->lock);
		return 0;
	}
	return 1;
}

/* --- writer thread ----------------------------------------------------- */

static void wfail(struct recorder *r, int rc)
{
	if (rc < 0 && r->werr == 0) {
		r->werr = rc;
		snprintf(r->errmsg, sizeof(r->errmsg), "%s",
			 trace_writer_error(r->w));
	}
}

static struct late_slot *late_find(struct recorder *r, uint32_t corr)
{
	if (!r->nlate)
		return NULL;
	size_t j = (corr * 2654435761u) & (r->nlate - 1);
	while (r->late[j].corr) {
		if (r->late[j].corr == corr)
			return &r->late[j];
		j = (j + 1) & (r->nlate - 1);
	}
	return NULL;
}

/* Remembers that the event seq, written without times, has id corr. */
static void late_remember(struct recorder *r, uint32_t corr, uint8_t reach, int64_t seq,
			  int64_t buffer)
{
	if (!corr)
		return;
	if ((r->late_used + 1) * 2 > r->nlate) {
		size_t n = r->nlate ? r->nlate * 2 : 4096;
		struct late_slot *t = n <= 2 * (size_t)LATE_MAX ? calloc(n, sizeof(*t)) : NULL;
		if (!t) {
			r->st.late_lost++;
			return;
		}
		for (size_t i = 0; i < r->nlate; i++) {
			if (!r->late[i].corr)
				continue;
			size_t j = (r->late[i].corr * 2654435761u) & (n - 1);
			while (t[j].corr)
				j = (j + 1) & (n - 1);
			t[j] = r->late[i];
		}
		free(r->late);
		r->late = t;
		r->nlate = n;
	}
	size_t j = (corr * 2654435761u) & (r->nlate - 1);
	while (r->late[j].corr && r->late[j].corr != corr)
		j = (j + 1) & (r->nlate - 1);
	if (!r->late[j].corr)
		r->late_used++;
	r->late[j] = (struct late_slot){ .corr = corr, .seq = seq,
					 .buffer = buffer, .reach = reach };
}

static void write_pev(struct recorder *r, struct pev *p)
{
	if (r->werr)
		return;
	if (p->has_event && p->corr && !p->timed) {
		int64_t b = p->has_buf && p->e.type == TRACE_EV_ALLOC
				    ? p->b.id : TRACE_NONE;
		late_remember(r, p->corr, p->reach, p->e.seq, b);
		late_remember(r, p->alias, p->reach, p->e.seq, b);
	}
	int rc = 0;
	if (p->has_buf) {
		rc = trace_writer_buffer(r->w, &p->b);
		r->st.buffers++;
	}
	if (rc == 0 && p->has_event) {
		rc = trace_writer_event(r->w, &p->e);
		r->st.events++;
		if (p->timed)
			r->st.timed++;
		for (uint32_t i = 0; rc == 0 && i < p->nacc; i++) {
			rc = trace_writer_access(r->w, p->e.seq, p->acc[i].id,
						 p->acc[i].mode);
			r->st.accesses++;
		}
	}
	wfail(r, rc);
}

static void ctab_insert(struct recorder *r, uint32_t corr, uint64_t pos);

/* Rebuilds the correlation index from the waiting events: stale entries
 * (events already written) are never deleted one by one. */
static void ctab_rebuild(struct recorder *r)
{
	memset(r->ctab, 0, r->nctab * sizeof(*r->ctab));
	r->ctab_used = 0;
	for (uint64_t p = r->rhead; p < r->rtail; p++) {
		struct pev *e = &r->ring[p % r->hold_max];
		if (e->corr && !e->timed) {
			ctab_insert(r, e->corr, p);
			if (e->alias)
				ctab_insert(r, e->alias, p);
		}
	}
}

static void ctab_insert(struct recorder *r, uint32_t corr, uint64_t pos)
{
	if (r->ctab_used + 1 > r->nctab / 2)
		ctab_rebuild(r);
	size_t j = (corr * 2654435761u) & (r->nctab - 1);
	while (r->ctab[j].corr) {
		if (r->ctab[j].corr == corr) { /* a reused id: newest wins */
			r->ctab[j].pos = pos;
			return;
		}
		j = (j + 1) & (r->nctab - 1);
	}
	r->ctab[j] = (struct corr_slot){ corr, pos };
	r->ctab_used++;
}

/* The waiting event with id corr (its ring position in *pos if not NULL),
 * or NULL. */
static struct pev *ctab_find(struct recorder *r, uint32_t corr, uint64_t *pos)
{
	size_t j = (corr * 2654435761u) & (r->nctab - 1);
	while (r->ctab[j].corr) {
		if (r->ctab[j].corr == corr) {
			uint64_t p = r->ctab[j].pos;
			if (p < r->rhead || p >= r->rtail)
				return NULL;
			struct pev *e = &r->ring[p % r->hold_max];
			if (pos)
				*pos = p;
			return e->corr == corr || e->alias == corr ? e : NULL;
		}
		j = (j + 1) & (r->nctab - 1);
	}
	return NULL;
}

/* Writes waiting events from the front of the ring while they may go: final
 * writes everything, otherwise an event waits for its times until it is
 * hold_ns old. */
static void drain_ring(struct recorder *r, int final, int64_t now)
{
	while (r->rhead < r->rtail) {
		struct pev *p = &r->ring[r->rhead % r->hold_max];
		if (!final) {
			if (p->expect_acc)
				break;
			if (p->corr && !p->timed && r->hold_ns > 0) {
				if (!now)
					now = now_ns();
				if (now - p->born_ns < r->hold_ns)
					break;
			}
		}
		write_pev(r, p);
		r->rhead++;
	}
}

static struct pev *ring_push(struct recorder *r)
{
	if (r->rtail - r->rhead == r->hold_max) {
		/* full: the oldest goes without its times */
		struct pev *old = &r->ring[r->rhead % r->hold_max];
		write_pev(r, old);
		r->rhead++;
	}
	struct pev *p = &r->ring[r->rtail % r->hold_max];
	struct pacc *acc = p->acc;
	uint32_t capacc = p->capacc;
	memset(p, 0, sizeof(*p));
	p->acc = acc;
	p->capacc = capacc;
	p->e.t_start = p->e.t_end = TRACE_TIME_NONE;
	p->e.buffer = p->e.stream = TRACE_NONE;
	r->rtail++;
	return p;
}

static struct pev *push_event(struct recorder *r, const struct rec *x,
			      unsigned type)
{
	struct pev *p = ring_push(r);
	p->has_event = 1;
	p->e.seq = ++r->seq;
	p->e.type = (uint8_t)type;
	p->e.stream = x->stream;
	p->e.name = name_of(&r->names, x->name);
	p->corr = x->corr;
	if (p->corr) {
		p->born_ns = r->hold_ns > 0 ? now_ns() : 0;
		ctab_insert(r, p->corr, r->rtail - 1);
	}
	return p;
}

static void add_access(struct recorder *r, struct pev *p, int64_t id,
		       uint8_t mode)
{
	if (p->nacc == p->capacc) {
		uint32_t n = p->capacc ? p->capacc * 2 : 8;
		struct pacc *a = realloc(p->acc, n * sizeof(*a));
		if (!a) {
			if (!r->werr) {
				r->werr = TRACE_ENOMEM;
				snprintf(r->errmsg, sizeof(r->errmsg),
					 "out of memory recording accesses");
			}
			return;
		}
		p->acc = a;
		p->capacc = n;
	}
	p->acc[p->nacc++] = (struct pacc){ id, mode };
}

/* Whether an allocation through entry points reach (0: none the runtime
 * interposes) by an object naming mask (0xff: cannot tell) bypasses the
 * runtime. */
static int source_bypass(uint8_t reach, uint8_t mask)
{
	return !reach || (mask != 0xff && !(mask & reach));
}

static void handle(struct recorder *r, const struct rec *x)
{
	struct pev *p;
	r->st.records++;
	switch (x->type) {
	case R_META:
		if (!r->werr)
			wfail(r, trace_writer_meta(r->w, name_of(&r->names, x->name),
						   name_of(&r->names, x->c)));
		return;
	case R_BUFFER:
	case R_ALLOC:
		p = x->type == R_ALLOC ? push_event(r, x, TRACE_EV_ALLOC)
				       : ring_push(r);
		p->has_buf = 1;
		p->b = (struct trace_buffer){
			.id = x->id, .size = x->b, .rounded = x->b, .addr = x->a,
			/* every kind comes from CUDA's routines (trace.h) */
			.align = TRACE_ALIGN_CUDA, .fixed_offset = TRACE_NONE,
			.stream = x->stream, .device = x->device, .kind = x->kind,
			/* name: its source (or the API the runtime never sees) */
			.source = name_of(&r->names, x->name), .bypass = x->aux,
		};
		p->reach = x->mode;
		p->e.buffer = x->id;
		return;
	case R_FREE:
		p = push_event(r, x, TRACE_EV_FREE);
		p->e.buffer = x->id;
		return;
	case R_KERNEL:
	case R_COPY:
	case R_MEMSET:
		p = push_event(r, x, x->type == R_KERNEL ? TRACE_EV_KERNEL
				     : x->type == R_COPY ? TRACE_EV_COPY
							 : TRACE_EV_MEMSET);
		p->e.aux = x->aux;
		p->e.bytes = x->a;
		p->expect_acc = x->b;
		return;
	case R_SYNC:
	case R_MARK:
		p = push_event(r, x, x->type == R_SYNC ? TRACE_EV_SYNC
						       : TRACE_EV_MARK);
		p->e.aux = x->aux;
		p->e.bytes = x->type == R_SYNC ? x->a : 0; /* the CUDA event's id */
		return;
	case R_ACCESS:
		/* its event is the newest in the ring and still expects it */
		if (r->rtail > r->rhead) {
			p = &r->ring[(r->rtail - 1) % r->hold_max];
			if (p->expect_acc) {
				p->expect_acc--;
				add_access(r, p, x->id, x->mode);
			}
		}
		return;
	case R_ALIAS:
	{
		uint64_t pos;
		p = ctab_find(r, x->corr, &pos);
		if (p && !p->timed) {
			p->alias = x->c;
			ctab_insert(r, x->c, pos);
		} else if (!p) {
			struct late_slot *l = late_find(r, x->corr);
			if (l)
				late_remember(r, x->c, l->reach, l->seq, l->buffer);
		}
		return;
	}
	case R_SOURCE:
		p = x->corr ? ctab_find(r, x->corr, NULL) : NULL;
		if (p && p->has_buf && p->e.type == TRACE_EV_ALLOC &&
		    (x->id < 0 || p->b.id == x->id)) {
			p->b.source = name_of(&r->names, x->name);
			p->b.bypass = x->id >= 0 ? x->aux != 0 : source_bypass(p->reach, x->mode);
		} else if (x->id >= 0) {
			/* its buffer (written, or waiting where corr cannot
			 * reach it): the row is replaced when the buffer's own
			 * comes, which carries the same verdict */
			if (!r->werr)
				wfail(r, trace_writer_buffer_source(
						 r->w, x->id, name_of(&r->names, x->name),
						 x->aux));
		} else if (!p) {
			/* written already: its row gets the source now */
			struct late_slot *l = late_find(r, x->corr);
			if (l && l->buffer != TRACE_NONE && !r->werr)
				wfail(r, trace_writer_buffer_source(
						 r->w, l->buffer,
						 name_of(&r->names, x->name),
						 source_bypass(l->reach, x->mode)));
			p = NULL;
		}
		r->st.sources++;
		r->st.bypassing += p ? p->b.bypass : x->id >= 0 ? x->aux != 0 : x->mode == 0;
		return;
	case R_TIME:
		p = ctab_find(r, x->corr, NULL);
		if (!p) {
			/* written already: its row gets the times at close */
			struct late_slot *l = late_find(r, x->corr);
			if (!l) {
				r->st.late_times++;
				return;
			}
			if (!l->timed || (int64_t)x->a < l->start)
				l->start = (int64_t)x->a;
			if (!l->timed || (int64_t)x->b > l->end)
				l->end = (int64_t)x->b;
			l->timed = 1;
			return;
		}
		if (!p->timed) {
			p->e.t_start = (int64_t)x->a;
			p->e.t_end = (int64_t)x->b;
		} else { /* one API call, several GPU records: span them */
			if ((int64_t)x->a < p->e.t_start)
				p->e.t_start = (int64_t)x->a;
			if ((int64_t)x->b > p->e.t_end)
				p->e.t_end = (int64_t)x->b;
		}
		if (p->e.t_end < p->e.t_start)
			p->e.t_end = p->e.t_start;
		p->timed = 1;
		return;
	}
}

/*
 * How long written rows may wait before they are committed: a program that
 * is killed loses at most this much of its trace.
 */
#define COMMIT_EVERY_NS 250000000

static void *writer_main(void *arg)
{
	struct recorder *r = arg;
	unsigned idle = 0;
	int64_t committed = now_ns();
	for (;;) {
		struct rec *s = &r->q[r->head & (r->cap - 1)];
		if (atomic_load_explicit(&s->turn, memory_order_acquire) ==
		    r->head + 1) {
			struct rec x = {
				.type = s->type, .aux = s->aux, .kind = s->kind,
				.mode = s->mode, .device = s->device,
				.corr = s->corr, .name = s->name,
				.stream = s->stream, .id = s->id, .a = s->a,
				.b = s->b, .c = s->c,
			};
			atomic_store_explicit(&s->turn, r->head + r->cap,
					      memory_order_release);
			r->head++;
			handle(r, &x);
			/* the front waits for times most of the time: look
			 * at the clock once per 256 records only */
			if ((r->head & 255) == 0)
				drain_ring(r, 0, 0);
			else if (r->rhead < r->rtail &&
				 !r->ring[r->rhead % r->hold_max].corr)
				drain_ring(r, 0, 0);
			idle = 0;
			continue;
		}
		drain_ring(r, 0, 0);
		if (r->werr == 0 && now_ns() - committed > COMMIT_EVERY_NS) {
			wfail(r, trace_writer_commit(r->w));
			committed = now_ns();
		}
		if (atomic_load_explicit(&r->closing, memory_order_acquire) &&
		    r->head == atomic_load_explicit(&r->tail, memory_order_acquire))
			break;
		if (++idle < 64) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 200000 };
			nanosleep(&ts, NULL);
		}
	}
	drain_ring(r, 1, 0);
	return NULL;
}

/* --- open / close ------------------------------------------------------ */

static void destroy(struct recorder *r)
{
	if (r->ring)
		for (size_t i = 0; i < r->hold_max; i++)
			free(r->ring[i].acc);
	free(r->ring);
	free(r->ctab);
	free(r->late);
	free(r->path);
	free(r->q);
	live_clear(&r->live);
	names_free(&r->names);
	pthread_rwlock_destroy(&r->lock);
	free(r);
}

int recorder_open(struct recorder **out, const char *path,
		  const struct recorder_opts *opts, char *err, size_t errlen)
{
	struct recorder_opts o = { 0 };
	if (opts)
		o = *opts;
	size_t cap = o.queue_records ? o.queue_records : 65536;
	if (cap < 4096 || (cap & (cap - 1)))
		return trace_seterr(err, errlen, TRACE_EINVAL,
			       "queue length %zu is not a power of two of at least 4096",
			       cap);
	struct recorder *r = calloc(1, sizeof(*r));
	if (!r)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	pthread_mutex_init(&r->names.mu, NULL);
	pthread_rwlock_init(&r->lock, NULL);
	live_init(&r->live);
	r->cap = cap;
	r->hold_ns = o.hold_ns < 0 ? 2000000000 : o.hold_ns;
	r->hold_max = o.hold_max ? o.hold_max : 65536;
	r->nctab = 16;
	while (r->nctab < r->hold_max * 4)
		r->nctab *= 2;
	r->path = strdup(path);
	r->q = calloc(cap, sizeof(*r->q));
	r->ring = calloc(r->hold_max, sizeof(*r->ring));
	r->ctab = calloc(r->nctab, sizeof(*r->ctab));
	if (!r->q || !r->ring || !r->ctab || !r->path) {
		destroy(r);
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < cap; i++)
		atomic_init(&r->q[i].turn, i);
	atomic_init(&r->state, o.record_from_start ? ST_RECORDING : ST_IDLE);
	int rc = trace_writer_open(&r->w, path, TRACE_WRITE_STREAM, err, errlen);
	if (rc) {
		destroy(r);
		return rc;
	}
	if ((rc = trace_writer_meta(r->w, "clock", "seq")) ||
	    (rc = trace_writer_meta(r->w, "source", "memplan-capture"))) {
		trace_seterr(err, errlen, rc, "%s", trace_writer_error(r->w));
		trace_writer_close(r->w, 0, NULL, 0);
		destroy(r);
		return rc;
	}
	if ((rc = pthread_create(&r->thread, NULL, writer_main, r)) != 0) {
		trace_writer_close(r->w, 0, NULL, 0);
		destroy(r);
		return trace_seterr(err, errlen, TRACE_ENOMEM,
			       "cannot start the trace writer thread: %s",
			       strerror(rc));
	}
	*out = r;
	return 0;
}

/*
 * Writes the GPU times that came after their events were written into
 * those events' rows of the closed trace at path.  0, or a negative
 * trace_err with a sentence in err.
 */
static int patch_late(struct recorder *r, const char *path, char *err,
		      size_t errlen)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nlate; i++)
		n += r->late[i].corr && r->late[i].timed;
	if (!n)
		return 0;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "PRAGMA busy_timeout = 10000; BEGIN IMMEDIATE;"
				  "CREATE TEMP TABLE late(seq INTEGER PRIMARY KEY,"
				  " s INTEGER NOT NULL, e INTEGER NOT NULL);",
				  NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT INTO late VALUES(?1, ?2, ?3)"
					" ON CONFLICT(seq) DO UPDATE SET s = min(s, excluded.s),"
					" e = max(e, excluded.e)", -1, &st, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < r->nlate; i++) {
		const struct late_slot *l = &r->late[i];
		if (!l->corr || !l->timed)
			continue;
		sqlite3_bind_int64(st, 1, l->seq);
		sqlite3_bind_int64(st, 2, l->start);
		sqlite3_bind_int64(st, 3, l->end > l->start ? l->end : l->start);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "UPDATE events SET"
				  " t_start = (SELECT s FROM late WHERE late.seq = events.seq),"
				  " t_end = (SELECT e FROM late WHERE late.seq = events.seq)"
				  " WHERE seq IN (SELECT seq FROM late); COMMIT;",
				  NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		trace_seterr(err, errlen, TRACE_EIO,
			     "cannot write late GPU times into trace '%s': %s", path,
			     db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return TRACE_EIO;
	}
	r->st.late_patched = n;
	return sqlite3_close(db) == SQLITE_OK ? 0
		: trace_seterr(err, errlen, TRACE_EIO, "cannot close trace '%s'", path);
}

int recorder_close(struct recorder *r, int commit,
		   struct recorder_stats *stats, char *err, size_t errlen)
{
	/* under the lock: a caller that took tickets is done taking them */
	pthread_rwlock_wrlock(&r->lock);
	atomic_store(&r->state, ST_DONE);
	atomic_store_explicit(&r->closing, 1, memory_order_release);
	pthread_rwlock_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	int rc = r->werr;
	if (rc)
		trace_seterr(err, errlen, rc, "%s", r->errmsg);
	int crc = trace_writer_close(r->w, commit && !rc,
				     rc ? NULL : err, rc ? 0 : errlen);
	if (!rc)
		rc = crc;
	if (!rc && commit)
		rc = patch_late(r, r->path, err, errlen);
	if (stats) {
		*stats = r->st;
		stats->unknown_frees = atomic_load(&r->unknown_frees);
		stats->missed_frees = atomic_load(&r->missed_frees);
		stats->truncated = atomic_load(&r->truncated);
		stats->full_waits = atomic_load(&r->full_waits);
	}
	destroy(r);
	return rc;
}

void recorder_disable(struct recorder *r)
{
	atomic_store(&r->disabled, 1);
}

uint32_t recorder_intern(struct recorder *r, const char *s)
{
	return names_intern(&r->names, s);
}

int recorder_state(const struct recorder *r)
{
	return atomic_load(&((struct recorder *)r)->state);
}

/* --- producers --------------------------------------------------------- */

int recorder_begin(struct recorder *r, uint32_t name)
{
	if (live_state(r) != ST_IDLE)
		return 0;
	pthread_rwlock_wrlock(&r->lock);
	if (atomic_load(&r->state) != ST_IDLE) {
		pthread_rwlock_unlock(&r->lock);
		return 0;
	}
	atomic_store(&r->state, ST_RECORDING);
	uint64_t t = reserve(r, r->live.n + 1);
	for (size_t i = 0; i < r->live.n; i++) {
		struct live_entry *e = &r->live.v[i];
		e->id = r->next_id++;
		struct rec x = { .type = R_BUFFER, .id = e->id, .a = e->addr,
				 .b = e->size, .kind = e->kind,
				 .device = e->device, .stream = e->stream,
				 .name = e->source ? e->source : e->bypass ? e->api : 0,
				 .aux = e->bypass, .mode = e->reach };
		put(r, t++, &x);
	}
	struct rec m = { .type = R_MARK, .aux = TRACE_MARK_BEGIN,
			 .name = name, .stream = TRACE_NONE };
	put(r, t, &m);
	pthread_rwlock_unlock(&r->lock);
	return 1;
}

int recorder_end(struct recorder *r, uint32_t name)
{
	pthread_rwlock_wrlock(&r->lock);
	if (atomic_load(&r->state) != ST_RECORDING ||
	    atomic_load(&r->disabled)) {
		pthread_rwlock_unlock(&r->lock);
		return 0;
	}
	struct rec m = { .type = R_MARK, .aux = TRACE_MARK_END, .name = name,
			 .stream = TRACE_NONE };
	put(r, reserve(r, 1), &m);
	atomic_store(&r->state, ST_DONE);
	pthread_rwlock_unlock(&r->lock);
	return 1;
}

/* Emits the free of a recorded entry (caller holds the write lock). */
static void emit_free(struct recorder *r, const struct live_entry *e,
		      int64_t stream, uint32_t corr)
{
	if (e->id < 0 || atomic_load(&r->state) != ST_RECORDING)
		return;
	struct rec x = { .type = R_FREE, .id = e->id, .stream = stream,
			 .corr = corr };
	put(r, reserve(r, 1), &x);
}

void recorder_alloc(struct recorder *r, const struct recorder_alloc *a)
{
	if (live_state(r) == ST_DONE || a->size == 0)
		return;
	pthread_rwlock_wrlock(&r->lock);
	int st = atomic_load(&r->state);
	if (st == ST_DONE) {
		pthread_rwlock_unlock(&r->lock);
		return;
	}
	long i;
	while ((i = live_overlap(&r->live, a->addr, a->size)) >= 0) {
		struct live_entry old;
		live_remove_at(&r->live, (size_t)i, &old);
		atomic_fetch_add(&r->missed_frees, 1);
		emit_free(r, &old, old.stream, 0);
	}
	uint8_t reach = a->via & RECORDER_NOT_INTERPOSED ? 0
			: a->via ? a->via : ALLOCSOURCE_ALL;
	struct live_entry e = { .addr = a->addr, .size = a->size,
				.id = st == ST_RECORDING ? r->next_id : -1,
				.stream = a->stream, .device = a->device,
				.kind = a->kind, .reach = reach, .bypass = !reach,
				.corr = a->corr, .alias = a->alias, .api = a->api };
	if (live_insert(&r->live, &e) == 0 && st == ST_RECORDING) {
		r->next_id++;
		struct rec x = { .type = R_ALLOC, .id = e.id, .a = a->addr,
				 .b = a->size, .kind = a->kind,
				 .device = a->device, .stream = a->stream,
				 .corr = a->corr, .aux = e.bypass, .mode = reach,
				 .name = e.bypass ? a->api : 0 };
		put(r, reserve(r, 1), &x);
	}
	pthread_rwlock_unlock(&r->lock);
}

int recorder_free(struct recorder *r, uint64_t addr, int64_t stream,
		  uint32_t corr)
{
	if (live_state(r) == ST_DONE || addr == 0)
		return 0;
	pthread_rwlock_wrlock(&r->lock);
	struct live_entry old;
	int rc = live_remove(&r->live, addr, &old);
	if (rc == 0)
		emit_free(r, &old, stream, corr);
	else
		atomic_fetch_add(&r->unknown_frees, 1);
	pthread_rwlock_unlock(&r->lock);
	return rc;
}

int recorder_unmap(struct recorder *r, uint64_t addr, uint64_t size,
		   uint32_t corr)
{
	if (live_state(r) == ST_DONE || size == 0)
		return 0;
	int n = 0;
	pthread_rwlock_wrlock(&r->lock);
	long i;
	while ((i = live_overlap(&r->live, addr, size)) >= 0) {
		struct live_entry old;
		live_remove_at(&r->live, (size_t)i, &old);
		emit_free(r, &old, TRACE_NONE, corr);
		n++;
	}
	pthread_rwlock_unlock(&r->lock);
	return n;
}

struct hit {
	int64_t id;
	uint64_t size;
};

static int hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* Sorts hits by id and keeps each buffer once; returns the new count. */
static size_t unique_hits(struct hit *h, size_t k)
{
	if (k < 2)
		return k;
	if (k <= 16) { /* the usual case: a few pointers per launch */
		for (size_t i = 1; i < k; i++) {
			struct hit x = h[i];
			size_t j = i;
			for (; j > 0 && h[j - 1].id > x.id; j--)
				h[j] = h[j - 1];
			h[j] = x;
		}
	} else {
		qsort(h, k, sizeof(*h), hit_cmp);
	}
	size_t u = 1;
	for (size_t i = 1; i < k; i++)
		if (h[i].id != h[u - 1].id)
			h[u++] = h[i];
	return u;
}

void recorder_kernel(struct recorder *r, uint32_t name, int64_t stream,
		     uint32_t corr, const uint64_t *words, size_t nwords,
		     size_t truncated)
{
	recorder_launch(r, name, stream, corr, 0, words, nwords, truncated);
}

void recorder_launch(struct recorder *r, uint32_t name, int64_t stream,
		     uint32_t corr, unsigned aux, const uint64_t *words,
		     size_t nwords, size_t truncated)
{
	struct hit hits[MAX_KERNEL_BUFFERS];
	size_t k = 0;
	if (!lock_recording(r))
		return;
	const struct live_map *m = &r->live;
	uint64_t lo = m->n ? m->v[0].addr : 1;
	uint64_t hi = m->n ? m->v[m->n - 1].addr + m->v[m->n - 1].size : 0;
	for (size_t i = 0; i < nwords; i++) {
		if (words[i] < lo || words[i] >= hi)
			continue;
		const struct live_entry *e = live_find(m, words[i]);
		if (!e)
			continue;
		if (k == MAX_KERNEL_BUFFERS) {
			k = unique_hits(hits, k);
			if (k == MAX_KERNEL_BUFFERS) {
				truncated++;
				continue;
			}
		}
		hits[k++] = (struct hit){ e->id, e->size };
	}
	k = unique_hits(hits, k);
	uint64_t bytes = 0;
	for (size_t i = 0; i < k; i++)
		bytes += hits[i].size;
	uint64_t t = reserve(r, k + 1);
	pthread_rwlock_unlock(&r->lock);
	struct rec x = { .type = R_KERNEL, .name = name, .stream = stream,
			 .aux = (uint8_t)aux, .corr = corr, .a = bytes, .b = k };
	put(r, t, &x);
	for (size_t i = 0; i < k; i++) {
		struct rec acc = { .type = R_ACCESS, .id = hits[i].id,
				   .mode = TRACE_ACCESS_UNKNOWN };
		put(r, t + 1 + i, &acc);
	}
	if (truncated)
		atomic_fetch_add(&r->truncated, truncated);
}

/* Host memory that CUDA does not know (pageable) is not in the map. */
static int side_of(const struct live_entry *e)
{
	if (!e || e->kind == TRACE_KIND_HOST)
		return 0; /* host */
	return 1;        /* device (managed counts as device) */
}

static unsigned copy_kind(const struct live_entry *d,
			  const struct live_entry *s)
{
	int dd = side_of(d), ss = side_of(s);
	if (ss && dd)
		return d->device == s->device ? TRACE_COPY_D2D : TRACE_COPY_P2P;
	if (ss)
		return TRACE_COPY_D2H;
	if (dd)
		return TRACE_COPY_H2D;
	return TRACE_COPY_H2H;
}

void recorder_copy(struct recorder *r, uint32_t name, unsigned kind,
		   uint64_t dst, uint64_t src, uint64_t bytes, int64_t stream,
		   uint32_t corr)
{
	if (!lock_recording(r))
		return;
	const struct live_entry *d = live_find(&r->live, dst);
	const struct live_entry *s = live_find(&r->live, src);
	if (kind == TRACE_COPY_UNKNOWN)
		kind = copy_kind(d, s);
	int64_t did = d ? d->id : -1, sid = s ? s->id : -1;
	size_t n = (d != NULL) + (s != NULL && sid != did);
	uint64_t t = reserve(r, n + 1);
	pthread_rwlock_unlock(&r->lock);
	struct rec x = { .type = R_COPY, .name = name, .aux = (uint8_t)kind,
			 .stream = stream, .corr = corr, .a = bytes, .b = n };
	put(r, t++, &x);
	if (s && sid != did) {
		struct rec a = { .type = R_ACCESS, .id = sid,
				 .mode = TRACE_ACCESS_READ };
		put(r, t++, &a);
	}
	if (d) {
		struct rec a = { .type = R_ACCESS, .id = did,
				 .mode = sid == did ? TRACE_ACCESS_RW
						    : TRACE_ACCESS_WRITE };
		put(r, t, &a);
	}
}

void recorder_memset(struct recorder *r, uint32_t name, uint64_t dst,
		     uint64_t bytes, int64_t stream, uint32_t corr)
{
	if (!lock_recording(r))
		return;
	const struct live_entry *d = live_find(&r->live, dst);
	int64_t did = d ? d->id : -1;
	uint64_t t = reserve(r, d ? 2 : 1);
	pthread_rwlock_unlock(&r->lock);
	struct rec x = { .type = R_MEMSET, .name = name, .stream = stream,
			 .corr = corr, .a = bytes, .b = d ? 1 : 0 };
	put(r, t, &x);
	if (d) {
		struct rec a = { .type = R_ACCESS, .id = did,
				 .mode = TRACE_ACCESS_WRITE };
		put(r, t + 1, &a);
	}
}

/* One record that needs no lookup, taken under the read lock so that it
 * cannot slip in after recorder_close() stopped the writer. */
static void put_simple(struct recorder *r, const struct rec *x)
{
	if (!lock_recording(r))
		return;
	uint64_t t = reserve(r, 1);
	pthread_rwlock_unlock(&r->lock);
	put(r, t, x);
}

void recorder_sync(struct recorder *r, uint32_t name, int64_t stream)
{
	struct rec x = { .type = R_SYNC, .name = name, .stream = stream };
	put_simple(r, &x);
}

void recorder_order(struct recorder *r, uint32_t name, int64_t stream,
		    unsigned aux, uint64_t event)
{
	struct rec x = { .type = R_SYNC, .name = name, .stream = stream,
			 .aux = (uint8_t)aux, .a = event };
	put_simple(r, &x);
}

void recorder_alias(struct recorder *r, uint32_t corr, uint32_t alias)
{
	if (!corr || !alias || corr == alias)
		return;
	struct rec x = { .type = R_ALIAS, .corr = corr, .c = alias };
	put_simple(r, &x);
}

void recorder_mark(struct recorder *r, uint32_t name, unsigned aux)
{
	struct rec x = { .type = R_MARK, .name = name, .aux = (uint8_t)aux,
			 .stream = TRACE_NONE };
	put_simple(r, &x);
}

void recorder_gpu_time(struct recorder *r, uint32_t corr, int64_t start,
		       int64_t end)
{
	if (corr == 0)
		return;
	/* times come after their event and may come after recorder_end() */
	struct rec x = { .type = R_TIME, .corr = corr, .a = (uint64_t)start,
			 .b = (uint64_t)end };
	int st = live_state(r);
	if (st == ST_IDLE)
		return;
	pthread_rwlock_rdlock(&r->lock);
	if (atomic_load(&r->closing) || atomic_load(&r->disabled)) {
		pthread_rwlock_unlock(&r->lock);
		return;
	}
	uint64_t t = reserve(r, 1);
	pthread_rwlock_unlock(&r->lock);
	put(r, t, &x);
}

void recorder_source(struct recorder *r, uint32_t corr, uint64_t addr,
		     const char *source, int entry_points)
{
	if ((corr == 0 && addr == 0) || !source || !*source)
		return;
	uint32_t n = recorder_intern(r, source);
	if (!n)
		return;
	/* mode: the object's entry points for a join by corr (0xff unknown) */
	struct rec x = { .type = R_SOURCE, .id = -1, .corr = corr, .name = n,
			 .mode = entry_points < 0 ? 0xff : (uint8_t)entry_points };
	pthread_rwlock_wrlock(&r->lock);
	if (atomic_load(&r->closing) || atomic_load(&r->disabled)) {
		pthread_rwlock_unlock(&r->lock);
		return;
	}
	struct live_entry *e = addr ? live_find(&r->live, addr) : NULL;
	if (e && e->addr == addr &&
	    (corr == 0 || e->corr == 0 || corr == e->corr || corr == e->alias)) {
		/* by address: kept with the allocation, recorded or not */
		e->source = n;
		e->bypass = !e->reach || (entry_points >= 0 && !(entry_points & e->reach));
		if (e->id < 0) {
			pthread_rwlock_unlock(&r->lock);
			return; /* before the range: recorder_begin() writes it */
		}
		x.id = e->id;
		x.corr = e->corr;
		x.aux = e->bypass;
	} else if (corr == 0 || atomic_load(&r->state) == ST_IDLE) {
		pthread_rwlock_unlock(&r->lock);
		return;
	}
	uint64_t t = reserve(r, 1);
	pthread_rwlock_unlock(&r->lock);
	put(r, t, &x);
}

void recorder_meta(struct recorder *r, const char *key, const char *value)
{
	uint32_t k = recorder_intern(r, key), v = recorder_intern(r, value);
	if (!k || !v)
		return;
	if (atomic_load(&r->disabled))
		return;
	pthread_rwlock_rdlock(&r->lock);
	if (atomic_load(&r->closing)) {
		pthread_rwlock_unlock(&r->lock);
		return;
	}
	uint64_t t = reserve(r, 1);
	pthread_rwlock_unlock(&r->lock);
	struct rec x = { .type = R_META, .name = k, .c = v };
	put(r, t, &x);
}

/* --- after a crash ----------------------------------------------------- */

int recorder_seal(const char *path, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE);"
				      "PRAGMA journal_mode=DELETE;",
				  NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		trace_seterr(err, errlen, TRACE_EIO,
			     "cannot finish the interrupted trace '%s': %s",
			     path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return TRACE_EIO;
	}
	if (sqlite3_close(db) != SQLITE_OK)
		return trace_seterr(err, errlen, TRACE_EIO,
				    "cannot finish the interrupted trace '%s'",
				    path);
	return 0;
}
