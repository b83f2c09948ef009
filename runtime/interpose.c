/* SPDX-License-Identifier: MIT */
/*
 * interpose.c - libmemplan's LD_PRELOAD and PyTorch ways in: the CUDA
 * allocation names it exports, the stream-capture names it watches (a
 * count of captures under way, so that no device-wide call of the
 * runtime's own breaks one; a request is captured when its own stream
 * captures), mp_torch_alloc/mp_torch_free/mp_torch_record_stream,
 * and the
 * process-wide runtimes they share (one per device, opened at the first
 * request on that device from the plans of MEMPLAN_PLAN).  Only in the
 * shared library: a program linking the core library keeps its own CUDA.
 *
 * Rule: whatever goes wrong here, the program goes on with the real
 * allocator.  A plan that cannot be used is said once on stderr.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "options.h"
#include "runtime.h"

#define MAX_DEVICES 64
#define MAX_PLANS 16
#define CUDA_ERROR_INITIALIZATION 3 /* cudaErrorInitializationError */

/* The interposed names, with the CUDA ABI: cudaError_t and CUresult are
 * ints, streams pointers, CUdeviceptr 64 bits. */
MP_API int cudaMalloc(void **p, size_t n);
MP_API int cudaFree(void *p);
MP_API int cudaMallocAsync(void **p, size_t n, void *stream);
MP_API int cudaFreeAsync(void *p, void *stream);
MP_API int cuMemAlloc_v2(unsigned long long *p, size_t n);
MP_API int cuMemFree_v2(unsigned long long p);
MP_API int cudaStreamBeginCapture(void *stream, int mode);
MP_API int cudaStreamEndCapture(void *stream, void **graph);
MP_API int cudaStreamBeginCapture_ptsz(void *stream, int mode);
MP_API int cudaStreamEndCapture_ptsz(void *stream, void **graph);
MP_API int cudaStreamBeginCaptureToGraph(void *stream, void *graph,
					 const void *deps, const void *edges,
					 size_t n, int mode);
MP_API int cudaStreamBeginCaptureToGraph_ptsz(void *stream, void *graph,
					      const void *deps,
					      const void *edges, size_t n,
					      int mode);

static struct {
	pthread_once_t once;
	pthread_mutex_t lock; /* opening runtimes */
	int disabled;
	int verbose;
	unsigned match;
	int on_unsafe; /* enum mp_on_unsafe */
	struct mp_plan plans[MAX_PLANS];
	char *paths[MAX_PLANS];
	int nplans;
	int any;              /* the one plan has device -1: first device wins */
	const struct mp_backend *be;
	/* per device: 0 not opened yet, 1 open, -1 none or failed */
	int state[MAX_DEVICES];
	mp_runtime *rt[MAX_DEVICES];
	mp_runtime *open[MAX_DEVICES]; /* the open ones, nopen of them */
	/* per open one, the line naming its plan's link (LINK section) for
	 * the statistics at exit; "" when the plan records none */
	char link_line[MAX_DEVICES][MP_PLAN_LINK_LEN + 256];
	int nopen;
	int stats; /* 0 none, 1 text, 2 json */
} g = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER };

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	if (g.verbose < 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "memplan: warning: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

void mp_global_stats(struct mp_stats *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&g.lock);
	for (int i = 0; i < g.nopen; i++) {
		struct mp_stats s;
		mp_stats_get(g.open[i], &s);
		mp_stats_merge(out, &s);
	}
	pthread_mutex_unlock(&g.lock);
}

static void print_stats(void)
{
	struct mp_stats s;
	mp_global_stats(&s);
	if (g.stats == 2) {
		mp_stats_print(&s, stderr, 1);
		return;
	}
	fprintf(stderr, "memplan: statistics at exit%s\n",
		g.disabled ? " (disabled: the real allocator served everything)" : "");
	for (int i = 0; i < g.nopen; i++)
		if (g.link_line[i][0])
			fprintf(stderr, "%s\n", g.link_line[i]);
	mp_stats_print(&s, stderr, 0);
}

static void disable_all(void)
{
	for (int i = 0; i < g.nplans; i++) {
		mp_plan_free(&g.plans[i]);
		free(g.paths[i]);
	}
	g.nplans = 0;
	g.disabled = 1;
}

/* Reads MEMPLAN_* and the plans.  Any problem: one warning, and the real
 * allocator for everything. */
