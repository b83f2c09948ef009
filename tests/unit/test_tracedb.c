/* SPDX-License-Identifier: MIT */
/*
 * test_tracedb.c - the trace store: a trace written and read back is the
 * same trace, and every kind of damage to a file is refused with a sentence
 * naming the file, table, row and field.  Files are damaged with SQL.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "tap.h"
#include "tracedb.h"

static char dir[64];

static const char *tmp(const char *name)
{
	static char path[8][256];
	static int k;
	k = (k + 1) % 8;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	return path[k];
}

/*
 * A small iteration: a persistent weight, two activations, a kernel chain
 * and a copy out.  Peak (all) = 4096 + 1000 + 500 = 5596 at the second
 * alloc; transient peak = 1500.
 */
static struct trace *sample(void)
{
	struct trace *t = trace_new();
	trace_set_meta(t, "source", "unit-test");
	trace_set_meta(t, "device", "none");
	struct trace_buffer w = { .size = 4096, .role = TRACE_ROLE_WEIGHT,
				  .label = "w", .stream = TRACE_NONE,
				  .fixed_offset = TRACE_NONE };
	struct trace_buffer a = { .size = 1000, .rounded = 1024, .label = "a",
				  .stack = "model.py:20 forward\ntrain.py:88 main",
				  .addr = 0x7f0000001000ull, .stream = 7,
				  .role = TRACE_ROLE_ACTIVATION,
				  .fixed_offset = TRACE_NONE };
	struct trace_buffer b = { .size = 500, .label = NULL,
				  .stream = TRACE_NONE, .align = 256,
				  .fixed_offset = TRACE_NONE };
	trace_add_buffer(t, &w);
	trace_add_buffer(t, &a);
	trace_add_buffer(t, &b);
	struct trace_event e = { .t_start = TRACE_TIME_NONE,
				 .t_end = TRACE_TIME_NONE,
				 .buffer = TRACE_NONE, .stream = TRACE_NONE };
#define EV(SEQ, TYPE, BUF, NAME)                                            \
	do {                                                                 \
		struct trace_event x = e;                                    \
		x.seq = (SEQ);                                               \
		x.type = (TYPE);                                             \
		x.buffer = (BUF);                                            \
		x.name = (NAME);                                             \
		trace_add_event(t, &x);                                      \
	} while (0)
	EV(0, TRACE_EV_MARK, TRACE_NONE, "iteration");
	EV(1, TRACE_EV_ALLOC, 1, NULL);
	EV(2, TRACE_EV_KERNEL, TRACE_NONE, "gemm");
	trace_add_access(t, 0, TRACE_ACCESS_READ);
	trace_add_access(t, 1, TRACE_ACCESS_WRITE);
	t->events[t->nevents - 1].t_start = 1000;
	t->events[t->nevents - 1].t_end = 2500;
	t->events[t->nevents - 1].flops = 123456;
	EV(5, TRACE_EV_ALLOC, 2, NULL);
	EV(6, TRACE_EV_KERNEL, TRACE_NONE, "relu");
	trace_add_access(t, 1, TRACE_ACCESS_READ);
	trace_add_access(t, 2, TRACE_ACCESS_RW);
	EV(7, TRACE_EV_FREE, 1, NULL);
	EV(8, TRACE_EV_COPY, TRACE_NONE, "memcpy");
	t->events[t->nevents - 1].aux = TRACE_COPY_D2H;
	t->events[t->nevents - 1].bytes = 500;
	trace_add_access(t, 2, TRACE_ACCESS_READ);
	EV(9, TRACE_EV_FREE, 2, NULL);
	EV(10, TRACE_EV_KERNEL, TRACE_NONE, "gemm");
	trace_add_access(t, 0, TRACE_ACCESS_RW);
#undef EV
	return t;
}

