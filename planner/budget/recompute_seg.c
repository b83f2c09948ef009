/* SPDX-License-Identifier: MIT */
/*
 * recompute_seg.c - segments of the forward pass (recompute.h): the
 * forward (the "forward" range of marks, else up to the first backward
 * kernel), its layers (cut where one tensor alone crosses), and the
 * checkpoint baselines a user writes by hand: Chen et al.'s sqrt(n)
 * checkpointing and a checkpoint every layer, as groups of buffers that
 * one re-run of the segment makes again (recomp_groups).  Used by
 * recompute_plan.c's sqrt-n, every-layer and hybrid strategies.
 */
#include "recompute.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int word_in(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (; s && *s; s++)
		if (strncmp(s, w, n) == 0)
			return 1;
	return 0;
}

int recomp_forward(const struct trace *t, int64_t *lo, int64_t *hi)
{
	*lo = *hi = -1;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (e->type != TRACE_EV_MARK || !e->name ||
		    strcmp(e->name, "forward") != 0)
			continue;
		if (e->aux == TRACE_MARK_BEGIN && *lo < 0)
			*lo = (int64_t)i;
		else if (e->aux == TRACE_MARK_END && *lo >= 0) {
			*hi = (int64_t)i;
			return 0;
		}
	}
	/* no range: from the first kernel to the last before a backward one */
	*lo = *hi = -1;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (e->type != TRACE_EV_KERNEL)
			continue;
		if (word_in(e->name, "bwd") || word_in(e->name, "backward"))
			break;
		if (*lo < 0)
			*lo = (int64_t)i;
		*hi = (int64_t)i;
	}
	return *lo >= 0 && *hi > *lo ? 0 : -1;
}

void recomp_units_free(struct recomp_units *u)
{
	free(u->end);
	memset(u, 0, sizeof(*u));
}

/* Is x made by a forward kernel (its first use writes it) and planned? */
static int made_in_forward(const struct recomp_model *m, size_t x, int64_t lo,
			   int64_t hi)
{
	const struct trace *t = m->t;
	const struct trace_buffer *b = &t->buffers[x];
	if (m->b[x].item < 0 || trace_buffer_persistent(b) || b->nholes ||
	    b->nuses == 0)
		return 0;
	int64_t u0 = t->uses[b->use0];
	if (u0 < lo || u0 > hi || t->events[u0].type != TRACE_EV_KERNEL)
		return 0;
	const struct trace_event *e = &t->events[u0];
	for (uint32_t a = 0; a < e->nacc; a++) {
		const struct trace_access *ac = &t->accesses[e->acc0 + a];
		if (ac->buffer == (int64_t)x &&
		    (ac->mode & TRACE_ACCESS_WRITE || ac->mode == TRACE_ACCESS_UNKNOWN))
			return 1;
	}
	return 0;
}

/* x's last use at or before hi, or -1. */
static int64_t last_use_upto(const struct trace *t, size_t x, int64_t hi)
{
	const struct trace_buffer *b = &t->buffers[x];
	int64_t last = -1;
	for (uint32_t k = 0; k < b->nuses && (int64_t)t->uses[b->use0 + k] <= hi; k++)
		last = t->uses[b->use0 + k];
	return last;
}

/* x's first use after hi, or -1. */
static int64_t first_use_after(const struct trace *t, size_t x, int64_t hi)
{
	const struct trace_buffer *b = &t->buffers[x];
	for (uint32_t k = 0; k < b->nuses; k++)
		if ((int64_t)t->uses[b->use0 + k] > hi)
			return t->uses[b->use0 + k];
	return -1;
}

