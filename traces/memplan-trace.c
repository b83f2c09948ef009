/* SPDX-License-Identifier: MIT */
/*
 * memplan-trace - look into, import, export and synthesize traces.
 * A thin layer: parse options, call traces/ library code, print once.
 * Subcommands come from one table; adding one is a function and a row.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "detect.h"
#include "import_et.h"
#include "import_nsys.h"
#include "import_snapshot.h"
#include "input.h"
#include "zinput.h"
#include "json.h"
#include "minimalloc_csv.h"
#include "slice.h"
#include "synth.h"
#include "trace.h"
#include "tracedb.h"


static int load_or_die(const char *path, struct trace **t)
{
	char err[ERRLEN];
	int rc = input_load(path, t, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	return 0;
}

static int save_or_die(const struct trace *t, const char *path)
{
	char err[ERRLEN];
	int rc = trace_save(t, path, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return rc == TRACE_ENOMEM ? MP_EXIT_INTERNAL : MP_EXIT_OUTPUT;
	}
	printf("%s: %zu buffers, %zu events\n", path, t->nbuffers, t->nevents);
	return 0;
}

/* --- info ---------------------------------------------------------------- */

struct info {
	size_t persistent, transient, by_type[TRACE_EV_COUNT];
	uint64_t persistent_bytes;
	size_t bypass;          /* buffers whose requests bypass the runtime */
	uint64_t bypass_bytes;
	const char *bypass_source; /* the first of their sources */
	int64_t seq_lo, seq_hi, t_lo, t_hi;
	uint64_t peak, lower_bound, host_peak;
	int64_t peak_at, lb_at;
	struct slice_period period;
};

/* Returns 0, or TRACE_ENOMEM with a sentence in err. */
static int gather(const struct trace *t, struct info *in, char *err,
		  size_t errlen)
{
	memset(in, 0, sizeof(*in));
	in->t_lo = INT64_MAX;
	in->t_hi = INT64_MIN;
	for (size_t i = 0; i < t->nbuffers; i++) {
		if (trace_buffer_persistent(&t->buffers[i])) {
			in->persistent++;
			in->persistent_bytes += t->buffers[i].size;
		} else {
			in->transient++;
		}
		if (t->buffers[i].bypass) {
			in->bypass++;
			in->bypass_bytes += t->buffers[i].size;
			if (!in->bypass_source)
				in->bypass_source = t->buffers[i].source;
		}
	}
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		in->by_type[e->type]++;
		if (e->t_start != TRACE_TIME_NONE && e->t_start < in->t_lo)
			in->t_lo = e->t_start;
		int64_t end = e->t_end != TRACE_TIME_NONE ? e->t_end : e->t_start;
		if (end != TRACE_TIME_NONE && end > in->t_hi)
			in->t_hi = end;
	}
	in->seq_lo = t->nevents ? t->events[0].seq : 0;
	in->seq_hi = t->nevents ? t->events[t->nevents - 1].seq : 0;
	int rc = trace_peak_checked(t, TRACE_ALL, &in->peak, &in->peak_at, err,
				    errlen);
	if (!rc)
		rc = trace_peak_checked(t, TRACE_TRANSIENT, &in->lower_bound,
					&in->lb_at, err, errlen);
	if (!rc)
		rc = trace_peak_checked(t, TRACE_HOST, &in->host_peak, NULL, err,
					errlen);
	if (!rc && slice_detect(t, &in->period) < 0)
		rc = trace_seterr(err, errlen, TRACE_ENOMEM,
				  "out of memory looking for the iterations");
	return rc;
}

