/* SPDX-License-Identifier: MIT */
/*
 * runtime_backend.h - the one small contract through which the runtime reaches
 * device memory, streams, events and copies.  backend_host.c implements it
 * with host memory and synchronous copies; backend_cuda.c with the CUDA
 * runtime resolved at run time.  runtime.c never knows which one it runs on.
 *
 * Every call returns 0 or the backend's own error code (non-zero), which
 * error_string() turns into words.  Streams and events are opaque handles;
 * the NULL stream is the default stream.
 */
#ifndef MEMPLAN_RUNTIME_BACKEND_H
#define MEMPLAN_RUNTIME_BACKEND_H

#include <stddef.h>

/* Which real allocator a request came through; its memory goes back to the
 * same one. */
enum mp_mem {
	MP_MEM_RUNTIME = 0, /* cudaMalloc / cudaFree */
	MP_MEM_ASYNC = 1,   /* cudaMallocAsync / cudaFreeAsync (stream-ordered) */
	MP_MEM_DRIVER = 2,  /* cuMemAlloc_v2 / cuMemFree_v2 */
	/* ORed in for the runtime's own memory (the pool), where a failure
	 * is the runtime's business, not the program's: the backend leaves no
	 * error of it behind (the CUDA runtime's last error) */
	MP_MEM_OWN = 0x100,
	/* ORed in by a way in that makes the request itself (PyTorch's
	 * entry points): during a stream capture, cudaMalloc runs with the
	 * calling thread's capture mode relaxed for the call, as PyTorch's
	 * own allocator does, instead of failing and invalidating the
	 * capture */
	MP_MEM_RELAXED = 0x200,
};

enum mp_copy_dir { MP_COPY_D2H = 0, MP_COPY_H2D = 1 };

struct mp_backend {
	const char *name;
	int (*device_count)(int *n);
	int (*get_device)(int *dev);
	int (*set_device)(int dev);
	/* The real allocator: device memory of the current device.  Every
	 * other call is the runtime's own, and leaves no error behind where
	 * the backend keeps one (see MP_MEM_OWN). */
	int (*alloc)(void **p, size_t n, int mem, void *stream);
	int (*free)(void *p, int mem, void *stream);
	/* Pinned host memory (swap staging). */
	int (*host_alloc)(void **p, size_t n);
	int (*host_free)(void *p);
	/* A stream that does not synchronise with the default stream. */
	int (*stream_create)(void **s);
	int (*stream_destroy)(void *s);
	int (*event_create)(void **e); /* without timing */
	int (*event_destroy)(void *e);
	/* Captures the work enqueued on s so far. */
	int (*event_record)(void *e, void *s);
	/* Work enqueued on s later waits for e's latest capture (the capture at
	 * the time of this call: e may be recorded again right after). */
	int (*stream_wait)(void *s, void *e);
	/* 1 when the work e last captured has finished (or e was never
	 * recorded), 0 while it still runs; an error reads as 1.  Never
	 * blocks.  The runtime uses it for statistics only, never to order
	 * anything. */
	int (*event_query)(void *e);
	int (*copy)(void *dst, const void *src, size_t n, int dir, void *s);
	int (*stream_sync)(void *s);
	int (*device_sync)(void); /* the current device */
	/* 1 when work enqueued on s now would join a CUDA stream capture: s
	 * is capturing (or s is the legacy stream, NULL, and would join a
	 * blocking stream's capture).  0 otherwise, whatever other streams
	 * and threads capture: a request on a stream that does not capture
	 * is no part of any graph.  Leaves no error behind; never blocks. */
	int (*stream_capturing)(void *s);
	const char *(*error_string)(int code);
};

/* Host memory; streams exist only as handles, copies run at once. */
const struct mp_backend *mp_backend_host(void);

/*
 * For tests: from now on every copy of the host backend counts as running
 * copy_us microseconds after the copies before it end (the bytes still move
 * at once, so every ordering holds as before).  An event recorded after such
 * a copy reads as unfinished (event_query) until then, and a stream or
 * device sync sleeps until then.  0 (the default) turns it off.  Applies to
 * every runtime on the host backend in the process.
 */
void mp_backend_host_delay(unsigned copy_us);

/*
 * The CUDA runtime of the process: each function is looked up with
 * dlsym(RTLD_NEXT), then in a libcudart already loaded, then in the library
 * named by MEMPLAN_CUDART or the usual sonames.  Returns the backend, or NULL
 * with a sentence in err.  Thread-safe; resolved once.
 */
const struct mp_backend *mp_backend_cuda(char *err, size_t errlen);

/*
 * The real functions that the interposed names forward to, resolved like the
 * backend's (NULL when absent).  cuMemAlloc_v2's pointer is a CUdeviceptr.
 */
struct mp_cuda_real {
	int (*malloc)(void **p, size_t n);
	int (*free)(void *p);
	int (*malloc_async)(void **p, size_t n, void *stream);
	int (*free_async)(void *p, void *stream);
	int (*mem_alloc)(unsigned long long *p, size_t n);
	int (*mem_free)(unsigned long long p);
	/* cudaStreamBeginCapture(stream, mode), cudaStreamEndCapture(stream,
	 * &graph), their per-thread default stream names (_ptsz) and
	 * cudaStreamBeginCaptureToGraph(stream, graph, deps, edge data, n,
	 * mode) (CUDA 12.3) */
	int (*begin_capture)(void *stream, int mode);
	int (*end_capture)(void *stream, void **graph);
	int (*begin_capture_ptsz)(void *stream, int mode);
	int (*end_capture_ptsz)(void *stream, void **graph);
	int (*begin_to_graph)(void *stream, void *graph, const void *deps,
			      const void *edges, size_t n, int mode);
	int (*begin_to_graph_ptsz)(void *stream, void *graph, const void *deps,
				   const void *edges, size_t n, int mode);
};
const struct mp_cuda_real *mp_cuda_real(void);

/*
 * The process-wide count of stream captures under way, kept by the
 * interposed cudaStreamBeginCapture and cudaStreamEndCapture names
 * (interpose.c): mp_cuda_capture_count adds delta, mp_cuda_captures reads
 * it.  It decides no request (a request is captured when its own stream
 * captures); it keeps the device-wide calls (cudaFree's device sync) out
 * of every capture, and answers for the legacy stream when that stream
 * cannot be asked.
 */
void mp_cuda_capture_count(int delta);
int mp_cuda_captures(void);

#endif
