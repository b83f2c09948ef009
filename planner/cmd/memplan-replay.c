/* SPDX-License-Identifier: MIT */
/*
 * memplan-replay.c - the memplan-replay command: a plan validated end to
 * end without the application.  Parses options, loads the trace and hands
 * both to replay_run() (planner/replay/replay.c); prints each problem and one
 * verdict line (and the runtime's statistics with --stats), or all of it as
 * one JSON object with --json.  Exit: 0 valid, 1 invalid, 2 usage, 3 bad
 * input, 5 the runtime could not run (no CUDA, no memory for the pool).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "cycle.h"
#include "json.h"
#include "input.h"
#include "json_errors.h"
#include "plan.h"
#include "replay.h"
#include "tracedb.h"


static const char usage[] =
	"usage: memplan-replay [--backend host|cuda] [--iterations N] [--max-reports N]\n"
	"                      [--stats | --json] PLAN TRACE...\n"
	"\n"
	"Drives the runtime (libmemplan) with the requests of TRACE following PLAN,\n"
	"writes a pattern unique to each buffer at its alloc and checks it at every\n"
	"use and at its free.  Several TRACEs take turns, in the order given, as the\n"
	"workloads of a plan compiled with --cycle.  Exit status: 0 valid, 1 invalid\n"
	"(an overlap, a lost swap, a divergence), 2 usage, 3 bad input, 5 the runtime\n"
	"could not run.\n"
	"\n"
	"  -b, --backend B      host (default: host memory, no GPU) or cuda\n"
	"  -n, --iterations N   iterations to drive (default 2)\n"
	"  -m, --max-reports N  problems described in full (default 10)\n"
	"  -s, --stats          the runtime's statistics after the verdict\n"
	"      --json           the verdict, problems and statistics as one JSON object\n"
	"  -h, --help           this text\n"
	"      --version        the version\n";

/* The problems described in full, kept for --json (ctx), else printed. */
struct reports {
	char **text;
	size_t n, cap;
	int oom;
};

static void report(void *ctx, const char *text)
{
	struct reports *r = ctx;
	if (!r) {
		printf("problem: %s\n", text);
		return;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		char **t = realloc(r->text, cap * sizeof(*t));
		if (!t) {
			r->oom = 1;
			return;
		}
		r->text = t;
		r->cap = cap;
	}
	if (!(r->text[r->n] = strdup(text)))
		r->oom = 1;
	else
		r->n++;
}

/* The link the plan at path was planned for (its LINK section) into buf,
 * or "" when it records none (or cannot be read again). */
static void plan_link(const char *path, char *buf, size_t len)
{
	struct mp_plan p;
	char err[ERRLEN];
	buf[0] = '\0';
	if (mp_plan_read_file(path, &p, err, sizeof(err)) == 0) {
		snprintf(buf, len, "%s", p.link);
		mp_plan_free(&p);
	}
}