static void info_json(const char *path, const struct trace *t,
		      const struct info *in)
{
	printf("{\"trace\":");
	json_quote(stdout, path);
	printf(",\"meta\":{");
	for (size_t i = 0; i < t->nmeta; i++) {
		printf(i ? "," : "");
		json_quote(stdout, t->meta[i].key);
		putchar(':');
		json_quote(stdout, t->meta[i].value);
	}
	printf("},\"buffers\":%zu,\"persistent\":%zu,\"transient\":%zu,"
	       "\"persistent_bytes\":%" PRIu64 ",\"bypass_buffers\":%zu,"
	       "\"bypass_bytes\":%" PRIu64 ",\"events\":%zu,",
	       t->nbuffers, in->persistent, in->transient, in->persistent_bytes,
	       in->bypass, in->bypass_bytes, t->nevents);
	printf("\"events_by_type\":{");
	for (unsigned k = 0; k < TRACE_EV_COUNT; k++)
		printf("%s\"%s\":%zu", k ? "," : "", trace_event_type_name(k),
		       in->by_type[k]);
	printf("},\"accesses\":%zu,\"holes\":%zu,\"clock\":\"%s\","
	       "\"seq_first\":%" PRId64 ",\"seq_last\":%" PRId64 ",",
	       t->naccesses, t->nholes,
	       t->clock == TRACE_CLOCK_TIME ? "time" : "seq", in->seq_lo,
	       in->seq_hi);
	if (in->t_lo <= in->t_hi)
		printf("\"time_first\":%" PRId64 ",\"time_last\":%" PRId64 ",\"time_kind\":\"%s\",",
		       in->t_lo, in->t_hi, slice_time_kind(t));
	printf("\"peak_bytes\":%" PRIu64 ",\"peak_at\":%" PRId64
	       ",\"lower_bound_bytes\":%" PRIu64 ",\"lower_bound_at\":%" PRId64
	       ",\"host_peak_bytes\":%" PRIu64 ",\"period\":",
	       in->peak, in->peak_at, in->lower_bound, in->lb_at, in->host_peak);
	if (in->period.found)
		printf("{\"requests\":%zu,\"iterations\":%zu,\"first_request\":%zu,"
		       "\"run_first\":%zu,\"run_requests\":%zu}}\n",
		       in->period.period, in->period.iterations, in->period.first,
		       in->period.run_first, in->period.run_len);
	else
		printf("null}\n");
}

static void info_text(const char *path, const struct trace *t,
		      const struct info *in)
{
	char a[32], b[32];
	const char *src = trace_get_meta(t, "source");
	const char *dev = trace_get_meta(t, "device");
	const char *complete = trace_get_meta(t, "complete");
	printf("trace:        %s\n", path);
	printf("source:       %s", src ? src : "unknown");
	const char *model = trace_get_meta(t, "model");
	if (model)
		printf(" (model %s, batch %s, %s)", model,
		       trace_get_meta(t, "batch") ? trace_get_meta(t, "batch") : "?",
		       trace_get_meta(t, "dtype") ? trace_get_meta(t, "dtype") : "?");
	printf("\ndevice:       %s\n", dev ? dev : "unknown");
	if (complete && strcmp(complete, "1") != 0)
		printf("complete:     no (recording stopped early)\n");
	printf("buffers:      %zu (%zu persistent, %s; %zu transient)\n",
	       t->nbuffers, in->persistent,
	       cli_format_size(in->persistent_bytes, a, sizeof(a)),
	       in->transient);
	printf("events:       %zu (", t->nevents);
	for (unsigned k = 0, first = 1; k < TRACE_EV_COUNT; k++) {
		if (!in->by_type[k])
			continue;
		printf("%s%zu %s", first ? "" : ", ", in->by_type[k],
		       trace_event_type_name(k));
		first = 0;
	}
	printf(")\naccesses:     %zu\n", t->naccesses);
	if (t->nholes)
		printf("holes:        %zu\n", t->nholes);
	printf("span:         seq %" PRId64 "..%" PRId64, in->seq_lo, in->seq_hi);
	if (in->t_lo <= in->t_hi) {
		/* what the times measure: a snapshot's are the host's clock */
		if (t->clock == TRACE_CLOCK_TIME)
			printf(", time %" PRId64 "..%" PRId64 " (%s)", in->t_lo, in->t_hi,
			       slice_time_kind(t));
		else
			printf(", %.3f ms of %s (timestamps %" PRId64 "..%" PRId64 " ns)",
			       (double)(in->t_hi - in->t_lo) / 1e6, slice_time_kind(t),
			       in->t_lo, in->t_hi);
	}
	printf("\npeak:         %s (%" PRIu64 " bytes) at %s %" PRId64 "\n",
	       cli_format_size(in->peak, a, sizeof(a)), in->peak,
	       t->clock == TRACE_CLOCK_TIME ? "time" : "seq", in->peak_at);
	printf("lower bound:  %s (%" PRIu64 " bytes; transient buffers, any single pool)\n",
	       cli_format_size(in->lower_bound, b, sizeof(b)), in->lower_bound);
	if (in->bypass)
		printf("bypassing:    %zu buffers (%s) asked for by libraries with their own CUDA runtime (%s): plans pass them by\n",
		       in->bypass, cli_format_size(in->bypass_bytes, a, sizeof(a)),
		       in->bypass_source ? in->bypass_source : "source unknown");
	if (in->host_peak)
		printf("host memory:  %s (%" PRIu64 " bytes) at most, pinned; not in the figures above\n",
		       cli_format_size(in->host_peak, b, sizeof(b)), in->host_peak);
	if (in->period.found)
		printf("period:       %zu allocation requests, %zu complete iterations "
		       "(detected; iteration 1 starts at request %zu)\n",
		       in->period.period, in->period.iterations, in->period.first);
	else if (in->period.block && in->period.kept)
		printf("period:       none: one pass; no repeated iteration found (a block of %zu "
		       "allocation requests repeats %zu times inside it, each keeping %s more "
		       "live: layers of a forward pass, not iterations)\n",
		       in->period.block, in->period.block_repeats,
		       cli_format_size(in->period.kept, a, sizeof(a)));
	else if (in->period.block)
		printf("period:       none: one pass; no repeated iteration found (a block of %zu "
		       "allocation requests repeats %zu times inside it, each handing %s to the "
		       "next: layers, not iterations)\n",
		       in->period.block, in->period.block_repeats,
		       cli_format_size(in->period.handoff, a, sizeof(a)));
	else
		printf("period:       none detected (one iteration, or no repeating pattern)\n");
}

