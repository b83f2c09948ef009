/* SPDX-License-Identifier: MIT */
/*
 * test_capture_recorder.c - the capture recorder with synthetic event
 * streams: a single-thread script checked event by event, GPU times joined
 * by correlation id, persistent buffers at recorder_begin(), several threads
 * at once (the trace must load and be consistent), and a child process
 * SIGKILLed while recording (what was committed loads, marked incomplete).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sqlite3.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recorder.h"
#include "tap.h"
#include "trace.h"
#include "tracedb.h"

static char dir[64];

static const char *tpath(const char *name)
{
	static char p[4][128];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static struct trace *load(const char *path)
{
	struct trace *t = NULL;
	char err[512];
	if (trace_load(path, &t, err, sizeof(err)) != 0) {
		printf("# load: %s\n", err);
		return NULL;
	}
	return t;
}

#define DEV(i) (0x7f0000000000ull + (uint64_t)(i) * 0x100000ull)

static void alloc(struct recorder *r, uint64_t addr, uint64_t size,
		  unsigned kind, uint32_t corr)
{
	struct recorder_alloc a = { .addr = addr, .size = size, .stream = 7,
				    .corr = corr, .device = 0,
				    .kind = (uint8_t)kind };
	recorder_alloc(r, &a);
}

static void test_script(void)
{
	struct recorder *r;
	char err[512];
	struct recorder_opts o = { .record_from_start = 1, .hold_ns = -1 };
	const char *path = tpath("script.trace");
	CHECK(recorder_open(&r, path, &o, err, sizeof(err)) == 0, "open a recorder");
	uint32_t k = recorder_intern(r, "sgemm_kernel");
	CHECK(k != 0 && recorder_intern(r, "sgemm_kernel") == k &&
		      recorder_intern(r, "other") != k,
	      "names intern to stable, distinct ids");
	recorder_meta(r, "device", "Test GPU");
	alloc(r, DEV(1), 4096, TRACE_KIND_DEVICE, 101);   /* buffer 0 */
	alloc(r, DEV(2), 1 << 20, TRACE_KIND_ASYNC, 102); /* buffer 1 */
	alloc(r, 0x10000000ull, 8192, TRACE_KIND_HOST, 103); /* buffer 2, pinned */
	uint64_t words[] = { DEV(2) + 100, 42, DEV(1), DEV(2), DEV(9) };
	recorder_kernel(r, k, 7, 104, words, 5, 0);
	recorder_copy(r, recorder_intern(r, "cudaMemcpyAsync"), 0, DEV(1),
		      0x10000000ull + 16, 512, 7, 105);
	recorder_copy(r, 0, 0, 0x5555000, DEV(2), 64, 7, 106); /* to pageable */
	recorder_memset(r, 0, DEV(1) + 8, 100, 7, 107);
	recorder_sync(r, recorder_intern(r, "cudaDeviceSynchronize"), -1);
	recorder_mark(r, recorder_intern(r, "phase"), TRACE_MARK_POINT);
	CHECK(recorder_free(r, DEV(1), 7, 108) == 0, "free of a known base");
	CHECK(recorder_free(r, DEV(1) + 1, 7, 109) == -1, "free of an unknown address reports it");
	/* GPU times arrive later, out of order */
	recorder_gpu_time(r, 105, 2000, 2500);
	recorder_gpu_time(r, 104, 1000, 1900);
	recorder_gpu_time(r, 999, 1, 2); /* no such event */
	struct recorder_stats st;
	CHECK(recorder_close(r, 1, &st, err, sizeof(err)) == 0, "close commits");
	struct trace *t = load(path);
	CHECK(t != NULL, "the trace loads");
	if (!t)
		return;
	CHECK(strcmp(trace_get_meta(t, "complete"), "1") == 0 &&
		      strcmp(trace_get_meta(t, "device"), "Test GPU") == 0 &&
		      strcmp(trace_get_meta(t, "source"), "memplan-capture") == 0,
	      "meta: complete, device, source");
	CHECK_EQ_U64(t->nbuffers, 3, "three buffers");
	CHECK_EQ_U64(t->nevents, 10, "ten events");
	CHECK(t->buffers[1].kind == TRACE_KIND_ASYNC && t->buffers[1].size == 1 << 20 &&
		      t->buffers[1].addr == DEV(2) && t->buffers[1].stream == 7,
	      "buffer fields kept");
	const struct trace_event *e = &t->events[3];
	CHECK(e->type == TRACE_EV_KERNEL && strcmp(e->name, "sgemm_kernel") == 0 &&
		      e->nacc == 2 && e->t_start == 1000 && e->t_end == 1900 &&
		      e->bytes == 4096 + (1 << 20),
	      "kernel: name, GPU times, two buffers once each, bytes touched");
	int got0 = 0, got1 = 0;
	for (uint32_t i = 0; i < e->nacc; i++) {
		got0 += t->accesses[e->acc0 + i].buffer == 0;
		got1 += t->accesses[e->acc0 + i].buffer == 1;
	}
	CHECK(got0 == 1 && got1 == 1, "kernel accesses are buffers 0 and 1 (DEV(9) is not live)");
	e = &t->events[4];
	CHECK(e->type == TRACE_EV_COPY && e->aux == TRACE_COPY_H2D && e->nacc == 2 &&
		      e->t_start == 2000 && e->bytes == 512,
	      "copy from pinned host to device is H2D with times");
	CHECK(t->accesses[e->acc0].buffer == 2 && t->accesses[e->acc0].mode == TRACE_ACCESS_READ &&
		      t->accesses[e->acc0 + 1].buffer == 0 &&
		      t->accesses[e->acc0 + 1].mode == TRACE_ACCESS_WRITE,
	      "copy reads its source and writes its destination");
	CHECK(t->events[5].aux == TRACE_COPY_D2H && t->events[5].nacc == 1,
	      "copy from device to unknown (pageable) memory is D2H");
	CHECK(t->events[6].type == TRACE_EV_MEMSET && t->events[6].nacc == 1 &&
		      t->accesses[t->events[6].acc0].mode == TRACE_ACCESS_WRITE,
	      "memset writes the buffer its address falls in");
	CHECK(t->events[7].type == TRACE_EV_SYNC && t->events[8].type == TRACE_EV_MARK &&
		      strcmp(t->events[8].name, "phase") == 0,
	      "sync and mark events");
	CHECK(t->events[9].type == TRACE_EV_FREE && t->events[9].buffer == 0,
	      "free of buffer 0");
	CHECK(t->buffers[1].free_ev == TRACE_NONE, "unfreed buffers stay live at the end");
	CHECK(st.unknown_frees == 1 && st.late_times == 1 && st.timed == 2,
	      "stats count the unknown free, the orphan time and the timed events");
	trace_free(t);
}

