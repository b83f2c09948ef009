/* SPDX-License-Identifier: MIT */
/*
 * backend_host.c - the host side of capture_backend.h: stream ids are the
 * handles' values, every context is device 0, kernel layouts come from a
 * table the tests fill, and activity records behave as CUPTI's do: incomplete until
 * the context is synchronized, lost to a flush before that.  Lets
 * translate.c run on machines without a GPU.
 */
#include "capture_backend.h"

#include <stdlib.h>
#include <string.h>

struct host_layout {
	int kind;
	const void *handle;
	uint32_t n;
	struct argscan_param *p;
};

static struct host_layout *table;
static size_t ntable;

int backend_host_set_params(int kind, const void *handle,
			    const struct argscan_param *p, uint32_t n)
{
	struct host_layout *t = realloc(table, (ntable + 1) * sizeof(*t));
	if (!t)
		return -1;
	table = t;
	struct argscan_param *copy = malloc((n ? n : 1) * sizeof(*copy));
	if (!copy)
		return -1;
	memcpy(copy, p, n * sizeof(*copy));
	table[ntable++] = (struct host_layout){ kind, handle, n, copy };
	return 0;
}

struct host_work {
	void *ctx;
	int done;
	size_t size;
	unsigned char *running, *finished;
};

static struct host_work *work;
static size_t nwork;
static void (*sink_fn)(void *, const void *);
static void *sink_arg;
static uint64_t dropped_next;
struct host_sync {
	void *ctx;
	unsigned n;
};
static struct host_sync syncs[16];

int backend_host_submit(void *ctx, const void *running, const void *done,
			size_t size)
{
	struct host_work *w = realloc(work, (nwork + 1) * sizeof(*w));
	if (!w)
		return -1;
	work = w;
	unsigned char *a = malloc(size), *b = malloc(size);
	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	memcpy(a, running, size);
	memcpy(b, done, size);
	work[nwork++] = (struct host_work){ ctx, 0, size, a, b };
	return 0;
}

void backend_host_set_sink(void (*sink)(void *arg, const void *rec), void *arg)
{
	sink_fn = sink;
	sink_arg = arg;
}

void backend_host_set_dropped(uint64_t n)
{
	dropped_next = n;
}

unsigned backend_host_syncs(void *ctx)
{
	for (size_t i = 0; i < sizeof(syncs) / sizeof(*syncs); i++)
		if (syncs[i].n && syncs[i].ctx == ctx)
			return syncs[i].n;
	return 0;
}

static void forget_work(void)
{
	for (size_t i = 0; i < nwork; i++) {
		free(work[i].running);
		free(work[i].finished);
	}
	free(work);
	work = NULL;
	nwork = 0;
}

void backend_host_reset(void)
{
	forget_work();
	sink_fn = NULL;
	dropped_next = 0;
	memset(syncs, 0, sizeof(syncs));
	for (size_t i = 0; i < ntable; i++)
		free(table[i].p);
	free(table);
	table = NULL;
	ntable = 0;
}

static int64_t host_stream_id(void *ctx, void *stream, int per_thread)
{
	(void)ctx;
	if (!stream)
		return per_thread ? 1 : 0;
	return (int64_t)((uintptr_t)stream & 0x7fffffff);
}

static int32_t host_device(void *ctx)
{
	(void)ctx;
	return 0;
}

static int host_params(int kind, const void *handle, struct argscan_param *out,
		       uint32_t cap, uint32_t *n)
{
	for (size_t i = ntable; i-- > 0;) {
		if (table[i].kind != kind || table[i].handle != handle)
			continue;
		*n = table[i].n < cap ? table[i].n : cap;
		memcpy(out, table[i].p, *n * sizeof(*out));
		return 0;
	}
	return -1;
}

static int host_sync(void *ctx)
{
	for (size_t i = 0; i < nwork; i++)
		if (work[i].ctx == ctx)
			work[i].done = 1;
	for (size_t i = 0; i < sizeof(syncs) / sizeof(*syncs); i++) {
		if (syncs[i].n == 0 || syncs[i].ctx == ctx) {
			syncs[i].ctx = ctx;
			syncs[i].n++;
			break;
		}
	}
	return 0;
}

static void host_flush(void)
{
	for (size_t i = 0; sink_fn && i < nwork; i++)
		sink_fn(sink_arg, work[i].done ? work[i].finished : work[i].running);
	forget_work();
}

static uint64_t host_dropped(void *ctx)
{
	(void)ctx;
	uint64_t n = dropped_next;
	dropped_next = 0;
	return n;
}

const struct capture_backend backend_host = {
	.stream_id = host_stream_id,
	.device = host_device,
	.params = host_params,
	.sync = host_sync,
	.flush = host_flush,
	.dropped = host_dropped,
};
