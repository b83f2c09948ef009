/* SPDX-License-Identifier: MIT */
/*
 * compare.h - placement strategies run over many traces, for memplan-plan
 * compare and `make compare`: every strategy on every trace, in worker
 * threads, one trace at a time each.  A trace that fails keeps its row, with
 * its first error, so that a table can still be printed whole.
 */
#ifndef MEMPLAN_COMPARE_H
#define MEMPLAN_COMPARE_H

#include <stddef.h>
#include <stdint.h>

/* One strategy on one trace. */
struct compare_cell {
	uint64_t pool;   /* the pool it needs; 0 when it did not run */
	double seconds;
	int optimal, failed;
};

/* Where a row failed first: loading the trace (rc is a trace_err) or
 * planning it (rc is a solver_err). */
enum compare_stage { COMPARE_OK, COMPARE_LOAD, COMPARE_PLAN };

struct compare_row {
	const char *path;            /* set by the caller */
	size_t buffers;
	uint64_t lower_bound;
	struct compare_cell *cells;  /* one per strategy, zeroed by the caller */
	char *error; /* NULL, or why this trace (or a strategy) failed; malloc'ed */
	int rc;                      /* the code of that first error */
	enum compare_stage failed_at;
};

struct compare_job {
	struct compare_row *rows;
	size_t nrows, next;      /* next: the first row no worker took yet */
	const char **strategies; /* names solver_solve() knows */
	size_t nstrat;
	double limit;            /* seconds for each search; <= 0: none
				    (with work), else a safety net */
	uint64_t work;           /* counted work for each search
				    (solver_options.work_limit); 0: time */
	size_t workers;          /* set by compare_run(): threads at work */
};

/*
 * Runs every strategy of j on every row's trace (input_load(): a trace or a
 * MiniMalloc CSV) in up to jobs threads (here alone when none starts), and
 * fills the rows.  Errors stay in the rows; the caller frees each row's
 * cells and error.
 */
void compare_run(struct compare_job *j, size_t jobs);

#endif
