/* SPDX-License-Identifier: MIT */
/*
 * cmd_compile.c - memplan-plan compile: places a trace's transient buffers in
 * one pool (solver_solve()), or with --budget also plans swaps to host memory
 * (budget_plan()), and writes the plan file atomically.  Every plan is verified
 * independently (planfile_verify()) before it is written.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "cmd.h"
#include "cycle.h"
#include "json.h"
#include "plan.h"
#include "planfile.h"
#include "simulate.h"
#include "solution.h"
#include "budget.h"

/*
 * Seconds of limit left to the search: less what the command has spent
 * since t0 (loading), and a reserve for what follows the search (the
 * solver's own check of its answer, building, verifying and writing the
 * plan), proportional to what loading took on this run: both are passes
 * over every buffer at the machine's current speed, so the reserve grows
 * with the load on the machine.  Measured on 1k-62k buffers idle and under
 * a load of 4-6: what follows took 1.1 to 4.1 times the loading; at least
 * 4 us a buffer (a load from a warm cache), at most a third of the limit.
 * Never 0 (0 means the default): the heuristics run whatever is left.
 */
#define POST_TO_LOAD 4.5
static double search_time(double limit, const struct timespec *t0, size_t n)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	double spent = (double)(t.tv_sec - t0->tv_sec) +
		       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
	double reserve = POST_TO_LOAD * spent + 0.03;
	if (reserve < 4e-6 * (double)n)
		reserve = 4e-6 * (double)n;
	if (reserve > limit / 3)
		reserve = limit / 3;
	double left = limit - spent - reserve;
	return left > 1e-3 ? left : 1e-3;
}

/* compile --solution: the placement as MiniMalloc CSV (solution.h),
 * written under a temporary name in *o, which the caller renames into
 * place once the plan is written (cli_out_close(o, 1)), or removes.
 * Returns the exit status; on failure nothing is left. */
static int write_solution(struct cli_out *o, const char *solution,
			  const char *path, const struct trace *t,
			  const struct solver_problem *p, const uint64_t *off)
{
	char err[ERRLEN];
	int status = cli_out_open(o, solution);
	if (status)
		return status;
	int rc = solution_write_csv(o->f, path, t, p, off, err, sizeof(err));
	if (rc) {
		cli_error("--solution '%s': %s", solution, err);
		cli_out_close(o, 0);
		return rc == TRACE_EIO	   ? MP_EXIT_OUTPUT
		       : rc == TRACE_ENOMEM ? MP_EXIT_INTERNAL
					    : MP_EXIT_INPUT;
	}
	return 0;
}


/* Long options without a letter. */
enum { OPT_DEVICE_BUDGET = 0x100, OPT_MAX_OVERHEAD };

/* The search's progress, on the progress line (progress.h). */
static void show_progress(void *ctx, const struct solver_progress *pr)
{
	struct cli_progress *g = ctx;
	char best[32] = "none", gap[32] = "-";
	if (pr->best != UINT64_MAX) {
		snprintf(best, sizeof(best), "%" PRIu64, pr->best);
		if (pr->lower_bound)
			snprintf(gap, sizeof(gap), "%.2f%%",
				 solver_gap_percent(pr->best, pr->lower_bound));
	}
	cli_progress_say(g, "compile: best %s, lower bound %" PRIu64 ", gap %s, %" PRIu64 " nodes",
			 best, pr->lower_bound, gap, pr->nodes);
}


/* --budget / --device-budget and what compile_budget() checks the plan by. */
struct budget_args {
	const char *budget_s, *device_s; /* one of them */
	double max_overhead;             /* --max-overhead, or < 0 */
	int quiet;                       /* --quiet: no progress line */
};

/* --cycle: the traces taking turns, and their concatenation's workloads
 * (n == 0: one trace, no cycle). */
struct cycle_opt {
	char *const *paths;
	size_t n;
	struct cycle cy;
};

