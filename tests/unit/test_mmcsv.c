/* SPDX-License-Identifier: MIT */
/*
 * test_mmcsv.c - MiniMalloc CSV import and export: the 12 shared placement
 * files round-trip byte for byte and keep their documented lower bounds;
 * aliases, optional columns, line endings, and every class of bad input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "minimalloc_csv.h"
#include "tap.h"

static char err[1024];

/* Parses s as file "t.csv"; NULL on failure (message in err). */
static struct trace *parse(const char *s)
{
	struct trace *t = NULL;
	err[0] = '\0';
	if (mmcsv_parse("t.csv", s, strlen(s), &t, err, sizeof(err)) != 0)
		return NULL;
	return t;
}

/* The export of t as a malloc'd string, or NULL. */
static char *export(const struct trace *t)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return NULL;
	int rc = mmcsv_export(t, f, err, sizeof(err));
	fclose(f);
	if (rc != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void check_export(const struct trace *t, const char *want,
			 const char *what)
{
	char *got = t ? export(t) : NULL;
	int same = got && strcmp(got, want) == 0;
	CHECK(same, what);
	if (!same)
		printf("#   got:\n%s#   want:\n%s", got ? got : "(null)\n", want);
	free(got);
}

/* Parsing fails with TRACE_EFORMAT, *out untouched, and err has needle. */
static void check_error(const char *input, const char *needle,
			const char *what)
{
	struct trace *sentinel = (struct trace *)&err, *t = sentinel;
	err[0] = '\0';
	int rc = mmcsv_parse("t.csv", input, strlen(input), &t, err,
			     sizeof(err));
	char line[256];
	snprintf(line, sizeof(line), "%s: rejected", what);
	CHECK(rc == TRACE_EFORMAT && t == sentinel, line);
	snprintf(line, sizeof(line), "%s: message", what);
	CHECK_STR_HAS(err, needle, line);
	if (rc == 0 && t != sentinel)
		trace_free(t);
}

/* --- the shared placement files ---------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			char *q = realloc(buf, cap);
			if (!q)
				break;
			buf = q;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		if (got == 0)
			break;
		n += got;
	}
	fclose(f);
	*len = n;
	return buf;
}

static void test_shared_files(void)
{
	static const struct {
		const char *file;
		uint64_t bound; /* lower bound from shared/data/README.md */
	} files[] = {
		{ "A.1048576.csv", 1048576 }, { "B.1048576.csv", 1048576 },
		{ "C.1048576.csv", 1039360 }, { "D.1048576.csv", 986112 },
		{ "E.1048576.csv", 1048576 }, { "F.1048576.csv", 1048576 },
		{ "G.1048576.csv", 1048576 }, { "H.1048576.csv", 1048576 },
		{ "I.1048576.csv", 1048576 }, { "J.1048576.csv", 989184 },
		{ "K.1048576.csv", 1048576 },
		{ "somas-resnet50.csv", 1515472556 },
	};
	const char *dir = tap_shared_data();
	if (!dir) {
		tap_skip("the 12 shared instances import and round-trip",
			 TAP_NO_SHARED);
		return;
	}
	char path[4096];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/placement/%s", dir,
			 files[i].file);
		size_t len = 0;
		char *data = slurp(path, &len);
		if (!data) {
			CHECK(0, files[i].file);
			printf("#   cannot read '%s'\n", path);
			continue;
		}
		struct trace *t = NULL;
		char what[128];
		int rc = mmcsv_import(path, &t, err, sizeof(err));
		snprintf(what, sizeof(what), "%s: imports", files[i].file);
		CHECK(rc == 0, what);
		if (rc != 0) {
			printf("#   %s\n", err);
			free(data);
			continue;
		}
		size_t lines = 0;
		for (size_t k = 0; k < len; k++)
			lines += data[k] == '\n';
		snprintf(what, sizeof(what), "%s: one buffer per record",
			 files[i].file);
		CHECK_EQ_U64(t->nbuffers, lines - 1, what);
		snprintf(what, sizeof(what), "%s: peak is the documented lower bound",
			 files[i].file);
		CHECK_EQ_U64(trace_peak(t, TRACE_ALL, NULL), files[i].bound,
			     what);
		if (strcmp(files[i].file, "somas-resnet50.csv") == 0)
			CHECK_EQ_U64(t->nbuffers, 1042, "somas-resnet50: 1,042 tensors");
		snprintf(what, sizeof(what), "%s: source_file meta",
			 files[i].file);
		const char *sf = trace_get_meta(t, "source_file");
		CHECK(sf && strcmp(sf, files[i].file) == 0, what);

		char *out = export(t);
		snprintf(what, sizeof(what), "%s: round-trips byte for byte",
			 files[i].file);
		CHECK(out && strlen(out) == len && memcmp(out, data, len) == 0,
		      what);
		free(out);
		free(data);
		trace_free(t);
	}
}

