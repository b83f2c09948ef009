/* SPDX-License-Identifier: MIT */
/*
 * select.h - which part of a run a capture records: the N-th range named
 * NAME (NVTX push/pop or start/end, or the marker API of marker.h), the
 * N-th cudaProfilerStart/Stop range (NAME "@profiler"), or the whole run.
 * Plain state machine, fed by the injection library under one mutex.
 */
#ifndef MEMPLAN_CAPTURE_SELECT_H
#define MEMPLAN_CAPTURE_SELECT_H

#include <stddef.h>
#include <stdint.h>

#define SELECT_NAME_MAX 255
#define SELECT_PROFILER "@profiler"
/* Range keys that are not NVTX range ids (those are small counters). */
#define SELECT_KEY_MARKER UINT64_C(0xffffffffffffff01)
#define SELECT_KEY_PROFILER UINT64_C(0xffffffffffffff02)
/* Push/pop ranges: key = SELECT_KEY_PUSH | thread << 24 | depth. */
#define SELECT_KEY_PUSH (UINT64_C(1) << 62)

enum select_state { SELECT_WAITING = 0, SELECT_INSIDE = 1, SELECT_DONE = 2 };
enum select_action { SELECT_NOTHING = 0, SELECT_BEGIN = 1, SELECT_END = 2 };

struct select {
	int all;        /* no selection: the whole run */
	char name[SELECT_NAME_MAX + 1];
	uint64_t want;  /* 1-based occurrence to record */
	uint64_t seen;  /* occurrences begun so far */
	int state;      /* enum select_state */
	uint64_t key;   /* the recorded range's key while inside */
};

/*
 * Parses the settings (MEMPLAN_CAPTURE_ITERATION, MEMPLAN_CAPTURE_RANGE;
 * either may be NULL): both NULL selects the whole run; a range without an
 * iteration means its first occurrence; an iteration without a range counts
 * ranges named "iteration".  Returns 0, or -1 with a sentence naming the
 * setting in err.
 */
int select_parse(struct select *s, const char *iteration, const char *range,
		 char *err, size_t errlen);

/* A range named name begins (key identifies its end). */
enum select_action select_begin(struct select *s, const char *name,
				uint64_t key);
/* The range with key ends. */
enum select_action select_end(struct select *s, uint64_t key);

/* "range 'iteration', occurrence 3" or "whole run", for meta and messages. */
void select_describe(const struct select *s, char *buf, size_t len);

#endif