static int same_trace(const struct trace *x, const struct trace *y)
{
	if (x->nbuffers != y->nbuffers || x->nevents != y->nevents ||
	    x->naccesses != y->naccesses || x->nholes != y->nholes)
		return 0;
	for (size_t i = 0; i < x->nbuffers; i++) {
		const struct trace_buffer *a = &x->buffers[i], *b = &y->buffers[i];
		if (a->size != b->size || a->rounded != b->rounded ||
		    a->addr != b->addr || a->align != b->align ||
		    a->stream != b->stream || a->kind != b->kind ||
		    a->role != b->role || a->alloc_ev != b->alloc_ev ||
		    a->free_ev != b->free_ev || a->nuses != b->nuses ||
		    (a->label == NULL) != (b->label == NULL) ||
		    (a->label && strcmp(a->label, b->label)) ||
		    (a->stack == NULL) != (b->stack == NULL) ||
		    (a->stack && strcmp(a->stack, b->stack)))
			return 0;
	}
	for (size_t i = 0; i < x->nevents; i++) {
		const struct trace_event *a = &x->events[i], *b = &y->events[i];
		if (a->seq != b->seq || a->type != b->type ||
		    a->buffer != b->buffer || a->t_start != b->t_start ||
		    a->t_end != b->t_end || a->bytes != b->bytes ||
		    a->flops != b->flops || a->aux != b->aux ||
		    a->nacc != b->nacc || (a->name == NULL) != (b->name == NULL) ||
		    (a->name && strcmp(a->name, b->name)))
			return 0;
		for (uint32_t k = 0; k < a->nacc; k++)
			if (x->accesses[a->acc0 + k].buffer !=
				    y->accesses[b->acc0 + k].buffer ||
			    x->accesses[a->acc0 + k].mode !=
				    y->accesses[b->acc0 + k].mode)
				return 0;
	}
	return 1;
}

static void sql(const char *path, const char *stmt)
{
	sqlite3 *db;
	if (sqlite3_open(path, &db) != SQLITE_OK ||
	    sqlite3_exec(db, stmt, NULL, NULL, NULL) != SQLITE_OK)
		printf("# sql failed: %s: %s\n", stmt, sqlite3_errmsg(db));
	sqlite3_close(db);
}

static void copy_file(const char *from, const char *to, long keep)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[4096];
	size_t n;
	long total = 0;
	while (in && out && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (keep >= 0 && total + (long)n > keep)
			n = (size_t)(keep - total);
		fwrite(buf, 1, n, out);
		total += (long)n;
		if (keep >= 0 && total >= keep)
			break;
	}
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

/* Copies the good file, damages it with stmt, loads it: expects code and
 * a message containing each of want (NULL-terminated list). */
static void expect_bad(const char *good, const char *stmt, int code,
		       const char *what, const char *want1, const char *want2)
{
	const char *p = tmp("bad.trace");
	copy_file(good, p, -1);
	if (stmt)
		sql(p, stmt);
	struct trace *t = NULL;
	char err[512] = "";
	int rc = trace_load(p, &t, err, sizeof(err));
	char label[256];
	snprintf(label, sizeof(label), "refused: %s", what);
	CHECK(rc == code && t == NULL, label);
	if (rc != code)
		printf("#   rc %d, message: %s\n", rc, err);
	snprintf(label, sizeof(label), "message names the file: %s", what);
	CHECK_STR_HAS(err, "trace '", label);
	snprintf(label, sizeof(label), "message says why: %s", what);
	CHECK_STR_HAS(err, want1, label);
	if (want2) {
		snprintf(label, sizeof(label), "message names the place: %s", what);
		CHECK_STR_HAS(err, want2, label);
	}
	trace_free(t);
}

