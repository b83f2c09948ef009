/* SPDX-License-Identifier: MIT */
/*
 * marker.h - mark iterations for memplan-capture from a program's source,
 * header only, with no link-time dependency: without memplan (or outside a
 * capture) every call is a cheap no-op.  Inside a capture the calls reach
 * memplan_capture_mark() in the injection library that CUDA loaded from
 * CUDA_INJECTION64_PATH (found with dlopen(RTLD_NOLOAD), since CUDA loads
 * it privately).  Link with -ldl on glibc older than 2.34.
 *
 *     for (int step = 0; step < steps; step++) {
 *             memplan_mark_iteration_begin();
 *             train_step();
 *             memplan_mark_iteration_end();
 *     }
 *
 * memplan-capture --iteration 3 then records the third step.
 */
#ifndef MEMPLAN_MARKER_H
#define MEMPLAN_MARKER_H

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define MEMPLAN_MARK_POINT 0
#define MEMPLAN_MARK_BEGIN 1
#define MEMPLAN_MARK_END 2

typedef int (*memplan_mark_fn)(int what, const char *name);

/* The library's entry point, or NULL while none is loaded (not cached then:
 * CUDA loads the library at its first call, possibly after ours). */
static inline memplan_mark_fn memplan_mark_lookup(void)
{
	static memplan_mark_fn fn;
	if (fn)
		return fn;
	const char *lib = getenv("CUDA_INJECTION64_PATH");
	if (!lib || !*lib)
		return NULL;
	void *h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	void *sym = dlsym(h, "memplan_capture_mark");
	dlclose(h); /* NOLOAD took a reference; CUDA keeps its own */
	if (sym) /* object to function pointer: through memcpy, as POSIX does */
		memcpy(&fn, &sym, sizeof(fn));
	return fn;
}

/*
 * Marks a range named name (what: MEMPLAN_MARK_BEGIN, _END or _POINT).
 * Returns 1 when a capture library took the mark, 0 when there is none.
 */
static inline int memplan_mark(int what, const char *name)
{
	memplan_mark_fn fn = memplan_mark_lookup();
	return fn ? (fn(what, name), 1) : 0;
}

static inline int memplan_mark_iteration_begin(void)
{
	return memplan_mark(MEMPLAN_MARK_BEGIN, "iteration");
}

static inline int memplan_mark_iteration_end(void)
{
	return memplan_mark(MEMPLAN_MARK_END, "iteration");
}

#endif
