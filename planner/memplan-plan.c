/* SPDX-License-Identifier: MIT */
/*
 * memplan-plan - compile a trace into a plan file, verify a plan against a
 * trace, show a plan, and compare placement strategies over many traces.
 * A thin layer over planner/ (solver.h, planfile.h) and runtime/plan.h:
 * parse options, call the libraries, print once.  Every plan is verified
 * independently before it is written, and written atomically.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "frontier.h"
#include "json.h"
#include "minimalloc_csv.h"
#include "plan.h"
#include "planfile.h"
#include "simulate.h"
#include "solver.h"
#include "swap.h"
#include "trace.h"
#include "tracedb.h"

#define ERRLEN 1024

/* A CSV field: quoted when it holds a comma, quote or line break. */
static void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
	fputc('"', f);
}

/*
 * A trace from an SQLite trace file or a MiniMalloc CSV, told apart by the
 * SQLite header.  Returns 0, or a trace_err with the sentence in err.
 */
static int load_input(const char *path, struct trace **t, char *err,
		      size_t errlen)
{
	char head[16] = { 0 };
	FILE *f = fopen(path, "rb");
	int sqlite = 1; /* unreadable: let trace_load say why */
	if (f) {
		size_t n = fread(head, 1, sizeof(head), f);
		fclose(f);
		sqlite = n == sizeof(head) &&
			 memcmp(head, "SQLite format 3", 16) == 0;
	}
	return sqlite ? trace_load(path, t, err, errlen)
		      : mmcsv_import(path, t, err, errlen);
}

static int solver_exit(int rc)
{
	switch (rc) {
	case SOLVER_ENOMEM:
		return MP_EXIT_INTERNAL;
	case SOLVER_EINVAL:
		return MP_EXIT_INPUT;
	case SOLVER_ENOTFOUND:
		return MP_EXIT_USAGE;
	default:
		return MP_EXIT_INTERNAL;
	}
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v > 0) || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* Raises every item's alignment to a multiple of align (a power of two). */
static int raise_align(struct solver_problem *p, uint64_t align, char *err,
		       size_t errlen)
{
	for (size_t i = 0; i < p->n; i++) {
		struct solver_item *it = &p->items[i];
		uint64_t g = gcd64(it->align, align);
		uint64_t m = it->align / g;
		if (m > (UINT64_C(1) << 62) / align)
			return trace_seterr(err, errlen, TRACE_EINVAL,
					    "buffer %lld: alignment %llu and --align %llu need more than 2^62",
					    (long long)it->buffer,
					    (unsigned long long)it->align,
					    (unsigned long long)align);
		it->align = m * align;
	}
	return 0;
}

static int valid_strategy(const char *name)
{
	return solver_name_about(name) != NULL;
}

/* The placement strategies' names, comma-separated; with heuristics_only,
 * those solver_strategy_find() knows (not the searches). */
static void list_strategies(char *buf, size_t len, int heuristics_only)
{
	buf[0] = '\0';
	for (size_t i = 0; solver_name_at(i); i++) {
		if (heuristics_only && !solver_strategy_find(solver_name_at(i)))
			continue;
		size_t at = strlen(buf);
		snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
			 solver_name_at(i));
	}
}

/* --- compile ---------------------------------------------------------------- */

struct progress {
	int shown;
};

/* The search's progress, on one stderr line rewritten in place. */
static void show_progress(void *ctx, const struct solver_progress *pr)
{
	struct progress *g = ctx;
	char best[32] = "none", gap[32] = "-";
	if (pr->best != UINT64_MAX) {
		snprintf(best, sizeof(best), "%" PRIu64, pr->best);
		if (pr->lower_bound)
			snprintf(gap, sizeof(gap), "%.2f%%",
				 100.0 * ((double)pr->best - (double)pr->lower_bound) /
					 (double)pr->lower_bound);
	}
	fprintf(stderr,
		"\r%s: best %s, lower bound %" PRIu64 ", gap %s, %" PRIu64
		" nodes, %.1f s\033[K",
		cli_progname, best, pr->lower_bound, gap, pr->nodes, pr->seconds);
	fflush(stderr);
	g->shown = 1;
}

static double gap_percent(uint64_t pool, uint64_t lb)
{
	return lb ? 100.0 * ((double)pool - (double)lb) / (double)lb : 0.0;
}

/* --- compile --budget, simulate, frontier: swaps ------------------------------ */

/* The link of --link, or the default: what the capture measured when the
 * trace has it, else PCIe 5.0. */
static int pick_link(const char *spec, const struct trace *t,
		     struct link_model *l, char *err, size_t errlen)
{
	if (!spec)
		spec = trace_get_meta(t, "bandwidth_h2d") &&
				       trace_get_meta(t, "bandwidth_d2h")
			       ? "measured"
			       : "pcie5";
	return link_parse(spec, t, l, err, errlen);
}

/* --budget SIZE or PCT (of the lower bound without swaps, 1 to 100). */
static int parse_budget(const char *s, uint64_t lb, uint64_t *out)
{
	size_t n = strlen(s);
	if (n > 1 && s[n - 1] == '%') {
		char buf[32];
		if (n - 1 >= sizeof(buf))
			return -1;
		memcpy(buf, s, n - 1);
		buf[n - 1] = '\0';
		char *end;
		double v = strtod(buf, &end);
		if (end == buf || *end || !(v > 0) || v > 100)
			return -1;
		*out = (uint64_t)((double)lb * v / 100.0);
		return 0;
	}
	return cli_parse_size(s, out);
}