/* --- the mapping ------------------------------------------------------- */

static void test_mapping(void)
{
	struct trace *t = NULL;
	const char *in = "id,lower,upper,size\na,0,5,10\nb,5,10,20\nc,5,7,30\n";
	CHECK(mmcsv_parse("dir/sub/m.csv", in, strlen(in), &t, err,
			  sizeof(err)) == 0,
	      "mapping: parses");
	if (!t)
		return;
	const char *v;
	CHECK((v = trace_get_meta(t, "clock")) && !strcmp(v, "time"),
	      "mapping: clock is time");
	CHECK(t->clock == TRACE_CLOCK_TIME, "mapping: trace clock is time");
	CHECK((v = trace_get_meta(t, "source")) && !strcmp(v, "minimalloc-csv"),
	      "mapping: source meta");
	CHECK((v = trace_get_meta(t, "source_file")) && !strcmp(v, "m.csv"),
	      "mapping: source_file is the basename");
	CHECK((v = trace_get_meta(t, "minimalloc.ids")) && !strcmp(v, "label"),
	      "mapping: ids are labels");
	CHECK_EQ_U64(t->nbuffers, 3, "mapping: three buffers");
	const struct trace_buffer *b = &t->buffers[2];
	CHECK(b->id == 2 && b->size == 30 && b->rounded == 30 &&
		      b->align == 1 && b->fixed_offset == TRACE_NONE &&
		      b->kind == TRACE_KIND_DEVICE &&
		      b->role == TRACE_ROLE_UNKNOWN && b->stream == TRACE_NONE &&
		      b->label && !strcmp(b->label, "c"),
	      "mapping: buffer fields");
	/* at time 5 the free of a comes before the allocs of b and c */
	static const struct {
		uint8_t type;
		int64_t buffer, t;
	} want[] = {
		{ TRACE_EV_ALLOC, 0, 0 }, { TRACE_EV_FREE, 0, 5 },
		{ TRACE_EV_ALLOC, 1, 5 }, { TRACE_EV_ALLOC, 2, 5 },
		{ TRACE_EV_FREE, 2, 7 },  { TRACE_EV_FREE, 1, 10 },
	};
	int ok = t->nevents == 6;
	for (size_t i = 0; ok && i < 6; i++) {
		const struct trace_event *e = &t->events[i];
		ok = e->seq == (int64_t)i && e->type == want[i].type &&
		     e->buffer == want[i].buffer && e->t_start == want[i].t &&
		     e->t_end == want[i].t && e->stream == TRACE_NONE;
	}
	CHECK(ok, "mapping: events by time, frees first at equal time, seq 0..5");
	int64_t lo, hi;
	trace_lifetime(t, &t->buffers[1], &lo, &hi);
	CHECK(lo == 5 && hi == 10, "mapping: lifetime [5, 10)");
	CHECK_EQ_U64(trace_peak(t, TRACE_ALL, NULL), 50,
		     "mapping: half-open lifetimes do not overlap at 5");
	trace_free(t);
}

