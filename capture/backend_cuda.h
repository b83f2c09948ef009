/* SPDX-License-Identifier: MIT */
/*
 * backend_cuda.h - the CUDA implementation of capture_backend.h and the two
 * questions only the injection library asks: the device's name and the
 * host<->device bandwidth, measured once with pinned memory.
 */
#ifndef MEMPLAN_CAPTURE_BACKEND_CUDA_H
#define MEMPLAN_CAPTURE_BACKEND_CUDA_H

#include <stddef.h>

#include "capture_backend.h"

extern const struct capture_backend backend_cuda;

/* Finds the driver's and the program runtime's functions (dlopen/dlsym):
 * at initialisation, so that no callback loads a library. */
void backend_cuda_init(void);

/* The name of ctx's device into buf; 0, or -1 if it cannot tell. */
int backend_cuda_device_name(void *ctx, char *buf, size_t len);

/*
 * Copies 64 MiB of pinned memory to the device and back a few times in ctx
 * (made current on this thread if none is) and gives bytes per second each
 * way.  0, or -1 when CUDA refuses.  Its own CUDA calls are not recorded.
 */
int backend_cuda_bandwidth(void *ctx, double *h2d, double *d2h);

#endif
