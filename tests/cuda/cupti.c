/* SPDX-License-Identifier: MIT */
/*
 * cupti.c - a test-only stand-in for libcupti.so.13, and for the few driver
 * calls libmemplan-capture.so asks of libcuda.so.1 (the same file under
 * both names), so that memplan-capture records tests/cuda/app through the
 * real injection library on a machine without a GPU.
 *
 * The stand-in libcudart (cudart.c) loads this library RTLD_GLOBAL when
 * FAKECUDA_CUPTI names it and CUDA_INJECTION64_PATH names an injection
 * library, then calls that library's InitializeInjection as cuInit does;
 * its allocation calls and launches report through fakecupti_*() here,
 * which builds CUpti_CallbackData with CUDA 13's params structs (a launch
 * is the runtime call with the driver's cuLaunchKernel nested in it) and
 * queues activity records: kernel times, allocations with their source
 * (the object that called, as CUPTI's allocation source names it).
 * FAKECUPTI_CUDA13_LAUNCH=1 reports launches as __cudaLaunchKernel with
 * NULL params, as CUPTI 13.0 does for the <<<>>> path.  FAKECUPTI_BARE_SOURCE=1
 * names sources by their file name alone (no directory).
 * Kernels have one parameter, 8 bytes at offset 0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h>
#include <cupti.h>

#define EXPORT __attribute__((visibility("default")))

/* the one context and device */
static int the_context;
#define CTX ((CUcontext)(void *)&the_context)

union record {
	CUpti_Activity a;
	CUpti_ActivityKernel10 k;
	CUpti_ActivityMemory4 m;
};

static struct {
	pthread_mutex_t mu;
	CUpti_CallbackFunc cb;
	void *ud;
	int subscribed;
	uint8_t rt_on[CUPTI_RUNTIME_TRACE_CBID_SIZE];
	uint8_t drv_on[CUPTI_DRIVER_TRACE_CBID_SIZE];
	uint8_t domain_on[CUPTI_CB_DOMAIN_SIZE];
	uint8_t created;
	CUpti_BuffersCallbackRequestFunc request;
	CUpti_BuffersCallbackCompleteFunc complete;
	uint8_t kind_on[64];
	union record *q;
	size_t nq, capq;
} s = { .mu = PTHREAD_MUTEX_INITIALIZER };

static _Atomic uint32_t next_corr = 1;

static int enabled(CUpti_CallbackDomain d, CUpti_CallbackId id)
{
	if (!s.subscribed || d <= 0 || d >= CUPTI_CB_DOMAIN_SIZE)
		return 0;
	if (s.domain_on[d])
		return 1;
	if (d == CUPTI_CB_DOMAIN_RUNTIME_API)
		return id < CUPTI_RUNTIME_TRACE_CBID_SIZE && s.rt_on[id];
	if (d == CUPTI_CB_DOMAIN_DRIVER_API)
		return id < CUPTI_DRIVER_TRACE_CBID_SIZE && s.drv_on[id];
	return 0;
}