static void test_round_trip(const char *good)
{
	char err[512];
	struct trace *t = sample();
	CHECK(trace_finish(t, err, sizeof(err)) == 0, "sample trace is valid");
	CHECK(trace_save(t, good, err, sizeof(err)) == 0, "sample trace saves");
	struct trace *u = NULL;
	int rc = trace_load(good, &u, err, sizeof(err));
	CHECK(rc == 0, "saved trace loads");
	if (rc)
		printf("#   %s\n", err);
	CHECK(u && same_trace(t, u), "loaded trace equals the saved one");
	CHECK(u && strcmp(trace_get_meta(u, "source"), "unit-test") == 0,
	      "meta survives");
	CHECK(u && strcmp(trace_get_meta(u, "complete"), "1") == 0,
	      "finished file is marked complete");
	int64_t at;
	CHECK_EQ_U64(trace_peak(u, TRACE_ALL, &at), 5596, "peak of all buffers");
	CHECK_EQ_U64(at, 5, "peak is reached at seq 5");
	CHECK_EQ_U64(trace_peak(u, TRACE_TRANSIENT, NULL), 1500,
		     "lower bound counts transient buffers");
	CHECK_EQ_U64(trace_peak(u, TRACE_PERSISTENT, NULL), 4096,
		     "persistent peak");
	CHECK(u && trace_buffer_persistent(&u->buffers[0]) &&
		      !trace_buffer_persistent(&u->buffers[1]),
	      "persistence follows from alloc/free events");
	CHECK(u && u->buffers[0].nuses == 2 && u->uses[u->buffers[0].use0] == 2 &&
		      u->uses[u->buffers[0].use0 + 1] == 8,
	      "use points of the weight are events 2 and 8");
	CHECK(u && u->buffers[2].nuses == 2, "buffer b has two use points");
	CHECK(u && u->buffers[1].stack && !u->buffers[0].stack &&
		      strcmp(u->buffers[1].stack, "model.py:20 forward\ntrain.py:88 main") == 0,
	      "a buffer's call stack survives, and no stack stays none");

	/* a file of before the table buffer_stacks still loads */
	const char *old = tmp("nostacks.trace");
	copy_file(good, old, -1);
	sql(old, "DROP TABLE buffer_stacks");
	struct trace *o = NULL;
	rc = trace_load(old, &o, err, sizeof(err));
	CHECK(rc == 0 && o && o->buffers[1].stack == NULL,
	      "a trace without buffer_stacks loads, without stacks");
	trace_free(o);
	trace_free(u);
	trace_free(t);
}

