/* SPDX-License-Identifier: MIT */
/*
 * cmd_compare.c - memplan-plan compare: placement strategies over many traces
 * (compare_run(), one worker thread per -j) tabulated as pool / lower bound
 * and time per strategy, as text, CSV or JSON.  A trace that fails keeps its
 * row, with the error, and sets the exit status.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
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

/*
 * The summary of a table, per strategy: the geometric mean of pool / lower
 * bound over the traces it solved, the traces it won (the least pool of the
 * row; a tie is a win for each), those proven optimal, and its seconds.
 * Computed from the integers of each row (pools, lower bounds), so a
 * merged table's summary is the one run's.
 */
struct compare_sum {
	size_t solved, wins, optimal;
	double logsum, seconds;
};

/* Adds one row: lb and, per strategy s < n, pool[s] (0: did not run),
 * seconds[s], optimal[s]. */
static void sum_add(struct compare_sum *sum, size_t n, uint64_t lb,
		    const uint64_t *pool, const double *secs, const int *opt)
{
	uint64_t best = 0;
	for (size_t s = 0; s < n; s++)
		if (pool[s] && (!best || pool[s] < best))
			best = pool[s];
	for (size_t s = 0; s < n; s++) {
		sum[s].seconds += secs[s];
		if (!pool[s] || !lb)
			continue;
		sum[s].solved++;
		sum[s].logsum += log((double)pool[s] / (double)lb);
		sum[s].wins += pool[s] == best;
		sum[s].optimal += opt[s] != 0;
	}
}

/* The summary of j's rows into sum[0..nstrat) (zeroed here); -1: out of
 * memory. */
static int sum_rows(const struct compare_job *j, struct compare_sum *sum)
{
	uint64_t *pool = calloc(j->nstrat, sizeof(*pool));
	double *secs = calloc(j->nstrat, sizeof(*secs));
	int *opt = calloc(j->nstrat, sizeof(*opt));
	memset(sum, 0, j->nstrat * sizeof(*sum));
	if (!pool || !secs || !opt) {
		free(pool);
		free(secs);
		free(opt);
		return -1;
	}
	for (size_t i = 0; i < j->nrows; i++) {
		const struct compare_row *r = &j->rows[i];
		for (size_t s = 0; s < j->nstrat; s++) {
			const struct compare_cell *c = &r->cells[s];
			int ran = !c->failed && c->pool;
			pool[s] = ran ? c->pool : 0;
			secs[s] = ran ? c->seconds : 0;
			opt[s] = ran && c->optimal;
		}
		sum_add(sum, j->nstrat, r->lower_bound, pool, secs, opt);
	}
	free(pool);
	free(secs);
	free(opt);
	return 0;
}

static double geomean(const struct compare_sum *s)
{
	return s->solved ? exp(s->logsum / (double)s->solved) : 0.0;
}

/* The CSV summary row: marked by its first field, "#summary" (a comment
 * to readers that skip them), the traces in buffers, and per strategy the
 * wins in S_pool, the geometric mean in S_ratio, the total seconds in
 * S_seconds, the traces proven optimal in S_optimal. */
static void summary_csv(const struct compare_sum *sum, size_t n,
			size_t traces)
{
	printf("#summary,%zu,", traces);
	for (size_t s = 0; s < n; s++) {
		if (sum[s].solved)
			printf(",%zu,%.6f,%.3f,%zu", sum[s].wins, geomean(&sum[s]),
			       sum[s].seconds, sum[s].optimal);
		else
			printf(",0,,%.3f,0", sum[s].seconds);
	}
	printf(",summary: S_pool counts the traces won (least pool), S_ratio is the geometric mean of pool / lower bound, S_seconds the total, S_optimal the traces proven optimal\n");
}

/* The JSON summary member (after "traces"). */
static void summary_json(const struct compare_sum *sum,
			 const char *const *names, size_t n)
{
	printf(",\"summary\":[");
	for (size_t s = 0; s < n; s++) {
		printf("%s{\"strategy\":", s ? "," : "");
		json_quote(stdout, names[s]);
		printf(",\"solved\":%zu,\"geomean_ratio\":", sum[s].solved);
		if (sum[s].solved)
			printf("%.6f", geomean(&sum[s]));
		else
			printf("null");
		printf(",\"wins\":%zu,\"optimal\":%zu,\"seconds\":%.3f}",
		       sum[s].wins, sum[s].optimal, sum[s].seconds);
	}
	printf("]");
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

static void compare_csv(const struct compare_job *j, int header,
			const struct compare_sum *sum)
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
	if (header && sum)
		summary_csv(sum, j->nstrat, j->nrows);
}

