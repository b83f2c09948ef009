/* SPDX-License-Identifier: MIT */
/*
 * backend_cuda.c - the real side of capture_backend.h, inside the injection library:
 * stream and device ids from CUPTI, kernel parameter layouts from the driver
 * (cuFuncGetParamInfo / cuKernelGetParamInfo), the end of a capture (context
 * synchronization, forced activity flush, dropped records) and the
 * end-of-capture bandwidth measurement.
 *
 * No CUDA runtime call, ever: a failing one (cudaGetFuncBySymbol of a stub
 * that belongs to cuBLAS's or cuDNN's static cudart) becomes the program's
 * last error on that thread, which PyTorch's next launch check raises.  A
 * runtime stub's layout comes from the driver launch nested in its call.
 * Driver functions are looked up with dlsym, not linked: the driver that
 * loaded us is already in the process (dlopen(RTLD_NOLOAD) finds exactly
 * that instance), and the library must still load on a machine without a
 * driver (for its tests and nm checks).
 */
#define _GNU_SOURCE
#include "backend_cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cuda.h>
#include <cupti.h>

#include "translate.h"

typedef CUresult (*param_info_fn)(void *, size_t, size_t *, size_t *);

static struct {
	pthread_once_t once;
	void *cuda;
	param_info_fn func_params, kernel_params;
	CUresult (*ctx_get_current)(CUcontext *);
	CUresult (*ctx_set_current)(CUcontext);
	CUresult (*ctx_sync)(void);
	CUresult (*ctx_push)(CUcontext);
	CUresult (*ctx_pop)(CUcontext *);
	CUresult (*device_get_name)(char *, int, CUdevice);
	CUresult (*mem_alloc)(CUdeviceptr *, size_t);
	CUresult (*mem_free)(CUdeviceptr);
	CUresult (*mem_alloc_host)(void **, size_t);
	CUresult (*mem_free_host)(void *);
	CUresult (*htod)(CUdeviceptr, const void *, size_t, CUstream);
	CUresult (*dtoh)(void *, CUdeviceptr, size_t, CUstream);
	CUresult (*stream_create)(CUstream *, unsigned);
	CUresult (*stream_destroy)(CUstream);
	CUresult (*stream_sync)(CUstream);
	CUresult (*event_create)(CUevent *, unsigned);
	CUresult (*event_destroy)(CUevent);
	CUresult (*event_record)(CUevent, CUstream);
	CUresult (*event_sync)(CUevent);
	CUresult (*event_elapsed)(float *, CUevent, CUevent);
} drv = { .once = PTHREAD_ONCE_INIT };

/* dlsym into a function pointer of any type (object -> function pointer
 * through memcpy, as POSIX does). */
static void sym(void *h, const char *name, void *fnptr)
{
	void *p = h ? dlsym(h, name) : NULL;
	memcpy(fnptr, &p, sizeof(p));
}

static void load(void)
{
	drv.cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!drv.cuda)
		drv.cuda = dlopen("libcuda.so.1", RTLD_LAZY);
	sym(drv.cuda, "cuFuncGetParamInfo", &drv.func_params);
	sym(drv.cuda, "cuKernelGetParamInfo", &drv.kernel_params);
	sym(drv.cuda, "cuCtxGetCurrent", &drv.ctx_get_current);
	sym(drv.cuda, "cuCtxSetCurrent", &drv.ctx_set_current);
	sym(drv.cuda, "cuCtxSynchronize", &drv.ctx_sync);
	sym(drv.cuda, "cuCtxPushCurrent_v2", &drv.ctx_push);
	sym(drv.cuda, "cuCtxPopCurrent_v2", &drv.ctx_pop);
	sym(drv.cuda, "cuDeviceGetName", &drv.device_get_name);
	sym(drv.cuda, "cuMemAlloc_v2", &drv.mem_alloc);
	sym(drv.cuda, "cuMemFree_v2", &drv.mem_free);
	sym(drv.cuda, "cuMemAllocHost_v2", &drv.mem_alloc_host);
	sym(drv.cuda, "cuMemFreeHost", &drv.mem_free_host);
	sym(drv.cuda, "cuMemcpyHtoDAsync_v2", &drv.htod);
	sym(drv.cuda, "cuMemcpyDtoHAsync_v2", &drv.dtoh);
	sym(drv.cuda, "cuStreamCreate", &drv.stream_create);
	sym(drv.cuda, "cuStreamDestroy_v2", &drv.stream_destroy);
	sym(drv.cuda, "cuStreamSynchronize", &drv.stream_sync);
	sym(drv.cuda, "cuEventCreate", &drv.event_create);
	sym(drv.cuda, "cuEventDestroy_v2", &drv.event_destroy);
	sym(drv.cuda, "cuEventRecord", &drv.event_record);
	sym(drv.cuda, "cuEventSynchronize", &drv.event_sync);
	/* CUDA 12.8's _v2 (cuda.h maps the name to it), else the first */
	sym(drv.cuda, "cuEventElapsedTime_v2", &drv.event_elapsed);
	if (!drv.event_elapsed)
		sym(drv.cuda, "cuEventElapsedTime", &drv.event_elapsed);
}

