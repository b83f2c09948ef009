/* SPDX-License-Identifier: MIT */
/*
 * argscan.c - candidate pointers in kernel parameter bytes (see argscan.h
 * for why aligned words).  Bytes are read with memcpy: the program's
 * parameter values carry no alignment promise.
 */
#include "argscan.h"

#include <string.h>

static size_t scan_bytes(const unsigned char *p, size_t size, uint64_t *out,
			 size_t cap, size_t n)
{
	for (size_t off = 0; off + 8 <= size; off += 8) {
		uint64_t v;
		memcpy(&v, p + off, sizeof(v));
		if (v < ARGSCAN_MIN_ADDR)
			continue;
		if (n < cap)
			out[n] = v;
		n++;
	}
	return n;
}

size_t argscan_params(const struct argscan_layout *l, void *const *args,
		      uint64_t *out, size_t cap)
{
	size_t n = 0;
	if (!l || !args)
		return 0;
	for (uint32_t i = 0; i < l->nparams; i++) {
		if (!args[i] || l->params[i].size < 8)
			continue;
		n = scan_bytes(args[i], l->params[i].size, out, cap, n);
	}
	return n;
}

size_t argscan_buffer(const struct argscan_layout *l, const void *buf,
		      size_t len, uint64_t *out, size_t cap)
{
	const unsigned char *p = buf;
	if (!buf)
		return 0;
	if (!l)
		return scan_bytes(p, len, out, cap, 0);
	size_t n = 0;
	for (uint32_t i = 0; i < l->nparams; i++) {
		size_t off = l->params[i].offset, size = l->params[i].size;
		if (off >= len)
			continue;
		if (size > len - off)
			size = len - off;
		n = scan_bytes(p + off, size, out, cap, n);
	}
	return n;
}

/* One interpretation: 0 read (*n may be 0), 1 past the end at index 0,
 * -1 unknown handle. */
static int read_one(argscan_info_fn info, const void *h,
		    struct argscan_param *out, uint32_t cap, uint32_t *n)
{
	uint32_t k = 0;
	int rc = 0;
	while (k < cap) {
		uint32_t off, size;
		if ((rc = info(h, k, &off, &size)) != 0)
			break;
		out[k].offset = off;
		out[k].size = size;
		k++;
	}
	*n = k;
	if (k == 0 && rc != 0)
		return rc > 0 ? 1 : -1;
	return 0;
}

int argscan_read_layout(argscan_info_fn info, argscan_info_fn other,
			const void *h, struct argscan_param *out, uint32_t cap,
			uint32_t *n)
{
	int rc = info ? read_one(info, h, out, cap, n) : -1;
	if (rc == 0)
		return 0;
	if (other) {
		uint32_t m = 0;
		int orc = read_one(other, h, out, cap, &m);
		if (orc == 0) {
			*n = m;
			return 0;
		}
	}
	if (rc == 1) { /* the first answer stands: no parameters */
		*n = 0;
		return 0;
	}
	return -1;
}
