/* SPDX-License-Identifier: MIT */
/*
 * cmd_verify.c - memplan-plan verify: checks a plan file against a trace with
 * planfile_verify(), which trusts neither the solver nor the plan's own
 * figures.  Exit 1 when the plan does not fit, as for every failed check;
 * exit 6 (MP_EXIT_TRUSTED) when it fits only because it trusts trace holes
 * the runtime does not empty, unless --trust-holes accepts that.
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
	"      --json               the verdict as one JSON object\n"
	"      --trust-holes        exit 0 for a plan valid only if something else\n"
	"                           moves the trace's holes it trusts (else exit 6)\n"
	"  -h, --help               this text\n";

/* The verdict as one JSON object on stdout; error: the sentence of a plan
 * that does not fit (NULL when it fits). */
static void verdict_json(const char *ppath, const char *tpath,
			 const struct mp_plan *plan, uint32_t planned,
			 uint64_t holes, const char *error)
{
	struct json j;
	json_init(&j, stdout);
	json_object(&j, NULL);
	json_string(&j, "plan", ppath);
	json_string(&j, "trace", tpath);
	json_string(&j, "verdict", error ? "invalid" :
				   holes ? "valid_if_holes_moved" : "valid");
	json_bool(&j, "valid", !error && !holes);
	json_u64(&j, "holes_to_move", holes);
	json_bool(&j, "trusts_holes", (plan->flags & MP_PLAN_TRUSTS_HOLES) != 0);
	json_u64(&j, "requests", plan->nallocs);
	json_u64(&j, "planned", planned);
	json_u64(&j, "pool", plan->pool_size);
	json_u64(&j, "lower_bound", plan->lower_bound);
	json_u64(&j, "swaps", plan->nswaps);
	json_u64(&j, "workloads", plan->nworkloads);
	json_string(&j, "error", error);
	json_object_end(&j);
	json_finish(&j);
}

static int verify_run(int argc, char **argv);

/* Under --json, what stops before a verdict (usage, a file that cannot be
 * read) is one JSON error object; a verdict is verify's own object. */
int cmd_verify(int argc, char **argv)
{
	return cmd_run_json_errors(verify_run, argc, argv);
}

static int verify_run(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_TRUST };
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' },
					      { "json", no_argument, NULL, OPT_JSON },
					      { "trust-holes", no_argument, NULL, OPT_TRUST },
					      { 0 } };
	int c, as_json = 0, trust = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == OPT_JSON)
			as_json = 1;
		else if (c == OPT_TRUST)
			trust = 1;
		else
			return cli_option_error(c, "verify");
	}
	if (argc - optind < 2)
		return cli_usage_error("verify: expected PLAN and TRACE (several for a cycle plan)");
	const char *ppath = argv[optind], *tpath = argv[optind + 1];
	char err[ERRLEN];
	struct mp_plan plan;
	int rc = mp_plan_read_file(ppath, &plan, err, sizeof(err));
	if (rc) {
		cmd_plan_hint(ppath, err, sizeof(err));
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
	uint64_t holes = 0;
	if (!rc)
		rc = planfile_trusted_holes(&plan, t, &holes, err, sizeof(err));
	uint32_t planned = 0;
	for (uint32_t i = 0; i < plan.nallocs; i++)
		planned += plan.allocs[i].offset != MP_PLAN_PASS_THROUGH;
	int status = MP_EXIT_OK;
	if (rc == PLANFILE_EINVALID) {
		cli_error("plan '%s' does not fit trace '%s': %s", ppath, tpath, err);
		status = MP_EXIT_LIMIT;
		if (as_json)
			verdict_json(ppath, tpath, &plan, planned, 0, err);
	} else if (rc) {
		cli_error("%s", err);
		status = MP_EXIT_INTERNAL;
	} else if (as_json) {
		verdict_json(ppath, tpath, &plan, planned, holes, NULL);
	} else {
		if (holes)
			printf("%s: valid for %s only if something else moves %" PRIu64
			       " hole%s: the plan trusts the trace's holes, which the runtime does not empty",
			       ppath, tpath, holes, holes == 1 ? "" : "s");
		else
			printf("%s: valid for %s", ppath, tpath);
		printf(": %" PRIu32 " requests (%" PRIu32
		       " planned), pool %" PRIu64 " bytes, lower bound %" PRIu64
		       ", %" PRIu32 " swaps",
		       plan.nallocs, planned, plan.pool_size,
		       plan.lower_bound, plan.nswaps);
		if (plan.nworkloads)
			printf(", a cycle of %" PRIu32 " workload%s",
			       plan.nworkloads, plan.nworkloads == 1 ? "" : "s");
		printf("\n");
	}
	if (!rc && holes && !trust) {
		if (!as_json)
			cli_warn("plan '%s' relies on %" PRIu64 " trace hole%s that the runtime does not empty (exit %d; verify --trust-holes accepts that)",
				 ppath, holes, holes == 1 ? "" : "s",
				 MP_EXIT_TRUSTED);
		status = MP_EXIT_TRUSTED;
	}
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
	cycle_free(&cy);
	mp_plan_free(&plan);
	trace_free(t);
	return status;
}
