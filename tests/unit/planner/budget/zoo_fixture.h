/* SPDX-License-Identifier: MIT */
/*
 * zoo_fixture.h - the budget planner's fixture of a zoo model cut to a few
 * layers: its trace, placement problem (without holes, at the trace's
 * alignment), link and swap context, as the planner builds them.  Shared by
 * test_exact_plan and test_oom (which fails its allocations in turn).
 */
#ifndef MEMPLAN_TESTS_ZOO_FIXTURE_H
#define MEMPLAN_TESTS_ZOO_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "link.h"
#include "solver.h"
#include "swap.h"
#include "synth.h"
#include "trace.h"

struct zoo_fx {
	struct trace *t;
	struct solver_problem p;
	struct link_model l;
	struct swap_ctx c;
	uint64_t lb;
	uint64_t align; /* zoo_fx_init()'s: the trace's alignment */
};

/*
 * model at batch, cut to depth layers (synth --depth, fp32, H200 timings),
 * over link.  Returns 0, or -1 having said why (f may be freed either way).
 */
static inline int zoo_fx_init_depth(struct zoo_fx *f, const char *model,
				    uint64_t batch, unsigned depth,
				    const char *link)
{
	struct synth_opts so = { model, batch, SYNTH_FP32, "h200", 0, NULL,
				 depth };
	char err[768];
	memset(f, 0, sizeof(*f));
	if (synth_build(&so, &f->t, err, sizeof(err)) ||
	    solver_problem_from_trace(f->t, &f->p, err, sizeof(err)) ||
	    link_parse(link, f->t, &f->l, err, sizeof(err))) {
		printf("# %s\n", err);
		return -1;
	}
	solver_problem_drop_holes(&f->p);
	f->align = solver_trace_align(f->t, 1);
	if (solver_problem_align(&f->p, f->align, err, sizeof(err)) ||
	    swap_ctx_init(&f->c, f->t, &f->p, &f->l, err, sizeof(err))) {
		printf("# %s\n", err);
		return -1;
	}
	f->lb = solver_lower_bound(&f->p);
	return 0;
}

/* zoo_fx_init_depth() at one layer. */
static inline int zoo_fx_init(struct zoo_fx *f, const char *model,
			      uint64_t batch, const char *link)
{
	return zoo_fx_init_depth(f, model, batch, 1, link);
}

static inline void zoo_fx_free(struct zoo_fx *f)
{
	swap_ctx_free(&f->c);
	solver_problem_free(&f->p);
	trace_free(f->t);
}

#endif
