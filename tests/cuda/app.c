/* SPDX-License-Identifier: MIT */
/*
 * app.c - an unmodified "CUDA program" for the runtime tests: it performs a
 * trace's iteration N times through cudaMalloc/cudaFree (or, with --async,
 * cudaMallocAsync/cudaFreeAsync, buffer b on stream b % --streams), and its "kernels" are host
 * functions on streams that write a pattern unique to each buffer at its
 * alloc and check it at every use and before the free.  It never
 * synchronises between iterations.  --fresh-streams makes --async take new
 * non-blocking streams every iteration (destroyed at the end), as a program
 * with a stream per step does.  --driver allocates with cuMemAlloc_v2,
 * --torch LIB through LIB's mp_torch_alloc/mp_torch_free, loaded the way
 * PyTorch's CUDAPluggableAllocator loads them.  --check-errors takes the
 * last error (cudaGetLastError) after every CUDA call and fails on any, as
 * PyTorch does after every launch: an error left behind by libmemplan's own
 * calls fails it.  --keep-error fails a cudaSetDevice at the start and
 * wants that error still pending at the end: libmemplan must not take or
 * replace an error of the program's.  --capture ITERATION makes that
 * iteration a CUDA graph (with --async or --torch): its requests and work
 * are captured on a stream of their own (cudaStreamBeginCapture in the
 * --capture-mode given, global by default), and the graph is then launched
 * twice; an invalidated capture fails the run, as it fails PyTorch.
 * --capture-other MODE has another thread capture on a stream of its own
 * (cudaStreamBeginCapture in MODE) from the middle of iteration 1 (of 0 with
 * one iteration) to the end of the last one, as a process capturing a
 * graph beside its training does: the program's requests meanwhile are on
 * streams that do not capture, and that capture must give a graph.
 * --capture-between graph|invalid|unjoined has another thread begin and
 * end a capture between iterations 0 and 1 that gives a graph, is
 * invalidated (a sync of its capturing stream) or leaves a stream unjoined,
 * and wants cudaStreamEndCapture to answer so: any way it ends, it is over
 * for the iterations after it.
 * --double-free PCT[,LATER] frees a buffer a second time in every
 * iteration: the one whose free comes after PCT percent of the
 * iteration's frees, at once after its first free or LATER frees later
 * (the stand-in alone answers with an error and counts a bad free, which
 * this fault expects); the error is the program's own and taken with
 * cudaGetLastError, and every other check must pass.  PCT,reuse frees it
 * again right after the allocation that is given its address next in the
 * iteration (if one is): a stale pointer that now names a live buffer, which
 * the allocator must refuse to release where it can tell (libmemplan can
 * when that buffer lies over a swapped-out one).
 * Streams: each new stream of --fresh-streams waits for the ones it
 * replaces, and a captured iteration's graph for every stream, as a
 * program orders a step after the last one it left running.
 * --free-device D makes device D current around every cudaFree from
 * iteration 1 on (device 0 the rest of the time), as a program that frees
 * another device's memory.
 * --side-stream (with --torch and --async) reads every buffer a kernel
 * reads on a slow side stream as well, after an event of its own stream,
 * and tells the allocator with mp_torch_record_stream as
 * Tensor.record_stream does; the free stays on the buffer's own stream, so
 * the bytes must not be reused before the side stream is done with them
 * (the program orders its own later writes of the buffer after them).
 * Run it on the stand-in libcudart alone,
 * or with LD_PRELOAD=libmemplan.so MEMPLAN_PLAN=...: every check must pass
 * either way, and the stand-in must never see a free of memory it did not
 * hand out.  Several TRACEs take turns: each iteration performs them in
 * the order given, one after the other (their concatenation, cycle.h), as
 * a process running the workloads of a plan compiled with --cycle does.
 * For memplan-capture on the stand-ins (cudart.c, cupti.c): --launch also
 * launches a kernel (cudaLaunchKernel of a stub no runtime registered, as
 * cuBLAS's are to the program's cudart) with the buffer as its parameter
 * wherever a host function runs; --mark marks each iteration with
 * marker.h's memplan_mark_iteration_begin/end; --pinned allocates a pinned
 * host buffer (cudaMallocHost) inside each iteration, after its first
 * allocation, and frees it at its end.
 * Exit: 0 all checks passed, 1 a check failed, 2 usage, 3 input.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "cudart.h"
#include "../../capture/marker.h"
#include "cycle.h"
#include "replay.h"
#include "tracedb.h"

#define MAX_STREAMS 8

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long checks, failures;
static char first_failure[512];

struct job {
	int check;
	int keep; /* a node of a graph: run at every launch, freed at the end */
	unsigned sleep_us; /* a slow kernel first */
	unsigned char *p;
	size_t n;
	uint32_t buf, it;
	size_t ev;
};

