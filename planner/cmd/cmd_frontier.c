/* SPDX-License-Identifier: MIT */
/*
 * cmd_frontier.c - memplan-plan frontier: sweeps budgets down from the lower
 * bound without swaps (frontier_sweep()) and prints each swap strategy's
 * predicted overhead per budget, the smallest pools within 1% and 2%, and
 * whether memplan dominated; as a table, CSV or JSON, with -o as SVG.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "frontier.h"
#include "json.h"
#include "progress.h"
#include "budget.h"
#include "swapbound.h"

/* A percentage, with or without its '%': 0 and *out when 0 < v <= 100
 * (or v == 0 when zero_ok), else -1. */
static int parse_percent(const char *s, int zero_ok, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || (*end && strcmp(end, "%") != 0) || !isfinite(v) ||
	    v > 100 || v < 0 || (v == 0 && !zero_ok))
		return -1;
	*out = v;
	return 0;
}

/* The proven bounds (swapbound.h) of the kinds of plan the strategies make,
 * within 1% and 2% predicted overhead: no plan of that kind has a smaller
 * pool.  bytes 0: not computed. */
struct fbound {
	enum swapbound_space sp;
	const char *name;
	uint64_t bytes[2];
};
static const double bound_within[2] = { 1.0, 2.0 };

/* The kinds' names, by enum swapbound_space. */
static const char *const kind_names[] = { "swap", "recompute", "hybrid" };

/* The kind of plan strategy name makes. */
static enum swapbound_space space_of(const char *name)
{
	if (strcmp(name, "hybrid") == 0 || strcmp(name, "optimal") == 0)
		return SWAPBOUND_HYBRID;
	if (strcmp(name, "recompute") == 0 || strcmp(name, "sqrt-n") == 0 ||
	    strcmp(name, "every-layer") == 0)
		return SWAPBOUND_RECOMPUTE;
	return SWAPBOUND_SWAP;
}

/* The bounds of the kinds f's strategies make, one per kind, into b[*nb];
 * 0 or TRACE_ENOMEM with a sentence. */
static int frontier_bounds(const struct trace *t, const struct link_model *l,
			   const struct frontier *f, struct fbound b[3],
			   size_t *nb, char *err, size_t errlen)
{
	*nb = 0;
	for (int sp = SWAPBOUND_SWAP; sp <= SWAPBOUND_HYBRID; sp++) {
		int used = 0;
		for (size_t s = 0; s < f->nstrategies; s++)
			used |= space_of(f->strategies[s]) == (enum swapbound_space)sp;
		if (!used || !(f->base_ns > 0))
			continue;
		struct fbound *x = &b[(*nb)++];
		x->sp = (enum swapbound_space)sp;
		x->name = kind_names[sp];
		for (size_t k = 0; k < 2; k++) {
			struct swap_bound sb;
			int rc = swapbound_compute_space(t, l, x->sp,
							 bound_within[k] / 100.0 * f->base_ns,
							 &sb, err, errlen);
			if (rc)
				return rc;
			x->bytes[k] = sb.computed ? sb.bytes : 0;
		}
	}
	return 0;
}

/* The overhead levels the picture's bound is computed at, percent. */
static const double curve_pct[] = { 0, 0.25, 0.5, 1, 1.5, 2, 3, 5, 7.5, 10,
				    15, 20, 30, 50, 75, 100, 150, 200, 300,
				    500, 1000 };
#define NCURVE (sizeof(curve_pct) / sizeof(curve_pct[0]))

/*
 * The bound the picture shades: of the one kind of plan f's strategies
 * make, or hybrid's when they make several (it is below both others), at
 * the levels up to the first at or above every strategy's overhead.
 * 0 or TRACE_ENOMEM with a sentence.
 */
