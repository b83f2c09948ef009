#!/bin/sh
# memplan-trace import --from nsys-sqlite refusing an export: every refusal
# names the file, what is missing or wrong and how to fix it, and SQLite's
# own message appears only where SQLite failed (a view in place of a table
# was once reported as "sqlite_master: not an error").  Each exits 3 and
# writes nothing.
. tests/cli/lib.sh

need_python3
sql() { # FILE STATEMENTS
	python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript(sys.argv[2])
db.commit()' "$1" "$2"
}
python3 tests/import/make_nsys.py current "$T/good.sqlite"
ok $? "the generator wrote an nsys export"
expect 0 "the export imports" \
	memplan-trace import --from nsys-sqlite "$T/good.sqlite" --device 0 -o "$T/good.trace"

# refuse NAME WHAT SQL EXPECTED...: the export changed by SQL is refused
# with exit 3, the message names the file and holds each EXPECTED text, and
# no SQLite "not an error" stands in for the reason
refuse() {
	name=$1 what=$2 change=$3
	shift 3
	cp "$T/good.sqlite" "$T/$name.sqlite"
	sql "$T/$name.sqlite" "$change"
	expect 3 "$what: exits 3" memplan-trace import --from nsys-sqlite \
		"$T/$name.sqlite" --device 0 -o "$T/$name.trace"
	has "$T/err" "cannot read nsys export '$T/$name.sqlite': " "$what: names the file"
	for text in "$@"; do
		has "$T/err" "$text" "$what: says '$text'"
	done
	! grep -q "not an error" "$T/err"
	ok $? "$what: no SQLite message where SQLite did not fail"
	[ ! -e "$T/$name.trace" ]
	ok $? "$what: nothing written"
}

# a view in place of each table the import looks up before reading
for table in CUDA_GPU_MEMORY_USAGE_EVENTS ENUM_CUDA_DEV_MEM_EVENT_OPER \
	ENUM_CUDA_MEM_KIND CUPTI_ACTIVITY_KIND_RUNTIME META_DATA_EXPORT StringIds; do
	refuse "view-$table" "$table as a view" \
		"ALTER TABLE $table RENAME TO t0; CREATE VIEW $table AS SELECT * FROM t0;" \
		"table $table is a view, not a table" "export the report again with 'nsys export --type sqlite'"
done
refuse nomem "no memory table" "DROP TABLE CUDA_GPU_MEMORY_USAGE_EVENTS;" \
	"table CUDA_GPU_MEMORY_USAGE_EVENTS is missing" "--cuda-memory-usage=true"
refuse nocol "a memory table without bytes" \
	"ALTER TABLE CUDA_GPU_MEMORY_USAGE_EVENTS DROP COLUMN bytes;" \
	"lacks column bytes" "export the report again"
# a table that lacks a column every export has: named, not SQLite's
# "no such column" from a query memplan wrote
for tc in CUPTI_ACTIVITY_KIND_KERNEL:deviceId CUPTI_ACTIVITY_KIND_MEMCPY:start \
	NVTX_EVENTS:start ENUM_CUDA_MEM_KIND:name StringIds:value META_DATA_EXPORT:value; do
	table=${tc%:*} col=${tc#*:}
	refuse "nocol-$table" "$table without $col" \
		"ALTER TABLE $table RENAME TO t0; CREATE TABLE $table AS SELECT * FROM t0;
		 DROP TABLE t0; ALTER TABLE $table DROP COLUMN $col;" \
		"table $table lacks column $col" "export the report again"
done
refuse nooper "no operation enumeration, with the kind one" \
	"DROP TABLE ENUM_CUDA_DEV_MEM_EVENT_OPER;" \
	"table ENUM_CUDA_DEV_MEM_EVENT_OPER is missing"
refuse nometa "no metadata table" "DROP TABLE META_DATA_EXPORT;" \
	"table META_DATA_EXPORT is missing" "nsys export --type sqlite"
refuse noversion "no schema version" "DELETE FROM META_DATA_EXPORT;" \
	"has no EXPORT_SCHEMA_VERSION"
# an export whose pages are damaged: SQLite's message, and the hint
cp "$T/good.sqlite" "$T/cut.sqlite"
size=$(wc -c <"$T/good.sqlite")
dd if=/dev/zero of="$T/cut.sqlite" bs=1024 seek=2 count=$((size / 1024 - 2)) \
	conv=notrunc 2>/dev/null
expect 3 "damaged pages: exits 3" memplan-trace import --from nsys-sqlite \
	"$T/cut.sqlite" --device 0 -o "$T/cut.trace"
has "$T/err" "cannot read nsys export '$T/cut.sqlite': " "damaged pages: names the file"
! grep -q "not an error" "$T/err"
ok $? "damaged pages: a true message"

done_testing
