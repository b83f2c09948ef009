/* SPDX-License-Identifier: MIT */
/*
 * allocsource.c - whether an allocation's source object reaches memplan's
 * runtime (allocsource.h), from its ELF dynamic symbol table.
 */
#define _GNU_SOURCE /* pread under -std=c11 */
#include "allocsource.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The entry points runtime/interpose.c takes over, and their bits. */
static const struct {
	const char *name;
	int bit;
} entry_points[] = {
	{ "cudaMalloc", ALLOCSOURCE_CUDA_MALLOC },
	{ "cudaFree", ALLOCSOURCE_CUDA_MALLOC },
	{ "cudaMallocAsync", ALLOCSOURCE_CUDA_MALLOC_ASYNC },
	{ "cudaFreeAsync", ALLOCSOURCE_CUDA_MALLOC_ASYNC },
	{ "cuMemAlloc_v2", ALLOCSOURCE_CU_MEM_ALLOC },
	{ "cuMemFree_v2", ALLOCSOURCE_CU_MEM_ALLOC },
};

/* Bounds: no real shared object comes near them. */
#define MAX_TABLE (256u << 20)

static int why_set(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int why_set(char *why, size_t whylen, const char *fmt, ...)
{
	if (why && whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return ALLOCSOURCE_UNKNOWN;
}

/* Reads n bytes at off, all of them inside a file of size fsize. */
static int read_at(int fd, uint64_t fsize, uint64_t off, void *buf, size_t n)
{
	if (off > fsize || n > fsize - off)
		return -1;
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got,
				  (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* The entry point's bit, or 0. */
static int is_entry_point(const char *s, size_t max)
{
	for (size_t i = 0; i < sizeof(entry_points) / sizeof(*entry_points); i++) {
		size_t n = strlen(entry_points[i].name);
		if (n < max && memcmp(s, entry_points[i].name, n) == 0 && s[n] == '\0')
			return entry_points[i].bit;
	}
	return 0;
}

/* The entry points' bits the object names in *mask; the verdict. */
static enum allocsource_verdict scan(int fd, uint64_t fsize, const char *path,
				     int *mask, char *why, size_t whylen)
{
	Elf64_Ehdr eh;
	if (read_at(fd, fsize, 0, &eh, sizeof(eh)) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
		return why_set(why, whylen, "'%s' is not an ELF object", path);
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
					    ? ELFDATA2LSB : ELFDATA2MSB))
		return why_set(why, whylen,
			       "'%s' is not a 64-bit ELF object of this machine's byte order",
			       path);
	if (eh.e_shnum == 0 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr))
		return why_set(why, whylen,
			       "'%s': ELF header field e_shnum/e_shentsize (%u, %u) is not a section table this reader takes",
			       path, (unsigned)eh.e_shnum, (unsigned)eh.e_shentsize);
	size_t nsh = eh.e_shnum;
	Elf64_Shdr *sh = malloc(nsh * sizeof(*sh));
	if (!sh)
		return why_set(why, whylen, "out of memory reading '%s'", path);
	enum allocsource_verdict v = ALLOCSOURCE_UNKNOWN;
	char *str = NULL;
	Elf64_Sym *sym = NULL;
	if (read_at(fd, fsize, eh.e_shoff, sh, nsh * sizeof(*sh))) {
		why_set(why, whylen,
			"'%s': ELF header field e_shoff (%llu) points past the end of the file",
			path, (unsigned long long)eh.e_shoff);
		goto out;
	}
	size_t ds = SIZE_MAX;
	for (size_t i = 0; i < nsh; i++)
		if (sh[i].sh_type == SHT_DYNSYM) {
			ds = i;
			break;
		}
	if (ds == SIZE_MAX) {
		/* nothing dynamic at all: a static program */
		v = ALLOCSOURCE_BYPASSES;
		goto out;
	}
	const Elf64_Shdr *d = &sh[ds];
	if (d->sh_link >= nsh || d->sh_entsize != sizeof(Elf64_Sym) ||
	    d->sh_size % sizeof(Elf64_Sym) || d->sh_size > MAX_TABLE ||
	    sh[d->sh_link].sh_type != SHT_STRTAB ||
	    sh[d->sh_link].sh_size > MAX_TABLE || sh[d->sh_link].sh_size == 0) {
		why_set(why, whylen,
			"'%s': section %zu (.dynsym) has a malformed size, entry size or string table link",
			path, ds);
		goto out;
	}
	const Elf64_Shdr *s = &sh[d->sh_link];
	size_t nsym = d->sh_size / sizeof(Elf64_Sym), nstr = s->sh_size;
	sym = malloc(nsym ? d->sh_size : 1);
	str = malloc(nstr + 1);
	if (!sym || !str) {
		why_set(why, whylen, "out of memory reading '%s'", path);
		goto out;
	}
	if (read_at(fd, fsize, d->sh_offset, sym, d->sh_size) ||
	    read_at(fd, fsize, s->sh_offset, str, nstr)) {
		why_set(why, whylen,
			"'%s': the dynamic symbol or string table lies past the end of the file",
			path);
		goto out;
	}
	str[nstr] = '\0';
	v = ALLOCSOURCE_BYPASSES;
	for (size_t i = 1; i < nsym; i++) {
		uint32_t off = sym[i].st_name;
		if (off >= nstr)
			continue;
		int bit = is_entry_point(str + off, nstr - off);
		if (bit) {
			v = ALLOCSOURCE_REACHES;
			*mask |= bit;
		}
	}
out:
	free(sym);
	free(str);
	free(sh);
	return v;
}

static enum allocsource_verdict classify(const char *path, int *mask,
					 char *why, size_t whylen)
{
	*mask = 0;
	if (why && whylen)
		why[0] = '\0';
	if (!path || !*path)
		return why_set(why, whylen, "no source object was named");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return why_set(why, whylen, "cannot open '%s': %s", path,
			       strerror(errno));
	struct stat st;
	enum allocsource_verdict v;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		v = why_set(why, whylen, "'%s' is not a regular file", path);
	else
		v = scan(fd, (uint64_t)st.st_size, path, mask, why, whylen);
	close(fd);
	return v;
}

enum allocsource_verdict allocsource_classify(const char *path, char *why,
					      size_t whylen)
{
	int mask;
	return classify(path, &mask, why, whylen);
}

#define CACHE 64

static struct {
	pthread_mutex_t mu;
	char *path[CACHE];
	signed char verdict[CACHE], mask[CACHE];
	unsigned next;
} cache = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* The cached verdict of path, and its entry points in *mask. */
static enum allocsource_verdict cached(const char *path, int *mask)
{
	*mask = 0;
	if (!path || !*path)
		return ALLOCSOURCE_UNKNOWN;
	pthread_mutex_lock(&cache.mu);
	for (unsigned i = 0; i < CACHE; i++)
		if (cache.path[i] && strcmp(cache.path[i], path) == 0) {
			enum allocsource_verdict v = cache.verdict[i];
			*mask = cache.mask[i];
			pthread_mutex_unlock(&cache.mu);
			return v;
		}
	pthread_mutex_unlock(&cache.mu);
	enum allocsource_verdict v = classify(path, mask, NULL, 0);
	char *copy = strdup(path);
	if (!copy)
		return v;
	pthread_mutex_lock(&cache.mu);
	unsigned i = cache.next++ % CACHE;
	free(cache.path[i]);
	cache.path[i] = copy;
	cache.verdict[i] = (signed char)v;
	cache.mask[i] = (signed char)*mask;
	pthread_mutex_unlock(&cache.mu);
	return v;
}

enum allocsource_verdict allocsource_verdict(const char *path)
{
	int mask;
	return cached(path, &mask);
}

int allocsource_entry_points(const char *path)
{
	int mask;
	return cached(path, &mask) == ALLOCSOURCE_UNKNOWN ? -1 : mask;
}

/*
 * The loaded objects are read from /proc/self/maps (<link.h>'s
 * dl_iterate_phdr is shadowed by planner/link.h on the include path): a
 * mapped file whose name is name, or starts with it and a '.'.
 */
const char *allocsource_resolve(const char *name, char *out, size_t outlen)
{
	if (!name || !*name || strchr(name, '/') || !out || outlen == 0)
		return name;
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return name;
	size_t len = strlen(name);
	char line[4096];
	int found = 0;
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		const char *base = strrchr(path, '/') + 1;
		if (strncmp(base, name, len) != 0 || (base[len] != '\0' && base[len] != '.') ||
		    strlen(path) >= outlen)
			continue;
		strcpy(out, path);
		found = 1;
		if (base[len] == '\0')
			break; /* the exact name */
	}
	fclose(f);
	return found ? out : name;
}
