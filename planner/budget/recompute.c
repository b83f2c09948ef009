/* SPDX-License-Identifier: MIT */
/*
 * recompute.c - the recomputation model (recompute.h): each transient
 * buffer's producer (the kernels that write it before its longest idle
 * stretch), the producer's inputs and temporaries, why a buffer cannot be
 * recomputed; the greedy choice on the resident profile of event indexes;
 * and the transformed trace of the program that recomputes.  The planner
 * never plans a recomputation directly: the plan is the swap planner's on
 * the transformed trace, so the runtime follows it like any other.
 */
#include "recompute.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planfile.h"

static const char *const why_names[RECOMP_WHY_COUNT] = {
	"recomputable", "not planned", "no producer", "written by several kernels",
	"random state", "input freed", "input overwritten", "updates an input in place",
	"no later use", "unknown access or holes", "used on several streams",
};

const char *recomp_why_name(unsigned why)
{
	return why < RECOMP_WHY_COUNT ? why_names[why] : "?";
}

static int has_word(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (; *s; s++) {
		size_t i = 0;
		while (i < n && s[i] && tolower((unsigned char)s[i]) == w[i])
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

int recomp_kernel_random(const char *name)
{
	/* a backward kernel applies the mask it is given: deterministic */
	if (!name || has_word(name, "bwd") || has_word(name, "backward"))
		return 0;
	static const char *const words[] = { "dropout", "bernoulli", "rand",
					     "philox", "curand" };
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (has_word(name, words[i]))
			return 1;
	return 0;
}

unsigned recomp_mode_at(const struct trace *t, size_t ev, int64_t x)
{
	const struct trace_event *e = &t->events[ev];
	unsigned m = 0;
	for (uint32_t a = 0; a < e->nacc; a++) {
		const struct trace_access *ac = &t->accesses[e->acc0 + a];
		if (ac->buffer == x)
			m |= ac->mode == TRACE_ACCESS_UNKNOWN ? TRACE_ACCESS_RW
							      : ac->mode;
	}
	return m;
}

/* Is x resident at event r (allocated before, freed after)? */
static int live_at(const struct trace_buffer *x, int64_t r)
{
	return (x->alloc_ev == TRACE_NONE || x->alloc_ev < r) &&
	       (x->free_ev == TRACE_NONE || x->free_ev > r);
}

static int in_rerun(const struct recomp_buf *rb, int64_t ev)
{
	for (unsigned w = 0; w < rb->nrerun; w++)
		if (rb->rerun[w] == ev)
			return 1;
	return 0;
}

/* Made by the re-run itself (its first use is one of the re-run's
 * kernels): an output, a temporary or a freed input made again. */
static int internal(const struct trace *t, const struct recomp_buf *rb,
		    int64_t x)
{
	const struct trace_buffer *b = &t->buffers[x];
	return !trace_buffer_persistent(b) && b->nuses &&
	       in_rerun(rb, t->uses[b->use0]);
}

static int scratch(const struct trace_buffer *b)
{
	return b->role == TRACE_ROLE_WORKSPACE && trace_buffer_persistent(b);
}

/* Was x written by an event other than the re-run's in (from, to)? */
static int written_between(const struct trace *t, const struct recomp_buf *rb,
			   int64_t x, int64_t from, int64_t to)
{
	const struct trace_buffer *b = &t->buffers[x];
	const uint32_t *u = t->uses + b->use0;
	size_t lo = 0, hi = b->nuses;
	while (lo < hi) { /* first use after from */
		size_t mid = (lo + hi) / 2;
		if ((int64_t)u[mid] <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < b->nuses && (int64_t)u[k] < to; k++)
		if (!in_rerun(rb, u[k]) && (recomp_mode_at(t, u[k], x) & TRACE_ACCESS_WRITE))
			return 1;
	return 0;
}

static double ev_ns(const struct trace_event *e)
{
	if (e->t_start == TRACE_TIME_NONE || e->t_end == TRACE_TIME_NONE ||
	    e->t_end < e->t_start)
		return 0;
	return (double)(e->t_end - e->t_start);
}

/* Item size of buffer x in the problem, else its requested size. */
static uint64_t bytes_of(const struct recomp_model *m, int64_t x)
{
	return m->b[x].item >= 0 ? m->p->items[m->b[x].item].size
				 : m->t->buffers[x].size;
}

/* Is x a temporary of i's re-run: made by it and not live at it? */
static int temp_of(const struct trace *t, const struct recomp_buf *rb,
		   size_t i, int64_t x)
{
	const struct trace_buffer *xb = &t->buffers[x];
	return x != (int64_t)i && !scratch(xb) && internal(t, rb, x) &&
	       !live_at(xb, rb->next_use);
}

/* The kernels that write x before event before (the first of them its
 * first use, creating it) into w[*nw]; RECOMP_OK or why not. */
static int writers_of(const struct trace *t, int64_t x, int64_t before,
		      int64_t *w, unsigned *nw)
{
	const struct trace_buffer *b = &t->buffers[x];
	const uint32_t *u = t->uses + b->use0;
	*nw = 0;
	if (b->nuses == 0 || t->events[u[0]].type != TRACE_EV_KERNEL ||
	    !(recomp_mode_at(t, u[0], x) & TRACE_ACCESS_WRITE))
		return RECOMP_NO_PRODUCER;
	for (uint32_t k = 0; k < b->nuses && (int64_t)u[k] < before; k++) {
		if (!(recomp_mode_at(t, u[k], x) & TRACE_ACCESS_WRITE))
			continue;
		if (t->events[u[k]].type != TRACE_EV_KERNEL ||
		    *nw == RECOMP_MAX_WRITERS)
			return RECOMP_WRITERS;
		w[(*nw)++] = u[k];
	}
	return RECOMP_OK;
}

/* Adds kernel ev to the re-run, in trace order; -1 when it is full. */
static int rerun_add(struct recomp_buf *rb, int64_t ev)
{
	if (in_rerun(rb, ev))
		return 0;
	if (rb->nrerun == RECOMP_MAX_RERUN)
		return -1;
	unsigned k = rb->nrerun++;
	while (k > 0 && rb->rerun[k - 1] > ev) {
		rb->rerun[k] = rb->rerun[k - 1];
		k--;
	}
	rb->rerun[k] = ev;
	return 0;
}

/* Grows i's re-run until every input it reads is resident at it or made
 * by it: a freed input's producer joins (before the kernel that reads
 * it), a bounded number of kernels in all.  RECOMP_OK or why not. */
static int close_rerun(const struct trace *t, struct recomp_buf *rb, size_t i)
{
	int64_t r = rb->next_use;
again:
	for (unsigned k = 0; k < rb->nrerun; k++) {
		const struct trace_event *e = &t->events[rb->rerun[k]];
		/* a random draw re-runs with the generator's state restored
		 * (the framework's preserve_rng_state): the same output */
		if (recomp_kernel_random(e->name))
			rb->rng = 1;
		for (uint32_t a = 0; a < e->nacc; a++) {
			int64_t x = t->accesses[e->acc0 + a].buffer;
			const struct trace_buffer *xb = &t->buffers[x];
			if (x == (int64_t)i || scratch(xb) || internal(t, rb, x))
				continue;
			rb->blocker = x;
			unsigned md = recomp_mode_at(t, (size_t)rb->rerun[k], x);
			if ((md & TRACE_ACCESS_WRITE) && !trace_buffer_persistent(xb))
				return RECOMP_IN_PLACE;
			if (live_at(xb, r)) {
				rb->blocker = -1;
				continue;
			}
			int64_t w[RECOMP_MAX_WRITERS];
			unsigned nw;
			if (writers_of(t, x, rb->rerun[k], w, &nw) != RECOMP_OK)
				return RECOMP_INPUT_FREED;
			for (unsigned j = 0; j < nw; j++)
				if (rerun_add(rb, w[j]))
					return RECOMP_INPUT_FREED;
			rb->blocker = -1;
			goto again; /* the order changed: scan it all again */
		}
	}
	return RECOMP_OK;
}

/* The producer, gap and re-run of buffer i; sets rb->why. */
static void judge(struct recomp_model *m, size_t i)
{
	const struct trace *t = m->t;
	const struct trace_buffer *b = &t->buffers[i];
	struct recomp_buf *rb = &m->b[i];
	if (rb->item < 0 || trace_buffer_persistent(b)) {
		rb->why = RECOMP_NOT_PLANNED;
		return;
	}
	if (b->nholes) {
		rb->why = RECOMP_UNKNOWN;
		return;
	}
	if (trace_buffer_streams(t, b, NULL, NULL)) {
		rb->why = RECOMP_STREAMS;
		return;
	}
	const uint32_t *u = t->uses + b->use0;
	if (b->nuses < 2) {
		rb->why = b->nuses ? RECOMP_NO_GAP : RECOMP_NO_PRODUCER;
		return;
	}
	/* the longest idle stretch between two uses */
	size_t k = 0;
	double best = -1;
	for (size_t j = 0; j + 1 < b->nuses; j++) {
		const struct trace_event *a = &t->events[u[j]], *c = &t->events[u[j + 1]];
		double gap = a->t_end != TRACE_TIME_NONE && c->t_start != TRACE_TIME_NONE
				     ? (double)(c->t_start - a->t_end)
				     : (double)(u[j + 1] - u[j]);
		if (gap > best) {
			best = gap;
			k = j;
		}
	}
	rb->last_fwd = u[k];
	rb->next_use = u[k + 1];
	unsigned nw;
	int why = writers_of(t, (int64_t)i, rb->next_use, rb->writer, &nw);
	rb->nwriters = (uint8_t)nw;
	if (why != RECOMP_OK) {
		rb->why = (uint8_t)why;
		return;
	}
	for (unsigned w = 0; w < nw; w++)
		rerun_add(rb, rb->writer[w]);
	why = close_rerun(t, rb, i);
	if (why != RECOMP_OK) {
		rb->why = (uint8_t)why;
		return;
	}
	int64_t seen[32];
	size_t nseen = 0;
	for (unsigned w = 0; w < rb->nrerun; w++) {
		const struct trace_event *e = &t->events[rb->rerun[w]];
		rb->cost_ns += ev_ns(e);
		for (uint32_t a = 0; a < e->nacc; a++) {
			int64_t x = t->accesses[e->acc0 + a].buffer;
			const struct trace_buffer *xb = &t->buffers[x];
			if (x == (int64_t)i || scratch(xb))
				continue;
			if (!internal(t, rb, x)) {
				if (written_between(t, rb, x, rb->rerun[0], rb->next_use)) {
					rb->blocker = x;
					rb->why = RECOMP_INPUT_CHANGED;
					return;
				}
				continue;
			}
			if (!temp_of(t, rb, i, x))
				continue;
			size_t s = 0;
			while (s < nseen && seen[s] != x)
				s++;
			if (s < nseen)
				continue;
			if (nseen == sizeof(seen) / sizeof(*seen)) {
				rb->why = RECOMP_UNKNOWN;
				return;
			}
			seen[nseen++] = x;
			rb->temp_bytes += bytes_of(m, x);
		}
	}
	rb->why = RECOMP_OK;
}

/* Does x's re-run run exactly i's kernels? */
static int same_rerun(const struct recomp_buf *a, const struct recomp_buf *b)
{
	if (a->nrerun != b->nrerun)
		return 0;
	for (unsigned k = 0; k < a->nrerun; k++)
		if (a->rerun[k] != b->rerun[k])
			return 0;
	return 1;
}

/*
 * Sets m->b[i].sib: the candidates the kernel creating i writes whose
 * re-run is i's own, of at least 1% of the largest of them, the first of
 * them; i when there is no other.  A dropout's re-run makes its output
 * and its mask: recomputing both costs one re-run, not two (GPT-2's
 * attention dropout: 288 MiB for 108 us, 0.37 us/MiB, where the output
 * alone is 0.56 us/MiB).  Random draws only: a max-pool's output and
 * indices as one were measured worse (planner/budget/README.md).
 */
static void find_sib(struct recomp_model *m, size_t i)
{
	const struct trace *t = m->t;
	const struct recomp_buf *rb = &m->b[i];
	if (rb->why != RECOMP_OK || rb->nwriters == 0 || !rb->rng)
		return;
	const struct trace_event *e = &t->events[rb->writer[0]];
	uint64_t largest = rb->bytes;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t a = 0; a < e->nacc; a++) {
			int64_t x = t->accesses[e->acc0 + a].buffer;
			if (x < 0 || (size_t)x >= m->n || x == (int64_t)i ||
			    !(t->accesses[e->acc0 + a].mode & TRACE_ACCESS_WRITE))
				continue;
			const struct recomp_buf *xb = &m->b[x];
			if (xb->why != RECOMP_OK || xb->nwriters == 0 ||
			    xb->writer[0] != rb->writer[0] || !same_rerun(rb, xb))
				continue;
			if (pass == 0) {
				if (xb->bytes > largest)
					largest = xb->bytes;
				continue;
			}
			if (rb->bytes < (largest + 99) / 100)
				return; /* i itself is too small to count */
			if (xb->bytes >= (largest + 99) / 100 &&
			    x < m->b[i].sib)
				m->b[i].sib = x;
		}
}

void recomp_model_free(struct recomp_model *m)
{
	free(m->b);
	memset(m, 0, sizeof(*m));
}

int recomp_model_init(struct recomp_model *m, const struct trace *t,
		      const struct solver_problem *p, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->t = t;
	m->p = p;
	m->n = t->nbuffers;
	m->b = calloc(m->n ? m->n : 1, sizeof(*m->b));
	if (!m->b)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	for (size_t i = 0; i < m->n; i++) {
		m->b[i].item = -1;
		m->b[i].sib = (int64_t)i;
		m->b[i].blocker = -1;
		m->b[i].last_fwd = m->b[i].next_use = -1;
	}
	for (size_t k = 0; k < p->n; k++)
		if (p->items[k].buffer >= 0 && (size_t)p->items[k].buffer < m->n) {
			m->b[p->items[k].buffer].item = (int64_t)k;
			m->b[p->items[k].buffer].bytes = p->items[k].size;
		}
	for (size_t i = 0; i < m->n; i++) {
		judge(m, i);
		m->ncand += m->b[i].why == RECOMP_OK;
	}
	for (size_t i = 0; i < m->n; i++)
		find_sib(m, i);
	int64_t first = INT64_MAX, last = INT64_MIN;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (e->t_start != TRACE_TIME_NONE && e->t_start < first)
			first = e->t_start;
		if (e->t_end != TRACE_TIME_NONE && e->t_end > last)
			last = e->t_end;
	}
	m->base_ns = last > first ? (double)(last - first) : 0;
	return 0;
}

void recomp_layer(const char *label, char *buf, size_t len)
{
	if (!label) {
		snprintf(buf, len, "-");
		return;
	}
	const char *dot = strrchr(label, '.');
	int n = dot ? (int)(dot - label) : (int)strlen(label);
	snprintf(buf, len, "%.*s", n, label);
}

void recomp_kind(const struct recomp_model *m, size_t i, char *buf, size_t len)
{
	const struct trace *t = m->t;
	const struct recomp_buf *rb = &m->b[i];
	int64_t ev[RECOMP_MAX_WRITERS];
	unsigned n = rb->nwriters;
	memcpy(ev, rb->writer, sizeof(ev));
	if (n == 0 && t->buffers[i].nuses) {
		ev[0] = t->uses[t->buffers[i].use0];
		n = 1;
	}
	size_t at = 0;
	buf[0] = '\0';
	for (unsigned k = 0; k < n && at + 1 < len; k++) {
		const char *name = t->events[ev[k]].name;
		if (!name)
			name = trace_event_type_name(t->events[ev[k]].type);
		int w = (int)strcspn(name, " ");
		int put = snprintf(buf + at, len - at, "%s%.*s", k ? "+" : "", w,
				   name);
		if (put < 0)
			break;
		at += (size_t)put;
		if (at >= len)
			at = len - 1;
	}
	if (!buf[0])
		snprintf(buf, len, "-");
}

/* --- the choice: a max segment tree with range add over event indexes ---- */

struct rtree {
	size_t n;
	int64_t *mx, *add;
};

static void rt_add(struct rtree *s, size_t node, size_t lo, size_t hi,
		   size_t a, size_t b, int64_t v)
{
	if (b <= lo || hi <= a)
		return;
	if (a <= lo && hi <= b) {
		s->mx[node] += v;
		s->add[node] += v;
		return;
	}
	size_t mid = (lo + hi) / 2;
	rt_add(s, 2 * node, lo, mid, a, b, v);
	rt_add(s, 2 * node + 1, mid, hi, a, b, v);
	int64_t l = s->mx[2 * node], r = s->mx[2 * node + 1];
	s->mx[node] = (l > r ? l : r) + s->add[node];
}

/* Max over [a, b). */
static int64_t rt_max(const struct rtree *s, size_t node, size_t lo, size_t hi,
		      size_t a, size_t b)
{
	if (b <= lo || hi <= a)
		return INT64_MIN;
	if (a <= lo && hi <= b)
		return s->mx[node];
	size_t mid = (lo + hi) / 2;
	int64_t l = rt_max(s, 2 * node, lo, mid, a, b),
		r = rt_max(s, 2 * node + 1, mid, hi, a, b);
	return (l > r ? l : r) + s->add[node];
}

/* The first index where the whole tree's maximum is reached. */
static size_t rt_argmax(const struct rtree *s)
{
	size_t node = 1, lo = 0, hi = s->n;
	int64_t want = s->mx[1];
	while (hi - lo > 1) {
		want -= s->add[node];
		size_t mid = (lo + hi) / 2;
		if (s->mx[2 * node] == want) {
			node = 2 * node;
			hi = mid;
		} else {
			node = 2 * node + 1;
			lo = mid;
		}
	}
	return lo;
}

struct cand {
	double per_byte;
	size_t buf;
	int unit; /* buf's unit: buf and the buffers whose sib it is */
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->per_byte != y->per_byte)
		return x->per_byte < y->per_byte ? -1 : 1;
	if (x->buf != y->buf)
		return x->buf < y->buf ? -1 : 1;
	return x->unit - y->unit;
}