static void init(void)
{
	/* a value that means nothing is named once, and its default used */
	int bad[OPT_COUNT] = { 0 };
	g.verbose = (int)options_long(OPT_VERBOSE, -1, 100, &bad[OPT_VERBOSE]);
	g.match = (unsigned)options_long(OPT_MATCH, 1, 1000000000, &bad[OPT_MATCH]);
	const char *st = options_str(OPT_SHOW_STATS);
	g.stats = !strcasecmp(st, "json") ? 2 : options_bool(OPT_SHOW_STATS, &bad[OPT_SHOW_STATS]);
	if (g.stats)
		atexit(print_stats);
	int off = options_bool(OPT_DISABLE, &bad[OPT_DISABLE]);
	static const char *const on_unsafe[] = { "warn", "abort", NULL };
	g.on_unsafe = options_choice(OPT_ON_UNSAFE, on_unsafe, &bad[OPT_ON_UNSAFE]);
	for (int i = 0; i < OPT_COUNT; i++)
		if (bad[i])
			say("%s='%s' means nothing to libmemplan and was ignored: %s=%s applies (see libmemplan(3))",
			    options_table[i].name, getenv(options_table[i].name),
			    options_table[i].name, options_table[i].def);
	const char *list = options_str(OPT_PLAN);
	if (off || !*list) {
		g.disabled = 1;
		return;
	}
	char err[512];
	if (!(g.be = mp_backend_cuda(err, sizeof(err)))) {
		say("%s: running on the real allocator", err);
		g.disabled = 1;
		return;
	}
	int ndev = 0, rc = g.be->device_count(&ndev);
	if (rc) {
		say("cannot count CUDA devices (%s): running on the real allocator",
		    g.be->error_string(rc));
		g.disabled = 1;
		return;
	}
	for (const char *s = list; *s;) {
		size_t n = strcspn(s, ",");
		if (n) {
			if (g.nplans == MAX_PLANS) {
				say("MEMPLAN_PLAN names more than %d plans: running on the real allocator",
				    MAX_PLANS);
				disable_all();
				return;
			}
			char *path = malloc(n + 1);
			if (!path) {
				disable_all();
				return;
			}
			memcpy(path, s, n);
			path[n] = 0;
			g.paths[g.nplans] = path;
			if (mp_plan_read_file(path, &g.plans[g.nplans], err, sizeof(err))) {
				g.nplans++;
				say("%s: running on the real allocator", err);
				disable_all();
				return;
			}
			g.nplans++;
		}
		s += n + (s[n] == ',');
	}
	for (int i = 0; i < g.nplans; i++) {
		int d = g.plans[i].device;
		const char *why = NULL;
		char buf[160];
		if (d >= ndev || d >= MAX_DEVICES) {
			snprintf(buf, sizeof(buf), "is for device %d, and this machine has %d device%s",
				 d, ndev, ndev == 1 ? "" : "s");
			why = buf;
		} else if (d < 0 && g.nplans > 1) {
			why = "names no device, which only the one plan of MEMPLAN_PLAN may do";
		}
		for (int j = 0; j < i && !why; j++)
			if (g.plans[j].device == d)
				why = "is for the same device as an earlier one";
		if (why) {
			say("plan '%s' %s: running on the real allocator", g.paths[i], why);
			disable_all();
			return;
		}
	}
	for (int d = 0; d < MAX_DEVICES; d++)
		g.state[d] = -1;
	g.any = g.nplans == 1 && g.plans[0].device < 0;
	for (int i = 0; i < g.nplans; i++)
		if (g.plans[i].device >= 0)
			g.state[g.plans[i].device] = 0;
	if (g.any)
		for (int d = 0; d < ndev && d < MAX_DEVICES; d++)
			g.state[d] = 0;
}

/* Opens the runtime of device d from its plan (under g.lock). */
static void open_device(int d)
{
	int i = 0;
	while (i < g.nplans && g.plans[i].device != d && !g.any)
		i++;
	if (i == g.nplans || !g.paths[i]) {
		g.state[d] = -1;
		return;
	}
	struct mp_options o;
	mp_options_init(&o);
	o.device = d;
	o.verbose = g.verbose;
	o.match = g.match;
	o.on_unsafe = g.on_unsafe;
	char err[512], line[sizeof(g.link_line[0])] = "";
	if (g.plans[i].has_link) /* the runtime takes the plan over */
		snprintf(line, sizeof(line),
			 "memplan: plan '%.200s' was planned for link '%s' (swapin_late and swapout_late count where this machine's copies were slower)",
			 g.paths[i], g.plans[i].link);
	mp_runtime *rt = NULL;
	if (!runtime_plan_admit(&g.plans[i], &o, err, sizeof(err)))
		rt = runtime_open_plan(&g.plans[i], g.be, &o, err, sizeof(err));
	if (!rt) {
		say("plan '%s': %s: device %d runs on the real allocator", g.paths[i],
		    err, d);
		g.state[d] = -1;
		return;
	}
	if (g.verbose >= 1)
		fprintf(stderr, "memplan: following plan '%s' on device %d\n",
			g.paths[i], d);
	free(g.paths[i]);
	g.paths[i] = NULL; /* a plan opens once */
	g.rt[d] = rt;
	g.open[g.nopen] = rt;
	memcpy(g.link_line[g.nopen], line, sizeof(line));
	__atomic_store_n(&g.nopen, g.nopen + 1, __ATOMIC_RELEASE);
	if (g.any)
		for (int e = 0; e < MAX_DEVICES; e++)
			if (e != d)
				g.state[e] = -1;
	__atomic_store_n(&g.state[d], 1, __ATOMIC_RELEASE);
}

