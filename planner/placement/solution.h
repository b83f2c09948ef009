/* SPDX-License-Identifier: MIT */
/*
 * solution.h - a placement in MiniMalloc's CSV output format (its
 * converter's ToCsv with a solution: the problem's columns and an offset
 * column), so that MiniMalloc's --validate or any other tool can check
 * memplan's answer on the input memplan was given.  compile --solution.
 */
#ifndef MEMPLAN_SOLUTION_H
#define MEMPLAN_SOLUTION_H

#include <stdint.h>
#include <stdio.h>

#include "solver.h"
#include "trace.h"

/*
 * Writes offsets (offsets[k] for p->items[k]) to f.  When input is a
 * MiniMalloc CSV (input_is_csv()) and trace t was read from it (and not
 * sliced since; a trace imported from a CSV and stored as SQLite is not), its
 * header and rows are copied as given, in input order and with every
 * column, and each row gets its buffer's offset: in the input's own offset
 * column when it has one (pinned rows keep their value), else in an offset
 * column appended at the end, as MiniMalloc writes it.  Any other trace
 * is written as MiniMalloc's columns id,lower,upper,size (alignment and
 * gaps when some buffer needs them), offset: one row per planned buffer in
 * p's order, with the trace's buffer id and the lifetime and holes on the
 * clock that p was placed on.  Returns 0, TRACE_EIO (cannot read input or
 * write f), TRACE_EFORMAT (the input no longer matches t) or
 * TRACE_ENOMEM, with a sentence in err.
 */
int solution_write_csv(FILE *f, const char *input, const struct trace *t,
		       const struct solver_problem *p, const uint64_t *offsets,
		       char *err, size_t errlen);

#endif
