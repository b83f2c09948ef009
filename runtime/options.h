/* SPDX-License-Identifier: MIT */
/*
 * options.h - the MEMPLAN_* environment variables of the LD_PRELOAD and
 * PyTorch ways in, from one table (options.c) that libmemplan(3) documents
 * row by row (a test holds the page to the table).
 */
#ifndef MEMPLAN_OPTIONS_H
#define MEMPLAN_OPTIONS_H

enum options_id {
	OPT_PLAN,
	OPT_DISABLE,
	OPT_VERBOSE,
	OPT_SHOW_STATS,
	OPT_MATCH,
	OPT_CUDART,
	OPT_CUDA_DRIVER,
	OPT_COUNT
};

struct options_row {
	const char *name; /* the variable */
	const char *def;  /* its value when unset */
	const char *doc;  /* one line */
};

extern const struct options_row options_table[OPT_COUNT];

/* The variable's value, else its default (never NULL). */
const char *options_str(enum options_id id);
/* The value as an integer; the default when unset or not a number. */
long options_long(enum options_id id);

#endif