static int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' },
					      { "help", no_argument, NULL, 'h' },
					      { 0 } };
	int json = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else
			return cli_option_error(c, "info");
	}
	if (optind != argc - 1)
		return cli_usage_error("info: expected one TRACE");
	struct trace *t;
	int rc = load_or_die(argv[optind], &t);
	if (rc)
		return rc;
	struct info in;
	char err[256];
	if ((rc = gather(t, &in, err, sizeof(err)))) {
		cli_error("trace '%s': %s", argv[optind], err);
		trace_free(t);
		return cli_exit_for(rc, 0);
	}
	if (json)
		info_json(argv[optind], t, &in);
	else
		info_text(argv[optind], t, &in);
	trace_free(t);
	return fflush(stdout) == 0 ? MP_EXIT_OK : MP_EXIT_OUTPUT;
}

/* --- import / export ----------------------------------------------------- */

#define DEVICE_CPU (-1000) /* --device cpu */
#define IMPORT_FORMATS "minimalloc-csv, pytorch-snapshot, nsys-sqlite, pytorch-et"

static int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "device", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "kineto", required_argument, NULL, 'k' },
		{ "snapshot", required_argument, NULL, 's' },
		{ "rank", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *from = NULL, *out = NULL, *kineto = NULL, *snap = NULL;
	long rank = ZIN_ANY_RANK;
	int device = SNAPSHOT_ANY_DEVICE, c;
	int64_t pid = NSYS_ANY_PID;
	uint64_t v;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:d:p:k:s:r:h", opts, NULL)) != -1) {
		if (c == 'f')
			from = optarg;
		else if (c == 'r') {
			if (cli_parse_u64(optarg, &v) || v > 999999)
				return cli_usage_error("import: --rank '%s' is not a rank (0 to 999999)",
						       optarg);
			rank = (long)v;
		}
		else if (c == 'k')
			kineto = optarg;
		else if (c == 's')
			snap = optarg;
		else if (c == 'o')
			out = optarg;
		else if (c == 'd') {
			if (strcmp(optarg, "cpu") == 0) {
				device = DEVICE_CPU;
				continue;
			}
			if (cli_parse_u64(optarg, &v) || v > 1023)
				return cli_usage_error("import: --device '%s' is not a device ordinal (0 to 1023, or cpu for pytorch-et)",
						       optarg);
			device = (int)v;
		} else if (c == 'p') {
			/* nsys keeps process ids in 24 bits */
			if (cli_parse_u64(optarg, &v) || v > 0xffffff)
				return cli_usage_error("import: --pid '%s' is not a process id (0 to 16777215)",
						       optarg);
			pid = (int64_t)v;
		} else
			return cli_option_error(c, "import");
	}
	if (!out)
		return cli_usage_error("import: -o TRACE is required");
	if (optind != argc - 1)
		return cli_usage_error("import: expected one input file");
	char err[ERRLEN];
	if (!from) {
		/* what the file is, said before anything is imported */
		char why[160];
		int drc = import_detect(argv[optind], &from, why, sizeof(why), err, sizeof(err));
		if (drc) {
			cli_error("%s", err);
			return cli_exit_for(drc, 0);
		}
		printf("%s: detected %s: %s\n", argv[optind], from, why);
	}
	if (cli_same_file(argv[optind], out))
		return cli_usage_error("import: the output '%s' is the input file: write the trace elsewhere",
				       out);
	struct trace *t;
	int rc;
	if (pid != NSYS_ANY_PID && strcmp(from, "nsys-sqlite") != 0)
		return cli_usage_error("import: --pid applies to nsys-sqlite");
	if (kineto && strcmp(from, "pytorch-et") != 0)
		return cli_usage_error("import: --kineto applies to pytorch-et");
	if (kineto && cli_same_file(kineto, out))
		return cli_usage_error("import: the output '%s' is the profiler trace: write the trace elsewhere",
				       out);
	if (snap && strcmp(from, "pytorch-et") != 0)
		return cli_usage_error("import: --snapshot applies to pytorch-et (a snapshot alone: --from pytorch-snapshot)");
	if (snap && kineto)
		return cli_usage_error("import: --kineto and --snapshot both give the step's allocations: give one "
				       "(--kineto also gives GPU times)");
	if (snap && cli_same_file(snap, out))
		return cli_usage_error("import: the output '%s' is the snapshot: write the trace elsewhere",
				       out);
	if (rank != ZIN_ANY_RANK && strcmp(from, "pytorch-et") != 0)
		return cli_usage_error("import: --rank applies to pytorch-et (a tar of several ranks' files)");
	if (device == DEVICE_CPU && strcmp(from, "pytorch-et") != 0)
		return cli_usage_error("import: --device cpu applies to pytorch-et (its tensors on the host)");
	if (strcmp(from, "minimalloc-csv") == 0) {
		if (device != SNAPSHOT_ANY_DEVICE)
			return cli_usage_error("import: --device applies to pytorch-snapshot, nsys-sqlite and pytorch-et");
		rc = mmcsv_import(argv[optind], &t, err, sizeof(err));
	} else if (strcmp(from, "pytorch-snapshot") == 0) {
		rc = snapshot_import(argv[optind], device, &t, err, sizeof(err));
		const char *why = rc ? NULL : trace_get_meta(t, "pytorch.device_chosen");
		if (why)
			printf("%s: imported %s\n", argv[optind], why);
	} else if (strcmp(from, "pytorch-et") == 0) {
		rc = et_import(argv[optind], kineto, snap,
			       device == DEVICE_CPU ? ET_HOST : device < 0 ? ET_ANY_DEVICE : device,
			       rank, &t, err, sizeof(err));
	} else if (strcmp(from, "nsys-sqlite") == 0) {
		rc = nsys_import_process(argv[optind], device < 0 ? NSYS_ANY_DEVICE : device,
					 pid, &t, err, sizeof(err));
	} else {
		return cli_usage_error("import: unknown format '%s' (known: " IMPORT_FORMATS ")",
				       from);
	}
	if (rc) {
		if (rc == TRACE_EINVAL)
			return cli_usage_error("import: %s", err);
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	rc = save_or_die(t, out);
	trace_free(t);
	return rc;
}