static int frontier_curve(const struct trace *t, const struct link_model *l,
			  const struct frontier *f, uint64_t bytes[NCURVE],
			  struct frontier_bound_curve *bc, char *err,
			  size_t errlen)
{
	int seen[3] = { 0 };
	double most = 2.5;
	for (size_t s = 0; s < f->nstrategies; s++)
		seen[space_of(f->strategies[s])] = 1;
	for (size_t i = 0; i < f->nrows; i++)
		for (size_t s = 0; s < f->nstrategies; s++) {
			const struct frontier_cell *c = &f->rows[i].cells[s];
			if (c->fits && isfinite(c->overhead) && c->overhead > most)
				most = c->overhead;
		}
	enum swapbound_space sp = seen[SWAPBOUND_HYBRID] ||
					  (seen[SWAPBOUND_SWAP] && seen[SWAPBOUND_RECOMPUTE])
				  ? SWAPBOUND_HYBRID
			  : seen[SWAPBOUND_RECOMPUTE] ? SWAPBOUND_RECOMPUTE
						      : SWAPBOUND_SWAP;
	memset(bc, 0, sizeof(*bc));
	if (!(f->base_ns > 0))
		return 0;
	size_t n = 0;
	while (n < NCURVE) {
		struct swap_bound sb;
		int rc = swapbound_compute_space(t, l, sp, curve_pct[n] / 100.0 * f->base_ns,
						 &sb, err, errlen);
		if (rc)
			return rc;
		bytes[n] = sb.computed ? sb.bytes : 0;
		if (curve_pct[n++] >= most)
			break;
	}
	*bc = (struct frontier_bound_curve){ kind_names[sp], n, curve_pct, bytes };
	return 0;
}

/* pool as a percentage of the lower bound without swaps */
static double pct_of(uint64_t pool, uint64_t lb)
{
	return lb ? 100.0 * (double)pool / (double)lb : 0.0;
}

struct frontier_show {
	int quiet;
	int tty;       /* stderr is a terminal: one line, rewritten */
	struct cli_progress line; /* that line */
};

/*
 * Progress after each budget.  On a terminal, one line rewritten in place
 * and erased at the end (frontier_progress_end), so the table shows once;
 * otherwise (a log) one line per budget with what each strategy predicts.
 */
static void frontier_progress(void *ctx, const struct frontier *f, size_t i)
{
	struct frontier_show *sh = ctx;
	if (sh->quiet)
		return;
	const struct frontier_row *r = &f->rows[i];
	char a[32];
	double secs = 0;
	if (sh->tty) {
		cli_progress_say(&sh->line, "frontier: budget %.4g%% (%s) planned, %zu so far",
				 r->percent, cli_format_size(r->budget, a, sizeof(a)), i + 1);
		return;
	}
	fprintf(stderr, "%s: frontier: budget %.4g%% (%s):", cli_progname,
		r->percent, cli_format_size(r->budget, a, sizeof(a)));
	for (size_t s = 0; s < f->nstrategies; s++) {
		const struct frontier_cell *c = &r->cells[s];
		if (c->fits)
			fprintf(stderr, " %s %.2f%%", f->strategies[s], c->overhead);
		else
			fprintf(stderr, " %s no fit", f->strategies[s]);
		secs += c->seconds;
	}
	fprintf(stderr, " [%.2f s]\n", secs);
}

static void frontier_progress_end(struct frontier_show *sh)
{
	cli_progress_end(&sh->line);
}

static void frontier_csv(const struct frontier *f)
{
	printf("budget_percent,budget,strategy,fits,pool,pool_percent,overhead_percent,"
	       "iter_ns,stall_ns,swaps,swapped_bytes,seconds,cpu_seconds\n");
	for (size_t i = 0; i < f->nrows; i++) {
		const struct frontier_row *r = &f->rows[i];
		for (size_t s = 0; s < f->nstrategies; s++) {
			const struct frontier_cell *c = &r->cells[s];
			printf("%.4g,%" PRIu64 ",%s,%d,", r->percent, r->budget,
			       f->strategies[s], c->fits);
			if (c->fits)
				printf("%" PRIu64 ",%.4f,%.4f,%.0f,%.0f,%zu,%" PRIu64,
				       c->pool, pct_of(c->pool, f->lb_noswap),
				       c->overhead, c->iter_ns, c->stall_ns,
				       c->nswaps, c->swapped);
			else
				printf(",,,,,,");
			printf(",%.4f,%.4f\n", c->seconds, c->cpu_seconds);
		}
	}
}

