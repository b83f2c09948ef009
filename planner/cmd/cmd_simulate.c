/* SPDX-License-Identifier: MIT */
/*
 * cmd_simulate.c - memplan-plan simulate: replays a plan that verifies
 * against its trace on a link model (simulate.h) and prints the iteration
 * time, stalls, peak and the longest stalls, as text or JSON, with -o the
 * lanes and memory as SVG.  Only the summary goes to standard output.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "input.h"
#include "json.h"
#include "plan.h"
#include "planfile.h"
#include "simulate.h"
#include "stalls.h"

/* the stalls the table and JSON show */
#define SIM_TOP_STALLS 10

/* Nanoseconds as an exact integer (JSON sizes and times are never %g). */
static void json_ns(struct json *j, const char *key, double v)
{
	json_i64(j, key, (int64_t)llround(v));
}

/*
 * The first buffer a re-run made, where t is the trace of a program that
 * recomputes (memplan-plan advise --trace-out: its meta
 * recompute.first_buffer); t->nbuffers when it is not one.
 */
static size_t recomputed_first(const struct trace *t)
{
	const char *v = trace_get_meta(t, "recompute.first_buffer");
	char *end;
	if (!v)
		return t->nbuffers;
	unsigned long long n = strtoull(v, &end, 10);
	if (end == v || *end || n > t->nbuffers)
		return t->nbuffers;
	return (size_t)n;
}

