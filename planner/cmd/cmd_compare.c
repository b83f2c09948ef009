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
#include "trace.h"

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

/* The whole of a regular file (at most 1 GiB), NUL-terminated, in *text
 * (free it): 0, or -1 with a sentence in err. */
static int read_whole(const char *path, const char *what, char **text,
		      size_t *len, char *err, size_t errlen)
{
	FILE *f;
	*text = NULL;
	if (trace_open_input(path, what, &f, err, errlen))
		return -1;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	while (b) {
		n += fread(b + n, 1, cap - 1 - n, f);
		if (n < cap - 1)
			break;
		if (cap >= (size_t)1 << 30) {
			snprintf(err, errlen, "%s '%s': larger than 1 GiB", what, path);
			goto fail;
		}
		char *g = realloc(b, cap * 2);
		if (!g)
			goto fail_mem;
		b = g;
		cap *= 2;
	}
	if (!b)
		goto fail_mem;
	if (ferror(f)) {
		snprintf(err, errlen, "%s '%s': read error", what, path);
		goto fail;
	}
	fclose(f);
	b[n] = 0;
	*text = b;
	*len = n;
	return 0;
fail_mem:
	snprintf(err, errlen, "%s '%s': out of memory", what, path);
fail:
	free(b);
	fclose(f);
	return -1;
}

