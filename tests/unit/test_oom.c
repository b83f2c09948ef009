/* SPDX-License-Identifier: MIT */
/*
 * test_oom.c - every allocation the importers and the planner make,
 * failed in turn.  The
 * binary is linked with -Wl,--wrap for malloc, calloc and realloc (the
 * Makefile's rule for test_oom), so every call from memplan's own objects
 * comes through here; SQLite's, CBC's, GLPK's and libc's own stay untouched.
 * For each entry point below, a first run counts its allocations; then
 * allocation k (each k in turn, or every stride-th where there are many)
 * fails once and the call must either give the very same answer (the
 * allocation had a fallback that changes nothing) or fail with an
 * out-of-memory error: never a crash, never a different answer in silence.
 * Run under the sanitizers (CI's second pass) it also shows that every
 * error path frees what it took.  MEMPLAN_OOM_WHERE=1 prints where each
 * allocation that broke the rule was made (addr2line -e on the offsets);
 * MEMPLAN_OOM_SCALE, below, sweeps more of them.
 */
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "exact_plan.h"
#include "import_et.h"
#include "import_nsys.h"
#include "import_snapshot.h"
#include "link.h"
#include "minimalloc_csv.h"
#include "memplan.h"
#include "plan.h"
#include "replay.h"
#include "report.h"
#include "scan.h"
#include "simulate.h"
#include "solver.h"
#include "swap.h"
#include "synth.h"
#include "tap.h"
#include "trace.h"
#include "tracedb.h"
#include "zinput.h"
#include "planner/budget/zoo_fixture.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

/* armed: the countdown to the allocation that fails (0: none fails) */
static uint64_t oom_countdown, oom_calls;
static int oom_counting, oom_failed, oom_where;

static int oom_fail_now(void)
{
	if (oom_counting)
		oom_calls++;
	if (oom_countdown && --oom_countdown == 0) {
		oom_failed = 1;
		if (oom_where) {
			void *bt[6];
			int k = backtrace(bt, 6);
			backtrace_symbols_fd(bt + 1, k - 1, 2);
		}
		return 1;
	}
	return 0;
}

void *__wrap_malloc(size_t n)
{
	return oom_fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	return oom_fail_now() ? NULL : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	return oom_fail_now() ? NULL : __real_realloc(p, n);
}

/* One entry point: runs it, and encodes what it answered into *out (a
 * string both runs can compare).  Returns the call's code, or
 * OOM_FALLBACK where the caller's documented answer to that code is
 * another path that a sweep of its own covers (analyze's summary loads a
 * trace whole when it cannot stream it). */
#define OOM_FALLBACK 1
typedef int (*oom_call)(void *ctx, char **out, char *err, size_t errlen);

/*
 * Fails each allocation of call in turn (every stride-th beyond max
 * runs) and checks every outcome against the first, unfailed run.
 */
static void sweep(const char *what, oom_call call, void *ctx, uint64_t max)
{
	char err[1024], *want = NULL;
	oom_calls = 0;
	oom_counting = 1;
	int rc0 = call(ctx, &want, err, sizeof(err));
	oom_counting = 0;
	uint64_t n = oom_calls;
	char msg[256];
	snprintf(msg, sizeof(msg), "%s: runs (%" PRIu64 " allocations)", what,
		 n);
	CHECK(rc0 == 0 && want, msg);
	if (rc0 || !want) {
		printf("# %s\n", err);
		free(want);
		return;
	}
	uint64_t stride = n > max ? (n + max - 1) / max : 1;
	uint64_t same = 0, refused = 0, runs = 0, wrong = 0, fell = 0;
	for (uint64_t k = 1; k <= n; k += stride) {
		char *got = NULL;
		err[0] = 0;
		oom_failed = 0;
		oom_countdown = k;
		int rc = call(ctx, &got, err, sizeof(err));
		oom_countdown = 0;
		if (!oom_failed) { /* allocation k is not the product's */
			free(got);
			continue;
		}
		runs++;
		if (rc == 0 && got && strcmp(got, want) == 0) {
			same++;
		} else if (rc == OOM_FALLBACK) {
			fell++;
		} else if (rc != 0 && (strstr(err, "out of memory") ||
				       strstr(err, "out of host memory"))) {
			refused++;
		} else {
			if (wrong++ < 3 && getenv("MEMPLAN_OOM_WHERE")) {
				char *g2 = NULL;
				oom_where = 1;
				oom_countdown = k;
				call(ctx, &g2, err, sizeof(err));
				oom_countdown = 0;
				oom_where = 0;
				free(g2);
			}
			if (wrong < 4)
				printf("# allocation %" PRIu64 " failed: rc %d, %s\n#   got  %.300s\n#   want %.300s\n",
				       k, rc, err, got ? got : "(none)", want);
		}
		free(got);
	}
	snprintf(msg, sizeof(msg),
		 "%s: each of %" PRIu64 " failed allocations gives the same answer (%" PRIu64
		 ") or says out of memory (%" PRIu64 ")",
		 what, runs, same, refused);
	CHECK(wrong == 0, msg);
	if (fell)
		printf("#   %" PRIu64 " took the documented other path\n", fell);
	if (wrong)
		printf("#   %" PRIu64 " gave another answer or another error\n",
		       wrong);
	free(want);
}

