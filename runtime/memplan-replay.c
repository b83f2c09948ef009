/* SPDX-License-Identifier: MIT */
/*
 * memplan-replay.c - the memplan-replay command: a plan validated end to
 * end without the application.  Parses options, loads the trace and hands
 * both to replay_run() (runtime/replay.c); prints each problem and one
 * verdict line.  Exit: 0 valid, 1 invalid, 2 usage, 3 bad input, 5 the
 * runtime could not run (no CUDA, no memory for the pool).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "replay.h"
#include "tracedb.h"

#define ERRLEN 1024

static const char usage[] =
	"usage: memplan-replay [--backend host|cuda] [--iterations N] [--max-reports N] PLAN TRACE\n"
	"\n"
	"Drives the runtime (libmemplan) with the requests of TRACE following PLAN,\n"
	"writes a pattern unique to each buffer at its alloc and checks it at every\n"
	"use and at its free.  Exit status: 0 valid, 1 invalid (an overlap, a lost\n"
	"swap, a divergence), 2 usage, 3 bad input, 5 the runtime could not run.\n"
	"\n"
	"  -b, --backend B      host (default: host memory, no GPU) or cuda\n"
	"  -n, --iterations N   iterations to drive (default 2)\n"
	"  -m, --max-reports N  problems described in full (default 10)\n"
	"  -h, --help           this text\n"
	"      --version        the version\n";

static void report(void *ctx, const char *text)
{
	(void)ctx;
	printf("problem: %s\n", text);
}

int main(int argc, char **argv)
{
	cli_progname = "memplan-replay";
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "max-reports", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct replay_opts o = { .backend = MP_BACKEND_HOST, .iterations = 2,
				 .max_reports = 10 };
	uint64_t n;
	int c;
	while ((c = getopt_long(argc, argv, "b:n:m:h", opts, NULL)) != -1) {
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
	if (optind != argc - 2)
		return cli_usage_error("expected PLAN and TRACE");
	const char *ppath = argv[optind], *tpath = argv[optind + 1];
	char err[ERRLEN];
	struct trace *t;
	int rc = trace_load(tpath, &t, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	struct replay_result res;
	rc = replay_run(t, ppath, &o, &res, report, NULL, err, sizeof(err));
	trace_free(t);
	if (rc) {
		cli_error("%s", err);
		return rc == TRACE_EINVAL || rc == TRACE_ENOMEM ? MP_EXIT_INTERNAL :
								   cli_exit_for(rc, 0);
	}
	if (res.problems > o.max_reports)
		printf("problem: ... and %" PRIu64 " more\n", res.problems - o.max_reports);
	printf("%s: %s: %" PRIu64 " iterations (%" PRIu64 " followed), %" PRIu64
	       " requests (%" PRIu64 " from the pool), %" PRIu64 " checks of %" PRIu64
	       " bytes, %" PRIu64 " swaps out, %" PRIu64 " problems\n",
	       ppath, res.problems ? "invalid" : "valid", res.iterations,
	       res.followed, res.requests, res.stats.planned_allocs, res.checks,
	       res.bytes_checked, res.stats.swaps_out, res.problems);
	if (fflush(stdout) != 0)
		return MP_EXIT_OUTPUT;
	return res.problems ? MP_EXIT_LIMIT : MP_EXIT_OK;
}
