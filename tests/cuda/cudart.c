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
 * driver's cuEventQuery leaves nothing.  Stream capture and graphs follow
 * CUDA's rules where they break programs (see "stream capture" below): a
 * forbidden call fails and invalidates the capture, whose
 * cudaStreamEndCapture then gives no graph.  Simplification: the default stream is an ordinary stream;
 * it does not synchronise with other blocking streams.
 *
 * Capture without a GPU: when FAKECUDA_CUPTI names the stand-in libcupti
 * (tests/cuda/cupti.c) and CUDA_INJECTION64_PATH an injection library, the
 * first call loads the one RTLD_GLOBAL and calls the other's
 * InitializeInjection, as cuInit does; allocations, frees and launches
 * then report to the stand-in CUPTI.  Kernels (cudaLaunchKernel) run
 * nothing; cudaGetFuncBySymbol knows no stub (none is ever registered), so
 * it fails and leaves its error behind, as the real one does for a stub of
 * another copy of cudart (cuBLAS's, cuDNN's).
 */
#define _GNU_SOURCE /* dladdr */
#include "cudart.h"

#include <dlfcn.h>
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
	/* the latest record was captured (under cap_lock): in the capture
	 * sequence of cap_origin, number cap_id, on stream cap_stream */
	struct fakecuda_stream *cap_origin, *cap_stream;
	unsigned long long cap_id;
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
	int blocking; /* created without cudaStreamNonBlocking */
	int device;   /* the current device at its creation; -1 the default */
	struct fakecuda_stream *next; /* all streams */
	/* stream capture, under cap_lock: the status, the stream that began
	 * the sequence (itself, or the origin a fork joined), whether the
	 * origin waited for this fork; on the origin, the sequence */
	int cap;
	struct fakecuda_stream *origin;
	int joined_back;
	int cap_mode;
	pthread_t cap_thread;
	unsigned long long cap_id;
	struct fakecuda_graph *graph;
};

/* A captured graph: the work captured, in order, and the memory that
 * cudaMallocAsync gave it during the capture (freed with the graph: its
 * frees in the capture are nodes, not frees).  An exec shares it. */
struct fakecuda_graph {
	struct op *head, *tail;
	void **mem;
	size_t nmem;
	int refs;
};

