/* SPDX-License-Identifier: MIT */
/*
 * bench_capture.c - figures for the capture recorder: how fast callers can
 * hand it events (queue ingest, the cost a CUDA callback pays), and the
 * sustained rate once the writer thread puts them into SQLite.
 * Figures, not assertions.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recorder.h"
#include "trace.h"

#ifdef MEMPLAN_HAVE_CUPTI
#include <cupti.h>

#include "capture_backend.h"
#include "select.h"
#include "translate.h"
#endif

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct job {
	struct recorder *r;
	int id;
	long rounds;
	double seconds; /* producer time */
	uint32_t name;
};

/* One round: alloc, a kernel touching it and a neighbour, free of an older
 * allocation: three events, two accesses, five queue records. */
static void *produce(void *arg)
{
	struct job *j = arg;
	uint64_t base = 0x100000000000ull * (uint64_t)(j->id + 1);
	double t0 = now();
	for (long i = 0; i < j->rounds; i++) {
		uint64_t a = base + (uint64_t)(i % 256) * 0x10000;
		struct recorder_alloc al = { .addr = a, .size = 4096,
					     .stream = j->id, .kind = 0 };
		recorder_alloc(j->r, &al);
		uint64_t words[4] = { a + 64, a - 0x10000, 17, 0x7fff00000000ull };
		recorder_kernel(j->r, j->name, j->id, 0, words, 4, 0);
		recorder_free(j->r, base + (uint64_t)((i + 128) % 256) * 0x10000, -1, 0);
	}
	j->seconds = now() - t0;
	return NULL;
}

static void run(int threads, long rounds, size_t queue, const char *what)
{
	char path[64], err[512];
	snprintf(path, sizeof(path), "/tmp/memplan-bench-cap-%ld.trace", (long)getpid());
	struct recorder *r;
	struct recorder_opts o = { .record_from_start = 1, .queue_records = queue,
				   .hold_ns = 0 };
	if (recorder_open(&r, path, &o, err, sizeof(err))) {
		printf("%-28s failed: %s\n", what, err);
		return;
	}
	pthread_t th[16];
	struct job j[16];
	uint32_t name = recorder_intern(r, "void at::native::vectorized_elementwise_kernel<4>(int, float*)");
	double t0 = now();
	for (int i = 0; i < threads; i++) {
		j[i] = (struct job){ r, i, rounds, 0, name };
		pthread_create(&th[i], NULL, produce, &j[i]);
	}
	double producer = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		producer += j[i].seconds;
	}
	double t1 = now();
	struct recorder_stats st;
	int rc = recorder_close(r, 1, &st, err, sizeof(err));
	double t2 = now();
	unlink(path);
	if (rc) {
		printf("%-28s failed: %s\n", what, err);
		return;
	}
	double calls = 3.0 * (double)rounds * threads;
	printf("%-28s %7d %10.0f %12.0f %10.1f %12.0f %8llu\n", what, threads,
	       st.events / 1.0, st.events / (t1 - t0), producer / calls * 1e9,
	       st.events / (t2 - t0), (unsigned long long)st.full_waits);
}

#ifdef MEMPLAN_HAVE_CUPTI
/*
 * What a CUDA call pays inside the capture: one callback pair (entry and
 * exit) through translate.c with the host backend, for a cudaLaunchKernel
 * with a pointer and a by-value struct of two pointers, a cudaMalloc and a
 * cudaFree.  Without the CUDA runtime's own cost, which CUPTI adds to.
 */
static const char stub;

static void callback_cost(void)
{
	char path[64], err[512];
	snprintf(path, sizeof(path), "/tmp/memplan-bench-cb-%ld.trace", (long)getpid());
	struct recorder *r;
	struct recorder_opts o = { .record_from_start = 1, .queue_records = 1u << 22,
				   .hold_ns = 0 };
	if (recorder_open(&r, path, &o, err, sizeof(err))) {
		printf("callbacks failed: %s\n", err);
		return;
	}
	struct select sel;
	select_parse(&sel, NULL, NULL, err, sizeof(err));
	struct translate *t = translate_new(r, &sel, &backend_host);
	struct argscan_param lay[3] = { { 0, 8 }, { 8, 24 }, { 32, 4 } };
	backend_host_set_params(BACKEND_RUNTIME_STUB, &stub, lay, 3);
	int ok = 0;
	const long n = 200000;
	double launch = 0, alloc = 0;
	for (long i = 0; i < n; i++) {
		void *p = (void *)(uintptr_t)(0x7f0000000000ull + (uint64_t)(i % 512) * 0x100000);
		cudaMalloc_v3020_params mp = { &p, 4096 };
		cudaFree_v3020_params fp = { (void *)(uintptr_t)(0x7f0000000000ull +
					     (uint64_t)((i + 256) % 512) * 0x100000) };
		void *a0 = (char *)p + 64;
		struct { int n; void *x, *y; } bv = { 1, p, (char *)p + 8 };
		int count = 7;
		void *args[3] = { &a0, &bv, &count };
		cudaLaunchKernel_v7000_params lp;
		memset(&lp, 0, sizeof(lp));
		lp.func = &stub;
		lp.args = args;
		CUpti_CallbackData d;
		memset(&d, 0, sizeof(d));
		d.functionReturnValue = &ok;
		d.symbolName = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, float*)";
		double t0 = now();
		d.functionParams = &mp;
		d.callbackSite = CUPTI_API_ENTER;
		translate_api(t, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &d);
		d.callbackSite = CUPTI_API_EXIT;
		translate_api(t, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &d);
		d.functionParams = &fp;
		d.callbackSite = CUPTI_API_ENTER;
		translate_api(t, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, &d);
		d.callbackSite = CUPTI_API_EXIT;
		translate_api(t, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, &d);
		double t1 = now();
		d.functionParams = &lp;
		d.callbackSite = CUPTI_API_ENTER;
		translate_api(t, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &d);
		d.callbackSite = CUPTI_API_EXIT;
		translate_api(t, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &d);
		double t2 = now();
		alloc += t1 - t0;
		launch += t2 - t1;
	}
	translate_free(t);
	recorder_close(r, 1, NULL, err, sizeof(err));
	backend_host_reset();
	unlink(path);
	printf("%-28s %10.0f ns per cudaLaunchKernel (entry + exit, 3 arguments)\n",
	       "callback cost", launch / n * 1e9);
	printf("%-28s %10.0f ns per cudaMalloc + cudaFree pair\n", "", alloc / n * 1e9);
}
#endif

int main(void)
{
	printf("%-28s %7s %10s %12s %10s %12s %8s\n", "recorder", "threads",
	       "events", "ingest/s", "ns/call", "to-sqlite/s", "waits");
	/* a queue that holds the whole burst: callers never wait on SQLite */
	run(1, 300000, 1u << 21, "burst, 1 thread");
	run(2, 150000, 1u << 21, "burst, 2 threads");
	/* a small queue: callers are paced by the writer */
	run(1, 1000000, 1u << 16, "sustained, 1 thread");
	run(4, 250000, 1u << 16, "sustained, 4 threads");
#ifdef MEMPLAN_HAVE_CUPTI
	callback_cost();
#endif
	printf("(ingest/s: events handed over per second of wall time while callers ran; "
	       "ns/call: caller CPU per recorder call; to-sqlite/s: until the trace is closed)\n");
	return 0;
}