static void test_iteration(void)
{
	struct recorder *r;
	char err[512];
	struct recorder_opts o = { .hold_ns = 0 };
	const char *path = tpath("iter.trace");
	CHECK(recorder_open(&r, path, &o, err, sizeof(err)) == 0, "open (not recording)");
	uint32_t it = recorder_intern(r, "iteration");
	alloc(r, DEV(3), 300, TRACE_KIND_DEVICE, 0); /* weights: persistent */
	alloc(r, DEV(1), 100, TRACE_KIND_DEVICE, 0);
	alloc(r, DEV(2), 200, TRACE_KIND_MANAGED, 0);
	recorder_free(r, DEV(2), -1, 0);             /* gone before the iteration */
	uint64_t w[] = { DEV(1) };
	recorder_kernel(r, it, 0, 0, w, 1, 0);       /* before: ignored */
	CHECK(recorder_state(r) == 0, "idle before begin");
	CHECK(recorder_begin(r, it) == 1 && recorder_begin(r, it) == 0,
	      "begin starts recording once");
	alloc(r, DEV(4), 400, TRACE_KIND_DEVICE, 0); /* transient */
	uint64_t w2[] = { DEV(3) + 5, DEV(4) };
	recorder_kernel(r, recorder_intern(r, "k"), 0, 0, w2, 2, 0);
	recorder_free(r, DEV(4), -1, 0);
	recorder_free(r, DEV(1), -1, 0);             /* persistent freed inside */
	CHECK(recorder_end(r, it) == 1 && recorder_state(r) == 2, "end stops recording");
	alloc(r, DEV(5), 500, TRACE_KIND_DEVICE, 0);    /* after: ignored */
	CHECK(recorder_close(r, 1, NULL, err, sizeof(err)) == 0, "close");
	struct trace *t = load(path);
	CHECK(t != NULL, "the iteration trace loads");
	if (!t)
		return;
	CHECK_EQ_U64(t->nbuffers, 3, "two live at begin and one born inside");
	CHECK(t->buffers[0].addr == DEV(1) && t->buffers[1].addr == DEV(3) &&
		      t->buffers[0].alloc_ev == TRACE_NONE &&
		      t->buffers[1].alloc_ev == TRACE_NONE &&
		      trace_buffer_persistent(&t->buffers[1]),
	      "live-at-begin buffers are persistent, in address order");
	CHECK(t->buffers[2].addr == DEV(4) && !trace_buffer_persistent(&t->buffers[2]),
	      "the buffer born and freed inside is transient");
	CHECK(t->nevents == 6 && t->events[0].type == TRACE_EV_MARK &&
		      t->events[0].aux == TRACE_MARK_BEGIN &&
		      t->events[5].aux == TRACE_MARK_END &&
		      strcmp(t->events[5].name, "iteration") == 0,
	      "events run from the begin mark to the end mark");
	CHECK(t->events[2].nacc == 2, "the kernel touches the persistent and the new buffer");
	CHECK_EQ_U64(trace_peak(t, TRACE_TRANSIENT, NULL), 400, "transient peak");
	trace_free(t);
}