static int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *to = NULL, *out = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:o:h", opts, NULL)) != -1) {
		if (c == 't')
			to = optarg;
		else if (c == 'o')
			out = optarg;
		else
			return cli_option_error(c, "export");
	}
	if (!to)
		return cli_usage_error("export: --to FORMAT is required (minimalloc-csv)");
	if (strcmp(to, "minimalloc-csv") != 0)
		return cli_usage_error("export: unknown format '%s' (known: minimalloc-csv)",
				       to);
	if (optind != argc - 1)
		return cli_usage_error("export: expected one TRACE");
	if (cli_same_file(argv[optind], out))
		return cli_usage_error("export: the output '%s' is the input trace: write it elsewhere",
				       out);
	struct trace *t;
	int rc = load_or_die(argv[optind], &t);
	if (rc)
		return rc;
	struct cli_out o;
	if ((rc = cli_out_open(&o, out)) != 0) {
		trace_free(t);
		return rc;
	}
	char err[ERRLEN];
	int werr = mmcsv_export(t, o.f, err, sizeof(err));
	if (werr)
		cli_error("'%s': %s", out && strcmp(out, "-") != 0 ? out : "standard output",
			  err);
	rc = cli_out_close(&o, werr == 0);
	trace_free(t);
	if (werr)
		return MP_EXIT_OUTPUT;
	if (rc == 0 && out && strcmp(out, "-") != 0)
		printf("%s: MiniMalloc CSV of %s\n", out, argv[optind]);
	return rc;
}

