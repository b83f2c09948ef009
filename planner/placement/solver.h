/* SPDX-License-Identifier: MIT */
/*
 * solver.h - the placement problem (give every transient buffer an offset in
 * one pool so that buffers resident at the same time never share a byte), the
 * strategies that solve it, and the checker every answer goes through.
 * Invariant: a placement is only ever trusted after solver_check() accepts it.
 *
 * Model.  An item occupies bytes [offset, offset + size) of the pool during
 * its half-open lifetime [lower, upper), except during its holes: a hole is a
 * half-open interval inside the lifetime when the item is swapped out, and
 * during it only the bytes [offset + win_lo, offset + win_hi) stay occupied
 * (none when win_lo == win_hi == SOLVER_NO_WINDOW).  The item keeps its
 * offset across holes.  Two items conflict iff some instant and some byte are
 * occupied by both.  Internally an item is a list of "pieces" (a time range
 * and a byte range relative to the offset; see solver_problem_pieces()).
 *
 * Height is max(offset + size) over all items, including items whose lifetime
 * is empty (lower == upper: they conflict with nothing but still need room).
 */
#ifndef MEMPLAN_SOLVER_H
#define MEMPLAN_SOLVER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "trace.h"

/* Error codes: 0 on success, one of these on failure (err gets a sentence). */
enum solver_err {
	SOLVER_OK = 0,
	SOLVER_ENOMEM = -1,   /* out of memory */
	SOLVER_EINVAL = -5,   /* malformed problem (same value as TRACE_EINVAL) */
	SOLVER_EINVALID = -6, /* solver_check: the placement is not valid */
	SOLVER_ENOTFOUND = -7, /* no such strategy */
	SOLVER_ESTOPPED = -8   /* place(): the stop budget's deadline passed
				  before the run ended (offsets partial) */
};

#define SOLVER_NO_WINDOW (-1)
#define SOLVER_FREE (-1) /* solver_item.fixed_offset: the solver chooses */

/* A hole in an item's lifetime; holes of one item are sorted and disjoint. */
struct solver_hole {
	int64_t lower, upper;   /* half-open, inside the item's lifetime */
	int64_t win_lo, win_hi; /* bytes still occupied, or both SOLVER_NO_WINDOW */
};

struct solver_item {
	uint64_t size;       /* bytes, > 0 */
	uint64_t align;      /* offset % align == 0; >= 1 */
	int64_t lower, upper; /* lifetime, half-open, lower <= upper */
	const struct solver_hole *holes; /* nholes entries (not owned by the item) */
	uint32_t nholes;
	int64_t fixed_offset; /* SOLVER_FREE, or the offset it must get */
	int64_t buffer;       /* trace buffer id (for messages and plans), or -1 */
};

/*
 * A problem: n items.  Problems built by solver_problem_from_trace() own
 * their arrays (items and the hole storage the items point into) and are
 * released with solver_problem_free(); hand-built problems may point
 * anywhere and are never passed to solver_problem_free().
 */
struct solver_problem {
	struct solver_item *items;
	size_t n;
	struct solver_hole *hole_store; /* owned storage for items[].holes */
	size_t nhole_store;
};

/*
 * Extracts the transient device buffers (kinds device and async; managed,
 * host and mapped memory stay with their allocators) of a finished trace
 * (in buffer id order;
 * items[i].buffer is the id), with lifetimes from trace_lifetime(), holes,
 * alignment and fixed offsets.  Sizes are the requested sizes, so that
 * solver_lower_bound() equals trace_peak(t, TRACE_TRANSIENT, NULL) when every
 * transient buffer is device memory.  On
 * failure *p is left empty (safe to free) and err holds a sentence.
 */
int solver_problem_from_trace(const struct trace *t, struct solver_problem *p,
			      char *err, size_t errlen);