/* Where chosen re-runs need buffers present: per buffer, a list of
 * re-run points (event indexes). */
struct needs {
	int64_t *head, *next, *at;
	size_t n, cap;
};

static int needs_push(struct needs *nd, int64_t x, int64_t at)
{
	if (nd->n == nd->cap) {
		size_t cap = nd->cap ? 2 * nd->cap : 256;
		int64_t *nx = realloc(nd->next, cap * sizeof(*nx));
		if (!nx)
			return -1;
		nd->next = nx;
		int64_t *na = realloc(nd->at, cap * sizeof(*na));
		if (!na)
			return -1;
		nd->at = na;
		nd->cap = cap;
	}
	nd->at[nd->n] = at;
	nd->next[nd->n] = nd->head[x];
	nd->head[x] = (int64_t)nd->n++;
	return 0;
}

/*
 * One re-run as the choice weighs it: its kernels are those of buffer
 * first (the member re-run first), made before event at; lead >= 0 when
 * it makes a unit (every buffer whose sib is lead), else first alone.
 */
struct rerun1 {
	size_t first;
	int64_t at, lead;
};

static int in_unit(const struct recomp_model *m, const struct rerun1 *r,
		   int64_t x)
{
	return x == (int64_t)r->first || (r->lead >= 0 && m->b[x].sib == r->lead);
}

