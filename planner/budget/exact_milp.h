/* SPDX-License-Identifier: MIT */
/*
 * exact_milp.h - the program exact_plan.c builds, as plain data, and the
 * one call that hands it to CBC or GLPK (exact_milp.c, the only file that
 * includes their headers).  n binaries x[0..n) and one continuous d >= 0 (the
 * stall), minimise sum cost[j] x[j] + d under rows
 * sum val x + dcoef d (>= | <=) rhs.
 */
#ifndef MEMPLAN_EXACT_MILP_H
#define MEMPLAN_EXACT_MILP_H

#include <stddef.h>
#include <stdint.h>

struct exact_row {
	char sense;      /* 'G': >= rhs, 'L': <= rhs */
	double rhs, dcoef;
	size_t nz;
	uint32_t *ind;   /* binaries, each once */
	double *val;
};

struct exact_lp {
	size_t n;
	double *cost;
	struct exact_row *rows;
	size_t nrows, cap;
};

/* Appends a row (ind and val copied); 0 or -1 out of memory. */
int exact_lp_add(struct exact_lp *lp, char sense, double rhs, double dcoef,
		 const uint32_t *ind, const double *val, size_t nz);
void exact_lp_free(struct exact_lp *lp);

/* exact_milp_solve()'s answers */
#define EXACT_MILP_OPTIMAL 0    /* x and *obj: an optimum */
#define EXACT_MILP_INFEASIBLE 1 /* no x satisfies the rows */
#define EXACT_MILP_LIMIT 2      /* a limit ended it: *obj is the LP
				   relaxation's optimum, a lower bound (x
				   unset); INFINITY when even that is
				   infeasible */

/* Subproblems one program may select before it stops (EXACT_MILP_LIMIT):
 * counted, so the answer repeats on any machine. */
#define EXACT_MILP_NODES 3000

/*
 * Solves lp with CBC's branch and cut (or GLPK's branch and bound,
 * presolved), quiet, on one thread, at most EXACT_MILP_NODES subproblems
 * and time_limit seconds.  Returns an EXACT_MILP_* answer, or -1 with a
 * sentence in err (neither in this build, or the solver failed).  At a
 * limit *obj is CBC's best bound, or GLPK's LP relaxation.
 */
int exact_milp_solve(const struct exact_lp *lp, double time_limit,
		     uint8_t *x, double *obj, char *err, size_t errlen);

/* 1 when built with CBC or GLPK. */
int exact_milp_available(void);

/* The solver and its version ("CBC 2.10.8", "GLPK 5.0"), or "none". */
const char *exact_milp_solver(void);

#endif
