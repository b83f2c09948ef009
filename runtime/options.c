/* SPDX-License-Identifier: MIT */
/*
 * options.c - the table of MEMPLAN_* variables read by libmemplan's
 * LD_PRELOAD and PyTorch ways in (interpose.c) and by backend_cuda.c.  Read
 * when the first request arrives, never on the hot path.
 */
#include "options.h"

#include <errno.h>
#include <stdlib.h>

const struct options_row options_table[OPT_COUNT] = {
	[OPT_PLAN] = { "MEMPLAN_PLAN", "",
		       "plan file(s) to follow, comma-separated, one per device" },
	[OPT_DISABLE] = { "MEMPLAN_DISABLE", "0",
			  "1: follow no plan, forward every call to the real allocator" },
	[OPT_VERBOSE] = { "MEMPLAN_VERBOSE", "0",
			  "-1 silent, 0 one warning per kind, 1 every divergence, 2 every iteration" },
	[OPT_SHOW_STATS] = { "MEMPLAN_SHOW_STATS", "0",
			     "1: statistics on stderr at exit; json: as one JSON object" },
	[OPT_MATCH] = { "MEMPLAN_MATCH", "8",
			"allocations that must match the plan's first ones before an iteration is recognised" },
	[OPT_CUDART] = { "MEMPLAN_CUDART", "",
			 "path of the CUDA runtime library when the process has none loaded" },
	[OPT_CUDA_DRIVER] = { "MEMPLAN_CUDA_DRIVER", "",
			      "path of the CUDA driver library (for cuMemAlloc_v2) when none is loaded" },
};

const char *options_str(enum options_id id)
{
	const char *v = getenv(options_table[id].name);
	return v && *v ? v : options_table[id].def;
}

long options_long(enum options_id id)
{
	const char *v = options_str(id);
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || end == v || *end)
		n = strtol(options_table[id].def, NULL, 10);
	return n;
}