/*
 * Counts every item as resident through its trace holes (keeps the hole
 * storage for solver_problem_free()).  A plan the runtime follows needs
 * this: the runtime empties only the holes of its swaps, so a trace hole
 * is resident unless a swap covers it.
 */
void solver_problem_drop_holes(struct solver_problem *p);

/* Frees what solver_problem_from_trace() allocated; leaves *p empty. */
void solver_problem_free(struct solver_problem *p);

/* The greatest common divisor of a and b (a when b is 0). */
uint64_t solver_gcd(uint64_t a, uint64_t b);

/*
 * Raises every item's alignment to the least common multiple of its own and
 * align (a power of two, >= 1), as for a pool whose offsets must all be
 * multiples of align.  Returns 0, or SOLVER_EINVAL naming the buffer when an
 * alignment would pass 2^62; items before it are then already raised.
 */
int solver_problem_align(struct solver_problem *p, uint64_t align, char *err,
			 size_t errlen);

/*
 * Checks that p is well formed: sizes > 0, align >= 1, lower <= upper, holes
 * sorted, disjoint, non-empty and inside the lifetime, windows inside the
 * item, fixed offsets aligned, and every height representable (the sum of
 * all sizes, alignments and fixed offsets below 2^62).  Every strategy and
 * solver_check() call it first.  Returns 0 or SOLVER_EINVAL.
 */
int solver_problem_validate(const struct solver_problem *p, char *err,
			    size_t errlen);

/*
 * One piece of an item: during [lower, upper) it occupies bytes
 * [offset + lo, offset + hi).  Pieces of one item are disjoint in time and
 * sorted by lower; an item with no holes is one piece [lower, upper) x
 * [0, size); an item with an empty lifetime has none.
 */
struct solver_piece {
	int64_t lower, upper;
	uint64_t lo, hi;
	uint32_t item;
};

/*
 * The pieces of every item, item by item: item i owns
 * (*pieces)[(*first)[i] .. (*first)[i + 1]).  *first has n + 1 entries.
 * Both arrays are malloc'ed and owned by the caller.  p must be valid.
 * Returns 0 or SOLVER_ENOMEM (nothing allocated).
 */
int solver_problem_pieces(const struct solver_problem *p,
			  struct solver_piece **pieces, size_t **first);

/*
 * The lower bound of any placement: the maximum over time of the occupied
 * bytes (holes subtracted, windows kept).  O(n log n).  Returns 0 for an
 * empty problem, or on an invalid problem or out of memory (validate first).
 */
uint64_t solver_lower_bound(const struct solver_problem *p);

/*
 * A lower bound at least solver_lower_bound()'s that counts alignment:
 * every offset is a multiple of a, the gcd of the alignments, so at each
 * instant the height is at least the live sizes rounded up to a, less the
 * largest rounding among them.  The plain bound when a <= 1 (or a > 2^16),
 * or when some hole keeps a window.  What the searches prove optimality
 * against; reports keep the plain bound as "the lower bound".
 */
uint64_t solver_lower_bound_aligned(const struct solver_problem *p);

/* How far pool lies above lower_bound, in percent of it (0 when the bound
 * is 0): the gap compile, inspect and the search's progress report. */
double solver_gap_percent(uint64_t pool, uint64_t lower_bound);

/*
 * Verifies a placement: offsets[i] is the offset of items[i].  Checks
 * alignment, fixed offsets, and that no two items conflict (a sweep over
 * time, O(P log P) for P pieces, never all pairs).  On success returns 0
 * and the height in *height (may be NULL).  On failure returns
 * SOLVER_EINVALID naming the first offending item(s) in err, SOLVER_EINVAL
 * for a malformed problem, or SOLVER_ENOMEM.
 */
int solver_check(const struct solver_problem *p, const uint64_t *offsets,
		 uint64_t *height, char *err, size_t errlen);

struct solver_budget;

