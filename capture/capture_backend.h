/* SPDX-License-Identifier: MIT */
/*
 * capture_backend.h - the one small contract between the capture's translation of
 * CUPTI callbacks and CUDA itself: stream ids, devices and kernel parameter
 * layouts.  backend_cuda.c asks the driver and CUPTI, never the CUDA runtime
 * (its errors stay on the program's thread); backend_host.c answers from tables the tests fill, so the
 * translation above never knows which one it runs on.
 */
#ifndef MEMPLAN_CAPTURE_BACKEND_H
#define MEMPLAN_CAPTURE_BACKEND_H

#include <stdint.h>

#include "argscan.h"

enum backend_handle {
	BACKEND_RUNTIME_STUB = 0, /* host stub of a __global__ (cudaLaunchKernel) */
	BACKEND_FUNCTION = 1,     /* CUfunction */
	BACKEND_KERNEL = 2,       /* CUkernel / cudaKernel_t */
};

/* Most parameters of one kernel we look at (CUDA allows 32764 bytes of
 * parameters; more than 512 parameters count as truncated). */
#define BACKEND_MAX_PARAMS 512

struct capture_backend {
	/* The trace's stream id for (context, stream handle); -1 unknown. */
	int64_t (*stream_id)(void *ctx, void *stream, int per_thread);
	/* Device ordinal of a context (NULL: current); 0 if unknown. */
	int32_t (*device)(void *ctx);
	/*
	 * Fills out[0..*n) with the parameter offsets and sizes of a kernel
	 * handle of the given kind; returns 0, or -1 when it cannot tell.
	 * Called once per kernel (translate.c caches the answer).
	 */
	int (*params)(int kind, const void *handle, struct argscan_param *out,
		      uint32_t cap, uint32_t *n);
	/*
	 * Waits until the GPU has finished all work of context ctx, so that
	 * every activity record of it is complete.  0, or -1 when it cannot
	 * (CUDA shut down, no driver).  Called off the callbacks, at the end.
	 */
	int (*sync)(void *ctx);
	/* Delivers every activity record held, complete or not, to the
	 * activity handler (forced flush: records of unfinished work come
	 * with start = end = 0 and are gone after it). */
	void (*flush)(void);
	/* Activity records dropped for want of buffer space since the last
	 * call (ctx NULL: the global queue). */
	uint64_t (*dropped)(void *ctx);
};

/* The host implementation, for tests and benchmarks. */
extern const struct capture_backend backend_host;
/* Registers a layout the host backend reports for (kind, handle). */
int backend_host_set_params(int kind, const void *handle,
			    const struct argscan_param *p, uint32_t n);
/*
 * Host model of the GPU's activity records: work submitted with the record
 * it gives once finished (done) and the one a flush gives before that
 * (running: CUPTI's start = end = 0), both size bytes, copied.  sync(ctx)
 * finishes the work of ctx; flush() hands each record to sink(arg, rec)
 * and forgets it.  0, or -1 when out of memory.
 */
int backend_host_submit(void *ctx, const void *running, const void *done,
			size_t size);
void backend_host_set_sink(void (*sink)(void *arg, const void *rec), void *arg);
/* What dropped() reports next (then 0), and how often sync(ctx) ran. */
void backend_host_set_dropped(uint64_t n);
unsigned backend_host_syncs(void *ctx);
/* Forgets every registered layout, submitted record and count. */
void backend_host_reset(void);

#endif
