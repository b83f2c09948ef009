/* SPDX-License-Identifier: MIT */
/*
 * cmd_inspect.c - memplan-plan inspect: a plan file shown as it is on disk
 * (header, sections, the first entries; or every entry as CSV or JSON).  It
 * reads the plan through runtime/plan.h alone, trusting nothing else; a
 * trace given after it only names the swapped tensors (cmd_names.c), once
 * the plan verifies against it.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "cmd.h"
#include "input.h"
#include "json.h"
#include "plan.h"
#include "planfile.h"

/* An ordinal or offset, or the word for its marker. */
static void print_u64_or(FILE *f, uint64_t v, uint64_t none, const char *word)
{
	if (v == none)
		fputs(word, f);
	else
		fprintf(f, "%" PRIu64, v);
}

#define INSPECT_ROWS 10

/* A slack of the SWAP_TIMING section in b, or word where its flag voids it. */
static const char *slack_str(char *b, size_t n, int64_t v, int none,
			     const char *word)
{
	if (none)
		snprintf(b, n, "%s", word);
	else
		snprintf(b, n, "%" PRId64, v);
	return b;
}

static void inspect_text(const char *path, const struct mp_plan *p,
			 const char *const *names, size_t len,
			 const struct mp_plan_section_info *sec, size_t nsec,
			 uint32_t checksum)
{
	char a[32];
	uint32_t planned = 0;
	for (uint32_t i = 0; i < p->nallocs; i++)
		planned += p->allocs[i].offset != MP_PLAN_PASS_THROUGH;
	printf("plan:         %s\n", path);
	printf("format:       version %" PRIu32 ", %zu bytes, CRC-32C 0x%08" PRIx32 "\n",
	       p->version, len, checksum);
	printf("strategy:     %s (%s)\n", p->strategy[0] ? p->strategy : "unknown",
	       p->flags & MP_PLAN_OPTIMAL ? "proven optimal" : "not proven optimal");
	if (p->flags & MP_PLAN_TRUSTS_HOLES)
		printf("holes:        trusts the trace's holes (a placement study: safe only where something else moves those bytes out and back)\n");
	printf("pool:         %s (%" PRIu64 " bytes), alignment %" PRIu64 "\n",
	       cli_format_size(p->pool_size, a, sizeof(a)), p->pool_size,
	       p->pool_align);
	printf("lower bound:  %" PRIu64 " bytes (gap %.2f%%)\n", p->lower_bound,
	       solver_gap_percent(p->pool_size, p->lower_bound));
	if (p->device >= 0)
		printf("device:       %" PRId32 "\n", p->device);
	else
		printf("device:       unknown\n");
	printf("requests:     %" PRIu32 " allocations (%" PRIu32 " planned, %" PRIu32
	       " pass through), %" PRIu64 " on the allocator clock\n",
	       p->nallocs, planned, p->nallocs - planned, p->nrequests);
	printf("fingerprint:  0x%016" PRIx64 "\n", p->fingerprint);
	printf("persistent:   %s (%" PRIu64 " bytes, not planned)\n",
	       cli_format_size(p->persistent_bytes, a, sizeof(a)),
	       p->persistent_bytes);
	printf("swaps:        %" PRIu32 " (host staging %" PRIu64 " bytes)\n",
	       p->nswaps, p->host_staging);
	if (p->has_timing) {
		uint64_t stall = 0;
		for (uint32_t i = 0; i < p->nswaps; i++)
			stall += p->timing[i].predicted_stall_ns;
		printf("timing:       predicted stall %" PRIu64 " ns (SWAP_TIMING)\n",
		       stall);
	}
	if (p->has_streams)
		printf("streams:      %" PRIu32 " (STREAMS: the runtime checks each request's stream against the trace's)\n",
		       mp_plan_stream_count(p));
	if (p->has_link)
		printf("link:         %s (LINK: the link its swaps were planned for; simulate uses it)\n",
		       p->link);
	else if (p->nswaps)
		printf("link:         not recorded (simulate assumes the trace's measured link, else pcie5)\n");
	for (uint32_t w = 0; w < p->nworkloads; w++) {
		uint64_t lo, hi;
		mp_plan_workload_at(p, p->workloads[w].first_request, &lo, &hi);
		printf("%s %2" PRIu32 ": requests [%" PRIu64 ", %" PRIu64
		       "), fingerprint 0x%016" PRIx64 ", %" PRIu64 " bytes persistent\n",
		       w ? "             " : "cycle:       ", w, lo, hi,
		       p->workloads[w].fingerprint, p->workloads[w].persistent_bytes);
	}
	printf("\nsections:\n  %-3s %-11s %-9s %10s %10s %8s %6s\n", "#", "type",
	       "flags", "offset", "length", "entries", "size");
	for (size_t i = 0; i < nsec && i < 16; i++)
		printf("  %-3zu %-11s %-9s %10" PRIu64 " %10" PRIu64 " %8" PRIu32
		       " %6" PRIu32 "\n",
		       i, mp_plan_section_name(sec[i].type),
		       sec[i].flags & MP_PLAN_SECTION_REQUIRED ? "required"
							       : "optional",
		       sec[i].offset, sec[i].length, sec[i].count,
		       sec[i].entry_size);
	printf("\nallocations%s:\n  %8s %14s %14s %8s %8s %8s",
	       p->nallocs > INSPECT_ROWS ? " (first 10; --csv or --json for all)" : "",
	       "request", "size", "offset", "buffer", "lower", "upper");
	printf(p->has_streams ? " %8s\n" : "\n", "stream");
	for (uint32_t i = 0; i < p->nallocs && i < INSPECT_ROWS; i++) {
		const struct mp_plan_alloc *e = &p->allocs[i];
		char off[24], up[24];
		if (e->offset == MP_PLAN_PASS_THROUGH)
			snprintf(off, sizeof(off), "pass-through");
		else
			snprintf(off, sizeof(off), "%" PRIu64, e->offset);
		if (e->upper == MP_PLAN_NO_FREE)
			snprintf(up, sizeof(up), "-");
		else
			snprintf(up, sizeof(up), "%" PRIu64, e->upper);
		printf("  %8" PRIu32 " %14" PRIu64 " %14s %8" PRIu64 " %8" PRIu64
		       " %8s",
		       i, e->size, off, e->buffer, e->lower, up);
		if (p->has_streams && p->streams[i] == MP_PLAN_STREAM_UNKNOWN)
			printf(" %8s", "-");
		else if (p->has_streams)
			printf(" %8" PRIu32, p->streams[i]);
		printf("\n");
	}
	if (p->nswaps) {
		printf("\nswaps%s:\n  %8s %8s %8s %12s %12s %12s",
		       p->nswaps > INSPECT_ROWS ? " (first 10)" : "", "request",
		       "out_at", "in_at", "src_offset", "bytes", "staging");
		if (p->has_timing)
			printf(" %13s %13s %12s", "d2h_slack_ns", "h2d_slack_ns",
			       "stall_ns");
		printf(names ? "  tensor\n" : "\n");
		for (uint32_t i = 0; i < p->nswaps && i < INSPECT_ROWS; i++) {
			const struct mp_plan_swap *s = &p->swaps[i];
			printf("  %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %12" PRIu64
			       " %12" PRIu64 " %12" PRIu64,
			       s->request, s->out_at, s->in_at, s->src_offset,
			       s->bytes, s->staging);
			if (p->has_timing) {
				const struct mp_plan_swap_timing *w = &p->timing[i];
				char d[24], h[24];
				printf(" %13s %13s %12" PRIu64,
				       slack_str(d, sizeof(d), w->d2h_slack_ns,
						 w->flags & MP_PLAN_TIMING_NO_REUSE, "-"),
				       slack_str(h, sizeof(h), w->h2d_slack_ns,
						 w->flags & MP_PLAN_TIMING_NO_USE, "-"),
				       w->predicted_stall_ns);
			}
			if (names)
				printf("  %s", names[i]);
			printf("\n");
		}
	}
}