/* The time_limit and work_limit members of compare --json, which --merge
 * compares between shards. */
static void json_limits(const struct compare_job *j)
{
	if (j->limit > 0)
		printf(",\"time_limit\":%.3f", j->limit);
	else
		printf(",\"time_limit\":null");
	printf(",\"work_limit\":");
	if (j->work)
		printf("%" PRIu64, j->work);
	else
		printf("null");
}

static void compare_json(const struct compare_job *j,
			 const struct compare_sum *sum)
{
	printf("{\"strategies\":[");
	for (size_t s = 0; s < j->nstrat; s++) {
		printf(s ? "," : "");
		json_quote(stdout, j->strategies[s]);
	}
	printf("]");
	json_limits(j);
	printf(",\"traces\":[");
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
	printf("]");
	if (sum)
		summary_json(sum, j->strategies, j->nstrat);
	printf("}\n");
}

/* The table for people: one row per trace, pool / lower bound and time per
 * strategy, "optimal" where proven. */
static void compare_text(const struct compare_job *j, int header,
			 const struct compare_sum *sum)
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
	if (!header)
		return;
	if (sum) {
		printf("%-*s %8zu %14s", w, "summary", j->nrows, "traces");
		for (size_t s = 0; s < j->nstrat; s++) {
			char won[16];
			snprintf(won, sizeof(won), "%zu won", sum[s].wins);
			if (sum[s].solved)
				printf("   %6.4f %7.2fs %-7s", geomean(&sum[s]),
				       sum[s].seconds, won);
			else
				printf("   %-22s", "-");
		}
		printf("\n");
	}
	printf("(pool / lower bound, seconds; \"optimal\": proven; summary: geometric mean, total seconds, traces won with the least pool)\n");
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

/* The number of strategies of a shard's first line: CSV, (commas - 3) / 4;
 * JSON, the names in "strategies":[...].  0 when it makes no sense. */
static size_t merge_nstrat(const char *text, size_t plen, int json)
{
	size_t commas = 0;
	if (json) {
		const char *a = strstr(text, "\"strategies\":[");
		const char *b = a ? strchr(a, ']') : NULL;
		if (!a || !b || b >= text + plen)
			return 0;
		for (const char *p = a; p < b; p++)
			commas += *p == ',';
		return commas + 1;
	}
	for (size_t i = 0; i < plen; i++)
		commas += text[i] == ',';
	return commas >= 7 && (commas - 3) % 4 == 0 ? (commas - 3) / 4 : 0;
}

/* One unsigned or double field of a CSV row at *p, up to the next comma
 * (empty: 0); *p moves past the comma. */
static double csv_num(const char **p)
{
	char *end;
	double v = strtod(*p, &end);
	if (end == *p)
		v = 0;
	const char *c = strchr(*p, ',');
	*p = c ? c + 1 : *p + strlen(*p);
	return v;
}

static uint64_t csv_u64(const char **p)
{
	char *end;
	uint64_t v = strtoull(*p, &end, 10);
	if (end == *p)
		v = 0;
	const char *c = strchr(*p, ',');
	*p = c ? c + 1 : *p + strlen(*p);
	return v;
}

/* Adds a CSV row (NUL-terminated, one line) of n strategies to sum. */
static void merge_csv_row(const char *row, size_t n, struct compare_sum *sum,
			  uint64_t *pool, double *secs, int *opt)
{
	const char *p = row;
	if (*p == '"') { /* a quoted path: "" is a quote */
		for (p++; *p && !(p[0] == '"' && p[1] != '"'); p += p[0] == '"' ? 2 : 1)
			;
		if (*p)
			p++;
	} else {
		while (*p && *p != ',')
			p++;
	}
	if (*p == ',')
		p++;
	(void)csv_u64(&p); /* buffers */
	uint64_t lb = csv_u64(&p);
	for (size_t s = 0; s < n; s++) {
		pool[s] = csv_u64(&p);
		(void)csv_num(&p); /* ratio: from pool and lb instead */
		secs[s] = csv_num(&p);
		opt[s] = (int)csv_u64(&p);
	}
	sum_add(sum, n, lb, pool, secs, opt);
}

