/* SPDX-License-Identifier: MIT */
/*
 * memplan.h - the public API of libmemplan, the runtime that follows a plan
 * (memplan-plan(5)) in production.  The only installed header; everything
 * else in the library is hidden.  Documented in libmemplan(3).
 *
 * Three ways in: LD_PRELOAD (the library interposes cudaMalloc, cudaFree,
 * cudaMallocAsync, cudaFreeAsync, cuMemAlloc_v2 and cuMemFree_v2, watches
 * cudaStreamBeginCapture and cudaStreamEndCapture, and reads MEMPLAN_*
 * variables), PyTorch's CUDAPluggableAllocator (mp_torch_alloc,
 * mp_torch_free, mp_torch_record_stream), and the C API below for programs
 * that manage their memory.  A request on a stream that is capturing a
 * CUDA graph goes to the real allocator, with no call of the runtime's own.
 *
 * Promise: a runtime never ends a program that keeps to its trace; when a
 * divergence leaves a state it cannot make safe (a swapped-out buffer's
 * bytes under a live buffer), it stops the program there, before a use can
 * read wrong bytes, saying why (on_unsafe; MEMPLAN_ON_UNSAFE=warn goes on
 * instead, when asked).  When
 * the requests stop matching the plan it serves them from the real allocator
 * until the next iteration that matches; when a plan cannot be used the
 * LD_PRELOAD and PyTorch ways in run on the real allocator alone.
 */
#ifndef MEMPLAN_H
#define MEMPLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MP_API __attribute__((visibility("default")))
#else
#define MP_API
#endif

#define MEMPLAN_RUNTIME_VERSION "0.1.0"

/* One plan followed on one device: its pool, its clock, its statistics. */
typedef struct mp_runtime mp_runtime;

/* Where the memory comes from. */
enum mp_backend_kind {
	MP_BACKEND_CUDA = 0, /* the CUDA runtime found at run time (dlsym) */
	MP_BACKEND_HOST = 1, /* host memory, synchronous copies: tests, replay */
};

/* What a runtime does when a divergence leaves a swapped-out buffer's bytes
 * to a live buffer placed over them (libmemplan(3), Divergence): a use of
 * the swapped-out buffer before that buffer's free reads wrong bytes. */
enum mp_on_unsafe {
	MP_ON_UNSAFE_WARN = 0,  /* say so (once) and go on: only when asked */
	MP_ON_UNSAFE_ABORT = 1, /* say so and abort() the process, at once
				   (mp_options_init's default) */
};

/* How a runtime behaves; mp_options_init() gives the defaults. */
struct mp_options {
	int backend;    /* enum mp_backend_kind; default MP_BACKEND_CUDA */
	int device;     /* device of the pool; -1 (default): the plan's, else
			   the current one */
	unsigned match; /* alloc requests that must match the start of the
			   plan before an iteration is recognised automatically
			   (they are served by the real allocator); 0: 8 */
	int verbose;    /* -1 silent, 0 (default) one warning per kind of
			   problem, 1 every divergence, 2 every iteration */
	int explicit_iterations; /* 1: boundaries come from the calls below
				    alone, from the start (default 0) */
	int on_unsafe;  /* enum mp_on_unsafe; default MP_ON_UNSAFE_ABORT;
			   also: a plan compiled with --trust-holes is
			   refused by mp_open (abort) or followed (warn) */
};

/* Sets o to the defaults above. */
MP_API void mp_options_init(struct mp_options *o);

/*
 * Opens the plan file at path and takes its pool (one allocation of the
 * plan's pool size on its device) and, when the plan swaps, the pinned host
 * staging, a copy stream and its events.  Returns the runtime, or NULL with
 * a sentence in err (a missing, corrupted or foreign plan; a plan for a
 * device this machine lacks; no CUDA runtime; out of memory taking the pool).
 * opt may be NULL for the defaults.
 */
MP_API mp_runtime *mp_open(const char *path, const struct mp_options *opt,
			   char *err, size_t errlen);

/* Gives the pool back and frees the runtime.  Pointers it served from the
 * pool must not be used afterwards; rt may be NULL. */
MP_API void mp_close(mp_runtime *rt);

/*
 * Iteration boundaries.  Without these calls a runtime recognises the start
 * of an iteration itself, from the sizes of its first requests.  After the
 * first mp_iteration_begin() it relies on the calls alone: requests between
 * an end and the next begin go to the real allocator.  mp_iteration_end()
 * returns 1 when the iteration followed the plan to its last request, 0
 * otherwise (a divergence, or the iteration ended early: counted as one).
 */
MP_API void mp_iteration_begin(mp_runtime *rt);
MP_API int mp_iteration_end(mp_runtime *rt);

/*
 * Workloads taking turns (a plan compiled with memplan-plan compile
 * --cycle: train then evaluate, a GAN's two steps, models served in turn)
 * share one pool; each workload's iteration follows its part of the plan,
 * and the pool is empty between two.  mp_iteration_begin() begins the
 * workload the cycle has next (the one after the last begun, 0 first);
 * mp_workload_begin() names it (0-based, in the order of the traces given
 * to compile), and returns 0, or -1 when the plan has no such workload (the
 * iteration then goes to the real allocator).  Recognised iterations start
 * at the first requests of any workload, the cycle's next one tried first.
 * A plan without a cycle has one workload.
 */