struct fakecuda_graph_exec {
	struct fakecuda_graph *graph;
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
static unsigned long long device_syncs[4]; /* atomic: per device */

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
	s->device = current_device;
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
	if (g.default_stream)
		g.default_stream->device = -1; /* shared by every device here */
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

/* --- stream capture ---------------------------------------------------------------
 * As CUDA's programming guide and cuda_runtime_api.h describe it: work
 * enqueued on a capturing stream is recorded into the sequence's graph,
 * not run; an event recorded there is "captured", and a stream waiting for
 * it joins the sequence (a fork, which the origin must wait for again
 * before cudaStreamEndCapture, else cudaErrorStreamCaptureUnjoined).  A
 * capturing stream waiting for an event from outside is refused
 * (cudaErrorStreamCaptureIsolation), as is a query or sync of a captured
 * event (cudaErrorCapturedEvent), a sync of a capturing stream or of the
 * device, and work on the legacy stream while a blocking stream captures
 * (cudaErrorStreamCaptureImplicit).  Potentially unsafe calls (cudaMalloc,
 * cudaFree, cudaMallocHost, cudaFreeHost, cudaMemcpy, event queries and
 * syncs, stream and device syncs) fail with
 * cudaErrorStreamCaptureUnsupported where the calling thread's capture mode
 * forbids them: global, while any global-mode sequence is under way or this
 * thread has one not relaxed; thread-local, while this thread has one not
 * relaxed; relaxed, never.  Every refusal invalidates the sequences
 * concerned: their cudaStreamEndCapture returns no graph.  Simplifications:
 * a graph's allocations live as long as the graph; freeing memory from
 * outside the graph within a capture is not modelled (cudaErrorNotSupported). */

static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static int ncaptures, nglobal;          /* sequences under way, global ones */
static unsigned long long next_cap_id;
static _Thread_local int thread_mode;   /* cudaStreamCaptureMode, global */
static _Thread_local int thread_caps;   /* this thread's, not relaxed */
static unsigned long long invalidations;

/* Invalidates origin o's sequence: every stream in it (under cap_lock). */
static void cap_invalidate(struct fakecuda_stream *o)
{
	if (!o || o->cap != cudaStreamCaptureStatusActive)
		return;
	invalidations++;
	pthread_mutex_lock(&g.lock);
	for (struct fakecuda_stream *t = g.streams; t; t = t->next)
		if (t->cap && t->origin == o)
			t->cap = cudaStreamCaptureStatusInvalidated;
	pthread_mutex_unlock(&g.lock);
}

/* A potentially unsafe call: 0 when the calling thread's mode allows it;
 * else the sequences that forbid it are invalidated and the call fails. */
static cudaError_t cap_unsafe(void)
{
	pthread_mutex_lock(&cap_lock);
	int bad = thread_mode != cudaStreamCaptureModeRelaxed &&
		  (thread_caps > 0 ||
		   (thread_mode == cudaStreamCaptureModeGlobal && nglobal > 0));
	if (bad) {
		pthread_t self = pthread_self();
		pthread_mutex_lock(&g.lock);
		struct fakecuda_stream *list = g.streams;
		pthread_mutex_unlock(&g.lock);
		for (struct fakecuda_stream *t = list; t; t = t->next)
			if (t->cap && t->origin == t &&
			    t->cap_mode != cudaStreamCaptureModeRelaxed &&
			    (pthread_equal(t->cap_thread, self) ||
			     (thread_mode == cudaStreamCaptureModeGlobal &&
			      t->cap_mode == cudaStreamCaptureModeGlobal)))
				cap_invalidate(t);
	}
	pthread_mutex_unlock(&cap_lock);
	return bad ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

static int is_legacy(cudaStream_t h)
{
	return (uintptr_t)h <= 1; /* NULL, cudaStreamLegacy */
}

/* Work on (or a sync or query of) the legacy stream: refused while a
 * blocking stream captures, and that capture invalidated.  all: any
 * capture at all (a device-wide sync). */
static cudaError_t cap_implicit(int all)
{
	cudaError_t rc = cudaSuccess;
	pthread_mutex_lock(&cap_lock);
	pthread_mutex_lock(&g.lock);
	struct fakecuda_stream *list = g.streams;
	pthread_mutex_unlock(&g.lock);
	for (struct fakecuda_stream *t = list; t; t = t->next)
		if (t->cap && (t->blocking || all)) {
			cap_invalidate(t->origin);
			rc = all ? cudaErrorStreamCaptureUnsupported :
				   cudaErrorStreamCaptureImplicit;
		}
	pthread_mutex_unlock(&cap_lock);
	return rc;
}

/* The sequence of captured event e still under way, or NULL (cap_lock). */
static struct fakecuda_stream *event_sequence(cudaEvent_t e)
{
	struct fakecuda_stream *o = e->cap_origin;
	return o && o->cap && o->cap_id == e->cap_id ? o : NULL;
}

/* A query or sync of e: refused when its latest record was captured. */
static cudaError_t cap_event(cudaEvent_t e)
{
	pthread_mutex_lock(&cap_lock);
	int captured = e->cap_origin != NULL;
	cap_invalidate(event_sequence(e));
	pthread_mutex_unlock(&cap_lock);
	return captured ? cudaErrorCapturedEvent : cudaSuccess;
}

static void graph_unref(struct fakecuda_graph *gr);

/* Queues o on stream h for its worker, or, while h captures, adds it to
 * the sequence's graph (refused once the sequence is invalidated).  Takes
 * o in every case. */
static cudaError_t submit(cudaStream_t h, struct op *o)
{
	if (!o)
		return cudaErrorMemoryAllocation;
	cudaError_t rc = is_legacy(h) ? cap_implicit(0) : cudaSuccess;
	struct fakecuda_stream *s = stream_of(h);
	if (rc || !s) {
		free(o);
		return rc ? rc : cudaErrorMemoryAllocation;
	}
	pthread_mutex_lock(&cap_lock);
	if (s->cap) {
		struct fakecuda_graph *gr = s->origin->graph;
		if (s->cap == cudaStreamCaptureStatusActive && gr) {
			if (gr->tail)
				gr->tail->next = o;
			else
				gr->head = o;
			gr->tail = o;
		} else {
			free(o);
			rc = cudaErrorStreamCaptureInvalidated;
		}
		pthread_mutex_unlock(&cap_lock);
		return rc;
	}
	pthread_mutex_unlock(&cap_lock);
	return enqueue(h, o);
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

/* --- capture: the stand-in CUPTI and the injection library ------------------ */

static struct {
	pthread_once_t once;
	uint32_t (*alloc)(int, int, void **, size_t, void *, int, const void *, uint32_t);
	void (*free)(int, void *, void *);
	void (*launch)(const void *, const char *, void **, void *);
} cupti = { .once = PTHREAD_ONCE_INIT };

static void sym_into(void *h, const char *name, void *fnptr)
{
	void *p = h ? dlsym(h, name) : NULL;
	memcpy(fnptr, &p, sizeof(p));
}

static void inject_init(void)
{
	const char *lib = getenv("CUDA_INJECTION64_PATH"), *c = getenv("FAKECUDA_CUPTI");
	if (!lib || !*lib || !c || !*c)
		return;
	void *h = dlopen(c, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		fprintf(stderr, "fakecuda: %s\n", dlerror());
		return;
	}
	sym_into(h, "fakecupti_alloc", &cupti.alloc);
	sym_into(h, "fakecupti_free", &cupti.free);
	sym_into(h, "fakecupti_launch", &cupti.launch);
	void *inj = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	int (*init_fn)(void) = NULL;
	sym_into(inj, "InitializeInjection", &init_fn);
	if (!init_fn) {
		fprintf(stderr, "fakecuda: no InitializeInjection in %s: %s\n", lib, dlerror());
		return;
	}
	init_fn();
}

/* Reports an allocation call (enter, then exit with rc) to the stand-in
 * CUPTI, if loaded; caller: the object that called, for its source. */
enum { FC_MALLOC, FC_MALLOC_HOST, FC_MALLOC_ASYNC, FC_MEM_ALLOC };
enum { FC_FREE, FC_FREE_HOST, FC_FREE_ASYNC, FC_MEM_FREE };
#define HOOK_ALLOC(kind, p, n, s, call)                                            \
	do {                                                                       \
		pthread_once(&cupti.once, inject_init);                            \
		const void *caller_ = __builtin_return_address(0);                 \
		uint32_t corr_ = cupti.alloc ? cupti.alloc(kind, 1, (void **)(p), n, \
							   s, 0, caller_, 0) : 0; \
		cudaError_t rc_ = (call);                                          \
		if (cupti.alloc)                                                   \
			cupti.alloc(kind, 0, (void **)(p), n, s, rc_, caller_, corr_); \
		return rc_;                                                        \
	} while (0)
#define HOOK_FREE(kind, p, s)                                                      \
	do {                                                                       \
		pthread_once(&cupti.once, inject_init);                            \
		if (cupti.free)                                                    \
			cupti.free(kind, (void *)(uintptr_t)(p), s);               \
	} while (0)

static cudaError_t malloc_impl(void **p, size_t n)
{
	cudaError_t rc = cap_unsafe();
	if (rc) {
		*p = NULL;
		return ret(rc);
	}
	return ret(mem_take(p, n));
}

static cudaError_t device_sync_raw(void);

/* cudaFree's work; the stand-in's own callers use this, never the
 * exported name, which libmemplan interposes */
static cudaError_t free_sync(void *p)
{
	if (!p)
		return cudaSuccess;
	device_sync_raw(); /* as the real one does */
	if (mem_forget(p))
		return cudaErrorInvalidValue;
	mem_release(p);
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t n)
{
	HOOK_ALLOC(FC_MALLOC, p, n, NULL, malloc_impl(p, n));
}

cudaError_t cudaFree(void *p)
{
	HOOK_FREE(FC_FREE, p, NULL);
	cudaError_t rc = cap_unsafe();
	return ret(rc ? rc : free_sync(p));
}

/* The capture status of stream h (cap_lock): 0, or with *seq its
 * sequence's origin when capturing (*seq NULL once invalidated). */
static int capturing(cudaStream_t h, struct fakecuda_stream **seq)
{
	struct fakecuda_stream *s = is_legacy(h) ? NULL : h;
	*seq = NULL;
	if (!s || !s->cap)
		return 0;
	if (s->cap == cudaStreamCaptureStatusActive)
		*seq = s->origin;
	return 1;
}

/* During a capture: the graph's own memory, which lives as long as it. */
static cudaError_t malloc_async_impl(void **p, size_t n, cudaStream_t s);
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s)
{
	HOOK_ALLOC(FC_MALLOC_ASYNC, p, n, s, malloc_async_impl(p, n, s));
}

static cudaError_t malloc_async_impl(void **p, size_t n, cudaStream_t s)
{
	struct fakecuda_stream *o;
	*p = NULL;
	cudaError_t rc = is_legacy(s) ? cap_implicit(0) : cudaSuccess;
	if (rc)
		return ret(rc);
	pthread_mutex_lock(&cap_lock);
	if (!capturing(s, &o)) {
		pthread_mutex_unlock(&cap_lock);
		return ret(mem_take(p, n));
	}
	struct fakecuda_graph *gr = o ? o->graph : NULL;
	void **m = gr ? realloc(gr->mem, (gr->nmem + 1) * sizeof(*m)) : NULL;
	if (m)
		gr->mem = m;
	rc = !gr ? cudaErrorStreamCaptureInvalidated :
	     !m	 ? cudaErrorMemoryAllocation :
		   mem_take(p, n);
	if (!rc && *p)
		gr->mem[gr->nmem++] = *p;
	pthread_mutex_unlock(&cap_lock);
	return ret(rc);
}

static int graph_owns(const struct fakecuda_graph *gr, const void *p)
{
	for (size_t i = 0; gr && i < gr->nmem; i++)
		if (gr->mem[i] == p)
			return 1;
	return 0;
}

cudaError_t cudaFreeAsync(void *p, cudaStream_t s)
{
	HOOK_FREE(FC_FREE_ASYNC, p, s);
	if (!p)
		return cudaSuccess;
	struct fakecuda_stream *o;
	pthread_mutex_lock(&cap_lock);
	if (capturing(s, &o)) {
		cudaError_t rc = !o ? cudaErrorStreamCaptureInvalidated :
				 graph_owns(o->graph, p) ? cudaSuccess :
							   cudaErrorNotSupported;
		pthread_mutex_unlock(&cap_lock);
		return ret(rc);
	}
	pthread_mutex_unlock(&cap_lock);
	cudaError_t rc = is_legacy(s) ? cap_implicit(0) : cudaSuccess;
	if (rc)
		return ret(rc);
	if (mem_forget(p))
		return ret(cudaErrorInvalidValue);
	struct op *op = op_new(OP_FREE);
	if (op)
		op->dst = p;
	return ret(enqueue(s, op));
}

static int mem_alloc_impl(unsigned long long *p, size_t n);
int cuMemAlloc_v2(unsigned long long *p, size_t n)
{
	HOOK_ALLOC(FC_MEM_ALLOC, p, n, NULL, mem_alloc_impl(p, n));
}

static int mem_alloc_impl(unsigned long long *p, size_t n)
{
	void *q = NULL;
	cudaError_t rc = cap_unsafe();
	if (!rc)
		rc = mem_take(&q, n);
	*p = (uintptr_t)q;
	return rc;
}

int cuMemFree_v2(unsigned long long p)
{
	HOOK_FREE(FC_MEM_FREE, p, NULL);
	cudaError_t rc = cap_unsafe();
	return rc ? rc : free_sync((void *)(uintptr_t)p);
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

static cudaError_t malloc_host_impl(void **p, size_t n);
cudaError_t cudaMallocHost(void **p, size_t n)
{
	HOOK_ALLOC(FC_MALLOC_HOST, p, n, NULL, malloc_host_impl(p, n));
}

static cudaError_t malloc_host_impl(void **p, size_t n)
{
	pthread_once(&g.once, init);
	cudaError_t rc = cap_unsafe();
	if (rc) {
		*p = NULL;
		return ret(rc);
	}
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
	HOOK_FREE(FC_FREE_HOST, p, NULL);
	cudaError_t rc = cap_unsafe();
	if (rc)
		return ret(rc);
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
	pthread_once(&g.once, init);
	*s = stream_new();
	if (*s)
		(*s)->blocking = !(flags & cudaStreamNonBlocking);
	return ret(*s ? cudaSuccess : cudaErrorMemoryAllocation);
}

cudaError_t cudaStreamCreate(cudaStream_t *s)
{
	return cudaStreamCreateWithFlags(s, 0);
}

/* Waits for the work queued on s so far (no capture rules: the stand-in's
 * own callers). */
static cudaError_t stream_sync_raw(cudaStream_t s)
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

/* Refused on a capturing stream, and where the thread's mode forbids it. */
cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
	struct fakecuda_stream *o;
	cudaError_t rc = is_legacy(s) ? cap_implicit(0) : cudaSuccess;
	pthread_mutex_lock(&cap_lock);
	if (!rc && capturing(s, &o)) {
		cap_invalidate(o);
		rc = cudaErrorStreamCaptureUnsupported;
	}
	pthread_mutex_unlock(&cap_lock);
	if (!rc)
		rc = cap_unsafe();
	return ret(rc ? rc : stream_sync_raw(s));
}

static cudaError_t device_sync_raw(void)
{
	pthread_once(&g.once, init);
	pthread_mutex_lock(&g.lock);
	struct fakecuda_stream *list = g.streams;
	pthread_mutex_unlock(&g.lock);
	/* streams are only added at the head: this walks those that existed;
	 * the current device's (and the default stream), as CUDA syncs the
	 * current device alone */
	for (struct fakecuda_stream *s = list; s; s = s->next)
		if (s->device < 0 || s->device == current_device)
			stream_sync_raw(s);
	return cudaSuccess;
}

/* Refused while any stream captures, whatever the mode. */
cudaError_t cudaDeviceSynchronize(void)
{
	cudaError_t rc = cap_implicit(1);
	if (!rc && current_device >= 0 && current_device < 4)
		__atomic_add_fetch(&device_syncs[current_device], 1, __ATOMIC_RELAXED);
	return ret(rc ? rc : device_sync_raw());
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
	if ((uintptr_t)s <= 2)
		return ret(cudaErrorInvalidValue);
	stream_sync_raw(s);
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
	struct fakecuda_stream *seq;
	cudaError_t rc = is_legacy(s) ? cap_implicit(0) : cudaSuccess;
	if (rc)
		return ret(rc);
	pthread_mutex_lock(&cap_lock);
	if (capturing(s, &seq)) { /* a node of the graph, not a record now */
		e->cap_origin = seq;
		e->cap_stream = s;
		e->cap_id = seq ? seq->cap_id : 0;
		pthread_mutex_unlock(&cap_lock);
		return ret(seq ? cudaSuccess : cudaErrorStreamCaptureInvalidated);
	}
	e->cap_origin = e->cap_stream = NULL;
	pthread_mutex_unlock(&cap_lock);
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
	struct fakecuda_stream *seq;
	cudaError_t rc = is_legacy(s) ? cap_implicit(0) : cudaSuccess;
	if (rc)
		return ret(rc);
	pthread_mutex_lock(&cap_lock);
	struct fakecuda_stream *eo = event_sequence(e);
	int cap = capturing(s, &seq);
	if (eo) {
		if (!cap) { /* s joins the sequence: a fork */
			struct fakecuda_stream *f = stream_of(s);
			f->cap = eo->cap;
			f->origin = eo;
			f->joined_back = 0;
		} else if (seq && seq != eo) {
			cap_invalidate(seq);
			cap_invalidate(eo);
			rc = cudaErrorStreamCaptureMerge;
		} else if (s == eo && e->cap_stream) {
			e->cap_stream->joined_back = 1; /* the fork joins back */
		}
	} else if (e->cap_origin) { /* recorded in a capture that ended */
		rc = cudaErrorCapturedEvent;
	} else if (cap) { /* a dependency on work outside the capture */
		cap_invalidate(seq);
		rc = cudaErrorStreamCaptureIsolation;
	}
	pthread_mutex_unlock(&cap_lock);
	if (rc || eo || cap)
		return ret(rc);
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
	cudaError_t rc = cap_event(e);
	if (!rc)
		rc = cap_unsafe();
	if (rc)
		return ret(rc);
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
	cudaError_t rc = cap_event(e);
	if (!rc)
		rc = cap_unsafe();
	if (rc)
		return ret(rc);
	return ret(event_done(e) ? cudaSuccess : cudaErrorNotReady);
}

#ifndef FAKECUDA_NO_DRIVER_EVENTS
/* The driver's (a cudaEvent_t is a CUevent; CUDA_ERROR_NOT_READY is 600
 * too): the driver has no last error to leave anything in. */
int cuEventQuery(cudaEvent_t e)
{
	cudaError_t rc = cap_event(e); /* the driver's codes are the same */
	if (!rc)
		rc = cap_unsafe();
	if (rc)
		return rc;
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
	return ret(submit(s, o));
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n,
		       enum cudaMemcpyKind kind)
{
	cudaError_t rc = cap_unsafe();
	if (rc)
		return ret(rc);
	rc = cudaMemcpyAsync(dst, src, n, kind, NULL);
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
	return ret(submit(s, o));
}

cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *user)
{
	struct op *o = op_new(OP_HOST);
	if (o) {
		o->fn = fn;
		o->user = user;
	}
	return ret(submit(s, o));
}

static void kernel_noop(void *user)
{
	(void)user;
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
			     size_t shared, cudaStream_t s)
{
	(void)grid;
	(void)block;
	(void)shared;
	pthread_once(&cupti.once, inject_init);
	if (cupti.launch) {
		Dl_info in;
		const char *name = dladdr(func, &in) && in.dli_sname ? in.dli_sname : "kernel";
		cupti.launch(func, name, args, s);
	}
	struct op *o = op_new(OP_HOST);
	if (o)
		o->fn = kernel_noop;
	return ret(submit(s, o));
}

/* No stub is registered with this runtime: every lookup fails, and its
 * error stays behind as the thread's last error. */
cudaError_t cudaGetFuncBySymbol(void **func, const void *symbol)
{
	(void)symbol;
	if (func)
		*func = NULL;
	return ret(cudaErrorInvalidDeviceFunction);
}

void fakecuda_sync_all(void)
{
	device_sync_raw();
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
	case cudaErrorIllegalState:
		return "the operation cannot be performed in the present state";
	case cudaErrorNotSupported:
		return "operation not supported";
	case cudaErrorStreamCaptureUnsupported:
		return "operation not permitted when stream is capturing";
	case cudaErrorStreamCaptureInvalidated:
		return "operation failed due to a previous error during capture";
	case cudaErrorStreamCaptureMerge:
		return "operation would result in a merge of separate capture sequences";
	case cudaErrorStreamCaptureUnmatched:
		return "capture was not ended in the same stream as it began";
	case cudaErrorStreamCaptureUnjoined:
		return "capturing stream has unjoined work";
	case cudaErrorStreamCaptureIsolation:
		return "dependency created on uncaptured work in another stream";
	case cudaErrorStreamCaptureImplicit:
		return "operation would make the legacy stream depend on a capturing blocking stream";
	case cudaErrorCapturedEvent:
		return "operation not permitted on an event last recorded in a capturing stream";
	case cudaErrorStreamCaptureWrongThread:
		return "attempt to terminate a thread-local capture sequence from another thread";
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
	pthread_mutex_lock(&cap_lock);
	s->invalidated = invalidations;
	pthread_mutex_unlock(&cap_lock);
	for (int d = 0; d < 4; d++)
		s->device_syncs[d] = __atomic_load_n(&device_syncs[d], __ATOMIC_RELAXED);
}

/* --- capture and graphs ------------------------------------------------------------ */

cudaError_t cudaStreamBeginCapture(cudaStream_t h, enum cudaStreamCaptureMode mode)
{
	pthread_once(&g.once, init);
	if (is_legacy(h))
		return ret(cudaErrorStreamCaptureUnsupported);
	if ((unsigned)mode > cudaStreamCaptureModeRelaxed)
		return ret(cudaErrorInvalidValue);
	struct fakecuda_graph *gr = calloc(1, sizeof(*gr));
	if (!gr)
		return ret(cudaErrorMemoryAllocation);
	gr->refs = 1;
	struct fakecuda_stream *s = stream_of(h);
	pthread_mutex_lock(&cap_lock);
	if (s->cap) {
		pthread_mutex_unlock(&cap_lock);
		free(gr);
		return ret(cudaErrorIllegalState);
	}
	s->cap = cudaStreamCaptureStatusActive;
	s->origin = s;
	s->joined_back = 1;
	s->cap_mode = mode;
	s->cap_thread = pthread_self();
	s->cap_id = ++next_cap_id;
	s->graph = gr;
	ncaptures++;
	nglobal += mode == cudaStreamCaptureModeGlobal;
	thread_caps += mode != cudaStreamCaptureModeRelaxed;
	pthread_mutex_unlock(&cap_lock);
	return cudaSuccess;
}

/* The graph, or NULL with cudaErrorStreamCaptureInvalidated (a refused call
 * broke the sequence) or cudaErrorStreamCaptureUnjoined (a fork the origin
 * never waited for): the sequence ends in every case but the errors of a
 * call that cannot end it. */
cudaError_t cudaStreamEndCapture(cudaStream_t h, cudaGraph_t *graph)
{
	*graph = NULL;
	if (is_legacy(h))
		return ret(cudaErrorIllegalState);
	struct fakecuda_stream *s = h;
	pthread_mutex_lock(&cap_lock);
	cudaError_t rc = cudaSuccess;
	if (!s->cap)
		rc = cudaErrorIllegalState;
	else if (s->origin != s) {
		cap_invalidate(s->origin);
		rc = cudaErrorStreamCaptureUnmatched;
	} else if (s->cap_mode != cudaStreamCaptureModeRelaxed &&
		   !pthread_equal(s->cap_thread, pthread_self()))
		rc = cudaErrorStreamCaptureWrongThread;
	if (rc) {
		pthread_mutex_unlock(&cap_lock);
		return ret(rc);
	}
	int unjoined = 0, invalid = s->cap != cudaStreamCaptureStatusActive;
	pthread_mutex_lock(&g.lock);
	for (struct fakecuda_stream *t = g.streams; t; t = t->next)
		if (t->cap && t->origin == s) {
			unjoined |= !t->joined_back;
			if (t != s) {
				t->cap = 0;
				t->origin = NULL;
			}
		}
	pthread_mutex_unlock(&g.lock);
	struct fakecuda_graph *gr = s->graph;
	s->cap = 0;
	s->origin = NULL;
	s->graph = NULL;
	ncaptures--;
	nglobal -= s->cap_mode == cudaStreamCaptureModeGlobal;
	thread_caps -= s->cap_mode != cudaStreamCaptureModeRelaxed;
	pthread_mutex_unlock(&cap_lock);
	if (invalid || unjoined) {
		graph_unref(gr);
		return ret(invalid ? cudaErrorStreamCaptureInvalidated :
				     cudaErrorStreamCaptureUnjoined);
	}
	*graph = gr;
	return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t h,
				     enum cudaStreamCaptureStatus *status,
				     unsigned long long *id, cudaGraph_t *graph,
				     const void **deps, const void **edge_data,
				     size_t *ndeps)
{
	pthread_once(&g.once, init);
	if (!status || (edge_data && !deps))
		return ret(cudaErrorInvalidValue);
	*status = cudaStreamCaptureStatusNone;
	if (deps)
		*deps = NULL;
	if (edge_data)
		*edge_data = NULL;
	if (ndeps)
		*ndeps = 0;
	if (is_legacy(h)) {
		pthread_mutex_lock(&cap_lock);
		pthread_mutex_lock(&g.lock);
		int implicit = 0;
		for (struct fakecuda_stream *t = g.streams; t; t = t->next)
			implicit |= t->cap && t->blocking;
		pthread_mutex_unlock(&g.lock);
		pthread_mutex_unlock(&cap_lock);
		return implicit ? ret(cudaErrorStreamCaptureImplicit) : cudaSuccess;
	}
	struct fakecuda_stream *s = stream_of(h);
	pthread_mutex_lock(&cap_lock);
	*status = s->cap;
	if (id && s->cap)
		*id = s->origin->cap_id;
	if (graph)
		*graph = s->cap ? s->origin->graph : NULL;
	pthread_mutex_unlock(&cap_lock);
	return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t h, enum cudaStreamCaptureStatus *status)
{
	return cudaStreamGetCaptureInfo(h, status, NULL, NULL, NULL, NULL, NULL);
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
	if (!mode || (unsigned)*mode > cudaStreamCaptureModeRelaxed)
		return ret(cudaErrorInvalidValue);
	int old = thread_mode;
	thread_mode = *mode;
	*mode = old;
	return cudaSuccess;
}

static void graph_unref(struct fakecuda_graph *gr)
{
	if (!gr || --gr->refs > 0)
		return;
	for (struct op *o = gr->head, *n; o; o = n) {
		n = o->next;
		free(o);
	}
	for (size_t i = 0; i < gr->nmem; i++)
		if (!mem_forget(gr->mem[i]))
			mem_release(gr->mem[i]);
	free(gr->mem);
	free(gr);
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
				 unsigned long long flags)
{
	(void)flags;
	*exec = graph ? calloc(1, sizeof(**exec)) : NULL;
	if (!*exec)
		return ret(graph ? cudaErrorMemoryAllocation : cudaErrorInvalidValue);
	pthread_mutex_lock(&cap_lock);
	graph->refs++;
	pthread_mutex_unlock(&cap_lock);
	(*exec)->graph = graph;
	return cudaSuccess;
}

/* The graph's work, queued on s in the order it was captured (a launch
 * into a capture is not modelled). */
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s)
{
	struct fakecuda_stream *seq;
	cudaError_t rc = is_legacy(s) ? cap_implicit(0) : cudaSuccess;
	if (rc)
		return ret(rc);
	pthread_mutex_lock(&cap_lock);
	int cap = capturing(s, &seq);
	pthread_mutex_unlock(&cap_lock);
	if (cap)
		return ret(cudaErrorNotSupported);
	for (const struct op *o = exec->graph->head; o; o = o->next) {
		struct op *c = malloc(sizeof(*c));
		if (!c)
			return ret(cudaErrorMemoryAllocation);
		*c = *o;
		c->next = NULL;
		enqueue(s, c);
	}
	return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
	if (!exec)
		return cudaSuccess;
	pthread_mutex_lock(&cap_lock);
	graph_unref(exec->graph);
	pthread_mutex_unlock(&cap_lock);
	free(exec);
	return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
	pthread_mutex_lock(&cap_lock);
	graph_unref(graph);
	pthread_mutex_unlock(&cap_lock);
	return cudaSuccess;
}

