/* SPDX-License-Identifier: MIT */
/*
 * select.c - the iteration selection state machine (see select.h):
 * waiting -> inside (the wanted occurrence began) -> done (it ended).
 */
#include "select.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int select_parse(struct select *s, const char *iteration, const char *range,
		 char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (!iteration && !range) {
		s->all = 1;
		return 0;
	}
	s->want = 1;
	if (iteration) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(iteration, &end, 10);
		if (!*iteration || *end || errno || iteration[0] == '-' ||
		    v < 1 || v > 1000000000ull) {
			snprintf(err, errlen,
				 "iteration '%s' is not a whole number from 1 to 1000000000",
				 iteration);
			return -1;
		}
		s->want = v;
	}
	if (!range)
		range = "iteration";
	size_t n = strlen(range);
	if (n == 0 || n > SELECT_NAME_MAX) {
		snprintf(err, errlen,
			 "range name must have 1 to %d characters, not %zu",
			 SELECT_NAME_MAX, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)range[i] < 0x20 || range[i] == 0x7f) {
			snprintf(err, errlen,
				 "range name has a control character at byte %zu",
				 i + 1);
			return -1;
		}
	if (range[0] == '@' && strcmp(range, SELECT_PROFILER) != 0) {
		snprintf(err, errlen,
			 "unknown range '%s' (names starting with '@' are reserved; '%s' selects cudaProfilerStart/Stop ranges)",
			 range, SELECT_PROFILER);
		return -1;
	}
	memcpy(s->name, range, n + 1);
	return 0;
}

enum select_action select_begin(struct select *s, const char *name,
				uint64_t key)
{
	if (s->all || s->state != SELECT_WAITING || !name ||
	    strcmp(name, s->name) != 0)
		return SELECT_NOTHING;
	if (++s->seen < s->want)
		return SELECT_NOTHING;
	s->state = SELECT_INSIDE;
	s->key = key;
	return SELECT_BEGIN;
}

enum select_action select_end(struct select *s, uint64_t key)
{
	if (s->all || s->state != SELECT_INSIDE || key != s->key)
		return SELECT_NOTHING;
	s->state = SELECT_DONE;
	return SELECT_END;
}

void select_describe(const struct select *s, char *buf, size_t len)
{
	if (s->all)
		snprintf(buf, len, "whole run");
	else
		snprintf(buf, len, "range '%s', occurrence %llu", s->name,
			 (unsigned long long)s->want);
}