/*
 * A placement strategy.  place() fills offsets[0..n) and *height, or returns
 * a negative code with a sentence in err (offsets then undefined).  Every
 * strategy honours alignment and fixed offsets (fixed items are placed
 * first and never moved; fixed items that conflict with each other are an
 * error), and handles holes exactly.  Deterministic: same problem, same
 * answer.  With stop (NULL: none) a run gives up, SOLVER_ESTOPPED, once
 * stop's deadline has passed (read every few hundred buffers; its work is
 * not counted): a search's optional heuristic can then not overrun the
 * time limit whatever it costs on this problem and this machine.
 */
struct solver_strategy {
	const char *name;  /* "first-fit", "greedy-size", "best-fit", ... */
	const char *about; /* one line for --help and reports */
	int (*place)(const struct solver_problem *p, uint64_t *offsets,
		     uint64_t *height, const struct solver_budget *stop,
		     char *err, size_t errlen);
};

/* Helpers the strategies share for time coordinates: a qsort comparator
 * of int64_t, and the number of values of sorted v[0..n) below t. */
int solver_time_cmp(const void *a, const void *b);
size_t solver_time_rank(const int64_t *v, size_t n, int64_t t);

/* --- running a strategy: the one entry point tools call --------------- */

#define SOLVER_DEFAULT_TIME_LIMIT 1.0 /* seconds, for exact and auto */

/* A snapshot of a running search, handed to solver_options.progress. */
struct solver_progress {
	uint64_t best;        /* best height found so far (UINT64_MAX: none) */
	uint64_t lower_bound; /* proven lower bound so far */
	uint64_t nodes;       /* search nodes explored */
	double seconds;       /* since the start of solver_solve() */
};

/*
 * Why a search ended (solver_report.stopped_by; solver_stop_name() gives
 * the word compile --json prints).  A heuristic strategy reports
 * SOLVER_STOP_HEURISTIC; exact and auto one of the others.
 */
enum solver_stop {
	SOLVER_STOP_HEURISTIC = 0, /* no search: a heuristic strategy */
	SOLVER_STOP_LOWER_BOUND,   /* the answer meets the lower bound */
	SOLVER_STOP_OPTIMAL,       /* an exhausted search proved it optimal */
	SOLVER_STOP_TIME,          /* the time limit */
	SOLVER_STOP_WORK,          /* the work limit (solver_options.work_limit) */
	SOLVER_STOP_MEMORY,        /* the search would need more than its memory cap */
	SOLVER_STOP_SKIPPED        /* the search cannot run here (too big, fixed offsets) */
};

/* "heuristic", "lower_bound", "optimal", "time", "work", "memory", "skipped". */
const char *solver_stop_name(int stop);

/* The default work limit of a deterministic search (solver_options.work_limit),
 * and the default cap on the memory of the exact search's structures. */
#define SOLVER_DEFAULT_WORK_LIMIT UINT64_C(20000)
#define SOLVER_DEFAULT_MEMORY_LIMIT (UINT64_C(512) << 20)

struct solver_options {
	double time_limit;    /* seconds for exact and auto; <= 0: the default */
	const uint64_t *seed; /* exact only: a placement to start from, or NULL */
	/* Called about four times a second during a search; may be NULL. */
	void (*progress)(void *ctx, const struct solver_progress *pr);
	void *progress_ctx;
	/*
	 * Counted work instead of seconds (compile --deterministic).  With
	 * work_limit > 0 a search stops after that many work units (struct
	 * solver_budget) and reads no clock to decide anything, so the same
	 * problem gives the same answer whatever the machine's load; the time
	 * limit then applies only when time_limit > 0 (a safety net: a search
	 * it ends reports SOLVER_STOP_TIME and is no longer reproducible).
	 */
	uint64_t work_limit;
	/* Bytes the exact search's structures may take, estimated before any
	 * is built (0: SOLVER_DEFAULT_MEMORY_LIMIT); over it, it does not run. */
	uint64_t memory_limit;
	/* Tests: the exact search scans every section a node touches, as on
	 * problems with holes, not only those where the node can fail (the
	 * same nodes die either way; see solver_exact.c, raise_moved()). */
	int exact_scan_all;
	/* Tests: no skyline search before the branch and bound (see
	 * solver_search_skyline()), so that the branch and bound's own
	 * behaviour shows on the packed class. */
	int no_skyline;
	/* Tests: on counted work, the turns a search against the clock
	 * takes on one thread (shares follow who pays: solver_exact.c,
	 * turn()) instead of the fixed shares counted work keeps, so that
	 * their nodes can be checked. */
	int paying_turns;
	/* Threads the exact search may run: 0, as many as it can use (two,
	 * under a time limit on two processors); 1, one (a caller running
	 * searches side by side, as compare's workers do). */
	int max_threads;
	/* No relaxed guillotine phase (solver_exact.c, search()): the search
	 * of a block that phase could not cut (its polish), so that it
	 * neither repeats the cuts that failed nor polishes again. */
	int no_relaxed;
};

