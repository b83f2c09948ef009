/* SPDX-License-Identifier: MIT */
/*
 * cmd_pergpu.c - memplan-plan compile --per-gpu: plans N data-parallel GPUs
 * sharing one link jointly (mgpu_plan()) and writes PREFIX.gpuK.plan for
 * each device K, each verified and carrying its device, for MEMPLAN_PLAN's
 * per-device list; reports each GPU's overhead in the joint simulation and
 * that of N identical lock-step plans.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "json.h"
#include "multigpu.h"
#include "plan.h"
#include "swap.h"

int cmd_compile_per_gpu(const char *path, const char *prefix,
			const char *link_s, uint64_t align,
			const char *budget_s, double max_overhead, int json)
{
	struct trace *t = NULL;
	struct solver_problem p;
	struct mgpu_result r;
	struct link_model l;
	char err[ERRLEN];
	char (*out)[4096] = NULL;
	memset(&r, 0, sizeof(r));
	int status = cmd_load_problem(path, &align, 0, &t, &p);
	if (status)
		goto done;
	uint64_t budget;
	uint64_t lb = solver_lower_bound(&p);
	status = cmd_parse_budget("compile", budget_s, lb, &budget);
	if (status)
		goto done;
	if (budget < lb && cmd_swap_blind(t, err, sizeof(err))) {
		status = cmd_refuse_swaps("compile --per-gpu", path, lb, err);
		goto done;
	}
	status = cmd_pick_link(link_s, t, &l);
	if (status)
		goto done;
	out = calloc(l.gpus, sizeof(*out));
	if (!out) {
		cli_error("out of memory");
		status = MP_EXIT_INTERNAL;
		goto done;
	}
	for (unsigned g = 0; g < l.gpus; g++) {
		int w = snprintf(out[g], sizeof(out[g]), "%s.gpu%u.plan", prefix, g);
		if (w < 0 || (size_t)w >= sizeof(out[g])) {
			status = cli_usage_error("compile: -o '%s' makes too long a path", prefix);
			goto done;
		}
		if (cli_same_file(path, out[g])) {
			status = cli_usage_error("compile: the output '%s' is the input trace: write the plans elsewhere",
						 out[g]);
			goto done;
		}
	}
	int rc = mgpu_plan(t, &p, &l, budget, align, &r, err, sizeof(err));
	if (rc) {
		cli_error("no plan fits --budget %" PRIu64 " bytes for trace '%s': %s",
			  budget, path, err);
		status = cmd_swap_exit(rc);
		goto done;
	}
	/* the worst GPU judged as compile judges its one plan */
	if (max_overhead >= 0 && r.worst > max_overhead) {
		cli_error("the plans for trace '%s' are predicted %.2f%% slower than the trace on the worst GPU over %s, above --max-overhead %g%%; no plan written (a larger budget costs less: 'memplan-plan frontier %s' shows how much)",
			  path, r.worst, l.name, max_overhead, path);
		status = MP_EXIT_LIMIT;
		goto done;
	}
	if (max_overhead < 0 && r.worst > CMD_WARN_OVERHEAD)
		cli_warn("the plans are predicted %.2f%% slower than the trace on the worst GPU over %s (--max-overhead P refuses such plans; 'memplan-plan frontier %s' shows the overhead of each budget)",
			 r.worst, l.name, path);
	for (unsigned g = 0; g < r.n; g++) {
		/* the LINK section, as compile --budget writes it: the link
		 * every GPU's swaps were planned on together */
		snprintf(r.plans[g].link, sizeof(r.plans[g].link), "%s",
			 cmd_link_spec(link_s, t));
		r.plans[g].has_link = 1;
		rc = mp_plan_write_file(out[g], &r.plans[g], err, sizeof(err));
		if (rc) {
			cli_error("%s", err);
			status = rc == MP_PLAN_EIO ? MP_EXIT_OUTPUT : MP_EXIT_INTERNAL;
			goto done;
		}
	}
	if (json) {
		struct json j;
		json_init(&j, stdout);
		json_object(&j, NULL);
		json_string(&j, "trace", path);
		json_string(&j, "link", l.name);
		json_u64(&j, "gpus", r.n);
		json_u64(&j, "budget", budget);
		json_u64(&j, "candidates", r.ncandidates);
		json_array(&j, "per_gpu");
		for (unsigned g = 0; g < r.n; g++) {
			json_object(&j, NULL);
			json_u64(&j, "gpu", g);
			json_string(&j, "plan", out[g]);
			json_u64(&j, "pool", r.plans[g].pool_size);
			json_u64(&j, "swaps", r.plans[g].nswaps);
			json_string(&j, "made_as", r.about[r.choice[g]]);
			json_u64(&j, "base_ns", (uint64_t)llround(r.gpus[g].base_ns));
			json_u64(&j, "iter_ns", (uint64_t)llround(r.gpus[g].iter_ns));
			json_u64(&j, "stall_ns", (uint64_t)llround(r.gpus[g].stall_ns));
			json_double(&j, "overhead_percent", r.gpus[g].overhead);
			json_double(&j, "lockstep_overhead_percent", r.lock[g].overhead);
			json_object_end(&j);
		}
		json_array_end(&j);
		json_double(&j, "worst_overhead_percent", r.worst);
		json_double(&j, "lockstep_overhead_percent", r.lockstep);
		json_double(&j, "best_identical_overhead_percent", r.identical);
		json_object_end(&j);
		json_finish(&j);
	} else {
		char a[32];
		printf("%u GPUs on %s at --budget %s each: worst overhead %.2f%%, lock step %.2f%%, the best plan all could share %.2f%% (%zu candidate plans)\n",
		       r.n, l.name, cli_format_size(budget, a, sizeof(a)), r.worst,
		       r.lockstep, r.identical, r.ncandidates);
		for (unsigned g = 0; g < r.n; g++)
			printf("  %s: pool %s, %" PRIu32 " swaps (%s), overhead %.2f%%, stall %.3f ms\n",
			       out[g], cli_format_size(r.plans[g].pool_size, a, sizeof(a)),
			       r.plans[g].nswaps, r.about[r.choice[g]],
			       r.gpus[g].overhead, r.gpus[g].stall_ns / 1e6);
		printf("MEMPLAN_PLAN=");
		for (unsigned g = 0; g < r.n; g++)
			printf("%s%s", g ? "," : "", out[g]);
		printf("\n");
	}
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
done:
	free(out);
	mgpu_result_free(&r);
	solver_problem_free(&p);
	trace_free(t);
	return status;
}