static void test_aliases(void)
{
	struct trace *t = parse("buffer_id,start,end,size\na,0,4,8\nb,5,9,8\n");
	CHECK(t != NULL, "aliases: buffer_id,start,end parse");
	if (t) {
		int64_t lo, hi;
		trace_lifetime(t, &t->buffers[0], &lo, &hi);
		CHECK(lo == 0 && hi == 5, "aliases: end is inclusive");
		CHECK(!strcmp(t->buffers[1].label, "b"), "aliases: buffer_id is the id");
		check_export(t, "id,lower,upper,size\na,0,5,8\nb,5,10,8\n",
			     "aliases: exported in canonical form");
		trace_free(t);
	}
	t = parse("size,upper,buffer,begin\n8,5,x,1\n");
	CHECK(t != NULL, "aliases: begin, buffer, any column order");
	check_export(t, "id,lower,upper,size\nx,1,5,8\n",
		     "aliases: reordered columns export canonically");
	trace_free(t);

	t = parse("id,start,end,size,gaps\nx,0,9,10,2-3 5-5\n");
	CHECK(t != NULL, "aliases: end with gaps parses");
	if (t) {
		const struct trace_hole *h = t->holes;
		CHECK(t->nholes == 2 && h[0].lower == 2 && h[0].upper == 4 &&
			      h[1].lower == 5 && h[1].upper == 6,
		      "aliases: gap uppers are inclusive under end");
		check_export(t, "id,lower,upper,size,gaps\nx,0,10,10,2-4 5-6\n",
			     "aliases: end gaps exported half-open");
		trace_free(t);
	}
	t = parse("id,lower,upper,size,note\nx,0,9,10,hello\n");
	CHECK(t && t->nbuffers == 1, "unknown columns are ignored");
	trace_free(t);
}

static void test_optional_columns(void)
{
	const char *in = "id,lower,upper,size,alignment,gaps,offset\n"
			 "a,0,10,64,16,2-4 6-8@0:32,128\n"
			 "b,3,12,32,1,,0\n"
			 "c,10,20,100,8,11-12@10:20,256\n";
	struct trace *t = parse(in);
	CHECK(t != NULL, "optional: alignment, gaps and offset parse");
	if (!t) {
		printf("#   %s\n", err);
		return;
	}
	const struct trace_buffer *b = t->buffers;
	CHECK(b[0].align == 16 && b[1].align == 1 && b[2].align == 8,
	      "optional: alignment");
	CHECK(b[0].fixed_offset == 128 && b[1].fixed_offset == 0 &&
		      b[2].fixed_offset == 256,
	      "optional: offsets");
	CHECK(t->nholes == 3 && b[0].nholes == 2 && b[1].nholes == 0 &&
		      b[2].nholes == 1,
	      "optional: holes per buffer");
	const struct trace_hole *h = &t->holes[b[0].hole0];
	CHECK(h[0].lower == 2 && h[0].upper == 4 && h[0].win_lo == TRACE_NONE &&
		      h[0].win_hi == TRACE_NONE && h[1].lower == 6 &&
		      h[1].upper == 8 && h[1].win_lo == 0 && h[1].win_hi == 32,
	      "optional: gaps and windows");
	/* live: a 64 (32 during 6-8, 0 during 2-4), b 32, c 100 (10 in 11-12) */
	CHECK_EQ_U64(trace_peak(t, TRACE_ALL, NULL), 132,
		     "optional: peak subtracts gaps and keeps windows");
	check_export(t, in, "optional: round trip byte for byte");
	trace_free(t);

	t = parse("id,lower,upper,size,gaps\na,0,10,8,6-8 1-3\n");
	check_export(t, "id,lower,upper,size,gaps\na,0,10,8,1-3 6-8\n",
		     "optional: unsorted gaps export sorted");
	trace_free(t);

	/* columns present but trivial are dropped, as MiniMalloc's ToCsv does */
	t = parse("id,lower,upper,size,alignment,gaps\na,0,10,8,1,\n");
	check_export(t, "id,lower,upper,size\na,0,10,8\n",
		     "optional: all-1 alignment and no gaps are not written");
	trace_free(t);

	/* an empty offset is not pinned, so mixed pinning round-trips */
	in = "id,lower,upper,size,offset\na,0,10,8,\nb,0,10,8,8\n";
	t = parse(in);
	CHECK(t && t->buffers[0].fixed_offset == TRACE_NONE &&
		      t->buffers[1].fixed_offset == 8,
	      "optional: empty offset means not pinned");
	check_export(t, in, "optional: mixed offsets round-trip");
	trace_free(t);
}

/*
 * Times before 0 are times like any other, in gaps as in lower and upper:
 * a file whose times are negative has its gaps there too, and memplan's
 * export writes them so.
 */
