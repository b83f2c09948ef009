/* SPDX-License-Identifier: MIT */
/*
 * diff.c - matches the buffers of two traces and compares their groups
 * (diff.h).  Matching sorts instead of hashing: labelled buffers of both
 * traces go into one array ordered by (label, size, trace, id), so equal
 * keys sit together and pair up in id order; what is left pairs by label
 * alone.  O(n log n) in the number of buffers.
 */
#include "diff.h"

#include <stdlib.h>
#include <string.h>

struct entry {
	const char *label;
	uint64_t size;
	int side; /* 0: a, 1: b */
	int64_t id;
};

static int by_label_size(const void *x, const void *y)
{
	const struct entry *p = x, *q = y;
	int c = strcmp(p->label, q->label);
	if (c)
		return c;
	if (p->size != q->size)
		return p->size < q->size ? -1 : 1;
	if (p->side != q->side)
		return p->side - q->side;
	return (p->id > q->id) - (p->id < q->id);
}

static int by_label(const void *x, const void *y)
{
	const struct entry *p = x, *q = y;
	int c = strcmp(p->label, q->label);
	if (c)
		return c;
	if (p->side != q->side)
		return p->side - q->side;
	return (p->id > q->id) - (p->id < q->id);
}

static uint64_t dbytes(const struct diff_buffer *x)
{
	return x->size_a > x->size_b ? x->size_a : x->size_b;
}

static int dbuf_cmp(const void *x, const void *y)
{
	const struct diff_buffer *p = x, *q = y;
	uint64_t a = dbytes(p), b = dbytes(q);
	if (a != b)
		return a > b ? -1 : 1;
	int64_t ia = p->a != TRACE_NONE ? p->a : p->b;
	int64_t ib = q->a != TRACE_NONE ? q->a : q->b;
	return (ia > ib) - (ia < ib);
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Resized buffers: largest change first. */
static int resized_cmp(const void *x, const void *y)
{
	const struct diff_buffer *p = x, *q = y;
	uint64_t a = absdiff(p->size_a, p->size_b), b = absdiff(q->size_a, q->size_b);
	if (a != b)
		return a > b ? -1 : 1;
	return (p->a > q->a) - (p->a < q->a);
}

static int dgroup_cmp(const void *x, const void *y)
{
	const struct diff_group *p = x, *q = y;
	uint64_t a = absdiff(p->a, p->b), b = absdiff(q->a, q->b);
	if (a != b)
		return a > b ? -1 : 1;
	return strcmp(p->name, q->name);
}

/*
 * Appends one unmatched or resized pair.  The capacity is the power of two
 * at or above *n, so the array doubles when *n reaches one: growing it by
 * one element a time copied it on every append, quadratic in the number of
 * unmatched buffers wherever realloc moves the block (always, under ASan).
 */
static int push(struct diff_buffer **arr, size_t *n, int64_t a, int64_t b,
		uint64_t sa, uint64_t sb)
{
	if (*n == 0 || (*n & (*n - 1)) == 0) {
		size_t cap = *n ? 2 * *n : 1;
		struct diff_buffer *p = realloc(*arr, cap * sizeof(**arr));
		if (!p)
			return TRACE_ENOMEM;
		*arr = p;
	}
	(*arr)[(*n)++] = (struct diff_buffer){ a, b, sa, sb };
	return 0;
}

/*
 * Pairs equal keys (cmp == 0 under eq) of sides a and b in ents[0..n):
 * pairs with equal sizes count as matched, others go to resized; entries
 * left alone are moved to the front of ents (returned count).
 */
static int pair_up(struct diff *d, const struct trace *ta,
		   const struct trace *tb, struct entry *ents, size_t n,
		   int (*eq)(const void *, const void *), size_t *left)
{
	size_t keep = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && eq(&ents[i], &ents[j]) == 0)
			j++;
		/* ents[i..j): one key; the a side sorts first */
		size_t na = i, nb;
		while (na < j && ents[na].side == 0)
			na++;
		nb = na;
		size_t pairs = na - i < j - nb ? na - i : j - nb;
		for (size_t k = 0; k < pairs; k++) {
			const struct entry *x = &ents[i + k], *y = &ents[nb + k];
			uint64_t sa = ta->buffers[x->id].size, sb = tb->buffers[y->id].size;
			if (sa == sb)
				d->matched++;
			else if (push(&d->resized, &d->nresized, x->id, y->id, sa, sb))
				return TRACE_ENOMEM;
		}
		for (size_t k = i + pairs; k < na; k++)
			ents[keep++] = ents[k];
		for (size_t k = nb + pairs; k < j; k++)
			ents[keep++] = ents[k];
		i = j;
	}
	*left = keep;
	return 0;
}

/* Equal labels (any size): the key of the second stage. */
static int same_label(const void *x, const void *y)
{
	return strcmp(((const struct entry *)x)->label,
		      ((const struct entry *)y)->label);
}

/* Equal label and size: the key of the first stage. */
static int same_label_size(const void *x, const void *y)
{
	const struct entry *p = x, *q = y;
	int c = strcmp(p->label, q->label);
	if (c)
		return c;
	return p->size == q->size ? 0 : 1;
}