/* Records what re-run r needs present: every buffer its kernels touch
 * but its own and its temporaries. */
static int needs_add(struct needs *nd, const struct recomp_model *m,
		     const struct rerun1 *r)
{
	const struct trace *t = m->t;
	const struct recomp_buf *rb = &m->b[r->first];
	for (unsigned w = 0; w < rb->nrerun; w++) {
		const struct trace_event *e = &t->events[rb->rerun[w]];
		for (uint32_t a = 0; a < e->nacc; a++) {
			int64_t x = t->accesses[e->acc0 + a].buffer;
			if (in_unit(m, r, x) ||
			    trace_buffer_persistent(&t->buffers[x]) ||
			    temp_of(t, rb, r->first, x))
				continue;
			if (needs_push(nd, x, r->at))
				return -1;
		}
	}
	return 0;
}

/* Would re-run r meet a chosen buffer: one its kernels need, away at it
 * (until[x]: where chosen x is made again); or a buffer r makes (i: each
 * in turn) away at the re-run of a chosen buffer that needs it? */
static int conflicts(const struct recomp_model *m, const uint8_t *chosen,
		     const int64_t *until, const struct needs *nd,
		     const struct rerun1 *r, size_t i)
{
	const struct trace *t = m->t;
	const struct recomp_buf *rb = &m->b[r->first];
	if (i == r->first)
		for (unsigned w = 0; w < rb->nrerun; w++) {
			const struct trace_event *e = &t->events[rb->rerun[w]];
			for (uint32_t a = 0; a < e->nacc; a++) {
				int64_t x = t->accesses[e->acc0 + a].buffer;
				if (in_unit(m, r, x) || !chosen[x] ||
				    temp_of(t, rb, r->first, x))
					continue;
				if (m->b[x].last_fwd < r->at && r->at < until[x])
					return 1;
			}
		}
	for (int64_t k = nd->head[i]; k >= 0; k = nd->next[k])
		if (m->b[i].last_fwd < nd->at[k] && nd->at[k] < r->at)
			return 1;
	return 0;
}