static void queue(const union record *r)
{
	pthread_mutex_lock(&s.mu);
	if (s.kind_on[r->a.kind & 63]) {
		if (s.nq == s.capq) {
			size_t n = s.capq ? s.capq * 2 : 256;
			union record *q = realloc(s.q, n * sizeof(*q));
			if (!q) {
				pthread_mutex_unlock(&s.mu);
				return;
			}
			s.q = q;
			s.capq = n;
		}
		s.q[s.nq++] = *r;
	}
	pthread_mutex_unlock(&s.mu);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The first call of the program: the context is created. */
static void context_created(void)
{
	pthread_mutex_lock(&s.mu);
	int first = !s.created && s.subscribed;
	if (first)
		s.created = 1;
	pthread_mutex_unlock(&s.mu);
	if (!first || !enabled(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED))
		return;
	CUpti_ResourceData rd;
	memset(&rd, 0, sizeof(rd));
	rd.context = CTX;
	s.cb(s.ud, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &rd);
}

/* One callback: site 1 enter, 0 exit. */
static void api(CUpti_CallbackDomain d, CUpti_CallbackId id, int enter,
		const char *fn, const char *sym, const void *params,
		const int *rc, uint32_t corr)
{
	context_created();
	if (!enabled(d, id))
		return;
	CUpti_CallbackData cb;
	memset(&cb, 0, sizeof(cb));
	cb.callbackSite = enter ? CUPTI_API_ENTER : CUPTI_API_EXIT;
	cb.functionName = fn;
	cb.symbolName = sym;
	cb.functionParams = params;
	cb.functionReturnValue = enter ? NULL : (void *)(uintptr_t)rc;
	cb.correlationId = corr;
	cb.context = CTX;
	s.cb(s.ud, d, id, &cb);
}

static const char *source_of(const void *caller)
{
	Dl_info in;
	if (!caller || !dladdr(caller, &in) || !in.dli_fname)
		return NULL;
	const char *n = in.dli_fname;
	const char *bare = getenv("FAKECUPTI_BARE_SOURCE");
	if (bare && *bare == '1' && strrchr(n, '/'))
		n = strrchr(n, '/') + 1;
	return n;
}

/* --- what the stand-in libcudart reports ------------------------------- */

enum { FC_MALLOC, FC_MALLOC_HOST, FC_MALLOC_ASYNC, FC_MEM_ALLOC };

/* An allocation call: enter (rc ignored) and exit with its result; caller
 * is an address in the object that called (the allocation's source). */
EXPORT uint32_t fakecupti_alloc(int api_kind, int enter, void **p, size_t n,
				void *stream, int rc, const void *caller,
				uint32_t corr);
EXPORT uint32_t fakecupti_alloc(int api_kind, int enter, void **p, size_t n,
				void *stream, int rc, const void *caller,
				uint32_t corr)
{
	if (enter)
		corr = atomic_fetch_add(&next_corr, 1);
	switch (api_kind) {
	case FC_MALLOC: {
		cudaMalloc_v3020_params pp = { p, n };
		api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
		    enter, "cudaMalloc", NULL, &pp, &rc, corr);
		break;
	}
	case FC_MALLOC_HOST: {
		cudaMallocHost_v3020_params pp = { p, n };
		api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020,
		    enter, "cudaMallocHost", NULL, &pp, &rc, corr);
		break;
	}
	case FC_MALLOC_ASYNC: {
		cudaMallocAsync_v11020_params pp = { p, n, (cudaStream_t)stream };
		api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
		    enter, "cudaMallocAsync", NULL, &pp, &rc, corr);
		break;
	}
	default: {
		cuMemAlloc_v2_params pp = { (CUdeviceptr *)(void *)p, n };
		api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
		    enter, "cuMemAlloc_v2", NULL, &pp, &rc, corr);
		break;
	}
	}
	if (!enter && rc == 0 && p && *p) {
		union record r;
		memset(&r, 0, sizeof(r));
		r.m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
		r.m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
		r.m.memoryKind = api_kind == FC_MALLOC_HOST ? CUPTI_ACTIVITY_MEMORY_KIND_PINNED
							    : CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
		r.m.correlationId = corr;
		r.m.address = (uint64_t)(uintptr_t)*p;
		r.m.bytes = n;
		r.m.timestamp = now_ns();
		r.m.source = source_of(caller);
		queue(&r);
	}
	return corr;
}

enum { FC_FREE, FC_FREE_HOST, FC_FREE_ASYNC, FC_MEM_FREE };

EXPORT void fakecupti_free(int api_kind, void *p, void *stream);
EXPORT void fakecupti_free(int api_kind, void *p, void *stream)
{
	uint32_t corr = atomic_fetch_add(&next_corr, 1);
	int rc = 0;
	for (int enter = 1; enter >= 0; enter--) {
		switch (api_kind) {
		case FC_FREE: {
			cudaFree_v3020_params pp = { p };
			api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
			    enter, "cudaFree", NULL, &pp, &rc, corr);
			break;
		}
		case FC_FREE_HOST: {
			cudaFreeHost_v3020_params pp = { p };
			api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020,
			    enter, "cudaFreeHost", NULL, &pp, &rc, corr);
			break;
		}
		case FC_FREE_ASYNC: {
			cudaFreeAsync_v11020_params pp = { p, (cudaStream_t)stream };
			api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020,
			    enter, "cudaFreeAsync", NULL, &pp, &rc, corr);
			break;
		}
		default: {
			cuMemFree_v2_params pp = { (CUdeviceptr)(uintptr_t)p };
			api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
			    enter, "cuMemFree_v2", NULL, &pp, &rc, corr);
			break;
		}
		}
	}
}

/* A runtime launch of the host stub func (named name) with args, on
 * stream: the runtime callback with the driver's launch nested in it, and
 * a kernel record timed now. */
EXPORT void fakecupti_launch(const void *func, const char *name, void **args,
			     void *stream);
