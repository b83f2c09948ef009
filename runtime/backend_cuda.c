/* SPDX-License-Identifier: MIT */
/*
 * backend_cuda.c - the runtime's backend on the CUDA runtime of the process,
 * found at run time: no link-time dependency on any cudart, and no CUDA
 * header (the few types used are declared here by their ABI: cudaError_t and
 * CUresult are ints, streams and events pointers, CUdeviceptr 64 bits).
 *
 * Resolution: cudaMalloc is looked up with dlsym(RTLD_NEXT) (the library
 * after libmemplan, as LD_PRELOAD puts it first), else in a libcudart the
 * process already loaded (RTLD_NOLOAD), else in MEMPLAN_CUDART or the usual
 * sonames; every other function comes from the same library, so that one
 * runtime's state is used throughout.  The driver's names come from libcuda.
 *
 * The runtime's own calls leave no error behind: cudart keeps a last error
 * per thread, which programs (PyTorch after every launch) take with
 * cudaGetLastError and treat as theirs.  Event queries go to the driver's
 * cuEventQuery, which has no last error; every other call of the runtime's
 * own that fails takes its error back.  While the program has an error
 * pending, a failure of ours would replace it, and taking ours back would
 * take nothing of the program's but could not restore it either: so then
 * the runtime makes its calls through the driver's names (cuEventRecord &
 * co.), which leave cudart's last error as it is (issue 29).  A cudart
 * call is made then only when the driver lacks the name (no libcuda).
 */
#define _GNU_SOURCE
#include "runtime_backend.h"
#include "options.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cudaStreamNonBlocking, cudaEventDisableTiming, cudaMemcpyKind values */
#define CUDA_STREAM_NON_BLOCKING 0x1u
#define CUDA_EVENT_DISABLE_TIMING 0x2u
#define CUDA_MEMCPY_H2D 1
#define CUDA_MEMCPY_D2H 2

static struct {
	int (*get_device_count)(int *);
	int (*get_device)(int *);
	int (*set_device)(int);
	int (*malloc_host)(void **, size_t);
	int (*free_host)(void *);
	int (*stream_create)(void **, unsigned);
	int (*stream_destroy)(void *);
	int (*event_create)(void **, unsigned);
	int (*event_destroy)(void *);
	int (*event_record)(void *, void *);
	int (*stream_wait_event)(void *, void *, unsigned);
	int (*event_query)(void *);
	int (*drv_event_query)(void *); /* cuEventQuery: a cudaEvent_t is a CUevent */
	int (*get_last_error)(void);
	int (*peek_last_error)(void);
	int (*memcpy_async)(void *, const void *, size_t, int, void *);
	int (*stream_synchronize)(void *);
	int (*device_synchronize)(void);
	const char *(*get_error_string)(int);
	/* stream capture: absent from a cudart before 10.0 */
	int (*stream_is_capturing)(void *, int *);
	int (*exchange_capture_mode)(int *);
} cu;

/* The driver's names of the same calls (a cudaStream_t is a CUstream, a
 * cudaEvent_t a CUevent, the codes the same numbers), for while the
 * program has an error pending: the driver keeps no last error.  NULL
 * where libcuda lacks one.  NULL and cudaStreamLegacy (1) are the legacy
 * default stream to both; cudaStreamPerThread (2) is CU_STREAM_PER_THREAD. */
static struct {
	int (*mem_alloc_host)(void **, size_t);
	int (*mem_free_host)(void *);
	int (*stream_create)(void **, unsigned);
	int (*stream_destroy)(void *);
	int (*event_create)(void **, unsigned);
	int (*event_destroy)(void *);
	int (*event_record)(void *, void *);
	int (*stream_wait_event)(void *, void *, unsigned);
	int (*memcpy_htod_async)(unsigned long long, const void *, size_t, void *);
	int (*memcpy_dtoh_async)(void *, unsigned long long, size_t, void *);
	int (*stream_synchronize)(void *);
	int (*ctx_synchronize)(void);
	int (*stream_is_capturing)(void *, int *);
} drv;

