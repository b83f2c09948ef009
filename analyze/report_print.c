/* SPDX-License-Identifier: MIT */
/*
 * report_print.c - the summary as text for people (human sizes and
 * durations) and as JSON for programs (exact bytes, the shape documented in
 * memplan-analyze(1)).  Both list the same figures in the same order.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "report.h"

/* "12.3 ms" and friends; buf >= 32 bytes. */
static const char *fmt_ns(int64_t ns, char *buf, size_t len)
{
	double v = (double)ns;
	if (ns < 1000)
		snprintf(buf, len, "%" PRId64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", v / 1e6);
	else
		snprintf(buf, len, "%.3f s", v / 1e9);
	return buf;
}

static const char *clock_name(const struct report *r)
{
	return r->clock == TRACE_CLOCK_TIME ? "time" : "seq";
}

/* A gap: its duration when known, else its length on the trace clock. */
static const char *fmt_gap(const struct report *r, int64_t gap, int64_t gap_ns,
			   char *buf, size_t len)
{
	if (gap_ns >= 0)
		return fmt_ns(gap_ns, buf, len);
	snprintf(buf, len, "%" PRId64 " %s", gap,
		 r->clock == TRACE_CLOCK_TIME ? "units" : "seqs");
	return buf;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_groups(FILE *f, const char *title,
			 const struct report_group *g, size_t n, size_t top,
			 uint64_t total)
{
	char a[32];
	fprintf(f, "  %-15s", title);
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		if (!g[i].bytes)
			continue;
		if (top && shown == top) {
			fprintf(f, ", ...");
			break;
		}
		fprintf(f, "%s%s %s (%.1f%%)", shown ? ", " : "", g[i].name,
			cli_format_size(g[i].bytes, a, sizeof(a)),
			pct(g[i].bytes, total));
		shown++;
	}
	fputc('\n', f);
}

/* Kind and role groups sorted by bytes, for printing. */
static size_t sorted_groups(const struct report_group *in, size_t n,
			    struct report_group *out)
{
	memcpy(out, in, n * sizeof(*in));
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && out[j].bytes > out[j - 1].bytes; j--) {
			struct report_group tmp = out[j];
			out[j] = out[j - 1];
			out[j - 1] = tmp;
		}
	return n;
}

static void print_source(FILE *f, const struct trace *t)
{
	const char *src = trace_get_meta(t, "source");
	const char *model = trace_get_meta(t, "model");
	fprintf(f, "source:         %s", src ? src : "unknown");
	if (model)
		fprintf(f, " (model %s, batch %s, %s)", model,
			trace_get_meta(t, "batch") ? trace_get_meta(t, "batch") : "?",
			trace_get_meta(t, "dtype") ? trace_get_meta(t, "dtype") : "?");
	else if (trace_get_meta(t, "source_file"))
		fprintf(f, " (%s)", trace_get_meta(t, "source_file"));
	fputc('\n', f);
	/* an import that had to guess (an execution trace without profiler
	 * memory events): the figures below rest on it */
	const char *inf = trace_get_meta(t, "inferred");
	if (inf)
		fprintf(f, "inferred:       %s%s%s\n",
			strstr(inf, "sizes") ? "sizes (from tensor views: a lower bound)" : "",
			strstr(inf, "sizes") && strstr(inf, "frees") ? ", " : "",
			strstr(inf, "frees") ? "frees (after each buffer's last use)" : "");
}

