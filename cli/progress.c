/* SPDX-License-Identifier: MIT */
/*
 * progress.c - the progress line of progress.h.  The caller and the ticker
 * both draw under p->lock, so a line is never written half over another.
 */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Draws the line, cut to the terminal's width (a wrapped line would not
 * be rewritten in place); p->lock held. */
static void draw(struct cli_progress *p)
{
	if (!p->what[0])
		return;
	struct winsize ws;
	int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
	int room = cols - (int)strlen(cli_progname) - 16;
	fprintf(stderr, "\r%s: %.*s [%.1f s]\033[K", cli_progname, room > 8 ? room : 8,
		p->what, now() - p->t0);
	fflush(stderr);
	p->shown = 1;
}

static void *tick(void *arg)
{
	struct cli_progress *p = arg;
	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 500000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &until);
		if (!p->stop)
			draw(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void cli_progress_start(struct cli_progress *p, int quiet)
{
	memset(p, 0, sizeof(*p));
	p->on = !quiet && isatty(STDERR_FILENO);
	p->t0 = now();
	if (!p->on)
		return;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	p->ticking = pthread_create(&p->ticker, NULL, tick, p) == 0;
}

void cli_progress_say(struct cli_progress *p, const char *fmt, ...)
{
	if (!p->on)
		return;
	pthread_mutex_lock(&p->lock);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->what, sizeof(p->what), fmt, ap);
	va_end(ap);
	draw(p);
	pthread_mutex_unlock(&p->lock);
}

void cli_progress_end(struct cli_progress *p)
{
	if (!p->on)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	if (p->ticking)
		pthread_join(p->ticker, NULL);
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	p->on = p->ticking = p->shown = 0;
}
