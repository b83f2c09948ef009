/* SPDX-License-Identifier: MIT */
/*
 * fixtures.c - writes the runtime tests' trace and plans into a folder,
 * standing in for a swap planner: swap.trace, one iteration in which buffer
 * A (64 KiB) is idle while B borrows its bytes, and four plans of it:
 *   noswap.plan   every buffer at its own offset
 *   swap.plan     A swapped out after alloc C and back after free B; B at A's offset
 *   late.plan     the same, A back only after alloc E: a use of A comes first
 *   overlap.plan  C placed over A while both are resident
 *   hole.plan     swap.plan without its swap: B over A's trace hole, which
 *                 nothing empties
 *   dev3.plan     noswap.plan for device 3
 * Allocator clock: 0 alloc A, 1 alloc C, 2 alloc B, 3 free B, 4 alloc E,
 * 5 free A, 6 free C, 7 free E.  Usage: fixtures DIR.  Three more traces,
 * without the hole, for memplan-plan compile and the client:
 *   streams.trace    A and B allocated on stream 0, C and E on stream 1
 *                    (as the client's --async --streams 2 puts them)
 *   crossed.trace    the same requests with B on stream 1 and E on 0
 *   late-free.trace  the iteration twice over: as traced, then with B
 *                    freed after alloc E, while A is out and B over it, and
 *                    A read in between (issue 22, a borrower freed late)
 *
 * fixtures --strip-streams PLAN OUT writes PLAN without its STREAMS
 * section, as memplan wrote plans before it had one.
 *
 * fixtures --late-swapin PLAN TRACE OUT breaks a compiled plan the same way
 * late.plan is broken: the first swap whose bytes are borrowed and whose
 * buffer is used again before its free gets its swap-in trigger moved to
 * the request after that use (and staging of its own, so that only the
 * trigger is wrong).  Prints which swap; exit 1 when no swap qualifies.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "tracedb.h"

#define KiB 1024u

static int64_t seq;
static int64_t stream_of_buffer[8]; /* the stream of each buffer's alloc */

static void event(struct trace *t, uint8_t type, int64_t buffer,
		  const char *name)
{
	struct trace_event e = { .seq = seq++, .t_start = TRACE_TIME_NONE,
				 .t_end = TRACE_TIME_NONE, .buffer = buffer,
				 .stream = type == TRACE_EV_ALLOC ? stream_of_buffer[buffer] : 0,
				 .type = type, .name = name };
	trace_add_event(t, &e);
}

static void kernel(struct trace *t, const char *name, int64_t r1, int64_t r2,
		   int64_t w)
{
	event(t, TRACE_EV_KERNEL, TRACE_NONE, name);
	if (r1 >= 0)
		trace_add_access(t, r1, TRACE_ACCESS_READ);
	if (r2 >= 0)
		trace_add_access(t, r2, TRACE_ACCESS_READ);
	if (w >= 0)
		trace_add_access(t, w, TRACE_ACCESS_WRITE);
}

/* What build_trace() makes. */
enum variant { V_SWAP, V_STREAMS, V_CROSSED, V_LATE_FREE };

