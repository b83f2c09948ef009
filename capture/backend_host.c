/* SPDX-License-Identifier: MIT */
/*
 * backend_host.c - the host side of capture_backend.h: stream ids are the handles'
 * values, every context is device 0, and kernel layouts come from a table
 * the tests fill.  Lets translate.c run on machines without a GPU.
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

void backend_host_reset(void)
{
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

const struct capture_backend backend_host = {
	.stream_id = host_stream_id,
	.device = host_device,
	.params = host_params,
};
