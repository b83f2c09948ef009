/* SPDX-License-Identifier: MIT */
/*
 * exact_milp.c - the mixed-integer programs of exact_plan.c, solved by
 * CBC (COIN-OR's branch and cut, MEMPLAN_HAVE_CBC) or else GLPK
 * (MEMPLAN_HAVE_GLPK), whichever the build found first (see the
 * Makefile); without either every solve says so and the `optimal`
 * strategy refuses.  CBC first: on the programs of models larger than
 * AlexNet its cuts close at the root what GLPK's branch and bound leaves
 * open after a minute (planner/budget/README.md, "CBC").  The program is
 * rebuilt for every solve: exact_plan.c adds a cut between solves, and the
 * programs it gives are small (EXACT_MAX_*).
 */
#include "exact_milp.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#if defined(MEMPLAN_HAVE_CBC)
#include <Cbc_C_Interface.h>
#include <float.h>
#elif defined(MEMPLAN_HAVE_GLPK)
#include <glpk.h>
#endif

int exact_lp_add(struct exact_lp *lp, char sense, double rhs, double dcoef,
		 const uint32_t *ind, const double *val, size_t nz)
{
	if (lp->nrows == lp->cap) {
		size_t cap = lp->cap ? 2 * lp->cap : 64;
		struct exact_row *r = realloc(lp->rows, cap * sizeof(*r));
		if (!r)
			return -1;
		lp->rows = r;
		lp->cap = cap;
	}
	struct exact_row *r = &lp->rows[lp->nrows];
	r->sense = sense;
	r->rhs = rhs;
	r->dcoef = dcoef;
	r->nz = nz;
	r->ind = malloc((nz ? nz : 1) * sizeof(*r->ind));
	r->val = malloc((nz ? nz : 1) * sizeof(*r->val));
	if (!r->ind || !r->val) {
		free(r->ind);
		free(r->val);
		return -1;
	}
	if (nz) {
		memcpy(r->ind, ind, nz * sizeof(*ind));
		memcpy(r->val, val, nz * sizeof(*val));
	}
	lp->nrows++;
	return 0;
}

void exact_lp_free(struct exact_lp *lp)
{
	for (size_t i = 0; i < lp->nrows; i++) {
		free(lp->rows[i].ind);
		free(lp->rows[i].val);
	}
	free(lp->rows);
	free(lp->cost);
	memset(lp, 0, sizeof(*lp));
}

/* The solver this build has, and its version (SOLVER_NAME's two strings). */
#if defined(MEMPLAN_HAVE_CBC)
#define SOLVER_NAME "CBC", Cbc_getVersion()
#elif defined(MEMPLAN_HAVE_GLPK)
#define SOLVER_NAME "GLPK", glp_version()
#endif

const char *exact_milp_solver(void)
{
#ifdef SOLVER_NAME
	static char name[64];
	if (!name[0])
		snprintf(name, sizeof(name), "%s %s", SOLVER_NAME);
	return name;
#else
	return "none";
#endif
}

int exact_milp_available(void)
{
	return strcmp(exact_milp_solver(), "none") != 0;
}

#if defined(MEMPLAN_HAVE_CBC)

/*
 * The program by columns, as Cbc_loadProblem() takes it: columns 0..n-1
 * the binaries, column n the stall d.  Returns the model, or NULL out of
 * memory (or past int's indices, which EXACT_MAX_* keeps it far below).
 */
