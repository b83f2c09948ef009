/* SPDX-License-Identifier: MIT */
/*
 * test_slice.c - cutting iterations out of long traces: a zoo iteration in
 * steady state (gradients kept across steps) repeated three times gives its
 * period back, and every slice (by the detected period, by range, by time)
 * is the original iteration event for event; single iterations of the zoo
 * have no period.
 */
#include <stdlib.h>
#include <string.h>

#include "slice.h"
#include "synth.h"
#include "tap.h"

static char err[512];

static struct trace *zoo(const char *model, unsigned batch)
{
	struct synth_opts o = { .model = model, .batch = batch, .dtype = SYNTH_FP32,
				.device = "h200" };
	struct trace *t = NULL;
	if (synth_build(&o, &t, err, sizeof(err)) != 0)
		printf("#   synth %s: %s\n", model, err);
	return t;
}

static int finish(struct trace *t)
{
	int rc = trace_finish(t, err, sizeof(err));
	if (rc)
		printf("#   %s\n", err);
	return rc;
}

/*
 * The steady state of a zoo iteration: buffers it allocates and keeps
 * (gradients) are live from the start instead, as in every step after the
 * first; marks kept or dropped.
 */
static struct trace *steady(const struct trace *z, int marks)
{
	struct trace *t = trace_new();
	for (size_t i = 0; i < z->nmeta; i++)
		trace_set_meta(t, z->meta[i].key, z->meta[i].value);
	for (size_t i = 0; i < z->nbuffers; i++)
		trace_add_buffer(t, &z->buffers[i]);
	for (size_t i = 0; i < z->nevents; i++) {
		const struct trace_event *e = &z->events[i];
		if (e->type == TRACE_EV_MARK && !marks)
			continue;
		if (e->type == TRACE_EV_ALLOC && z->buffers[e->buffer].free_ev == TRACE_NONE)
			continue;
		trace_add_event(t, e);
		for (uint32_t k = 0; k < e->nacc; k++)
			trace_add_access(t, z->accesses[e->acc0 + k].buffer,
					 z->accesses[e->acc0 + k].mode);
	}
	if (finish(t)) {
		trace_free(t);
		return NULL;
	}
	return t;
}