/* MiniMalloc CSV of the planned requests: id is the request index, the
 * lifetime is on the allocator clock. */
static void inspect_csv(const struct mp_plan *p)
{
	printf("id,lower,upper,size,offset\n");
	for (uint32_t i = 0; i < p->nallocs; i++) {
		const struct mp_plan_alloc *e = &p->allocs[i];
		if (e->offset == MP_PLAN_PASS_THROUGH)
			continue;
		printf("%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
		       i, e->lower, e->upper, e->size, e->offset);
	}
}

static void inspect_json(const char *path, const struct mp_plan *p,
			 const char *const *names, size_t len,
			 const struct mp_plan_section_info *sec, size_t nsec,
			 uint32_t checksum)
{
	printf("{\"plan\":");
	json_quote(stdout, path);
	printf(",\"version\":%" PRIu32 ",\"file_size\":%zu,\"checksum\":\"0x%08" PRIx32
	       "\",\"sections\":[",
	       p->version, len, checksum);
	for (size_t i = 0; i < nsec; i++)
		printf("%s{\"type\":%" PRIu32 ",\"name\":\"%s\",\"required\":%s,"
		       "\"offset\":%" PRIu64 ",\"length\":%" PRIu64
		       ",\"entries\":%" PRIu32 ",\"entry_size\":%" PRIu32 "}",
		       i ? "," : "", sec[i].type, mp_plan_section_name(sec[i].type),
		       sec[i].flags & MP_PLAN_SECTION_REQUIRED ? "true" : "false",
		       sec[i].offset, sec[i].length, sec[i].count,
		       sec[i].entry_size);
	printf("],\"meta\":{\"pool_size\":%" PRIu64 ",\"pool_align\":%" PRIu64
	       ",\"device\":%" PRId32 ",\"nrequests\":%" PRIu64
	       ",\"fingerprint\":\"0x%016" PRIx64 "\",\"lower_bound\":%" PRIu64
	       ",\"persistent_bytes\":%" PRIu64 ",\"host_staging\":%" PRIu64
	       ",\"optimal\":%s,\"trusts_holes\":%s,\"strategy\":",
	       p->pool_size, p->pool_align, p->device, p->nrequests,
	       p->fingerprint, p->lower_bound, p->persistent_bytes,
	       p->host_staging, p->flags & MP_PLAN_OPTIMAL ? "true" : "false",
	       p->flags & MP_PLAN_TRUSTS_HOLES ? "true" : "false");
	json_quote(stdout, p->strategy);
	printf(",\"streams\":");
	if (p->has_streams)
		printf("%" PRIu32, mp_plan_stream_count(p));
	else
		printf("null");
	printf(",\"link\":");
	if (p->has_link)
		json_quote(stdout, p->link);
	else
		printf("null");
	if (p->nworkloads) { /* a cycle (CYCLE): each workload's turn */
		printf(",\"workloads\":[");
		for (uint32_t w = 0; w < p->nworkloads; w++)
			printf("%s{\"first_request\":%" PRIu64
			       ",\"fingerprint\":\"0x%016" PRIx64
			       "\",\"persistent_bytes\":%" PRIu64 "}",
			       w ? "," : "", p->workloads[w].first_request,
			       p->workloads[w].fingerprint,
			       p->workloads[w].persistent_bytes);
		printf("]");
	}
	printf("},\"allocs\":[");
	for (uint32_t i = 0; i < p->nallocs; i++) {
		const struct mp_plan_alloc *e = &p->allocs[i];
		printf("%s{\"size\":%" PRIu64 ",\"offset\":", i ? "," : "", e->size);
		print_u64_or(stdout, e->offset, MP_PLAN_PASS_THROUGH, "null");
		printf(",\"buffer\":%" PRIu64 ",\"lower\":%" PRIu64 ",\"upper\":",
		       e->buffer, e->lower);
		print_u64_or(stdout, e->upper, MP_PLAN_NO_FREE, "null");
		printf(",\"flags\":%" PRIu32 ",\"stream\":", e->flags);
		/* null: no STREAMS section, or a stream the trace did not know */
		print_u64_or(stdout, p->has_streams ? p->streams[i] : MP_PLAN_STREAM_UNKNOWN,
			     MP_PLAN_STREAM_UNKNOWN, "null");
		printf("}");
	}
	printf("],\"swaps\":[");
	for (uint32_t i = 0; i < p->nswaps; i++) {
		const struct mp_plan_swap *s = &p->swaps[i];
		printf("%s{\"request\":%" PRIu64 ",\"out_at\":%" PRIu64
		       ",\"in_at\":%" PRIu64 ",\"src_offset\":%" PRIu64
		       ",\"bytes\":%" PRIu64 ",\"staging\":%" PRIu64
		       ",\"flags\":%" PRIu32,
		       i ? "," : "", s->request, s->out_at, s->in_at,
		       s->src_offset, s->bytes, s->staging, s->flags);
		printf(",\"tensor\":");
		if (names)
			json_quote(stdout, names[i]);
		else
			printf("null");
		printf(",\"timing\":");
		if (!p->has_timing) {
			printf("null}");
			continue;
		}
		/* a slack its flag voids is null, as simulate --json has it */
		const struct mp_plan_swap_timing *w = &p->timing[i];
		char d[24], h[24];
		printf("{\"d2h_slack_ns\":%s,\"h2d_slack_ns\":%s"
		       ",\"predicted_stall_ns\":%" PRIu64 ",\"flags\":%" PRIu32 "}}",
		       slack_str(d, sizeof(d), w->d2h_slack_ns,
				 w->flags & MP_PLAN_TIMING_NO_REUSE, "null"),
		       slack_str(h, sizeof(h), w->h2d_slack_ns,
				 w->flags & MP_PLAN_TIMING_NO_USE, "null"),
		       w->predicted_stall_ns, w->flags);
	}
	printf("]}\n");
}

