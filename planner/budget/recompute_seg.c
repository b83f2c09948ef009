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

#include <ctype.h>
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