/* Adds the JSON traces of body (NUL-terminated) with n strategies to sum.
 * Keys are found by ,"key": or {"key": -- never inside a string, where
 * every quote is escaped. */
static void merge_json_rows(const char *body, size_t n,
			    struct compare_sum *sum, uint64_t *pool,
			    double *secs, int *opt)
{
	const char *p = body;
	while ((p = strstr(p, ",\"lower_bound\":"))) {
		p += strlen(",\"lower_bound\":");
		uint64_t lb = strtoull(p, NULL, 10);
		for (size_t s = 0; s < n; s++) {
			const char *q = strstr(p, ",\"pool\":");
			if (!q)
				return;
			q += strlen(",\"pool\":");
			pool[s] = strtoull(q, NULL, 10); /* null: 0 */
			q = strstr(q, ",\"seconds\":");
			if (!q)
				return;
			q += strlen(",\"seconds\":");
			secs[s] = strtod(q, NULL);
			q = strstr(q, ",\"optimal\":");
			if (!q)
				return;
			q += strlen(",\"optimal\":");
			opt[s] = *q == 't';
			p = q;
		}
		sum_add(sum, n, lb, pool, secs, opt);
	}
}

/* The last occurrence of needle in text[0..len), or NULL. */
static const char *last_of(const char *text, size_t len, const char *needle)
{
	const char *found = NULL, *p = text;
	while ((p = strstr(p, needle)) && p < text + len)
		found = p++;
	return found;
}

/*
 * compare --merge: the shards' outputs (--csv with their headers, or
 * --json) in shard order, as one output: one header (the shards' must be
 * the same: same strategies, same limits), then every row, then the
 * summary of all the rows (the shards' own summaries are dropped), as one
 * run would print it.
 */
static int compare_merge(char **paths, size_t n, int header)
{
	char err[ERRLEN];
	char *first = NULL;
	size_t first_len = 0, nstrat = 0, traces = 0;
	int json = -1, status = MP_EXIT_OK, wrote = 0;
	struct compare_sum *sum = NULL;
	uint64_t *pool = NULL;
	double *secs = NULL;
	int *opt = NULL;
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
			nstrat = merge_nstrat(text, plen, json);
			sum = calloc(nstrat + 1, sizeof(*sum));
			pool = calloc(nstrat + 1, sizeof(*pool));
			secs = calloc(nstrat + 1, sizeof(*secs));
			opt = calloc(nstrat + 1, sizeof(*opt));
			if (!sum || !pool || !secs || !opt) {
				cli_error("out of memory");
				status = MP_EXIT_INTERNAL;
				break;
			}
			if (json || header)
				fwrite(text, 1, plen, stdout);
		} else if (plen != first_len || memcmp(text, first, plen) != 0) {
			cli_error("compare: --merge: '%s', line 1: %s differs from '%s' (shards must compare the same strategies with the same limits)",
				  paths[i], json ? "the strategies or limits" : "the header",
				  paths[0]);
			free(text);
			status = MP_EXIT_INPUT;
			break;
		}
		if (json) {
			const char *k = last_of(text + plen, len - plen, "],\"summary\":[");
			size_t body = k ? (size_t)(k - text) - plen : len - 3 - plen;
			if (body) {
				if (wrote)
					putchar(',');
				fwrite(text + plen, 1, body, stdout);
				wrote = 1;
			}
			text[plen + body] = 0;
			merge_json_rows(text + plen, nstrat, sum, pool, secs, opt);
			for (const char *q = text + plen;
			     (q = strstr(q, "{\"trace\":")); q++)
				traces++;
		} else {
			/* row by row: the shards' summary rows are left out */
			for (char *p = text + plen; p < text + len;) {
				char *e = memchr(p, '\n', (size_t)(text + len - p));
				if (!e)
					e = text + len;
				*e = 0;
				if (*p && strncmp(p, "#summary,", 9) != 0) {
					printf("%s\n", p);
					merge_csv_row(p, nstrat, sum, pool, secs, opt);
					traces++;
				}
				p = e + 1;
			}
		}
		if (text != first)
			free(text);
	}
	if (status == MP_EXIT_OK && json == 1) {
		printf("]");
		if (nstrat) {
			/* the names, from the first shard's line */
			const char *a = strstr(first, "\"strategies\":[") +
					strlen("\"strategies\":[");
			printf(",\"summary\":[");
			for (size_t s = 0; s < nstrat; s++) {
				const char *b = strchr(a, s + 1 < nstrat ? ',' : ']');
				printf("%s{\"strategy\":%.*s,\"solved\":%zu,\"geomean_ratio\":",
				       s ? "," : "", (int)(b - a), a, sum[s].solved);
				if (sum[s].solved)
					printf("%.6f", geomean(&sum[s]));
				else
					printf("null");
				printf(",\"wins\":%zu,\"optimal\":%zu,\"seconds\":%.3f}",
				       sum[s].wins, sum[s].optimal, sum[s].seconds);
				a = b + 1;
			}
			printf("]");
		}
		printf("}\n");
	} else if (status == MP_EXIT_OK && json == 0 && header && nstrat) {
		summary_csv(sum, nstrat, traces);
	}
	free(first);
	free(sum);
	free(pool);
	free(secs);
	free(opt);
	if (fflush(stdout) != 0 && status == MP_EXIT_OK)
		status = MP_EXIT_OUTPUT;
	return status;
}

