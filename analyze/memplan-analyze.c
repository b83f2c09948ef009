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
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "diff.h"
#include "json.h"
#include "junit.h"
#include "input.h"
#include "report.h"
#include "scan.h"
#include "timeline.h"
#include "trace.h"
#include "tracedb.h"


/* Progress of a long scan, on a terminal only. */
static void progress(double done)
{
	fprintf(stderr, "\r%s: reading the trace: %3.0f%%", cli_progname, done * 100);
	fflush(stderr);
}

/* Prints err (and copies it into msg) and returns the exit status of rc. */
static int fail(int rc, const char *err, char *msg, size_t msglen)
{
	cli_error("%s", err);
	if (msg)
		snprintf(msg, msglen, "%s", err);
	return rc == TRACE_EINVAL ? MP_EXIT_INTERNAL : cli_exit_for(rc, 0);
}

/*
 * Reads path, streamed (scan.h: the events pass by once and only the
 * buffers stay) when it can be, else whole; *scanned says which, and d is
 * filled when streamed (free it with scan_digest_free()).  whole forces the
 * full loader.  On failure prints the error (copied into msg when not NULL)
 * and returns the exit status.
 */
static int load(const char *path, int whole, struct trace **t,
		struct report_digest *d, int *scanned, char *msg, size_t msglen)
{
	char err[ERRLEN];
	int rc = SCAN_LOAD_WHOLE;
	/* a MiniMalloc CSV is read whole (the streamed reader is SQLite's) */
	if (!whole && !input_is_csv(path)) {
		int tty = isatty(STDERR_FILENO);
		rc = scan_trace(path, t, d, tty ? progress : NULL, err, sizeof(err));
		if (tty)
			fprintf(stderr, "\r%*s\r", 60, "");
	}
	*scanned = rc == 0;
	if (rc == SCAN_LOAD_WHOLE)
		rc = input_load(path, t, err, sizeof(err));
	return rc ? fail(rc, err, msg, msglen) : 0;
}

/*
 * Loads path and computes its report with the allocator models in mask.
 * On failure prints the error (copied into msg when not NULL) and returns
 * the exit status; *t and *r are then untouched.
 */