/* The runtime of device d (-1: the current one), or NULL for the real
 * allocator. */
static mp_runtime *runtime_of(int d)
{
	pthread_once(&g.once, init);
	if (g.disabled)
		return NULL;
	if (d < 0 && g.be->get_device(&d))
		return NULL;
	if (d >= MAX_DEVICES)
		return NULL;
	int s = __atomic_load_n(&g.state[d], __ATOMIC_ACQUIRE);
	if (s == 0) {
		pthread_mutex_lock(&g.lock);
		if (g.state[d] == 0)
			open_device(d);
		s = g.state[d];
		pthread_mutex_unlock(&g.lock);
	}
	return s == 1 ? g.rt[d] : NULL;
}

/* The runtime whose pool holds p, else the current device's. */
static mp_runtime *runtime_for_free(const void *p, int d)
{
	pthread_once(&g.once, init);
	if (g.disabled)
		return NULL;
	int n = __atomic_load_n(&g.nopen, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n; i++)
		if (mp_owns(g.open[i], p))
			return g.open[i];
	return runtime_of(d);
}

/* --- the interposed CUDA names -------------------------------------------- */

/* cudaFree and cuMemFree_v2 synchronise the device before they free, and
 * programs rely on it to reuse memory across streams they do not order
 * themselves: a pool pointer freed through them does the same.  (What goes
 * to the real allocator is synchronised there; cudaFreeAsync and PyTorch's
 * free are stream-ordered instead.) */
static void sync_before_free(mp_runtime *rt, const void *p)
{
	/* not while any stream captures, on any thread: CUDA refuses a
	 * device sync then and invalidates the capture (the free is still
	 * stream-ordered, and a capturing stream's keeps the pool bytes:
	 * capture_free) */
	const struct mp_backend *be = runtime_backend(rt);
	if (!mp_owns(rt, p) || mp_cuda_captures() || be->stream_capturing(NULL))
		return;
	/* the pool's device, which need not be the current one (issue 30);
	 * the program's current device is put back */
	int d = runtime_device(rt), cur = d;
	if (!be->get_device(&cur) && cur != d && !be->set_device(d)) {
		be->device_sync();
		be->set_device(cur);
	} else {
		be->device_sync();
	}
}

int cudaMalloc(void **p, size_t n)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	mp_runtime *rt = re->malloc ? runtime_of(-1) : NULL;
	if (!rt)
		return re->malloc ? re->malloc(p, n) : CUDA_ERROR_INITIALIZATION;
	int rc;
	*p = runtime_alloc(rt, n, NULL, MP_MEM_RUNTIME, &rc);
	return rc;
}

int cudaFree(void *p)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	mp_runtime *rt = re->free && p ? runtime_for_free(p, -1) : NULL;
	if (!rt)
		return re->free ? re->free(p) : CUDA_ERROR_INITIALIZATION;
	sync_before_free(rt, p);
	return runtime_free(rt, p, NULL, MP_MEM_RUNTIME);
}

int cudaMallocAsync(void **p, size_t n, void *stream)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	mp_runtime *rt = re->malloc_async ? runtime_of(-1) : NULL;
	if (!rt)
		return re->malloc_async ? re->malloc_async(p, n, stream) :
					  CUDA_ERROR_INITIALIZATION;
	int rc;
	*p = runtime_alloc(rt, n, stream, MP_MEM_ASYNC, &rc);
	return rc;
}

int cudaFreeAsync(void *p, void *stream)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	mp_runtime *rt = re->free_async && p ? runtime_for_free(p, -1) : NULL;
	if (!rt)
		return re->free_async ? re->free_async(p, stream) :
					CUDA_ERROR_INITIALIZATION;
	return runtime_free(rt, p, stream, MP_MEM_ASYNC);
}

