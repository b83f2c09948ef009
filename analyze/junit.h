/* SPDX-License-Identifier: MIT */
/*
 * junit.h - a JUnit-style XML report, the format CI servers (Jenkins,
 * GitLab, GitHub actions through plugins) display as test results: one
 * testsuite, one testcase per limit that memplan-analyze check evaluated.
 */
#ifndef MEMPLAN_JUNIT_H
#define MEMPLAN_JUNIT_H

#include <stddef.h>
#include <stdio.h>

struct junit_case {
	const char *classname; /* groups the cases: "memplan.check" */
	const char *name;      /* the limit: "peak <= 3.00 GiB" */
	const char *failure;   /* NULL when it passed; else why it failed */
	const char *error;     /* NULL unless it could not be evaluated */
	const char *output;    /* NULL or text for <system-out> */
};

/*
 * Writes one <testsuites> document with a single <testsuite> named suite
 * holding the n cases; seconds is the time it took.  Text is escaped for
 * XML (characters XML 1.0 cannot hold become '?').  Returns 0, or -1 when
 * f reports a write error.
 */
int junit_write(FILE *f, const char *suite, const struct junit_case *cases,
		size_t n, double seconds);

#endif
