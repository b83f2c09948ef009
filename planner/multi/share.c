/* SPDX-License-Identifier: MIT */
/*
 * share.c - several workloads on one device (share.h): each job's frontier
 * is a list of verified, simulated swap plans (swap_plan_ctx()), pools
 * rising and overheads falling; the split picks one point per job under the
 * memory left by the persistent bytes.  Minimising the worst overhead is
 * exact by levels: the least level at which every job's smallest pool
 * within it fits; the total within that level, and the SHARE_SUM
 * objective, by a depth-first branch and bound over the points.
 */
#include "share.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simulate.h"
#include "swap.h"

uint64_t share_persistent(const struct trace *t)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		if (trace_buffer_persistent(b) && b->kind != TRACE_KIND_HOST)
			sum += b->rounded > b->size ? b->rounded : b->size;
	}
	return sum;
}

static void point_free(struct share_point *q)
{
	mp_plan_free(&q->plan);
}

/* Keeps q (taking its plan) unless a point with a pool no larger has no
 * more overhead; drops the points q makes useless.  -1 out of memory. */
static int insert(struct share_job *j, struct share_point *q)
{
	for (size_t i = 0; i < j->npts; i++)
		if (j->pts[i].pool <= q->pool && j->pts[i].overhead <= q->overhead &&
		    j->pts[i].swapped <= q->swapped) {
			point_free(q);
			return 0;
		}
	size_t k = 0;
	for (size_t i = 0; i < j->npts; i++) {
		if (j->pts[i].pool >= q->pool && j->pts[i].overhead >= q->overhead &&
		    j->pts[i].swapped >= q->swapped)
			point_free(&j->pts[i]);
		else
			j->pts[k++] = j->pts[i];
	}
	j->npts = k;
	struct share_point *np = realloc(j->pts, (j->npts + 1) * sizeof(*np));
	if (!np) {
		point_free(q);
		return -1;
	}
	j->pts = np;
	size_t at = 0;
	while (at < j->npts && j->pts[at].pool < q->pool)
		at++;
	memmove(&j->pts[at + 1], &j->pts[at], (j->npts - at) * sizeof(*np));
	j->pts[at] = *q;
	j->npts++;
	return 0;
}

/* Plans budget: 1 kept (or dominated), 0 does not fit, <0 an error;
 * *overhead (may be NULL) the plan's, INFINITY when none fits. */
static int plan_at(struct share_job *j, uint64_t budget, double *overhead,
		   char *err, size_t errlen)
{
	if (overhead)
		*overhead = INFINITY;
	if (j->no_swaps && budget < j->lb)
		return 0;
	struct share_point q;
	struct sim_result sim;
	struct swap_outcome oc;
	memset(&q, 0, sizeof(q));
	int rc = swap_plan_ctx(j->ctx, "memplan", budget, "best-fit", j->align,
			       &q.plan, &sim, &oc, err, errlen);
	if (rc == SWAP_ENOFIT)
		return 0;
	if (rc)
		return rc;
	q.budget = budget;
	q.pool = q.plan.pool_size;
	q.overhead = sim_overhead(&sim);
	q.swapped = oc.swapped;
	q.nswaps = oc.nops;
	q.iter_ns = sim.iter_ns;
	q.base_ns = sim.base_ns;
	if (overhead)
		*overhead = q.overhead;
	sim_free(&sim);
	if (insert(j, &q))
		return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory keeping a frontier");
	return 1;
}

int share_job_init(struct share_job *j, const struct link_model *l,
		   double step, char *err, size_t errlen)
{
	j->pts = NULL;
	j->npts = 0;
	j->persistent = share_persistent(j->t);
	j->lb = solver_lower_bound(j->p);
	j->ctx = calloc(1, sizeof(*j->ctx));
	if (!j->ctx)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	int rc = swap_ctx_init(j->ctx, j->t, j->p, l, err, errlen);
	if (rc)
		return rc;
	if (!(step > 0))
		step = 5;
	rc = plan_at(j, (uint64_t)((double)j->lb * 1.1), NULL, err, errlen);
	for (double pct = 100; rc >= 0 && pct >= 5 - 1e-9; pct -= step) {
		rc = plan_at(j, (uint64_t)((double)j->lb * pct / 100), NULL, err,
			     errlen);
		if (rc == 0)
			break;
	}
	return rc < 0 ? rc : 0;
}

int share_job_add(struct share_job *j, uint64_t budget, double *overhead,
		  char *err, size_t errlen)
{
	int rc = plan_at(j, budget, overhead, err, errlen);
	return rc < 0 ? rc : 0;
}

void share_job_free(struct share_job *j)
{
	for (size_t i = 0; i < j->npts; i++)
		point_free(&j->pts[i]);
	free(j->pts);
	if (j->ctx) {
		swap_ctx_free(j->ctx);
		free(j->ctx);
	}
	j->pts = NULL;
	j->ctx = NULL;
	j->npts = 0;
}