/* Stream captures under way, begun through the interposed
 * cudaStreamBeginCapture (mp_cuda_capture_count). */
static int captures;

static struct mp_cuda_real real;
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;
static char resolve_error[256];

static void *lookup(void *lib, const char *name)
{
	return lib ? dlsym(lib, name) : NULL;
}

/* Function pointers from dlsym's object pointers, as POSIX allows. */
#define SET(fp, sym)                                      \
	do {                                              \
		void *s_ = (sym);                         \
		memcpy(&(fp), &s_, sizeof(fp));           \
	} while (0)

/* The library holding the first symbol found with RTLD_NEXT, else the first
 * of names already loaded, else the first that loads. */
static void *find_library(const char *probe, enum options_id env,
			  const char *const *names)
{
	void *sym = dlsym(RTLD_NEXT, probe);
	Dl_info info;
	if (sym && dladdr(sym, &info) && info.dli_fname) {
		void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
		if (h)
			return h;
	}
	const char *forced = options_str(env);
	if (forced && *forced)
		return dlopen(forced, RTLD_LAZY);
	for (int i = 0; names[i]; i++) {
		void *h = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
		if (h)
			return h;
	}
	for (int i = 0; names[i]; i++) {
		void *h = dlopen(names[i], RTLD_LAZY);
		if (h)
			return h;
	}
	return NULL;
}

static void resolve_driver(void *lib)
{
	SET(drv.mem_alloc_host, lookup(lib, "cuMemAllocHost_v2"));
	SET(drv.mem_free_host, lookup(lib, "cuMemFreeHost"));
	SET(drv.stream_create, lookup(lib, "cuStreamCreate"));
	SET(drv.stream_destroy, lookup(lib, "cuStreamDestroy_v2"));
	SET(drv.event_create, lookup(lib, "cuEventCreate"));
	SET(drv.event_destroy, lookup(lib, "cuEventDestroy_v2"));
	SET(drv.event_record, lookup(lib, "cuEventRecord"));
	SET(drv.stream_wait_event, lookup(lib, "cuStreamWaitEvent"));
	SET(drv.memcpy_htod_async, lookup(lib, "cuMemcpyHtoDAsync_v2"));
	SET(drv.memcpy_dtoh_async, lookup(lib, "cuMemcpyDtoHAsync_v2"));
	SET(drv.stream_synchronize, lookup(lib, "cuStreamSynchronize"));
	SET(drv.ctx_synchronize, lookup(lib, "cuCtxSynchronize"));
	SET(drv.stream_is_capturing, lookup(lib, "cuStreamIsCapturing"));
}

