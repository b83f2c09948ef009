#!/bin/sh
# Hostile inputs never hang, never pass, never corrupt (issue 22).  An
# output that is the command's own input is refused (exit 2) before anything
# is written.  A FIFO, a directory or /dev/zero as any input, a view with an
# endless recursive query where a table should be, an 8 EiB buffer and a
# names table with a duplicated id exit 3 naming the file, from every
# reader: memplan-trace info, memplan-analyze summary and check (the
# streaming reader), the importers and the plan reader.  Commands run under
# a time limit, so that a hang fails the test instead of the CI.
. tests/cli/lib.sh

# limit CMD...: runs CMD for at most 20 seconds (124: it hung)
if command -v timeout >/dev/null 2>&1; then
	limit() { timeout 20 "$@"; }
else
	limit() { "$@"; }
fi

mkfifo "$T/fifo" || exit 1
mkdir "$T/dir"
for input in "$T/fifo" "$T/dir" /dev/zero; do
	n=$(basename "$input")
	for cmd in "memplan-trace info" "memplan-analyze summary" \
		"memplan-analyze check --max-peak 1GiB" \
		"memplan-trace import --from nsys-sqlite -o $T/o.trace" \
		"memplan-trace import --from minimalloc-csv -o $T/o.trace" \
		"memplan-trace import --from pytorch-snapshot -o $T/o.trace" \
		"memplan-plan inspect" "memplan-plan compile -o $T/o.plan"; do
		# shellcheck disable=SC2086
		expect 3 "$n: $cmd exits 3" limit $cmd "$input"
		has "$T/err" "'$input': not a regular file" "$n: $cmd names the file"
	done
done
[ ! -e "$T/o.trace" ] && [ ! -e "$T/o.plan" ]
ok $? "no output is left behind"

# an output that is the input: refused (exit 2), the input left as it was
z=$T/z.trace
memplan-trace synth --model alexnet --batch 2 -o "$z" 2>"$T/err"
ok $? "synth a zoo iteration"
cp "$z" "$T/z.orig"
ln "$z" "$T/z.link"
for o in "$z" "$T/z.link" "$T/../$(basename "$T")/z.trace"; do
	expect 2 "slice -o its input ($(basename "$o")) is refused" \
		memplan-trace slice "$z" --iteration 1 -o "$o"
	has "$T/err" "slice: the output '$o' is the input trace" "and says why"
done
expect 2 "import -o its input is refused" \
	memplan-trace import --from minimalloc-csv "$z" -o "$T/z.link"
expect 2 "export -o its input is refused" \
	memplan-trace export --to minimalloc-csv "$z" -o "$z"
expect 2 "timeline -o its input is refused" \
	memplan-analyze timeline --format svg "$z" -o "$T/z.link"
expect 2 "check --junit over its input is refused" \
	memplan-analyze check --max-peak 1GiB --junit "$z" "$T/z.link"
expect 2 "compile -o its input is refused" \
	memplan-plan compile "$z" -o "$T/z.link"
has "$T/err" "compile: the output '$T/z.link' is the input trace" "and says why"
expect 2 "simulate -o its input is refused" \
	memplan-plan simulate "$T/none.plan" "$z" -o "$z"
expect 2 "frontier -o its input is refused" \
	memplan-plan frontier "$z" -o "$T/z.link"
cmp -s "$z" "$T/z.orig"
ok $? "the input trace is unchanged"
expect 0 "slice to another file still works" \
	memplan-trace slice "$z" --iteration 1 -o "$T/z1.trace"

need_python3
sql() { # FILE STATEMENTS
	python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript(sys.argv[2])
db.commit()' "$1" "$2"
}

memplan-trace import --from minimalloc-csv tests/fuzz/seeds/csv/small.csv \
	-o "$T/good.trace" 2>"$T/err"
ok $? "import a small trace"

# reading a trace in WAL mode leaves no -wal or -shm file beside it
cp "$T/good.trace" "$T/wal.trace"
sql "$T/wal.trace" "PRAGMA journal_mode=WAL;"
expect 0 "WAL: summary reads it" memplan-analyze summary "$T/wal.trace"
expect 0 "WAL: info reads it" memplan-trace info "$T/wal.trace"
[ ! -e "$T/wal.trace-shm" ] && [ ! -e "$T/wal.trace-wal" ]
ok $? "WAL: reading leaves no -shm or -wal file"

# a view that never ends in place of a table
endless="WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c)"
cp "$T/good.trace" "$T/view.trace"
sql "$T/view.trace" "DROP VIEW events_named; DROP TABLE events;
CREATE VIEW events AS $endless SELECT x AS seq, 2 AS type, NULL AS buffer,
 NULL AS stream, NULL AS t_start, NULL AS t_end, NULL AS bytes, NULL AS flops,
 0 AS aux, NULL AS name FROM c;"
for cmd in "memplan-trace info" "memplan-analyze summary" \
	"memplan-analyze check --max-peak 1GiB"; do
	# shellcheck disable=SC2086
	expect 3 "endless view: $cmd exits 3" limit $cmd "$T/view.trace"
	has "$T/err" "view.trace': table events is a view, not a table" \
		"endless view: $cmd names the file and the table"
done
python3 tests/import/make_nsys.py current "$T/nsys.sqlite"
ok $? "the generator wrote an nsys export"
sql "$T/nsys.sqlite" "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO k0;
CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS $endless SELECT * FROM k0, c;"
expect 3 "endless view: nsys import exits 3" \
	limit memplan-trace import --from nsys-sqlite "$T/nsys.sqlite" --device 0 -o "$T/o.trace"
has "$T/err" "table CUPTI_ACTIVITY_KIND_KERNEL is a view" \
	"endless view: nsys import names the table"

# an 8 EiB buffer: every peak would overflow
cp "$T/good.trace" "$T/huge.trace"
sql "$T/huge.trace" "UPDATE buffers SET size = 9223372036854775807,
 rounded = 9223372036854775807 WHERE id = 1;"
for cmd in "memplan-trace info" "memplan-analyze summary" \
	"memplan-analyze check --max-peak 1GiB"; do
	# shellcheck disable=SC2086
	expect 3 "8 EiB buffer: $cmd exits 3" limit $cmd "$T/huge.trace"
	has "$T/err" "table buffers, row 2, field size" "8 EiB buffer: $cmd names the row"
done

# a names table with a duplicated id (a damaged B-tree page does this to the
# real table): the streamed summary must refuse it as the loader does
cp "$T/good.trace" "$T/names.trace"
sql "$T/names.trace" "DROP VIEW events_named; ALTER TABLE names RENAME TO n0;
CREATE TABLE names(id INTEGER, name TEXT NOT NULL);
INSERT INTO names VALUES(1, 'a'), (1, 'b'), (3, 'c');"
for cmd in "memplan-trace info" "memplan-analyze summary" \
	"memplan-analyze check --max-peak 1GiB"; do
	# shellcheck disable=SC2086
	expect 3 "duplicated name id: $cmd exits 3" limit $cmd "$T/names.trace"
	has "$T/err" "table names, row 2, field id" "duplicated name id: $cmd names the row"
done

done_testing
