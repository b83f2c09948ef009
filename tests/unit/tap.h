/* SPDX-License-Identifier: MIT */
/*
 * tap.h - the unit tests' tiny harness: each CHECK is one TAP line, and
 * tap_done() returns the exit status (non-zero if anything failed).  Kept
 * to one header so tests have no dependency beyond libc.
 */
#ifndef MEMPLAN_TAP_H
#define MEMPLAN_TAP_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int tap_n, tap_failed;

static inline void tap_ok(int cond, const char *file, int line,
			  const char *what)
{
	tap_n++;
	if (cond) {
		printf("ok %d - %s\n", tap_n, what);
	} else {
		tap_failed++;
		printf("not ok %d - %s\n#   at %s:%d\n", tap_n, what, file,
		       line);
	}
	fflush(stdout);
}

#define CHECK(cond, what) tap_ok(!!(cond), __FILE__, __LINE__, (what))
#define CHECK_EQ_U64(a, b, what)                                          \
	do {                                                               \
		uint64_t tap_a = (uint64_t)(a), tap_b = (uint64_t)(b);     \
		tap_ok(tap_a == tap_b, __FILE__, __LINE__, (what));        \
		if (tap_a != tap_b)                                        \
			printf("#   got %" PRIu64 ", expected %" PRIu64 "\n", \
			       tap_a, tap_b);                              \
	} while (0)
#define CHECK_STR_HAS(hay, needle, what)                                  \
	do {                                                               \
		const char *tap_h = (hay);                                 \
		int tap_c = tap_h && strstr(tap_h, (needle)) != NULL;      \
		tap_ok(tap_c, __FILE__, __LINE__, (what));                 \
		if (!tap_c)                                                \
			printf("#   '%s' lacks '%s'\n", tap_h ? tap_h : "(null)", \
			       (needle));                                  \
	} while (0)

/* A check that cannot run on this machine: one TAP line that counts as a
 * skip, saying why. */
static inline void tap_skip(const char *what, const char *why)
{
	tap_n++;
	printf("ok %d - %s # SKIP %s\n", tap_n, what, why);
	fflush(stdout);
}

/*
 * The folder of the team's shared public data ($SHARED_DATA, default
 * ../shared/data) when it holds the placement instances; NULL when it does
 * not, as in a clone outside the workplace, where the checks that need
 * them skip (tap_skip(what, TAP_NO_SHARED)).  A folder that exists but
 * lacks a file is a failure of the check that reads it, not a skip.
 */
#define TAP_NO_SHARED \
	"no public placement instances: put the data of ../shared/data/README.md (MiniMalloc's challenging A-K, idealloc's somas-resnet50) in ../shared/data/placement or set SHARED_DATA"
static inline const char *tap_shared_data(void)
{
	const char *dir = getenv("SHARED_DATA");
	if (!dir || !*dir)
		dir = "../shared/data";
	char path[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/placement", dir);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? dir : NULL;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
