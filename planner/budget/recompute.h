/* SPDX-License-Identifier: MIT */
/*
 * recompute.h - recomputation instead of (or beside) swapping: which of a
 * trace's transient buffers the program could free after their last
 * forward use and make again, by re-running the kernels that wrote them,
 * just before their next use; a choice per buffer (keep, swap, recompute)
 * for a budget and a link; and the trace of the program once it recomputes
 * (recomp_transform()), on which the swap planner makes the plan the
 * runtime follows.  Used by memplan-plan advise and by the `recompute` and
 * `hybrid` strategies of compile, frontier and the bench (swap_plan_ctx()).
 * Invariant: a buffer marked RECOMP_OK has a re-run whose inputs are
 * resident and unchanged at it (or made again by it, as temporaries), so
 * the transformed trace finishes.
 */
#ifndef MEMPLAN_RECOMPUTE_H
#define MEMPLAN_RECOMPUTE_H

#include <stddef.h>
#include <stdint.h>

#include "link.h"
#include "plan.h"
#include "simulate.h"
#include "solver.h"
#include "swap.h"
#include "trace.h"

/* The kernels that make a buffer before its gap: the one that creates it
 * and those that update it in place (an in-place ReLU after a batch norm). */
#define RECOMP_MAX_WRITERS 3
/* The kernels one re-run may run: the producer's, and before them those
 * of inputs freed by then, made again as temporaries (a bounded chain: a
 * linear's bf16 weight cast, the scores, scale and mask before a softmax). */
#define RECOMP_MAX_RERUN 8

/* Why a buffer cannot be recomputed (RECOMP_OK: it can). */
enum recomp_why {
	RECOMP_OK = 0,
	RECOMP_NOT_PLANNED,  /* persistent, host or pass-through memory */
	RECOMP_NO_PRODUCER,  /* no kernel creates it (a copy, a memset, none) */
	RECOMP_WRITERS,      /* more than RECOMP_MAX_WRITERS kernels write it */
	RECOMP_RANDOM,       /* unused: a producer drawing random numbers
				(dropout) re-runs with the generator's state
				restored (recomp_buf.rng) */
	RECOMP_INPUT_FREED,  /* an input of the producer is gone at the re-run */
	RECOMP_INPUT_CHANGED,/* an input is written between producer and re-run */
	RECOMP_IN_PLACE,     /* the producer updates a transient input in place */
	RECOMP_NO_GAP,       /* no later use to recompute it for */
	RECOMP_UNKNOWN,      /* an access of unknown mode, or holes */
	RECOMP_STREAMS,      /* used on more than one stream: its free and
				re-run would be ordered after one of them */
	RECOMP_WHY_COUNT
};
const char *recomp_why_name(unsigned why);

/* One buffer of the trace, as the model sees it. */
struct recomp_buf {
	uint8_t why;        /* enum recomp_why */
	uint8_t nwriters;
	int64_t writer[RECOMP_MAX_WRITERS]; /* event indexes, in order */
	uint8_t nrerun;
	int64_t rerun[RECOMP_MAX_RERUN]; /* the kernels the re-run runs, in
					    trace order: the writers and the
					    chain of freed inputs' producers */
	int64_t last_fwd;   /* freed after this event (the use before the gap) */
	int64_t next_use;   /* re-run just before this event */
	int64_t blocker;    /* the input that blocks it, or -1 */
	uint8_t rng;        /* the re-run draws random numbers: the framework
			       restores the generator's state before it, as
			       PyTorch's checkpoint (preserve_rng_state) */
	double cost_ns;     /* the re-run: its kernels' durations */
	uint64_t temp_bytes;/* buffers the re-run makes that are not live at it
			       (the writers' other outputs, freed inputs) */
	uint64_t bytes;     /* the item's size in the problem */
	int64_t item;       /* index in the problem, -1 */
	int64_t sib;        /* for a random draw's output: the first (lowest
			       index) of the candidates its very re-run
			       makes too, each of at least 1% of the largest
			       of them (a dropout's output and mask):
			       recomp_choose() weighs them as one re-run,
			       charged once; the buffer itself when none */
};

/* The model of one finished trace and its problem (solver_problem_from_trace,
 * alignment raised).  Only reads them; they must outlive it. */
