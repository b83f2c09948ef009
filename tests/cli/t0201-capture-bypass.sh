#!/bin/sh
# Allocations by libraries with their own static cudart (cuBLAS workspaces,
# NCCL) never reach memplan's runtime: a trace records them in the optional
# table buffer_sources with bypass = 1 (the capture fills it from CUPTI's
# allocation source), and plans, verify and replay keep them off the
# runtime's request clock.  Malformed rows are refused, naming the field.
. tests/cli/lib.sh

memplan-trace synth --model alexnet --batch 4 -o "$T/a.trace" >/dev/null
cp "$T/a.trace" "$T/b.trace"
# two transient device buffers become a library's own workspaces
sqlite3 "$T/b.trace" "
INSERT INTO names VALUES((SELECT coalesce(max(id), 0) + 1 FROM names), '/opt/nvidia/lib/libcublasLt.so.13');
INSERT INTO buffer_sources SELECT b.id, (SELECT max(id) FROM names), 1 FROM buffers b
 WHERE EXISTS(SELECT 1 FROM events e WHERE e.buffer = b.id AND e.type = 0)
   AND EXISTS(SELECT 1 FROM events e WHERE e.buffer = b.id AND e.type = 1)
 ORDER BY b.size DESC, b.id LIMIT 2;" || fail=1

expect 0 "compile the trace with library workspaces" memplan-plan compile "$T/b.trace" -o "$T/b.plan"
expect 0 "compile the trace without them" memplan-plan compile "$T/a.trace" -o "$T/a.plan"
ra=$(memplan-plan inspect --json "$T/a.plan" | grep -o '"nrequests":[0-9]*' | cut -d: -f2)
rb=$(memplan-plan inspect --json "$T/b.plan" | grep -o '"nrequests":[0-9]*' | cut -d: -f2)
[ -n "$ra" ] && [ -n "$rb" ] && [ "$rb" -eq $((ra - 4)) ]
ok $? "the plan's clock leaves out their 2 allocations and 2 frees ($ra -> $rb requests)"
na=$(memplan-plan inspect --json "$T/a.plan" | grep -o '"entries":[0-9]*' | sed -n 2p | cut -d: -f2)
nb=$(memplan-plan inspect --json "$T/b.plan" | grep -o '"entries":[0-9]*' | sed -n 2p | cut -d: -f2)
[ -n "$na" ] && [ -n "$nb" ] && [ "$nb" -eq $((na - 2)) ]
ok $? "and holds two allocations fewer ($na -> $nb)"
expect 0 "verify follows the same clock" memplan-plan verify "$T/b.plan" "$T/b.trace"
expect 1 "the plan of the other trace does not verify" memplan-plan verify "$T/a.plan" "$T/b.trace"
expect 0 "replay serves the rest, and leaves the workspaces to their library" \
	memplan-replay --iterations 2 "$T/b.plan" "$T/b.trace"
expect 0 "info reads the sources" memplan-trace info "$T/b.trace"
has "$T/out" "bypassing:    2 buffers" "and says how many bypass the runtime, and whose"

# malformed rows: file, table, row and field
bad() { # description, SQL
	cp "$T/b.trace" "$T/bad.trace"
	sqlite3 "$T/bad.trace" "$2"
	expect 3 "$1" memplan-trace info "$T/bad.trace"
}
bad "bypass neither 0 nor 1" "UPDATE buffer_sources SET bypass = 2"
has "$T/err" "table buffer_sources, row 1, field bypass" "names the table, row and field"
bad "a buffer that does not exist" "UPDATE buffer_sources SET buffer = 99999 WHERE rowid = (SELECT max(rowid) FROM buffer_sources)"
has "$T/err" "field buffer" "names the field"
bad "a source that is no name" "UPDATE buffer_sources SET source = 99999"
has "$T/err" "field source" "names the field"
bad "a source of the wrong type" "UPDATE buffer_sources SET source = 'libnccl.so'"
has "$T/err" "buffer_sources" "names the table"

done_testing