static void test_negative_gaps(void)
{
	const char *in = "id,lower,upper,size,gaps\na,-10,10,8,-8--5 -2-3\nb,-4,-1,4,-3--2\n";
	struct trace *t = parse(in);
	CHECK(t && t->nbuffers == 2 && t->nholes == 3,
	      "negative gaps: a file with negative times and gaps parses");
	if (t) {
		CHECK(t->holes[0].lower == 2 && t->holes[0].upper == 5 &&
			      t->holes[1].lower == 8 && t->holes[1].upper == 13 &&
			      t->holes[2].lower == 7 && t->holes[2].upper == 8,
		      "negative gaps: shifted with the lifetimes, by 10");
		check_export(t, in, "negative gaps: round-trip byte for byte");
	}
	trace_free(t);
	t = parse("id,start,end,size,gaps\na,-10,-1,8,-8--6\n");
	CHECK(t && t->nholes == 1 && t->holes[0].upper - t->holes[0].lower == 3,
	      "negative gaps: an inclusive end holds its last time");
	trace_free(t);
}

static void test_line_endings(void)
{
	const char *want = "id,lower,upper,size\na,0,5,10\nb,2,4,1\n";
	static const char *const inputs[] = {
		"id,lower,upper,size\r\na,0,5,10\r\nb,2,4,1\r\n",
		"id,lower,upper,size\r\na,0,5,10\r\nb,2,4,1",
		"id,lower,upper,size\na,0,5,10\nb,2,4,1",
		"\xef\xbb\xbfid,lower,upper,size\na,0,5,10\nb,2,4,1\n",
		"id,lower,upper,size\na,0,5,10\nb,2,4,1\n\nignored,after,the,blank\n",
		"id,lower,upper,size\r\na,0,5,10\r\nb,2,4,1\r\n\r\nx\r\n",
	};
	static const char *const names[] = {
		"CRLF", "CRLF without final newline", "no final newline",
		"UTF-8 BOM", "stops at the first empty line",
		"CRLF empty line ends the records",
	};
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		struct trace *t = parse(inputs[i]);
		char what[128];
		snprintf(what, sizeof(what), "line endings: %s", names[i]);
		CHECK(t && t->nbuffers == 2, what);
		snprintf(what, sizeof(what), "line endings: %s exports canonically",
			 names[i]);
		check_export(t, want, what);
		trace_free(t);
	}
	struct trace *t = parse("id,lower,upper,size\n");
	CHECK(t && t->nbuffers == 0 && t->nevents == 0,
	      "header only: an empty problem");
	check_export(t, "id,lower,upper,size\n", "header only: exports the header");
	trace_free(t);
}