/* Buffer i away from its last forward use until at. */
static void apply(struct rtree *s, const struct recomp_model *m, size_t i,
		  int64_t at)
{
	const struct recomp_buf *rb = &m->b[i];
	rt_add(s, 1, 0, s->n, (size_t)rb->last_fwd + 1, (size_t)at,
	       -(int64_t)rb->bytes);
}

/* A re-run's temporaries, alive at it. */
static void apply_temp(struct rtree *s, const struct recomp_model *m,
		       const struct rerun1 *r)
{
	const struct recomp_buf *rb = &m->b[r->first];
	if (rb->temp_bytes)
		rt_add(s, 1, 0, s->n, (size_t)r->at, (size_t)r->at + 1,
		       (int64_t)rb->temp_bytes);
}

/*
 * The unit led by lead into *r and *bytes: its member re-run first, the
 * bytes of all; 0, or -1 when a member is chosen already or not away at
 * the peak (at) until the re-run.  nxt links the members, lead first.
 */
static int unit_of(const struct recomp_model *m, const int64_t *nxt,
		   const uint8_t *chosen, size_t lead, size_t at,
		   struct rerun1 *r, uint64_t *bytes)
{
	r->first = lead;
	r->lead = (int64_t)lead;
	r->at = m->b[lead].next_use;
	*bytes = 0;
	for (int64_t x = (int64_t)lead; x >= 0; x = nxt[x]) {
		if (chosen[x])
			return -1;
		if (m->b[x].next_use < r->at) {
			r->at = m->b[x].next_use;
			r->first = (size_t)x;
		}
		*bytes += m->b[x].bytes;
	}
	for (int64_t x = (int64_t)lead; x >= 0; x = nxt[x])
		if (!((size_t)m->b[x].last_fwd < at && at < (size_t)r->at))
			return -1;
	return 0;
}

uint64_t recomp_choose(const struct recomp_model *m, uint64_t target,
		       uint8_t *chosen)
{
	return recomp_choose_units(m, target, chosen, 1);
}

uint64_t recomp_choose_units(const struct recomp_model *m, uint64_t target,
			     uint8_t *chosen, int units)
{
	const struct trace *t = m->t;
	size_t n = t->nevents ? t->nevents : 1;
	struct rtree s = { n, calloc(4 * n, sizeof(int64_t)),
			   calloc(4 * n, sizeof(int64_t)) };
	struct cand *c = malloc((2 * m->ncand + 1) * sizeof(*c));
	struct needs nd = { malloc((m->n ? m->n : 1) * sizeof(int64_t)), NULL,
			    NULL, 0, 0 };
	int64_t *until = malloc((m->n ? m->n : 1) * sizeof(*until));
	int64_t *nxt = malloc((m->n ? m->n : 1) * sizeof(*nxt));
	uint64_t peak = UINT64_MAX;
	if (!s.mx || !s.add || !c || !nd.head || !until || !nxt)
		goto out;
	for (size_t i = 0; i < m->n; i++) {
		nd.head[i] = -1;
		nxt[i] = -1;
		until[i] = m->b[i].next_use;
	}
	/* the units: each lead's list, the lead first */
	for (size_t i = m->n; i-- > 0;) {
		size_t l = (size_t)m->b[i].sib;
		if (l != i && m->b[i].why == RECOMP_OK) {
			nxt[i] = nxt[l];
			nxt[l] = (int64_t)i;
		}
	}
	for (size_t k = 0; k < m->p->n; k++) {
		const struct solver_item *it = &m->p->items[k];
		const struct trace_buffer *b = &t->buffers[it->buffer];
		if (b->alloc_ev == TRACE_NONE || b->free_ev == TRACE_NONE)
			continue;
		rt_add(&s, 1, 0, n, (size_t)b->alloc_ev, (size_t)b->free_ev,
		       (int64_t)it->size);
	}
	/* an earlier choice: a buffer chosen 2 is away until the first next
	 * use of its unit's chosen members */
	for (size_t i = 0; i < m->n; i++)
		if (chosen[i] == 2 && chosen[m->b[i].sib] == 1) {
			size_t l = (size_t)m->b[i].sib;
			if (until[i] < until[l])
				until[l] = until[i];
		}
	for (size_t i = 0; i < m->n; i++)
		if (chosen[i] == 2 && chosen[m->b[i].sib] == 1)
			until[i] = until[m->b[i].sib];
	size_t nc = 0;
	for (size_t i = 0; i < m->n; i++) {
		if (m->b[i].why != RECOMP_OK)
			continue;
		if (chosen[i]) {
			struct rerun1 r = { i, until[i], -1 };
			apply(&s, m, i, until[i]);
			if (chosen[i] == 1 || chosen[m->b[i].sib] != 1) {
				apply_temp(&s, m, &r);
				if (needs_add(&nd, m, &r))
					goto out;
			}
			continue;
		}
		c[nc++] = (struct cand){ m->b[i].cost_ns / (double)m->b[i].bytes,
					 i, 0 };
		if (units && m->b[i].sib == (int64_t)i && nxt[i] >= 0) {
			uint64_t ub = 0;
			for (int64_t x = (int64_t)i; x >= 0; x = nxt[x])
				ub += m->b[x].bytes;
			c[nc++] = (struct cand){ m->b[i].cost_ns / (double)ub, i, 1 };
		}
	}
	qsort(c, nc, sizeof(*c), cand_cmp);
	for (;;) {
		int64_t top = s.mx[1];
		if (top <= (int64_t)target)
			break;
		size_t at = rt_argmax(&s);
		size_t pick = SIZE_MAX;
		struct rerun1 r;
		for (size_t j = 0; j < nc; j++) {
			size_t i = c[j].buf;
			const struct recomp_buf *rb = &m->b[i];
			uint64_t ub;
			if (c[j].unit) {
				if (unit_of(m, nxt, chosen, i, at, &r, &ub))
					continue;
			} else {
				if (chosen[i] || !((size_t)rb->last_fwd < at &&
						   at < (size_t)rb->next_use))
					continue;
				r = (struct rerun1){ i, rb->next_use, -1 };
			}
			uint64_t tb = m->b[r.first].temp_bytes;
			if (tb && rt_max(&s, 1, 0, n, (size_t)r.at,
					 (size_t)r.at + 1) + (int64_t)tb >= top)
				continue;
			int meets = conflicts(m, chosen, until, &nd, &r, r.first);
			for (int64_t x = r.lead; x >= 0 && !meets; x = nxt[x])
				if ((size_t)x != r.first)
					meets = conflicts(m, chosen, until, &nd,
							  &r, (size_t)x);
			if (meets)
				continue;
			pick = j;
			break;
		}
		if (pick == SIZE_MAX)
			break;
		if (r.lead < 0) {
			chosen[r.first] = 1;
			apply(&s, m, r.first, r.at);
		} else {
			for (int64_t x = r.lead; x >= 0; x = nxt[x]) {
				chosen[x] = x == r.lead ? 1 : 2;
				until[x] = r.at;
				apply(&s, m, (size_t)x, r.at);
			}
		}
		apply_temp(&s, m, &r);
		if (needs_add(&nd, m, &r))
			goto out;
	}
	peak = s.mx[1] > 0 ? (uint64_t)s.mx[1] : 0;
out:
	free(nd.head);
	free(nd.next);
	free(nd.at);
	free(s.mx);
	free(s.add);
	free(c);
	free(until);
	free(nxt);
	return peak;
}

