/* SPDX-License-Identifier: MIT */
/*
 * compare.c - the strategies over many traces (compare.h).  Workers take the
 * next row under a lock and own it alone while they plan it, so rows need no
 * lock of their own; a row's results do not depend on which worker ran it,
 * and with counted work (compare_job.work) not on the machine's load.
 */
#include "compare.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "solver.h"

#define ERRLEN 1024

/* A job and the lock its workers share. */
struct compare_pool {
	struct compare_job *job;
	pthread_mutex_t lock;
};

/* Keeps the first error of a row (its code and stage with it). */
static void row_fail(struct compare_row *r, enum compare_stage at, int rc,
		     const char *msg)
{
	if (r->error)
		return;
	r->error = strdup(msg);
	r->rc = rc;
	r->failed_at = at;
}

static void compare_one(const struct compare_job *j, struct compare_row *r)
{
	char err[ERRLEN];
	struct trace *t = NULL;
	struct solver_problem p;
	memset(&p, 0, sizeof(p));
	uint64_t *off = NULL;
	int rc = input_load(r->path, &t, err, sizeof(err));
	if (rc) {
		row_fail(r, COMPARE_LOAD, rc, err);
		return;
	}
	rc = solver_problem_from_trace(t, &p, err, sizeof(err));
	/* compile's default alignment: 256 and up for CUDA allocations */
	uint64_t align = solver_trace_align(t, 1);
	if (!rc && align > 1)
		rc = solver_problem_align(&p, align, err, sizeof(err));
	if (rc) {
		row_fail(r, COMPARE_PLAN, rc, err);
		goto out;
	}
	r->buffers = p.n;
	r->lower_bound = solver_lower_bound(&p);
	if (p.n == 0) {
		row_fail(r, COMPARE_PLAN, SOLVER_EINVAL,
			 "no transient buffers to plan");
		goto out;
	}
	off = malloc(p.n * sizeof(*off));
	if (!off) {
		row_fail(r, COMPARE_PLAN, SOLVER_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t s = 0; s < j->nstrat; s++) {
		const char *name = j->strategies[s];
		/* with workers on every processor, a search's second
		 * thread would only take a core from another trace */
		struct solver_options so = { .time_limit = j->limit,
					     .work_limit = j->work,
					     .max_threads = j->workers > 1 };
		struct solver_report rep;
		rc = solver_solve(&p, name, &so, off, &rep, err, sizeof(err));
		struct compare_cell *c = &r->cells[s];
		if (rc) {
			c->failed = 1;
			char msg[ERRLEN + 64];
			snprintf(msg, sizeof(msg), "%s: %s", name, err);
			row_fail(r, COMPARE_PLAN, rc, msg);
			continue;
		}
		c->pool = rep.height;
		c->seconds = rep.seconds;
		c->optimal = rep.optimal;
	}
out:
	free(off);
	solver_problem_free(&p);
	trace_free(t);
}

static void *compare_worker(void *arg)
{
	struct compare_pool *w = arg;
	struct compare_job *j = w->job;
	for (;;) {
		pthread_mutex_lock(&w->lock);
		size_t i = j->next++;
		pthread_mutex_unlock(&w->lock);
		if (i >= j->nrows)
			return NULL;
		compare_one(j, &j->rows[i]);
	}
}

void compare_run(struct compare_job *j, size_t jobs)
{
	struct compare_pool w;
	w.job = j;
	pthread_mutex_init(&w.lock, NULL);
	size_t nth = jobs < j->nrows ? jobs : j->nrows;
	pthread_t *th = malloc((nth ? nth : 1) * sizeof(*th));
	size_t started = 0;
	j->workers = nth; /* before any worker reads it */
	for (size_t i = 0; th && i < nth; i++) {
		if (pthread_create(&th[i], NULL, compare_worker, &w) != 0)
			break;
		started++;
	}
	if (started == 0) {
		j->workers = 1;
		compare_worker(&w); /* no thread: do it all here */
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	pthread_mutex_destroy(&w.lock);
}
