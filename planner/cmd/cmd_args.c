/* SPDX-License-Identifier: MIT */
/*
 * cmd_args.c - what memplan-plan's commands make of their arguments alike
 * (cmd.h): option values (seconds, strategy names), a TRACE loaded into its
 * placement problem, the --link chosen, and the exit status a library's
 * failure gets.  Everything here prints at most the one error line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc_clock.h"
#include "cli.h"
#include "cmd.h"
#include "cycle.h"
#include "json_errors.h"
#include "input.h"
#include "json.h"
#include "plan.h"
#include "planfile.h"
#include "slice.h"
#include "swap.h"
#include "swapbound.h"

int cmd_parse_seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v > 0) || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

int cmd_parse_work(const char *s, uint64_t *out)
{
	uint64_t w = SOLVER_DEFAULT_WORK_LIMIT;
	if (s && (cli_parse_u64(s, &w) || w == 0))
		return -1;
	*out = w;
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
	cmd_warn_iterations(*t, path);
	return problem_of(path, align, keep_holes, t, p);
}

void cmd_warn_iterations(const struct trace *t, const char *path)
{
	struct slice_period per;
	size_t ranges = slice_count_ranges(t, "iteration");
	if (ranges >= 2) {
		cli_warn("trace '%s' holds %zu ranges named 'iteration' and is planned as one, all of them together; to plan one iteration, cut it out first: 'memplan-trace slice %s --iteration 2 -o STEP.trace'",
			 path, ranges, path);
		return;
	}
	if (ranges == 1 || slice_detect(t, &per) != 0 || !per.found ||
	    per.iterations < 2)
		return;
	cli_warn("trace '%s' holds %zu complete iterations (a period of %zu allocation requests, as 'memplan-trace info' detects it) and is planned as one, all of them together; to plan one iteration, cut it out first: 'memplan-trace slice %s --auto --iteration 2 -o STEP.trace'",
		 path, per.iterations, per.period, path);
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
		*align = solver_trace_align(*t, *align);
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

/* A bare number: digits and at most one point, nothing else. */
static int bare_number(const char *s)
{
	int digits = 0, points = 0;
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digits++;
		else if (*s == '.')
			points++;
		else
			return 0;
	}
	return digits && points <= 1;
}

int cmd_parse_budget(const char *cmd, const char *s, uint64_t lb,
		     uint64_t *out)
{
	size_t n = strlen(s);
	if (n > 1 && s[n - 1] == '%') {
		char buf[32];
		if (n - 1 >= sizeof(buf))
			goto bad;
		memcpy(buf, s, n - 1);
		buf[n - 1] = '\0';
		char *end;
		double v = strtod(buf, &end);
		if (end == buf || *end || !(v > 0) || v > 100)
			goto bad;
		*out = (uint64_t)((double)lb * v / 100.0);
		return 0;
	}
	/* "0.7" is a fraction: 70% */
	if (bare_number(s) && strtod(s, NULL) > 0 && strtod(s, NULL) < 1)
		return cli_usage_error("%s: --budget %s: did you mean %g%%? (a bare number up to 100 is ambiguous: write %g%% for that fraction of the lower bound without swaps, or %s%% for %s percent)",
				       cmd, s, strtod(s, NULL) * 100,
				       strtod(s, NULL) * 100, s, s);
	/* "70" is far more likely 70% than 70 bytes */
	if (bare_number(s) && strtod(s, NULL) <= 100)
		return cli_usage_error("%s: --budget %s: did you mean %s%%? (a bare number up to 100 is ambiguous: write %s%% for a percentage of the lower bound without swaps, or %sB for bytes)",
				       cmd, s, s, s, s);
	if (cli_parse_size(s, out) == 0)
		return 0;
bad:
	return cli_usage_error("%s: --budget '%s' is not a size or a percentage from 0 to 100%%",
			       cmd, s);
}

uint64_t cmd_persistent_bytes(const struct trace *t)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < t->nbuffers; i++)
		if (trace_buffer_persistent(&t->buffers[i]))
			sum += t->buffers[i].size;
	return sum;
}

int cmd_device_budget(const char *s, uint64_t persistent, uint64_t *out)
{
	uint64_t dev;
	char a[32], b[32];
	if (cli_parse_size(s, &dev))
		return cli_usage_error("compile: --device-budget '%s' is not a size",
				       s);
	if (persistent >= dev) {
		cli_error("no plan fits --device-budget %s: the buffers that outlive the iteration (weights, optimizer state) alone take %s (%" PRIu64 " bytes), leaving nothing for the pool",
			  cli_format_size(dev, a, sizeof(a)),
			  cli_format_size(persistent, b, sizeof(b)), persistent);
		return MP_EXIT_LIMIT;
	}
	*out = dev - persistent;
	return 0;
}