static int load(const char *path, struct cycle_opt *c, uint64_t *align,
		int keep_holes, struct trace **t, struct solver_problem *p)
{
	if (!c->n)
		return cmd_load_problem(path, align, keep_holes, t, p);
	return cmd_load_cycle(c->paths, c->n, align, keep_holes, t, p, &c->cy);
}

/* Makes plan, built from the cycle's trace t, a cycle plan and verifies it
 * again (cycle.c); a plan without --cycle is left as it is.  Returns the
 * exit status. */
static int make_cycle(struct cycle_opt *c, struct mp_plan *plan,
		      const struct trace *t)
{
	char err[ERRLEN];
	if (!c->n)
		return 0;
	int rc = cycle_attach(plan, &c->cy, err, sizeof(err));
	if (!rc)
		rc = planfile_verify(plan, t, err, sizeof(err));
	if (rc) {
		cli_error("internal error: the cycle plan does not verify against its traces: %s",
			  err);
		return MP_EXIT_INTERNAL;
	}
	return 0;
}

/* The workloads of a cycle plan: one line each, or a JSON array member. */
static void print_cycle(const struct cycle_opt *c, const struct mp_plan *plan,
			int json)
{
	for (size_t w = 0; w < c->n; w++) {
		uint64_t pool = cycle_workload_pool(plan, (uint32_t)w);
		uint64_t end = w + 1 < c->n ? c->cy.first_request[w + 1]
					    : plan->nrequests;
		if (json) {
			printf("%s{\"trace\":", w ? "," : ",\"workloads\":[");
			json_quote(stdout, c->paths[w]);
			printf(",\"first_request\":%" PRIu64 ",\"requests\":%" PRIu64
			       ",\"pool\":%" PRIu64 ",\"lower_bound\":%" PRIu64
			       ",\"persistent\":%" PRIu64 "}%s",
			       c->cy.first_request[w], end - c->cy.first_request[w],
			       pool, c->cy.lower_bound[w], c->cy.persistent[w],
			       w + 1 == c->n ? "]" : "");
			continue;
		}
		char a[32], b[32];
		printf("  workload %zu: %s, requests [%" PRIu64 ", %" PRIu64
		       "), pool bytes up to %s used, its own lower bound %s\n",
		       w, c->paths[w], c->cy.first_request[w], end,
		       cli_format_size(pool, a, sizeof(a)),
		       cli_format_size(c->cy.lower_bound[w], b, sizeof(b)));
	}
}

