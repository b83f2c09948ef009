/* SPDX-License-Identifier: MIT */
/*
 * diff_print.c - two traces side by side as text (human sizes, signed
 * changes) and as JSON (exact bytes), the shape in memplan-analyze(1).
 */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "diff.h"
#include "json.h"

/* "+1.50 GiB" / "-512 B" / "0 B"; buf >= 40 bytes. */
static const char *fmt_delta(uint64_t a, uint64_t b, char *buf, size_t len)
{
	char s[32];
	if (a == b)
		snprintf(buf, len, "0 B");
	else if (b > a)
		snprintf(buf, len, "+%s", cli_format_size(b - a, s, sizeof(s)));
	else
		snprintf(buf, len, "-%s", cli_format_size(a - b, s, sizeof(s)));
	return buf;
}

static void row(FILE *f, const char *what, uint64_t a, uint64_t b)
{
	char x[32], y[32], d[48], p[32] = "";
	if (a && a != b)
		snprintf(p, sizeof(p), " (%+.1f%%)",
			 100.0 * ((double)b - (double)a) / (double)a);
	fprintf(f, "%-24s %14s %14s   %s%s\n", what, cli_format_size(a, x, sizeof(x)),
		cli_format_size(b, y, sizeof(y)), fmt_delta(a, b, d, sizeof(d)), p);
}

static void count_row(FILE *f, const char *what, uint64_t a, uint64_t b)
{
	fprintf(f, "%-24s %14" PRIu64 " %14" PRIu64 "   %+" PRId64 "\n", what, a, b,
		(int64_t)(b - a));
}

static void group_rows(FILE *f, const char *title, const struct diff_group *g,
		       size_t n, size_t top)
{
	size_t shown = 0;
	for (size_t i = 0; i < n; i++)
		shown += g[i].a != g[i].b;
	if (!shown)
		return;
	fprintf(f, "live at peak by %s%s:\n", title,
		top && top < shown ? " (largest changes)" : "");
	shown = 0;
	for (size_t i = 0; i < n && (!top || shown < top); i++) {
		if (g[i].a == g[i].b)
			continue;
		char what[64];
		snprintf(what, sizeof(what), "  %s", g[i].name);
		row(f, what, g[i].a, g[i].b);
		shown++;
	}
}

static const char *label_of(const struct trace *t, int64_t id, char *buf,
			    size_t len)
{
	if (t->buffers[id].label)
		return t->buffers[id].label;
	snprintf(buf, len, "buffer %" PRId64, id);
	return buf;
}

static void buffer_rows(FILE *f, const char *title, const struct diff_buffer *v,
			size_t n, size_t top, const struct trace *a,
			const struct trace *b)
{
	if (!n)
		return;
	fprintf(f, "%s%s:\n", title, top && top < n ? " (largest first)" : "");
	for (size_t i = 0; i < n && (!top || i < top); i++) {
		char x[32], y[32], l[48];
		if (v[i].a != TRACE_NONE && v[i].b != TRACE_NONE)
			fprintf(f, "  %12s -> %-12s %s\n",
				cli_format_size(v[i].size_a, x, sizeof(x)),
				cli_format_size(v[i].size_b, y, sizeof(y)),
				label_of(b, v[i].b, l, sizeof(l)));
		else if (v[i].a != TRACE_NONE)
			fprintf(f, "  %12s  %s\n", cli_format_size(v[i].size_a, x, sizeof(x)),
				label_of(a, v[i].a, l, sizeof(l)));
		else
			fprintf(f, "  %12s  %s\n", cli_format_size(v[i].size_b, x, sizeof(x)),
				label_of(b, v[i].b, l, sizeof(l)));
	}
}

int diff_print_text(FILE *f, const char *pa, const struct trace *a,
		    const struct report *ra, const char *pb,
		    const struct trace *b, const struct report *rb,
		    const struct diff *d, size_t top)
{
	char s[48], ap[32], va[32];
	fprintf(f, "A: %s\nB: %s\n\n", pa, pb);
	fprintf(f, "%-24s %14s %14s   %s\n", "", "A", "B", "change (B - A)");
	row(f, "peak", ra->peak, rb->peak);
	row(f, "lower bound", ra->lower_bound, rb->lower_bound);
	for (unsigned m = 0; m < ALLOCSIM_COUNT; m++) {
		if (!(ra->allocators & rb->allocators & (1u << m)))
			continue;
		char what[48];
		snprintf(what, sizeof(what), "reserved (%s)", allocsim_name(m));
		row(f, what, ra->alloc[m].reserved_peak, rb->alloc[m].reserved_peak);
	}
	if (ra->idle_known && rb->idle_known)
		row(f, "swappable room", ra->idle_bytes, rb->idle_bytes);
	else /* a side without accesses: nothing is known to be idle */
		fprintf(f, "%-24s %14s %14s   unknown\n", "swappable room",
			ra->idle_known ? cli_format_size(ra->idle_bytes, s, sizeof(s)) : "unknown",
			rb->idle_known ? cli_format_size(rb->idle_bytes, ap, sizeof(ap)) : "unknown");
	row(f, "persistent bytes", ra->persistent_bytes, rb->persistent_bytes);
	row(f, "transient bytes", ra->transient_bytes, rb->transient_bytes);
	count_row(f, "buffers", ra->nbuffers, rb->nbuffers);
	count_row(f, "events", ra->nevents, rb->nevents);
	count_row(f, "live at peak (buffers)", ra->nlive, rb->nlive);
	group_rows(f, "kind", d->by_kind, d->nkind, top);
	group_rows(f, "role", d->by_role, d->nrole, top);
	group_rows(f, "label", d->by_label, d->nlabel, top);
	fprintf(f, "buffers: %zu the same, %zu resized (%s), %zu appeared (%s), %zu vanished (%s)\n",
		d->matched, d->nresized,
		d->resized_bytes >= 0 ? fmt_delta(0, (uint64_t)d->resized_bytes, s, sizeof(s))
				      : fmt_delta((uint64_t)-d->resized_bytes, 0, s, sizeof(s)),
		d->nappeared, cli_format_size(d->appeared_bytes, ap, sizeof(ap)),
		d->nvanished, cli_format_size(d->vanished_bytes, va, sizeof(va)));
	buffer_rows(f, "resized", d->resized, d->nresized, top, a, b);
	buffer_rows(f, "appeared in B", d->appeared, d->nappeared, top, a, b);
	buffer_rows(f, "vanished from A", d->vanished, d->nvanished, top, a, b);
	return ferror(f) ? -1 : 0;
}