/* --- many threads ------------------------------------------------------ */

#define THREADS 4
#define ROUNDS (312 * 64) /* whole free cycles */

struct worker {
	struct recorder *r;
	int id;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	uint32_t name = recorder_intern(w->r, w->id % 2 ? "odd" : "even");
	for (int i = 0; i < ROUNDS; i++) {
		uint64_t base = 0x100000000000ull * (uint64_t)(w->id + 1) +
				(uint64_t)(i % 64) * 0x10000;
		alloc(w->r, base, 4096, TRACE_KIND_DEVICE, (uint32_t)(w->id * ROUNDS + i + 1));
		uint64_t words[3] = { base + 8, base - 0x10000, 77 };
		recorder_kernel(w->r, name, w->id, 0, words, 3, 0);
		if (i % 64 == 63)
			for (int j = 0; j < 64; j++)
				recorder_free(w->r, 0x100000000000ull * (uint64_t)(w->id + 1) +
						  (uint64_t)j * 0x10000, -1, 0);
	}
	return NULL;
}

static void test_threads(void)
{
	struct recorder *r;
	char err[512];
	struct recorder_opts o = { .record_from_start = 1, .queue_records = 4096,
				   .hold_ns = 0 };
	const char *path = tpath("threads.trace");
	CHECK(recorder_open(&r, path, &o, err, sizeof(err)) == 0, "open a small-queue recorder");
	pthread_t th[THREADS];
	struct worker w[THREADS];
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ r, i };
		pthread_create(&th[i], NULL, work, &w[i]);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	struct recorder_stats st;
	CHECK(recorder_close(r, 1, &st, err, sizeof(err)) == 0, "close after the threads");
	struct trace *t = load(path);
	CHECK(t != NULL, "the multi-threaded trace loads (every free after its alloc, accesses live)");
	if (!t)
		return;
	CHECK_EQ_U64(t->nbuffers, THREADS * ROUNDS, "one buffer per alloc");
	CHECK_EQ_U64(t->nevents, THREADS * ROUNDS * 3, "alloc, kernel and free per round");
	uint64_t acc = 0;
	int wrong = 0;
	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].type == TRACE_EV_KERNEL) {
			acc += t->events[i].nacc;
			wrong += strcmp(t->events[i].name,
					t->events[i].stream % 2 ? "odd" : "even") != 0;
		}
	/* each kernel: its own new buffer, plus the previous slot's buffer
	 * when that is still live (not for i % 64 == 0) */
	CHECK_EQ_U64(acc, (uint64_t)THREADS * (2 * ROUNDS - ROUNDS / 64),
		     "accesses resolved per thread");
	CHECK(wrong == 0, "kernel names match their threads");
	printf("# %llu records, %llu waits on a full queue\n",
	       (unsigned long long)st.records, (unsigned long long)st.full_waits);
	trace_free(t);
}