/* --- re-runs of groups: the kernels that make a group's buffers again ---- */

void recomp_groups_free(struct recomp_groups *g)
{
	free(g->at);
	free(g->group);
	free(g->last_fwd);
	free(g->cost_ns);
	free(g->nkernels);
	free(g->first);
	free(g->last);
	free(g->rng);
	free(g->ckpt);
	memset(g, 0, sizeof(*g));
}

int recomp_groups_init(struct recomp_groups *g, size_t nbuffers,
		       size_t ngroups)
{
	memset(g, 0, sizeof(*g));
	size_t nb = nbuffers ? nbuffers : 1, ng = ngroups ? ngroups : 1;
	g->ngroups = ngroups;
	g->at = calloc(ng, sizeof(*g->at));
	g->group = malloc(nb * sizeof(*g->group));
	g->last_fwd = malloc(nb * sizeof(*g->last_fwd));
	g->cost_ns = calloc(ng, sizeof(*g->cost_ns));
	g->nkernels = calloc(ng, sizeof(*g->nkernels));
	g->first = calloc(ng, sizeof(*g->first));
	g->last = calloc(ng, sizeof(*g->last));
	g->rng = calloc(ng, sizeof(*g->rng));
	g->ckpt = malloc(ng * sizeof(*g->ckpt));
	if (!g->ckpt || !g->at || !g->group || !g->last_fwd || !g->cost_ns ||
	    !g->nkernels || !g->first || !g->last || !g->rng) {
		recomp_groups_free(g);
		return TRACE_ENOMEM;
	}
	for (size_t k = 0; k < ngroups; k++)
		g->ckpt[k] = -1;
	for (size_t i = 0; i < nbuffers; i++) {
		g->group[i] = -1;
		g->last_fwd[i] = -1;
	}
	return 0;
}

size_t recomp_groups_put_choice(const struct recomp_model *m,
				const uint8_t *chosen, struct recomp_groups *g)
{
	size_t n = 0;
	for (int pass = 0; pass < 2 && chosen; pass++)
		for (size_t i = 0; i < m->n; i++) {
			if (!chosen[i] || (chosen[i] == 2) != pass)
				continue;
			int32_t k = pass ? g->group[m->b[i].sib] : -1;
			g->last_fwd[i] = m->b[i].last_fwd;
			if (k < 0) { /* its own re-run */
				g->group[i] = (int32_t)n;
				g->at[n++] = m->b[i].next_use;
				continue;
			}
			/* made by its sib's re-run, before either's next use */
			g->group[i] = k;
			if (m->b[i].next_use < g->at[k])
				g->at[k] = m->b[i].next_use;
		}
	return n;
}

int recomp_groups_from_choice(const struct recomp_model *m,
			      const uint8_t *chosen, struct recomp_groups *g)
{
	size_t n = 0;
	for (size_t i = 0; i < m->n; i++)
		n += chosen && chosen[i];
	if (recomp_groups_init(g, m->n, n))
		return TRACE_ENOMEM;
	g->ngroups = recomp_groups_put_choice(m, chosen, g);
	return 0;
}

struct kvec {
	int64_t *v;
	size_t n, cap;
};

static int kvec_insert(struct kvec *k, int64_t x)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		int64_t *v = realloc(k->v, cap * sizeof(*v));
		if (!v)
			return -1;
		k->v = v;
		k->cap = cap;
	}
	size_t j = k->n++;
	while (j > 0 && k->v[j - 1] > x) {
		k->v[j] = k->v[j - 1];
		j--;
	}
	k->v[j] = x;
	return 0;
}

/* What closing one group needs, reused from group to group. */
struct closer {
	const struct recomp_model *m;
	const struct recomp_groups *G;
	uint8_t *mark;    /* per event: in the closure of the current group */
	int64_t *head, *next; /* per group and per buffer: its members */
	uint8_t *role;    /* per buffer: ROLE_* for the current group */
	uint32_t *stamp;  /* per buffer: role valid when == the group's stamp */
	uint32_t now;
	int64_t *hold;    /* per buffer: kept past its free until the re-run
			     before this event, -1 none */
	struct kvec k;    /* the closure, in trace order */
	struct kvec temps;
};

enum { ROLE_CUR = 0, ROLE_MEMBER = 1, ROLE_TEMP = 2 };

static void closer_free(struct closer *c)
{
	free(c->mark);
	free(c->head);
	free(c->next);
	free(c->role);
	free(c->stamp);
	free(c->hold);
	free(c->k.v);
	free(c->temps.v);
	memset(c, 0, sizeof(*c));
}

static int closer_init(struct closer *c, const struct recomp_model *m,
		       const struct recomp_groups *G)
{
	memset(c, 0, sizeof(*c));
	c->m = m;
	c->G = G;
	size_t ne = m->t->nevents ? m->t->nevents : 1, nb = m->n ? m->n : 1;
	c->mark = calloc(ne, 1);
	c->head = malloc((G->ngroups ? G->ngroups : 1) * sizeof(*c->head));
	c->next = malloc(nb * sizeof(*c->next));
	c->role = calloc(nb, 1);
	c->stamp = calloc(nb, sizeof(*c->stamp));
	c->hold = malloc(nb * sizeof(*c->hold));
	if (!c->mark || !c->head || !c->next || !c->role || !c->stamp ||
	    !c->hold)
		return TRACE_ENOMEM;
	for (size_t i = 0; i < m->n; i++)
		c->hold[i] = -1;
	for (size_t g = 0; g < G->ngroups; g++)
		c->head[g] = -1;
	for (size_t i = m->n; i-- > 0;) {
		c->next[i] = -1;
		int32_t g = G->group[i];
		if (g < 0)
			continue;
		c->next[i] = c->head[g];
		c->head[g] = (int64_t)i;
	}
	return 0;
}

/* Is x gone at group g's re-run: freed after its last forward use, and its
 * own group's re-run not yet run (re-runs run by point, then group)? */
static int away(const struct recomp_groups *G, int64_t x, size_t g)
{
	int32_t gx = G->group[x];
	if (gx < 0 || (size_t)gx == g)
		return 0;
	int64_t r = G->at[g];
	if (G->last_fwd[x] >= r)
		return 0;
	return !(G->at[gx] < r || (G->at[gx] == r && (size_t)gx < g));
}