static void resolve(void)
{
	static const char *const cudart_names[] = {
		"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0",
		"libcudart.so", NULL
	};
	static const char *const cuda_names[] = { "libcuda.so.1", "libcuda.so",
						  NULL };
	void *rt = find_library("cudaMalloc", OPT_CUDART, cudart_names);
	if (!rt) {
		snprintf(resolve_error, sizeof(resolve_error),
			 "no CUDA runtime library: cudaMalloc is not in the process and none of libcudart.so.{13,12,11.0} loads (set MEMPLAN_CUDART to its path)");
	} else {
		SET(real.malloc, lookup(rt, "cudaMalloc"));
		SET(real.free, lookup(rt, "cudaFree"));
		SET(real.malloc_async, lookup(rt, "cudaMallocAsync"));
		SET(real.free_async, lookup(rt, "cudaFreeAsync"));
		SET(cu.get_device_count, lookup(rt, "cudaGetDeviceCount"));
		SET(cu.get_device, lookup(rt, "cudaGetDevice"));
		SET(cu.set_device, lookup(rt, "cudaSetDevice"));
		SET(cu.malloc_host, lookup(rt, "cudaMallocHost"));
		SET(cu.free_host, lookup(rt, "cudaFreeHost"));
		SET(cu.stream_create, lookup(rt, "cudaStreamCreateWithFlags"));
		SET(cu.stream_destroy, lookup(rt, "cudaStreamDestroy"));
		SET(cu.event_create, lookup(rt, "cudaEventCreateWithFlags"));
		SET(cu.event_destroy, lookup(rt, "cudaEventDestroy"));
		SET(cu.event_record, lookup(rt, "cudaEventRecord"));
		SET(cu.stream_wait_event, lookup(rt, "cudaStreamWaitEvent"));
		SET(cu.event_query, lookup(rt, "cudaEventQuery"));
		SET(cu.memcpy_async, lookup(rt, "cudaMemcpyAsync"));
		SET(cu.stream_synchronize, lookup(rt, "cudaStreamSynchronize"));
		SET(cu.device_synchronize, lookup(rt, "cudaDeviceSynchronize"));
		SET(cu.get_error_string, lookup(rt, "cudaGetErrorString"));
		SET(cu.get_last_error, lookup(rt, "cudaGetLastError"));
		SET(cu.peek_last_error, lookup(rt, "cudaPeekAtLastError"));
		SET(cu.stream_is_capturing, lookup(rt, "cudaStreamIsCapturing"));
		SET(cu.exchange_capture_mode,
		    lookup(rt, "cudaThreadExchangeStreamCaptureMode"));
		SET(real.begin_capture, lookup(rt, "cudaStreamBeginCapture"));
		SET(real.end_capture, lookup(rt, "cudaStreamEndCapture"));
		SET(real.begin_capture_ptsz,
		    lookup(rt, "cudaStreamBeginCapture_ptsz"));
		SET(real.end_capture_ptsz, lookup(rt, "cudaStreamEndCapture_ptsz"));
		SET(real.begin_to_graph,
		    lookup(rt, "cudaStreamBeginCaptureToGraph"));
		SET(real.begin_to_graph_ptsz,
		    lookup(rt, "cudaStreamBeginCaptureToGraph_ptsz"));
		const char *missing =
			!real.malloc ? "cudaMalloc" :
			!real.free ? "cudaFree" :
			!cu.get_device_count ? "cudaGetDeviceCount" :
			!cu.get_device ? "cudaGetDevice" :
			!cu.set_device ? "cudaSetDevice" :
			!cu.malloc_host ? "cudaMallocHost" :
			!cu.free_host ? "cudaFreeHost" :
			!cu.stream_create ? "cudaStreamCreateWithFlags" :
			!cu.stream_destroy ? "cudaStreamDestroy" :
			!cu.event_create ? "cudaEventCreateWithFlags" :
			!cu.event_destroy ? "cudaEventDestroy" :
			!cu.event_record ? "cudaEventRecord" :
			!cu.stream_wait_event ? "cudaStreamWaitEvent" :
			!cu.event_query ? "cudaEventQuery" :
			!cu.memcpy_async ? "cudaMemcpyAsync" :
			!cu.stream_synchronize ? "cudaStreamSynchronize" :
			!cu.device_synchronize ? "cudaDeviceSynchronize" :
			NULL;
		if (missing)
			snprintf(resolve_error, sizeof(resolve_error),
				 "the CUDA runtime library has no %s", missing);
	}
	/* The driver only for the interposed cuMemAlloc_v2 / cuMemFree_v2:
	 * a program calling them has loaded libcuda already. */
	void *drv = find_library("cuMemAlloc_v2", OPT_CUDA_DRIVER,
				 cuda_names);
	SET(real.mem_alloc, lookup(drv, "cuMemAlloc_v2"));
	SET(real.mem_free, lookup(drv, "cuMemFree_v2"));
	SET(cu.drv_event_query, lookup(drv, "cuEventQuery"));
	resolve_driver(drv);
}

/* Before a call of the runtime's own: whether the program has an error
 * pending on this thread (then a failure of ours cannot be told from it,
 * and both stay). */