/* A trace and its problem, alignment raised: 0 or an exit status. */
static int load_problem(const char *path, uint64_t align, struct trace **t,
			struct solver_problem *p)
{
	char err[ERRLEN];
	memset(p, 0, sizeof(*p));
	int rc = load_input(path, t, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	rc = solver_problem_from_trace(*t, p, err, sizeof(err));
	/* swap plans: the runtime empties only the swaps' holes */
	solver_problem_drop_holes(p);
	if (!rc && align > 1)
		rc = raise_align(p, align, err, sizeof(err));
	if (rc) {
		cli_error("trace '%s': %s", path, err);
		return solver_exit(rc);
	}
	if (p->n == 0) {
		cli_error("trace '%s' has no transient buffers to plan (everything outlives the iteration or passes through)",
			  path);
		return MP_EXIT_INPUT;
	}
	return 0;
}

static int swap_exit(int rc)
{
	if (rc == SWAP_ENOFIT)
		return MP_EXIT_LIMIT;
	if (rc == TRACE_EINVAL || rc == SOLVER_EINVAL)
		return MP_EXIT_INPUT;
	if (rc == SOLVER_ENOTFOUND)
		return MP_EXIT_USAGE;
	return MP_EXIT_INTERNAL;
}

static int compile_budget(const char *path, const char *out,
			  const char *budget_s, const char *link_s,
			  const char *swap_s, const char *placer,
			  uint64_t align, int json)
{
	struct trace *t = NULL;
	struct solver_problem p;
	int status = load_problem(path, align, &t, &p);
	char err[ERRLEN];
	struct link_model l;
	struct mp_plan plan;
	struct sim_result sim;
	struct swap_outcome oc;
	memset(&plan, 0, sizeof(plan));
	memset(&sim, 0, sizeof(sim));
	if (status)
		goto done;
	uint64_t lb = solver_lower_bound(&p), budget;
	if (parse_budget(budget_s, lb, &budget)) {
		status = cli_usage_error("compile: --budget '%s' is not a size or a percentage from 0 to 100%%",
					 budget_s);
		goto done;
	}
	if (pick_link(link_s, t, &l, err, sizeof(err))) {
		cli_error("%s", err);
		/* a bad spec is the command line's fault; a trace that
		 * measured nothing (or nonsense) is the input's */
		status = link_s && strncmp(link_s, "measured", 8) != 0
				 ? MP_EXIT_USAGE
				 : MP_EXIT_INPUT;
		goto done;
	}
	int rc = swap_plan(t, &p, &l, swap_s, budget, placer, align, &plan,
			   &sim, &oc, err, sizeof(err));
	if (rc) {
		cli_error("no plan fits --budget %" PRIu64 " bytes for trace '%s': %s",
			  budget, path, err);
		status = swap_exit(rc);
		goto done;
	}
	rc = mp_plan_write_file(out, &plan, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		status = rc == MP_PLAN_EIO ? MP_EXIT_OUTPUT : MP_EXIT_INTERNAL;
		goto done;
	}
	if (json) {
		printf("{\"plan\":");
		json_quote(stdout, out);
		printf(",\"trace\":");
		json_quote(stdout, path);
		printf(",\"budget\":%" PRIu64 ",\"pool\":%" PRIu64
		       ",\"lower_bound_noswap\":%" PRIu64 ",\"swaps\":%zu"
		       ",\"swapped_bytes\":%" PRIu64 ",\"host_staging\":%" PRIu64
		       ",\"link\":",
		       budget, plan.pool_size, oc.lb_noswap, oc.nops, oc.swapped,
		       plan.host_staging);
		json_quote(stdout, l.name);
		printf(",\"swap_strategy\":");
		json_quote(stdout, swap_s);
		printf(",\"placement\":");
		json_quote(stdout, placer);
		printf(",\"base_ns\":%.0f,\"iter_ns\":%.0f,\"stall_ns\":%.0f"
		       ",\"overhead_percent\":%.4f,\"peak\":%" PRIu64
		       ",\"attempts\":%u,\"seconds\":%.3f}\n",
		       sim.base_ns, sim.iter_ns, sim.stall_ns, sim_overhead(&sim),
		       sim.peak, oc.attempts, oc.choose_s + oc.place_s);
	} else {
		char a[32], b[32], c2[32], d[32];
		printf("%s: pool %s (%" PRIu64 ") for budget %s, %.1f%% below the lower bound %s; "
		       "%zu swaps (%s), %s over %s: %.3f ms vs %.3f ms, overhead %.2f%%, stall %.3f ms\n",
		       out, cli_format_size(plan.pool_size, a, sizeof(a)),
		       plan.pool_size, cli_format_size(budget, b, sizeof(b)),
		       oc.lb_noswap ? 100.0 * (1.0 - (double)plan.pool_size / (double)oc.lb_noswap) : 0.0,
		       cli_format_size(oc.lb_noswap, c2, sizeof(c2)), oc.nops,
		       cli_format_size(oc.swapped, d, sizeof(d)), swap_s, l.name,
		       sim.iter_ns / 1e6, sim.base_ns / 1e6, sim_overhead(&sim),
		       sim.stall_ns / 1e6);
	}
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
done:
	sim_free(&sim);
	mp_plan_free(&plan);
	solver_problem_free(&p);
	trace_free(t);
	return status;
}

static int cmd_compile(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "strategy", required_argument, NULL, 's' },
		{ "time-limit", required_argument, NULL, 't' },
		{ "align", required_argument, NULL, 'a' },
		{ "max-pool", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "budget", required_argument, NULL, 'b' },
		{ "link", required_argument, NULL, 'l' },
		{ "swap-strategy", required_argument, NULL, 'w' },
		{ "trust-holes", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int trust_holes = 0;
	const char *out = NULL, *strategy = "auto";
	const char *budget_s = NULL, *link_s = NULL, *swap_s = "memplan";
	int have_strategy = 0;
	double limit = SOLVER_DEFAULT_TIME_LIMIT;
	uint64_t align = 1, max_pool = 0;
	int json = 0, c, have_max = 0;
	char names[256];
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:s:t:a:m:jb:l:w:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 's':
			strategy = optarg;
			have_strategy = 1;
			break;
		case 'b':
			budget_s = optarg;
			break;
		case 'l':
			link_s = optarg;
			break;
		case 'w':
			if (!swap_strategy_find(optarg))
				return cli_usage_error("compile: unknown --swap-strategy '%s' (known: memplan, singa, vdnn)",
						       optarg);
			swap_s = optarg;
			break;
		case 't':
			if (parse_seconds(optarg, &limit))
				return cli_usage_error("compile: --time-limit '%s' is not a number of seconds above 0",
						       optarg);
			break;
		case 'a':
			if (cli_parse_size(optarg, &align) || align == 0 ||
			    (align & (align - 1)) || align > (UINT64_C(1) << 30))
				return cli_usage_error("compile: --align '%s' is not a power of two from 1 to 1 GiB",
						       optarg);
			break;
		case 'm':
			if (cli_parse_size(optarg, &max_pool))
				return cli_usage_error("compile: --max-pool '%s' is not a size",
						       optarg);
			have_max = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'T':
			trust_holes = 1;
			break;
		default:
			return cli_option_error(c, "compile");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("compile: expected one TRACE");
	if (!out)
		return cli_usage_error("compile: -o PLAN is required");
	if (!valid_strategy(strategy)) {
		list_strategies(names, sizeof(names), 0);
		return cli_usage_error("compile: unknown strategy '%s' (known: %s)",
				       strategy, names);
	}
	if (budget_s && have_max)
		return cli_usage_error("compile: --budget and --max-pool exclude each other");
	if (!budget_s && link_s)
		return cli_usage_error("compile: --link needs --budget");
	if (budget_s && trust_holes)
		return cli_usage_error("compile: --trust-holes and --budget exclude each other");
	const char *path = argv[optind];
	if (budget_s)
		return compile_budget(path, out, budget_s, link_s, swap_s,
				      have_strategy ? strategy : "best-fit",
				      align, json);
	char err[ERRLEN];
	struct trace *t = NULL;
	int rc = load_input(path, &t, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	struct solver_problem p;
	uint64_t *off = NULL;
	struct mp_plan plan;
	memset(&plan, 0, sizeof(plan));
	int status = MP_EXIT_OK;
	rc = solver_problem_from_trace(t, &p, err, sizeof(err));
	if (rc) {
		cli_error("trace '%s': %s", path, err);
		status = solver_exit(rc);
		goto done;
	}
	/* the runtime moves no bytes for a trace's holes: resident unless the
	 * user says something else moves them (the plan then says so too) */
	if (!trust_holes)
		solver_problem_drop_holes(&p);
	if (p.n == 0) {
		cli_error("trace '%s' has no transient buffers to plan (everything outlives the iteration or passes through)",
			  path);
		status = MP_EXIT_INPUT;
		goto done;
	}
	if (align > 1 && (rc = raise_align(&p, align, err, sizeof(err))) != 0) {
		cli_error("%s", err);
		status = MP_EXIT_INPUT;
		goto done;
	}
	uint64_t lb = solver_lower_bound(&p);
	if (have_max && lb > max_pool) {
		cli_error("no plan fits --max-pool %" PRIu64 ": the lower bound of trace '%s' is %" PRIu64
			  " bytes, %" PRIu64 " more",
			  max_pool, path, lb, lb - max_pool);
		status = MP_EXIT_LIMIT;
		goto done;
	}
	off = malloc(p.n * sizeof(*off));
	if (!off) {
		cli_error("out of memory planning %zu buffers", p.n);
		status = MP_EXIT_INTERNAL;
		goto done;
	}
	struct progress g = { 0 };
	struct solver_options so = { .time_limit = limit };
	if (isatty(2)) {
		so.progress = show_progress;
		so.progress_ctx = &g;
	}
	struct solver_report r;
	rc = solver_solve(&p, strategy, &so, off, &r, err, sizeof(err));
	if (g.shown)
		fprintf(stderr, "\r\033[K");
	if (rc) {
		cli_error("%s", err);
		status = solver_exit(rc);
		goto done;
	}
	if (have_max && r.height > max_pool) {
		cli_error("the %s plan needs a pool of %" PRIu64 " bytes, %" PRIu64
			  " more than --max-pool %" PRIu64 " (%.2f%%)%s",
			  strategy, r.height, r.height - max_pool, max_pool,
			  gap_percent(r.height, max_pool),
			  r.optimal ? "; it is optimal, so no plan fits"
				    : "; a longer --time-limit may find a smaller one");
		status = MP_EXIT_LIMIT;
		goto done;
	}
	char stored[MP_PLAN_STRATEGY_LEN];
	if (r.winner && strcmp(r.winner, strategy) != 0)
		snprintf(stored, sizeof(stored), "%s/%s", strategy, r.winner);
	else
		snprintf(stored, sizeof(stored), "%s", strategy);
	struct planfile_info info = { align, stored, r.optimal, trust_holes };
	rc = planfile_build(t, &p, off, &info, &plan, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		status = rc == TRACE_ENOMEM ? MP_EXIT_INTERNAL : MP_EXIT_INPUT;
		goto done;
	}
	rc = planfile_verify(&plan, t, err, sizeof(err));
	if (rc) {
		cli_error("internal error: the plan does not verify against trace '%s': %s",
			  path, err);
		status = MP_EXIT_INTERNAL;
		goto done;
	}
	rc = mp_plan_write_file(out, &plan, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		status = rc == MP_PLAN_EIO ? MP_EXIT_OUTPUT : MP_EXIT_INTERNAL;
		goto done;
	}
	double gap = gap_percent(plan.pool_size, plan.lower_bound);
	const char *winner = r.winner ? r.winner : strategy;
	if (json) {
		printf("{\"plan\":");
		json_quote(stdout, out);
		printf(",\"trace\":");
		json_quote(stdout, path);
		printf(",\"buffers\":%zu,\"requests\":%" PRIu32
		       ",\"lower_bound\":%" PRIu64 ",\"pool\":%" PRIu64
		       ",\"gap_percent\":%.4f,\"optimal\":%s,\"proven_lower_bound\":%" PRIu64
		       ",\"strategy\":",
		       p.n, plan.nallocs, plan.lower_bound, plan.pool_size, gap,
		       r.optimal ? "true" : "false", r.lower_bound);
		json_quote(stdout, strategy);
		printf(",\"winner\":");
		json_quote(stdout, winner);
		printf(",\"timed_out\":%s,\"nodes\":%" PRIu64
		       ",\"seconds\":%.3f,\"align\":%" PRIu64
		       ",\"fingerprint\":\"0x%016" PRIx64 "\"}\n",
		       r.timed_out ? "true" : "false", r.nodes, r.seconds, align,
		       plan.fingerprint);
	} else {
		char a[32], b[32];
		printf("%s: %zu buffers, lower bound %s (%" PRIu64 "), pool %s (%" PRIu64
		       "), gap %.2f%%, %s, %s",
		       out, p.n, cli_format_size(plan.lower_bound, a, sizeof(a)),
		       plan.lower_bound, cli_format_size(plan.pool_size, b, sizeof(b)),
		       plan.pool_size, gap,
		       r.optimal ? "proven optimal"
				 : r.timed_out ? "not proven optimal (time limit)"
					       : "not proven optimal",
		       strategy);
		if (strcmp(winner, strategy) != 0)
			printf(" (winner %s)", winner);
		printf(", %.2f s\n", r.seconds);
	}
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
done:
	mp_plan_free(&plan);
	free(off);
	solver_problem_free(&p);
	trace_free(t);
	return status;
}

/* --- verify ----------------------------------------------------------------- */

static int cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' },
					      { 0 } };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		return cli_option_error(c, "verify");
	if (optind != argc - 2)
		return cli_usage_error("verify: expected PLAN and TRACE");
	const char *ppath = argv[optind], *tpath = argv[optind + 1];
	char err[ERRLEN];
	struct mp_plan plan;
	int rc = mp_plan_read_file(ppath, &plan, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	struct trace *t;
	rc = load_input(tpath, &t, err, sizeof(err));
	if (rc) {
		mp_plan_free(&plan);
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	rc = planfile_verify(&plan, t, err, sizeof(err));
	int status = MP_EXIT_OK;
	if (rc == PLANFILE_EINVALID) {
		cli_error("plan '%s' does not fit trace '%s': %s", ppath, tpath, err);
		status = MP_EXIT_LIMIT;
	} else if (rc) {
		cli_error("%s", err);
		status = MP_EXIT_INTERNAL;
	} else {
		uint32_t planned = 0;
		for (uint32_t i = 0; i < plan.nallocs; i++)
			planned += plan.allocs[i].offset != MP_PLAN_PASS_THROUGH;
		printf("%s: valid for %s: %" PRIu32 " requests (%" PRIu32
		       " planned), pool %" PRIu64 " bytes, lower bound %" PRIu64
		       ", %" PRIu32 " swaps\n",
		       ppath, tpath, plan.nallocs, planned, plan.pool_size,
		       plan.lower_bound, plan.nswaps);
		if (fflush(stdout) != 0)
			status = MP_EXIT_OUTPUT;
	}
	mp_plan_free(&plan);
	trace_free(t);
	return status;
}

/* --- simulate ---------------------------------------------------------------- */

#define SIM_TOP_STALLS 10

static int stall_cmp(const void *a, const void *b, const struct sim_stall *s)
{
	double x = s[*(const size_t *)a].ns, y = s[*(const size_t *)b].ns;
	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * The indices of the (at most SIM_TOP_STALLS) longest stalls, longest
 * first, into top; returns how many.
 */
static size_t top_stalls(const struct sim_result *r, size_t *top)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nstalls; i++) {
		size_t at = n < SIM_TOP_STALLS ? n++ : SIM_TOP_STALLS;
		if (at == SIM_TOP_STALLS) {
			if (!(r->stalls[i].ns > r->stalls[top[n - 1]].ns))
				continue;
			at = n - 1;
		}
		top[at] = i;
		/* insertion: keep top sorted, longest first */
		while (at > 0 && stall_cmp(&top[at - 1], &top[at], r->stalls) > 0) {
			size_t x = top[at];
			top[at] = top[at - 1];
			top[at - 1] = x;
			at--;
		}
	}
	return n;
}

/* Where a stall is: its event's position on the allocator clock (the
 * allocation and free calls before it), its swap's request and buffer. */
struct stall_place {
	uint64_t clock, request;
	int64_t buffer;
};

static struct stall_place stall_place(const struct trace *t,
				      const struct mp_plan *plan,
				      const uint64_t *clock,
				      const struct sim_stall *s)
{
	struct stall_place p = { 0, UINT64_MAX, -1 };
	if (s->event < t->nevents)
		p.clock = clock[s->event];
	if (s->swap < plan->nswaps) {
		p.request = plan->swaps[s->swap].request;
		if (p.request < plan->nallocs)
			p.buffer = (int64_t)plan->allocs[p.request].buffer;
	}
	return p;
}

/* Nanoseconds as an exact integer (JSON sizes and times are never %g). */
static void json_ns(struct json *j, const char *key, double v)
{
	json_i64(j, key, (int64_t)llround(v));
}

static void simulate_json(const char *ppath, const char *tpath,
			  const struct trace *t, const struct mp_plan *plan,
			  const struct link_model *l, const struct sim_result *r,
			  const uint64_t *clock, const size_t *top, size_t ntop)
{
	struct json j;
	json_init(&j, stdout);
	json_object(&j, NULL);
	json_string(&j, "plan", ppath);
	json_string(&j, "trace", tpath);
	json_string(&j, "link", l->name);
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
		struct stall_place p = stall_place(t, plan, clock, s);
		json_object(&j, NULL);
		json_u64(&j, "event", s->event);
		json_u64(&j, "clock", p.clock);
		json_u64(&j, "swap", s->swap);
		if (p.request == UINT64_MAX)
			json_null(&j, "request");
		else
			json_u64(&j, "request", p.request);
		json_i64(&j, "buffer", p.buffer);
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
	json_object_end(&j);
	json_finish(&j);
}

static void simulate_text(const char *ppath, const char *tpath,
			  const struct trace *t, const struct mp_plan *plan,
			  const struct link_model *l, const struct sim_result *r,
			  const uint64_t *clock, const size_t *top, size_t ntop)
{
	char a[32], b[32], c[32];
	printf("%s on %s over %s: %.3f ms vs %.3f ms without swaps, overhead %.2f%%\n",
	       ppath, tpath, l->name, r->iter_ns / 1e6, r->base_ns / 1e6,
	       sim_overhead(r));
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
	if (!ntop)
		return;
	printf("\nlongest stalls%s:\n  %8s %8s %8s %10s %9s %12s %10s\n",
	       r->nstalls > ntop ? " (the 10 longest; --json adds every swap's slack)" : "",
	       "event", "clock", "request", "buffer", "for", "at ms", "ms");
	for (size_t i = 0; i < ntop; i++) {
		const struct sim_stall *s = &r->stalls[top[i]];
		struct stall_place p = stall_place(t, plan, clock, s);
		printf("  %8" PRIu32 " %8" PRIu64 " %8" PRIu64 " %10" PRId64
		       " %9s %12.3f %10.3f\n",
		       s->event, p.clock, p.request, p.buffer,
		       s->in ? "swap-in" : "swap-out", s->at / 1e6, s->ns / 1e6);
	}
}

static int cmd_simulate(int argc, char **argv)
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
	char err[ERRLEN];
	struct mp_plan plan;
	struct trace *t = NULL;
	struct sim_result r;
	struct link_model l;
	uint64_t *clock = NULL;
	memset(&r, 0, sizeof(r));
	int rc = mp_plan_read_file(ppath, &plan, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	int status = MP_EXIT_OK;
	rc = load_input(tpath, &t, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		status = cli_exit_for(rc, 0);
		goto done;
	}
	rc = planfile_verify(&plan, t, err, sizeof(err));
	if (rc) {
		if (rc == PLANFILE_EINVALID) {
			cli_error("plan '%s' does not belong to trace '%s': %s",
				  ppath, tpath, err);
			status = MP_EXIT_INPUT;
		} else {
			cli_error("%s", err);
			status = MP_EXIT_INTERNAL;
		}
		goto done;
	}
	if (pick_link(link_s, t, &l, err, sizeof(err))) {
		cli_error("%s", err);
		status = link_s && strncmp(link_s, "measured", 8) != 0
				 ? MP_EXIT_USAGE
				 : MP_EXIT_INPUT;
		goto done;
	}
	rc = sim_run(t, &plan, &l, &r, err, sizeof(err));
	if (rc) {
		cli_error("cannot simulate plan '%s' on trace '%s': %s", ppath,
			  tpath, err);
		status = rc == TRACE_EINVAL ? MP_EXIT_INPUT : MP_EXIT_INTERNAL;
		goto done;
	}
	clock = malloc((t->nevents ? t->nevents : 1) * sizeof(*clock));
	if (!clock) {
		cli_error("out of memory simulating trace '%s'", tpath);
		status = MP_EXIT_INTERNAL;
		goto done;
	}
	uint64_t k = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		clock[i] = k;
		k += t->events[i].type == TRACE_EV_ALLOC ||
		     t->events[i].type == TRACE_EV_FREE;
	}
	if (svg) {
		struct cli_out o;
		if (cli_out_open(&o, svg)) {
			status = MP_EXIT_OUTPUT;
			goto done;
		}
		char title[512];
		snprintf(title, sizeof(title), "%s on %s over %s", ppath, tpath,
			 l.name);
		int bad = sim_write_svg(o.f, &plan, &r, title);
		if (bad)
			cli_error("cannot write the SVG '%s'", svg);
		status = cli_out_close(&o, !bad);
		if (bad || status)
			goto done;
	}
	size_t top[SIM_TOP_STALLS];
	size_t ntop = top_stalls(&r, top);
	if (json)
		simulate_json(ppath, tpath, t, &plan, &l, &r, clock, top, ntop);
	else
		simulate_text(ppath, tpath, t, &plan, &l, &r, clock, top, ntop);
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
done:
	free(clock);
	sim_free(&r);
	trace_free(t);
	mp_plan_free(&plan);
	return status;
}

