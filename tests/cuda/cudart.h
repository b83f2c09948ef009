/* SPDX-License-Identifier: MIT */
/*
 * cudart.h - the part of the CUDA runtime API that the test-only stand-in
 * (cudart.c, built as libcudart.so.12) implements, with the real ABI (error
 * codes are ints, streams and events pointers), and the stand-in's own
 * statistics.  Test programs include this instead of cuda_runtime_api.h, so
 * that they build and run on machines without CUDA.
 */
#ifndef MEMPLAN_TEST_CUDART_H
#define MEMPLAN_TEST_CUDART_H

#include <stddef.h>

typedef int cudaError_t;
typedef struct fakecuda_stream *cudaStream_t;
typedef struct fakecuda_event *cudaEvent_t;
typedef void (*cudaHostFn_t)(void *user);
typedef struct fakecuda_graph *cudaGraph_t;
typedef struct fakecuda_graph_exec *cudaGraphExec_t;

enum {
	cudaSuccess = 0,
	cudaErrorInvalidValue = 1,
	cudaErrorMemoryAllocation = 2,
	cudaErrorInvalidDeviceFunction = 98,
	cudaErrorInvalidDevice = 101,
	cudaErrorIllegalState = 401,
	cudaErrorNotReady = 600,
	cudaErrorNotSupported = 801,
	cudaErrorStreamCaptureUnsupported = 900,
	cudaErrorStreamCaptureInvalidated = 901,
	cudaErrorStreamCaptureMerge = 902,
	cudaErrorStreamCaptureUnmatched = 903,
	cudaErrorStreamCaptureUnjoined = 904,
	cudaErrorStreamCaptureIsolation = 905,
	cudaErrorStreamCaptureImplicit = 906,
	cudaErrorCapturedEvent = 907,
	cudaErrorStreamCaptureWrongThread = 908,
};
enum cudaStreamCaptureStatus {
	cudaStreamCaptureStatusNone = 0,
	cudaStreamCaptureStatusActive = 1,
	cudaStreamCaptureStatusInvalidated = 2,
};
enum cudaStreamCaptureMode {
	cudaStreamCaptureModeGlobal = 0,
	cudaStreamCaptureModeThreadLocal = 1,
	cudaStreamCaptureModeRelaxed = 2,
};
enum cudaMemcpyKind {
	cudaMemcpyHostToHost = 0,
	cudaMemcpyHostToDevice = 1,
	cudaMemcpyDeviceToHost = 2,
	cudaMemcpyDeviceToDevice = 3,
	cudaMemcpyDefault = 4,
};
#define cudaStreamNonBlocking 0x1u
#define cudaEventDisableTiming 0x2u

cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaFree(void *p);
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s);
cudaError_t cudaFreeAsync(void *p, cudaStream_t s);
cudaError_t cudaMallocHost(void **p, size_t n);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaGetDevice(int *d);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n,
			    enum cudaMemcpyKind kind, cudaStream_t s);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n,
		       enum cudaMemcpyKind kind);
cudaError_t cudaMemsetAsync(void *p, int value, size_t n, cudaStream_t s);
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *user);
typedef struct {
	unsigned x, y, z;
} dim3;
/* A kernel that runs nothing; reported to the stand-in CUPTI when loaded. */
cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
			     size_t shared, cudaStream_t s);
cudaError_t cudaGetFuncBySymbol(void **func, const void *symbol);
/* Waits for every stream (the stand-in CUPTI's cuCtxSynchronize). */
void fakecuda_sync_all(void);
const char *cudaGetErrorString(cudaError_t e);
/* stream capture and graphs (CUDA 13's signatures; the graph node and edge
 * types of cudaStreamGetCaptureInfo are opaque here, and always empty) */
cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *status);
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s,
				     enum cudaStreamCaptureStatus *status,
				     unsigned long long *id, cudaGraph_t *graph,
				     const void **deps, const void **edge_data,
				     size_t *ndeps);
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
				 unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
/* the calling thread's last error: taken (and cleared), or only read */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
/* the driver's, for cuMemAlloc_v2 interposition and the runtime's event
 * queries (these leave no last error behind) */
int cuMemAlloc_v2(unsigned long long *p, size_t n);
int cuMemFree_v2(unsigned long long p);
int cuEventQuery(cudaEvent_t e);
/* the driver's names of the runtime's own calls, which leave no last error
 * (libmemplan's while the program has one pending) */
int cuMemAllocHost_v2(void **p, size_t n);
int cuMemFreeHost(void *p);
int cuStreamCreate(cudaStream_t *s, unsigned flags);
int cuStreamDestroy_v2(cudaStream_t s);
int cuEventCreate(cudaEvent_t *e, unsigned flags);
int cuEventDestroy_v2(cudaEvent_t e);
int cuEventRecord(cudaEvent_t e, cudaStream_t s);
int cuStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags);
int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src, size_t n,
			 cudaStream_t s);
int cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t n,
			 cudaStream_t s);
int cuStreamSynchronize(cudaStream_t s);
int cuCtxSynchronize(void);
int cuStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *status);

/* The stand-in's own figures (not CUDA). */
struct fakecuda_stats {
	unsigned long long allocs;     /* cudaMalloc & co. that succeeded */
	unsigned long long frees;
	unsigned long long bad_frees;  /* frees of pointers it did not hand out */
	unsigned long long live_bytes, peak_bytes;
	unsigned long long ops;        /* stream operations executed */
	unsigned long long invalidated; /* captures a forbidden call invalidated */
	unsigned long long device_syncs[4]; /* cudaDeviceSynchronize per device */
};
void fakecuda_get_stats(struct fakecuda_stats *s);

#endif
