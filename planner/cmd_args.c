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
#include "cycle.h"
#include "input.h"
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

static int problem_of(const char *path, uint64_t *align, int keep_holes,
		      struct trace **t, struct solver_problem *p);

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
	return problem_of(path, align, keep_holes, t, p);
}

int cmd_load_cycle(char *const *paths, size_t n, uint64_t *align,
		   int keep_holes, struct trace **t, struct solver_problem *p,
		   struct cycle *cy)
{
	char err[ERRLEN], name[64];
	memset(p, 0, sizeof(*p));
	int rc = cycle_load(paths, n, t, cy, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	snprintf(name, sizeof(name), "cycle of %zu traces", n);
	return problem_of(name, align, keep_holes, t, p);
}

/* The placement problem of loaded trace *t (named path in errors). */
static int problem_of(const char *path, uint64_t *align, int keep_holes,
		      struct trace **t, struct solver_problem *p)
{
	char err[ERRLEN];
	int rc = solver_problem_from_trace(*t, p, err, sizeof(err));
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

int cmd_pick_link(const char *spec, const struct trace *t,
		  struct link_model *l)
{
	char err[ERRLEN];
	const char *s = spec;
	if (!s)
		s = trace_get_meta(t, "bandwidth_h2d") &&
				    trace_get_meta(t, "bandwidth_d2h")
			    ? "measured"
			    : "pcie5";
	if (link_parse(s, t, l, err, sizeof(err)) == 0)
		return 0;
	cli_error("%s", err);
	return spec && strncmp(spec, "measured", 8) != 0 ? MP_EXIT_USAGE
							 : MP_EXIT_INPUT;
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