void share_proportional(const struct share_job *jobs, size_t n,
			uint64_t avail, uint64_t *budget)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += (double)jobs[i].lb;
	for (size_t i = 0; i < n; i++)
		budget[i] = sum > 0 ? (uint64_t)((double)avail *
						 ((double)jobs[i].lb / sum))
				    : 0;
}

/* --- the split ----------------------------------------------------------- */

struct bb {
	const struct share_job *jobs;
	size_t n;
	uint64_t avail;
	enum share_objective obj;
	double level;          /* points above it are out */
	uint64_t *minpool;     /* [i]: the least pool of jobs i.. within level */
	size_t *cur, *best;
	double best_a, best_b; /* (primary, secondary) of best */
	uint64_t best_moved;   /* then the fewest bytes swapped */
	int have;
	unsigned long nodes;
};

#define BB_NODES 4000000UL

/* (primary, secondary) of a partial or whole choice. */
static void cost(const struct bb *b, double worst, double total, double *a,
		 double *c)
{
	*a = b->obj == SHARE_MAX ? worst : total;
	*c = b->obj == SHARE_MAX ? total : worst;
}

static int better(double a, double c, uint64_t m, double ba, double bc,
		  uint64_t bm)
{
	if (a < ba - 1e-9)
		return 1;
	if (a > ba + 1e-9)
		return 0;
	if (c < bc - 1e-9)
		return 1;
	return c <= bc + 1e-9 && m < bm;
}

static void dfs(struct bb *b, size_t i, uint64_t used, double worst,
		double total, uint64_t moved)
{
	if (++b->nodes > BB_NODES)
		return;
	double a, c;
	cost(b, worst, total, &a, &c);
	if (b->have && !better(a, c, moved, b->best_a, b->best_b, b->best_moved))
		return; /* all three only grow */
	if (i == b->n) {
		memcpy(b->best, b->cur, b->n * sizeof(*b->cur));
		b->best_a = a;
		b->best_b = c;
		b->best_moved = moved;
		b->have = 1;
		return;
	}
	const struct share_job *j = &b->jobs[i];
	uint64_t rest = i + 1 < b->n ? b->minpool[i + 1] : 0;
	/* the larger pools first: less overhead, a good bound early */
	for (size_t k = j->npts; k-- > 0;) {
		const struct share_point *q = &j->pts[k];
		if (q->overhead > b->level + 1e-9)
			continue;
		if (used + q->pool + rest > b->avail)
			continue;
		b->cur[i] = k;
		dfs(b, i + 1, used + q->pool, fmax(worst, q->overhead),
		    total + q->overhead, moved + q->swapped);
	}
}

/* The least pool of job j with overhead at most level; UINT64_MAX none. */
static uint64_t least_within(const struct share_job *j, double level)
{
	for (size_t k = 0; k < j->npts; k++)
		if (j->pts[k].overhead <= level + 1e-9)
			return j->pts[k].pool;
	return UINT64_MAX;
}

/* Sum of the least pools within level, saturating. */
static uint64_t sum_least(const struct share_job *jobs, size_t n,
			  double level)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t m = least_within(&jobs[i], level);
		if (m == UINT64_MAX || s + m < s)
			return UINT64_MAX;
		s += m;
	}
	return s;
}

int share_split(const struct share_job *jobs, size_t n, uint64_t avail,
		enum share_objective obj, size_t *pick)
{
	if (sum_least(jobs, n, INFINITY) > avail)
		return SHARE_ENOFIT;
	double level = INFINITY;
	if (obj == SHARE_MAX) {
		/* the least level whose least pools fit: the overheads are the
		 * only levels there are */
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < jobs[i].npts; k++) {
				double v = jobs[i].pts[k].overhead;
				if (v < level && sum_least(jobs, n, v) <= avail)
					level = v;
			}
	}
	struct bb b = { jobs, n, avail, obj, level, NULL, NULL, NULL, 0, 0, 0, 0, 0 };
	b.minpool = calloc(n + 1, sizeof(*b.minpool));
	b.cur = calloc(n + 1, sizeof(*b.cur));
	b.best = calloc(n + 1, sizeof(*b.best));
	int rc = 0;
	if (!b.minpool || !b.cur || !b.best) {
		rc = TRACE_ENOMEM;
		goto out;
	}
	for (size_t i = n; i-- > 0;)
		b.minpool[i] = b.minpool[i + 1] + least_within(&jobs[i], level);
	/* a greedy seed: the least pools within the level */
	double worst = 0, total = 0;
	uint64_t moved = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (jobs[i].pts[k].overhead > level + 1e-9)
			k++;
		b.best[i] = k;
		worst = fmax(worst, jobs[i].pts[k].overhead);
		total += jobs[i].pts[k].overhead;
		moved += jobs[i].pts[k].swapped;
	}
	cost(&b, worst, total, &b.best_a, &b.best_b);
	b.best_moved = moved;
	b.have = 1;
	dfs(&b, 0, 0, 0, 0, 0);
	memcpy(pick, b.best, n * sizeof(*pick));
out:
	free(b.minpool);
	free(b.cur);
	free(b.best);
	return rc;
}