static void run_job(void *arg)
{
	struct job *j = arg;
	if (j->sleep_us) {
		struct timespec ts = { 0, (long)j->sleep_us * 1000 };
		while (nanosleep(&ts, &ts) != 0)
			;
	}
	if (!j->check) {
		replay_fill(j->p, j->n, 0, j->buf, j->it);
	} else {
		struct replay_bad bad;
		int wrong = replay_check(j->p, j->n, 0, j->buf, j->it, &bad);
		pthread_mutex_lock(&fail_lock);
		checks++;
		if (wrong && failures++ == 0)
			snprintf(first_failure, sizeof(first_failure),
				 "event %zu: buffer %u of iteration %u: byte %zu holds %s %lld of iteration %d",
				 j->ev, j->buf, j->it, bad.at,
				 bad.owner >= 0 ? "the pattern of buffer" : "something else,",
				 (long long)bad.owner, bad.owner_it);
		pthread_mutex_unlock(&fail_lock);
	}
	if (!j->keep)
		free(j);
}

static cudaStream_t streams[MAX_STREAMS];
static int nstreams, async_mode, driver_mode, fresh_streams, check_errors,
	keep_error;
/* --capture: the iteration captured, the mode, the stream; the jobs the
 * graph holds */
static int capture_at = -1, capture_mode, capturing, side_mode;
static int launch_mode, mark_mode, pinned_mode;
static cudaStream_t cap_stream, side_stream;
static cudaEvent_t side_event, side_done;
static unsigned char *side_pending; /* per buffer: read on the side stream */
static struct job **kept;
static size_t nkept;
/* --capture-other: the mode, the thread, its state (0 not begun, 1 under
 * way, 2 told to end), its result */
static int other_mode = -1, other_state;
/* --capture-between: 0 none, 1 a graph, 2 invalidated, 3 unjoined */
static int between;
/* --free-device: the device current at each cudaFree, -1 the same */
static int free_device = -1, free_from; /* set from iteration 1 on */
/* --double-free: the percentage (-1 none), the free of each iteration
 * made twice, the frees so far in it, the second frees made */
static int double_pct = -1;
static size_t double_at, frees_seen = SIZE_MAX; /* SIZE_MAX: not in one */
static unsigned long long double_frees;
static size_t double_later, double_len;
static int double_reuse; /* ,reuse: at the alloc given its address again */
static void *double_ptr;
static cudaStream_t double_stream;
static cudaError_t other_rc = cudaSuccess;
static pthread_t other_thread;
static pthread_mutex_t other_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t other_cond = PTHREAD_COND_INITIALIZER;

