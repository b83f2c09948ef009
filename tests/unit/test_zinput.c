/* SPDX-License-Identifier: MIT */
/*
 * test_zinput.c - the gzip side of zinput: concatenated members read as
 * one stream (RFC 1952), zero padding after the last member (tar, dd, tape
 * blocks) accepted as gzip(1) accepts it, and any other trailing data
 * refused with its byte offset.  Files are written by zlib here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tap.h"
#include "trace.h"
#include "zinput.h"

static char dir[] = "/tmp/memplan-zinput.XXXXXX";

/* Appends text as one gzip member to buf at *len (cap bytes). */
static void member(unsigned char *buf, size_t cap, size_t *len, const char *text)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return;
	zs.next_in = (unsigned char *)(uintptr_t)text;
	zs.avail_in = (uInt)strlen(text);
	zs.next_out = buf + *len;
	zs.avail_out = (uInt)(cap - *len);
	deflate(&zs, Z_FINISH);
	*len = cap - zs.avail_out;
	deflateEnd(&zs);
}

/* Writes the file, reads it through zinput; the content, or NULL with err. */
static char *read_back(const unsigned char *data, size_t len, char *err, size_t errlen)
{
	char path[64];
	snprintf(path, sizeof(path), "%s/f.gz", dir);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		return NULL;
	struct zinput *z;
	err[0] = '\0';
	if (zin_open(path, "test file", &z, err, errlen))
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *out = malloc(cap + 1);
	long k = 0;
	/* small reads: members end in the middle of one */
	while (out && (k = zin_read(z, (uint8_t *)out + n, n + 7 < cap ? 7 : cap - n)) > 0)
		n += (size_t)k;
	if (k < 0) {
		snprintf(err, errlen, "%s", zin_error(z));
		free(out);
		out = NULL;
	} else if (out) {
		out[n] = '\0';
	}
	zin_close(z);
	return out;
}

static unsigned char buf[1 << 20];

static void check_reads(size_t len, const char *want, const char *what)
{
	char err[600];
	char *got = read_back(buf, len, err, sizeof(err));
	CHECK(got && strcmp(got, want) == 0, what);
	if (!got)
		printf("# %s\n", err);
	free(got);
}

static void check_refused(size_t len, const char *needle, const char *what)
{
	char err[600];
	char *got = read_back(buf, len, err, sizeof(err));
	CHECK(!got, what);
	CHECK_STR_HAS(err, needle, what);
	free(got);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		tap_skip("zinput", "no temporary folder");
		return tap_done();
	}
	const char *a = "{\"nodes\": [1, 2, 3]}", *b = "  {\"more\": true}\n";
	size_t len = 0;
	member(buf, sizeof(buf), &len, a);
	size_t one = len;
	check_reads(one, a, "one member");

	memset(buf + one, 0, 10240);
	check_reads(one + 10240, a, "one member, then 10 KiB of zeros (tar's record padding)");
	memset(buf + one, 0, 200000);
	check_reads(one + 200000, a, "zero padding longer than the input buffer");
	check_reads(one + 1, a, "a single zero byte after the member");

	member(buf, sizeof(buf), &len, b);
	size_t two = len;
	char ab[128];
	snprintf(ab, sizeof(ab), "%s%s", a, b);
	check_reads(two, ab, "two members concatenated read as one stream");
	memset(buf + two, 0, 512);
	check_reads(two + 512, ab, "two members, then zero padding");

	memcpy(buf + one, "garbage", 7);
	char at[128];
	snprintf(at, sizeof(at),
		 "byte %zu: data after the gzip stream that is neither another gzip member nor zero padding",
		 one);
	check_refused(one + 7, at, "text after the member is refused, with its offset");
	memset(buf + one, 0, 100);
	buf[one + 100] = 'x';
	check_refused(one + 101, "neither another gzip member nor zero padding",
		      "a nonzero byte after the zeros is refused");
	len = one + 100;
	member(buf, sizeof(buf), &len, b);
	check_refused(len, "neither another gzip member nor zero padding",
		      "zeros between members are refused (gzip(1) would drop the second)");
	buf[one] = 0x1f;
	buf[one + 1] = 0x00;
	check_refused(one + 20, "corrupt gzip data",
		      "a member header cut after its first byte is corrupt data");

	char path[64];
	snprintf(path, sizeof(path), "%s/f.gz", dir);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
