/* SPDX-License-Identifier: MIT */
/*
 * cmd_verify.c - memplan-plan verify: checks a plan file against a trace with
 * planfile_verify(), which trusts neither the solver nor the plan's own
 * figures.  Exit 1 when the plan does not fit, as for every failed check.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "cmd.h"
#include "cycle.h"
#include "input.h"
#include "json.h"
#include "plan.h"
#include "planfile.h"

const char cmd_verify_options[] =
	"  -j, --json               print the verdict as one JSON object (on failure:\n"
	"                           the error, the exit status and the messages)\n"
	"  -h, --help               this text\n";

static int verify_run(int argc, char **argv);

int cmd_verify(int argc, char **argv)
{
	return cmd_run_json_errors(verify_run, argc, argv);
}

static int verify_run(int argc, char **argv)
{
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' },
					      { "help", no_argument, NULL, 'h' },
					      { 0 } };
	int c, json = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (c != 'j')
			return cli_option_error(c, "verify");
		json = 1;
	}
	if (argc - optind < 2)
		return cli_usage_error("verify: expected PLAN and TRACE (several for a cycle plan)");
	const char *ppath = argv[optind], *tpath = argv[optind + 1];
	char err[ERRLEN];
	struct mp_plan plan;
	int rc = mp_plan_read_file(ppath, &plan, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	/* a cycle plan: its workloads' traces concatenated, in order */
	struct trace *t;
	struct cycle cy = { 0 };
	size_t nt = (size_t)(argc - optind - 1);
	if (nt > 1 || plan.nworkloads) {
		rc = cycle_load(argv + optind + 1, nt, &t, &cy, err, sizeof(err));
		if (!rc && (rc = cycle_check(&plan, &cy, err, sizeof(err)))) {
			cli_error("plan '%s' does not fit the traces: %s", ppath, err);
			cycle_free(&cy);
			trace_free(t);
			mp_plan_free(&plan);
			return MP_EXIT_LIMIT;
		}
	} else {
		rc = input_load(tpath, &t, err, sizeof(err));
	}
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
		if (json) {
			printf("{\"plan\":");
			json_quote(stdout, ppath);
			printf(",\"trace\":");
			json_quote(stdout, tpath);
			printf(",\"valid\":true,\"requests\":%" PRIu32
			       ",\"planned\":%" PRIu32 ",\"pool\":%" PRIu64
			       ",\"lower_bound\":%" PRIu64 ",\"swaps\":%" PRIu32
			       ",\"workloads\":%" PRIu32 "}\n",
			       plan.nallocs, planned, plan.pool_size,
			       plan.lower_bound, plan.nswaps, plan.nworkloads);
		} else {
			printf("%s: valid for %s: %" PRIu32 " requests (%" PRIu32
			       " planned), pool %" PRIu64 " bytes, lower bound %" PRIu64
			       ", %" PRIu32 " swaps",
			       ppath, tpath, plan.nallocs, planned, plan.pool_size,
			       plan.lower_bound, plan.nswaps);
			if (plan.nworkloads)
				printf(", a cycle of %" PRIu32 " workload%s",
				       plan.nworkloads, plan.nworkloads == 1 ? "" : "s");
			printf("\n");
		}
		if (fflush(stdout) != 0)
			status = MP_EXIT_OUTPUT;
	}
	cycle_free(&cy);
	mp_plan_free(&plan);
	trace_free(t);
	return status;
}
