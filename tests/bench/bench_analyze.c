/* SPDX-License-Identifier: MIT */
/*
 * bench_analyze.c - memplan-analyze's figures and speed.  First one row per
 * archived zoo trace (the .trace files in $BUILD/traces): peak, lower bound, what the
 * cudaMalloc and PyTorch caching-allocator models reserve, fragmentation and
 * swappable room.  Then the summary of a generated capture-like trace of
 * EVENTS events (default 10^7: allocs, frees, kernels touching two buffers
 * each), streamed (as the command does) and loaded whole, each in a fresh
 * process (this program run again) so that its peak memory is its own.
 * Usage: bench_analyze [EVENTS]; other arguments are ignored.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../analyze/report.h"
#include "../../analyze/scan.h"
#include "tracedb.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double gib(uint64_t n) { return (double)n / (1024.0 * 1024 * 1024); }

/* Streams path (or loads it whole) and builds its report: 0 or -1. */
static int summarize(const char *path, int whole, struct report *r,
		     struct trace **t)
{
	char err[512];
	struct report_digest d;
	int rc = whole ? SCAN_LOAD_WHOLE : scan_trace(path, t, &d, NULL, err, sizeof(err));
	int scanned = rc == 0;
	if (rc == SCAN_LOAD_WHOLE)
		rc = trace_load(path, t, err, sizeof(err));
	if (rc == 0)
		rc = report_build(*t, scanned ? &d : NULL, REPORT_ALL_ALLOCATORS, r, err,
				  sizeof(err));
	if (scanned)
		scan_digest_free(&d);
	if (rc) {
		fprintf(stderr, "bench_analyze: %s: %s\n", path, err);
		return -1;
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void archive(void)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/traces", build);
	DIR *dp = opendir(dir);
	if (!dp) {
		printf("analyze.archive              (no traces in %s)\n", dir);
		return;
	}
	char *names[64];
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(dp)) && n < 64) {
		size_t len = strlen(de->d_name);
		if (len > 6 && strcmp(de->d_name + len - 6, ".trace") == 0)
			names[n++] = strdup(de->d_name);
	}
	closedir(dp);
	qsort(names, n, sizeof(*names), name_cmp);
	printf("%-24s %9s %9s %11s %11s %7s %12s\n", "trace (GiB)", "peak", "lower bd",
	       "cudaMalloc", "PyTorch", "frag", "swappable");
	for (size_t i = 0; i < n; i++) {
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		struct report r;
		struct trace *t;
		if (summarize(path, 0, &r, &t) == 0) {
			const struct allocsim_result *c = &r.alloc[ALLOCSIM_CUDAMALLOC],
						     *p = &r.alloc[ALLOCSIM_PYTORCH];
			printf("%-24.*s %9.2f %9.2f %11.2f %11.2f %7.3f %7.2f %3.0f%%\n",
			       (int)(strlen(names[i]) - 6), names[i], gib(r.peak),
			       gib(r.lower_bound), gib(c->reserved_peak), gib(p->reserved_peak),
			       report_reserved_over_peak(p), gib(r.idle_bytes),
			       r.peak ? 100.0 * (double)r.idle_bytes / (double)r.peak : 0.0);
			report_free(&r);
			trace_free(t);
		}
		free(names[i]);
	}
	printf("(frag: PyTorch reserved peak / live peak; swappable: bytes idle across the peak)\n");
}

/* A capture-like stream: a buffer every 10 events, 8 kernels reading the
 * newest and one older buffer, frees keeping about 200 live. */
