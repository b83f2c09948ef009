/* SPDX-License-Identifier: MIT */
/*
 * backend_host.c - the runtime's backend on host memory: the real allocator
 * is aligned malloc, copies are memcpy done at once, and streams and events
 * are handles with nothing behind them (work is never deferred, so every
 * ordering the runtime asks for already holds).  Used by the unit tests,
 * memplan-replay --backend host and the hot-path benchmark.
 */
#include "backend.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What cudaMalloc guarantees, so that plans' alignments mean the same. */
#define HOST_ALIGN 256

static char host_handle; /* the one stream and event handle */

static int h_device_count(int *n)
{
	*n = 1;
	return 0;
}

static int h_get_device(int *dev)
{
	*dev = 0;
	return 0;
}

static int h_set_device(int dev)
{
	return dev == 0 ? 0 : 1;
}

/* The machine's memory: a request beyond it fails as out of memory (as a
 * GPU's would), not by whatever malloc does with it. */
static size_t host_memory(void)
{
	static size_t total;
	size_t t = __atomic_load_n(&total, __ATOMIC_RELAXED);
	if (!t) {
		long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
		t = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : SIZE_MAX;
		__atomic_store_n(&total, t, __ATOMIC_RELAXED);
	}
	return t;
}

static int h_alloc(void **p, size_t n, int mem, void *stream)
{
	(void)mem;
	(void)stream;
	*p = NULL;
	size_t r = (n + HOST_ALIGN - 1) & ~(size_t)(HOST_ALIGN - 1);
	if (r < n || r > host_memory())
		return 2;
	*p = aligned_alloc(HOST_ALIGN, r ? r : HOST_ALIGN);
	return *p ? 0 : 2;
}

static int h_free(void *p, int mem, void *stream)
{
	(void)mem;
	(void)stream;
	free(p);
	return 0;
}

static int h_host_alloc(void **p, size_t n)
{
	return h_alloc(p, n, MP_MEM_RUNTIME, NULL);
}

static int h_host_free(void *p)
{
	free(p);
	return 0;
}

static int h_handle(void **h)
{
	*h = &host_handle;
	return 0;
}

static int h_release(void *h)
{
	(void)h;
	return 0;
}

static int h_record(void *e, void *s)
{
	(void)e;
	(void)s;
	return 0;
}

static int h_copy(void *dst, const void *src, size_t n, int dir, void *s)
{
	(void)dir;
	(void)s;
	memmove(dst, src, n);
	return 0;
}

static int h_device_sync(void)
{
	return 0;
}

static const char *h_error_string(int code)
{
	return code == 2 ? "out of host memory" :
	       code == 1 ? "the host backend has device 0 only" :
			   "host backend error";
}

static const struct mp_backend host_backend = {
	.name = "host",
	.device_count = h_device_count,
	.get_device = h_get_device,
	.set_device = h_set_device,
	.alloc = h_alloc,
	.free = h_free,
	.host_alloc = h_host_alloc,
	.host_free = h_host_free,
	.stream_create = h_handle,
	.stream_destroy = h_release,
	.event_create = h_handle,
	.event_destroy = h_release,
	.event_record = h_record,
	.stream_wait = h_record,
	.copy = h_copy,
	.stream_sync = h_release,
	.device_sync = h_device_sync,
	.error_string = h_error_string,
};

const struct mp_backend *mp_backend_host(void)
{
	return &host_backend;
}
