/* SPDX-License-Identifier: MIT */
/*
 * cmd_compare.c - memplan-plan compare: runs placement strategies over many
 * traces (one worker thread per -j, one trace at a time each) and tabulates
 * pool / lower bound and time per strategy as text, CSV or JSON.  A trace
 * that fails keeps its row, with the error, and sets the exit status.
 */
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "input.h"
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

struct cell {
	uint64_t pool;
	double seconds;
	int optimal, failed;
};

struct row {
	const char *path;
	size_t buffers;
	uint64_t lower_bound;
	struct cell *cells; /* one per strategy */
	char *error;        /* NULL, or why this trace (or a strategy) failed */
	int status;
};

struct job {
	struct row *rows;
	size_t nrows, next;
	const char **strategies;
	size_t nstrat;
	double limit;
	pthread_mutex_t lock;
};

/* Keeps the first error of a row (its exit status with it). */
static void row_fail(struct row *r, int status, const char *msg)
{
	if (r->error)
		return;
	r->error = strdup(msg);
	r->status = status;
}

static void compare_one(const struct job *j, struct row *r)
{
	char err[ERRLEN];
	struct trace *t = NULL;
	struct solver_problem p;
	memset(&p, 0, sizeof(p));
	uint64_t *off = NULL;
	int rc = input_load(r->path, &t, err, sizeof(err));
	if (rc) {
		row_fail(r, cli_exit_for(rc, 0), err);
		return;
	}
	rc = solver_problem_from_trace(t, &p, err, sizeof(err));
	if (rc) {
		row_fail(r, cmd_solver_exit(rc), err);
		goto out;
	}
	r->buffers = p.n;
	r->lower_bound = solver_lower_bound(&p);
	if (p.n == 0) {
		row_fail(r, MP_EXIT_INPUT, "no transient buffers to plan");
		goto out;
	}
	off = malloc(p.n * sizeof(*off));
	if (!off) {
		row_fail(r, MP_EXIT_INTERNAL, "out of memory");
		goto out;
	}
	for (size_t s = 0; s < j->nstrat; s++) {
		const char *name = j->strategies[s];
		struct solver_options so = { .time_limit = j->limit };
		struct solver_report rep;
		rc = solver_solve(&p, name, &so, off, &rep, err, sizeof(err));
		struct cell *c = &r->cells[s];
		if (rc) {
			c->failed = 1;
			char msg[ERRLEN + 64];
			snprintf(msg, sizeof(msg), "%s: %s", name, err);
			row_fail(r, cmd_solver_exit(rc), msg);
			continue;
		}
		c->pool = rep.height;
		c->seconds = rep.seconds;
		c->optimal = rep.optimal;
	}
out:
	free(off);
	solver_problem_free(&p);
	trace_free(t);
}

static void *compare_worker(void *arg)
{
	struct job *j = arg;
	for (;;) {
		pthread_mutex_lock(&j->lock);
		size_t i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->nrows)
			return NULL;
		compare_one(j, &j->rows[i]);
	}
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

static void compare_csv_header(const struct job *j)
{
	printf("trace,buffers,lower_bound");
	for (size_t s = 0; s < j->nstrat; s++) {
		const char *n = j->strategies[s];
		printf(",%s_pool,%s_ratio,%s_seconds,%s_optimal", n, n, n, n);
	}
	printf(",error\n");
}

static void compare_csv(const struct job *j, int header)
{
	if (header)
		compare_csv_header(j);
	for (size_t i = 0; i < j->nrows; i++) {
		const struct row *r = &j->rows[i];
		csv_str(stdout, r->path);
		printf(",%zu,%" PRIu64, r->buffers, r->lower_bound);
		for (size_t s = 0; s < j->nstrat; s++) {
			const struct cell *c = &r->cells[s];
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

static void compare_json(const struct job *j)
{
	printf("{\"strategies\":[");
	for (size_t s = 0; s < j->nstrat; s++) {
		printf(s ? "," : "");
		json_quote(stdout, j->strategies[s]);
	}
	printf("],\"time_limit\":%.3f,\"traces\":[", j->limit);
	for (size_t i = 0; i < j->nrows; i++) {
		const struct row *r = &j->rows[i];
		printf("%s{\"trace\":", i ? "," : "");
		json_quote(stdout, r->path);
		printf(",\"buffers\":%zu,\"lower_bound\":%" PRIu64 ",\"results\":[",
		       r->buffers, r->lower_bound);
		for (size_t s = 0; s < j->nstrat; s++) {
			const struct cell *c = &r->cells[s];
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
static void compare_text(const struct job *j, int header)
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
		const struct row *r = &j->rows[i];
		if (r->error && !r->buffers)
			printf("%-*.*s %8s %14s", w, w, base_name(r->path), "-", "-");
		else
			printf("%-*.*s %8zu %14" PRIu64, w, w, base_name(r->path),
			       r->buffers, r->lower_bound);
		for (size_t s = 0; s < j->nstrat; s++) {
			const struct cell *c = &r->cells[s];
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

	struct job j = { 0 };
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
		j.rows[i].cells = calloc(j.nstrat, sizeof(struct cell));
		if (!j.rows[i].cells)
			status = MP_EXIT_INTERNAL;
	}
	if (!j.rows || status) {
		cli_error("out of memory");
		status = MP_EXIT_INTERNAL;
		goto out;
	}
	pthread_mutex_init(&j.lock, NULL);
	size_t nth = jobs < j.nrows ? (size_t)jobs : j.nrows;
	pthread_t *th = malloc(nth * sizeof(*th));
	size_t started = 0;
	for (size_t i = 0; th && i < nth; i++) {
		if (pthread_create(&th[i], NULL, compare_worker, &j) != 0)
			break;
		started++;
	}
	if (started == 0)
		compare_worker(&j); /* no thread: do it all here */
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	pthread_mutex_destroy(&j.lock);

	if (csv)
		compare_csv(&j, header);
	else if (json)
		compare_json(&j);
	else
		compare_text(&j, header);
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
	for (size_t i = 0; i < j.nrows; i++) {
		const struct row *r = &j.rows[i];
		if (!r->error)
			continue;
		cli_error("%s", r->error);
		if (status == MP_EXIT_OK)
			status = r->status ? r->status : MP_EXIT_INTERNAL;
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