MP_API int mp_workload_begin(mp_runtime *rt, unsigned workload);
MP_API unsigned mp_workload_count(const mp_runtime *rt);

/*
 * Serves a request of size bytes to be used on stream (a cudaStream_t, NULL
 * for the default stream; ignored by the host backend): the pool offset the
 * plan gives this request when it matches, else the real allocator.  Returns
 * NULL only when the real allocator fails.  Thread-safe.
 */
MP_API void *mp_alloc(mp_runtime *rt, size_t size, void *stream);

/* Frees ptr, stream-ordered on stream.  A pointer the runtime did not serve
 * from its pool goes to the real allocator.  NULL is ignored. */
MP_API void mp_free(mp_runtime *rt, void *ptr, void *stream);

/* 1 if ptr lies in rt's pool. */
MP_API int mp_owns(const mp_runtime *rt, const void *ptr);

/* The pool's first byte and size (NULL, 0 before it is taken). */
MP_API void *mp_pool(const mp_runtime *rt, size_t *size);

/*
 * The statistics, defined once: X(name, description); new ones go last,
 * so that a program built with an older header reads the ones it knows.
 * Counts since the
 * runtime was opened; bytes are requested sizes.  The late counts come from
 * non-blocking event queries at the moment named (the copy may end a
 * microsecond later): they say where the program may have stalled, never
 * that data was wrong.
 */
#define MP_STATS(X)                                                          \
	X(pool_bytes, "bytes of the pool")                                   \
	X(planned_allocs, "requests served from the pool as planned")        \
	X(planned_bytes, "bytes served from the pool")                       \
	X(pass_through, "requests the plan sends to the real allocator")     \
	X(fallback_allocs, "requests served by the real allocator outside a followed iteration") \
	X(real_bytes, "bytes served by the real allocator")                  \
	X(pool_frees, "frees of pool pointers")                              \
	X(real_frees, "frees handed to the real allocator")                  \
	X(iterations, "iterations followed from their first request")        \
	X(completed, "iterations followed to their last request")            \
	X(skipped, "iterations recognised but served by the real allocator (pool still in use)") \
	X(divergences, "iterations that stopped matching the plan")          \
	X(swaps_out, "swap-outs issued")                                     \
	X(swaps_in, "swap-ins issued")                                       \
	X(swap_bytes_out, "bytes copied to host staging by swap-outs")       \
	X(swap_bytes_in, "bytes copied back by swap-ins")                    \
	X(swapout_late, "buffers placed over a swapped-out one while its copy-out still ran") \
	X(swapin_late, "swap-ins still copying at the request after their trigger") \
	X(sync_swapins, "swap-ins issued on a divergence, waited for by the host") \
	X(stream_waits, "stream waits on events the runtime inserted")        \
	X(captured, "requests made during a CUDA stream capture, passed to the real allocator") \
	X(capture_kept, "frees during a stream capture kept from reuse (the graph may use the memory)") \
	X(out_of_order, "iterations followed of a workload other than the one the cycle had next")

#define MP_STATS_FIELD(name, desc) uint64_t name;
struct mp_stats {
	MP_STATS(MP_STATS_FIELD)
};
#undef MP_STATS_FIELD

/* A snapshot of rt's statistics (consistent: taken under its lock). */
MP_API void mp_stats_get(mp_runtime *rt, struct mp_stats *out);
/* Adds b's counts to a (pool_bytes too: a sum over devices). */
MP_API void mp_stats_merge(struct mp_stats *a, const struct mp_stats *b);
/* Writes s as "name value  # description" lines, or one JSON object. */
MP_API void mp_stats_print(const struct mp_stats *s, FILE *f, int json);

/*
 * The sentence describing the last divergence (or why the plan is not
 * followed), copied into buf; returns 0 when there was none.
 */
MP_API int mp_last_problem(mp_runtime *rt, char *buf, size_t len);

/*
 * PyTorch's CUDAPluggableAllocator entry points, following the plan(s) of
 * MEMPLAN_PLAN as LD_PRELOAD does (stream is a cudaStream_t):
 *
 *   torch.cuda.memory.change_current_allocator(
 *       torch.cuda.memory.CUDAPluggableAllocator(
 *           "libmemplan.so", "mp_torch_alloc", "mp_torch_free"))
 */
MP_API void *mp_torch_alloc(ssize_t size, int device, void *stream);
MP_API void mp_torch_free(void *ptr, ssize_t size, int device, void *stream);

/*
 * PyTorch's record-stream hook (Tensor.record_stream): ptr, served by
 * mp_torch_alloc, is also used on stream.  When ptr is a pool buffer, its
 * free records an event on stream, and whatever the pool serves next on
 * another stream waits for that event: the bytes are not reused before the
 * work stream had enqueued at the free is done.  Set it with
 *
 *   a = torch.cuda.memory.CUDAPluggableAllocator(
 *           "libmemplan.so", "mp_torch_alloc", "mp_torch_free")
 *   lib = ctypes.CDLL("libmemplan.so")
 *   a.allocator().set_record_stream_fn(
 *       ctypes.cast(lib.mp_torch_record_stream, ctypes.c_void_p).value)
 */
MP_API void mp_torch_record_stream(void *ptr, void *stream);

/* The statistics of the runtimes that LD_PRELOAD and PyTorch use, summed
 * over devices; all zero when none is open. */
MP_API void mp_global_stats(struct mp_stats *out);

#ifdef __cplusplus
}
#endif

#endif