/* --- JSON ------------------------------------------------------------------ */

static void json_side(struct json *j, const char *key, const char *path,
		      const struct report *r)
{
	json_object(j, key);
	json_string(j, "trace", path);
	json_u64(j, "peak", r->peak);
	json_u64(j, "lower_bound", r->lower_bound);
	json_object(j, "reserved");
	for (unsigned m = 0; m < ALLOCSIM_COUNT; m++)
		if (r->allocators & (1u << m))
			json_u64(j, allocsim_name(m), r->alloc[m].reserved_peak);
	json_object_end(j);
	if (r->idle_known)
		json_u64(j, "swappable", r->idle_bytes);
	else
		json_null(j, "swappable");
	json_u64(j, "persistent_bytes", r->persistent_bytes);
	json_u64(j, "transient_bytes", r->transient_bytes);
	json_u64(j, "buffers", r->nbuffers);
	json_u64(j, "events", r->nevents);
	json_u64(j, "live_at_peak", r->nlive);
	json_object_end(j);
}

static void json_dgroups(struct json *j, const char *key,
			 const struct diff_group *g, size_t n, size_t top)
{
	json_array(j, key);
	for (size_t i = 0; i < n && (!top || i < top); i++) {
		json_object(j, NULL);
		json_string(j, "name", g[i].name);
		json_u64(j, "a", g[i].a);
		json_u64(j, "b", g[i].b);
		json_object_end(j);
	}
	json_array_end(j);
}

static void json_buf(struct json *j, const char *key, const struct trace *t,
		     int64_t id, uint64_t size)
{
	if (id == TRACE_NONE) {
		json_null(j, key);
		return;
	}
	json_object(j, key);
	json_i64(j, "buffer", id);
	json_string(j, "label", t->buffers[id].label);
	json_u64(j, "size", size);
	json_object_end(j);
}

static void json_dbufs(struct json *j, const char *key,
		       const struct diff_buffer *v, size_t n, size_t top,
		       const struct trace *a, const struct trace *b)
{
	json_array(j, key);
	for (size_t i = 0; i < n && (!top || i < top); i++) {
		json_object(j, NULL);
		json_buf(j, "a", a, v[i].a, v[i].size_a);
		json_buf(j, "b", b, v[i].b, v[i].size_b);
		json_object_end(j);
	}
	json_array_end(j);
}

int diff_print_json(FILE *f, const char *pa, const struct trace *a,
		    const struct report *ra, const char *pb,
		    const struct trace *b, const struct report *rb,
		    const struct diff *d, size_t top)
{
	struct json j;
	json_init(&j, f);
	json_object(&j, NULL);
	json_side(&j, "a", pa, ra);
	json_side(&j, "b", pb, rb);
	json_object(&j, "live_at_peak");
	json_dgroups(&j, "by_kind", d->by_kind, d->nkind, 0);
	json_dgroups(&j, "by_role", d->by_role, d->nrole, 0);
	json_dgroups(&j, "by_label", d->by_label, d->nlabel, top);
	json_object_end(&j);
	json_object(&j, "buffers");
	json_u64(&j, "same", d->matched);
	json_u64(&j, "resized_count", d->nresized);
	json_i64(&j, "resized_bytes", d->resized_bytes);
	json_u64(&j, "appeared_count", d->nappeared);
	json_u64(&j, "appeared_bytes", d->appeared_bytes);
	json_u64(&j, "vanished_count", d->nvanished);
	json_u64(&j, "vanished_bytes", d->vanished_bytes);
	json_dbufs(&j, "resized", d->resized, d->nresized, top, a, b);
	json_dbufs(&j, "appeared", d->appeared, d->nappeared, top, a, b);
	json_dbufs(&j, "vanished", d->vanished, d->nvanished, top, a, b);
	json_object_end(&j);
	json_object_end(&j);
	json_finish(&j);
	return ferror(f) ? -1 : 0;
}