static int analyze(const char *path, unsigned mask, struct trace **t,
		   struct report *r, char *msg, size_t msglen)
{
	char why[ERRLEN / 2], err[ERRLEN];
	struct report_digest d;
	int scanned, rc;
	for (int whole = 0; whole < 2; whole++) {
		if ((rc = load(path, whole, t, &d, &scanned, msg, msglen)))
			return rc;
		rc = report_build(*t, scanned ? &d : NULL, mask, r, why, sizeof(why));
		if (scanned)
			scan_digest_free(&d);
		if (rc == 0)
			return 0;
		trace_free(*t);
		/* TRACE_EINVAL after a scan: the stream placed the peak elsewhere
		 * than the lean trace does, a bug; the whole trace still gives
		 * the report */
		if (!(rc == TRACE_EINVAL && scanned))
			break;
	}
	snprintf(err, sizeof(err), "trace '%.200s': %s", path, why);
	return fail(rc, err, msg, msglen);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parses --allocator NAME into a model; 0 or a usage status. */
static int parse_allocator(const char *cmd, const char *name,
			   enum allocsim_model *model)
{
	int m = allocsim_from_name(name);
	if (m < 0)
		return cli_usage_error("%s: unknown allocator '%s' (known: cudamalloc, pytorch)",
				       cmd, name);
	*model = (enum allocsim_model)m;
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

/* The swap floor needs every access, which a streamed summary lets pass:
 * up to this many events the summary reads the trace whole once more for
 * it (about 1.3 s and 190 MiB per 10^6 events on top of the stream);
 * beyond, it says why there is no floor. */
#define SUMMARY_FLOOR_MAX_EVENTS 2000000

/* Fills r->floor from the whole trace at path when the report was streamed.
 * 0, or the exit status after printing the error (out of memory). */
static int summary_floor(const char *path, struct report *r)
{
	if (!r->floor.streamed)
		return 0;
	if (r->nevents > SUMMARY_FLOOR_MAX_EVENTS) {
		swapfloor_unknown(&r->floor, "the trace has %zu events, more than the %d the summary reads whole for it",
				  r->nevents, SUMMARY_FLOOR_MAX_EVENTS);
		r->floor.streamed = 1;
		return 0;
	}
	char err[ERRLEN];
	struct trace *t;
	int rc = input_load(path, &t, err, sizeof(err));
	if (rc == 0) {
		rc = swapfloor_compute(t, &r->floor, err, sizeof(err));
		trace_free(t);
	}
	if (rc == TRACE_ENOMEM) {
		cli_error("trace '%.200s': %s", path, err);
		return cli_exit_for(rc, 0);
	}
	if (rc)
		swapfloor_unknown(&r->floor, "reading the whole trace failed: %s", err);
	return 0;
}

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
	enum allocsim_model model = ALLOCSIM_PYTORCH;
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
			if ((rc = parse_allocator("summary", optarg, &model)))
				return rc;
			mask = 1u << model;
			break;
		default:
			return cli_option_error(c, "summary");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("summary: expected one TRACE");
	const char *path = argv[optind];
	struct trace *t;
	struct report r;
	if ((rc = analyze(path, mask, &t, &r, NULL, 0)))
		return rc;
	if ((rc = summary_floor(path, &r))) {
		report_free(&r);
		trace_free(t);
		return rc;
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

/* --- check ------------------------------------------------------------------ */

static const char *const check_kind_names[CHECK_KIND_COUNT] = {
	"max_peak", "max_reserved", "baseline_peak", "baseline_lower_bound"
};

/* The JUnit file: one case per limit, or one error case for bad input. */
static int write_junit(const char *file, const char *trace,
		       const struct check_result *res, size_t n,
		       const char *error, double seconds)
{
	struct junit_case cases[CHECK_KIND_COUNT];
	struct junit_case bad = { "memplan.check", "read the trace", NULL,
				  error, NULL };
	for (size_t i = 0; i < n; i++)
		cases[i] = (struct junit_case){ "memplan.check", res[i].name,
						res[i].passed ? NULL : res[i].message,
						NULL, res[i].passed ? res[i].message : NULL };
	char suite[512];
	snprintf(suite, sizeof(suite), "memplan-analyze check %s", trace);
	struct cli_out o;
	int rc = cli_out_open(&o, file);
	if (rc)
		return rc;
	int bad_write = error ? junit_write(o.f, suite, &bad, 1, seconds)
			      : junit_write(o.f, suite, cases, n, seconds);
	if (bad_write)
		cli_error("cannot write the JUnit report '%s'", file);
	return cli_out_close(&o, bad_write == 0);
}

/* --max-peak and --max-reserved: check_parse_limit(), its refusals as
 * usage errors with a hint.  0 and *out, or the exit status. */
static int parse_limit(const char *opt, const char *s, uint64_t *out)
{
	int rc = check_parse_limit(s, out);
	if (rc == -2 && strchr(s, '.'))
		return cli_usage_error("check: %s %s: a number without a unit is bytes, and %s bytes is no GPU memory limit: write %sGiB, %sGB or %sMiB",
				       opt, s, s, s, s, s);
	if (rc == -2)
		return cli_usage_error("check: %s %s: a number without a unit is bytes, and %s bytes is no GPU memory limit: write %sGiB, %sGB or %sMiB (or %sB if you mean bytes)",
				       opt, s, s, s, s, s, s);
	if (rc)
		return cli_usage_error("check: %s '%s' is not a size (such as 3.5GiB or 3.5GB)",
				       opt, s);
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "max-peak", required_argument, NULL, 'p' },
		{ "max-reserved", required_argument, NULL, 'r' },
		{ "allocator", required_argument, NULL, 'a' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "junit", required_argument, NULL, 'J' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct check_opts co = { .allocator = ALLOCSIM_PYTORCH };
	const char *baseline = NULL, *junit = NULL, *alloc_name = NULL;
	int json = 0, has_tol = 0, c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:r:a:b:t:J:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if ((rc = parse_limit("--max-peak", optarg, &co.max_peak)))
				return rc;
			co.has_max_peak = 1;
			break;
		case 'r':
			if ((rc = parse_limit("--max-reserved", optarg,
					      &co.max_reserved)))
				return rc;
			co.has_max_reserved = 1;
			break;
		case 'a':
			if ((rc = parse_allocator("check", optarg, &co.allocator)))
				return rc;
			alloc_name = optarg;
			break;
		case 'b':
			baseline = optarg;
			break;
		case 't':
			rc = check_parse_tolerance(optarg, &co.tolerance);
			if (rc == -2)
				return cli_usage_error("check: --tolerance %s: did you mean %g%%? (a tolerance is a percentage: write %g%% for a fraction of %s, or %s%% if you meant %s percent)",
						       optarg, strtod(optarg, NULL) * 100,
						       strtod(optarg, NULL) * 100, optarg,
						       optarg, optarg);
			if (rc)
				return cli_usage_error("check: --tolerance '%s' is not a percentage (such as 2%%)",
						       optarg);
			has_tol = 1;
			break;
		case 'J':
			junit = optarg;
			break;
		case 'j':
			json = 1;
			break;
		default:
			return cli_option_error(c, "check");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("check: expected one TRACE");
	if (!co.has_max_peak && !co.has_max_reserved && !baseline)
		return cli_usage_error("check: no limit given (--max-peak, --max-reserved or --baseline)");
	if (has_tol && !baseline)
		return cli_usage_error("check: --tolerance needs --baseline");
	if (alloc_name && !co.has_max_reserved)
		return cli_usage_error("check: --allocator needs --max-reserved");
	if (junit && (cli_same_file(junit, argv[optind]) ||
		      (baseline && cli_same_file(junit, baseline))))
		return cli_usage_error("check: the JUnit file '%s' is an input trace: write it elsewhere",
				       junit);
	const char *path = argv[optind];
	double t0 = now();
	struct trace *t, *bt = NULL;
	struct report r, br;
	char msg[ERRLEN];
	if ((rc = analyze(path, co.has_max_reserved ? 1u << co.allocator : 0, &t,
			  &r, msg, sizeof(msg)))) {
		if (junit)
			write_junit(junit, path, NULL, 0, msg, now() - t0);
		return rc;
	}
	if (baseline) {
		if ((rc = analyze(baseline, 0, &bt, &br, msg, sizeof(msg)))) {
			if (junit)
				write_junit(junit, path, NULL, 0, msg, now() - t0);
			report_free(&r);
			trace_free(t);
			return rc;
		}
		co.baseline = &br;
	}
	struct check_result res[CHECK_KIND_COUNT];
	size_t n = check_run(&r, &co, res);
	int failed = 0;
	for (size_t i = 0; i < n; i++)
		failed += !res[i].passed;
	if (json) {
		struct json j;
		json_init(&j, stdout);
		json_object(&j, NULL);
		json_string(&j, "trace", path);
		json_string(&j, "baseline", baseline);
		json_bool(&j, "passed", !failed);
		json_array(&j, "limits");
		for (size_t i = 0; i < n; i++) {
			json_object(&j, NULL);
			json_string(&j, "kind", check_kind_names[res[i].kind]);
			json_string(&j, "name", res[i].name);
			if (res[i].figure[0])
				json_string(&j, "figure", res[i].figure);
			json_u64(&j, "value", res[i].value);
			json_u64(&j, "limit", res[i].limit);
			json_bool(&j, "passed", res[i].passed);
			json_string(&j, "message", res[i].message);
			json_object_end(&j);
		}
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
	} else {
		for (size_t i = 0; i < n; i++)
			printf("%s: %s\n", res[i].passed ? "pass" : "FAIL",
			       res[i].message);
	}
	rc = junit ? write_junit(junit, path, res, n, NULL, now() - t0) : 0;
	report_free(&r);
	trace_free(t);
	if (bt) {
		report_free(&br);
		trace_free(bt);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("cannot write to standard output");
		return MP_EXIT_OUTPUT;
	}
	if (rc)
		return rc;
	return failed ? MP_EXIT_LIMIT : MP_EXIT_OK;
}

/* --- diff ------------------------------------------------------------------- */

static int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "top", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int json = 0, c, rc;
	size_t top = 10;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:jh", opts, NULL)) != -1) {
		if (c == 'n') {
			if ((rc = parse_top("diff", optarg, &top)))
				return rc;
		} else if (c == 'j') {
			json = 1;
		} else {
			return cli_option_error(c, "diff");
		}
	}
	if (optind != argc - 2)
		return cli_usage_error("diff: expected two traces, A and B");
	const char *pa = argv[optind], *pb = argv[optind + 1];
	struct trace *a, *b;
	struct report ra, rb;
	if ((rc = analyze(pa, REPORT_ALL_ALLOCATORS, &a, &ra, NULL, 0)))
		return rc;
	if ((rc = analyze(pb, REPORT_ALL_ALLOCATORS, &b, &rb, NULL, 0))) {
		report_free(&ra);
		trace_free(a);
		return rc;
	}
	struct diff d;
	char err[ERRLEN];
	if ((rc = diff_build(a, &ra, b, &rb, &d, err, sizeof(err)))) {
		cli_error("%s", err);
		rc = MP_EXIT_INTERNAL;
	} else {
		if (json)
			diff_print_json(stdout, pa, a, &ra, pb, b, &rb, &d, top);
		else
			diff_print_text(stdout, pa, a, &ra, pb, b, &rb, &d, top);
		diff_free(&d);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			cli_error("cannot write to standard output");
			rc = MP_EXIT_OUTPUT;
		}
	}
	report_free(&ra);
	report_free(&rb);
	trace_free(a);
	trace_free(b);
	return rc;
}

