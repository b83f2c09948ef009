/* SPDX-License-Identifier: MIT */
/*
 * argscan.h - finding candidate device pointers in a kernel launch's
 * parameters.  The injection library learns each parameter's offset and
 * size (cuFuncGetParamInfo / cuKernelGetParamInfo) and hands the bytes here;
 * the recorder keeps the words that point into live allocations.
 *
 * Why 8-byte words within each parameter, and not every byte offset: a
 * parameter starts at an offset aligned to its own alignment, and a pointer
 * member of a by-value struct sits at a multiple of 8 inside it (the ABI
 * aligns pointers to 8), so the aligned words of each parameter cover every
 * pointer, including those in by-value structs and arrays of pointers.  Only
 * __attribute__((packed)) structs can hide one at an odd offset; scanning
 * every byte would cost 8x and invent pointers out of neighbouring bytes.
 */
#ifndef MEMPLAN_CAPTURE_ARGSCAN_H
#define MEMPLAN_CAPTURE_ARGSCAN_H

#include <stddef.h>
#include <stdint.h>

/* The parameter layout of one kernel. */
struct argscan_param {
	uint32_t offset, size;
};

struct argscan_layout {
	uint32_t nparams;
	struct argscan_param *params; /* owned by whoever built the layout */
};

/* Values below this are never device or host allocations (null page). */
#define ARGSCAN_MIN_ADDR 4096u

/*
 * Scans the parameters of a launch given as an array of pointers to each
 * value (cudaLaunchKernel's args, cuLaunchKernel's kernelParams): every
 * 8-byte word at offsets 0, 8, ... inside each parameter of at least 8
 * bytes.  Writes up to cap candidate values (>= ARGSCAN_MIN_ADDR) into out
 * and returns how many words qualified, which is more than cap when out
 * was too small (the caller counts the excess as truncated).
 */
size_t argscan_params(const struct argscan_layout *l, void *const *args,
		      uint64_t *out, size_t cap);

/*
 * The same over one packed parameter buffer (cuLaunchKernel's
 * CU_LAUNCH_PARAM_BUFFER_POINTER): with a layout, each parameter's words at
 * its offset (bounded by len); without one (l NULL), every 8-byte aligned
 * word of the buffer.
 */
size_t argscan_buffer(const struct argscan_layout *l, const void *buf,
		      size_t len, uint64_t *out, size_t cap);

/*
 * Asks for parameter i of handle h: 0 with its offset and size, 1 when i is
 * past the last parameter (the driver's CUDA_ERROR_INVALID_VALUE), -1 on
 * any other error (not a handle of this kind).
 */
typedef int (*argscan_info_fn)(const void *h, uint32_t i, uint32_t *off,
			       uint32_t *size);

/*
 * Reads the layout of h into out[0..*n) (at most cap parameters) through
 * info.  "Past the end" at index 0 means no parameters only when other (if
 * not NULL), the other interpretation of the same handle, does not know it
 * better: a CUkernel passed where a CUfunction is expected answers
 * INVALID_VALUE at index 0 too.  Returns 0, or -1 when neither can tell.
 */
int argscan_read_layout(argscan_info_fn info, argscan_info_fn other,
			const void *h, struct argscan_param *out, uint32_t cap,
			uint32_t *n);

#endif