/* --- the entry points --- */

/* a plan and its simulation as text: the encoded plan's bytes in hex
 * (a hash of them) and the predicted iteration */
static char *plan_text(const struct mp_plan *plan, const struct sim_result *sim)
{
	uint64_t saved = oom_countdown; /* nothing fails while we look */
	oom_countdown = 0;
	unsigned char *buf = NULL;
	size_t len = 0;
	char err[256], *s = NULL;
	if (mp_plan_encode(plan, &buf, &len, err, sizeof(err)) == 0) {
		uint64_t h = 1469598103934665603ULL;
		for (size_t i = 0; i < len; i++)
			h = (h ^ buf[i]) * 1099511628211ULL;
		s = malloc(160);
		if (s)
			snprintf(s, 160, "pool %" PRIu64 " swaps %u bytes %zu hash %016" PRIx64 " iter %.3f",
				 plan->pool_size, plan->nswaps, len, h,
				 sim ? sim->iter_ns : 0.0);
	}
	free(buf);
	oom_countdown = saved;
	return s;
}

struct budget_call {
	struct zoo_fx *z;
	const char *strategy;
	double share;
};

static int call_budget(void *ctx, char **out, char *err, size_t errlen)
{
	struct budget_call *b = ctx;
	uint64_t budget = (uint64_t)((double)b->z->lb * b->share);
	struct mp_plan plan;
	struct sim_result sim;
	struct swap_outcome oc;
	int rc = budget_plan_ctx(&b->z->c, b->strategy, budget, "best-fit",
				 b->z->align, &plan, &sim, &oc, err, errlen);
	if (rc)
		return rc;
	*out = plan_text(&plan, &sim);
	mp_plan_free(&plan);
	sim_free(&sim);
	return 0;
}

static int call_exact(void *ctx, char **out, char *err, size_t errlen)
{
	struct budget_call *b = ctx;
	uint64_t budget = (uint64_t)((double)b->z->lb * b->share);
	struct exact_options o = { EXACT_HYBRID, 4, 1 };
	struct exact_result er;
	struct mp_plan plan;
	struct sim_result sim;
	int rc = exact_plan_ctx(&b->z->c, &o, budget, "best-fit", b->z->align,
				&plan, &sim, &er, err, errlen);
	if (rc)
		return rc;
	*out = plan_text(&plan, &sim);
	mp_plan_free(&plan);
	sim_free(&sim);
	return 0;
}

struct place_call {
	const struct solver_problem *p;
	const char *name;
};

static int call_place(void *ctx, char **out, char *err, size_t errlen)
{
	struct place_call *c = ctx;
	struct solver_options o = { 0 };
	o.work_limit = 20000;
	struct solver_report r;
	uint64_t *off = __real_malloc((c->p->n + 1) * sizeof(*off));
	if (!off)
		return -1;
	int rc = solver_solve(c->p, c->name, &o, off, &r, err, errlen);
	if (rc == 0) {
		uint64_t h = 1469598103934665603ULL;
		for (size_t i = 0; i < c->p->n; i++)
			h = (h ^ off[i]) * 1099511628211ULL;
		*out = __real_malloc(128);
		if (*out)
			snprintf(*out, 128, "height %" PRIu64 " stop %d hash %016" PRIx64,
				 r.height, r.stopped_by, h);
	}
	free(off);
	return rc;
}

/* a report as its JSON (printing's own allocations fail too) */
static int report_text(const struct trace *t, const struct report *r,
		       char **out, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	int rc = 0;
	FILE *f = open_memstream(&text, &len);
	if (f) {
		int w = report_print_json(f, "zoo.trace", t, r, 0);
		if (fclose(f) || w) {
			free(text);
			text = NULL;
			rc = trace_seterr(err, errlen, TRACE_ENOMEM,
					  "out of memory printing the report");
		}
	}
	*out = text;
	return rc;
}