/* Written in (from, to) by an event outside the closure? */
static int written_outside(const struct closer *c, int64_t x, int64_t from,
			   int64_t to)
{
	const struct trace *t = c->m->t;
	const struct trace_buffer *b = &t->buffers[x];
	const uint32_t *u = t->uses + b->use0;
	for (size_t k = 0; k < b->nuses && (int64_t)u[k] < to; k++)
		if ((int64_t)u[k] > from && !c->mark[u[k]] &&
		    (recomp_mode_at(t, u[k], x) & TRACE_ACCESS_WRITE))
			return 1;
	return 0;
}

/* Its first use: an accessed buffer has one. */
static int64_t first_use_ev(const struct trace *t, int64_t x)
{
	return (int64_t)t->uses[t->buffers[x].use0];
}

/* Is x, at group g's re-run, resident with the value it had at event from? */
static int available(const struct closer *c, int64_t x, size_t g, int64_t from)
{
	const struct trace_buffer *xb = &c->m->t->buffers[x];
	int64_t r = c->G->at[g];
	if (c->hold[x] >= r && xb->free_ev != TRACE_NONE && xb->free_ev < r)
		return !written_outside(c, x, from, xb->free_ev);
	return live_at(xb, r) && !away(c->G, x, g) &&
	       !written_outside(c, x, from, r);
}

/* Can x, freed before group g's re-run and made by no kernel (an input
 * of the iteration copied in: a mask, ids), be kept until it with its
 * value, as a checkpoint keeps its inputs? */
static int holdable(const struct closer *c, int64_t x, size_t g, int64_t from)
{
	const struct trace *t = c->m->t;
	const struct trace_buffer *xb = &t->buffers[x];
	/* only what no kernel made: a copy of the batch (kept small and rare;
	 * the choice does not count what is kept) */
	if (t->events[first_use_ev(t, x)].type == TRACE_EV_KERNEL)
		return 0;
	return c->G->group[x] < 0 && xb->free_ev != TRACE_NONE &&
	       xb->free_ev < c->G->at[g] && xb->alloc_ev != TRACE_NONE &&
	       !written_outside(c, x, from, xb->free_ev);
}

static int mark_add(struct closer *c, int64_t ev)
{
	if (c->mark[ev])
		return 0;
	c->mark[ev] = 1;
	return kvec_insert(&c->k, ev);
}

/*
 * The closure of group g: its members' writers, and before them, in turn,
 * the writers of every input that is not resident with its value at the
 * re-run (freed, away in another group's window, or overwritten since);
 * the buffers made by the closure that are not resident at it become its
 * temporaries.  Fills c->k, c->temps and c->role; RECOMP_OK or why not
 * (*blocker: the buffer).  Leaves c->mark set for c->k (closer_clear()).
 */
static int close_group(struct closer *c, size_t g, int64_t *blocker)
{
	const struct trace *t = c->m->t;
	const struct recomp_groups *G = c->G;
	int64_t r = G->at[g];
	c->k.n = c->temps.n = 0;
	c->now++;
	*blocker = -1;
	for (int64_t x = c->head[g]; x >= 0; x = c->next[x]) {
		int64_t w[RECOMP_MAX_WRITERS];
		unsigned nw;
		if (G->last_fwd[x] < 0 || G->last_fwd[x] >= r) {
			*blocker = x;
			return RECOMP_NO_GAP;
		}
		int why = writers_of(t, x, r, w, &nw);
		if (why != RECOMP_OK) {
			*blocker = x;
			return why;
		}
		for (unsigned j = 0; j < nw; j++)
			if (mark_add(c, w[j]))
				return TRACE_ENOMEM;
		c->stamp[x] = c->now;
		c->role[x] = ROLE_MEMBER;
	}
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t ki = 0; ki < c->k.n && !changed; ki++) {
			int64_t ev = c->k.v[ki];
			const struct trace_event *e = &t->events[ev];
			for (uint32_t a = 0; a < e->nacc && !changed; a++) {
				int64_t x = t->accesses[e->acc0 + a].buffer;
				const struct trace_buffer *xb = &t->buffers[x];
				if (trace_buffer_persistent(xb) || scratch(xb) ||
				    G->group[x] == (int32_t)g)
					continue;
				if (c->mark[first_use_ev(t, x)])
					continue; /* made by the closure */
				if (recomp_mode_at(t, (size_t)ev, x) & TRACE_ACCESS_WRITE) {
					*blocker = x;
					return RECOMP_IN_PLACE;
				}
				if (available(c, x, g, ev))
					continue;
				int64_t w[RECOMP_MAX_WRITERS];
				unsigned nw;
				if (writers_of(t, x, ev, w, &nw) != RECOMP_OK) {
					if (holdable(c, x, g, ev)) {
						if (c->hold[x] < r)
							c->hold[x] = r;
						continue;
					}
					*blocker = x;
					return RECOMP_INPUT_FREED;
				}
				for (unsigned j = 0; j < nw; j++)
					if (mark_add(c, w[j]))
						return TRACE_ENOMEM;
				changed = 1;
			}
		}
	}
	/* roles: made by the closure and resident with its value at the
	 * re-run: written again in place (the same values); else a temporary */
	for (size_t ki = 0; ki < c->k.n; ki++) {
		const struct trace_event *e = &t->events[c->k.v[ki]];
		for (uint32_t a = 0; a < e->nacc; a++) {
			int64_t x = t->accesses[e->acc0 + a].buffer;
			const struct trace_buffer *xb = &t->buffers[x];
			if (c->stamp[x] == c->now || trace_buffer_persistent(xb) ||
			    scratch(xb))
				continue;
			c->stamp[x] = c->now;
			c->role[x] = ROLE_CUR;
			if (!c->mark[first_use_ev(t, x)])
				continue;
			if (available(c, x, g, first_use_ev(t, x)))
				continue;
			c->role[x] = ROLE_TEMP;
			if (kvec_insert(&c->temps, x))
				return TRACE_ENOMEM;
		}
	}
	return RECOMP_OK;
}

static void closer_clear(struct closer *c)
{
	for (size_t k = 0; k < c->k.n; k++)
		c->mark[c->k.v[k]] = 0;
}

static uint8_t role_of(const struct closer *c, int64_t x)
{
	return c->stamp[x] == c->now ? c->role[x] : ROLE_CUR;
}

int recomp_groups_check(const struct recomp_model *m,
			const struct recomp_groups *G, size_t g,
			uint64_t *temp_bytes)
{
	struct closer c;
	*temp_bytes = 0;
	if (closer_init(&c, m, G)) {
		closer_free(&c);
		return -1;
	}
	int64_t blocker;
	int why = c.head[g] >= 0 ? close_group(&c, g, &blocker) : RECOMP_OK;
	for (size_t k = 0; why == RECOMP_OK && k < c.temps.n; k++)
		*temp_bytes += bytes_of(m, c.temps.v[k]);
	closer_clear(&c);
	closer_free(&c);
	if (why == TRACE_ENOMEM)
		return -1;
	return why == RECOMP_OK;
}