/* --- frontier ----------------------------------------------------------------- */

/* A percentage, with or without its '%': 0 and *out when 0 < v <= 100
 * (or v == 0 when zero_ok), else -1. */
static int parse_percent(const char *s, int zero_ok, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || (*end && strcmp(end, "%") != 0) || !isfinite(v) ||
	    v > 100 || v < 0 || (v == 0 && !zero_ok))
		return -1;
	*out = v;
	return 0;
}

/* pool as a percentage of the lower bound without swaps */
static double pct_of(uint64_t pool, uint64_t lb)
{
	return lb ? 100.0 * (double)pool / (double)lb : 0.0;
}

struct frontier_show {
	int quiet;
};

/* One stderr line per budget: what each strategy predicts there. */
static void frontier_progress(void *ctx, const struct frontier *f, size_t i)
{
	const struct frontier_show *sh = ctx;
	if (sh->quiet)
		return;
	const struct frontier_row *r = &f->rows[i];
	char a[32];
	double secs = 0;
	fprintf(stderr, "%s: frontier: budget %.4g%% (%s):", cli_progname,
		r->percent, cli_format_size(r->budget, a, sizeof(a)));
	for (size_t s = 0; s < f->nstrategies; s++) {
		const struct frontier_cell *c = &r->cells[s];
		if (c->fits)
			fprintf(stderr, " %s %.2f%%", f->strategies[s], c->overhead);
		else
			fprintf(stderr, " %s no fit", f->strategies[s]);
		secs += c->seconds;
	}
	fprintf(stderr, " [%.2f s]\n", secs);
}

