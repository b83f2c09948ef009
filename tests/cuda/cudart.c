/* SPDX-License-Identifier: MIT */
/*
 * cudart.c - a test-only stand-in for libcudart (built as libcudart.so.12
 * in tests/cuda/), so that libmemplan's interposition, fallback, divergence
 * and swap ordering run for real on a machine without a GPU.
 *
 * "Device" memory is host memory.  Each stream is a worker thread that runs
 * its operations (copies, memsets, host functions, event records and waits,
 * stream-ordered frees) in order and later than they were enqueued, so a
 * missing event wait shows up as data read too early.  Events honour CUDA's
 * rule that a wait captures the event's latest record at the time of the
 * wait.  Switches: FAKECUDA_DELAY_US=N (every operation first sleeps a
 * random 0..N us), FAKECUDA_COPY_DELAY_US=N (every copy sleeps N us more),
 * FAKECUDA_PINNED_DELAY_US=N (a copy to or from cudaMallocHost memory, as
 * swaps are, sleeps a random N/2..N us more: slow transfers that leave the
 * program's own copies fast), FAKECUDA_MEM=bytes (device memory, default
 * 16 GiB), FAKECUDA_HOST_MEM=bytes (a cudaMallocHost larger than this fails;
 * default no limit), FAKECUDA_DEVICES=n (default 1).  As the real one, every
 * failing call (cudaEventQuery's cudaErrorNotReady included) leaves its error
 * as the calling thread's last error until cudaGetLastError takes it; the
 * driver's cuEventQuery leaves nothing.  Simplification: the default stream is an ordinary stream;
 * it does not synchronise with other blocking streams.
 */
#include "cudart.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- markers: one per event record ------------------------------------------ */

static pthread_mutex_t mk_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mk_cond = PTHREAD_COND_INITIALIZER;

struct marker {
	int done, refs;
};

static struct marker *marker_new(int refs) /* under mk_lock */
{
	struct marker *m = calloc(1, sizeof(*m));
	if (m)
		m->refs = refs;
	return m;
}

static void marker_unref(struct marker *m) /* under mk_lock */
{
	if (m && --m->refs == 0)
		free(m);
}

struct fakecuda_event {
	struct marker *last; /* the latest record, under mk_lock */
};

/* --- streams ------------------------------------------------------------------ */

enum { OP_COPY, OP_SET, OP_HOST, OP_RECORD, OP_WAIT, OP_FREE, OP_EXIT };

struct op {
	int kind;
	void *dst;
	const void *src;
	size_t n;
	int value;
	cudaHostFn_t fn;
	void *user;
	struct marker *mk;
	struct op *next;
};

struct fakecuda_stream {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct op *head, *tail;
	pthread_t thread;
	unsigned seed;
	struct fakecuda_stream *next; /* all streams */
};

static struct {
	pthread_once_t once;
	pthread_mutex_t lock; /* memory table, stream list, statistics */
	unsigned delay_us, copy_delay_us, pinned_delay_us;
	unsigned long long mem_limit, host_limit;
	int devices;
	struct fakecuda_stream *streams;
	struct fakecuda_stream *default_stream;
	struct fakecuda_stats st;
} g = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER };

static _Thread_local int current_device;
/* cudaGetLastError's: per thread, as the real runtime keeps it */
static _Thread_local cudaError_t last_error;

/* Every exported call returns through this: a failure stays behind. */
static cudaError_t ret(cudaError_t rc)
{
	if (rc != cudaSuccess)
		last_error = rc;
	return rc;
}
static unsigned long long ops_done; /* atomic: the workers count it */