static void *other_capture(void *arg)
{
	(void)arg;
	cudaStream_t s;
	cudaGraph_t graph = NULL;
	/* host bytes: an allocation would be a request of the program's */
	static unsigned char host[64], dev[64];
	cudaError_t rc = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	if (!rc)
		rc = cudaStreamBeginCapture(s, (enum cudaStreamCaptureMode)other_mode);
	pthread_mutex_lock(&other_lock);
	other_state = 1;
	pthread_cond_broadcast(&other_cond);
	pthread_mutex_unlock(&other_lock);
	if (!rc) /* work of its own, in the graph */
		rc = cudaMemcpyAsync(dev, host, sizeof(host), cudaMemcpyHostToHost, s);
	if (!rc && between == 2 && cudaStreamSynchronize(s) == cudaSuccess)
		rc = cudaErrorInvalidValue; /* a sync the capture refuses */
	cudaStream_t fork = NULL;
	cudaEvent_t ev = NULL;
	if (!rc && between == 3) /* a stream forked from it, never joined */
		rc = cudaStreamCreateWithFlags(&fork, cudaStreamNonBlocking) ||
		     cudaEventCreate(&ev) || cudaEventRecord(ev, s) ||
		     cudaStreamWaitEvent(fork, ev, 0) ||
		     cudaMemcpyAsync(dev, host, 1, cudaMemcpyHostToHost, fork);
	pthread_mutex_lock(&other_lock);
	while (other_state != 2)
		pthread_cond_wait(&other_cond, &other_lock);
	pthread_mutex_unlock(&other_lock);
	cudaError_t end = cudaStreamEndCapture(s, &graph);
	cudaGetLastError(); /* the end's answer is the check */
	if (between == 2 || between == 3) {
		cudaError_t want = between == 2 ? cudaErrorStreamCaptureInvalidated :
						  cudaErrorStreamCaptureUnjoined;
		rc = end == want ? cudaSuccess : end ? end : cudaErrorInvalidValue;
	} else if (!rc) {
		rc = end ? end : graph ? cudaSuccess : cudaErrorStreamCaptureInvalidated;
	}
	if (graph)
		cudaGraphDestroy(graph);
	other_rc = rc;
	return NULL;
}

/* Begins the other thread's capture, and waits until it is under way. */
static void other_begin(void)
{
	if (pthread_create(&other_thread, NULL, other_capture, NULL)) {
		fprintf(stderr, "app: cannot start a thread\n");
		exit(1);
	}
	pthread_mutex_lock(&other_lock);
	while (other_state != 1)
		pthread_cond_wait(&other_cond, &other_lock);
	pthread_mutex_unlock(&other_lock);
}

/* Ends it: a failure if it gave no graph. */
static void other_end(void)
{
	pthread_mutex_lock(&other_lock);
	other_state = 2;
	pthread_cond_broadcast(&other_cond);
	pthread_mutex_unlock(&other_lock);
	pthread_join(other_thread, NULL);
	printf("app: the other thread's capture: %s (%d)\n",
	       other_rc ? cudaGetErrorString(other_rc) :
	       between == 2 ? "invalidated, as wanted" :
	       between == 3 ? "unjoined, as wanted" : "a graph", other_rc);
	pthread_mutex_lock(&fail_lock);
	if (other_rc && failures++ == 0)
		snprintf(first_failure, sizeof(first_failure),
			 "the other thread's capture gave no graph: %s (%d)",
			 cudaGetErrorString(other_rc), other_rc);
	pthread_mutex_unlock(&fail_lock);
}

/* With --check-errors, after every CUDA call: no error may be pending. */
static void check_last_error(const char *after)
{
	if (!check_errors)
		return;
	cudaError_t rc = cudaGetLastError();
	if (rc != cudaSuccess) {
		fprintf(stderr, "app: an error was pending after %s: %s (%d)\n",
			after, cudaGetErrorString(rc), rc);
		exit(1);
	}
}
static cudaStream_t *old_streams; /* with --fresh-streams: all of them */
static size_t nold;

/* Makes stream `into` wait for the work enqueued so far on streams[]: a
 * program orders a step's work after the last step's streams (which it
 * left running) before it uses their buffers elsewhere. */
static void join_streams(cudaStream_t into)
{
	static cudaEvent_t ev;
	if (!ev && cudaEventCreateWithFlags(&ev, cudaEventDisableTiming)) {
		fprintf(stderr, "app: cannot create an event\n");
		exit(1);
	}
	for (int i = 0; i < nstreams && async_mode; i++) {
		if (streams[i] == into)
			continue;
		if (cudaEventRecord(ev, streams[i]) || cudaStreamWaitEvent(into, ev, 0)) {
			fprintf(stderr, "app: cannot order a stream after another\n");
			exit(1);
		}
		check_last_error("a wait for another stream");
	}
}

/* Takes the streams of --async (new ones every iteration with
 * --fresh-streams): each new one waits for the ones it replaces, whose
 * buffers it goes on with (a buffer's stream is b % --streams). */