static int match(struct diff *d, const struct trace *a, const struct trace *b)
{
	size_t n = 0;
	struct entry *ents = malloc((a->nbuffers + b->nbuffers + 1) * sizeof(*ents));
	if (!ents)
		return TRACE_ENOMEM;
	const struct trace *tr[2] = { a, b };
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < tr[s]->nbuffers; i++)
			if (tr[s]->buffers[i].label)
				ents[n++] = (struct entry){ tr[s]->buffers[i].label,
							    tr[s]->buffers[i].size, s,
							    (int64_t)i };
	int rc;
	size_t left;
	qsort(ents, n, sizeof(*ents), by_label_size);
	if ((rc = pair_up(d, a, b, ents, n, same_label_size, &left)) == 0) {
		qsort(ents, left, sizeof(*ents), by_label);
		rc = pair_up(d, a, b, ents, left, same_label, &left);
	}
	for (size_t k = 0; rc == 0 && k < left; k++) {
		const struct entry *e = &ents[k];
		rc = e->side == 0 ? push(&d->vanished, &d->nvanished, e->id, TRACE_NONE, e->size, 0)
				  : push(&d->appeared, &d->nappeared, TRACE_NONE, e->id, 0, e->size);
	}
	free(ents);
	/* unlabelled buffers: by order */
	size_t i = 0, j = 0;
	while (rc == 0 && (i < a->nbuffers || j < b->nbuffers)) {
		while (i < a->nbuffers && a->buffers[i].label)
			i++;
		while (j < b->nbuffers && b->buffers[j].label)
			j++;
		if (i < a->nbuffers && j < b->nbuffers) {
			uint64_t sa = a->buffers[i].size, sb = b->buffers[j].size;
			if (sa == sb)
				d->matched++;
			else
				rc = push(&d->resized, &d->nresized, (int64_t)i, (int64_t)j, sa, sb);
			i++;
			j++;
		} else if (i < a->nbuffers) {
			rc = push(&d->vanished, &d->nvanished, (int64_t)i, TRACE_NONE,
				  a->buffers[i].size, 0);
			i++;
		} else if (j < b->nbuffers) {
			rc = push(&d->appeared, &d->nappeared, TRACE_NONE, (int64_t)j, 0,
				  b->buffers[j].size);
			j++;
		}
	}
	return rc;
}

struct named {
	const char *name;
	uint64_t bytes;
	int side;
};

static int named_cmp(const void *x, const void *y)
{
	return strcmp(((const struct named *)x)->name,
		      ((const struct named *)y)->name);
}

/*
 * Merges the group lists of both reports by name into *out (names copied),
 * largest change first.  Sorting keeps it O(n log n): label groups are one
 * per layer and can be many.
 */
static int merge_groups(const struct report_group *ga, size_t na,
			const struct report_group *gb, size_t nb,
			struct diff_group **out, size_t *nout)
{
	struct named *all = malloc((na + nb + 1) * sizeof(*all));
	struct diff_group *g = calloc(na + nb + 1, sizeof(*g));
	*out = g;
	*nout = 0;
	if (!all || !g) {
		free(all);
		return TRACE_ENOMEM;
	}
	size_t n = 0;
	for (size_t i = 0; i < na; i++)
		if (ga[i].bytes)
			all[n++] = (struct named){ ga[i].name, ga[i].bytes, 0 };
	for (size_t i = 0; i < nb; i++)
		if (gb[i].bytes)
			all[n++] = (struct named){ gb[i].name, gb[i].bytes, 1 };
	qsort(all, n, sizeof(*all), named_cmp);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m == 0 || strcmp(g[m - 1].name, all[i].name) != 0) {
			if (!(g[m].name = strdup(all[i].name))) {
				free(all);
				*nout = m;
				return TRACE_ENOMEM;
			}
			m++;
		}
		if (all[i].side == 0)
			g[m - 1].a += all[i].bytes;
		else
			g[m - 1].b += all[i].bytes;
	}
	free(all);
	qsort(g, m, sizeof(*g), dgroup_cmp);
	*nout = m;
	return 0;
}

void diff_free(struct diff *d)
{
	free(d->appeared);
	free(d->vanished);
	free(d->resized);
	struct diff_group *gs[3] = { d->by_kind, d->by_role, d->by_label };
	size_t ns[3] = { d->nkind, d->nrole, d->nlabel };
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < ns[k]; i++)
			free(gs[k][i].name);
		free(gs[k]);
	}
	memset(d, 0, sizeof(*d));
}

int diff_build(const struct trace *a, const struct report *ra,
	       const struct trace *b, const struct report *rb, struct diff *d,
	       char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	int rc = match(d, a, b);
	if (rc == 0)
		rc = merge_groups(ra->by_kind, TRACE_KIND_COUNT, rb->by_kind,
				  TRACE_KIND_COUNT, &d->by_kind, &d->nkind);
	if (rc == 0)
		rc = merge_groups(ra->by_role, TRACE_ROLE_COUNT, rb->by_role,
				  TRACE_ROLE_COUNT, &d->by_role, &d->nrole);
	if (rc == 0)
		rc = merge_groups(ra->by_label, ra->nlabel, rb->by_label,
				  rb->nlabel, &d->by_label, &d->nlabel);
	if (rc) {
		diff_free(d);
		return trace_seterr(err, errlen, rc, "out of memory comparing the traces");
	}
	/* qsort wants a valid pointer even for no elements */
	if (d->nappeared)
		qsort(d->appeared, d->nappeared, sizeof(*d->appeared), dbuf_cmp);
	if (d->nvanished)
		qsort(d->vanished, d->nvanished, sizeof(*d->vanished), dbuf_cmp);
	if (d->nresized)
		qsort(d->resized, d->nresized, sizeof(*d->resized), resized_cmp);
	for (size_t i = 0; i < d->nappeared; i++)
		d->appeared_bytes += d->appeared[i].size_b;
	for (size_t i = 0; i < d->nvanished; i++)
		d->vanished_bytes += d->vanished[i].size_a;
	for (size_t i = 0; i < d->nresized; i++)
		d->resized_bytes += (int64_t)d->resized[i].size_b -
				    (int64_t)d->resized[i].size_a;
	return 0;
}