static int err_pending(void)
{
	return cu.peek_last_error && cu.get_last_error &&
	       cu.peek_last_error() != 0;
}

/* After it: a failure of ours is taken back from the last error, so that
 * the program's next cudaGetLastError does not see it. */
static int own(int rc, int pending)
{
	if (rc && !pending && cu.get_last_error)
		cu.get_last_error();
	return rc;
}

const struct mp_cuda_real *mp_cuda_real(void)
{
	pthread_once(&resolve_once, resolve);
	return &real;
}

static int c_device_count(int *n)
{
	int pending = err_pending();
	return own(cu.get_device_count(n), pending);
}

static int c_get_device(int *dev)
{
	int pending = err_pending();
	return own(cu.get_device(dev), pending);
}

static int c_set_device(int dev)
{
	int pending = err_pending();
	return own(cu.set_device(dev), pending);
}

/* cudaErrorNotSupported: a real allocator this process lacks */
#define CUDA_ERROR_NOT_SUPPORTED 801

/* cudaStreamCaptureModeRelaxed */
#define CUDA_CAPTURE_MODE_RELAXED 2

/* The calling thread's capture mode relaxed, for a call of the runtime's
 * own that CUDA counts as potentially unsafe (cudaMalloc, cudaMallocHost,
 * cudaFree, an event query, a synchronisation): under another thread's
 * global-mode capture (PyTorch's default) it would be refused and
 * invalidate that capture (issue 29).  Relaxed allows it in every mode.
 * Returns the mode to put back with unrelax(), -1 when it could not be
 * changed.  Never on the hot path: pool creation, swaps, their waits. */
static int relax(void)
{
	int mode = CUDA_CAPTURE_MODE_RELAXED;
	if (!cu.exchange_capture_mode || cu.exchange_capture_mode(&mode))
		return -1;
	return mode;
}

static void unrelax(int mode)
{
	if (mode >= 0)
		cu.exchange_capture_mode(&mode);
}

/* cudaMalloc as PyTorch's allocator calls it while a capture may be under
 * way: with this thread's capture mode relaxed for the call. */
static int malloc_relaxed(void **p, size_t n)
{
	int mode = relax();
	int rc = real.malloc(p, n);
	unrelax(mode);
	return rc;
}

static int alloc_real(void **p, size_t n, int mem, void *stream)
{
	*p = NULL;
	if ((mem & MP_MEM_RELAXED) && (mem & ~MP_MEM_RELAXED) == MP_MEM_RUNTIME)
		return malloc_relaxed(p, n);
	switch (mem & ~MP_MEM_RELAXED) {
	case MP_MEM_ASYNC:
		return real.malloc_async ? real.malloc_async(p, n, stream) :
					   CUDA_ERROR_NOT_SUPPORTED;
	case MP_MEM_DRIVER: {
		unsigned long long d = 0;
		if (!real.mem_alloc)
			return CUDA_ERROR_NOT_SUPPORTED;
		int rc = real.mem_alloc(&d, n);
		*p = (void *)(uintptr_t)d;
		return rc;
	}
	default:
		return real.malloc(p, n);
	}
}

/* The program's requests fail as the real allocator fails them, last error
 * included; the runtime's own (MP_MEM_OWN: the pool) leave nothing. */
static int c_alloc(void **p, size_t n, int mem, void *stream)
{
	if (!(mem & MP_MEM_OWN))
		return alloc_real(p, n, mem, stream);
	int pending = err_pending(), mode = relax();
	int rc = pending && real.mem_alloc ?
			 alloc_real(p, n, MP_MEM_DRIVER, stream) :
			 own(alloc_real(p, n, mem & ~MP_MEM_OWN, stream), pending);
	unrelax(mode);
	return rc;
}

