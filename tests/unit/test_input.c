/* SPDX-License-Identifier: MIT */
/*
 * test_input.c - input_load(), the planner's one door for a TRACE: a
 * MiniMalloc CSV and a memplan trace of the same buffers load alike, and a
 * file that claims to be SQLite but is not gets trace_load()'s error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"
#include "tap.h"
#include "tracedb.h"

static char dir[] = "/tmp/memplan-test-input-XXXXXX";

static void write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
}

int main(void)
{
	char err[512], csv[128], db[128], fake[128], none[128];
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(csv, sizeof(csv), "%s/small.csv", dir);
	snprintf(db, sizeof(db), "%s/small.trace", dir);
	snprintf(fake, sizeof(fake), "%s/fake.trace", dir);
	snprintf(none, sizeof(none), "%s/none.trace", dir);
	static const char text[] = "id,lower,upper,size\n"
				   "0,0,10,64\n1,5,20,128\n2,12,30,32\n";
	write_text(csv, text, sizeof(text) - 1);

	struct trace *t = NULL, *u = NULL;
	int rc = input_load(csv, &t, err, sizeof(err));
	CHECK(rc == 0 && t, "a MiniMalloc CSV loads");
	if (t)
		CHECK_EQ_U64(t->nbuffers, 3, "  ... with its three buffers");
	rc = t ? trace_save(t, db, err, sizeof(err)) : -1;
	CHECK(rc == 0, "saved as a memplan trace");
	rc = input_load(db, &u, err, sizeof(err));
	CHECK(rc == 0 && u, "the memplan trace loads (as SQLite, not as CSV)");
	if (t && u) {
		CHECK_EQ_U64(u->nbuffers, t->nbuffers, "  ... the same buffers");
		CHECK_EQ_U64(u->nevents, t->nevents, "  ... and events");
	}
	trace_free(u);
	trace_free(t);

	/* the header says SQLite, the rest is not: trace_load's error */
	static const char bad[] = "SQLite format 3\0 and then nothing useful";
	write_text(fake, bad, sizeof(bad) - 1);
	t = NULL;
	err[0] = '\0';
	rc = input_load(fake, &t, err, sizeof(err));
	CHECK(rc < 0 && !t, "a damaged SQLite file is refused");
	CHECK_STR_HAS(err, fake, "  ... naming the file");
	CHECK(strstr(err, "csv") == NULL && strstr(err, "CSV") == NULL,
	      "  ... as a trace, not as a CSV");

	rc = input_load(none, &t, err, sizeof(err));
	CHECK(rc == TRACE_EIO, "a missing file is an I/O error");
	CHECK_STR_HAS(err, none, "  ... naming the file");

	unlink(csv);
	unlink(db);
	unlink(fake);
	rmdir(dir);
	return tap_done();
}