static void sleep_us(unsigned us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static void mem_release(void *p);
static int is_pinned(const void *p);

static void *worker(void *arg)
{
	struct fakecuda_stream *s = arg;
	for (;;) {
		pthread_mutex_lock(&s->lock);
		while (!s->head)
			pthread_cond_wait(&s->cond, &s->lock);
		struct op *o = s->head;
		s->head = o->next;
		if (!s->head)
			s->tail = NULL;
		pthread_mutex_unlock(&s->lock);
		if (g.delay_us)
			sleep_us((unsigned)rand_r(&s->seed) % (g.delay_us + 1));
		switch (o->kind) {
		case OP_COPY:
			if (g.copy_delay_us)
				sleep_us(g.copy_delay_us);
			if (g.pinned_delay_us &&
			    (is_pinned(o->dst) || is_pinned(o->src)))
				sleep_us(g.pinned_delay_us / 2 +
					 (unsigned)rand_r(&s->seed) %
						 (g.pinned_delay_us / 2 + 1));
			memmove(o->dst, o->src, o->n);
			break;
		case OP_SET:
			memset(o->dst, o->value, o->n);
			break;
		case OP_HOST:
			o->fn(o->user);
			break;
		case OP_RECORD:
			pthread_mutex_lock(&mk_lock);
			o->mk->done = 1;
			pthread_cond_broadcast(&mk_cond);
			marker_unref(o->mk);
			pthread_mutex_unlock(&mk_lock);
			break;
		case OP_WAIT:
			pthread_mutex_lock(&mk_lock);
			while (!o->mk->done)
				pthread_cond_wait(&mk_cond, &mk_lock);
			marker_unref(o->mk);
			pthread_mutex_unlock(&mk_lock);
			break;
		case OP_FREE:
			mem_release(o->dst);
			break;
		case OP_EXIT:
			free(o);
			return NULL;
		}
		__atomic_add_fetch(&ops_done, 1, __ATOMIC_RELAXED);
		free(o);
	}
}

static struct fakecuda_stream *stream_new(void)
{
	struct fakecuda_stream *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->seed = (unsigned)(uintptr_t)s;
	if (pthread_create(&s->thread, NULL, worker, s)) {
		free(s);
		return NULL;
	}
	pthread_mutex_lock(&g.lock);
	s->next = g.streams;
	g.streams = s;
	pthread_mutex_unlock(&g.lock);
	return s;
}

static unsigned long long env_u64(const char *name, unsigned long long def)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 10) : def;
}

static void init(void)
{
	g.delay_us = (unsigned)env_u64("FAKECUDA_DELAY_US", 0);
	g.copy_delay_us = (unsigned)env_u64("FAKECUDA_COPY_DELAY_US", 0);
	g.pinned_delay_us = (unsigned)env_u64("FAKECUDA_PINNED_DELAY_US", 0);
	g.mem_limit = env_u64("FAKECUDA_MEM", 16ull << 30);
	g.host_limit = env_u64("FAKECUDA_HOST_MEM", ~0ull);
	g.devices = (int)env_u64("FAKECUDA_DEVICES", 1);
	g.default_stream = stream_new();
}

/* NULL, cudaStreamLegacy (1) and cudaStreamPerThread (2): the default. */
static struct fakecuda_stream *stream_of(cudaStream_t s)
{
	pthread_once(&g.once, init);
	return (uintptr_t)s <= 2 ? g.default_stream : s;
}

static cudaError_t enqueue(cudaStream_t handle, struct op *o)
{
	struct fakecuda_stream *s = stream_of(handle);
	if (!o || !s) {
		free(o);
		return cudaErrorMemoryAllocation;
	}
	pthread_mutex_lock(&s->lock);
	if (s->tail)
		s->tail->next = o;
	else
		s->head = o;
	s->tail = o;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return cudaSuccess;
}

static struct op *op_new(int kind)
{
	struct op *o = calloc(1, sizeof(*o));
	if (o)
		o->kind = kind;
	return o;
}

/* --- memory ---------------------------------------------------------------------- */

#define NBUCKETS 4096
struct block {
	void *p;
	size_t n;
	struct block *next;
};
static struct block *table[NBUCKETS];

static size_t bucket(const void *p)
{
	return ((uintptr_t)p >> 8) % NBUCKETS;
}