int report_print_text(FILE *f, const char *path, const struct trace *t,
		      const struct report *r, size_t top)
{
	char a[32], b[32], c[32];
	fprintf(f, "trace:          %s\n", path);
	print_source(f, t);
	if (r->host_memory)
		fprintf(f, "memory:         host (device %s): CPU tensors, not GPU memory\n",
			trace_get_meta(t, "device") ? trace_get_meta(t, "device") : "cpu");
	fprintf(f, "buffers:        %zu: %zu persistent (%s), %zu transient (%s)\n",
		r->nbuffers, r->npersistent,
		cli_format_size(r->persistent_bytes, a, sizeof(a)),
		r->ntransient, cli_format_size(r->transient_bytes, b, sizeof(b)));
	fprintf(f, "events:         %zu", r->nevents);
	for (unsigned k = 0, first = 1; k < TRACE_EV_COUNT; k++) {
		if (!r->by_type[k])
			continue;
		fprintf(f, "%s%zu %s", first ? " (" : ", ", r->by_type[k],
			trace_event_type_name(k));
		first = 0;
	}
	fprintf(f, "%s, %zu accesses\n", r->nevents ? ")" : "", r->naccesses);
	fprintf(f, "span:           seq %" PRId64 "..%" PRId64, r->seq_first,
		r->seq_last);
	if (r->time_first != TRACE_TIME_NONE) {
		if (r->clock == TRACE_CLOCK_TIME)
			fprintf(f, ", time %" PRId64 "..%" PRId64, r->time_first,
				r->time_last);
		else
			fprintf(f, ", %s of GPU time",
				fmt_ns(r->time_last - r->time_first, a, sizeof(a)));
	}
	fprintf(f, "\npeak:           %s (%" PRIu64 " bytes) ",
		cli_format_size(r->peak, a, sizeof(a)), r->peak);
	if (r->peak_at == INT64_MIN)
		fprintf(f, "at the start of the iteration");
	else
		fprintf(f, "at %s %" PRId64, clock_name(r), r->peak_at);
	if (r->clock == TRACE_CLOCK_SEQ && r->peak_time != TRACE_TIME_NONE &&
	    r->time_first != TRACE_TIME_NONE)
		fprintf(f, " (%s into the iteration)",
			fmt_ns(r->peak_time - r->time_first, b, sizeof(b)));
	if (r->peak_buffer != TRACE_NONE) {
		const char *label = t->buffers[r->peak_buffer].label;
		if (label)
			fprintf(f, ", allocating '%s'", label);
		else
			fprintf(f, ", allocating buffer %" PRId64, r->peak_buffer);
	}
	fprintf(f, "\nlower bound:    %s (%" PRIu64 " bytes) at %s %" PRId64
		   ": the transient buffers' peak, what any single pool needs\n",
		cli_format_size(r->lower_bound, a, sizeof(a)), r->lower_bound,
		clock_name(r), r->lower_bound_at);
	if (r->host_peak)
		fprintf(f, "host memory:    %s (%" PRIu64 " bytes) at most, pinned; not in the device figures above\n",
			cli_format_size(r->host_peak, a, sizeof(a)), r->host_peak);

	fprintf(f, "sizes:          %-24s %9s %12s\n", "buffer size", "buffers", "bytes");
	for (unsigned k = 0; k < REPORT_HIST_BUCKETS; k++) {
		if (!r->hist[k].count)
			continue;
		char range[48];
		cli_format_size(1ull << k, a, sizeof(a));
		snprintf(range, sizeof(range), "%s .. %s", a,
			 k + 1 < 64 ? cli_format_size(1ull << (k + 1), b, sizeof(b)) : "");
		fprintf(f, "                %-24s %9zu %12s\n", range,
			r->hist[k].count, cli_format_size(r->hist[k].bytes, c, sizeof(c)));
	}

	fprintf(f, "live at peak:   %zu buffers, %s\n", r->nlive,
		cli_format_size(r->peak, a, sizeof(a)));
	struct report_group g[(int)TRACE_ROLE_COUNT + (int)TRACE_KIND_COUNT];
	size_t n = sorted_groups(r->by_kind, TRACE_KIND_COUNT, g);
	print_groups(f, "by kind:", g, n, top, r->peak);
	n = sorted_groups(r->by_role, TRACE_ROLE_COUNT, g);
	print_groups(f, "by role:", g, n, top, r->peak);
	print_groups(f, "by label:", r->by_label, r->nlabel, top, r->peak);
	size_t nshow = top && top < r->nlive ? top : r->nlive;
	if (nshow) {
		fprintf(f, "  %s:\n", top && top < r->nlive ? "largest" : "all");
		if (r->idle_known)
			fprintf(f, "    %12s  %-10s  %-4s  %11s  %s\n", "bytes", "role",
				"idle", "idle gap", "label");
		else
			fprintf(f, "    %12s  %-10s  %11s  %s\n", "bytes", "role",
				"lifetime", "label");
	}
	for (size_t i = 0; i < nshow; i++) {
		const struct report_live *l = &r->live[i];
		const struct trace_buffer *bf = &t->buffers[l->buffer];
		char lab[32];
		if (!bf->label)
			snprintf(lab, sizeof(lab), "buffer %" PRId64, l->buffer);
		if (!r->idle_known) {
			/* no accesses: alloc and free are the only uses, so
			 * the gap around the peak is the lifetime */
			fprintf(f, "    %12s  %-10s  %11s  %s\n",
				cli_format_size(l->bytes, a, sizeof(a)),
				trace_role_name(bf->role),
				fmt_gap(r, l->gap, l->gap_ns, b, sizeof(b)),
				bf->label ? bf->label : lab);
			continue;
		}
		fprintf(f, "    %12s  %-10s  %-4s  %11s  %s\n",
			cli_format_size(l->bytes, a, sizeof(a)),
			trace_role_name(bf->role), l->idle ? "yes" : "no",
			l->idle ? fmt_gap(r, l->gap, l->gap_ns, b, sizeof(b)) : "-",
			bf->label ? bf->label : lab);
	}

	if (r->idle_known)
		fprintf(f, "swappable room: %s (%.1f%% of the peak) in %zu buffers idle across the peak\n",
			cli_format_size(r->idle_bytes, a, sizeof(a)),
			pct(r->idle_bytes, r->peak), r->idle_count);
	else
		fprintf(f, "swappable room: not computable: %s\n", r->idle_why);
	if (r->idle_count) {
		if (r->gap_ns_min >= 0)
			fprintf(f, "  idle gaps:    %s to %s, half the bytes idle %s or longer\n",
				fmt_ns(r->gap_ns_min, a, sizeof(a)),
				fmt_ns(r->gap_ns_max, b, sizeof(b)),
				fmt_ns(r->gap_ns_median, c, sizeof(c)));
		else
			fprintf(f, "  idle gaps:    %s to %s, half the bytes idle %s or longer\n",
				fmt_gap(r, r->gap_min, -1, a, sizeof(a)),
				fmt_gap(r, r->gap_max, -1, b, sizeof(b)),
				fmt_gap(r, r->gap_median, -1, c, sizeof(c)));
	}

	const struct swap_floor *fl = &r->floor;
	if (fl->computed)
		fprintf(f, "swap floor:     %s (%.1f%% below the lower bound) after request %" PRIu64
			   " (seq %" PRId64 "): the least any swap plan can keep resident, whatever the link\n",
			cli_format_size(fl->bytes, a, sizeof(a)), swapfloor_ideal_pct(fl),
			fl->request, fl->seq);
	else
		fprintf(f, "swap floor:     not computable: %s\n", fl->why);
	if (!r->idle_known)
		fprintf(f, "                to know what is idle, capture the iteration with memplan-capture, which records the accesses\n");

	if (r->host_memory)
		fprintf(f, "allocators:     none simulated: host memory, which the CUDA allocator models do not describe\n");
	if (r->allocators) {
		fprintf(f, "allocators:     %-12s %14s %14s %14s %13s\n", "",
			"reserved peak", "live at it", "fragmentation", "vs live peak");
		for (unsigned m = 0; m < ALLOCSIM_COUNT; m++) {
			if (!(r->allocators & (1u << m)))
				continue;
			const struct allocsim_result *s = &r->alloc[m];
			char fr[32] = "-", ov[32] = "-";
			if (s->live_at_reserved_peak)
				snprintf(fr, sizeof(fr), "%.3f", report_fragmentation(s));
			if (s->live_peak)
				snprintf(ov, sizeof(ov), "%.3f", report_reserved_over_peak(s));
			fprintf(f, "                %-12s %14s %14s %14s %13s\n",
				allocsim_name(m),
				cli_format_size(s->reserved_peak, a, sizeof(a)),
				cli_format_size(s->live_at_reserved_peak, b, sizeof(b)), fr, ov);
		}
	}
	if (r->recorded_reserved >= 0) {
		fprintf(f, "                %-12s %14s   what PyTorch itself reserved at most (the snapshot's segments)\n",
			"recorded", cli_format_size((uint64_t)r->recorded_reserved, a, sizeof(a)));
		double e = report_model_error(r);
		if (!isnan(e)) {
			uint64_t m = r->alloc[ALLOCSIM_PYTORCH].reserved_peak;
			uint64_t rec = (uint64_t)r->recorded_reserved;
			fprintf(f, "                %-12s %14s   the pytorch model is %+.1f%% (%s%s) off the recorded peak\n",
				"gap", "", 100.0 * e, m >= rec ? "+" : "-",
				cli_format_size(m >= rec ? m - rec : rec - m, b, sizeof(b)));
		}
	}
	return ferror(f) ? -1 : 0;
}

