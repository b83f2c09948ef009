/* SPDX-License-Identifier: MIT */
/*
 * cli.c - messages, exit statuses, sizes and subcommand dispatch shared by
 * the memplan-* commands.  Only commands call these; libraries return errors.
 */
#include "cli.h"
#include "json_errors.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cli_progname = "memplan";
static int said_error; /* cli_error() has spoken */

static void vmsg(const char *level, const char *fmt, va_list ap)
{
	if (level[0] == 'e')
		said_error = 1;
	fprintf(stderr, "%s: %s: ", cli_progname, level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("warning", fmt, ap);
	va_end(ap);
}

/* The subcommand cli_dispatch() is running, for cli_usage_error(). */
static const char *running;

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
	if (running)
		fprintf(stderr, "try '%s %s --help'\n", cli_progname, running);
	else
		fprintf(stderr, "try '%s --help'\n", cli_progname);
	return MP_EXIT_USAGE;
}

int cli_exit_for(int err, int is_output)
{
	switch (err) {
	case CLI_LIB_OK:
		return MP_EXIT_OK;
	case CLI_LIB_ENOMEM:
		return MP_EXIT_INTERNAL;
	case CLI_LIB_EINVAL:
		return MP_EXIT_USAGE;
	case CLI_LIB_EIO:
		return is_output ? MP_EXIT_OUTPUT : MP_EXIT_INPUT;
	default:
		return MP_EXIT_INPUT;
	}
}

int cli_parse_u64(const char *s, uint64_t *out)
{
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_size(const char *s, uint64_t *out)
{
	if (!s)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {
		{ "", 1 },	       { "B", 1 },
		{ "K", 1024.0 },       { "KiB", 1024.0 },
		{ "KB", 1e3 },	       { "M", 1048576.0 },
		{ "MiB", 1048576.0 },  { "MB", 1e6 },
		{ "G", 1073741824.0 }, { "GiB", 1073741824.0 },
		{ "GB", 1e9 },	       { "T", 1099511627776.0 },
		{ "TiB", 1099511627776.0 }, { "TB", 1e12 },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix) != 0)
			continue;
		/* "KB" is SI only when spelled with a capital B; "kb" too */
		double r = v * units[i].mult;
		if (r >= 9.2e18)
			return -1;
		double ip = floor(r + 0.5);
		if (fabs(r - ip) > 1e-6 * (r > 1 ? r : 1) && units[i].mult == 1)
			return -1; /* fractional bytes */
		*out = (uint64_t)ip;
		return 0;
	}
	return -1;
}

const char *cli_format_size(uint64_t n, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)n;
	size_t i = 0;
	while (v >= 1024 && i + 1 < sizeof(u) / sizeof(u[0])) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)n);
	else
		snprintf(buf, len, "%.2f %s", v, u[i]);
	return buf;
}

void cli_print_usage(FILE *f, const struct cli_command *cmd)
{
	fprintf(f, "usage: %s %s\n", cli_progname, cmd->usage);
	if (cmd->summary)
		fprintf(f, "%s\n", cmd->summary);
	if (cmd->options)
		fprintf(f, "\noptions:\n%s", cmd->options);
	fprintf(f, "\n'man %s' has the details.\n", cli_progname);
}

static void print_help(FILE *f, const struct cli_command *table,
		       const char *about)
{
	fprintf(f, "usage: %s COMMAND [OPTIONS] [ARGS]\n\n%s\n\ncommands:\n",
		cli_progname, about);
	for (const struct cli_command *c = table; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\n'%s COMMAND --help' shows a command's options; "
		   "man %s has the details.\n",
		cli_progname, cli_progname);
}

/* The table cli_dispatch() runs, for cli_option_error()'s --help. */
static const struct cli_command *dispatched;

