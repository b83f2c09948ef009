/* SPDX-License-Identifier: MIT */
/*
 * cmd_args.c - what memplan-plan's commands make of their arguments alike
 * (cmd.h): option values (seconds, strategy names), a TRACE loaded into its
 * placement problem, the --link chosen, and the exit status a library's
 * failure gets.  Everything here prints at most the one error line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "input.h"
#include "plan.h"
#include "planfile.h"
#include "swap.h"

int cmd_parse_seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v > 0) || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

void cmd_strategy_names(char *buf, size_t len, int heuristics_only)
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

int cmd_load_problem(const char *path, uint64_t *align, int keep_holes,
		     struct trace **t, struct solver_problem *p)
{
	char err[ERRLEN];
	memset(p, 0, sizeof(*p));
	int rc = input_load(path, t, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	rc = solver_problem_from_trace(*t, p, err, sizeof(err));
	/* the runtime moves no bytes for a trace's own holes: resident unless
	 * the caller trusts something else to move them (and says so) */
	if (!rc && !keep_holes)
		solver_problem_drop_holes(p);
	if (!rc)
		*align = planfile_align(*t, *align);
	if (!rc && *align > 1)
		rc = solver_problem_align(p, *align, err, sizeof(err));
	if (rc) {
		cli_error("trace '%s': %s", path, err);
		return cmd_solver_exit(rc);
	}
	if (p->n == 0) {
		cli_error("trace '%s' has no transient buffers to plan (everything outlives the iteration or passes through)",
			  path);
		return MP_EXIT_INPUT;
	}
	return 0;
}

const char *cmd_link_spec(const char *spec, const struct trace *t)
{
	if (spec)
		return spec;
	return trace_get_meta(t, "bandwidth_h2d") &&
			       trace_get_meta(t, "bandwidth_d2h")
		       ? "measured"
		       : "pcie5";
}

int cmd_pick_link(const char *spec, const struct trace *t,
		  struct link_model *l)
{
	char err[ERRLEN];
	const char *s = cmd_link_spec(spec, t);
	if (link_parse(s, t, l, err, sizeof(err)) == 0)
		return 0;
	cli_error("%s", err);
	return spec && strncmp(spec, "measured", 8) != 0 ? MP_EXIT_USAGE
							 : MP_EXIT_INPUT;
}

int cmd_plan_link(const char *spec, const struct mp_plan *plan,
		  const struct trace *t, struct link_model *l,
		  const char **source)
{
	char err[ERRLEN];
	if (!spec && plan->has_link) {
		*source = "the plan's link";
		if (link_parse(plan->link, t, l, err, sizeof(err)) == 0)
			return 0;
		cli_error("the plan's link '%s': %s", plan->link, err);
		return MP_EXIT_INPUT;
	}
	if (spec && plan->has_link && strcmp(spec, plan->link) != 0)
		cli_warn("--link '%s' overrides the plan's link '%s', which its swaps were planned for",
			 spec, plan->link);
	*source = spec ? "--link"
		       : "the default: the plan records no link";
	return cmd_pick_link(spec, t, l);
}

int cmd_link_storable(const char *spec)
{
	size_t n = strlen(spec);
	if (n >= MP_PLAN_LINK_LEN)
		return cli_usage_error("--link '%.40s...' is %zu characters long; the plan stores at most %d",
				       spec, n, MP_PLAN_LINK_LEN - 1);
	for (size_t i = 0; i < n; i++)
		if (spec[i] < 0x20 || spec[i] > 0x7e)
			return cli_usage_error("--link: character %zu is not printable ASCII",
					       i + 1);
	return 0;
}

int cmd_solver_exit(int rc)
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

int cmd_swap_exit(int rc)
{
	if (rc == SWAP_ENOFIT)
		return MP_EXIT_LIMIT;
	if (rc == TRACE_EINVAL || rc == SOLVER_EINVAL)
		return MP_EXIT_INPUT;
	if (rc == SOLVER_ENOTFOUND)
		return MP_EXIT_USAGE;
	return MP_EXIT_INTERNAL;
}