/* Processors this process may run on (sched_getaffinity() where there is
 * one, so taskset and cpusets count): the exact search runs two threads
 * under a time limit only when this is 2 or more. */
long solver_cpus(void);

/*
 * The budget of one exact or auto call, shared by every phase (heuristics,
 * improvement, exact search): the clock and the counted work.  A work
 * unit is about the same CPU time everywhere: one node of the exact
 * search, SOLVER_UNIT_BUFFERS buffers placed by a heuristic or an
 * improvement step (solver_work_buffers()), SOLVER_UNIT_PAIRS conflict
 * pairs or section entries built for the search.  A phase calls
 * solver_budget_spend() as it goes and stops when it returns nonzero; in
 * work mode (opt->work_limit > 0) the answer then depends only on the
 * problem and the limit.
 */
#define SOLVER_UNIT_BUFFERS 16
#define SOLVER_UNIT_PAIRS 1024
/* The units of placing n buffers once (rounded up). */
#define solver_work_buffers(n) \
	(((uint64_t)(n) + SOLVER_UNIT_BUFFERS - 1) / SOLVER_UNIT_BUFFERS)
struct solver_budget {
	struct timespec t0; /* start of the call */
	double deadline;    /* seconds after t0 (HUGE_VAL: none) */
	uint64_t work;      /* units spent so far */
	uint64_t work_limit; /* 0: none */
	int stop;           /* 0, or SOLVER_STOP_TIME / SOLVER_STOP_WORK once over */
	/* Set (nonzero) by another thread when this budget's search may end
	 * at once: the deadline is then past (NULL: never). */
	atomic_int *cancel;
};

/* A budget from opt (time_limit, work_limit) starting now. */
void solver_budget_init(struct solver_budget *b,
			const struct solver_options *opt);
/* Seconds since b->t0. */
double solver_budget_elapsed(const struct solver_budget *b);
/*
 * Spends units of work.  Returns nonzero (and sets b->stop) once the work
 * limit is passed or, when check_clock, the deadline; without check_clock
 * only the work is compared (callers read the clock every so often).
 */
int solver_budget_spend(struct solver_budget *b, uint64_t units,
			int check_clock);
/* Work units left (UINT64_MAX without a work limit). */
uint64_t solver_budget_work_left(const struct solver_budget *b);

