/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - memplan-plan's subcommands, one cmd_<name>.c each, run from the
 * table in memplan-plan.c (name, function, usage), and what they share
 * (cmd_args.c).  A command parses its options, calls the planner libraries
 * and prints once; it returns an exit status (enum mp_exit, cli.h).
 */
#ifndef MEMPLAN_CMD_H
#define MEMPLAN_CMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "link.h"
#include "solver.h"
#include "trace.h"

/* --- the commands: argv[0] is the subcommand's name ---------------------- */

/* The usage of each is its row in memplan-plan.c's table, the details are
 * in man/memplan-plan.1. */
int cmd_compile(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_frontier(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_link(int argc, char **argv);
int cmd_share(int argc, char **argv);
int cmd_checkenv(int argc, char **argv);

/* A plan predicted this much slower than the trace (percent) gets a
 * warning from compile, with or without --per-gpu. */
#define CMD_WARN_OVERHEAD 25.0

/* compile --per-gpu (cmd_pergpu.c): the joint plans of the link's GPUs,
 * PREFIX.gpuK.plan each; max_overhead (percent, < 0: none) refuses them
 * all, writing nothing, when the worst GPU is predicted slower, as compile
 * --max-overhead does; without it, a warning above CMD_WARN_OVERHEAD.
 * Returns the exit status. */
int cmd_compile_per_gpu(const char *path, const char *prefix,
			const char *link_s, uint64_t align,
			const char *budget_s, double max_overhead, int json);

/* --- names of a plan's tensors (cmd_names.c) -------------------------------- */

#define CMD_NAME_LEN 96 /* a name's room, its NUL included */
struct mp_plan;
/* A person's name for buffer id of t into buf: its label, else the
 * innermost frame of its call stack (no folders), else "buffer N of
 * <kernel>" (the first kernel that touches it), else "buffer N".
 * Returns buf. */
const char *cmd_buffer_name(const struct trace *t, uint64_t id, char *buf,
			    size_t len);
/* The name of each swap's tensor, in the order of plan->swaps (NULL after
 * the last): one malloc'ed block, freed with free(); NULL when out of
 * memory. */
const char **cmd_swap_names(const struct trace *t, const struct mp_plan *plan);

/* What each one's --help lists: every option, its meaning and default. */
extern const char cmd_compile_options[], cmd_verify_options[],
	cmd_simulate_options[], cmd_frontier_options[], cmd_inspect_options[],
	cmd_compare_options[], cmd_advise_options[], cmd_share_options[],
	cmd_link_options[], cmd_checkenv_options[];

/* --- cmd_args.c: what the commands make of their arguments alike --------- */

/* --time-limit: seconds above 0, at most 10^6.  0 and *out, or -1. */
int cmd_parse_seconds(const char *s, double *out);
/* --deterministic[=WORK]: SOLVER_DEFAULT_WORK_LIMIT without a value, else
 * a count above 0.  0 and *out, or -1. */
int cmd_parse_work(const char *s, uint64_t *out);

/* The placement strategies' names, comma-separated, into buf; with
 * heuristics_only, those solver_strategy_find() knows (not the searches). */
void cmd_strategy_names(char *buf, size_t len, int heuristics_only);

/*
 * Loads TRACE path into *t and its placement problem into *p, every item's
 * alignment raised to *align, which goes in as the --align asked (1 when
 * none) and comes out as the plan's (solver_trace_align(): at least 256 for a
 * trace of CUDA allocations); the trace's own holes are dropped (counted as
 * resident: the runtime moves only a plan's swaps) unless keep_holes.
 * Returns 0, or prints the error and returns an exit status; *t (maybe
 * NULL) and *p are the caller's to free either way.
 */
int cmd_load_problem(const char *path, uint64_t *align, int keep_holes,
		     struct trace **t, struct solver_problem *p);

/* Warns (cli_warn) when trace t, loaded from path, holds several
 * iterations (ranges named 'iteration', or a period slice_detect() finds):
 * it would be planned as one, so the warning gives the 'memplan-trace
 * slice' command that cuts one out.  cmd_load_problem() calls it. */
void cmd_warn_iterations(const struct trace *t, const char *path);

/* cmd_load_problem() of the traces at paths[0..n) concatenated into one
 * cycle (cycle_load()), *cy filled (the caller's to cycle_free()). */
struct cycle;
int cmd_load_cycle(char *const *paths, size_t n, uint64_t *align,
		   int keep_holes, struct trace **t, struct solver_problem *p,
		   struct cycle *cy);

/*
 * The link of --link spec, or when spec is NULL the default: what the
 * capture measured when trace t has it, else PCIe 5.0.  Returns 0, or prints
 * the error and returns an exit status: a bad spec is the command line's
 * fault, a trace that measured nothing (or nonsense) the input's.
 */
int cmd_pick_link(const char *spec, const struct trace *t,
		  struct link_model *l);
/* The spec cmd_pick_link() parses: spec, or the default's name. */
const char *cmd_link_spec(const char *spec, const struct trace *t);

struct mp_plan;
/*
 * The link to judge plan on: --link spec when given (with a warning when
 * the plan records another), else the plan's LINK section (the link its
 * swaps were planned for), else cmd_pick_link()'s default.  *source gets
 * the words for where it came from.  Returns 0, or prints the error and
 * returns an exit status.
 */
int cmd_plan_link(const char *spec, const struct mp_plan *plan,
		  const struct trace *t, struct link_model *l,
		  const char **source);

/* 0 when spec fits a plan's LINK section (MP_PLAN_LINK_LEN - 1 printable
 * ASCII characters at most), else prints a usage error and returns 2. */
int cmd_link_storable(const char *spec);

/* --- --json on failure ---------------------------------------------------- */

/* A plan given with a trace it was not made for, in the one wording and
 * exit status of verify, simulate and memplan-replay: MP_EXIT_OK when the
 * trace's requests have the plan's fingerprint (a cycle plan: not checked
 * here), else prints "plan 'P' does not fit trace 'T': fingerprint
 * mismatch: ..." and returns MP_EXIT_LIMIT (1). */
int cmd_plan_fits(const char *ppath, const struct mp_plan *plan, const char *tpath,
		  const struct trace *t);

/* After the plan at path could not be read (err holds why): appends what
 * the file is instead and how to make a plan of it (input_hint()), when it
 * is something memplan knows, e.g. a trace or a PyTorch snapshot. */
void cmd_plan_hint(const char *path, char *err, size_t errlen);

/* Runs run(argc, argv) under cli_run_json_errors() (json_errors.h), -j
 * meaning --json.  cli_dispatch() does so already for every command whose
 * options offer --json; this stays for the commands that call it
 * themselves (the nested call runs plain). */
int cmd_run_json_errors(int (*run)(int, char **), int argc, char **argv);

/* --- budgets (compile) ---------------------------------------------------- */

/*
 * --budget s: a size, or PCT% of lb, the lower bound of the transient
 * buffers without swaps (the persistent ones, weights and optimizer state,
 * are not in it).  A bare number up to 100 is refused as ambiguous ("did
 * you mean 70%?").  0 and *out, or prints the usage error and returns 2.
 */
int cmd_parse_budget(const char *cmd, const char *s, uint64_t lb,
		     uint64_t *out);

/* The bytes of t's buffers that outlive the iteration (weights, optimizer
 * state): never in the pool, always on the device (as planfile_build()
 * counts them into META). */
uint64_t cmd_persistent_bytes(const struct trace *t);

/* --device-budget s, everything on the device, into the pool's budget: s
 * less persistent.  0 and *out; 2 (usage) when s is not a size; 1 when the
 * persistent bytes alone take s (each with its message printed). */
int cmd_device_budget(const char *s, uint64_t persistent, uint64_t *out);

/*
 * Whether trace t says when its pool's buffers are used: 0 when it records
 * kernel accesses to at least half of them (as analyze's swap floor asks),
 * else 1 with a clause in why: a PyTorch snapshot or an Nsight export knows
 * only allocs and frees, so every buffer would look idle from its alloc to
 * its free and no swap (or recomputation) can be planned honestly.  A
 * trace swap planning refuses anyway (abstract times, no GPU timestamps)
 * gets 0: the planner says why itself.
 */
int cmd_swap_blind(const struct trace *t, char *why, size_t len);

/*
 * For a command (cmd, e.g. "compile --budget") asked for a budget below
 * lb, the lower bound without swaps, on a trace cmd_swap_blind() refuses:
 * prints the error (why, and what can be answered: the lower bound, and
 * that a budget at or above it fits without swaps) and the way to a trace
 * that has accesses; returns MP_EXIT_INPUT.
 */
int cmd_refuse_swaps(const char *cmd, const char *path, uint64_t lb,
		     const char *why);

/* After "no plan fits": the least budget any swap plan can fit (the swap
 * floor, an infinitely fast link's link bound, swapbound.h) when it can be
 * computed, and where to look (frontier), as indented stderr lines. */
void cmd_explain_no_fit(const struct trace *t, const char *path, uint64_t lb,
			uint64_t budget);

/* The exit status of a failed solver_*() call, and of a failed budget_plan()
 * or frontier_sweep(). */
int cmd_solver_exit(int rc);
int cmd_swap_exit(int rc);

#endif
