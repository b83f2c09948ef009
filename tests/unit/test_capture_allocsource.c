/* SPDX-License-Identifier: MIT */
/*
 * test_capture_allocsource.c - which allocation sources reach memplan's
 * runtime (capture/allocsource.h).  The test compiles three shared objects
 * with the C compiler: one that calls cudaMalloc through the dynamic loader
 * (a program or library on the shared cudart), one that carries its own
 * hidden cudaMalloc (a library with a static cudart, as cuBLAS, cuDNN and
 * NCCL ship), and one that exports it (libcudart.so itself); then feeds the
 * reader broken and truncated ELF files, which must give "unknown" with a
 * reason and never crash.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allocsource.h"
#include "tap.h"

static char dir[64];

static int write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(data, 1, n, f);
	return fclose(f) == 0 && w == n ? 0 : -1;
}

/* Compiles src into dir/name.so; 0 on success. */
static int build_so(const char *name, const char *src)
{
	char c[160], so[160], cmd[512];
	snprintf(c, sizeof(c), "%s/%s.c", dir, name);
	snprintf(so, sizeof(so), "%s/%s.so", dir, name);
	if (write_file(c, src, strlen(src)))
		return -1;
	const char *cc = getenv("CC");
	snprintf(cmd, sizeof(cmd), "%s -shared -fPIC -o %s %s 2>/dev/null",
		 cc && *cc ? cc : "cc", so, c);
	return system(cmd) == 0 ? 0 : -1;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = len > 0 ? malloc((size_t)len) : NULL;
	if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*n = b ? (size_t)len : 0;
	return b;
}

static void path_of(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

static void test_verdicts(void)
{
	static const char imports[] =
		"extern int cudaMalloc(void **p, unsigned long n);\n"
		"int train_step(void) { void *p; return cudaMalloc(&p, 4096); }\n";
	static const char statics[] =
		"__attribute__((visibility(\"hidden\")))\n"
		"int cudaMalloc(void **p, unsigned long n) { (void)n; *p = 0; return 0; }\n"
		"int gemm_workspace(void) { void *p; return cudaMalloc(&p, 1 << 20); }\n";
	static const char exports[] =
		"int cudaMalloc(void **p, unsigned long n) { (void)n; *p = 0; return 0; }\n"
		"int cudaFree(void *p) { (void)p; return 0; }\n";
	if (build_so("imports", imports) || build_so("statics", statics) ||
	    build_so("exports", exports)) {
		tap_skip("allocation sources of compiled shared objects",
			 "the C compiler could not build the fixtures");
		return;
	}
	char p[160], why[512];
	path_of(p, sizeof(p), "imports.so");
	CHECK(allocsource_classify(p, why, sizeof(why)) == ALLOCSOURCE_REACHES,
	      "an object that imports cudaMalloc (shared cudart) reaches the runtime");
	path_of(p, sizeof(p), "statics.so");
	CHECK(allocsource_classify(p, why, sizeof(why)) == ALLOCSOURCE_BYPASSES,
	      "an object with its own hidden cudaMalloc (static cudart, as cuBLAS) bypasses it");
	CHECK(allocsource_verdict(p) == ALLOCSOURCE_BYPASSES &&
		      allocsource_verdict(p) == ALLOCSOURCE_BYPASSES,
	      "the remembered verdict is the same, asked twice");
	path_of(p, sizeof(p), "exports.so");
	CHECK(allocsource_classify(p, why, sizeof(why)) == ALLOCSOURCE_REACHES,
	      "an object that exports cudaMalloc (libcudart.so itself) reaches the runtime");
}

static void test_bad_files(void)
{
	char p[160], why[512];
	path_of(p, sizeof(p), "missing.so");
	CHECK(allocsource_classify(p, why, sizeof(why)) == ALLOCSOURCE_UNKNOWN &&
		      strstr(why, "missing.so"),
	      "a missing file: unknown, and the reason names it");
	CHECK(allocsource_classify("", why, sizeof(why)) == ALLOCSOURCE_UNKNOWN &&
		      allocsource_classify(NULL, why, sizeof(why)) == ALLOCSOURCE_UNKNOWN,
	      "no path: unknown");
	path_of(p, sizeof(p), "text.so");
	write_file(p, "not an ELF file at all\n", 23);
	CHECK(allocsource_classify(p, why, sizeof(why)) == ALLOCSOURCE_UNKNOWN &&
		      strstr(why, "not an ELF"),
	      "a text file: unknown, 'not an ELF object'");
	CHECK(allocsource_classify(dir, why, sizeof(why)) == ALLOCSOURCE_UNKNOWN,
	      "a directory: unknown");

	char src[160];
	path_of(src, sizeof(src), "imports.so");
	size_t n;
	char *img = slurp(src, &n);
	if (!img) {
		tap_skip("truncated and corrupted ELF files", "no fixture to corrupt");
		return;
	}
	/* every truncation: never a crash, never a verdict from past the end */
	int bad = 0;
	path_of(p, sizeof(p), "cut.so");
	for (size_t len = 0; len < n; len += len < 128 ? 1 : 97) {
		write_file(p, img, len);
		enum allocsource_verdict v = allocsource_classify(p, why, sizeof(why));
		bad += v == ALLOCSOURCE_UNKNOWN && why[0] == '\0';
	}
	CHECK(bad == 0, "truncated copies: each gives a verdict or a reason, none crashes");
	/* random bytes over the header and the section table */
	srand(7);
	char *mut = malloc(n);
	int ran = 0;
	for (int round = 0; mut && round < 400; round++) {
		memcpy(mut, img, n);
		for (int k = 0; k < 8; k++) {
			size_t at = (size_t)rand() % (round % 2 ? 64 : n);
			mut[at] = (char)rand();
		}
		write_file(p, mut, n);
		(void)allocsource_classify(p, why, sizeof(why));
		ran++;
	}
	CHECK(ran == 400, "400 corrupted copies read without a crash");
	free(mut);
	free(img);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/memplan-as.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	test_verdicts();
	test_bad_files();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
