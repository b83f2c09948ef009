/* SPDX-License-Identifier: MIT */
/*
 * exact_milp.c - the mixed-integer programs of exact_plan.c, solved by
 * GLPK when the build found it (MEMPLAN_HAVE_GLPK, see the Makefile);
 * without it every solve says so and the `optimal` strategy refuses.
 * The program is rebuilt for every solve: exact_plan.c adds a cut between
 * solves, and the programs it gives are small (EXACT_MAX_*).
 */
#include "exact_milp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#ifdef MEMPLAN_HAVE_GLPK
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

#ifdef MEMPLAN_HAVE_GLPK

int exact_milp_available(void)
{
	return 1;
}

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

#else /* no GLPK */

int exact_milp_available(void)
{
	return 0;
}

int exact_milp_solve(const struct exact_lp *lp, double time_limit,
		     uint8_t *x, double *obj, char *err, size_t errlen)
{
	(void)lp;
	(void)time_limit;
	(void)x;
	(void)obj;
	trace_seterr(err, errlen, -1,
		     "memplan was built without GLPK (Debian: libglpk-dev), so the exact search is not available");
	return -1;
}

#endif