static void test_damage(const char *good)
{
	struct trace *t = NULL;
	char err[512];
	CHECK(trace_load(tmp("missing.trace"), &t, err, sizeof(err)) == TRACE_EIO,
	      "a missing file is an I/O error");
	CHECK_STR_HAS(err, "missing.trace", "missing file is named");

	FILE *f = fopen(tmp("empty.trace"), "w");
	fclose(f);
	CHECK(trace_load(tmp("empty.trace"), &t, err, sizeof(err)) == TRACE_EFORMAT,
	      "an empty file is refused");
	CHECK_STR_HAS(err, "empty", "empty file message");

	f = fopen(tmp("text.trace"), "w");
	fputs("id,lower,upper,size\n0,0,1,2\n", f);
	fclose(f);
	CHECK(trace_load(tmp("text.trace"), &t, err, sizeof(err)) == TRACE_EFORMAT,
	      "a non-SQLite file is refused");
	CHECK_STR_HAS(err, "not a SQLite database", "non-SQLite message");

	/* truncated: keep the first pages only */
	copy_file(good, tmp("trunc.trace"), 8192);
	int rc = trace_load(tmp("trunc.trace"), &t, err, sizeof(err));
	CHECK(rc == TRACE_EFORMAT && t == NULL, "a truncated file is refused");
	CHECK_STR_HAS(err, "trunc.trace", "truncated file is named");

	expect_bad(good, "UPDATE meta SET value='99' WHERE key='schema_version'",
		   TRACE_EVERSION, "newer schema", "newer", "99");
	expect_bad(good, "UPDATE meta SET value='x1' WHERE key='schema_version'",
		   TRACE_EFORMAT, "garbage schema version", "schema_version", NULL);
	expect_bad(good, "DELETE FROM meta WHERE key='schema_version'",
		   TRACE_EFORMAT, "no schema version", "schema_version is missing", NULL);
	expect_bad(good, "DROP TABLE accesses", TRACE_EFORMAT, "missing table",
		   "table accesses is missing", NULL);
	expect_bad(good, "UPDATE buffers SET size=0 WHERE id=1", TRACE_EFORMAT,
		   "zero size", "field size", "row 2");
	expect_bad(good, "UPDATE buffers SET size=-5 WHERE id=2", TRACE_EFORMAT,
		   "negative size", "field size", "row 3");
	expect_bad(good, "UPDATE buffers SET size='big' WHERE id=0", TRACE_EFORMAT,
		   "text size", "expected an integer, found text", "field size");
	expect_bad(good, "UPDATE buffers SET rounded=10 WHERE id=1", TRACE_EFORMAT,
		   "rounded below size", "field rounded", "row 2");
	expect_bad(good, "UPDATE buffers SET id=7 WHERE id=2", TRACE_EFORMAT,
		   "sparse buffer ids", "field id", "row 3");
	expect_bad(good, "UPDATE buffers SET kind=42 WHERE id=0", TRACE_EFORMAT,
		   "unknown kind", "field kind", "row 1");
	expect_bad(good, "UPDATE events SET seq=3 WHERE rowid=5", TRACE_EFORMAT,
		   "seq not increasing", "field seq", "row 5");
	expect_bad(good, "UPDATE events SET type=1 WHERE rowid=2;"
			 "UPDATE events SET type=0 WHERE rowid=6",
		   TRACE_EFORMAT, "free before its alloc", "free before its alloc",
		   "table events");
	expect_bad(good, "UPDATE events SET buffer=1 WHERE rowid=8",
		   TRACE_EFORMAT, "double free", "freed twice", "row 8");
	expect_bad(good, "UPDATE events SET buffer=9 WHERE rowid=2",
		   TRACE_EFORMAT, "alloc of a missing buffer", "does not exist",
		   "field buffer");
	expect_bad(good, "UPDATE events SET type=77 WHERE rowid=3",
		   TRACE_EFORMAT, "unknown event type", "field type", "row 3");
	expect_bad(good, "UPDATE events SET t_end=10 WHERE rowid=3",
		   TRACE_EFORMAT, "end before start", "field t_end", "row 3");
	expect_bad(good, "UPDATE events SET name=99 WHERE rowid=3",
		   TRACE_EFORMAT, "dangling name", "field name", "row 3");
	/* access to b (alloc at seq 5) from the kernel at seq 2 */
	expect_bad(good, "UPDATE accesses SET buffer=2 WHERE rowid=2",
		   TRACE_EFORMAT, "access to a buffer not yet live",
		   "not live at seq 2", "table accesses");
	expect_bad(good, "UPDATE accesses SET buffer=1 WHERE rowid=5",
		   TRACE_EFORMAT, "access to a freed buffer", "not live",
		   "table accesses");
	expect_bad(good, "UPDATE accesses SET buffer=12 WHERE rowid=1",
		   TRACE_EFORMAT, "access to no buffer", "does not exist",
		   "row 1");
	expect_bad(good, "UPDATE accesses SET seq=4 WHERE rowid=1",
		   TRACE_EFORMAT, "access to no event", "no event has seq 4",
		   "table accesses");
	expect_bad(good, "UPDATE accesses SET mode=9 WHERE rowid=1",
		   TRACE_EFORMAT, "unknown access mode", "field mode", "row 1");
	expect_bad(good, "INSERT INTO holes VALUES(1, 0, 100, NULL, NULL)",
		   TRACE_EFORMAT, "hole outside the lifetime", "outside the lifetime",
		   "table holes");
	/* buffer 1 lives [1, 7); the kernel at seq 2 writes it */
	expect_bad(good, "INSERT INTO holes VALUES(1, 2, 6, NULL, NULL)",
		   TRACE_EFORMAT, "an access inside a hole",
		   "inside its hole [2, 6)", "table accesses, row 2");
	expect_bad(good, "INSERT INTO holes VALUES(1, 1, 2, NULL, NULL)",
		   TRACE_EFORMAT, "a hole starting at the alloc",
		   "starts at the alloc of buffer 1", "table holes, row 1");
	/* the free of buffer 1 is at seq 7: an access there is one too late */
	expect_bad(good, "INSERT INTO accesses VALUES(7, 1, 1)",
		   TRACE_EFORMAT, "an access at its buffer's free",
		   "buffer 1 is not live at seq 7", "table accesses, row 5");
	expect_bad(good, "INSERT INTO accesses VALUES(1, 1, 1)",
		   TRACE_EFORMAT, "an access at its buffer's alloc",
		   "buffer 1 is not live at seq 1", "table accesses, row 1");
	/* the time clock: the kernel at seq 6 comes at time 90, after the
	 * free of buffer 1 at time 50, though before it in seq order */
	expect_bad(good, "INSERT INTO meta VALUES('clock', 'time');"
			 "UPDATE events SET t_start=seq*10, t_end=seq*10;"
			 "UPDATE events SET t_start=90, t_end=90 WHERE seq=6;"
			 "UPDATE events SET t_start=50, t_end=50 WHERE seq=7",
		   TRACE_EFORMAT, "an access after its buffer's free in time",
		   "outside the lifetime [10, 50) of buffer 1",
		   "table accesses, row 3");
	/* sizes: one bound for every size and every sum */
	expect_bad(good, "UPDATE buffers SET size=9223372036854775807,"
			 " rounded=9223372036854775807 WHERE id=1",
		   TRACE_EFORMAT, "an 8 EiB buffer", "not below 2^62",
		   "row 2, field size");
	expect_bad(good, "UPDATE buffers SET size=4611686018427387000,"
			 " rounded=4611686018427387000 WHERE id=1",
		   TRACE_EFORMAT, "sizes that add up past the bound",
		   "add up to 2^62", "table buffers, row 2");
	expect_bad(good, "UPDATE buffers SET align=4611686018427387904 WHERE id=2",
		   TRACE_EFORMAT, "an alignment at the bound", "not below 2^62",
		   "row 3, field align");
	/* a view that never ends where a table should be: refused, not read */
	expect_bad(good, "DROP VIEW events_named; DROP TABLE events;"
			 "CREATE VIEW Events AS WITH RECURSIVE c(x) AS"
			 " (SELECT 0 UNION ALL SELECT x + 1 FROM c)"
			 " SELECT x AS seq, 2 AS type, NULL AS buffer, NULL AS stream,"
			 " NULL AS t_start, NULL AS t_end, NULL AS bytes, NULL AS flops,"
			 " 0 AS aux, NULL AS name FROM c",
		   TRACE_EFORMAT, "an endless view for a table", "is a view",
		   "table events");
	expect_bad(good, "UPDATE buffer_stacks SET buffer=9",
		   TRACE_EFORMAT, "the stack of no buffer", "buffer 9 does not exist",
		   "table buffer_stacks");
	expect_bad(good, "UPDATE buffer_stacks SET stack=99",
		   TRACE_EFORMAT, "a dangling stack", "no name has id 99",
		   "field stack");
	expect_bad(good, "INSERT INTO meta VALUES('clock', 'sundial')",
		   TRACE_EFORMAT, "unknown clock", "sundial", "clock");
}