static int generate(const char *path, long n, long *nbuf, long *nacc)
{
	char err[512];
	struct trace_writer *w;
	if (trace_writer_open(&w, path, TRACE_WRITE_ATOMIC, err, sizeof(err))) {
		fprintf(stderr, "bench_analyze: %s\n", err);
		return -1;
	}
	long live0 = 0;
	int rc = 0;
	*nbuf = *nacc = 0;
	struct trace_buffer b = { .stream = 0, .fixed_offset = TRACE_NONE, .align = 1,
				  .role = TRACE_ROLE_ACTIVATION };
	struct trace_event e = { .stream = 0 };
	for (long seq = 0; rc == 0 && seq < n; seq++) {
		e.seq = seq;
		e.t_start = seq * 1000;
		e.t_end = e.t_start + 800;
		e.name = NULL;
		e.buffer = TRACE_NONE;
		long phase = seq % 10;
		if (phase == 0) {
			b.id = (*nbuf)++;
			b.size = 4096 + (uint64_t)(seq % 1000) * 4096;
			rc = trace_writer_buffer(w, &b);
			e.type = TRACE_EV_ALLOC;
			e.buffer = b.id;
		} else if (phase == 9 && *nbuf - live0 > 200) {
			e.type = TRACE_EV_FREE;
			e.buffer = live0++;
		} else {
			e.type = TRACE_EV_KERNEL;
			e.name = "gemm";
		}
		if (rc == 0)
			rc = trace_writer_event(w, &e);
		if (rc == 0 && e.type == TRACE_EV_KERNEL && *nbuf > live0 + 1) {
			rc = trace_writer_access(w, seq, *nbuf - 1, TRACE_ACCESS_WRITE);
			if (rc == 0)
				rc = trace_writer_access(w, seq, live0 + seq % (*nbuf - live0),
							 TRACE_ACCESS_READ);
			*nacc += 2;
		}
	}
	if (rc) {
		fprintf(stderr, "bench_analyze: %s\n", trace_writer_error(w));
		trace_writer_close(w, 0, NULL, 0);
		return -1;
	}
	return trace_writer_close(w, 1, err, sizeof(err)) ? -1 : 0;
}

/* The child: one summary, then "seconds maxrss_kib peak" on stdout. */
static int child(const char *path, int whole)
{
	double t0 = now();
	struct report r;
	struct trace *t;
	if (summarize(path, whole, &r, &t))
		return 1;
	double s = now() - t0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%.6f %ld %llu\n", s, (long)ru.ru_maxrss, (unsigned long long)r.peak);
	return 0;
}

/* Runs one summary in a fresh process; *secs and *mib from it.  0 or -1. */
static int measure(const char *self, const char *path, int whole, double *secs,
		   double *mib, uint64_t *peak)
{
	int fds[2];
	if (pipe(fds))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], STDOUT_FILENO);
		execl(self, self, "--child", path, whole ? "whole" : "streamed", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char buf[128] = "";
	ssize_t got = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	int status;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    got <= 0)
		return -1;
	buf[got] = '\0';
	long kib;
	unsigned long long p;
	if (sscanf(buf, "%lf %ld %llu", secs, &kib, &p) != 3)
		return -1;
	*mib = (double)kib / 1024.0;
	*peak = p;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--child") == 0)
		return child(argv[2], strcmp(argv[3], "whole") == 0);
	long n = 10000000;
	for (int i = 1; i < argc; i++)
		if (atol(argv[i]) > 0)
			n = atol(argv[i]);
	archive();

	char path[64];
	snprintf(path, sizeof(path), "/tmp/memplan-bench-analyze-%ld.trace", (long)getpid());
	long nbuf, nacc;
	double t0 = now();
	if (generate(path, n, &nbuf, &nacc)) {
		unlink(path);
		return 1;
	}
	double tg = now() - t0;
	printf("\nanalyze.trace                %12ld events, %ld buffers, %ld accesses (written in %.1f s)\n",
	       n, nbuf, nacc, tg);
	double ss, sm, ws, wm;
	uint64_t ps, pw;
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl <= 0) {
		snprintf(self, sizeof(self), "%s", argv[0]);
	} else {
		self[sl] = '\0';
	}
	int rs = measure(self, path, 0, &ss, &sm, &ps), rw = measure(self, path, 1, &ws, &wm, &pw);
	unlink(path);
	if (rs || rw || ps != pw) {
		fprintf(stderr, "bench_analyze: the summary failed or disagreed\n");
		return 1;
	}
	printf("analyze.summary_streamed     %12.2f s  %8.0f MiB peak RSS  %10.0f events/s\n", ss,
	       sm, (double)n / ss);
	printf("analyze.summary_whole        %12.2f s  %8.0f MiB peak RSS  %10.0f events/s\n", ws,
	       wm, (double)n / ws);
	return 0;
}