int recomp_units_find(const struct recomp_model *m, struct recomp_units *u,
		      char *err, size_t errlen)
{
	const struct trace *t = m->t;
	memset(u, 0, sizeof(*u));
	if (recomp_forward(t, &u->lo, &u->hi))
		return trace_seterr(err, errlen, SWAP_ENOFIT,
				    "the trace has no forward pass to checkpoint (no \"forward\" range, no kernel before a backward one)");
	size_t span = (size_t)(u->hi - u->lo + 1);
	int64_t *pos = malloc(span * sizeof(*pos));
	int64_t *kev = malloc(span * sizeof(*kev));
	int64_t *diff = calloc(span + 1, sizeof(*diff));
	u->end = malloc(span * sizeof(*u->end));
	int rc = 0;
	if (!pos || !kev || !diff || !u->end) {
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
		goto out;
	}
	/* pos: per forward event, the index of the last kernel at or before it */
	size_t nk = 0;
	for (int64_t i = u->lo; i <= u->hi; i++) {
		if (t->events[i].type == TRACE_EV_KERNEL)
			kev[nk++] = i;
		pos[i - u->lo] = (int64_t)nk - 1;
	}
	if (nk == 0) {
		rc = trace_seterr(err, errlen, SWAP_ENOFIT,
				  "the forward pass has no kernel to checkpoint");
		goto out;
	}
	/* tensors below 1% of the largest (masks, ids) never split layers */
	uint64_t big = 0;
	for (size_t x = 0; x < m->n; x++)
		if (made_in_forward(m, x, u->lo, u->hi) && m->b[x].bytes > big)
			big = m->b[x].bytes;
	for (size_t x = 0; x < m->n; x++) {
		if (!made_in_forward(m, x, u->lo, u->hi) ||
		    m->b[x].bytes * 100 < big)
			continue;
		int64_t a = pos[t->uses[t->buffers[x].use0] - u->lo];
		int64_t z = pos[last_use_upto(t, x, u->hi) - u->lo];
		if (z > a) {
			diff[a]++;
			diff[z]--;
		}
	}
	int64_t cross = 0;
	for (size_t j = 0; j < nk; j++) {
		cross += diff[j];
		if (j + 1 == nk || cross <= 1)
			u->end[u->n++] = kev[j];
	}
out:
	free(pos);
	free(kev);
	free(diff);
	if (rc)
		recomp_units_free(u);
	return rc;
}

int recomp_choose_checkpoints(const struct recomp_model *m, unsigned per,
			      struct recomp_groups *g, size_t *nseg,
			      char *err, size_t errlen)
{
	const struct trace *t = m->t;
	struct recomp_units u;
	memset(g, 0, sizeof(*g));
	*nseg = 0;
	int rc = recomp_units_find(m, &u, err, errlen);
	if (rc)
		return rc;
	if (per == 0)
		per = (unsigned)ceil(sqrt((double)u.n));
	size_t ns = (u.n + per - 1) / per;
	*nseg = ns;
	rc = recomp_groups_init(g, m->n, ns);
	if (rc) {
		recomp_units_free(&u);
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	}
	for (size_t s = 0; s < ns; s++)
		g->at[s] = INT64_MAX;
	for (size_t x = 0; x < m->n; x++) {
		if (!made_in_forward(m, x, u.lo, u.hi))
			continue;
		int64_t u0 = t->uses[t->buffers[x].use0];
		int64_t next = first_use_after(t, x, u.hi);
		int64_t last = last_use_upto(t, x, u.hi);
		if (next < 0 || last < 0)
			continue; /* not saved for the backward */
		size_t k = 0; /* the unit of its producer */
		while (k + 1 < u.n && u.end[k] < u0)
			k++;
		size_t s = k / per;
		/* the last segment's backward comes first: nothing to gain;
		 * a tensor used after its segment is the next one's checkpoint */
		if (s + 1 >= ns || last > u.end[(s + 1) * per - 1])
			continue;
		g->group[x] = (int32_t)s;
		g->last_fwd[x] = last;
		if (next < g->at[s])
			g->at[s] = next;
	}
	recomp_units_free(&u);
	for (size_t s = 0; s < ns; s++)
		if (g->at[s] == INT64_MAX)
			g->at[s] = -1;
	return recomp_groups_close(m, g, NULL, err, errlen);
}

/* --- the choice with segments: single buffers first, then whole layers --- */