static struct trace *build_trace(enum variant v)
{
	struct trace *t = trace_new();
	static const uint64_t sz[] = { 64 * KiB, 32 * KiB, 64 * KiB, 16 * KiB };
	static const char *const label[] = { "A", "C", "B", "E" };
	/* streams of A, C, B, E */
	static const int64_t st[][4] = { [V_SWAP] = { 0, 0, 0, 0 },
					  [V_STREAMS] = { 0, 1, 0, 1 },
					  [V_CROSSED] = { 0, 1, 1, 0 },
					  [V_LATE_FREE] = { 0, 0, 0, 0 } };
	int nb = v == V_LATE_FREE ? 8 : 4;
	seq = 0;
	for (int i = 0; i < nb; i++) {
		stream_of_buffer[i] = st[v][i % 4];
		struct trace_buffer b = { .size = sz[i % 4], .rounded = sz[i % 4],
					  .align = 256, .fixed_offset = TRACE_NONE,
					  .stream = st[v][i % 4], .device = 0,
					  .kind = TRACE_KIND_DEVICE,
					  .role = TRACE_ROLE_ACTIVATION,
					  .label = label[i % 4] };
		trace_add_buffer(t, &b);
	}
	enum { A, C, B, E };
	if (v == V_LATE_FREE) {
		/* as planned, then B freed late: A (4) is out and B (6) over
		 * its bytes when alloc E (7) comes where the plan has B's
		 * free, and A is read before B's free */
		for (int64_t o = 0; o <= 4; o += 4) {
			event(t, TRACE_EV_ALLOC, o + A, NULL);
			kernel(t, "write_a", -1, -1, o + A);
			event(t, TRACE_EV_ALLOC, o + C, NULL);
			kernel(t, "a_to_c", o + A, -1, o + C);
			event(t, TRACE_EV_ALLOC, o + B, NULL);
			kernel(t, "c_to_b", o + C, -1, o + B);
			if (o == 0)
				event(t, TRACE_EV_FREE, o + B, NULL);
			event(t, TRACE_EV_ALLOC, o + E, NULL);
			kernel(t, "read_a", o + A, -1, -1);
			if (o == 4)
				event(t, TRACE_EV_FREE, o + B, NULL);
			kernel(t, "ac_to_e", o + A, o + C, o + E);
			event(t, TRACE_EV_FREE, o + A, NULL);
			event(t, TRACE_EV_FREE, o + C, NULL);
			event(t, TRACE_EV_FREE, o + E, NULL);
		}
		trace_set_meta(t, "source", "tests/cuda/fixtures.c");
		return t;
	}
	event(t, TRACE_EV_ALLOC, A, NULL);      /* seq 0, clock 0 */
	kernel(t, "write_a", -1, -1, A);        /* 1 */
	event(t, TRACE_EV_ALLOC, C, NULL);      /* 2, clock 1 */
	kernel(t, "a_to_c", A, -1, C);          /* 3 */
	event(t, TRACE_EV_ALLOC, B, NULL);      /* 4, clock 2 */
	kernel(t, "c_to_b", C, -1, B);          /* 5 */
	event(t, TRACE_EV_FREE, B, NULL);       /* 6, clock 3 */
	kernel(t, "read_a", A, -1, -1);         /* 7 */
	event(t, TRACE_EV_ALLOC, E, NULL);      /* 8, clock 4 */
	kernel(t, "ac_to_e", A, C, E);          /* 9 */
	event(t, TRACE_EV_FREE, A, NULL);       /* 10, clock 5 */
	event(t, TRACE_EV_FREE, C, NULL);       /* 11, clock 6 */
	event(t, TRACE_EV_FREE, E, NULL);       /* 12, clock 7 */
	/* A is not resident while B lives */
	struct trace_hole h = { A, 4, 7, TRACE_NONE, TRACE_NONE };
	if (v == V_SWAP)
		trace_add_hole(t, &h);
	trace_set_meta(t, "source", "tests/cuda/fixtures.c");
	return t;
}

/* offsets of A, C, B, E; in_at 0: no swap.  The lower bound: 160 KiB
 * without a swap (A's trace hole is resident: nothing empties it), 112 KiB
 * with A out while B lives (and in hole.plan, made as if the hole were). */