struct recomp_model {
	const struct trace *t;
	const struct solver_problem *p;
	struct recomp_buf *b;  /* per buffer */
	size_t n;
	size_t ncand;          /* buffers with why == RECOMP_OK */
	double base_ns;        /* the trace's iteration, first start to last end */
};

/* Builds the model.  Returns 0, or TRACE_ENOMEM with a sentence; free with
 * recomp_model_free() either way. */
int recomp_model_init(struct recomp_model *m, const struct trace *t,
		      const struct solver_problem *p, char *err, size_t errlen);
void recomp_model_free(struct recomp_model *m);

/* The access mode of buffer x at event ev: the OR of its accesses there,
 * TRACE_ACCESS_UNKNOWN counting as both. */
unsigned recomp_mode_at(const struct trace *t, size_t ev, int64_t x);

/* Is kernel name a random draw (dropout, bernoulli, rand*)?  A trace marks
 * a kernel random by its name; see memplan-plan(1), "Recomputation". */
int recomp_kernel_random(const char *name);

/*
 * Chooses buffers to recompute, cheapest re-run per byte first, until the
 * resident peak of the problem (on event indexes) is at most target or no
 * candidate helps: chosen[i] (per buffer, zeroed by the caller or holding
 * an earlier choice to extend) is set for each: 1 for a re-run of its
 * own, 2 for a buffer made by the re-run of its sib (chosen 1; recomp_buf.sib)
 * before the first next use of either, the kernels run and charged once.
 * Two choices never meet: a buffer is not chosen while an input of its
 * producer is away at its re-run.  Returns the resident peak reached.
 */
uint64_t recomp_choose(const struct recomp_model *m, uint64_t target,
		       uint8_t *chosen);
/* recomp_choose(), with units 0: single buffers only, no two made by one
 * re-run (the choice before issue 32's units; hybrid tries both, since
 * neither is always the better start for its swaps). */
uint64_t recomp_choose_units(const struct recomp_model *m, uint64_t target,
			     uint8_t *chosen, int units);

/*
 * The trace of the program that recomputes the chosen buffers: each is
 * freed right after its last forward use, and just before its next use a
 * new buffer of the same size and label is allocated, the temporaries of
 * its producer too, the producer's kernels run again (times after them
 * pushed back by their durations) and the temporaries are freed; later
 * uses and the free go to the new buffer.  Meta "recompute.base_ns" holds
 * the original iteration (the simulator measures overhead against it) and
 * "recompute.buffers" the count.  *orig (may be NULL) gets, per buffer of
 * the new trace, the original buffer it stands for (malloc'ed).  Returns 0
 * and *out (trace_free), or TRACE_ENOMEM / TRACE_EFORMAT with a sentence.
 */
int recomp_transform(const struct recomp_model *m, const uint8_t *chosen,
		     struct trace **out, int64_t **orig, char *err,
		     size_t errlen);

/*
 * Buffers made again together (a segment of the forward recomputed from
 * its checkpoints): the buffers of one group are freed after their last
 * forward use and made again by one re-run, before the group's point,
 * which runs the writers of every member and, in turn, the writers of
 * every input that is not resident with its value there (freed, in
 * another group's window, or overwritten since), however many; the cost
 * of a re-run is charged once per group.  Re-runs at one point run in
 * group order.  A chosen[] of recomp_choose() is the special case of one
 * group per buffer (recomp_groups_from_choice()).
 */
struct recomp_groups {
	size_t ngroups;
	int64_t *at;       /* per group: the re-run runs before this event */
	int32_t *group;    /* per buffer: its group, -1 kept */
	int64_t *last_fwd; /* per buffer in a group: freed after this event */
	/* filled by recomp_groups_close(), per group: */
	double *cost_ns;   /* the re-run's kernels' durations */
	uint32_t *nkernels;
	int64_t *first, *last; /* its first and last kernel (event index) */
	uint8_t *rng;      /* it re-runs a random draw: the framework
			      restores the generator's state (PyTorch's
			      checkpoint preserve_rng_state) */
	int64_t *ckpt;     /* the largest transient buffer the re-run reads
			      and does not make: its checkpoint, or -1 */
};