const char cmd_inspect_options[] =
	"      --csv                the planned requests as MiniMalloc CSV\n"
	"      --json               every field and entry as one JSON object\n"
	"                           (default: a text summary, the first 10 entries)\n"
	"  TRACE                    after the plan: its trace, which names the swapped\n"
	"                           tensors (label, call site or kernel)\n"
	"  -h, --help               this text\n";

/*
 * The names of p's swapped tensors from the trace at tpath, once p verifies
 * against it (names from another trace would mislead).  Returns the exit
 * status, the error said; *names is freed with free().
 */
static int trace_names(const struct mp_plan *p, const char *ppath,
		       const char *tpath, const char ***names)
{
	char err[ERRLEN];
	struct trace *t = NULL;
	int rc = input_load(tpath, &t, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	rc = planfile_verify(p, t, err, sizeof(err));
	if (rc) {
		/* verify's wording and status (cmd_plan_fits) */
		if (rc == PLANFILE_EINVALID)
			cli_error("plan '%s' does not fit trace '%s': %s", ppath, tpath, err);
		else
			cli_error("%s", err);
		trace_free(t);
		return rc == PLANFILE_EINVALID ? MP_EXIT_LIMIT : MP_EXIT_INTERNAL;
	}
	*names = cmd_swap_names(t, p);
	trace_free(t);
	if (!*names) {
		cli_error("out of memory naming the tensors of plan '%s'", ppath);
		return MP_EXIT_INTERNAL;
	}
	return MP_EXIT_OK;
}

int cmd_inspect(int argc, char **argv)
{
	static const struct option opts[] = { { "csv", no_argument, NULL, 'c' },
					      { "json", no_argument, NULL, 'j' },
					      { "help", no_argument, NULL, 'h' },
					      { 0 } };
	int csv = 0, json = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "cjh", opts, NULL)) != -1) {
		if (c == 'c')
			csv = 1;
		else if (c == 'j')
			json = 1;
		else
			return cli_option_error(c, "inspect");
	}
	if (csv && json)
		return cli_usage_error("inspect: --csv and --json exclude each other");
	if (optind != argc - 1 && optind != argc - 2)
		return cli_usage_error("inspect: expected one PLAN, and its TRACE or nothing");
	const char *path = argv[optind];
	const char *tpath = optind == argc - 2 ? argv[optind + 1] : NULL;
	char err[ERRLEN], why[ERRLEN];
	unsigned char *buf;
	size_t len;
	int rc = mp_plan_read_bytes(path, &buf, &len, err, sizeof(err));
	if (rc) {
		cmd_plan_hint(path, err, sizeof(err));
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	struct mp_plan p;
	rc = mp_plan_decode(buf, len, &p, why, sizeof(why));
	struct mp_plan_section_info sec[16];
	size_t nsec = 0;
	uint32_t checksum = 0;
	if (!rc)
		rc = mp_plan_layout(buf, len, sec, 16, &nsec, &checksum, why,
				    sizeof(why));
	free(buf);
	if (rc) {
		mp_plan_free(&p);
		cmd_plan_hint(path, why, sizeof(why));
		cli_error("plan '%s': %s", path, why);
		return cli_exit_for(rc, 0);
	}
	if (nsec > 16)
		nsec = 16;
	const char **names = NULL;
	int status = tpath ? trace_names(&p, path, tpath, &names) : MP_EXIT_OK;
	if (status) {
		mp_plan_free(&p);
		return status;
	}
	if (csv)
		inspect_csv(&p);
	else if (json)
		inspect_json(path, &p, names, len, sec, nsec, checksum);
	else
		inspect_text(path, &p, names, len, sec, nsec, checksum);
	free(names);
	mp_plan_free(&p);
	return fflush(stdout) == 0 ? MP_EXIT_OK : MP_EXIT_OUTPUT;
}