/* --- timeline ----------------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int cmd_timeline(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "by", required_argument, NULL, 'b' },
		{ "top", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "points", required_argument, NULL, 'p' },
		{ "buffers", required_argument, NULL, 'B' },
		{ "allocator", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct timeline_opts to = { .by = TIMELINE_BY_ROLE, .top = 8,
				    .max_points = 2000, .max_buffers = 5000,
				    .allocator = ALLOCSIM_PYTORCH };
	const char *out = NULL, *format = NULL;
	int c, rc, by_given = 0;
	uint64_t v;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:b:n:f:p:B:a:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a': {
			enum allocsim_model m = ALLOCSIM_PYTORCH;
			if (strcmp(optarg, "none") == 0) {
				to.allocator = -1;
				break;
			}
			if ((rc = parse_allocator("timeline", optarg, &m)))
				return rc;
			to.allocator = (int)m;
			break;
		}
		case 'o':
			out = optarg;
			break;
		case 'b':
			if ((rc = timeline_by_from_name(optarg)) < 0)
				return cli_usage_error("timeline: --by '%s' is not one of kind, role, label",
						       optarg);
			to.by = (enum timeline_by)rc;
			by_given = 1;
			break;
		case 'n':
			if (cli_parse_u64(optarg, &v) || v < 1 || v >= TIMELINE_MAX_GROUPS)
				return cli_usage_error("timeline: --top '%s' is not a number of groups (1 to %d)",
						       optarg, TIMELINE_MAX_GROUPS - 1);
			to.top = (size_t)v;
			break;
		case 'f':
			format = optarg;
			if (strcmp(format, "svg") && strcmp(format, "html"))
				return cli_usage_error("timeline: --format '%s' is not svg or html", optarg);
			break;
		case 'p':
			if (cli_parse_u64(optarg, &v) || v < 16 || v > 1000000)
				return cli_usage_error("timeline: --points '%s' is not a number of steps (16 to 1000000)",
						       optarg);
			to.max_points = (size_t)v;
			break;
		case 'B':
			if (cli_parse_u64(optarg, &v) || v > 1000000)
				return cli_usage_error("timeline: --buffers '%s' is not a count (0 to 1000000)",
						       optarg);
			to.max_buffers = (size_t)v;
			break;
		default:
			return cli_option_error(c, "timeline");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("timeline: expected one TRACE");
	if (!out)
		return cli_usage_error("timeline: -o FILE.svg or -o FILE.html is required");
	if (!format) {
		if (ends_with(out, ".svg"))
			format = "svg";
		else if (ends_with(out, ".html") || ends_with(out, ".htm"))
			format = "html";
		else
			return cli_usage_error("timeline: cannot tell the format of '%s' (name it .svg or .html, or give --format)",
					       out);
	}
	const char *path = argv[optind];
	if (cli_same_file(path, out))
		return cli_usage_error("timeline: the output '%s' is the input trace: write it elsewhere",
				       out);
	char err[ERRLEN];
	struct trace *t;
	struct report_digest d;
	int scanned;
	if ((rc = load(path, 0, &t, &d, &scanned, NULL, 0)))
		return rc;
	/* the kernel and NVTX lanes need the events a streamed trace drops:
	 * read whole a trace small enough to hold */
	if (scanned && d.nevents <= TIMELINE_WHOLE_EVENTS) {
		scan_digest_free(&d);
		trace_free(t);
		if ((rc = load(path, 1, &t, &d, &scanned, NULL, 0)))
			return rc;
	}
	if (!by_given)
		to.by = timeline_by_auto(t);
	struct timeline tl;
	rc = timeline_build(t, scanned ? &d : NULL, &to, &tl, err, sizeof(err));
	if (scanned)
		scan_digest_free(&d);
	if (rc) {
		cli_error("trace '%s': %s", path, err);
		trace_free(t);
		return MP_EXIT_INTERNAL;
	}
	const char *title = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct cli_out o;
	if ((rc = cli_out_open(&o, out)) == 0) {
		int bad = strcmp(format, "svg") == 0 ? timeline_write_svg(o.f, t, &tl, title)
						     : timeline_write_html(o.f, t, &tl, title);
		if (bad)
			cli_error("cannot write '%s'", out);
		rc = cli_out_close(&o, bad == 0);
		if (rc == 0 && strcmp(out, "-") != 0) {
			char pk[32];
			printf("%s: %s timeline, %zu groups by %s, %zu of %zu buffers, peak %s\n",
			       out, format, tl.ngroups, timeline_by_name(tl.by),
			       tl.nbuffers, tl.nbuffers_total,
			       cli_format_size(tl.peak, pk, sizeof(pk)));
		}
	}
	timeline_free(&tl);
	trace_free(t);
	return rc;
}