static void test_errors(void)
{
	check_error("id,lower,size\na,0,1\n", "'t.csv':1: field upper: required column 'upper' is missing",
		    "missing column");
	check_error("lower,upper,size\n", "'t.csv':1: field id:", "missing id");
	check_error("id,lower,upper,size,begin\n",
		    "'t.csv':1: field begin: duplicate column: columns 2 ('lower') and 5 ('begin')",
		    "duplicate column via alias");
	check_error("id,buffer,lower,upper,size\n", "'t.csv':1: field buffer: duplicate",
		    "duplicate id via alias");
	check_error("id,lower,upper,size,x,x\n", "'t.csv':1: field x: duplicate",
		    "duplicate unknown column");
	check_error("", "'t.csv':1: no header line", "empty file");
	check_error("\n", "'t.csv':1: no header line", "empty first line");
	check_error("id,lower,upper,size\na,0,5,1\nb,0,5,1,7\n",
		    "'t.csv':3: 5 fields, but the header has 4 columns",
		    "too many fields");
	check_error("id,lower,upper,size\na,0,5,1\nb,0,5,1\nc,0,5\n",
		    "'t.csv':4: 3 fields, but the header has 4 columns",
		    "too few fields");
	check_error("id,lower,upper,size\na,1x,5,1\n",
		    "'t.csv':2: field lower: '1x' is not an integer",
		    "non-integer");
	check_error("id,lower,upper,size\na,0,5,\n",
		    "'t.csv':2: field size: '' is not an integer",
		    "empty integer");
	check_error("id,lower,upper,size\na,0, 5,1\n",
		    "'t.csv':2: field upper: ' 5' is not an integer",
		    "space in integer");
	check_error("id,lower,upper,size\na,0,+5,1\n",
		    "'t.csv':2: field upper: '+5' is not an integer",
		    "plus sign");
	check_error("id,lower,upper,size\na,0,99999999999999999999,1\n",
		    "'t.csv':2: field upper: '99999999999999999999' is out of range",
		    "overflow");
	check_error("id,lower,upper,size\na,0,5,1\na,0,5,1\na,0,5,1\na,0,5,1\na,0,5,1\na,1,5,-5\n",
		    "'t.csv':7: field size: '-5' is not a positive integer",
		    "negative size");
	check_error("id,lower,upper,size\na,0,5,0\n",
		    "'t.csv':2: field size: '0' is not a positive integer",
		    "zero size");
	check_error("id,lower,upper,size\na,-99999999999999999999,5,1\n",
		    "'t.csv':2: field lower: '-99999999999999999999' is below -2^62",
		    "a lower time past -2^62");
	check_error("id,lower,upper,size\na,--1,5,1\n",
		    "'t.csv':2: field lower: '--1' is not an integer", "a doubled minus");
	check_error("id,lower,upper,size\na,-5,-7,1\n",
		    "'t.csv':2: field upper: empty lifetime [-5, -7)",
		    "a reversed lifetime before 0");
	check_error("id,lower,upper,size\na,5,5,1\n",
		    "'t.csv':2: field upper: empty lifetime [5, 5)",
		    "empty lifetime");
	check_error("id,lower,upper,size\na,6,5,1\n",
		    "'t.csv':2: field upper: empty lifetime [6, 5)",
		    "reversed lifetime");
	check_error("id,start,end,size\na,5,4,1\n",
		    "'t.csv':2: field end: empty lifetime [5, 5)",
		    "empty lifetime under end");
	check_error("id,lower,end,size\na,0,9223372036854775807,1\n",
		    "'t.csv':2: field end: inclusive end 9223372036854775807 is out of range",
		    "end at the largest integer");
	check_error("id,lower,upper,size,alignment\na,0,5,1,0\n",
		    "'t.csv':2: field alignment: '0' is not a positive integer",
		    "zero alignment");
	check_error("id,lower,upper,size,offset\na,0,5,1,-8\n",
		    "'t.csv':2: field offset: '-8' is negative", "negative offset");
	check_error("id,lower,upper,size,offset\na,0,5,2,9223372036854775807\n",
		    "'t.csv':2: field offset: offset 9223372036854775807 plus size 2 is out of range",
		    "offset plus size overflows");
	check_error("id,lower,upper,size\na,0,5,9223372036854775807\nb,0,5,1\n",
		    "'t.csv':2: field size: size 9223372036854775807 is 2^62 or more",
		    "a size of 2^62 or more");
	check_error("id,lower,upper,size\na,0,5,4611686018427387903\nb,0,5,1\n",
		    "'t.csv':3: field size: the sizes add up to 2^62 bytes or more",
		    "sizes that add up to 2^62");

	static const char *const bad_gaps[] = {
		"1-", "--1-2", "1---2", "-", "1-2-", "a-b", "1-2@3", "1-2@3:", "1-2@:4",
		"1-2@3:4:5", "1-2@3:4@5:6", "1_2", "1-2,", "12", "1-2@-1:3",
		"-99999999999999999999-2",
	};
	for (size_t i = 0; i < sizeof(bad_gaps) / sizeof(bad_gaps[0]); i++) {
		char in[128], needle[128], what[128];
		snprintf(in, sizeof(in),
			 "id,lower,upper,size,gaps\na,0,10,8,1-2\nb,0,10,8,3-4 %s\n",
			 bad_gaps[i]);
		if (strchr(bad_gaps[i], ','))
			snprintf(needle, sizeof(needle), "'t.csv':3: 6 fields");
		else
			snprintf(needle, sizeof(needle),
				 "'t.csv':3: field gaps: '%s' is not a gap",
				 bad_gaps[i]);
		snprintf(what, sizeof(what), "bad gap syntax '%s'", bad_gaps[i]);
		check_error(in, needle, what);
	}
	check_error("id,lower,upper,size,gaps\na,0,10,8,1-99999999999999999999\n",
		    "'t.csv':2: field gaps: '1-99999999999999999999' is not a gap",
		    "gap out of range");
	check_error("id,lower,upper,size,gaps\na,2,10,8,1-3\n",
		    "'t.csv':2: field gaps: gap '1-3' lies outside the lifetime [2, 10)",
		    "gap before the lifetime");
	check_error("id,lower,upper,size,gaps\na,2,10,8,5-11\n",
		    "'t.csv':2: field gaps: gap '5-11' lies outside the lifetime [2, 10)",
		    "gap after the lifetime");
	check_error("id,start,end,size,gaps\na,2,9,8,5-10\n",
		    "'t.csv':2: field gaps: gap '5-10' lies outside the lifetime [2, 10)",
		    "inclusive gap after the lifetime");
	check_error("id,lower,upper,size,gaps\na,0,10,8,-1-2\n",
		    "'t.csv':2: field gaps: gap '-1-2' lies outside the lifetime [0, 10)",
		    "a negative gap before the lifetime");
	check_error("id,lower,upper,size,gaps\na,0,10,8,1--2\n",
		    "'t.csv':2: field gaps: gap '1--2' is empty",
		    "a gap that ends at a negative time before it starts");
	check_error("id,lower,upper,size,gaps\na,2,10,8,5-5\n",
		    "'t.csv':2: field gaps: gap '5-5' is empty", "empty gap");
	check_error("id,lower,upper,size,gaps\na,2,10,8,6-5\n",
		    "'t.csv':2: field gaps: gap '6-5' is empty", "reversed gap");
	check_error("id,lower,upper,size,gaps\na,0,20,8,10-15 2-4 3-5\n",
		    "'t.csv':2: field gaps: gaps '2-4' and '3-5' overlap",
		    "overlapping gaps");
	check_error("id,lower,upper,size,gaps\na,0,20,8,2-4@0:9\n",
		    "'t.csv':2: field gaps: gap '2-4@0:9': window [0, 9) is not a non-empty range inside the buffer's 8 bytes",
		    "window past the buffer");
	check_error("id,lower,upper,size,gaps\na,0,20,8,2-4@3:3\n",
		    "'t.csv':2: field gaps: gap '2-4@3:3': window [3, 3)",
		    "empty window");
	/* a NUL byte needs an explicit length */
	static const char nul[] = "id,lower,upper,size\na,0,5,1\nb\0,0,5,1\n";
	struct trace *t = NULL;
	int rc = mmcsv_parse("t.csv", nul, sizeof(nul) - 1, &t, err, sizeof(err));
	CHECK(rc == TRACE_EFORMAT && t == NULL, "NUL byte: rejected");
	CHECK_STR_HAS(err, "'t.csv':3: the line contains a NUL byte",
		      "NUL byte: message");
	/* long and binary values are shown cut and sanitised */
	check_error("id,lower,upper,size\na,0,5,12345678901234567890123456789012345678901234567890x\n",
		    "field size: '1234567890123456789012345678901234567890...' is not an integer",
		    "long values are cut in messages");
	check_error("id,lower,upper,size\na,0,5,1\x01\n",
		    "field size: '1?' is not an integer",
		    "control characters are shown as '?'");
}

