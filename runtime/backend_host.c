/* SPDX-License-Identifier: MIT */
/*
 * backend_host.c - the runtime's backend on host memory: the real allocator
 * is aligned malloc, copies are memcpy done at once, and streams are handles
 * with nothing behind them (work is never deferred, so every ordering the
 * runtime asks for already holds).  Events hold one time: with a simulated
 * copy delay (mp_backend_host_delay, for tests) copies "end" on one timeline
 * after one another, and an event reads as unfinished until the copies
 * before its record have ended.  Used by the unit tests, memplan-replay
 * --backend host and the hot-path benchmark.
 */
#include "runtime_backend.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What cudaMalloc guarantees, so that plans' alignments mean the same. */
#define HOST_ALIGN 256

static char host_handle; /* the one stream handle */

/* The simulated copy delay (ns) and when the copies issued so far end, on
 * CLOCK_MONOTONIC: one timeline for every stream, atomics only. */
static uint64_t delay_ns, busy_until;

/* An event: when the copies it captured end (0: done). */
struct host_event {
	uint64_t done_at;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mp_backend_host_delay(unsigned copy_us)
{
	__atomic_store_n(&delay_ns, (uint64_t)copy_us * 1000u, __ATOMIC_RELAXED);
	if (!copy_us)
		__atomic_store_n(&busy_until, 0, __ATOMIC_RELAXED);
}

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

static int h_event_create(void **e)
{
	*e = calloc(1, sizeof(struct host_event));
	return *e ? 0 : 2;
}

static int h_event_destroy(void *e)
{
	free(e);
	return 0;
}

static int h_record(void *e, void *s)
{
	(void)s;
	struct host_event *ev = e;
	uint64_t d = __atomic_load_n(&delay_ns, __ATOMIC_RELAXED);
	ev->done_at = d ? __atomic_load_n(&busy_until, __ATOMIC_RELAXED) : 0;
	return 0;
}

static int h_wait(void *s, void *e)
{
	(void)s;
	(void)e;
	return 0;
}

static int h_query(void *e)
{
	const struct host_event *ev = e;
	return !ev->done_at || now_ns() >= ev->done_at;
}

static int h_copy(void *dst, const void *src, size_t n, int dir, void *s)
{
	(void)dir;
	(void)s;
	memmove(dst, src, n);
	uint64_t d = __atomic_load_n(&delay_ns, __ATOMIC_RELAXED);
	if (d) {
		/* this copy ends delay after the later of now and the end of
		 * the copies before it */
		uint64_t t = now_ns();
		uint64_t b = __atomic_load_n(&busy_until, __ATOMIC_RELAXED);
		uint64_t end;
		do
			end = (b > t ? b : t) + d;
		while (!__atomic_compare_exchange_n(&busy_until, &b, end, 0,
						    __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED));
	}
	return 0;
}

/* Every simulated copy issued so far has ended. */
static int h_device_sync(void)
{
	uint64_t b = __atomic_load_n(&busy_until, __ATOMIC_RELAXED), t;
	while (b && (t = now_ns()) < b) {
		struct timespec ts = { (time_t)((b - t) / 1000000000u),
				       (long)((b - t) % 1000000000u) };
		if (nanosleep(&ts, NULL) && errno != EINTR)
			break;
	}
	return 0;
}

static int h_stream_sync(void *s)
{
	(void)s;
	return h_device_sync();
}

/* Host streams never capture. */
static int h_stream_capturing(void *s)
{
	(void)s;
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
	.event_create = h_event_create,
	.event_destroy = h_event_destroy,
	.event_record = h_record,
	.stream_wait = h_wait,
	.event_query = h_query,
	.copy = h_copy,
	.stream_sync = h_stream_sync,
	.device_sync = h_device_sync,
	.stream_capturing = h_stream_capturing,
	.error_string = h_error_string,
};

const struct mp_backend *mp_backend_host(void)
{
	return &host_backend;
}