/* --- table ------------------------------------------------------------------ */

/* What each subcommand's --help lists: every option, meaning and default. */
static const char summary_options[] =
	"  -n, --top N              groups and buffers shown (default 10; 0 for all)\n"
	"  -j, --json               one JSON object (default: text)\n"
	"  -a, --allocator A        only this allocator model: cudamalloc or pytorch\n"
	"                           (default: both)\n"
	"  -h, --help               this text\n";
static const char check_options[] =
	"  -p, --max-peak SIZE      exit 1 when the peak of live bytes passes SIZE\n"
	"                           (with its unit: 3.5GiB, 3.5GB, 512B; a bare\n"
	"                           number below 1 MiB is refused)\n"
	"  -r, --max-reserved SIZE  exit 1 when the reserved peak passes SIZE: the one\n"
	"                           PyTorch recorded where the trace has it (a\n"
	"                           snapshot), else the allocator model's\n"
	"  -a, --allocator A        with --max-reserved: cudamalloc or pytorch\n"
	"                           (default pytorch; cudamalloc is always the model)\n"
	"  -b, --baseline OLD_TRACE exit 1 when the peak or the lower bound grew past\n"
	"                           the old trace's by more than --tolerance\n"
	"  -t, --tolerance PCT      with --baseline: growth allowed, percent (default\n"
	"                           0; a bare number below 1, such as 0.02, is refused)\n"
	"  -J, --junit FILE         also write the verdicts as JUnit XML\n"
	"  -j, --json               one JSON object (default: text)\n"
	"                           (one limit at least: --max-peak, --max-reserved or\n"
	"                           --baseline)\n"
	"  -h, --help               this text\n";