/* --- JSON ------------------------------------------------------------------ */

static void json_time(struct json *j, const char *key, int64_t v)
{
	if (v == TRACE_TIME_NONE)
		json_null(j, key);
	else
		json_i64(j, key, v);
}

static void json_live(struct json *j, const struct trace *t,
		      const struct report *r, const struct report_live *l)
{
	const struct trace_buffer *b = &t->buffers[l->buffer];
	json_object(j, NULL);
	json_i64(j, "buffer", l->buffer);
	json_string(j, "label", b->label);
	json_string(j, "kind", trace_kind_name(b->kind));
	json_string(j, "role", trace_role_name(b->role));
	json_u64(j, "bytes", l->bytes);
	if (r->idle_known)
		json_bool(j, "idle", l->idle);
	else
		json_null(j, "idle");
	if (l->last_use == INT64_MIN)
		json_null(j, "last_use");
	else
		json_i64(j, "last_use", l->last_use);
	if (l->next_use == INT64_MAX)
		json_null(j, "next_use");
	else
		json_i64(j, "next_use", l->next_use);
	json_i64(j, "gap", l->gap);
	if (l->gap_ns >= 0)
		json_i64(j, "gap_ns", l->gap_ns);
	else
		json_null(j, "gap_ns");
	json_object_end(j);
}

