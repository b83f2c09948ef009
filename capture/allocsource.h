/* SPDX-License-Identifier: MIT */
/*
 * allocsource.h - can memplan's runtime see an allocation, given the shared
 * object CUPTI names as its source (CUpti_ActivityMemory4.source, filled
 * once cuptiActivityEnableAllocationSource(1) is on)?
 *
 * The runtime serves the requests that reach CUDA's allocation entry points
 * it interposes (runtime/interpose.c: cudaMalloc, cudaMallocAsync,
 * cuMemAlloc_v2 and their frees) through the dynamic loader.  Whether one
 * allocation reaches it depends on both the entry point it came through
 * (pinned host, managed, pitch, from-pool, per-thread-stream and driver
 * async calls are never interposed) and the object that called: that
 * entry point must be in its dynamic symbols.  A library that carries its own static
 * copy of cudart (cuBLAS, cuDNN, NCCL) or calls the driver API directly,
 * and a program linked with nvcc's default -cudart static, allocate without
 * ever passing through those symbols: a plan that counted their requests
 * would diverge at the first one.  The test is the object's dynamic symbol
 * table: it imports one of those entry points (a program or library using
 * the shared cudart) or exports it (libcudart.so itself), or it has none of
 * them (its allocations bypass the runtime).
 */
#ifndef MEMPLAN_ALLOCSOURCE_H
#define MEMPLAN_ALLOCSOURCE_H

#include <stddef.h>

enum allocsource_verdict {
	ALLOCSOURCE_UNKNOWN = -1, /* not a readable ELF object: cannot tell */
	ALLOCSOURCE_REACHES = 0,  /* its requests reach the runtime */
	ALLOCSOURCE_BYPASSES = 1, /* its requests never reach the runtime */
};

/*
 * Reads the ELF dynamic symbol table of the file at path, bounded (at most
 * the headers, the section table, .dynsym and its string table, each
 * checked against the file's size), and says which.  On UNKNOWN, why holds
 * a sentence naming the file and what was wrong with it.
 */
enum allocsource_verdict allocsource_classify(const char *path, char *why,
					      size_t whylen);

/*
 * As allocsource_classify(), remembering the last 64 verdicts by path (the
 * same few objects allocate over and over).  Thread-safe.
 */
enum allocsource_verdict allocsource_verdict(const char *path);

/* The interposed entry points, as bits: the alloc and its free. */
enum {
	ALLOCSOURCE_CUDA_MALLOC = 1,       /* cudaMalloc, cudaFree */
	ALLOCSOURCE_CUDA_MALLOC_ASYNC = 2, /* cudaMallocAsync, cudaFreeAsync */
	ALLOCSOURCE_CU_MEM_ALLOC = 4,      /* cuMemAlloc_v2, cuMemFree_v2 */
	ALLOCSOURCE_ALL = 7,
};

/*
 * Which interposed entry points the object at path names in its dynamic
 * symbols (imported or exported), as ALLOCSOURCE_* bits; -1 when it cannot
 * tell (not a readable ELF object).  Cached as allocsource_verdict().
 */
int allocsource_entry_points(const char *path);

/*
 * CUPTI may name a source by its file name alone ("libcublasLt.so.13"):
 * the path of the loaded object with that name (or soname-like prefix)
 * into out; returns out, or name itself when it has a '/' or no loaded
 * object matches.
 */
const char *allocsource_resolve(const char *name, char *out, size_t outlen);

#endif