static const char diff_options[] =
	"  -n, --top N              buffers listed per change (default 10; 0 for all)\n"
	"  -j, --json               one JSON object (default: text)\n"
	"  -h, --help               this text\n";
static const char timeline_options[] =
	"  -o, --output FILE        the picture to write, .svg or .html (required)\n"
	"  -b, --by G               group by kind, role or label (default role; label\n"
	"                           when no buffer has a role, as in snapshots)\n"
	"  -n, --top N              groups drawn, the rest as other (default 8)\n"
	"  -f, --format F           svg or html (default: from the file's name)\n"
	"  -p, --points N           steps drawn (default 2000)\n"
	"  -B, --buffers N          html: buffers that show on hover (default 5000)\n"
	"  -a, --allocator A        reserved-memory curve of cudamalloc, pytorch or\n"
	"                           none (default pytorch)\n"
	"  -h, --help               this text\n";

static const struct cli_command commands[] = {
	{ "summary", cmd_summary,
	  "summary [--top N] [--json] [--allocator cudamalloc|pytorch] TRACE",
	  "where the memory goes: peak, lower bound, live at the peak, swappable room, allocators",
	  summary_options },
	{ "check", cmd_check,
	  "check [--max-peak SIZE] [--max-reserved SIZE [--allocator cudamalloc|pytorch]] "
	  "[--baseline OLD_TRACE [--tolerance PCT]] [--junit FILE] [--json] TRACE",
	  "CI gate: exit 1 when the trace passes a limit, 0 when it is within all",
	  check_options },
	{ "diff", cmd_diff, "diff [--top N] [--json] A B",
	  "two traces side by side: figures, groups, buffers that appeared, vanished or resized",
	  diff_options },
	{ "timeline", cmd_timeline,
	  "timeline [--by kind|role|label] [--top N] [--format svg|html] [--points N] "
	  "[--buffers N] [--allocator cudamalloc|pytorch|none] -o FILE.svg|FILE.html TRACE",
	  "draw memory over the iteration, stacked by group, the peak marked (SVG or HTML)",
	  timeline_options },
	{ 0 }
};

int main(int argc, char **argv)
{
	cli_progname = "memplan-analyze";
	return cli_dispatch(commands, argc, argv,
			    "Report where the memory of a traced iteration goes, what real "
			    "allocators would reserve for it, check it against limits in CI, "
			    "compare two traces and draw its timeline.");
}