/* What solver_solve() reports. */
struct solver_report {
	uint64_t height;      /* the pool the answer needs */
	uint64_t lower_bound; /* solver_lower_bound(), or better if proven */
	int optimal;          /* 1: no placement is lower (proven) */
	int timed_out;        /* 1: a search stopped at the time limit */
	int stopped_by;       /* enum solver_stop: what ended the search */
	uint64_t work;        /* work units spent (struct solver_budget) */
	const char *strategy; /* the strategy asked for */
	const char *winner;   /* for auto: the strategy whose answer won */
	uint64_t nodes;       /* search nodes explored (0 for heuristics) */
	int threads;          /* threads the exact search ran on: 0 (none),
			       * 1, or 2 (a time limit and two processors:
			       * the floor and the climb at once) */
	double seconds;       /* wall time of the whole call */
	/* exact and auto: components too big to search (over the size, memory,
	 * time or work the search may spend on them, estimated before building
	 * anything).  Then the search does not run at all and the answer is
	 * the seed's; 0 and "" when it ran (or had nothing to do).
	 * searched_components: those it did search (the ones whose seed
	 * height is above the lower bound: only they can lower the peak). */
	size_t skipped_components;
	char skipped_why[160];
	size_t searched_components;
};

/*
 * Runs the strategy called name (a heuristic of the table, "exact" or
 * "auto") on p: validates p, fills offsets[0..n) and *r, and checks
 * the answer with solver_check() before returning it.  opt may be NULL
 * (defaults).  Returns 0, SOLVER_ENOTFOUND for an unknown name, or another
 * negative code with a sentence in err.
 */
int solver_solve(const struct solver_problem *p, const char *name,
		 const struct solver_options *opt, uint64_t *offsets,
		 struct solver_report *r, char *err, size_t errlen);

/*
 * The search strategies (solver_exact.c).  exact: branch and bound over
 * canonical placements, seeded with opt->seed when given, else with the
 * best heuristic.  auto: every heuristic, then exact seeded with the best
 * of them, then solver_improve() with the time left (r->winner "improve"
 * when that lowered the height).  Both stop at the lower bound or at the time limit; the answer
 * is the best found, r->optimal says whether it is proven.
 */
int solver_search_exact(const struct solver_problem *p,
			const struct solver_options *opt, uint64_t *offsets,
			struct solver_report *r, char *err, size_t errlen);
int solver_search_auto(const struct solver_problem *p,
		       const struct solver_options *opt, uint64_t *offsets,
		       struct solver_report *r, char *err, size_t errlen);

/*
 * solver_improve() (solver_improve.c): the anytime improvement auto runs
 * with the time its exact search leaves.  Stops after max_steps greedy
 * runs (0: no step limit) or seconds (<= 0: no time limit), whichever
 * comes first; with no limit at all it does nothing.  The same step limit
 * and seed give the same answer on any machine.
 */
struct solver_improve_limits {
	double seconds;
	uint64_t max_steps;
	uint64_t seed; /* 0: a fixed default */
	/* seconds one greedy run over every buffer took on this machine just
	 * now (auto's heuristics), the guess for a whole run before one ran
	 * here; 0: guessed from the improvement's own setup */
	double run_seconds;
};

/*
 * Improves the valid placement in offsets (of p, valid) in place: on return
 * it is valid, its height is in *height and it is no higher than before.
 * *steps (may be NULL) gets the greedy runs made.  Returns 0, or a negative
 * code with a sentence in err (offsets then still hold a valid placement no
 * higher than before, *height its height).
 */
int solver_improve(const struct solver_problem *p, uint64_t *offsets,
		   uint64_t *height, const struct solver_improve_limits *lim,
		   uint64_t *steps, char *err, size_t errlen);

/*
 * solver_search_skyline() (solver_skyline.c): looks for a placement of p
 * below cap with no gap under any buffer (every elementary stretch of time
 * filled from 0 up), building it from the lowest point of the skyline, in
 * restarts, until max_nodes nodes or b's clock (or work limit) runs out.
 * Complete for gapless placements only: what exact and auto run first at
 * the lower bound, where a problem that is full at every instant (the
 * packed class) has nothing but gapless placements.  Returns 1 with
 * offsets[0..n) filled, 0 when it found none (offsets untouched; problems
 * with holes or fixed offsets are not tried), or SOLVER_ENOMEM.  *nodes:
 * the nodes it spent.
 */