/* The resident peak of the problem with groups g's members away from
 * their last forward use to their group's re-run (event indexes): a
 * difference array, O(events + buffers).  *at gets where it is reached. */
static uint64_t groups_peak(const struct recomp_model *m,
			    const struct recomp_groups *g, int64_t *d,
			    size_t *at)
{
	const struct trace *t = m->t;
	size_t n = t->nevents;
	memset(d, 0, (n + 1) * sizeof(*d));
	for (size_t k = 0; k < m->p->n; k++) {
		const struct solver_item *it = &m->p->items[k];
		const struct trace_buffer *b = &t->buffers[it->buffer];
		if (b->alloc_ev == TRACE_NONE || b->free_ev == TRACE_NONE)
			continue;
		d[b->alloc_ev] += (int64_t)it->size;
		d[b->free_ev] -= (int64_t)it->size;
	}
	for (size_t x = 0; x < m->n; x++) {
		int32_t gx = g->group[x];
		if (gx < 0 || g->at[gx] <= g->last_fwd[x] + 1)
			continue;
		d[g->last_fwd[x] + 1] -= (int64_t)m->b[x].bytes;
		d[g->at[gx]] += (int64_t)m->b[x].bytes;
	}
	int64_t cur = 0, best = 0;
	*at = 0;
	for (size_t i = 0; i < n; i++) {
		cur += d[i];
		if (cur > best) {
			best = cur;
			*at = i;
		}
	}
	return (uint64_t)best;
}

/*
 * Single buffers that meet chosen ones, merged into their groups: after
 * recomp_choose() stops (every further buffer's re-run needs a chosen one,
 * or is needed by one), buffer x, the cheapest writers' time per byte
 * first among those away at the current peak, joins the groups of the
 * chosen buffers next to it in the dataflow (the inputs of its writers,
 * the outputs of the forward kernels that read it); their re-run runs at
 * the first next use of any member.  Groups 0..nsingle-1 of g are the
 * single buffers; merged groups keep the lowest id.  Returns the peak
 * reached, or UINT64_MAX out of memory.
 */
struct mcand {
	double per_byte;
	size_t buf;
};

static int mcand_cmp(const void *a, const void *b)
{
	const struct mcand *x = a, *y = b;
	if (x->per_byte != y->per_byte)
		return x->per_byte < y->per_byte ? -1 : 1;
	return (x->buf > y->buf) - (x->buf < y->buf);
}

/* Is x's first use a kernel that writes it? */
static int made_by_kernel(const struct trace *t, int64_t x)
{
	const struct trace_buffer *b = &t->buffers[x];
	if (!b->nuses)
		return 0;
	const struct trace_event *e = &t->events[t->uses[b->use0]];
	if (e->type != TRACE_EV_KERNEL)
		return 0;
	for (uint32_t a = 0; a < e->nacc; a++) {
		const struct trace_access *ac = &t->accesses[e->acc0 + a];
		if (ac->buffer == x && (ac->mode & TRACE_ACCESS_WRITE ||
					ac->mode == TRACE_ACCESS_UNKNOWN))
			return 1;
	}
	return 0;
}