static Cbc_Model *to_cbc(const struct exact_lp *lp)
{
	size_t ncol = lp->n + 1, nnz = 0;
	for (size_t i = 0; i < lp->nrows; i++)
		nnz += lp->rows[i].nz + (lp->rows[i].dcoef != 0);
	if (ncol > INT_MAX || lp->nrows > INT_MAX || nnz > INT_MAX)
		return NULL;
	int *start = calloc(ncol + 1, sizeof(*start));
	int *fill = malloc(ncol * sizeof(*fill));
	int *index = malloc((nnz ? nnz : 1) * sizeof(*index));
	double *value = malloc((nnz ? nnz : 1) * sizeof(*value));
	double *collb = malloc(ncol * sizeof(*collb));
	double *colub = malloc(ncol * sizeof(*colub));
	double *obj = malloc(ncol * sizeof(*obj));
	double *rowlb = malloc((lp->nrows ? lp->nrows : 1) * sizeof(*rowlb));
	double *rowub = malloc((lp->nrows ? lp->nrows : 1) * sizeof(*rowub));
	Cbc_Model *m = NULL;
	if (!start || !fill || !index || !value || !collb || !colub || !obj ||
	    !rowlb || !rowub)
		goto out;
	for (size_t i = 0; i < lp->nrows; i++) {
		const struct exact_row *r = &lp->rows[i];
		for (size_t z = 0; z < r->nz; z++)
			start[r->ind[z] + 1]++;
		if (r->dcoef != 0)
			start[lp->n + 1]++;
		rowlb[i] = r->sense == 'G' ? r->rhs : -DBL_MAX;
		rowub[i] = r->sense == 'G' ? DBL_MAX : r->rhs;
	}
	for (size_t j = 0; j < ncol; j++) {
		start[j + 1] += start[j];
		fill[j] = start[j];
		collb[j] = 0;
		colub[j] = j < lp->n ? 1 : DBL_MAX;
		obj[j] = j < lp->n ? lp->cost[j] : 1;
	}
	for (size_t i = 0; i < lp->nrows; i++) {
		const struct exact_row *r = &lp->rows[i];
		for (size_t z = 0; z < r->nz; z++) {
			int k = fill[r->ind[z]]++;
			index[k] = (int)i;
			value[k] = r->val[z];
		}
		if (r->dcoef != 0) {
			int k = fill[lp->n]++;
			index[k] = (int)i;
			value[k] = r->dcoef;
		}
	}
	m = Cbc_newModel();
	if (!m)
		goto out;
	Cbc_loadProblem(m, (int)ncol, (int)lp->nrows, start, index, value,
			collb, colub, obj, rowlb, rowub);
	Cbc_setObjSense(m, 1); /* minimise */
	for (size_t j = 0; j < lp->n; j++)
		Cbc_setInteger(m, (int)j);
out:
	free(start);
	free(fill);
	free(index);
	free(value);
	free(collb);
	free(colub);
	free(obj);
	free(rowlb);
	free(rowub);
	return m;
}

int exact_milp_solve(const struct exact_lp *lp, double time_limit,
		     uint8_t *x, double *obj, char *err, size_t errlen)
{
	Cbc_Model *m = to_cbc(lp);
	if (!m)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory"),
		       -1;
	Cbc_setLogLevel(m, 0);
	/* counted, so that a program ends at the same node on any machine
	 * (one thread: CBC's own default); the seconds are the safety net */
	Cbc_setMaximumNodes(m, EXACT_MILP_NODES);
	Cbc_setMaximumSeconds(m, time_limit);
	int rc = Cbc_solve(m);
	int ans = -1;
	if (Cbc_isProvenOptimal(m)) {
		const double *col = Cbc_getColSolution(m);
		*obj = Cbc_getObjValue(m);
		for (size_t j = 0; j < lp->n; j++)
			x[j] = col[j] > 0.5;
		ans = EXACT_MILP_OPTIMAL;
	} else if (Cbc_isProvenInfeasible(m)) {
		ans = EXACT_MILP_INFEASIBLE;
	} else if (!Cbc_isAbandoned(m) &&
		   (Cbc_isNodeLimitReached(m) || Cbc_isSecondsLimitReached(m))) {
		/* the search's own bound: every cost and the stall are
		 * nonnegative, so 0 bounds what it could not */
		double b = Cbc_getBestPossibleObjValue(m);
		*obj = isfinite(b) && b > 0 ? b : 0;
		ans = EXACT_MILP_LIMIT;
	}
	if (ans < 0)
		trace_seterr(err, errlen, TRACE_EINVAL,
			     "CBC failed on the program (Cbc_solve %d, status %d, secondary status %d)",
			     rc, Cbc_status(m), Cbc_secondaryStatus(m));
	Cbc_deleteModel(m);
	return ans;
}

#elif defined(MEMPLAN_HAVE_GLPK)

