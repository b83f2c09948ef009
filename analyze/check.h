/* SPDX-License-Identifier: MIT */
/*
 * check.h - the limits of `memplan-analyze check`, the CI gate: a maximum
 * peak, a maximum reserved peak under an allocator model, and growth
 * against a baseline trace within a tolerance.  Each limit gives one result
 * with a sentence saying which limit and by how much, for the terminal and
 * for JUnit alike.
 */
#ifndef MEMPLAN_CHECK_H
#define MEMPLAN_CHECK_H

#include "report.h"

enum check_kind {
	CHECK_MAX_PEAK = 0,
	CHECK_MAX_RESERVED = 1,
	CHECK_BASELINE_PEAK = 2,
	CHECK_BASELINE_LOWER_BOUND = 3,
	CHECK_KIND_COUNT
};

struct check_opts {
	int has_max_peak, has_max_reserved;
	uint64_t max_peak, max_reserved;
	enum allocsim_model allocator;  /* for max_reserved */
	const struct report *baseline;  /* NULL: no baseline */
	double tolerance;               /* fraction: 0.02 for 2% */
};

struct check_result {
	enum check_kind kind;
	char name[96];     /* "peak <= 3.00 GiB" */
	uint64_t value;    /* what the trace has */
	uint64_t limit;    /* the most allowed */
	int passed;
	char figure[64];   /* which figure was checked: "live bytes",
			      "recorded by PyTorch", "pytorch model", ... */
	char message[320]; /* one line, no newline */
};

/*
 * Evaluates the limits set in o against r (r must hold the allocator o
 * names when max_reserved is set, unless the figure recorded is used).
 * max_reserved gates on what the trace recorded (a PyTorch snapshot's
 * reserved peak, r->recorded_reserved) when it has it and the allocator is
 * PyTorch's: a CI gate checks what happened, the model only estimates
 * it.  Writes up to CHECK_KIND_COUNT results
 * to out and returns how many; 0 when o sets no limit.
 */
size_t check_run(const struct report *r, const struct check_opts *o,
		 struct check_result *out);

/*
 * Parses a tolerance: a percentage with or without its sign ("2%", "2",
 * "0.5 %").  Returns 0 and the fraction in *out, or -1; -2 for a bare
 * number above 0 and below 1 ("0.02"), more likely a fraction than a
 * percentage (the caller suggests v * 100 %).
 */
int check_parse_tolerance(const char *s, double *out);

/*
 * Parses a limit in bytes: a size with its unit (cli_parse_size()), or a
 * bare number of bytes from 1 MiB up.  A bare number below 1 MiB ("70",
 * "3.5") is a unit left out, not a GPU memory limit: -2.  -1 when not a
 * size.  0 and *out otherwise.
 */
int check_parse_limit(const char *s, uint64_t *out);

#endif