static void frontier_csv(const struct frontier *f)
{
	printf("budget_percent,budget,strategy,fits,pool,pool_percent,overhead_percent,"
	       "iter_ns,stall_ns,swaps,swapped_bytes,seconds,cpu_seconds\n");
	for (size_t i = 0; i < f->nrows; i++) {
		const struct frontier_row *r = &f->rows[i];
		for (size_t s = 0; s < f->nstrategies; s++) {
			const struct frontier_cell *c = &r->cells[s];
			printf("%.4g,%" PRIu64 ",%s,%d,", r->percent, r->budget,
			       f->strategies[s], c->fits);
			if (c->fits)
				printf("%" PRIu64 ",%.4f,%.4f,%.0f,%.0f,%zu,%" PRIu64,
				       c->pool, pct_of(c->pool, f->lb_noswap),
				       c->overhead, c->iter_ns, c->stall_ns,
				       c->nswaps, c->swapped);
			else
				printf(",,,,,,");
			printf(",%.4f,%.4f\n", c->seconds, c->cpu_seconds);
		}
	}
}

/* A pool, or null, as JSON. */
static void json_pool(uint64_t pool)
{
	if (pool)
		printf("%" PRIu64, pool);
	else
		printf("null");
}

static void frontier_json(const char *path, const char *placer,
			  const struct frontier *f, double step)
{
	printf("{\"trace\":");
	json_quote(stdout, path);
	printf(",\"link\":");
	json_quote(stdout, f->link.name);
	printf(",\"placement\":");
	json_quote(stdout, placer);
	printf(",\"lower_bound_noswap\":%" PRIu64 ",\"base_ns\":%.0f"
	       ",\"step_percent\":%.4g,\"seconds\":%.3f,\"strategies\":[",
	       f->lb_noswap, f->base_ns, step, f->seconds);
	for (size_t s = 0; s < f->nstrategies; s++) {
		printf(s ? "," : "");
		json_quote(stdout, f->strategies[s]);
	}
	printf("],\"results\":[");
	for (size_t i = 0; i < f->nrows; i++) {
		const struct frontier_row *r = &f->rows[i];
		for (size_t s = 0; s < f->nstrategies; s++) {
			const struct frontier_cell *c = &r->cells[s];
			printf("%s{\"budget_percent\":%.4g,\"budget\":%" PRIu64
			       ",\"strategy\":\"%s\",\"fits\":%s",
			       i || s ? "," : "", r->percent, r->budget,
			       f->strategies[s], c->fits ? "true" : "false");
			if (c->fits)
				printf(",\"pool\":%" PRIu64 ",\"overhead_percent\":%.4f"
				       ",\"iter_ns\":%.0f,\"stall_ns\":%.0f,\"swaps\":%zu"
				       ",\"swapped_bytes\":%" PRIu64,
				       c->pool, c->overhead, c->iter_ns, c->stall_ns,
				       c->nswaps, c->swapped);
			else
				printf(",\"pool\":null,\"overhead_percent\":null"
				       ",\"iter_ns\":null,\"stall_ns\":null,\"swaps\":null"
				       ",\"swapped_bytes\":null");
			printf(",\"seconds\":%.4f,\"cpu_seconds\":%.4f}", c->seconds,
			       c->cpu_seconds);
		}
	}
	printf("],\"summary\":[");
	for (size_t s = 0; s < f->nstrategies; s++) {
		printf("%s{\"strategy\":\"%s\",\"pool_overhead_1\":", s ? "," : "",
		       f->strategies[s]);
		json_pool(frontier_smallest(f, s, 1.0, NULL));
		printf(",\"pool_overhead_2\":");
		json_pool(frontier_smallest(f, s, 2.0, NULL));
		printf(",\"smallest_pool\":");
		json_pool(frontier_smallest(f, s, INFINITY, NULL));
		printf("}");
	}
	printf("],\"memplan_dominates\":");
	int m = frontier_strategy_index(f, "memplan");
	size_t compared, lost, first = 0;
	if (m < 0 || f->nstrategies < 2) {
		printf("null");
	} else {
		int dom = frontier_dominates(f, (size_t)m, &compared, &lost, &first);
		printf("{\"dominated\":%s,\"budgets_compared\":%zu,\"budgets_not_dominated\":%zu}",
		       dom ? "true" : "false", compared, lost);
	}
	printf("}\n");
}