static int64_t cuda_stream_id(void *ctx, void *stream, int per_thread)
{
	uint32_t id;
	if (cuptiGetStreamIdEx((CUcontext)ctx, (CUstream)stream, (uint8_t)per_thread,
			       &id) != CUPTI_SUCCESS)
		return -1;
	return id;
}

static int32_t cuda_device(void *ctx)
{
	uint32_t id;
	if (!ctx || cuptiGetDeviceId((CUcontext)ctx, &id) != CUPTI_SUCCESS)
		return 0;
	return (int32_t)id;
}

/* argscan_info_fn over cuFuncGetParamInfo / cuKernelGetParamInfo */
static int info_of(param_info_fn fn, const void *h, uint32_t i, uint32_t *off,
		   uint32_t *size)
{
	size_t o, sz;
	CUresult rc = fn((void *)(uintptr_t)h, i, &o, &sz);
	if (rc == CUDA_ERROR_INVALID_VALUE)
		return 1; /* past the last parameter */
	if (rc != CUDA_SUCCESS)
		return -1;
	*off = (uint32_t)o;
	*size = (uint32_t)sz;
	return 0;
}

static int func_info(const void *h, uint32_t i, uint32_t *off, uint32_t *size)
{
	return info_of(drv.func_params, h, i, off, size);
}

static int kernel_info(const void *h, uint32_t i, uint32_t *off, uint32_t *size)
{
	return info_of(drv.kernel_params, h, i, off, size);
}

static int cuda_params(int kind, const void *handle, struct argscan_param *out,
		       uint32_t cap, uint32_t *n)
{
	pthread_once(&drv.once, load);
	const void *h = handle;
	if (kind == BACKEND_RUNTIME_STUB)
		return -1; /* the nested driver launch tells (see the top) */
	argscan_info_fn fi = drv.func_params ? func_info : NULL;
	argscan_info_fn ki = drv.kernel_params ? kernel_info : NULL;
	/* a CUfunction that answers INVALID_VALUE at index 0 may be a CUkernel
	 * passed as one: ask that way before believing "no parameters" */
	if (kind == BACKEND_KERNEL)
		return argscan_read_layout(ki, NULL, h, out, cap, n);
	return argscan_read_layout(fi, ki, h, out, cap, n);
}

/* Waits for ctx's work with ctx pushed on this thread; the caller marks
 * the calls its own (translate_finish_gpu). */
static int cuda_sync(void *ctx)
{
	pthread_once(&drv.once, load);
	if (!ctx || !drv.ctx_push || !drv.ctx_pop || !drv.ctx_sync)
		return -1;
	if (drv.ctx_push((CUcontext)ctx) != CUDA_SUCCESS)
		return -1;
	int rc = drv.ctx_sync() == CUDA_SUCCESS ? 0 : -1;
	CUcontext popped;
	drv.ctx_pop(&popped);
	return rc;
}