static void make_streams(void)
{
	cudaStream_t made[MAX_STREAMS];
	for (int i = 0; i < nstreams && async_mode; i++) {
		if (cudaStreamCreateWithFlags(&made[i], cudaStreamNonBlocking)) {
			fprintf(stderr, "app: cannot create a stream\n");
			exit(1);
		}
		check_last_error("cudaStreamCreateWithFlags");
		if (streams[0]) /* the last iteration's, left running */
			join_streams(made[i]);
		if (fresh_streams) {
			cudaStream_t *o = realloc(old_streams, (nold + 1) * sizeof(*o));
			if (!o) {
				fprintf(stderr, "app: out of memory\n");
				exit(1);
			}
			old_streams = o;
			old_streams[nold++] = made[i];
		}
	}
	for (int i = 0; i < nstreams && async_mode; i++)
		streams[i] = made[i];
}
/* PyTorch's CUDAPluggableAllocator calls, when --torch names a library */
static void *(*torch_alloc)(ssize_t, int, cudaStream_t);
static void (*torch_free)(void *, ssize_t, int, cudaStream_t);
static void (*torch_record_stream)(void *, cudaStream_t);
static void **ptr;
static size_t *len;
static uint32_t *filled;

static cudaStream_t stream_of(const struct trace *t, int64_t b)
{
	(void)t;
	if (capturing)
		return cap_stream;
	return async_mode ? streams[(uint64_t)b % (uint64_t)nstreams] : NULL;
}

static struct job *new_job(int check, int64_t b, size_t ev, unsigned sleep_us)
{
	struct job *j = malloc(sizeof(*j));
	struct job **k = capturing ? realloc(kept, (nkept + 1) * sizeof(*k)) : NULL;
	if (!j || (capturing && !k)) {
		fprintf(stderr, "app: out of memory\n");
		exit(1);
	}
	*j = (struct job){ check, capturing, sleep_us, ptr[b], len[b],
			   (uint32_t)b, filled[b], ev };
	if (capturing) {
		kept = k;
		kept[nkept++] = j;
	}
	return j;
}

/* --launch: the kernel's host stub; only its address matters */
static const char app_kernel_stub = 0;

static void launch(const struct trace *t, int64_t b, int check, size_t ev)
{
	struct job *j = new_job(check, b, ev, 0);
	if (cudaLaunchHostFunc(stream_of(t, b), run_job, j)) {
		fprintf(stderr, "app: cudaLaunchHostFunc failed\n");
		exit(1);
	}
	check_last_error("cudaLaunchHostFunc");
	if (launch_mode) {
		void *arg = ptr[b];
		void *args[1] = { &arg };
		dim3 one = { 1, 1, 1 };
		if (cudaLaunchKernel(&app_kernel_stub, one, one, args, 0, stream_of(t, b))) {
			fprintf(stderr, "app: cudaLaunchKernel failed\n");
			exit(1);
		}
		check_last_error("cudaLaunchKernel");
	}
}

/* --side-stream: a slow read of b on the side stream, after what b's own
 * stream has done so far, recorded with the allocator (record_stream). */
static void side_read(const struct trace *t, int64_t b, size_t ev)
{
	if (cudaEventRecord(side_event, stream_of(t, b)) ||
	    cudaStreamWaitEvent(side_stream, side_event, 0) ||
	    cudaLaunchHostFunc(side_stream, run_job, new_job(1, b, ev, 2000))) {
		fprintf(stderr, "app: cannot read on the side stream\n");
		exit(1);
	}
	check_last_error("a read on the side stream");
	if (torch_record_stream)
		torch_record_stream(ptr[b], side_stream);
	side_pending[b] = 1;
}

/* Before b is written again on its own stream: after its side reads (the
 * program's side of the contract; the allocator's is the reuse after the
 * free). */
static void side_join(const struct trace *t, int64_t b)
{
	if (cudaEventRecord(side_done, side_stream) ||
	    cudaStreamWaitEvent(stream_of(t, b), side_done, 0)) {
		fprintf(stderr, "app: cannot order a write after the side stream\n");
		exit(1);
	}
	check_last_error("a wait for the side stream");
	side_pending[b] = 0;
}