/* One column of the summary: the smallest pool within lim percent of
 * overhead, and its percentage of the lower bound; "-" when none. */
static void frontier_best_text(const struct frontier *f, size_t s, double lim)
{
	char a[32], b[16] = "";
	uint64_t pool = frontier_smallest(f, s, lim, NULL);
	if (pool)
		snprintf(b, sizeof(b), "%.1f%%", pct_of(pool, f->lb_noswap));
	printf("  %11s %6s", pool ? cli_format_size(pool, a, sizeof(a)) : "-", b);
}

static void frontier_text(const char *path, const char *placer,
			  const struct frontier *f)
{
	char a[32];
	printf("swap frontier of %s over %s (placement %s): lower bound without swaps %s (%" PRIu64
	       "), iteration %.3f ms\n",
	       path, f->link.name, placer,
	       cli_format_size(f->lb_noswap, a, sizeof(a)), f->lb_noswap,
	       f->base_ns / 1e6);
	printf("%8s %11s", "budget", "bytes");
	for (size_t s = 0; s < f->nstrategies; s++)
		printf(" %10s", f->strategies[s]);
	printf("\n");
	for (size_t i = 0; i < f->nrows; i++) {
		const struct frontier_row *r = &f->rows[i];
		printf("%7.4g%% %11s", r->percent,
		       cli_format_size(r->budget, a, sizeof(a)));
		for (size_t s = 0; s < f->nstrategies; s++) {
			const struct frontier_cell *c = &r->cells[s];
			if (c->fits)
				printf(" %9.2f%%", c->overhead);
			else
				printf(" %10s", "-");
		}
		printf("\n");
	}
	printf("(predicted overhead of the iteration, percent; -: no plan fits the budget)\n");
	printf("\n%-10s  %18s  %18s  %18s\n", "smallest", "overhead <= 1%",
	       "overhead <= 2%", "any overhead");
	for (size_t s = 0; s < f->nstrategies; s++) {
		size_t row = 0;
		printf("%-10s", f->strategies[s]);
		frontier_best_text(f, s, 1.0);
		frontier_best_text(f, s, 2.0);
		frontier_best_text(f, s, INFINITY);
		if (frontier_smallest(f, s, INFINITY, &row))
			printf(" at %.2f%%", f->rows[row].cells[s].overhead);
		printf("\n");
	}
	printf("(smallest pool and its percentage of the lower bound, within a predicted overhead)\n");
	int m = frontier_strategy_index(f, "memplan");
	if (m >= 0 && f->nstrategies > 1) {
		size_t compared, lost, first = 0;
		if (frontier_dominates(f, (size_t)m, &compared, &lost, &first))
			printf("memplan dominated: no more overhead than any other strategy that fits, at all %zu budgets where one does\n",
			       compared);
		else
			printf("memplan did not dominate at %zu of %zu budgets where another strategy fits (first at %.4g%%)\n",
			       lost, compared, f->rows[first].percent);
	}
}