static uint64_t merge_greedy(const struct recomp_model *m, uint64_t target,
			     struct recomp_groups *g, size_t nsingle,
			     int64_t *d)
{
	const struct trace *t = m->t;
	size_t n = m->n ? m->n : 1;
	struct mcand *c = malloc(n * sizeof(*c));
	size_t nslots = nsingle, free_slot = 0;
	uint8_t *used = calloc(nslots ? nslots : 1, 1);
	struct { size_t buf; int32_t group; } *undo = malloc(n * sizeof(*undo));
	int32_t *nb = malloc(n * sizeof(*nb));
	uint64_t peak = UINT64_MAX;
	if (!c || !used || !undo || !nb)
		goto out;
	for (size_t i = 0; i < m->n; i++)
		if (g->group[i] >= 0 && (size_t)g->group[i] < nslots)
			used[g->group[i]] = 1;
	size_t nc = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct recomp_buf *rb = &m->b[i];
		if (g->group[i] >= 0 || rb->item < 0 || rb->last_fwd < 0 ||
		    rb->next_use <= rb->last_fwd + 1 || rb->nwriters == 0 ||
		    rb->why == RECOMP_NOT_PLANNED || rb->why == RECOMP_NO_PRODUCER ||
		    rb->why == RECOMP_WRITERS || rb->why == RECOMP_NO_GAP ||
		    rb->why == RECOMP_UNKNOWN || rb->why == RECOMP_IN_PLACE)
			continue;
		if (rb->why == RECOMP_INPUT_FREED && rb->blocker >= 0 &&
		    !made_by_kernel(t, rb->blocker))
			continue; /* nothing can make its input again */
		double cost = 0;
		for (unsigned w = 0; w < rb->nwriters; w++) {
			const struct trace_event *e = &t->events[rb->writer[w]];
			if (e->t_start != TRACE_TIME_NONE && e->t_end > e->t_start)
				cost += (double)(e->t_end - e->t_start);
		}
		c[nc].per_byte = cost / (double)(rb->bytes ? rb->bytes : 1);
		c[nc++].buf = i;
	}
	qsort(c, nc, sizeof(*c), mcand_cmp);
	/* the single groups' slots hold the merged ones; a new one takes the
	 * first empty slot, and there are as many slots as buffers chosen
	 * before: new buffers join existing groups or take freed slots */
	size_t at;
	peak = groups_peak(m, g, d, &at);
	uint8_t *tried = calloc(nc ? nc : 1, 1);
	if (!tried) {
		peak = UINT64_MAX;
		goto out;
	}
	while (peak > target) {
		size_t pick = SIZE_MAX, nn = 0;
		int64_t newat = 0;
		for (size_t j = 0; j < nc && pick == SIZE_MAX; j++) {
			size_t x = c[j].buf;
			const struct recomp_buf *rb = &m->b[x];
			if (tried[j] || g->group[x] >= 0 ||
			    !(rb->last_fwd < (int64_t)at && (int64_t)at < rb->next_use))
				continue;
			/* its neighbours' groups */
			nn = 0;
			for (unsigned w = 0; w < rb->nwriters; w++) {
				const struct trace_event *e = &t->events[rb->writer[w]];
				for (uint32_t a = 0; a < e->nacc && nn + 1 < n; a++) {
					int64_t y = t->accesses[e->acc0 + a].buffer;
					if (y != (int64_t)x && g->group[y] >= 0)
						nb[nn++] = g->group[y];
				}
			}
			const struct trace_buffer *xb = &t->buffers[x];
			for (uint32_t k = 0; k < xb->nuses; k++) {
				int64_t u = t->uses[xb->use0 + k];
				if (u > rb->last_fwd)
					break;
				const struct trace_event *e = &t->events[u];
				for (uint32_t a = 0; a < e->nacc && nn + 1 < n; a++) {
					const struct trace_access *ac = &t->accesses[e->acc0 + a];
					if (ac->buffer != (int64_t)x && g->group[ac->buffer] >= 0 &&
					    (ac->mode & TRACE_ACCESS_WRITE))
						nb[nn++] = g->group[ac->buffer];
				}
			}
			newat = rb->next_use;
			for (size_t k = 0; k < nn; k++)
				if (g->at[nb[k]] < newat)
					newat = g->at[nb[k]];
			if (!((int64_t)at < newat)) {
				tried[j] = 1; /* re-made before the peak: no help */
				continue;
			}
			pick = j;
		}
		if (pick == SIZE_MAX)
			break;
		tried[pick] = 1;
		size_t x = c[pick].buf;
		int32_t into = -1;
		for (size_t k = 0; k < nn; k++)
			if (into < 0 || nb[k] < into)
				into = nb[k];
		if (into < 0) { /* a slot no group holds */
			while (free_slot < nslots && used[free_slot])
				free_slot++;
			if (free_slot == nslots)
				continue;
			into = (int32_t)free_slot;
		}
		/* merge, then keep it only if its re-run can be made */
		int64_t old_at = g->at[into];
		size_t nu = 0;
		for (size_t i = 0; nn && i < m->n; i++) {
			int32_t gi = g->group[i];
			if (gi < 0 || gi == into)
				continue;
			for (size_t k = 0; k < nn; k++)
				if (nb[k] == gi) {
					undo[nu].buf = i;
					undo[nu++].group = gi;
					g->group[i] = into;
					break;
				}
		}
		g->group[x] = into;
		g->last_fwd[x] = m->b[x].last_fwd;
		g->at[into] = newat;
		uint64_t temps, mine = 0;
		int ok = recomp_groups_check(m, g, (size_t)into, &temps);
		if (ok < 0) {
			peak = UINT64_MAX;
			break;
		}
		/* a re-run that makes more again for a while than its group
		 * frees (a chain through other groups) is not worth it */
		for (size_t i = 0; ok && i < m->n; i++)
			if (g->group[i] == into)
				mine += m->b[i].bytes;
		if (ok && temps > mine)
			ok = 0;
		if (!ok) {
			for (size_t k = 0; k < nu; k++)
				g->group[undo[k].buf] = undo[k].group;
			g->group[x] = -1;
			g->at[into] = old_at;
			continue;
		}
		used[into] = 1;
		if (peak == UINT64_MAX)
			break;
		peak = groups_peak(m, g, d, &at);
	}
	free(tried);