/* A pool, or null, as JSON. */
static void json_pool(uint64_t pool)
{
	if (pool)
		printf("%" PRIu64, pool);
	else
		printf("null");
}

static void frontier_json(const char *path, const char *placer,
			  const struct frontier *f, double step,
			  const struct fbound *b, size_t nb)
{
	printf("{\"trace\":");
	json_quote(stdout, path);
	printf(",\"link\":");
	json_quote(stdout, f->link.name);
	printf(",\"placement\":");
	json_quote(stdout, placer);
	printf(",\"lower_bound_noswap\":%" PRIu64 ",\"base_ns\":%.0f"
	       ",\"step_percent\":%.4g,\"seconds\":%.3f,\"strategies\":[",
	       f->lb_noswap, f->base_ns, step, f->seconds);
	for (size_t s = 0; s < f->nstrategies; s++) {
		printf(s ? "," : "");
		json_quote(stdout, f->strategies[s]);
	}
	printf("],\"results\":[");
	for (size_t i = 0; i < f->nrows; i++) {
		const struct frontier_row *r = &f->rows[i];
		for (size_t s = 0; s < f->nstrategies; s++) {
			const struct frontier_cell *c = &r->cells[s];
			printf("%s{\"budget_percent\":%.4g,\"budget\":%" PRIu64
			       ",\"strategy\":\"%s\",\"fits\":%s",
			       i || s ? "," : "", r->percent, r->budget,
			       f->strategies[s], c->fits ? "true" : "false");
			if (c->fits)
				printf(",\"pool\":%" PRIu64 ",\"overhead_percent\":%.4f"
				       ",\"iter_ns\":%.0f,\"stall_ns\":%.0f,\"swaps\":%zu"
				       ",\"swapped_bytes\":%" PRIu64,
				       c->pool, c->overhead, c->iter_ns, c->stall_ns,
				       c->nswaps, c->swapped);
			else
				printf(",\"pool\":null,\"overhead_percent\":null"
				       ",\"iter_ns\":null,\"stall_ns\":null,\"swaps\":null"
				       ",\"swapped_bytes\":null");
			printf(",\"seconds\":%.4f,\"cpu_seconds\":%.4f}", c->seconds,
			       c->cpu_seconds);
		}
	}
	printf("],\"summary\":[");
	for (size_t s = 0; s < f->nstrategies; s++) {
		printf("%s{\"strategy\":\"%s\",\"pool_overhead_1\":", s ? "," : "",
		       f->strategies[s]);
		json_pool(frontier_smallest(f, s, 1.0, NULL));
		printf(",\"pool_overhead_2\":");
		json_pool(frontier_smallest(f, s, 2.0, NULL));
		printf(",\"smallest_pool\":");
		json_pool(frontier_smallest(f, s, INFINITY, NULL));
		printf("}");
	}
	printf("],\"bounds\":[");
	for (size_t k = 0; k < nb; k++) {
		printf("%s{\"kind\":\"%s\",\"pool_overhead_1\":", k ? "," : "",
		       b[k].name);
		json_pool(b[k].bytes[0]);
		printf(",\"pool_overhead_2\":");
		json_pool(b[k].bytes[1]);
		printf("}");
	}
	printf("],\"memplan_dominates\":");
	int m = frontier_strategy_index(f, "memplan");
	size_t compared, lost, first = 0;
	if (m < 0 || f->nstrategies < 2) {
		printf("null");
	} else {
		int dom = frontier_dominates(f, (size_t)m, &compared, &lost, &first);
		printf("{\"dominated\":%s,\"budgets_compared\":%zu,\"budgets_not_dominated\":%zu}",
		       dom ? "true" : "false", compared, lost);
	}
	printf("}\n");
}

