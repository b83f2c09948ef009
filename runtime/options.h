/* SPDX-License-Identifier: MIT */
/*
 * options.h - the MEMPLAN_* environment variables of the LD_PRELOAD and
 * PyTorch ways in, from one table (options.c) that libmemplan(3) documents
 * row by row (a test holds the page to the table).
 */
#ifndef MEMPLAN_OPTIONS_H
#define MEMPLAN_OPTIONS_H

#include <stddef.h>

enum options_id {
	OPT_PLAN,
	OPT_DISABLE,
	OPT_VERBOSE,
	OPT_SHOW_STATS,
	OPT_MATCH,
	OPT_CUDART,
	OPT_CUDA_DRIVER,
	OPT_ON_UNSAFE,
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
/* The value as an integer in [lo, hi]; the default when unset, and when
 * not such a number (then *bad is set: the caller says what it ignored). */
long options_long(enum options_id id, long lo, long hi, int *bad);
/* The value as a boolean: 1, yes, true, on / 0, no, false, off, in any
 * case; the default when unset, and when none of those (*bad set). */
int options_bool(enum options_id id, int *bad);
/* The value as the index of one of names (NULL-terminated), in any case;
 * the default's index when unset, and when none of them (*bad set). */
int options_choice(enum options_id id, const char *const *names, int *bad);

/* 1 when name (a variable's name, no '=') is one of the table's, or one
 * that another part of memplan reads (memplan-capture's MEMPLAN_CAPTURE_*,
 * the scripts' MEMPLAN_BIN, ...), so no misspelling. */
int options_known(const char *name);
/* The table's variable nearest to name when it is close enough to be a
 * misspelling of it (a letter or two apart), else NULL. */
const char *options_suggest(const char *name);
/* The next MEMPLAN_* variable of the environment, from *pos on, that
 * options_known() does not know: its name copied into name (cap bytes,
 * cut short if longer), *pos moved past it; 0 when there is none more. */
int options_next_unknown(size_t *pos, char *name, size_t cap);
/* Once per process, when libmemplan.so loads, else at the first
 * options_str(): one warning line on stderr
 * for each unknown MEMPLAN_* variable, with the nearest known name (unless
 * MEMPLAN_VERBOSE=-1), so a misspelt variable does not pass for a set one. */
void options_warn_unknown(void);
/* For a caller that names unknown variables itself (memplan-plan
 * check-env): options_warn_unknown() then prints nothing. */
void options_no_unknown_warning(void);

#endif