static void test_finish_errors(void)
{
	char err[512];
	struct trace *t = trace_new();
	struct trace_buffer b = { .size = 8, .stream = TRACE_NONE,
				  .fixed_offset = TRACE_NONE };
	trace_add_buffer(t, &b);
	struct trace_event e = { .seq = 0, .type = TRACE_EV_FREE, .buffer = 0,
				 .t_start = TRACE_TIME_NONE,
				 .t_end = TRACE_TIME_NONE, .stream = TRACE_NONE };
	trace_add_event(t, &e);
	e.seq = 1;
	e.type = TRACE_EV_ALLOC;
	trace_add_event(t, &e);
	CHECK(trace_finish(t, err, sizeof(err)) == TRACE_EFORMAT,
	      "in memory: free before alloc is refused");
	CHECK_STR_HAS(err, "row 2", "in memory: the alloc row is named");
	trace_free(t);

	t = trace_new();
	trace_set_meta(t, "clock", "time");
	trace_add_buffer(t, &b);
	e = (struct trace_event){ .seq = 0, .type = TRACE_EV_ALLOC, .buffer = 0,
				  .t_start = 50, .t_end = 50, .stream = TRACE_NONE };
	trace_add_event(t, &e);
	e.seq = 1;
	e.type = TRACE_EV_FREE;
	e.t_start = e.t_end = 40;
	trace_add_event(t, &e);
	CHECK(trace_finish(t, err, sizeof(err)) == TRACE_EFORMAT,
	      "time clock: free earlier than alloc is refused");
	CHECK_STR_HAS(err, "before its alloc", "time clock message");
	trace_free(t);
}