/* --capture: the iteration's work so far is a graph, launched twice. */
static void end_capture(uint32_t it)
{
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	cudaError_t rc = cudaStreamEndCapture(cap_stream, &graph);
	capturing = 0;
	if (rc || !graph) {
		cudaGetLastError();
		pthread_mutex_lock(&fail_lock);
		if (failures++ == 0)
			snprintf(first_failure, sizeof(first_failure),
				 "the capture of iteration %u gave no graph: %s (%d)",
				 it, cudaGetErrorString(rc), rc);
		pthread_mutex_unlock(&fail_lock);
		return;
	}
	check_last_error("cudaStreamEndCapture");
	if (cudaGraphInstantiate(&exec, graph, 0) ||
	    cudaGraphLaunch(exec, cap_stream) || cudaGraphLaunch(exec, cap_stream) ||
	    cudaStreamSynchronize(cap_stream)) {
		fprintf(stderr, "app: the graph of iteration %u did not run\n", it);
		exit(1);
	}
	check_last_error("cudaGraphLaunch");
	cudaGraphExecDestroy(exec);
	cudaGraphDestroy(graph);
	printf("app: iteration %u captured into a graph, launched twice\n", it);
}

static cudaError_t alloc_any(void **p, size_t n, cudaStream_t s)
{
	if (torch_alloc) {
		*p = torch_alloc((ssize_t)n, 0, s);
		return *p ? cudaSuccess : cudaErrorMemoryAllocation;
	}
	if (driver_mode) {
		unsigned long long d = 0;
		int rc = cuMemAlloc_v2(&d, n);
		*p = (void *)(uintptr_t)d;
		return rc;
	}
	return async_mode ? cudaMallocAsync(p, n, s) : cudaMalloc(p, n);
}

static cudaError_t free_any(void *p, size_t n, cudaStream_t s)
{
	if (torch_free) {
		torch_free(p, (ssize_t)n, 0, s);
		return cudaSuccess;
	}
	if (driver_mode)
		return cuMemFree_v2((uintptr_t)p);
	if (free_device >= 0 && !async_mode && free_from) { /* another device current */
		cudaSetDevice(free_device);
		cudaError_t rc = cudaFree(p);
		int cur = -1;
		cudaGetDevice(&cur);
		pthread_mutex_lock(&fail_lock);
		if (cur != free_device && failures++ == 0)
			snprintf(first_failure, sizeof(first_failure),
				 "cudaFree left device %d current, not %d", cur,
				 free_device);
		pthread_mutex_unlock(&fail_lock);
		cudaSetDevice(0);
		return rc;
	}
	return async_mode ? cudaFreeAsync(p, s) : cudaFree(p);
}

static void do_alloc(const struct trace *t, int64_t b, size_t n, uint32_t it)
{
	cudaError_t rc = alloc_any(&ptr[b], n, stream_of(t, b));
	if (rc || !ptr[b]) {
		fprintf(stderr, "app: allocating %zu bytes for buffer %lld: %s\n", n,
			(long long)b, cudaGetErrorString(rc));
		exit(1);
	}
	check_last_error("an allocation");
	len[b] = n;
	filled[b] = it;
	launch(t, b, 0, 0);
	if (double_reuse && double_ptr && ptr[b] == double_ptr) {
		/* a stale pointer freed again: the program's own error */
		free_any(double_ptr, double_len, double_stream);
		cudaGetLastError();
		double_frees++;
		double_ptr = NULL;
	}
}

static void do_free(const struct trace *t, int64_t b, size_t ev)
{
	if (!ptr[b])
		return;
	launch(t, b, 1, ev);
	side_pending[b] = 0; /* the allocator orders the next user */
	cudaError_t rc = free_any(ptr[b], len[b], stream_of(t, b));
	if (capturing && rc) { /* an error of the capture's */
		cudaGetLastError();
		rc = 0;
	}
	if (rc)
		fprintf(stderr, "app: freeing buffer %lld: %s\n", (long long)b,
			cudaGetErrorString(rc));
	check_last_error("a free");
	if (double_pct >= 0 && frees_seen != SIZE_MAX && !capturing) {
		if (frees_seen == double_at) {
			double_ptr = ptr[b];
			double_len = len[b];
			double_stream = stream_of(t, b);
		}
		if (double_ptr && !double_reuse &&
		    frees_seen == double_at + double_later) {
			/* the program's own error, taken as it would take it */
			free_any(double_ptr, double_len, double_stream);
			cudaGetLastError();
			double_frees++;
			double_ptr = NULL;
		}
		frees_seen++;
	}
	ptr[b] = NULL;
}

