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

#include "link.h"
#include "solver.h"
#include "trace.h"

/* Room for a library's error sentence. */
#define ERRLEN 1024

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

/* compile --per-gpu (cmd_pergpu.c): the joint plans of the link's GPUs,
 * PREFIX.gpuK.plan each; parse_budget is compile's --budget parser.
 * Returns the exit status. */
int cmd_compile_per_gpu(const char *path, const char *prefix,
			const char *link_s, uint64_t align,
			int (*parse_budget)(const char *, uint64_t, uint64_t *),
			const char *budget_s, int json);

/* --- cmd_args.c: what the commands make of their arguments alike --------- */

/* --time-limit: seconds above 0, at most 10^6.  0 and *out, or -1. */
int cmd_parse_seconds(const char *s, double *out);

/* The placement strategies' names, comma-separated, into buf; with
 * heuristics_only, those solver_strategy_find() knows (not the searches). */
void cmd_strategy_names(char *buf, size_t len, int heuristics_only);

/*
 * Loads TRACE path into *t and its placement problem into *p, every item's
 * alignment raised to *align, which goes in as the --align asked (1 when
 * none) and comes out as the plan's (planfile_align(): at least 256 for a
 * trace of CUDA allocations); the trace's own holes are dropped (counted as
 * resident: the runtime moves only a plan's swaps) unless keep_holes.
 * Returns 0, or prints the error and returns an exit status; *t (maybe
 * NULL) and *p are the caller's to free either way.
 */
int cmd_load_problem(const char *path, uint64_t *align, int keep_holes,
		     struct trace **t, struct solver_problem *p);

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

/* The exit status of a failed solver_*() call, and of a failed swap_plan()
 * or frontier_sweep(). */
int cmd_solver_exit(int rc);
int cmd_swap_exit(int rc);

#endif
