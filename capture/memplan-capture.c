/* SPDX-License-Identifier: MIT */
/*
 * memplan-capture - run an unmodified CUDA program with memplan's CUPTI
 * injection library and keep one iteration of it as a trace.  The library
 * streams into a temporary sibling of the output; this launcher waits,
 * seals and checks what it left, and renames it over the output only when
 * it loads, so an existing good trace is never replaced by a broken one.
 */
#define _GNU_SOURCE /* flock, getopt_long, environ */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "recorder.h"
#include "select.h"
#include "trace.h"
#include "tracedb.h"

#ifndef MEMPLAN_CAPTURE_LIBDIR
#define MEMPLAN_CAPTURE_LIBDIR "/usr/local/lib"
#endif
#define LIBNAME "libmemplan-capture.so"

static const char usage_text[] =
	"usage: memplan-capture [-o TRACE] [--iteration N] [--range NAME] [--force] [--quiet] [--] PROGRAM [ARGS...]\n"
	"Runs PROGRAM with memplan's CUPTI injection library and records its CUDA\n"
	"allocations, kernels (with the buffers they touch), copies and memsets into\n"
	"TRACE (default: capture.trace).\n"
	"\n"
	"  -o, --output TRACE   where to write the trace (refused if it exists)\n"
	"  -f, --force          replace an existing TRACE (only once the new one is good)\n"
	"  -n, --iteration N    record the N-th range named NAME (default name: iteration)\n"
	"  -r, --range NAME     the NVTX or marker range to count; '@profiler' counts\n"
	"                       cudaProfilerStart/Stop ranges; without -n: its first one\n"
	"  -q, --quiet          no summary line\n"
	"  -h, --help           this text\n"
	"      --version        the version\n"
	"Without -n and -r the whole run is recorded, with its marks.\n"
	"Exit status: 0 trace written; 1 the program failed (trace kept, maybe\n"
	"incomplete); 2 usage; 3 the program could not be started, never used CUDA,\n"
	"never reached the iteration, or CUPTI is taken; 4 output not writable or\n"
	"exists; 5 internal error.\n";

static pid_t child = -1;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* The injection library: $MEMPLAN_CAPTURE_LIB, else beside this program
 * (../lib, the build tree and a PREFIX install), else LIBDIR. */
static int find_library(char *out, size_t len)
{
	const char *env = getenv("MEMPLAN_CAPTURE_LIB");
	if (env && *env) {
		if (strlen(env) >= len || access(env, R_OK) != 0)
			return -1;
		snprintf(out, len, "%s", env);
		return 0;
	}
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(out, len, "%s/../lib/%s", self, LIBNAME) < len &&
			    access(out, R_OK) == 0)
				return 0;
		}
	}
	if ((size_t)snprintf(out, len, "%s/%s", MEMPLAN_CAPTURE_LIBDIR, LIBNAME) < len &&
	    access(out, R_OK) == 0)
		return 0;
	return -1;
}

/* Prints the lines the injection library left in the status file; returns
 * the exit status of its first error line ("error N message"), or 0. */
static int report_status(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[2048];
	int status = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		int code;
		int off = 0;
		if (sscanf(line, "error %d %n", &code, &off) == 1 && off > 0) {
			cli_error("%s", line + off);
			if (!status)
				status = code >= 1 && code <= 5 ? code : MP_EXIT_INTERNAL;
		} else if (strncmp(line, "warning ", 8) == 0) {
			cli_warn("%s", line + 8);
		}
	}
	fclose(f);
	return status;
}

