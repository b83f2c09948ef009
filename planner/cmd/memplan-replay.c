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
#include <sys/resource.h>
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
	"                      [--check auto|full|sample] [--stats | --json] PLAN TRACE...\n"
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
	"  -c, --check C        full: every byte of every buffer; sample: each large\n"
	"                       buffer's ends and 4 KiB of every MiB, in about 1/256\n"
	"                       of the host memory; auto (default): full when the\n"
	"                       host backend's memory fits in the available memory,\n"
	"                       else sample, saying so\n"
	"  -s, --stats          the runtime's statistics after the verdict\n"
	"      --json           the verdict, problems and statistics as one JSON object\n"
	"  -h, --help           this text\n"
	"      --version        the version\n";

/* --- host memory ------------------------------------------------------------ */

/* The machine's available memory (MemAvailable), else its free pages. */
static uint64_t available_memory(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
			fclose(f);
			return (uint64_t)kb * 1024;
		}
	if (f)
		fclose(f);
	long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
}

/* The machine's memory: what the host backend lets one request take. */
static uint64_t total_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
}

/* What the host backend holds at most for a full check: the pool, the
 * host staging area of the swaps, and every buffer the plan leaves to the
 * real allocator; 0 when the plan cannot be read (replay_run says why). */
static uint64_t full_memory(const char *ppath, const struct trace *t, uint64_t *staging,
			    uint64_t *pool_out)
{
	struct mp_plan p;
	char err[ERRLEN];
	*staging = 0;
	if (mp_plan_read_file(ppath, &p, err, sizeof(err)))
		return 0;
	uint64_t in_pool = 0, total = 0;
	for (uint32_t w = 0; w < p.nswaps; w++)
		if (p.swaps[w].staging + p.swaps[w].bytes > *staging)
			*staging = p.swaps[w].staging + p.swaps[w].bytes;
	for (uint32_t i = 0; i < p.nallocs; i++)
		if (p.allocs[i].offset != MP_PLAN_PASS_THROUGH && p.allocs[i].buffer < t->nbuffers)
			in_pool += t->buffers[p.allocs[i].buffer].size;
	for (size_t b = 0; b < t->nbuffers; b++)
		total += t->buffers[b].size;
	uint64_t pool = p.pool_size;
	*pool_out = pool;
	mp_plan_free(&p);
	return pool + (total > in_pool ? total - in_pool : 0) + *staging;
}

/*
 * --check auto|full|sample on the host backend: *sample set when a full
 * check would not fit in the available memory (auto, with a note), or an
 * error that says what it needs before anything runs (exit 5).  Returns 0
 * or the exit status.
 */
static int choose_check(const char *check, const char *ppath, const struct trace *t,
			int *sample)
{
	uint64_t staging, pool = 0, full = full_memory(ppath, t, &staging, &pool);
	uint64_t avail = available_memory();
	/* sampled: 1/256 of the bytes, the staging area whole, the windows'
	 * pages of each buffer */
	uint64_t sampled = (full - staging) / 256 + staging + (uint64_t)t->nbuffers * 3 * 4096;
	char a[32], b[32], c[32];
	*sample = !strcmp(check, "sample");
	if (!full) /* the plan cannot be read: replay_run() says why */
		return 0;
	/* every byte is reserved (the pool and the staging area whole at the
	 * start), sampled or not; only the pages touched differ: the
	 * machine's memory, or the process's limit */
	struct rlimit rl;
	uint64_t room = total_memory();
	const char *what = "this machine has";
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < room) {
		room = rl.rlim_cur;
		what = "the process's address-space limit (ulimit -v) is";
	}
	if (full > room) {
		char d[32];
		cli_error("the host backend reserves %s of host memory, the pool (%s), the swaps' staging area (%s) and the buffers outside the pool, and %s %s, even checking samples: replay with --backend cuda, or where there is more memory",
			  cli_format_size(full, d, sizeof(d)), cli_format_size(pool, a, sizeof(a)),
			  cli_format_size(staging, b, sizeof(b)), what, cli_format_size(room, c, sizeof(c)));
		return MP_EXIT_INTERNAL;
	}
	if (!strcmp(check, "full")) {
		if (full <= avail)
			return 0;
		cli_error("a full check of this plan needs %s of host memory (the pool, the swaps' staging area and the buffers outside the pool) and %s is available: --check sample checks each buffer's ends and 4 KiB of every MiB in about %s, or replay with --backend cuda",
			  cli_format_size(full, a, sizeof(a)), cli_format_size(avail, b, sizeof(b)),
			  cli_format_size(sampled, c, sizeof(c)));
		return MP_EXIT_INTERNAL;
	}
	/* auto: full while it leaves a tenth of the memory to the rest */
	if (!*sample && full <= avail / 10 * 9)
		return 0;
	if (sampled > avail) {
		cli_error("replaying this plan needs %s of host memory even checking samples (%s for every byte), and %s is available: replay with --backend cuda, or on a machine with more memory",
			  cli_format_size(sampled, a, sizeof(a)), cli_format_size(full, b, sizeof(b)),
			  cli_format_size(avail, c, sizeof(c)));
		return MP_EXIT_INTERNAL;
	}
	if (!*sample)
		fprintf(stderr, "memplan-replay: note: a full check needs %s of host memory and %s is available: checking samples, each buffer's ends and 4 KiB of every MiB, in about %s (--check full insists)\n",
			cli_format_size(full, a, sizeof(a)), cli_format_size(avail, b, sizeof(b)),
			cli_format_size(sampled, c, sizeof(c)));
	*sample = 1;
	return 0;
}

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
		{ "check", required_argument, NULL, 'c' },
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
	const char *check = "auto";
	while ((c = getopt_long(argc, argv, "b:n:m:c:sh", opts, NULL)) != -1) {
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
		case 'c':
			if (strcmp(optarg, "auto") && strcmp(optarg, "full") && strcmp(optarg, "sample"))
				return cli_usage_error("--check: '%s' is not auto, full or sample", optarg);
			check = optarg;
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
	/* a plan of another trace: verify's wording and status, not a replay
	 * of the runtime falling back request by request */
	struct mp_plan plan;
	if (nt == 1 && mp_plan_read_file(ppath, &plan, err, sizeof(err)) == 0) {
		rc = cmd_plan_fits(ppath, &plan, tpath, t);
		mp_plan_free(&plan);
		if (rc) {
			trace_free(t);
			cycle_free(&cy);
			return rc;
		}
	}
	/* the host backend holds the pool in this process's memory */
	if (o.backend == MP_BACKEND_HOST && (rc = choose_check(check, ppath, t, &o.sample)) != 0) {
		trace_free(t);
		cycle_free(&cy);
		return rc;
	}
	if (o.backend != MP_BACKEND_HOST)
		o.sample = !strcmp(check, "sample");
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
	return cli_stdout_close(cli_run_json_errors(replay_main, argc, argv, 0));
}