int cuMemAlloc_v2(unsigned long long *p, size_t n)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	mp_runtime *rt = re->mem_alloc ? runtime_of(-1) : NULL;
	if (!rt)
		return re->mem_alloc ? re->mem_alloc(p, n) : CUDA_ERROR_INITIALIZATION;
	int rc;
	*p = (uintptr_t)runtime_alloc(rt, n, NULL, MP_MEM_DRIVER, &rc);
	return rc;
}

int cuMemFree_v2(unsigned long long p)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	void *ptr = (void *)(uintptr_t)p;
	mp_runtime *rt = re->mem_free && p ? runtime_for_free(ptr, -1) : NULL;
	if (!rt)
		return re->mem_free ? re->mem_free(p) : CUDA_ERROR_INITIALIZATION;
	sync_before_free(rt, ptr);
	return runtime_free(rt, ptr, NULL, MP_MEM_DRIVER);
}

/* Stream captures: counted while under way (mp_cuda_capture_count), so
 * that the runtime makes no device-wide call (cudaFree's device sync)
 * meanwhile.  Whether a request is captured is its own stream's question
 * (backend stream_capturing), not this count's.  A capture that ends, with
 * a graph or invalidated, no longer counts; one the real function refused
 * never did. */
static int begun(int rc)
{
	if (rc == 0)
		mp_cuda_capture_count(1);
	return rc;
}

/* ended: a graph (success), or the capture was invalidated or left a
 * stream unjoined (cudaErrorStreamCaptureInvalidated 901,
 * cudaErrorStreamCaptureUnjoined 904); other errors (a stream that was not
 * capturing, another thread's capture) end nothing */
static int ended(int rc)
{
	if (rc == 0 || rc == 901 || rc == 904)
		mp_cuda_capture_count(-1);
	return rc;
}

int cudaStreamBeginCapture(void *stream, int mode)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	return re->begin_capture ? begun(re->begin_capture(stream, mode)) :
				   CUDA_ERROR_INITIALIZATION;
}

int cudaStreamBeginCapture_ptsz(void *stream, int mode)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	return re->begin_capture_ptsz ?
		       begun(re->begin_capture_ptsz(stream, mode)) :
		       CUDA_ERROR_INITIALIZATION;
}

int cudaStreamBeginCaptureToGraph(void *stream, void *graph, const void *deps,
				  const void *edges, size_t n, int mode)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	return re->begin_to_graph ?
		       begun(re->begin_to_graph(stream, graph, deps, edges, n, mode)) :
		       CUDA_ERROR_INITIALIZATION;
}

int cudaStreamBeginCaptureToGraph_ptsz(void *stream, void *graph,
				       const void *deps, const void *edges,
				       size_t n, int mode)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	return re->begin_to_graph_ptsz ?
		       begun(re->begin_to_graph_ptsz(stream, graph, deps, edges,
						     n, mode)) :
		       CUDA_ERROR_INITIALIZATION;
}

int cudaStreamEndCapture(void *stream, void **graph)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	return re->end_capture ? ended(re->end_capture(stream, graph)) :
				 CUDA_ERROR_INITIALIZATION;
}

int cudaStreamEndCapture_ptsz(void *stream, void **graph)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	return re->end_capture_ptsz ? ended(re->end_capture_ptsz(stream, graph)) :
				      CUDA_ERROR_INITIALIZATION;
}

/* --- PyTorch's CUDAPluggableAllocator ------------------------------------- */

void *mp_torch_alloc(ssize_t size, int device, void *stream)
{
	const struct mp_cuda_real *re = mp_cuda_real();
	if (size < 0 || !re->malloc)
		return NULL;
	mp_runtime *rt = runtime_of(device);
	void *p = NULL;
	if (!rt)
		return re->malloc(&p, (size_t)size) ? NULL : p;
	return runtime_alloc(rt, (size_t)size, stream,
			     MP_MEM_RUNTIME | MP_MEM_RELAXED, NULL);
}

void mp_torch_free(void *ptr, ssize_t size, int device, void *stream)
{
	(void)size;
	const struct mp_cuda_real *re = mp_cuda_real();
	if (!ptr || !re->free)
		return;
	mp_runtime *rt = runtime_for_free(ptr, device);
	if (!rt)
		re->free(ptr);
	else
		runtime_free(rt, ptr, stream, MP_MEM_RUNTIME | MP_MEM_RELAXED);
}

void mp_torch_record_stream(void *ptr, void *stream)
{
	if (!ptr)
		return;
	pthread_once(&g.once, init);
	if (g.disabled)
		return;
	int n = __atomic_load_n(&g.nopen, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n; i++)
		if (mp_owns(g.open[i], ptr))
			runtime_record_stream(g.open[i], ptr, stream);
}