out:
	free(c);
	free(used);
	free(undo);
	free(nb);
	return peak;
}

struct layer_cand {
	double per_byte;
	size_t unit;
	double cost;
	uint64_t bytes;
	int64_t lo, hi; /* the window where all its members are away */
};

static int layer_cmp(const void *a, const void *b)
{
	const struct layer_cand *x = a, *y = b;
	if (x->per_byte != y->per_byte)
		return x->per_byte < y->per_byte ? -1 : 1;
	return (x->unit > y->unit) - (x->unit < y->unit);
}

uint64_t recomp_choose_layers(const struct recomp_model *m, uint64_t target,
			      const uint8_t *chosen, struct recomp_groups *g,
			      char *err, size_t errlen)
{
	const struct trace *t = m->t;
	struct recomp_units u;
	size_t nch = 0;
	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < m->n; i++)
		nch += chosen && chosen[i];
	int rc = recomp_units_find(m, &u, err, errlen);
	if (rc == TRACE_ENOMEM)
		return UINT64_MAX;
	if (rc) /* no forward: single buffers only */
		memset(&u, 0, sizeof(u));
	uint64_t peak = UINT64_MAX;
	int64_t *d = malloc((t->nevents + 1) * sizeof(*d));
	int32_t *unit_of = malloc((m->n ? m->n : 1) * sizeof(*unit_of));
	struct layer_cand *c = calloc(u.n ? u.n : 1, sizeof(*c));
	/* a slot per buffer for single and merged groups, then the layers */
	size_t base = m->n;
	if (!d || !unit_of || !c ||
	    recomp_groups_init(g, m->n, base + u.n))
		goto out;
	/* the single buffers, as recomp_groups_from_choice() */
	for (size_t i = 0; i < m->n; i++)
		unit_of[i] = -1;
	recomp_groups_put_choice(m, chosen, g);
	/* each layer but the last: its saved tensors but its output */
	for (size_t k = 0; k < u.n; k++) {
		c[k].unit = k;
		c[k].lo = INT64_MAX;
		c[k].hi = INT64_MAX;
		g->at[base + k] = -1;
	}
	for (size_t x = 0; x < m->n; x++) {
		if (!made_in_forward(m, x, u.lo, u.hi))
			continue;
		int64_t u0 = t->uses[t->buffers[x].use0];
		int64_t nx = first_use_after(t, x, u.hi);
		int64_t last = last_use_upto(t, x, u.hi);
		if (nx < 0 || last < 0)
			continue;
		size_t k = 0;
		while (k + 1 < u.n && u.end[k] < u0)
			k++;
		if (k + 1 >= u.n || last > u.end[k])
			continue;
		unit_of[x] = (int32_t)k;
		c[k].bytes += m->b[x].bytes;
		if (last + 1 < c[k].lo)
			c[k].lo = last + 1;
		size_t gk = base + k;
		if (g->at[gk] < 0 || nx < g->at[gk])
			g->at[gk] = nx;
	}
	size_t nc = 0;
	for (size_t k = 0; k + 1 < u.n; k++) {
		if (!c[k].bytes)
			continue;
		int64_t from = k ? u.end[k - 1] + 1 : u.lo;
		for (int64_t e = from; e <= u.end[k]; e++)
			if (t->events[e].type == TRACE_EV_KERNEL) {
				const struct trace_event *ev = &t->events[e];
				if (ev->t_end != TRACE_TIME_NONE &&
				    ev->t_start != TRACE_TIME_NONE &&
				    ev->t_end > ev->t_start)
					c[k].cost += (double)(ev->t_end - ev->t_start);
			}
		c[k].hi = g->at[base + k];
		c[k].per_byte = c[k].cost / (double)c[k].bytes;
		c[nc++] = c[k];
	}
	qsort(c, nc, sizeof(*c), layer_cmp);
	size_t at;
	peak = groups_peak(m, g, d, &at);
	if (peak > target) {
		peak = merge_greedy(m, target, g, base, d);
		if (peak == UINT64_MAX)
			goto out;
		peak = groups_peak(m, g, d, &at);
	}
	uint8_t *used = calloc(nc ? nc : 1, 1);
	if (!used) {
		peak = UINT64_MAX;
		goto out;
	}
	while (peak > target) {
		size_t pick = SIZE_MAX;
		for (size_t j = 0; j < nc && pick == SIZE_MAX; j++)
			if (!used[j] && c[j].lo <= (int64_t)at &&
			    (int64_t)at < c[j].hi)
				pick = j;
		if (pick == SIZE_MAX)
			break;
		used[pick] = 1;
		size_t k = c[pick].unit;
		for (size_t x = 0; x < m->n; x++)
			if (unit_of[x] == (int32_t)k) {
				g->group[x] = (int32_t)(base + k);
				g->last_fwd[x] = last_use_upto(t, x, u.hi);
			}
		peak = groups_peak(m, g, d, &at);
	}
	free(used);
	/* single buffers a layer made unneeded: back to resident, the dearest
	 * per byte first (a bounded number, each a pass over the profile) */
	if (peak <= target) {
		struct cand1 { double per_byte; size_t buf; } *one = malloc((m->n ? m->n : 1) * sizeof(*one));
		size_t n1 = 0;
		if (!one) {
			peak = UINT64_MAX;
			goto out;
		}
		for (size_t i = 0; i < m->n; i++)
			if (g->group[i] >= 0 && (size_t)g->group[i] < base)
				one[n1++] = (struct cand1){ m->b[i].cost_ns / (double)(m->b[i].bytes ? m->b[i].bytes : 1), i };
		for (size_t k = 0; k < n1 && k < 256; k++) {
			size_t best = k; /* selection: the dearest left */
			for (size_t j = k + 1; j < n1; j++)
				if (one[j].per_byte > one[best].per_byte ||
				    (one[j].per_byte == one[best].per_byte && one[j].buf < one[best].buf))
					best = j;
			struct cand1 tmp = one[k];
			one[k] = one[best];
			one[best] = tmp;
			size_t i = one[k].buf;
			int32_t was = g->group[i];
			g->group[i] = -1;
			uint64_t pk = groups_peak(m, g, d, &at);
			if (pk > target)
				g->group[i] = was;
		}
		free(one);
	}
	/* the layers not taken hold no buffer: every group's members set */
	if (recomp_groups_close(m, g, NULL, err, errlen))
		peak = UINT64_MAX;
	else
		peak = groups_peak(m, g, d, &at);
out:
	if (peak == UINT64_MAX)
		trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	free(d);
	free(unit_of);
	free(c);
	recomp_units_free(&u);
	return peak;
}
