/* SPDX-License-Identifier: MIT */
/*
 * bench_tracedb.c - ingest and load rates of the trace store.  Writes a
 * capture-like stream (allocs, frees, kernels with two accesses each) through
 * the writer in both modes and loads it back; prints one row per figure:
 * "name value unit".  Usage: bench_tracedb [EVENTS] (default 1000000);
 * other arguments (such as --quick) are ignored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tracedb.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const names[] = { "sgemm_128x64_nn", "relu_fwd",
				     "batchnorm_fwd", "conv2d_implicit_gemm",
				     "elementwise_add", "softmax_fwd" };

/* Writes n events; returns seconds or -1. */
static double write_stream(const char *path, unsigned flags, long n,
			   long *naccesses)
{
	char err[512];
	struct trace_writer *w;
	double t0 = now();
	if (trace_writer_open(&w, path, flags, err, sizeof(err))) {
		fprintf(stderr, "bench_tracedb: %s\n", err);
		return -1;
	}
	/* a ring of 64 live buffers: alloc, two kernels, free */
	long nbuf = 0, live0 = 0, acc = 0;
	struct trace_buffer b = { .size = 4096, .stream = 0,
				  .fixed_offset = TRACE_NONE, .align = 1 };
	struct trace_event e = { .stream = 0 };
	int rc = 0;
	for (long seq = 0; rc == 0 && seq < n; seq++) {
		e.seq = seq;
		e.t_start = seq * 1000;
		e.t_end = e.t_start + 800;
		e.name = NULL;
		e.buffer = TRACE_NONE;
		long phase = seq % 4;
		if (phase == 0) {
			b.id = nbuf++;
			b.size = 4096 + (uint64_t)(seq % 1000) * 256;
			rc = trace_writer_buffer(w, &b);
			e.type = TRACE_EV_ALLOC;
			e.buffer = b.id;
		} else if (phase == 3 && nbuf - live0 > 64) {
			e.type = TRACE_EV_FREE;
			e.buffer = live0++;
		} else {
			e.type = TRACE_EV_KERNEL;
			e.name = names[seq % 6];
		}
		if (rc == 0)
			rc = trace_writer_event(w, &e);
		if (rc == 0 && e.type == TRACE_EV_KERNEL && nbuf > live0 + 1) {
			rc = trace_writer_access(w, seq, nbuf - 1, TRACE_ACCESS_WRITE);
			if (rc == 0)
				rc = trace_writer_access(w, seq, live0, TRACE_ACCESS_READ);
			acc += 2;
		}
	}
	if (rc) {
		fprintf(stderr, "bench_tracedb: %s\n", trace_writer_error(w));
		trace_writer_close(w, 0, NULL, 0);
		return -1;
	}
	if (trace_writer_close(w, 1, err, sizeof(err))) {
		fprintf(stderr, "bench_tracedb: %s\n", err);
		return -1;
	}
	*naccesses = acc;
	return now() - t0;
}

int main(int argc, char **argv)
{
	long n = 1000000;
	for (int i = 1; i < argc; i++)
		if (atol(argv[i]) > 0)
			n = atol(argv[i]);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/memplan-bench-%ld.trace", (long)getpid());
	/* best of three: the machine is shared, and the best run is the one
	 * least disturbed by other work */
	long acc = 0;
	double ta = 1e30, ts = 1e30;
	for (int r = 0; r < 3; r++) {
		double a = write_stream(path, TRACE_WRITE_ATOMIC, n, &acc);
		double b = a < 0 ? -1 : write_stream(path, TRACE_WRITE_STREAM, n, &acc);
		if (a < 0 || b < 0)
			return 1;
		ta = a < ta ? a : ta;
		ts = b < ts ? b : ts;
	}
	struct trace *t;
	char err[512];
	double t0 = now();
	if (trace_load(path, &t, err, sizeof(err))) {
		fprintf(stderr, "bench_tracedb: %s\n", err);
		return 1;
	}
	double tl = now() - t0;
	t0 = now();
	uint64_t lb = trace_peak(t, TRACE_TRANSIENT, NULL);
	double tp = now() - t0;
	printf("store.events                 %12ld events (+%ld accesses)\n", n, acc);
	printf("store.write_atomic           %12.0f events/s (%.0f rows/s, best of 3)\n",
	       (double)n / ta, (double)(n + acc) / ta);
	printf("store.write_stream_wal       %12.0f events/s (%.0f rows/s, best of 3)\n",
	       (double)n / ts, (double)(n + acc) / ts);
	printf("store.load_validate          %12.0f events/s\n", (double)n / tl);
	printf("store.lower_bound            %12.0f buffers/s (lb %llu)\n",
	       (double)t->nbuffers / tp, (unsigned long long)lb);
	trace_free(t);
	unlink(path);
	return 0;
}
