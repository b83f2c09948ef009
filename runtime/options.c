/* SPDX-License-Identifier: MIT */
/*
 * options.c - the table of MEMPLAN_* variables read by libmemplan's
 * LD_PRELOAD and PyTorch ways in (interpose.c) and by backend_cuda.c.  Read
 * when the first request arrives, never on the hot path.
 */
#include "options.h"

#include <errno.h>
#include <stdlib.h>
#include <strings.h>

const struct options_row options_table[OPT_COUNT] = {
	[OPT_PLAN] = { "MEMPLAN_PLAN", "",
		       "plan file(s) to follow, comma-separated, one per device" },
	[OPT_DISABLE] = { "MEMPLAN_DISABLE", "0",
			  "1 (yes, true, on): follow no plan, forward every call to the real allocator" },
	[OPT_VERBOSE] = { "MEMPLAN_VERBOSE", "0",
			  "-1 silent, 0 one warning per kind, 1 every divergence, 2 every iteration" },
	[OPT_SHOW_STATS] = { "MEMPLAN_SHOW_STATS", "0",
			     "1 (yes, true, on): statistics on stderr at exit; json: as one JSON object" },
	[OPT_MATCH] = { "MEMPLAN_MATCH", "8",
			"allocations that must match the plan's first ones before an iteration is recognised" },
	[OPT_CUDART] = { "MEMPLAN_CUDART", "",
			 "path of the CUDA runtime library when the process has none loaded" },
	[OPT_CUDA_DRIVER] = { "MEMPLAN_CUDA_DRIVER", "",
			      "path of the CUDA driver library (for cuMemAlloc_v2) when none is loaded" },
	[OPT_ON_UNSAFE] = { "MEMPLAN_ON_UNSAFE", "abort",
			    "abort, or warn: when a divergence leaves a swapped-out buffer's bytes to a live buffer placed over them, print why and abort() the process before a use can read wrong bytes (warn: say so and go on, reading them); and a plan compiled with --trust-holes is refused at open (warn: followed, said once)" },
};

const char *options_str(enum options_id id)
{
	const char *v = getenv(options_table[id].name);
	return v && *v ? v : options_table[id].def;
}

static long parse_long(const char *v, long lo, long hi, int *ok)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	*ok = !errno && end != v && !*end && n >= lo && n <= hi;
	return n;
}

long options_long(enum options_id id, long lo, long hi, int *bad)
{
	int ok;
	long n = parse_long(options_str(id), lo, hi, &ok);
	if (!ok) {
		*bad = 1;
		n = parse_long(options_table[id].def, lo, hi, &ok);
	}
	return n;
}

static int parse_bool(const char *v)
{
	static const char *const yes[] = { "1", "yes", "true", "on", "y" };
	static const char *const no[] = { "0", "no", "false", "off", "n" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(v, yes[i]))
			return 1;
		if (!strcasecmp(v, no[i]))
			return 0;
	}
	return -1;
}

static int parse_choice(const char *v, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (!strcasecmp(v, names[i]))
			return i;
	return -1;
}

int options_choice(enum options_id id, const char *const *names, int *bad)
{
	int c = parse_choice(options_str(id), names);
	if (c < 0) {
		*bad = 1;
		c = parse_choice(options_table[id].def, names);
	}
	return c;
}

int options_bool(enum options_id id, int *bad)
{
	int b = parse_bool(options_str(id));
	if (b < 0) {
		*bad = 1;
		b = parse_bool(options_table[id].def);
	}
	return b;
}