static int free_real(void *p, int mem, void *stream)
{
	switch (mem & ~MP_MEM_RELAXED) {
	case MP_MEM_ASYNC:
		return real.free_async ? real.free_async(p, stream) :
					 real.free(p);
	case MP_MEM_DRIVER:
		return real.mem_free ? real.mem_free((uintptr_t)p) :
				       real.free(p);
	default:
		return real.free(p);
	}
}

static int c_free(void *p, int mem, void *stream)
{
	if (!(mem & MP_MEM_OWN))
		return free_real(p, mem, stream);
	int pending = err_pending(), mode = relax();
	int rc = pending && real.mem_free ?
			 free_real(p, MP_MEM_DRIVER, stream) :
			 own(free_real(p, mem & ~MP_MEM_OWN, stream), pending);
	unrelax(mode);
	return rc;
}

/* A call of the runtime's own: through the driver's name (dcall) while the
 * program has an error pending and the driver has it, else through
 * cudart's (rcall), its failure taken back unless an error was pending. */
#define OWN_CALL(dfn, dcall, rcall)                                   \
	do {                                                          \
		int pending_ = err_pending();                         \
		if (pending_ && (dfn))                                \
			return (dcall);                               \
		return own((rcall), pending_);                        \
	} while (0)

static int host_alloc(void **p, size_t n)
{
	OWN_CALL(drv.mem_alloc_host, drv.mem_alloc_host(p, n), cu.malloc_host(p, n));
}

static int c_host_alloc(void **p, size_t n)
{
	int mode = relax();
	int rc = host_alloc(p, n);
	unrelax(mode);
	return rc;
}

static int host_free(void *p)
{
	OWN_CALL(drv.mem_free_host, drv.mem_free_host(p), cu.free_host(p));
}

static int c_host_free(void *p)
{
	int mode = relax();
	int rc = host_free(p);
	unrelax(mode);
	return rc;
}

static int c_stream_create(void **s)
{
	OWN_CALL(drv.stream_create,
		 drv.stream_create(s, CUDA_STREAM_NON_BLOCKING),
		 cu.stream_create(s, CUDA_STREAM_NON_BLOCKING));
}

static int c_stream_destroy(void *s)
{
	OWN_CALL(drv.stream_destroy, drv.stream_destroy(s), cu.stream_destroy(s));
}

static int c_event_create(void **e)
{
	OWN_CALL(drv.event_create,
		 drv.event_create(e, CUDA_EVENT_DISABLE_TIMING),
		 cu.event_create(e, CUDA_EVENT_DISABLE_TIMING));
}

static int c_event_destroy(void *e)
{
	OWN_CALL(drv.event_destroy, drv.event_destroy(e), cu.event_destroy(e));
}

static int c_event_record(void *e, void *s)
{
	OWN_CALL(drv.event_record, drv.event_record(e, s), cu.event_record(e, s));
}

static int c_stream_wait(void *s, void *e)
{
	OWN_CALL(drv.stream_wait_event, drv.stream_wait_event(s, e, 0),
		 cu.stream_wait_event(s, e, 0));
}

/* cudaErrorNotReady: the work the event captured still runs */
#define CUDA_ERROR_NOT_READY 600

static int c_event_query(void *e)
{
	int mode, rc;
	if (cu.drv_event_query) {
		mode = relax();
		rc = cu.drv_event_query(e);
		unrelax(mode);
		return rc != CUDA_ERROR_NOT_READY;
	}
	/* statistics only: not worth replacing the program's pending error */
	if (err_pending())
		return 1;
	mode = relax();
	rc = own(cu.event_query(e), 0);
	unrelax(mode);
	return rc != CUDA_ERROR_NOT_READY;
}