static int write_plan(const char *dir, const char *name, const uint64_t off[4],
		      uint64_t pool, uint64_t in_at, int32_t device)
{
	static const uint64_t sz[] = { 64 * KiB, 32 * KiB, 64 * KiB, 16 * KiB };
	static const uint64_t lo[] = { 0, 1, 2, 4 }, up[] = { 5, 6, 3, 7 };
	struct mp_plan p;
	memset(&p, 0, sizeof(p));
	p.version = MP_PLAN_VERSION;
	p.pool_align = 256;
	p.pool_size = pool;
	p.lower_bound = pool < 160 * KiB ? 112 * KiB : 160 * KiB;
	p.device = device;
	p.nrequests = 8;
	p.nallocs = 4;
	p.allocs = calloc(4, sizeof(*p.allocs));
	for (uint32_t i = 0; i < 4; i++)
		p.allocs[i] = (struct mp_plan_alloc){ sz[i], off[i], i, lo[i], up[i], 0 };
	p.fingerprint = mp_plan_fingerprint(sz, 4);
	snprintf(p.strategy, sizeof(p.strategy), "fixture");
	if (in_at) {
		p.nswaps = 1;
		p.host_staging = 64 * KiB;
		p.swaps = calloc(1, sizeof(*p.swaps));
		p.swaps[0] = (struct mp_plan_swap){ 0, 1, in_at, 0, 64 * KiB, 0, 0 };
	}
	char path[1024], err[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int rc = mp_plan_write_file(path, &p, err, sizeof(err));
	if (rc)
		fprintf(stderr, "fixtures: %s\n", err);
	mp_plan_free(&p);
	return rc;
}

/* Does a planned entry allocated in (out_at, in_at] share swap w's bytes? */
static int borrowed(const struct mp_plan *p, const struct mp_plan_swap *w)
{
	const struct mp_plan_alloc *o = &p->allocs[w->request];
	uint64_t b0 = o->offset + w->src_offset, b1 = b0 + w->bytes;
	for (uint32_t r = 0; r < p->nallocs; r++) {
		const struct mp_plan_alloc *a = &p->allocs[r];
		if (r != w->request && a->offset != MP_PLAN_PASS_THROUGH &&
		    a->lower > w->out_at && a->lower <= w->in_at &&
		    a->offset < b1 && b0 < a->offset + a->size)
			return 1;
	}
	return 0;
}

static int late_swapin(const char *ppath, const char *tpath, const char *out)
{
	char err[512];
	struct mp_plan p;
	struct trace *t;
	if (mp_plan_read_file(ppath, &p, err, sizeof(err)) ||
	    trace_load(tpath, &t, err, sizeof(err))) {
		fprintf(stderr, "fixtures: %s\n", err);
		return 3;
	}
	/* the event of each request of the allocator clock */
	size_t *ev = malloc((p.nrequests + 1) * sizeof(*ev)), k = 0;
	for (size_t i = 0; ev && i < t->nevents && k < p.nrequests; i++)
		if (t->events[i].type == TRACE_EV_ALLOC ||
		    t->events[i].type == TRACE_EV_FREE)
			ev[k++] = i;
	int rc = 1;
	for (uint32_t j = 0; ev && k == p.nrequests && j < p.nswaps && rc; j++) {
		struct mp_plan_swap *w = &p.swaps[j];
		const struct mp_plan_alloc *a = &p.allocs[w->request];
		const struct trace_buffer *b = &t->buffers[a->buffer];
		if (!borrowed(&p, w))
			continue;
		for (uint32_t u = 0; u < b->nuses; u++) {
			uint32_t e = t->uses[b->use0 + u];
			if (e <= ev[w->in_at])
				continue;
			uint64_t in = w->in_at;
			while (in < p.nrequests && ev[in] < e)
				in++;
			if (in >= p.nrequests || (a->upper != MP_PLAN_NO_FREE && in >= a->upper))
				break;
			printf("swap %u of plan entry %" PRIu64 " (buffer %" PRIu64 "): swap-in after request %" PRIu64 " instead of %" PRIu64 ", after its use at event %u\n",
			       j, w->request, a->buffer, in, w->in_at, e);
			w->in_at = in;
			w->staging = p.host_staging;
			p.host_staging += w->bytes;
			rc = 0;
			break;
		}
	}
	if (!rc && mp_plan_write_file(out, &p, err, sizeof(err))) {
		fprintf(stderr, "fixtures: %s\n", err);
		rc = 3;
	} else if (rc) {
		fprintf(stderr, "fixtures: no swap of %s is borrowed and used again before its free\n", ppath);
	}
	free(ev);
	trace_free(t);
	mp_plan_free(&p);
	return rc;
}

/* PLAN without its STREAMS section, as an older memplan wrote it. */
static int strip_streams(const char *in, const char *out)
{
	char err[512];
	struct mp_plan p;
	if (mp_plan_read_file(in, &p, err, sizeof(err))) {
		fprintf(stderr, "fixtures: %s\n", err);
		return 3;
	}
	free(p.streams);
	p.streams = NULL;
	p.has_streams = 0;
	int rc = mp_plan_write_file(out, &p, err, sizeof(err));
	if (rc)
		fprintf(stderr, "fixtures: %s\n", err);
	mp_plan_free(&p);
	return rc ? 3 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--late-swapin"))
		return late_swapin(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "--strip-streams"))
		return strip_streams(argv[2], argv[3]);
	if (argc != 2) {
		fprintf(stderr, "usage: fixtures DIR\n"
				"       fixtures --late-swapin PLAN TRACE OUT\n"
				"       fixtures --strip-streams PLAN OUT\n");
		return 2;
	}
	char err[512], path[1024];
	static const char *const name[] = { "swap", "streams", "crossed", "late-free" };
	for (int v = V_SWAP; v <= V_LATE_FREE; v++) {
		struct trace *t = build_trace((enum variant)v);
		snprintf(path, sizeof(path), "%s/%s.trace", argv[1], name[v]);
		if (trace_finish(t, err, sizeof(err)) ||
		    trace_save(t, path, err, sizeof(err))) {
			fprintf(stderr, "fixtures: %s\n", err);
			trace_free(t);
			return 1;
		}
		trace_free(t);
	}
	static const uint64_t apart[] = { 0, 64 * KiB, 112 * KiB, 96 * KiB };
	static const uint64_t swapped[] = { 0, 64 * KiB, 0, 96 * KiB };
	static const uint64_t over[] = { 0, 32 * KiB, 96 * KiB, 160 * KiB };
	int rc = write_plan(argv[1], "noswap.plan", apart, 176 * KiB, 0, 0) |
		 write_plan(argv[1], "swap.plan", swapped, 112 * KiB, 3, 0) |
		 write_plan(argv[1], "late.plan", swapped, 112 * KiB, 4, 0) |
		 write_plan(argv[1], "overlap.plan", over, 176 * KiB, 0, 0) |
		 write_plan(argv[1], "hole.plan", swapped, 112 * KiB, 0, 0) |
		 write_plan(argv[1], "dev3.plan", apart, 176 * KiB, 0, 3);
	return rc ? 1 : 0;
}
