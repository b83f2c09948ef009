/* SPDX-License-Identifier: MIT */
/*
 * cmd_checkenv.c - memplan-plan check-env: a deployment's setup checked
 * without a GPU.  Reads the environment as libmemplan would (the one table
 * of MEMPLAN_* variables, runtime/options.c), names the variables nobody
 * reads with the nearest real name, opens every plan of MEMPLAN_PLAN and
 * says what the runtime would do; the runtime itself is silent until the
 * program's first CUDA allocation, and says nothing in a process without.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "options.h"
#include "plan.h"

/* The runtime's own limits (interpose.c): plans in MEMPLAN_PLAN, devices. */
enum { CHECK_MAX_PLANS = 16, CHECK_MAX_DEVICES = 64 };

struct check {
	int problems;
	int plan_problems; /* those that leave the runtime on the real allocator */
	int plans;    /* plans that open */
	int disabled; /* MEMPLAN_DISABLE on */
	int devices[CHECK_MAX_PLANS];
};

static void problem(struct check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct check *c, const char *fmt, ...)
{
	va_list ap;
	c->problems++;
	printf("problem: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Each MEMPLAN_* variable nobody reads, with the nearest known name. */
static void check_unknown(struct check *c)
{
	char name[128];
	size_t pos = 0;
	while (options_next_unknown(&pos, name, sizeof(name))) {
		const char *near = options_suggest(name);
		if (near)
			problem(c, "%s means nothing to libmemplan: did you mean %s?", name, near);
		else
			problem(c, "%s means nothing to libmemplan (see libmemplan(3))", name);
	}
}

/* Each variable of the table that is set: its value as the runtime takes
 * it, or the default it falls back to. */
static void check_values(struct check *c)
{
	static const char *const on_unsafe[] = { "warn", "abort", NULL };
	for (int i = 0; i < OPT_COUNT; i++) {
		const char *name = options_table[i].name, *v = getenv(name);
		if (!v || !*v)
			continue;
		int bad = 0;
		switch ((enum options_id)i) {
		case OPT_VERBOSE:
			options_long(OPT_VERBOSE, -1, 100, &bad);
			break;
		case OPT_MATCH:
			options_long(OPT_MATCH, 1, 1000000000, &bad);
			break;
		case OPT_SHOW_STATS:
			if (strcasecmp(v, "json") != 0)
				options_bool(OPT_SHOW_STATS, &bad);
			break;
		case OPT_DISABLE:
			c->disabled = options_bool(OPT_DISABLE, &bad) == 1;
			break;
		case OPT_ON_UNSAFE:
			options_choice(OPT_ON_UNSAFE, on_unsafe, &bad);
			break;
		case OPT_CUDART:
		case OPT_CUDA_DRIVER:
			/* a soname is the loader's to find; a path must be there */
			if (strchr(v, '/') && access(v, R_OK) != 0)
				problem(c, "%s='%s' cannot be read: the runtime would look for the library the process loaded", name, v);
			break;
		default:
			break;
		}
		if (bad) {
			c->problems++;
			printf("problem: %s='%s' means nothing to libmemplan: %s=%s would apply\n",
			       name, v, name, options_table[i].def);
		} else if (i != OPT_PLAN) {
			printf("ok: %s=%s\n", name, v);
		}
	}
}

/* One plan of MEMPLAN_PLAN: opens, and its device is not another's. */
static void check_plan(struct check *c, const char *path, int count)
{
	struct mp_plan p;
	char err[ERRLEN], pool[32];
	if (mp_plan_read_file(path, &p, err, sizeof(err)) != 0) {
		cmd_plan_hint(path, err, sizeof(err));
		problem(c, "%s", err);
		return;
	}
	int d = p.device;
	char dev[32];
	snprintf(dev, sizeof(dev), d < 0 ? "any device" : "device %d", d);
	printf("plan: %s: %s, pool %s, %u requests, %u swaps%s%s\n", path, dev,
	       cli_format_size(p.pool_size, pool, sizeof(pool)), (unsigned)p.nallocs,
	       (unsigned)p.nswaps, p.has_link ? ", link " : "", p.has_link ? p.link : "");
	if (d >= CHECK_MAX_DEVICES)
		problem(c, "plan '%s' is for device %d, past the runtime's %d", path, d,
			CHECK_MAX_DEVICES);
	if (d < 0 && count > 1)
		problem(c, "plan '%s' names no device, which only the one plan of MEMPLAN_PLAN may do",
			path);
	for (int j = 0; j < c->plans && j < CHECK_MAX_PLANS; j++)
		if (d >= 0 && c->devices[j] == d)
			problem(c, "plan '%s' is for the same device as an earlier one", path);
	if (c->plans < CHECK_MAX_PLANS)
		c->devices[c->plans] = d;
	c->plans++;
	mp_plan_free(&p);
}

static void check_plans_list(struct check *c);

/* The plans, and which problems are theirs (the runtime then runs on the
 * real allocator, where a bad value only costs a warning). */
static void check_plans(struct check *c)
{
	int before = c->problems;
	check_plans_list(c);
	c->plan_problems = c->problems - before;
}

static void check_plans_list(struct check *c)
{
	const char *list = getenv("MEMPLAN_PLAN");
	if (!list || !*list) {
		if (!c->disabled)
			problem(c, "MEMPLAN_PLAN is not set: the runtime would follow no plan");
		return;
	}
	int count = 0;
	for (const char *s = list; *s; s += strcspn(s, ",") + (s[strcspn(s, ",")] == ','))
		count += strcspn(s, ",") > 0;
	if (count > CHECK_MAX_PLANS)
		problem(c, "MEMPLAN_PLAN names %d plans, more than the runtime's %d", count,
			CHECK_MAX_PLANS);
	for (const char *s = list; *s;) {
		size_t n = strcspn(s, ",");
		if (n) {
			char path[4096];
			snprintf(path, sizeof(path), "%.*s", (int)(n < sizeof(path) ? n : sizeof(path) - 1), s);
			check_plan(c, path, count);
		}
		s += n + (s[n] == ',');
	}
}

/* Whether the dynamic loader would put libmemplan into the program: an
 * entry of LD_PRELOAD (':' or ' ' apart) that names it, and can be read. */
static void check_preload(struct check *c)
{
	const char *pre = getenv("LD_PRELOAD");
	int named = 0;
	for (const char *s = pre ? pre : ""; *s;) {
		size_t n = strcspn(s, ": ");
		char path[4096];
		snprintf(path, sizeof(path), "%.*s", (int)(n < sizeof(path) ? n : sizeof(path) - 1), s);
		if (n && strstr(path, "libmemplan")) {
			named = 1;
			if (access(path, R_OK) == 0)
				printf("ok: LD_PRELOAD names %s\n", path);
			else
				problem(c, "LD_PRELOAD names '%s', which cannot be read: the program would run without libmemplan",
					path);
		}
		s += n + (s[n] != '\0');
	}
	if (!named)
		printf("note: LD_PRELOAD does not name libmemplan.so: the runtime is loaded only "
		       "through PyTorch's pluggable allocator (libmemplan(3)), or with "
		       "LD_PRELOAD=/path/to/libmemplan.so\n");
}

const char cmd_checkenv_options[] =
	"  -h, --help               this text\n";

int cmd_checkenv(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		return cli_option_error(ch, "check-env");
	if (optind < argc)
		return cli_usage_error("check-env: takes no argument (it reads the environment)");
	/* this command names them itself, once, as problems */
	options_no_unknown_warning();
	struct check c = { 0 };
	check_unknown(&c);
	check_values(&c);
	check_plans(&c);
	int before_preload = c.problems;
	check_preload(&c);
	int runs = c.plans && !c.plan_problems && c.problems == before_preload;
	if (c.disabled)
		printf("verdict: MEMPLAN_DISABLE is on: libmemplan would forward every call to the real allocator\n");
	else if (c.problems)
		printf("verdict: %d problem%s: libmemplan would %s\n", c.problems,
		       c.problems == 1 ? "" : "s",
		       runs ? "follow the plans, after warnings" :
			      c.plan_problems || !c.plans ? "run on the real allocator" :
							    "not be loaded");
	else
		printf("verdict: libmemplan would follow %d plan%s from the program's first CUDA "
		       "allocation (a process that makes none sees nothing of it, statistics "
		       "included); each plan's device is checked against the machine's then\n",
		       c.plans, c.plans == 1 ? "" : "s");
	if (fflush(stdout) != 0)
		return MP_EXIT_OUTPUT;
	return c.problems ? MP_EXIT_LIMIT : MP_EXIT_OK;
}