/* --- kill mid-run ------------------------------------------------------ */

static void test_kill(void)
{
	const char *path = tpath("killed.trace");
	pid_t pid = fork();
	if (pid == 0) {
		struct recorder *r;
		char err[512];
		struct recorder_opts o = { .record_from_start = 1, .hold_ns = 0 };
		if (recorder_open(&r, path, &o, err, sizeof(err)))
			_exit(2);
		uint32_t k = recorder_intern(r, "k");
		for (uint64_t i = 0;; i++) {
			alloc(r, DEV(1 + i % 1000), 256, TRACE_KIND_DEVICE, 0);
			uint64_t word = DEV(1 + i % 1000);
			recorder_kernel(r, k, 0, 0, &word, 1, 0);
			if (i % 1000 == 999)
				for (int j = 1; j <= 1000; j++)
					recorder_free(r, DEV(j), -1, 0);
		}
	}
	/* wait until a few batches are committed (file and WAL grow; SQLite
	 * checkpoints the WAL into the file as it goes), then kill */
	char wal[160];
	snprintf(wal, sizeof(wal), "%s-wal", path);
	struct stat sb;
	for (int i = 0; i < 600; i++) {
		off_t n = 0;
		if (stat(path, &sb) == 0)
			n += sb.st_size;
		if (stat(wal, &sb) == 0)
			n += sb.st_size;
		if (n > 16 * 1024 * 1024)
			break;
		usleep(20000);
	}
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the recording child was killed");
	char err[512];
	int rc = recorder_seal(path, err, sizeof(err));
	CHECK(rc == 0, "the killed trace is sealed into one file");
	if (rc)
		printf("# %s\n", err);
	CHECK(stat(wal, &sb) != 0, "no WAL file is left beside it");
	struct trace *t = load(path);
	CHECK(t != NULL, "what was committed before the kill loads with the trace store");
	if (!t)
		return;
	const char *c = trace_get_meta(t, "complete");
	CHECK(c && strcmp(c, "0") == 0, "and is marked incomplete");
	CHECK(t->nevents >= 200000, "it holds at least one committed batch of events");
	printf("# %zu events, %zu buffers survived the kill\n", t->nevents, t->nbuffers);
	trace_free(t);
}

/* Rows in table events of the trace at path as another process sees it
 * now (committed rows only), or -1. */
static long committed_events(const char *path)
{
	sqlite3 *db;
	long n = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
		sqlite3_stmt *st;
		sqlite3_busy_timeout(db, 1000);
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM events", -1, &st,
				       NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW)
				n = (long)sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
		}
	}
	sqlite3_close(db);
	return n;
}

/*
 * A small program that records a little and then idles must not depend on
 * the writer's batch size: its rows are committed within a fraction of a
 * second, and a kill after that keeps them.
 */
static void test_kill_small(void)
{
	const char *path = tpath("killed-small.trace");
	pid_t pid = fork();
	if (pid == 0) {
		struct recorder *r;
		char err[512];
		struct recorder_opts o = { .record_from_start = 1, .hold_ns = 0 };
		if (recorder_open(&r, path, &o, err, sizeof(err)))
			_exit(2);
		for (int i = 0; i < 50; i++)
			alloc(r, DEV(1 + i), 4096, TRACE_KIND_DEVICE, 0);
		for (int i = 0; i < 50; i++)
			recorder_free(r, DEV(1 + i), -1, 0);
		for (;;)
			pause();
	}
	long n = -1;
	for (int i = 0; i < 200 && n < 100; i++) { /* up to 20 s, not a timing test */
		usleep(100000);
		n = committed_events(path);
	}
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	CHECK(n >= 100, "an idle recorder commits its last rows without waiting for a full batch");
	char err[512];
	int rc = recorder_seal(path, err, sizeof(err));
	CHECK(rc == 0, "the killed small trace is sealed");
	if (rc)
		printf("# %s\n", err);
	struct trace *t = load(path);
	CHECK(t && t->nbuffers == 50 && t->nevents >= 100,
	      "all 50 buffers and their 100 events survive the kill");
	if (t)
		trace_free(t);
}