int solver_search_skyline(const struct solver_problem *p, uint64_t cap,
			  uint64_t max_nodes, struct solver_budget *b,
			  uint64_t *offsets, uint64_t *nodes);
/*
 * solver_search_guillotine() (solver_guillotine.c): looks for a gapless
 * placement of p below cap the way a guillotine packing is cut (buffers
 * over the whole stretch at the bottom, instants no buffer crosses, then
 * two stacked blocks whose buffers balance at every instant), within
 * max_steps steps or b's clock, on a thread of its own (its recursion
 * needs a large stack; the caller waits).  Incomplete, proves nothing;
 * on problems solver_skyline_applies() rejects it returns 0 at once.  Returns 1 with
 * offsets[0..n) filled, 0 when it found none, or SOLVER_ENOMEM; *steps:
 * the steps it spent.
 */
int solver_search_guillotine(const struct solver_problem *p, uint64_t cap,
			     uint64_t max_steps, struct solver_budget *b,
			     uint64_t *offsets, uint64_t *steps);
/*
 * solver_search_guillotine_relaxed() (solver_guillotine.c): the same cuts,
 * for a placement near cap where the strict search found none: the first
 * split of each block is kept, and a block whose split is not found
 * within per_buffer steps a buffer of it (5 million at least; or after
 * max_steps in all, or b's clock) is placed by the lower of best-fit and
 * greedy-size (improved, up to 1,000 buffers), the blocks stacked on it
 * moved up by what it takes above its height.  So a problem whose strict
 * search fails deep down, in a small or thin block, ends a few tenths of
 * a percent above cap.
 * flags SOLVER_GUILLOTINE_SEEDED: each block's split is looked for first
 * from its cut instants (what ends and starts at an instant in, what
 * crosses it out), then as without it; with SOLVER_GUILLOTINE_HEIGHT too,
 * a seed also fixes the strip's height (the bytes ending at its instant)
 * at the block's first and last instants, and an instant whose starters
 * and enders differ in bytes is no seed.  SOLVER_GUILLOTINE_REVERSED: the
 * search runs with time backwards (each block grown from its last instant;
 * the placements are the same), as good on the average and good where the
 * forward search is not.  polish, when not NULL (exact and auto pass
 * solver_search_exact()): a block of up to 1,000 buffers placed by the
 * heuristics is then searched by it from their placement (the relaxed
 * phase off: solver_options.no_relaxed), with n / (2n + 200) of what is
 * left of b's time (or, counted, of max_steps, 64 steps a unit of its
 * work); SOLVER_GUILLOTINE_ONE_THREAD: that search on one thread.
 * SOLVER_GUILLOTINE_RESTART(k), k >= 1: the k-th restart: the seeds in an
 * order drawn from k and each subset's order flipped one time in four, so
 * another first split (the same on every run for the same k).
 * Returns 1 with offsets[0..n) filled and out set (the placement is
 * checked), 0 when it found none (problems solver_skyline_applies()
 * rejects, a top block that cannot be cut), or SOLVER_ENOMEM.
 */
#define SOLVER_GUILLOTINE_SEEDED 1u
#define SOLVER_GUILLOTINE_HEIGHT 2u
#define SOLVER_GUILLOTINE_REVERSED 4u
#define SOLVER_GUILLOTINE_EARLIEST 8u
#define SOLVER_GUILLOTINE_ONE_THREAD 16u
#define SOLVER_GUILLOTINE_RESTART(k) ((unsigned)(k) << 8)
struct solver_guillotine_relaxed {
	uint64_t height; /* of the placement */
	uint64_t steps;  /* spent */
	size_t falls;    /* blocks the heuristics placed */
	size_t fell;     /* buffers in them */
	size_t polished; /* of those, blocks the exact search lowered */
};
/* A search of a whole problem from a placement (solver_search_exact()'s
 * signature), which the relaxed search calls on the blocks it polishes
 * without calling the exact search's file itself. */