/* Allocates for nbuffers and ngroups, every buffer kept; TRACE_ENOMEM.
 * Free with recomp_groups_free() either way. */
int recomp_groups_init(struct recomp_groups *g, size_t nbuffers,
		       size_t ngroups);
void recomp_groups_free(struct recomp_groups *g);
/* One group per chosen buffer, at its next use, a buffer chosen 2 in its
 * sib's group (recomp_choose()); TRACE_ENOMEM. */
int recomp_groups_from_choice(const struct recomp_model *m,
			      const uint8_t *chosen, struct recomp_groups *g);
/* The groups of chosen as recomp_groups_from_choice() makes them, into
 * groups 0.. of g (initialized for m->n buffers and enough groups, every
 * buffer kept); returns how many. */
size_t recomp_groups_put_choice(const struct recomp_model *m,
				const uint8_t *chosen, struct recomp_groups *g);
/* Closes every group in order: a group whose re-run cannot be made (a
 * member or input whose writers are not kernels, an input updated in
 * place) is dropped, its members kept (*dropped counts them, may be
 * NULL); the others get their cost, kernels and random flag.  Returns 0
 * or TRACE_ENOMEM with a sentence. */
int recomp_groups_close(const struct recomp_model *m, struct recomp_groups *g,
			size_t *dropped, char *err, size_t errlen);
/* Can group g's re-run be made?  1 yes (*temp_bytes: its temporaries'
 * bytes, all of them), 0 no, -1 out of memory. */
int recomp_groups_check(const struct recomp_model *m,
			const struct recomp_groups *g, size_t g_index,
			uint64_t *temp_bytes);
/* recomp_transform() for groups (closed or not: a group whose re-run
 * cannot be made is an internal error, TRACE_EINVAL). */
int recomp_transform_groups(const struct recomp_model *m,
			    const struct recomp_groups *g, struct trace **out,
			    int64_t **orig, char *err, size_t errlen);

/* The forward pass: the events of the mark range named "forward", else
 * from the first kernel to the last before the first whose name says bwd
 * or backward.  Returns 0 and its first and last event index, or -1. */
int recomp_forward(const struct trace *t, int64_t *lo, int64_t *hi);

/*
 * The layers of the forward: its kernels cut after every kernel where at
 * most one tensor made in the forward (of at least 1% of the largest, so
 * an attention mask or ids do not count) is still to be read later in the
 * forward: the layer's output, its checkpoint.  A ResNet's blocks and its
 * stem's operators, a transformer's residual sums.
 */
struct recomp_units {
	int64_t lo, hi; /* the forward */
	size_t n;
	int64_t *end;   /* per layer, its last kernel (event index) */
};
/* Returns 0, SWAP_ENOFIT (no forward) or TRACE_ENOMEM with a sentence;
 * free with recomp_units_free() on success. */
int recomp_units_find(const struct recomp_model *m, struct recomp_units *u,
		      char *err, size_t errlen);
void recomp_units_free(struct recomp_units *u);

/*
 * A checkpoint baseline as groups: the layers in segments of per layers
 * (0: ceil(sqrt(layers)), Chen et al. 2016; 1: every layer), each
 * segment's tensors saved for the backward freed after the forward but
 * its output (the next segment's input, kept) and made again by one
 * re-run of the segment's forward before the first backward use of any
 * of them, the last segment excepted (its backward comes first).  Closed
 * (recomp_groups_close()).  *nseg: the segments.  Returns 0, SWAP_ENOFIT
 * or TRACE_ENOMEM with a sentence; recomp_groups_free() either way.
 */
int recomp_choose_checkpoints(const struct recomp_model *m, unsigned per,
			      struct recomp_groups *g, size_t *nseg,
			      char *err, size_t errlen);

/*
 * The choice with segments, for when single buffers cannot reach target:
 * the single buffers of chosen (recomp_choose()'s, may be NULL) as groups
 * of one; then buffers that meet chosen ones (an input of their writers,
 * or read by the writers of one), the cheapest writers' time per byte
 * first among those away at the current peak, each merged with the groups
 * of its neighbours into one segment whose re-run runs at the first next
 * use of any member (kept only if that re-run can be made); then whole
 * layers (recomp_units), the cheapest forward time per byte first, a
 * layer taking over the buffers it holds; until the resident peak is at
 * most target or nothing helps; then single buffers no longer needed, the
 * dearest per byte first (at most 256), are kept again.  Each re-run is
 * charged once.  Closed.  Returns the peak reached, or UINT64_MAX (out of
 * memory, a sentence); recomp_groups_free() either way.
 */
