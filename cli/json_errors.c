/* SPDX-License-Identifier: MIT */
/*
 * json_errors.c - --json on failure (json_errors.h): stderr and stdout go to
 * temporary files while the command runs, so that a failure anywhere in it
 * (a usage error in its option loop, a library's error) becomes one JSON
 * object; what the person would have read is copied back unchanged.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "json_errors.h"

/* one capture at a time: a command that wraps itself again runs plain */
static int capturing;

struct capture {
	FILE *tmp; /* NULL: not capturing */
	int saved; /* the descriptor the stream had */
	int fd;    /* STDERR_FILENO or STDOUT_FILENO */
};

/* Sends fd into a temporary file; c->tmp stays NULL when it cannot. */
static void capture_start(struct capture *c, int fd)
{
	c->tmp = NULL;
	c->saved = -1;
	c->fd = fd;
	FILE *f = tmpfile();
	if (!f)
		return;
	int saved = dup(fd);
	if (saved < 0 || dup2(fileno(f), fd) < 0) {
		if (saved >= 0)
			close(saved);
		fclose(f);
		return;
	}
	c->tmp = f;
	c->saved = saved;
}

/* Puts fd back, copies what was captured to it; returns the bytes copied
 * and keeps the first cap - 1 of them in text (NUL-ended); *lost (may be
 * NULL) is set when the copy back could not be written whole. */
static size_t capture_end(struct capture *c, char *text, size_t cap,
			  int *lost)
{
	dup2(c->saved, c->fd);
	close(c->saved);
	size_t total = 0, n;
	char buf[1 << 14];
	rewind(c->tmp);
	text[0] = '\0';
	while ((n = fread(buf, 1, sizeof(buf), c->tmp)) > 0) {
		if (total < cap - 1) {
			size_t k = n < cap - 1 - total ? n : cap - 1 - total;
			memcpy(text + total, buf, k);
			text[total + k] = '\0';
		}
		/* a short write back to the terminal or pipe cannot be reported
		 * anywhere better than where it failed */
		if (write(c->fd, buf, n) != (ssize_t)n) {
			if (lost)
				*lost = 1;
			break;
		}
		total += n;
	}
	if (lost && ferror(c->tmp))
		*lost = 1;
	fclose(c->tmp);
	c->tmp = NULL;
	return total;
}

/* Prints line (len bytes, no newline) as a JSON string. */
static void json_line(const char *line, size_t len)
{
	char buf[ERRLEN * 2];
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	json_quote(stdout, buf);
}

static void print_error_object(const char *text, int status)
{
	/* the first error's sentence, after "<prog>: error: " */
	static const char tag[] = ": error: ";
	const char *e = strstr(text, tag);
	printf("{\"error\":");
	if (e) {
		e += sizeof(tag) - 1;
		json_line(e, strcspn(e, "\n"));
	} else {
		printf("\"exit status %d\"", status);
	}
	printf(",\"exit_status\":%d,\"messages\":[", status);
	int first = 1;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		if (len) {
			printf(first ? "" : ",");
			json_line(p, len);
			first = 0;
		}
		p += len + (p[len] == '\n');
	}
	printf("]}\n");
	fflush(stdout);
}

static int asks_json(int argc, char **argv, int short_j)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0 ||
		    (short_j && strcmp(argv[i], "-j") == 0))
			return 1;
	return 0;
}

int cli_run_json_errors(int (*run)(int, char **), int argc, char **argv,
			int short_j)
{
	if (capturing || !asks_json(argc, argv, short_j))
		return run(argc, argv);
	struct capture err, out;
	fflush(stdout);
	fflush(stderr);
	capture_start(&err, STDERR_FILENO);
	if (!err.tmp)
		return run(argc, argv);
	capture_start(&out, STDOUT_FILENO);
	capturing = 1;
	int status = run(argc, argv);
	capturing = 0;
	fflush(stdout);
	fflush(stderr);
	char text[1 << 16], first[2];
	size_t printed = 0; /* unknown when stdout could not be captured */
	int lost = 0;
	if (out.tmp)
		printed = capture_end(&out, first, sizeof(first), &lost);
	capture_end(&err, text, sizeof(text), NULL);
	if (lost) { /* the answer never reached its reader */
		cli_error("cannot write to standard output");
		return status == MP_EXIT_OK ? MP_EXIT_OUTPUT : status;
	}
	if (status != MP_EXIT_OK && printed == 0)
		print_error_object(text, status);
	return status;
}

int cli_offers_json(const char *options, int *short_j)
{
	*short_j = 0;
	if (!options || !strstr(options, "--json"))
		return 0;
	*short_j = strstr(options, "-j, --json") != NULL;
	return 1;
}