typedef int solver_exact_fn(const struct solver_problem *p,
			    const struct solver_options *opt,
			    uint64_t *offsets, struct solver_report *r,
			    char *err, size_t errlen);
int solver_search_guillotine_relaxed(const struct solver_problem *p,
				     uint64_t cap, uint64_t max_steps,
				     uint64_t per_buffer, unsigned flags,
				     solver_exact_fn *polish,
				     struct solver_budget *b, uint64_t *offsets,
				     struct solver_guillotine_relaxed *out);
/* Whether solver_search_skyline() would search p at cap (no holes, no
 * fixed offsets, every instant full at cap); 0 also when out of memory. */
int solver_skyline_applies(const struct solver_problem *p, uint64_t cap);

/*
 * exact with a budget of search nodes instead of a time limit, so the same
 * problem gets the same answer on any machine (tests use it to hold the
 * search to a node count).  Validates p, seeds with greedy-size, fills
 * offsets[0..n) and *r like solver_solve() and checks the answer.
 */
int solver_search_exact_nodes(const struct solver_problem *p,
			      uint64_t max_nodes, uint64_t *offsets,
			      struct solver_report *r, char *err,
			      size_t errlen);

/*
 * The same with memory_limit as the cap of solver_options (0: the
 * default): the search's undo trails may take a quarter of it each, and
 * a search that needs more stops (SOLVER_STOP_MEMORY) with the best found.
 * A node on n buffers costs max(1, n / 512) of max_nodes.
 */
int solver_search_exact_limits(const struct solver_problem *p,
			       uint64_t max_nodes, uint64_t memory_limit,
			       uint64_t *offsets, struct solver_report *r,
			       char *err, size_t errlen);
/* solver_search_exact_nodes() with the turns of a search against the
 * clock (solver_options.paying_turns). */
int solver_search_exact_paying(const struct solver_problem *p,
			       uint64_t max_nodes, uint64_t *offsets,
			       struct solver_report *r, char *err,
			       size_t errlen);

/* Every name solver_solve() accepts, in order ("first-fit" ... "auto"). */
const char *solver_name_at(size_t i);
/* One line about the strategy called name, or NULL. */
const char *solver_name_about(const char *name);

/* The strategy called name, or NULL. */
const struct solver_strategy *solver_strategy_find(const char *name);
/* The i-th strategy (0-based, in table order), or NULL past the end. */
const struct solver_strategy *solver_strategy_at(size_t i);

/* The strategies (also reachable through the table). */
int solver_place_firstfit(const struct solver_problem *p, uint64_t *offsets,
			  uint64_t *height, const struct solver_budget *stop,
			  char *err, size_t errlen);
int solver_place_greedy(const struct solver_problem *p, uint64_t *offsets,
			uint64_t *height, const struct solver_budget *stop,
			char *err, size_t errlen);
int solver_place_bestfit(const struct solver_problem *p, uint64_t *offsets,
			 uint64_t *height, const struct solver_budget *stop,
			 char *err, size_t errlen);
int solver_place_bestgap(const struct solver_problem *p, uint64_t *offsets,
			 uint64_t *height, const struct solver_budget *stop,
			 char *err, size_t errlen);
int solver_place_rows(const struct solver_problem *p, uint64_t *offsets,
		      uint64_t *height, const struct solver_budget *stop,
		      char *err, size_t errlen);

/*
 * The alignment of t's plan when the command line asked for at least asked
 * (a power of two; 1 when it asked nothing): every planned offset becomes a
 * multiple of it, and so does the pool's base.  A MiniMalloc CSV is a
 * placement problem whose buffers carry their own alignment column: asked.
 * Every other trace holds CUDA allocations: at least MP_PLAN_DEVICE_ALIGN,
 * and at least the largest power-of-two alignment of its poolable buffers
 * (512 for PyTorch's blocks), so that the pool's base serves them all.
 */
uint64_t solver_trace_align(const struct trace *t, uint64_t asked);

#endif