static int compile_budget(const char *path, const char *out,
			  const struct budget_args *ba, const char *link_s,
			  const char *swap_s, const char *placer,
			  uint64_t align, int json, struct cycle_opt *cyc)
{
	struct trace *t = NULL;
	struct solver_problem p;
	int status = load(path, cyc, &align, 0, &t, &p);
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
	uint64_t persistent = cmd_persistent_bytes(t);
	status = ba->device_s ? cmd_device_budget(ba->device_s, persistent, &budget)
			      : cmd_parse_budget("compile", ba->budget_s, lb, &budget);
	if (status)
		goto done;
	/* a trace without accesses: only a budget needing no swap is honest */
	if (budget < lb && cmd_swap_blind(t, err, sizeof(err))) {
		status = cmd_refuse_swaps(ba->device_s ? "compile --device-budget"
						       : "compile --budget",
					  path, lb, err);
		goto done;
	}
	status = cmd_pick_link(link_s, t, &l);
	if (!status && link_s)
		status = cmd_link_storable(link_s);
	if (status)
		goto done;
	struct cli_progress line;
	char a[32];
	cli_progress_start(&line, ba->quiet);
	cli_progress_say(&line, "compile: planning %s for a pool of %s (%.1f%% of the lower bound)",
			 swap_s, cli_format_size(budget, a, sizeof(a)),
			 lb ? 100.0 * (double)budget / (double)lb : 0.0);
	int rc = budget_plan(t, &p, &l, swap_s, budget, placer, align, &plan,
			     &sim, &oc, err, sizeof(err));
	cli_progress_end(&line);
	if (rc) {
		cli_error("no plan fits --%s %s (%" PRIu64 " bytes%s, %.1f%% of the lower bound without swaps) for trace '%s': %s",
			  ba->device_s ? "device-budget" : "budget",
			  cli_format_size(ba->device_s ? budget + persistent : budget,
					  a, sizeof(a)),
			  ba->device_s ? budget + persistent : budget,
			  ba->device_s ? " less the persistent buffers" : "",
			  lb ? 100.0 * (double)budget / (double)lb : 0.0, path,
			  err);
		if (rc == SWAP_ENOFIT)
			cmd_explain_no_fit(t, path, lb, budget);
		status = cmd_swap_exit(rc);
		goto done;
	}
	double over = sim_overhead(&sim);
	if (ba->max_overhead >= 0 && over > ba->max_overhead) {
		cli_error("the plan for trace '%s' is predicted %.2f%% slower than the trace over %s, above --max-overhead %g%%; no plan written (a larger budget costs less: 'memplan-plan frontier %s' shows how much)",
			  path, over, l.name, ba->max_overhead, path);
		status = MP_EXIT_LIMIT;
		goto done;
	}
	if (ba->max_overhead < 0 && over > CMD_WARN_OVERHEAD)
		cli_warn("the plan is predicted %.2f%% slower than the trace over %s (--max-overhead P refuses such plans; 'memplan-plan frontier %s' shows the overhead of each budget)",
			 over, l.name, path);
	/* the LINK section: what simulate and inspect judge the plan by */
	snprintf(plan.link, sizeof(plan.link), "%s", cmd_link_spec(link_s, t));
	plan.has_link = 1;
	if ((status = make_cycle(cyc, &plan, t)))
		goto done;
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
		       ",\"attempts\":%u,\"seconds\":%.3f,\"persistent\":%" PRIu64
		       ",\"device_bytes\":%" PRIu64,
		       sim.base_ns, sim.iter_ns, sim.stall_ns, sim_overhead(&sim),
		       sim.peak, oc.attempts, oc.choose_s + oc.place_s,
		       plan.persistent_bytes,
		       plan.pool_size + plan.persistent_bytes);
		print_cycle(cyc, &plan, 1);
		printf("}\n");
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
		printf("%s: the device holds pool %s + persistent %s (weights, optimizer state: not in the budget) = %s\n",
		       out, cli_format_size(plan.pool_size, a, sizeof(a)),
		       cli_format_size(plan.persistent_bytes, b, sizeof(b)),
		       cli_format_size(plan.pool_size + plan.persistent_bytes,
				       c2, sizeof(c2)));
		print_cycle(cyc, &plan, 0);
	}
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
done:
	cycle_free(&cyc->cy);
	sim_free(&sim);
	mp_plan_free(&plan);
	solver_problem_free(&p);
	trace_free(t);
	return status;
}

