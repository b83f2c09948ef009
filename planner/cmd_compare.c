/* SPDX-License-Identifier: MIT */
/*
 * cmd_compare.c - memplan-plan compare: placement strategies over many traces
 * (compare_run(), one worker thread per -j) tabulated as pool / lower bound
 * and time per strategy, as text, CSV or JSON.  A trace that fails keeps its
 * row, with the error, and sets the exit status.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "compare.h"
#include "json.h"

/* A CSV field: quoted when it holds a comma, quote or line break. */
static void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
	fputc('"', f);
}

/* The exit status of a row's error (its first). */
static int compare_exit(const struct compare_row *r)
{
	int st = r->failed_at == COMPARE_LOAD ? cli_exit_for(r->rc, 0)
					      : cmd_solver_exit(r->rc);
	return st ? st : MP_EXIT_INTERNAL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static double ratio(uint64_t pool, uint64_t lb)
{
	return lb ? (double)pool / (double)lb : 0.0;
}

static void compare_csv_header(const struct compare_job *j)
{
	printf("trace,buffers,lower_bound");
	for (size_t s = 0; s < j->nstrat; s++) {
		const char *n = j->strategies[s];
		printf(",%s_pool,%s_ratio,%s_seconds,%s_optimal", n, n, n, n);
	}
	printf(",error\n");
}

static void compare_csv(const struct compare_job *j, int header)
{
	if (header)
		compare_csv_header(j);
	for (size_t i = 0; i < j->nrows; i++) {
		const struct compare_row *r = &j->rows[i];
		csv_str(stdout, r->path);
		printf(",%zu,%" PRIu64, r->buffers, r->lower_bound);
		for (size_t s = 0; s < j->nstrat; s++) {
			const struct compare_cell *c = &r->cells[s];
			if (c->failed || !c->pool)
				printf(",,,,");
			else
				printf(",%" PRIu64 ",%.6f,%.3f,%d", c->pool,
				       ratio(c->pool, r->lower_bound), c->seconds,
				       c->optimal);
		}
		putchar(',');
		csv_str(stdout, r->error ? r->error : "");
		putchar('\n');
	}
}

static void compare_json(const struct compare_job *j)
{
	printf("{\"strategies\":[");
	for (size_t s = 0; s < j->nstrat; s++) {
		printf(s ? "," : "");
		json_quote(stdout, j->strategies[s]);
	}
	printf("],\"time_limit\":%.3f,\"traces\":[", j->limit);
	for (size_t i = 0; i < j->nrows; i++) {
		const struct compare_row *r = &j->rows[i];
		printf("%s{\"trace\":", i ? "," : "");
		json_quote(stdout, r->path);
		printf(",\"buffers\":%zu,\"lower_bound\":%" PRIu64 ",\"results\":[",
		       r->buffers, r->lower_bound);
		for (size_t s = 0; s < j->nstrat; s++) {
			const struct compare_cell *c = &r->cells[s];
			printf("%s{\"strategy\":", s ? "," : "");
			json_quote(stdout, j->strategies[s]);
			if (c->failed || !c->pool)
				printf(",\"pool\":null,\"ratio\":null,\"seconds\":null,\"optimal\":false}");
			else
				printf(",\"pool\":%" PRIu64 ",\"ratio\":%.6f,\"seconds\":%.3f,\"optimal\":%s}",
				       c->pool, ratio(c->pool, r->lower_bound),
				       c->seconds, c->optimal ? "true" : "false");
		}
		printf("],\"error\":");
		if (r->error)
			json_quote(stdout, r->error);
		else
			printf("null");
		putchar('}');
	}
	printf("]}\n");
}

/* The table for people: one row per trace, pool / lower bound and time per
 * strategy, "optimal" where proven. */
static void compare_text(const struct compare_job *j, int header)
{
	int w = 12;
	for (size_t i = 0; i < j->nrows; i++) {
		int n = (int)strlen(base_name(j->rows[i].path));
		if (n > w)
			w = n;
	}
	if (w > 40)
		w = 40;
	if (header) {
		printf("%-*s %8s %14s", w, "trace", "buffers", "lower bound");
		for (size_t s = 0; s < j->nstrat; s++)
			printf("   %-22s", j->strategies[s]);
		printf("\n");
	}
	for (size_t i = 0; i < j->nrows; i++) {
		const struct compare_row *r = &j->rows[i];
		if (r->error && !r->buffers)
			printf("%-*.*s %8s %14s", w, w, base_name(r->path), "-", "-");
		else
			printf("%-*.*s %8zu %14" PRIu64, w, w, base_name(r->path),
			       r->buffers, r->lower_bound);
		for (size_t s = 0; s < j->nstrat; s++) {
			const struct compare_cell *c = &r->cells[s];
			if (c->failed || !c->pool)
				printf("   %-22s", c->failed ? "error" : "-");
			else
				printf("   %6.4f %7.2fs %-7s",
				       ratio(c->pool, r->lower_bound), c->seconds,
				       c->optimal ? "optimal" : "");
		}
		printf("\n");
		if (r->error)
			printf("  error: %s\n", r->error);
	}
	if (header)
		printf("(pool / lower bound, seconds; \"optimal\": proven)\n");
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "strategies", required_argument, NULL, 's' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "time-limit", required_argument, NULL, 't' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'J' },
		{ "no-header", no_argument, NULL, 'n' },
		{ "header-only", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *list = NULL;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t jobs = cpus > 0 ? (uint64_t)cpus : 1;
	double limit = SOLVER_DEFAULT_TIME_LIMIT;
	int csv = 0, json = 0, header = 1, header_only = 0, c;
	char names[256];
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:j:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			list = optarg;
			break;
		case 'j':
			if (cli_parse_u64(optarg, &jobs) || jobs == 0 || jobs > 1024)
				return cli_usage_error("compare: -j '%s' is not a number of jobs from 1 to 1024",
						       optarg);
			break;
		case 't':
			if (cmd_parse_seconds(optarg, &limit))
				return cli_usage_error("compare: --time-limit '%s' is not a number of seconds above 0",
						       optarg);
			break;
		case 'c':
			csv = 1;
			break;
		case 'J':
			json = 1;
			break;
		case 'n':
			header = 0;
			break;
		case 'H':
			header_only = 1;
			break;
		default:
			return cli_option_error(c, "compare");
		}
	}
	if (csv && json)
		return cli_usage_error("compare: --csv and --json exclude each other");
	if (header_only && !csv)
		return cli_usage_error("compare: --header-only needs --csv");
	if (optind == argc && !header_only)
		return cli_usage_error("compare: expected at least one TRACE");

	struct compare_job j = { 0 };
	char *copy = NULL;
	size_t cap = 8;
	j.strategies = malloc(cap * sizeof(*j.strategies));
	if (!j.strategies)
		return cli_error("out of memory"), MP_EXIT_INTERNAL;
	if (list) {
		copy = strdup(list);
		if (!copy) {
			free(j.strategies);
			return cli_error("out of memory"), MP_EXIT_INTERNAL;
		}
		char *save = NULL;
		for (char *s = strtok_r(copy, ",", &save); s;
		     s = strtok_r(NULL, ",", &save)) {
			if (!solver_name_about(s)) {
				/* s points into copy: print before freeing */
				cmd_strategy_names(names, sizeof(names), 0);
				int st = cli_usage_error("compare: unknown strategy '%s' (known: %s)",
							 s, names);
				free(copy);
				free(j.strategies);
				return st;
			}
			if (j.nstrat == cap) {
				const char **g = realloc(j.strategies,
							 2 * cap * sizeof(*g));
				if (!g)
					break;
				j.strategies = g;
				cap *= 2;
			}
			j.strategies[j.nstrat++] = s;
		}
	} else {
		for (size_t i = 0; solver_name_at(i) && j.nstrat < cap; i++)
			j.strategies[j.nstrat++] = solver_name_at(i);
	}
	if (j.nstrat == 0) {
		free(copy);
		free(j.strategies);
		return cli_usage_error("compare: --strategies lists no strategy");
	}
	j.limit = limit;
	if (header_only) {
		compare_csv_header(&j);
		free(copy);
		free(j.strategies);
		return fflush(stdout) == 0 ? MP_EXIT_OK : MP_EXIT_OUTPUT;
	}

	j.nrows = (size_t)(argc - optind);
	j.rows = calloc(j.nrows, sizeof(*j.rows));
	int status = MP_EXIT_OK;
	for (size_t i = 0; j.rows && i < j.nrows; i++) {
		j.rows[i].path = argv[optind + (int)i];
		j.rows[i].cells = calloc(j.nstrat, sizeof(struct compare_cell));
		if (!j.rows[i].cells)
			status = MP_EXIT_INTERNAL;
	}
	if (!j.rows || status) {
		cli_error("out of memory");
		status = MP_EXIT_INTERNAL;
		goto out;
	}
	compare_run(&j, (size_t)jobs);

	if (csv)
		compare_csv(&j, header);
	else if (json)
		compare_json(&j);
	else
		compare_text(&j, header);
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
	for (size_t i = 0; i < j.nrows; i++) {
		const struct compare_row *r = &j.rows[i];
		if (!r->error)
			continue;
		cli_error("%s", r->error);
		if (status == MP_EXIT_OK)
			status = compare_exit(r);
	}
out:
	for (size_t i = 0; j.rows && i < j.nrows; i++) {
		free(j.rows[i].cells);
		free(j.rows[i].error);
	}
	free(j.rows);
	free(copy);
	free(j.strategies);
	return status;
}
