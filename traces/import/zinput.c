/* SPDX-License-Identifier: MIT */
/*
 * zinput.c - plain, gzip and tar wrapping of an outside file, for the JSON
 * importers.  gzip through zlib's inflate (every member of a multi-member
 * file); tar by its ustar headers, each bounds-checked and checksummed,
 * PAX records skipped, GNU long names read.  A tar is read twice: once to
 * list its members and choose the one file (resource forks and generated
 * code left out, a rank asked for), then up to that member.  The content
 * is never held whole: 64 KiB of input and 512 bytes of look-ahead.
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
	char member[320];        /* tar: the member read */
	char err[512];
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

/*
 * What follows a gzip member, looked at without consuming a byte of a next
 * one: 1 when another member starts (RFC 1952: members concatenated), 0 at
 * the end of the file, after nothing or zero bytes only (the padding of tar,
 * dd or a tape block; gzip(1) ignores it too), -1 with the error set for
 * anything else.
 */
static int gz_after_member(struct zinput *z)
{
	int zeros = 0;
	for (;;) {
		while (z->zs.avail_in > 0 && z->zs.next_in[0] == 0) {
			z->zs.next_in++;
			z->zs.avail_in--;
			zeros = 1;
		}
		if (z->zs.avail_in > 0)
			break;
		size_t got = fread(z->in, 1, INBUF, z->f);
		if (got == 0) {
			if (ferror(z->f))
				return (int)zfail(z, "read error");
			return 0;
		}
		z->zs.next_in = z->in;
		z->zs.avail_in = (uInt)got;
	}
	long at = ftell(z->f);
	at = at < 0 ? -1 : at - (long)z->zs.avail_in;
	if (!zeros && z->zs.next_in[0] == 0x1f)
		return 1;
	return (int)zfail(z, "byte %ld: data after the gzip stream that is neither another gzip member nor zero padding",
			  at);
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
			int next = gz_after_member(z);
			if (next < 0)
				return -1;
			if (next == 0) {
				z->zdone = 1;
				break;
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

/* One header's member name (GNU long name, else prefix/name) into out. */
static void tar_name(const uint8_t *h, const char *longname, char *out, size_t n)
{
	if (longname[0]) {
		snprintf(out, n, "%s", longname);
		return;
	}
	char name[101], prefix[156];
	memcpy(name, h, 100);
	name[100] = 0;
	memcpy(prefix, h + 345, 155);
	prefix[155] = 0;
	if (memcmp(h + 257, "ustar", 5) == 0 && prefix[0])
		snprintf(out, n, "%.155s/%.100s", prefix, name);
	else
		snprintf(out, n, "%s", name);
}

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* macOS's AppleDouble files ("._x.json", "__MACOSX/..."): not content */
static int resource_fork(const char *name)
{
	return strncmp(base_of(name), "._", 2) == 0 || strncmp(name, "__MACOSX/", 9) == 0 ||
	       strstr(name, "/__MACOSX/") != NULL;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* The rank a member's name gives ("rank3", "rank_3", "rank-3"), or -1. */
static long name_rank(const char *name)
{
	const char *b = base_of(name);
	for (const char *p = b; (p = strstr(p, "rank")) != NULL; p += 4) {
		const char *q = p + 4;
		if (*q == '_' || *q == '-' || *q == '.')
			q++;
		if (*q < '0' || *q > '9')
			continue;
		char *e;
		long r = strtol(q, &e, 10);
		if (r >= 0 && r < 1000000)
			return r;
	}
	return -1;
}

#define MAX_MEMBERS 4096

struct member {
	char name[320];
	int entry; /* its header's ordinal */
	long rank;
};

/*
 * Reads the header at z->head and the ones after it to the end of the
 * archive, listing regular members (at most MAX_MEMBERS).  With stop >= 0,
 * stops at that entry instead, ready to read it.
 */
static int tar_walk(struct zinput *z, int stop, struct member *m, int *nm)
{
	char longname[1024] = "";
	for (int entries = 0;; entries++) {
		const uint8_t *h = z->head;
		if (all_zero(h, TAR_BLOCK))
			return stop >= 0 ? (int)zfail(z, "the tar archive changed while it was read") : 0;
		if (!tar_checksum_ok(h))
			return (int)zfail(z, "tar header %d has a bad checksum", entries + 1);
		int64_t size = tar_octal(h + 124, 12);
		if (size < 0)
			return (int)zfail(z, "tar header %d: field size is not an octal number below 8 GiB",
					  entries + 1);
		uint64_t pad = (TAR_BLOCK - (uint64_t)size % TAR_BLOCK) % TAR_BLOCK;
		char type = (char)h[156];
		int regular = type == '0' || type == 0 || type == '7';
		if (regular && entries == stop) {
			z->remain = (uint64_t)size;
			z->pad = pad;
			z->headlen = z->headpos = 0;
			return 0;
		}
		if (!regular && type != 'x' && type != 'g' && type != 'L' && type != 'K' &&
		    type != '5' && type != '2' && type != '1')
			return (int)zfail(z, "the tar archive's entry %d is not a regular file (type '%c')",
					  entries + 1, type >= 0x20 && type < 0x7f ? type : '?');
		if (type == 'L' && size > 0 && size < (int64_t)sizeof(longname)) {
			/* a GNU long name: the next header's */
			uint8_t b[sizeof(longname)];
			if (raw_full(z, b, (size_t)size, NULL) != 1 || skip_bytes(z, pad))
				return z->err[0] ? -1 : (int)zfail(z, "the tar archive is truncated");
			memcpy(longname, b, (size_t)size);
			longname[size] = 0;
		} else {
			if (regular && stop < 0 && m) {
				if (*nm >= MAX_MEMBERS)
					return (int)zfail(z, "the tar archive holds more than %d files",
							  MAX_MEMBERS);
				struct member *x = &m[(*nm)++];
				tar_name(h, longname, x->name, sizeof(x->name));
				x->entry = entries;
				x->rank = name_rank(x->name);
			}
			if (type != 'K')
				longname[0] = 0;
			if (skip_bytes(z, (uint64_t)size + pad))
				return -1;
		}
		size_t got;
		if (raw_full(z, z->head, TAR_BLOCK, &got) < 0)
			return -1;
		if (got == 0 && stop < 0)
			return 0; /* no end-of-archive blocks: tolerated */
		if (got != TAR_BLOCK)
			return (int)zfail(z, "the tar archive is truncated");
	}
}

/* The member names of list, for a message. */
static void name_list(const struct member *m, const int *idx, int n, char *out, size_t len)
{
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(out);
		if (i == 4) {
			snprintf(out + l, len - l, " and %d more", n - 4);
			return;
		}
		snprintf(out + l, len - l, "%s'%s'", i ? ", " : "", m[idx[i]].name);
	}
}

/*
 * Chooses the member to read: the only regular file that is not a
 * resource fork; else the only JSON one (PyTorch 2's ET archive beside its
 * generated kernels' .py); else the JSON one of rank `rank`.  Several ranks
 * and none asked for: TRACE_EINVAL naming them; anything else ambiguous:
 * TRACE_EFORMAT.  Returns the entry, or -1 with z->err set (*rc the code).
 */
static int tar_choose(struct zinput *z, const struct member *m, int nm, long rank, int *rc)
{
	int *idx = malloc((size_t)(nm + 1) * sizeof(*idx)), n = 0, nj = 0;
	char list[400];
	*rc = TRACE_EFORMAT;
	if (!idx) {
		*rc = TRACE_ENOMEM;
		return (int)zfail(z, "out of memory");
	}
	for (int i = 0; i < nm; i++)
		if (!resource_fork(m[i].name))
			idx[n++] = i;
	int pick = -1;
	if (n == 0) {
		zfail(z, "the tar archive holds no file%s", nm ? " (only macOS resource forks)" : "");
		goto out;
	}
	for (int i = 0; i < n; i++)
		if (ends_with(m[idx[i]].name, ".json"))
			idx[nj++] = idx[i];
	if (rank >= 0) {
		int found = -1, k = 0;
		for (int i = 0; i < nj; i++)
			if (m[idx[i]].rank == rank) {
				found = idx[i];
				k++;
			}
		if (k == 1) {
			pick = found;
		} else {
			name_list(m, idx, nj, list, sizeof(list));
			*rc = TRACE_EINVAL;
			zfail(z, "the tar archive holds %s JSON file of rank %ld (it holds %s)",
			      k ? "more than one" : "no", rank, nj ? list : "none");
		}
		goto out;
	}
	if (n == 1) {
		pick = idx[0];
		goto out;
	}
	if (nj == 1) {
		pick = idx[0];
		goto out;
	}
	int ranks = nj > 1;
	for (int i = 0; i < nj && ranks; i++)
		for (int j = 0; j < i && ranks; j++)
			if (m[idx[i]].rank < 0 || m[idx[i]].rank == m[idx[j]].rank)
				ranks = 0;
	if (ranks && m[idx[0]].rank >= 0) {
		name_list(m, idx, nj, list, sizeof(list));
		*rc = TRACE_EINVAL;
		zfail(z, "the tar archive holds the files of %d ranks (%s): choose one with --rank",
		      nj, list);
		goto out;
	}
	if (nj == 0)
		for (int i = 0; i < nm; i++)
			if (!resource_fork(m[i].name))
				idx[nj++] = i;
	name_list(m, idx, nj, list, sizeof(list));
	zfail(z, "the tar archive holds more than one file (%s): give the file itself", list);
out:
	free(idx);
	if (pick >= 0)
		snprintf(z->member, sizeof(z->member), "%s", m[pick].name);
	return pick >= 0 ? m[pick].entry : -1;
}

/* Back to the start of the file, with a fresh inflate. */
static int rewind_input(struct zinput *z)
{
	rewind(z->f);
	if (z->gz) {
		z->zs.avail_in = 0;
		z->zdone = 0;
		if (inflateReset(&z->zs) != Z_OK)
			return (int)zfail(z, "cannot restart the gzip stream");
	}
	return 0;
}

/* head holds the first header of an archive: list, choose, and go there. */
static int tar_start(struct zinput *z, long rank, int *rc)
{
	struct member *m = malloc(MAX_MEMBERS * sizeof(*m));
	int nm = 0;
	*rc = TRACE_EFORMAT;
	if (!m) {
		*rc = TRACE_ENOMEM;
		return (int)zfail(z, "out of memory");
	}
	if (all_zero(z->head, TAR_BLOCK)) {
		free(m);
		return (int)zfail(z, "the tar archive holds no file");
	}
	int entry = -1;
	if (tar_walk(z, -1, m, &nm) == 0)
		entry = tar_choose(z, m, nm, rank, rc);
	free(m);
	if (entry < 0)
		return -1;
	if (rewind_input(z) || raw_full(z, z->head, TAR_BLOCK, NULL) != 1)
		return z->err[0] ? -1 : (int)zfail(z, "the tar archive is truncated");
	return tar_walk(z, entry, NULL, NULL);
}

int zin_open(const char *path, const char *what, struct zinput **out,
	     char *err, size_t errlen)
{
	return zin_open_rank(path, what, ZIN_ANY_RANK, out, err, errlen);
}

const char *zin_member(const struct zinput *z)
{
	return z->member;
}

int zin_open_rank(const char *path, const char *what, long rank, struct zinput **out,
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
	int code = TRACE_EFORMAT;
	if (raw_full(z, z->head, TAR_BLOCK, &got) < 0)
		goto bad;
	z->headlen = got;
	if (got == TAR_BLOCK && memcmp(z->head + 257, "ustar", 5) == 0) {
		z->tar = 1;
		if (tar_start(z, rank, &code))
			goto bad;
	} else if (rank != ZIN_ANY_RANK) {
		zin_close(z);
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "%s '%s' is not a tar archive: --rank chooses among the files of one",
				    what, path);
	}
	*out = z;
	return 0;
bad:
	rc = trace_seterr(err, errlen, code, "%s", z->err);
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
	/* the archive was read whole when its member was chosen */
	(void)z;
	(void)err;
	(void)errlen;
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