const char cmd_compile_options[] =
	"  -o, --output PLAN        the plan file to write (required)\n"
	"  -s, --strategy S         placement strategy (default auto; with --budget,\n"
	"                           best-fit); 'memplan-plan compare --help' lists them\n"
	"  -t, --time-limit SECONDS the whole command's time, searches included\n"
	"                           (default 1)\n"
	"      --deterministic[=WORK]  count work instead of time, the same plan on\n"
	"                           every machine (default WORK 20000)\n"
	"      --solution OUT.csv   also write the placement as MiniMalloc CSV\n"
	"  -a, --align A            raise every offset's alignment to A, a power of two\n"
	"                           (default: 256, or the buffers' own when more; 1 for\n"
	"                           a MiniMalloc CSV)\n"
	"      --trust-holes        place over the trace's own holes (a placement study;\n"
	"                           default: holes stay resident)\n"
	"  -m, --max-pool SIZE      exit 1, writing nothing, when the pool exceeds SIZE\n"
	"                           (default: no limit)\n"
	"  -b, --budget SIZE|PCT%   plan swaps to host memory so that the pool fits SIZE\n"
	"                           bytes (units: KiB, MiB, GiB, KB, MB, GB, B), or PCT%\n"
	"                           of the lower bound of the transient buffers without\n"
	"                           swaps (weights and optimizer state are not in it:\n"
	"                           they stay on the device besides the pool); a bare\n"
	"                           number up to 100 is refused as ambiguous (default:\n"
	"                           no budget, no swaps)\n"
	"      --device-budget SIZE everything the device holds: the pool's budget is\n"
	"                           SIZE less the persistent buffers (weights, optimizer\n"
	"                           state); instead of --budget\n"
	"      --max-overhead P     with a budget: exit 1, writing nothing, when the plan\n"
	"                           is predicted more than P% slower than the trace\n"
	"                           (default: no limit; above 25% a warning)\n"
	"  -l, --link MODEL[,KEY=VALUE...]  with a budget: the host<->device link the\n"
	"                           swaps are planned for, stored in the plan (presets\n"
	"                           and keys: 'memplan-plan link'; default measured\n"
	"                           when the trace has bandwidths, else pcie5)\n"
	"  -w, --swap-strategy S    with a budget: memplan, singa, vdnn, recompute,\n"
	"                           hybrid, or the checkpoint baselines sqrt-n and\n"
	"                           every-layer, or optimal (small traces, CBC/GLPK)\n"
	"                           (default memplan)\n"
	"  -P, --per-gpu            with --budget and --link MODEL,gpus=N: plan the N\n"
	"                           lock-step GPUs of the link jointly, writing\n"
	"                           PLAN.gpuK.plan for each (default: one plan)\n"
	"  -j, --json               print the result as one JSON object\n"
	"  -q, --quiet              no progress line on stderr (there is one only\n"
	"                           when stderr is a terminal)\n"
	"  -h, --help               this text\n";

static int compile_run(int argc, char **argv);

int cmd_compile(int argc, char **argv)
{
	return cmd_run_json_errors(compile_run, argc, argv);
}