/* --- synth --------------------------------------------------------------- */

static int synth_list(void)
{
	printf("models:\n");
	for (size_t i = 0; synth_model_name(i); i++)
	{
		const char *m = synth_model_name(i);
		unsigned d = synth_model_max_depth(m);
		printf("  %-14s %s", m, synth_model_about(i));
		if (d)
			printf(" (--depth 1-%u)", d);
		printf("\n");
	}
	printf("devices:");
	for (size_t i = 0; synth_device_name(i); i++)
		printf(" %s", synth_device_name(i));
	printf("\ndtypes: fp32 fp16 bf16\n");
	return MP_EXIT_OK;
}

static int cmd_synth(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "batch", required_argument, NULL, 'b' },
		{ "dtype", required_argument, NULL, 'd' },
		{ "device", required_argument, NULL, 'D' },
		{ "seq-len", required_argument, NULL, 's' },
		{ "optimizer", required_argument, NULL, 'O' },
		{ "depth", required_argument, NULL, 'L' },
		{ "output", required_argument, NULL, 'o' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct synth_opts so = { .dtype = SYNTH_FP32, .device = "h200" };
	const char *out = NULL;
	uint64_t v;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "m:b:d:D:s:O:L:o:lh", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			so.model = optarg;
			break;
		case 'b':
			if (cli_parse_u64(optarg, &v) || v == 0 || v > 1u << 20)
				return cli_usage_error("synth: --batch '%s' is not a batch size (1 to 1048576)",
						       optarg);
			so.batch = (unsigned)v;
			break;
		case 'd':
			if (synth_dtype_parse(optarg, &so.dtype))
				return cli_usage_error("synth: --dtype '%s' is not one of fp32, fp16, bf16",
						       optarg);
			break;
		case 'D':
			so.device = optarg;
			break;
		case 's':
			if (cli_parse_u64(optarg, &v) || v == 0 || v > 1u << 20)
				return cli_usage_error("synth: --seq-len '%s' is not a sequence length (1 to 1048576)",
						       optarg);
			so.seq_len = (unsigned)v;
			break;
		case 'O':
			so.optimizer = optarg;
			break;
		case 'L':
			if (cli_parse_u64(optarg, &v) || v == 0 || v > 64)
				return cli_usage_error("synth: --depth '%s' is not a depth (1 to the model's: 'synth --list')",
						       optarg);
			so.depth = (unsigned)v;
			break;
		case 'o':
			out = optarg;
			break;
		case 'l':
			return synth_list();
		default:
			return cli_option_error(c, "synth");
		}
	}
	if (optind != argc)
		return cli_usage_error("synth: unexpected argument '%s'", argv[optind]);
	if (!so.model)
		return cli_usage_error("synth: --model is required (see 'synth --list')");
	if (!so.batch)
		return cli_usage_error("synth: --batch is required");
	if (!out)
		return cli_usage_error("synth: -o TRACE is required");
	char err[ERRLEN];
	struct trace *t;
	int rc = synth_build(&so, &t, err, sizeof(err));
	if (rc) {
		if (rc == TRACE_EINVAL)
			return cli_usage_error("synth: %s", err);
		cli_error("%s", err);
		return cli_exit_for(rc, 0);
	}
	rc = save_or_die(t, out);
	trace_free(t);
	return rc;
}