static void json_groups(struct json *j, const char *key,
			const struct report_group *g, size_t n, size_t top)
{
	json_array(j, key);
	for (size_t i = 0, shown = 0; i < n && (!top || shown < top); i++) {
		if (!g[i].bytes)
			continue;
		json_object(j, NULL);
		json_string(j, "name", g[i].name);
		json_u64(j, "bytes", g[i].bytes);
		json_u64(j, "buffers", g[i].count);
		json_object_end(j);
		shown++;
	}
	json_array_end(j);
}

static void json_gaps(struct json *j, const char *key, int64_t mn,
		      int64_t med, int64_t mx, int have)
{
	if (!have) {
		json_null(j, key);
		return;
	}
	json_object(j, key);
	json_i64(j, "min", mn);
	json_i64(j, "median_by_bytes", med);
	json_i64(j, "max", mx);
	json_object_end(j);
}

int report_print_json(FILE *f, const char *path, const struct trace *t,
		      const struct report *r, size_t top)
{
	struct json j;
	json_init(&j, f);
	json_object(&j, NULL);
	json_string(&j, "trace", path);
	json_object(&j, "meta");
	for (size_t i = 0; i < t->nmeta; i++)
		json_string(&j, t->meta[i].key, t->meta[i].value);
	json_object_end(&j);
	json_string(&j, "clock", clock_name(r));

	json_object(&j, "buffers");
	json_u64(&j, "count", r->nbuffers);
	json_u64(&j, "persistent", r->npersistent);
	json_u64(&j, "persistent_bytes", r->persistent_bytes);
	json_u64(&j, "transient", r->ntransient);
	json_u64(&j, "transient_bytes", r->transient_bytes);
	json_object_end(&j);

	json_object(&j, "events");
	json_u64(&j, "count", r->nevents);
	for (unsigned k = 0; k < TRACE_EV_COUNT; k++)
		json_u64(&j, trace_event_type_name(k), r->by_type[k]);
	json_u64(&j, "accesses", r->naccesses);
	json_i64(&j, "seq_first", r->seq_first);
	json_i64(&j, "seq_last", r->seq_last);
	json_time(&j, "time_first", r->time_first);
	json_time(&j, "time_last", r->time_last);
	json_object_end(&j);

	json_object(&j, "peak");
	json_u64(&j, "bytes", r->peak);
	if (r->peak_at == INT64_MIN)
		json_null(&j, "at"); /* before the first event */
	else
		json_i64(&j, "at", r->peak_at);
	if (r->peak_seq == INT64_MIN)
		json_null(&j, "seq");
	else
		json_i64(&j, "seq", r->peak_seq);
	json_time(&j, "time", r->peak_time);
	if (r->peak_buffer == TRACE_NONE) {
		json_null(&j, "buffer");
		json_null(&j, "label");
	} else {
		json_i64(&j, "buffer", r->peak_buffer);
		json_string(&j, "label", t->buffers[r->peak_buffer].label);
	}
	json_object_end(&j);

	json_object(&j, "lower_bound");
	json_u64(&j, "bytes", r->lower_bound);
	json_i64(&j, "at", r->lower_bound_at);
	json_object_end(&j);
	json_u64(&j, "host_peak_bytes", r->host_peak);
	json_string(&j, "memory", r->host_memory ? "host" : "device");
	if (r->recorded_reserved >= 0)
		json_u64(&j, "recorded_reserved_peak", (uint64_t)r->recorded_reserved);
	else
		json_null(&j, "recorded_reserved_peak");
	if (!isnan(report_model_error(r)))
		json_double(&j, "pytorch_model_error", report_model_error(r));
	else
		json_null(&j, "pytorch_model_error");

	json_array(&j, "histogram");
	for (unsigned k = 0; k < REPORT_HIST_BUCKETS; k++) {
		if (!r->hist[k].count)
			continue;
		json_object(&j, NULL);
		json_u64(&j, "from", 1ull << k);
		json_u64(&j, "count", r->hist[k].count);
		json_u64(&j, "bytes", r->hist[k].bytes);
		json_object_end(&j);
	}
	json_array_end(&j);

	size_t nshow = top && top < r->nlive ? top : r->nlive;
	json_object(&j, "live_at_peak");
	json_u64(&j, "buffers", r->nlive);
	json_u64(&j, "bytes", r->peak);
	struct report_group g[(int)TRACE_ROLE_COUNT + (int)TRACE_KIND_COUNT];
	json_groups(&j, "by_kind", g, sorted_groups(r->by_kind, TRACE_KIND_COUNT, g), 0);
	json_groups(&j, "by_role", g, sorted_groups(r->by_role, TRACE_ROLE_COUNT, g), 0);
	json_groups(&j, "by_label", r->by_label, r->nlabel, top);
	json_array(&j, "top");
	for (size_t i = 0; i < nshow; i++)
		json_live(&j, t, r, &r->live[i]);
	json_array_end(&j);
	json_object_end(&j);

	json_object(&j, "swappable");
	if (r->idle_known) {
		json_u64(&j, "bytes", r->idle_bytes);
		json_u64(&j, "buffers", r->idle_count);
		json_double(&j, "fraction_of_peak",
			    r->peak ? (double)r->idle_bytes / (double)r->peak : 0.0);
		json_gaps(&j, "gap", r->gap_min, r->gap_median, r->gap_max,
			  r->idle_count > 0);
		json_gaps(&j, "gap_ns", r->gap_ns_min, r->gap_ns_median,
			  r->gap_ns_max, r->gap_ns_min >= 0);
	} else {
		/* the key appears only here, so traces with accesses keep
		 * the output they always had */
		json_null(&j, "bytes");
		json_null(&j, "buffers");
		json_null(&j, "fraction_of_peak");
		json_null(&j, "gap");
		json_null(&j, "gap_ns");
		json_string(&j, "swappable_why_not", r->idle_why);
	}
	const struct swap_floor *fl = &r->floor;
	if (fl->computed) {
		json_u64(&j, "swap_floor_bytes", fl->bytes);
		json_u64(&j, "swap_floor_at", fl->request);
		json_i64(&j, "swap_floor_seq", fl->seq);
		json_time(&j, "swap_floor_time", fl->time);
		json_u64(&j, "swap_floor_lower_bound", fl->lower_bound);
		if (fl->lower_bound)
			json_double(&j, "swap_ideal_pct", swapfloor_ideal_pct(fl));
		else
			json_null(&j, "swap_ideal_pct");
		json_null(&j, "swap_floor_why_not");
	} else {
		json_null(&j, "swap_floor_bytes");
		json_null(&j, "swap_floor_at");
		json_null(&j, "swap_floor_seq");
		json_null(&j, "swap_floor_time");
		json_null(&j, "swap_floor_lower_bound");
		json_null(&j, "swap_ideal_pct");
		json_string(&j, "swap_floor_why_not", fl->why);
	}
	json_array(&j, "top");
	for (size_t i = 0, shown = 0; i < r->nlive && (!top || shown < top); i++) {
		if (!r->live[i].idle)
			continue;
		json_live(&j, t, r, &r->live[i]);
		shown++;
	}
	json_array_end(&j);
	json_object_end(&j);

	json_object(&j, "allocators");
	for (unsigned m = 0; m < ALLOCSIM_COUNT; m++) {
		if (!(r->allocators & (1u << m)))
			continue;
		const struct allocsim_result *s = &r->alloc[m];
		json_object(&j, allocsim_name(m));
		json_u64(&j, "reserved_peak", s->reserved_peak);
		if (s->reserved_peak_at == INT64_MIN)
			json_null(&j, "reserved_peak_at");
		else
			json_i64(&j, "reserved_peak_at", s->reserved_peak_at);
		json_u64(&j, "live_at_reserved_peak", s->live_at_reserved_peak);
		json_u64(&j, "live_peak", s->live_peak);
		json_u64(&j, "allocated_peak", s->allocated_peak);
		json_double(&j, "fragmentation", report_fragmentation(s));
		json_double(&j, "reserved_over_live_peak", report_reserved_over_peak(s));
		json_u64(&j, "reserved_end", s->reserved_end);
		json_u64(&j, "device_allocs", s->device_allocs);
		json_u64(&j, "device_frees", s->device_frees);
		json_u64(&j, "releases", s->releases);
		json_u64(&j, "requests", s->requests);
		json_u64(&j, "skipped_host_buffers", s->skipped);
		json_object_end(&j);
	}
	json_object_end(&j);
	json_object_end(&j);
	json_finish(&j);
	return ferror(f) ? -1 : 0;
}
