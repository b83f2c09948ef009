/* SPDX-License-Identifier: MIT */
/*
 * options.c - the table of MEMPLAN_* variables read by libmemplan's
 * LD_PRELOAD and PyTorch ways in (interpose.c) and by backend_cuda.c.  Read
 * when the first request arrives, never on the hot path.  The MEMPLAN_*
 * variables nobody reads (misspellings) are named once, when libmemplan.so
 * loads (else at the first read).
 * memplan-plan check-env reads the same table without a GPU.
 */
#define _GNU_SOURCE /* dladdr */
#include "options.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

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

/* MEMPLAN_* variables that other parts of memplan read: not libmemplan's,
 * yet no misspelling (prefixes end in '_'). */
static const char *const options_elsewhere[] = {
	"MEMPLAN_CAPTURE_", /* memplan-capture and its injection library */
	"MEMPLAN_BIN",      /* the tests' and scripts' folder of commands */
	"MEMPLAN_PLAN_BIN", /* compare.sbatch's memplan-plan */
	"MEMPLAN_TEST_JOBS",
	NULL
};

const char *options_str(enum options_id id)
{
	options_warn_unknown();
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

int options_known(const char *name)
{
	for (int i = 0; i < OPT_COUNT; i++)
		if (!strcmp(name, options_table[i].name))
			return 1;
	for (int i = 0; options_elsewhere[i]; i++) {
		const char *e = options_elsewhere[i];
		size_t n = strlen(e);
		if (e[n - 1] == '_' ? !strncmp(name, e, n) : !strcmp(name, e))
			return 1;
	}
	return 0;
}

/* Edit distance of a and b (letters inserted, deleted or changed), case
 * ignored; names longer than 63 letters count as far from every other. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];
	if (la > 63 || lb > 63)
		return 64;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t same = (a[i - 1] | 32) == (b[j - 1] | 32);
			size_t best = diag + !same;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *options_suggest(const char *name)
{
	const char *best = NULL;
	size_t bestd = 64;
	for (int i = 0; i < OPT_COUNT; i++) {
		size_t d = distance(name, options_table[i].name);
		if (d < bestd) {
			bestd = d;
			best = options_table[i].name;
		}
	}
	/* two letters, or a third of those past the common "MEMPLAN_" */
	size_t len = strlen(name), room = len > 8 ? (len - 8) / 3 : 0;
	return bestd <= (room > 2 ? room : 2) ? best : NULL;
}

int options_next_unknown(size_t *pos, char *name, size_t cap)
{
	for (; environ && environ[*pos]; (*pos)++) {
		const char *e = environ[*pos];
		if (strncmp(e, "MEMPLAN_", 8) != 0)
			continue;
		size_t n = strcspn(e, "=");
		if (n >= cap)
			n = cap - 1;
		memcpy(name, e, n);
		name[n] = '\0';
		if (options_known(name))
			continue;
		(*pos)++;
		return 1;
	}
	return 0;
}

/* set once the warning is given (or not wanted): it is given once */
static atomic_flag warned = ATOMIC_FLAG_INIT;

void options_no_unknown_warning(void)
{
	atomic_flag_test_and_set(&warned);
}

void options_warn_unknown(void)
{
	if (atomic_flag_test_and_set(&warned))
		return;
	const char *v = getenv(options_table[OPT_VERBOSE].name);
	if (v && strtol(v, NULL, 10) < 0)
		return;
	char name[128];
	size_t pos = 0;
	while (options_next_unknown(&pos, name, sizeof(name))) {
		const char *near = options_suggest(name);
		fprintf(stderr, "memplan: warning: %s means nothing to libmemplan and was ignored%s%s%s (see libmemplan(3))\n",
			name, near ? "; did you mean " : "", near ? near : "", near ? "?" : "");
	}
}

/* At load, in libmemplan.so alone (the tools link this file too, and
 * check-env names the variables itself): so that a process that never
 * allocates on the GPU, which reads no option, is told too. */
__attribute__((constructor)) static void options_at_load(void)
{
	Dl_info info;
	if (!dladdr((void *)options_table, &info) || !info.dli_fname)
		return;
	const char *base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	if (!strncmp(base, "libmemplan", 10))
		options_warn_unknown();
}