/* --- slice --------------------------------------------------------------- */

/* The window [from, to) on the trace's clock, from what was typed (an
 * offset from the first timestamp when rel), or a usage error (2) or an
 * input error (3) that names the trace's valid range. */
static int slice_window(const struct trace *t, const char *path, int64_t *from, int rel_from,
			int64_t *to, int rel_to)
{
	int64_t first = 0, last = 0;
	if (!slice_time_span(t, &first, &last))
		return 0; /* slice_time() says the trace has no timestamps */
	if ((rel_from || rel_to) && t->clock == TRACE_CLOCK_TIME)
		return cli_usage_error("slice: trace '%s' counts %s, not seconds: give --from-time and --to-time as integers from %lld to %lld",
				       path, slice_time_kind(t), (long long)first, (long long)last);
	if (rel_from)
		*from += first;
	if (rel_to)
		*to += first;
	if (*from >= *to)
		return cli_usage_error("slice: --from-time must come before --to-time");
	return 0;
}

/* The error of a window that holds no event: the trace's valid range, as
 * offsets a person can type and as its timestamps. */
static void slice_window_error(const struct trace *t, const char *path, int64_t from, int64_t to)
{
	int64_t first = 0, last = 0;
	char a[32], b[32], c[32];
	slice_time_span(t, &first, &last);
	if (t->clock == TRACE_CLOCK_TIME) {
		cli_error("cannot slice trace '%s': no event starts between time %lld and %lld; its events start from %lld to %lld (%s)",
			  path, (long long)from, (long long)to, (long long)first, (long long)last,
			  slice_time_kind(t));
		return;
	}
	cli_error("cannot slice trace '%s': no event starts between %s and %s after its start; "
		  "its events start from 0 to %s after it (--from-time 0us --to-time %lldus "
		  "takes them all; %s, timestamps %lld..%lld ns)",
		  path, slice_format_ns(from - first, a, sizeof(a)),
		  slice_format_ns(to - first, b, sizeof(b)), slice_format_ns(last - first, c, sizeof(c)),
		  (long long)((last - first) / 1000 + 1), slice_time_kind(t),
		  (long long)first, (long long)last);
}