int cmd_swap_blind(const struct trace *t, char *why, size_t len)
{
	size_t n = 0, unused = 0, timed = 0;
	/* without the seq clock and GPU timestamps swap planning refuses the
	 * trace itself, saying so (alloc_clock_build()) */
	for (size_t i = 0; i < t->nevents && !timed; i++)
		timed += t->events[i].t_start != TRACE_TIME_NONE;
	if (t->clock != TRACE_CLOCK_SEQ || !timed)
		return 0;
	for (size_t i = 0; i < t->nbuffers; i++)
		if (trace_buffer_poolable(&t->buffers[i])) {
			n++;
			unused += t->buffers[i].nuses == 0;
		}
	if (n == 0 || unused * 2 <= n)
		return 0;
	const char *src = trace_get_meta(t, "source");
	const char *what = !src ? NULL
			   : strcmp(src, "pytorch-snapshot") == 0 ? "a PyTorch snapshot"
			   : strcmp(src, "nsys-sqlite") == 0	  ? "an Nsight Systems export"
								  : NULL;
	char from[96] = "";
	if (what)
		snprintf(from, sizeof(from), " (%s holds only allocs and frees)",
			 what);
	if (unused == n)
		snprintf(why, len, "it records no kernel access to its buffers%s, so nothing says when a buffer is idle and no swap or recomputation can be planned",
			 from);
	else
		snprintf(why, len, "it records kernel accesses to only %zu of its %zu pool buffers; the others would look idle from alloc to free, so no swap or recomputation can be planned honestly",
			 n - unused, n);
	return 1;
}

int cmd_refuse_swaps(const char *cmd, const char *path, uint64_t lb,
		     const char *why)
{
	char a[32];
	cli_error("%s: trace '%s' cannot be planned below its lower bound without swaps, %s (%" PRIu64 " bytes): %s",
		  cmd, path, cli_format_size(lb, a, sizeof(a)), lb, why);
	fprintf(stderr,
		"  a budget at or above %s (100%%) needs no swap and fits: 'memplan-plan compile %s --budget 100%%' plans it\n"
		"  to plan swaps, record the accesses: import an execution trace with its Kineto profile ('memplan-trace import --from pytorch-et ET.json --kineto KINETO.json -o TRACE') or capture the iteration ('memplan-capture -o TRACE -- PROGRAM')\n",
		cli_format_size(lb, a, sizeof(a)), path);
	return MP_EXIT_INPUT;
}

void cmd_explain_no_fit(const struct trace *t, const char *path, uint64_t lb,
			uint64_t budget)
{
	struct link_model inf;
	struct swap_bound b;
	char err[ERRLEN], a[32], c[32];
	memset(&b, 0, sizeof(b));
	if (link_parse("infinite", NULL, &inf, err, sizeof(err)) == 0 &&
	    swapbound_compute(t, &inf, 0, &b, err, sizeof(err)) == 0 &&
	    b.computed && lb) {
		double pct = 100.0 * (double)b.bytes / (double)lb;
		if (budget < b.bytes)
			fprintf(stderr,
				"  no budget below the swap floor of this trace, %s (%.1f%% of the lower bound without swaps, %s), can fit: no swap plan holds less, on any link\n",
				cli_format_size(b.bytes, a, sizeof(a)), pct,
				cli_format_size(lb, c, sizeof(c)));
		else
			fprintf(stderr,
				"  the swap floor of this trace is %s (%.1f%% of the lower bound without swaps, %s): no plan holds less on any link; this budget is above it, but the strategy's swaps do not reach it\n",
				cli_format_size(b.bytes, a, sizeof(a)), pct,
				cli_format_size(lb, c, sizeof(c)));
	}
	fprintf(stderr,
		"  'memplan-plan frontier %s' shows which budgets each swap strategy fits, and at what overhead\n",
		path);
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

int cmd_plan_fits(const char *ppath, const struct mp_plan *plan, const char *tpath,
		  const struct trace *t)
{
	if (plan->nworkloads) /* a cycle's fingerprints are its workloads' */
		return MP_EXIT_OK;
	struct mp_plan_fp fp;
	mp_plan_fp_init(&fp);
	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].type == TRACE_EV_ALLOC && trace_event_request(t, &t->events[i]))
			mp_plan_fp_update(&fp, t->buffers[t->events[i].buffer].size);
	uint64_t f = mp_plan_fp_final(&fp);
	if (fp.n == plan->nallocs && f == plan->fingerprint)
		return MP_EXIT_OK;
	cli_error("plan '%s' does not fit trace '%s': fingerprint mismatch: the plan was made for another request sequence (plan: %u requests, fingerprint 0x%016llx; trace: %llu requests, fingerprint 0x%016llx)",
		  ppath, tpath, plan->nallocs, (unsigned long long)plan->fingerprint,
		  (unsigned long long)fp.n, (unsigned long long)f);
	return MP_EXIT_LIMIT;
}

void cmd_plan_hint(const char *path, char *err, size_t errlen)
{
	input_explain(path, "plan", err, errlen);
}

int cmd_run_json_errors(int (*run)(int, char **), int argc, char **argv)
{
	return cli_run_json_errors(run, argc, argv, 1);
}