int recomp_groups_close(const struct recomp_model *m, struct recomp_groups *G,
			size_t *dropped, char *err, size_t errlen)
{
	const struct trace *t = m->t;
	struct closer c;
	size_t nd = 0;
	int rc = closer_init(&c, m, G);
	if (rc)
		goto nomem;
	for (size_t g = 0; g < G->ngroups; g++) {
		if (c.head[g] < 0)
			continue;
		int64_t blocker;
		int why = close_group(&c, g, &blocker);
		if (why == TRACE_ENOMEM)
			goto nomem;
		if (why != RECOMP_OK) {
			/* kept whole: every member resident, as without it */
			closer_clear(&c);
			for (int64_t x = c.head[g]; x >= 0; x = c.next[x])
				G->group[x] = -1;
			c.head[g] = -1;
			nd++;
			continue;
		}
		G->cost_ns[g] = 0;
		G->rng[g] = 0;
		G->ckpt[g] = -1;
		for (size_t k = 0; k < c.k.n; k++) {
			const struct trace_event *e = &t->events[c.k.v[k]];
			for (uint32_t a = 0; a < e->nacc; a++) {
				int64_t x = t->accesses[e->acc0 + a].buffer;
				const struct trace_buffer *xb = &t->buffers[x];
				if (trace_buffer_persistent(xb) || scratch(xb) ||
				    c.mark[first_use_ev(t, x)])
					continue;
				if (G->ckpt[g] < 0 ||
				    xb->size > t->buffers[G->ckpt[g]].size)
					G->ckpt[g] = x;
			}
		}
		G->nkernels[g] = (uint32_t)c.k.n;
		G->first[g] = c.k.n ? c.k.v[0] : -1;
		G->last[g] = c.k.n ? c.k.v[c.k.n - 1] : -1;
		for (size_t k = 0; k < c.k.n; k++) {
			const struct trace_event *e = &t->events[c.k.v[k]];
			G->cost_ns[g] += ev_ns(e);
			G->rng[g] |= recomp_kernel_random(e->name) != 0;
		}
		closer_clear(&c);
	}
	closer_free(&c);
	if (dropped)
		*dropped = nd;
	return 0;
nomem:
	closer_free(&c);
	return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
}

/* --- the transformed trace ------------------------------------------------ */

/* One insertion: kind 0, the re-run of group g before event at; kind 1,
 * the free of buffer g after event at. */
struct ins {
	int64_t at;
	int kind;
	int64_t g;
};

static int ins_cmp(const void *a, const void *b)
{
	const struct ins *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->g > y->g) - (x->g < y->g);
}

struct tx {
	const struct recomp_model *m;
	struct trace *t2;
	int64_t *cur;  /* per original buffer: its id in t2 now */
	int64_t *orig; /* per t2 buffer: the original */
	size_t norig, caporig;
	int64_t shift; /* ns the re-runs so far pushed everything back */
	int64_t *tid;  /* per original buffer: its temporary in this re-run */
	int32_t *lastk;/* per original buffer: its last kernel in this re-run */
	uint32_t *made;/* per original buffer: made in re-run number made[x] */
	uint32_t nrerun;
};

static int64_t add_buffer(struct tx *x, int64_t from)
{
	const struct trace_buffer *b = &x->m->t->buffers[from];
	int64_t id = trace_add_buffer(x->t2, b);
	if (id < 0)
		return id;
	if (x->norig == x->caporig) {
		size_t cap = x->caporig ? 2 * x->caporig : 64;
		int64_t *o = realloc(x->orig, cap * sizeof(*o));
		if (!o)
			return TRACE_ENOMEM;
		x->orig = o;
		x->caporig = cap;
	}
	x->orig[x->norig++] = from;
	return id;
}

static int add_ev(struct tx *x, uint8_t type, int64_t buf, int64_t at)
{
	struct trace_event e = { 0 };
	e.seq = trace_next_seq(x->t2);
	e.t_start = e.t_end = at;
	e.buffer = buf;
	e.stream = TRACE_NONE;
	e.type = type;
	return trace_add_event(x->t2, &e) < 0 ? TRACE_ENOMEM : 0;
}

static int64_t shifted(int64_t v, int64_t shift)
{
	return v == TRACE_TIME_NONE ? v : v + shift;
}

/* The re-run of group g (closed in c) before event at (original index):
 * each member and temporary allocated just before the first kernel that
 * touches it, each temporary freed just after the last. */
static int rerun(struct tx *x, const struct closer *c, size_t at)
{
	const struct trace *t = x->m->t;
	int64_t when = shifted(t->events[at].t_start, x->shift);
	uint32_t id = ++x->nrerun;
	for (size_t k = 0; k < c->k.n; k++) {
		const struct trace_event *e = &t->events[c->k.v[k]];
		for (uint32_t a = 0; a < e->nacc; a++)
			x->lastk[t->accesses[e->acc0 + a].buffer] = (int32_t)k;
	}
	for (size_t k = 0; k < c->k.n; k++) {
		const struct trace_event *e = &t->events[c->k.v[k]];
		for (uint32_t a = 0; a < e->nacc; a++) {
			int64_t b = t->accesses[e->acc0 + a].buffer;
			uint8_t r = role_of(c, b);
			if (r == ROLE_CUR || x->made[b] == id)
				continue;
			x->made[b] = id;
			int64_t nb = add_buffer(x, b);
			if (nb < 0 || add_ev(x, TRACE_EV_ALLOC, nb, when))
				return TRACE_ENOMEM;
			if (r == ROLE_MEMBER)
				x->cur[b] = nb;
			else
				x->tid[b] = nb;
		}
		struct trace_event ke = *e;
		int64_t dur = (int64_t)ev_ns(e);
		ke.seq = trace_next_seq(x->t2);
		ke.t_start = when;
		ke.t_end = when == TRACE_TIME_NONE ? TRACE_TIME_NONE : when + dur;
		if (when != TRACE_TIME_NONE)
			when += dur;
		x->shift += dur;
		if (trace_add_event(x->t2, &ke) < 0)
			return TRACE_ENOMEM;
		for (uint32_t a = 0; a < e->nacc; a++) {
			const struct trace_access *ac = &t->accesses[e->acc0 + a];
			int64_t b = role_of(c, ac->buffer) == ROLE_TEMP
					    ? x->tid[ac->buffer]
					    : x->cur[ac->buffer];
			if (trace_add_access(x->t2, b, ac->mode))
				return TRACE_ENOMEM;
		}
		for (uint32_t a = 0; a < e->nacc; a++) {
			int64_t b = t->accesses[e->acc0 + a].buffer;
			if (role_of(c, b) == ROLE_TEMP && x->lastk[b] == (int32_t)k &&
			    x->tid[b] >= 0) {
				if (add_ev(x, TRACE_EV_FREE, x->tid[b], when))
					return TRACE_ENOMEM;
				x->tid[b] = -1;
			}
		}
	}
	return 0;
}

