/* SPDX-License-Identifier: MIT */
/*
 * solution.c - compile --solution (solution.h): the placement as MiniMalloc
 * CSV.  A CSV input is copied line by line, not re-exported, so that its
 * ids, times, extra columns and order reach the checker exactly as given;
 * rows are matched to buffers by position, as the importer numbers them.
 */
#include "solution.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"

static int io_error(char *err, size_t errlen, const char *what,
		    const char *path)
{
	return trace_seterr(err, errlen, TRACE_EIO, "cannot %s '%s': %s", what,
			    path, strerror(errno));
}

/* The whole file at path, NUL-terminated, in *buf (*len bytes). */
static int slurp(const char *path, char **buf, size_t *len, char *err,
		 size_t errlen)
{
	FILE *in = fopen(path, "rb");
	if (!in)
		return io_error(err, errlen, "read", path);
	size_t n = 0, cap = 65536;
	char *b = malloc(cap);
	for (;;) {
		if (!b)
			break;
		n += fread(b + n, 1, cap - n - 1, in);
		if (n + 1 < cap)
			break;
		char *q = realloc(b, cap * 2);
		if (!q) {
			free(b);
			b = NULL;
			break;
		}
		b = q;
		cap *= 2;
	}
	int bad = ferror(in);
	fclose(in);
	if (!b)
		return trace_seterr(err, errlen, TRACE_ENOMEM,
			    "out of memory reading '%s'", path);
	if (bad) {
		free(b);
		return io_error(err, errlen, "read", path);
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

/* Column index of name "offset" in the header line [s, s + n), or -1. */
static long offset_column(const char *s, size_t n, size_t *ncols)
{
	long col = -1, k = 0;
	const char *end = s + n;
	for (;;) {
		const char *c = memchr(s, ',', (size_t)(end - s));
		const char *fe = c ? c : end;
		if ((size_t)(fe - s) == 6 && memcmp(s, "offset", 6) == 0)
			col = k;
		k++;
		if (!c)
			break;
		s = c + 1;
	}
	*ncols = (size_t)k;
	return col;
}

static int copy_csv(FILE *f, const char *input, const struct trace *t,
		    const int64_t *at, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = slurp(input, &buf, &len, err, errlen);
	if (rc)
		return rc;
	const char *s = buf, *end = buf + len;
	long oc = -1;
	size_t ncols = 0, row = 0, line = 0;
	rc = 0;
	while (s < end && !rc) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - s);
		const char *next = nl ? nl + 1 : end;
		if (n && s[n - 1] == '\r')
			n--;
		line++;
		if (n == 0) /* MiniMalloc stops at the first empty line */
			break;
		if (line == 1) {
			oc = offset_column(s, n, &ncols);
			fwrite(s, 1, n, f);
			fputs(oc < 0 ? ",offset\n" : "\n", f);
		} else if (row >= t->nbuffers || at[row] < 0) {
			rc = trace_seterr(err, errlen, TRACE_EFORMAT,
				  "'%s':%zu: this row has no buffer in the plan (the file changed since it was read?)",
				  input, line);
		} else if (oc < 0) {
			fwrite(s, 1, n, f);
			fprintf(f, ",%" PRId64 "\n", at[row]);
		} else {
			/* the input's own offset column, filled in */
			const char *q = s, *qe = s + n;
			for (long k = 0; k < (long)ncols; k++) {
				const char *c = memchr(q, ',', (size_t)(qe - q));
				const char *fe = c ? c : qe;
				if (k)
					fputc(',', f);
				if (k == oc)
					fprintf(f, "%" PRId64, at[row]);
				else
					fwrite(q, 1, (size_t)(fe - q), f);
				q = c ? c + 1 : qe;
			}
			fputc('\n', f);
		}
		if (line > 1)
			row++;
		s = next;
	}
	if (!rc && row != t->nbuffers)
		rc = trace_seterr(err, errlen, TRACE_EFORMAT,
			  "'%s' has %zu rows but %zu buffers were planned (the file changed since it was read?)",
			  input, row, t->nbuffers);
	free(buf);
	return rc;
}

static void write_items(FILE *f, const struct solver_problem *p,
			const uint64_t *offsets)
{
	int align = 0, gaps = 0;
	for (size_t k = 0; k < p->n; k++) {
		align |= p->items[k].align != 1;
		gaps |= p->items[k].nholes > 0;
	}
	fprintf(f, "id,lower,upper,size%s%s,offset\n", align ? ",alignment" : "",
		gaps ? ",gaps" : "");
	for (size_t k = 0; k < p->n && !ferror(f); k++) {
		const struct solver_item *it = &p->items[k];
		fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64,
			it->buffer >= 0 ? it->buffer : (int64_t)k, it->lower,
			it->upper, it->size);
		if (align)
			fprintf(f, ",%" PRIu64, it->align);
		if (gaps) {
			fputc(',', f);
			for (uint32_t j = 0; j < it->nholes; j++) {
				const struct solver_hole *h = &it->holes[j];
				fprintf(f, "%s%" PRId64 "-%" PRId64, j ? " " : "",
					h->lower, h->upper);
				if (h->win_lo != SOLVER_NO_WINDOW)
					fprintf(f, "@%" PRId64 ":%" PRId64,
						h->win_lo, h->win_hi);
			}
		}
		fprintf(f, ",%" PRIu64 "\n", offsets[k]);
	}
}

int solution_write_csv(FILE *f, const char *input, const struct trace *t,
		       const struct solver_problem *p, const uint64_t *offsets,
		       char *err, size_t errlen)
{
	/* by the input's format, not the trace's origin: a trace imported
	 * from a CSV and stored as SQLite says "minimalloc-csv" too */
	const char *src = trace_get_meta(t, "source");
	int csv = src && strcmp(src, "minimalloc-csv") == 0 &&
		  !trace_get_meta(t, "slice") && input && input_is_csv(input);
	int rc = 0;
	if (csv) {
		int64_t *at = malloc((t->nbuffers + 1) * sizeof(*at));
		if (!at)
			return trace_seterr(err, errlen, TRACE_ENOMEM,
				    "out of memory writing the solution");
		for (size_t i = 0; i < t->nbuffers; i++)
			at[i] = -1;
		for (size_t k = 0; k < p->n; k++)
			if (p->items[k].buffer >= 0 &&
			    (size_t)p->items[k].buffer < t->nbuffers)
				at[p->items[k].buffer] = (int64_t)offsets[k];
		rc = copy_csv(f, input, t, at, err, errlen);
		free(at);
	} else {
		write_items(f, p, offsets);
	}
	if (!rc && (ferror(f) || fflush(f) == EOF))
		rc = trace_seterr(err, errlen, TRACE_EIO,
			  "cannot write the solution: %s", strerror(errno));
	return rc;
}