static int compile_run(int argc, char **argv)
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
		{ "deterministic", optional_argument, NULL, 'D' },
		{ "solution", required_argument, NULL, 'S' },
		{ "cycle", no_argument, NULL, 'C' },
		{ "per-gpu", no_argument, NULL, 'P' },
		{ "device-budget", required_argument, NULL, OPT_DEVICE_BUDGET },
		{ "max-overhead", required_argument, NULL, OPT_MAX_OVERHEAD },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct budget_args ba = { NULL, NULL, -1, 0 };
	int trust_holes = 0, have_limit = 0, cycle = 0;
	uint64_t work = 0; /* --deterministic: the work limit */
	const char *solution = NULL;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	const char *out = NULL, *strategy = "auto";
	const char *budget_s = NULL, *link_s = NULL, *swap_s = "memplan";
	int have_strategy = 0;
	double limit = SOLVER_DEFAULT_TIME_LIMIT;
	uint64_t align = 1, max_pool = 0;
	int json = 0, c, have_max = 0, per_gpu = 0, have_swap = 0;
	char names[256];
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:s:t:a:m:jb:l:w:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'q':
			ba.quiet = 1;
			break;
		case 's':
			strategy = optarg;
			have_strategy = 1;
			break;
		case 'b':
			budget_s = optarg;
			break;
		case OPT_DEVICE_BUDGET:
			ba.device_s = optarg;
			break;
		case OPT_MAX_OVERHEAD: {
			char *end;
			ba.max_overhead = strtod(optarg, &end);
			if (end != optarg && *end == '%')
				end++;
			if (end == optarg || *end || !(ba.max_overhead >= 0) ||
			    ba.max_overhead > 1e6)
				return cli_usage_error("compile: --max-overhead '%s' is not a percentage from 0 up",
						       optarg);
			break;
		}
		case 'l':
			link_s = optarg;
			break;
		case 'w':
			if (!budget_strategy_find(optarg))
				return cli_usage_error("compile: unknown --swap-strategy '%s' (known: memplan, singa, vdnn, recompute, hybrid, sqrt-n, every-layer, optimal)",
						       optarg);
			swap_s = optarg;
			have_swap = 1;
			break;
		case 'P':
			per_gpu = 1;
			break;
		case 't':
			if (cmd_parse_seconds(optarg, &limit))
				return cli_usage_error("compile: --time-limit '%s' is not a number of seconds above 0",
						       optarg);
			have_limit = 1;
			break;
		case 'D':
			if (cmd_parse_work(optarg, &work))
				return cli_usage_error("compile: --deterministic='%s' is not a number of work units above 0",
						       optarg);
			break;
		case 'S':
			solution = optarg;
			break;
		case 'C':
			cycle = 1;
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
	if (optind == argc || (!cycle && optind != argc - 1))
		return cli_usage_error("compile: expected one TRACE (several with --cycle)");
	struct cycle_opt cyc = { 0 };
	if (cycle) {
		if (argc - optind > MP_PLAN_MAX_WORKLOADS)
			return cli_usage_error("compile: --cycle takes at most %d traces",
					       MP_PLAN_MAX_WORKLOADS);
		if (solution || trust_holes || per_gpu)
			return cli_usage_error("compile: --cycle and --%s exclude each other",
					       solution ? "solution" :
					       per_gpu ? "per-gpu" : "trust-holes");
		for (int i = optind; i < argc; i++)
			if (cli_same_file(argv[i], out ? out : ""))
				return cli_usage_error("compile: the output '%s' is the input trace: write the plan elsewhere",
						       out);
		cyc.paths = argv + optind;
		cyc.n = (size_t)(argc - optind);
	}
	if (!out)
		return cli_usage_error("compile: -o PLAN is required");
	if (cli_same_file(argv[optind], out))
		return cli_usage_error("compile: the output '%s' is the input trace: write the plan elsewhere",
				       out);
	if (!solver_name_about(strategy)) {
		cmd_strategy_names(names, sizeof(names), 0);
		return cli_usage_error("compile: unknown strategy '%s' (known: %s)",
				       strategy, names);
	}
	if (budget_s && ba.device_s)
		return cli_usage_error("compile: --budget and --device-budget exclude each other");
	if (ba.device_s && !budget_s)
		budget_s = ba.device_s; /* the budget's checks below apply */
	else
		ba.budget_s = budget_s;
	if (ba.max_overhead >= 0 && !budget_s)
		return cli_usage_error("compile: --max-overhead needs --budget or --device-budget");
	if (budget_s && have_max)
		return cli_usage_error("compile: --budget and --max-pool exclude each other");
	if (!budget_s && link_s)
		return cli_usage_error("compile: --link needs --budget");
	if (budget_s && trust_holes)
		return cli_usage_error("compile: --trust-holes and --budget exclude each other");
	if (budget_s && (work || solution))
		return cli_usage_error("compile: --%s and --budget exclude each other",
				       work ? "deterministic" : "solution");
	if (solution && json && strcmp(solution, "-") == 0)
		return cli_usage_error("compile: --solution - and --json both want standard output");
	if (solution && (cli_same_file(argv[optind], solution) ||
			 strcmp(solution, out) == 0 || cli_same_file(solution, out)))
		return cli_usage_error("compile: --solution '%s' is the input or the plan: write it elsewhere",
				       solution);
	const char *path = argv[optind];
	if (per_gpu && (!budget_s || !link_s || have_swap || have_strategy))
		return cli_usage_error("compile: --per-gpu needs --budget and --link MODEL,gpus=N, and chooses the swap strategy and placement itself");
	if (per_gpu)
		return cmd_compile_per_gpu(path, out, link_s, align, budget_s,
					   ba.max_overhead, json);
	if (budget_s)
		return compile_budget(path, out, &ba, link_s, swap_s,
				      have_strategy ? strategy : "best-fit",
				      align, json, &cyc);
	char err[ERRLEN];
	struct trace *t = NULL;
	struct solver_problem p;
	uint64_t *off = NULL;
	struct mp_plan plan;
	memset(&plan, 0, sizeof(plan));
	int rc, status = load(path, &cyc, &align, trust_holes, &t, &p);
	if (status)
		goto done;
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
	struct cli_progress g;
	/* the limit is the command's: what loading took, and a reserve for
	 * building, verifying and writing the plan, come off the search's;
	 * --deterministic counts work and reads the clock only for an explicit
	 * --time-limit */
	struct solver_options so = { .time_limit = limit, .work_limit = work };
	if (work && !have_limit)
		so.time_limit = 0;
	else
		so.time_limit = search_time(limit, &t0, p.n);
	cli_progress_start(&g, ba.quiet);
	if (g.on) {
		so.progress = show_progress;
		so.progress_ctx = &g;
	}
	struct solver_report r;
	rc = solver_solve(&p, strategy, &so, off, &r, err, sizeof(err));
	cli_progress_end(&g);
	if (rc) {
		cli_error("%s", err);
		status = cmd_solver_exit(rc);
		goto done;
	}
	if (have_max && r.height > max_pool) {
		cli_error("the %s plan needs a pool of %" PRIu64 " bytes, %" PRIu64
			  " more than --max-pool %" PRIu64 " (%.2f%%)%s",
			  strategy, r.height, r.height - max_pool, max_pool,
			  solver_gap_percent(r.height, max_pool),
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
	if ((status = make_cycle(&cyc, &plan, t)))
		goto done;
	/* the solution first, under its temporary name: a failure of either
	 * output leaves neither */
	struct cli_out so_out = { 0 };
	if (solution &&
	    (status = write_solution(&so_out, solution, path, t, &p, off)))
		goto done;
	rc = mp_plan_write_file(out, &plan, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		status = rc == MP_PLAN_EIO ? MP_EXIT_OUTPUT : MP_EXIT_INTERNAL;
		if (solution)
			cli_out_close(&so_out, 0);
		goto done;
	}
	if (solution && (status = cli_out_close(&so_out, 1))) {
		unlink(out);
		goto done;
	}
	double gap = solver_gap_percent(plan.pool_size, plan.lower_bound);
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
		printf(",\"timed_out\":%s,\"stopped_by\":\"%s\",\"work\":%" PRIu64
		       ",\"nodes\":%" PRIu64,
		       r.timed_out ? "true" : "false",
		       solver_stop_name(r.stopped_by), r.work, r.nodes);
		if (r.skipped_components) {
			/* only then, so a search that ran reads as it always did */
			printf(",\"searched\":%s,\"skipped_components\":%zu"
			       ",\"skipped_why\":",
			       r.searched_components ? "true" : "false",
			       r.skipped_components);
			json_quote(stdout, r.skipped_why);
			printf(",\"searched_components\":%zu",
			       r.searched_components);
		}
		printf(",\"search_threads\":%d,\"seconds\":%.3f,\"align\":%" PRIu64
		       ",\"fingerprint\":\"0x%016" PRIx64 "\"",
		       r.threads, r.seconds, align, plan.fingerprint);
		print_cycle(&cyc, &plan, 1);
		printf("}\n");
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
		if (r.skipped_components && !r.searched_components)
			printf("  exact search not run: %s; the pool is the heuristic's\n",
			       r.skipped_why);
		else if (r.skipped_components)
			printf("  exact search of %zu component%s only, %zu not (%s)\n",
			       r.searched_components,
			       r.searched_components == 1 ? "" : "s",
			       r.skipped_components, r.skipped_why);
		print_cycle(&cyc, &plan, 0);
	}
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
done:
	cycle_free(&cyc.cy);
	mp_plan_free(&plan);
	free(off);
	solver_problem_free(&p);
	trace_free(t);
	return status;
}