EXPORT void fakecupti_launch(const void *func, const char *name, void **args,
			     void *stream)
{
	uint32_t rcorr = atomic_fetch_add(&next_corr, 1);
	uint32_t dcorr = atomic_fetch_add(&next_corr, 1);
	const char *v = getenv("FAKECUPTI_CUDA13_LAUNCH");
	int cuda13 = v && *v == '1';
	int rc = 0;
	cudaLaunchKernel_v7000_params rp;
	memset(&rp, 0, sizeof(rp));
	rp.func = func;
	rp.args = args;
	rp.stream = (cudaStream_t)stream;
	CUpti_CallbackId rid = cuda13 ? CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000
				      : CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
	const char *rfn = cuda13 ? "__cudaLaunchKernel" : "cudaLaunchKernel";
	const void *rpp = cuda13 ? NULL : &rp;
	cuLaunchKernel_params dp;
	memset(&dp, 0, sizeof(dp));
	/* the CUfunction of a stub: any handle other than the stub's own */
	dp.f = (CUfunction)(uintptr_t)((uintptr_t)func ^ 0x1000);
	dp.kernelParams = args;
	dp.hStream = (CUstream)stream;
	api(CUPTI_CB_DOMAIN_RUNTIME_API, rid, 1, rfn, name, rpp, &rc, rcorr);
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 1,
	    "cuLaunchKernel", name, &dp, &rc, dcorr);
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 0,
	    "cuLaunchKernel", name, &dp, &rc, dcorr);
	api(CUPTI_CB_DOMAIN_RUNTIME_API, rid, 0, rfn, name, rpp, &rc, rcorr);
	union record r;
	memset(&r, 0, sizeof(r));
	r.k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	r.k.correlationId = cuda13 ? dcorr : rcorr;
	r.k.start = now_ns();
	r.k.end = r.k.start + 2000;
	r.k.name = name;
	queue(&r);
}

/* --- CUPTI --------------------------------------------------------------- */