/*
 * GPU times that come after their event was written (a long iteration: the
 * GPU far behind the host, the flush at the end) are not lost: they reach
 * the event's row when the recorder closes, through either id.
 */
static void test_late_times(void)
{
	struct recorder *r;
	char err[512];
	struct recorder_opts o = { .record_from_start = 1, .hold_ns = 1000000 };
	CHECK(recorder_open(&r, tpath("late.trace"), &o, err, sizeof(err)) == 0,
	      "open (late times)");
	alloc(r, DEV(1), 4096, TRACE_KIND_DEVICE, 0);
	uint64_t w = DEV(1) + 8;
	recorder_kernel(r, recorder_intern(r, "slow"), 0, 300, &w, 1, 0);
	recorder_memset(r, recorder_intern(r, "cudaMemsetAsync"), DEV(1), 64, 0, 310);
	recorder_alias(r, 310, 311);
	recorder_kernel(r, recorder_intern(r, "never"), 0, 320, &w, 1, 0);
	/* well past the hold: the writer has written all three untimed */
	struct timespec ts = { 0, 100000000 };
	nanosleep(&ts, NULL);
	recorder_gpu_time(r, 300, 5000000000ll, 5000100000ll);
	recorder_gpu_time(r, 311, 5000200000ll, 5000300000ll);
	recorder_gpu_time(r, 999, 1, 2);
	struct recorder_stats st;
	CHECK(recorder_close(r, 1, &st, err, sizeof(err)) == 0, "close (late times)");
	struct trace *t = load(tpath("late.trace"));
	CHECK(t && t->nevents == 4, "late times: the trace loads");
	if (!t)
		return;
	CHECK(t->events[1].t_start == 5000000000ll && t->events[1].t_end == 5000100000ll,
	      "a kernel's times that came after it was written reach its row");
	CHECK(t->events[2].t_start == 5000200000ll,
	      "a memset's times under its alias (the driver call's id) too");
	CHECK(t->events[3].t_start == TRACE_TIME_NONE,
	      "an event whose times never came has none");
	CHECK(st.late_patched == 2 && st.late_times == 1,
	      "stats: two patched, one time that matched nothing");
	trace_free(t);
}

static void test_errors(void)
{
	struct recorder *r;
	char err[512];
	CHECK(recorder_open(&r, "/nonexistent-dir/x.trace", NULL, err, sizeof(err)) < 0 &&
		      strstr(err, "/nonexistent-dir/x.trace"),
	      "an unwritable path is refused, naming it");
	struct recorder_opts o = { .queue_records = 5000 };
	CHECK(recorder_open(&r, tpath("q.trace"), &o, err, sizeof(err)) == TRACE_EINVAL &&
		      strstr(err, "power of two"),
	      "a queue length that is not a power of two is refused");
	/* a recorder closed without commit leaves an incomplete trace */
	CHECK(recorder_open(&r, tpath("abandon.trace"), NULL, err, sizeof(err)) == 0, "open");
	recorder_close(r, 0, NULL, err, sizeof(err));
	struct trace *t = load(tpath("abandon.trace"));
	CHECK(t && strcmp(trace_get_meta(t, "complete"), "0") == 0,
	      "closing without commit leaves it marked incomplete");
	trace_free(t);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/memplan-rec.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	test_script();
	test_iteration();
	test_threads();
	test_kill();
	test_kill_small();
	test_late_times();
	test_errors();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