static int c_copy(void *dst, const void *src, size_t n, int dir, void *s)
{
	int pending = err_pending();
	if (pending && dir == MP_COPY_H2D && drv.memcpy_htod_async)
		return drv.memcpy_htod_async((uintptr_t)dst, src, n, s);
	if (pending && dir == MP_COPY_D2H && drv.memcpy_dtoh_async)
		return drv.memcpy_dtoh_async(dst, (uintptr_t)src, n, s);
	return own(cu.memcpy_async(dst, src, n,
				   dir == MP_COPY_H2D ? CUDA_MEMCPY_H2D :
							CUDA_MEMCPY_D2H,
				   s),
		   pending);
}

static int stream_sync(void *s)
{
	OWN_CALL(drv.stream_synchronize, drv.stream_synchronize(s),
		 cu.stream_synchronize(s));
}

static int c_stream_sync(void *s)
{
	int mode = relax();
	int rc = stream_sync(s);
	unrelax(mode);
	return rc;
}

static int device_sync(void)
{
	OWN_CALL(drv.ctx_synchronize, drv.ctx_synchronize(), cu.device_synchronize());
}

static int c_device_sync(void)
{
	int mode = relax();
	int rc = device_sync();
	unrelax(mode);
	return rc;
}

/* cudaStreamCaptureStatusNone, cudaErrorStreamCaptureImplicit */
#define CUDA_CAPTURE_STATUS_NONE 0
#define CUDA_ERROR_CAPTURE_IMPLICIT 906

void mp_cuda_capture_count(int delta)
{
	__atomic_add_fetch(&captures, delta, __ATOMIC_ACQ_REL);
}

int mp_cuda_captures(void)
{
	return __atomic_load_n(&captures, __ATOMIC_ACQUIRE);
}

/* s capturing, asked of CUDA: another thread's capture on another stream
 * makes no request of this one part of its graph (issue 30).  The legacy
 * stream (NULL, cudaStreamLegacy) answers cudaErrorStreamCaptureImplicit
 * while a blocking stream captures: an error taken back, or, when the
 * program has one pending, asked of the driver (cuStreamIsCapturing, no
 * last error), or without it not asked (then any capture the interposed
 * names saw counts).  A query failing for another
 * reason reads as not capturing. */
static int c_stream_capturing(void *s)
{
	if (!cu.stream_is_capturing)
		return mp_cuda_captures() > 0;
	int pending = err_pending(), status = CUDA_CAPTURE_STATUS_NONE;
	int rc;
	if (pending && drv.stream_is_capturing)
		rc = drv.stream_is_capturing(s, &status);
	else if (pending && (uintptr_t)s <= 1)
		return mp_cuda_captures() > 0;
	else
		rc = own(cu.stream_is_capturing(s, &status), pending);
	if (rc)
		return rc == CUDA_ERROR_CAPTURE_IMPLICIT;
	return status != CUDA_CAPTURE_STATUS_NONE;
}

static const char *c_error_string(int code)
{
	if (code == CUDA_ERROR_NOT_SUPPORTED)
		return "operation not supported by this CUDA runtime";
	return cu.get_error_string ? cu.get_error_string(code) : "CUDA error";
}

static const struct mp_backend cuda_backend = {
	.name = "cuda",
	.device_count = c_device_count,
	.get_device = c_get_device,
	.set_device = c_set_device,
	.alloc = c_alloc,
	.free = c_free,
	.host_alloc = c_host_alloc,
	.host_free = c_host_free,
	.stream_create = c_stream_create,
	.stream_destroy = c_stream_destroy,
	.event_create = c_event_create,
	.event_destroy = c_event_destroy,
	.event_record = c_event_record,
	.stream_wait = c_stream_wait,
	.event_query = c_event_query,
	.copy = c_copy,
	.stream_sync = c_stream_sync,
	.device_sync = c_device_sync,
	.stream_capturing = c_stream_capturing,
	.error_string = c_error_string,
};

const struct mp_backend *mp_backend_cuda(char *err, size_t errlen)
{
	pthread_once(&resolve_once, resolve);
	if (resolve_error[0]) {
		if (err && errlen)
			snprintf(err, errlen, "%s", resolve_error);
		return NULL;
	}
	return &cuda_backend;
}
