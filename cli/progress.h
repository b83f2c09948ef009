/* SPDX-License-Identifier: MIT */
/*
 * progress.h - the one progress line of every command that can take
 * seconds (frontier, share, advise, compare, compile with a budget): on a
 * terminal, one stderr line rewritten in place, "<prog>: <what> [3.2 s]",
 * its clock kept running by a ticker thread while a library call works
 * without callbacks, and erased at the end so the output shows alone.
 * Quiet when stderr is not a terminal (a log, a pipe) or with --quiet.
 */
#ifndef MEMPLAN_PROGRESS_H
#define MEMPLAN_PROGRESS_H

#include <pthread.h>

struct cli_progress {
	int on;         /* stderr is a terminal and not --quiet */
	int shown;      /* a line is on the screen */
	int ticking;    /* the ticker thread runs */
	int stop;       /* asks the ticker to end */
	double t0;      /* when cli_progress_start() ran, monotonic seconds */
	char what[512]; /* the line, without the program name and clock */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t ticker;
};

/* Starts p: on when stderr is a terminal and !quiet (then a ticker thread
 * redraws the line twice a second; if it cannot start, the line is drawn
 * only when it changes).  Nothing is drawn before cli_progress_say(). */
void cli_progress_start(struct cli_progress *p, int quiet);

/* Sets the line to the formatted text and draws it now (when on). */
void cli_progress_say(struct cli_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Stops the ticker and erases the line; p may be started again. */
void cli_progress_end(struct cli_progress *p);

#endif