/* --- the driver's names for the runtime's own calls ------------------------------ */

#ifndef FAKECUDA_NO_DRIVER_EVENTS
/* The driver API: the same work as the runtime's names (a CUstream is a
 * cudaStream_t, a CUevent a cudaEvent_t, the codes the same numbers), and
 * no last error: the driver has none, so a failure leaves the thread's
 * cudart error as it was.  libmemplan makes its own calls through these
 * while the program has an error pending (issue 29). */
#define DRIVER(call)                                       \
	do {                                               \
		cudaError_t saved_ = last_error;           \
		int rc_ = (int)(call);                     \
		last_error = saved_;                       \
		return rc_;                                \
	} while (0)

int cuMemAllocHost_v2(void **p, size_t n)
{
	DRIVER(cudaMallocHost(p, n));
}

int cuMemFreeHost(void *p)
{
	DRIVER(cudaFreeHost(p));
}

int cuStreamCreate(cudaStream_t *s, unsigned flags)
{
	DRIVER(cudaStreamCreateWithFlags(s, flags));
}

int cuStreamDestroy_v2(cudaStream_t s)
{
	DRIVER(cudaStreamDestroy(s));
}

int cuEventCreate(cudaEvent_t *e, unsigned flags)
{
	DRIVER(cudaEventCreateWithFlags(e, flags));
}

int cuEventDestroy_v2(cudaEvent_t e)
{
	DRIVER(cudaEventDestroy(e));
}

int cuEventRecord(cudaEvent_t e, cudaStream_t s)
{
	DRIVER(cudaEventRecord(e, s));
}

int cuStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags)
{
	DRIVER(cudaStreamWaitEvent(s, e, flags));
}

int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src, size_t n,
			 cudaStream_t s)
{
	DRIVER(cudaMemcpyAsync((void *)(uintptr_t)dst, src, n,
			       cudaMemcpyHostToDevice, s));
}

int cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t n,
			 cudaStream_t s)
{
	DRIVER(cudaMemcpyAsync(dst, (const void *)(uintptr_t)src, n,
			       cudaMemcpyDeviceToHost, s));
}

int cuStreamSynchronize(cudaStream_t s)
{
	DRIVER(cudaStreamSynchronize(s));
}

int cuCtxSynchronize(void)
{
	DRIVER(cudaDeviceSynchronize());
}

int cuStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *status)
{
	DRIVER(cudaStreamIsCapturing(s, status));
}
#endif