/* GLPK counts from 1; column n + 1 is the stall d. */
static glp_prob *to_glpk(const struct exact_lp *lp, int *ind, double *val)
{
	glp_prob *P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MIN);
	glp_add_cols(P, (int)lp->n + 1);
	for (size_t j = 0; j < lp->n; j++) {
		glp_set_col_kind(P, (int)j + 1, GLP_BV);
		glp_set_obj_coef(P, (int)j + 1, lp->cost[j]);
	}
	int d = (int)lp->n + 1;
	glp_set_col_bnds(P, d, GLP_LO, 0.0, 0.0);
	glp_set_obj_coef(P, d, 1.0);
	if (lp->nrows)
		glp_add_rows(P, (int)lp->nrows);
	for (size_t i = 0; i < lp->nrows; i++) {
		const struct exact_row *r = &lp->rows[i];
		int k = 0;
		for (size_t z = 0; z < r->nz; z++) {
			ind[++k] = (int)r->ind[z] + 1;
			val[k] = r->val[z];
		}
		if (r->dcoef != 0) {
			ind[++k] = d;
			val[k] = r->dcoef;
		}
		glp_set_mat_row(P, (int)i + 1, k, ind, val);
		glp_set_row_bnds(P, (int)i + 1, r->sense == 'G' ? GLP_LO : GLP_UP,
				 r->rhs, r->rhs);
	}
	return P;
}

/* The LP relaxation's optimum: a lower bound when the search ran out of
 * time.  INFINITY when infeasible, NAN when GLPK fails. */
static double relaxation(glp_prob *P)
{
	glp_smcp sm;
	glp_init_smcp(&sm);
	sm.msg_lev = GLP_MSG_OFF;
	sm.presolve = GLP_ON;
	if (glp_simplex(P, &sm) != 0)
		return NAN;
	int st = glp_get_status(P);
	if (st == GLP_OPT)
		return glp_get_obj_val(P);
	if (st == GLP_NOFEAS || st == GLP_INFEAS)
		return INFINITY;
	return NAN;
}

/* Counts the subproblems the search selects and stops it past the
 * limit: counted work, so that a program ends at the same node on any
 * machine (tm_lim, read off the clock, is only the safety net). */
struct nodes {
	unsigned long n, limit;
};

static void count_nodes(glp_tree *T, void *info)
{
	struct nodes *c = info;
	if (glp_ios_reason(T) == GLP_ISELECT && ++c->n > c->limit)
		glp_ios_terminate(T);
}

int exact_milp_solve(const struct exact_lp *lp, double time_limit,
		     uint8_t *x, double *obj, char *err, size_t errlen)
{
	size_t w = lp->n + 2;
	int *ind = malloc(w * sizeof(*ind));
	double *val = malloc(w * sizeof(*val));
	if (!ind || !val) {
		free(ind);
		free(val);
		trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
		return -1;
	}
	glp_prob *P = to_glpk(lp, ind, val);
	free(ind);
	free(val);
	glp_iocp io;
	glp_init_iocp(&io);
	io.msg_lev = GLP_MSG_OFF;
	io.presolve = GLP_ON;
	/* the Driebeck-Tomlin default evaluates tableau rows per branch: on
	 * these programs most of the time; the most fractional is cheap */
	io.br_tech = GLP_BR_MFV;
	io.bt_tech = GLP_BT_BLB;
	io.tm_lim = (int)(time_limit * 1000.0);
	struct nodes nodes = { 0, EXACT_MILP_NODES };
	io.cb_func = count_nodes;
	io.cb_info = &nodes;
	int rc = glp_intopt(P, &io);
	int st = glp_mip_status(P);
	int ans = -1;
	if (rc == 0 && st == GLP_OPT) {
		*obj = glp_mip_obj_val(P);
		for (size_t j = 0; j < lp->n; j++)
			x[j] = glp_mip_col_val(P, (int)j + 1) > 0.5;
		ans = EXACT_MILP_OPTIMAL;
	} else if (rc == GLP_ENOPFS || st == GLP_NOFEAS) {
		ans = EXACT_MILP_INFEASIBLE;
	} else if (rc == GLP_ETMLIM || rc == GLP_ESTOP) {
		ans = EXACT_MILP_LIMIT;
	}
	if (ans == EXACT_MILP_LIMIT) {
		*obj = relaxation(P);
		if (isnan(*obj))
			ans = -1;
	}
	if (ans < 0)
		trace_seterr(err, errlen, TRACE_EINVAL,
			     "GLPK failed on the program (glp_intopt %d, status %d)",
			     rc, st);
	glp_delete_prob(P);
	return ans;
}

#else /* neither CBC nor GLPK */

int exact_milp_solve(const struct exact_lp *lp, double time_limit,
		     uint8_t *x, double *obj, char *err, size_t errlen)
{
	(void)lp;
	(void)time_limit;
	(void)x;
	(void)obj;
	trace_seterr(err, errlen, -1,
		     "memplan was built without an integer-programming library (Debian: coinor-libcbc-dev or libglpk-dev), so the exact search is not available");
	return -1;
}

#endif