EXPORT CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *sub,
					   CUpti_CallbackFunc cb, void *ud)
{
	pthread_mutex_lock(&s.mu);
	if (s.subscribed) {
		pthread_mutex_unlock(&s.mu);
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	s.subscribed = 1;
	s.cb = cb;
	s.ud = ud;
	*sub = (CUpti_SubscriberHandle)(void *)&s;
	pthread_mutex_unlock(&s.mu);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle sub)
{
	(void)sub;
	pthread_mutex_lock(&s.mu);
	s.subscribed = 0;
	pthread_mutex_unlock(&s.mu);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle sub,
						CUpti_CallbackDomain d, CUpti_CallbackId id)
{
	(void)sub;
	if (d == CUPTI_CB_DOMAIN_RUNTIME_API && id < CUPTI_RUNTIME_TRACE_CBID_SIZE)
		s.rt_on[id] = (uint8_t)enable;
	else if (d == CUPTI_CB_DOMAIN_DRIVER_API && id < CUPTI_DRIVER_TRACE_CBID_SIZE)
		s.drv_on[id] = (uint8_t)enable;
	else if (d == CUPTI_CB_DOMAIN_RESOURCE)
		s.domain_on[d] = (uint8_t)enable; /* the one id the library asks */
	else if (d <= 0 || d >= CUPTI_CB_DOMAIN_SIZE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle sub,
					      CUpti_CallbackDomain d)
{
	(void)sub;
	if (d <= 0 || d >= CUPTI_CB_DOMAIN_SIZE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	s.domain_on[d] = (uint8_t)enable;
	if (!enable && d == CUPTI_CB_DOMAIN_RUNTIME_API)
		memset(s.rt_on, 0, sizeof(s.rt_on));
	if (!enable && d == CUPTI_CB_DOMAIN_DRIVER_API)
		memset(s.drv_on, 0, sizeof(s.drv_on));
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc rq,
							   CUpti_BuffersCallbackCompleteFunc co)
{
	s.request = rq;
	s.complete = co;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind k)
{
	s.kind_on[k & 63] = 1;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind k)
{
	s.kind_on[k & 63] = 0;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityEnableAllocationSource(uint8_t enable)
{
	(void)enable;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityFlushPeriod(uint32_t t)
{
	(void)t;
	return CUPTI_SUCCESS;
}

/* Hands every queued record over, in buffers the library gives. */
EXPORT CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
	(void)flag;
	for (;;) {
		pthread_mutex_lock(&s.mu);
		size_t n = s.nq;
		union record *q = s.q;
		s.q = NULL;
		s.nq = s.capq = 0;
		pthread_mutex_unlock(&s.mu);
		if (!n) {
			free(q);
			return CUPTI_SUCCESS;
		}
		for (size_t i = 0; i < n && s.request && s.complete;) {
			uint8_t *buf = NULL;
			size_t size = 0, maxr = 0;
			s.request(&buf, &size, &maxr);
			if (!buf || size < sizeof(union record))
				break;
			size_t k = 0;
			while (i < n && (k + 1) * sizeof(union record) <= size)
				memcpy(buf + k++ * sizeof(union record), &q[i++], sizeof(union record));
			s.complete(CTX, 0, buf, size, k * sizeof(union record));
		}
		free(q);
	}
}

EXPORT CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buf, size_t valid,
						       CUpti_Activity **rec)
{
	uint8_t *next = *rec ? (uint8_t *)*rec + sizeof(union record) : buf;
	if (next + sizeof(union record) > buf + valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*rec = (CUpti_Activity *)(void *)next;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t sid,
							      size_t *dropped)
{
	(void)c;
	(void)sid;
	*dropped = 0;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext c, CUstream st, uint8_t ptsz,
					       uint32_t *id)
{
	(void)c;
	/* the legacy stream 7 (as CUDA numbers it), per-thread 8, others
	 * from their handle */
	*id = ptsz || (uintptr_t)st == 2 ? 8
	      : (uintptr_t)st <= 1       ? 7
					 : (uint32_t)(((uintptr_t)st >> 4) & 0xffffff) + 16;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext c, uint32_t *dev)
{
	if (c != CTX)
		return CUPTI_ERROR_INVALID_CONTEXT;
	*dev = 0;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult r, const char **str)
{
	*str = r == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "stand-in CUPTI error";
	return CUPTI_SUCCESS;
}

EXPORT int InitializeInjectionNvtx2(const void *(*get_export_table)(uint32_t));
EXPORT int InitializeInjectionNvtx2(const void *(*get_export_table)(uint32_t))
{
	(void)get_export_table;
	return 1;
}

/* --- the driver, as libcuda.so.1 ------------------------------------------ */

static CUresult param_info(const void *f, size_t i, size_t *off, size_t *size)
{
	(void)f;
	if (i > 0)
		return CUDA_ERROR_INVALID_VALUE;
	*off = 0;
	*size = 8;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *off, size_t *size)
{
	return param_info(f, i, off, size);
}

EXPORT CUresult cuKernelGetParamInfo(CUkernel k, size_t i, size_t *off, size_t *size)
{
	return param_info(k, i, off, size);
}

static _Thread_local CUcontext current = CTX;

EXPORT CUresult cuCtxGetCurrent(CUcontext *c)
{
	*c = current;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext c)
{
	current = c;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxPushCurrent_v2(CUcontext c)
{
	return c == CTX ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *c)
{
	if (c)
		*c = CTX;
	return CUDA_SUCCESS;
}

/* Waits for the program's stand-in streams, without leaving a runtime
 * error (the driver never does). */
EXPORT CUresult cuCtxSynchronize(void)
{
	void *p = dlsym(RTLD_DEFAULT, "fakecuda_sync_all");
	void (*fn)(void);
	memcpy(&fn, &p, sizeof(p));
	if (fn)
		fn();
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	(void)dev;
	if (!name || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	strncpy(name, "stand-in GPU (tests/cuda)", (size_t)len - 1);
	name[len - 1] = '\0';
	return CUDA_SUCCESS;
}

/* The bandwidth measurement's calls: host memory, copies at once, events
 * that take the time they are recorded at. */
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	void *q = malloc(n);
	*p = (CUdeviceptr)(uintptr_t)q;
	return q ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
	free((void *)(uintptr_t)p);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAllocHost_v2(void **p, size_t n)
{
	*p = malloc(n);
	return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult cuMemFreeHost(void *p)
{
	free(p);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, CUstream s)
{
	(void)s;
	memcpy((void *)(uintptr_t)d, h, n);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, CUstream s)
{
	(void)s;
	memcpy(h, (const void *)(uintptr_t)d, n);
	return CUDA_SUCCESS;
}

static int a_stream;

EXPORT CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
	(void)flags;
	*s = (CUstream)(void *)&a_stream;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamDestroy_v2(CUstream s)
{
	(void)s;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamSynchronize(CUstream s)
{
	(void)s;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuEventCreate(CUevent *e, unsigned flags)
{
	(void)flags;
	*e = (CUevent)calloc(1, sizeof(uint64_t));
	return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult cuEventDestroy_v2(CUevent e)
{
	free(e);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuEventRecord(CUevent e, CUstream s)
{
	(void)s;
	*(uint64_t *)(void *)e = now_ns();
	return CUDA_SUCCESS;
}

EXPORT CUresult cuEventSynchronize(CUevent e)
{
	(void)e;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	*ms = (float)((double)(*(uint64_t *)(void *)b - *(uint64_t *)(void *)a) * 1e-6);
	return CUDA_SUCCESS;
}
