/* SPDX-License-Identifier: MIT */
/*
 * zinput.c - plain, gzip and single-file tar wrapping of an outside file,
 * for the JSON importers.  gzip through zlib's inflate (every member of a
 * multi-member file); tar by its ustar headers, each bounds-checked and
 * checksummed, with PAX and GNU long-name records skipped.  The content is
 * never held whole: 64 KiB of input and 512 bytes of look-ahead.
 */
#include "zinput.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trace.h"

#define INBUF 65536
#define TAR_BLOCK 512

struct zinput {
	FILE *f;
	const char *what, *path;
	int gz, zdone, zinit;
	z_stream zs;
	uint8_t in[INBUF];
	int tar;
	uint64_t remain, pad; /* tar: bytes of the member left, padding after */
	uint8_t head[TAR_BLOCK];
	size_t headlen, headpos; /* look-ahead replayed to the reader */
	char err[256];
};

static long zfail(struct zinput *z, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static long zfail(struct zinput *z, const char *fmt, ...)
{
	int n = snprintf(z->err, sizeof(z->err), "cannot read %s '%s': ", z->what, z->path);
	if (n > 0 && (size_t)n < sizeof(z->err)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(z->err + n, sizeof(z->err) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *zin_error(const struct zinput *z)
{
	return z->err;
}

const char *zin_wrapping(const struct zinput *z)
{
	return z->tar ? (z->gz ? "tar.gz" : "tar") : z->gz ? "gzip" : "plain";
}

/* Bytes of the (decompressed) file, no tar logic. */
static long raw_read(struct zinput *z, uint8_t *buf, size_t n)
{
	if (!z->gz) {
		size_t got = fread(buf, 1, n, z->f);
		if (got == 0 && ferror(z->f))
			return zfail(z, "read error");
		return (long)got;
	}
	if (n > (size_t)1 << 30)
		n = (size_t)1 << 30;
	z->zs.next_out = buf;
	z->zs.avail_out = (uInt)n;
	while (z->zs.avail_out == n && !z->zdone) {
		if (z->zs.avail_in == 0) {
			size_t got = fread(z->in, 1, INBUF, z->f);
			if (got == 0) {
				if (ferror(z->f))
					return zfail(z, "read error");
				return zfail(z, "the gzip stream is truncated");
			}
			z->zs.next_in = z->in;
			z->zs.avail_in = (uInt)got;
		}
		int rc = inflate(&z->zs, Z_NO_FLUSH);
		if (rc == Z_STREAM_END) {
			/* another gzip member may follow */
			if (z->zs.avail_in == 0) {
				int c = getc(z->f);
				if (c == EOF) {
					z->zdone = 1;
					break;
				}
				ungetc(c, z->f);
			}
			if (inflateReset(&z->zs) != Z_OK)
				return zfail(z, "cannot restart the gzip stream");
		} else if (rc == Z_BUF_ERROR && z->zs.avail_in == 0) {
			continue;
		} else if (rc != Z_OK) {
			return zfail(z, "corrupt gzip data (%s)",
				     z->zs.msg ? z->zs.msg : "inflate failed");
		}
	}
	return (long)(n - z->zs.avail_out);
}

/* Reads exactly n bytes; 1 done, 0 at a clean end before any, -1 error. */
static int raw_full(struct zinput *z, uint8_t *buf, size_t n, size_t *got)
{
	size_t have = 0;
	while (have < n) {
		long k = raw_read(z, buf + have, n - have);
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		have += (size_t)k;
	}
	if (got)
		*got = have;
	return have == n ? 1 : 0;
}

static int all_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* An octal field of a tar header; -1 when it is not one. */
static int64_t tar_octal(const uint8_t *p, size_t n)
{
	if (p[0] & 0x80)
		return -1; /* base-256: a member of 8 GiB or more */
	uint64_t v = 0;
	size_t i = 0;
	while (i < n && p[i] == ' ')
		i++;
	int digits = 0;
	for (; i < n && p[i] >= '0' && p[i] <= '7'; i++, digits++) {
		if (v >> 60)
			return -1;
		v = v * 8 + (uint64_t)(p[i] - '0');
	}
	for (; i < n; i++)
		if (p[i] != ' ' && p[i] != 0)
			return -1;
	return digits ? (int64_t)v : -1;
}

static int tar_checksum_ok(const uint8_t *h)
{
	int64_t want = tar_octal(h + 148, 8);
	uint64_t sum = 0;
	for (size_t i = 0; i < TAR_BLOCK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	return want >= 0 && (uint64_t)want == sum;
}

static int skip_bytes(struct zinput *z, uint64_t n)
{
	uint8_t b[TAR_BLOCK];
	while (n) {
		size_t k = n < sizeof(b) ? (size_t)n : sizeof(b);
		if (raw_full(z, b, k, NULL) != 1)
			return z->err[0] ? -1 : (int)zfail(z, "the tar archive is truncated");
		n -= k;
	}
	return 0;
}

/* head holds the first header of an archive: find the one file. */
static int tar_start(struct zinput *z)
{
	for (int entries = 0;; entries++) {
		const uint8_t *h = z->head;
		if (all_zero(h, TAR_BLOCK))
			return (int)zfail(z, "the tar archive holds no file");
		if (!tar_checksum_ok(h))
			return (int)zfail(z, "tar header %d has a bad checksum", entries + 1);
		int64_t size = tar_octal(h + 124, 12);
		if (size < 0)
			return (int)zfail(z, "tar header %d: field size is not an octal number below 8 GiB",
					  entries + 1);
		uint64_t pad = (TAR_BLOCK - (uint64_t)size % TAR_BLOCK) % TAR_BLOCK;
		char type = (char)h[156];
		if (type == '0' || type == 0 || type == '7') {
			z->remain = (uint64_t)size;
			z->pad = pad;
			z->headlen = z->headpos = 0;
			return 0;
		}
		if (type != 'x' && type != 'g' && type != 'L' && type != 'K' && type != '5')
			return (int)zfail(z, "the tar archive's entry %d is not a regular file (type '%c')",
					  entries + 1, type >= 0x20 && type < 0x7f ? type : '?');
		if (skip_bytes(z, (uint64_t)size + pad))
			return -1;
		if (raw_full(z, z->head, TAR_BLOCK, NULL) != 1)
			return z->err[0] ? -1 : (int)zfail(z, "the tar archive is truncated");
	}
}

int zin_open(const char *path, const char *what, struct zinput **out,
	     char *err, size_t errlen)
{
	*out = NULL;
	struct zinput *z = calloc(1, sizeof(*z));
	if (!z)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	z->what = what;
	z->path = path;
	char open_what[96];
	snprintf(open_what, sizeof(open_what), "cannot open %s", what);
	int rc = trace_open_input(path, open_what, &z->f, err, errlen);
	if (rc) {
		free(z);
		return rc;
	}
	uint8_t magic[2] = { 0, 0 };
	size_t nmagic = fread(magic, 1, 2, z->f);
	rewind(z->f); /* a regular file: seekable */
	if (nmagic == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
		if (inflateInit2(&z->zs, 15 + 16) != Z_OK) {
			zin_close(z);
			return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
		}
		z->gz = z->zinit = 1;
	}
	size_t got = 0;
	if (raw_full(z, z->head, TAR_BLOCK, &got) < 0)
		goto bad;
	z->headlen = got;
	if (got == TAR_BLOCK && memcmp(z->head + 257, "ustar", 5) == 0) {
		z->tar = 1;
		if (tar_start(z))
			goto bad;
	}
	*out = z;
	return 0;
bad:
	rc = trace_seterr(err, errlen, TRACE_EFORMAT, "%s", z->err);
	zin_close(z);
	return rc;
}

long zin_read(void *zin, uint8_t *buf, size_t n)
{
	struct zinput *z = zin;
	if (z->headpos < z->headlen) {
		size_t k = z->headlen - z->headpos;
		if (k > n)
			k = n;
		memcpy(buf, z->head + z->headpos, k);
		z->headpos += k;
		return (long)k;
	}
	if (z->tar) {
		if (z->remain == 0)
			return 0;
		if (n > z->remain)
			n = (size_t)z->remain;
		long k = raw_read(z, buf, n);
		if (k == 0)
			return zfail(z, "the tar archive is truncated");
		if (k > 0)
			z->remain -= (uint64_t)k;
		return k;
	}
	return raw_read(z, buf, n);
}

int zin_finish(struct zinput *z, char *err, size_t errlen)
{
	if (!z->tar)
		return 0;
	size_t got;
	if (skip_bytes(z, z->remain + z->pad) ||
	    raw_full(z, z->head, TAR_BLOCK, &got) < 0)
		return trace_seterr(err, errlen, TRACE_EFORMAT, "%s", z->err);
	if (got == TAR_BLOCK && !all_zero(z->head, TAR_BLOCK))
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "cannot read %s '%s': the tar archive holds more than one file: give the file itself",
				    z->what, z->path);
	return 0;
}

void zin_close(struct zinput *z)
{
	if (!z)
		return;
	if (z->zinit)
		inflateEnd(&z->zs);
	if (z->f)
		fclose(z->f);
	free(z);
}