/* --- analyze's summary of a zoo trace, as its JSON --- */

static int call_report(void *ctx, char **out, char *err, size_t errlen)
{
	const struct trace *t = ctx;
	struct report r;
	int rc = report_build(t, NULL, REPORT_ALL_ALLOCATORS, &r, err, errlen);
	if (rc) {
		report_free(&r);
		return rc;
	}
	rc = report_text(t, &r, out, err, errlen);
	report_free(&r);
	return rc;
}

/* --- the runtime's reading of a plan file (its bytes in memory) --- */

struct bytes {
	unsigned char *buf;
	size_t len;
};

static int call_decode(void *ctx, char **out, char *err, size_t errlen)
{
	const struct bytes *b = ctx;
	struct mp_plan plan;
	int rc = mp_plan_decode(b->buf, b->len, &plan, err, errlen);
	if (rc)
		return rc;
	*out = plan_text(&plan, NULL);
	mp_plan_free(&plan);
	return 0;
}

/* --- memplan-replay: the runtime (host backend) following a plan over its
 * trace, every byte checked --- */

struct replay_call {
	const struct trace *t;
	const char *path;
};

static int call_replay(void *ctx, char **out, char *err, size_t errlen)
{
	const struct replay_call *c = ctx;
	struct replay_opts o = { MP_BACKEND_HOST, 2, 4, 1, NULL, NULL, NULL, 0 };
	struct replay_result r;
	int rc = replay_run(c->t, c->path, &o, &r, NULL, NULL, err, errlen);
	if (rc)
		return rc;
	uint64_t saved = oom_countdown;
	oom_countdown = 0;
	*out = malloc(200);
	if (*out)
		snprintf(*out, 200,
			 "iterations %" PRIu64 " followed %" PRIu64 " requests %" PRIu64
			 " checks %" PRIu64 " bytes %" PRIu64 " problems %" PRIu64,
			 r.iterations, r.followed, r.requests, r.checks,
			 r.bytes_checked, r.problems);
	oom_countdown = saved;
	return 0;
}

/* a trace as text: its counts and peak (nothing fails while we look) */
static char *trace_text(const struct trace *t)
{
	uint64_t saved = oom_countdown;
	oom_countdown = 0;
	char *s = malloc(200);
	if (s)
		snprintf(s, 200,
			 "buffers %zu events %zu accesses %zu holes %zu meta %zu peak %" PRIu64,
			 t->nbuffers, t->nevents, t->naccesses, t->nholes,
			 t->nmeta, trace_peak(t, TRACE_ALL, NULL));
	oom_countdown = saved;
	return s;
}

/* A call's answer: rc, and when 0, t as text into *out (t freed). */
static int trace_answer(int rc, struct trace *t, char **out)
{
	if (rc)
		return rc;
	*out = trace_text(t);
	trace_free(t);
	return 0;
}

/* --- the importers, on the fuzz targets' seeds (files real tools write,
 * cut small) --- */

#define SEEDS "tests/fuzz/seeds/"

enum { IMP_SNAPSHOT, IMP_ET, IMP_NSYS, IMP_CSV };

static int call_import(void *ctx, char **out, char *err, size_t errlen)
{
	int kind = *(const int *)ctx;
	struct trace *t = NULL;
	int rc;
	switch (kind) {
	case IMP_SNAPSHOT:
		rc = snapshot_import(SEEDS "pickle/snapshot.pickle", 0, &t, err,
				     errlen);
		break;
	case IMP_ET:
		rc = et_import(SEEDS "json/small-et.json",
			       SEEDS "json/small-kineto.json", NULL,
			       ET_ANY_DEVICE, ZIN_ANY_RANK, &t, err, errlen);
		break;
	case IMP_NSYS:
		rc = nsys_import(SEEDS "nsys/old.sqlite", NSYS_ANY_DEVICE, &t, err,
				 errlen);
		break;
	default:
		rc = mmcsv_import(SEEDS "csv/small.csv", &t, err, errlen);
		break;
	}
	return trace_answer(rc, t, out);
}

/* --- a trace file of memplan's own: loaded whole, and streamed by
 * analyze's summary --- */

static int call_load(void *ctx, char **out, char *err, size_t errlen)
{
	struct trace *t = NULL;
	int rc = trace_load(ctx, &t, err, errlen);
	return trace_answer(rc, t, out);
}

