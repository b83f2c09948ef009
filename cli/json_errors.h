/* SPDX-License-Identifier: MIT */
/*
 * json_errors.h - what a command's failure becomes under --json, for every
 * command of every memplan-* program: one JSON object on standard output,
 * {"error", "exit_status", "messages"}, the messages still on stderr.
 * cli_dispatch() applies it to each subcommand whose options list --json.
 */
#ifndef MEMPLAN_JSON_ERRORS_H
#define MEMPLAN_JSON_ERRORS_H

/*
 * Runs run(argc, argv) and, when argv holds --json (or -j where short_j
 * says -j means --json), with stderr and stdout captured in temporary
 * files: both are copied back unchanged at the end, and when the status is
 * not 0 and the command printed nothing on stdout (no verdict or table of
 * its own, as verify's and compare's are), one error object follows:
 * {"error": the first error's sentence, "exit_status": status,
 * "messages": every stderr line}.  Returns run's status.  A capture that
 * cannot start, or one already running (nested calls), changes nothing.
 */
int cli_run_json_errors(int (*run)(int, char **), int argc, char **argv,
			int short_j);

/* 1 when options (a cli_command's help text) offers --json, and then
 * *short_j = 1 when its short form is -j. */
int cli_offers_json(const char *options, int *short_j);

#endif
