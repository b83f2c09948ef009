/* SPDX-License-Identifier: MIT */
/*
 * runtime.h - what the ways into libmemplan (the C API in memplan.h, the
 * interposed CUDA names and PyTorch's entry points in interpose.c) and
 * memplan-replay share beyond the public header: a runtime on a chosen
 * backend, and requests that name the real allocator they came through.
 */
#ifndef MEMPLAN_RUNTIME_H
#define MEMPLAN_RUNTIME_H

#include <stddef.h>

#include "runtime_backend.h"
#include "memplan.h"
#include "plan.h"

/*
 * Opens a runtime over plan (taken over: on success the runtime owns its
 * arrays and *plan is left empty; on failure the caller still owns it) on
 * backend be.  Takes the pool on the device the options or the plan name.
 * Returns NULL with a sentence in err.
 */
mp_runtime *runtime_open_plan(struct mp_plan *plan, const struct mp_backend *be,
			      const struct mp_options *opt, char *err,
			      size_t errlen);

/*
 * What the ways in (mp_open, the interposed names) do with a plan that is
 * safe only under a condition the runtime cannot check: one compiled with
 * --trust-holes (MP_PLAN_TRUSTS_HOLES) is valid only if something else
 * moves the trace's holes.  With MP_ON_UNSAFE_ABORT (the default) it is
 * refused: -1 with a sentence in err, and the program stays on the real
 * allocator, which is safe.  With MP_ON_UNSAFE_WARN it is followed, said
 * once on stderr (unless verbose < 0): 0.  0 for any other plan.
 * memplan-replay opens plans without it, to show what they do.
 */
int runtime_plan_admit(const struct mp_plan *plan, const struct mp_options *opt,
		       char *err, size_t errlen);

/*
 * mp_alloc and mp_free with the real allocator named (enum mp_mem): what
 * passes through goes back to the allocator the program called.  *rc gets
 * the real allocator's error code when it fails (0 otherwise); rc may be
 * NULL.
 */
void *runtime_alloc(mp_runtime *rt, size_t size, void *stream, int mem,
		    int *rc);
/* runtime_free returns 0, the real allocator's code for what it frees, or
 * RUNTIME_EINVAL for a pool address it cannot release (nothing live starts
 * there, or a second free cannot be told apart from a swapped-out buffer's):
 * cudaErrorInvalidValue and CUDA_ERROR_INVALID_VALUE are both 1, as the
 * real cudaFree and cuMemFree_v2 return for such a pointer. */
#define RUNTIME_EINVAL 1
int runtime_free(mp_runtime *rt, void *ptr, void *stream, int mem);

/* ptr (a live pool buffer; anything else is ignored) is used on stream
 * too: its release records an event there that the next pool user on
 * another stream waits for (mp_torch_record_stream). */
void runtime_record_stream(mp_runtime *rt, void *ptr, void *stream);

const struct mp_backend *runtime_backend(const mp_runtime *rt);
const struct mp_plan *runtime_plan(const mp_runtime *rt);
int runtime_device(const mp_runtime *rt);

#endif