static int call_scan(void *ctx, char **out, char *err, size_t errlen)
{
	struct trace *t = NULL;
	struct report_digest d;
	int rc = scan_trace(ctx, &t, &d, NULL, err, errlen);
	if (rc == SCAN_LOAD_WHOLE) /* summary then loads it whole (above) */
		return OOM_FALLBACK;
	if (rc)
		return rc;
	struct report r;
	rc = report_build(t, &d, REPORT_ALL_ALLOCATORS, &r, err, errlen);
	if (!rc)
		rc = report_text(t, &r, out, err, errlen);
	report_free(&r);
	scan_digest_free(&d);
	trace_free(t);
	return rc;
}

/*
 * Runs per entry point: each allocation when there are at most that many,
 * else every stride-th.  MEMPLAN_OOM_SCALE=K multiplies them (a developer's
 * longer sweep; 1000 fails every allocation of all four in turn).
 */
int main(void)
{
	const char *sc = getenv("MEMPLAN_OOM_SCALE");
	uint64_t k = sc && atoi(sc) > 0 ? (uint64_t)atoi(sc) : 1;
	static const struct {
		int kind;
		const char *what;
	} imports[] = {
		{ IMP_SNAPSHOT, "import of a PyTorch snapshot" },
		{ IMP_ET, "import of an execution trace with Kineto's" },
		{ IMP_NSYS, "import of an Nsight Systems export" },
		{ IMP_CSV, "import of a MiniMalloc CSV" },
	};
	for (size_t i = 0; i < sizeof(imports) / sizeof(imports[0]); i++)
		sweep(imports[i].what, call_import, (void *)&imports[i].kind,
		      200 * k);
	struct zoo_fx z;
	if (zoo_fx_init(&z, "bert-base", 4, "pcie5")) {
		CHECK(0, "bert-base depth 1 builds, with its swap context");
		return tap_done();
	}
	sweep("analyze's summary (report_build, JSON)", call_report, z.t,
	      150 * k);
	char tpath[] = "/tmp/memplan-oom-trace-XXXXXX";
	int tfd = mkstemp(tpath);
	char terr[512];
	if (tfd >= 0 && trace_save(z.t, tpath, terr, sizeof(terr)) == 0) {
		sweep("a trace file loaded whole", call_load, tpath, 150 * k);
		sweep("a trace file streamed by analyze's summary", call_scan,
		      tpath, 150 * k);
	} else {
		CHECK(0, "the zoo trace in a file");
	}
	if (tfd >= 0) {
		close(tfd);
		unlink(tpath);
	}
	struct place_call pc = { &z.p, "auto" };
	sweep("placement (auto, counted work)", call_place, &pc, 200 * k);
	struct budget_call bm = { &z, "memplan", 0.9 };
	sweep("swap plan (memplan, 90%)", call_budget, &bm, 150 * k);
	struct budget_call bh = { &z, "hybrid", 0.9 };
	sweep("hybrid plan (90%)", call_budget, &bh, 100 * k);
	struct mp_plan plan;
	struct sim_result sim;
	struct swap_outcome oc;
	char err[512];
	struct bytes pb = { NULL, 0 };
	int rc = budget_plan_ctx(&z.c, "memplan", (uint64_t)((double)z.lb * 0.9),
				 "best-fit", z.align, &plan, &sim, &oc, err,
				 sizeof(err));
	if (rc == 0) {
		rc = mp_plan_encode(&plan, &pb.buf, &pb.len, err, sizeof(err));
		mp_plan_free(&plan);
		sim_free(&sim);
	}
	if (rc == 0)
		sweep("the runtime's decoding of a swap plan", call_decode, &pb,
		      200 * k);
	else
		CHECK(0, "a swap plan to decode");
	char path[] = "/tmp/memplan-oom-XXXXXX";
	int fd = rc == 0 ? mkstemp(path) : -1;
	if (fd >= 0 && write(fd, pb.buf, pb.len) == (ssize_t)pb.len) {
		struct replay_call rp = { z.t, path };
		sweep("replay: the runtime follows the swap plan, bytes checked",
		      call_replay, &rp, 60 * k);
	} else {
		CHECK(0, "the swap plan in a file");
	}
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	free(pb.buf);
	if (exact_available()) {
		struct budget_call be = { &z, "hybrid", 0.9 };
		sweep("optimal (hybrid space, 90%)", call_exact, &be, 12 * k);
	} else {
		tap_skip("optimal under failed allocations", "built without CBC or GLPK");
	}
	zoo_fx_free(&z);
	return tap_done();
}