/* One column of the summary: the smallest pool within lim percent of
 * overhead, and its percentage of the lower bound; "-" when none. */
static void frontier_best_text(const struct frontier *f, size_t s, double lim)
{
	char a[32], b[16] = "";
	uint64_t pool = frontier_smallest(f, s, lim, NULL);
	if (pool)
		snprintf(b, sizeof(b), "%.1f%%", pct_of(pool, f->lb_noswap));
	printf("  %11s %6s", pool ? cli_format_size(pool, a, sizeof(a)) : "-", b);
}

static void frontier_text(const char *path, const char *placer,
			  const struct frontier *f, const struct fbound *b,
			  size_t nb)
{
	char a[32];
	printf("swap frontier of %s over %s (placement %s): lower bound without swaps %s (%" PRIu64
	       "), iteration %.3f ms\n",
	       path, f->link.name, placer,
	       cli_format_size(f->lb_noswap, a, sizeof(a)), f->lb_noswap,
	       f->base_ns / 1e6);
	printf("%8s %11s", "budget", "bytes");
	for (size_t s = 0; s < f->nstrategies; s++)
		printf(" %10s", f->strategies[s]);
	printf("\n");
	for (size_t i = 0; i < f->nrows; i++) {
		const struct frontier_row *r = &f->rows[i];
		printf("%7.4g%% %11s", r->percent,
		       cli_format_size(r->budget, a, sizeof(a)));
		for (size_t s = 0; s < f->nstrategies; s++) {
			const struct frontier_cell *c = &r->cells[s];
			if (c->fits)
				printf(" %9.2f%%", c->overhead);
			else
				printf(" %10s", "-");
		}
		printf("\n");
	}
	printf("(predicted overhead of the iteration, percent; -: no plan fits the budget)\n");
	printf("\n%-15s  %18s  %18s  %18s\n", "smallest", "overhead <= 1%",
	       "overhead <= 2%", "any overhead");
	for (size_t s = 0; s < f->nstrategies; s++) {
		size_t row = 0;
		printf("%-15s", f->strategies[s]);
		frontier_best_text(f, s, 1.0);
		frontier_best_text(f, s, 2.0);
		frontier_best_text(f, s, INFINITY);
		if (frontier_smallest(f, s, INFINITY, &row))
			printf(" at %.2f%%", f->rows[row].cells[s].overhead);
		printf("\n");
	}
	for (size_t k = 0; k < nb; k++) {
		char name[24];
		snprintf(name, sizeof(name), "bound %s", b[k].name);
		printf("%-15s", name);
		for (size_t j = 0; j < 2; j++) {
			char pc[16] = "";
			if (b[k].bytes[j])
				snprintf(pc, sizeof(pc), "%.1f%%",
					 pct_of(b[k].bytes[j], f->lb_noswap));
			printf("  %11s %6s",
			       b[k].bytes[j] ? cli_format_size(b[k].bytes[j], a, sizeof(a)) : "-",
			       pc);
		}
		printf("\n");
	}
	printf("(smallest pool and its percentage of the lower bound, within a predicted overhead%s)\n",
	       nb ? "; bound KIND: proven, no plan of that kind within it has a smaller pool (memplan-plan(1), BOUNDS)"
		  : "");
	int m = frontier_strategy_index(f, "memplan");
	if (m >= 0 && f->nstrategies > 1) {
		size_t compared, lost, first = 0;
		if (frontier_dominates(f, (size_t)m, &compared, &lost, &first))
			printf("memplan dominated: no more overhead than any other strategy that fits, at all %zu budgets where one does\n",
			       compared);
		else
			printf("memplan did not dominate at %zu of %zu budgets where another strategy fits (first at %.4g%%)\n",
			       lost, compared, f->rows[first].percent);
	}
}

