/* SPDX-License-Identifier: MIT */
/*
 * cmd_share.c - memplan-plan share: several workloads on one device.  Each
 * trace's frontier (share_job_init()), the split of the device memory left
 * by their persistent bytes (share_split()), and one plan per workload
 * written into DIR as <trace name>.plan; every plan was verified and
 * simulated when it was made (swap_plan_ctx()).  When nothing fits it says the
 * least device memory that would and what each job would have to give.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "progress.h"
#include "cmd.h"
#include "json.h"
#include "plan.h"
#include "share.h"

/* DIR/<base of trace without its extension>.plan into buf; -1 too long. */
static int plan_path(const char *dir, const char *trace, char *buf,
		     size_t len)
{
	const char *b = strrchr(trace, '/');
	b = b ? b + 1 : trace;
	const char *dot = strrchr(b, '.');
	size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
	int w = snprintf(buf, len, "%s/%.*s.plan", dir, (int)n, b);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

static double pct_of(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* Nothing fits: the least device memory that would, and each job's part. */
static int say_nofit(const struct share_job *jobs, char **paths, size_t n,
		     uint64_t device, uint64_t persistent, int json)
{
	uint64_t least = persistent;
	size_t blind = 0;
	for (size_t i = 0; i < n; i++) {
		least += jobs[i].npts ? jobs[i].pts[0].pool : jobs[i].lb;
		blind += jobs[i].no_swaps;
	}
	/* one buffer per figure: the arguments are all formatted first */
	char a[32], b[32], c[32], d[32];
	cli_error("no split fits --device-memory %s (%" PRIu64
		  "): the least that fits is %s (%" PRIu64
		  "), %s more: persistent bytes %s and each job's smallest pool",
		  cli_format_size(device, a, sizeof(a)), device,
		  cli_format_size(least, b, sizeof(b)), least,
		  cli_format_size(least > device ? least - device : 0, c, sizeof(c)),
		  cli_format_size(persistent, d, sizeof(d)));
	for (size_t i = 0; i < n; i++) {
		const struct share_job *j = &jobs[i];
		if (!j->npts) {
			fprintf(stderr, "  %s: no budget down to 5%% of its need fits\n",
				paths[i]);
			continue;
		}
		uint64_t m = j->pts[0].pool, give = j->lb > m ? j->lb - m : 0;
		fprintf(stderr,
			"  %s: pool %s of its transient need %s, giving %s (%.1f%%) at %.2f%% overhead; persistent %s%s\n",
			paths[i], cli_format_size(m, a, sizeof(a)),
			cli_format_size(j->lb, b, sizeof(b)),
			cli_format_size(give, c, sizeof(c)), pct_of(give, j->lb),
			j->pts[0].overhead,
			cli_format_size(j->persistent, d, sizeof(d)),
			j->no_swaps ? "; no swap: the trace records no kernel access" : "");
	}
	if (blind)
		fprintf(stderr,
			"  %zu of the traces record no kernel access (a PyTorch snapshot or an Nsight export holds only allocs and frees), so their pools cannot go below their need: import an execution trace with its Kineto profile ('memplan-trace import --from pytorch-et ET.json --kineto KINETO.json -o TRACE') or capture the iteration ('memplan-capture -o TRACE -- PROGRAM')\n",
			blind);
	if (json) {
		struct json w;
		json_init(&w, stdout);
		json_object(&w, NULL);
		json_bool(&w, "fits", 0);
		json_u64(&w, "device_memory", device);
		json_u64(&w, "least_device_memory", least);
		json_u64(&w, "persistent", persistent);
		json_array(&w, "workloads");
		for (size_t i = 0; i < n; i++) {
			const struct share_job *j = &jobs[i];
			json_object(&w, NULL);
			json_string(&w, "trace", paths[i]);
			json_u64(&w, "lower_bound", j->lb);
			json_u64(&w, "persistent", j->persistent);
			if (j->npts) {
				json_u64(&w, "least_pool", j->pts[0].pool);
				json_u64(&w, "gives", j->lb > j->pts[0].pool
							      ? j->lb - j->pts[0].pool
							      : 0);
				json_double(&w, "overhead_percent", j->pts[0].overhead);
			} else {
				json_null(&w, "least_pool");
			}
			json_object_end(&w);
		}
		json_array_end(&w);
		json_object_end(&w);
		json_finish(&w);
		fflush(stdout);
	}
	/* with swaps it might have fit: the input lacks what they need */
	return blind ? MP_EXIT_INPUT : MP_EXIT_LIMIT;
}

const char cmd_share_options[] =
	"  -d, --device-memory SIZE the device's memory, persistent bytes included\n"
	"                           (required)\n"
	"  -o, --output DIR         the folder of plans, one per trace (required)\n"
	"  -l, --link MODEL         the host<->device link (default pcie5)\n"
	"      --objective max|sum  least worst, or least total, predicted overhead\n"
	"                           (default max)\n"
	"  -s, --step PCT           the frontier's budget step, 0.5 to 50 (default 5)\n"
	"  -j, --json               print the result as one JSON object\n"
	"  -q, --quiet              no progress line on stderr (there is one only\n"
	"                           when stderr is a terminal)\n"
	"  -h, --help               this text\n";

int cmd_share(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "device-memory", required_argument, NULL, 'd' },
		{ "link", required_argument, NULL, 'l' },
		{ "objective", required_argument, NULL, 'O' },
		{ "step", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *dir = NULL, *link_s = NULL;
	uint64_t device = 0;
	int have_device = 0, json = 0, quiet = 0, c;
	double step = 5;
	enum share_objective obj = SHARE_MAX;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:d:l:js:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case 'd':
			if (cli_parse_size(optarg, &device) || device == 0)
				return cli_usage_error("share: --device-memory '%s' is not a size above 0",
						       optarg);
			have_device = 1;
			break;
		case 'l':
			link_s = optarg;
			break;
		case 'O':
			if (strcmp(optarg, "max") == 0)
				obj = SHARE_MAX;
			else if (strcmp(optarg, "sum") == 0)
				obj = SHARE_SUM;
			else
				return cli_usage_error("share: --objective '%s' is not max or sum",
						       optarg);
			break;
		case 's': {
			char *end;
			step = strtod(optarg, &end);
			if (end == optarg || *end || !(step >= 0.5) || step > 50)
				return cli_usage_error("share: --step '%s' is not a percentage from 0.5 to 50",
						       optarg);
			break;
		}
		case 'j':
			json = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			return cli_option_error(c, "share");
		}
	}
	size_t n = (size_t)(argc - optind);
	if (n == 0)
		return cli_usage_error("share: expected one TRACE or more");
	if (!have_device)
		return cli_usage_error("share: --device-memory SIZE is required");
	if (!dir)
		return cli_usage_error("share: -o DIR is required");
	char **paths = argv + optind;
	struct cli_progress line; /* before any goto done */
	cli_progress_start(&line, quiet);
	char (*out)[4096] = calloc(n, sizeof(*out));
	struct share_job *jobs = calloc(n, sizeof(*jobs));
	struct trace **ts = calloc(n, sizeof(*ts));
	struct solver_problem *ps = calloc(n, sizeof(*ps));
	uint64_t *prop = calloc(n, sizeof(*prop));
	double *prop_oh = calloc(n, sizeof(*prop_oh));
	size_t *pick = calloc(n, sizeof(*pick));
	int status = 0;
	char err[ERRLEN];
	if (!out || !jobs || !ts || !ps || !prop || !prop_oh || !pick) {
		cli_error("out of memory");
		status = MP_EXIT_INTERNAL;
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		if (plan_path(dir, paths[i], out[i], sizeof(out[i]))) {
			status = cli_usage_error("share: -o '%s' makes too long a path", dir);
			goto done;
		}
		for (size_t k = 0; k < i; k++)
			if (strcmp(out[k], out[i]) == 0) {
				status = cli_usage_error("share: traces '%s' and '%s' would both be planned into '%s': rename one",
							 paths[k], paths[i], out[i]);
				goto done;
			}
	}
	struct link_model l;
	for (size_t i = 0; i < n; i++) {
		uint64_t align = 1;
		cli_progress_say(&line, "share: trace %zu of %zu (%s): loading", i + 1, n,
				 paths[i]);
		status = cmd_load_problem(paths[i], &align, 0, &ts[i], &ps[i]);
		if (!status)
			status = cmd_pick_link(link_s, ts[i], &l);
		if (status)
			goto done;
		jobs[i].t = ts[i];
		jobs[i].p = &ps[i];
		jobs[i].align = align;
		jobs[i].no_swaps = cmd_swap_blind(ts[i], err, sizeof(err));
		cli_progress_say(&line, "share: trace %zu of %zu (%s): planning its frontier, step %g%%",
				 i + 1, n, paths[i], step);
		int rc = share_job_init(&jobs[i], &l, step, err, sizeof(err));
		if (rc) {
			cli_error("trace '%s': %s", paths[i], err);
			status = cmd_swap_exit(rc);
			goto done;
		}
	}
	uint64_t persistent = 0;
	for (size_t i = 0; i < n; i++)
		persistent += jobs[i].persistent;
	uint64_t avail = device > persistent ? device - persistent : 0;
	share_proportional(jobs, n, avail, prop);
	for (size_t i = 0; i < n; i++) {
		cli_progress_say(&line, "share: trace %zu of %zu (%s): planning its proportional share",
				 i + 1, n, paths[i]);
		int rc = share_job_add(&jobs[i], prop[i], &prop_oh[i], err,
				       sizeof(err));
		if (rc) {
			cli_error("trace '%s': %s", paths[i], err);
			status = cmd_swap_exit(rc);
			goto done;
		}
	}
	cli_progress_say(&line, "share: splitting the device between %zu traces", n);
	int rc = share_split(jobs, n, avail, obj, pick);
	cli_progress_end(&line);
	if (rc == SHARE_ENOFIT) {
		status = say_nofit(jobs, paths, n, device, persistent, json);
		goto done;
	}
	if (rc) {
		cli_error("out of memory splitting the device");
		status = MP_EXIT_INTERNAL;
		goto done;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		cli_error("cannot create folder '%s': %s", dir, strerror(errno));
		status = MP_EXIT_OUTPUT;
		goto done;
	}
	uint64_t pools = 0;
	double worst = 0, total = 0, pworst = 0, ptotal = 0;
	for (size_t i = 0; i < n; i++) {
		struct share_point *q = &jobs[i].pts[pick[i]];
		/* the LINK section, as compile --budget writes it */
		snprintf(q->plan.link, sizeof(q->plan.link), "%s",
			 cmd_link_spec(link_s, ts[i]));
		q->plan.has_link = 1;
		rc = mp_plan_write_file(out[i], &q->plan, err, sizeof(err));
		if (rc) {
			cli_error("%s", err);
			status = rc == MP_PLAN_EIO ? MP_EXIT_OUTPUT : MP_EXIT_INTERNAL;
			goto done;
		}
		pools += q->pool;
		worst = fmax(worst, q->overhead);
		total += q->overhead;
		pworst = fmax(pworst, prop_oh[i]);
		ptotal += prop_oh[i];
	}
	if (json) {
		struct json w;
		json_init(&w, stdout);
		json_object(&w, NULL);
		json_bool(&w, "fits", 1);
		json_u64(&w, "device_memory", device);
		json_string(&w, "link", l.name);
		json_string(&w, "objective", obj == SHARE_MAX ? "max" : "sum");
		json_array(&w, "workloads");
		for (size_t i = 0; i < n; i++) {
			const struct share_point *q = &jobs[i].pts[pick[i]];
			json_object(&w, NULL);
			json_string(&w, "trace", paths[i]);
			json_string(&w, "plan", out[i]);
			json_u64(&w, "budget", q->budget);
			json_u64(&w, "pool", q->pool);
			json_u64(&w, "persistent", jobs[i].persistent);
			json_u64(&w, "lower_bound", jobs[i].lb);
			json_double(&w, "overhead_percent", q->overhead);
			json_u64(&w, "swaps", q->nswaps);
			json_u64(&w, "swapped_bytes", q->swapped);
			json_u64(&w, "frontier_points", jobs[i].npts);
			json_u64(&w, "proportional_budget", prop[i]);
			json_double(&w, "proportional_overhead_percent", prop_oh[i]);
			json_object_end(&w);
		}
		json_array_end(&w);
		json_object(&w, "total");
		json_u64(&w, "pool", pools);
		json_u64(&w, "persistent", persistent);
		json_u64(&w, "bytes", pools + persistent);
		json_double(&w, "worst_overhead_percent", worst);
		json_double(&w, "sum_overhead_percent", total);
		json_object_end(&w);
		json_object(&w, "proportional");
		json_double(&w, "worst_overhead_percent", pworst);
		json_double(&w, "sum_overhead_percent", ptotal);
		json_object_end(&w);
		json_object_end(&w);
		json_finish(&w);
	} else {
		char a[32], b[32], d[32], e[32];
		printf("share of %s on %s (objective %s): pools %s + persistent %s = %s\n",
		       cli_format_size(device, a, sizeof(a)), l.name,
		       obj == SHARE_MAX ? "max" : "sum",
		       cli_format_size(pools, b, sizeof(b)),
		       cli_format_size(persistent, d, sizeof(d)),
		       cli_format_size(pools + persistent, e, sizeof(e)));
		for (size_t i = 0; i < n; i++) {
			const struct share_point *q = &jobs[i].pts[pick[i]];
			printf("  %s: budget %s, pool %s (%.1f%% of its need %s), persistent %s, %zu swap%s, overhead %.2f%% (proportional split: %.2f%%)\n",
			       out[i], cli_format_size(q->budget, a, sizeof(a)),
			       cli_format_size(q->pool, b, sizeof(b)),
			       pct_of(q->pool, jobs[i].lb),
			       cli_format_size(jobs[i].lb, d, sizeof(d)),
			       cli_format_size(jobs[i].persistent, e, sizeof(e)),
			       q->nswaps, q->nswaps == 1 ? "" : "s",
			       q->overhead, prop_oh[i]);
		}
		printf("worst overhead %.2f%%, total %.2f%%; the split proportional to the lower bounds: worst %.2f%%, total %.2f%%\n",
		       worst, total, pworst, ptotal);
	}
	if (fflush(stdout) != 0)
		status = MP_EXIT_OUTPUT;
done:
	cli_progress_end(&line);
	for (size_t i = 0; jobs && ps && ts && i < n; i++) {
		share_job_free(&jobs[i]);
		solver_problem_free(&ps[i]);
		trace_free(ts[i]);
	}
	free(out);
	free(jobs);
	free(ts);
	free(ps);
	free(prop);
	free(prop_oh);
	free(pick);
	return status;
}