static void simulate_json(const char *ppath, const char *tpath,
			  const struct trace *t, const struct mp_plan *plan,
			  const struct link_model *l, const char *source,
			  const struct sim_result *r, const char *const *names,
			  const uint64_t *clock, const size_t *top, size_t ntop)
{
	struct json j;
	json_init(&j, stdout);
	json_object(&j, NULL);
	json_string(&j, "plan", ppath);
	json_string(&j, "trace", tpath);
	json_string(&j, "link", l->name);
	json_string(&j, "link_source", source);
	if (plan->has_link)
		json_string(&j, "plan_link", plan->link);
	else
		json_null(&j, "plan_link");
	json_u64(&j, "pool", plan->pool_size);
	json_u64(&j, "swaps", plan->nswaps);
	json_ns(&j, "base_ns", r->base_ns);
	json_ns(&j, "iter_ns", r->iter_ns);
	json_double(&j, "overhead_percent", sim_overhead(r));
	json_ns(&j, "stall_ns", r->stall_ns);
	json_u64(&j, "stalls", r->nstalls);
	json_u64(&j, "peak", r->peak);
	json_u64(&j, "peak_noswap", r->base_peak);
	json_u64(&j, "d2h_bytes", r->d2h_bytes);
	json_u64(&j, "h2d_bytes", r->h2d_bytes);
	json_ns(&j, "d2h_busy_ns", r->link_busy_ns[LINK_D2H]);
	json_ns(&j, "h2d_busy_ns", r->link_busy_ns[LINK_H2D]);
	json_array(&j, "top_stalls");
	for (size_t i = 0; i < ntop; i++) {
		const struct sim_stall *s = &r->stalls[top[i]];
		struct stall_place p = stalls_place(t, plan, clock, s);
		json_object(&j, NULL);
		json_u64(&j, "event", s->event);
		json_u64(&j, "clock", p.clock);
		json_u64(&j, "swap", s->swap);
		if (p.request == UINT64_MAX)
			json_null(&j, "request");
		else
			json_u64(&j, "request", p.request);
		json_i64(&j, "buffer", p.buffer);
		if (s->swap < plan->nswaps)
			json_string(&j, "tensor", names[s->swap]);
		else
			json_null(&j, "tensor");
		json_string(&j, "waits_for", s->in ? "swap-in" : "swap-out");
		json_ns(&j, "at_ns", s->at);
		json_ns(&j, "ns", s->ns);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_array(&j, "swap_slack");
	for (uint32_t i = 0; i < r->nswaps; i++) {
		const struct sim_swap *w = &r->swaps[i];
		json_object(&j, NULL);
		json_u64(&j, "request", plan->swaps[i].request);
		json_string(&j, "tensor", names[i]);
		json_u64(&j, "bytes", plan->swaps[i].bytes);
		json_ns(&j, "d2h_start_ns", w->d2h_start);
		json_ns(&j, "d2h_end_ns", w->d2h_end);
		json_ns(&j, "h2d_start_ns", w->h2d_start);
		json_ns(&j, "h2d_end_ns", w->h2d_end);
		if (w->next_event < 0)
			json_null(&j, "slack_ns");
		else
			json_ns(&j, "slack_ns", w->slack);
		json_ns(&j, "stall_ns", w->stall);
		json_object_end(&j);
	}
	json_array_end(&j);
	/* the tensors the program makes again (a trace of advise --trace-out) */
	json_array(&j, "recomputed");
	char nm[CMD_NAME_LEN];
	for (size_t i = recomputed_first(t); i < t->nbuffers; i++) {
		json_object(&j, NULL);
		json_u64(&j, "buffer", t->buffers[i].id);
		json_string(&j, "tensor", cmd_buffer_name(t, t->buffers[i].id, nm, sizeof(nm)));
		json_u64(&j, "bytes", t->buffers[i].size);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

/*
 * The swapped tensors by name, the largest first: up to SIM_NAMED of them
 * on one line each, then how many more.
 */
#define SIM_NAMED 10
static void swapped_text(const struct mp_plan *plan, const char *const *names)
{
	uint32_t n = plan->nswaps, shown[SIM_NAMED], k = 0;
	char a[32];
	if (!n)
		return;
	printf("swapped tensors%s:\n", n > SIM_NAMED ? " (the 10 largest; --json lists every swap)" : "");
	/* selection by size, O(n * SIM_NAMED): names are for people, not all */
	for (; k < SIM_NAMED && k < n; k++) {
		uint32_t best = UINT32_MAX;
		for (uint32_t i = 0; i < n; i++) {
			int taken = 0;
			for (uint32_t q = 0; q < k; q++)
				taken |= shown[q] == i;
			if (!taken && (best == UINT32_MAX ||
				       plan->swaps[i].bytes > plan->swaps[best].bytes))
				best = i;
		}
		shown[k] = best;
		printf("  %-40s %12s  request %" PRIu64 "\n", names[best],
		       cli_format_size(plan->swaps[best].bytes, a, sizeof(a)),
		       plan->swaps[best].request);
	}
	if (n > k)
		printf("  and %" PRIu32 " more\n", n - k);
}

static void simulate_text(const char *ppath, const char *tpath,
			  const struct trace *t, const struct mp_plan *plan,
			  const struct link_model *l, const char *source,
			  const struct sim_result *r, const char *const *names,
			  const uint64_t *clock, const size_t *top, size_t ntop)
{
	char a[32], b[32], c[32];
	printf("%s on %s over %s (%s): %.3f ms vs %.3f ms without swaps, overhead %.2f%%\n",
	       ppath, tpath, l->name, source, r->iter_ns / 1e6,
	       r->base_ns / 1e6, sim_overhead(r));
	printf("swaps:  %" PRIu32 " (%s out, %s in)\n", plan->nswaps,
	       cli_format_size(r->d2h_bytes, a, sizeof(a)),
	       cli_format_size(r->h2d_bytes, b, sizeof(b)));
	printf("stall:  %.3f ms in %zu waits\n", r->stall_ns / 1e6, r->nstalls);
	printf("peak:   %s resident (%" PRIu64 "), %s without swaps, pool %s\n",
	       cli_format_size(r->peak, a, sizeof(a)), r->peak,
	       cli_format_size(r->base_peak, b, sizeof(b)),
	       cli_format_size(plan->pool_size, c, sizeof(c)));
	double least = INFINITY;
	for (uint32_t i = 0; i < r->nswaps; i++)
		if (r->swaps[i].next_event >= 0 && r->swaps[i].slack < least)
			least = r->swaps[i].slack;
	if (least != INFINITY)
		printf("slack:  least %.3f ms before a use\n", least / 1e6);
	if (plan->nswaps)
		printf("\n");
	swapped_text(plan, names);
	size_t first = recomputed_first(t);
	if (first < t->nbuffers) {
		char nm[CMD_NAME_LEN];
		printf("\nrecomputed tensors (made again by the program's re-runs):\n");
		for (size_t i = first; i < t->nbuffers; i++)
			printf("  %-40s %12s  buffer %zu\n",
			       cmd_buffer_name(t, t->buffers[i].id, nm, sizeof(nm)),
			       cli_format_size(t->buffers[i].size, a, sizeof(a)), i);
	}
	if (!ntop)
		return;
	printf("\nlongest stalls%s:\n  %8s %8s %8s %10s %9s %12s %10s  %s\n",
	       r->nstalls > ntop ? " (the 10 longest; --json adds every swap's slack)" : "",
	       "event", "clock", "request", "buffer", "for", "at ms", "ms", "tensor");
	for (size_t i = 0; i < ntop; i++) {
		const struct sim_stall *s = &r->stalls[top[i]];
		struct stall_place p = stalls_place(t, plan, clock, s);
		printf("  %8" PRIu32 " %8" PRIu64 " %8" PRIu64 " %10" PRId64
		       " %9s %12.3f %10.3f  %s\n",
		       s->event, p.clock, p.request, p.buffer,
		       s->in ? "swap-in" : "swap-out", s->at / 1e6, s->ns / 1e6,
		       s->swap < plan->nswaps ? names[s->swap] : "-");
	}
}

const char cmd_simulate_options[] =
	"  -l, --link MODEL[,KEY=VALUE...]  the link to simulate over (default: the\n"
	"                           link the plan records, else measured when the trace\n"
	"                           has bandwidths, else pcie5); overriding the plan's\n"
	"                           own link is said on stderr\n"
	"  -j, --json               print the result as one JSON object\n"
	"  -o, --output FILE.svg    also draw the lanes and memory as SVG\n"
	"  -h, --help               this text\n";

static int simulate_run(int argc, char **argv);

int cmd_simulate(int argc, char **argv)
{
	return cmd_run_json_errors(simulate_run, argc, argv);
}

static int simulate_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "link", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *link_s = NULL, *svg = NULL;
	int json = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "l:jo:h", opts, NULL)) != -1) {
		if (c == 'l')
			link_s = optarg;
		else if (c == 'j')
			json = 1;
		else if (c == 'o')
			svg = optarg;
		else
			return cli_option_error(c, "simulate");
	}
	if (optind != argc - 2)
		return cli_usage_error("simulate: expected PLAN and TRACE");
	if (svg && (!*svg || strcmp(svg, "-") == 0))
		return cli_usage_error("simulate: -o needs a file name for the SVG (the summary goes to standard output)");
	const char *ppath = argv[optind], *tpath = argv[optind + 1];
	if (svg && (cli_same_file(ppath, svg) || cli_same_file(tpath, svg)))
		return cli_usage_error("simulate: the SVG '%s' is an input: write it elsewhere",
				       svg);
	char err[ERRLEN];
	struct mp_plan plan;
	struct trace *t = NULL;
	struct sim_result r;
	struct link_model l;
	uint64_t *clock = NULL;
	const char **names = NULL;
	memset(&r, 0, sizeof(r));
	int rc = mp_plan_read_file(ppath, &plan, err, sizeof(err));
	if (rc) {
		cmd_plan_hint(ppath, err, sizeof(err));
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	int status = MP_EXIT_OK;
	rc = input_load(tpath, &t, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		status = cli_exit_for(rc, 0);
		goto done;
	}
	rc = planfile_verify(&plan, t, err, sizeof(err));
	if (rc) {
		if (rc == PLANFILE_EINVALID) {
			/* verify's wording and status (cmd_plan_fits) */
			cli_error("plan '%s' does not fit trace '%s': %s", ppath, tpath, err);
			status = MP_EXIT_LIMIT;
		} else {
			cli_error("%s", err);
			status = MP_EXIT_INTERNAL;
		}
		goto done;
	}
	const char *source;
	status = cmd_plan_link(link_s, &plan, t, &l, &source);
	if (status)
		goto done;
	rc = sim_run(t, &plan, &l, &r, err, sizeof(err));
	if (rc) {
		cli_error("cannot simulate plan '%s' on trace '%s': %s", ppath,
			  tpath, err);
		status = rc == TRACE_EINVAL ? MP_EXIT_INPUT : MP_EXIT_INTERNAL;
		goto done;
	}
	clock = stalls_clock(t);
	names = cmd_swap_names(t, &plan);
	if (!clock || !names) {
		cli_error("out of memory simulating trace '%s'", tpath);
		status = MP_EXIT_INTERNAL;
		goto done;
	}
	if (svg) {
		struct cli_out o;
		if (cli_out_open(&o, svg)) {
			status = MP_EXIT_OUTPUT;
			goto done;
		}
		/* the plan by its name and strategy, not a path from the root */
		char title[512];
		const char *base = strrchr(ppath, '/') ? strrchr(ppath, '/') + 1 : ppath;
		snprintf(title, sizeof(title), "%s (%s) over %s", base, plan.strategy,
			 l.name);
		int bad = sim_write_svg(o.f, &plan, &r, title, names);
		if (bad)
			cli_error("cannot write the SVG '%s'", svg);
		status = cli_out_close(&o, !bad);
		if (bad || status)
			goto done;
	}
	size_t top[SIM_TOP_STALLS];
	size_t ntop = stalls_longest(&r, top, SIM_TOP_STALLS);
	if (json)
		simulate_json(ppath, tpath, t, &plan, &l, source, &r, names, clock,
			      top, ntop);
	else
		simulate_text(ppath, tpath, t, &plan, &l, source, &r, names, clock,
			      top, ntop);
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
done:
	free(clock);
	free(names);
	sim_free(&r);
	trace_free(t);
	mp_plan_free(&plan);
	return status;
}
