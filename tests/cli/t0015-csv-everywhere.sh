#!/bin/sh
# Every command that takes a TRACE also takes a MiniMalloc CSV (told apart
# by the SQLite header), with the same figures as the trace imported from it,
# and a broken CSV gets the CSV reader's error (file, line, field), exit 3.
. tests/cli/lib.sh

memplan-trace synth --model alexnet --batch 4 -o "$T/a.trace" >/dev/null
memplan-trace export --to minimalloc-csv "$T/a.trace" -o "$T/a.csv" >/dev/null
memplan-trace import --from minimalloc-csv "$T/a.csv" -o "$T/c.trace" >/dev/null

expect 0 "summary of a CSV" memplan-analyze summary --json "$T/a.csv"
grep -o '"lower_bound":[0-9]*' "$T/out" >"$T/lb.csv"
memplan-analyze summary --json "$T/c.trace" | grep -o '"lower_bound":[0-9]*' >"$T/lb.trace"
[ -s "$T/lb.csv" ] && cmp -s "$T/lb.csv" "$T/lb.trace"
ok $? "the CSV's lower bound is its imported trace's"
expect 0 "check of a CSV" memplan-analyze check --max-peak 100GiB "$T/a.csv"
expect 1 "check of a CSV fails above a limit" memplan-analyze check --max-peak 1KiB "$T/a.csv"
expect 0 "timeline of a CSV" memplan-analyze timeline -o "$T/a.svg" "$T/a.csv"
expect 0 "diff of a CSV and its trace" memplan-analyze diff "$T/a.csv" "$T/c.trace"
expect 0 "info of a CSV" memplan-trace info "$T/a.csv"
has "$T/out" "minimalloc-csv" "info says where it came from"
expect 0 "compile of a CSV" memplan-plan compile "$T/a.csv" -o "$T/a.plan"

printf 'id,lower,upper,size\n0,0,5,-1\n' >"$T/bad.csv"
expect 3 "a broken CSV" memplan-analyze summary "$T/bad.csv"
has "$T/err" "bad.csv':2: field size" "named by file, line and field"
expect 3 "a broken CSV, info" memplan-trace info "$T/bad.csv"
has "$T/err" "bad.csv':2: field size" "the same error there"
expect 3 "a directory" memplan-analyze summary "$T"
has "$T/err" "not a regular file" "says why"

done_testing