static int cmd_frontier(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "link", required_argument, NULL, 'l' },
		{ "strategies", required_argument, NULL, 's' },
		{ "steps", required_argument, NULL, 'n' },
		{ "step", required_argument, NULL, 'p' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "placer", required_argument, NULL, 'P' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *link_s = NULL, *list = NULL, *placer = "best-fit", *svg = NULL;
	double from = 100, step = 5, to = 0;
	uint64_t steps = 0;
	int have_step = 0, csv = 0, json = 0, c;
	struct frontier_show sh = { 0 };
	char names[256];
	optind = 1;
	while ((c = getopt_long(argc, argv, "l:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			link_s = optarg;
			break;
		case 's':
			list = optarg;
			break;
		case 'n':
			if (cli_parse_u64(optarg, &steps) || steps == 0 || steps > 1000)
				return cli_usage_error("frontier: --steps '%s' is not a number of budgets from 1 to 1000",
						       optarg);
			break;
		case 'p':
			if (parse_percent(optarg, 0, &step) || step < 0.1)
				return cli_usage_error("frontier: --step '%s' is not a percentage from 0.1 to 100",
						       optarg);
			have_step = 1;
			break;
		case 'f':
			if (parse_percent(optarg, 0, &from))
				return cli_usage_error("frontier: --from '%s' is not a percentage above 0 and at most 100",
						       optarg);
			break;
		case 't':
			if (parse_percent(optarg, 1, &to) || to >= 100)
				return cli_usage_error("frontier: --to '%s' is not a percentage from 0 to below 100",
						       optarg);
			break;
		case 'P':
			placer = optarg;
			break;
		case 'c':
			csv = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'o':
			svg = optarg;
			break;
		case 'q':
			sh.quiet = 1;
			break;
		default:
			return cli_option_error(c, "frontier");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("frontier: expected one TRACE");
	if (csv && json)
		return cli_usage_error("frontier: --csv and --json exclude each other");
	if (steps && have_step)
		return cli_usage_error("frontier: --steps and --step exclude each other");
	if (to >= from)
		return cli_usage_error("frontier: --to %g%% is not below --from %g%%",
				       to, from);
	if (steps)
		step = (from - to) / (double)steps;
	if (svg && (!*svg || strcmp(svg, "-") == 0))
		return cli_usage_error("frontier: -o needs a file name for the SVG (the table goes to standard output)");
	if (!valid_strategy(placer) || !solver_strategy_find(placer)) {
		/* the searches would spend their time limit at every budget */
		list_strategies(names, sizeof(names), 1);
		return cli_usage_error("frontier: unknown --placer '%s' (known: %s)",
				       placer, names);
	}
	/* --strategies: names from the swap strategy table, no repeats */
	const char *chosen[8];
	size_t nchosen = 0;
	char *copy = NULL;
	if (list) {
		copy = strdup(list);
		if (!copy)
			return cli_error("out of memory"), MP_EXIT_INTERNAL;
		char *save = NULL;
		for (char *s = strtok_r(copy, ",", &save); s;
		     s = strtok_r(NULL, ",", &save)) {
			int dup = 0;
			for (size_t k = 0; k < nchosen; k++)
				dup |= strcmp(chosen[k], s) == 0;
			if (!swap_strategy_find(s) || dup || nchosen == 8) {
				int st = cli_usage_error(dup ? "frontier: --strategies names '%s' twice"
							     : "frontier: unknown swap strategy '%s' in --strategies (known: memplan, singa, vdnn)",
							 s);
				free(copy);
				return st;
			}
			chosen[nchosen++] = s;
		}
		if (nchosen == 0) {
			free(copy);
			return cli_usage_error("frontier: --strategies lists no strategy");
		}
	}
	const char *path = argv[optind];
	struct trace *t = NULL;
	struct solver_problem p;
	struct frontier f;
	struct link_model l;
	char err[ERRLEN];
	memset(&f, 0, sizeof(f));
	int status = load_problem(path, 1, &t, &p);
	if (status)
		goto done;
	if (pick_link(link_s, t, &l, err, sizeof(err))) {
		cli_error("%s", err);
		status = link_s && strncmp(link_s, "measured", 8) != 0
				 ? MP_EXIT_USAGE
				 : MP_EXIT_INPUT;
		goto done;
	}
	struct frontier_options o = {
		.strategies = list ? chosen : NULL,
		.nstrategies = nchosen,
		.from = from,
		.step = step,
		.to = to,
		.placer = placer,
		.align = 1,
		.progress = frontier_progress,
		.progress_ctx = &sh,
	};
	int rc = frontier_sweep(t, &p, &l, &o, &f, err, sizeof(err));
	if (rc) {
		cli_error("cannot sweep the swap frontier of trace '%s': %s", path, err);
		status = swap_exit(rc);
		goto done;
	}
	if (svg) {
		struct cli_out out;
		if (cli_out_open(&out, svg)) {
			status = MP_EXIT_OUTPUT;
			goto done;
		}
		char title[512];
		snprintf(title, sizeof(title), "%s over %s", path, l.name);
		int bad = frontier_write_svg(out.f, &f, title);
		if (bad)
			cli_error("cannot write the SVG '%s'", svg);
		status = cli_out_close(&out, !bad);
		if (bad || status)
			goto done;
	}
	if (csv)
		frontier_csv(&f);
	else if (json)
		frontier_json(path, placer, &f, step);
	else
		frontier_text(path, placer, &f);
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
done:
	frontier_free(&f);
	solver_problem_free(&p);
	trace_free(t);
	free(copy);
	return status;
}

/* --- inspect ---------------------------------------------------------------- */

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

static void inspect_text(const char *path, const struct mp_plan *p, size_t len,
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
	       gap_percent(p->pool_size, p->lower_bound));
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
	printf("\nallocations%s:\n  %8s %14s %14s %8s %8s %8s\n",
	       p->nallocs > INSPECT_ROWS ? " (first 10; --csv or --json for all)" : "",
	       "request", "size", "offset", "buffer", "lower", "upper");
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
		       " %8s\n",
		       i, e->size, off, e->buffer, e->lower, up);
	}
	if (p->nswaps) {
		printf("\nswaps%s:\n  %8s %8s %8s %12s %12s %12s",
		       p->nswaps > INSPECT_ROWS ? " (first 10)" : "", "request",
		       "out_at", "in_at", "src_offset", "bytes", "staging");
		if (p->has_timing)
			printf(" %13s %13s %12s", "d2h_slack_ns", "h2d_slack_ns",
			       "stall_ns");
		printf("\n");
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

static void inspect_json(const char *path, const struct mp_plan *p, size_t len,
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
	printf("},\"allocs\":[");
	for (uint32_t i = 0; i < p->nallocs; i++) {
		const struct mp_plan_alloc *e = &p->allocs[i];
		printf("%s{\"size\":%" PRIu64 ",\"offset\":", i ? "," : "", e->size);
		print_u64_or(stdout, e->offset, MP_PLAN_PASS_THROUGH, "null");
		printf(",\"buffer\":%" PRIu64 ",\"lower\":%" PRIu64 ",\"upper\":",
		       e->buffer, e->lower);
		print_u64_or(stdout, e->upper, MP_PLAN_NO_FREE, "null");
		printf(",\"flags\":%" PRIu32 "}", e->flags);
	}
	printf("],\"swaps\":[");
	for (uint32_t i = 0; i < p->nswaps; i++) {
		const struct mp_plan_swap *s = &p->swaps[i];
		printf("%s{\"request\":%" PRIu64 ",\"out_at\":%" PRIu64
		       ",\"in_at\":%" PRIu64 ",\"src_offset\":%" PRIu64
		       ",\"bytes\":%" PRIu64 ",\"staging\":%" PRIu64
		       ",\"flags\":%" PRIu32 ",\"timing\":",
		       i ? "," : "", s->request, s->out_at, s->in_at,
		       s->src_offset, s->bytes, s->staging, s->flags);
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

static int cmd_inspect(int argc, char **argv)
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
	if (optind != argc - 1)
		return cli_usage_error("inspect: expected one PLAN");
	const char *path = argv[optind];
	char err[ERRLEN], why[ERRLEN];
	unsigned char *buf;
	size_t len;
	int rc = mp_plan_read_bytes(path, &buf, &len, err, sizeof(err));
	if (rc) {
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
		cli_error("plan '%s': %s", path, why);
		return cli_exit_for(rc, 0);
	}
	if (nsec > 16)
		nsec = 16;
	if (csv)
		inspect_csv(&p);
	else if (json)
		inspect_json(path, &p, len, sec, nsec, checksum);
	else
		inspect_text(path, &p, len, sec, nsec, checksum);
	mp_plan_free(&p);
	return fflush(stdout) == 0 ? MP_EXIT_OK : MP_EXIT_OUTPUT;
}

/* --- compare ---------------------------------------------------------------- */

struct cell {
	uint64_t pool;
	double seconds;
	int optimal, failed;
};

struct row {
	const char *path;
	size_t buffers;
	uint64_t lower_bound;
	struct cell *cells; /* one per strategy */
	char *error;        /* NULL, or why this trace (or a strategy) failed */
	int status;
};

struct job {
	struct row *rows;
	size_t nrows, next;
	const char **strategies;
	size_t nstrat;
	double limit;
	pthread_mutex_t lock;
};

/* Keeps the first error of a row (its exit status with it). */
static void row_fail(struct row *r, int status, const char *msg)
{
	if (r->error)
		return;
	r->error = strdup(msg);
	r->status = status;
}

static void compare_one(const struct job *j, struct row *r)
{
	char err[ERRLEN];
	struct trace *t = NULL;
	struct solver_problem p;
	memset(&p, 0, sizeof(p));
	uint64_t *off = NULL;
	int rc = load_input(r->path, &t, err, sizeof(err));
	if (rc) {
		row_fail(r, cli_exit_for(rc, 0), err);
		return;
	}
	rc = solver_problem_from_trace(t, &p, err, sizeof(err));
	if (rc) {
		row_fail(r, solver_exit(rc), err);
		goto out;
	}
	r->buffers = p.n;
	r->lower_bound = solver_lower_bound(&p);
	if (p.n == 0) {
		row_fail(r, MP_EXIT_INPUT, "no transient buffers to plan");
		goto out;
	}
	off = malloc(p.n * sizeof(*off));
	if (!off) {
		row_fail(r, MP_EXIT_INTERNAL, "out of memory");
		goto out;
	}
	for (size_t s = 0; s < j->nstrat; s++) {
		const char *name = j->strategies[s];
		struct solver_options so = { .time_limit = j->limit };
		struct solver_report rep;
		rc = solver_solve(&p, name, &so, off, &rep, err, sizeof(err));
		struct cell *c = &r->cells[s];
		if (rc) {
			c->failed = 1;
			char msg[ERRLEN + 64];
			snprintf(msg, sizeof(msg), "%s: %s", name, err);
			row_fail(r, solver_exit(rc), msg);
			continue;
		}
		c->pool = rep.height;
		c->seconds = rep.seconds;
		c->optimal = rep.optimal;
	}
out:
	free(off);
	solver_problem_free(&p);
	trace_free(t);
}

static void *compare_worker(void *arg)
{
	struct job *j = arg;
	for (;;) {
		pthread_mutex_lock(&j->lock);
		size_t i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->nrows)
			return NULL;
		compare_one(j, &j->rows[i]);
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static double ratio(uint64_t pool, uint64_t lb)
{
	return lb ? (double)pool / (double)lb : 0.0;
}

static void compare_csv_header(const struct job *j)
{
	printf("trace,buffers,lower_bound");
	for (size_t s = 0; s < j->nstrat; s++) {
		const char *n = j->strategies[s];
		printf(",%s_pool,%s_ratio,%s_seconds,%s_optimal", n, n, n, n);
	}
	printf(",error\n");
}

static void compare_csv(const struct job *j, int header)
{
	if (header)
		compare_csv_header(j);
	for (size_t i = 0; i < j->nrows; i++) {
		const struct row *r = &j->rows[i];
		csv_str(stdout, r->path);
		printf(",%zu,%" PRIu64, r->buffers, r->lower_bound);
		for (size_t s = 0; s < j->nstrat; s++) {
			const struct cell *c = &r->cells[s];
			if (c->failed || !c->pool)
				printf(",,,,");
			else
				printf(",%" PRIu64 ",%.6f,%.3f,%d", c->pool,
				       ratio(c->pool, r->lower_bound), c->seconds,
				       c->optimal);
		}
		putchar(',');
		csv_str(stdout, r->error ? r->error : "");
		putchar('\n');
	}
}

static void compare_json(const struct job *j)
{
	printf("{\"strategies\":[");
	for (size_t s = 0; s < j->nstrat; s++) {
		printf(s ? "," : "");
		json_quote(stdout, j->strategies[s]);
	}
	printf("],\"time_limit\":%.3f,\"traces\":[", j->limit);
	for (size_t i = 0; i < j->nrows; i++) {
		const struct row *r = &j->rows[i];
		printf("%s{\"trace\":", i ? "," : "");
		json_quote(stdout, r->path);
		printf(",\"buffers\":%zu,\"lower_bound\":%" PRIu64 ",\"results\":[",
		       r->buffers, r->lower_bound);
		for (size_t s = 0; s < j->nstrat; s++) {
			const struct cell *c = &r->cells[s];
			printf("%s{\"strategy\":", s ? "," : "");
			json_quote(stdout, j->strategies[s]);
			if (c->failed || !c->pool)
				printf(",\"pool\":null,\"ratio\":null,\"seconds\":null,\"optimal\":false}");
			else
				printf(",\"pool\":%" PRIu64 ",\"ratio\":%.6f,\"seconds\":%.3f,\"optimal\":%s}",
				       c->pool, ratio(c->pool, r->lower_bound),
				       c->seconds, c->optimal ? "true" : "false");
		}
		printf("],\"error\":");
		if (r->error)
			json_quote(stdout, r->error);
		else
			printf("null");
		putchar('}');
	}
	printf("]}\n");
}

/* The table for people: one row per trace, pool / lower bound and time per
 * strategy, "optimal" where proven. */
static void compare_text(const struct job *j, int header)
{
	int w = 12;
	for (size_t i = 0; i < j->nrows; i++) {
		int n = (int)strlen(base_name(j->rows[i].path));
		if (n > w)
			w = n;
	}
	if (w > 40)
		w = 40;
	if (header) {
		printf("%-*s %8s %14s", w, "trace", "buffers", "lower bound");
		for (size_t s = 0; s < j->nstrat; s++)
			printf("   %-22s", j->strategies[s]);
		printf("\n");
	}
	for (size_t i = 0; i < j->nrows; i++) {
		const struct row *r = &j->rows[i];
		if (r->error && !r->buffers)
			printf("%-*.*s %8s %14s", w, w, base_name(r->path), "-", "-");
		else
			printf("%-*.*s %8zu %14" PRIu64, w, w, base_name(r->path),
			       r->buffers, r->lower_bound);
		for (size_t s = 0; s < j->nstrat; s++) {
			const struct cell *c = &r->cells[s];
			if (c->failed || !c->pool)
				printf("   %-22s", c->failed ? "error" : "-");
			else
				printf("   %6.4f %7.2fs %-7s",
				       ratio(c->pool, r->lower_bound), c->seconds,
				       c->optimal ? "optimal" : "");
		}
		printf("\n");
		if (r->error)
			printf("  error: %s\n", r->error);
	}
	if (header)
		printf("(pool / lower bound, seconds; \"optimal\": proven)\n");
}

static int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "strategies", required_argument, NULL, 's' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "time-limit", required_argument, NULL, 't' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'J' },
		{ "no-header", no_argument, NULL, 'n' },
		{ "header-only", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *list = NULL;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t jobs = cpus > 0 ? (uint64_t)cpus : 1;
	double limit = SOLVER_DEFAULT_TIME_LIMIT;
	int csv = 0, json = 0, header = 1, header_only = 0, c;
	char names[256];
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:j:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			list = optarg;
			break;
		case 'j':
			if (cli_parse_u64(optarg, &jobs) || jobs == 0 || jobs > 1024)
				return cli_usage_error("compare: -j '%s' is not a number of jobs from 1 to 1024",
						       optarg);
			break;
		case 't':
			if (parse_seconds(optarg, &limit))
				return cli_usage_error("compare: --time-limit '%s' is not a number of seconds above 0",
						       optarg);
			break;
		case 'c':
			csv = 1;
			break;
		case 'J':
			json = 1;
			break;
		case 'n':
			header = 0;
			break;
		case 'H':
			header_only = 1;
			break;
		default:
			return cli_option_error(c, "compare");
		}
	}
	if (csv && json)
		return cli_usage_error("compare: --csv and --json exclude each other");
	if (header_only && !csv)
		return cli_usage_error("compare: --header-only needs --csv");
	if (optind == argc && !header_only)
		return cli_usage_error("compare: expected at least one TRACE");

	struct job j = { 0 };
	char *copy = NULL;
	size_t cap = 8;
	j.strategies = malloc(cap * sizeof(*j.strategies));
	if (!j.strategies)
		return cli_error("out of memory"), MP_EXIT_INTERNAL;
	if (list) {
		copy = strdup(list);
		char *save = NULL;
		for (char *s = strtok_r(copy, ",", &save); s;
		     s = strtok_r(NULL, ",", &save)) {
			if (!valid_strategy(s)) {
				list_strategies(names, sizeof(names), 0);
				free(copy);
				free(j.strategies);
				return cli_usage_error("compare: unknown strategy '%s' (known: %s)",
						       s, names);
			}
			if (j.nstrat == cap) {
				const char **g = realloc(j.strategies,
							 2 * cap * sizeof(*g));
				if (!g)
					break;
				j.strategies = g;
				cap *= 2;
			}
			j.strategies[j.nstrat++] = s;
		}
	} else {
		for (size_t i = 0; solver_name_at(i) && j.nstrat < cap; i++)
			j.strategies[j.nstrat++] = solver_name_at(i);
	}
	if (j.nstrat == 0) {
		free(copy);
		free(j.strategies);
		return cli_usage_error("compare: --strategies lists no strategy");
	}
	j.limit = limit;
	if (header_only) {
		compare_csv_header(&j);
		free(copy);
		free(j.strategies);
		return fflush(stdout) == 0 ? MP_EXIT_OK : MP_EXIT_OUTPUT;
	}

	j.nrows = (size_t)(argc - optind);
	j.rows = calloc(j.nrows, sizeof(*j.rows));
	int status = MP_EXIT_OK;
	for (size_t i = 0; j.rows && i < j.nrows; i++) {
		j.rows[i].path = argv[optind + (int)i];
		j.rows[i].cells = calloc(j.nstrat, sizeof(struct cell));
		if (!j.rows[i].cells)
			status = MP_EXIT_INTERNAL;
	}
	if (!j.rows || status) {
		cli_error("out of memory");
		status = MP_EXIT_INTERNAL;
		goto out;
	}
	pthread_mutex_init(&j.lock, NULL);
	size_t nth = jobs < j.nrows ? (size_t)jobs : j.nrows;
	pthread_t *th = malloc(nth * sizeof(*th));
	size_t started = 0;
	for (size_t i = 0; th && i < nth; i++) {
		if (pthread_create(&th[i], NULL, compare_worker, &j) != 0)
			break;
		started++;
	}
	if (started == 0)
		compare_worker(&j); /* no thread: do it all here */
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	pthread_mutex_destroy(&j.lock);

	if (csv)
		compare_csv(&j, header);
	else if (json)
		compare_json(&j);
	else
		compare_text(&j, header);
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
	for (size_t i = 0; i < j.nrows; i++) {
		const struct row *r = &j.rows[i];
		if (!r->error)
			continue;
		cli_error("%s", r->error);
		if (status == MP_EXIT_OK)
			status = r->status ? r->status : MP_EXIT_INTERNAL;
	}
out:
	for (size_t i = 0; j.rows && i < j.nrows; i++) {
		free(j.rows[i].cells);
		free(j.rows[i].error);
	}
	free(j.rows);
	free(copy);
	free(j.strategies);
	return status;
}

/* --- table ------------------------------------------------------------------ */

static const struct cli_command commands[] = {
	{ "compile", cmd_compile,
	  "compile TRACE -o PLAN [--strategy S] [--time-limit SECONDS] "
	  "[--align A] [--trust-holes] [--max-pool SIZE | --budget SIZE|PCT% "
	  "[--link MODEL] [--swap-strategy memplan|singa|vdnn]] [--json]",
	  "place every transient buffer in one pool (with swaps to host "
	  "memory for a --budget) and write the plan file" },
	{ "verify", cmd_verify, "verify PLAN TRACE",
	  "check independently that a plan fits a trace" },
	{ "simulate", cmd_simulate,
	  "simulate PLAN TRACE [--link MODEL] [--json] [-o FILE.svg]",
	  "predict a plan's iteration time on a link: overhead, stalls, "
	  "peak resident bytes; -o draws the lanes and memory as SVG" },
	{ "frontier", cmd_frontier,
	  "frontier TRACE [--link MODEL] [--strategies LIST] "
	  "[--steps N | --step PCT] [--from PCT] [--to PCT] [--placer S] "
	  "[--csv | --json] [-o FILE.svg] [--quiet]",
	  "sweep budgets down from the lower bound without swaps and tabulate "
	  "each swap strategy's pool and predicted overhead; -o draws it as SVG" },
	{ "inspect", cmd_inspect, "inspect [--csv | --json] PLAN",
	  "show a plan file: header, sections, entries" },
	{ "compare", cmd_compare,
	  "compare [--strategies LIST] [-j N] [--time-limit SECONDS] "
	  "[--csv | --json] [--no-header] [--header-only] TRACE...",
	  "run placement strategies over traces and tabulate pool / lower bound" },
	{ 0 }
};

int main(int argc, char **argv)
{
	cli_progname = "memplan-plan";
	return cli_dispatch(commands, argc, argv,
			    "Compile traces into plan files (memplan-plan(5)), "
			    "verify, simulate and show plans, sweep swap "
			    "frontiers, and compare placement strategies.  TRACE is a memplan trace or a "
			    "MiniMalloc CSV.");
}