static cudaError_t mem_take(void **out, size_t n)
{
	pthread_once(&g.once, init);
	*out = NULL;
	if (n == 0)
		return cudaSuccess;
	pthread_mutex_lock(&g.lock);
	int over = g.st.live_bytes + n > g.mem_limit;
	pthread_mutex_unlock(&g.lock);
	if (over)
		return cudaErrorMemoryAllocation;
	size_t r = (n + 255) & ~(size_t)255;
	void *p = aligned_alloc(256, r);
	struct block *b = malloc(sizeof(*b));
	if (!p || !b) {
		free(p);
		free(b);
		return cudaErrorMemoryAllocation;
	}
	*b = (struct block){ p, n, NULL };
	pthread_mutex_lock(&g.lock);
	b->next = table[bucket(p)];
	table[bucket(p)] = b;
	g.st.allocs++;
	g.st.live_bytes += n;
	if (g.st.live_bytes > g.st.peak_bytes)
		g.st.peak_bytes = g.st.live_bytes;
	pthread_mutex_unlock(&g.lock);
	*out = p;
	return cudaSuccess;
}

/* Takes p out of the table: 0, or -1 when it was never handed out. */
static int mem_forget(void *p)
{
	pthread_mutex_lock(&g.lock);
	struct block **at = &table[bucket(p)];
	while (*at && (*at)->p != p)
		at = &(*at)->next;
	struct block *b = *at;
	if (b) {
		*at = b->next;
		g.st.frees++;
		g.st.live_bytes -= b->n;
	} else {
		g.st.bad_frees++;
	}
	pthread_mutex_unlock(&g.lock);
	if (!b) {
		fprintf(stderr, "fakecuda: free of %p, which was not handed out (or freed twice)\n", p);
		return -1;
	}
	free(b);
	return 0;
}

static void mem_release(void *p)
{
	free(p);
}

cudaError_t cudaMalloc(void **p, size_t n)
{
	return ret(mem_take(p, n));
}

/* cudaFree's work; the stand-in's own callers use this, never the
 * exported name, which libmemplan interposes */
static cudaError_t free_sync(void *p)
{
	if (!p)
		return cudaSuccess;
	cudaDeviceSynchronize(); /* as the real one does */
	if (mem_forget(p))
		return cudaErrorInvalidValue;
	mem_release(p);
	return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
	return ret(free_sync(p));
}

cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s)
{
	(void)s;
	return ret(mem_take(p, n));
}

cudaError_t cudaFreeAsync(void *p, cudaStream_t s)
{
	if (!p)
		return cudaSuccess;
	if (mem_forget(p))
		return ret(cudaErrorInvalidValue);
	struct op *o = op_new(OP_FREE);
	if (o)
		o->dst = p;
	return ret(enqueue(s, o));
}

int cuMemAlloc_v2(unsigned long long *p, size_t n)
{
	void *q;
	cudaError_t rc = mem_take(&q, n);
	*p = (uintptr_t)q;
	return rc;
}

int cuMemFree_v2(unsigned long long p)
{
	return free_sync((void *)(uintptr_t)p);
}

/* Pinned host memory: a short list, for the copies that touch it. */
struct pinned {
	const char *p;
	size_t n;
	struct pinned *next;
};
static struct pinned *pinned_list; /* under g.lock */

static int is_pinned(const void *p)
{
	const char *c = p;
	int yes = 0;
	pthread_mutex_lock(&g.lock);
	for (const struct pinned *x = pinned_list; x && !yes; x = x->next)
		yes = c >= x->p && c < x->p + x->n;
	pthread_mutex_unlock(&g.lock);
	return yes;
}

