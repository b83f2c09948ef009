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
#include <string.h>

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

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