static int cmd_slice(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iteration", required_argument, NULL, 'i' },
		{ "range", required_argument, NULL, 'r' },
		{ "from-time", required_argument, NULL, 'F' },
		{ "to-time", required_argument, NULL, 'T' },
		{ "auto", no_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *out = NULL, *range = NULL;
	uint64_t n = 0;
	int64_t from = 0, to = 0;
	int have_from = 0, have_to = 0, rel_from = 0, rel_to = 0, detect = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:r:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (cli_parse_u64(optarg, &n) || n == 0 || n > SIZE_MAX / 2)
				return cli_usage_error("slice: --iteration '%s' is not an iteration number (1, 2, ...)",
						       optarg);
			break;
		case 'r':
			range = optarg;
			break;
		case 'F':
			if (slice_parse_time(optarg, &from, &rel_from))
				return cli_usage_error("slice: --from-time '%s' is not a time (1ms, 250us, 2.5s after the trace's start, or a timestamp in ns)",
						       optarg);
			have_from = 1;
			break;
		case 'T':
			if (slice_parse_time(optarg, &to, &rel_to))
				return cli_usage_error("slice: --to-time '%s' is not a time (1ms, 250us, 2.5s after the trace's start, or a timestamp in ns)",
						       optarg);
			have_to = 1;
			break;
		case 'a':
			detect = 1;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			return cli_option_error(c, "slice");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("slice: expected one TRACE");
	if (!out)
		return cli_usage_error("slice: -o TRACE is required");
	if (cli_same_file(argv[optind], out))
		return cli_usage_error("slice: the output '%s' is the input trace: write the slice elsewhere",
				       out);
	if (have_from != have_to)
		return cli_usage_error("slice: --from-time and --to-time go together");
	if (have_from && (n || range || detect))
		return cli_usage_error("slice: a time window excludes --iteration, --range and --auto");
	if (range && detect)
		return cli_usage_error("slice: --range and --auto exclude each other");
	if (!have_from && !range && !n)
		return cli_usage_error("slice: say which iteration: --iteration N, --range NAME or --from-time/--to-time");
	const char *path = argv[optind];
	struct trace *t, *s = NULL;
	int rc = load_or_die(path, &t);
	if (rc)
		return rc;
	char err[ERRLEN], note[160];
	size_t lo = 0, hi = 0;
	if (!n)
		n = 1;
	if (have_from) {
		if ((rc = slice_window(t, path, &from, rel_from, &to, rel_to)) != 0) {
			trace_free(t);
			return rc;
		}
		rc = slice_time(t, from, to, &lo, &hi, err, sizeof(err));
		snprintf(note, sizeof(note), "time %lld to %lld", (long long)from,
			 (long long)to);
		int64_t first, last;
		if (rc == TRACE_EFORMAT && slice_time_span(t, &first, &last)) {
			slice_window_error(t, path, from, to);
			trace_free(t);
			return MP_EXIT_INPUT;
		}
	} else if (range || (!detect && slice_count_ranges(t, "iteration"))) {
		const char *name = range ? range : "iteration";
		rc = slice_range(t, name, (size_t)n, &lo, &hi, err, sizeof(err));
		snprintf(note, sizeof(note), "range '%.100s' number %llu", name,
			 (unsigned long long)n);
	} else {
		struct slice_period p;
		rc = slice_detect(t, &p);
		if (rc == 0)
			rc = slice_iteration(t, &p, (size_t)n, &lo, &hi, err, sizeof(err));
		else
			snprintf(err, sizeof(err), "out of memory");
		snprintf(note, sizeof(note),
			 "iteration %llu of %zu (period of %zu allocation requests, detected)",
			 (unsigned long long)n, p.iterations, p.period);
	}
	if (rc == 0)
		rc = slice_cut(t, lo, hi, note, &s, err, sizeof(err));
	trace_free(t);
	if (rc) {
		cli_error("cannot slice trace '%s': %s", path, err);
		return cli_exit_for(rc, 0);
	}
	rc = save_or_die(s, out);
	trace_free(s);
	return rc;
}

/* --- table --------------------------------------------------------------- */

/* What each subcommand's --help lists: every option, meaning and default. */
static const char info_options[] =
	"  -j, --json               one JSON object (default: text)\n"
	"  -h, --help               this text\n";
static const char import_options[] =
	"  -f, --from FORMAT        the input's format: minimalloc-csv,\n"
	"                           pytorch-snapshot, nsys-sqlite or pytorch-et\n"
	"                           (default: detected from the file, and said)\n"
	"  -o, --output TRACE       the trace to write (required)\n"
	"  -d, --device N           pytorch-snapshot, nsys-sqlite, pytorch-et: the\n"
	"                           device to take (default: the only one with a\n"
	"                           history, or with tensors); pytorch-et: cpu, the\n"
	"                           host's tensors (default when all are there)\n"
	"  -p, --pid P              nsys-sqlite: the process to take (default: the\n"
	"                           only one with memory events on the device)\n"
	"  -k, --kineto FILE        pytorch-et: the profiler's Chrome/Kineto trace of\n"
	"                           the same window, for real allocations, frees and\n"
	"                           GPU times (default: none; sizes and frees inferred)\n"
	"  -s, --snapshot FILE      pytorch-et: a memory snapshot of the same run\n"
	"                           (torch.cuda.memory._dump_snapshot), for real\n"
	"                           allocations and frees instead of --kineto; the\n"
	"                           step is found in its history (default: none)\n"
	"  -r, --rank N             pytorch-et: of a tar holding several ranks' files,\n"
	"                           the one of rank N (default: the only one)\n"
	"  -h, --help               this text\n";
static const char export_options[] =
	"  -t, --to FORMAT          the output's format: minimalloc-csv (required)\n"
	"  -o, --output OUT         the file to write (default: standard output)\n"
	"  -h, --help               this text\n";
static const char slice_options[] =
	"  -i, --iteration N        the N-th iteration (1, 2, ...)\n"
	"  -r, --range NAME         iterations are the NVTX ranges named NAME\n"
	"      --auto               iterations are the trace's detected period\n"
	"      --from-time T        the events starting in [T, U): times after the\n"
	"      --to-time U          trace's start with a unit (250us, 1ms, 2.5s), or\n"
	"                           timestamps of its clock, integers (ns; 'info'\n"
	"                           shows the span) (default: none; say which\n"
	"                           iteration)\n"
	"  -o, --output OUT         the trace to write (required)\n"
	"  -h, --help               this text\n";
static const char synth_options[] =
	"  -m, --model M            the model (required; --list shows them)\n"
	"  -b, --batch B            the batch size (required)\n"
	"  -d, --dtype T            fp32, fp16 or bf16 (default fp32)\n"
	"  -D, --device D           h200, h100, a100 or v100 (default h200)\n"
	"  -s, --seq-len N          transformers: tokens per sample (default: the\n"
	"                           model's)\n"
	"  -O, --optimizer O        sgd or adam (default: sgd with momentum for CNNs,\n"
	"                           adam for transformers)\n"
	"  -L, --depth N            a cut-down model: N transformer layers, or at\n"
	"                           most N blocks per ResNet stage (default: the\n"
	"                           whole model; --list says each model's most)\n"
	"  -o, --output TRACE       the trace to write (required)\n"
	"  -l, --list               list the models, devices and types\n"
	"  -h, --help               this text\n";

static const struct cli_command commands[] = {
	{ "info", cmd_info, "info [--json] TRACE",
	  "show what a trace holds: source, counts, span, peak, lower bound",
	  info_options },
	{ "import", cmd_import,
	  "import [--from minimalloc-csv|pytorch-snapshot|nsys-sqlite|pytorch-et] IN -o TRACE [--device N|cpu] [--pid P] [--kineto KINETO | --snapshot SNAP] [--rank N]",
	  "convert another tool's file into a trace",
	  import_options },
	{ "export", cmd_export, "export --to minimalloc-csv TRACE [-o OUT]",
	  "write a trace in another tool's format (stdout by default)",
	  export_options },
	{ "slice", cmd_slice,
	  "slice TRACE (--iteration N [--range NAME | --auto] | --range NAME | "
	  "--from-time T --to-time U) -o OUT",
	  "cut one iteration out of a trace of many (by ranges, time, or the detected period)",
	  slice_options },
	{ "synth", cmd_synth,
	  "synth --model M --batch B [--dtype fp32|fp16|bf16] [--device h200|h100|a100|v100] "
	  "[--seq-len N] [--optimizer sgd|adam] [--depth N] -o TRACE | synth --list",
	  "write one training iteration of a model from the synthetic zoo",
	  synth_options },
	{ 0 }
};

int main(int argc, char **argv)
{
	cli_progname = "memplan-trace";
	return cli_dispatch(commands, argc, argv,
			    "Inspect, import, export and synthesize memplan traces "
			    "(SQLite files, see memplan-trace(5)).");
}