const char cmd_frontier_options[] =
	"  -l, --link MODEL[,KEY=VALUE...]  the host<->device link (default measured\n"
	"                           when the trace has bandwidths, else pcie5)\n"
	"      --strategies LIST    swap strategies, comma-separated (default memplan,\n"
	"                           singa, vdnn)\n"
	"      --steps N            N budgets evenly from --from to --to\n"
	"      --step PCT           budgets PCT apart (default 5)\n"
	"      --from PCT           the first budget, % of the lower bound without swaps\n"
	"                           (default 100)\n"
	"      --to PCT             stop above this budget (default 0)\n"
	"      --placer S           placement heuristic (default best-fit)\n"
	"      --csv                one row per budget and strategy\n"
	"      --json               one JSON object (default: a table)\n"
	"  -o, --output FILE.svg    also draw the frontier as SVG\n"
	"  -q, --quiet              no progress line per budget on stderr\n"
	"  -h, --help               this text\n";

int cmd_frontier(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "link", required_argument, NULL, 'l' },
		{ "strategies", required_argument, NULL, 's' },
		{ "steps", required_argument, NULL, 'n' },
		{ "step", required_argument, NULL, 'p' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "placer", required_argument, NULL, 'P' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *link_s = NULL, *list = NULL, *placer = "best-fit", *svg = NULL;
	double from = 100, step = 5, to = 0;
	uint64_t steps = 0;
	int have_step = 0, csv = 0, json = 0, c;
	struct frontier_show sh = { 0 };
	char names[256];
	optind = 1;
	while ((c = getopt_long(argc, argv, "l:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			link_s = optarg;
			break;
		case 's':
			list = optarg;
			break;
		case 'n':
			if (cli_parse_u64(optarg, &steps) || steps == 0 || steps > 1000)
				return cli_usage_error("frontier: --steps '%s' is not a number of budgets from 1 to 1000",
						       optarg);
			break;
		case 'p':
			if (parse_percent(optarg, 0, &step) || step < 0.1)
				return cli_usage_error("frontier: --step '%s' is not a percentage from 0.1 to 100",
						       optarg);
			have_step = 1;
			break;
		case 'f':
			if (parse_percent(optarg, 0, &from))
				return cli_usage_error("frontier: --from '%s' is not a percentage above 0 and at most 100",
						       optarg);
			break;
		case 't':
			if (parse_percent(optarg, 1, &to) || to >= 100)
				return cli_usage_error("frontier: --to '%s' is not a percentage from 0 to below 100",
						       optarg);
			break;
		case 'P':
			placer = optarg;
			break;
		case 'c':
			csv = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'o':
			svg = optarg;
			break;
		case 'q':
			sh.quiet = 1;
			break;
		default:
			return cli_option_error(c, "frontier");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("frontier: expected one TRACE");
	if (csv && json)
		return cli_usage_error("frontier: --csv and --json exclude each other");
	if (steps && have_step)
		return cli_usage_error("frontier: --steps and --step exclude each other");
	if (to >= from)
		return cli_usage_error("frontier: --to %g%% is not below --from %g%%",
				       to, from);
	if (steps)
		step = (from - to) / (double)steps;
	if (svg && (!*svg || strcmp(svg, "-") == 0))
		return cli_usage_error("frontier: -o needs a file name for the SVG (the table goes to standard output)");
	if (svg && optind < argc && cli_same_file(argv[optind], svg))
		return cli_usage_error("frontier: the SVG '%s' is the input trace: write it elsewhere",
				       svg);
	if (!solver_name_about(placer) || !solver_strategy_find(placer)) {
		/* the searches would spend their time limit at every budget */
		cmd_strategy_names(names, sizeof(names), 1);
		return cli_usage_error("frontier: unknown --placer '%s' (known: %s)",
				       placer, names);
	}
	/* --strategies: names from the swap strategy table, no repeats */
	const char *chosen[8];
	size_t nchosen = 0;
	char *copy = NULL;
	if (list) {
		copy = strdup(list);
		if (!copy)
			return cli_error("out of memory"), MP_EXIT_INTERNAL;
		char *save = NULL;
		for (char *s = strtok_r(copy, ",", &save); s;
		     s = strtok_r(NULL, ",", &save)) {
			int dup = 0;
			for (size_t k = 0; k < nchosen; k++)
				dup |= strcmp(chosen[k], s) == 0;
			if (!budget_strategy_find(s) || dup || nchosen == 8) {
				int st = cli_usage_error(dup ? "frontier: --strategies names '%s' twice"
							     : "frontier: unknown swap strategy '%s' in --strategies (known: memplan, singa, vdnn, recompute, hybrid, sqrt-n, every-layer, optimal)",
							 s);
				free(copy);
				return st;
			}
			chosen[nchosen++] = s;
		}
		if (nchosen == 0) {
			free(copy);
			return cli_usage_error("frontier: --strategies lists no strategy");
		}
	}
	const char *path = argv[optind];
	struct trace *t = NULL;
	struct solver_problem p;
	struct frontier f;
	struct link_model l;
	char err[ERRLEN];
	struct fbound bounds[3];
	size_t nbounds = 0;
	memset(&f, 0, sizeof(f));
	uint64_t align = 1;
	int status = cmd_load_problem(path, &align, 0, &t, &p);
	if (status)
		goto done;
	/* every budget below 100% needs swaps: none can be planned */
	if (cmd_swap_blind(t, err, sizeof(err))) {
		status = cmd_refuse_swaps("frontier", path, solver_lower_bound(&p),
					  err);
		goto done;
	}
	status = cmd_pick_link(link_s, t, &l);
	if (status)
		goto done;
	struct frontier_options o = {
		.strategies = list ? chosen : NULL,
		.nstrategies = nchosen,
		.from = from,
		.step = step,
		.to = to,
		.placer = placer,
		.align = align,
		.progress = frontier_progress,
		.progress_ctx = &sh,
	};
	sh.tty = isatty(STDERR_FILENO);
	cli_progress_start(&sh.line, sh.quiet || !sh.tty);
	cli_progress_say(&sh.line, "frontier: planning the first budget");
	int rc = frontier_sweep(t, &p, &l, &o, &f, err, sizeof(err));
	if (rc == 0 && !csv) {
		cli_progress_say(&sh.line, "frontier: computing the bounds");
		rc = frontier_bounds(t, &l, &f, bounds, &nbounds, err, sizeof(err));
	}
	frontier_progress_end(&sh);
	if (rc) {
		cli_error("cannot sweep the swap frontier of trace '%s': %s", path, err);
		status = cmd_swap_exit(rc);
		goto done;
	}
	uint64_t cbytes[NCURVE];
	struct frontier_bound_curve bc = { 0 };
	if (svg && (rc = frontier_curve(t, &l, &f, cbytes, &bc, err, sizeof(err))) != 0) {
		cli_error("cannot bound the frontier of trace '%s': %s", path, err);
		status = cmd_swap_exit(rc);
		goto done;
	}
	if (svg) {
		struct cli_out out;
		if (cli_out_open(&out, svg)) {
			status = MP_EXIT_OUTPUT;
			goto done;
		}
		/* the trace by its name, not a path from the root */
		char title[512];
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		snprintf(title, sizeof(title), "%s over %s", base, l.name);
		int bad = frontier_write_svg(out.f, &f, title, &bc);
		if (bad)
			cli_error("cannot write the SVG '%s'", svg);
		status = cli_out_close(&out, !bad);
		if (bad || status)
			goto done;
	}
	if (csv)
		frontier_csv(&f);
	else if (json)
		frontier_json(path, placer, &f, step, bounds, nbounds);
	else
		frontier_text(path, placer, &f, bounds, nbounds);
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
done:
	frontier_free(&f);
	solver_problem_free(&p);
	trace_free(t);
	free(copy);
	return status;
}
