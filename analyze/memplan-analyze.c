/* SPDX-License-Identifier: MIT */
/*
 * memplan-analyze - where the memory of one iteration goes, what real
 * allocators would reserve, CI checks, diffs and timelines.  A thin layer:
 * parse options, load, call analyze/ library code, print once.
 * Subcommands come from one table; adding one is a function and a row.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "trace.h"
#include "tracedb.h"

#define ERRLEN 512

static const struct cli_command *find_cmd(const char *name);

/* Handles -h/--help and unknown options for every subcommand. */
static int opt_common(int c, const char *cmd)
{
	if (c == 'h') {
		cli_print_usage(stdout, find_cmd(cmd));
		return MP_EXIT_OK;
	}
	return cli_usage_error("%s: bad option (see '%s %s --help')", cmd,
			       cli_progname, cmd);
}

static int load_or_die(const char *path, struct trace **t)
{
	char err[ERRLEN];
	int rc = trace_load(path, t, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	return 0;
}

/* Parses --allocator NAME into a mask of models; 0 or a usage status. */
static int parse_allocator(const char *cmd, const char *name, unsigned *mask)
{
	int m = allocsim_from_name(name);
	if (m < 0)
		return cli_usage_error("%s: unknown allocator '%s' (known: cudamalloc, pytorch)",
				       cmd, name);
	*mask = 1u << m;
	return 0;
}

static int parse_top(const char *cmd, const char *s, size_t *top)
{
	uint64_t v;
	if (cli_parse_u64(s, &v) || v > 1000000)
		return cli_usage_error("%s: --top '%s' is not a count (0 for all)", cmd, s);
	*top = (size_t)v;
	return 0;
}

/* --- summary --------------------------------------------------------------- */

static int cmd_summary(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "top", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "allocator", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int json = 0, c, rc;
	size_t top = 10;
	unsigned mask = REPORT_ALL_ALLOCATORS;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:ja:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if ((rc = parse_top("summary", optarg, &top)))
				return rc;
			break;
		case 'j':
			json = 1;
			break;
		case 'a':
			if ((rc = parse_allocator("summary", optarg, &mask)))
				return rc;
			break;
		default:
			return opt_common(c, "summary");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("summary: expected one TRACE");
	const char *path = argv[optind];
	struct trace *t;
	if ((rc = load_or_die(path, &t)))
		return rc;
	struct report r;
	char err[ERRLEN];
	if ((rc = report_build(t, NULL, mask, &r, err, sizeof(err)))) {
		cli_error("trace '%s': %s", path, err);
		trace_free(t);
		return cli_exit_for(rc, 0) == MP_EXIT_USAGE ? MP_EXIT_INTERNAL
							    : cli_exit_for(rc, 0);
	}
	if (json)
		report_print_json(stdout, path, t, &r, top);
	else
		report_print_text(stdout, path, t, &r, top);
	report_free(&r);
	trace_free(t);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("cannot write to standard output");
		return MP_EXIT_OUTPUT;
	}
	return MP_EXIT_OK;
}

/* --- table ------------------------------------------------------------------ */

static const struct cli_command commands[] = {
	{ "summary", cmd_summary,
	  "summary [--top N] [--json] [--allocator cudamalloc|pytorch] TRACE",
	  "where the memory goes: peak, lower bound, live at the peak, swappable room, allocators" },
	{ 0 }
};

static const struct cli_command *find_cmd(const char *name)
{
	for (const struct cli_command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return &commands[0];
}

int main(int argc, char **argv)
{
	cli_progname = "memplan-analyze";
	return cli_dispatch(commands, argc, argv,
			    "Report where the memory of a traced iteration goes, what real "
			    "allocators would reserve for it, check it against limits in CI, "
			    "compare two traces and draw its timeline.");
}
