/* SPDX-License-Identifier: MIT */
/*
 * allocsim.h - what a real allocator would reserve from the device for one
 * iteration: plain cudaMalloc and PyTorch's CUDA caching allocator, replayed
 * request by request.  The baseline every plan is compared against; used by
 * memplan-analyze summary, check and diff.
 *
 * The models (and the sources their constants were checked against) are
 * described in memplan-analyze(1), ALLOCATOR MODELS.
 */
#ifndef MEMPLAN_ALLOCSIM_H
#define MEMPLAN_ALLOCSIM_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

enum allocsim_model {
	ALLOCSIM_CUDAMALLOC = 0, /* cudaMalloc/cudaFree for every request */
	ALLOCSIM_PYTORCH = 1,    /* c10 CUDACachingAllocator, default config */
	ALLOCSIM_COUNT
};

/* "cudamalloc", "pytorch"; NULL past the end. */
const char *allocsim_name(unsigned model);
/* Inverse of allocsim_name; -1 if unknown. */
int allocsim_from_name(const char *name);

/* Model constants, exported for tests and the manual. */
#define ALLOCSIM_MIN_BLOCK 512u          /* every size rounds up to this */
#define ALLOCSIM_PAGE (2u << 20)         /* device page, cudaMalloc model */
#define ALLOCSIM_SMALL_SIZE (1u << 20)   /* largest small-pool request */
#define ALLOCSIM_SMALL_BUFFER (2u << 20) /* small-pool segment */
#define ALLOCSIM_LARGE_BUFFER (20u << 20) /* segment for 1..10 MiB requests */
#define ALLOCSIM_MIN_LARGE_ALLOC (10u << 20)
#define ALLOCSIM_ROUND_LARGE (2u << 20)

struct allocsim_result {
	uint64_t requests;       /* allocations replayed */
	uint64_t reserved_peak;  /* most bytes held from the device at once */
	int64_t reserved_peak_at; /* trace clock value where first reached */
	/* most live (requested) bytes while reserved stood at its peak */
	uint64_t live_at_reserved_peak;
	uint64_t live_peak;      /* peak of live requested bytes (simulated buffers) */
	uint64_t allocated_peak; /* peak of bytes in blocks handed out (rounded) */
	uint64_t reserved_end;   /* held at the end of the iteration */
	uint64_t device_allocs;  /* segments obtained from the device */
	uint64_t device_frees;   /* segments given back (pages unmapped, when expandable) */
	uint64_t releases;       /* times cached memory was given back (empty_cache) */
	uint64_t skipped;        /* buffers not simulated (pinned host memory) */
};

struct allocsim;

/*
 * A fresh simulation of model.  Returns 0 and *out, TRACE_EINVAL for an
 * unknown model or TRACE_ENOMEM.
 */
int allocsim_new(enum allocsim_model model, struct allocsim **out);
void allocsim_destroy(struct allocsim *s);

/*
 * Replays one request: buffer id (any value below 2^32 - 1, each allocated
 * at most once while live) of size bytes (1 to 2^63 - 1) on stream
 * (TRACE_NONE: the default stream) at clock value `at`.  Returns 0,
 * TRACE_EINVAL for a size out of range, an id already live or a free of an
 * id that is not, or TRACE_ENOMEM; after a failure the simulation is
 * unchanged.
 */
int allocsim_alloc(struct allocsim *s, int64_t id, uint64_t size,
		   int64_t stream, int64_t at);
int allocsim_free(struct allocsim *s, int64_t id, int64_t at);

/*
 * PyTorch model only, before the first request: expandable segments
 * (expandable_segments:True): one segment per pool and stream, mapped in
 * pages of 2 MiB (small pool) or 20 MiB (large pool) as it grows, blocks
 * split down to 512 bytes in both pools.  Returns 0 or TRACE_EINVAL.
 */
int allocsim_set_expandable(struct allocsim *s, int on);

/*
 * torch.cuda.empty_cache(), also what the caching allocator does before it
 * retries a failed cudaMalloc: every wholly free segment goes back to the
 * device (with expandable segments: every whole free page is unmapped).
 * Nothing for the cudaMalloc model.  Returns 0 or TRACE_ENOMEM.
 */
int allocsim_release(struct allocsim *s, int64_t at);

/*
 * Whether a mark of this name stands where the caching allocator gave
 * memory back: the snapshot importer's "segment_free" and "segment_unmap".
 */
int allocsim_is_release_mark(const char *name);

/* The figures so far. */
void allocsim_result(const struct allocsim *s, struct allocsim_result *r);

/* Whether a buffer of this kind goes through a device allocator. */
static inline int allocsim_simulates(unsigned kind)
{
	return kind != TRACE_KIND_HOST;
}

/*
 * Replays a finished trace: buffers live at the start are allocated first
 * (in id order, as a framework creates weights before the iteration), then
 * every alloc and free in event order (the allocator clock); the PyTorch
 * model releases its cache at every release mark (allocsim_is_release_mark)
 * and uses expandable segments when meta "pytorch.expandable_segments" is
 * "1".  Buffers of pinned host memory are skipped.  Returns 0, or a negative trace_err with a
 * sentence in err.
 */
int allocsim_run(const struct trace *t, enum allocsim_model model,
		 struct allocsim_result *r, char *err, size_t errlen);

/*
 * allocsim_run, calling step(ctx, i, reserved) after event i changed the
 * simulation (an alloc, a free, a release): the bytes reserved from the
 * device then; first with i = SIZE_MAX, once the buffers live at the start
 * are allocated.  The timeline draws the reserved curve with it.
 */
typedef void allocsim_step_fn(void *ctx, size_t event, uint64_t reserved);
int allocsim_run_each(const struct trace *t, enum allocsim_model model,
		      struct allocsim_result *r, allocsim_step_fn *step,
		      void *ctx, char *err, size_t errlen);

#endif