static const struct cli_command *find_command(const struct cli_command *table,
					      const char *name)
{
	for (const struct cli_command *c = table; c && c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int cli_option_error(int c, const char *cmd)
{
	const struct cli_command *found = find_command(dispatched, cmd);
	if (c == 'h' && found) {
		cli_print_usage(stdout, found);
		return MP_EXIT_OK;
	}
	return cli_usage_error("%s: bad option", cmd);
}

int cli_stdout_close(int rc)
{
	int flush = fflush(stdout), e = errno;
	if (flush == 0 && !ferror(stdout))
		return rc;
	if (!said_error) {
		if (flush != 0)
			cli_error("cannot write to standard output: %s",
				  strerror(e));
		else
			cli_error("cannot write to standard output");
	}
	return rc == MP_EXIT_OK ? MP_EXIT_OUTPUT : rc;
}

static int dispatch(const struct cli_command *table, int argc, char **argv,
		    const char *about);

int cli_dispatch(const struct cli_command *table, int argc, char **argv,
		 const char *about)
{
	return cli_stdout_close(dispatch(table, argc, argv, about));
}

static int dispatch(const struct cli_command *table, int argc, char **argv,
		    const char *about)
{
	dispatched = table;
	if (argc < 2)
		return print_help(stderr, table, about), MP_EXIT_USAGE;
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") ||
	    !strcmp(name, "help")) {
		const struct cli_command *c;
		if (argc > 2 && strcmp(name, "help") == 0 &&
		    (c = find_command(table, argv[2])))
			return cli_print_usage(stdout, c), MP_EXIT_OK;
		print_help(stdout, table, about);
		return MP_EXIT_OK;
	}
	if (!strcmp(name, "--version")) {
		printf("%s %s\n", cli_progname, MEMPLAN_VERSION);
		return MP_EXIT_OK;
	}
	const struct cli_command *c = find_command(table, name);
	if (c) {
		running = c->name;
		int short_j, rc;
		if (cli_offers_json(c->options, &short_j))
			rc = cli_run_json_errors(c->run, argc - 1, argv + 1, short_j);
		else
			rc = c->run(argc - 1, argv + 1);
		running = NULL;
		return rc;
	}
	return cli_usage_error("unknown command '%s'", name);
}

int cli_out_open(struct cli_out *o, const char *path)
{
	o->path = path;
	o->tmp = NULL;
	o->direct = 0;
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		/* a rename would replace the device or pipe with a file */
		if (!(o->f = fopen(path, "w"))) {
			cli_error("cannot write '%s': %s", path, strerror(errno));
			return MP_EXIT_OUTPUT;
		}
		o->direct = 1;
		return 0;
	}
	size_t n = strlen(path) + 32;
	if (!(o->tmp = malloc(n))) {
		cli_error("out of memory");
		return MP_EXIT_INTERNAL;
	}
	snprintf(o->tmp, n, "%s.tmp-%ld", path, (long)getpid());
	if (!(o->f = fopen(o->tmp, "w"))) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return MP_EXIT_OUTPUT;
	}
	return 0;
}

int cli_out_close(struct cli_out *o, int commit)
{
	/* not committed: the output was not written, whoever says why */
	int rc = commit ? MP_EXIT_OK : MP_EXIT_OUTPUT;
	if (o->direct) {
		o->direct = 0;
		if (fclose(o->f) != 0 && commit) {
			cli_error("cannot write '%s': %s", o->path, strerror(errno));
			rc = MP_EXIT_OUTPUT;
		}
		return rc;
	}
	if (!o->tmp) {
		if (fflush(o->f) != 0 || ferror(o->f)) {
			cli_error("cannot write to standard output: %s",
				  strerror(errno));
			rc = MP_EXIT_OUTPUT;
		}
		return rc;
	}
	int bad = ferror(o->f);
	if (fclose(o->f) != 0)
		bad = 1;
	if (commit && bad) {
		cli_error("cannot write '%s': %s", o->path, strerror(errno));
		rc = MP_EXIT_OUTPUT;
	} else if (commit && rename(o->tmp, o->path) < 0) {
		cli_error("cannot write '%s': %s", o->path, strerror(errno));
		rc = MP_EXIT_OUTPUT;
	}
	if (!commit || rc != MP_EXIT_OK)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	return rc;
}

int cli_same_file(const char *a, const char *b)
{
	if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
		return 0;
	if (strcmp(a, b) == 0)
		return 1;
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}