/* "K/N" with 1 <= K <= N <= 10^6: 0, else -1. */
static int parse_shard(const char *s, uint64_t *k, uint64_t *n)
{
	char buf[48];
	const char *slash = strchr(s, '/');
	if (!slash || (size_t)(slash - s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, (size_t)(slash - s));
	buf[slash - s] = 0;
	if (cli_parse_u64(buf, k) || cli_parse_u64(slash + 1, n))
		return -1;
	return *n >= 1 && *n <= 1000000 && *k >= 1 && *k <= *n ? 0 : -1;
}

/* The traces of --list FILE: one path per line, blank lines and lines
 * starting with '#' skipped. */
struct path_list {
	char *text;
	char **paths;
	size_t n;
};

static int read_list(const char *path, struct path_list *pl)
{
	char err[ERRLEN];
	size_t len;
	if (read_whole(path, "cannot read list", &pl->text, &len, err, sizeof(err))) {
		cli_error("compare: --list: %s", err);
		return MP_EXIT_INPUT;
	}
	size_t cap = 1;
	for (size_t i = 0; i < len; i++)
		cap += pl->text[i] == '\n';
	if (!(pl->paths = malloc(cap * sizeof(*pl->paths)))) {
		cli_error("out of memory");
		return MP_EXIT_INTERNAL;
	}
	if (memchr(pl->text, 0, len)) {
		cli_error("compare: --list '%s': a NUL byte (not a list of paths)", path);
		return MP_EXIT_INPUT;
	}
	for (char *p = pl->text, *e; p < pl->text + len; p = e + 1) {
		e = memchr(p, '\n', (size_t)(pl->text + len - p));
		if (!e)
			e = pl->text + len;
		*e = 0;
		if (e > p && e[-1] == '\r')
			e[-1] = 0;
		if (!*p || *p == '#')
			continue;
		pl->paths[pl->n++] = p;
	}
	if (pl->n == 0) {
		cli_error("compare: --list '%s' names no trace", path);
		return MP_EXIT_INPUT;
	}
	return 0;
}

/* The first line of a shard's output (its header or its JSON prefix). */
static int merge_prefix(const char *path, const char *text, size_t len,
			size_t *plen)
{
	if (len && text[0] == '{') {
		static const char key[] = ",\"traces\":[";
		const char *k = strstr(text, key);
		if (!k || text[len - 1] != '\n' || len < 4 ||
		    memcmp(text + len - 3, "]}\n", 3) != 0 ||
		    memchr(text, '\n', len) != text + len - 1) {
			cli_error("compare: --merge: '%s' is not one line of compare --json", path);
			return -1;
		}
		*plen = (size_t)(k - text) + sizeof(key) - 1;
		return 1;
	}
	const char *nl = memchr(text, '\n', len);
	if (len < 6 || memcmp(text, "trace,", 6) != 0 || !nl) {
		cli_error("compare: --merge: '%s', line 1: not the header of compare --csv (trace,buffers,...)",
			  path);
		return -1;
	}
	*plen = (size_t)(nl - text) + 1;
	return 0;
}

/*
 * compare --merge: the shards' outputs (--csv with their headers, or
 * --json) in shard order, as one output: one header (the shards' must be
 * the same: same strategies, same time limit), then every row.
 */
static int compare_merge(char **paths, size_t n, int header)
{
	char err[ERRLEN];
	char *first = NULL;
	size_t first_len = 0;
	int json = -1, status = MP_EXIT_OK, wrote = 0;
	for (size_t i = 0; i < n && status == MP_EXIT_OK; i++) {
		char *text;
		size_t len, plen;
		if (read_whole(paths[i], "cannot read shard", &text, &len, err, sizeof(err))) {
			cli_error("compare: --merge: %s", err);
			status = MP_EXIT_INPUT;
			break;
		}
		int kind = merge_prefix(paths[i], text, len, &plen);
		if (kind < 0 || (json >= 0 && kind != json)) {
			if (kind >= 0)
				cli_error("compare: --merge: '%s' is %s, the first shard %s",
					  paths[i], kind ? "JSON" : "CSV", json ? "JSON" : "CSV");
			free(text);
			status = MP_EXIT_INPUT;
			break;
		}
		if (json < 0) {
			json = kind;
			first = text;
			first_len = plen;
			if (json || header)
				fwrite(text, 1, plen, stdout);
		} else if (plen != first_len || memcmp(text, first, plen) != 0) {
			cli_error("compare: --merge: '%s', line 1: %s differs from '%s' (shards must compare the same strategies with the same time limit)",
				  paths[i], json ? "the strategies or time limit" : "the header",
				  paths[0]);
			free(text);
			status = MP_EXIT_INPUT;
			break;
		}
		if (json) {
			size_t body = len - 3 - plen; /* drop "]}\n" */
			if (body) {
				if (wrote)
					putchar(',');
				fwrite(text + plen, 1, body, stdout);
				wrote = 1;
			}
		} else {
			fwrite(text + plen, 1, len - plen, stdout);
			if (len > plen && text[len - 1] != '\n')
				putchar('\n');
		}
		if (text != first)
			free(text);
	}
	if (status == MP_EXIT_OK && json == 1)
		printf("]}\n");
	free(first);
	if (fflush(stdout) != 0 && status == MP_EXIT_OK)
		status = MP_EXIT_OUTPUT;
	return status;
}

const char cmd_compare_options[] =
	"      --strategies LIST    placement strategies, comma-separated (default:\n"
	"                           every one, up to eight)\n"
	"  -j, --jobs N             traces planned at once (default: the CPUs)\n"
	"  -t, --time-limit SECONDS per trace and strategy (default 1)\n"
	"      --csv                one row per trace and strategy\n"
	"      --json               one JSON object (default: a table)\n"
	"      --no-header          CSV without its header line\n"
	"      --header-only        only the CSV header line\n"
	"      --shard K/N          the K-th of N contiguous blocks of the traces\n"
	"                           (default 1/1)\n"
	"      --list FILE          the traces, one path a line, instead of arguments\n"
	"      --merge              merge the CSV or JSON outputs of shards into one\n"
	"  -h, --help               this text\n";

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
		{ "shard", required_argument, NULL, 'S' },
		{ "list", required_argument, NULL, 'L' },
		{ "merge", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *list = NULL;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t jobs = cpus > 0 ? (uint64_t)cpus : 1;
	double limit = SOLVER_DEFAULT_TIME_LIMIT;
	int csv = 0, json = 0, header = 1, header_only = 0, merge = 0, c;
	uint64_t shard_k = 1, shard_n = 1;
	const char *listfile = NULL;
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
		case 'S':
			if (parse_shard(optarg, &shard_k, &shard_n))
				return cli_usage_error("compare: --shard '%s' is not K/N with 1 <= K <= N <= 1000000",
						       optarg);
			break;
		case 'L':
			listfile = optarg;
			break;
		case 'M':
			merge = 1;
			break;
		default:
			return cli_option_error(c, "compare");
		}
	}
	if (csv && json)
		return cli_usage_error("compare: --csv and --json exclude each other");
	if (header_only && !csv)
		return cli_usage_error("compare: --header-only needs --csv");
	if (merge) {
		if (header_only || listfile || shard_n > 1 || list)
			return cli_usage_error("compare: --merge takes only the shards' outputs (and --no-header)");
		if (optind == argc)
			return cli_usage_error("compare: --merge: expected at least one shard's output");
		return compare_merge(argv + optind, (size_t)(argc - optind), header);
	}
	if (listfile && optind != argc)
		return cli_usage_error("compare: give the traces either with --list or as arguments");
	if (optind == argc && !header_only && !listfile)
		return cli_usage_error("compare: expected at least one TRACE (or --list FILE)");

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

	struct path_list pl = { 0 };
	if (listfile) {
		int st = read_list(listfile, &pl);
		if (st) {
			free(pl.paths);
			free(pl.text);
			free(copy);
			free(j.strategies);
			return st;
		}
		argv = pl.paths - optind;
		argc = optind + (int)pl.n;
	}
	{ /* this shard's traces: the K-th of N contiguous blocks, so that the
	   * shards' outputs, merged in order, list the traces as one run would */
		size_t n = (size_t)(argc - optind);
		size_t lo = (size_t)((shard_k - 1) * n / shard_n);
		size_t hi = (size_t)(shard_k * n / shard_n);
		argv += lo;
		argc = optind + (int)(hi - lo);
	}
	j.nrows = (size_t)(argc - optind);
	j.rows = calloc(j.nrows ? j.nrows : 1, sizeof(*j.rows));
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
	free(pl.paths);
	free(pl.text);
	return status;
}