uint64_t recomp_choose_layers(const struct recomp_model *m, uint64_t target,
			      const uint8_t *chosen, struct recomp_groups *g,
			      char *err, size_t errlen);

/* The layer of a label for reports: the module path, its last component
 * dropped ("layer1.0.bn1.out" -> "layer1.0.bn1"); "-" for none. */
void recomp_layer(const char *label, char *buf, size_t len);
/* The operator kind of buffer i for reports: its producer's kernels' first
 * words joined by '+' ("batch_norm_fwd+relu_"), else its first use's. */
void recomp_kind(const struct recomp_model *m, size_t i, char *buf,
		 size_t len);

/* The decisions of an advice, per buffer of the original trace. */
enum recomp_action { RECOMP_KEEP = 0, RECOMP_SWAP = 1, RECOMP_RECOMPUTE = 2 };

struct recomp_advice {
	struct trace *t2;        /* the program after recomputing (owned) */
	struct solver_problem p2;/* its problem, aligned */
	struct mp_plan plan;     /* the plan of t2 */
	struct sim_result sim;   /* its simulation, overhead against t's */
	uint8_t *action;         /* per original buffer: enum recomp_action */
	double *cost_ns;         /* per original buffer: re-run, or swap stall */
	size_t nbuf;
	size_t nrecompute, nswap;
	uint64_t recomputed, swapped; /* bytes */
	struct recomp_groups groups; /* the re-runs: per buffer its group
					(a segment, or the buffer alone),
					per group its kernels and cost */
	int64_t *orig;           /* per buffer of t2, the original buffer it
				    stands for (recomp_transform()'s) */
	const char *strategy;    /* "recompute", "hybrid", "sqrt-n" or
				    "every-layer" */
};
void recomp_advice_free(struct recomp_advice *a);

/* Is name one of the strategies of this file (recompute, hybrid, and the
 * checkpoint baselines sqrt-n and every-layer)? */
int recomp_is_strategy(const char *name);

/*
 * Plans c->t for budget with strategy name ("recompute": recomputation
 * only, placed with placer, or a checkpoint baseline when it is predicted
 * faster; "sqrt-n", "every-layer": that baseline, placed; "hybrid": the
 * least predicted time among swap-only (memplan), recompute-only, and
 * recomputing down to levels
 * between the lower bound and the budget then swapping with memplan:
 * fifteen levels, each chosen without and with units (recomp_choose_units()),
 * or the first only, without, on a trace of more than 50,000 events; and
 * the baselines' segments with memplan's swaps).  hybrid skips the
 * memplan search of a candidate program when no swap plan of it can be
 * predicted faster than the best candidate so far (its last event, and
 * the link bound, swapbound.h, for the stall left): the same advice,
 * fewer searches.
 * Fills *a (recomp_advice_free either way).  Returns 0, SWAP_ENOFIT,
 * SOLVER_ENOTFOUND, TRACE_EINVAL or TRACE_ENOMEM, with a sentence.
 */
int recomp_advise(const struct swap_ctx *c, const char *name, uint64_t budget,
		  const char *placer, uint64_t align, struct recomp_advice *a,
		  char *err, size_t errlen);

/* hybrid's memplan searches run and skipped by the bound, since the
 * process started (for the bench and tests); recomp_hybrid_prune = 0 runs
 * every search (tests check that the advice is the same). */
extern unsigned long recomp_hybrid_searches, recomp_hybrid_pruned;
extern int recomp_hybrid_prune;

/* recomp_advise() in swap_plan_ctx()'s shape: the plan (of the transformed
 * trace) and its simulation become the caller's. */
int recomp_plan_ctx(const struct swap_ctx *c, const char *name,
		    uint64_t budget, const char *placer, uint64_t align,
		    struct mp_plan *plan, struct sim_result *sim,
		    struct swap_outcome *oc, char *err, size_t errlen);

#endif