static void cuda_flush(void)
{
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

static uint64_t cuda_dropped(void *ctx)
{
	size_t n = 0;
	if (cuptiActivityGetNumDroppedRecords((CUcontext)ctx, 0, &n) != CUPTI_SUCCESS)
		return 0;
	return n;
}

const struct capture_backend backend_cuda = {
	.stream_id = cuda_stream_id,
	.device = cuda_device,
	.params = cuda_params,
	.sync = cuda_sync,
	.flush = cuda_flush,
	.dropped = cuda_dropped,
};

void backend_cuda_init(void)
{
	pthread_once(&drv.once, load);
}

int backend_cuda_device_name(void *ctx, char *buf, size_t len)
{
	pthread_once(&drv.once, load);
	uint32_t dev;
	if (!drv.device_get_name || !ctx ||
	    cuptiGetDeviceId((CUcontext)ctx, &dev) != CUPTI_SUCCESS)
		return -1;
	translate_self_enter();
	int rc = drv.device_get_name(buf, (int)len, (CUdevice)dev) == CUDA_SUCCESS ? 0 : -1;
	translate_self_leave();
	return rc;
}

/* Copies reps times size bytes on stream st between events a and b;
 * bytes per second, or 0. */
static double timed_copies(int h2d, CUdeviceptr dev, void *host, size_t size,
			   int reps, CUstream st, CUevent a, CUevent b)
{
	if (drv.event_record(a, st) != CUDA_SUCCESS)
		return 0;
	for (int i = 0; i < reps; i++) {
		CUresult rc = h2d ? drv.htod(dev, host, size, st) : drv.dtoh(host, dev, size, st);
		if (rc != CUDA_SUCCESS)
			return 0;
	}
	float ms = 0;
	if (drv.event_record(b, st) != CUDA_SUCCESS || drv.event_sync(b) != CUDA_SUCCESS ||
	    drv.event_elapsed(&ms, a, b) != CUDA_SUCCESS || ms <= 0)
		return 0;
	return (double)size * reps / ((double)ms * 1e-3);
}

/*
 * Measured without disturbing the program: on a non-blocking stream of
 * our own (no implicit order with the program's streams, unlike the
 * legacy stream), timed by events on it, never a context-wide sync.
 */
int backend_cuda_bandwidth(void *ctx, double *h2d, double *d2h)
{
	pthread_once(&drv.once, load);
	if (!drv.mem_alloc || !drv.mem_alloc_host || !drv.htod || !drv.dtoh ||
	    !drv.ctx_set_current || !drv.ctx_get_current || !drv.stream_create ||
	    !drv.stream_destroy || !drv.stream_sync || !drv.event_create || !drv.event_destroy ||
	    !drv.event_record || !drv.event_sync || !drv.event_elapsed)
		return -1;
	translate_self_enter();
	const size_t size = 64u << 20;
	const int reps = 4;
	int rc = -1;
	CUcontext cur = NULL;
	void *host = NULL;
	CUdeviceptr dev = 0;
	CUstream st = NULL;
	CUevent a = NULL, b = NULL;
	drv.ctx_get_current(&cur);
	if (!cur && (!ctx || drv.ctx_set_current((CUcontext)ctx) != CUDA_SUCCESS))
		goto out;
	if (drv.stream_create(&st, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
	    drv.event_create(&a, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
	    drv.event_create(&b, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
	    drv.mem_alloc_host(&host, size) != CUDA_SUCCESS ||
	    drv.mem_alloc(&dev, size) != CUDA_SUCCESS)
		goto out;
	memset(host, 1, size);
	/* one untimed round trip first: page tables, clocks */
	if (timed_copies(1, dev, host, size, 1, st, a, b) <= 0 ||
	    timed_copies(0, dev, host, size, 1, st, a, b) <= 0)
		goto out;
	*h2d = timed_copies(1, dev, host, size, reps, st, a, b);
	*d2h = timed_copies(0, dev, host, size, reps, st, a, b);
	rc = *h2d > 0 && *d2h > 0 ? 0 : -1;
out:
	if (st)
		drv.stream_sync(st); /* nothing of ours still running */
	if (dev)
		drv.mem_free(dev);
	if (host)
		drv.mem_free_host(host);
	if (a)
		drv.event_destroy(a);
	if (b)
		drv.event_destroy(b);
	if (st)
		drv.stream_destroy(st);
	if (!cur && ctx)
		drv.ctx_set_current(NULL);
	translate_self_leave();
	return rc;
}