static void remove_trace_files(const char *path)
{
	char side[PATH_MAX + 8];
	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

static int file_exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

/* Exit status of the program, described in words into buf. */
static int describe_wait(int status, char *buf, size_t len)
{
	if (WIFEXITED(status)) {
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
		return WEXITSTATUS(status) != 0;
	}
	if (WIFSIGNALED(status)) {
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
		return 1;
	}
	snprintf(buf, len, "stopped");
	return 1;
}

struct run {
	const char *output;
	char tmp[PATH_MAX];
	char status[PATH_MAX + 16];
	char lock[PATH_MAX + 16];
	char lib[PATH_MAX];
	const char *iteration, *range;
	int force, quiet;
	char **argv;
};

/* Runs the program; returns its wait status, or -1 with the exit status in
 * *rc when it could not be started. */
static int run_program(struct run *r, int *rc)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		cli_error("cannot start '%s': %s", r->argv[0], strerror(errno));
		*rc = MP_EXIT_INTERNAL;
		return -1;
	}
	fflush(NULL);
	child = fork();
	if (child < 0) {
		cli_error("cannot start '%s': %s", r->argv[0], strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		*rc = MP_EXIT_INTERNAL;
		return -1;
	}
	if (child == 0) {
		close(pipefd[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(r->argv[0], r->argv);
		int e = errno;
		if (write(pipefd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	int e = 0;
	ssize_t got;
	do
		got = read(pipefd[0], &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	close(pipefd[0]);
	int status = 0;
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	child = -1;
	if (got == (ssize_t)sizeof(e)) {
		cli_error("cannot start '%s': %s", r->argv[0], strerror(e));
		*rc = MP_EXIT_INPUT;
		return -1;
	}
	return status;
}

static int setenv_or_die(const char *k, const char *v)
{
	if (setenv(k, v, 1) != 0) {
		cli_error("cannot set %s: %s", k, strerror(errno));
		return MP_EXIT_INTERNAL;
	}
	return 0;
}

static int prepare_env(struct run *r)
{
	const char *inj = getenv("CUDA_INJECTION64_PATH");
	if (inj && *inj && !getenv("MEMPLAN_CAPTURE_ALLOW_INJECTION")) {
		cli_error("CUDA_INJECTION64_PATH is already set to '%s': another CUDA tool "
			  "(Nsight Systems, Nsight Compute) is injecting into this process "
			  "tree, and CUPTI takes one tool at a time; run memplan-capture outside it",
			  inj);
		return MP_EXIT_INPUT;
	}
	int rc;
	if ((rc = setenv_or_die("CUDA_INJECTION64_PATH", r->lib)) ||
	    (rc = setenv_or_die("MEMPLAN_CAPTURE_OUTPUT", r->tmp)) ||
	    (rc = setenv_or_die("MEMPLAN_CAPTURE_STATUS", r->status)))
		return rc;
	unsetenv("MEMPLAN_CAPTURE_ITERATION");
	unsetenv("MEMPLAN_CAPTURE_RANGE");
	if (r->iteration && (rc = setenv_or_die("MEMPLAN_CAPTURE_ITERATION", r->iteration)))
		return rc;
	if (r->range && (rc = setenv_or_die("MEMPLAN_CAPTURE_RANGE", r->range)))
		return rc;
	/*
	 * NVTX ranges reach CUPTI only through an NVTX injection library.  It
	 * is the capture library itself: it hands NVTX to the libcupti it is
	 * bound to, which may be the program's own copy (a PyTorch wheel's);
	 * naming a toolkit libcupti here would load a second CUPTI that no one
	 * subscribed to, and --range/--iteration would never fire.
	 */
	const char *nvtx = getenv("NVTX_INJECTION64_PATH");
	if (nvtx && *nvtx && strcmp(nvtx, r->lib) != 0)
		cli_warn("NVTX_INJECTION64_PATH is already set to '%s': NVTX ranges go to that "
			 "tool, not to memplan (--range NAME will not see them)", nvtx);
	else if ((rc = setenv_or_die("NVTX_INJECTION64_PATH", r->lib)))
		return rc;
	return 0;
}

/* Checks the trace the program left and moves it over the output. */
static int finish(struct run *r, int wstatus)
{
	char how[128], err[ERRLEN];
	int failed = describe_wait(wstatus, how, sizeof(how));
	int st = report_status(r->status);
	if (st) { /* the library refused to record (conflict, bad setting) */
		remove_trace_files(r->tmp);
		return st;
	}
	if (!file_exists(r->tmp)) {
		if (file_exists(r->status))
			cli_error("'%s' %s before the capture library could open its trace",
				  r->argv[0], how);
		else
			cli_error("'%s' never initialized CUDA (it %s): no CUDA call reached "
				  "the driver, so there is nothing to capture",
				  r->argv[0], how);
		return MP_EXIT_INPUT;
	}
	char wal[PATH_MAX + 8];
	snprintf(wal, sizeof(wal), "%s-wal", r->tmp);
	if (file_exists(wal) && recorder_seal(r->tmp, err, sizeof(err)) != 0) {
		cli_error("%s", err);
		remove_trace_files(r->tmp);
		return MP_EXIT_OUTPUT;
	}
	struct trace *t = NULL;
	int rc = trace_load(r->tmp, &t, err, sizeof(err));
	if (rc) {
		cli_error("the program %s and left a trace that does not load: %s", how, err);
		remove_trace_files(r->tmp);
		return failed ? MP_EXIT_LIMIT : MP_EXIT_INTERNAL;
	}
	const char *complete = trace_get_meta(t, "complete");
	const char *found = trace_get_meta(t, "capture.found");
	const char *seen = trace_get_meta(t, "capture.occurrences");
	const char *sel = trace_get_meta(t, "capture.selection");
	int incomplete = !complete || strcmp(complete, "1") != 0;
	if (found && strcmp(found, "0") == 0 && !incomplete) {
		cli_error("the program never reached the selected iteration (%s): "
			  "the range occurred %s time(s); check --range and --iteration",
			  sel ? sel : "?", seen ? seen : "0");
		trace_free(t);
		remove_trace_files(r->tmp);
		return MP_EXIT_INPUT;
	}
	if (rename(r->tmp, r->output) != 0) {
		cli_error("cannot write trace '%s': %s", r->output, strerror(errno));
		trace_free(t);
		remove_trace_files(r->tmp);
		return MP_EXIT_OUTPUT;
	}
	if (!r->quiet) {
		char peak[32] = "unknown (out of memory)";
		uint64_t bytes;
		if (trace_peak_checked(t, TRACE_ALL, &bytes, NULL, NULL, 0) == 0)
			cli_format_size(bytes, peak, sizeof(peak));
		printf("%s: %zu events, %zu buffers, peak %s (%s%s)\n", r->output,
		       t->nevents, t->nbuffers, peak, sel ? sel : "whole run",
		       incomplete ? ", incomplete" : "");
	}
	trace_free(t);
	if (failed) {
		cli_warn("'%s' %s; the trace%s keeps what was recorded", r->argv[0],
			 how, incomplete ? " is marked incomplete and" : "");
		return MP_EXIT_LIMIT;
	}
	return MP_EXIT_OK;
}

int main(int argc, char **argv)
{
	cli_progname = "memplan-capture";
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "iteration", required_argument, NULL, 'n' },
		{ "range", required_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0, 0, 0, 0 },
	};
	struct run r = { .output = "capture.trace" };
	int c;
	/* '+': options end at PROGRAM, whose own options are its business */
	while ((c = getopt_long(argc, argv, "+o:n:r:fqh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': r.output = optarg; break;
		case 'n': r.iteration = optarg; break;
		case 'r': r.range = optarg; break;
		case 'f': r.force = 1; break;
		case 'q': r.quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return cli_stdout_close(MP_EXIT_OK);
		case 'V':
			printf("memplan-capture %s\n", MEMPLAN_VERSION);
			return cli_stdout_close(MP_EXIT_OK);
		default: return cli_usage_error("unknown option or missing argument");
		}
	}
	if (optind >= argc)
		return cli_usage_error("no program to run");
	r.argv = argv + optind;
	struct select sel;
	char err[ERRLEN];
	if (select_parse(&sel, r.iteration, r.range, err, sizeof(err)) != 0)
		return cli_usage_error("%s", err);
	if (!*r.output)
		return cli_usage_error("the output name is empty");
	struct stat ost;
	if (stat(r.output, &ost) == 0 && !S_ISREG(ost.st_mode))
		return cli_usage_error("cannot write trace '%s': not a regular file (a trace is an SQLite file; the capture renames it into place)",
				       r.output);
	size_t olen = strlen(r.output);
	if (olen + 40 >= sizeof(r.tmp))
		return cli_usage_error("the output name is too long (%zu bytes)", olen);
	snprintf(r.tmp, sizeof(r.tmp), "%s.capture-%ld", r.output, (long)getpid());
	snprintf(r.status, sizeof(r.status), "%s.status", r.tmp);
	snprintf(r.lock, sizeof(r.lock), "%s.lock", r.output);

	/* one capture per output at a time, and never over a trace unasked */
	int lockfd = open(r.lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (lockfd < 0) {
		cli_error("cannot write trace '%s': %s", r.output, strerror(errno));
		return MP_EXIT_OUTPUT;
	}
	struct stat lk, now;
	if (flock(lockfd, LOCK_EX | LOCK_NB) != 0 || fstat(lockfd, &lk) != 0 ||
	    stat(r.lock, &now) != 0 || lk.st_ino != now.st_ino) {
		/* locked, or the holder finished and removed the file we opened */
		cli_error("cannot write trace '%s': another memplan-capture is writing it",
			  r.output);
		close(lockfd);
		return MP_EXIT_OUTPUT;
	}
	int rc = MP_EXIT_OK;
	struct stat sb;
	if (!r.force && stat(r.output, &sb) == 0) {
		cli_error("trace '%s' already exists; use --force to replace it", r.output);
		rc = MP_EXIT_OUTPUT;
		goto out;
	}
	int probe = open(r.tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (probe < 0) {
		cli_error("cannot write trace '%s': %s", r.output, strerror(errno));
		rc = MP_EXIT_OUTPUT;
		goto out;
	}
	close(probe);
	unlink(r.tmp);
	unlink(r.status);
	if (find_library(r.lib, sizeof(r.lib)) != 0) {
		cli_error("the capture library %s was not found beside memplan-capture "
			  "or in %s (memplan was built without CUDA, or set MEMPLAN_CAPTURE_LIB)",
			  LIBNAME, MEMPLAN_CAPTURE_LIBDIR);
		rc = MP_EXIT_INTERNAL;
		goto out;
	}
	/* absolute: the program may change directory before CUDA or NVTX
	 * load it */
	char abs[PATH_MAX];
	if (realpath(r.lib, abs) && strlen(abs) < sizeof(r.lib))
		snprintf(r.lib, sizeof(r.lib), "%s", abs);
	if ((rc = prepare_env(&r)) != 0)
		goto out;
	signal(SIGINT, SIG_IGN); /* the terminal's ^C reaches the program */
	signal(SIGTERM, forward);
	signal(SIGHUP, forward);
	int wstatus = run_program(&r, &rc);
	if (wstatus >= 0)
		rc = finish(&r, wstatus);
	else
		remove_trace_files(r.tmp);
out:
	unlink(r.status);
	unlink(r.lock);
	close(lockfd);
	return rc;
}