int recomp_transform_groups(const struct recomp_model *m,
			    const struct recomp_groups *G, struct trace **out,
			    int64_t **orig, char *err, size_t errlen)
{
	const struct trace *t = m->t;
	*out = NULL;
	if (orig)
		*orig = NULL;
	struct tx x = { m, trace_new(), NULL, NULL, 0, 0, 0, NULL, NULL, NULL, 0 };
	struct closer c;
	size_t nch = 0;
	for (size_t i = 0; i < m->n; i++)
		nch += G->group[i] >= 0;
	struct ins *ins = malloc((nch + G->ngroups + 1) * sizeof(*ins));
	struct ins *held = NULL;
	size_t nb = m->n ? m->n : 1;
	x.cur = malloc(nb * sizeof(*x.cur));
	x.tid = malloc(nb * sizeof(*x.tid));
	x.lastk = malloc(nb * sizeof(*x.lastk));
	x.made = calloc(nb, sizeof(*x.made));
	int rc = closer_init(&c, m, G);
	if (rc || !x.t2 || !ins || !x.cur || !x.tid || !x.lastk || !x.made)
		goto fail;
	x.t2->clock = t->clock;
	for (size_t k = 0; k < t->nmeta; k++)
		if (trace_set_meta(x.t2, t->meta[k].key, t->meta[k].value))
			goto fail;
	/* a trace transformed twice keeps the first program's iteration */
	if (!trace_get_meta(t, "recompute.base_ns")) {
		char v[32];
		snprintf(v, sizeof(v), "%.0f", m->base_ns);
		if (trace_set_meta(x.t2, "recompute.base_ns", v))
			goto fail;
	}
	for (size_t i = 0; i < m->n; i++) {
		x.cur[i] = (int64_t)i;
		x.tid[i] = -1;
		if (add_buffer(&x, (int64_t)i) < 0)
			goto fail;
	}
	for (size_t h = 0; h < t->nholes; h++)
		if (trace_add_hole(x.t2, &t->holes[h]))
			goto fail;
	size_t ni = 0;
	for (size_t g = 0; g < G->ngroups; g++)
		if (c.head[g] >= 0)
			ins[ni++] = (struct ins){ G->at[g], 0, (int64_t)g };
	for (size_t i = 0; i < m->n; i++)
		if (G->group[i] >= 0)
			ins[ni++] = (struct ins){ G->last_fwd[i], 1, (int64_t)i };
	qsort(ins, ni, sizeof(*ins), ins_cmp);
	char v[32];
	snprintf(v, sizeof(v), "%zu", nch);
	if (trace_set_meta(x.t2, "recompute.buffers", v))
		goto fail;
	/* the buffers from here on are made by re-runs: simulate and
	 * inspect name them as the recomputed tensors (a trace transformed
	 * twice keeps the first program's count, as base_ns) */
	if (!trace_get_meta(t, "recompute.first_buffer")) {
		snprintf(v, sizeof(v), "%zu", m->n);
		if (trace_set_meta(x.t2, "recompute.first_buffer", v))
			goto fail;
	}
	/* every re-run closed once first: the inputs kept past their free */
	for (size_t k = 0; k < ni; k++) {
		if (ins[k].kind != 0)
			continue;
		int64_t blocker;
		int why = close_group(&c, (size_t)ins[k].g, &blocker);
		closer_clear(&c);
		if (why == TRACE_ENOMEM)
			goto fail;
	}
	size_t nheld = 0;
	for (size_t i = 0; i < m->n; i++)
		nheld += c.hold[i] >= 0;
	held = malloc((nheld ? nheld : 1) * sizeof(*held));
	if (!held)
		goto fail;
	nheld = 0;
	for (size_t i = 0; i < m->n; i++)
		if (c.hold[i] >= 0)
			held[nheld++] = (struct ins){ c.hold[i], 1, (int64_t)i };
	qsort(held, nheld, sizeof(*held), ins_cmp);
	size_t j = 0, jh = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		for (; j < ni && ins[j].at == (int64_t)i && ins[j].kind == 0; j++) {
			int64_t blocker;
			int why = close_group(&c, (size_t)ins[j].g, &blocker);
			if (why == TRACE_ENOMEM)
				goto fail;
			if (why != RECOMP_OK) {
				closer_clear(&c);
				rc = trace_seterr(err, errlen, TRACE_EINVAL,
						  "internal error: a re-run cannot be made (buffer %lld: %s)",
						  (long long)blocker, recomp_why_name((unsigned)why));
				goto fail_quiet;
			}
			rc = rerun(&x, &c, i);
			closer_clear(&c);
			if (rc)
				goto fail;
		}
		/* inputs kept for the re-runs before this event: freed now */
		for (; jh < nheld && held[jh].at == (int64_t)i; jh++)
			if (add_ev(&x, TRACE_EV_FREE, x.cur[held[jh].g],
				   shifted(t->events[i].t_start, x.shift)))
				goto fail;
		const struct trace_event *e = &t->events[i];
		if (e->type == TRACE_EV_FREE && e->buffer >= 0 &&
		    c.hold[e->buffer] > (int64_t)i)
			continue; /* kept until a re-run: freed after it */
		struct trace_event k = *e;
		k.seq = trace_next_seq(x.t2);
		k.t_start = shifted(e->t_start, x.shift);
		k.t_end = shifted(e->t_end, x.shift);
		if (e->type == TRACE_EV_ALLOC || e->type == TRACE_EV_FREE)
			k.buffer = x.cur[e->buffer];
		if (trace_add_event(x.t2, &k) < 0)
			goto fail;
		for (uint32_t a = 0; a < e->nacc; a++) {
			const struct trace_access *ac = &t->accesses[e->acc0 + a];
			if (trace_add_access(x.t2, x.cur[ac->buffer], ac->mode))
				goto fail;
		}
		for (; j < ni && ins[j].at == (int64_t)i; j++)
			if (add_ev(&x, TRACE_EV_FREE, x.cur[ins[j].g],
				   shifted(e->t_end, x.shift)))
				goto fail;
	}
	rc = trace_finish(x.t2, err, errlen);
	if (rc) {
		char why[512];
		snprintf(why, sizeof(why), "%s", err);
		rc = trace_seterr(err, errlen, rc,
				  "internal error: the recomputing program's trace does not finish: %s",
				  why);
		goto fail_quiet;
	}
	free(ins);
	free(held);
	free(x.cur);
	free(x.tid);
	free(x.lastk);
	free(x.made);
	closer_free(&c);
	*out = x.t2;
	if (orig)
		*orig = x.orig;
	else
		free(x.orig);
	return 0;
fail:
	rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
fail_quiet:
	free(ins);
	free(held);
	free(x.cur);
	free(x.tid);
	free(x.lastk);
	free(x.made);
	closer_free(&c);
	free(x.orig);
	trace_free(x.t2);
	return rc;
}

int recomp_transform(const struct recomp_model *m, const uint8_t *chosen,
		     struct trace **out, int64_t **orig, char *err,
		     size_t errlen)
{
	struct recomp_groups g;
	*out = NULL;
	if (orig)
		*orig = NULL;
	if (recomp_groups_from_choice(m, chosen, &g))
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	int rc = recomp_transform_groups(m, &g, out, orig, err, errlen);
	recomp_groups_free(&g);
	return rc;
}