cudaError_t cudaMallocHost(void **p, size_t n)
{
	pthread_once(&g.once, init);
	if (n > g.host_limit) {
		*p = NULL;
		return ret(cudaErrorMemoryAllocation);
	}
	*p = aligned_alloc(256, (n + 255) & ~(size_t)255);
	struct pinned *x = *p ? malloc(sizeof(*x)) : NULL;
	if (x) {
		pthread_mutex_lock(&g.lock);
		*x = (struct pinned){ *p, n, pinned_list };
		pinned_list = x;
		pthread_mutex_unlock(&g.lock);
	}
	return ret(*p || !n ? cudaSuccess : cudaErrorMemoryAllocation);
}

cudaError_t cudaFreeHost(void *p)
{
	pthread_mutex_lock(&g.lock);
	struct pinned **at = &pinned_list, *x;
	while (*at && (*at)->p != p)
		at = &(*at)->next;
	x = *at;
	if (x)
		*at = x->next;
	pthread_mutex_unlock(&g.lock);
	free(x);
	free(p);
	return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
	pthread_once(&g.once, init);
	pthread_mutex_lock(&g.lock);
	*total = (size_t)g.mem_limit;
	*free_bytes = (size_t)(g.mem_limit - g.st.live_bytes);
	pthread_mutex_unlock(&g.lock);
	return cudaSuccess;
}

/* --- devices -------------------------------------------------------------------- */

cudaError_t cudaGetDeviceCount(int *n)
{
	pthread_once(&g.once, init);
	*n = g.devices;
	return cudaSuccess;
}

cudaError_t cudaGetDevice(int *d)
{
	*d = current_device;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int d)
{
	pthread_once(&g.once, init);
	if (d < 0 || d >= g.devices)
		return ret(cudaErrorInvalidDevice);
	current_device = d;
	return cudaSuccess;
}

/* --- streams and events ---------------------------------------------------------- */

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
	(void)flags;
	pthread_once(&g.once, init);
	*s = stream_new();
	return ret(*s ? cudaSuccess : cudaErrorMemoryAllocation);
}

cudaError_t cudaStreamCreate(cudaStream_t *s)
{
	return cudaStreamCreateWithFlags(s, 0);
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
	pthread_mutex_lock(&mk_lock);
	struct marker *m = marker_new(2);
	pthread_mutex_unlock(&mk_lock);
	struct op *o = op_new(OP_RECORD);
	if (!m || !o) {
		free(m);
		free(o);
		return ret(cudaErrorMemoryAllocation);
	}
	o->mk = m;
	enqueue(s, o);
	pthread_mutex_lock(&mk_lock);
	while (!m->done)
		pthread_cond_wait(&mk_cond, &mk_lock);
	marker_unref(m);
	pthread_mutex_unlock(&mk_lock);
	return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
	pthread_once(&g.once, init);
	pthread_mutex_lock(&g.lock);
	struct fakecuda_stream *list = g.streams;
	pthread_mutex_unlock(&g.lock);
	/* streams are only added at the head: this walks those that existed */
	for (struct fakecuda_stream *s = list; s; s = s->next)
		cudaStreamSynchronize(s);
	return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
	if ((uintptr_t)s <= 2)
		return ret(cudaErrorInvalidValue);
	cudaStreamSynchronize(s);
	/* out of the list, then the worker ends (a program does not destroy
	 * a stream while another thread synchronises the device) */
	pthread_mutex_lock(&g.lock);
	struct fakecuda_stream **at = &g.streams;
	while (*at && *at != s)
		at = &(*at)->next;
	if (*at)
		*at = s->next;
	pthread_mutex_unlock(&g.lock);
	enqueue(s, op_new(OP_EXIT));
	pthread_join(s->thread, NULL);
	free(s);
	return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags)
{
	(void)flags;
	*e = calloc(1, sizeof(**e));
	return ret(*e ? cudaSuccess : cudaErrorMemoryAllocation);
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
	return cudaEventCreateWithFlags(e, 0);
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
	pthread_mutex_lock(&mk_lock);
	marker_unref(e->last);
	pthread_mutex_unlock(&mk_lock);
	free(e);
	return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
	struct op *o = op_new(OP_RECORD);
	pthread_mutex_lock(&mk_lock);
	struct marker *m = o ? marker_new(2) : NULL;
	if (m) {
		marker_unref(e->last);
		e->last = m;
		o->mk = m;
	}
	pthread_mutex_unlock(&mk_lock);
	if (!m) {
		free(o);
		return ret(cudaErrorMemoryAllocation);
	}
	return ret(enqueue(s, o));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags)
{
	(void)flags;
	pthread_mutex_lock(&mk_lock);
	struct marker *m = e->last;
	if (m)
		m->refs++;
	pthread_mutex_unlock(&mk_lock);
	if (!m)
		return cudaSuccess; /* never recorded: nothing to wait for */
	struct op *o = op_new(OP_WAIT);
	if (!o) {
		pthread_mutex_lock(&mk_lock);
		marker_unref(m);
		pthread_mutex_unlock(&mk_lock);
		return ret(cudaErrorMemoryAllocation);
	}
	o->mk = m;
	return ret(enqueue(s, o));
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
	pthread_mutex_lock(&mk_lock);
	struct marker *m = e->last;
	while (m && !m->done)
		pthread_cond_wait(&mk_cond, &mk_lock);
	pthread_mutex_unlock(&mk_lock);
	return cudaSuccess;
}