static void test_import_io(void)
{
	struct trace *t = NULL;
	int rc = mmcsv_import("/nonexistent/dir/x.csv", &t, err, sizeof(err));
	CHECK(rc == TRACE_EIO && t == NULL, "import: missing file is TRACE_EIO");
	CHECK_STR_HAS(err, "cannot open '/nonexistent/dir/x.csv'",
		      "import: message names the file");
}

/* A trace built by hand on the seq clock: numeric ids, persistent buffers. */
static void test_export_other(void)
{
	struct trace *t = trace_new();
	if (!t)
		return;
	struct trace_buffer b = { .size = 16, .fixed_offset = TRACE_NONE,
				  .stream = TRACE_NONE, .label = "w,eight" };
	trace_add_buffer(t, &b); /* 0: live at start and end */
	b.label = "tmp";
	trace_add_buffer(t, &b); /* 1: alloc 1, free 3 */
	b.size = 8;
	b.fixed_offset = 64;
	trace_add_buffer(t, &b); /* 2: live at start, free 2 */
	b.fixed_offset = TRACE_NONE;
	trace_add_buffer(t, &b); /* 3: alloc 4, live at end */
	struct trace_event e = { .t_start = TRACE_TIME_NONE,
				 .t_end = TRACE_TIME_NONE,
				 .stream = TRACE_NONE };
	e.seq = 0, e.type = TRACE_EV_KERNEL, e.buffer = TRACE_NONE;
	trace_add_event(t, &e);
	e.seq = 1, e.type = TRACE_EV_ALLOC, e.buffer = 1;
	trace_add_event(t, &e);
	e.seq = 2, e.type = TRACE_EV_FREE, e.buffer = 2;
	trace_add_event(t, &e);
	e.seq = 3, e.type = TRACE_EV_FREE, e.buffer = 1;
	trace_add_event(t, &e);
	e.seq = 4, e.type = TRACE_EV_ALLOC, e.buffer = 3;
	trace_add_event(t, &e);
	e.seq = 5, e.type = TRACE_EV_KERNEL, e.buffer = TRACE_NONE;
	trace_add_event(t, &e);
	struct trace_hole h = { 1, 2, 3, 0, 4 };
	trace_add_hole(t, &h);

	CHECK(mmcsv_export(t, stdout, err, sizeof(err)) == TRACE_EINVAL,
	      "export: an unfinished trace is refused");
	int rc = trace_finish(t, err, sizeof(err));
	CHECK(rc == 0, "export: hand-made trace finishes");
	if (rc != 0) {
		printf("#   %s\n", err);
		trace_free(t);
		return;
	}
	/* live-at-start buffers take the first time, all others move one later */
	const char *want = "id,lower,upper,size,gaps,offset\n"
			   "0,0,7,16,,\n"
			   "1,2,4,16,3-4@0:4,\n"
			   "2,0,3,8,,64\n"
			   "3,5,7,8,,\n";
	check_export(t, want, "export: seq clock, numeric ids, persistent buffers span the clock");
	struct trace *u = parse(want);
	CHECK(u && u->nbuffers == 4 && u->buffers[2].fixed_offset == 64 &&
		      u->buffers[0].fixed_offset == TRACE_NONE,
	      "export: re-imports");
	CHECK(u && trace_peak(u, TRACE_ALL, NULL) == trace_peak(t, TRACE_ALL, NULL),
	      "export: re-import has the same peak");
	trace_free(u);

	trace_set_meta(t, "minimalloc.ids", "label");
	CHECK(mmcsv_export(t, stdout, err, sizeof(err)) == TRACE_EINVAL,
	      "export: a label with a comma cannot be an id");
	CHECK_STR_HAS(err, "buffer 0", "export: message names the buffer");

	FILE *full = fopen("/dev/full", "w");
	if (full) {
		trace_set_meta(t, "minimalloc.ids", "number");
		rc = mmcsv_export(t, full, err, sizeof(err));
		CHECK(rc == TRACE_EIO, "export: write error is TRACE_EIO");
		CHECK_STR_HAS(err, "cannot write", "export: write error message");
		fclose(full);
	} else {
		printf("# skip write error: no /dev/full\n");
	}
	trace_free(t);
}