static void test_atomic_writes(const char *good)
{
	char err[512];
	struct trace_writer *w;
	CHECK(trace_writer_open(&w, "/nonexistent-dir/x.trace", TRACE_WRITE_ATOMIC,
				err, sizeof(err)) == TRACE_EIO,
	      "writing into a missing folder fails");
	CHECK_STR_HAS(err, "/nonexistent-dir/x.trace", "and names the file");

	/* an abandoned write leaves the good file where it was, untouched */
	const char *p = tmp("keep.trace");
	copy_file(good, p, -1);
	CHECK(trace_writer_open(&w, p, TRACE_WRITE_ATOMIC, err, sizeof(err)) == 0,
	      "writer opens over an existing trace");
	struct trace_buffer b = { .size = 1, .stream = TRACE_NONE,
				  .fixed_offset = TRACE_NONE };
	trace_writer_buffer(w, &b);
	trace_writer_close(w, 0, err, sizeof(err));
	struct trace *t = NULL;
	CHECK(trace_load(p, &t, err, sizeof(err)) == 0 && t && t->nbuffers == 3,
	      "abandoned write leaves the old trace intact");
	trace_free(t);
	char side[300];
	snprintf(side, sizeof(side), "%s.tmp-%ld", p, (long)getpid());
	CHECK(access(side, F_OK) != 0, "abandoned write leaves no temporary file");

	/* a model violation found at load time is not written over a good file
	 * by trace_save: it validates nothing, so the caller must finish() */
}

/* Reading a trace in WAL mode leaves nothing beside it. */
static void test_wal_read(const char *good)
{
	const char *p = tmp("wal.trace");
	copy_file(good, p, -1);
	sql(p, "PRAGMA journal_mode=WAL");
	char side[300];
	snprintf(side, sizeof(side), "%s-wal", p);
	CHECK(access(side, F_OK) != 0, "WAL: no -wal file before the read");
	struct trace *t = NULL;
	char err[512];
	CHECK(trace_load(p, &t, err, sizeof(err)) == 0 && t && t->nbuffers == 3,
	      "WAL: the trace loads");
	trace_free(t);
	CHECK(access(side, F_OK) != 0, "WAL: reading leaves no -wal file");
	snprintf(side, sizeof(side), "%s-shm", p);
	CHECK(access(side, F_OK) != 0, "WAL: reading leaves no -shm file");
}

/* A capture killed mid-way leaves a readable trace marked incomplete. */
static void test_stream_crash(void)
{
	const char *p = tmp("stream.trace");
	pid_t pid = fork();
	if (pid == 0) {
		char err[512];
		struct trace_writer *w;
		if (trace_writer_open(&w, p, TRACE_WRITE_STREAM, err, sizeof(err)))
			_exit(3);
		struct trace_buffer b = { .size = 64, .stream = TRACE_NONE,
					  .fixed_offset = TRACE_NONE };
		struct trace_event e = { .type = TRACE_EV_ALLOC, .buffer = 0,
					 .t_start = TRACE_TIME_NONE,
					 .t_end = TRACE_TIME_NONE,
					 .stream = TRACE_NONE };
		/* enough rows to pass one batch commit */
		for (int i = 0; i < 200001; i++) {
			b.id = i;
			e.seq = i;
			e.buffer = i;
			if (trace_writer_buffer(w, &b) || trace_writer_event(w, &e))
				_exit(4);
		}
		raise(SIGKILL); /* no close, no commit of the last batch */
	}
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status), "writer child was killed mid-capture");
	struct trace *t = NULL;
	char err[512];
	int rc = trace_load(p, &t, err, sizeof(err));
	CHECK(rc == 0, "killed capture's trace is readable");
	if (rc)
		printf("#   %s\n", err);
	CHECK(t && strcmp(trace_get_meta(t, "complete"), "0") == 0,
	      "and is marked incomplete");
	CHECK(t && t->nbuffers >= 1 && t->nevents >= 1 && t->nbuffers <= 200001,
	      "and holds the committed batches");
	trace_free(t);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/memplan-test-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	char good[128];
	snprintf(good, sizeof(good), "%s/good.trace", dir);
	test_round_trip(good);
	test_damage(good);
	test_finish_errors();
	test_atomic_writes(good);
	test_wal_read(good);
	test_stream_crash();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