static const char usage[] =
	"usage: app TRACE... [--iterations N] [--async] [--streams N] [--fresh-streams]\n"
	"           [--driver] [--check-errors | --keep-error]\n"
	"           [--torch LIBRARY [--side-stream]] [--diverge ITERATION]...\n"
	"           [--capture ITERATION [--capture-mode global|thread|relaxed]]\n"
	"           [--launch] [--mark] [--pinned]\n"
	"           [--capture-other global|thread|relaxed]\n"
	"           [--capture-between graph|invalid|unjoined] [--free-device D]\n"
	"           [--double-free PERCENT[,LATER|,reuse]]\n";

int main(int argc, char **argv)
{
	const char *path = NULL, *torch = NULL;
	char *paths[8]; /* several: workloads taking turns */
	size_t npaths = 0;
	unsigned iterations = 3;
	uint64_t diverge = 0; /* bit i: iteration i differs */
	nstreams = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--iterations") && i + 1 < argc)
			iterations = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--async"))
			async_mode = 1;
		else if (!strcmp(argv[i], "--fresh-streams"))
			fresh_streams = 1;
		else if (!strcmp(argv[i], "--driver"))
			driver_mode = 1;
		else if (!strcmp(argv[i], "--check-errors"))
			check_errors = 1;
		else if (!strcmp(argv[i], "--keep-error"))
			keep_error = 1;
		else if (!strcmp(argv[i], "--streams") && i + 1 < argc)
			nstreams = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--torch") && i + 1 < argc)
			torch = argv[++i];
		else if (!strcmp(argv[i], "--side-stream"))
			side_mode = 1;
		else if (!strcmp(argv[i], "--capture") && i + 1 < argc)
			capture_at = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--capture-mode") && i + 1 < argc) {
			const char *m = argv[++i];
			capture_mode = !strcmp(m, "global") ? cudaStreamCaptureModeGlobal :
				       !strcmp(m, "thread") ? cudaStreamCaptureModeThreadLocal :
				       !strcmp(m, "relaxed") ? cudaStreamCaptureModeRelaxed : -1;
		}
		else if (!strcmp(argv[i], "--launch"))
			launch_mode = 1;
		else if (!strcmp(argv[i], "--mark"))
			mark_mode = 1;
		else if (!strcmp(argv[i], "--pinned"))
			pinned_mode = 1;
		else if (!strcmp(argv[i], "--capture-other") && i + 1 < argc) {
			const char *m = argv[++i];
			other_mode = !strcmp(m, "global") ? cudaStreamCaptureModeGlobal :
				     !strcmp(m, "thread") ? cudaStreamCaptureModeThreadLocal :
				     !strcmp(m, "relaxed") ? cudaStreamCaptureModeRelaxed : -2;
			if (other_mode == -2)
				capture_mode = -1;
		}
		else if (!strcmp(argv[i], "--capture-between") && i + 1 < argc) {
			const char *m = argv[++i];
			between = !strcmp(m, "graph") ? 1 : !strcmp(m, "invalid") ? 2 :
				  !strcmp(m, "unjoined") ? 3 : -1;
			if (between < 0)
				capture_mode = -1;
			other_mode = cudaStreamCaptureModeRelaxed;
		}
		else if (!strcmp(argv[i], "--double-free") && i + 1 < argc)
		{
			char *end;
			double_pct = (int)strtol(argv[++i], &end, 10);
			if (!strcmp(end, ",reuse"))
				double_reuse = 1;
			else if (*end == ',')
				double_later = strtoul(end + 1, NULL, 10);
		}
		else if (!strcmp(argv[i], "--free-device") && i + 1 < argc)
			free_device = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--diverge") && i + 1 < argc)
			diverge |= (uint64_t)1 << (atoi(argv[++i]) & 63);
		else if (argv[i][0] != '-' && npaths < 8)
			path = paths[npaths++] = argv[i];
		else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!path || nstreams < 1 || nstreams > MAX_STREAMS ||
	    (check_errors && keep_error) || capture_mode < 0 ||
	    (capture_at >= 0 && !async_mode && !torch) ||
	    (side_mode && (!torch || !async_mode)) || double_pct > 100) {
		fputs(usage, stderr);
		return 2;
	}
	if (torch) {
		/* as torch.cuda.memory.CUDAPluggableAllocator loads it: ctypes,
		 * RTLD_LOCAL, two symbols looked up by name */
		void *lib = dlopen(torch, RTLD_NOW | RTLD_LOCAL);
		void *a = lib ? dlsym(lib, "mp_torch_alloc") : NULL;
		void *f = lib ? dlsym(lib, "mp_torch_free") : NULL;
		if (!a || !f) {
			fprintf(stderr, "app: %s\n", dlerror());
			return 3;
		}
		memcpy(&torch_alloc, &a, sizeof(a));
		memcpy(&torch_free, &f, sizeof(f));
		void *r = dlsym(lib, "mp_torch_record_stream");
		if (side_mode && !r)
			printf("app: %s has no mp_torch_record_stream\n", torch);
		memcpy(&torch_record_stream, &r, sizeof(r));
	}
	char err[512];
	struct trace *t;
	if (npaths > 1) {
		struct trace *in[8] = { NULL };
		struct cycle cy;
		int rc = 0;
		for (size_t i = 0; i < npaths && !rc; i++)
			rc = trace_load(paths[i], &in[i], err, sizeof(err));
		if (!rc)
			rc = cycle_trace(in, npaths, &t, &cy, err, sizeof(err));
		for (size_t i = 0; i < npaths; i++)
			trace_free(in[i]);
		if (rc) {
			fprintf(stderr, "app: %s\n", err);
			return 3;
		}
		cycle_free(&cy);
	} else if (trace_load(path, &t, err, sizeof(err))) {
		fprintf(stderr, "app: %s\n", err);
		return 3;
	}
	make_streams();
	if ((capture_at >= 0 &&
	     cudaStreamCreateWithFlags(&cap_stream, cudaStreamNonBlocking)) ||
	    (side_mode && (cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking) ||
			   cudaEventCreateWithFlags(&side_event, cudaEventDisableTiming) ||
			   cudaEventCreateWithFlags(&side_done, cudaEventDisableTiming)))) {
		fprintf(stderr, "app: cannot create a stream\n");
		return 1;
	}
	if (keep_error && cudaSetDevice(-1) != cudaErrorInvalidDevice) {
		fprintf(stderr, "app: cudaSetDevice(-1) did not fail\n");
		return 1;
	}
	size_t nb = t->nbuffers ? t->nbuffers : 1;
	ptr = calloc(nb, sizeof(*ptr));
	len = calloc(nb, sizeof(*len));
	filled = calloc(nb, sizeof(*filled));
	side_pending = calloc(nb, 1);
	if (!ptr || !len || !filled || !side_pending)
		return 1;
	if (double_pct >= 0) { /* the iteration's frees: its events' and the end's */
		size_t nf = 0;
		for (size_t i = 0; i < t->nevents; i++)
			nf += t->events[i].type == TRACE_EV_FREE;
		for (size_t b = 0; b < t->nbuffers; b++)
			nf += t->buffers[b].free_ev == TRACE_NONE &&
			      t->buffers[b].alloc_ev != TRACE_NONE;
		double_at = nf * (size_t)double_pct / 100;
	}
	for (uint32_t it = 0; it < iterations; it++) {
		frees_seen = 0;
		if (fresh_streams && it > 0)
			make_streams();
		free_from = it >= 1;
		if (between && it == 1) {
			other_begin();
			other_end();
		}
		/* the buffers from before the iteration: never graph memory,
		 * which lives only as long as its graph */
		for (size_t b = 0; b < t->nbuffers; b++)
			if (t->buffers[b].alloc_ev == TRACE_NONE && !ptr[b])
				do_alloc(t, (int64_t)b, t->buffers[b].size, it);
		if ((int)it == capture_at) {
			/* the graph's launches use what the streams still do */
			join_streams(cap_stream);
			if (cudaStreamBeginCapture(cap_stream, capture_mode)) {
				fprintf(stderr, "app: cannot begin a capture\n");
				return 1;
			}
			check_last_error("cudaStreamBeginCapture");
			capturing = 1;
		}
		if (mark_mode)
			memplan_mark_iteration_begin();
		void *pinned = NULL;
		unsigned nalloc = 0;
		for (size_t i = 0; i < t->nevents; i++) {
			const struct trace_event *e = &t->events[i];
			if (other_mode >= 0 && !between && !other_state && i == t->nevents / 2 &&
			    it == (iterations > 1))
				other_begin();
			if (e->type == TRACE_EV_ALLOC) {
				size_t n = t->buffers[e->buffer].size;
				if (it < 64 && (diverge >> it & 1) && ++nalloc == 3)
					n += 256; /* this iteration differs */
				do_alloc(t, e->buffer, n, it);
				if (pinned_mode && !pinned) {
					if (cudaMallocHost(&pinned, 4096)) {
						fprintf(stderr, "app: cudaMallocHost failed\n");
						return 1;
					}
					check_last_error("cudaMallocHost");
				}
			} else if (e->type == TRACE_EV_FREE) {
				do_free(t, e->buffer, i);
			} else {
				for (uint32_t a = 0; a < e->nacc; a++) {
					int64_t b = t->accesses[e->acc0 + a].buffer;
					if (!ptr[b])
						continue;
					launch(t, b, 1, i);
					int w = t->accesses[e->acc0 + a].mode & TRACE_ACCESS_WRITE;
					if (side_mode && !capturing && !w)
						side_read(t, b, i);
					if (w && side_pending[b])
						side_join(t, b);
					if (w)
						launch(t, b, 0, i);
				}
			}
		}
		for (size_t b = 0; b < t->nbuffers; b++)
			if (t->buffers[b].free_ev == TRACE_NONE &&
			    t->buffers[b].alloc_ev != TRACE_NONE)
				do_free(t, (int64_t)b, t->nevents);
		if (pinned) {
			cudaFreeHost(pinned);
			check_last_error("cudaFreeHost");
		}
		if (mark_mode) {
			cudaDeviceSynchronize();
			check_last_error("cudaDeviceSynchronize");
			memplan_mark_iteration_end();
		}
		if (capturing)
			end_capture(it);
		frees_seen = SIZE_MAX;
		double_ptr = NULL;
	}
	if (other_state == 1)
		other_end();
	for (size_t b = 0; b < t->nbuffers; b++)
		do_free(t, (int64_t)b, t->nevents);
	cudaDeviceSynchronize();
	check_last_error("cudaDeviceSynchronize");
	for (size_t i = 0; i < nold; i++) {
		cudaStreamDestroy(old_streams[i]);
		check_last_error("cudaStreamDestroy");
	}
	free(old_streams);
	if (keep_error) {
		cudaError_t kept = cudaGetLastError();
		printf("app: the error pending at the end: %s (%d)\n",
		       cudaGetErrorString(kept), kept);
		pthread_mutex_lock(&fail_lock);
		if (kept != cudaErrorInvalidDevice && failures++ == 0)
			snprintf(first_failure, sizeof(first_failure),
				 "the program's pending error was %s",
				 kept ? "replaced" : "taken");
		pthread_mutex_unlock(&fail_lock);
	}
	struct fakecuda_stats st;
	fakecuda_get_stats(&st);
	printf("app: %u iterations, %llu checks, %llu failures\n", iterations,
	       checks, failures);
	if (failures)
		printf("app: first failure: %s\n", first_failure);
	if (double_pct >= 0)
		printf("app: %llu second frees made\n", double_frees);
	printf("fakecuda: %llu allocations, %llu frees, %llu bad frees, peak %llu bytes, %llu captures invalidated\n",
	       st.allocs, st.frees, st.bad_frees, st.peak_bytes, st.invalidated);
	printf("fakecuda: device syncs: device 0 %llu, device 1 %llu\n",
	       st.device_syncs[0], st.device_syncs[1]);
	for (size_t i = 0; i < nkept; i++)
		free(kept[i]);
	free(kept);
	trace_free(t);
	free(ptr);
	free(len);
	free(filled);
	free(side_pending);
	/* --capture-between invalid: that one invalidation, wanted */
	/* --double-free: at most its own second frees reach the stand-in */
	return failures || st.bad_frees > double_frees ||
	       st.invalidated > (between == 2) ? 1 : 0;
}