/* A big input parses in about linear time. */
static void test_scale(void)
{
	size_t n = 300000, cap = n * 48 + 64, len = 0;
	char *in = malloc(cap);
	if (!in)
		return;
	len += (size_t)sprintf(in, "id,lower,upper,size,gaps\n");
	unsigned long long x = 88172645463325252ull;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		unsigned long long lo = x % 1000000, span = 2 + x % 5000;
		len += (size_t)sprintf(in + len, "b%zu,%llu,%llu,%llu,%llu-%llu\n",
				       i, lo, lo + span, 1 + (x >> 40) % 4096,
				       lo + 1, lo + 2);
	}
	clock_t c0 = clock();
	struct trace *t = NULL;
	int rc = mmcsv_parse("big.csv", in, len, &t, err, sizeof(err));
	double s = (double)(clock() - c0) / CLOCKS_PER_SEC;
	CHECK(rc == 0 && t->nbuffers == n && t->nevents == 2 * n &&
		      t->nholes == n,
	      "scale: 300,000 records with gaps");
	printf("# scale: parsed %zu bytes in %.2f s\n", len, s);
	CHECK(s < 20, "scale: well under quadratic time");
	char *out = t ? export(t) : NULL;
	CHECK(out && strlen(out) == len && memcmp(out, in, len) == 0,
	      "scale: round trip byte for byte");
	free(out);
	trace_free(t);
	free(in);
}

int main(void)
{
	test_shared_files();
	test_mapping();
	test_aliases();
	test_optional_columns();
	test_negative_gaps();
	test_line_endings();
	test_errors();
	test_import_io();
	test_export_other();
	test_scale();
	return tap_done();
}