const char cmd_compare_options[] =
	"      --strategies LIST    placement strategies, comma-separated (default:\n"
	"                           every one, up to eight)\n"
	"  -j, --jobs N             traces planned at once (default: the CPUs)\n"
	"      --deterministic[=WORK]  count work, not time: the same table on every\n"
	"                           run and machine (the default, WORK 20000)\n"
	"  -t, --time-limit SECONDS per trace and strategy: alone, time instead of\n"
	"                           work (not reproducible); with --deterministic, a\n"
	"                           safety net (default: none)\n"
	"      --csv                one row per trace and strategy\n"
	"      --json               one JSON object (default: a table)\n"
	"      --no-header          CSV without its header line\n"
	"      --header-only        only the CSV header line\n"
	"      --shard K/N          the K-th of N contiguous blocks of the traces\n"
	"                           (default 1/1)\n"
	"      --list FILE          the traces, one path a line, instead of arguments\n"
	"      --merge              merge the CSV or JSON outputs of shards into one\n"
	"  -q, --quiet              no progress line on stderr (there is one only\n"
	"                           when stderr is a terminal)\n"
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
		{ "deterministic", optional_argument, NULL, 'D' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *list = NULL;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t jobs = cpus > 0 ? (uint64_t)cpus : 1;
	double limit = 0;
	uint64_t work = 0;
	int have_work = 0, have_limit = 0;
	int csv = 0, json = 0, header = 1, header_only = 0, merge = 0, quiet = 0, c;
	uint64_t shard_k = 1, shard_n = 1;
	const char *listfile = NULL;
	char names[256];
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:j:t:qh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			list = optarg;
			break;
		case 'q':
			quiet = 1;
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
			have_limit = 1;
			break;
		case 'D':
			if (cmd_parse_work(optarg, &work))
				return cli_usage_error("compare: --deterministic='%s' is not a number of work units above 0",
						       optarg);
			have_work = 1;
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
		if (header_only || listfile || shard_n > 1 || list || have_work ||
		    have_limit)
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
	/* counted work unless only a time was asked for: an archived
	 * comparison gives the same table on any run and any node */
	if (!have_work && !have_limit)
		work = SOLVER_DEFAULT_WORK_LIMIT;
	j.limit = limit;
	j.work = work;
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
	struct cli_progress line;
	cli_progress_start(&line, quiet);
	cli_progress_say(&line, "compare: %zu strategies on %zu trace%s, %" PRIu64 " at once",
			 j.nstrat, j.nrows, j.nrows == 1 ? "" : "s",
			 jobs < j.nrows ? jobs : (uint64_t)j.nrows);
	compare_run(&j, (size_t)jobs);
	cli_progress_end(&line);

	struct compare_sum *sum = calloc(j.nstrat, sizeof(*sum));
	if (!sum || sum_rows(&j, sum)) {
		cli_error("out of memory");
		status = MP_EXIT_INTERNAL;
		free(sum);
		goto out;
	}
	if (csv)
		compare_csv(&j, header, sum);
	else if (json)
		compare_json(&j, sum);
	else
		compare_text(&j, header, sum);
	free(sum);
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