/* k copies of a steady iteration; persistent buffers are shared. */
static struct trace *repeat(const struct trace *s, int k)
{
	struct trace *t = trace_new();
	int64_t *map = malloc(s->nbuffers * sizeof(*map));
	int64_t seqs = s->events[s->nevents - 1].seq + 1, span = 0;
	for (size_t i = 0; i < s->nevents; i++)
		if (s->events[i].t_end != TRACE_TIME_NONE && s->events[i].t_end > span)
			span = s->events[i].t_end;
	span += 1000;
	for (size_t i = 0; i < s->nmeta; i++)
		trace_set_meta(t, s->meta[i].key, s->meta[i].value);
	for (size_t i = 0; i < s->nbuffers; i++)
		map[i] = trace_buffer_persistent(&s->buffers[i])
				 ? trace_add_buffer(t, &s->buffers[i]) : TRACE_NONE;
	for (int c = 0; c < k; c++) {
		for (size_t i = 0; i < s->nbuffers; i++)
			if (!trace_buffer_persistent(&s->buffers[i]))
				map[i] = trace_add_buffer(t, &s->buffers[i]);
		for (size_t i = 0; i < s->nevents; i++) {
			struct trace_event e = s->events[i];
			e.seq += c * seqs;
			if (e.t_start != TRACE_TIME_NONE)
				e.t_start += c * span;
			if (e.t_end != TRACE_TIME_NONE)
				e.t_end += c * span;
			if (e.type == TRACE_EV_ALLOC || e.type == TRACE_EV_FREE)
				e.buffer = map[e.buffer];
			trace_add_event(t, &e);
			for (uint32_t a = 0; a < s->events[i].nacc; a++) {
				const struct trace_access *x = &s->accesses[s->events[i].acc0 + a];
				trace_add_access(t, map[x->buffer], x->mode);
			}
		}
	}
	free(map);
	if (finish(t)) {
		trace_free(t);
		return NULL;
	}
	return t;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static int same_buffer(const struct trace *a, int64_t x, const struct trace *b,
		       int64_t y)
{
	const struct trace_buffer *p = &a->buffers[x], *q = &b->buffers[y];
	return p->size == q->size && same_str(p->label, q->label) &&
	       p->role == q->role && trace_buffer_persistent(p) == trace_buffer_persistent(q);
}

/* a and b are the same iteration, event for event (up to time origins). */
static int same_iteration(const struct trace *a, const struct trace *b)
{
	if (a->nevents != b->nevents || a->nbuffers != b->nbuffers ||
	    a->naccesses != b->naccesses) {
		printf("#   %zu/%zu events, %zu/%zu buffers, %zu/%zu accesses\n",
		       a->nevents, b->nevents, a->nbuffers, b->nbuffers,
		       a->naccesses, b->naccesses);
		return 0;
	}
	int64_t s0 = a->events[0].seq, s1 = b->events[0].seq;
	int64_t t0 = a->events[0].t_start, t1 = b->events[0].t_start;
	for (size_t i = 0; i < a->nevents; i++) {
		const struct trace_event *e = &a->events[i], *f = &b->events[i];
		int ok = e->type == f->type && e->aux == f->aux &&
			 same_str(e->name, f->name) && e->stream == f->stream &&
			 e->bytes == f->bytes && e->flops == f->flops &&
			 e->seq - s0 == f->seq - s1 && e->nacc == f->nacc &&
			 e->t_start - t0 == f->t_start - t1;
		if (ok && (e->type == TRACE_EV_ALLOC || e->type == TRACE_EV_FREE))
			ok = same_buffer(a, e->buffer, b, f->buffer);
		for (uint32_t k = 0; ok && k < e->nacc; k++) {
			const struct trace_access *x = &a->accesses[e->acc0 + k];
			const struct trace_access *y = &b->accesses[f->acc0 + k];
			ok = x->mode == y->mode && same_buffer(a, x->buffer, b, y->buffer);
		}
		if (!ok) {
			printf("#   event %zu differs (%s %s / %s %s)\n", i,
			       trace_event_type_name(e->type), e->name ? e->name : "",
			       trace_event_type_name(f->type), f->name ? f->name : "");
			return 0;
		}
	}
	uint64_t pa = 0, pb = 0;
	for (size_t i = 0; i < a->nbuffers; i++) {
		pa += a->buffers[i].size * (1 + trace_buffer_persistent(&a->buffers[i]));
		pb += b->buffers[i].size * (1 + trace_buffer_persistent(&b->buffers[i]));
	}
	return pa == pb && trace_peak(a, TRACE_ALL, NULL) == trace_peak(b, TRACE_ALL, NULL) &&
	       trace_peak(a, TRACE_TRANSIENT, NULL) == trace_peak(b, TRACE_TRANSIENT, NULL);
}

static size_t requests(const struct trace *t)
{
	size_t m = 0;
	for (size_t i = 0; i < t->nevents; i++)
		m += t->events[i].type <= TRACE_EV_FREE;
	return m;
}

static void check_model(const char *model, unsigned batch)
{
	char what[160];
	struct trace *z = zoo(model, batch);
	struct trace *s = z ? steady(z, 0) : NULL, *sm = z ? steady(z, 1) : NULL;
	struct trace *r = s ? repeat(s, 3) : NULL, *rm = sm ? repeat(sm, 3) : NULL;
	snprintf(what, sizeof(what), "%s: the steady iteration repeated 3 times is a trace", model);
	CHECK(r && rm, what);
	if (!r || !rm)
		goto out;
	struct slice_period p;
	CHECK(slice_detect(r, &p) == 0, "slice_detect runs");
	snprintf(what, sizeof(what), "%s: the period is found", model);
	CHECK(p.found, what);
	snprintf(what, sizeof(what), "%s: the period is one iteration's requests", model);
	CHECK_EQ_U64(p.period, requests(s), what);
	snprintf(what, sizeof(what), "%s: 3 complete iterations from request 0", model);
	CHECK(p.iterations == 3 && p.first == 0, what);
	for (size_t n = 1; n <= 3; n++) {
		size_t lo, hi;
		struct trace *cut = NULL;
		int rc = slice_iteration(r, &p, n, &lo, &hi, err, sizeof(err));
		if (rc == 0)
			rc = slice_cut(r, lo, hi, "test", &cut, err, sizeof(err));
		snprintf(what, sizeof(what), "%s: detected iteration %zu is the original", model, n);
		CHECK(rc == 0 && same_iteration(s, cut), what);
		trace_free(cut);
	}
	/* with marks: the same through ranges and through the period */
	struct trace *cut = NULL;
	size_t lo, hi;
	int rc = slice_range(rm, "iteration", 2, &lo, &hi, err, sizeof(err));
	if (rc == 0)
		rc = slice_cut(rm, lo, hi, NULL, &cut, err, sizeof(err));
	snprintf(what, sizeof(what), "%s: range 'iteration' 2 is the original with its marks", model);
	CHECK(rc == 0 && same_iteration(sm, cut), what);
	trace_free(cut);
	cut = NULL;
	rc = slice_detect(rm, &p);
	if (rc == 0)
		rc = slice_iteration(rm, &p, 2, &lo, &hi, err, sizeof(err));
	if (rc == 0)
		rc = slice_cut(rm, lo, hi, NULL, &cut, err, sizeof(err));
	snprintf(what, sizeof(what), "%s: detected iteration 2 starts at its begin mark", model);
	CHECK(rc == 0 && same_iteration(sm, cut), what);
	trace_free(cut);
	/* by time: the second copy's window */
	cut = NULL;
	int64_t a = rm->events[sm->nevents].t_start, b = rm->events[2 * sm->nevents].t_start;
	rc = slice_time(rm, a, b, &lo, &hi, err, sizeof(err));
	if (rc == 0)
		rc = slice_cut(rm, lo, hi, NULL, &cut, err, sizeof(err));
	snprintf(what, sizeof(what), "%s: the time window of copy 2 is the original", model);
	CHECK(rc == 0 && same_iteration(sm, cut), what);
	trace_free(cut);
	snprintf(what, sizeof(what), "%s: a single iteration has no period", model);
	CHECK(slice_detect(z, &p) == 0 && !p.found && p.requests == requests(z), what);
out:
	trace_free(z);
	trace_free(s);
	trace_free(sm);
	trace_free(r);
	trace_free(rm);
}

static void test_cuts(void)
{
	struct trace *z = zoo("alexnet", 2), *cut = NULL;
	if (!z)
		return;
	/* the middle third: buffers live across the cut become persistent */
	size_t lo = z->nevents / 3, hi = 2 * z->nevents / 3;
	int rc = slice_cut(z, lo, hi, "middle", &cut, err, sizeof(err));
	CHECK(rc == 0, "a cut in the middle of an iteration is a valid trace");
	if (rc == 0) {
		size_t across = 0, want = 0;
		for (size_t i = 0; i < z->nbuffers; i++) {
			const struct trace_buffer *b = &z->buffers[i];
			int before = b->alloc_ev == TRACE_NONE || (size_t)b->alloc_ev < lo;
			int after = b->free_ev == TRACE_NONE || (size_t)b->free_ev >= hi;
			want += before && after;
		}
		for (size_t i = 0; i < cut->nbuffers; i++)
			across += cut->buffers[i].alloc_ev == TRACE_NONE &&
				  cut->buffers[i].free_ev == TRACE_NONE;
		CHECK(want > 0 && across == want,
		      "every buffer live across both cuts is persistent in the slice");
		CHECK(cut->nevents == hi - lo && cut->events[0].seq == 0,
		      "the slice holds the window's events from seq 0");
		CHECK(strcmp(trace_get_meta(cut, "slice"), "middle") == 0 &&
			      strcmp(trace_get_meta(cut, "source"), "synthetic") == 0,
		      "meta is kept and the slice noted");
		CHECK(trace_peak(cut, TRACE_ALL, NULL) <= trace_peak(z, TRACE_ALL, NULL),
		      "the slice's peak is within the trace's");
		trace_free(cut);
	}
	struct slice_period p;
	size_t a, b;
	slice_detect(z, &p);
	CHECK(slice_iteration(z, &p, 1, &a, &b, err, sizeof(err)) == TRACE_EFORMAT,
	      "no iteration without a period");
	CHECK_STR_HAS(err, "no repeating pattern", "and the error says so");
	CHECK(slice_range(z, "iteration", 2, &a, &b, err, sizeof(err)) == TRACE_EFORMAT,
	      "range 2 of a single iteration does not exist");
	CHECK_STR_HAS(err, "holds 1 complete ranges", "and the error counts them");
	CHECK(slice_count_ranges(z, "forward") == 1, "ranges are counted by name");
	CHECK(slice_time(z, INT64_MAX - 1, INT64_MAX, &a, &b, err, sizeof(err)) == TRACE_EFORMAT,
	      "an empty time window is an error");
	CHECK(slice_cut(z, 5, 5, NULL, &cut, err, sizeof(err)) == TRACE_EINVAL,
	      "an empty event window is an error");
	trace_free(z);
}

/*
 * k repetitions of a block of allocations whose sizes are sizes[0..n), of
 * which the ones with free_mask's bit set are freed at the block's end and
 * the others kept to the end of the trace (a step's leak, or a layer's
 * activations saved for the backward).
 */
static struct trace *blocks(const uint64_t *sizes, size_t n, unsigned free_mask,
			    int k)
{
	struct trace *t = trace_new();
	int64_t seq = 0, ids[16];
	for (int c = 0; c < k; c++) {
		for (size_t i = 0; i < n; i++) {
			struct trace_buffer b = { .size = sizes[i], .rounded = sizes[i],
						  .align = 1, .fixed_offset = TRACE_NONE,
						  .stream = 0 };
			ids[i] = trace_add_buffer(t, &b);
			struct trace_event e = { .seq = seq++, .t_start = TRACE_TIME_NONE,
						 .t_end = TRACE_TIME_NONE, .buffer = ids[i],
						 .stream = 0, .type = TRACE_EV_ALLOC };
			trace_add_event(t, &e);
		}
		for (size_t i = 0; i < n; i++) {
			if (!(free_mask >> i & 1))
				continue;
			struct trace_event e = { .seq = seq++, .t_start = TRACE_TIME_NONE,
						 .t_end = TRACE_TIME_NONE, .buffer = ids[i],
						 .stream = 0, .type = TRACE_EV_FREE };
			trace_add_event(t, &e);
		}
	}
	if (finish(t)) {
		trace_free(t);
		return NULL;
	}
	return t;
}

/*
 * A training loop that leaks a little each step (a loss kept in a list) is
 * still cut into its steps; a forward pass with autograd on, whose layers
 * keep most of what they allocate, is one pass, not 32 iterations.
 */
static void test_growth(void)
{
	const uint64_t step[] = { 4 << 20, 16 << 20, 16 << 20, 4 };
	struct trace *t = blocks(step, 4, 0x7, 20);
	struct slice_period p;
	CHECK(t && slice_detect(t, &p) == 0 && p.found && p.period == 7 &&
	      p.iterations >= 19, "a loop that leaks 4 bytes a step is cut into its steps");
	trace_free(t);
	const uint64_t layer[] = { 1 << 20, 3 << 20, 8 << 20, 8 << 20, 4 << 20 };
	t = blocks(layer, 5, 0x4, 32);
	CHECK(t && slice_detect(t, &p) == 0 && !p.found,
	      "a forward pass whose layers keep their activations is not cut into layers");
	CHECK(p.block == 6 && p.kept == 16u << 20 && p.handoff == 0,
	      "it is one pass: a block of 6 requests, each keeping 16 MiB");
	size_t lo, hi;
	CHECK(slice_iteration(t, &p, 1, &lo, &hi, err, sizeof(err)) == TRACE_EFORMAT &&
	      strstr(err, "each keeping 16777216 more bytes live"),
	      "slicing it says why");
	trace_free(t);
}

int main(void)
{
	check_model("alexnet", 1);
	check_model("resnet50", 2);
	check_model("bert-base", 1);
	test_cuts();
	test_growth();
	for (size_t i = 0; synth_model_name(i); i++) {
		struct trace *z = zoo(synth_model_name(i), 2);
		struct slice_period p;
		char what[120];
		snprintf(what, sizeof(what), "%s: one zoo iteration shows no period",
			 synth_model_name(i));
		CHECK(z && slice_detect(z, &p) == 0 && !p.found, what);
		trace_free(z);
	}
	return tap_done();
}