static void print_json(const char *ppath, const char *tpath, int backend,
		       const struct replay_result *res, const struct reports *r)
{
	char link[MP_PLAN_LINK_LEN];
	plan_link(ppath, link, sizeof(link));
	struct json j;
	json_init(&j, stdout);
	json_object(&j, NULL);
	json_string(&j, "plan", ppath);
	json_string(&j, "trace", tpath);
	json_string(&j, "backend", backend == MP_BACKEND_HOST ? "host" : "cuda");
	json_bool(&j, "valid", res->problems == 0);
	json_u64(&j, "iterations", res->iterations);
	json_u64(&j, "followed", res->followed);
	json_u64(&j, "requests", res->requests);
	json_u64(&j, "checks", res->checks);
	json_u64(&j, "bytes_checked", res->bytes_checked);
	json_u64(&j, "problems", res->problems);
	if (link[0])
		json_string(&j, "plan_link", link);
	else
		json_null(&j, "plan_link");
	json_array(&j, "reports");
	for (size_t i = 0; i < r->n; i++)
		json_string(&j, NULL, r->text[i]);
	json_array_end(&j);
	json_object(&j, "stats");
#define STAT_JSON(name, desc) json_u64(&j, #name, res->stats.name);
	MP_STATS(STAT_JSON)
#undef STAT_JSON
	json_object_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

/* Progress on a terminal: replays of big traces take tens of seconds. */
static void progress(void *ctx, double done)
{
	const struct replay_opts *o = ctx;
	unsigned it = (unsigned)(done * o->iterations);
	fprintf(stderr, "\rmemplan-replay: replaying: %3.0f%% (iteration %u of %u)",
		done * 100, it < o->iterations ? it + 1 : o->iterations, o->iterations);
	fflush(stderr);
}

static int replay_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "max-reports", required_argument, NULL, 'm' },
		{ "stats", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct replay_opts o = { .backend = MP_BACKEND_HOST, .iterations = 2,
				 .max_reports = 10 };
	uint64_t n;
	int c, stats = 0, json = 0;
	while ((c = getopt_long(argc, argv, "b:n:m:sh", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (!strcmp(optarg, "host"))
				o.backend = MP_BACKEND_HOST;
			else if (!strcmp(optarg, "cuda"))
				o.backend = MP_BACKEND_CUDA;
			else
				return cli_usage_error("--backend: '%s' is not host or cuda", optarg);
			break;
		case 'n':
			if (cli_parse_u64(optarg, &n) || n == 0 || n > 1000000)
				return cli_usage_error("--iterations: '%s' is not a number from 1 to 1000000", optarg);
			o.iterations = (unsigned)n;
			break;
		case 'm':
			if (cli_parse_u64(optarg, &n) || n > 1000000)
				return cli_usage_error("--max-reports: '%s' is not a number up to 1000000", optarg);
			o.max_reports = (unsigned)n;
			break;
		case 's':
			stats = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return MP_EXIT_OK;
		case 'V':
			printf("memplan-replay %s\n", MEMPLAN_VERSION);
			return MP_EXIT_OK;
		default:
			return cli_usage_error("unknown option");
		}
	}
	if (argc - optind < 2)
		return cli_usage_error("expected PLAN and TRACE (several for a cycle)");
	if (stats && json)
		return cli_usage_error("--stats and --json: choose one (--json has the statistics)");
	const char *ppath = argv[optind], *tpath = argv[optind + 1];
	char err[ERRLEN];
	struct trace *t;
	struct cycle cy = { 0 };
	size_t nt = (size_t)(argc - optind - 1);
	int rc = nt > 1 ? cycle_load(argv + optind + 1, nt, &t, &cy, err, sizeof(err))
			: trace_load(tpath, &t, err, sizeof(err));
	if (nt > 1 && !rc) { /* the turns as given, whatever the plan's */
		o.turns = cy.first_request;
		o.nturns = cy.n;
	}
	if (rc) {
		if (nt == 1)
			input_explain(tpath, "trace", err, sizeof(err));
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	struct replay_result res;
	struct reports kept = { 0 };
	int tty = isatty(STDERR_FILENO);
	if (tty) {
		o.progress = progress;
		o.progress_ctx = &o;
	}
	rc = replay_run(t, ppath, &o, &res, report, json ? &kept : NULL, err,
			sizeof(err));
	trace_free(t);
	cycle_free(&cy);
	if (tty)
		fprintf(stderr, "\r%60s\r", "");
	if (!rc && kept.oom) {
		rc = TRACE_ENOMEM;
		snprintf(err, sizeof(err), "out of memory keeping the problems");
	}
	if (rc || json) {
		if (!rc)
			print_json(ppath, tpath, o.backend, &res, &kept);
		for (size_t i = 0; i < kept.n; i++)
			free(kept.text[i]);
		free(kept.text);
	}
	if (rc) {
		cmd_plan_hint(ppath, err, sizeof(err));
		cli_error("%s", err);
		return rc == TRACE_EINVAL || rc == TRACE_ENOMEM ? MP_EXIT_INTERNAL :
								   cli_exit_for(rc, 0);
	}
	if (json) {
		if (fflush(stdout) != 0)
			return MP_EXIT_OUTPUT;
		return res.problems ? MP_EXIT_LIMIT : MP_EXIT_OK;
	}
	if (res.problems > o.max_reports)
		printf("problem: ... and %" PRIu64 " more\n", res.problems - o.max_reports);
	printf("%s: %s: %" PRIu64 " iterations (%" PRIu64 " followed), %" PRIu64
	       " requests (%" PRIu64 " from the pool), %" PRIu64 " checks of %" PRIu64
	       " bytes, %" PRIu64 " swaps out, %" PRIu64 " problems\n",
	       ppath, res.problems ? "invalid" : "valid", res.iterations,
	       res.followed, res.requests, res.stats.planned_allocs, res.checks,
	       res.bytes_checked, res.stats.swaps_out, res.problems);
	if (stats) {
		char link[MP_PLAN_LINK_LEN];
		plan_link(ppath, link, sizeof(link));
		if (link[0])
			printf("plan_link        %14s  # the link the plan's swaps were planned for (swapin_late and swapout_late count where this run's copies were slower)\n",
			       link);
		mp_stats_print(&res.stats, stdout, 0);
	}
	if (fflush(stdout) != 0)
		return MP_EXIT_OUTPUT;
	return res.problems ? MP_EXIT_LIMIT : MP_EXIT_OK;
}

/* Under --json, what stops before a verdict (usage, a file that cannot be
 * read, a plan of another trace) is one JSON error object. */
int main(int argc, char **argv)
{
	cli_progname = "memplan-replay";
	return cli_run_json_errors(replay_main, argc, argv, 0);
}
