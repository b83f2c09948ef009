/* SPDX-License-Identifier: MIT */
/*
 * memplan-plan - compile a trace into a plan file, verify a plan against a
 * trace, simulate and show plans, sweep swap frontiers, and compare placement
 * strategies over many traces.  Only the table of subcommands lives here:
 * each is one planner/cmd/cmd_<name>.c (cmd.h), a thin layer over the planner
 * libraries; adding a command is one file and one row.
 */
#include "cli.h"
#include "cmd.h"

static const struct cli_command commands[] = {
	{ "compile", cmd_compile,
	  "compile TRACE... -o PLAN [--cycle] [--strategy S] [--time-limit SECONDS] "
	  "[--deterministic[=WORK]] [--solution OUT.csv] "
	  "[--align A] [--trust-holes] [--max-pool SIZE | "
	  "(--budget SIZE|PCT% | --device-budget SIZE) [--max-overhead P] "
	  "[--link MODEL] [--swap-strategy memplan|singa|vdnn|recompute|hybrid|sqrt-n|every-layer]] [--json] [--quiet] | "
	  "compile TRACE --budget SIZE|PCT% --link MODEL,gpus=N --per-gpu "
	  "-o PREFIX [--json]",
	  "place every transient buffer in one pool (with swaps to host "
	  "memory for a --budget) and write the plan file; offsets are "
	  "256-byte aligned by default, or the buffers' own alignment when "
	  "more (--align A raises it; a MiniMalloc CSV keeps its own, 1 "
	  "without --align); --per-gpu plans N lock-step GPUs on one link "
	  "jointly, staggering their copies, into PREFIX.gpuK.plan; --cycle: "
	  "the TRACEs take turns in one process and share one pool",
	  cmd_compile_options },
	{ "verify", cmd_verify, "verify [--json] PLAN TRACE...",
	  "check independently that a plan fits a trace (a cycle plan: its "
	  "traces, in order)", cmd_verify_options },
	{ "simulate", cmd_simulate,
	  "simulate PLAN TRACE [--link MODEL] [--json] [-o FILE.svg]",
	  "predict a plan's iteration time on a link: overhead, stalls, "
	  "peak resident bytes; -o draws the lanes and memory as SVG",
	  cmd_simulate_options },
	{ "frontier", cmd_frontier,
	  "frontier TRACE [--link MODEL] [--strategies LIST] "
	  "[--steps N | --step PCT] [--from PCT] [--to PCT] [--placer S] "
	  "[--csv | --json] [-o FILE.svg] [--quiet]",
	  "sweep budgets down from the lower bound without swaps and tabulate "
	  "each swap strategy's pool and predicted overhead; -o draws it as SVG",
	  cmd_frontier_options },
	{ "advise", cmd_advise, "advise TRACE --budget SIZE|PCT% [--link MODEL] [--strategy hybrid|recompute|sqrt-n|every-layer] [--max-overhead PCT] [--json] [--trace-out TRACE] [--quiet]", "per tensor keep, swap to host or recompute for a budget: the decisions per tensor, layer and operator, the predicted pool and overhead; --trace-out writes the trace of the program that recomputes",
	  cmd_advise_options },
	{ "inspect", cmd_inspect, "inspect [--csv | --json] PLAN [TRACE]",
	  "show a plan file: header, sections, entries; with its TRACE, the swapped tensors by name", cmd_inspect_options },
	{ "compare", cmd_compare,
	  "compare [--strategies LIST] [-j N] [--deterministic[=WORK]] "
	  "[--time-limit SECONDS] "
	  "[--csv | --json] [--no-header] [--header-only] [--shard K/N] [--quiet] "
	  "(TRACE... | --list FILE) | compare --merge SHARD...",
	  "run placement strategies over traces and tabulate pool / lower bound",
	  cmd_compare_options },
	{ "share", cmd_share,
	  "share TRACE... --device-memory SIZE -o DIR [--link MODEL] "
	  "[--objective max|sum] [--step PCT] [--json] [--quiet]",
	  "several workloads on one device: split its memory from each one's "
	  "frontier at the least worst (or total) predicted overhead, and "
	  "write one verified plan per workload into DIR",
	  cmd_share_options },
	{ "link", cmd_link, "link [MODEL] [--json]",
	  "a link model's bandwidth per GPU, alone and with every GPU on its "
	  "uplink copying, each way and both ways; without MODEL the presets",
	  cmd_link_options },
	{ "check-env", cmd_checkenv, "check-env",
	  "check a deployment's MEMPLAN_* variables without a GPU: names the "
	  "unknown ones with the nearest real name, the values libmemplan would "
	  "ignore, opens every plan of MEMPLAN_PLAN and says what the runtime "
	  "would do; exit 1 on any problem",
	  cmd_checkenv_options },
	{ 0 }
};

int main(int argc, char **argv)
{
	cli_progname = "memplan-plan";
	return cli_dispatch(commands, argc, argv,
			    "Compile traces into plan files (memplan-plan(5)), "
			    "verify, simulate and show plans, sweep swap "
			    "frontiers, and compare placement strategies.  TRACE is a memplan trace or a "
			    "MiniMalloc CSV.");
}
