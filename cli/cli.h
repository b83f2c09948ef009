/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what every memplan-* command shares: the exit statuses, the one
 * message format, size parsing, and a subcommand table.  Library code never
 * prints; a command's main prints the library's sentence once through here.
 */
#ifndef MEMPLAN_CLI_H
#define MEMPLAN_CLI_H

#include <stdint.h>
#include <stdio.h>

/* Exit statuses of every memplan command (EXIT STATUS in each man page). */
enum mp_exit {
	MP_EXIT_OK = 0,       /* success; a check within its limits */
	MP_EXIT_LIMIT = 1,    /* a check found a limit passed (regression) */
	MP_EXIT_USAGE = 2,    /* bad command line */
	MP_EXIT_INPUT = 3,    /* an input file is missing, unreadable or invalid */
	MP_EXIT_OUTPUT = 4,   /* an output could not be written */
	MP_EXIT_INTERNAL = 5, /* out of memory or an internal error */
	MP_EXIT_TRUSTED = 6,  /* memplan-plan verify: the plan fits only if
				 something else empties trace holes it trusts */
};

/* Set once by main: the name messages start with. */
extern const char *cli_progname;

/* "memplan-x: error: <fmt>" on stderr, newline added. */
void cli_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* "memplan-x: warning: <fmt>" on stderr. */
void cli_warn(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* Usage error: prints the message and "try '<prog> --help'" (within a
 * subcommand cli_dispatch() runs, "try '<prog> <cmd> --help'"); returns
 * MP_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/*
 * The codes every memplan library returns, 0 or negative.  trace_err
 * (traces/trace.h) and mp_plan_err (runtime/plan.h) take these values
 * (tests/unit/test_cli.c checks that); they are spelled here too because
 * cli/ is the ground floor and includes nothing above it.
 */
enum cli_lib_err {
	CLI_LIB_OK = 0,
	CLI_LIB_ENOMEM = -1,
	CLI_LIB_EIO = -2,
	CLI_LIB_EFORMAT = -3,
	CLI_LIB_EVERSION = -4,
	CLI_LIB_EINVAL = -5,
};

/* Maps a library code (enum cli_lib_err) to an exit status: an I/O error
 * is MP_EXIT_OUTPUT when is_output, else MP_EXIT_INPUT. */
int cli_exit_for(int err, int is_output);

/*
 * Parses a size such as "4096", "3.5GiB", "512M", "1.5e9", "2 KiB" (binary
 * units: K/KiB = 1024; KB = 1000 as SI).  Returns 0 and *out, or -1 when the
 * text is not a size or overflows 2^63.
 */
int cli_parse_size(const char *s, uint64_t *out);
/* Parses a non-negative decimal integer that fits in *out; 0 or -1. */
int cli_parse_u64(const char *s, uint64_t *out);

/* Formats n bytes as "1.50 GiB" into buf (>= 32 bytes); returns buf. */
const char *cli_format_size(uint64_t n, char *buf, size_t len);

/* One row of a subcommand table (git's commands[], tmux's cmd_table[]). */
struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the subcommand */
	const char *usage;                 /* one line, after the program name */
	const char *summary;
	/* what --help adds: each option, its meaning and default, one
	 * "  -x, --name ARG  meaning (default ...)" entry a line or more;
	 * NULL for a command without options */
	const char *options;
};

/*
 * Dispatches argv[1] through table (ended by a zero row); handles --help,
 * -h, help and --version.  Returns the exit status.
 */
int cli_dispatch(const struct cli_command *table, int argc, char **argv,
		 const char *about);

/*
 * What a command returns, once stdout is flushed: a write to it that failed
 * anywhere (ferror, not only the last flush: glibc drops a buffer it could
 * not write, so the final fflush() may succeed) turns MP_EXIT_OK into
 * MP_EXIT_OUTPUT, said on stderr unless an error was said already.
 * cli_dispatch() ends with it; a main of its own calls it.
 */
int cli_stdout_close(int rc);

/*
 * For a subcommand's getopt loop: option 'h' prints the usage of cmd (from
 * the table cli_dispatch() runs) and returns MP_EXIT_OK; anything else is a
 * usage error pointing at '<prog> <cmd> --help'.
 */
int cli_option_error(int c, const char *cmd);

/* Prints "usage: <prog> <cmd->usage>", the summary and the options to f. */
void cli_print_usage(FILE *f, const struct cli_command *cmd);

/*
 * An output file written under a temporary sibling name and renamed over its
 * path only when complete, so a failure never leaves half a file.  path NULL
 * or "-" means stdout.
 */
struct cli_out {
	FILE *f;
	const char *path;
	char *tmp;  /* the temporary file renamed over path at the end */
	int direct; /* path is a device or a pipe (/dev/null): written in
		     * place, never replaced by a rename */
};
/* 0, or prints the error and returns MP_EXIT_OUTPUT. */
int cli_out_open(struct cli_out *o, const char *path);
/* commit: flush, close, rename (errors printed, MP_EXIT_OUTPUT); else the
 * temporary file is removed and MP_EXIT_OUTPUT returned (the output was not
 * written; the caller that gave up says why).  Returns the exit status. */
int cli_out_close(struct cli_out *o, int commit);

/*
 * True when the paths a and b name the same file: the same text, or two
 * existing names of one inode (st_dev and st_ino).  A command refuses an
 * output that is one of its inputs, which the atomic rename of the output
 * would otherwise replace.  "-" (stdout) is never the same as a file.
 */
int cli_same_file(const char *a, const char *b);

/* Room for a library's error sentence, in every command (paths included:
 * two long ones and a field name must not be cut). */
#define ERRLEN 1024

#define MEMPLAN_VERSION "0.1.0"

#endif