static int event_done(cudaEvent_t e)
{
	pthread_mutex_lock(&mk_lock);
	int done = !e->last || e->last->done;
	pthread_mutex_unlock(&mk_lock);
	return done;
}

/* Not ready is an error like any other: it stays behind as the last error
 * (PyTorch clears it after every query of its own). */
cudaError_t cudaEventQuery(cudaEvent_t e)
{
	return ret(event_done(e) ? cudaSuccess : cudaErrorNotReady);
}

#ifndef FAKECUDA_NO_DRIVER_EVENTS
/* The driver's (a cudaEvent_t is a CUevent; CUDA_ERROR_NOT_READY is 600
 * too): the driver has no last error to leave anything in. */
int cuEventQuery(cudaEvent_t e)
{
	return event_done(e) ? 0 : 600;
}
#endif

cudaError_t cudaGetLastError(void)
{
	cudaError_t rc = last_error;
	last_error = cudaSuccess;
	return rc;
}

cudaError_t cudaPeekAtLastError(void)
{
	return last_error;
}

/* --- work ------------------------------------------------------------------------ */

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n,
			    enum cudaMemcpyKind kind, cudaStream_t s)
{
	(void)kind;
	struct op *o = op_new(OP_COPY);
	if (o) {
		o->dst = dst;
		o->src = src;
		o->n = n;
	}
	return ret(enqueue(s, o));
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n,
		       enum cudaMemcpyKind kind)
{
	cudaError_t rc = cudaMemcpyAsync(dst, src, n, kind, NULL);
	return ret(rc ? rc : cudaStreamSynchronize(NULL));
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t n, cudaStream_t s)
{
	struct op *o = op_new(OP_SET);
	if (o) {
		o->dst = p;
		o->value = value;
		o->n = n;
	}
	return ret(enqueue(s, o));
}

cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *user)
{
	struct op *o = op_new(OP_HOST);
	if (o) {
		o->fn = fn;
		o->user = user;
	}
	return ret(enqueue(s, o));
}

const char *cudaGetErrorString(cudaError_t e)
{
	switch (e) {
	case cudaSuccess:
		return "no error";
	case cudaErrorInvalidValue:
		return "invalid argument";
	case cudaErrorMemoryAllocation:
		return "out of memory";
	case cudaErrorInvalidDevice:
		return "invalid device ordinal";
	case cudaErrorNotReady:
		return "device not ready";
	default:
		return "unknown error";
	}
}

void fakecuda_get_stats(struct fakecuda_stats *s)
{
	pthread_mutex_lock(&g.lock);
	*s = g.st;
	s->ops = __atomic_load_n(&ops_done, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&g.lock);
}
